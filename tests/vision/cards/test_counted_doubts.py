"""`read.counted_doubts`: a Troetofanten animal whose kind is sure but whose number splits is
counted (as its likeliest number) where it lies on no card read and is no reading once
more (session 13: every open animal scores +1, whatever its number)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.cards.geometry import SPECS
from vision.cards.pieces import CardPiece
from vision.cards.read import READ, card_frame, counted_doubts

ASPECT = SPECS["troetofanten"].aspect
W = 50.0  # card width, px


def card(label: str, centre, conf: float = 0.95, angle: float = 0.0) -> CardPiece:
    frame = card_frame(np.asarray(centre, float), angle, W, ASPECT)
    return CardPiece(label, conf, frame[0].copy(), frame, angle, W)


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
