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


@pytest.mark.parametrize("up,yaw", [((1.0, 0.0), 30.0), ((0.0, -1.0), 10.0),
                                    ((-0.6, -0.8), 45.0)])
def test_a_white_one_with_its_shaded_side_faces_is_read(up, yaw):
    """The side faces (grey, 150 and 180) below the top along -up: read as 1; without the
    rule the rays up meet nothing and count half: not read."""
    bgr, s = _white_one(150, up, yaw)
    assert [d.value for d in read_dice(bgr, s)[0]] == [1]
    off = dataclasses.replace(s, known_one_side_cone=None)
    assert read_dice(bgr, off)[0] == []


@pytest.mark.parametrize("side_face,up,pip,why", [
    (None, (1.0, 0.0), (0.0, 0.0), "a dark dot on a bare white table"),
    (150, (-1.0, 0.0), (0.0, 0.0), "grey faces up the vertical: no die's side faces"),
    (150, (1.0, 0.0), (0.5, 0.0), "the dot off the middle of the square they bound"),
])
def test_no_one_without_its_side_face_below(side_face, up, pip, why):
    bgr, s = _white_one(side_face, (1.0, 0.0), pip=pip)
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
    e[np.flatnonzero(down)[0]] = np.nan
    assert _side_rays_one(e, dirs, a, s) is None
    e = ext.copy()
    e[np.flatnonzero(np.isnan(ext))[0]] = 0.4 * 45.0  # something early inside the face
    assert _side_rays_one(e, dirs, a, s) is None
    e = np.where(dirs[:, 1] > 0.5, exp, np.nan)  # too few rays met at all
    assert _side_rays_one(e, dirs, a, s) is None
