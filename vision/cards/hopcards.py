"""Hop la bille cards: the marble colours printed on a card, its zone and the card order.

- Discs: the card is resampled top-down (`rectify`, width `card_px`); inside its border the
  printed discs are what is saturated or dark against the card's own paper colour; blobs of
  about a disc's area are kept, each one's colour (the median of its saturated core, white
  balanced by the paper) goes to the nearest marble colour in Lab.
- Zone: the side of the cloth the card lies beyond (area plane coordinates).
- Order: from the seated player's left to right (south by increasing image x, north by
  decreasing x, east by decreasing y, west by increasing y), as the facts list them.
Images are uint8 BGR.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from scoring.labels import MARBLE_LABELS
from vision.cards.geometry import mask_min_area_rect, rectify
from vision.preprocess import apply_gains

# Typical printed marble colours (BGR) from pieces.md's names.
MARBLE_REF_BGR = {
    "marble-yellow": (30, 205, 245),
    "marble-red": (45, 30, 200),
    "marble-green": (50, 170, 45),
    "marble-lightblue": (230, 200, 100),
    "marble-darkblue": (125, 35, 20),
}
CARD_MARBLES = {"green": 3, "blue": 4, "red": 5}  # pieces.md: discs per card colour
RIGHT = {"south": (1, 0), "north": (-1, 0), "east": (0, -1), "west": (0, 1)}


@dataclass(frozen=True)
class DiscSettings:
    card_px: int = 80  # rectified card width (height = 1.5 x)
    border: tuple[float, float] = (0.11, 0.075)  # ignored margin (u, v) inside the card edge
    sat_min: int = 70  # HSV saturation of a printed disc
    dark: float = 0.55  # or darker than this share of the paper's brightness
    disc_diam: float = 0.25  # expected disc diameter, share of the card width
    area_range: tuple[float, float] = (0.35, 2.2)  # blob area / expected disc area
    surround: float = 1.6  # ring around a disc (x its radius) whose colour is subtracted
    # the strength map on the card balanced to white by its paper (`paper_white` as
    # `read_discs`' colours): under a tungsten lamp the orange paper's Lab distance from a
    # yellow disc is small, and the frame's bands won over it (session 20 H9: committed
    # photos' exact facts, normal 27 -> 28, shadow 24 -> 25 of 30 with the outline's balance)
    paper_balanced: bool = True
    paper_white: float = 240.0
    faint_disc: float = 0.3  # a face-up card whose weakest printed disc has less than this
    #   share of its strongest one's strength (`read_discs`) gets "fewer printed marbles ...
    #   were clearly seen" (0.35 until session 24, H4: on committed, edition 2 and fresh
    #   e1-3032, 278 cards, the share ran 0.21-1.0, most 0.30-0.40 (a yellow disc is paler
    #   than a dark blue one), and the 34 warnings under 0.35 fell on no card read wrong;
    #   0.3 leaves 11. The committed photos under `light_eval`'s harsh / dim light: 22 / 30
    #   warnings at 0.35, 8 / 10 at 0.3, photos with a side read wrong named 3 -> 3 of 5 /
    #   2 -> 1 of 5; at 0.2 1 and 0 of 5. `python -m vision.warn_eval --game hop-la-bille`)


DISCS = DiscSettings()


def _lab(bgr) -> np.ndarray:
    px = np.uint8([[list(bgr)]])
    return cv2.cvtColor(px, cv2.COLOR_BGR2LAB)[0, 0].astype(np.float32)


_REF_LAB = {k: _lab(v) for k, v in MARBLE_REF_BGR.items()}
_REF_NAMES = list(_REF_LAB)
_REF_ROWS = np.stack([_REF_LAB[k] for k in _REF_NAMES])


def _marble_dists(colours) -> np.ndarray:
    """(N, K) float32: the Lab distance of each BGR colour (N, 3), clipped to 0-255, from
    each printed marble colour (`_REF_NAMES`' order), in one Lab conversion."""
    px = np.clip(np.asarray(colours, float).reshape(1, -1, 3), 0, 255).astype(np.uint8)
    lab = cv2.cvtColor(px, cv2.COLOR_BGR2LAB)[0].astype(np.float32)
    # (whole-number float32 Lab: every sum of squares is exact, as np.linalg.norm's was)
    return np.sqrt(((lab[:, None] - _REF_ROWS[None]) ** 2).sum(axis=2))


def nearest_marbles(colours) -> list[str]:
    """The marble label of the printed colour nearest (`_marble_dists`; the first of equals)
    to each BGR colour (N, 3), in one Lab conversion for all of them."""
    return [_REF_NAMES[i] for i in np.argmin(_marble_dists(colours), axis=1)]


def _ranked_u8(values: np.ndarray, ranks) -> np.ndarray:
    """The values at sorted positions `ranks` (0 = smallest) of each column of (N, C) uint8
    `values`: (len(ranks), C) uint8, from per-column counts (no sorting)."""
    c = values.shape[1]
    flat = values + np.arange(0, 256 * c, 256, dtype=np.intp)
    cum = np.bincount(flat.ravel(), minlength=256 * c).reshape(c, 256).cumsum(axis=1)
    return np.array([(cum <= k).sum(axis=1) for k in ranks], np.uint8)


def masked(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """`values[mask]` of an (H, W, C) array and an (H, W) bool mask: the (N, C) rows where
    the mask is set, in the same (row-major) order, by `np.compress` on the flattened
    pixels (numpy's 2-D mask indexing of a 3-channel card: 240 -> 30 us)."""
    return np.compress(mask.ravel(), values.reshape(-1, values.shape[-1]), axis=0)


def median_u8(values: np.ndarray, dtype=np.float64) -> np.ndarray:
    """numpy's median (axis 0) of (N, C) uint8 values as `dtype` (the output's type: float64,
    `np.median(values)`'s; float32, `np.median(values.astype(np.float32))`'s), the same
    numbers (the two middle values' mean is a whole number or a half: exact in either)."""
    n = len(values)
    lo, hi = _ranked_u8(values, ((n - 1) // 2, n // 2))
    return ((lo.astype(np.float64) + hi) / 2).astype(dtype)


def percentile_u8(values: np.ndarray, q: float, dtype=np.float64) -> np.ndarray:
    """numpy's `q`th percentile (axis 0) of (N, C) uint8 values as `dtype` (the output's
    type, as `median_u8`'s: float64, `np.percentile(values, q)`'s; float32, that of
    `values.astype(np.float32)`): numpy's linear method, its interpolation step for step,
    so the same floats (the two values around and their difference are whole numbers,
    exact in either float)."""
    n = len(values)
    at = (n - 1) * (q / 100)
    k = min(math.floor(at), n - 1)
    t = at - math.floor(at)  # (a Python float: float32 stays float32, as in numpy)
    a, b = _ranked_u8(values, (k, min(k + 1, n - 1))).astype(dtype)
    diff = b - a
    out = np.add(a, diff * t)
    np.subtract(b, diff * (1 - t), out=out, where=t >= 0.5, casting="unsafe", dtype=out.dtype)
    return out


def card_saturation(img: np.ndarray, inner: np.ndarray) -> np.ndarray:
    """HSV saturation (0-255) of a card's pixels under the card's own light: the card is
    first balanced by the median colour inside it (`inner`, (H, W) bool), which is its paper
    (the discs cover at most a quarter of it), so a warm lamp's or a blue sky's cast does
    not make the white paper look saturated (nor a grey disc pale)."""
    bal = card_balanced(img, median_u8(masked(img, inner)).astype(np.float32))
    return cv2.cvtColor(bal, cv2.COLOR_BGR2HSV)[..., 1]


def card_balanced(img: np.ndarray, paper, white: float | None = None) -> np.ndarray:
    """uint8 BGR `img` (any leading shape, 3 channels last) under the card's own light: times
    per-channel gains that make its `paper` colour (3,) grey at its brightest channel (or
    at `white`), clipped (`preprocess.apply_gains`)."""
    paper = np.maximum(np.asarray(paper, np.float32), 1.0)
    top = paper.max() if white is None else np.float32(white)
    return apply_gains(img, top / paper)


def paper_light(img: np.ndarray, inner: np.ndarray,
                sat_min: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(saturation under the card's own light (`card_saturation`), its pale paper mask (inside
    `inner`, saturation under `sat_min`), the paper's BGR (their median; the brightest tenth of
    `inner` where under 21 pixels are pale)) of a card `img` (uint8 BGR)."""
    sat = card_saturation(img, inner)
    pale = inner & (sat < sat_min)
    paper = median_u8(masked(img, pale)) if pale.sum() > 20 else \
        percentile_u8(masked(img, inner), 90)
    return sat, pale, paper


def disc_peaks(card_bgr: np.ndarray, n: int, s: DiscSettings = DISCS):
    """The `n` strongest disc-shaped spots of colour on a rectified card ((H, W, 3) uint8
    BGR, portrait): (list of (x, y) in the resized card, their strengths, resized card,
    paper BGR). The strength map is each pixel's Lab distance from the card's paper colour
    (on the card balanced to white by its paper: `DiscSettings.paper_balanced`), averaged
    over a disc of the expected size; the card's border is ignored."""
    h0, w0 = card_bgr.shape[:2]
    w = s.card_px
    h = int(round(w * h0 / max(w0, 1)))
    img = cv2.resize(card_bgr, (w, h), interpolation=cv2.INTER_AREA)
    bu, bv = int(round(s.border[0] * w)), int(round(s.border[1] * h))
    inner = np.zeros((h, w), bool)
    inner[bv: h - bv, bu: w - bu] = True
    _, pale, paper = paper_light(img, inner, s.sat_min)
    seen = img
    if s.paper_balanced:  # the distances under the paper's own light (a white card)
        seen = card_balanced(img, paper, s.paper_white)
    lab8 = cv2.cvtColor(seen, cv2.COLOR_BGR2LAB)
    ref = percentile_u8(masked(lab8, pale), 75, np.float32) if pale.sum() > 20 else \
        percentile_u8(masked(lab8, inner), 90, np.float32)
    d = lab8.astype(np.float32) - ref  # (np.linalg.norm over the last axis, in its order of
    #                                    sums: far faster)
    dist = d[..., 0] * d[..., 0]
    dist += d[..., 1] * d[..., 1]
    dist += d[..., 2] * d[..., 2]
    dist = np.sqrt(dist, out=dist)
    r = max(2, int(round(s.disc_diam * w / 2)))
    kernel = np.zeros((2 * r + 1, 2 * r + 1), np.float32)
    cv2.circle(kernel, (r, r), r, 1.0, -1)
    kernel /= kernel.sum()
    score = cv2.filter2D(dist, -1, kernel, borderType=cv2.BORDER_REPLICATE)
    if s.surround > 0:
        # centre minus surround: a round disc stands out from the ring around it, the card's
        # coloured frame (a band) does not, when the outline is a little off
        R = int(round(r * s.surround))
        ring = np.zeros((2 * R + 1, 2 * R + 1), np.float32)
        cv2.circle(ring, (R, R), R, 1.0, -1)
        cv2.circle(ring, (R, R), r + 1, 0.0, -1)
        ring /= max(ring.sum(), 1e-6)
        score = score - cv2.filter2D(dist, -1, ring, borderType=cv2.BORDER_REPLICATE)
    score[~inner] = 0
    # keep a disc's radius clear of the border
    m = np.zeros_like(inner)
    m[bv + r // 2: h - bv - r // 2, bu + r // 2: w - bu - r // 2] = True
    score[~m] = 0
    peaks, strengths = [], []
    sc = score.copy()
    for _ in range(n):
        y, x = np.unravel_index(int(np.argmax(sc)), sc.shape)
        if sc[y, x] <= 0:
            break
        peaks.append((int(x), int(y)))
        strengths.append(float(sc[y, x]))
        cv2.circle(sc, (int(x), int(y)), int(round(1.6 * r)), 0.0, -1)
    return peaks, strengths, img, paper


def read_discs(card_bgr: np.ndarray, expected: int, s: DiscSettings = DISCS
               ) -> tuple[list[str], float]:
    """(marble labels of the `expected` discs printed on a rectified card, sorted in
    `MARBLE_LABELS` order; contrast of the weakest disc relative to the strongest, 0-1: low
    means fewer discs are really there)."""
    peaks, strengths, img, paper = disc_peaks(card_bgr, expected, s)
    if not peaks:
        return [], 0.0
    gain = 240.0 / np.maximum(np.asarray(paper, np.float32), 1.0)
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    r = max(2, int(round(s.disc_diam * img.shape[1] / 2 * 0.6)))
    h, w = img.shape[:2]
    colours = []
    for x, y in peaks:  # (each disc's pixels in a box around it, in the same order)
        x0, y0 = max(0, x - r - 1), max(0, y - r - 1)
        x1, y1 = min(w, x + r + 2), min(h, y + r + 2)
        m = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.circle(m, (x - x0, y - y0), r, 1, -1)
        m = m.astype(bool)
        sat = hsv[y0:y1, x0:x1, 1][m]
        keep = sat >= percentile_u8(sat[:, None], 50)[0]  # the disc's colourful half (not
        #                                                  rim or glint)
        # (np.median of the pixels as float32, from counts)
        colours.append(median_u8(np.compress(keep, masked(img[y0:y1, x0:x1], m), axis=0),
                                 np.float32) * gain)
    out = nearest_marbles(colours)
    weakest = min(strengths) / max(max(strengths), 1e-6)
    return sorted(out, key=MARBLE_LABELS.index), float(weakest)


CARD_REF_BGR = {"green": (60, 160, 40), "blue": (190, 100, 30), "red": (45, 40, 200)}


def _hue_near(bgr, within: int = 14) -> np.ndarray:
    """(256,) uint8 table: 1 for the OpenCV hues (0-179) within `within` of `bgr`'s, around
    the circle (the difference from 180 - |dh| as well)."""
    ref = int(cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2HSV)[0, 0, 0])
    dh = np.abs(np.arange(256) - ref)
    return (np.minimum(dh, 180 - dh) <= within).astype(np.uint8)


_CARD_HUE_NEAR = {k: _hue_near(v) for k, v in CARD_REF_BGR.items()}


@dataclass(frozen=True)
class OutlineSettings:
    # `refine_outline` balances its crop by the card's paper (the median of the card's middle
    # `middle` of each side) before the frame's hue test: under a lamp's or a sky's cast the
    # frame's hue left the window or the paper's entered it, no outline or one off, and the
    # discs were read from a crop holding the frame (session 20 H9, committed photos' exact
    # facts with the discs' balance: tungsten 22 -> 27, daylight 23 -> 25, harsh 12 -> 17)
    paper_balanced: bool = True
    middle: float = 0.6
    pale_sat: int = 70  # the paper's pixels in that middle, once balanced by its median
    pale_min: int = 20  # ... where at least this many (else the middle's median stands)


OUTLINE = OutlineSettings()


def refine_outline(image_bgr: np.ndarray, frame, colour: str, grow: float = 1.35,
                   px: int = 80) -> np.ndarray | None:
    """A face-up card's outline from its coloured frame: the card region around `frame`
    ((4, 2) image corners TL, TR, BR, BL) is resampled `grow` times larger; the pixels of the
    card's colour (its frame, and discs of that colour inside it; the crop balanced by the
    card's paper first, `OutlineSettings`) give the minimum-area rectangle. Returns the
    refined (4, 2) image corners (same corner order) or None when that rectangle is not
    card-shaped."""
    q = np.asarray(frame, float)
    c = q.mean(axis=0)
    big = c + (q - c) * grow
    w, h = int(round(px * grow)), int(round(px * 1.5 * grow))
    dst = np.float32([[0, 0], [w, 0], [w, h], [0, h]]) - 0.5
    M = cv2.getPerspectiveTransform(np.float32(big), dst)
    crop = cv2.warpPerspective(image_bgr, M, (w, h), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)
    if OUTLINE.paper_balanced:  # the card's own light taken off: its paper (the median of
        # the card's middle) made grey, so a warm lamp's paper is not "red", a sky's not "blue"
        cy, cx, m = h // 2, w // 2, OUTLINE.middle
        mid = crop[int(cy - 0.75 * px * m): int(cy + 0.75 * px * m) + 1,
                   int(cx - 0.5 * px * m): int(cx + 0.5 * px * m) + 1]
        pale = card_saturation(mid, np.ones(mid.shape[:2], bool)) < OUTLINE.pale_sat
        # the paper: the middle's pale pixels (not the discs), else the whole middle
        crop = card_balanced(crop, median_u8(masked(mid, pale) if pale.sum() > OUTLINE.pale_min
                                             else mid.reshape(-1, 3)))
    hue, sat, val = cv2.split(cv2.cvtColor(crop, cv2.COLOR_BGR2HSV))
    # the card colour's hue (within 14 around the hue circle, by a table), saturated, not dark
    mask = (cv2.LUT(hue, _CARD_HUE_NEAR[colour]) & (sat >= 70) & (val >= 50)).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    if cv2.countNonZero(mask) < 0.04 * w * h:
        return None
    box = cv2.boxPoints(mask_min_area_rect(mask))
    e = [float(np.hypot(*(box[(i + 1) % 4] - box[i]))) for i in range(4)]
    short, long_ = sorted(e)[0], sorted(e)[-1]
    if not (0.75 * px <= short <= 1.25 * px and abs(long_ / max(short, 1) - 1.5) <= 0.2):
        return None
    nominal = np.array([[(w - px) / 2, (h - 1.5 * px) / 2], [(w + px) / 2, (h - 1.5 * px) / 2],
                        [(w + px) / 2, (h + 1.5 * px) / 2], [(w - px) / 2, (h + 1.5 * px) / 2]])
    # the box corner order (cyclic) that best matches the nominal TL, TR, BR, BL
    best = min((sum(np.hypot(*(box[(k + i) % 4] - nominal[i])) for i in range(4)), k)
                for k in range(4))
    box = np.array([box[(best[1] + i) % 4] for i in range(4)], np.float64)
    a, b = box[1] - box[0], box[3] - box[0]
    if a[0] * b[1] - a[1] * b[0] < 0:  # keep clockwise (y down)
        box = box[[0, 3, 2, 1]]
    Minv = np.linalg.inv(M)
    pts = np.column_stack([box, np.ones(4)]) @ Minv.T
    return pts[:, :2] / pts[:, 2:3]


def _beyond(center_plane, side_px: float) -> dict[str, float]:
    """How far plane point (x, y) lies beyond each side of a square of `side_px`."""
    x, y = float(center_plane[0]), float(center_plane[1])
    return {"north": -y, "east": x - side_px, "south": y - side_px, "west": -x}


def card_zone(center_plane, side_px: float) -> str:
    """The cloth side a card lies beyond: plane point (x, y) of a square of `side_px`."""
    d = _beyond(center_plane, side_px)
    return max(d, key=d.get)


def card_depth(center_plane, side_px: float) -> float:
    """How far (plane px) a card lies beyond its side of the cloth (`card_zone`'s)."""
    return max(_beyond(center_plane, side_px).values())


def order_cards(zone: str, centres: list) -> list[int]:
    """Indices of a zone's cards from the seated player's left to right (image coords)."""
    rx, ry = RIGHT[zone]
    return sorted(range(len(centres)), key=lambda i: centres[i][0] * rx + centres[i][1] * ry)


@dataclass(frozen=True)
class FaceSettings:
    """A card's face judged by its own pattern and light (not the classifier's hue): a face-up
    card is mostly white paper with a coloured frame, a back is its design all over."""
    paper_min: float = 0.4  # share of the inner part that is pale paper under the card's
    #                         own light (face-up cards 0.32-0.80, backs 0-0.29 measured)
    colour_max: float = 35.0  # the frame's colour (a*, b* balanced by the paper) lies this
    colour_ratio: float = 2.0  # near a card colour, and the next colour this many times as far
    sure: float = 0.9  # cards the classifier reads this surely are not looked at (the
    #                    misreads measured: 0.40-0.87, most of them under 0.65; time)
    disc_min: float = 15.0  # and it shows that colour's number of discs, the weakest this
    #                         strong (`disc_peaks`: face-up cards 11-134, backs 3-29 measured)
    chroma_min: float = 15.0  # a frame this grey after the paper balance has no card colour
    #                           (a back's dark base scaled up to the paper's 240)


FACE = FaceSettings()
_CARD_LAB = {k: _lab(v) for k, v in CARD_REF_BGR.items()}


def own_light(card_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(inner mask, saturation under the card's own light, paper-balanced card as float32
    BGR with the paper at 240) of a rectified card (`rectify`, portrait uint8 BGR): the
    inner part is inside a sixth of each side."""
    h, w = card_bgr.shape[:2]
    inner = np.zeros((h, w), bool)
    inner[h // 6: h - h // 6, w // 6: w - w // 6] = True
    sat, _, paper = paper_light(card_bgr, inner, DISCS.sat_min)
    bal = card_bgr.astype(np.float32) * (240.0 / np.maximum(paper.astype(np.float32), 1.0))
    return inner, sat, bal


def frame_colour(card_bgr: np.ndarray, light=None,
                 s: FaceSettings = FACE) -> tuple[str, float, float]:
    """(card colour, its Lab distance, the next colour's) of a rectified face-up card: the
    saturated pixels of its outer band (0.12 of the width), white balanced by its paper;
    no colour ("", 1e9, 1e9) where they are greyish (chroma under `s.chroma_min`).
    `light`: `own_light(card_bgr)`, if already computed."""
    h, w = card_bgr.shape[:2]
    inner, sat, bal = light if light is not None else own_light(card_bgr)
    b = max(2, int(round(0.12 * w)))
    band = np.ones((h, w), bool)
    band[b: h - b, b: w - b] = False
    m = band & (sat >= DISCS.sat_min)
    if m.sum() < 20:
        return "", 1e9, 1e9
    px = np.median(np.clip(bal[m], 0, 255), axis=0)
    lab = _lab(px.astype(np.uint8))
    if np.hypot(lab[1] - 128.0, lab[2] - 128.0) < s.chroma_min:
        return "", 1e9, 1e9
    d = {k: float(np.linalg.norm(lab[1:] - _CARD_LAB[k][1:])) for k in CARD_REF_BGR}
    order = sorted(d, key=d.get)
    return order[0], d[order[0]], d[order[1]]


def paper_share_own(card_bgr: np.ndarray, light=None) -> float:
    """Share of a rectified card's inner part that is pale paper under the card's own
    light: unsaturated after its cast is removed and as bright as the card's brightest part
    (over the whole card: a plain back's inside is not its own reference).
    `light`: `own_light(card_bgr)`, if already computed."""
    inner, sat, _ = light if light is not None else own_light(card_bgr)
    L = cv2.cvtColor(card_bgr, cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32)
    bright = L >= 0.8 * np.percentile(L, 90)
    return float((inner & (sat < DISCS.sat_min) & bright)[inner].mean())


def face_up_colour(card_bgr: np.ndarray, s: FaceSettings = FACE, light=None) -> str | None:
    """"green", "blue" or "red" where a rectified card (60 x 90 or so, uint8 BGR) clearly
    shows a face: mostly paper, a frame of one card colour under its own light, and that
    colour's number of printed discs; None where that is not clear (a back, or a frame
    between two colours). `light`: `own_light(card_bgr)` where the caller has it."""
    light = own_light(card_bgr) if light is None else light
    if paper_share_own(card_bgr, light) < s.paper_min:
        return None
    colour, d1, d2 = frame_colour(card_bgr, light, s)
    if not colour or d1 > s.colour_max or d2 < s.colour_ratio * d1:
        return None
    _, strengths, _, _ = disc_peaks(card_bgr, CARD_MARBLES[colour])
    if len(strengths) < CARD_MARBLES[colour] or min(strengths) < s.disc_min:
        return None  # (a plain back with a fine print, pale under a warm lamp)
    return colour


def settle_faces(image: np.ndarray, pieces: list, s: FaceSettings = FACE) -> list:
    """Hop la bille card pieces with each colour or back the classifier gave replaced where
    the card's own face says otherwise clearly
    (`face_up_colour`): a card-green under a warm lamp read as a back, a blue frame read
    as green. Pieces are `CardPiece`s; those without a frame are left as they are."""
    out = []
    for p in pieces:
        if p.frame is not None and p.label.startswith("card-") and p.confidence < s.sure:
            colour = face_up_colour(rectify(image, p.frame, 60, 90), s)
            if colour is not None and p.label != f"card-{colour}":
                p = replace(p, label=f"card-{colour}")
        out.append(p)
    return out
