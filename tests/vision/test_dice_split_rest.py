"""The pips of a split linked group that no part's face took are searched for faces of their
own (`vision.dice._split_rest`, session 18 H13): the split along weak links may cut one
die's pips apart, and its parts then read as nothing."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.dice import SETTINGS, Face, _split_rest, _subset_faces, _whole_only, find_pips

# Face coordinates (-1..1) of the pips of each value, as drawn on a 60 px white face.
_LAYOUT = {
    2: ((-0.5, 0.5), (0.5, -0.5)),
    3: ((-0.5, 0.5), (0.0, 0.0), (0.5, -0.5)),
    5: ((-0.5, -0.5), (0.5, -0.5), (0.0, 0.0), (-0.5, 0.5), (0.5, 0.5)),
}


def _photo(value: int, seed: int = 0) -> np.ndarray:
    """(240, 400, 3) uint8 BGR: a white die showing `value` (60 px, centre (230, 120)) on a
    dark table, with a little seeded noise."""
    img = np.full((240, 400, 3), 60, np.uint8)
    cv2.rectangle(img, (200, 90), (260, 150), (235, 235, 235), -1)
    for u, v in _LAYOUT[value]:
        cv2.circle(img, (round(230 + 30 * u), round(120 + 30 * v)), 5, (30, 30, 30), -1)
    img = cv2.GaussianBlur(img, (0, 0), 1.0)
    noise = np.random.default_rng(seed).normal(0, 2, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


def _face_at(x: float, y: float) -> Face:
    """A read 4 (60 px) centred at (x, y), taking no pip of the group."""
    return Face(value=4, center=np.array([x, y]), pips=[], confidence=0.9,
                extent=np.full(SETTINGS.rays, 30.0), area=3600.0, lin=np.eye(2) * 30,
                colour=np.array([235.0] * 3))


@pytest.mark.parametrize("value,rest,read_at,found", [
    (3, (3, 3, 1.0), None, [3]),  # the 3's pips, no face took them: read as a 3
    (3, None, None, []),  # off
    (3, (3, 3, 1.0), (280, 120), []),  # a read face's centre within its side: no die here
    (3, (3, 3, 1.0), (330, 120), [3]),  # ... farther than its side: read
    (3, (3, 3, 0.5), (280, 120), [3]),  # within its side, but half a side asked: read
    (2, (3, 3, 1.0), None, []),  # a 2: too few pips for the rest search
    (2, (2, 3, 1.0), None, [2]),  # ... unless asked for
    (5, (3, 3, 1.0), None, []),  # a 3 within a 5's pips is doubted as part of it: dropped
])
@pytest.mark.parametrize("seed", [0, 1])
def test_split_rest_reads_the_pips_no_face_took(value, rest, read_at, found, seed):
    s = replace(_whole_only(SETTINGS), split_rest=rest)
    pips, chans = find_pips(_photo(value, seed), s)
    assert len(pips) == value
    read = [] if read_at is None else [_face_at(*read_at)]
    out = _split_rest(np.arange(len(pips)), [], read, pips, chans, s,
                      [s.max_subsets_per_photo])
    assert [f.value for f in out] == found
    assert all(not f.vouches for f in out)  # a rest face sizes no 1 beside it


@pytest.mark.parametrize("sizes,three", [((1, 6), True), ((3, 3), True), ((1, 2), False),
                                         ((2, 2), False)])
def test_subset_faces_keeps_to_the_sizes_asked(sizes, three):
    """`_subset_faces(..., sizes)` tries subsets of sizes[0]..sizes[1] pips only."""
    s = _whole_only(SETTINGS)
    pips, chans = find_pips(_photo(3), s)
    out = _subset_faces(np.arange(len(pips)), pips, chans, s, [1000], sizes)
    assert all(sizes[0] <= len(f.pips) <= sizes[1] for f in out)
    assert (3 in [f.value for f in out]) == three


def test_split_rest_takes_no_pip_a_face_took():
    s = _whole_only(SETTINGS)
    pips, chans = find_pips(_photo(3), s)
    took = Face(value=1, center=np.array([400.0, 0.0]), pips=[0], confidence=0.9,
                extent=np.full(SETTINGS.rays, 30.0), area=3600.0, lin=np.eye(2) * 30,
                colour=np.array([235.0] * 3))
    assert _split_rest(np.arange(3), [took], [took], pips, chans, s, [100]) == []
