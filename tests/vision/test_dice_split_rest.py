"""A linked group whose split left pips unread is searched whole for 4-6 pip faces
(`vision.dice._split_rest`, session 22 H4): at a slant a top face's small squashed pips link
weakly, and the split cut one of a 6's pips off with its side face's pips. Rows of text dots
(colons) are not taken as a 6 (`_column_runs_on`)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision import dice
from vision.dice import SETTINGS, Face, _column_runs_on, _split_rest, _whole_only, find_pips
from vision.dice_synth import make_scene


def _six(extra=(), squash: float = 1.0) -> np.ndarray:
    """A white 6 (60 px wide, `squash` x lower) with dark pips on a dark table, and dark
    dots on white at the face coordinates `extra` (u, v in [-1, 1] units of the face)."""
    img = np.full((240, 320, 3), 60, np.uint8)
    c = np.array([160.0, 120.0])
    half = np.array([30.0, 30.0 / squash])
    cv2.rectangle(img, tuple(np.round(c - half).astype(int)), tuple(np.round(c + half).astype(int)),
                  (235, 235, 235), -1)
    pts = [(u, v) for u in (-0.5, 0.5) for v in (-0.5, 0.0, 0.5)] + list(extra)
    for u, v in pts:
        xy = c + np.array([u, v]) * half
        if abs(u) > 0.9 or abs(v) > 0.9:  # a dot beyond the face: on white paper round it
            cv2.circle(img, tuple(np.round(xy).astype(int)), 10, (235, 235, 235), -1)
        cv2.ellipse(img, (tuple(xy), (10.0, 10.0 / squash), 0.0), (30, 30, 30), -1)
    return cv2.GaussianBlur(img, (0, 0), 1.0)


@pytest.mark.parametrize("squash,budget,values", [
    (1.0, 200, [6]),  # the whole group's 6, found once the split read nothing
    (1.6, 200, [6]),  # a top face seen slanted
    (1.0, 0, []),  # no budget left in the photo: not searched
])
def test_a_split_group_is_searched_whole(squash, budget, values):
    s = _whole_only(SETTINGS)
    pips, chans = find_pips(_six(squash=squash), s)
    group = np.nonzero(pips.d < 20)[0]  # (the squashed face itself is a light blob too)
    assert len(group) == 6
    out: list[Face] = []  # the split's faces: none
    _split_rest([(group, s, out)], pips, chans, [budget])
    assert [f.value for f in out] == values


@pytest.mark.parametrize("min_pips,values", [(4, [6]), (7, [])])
def test_only_faces_of_split_subset_min_pips_are_taken(min_pips, values):
    s = replace(_whole_only(SETTINGS), split_subset_min=min_pips)
    pips, chans = find_pips(_six(), s)
    out: list[Face] = []
    _split_rest([(np.arange(len(pips)), s, out)], pips, chans, [200])
    assert [f.value for f in out] == values


@pytest.mark.parametrize("extra,runs_on", [
    ([], False),
    ([(0.5, 1.0)], True),  # a column of three run on a step: a grid of dots
    ([(-0.5, -1.0)], True),
    ([(1.5, 0.0)], False),  # a touching die's pip lies half a side beyond the border
    ([(0.0, 1.5)], False),
])
def test_a_six_whose_columns_run_on_is_a_grid_of_dots(extra, runs_on):
    pips, chans = find_pips(_six(extra), SETTINGS)
    assert len(pips) == 6 + len(extra)
    on_face = np.linalg.norm(pips.xy - [160.0, 120.0], axis=1) < 25
    six = dice.read_group(np.nonzero(on_face)[0], pips, chans, SETTINGS)
    assert six is not None and six.value == 6
    assert _column_runs_on(six, pips, SETTINGS) is runs_on
    assert not _column_runs_on(six, pips, replace(SETTINGS, row_pip_tol=None))


@pytest.mark.slow
@pytest.mark.parametrize("seed,at,value", [
    (3124, (1104.0, 354.0), 6),  # a green 6 at 42 degrees: its side 2 was read before
    (3151, (795.0, 404.0), 6),  # a blue 6 at 35 degrees: its side 4 was read before
])
def test_slanted_sixes_of_generated_photos(seed, at, value):
    img, _ = make_scene(seed)
    for split in (True, False):
        got, _, _ = dice.read_dice(img, replace(SETTINGS, split_subsets=split))
        near = [d.value for d in got if np.linalg.norm(np.array(d.center) - at) < 30]
        assert (near == [value]) is split
