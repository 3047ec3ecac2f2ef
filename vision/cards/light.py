"""The light on the cards, from the cards' own paper (session 11).

Every Troetofanten face is printed on white paper (the card's margin and the face's
background), whatever the artwork: under a warm lamp or a harsh orange light that paper
shows the light's colour. `paper_gains` estimates it from the face-up cards a first look
read surely; `read_cards` (vision/cards/stage.py) balances the photo by it and reads again
where the cast is strong (a gain of `PaperLightSettings.cast` or more), and only there.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.cards.pieces import CardPiece


@dataclass(frozen=True)
class PaperLightSettings:
    cast: float = 0.0  # re-read balanced where the paper needs a gain of this on one channel
    #                    (0: never)
    min_conf: float = 0.8  # face-up cards read with at least this give their paper
    min_cards: int = 2  # fewer such cards: no estimate (gains 1)
    patch: tuple[int, int] = (24, 36)  # px: each card's frame warped to this (w, h)
    paper_share: float = 0.3  # a card's paper: its brightest pixels (by their sum), this share
    most_gain: float = 4.0  # a channel's gain at most this (a channel near black)


PAPER_LIGHT = PaperLightSettings()


def paper_colour(image: np.ndarray, frames: list[np.ndarray], s: PaperLightSettings
                 ) -> np.ndarray:
    """(3,) float BGR of the paper under the photo's light: per card (`frames`: (4, 2)
    corners), the mean of its brightest `paper_share` pixels; the median over the cards."""
    w, h = s.patch
    dst = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    cols = []
    for f in frames:
        m = cv2.getPerspectiveTransform(np.float32(f), dst)
        px = cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_AREA).reshape(-1, 3)
        px = px.astype(np.float32)
        k = max(1, int(len(px) * s.paper_share))
        top = np.argpartition(-px.sum(axis=1), k - 1)[:k]
        cols.append(px[top].mean(axis=0))
    return np.median(np.array(cols), axis=0)


def paper_gains(image: np.ndarray, pieces: list[CardPiece], s: PaperLightSettings = PAPER_LIGHT
                ) -> np.ndarray:
    """(3,) float32 per-channel gains that bring the face-up cards' paper (`paper_colour` of
    those read with `min_conf`) to grey at its brightest channel's level; ones where fewer
    than `min_cards` such cards were read."""
    frames = [p.frame for p in pieces
              if p.label != "back" and p.frame is not None and p.confidence >= s.min_conf]
    if len(frames) < s.min_cards:
        return np.ones(3, np.float32)
    c = np.maximum(paper_colour(image, frames, s), 1.0)
    return np.minimum(c.max() / c, s.most_gain).astype(np.float32)
