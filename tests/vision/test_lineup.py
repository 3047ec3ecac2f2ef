"""Magic Rabbit's line (`vision.cards.lineup`): a tile's number over both kinds."""

from __future__ import annotations

import numpy as np
import pytest

from vision.cards.lineup import distinct_numbers, number_probs, settle_kinds
from vision.cards.pieces import CardPiece


def tile(label, x, y, probs, w=50.0):
    frame = np.array([[x - w / 2, y - w / 2], [x + w / 2, y - w / 2], [x + w / 2, y + w / 2],
                      [x - w / 2, y + w / 2]], float)
    return CardPiece(label, 0.9, np.array([x, y], float), frame, 0.0, w, probs)


@pytest.mark.parametrize("probs, number", [
    ({"hat-9": 0.89, "rabbit-1": 0.0}, 9),  # read as a hat 9: its number stays
    ({"rabbit-2": 0.3, "hat-4": 0.5}, 4),  # the number likeliest over both kinds
    ({"rabbit-2": 0.3, "hat-4": 0.2}, 2),
    ({"hat-3": 0.4, "rabbit-3": 0.4, "hat-5": 0.6}, 3),  # 0.8 for 3 against 0.6
])
def test_number_probs_sums_both_kinds(probs, number):
    assert int(np.argmax(number_probs(probs))) + 1 == number


def test_a_hat_below_a_hat_becomes_the_rabbit_of_its_number():
    hat = tile("hat-2", 100, 100, {"hat-2": 0.99})
    below = tile("hat-9", 100, 160, {"hat-9": 0.89, "hat-1": 0.01})  # no rabbit-n share
    out, warnings = settle_kinds([hat, below])
    assert [p.label for p in out] == ["hat-2", "rabbit-9"] and len(warnings) == 1


def test_distinct_numbers_weighs_a_rabbits_number_read_as_a_hat():
    # A, a true rabbit-1 the model leans to 9; B, a true rabbit-9 read as hat-9 and turned
    # into a rabbit by the layout: the two 9s go to B, whose number is surer over both kinds
    a = tile("rabbit-9", 100, 160, {"rabbit-9": 0.4, "rabbit-1": 0.18})
    b = tile("rabbit-9", 200, 160, {"hat-9": 0.89, "rabbit-9": 0.0})
    out, warnings = distinct_numbers([a, b], "rabbit")
    assert [p.label for p in out] == ["rabbit-1", "rabbit-9"] and len(warnings) == 1
