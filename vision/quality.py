"""Photo quality: what is wrong with a photo that its taker can fix in a second, said in the
score's `warnings` (issue 6: say what is doubted rather than guess silently).

`photo_quality(settings, image, area)` measures the play area's part of the working image:

- glare: a lamp's reflection (`vision.area.glare_spots`, the spots the area stage takes off)
  on or beside the area -> "tilt the phone or move the lamp";
- dark: the lightness of the area's brightest parts low, or that lightness grey and the
  noise (the second difference along rows where they are flat) high for it -> "put more
  light on the table";
- blur: the area's own edges are too soft. Along every `blur_step`-th row (and column) of
  the full working image, each pixel's difference to its neighbour is compared with the
  range of the row within `blur_reach` px (the edge's contrast): a sharp edge steps most of
  its contrast within one pixel, one blurred by sigma s only ~1 / (2.5 s) of it. The
  sharpest edges (`blur_quantile` of the strong ones) are what counts, in each direction
  alone (a motion blur softens one); the softer direction decides. Measured in pixels of
  the photo, so a photo scaled down from a sharp one stays sharp;
- far: the area covers under `far_share` of the photo, or (card games, no area: the hull
  of a few cards says nothing of the distance) the cards read are narrower than
  `far_card` working px (median) -> "come closer";
- cut off: a corner of the area lies more than `cut_margin` of the photo's long side
  beyond its edge -> "step back";
- washed edge: along the area's outline, the share of points whose inside (`washed_in` of
  the photo's long side inward) is clipped (every channel at least `washed_clip`) and whose
  outside (as far out) is near white too (lowest channel at least `washed_out`): the edge
  there cannot be seen, so the outline may be off -> "the play area's edge is washed out";
- no colour: a black-and-white photo (a grey JPEG or PNG, a camera's mono filter): its
  colour spread (max - min of B, G, R per pixel, the whole photo at `small_side`, the
  `grey_quantile`) at most `grey_spread` -> "take a colour photo" (every game's pieces are
  told apart by colour: such a photo was answered only "no arena found", exit 3).

Every threshold lives in `QualitySettings`; `area` is the play area's outline (working
pixels, any polygon) or None for the whole photo.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.area import AreaSettings, _outward_normal, glare_spots


@dataclass(frozen=True)
class QualitySettings:
    small_side: int = 320  # the glare and lightness look at about this long side
    # glare: spots (`glare_spots` with `glare`, of which only the glare_* thresholds count:
    # the area stage's defaults) whose core comes within this share of the area's size of
    # its outline
    glare: AreaSettings = AreaSettings("red", 0.0, 0)
    glare_near: float = 0.05
    # dark: the lightness (0-255 luma, at `small_side`) of the area's brightest parts (its
    # `bright_quantile`) under this: even its white is grey (the committed scenes: 98-255,
    # `light_eval`'s dim copies, 0.4 of the light: 63-172; a dark table is not a dark
    # photo, so not the median) ...
    dark_bright: float = 95.0
    bright_quantile: float = 0.98
    # ... or its noise (the mean |second difference| along every `blur_step`-th row at
    # full size, where the row is flat) over this share of that lightness where that
    # lightness is under `noise_bright`: a dim photo the camera amplified (the committed
    # scenes 0.003-0.018, the dim copies 0.008-0.14, their white 50-172). Kept tight: a
    # lit photo's sensor noise of sigma 2 alone is ~4 (0.02 of a white at 175, as much as
    # most dim copies'), and felt or wood grain adds to it
    noise_ratio: float = 0.04
    noise_bright: float = 130.0
    noise_flat: int = 24  # a row is flat where its range within 2 px is under this
    # blur: rows / columns sampled, the reach (px) of an edge's contrast, the contrast an
    # edge needs, the quantile of the strong edges' sharpness taken, and the least sharpness
    # (a step's largest one-pixel difference / its contrast) of a sharp photo
    blur_step: int = 8
    blur_reach: int = 6
    blur_contrast: float = 40.0
    blur_quantile: float = 0.9
    blur_min: float = 0.22
    blur_min_edges: int = 60  # fewer strong edges: no blur verdict
    far_share: float = 0.08  # the area's share of the photo under this: too far
    far_card: float = 0.0  # card games: the cards' median width (working px) under this:
    #   too far (0: the game has an area, `far_share` decides)
    # a corner may lie this share of the photo's long side beyond its edge (the outline's
    # fit jitters by a pixel or so)
    cut_margin: float = 0.01
    # no colour: the `grey_quantile` of the whole photo's colour spread at `small_side` at
    # most this. A grey JPEG or PNG is 0 (the decoder copies the grey), a grey photo saved
    # as a colour JPEG (quality 80) 0 too; the 200 committed photos 15-197 (median 94), the
    # least colourful (troetofanten e1-s1-0013, 15) at 0.4 of its light 6, at 0.25 of it 4
    # (session 17, H5)
    grey_spread: float = 2.0
    grey_quantile: float = 0.99
    # washed edge (Hop la bille's white cloth under a lamp whose clipped core runs over the
    # cloth's edge and merges with it, where no spot is found: the found side lies on the
    # clip's rim or in the lit table; session 23, H7): warned where at least `washed_share`
    # of the outline's points (`washed_points` per side) have their inside, `washed_in` x
    # the long side inward, clipped (lowest channel `washed_clip` or more) and their outside
    # as far out at `washed_out` or more. Measured on light_eval's glare copies of
    # committed, edition 2 and fresh 2900, 2901, 2905 (85 photos) and those sets in
    # ordinary light (55): 0.2 flags 5 of the 28 cloths 15 px or more off, none of the 57
    # nearer; 0.1 flags 8 and 3. 0: off.
    washed_share: float = 0.0
    washed_in: float = 0.007
    washed_clip: int = 254
    washed_out: int = 200
    washed_points: int = 60


# per game: the area's share of the photo under which it is too far (`far_share`; the
# smallest shares in the first 12 committed scenes: arena 0.09, cloth 0.09, board 0.07);
# the card games: the cards' median width (`far_card`, working px) a little under the
# narrowest of the committed and fresh scenes' (Magic Rabbit 40.9, Troetofanten 32.2: a
# fresh spread the reader already reads again enlarged, its own `far_card` being 40).
# Troetofanten 30 -> 40 in session 16 (H11): the corner numbers of cards under 45 px are
# misread 15 % of the time; the 5 of 80 fresh photos (e1-2020..2022, e2-2023) whose cards'
# median is under 40 px held 17 wrong numbers of 62 animals (each 2-8), the other 75
# photos 29 of 896; none of the 40 committed photos is under 40 (narrowest 41.5)
QUALITY_SETTINGS = {
    "simsala-hopp": QualitySettings(far_share=0.07),
    "hop-la-bille": QualitySettings(far_share=0.07, washed_share=0.2),
    "mauerhuepfer": QualitySettings(far_share=0.05),
    "magic-rabbit": QualitySettings(far_card=38.0),
    "troetofanten": QualitySettings(far_card=40.0),
}


def area_mask(shape: tuple[int, int], area, f: float = 1.0) -> np.ndarray:
    """uint8 {0, 1} mask of `area` (working px, scaled by `f`) at `shape`; all ones for
    None."""
    if area is None:
        return np.ones(shape, np.uint8)
    m = np.zeros(shape, np.uint8)
    cv2.fillPoly(m, [np.round(np.asarray(area, np.float64) * f).astype(np.int32)], 1)
    return m


def _lines(settings: QualitySettings, image: np.ndarray, mask: np.ndarray):
    """Every `blur_step`-th row and column of the BGR `image`'s green channel (close to its
    lightness; columns turned into rows), each with its `mask` line."""
    s = settings.blur_step
    return ((np.ascontiguousarray(image[::s, :, 1]), mask[::s]),
            (cv2.transpose(np.ascontiguousarray(image[:, ::s, 1])),
             cv2.transpose(np.ascontiguousarray(mask[:, ::s]))))


def sharpness(settings: QualitySettings, lines) -> float:
    """The softer direction's sharpness of the strong edges of `lines` (`_lines`); 1.0 where
    too few edges."""
    r = settings.blur_reach
    k = np.ones((1, 2 * r + 1), np.uint8)
    out = []
    for img, m in lines:
        rng = cv2.subtract(cv2.dilate(img, k), cv2.erode(img, k))[:, 1:]
        step = cv2.absdiff(img[:, 1:], img[:, :-1])
        # each edge once: its largest step (a one-pixel peak along the line) ...
        peak = (step >= cv2.dilate(step, k)) & (rng >= settings.blur_contrast) & (m[:, 1:] > 0)
        ratio = step[peak].astype(np.float32) / rng[peak]
        out.append(float(np.quantile(ratio, settings.blur_quantile)) if len(ratio)
                   >= settings.blur_min_edges else 1.0)
    return min(out)


def colour_spread_quantile(image: np.ndarray, q: float) -> float:
    """The q-quantile (numpy's linear interpolation) of a (H, W, 3) uint8 BGR image's colour
    spread, max - min of B, G, R per pixel: from its 256-bin histogram, exactly
    `np.quantile(spread, q)` at a fraction of the time (numpy's reduction over the channel
    axis and its sort took ~4 ms of every photo's quality step)."""
    b, g, r = cv2.split(image)
    spread = cv2.subtract(cv2.max(cv2.max(b, g), r), cv2.min(cv2.min(b, g), r))
    cum = np.cumsum(cv2.calcHist([spread], [0], None, [256], [0, 256]).ravel())
    pos = q * (spread.size - 1)
    lo = int(np.floor(pos))
    v_lo = int(np.searchsorted(cum, lo, side="right"))
    v_hi = int(np.searchsorted(cum, min(lo + 1, spread.size - 1), side="right"))
    return v_lo + (v_hi - v_lo) * (pos - lo)


def measures(settings: QualitySettings, image: np.ndarray, area) -> dict:
    """The numbers the warnings are decided on (see the module's docstring)."""
    h, w = image.shape[:2]
    k = max(1, int(np.ceil(max(h, w) / settings.small_side)))  # an integer shrink
    small = cv2.resize(image, (w // k, h // k), interpolation=cv2.INTER_LINEAR)
    f = small.shape[1] / w
    m_small = area_mask(small.shape[:2], area, f)
    gray_small = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    colour = colour_spread_quantile(small, settings.grey_quantile)
    hist = cv2.calcHist([gray_small], [0], m_small, [256], [0, 256]).ravel()
    n = hist.sum()
    cum = np.cumsum(hist)
    bright = float(np.searchsorted(cum, settings.bright_quantile * n)) if n else 255.0
    x0, y0, x1, y1 = 0, 0, w, h  # the full-size looks only in the area's box
    if area is not None:
        lo = np.clip(np.floor(np.min(area, axis=0)).astype(int), 0, [w, h])
        hi = np.clip(np.ceil(np.max(area, axis=0)).astype(int) + 1, 0, [w, h])
        (x0, y0), (x1, y1) = lo, hi
        if x1 - x0 < 16 or y1 - y0 < 16:  # (an area off the photo: the whole photo)
            x0, y0, x1, y1 = 0, 0, w, h
    box = image[y0:y1, x0:x1]
    mask = area_mask(box.shape[:2], None if area is None else np.asarray(area) - [x0, y0])
    lines = _lines(settings, box, mask)
    rows, m_rows = lines[0]
    # noise: the second difference (flat for any straight ramp) where the row is flat
    d2 = np.abs(rows[:, 1:-1].astype(np.int16) * 2 - rows[:, :-2] - rows[:, 2:])
    rng = cv2.subtract(cv2.dilate(rows, np.ones((1, 5), np.uint8)),
                       cv2.erode(rows, np.ones((1, 5), np.uint8)))[:, 1:-1]
    flat = (rng < settings.noise_flat) & (m_rows[:, 1:-1] > 0)
    noise = float(d2[flat].mean()) if flat.any() else 0.0
    sharp = sharpness(settings, lines)
    share = float(m_small.mean())
    size = np.sqrt(max(float(m_small.sum()), 1.0))
    outline = None if area is None else \
        (np.asarray(area, np.float32) * f).reshape(-1, 1, 2)
    washed = 0.0 if area is None or settings.washed_share <= 0 else \
        washed_edge(small, np.asarray(area, np.float64) * f, settings)
    spots = []
    for (cx, cy), axes, _ in glare_spots(small, settings.glare):
        reach = max(axes) / 2 + settings.glare_near * size
        if outline is None or cv2.pointPolygonTest(outline, (cx, cy), True) >= -reach:
            spots.append((cx / f, cy / f))
    return {
        "bright": bright, "noise": noise, "sharpness": sharp,
        "share": share, "glare": spots, "colour": colour, "washed": washed,
        "cut": area is not None and cut_off(area, (w, h), settings.cut_margin * max(h, w)),
    }


def washed_edge(small: np.ndarray, outline: np.ndarray, settings: QualitySettings) -> float:
    """The share of the (N, 2) `outline`'s (px of the uint8 BGR `small`) points (at
    `washed_points` per side, the ends left out) whose inside is clipped and outside near
    white (`QualitySettings.washed_*`): where the edge cannot be seen."""
    h, w = small.shape[:2]
    q = np.asarray(outline, np.float64).reshape(-1, 2)
    if len(q) < 3 or not np.all(np.isfinite(q)):
        return 0.0
    low = cv2.min(cv2.min(small[..., 0], small[..., 1]), small[..., 2])
    d = settings.washed_in * max(h, w)
    centre = q.mean(axis=0)
    ts = np.linspace(0.03, 0.97, settings.washed_points)[:, None]
    pts, nrm = [], []
    for a, b in zip(q, np.roll(q, -1, axis=0), strict=True):
        e = b - a
        if np.hypot(*e) < 1e-9:
            continue
        out = _outward_normal(a, b, centre)
        pts.append(a + ts * e)
        nrm.append(np.repeat(out[None], len(ts), axis=0))
    if not pts:
        return 0.0
    pts, nrm = np.vstack(pts), np.vstack(nrm)

    def at(p):
        p = np.clip(np.round(p).astype(int), 0, [w - 1, h - 1])
        return low[p[:, 1], p[:, 0]]

    washed = (at(pts - d * nrm) >= settings.washed_clip) & \
        (at(pts + d * nrm) >= settings.washed_out)
    return float(washed.mean())


def cut_off(corners, size: tuple[int, int], margin: float = 0.0) -> bool:
    """Whether any of an area's (N, 2) corners (px) lies more than `margin` px outside the
    photo (w, h): its pixels' centres at 0 .. w - 1, their outer sides at -0.5, w - 0.5."""
    c = np.asarray(corners, np.float64)
    return bool(np.any((c < -0.5 - margin) | (c > np.array(size, np.float64) - 0.5 + margin)))


def where(x: float, y: float, w: int, h: int) -> str:
    """Where (x, y) lies in a w x h photo, in words (its thirds): "top left", "centre",
    "bottom" ..."""
    row = ("top", "", "bottom")[min(2, max(0, int(3 * y / h)))]
    col = ("left", "", "right")[min(2, max(0, int(3 * x / w)))]
    return " ".join(t for t in (row, col) if t) or "centre"


def photo_quality(settings: QualitySettings, image: np.ndarray, area,
                  scale: float = 1.0, card_width: float | None = None) -> list[str]:
    """Warnings about `image` (working-size BGR) in the play area `area` ((N, 2) working
    px, or None: the whole photo); positions said in words and in photo pixels (`scale`:
    photo px per working px). `card_width`: the card games' median card width (working
    px), judged against `far_card` instead of the area's share (said in photo px)."""
    if scale < 1:  # a small photo enlarged to the working size: judged at its own size
        # (its edges are soft and its noise smoothed only by the enlarging)
        own = cv2.resize(image, (max(1, round(image.shape[1] * scale)),
                                 max(1, round(image.shape[0] * scale))),
                         interpolation=cv2.INTER_AREA)
        m = measures(settings, own, None if area is None else np.asarray(area, float) * scale)
        m["glare"] = [(x / scale, y / scale) for x, y in m["glare"]]
    else:
        m = measures(settings, image, area)
    h, w = image.shape[:2]
    out = []
    if m["colour"] <= settings.grey_spread:  # (first: it may explain the rest)
        out.append("the photo has no colour (black and white): the pieces are told apart by "
                   "their colours, take a colour photo (no mono filter)")
    out += [f"glare from a lamp at the {where(x, y, w, h)} of the photo (at ({x * scale:.0f}, "
           f"{y * scale:.0f})) washes out part of the play area: tilt the phone or move the "
           f"lamp" for x, y in m["glare"]]
    if m["bright"] < settings.dark_bright or (m["bright"] < settings.noise_bright and
                                              m["noise"] > settings.noise_ratio * m["bright"]):
        out.append("the photo is too dark: put more light on the table")
    if m["sharpness"] < settings.blur_min:
        out.append("the photo is blurred (moved or out of focus): hold still and let "
                   "the camera focus")
    if settings.far_card > 0:
        if card_width is not None and card_width * min(scale, 1.0) < settings.far_card:
            #   (`far_card`: pixels of a photo at most the working size, as it was taken)
            out.append(f"the cards are only {card_width * scale:.0f} px wide in the photo: "
                       f"come closer")
    elif area is not None and m["share"] < settings.far_share:
        out.append(f"the play area fills only {100 * m['share']:.0f} % of the photo: come "
                   f"closer")
    if settings.washed_share > 0 and m["washed"] >= settings.washed_share:
        out.append(f"the play area's edge is washed out (burnt-out white against white) on "
                   f"{100 * m['washed']:.0f} % of its outline: the area found there may be "
                   f"off: tilt the phone, move the lamp or use a darker table")
    if m["cut"]:
        out.append("the play area is cut off at the photo's edge: step back or centre it")
    return out
