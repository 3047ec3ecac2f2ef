"""Session 28 (speed): the refine's full size blobs on a coarser threshold ladder
(`MauerSettings.refine_blob_step`), with the plain ladder's refine where the coarse fit
does not convince (`_refined`)."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from vision import mauer as M
from vision.image_io import load_photo

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "datasets" / "scenes" / "mauerhuepfer"
BOARD = M.board_for()


@pytest.mark.parametrize("step,blob_step,expect", [
    (0, 4, 4),  # off: the settings as they are
    (4, 4, 4),  # the plain step: the settings as they are
    (8, 4, 8),  # the default: the refine's ladder twice as coarse
    (8, 2, 8),  # a finer plain ladder (the fine retry's) still refines at the coarse step
])
def test_refining_settings(step, blob_step, expect):
    s = replace(M.SETTINGS, refine_blob_step=step, blob_step=blob_step)
    r = M._refining(s)
    assert r.blob_step == expect
    assert (r is s) == (expect == blob_step)  # (no copy where nothing changes)
    assert replace(r, blob_step=blob_step) == s  # (nothing else changed)


@pytest.mark.parametrize("coarse_score,calls", [
    (0.95, [True]),  # the coarse fit convinces: kept, no second refine
    (0.10, [True, False]),  # it does not: refined once more on the plain ladder
    (None, [True, False]),  # no coarse fit at all: the plain ladder's refine decides
])
def test_refined_falls_back_to_the_plain_ladder(monkeypatch, coarse_score, calls):
    seen = []

    def refine(view, board, s, maps, lab, f, blobs=None, glares=(), coarse=True):
        seen.append(coarse)
        if coarse:
            return None if coarse_score is None else replace(view, score=coarse_score)
        return replace(view, score=0.5)

    monkeypatch.setattr(M, "refine_view", refine)
    view = M.BoardView(np.zeros((4, 2)), np.eye(3), None, 0.0)
    out = M._refined(view, BOARD, M.SETTINGS, None, None, 1.0, None, ())
    assert seen == calls
    assert out.score == (coarse_score if calls == [True] else 0.5)


def test_refined_plain_step_is_one_refine(monkeypatch):
    seen = []
    monkeypatch.setattr(M, "refine_view", lambda *a, **k: seen.append(k) or None)
    view = M.BoardView(np.zeros((4, 2)), np.eye(3), None, 0.0)
    s = replace(M.SETTINGS, refine_blob_step=0)
    assert M._refined(view, BOARD, s, None, None, 1.0, None, ()) is None
    assert seen == [{}]  # (one refine, as before session 28)


@pytest.mark.parametrize("name", [
    "mauerhuepfer-e1-s1-0000.jpg",  # an ordinary photo: the coarse refine convinces
    "mauerhuepfer-e1-s1-0012.jpg",  # a large board (the refine's crop is the largest)
])
def test_coarse_refine_finds_the_plain_ones_board(name):
    image = load_photo(SCENES / name).image
    plain = M.find_board(image, BOARD, replace(M.SETTINGS, refine_blob_step=0, threads=False))
    coarse = M.find_board(image, BOARD, replace(M.SETTINGS, threads=False))
    assert plain is not None and coarse is not None
    assert coarse.score >= M.SETTINGS.quick_accept_score
    # the same board within a fraction of a pixel at every corner
    assert np.abs(coarse.corners - plain.corners).max() < 1.0
