"""`read.paper_twin`: a card read by its paper whose key point lies on a face-up card read of
its kind (within `duplicate` x the width) is that card once more (session 19, H11: e1-2580
0015's elephant-1, posed 20 degrees off, and the paper beside it read elephant-4, key points
0.05 widths apart, were counted as two cards)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.cards import helpers
from vision.cards.read import READ, paper_twin

W = 50.0  # card width, px
KEPT = [helpers.card("elephant-1", (100.0, 100.0), 0.71, width=W),
        helpers.card("tootophant-3", (300.0, 100.0), 0.97, width=W)]


def paper(label: str, key_shift, angle: float = 20.0):
    """A paper reading whose key point lies `key_shift` (x the width, (du, dv)) from the
    first kept card's, its frame turned `angle` degrees."""
    rng = np.random.default_rng(0)
    c = helpers.card(label, (100.0, 100.0), 0.95, width=W, angle=angle)
    shift = KEPT[0].key + np.asarray(key_shift, float) * W + rng.normal(0, 0.1, 2) - c.key
    return helpers.card(label, np.asarray((100.0, 100.0)) + shift, 0.95, width=W, angle=angle)


@pytest.mark.parametrize("label,key_shift,twin", [
    ("elephant-4", (0.05, 0.0), 0),  # another number of its animal on its key point
    ("elephant-1", (0.0, 0.1), 0),  # its own label
    ("elephant-4", (0.3, 0.0), None),  # past `duplicate`: a fan's next card
    ("tootophant-4", (0.05, 0.0), None),  # another animal: left to the other steps
    ("mouse", (0.0, 0.0), None),
])
def test_paper_twin_on_a_card_of_its_kind(label, key_shift, twin):
    assert paper_twin(paper(label, key_shift), KEPT, READ.duplicate) == twin


def test_paper_twin_takes_the_nearest():
    kept = KEPT + [helpers.card("elephant-5", (104.0, 100.0), 0.9, width=W)]
    assert paper_twin(paper("elephant-4", (0.1, 0.0)), kept, READ.duplicate) == 2
    assert paper_twin(paper("elephant-4", (-0.02, 0.0)), kept, READ.duplicate) == 0
