"""Plane geometry shared by the renderer: homographies, rotated rectangles, overlap tests.

World coordinates are millimetres on the table plane: x to the east (right when the camera
looks straight down with yaw 0), y to the south (down), so "clockwise" reads the same in the
world and in the image. Image coordinates are pixels (x right, y down).
"""

from __future__ import annotations

import math

import numpy as np


def apply_h(h: np.ndarray, pts) -> np.ndarray:
    """Map (N, 2) points through the 3x3 homography `h`; returns (N, 2) float64."""
    p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    q = p @ h[:, :2].T + h[:, 2]
    return q[:, :2] / q[:, 2:3]


def translate(tx: float, ty: float) -> np.ndarray:
    return np.array([[1.0, 0, tx], [0, 1.0, ty], [0, 0, 1.0]])


def rot(deg: float) -> np.ndarray:
    """3x3 rotation by `deg` degrees (clockwise on screen, since y points down)."""
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0, 0, 1.0]])


def scale(sx: float, sy: float | None = None) -> np.ndarray:
    return np.diag([sx, sx if sy is None else sy, 1.0])


def rect_corners(cx: float, cy: float, w: float, h: float, angle: float) -> np.ndarray:
    """(4, 2) corners of a w x h rectangle centred at (cx, cy), rotated by `angle` degrees,
    clockwise from the rectangle's own top-left: TL, TR, BR, BL."""
    m = translate(cx, cy) @ rot(angle)
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return apply_h(m, local)


def polygons_overlap(a: np.ndarray, b: np.ndarray, gap: float = 0.0) -> bool:
    """Separating-axis test for two convex polygons ((N, 2) arrays); `gap` widens them."""
    for poly in (a, b):
        n = len(poly)
        for i in range(n):
            e = poly[(i + 1) % n] - poly[i]
            axis = np.array([-e[1], e[0]])
            axis /= np.hypot(*axis) + 1e-12
            pa, pb = a @ axis, b @ axis
            if pa.max() + gap <= pb.min() or pb.max() + gap <= pa.min():
                return False
    return True


def local_scale(h: np.ndarray, x: float, y: float) -> float:
    """Image pixels per world millimetre at world point (x, y) (geometric mean of the axes)."""
    p = apply_h(h, [[x, y], [x + 1, y], [x, y + 1]])
    ex, ey = p[1] - p[0], p[2] - p[0]
    return math.sqrt(abs(ex[0] * ey[1] - ex[1] * ey[0]))
