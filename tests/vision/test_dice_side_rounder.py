"""A face rounder than the camera's plane at its place, with die surface above it, is a
die's front side face (`vision.dice._rounder_side`, session 23 H6): the camera's plane
alone kept such a face as a far top (fresh 3449's false 4)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from vision.dice import SETTINGS, Face, Pips, _camera_up, _off_plane

SHAPE = (600, 800)  # (h, w) of the photo
F = 0.8 * 800  # `focal_long` x the long side
TABLE, DIE = (60.0, 120.0, 200.0), (240.0, 240.0, 240.0)


def _table_aniso(y: float, tilt_deg: float) -> float:
    """Long over short axis of a circle on the table at image row y, the camera tilted by
    tilt_deg (no roll): cos(alpha) / cos(t + alpha)."""
    alpha = math.atan((SHAPE[0] / 2 - y) / F)
    return math.cos(alpha) / math.cos(math.radians(tilt_deg) + alpha)


def _scene(tilt, odd_aniso, odd_y, die_above, sd=4.0):
    """Four tops on the table as the camera tilted `tilt` sees them (two near, one mid, one
    far) and an odd 4 at row odd_y whose pips (long sd `sd` px) are squashed `odd_aniso`
    along the vertical;
    a BGR photo of the table, die colour right above the odd face or not."""
    rows = [540, 540, 300, 60, odd_y]
    covs, faces = [], []
    for k, (value, y) in enumerate(zip([5, 4, 6, 4, 4], rows, strict=True)):
        a = odd_aniso if k == 4 else _table_aniso(y, tilt)
        covs += [np.diag([sd * sd, sd * sd / a**2])] * value
        half = 25.0
        lin = np.array([[half, 0.0], [0.0, half / a]])
        faces.append(Face(value=value, center=np.array([150.0 + 120 * k, y]),
                          pips=list(range(len(covs) - value, len(covs))), confidence=0.9,
                          extent=np.zeros(SETTINGS.rays), area=float(np.linalg.det(lin) * 4),
                          lin=lin, colour=np.array(DIE), shape_measured=True))
    n = len(covs)
    z = np.zeros(n)
    p = Pips(xy=np.zeros((n, 2)), d=np.full(n, 8.0), cov=np.array(covs),
             dark=np.ones(n, bool), level=z, face=z, contrast=z, colour=np.zeros((n, 3)),
             chan=np.zeros(n, int))
    bgr = np.empty(SHAPE + (3,), np.uint8)
    bgr[:] = TABLE
    x = 150 + 120 * 4
    if die_above:
        bgr[odd_y - 70:odd_y, x - 40:x + 40] = DIE
    return faces, p, bgr


@pytest.mark.parametrize("tilt,odd_aniso,odd_y,die_above,kept,sd", [
    (45, 1.3, 150, True, True, 2.2),  # small pips: the plane's squash would leave them
    # about 1.4 px (sd) across, rounded by pixels and blur: not asked (fresh 3528's far 3)
    (45, 1.3, 150, True, False, 4.0),  # 1.3 where the table is 1.85: a front side face, dropped
    (45, 1.3, 150, False, True, 4.0),  # ... the table above it: kept (no die surface there)
    (45, None, 150, True, True, 4.0),  # squashed as the table there: a top (a die behind), kept
    (45, 1.6, 150, True, True, 4.0),  # 1.16 x rounder only: within `side_rounder`, kept
    (55, 1.4, 200, True, False, 4.0),  # steeper: 1.4 where the table is 2.1, dropped
    (0, 1.0, 150, True, True, 4.0),  # from straight down: no camera plane fits over one shape
])
def test_a_face_rounder_than_the_table_there_is_a_side_face(tilt, odd_aniso, odd_y,
                                                            die_above, kept, sd):
    a = _table_aniso(odd_y, tilt) if odd_aniso is None else odd_aniso
    faces, p, bgr = _scene(tilt, a, odd_y, die_above, sd)
    out, warnings = _off_plane(faces, p, SETTINGS, SHAPE, bgr)
    assert any(f is faces[-1] for f in out) == kept
    assert len(out) == len(faces) - (not kept) and len(warnings) == (not kept)
    # (not asked without the photo or with the rule off: kept by the camera's plane)
    assert any(f is faces[-1] for f in _off_plane(faces, p, SETTINGS, SHAPE)[0])
    off = replace(SETTINGS, side_rounder=None)
    assert any(f is faces[-1] for f in _off_plane(faces, p, off, SHAPE, bgr)[0])


@pytest.mark.parametrize("tilt_deg,roll_deg,xy,expect", [
    (0, 0, (400, 300), (0.0, -1.0)),  # straight down: the image's up
    (0, 30, (400, 300), (-0.5, -math.sqrt(3) / 2)),  # rolled: along the rolled vertical
    (45, 0, (400, 100), (0.0, -1.0)),  # above the nadir: straight up
    (45, 0, (100, 300), None),  # left of the centre: up and to the left
])
def test_the_cameras_up_points_away_from_its_nadir(tilt_deg, roll_deg, xy, expect):
    up = _camera_up(np.array(xy, float), SHAPE, math.radians(tilt_deg), math.radians(roll_deg),
                    SETTINGS)
    assert abs(float(np.linalg.norm(up)) - 1) < 1e-9
    if expect is None:
        nadir = np.array([400.0, 300.0 + F])
        v = np.array(xy, float) - nadir
        assert np.allclose(up, v / np.linalg.norm(v)) and up[0] < 0 and up[1] < 0
    else:
        assert np.allclose(up, expect)
