"""`read.counted_doubts`: a Troetofanten animal whose kind is sure but whose number splits is
counted (as its likeliest number) where it lies on no card read and is no reading once
more (session 13: every open animal scores +1, whatever its number)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.cards import helpers
from vision.cards.geometry import SPECS
from vision.cards.pieces import CardPiece
from vision.cards.read import READ, card_frame, counted_doubts

ASPECT = SPECS["troetofanten"].aspect
W = 50.0  # card width, px


def card(label: str, centre, conf: float = 0.95) -> CardPiece:
    return helpers.card(label, centre, conf, width=W)


KEPT = [card("elephant-3", (100.0, 100.0)), card("tootophant-2", (200.0, 100.0))]


@pytest.mark.parametrize("centre,label,counted", [
    ((320.0, 100.0), "elephant-4", True),  # alone on the table: counted
    ((110.0, 110.0), "elephant-4", False),  # its centre on a card read: that card's drawing
    ((200.0, 100.0 + 1.1 * ASPECT * W), "tootophant-5", True),  # just below a card read
    ((200.0, 100.0 + 0.3 * ASPECT * W), "tootophant-5", False),  # half on it: not counted
])
def test_counted_doubts_off_the_cards_read(centre, label, counted):
    doubt = card(label, centre, conf=0.3)
    got = counted_doubts([doubt], KEPT, READ.duplicate)
    assert got[:2] == KEPT  # the readings kept stay, first
    assert (len(got) == 3) == counted
    if counted:
        assert got[2] is doubt


def test_counted_doubts_one_card_once():
    """Two doubted readings of one card (key points a few px apart): counted once, the
    first; the list given is not changed."""
    a, b = card("elephant-1", (320.0, 100.0), 0.3), card("elephant-2", (322.0, 101.0), 0.25)
    kept = list(KEPT)
    got = counted_doubts([a, b], kept, READ.duplicate)
    assert got == KEPT + [a] and kept == KEPT


def test_counted_doubts_none():
    assert counted_doubts([], KEPT, READ.duplicate) == KEPT
    assert counted_doubts([], [], READ.duplicate) == []


# ------------------------------------------------- through `read_pieces` (a stub classifier)
class Readings:
    """A classifier stand-in: its n-th call reads every crop as `calls[n]` (class ->
    probability; background the rest)."""

    def __init__(self, calls: list[dict[str, float]]):
        from vision.cards.read import CLASSIFIER_PATH
        from vision.classify.model import PieceClassifier

        real = PieceClassifier(CLASSIFIER_PATH, threads=1)
        self.classes, self.crop, self.calls, self.n = real.classes, real.crop, calls, 0

    def index(self, lab: str) -> int:
        return self.classes.index(lab)

    def predict(self, crops):
        from vision.classify.model import Prediction

        row = np.zeros(len(self.classes), np.float32)
        for lab, v in self.calls[min(self.n, len(self.calls) - 1)].items():
            row[self.index(lab)] = v
        row[self.index("background")] = 1.0 - row.sum()
        self.n += 1
        return Prediction(np.repeat(row[None], len(crops), axis=0),
                          np.zeros((len(crops), 8), np.float32))


def doubt(kconf: float, bg: float = 0.05) -> dict[str, float]:
    """An elephant whose kind takes `kconf` = its kind's share x (1 - P(background)) and
    whose number splits 3 / 4 / 2 (confidence 0.36 x kconf, under `min_confidence`); a
    tootophant-2 the rest of the pieces' share."""
    return {"elephant-3": 0.36 * kconf, "elephant-4": 0.34 * kconf, "elephant-2": 0.30 * kconf,
            "tootophant-2": 1.0 - bg - kconf}


KEY, ANGLE = np.array([200.0, 150.0]), 0.0


def read_one(calls, again: bool = False):
    """`read_pieces` of one strong key point on a bare table (its pose, the backs' look,
    the second, paper and far looks stubbed), the classifier reading as `calls`; `again`:
    `repose_strong` reads it once more (the classifier's second call)."""
    from tests.vision.test_cards_backs import reader_with, table
    from vision.cards.detect import KIND_PIECE, Keypoints

    r = reader_with(Readings(calls))
    r.index = None  # (no number model: the classifier's own labels)
    kp = Keypoints(KEY[None].copy(), np.array([KIND_PIECE]), np.array([0.9], np.float32),
                   np.array([ANGLE]), np.array([W]))
    frame = card_frame(KEY + np.array([0.45, 0.6 * ASPECT]) * W, ANGLE, W, ASPECT)

    def pose(image, game, k, threshold, area=None, searched=None):
        searched.append(W)
        return k, np.array([0]), [frame]

    r.pose_key_points = pose
    r.pose_back_candidates = lambda image, k, idx: (np.zeros(0, int), [])
    r.repose_strong = lambda image, raw, k, idx, *a: (
        (np.array([0]), [frame.copy()]) if again else (np.zeros(0, int), []))
    r.settle_backs = lambda image, pieces: pieces
    r.second_look = lambda image, pieces, *a: pieces
    r.read_paper = lambda image, pieces: (pieces, [])
    r.far_look = lambda image, pieces, *a: None
    return r.read_pieces(table(21), "troetofanten", keys=kp)


@pytest.mark.parametrize("kconf,counted", [
    (READ.count_doubted + 0.01, True),  # its kind sure enough: counted, number warned about
    (READ.count_doubted - 0.01, False),  # just under: left out, warned about as not counted
])
def test_read_pieces_counts_a_doubt_sure_of_its_kind(kconf, counted):
    pieces, warnings = read_one([doubt(kconf)])
    assert [p.label for p in pieces] == (["elephant-3"] if counted else [])
    assert pieces[0].confidence < READ.min_confidence if counted else True
    unclear = [w for w in warnings if "its corner number is unclear, 3 or 4" in w]
    not_counted = [w for w in warnings if "not counted: its corner number is unreadable" in w]
    assert (len(unclear), len(not_counted)) == ((1, 0) if counted else (0, 1))


@pytest.mark.parametrize("second,counted", [
    ({"back": 0.9}, False),  # `repose_strong`'s crop read again as a back: no open animal
    #   there (background is no case: the re-read's frame and classifier are the first
    #   read's, and a doubt was read as a piece)
    ({"elephant-3": 0.2, "elephant-4": 0.2, "elephant-2": 0.2}, True),  # an elephant too
    #   unsure to keep (under `repose_confidence`): the doubt stands, counted
])
def test_read_pieces_a_doubt_read_again_as_a_back_is_not_counted(second, counted):
    pieces, warnings = read_one([doubt(0.95), second], again=True)
    assert [p.label for p in pieces] == (["elephant-3"] if counted else [])
    assert any("its corner number is unclear" in w for w in warnings) == counted
