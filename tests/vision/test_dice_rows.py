"""A 2 or 3 read from a row of dots (`vision.dice._row_runs_on`): a like dot on the row's
line beyond its end pips, or half-way between them, makes it no die."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.dice import SETTINGS, Face, Pips, _row_runs_on


def _pips(xy, contrast=None, colour=None) -> Pips:
    n = len(xy)
    return Pips(xy=np.asarray(xy, float), d=np.full(n, 10.0),
                cov=np.tile(np.eye(2) * 6.0, (n, 1, 1)), dark=np.ones(n, bool),
                level=np.full(n, 30.0), face=np.full(n, 230.0),
                contrast=np.asarray(contrast if contrast is not None else [200.0] * n),
                colour=np.asarray(colour if colour is not None else [[230.0] * 3] * n),
                chan=np.zeros(n, int))


def _three() -> Face:  # a 3's diagonal, pips 0-2, 20 px apart along x and y
    return Face(value=3, center=np.array([100.0, 100.0]), pips=[0, 1, 2], confidence=0.9,
                extent=np.zeros(SETTINGS.rays), area=3600.0, lin=np.eye(2) * 30,
                colour=np.array([230.0] * 3))


DIAG = [(80, 80), (100, 100), (120, 120)]


@pytest.mark.parametrize("extra,contrast,colour,row", [
    ((140, 140), 200, 230, True),  # the row runs on one step beyond a corner pip
    ((90, 90), 200, 230, True),  # a dot half-way between two pips (every other dot taken)
    ((150, 150), 200, 230, False),  # 1.5 steps out: off the row (on a real 3, pips a
    # quarter side apart, a die touching it corner to corner has its nearest pip 2 steps out)
    ((140, 100), 200, 230, False),  # off the line: another face's pip
    ((140, 140), 120, 150, False),  # on the line, but in shade: a side face's pip
])
def test_a_row_of_dots_is_no_die(extra, contrast, colour, row):
    p = _pips(DIAG + [extra], contrast=[200.0] * 3 + [contrast],
              colour=[[230.0] * 3] * 3 + [[colour] * 3])
    assert _row_runs_on(_three(), p, SETTINGS) == row
    assert not _row_runs_on(_three(), p, replace(SETTINGS, row_pip_tol=None))


@pytest.mark.parametrize("on_dice,row", [
    (frozenset(range(2, 7)), False),  # the 5 read: its corner pip is a touching die's
    (frozenset(), True),  # no die read there: the row runs on (text)
    (None, False),  # not told: a 2 is not looked at one step out
])
def test_a_two_touching_a_die_corner_to_corner_is_a_die(on_dice, row):
    """A 60 px 2 (pips at (85, 85), (115, 115)) touching a 5 centred at (160, 160): one
    step beyond the 2's corner pip (the 2's pip spacing) lies the 5's corner pip, which is
    no row of dots."""
    five = [(145, 145), (175, 145), (160, 160), (145, 175), (175, 175)]
    p = _pips([(85, 85), (115, 115)] + five)
    two = Face(value=2, center=np.array([100.0, 100.0]), pips=[0, 1], confidence=0.9,
               extent=np.zeros(SETTINGS.rays), area=3600.0, lin=np.eye(2) * 30,
               colour=np.array([230.0] * 3))
    assert _row_runs_on(two, p, SETTINGS, on_dice) == row
    # a like dot half a step out runs the row on
    assert _row_runs_on(two, _pips([(85, 85), (115, 115), (130, 130)]), SETTINGS)
