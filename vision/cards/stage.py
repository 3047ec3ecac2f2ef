"""The card stage as the pipeline calls it: one photo -> `Detections` + facts + warnings.

`read_cards(reader, image, scale, game, area=None, jpeg_quality=None)`:
- Magic Rabbit: every piece in zone `line`; facts `{"line", "won"}`.
- Troetofanten: zones from the cards themselves; facts `{"zones"}`.
- Hop la bille: the cards only (the marbles are the pipeline's own stage); `area` (the
  cloth, a `vision.area.PlayArea`) gives each card's side; facts `{"cards"}`.
`image` is the working image (uint8 BGR), `scale` maps its pixels to the original photo's;
`jpeg_quality` the photo's (`Photo.jpeg_quality`: a heavy JPEG's Troetofanten numbers are
read from a smoothed copy).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.area import AreaSettings
from vision.cards.geometry import area_scaled, keeping_scaled
from vision.cards.light import (
    CARD_SHADOW,
    CARD_TONE,
    DIM_LIGHT,
    PAPER_LIGHT,
    CardShadowSettings,
    CardToneSettings,
    DimLightSettings,
    PaperLightSettings,
    card_tone,
    dim_gain,
    keeping_paper,
    paper_gains,
    paper_level,
    paper_shade_step,
)
from vision.cards.read import (
    AT_POSITION,
    READ,
    CardReader,
    colour_doubts,
    compressed_sigma,
    hop_card_facts,
    magic_facts,
    small_card_doubts,
    smoothing_numbers,
    troeto_facts,
    warnings_when,
)
from vision.detections import Detections
from vision.preprocess import apply_gains, power_about

CARD_GAMES = ("magic-rabbit", "troetofanten")  # read by the card stage alone
GLARE_AREA = AreaSettings("cloth", 0.0, 0, shadow_share=0.3, shadow_gap=0.5)  # only its
#   glare_* thresholds count for the spots (as `vision.mauer.MauerSettings.glare_area`: no
#   spot on the committed photos in ordinary light), its shadow_* ones for a shadow's edge
#   through a spot's ring (`vision.area.spots_past_shadow`, looked for only on a photo with
#   a spot; the ring test is the guard, the edge only says where to look): looser than the
#   area's 0.6 / 0.15, since the cards and the spot itself break the edge's step (synthetic
#   white-table patches cut by a shadow, as in tests/vision/test_cards_keys.py: 1 of 10
#   dropped at 0.4 / 0.15, 8 at 0.4 / 0.3, 10 at 0.3 / 0.5. light_eval copies at 0.3 / 0.5:
#   the renderer's bright patches on white tables in committed shadow 0018, fresh 2003
#   shadow 0013 and held-out 1937 shadow 0019 dropped (0.4 / 0.15: 0018 kept), none of the
#   87 lamp spots on the committed, edition-2 and fresh 2000-2003 glare copies)
PAPER_LIGHT_GAMES = ("troetofanten",)  # faces on white paper: balanced by it (`paper_balanced`)
# the games whose cards are read again under a lamp's glare spot (`glare_added`):
#   Troetofanten's, and (session 22, H6) Hop la bille's, whose cards by a spot were missed:
#   light_eval's glare copies of committed, edition 2 and fresh 2830-2831 (80 photos):
#   piece errors 236 -> 224, all cards (of the 21 missed where the cloth was found right, 10
#   read), none lost; a photo with a spot pays a second read (committed glare copies' CPU
#   140 -> 240 ms median, none on ordinary photos: the spot search 2.6 ms)
#   (docs/hop-la-bille.md "Glare again (session 22, H6)")
GLARE_READ_GAMES = ("troetofanten", "hop-la-bille")
HEAP_KEEP_MB = 32  # glibc keeps freed blocks up to this size for reuse while cards are read
#   (`vision.mauer.keep_heap`, the process' setting, as Mauerhuepfer's `heap_keep_mb`): a
#   photo's images were fresh pages each time. Troetofanten, 20 committed photos in one
#   process, load 10: page faults 32-44 k -> 0-4 k, system CPU per photo (median) 1.9-3.2
#   -> 0.2-0.7 ms (session 21, H1); the same readings (0: as it is)


@dataclass(frozen=True)
class CardGlareSettings:
    """A lamp's glare spot on a Troetofanten table: the photo read again with the spot's
    light taken off, its cards near the spot added (`glare_added`; session 18, H10,
    docs/cards.md "Glare (session 18, H10)")."""

    side: int = 640  # px: spots looked for on a copy this long (as Magic Rabbit's
    #   `ReadSettings.glare_side`; 0: never)
    reach: float = 3.0  # x the spot's core half axes: the second look's cards added only
    #   within this of a spot's centre (the light `remove_glare` takes off reaches as far,
    #   `AreaSettings.glare_reach`); elsewhere the photo is as it was
    keep_core: tuple[int, int] = (230, 250)  # the photo's lowest channel: from the first
    #   the light taken off fades out, at the second the photo is left as it is
    core_doubt: float = 1.0  # x the spot's core half axes: a card the second look adds with
    #   its centre within this of a spot's centre (under its clipped core) gets its own
    #   warning; kept all the same. Measured (session 18, H11) on light_eval's glare copies
    #   of the committed, edition-2 and fresh 2400-2403 photos: of the 13 cards added there
    #   6 right, 5 with a wrong number, 2 not there (beyond: 16 of 19 right, none false),
    #   and no surer than the right ones (confidence 0.40-0.89 / 0.40-0.88); not adding
    #   any within 1.0: errors 275 -> 277 (0.5: 275). 0: no such warning


CARD_GLARE = CardGlareSettings()


@dataclass(frozen=True)
class LampToneSettings:
    """A lamp's per-channel tone curve taken off the photo Hop la bille's cards are read on
    (`lamp_tone_off`; session 17, H15, docs/hop-la-bille.md "Harsh lamp")."""

    on: bool = True  # light_eval's harsh copies (pieces wrong, card errors in brackets):
    #   committed 5.81 -> 4.36 % (cards 13 -> 3), edition 2 20.92 -> 17.35 %, fresh
    #   2210-2213 7.18 / 8.30 / 14.35 / 7.47 -> 6.70 / 7.69 / 13.45 / 7.24 %; the oracle
    #   (the lamp undone exactly) leaves no card error but edition 2's unknown backs
    white: float = 255.0  # the level the power is taken about: white stays white (about the
    #   cloth's median, as the marbles take it, the paper clips and blue frames read as
    #   backs or green: committed 5.38 %, fresh 2210 exact scenes 9 -> 7)


LAMP_TONE = LampToneSettings()


@dataclass(frozen=True)
class HatToneSettings:
    """A lamp's per-channel tone curve read off Magic Rabbit's hat tiles (`hat_tone`; session
    18, H4, docs/magic-rabbit.md "The second edition under a harsh lamp"): every copy's hat
    tile is a black top hat on white paper, neutral from black through the blur's greys to
    white, so under a light that only scales the channels each channel's log level rises
    with the log brightness at a slope of 1 there (`vision.preprocess.tone_of_pixels`)."""

    on: bool = True
    inner: int = 9  # px of the tile warped to `size`: its interior from this far in (past
    #   the coloured frame, `read.RING_EDGES` 2-6)
    size: int = 40
    min_hats: int = 2  # fewer tiles read as hats: nothing read off
    clip: int = 250  # pixels with a channel this high (clipped) or one at 3 or under left out
    bins: int = 8
    span: float = 0.15
    dev: tuple[float, float] = (0.2, 0.3)  # a largest |slope - 1| up to dev[0] left alone,
    #   from dev[1] taken off in full (as the marbles', `MarbleSettings.tone_dev`). Measured
    #   on light_eval's copies (largest |slope - 1| per photo, hats of the first reading):
    #   committed 30 photos normal / tungsten / daylight / dim / shadow / glare 0.00-0.17,
    #   harsh 0.14-0.44 (28 of 30 at 0.2 or more); edition 2 (10) every other light
    #   0.00-0.15, harsh 0.29-0.44 (its curve B 1.34, G 0.99, R 0.67 about the mean)
    white: float = 255.0  # taken off about white, as `LampToneSettings.white`
    max_chroma: float = 50.0  # the hats' paper near neutral (session 18, H4b): the Lab
    #   chroma (OpenCV 8-bit a/b, less 128) of the median of the interiors' brightest tenth
    #   (by L). A copy whose hat tiles are printed on a saturated paper leans its weak
    #   channel by the print's own black, not a lamp's curve: committed photos with the
    #   paper recoloured yellow / orange (R, G, B 250, 220, 40 / 250, 160, 60) read a curve
    #   on 11 / 8 of 30 photos in ordinary light, paper chroma 57-82 / 39-66, H4's re-read
    #   losing 11 / 5 right labels; cream, pale blue, pale pink read none. light_eval's
    #   harsh copies of white paper: 17-44 (every set H4 measured). Over it, the second
    #   reading is kept only where it is as sure (`sure`) as the first
    sure: float = 0.8  # confidence of a piece read surely (as `ReadSettings.colour_sure`):
    #   over `max_chroma` the second reading must have as many pieces and as many sure ones

HAT_TONE = HatToneSettings()


@dataclass(frozen=True)
class CardResult:
    detections: Detections
    facts: dict
    warnings: list[str]


def photo_px_warnings(warnings: list[str], scale: float) -> list[str]:
    """The reader's warnings with their "at (x, y)" positions in the original photo's pixels
    (the reader works on the working image; `scale` maps its pixels to the photo's), as the
    pieces' centres are."""
    if scale == 1.0:
        return list(warnings)
    return [AT_POSITION.sub(lambda m: f"at ({float(m.group(1)) * scale:.0f}, "
                                      f"{float(m.group(2)) * scale:.0f})", w)
            for w in warnings]


def paper_balanced(reader: CardReader, image: np.ndarray, game: str, pieces: list,
                   warnings: list[str], s: PaperLightSettings = PAPER_LIGHT, area=None,
                   tone: CardToneSettings = CARD_TONE):
    """(image, pieces, warnings): where the face-up cards' paper read first shows a strong
    cast (`vision.cards.light.paper_gains`, a gain of `s.cast` or more), the photo balanced
    by it and read again (with the first look's `area`), the second reading kept; the first
    look's otherwise, or where the second reads nothing (not a card left for scoring).
    Under a cast, a lamp's tone curve the cards show (`vision.cards.light.card_tone`) is
    taken off first (`power_about` about white) and the paper's gains read on that copy.
    (Tried, not kept: adding back the first look's cards the second has nothing within half
    a width of: light_eval worse on balance, docs/cards.md.)"""
    if s.cast <= 0:
        return image, pieces, warnings
    gains = paper_gains(image, pieces, reader.settings, s)
    if gains.max() < s.cast:
        return image, pieces, warnings
    exps = card_tone(image, pieces, reader.settings, tone)  # (a lamp's curve looked for
    #   under a cast only: 12 ms a photo, session 21 H5)
    if not np.all(exps == 1.0):
        image_t = power_about(image, exps, tone.white)
        balanced = apply_gains(image_t, paper_gains(image_t, pieces, reader.settings, s))
    else:
        balanced = apply_gains(image, gains)
    again, warnings2 = reader.read_pieces(balanced, game, area)
    if not again:
        return image, pieces, warnings
    return balanced, again, warnings2


def shadow_edges_scaled(image: np.ndarray, s: CardShadowSettings) -> list:
    """`vision.area.shadow_edges` (up to `s.edges`) of uint8 BGR `image` (H, W, 3), looked
    for on a copy reduced to `s.side` px on its long side (not enlarged), with their lines
    in `image`'s pixels; [] where none is found or `s.side` is 0."""
    if s.side <= 0:
        return []
    from vision.area import shadow_edges

    small, f = reduced_copy(image, s.side)
    edges = shadow_edges(small, AreaSettings("cloth", 0.0, 0, shadow_share=s.share),
                         limit=s.edges)
    return [(gains, [(np.asarray(p) / f, n, (np.asarray(offs) / f, wgt))
                     for p, n, (offs, wgt) in sides]) for gains, sides in edges]


def shadow_relit(reader: CardReader, image: np.ndarray, game: str, pieces: list,
                 warnings: list[str], s: CardShadowSettings = CARD_SHADOW, area=None):
    """(image, pieces, warnings): where a hard shadow's straight edge crosses the photo
    (`shadow_edges_scaled`, the first of up to `s.edges` candidates the paper confirms)
    and the sure face-up cards' paper in its shade is at least `s.paper_step` x darker
    than on its lit side (`paper_shade_step`, at least `s.least_each_side` cards wholly on
    each, `s.agree` of them on their own side's level), the shade lit up by the edge's
    gains (`vision.area.relight_shadow`) and read again (with the first look's `area`): the
    second reading and the lit-up image (the first look's where it reads nothing). The
    first look's, unchanged, otherwise."""
    for edge in shadow_edges_scaled(image, s):  # the first the paper confirms
        step, n_lit, n_dark, agree = paper_shade_step(image, pieces, edge[1], reader.settings)
        if min(n_lit, n_dark) >= s.least_each_side and step >= s.paper_step and \
                agree >= s.agree:
            break
    else:
        return image, pieces, warnings
    from vision.area import relight_shadow

    lit = relight_shadow(image, edge)
    again, warnings2 = reader.read_pieces(lit, game, area)
    return (lit, again, warnings2) if again else (image, pieces, warnings)


def warnings_about(warnings: list[str], pieces: list) -> list[str]:
    """The `warnings` whose "at (x, y)" (`AT_POSITION`, the first) lies within half a width
    of one of `pieces`' centres; those without a position are left out."""
    out = []
    for w in warnings:
        m = AT_POSITION.search(w)
        if m is None:
            continue
        xy = np.array([float(m.group(1)), float(m.group(2))])
        if any(np.hypot(*(xy - p.center)) < 0.5 * p.width for p in pieces):
            out.append(w)
    return out


def glare_off(image: np.ndarray, side: int) -> np.ndarray:
    """uint8 BGR `image` with its lamp's glare spots' light taken off: the spots
    (`vision.area.glare_spots`, `GLARE_AREA`'s thresholds; less those whose ring a hard
    shadow darkened, `vision.area.spots_past_shadow`) looked for on a copy reduced to
    `side` px on its long side (not enlarged), their light taken off the photo
    (`vision.area.remove_glare_scaled`). The photo itself where none is found or `side` is
    0."""
    found = glare_spots_scaled(image, side)
    if found is None:
        return image
    from vision.area import remove_glare_scaled

    small, _, spots = found
    return remove_glare_scaled(image, small, GLARE_AREA, spots)


def glare_spots_scaled(image: np.ndarray, side: int, settings: AreaSettings = GLARE_AREA):
    """(reduced copy, its scale f, spots): `vision.area.glare_spots` (less
    `spots_past_shadow`'s) of uint8 BGR `image` looked for on a copy `side` px on its long
    side (not enlarged); spots in the copy's pixels. None where `side` is 0."""
    if side <= 0:
        return None
    from vision.area import glare_spots, spots_past_shadow

    small, f = reduced_copy(image, side)
    return small, f, spots_past_shadow(small, settings, glare_spots(small, settings))


def reduced_copy(image: np.ndarray, side: int) -> tuple[np.ndarray, float]:
    """(copy, f): uint8 BGR `image` (H, W, 3) reduced (INTER_AREA) by f to `side` (> 0) px on
    its long side; the image itself, f 1, where it is no longer (never enlarged). Within
    `keeping_scaled` the copy is shared (`area_scaled`): the caller must not write into it."""
    f = min(1.0, side / max(image.shape[:2]))
    return (area_scaled(image, f) if f < 1 else image), f


def glare_added(reader: CardReader, image: np.ndarray, game: str, pieces: list,
                warnings: list[str], s: CardGlareSettings = CARD_GLARE, area=None):
    """(image, pieces, warnings): where a lamp's glare spot is found (`glare_spots_scaled`),
    the photo with its light taken off (`vision.area.remove_glare_scaled`) read again (with
    `area`) and its cards that lie within `s.reach` x a spot's core half axes of its centre
    and with no first-look card within half a width added to the first look's (with the
    second's warnings about them, a warning at each spot, and one for each card added with
    its centre within `s.core_doubt` x the core's half axes, under its clipped middle); the
    first look's image and reading, unchanged, otherwise."""
    found = glare_spots_scaled(image, s.side)
    if found is None or not found[2]:
        return image, pieces, warnings
    small, f, spots = found
    from vision.area import glare_distance, remove_glare_scaled

    clean = remove_glare_scaled(image, small, GLARE_AREA, spots)
    if s.keep_core[1] > s.keep_core[0]:
        lo, hi = s.keep_core
        keep = np.clip((image.min(axis=2).astype(np.float32) - lo) / (hi - lo), 0, 1)[..., None]
        clean = np.round(clean * (1 - keep) + image * keep).astype(np.uint8)
    again, warnings2 = reader.read_pieces(clean, game, area)

    def near(q, sp) -> bool:
        x, y = np.asarray(q.center, np.float64) * f
        return float(glare_distance(x, y, sp)) <= s.reach

    new = [q for q in again if any(near(q, sp) for sp in spots)
           and not any(np.hypot(*(np.asarray(q.center) - p.center)) < 0.5 * p.width
                       for p in pieces)]
    pieces = pieces + new
    doubts = [f"a lamp's glare spot at ({sp[0][0] / f:.0f}, {sp[0][1] / f:.0f}) washes the "
              "photo out: a card under it may be missed or misread; check the table there"
              for sp in spots if any(near(q, sp) for q in pieces)]
    doubts += [f"the {q.label} at ({q.center[0]:.0f}, {q.center[1]:.0f}) was read under the "
               "washed-out middle of a lamp's glare spot: it may be misread or not there at "
               "all; check it" for q in new
               if any(float(glare_distance(*(np.asarray(q.center, np.float64) * f), sp))
                      < s.core_doubt for sp in spots)]
    return image, pieces, warnings + warnings_about(warnings2, new) + doubts


def dim_added(reader: CardReader, image: np.ndarray, game: str, pieces: list,
              warnings: list[str], s: DimLightSettings = DIM_LIGHT, area=None):
    """(image, pieces, warnings) for the uint8 BGR photo `image` (H, W, 3) and the first
    look's `pieces` and `warnings` (its pixels): where the sure face-up cards' white paper is
    dark (`vision.cards.light.paper_level` under `s.below`: an underexposed photo), a copy
    brought up by one gain in linear light (`dim_gain`, the paper to `s.to`) read again
    (with `area`), and its cards with no first-look card within `s.reach` x its width added
    to the first look's (with the second's warnings about them). The first look's numbers stand:
    on a noisy photo a second reading misreads as many digits as it mends (session 14).
    The image is the first look's, unchanged."""
    gain = dim_gain(paper_level(image, pieces, reader.settings, s), s)
    if gain == 1.0:
        return image, pieces, warnings
    from vision.area import linear_gain_lut

    def added(again: list) -> list:  # (its cards with no first-look card near)
        return [q for q in again if not any(np.hypot(*(np.asarray(q.center) - p.center))
                                            < s.reach * p.width for p in pieces)]

    look = reader
    if not s.far_look and reader.settings.far_scale is not None:  # (the copy's reading
        #   without a far look of its own: `DimLightSettings.far_look`)
        look = copy.copy(reader)
        look.settings = replace(reader.settings, far_scale=None)
    with warnings_when(lambda again: bool(added(again))):  # (its warnings made only where
        #   it adds cards)
        again, warnings2 = look.read_pieces(cv2.LUT(image, linear_gain_lut(gain)), game,
                                            area)
    new = added(again)
    if not new:
        return image, pieces, warnings
    return image, pieces + new, warnings + warnings_about(warnings2, new)


def read_balanced(reader: CardReader, image: np.ndarray, game: str, area=None,
                  keys=None):
    """(image, pieces, warnings) as scoring reads a photo: Magic Rabbit's with a lamp's
    glare taken off first (`glare_off`), Hop la bille's (with its cloth, `area`) with a
    lamp's tone curve (`lamp_tone_off`), `read_pieces`, then Magic Rabbit's read again with
    a lamp's tone curve its hats show taken off (`hat_toned`; a taught reader's hats are the
    ones its `tone_pieces` names), `paper_balanced`, `shadow_relit`, `glare_added` and
    `dim_added` for the `PAPER_LIGHT_GAMES` (`glare_added` for the `GLARE_READ_GAMES`, after
    `shadow_relit`). The image returned is the one the kept reading
    was read on (`glare_added` and `dim_added` add cards read on a copy and return the first
    look's image). `keys`: Hop la bille's, the detector's key points on `image` as
    `CardReader.detect_keys` gives them (read while the cloth was found, `early_keys`), used
    where the lamp's curve left `image` as it is (else the toned photo's are found)."""
    photo = image
    if game == "magic-rabbit":
        image = glare_off(image, reader.settings.glare_side)
    elif game == "hop-la-bille" and area is not None:
        image = lamp_tone_off(image, area)
    if keys is not None and game == "hop-la-bille" and image is photo:
        pieces, warnings = reader.read_pieces(image, game, area, keys=keys)
    else:
        pieces, warnings = reader.read_pieces(image, game, area)
    if game == "magic-rabbit":
        tone_pieces = getattr(reader, "tone_pieces", None)  # (a taught reader: the hats
        #   the untaught model reads, `vision.teach_cards.untaught_labels`)
        if tone_pieces is None:
            image, pieces, warnings = hat_toned(reader, image, pieces, warnings)
        else:
            toned, again, warnings2 = hat_toned(reader, image, tone_pieces(image, pieces),
                                                warnings)
            if toned is not image:  # (else the first reading, the taught one, is kept)
                image, pieces, warnings = toned, again, warnings2
    if game in PAPER_LIGHT_GAMES:
        image, pieces, warnings = paper_balanced(reader, image, game, pieces, warnings,
                                                 area=area)
        image, pieces, warnings = shadow_relit(reader, image, game, pieces, warnings,
                                               area=area)
    if game in GLARE_READ_GAMES:
        image, pieces, warnings = glare_added(reader, image, game, pieces, warnings,
                                              area=area)
    if game in PAPER_LIGHT_GAMES:
        image, pieces, warnings = dim_added(reader, image, game, pieces, warnings,
                                            area=area)
    if game == "troetofanten":  # (the final pieces, in this image's pixels)
        warnings = warnings + small_card_doubts(pieces, warnings, reader.settings)
    return image, pieces, warnings


def lamp_tone_off(image: np.ndarray, area, s: LampToneSettings = LAMP_TONE) -> np.ndarray:
    """uint8 BGR `image` (H, W, 3) with a lamp's per-channel tone curve taken off as the
    cloth's own shading shows it (`vision.segment.cloth_tone`, the curve the marbles' crops
    are freed of; `area`: the cloth, a `PlayArea`), as a power per channel about `s.white`
    (white paper stays white; the lamp's gains are left, as under any cast). The photo
    itself where the cloth shows no curve (ordinary light: a gain leans no channel's slope)
    or `s.on` is off."""
    if not s.on:
        return image
    from vision.segment import MARBLE_SETTINGS, cloth_tone

    exps, _ = cloth_tone(MARBLE_SETTINGS, image, area)
    return power_about(image, exps, s.white)


def hat_reading(image: np.ndarray, pieces: list, s: HatToneSettings = HAT_TONE):
    """((3,) float32 BGR exponents, paper chroma): the exponents that take a lamp's
    per-channel tone curve off the uint8 BGR `image` (`power_about`), read off the
    interiors of the pieces read as hats (`pieces`: `CardPiece`s with a frame; each warped
    to `s.size` px, from `s.inner` px in; clipped and black pixels left out) by
    `vision.preprocess.tone_of_pixels`, and the Lab chroma of those interiors' brightest
    tenth (their paper; 0-181). Ones (chroma 0) where fewer than `s.min_hats` hats were
    read or `s.on` is off; ones where their greys tell nothing."""
    from vision.preprocess import tone_of_pixels

    frames = [p.frame for p in pieces if p.label.startswith("hat-") and p.frame is not None]
    if not s.on or len(frames) < s.min_hats:
        return np.ones(3, np.float32), 0.0
    n = s.size
    dst = np.float32([[0, 0], [n, 0], [n, n], [0, n]])
    yy, xx = np.mgrid[:n, :n]
    inner = np.minimum(np.minimum(xx, yy), np.minimum(n - 1 - xx, n - 1 - yy)) >= s.inner
    px = np.concatenate([cv2.warpPerspective(
        image, cv2.getPerspectiveTransform(np.float32(f), dst), (n, n),
        flags=cv2.INTER_AREA)[inner] for f in frames])
    lab = cv2.cvtColor(px[None], cv2.COLOR_BGR2LAB)[0].astype(np.float32)
    top = lab[lab[:, 0] >= np.percentile(lab[:, 0], 90)]
    chroma = float(np.hypot(np.median(top[:, 1]) - 128, np.median(top[:, 2]) - 128))
    px = px.astype(np.float32)
    px = px[(px.max(axis=1) < s.clip) & (px.min(axis=1) > 3)]
    exps, _ = tone_of_pixels(px, s.bins, s.span, s.dev)
    return exps, chroma


def hat_tone(image: np.ndarray, pieces: list, s: HatToneSettings = HAT_TONE) -> np.ndarray:
    """(3,) float32 BGR exponents of `hat_reading` where the hats' paper is near neutral
    (chroma up to `s.max_chroma`), else ones: a coloured paper's print leans its weak
    channel as a curve would."""
    exps, chroma = hat_reading(image, pieces, s)
    return exps if chroma <= s.max_chroma else np.ones(3, np.float32)


def as_sure(again: list, first: list, sure: float) -> bool:
    """Whether the reading `again` has as many pieces as `first`, and as many read with
    confidence `sure` or more."""
    def count(ps):
        return sum(p.confidence >= sure for p in ps)
    return len(again) >= len(first) and count(again) >= count(first)


def hat_toned(reader: CardReader, image: np.ndarray, pieces: list, warnings: list[str],
              s: HatToneSettings = HAT_TONE):
    """(image, pieces, warnings): Magic Rabbit's photo with a lamp's tone curve taken off
    (`hat_reading` of the first reading's hats, `power_about` `s.white`) and read again, the
    second reading kept; the first where the hats show no curve or the second reads
    nothing, and where the hats' paper is coloured (chroma over `s.max_chroma`, the curve
    perhaps the print's) unless the second is as sure (`as_sure`)."""
    exps, chroma = hat_reading(image, pieces, s)
    if np.all(exps == 1.0):
        return image, pieces, warnings
    toned = power_about(image, exps, s.white)
    again, warnings2 = reader.read_pieces(toned, "magic-rabbit")
    if not again or (chroma > s.max_chroma and not as_sure(again, pieces, s.sure)):
        return image, pieces, warnings
    return toned, again, warnings2


def read_cards(reader: CardReader, image: np.ndarray, scale: float, game: str,
               area=None, jpeg_quality: int | None = None, keys=None) -> CardResult:
    """The cards of uint8 BGR `image` (H, W, 3), the working image (`scale` maps its pixels
    to the photo's), read for `game` (the module's docstring): the Detections in the
    photo's pixels, the game's facts and warnings. Within `keeping_scaled` (one area
    resize per image and scale, dropped after it); sets the process' allocator setting
    `keep_heap(HEAP_KEEP_MB)` (made once: later calls cost nothing). `jpeg_quality`: the
    photo's (`Photo.jpeg_quality`); a heavily compressed one has its Troetofanten numbers
    read from a smoothed copy (`compressed_sigma`, `smoothing_numbers`). `keys`: Hop la
    bille's key points on `image` found already (`early_keys`; `read_balanced`'s), or None."""
    from vision.mauer import keep_heap

    keep_heap(HEAP_KEEP_MB)
    sigma = compressed_sigma(jpeg_quality, scale, getattr(reader, "settings", READ))
    with keeping_scaled(), smoothing_numbers(sigma), keeping_paper():  # (the photo's area
        #   resizes made once, `area_scaled`; a heavy JPEG's numbers read smoothed; the
        #   paper's colour read once per image and cards, `paper_colour`)
        return _read_cards(reader, image, scale, game, area, keys)


def early_keys(reader: CardReader, image: np.ndarray, game: str):
    """Hop la bille: the detector's key points on the photo `image` (uint8 BGR) as
    `read_balanced` would find them (`CardReader.detect_keys`), found before the cloth is
    (they need no area: the pipeline reads them on the cards' thread while its own finds the
    cloth, issue 6); None for other games, or a reader whose `read_pieces` takes no key
    points (a taught one's). Call it within the same `keeping_scaled` as `read_cards` to
    share the photo's area resize."""
    if game != "hop-la-bille" or not isinstance(reader, CardReader) \
            or "read_pieces" in vars(reader):
        return None
    return reader.detect_keys(image, game)[0]


def magic_read(reader: CardReader, image: np.ndarray) -> tuple[list, dict, list[str]]:
    """Magic Rabbit's (pieces, facts, warnings) of uint8 BGR `image` (H, W, 3) as it lies:
    `read_balanced`, the layout's numbers (`settle_numbers`), the line and the frames'
    colour doubts; positions in `image`'s pixels."""
    from vision.cards.lineup import settle_numbers

    image, pieces, warnings = read_balanced(reader, image, "magic-rabbit")
    pieces, more0 = settle_numbers(pieces)
    facts, more = magic_facts(pieces)
    return pieces, facts, warnings + more0 + more + colour_doubts(image, pieces,
                                                                  reader.settings)


def _read_cards(reader: CardReader, image: np.ndarray, scale: float, game: str,
                area=None, keys=None) -> CardResult:
    if game == "magic-rabbit":
        from vision.cards.turned import read_any_turn

        pieces, facts, more = read_any_turn(lambda im: magic_read(reader, im), image)
        warnings = []
        zones = ["line"] * len(pieces)
    elif game == "troetofanten":
        image, pieces, warnings = read_balanced(reader, image, game, area)
        facts, zones, more = troeto_facts(pieces)
    elif game == "hop-la-bille":
        image, pieces, warnings = read_balanced(reader, image, game, area, keys)
        if area is None:
            raise ValueError("Hop la bille cards need the cloth's area")
        cards, zones, more, keep = hop_card_facts(image, pieces, area.to_plane,
                                                  float(area.settings.plane_px))
        pieces = [p for p, k in zip(pieces, keep, strict=True) if k]
        zones = [z for z, k in zip(zones, keep, strict=True) if k]
        facts = {"cards": cards}
    else:
        raise ValueError(f"no card reading for {game}")
    det = Detections(
        labels=[p.label for p in pieces], zones=zones,
        confidence=np.clip([p.confidence for p in pieces], 0, 1) if pieces else [],
        centers=np.array([p.center * scale for p in pieces]).reshape(-1, 2),
        polygons=tuple(None if p.frame is None else p.frame * scale for p in pieces),
    )
    return CardResult(det, facts, photo_px_warnings(warnings + more, scale))
