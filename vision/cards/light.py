"""The light on the cards, from the cards' own paper (session 11).

Every Troetofanten face is printed on white paper (the card's margin and the face's
background), whatever the artwork: under a warm lamp or a harsh orange light that paper
shows the light's colour. `paper_gains` estimates it from the face-up cards a first look
read surely; `read_cards` (vision/cards/stage.py) balances the photo by it and reads again
where the cards agree on a strong cast (a gain of `PaperLightSettings.cast` or more), and
only there.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from vision.cards.geometry import outermost_memo, rectify
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


_PAPER = threading.local()  # per thread: {(id(image), patch, share, frames' bytes): (image,
#                             answer)} while `keeping_paper` holds


def keeping_paper():
    """Within this (one photo's reading, `stage.read_cards`; nested, the outermost one's
    memo is shared), `paper_colour` of one image and the same frames is worked out once and
    shared (read-only): the light steps ask for the first look's sure faces twice
    (`paper_gains` for the cast, `paper_level` for a dim light) where the photo stays as
    it is, about 1 ms a photo. Nothing is kept outside it."""
    return outermost_memo(_PAPER)


def paper_colour(image: np.ndarray, frames: list[np.ndarray], s: PaperLightSettings
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(median (3,), per card (n, 3)) float BGR of the paper under the photo's light: per
    card (`frames`: (4, 2) corners, at least one), the mean of its brightest `paper_share`
    pixels; the median over the cards. Within `keeping_paper` made once per image and
    frames (the arrays shared: the caller must not write into them)."""
    memo = getattr(_PAPER, "memo", None)
    if memo is None:
        return _paper_colour(image, frames, s)
    key = (id(image), tuple(s.patch), float(s.paper_share),
           tuple((f.dtype.str, f.shape, f.tobytes()) for f in map(np.asarray, frames)))
    hit = memo.get(key)
    if hit is not None and hit[0] is image:
        return hit[1]
    out = _paper_colour(image, frames, s)
    for a in out:
        a.flags.writeable = False
    memo[key] = (image, out)
    return out


def _paper_colour(image: np.ndarray, frames: list[np.ndarray], s: PaperLightSettings
                  ) -> tuple[np.ndarray, np.ndarray]:
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


@dataclass(frozen=True)
class CardToneSettings:
    """A lamp's per-channel tone curve read off the sure face-up cards' own faces and taken
    off before the paper's balance (`card_tone`, `vision.cards.stage.paper_balanced`; session
    21, H5, docs/cards.md "Troetofanten under a harsh lamp (session 21, H5)"). A face is white
    paper with a grey drawing and dark ink: under a light that only scales the channels each
    channel's log level rises with the face's log brightness at a slope of 1 over its light
    half (`vision.preprocess.tone_of_pixels`, as Magic Rabbit's hats, `stage.HatToneSettings`);
    a lamp's curve (or a camera's per-channel contrast) bends the channels apart, and after
    the paper's gains alone the grey drawings and dark digits stay warm (elephants read as
    tootophants of their number)."""

    on: bool = True
    size: tuple[int, int] = (40, 60)  # px (w, h): each card's frame warped to this
    inner: int = 4  # px of it left out at the border (the table's blend along the edge)
    clip: int = 250  # pixels with a channel this high (clipped) or one at 3 or under left out
    bins: int = 8
    span: float = 0.15
    dev: tuple[float, float] = (0.18, 0.25)  # a largest |slope - 1| up to dev[0] left alone,
    #   from dev[1] taken off in full. Measured (the slopes `tone_of_pixels` reads, `neutral`
    #   0.5, the first look's sure faces): committed ordinary photos 0.00-0.08, edition 2's
    #   0.00-0.17 (its drawings less grey), light_eval's tungsten copies 0.00-0.08 committed,
    #   fresh 2740-2742 0.00-0.16 (one of 2 cards 0.38); harsh copies 0.20-0.35 committed,
    #   0.03-0.45 fresh. (0.12, 0.2) toned 3 ordinary edition-2 photos (the dump differed);
    #   light_eval harsh piece error there -> here: committed 4.59 = , fresh 2740 22.59 =,
    #   2741 8.86 -> 12.24 %, e2 2742 21.92 -> 21.54 %. The hats' (0.2, 0.3) takes the harsh
    #   curve off in part only (with (0.12, 0.2): committed harsh 6.69 % against 4.59 %)
    white: float = 255.0  # taken off about white (white paper stays white; its gains are
    #   `paper_gains`' to take off)
    neutral: float = 0.5  # only the pixels near grey once the faces' paper is made grey
    #   (each channel's log within this of their mean; paper: the brightest `paper_share`
    #   of the pixels): a yellow digit or trumpet, or a tootophant's orange under a warm lamp,
    #   leans the weak channel in the dark bins as a curve would. 0 (every pixel): a warm
    #   lamp's copies read a curve on 4 + 4 of 15 fresh photos (e1 2740, 2741) with the
    #   hats' `dev`; 0.5 none over 0.2 but one of 2 cards. Light_eval harsh piece error,
    #   every pixel -> 0.5 (`dev` (0.2, 0.3)): committed 4.02 -> 6.69 % (the curve read
    #   shallower), fresh 2740 20.74 -> 21.85, 2741 10.97 -> 9.71, e2 2742 24.62 -> 21.92,
    #   tungsten 2740 13.70 -> 11.85 (base 8.03, 23.70, 16.46, 23.08, 11.85)
    paper_share: float = 0.3
    min_cards: int = 3  # fewer sure face-up cards: no curve read (fresh tungsten copies
    #   2740 0014 and 2741 0009 read a curve off 2 cards, 0.06 / 0.38 from 1; of the harsh
    #   copies one fresh photo has 2)


CARD_TONE = CardToneSettings()


def card_tone(image: np.ndarray, pieces: list[CardPiece], settings: ReadSettings = READ,
              s: CardToneSettings = CARD_TONE) -> np.ndarray:
    """(3,) float32 BGR exponents that take a lamp's per-channel tone curve off the uint8
    BGR `image` (H, W, 3) about `s.white` (`vision.preprocess.power_about`), read by
    `tone_of_pixels` off the interiors of the sure face-up cards (`read.sure_faces`, by
    `settings.paper_min_conf`; each frame warped to `s.size`, from `s.inner` px in, clipped
    and black pixels left out). Ones where `s.on` is off, fewer than `s.min_cards` cards
    were read surely, or their faces show no curve."""
    from vision.preprocess import tone_of_pixels

    frames = [p.frame for p in sure_faces(pieces, settings) if p.frame is not None]
    if not s.on or len(frames) < s.min_cards:
        return np.ones(3, np.float32)
    w, h = s.size
    yy, xx = np.mgrid[:h, :w]
    inner = np.minimum(np.minimum(xx, yy), np.minimum(w - 1 - xx, h - 1 - yy)) >= s.inner
    px = np.concatenate([rectify(image, f, w, h)[inner] for f in frames]).astype(np.float32)
    px = px[(px.max(axis=1) < s.clip) & (px.min(axis=1) > 3)]
    if len(px) and s.neutral > 0:  # the near-grey pixels once the paper is grey
        k = max(1, int(len(px) * s.paper_share))
        paper = px[np.argpartition(-px.sum(axis=1), k - 1)[:k]].mean(axis=0)
        lg = np.log(px / paper)
        px = px[np.abs(lg - lg.mean(axis=1, keepdims=True)).max(axis=1) < s.neutral]
    exps, _ = tone_of_pixels(px, s.bins, s.span, s.dev)
    return exps


@dataclass(frozen=True)
class DimLightSettings:
    """A dark photo's cards looked for once more on a copy brought up by its own white paper
    (`vision.cards.stage.dim_added`; session 20, H4, docs/cards.md "Troetofanten in a dim
    room (session 20, H4)"). The paper's level: `paper_level`, the sure face-up cards'
    paper in linear light (its brightest channel, the median card)."""

    below: float = 0.45  # looked at again where the paper's level is under this (0: never).
    #   Measured: `light_eval`'s dim copies (a fifth of the light, x 2 by the camera, the
    #   sensor's noise) 0.09-0.41 (committed, edition 2, fresh 2630-2632); ordinary photos
    #   0.08-1.0 (committed 0.21-1.0, 6 of 30 under 0.45, read the same: the second look
    #   adds cards only where the first has none)
    to: float = 0.8  # the copy's gain brings the paper's level to this (ordinary photos'
    #   median paper 0.76-0.98). 0.6 / 1.0: dim copies of the five sets 186 / 185 pieces
    #   wrong against 184 (194 as read before)
    most_gain: float = 4.0  # the gain at most this
    min_cards: int = 2  # fewer sure face-up cards: no level (no second look)
    reach: float = 0.75  # x a first-look card's width: a card the second look reads with
    #   its centre within this of one is that card read again, not added. 0.5 (as
    #   `glare_added`): committed 0008 (ordinary light, paper 0.21) gained a back that is not
    #   there, 0.69 widths from a back the brought-up copy split in four; dim copies of the
    #   five sets 184 pieces wrong (0.75: 185), other dark copies 251 (251)
    far_look: bool = False  # the brought-up copy's own reading takes its far look
    #   (`CardReader.far_look`, `far_scale`). Off (session 27, troeto-second-gate): of 145
    #   dim readings (committed e1 + e2, fresh 3360-3362, `light_eval`'s seven lights of
    #   committed e1, dim and tungsten copies of e2 and 3360-3362; 16 of them adding cards)
    #   144 added the same cards and warnings without it, one (a dim copy of print-table
    #   3362 0010) 1 card instead of 4, 2 fewer extras; it cost up to 590 ms CPU a photo

    def __post_init__(self):
        if self.min_cards < 1:
            raise ValueError(f"min_cards must be at least 1, not {self.min_cards}")
        if self.most_gain < 1.0:
            raise ValueError(f"most_gain must be at least 1, not {self.most_gain}")


DIM_LIGHT = DimLightSettings()


def paper_level(image: np.ndarray, pieces: list[CardPiece], settings: ReadSettings = READ,
                s: DimLightSettings = DIM_LIGHT, p: PaperLightSettings = PAPER_LIGHT
                ) -> float | None:
    """The white paper's level in uint8 BGR `image` (H, W, 3), linear light 0-1: per sure
    face-up card (`read.sure_faces`, by `settings.paper_min_conf`) its paper
    (`paper_colour`'s brightest `p.paper_share` pixels) at its brightest channel, the
    median over the cards; None where fewer than `s.min_cards` cards were read surely."""
    from vision.area import LINEAR8

    frames = [q.frame for q in sure_faces(pieces, settings) if q.frame is not None]
    if len(frames) < s.min_cards:
        return None
    _, cols = paper_colour(image, frames, p)
    return float(np.median(LINEAR8[np.clip(np.round(cols), 0, 255).astype(int)].max(axis=1)))


def dim_gain(level: float | None, s: DimLightSettings = DIM_LIGHT) -> float:
    """The linear gain (1 to `s.most_gain`) that brings a paper `level` under `s.below` to
    `s.to`; 1.0 where there is no level, it is not under `s.below`, or `s.below` is 0."""
    if level is None or s.below <= 0 or level >= s.below:
        return 1.0
    return float(min(max(s.to / max(level, 1e-4), 1.0), s.most_gain))


@dataclass(frozen=True)
class CardShadowSettings:
    """A hard shadow's shade lit up and the photo read again (`vision.cards.stage.shadow_relit`;
    session 18, H1, docs/cards.md "Hard shadow (session 18, H1)"). Measured on `light_eval`'s
    normal and shadow copies of the committed, edition-2 and fresh 2300-2303 sets (per photo,
    the reading with and without the second look)."""

    side: int = 640  # px: the edge looked for on a copy this long (`vision.area.shadow_edge`,
    #   as H14's prototype; 0: never)
    share: float = 0.6  # the edge's step agreeing on this share of its line (Hop la bille's
    #   area, `AREA_SETTINGS`; the other `shadow_*` thresholds as `AreaSettings`' defaults).
    #   An edge alone is no shadow: on 6 of the 30 committed ordinary photos one is found (the
    #   renderer's soft shadows, the wood's grain); read again on every edge, committed normal
    #   1.91 -> 2.29 %, fresh 2301 3.17 -> 4.13 %
    paper_step: float = 1.8  # the sure face-up cards' paper (linear, medians) at least this
    #   many times darker in the shade than on the lit side: as much as the edge itself must
    #   step (`AreaSettings.shadow_ratio`); a table's own stripe or shading leaves the paper
    #   on it alike. Shadow copies with cards on both sides: steps 2.1-10.3, 5 lower (0.5-1.7;
    #   read again anyway, 2 of them 1 piece better, 3 the same)
    least_each_side: int = 1  # sure face-up cards wholly on each side, at least: 49 of the 80
    #   photos (of 240) with an edge have none on one side and are not read again (reading
    #   them again, "replace": shadow copies 7 pieces better (net); ordinary photos committed 0008
    #   and 0020 one piece worse each, fresh 2300 0012 5 better)
    agree: float = 1.0  # ... and this share of them on their own side of the two medians'
    #   geometric mean: all. A rendered shade that ends short of the photo's edge, cards lit
    #   again beyond it (fresh 2301 0005, ordinary light: 14 of 15 agree) was lit as a
    #   half-plane and read worse (2 -> 6 pieces wrong); shadow copies over `paper_step`
    #   all 1.0 but one (fresh 2300 0005, 0.94: 1 piece better read again, left)
    #   The lit-up reading is kept whole (as `paper_balanced`). Tried, not kept (session 18,
    #   H1, a "mode" setting nothing selected, dropped in the read-through): "add", the first
    #   look's plus the second's cards with no first-look card within half a width.
    #   Committed shadow 5.74 -> 4.59 % (replace) / 5.16 % (add), fresh 2301
    #   6.67 -> 5.71 / 6.67, 2302 5.94 -> 5.61 / 5.61, 2303 14.12 -> 13.82 / 14.12

    edges: int = 4  # candidate edges tried in turn (`vision.area.shadow_edges`, the
    #   best-agreeing line first), the first the paper confirms lit up. On shadow copies
    #   the best line is often the renderer's own shade with every sure card on one side
    #   (committed 0008, 0020: the same line in the ordinary copy); the shadow's own edge
    #   comes later. 1 -> 4 (session 18, H14): committed shadow 4.59 -> 4.01 %; edition 2, fresh
    #   2430-2433 and held-out 2434/2435 the same, no ordinary photo read again; 16 as 4

    def __post_init__(self):
        if self.edges < 1:
            raise ValueError(f"edges must be at least 1, not {self.edges}")
        if self.least_each_side < 1:
            raise ValueError(f"least_each_side must be at least 1, not {self.least_each_side}")


CARD_SHADOW = CardShadowSettings()


def shade_share(sides, points: np.ndarray) -> np.ndarray:
    """(n,) float: the shade's share of a `vision.area.shadow_edge`'s step at `points`
    ((n, 2) x, y px, the edge's pixels): 0 on the lit side, 1 wholly in the shade (the least
    over a band's two edges, as `relight_shadow` lights it)."""
    points = np.asarray(points, np.float64).reshape(-1, 2)
    share = np.ones(len(points))
    for p, n, (offs, wgt) in sides:
        d = (points - np.asarray(p, np.float64)) @ np.asarray(n, np.float64)
        share = np.minimum(share, np.interp(d, offs, wgt, left=0.0, right=1.0))
    return share


def paper_shade_step(image: np.ndarray, pieces: list[CardPiece], sides,
                     settings: ReadSettings = READ, s: PaperLightSettings = PAPER_LIGHT
                     ) -> tuple[float, int, int, float]:
    """(step, lit cards, shaded cards, agreeing share) of the sure face-up cards' paper
    (`paper_colour`, linear lightness) across a shadow's edge (`sides`, as `shadow_edge`
    gives them, in `image`'s pixels): the cards wholly on the lit side (all four corners
    of the frame) and wholly in the shade counted; step: the lit ones' median over the
    shaded ones' (0 where either side has none); agreeing share: of those cards, the
    share on their own side of the two medians' geometric mean (a lit card brighter, a
    shaded one darker). A shadow darkens white paper as much as the table, all over its
    shade; a table's own shading or stripe leaves the paper on it alike, and a shade
    that ends short of the photo's edge (lit again farther in) leaves cards beyond it
    lit."""
    from vision.area import LINEAR8

    faces = [p for p in sure_faces(pieces, settings) if p.frame is not None]
    if not faces:
        return 0.0, 0, 0, 0.0
    share = np.array([shade_share(sides, p.frame) for p in faces])  # (n, 4)
    lit, dark = share.max(axis=1) <= 0.0, share.min(axis=1) >= 1.0
    if not lit.any() or not dark.any():
        return 0.0, int(lit.sum()), int(dark.sum()), 0.0
    _, cols = paper_colour(image, [p.frame for p in faces], s)
    light = LINEAR8[np.clip(np.round(cols), 0, 255).astype(int)].mean(axis=1)
    a, b = float(np.median(light[lit])), max(float(np.median(light[dark])), 1e-4)
    mid = np.sqrt(max(a, 1e-4) * b)
    agree = float(np.concatenate([light[lit] > mid, light[dark] < mid]).mean())
    return a / b, int(lit.sum()), int(dark.sum()), agree
