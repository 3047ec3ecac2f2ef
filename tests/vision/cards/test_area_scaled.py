"""`geometry.area_scaled`: one photo's area resizes made once within `keeping_scaled` (the
detector's input, `second_look`'s half-size photo, the look's HSV photo and the light steps'
640-px copy are the same resize of a 1280 x 960 photo), the same pixels as `cv2.resize`;
and `CardPiece.center` worked out once per piece, the same numbers (session 21, H1)."""

from __future__ import annotations

import threading
from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.cards.detect import DetectSettings, small_to_input, to_input
from vision.cards.geometry import area_scaled, keeping_scaled
from vision.cards.pieces import CardPiece
from vision.cards.read import small_hsv
from vision.cards.stage import reduced_copy


def _photo(seed: int = 0, shape=(60, 80, 3)) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, shape, dtype=np.uint8)


@pytest.mark.parametrize("shape, fx, fy", [
    ((60, 80, 3), 0.5, None), ((61, 83, 3), 0.5, None), ((60, 80, 3), 0.25, None),
    ((60, 80, 3), 0.64, None), ((60, 80), 0.5, None), ((60, 80, 3), 0.5, 0.3),
])
@pytest.mark.parametrize("keep", [False, True])
def test_area_scaled_is_cv2_resize(shape, fx, fy, keep):
    image = _photo(1, shape)
    want = cv2.resize(image, None, fx=fx, fy=fx if fy is None else fy,
                      interpolation=cv2.INTER_AREA)
    if keep:
        with keeping_scaled():
            got, again = area_scaled(image, fx, fy), area_scaled(image, fx, fy)
        assert got is again
    else:
        got = area_scaled(image, fx, fy)
    assert got.dtype == want.dtype and np.array_equal(got, want)


@pytest.mark.parametrize("other_image, other_scale, shared", [
    (False, False, True),  # the same photo and scale: made once
    (True, False, False),  # another photo of the same size and scale: its own
    (False, True, False),  # the same photo at another scale: its own
])
def test_kept_only_for_the_same_image_and_scale(other_image, other_scale, shared):
    image, other = _photo(0), _photo(1)
    with keeping_scaled():
        a = area_scaled(image, 0.5)
        b = area_scaled(other if other_image else image, 0.25 if other_scale else 0.5)
    assert (a is b) == shared
    assert area_scaled(image, 0.5) is not a  # (nothing kept after it)


def test_nested_contexts_share_the_outer_memo_and_end_with_it():
    image = _photo()
    with keeping_scaled():
        a = area_scaled(image, 0.5)
        with keeping_scaled():
            assert area_scaled(image, 0.5) is a
        assert area_scaled(image, 0.5) is a  # (the inner one's end leaves it in force)
    assert area_scaled(image, 0.5) is not a


def test_other_threads_keep_their_own():
    image, seen = _photo(), []
    with keeping_scaled():
        a = area_scaled(image, 0.5)
        t = threading.Thread(target=lambda: seen.append(area_scaled(image, 0.5)))
        t.start()
        t.join()
    assert seen[0] is not a and np.array_equal(seen[0], a)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_steps_that_share_it_read_the_same_pixels(seed):
    """The detector's input, `small_hsv` and `reduced_copy` within the context equal their
    own resize outside it (and share one half-size copy)."""
    image = _photo(seed, (96, 128, 3))
    s = DetectSettings()
    half = cv2.resize(image, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    with keeping_scaled():
        net = to_input(image, s)
        hsv = small_hsv(image, 0.5)
        small, f = reduced_copy(image, 64)
        assert small is area_scaled(image, 0.5) and f == 0.5
    assert np.array_equal(net, small_to_input(half, s))
    assert np.array_equal(hsv, cv2.cvtColor(half, cv2.COLOR_BGR2HSV))
    assert np.array_equal(small, half)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_center_is_the_frames_mean_worked_out_once(seed, dtype):
    rng = np.random.default_rng(seed)
    frame = (rng.normal(0, 500, (4, 2))).astype(dtype)
    key = rng.normal(0, 500, 2)
    p = CardPiece("back", 0.9, key, frame, 10.0, 50.0)
    c = p.center
    assert c is p.center and c.dtype == dtype and np.array_equal(c, frame.mean(axis=0))
    moved = replace(p, frame=frame + 1)  # (a changed piece is a new one: its own centre)
    assert np.array_equal(moved.center, (frame + 1).mean(axis=0))
    assert np.array_equal(p.center, c)
    assert replace(p, frame=None).center is key  # (round pieces: the key point)
