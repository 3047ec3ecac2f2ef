"""`vision.segment.components`: 16-bit labels only where they cannot overflow, the same
labels and stats as OpenCV's own 32-bit ones; `fill_holes` on its bound."""

import cv2
import numpy as np
import pytest

from vision.segment import components, fill_holes


def checkerboard(n: int) -> np.ndarray:
    return ((np.indices((n, n)).sum(axis=0) % 2) == 0).astype(np.uint8)


def dots(n: int, seed: int = 0, share: float = 0.05) -> np.ndarray:
    return (np.random.default_rng(seed).random((n, n)) < share).astype(np.uint8)


@pytest.mark.parametrize("mask, connectivity, most, dtype", [
    (dots(480), 8, None, np.uint16),  # 8-connected: one per 2 x 2 block, 57 600 at most
    (checkerboard(480), 8, None, np.uint16),  # (the board's squares touch at their corners)
    (checkerboard(480), 4, None, np.int32),  # 115 200 lone squares: past 16 bits
    (checkerboard(600), 8, None, np.int32),  # 90 000 blocks: 16 bits could overflow
    (dots(480, share=0.2), 4, None, np.uint16),  # 46 000 pixels: one each at most
    (dots(480, share=0.3), 4, None, np.int32),  # 69 000 pixels (29 717 components)
    (dots(480, share=0.3), 4, 50_000, np.uint16),  # the caller's bound
    (np.zeros((480, 480), np.uint8), 4, None, np.uint16),  # nothing
])
def test_components_match_opencv_in_the_smallest_safe_labels(mask, connectivity, most, dtype):
    n, labels, stats, cents = components(mask, connectivity, most)
    n0, labels0, stats0, cents0 = cv2.connectedComponentsWithStats(mask,
                                                                   connectivity=connectivity)
    assert labels.dtype == dtype
    assert n == n0
    assert np.array_equal(labels, labels0)
    assert np.array_equal(stats, stats0) and np.array_equal(cents, cents0)


@pytest.mark.parametrize("mask", [
    checkerboard(600),  # 180 000 one-pixel holes: the 32-bit labels
    1 - dots(480, seed=1),  # a few thousand small holes in a full mask: 16 bits
    dots(480, seed=2),  # a sparse mask: its one big outside is no hole
])
def test_fill_holes_fills_every_small_hole(mask):
    filled = fill_holes(mask, 3)
    inv = (mask == 0).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(inv, connectivity=4)
    small = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] < 3)
    want = mask | np.isin(labels, small[small > 0]).astype(np.uint8)
    assert np.array_equal(filled, want)
