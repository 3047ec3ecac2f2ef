"""The Mauerhuepfer reader's shortcuts give the same numbers as the plain computations."""

import cv2
import numpy as np
import pytest

from vision import mauer as M


def test_dist_is_the_norm_bit_for_bit():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(7, 1, 5, 2)) * 300, rng.normal(size=(1, 9, 5, 2)) * 300
    assert np.array_equal(M._dist(a, b), np.linalg.norm(a - b, axis=-1))


def test_apply_many_is_the_einsum():
    rng = np.random.default_rng(1)
    Hs = rng.normal(size=(40, 3, 3))
    Hs[:, 2, :2] *= 1e-3
    Hs[:, 2, 2] = 1.0
    pts = rng.uniform(0, 500, (66, 2))
    q = np.einsum("kij,mj->kmi", Hs[:, :, :2], pts) + Hs[:, None, :, 2]
    assert np.array_equal(M._apply_many(Hs, pts), q[..., :2] / q[..., 2:3])


def test_bilinear_of_uint8_equals_that_of_a_float_copy():
    rng = np.random.default_rng(2)
    img = rng.integers(0, 256, (50, 60, 3), dtype=np.uint8)
    pts = rng.uniform(-5, 70, (500, 2))
    assert np.array_equal(M._bilinear(img, pts), M._bilinear(img.astype(np.float32), pts))


def test_blurred_lab_at_equals_the_whole_blurred_image():
    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, (40, 50, 3), dtype=np.uint8)
    lab = cv2.cvtColor(cv2.blur(img, (3, 3)), cv2.COLOR_BGR2LAB)
    xy = np.array([[x, y] for y in range(40) for x in range(50)])
    assert np.array_equal(M._blurred_lab_at(img, xy), lab[xy[:, 1], xy[:, 0]])


@pytest.mark.parametrize("seed", range(10))
def test_masked_median_equals_numpy(seed):
    rng = np.random.default_rng(seed)
    img = rng.integers(0, 256, (30, 40), dtype=np.uint8)
    if seed % 2:
        img = (img // 64 * 64).astype(np.uint8)  # ties and even counts
    mask = (rng.uniform(size=img.shape) < 0.3).astype(np.uint8)
    assert M._masked_median_u8(img, mask) == np.uint8(np.median(img[mask > 0]))


def test_board_for_gives_one_object_per_file():
    assert M.board_for() is M.board_for()
