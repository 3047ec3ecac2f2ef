"""Simsala Hopp: the castle's coats of arms as this photo's colour references.

pieces.md: the four walls' coats of arms are yellow, orange, blue and violet, in that order
going round. Under the photo's own light they show what each player colour looks like, so a
rabbit tile the classifier finds yellow or orange (the pair warm light confuses) can be
re-decided by which coat of arms its colour is nearer in hue.

- `shield_hues(image, area)`: each wall's most chromatic pixels (a strip outside the middle
  of each arena side, in the rectified plane; a nearer strip when that names none) give a
  Lab hue; the four are named by the cyclic order (either direction, any start) that fits
  the colours' usual hues best, or None when a wall shows no clear colour or no order fits.
  `balanced_shield_hues`: the same, else on the photo white balanced by its own light (a
  strong cast), with the strength used.
- `table_tone(image, area)`: a lamp's per-channel tone curve read off the table beyond the
  castle (`vision.preprocess.tone_of_pixels`), which no white balance takes off: under it a
  frog's green reads as yellow, to the classifier and to the colour cue alike.
  `kept_table_tone`: the same, or the reading `find_area` kept (`PlayArea.table_curve`).
- `recolour(probs, ...)`: the four coloured-rabbit probabilities times a hue likelihood
  (Gaussian in the hue difference to each coat of arms), keeping their sum.
Images are uint8 BGR; hues are degrees of atan2(b*, a*).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

COLOURS = ("yellow", "orange", "blue", "violet")  # the walls' order going round
NOMINAL_HUE = {"yellow": 90.0, "orange": 55.0, "blue": -90.0, "violet": -40.0}


@dataclass(frozen=True)
class ShieldSettings:
    along: tuple[float, float] = (0.3, 0.7)  # the strip along each side, share of the side
    depth: tuple[float, float] = (0.01, 0.11)  # ... and outside it (the wall), share
    # no naming there: once more nearer the arena, up to this share out (a thin wall's strip
    # reaches onto the table, whose wood outshone a small coat of arms: edition 2)
    near_depth: float = 0.07
    window_px: int = 64  # the strip is resampled to this many pixels square
    top_share: float = 0.15  # its most chromatic pixels are the coat of arms
    min_chroma: float = 15.0  # their mean chroma must reach this, else no reference
    max_error: float = 35.0  # mean hue difference of the best naming, degrees, at most
    # ... and each wall's at most this (a frog lying against a wall in shadow read as the
    # yellow coat of arms at 48 degrees off; walls read right: at most 37)
    max_wall_error: float = 45.0
    # no naming on the photo as it is: once more on the photo white balanced by its own light
    # (`vision.preprocess.light_gains`) at each of these strengths in turn. A harsh warm lamp
    # dulls the blue and violet coats of arms until the walls' and table's warm colours are
    # the strips' most chromatic pixels (edition 2 under `light_eval`'s harsh light: 0 of 10
    # named as it is, 6 with the ladder); a photo named as it is stays as it was
    balance_ladder: tuple[float, ...] = (0.5, 1.0)
    # named only balanced, or not at all: a lamp's per-channel tone curve (a gamma per
    # channel: `light_eval`'s harsh lamp, which squeezes a frog's green onto the yellow
    # coat of arms' hue, for the classifier and the colour cue alike) read off the table
    # beyond the castle (`table_tone`: the photo outside the arena grown by `tone_margin` x
    # its side each way (the walls and towers reach about 0.12), every `tone_step`-th pixel
    # of every `tone_step`-th row, clipped (`tone_clip`) and black ones left out) as
    # `vision.preprocess.tone_of_pixels` reads a cloth's (the marbles' bins, span and
    # deviations; both halves' slopes agreeing within `tone_agree`). Where it bends, the
    # curve is taken off about white (`tone_white`, as `AreaSettings.tone_white`) and the
    # ladder read on that photo too; its naming, and the crops cut from it, are kept where
    # the plain photo names none or lies further from the usual hues (`naming_error`; a
    # table whose colour follows its light and shade reads as a curve where there is none,
    # so each reading is judged by its coats of arms, as `AreaSettings.tone_judge` judges a
    # cloth). Measured (session 18, H3) on edition 2's lit copies, slopes B, G, R: the harsh
    # lamp's tables 1.27-1.35, 0.89-1.00, 0.64-0.69 on 6 of 10 (its gamma's 1.34, 0.98,
    # 0.67), the other 4 left alone by the agree test; under tungsten light (a gain in
    # linear light, no curve) 4 committed and fresh tables bent past 0.2 (a table darker
    # where redder or bluer): the judge kept the plain reading on 3 of them (naming error
    # 5.2-8.0 against 11.2-18.6 degrees). tone_dev[1] 0: off
    tone_margin: float = 0.175
    tone_step: int = 4
    tone_clip: int = 250
    tone_bins: int = 8
    tone_span: float = 0.15
    tone_dev: tuple[float, float] = (0.2, 0.3)
    tone_agree: float = 0.2
    tone_white: float = 255.0
    # ... leaving out the table within this many times a glare spot's core (`PlayArea.
    # glare`): the spot's added light bends the table's lighter half (edition 2's glare copy
    # 0000, its coats of arms not named as it is, read B, G, R slopes 2.0, 1.26, 0.5 and lost
    # 2 pieces to the curve taken off); `light_eval`'s spot adds under 2 % of white beyond
    # about 1.75 x its radius, about 4 x its clipped core's
    tone_glare_reach: float = 4.0
    sigma: float = 20.0  # hue difference scale of the likelihood, degrees
    weight: float = 1.0  # exponent of the likelihood


SHIELDS = ShieldSettings()


def _hue_diff(a, b):
    return (np.asarray(a, float) - b + 180.0) % 360.0 - 180.0


def shield_hues(image_bgr: np.ndarray, area, s: ShieldSettings = SHIELDS
                ) -> dict[str, float] | None:
    """{colour: hue} of the four coats of arms around the arena `area` (a
    `vision.area.PlayArea`), or None: read in the walls' strips `depth` out, else in the
    nearer strips up to `near_depth`."""
    hues = _hues_at(image_bgr, area, s.depth, s)
    if hues is None and 0 < s.near_depth < s.depth[1]:
        return _hues_at(image_bgr, area, (s.depth[0], s.near_depth), s)
    return hues


def balanced_shield_hues(image_bgr: np.ndarray, area, s: ShieldSettings = SHIELDS
                         ) -> tuple[dict[str, float] | None, float]:
    """`shield_hues` on the photo as it is, else on the photo white balanced by its own light
    at each of `s.balance_ladder`'s strengths in turn (a cast that hides a coat of arms):
    (the hues or None, the strength they were read at, 0 for the photo as it is). The tiles'
    colours compared with them must be measured in the same balance."""
    from vision.preprocess import apply_gains, light_gains

    hues = shield_hues(image_bgr, area, s)
    if hues is not None:
        return hues, 0.0
    for strength in s.balance_ladder:
        if strength > 0:
            hues = shield_hues(apply_gains(image_bgr, light_gains(image_bgr, strength)), area, s)
            if hues is not None:
                return hues, float(strength)
    return None, 0.0


def naming_error(hues: dict[str, float]) -> float:
    """The mean hue difference (degrees) of a naming (`shield_hues`) from the coats of arms'
    usual hues (`NOMINAL_HUE`): how well a photo's light leaves them recognisable."""
    return float(np.mean([abs(_hue_diff(h, NOMINAL_HUE[c])) for c, h in hues.items()]))


def table_tone(image_bgr: np.ndarray, area, s: ShieldSettings = SHIELDS
               ) -> np.ndarray | None:
    """A lamp's per-channel tone curve on the uint8 BGR photo `image_bgr`, read off the
    table beyond the castle round `area` (`ShieldSettings.tone_*`): (3,) float32 BGR
    exponents for `vision.preprocess.apply_tone` about `tone_white`, or None where the
    table shows none (or too little of it is seen, or the setting is off)."""
    from vision.preprocess import tone_of_pixels

    if s.tone_dev[1] <= 0:
        return None
    side = float(area.settings.plane_px)
    m = s.tone_margin
    quad = area.to_image(np.array([[-m, -m], [1 + m, -m], [1 + m, 1 + m], [-m, 1 + m]])
                         * side)
    k = max(1, s.tone_step)
    small = image_bgr[::k, ::k]
    mask = np.ones(small.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad / k).astype(np.int32), 0)
    px = small[mask > 0].astype(np.float32)
    keep = (px.max(axis=1) < s.tone_clip) & (px.min(axis=1) > 3)
    if getattr(area, "glare", ()) and s.tone_glare_reach > 0:  # (a spot's halo: its light
        from vision.area import near_glare_spots  # added, not a curve)

        y, x = np.nonzero(mask)
        keep &= ~near_glare_spots(x * float(k), y * float(k), area.glare, s.tone_glare_reach)
    px = px[keep]
    exps, _ = tone_of_pixels(px, s.tone_bins, s.tone_span, s.tone_dev, s.tone_agree)
    return None if np.all(exps == 1.0) else exps


def kept_table_tone(image_bgr: np.ndarray, area) -> np.ndarray | None:
    """`table_tone` of the uint8 BGR photo round `area` as `vision.area.find_area` read it
    where it did (`PlayArea.table_curve`: its (3,) float32 BGR exponents or None), else read
    here (with `SHIELDS`)."""
    read = getattr(area, "table_curve", ())
    return read[0] if read else table_tone(image_bgr, area)


def _hues_at(image_bgr: np.ndarray, area, depth: tuple[float, float], s: ShieldSettings
             ) -> dict[str, float] | None:
    """`shield_hues` in the strips `depth` (shares of the side) outside the arena."""
    side = float(area.settings.plane_px)
    (u0, u1), (d0, d1) = s.along, depth
    strips = [  # plane rectangles outside north, east, south, west
        [(u0, -d1), (u1, -d1), (u1, -d0), (u0, -d0)],
        [(1 + d0, u0), (1 + d1, u0), (1 + d1, u1), (1 + d0, u1)],
        [(u0, 1 + d0), (u1, 1 + d0), (u1, 1 + d1), (u0, 1 + d1)],
        [(-d1, u0), (-d0, u0), (-d0, u1), (-d1, u1)],
    ]
    n = s.window_px
    dst = np.float32([[0, 0], [n, 0], [n, n], [0, n]])
    hues = []
    for strip in strips:
        src = area.to_image(np.array(strip, float) * side).astype(np.float32)
        win = cv2.warpPerspective(image_bgr, cv2.getPerspectiveTransform(src, dst), (n, n))
        lab = cv2.cvtColor(win, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float32)
        a, b = lab[:, 1] - 128.0, lab[:, 2] - 128.0
        chroma = np.hypot(a, b)
        top = chroma >= np.percentile(chroma, 100 * (1 - s.top_share))
        if chroma[top].mean() < s.min_chroma:
            return None
        hues.append(float(np.degrees(np.arctan2(np.median(b[top]), np.median(a[top])))))
    best = None
    for start in range(4):
        for step in (1, -1):
            names = [COLOURS[(start + step * k) % 4] for k in range(4)]
            err = float(np.mean([abs(_hue_diff(h, NOMINAL_HUE[c]))
                                 for h, c in zip(hues, names, strict=True)]))
            if best is None or err < best[0]:
                best = (err, names)
    if best[0] > s.max_error or max(abs(_hue_diff(h, NOMINAL_HUE[c])) for h, c in
                                    zip(hues, best[1], strict=True)) > s.max_wall_error:
        return None
    return dict(zip(best[1], hues, strict=True))


def recolour(probs: np.ndarray, columns: dict[str, int], colours_lab: np.ndarray,
             hues: dict[str, float], s: ShieldSettings = SHIELDS) -> np.ndarray:
    """The classifier's (N, C) probabilities with the coloured-rabbit columns (`columns`:
    colour -> column) re-weighted by how near each crop's colour (`colours_lab` (N, 3) Lab,
    a/b about 0-centred) lies in hue to that colour's coat of arms; their sum is kept."""
    if len(probs) == 0:
        return probs
    hue = np.degrees(np.arctan2(colours_lab[:, 2], colours_lab[:, 1]))
    cols = [columns[c] for c in COLOURS]
    like = np.stack([np.exp(-0.5 * (_hue_diff(hue, hues[c]) / s.sigma) ** 2)
                     for c in COLOURS], axis=1) ** s.weight
    p = probs[:, cols]
    mass = p.sum(axis=1, keepdims=True)
    q = p * like + 1e-12
    out = probs.copy()
    out[:, cols] = q / q.sum(axis=1, keepdims=True) * mass
    return out
