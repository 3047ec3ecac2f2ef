"""The segment stage's shortcuts give the same numbers as the plain computations they replace:
`components`' 16-bit labels only where they cannot overflow, `fill_holes` on its bound,
`convex_blobs` leaving the specks that are their own hull."""

import cv2
import numpy as np
import pytest

from vision.segment import components, convex_blobs, fill_holes


def checkerboard(n: int) -> np.ndarray:
    return ((np.indices((n, n)).sum(axis=0) % 2) == 0).astype(np.uint8)


def dots(n: int, seed: int = 0, share: float = 0.05) -> np.ndarray:
    return (np.random.default_rng(seed).random((n, n)) < share).astype(np.uint8)


@pytest.mark.parametrize("mask, connectivity, dtype", [
    (dots(480), 8, np.uint16),  # 8-connected: one per 2 x 2 block, 57 600 at most
    (checkerboard(480), 8, np.uint16),  # (the board's squares touch at their corners)
    (checkerboard(480), 4, np.int32),  # 115 200 lone squares: past 16 bits
    (checkerboard(600), 8, np.int32),  # 90 000 blocks: 16 bits could overflow
    (dots(480, share=0.2), 4, np.uint16),  # 46 000 pixels: one each at most
    (dots(480, share=0.3), 4, np.int32),  # 69 000 pixels (29 717 components)
    (np.zeros((480, 480), np.uint8), 4, np.uint16),  # nothing
])
def test_components_match_opencv_in_the_smallest_safe_labels(mask, connectivity, dtype):
    n, labels, stats, cents = components(mask, connectivity)
    n0, labels0, stats0, cents0 = cv2.connectedComponentsWithStats(mask,
                                                                   connectivity=connectivity)
    assert labels.dtype == dtype
    assert n == n0
    assert np.array_equal(labels, labels0)
    assert np.array_equal(stats, stats0) and np.array_equal(cents, cents0)


def framed_hole(width: int) -> np.ndarray:
    """A 1-pixel frame around a 1 x `width` hole, on an empty 9-pixel border."""
    return np.pad(np.pad(np.zeros((1, width), np.uint8), 1, constant_values=1), 9)


@pytest.mark.parametrize("mask, filled_hole", [
    (checkerboard(600), True),  # 180 000 one-pixel holes: the 32-bit labels
    (1 - dots(480, seed=1), True),  # ~11 000 holes in a full mask: 32 bits (the bound)
    (1 - dots(200, seed=1, share=0.02), True),  # ~800 holes: 16 bits, areas by histogram
    (dots(480, seed=2, share=0.01), False),  # sparse: its one big outside is no hole
    (framed_hole(2), True),  # 2 pixels: under 3
    (framed_hole(3), False),  # 3 pixels: kept
])
def test_fill_holes_fills_every_hole_under_the_area(mask, filled_hole):
    filled = fill_holes(mask, 3)
    inv = (mask == 0).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(inv, connectivity=4)
    small = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] < 3)
    want = mask | np.isin(labels, small[small > 0]).astype(np.uint8)
    assert filled.dtype == np.uint8 and np.array_equal(filled, want)
    assert (filled.sum() > mask.sum()) == filled_hole


def plain_convex_blobs(mask: np.ndarray) -> np.ndarray:
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(mask)
    for c in contours:
        cv2.fillConvexPoly(out, cv2.convexHull(c), 1)
    return out


@pytest.mark.parametrize("mask", [
    dots(200, seed=3, share=0.02),  # lone pixels (one outline point each)
    dots(200, seed=4, share=0.3),  # specks, runs and larger blobs, some with holes
    np.pad(np.eye(9, dtype=np.uint8), 4) | np.pad(np.ones((1, 12), np.uint8), ((2, 14), (2, 3))),
    # (a diagonal run and a straight one: two outline points each)
    np.pad(np.tri(15, dtype=np.uint8)[::-1], 5),  # a triangle: its own hull
    cv2.circle(np.zeros((60, 60), np.uint8), (30, 30), 20, 1, 3),  # a ring: filled
])
def test_convex_blobs_is_each_blobs_hull(mask):
    assert np.array_equal(convex_blobs(mask), plain_convex_blobs(mask))
