"""Troetofanten readings that are no card of their own: a rare card read unsure
(`read.unsure_rare`) and a back found by its look or shape alone lying across a back read
surely (`read.crosswise_on_back`), a design found in fewer regions than the backs'
(`read.one_design`)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.cards.helpers import card
from vision.cards.read import READ, crosswise_on_back, one_design, unsure_rare

W = 40.0  # card width, px
C = (100.0, 100.0)  # the card's centre (`helpers.card`: `W` px wide)


@pytest.mark.parametrize("label,conf,kept", [
    ("mouse", 0.45, False),  # a box holds 3: a blob read as one
    ("mouse", 0.6, True),  # read surely enough
    ("mousetrap", 0.5, False),  # a box holds 1
    ("mousetrap", 0.95, True),
    ("tamer", 0.45, True),  # a box holds 5: not rare, left to the other checks
    ("elephant-3", 0.4, True),  # an unclear number splits an elephant's confidence
])
def test_unsure_rare(label, conf, kept):
    got, warnings = unsure_rare([card(label, C, conf, width=W)], READ)
    assert (len(got) == 1) is kept
    assert (len(warnings) == 0) is kept
    if not kept:
        assert f"{label} at (100, 100), not counted" in warnings[0]


@pytest.mark.parametrize("offset,angle,width,sure,want", [
    ((0.0, 20.0), 90.0, 0.6 * W, 0.9, True),  # across the back, within it: its pattern
    ((0.0, 20.0), 270.0, 0.6 * W, 0.9, True),  # (a half turn more is the same)
    ((0.0, 20.0), 0.0, 0.6 * W, 0.9, False),  # facing the same way: a spread pile's card
    ((0.0, 80.0), 90.0, 0.6 * W, 0.9, False),  # centre off the back: a card beside it
    ((0.0, 20.0), 90.0, 0.6 * W, 0.6, False),  # the back itself found by look alone: unsure
    ((0.0, 0.0), 90.0, W, 0.9, False),  # a real card of its size lying across it: its
    #   ends stick out beyond both long sides (0.65 of it inside)
    ((0.0, 0.0), 90.0, 0.75 * W, 0.9, True),  # narrower than the back under it: no card
    #   of this box (its pattern read across)
])
def test_crosswise_on_back(offset, angle, width, sure, want):
    back = card("back", C, sure, width=W)
    c = np.array([100.0, 100.0]) + offset
    assert crosswise_on_back(c, angle, width, [back], READ) is want


def region(name: str, x: float) -> tuple[np.ndarray, float, float, str]:
    """A card-shaped region found by a design: (centre, angle, width, its name)."""
    return (np.array([x, 100.0]), 0.0, W, name)


@pytest.mark.parametrize("found,want,designs_kept", [
    # (each design's cards by x position, its regions) -> the cards kept, by name
    ([([0, 100, 200, 300], 4), ([500], 1)], ["a"] * 4, "a"),  # the lone other design: no
    #   card (a notepad, a box)
    ([([0, 100, 200], 3), ([500, 600], 2)], ["a"] * 3 + ["b"] * 2, "ab"),  # 3 vs 2
    #   regions: nothing says which is the back, both stay
    ([([0], 1), ([500], 1)], ["a", "b"], "ab"),  # one region each: both stay
    ([([0, 100], 2), ([0, 100, 200], 3)], ["a", "a", "b"], "ab"),  # the second design
    #   found the first one's cards and one more: each card once, none lost
    ([([0, 100, 200], 3), ([0, 100], 2)], ["a", "a", "a"], "ab"),  # the other order
])
def test_one_design(found, want, designs_kept):
    designs = [([region(name, x) for x in xs], [f"mask-{name}"], n, [f"end-{name}"])
               for name, (xs, n) in zip("ab", found, strict=True)]
    masks: list = []
    ends: list = []
    got = one_design(designs, masks, True, ends)
    assert [r[3] for r in got] == want
    assert masks == [f"mask-{n}" for n in designs_kept]
    assert ends == [f"end-{n}" for n in designs_kept]  # (not a left-out design's)
    assert len(one_design(designs, [], False)) == len({x for xs, _ in found for x in xs})
