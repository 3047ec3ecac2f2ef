"""Troetofanten readings that are no card of their own: a rare card read unsure
(`read.unsure_rare`)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.cards.geometry import SPECS, pose_from_frame
from vision.cards.pieces import CardPiece
from vision.cards.read import READ, card_frame, unsure_rare

SPEC = SPECS["troetofanten"]
W = 40.0  # card width, px


def card(label: str, conf: float, centre=(100.0, 100.0), angle: float = 0.0) -> CardPiece:
    frame = card_frame(np.asarray(centre, float), angle, W, SPEC.aspect)
    return CardPiece(label, conf, pose_from_frame(frame, SPEC)[0], frame, angle, W)


@pytest.mark.parametrize("label,conf,kept", [
    ("mouse", 0.45, False),  # a box holds 3: a blob read as one
    ("mouse", 0.6, True),  # read surely enough
    ("mousetrap", 0.5, False),  # a box holds 1
    ("mousetrap", 0.95, True),
    ("tamer", 0.45, True),  # a box holds 5: not rare, left to the other checks
    ("elephant-3", 0.4, True),  # an unclear number splits an elephant's confidence
])
def test_unsure_rare(label, conf, kept):
    got, warnings = unsure_rare([card(label, conf)], READ)
    assert (len(got) == 1) is kept
    assert (len(warnings) == 0) is kept
    if not kept:
        assert f"{label} at (100, 100), not counted" in warnings[0]
