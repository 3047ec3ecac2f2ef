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
