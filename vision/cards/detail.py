"""Troetofanten corner numbers cut from the photo's full pixels.

A phone photo is 3000-4000 px wide; the card reader works on the 1280-px work image, where a
far card's corner number is some 10 px high and the index model misreads 15 % of the digits
on cards under 45 px wide (docs/cards.md, session 16 H1). `vision.image_io.load_photo` keeps
the photo at more pixels where the game asks (`Photo.detail`); while a photo is read, each
image a look reads (the work image, the second look's half-size copy, the far look's
enlarged part, the paper-balanced copy) is tied here to that detail image by a `Detail`
mapping, and `index_crops` cuts the index crops from it where the index box is small in the
image read (`ReadSettings.detail_box`).

Images are (H, W, 3) uint8 BGR; coordinates are pixel centres (x right, y down).
"""

from __future__ import annotations

import math
import threading
from contextlib import contextmanager
from dataclasses import dataclass, replace

import numpy as np

from vision.cards.geometry import CardCropSettings, KeySpec, crop_box, crop_cards
from vision.preprocess import apply_gains


@dataclass(frozen=True)
class Detail:
    """The photo at more pixels than an image read: `image` ((Hd, Wd, 3) uint8 BGR), and
    where a pixel (x, y) of the image read lies on it: ((x + 0.5) * k + c[0] - 0.5, ...).
    `gains`: per-channel gains (3,) the image read was balanced by (its crops get them
    too), or None."""

    image: np.ndarray
    k: float
    c: tuple[float, float] = (0.0, 0.0)
    gains: tuple[float, float, float] | None = None

    def to_detail(self, points) -> np.ndarray:
        """Points (..., 2) of the image read in the detail image's pixels (float64)."""
        return (np.asarray(points, float) + 0.5) * self.k + np.asarray(self.c) - 0.5

    def part(self, g: float, offset=(0.0, 0.0)) -> Detail:
        """The mapping of a part of the image read cut at `offset` (x, y) and resized `g` x
        (a pixel v of it is (v + 0.5) / g - 0.5 + offset here, as `read.from_enlarged`)."""
        ox, oy = (float(v) for v in offset)
        return replace(self, k=self.k / g, c=(self.c[0] + ox * self.k, self.c[1] + oy * self.k))

    def balanced(self, gains) -> Detail:
        """The mapping of a copy of the image read balanced by `gains` (3,)."""
        g = np.asarray(gains, float) if self.gains is None else \
            np.asarray(gains, float) * np.asarray(self.gains, float)
        return replace(self, gains=tuple(float(v) for v in g))


_HELD = threading.local()  # per thread: {id(image): (image, Detail)} while it is read


@contextmanager
def keeping_detail(image: np.ndarray, detail: Detail | None):
    """Within this, `detail_of(image)` is `detail` (nothing where `detail` is None)."""
    if detail is None:
        yield
        return
    held = getattr(_HELD, "map", None)
    if held is None:
        held = _HELD.map = {}
    key = id(image)
    before = held.get(key)
    held[key] = (image, detail)
    try:
        yield
    finally:
        if before is None:
            held.pop(key, None)
        else:
            held[key] = before


def detail_of(image: np.ndarray) -> Detail | None:
    """The `Detail` tied to this very image (`keeping_detail`), or None."""
    held = getattr(_HELD, "map", None)
    if not held:
        return None
    got = held.get(id(image))
    return got[1] if got is not None and got[0] is image else None


def part_detail(image: np.ndarray, g: float, offset=(0.0, 0.0)) -> Detail | None:
    """`Detail.part` of `image`'s detail (None where it has none)."""
    d = detail_of(image)
    return None if d is None else d.part(g, offset)


def box_sides(frames, spec: KeySpec) -> np.ndarray:
    """(N,) the longest side (px) of `spec`'s crop box on each of `frames` ((N, 4, 2))."""
    b = crop_box(frames, spec).astype(float)
    return np.hypot(*(np.roll(b, -1, axis=1) - b).transpose(2, 0, 1)).max(axis=1)


def index_crops(image: np.ndarray, frames, spec: KeySpec, settings: CardCropSettings,
                below: float) -> np.ndarray:
    """`crop_cards(image, frames, spec, settings)`, except that a crop whose box's longest
    side in `image` is under `below` px is cut from `image`'s detail (`detail_of`) at the
    mapped frame, warped at as many whole times `settings.oversample` x the size as keep
    the box's detail pixels (area-resized: no aliasing), its gains applied. The same
    array as `crop_cards` where `image` has no detail or `below` is 0."""
    d = detail_of(image) if below > 0 else None
    if d is None or not len(frames):
        return crop_cards(image, frames, spec, settings)
    q = np.asarray(frames, float).reshape(-1, 4, 2)
    sides = box_sides(q, spec)
    fine = sides < below
    if not fine.any():
        return crop_cards(image, frames, spec, settings)
    out = np.empty((len(q), settings.size, settings.size, 3), np.uint8)
    if (~fine).any():
        out[~fine] = crop_cards(image, q[~fine], spec, settings)
    n = settings.size * settings.oversample
    times = np.array([max(1, math.ceil(s * d.k / n)) for s in sides])
    for m in np.unique(times[fine]):
        at = np.flatnonzero(fine & (times == m))
        crops = crop_cards(d.image, d.to_detail(q[at]), spec,
                           replace(settings, oversample=settings.oversample * int(m)))
        out[at] = crops if d.gains is None else apply_gains(crops, np.asarray(d.gains))
    return out
