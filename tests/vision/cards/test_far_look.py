"""`CardReader.far_look`: a Troetofanten photo taken from afar, its cards too small for the
key-point detector, read once more around the cards enlarged (stand-in readings, no
models)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.cards.helpers import card
from vision.cards.geometry import SPECS
from vision.cards.pieces import CardPiece
from vision.cards.read import READ, CardReader, shift_positions

ASPECT = SPECS["troetofanten"].aspect
SHAPE = (480, 640, 3)  # the photo


class Reader:
    """A reader whose far look (the enlarged part) reads the given pieces (photo px; moved
    into the enlarged part's pixels for it) with one warning at the first one."""

    def __init__(self, far: list[CardPiece]):
        self.r = CardReader.__new__(CardReader)
        self.r.settings = READ
        self.r.read_pieces = self.read
        self.far = far
        self.calls = []

    def read(self, image, game, within=None, keys=None):
        self.calls.append(image.shape)
        g, (x0, y0) = READ.far_scale, self.origin
        into = [CardPiece(p.label, p.confidence, (p.key - (x0, y0) + 0.5) * g - 0.5,
                          (p.frame - (x0, y0) + 0.5) * g - 0.5, p.angle, p.width * g)
                for p in self.far]
        x, y = into[0].center if into else (0.0, 0.0)
        return into, [f"unsure about the {self.far[0].label} at ({x:.0f}, {y:.0f})"] \
            if into else []

    def look(self, first):
        w = float(np.median([p.width for p in first if p.label != "back"]))
        xy = np.array([p.center for p in first])
        self.origin = np.maximum(0, (xy.min(axis=0) - READ.far_margin * w).astype(int))
        return self.r.far_look(np.zeros(SHAPE, np.uint8), first)


ROW = [(100 + 40 * k, 200) for k in range(4)]


@pytest.mark.parametrize("width,n_far,looks,n_out", [
    (30, 6, True, 6),  # small cards: read again enlarged, which finds more
    (30, 3, True, None),  # read again, finding fewer: the first look stands
    (READ.far_card - 5, 6, True, 6),  # just under `far_card`: read again too (session 13:
    #   sharp whole cards of 36-45 px got heat under the detector's bar)
    (READ.far_card + 5, 6, False, None),  # just over: cards the detector's, no far look
])
def test_far_look(width, n_far, looks, n_out):
    first = [card("elephant-1", c, width=width) for c in ROW[:3]] + [
        card("back", ROW[3], width=width)]
    far = [card("elephant-2", (100 + 40 * k, 200), width=width) for k in range(n_far)]
    r = Reader(far)
    got = r.look(first)
    assert bool(r.calls) == looks
    if n_out is None:
        assert got is None
        return
    pieces, warnings = got
    # the far look's cards back in the photo's pixels; the first look's readings all lie
    # on one of them, so none stays
    assert len(pieces) == n_out
    for p, q in zip(pieces, far, strict=True):
        assert np.allclose(p.center, q.center, atol=1e-6) and p.width == pytest.approx(width)
    assert warnings == ["unsure about the elephant-2 at (100, 200)"]


def test_far_look_keeps_a_card_it_lost():
    """A card the first look read where the far look reads none stays (its reading, and
    its own warning: here an unsure mouse)."""
    first = [card("elephant-1", c, width=30) for c in ROW[:3]] + [
        card("mouse", (400, 300), 0.3, width=30)]
    far = [card("elephant-1", c, width=30) for c in ROW[:3]] + [
        card("elephant-2", (250, 260), width=30), card("back", (300, 260), width=30)]
    pieces, warnings = Reader(far).look(first)
    assert sorted(p.label for p in pieces) == ["back", "elephant-1", "elephant-1",
                                               "elephant-1", "elephant-2", "mouse"]
    assert any(w.startswith("unsure about the mouse at (400, 300)") for w in warnings)


@pytest.mark.parametrize("text,want", [
    ("unsure about the mouse at (201, 101) (confidence 0.40)",
     "unsure about the mouse at (150, 100) (confidence 0.40)"),
    ("the elephant at (1, 3): its corner number is unclear, 4 or 3 (0.78 / 0.08)",
     "the elephant at (50, 51): its corner number is unclear, 4 or 3 (0.78 / 0.08)"),
])
def test_shift_positions(text, want):
    assert shift_positions(text, 2.0, np.array([50.0, 50.0])) == want
