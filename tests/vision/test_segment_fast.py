"""The segment stage's shortcuts give the same numbers as the plain computations they replace:
`components`' 16-bit labels only where they cannot overflow, `fill_holes` on its bound,
`convex_blobs` leaving the specks that are their own hull, `two_tone_diffs` plane by
plane, the marbles' difference planes and a*b* distance from the uint8 Lab."""

import cv2
import numpy as np
import pytest

from vision.segment import (
    BG_L_WEIGHT,
    _lab_dist,
    background_lab,
    background_lab8,
    components,
    convex_blobs,
    fill_holes,
    lab_diff_planes,
    two_tone_diffs,
)


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


def plain_two_tone_diffs(parts, piece_px, min_sep, l_weight=0.6, refine=0.0):
    """`two_tone_diffs` as first written, on the (V, V, 3) Lab arrays."""
    def dist(d):
        return np.sqrt((d[..., 0] * l_weight) ** 2 + d[..., 1] * d[..., 1] + d[..., 2] * d[..., 2])

    lab, bg = parts
    h, w = lab.shape[:2]
    sw, sh, k = w // 8, h // 8, max(1.0, 1.5 * piece_px / 8)

    def small_blur(a):
        return cv2.GaussianBlur(cv2.resize(a, (sw, sh), interpolation=cv2.INTER_AREA), (0, 0), k)

    def up(a):
        return cv2.resize(a, (w, h), interpolation=cv2.INTER_LINEAR)

    dark = (lab[..., 0] < bg[..., 0]).astype(np.float32)
    light, plain, weight, out = 1.0 - dark, dist(lab - bg), None, []
    for _ in range(2 if refine > 0 else 1):
        wd, wl = (dark, light) if weight is None else (dark * weight, light * weight)
        sd, sl = small_blur(wd), small_blur(wl)
        td = small_blur(lab * wd[..., None]) / np.maximum(sd, 1e-3)[..., None]
        tl = small_blur(lab * wl[..., None]) / np.maximum(sl, 1e-3)[..., None]
        if weight is None:
            two = (np.minimum(sd, sl) >= 0.15) & (dist(td - tl) >= min_sep)
            if not two.any():
                return (plain,) * (2 if refine > 0 else 1)
            two = up(two.astype(np.float32)) > 0.5
        near = np.minimum(dist(lab - up(td)), dist(lab - up(tl)))
        out.append(np.where(two, near, plain))
        weight = (near <= refine).astype(np.float32)
    return tuple(out)


def striped_view(n=160, seed=5, stripe=(200, 60, 40)):
    """A view of a table striped with `stripe` and grey, noise, and two tiles on it."""
    rng = np.random.default_rng(seed)
    view = np.full((n, n, 3), 120, np.uint8)
    view[(np.arange(n) // 12) % 2 == 1] = stripe
    view[30:62, 40:72] = (30, 200, 90)
    view[100:132, 90:122] = (220, 220, 220)
    return np.clip(view + rng.normal(0, 6, view.shape), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("view, refine", [
    (striped_view(), 15.0),  # two tones, refined
    (striped_view(), 0.0),  # two tones, one pass
    (striped_view(stripe=(124, 120, 118)), 15.0),  # one tone: the plain distance
])
def test_two_tone_diffs_are_the_plain_ones(view, refine):
    parts = background_lab(view, 32)
    got = two_tone_diffs(parts, 32, 30.0, refine=refine)
    want = plain_two_tone_diffs(parts, 32, 30.0, refine=refine)
    assert len(got) == len(want)
    for g, x in zip(got, want, strict=True):
        assert g.dtype == np.float32 and np.array_equal(g, x)


@pytest.mark.parametrize("view", [
    striped_view(),  # a striped table with two tiles
    striped_view(stripe=(124, 120, 118)),  # a plain one
    np.random.default_rng(9).integers(0, 256, (64, 64, 3)).astype(np.uint8),  # noise only
])
def test_marble_diff_planes_are_the_float_ones(view):
    lab, bg = background_lab(view, 16)
    dl, da, db = lab_diff_planes(*background_lab8(view, 16))
    d = lab - bg
    for got, ch in ((dl, 0), (da, 1), (db, 2)):
        assert got.dtype == np.float32 and np.array_equal(got, d[..., ch])
    assert np.array_equal(_lab_dist(d, BG_L_WEIGHT),
                          _lab_dist(np.dstack([dl, da, db]), BG_L_WEIGHT))


def test_sqrt_of_squares_is_hypot_for_every_whole_difference():
    # find_marbles' a*b* distance: every pair of uint8 differences, as np.hypot gives it
    v = np.arange(-255, 256, dtype=np.float32)
    a, b = np.meshgrid(v, v)
    s = a * a
    s += b * b
    assert np.array_equal(np.sqrt(s), np.hypot(a, b))
