"""A pip merged with a glare spot links to none of its face's pips (it measures larger and
of another shape); a linked group of 3 or 5 is completed by it into a 4 or a 6
(`vision.dice._grown_faces`, session 22 H4)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.dice import SETTINGS, read_dice


def _red_four(glare_at: int | None = None, centre_glare: bool = False) -> np.ndarray:
    """A red 4 (80 px, white pips of 14 px) on a light table; a glare streak (22 x 9 px)
    merged with pip `glare_at` (0 top left .. 3 bottom right), or alone mid-face."""
    img = np.full((240, 240, 3), (150, 170, 190), np.uint8)
    cv2.rectangle(img, (80, 80), (160, 160), (40, 40, 170), -1)
    for k, (u, v) in enumerate([(-1, -1), (1, -1), (-1, 1), (1, 1)]):
        c = (120 + 20 * u, 120 + 20 * v)
        cv2.circle(img, c, 7, (235, 235, 235), -1)
        if k == glare_at:
            cv2.ellipse(img, ((c[0] + 7.0, c[1] + 5.0), (22.0, 9.0), 35.0), (235, 235, 235), -1)
    if centre_glare:
        cv2.ellipse(img, ((120.0, 120.0), (22.0, 9.0), 35.0), (235, 235, 235), -1)
    return cv2.GaussianBlur(img, (0, 0), 1.2)


@pytest.mark.parametrize("glare_at,centre_glare,grow,values", [
    (None, False, 2.0, [4]),  # no glare: read as before
    (0, False, 2.0, [4]),  # a corner pip merged with glare completes the 4
    (0, False, None, []),  # (off: its three pips are no face)
    (3, False, 2.0, [4]),
    (3, False, None, [2]),  # (off: two of its pips read as a 2, a wrong value)
    (None, True, 2.0, []),  # glare alone mid-face: no 5 is made of it
])
def test_a_pip_merged_with_glare_completes_its_face(glare_at, centre_glare, grow, values):
    img = _red_four(glare_at, centre_glare)
    dice, _, _ = read_dice(img, replace(SETTINGS, grow_pip_size=grow))
    assert [d.value for d in dice] == values
    for d in dice:
        assert np.linalg.norm(np.array(d.center) - [120.0, 120.0]) < 25
