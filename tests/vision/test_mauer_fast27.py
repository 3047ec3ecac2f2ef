"""Session 27's shortcuts in the Mauerhuepfer board stage give the answers of the plain
computations they replaced (each reference below is the former code)."""

import cv2
import numpy as np
import pytest

from vision import mauer as M


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
