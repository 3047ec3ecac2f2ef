"""A Troetofanten animal whose corner digit is too blurred for anyone to read
(`index_sharpness` under `legible_sharpness`): its warning says the facts cannot be exact,
sure number or not (`blurred_number`, `piece_warnings`' `blurred`)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cards.pieces import CardPiece
from vision.cards.read import READ, blurred_number, index_sharpness, piece_warnings


def digit_crop(ink, blur: float, paper=(235, 245, 250), size: int = 32, seed: int = 0):
    """A (size, size, 3) BGR crop: a '5'-like digit of `ink` drawn with 2 px strokes on
    `paper`, Gaussian-blurred with sigma `blur` px (0: sharp), a little seeded noise."""
    img = np.zeros((size, size, 3), np.uint8)
    img[:] = paper
    for a, b in (((11, 8), (21, 8)), ((11, 8), (11, 15)), ((11, 15), (20, 16)),
                 ((20, 16), (20, 23)), ((20, 23), (11, 24))):
        cv2.line(img, a, b, ink, 2)
    if blur > 0:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    noise = np.random.default_rng(seed).normal(0, 1.5, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


YELLOW, DARK = (20, 200, 250), (40, 30, 30)


@pytest.mark.parametrize("ink,kind,blur,legible", [
    (YELLOW, "tootophant", 0.0, True),   # a sharp yellow digit: steep steps in blue
    (YELLOW, "tootophant", 0.7, True),   # slightly soft, still strokes
    (YELLOW, "tootophant", 1.5, True),   # soft strokes a person still reads (0.29)
    (YELLOW, "tootophant", 3.5, False),  # the committed scenes' blobs: no stroke left (0.16)
    (DARK, "elephant", 0.0, True),       # a dark digit, grey channel
    (DARK, "elephant", 3.5, False),
])
def test_index_sharpness(ink, kind, blur, legible):
    """Sharp digits measure over `legible_sharpness`, blurred ones under it, whatever
    their contrast (fails if the measure is not normalised by the contrast or uses the
    wrong channel: yellow on pale paper is nearly invisible in grey)."""
    got = index_sharpness(digit_crop(ink, blur), kind)
    assert (got >= READ.legible_sharpness) == legible, got


def test_index_sharpness_ink_channel():
    """A tootophant's yellow digit is measured in blue, where the ink is dark: a sharp
    yellow digit under a blue-free wash (the blue channel flat) measures as no digit as a
    tootophant (fails if the tootophant's measure used grey)."""
    crop = digit_crop(YELLOW, 0.0)
    crop[..., 0] = 128  # no blue steps: the digit only in green and red
    assert index_sharpness(crop, "tootophant") < index_sharpness(crop, "elephant")


def _piece(label, probs):
    frame = np.array([[0, 0], [40, 0], [40, 62], [0, 62]], float)
    return CardPiece(label, 0.9, np.array([7.0, 7.0]), frame, 0.0, 40.0, probs)


@pytest.mark.parametrize("share,blurred,want", [
    (0.99, False, None),                # sure and legible: no warning
    (0.99, True, "too blurred"),        # sure but a blob: the facts cannot be exact
    (0.60, False, "unclear"),           # unsure and legible: the usual doubt
    (0.60, True, "too blurred"),        # unsure blob: one warning, the blurred one
])
def test_piece_warnings_blurred(share, blurred, want):
    p = _piece("tootophant-3", {"tootophant-3": share, "tootophant-5": 1 - share})
    got = [w for w in piece_warnings([p], "troetofanten", READ,
                                     blurred={id(p)} if blurred else set())
           if "corner number" in w]
    if want is None:
        assert got == []
    else:
        assert len(got) == 1 and want in got[0], got


def test_blurred_number_text():
    p = _piece("tootophant-3", {"tootophant-3": 0.6, "tootophant-5": 0.4})
    assert blurred_number(p).startswith(
        "the tootophant at (20, 31): its corner number is too blurred to read in this "
        "photo, 3 or 5 (0.60 / 0.40); the points do not change but the facts cannot be exact")


@pytest.mark.parametrize("shape,qs", [
    ((20, 20), (2, 98)),  # the crop's middle, as `index_sharpness` takes it
    ((20, 20), (95,)),
    ((1, 1), (2, 98)),    # one value: every percentile is it
    ((3, 5), (0, 50, 100)),
])
def test_percentiles_as_numpy(shape, qs):
    from vision.cards.read import _percentiles

    x = np.random.default_rng(3).random(shape).astype(np.float32) * 255
    assert np.allclose(_percentiles(x, qs), np.percentile(x, qs), rtol=1e-5)


@pytest.mark.parametrize("probs,numbers", [
    ({"tootophant-3": 0.6, "tootophant-5": 0.4}, "3 or 5 (0.60 / 0.40)"),
    ({"tootophant-3": 1.0}, "3 or ? (1.00 / 0.00)"),  # one number of its kind
    ({"tootophant-3": 0.7, "mouse": 0.3}, "3 or ? (1.00 / 0.00)"),  # (other kinds: none)
    ({}, "? or ? (0.00 / 0.00)"),  # no probabilities at all
])
def test_number_warnings_with_fewer_than_two_numbers(probs, numbers):
    """A hand-made or partial `probs` holding fewer than two numbers of the card's kind: the
    warnings name "?" for the missing one (`_two_numbers` unpacked two and raised
    ValueError before). A faint piece (`counted_weak`) is always warned about."""
    from dataclasses import replace

    from vision.cards.read import number_doubt, unseen_cards

    p = _piece("tootophant-3", probs)
    assert numbers in blurred_number(p)
    if probs:
        got = number_doubt(p, 2.0)  # (over 1: always a warning)
        assert got is not None and numbers in got
        warned = piece_warnings([replace(p, faint=True)], "troetofanten", READ)
        assert any(numbers in w for w in warned), warned
    a, b = numbers.split(" (")[0].split(" or ")
    got = unseen_cards([], [("tootophant", p.key, p.frame, probs)], ())
    assert got == [f"possibly a tootophant at (20, 31), not counted: its corner number is "
                   f"unreadable ({a} or {b}); check the card"]
