"""A weak Troetofanten key point read surely as a face-up card lying only on face-up cards
read of other kinds (`ReadSettings.weak_atop`, `on_other_kinds`; session 15, set by the
taught reader; session 17, H9: the untaught reader's too): a card's own other corner index
or drawing reads as its own kind, so such a reading is a card lying on top of them, not
dropped as on a card read."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.vision.cards.test_up_on_backs import FIRST, WEAK, W, stub_reader
from vision.cards.geometry import SPECS
from vision.cards.pieces import CardPiece
from vision.cards.read import READ, card_frame, on_other_kinds

ASPECT = SPECS["troetofanten"].aspect


@pytest.mark.parametrize("first,weak,atop,want", [
    ("tamer", {"elephant-3": 0.95}, 0.8, ["tamer", "elephant-3"]),  # another kind: on top
    ("tamer", {"elephant-3": 0.95}, 1.01, ["tamer"]),  # off: dropped, as before session 15
    ("tamer", {"elephant-3": 0.85}, None, ["tamer", "elephant-3"]),  # the untaught reader's
    #   own bar since session 17 (H9): on top
    ("tamer", {"elephant-3": 0.7, "elephant-2": 0.25}, None, ["tamer"]),  # under it: the
    #   tamer's drawing or another corner, dropped
    ("mouse", {"lasso": 0.98}, None, ["mouse", "lasso"]),  # a whole lasso on a mouse
    ("lasso", {"lasso": 0.98}, None, ["lasso"]),  # the lasso's own other corner
    ("elephant-2", {"elephant-3": 0.95}, 0.8, ["elephant-2"]),  # its own kind: the card's
    #                                                             other corner or drawing
    ("tamer", {"elephant-3": 0.5, "mouse": 0.45}, 0.8, ["tamer"]),  # read under the bar
])
def test_a_weak_card_of_another_kind_on_a_card_read_lies_on_top(first, weak, atop, want):
    got = stub_reader([{first: 0.95}, weak], READ if atop is None else
                      replace(READ, weak_atop=atop), FIRST, WEAK)[0]
    assert [p.label for p in got] == want


def piece(label: str, key) -> CardPiece:
    key = np.asarray(key, float)
    frame = card_frame(key + np.array([0.45, 0.6 * ASPECT]) * W, 0.0, W, ASPECT)
    return CardPiece(label, 0.9, key, frame, 0.0, W)


@pytest.mark.parametrize("under,want", [
    (["tamer"], True),  # on a card of another kind only
    (["tamer", "elephant-1"], False),  # and on one of its own kind: maybe that card's
    ([], False),  # on no card at all: not this rule's
])
def test_on_other_kinds(under, want):
    pieces = [piece(lab, FIRST + [3.0 * k, 0.0]) for k, lab in enumerate(under)]
    weak = piece("elephant-3", WEAK)
    assert on_other_kinds(weak.key, 0.0, weak.frame, weak.label, pieces) == want
