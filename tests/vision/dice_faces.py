"""Drawing and reading helpers shared by the drawn-die tests (`test_dice_big_pips`,
`test_dice_thin_mark`, `test_dice_side_one`)."""

from __future__ import annotations

import math

import cv2
import numpy as np

import vision.dice as D
from vision.dice import read_group


def turned_face(table: int, spacing: float, angle: float
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(image (240, 240, 3) uint8 BGR, centre (2,), rotation (2, 2), corners (4, 2)): a
    white face of side 2 x `spacing` turned by `angle` (radians) about the image centre on a
    grey table of level `table`."""
    img = np.full((240, 240, 3), table, np.uint8)
    c = np.array([120.0, 120.0])
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    corners = (np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * spacing) @ rot.T + c
    cv2.fillConvexPoly(img, np.round(corners).astype(np.int32), (232, 234, 236))
    return img, c, rot, corners


def read_with_codes(idx: np.ndarray, p, chans, s):
    """(`read_group`'s face or None, the reject codes it recorded in `vision.dice.DEBUG`)."""
    D.DEBUG = []
    try:
        f = read_group(idx, p, chans, s)
        return f, [c for c, _ in D.DEBUG]
    finally:
        D.DEBUG = None
