"""`CardReader.repose_strong`: a Troetofanten strong key point whose refined pose (the shared
width field, the table's direction) reads as background is read again at the detector's
own pose and its searched width (a tiny synthetic photo, the stand-in classifier of
test_cards_backs: P(background) is the share of the crop that disagrees with a card's
top-left part)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tests.vision.test_cards_backs import CardOrNot, draw_face, table
from tests.vision.test_cards_backs import reader_with as _reader_with
from vision.cards.detect import KIND_PIECE, Keypoints
from vision.cards.geometry import SPECS, frame_from_pose, pose_from_frame
from vision.cards.pieces import CardPiece
from vision.classify.model import Prediction

SPEC = SPECS["troetofanten"]
PAPER = (235, 240, 242)


def reader_with(classifier):
    r = _reader_with(classifier)
    r.index = None  # (no number model: the classifier's own labels)
    return r


class KindByFit(CardOrNot):
    """The stand-in, but its piece share goes to `label` where the crop fits the card
    (under `cut` background) and to `other` where it does not."""

    def __init__(self, card, label, other, cut=0.1):
        super().__init__(card, label)
        self.other, self.cut = other, cut

    def predict(self, crops):
        p = super().predict(crops).probs
        bg = p[:, self.index("background")]
        off = bg >= self.cut
        p[off, self.index(self.other)] = p[off, self.index(self.label)]
        p[off, self.index(self.label)] = 0.0
        return Prediction(p, np.zeros((len(crops), 8), np.float32))


def posed_frames(kp: Keypoints) -> list:
    """The key point's frame as posed (the reader's `frames`)."""
    return [frame_from_pose(kp.xy[0], kp.angle[0], kp.width[0], SPEC)]


def keys(xy, angle, width) -> Keypoints:
    return Keypoints(np.asarray(xy, float)[None], np.array([KIND_PIECE]),
                     np.array([0.9], np.float32), np.array([float(angle)]),
                     np.array([float(width)]))


@pytest.mark.parametrize("posed,raw,searched,want", [
    ((0.0, 42.0), (0.0, 60.0), 72.0, (0.0, 60.0)),  # the width field 30 % narrow: own width
    ((0.0, 42.0), (0.0, 42.0), 60.0, (0.0, 60.0)),  # the searched width
    ((20.0, 60.0), (0.0, 60.0), 60.0, (0.0, 60.0)),  # snapped 20 degrees off: own angle
    ((0.0, 60.0), (0.0, 42.0), 42.0, None),  # the posed crop reads best: nothing again
])
def test_repose_strong_reads_the_key_points_own_pose(posed, raw, searched, want):
    img = table(11)
    frame = draw_face(img, (240, 180), 0.0, 60.0)
    key, _, _ = pose_from_frame(frame, SPEC)
    r = reader_with(CardOrNot(PAPER))
    kp = keys(key, *posed)
    piece = want is None  # (a posed crop of no piece is not read again: where it reads
    #   best, it was a piece, read under min_confidence)
    again, new = r.repose_strong(img, keys(key, *raw), kp, np.array([0]), np.array([searched]),
                                 posed_frames(kp), np.array([piece]),
                                 np.array([0.2 if piece else 0.0]))
    if want is None:
        assert len(again) == 0 and new == []
        assert (kp.angle[0], kp.width[0]) == posed  # (left as posed)
    else:
        assert again.tolist() == [0] and len(new) == 1
        assert (kp.angle[0], kp.width[0]) == pytest.approx(want)
        assert np.abs(new[0] - frame).max() < 3.0  # the card's own outline


def test_repose_strong_leaves_pieces_and_bare_table_alone():
    img = table(12)  # no card at all: no pose reads as one
    fake = CardOrNot(PAPER)
    r = reader_with(fake)
    kp = keys((240.0, 180.0), 0.0, 42.0)
    again, _ = r.repose_strong(img, keys((240.0, 180.0), 30.0, 60.0), kp, np.array([0]),
                               np.array([72.0]), posed_frames(kp), np.array([False]),
                               np.array([0.0]))
    assert len(again) == 0
    calls = fake.calls
    again, _ = r.repose_strong(img, kp, kp, np.array([0]), np.array([72.0]), posed_frames(kp),
                               np.array([True]), np.array([0.9]))  # read surely: not asked
    assert len(again) == 0 and fake.calls == calls


@pytest.mark.parametrize("label,other,found", [
    ("elephant-1", "elephant-2", True),  # a number split (under min_confidence): read surer
    ("elephant-1", "mouse", False),  # a mouse at the posed width: not an elephant now
])
def test_repose_strong_reads_a_doubted_number_again_as_its_kind(label, other, found):
    img = table(13)
    frame = draw_face(img, (240, 180), 0.0, 60.0)
    key, _, _ = pose_from_frame(frame, SPEC)
    r = reader_with(KindByFit(PAPER, label, other))
    r.settings = replace(r.settings, repose_scales=())  # (only the card's own width besides
    #   the posed one: 0.9 / 1.1 x the posed read the posed kind, a little surer)
    kp = keys(key, 0.0, 42.0)  # posed 30 % narrow: a piece, but under min_confidence
    again, _ = r.repose_strong(img, keys(key, 0.0, 60.0), kp, np.array([0]),
                               np.array([60.0]), posed_frames(kp), np.array([True]),
                               np.array([0.2]))
    assert (kp.width[0] == pytest.approx(60.0)) == found  # (the card's own width)
    assert again.tolist() == ([0] if found else [])


def test_repose_strong_skips_a_key_point_on_a_card_read_surely():
    img = table(14)
    frame = draw_face(img, (240, 180), 0.0, 60.0)
    key, _, _ = pose_from_frame(frame, SPEC)
    fake = CardOrNot(PAPER)
    r = reader_with(fake)
    inside = key + np.array([20.0, 40.0])  # (the card's drawing: its centre lies on it)
    kp = keys(inside, 0.0, 42.0)
    on = CardPiece("elephant-2", 0.9, key, frame, 0.0, 60.0)
    args = (img, keys(inside, 0.0, 60.0), kp, np.array([0]), np.array([60.0]), posed_frames(kp),
            np.array([False]), np.array([0.0]))
    assert len(r.repose_strong(*args, [on])[0]) == 0 and fake.calls == 0
    r.repose_strong(*args, [])
    assert fake.calls == 1  # (with no card read there, its poses are read)


@pytest.mark.parametrize("searched,found", [
    (60.0, True),  # 1.43 x the posed width: read
    (90.0, False),  # 2.1 x: no card the width field allows (a dot read as a large card)
])
def test_repose_strong_keeps_to_widths_near_the_posed_one(searched, found):
    img = table(15)
    frame = draw_face(img, (240, 180), 0.0, searched)
    key, _, _ = pose_from_frame(frame, SPEC)
    r = reader_with(CardOrNot(PAPER))
    kp = keys(key, 0.0, 42.0)
    again, _ = r.repose_strong(img, keys(key, 0.0, 42.0), kp, np.array([0]),
                               np.array([searched]), posed_frames(kp), np.array([False]),
                               np.array([0.0]))
    assert (kp.width[0] == pytest.approx(searched)) == found


@pytest.mark.parametrize("switch,found", [
    (0.8, True),  # read surely as another kind at its own width: that kind (taught reader)
    (1.01, False),  # never (the untaught reader): only its posed kind is read again
])
def test_repose_strong_takes_another_kind_read_surely_where_asked(switch, found):
    img = table(17)
    frame = draw_face(img, (240, 180), 0.0, 60.0)
    key, _, _ = pose_from_frame(frame, SPEC)
    r = reader_with(KindByFit(PAPER, "lasso", "mousetrap"))  # the posed crop (30 % narrow)
    #   reads as a mousetrap, the card's own width as a lasso
    r.settings = replace(r.settings, repose_scales=(), repose_switch=switch)
    kp = keys(key, 0.0, 42.0)
    again, _ = r.repose_strong(img, keys(key, 0.0, 60.0), kp, np.array([0]),
                               np.array([60.0]), posed_frames(kp), np.array([True]),
                               np.array([0.2]))
    assert again.tolist() == ([0] if found else [])
    assert (kp.width[0] == pytest.approx(60.0)) == found


@pytest.mark.parametrize("card_angle,turns,bar,label,want", [
    (90.0, (90.0, -90.0, 180.0), 0.8, "elephant-2", 90.0),  # the detector's angle a quarter
    #   turn off
    (-90.0, (90.0, -90.0, 180.0), 0.8, "elephant-2", -90.0),  # ... the other way
    (180.0, (90.0, -90.0, 180.0), 0.8, "tootophant-3", 180.0),  # half a turn (upside down)
    (90.0, (), 0.8, "elephant-2", None),  # no turns tried (before session 25): not found
    (90.0, (90.0, -90.0, 180.0), 1.01, "elephant-2", None),  # never sure enough: not found
    (90.0, (90.0, -90.0, 180.0), 0.8, "tamer", None),  # a tamer (or mouse, lasso,
    #   mousetrap): their drawings read alike turned; animals only
])
def test_repose_strong_reads_a_key_point_turned_a_quarter(card_angle, turns, bar, label,
                                                          want):
    """A strong key point whose detector angle (and the table's direction snapped to it)
    is a quarter or half turn off the card reads as background at every pose of that
    angle; read at its posed angle turned by `repose_turns`, surely, it is the card."""
    img = table(18)
    frame = draw_face(img, (240, 180), card_angle, 60.0)
    key, _, _ = pose_from_frame(frame, SPEC)
    r = reader_with(CardOrNot(PAPER, label))
    r.settings = replace(r.settings, repose_turns=turns, repose_turn_confidence=bar)
    kp = keys(key, 0.0, 60.0)
    again, new = r.repose_strong(img, keys(key, 0.0, 60.0), kp, np.array([0]),
                                 np.array([60.0]), posed_frames(kp), np.array([False]),
                                 np.array([0.0]))
    if want is None:  # (the stand-in may take a piece of the card at angle 0, not it)
        assert kp.angle[0] == 0.0
        assert all(np.abs(q - frame).max() >= 3.0 for q in new)
    else:
        assert again.tolist() == [0]
        assert (kp.angle[0] - want + 180.0) % 360.0 - 180.0 == pytest.approx(0.0)
        assert np.abs(new[0] - frame).max() < 3.0  # the card's own outline


E2 = Path(__file__).resolve().parents[3] / "datasets" / "scenes-edition2" / "troetofanten"


@pytest.mark.skipif(not (E2 / "troetofanten-e2-s2-0008.jpg").is_file(),
                    reason="committed edition-2 scenes missing")
@pytest.mark.parametrize("turns,found", [
    ((90.0, -90.0, 180.0), True),  # the whole elephant-1 whose key point the detector
    #   turned a quarter off (-99 degrees; the card lies at -164): read turned
    ((), False),  # without the turns (as before session 25): missed
])
def test_a_committed_card_posed_a_quarter_off_is_read_turned(turns, found):
    """Committed edition-2 scene 0008 (a real reading, the committed models): the north
    row's elephant-1 at (880, 205) is read only at its key point's posed angle turned."""
    import copy

    import cv2

    from vision.pipeline import get_pipeline

    reader = copy.copy(get_pipeline().cards)
    reader.settings = replace(reader.settings, repose_turns=turns)
    img = cv2.imread(str(E2 / "troetofanten-e2-s2-0008.jpg"))
    pieces, _ = reader.read_pieces(img, "troetofanten")
    here = [p for p in pieces if p.label == "elephant-1"
            and np.hypot(*(p.center - (880.0, 205.0))) < 30.0]
    assert bool(here) == found, [(p.label, np.round(p.center)) for p in pieces]
