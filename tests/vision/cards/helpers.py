"""Shared stand-ins for the card tests: a Troetofanten card as read (`CardPiece`)."""

from __future__ import annotations

import numpy as np

from vision.cards.geometry import SPECS
from vision.cards.pieces import CardPiece
from vision.cards.read import card_frame

ASPECT = SPECS["troetofanten"].aspect


def card(label: str, centre, conf: float = 0.95, *, width: float = 40.0,
         angle: float = 0.0) -> CardPiece:
    """A Troetofanten card read as `label` with confidence `conf`: its frame `width` px
    wide centred on `centre` (x, y), its u axis turned `angle` degrees, its key point the
    frame's first corner."""
    frame = card_frame(np.asarray(centre, float), angle, width, ASPECT)
    return CardPiece(label, conf, frame[0].copy(), frame, angle, float(width))
