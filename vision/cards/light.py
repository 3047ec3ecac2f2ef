"""The light on the cards, from the cards' own paper (session 11).

Every Troetofanten face is printed on white paper (the card's margin and the face's
background), whatever the artwork: under a warm lamp or a harsh orange light that paper
shows the light's colour. `paper_gains` estimates it from the face-up cards a first look
read surely; `read_cards` (vision/cards/stage.py) balances the photo by it and reads again
where the cards agree on a strong cast (a gain of `PaperLightSettings.cast` or more), and
only there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.cards.geometry import rectify
from vision.cards.pieces import CardPiece
from vision.cards.read import READ, ReadSettings, sure_faces


@dataclass(frozen=True)
class PaperLightSettings:
    cast: float = 1.2  # re-read balanced where the paper needs a gain of this on one channel
    #   (0: never); normal light: paper gains 1.00-1.20 (committed, edition 2), a warm lamp
    #   1.56-1.98, the harsh light 1.25-2.35; cool daylight (`light_eval` daylight) about
    #   1.2-1.35, so 1.3 (sessions 11-17) left most daylight photos unbalanced: 1.2 reads
    #   them again (session 17 H14: daylight committed 3.63 -> 3.44 %, fresh 2200-2203
    #   better, docs/cards.md "Coloured light and shadow")
    min_cards: int = 2  # fewer face-up cards read surely (`read.sure_faces`) that need the
    #   cast themselves: no balance (gains 1); and more than half of the sure ones must
    patch: tuple[int, int] = (24, 36)  # px: each card's frame warped to this (w, h)
    paper_share: float = 0.3  # a card's paper: its brightest pixels (by their sum), this share
    most_gain: float = 4.0  # a channel's gain at most this (a channel near black)

    def __post_init__(self):
        if self.min_cards < 1:  # (no card: a NaN median would black out the photo)
            raise ValueError(f"min_cards must be at least 1, not {self.min_cards}")


PAPER_LIGHT = PaperLightSettings()


def paper_colour(image: np.ndarray, frames: list[np.ndarray], s: PaperLightSettings
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(median (3,), per card (n, 3)) float BGR of the paper under the photo's light: per
    card (`frames`: (4, 2) corners, at least one), the mean of its brightest `paper_share`
    pixels; the median over the cards."""
    w, h = s.patch
    cols = []
    for f in frames:
        px = rectify(image, f, w, h).reshape(-1, 3).astype(np.float32)
        k = max(1, int(len(px) * s.paper_share))
        top = np.argpartition(-px.sum(axis=1), k - 1)[:k]
        cols.append(px[top].mean(axis=0))
    cols = np.array(cols)
    return np.median(cols, axis=0), cols


def paper_gains(image: np.ndarray, pieces: list[CardPiece], settings: ReadSettings = READ,
                s: PaperLightSettings = PAPER_LIGHT) -> np.ndarray:
    """(3,) float32 per-channel gains that bring the face-up cards' paper (`paper_colour` of
    `read.sure_faces`, by `settings.paper_min_conf`) to grey at its brightest channel's
    level; ones unless the cards agree on a cast: at least `min_cards` of them, and more
    than half, each need a gain of `s.cast` or more themselves (one card with cream or
    yellow artwork under white light is no cast)."""
    frames = [p.frame for p in sure_faces(pieces, settings) if p.frame is not None]
    if len(frames) < s.min_cards:
        return np.ones(3, np.float32)
    c, cols = paper_colour(image, frames, s)
    need = cols.max(axis=1) / np.maximum(cols.min(axis=1), 1.0) >= s.cast
    if need.sum() < s.min_cards or need.mean() <= 0.5:
        return np.ones(3, np.float32)
    c = np.maximum(c, 1.0)
    return np.minimum(c.max() / c, s.most_gain).astype(np.float32)
