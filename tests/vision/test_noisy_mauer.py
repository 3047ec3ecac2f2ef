"""Noisy photos (session 21, H2): `mauer_dice.die_candidates` tests a dot against the
candidates found so far in one array operation (`_clear_of`), as its loop did one pair at a
time."""

from __future__ import annotations

import numpy as np
import pytest

from vision.mauer_dice import _clear_of, _points


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
