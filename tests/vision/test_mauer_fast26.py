"""Session 26's shortcuts in the Mauerhuepfer board and pawn stages give the numbers of the
plain computations they replaced (each reference below is the former code)."""

import types
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import mauer as M

ROOT = Path(__file__).resolve().parents[2]
BOARD = M.board_for()


def _quads(seed: int, n: int = 3000) -> np.ndarray:
    """(n, 4, 2) quads: random ones, integer ones (many with three corners on a line or
    two corners equal) and nearly flat ones."""
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n, 4, 2)) * 300
    q[n // 3:2 * n // 3] = np.round(q[n // 3:2 * n // 3] / 150)
    q[2 * n // 3:, :, 1] = q[2 * n // 3:, :, 0] * 0.5 + rng.normal(size=(n - 2 * n // 3, 4)) * 1e-7
    return q


def _old_same_turns(src, dst):
    out = np.ones(len(src), bool)
    for i in range(4):
        turn = []
        for q in (src, dst):
            a, b, c = q[:, i - 1], q[:, i], q[:, (i + 1) % 4]
            turn.append((b[:, 0] - a[:, 0]) * (c[:, 1] - b[:, 1])
                        - (b[:, 1] - a[:, 1]) * (c[:, 0] - b[:, 0]) > 0)
        out &= turn[0] == turn[1]
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])  # random, integer (collinear) and flat quads
def test_same_turns_on_contiguous_rows_is_the_strided_test(seed):
    src, dst = _quads(seed), _quads(seed + 10)
    assert np.array_equal(M._same_turns(src, dst), _old_same_turns(src, dst))


def _old_degenerate_ok(q):
    ok = np.ones(len(q), bool)
    for i in range(4):
        a, b, c = q[:, i - 1], q[:, i], q[:, (i + 1) % 4]
        u, v = b - a, c - b
        cross = u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0]
        ok &= np.abs(cross) > 1e-9 * (np.abs(u[:, 0] * v[:, 1]) + np.abs(u[:, 1] * v[:, 0])
                                      + 1e-300)
    return ok


@pytest.mark.parametrize("seed", [3, 4])
def test_square_to_quad_on_contiguous_rows_is_the_strided_one(seed):
    q = _quads(seed)
    H, ok = M._square_to_quad(q)
    assert np.array_equal(ok, _old_degenerate_ok(q))
    assert 0 < ok.sum() < len(q)  # (both kinds were tried)
    # the matrices: the closed form on the former strided columns
    x0, x1, x2, x3 = (q[:, i, 0] for i in range(4))
    y0, y1, y2, y3 = (q[:, i, 1] for i in range(4))
    dx1, dx2, sx = x1 - x2, x3 - x2, x0 - x1 + x2 - x3
    dy1, dy2, sy = y1 - y2, y3 - y2, y0 - y1 + y2 - y3
    den = np.where(ok, dx1 * dy2 - dx2 * dy1, 1.0)
    g = (sx * dy2 - dx2 * sy) / den
    h = (dx1 * sy - sx * dy1) / den
    assert np.array_equal(H[:, 0, 0], x1 - x0 + g * x1)
    assert np.array_equal(H[:, 1, 1], y3 - y0 + h * y3)
    assert np.array_equal(H[:, 2, :2], np.column_stack([g, h]))


def _old_plausible_many(Hs, corners_mm):
    c = M._apply_many(Hs, corners_mm)
    ok = np.isfinite(c).all(axis=(1, 2))
    for i in range(4):
        a, b, d = c[:, i - 1], c[:, i], c[:, (i + 1) % 4]
        u, v = d - b, a - b
        cross = u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0]
        cosv = (u * v).sum(axis=1) / np.maximum(
            np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1), 1e-9)
        ok &= (cross > 0) & (np.abs(cosv) < 0.87)
    return ok


@pytest.mark.parametrize("seed,tilt", [
    (5, 1e-3),  # ordinary perspective: most plausible
    (6, 1e-1),  # strong tilts: horizons through the board, infinite corners
])
def test_plausible_many_written_out_is_the_norm_form(seed, tilt):
    rng = np.random.default_rng(seed)
    Hs = rng.normal(size=(4000, 3, 3))
    Hs[:, :2, :2] = np.eye(2) * 3 + rng.normal(size=(4000, 2, 2))
    Hs[:, 2, :2] *= tilt
    Hs[:, 2, 2] = 1.0
    Hs[:5] = 0.0  # all corners NaN
    with np.errstate(invalid="ignore", divide="ignore"):
        want = _old_plausible_many(Hs, M.board_corners_mm(BOARD))
        assert np.array_equal(M._plausible_many(Hs, M.board_corners_mm(BOARD)), want)
    assert 0 < want.sum() < len(want)


def _old_calib_fit(Hl, size, level):
    w, h = size
    x = np.array([0.8 * max(w, h), w / 2, h / 2])
    for _ in range(30):
        r = np.array(M._calib_residual(x, Hl, size, level))
        J = np.empty((len(r), 3))
        for i, step in enumerate((1.0, 1.0, 1.0)):
            d = np.zeros(3)
            d[i] = step
            J[:, i] = (np.array(M._calib_residual(x + d, Hl, size, level)) - r) / step
        dx = np.linalg.lstsq(J.T @ J + 1e-9 * np.eye(3), -J.T @ r, rcond=None)[0]
        dx[0] = np.clip(dx[0], -0.3 * x[0], 0.3 * x[0])
        x = x + dx
        x[0] = max(x[0], 0.2 * max(w, h))
        if np.abs(dx).max() < 1e-3:
            break
    return x


@pytest.mark.parametrize("H,size", [
    ([[900.0, 30.0, 2e5], [-20.0, 850.0, 1.5e5], [0.05, 0.3, 700.0]], (1280, 960)),  # tilted
    ([[1.2, 0.1, 300.0], [-0.05, 1.0, 200.0], [1e-5, 4e-4, 1.0]], (1280, 960)),
    ([[1.0, 0.3, 100.0], [-0.2, 0.9, 400.0], [2e-4, 1e-4, 1.0]], (960, 1280)),  # rolled
])
@pytest.mark.parametrize("level", [0.0, 0.5])
def test_calib_fit_in_plain_floats_is_the_numpy_steps(H, size, level):
    assert np.array_equal(M._calib_fit(H, size, level), _old_calib_fit(H, size, level))


def _photo(name: str = "mauerhuepfer-e1-s1-0000.jpg") -> np.ndarray:
    return cv2.imread(str(ROOT / "datasets" / "scenes" / "mauerhuepfer" / name))


def test_reduced_lab_is_the_float_copys_numbers():
    img = _photo()
    f, small, lab8, lab = M._reduced(img, replace(M.SETTINGS, balanced_lazy_share=0.0))
    # (the whole image; made where read by default: test_mauer_fast29)
    from vision.preprocess import apply_gains, light_gains

    old = lab8.astype(np.float32)
    balanced = apply_gains(small, light_gains(small, M.SETTINGS.colour_balance))
    old[..., 1:] = cv2.cvtColor(balanced, cv2.COLOR_BGR2LAB)[..., 1:]
    assert lab.dtype == np.uint8 and np.array_equal(lab.astype(np.float32), old)
    assert not np.array_equal(lab, lab8)  # (the balance moved a* b*)
    pts = np.random.default_rng(7).uniform(-3, 650, (2000, 2))
    assert np.array_equal(M._bilinear(lab, pts), M._bilinear(old, pts))


class _OldCore(types.ModuleType):
    """cv2 with `inRange` as the former lowest-channel test (0/1) wherever the
    new code asks for every channel's range."""

    def __getattr__(self, name):
        return getattr(cv2, name)

    @staticmethod
    def inRange(img, lo, hi):  # noqa: N802 (cv2's name)
        low = cv2.min(cv2.min(img[..., 0], img[..., 1]), img[..., 2])
        return (low >= lo[0]).astype(np.uint8)


def _glare_scene(spot, table: int) -> tuple[np.ndarray, M.BoardView]:
    img = np.full((960, 1280, 3), table, np.uint8)
    quad = np.array([[300, 200], [1000, 220], [980, 760], [320, 740]], np.float64)
    cv2.fillConvexPoly(img, quad.astype(np.int32), (90, 120, 110))
    if spot:  # a lamp's round reflection across the board's right edge
        cv2.circle(img, (1000, 480), 70, spot, -1)
    return img, M.BoardView(corners=quad, H=np.eye(3), P=None, score=1.0)


CORE = M.SETTINGS.glare_area.glare_core


@pytest.mark.parametrize("spot,table,found", [
    ((252, 252, 252), 120, True),  # a spot at the edge on a darker table: found
    ((CORE, 250, 240), 120, True),  # ... its blue channel just at the core level
    ((250, CORE - 1, 250), 120, False),  # ... its green one just under it: no core
    (None, 245, False),  # a light table, every channel over the core level: no spot
    ((252, 252, 252), 240, False),  # the spot merged with a light table: too large
    (None, 120, False),  # nothing saturated: the early way out
])
def test_edge_glare_spots_core_by_in_range_is_the_lowest_channel_test(monkeypatch, spot, table,
                                                                      found):
    img, view = _glare_scene(spot, table)
    got = M.edge_glare_spots(img, view, M.SETTINGS)
    monkeypatch.setattr(M, "cv2", _OldCore("cv2"))
    assert got == M.edge_glare_spots(img, view, M.SETTINGS)
    assert bool(got) == found


def _old_plane_features(image_bgr, view, white, s):
    """The former per-plane loop of `spot_features` without a glare light: (n_spots, 27)."""
    sp = M.spots(BOARD)
    out = []
    for _, xy in M._plane_discs(view, BOARD, s):  # (its points: test_mauer_fast29)
        px = M._bilinear(image_bgr, xy) / white * 200.0
        px = np.clip(px, 0, 255).astype(np.uint8).reshape(len(sp), len(M._DISC), 3)
        lab = cv2.cvtColor(px, cv2.COLOR_BGR2LAB).astype(np.float32)
        L, a, b = lab[..., 0] / 255.0, (lab[..., 1] - 128) / 64.0, (lab[..., 2] - 128) / 64.0
        chroma, hue = np.hypot(a, b), np.arctan2(b, a)
        sat = chroma > 0.35
        out += [M.median(L, axis=1), M.median(a, axis=1), M.median(b, axis=1), L.std(axis=1),
                (L < 0.35).mean(axis=1), (sat & (np.abs(hue - 0.5) < 0.45)).mean(axis=1),
                (sat & (np.abs(hue - 1.45) < 0.4)).mean(axis=1),
                (sat & (np.abs(hue - 2.5) < 0.6)).mean(axis=1), chroma.mean(axis=1)]
    return np.column_stack(out).astype(np.float32)


@pytest.mark.slow
@pytest.mark.parametrize("name", [
    "mauerhuepfer-e1-s1-0000.jpg",  # committed photos, no glare light: the planes at once
    "mauerhuepfer-e1-s1-0007.jpg",
])
def test_spot_features_planes_at_once_are_the_plane_by_plane_numbers(monkeypatch, name):
    img = _photo(name)
    s = M.SETTINGS
    view = M.find_board(img, BOARD, s)
    whites = []
    wr = M.white_reference
    monkeypatch.setattr(M, "white_reference",
                        lambda *a: whites.append(wr(*a)) or whites[-1])
    feats = M.spot_features(img, view, BOARD, s)
    white, light = whites[0]
    assert light is None
    assert np.array_equal(feats[:, :27], _old_plane_features(img, view, white, s))
