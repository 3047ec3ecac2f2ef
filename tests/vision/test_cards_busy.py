"""A busy table (session 24, H3): on a look with more key points than a layout holds, the
pieces' shared size comes from the sure key points alone (`read.shared_widths`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.cards.read import READ, fit_widths, refine_poses, shared_widths


def _keys(rng, n_sure: int, n_weak: int, sure_w: float, weak_w: float):
    """Sure key points (heat 0.6-0.95) of one width, and weak ones (0.15-0.45) of another,
    spread over a 1280 x 960 photo; widths with 5 % noise."""
    xy = rng.uniform([100, 100], [1180, 860], (n_sure + n_weak, 2))
    w = np.r_[np.full(n_sure, sure_w), np.full(n_weak, weak_w)]
    w = w * rng.normal(1.0, 0.05, len(w))
    sc = np.r_[rng.uniform(0.6, 0.95, n_sure), rng.uniform(0.15, 0.45, n_weak)]
    return xy, w, sc


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n_sure, n_weak, weak_w", [(20, 130, 24.0), (12, 90, 70.0),
                                                     (24, 300, 30.0)])
def test_busy_look_takes_the_sure_ones_size(seed, n_sure, n_weak, weak_w):
    rng = np.random.default_rng(seed)
    xy, w, sc = _keys(rng, n_sure, n_weak, 45.0, weak_w)
    assert len(xy) > READ.busy_keys
    got = shared_widths(xy, w, sc)
    assert np.all(np.abs(got - 45.0) < 0.12 * 45.0)
    # the fit over all of them took the table's size (the failure this guards against)
    assert np.median(np.abs(fit_widths(xy, w) - 45.0)) > 0.2 * 45.0


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("n_sure, n_weak", [(20, 10), (30, 30), (2, 100)])
def test_ordinary_or_unsure_look_fits_as_before(seed, n_sure, n_weak):
    rng = np.random.default_rng(seed)
    xy, w, sc = _keys(rng, n_sure, n_weak, 45.0, 30.0)
    want = fit_widths(xy, w)  # under `busy_keys`, or under 4 sure ones: all of them
    assert np.array_equal(shared_widths(xy, w, sc), want)
    assert np.array_equal(shared_widths(xy, w, None), want)


def test_refine_poses_magic_rabbit_uses_the_sure_size():
    rng = np.random.default_rng(7)
    xy, w, sc = _keys(rng, 20, 130, 45.0, 24.0)
    ang = rng.normal(0, 3, len(xy))
    _, widths, _ = refine_poses("magic-rabbit", xy, ang, w, scores=sc)
    assert np.all(np.abs(widths[:20] - 45.0) < 0.12 * 45.0)
    _, widths0, _ = refine_poses("magic-rabbit", xy, ang, w)  # no scores: as before
    assert np.median(np.abs(widths0[:20] - 45.0)) > 0.2 * 45.0


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("line_deg, table_deg", [(18.0, 0.0), (-20.0, 90.0), (0.0, 30.0)])
def test_busy_look_takes_the_sure_ones_direction(seed, line_deg, table_deg):
    """The line's tiles (sure) at `line_deg`, the table's printed spots (weak, many more)
    at `table_deg`: the tiles keep their own direction."""
    rng = np.random.default_rng(seed)
    xy, w, sc = _keys(rng, 20, 130, 45.0, 45.0)
    ang = np.r_[line_deg + rng.normal(0, 2, 20), table_deg + rng.normal(0, 2, 130)]
    got, _, _ = refine_poses("magic-rabbit", xy, ang, w, scores=sc)
    assert np.all(np.abs(got[:20] - line_deg) < 8.0)
    # weighed over all of them (as an ordinary look is), the table's direction wins
    off = replace(READ, busy_keys=10**6)
    before, _, _ = refine_poses("magic-rabbit", xy, ang, w, settings=off, scores=sc)
    assert np.median(np.abs(before[:20] - table_deg)) < 3.0
