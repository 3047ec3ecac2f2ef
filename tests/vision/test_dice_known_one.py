"""A 1 on a die of known size on a table of its own colour (`vision.dice._side_rays_one`):
its border shows only where its shaded side faces lie (below it along the known vertical),
the other rays meet nothing; it is read where the side faces are there, not for a dark dot
on a bare table or beside an unrelated edge."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.dice import SETTINGS, _ring_points, _side_rays_one, read_dice

_SIDE = 90.0  # die side in the (enlarged) crop, px


def _white_one(side_face: int | None, up=(1.0, 0.0), yaw=30.0, table=246, seed=0,
               pip=(0.0, 0.0)):
    """(crop BGR, settings) of an enlarged white die showing 1 on a white table (the
    die's top face `table` too: glare-washed), the vertical `up` (image direction), the die
    turned by `yaw` degrees; its side faces (seen in a slanted view: those whose edge faces
    down, -up) drawn half a side tall, of lightness `side_face` and 30 lighter (None: no
    side faces, a bare dark dot). `pip`: the dot's offset from the face centre (face
    units)."""
    rng = np.random.default_rng(seed)
    n = 360
    img = np.full((n, n), float(table), np.float32)
    c = np.array([n / 2, n / 2])
    u = np.asarray(up, float) / np.hypot(*up)
    th = np.radians(yaw)
    rot = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
    a = rot * _SIDE / 2  # the flat face (seen from above here), half sides -> px
    corners = [c + a @ q for q in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    if side_face is not None:
        shade = float(side_face)
        for k in range(4):
            p0, p1 = corners[k], corners[(k + 1) % 4]
            out = (p0 + p1) / 2 - c
            if out @ -u > 1e-6:  # an edge facing down: its side face is seen below it
                h = -u * 0.5 * _SIDE
                quad = np.array([p0, p1, p1 + h, p0 + h])
                cv2.fillPoly(img, [np.round(quad).astype(np.int32)], shade)
                shade += 30.0
    p = c + a @ np.asarray(pip, float)
    cv2.circle(img, (int(round(p[0])), int(round(p[1]))), int(0.13 * _SIDE), 20.0, -1,
               cv2.LINE_AA)
    img = cv2.GaussianBlur(img, (0, 0), 1.5) + rng.normal(0, 2, img.shape)
    bgr = cv2.merge([np.clip(img, 0, 255).astype(np.uint8)] * 3)
    s = dataclasses.replace(SETTINGS, die_side_px=_SIDE, up_dir=tuple(u), light_pips=False,
                            face_affine=tuple(float(v) for v in a.ravel()))
    return bgr, s


@pytest.mark.parametrize("up,yaw", [
    ((1.0, 0.0), 30.0),  # two side faces seen, unlike
    ((0.0, -1.0), 10.0),  # one wide side face and a sliver
    ((-0.6, -0.8), 45.0),  # the vertical askew in the image
    ((0.0, -1.0), 45.0),  # a corner down: the sideways rays leave by the side corners
    ((1.0, 0.0), 45.0),
])
def test_a_white_one_with_its_shaded_side_faces_is_read(up, yaw):
    """The side faces (grey, 150 and 180) below the top along -up: read as 1; without the
    rule the rays up meet nothing and count half: not read."""
    bgr, s = _white_one(150, up, yaw)
    assert [d.value for d in read_dice(bgr, s)[0]] == [1]
    off = dataclasses.replace(s, known_one_side_cone=None)
    assert read_dice(bgr, off)[0] == []


@pytest.mark.parametrize("up", [(1.0, 0.0), (0.0, -1.0)])
def test_a_white_one_square_on_stays_unread(up):
    """Turned 0 degrees a die shows one side face: 3 rays leave through its edge and 2 by
    its corners, 5 of 14 met, what a 2's corner pip gives whose partner sits at its top
    face's border on a table of the face's colour (fresh 1559's 0014: 6, read as 1 when
    only the side faces' rays were counted): not read (a warning, never a wrong value)."""
    bgr, s = _white_one(150, up, 0.0)
    assert read_dice(bgr, s)[0] == []


@pytest.mark.parametrize("yaw", [0.0, 30.0, 45.0])
@pytest.mark.parametrize("side_face,up,pip,why", [
    (None, (1.0, 0.0), (0.0, 0.0), "a dark dot on a bare white table"),
    (150, (-1.0, 0.0), (0.0, 0.0), "grey faces up the vertical: no die's side faces"),
    (150, (1.0, 0.0), (0.5, 0.0), "the dot off the middle of the square they bound"),
    (150, (1.0, 0.0), (0.0, 0.5), "the dot off the middle, sideways"),
])
def test_no_one_without_its_side_face_below(side_face, up, pip, why, yaw):
    bgr, s = _white_one(side_face, (1.0, 0.0), yaw=yaw, pip=pip)
    s = dataclasses.replace(s, up_dir=tuple(np.asarray(up, float)))
    assert read_dice(bgr, s)[0] == [], why


def test_side_rays_one_needs_every_side_ray_and_no_stray_border():
    """On drawn ray lengths: the side faces' rays (towards -up) in range and the rest open
    give the square; one side ray open, or one other ray meeting a border out of range,
    gives none."""
    dirs = _ring_points(16)
    a = np.eye(2) * 45.0
    s = dataclasses.replace(SETTINGS, die_side_px=_SIDE, up_dir=(0.0, -1.0))  # down: +y
    exp = 45.0 / np.abs(dirs).max(axis=1)  # the square's border along each ray
    down = dirs @ np.array([0.0, 1.0]) >= s.known_one_side_cone
    ext = np.where(dirs[:, 1] > -0.1, exp, np.nan)  # the lower half met, the upper open
    assert _side_rays_one(ext, dirs, a, s) is not None
    e = ext.copy()
    e[np.flatnonzero(down & (dirs[:, 1] > 0.9))[0]] = np.nan  # straight down
    assert _side_rays_one(e, dirs, a, s) is None
    e = ext.copy()
    e[np.flatnonzero(np.isnan(ext))[0]] = 0.4 * 45.0  # something early inside the face
    assert _side_rays_one(e, dirs, a, s) is None
    e = np.where(dirs[:, 1] > 0.95, exp, np.nan)  # too few rays met at all (1 < 3)
    assert _side_rays_one(e, dirs, a, s) is None
    # A border running on past the side faces' ends (`runs_on`): no square.
    assert _side_rays_one(ext, dirs, a, s, lambda lin, ends: True) is None


@pytest.mark.parametrize("gap,yaw_hint", [
    (0.5, "at the border of a square turned 0 degrees round the dot"),
    (0.6, "a little farther: a square 1.2 x larger"),
    (1.0, "a whole die side below the dot"),
])
def test_no_one_for_a_dot_beside_an_unrelated_edge(gap, yaw_hint):
    """A dark dot on a white table (a board's or table's straight edge below it, `gap` die
    sides down the vertical, darker beyond): its rays down meet the edge as a die's side
    face would, but the edge runs on past any square's corners: no 1."""
    for up in ((1.0, 0.0), (0.0, -1.0)):
        bgr, s = _white_one(None, up, yaw=0.0)
        n = bgr.shape[0]
        yy, xx = np.mgrid[0:n, 0:n].astype(float)
        below = (xx - n / 2) * -up[0] + (yy - n / 2) * -up[1] > gap * _SIDE
        bgr[below] = 150
        bgr = cv2.GaussianBlur(bgr, (0, 0), 1.0)
        assert read_dice(bgr, s)[0] == [], (up, yaw_hint)
