"""`read.on_bare_table` (session 14): a Troetofanten reading whose frame, where it lies on
no other card read, shows the bare table is no card (dropped, warned about); the table's
and the cards' colours are learnt from the photo, so where they cannot be told apart
nothing is dropped."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from tests.vision.cards.helpers import card
from vision.cards.geometry import SPECS
from vision.cards.read import (
    PAPER_BINS,
    READ,
    TABLE_BINS,
    bin_counts,
    card_frame,
    corner_strip,
    hsv_bins,
    on_bare_table,
)

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
    pieces = [card(f"elephant-{k + 1}", c) for k, (c, a) in enumerate(CARDS)]
    judged = card(label, where, conf)
    got, warnings = on_bare_table(img, pieces + [judged], READ)
    assert got[:len(pieces)] == pieces  # the cards on cards stay, in order
    assert (judged in got) == kept
    assert len(warnings) == (0 if kept else 1)
    if not kept:
        assert f"possibly a {label}" in warnings[0] and "bare table" in warnings[0]


@pytest.mark.parametrize("shift,corner,kept", [
    ((0.0, -0.25), (0.5, 0.12), False),  # committed 0018: a card read again 0.25 widths
    #   above itself: its frame lies 0.16 off the card, its top edge on the cloth
    ((0.0, -0.25), None, True),  # (the corner test off: the frame's part is too small)
    ((0.25, 0.0), (0.5, 0.12), True),  # a fan's next card beside it (drawn): its top edge
    #   beside the corner index is its own paper
    ((0.0, 0.25), (0.5, 0.12), True),  # a card read a little low: its top edge on the card
])
def test_a_reading_whose_top_edge_lies_on_the_bare_table_is_dropped(shift, corner, kept):
    """Session 15 (`table_corner`, `corner_strip`): a face-up reading whose strip along its
    top edge from its top-left corner shows the bare table where no other card lies is no
    card, though its frame's part off the others is under `table_exposed`."""
    c = np.array(CARDS[1][0], float) + np.array(shift) * W
    cards = CARDS + ([(tuple(c), 0.0)] if shift == (0.25, 0.0) else [])
    img = photo((60, 90, 140), cards)
    pieces = [card(f"elephant-{k + 1}", c0) for k, (c0, a) in enumerate(CARDS)]
    judged = card("tootophant-4", c, 0.36)
    got, warnings = on_bare_table(img, pieces + [judged], replace(READ, table_corner=corner))
    assert (judged in got) == kept
    assert got[:len(pieces)] == pieces
    if not kept:
        assert "bare table along its top edge" in warnings[0]


def test_corner_strip_is_the_top_edge_beside_the_corner():
    """The strip's mask at scale 1: the frame's top 0.12 of its height over its left half."""
    fr = card_frame(np.array([100.0, 100.0]), 0.0, W, ASPECT)
    m, x0, y0 = corner_strip(fr, (0.5, 0.12), 1.0, (200, 200))
    assert (x0, y0) == (int(fr[0][0]), int(fr[0][1]))
    assert m.shape[1] == pytest.approx(0.5 * W, abs=2) and \
        m.shape[0] == pytest.approx(0.12 * ASPECT * W, abs=2)
    assert m.mean() > 0.9


def test_white_cards_on_a_white_cloth_are_all_kept():
    """The cloth is the cards' white: its colours are the sure cards' too, no pixel is the
    table's, nothing is dropped (a reading there cannot be told from a card by colour)."""
    img = photo((236, 238, 240), CARDS)
    pieces = [card(f"elephant-{k + 1}", c) for k, (c, a) in enumerate(CARDS)]
    got, warnings = on_bare_table(img, pieces + [card("mouse", (380, 250), 0.74)], READ)
    assert len(got) == 5 and warnings == []


def test_too_few_readings_or_no_sure_one():
    img = photo((60, 90, 140), CARDS)
    one = [card("mouse", (380, 250))]
    assert on_bare_table(img, one, READ) == (one, [])
    unsure = [card("elephant-1", (80, 90), 0.5), card("mouse", (380, 250), 0.5)]
    assert on_bare_table(img, unsure, READ) == (unsure, [])


@pytest.mark.parametrize("cloth", [
    (236, 238, 240),  # the cards' own white
    (225, 228, 232),  # a light grey: the cards' white is the table's colour too
])
def test_the_only_sure_card_on_a_white_cloth_is_kept(cloth):
    """Review of session 14: a reading is judged against the colours of the OTHER sure
    cards; the only sure one has none (before, every colour then fell to a fixed density
    floor and the card's white, common on the cloth, read as the table's: dropped). Under
    `table_cards_least` cards' areas of them it is not judged."""
    img = photo(cloth, [((80, 90), 0.0), ((300, 200), 0.0)])
    pieces = [card("elephant-1", (80, 90), 0.95), card("mouse", (300, 200), 0.5)]
    got, warnings = on_bare_table(img, pieces, READ)
    assert got == pieces and warnings == []


def test_a_sure_card_judged_by_one_other_sure_card():
    """One other sure card shown whole (0.9 of a card's area) is enough to judge by: a
    reading on a dark cloth beside two sure cards, each judged by the other, is dropped;
    asked for more than that card gives, it is not judged."""
    cards = [((80, 90), 0.0), ((160, 90), 0.0)]
    img = photo((60, 90, 140), cards)
    pieces = [card("elephant-1", c) for c, _ in cards] + [card("mouse", (380, 250), 0.74)]
    got, warnings = on_bare_table(img, pieces, READ)
    assert got == pieces[:2] and len(warnings) == 1
    got, warnings = on_bare_table(img, pieces, replace(READ, table_cards_least=2.5))
    assert got == pieces and warnings == []


@pytest.mark.parametrize("bins", [TABLE_BINS, PAPER_BINS, [30, 8, 2], [7, 5, 3]])
def test_hsv_bins_bin_as_calc_hist(bins):
    """`hsv_bins` + `bin_counts` are `cv2.calcHist`'s histogram over [0, 180, 0, 256, 0,
    256], flattened (every hue, saturation and value, so each bin edge is met)."""
    rng = np.random.default_rng(3)
    hsv = np.stack([rng.integers(0, 180, (64, 1024)), rng.integers(0, 256, (64, 1024)),
                    rng.integers(0, 256, (64, 1024))], axis=-1).astype(np.uint8)
    hsv[0, :180, 0] = np.arange(180)
    hsv[1, :256, 1] = hsv[2, :256, 2] = np.arange(256)
    want = cv2.calcHist([hsv], [0, 1, 2], None, list(bins), [0, 180, 0, 256, 0, 256])
    got = bin_counts(hsv_bins(hsv, bins), bins)
    assert np.array_equal(got, want.ravel())
    mask = (rng.random(hsv.shape[:2]) < 0.3).astype(np.uint8)  # (and under a mask)
    want = cv2.calcHist([hsv], [0, 1, 2], mask, list(bins), [0, 180, 0, 256, 0, 256])
    assert np.array_equal(bin_counts(hsv_bins(hsv, bins), bins, mask > 0), want.ravel())
