"""Troetofanten: one card read at two corner indices with two numbers (`read.twin_labels`,
`read.drop_turned_twins`)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.cards.geometry import SPECS, pose_from_frame
from vision.cards.pieces import CardPiece
from vision.cards.read import card_frame, drop_turned_twins, twin_labels

SPEC = SPECS["troetofanten"]
ASPECT = SPEC.aspect
W = 40.0  # card width, px


@pytest.mark.parametrize("a,b,want", [
    ("elephant-3", "elephant-3", True),
    ("elephant-3", "elephant-4", True),  # one card, one corner's number misread
    ("tootophant-2", "tootophant-5", True),
    ("elephant-3", "tootophant-3", False),  # the drawing tells the kinds apart
    ("tamer", "tamer", True),
    ("tamer", "lasso", False),
    ("back", "back", False),  # left to settle_backs
])
def test_twin_labels(a, b, want):
    assert twin_labels(a, b) == want


@pytest.mark.parametrize("second,want,warned", [
    ("elephant-4", [0.9], True),  # the same card's other corner read with another number: one
    ("elephant-3", [0.9], False),  # read alike at both corners: one, nothing to doubt
    ("tootophant-4", [0.5, 0.9], False),  # another kind there: two cards
])
def test_drop_turned_twins_of_one_kind(second, want, warned):
    frame = card_frame(np.array([100.0, 100.0]), 15.0, W, ASPECT)
    first = CardPiece("elephant-3", 0.9, *pose_from_frame(frame, SPEC)[:1], frame, 15.0, W)
    turned = frame[[2, 3, 0, 1]]
    key, ang, _ = pose_from_frame(turned, SPEC)
    other = CardPiece(second, 0.5, key, turned, ang, W)
    got, warnings = drop_turned_twins([first, other], reach=0.3)
    assert sorted(p.confidence for p in got) == want
    assert bool(warnings) is warned
    if warned:  # the kept number first, the other corner's second
        assert "read 3 and 4; counted once as 3" in warnings[0]


@pytest.mark.parametrize("second,turn,shift,want", [
    ("elephant-1", 18.0, 0.08, [0.97]),  # one card read twice, 18 degrees apart (t1-1401 0006)
    ("elephant-1", 0.0, 0.3, [0.73, 0.97]),  # a pile's next card 0.3 widths along: two
    ("elephant-1", 0.0, 0.2, [0.73, 0.97]),  # 0.2 widths along (the nearest a pile's next
    #   card lies), just past `same_place`'s 0.15: still two
    ("elephant-2", 18.0, 0.08, [0.73, 0.97]),  # another number there: left to the reader
])
def test_drop_turned_twins_one_card_read_twice_in_one_place(second, turn, shift, want):
    frame = card_frame(np.array([100.0, 100.0]), -161.0, W, ASPECT)
    first = CardPiece("elephant-1", 0.97, *pose_from_frame(frame, SPEC)[:1], frame, -161.0, W)
    again = card_frame(np.array([100.0 + shift * W, 100.0]), -161.0 - turn, W, ASPECT)
    key, ang, _ = pose_from_frame(again, SPEC)
    other = CardPiece(second, 0.73, key, again, ang, W)
    got, _ = drop_turned_twins([first, other], reach=0.3, same_place=0.15)
    assert sorted(p.confidence for p in got) == want
