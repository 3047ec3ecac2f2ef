"""Simsala Hopp: a tile's label from the cues that hold for any copy's artwork.

pieces.md: a frog is a green tile, a white rabbit a white/cream tile, a coloured rabbit the
same rabbit with its player colour dominant, a cat a dark grey/black tile. The classifier
learnt one copy's drawings; on another copy it reads frogs as yellow rabbits, pale coloured
rabbits as white ones and blue rabbits as frogs. Each crop's colour is measured
(`vision.teach.piece_colour`: the most chromatic pixels of the tile's middle, leaving out the
arena's or table's colour around it) with the median lightness of that middle, and turned into
a likelihood of each label:

- achromatic (chroma below `white_chroma`, soft by `chroma_width`): a white rabbit, or a cat
  when its middle is dark for this photo's light (below `cat_share` of the photo's light);
- chromatic: a coloured rabbit when its hue lies near any of this photo's coats of arms
  (`vision.shields.shield_hues`), the frog when near green: the yellow coat of arms' hue
  turned `frog_turn` degrees away from orange (Gaussian in the hue difference, `sigma`).

`reweigh` re-decides kind by kind: each kind's classifier probability (raised to
`model_weight`) times `floor + (1 - floor) * likelihood`, the classifier's piece mass shared
among the kinds again (whether a candidate is a piece at all stays the classifier's call) and
each kind's among its labels as before (which player colour stays `vision.shields.recolour`'s
call). Only with the coats of arms read. Where they could be read only on the photo white
balanced by its own light (`CueFrame`), a dark tile's chroma along the light's hue is the
cast the balance leaves (`without_cast`), not its colour. Relative to the photo's own tiles
(a photo's frogs, and its white rabbits, share one print under one light): a yellow reading
among the photo's frogs' green is a frog (`photo_frogs`, also without the coats of arms), a
white reading far from the photo's white rabbits toward blue or violet is that rabbit, toward
orange or yellow too where no lamp's falloff runs that way (`photo_whites`). `on_castle`:
candidates standing on the castle round the arena (its walls and towers) are no tiles.
Images are uint8 BGR; hues are degrees of atan2(b*, a*).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.shields import NOMINAL_HUE, _hue_diff


@dataclass(frozen=True)
class CueSettings:
    white_chroma: float = 20.0  # below this chroma a tile's colour is white, grey or black
    chroma_width: float = 3.0  # ... soft over this many chroma units
    # an achromatic tile whose middle is darker than this share of the photo's light (the
    # cat_light_q percentile of its candidates' middles: the white rabbits and frogs) is a
    # cat (measured, 5-95 %: white rabbits 0.67-1.37, cats 0.09-0.47, also in dim light and
    # in shadow, where white rabbits lie at L 24-31); with fewer than cat_min_light
    # candidates, darker than L cat_lightness (0-100)
    cat_share: float = 0.55
    cat_share_width: float = 0.05
    cat_light_q: float = 90.0
    cat_min_light: int = 5
    cat_lightness: float = 48.0
    lightness_width: float = 5.0
    frog_turn: float = 32.0  # the frog's green: the yellow coat of arms' hue turned this far
    # toward green (measured, 5-95 %: frogs 18-60 degrees from it, yellow rabbits -8-22; 38
    # took 3 more edition-2 frogs for yellow rabbits on 50 photos)
    sigma: float = 12.0  # hue difference scale of the chromatic likelihoods, degrees
    floor: float = 0.002  # a label the colour rules out keeps this share of its probability
    # (only with the coats of arms read: the pipeline leaves the colour out without them)
    model_weight: float = 0.7  # the classifier's probabilities count with this exponent
    # only a candidate the classifier gives at least this much for the game's labels in all
    # is re-decided (tiles: 0.3 and more on 130 photos): the colour of a note or a pen beside
    # the castle must not make it a sure rabbit
    min_piece_mass: float = 0.3
    inner: float = 0.6  # the tile's middle: this central share of the crop side
    border: float = 25.0  # pixels within this a-b distance of the crop's border colour (the
    # arena or table around the tile) are not the tile's colour
    # pieces.md: the arena lies inside a castle, its walls and a tower at each corner
    # standing round it. A candidate centred beyond an arena edge by this share of the arena
    # side or more, and by at most the walls' depth on both axes, stands on the castle: a
    # tower seen from above (a round disc of a tile's size, read as a blue rabbit on edition
    # 2) or a wall's coat of arms, no tile (measured on 130 SYNTHETIC photos: ~350 such
    # candidates, no tile; but the generator keeps tiles out of this band: on a real table a
    # tile lying on a wall would be dropped unwarned; a warning for tile-like candidates
    # there fired 32 times on 10 edition-2 photos, at the towers)
    castle_from: float = 0.025
    castle_to: float = 0.12  # (about the walls' depth, `ShieldSettings.depth` 0.11)
    # a cast the white balance leaves: where the coats of arms could be named only on the
    # photo balanced by its own light (`vision.shields.balanced_shield_hues`), a dark tile's
    # chroma along the light's own hue is that cast, not the tile's colour (a harsh warm
    # lamp's per-channel gamma turns a grey cat orange, which no gain undoes). Up to this
    # much of it is taken off, in proportion to how dark the tile is for this photo's light
    # (`cat_share`), for tiles within `cast_hue_width` degrees of the light's hue (measured,
    # 5-95 %: cats under `light_eval`'s harsh light C 15-31 at hue 50-76 in the balanced
    # crops; dark blue and violet rabbits lie 100 degrees and more away). 0: off
    cast_chroma: float = 30.0
    cast_hue_width: float = 45.0
    # the frogs' green read off this photo's own frogs (`photo_frogs`): a photo's frogs share
    # one print under one light, so their hues lie close together (spread about the photo's
    # median, 2-98 %: -8..+8 degrees under `light_eval`'s harsh lamp, -4..+5 normal, on
    # edition 2 and three fresh edition-2 sets), and its yellow rabbits (two at most) lie
    # 9.7 degrees and more short of it toward the yellow coat of arms (-12.1 normal, -24.8
    # edition 1). A tile read as a yellow rabbit within `frog_spread` of that median (or
    # past it) is a frog. The median is of the tiles read as frogs and of the yellow readings
    # beyond the game's two (the greenest: the counts leave no other reading), only with
    # `frog_anchors` of them and only where it lies `frog_min_turn` or more past the yellow
    # coat of arms (frogs are green; a misread orange rabbit among the yellow readings once
    # put it at -1.4), and a yellow reading nearer the orange coat of arms is not counted
    # (edition 2 daylight 0000: an orange rabbit read as yellow made a yellow rabbit the
    # third, a frog). Tiles `frog_window` or more from halfway between the yellow and frog
    # references are neither. frog_spread 0: off
    frog_spread: float = 8.0
    frog_anchors: int = 2
    frog_min_turn: float = 10.0
    frog_window: float = 45.0
    # a photo's white rabbits share one print and one light too: their colours (a*, b*) lie
    # within 9.8 of the photo's median white (98 %; 18.7 at most) under `light_eval`'s harsh
    # lamp on edition 2 and three fresh edition-2 sets, its blue and violet rabbits 14.7 and
    # more from it (2 %; a warm cast dulls a pale blue rabbit below `white_chroma`, read as
    # white). A tile read as a white rabbit `white_apart` or more from the median of the
    # photo's white readings (`white_anchors` of them at least) is the coloured rabbit whose
    # coat of arms' hue lies nearest its difference's, within `white_turn` degrees
    # (`photo_whites`; only with the coats of arms read). white_apart 0: off
    white_apart: float = 19.0
    white_anchors: int = 3
    # ... and toward blue or violet (`white_colours`) also nearer than `white_apart` where
    # the photo's light is dim: Lab's a*, b* shrink with the exposure as L + 16 does (a fifth
    # of the light: x 0.72), so dim blue and violet rabbits lie 10-17 from their whites
    # (edition 2 and fresh edition-2 sets under `light_eval`'s dim light). There a white
    # reading is far from `white_apart` times (the white readings' median middle lightness
    # + 16) / (`white_full` + 16), white paper's L in full light, and `white_spread` times
    # the white readings' own spread (their median distance from their median) or more:
    # without that second test (session 21 H7's dropped attempt) a cool or shaded light's
    # spread along blue turned white rabbits blue (2761 daylight 0010: a white 17.3 from the
    # median of white readings that lie 18.8 from it on the median; a white reading's own
    # distance is 2 x its photo's spread or less on 90 % of these photos). Not where a cast
    # had to be balanced away (`CueFrame.cast_hue`): a coloured light is no grey one
    # dimmed, and what the balance leaves spreads the whites its own way (fresh 2768
    # tungsten 0004: a white 10 from whites 0.8 apart, toward violet). white_spread 0: off
    white_full: float = 100.0
    white_spread: float = 3.0
    white_turn: float = 60.0
    # ... only toward these (cold) colours: a warm lamp's falloff spreads the white rabbits'
    # colours along its own (warm) hue (edition 2 tungsten 0006: two white rabbits 19+ from
    # their median toward yellow), the cast the balance leaves, not a tile's colour
    white_colours: tuple[str, ...] = ("blue", "violet")
    # ... and toward the other (warm) colours too where no lamp's falloff runs along that
    # colour's hue: the white readings' median shows no cast toward it (its a*, b* along the
    # hue at most `white_warm_cast`) and no cast had to be balanced away whose light lies
    # within `white_cast_turn` degrees of it (as `white_turn`: a white that far along the
    # light's hue may be its falloff; edition 2 tungsten 0006, balanced, light at 85 degrees:
    # its whites' median grey, two whites 19+ toward yellow at 101; daylight 0006's light at
    # 172, 77 from its orange coat of arms, is no warm lamp). A pale orange rabbit whose
    # colour a dim, cool or shaded light dulls below `white_chroma` is read as white
    # (edition 2 dim, daylight, shadow: 5 of 27 errors; fresh edition-2 dim 10 of 47)
    white_warm_cast: float = 0.0
    white_cast_turn: float = 60.0


CUES = CueSettings()


@dataclass(frozen=True)
class CueFrame:
    """How a photo's tiles' colours are to be measured against its coats of arms: `gains`
    (3,) float32 for the untaught crops (None: as they are), `cast_hue` (degrees, the
    photo's light, for a cast the balance leaves; None: no such cast) and `image` (uint8
    BGR, the working photo's size: the photo the untaught crops are cut from, a lamp's tone
    curve taken off; None: the photo itself)."""

    gains: np.ndarray | None = None
    cast_hue: float | None = None
    image: np.ndarray | None = None  # the photo with a lamp's tone curve taken off, the
    # crops cut from it (`vision.shields.table_tone`); None: the photo as it is


def light_hue(image_bgr: np.ndarray) -> float | None:
    """The hue (degrees of atan2(b*, a*)) of a uint8 BGR photo's light, its own white
    balance's estimate (`vision.preprocess.light_gains`); None for a black photo (no light
    to estimate: its gains are 0)."""
    from vision.preprocess import light_gains

    gains = light_gains(image_bgr, 1.0)
    if not np.all(gains > 0):
        return None
    light = 1.0 / gains
    bgr = np.clip(np.round(light / light.max() * 230.0), 0, 255).astype(np.uint8)
    lab = cv2.cvtColor(bgr.reshape(1, 1, 3), cv2.COLOR_BGR2Lab)[0, 0].astype(float) - 128.0
    return float(np.degrees(np.arctan2(lab[2], lab[1])))


def darkness_for_light(lightness: np.ndarray, light: float, s: CueSettings = CUES
                       ) -> np.ndarray:
    """(N,) 0-1: how dark (a cat's share, `cat_share`) each tile's median lightness is for
    the photo's `light` (`photo_light`)."""
    return 1.0 / (1.0 + np.exp(-(s.cat_share - lightness / light) / s.cat_share_width))


def without_cast(lab: np.ndarray, lightness: np.ndarray, light: float | None,
                 cast_hue: float | None, s: CueSettings = CUES) -> np.ndarray:
    """`lab` (N, 3) with a dark tile's chroma along the light's hue `cast_hue` taken off (up
    to `s.cast_chroma`, times the tile's darkness for this photo's `light`, only within
    `s.cast_hue_width` of that hue); unchanged without a cast hue, a light or the setting."""
    if cast_hue is None or light is None or s.cast_chroma <= 0 or not len(lab):
        return lab
    dark = darkness_for_light(lightness, light, s)
    u = np.array([np.cos(np.radians(cast_hue)), np.sin(np.radians(cast_hue))])
    ab = lab[:, 1:3].astype(float)
    hue = np.degrees(np.arctan2(ab[:, 1], ab[:, 0]))
    weight = dark * (np.abs(_hue_diff(hue, cast_hue)) < s.cast_hue_width)
    out = np.array(lab, dtype=float)
    out[:, 1:3] = ab - (weight * np.clip(ab @ u, 0.0, s.cast_chroma))[:, None] * u
    return out


def tile_colour(crops_bgr: np.ndarray, s: CueSettings = CUES) -> tuple[np.ndarray, np.ndarray]:
    """(N, S, S, 3) uint8 BGR crops -> ((N, 3) Lab of each tile's most chromatic pixels, a/b
    about 0-centred; (N,) median lightness 0-100 of its middle)."""
    from vision.teach import TeachSettings, piece_colour

    n = len(crops_bgr)
    if n == 0:
        return np.zeros((0, 3), np.float32), np.zeros(0, np.float32)
    lab = piece_colour(crops_bgr, TeachSettings(colour_inner=s.inner, colour_border=s.border))
    return lab, middle_lightness(crops_bgr, s)


def middle_lightness(crops_bgr: np.ndarray, s: CueSettings = CUES) -> np.ndarray:
    """(N, S, S, 3) uint8 BGR crops -> (N,) median lightness 0-100 of each one's middle."""
    n = len(crops_bgr)
    if n == 0:
        return np.zeros(0, np.float32)
    size = crops_bgr.shape[1]
    k = max(1, int(round(size * (1 - s.inner) / 2)))
    middle = np.ascontiguousarray(crops_bgr[:, k:size - k, k:size - k]).reshape(n, -1, 3)
    grey = cv2.cvtColor(middle, cv2.COLOR_BGR2Lab)[..., 0]
    return np.median(grey, axis=1).astype(np.float32) * (100.0 / 255.0)


def reference_hues(hues: dict[str, float] | None, s: CueSettings = CUES) -> dict[str, float]:
    """The hue of each coloured rabbit (this photo's coats of arms, else the usual hues) and
    of the frog's green (`frog_turn` from the yellow one, away from orange)."""
    ref = dict(hues) if hues is not None else dict(NOMINAL_HUE)
    away = np.sign(_hue_diff(ref["yellow"], ref["orange"])) or 1.0
    ref["frog"] = float(ref["yellow"] + away * s.frog_turn)
    return ref


def photo_light(lightness: np.ndarray, s: CueSettings = CUES) -> float | None:
    """This photo's light from its candidates' middles' lightness (`tile_colour`): their
    `cat_light_q` percentile, or None with fewer than `cat_min_light` of them."""
    if len(lightness) < s.cat_min_light:
        return None
    return max(float(np.percentile(lightness, s.cat_light_q)), 1.0)


def colour_likelihood(lab: np.ndarray, lightness: np.ndarray, labels: tuple[str, ...],
                      hues: dict[str, float] | None, light: float | None = None,
                      s: CueSettings = CUES, cast_hue: float | None = None) -> np.ndarray:
    """(N, len(labels)) likelihood in [0, 1] of each label from each tile's colour (`lab`,
    `lightness` of `tile_colour`; `light`: `photo_light`, None: the absolute
    `cat_lightness`; `cast_hue`: a cast the balance leaves, `without_cast`); labels
    without a colour cue get 1."""
    lab = without_cast(lab, lightness, light, cast_hue, s)
    chroma = np.hypot(lab[:, 1], lab[:, 2])
    hue = np.degrees(np.arctan2(lab[:, 2], lab[:, 1]))
    chromatic = 1.0 / (1.0 + np.exp(-(chroma - s.white_chroma) / s.chroma_width))
    if light is not None:
        dark = darkness_for_light(lightness, light, s)
    else:
        dark = 1.0 / (1.0 + np.exp(-(s.cat_lightness - lightness) / s.lightness_width))
    ref = reference_hues(hues, s)
    near = {k: np.exp(-0.5 * (_hue_diff(hue, h) / s.sigma) ** 2) for k, h in ref.items()}
    player = np.max([v for k, v in near.items() if k != "frog"], axis=0)
    out = np.ones((len(lab), len(labels)))
    for j, label in enumerate(labels):
        cue = "frog" if label == "frog" else label.removeprefix("rabbit-")
        if cue in ref:
            out[:, j] = chromatic * (near[cue] if cue == "frog" else player)
        elif label == "rabbit-white":
            out[:, j] = (1 - chromatic) * (1 - dark)
        elif label == "cat":
            out[:, j] = (1 - chromatic) * dark
    return out


def photo_frogs(probs: np.ndarray, columns: list[int], labels: tuple[str, ...],
                lab: np.ndarray, hues: dict[str, float] | None, yellow_limit: int = 2,
                s: CueSettings = CUES) -> np.ndarray:
    """The (N, C) probabilities (re-decided, `reweigh`) with the tiles read as yellow
    rabbits that lie among this photo's own frogs read as frogs (their frog and yellow
    probabilities swapped; see `CueSettings.frog_spread`). `columns`: `labels`' columns in
    `probs`; `lab` (N, 3): the tiles' colours (`tile_colour`, any cast taken off,
    `without_cast`); `hues`: this photo's coats of arms (None: their usual hues,
    `NOMINAL_HUE`, only to tell which side of the frogs is yellow); `yellow_limit`:
    how many yellow rabbits the game has. A lamp's tone curve squeezes green onto yellow, and
    the classifier, taught on other artwork, is sure of frogs as yellow rabbits there; the
    frogs' own hue in this photo tells them apart where the usual reference does not."""
    if (s.frog_spread <= 0 or not len(probs) or "frog" not in labels
            or "rabbit-yellow" not in labels):
        return probs
    p = probs[:, columns]
    read = np.argmax(p, axis=1)
    chroma = np.hypot(lab[:, 1], lab[:, 2])
    hue = np.degrees(np.arctan2(lab[:, 2], lab[:, 1]))
    ref = reference_hues(hues, s)
    away = np.sign(_hue_diff(ref["yellow"], ref["orange"])) or 1.0
    past = away * _hue_diff(hue, ref["yellow"])  # degrees past the yellow one, toward green
    near = ((p.sum(axis=1) >= s.min_piece_mass) & (chroma >= s.white_chroma)
            & (np.abs(past - 0.5 * s.frog_turn) < s.frog_window))
    frog = near & (read == labels.index("frog"))
    # (a yellow reading nearer the orange coat of arms is a misread orange rabbit: it takes
    # none of the game's two yellow places, so it makes no yellow reading beyond them a frog)
    orange = away * _hue_diff(ref["orange"], ref["yellow"])
    yellow = np.flatnonzero(near & (read == labels.index("rabbit-yellow"))
                            & (past > 0.5 * orange))
    yellow = yellow[np.argsort(past[yellow], kind="stable")]
    anchors = np.concatenate([past[frog], past[yellow[yellow_limit:]]])
    if len(anchors) < s.frog_anchors:
        return probs
    green = float(np.median(anchors))
    if green < s.frog_min_turn:
        return probs
    swap = yellow[past[yellow] >= green - s.frog_spread]
    if not len(swap):
        return probs
    f, y = columns[labels.index("frog")], columns[labels.index("rabbit-yellow")]
    out = probs.copy()
    out[swap, f], out[swap, y] = probs[swap, y], probs[swap, f]
    return out


def photo_whites(probs: np.ndarray, columns: list[int], labels: tuple[str, ...],
                 lab: np.ndarray, hues: dict[str, float] | None,
                 cast_hue: float | None = None, spot: bool = False,
                 lightness: np.ndarray | None = None, s: CueSettings = CUES) -> np.ndarray:
    """The (N, C) probabilities with the tiles read as white rabbits whose colour lies far
    from this photo's own white rabbits' (`CueSettings.white_apart`) read as the coloured
    rabbit their difference points to (the white and that colour's probabilities swapped).
    `columns`: `labels`' columns in `probs`; `lab` (N, 3): the tiles' colours
    (`tile_colour`, any cast taken off); `hues`: this photo's coats of arms (None:
    unchanged); `cast_hue`: the light's hue where a cast had to be balanced away
    (`CueFrame.cast_hue`), or None; `spot`: a lamp's glare spot was found on the photo
    (`PlayArea.glare`): its warm light falls off over the tiles round it, a cast no median
    of the whites sees, so no warm colour is taken. `lightness` (N,): the tiles' middles'
    median lightness (`tile_colour`; None: only `white_apart`): under a dim light a white
    reading nearer than `white_apart` toward blue or violet is that rabbit too where it lies
    far for this photo's light and its whites' own spread and no cast was balanced away
    (`CueSettings.white_spread`)."""
    white = "rabbit-white"
    if hues is None or s.white_apart <= 0 or not len(probs) or white not in labels:
        return probs
    p = probs[:, columns]
    read = np.flatnonzero((np.argmax(p, axis=1) == labels.index(white))
                          & (p.sum(axis=1) >= s.min_piece_mass))
    if len(read) < s.white_anchors:
        return probs
    median = np.median(lab[read, 1:3], axis=0)
    diff = lab[read, 1:3] - median
    dist = np.hypot(diff[:, 0], diff[:, 1])
    apart = dist >= s.white_apart
    # (nearer, toward a cold colour only: far for this photo's whites' own spread)
    near_cold = np.zeros_like(apart)
    if s.white_spread > 0 and lightness is not None and cast_hue is None:
        dim = (float(np.median(lightness[read])) + 16.0) / (s.white_full + 16.0)
        near_cold = ((dist >= s.white_apart * min(dim, 1.0))
                     & (dist >= s.white_spread * float(np.median(dist))))
    far = apart | near_cold
    if not far.any():
        return probs
    names = [c for c in hues if f"rabbit-{c}" in labels]  # (the nearest of all four; a warm
    #   one only where no lamp's falloff runs along it)
    out = probs.copy()
    w = columns[labels.index(white)]
    for i, (da, db), wide in zip(read[far], diff[far], apart[far], strict=True):
        turn = [abs(float(_hue_diff(np.degrees(np.arctan2(db, da)), hues[c]))) for c in names]
        if not names or min(turn) > s.white_turn:
            continue
        near = names[int(np.argmin(turn))]
        if near not in s.white_colours:
            if not wide:
                continue
            if spot or not _no_cast_toward(median, hues[near], s) or (
                    cast_hue is not None
                    and abs(float(_hue_diff(cast_hue, hues[near]))) < s.white_cast_turn):
                continue
            # (which warm colour: the tile's own hue, as `recolour` tells them; the
            # difference from a bluish white median leans toward yellow)
            warm = [c for c in names if c not in s.white_colours]
            own = np.degrees(np.arctan2(lab[i, 2], lab[i, 1]))
            near = min(warm, key=lambda c: abs(float(_hue_diff(own, hues[c]))))
        c = columns[labels.index(f"rabbit-{near}")]
        out[i, w], out[i, c] = probs[i, c], probs[i, w]
    return out


def _no_cast_toward(white: np.ndarray, hue: float, s: CueSettings = CUES) -> bool:
    """Whether the photo's white readings' median colour `white` (a*, b*) shows no cast
    toward `hue` (degrees): its part along that hue at most `s.white_warm_cast`."""
    h = np.radians(hue)
    return float(white[0] * np.cos(h) + white[1] * np.sin(h)) <= s.white_warm_cast


def on_castle(centers: np.ndarray, side: float, s: CueSettings = CUES) -> np.ndarray:
    """(N,) bool: which (N, 2) plane points (arena [0, side]^2) lie on the castle round the
    arena: `castle_from` .. `castle_to` beyond an arena edge on one axis or both, and no
    farther than `castle_to` on the other."""
    u = np.asarray(centers, float).reshape(-1, 2) / side
    beyond = np.maximum(-u, u - 1.0)  # (N, 2) how far beyond the arena on each axis
    return (beyond.max(axis=1) >= s.castle_from) & (beyond.max(axis=1) <= s.castle_to)


def reweigh(probs: np.ndarray, columns: list[int], labels: tuple[str, ...], like: np.ndarray,
            s: CueSettings = CUES) -> np.ndarray:
    """The classifier's (N, C) probabilities re-decided by colour, kind by kind (`kind`):
    each kind's probability (the sum over its `labels`, at `columns`) raised to
    `model_weight`, times `s.floor + (1 - s.floor) * like` (its labels' (N, len(labels))
    likelihood, the same for each label of a kind), their former sum shared among the kinds
    again, and each kind's among its labels as before (which player colour stays the coats
    of arms' call, `vision.shields.recolour`). Rows whose sum is below `min_piece_mass`
    unchanged."""
    floor = s.floor
    if len(probs) == 0 or floor >= 1:
        return probs
    names = sorted({kind(label) for label in labels})
    group = np.array([[kind(label) == k for k in names] for label in labels], float)  # (L, K)
    p = probs[:, columns]
    mass = p.sum(axis=1, keepdims=True)
    pk = p @ group  # (N, K)
    like_k = (like @ group) / group.sum(axis=0)
    qk = pk ** s.model_weight * (floor + (1 - floor) * like_k) + 1e-12
    qk = qk / qk.sum(axis=1, keepdims=True) * mass
    share = np.where(pk @ group.T > 0, p / np.maximum(pk @ group.T, 1e-12),
                     1.0 / (group @ group.sum(axis=0)))  # each label's part of its kind
    out = probs.copy()
    out[:, columns] = np.where(mass >= s.min_piece_mass, (qk @ group.T) * share, p)
    return out


def kind(label: str) -> str:
    """A Simsala Hopp label's kind, the part its colour decides: `frog`, `rabbit-white`,
    `cat`, or `rabbit` for every player colour."""
    return "rabbit" if label.startswith("rabbit-") and label != "rabbit-white" else label


def disagreements(model_labels, labels, centres) -> list[str]:
    """A warning for each piece whose kind (`kind`) by its colour (`labels`, as counted)
    differs from the classifier's own reading (`model_labels`); `centres` (N, 2) photo
    pixels."""
    return [f"the tile at ({x:.0f}, {y:.0f}) looks like a {m} to the classifier, but its "
            f"colour says {lab}: counted as {lab}; check it"
            for m, lab, (x, y) in zip(model_labels, labels, centres, strict=True)
            if kind(m) != kind(lab)]
