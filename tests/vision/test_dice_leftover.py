"""The pips of a linked group that none of its faces took are read as one face
(`vision.dice._leftover_face`): two touching dice of one colour, a pip of the one linked
across the unseen seam to the other's pips."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision import dice
from vision.dice import SETTINGS, Face, _components, _leftover_face, _links, _solve, find_pips


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


def _six_and_two() -> np.ndarray:
    """A white 6 and a white 2 (60 px each) touching edge to edge on a dark table: one
    white patch, no seam seen."""
    img = np.full((240, 400, 3), 60, np.uint8)
    cv2.rectangle(img, (100, 90), (220, 150), (235, 235, 235), -1)
    for c in ((115, 105), (115, 120), (115, 135), (145, 105), (145, 120), (145, 135),
              (175, 135), (205, 105)):
        cv2.circle(img, c, 5, (30, 30, 30), -1)
    return cv2.GaussianBlur(img, (0, 0), 1.0)


@pytest.mark.parametrize("leftover,values", [(3, [6, 2]), (0, [6])])
def test_solve_reads_the_leftover_pips_of_its_group(monkeypatch, leftover, values):
    """Through `_solve` (its wiring): one linked group of 8 pips, searched by subsets; the
    search made to take the 6 only (as on dice-006, where the 2's pips lay in two parts),
    the 2's two pips are left and read as a face."""
    s = replace(SETTINGS, leftover_pips=leftover)
    pips, chans = find_pips(_six_and_two(), s)
    group = np.arange(len(pips))
    assert len(group) == 8 and len(_components(_links(pips, chans, s), group)) == 1
    subset_faces = dice._subset_faces
    monkeypatch.setattr(dice, "_subset_faces", lambda *a: [
        f for f in subset_faces(*a) if f.value == 6])
    out = _solve(group, pips, chans, s, [s.max_subsets_per_photo])
    assert [f.value for f in out] == values
