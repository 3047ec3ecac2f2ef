"""A see-through die's face (`vision.dice._interior_dev`, `DiceSettings.see_through_darker`;
session 26): the table seen through a translucent 4-6 face of light pips failed the
interior test. Samples darker than the face and not of its hue count a quarter where the
layout fits within `see_through_residual` and no like pip lies right above the face
(`_pip_above`); the die's own hue darker (its shade) still counts whole."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.dice import SETTINGS, _interior_dev, read_dice
from vision.dice_synth import make_scene

OFF = replace(SETTINGS, see_through_darker=None)


def _face(patch: tuple[int, int, int]) -> np.ndarray:
    """(100, 100, 3) uint8 BGR: a red face (50, 40, 200) whose left third is `patch`."""
    img = np.full((100, 100, 3), (50, 40, 200), np.uint8)
    img[:, :33] = patch
    return img


@pytest.mark.parametrize("patch,darker,want", [
    # a dark green patch (the table through the face): counts whole without the rule
    ((40, 90, 30), 1.0, (0.25, 0.45)),
    # ... a quarter with it
    ((40, 90, 30), 0.25, (0.06, 0.12)),
    # a darker red (the die's own shade): counts whole either way
    ((25, 20, 110), 0.25, (0.25, 0.45)),
    # brighter (glare): `glare_weight` either way
    ((200, 200, 255), 0.25, (0.07, 0.14)),
])
def test_darker_samples_not_of_the_face_hue(patch, darker, want):
    img = _face(patch)
    lin = np.eye(2) * 40.0
    bad = _interior_dev(img, np.array([50.0, 50.0]), lin, np.array([[95.0, 95.0]]),
                        np.array([4.0]), np.array([50.0, 40.0, 200.0]), 150.0, SETTINGS,
                        darker)
    assert want[0] <= bad <= want[1], bad


@pytest.mark.parametrize("seed,at,value,off", [
    (4410, (688.8, 431.1), 4, [2]),  # a trans-red 4 over a board's printed circles: a 2 before
    (4425, (896.6, 745.1), 5, []),  # a trans-red 5 over a purple disc and a "7": missed before
])
def test_fresh_see_through_faces(seed, at, value, off):
    img, _ = make_scene(seed)
    for s, want in ((SETTINGS, [value]), (OFF, off)):
        dice, _, _ = read_dice(img, s)
        side = 100.0 if seed == 4410 else 76.0
        near = [d.value for d in dice if np.linalg.norm(np.array(d.center) - at) < 0.6 * side]
        assert near == want, (s.see_through_darker, near)
