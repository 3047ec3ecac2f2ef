"""Session 29's shortcuts in the Mauerhuepfer board and pawn stages give the answers of the
plain computations they replaced (each reference below is the former code)."""

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import area
from vision import mauer as M

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "datasets" / "scenes" / "mauerhuepfer"
BOARD = M.board_for()


def _photo(name: str) -> np.ndarray:
    return cv2.imread(str(SCENES / name))


# --------------------------------------------------------------------------- camera fit


def _base_calib_fit(Hl, size, level):
    """The former `_calib_fit` (session 26): numpy steps' clip, update and test."""
    w, h = size
    x = np.array([0.8 * max(w, h), w / 2, h / 2])
    for _ in range(30):
        f, cx, cy = x.tolist()
        r0 = M._calib_residual((f, cx, cy), Hl, size, level)
        moved = [M._calib_residual(p, Hl, size, level)
                 for p in ((f + 1.0, cx, cy), (f, cx + 1.0, cy), (f, cx, cy + 1.0))]
        r = np.array(r0)
        J = np.array([[m[k] - r0[k] for m in moved] for k in range(len(r0))])
        dx = np.linalg.lstsq(J.T @ J + 1e-9 * np.eye(3), -J.T @ r, rcond=None)[0]
        dx[0] = np.clip(dx[0], -0.3 * x[0], 0.3 * x[0])
        x = x + dx
        x[0] = max(x[0], 0.2 * max(w, h))
        if np.abs(dx).max() < 1e-3:
            break
    return x


def _homographies(n: int) -> list:
    rng = np.random.default_rng(11)
    base = np.array([[900.0, 30.0, 2e5], [-20.0, 850.0, 1.5e5], [0.05, 0.3, 700.0]])
    return [(base * (1 + 0.3 * rng.normal(size=(3, 3)))).tolist() for _ in range(n)]


@pytest.mark.parametrize("size", [(1280, 960), (960, 1280)])  # landscape, portrait
@pytest.mark.parametrize("level", [0.0, 0.5])  # the fit without and with the level camera
def test_calib_fit_in_plain_floats_is_the_former_one(size, level):
    for Hl in _homographies(60):  # (most converge, some run all 30 steps)
        assert np.array_equal(M._calib_fit(Hl, size, level), _base_calib_fit(Hl, size, level))


def test_calib_fit_on_the_committed_boards_is_the_former_one():
    s = replace(M.SETTINGS, threads=False)
    for name in ("mauerhuepfer-e1-s1-0000.jpg", "mauerhuepfer-e1-s1-0005.jpg"):
        img = _photo(name)
        Hl = M.find_board(img, BOARD, s).H.tolist()
        for level in (0.0, 0.5):
            assert np.array_equal(M._calib_fit(Hl, img.shape[1::-1], level),
                                  _base_calib_fit(Hl, img.shape[1::-1], level))


# --------------------------------------------------------------------------- components


def _cores(seed: int) -> list:
    """uint8 0/1 masks: specks and discs (a few large), one with over 65535 pixels set (the
    16-bit labels' bound: `cc_stats` keeps 32-bit labels there)."""
    rng = np.random.default_rng(seed)
    out = []
    for p in (0.01, 0.2, 0.45):
        m = (rng.random((480, 640)) < p).astype(np.uint8)
        for _ in range(6):
            cv2.circle(m, (int(rng.integers(0, 640)), int(rng.integers(0, 480))),
                       int(rng.integers(5, 60)), 1, -1)
        out.append(m)
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_glare_components_are_opencvs_32_bit_ones(seed):
    for core in _cores(seed):
        want = cv2.connectedComponentsWithStats(core, connectivity=8)
        got = area.cc_stats(core)
        assert got[0] == want[0]
        for a, b in zip(got[1:], want[1:], strict=True):
            assert np.array_equal(a, b)


class _Int32Labels:
    """cv2 with `connectedComponentsWithStats` always giving 32-bit labels (the former
    calls)."""

    def __getattr__(self, name):
        return getattr(cv2, name)

    @staticmethod
    def connectedComponentsWithStats(mask, connectivity=8, ltype=cv2.CV_32S):  # noqa: N802
        return cv2.connectedComponentsWithStats(mask, connectivity=connectivity,
                                                ltype=cv2.CV_32S)


@pytest.mark.parametrize("name", [
    "mauerhuepfer-e1-s1-0027.jpg",  # a lamp's glare at the board's edge
    "mauerhuepfer-e1-s1-0002.jpg",  # the fields' own white saturated: components, no spot
])
def test_glare_spots_with_16_bit_labels_are_the_former_ones(name, monkeypatch):
    img = _photo(name)
    s = replace(M.SETTINGS, threads=False)
    view = M.find_board(img, BOARD, s)
    small = cv2.resize(img, (img.shape[1] // 2, img.shape[0] // 2),
                       interpolation=cv2.INTER_AREA)
    got = (M.edge_glare_spots(img, view, s), area.glare_spots(small, s.glare_area),
           area.merged_glare_spots(small, s.glare_area))
    low = np.full(len(BOARD.fields), 255.0)  # (every ring saturated: the board's own search)
    xy = M.apply_h(view.H, M._field_array(BOARD)[0])
    got_board = M.board_glare_spots(img, view, low, xy, s)
    import vision.dice as D
    monkeypatch.setattr(D, "cv2", _Int32Labels())
    want = (M.edge_glare_spots(img, view, s), area.glare_spots(small, s.glare_area),
            area.merged_glare_spots(small, s.glare_area))
    assert got == want
    assert M.board_glare_spots(img, view, low, xy, s) == got_board
