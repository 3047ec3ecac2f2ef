"""Session 27's shortcuts in the Mauerhuepfer board stage give the answers of the plain
computations they replaced (each reference below is the former code)."""

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import mauer as M

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "datasets" / "scenes" / "mauerhuepfer"
BOARD = M.board_for()


def _light_map(seed: int, top: int) -> np.ndarray:
    """A (120, 160) uint8 map like the board search's light map: a noisy table at the
    surroundings' level (128) with light discs (fields) of several levels up to `top`."""
    rng = np.random.default_rng(seed)
    L = np.clip(rng.normal(128, 6, (120, 160)), 0, 255)
    for k, (x, y) in enumerate([(20, 20), (50, 22), (80, 24), (110, 26), (140, 28),
                                (30, 70), (70, 75), (110, 80), (140, 95)]):
        cv2.circle(L, (x, y), 6 + k % 3, float(top - 6 * (k % 4)), -1)
    return np.clip(cv2.GaussianBlur(L, (0, 0), 1.0), 0, 255).astype(np.uint8)


def _keypoints(L, lo, hi, step=4, repeat=2):
    p = cv2.SimpleBlobDetector_Params()
    p.filterByColor, p.blobColor = True, 255
    p.minThreshold, p.maxThreshold, p.thresholdStep = lo, hi, step
    p.minRepeatability = repeat
    p.minArea, p.maxArea = 20.0, 5000.0
    p.filterByCircularity = False
    p.filterByInertia, p.minInertiaRatio = True, 0.2
    p.filterByConvexity, p.minConvexity = True, 0.7
    p.minDistBetweenBlobs = 3
    return [(k.pt, k.size) for k in cv2.SimpleBlobDetector_create(p).detect(L)]


@pytest.mark.parametrize("seed,top,thresholds,cut", [
    (0, 190, (140, 250), 192.0),  # the reduced search: fields at 172-190, ladder cut at 192
    (1, 201, (100, 250), 204.0),  # the refine's ladder from 100: cut at the grid step >= 201
    (2, 160, (100, 250), 160.0),  # a maximum on the ladder itself: 160 > t fails from t=160
])
def test_threshold_ladder_cut_at_the_maps_maximum_finds_the_same_blobs(seed, top, thresholds,
                                                                        cut):
    L = _light_map(seed, top)
    lo, hi = M._thresholds_seen(L, thresholds, 4)
    assert (lo, hi) == (float(thresholds[0]), cut)  # (the ladder was cut)
    full = _keypoints(L, *thresholds)
    assert full  # (blobs to compare)
    assert _keypoints(L, lo, hi) == full


@pytest.mark.parametrize("top,thresholds", [
    (255, (140, 250)),  # a saturated pixel: the whole ladder
    (250, (140, 250)),  # the maximum at the last threshold: the whole ladder
    (143, (140, 250)),  # one threshold left (140): as it was (OpenCV refuses a single one)
    (120, (140, 250)),  # nothing above the first: as it was
])
def test_threshold_ladder_left_as_it_was(top, thresholds):
    L = np.full((40, 40), 100, np.uint8)
    L[10:20, 10:20] = top
    assert M._thresholds_seen(L, thresholds, 4) == tuple(float(t) for t in thresholds)


def _old_sharing(member):
    m = member.astype(np.float32)
    return (m @ m.T) > 0


@pytest.mark.parametrize("seed,runs,blobs,p", [
    (0, 80, 175, 0.04),  # committed 0019's size: many runs over a cloth's blobs
    (1, 12, 60, 0.1),  # an ordinary photo's
    (2, 30, 400, 0.01),  # sparse: few blobs in two runs
    (3, 5, 20, 0.0),  # no blob in any run (each run still shares with itself)
])
def test_sharing_without_blas_is_the_float_product(seed, runs, blobs, p):
    member = np.random.default_rng(seed).random((runs, blobs)) < p
    member[0, :3] = True  # (the first run never empty)
    got = M._sharing(member)
    assert got.dtype == bool
    want = _old_sharing(member)
    np.fill_diagonal(want, True)  # (an empty run shared nothing with itself before; the
    # diagonal is cleared by `_run_hypotheses`' `cand` either way)
    assert np.array_equal(got, want)


@pytest.mark.parametrize("fs,rms,best", [
    (0.8, 0.05, 1.25),  # exactly the bound: 0.8 + 0.5 - 0.05
    (0.6, 0.0, 1.1),  # exactly the bound, no residual
    (0.7, 0.1, 1.0),  # under the bound: may still win
    (0.3, 0.2, 1.3),  # far below: skipped
    (-1.0, 0.0, -0.6),  # `_fit_score`'s failure value
])
def test_cannot_win_only_where_no_start_colours_would_win(fs, rms, best):
    s = M.SETTINGS
    # every value `_colour_evidence` gives: credits 0, 0.5, 1 over four areas
    totals = [fs + s.colour_weight * (k / 8) - rms for k in range(9)]
    if M._cannot_win(fs, rms, best, s):
        assert not any(t > best for t in totals)
    else:
        assert any(t > best for t in totals)


@pytest.mark.parametrize("name", [
    "mauerhuepfer-e1-s1-0003.jpg",  # a sure fit: no alternatives
    "mauerhuepfer-e1-s1-0009.jpg",  # alternatives tried, none won
    "mauerhuepfer-e1-s1-0019.jpg",  # the cloth: full size passes, the other-size search
])
def test_find_board_with_the_shortcuts_is_the_old_search(monkeypatch, name):
    img = cv2.imread(str(SCENES / name))
    s = replace(M.SETTINGS, threads=False)
    calls = {"ce": 0}
    ce = M._colour_evidence

    def counted(*a, **k):
        calls["ce"] += 1
        return ce(*a, **k)

    monkeypatch.setattr(M, "_colour_evidence", counted)
    new = M.find_board(img, BOARD, s)
    new_calls = calls["ce"]
    calls["ce"] = 0
    # the former search: the whole threshold ladder, the start colours of every fit
    monkeypatch.setattr(M, "_thresholds_seen", lambda L, t, step: (float(t[0]), float(t[1])))
    monkeypatch.setattr(M, "_cannot_win", lambda *a: False)
    old = M.find_board(img, BOARD, s)
    assert calls["ce"] >= new_calls
    for a, b in ((new.H, old.H), (new.P, old.P), (new.corners, old.corners)):
        assert np.array_equal(a, b)
    assert (new.score, new.glares, new.other_search) == (old.score, old.glares,
                                                          old.other_search)
