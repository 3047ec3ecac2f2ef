"""A weak Troetofanten key point read wider than its neighbours (`ReadSettings.weak_widths`,
`CardReader.wider_weak`, `weak_wide_confidence`; session 16, set by the taught reader): a
whole card larger than its neighbours (nearer the camera) keeps a weak heat, and at their
width its crop reads as background or a doubtful card; read wider it reads surely."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.vision.cards.helpers import card
from tests.vision.cards.test_up_on_backs import FIRST, PerCrop, W
from vision.cards.detect import KIND_PIECE, Keypoints
from vision.cards.geometry import SPECS, pose_from_frame
from vision.cards.read import GAME_LABELS, READ, card_frame, pose_scaled, read_twice

ASPECT = SPECS["troetofanten"].aspect
SPEC = SPECS["troetofanten"]
LABELS = GAME_LABELS["troetofanten"]
ALONE = FIRST + np.array([200.0, 40.0])  # a weak key point on no card read


def game_row(read: dict[str, float]) -> tuple[np.ndarray, float]:
    """(the game's labels' probabilities (L,), P(background)) of a crop read as `read`."""
    p = np.zeros(len(LABELS))
    for lab, v in read.items():
        p[LABELS.index(lab)] = v
    return p, 1.0 - sum(read.values())


@pytest.mark.parametrize("at_theirs,wider,scales,want", [
    # read at the neighbours' width under `weak_wide_bg`; wider, the least background
    # face-up crop that reads surer than there
    ({"elephant-3": 0.5}, [{"elephant-3": 0.9}, {"elephant-3": 0.7}], (1.2, 1.45), 1.2),
    ({"elephant-3": 0.5}, [{"elephant-3": 0.7}, {"elephant-3": 0.95}], (1.2, 1.45), 1.45),
    ({"elephant-3": 0.6}, [{"back": 0.95}, {"elephant-3": 0.55}], (1.2, 1.45), 1.0),  # a
    #   back wider, and the face-up crop more background than at the neighbours' width
    ({"elephant-3": 0.3}, [{"elephant-3": 0.9}, {"elephant-3": 0.9}], (1.2, 1.45), 1.0),  #
    #   surely background at their width (clutter): not read wider
    ({"back": 0.6}, [{"elephant-3": 0.9}, {"elephant-3": 0.9}], (1.2, 1.45), 1.0),  # a back
    ({"elephant-3": 0.5}, [{"elephant-3": 0.9}, {"elephant-3": 0.9}], (), 1.0),  # off
    ({"elephant-3": 0.5}, [{"mouse": 0.9}, {"hat-1": 0.95}], (1.2, 1.45), 1.2),  # another
    #   kind is a face-up card too; another game's piece is not
])
def test_wider_weak_picks_the_least_background_face_up_width(at_theirs, wider, scales, want):
    from tests.vision.test_cards_backs import reader_with, table

    r = reader_with(PerCrop(wider))
    r.settings = replace(READ, weak_widths=scales)
    p, bg = game_row(at_theirs)
    frame = card_frame(ALONE, 10.0, W, ASPECT)
    got = r.wider_weak(table(3), [frame], p[None], np.array([bg]))
    assert got.tolist() == [want]


@pytest.mark.parametrize("scale", [1.0, 1.2, 1.45])
@pytest.mark.parametrize("angle", [0.0, 37.0, -120.0])
def test_pose_scaled_widens_a_card_about_its_key_point(scale, angle):
    frame = card_frame(ALONE, angle, W, ASPECT)
    key, ang, w = pose_from_frame(frame, SPEC)
    k2, a2, w2 = pose_scaled(frame, scale, SPEC)
    assert np.allclose(k2, key) and a2 == pytest.approx(ang) and w2 == pytest.approx(scale * w)


@pytest.mark.parametrize("offset,label,want", [
    ((0.0, 0.0), "tamer", True),  # where a face-up card read lies: read once more
    ((10.0, 5.0), "tamer", True),  # within 0.3 widths (15 px)
    ((14.0, 12.0), "tamer", False),  # 18 px off
    ((0.0, 0.0), "back", False),  # a back: a face-up card lies on one (a pile)
])
def test_read_twice(offset, label, want):
    pieces = [card(label, FIRST, width=W)]
    frame = card_frame(FIRST + np.asarray(offset), 0.0, W, ASPECT)
    assert read_twice(frame, pieces, READ.twin_reach) == want


class PerCall(PerCrop):
    """A classifier stand-in whose n-th call reads its k-th crop as `calls[n][k]`."""

    def __init__(self, calls: list[list[dict[str, float]]]):
        super().__init__(calls[0])
        self.calls_rows, self.n = calls, 0

    def predict(self, crops):
        self.rows = self.calls_rows[min(self.n, len(self.calls_rows) - 1)]
        self.n += 1
        return super().predict(crops)


def read_wide(weak_there: dict, weak_wider: dict, settings, widen: float):
    """`read_pieces` of a strong key point at `FIRST` (a tamer, 0.95) and a weak one at
    `ALONE` read as `weak_there` at its neighbours' width and, where `wider_weak` (stubbed:
    `widen`) widens it, as `weak_wider`."""
    from tests.vision.test_cards_backs import reader_with, table

    r = reader_with(PerCall([[{"tamer": 0.95}, weak_there], [weak_wider]]))
    r.settings = settings
    r.index = None
    kp = Keypoints(np.stack([FIRST, ALONE]), np.array([KIND_PIECE] * 2),
                   np.array([0.9, 0.2], np.float32), np.zeros(2), np.full(2, W))

    def frame(key):
        return card_frame(key + np.array([0.45, 0.6 * ASPECT]) * W, 0.0, W, ASPECT)

    def pose(image, game, k, threshold, area=None, searched=None):
        searched.append(W)
        return k, np.array([0]), [frame(FIRST)]

    r.pose_key_points = pose
    r.pose_back_candidates = lambda image, k, idx: (np.array([1]), [frame(ALONE)])
    r.wider_weak = lambda image, frames, probs, bg: np.full(len(frames), widen)
    r.repose_strong = lambda image, raw, k, idx, *a: (np.zeros(0, int), [])
    r.settle_backs = lambda image, pieces: pieces
    r.second_look = lambda image, pieces, *a: pieces
    r.read_paper = lambda image, pieces: (pieces, [])
    r.far_look = lambda image, pieces: None
    r.settings = replace(r.settings, table_share=1.01)  # (the stand-in table is bare)
    return r.read_pieces(table(5, (400, 600)), "troetofanten", keys=kp)[0]


TAUGHT = replace(READ, weak_widths=(1.2, 1.45), weak_wide_confidence=0.75)


@pytest.mark.parametrize("settings,widen,wider,want", [
    (READ, 1.2, {"lasso": 0.8}, ["tamer"]),  # off (untaught): not read wider, dropped
    (TAUGHT, 1.0, {"lasso": 0.8}, ["tamer"]),  # not widened: the weak bar (0.9) holds
    (TAUGHT, 1.2, {"lasso": 0.8}, ["tamer", "lasso"]),  # widened, read 0.8: a card
    (TAUGHT, 1.2, {"lasso": 0.7}, ["tamer"]),  # widened, read under 0.75
])
def test_a_weak_key_point_read_wider_is_kept_at_its_own_bar(settings, widen, wider, want):
    got = read_wide({"lasso": 0.5}, wider, settings, widen)
    assert [p.label for p in got] == want
    if "lasso" in want:  # (its frame the wider one)
        assert got[1].frame is not None
        _, _, w = pose_from_frame(got[1].frame, SPEC)
        assert w == pytest.approx(widen * W)


def test_the_untaught_reader_reads_no_weak_key_point_wider():
    assert READ.weak_widths == ()
    assert READ.weak_wide_confidence == READ.weak_up_confidence
