"""A weak Troetofanten key point read surely as a face-up card where it lies on a back read
(`ReadSettings.up_on_backs`, session 14): a face-up card lies on a face-down one in a pile
or a player's row, and no corner or drawing of a back reads as a face-up card, so a back
read there does not drop it as a face-up card read there does (its other corner, its
drawing)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.vision.cards.test_counted_doubts import Readings
from vision.cards.detect import KIND_PIECE, Keypoints
from vision.cards.geometry import SPECS
from vision.cards.read import READ, card_frame

ASPECT = SPECS["troetofanten"].aspect
W = 50.0  # card width, px
FIRST, WEAK = np.array([200.0, 150.0]), np.array([212.0, 170.0])  # the weak key point
#   lies inside the first card's frame (0.24 widths right, 0.4 down of its corner)


class PerCrop(Readings):
    """A classifier stand-in reading the k-th crop of each call as `rows[k]` (class ->
    probability; background the rest)."""

    def __init__(self, rows: list[dict[str, float]]):
        super().__init__([{}])
        self.rows = rows

    def predict(self, crops):
        from vision.classify.model import Prediction

        out = np.zeros((len(crops), len(self.classes)), np.float32)
        for k in range(len(crops)):
            for lab, v in self.rows[min(k, len(self.rows) - 1)].items():
                out[k, self.index(lab)] = v
            out[k, self.index("background")] = 1.0 - out[k].sum()
        return Prediction(out, np.zeros((len(crops), 8), np.float32))


def stub_reader(rows: list[dict[str, float]], settings, first: np.ndarray, weak: np.ndarray,
                sides: int = 23):
    """(`read_pieces`' result) of a strong key point at `first` and a weak one at `weak`,
    read as `rows` by `PerCrop` under `settings` (their poses, the backs' look, the second,
    paper and far looks stubbed; a table of `sides`)."""
    from tests.vision.test_cards_backs import reader_with, table

    r = reader_with(PerCrop(rows))
    r.settings = settings
    r.index = None  # (no number model: the classifier's own labels)
    kp = Keypoints(np.stack([first, weak]), np.array([KIND_PIECE] * 2),
                   np.array([0.9, 0.2], np.float32), np.zeros(2), np.full(2, W))

    def frame(key):
        return card_frame(key + np.array([0.45, 0.6 * ASPECT]) * W, 0.0, W, ASPECT)

    def pose(image, game, k, threshold, area=None, searched=None):
        searched.append(W)
        return k, np.array([0]), [frame(first)]

    r.pose_key_points = pose
    r.pose_back_candidates = lambda image, k, idx: (np.array([1]), [frame(weak)])
    r.repose_strong = lambda image, raw, k, idx, *a: (np.zeros(0, int), [])
    r.settle_backs = lambda image, pieces: pieces
    r.second_look = lambda image, pieces, *a: pieces
    r.read_paper = lambda image, pieces: (pieces, [])
    r.far_look = lambda image, pieces, *a: None
    return r.read_pieces(table(sides), "troetofanten", keys=kp)


def read_two(first: str, weak: str, up_on_backs: bool, weak_atop: float = 1.01):
    """`read_pieces` of a strong key point read as `first` and a weak one on its card read
    as `weak` (both 0.95); `weak_atop` off by default (this rule alone)."""
    return stub_reader([{first: 0.95}, {weak: 0.95}],
                       replace(READ, up_on_backs=up_on_backs, weak_atop=weak_atop),
                       FIRST, WEAK)[0]


@pytest.mark.parametrize("first,up_on_backs,want", [
    ("back", True, ["back", "elephant-3"]),  # a face-up card lying on a back: both
    ("back", False, ["back"]),  # (before session 14: dropped as on a card read)
    ("tamer", True, ["tamer"]),  # on a face-up card read: its drawing or other corner
])
def test_a_weak_face_up_card_on_a_back_is_kept(first, up_on_backs, want):
    assert [p.label for p in read_two(first, "elephant-3", up_on_backs)] == want
