"""Session 25 (troeto-speed): the reader's cheaper steps give the very numbers of the ones
they replace (no reading changes: each is compared bit for bit with the old code, kept
here as written before)."""

import cv2
import numpy as np
import pytest

from vision.cards.read import regions_4


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.atleast_1d(a), np.atleast_1d(b)
    return a.shape == b.shape and a.dtype == b.dtype and \
        np.array_equal(a.view(np.uint8), b.view(np.uint8))


def _blobs(rng, shape) -> np.ndarray:
    """A uint8 0/1 mask of a few ellipses, boxes and speckled patches (a look's closed
    mask: some regions, touching ones, holes)."""
    h, w = shape
    m = np.zeros(shape, np.uint8)
    for _ in range(int(rng.integers(1, 10))):
        cx, cy = int(rng.integers(0, w)), int(rng.integers(0, h))
        kind = int(rng.integers(3))
        if kind == 0:
            cv2.ellipse(m, (cx, cy), (int(rng.integers(1, 30)), int(rng.integers(1, 30))),
                        float(rng.uniform(0, 180)), 0, 360, 1, -1)
        elif kind == 1:
            m[cy:cy + int(rng.integers(1, 20)), cx:cx + int(rng.integers(1, 20))] = 1
        else:
            sub = (rng.random((int(rng.integers(1, 30)), int(rng.integers(1, 30))))
                   < rng.uniform(0.2, 0.8)).astype(np.uint8)
            m[cy:cy + sub.shape[0], cx:cx + sub.shape[1]] = sub[:h - cy, :w - cx]
    return m


@pytest.mark.parametrize("seed", range(12))
def test_regions_4_as_whole_mask(seed):
    """The labels, their order and every stat (the background's row too) as the whole
    mask's labelling gives them; an odd top row of the box is where a plain crop of it
    reorders them (the test would fail without the alignment)."""
    rng = np.random.default_rng(seed)
    for _ in range(300):
        m = _blobs(rng, tuple(int(v) for v in rng.integers(20, 200, 2)))
        n, lab, stats, _ = cv2.connectedComponentsWithStats(m, 4)
        n2, lab2, stats2 = regions_4(m)
        assert n2 == n
        assert _same_bits(lab2, lab)
        assert _same_bits(stats2, stats)


@pytest.mark.parametrize("mask", [
    np.zeros((6, 8), np.uint8),  # nothing set: the whole mask's answer
    np.ones((6, 8), np.uint8),  # all set: the box is the mask
    np.pad(np.ones((3, 3), np.uint8), ((1, 2), (3, 2))),  # one block at an odd row
    np.eye(7, dtype=np.uint8),  # a diagonal: 7 regions 4-connected, one per row
])
def test_regions_4_small(mask):
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask, 4)
    n2, lab2, stats2 = regions_4(mask)
    assert (n2, lab2.tolist(), stats2.tolist()) == (n, lab.tolist(), stats.tolist())
