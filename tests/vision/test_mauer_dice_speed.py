"""The board dice's cost (docs/dice.md "Session 26 (mauer-dice-speed)"): connected
components with 16-bit labels (`vision.dice.cc_stats`, the same labels and stats as
OpenCV's int32 ones) and the ray directions made once (`_ring_points`)."""

import cv2
import numpy as np
import pytest

from vision import dice as V


@pytest.mark.parametrize("shape,density,seed", [
    ((357, 357), 0.3, 0),  # a crop's adaptive-threshold mask: 16-bit labels
    ((179, 179), 0.5, 1),  # its half-size pass
    ((40, 31), 0.0, 2),  # nothing set: the background alone
    ((600, 600), 0.6, 3),  # more pixels than 65535 set, still few enough components
    ((1, 1), 1.0, 4),  # one pixel
])
def test_cc_stats_are_opencvs_int32_ones(shape, density, seed):
    """`cc_stats` gives OpenCV's labels, stats and centroids bit for bit, whichever label
    type it asks for."""
    rng = np.random.default_rng(seed)
    m = (rng.random(shape) < density).astype(np.uint8) * 255
    m = cv2.dilate(m, np.ones((2, 2), np.uint8)) if min(shape) > 2 else m
    want = cv2.connectedComponentsWithStats(m, connectivity=8)
    got = V.cc_stats(m)
    assert got[0] == want[0]
    assert np.array_equal(got[1].astype(np.int64), want[1].astype(np.int64))
    assert np.array_equal(got[2], want[2])
    assert np.array_equal(got[3], want[3], equal_nan=True)  # (an empty background: NaN)


def test_cc_stats_takes_int32_labels_where_more_than_65535_could_come_out():
    """A checkerboard of lone pixels 600 px a side could hold 90000 components (8-connected
    they are one; the bound does not know): int32 labels, the same results."""
    m = np.zeros((600, 600), np.uint8)
    m[::2, ::2] = 1
    got = V.cc_stats(m)
    assert got[1].dtype == np.int32
    assert got[0] == cv2.connectedComponentsWithStats(m, connectivity=8)[0] == 90001


@pytest.mark.parametrize("n", [16, 32, 7])  # the pip ring, a face's rays, any count
def test_ring_points_are_made_once_and_read_only(n):
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    got = V._ring_points(n)
    assert np.array_equal(got, np.stack([np.cos(a), np.sin(a)], axis=1))
    assert V._ring_points(n) is got and not got.flags.writeable
