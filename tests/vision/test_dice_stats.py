"""`vision.dice._median` and `_quartiles` give numpy's median and 75th / 25th percentiles bit
for bit (value and dtype): the pip search uses them in place of np.median / np.percentile
for speed, and must read the same pips."""

import numpy as np
import pytest

from vision.dice import _median, _quartiles


@pytest.mark.parametrize("shape, axis, dtype", [
    ((7, 16), 1, np.float32),  # pip rings (16 samples)
    ((5, 8), 1, np.float32),  # half-depth rings (8 samples)
    ((4, 16, 3), 1, np.float32),  # ring colours, per channel
    ((6, 3), 0, np.float32),  # a face's pip colours
    ((5,), 0, np.float64),  # odd count: the middle value
    ((4,), 0, np.float64),  # even count: the mean of the two middle ones
    ((1,), 0, np.float32),  # one pip
])
def test_median_is_numpys(shape, axis, dtype):
    rng = np.random.default_rng(3)
    for _ in range(200):
        x = rng.integers(0, 256, shape).astype(dtype)
        if rng.random() < 0.5:  # ties
            x = np.round(x / 60) * 60
        x += rng.random(shape).astype(dtype) * (rng.random() < 0.5)
        want, got = np.median(x, axis=axis), _median(x, axis=axis)
        assert np.asarray(got).dtype == np.asarray(want).dtype
        assert np.array_equal(got, want)


@pytest.mark.parametrize("k", [16, 8, 5, 2])
def test_quartiles_are_numpys(k):
    rng = np.random.default_rng(k)
    for _ in range(200):
        x = rng.integers(0, 256, (9, k)).astype(np.float32)
        if rng.random() < 0.5:
            x += rng.random((9, k)).astype(np.float32)
        q75, q25 = np.percentile(x, [75, 25], axis=1)
        g75, g25 = _quartiles(x)
        assert g75.dtype == q75.dtype and g25.dtype == q25.dtype
        assert np.array_equal(g75, q75) and np.array_equal(g25, q25)
