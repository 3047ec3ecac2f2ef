"""The dice reader's session-10 rules (`vision.dice`) on tiny drawn faces and hand-made
faces: a lone pip sized by a read die beside it (`_ones_by_kin`), rays down from a face
that meet nothing (its side faces) and two faces of one chroma lit apart (`_lit_apart`)."""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np
import pytest

from tests.vision.test_dice_top import _face
from vision.dice import (
    SETTINGS,
    _border_score,
    _components,
    _expected_extent,
    _links,
    _ones_by_kin,
    _ring_points,
    _solve,
    _top_faces,
    find_pips,
)

FOUR = [(-1, -1), (1, -1), (-1, 1), (1, 1)]


def _photo(faces, extra_dots=(), seed=0) -> np.ndarray:
    """White square faces (centre, pip spots in quarter sides) on a dark green table, seen
    from above, with black pips; `extra_dots` are black dots drawn on the table or faces."""
    rng = np.random.default_rng(seed)
    img = np.full((240, 400, 3), (60, 110, 50), np.float32)
    half, pip_r = 24, 5.5
    for (cx, cy), spots in faces:
        cv2.rectangle(img, (cx - half, cy - half), (cx + half, cy + half), (235, 235, 235), -1)
        for sx, sy in spots:
            cv2.circle(img, (int((cx + sx * half / 2) * 8), int((cy + sy * half / 2) * 8)),
                       int(pip_r * 8), (25, 25, 25), -1, lineType=cv2.LINE_AA, shift=3)
    for x, y in extra_dots:
        cv2.circle(img, (int(x * 8), int(y * 8)), int(pip_r * 8), (25, 25, 25), -1,
                   lineType=cv2.LINE_AA, shift=3)
    img = cv2.GaussianBlur(img, (0, 0), 1.0) + rng.normal(0, 3, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def _kin_ones(img, s=SETTINGS):
    p, chans = find_pips(img, s)
    faces = [f for c in _components_of(p, chans, s) for f in _solve(c, p, chans, s, [999])]
    faces = [f for f in faces if len(f.pips) >= 2]  # the general test's 1s aside
    return [tuple(np.round(g.center).astype(int)) for g in _ones_by_kin(
        faces, faces, p, chans, s)]


def _components_of(p, chans, s):
    return _components(_links(p, chans, s), np.arange(len(p)))


@pytest.mark.parametrize("one_at,extra,found", [
    ((300, 120), (), True),  # a lone 1 two die widths beside a read 4: read with its size
    ((100, 120), (), False),  # ... on the 4's own die (its side face): not tried
    ((300, 120), ((318, 124),), False),  # a like pip off the pip spots: not a 1 alone
    ((300, 120), ((316, 104),), False),  # a pip on a corner spot (a 3's, say): refused as not empty
])
def test_a_lone_pip_is_read_with_a_kin_dies_size(one_at, extra, found):
    four = ((100, 60) if one_at[0] == 100 else (180, 120), FOUR)
    img = _photo([four, (one_at, [(0, 0)])], extra)
    got = _kin_ones(img)
    assert any(abs(x - one_at[0]) < 3 and abs(y - one_at[1]) < 3 for x, y in got) == found


def test_no_kin_die_no_lone_pip_read():
    img = _photo([((300, 120), [(0, 0)])])
    assert _kin_ones(img) == []
    off = dataclasses.replace(SETTINGS, kin_one_reach=None)
    assert _kin_ones(_photo([((180, 120), FOUR), ((300, 120), [(0, 0)])]), off) == []


def _rays(up, down, side=20.0):
    """Border distances of a square face of half side 20: rays up meet it (or nothing:
    None), rays down meet nothing (None) or the border."""
    dirs = _ring_points(SETTINGS.rays)
    exp = _expected_extent(np.eye(2) * side, dirs)
    ext = exp.copy()
    ext[dirs[:, 1] < -SETTINGS.open_below_dir] = np.nan if up is None else exp[
        dirs[:, 1] < -SETTINGS.open_below_dir]
    if down is None:
        ext[dirs[:, 1] > SETTINGS.open_below_dir] = np.nan
    return ext, exp


@pytest.mark.parametrize("up,down,weight,want", [
    ("border", "border", 0.9, 1.0),  # closed all round: no open ray to weigh
    ("border", None, 0.5, 0.5 * 7 / 16 + 9 / 16),  # rays down open, counted half
    ("border", None, 0.9, 0.9 * 7 / 16 + 9 / 16),  # ... counted 0.9 below a closed top
    (None, None, 0.9, 0.5 * 14 / 16 + 2 / 16),  # open up too (a dot on a plain table)
])
def test_open_rays_down_count_more_below_a_closed_border(up, down, weight, want):
    s = dataclasses.replace(SETTINGS, open_below_weight=weight)
    ext, exp = _rays(up, down)
    good, early = _border_score(ext, exp, s)
    assert early == 0
    assert math.isclose(good, want, abs_tol=1e-9)


@pytest.mark.parametrize("colour,kept", [
    ((230.0, 230.0, 230.0), [5, 4]),  # lit alike: the top faces of two touching dice
    ((140.0, 140.0, 140.0), [5]),  # one chroma, 1.6 x darker: this die's side face
    ((50.0, 50.0, 50.0), [5, 4]),  # 4.8 x darker: a black die in front, not a side
    ((40.0, 35.0, 200.0), [5, 4]),  # another colour: another die
])
def test_one_chroma_lit_apart_is_one_dies_top_and_side(colour, kept):
    # a face in the table's plane right below the top face (its square turned by 90
    # degrees: alike in shape, as a top and its front face look at about 45 degrees)
    top = _face(5, (400, 300), [[30.0, 0.0], [0.0, 30 / 1.4]], (240.0, 240.0, 240.0))
    lower = _face(4, (400, 300 + 30 / 1.4 + 30 * math.cos(math.radians(50))),
                  [[0.0, -30.0], [30 / 1.4, 0.0]], colour)
    out, _ = _top_faces([top, lower], (600, 800), SETTINGS)
    assert [f.value for f in out] == kept


@pytest.mark.parametrize("colour", [
    (240.0, 240.0, 240.0),  # lit alike
    (150.0, 150.0, 150.0),  # one in a shadow: 1.6 x darker, yet beside, not below: two dice
])
def test_touching_dice_side_by_side_lit_apart_are_both_kept(colour):
    left = _face(5, (400, 300), [[30.0, 0.0], [0.0, 30 / 1.4]], (240.0, 240.0, 240.0))
    right = _face(4, (400 + 60 + 2, 300), [[30.0, 0.0], [0.0, 30 / 1.4]], colour)
    out, _ = _top_faces([left, right], (600, 800), SETTINGS)
    assert sorted(f.value for f in out) == [4, 5]


@pytest.mark.parametrize("any_fit,found", [
    (True, True),  # the nearest kin face is squashed otherwise: the farther 4 that fits sizes it
    (False, False),  # only the nearest kin face asked (its foreshortening does not fit)
])
def test_a_lone_pip_takes_the_nearest_kin_face_that_fits(any_fit, found):
    # session 13: a read face nearer the lone pip whose foreshortening does not fit the
    # pip's ellipse (a die turned otherwise) no longer hides a farther kin face that fits
    s = dataclasses.replace(SETTINGS, kin_one_any_fit=any_fit)
    img = _photo([((180, 120), FOUR), ((300, 120), [(0, 0)])])
    p, chans = find_pips(img, s)
    four = [f for c in _components_of(p, chans, s) for f in _solve(c, p, chans, s, [999])
            if len(f.pips) == 4]
    assert len(four) == 1
    # a hand-made kin face 80 px above the pip, squashed 2 x along y (a round pip does not
    # fit it), nearer than the 4 (120 px)
    near = dataclasses.replace(four[0], center=np.array([300.0, 40.0]),
                               lin=four[0].lin @ np.diag([1.0, 0.5]),
                               area=four[0].area / 2)
    got = _ones_by_kin([near, four[0]], [near, four[0]], p, chans, s)
    at = [tuple(np.round(g.center).astype(int)) for g in got]
    assert any(abs(x - 300) < 3 and abs(y - 120) < 3 for x, y in at) == found
