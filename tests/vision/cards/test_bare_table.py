"""`read.on_bare_table` (session 14): a Troetofanten reading whose frame, where it lies on
no other card read, shows the bare table is no card (dropped, warned about); the table's
and the cards' colours are learnt from the photo, so where they cannot be told apart
nothing is dropped."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cards.geometry import SPECS
from vision.cards.pieces import CardPiece
from vision.cards.read import READ, card_frame, on_bare_table

ASPECT = SPECS["troetofanten"].aspect
W = 40.0  # card width, px


def photo(table_bgr, cards, seed: int = 5) -> np.ndarray:
    """A (360, 480) BGR uint8 table of colour `table_bgr` with seeded noise and white
    cards (a grey drawing each) at `cards` (centre, angle)."""
    rng = np.random.default_rng(seed)
    img = np.full((360, 480, 3), table_bgr, np.int16)
    img += rng.integers(-10, 11, img.shape, dtype=np.int16)
    img = np.clip(img, 0, 255).astype(np.uint8)
    for c, a in cards:
        fr = card_frame(np.asarray(c, float), a, W, ASPECT)
        cv2.fillConvexPoly(img, np.round(fr).astype(np.int32), (236, 238, 240))
        cv2.circle(img, tuple(int(v) for v in c), 8, (120, 120, 120), -1)
    return img


def piece(label, c, conf=0.95, a=0.0) -> CardPiece:
    fr = card_frame(np.asarray(c, float), a, W, ASPECT)
    return CardPiece(label, conf, fr[0].copy(), fr, a, W)


CARDS = [((80, 90), 0.0), ((160, 90), 0.0), ((240, 95), 0.0), ((120, 250), 0.0)]


@pytest.mark.parametrize("where,label,conf,kept", [
    ((380, 250), "mouse", 0.74, False),  # on the bare cloth: no card there
    ((380, 250), "back", 0.95, False),  # a back read there too
    ((240, 110), "elephant-4", 0.5, True),  # on a card read (nothing of it off the others)
    ((258, 95), "elephant-2", 0.9, True),  # a fan's next card: its part off the other,
    #   0.45 of it, is a card's
])
def test_a_reading_on_the_bare_table_is_dropped(where, label, conf, kept):
    cards = CARDS + ([(where, 0.0)] if where == (258, 95) else [])
    img = photo((60, 90, 140), cards)
    pieces = [piece(f"elephant-{k + 1}", c) for k, (c, a) in enumerate(CARDS)]
    judged = piece(label, where, conf)
    got, warnings = on_bare_table(img, pieces + [judged], READ)
    assert got[:len(pieces)] == pieces  # the cards on cards stay, in order
    assert (judged in got) == kept
    assert len(warnings) == (0 if kept else 1)
    if not kept:
        assert f"possibly a {label}" in warnings[0] and "bare table" in warnings[0]


def test_white_cards_on_a_white_cloth_are_all_kept():
    """The cloth is the cards' white: its colours are the sure cards' too, no pixel is the
    table's, nothing is dropped (a reading there cannot be told from a card by colour)."""
    img = photo((236, 238, 240), CARDS)
    pieces = [piece(f"elephant-{k + 1}", c) for k, (c, a) in enumerate(CARDS)]
    got, warnings = on_bare_table(img, pieces + [piece("mouse", (380, 250), 0.74)], READ)
    assert len(got) == 5 and warnings == []


def test_too_few_readings_or_no_sure_one():
    img = photo((60, 90, 140), CARDS)
    one = [piece("mouse", (380, 250))]
    assert on_bare_table(img, one, READ) == (one, [])
    unsure = [piece("elephant-1", (80, 90), 0.5), piece("mouse", (380, 250), 0.5)]
    assert on_bare_table(img, unsure, READ) == (unsure, [])
