"""The pips of a linked group that none of its faces took are read as one face
(`vision.dice._leftover_face`): two touching dice of one colour, a pip of the one linked
across the unseen seam to the other's pips."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.dice import SETTINGS, Face, _leftover_face, find_pips


def _photo() -> np.ndarray:
    """A white 2 (60 px) on a dark table, and one more dark dot on a white patch to its
    left (a pip of a face read already)."""
    img = np.full((240, 400, 3), 60, np.uint8)
    cv2.rectangle(img, (200, 90), (260, 150), (235, 235, 235), -1)
    for c in ((215, 135), (245, 105)):
        cv2.circle(img, c, 5, (30, 30, 30), -1)
    cv2.rectangle(img, (60, 90), (120, 150), (235, 235, 235), -1)
    cv2.circle(img, (90, 120), 5, (30, 30, 30), -1)
    return cv2.GaussianBlur(img, (0, 0), 1.0)


def _read_face(pips, i) -> Face:
    return Face(value=1, center=pips.xy[i].copy(), pips=[i], confidence=0.9,
                extent=np.full(SETTINGS.rays, 30.0), area=3600.0, lin=np.eye(2) * 30,
                colour=np.array([235.0] * 3))


@pytest.mark.parametrize("leftover,on_face,found", [
    (3, False, 2),  # the two pips no face took: a 2
    (0, False, None),  # off
    (3, True, None),  # the leftover face's centre lies on a face read: not another die
])
def test_leftover_pips_of_a_group_are_read_as_a_face(leftover, on_face, found):
    img = _photo()
    s = replace(SETTINGS, leftover_pips=leftover)
    pips, chans = find_pips(img, s)
    assert len(pips) == 3
    lone = int(np.argmin(pips.xy[:, 0]))  # the dot on the left, taken by a face
    read = _read_face(pips, lone)
    if on_face:
        read.center = np.array([230.0, 120.0])
    out = _leftover_face(np.arange(3), [read], pips, chans, s, depth=0)
    assert [f.value for f in out] == ([] if found is None else [found])
