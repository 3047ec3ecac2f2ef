"""`read.counted_weak` (`ReadSettings.weak_kind`, session 14): a weak Troetofanten key point
read as an animal whose kind is sure but whose number splits (its confidence under
`weak_up_confidence`) is counted as its likeliest number, warned about, where it lies on no
face-up card read; the far look's choice is made as without such readings."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.vision.cards.test_counted_doubts import ASPECT, W, card
from tests.vision.cards.test_up_on_backs import stub_reader
from vision.cards.read import READ, counted_weak

KEPT = [card("elephant-3", (100.0, 100.0)), card("back", (200.0, 100.0))]


@pytest.mark.parametrize("centre,counted", [
    ((320.0, 100.0), True),  # alone on the table: counted
    ((110.0, 110.0), False),  # its centre on a face-up card read: that card's drawing
    ((215.0, 125.0), True),  # on a back read: a face-up card on a pile (`up_on_backs`)
    ((100.0 + 5.0, 100.0 + 1.2 * ASPECT * W), True),  # just below a face-up card read
])
def test_counted_weak_off_the_face_up_cards_read(centre, counted):
    weak = card("elephant-4", centre, conf=0.6)
    got = counted_weak([weak], KEPT, READ)
    assert got[:2] == KEPT  # the readings kept stay, first
    assert len(got) == 2 + counted
    if counted:
        assert got[2].faint and got[2].label == "elephant-4" and not weak.faint


def test_counted_weak_on_a_back_without_up_on_backs():
    weak = card("elephant-4", (215.0, 125.0), conf=0.6)
    assert counted_weak([weak], KEPT, replace(READ, up_on_backs=False)) == KEPT


def test_counted_weak_one_card_once():
    """Two weak readings of one card (key points a few px apart): counted once, the
    first; the list given is not changed."""
    a, b = card("elephant-1", (320.0, 100.0), 0.6), card("elephant-2", (322.0, 101.0), 0.5)
    kept = list(KEPT)
    got = counted_weak([a, b], kept, READ)
    assert [p.label for p in got] == ["elephant-3", "back", "elephant-1"] and kept == KEPT


# ------------------------------------------------- through `read_pieces` (a stub classifier)
STRONG, WEAK = np.array([200.0, 150.0]), np.array([400.0, 150.0])  # the weak key point
#   lies 4 widths off the strong one's card


def split(kconf: float, kind: str = "elephant", bg: float = 0.02) -> dict[str, float]:
    """A weak key point's reading: `kind` takes `kconf` = its share x (1 - P(background)),
    its number split 0.6 / 0.4 between 3 and 4 (confidence 0.6 x kconf, under
    `weak_up_confidence`), a lasso the rest of the pieces' share."""
    return {f"{kind}-3": 0.6 * kconf, f"{kind}-4": 0.4 * kconf, "lasso": 1.0 - bg - kconf}


BARE = replace(READ, table_share=1.5)  # (no `on_bare_table`: the stub's table is no photo)


def read_weak(weak: dict[str, float], settings=BARE):
    """`read_pieces` of a strong key point read as a tamer (0.95) and a weak one off its
    card read as `weak` (their poses, the backs' look, the second, paper and far looks
    stubbed)."""
    return stub_reader([{"tamer": 0.95}, weak], settings, STRONG, WEAK, sides=25)


@pytest.mark.parametrize("weak,settings,want", [
    (split(READ.weak_kind + 0.02), BARE, ["tamer", "elephant-3"]),  # its kind sure: counted
    (split(READ.weak_kind - 0.02), BARE, ["tamer"]),  # just under: left out
    (split(READ.weak_kind + 0.02, "tootophant"), BARE, ["tamer", "tootophant-3"]),
    (split(0.99), replace(BARE, weak_kind=1.01), ["tamer"]),  # over 1: never counted
    ({"lasso": 0.7, "mouse": 0.28}, BARE, ["tamer"]),  # a kind without a number: not so
])
def test_read_pieces_counts_a_weak_key_point_sure_of_its_kind(weak, settings, want):
    pieces, warnings = read_weak(weak, settings)
    assert [p.label for p in pieces] == want
    counted = len(want) == 2
    assert [p.faint for p in pieces] == [False] + [True] * counted
    unclear = [w for w in warnings if "its corner number is unclear, 3 or 4" in w]
    assert len(unclear) == counted


def test_read_pieces_a_weak_key_point_read_surely_is_not_faint():
    """Read with `weak_up_confidence` (its number clear too): kept as before, not faint,
    no number warning."""
    pieces, warnings = read_weak({"elephant-3": 0.97, "elephant-4": 0.01})
    assert [(p.label, p.faint) for p in pieces] == [("tamer", False), ("elephant-3", False)]
    assert not any("elephant" in w for w in warnings)


def test_far_look_chooses_as_without_the_faint_readings():
    """The far look is taken when it reads more pieces than the first look; a faint
    reading of either look does not count (the choice stays as before `weak_kind`)."""
    from tests.vision.cards.helpers import card as small
    from tests.vision.cards.test_far_look import Reader

    class Keeping(Reader):  # (the stand-in's far look keeping its readings' `faint`)
        def read(self, image, game, within=None, keys=None):
            into, warnings = super().read(image, game, within, keys)
            return [replace(q, faint=p.faint) for q, p in zip(into, self.far, strict=True)
                    ], warnings

    row = [(100 + 40 * k, 200) for k in range(5)]
    first = [small("elephant-1", c, width=30) for c in row[:3]]
    far = [small("elephant-2", c, width=30) for c in row[:4]]
    assert Keeping(far).look(first) is not None  # 4 > 3: the far look's
    faint = replace(small("elephant-5", row[4], width=30), faint=True)
    assert Keeping(far).look(first + [faint]) is not None  # still 4 > 3
    assert Keeping(far[:3] + [replace(far[3], faint=True)]).look(first) is None  # 3 <= 3
