"""`read.small_hsv`: the photo at a scale in HSV, shared within `keeping_small_hsv` (teach
mode's `look_pixels` and the reader's look ask for the same one)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cards.read import keeping_small_hsv, small_hsv


def _photo(seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (48, 64, 3), dtype=np.uint8)


@pytest.mark.parametrize("f", [0.5, 0.25])
def test_small_hsv_is_the_resized_photo_in_hsv(f):
    image = _photo()
    small = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    assert np.array_equal(small_hsv(image, f), cv2.cvtColor(small, cv2.COLOR_BGR2HSV))


@pytest.mark.parametrize("keep, other, shared", [
    (True, False, True),  # the same photo and scale within the context: worked out once
    (False, False, False),  # outside it: each call its own
    (True, True, False),  # another photo is not kept
])
def test_small_hsv_is_kept_only_within_the_context(keep, other, shared):
    image = _photo()
    if keep:
        with keeping_small_hsv(image):
            a = small_hsv(image, 0.5)
            b = small_hsv(_photo(1) if other else image, 0.5)
    else:
        a, b = small_hsv(image, 0.5), small_hsv(image, 0.5)
    assert (a is b) == shared
    c = small_hsv(image, 0.5)  # (nothing kept after it)
    assert c is not a and np.array_equal(c, a)


@pytest.mark.parametrize("same", [True, False])
def test_nested_context_keeps_the_outer_memo(same):
    """A context within another (the same photo or another) leaves the outer one's memo
    in force after it; within it, the same photo is still shared."""
    image, other = _photo(), _photo(1)
    with keeping_small_hsv(image):
        a = small_hsv(image, 0.5)
        with keeping_small_hsv(image if same else other):
            assert (small_hsv(image, 0.5) is a) == same
            b = small_hsv(other, 0.5)
            assert (small_hsv(other, 0.5) is b) == (not same)
        assert small_hsv(image, 0.5) is a
        assert small_hsv(other, 0.5) is not b
    assert small_hsv(image, 0.5) is not a
