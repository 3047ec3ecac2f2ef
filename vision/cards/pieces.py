"""The pieces the card reader found: one record per piece (pure data, no models)."""

from __future__ import annotations

from dataclasses import dataclass

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

    @property
    def center(self) -> np.ndarray:
        return self.key if self.frame is None else self.frame.mean(axis=0)
