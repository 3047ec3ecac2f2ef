"""Magic Rabbit tiles in `vision.cards.read`: the copy-independent cues (kind, colour)."""

from __future__ import annotations

import pytest

from vision.cards.read import magic_tile_label


@pytest.mark.parametrize("probs, bg, label, conf", [
    # a clear reading: its kind's share
    ({"hat-1": 0.9, "hat-9": 0.05, "magician": 0.05}, 0.0, "hat-1", 0.95),
    # another copy's rabbit: its number split between colours, its kind clear
    ({"rabbit-1": 0.3, "rabbit-9": 0.3, "rabbit-2": 0.3, "hat-1": 0.1}, 0.0, "rabbit-1", 0.9),
    # the kind's share is scaled by 1 - P(background) too
    ({"rabbit-4": 0.2, "rabbit-5": 0.25, "hat-5": 0.55}, 0.5, "hat-5", 0.275),
    # the likeliest kind wins even where another kind holds the likeliest single label
    ({"hat-9": 0.4, "rabbit-1": 0.3, "rabbit-2": 0.3}, 0.0, "rabbit-1", 0.6),
])
def test_magic_tile_label_keeps_a_clear_kind(probs, bg, label, conf):
    got, c = magic_tile_label(probs, bg)
    assert got == label and c == pytest.approx(conf)
