"""Session 29 (dice-acc): a dark die's 2-3 face whose rays run on into its own side faces
(`vision.dice._side_run_mirrored`, `_squash_axis`); docs/dice.md "Session 29
(dice-acc)" and "Session 31 (dice-faces)" (the squash axis off the vertical)."""

import math
from dataclasses import replace

import numpy as np
import pytest

from vision import dice as D

S = D.SETTINGS
DIRS = D._ring_points(16)  # ray i at 22.5 i degrees; 4: straight down the image
EXP = np.full(16, 20.0)  # a square seen round: every border 20 px out (near enough)


def _rays(run, value=np.nan, base=20.0):
    ext = np.full(16, base)
    ext[list(run)] = value
    return ext


@pytest.mark.parametrize("run,value,mirrored", [
    ((2, 3, 4, 5, 6), np.nan, True),  # open rays down the image: their opposites' length
    ((3, 4, 5), 31.0, True),  # rays running on 1.55 x past their opposites, down
    ((10, 11, 12, 13, 14), np.nan, False),  # up the image: a side face's run into its top
    ((4, 5), np.nan, False),  # too short a run
    ((2, 3, 6, 7), np.nan, False),  # two runs
    ((3, 4, 5), 22.0, False),  # a pixel or two longer: not running on
])
def test_side_run_mirrored(run, value, mirrored):
    ext = _rays(run, value)
    got = D._side_run_mirrored(ext, EXP, DIRS, S)
    if not mirrored:
        assert got is None
    else:
        assert got is not None and np.allclose(got, 20.0)


def test_side_run_needs_its_opposite_rays_in_range():
    ext = _rays((2, 3, 4, 5, 6))
    ext[[10, 11, 12, 13, 14]] = 40.0  # the opposite rays run on too: nothing vouches
    assert D._side_run_mirrored(ext, EXP, DIRS, S) is None


def _cov(squash, turn_deg):
    """Mean pip second moments: a circle squashed `squash` x along the direction turned
    `turn_deg` from the image's vertical."""
    t = math.radians(turn_deg)
    short = np.array([math.sin(t), math.cos(t)])  # the squashed (short) axis
    long_ = np.array([math.cos(t), -math.sin(t)])
    return np.outer(long_, long_) * 9.0 + np.outer(short, short) * 9.0 / squash ** 2


@pytest.mark.parametrize("squash,turn,d,want", [
    (1.4, 0.0, 8.0, True),  # a top face seen from 45 degrees up
    (1.4, 20.0, 8.0, True),  # a camera rolled a little
    (1.4, -45.0, 8.0, True),  # a die turned (or seen off the centre line): 45 degrees off
    (1.4, 60.0, 8.0, False),  # squashed nearly sideways: not the slanted view's top
    (1.05, 0.0, 8.0, False),  # from above: the roll is anything
    (2.8, 0.0, 8.0, False),  # a side face seen from high up (a sliver)
    (1.4, 0.0, 5.0, False),  # pips too small to tell their shape
])
def test_squash_axis(squash, turn, d, want):
    axis = D._squash_axis(_cov(squash, turn), d, S)
    assert (axis is not None) is want
    if want:  # the short axis, pointing down the image
        t = math.radians(turn)
        assert axis[1] > 0 and abs(float(axis @ [math.sin(t), math.cos(t)])) > 0.999


def test_squash_axis_tilt_setting():
    assert D._squash_axis(_cov(1.4, 45.0), 8.0, replace(S, side_run_tilt=30.0)) is None


def test_squash_axis_pip_size_setting():
    """Pips under `side_run_pip_px` show no squash; the size is the setting's, not 6."""
    assert D._squash_axis(_cov(1.4, 0.0), 5.0, replace(S, side_run_pip_px=4.0)) is not None
    assert D._squash_axis(_cov(1.4, 0.0), 8.0, replace(S, side_run_pip_px=10.0)) is None


def test_side_run_along_a_turned_axis():
    """A run of rays 0-2 (mean: ray 1, 67.5 degrees off straight down) follows a squash
    axis turned 45 degrees its way (ray 2), not the image's vertical (session 29's only
    direction) nor an axis turned 45 degrees the other way (ray 6)."""
    ext = _rays((0, 1, 2))
    assert D._side_run_mirrored(ext, EXP, DIRS, S, DIRS[2]) is not None
    assert D._side_run_mirrored(ext, EXP, DIRS, S) is None
    assert D._side_run_mirrored(ext, EXP, DIRS, S, DIRS[6]) is None


def _read_at(seed, s, k):
    """The value read at fresh photo `seed`'s die `k` (`make_scene`), None where none is."""
    from vision.dice_eval import match
    from vision.dice_synth import make_scene

    img, truth = make_scene(seed)
    dice, _, _ = D.read_dice(img, s)
    pairs, _, _ = match(dice, truth.dice)
    got = {ti: dice[di].value for ti, di in pairs}
    return truth.dice[k]["value"], got.get(k)


@pytest.mark.parametrize("seed,k", [
    (5118, 3),  # a black 3 on wood, 50 degrees up, its rays on into its side faces
    (5187, 0),  # a black 2 on wood, 54 degrees up
])
def test_a_black_dies_top_is_read_only_with_its_side_run_mirrored(seed, k):
    want, got = _read_at(seed, S, k)
    assert got == want
    assert _read_at(seed, replace(S, side_run_pips=None), k)[1] is None


@pytest.mark.parametrize("seed,k", [
    (5524, 3),  # a black 3 whose pips' squash axis lies 30-55 degrees off the vertical
    (5587, 4),  # a black 2, the same
])
def test_a_black_top_squashed_off_the_vertical_is_read(seed, k):
    """Session 31 (dice-faces): session 29's 30 degrees left these unread."""
    want, got = _read_at(seed, S, k)
    assert got == want
    assert _read_at(seed, replace(S, side_run_tilt=30.0), k)[1] is None
