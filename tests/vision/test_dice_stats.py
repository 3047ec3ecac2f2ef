"""`vision.dice.median` and `quartiles` give numpy's median and 75th / 25th percentiles bit
for bit (value and dtype): the pip search uses them in place of np.median / np.percentile
for speed, and must read the same pips."""

from dataclasses import replace

import numpy as np
import pytest

from vision.dice import median, quartiles


@pytest.mark.parametrize("shape, axis, dtype", [
    ((7, 16), 1, np.float32),  # pip rings (16 samples)
    ((5, 8), 1, np.float32),  # half-depth rings (8 samples)
    ((4, 16, 3), 1, np.float32),  # ring colours, per channel
    ((6, 3), 0, np.float32),  # a face's pip colours
    ((5,), 0, np.float64),  # odd count: the middle value
    ((4,), 0, np.float64),  # even count: the mean of the two middle ones
    ((1,), 0, np.float32),  # one pip
    ((72, 3), 0, np.float64),  # a start area's ring colours (vision.mauer)
    ((5, 4, 72, 3), 2, np.float64),  # ... for many board fits at once
    ((98, 30), 1, np.float32),  # pawn spot discs
    ((66,), 0, np.float64),  # field pitches
])
def test_median_is_numpys(shape, axis, dtype):
    rng = np.random.default_rng(3)
    for _ in range(200):
        x = rng.integers(0, 256, shape).astype(dtype)
        if rng.random() < 0.5:  # ties
            x = np.round(x / 60) * 60
        x += rng.random(shape).astype(dtype) * (rng.random() < 0.5)
        want, got = np.median(x, axis=axis), median(x, axis=axis)
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
        g75, g25 = quartiles(x)
        assert g75.dtype == q75.dtype and g25.dtype == q25.dtype
        assert np.array_equal(g75, q75) and np.array_equal(g25, q25)


def _border_score_loop(ext, exp, s):
    """`_border_score` as it was: one face scale after another, numpy's mean of the bools
    (with session 10's open rays down: 0.9 below a border met in range by every ray up)."""
    best = (0.0, 1.0)
    open_share = s.open_ray_weight * float(np.isnan(ext).mean())
    dy = np.sin(np.linspace(0, 2 * np.pi, len(ext), endpoint=False))
    down = np.isnan(ext) & (dy > s.open_below_dir)
    for scale in s.face_scales:
        ratio = ext / (exp * scale)
        in_range = (ratio >= s.ray_range[0]) & (ratio <= s.ray_range[1])
        good = float(in_range.mean()) + open_share
        if s.open_below_weight is not None and down.any() and in_range[
                dy < -s.open_below_dir].all():
            good += (s.open_below_weight - s.open_ray_weight) * float(down.mean())
        early = float((ratio < s.ray_range[0]).mean())
        if good - early > best[0] - best[1]:
            best = (good, early)
    return best


def test_border_score_is_the_loops():
    from vision.dice import SETTINGS, _border_score

    rng = np.random.default_rng(7)
    for _ in range(500):
        exp = rng.uniform(5, 40, 16)
        ext = exp * rng.uniform(0.5, 1.6, 16)
        ext[rng.random(16) < 0.2] = np.nan  # rays meeting no border
        if rng.random() < 0.3:  # ratios right at the range's ends and ties between scales
            ext = exp * rng.choice([0.72, 1.32, 1.0, 0.9], 16)
            ext[1:8][rng.random(7) < 0.5] = np.nan  # some rays down open (side faces)
        for s in (SETTINGS, replace(SETTINGS, open_below_weight=None),
                  replace(SETTINGS, open_below_dir=0.6)):  # (the rays down: its own setting)
            assert _border_score(ext, exp, s) == _border_score_loop(ext, exp, s)
