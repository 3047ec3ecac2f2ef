"""Session 31 (dice-faces): a dark face's border rays stop at `ray_edge_dark` x its
brightest channel (`vision.dice._edge_threshold`); docs/dice.md "Session 31 (dice-faces)"."""

from dataclasses import replace

import numpy as np
import pytest

from vision import dice as D

S = D.SETTINGS


@pytest.mark.parametrize("colour,contrast,want", [
    ((15.0, 22.0, 17.0), 120.0, 16.0),  # a black face: 0.6 x 22 = 13.2, floored at 16
    ((30.0, 40.0, 35.0), 120.0, 24.0),  # a dark grey face: 0.6 x 40 (contrast rule: 30)
    ((32.0, 78.0, 26.0), 100.0, 25.0),  # a dark green: the contrast rule is the lower
    ((200.0, 210.0, 205.0), 120.0, 30.0),  # a white face: the contrast rule (0.25 x 120)
])
def test_edge_threshold(colour, contrast, want):
    assert D._edge_threshold(np.array(colour), contrast, S) == pytest.approx(want)


def test_edge_threshold_off():
    off = replace(S, ray_edge_dark=None)
    assert D._edge_threshold(np.array([15.0, 22.0, 17.0]), 120.0, off) == pytest.approx(30.0)


def test_a_dark_faces_ray_stops_at_its_shaded_side():
    """A black face (level 20) whose side face is shaded 20 levels lighter from 30 px out:
    the rays stop there with the dark rule, run on past it with the contrast rule."""
    img = np.full((101, 101, 3), 20, np.uint8)
    yy, xx = np.mgrid[:101, :101]
    img[np.hypot(xx - 50, yy - 50) >= 30] = 40
    centre = np.array([50.0, 50.0])
    colour = np.array([20.0, 20.0, 20.0])
    ext, _ = D._ray_extent(img, centre, np.empty((0, 2)), np.empty(0), colour, 120.0, 45, S)
    assert np.all(np.abs(ext - 30) <= 1.5)
    off = replace(S, ray_edge_dark=None)
    ext, _ = D._ray_extent(img, centre, np.empty((0, 2)), np.empty(0), colour, 120.0, 45, off)
    assert np.isnan(ext).all()


def test_a_black_3_read_only_with_the_dark_rule():
    """Fresh 5575's die 4, a black 3 (dev seed 5500's photo 75)."""
    from vision.dice_eval import match
    from vision.dice_synth import make_scene

    img, truth = make_scene(5575)

    def read(s):
        dice, _, _ = D.read_dice(img, s)
        pairs, _, _ = match(dice, truth.dice)
        return {ti: dice[di].value for ti, di in pairs}.get(4)

    assert truth.dice[4]["value"] == 3
    assert read(S) == 3
    assert read(replace(S, ray_edge_dark=None)) is None
