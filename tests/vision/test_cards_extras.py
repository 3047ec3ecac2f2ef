"""Troetofanten readings that are no card of their own: a rare card read unsure
(`read.unsure_rare`) and a back found by its look or shape alone lying across a back read
surely (`read.crosswise_on_back`), a design found in fewer regions than the backs'
(`read.one_design`)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.cards.geometry import SPECS, pose_from_frame
from vision.cards.pieces import CardPiece
from vision.cards.read import READ, card_frame, crosswise_on_back, one_design, unsure_rare

SPEC = SPECS["troetofanten"]
W = 40.0  # card width, px


def card(label: str, conf: float, centre=(100.0, 100.0), angle: float = 0.0) -> CardPiece:
    frame = card_frame(np.asarray(centre, float), angle, W, SPEC.aspect)
    return CardPiece(label, conf, pose_from_frame(frame, SPEC)[0], frame, angle, W)


@pytest.mark.parametrize("label,conf,kept", [
    ("mouse", 0.45, False),  # a box holds 3: a blob read as one
    ("mouse", 0.6, True),  # read surely enough
    ("mousetrap", 0.5, False),  # a box holds 1
    ("mousetrap", 0.95, True),
    ("tamer", 0.45, True),  # a box holds 5: not rare, left to the other checks
    ("elephant-3", 0.4, True),  # an unclear number splits an elephant's confidence
])
def test_unsure_rare(label, conf, kept):
    got, warnings = unsure_rare([card(label, conf)], READ)
    assert (len(got) == 1) is kept
    assert (len(warnings) == 0) is kept
    if not kept:
        assert f"{label} at (100, 100), not counted" in warnings[0]


@pytest.mark.parametrize("offset,angle,sure,want", [
    ((0.0, 20.0), 90.0, 0.9, True),  # across the back, centre on it: the back read again
    ((0.0, 20.0), 270.0, 0.9, True),  # (a half turn more is the same)
    ((0.0, 20.0), 0.0, 0.9, False),  # facing the same way: a spread pile's card under it
    ((0.0, 80.0), 90.0, 0.9, False),  # centre off the back: a card beside it
    ((0.0, 20.0), 90.0, 0.6, False),  # the back itself found by shape alone: not sure
])
def test_crosswise_on_back(offset, angle, sure, want):
    back = card("back", sure)
    c = np.array([100.0, 100.0]) + offset
    assert crosswise_on_back(c, angle, [back], READ) is want


@pytest.mark.parametrize("found,want", [
    ([3, 1], ["a", "a", "a"]),  # a box's cards share one back: the lone other design is no card
    ([1, 1], ["a", "b"]),  # one region each: nothing tells which is the back, both stay
    ([2, 0], ["a", "a"]),  # a design that found only the first one's cards adds nothing
])
def test_one_design(found, want):
    designs = [([name] * n, [f"mask-{name}"], n) for name, n in zip("ab", found, strict=True)]
    masks: list = []
    assert one_design(designs, masks, True) == want
    assert masks == [f"mask-{n}" for n in sorted(set(want))]
    assert len(one_design(designs, [], False)) == sum(found)  # (switched off: all of them)
