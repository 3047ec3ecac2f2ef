"""`vision.cards.opposite`: an unsure Troetofanten number read again at the card's opposite
corner (session 27, troeto-acc). Tiny synthetic photos and a stand-in index model: each
card's opposite index is a patch whose blue level is its number (40 x n) and whose red
grows towards the digit's foot (the model reads it where that foot is at the crop's bottom,
else says "none"), so the way it is printed (upright, or turned half a turn) can be told."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from vision.cards.geometry import INDEX_SPEC, SPECS, CardCropSettings, frame_from_pose
from vision.cards.opposite import OPPOSITE, best_number, opposite_numbers, visible
from vision.cards.pieces import CardPiece
from vision.cards.read import READ
from vision.classify.model import Prediction

SPEC = SPECS["troetofanten"]
W = 80.0  # card width, px
LABELS = ("1", "2", "3", "4", "5", "none")


class StandInIndex:
    """Reads the centre of a 32-px crop: blue 40 x n is number n, read surely (0.95) when
    the red ramp shows the digit upright, else "none"."""

    crop = CardCropSettings(size=32)
    metadata: dict = {}

    def index(self, label: str) -> int:
        return LABELS.index(label)

    def predict(self, crops: np.ndarray) -> Prediction:
        out = np.full((len(crops), 6), 0.01, np.float32)
        for i, c in enumerate(crops.astype(float)):
            mid = c[10:22, 10:22]
            n = int(round(mid[..., 0].mean() / 40.0))
            upright = mid[6:, :, 2].mean() > mid[:6, :, 2].mean() + 20
            if 1 <= n <= 5 and upright and mid[..., 0].std() < 3:  # (all of it the patch)
                out[i, n - 1] = 0.95
            else:
                out[i, 5] = 0.95
        return Prediction(out / out.sum(axis=1, keepdims=True), np.zeros((len(crops), 1)))


def reader():
    return SimpleNamespace(index=StandInIndex(), index_spec=INDEX_SPEC, settings=READ)


def paint(image: np.ndarray, key, n: int, upright: bool = True) -> np.ndarray:
    """The card (paper grey, upright, `W` wide, top-left index at `key`) with its opposite
    index patch: blue 40 x n, red growing towards the digit's foot (the card's bottom where
    printed upright, its top where turned). Returns its frame."""
    import cv2

    f = frame_from_pose(np.asarray(key, float), 0.0, W, SPEC)
    cv2.fillConvexPoly(image, np.round(f).astype(np.int32), (200, 200, 200))
    ex, ey = f[1] - f[0], f[3] - f[0]

    def at(u, v):
        return f[0] + u * ex + v * ey

    x0, y0 = at(0.55, 0.70)  # (the whole corner: the grid's crops all see it)
    x1, y1 = at(1.0, 1.0)
    ramp = np.linspace(0, 250, int(y1) - int(y0))  # (red grows towards the digit's foot)
    image[int(y0):int(y1), int(x0):int(x1)] = (40 * n, 0, 0)
    image[int(y0):int(y1), int(x0):int(x1), 2] = (ramp if upright else ramp[::-1])[:, None]
    return f


def animal(label: str, key, share: float, frame, low: str | None = None) -> CardPiece:
    """An animal read as `label` whose number takes `share`, the rest spread over the other
    numbers (all but `low`, which takes 0.001)."""
    kind, _, n = label.rpartition("-")
    others = [f"{kind}-{m}" for m in range(1, 6) if f"{kind}-{m}" not in (label, low)]
    probs = {q: (1.0 - share - (0.001 if low else 0.0)) / len(others) for q in others}
    probs[label] = share
    if low:
        probs[low] = 0.001
    return CardPiece(label, 0.9, np.asarray(key, float), frame, 0.0, W, probs)


def table(layout, upright: bool = True):
    """A photo of the cards in `layout` ((label, key, share, printed number) each) and
    their pieces."""
    image = np.full((400, 700, 3), 90, np.uint8)
    pieces = []
    for label, key, share, printed in layout:
        f = paint(image, key, printed, upright)
        pieces.append(animal(label, key, share, f))
    return image, pieces


WITNESSES = [("elephant-2", (200.0, 40.0), 0.99, 2), ("elephant-4", (320.0, 40.0), 0.98, 4),
             ("tootophant-5", (440.0, 40.0), 0.97, 5)]


@pytest.mark.parametrize("share,printed,upright,label,warned", [
    (0.55, 3, True, "elephant-3", 1),  # unsure 1, the opposite corner surely 3: counted 3
    (0.55, 1, True, "elephant-1", 0),  # the two corners agree: nothing changes
    (0.95, 3, True, "elephant-1", 0),  # a sure number is not asked (`below`)
    (0.55, 3, False, "elephant-3", 1),  # this copy's opposite index turned: learnt, read so
])
def test_an_unsure_number_read_at_its_opposite_corner(share, printed, upright, label, warned):
    image, pieces = table(WITNESSES + [("elephant-1", (80.0, 40.0), share, printed)], upright)
    out, warnings, marked = opposite_numbers(reader(), image, pieces)
    assert out[-1].label == label
    assert len(warnings) == warned and len(marked) == warned
    assert out[:-1] == pieces[:-1]  # (the sure cards as read)
    if warned:
        assert warnings[0].startswith("the elephant at (")
        assert "top left" in warnings[0] and "opposite corner" in warnings[0]


def test_a_number_the_top_left_rules_out_stands_with_a_warning():
    # (the opposite corner reads 2 surely, the top left gives 2 a thousandth: the product
    #   keeps 1, the two corners' disagreement is warned about)
    image, pieces = table(WITNESSES + [("elephant-1", (80.0, 40.0), 0.7, 2)])
    pieces[-1] = animal("elephant-1", (80.0, 40.0), 0.7, pieces[-1].frame, low="elephant-2")
    out, warnings, marked = opposite_numbers(reader(), image, pieces)
    assert out[-1].label == "elephant-1" and marked == [out[-1]]
    assert len(warnings) == 1 and "counted as 1" in warnings[0]


def test_no_witness_no_question():
    # (the sure cards' opposite corners read as neither way: a copy without an opposite
    #   index, or all covered: nothing is asked)
    image, pieces = table([("elephant-1", (80.0, 40.0), 0.55, 3)])
    out, warnings, _ = opposite_numbers(reader(), image, pieces)
    assert out == pieces and warnings == []


def test_a_covered_opposite_corner_is_not_read():
    image, pieces = table(WITNESSES + [("elephant-1", (80.0, 40.0), 0.55, 3)])
    cover = frame_from_pose(np.array([140.0, 130.0]), 0.0, W, SPEC)  # (a card over it)
    pieces = pieces + [CardPiece("back", 0.9, cover[0], cover, 0.0, W, {})]
    out, warnings, _ = opposite_numbers(reader(), image, pieces)
    assert out == pieces and warnings == []


def test_a_full_box_keeps_the_number_and_warns():
    image, pieces = table(WITNESSES + [("tootophant-1", (80.0, 40.0), 0.55, 5)])
    full = [replace(pieces[2], key=pieces[2].key + k) for k in range(4)]  # (5 tootophant-5s)
    out, warnings, _ = opposite_numbers(reader(), image, pieces + full)
    assert out[3].label == "tootophant-1" and len(warnings) == 1


def test_switched_off():
    image, pieces = table(WITNESSES + [("elephant-1", (80.0, 40.0), 0.55, 3)])
    out, warnings, _ = opposite_numbers(reader(), image, pieces, replace(OPPOSITE, below=0.0))
    assert out == pieces and warnings == []


@pytest.mark.parametrize("rows,want", [
    ([[0.9, 0.02, 0.02, 0.02, 0.02, 0.02]], 0),  # one sure crop
    ([[0.3, 0.02, 0.02, 0.02, 0.02, 0.64]], None),  # the best crop shows no index
    ([[0.5, 0.4, 0.02, 0.02, 0.02, 0.06]], None),  # its number under `least`
])
def test_best_number(rows, want):
    n, _ = best_number(np.array(rows), [0, 1, 2, 3, 4], 5, 0.3, 0.8)
    assert n == want


def test_best_number_needs_its_crops_to_agree():
    rows = np.array([[0.9, 0.02, 0.02, 0.02, 0.02, 0.02], [0.02, 0.9, 0.02, 0.02, 0.02, 0.02]])
    assert best_number(rows, [0, 1, 2, 3, 4], 5, 0.3, 0.8, agree=1)[0] == 0
    assert best_number(rows, [0, 1, 2, 3, 4], 5, 0.3, 0.8, agree=2)[0] is None


@pytest.mark.parametrize("point,want", [
    ((100.0, 100.0), True),  # on the photo, on no other card
    ((1.0, 100.0), False),  # at the photo's edge
    ((300.0, 100.0), False),  # on another card read
])
def test_visible(point, want):
    own = animal("elephant-1", (80.0, 40.0), 0.5, frame_from_pose(np.array([80.0, 40.0]), 0.0,
                                                                  W, SPEC))
    other = frame_from_pose(np.array([280.0, 60.0]), 0.0, W, SPEC)
    pieces = [own, CardPiece("back", 0.9, other[0], other, 0.0, W, {})]
    assert visible(np.array(point), own, pieces, (400, 700, 3)) == want


@pytest.mark.parametrize("printed_upright,setting,label", [
    (True, True, "elephant-3"),  # the copy's way given: no witnesses needed
    (True, False, "elephant-1"),  # the wrong way given: its crops show no index
    (False, True, "elephant-1"),
    (False, False, "elephant-3"),
])
def test_the_way_given_in_the_settings(printed_upright, setting, label):
    image, pieces = table([("elephant-1", (80.0, 40.0), 0.55, 3)], printed_upright)
    out, _, _ = opposite_numbers(reader(), image, pieces, replace(OPPOSITE, upright=setting))
    assert out[-1].label == label


def test_witnesses_that_read_another_number_ask_nothing():
    # (a sure card's opposite corner reads another number: that corner is not this copy's
    #   index, or not one to trust in this photo)
    wrong = [(lab, key, share, 1 + printed % 5) for lab, key, share, printed in WITNESSES]
    image, pieces = table(wrong + [("elephant-1", (80.0, 40.0), 0.55, 3)])
    out, warnings, _ = opposite_numbers(reader(), image, pieces)
    assert out == pieces and warnings == []
