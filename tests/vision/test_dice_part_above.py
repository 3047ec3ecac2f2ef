"""A top face of 2-3 pips parted by a split from its side faces' pips below it reads with the
rays-down rule (`vision.dice._part_above_rest`, session 23 H1): seen slanted, a dark die's
rays down from its top face run on over its side faces (of the die's colour, no border
between), which the rule allows for a whole linked group only; a part whose group's other
pips all lie below it, clear of it, is such a top face."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.dice import SETTINGS, Pips, _part_above_rest, read_dice

DICE = Path(__file__).resolve().parents[2] / "datasets" / "dice"


def _pips(xy) -> Pips:
    xy = np.asarray(xy, float)
    n = len(xy)
    z = np.zeros(n)
    return Pips(xy=xy, d=np.full(n, 6.0), cov=np.tile(np.eye(2) * 9.0, (n, 1, 1)),
                dark=np.zeros(n, bool), level=z, face=z, contrast=z,
                colour=np.zeros((n, 3)), chan=np.zeros(n, int))


TOP2 = [(100.0, 100.0), (130.0, 92.0)]  # a 2's diagonal (span 31 px)


@pytest.mark.parametrize("rest,part,expected", [
    ([(115, 125), (108, 128), (101, 131)], [0, 1], True),  # a side face's row below it
    ([(115, 160)], [0, 1], True),  # one pip straight down, far
    ([(150, 140)], [0, 1], True),  # down and aside, within 60 degrees of straight down
    ([(170, 100)], [0, 1], False),  # beside it: a touching die's or its own face's pip
    ([(115, 60)], [0, 1], False),  # above it
    ([(115, 100)], [0, 1], False),  # at its centre: the 5 whose corners the part holds
    ([(115, 110)], [0, 1], False),  # below but nearer than 0.6 x its span (10 < 18.6 px)
    ([(115, 125)], [0], False),  # a lone pip: not a part of 2-3
    ([], [0, 1], False),  # no rest: the whole group
])
def test_a_part_above_the_rest_of_its_group(rest, part, expected):
    p = _pips(TOP2 + rest)
    members = np.arange(len(p.xy))
    assert _part_above_rest(members, np.array(part), p, SETTINGS) == expected
    assert not _part_above_rest(members, np.array(part), p,
                                replace(SETTINGS, part_below_cos=None))


@pytest.mark.parametrize("on,read", [(True, {2: 2}), (False, {})])
def test_a_black_dies_top_2_above_its_side_faces(on, read):
    """datasets/dice dice-005 (black dice on a white table, 56 degrees): the 2s at (410, 182)
    and (176, 237) are linked with their front faces' pips; the split parts them, and each
    top 2 reads only with the rays down allowed (code 12 without: 0.69-0.75 of the rays)."""
    img = cv2.imread(str(DICE / "dice-005.jpg"))
    s = SETTINGS if on else replace(SETTINGS, part_below_cos=None, side_run_pips=None)
    # (session 29: `side_run_pips`, a black top's run of rays mirrored, reads them too)
    dice, _, _ = read_dice(img, s)
    found = {}
    for x, y in [(409.9, 181.7), (176.0, 237.1)]:
        near = [d for d in dice if np.hypot(d.center[0] - x, d.center[1] - y) < 0.6 * 45]
        for d in near:
            found[d.value] = found.get(d.value, 0) + 1
    assert found == read
