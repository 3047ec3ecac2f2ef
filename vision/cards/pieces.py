"""The pieces the card reader found: one record per piece (pure data, no models)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np


@dataclass(frozen=True)
class CardPiece:
    """label: the contract's label; confidence 0-1; key: (2,) key point (image px); frame:
    (4, 2) corners TL, TR, BR, BL of the whole piece (image px) or None for round pieces;
    angle: degrees of the piece's u axis in the image; width: px (TL -> TR, or diameter);
    probs: the classifier's probabilities over the game's labels (label -> p), may be empty;
    faint: counted from a weak key point by its kind alone (Troetofanten, `counted_weak`)."""

    label: str
    confidence: float
    key: np.ndarray
    frame: np.ndarray | None
    angle: float
    width: float
    probs: dict | None = None
    faint: bool = False

    @cached_property
    def center(self) -> np.ndarray:
        """(2,) the frame's mean corner (the key point for round pieces): worked out once per
        piece (asked hundreds of times a photo; a piece's frame is never written into, a
        changed piece is a new one, `dataclasses.replace`). The caller must not write into
        it."""
        return self.key if self.frame is None else self.frame.mean(axis=0)
