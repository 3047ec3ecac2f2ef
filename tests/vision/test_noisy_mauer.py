"""Noisy photos (session 21, H2): `mauer_dice.die_candidates` tests a dot against the
candidates found so far in one array operation (`_clear_of`), as its loop did one pair at a
time."""

from __future__ import annotations

import numpy as np
import pytest

from vision.mauer_dice import _clear_of, _close_pairs, _points


@pytest.mark.parametrize("seed, n, reach", [(0, 0, 5.0), (1, 1, 5.0), (2, 30, 8.0),
                                            (3, 300, 2.0), (4, 50, 40.0)])
def test_clear_of_as_the_loop(seed, n, reach):
    rng = np.random.default_rng(seed)
    cands = [rng.uniform(0, 100, 2) for _ in range(n)]
    at = _points(cands)
    assert at.shape == (n, 2) and at.dtype == np.float64
    for c in rng.uniform(0, 100, (200, 2)):
        assert _clear_of(c, at, reach) == all(np.hypot(*(c - e)) > reach for e in cands)


def test_clear_of_at_the_reach():
    at = _points([np.array([0.0, 0.0]), np.array([10.0, 0.0])])
    assert not _clear_of(np.array([3.0, 4.0]), at, 5.0)  # exactly 5 px: not clear
    assert _clear_of(np.array([3.0, 4.1]), at, 5.0)


@pytest.mark.parametrize("seed, n, reach, grid", [
    (0, 0, 5.0, False), (1, 1, 5.0, False), (2, 200, 7.8, False), (3, 2000, 3.0, False),
    (4, 300, 10.0, True),  # on a lattice: pairs exactly at the reach, points on cell edges
])
def test_close_pairs_as_the_matrix(seed, n, reach, grid):
    rng = np.random.default_rng(seed)
    pts = (rng.integers(0, 20, (n, 2)) * 5.0 if grid else rng.uniform(0, 300, (n, 2))) + 40
    d = np.hypot(*(pts[:, None] - pts[None]).transpose(2, 0, 1))
    want_i, want_j = np.nonzero(d < reach)
    i, j = _close_pairs(pts, reach)
    np.testing.assert_array_equal(i, want_i)
    np.testing.assert_array_equal(j, want_j)
