"""Find the play area (the red Simsala Hopp arena, the Hop la bille cloth): its 4 corners in
the photo and the homography to a canonical top-down square view.

Method: a colour mask at reduced size (the arena is strongly red; the cloth light and
unsaturated), the largest component with its holes (pieces) filled, its convex hull reduced
to a quadrilateral, then each side refitted as a line through the component's boundary points
near it, so rounded, notched or partly covered corners (castle towers) still give the true
corner as the intersection of two sides.

Images are uint8 BGR; points are (x, y) pixels of the working image unless said otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.dice import (  # np.median bit for bit, less overhead (sorts, no checks);
    cc_stats,  # OpenCV's components with 16-bit labels where they fit: the same, faster
    median,
)
from vision.errors import AreaNotFound
from vision.preprocess import (
    apply_gains,
    apply_tone,
    light_gains,
    linear_to_srgb,
    power_about,
    srgb_to_linear,
    tone_of_pixels,
)


@dataclass(frozen=True)
class AreaSettings:
    kind: str  # "red" (Simsala Hopp arena) or "cloth" (Hop la bille)
    size_mm: float  # real side of the square area
    plane_px: int  # side of the rectified view in pixels
    mask_long_side: int = 480  # the colour mask is computed at this size
    # red: redness a* - red_b_weight * |b*| (Lab) above a level (wood, skin, orange and blue
    # cloth score low); cloth: lightness L above a level and chroma below cloth_chroma_max.
    # Levels are tried in turn until one gives a plausible square (red tables need a higher
    # red level, shadowed cloth a lower lightness level).
    red_b_weight: float = 0.3
    red_l_floor: float = 60.0  # redness is divided by max(L, this) / 100
    red_levels: tuple[float, ...] = (12.0, 20.0, 30.0, 40.0)
    cloth_levels: tuple[float, ...] = (120.0, 95.0, 150.0)
    cloth_chroma_max: float = 20.0
    min_area_frac: float = 0.02  # of the photo
    min_seed_frac: float = 0.01  # colour blobs smaller than this share of the photo are no seed
    grow_tolerance: int = 3  # flood fill: Lab step allowed between neighbouring pixels
    line_tol: float = 0.01  # side inlier distance, share of the mean side length
    line_tol_model: float = 0.03  # the same for the network's (smoother, coarser) mask
    model_thresholds: tuple[float, ...] = (0.5, 0.8)  # network mask: probability above this
    min_colour_share: float = 0.3  # of the network's quad that must have the area's colour
    hough_lines: int = 80  # strongest Hough lines of the outline examined
    candidate_lines: int = 10  # supporting lines found; every 4 of them are tried, the 4 with
    # the most boundary points that overlap the blob's hull by min_iou win
    min_iou: float = 0.8
    # snapping each side to the border: (search +- share of the side, +- degrees, step share)
    snap_passes: tuple[tuple[float, float, float], ...] = ((0.15, 12.0, 0.005),
                                                           (0.02, 2.0, 0.002))
    snap_passes_model: tuple[tuple[float, float, float], ...] = ((0.04, 4.0, 0.003),
                                                                 (0.015, 1.5, 0.002))
    hem_passes: tuple[tuple[float, float, float], ...] = ((0.08, 6.0, 0.002),
                                                          (0.01, 1.0, 0.001))
    hem_inset: float = 0.0  # the hem line lies this share of the side inside the edge
    hem_depth: float = 0.006  # samples either side of a hem line, share of the side
    snap_depth: float = 0.008  # inside/outside samples this share of the side from the line
    max_beyond: float = 0.12  # share of the outline a side line may have beyond it
    min_side_points: float = 0.15  # a side's inliers, share of a quarter of the outline
    max_on_edge: float = 0.05  # share of the outline on the photo's border (area cut off)
    max_grow: float = 1.6  # a grown region this many times its colour blob has leaked
    open_px: int = 7  # opening of the colour mask (drops thin rings: the castle towers)
    min_fill: float = 0.8  # share of the fitted quadrilateral the mask's convex hull covers
    max_outside: float = 0.25  # share of the quad's area the mask may have outside it
    min_corner_angle: float = 35.0  # degrees; flatter quads are not a tilted square
    # A quad must be the image of a square seen by a phone's camera (`square_misfit`: the
    # principal point at the photo's centre, a focal length of `square_focal` x the long
    # side), within `square_max`; 0 off. A shadow's edge or a lamp's spot cuts the network's
    # mask at angles no square takes. Measured (cloth, light_eval's 7 lights on committed,
    # edition 2 and fresh seeds 1850/1851): quads found within 15 px of the truth 0.00-0.17
    # (the truths 0.00-0.15: the renderer shifts the principal point), quads 15 px or more
    # off up to 1.18, 32 of 150 over 0.25.
    square_max: float = 0.0
    square_focal: tuple[float, float] = (0.5, 1.4)
    # The camera `square_misfit` judges under, in the image's own terms: the principal point
    # as shares (x of the width, y of the height) and the focal lengths' unit as a multiple
    # of the long side. The photo's own: (0.5, 0.5, 1.0); `_closer` sets the photo's camera
    # moved into its crop (session 23, H13).
    square_camera: tuple[float, float, float] = (0.5, 0.5, 1.0)
    # Edge check of the network's quad (cloth): the share of its sides lying on image edges
    # (Canny of the lightness); below `edge_min_cover` the quad is rebuilt from 4 straight
    # edges near the network mask's border (`edge_quad`), kept if it covers more.
    edge_check: bool = False
    edge_canny: tuple[float, float] = (8.0, 24.0)
    edge_tol: float = 2.0  # px (mask scale) from an edge pixel that counts as on it
    edge_min_cover: float = 0.95
    edge_gain: float = 0.05  # the rebuilt quad must cover this much more
    edge_band: float = 0.25  # edges within this share of the mask's side of its border
    edge_lines: int = 12  # strongest distinct Hough lines tried, every 4 of them
    edge_min_iou: float = 0.6  # with the network mask
    # ... and its weakest side's contrast (`side_contrast`: share of the side along which
    # the cue drops from inside to outside); below `contrast_min` the rebuilt quad is tried
    # too, kept if its weakest side is clearly stronger (on grained wood almost any line
    # lies on edges, a wrong side only rarely has the cloth on one side of it)
    contrast_min: float = 0.75
    contrast_gain: float = 0.2
    contrast_drop: float = 10.0  # cue units
    contrast_depth: float = 0.03  # inside/outside samples this share of the side away
    # not found: tried once more on the photo white balanced by this power of its own light
    # (`vision.preprocess.light_gains`; a harsh coloured lamp hides a white cloth), 0 off
    retry_balanced: float = 1.0
    # a photo whose own light (`vision.preprocess.light_gains`, its largest full gain) is cast
    # at least this much is white balanced in full before any look (a harsh or warm lamp over
    # a light cloth: the network and the colour masks then see the cloth they were made
    # for; ordinary photos' casts stay under ~1.4); 0 off
    balance_cast: float = 0.0
    # an underexposed photo (a dim room): where the `expose_pct` percentile of its brightest
    # channel, in linear light, is under `expose_to`, the photo is brought up by a gain in
    # linear light (at most `expose_max`) before any look, so that percentile reaches
    # `expose_to` (the network and the colour masks were made on well-exposed photos; a
    # dim one's light cloth is grey). Measured on the working photos as `exposure_gain`
    # samples (every 2nd pixel of every 2nd row, 99th percentile): committed Hop la bille
    # photos 0.24-1.0 (median 0.99), edition 2 0.72-1.0 (0.86); light_eval's dim copies
    # 0.10-0.43 (0.39), edition 2 0.29-0.41 (0.35). The marbles use the same three
    # (`vision.segment.marble_image`); 0 off
    expose_to: float = 0.0
    expose_pct: float = 99.0
    expose_max: float = 4.0
    # A lamp's tone curve (a gamma per channel: light_eval's harsh lamp), which no gain
    # takes off: the network's map followed its light and shade, not the cloth. Read off
    # the part of the photo the network is sure of (probability over `tone_prob`, every
    # `tone_step`-th pixel of every `tone_step`-th row, clipped (a channel at
    # `tone_clip` or more) and black points left out) as the marbles read it off the found
    # cloth (`vision.preprocess.tone_of_pixels`, the same bins, span and deviations as
    # `vision.segment.MarbleSettings.tone_*`); where it bends, the cloth is looked for on
    # the photo with the curve taken off too (`apply_tone`, `_toned_or_plain`). The
    # network's map (models/area.onnx, trained on the renderer's lights) then sees a
    # cloth it was made for. tone_dev[1] 0: off.
    # The network's sure part may hold a shade or the table as well as the cloth, so both
    # halves' slopes must agree within `tone_agree` on every channel. Measured (session 16,
    # H13; light_eval's lit committed, edition-2 and fresh 2040-2043 copies): the harsh
    # lamp's halves differ by 0.08 median, 0.17 at most but for 6 of 95 (0.21, 0.25, and
    # 0.87-1.42: a shade or the table in the sure part); the other lights' copies bent at
    # 0.3 read 0.31-0.64 (fresh 2042 0014 tungsten, daylight, dim; 2042 daylight 0008) and
    # committed shadow 0013 0.29-0.32 (with the curve its cloth was 72 px off, not 2).
    tone_dev: tuple[float, float] = (0.0, 0.0)
    tone_agree: float = 0.2
    # The cloth is looked for both ways (`_toned_or_plain`) and the curve's taken only
    # where the two lie `tone_apart` x the photo's long side (1280 px: 32 px) or more
    # apart: measured on the harsh copies (session 16, H13), of 8 pairs 30 px or more
    # apart the curve's was nearer the truth in 6 (74 -> 15, 225 -> 10, 464 -> 13, 144 ->
    # 2, 29 -> 20 px, one not found -> 14), both wrong in 1, the plain one found where the
    # curve's was not in 1; of the 15-30 px pairs the plain one was nearer in 4 of 5, and
    # a few px moved lose a card back beside the cloth (committed harsh 0003: 5 px).
    tone_apart: float = 0.025
    # ... and there only where the plain one is not as good by its own checks: it is kept
    # where it is at least as square (`square_misfit` no higher) and its weakest side at
    # least as strong (`side_contrast` on the photo's cue map) as the curve's. Measured
    # (session 16, H15) on the harsh copies' 8 pairs 32 px or more apart with both found:
    # the curve's nearer the truth in 5 (74 -> 15, 464 -> 14, 144 -> 4, 135 -> 14 (a
    # shadow copy), 29 -> 20 px), each better by one check or both; the plain one nearer
    # in 1 (held-out fresh 2044 0014: 14 against 42 px), better by both (misfit 0.045
    # against 0.160, weakest side 0.23 against 0.17); both wrong in 1. False: the curve's
    # whenever they lie apart (H13). Misfits within `tone_square_tie` count as equal (two
    # squares' images both read near 0; the measured pairs differ by 0.02 or more).
    tone_judge: bool = True
    tone_square_tie: float = 0.01
    tone_prob: float = 0.8
    tone_step: int = 4
    tone_clip: int = 250
    tone_bins: int = 8
    tone_span: float = 0.15
    # The level the curve is taken off about (`apply_tone`'s pivot on every channel): 255,
    # white stays white; 0: the sure part's median level, as the marbles take it (session
    # 16). About the median a channel steepened past it (R under a warm lamp) clips the lit
    # table and the cloth's lit part to 255 and the map follows the clip; measured (session
    # 17, H15, light_eval's harsh copies, per piece): edition 2 17.35 -> 3.57 % (0001's cloth
    # 253 px off -> right), fresh 2211 7.69 -> 6.88 %, committed and fresh 2210, 2212, 2213
    # the same
    tone_white: float = 255.0
    # A lamp's tone curve read off the table beyond the area found (`vision.shields.
    # table_tone`, the coats of arms' reading, session 18 H3): where it bends, the area is
    # looked for again on the photo with that curve taken off (about white); the second is
    # kept where it lies `tone_apart` x the long side or more away and is as good by both
    # `_quad_checks` (`tone_square_tie`): `_table_toned`.
    # For a red arena whose redness the lamp's per-channel gamma bends (B 1.5, G 1.1, R
    # 0.75: the wall's and table's pinks pass for it). Off: False.
    table_tone: bool = False
    # `_table_toned`'s judge (session 18, H16): the second area is kept only where the band
    # it drops is of a wall's kind (median redness cue under `tone_band_red` x the arena's,
    # on the photo with the curve off, glare's reach left out) and the band it adds, if
    # any, is redder; not by the quads, which cannot tell a wall's outer edge from the
    # arena's border (H12: held-out 2414 harsh 0007, a wall's width out, as square and as
    # strong; its added band 0.94 x the arena's redness). H12's far-apart pairs: dropped
    # bands of a wall 0.45 (2410 0002, 2412 0015), of arena 0.70-0.92.
    tone_band_red: float = 0.6
    # ... and the two differ by at most this share of the first's pixels (a band, not half
    # the arena: committed glare 0013's second covered half of it, 0.52, 9 -> 206 px off;
    # H12's right pairs differ by 0.11-0.21, edition-2 glare 0009 by 0.40)
    tone_band_most: float = 0.4
    # A side of the network's snapped quad along which the cue drops by `contrast_drop`
    # (sampled `weak_depth` x the side either way) on under `weak_share` of it is looked for
    # again in a wide band (`refit_weak_sides`); 0 off
    weak_share: float = 0.0
    weak_depth: float = 0.02
    weak_gain: float = 0.15  # the new line's share must be this much higher
    weak_passes: tuple[tuple[float, float, float], ...] = ((0.15, 12.0, 0.005),)
    weak_fine: tuple[tuple[float, float, float], ...] = ((0.02, 2.0, 0.002),)
    # the band a side moved out across must be arena (the share of it at over
    # `weak_arena_level` x the arena's cue level at least the first: not the wall's band), a
    # band it moved in across must not (at most the second: the towers' discs are red too);
    # None: no check. The arena's cue level: the median cue in the quad shrunk about its
    # centre to `weak_level_inset` of its size.
    weak_strip: tuple[float, float] | None = None
    weak_level_inset: float = 0.7
    weak_arena_level: float = 0.5
    # ... and a band it moved out across must also have the arena's own colour on at least
    # `weak_strip[0]` of it: a pixel whose chromaticity (`chromaticity`: Lab a*, b* over
    # the lightness, so a shadow keeps it) lies within `weak_like_tol` of the arena's
    # median (the same pixels `weak_arena_level` takes inside the quad shrunk to
    # `weak_level_inset`). A wall as red as half the arena (edition 2's dull pink under a
    # harsh lamp) passed the redness test, but its colour is not the arena's. Measured on
    # light_eval's lit committed and edition-2 copies (session 16, every move
    # `refit_weak_sides` would make before the band tests): bands of the wall 0.00-0.11
    # within 10, of the arena 0.34-0.71; at 12 the wall's reached 0.35. 0: off. Not tested:
    # a band narrower than `weak_like_width` x the side on average (mostly the border's own
    # blur: the wall's bands were 0.067-0.11, a thin one along the true border 0.035 with
    # 0.08 of it arena-like), and the pixels within a glare spot's reach (`glare_like_reach`:
    # a washed-out arena has the wall's paler colour; a band half in it is not tested).
    weak_like_tol: float = 0.0
    weak_like_width: float = 0.05
    # ... a pixel also counted as the arena's colour where its chromaticity is the arena's
    # hue (within `weak_like_deg` degrees of the arena's a*, b* direction) and at least as
    # saturated: a shaded arena under a contrasty lamp (its per-channel gamma saturates the
    # shade: fresh 1967 harsh 0005's top band, 21 from the arena's chromaticity and 5 deg
    # off its hue, 0.07 -> 0.48 of it counted, the side mended 87 -> 8 px). A wall paler
    # than the arena (or of another hue) stays unlike it. Measured (session 16, H12: every
    # move out `refit_weak_sides` would make on the lit committed, edition-2 and fresh
    # 1960-1965 copies, bands over `weak_like_width` passing the redness test): wall bands
    # 0.00-0.17 of them counted at 6, 10 or 15 deg as at none (13), mending ones 0.00-0.62
    # (28, one more over 0.25 at 10 deg). Not for a wall of the arena's hue but deeper. 0: off.
    weak_like_deg: float = 0.0
    # Last, a side weak on the arena's own colour (`_refit_on_likeness`: a network quad
    # leaking over a wall about half as red as the arena, its side on the wall's outer
    # edge) is moved in to where that colour ends, across a band of a wall's kind only:
    # median redness (of the chromaticity at `like_l_floor`: the renderer's shadows fall
    # under L 60) under `like_red_max` x the arena's (a shaded arena keeps its redness), at
    # most `like_band_max` of it the arena's colour, no wider than `like_band_width` x the
    # side. Measured (session 16, the lit committed, edition-2 and fresh 1960-1965 copies,
    # each move with the truth): mending moves crossed bands at most 0.72 as red, 0.01-0.12
    # like the arena, 0.065-0.166 wide; harmful ones a shaded arena 1.1-2.0 as red (at the
    # floor 60 also 0.5-0.8) or a glare halo 0.18-0.19 wide. Arenas 15 px or more off
    # 76 -> 53 of 1040; never out: a red table is as like the arena as the arena is.
    like_refit: bool = False
    like_red_max: float = 0.8
    like_band_max: float = 0.2
    like_l_floor: float = 20.0
    like_band_width: float = 0.175
    # ... and judged on the photo with a hard shadow's shade lit up first (`shadow_edge`
    # looked for with `shadow_share` at `like_shadow_share`, no mask filter;
    # `relight_shadow`), where one crosses the photo: a shadow's edge over the arena parts
    # it into two colours (the shade's light is bluer), and the lit part, unlike the shaded
    # one, passed for a wall (fresh 1967 shadow 0019: a band of lit arena 0.18 of the side
    # wide, 4.9 -> 133 px; with the shade lit up, left at 4.9). Looked for only where a side
    # is weak on the arena's colour. Of the 1680 lit committed, edition-2 and fresh photos
    # of session 16, 4 arenas moved by it, 0.5-1.2 px further off (an edge of the
    # renderer's own shade found under daylight, dim, harsh light: the relit photo's move
    # a little other), none 15 px off. Not found: a shade bluer than `shadow_chroma` or
    # too dark for `shadow_ratio` (the sensor's floor shrinks the step). 0: off.
    like_shadow_share: float = 0.0
    # Nothing found by the network or the colours (a cloth barely unlike the table, or in
    # deep shadow, with the network's mask covering only part of it): the pixels enclosed
    # by the same edges as that mask (`enclosed_region`) are fitted with 4 straight edges
    # (`edge_quad`), kept if its sides lie on edges for at least `enclosed_cover`
    enclosed: bool = False
    enclosed_seed: int = 20  # px of the mask a part away from edges must hold
    enclosed_prob: float = 0.5  # the mask: the network's probability above this
    enclosed_cover: float = 0.8
    # ... and for the arena, that region's quad is a rival to the network's where the
    # latter's weakest side stays under `weak_share` after `refit_weak_sides`
    enclosed_rival: bool = False
    # ... and so is the quad the colour masks give (the strongest of every level's plausible
    # quads, snapped and refitted likewise: the network's coarse mask had cut a corner off)
    colour_rival: bool = False
    # Glare (a lamp's reflection on the arena sheet, the cloth or the table) is taken off
    # the working image first (`glare_spots`, `remove_glare`): the network's mask got a bite
    # where it washed the arena's red out, or took a spot on the table for cloth, and the
    # sides snapped to its edge. A spot's core: every channel at least `glare_core`, one
    # blob of `glare_min_frac`-`glare_max_frac` of the photo (a white cloth or table is
    # larger) filling `glare_ellipse_fill` of its fitted ellipse (a lamp's reflection is
    # round; a pattern's light patches are ragged), brighter than the ring 1.5-2 x its
    # radius (that of a disc of its area) beyond its edge (median lowest channel under
    # `glare_ring_max`, an absolute ceiling: a spot on a white, light-wood or pastel table
    # or a white cloth is left alone) and with a soft rim (within 0.3 x its radius beyond
    # its edge, the lowest channel still half way from the ring's to the core's on 80 % of
    # it: a white cloth, tile or paper has a sharp rim). Its light reaches `glare_reach` x
    # its fitted ellipse, scaled about its centre (`remove_glare`). `glare_core` 0: off.
    glare_core: int = 235
    glare_min_frac: float = 0.004
    glare_max_frac: float = 0.08
    glare_ellipse_fill: float = 0.85
    glare_ring_max: float = 135.0
    glare_reach: float = 3.0
    glare_rim: float = 0.5  # the soft rim's lowest channel at least this share of the way
    #   from the ring's to the core's (the "half way" above)
    # A spot whose core merged with a white or pale cloth (or a pale table's stripe) into
    # one blob fails the tests above (not round, the cloth's sharp rim, a bright ring): where
    # `glare_spots` finds none, such a spot is looked for by its shape (`merged_glare_spots`):
    # on each core blob's outline, the points where the lowest channel falls off softly
    # (gradient under `merged_soft_grad` levels per px, blurred by `merged_blur` px; a
    # cloth's or a stripe's edge is sharp) are fitted with a circle (seeded RANSAC, the best
    # of `merged_fits` circles through three soft points, `merged_tol` px) of a
    # spot's size (`glare_min_frac`-`glare_max_frac` of the photo); kept when the soft points
    # on it cover `merged_arc` of its circumference, the disc is `merged_fill` core, and
    # `merged_drop_at` x its radius out along the arc the lowest channel's median is at most
    # `merged_drop_max` (a lamp's light falls off steeply there: 200-222 on the glare copies
    # of session 17's sets; a rendered cloth's own soft highlight 208-234). Measured on
    # light_eval's glare copies (session 17, H12: committed 11.19 -> 10.90 % per piece,
    # fresh 2133 12.29 -> 11.67, 2181 25.21 -> 21.37; ordinary photos unchanged; session 18,
    # H9, with the cloth-side `glare_profile`: glare copies' piece errors 609 -> 570 on ten
    # sets, held out 2384/2385 105 -> 77, 2182 24 -> 27; ordinary photos unchanged). 0: off.
    merged_arc: float = 0.0
    merged_soft_grad: float = 8.0
    merged_blur: float = 1.5  # px (Gaussian sigma)
    merged_tol: float = 2.0
    merged_fits: int = 300
    merged_fill: float = 0.9
    merged_drop_max: float = 218.0
    merged_drop_at: float = 1.25
    # ... and its centre burnt out: within half its radius, `merged_clip_share` of the
    # pixels have every channel at least `merged_clip` (the lamp spots found on the glare
    # copies 0.95-1.00; the two soft highlights of rendered cloths found on ordinary photos,
    # fresh 2131 0008 and 2180 0019, 0.73-0.74: the first cost 2 pieces)
    merged_clip: int = 254
    merged_clip_share: float = 0.9
    # Where the band just beyond a spot's reach holds two surfaces of clearly different levels
    # (a white cloth by a dark table: the brighter part's 20th percentile at least
    # `glare_surface_gap` (linear lowest channel) over the darker's 80th, each at least
    # `glare_surface_share` of the band), `remove_glare` measures the lamp's light on each
    # ring against the level of the surface each pixel lies on (`glare_profile`), not against
    # the darker one's alone: that took a white cloth's own whiteness within the reach for
    # the lamp's light (a dark hole and a dark ring on the cloth; the network's mask broke
    # there). Measured (session 18, H2) on light_eval's glare copies: a two-surface band on
    # 32 of 160 photos (committed, edition 2, fresh 2310-2313), levels 0.01-0.13 and
    # 0.20-0.99; fresh 2310 0017's cloth 205 -> 17 px off. Pixels at `glare_surface_clip` or
    # more (clipped) tell nothing of the light and are left out; a pixel is taken as on the
    # brightest surface that leaves it at least the light of the ring outside less
    # `glare_surface_tol`. 0: off (one level, the band's darker fifth's).
    glare_surface_gap: float = 0.0
    glare_surface_share: float = 0.1
    glare_surface_clip: float = 0.95  # (sRGB 250)
    glare_surface_tol: float = 0.02
    # A spot whose ring a pale wall or table lights (Simsala Hopp's arena: its beige wall
    # and a light grey table within 2 x the core's radius) fails that ceiling though its core
    # is round and soft-rimmed. With `glare_ring_on_area`, blobs whose ring median lies under
    # it are taken too in a second look, judged against the first (`find_area`): a lamp's
    # reflection on a pale pink table beside the arena (committed 0008, the renderer's own
    # spot, ring 140) taken off ran the arena's corner onto it (5 -> 76 px), which is why
    # the ceiling alone cannot be raised (session 15). Measured (session 17, H11) on
    # light_eval's glare copies of the committed, edition-2 and fresh 2170-2173 photos: 7
    # true spots missed with rings 137-176; round soft-rimmed blobs that are no lamp's
    # 140-185 (the judged look keeps their area). 0: off.
    glare_ring_on_area: float = 0.0
    # A hard shadow across the area (a person or a lamp's arm over the table) is lit up before
    # any look (`shadow_edge`, `relight_shadow`): the network's mask and the cues stopped at
    # its edge. A shadow's edge is a long straight line (Hough, the `shadow_lines` strongest
    # distinct ones, at least `shadow_min_len` of the photo's short side inside it) across
    # which every material (cloth, table, cards) darkens by the same ratio with nearly the
    # same chromaticity: sampled every `shadow_step` px, `shadow_offset` px either side, the
    # lightness ratio (linear light) is `shadow_ratio` (lo, hi), its per-channel ratios
    # apart by at most `shadow_chroma` (brightest / darkest), it agrees (log ratio within
    # `shadow_tol`, each channel's within `shadow_tol_chroma` of the median) on at least
    # `shadow_share` of the line and is missing on no run longer than `shadow_gap` of it (a
    # stripe of the table ends under the cloth; a shadow crosses it), both counted along the
    # whole line inside the photo: only an edge straight across the photo is taken (a
    # person's or a lamp arm's shadow; not a phone's, nor any edge that ends on the table).
    # A lone edge's shade must still hold 6 `shadow_offset` farther in (`_shade_holds`: a
    # narrow band whose far edge Hough missed is no half-plane). `shadow_share` 0: off.
    shadow_share: float = 0.0
    shadow_lines: int = 16
    shadow_min_len: float = 0.6
    shadow_step: float = 4.0
    shadow_offset: float = 4.0
    shadow_ratio: tuple[float, float] = (1.8, 8.0)
    shadow_chroma: float = 1.5
    shadow_tol: float = 0.25
    shadow_tol_chroma: float = 0.2
    shadow_gap: float = 0.15
    # ... and it is lit up only where it runs through or along the network's mask
    # (`shadow_cuts_mask`)
    shadow_near_px: float = 8.0
    shadow_near_share: float = 0.02
    # Arena under a glare spot: the network's mask gets a bite where the spot washes the
    # red out (`remove_glare`'s ring average leaves the halo), and the sides snapped to it.
    # A lamp adds about the same light to every channel, so a pixel's linear-light chroma
    # (each channel less its lowest, `white_free_chroma`) stays as it was wherever no
    # channel clips. Within `glare_like_reach` x a spot's core, the unclipped pixels (every
    # channel under `glare_clip`) whose chroma lies within `glare_like_tol` x the arena's
    # own of it and within `glare_like_cos` of its direction (a beige wall's is as long
    # but more yellow) are added to the network's mask (`glare_arena_mask`; the arena's
    # chroma: its median where the network is sure, away from the spots, redness above
    # `glare_ref_level`: no tiles). That mask's quad is tried after the network's masks
    # give none, and is a rival (`_rival_glare`) where the quad's weakest side stays
    # under `weak_share`, kept if its weakest side is `weak_gain` stronger; both judged on
    # the redness cue of the photo with all white taken off (`white_free_view`). Measured
    # on light_eval's glare copies (session 15: committed arenas 15 px or more off 6 -> 3
    # of 30, fresh seed 1830 6 -> 3; tol 0.35 gave committed 6 -> 6).
    glare_rival: bool = False
    glare_like_tol: float = 0.5
    glare_like_cos: float = 0.95
    glare_like_reach: float = 3.0
    glare_clip: int = 250
    glare_ref_level: float = 20.0  # (the second colour level: a red a little washed out)
    glare_sure_prob: float = 0.8  # the arena's own chroma: where the network's probability
    #   is above this (its tighter mask's, `model_thresholds`' second)
    glare_least_sure: int = 50  # ... over at least this many working pixels, else no mask
    glare_close_px: int = 5  # the repaired mask closed by a square of this side (px)
    # Last look where no area is found at all (`_hull_quad`): the convex hull of the
    # network's mask, its largest blob, filled, at each of `model_thresholds`. A spot over
    # the arena's middle or across a side (clipped: no colour left to repair the mask with,
    # or not taken as a spot at all: its ring on the pale wall) leaves a hole or a bite in
    # the mask, and no four sides fit its outline; the hull spans the bite where the
    # arena's corners are still in the mask. Only where every other look found nothing
    # (light_eval's glare copies of fresh 2640 0004 and 2641 0002: not found -> 9.6 and
    # 5.1 px). False: off.
    hull_last: bool = False
    # A quad no camera sees a square as (`square_misfit` over `square_refit`; 0 off): one
    # side is on a spot's washed edge or a shade's (the arena's other three on its border).
    # Each side in turn is replaced by the lines through its two corners slid along the
    # two sides beside it (`square_slide` x their length either way, `square_steps` each)
    # that make a square's image (misfit under `square_refit_fit`); of those, the one
    # whose new side is the strongest on the redness cue (`side_contrast` at
    # `weak_depth`), and of the four sides' the one with the strongest weakest side, kept
    # where that is stronger than the quad's own. The arenas found within 15 px on the
    # lit copies of committed, edition 2 and fresh 2640-2642 (574) have misfits 0.00-0.12
    # (the truths' 0.00-0.11); those 15 px or more off from a spot or a shade's edge
    # 0.17-0.44 (session 20, H5).
    square_refit: float = 0.0
    # Under a glare spot (`PlayArea.glare`), `_square_refit` judges each side only on its
    # points (the side's, and `weak_depth` in and out) beyond `square_glare_reach` x a
    # spot's core; a side with under `square_glare_seen` of them so is unseen (no evidence
    # either way: the washed arena has no red there) and left out of the weakest side, and
    # a square's image as strong as the quad wins. Simsala Hopp 1.25: light_eval's glare
    # copies of committed, edition 2 and fresh 2900-2901 (70), arenas off 11 -> 9 (0016 of
    # committed 91 -> 4 px, 0001 of edition 2 111 -> 35, 2901 0002 233 -> 49), no arena
    # worse; 1.0 the same, 1.5 committed 0007 27 -> 32 px and edition 2 0001 only 104
    # (session 23, H2). 0: off (the whole side counts, as before).
    square_glare_reach: float = 0.0
    square_glare_seen: float = 0.25
    square_refit_fit: float = 0.03
    square_slide: float = 0.6
    square_steps: int = 41
    # A closer look (`_closer`): where the area found is still no square's image
    # (`square_misfit` over `square_refit`), it is looked for again on a crop of the photo
    # around it (a square `closer_look` x the quad's extent, clipped to the photo), and the
    # crop's quad kept where it is a square's image (misfit within `square_refit`) and nearer
    # one than the first. The network sees the photo at 128 x 96: an arena small in the
    # frame is a blob a few cells across, rounded, and the quad fitted to it runs off (a
    # phone held crooked and further off: docs/simsala-hopp.md "A photo held crooked
    # (session 23, H8)": 0016 and 0026 of committed turned -20 degrees, 176 and 167 px off,
    # misfits 1.91 and 0.80 -> 4 and 2 px). 0: off.
    closer_look: float = 0.0
    closer_max_share: float = 0.8  # ... not where the crop keeps more than this share of
    #   the photo's pixels (no closer than the photo itself)
    closer_min_side: int = 32  # ... nor where its shorter side is under this many px (a
    #   quad off the photo: nothing to look at)
    closer_camera: bool = True  # ... and the crop's quads judged under the photo's camera
    #   (`square_camera`), not one centred on the crop with its long side as the focal unit.
    #   Measured (session 23, H13): no area moved on 440 photos (rolled e1/e2/2940, 7 lights
    #   of e1 and e2, held out 2945); in the 5 closer looks among them the crop's misfits
    #   moved 0.06 at most and crossed no threshold

    @property
    def px_per_mm(self) -> float:
        return self.plane_px / self.size_mm


AREA_SETTINGS = {
    "simsala-hopp": AreaSettings(kind="red", size_mm=240.0, plane_px=480, weak_share=0.7,
                                 weak_strip=(0.25, 0.6), weak_like_tol=10.0, weak_like_deg=10.0,
                                 like_refit=True, like_shadow_share=0.6,
                                 enclosed_rival=True, colour_rival=True, glare_rival=True,
                                 glare_ring_on_area=180.0, table_tone=True,
                                 hull_last=True, square_refit=0.15, square_glare_reach=1.25,
                                 closer_look=2.0),
    "hop-la-bille": AreaSettings(kind="cloth", size_mm=600.0, plane_px=900, edge_check=True,
                                 enclosed=True, balance_cast=1.45, shadow_share=0.6,
                                 expose_to=0.6, square_max=0.3, tone_dev=(0.2, 0.3),
                                 glare_surface_gap=0.15, merged_arc=0.3),
}


@dataclass(frozen=True)
class PlayArea:
    """corners: (4, 2) float64 working-image pixels, ordered so that corner 0 -> 1 is the
    side farthest from the photo's bottom edge ("north") and they go clockwise on screen;
    H_img_to_plane / H_plane_to_img: 3x3 float64; the plane square is [0, plane_px]^2."""

    corners: np.ndarray
    H_img_to_plane: np.ndarray
    H_plane_to_img: np.ndarray
    settings: AreaSettings
    # The network's probability map (float32, at `prob_scale` x the working image), if used.
    prob: np.ndarray | None = None
    prob_scale: float = 1.0
    # The glare spots taken off before the area was looked for (`glare_spots`' tuples, in
    # working-image pixels), for the later stages; () without one.
    glare: tuple = ()
    # The table's tone curve beyond this area as `vision.shields.table_tone` read it on the
    # photo the area was found in (`_table_toned`), so that the coats of arms' stage does not
    # read it again: (exponents (3,) float32 or None,); () where it was not read.
    table_curve: tuple = ()

    def area_probability(self, pts_img) -> np.ndarray | None:
        """The network's play-area probability at working-image points, or None."""
        if self.prob is None:
            return None
        p = np.round(np.asarray(pts_img, np.float64).reshape(-1, 2) * self.prob_scale)
        h, w = self.prob.shape
        x = np.clip(p[:, 0].astype(int), 0, w - 1)
        y = np.clip(p[:, 1].astype(int), 0, h - 1)
        return self.prob[y, x]

    def to_plane(self, pts) -> np.ndarray:
        return _apply(self.H_img_to_plane, pts)

    def to_image(self, pts) -> np.ndarray:
        return _apply(self.H_plane_to_img, pts)

    def rectify(self, image_bgr: np.ndarray, margin: float = 0.0) -> tuple[np.ndarray, float]:
        """Top-down view of the area with `margin` (share of the side) added around it.
        Returns (view (P, P, 3) uint8 BGR, offset) where plane point p is view pixel
        p + offset."""
        s = self.settings.plane_px
        off = margin * s
        size = int(round(s + 2 * off))
        T = np.array([[1, 0, off], [0, 1, off], [0, 0, 1.0]])
        view = cv2.warpPerspective(image_bgr, T @ self.H_img_to_plane, (size, size),
                                   flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        return view, off


def _apply(H: np.ndarray, pts) -> np.ndarray:
    p = np.asarray(pts, np.float64).reshape(-1, 2)
    q = p @ H[:, :2].T + H[:, 2]
    return q[:, :2] / q[:, 2:3]


def area_measure(lab: np.ndarray, settings: AreaSettings) -> np.ndarray:
    """The per-pixel measure `area_mask` compares with a level (`lab`: the image's Lab, 8-bit
    scale): red: redness relative to lightness, float32; cloth: the lightness L where the
    chroma is under `cloth_chroma_max`, else -1 (every cloth level is > 0), int16. Made once,
    it serves every level."""
    lab = lab.astype(np.int16)
    L, a, b = lab[..., 0], lab[..., 1] - 128, lab[..., 2] - 128
    if settings.kind == "red":
        # Redness relative to lightness, so a shadow over the arena keeps it red.
        r = a.astype(np.float32) - settings.red_b_weight * np.abs(b).astype(np.float32)
        return r * 100.0 / np.maximum(L.astype(np.float32), settings.red_l_floor)
    if settings.kind == "cloth":
        chroma2 = (a * a + b * b).astype(np.int32)
        return np.where(chroma2 < settings.cloth_chroma_max**2, L, -1)
    raise ValueError(f"unknown area kind {settings.kind!r}")  # pragma: no cover - typo


def area_mask(image_bgr: np.ndarray, settings: AreaSettings, level: float | None = None,
              lab: np.ndarray | None = None, measure: np.ndarray | None = None):
    """uint8 {0, 255} mask of pixels that look like the play area (same size as the input)
    at one of the settings' levels (default: the first). `lab`: the image's 8-bit Lab, if
    already made; `measure`: `area_measure` of it, if already made (one for every level)."""
    if measure is None:
        if lab is None:
            lab = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2LAB)
        measure = area_measure(lab, settings)
    if level is None:
        level = levels(settings)[0]
    return (measure > level).astype(np.uint8) * 255


def glare_blobs(small_bgr: np.ndarray, settings: AreaSettings):
    """What `glare_spots` and `merged_glare_spots` look at in a uint8 BGR working-size
    photo, made once for both (`_looks`): (its lowest channel, uint8 core mask (that channel
    at least `glare_core`), pixel count, the core's 8-connected components (n, labels,
    stats) or None where the core is smaller than one spot's least (most photos))."""
    blue, green, red = cv2.split(small_bgr)
    low = cv2.min(cv2.min(blue, green), red)  # the lowest channel (numpy's min(axis=2) is slower)
    core = (low >= settings.glare_core).astype(np.uint8)
    total = low.size
    if cv2.countNonZero(core) < settings.glare_min_frac * total:
        return low, core, total, None
    return low, core, total, cc_stats(core)[:3]  # (16-bit labels where they fit: the same
    # components, 2-3 x faster; session 29)


def glare_spots(small_bgr: np.ndarray, settings: AreaSettings, loose: bool = False,
                blobs=None) -> list:
    """The glare spots of a working-size photo (`AreaSettings.glare_core`): compact round
    near-white blobs with a soft rim, brighter than the ring around them. [(centre (x, y),
    ellipse axes (a, b), angle in degrees)] of each one's core. `loose`: a blob whose ring
    is over `glare_ring_max` but under `glare_ring_on_area` is taken too. `blobs`: the
    photo's `glare_blobs`, where made already."""
    if settings.glare_core <= 0:
        return []
    return glare_spot_lists(small_bgr, settings, blobs)[1 if loose else 0]


def glare_spot_lists(small_bgr: np.ndarray, settings: AreaSettings, blobs=None
                     ) -> tuple[list, list]:
    """`glare_spots`' (strict, loose) lists of a working-size photo, from one look at each
    blob (they differ only in the ring's ceiling); `blobs`: its `glare_blobs` or None."""
    strict: list = []
    spots: list = []  # (the loose ones)
    if settings.glare_core <= 0:
        return strict, spots
    low, _, total, comps = glare_blobs(small_bgr, settings) if blobs is None else blobs
    if comps is None:
        return strict, spots  # (most photos: no spot can be that large)
    n, labels, stats = comps
    for i in range(1, n):
        a = int(stats[i, cv2.CC_STAT_AREA])
        if not settings.glare_min_frac * total <= a <= settings.glare_max_frac * total:
            continue
        x, y, w, h = stats[i, :4]
        cs, _ = cv2.findContours((labels[y:y + h, x:x + w] == i).astype(np.uint8),
                                 cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        outline = max(cs, key=cv2.contourArea)
        if len(outline) < 5:
            continue
        centre, axes, angle = cv2.fitEllipse(outline)
        if a < settings.glare_ellipse_fill * np.pi * axes[0] * axes[1] / 4:
            continue  # ragged: a light patch of a pattern, not a lamp's round reflection
        radius = np.sqrt(a / np.pi)  # of a disc of the core's area
        pad = int(np.ceil(2.0 * radius)) + 2
        x0, y0 = max(0, x - pad), max(0, y - pad)
        x1, y1 = min(low.shape[1], x + w + pad), min(low.shape[0], y + h + pad)
        blob = (labels[y0:y1, x0:x1] == i).astype(np.uint8)
        dist = cv2.distanceTransform(1 - blob, cv2.DIST_L2, 3)
        near = low[y0:y1, x0:x1][(dist > 0) & (dist <= 0.3 * radius)]
        ring = low[y0:y1, x0:x1][(dist > 1.5 * radius) & (dist <= 2.0 * radius)]
        if not len(ring) or not len(near):
            continue
        ring_low = float(np.median(ring))
        if ring_low >= max(settings.glare_ring_max, settings.glare_ring_on_area):
            continue  # as bright around it: a white surface, not a spot (either ceiling)
        if np.percentile(near, 20) < ring_low + settings.glare_rim * (settings.glare_core -
                                                                       ring_low):
            continue  # a sharp rim: a white object (a cloth, a tile, paper), not a spot
        spot = ((centre[0] + x, centre[1] + y), axes, angle)
        spots.append(spot)
        if ring_low < settings.glare_ring_max:  # (the strict ceiling)
            strict.append(spot)
    return strict, spots


def merged_glare_spots(small_bgr: np.ndarray, settings: AreaSettings, blobs=None) -> list:
    """The glare spots of a uint8 BGR working-size photo whose core merged with a white
    surface (`AreaSettings.merged_arc`): each core blob's (lowest channel at least
    `glare_core`) softly falling outline points fitted with a circle of a spot's size.
    Only where `glare_spots` finds none (`find_area`). [(centre (x, y),
    (diameter, diameter), 0.0)] as `glare_spots`' tuples; [] when off. `blobs`: the
    photo's `glare_blobs`, where made already."""
    spots: list = []
    if settings.merged_arc <= 0 or settings.glare_core <= 0:
        return spots
    low, core, total, comps = glare_blobs(small_bgr, settings) if blobs is None else blobs
    if comps is None:
        return spots
    r_min = np.sqrt(settings.glare_min_frac * total / np.pi)
    r_max = np.sqrt(settings.glare_max_frac * total / np.pi)
    grad = None  # (made for the first blob of a spot's size: most photos have none)
    hh, ww = low.shape
    n, labels, stats = comps
    rng = np.random.default_rng(0)  # (seeded: the same spots every run)
    for i in range(1, n):
        if stats[i, cv2.CC_STAT_AREA] < settings.glare_min_frac * total:
            continue
        if grad is None:
            blur = cv2.GaussianBlur(low.astype(np.float32), (0, 0), settings.merged_blur)
            grad = np.hypot(cv2.Sobel(blur, cv2.CV_32F, 1, 0, ksize=3),
                            cv2.Sobel(blur, cv2.CV_32F, 0, 1, ksize=3)) / 8.0  # levels/px
        x, y, w, h = stats[i, :4]
        cs, _ = cv2.findContours((labels[y:y + h, x:x + w] == i).astype(np.uint8),
                                 cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        pts = np.vstack([c[:, 0] for c in cs]) + np.array([x, y])  # (N, 2) int, x y
        inner = (pts[:, 0] > 0) & (pts[:, 0] < ww - 1) & (pts[:, 1] > 0) & (pts[:, 1] < hh - 1)
        soft = pts[inner & (grad[pts[:, 1], pts[:, 0]] < settings.merged_soft_grad)]
        soft = soft.astype(np.float64)
        if len(soft) < settings.merged_arc * 2 * np.pi * r_min:
            continue
        # `merged_fits` circles through 3 soft points each (all at once), the one most
        # points lie on
        trio = soft[np.array([rng.choice(len(soft), 3, replace=False)
                              for _ in range(settings.merged_fits)])]
        (x1, x2, x3), (y1, y2, y3) = trio[..., 0].T, trio[..., 1].T  # (fits,) each
        d = 2 * (x1 * (y2 - y3) + x2 * (y3 - y1) + x3 * (y1 - y2))
        ok = np.abs(d) >= 1e-6
        d = np.where(ok, d, 1.0)
        s1, s2, s3 = x1 * x1 + y1 * y1, x2 * x2 + y2 * y2, x3 * x3 + y3 * y3
        cx = (s1 * (y2 - y3) + s2 * (y3 - y1) + s3 * (y1 - y2)) / d
        cy = (s1 * (x3 - x2) + s2 * (x1 - x3) + s3 * (x2 - x1)) / d
        rad = np.hypot(x1 - cx, y1 - cy)
        ok &= (rad >= r_min) & (rad <= r_max)
        if not ok.any():
            continue
        cx, cy, rad = cx[ok], cy[ok], rad[ok]
        ons = np.abs(np.hypot(soft[None, :, 0] - cx[:, None], soft[None, :, 1] - cy[:, None])
                     - rad[:, None]) <= settings.merged_tol  # (circles, points)
        k = int(np.argmax(ons.sum(axis=1)))  # (the first of equals)
        on, ux, uy, r = ons[k], float(cx[k]), float(cy[k]), float(rad[k])
        if on.sum() < settings.merged_arc * 2 * np.pi * r:
            continue  # no circle's arc: a cloth's or a stripe's soft shading
        yy, xx = np.ogrid[0:hh, 0:ww]
        disc = (xx - ux) ** 2 + (yy - uy) ** 2 <= r * r
        if not disc.any() or core[disc].mean() < settings.merged_fill:
            continue  # (no pixel: a circle off the photo; its mean would be NaN and pass)
        centre = (xx - ux) ** 2 + (yy - uy) ** 2 <= 0.25 * r * r  # (half its radius)
        if not centre.any() or \
                np.mean(low[centre] >= settings.merged_clip) < settings.merged_clip_share:
            continue  # a centre not burnt out (or off the photo): a white surface's soft
            #   highlight, no lamp's
        ang = np.arctan2(soft[on, 1] - uy, soft[on, 0] - ux)
        out = settings.merged_drop_at * r
        px = np.clip(np.round(ux + out * np.cos(ang)).astype(int), 0, ww - 1)
        py = np.clip(np.round(uy + out * np.sin(ang)).astype(int), 0, hh - 1)
        if np.median(low[py, px]) > settings.merged_drop_max:
            continue  # no steep fall-off beyond it: a white surface's own soft highlight
        spots.append(((float(ux), float(uy)), (2 * r, 2 * r), 0.0))
    return spots


def spots_past_shadow(small_bgr: np.ndarray, settings: AreaSettings, spots: list,
                      least: float = 0.25) -> list:
    """`glare_spots`' `spots` of the uint8 BGR working-size photo `small_bgr` less those a
    hard shadow made: where a shadow's straight edge (`shadow_edge` with `settings`, no
    mask) runs through a spot's ring (the ring `glare_spots` compares the core with, taken
    as 2.5-3 x the core's half axes from its centre, `glare_distance`), the ring is looked
    at again on the edge's lit side alone (beyond the edge's soft band; at least `least`
    of the ring there): as bright as a white surface (median lowest channel
    `glare_ring_max` or more), the spot is a bright patch of a light table whose ring the
    shade darkened, and is dropped. A lamp's reflection on a darker table keeps a darker
    ring on the lit side too (and one inside a shadow's band is judged by the ring beyond
    the band, not by the shade lit up: that would scale the lamp's light up with it). No
    edge through any spot's ring: `spots` as they are (the edge is only looked for on a
    photo with a spot)."""
    if not spots or settings.shadow_share <= 0:
        return spots
    edge = shadow_edge(small_bgr, settings)
    if edge is None:
        return spots
    h, w = small_bgr.shape[:2]
    keep = []
    for spot in spots:
        (cx, cy), axes, _ = spot
        reach = 1.5 * max(axes)  # (the ring's outer edge: 3 half axes)
        if all(abs((cx - p[0]) * n[0] + (cy - p[1]) * n[1]) > reach for p, n, _ in edge[1]):
            keep.append(spot)
            continue
        x0, x1 = max(0, int(cx - reach)), min(w, int(np.ceil(cx + reach)) + 1)
        y0, y1 = max(0, int(cy - reach)), min(h, int(np.ceil(cy + reach)) + 1)
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        d = glare_distance(xx, yy, spot)
        ring = (d > 2.5) & (d <= 3.0)
        lit = np.ones_like(ring)
        for p, n, (offs, _) in edge[1]:  # beyond the edge's band on its lit side
            lit &= (xx - p[0]) * n[0] + (yy - p[1]) * n[1] < float(offs[0])
        low = small_bgr[y0:y1, x0:x1].min(axis=2)[ring & lit]
        if len(low) < least * np.count_nonzero(ring) or \
                np.median(low) < settings.glare_ring_max:
            keep.append(spot)
    return keep


def glare_distance(x, y, spot) -> np.ndarray:
    """The elliptical distance of points (x, y: arrays or floats, px) from a glare spot
    (`glare_spots`' ((cx, cy), (axis, axis), degrees)): 1 on its core's ellipse (half axes
    of at least 1 px)."""
    (cx, cy), (ax, bx), ang = spot
    t = np.radians(ang)
    dx, dy = x - cx, y - cy
    u = (dx * np.cos(t) + dy * np.sin(t)) / max(ax / 2, 1.0)
    v = (-dx * np.sin(t) + dy * np.cos(t)) / max(bx / 2, 1.0)
    return np.sqrt(u * u + v * v)


def remove_glare(small_bgr: np.ndarray, settings: AreaSettings, spots: list) -> np.ndarray:
    """The photo with each glare spot's (`glare_spots`) light taken off. A lamp's
    reflection adds about the same light to every channel, in linear light; at each
    (elliptical) distance from the spot's centre it is estimated as the lowest channel of
    the darker fifth of the pixels there, less that beyond `glare_reach` x the core's size
    (made to fall off outwards; against each surface's own level where two lie there,
    `glare_profile`), and subtracted from every channel. The saturated core stays grey (its
    colour is lost). uint8 BGR in and out; `small_bgr` itself without a spot."""
    if not spots:
        return small_bgr
    out = small_bgr.copy()
    h, w = out.shape[:2]
    reach = settings.glare_reach
    for spot in spots:
        (cx, cy), (ax, bx), ang = spot
        big = (reach + 0.5) * max(ax, bx) / 2
        x0, x1 = max(0, int(cx - big)), min(w, int(np.ceil(cx + big)) + 1)
        y0, y1 = max(0, int(cy - big)), min(h, int(np.ceil(cy + big)) + 1)
        # (this crop only; the plain 2.2 power the figures were measured with: the sRGB
        # curve, tried with a per-direction estimate, lost Simsala Hopp's area on 2 of
        # light_eval's 30 glare photos)
        part = srgb_to_linear(out[y0:y1, x0:x1].astype(np.float32) / 255.0, 2.2)
        low = part.min(axis=2)
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        d = glare_distance(xx, yy, spot)  # 1 on the core's ellipse
        beyond = low[(d > reach) & (d <= reach + 0.5)]
        if not len(beyond):
            continue
        edges = np.linspace(0.0, reach, int(6 * reach) + 1)
        prof = glare_profile(low, d, edges, beyond, settings)
        g = np.interp(d, (edges[:-1] + edges[1:]) / 2, prof, right=0.0).astype(np.float32)
        out[y0:y1, x0:x1] = np.round(255.0 * linear_to_srgb(part - g[..., None], 2.2))
    return out


def surface_levels(beyond: np.ndarray, settings: AreaSettings) -> tuple[float, ...]:
    """The surfaces' levels (each one's 20th percentile of the linear lowest channel, darker
    first) in the band `beyond` a glare spot's reach (float (N,)): two where the band splits
    (Otsu's threshold on it) into a darker and a brighter part of at least
    `glare_surface_share` each, the brighter's 20th percentile `glare_surface_gap` or more
    over the darker's 80th (a white cloth by a dark table); one otherwise (the band's 20th
    percentile), and always with `glare_surface_gap` 0."""
    base = (float(np.percentile(beyond, 20)),)
    if settings.glare_surface_gap <= 0 or len(beyond) < 10:
        return base
    b8 = np.clip(np.round(beyond * 255.0), 0, 255).astype(np.uint8).reshape(-1, 1)
    th, _ = cv2.threshold(b8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    dark, bright = beyond[b8[:, 0] <= th], beyond[b8[:, 0] > th]
    least = settings.glare_surface_share * len(beyond)
    if len(dark) < least or len(bright) < least:
        return base
    lo, hi = float(np.percentile(bright, 20)), float(np.percentile(dark, 80))
    if lo - hi < settings.glare_surface_gap:
        return base
    return float(np.percentile(dark, 20)), lo


def glare_profile(low: np.ndarray, d: np.ndarray, edges: np.ndarray, beyond: np.ndarray,
                  settings: AreaSettings) -> np.ndarray:
    """The lamp's added light (linear, float64 (len(edges) - 1,)) on each ring between
    `edges` (elliptical distances, `glare_distance`) of a spot, made to fall off outwards:
    the linear lowest channel `low` (float, shaped as `d`) of the ring's darker fifth less
    the level beyond the reach (`beyond`: that band's `low`, float (N,); `surface_levels`).
    With two surfaces there (`glare_surface_gap`) the rings are read from the outside in:
    each unclipped pixel (`low` under `glare_surface_clip`) is taken as lying on the
    brightest surface that leaves it at least the light of the ring outside (the light
    grows inwards), and the ring's light is that of the darkest surface with
    `glare_surface_share` of its pixels (the darker fifth of them less its level); a ring on
    the white cloth alone is measured against the cloth's level, not the table's."""
    levels = surface_levels(beyond, settings)
    bins = np.digitize(d, edges) - 1
    prof = np.zeros(len(edges) - 1)
    if len(levels) == 1:  # (one surface: as before; every spot without `glare_surface_gap`)
        for k in range(len(prof)):
            sel = low[bins == k]
            if len(sel):
                prof[k] = max(float(np.percentile(sel, 20)) - levels[0], 0.0)
        return np.maximum.accumulate(prof[::-1])[::-1]  # falls off outwards
    lv = np.asarray(levels)
    last = 0.0
    for k in range(len(prof) - 1, -1, -1):
        sel = low[bins == k]
        sel = sel[sel < settings.glare_surface_clip]
        if len(sel) >= 10:
            cand = sel[:, None] - lv[None, :]  # (n, 2): the light were it on each surface
            # (a darker surface's pixel is taken for a brighter one's only where the light
            # rose by their levels' difference within one ring)
            ok = cand >= last - settings.glare_surface_tol
            on = np.where(ok.any(axis=1), len(lv) - 1 - np.argmax(ok[:, ::-1], axis=1), 0)
            for s in range(len(lv)):
                if np.count_nonzero(on == s) >= settings.glare_surface_share * len(sel):
                    last = max(float(np.percentile(cand[on == s, s], 20)), 0.0)
                    break
        prof[k] = last
    return np.maximum.accumulate(prof[::-1])[::-1]


def remove_glare_scaled(image_bgr: np.ndarray, small_bgr: np.ndarray, settings: AreaSettings,
                        spots: list) -> np.ndarray:
    """uint8 BGR `image_bgr` with the glare `spots` (`glare_spots`' on `small_bgr`, a reduced
    copy of it) taken off: the light `remove_glare` takes off each pixel of the copy (its
    largest channel's, linear), enlarged and taken off every channel of the photo. The
    photo itself where there is no spot. (Mauerhuepfer's board retry and Magic Rabbit's
    reading, `vision.cards.stage.glare_off`.)"""
    if not spots:
        return image_bgr
    clean = remove_glare(small_bgr, settings, spots)
    g = (srgb_to_linear(small_bgr.astype(np.float32) / 255.0, 2.2)
         - srgb_to_linear(clean.astype(np.float32) / 255.0, 2.2)).max(axis=2)
    g = cv2.resize(g, image_bgr.shape[1::-1], interpolation=cv2.INTER_LINEAR)
    rows, cols = np.flatnonzero(g.any(axis=1)), np.flatnonzero(g.any(axis=0))
    if not len(rows):
        return image_bgr
    # only the box where light is taken off is converted (a uint8 level's round trip
    # through linear light is exact, so the rest is the photo's own)
    y0, y1, x0, x1 = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
    out = image_bgr.copy()
    lin = srgb_to_linear(image_bgr[y0:y1, x0:x1].astype(np.float32) / 255.0, 2.2) \
        - g[y0:y1, x0:x1, None]
    out[y0:y1, x0:x1] = np.round(255.0 * linear_to_srgb(lin, 2.2)).astype(np.uint8)
    return out

LINEAR8 = srgb_to_linear(np.arange(256, dtype=np.float32) / 255.0).astype(np.float32)  # (256,)
#   float32: each uint8 sRGB level in linear light (also `segment.washed_crops`)


def white_free_chroma(bgr: np.ndarray) -> np.ndarray:
    """float32 (..., 3): a uint8 BGR image's linear-light channels less their lowest. Light
    added equally to every channel (a lamp's white reflection) leaves it unchanged, as
    long as no channel clips."""
    lin = LINEAR8[bgr]
    return lin - lin.min(axis=-1, keepdims=True)


def near_glare_spots(x, y, spots, reach: float) -> np.ndarray:
    """bool, shaped as the point coordinates `x`, `y` (px): within `reach` x any glare
    spot's core (`glare_distance`; `spots`: `glare_spots`' tuples)."""
    near = np.zeros(np.shape(x), bool)
    for spot in spots:
        near |= glare_distance(x, y, spot) <= reach
    return near


def glare_zone(shape, spots: list, reach: float) -> np.ndarray:
    """bool (H, W) of `shape`: within `reach` x each glare spot's core (`glare_distance`)."""
    h, w = shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    return near_glare_spots(xx, yy, spots, reach)


def glare_arena_mask(raw_bgr: np.ndarray, prob: np.ndarray, zone: np.ndarray,
                     measure: np.ndarray, settings: AreaSettings) -> np.ndarray | None:
    """uint8 {0, 1} mask: the network's (`prob` > 0.5, float32 (H, W)) plus, within the
    glare spots' `zone` (bool (H, W), `glare_zone`) of the uint8 BGR working image
    `raw_bgr` (before `remove_glare`), the unclipped pixels whose `white_free_chroma` lies
    within `glare_like_tol` x the arena's own of it (the arena's: its median where the
    network is sure, `prob` > `glare_sure_prob`, outside the zone, and red: `measure`
    (`area_measure`, float32 (H, W)) above `glare_ref_level`, the tiles left out); closed
    by `glare_close_px`. None with too little sure arena (`glare_least_sure` px) to take
    its chroma from."""
    chroma = white_free_chroma(raw_bgr)
    sure = (prob > settings.glare_sure_prob) & ~zone & (measure > settings.glare_ref_level)
    if np.count_nonzero(sure) < settings.glare_least_sure:
        return None
    ref = np.median(chroma[sure], axis=0)
    tol = settings.glare_like_tol * float(np.linalg.norm(ref))
    clipped = raw_bgr.max(axis=2) >= settings.glare_clip
    norm = np.linalg.norm(chroma, axis=2)
    cos = (chroma @ ref) / np.maximum(norm * float(np.linalg.norm(ref)), 1e-6)
    like = zone & ~clipped & (np.linalg.norm(chroma - ref, axis=2) < tol) & \
        (cos >= settings.glare_like_cos)
    mask = ((prob > 0.5) | like).astype(np.uint8)
    k = settings.glare_close_px
    return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))


def white_free_view(small_bgr: np.ndarray, raw_bgr: np.ndarray, zone: np.ndarray
                    ) -> np.ndarray:
    """`small_bgr` (uint8 BGR, glare taken off) with the `zone`'s pixels (bool) replaced by
    `raw_bgr`'s `white_free_chroma` back in sRGB: all of the lamp's white taken off, pixel
    by pixel (the arena keeps its red, a grey wall or a washed-out halo goes dark), so
    the arena's redness cue drops across its side under the spot too."""
    out = small_bgr.copy()
    out[zone] = np.round(255.0 * linear_to_srgb(white_free_chroma(raw_bgr[zone])))
    return out


def linear_gain_lut(gain: float) -> np.ndarray:
    """(256,) uint8 table: each sRGB level times `gain` in linear light, back to sRGB
    (clipped at white); for `cv2.LUT` or indexing. Shared by `exposed`, `relight_shadow`
    and `vision.light_eval`'s lights."""
    return np.round(255.0 * linear_to_srgb(LINEAR8 * gain)).astype(np.uint8)


_LOG_LINEAR = np.log(LINEAR8 + 0.004)  # (the offset: the sensor's dark floor)


def shadow_edge(small_bgr: np.ndarray, settings: AreaSettings, prob: np.ndarray | None = None):
    """The first of `shadow_edges` (the edge whose step agrees on the largest share of its
    line), or None."""
    edges = shadow_edges(small_bgr, settings, prob, limit=1)
    return edges[0] if edges else None


def shadow_edges(small_bgr: np.ndarray, settings: AreaSettings, prob: np.ndarray | None = None,
                 limit: int = 1) -> list:
    """Up to `limit` candidate shadow edges, as `shadow_edge` gives one, the edge whose
    step agrees on the largest share of its line first ([] where none holds).

    The straight edge(s) of a hard shadow across a working-size photo
    (`AreaSettings.shadow_*`), each: (per-channel gains lit / shade (3,) in linear light,
    [(point on the line (x, y), unit normal pointing into the shade, (offsets, weights):
    the shade's share of the step at those signed distances from the line)], one line for
    a half-plane's shade, two for a band's (an arm's or a pole's shadow: a second edge,
    parallel, stepping back up on the shade's side). With the network's probability map
    `prob`, only a shade whose edge runs through or along its mask (`shadow_cuts_mask`)."""
    if settings.shadow_share <= 0 or limit < 1:
        return []
    h, w = small_bgr.shape[:2]
    mean3 = cv2.blur(small_bgr, (3, 3))  # (sRGB levels; made linear where sampled)
    # candidate lines at half the working size (a shadow's edge is long; 4 x cheaper), its
    # fine texture (a wood's grain: many strong parallel lines) blurred away first
    half = cv2.GaussianBlur(cv2.cvtColor(cv2.pyrDown(small_bgr), cv2.COLOR_BGR2GRAY),
                            (0, 0), 1.5)
    edges = cv2.Canny(half, 20, 60)
    min_len = settings.shadow_min_len * min(h, w)
    lines = cv2.HoughLines(edges, 1, np.pi / 90, int(0.1 * min(h, w)))
    if lines is None:
        return []
    k, step = settings.shadow_offset, settings.shadow_step
    lo, hi = np.log(settings.shadow_ratio[0]), np.log(settings.shadow_ratio[1])
    s = np.arange(-(h + w), h + w, step)
    tried: list = []
    found: list = []  # (share, points on the step, normal into the shade, gains)
    for rho, th in lines[:300, 0]:  # (the strongest first)
        if any((abs(rho - r) < 4 and abs(th - t) < 0.06)
               or (abs(rho + r) < 4 and abs(abs(th - t) - np.pi) < 0.06) for r, t in tried):
            continue  # (near duplicates of a line tried: within 4 half-size px = 2 k at the
            # working size, a band's second edge farther; Hough's (rho, ~0) is (-rho, ~pi))
        tried.append((rho, th))
        if len(tried) > settings.shadow_lines:
            break
        rho = 2 * rho + 0.5 * (np.cos(th) + np.sin(th))  # at the working size
        n = np.array([np.cos(th), np.sin(th)])
        pts = n * rho + s[:, None] * np.array([-n[1], n[0]])
        pa, pb = np.round(pts + k * n).astype(int), np.round(pts - k * n).astype(int)
        ok = ((np.minimum(pa, pb) >= 0).all(1) & (np.maximum(pa[:, 0], pb[:, 0]) < w)
              & (np.maximum(pa[:, 1], pb[:, 1]) < h))
        if ok.sum() * step < min_len:
            continue
        pa, pb = pa[ok], pb[ok]
        r = _LOG_LINEAR[mean3[pa[:, 1], pa[:, 0]]] - _LOG_LINEAR[mean3[pb[:, 1], pb[:, 0]]]
        rl = r.mean(1)
        med = float(np.median(rl))
        if not lo <= abs(med) <= hi:
            continue
        rc = r - rl[:, None]
        med_c = np.median(rc, axis=0)
        if med_c.max() - med_c.min() > np.log(settings.shadow_chroma):
            continue
        agree = (np.abs(rl - med) < settings.shadow_tol) & \
            (np.abs(rc - med_c).max(1) < settings.shadow_tol_chroma)
        share = float(agree.mean())
        if share < settings.shadow_share:
            continue
        runs = np.diff(np.flatnonzero(np.concatenate(([True], agree, [True])))) - 1
        if runs.max() > settings.shadow_gap * len(agree):
            continue  # a long stretch without the step: a stripe of the table, not a shadow
        sign = -1.0 if med > 0 else 1.0  # the normal into the darker side
        gains = np.exp(np.median(r[agree], axis=0) * -sign)  # lit / shade
        found.append((share, pts[ok][agree], n * sign, gains))
    found.sort(key=lambda c: -c[0])
    result: list = []
    for _, pts, n, gains in found:
        sides = [(pts, n)]
        for _, pts2, n2, gains2 in found:  # the band's other edge?
            if float(n @ n2) < -0.99 and float((pts2[0] - pts[0]) @ n) > 2 * k and \
                    np.abs(np.log(gains2 / gains)).max() < np.log(1.5):
                sides.append((pts2, n2))
                gains = np.sqrt(gains * gains2)
                break
        if len(sides) == 1 and not _shade_holds(mean3, pts, n, k):
            continue  # a narrow band whose far edge Hough missed: not a half-plane's shade
        if prob is not None and not shadow_cuts_mask(prob, [(p[0], m) for p, m in sides],
                                                     settings):
            continue
        out = []
        reach = 3 * k
        if len(sides) == 2:  # a band: each edge's profile stops halfway to the other edge
            reach = min(reach, np.floor(float((sides[1][0][0] - sides[0][0][0]) @ n) / 2))
        for p, m in sides:  # each edge's own profile: the shade's share of the step
            offs = np.arange(-reach, reach + 1)
            q = np.round(p[None, :, :] + offs[:, None, None] * m).astype(int)
            q[..., 0] = np.clip(q[..., 0], 0, w - 1)
            q[..., 1] = np.clip(q[..., 1], 0, h - 1)
            prof = np.median(_LOG_LINEAR[mean3[q[..., 1], q[..., 0]]].mean(2), axis=1)
            wgt = np.clip((prof[0] - prof) / max(prof[0] - prof[-1], 1e-6), 0.0, 1.0)
            wgt = np.maximum.accumulate(wgt)
            wgt[-1] = 1.0
            out.append((p[0], m, (offs.astype(np.float32), wgt.astype(np.float32))))
        result.append((gains, out))
        if len(result) >= limit:
            break
    return result


def _shade_holds(mean3: np.ndarray, pts: np.ndarray, n: np.ndarray, k: float) -> bool:
    """Whether a lone edge's shade (beyond the points `pts` on its step, along the normal
    `n`) still holds 6 `k` farther in: the median log linear lightness (`_LOG_LINEAR`)
    there nearer the shade's (`k` inside) than the lit side's (`k` outside). A narrow
    band's shadow (an arm, a pole, a cable seen from afar) whose far edge Hough missed is
    lit again by then; lit as a half-plane, the cloth beyond it would be washed out. Too
    few points inside the photo that far in (the edge along its border): True."""
    h, w = mean3.shape[:2]
    at = [np.round(pts + d * k * n).astype(int) for d in (-1.0, 1.0, 6.0)]
    ok = np.logical_and.reduce([(q[:, 0] >= 0) & (q[:, 0] < w) & (q[:, 1] >= 0)
                                & (q[:, 1] < h) for q in at])
    if ok.sum() < max(3, 0.25 * len(pts)):
        return True
    lit, shade, deep = (float(np.median(_LOG_LINEAR[mean3[q[ok, 1], q[ok, 0]]].mean(1)))
                        for q in at)
    return abs(deep - shade) < abs(deep - lit)


def _line_distance(shape, p, n) -> np.ndarray:
    """Signed distance of every pixel of an image of `shape` from the line through `p`
    with unit normal `n` (float32, positive on the normal's side)."""
    h, w = shape[:2]
    return (np.arange(w, dtype=np.float32)[None, :] - np.float32(p[0])) * np.float32(n[0]) + \
        (np.arange(h, dtype=np.float32)[:, None] - np.float32(p[1])) * np.float32(n[1])


def shadow_cuts_mask(prob: np.ndarray, sides, settings: AreaSettings) -> bool:
    """Whether a shade's edge (`sides`, [(point, normal into the shade)]) runs through or
    along the network's area mask (`prob` above 0.5): at least `shadow_near_share` of the
    mask within `shadow_near_px` of a line. A stripe of the table or a shadow away from
    the area is left alone (lighting it moved a cloth found right; so did lighting a
    "shade" that held the whole mask: a darker plank of the table). No mask: True (the
    shadow may hide the area)."""
    mask = prob > 0.5
    total = int(np.count_nonzero(mask))
    if total == 0:
        return True
    ds = [_line_distance(prob.shape, p, n) for p, n in sides]
    near = np.logical_or.reduce([np.abs(d) <= settings.shadow_near_px for d in ds])
    return np.count_nonzero(mask & near) >= settings.shadow_near_share * total


def relight_shadow(small_bgr: np.ndarray, edge) -> np.ndarray:
    """The photo with the shade beyond a `shadow_edge`'s line(s) lit up by its gains (linear
    light), following each edge's own profile; the photo itself if `edge` is None."""
    if edge is None:
        return small_bgr
    gains, sides = edge
    share = None
    for p, n, (offs, wgt) in sides:
        d = _line_distance(small_bgr.shape[:2], p, n)
        one = np.interp(d, offs, wgt, left=0.0, right=1.0).astype(np.float32)
        share = one if share is None else np.minimum(share, one)
    shade = share >= 1.0
    out = small_bgr.copy()
    for c in range(3):  # the full shade by a table per channel, the edge's band in full
        lut = linear_gain_lut(gains[c])
        out[..., c][shade] = lut[small_bgr[..., c][shade]]
    band = (share > 0) & ~shade
    gain = 1.0 + share[band][:, None] * (np.asarray(gains, np.float32) - 1.0)
    out[band] = np.round(255.0 * linear_to_srgb(LINEAR8[small_bgr[band]] * gain))
    return out


def levels(settings: AreaSettings) -> tuple[float, ...]:
    return settings.red_levels if settings.kind == "red" else settings.cloth_levels


def order_corners(corners: np.ndarray) -> np.ndarray:
    """Clockwise on screen, starting so that side 2 -> 3 faces the photo's bottom: the side
    whose middle, seen from the area's centre (where the diagonals cross), points most
    nearly straight down."""
    c = corners.mean(axis=0)
    ang = np.arctan2(corners[:, 1] - c[1], corners[:, 0] - c[0])
    pts = corners[np.argsort(ang)]  # y down: increasing angle is clockwise on screen
    centre = _line_intersect((*(pts[2] - pts[0]), *pts[0]), (*(pts[3] - pts[1]), *pts[1]))
    if centre is None:
        centre = c
    down = []
    for i in range(4):
        d = (pts[(i + 2) % 4] + pts[(i + 3) % 4]) / 2 - centre
        down.append(d[1] / (np.hypot(*d) + 1e-9))
    return np.roll(pts, -int(np.argmax(down)), axis=0)


def _line_intersect(l1, l2):
    (vx1, vy1, x1, y1), (vx2, vy2, x2, y2) = l1, l2
    A = np.array([[vx1, -vx2], [vy1, -vy2]])
    if abs(np.linalg.det(A)) < 1e-9:
        return None
    t = np.linalg.solve(A, np.array([x2 - x1, y2 - y1]))
    return np.array([x1 + t[0] * vx1, y1 + t[0] * vy1])


def _corners_from_lines(lines) -> np.ndarray | None:
    """(4, 2) corners of 4 side lines (vx, vy, x0, y0) in turn: corner i is where side i - 1
    meets side i; None where two neighbours are parallel."""
    out = [_line_intersect(lines[i - 1], lines[i]) for i in range(4)]
    if any(x is None for x in out):
        return None
    return np.array(out)


def _outward_normal(p: np.ndarray, r: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Unit normal of the side p -> r pointing away from the point c (the quad's centre)."""
    d = (r - p) / max(float(np.hypot(*(r - p))), 1e-9)
    n = np.array([-d[1], d[0]])
    return -n if n @ ((p + r) / 2 - c) < 0 else n


def _pairwise_intersections(lines) -> dict:
    """{(a, b): (x, y)} for every pair of the lines (vx, vy, x0, y0) that are not parallel,
    both orders, in closed form (the same point as `_line_intersect`)."""
    cross = {}
    for a in range(len(lines)):
        for b in range(a + 1, len(lines)):
            vx1, vy1, x1, y1 = lines[a]
            vx2, vy2, x2, y2 = lines[b]
            det = vx1 * (-vy2) - (-vx2) * vy1
            if abs(det) < 1e-9:
                continue
            t = ((x2 - x1) * (-vy2) - (-vx2) * (y2 - y1)) / det
            cross[a, b] = cross[b, a] = (x1 + t * vx1, y1 + t * vy1)
    return cross


def _side_lines(pts: np.ndarray, shape, tol: float, settings: AreaSettings):
    """Candidate sides: Hough lines of the outline, each a supporting line (at most
    `max_beyond` of the outline beyond it) with its support (outline points within `tol`).
    Returns a list of ((vx, vy, x0, y0), support), strongest first."""
    canvas = np.zeros(shape, np.uint8)
    canvas[pts[:, 1].astype(int), pts[:, 0].astype(int)] = 255
    found = cv2.HoughLines(canvas, 1, np.pi / 180, max(10, int(0.02 * len(pts))))
    if found is None:
        return []
    out = []
    kept: list[tuple[float, float]] = []
    for rho, theta in found[: settings.hough_lines, 0]:
        if any(abs(rho - r) < 3 * tol and min(abs(theta - t), np.pi - abs(theta - t)) < 0.06
               for r, t in kept):
            continue
        nrm = np.array([np.cos(theta), np.sin(theta)])
        sd = pts @ nrm - rho
        inl = np.abs(sd) < tol
        if inl.sum() < settings.min_side_points * len(pts) / 4:
            continue
        beyond = min((sd > tol).mean(), (sd < -tol).mean())
        if beyond > settings.max_beyond:
            continue
        vx, vy, x0, y0 = cv2.fitLine(pts[inl].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01)
        line = (float(vx[0]), float(vy[0]), float(x0[0]), float(y0[0]))
        kept.append((float(rho), float(theta)))
        out.append((line, int(inl.sum())))
        if len(out) >= settings.candidate_lines:
            break
    return out


def fit_quad(contour: np.ndarray, settings: AreaSettings,
             line_tol: float | None = None) -> np.ndarray | None:
    """(4, 2) corners of the quadrilateral best fitting a blob's outline, or None.

    Candidate sides are supporting lines (Hough) through many outline points; of every 4 of
    them forming a plausible convex quadrilateral that overlaps the blob's convex hull by
    `min_iou`, the one with the most outline points on its sides wins: notches cut by pieces,
    cut corners and tower discs do not move it."""
    import itertools

    pts = contour.reshape(-1, 2).astype(np.float64)
    if len(pts) < 20:
        return None
    peri = cv2.arcLength(contour, True)
    tol = max(1.2, (line_tol or settings.line_tol) * peri / 4)
    shape = (int(pts[:, 1].max()) + 2, int(pts[:, 0].max()) + 2)
    found = _side_lines(pts, shape, tol, settings)
    if len(found) < 4:
        return None
    lines = [f[0] for f in found]
    support = [f[1] for f in found]
    hull = cv2.convexHull(contour.astype(np.float32)).reshape(-1, 2)
    hull_area = cv2.contourArea(hull)
    c = pts.mean(axis=0)

    def foot_angle(line):
        vx, vy, x0, y0 = line
        p = np.array([x0, y0]) - c
        foot = p - (p @ np.array([vx, vy])) * np.array([vx, vy])
        return np.arctan2(foot[1], foot[0])

    angle = [foot_angle(ln) for ln in lines]
    n = len(lines)
    cross = _pairwise_intersections(lines)

    reach = 3 * np.abs(pts - c).max()
    best, best_score = None, 0
    for combo in itertools.combinations(range(n), 4):
        score = sum(support[i] for i in combo)
        if score <= best_score:
            continue
        order = sorted(combo, key=lambda i: angle[i])
        corners = [cross.get((order[i - 1], order[i])) for i in range(4)]
        if any(x is None for x in corners):
            continue
        quad = np.array(corners, np.float32)
        if not cv2.isContourConvex(quad) or np.abs(quad - c).max() > reach:
            continue
        if _corner_angles(quad.astype(np.float64)).min() < settings.min_corner_angle:
            continue
        inter, _ = cv2.intersectConvexConvex(quad, hull)
        qa = cv2.contourArea(quad)
        iou = inter / max(qa + hull_area - inter, 1e-9)
        if iou >= settings.min_iou and score > best_score:
            best, best_score = quad.astype(np.float64), score
    return best


def cue_map(small_bgr: np.ndarray, settings: AreaSettings,
            lab: np.ndarray | None = None, measure: np.ndarray | None = None) -> np.ndarray:
    """float32 map that is high on the play area and drops across its border: redness
    relative to lightness (arena) or lightness minus chroma (cloth); smoothed. `measure`:
    `area_measure` of `lab`, if already made."""
    if lab is None:
        lab = cv2.cvtColor(small_bgr, cv2.COLOR_BGR2LAB)
    if settings.kind == "red":
        m = area_measure(lab, settings) if measure is None else measure  # (the arena
        #   masks' own redness)
    else:
        L, a, b = (p.astype(np.float32) for p in cv2.split(lab))  # (uint8 planes split:
        #                                                           cheaper than float32)
        a, b = a - 128, b - 128
        m = L - 2.0 * np.sqrt(a * a + b * b)
    return cv2.GaussianBlur(m, (0, 0), 1.0)


def snap_sides(quad: np.ndarray, cue: np.ndarray, settings: AreaSettings,
               passes: tuple[tuple[float, float, float], ...], hem: bool = False,
               share_depth: float = 0.0) -> np.ndarray:
    """Move each side of an approximate quad (clockwise on screen) to the nearby line along
    which the cue drops most from inside to outside (the arena's border with the walls, the
    cloth's rim); corners = intersections of the snapped sides. `share_depth` > 0: the line
    along which the cue drops by `contrast_drop` over the largest share of it, sampled this
    share of the side either way (tiles covering much of the border leave the median drop at
    0 on the border and beside it alike)."""
    c = quad.mean(axis=0)
    lines = []
    for i in range(4):
        p, q = quad[i], quad[(i + 1) % 4]
        length = float(np.hypot(*(q - p)))
        best = None
        for search, angles, step in passes:
            mid0 = (p + q) / 2 if best is None else best[0]
            ang0 = np.arctan2(*(q - p)[::-1]) if best is None else best[1]
            offs = np.arange(-search * length, search * length + 1e-9, max(step * length, 0.5))
            angs = ang0 + np.radians(np.arange(-angles, angles + 1e-9, max(angles / 6, 0.5)))
            t = np.linspace(-0.35, 0.35, 36) * length
            d = np.stack([np.cos(angs), np.sin(angs)], axis=1)  # (A, 2)
            nrm = np.stack([-d[:, 1], d[:, 0]], axis=1)
            # the normal must point away from the quad's centre
            sign = np.sign(((mid0 - c) * nrm).sum(axis=1, keepdims=True))
            nrm = nrm * np.where(sign == 0, 1, sign)
            # points (A, O, T, 2)
            base = mid0[None, None, None, :] + offs[None, :, None, None] * nrm[:, None, None, :]
            pts = base + t[None, None, :, None] * d[:, None, None, :]
            delta = (settings.hem_depth if hem else share_depth or settings.snap_depth) * length
            inner = pts - delta * nrm[:, None, None, :]
            outer = pts + delta * nrm[:, None, None, :]
            vin = _sample(cue, inner)
            vout = _sample(cue, outer)
            if hem:  # a thin line darker than both its sides
                score = median(np.minimum(vin, vout) - _sample(cue, pts), axis=2)
            elif share_depth > 0:
                drop = vin - vout
                score = (drop > settings.contrast_drop).mean(axis=2) + 1e-3 * median(
                    drop, axis=2)  # ties: the larger median drop
            else:
                score = median(vin - vout, axis=2)  # (A, O)
            ai, oi = np.unravel_index(int(np.argmax(score)), score.shape)
            best = (mid0 + offs[oi] * nrm[ai], float(angs[ai]))
        (mx, my), ang = best
        if hem:  # the cloth's edge lies just outside its hem
            out = best[0] - c
            d = np.array([np.cos(ang), np.sin(ang)])
            nv = np.array([-d[1], d[0]])
            nv = nv if nv @ out > 0 else -nv
            mx, my = best[0] + settings.hem_inset * length * nv
        lines.append((float(np.cos(ang)), float(np.sin(ang)), float(mx), float(my)))
    out = _corners_from_lines(lines)
    return quad if out is None else out


def _sample(img: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Bilinear samples of a float32 image at (..., 2) points (x, y); outside: edge value."""
    shp = pts.shape[:-1]
    flat = pts.reshape(-1, 2).astype(np.float32)
    n = len(flat)
    cols = 512  # remap maps must stay under 32767 rows
    pad = (-n) % cols
    flat = np.concatenate([flat, np.zeros((pad, 2), np.float32)])
    mx = flat[:, 0].reshape(-1, cols)
    my = flat[:, 1].reshape(-1, cols)
    vals = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return vals.reshape(-1)[:n].reshape(shp)


def _corner_angles(q: np.ndarray) -> np.ndarray:
    """Interior angle (degrees) at each corner of a quad (4, 2)."""
    q = np.asarray(q, np.float64)
    a, b = np.roll(q, 1, axis=0) - q, np.roll(q, -1, axis=0) - q
    cosv = (a * b).sum(axis=1) / (np.hypot(a[:, 0], a[:, 1]) * np.hypot(b[:, 0], b[:, 1])
                                  + 1e-9)
    return np.degrees(np.arccos(np.clip(cosv, -1, 1)))


def square_misfit(quads: np.ndarray, shape: tuple[int, int],
                  focal: tuple[float, float] = (0.5, 1.4),
                  camera: tuple[float, float, float] = (0.5, 0.5, 1.0),
                  steps: int = 37) -> np.ndarray:
    """How far each quad ((N, 4, 2) or (4, 2), image pixels, in order around it) is from the
    image of a square under a pinhole camera whose principal point is (`camera`[0] x w,
    `camera`[1] x h) in an image of `shape` (h, w) (its centre by default) and whose focal
    length is `focal` x `camera`[2] x its long side (the best of `steps`
    values): the smallest, over those focal lengths, of the larger of |log| of the plane
    figure's side ratio and |cos| of its corner angle. 0 for a square's image; (N,) float64
    (a scalar's shape for one quad); a degenerate quad gives inf."""
    q = np.asarray(quads, np.float64)
    one = q.ndim == 2
    q = q.reshape(-1, 4, 2) - [shape[1] * camera[0], shape[0] * camera[1]]
    x0, x1, x2, x3 = (q[:, i, 0] for i in range(4))
    y0, y1, y2, y3 = (q[:, i, 1] for i in range(4))
    # the unit square -> quad homography in closed form (Heckbert): columns (a, d, g), (b, e, h)
    sx, sy = x0 - x1 + x2 - x3, y0 - y1 + y2 - y3
    dx1, dx2, dy1, dy2 = x1 - x2, x3 - x2, y1 - y2, y3 - y2
    den = dx1 * dy2 - dx2 * dy1
    with np.errstate(divide="ignore", invalid="ignore"):
        g = (sx * dy2 - dx2 * sy) / den
        h = (dx1 * sy - sx * dy1) / den
        a, b = x1 - x0 + g * x1, x3 - x0 + h * x3
        d, e = y1 - y0 + g * y1, y3 - y0 + h * y3
        u = 1.0 / (np.linspace(*focal, steps) * camera[2] * max(shape[:2])) ** 2  # 1 / f^2
        n1 = (a * a + d * d)[:, None] * u + (g * g)[:, None]  # |K^-1 h1|^2 per focal length
        n2 = (b * b + e * e)[:, None] * u + (h * h)[:, None]
        dot = (a * b + d * e)[:, None] * u + (g * h)[:, None]
        miss = np.maximum(0.5 * np.abs(np.log(n1 / n2)), np.abs(dot) / np.sqrt(n1 * n2))
    out = np.where(np.isfinite(miss), miss, np.inf).min(axis=1)
    return out[0] if one else out


def is_square(quad: np.ndarray, shape: tuple[int, int], settings: AreaSettings) -> bool:
    """`square_misfit` within `settings.square_max` (always True when that is 0)."""
    return settings.square_max <= 0 or \
        float(_misfit(quad, shape, settings)) <= settings.square_max


def area_from_corners(corners_img, settings: AreaSettings) -> PlayArea:
    """A `PlayArea` from 4 known corners (working-image pixels, any order)."""
    corners = order_corners(np.asarray(corners_img, np.float64))
    s = float(settings.plane_px)
    dst = np.array([[0, 0], [s, 0], [s, s], [0, s]])
    H = cv2.getPerspectiveTransform(corners.astype(np.float32), dst.astype(np.float32))
    return PlayArea(corners=corners, H_img_to_plane=H, H_plane_to_img=np.linalg.inv(H),
                    settings=settings)


def colour_share(small_bgr: np.ndarray, quad: np.ndarray, settings: AreaSettings,
                 lab: np.ndarray | None = None, measure: np.ndarray | None = None) -> float:
    """Share of the quad's pixels that have the play area's colour (most permissive level)."""
    m = np.zeros(small_bgr.shape[:2], np.uint8)
    cv2.fillPoly(m, [np.round(quad).astype(np.int32)], 1)
    if not m.any():
        return 0.0
    lv = min(levels(settings))
    colour = area_mask(small_bgr, settings, lv, lab, measure) > 0
    return float(colour[m > 0].mean())


def _check_candidate(blob, shape, settings: AreaSettings,
                     line_tol: float | None = None) -> tuple[np.ndarray | None, str]:
    """Fit a quad to a candidate blob: (quad or None, why not)."""
    h, w = shape
    b = blob.reshape(-1, 2)
    on_edge = ((b[:, 0] <= 1) | (b[:, 1] <= 1) | (b[:, 0] >= w - 2) | (b[:, 1] >= h - 2)).mean()
    if on_edge > settings.max_on_edge:
        return None, "the candidate region runs out of the photo"
    quad = fit_quad(blob, settings, line_tol)
    if quad is None:
        return None, "cannot fit four sides to it"
    filled = np.zeros(shape, np.uint8)
    cv2.drawContours(filled, [blob], -1, 1, cv2.FILLED)
    hull = np.zeros(shape, np.uint8)
    cv2.fillPoly(hull, [cv2.convexHull(blob)], 1)
    qmask = np.zeros(shape, np.uint8)
    cv2.fillPoly(qmask, [np.round(quad).astype(np.int32)], 1)
    q_area = max(int(qmask.sum()), 1)
    if (hull & qmask).sum() < settings.min_fill * q_area:
        return None, "the candidate region is not a square shape"
    if (filled & (1 - qmask)).sum() > settings.max_outside * q_area:
        return None, "the candidate region is not four-sided"
    if _corner_angles(order_corners(quad)).min() < settings.min_corner_angle:
        return None, "the candidate is too skewed to be a square"
    if not is_square(order_corners(quad), shape, settings):
        return None, "the candidate is not a square's outline seen by a camera"
    return quad, ""


def blurred_lab(small_bgr: np.ndarray) -> np.ndarray:
    """The Lab image `grow_region` floods: `small_bgr` blurred 5 x 5, then converted."""
    return cv2.cvtColor(cv2.GaussianBlur(small_bgr, (5, 5), 0), cv2.COLOR_BGR2LAB)


def grow_region(small_bgr: np.ndarray, seed: tuple[int, int], settings: AreaSettings,
                glab: np.ndarray | None = None):
    """Flood-fill from `seed` over gradual colour changes (shadows, light gradients), stopping
    at edges such as the castle walls or the cloth's rim: uint8 {0, 1} mask. `glab`:
    `blurred_lab(small_bgr)` when the caller has it (the fill only writes its mask, never
    the image, so one serves every seed)."""
    lab = blurred_lab(small_bgr) if glab is None else glab
    h, w = lab.shape[:2]
    ff = np.zeros((h + 2, w + 2), np.uint8)
    tol = (settings.grow_tolerance,) * 3
    cv2.floodFill(lab, ff, seed, (0, 0, 0), tol, tol,
                  4 | cv2.FLOODFILL_MASK_ONLY | (1 << 8))
    return ff[1:-1, 1:-1]


def _best_candidate(small, mask, settings: AreaSettings, why: str, grow: bool = True,
                    glab: np.ndarray | None = None):
    """Try the largest colour blobs (each also grown by flood fill, over `glab`, as
    `grow_region` takes it): (quad or None, why)."""
    total = mask.shape[0] * mask.shape[1]
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    order = [i for i in np.argsort(-stats[1:, cv2.CC_STAT_AREA]) + 1
             if stats[i, cv2.CC_STAT_AREA] >= settings.min_seed_frac * total][:3]
    for i in order:
        comp = (labels == i).astype(np.uint8)
        # Grown over shadows and light gradients first; the colour blob alone if that leaks.
        for grown in (True, False) if grow else (False,):
            region = comp
            if grown:
                dist = cv2.distanceTransform(comp, cv2.DIST_L2, 3)
                sy, sx = np.unravel_index(int(np.argmax(dist)), dist.shape)
                region = grow_region(small, (int(sx), int(sy)), settings, glab) | comp
                if region.sum() > settings.max_grow * comp.sum():
                    why = "the candidate region has no clear border"
                    continue
            cs, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
            blob = max(cs, key=cv2.contourArea)
            a = cv2.contourArea(blob)
            if a < settings.min_area_frac * total:
                why = f"the largest candidate covers only {100 * a / total:.1f} % of it"
                continue
            quad, reason = _check_candidate(blob, mask.shape, settings,
                                            None if grow else settings.line_tol_model)
            if quad is None:
                why = reason
                continue
            return quad, why
    return None, why


def edge_map(small_bgr: np.ndarray, settings: AreaSettings,
             lab: np.ndarray | None = None) -> np.ndarray:
    """Edges (Canny, uint8 {0, 255}) of the lightness of a BGR image (`lab`: its Lab, if
    already made)."""
    if lab is None:
        lab = cv2.cvtColor(small_bgr, cv2.COLOR_BGR2LAB)
    L = cv2.GaussianBlur(lab[..., 0], (0, 0), 1.0)
    return cv2.Canny(L, *settings.edge_canny)


def edge_maps(small_bgr: np.ndarray, settings: AreaSettings,
              lab: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(edges uint8 {0, 255} (`edge_map`), float32 distance of each pixel to the nearest
    edge pixel) of the lightness of a BGR image."""
    edges = edge_map(small_bgr, settings, lab)
    dist = cv2.distanceTransform((edges == 0).astype(np.uint8), cv2.DIST_L2, 3)
    return edges, dist


def edge_cover(quads: np.ndarray, dist: np.ndarray, tol: float, n: int = 48) -> np.ndarray:
    """Share of the sides of each quad (Q, 4, 2) lying within `tol` px of an edge pixel
    (`dist` from `edge_maps`); points outside the image count as off. (Q,) float."""
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    t = np.linspace(0.05, 0.95, n)
    p0, p1 = q, np.roll(q, -1, axis=1)
    pts = p0[:, :, None, :] + t[None, None, :, None] * (p1 - p0)[:, :, None, :]  # Q,4,n,2
    h, w = dist.shape
    x, y = np.round(pts[..., 0]).astype(int), np.round(pts[..., 1]).astype(int)
    inside = (x >= 0) & (y >= 0) & (x < w) & (y < h)
    d = dist[np.clip(y, 0, h - 1), np.clip(x, 0, w - 1)]
    return ((d < tol) & inside).mean(axis=(1, 2))


def side_contrast(quad: np.ndarray, cue: np.ndarray, settings: AreaSettings, n: int = 40,
                  depth: float | None = None, sample=None) -> np.ndarray:
    """For each side of `quad` (4, 2), the share of `n` points along it where the cue map
    (`cue_map`, float32) is at least `contrast_drop` higher inside than outside
    (`depth`, default `contrast_depth`, x the side's length either way). (4,) float.
    The quad's corners must be in cyclic order (clockwise, as `order_corners` puts them);
    side i runs from corner i to corner i + 1, as given. `sample(cue, pts)`: the cue's
    values at (n, 2) points (default `_sample`, bilinear)."""
    sample = _sample if sample is None else sample
    depth = settings.contrast_depth if depth is None else depth
    out = np.zeros(4)
    for i, side in enumerate(_side_points(quad, n, depth)):
        if side is not None:
            pts, inner, outer = side
            out[i] = float((sample(cue, inner) - sample(cue, outer)
                            > settings.contrast_drop).mean())
    return out


def _side_points(quad: np.ndarray, n: int, depth: float) -> list:
    """Per side i of `quad` (4, 2), cyclic (corner i to i + 1): its `n` points (n, 2) at
    0.05-0.95 of its length, and the same moved `depth` x its length inside and outside
    (away from the quad's mean), float64; None for a side under 1e-6 px long."""
    q = np.asarray(quad, np.float64)
    c = q.mean(axis=0)
    t = np.linspace(0.05, 0.95, n)[:, None]
    out: list = []
    for i in range(4):
        p, r = q[i], q[(i + 1) % 4]
        length = float(np.hypot(*(r - p)))
        if length < 1e-6:
            out.append(None)
            continue
        pts = p + t * (r - p)
        off = depth * length * _outward_normal(p, r, c)
        out.append((pts, pts - off, pts + off))
    return out


def chromaticity(lab: np.ndarray, floor: float) -> np.ndarray:
    """float32 (H, W, 2): an 8-bit Lab image's a*, b* over its lightness (x 100 / max(L,
    `floor`), as `area_measure`'s redness with `red_l_floor`): about the same in a
    surface's light and shade (down to the floor's lightness)."""
    L = np.maximum(lab[..., 0].astype(np.float32), floor) / 100.0
    ab = lab[..., 1:].astype(np.float32) - 128.0
    return ab / L[..., None]


def refit_weak_sides(quad: np.ndarray, cue: np.ndarray, settings: AreaSettings,
                     lab: np.ndarray | None = None, zone: np.ndarray | None = None
                     ) -> tuple[np.ndarray, float]:
    """A side of a snapped quad (clockwise) along which the cue drops from inside to outside
    on under `weak_share` of its length (`side_contrast` at `weak_depth`: it snapped to a
    shadow or the wall's outer edge) is looked for again in a wide band around it
    (`weak_passes`) and replaced where the cue drops along clearly more of the new line
    (`_refit`). (the quad, the weakest side share at `weak_depth` of its corners as
    `order_corners` puts them, for `_rival_colour` and `_rival_enclosed`). `lab`: the
    8-bit Lab image `cue` was made from, for the band's colour test (`weak_like_tol`; without
    it, only the redness test); `zone`: bool (H, W), the glare spots' reach (`glare_zone`),
    left out of that test, or None."""
    q = np.asarray(quad, np.float64)
    share = side_contrast(q, cue, settings, depth=settings.weak_depth)
    out = _refit(q, share, cue, settings, lab, zone) \
        if share.min() < settings.weak_share else None
    if out is not None:
        return out, float(side_contrast(order_corners(out), cue, settings,
                                        depth=settings.weak_depth).min())
    # q kept: `share` (q's sides as given) where `order_corners` only rotates q's corners,
    # else measured again
    ordered = order_corners(q)
    if any(np.array_equal(ordered, np.roll(q, -k, axis=0)) for k in range(4)):
        return q, float(share.min())
    return q, float(side_contrast(ordered, cue, settings, depth=settings.weak_depth).min())


def _refit(q: np.ndarray, share: np.ndarray, cue: np.ndarray, settings: AreaSettings,
           lab: np.ndarray | None = None, zone: np.ndarray | None = None
           ) -> np.ndarray | None:
    """`refit_weak_sides`' new quad for `q` (float64, clockwise; `share`: its sides' shares
    at `weak_depth`), or None where no side is replaced or the result is no plausible quad."""
    def keep(take, wide):
        if settings.weak_strip is None:
            return take
        inner = _shrink(q, settings.weak_level_inset)  # the band between old and new side
        level = float(np.median(_quad_values(cue, inner)))
        c = q.mean(axis=0)
        like = None  # (the arena's chromaticity, made once when a side moves out)
        for i in np.flatnonzero(take):
            band = np.array([q[i], q[(i + 1) % 4], wide[(i + 1) % 4], wide[i]])
            vals = _quad_values(cue, band)
            if len(vals) == 0:
                continue
            moved_out = _signed_dist((wide[i] + wide[(i + 1) % 4]) / 2, q, i, c) > 0
            arena = float((vals > settings.weak_arena_level * level).mean())
            lo, hi = settings.weak_strip
            length = float(np.hypot(*(q[(i + 1) % 4] - q[i])))
            if moved_out and arena >= lo and settings.weak_like_tol > 0 and lab is not None \
                    and len(vals) >= settings.weak_like_width * length * length:
                if like is None:
                    like = _arena_likeness(lab, cue, inner, settings.weak_arena_level * level,
                                           settings, zone) or (None,)
                tested = _quad_values(like[0], band) if like[0] is not None else vals[:0]
                if settings.weak_like_deg > 0 and like[0] is not None:
                    tested = np.where(tested == 0, _deeper(_quad_values(like[1], band),
                                                           like[2], settings), tested)
                tested = tested[tested >= 0]  # (outside the glare's reach)
                if len(tested) >= 0.5 * len(vals):
                    arena = min(arena, float(tested.mean()))
            if (arena < lo) if moved_out else (arena > hi):
                take[i] = False
        return take

    return _refit_sides(q, share, cue, settings, keep)


def _deeper(chroma: np.ndarray, ref: np.ndarray, settings: AreaSettings) -> np.ndarray:
    """float32 (N,): 1 where a `chromaticity` (N, 2) is the arena's hue (`ref` (2,): within
    `weak_like_deg` degrees of its direction) and at least as saturated, else 0."""
    rn = float(np.hypot(*ref))
    mag = np.hypot(chroma[:, 0], chroma[:, 1])
    cos = (chroma @ np.asarray(ref, np.float32)) / np.maximum(mag * rn, 1e-6)
    return ((cos >= np.cos(np.radians(settings.weak_like_deg))) & (mag >= rn)).astype(np.float32)


def _refit_sides(q: np.ndarray, share: np.ndarray, cue: np.ndarray, settings: AreaSettings,
                 keep) -> np.ndarray | None:
    """`q` (float64, clockwise; `share`: its sides' shares at `weak_depth` on `cue`) with
    each weak side replaced by the line along which `cue` drops on the largest share of it
    within `weak_passes` (then `weak_fine`), where that share is `weak_gain` higher and
    `keep(take, wide)` (bool (4,) of the sides to replace, the searched quad -> bool (4,))
    leaves it; None where no side is replaced or the result is no plausible quad."""
    wide = snap_sides(q, cue, settings, settings.weak_passes, share_depth=settings.weak_depth)
    if settings.weak_fine:
        wide = snap_sides(wide, cue, settings, settings.weak_fine)
    new = side_contrast(wide, cue, settings, depth=settings.weak_depth)
    take = (share < settings.weak_share) & (new > share + settings.weak_gain)
    if not take.any():
        return None
    take = keep(take, wide)
    if not take.any():
        return None
    lines = []
    for i in range(4):
        src = wide if take[i] else q
        p, r = src[i], src[(i + 1) % 4]
        d = (r - p) / max(float(np.hypot(*(r - p))), 1e-9)
        lines.append((d[0], d[1], p[0], p[1]))
    out = _corners_from_lines(lines)
    if out is None or not cv2.isContourConvex(out.astype(np.float32)) or \
            _corner_angles(out).min() < settings.min_corner_angle:
        return None
    return out


def _arena_ref(lab: np.ndarray, cue: np.ndarray, inner: np.ndarray, level: float,
               floor: float, zone: np.ndarray | None = None, step: int = 1):
    """(2,) float32: the arena's `chromaticity` (at `floor`): its median over the pixels
    of the 8-bit Lab image `lab` inside the quad `inner` where `cue` is above `level` (no
    tiles) and outside `zone` (bool (H, W) or None), every `step`-th row and column; None
    where there are none."""
    m = np.zeros(cue.shape[:2], np.uint8)
    cv2.fillPoly(m, [np.round(inner).astype(np.int32)], 1)
    sure = (m > 0) & (cue > level)
    if zone is not None:
        sure &= ~zone
    if step > 1:
        sure = sure[::step, ::step]
        lab = lab[::step, ::step]
    if not sure.any():
        return None
    return median(chromaticity(lab[sure][None], floor)[0], axis=0)


def _quick_like_shares(q: np.ndarray, lab: np.ndarray, ref: np.ndarray,
                       settings: AreaSettings, floor: float,
                       zone: np.ndarray | None = None) -> np.ndarray:
    """(4,) float: `side_contrast` of the quad `q` (4, 2, clockwise) at `weak_depth` on
    `likeness_cue`, taken at its points' nearest pixels only (no map made: most photos'
    sides are all strong on it)."""
    h, w = lab.shape[:2]

    def likeness(_, pts):  # (`likeness_cue`'s values: 100 like the arena, 50 in the glare)
        x = np.clip(np.round(pts[:, 0]).astype(int), 0, w - 1)
        y = np.clip(np.round(pts[:, 1]).astype(int), 0, h - 1)
        d = np.linalg.norm(chromaticity(lab[y, x][None], floor)[0] - ref, axis=1)
        v = np.where(d < settings.weak_like_tol, 100.0, 0.0)
        if zone is not None:
            v[zone[y, x]] = 50.0
        return v

    return side_contrast(q, lab, settings, depth=settings.weak_depth, sample=likeness)


def _arena_likeness(lab: np.ndarray, cue: np.ndarray, inner: np.ndarray, level: float,
                    settings: AreaSettings, zone: np.ndarray | None = None,
                    floor: float | None = None, ref: np.ndarray | None = None):
    """(float32 (H, W): 1 where the 8-bit Lab image `lab`'s `chromaticity` (at `floor`,
    default `red_l_floor`) lies within `weak_like_tol` of the arena's (its median over the
    pixels inside the quad `inner` where `cue` is above `level`: no tiles; outside `zone`),
    0 where it does not, -1 in `zone` (bool (H, W), the glare's reach: not known); the
    chromaticity (H, W, 2); the arena's (2,)), or None where no arena pixel is left to
    take the median of. `ref`: the arena's chromaticity when already known."""
    floor = settings.red_l_floor if floor is None else floor
    if ref is None:
        ref = _arena_ref(lab, cue, inner, level, floor, zone)
        if ref is None:
            return None
    chroma = chromaticity(lab, floor)
    like = (np.linalg.norm(chroma - ref, axis=2) < settings.weak_like_tol).astype(np.float32)
    if zone is not None:
        like[zone] = -1.0
    return like, chroma, ref


def _shrink(q: np.ndarray, k: float) -> np.ndarray:
    c = q.mean(axis=0)
    return c + k * (q - c)


def _quad_values(img: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The values of a float32 image inside a quad (1-D)."""
    m = np.zeros(img.shape[:2], np.uint8)
    cv2.fillPoly(m, [np.round(quad).astype(np.int32)], 1)
    return img[m > 0]


def _signed_dist(pt: np.ndarray, q: np.ndarray, i: int, c: np.ndarray) -> float:
    """Distance of `pt` beyond side i of quad q (positive: away from the centre c)."""
    p, r = q[i], q[(i + 1) % 4]
    return float((pt - p) @ _outward_normal(p, r, c))


def refine_on_edges(quad: np.ndarray, edges: np.ndarray, tols=(3.0, 1.5)) -> np.ndarray:
    """Refit each side of a quad (clockwise) as a line through the edge pixels within `tol`
    px of it, between its corners; corners = intersections. Unchanged where too few."""
    ys, xs = np.nonzero(edges)
    pts = np.stack([xs, ys], axis=1).astype(np.float64)
    q = np.asarray(quad, np.float64)
    for tol in tols:
        lines = []
        for i in range(4):
            p, r = q[i], q[(i + 1) % 4]
            v = r - p
            ln = float(np.hypot(*v))
            if ln < 1:
                return q
            u = v / ln
            rel = pts - p
            along = rel @ u
            off = np.abs(rel @ np.array([-u[1], u[0]]))
            sel = (off < tol) & (along > 0.05 * ln) & (along < 0.95 * ln)
            if sel.sum() < 0.3 * ln:
                lines.append((u[0], u[1], p[0], p[1]))
                continue
            vx, vy, x0, y0 = cv2.fitLine(pts[sel].astype(np.float32), cv2.DIST_HUBER, 0,
                                         0.01, 0.01).ravel()
            lines.append((float(vx), float(vy), float(x0), float(y0)))
        out = _corners_from_lines(lines)
        if out is None:
            return q
        q = out
    return q


def edge_quad(prob: np.ndarray, edges: np.ndarray, dist: np.ndarray,
              settings: AreaSettings) -> tuple[np.ndarray | None, float]:
    """The play area as 4 straight edges near the border of the network's mask (prob > 0.5):
    the strongest distinct Hough lines of the edges within `edge_band` of that border, every 4
    of them forming a convex, not too skewed quad; the one whose sides lie most on edges
    times its IoU with the mask wins. Returns (quad (4, 2) clockwise or None, its edge cover)."""
    import itertools

    m = (prob > 0.5).astype(np.uint8)
    area = int(m.sum())
    if area < 100:
        return None, 0.0
    r = max(2, int(settings.edge_band * np.sqrt(area)))
    # within r of the mask's border: dilated by r and not eroded by r (distance transforms:
    # an r-disc's dilation and erosion, without the cost of a large kernel)
    outside = cv2.distanceTransform(1 - m, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
    inside = cv2.distanceTransform(m, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
    band = ((outside <= r) & (inside <= r)).astype(np.uint8)
    found = cv2.HoughLines(edges * band, 1, np.pi / 180, 20)
    if found is None:
        return None, 0.0
    kept: list[tuple[float, float]] = []
    for rho, theta in found[:300, 0]:
        if any(abs(rho - r0) < 6 and min(abs(theta - t0), np.pi - abs(theta - t0)) < 0.06
               for r0, t0 in kept):
            continue
        kept.append((float(rho), float(theta)))
        if len(kept) >= settings.edge_lines:
            break
    lines = [(-np.sin(t), np.cos(t), rho * np.cos(t), rho * np.sin(t)) for rho, t in kept]
    c = np.argwhere(m)[:, ::-1].mean(axis=0)

    def foot_angle(line):
        vx, vy, x0, y0 = line
        p = np.array([x0, y0]) - c
        return np.arctan2(*(p - (p @ np.array([vx, vy])) * np.array([vx, vy]))[::-1])

    ang = [foot_angle(ln) for ln in lines]
    cross = _pairwise_intersections(lines)
    quads = []
    for combo in itertools.combinations(range(len(lines)), 4):
        order = sorted(combo, key=lambda i: ang[i])
        cs = [cross.get((order[i - 1], order[i])) for i in range(4)]
        if any(x is None for x in cs):
            continue
        q = np.array(cs)
        q32 = q.astype(np.float32)
        # (the three tests, the cheap ones first: a quad must pass all of them)
        if not cv2.isContourConvex(q32) or not 0.5 * area < cv2.contourArea(q32) < 2.5 * area:
            continue
        if _corner_angles(q).min() < settings.min_corner_angle:
            continue
        quads.append(q)
    if quads and settings.square_max > 0:  # (vectorised: every quad at once)
        miss = _misfit(np.array(quads), prob.shape, settings)
        quads = [q for q, m in zip(quads, miss, strict=True) if m <= settings.square_max]
    if not quads:
        return None, 0.0
    quads = np.array(quads)
    cover = edge_cover(quads, dist, settings.edge_tol)
    ms = cv2.resize(m, (max(1, m.shape[1] // 4), max(1, m.shape[0] // 4)),
                    interpolation=cv2.INTER_NEAREST)
    best, best_s = None, 0.0
    for i in np.argsort(-cover):
        if cover[i] <= best_s:
            break
        qm = np.zeros_like(ms)
        cv2.fillPoly(qm, [np.round(quads[i] / 4).astype(np.int32)], 1)
        inter = int((qm & ms).sum())
        iou = inter / max(int(qm.sum()) + int(ms.sum()) - inter, 1)
        if iou >= settings.edge_min_iou and cover[i] * iou > best_s:
            best, best_s = quads[i], float(cover[i] * iou)
    if best is None:
        return None, 0.0
    best = refine_on_edges(best, edges)
    return best, float(edge_cover(best[None], dist, settings.edge_tol)[0])


def enclosed_region(prob: np.ndarray, edges: np.ndarray, settings: AreaSettings
                    ) -> np.ndarray:
    """uint8 {0, 1}: the parts of the photo away from edges (Canny, dilated by 1 px, cut
    it into parts) holding at least `enclosed_seed` px of the network's mask (probability
    over `enclosed_prob`), holes (marbles, cards) filled. A partial mask on a cloth grows
    to the cloth's rim."""
    free = (cv2.dilate(edges, np.ones((3, 3), np.uint8)) == 0).astype(np.uint8)
    n, labels = cv2.connectedComponents(free, connectivity=4)
    count = np.bincount(labels[(prob > settings.enclosed_prob) & (free > 0)], minlength=n)
    keep = count >= settings.enclosed_seed
    keep[0] = False
    region = keep[labels].astype(np.uint8)
    region = cv2.morphologyEx(region, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    cs, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(region)
    cv2.drawContours(out, cs, -1, 1, cv2.FILLED)
    return out


def _hull_mask(mask: np.ndarray) -> np.ndarray:
    """uint8 {0, 1}: the convex hull of a mask's largest blob, filled."""
    cs, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(mask)
    if cs:
        cv2.fillPoly(out, [cv2.convexHull(max(cs, key=cv2.contourArea))], 1)
    return out


def _enclosed(prob: np.ndarray, edges: np.ndarray, settings: AreaSettings
              ) -> np.ndarray | None:
    """`enclosed_region`, or None where it covers under `min_area_frac` of the photo."""
    region = enclosed_region(prob, edges, settings)
    return None if region.sum() < settings.min_area_frac * region.size else region


def _enclosed_edge_quad(prob, edges, dist, settings: AreaSettings, inside: bool = False):
    """4 straight edges around the region enclosed by the edges around the network's mask
    (`_enclosed`, `edge_quad`), if they lie on edges for `enclosed_cover` of their
    length; `inside`: only a region clear of the photo's border. Clockwise, or None."""
    region = _enclosed(prob, edges, settings)
    if region is None:
        return None
    if inside and (region[0].any() or region[-1].any() or region[:, 0].any()
                   or region[:, -1].any()):
        return None
    quad, cover = edge_quad(region.astype(np.float32), edges, dist, settings)
    return order_corners(quad) if quad is not None and cover >= settings.enclosed_cover else None


def _rival_enclosed(best, share, small, lab, prob, cue, settings: AreaSettings):
    """The network's snapped quad, or the quad of the region enclosed by the edges around
    its mask (`enclosed_region`) where the quad's weakest side is weak (`share`, its weakest
    side share at `weak_depth`, as `refit_weak_sides` gives it) and the rival's is clearly
    stronger (the mask covered part of the arena and a table of its colour)."""
    if share >= settings.weak_share:
        return best
    region = _enclosed(prob, edge_map(small, settings, lab), settings)
    if region is None:
        return best
    # its convex hull: tiles touching the wall cut notches into the region's outline
    quad, _ = _best_candidate(small, _hull_mask(region), settings, "", grow=False)
    if quad is None:
        return best
    quad = order_corners(snap_sides(order_corners(quad), cue, settings,
                                    settings.snap_passes_model))
    rival = side_contrast(quad, cue, settings, depth=settings.weak_depth).min()
    return quad if rival > share + settings.weak_gain else best


def colour_quads(small, lab, cue, settings: AreaSettings, measure=None):
    """For each colour level in turn (`area_mask`, opened and closed): (its plausible quad
    snapped to `cue`, or None; why not)."""
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (settings.open_px, settings.open_px))
    glab = blurred_lab(small)  # once for every level's flood fills
    if measure is None:  # and the colour measure likewise
        measure = area_measure(lab, settings)
    for level in levels(settings):
        mask = area_mask(small, settings, level, measure=measure)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, k)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8),
                                iterations=2)
        best, why = _best_candidate(small, mask, settings, "", glab=glab)
        if best is not None:
            best = snap_sides(order_corners(best), cue, settings, settings.snap_passes)
        yield best, why


def colour_quad(small, lab, cue, settings: AreaSettings, why: str = "", measure=None):
    """The first colour level's plausible quad (`colour_quads`), or None; and the last
    reason (`why` when no level gave one)."""
    for quad, level_why in colour_quads(small, lab, cue, settings, measure):
        if quad is not None:
            return quad, level_why
        why = level_why or why
    return None, why


def _rival_colour(best, share, small, lab, cue, settings: AreaSettings, measure=None,
                  zone=None):
    """The network's quad, or the strongest of the colour levels' quads (`colour_quads`,
    weak sides refitted: the first level's can be a worse fit than a later one's) where
    the network's weakest side is weak (`share` < `weak_share`) and that quad's is clearly
    stronger."""
    if share >= settings.weak_share:
        return best, share
    rivals = [refit_weak_sides(quad, cue, settings, lab, zone)
              for quad, _ in colour_quads(small, lab, cue, settings, measure)
              if quad is not None]
    if not rivals:
        return best, share
    quad, rival = max(rivals, key=lambda r: r[1])
    return (quad, rival) if rival > share + settings.weak_gain else (best, share)


def likeness_cue(like: np.ndarray) -> np.ndarray:
    """float32 (H, W): `_arena_likeness`' map (1 arena-like, 0 not, -1 not known) as a cue
    for `side_contrast` and `refit_weak_sides`: 100 / 0, a pixel not known 50 (a side
    drops by at most half there), smoothed as `cue_map`."""
    m = np.where(like < 0, 50.0, 100.0 * like).astype(np.float32)
    return cv2.GaussianBlur(m, (0, 0), 1.0)


def _refit_on_likeness(best, lab, cue, settings: AreaSettings, zone=None, small=None):
    """The arena's quad so far (`best`), or, where a side is weak on the arena's own colour
    (`likeness_cue`, `side_contrast` at `weak_depth` under `weak_share`), that side moved
    in to the line along which that cue drops on clearly more of it (`_refit_sides`),
    where the band it crosses is a wall's: not of the arena's colour (at most
    `like_band_max` of its pixels outside the glare's `zone` like the arena) and not as
    red as the arena (its median redness `cue` under `like_red_max` x the arena's: a
    shaded arena keeps its redness, while under a harsh lamp its colour moves). A side
    that snapped to a wall's outer edge (a wall about half as red as the arena on a table
    that is not) drops in redness there, but not in likeness to the arena. Sides are only
    moved in: beyond the arena, a red table is as like the arena as the arena is. `small`:
    the uint8 BGR working-size photo `lab` was made from, to look for a hard shadow's edge
    in (`like_shadow_share`; None: not looked for)."""
    q = order_corners(np.asarray(best, np.float64))
    inner = _shrink(q, settings.weak_level_inset)
    level = float(np.median(_quad_values(cue, inner)))
    floor = settings.like_l_floor
    ref = _arena_ref(lab, cue, inner, settings.weak_arena_level * level, floor, zone, step=3)
    if ref is None or _quick_like_shares(q, lab, ref, settings, floor, zone).min() >= \
            settings.weak_share:
        return best
    if small is not None and settings.like_shadow_share > 0:
        edge = shadow_edge(small, replace(settings, shadow_share=settings.like_shadow_share))
        if edge is not None:  # judged again on the photo with the shade lit up
            lit = cv2.cvtColor(relight_shadow(small, edge), cv2.COLOR_BGR2LAB)
            return _refit_on_likeness(best, lit, cue, settings, zone)
    found = _arena_likeness(lab, cue, inner, 0.0, settings, zone, floor, ref)
    like, chroma, ref = found
    lcue = likeness_cue(like)
    # redness as `area_measure`'s, of the chromaticity at the lower floor
    red = chroma[..., 0] - settings.red_b_weight * np.abs(chroma[..., 1])
    arena_red = float(ref[0] - settings.red_b_weight * abs(ref[1]))
    share = side_contrast(q, lcue, settings, depth=settings.weak_depth)
    if share.min() >= settings.weak_share:
        return best
    c = q.mean(axis=0)

    def keep(take, wide):
        for i in np.flatnonzero(take):
            band = np.array([q[i], q[(i + 1) % 4], wide[(i + 1) % 4], wide[i]])
            vals = _quad_values(red, band)
            known = _quad_values(like, band)
            known = known[known >= 0]
            length = float(np.hypot(*(q[(i + 1) % 4] - q[i])))
            take[i] = len(vals) > 0 and len(known) > 0 and \
                len(vals) <= settings.like_band_width * length * length and \
                _signed_dist((wide[i] + wide[(i + 1) % 4]) / 2, q, i, c) < 0 and \
                float(median(vals)) < settings.like_red_max * arena_red and \
                float(known.mean()) <= settings.like_band_max
        return take

    out = _refit_sides(q, share, lcue, settings, keep)
    return best if out is None else out


def _rival_glare(best, raw, spots, small, prob, measure, settings: AreaSettings):
    """The arena's quad so far (`best`, clockwise), or the quad of the network's mask
    repaired under the glare spots (`glare_arena_mask`), snapped, where the
    former's weakest side is weak and the rival's is clearly stronger; both snapped and
    judged on the cue of `white_free_view` (the redness cue washes out under the spot)."""
    zone = glare_zone(small.shape, spots, settings.glare_like_reach)
    cue = cue_map(white_free_view(small, raw, np.ones(zone.shape, bool)), settings)
    share = float(side_contrast(order_corners(best), cue, settings,
                                depth=settings.weak_depth).min())
    if share >= settings.weak_share:
        return best
    mask = glare_arena_mask(raw, prob, zone, measure, settings)
    if mask is None:
        return best
    quad, _ = _best_candidate(small, mask, settings, "", grow=False)
    if quad is None:
        return best
    quad = order_corners(snap_sides(order_corners(quad), cue, settings,
                                    settings.snap_passes_model))
    # (not refitted: on the white-free cue, `refit_weak_sides` moved a right side in to a
    # row of tiles, committed glare 0013 9 -> 38 px)
    rival = float(side_contrast(quad, cue, settings, depth=settings.weak_depth).min())
    return quad if rival > share + settings.weak_gain else best


def _hull_quad(small, prob, lab, cue, measure, spots, settings: AreaSettings):
    """The quad (4, 2) float64 of the convex hull of the network's mask (`prob` float32
    (H, W) over each of `model_thresholds` in turn, its largest blob, `_hull_mask`) on the
    uint8 BGR working photo `small` (`lab`, `cue`, `measure` made from it), checked as the
    network's masks are (`_best_candidate`, `min_colour_share`), snapped to `cue` and its
    weak sides refitted as the network's quad is; None where no threshold gives one.
    `hull_last`'s last look."""
    for th in settings.model_thresholds:
        mask = _hull_mask((prob > th).astype(np.uint8))
        best, _ = _best_candidate(small, mask, settings, "", grow=False)
        if best is None or colour_share(small, best, settings, lab, measure) < \
                settings.min_colour_share:
            continue
        best = snap_sides(order_corners(best), cue, settings, settings.snap_passes_model)
        zone = glare_zone(small.shape, spots, settings.glare_like_reach) \
            if spots and settings.weak_like_tol > 0 else None
        return refit_weak_sides(best, cue, settings, lab, zone)[0]
    return None


def _slid_sides(q: np.ndarray, i: int, span: float, steps: int) -> np.ndarray:
    """(steps^2, 4, 2) float64: quad `q` ((4, 2), in order around it) with side i (corners
    i, i + 1) replaced, corner i slid along side i - 1's line and corner i + 1 along side
    i + 1's, each from 1 - `span` to 1 + `span` x that side's length from its far corner."""
    a, b = i, (i + 1) % 4
    pa, pb = q[(i - 1) % 4], q[(i + 2) % 4]
    t = np.linspace(1.0 - span, 1.0 + span, steps)[:, None]
    out = np.repeat(q[None], steps * steps, axis=0)
    out[:, a] = np.repeat(pa + t * (q[a] - pa), steps, axis=0)
    out[:, b] = np.tile(pb + t * (q[b] - pb), (steps, 1))
    return out


def _seen_contrast(quad: np.ndarray, cue: np.ndarray, settings: AreaSettings,
                   spots: list, n: int = 40) -> np.ndarray:
    """`side_contrast` of `quad` ((4, 2), in order around it) on `cue` at `weak_depth`,
    each side's share over only its points whose own, inner and outer sample all lie
    beyond `square_glare_reach` x every glare spot's core (`spots`: `glare_spots`' tuples,
    in `cue`'s pixels); NaN for a side with under `square_glare_seen` of its `n` points so
    (unseen). (4,) float64; `side_contrast`'s shares where `spots` is empty."""
    q = np.asarray(quad, np.float64)
    if not spots:
        return side_contrast(q, cue, settings, n=n, depth=settings.weak_depth)
    out = np.full(4, np.nan)
    for i, side in enumerate(_side_points(q, n, settings.weak_depth)):
        if side is None:
            out[i] = 0.0
            continue
        pts, inner, outer = side
        seen = np.ones(n, bool)
        for pp in (pts, inner, outer):
            seen &= ~near_glare_spots(pp[:, 0], pp[:, 1], spots, settings.square_glare_reach)
        if seen.any() and seen.sum() >= settings.square_glare_seen * n:
            drop = _sample(cue, inner) - _sample(cue, outer) > settings.contrast_drop
            out[i] = float(drop[seen].mean())
    return out


def _weakest_seen(shares: np.ndarray) -> float:
    """The weakest of a quad's seen sides' shares (`_seen_contrast`); 0 where none is seen."""
    seen = shares[np.isfinite(shares)]
    return float(seen.min()) if len(seen) else 0.0


def _square_refit(best: np.ndarray, cue: np.ndarray, shape: tuple[int, int],
                  settings: AreaSettings, spots: list = ()) -> np.ndarray:
    """`best` ((4, 2) float64 working pixels, clockwise), or, where it is no square's image
    under a phone's camera (`square_misfit` over `square_refit`), the quad with one side
    replaced (`_slid_sides`, misfit under `square_refit_fit`) whose new side is the
    strongest on `cue` (float32 (H, W), `cue_map`), over all four sides the one with the
    strongest weakest side (`side_contrast` at `weak_depth`), where that is stronger than
    `best`'s own. `shape`: the working image's (h, w). `spots`: the glare spots taken off
    (`glare_spots`' tuples, in `cue`'s pixels); with `square_glare_reach`, the sides are
    judged by `_seen_contrast` (a side under a core left out of the weakest), an unseen new
    side's candidates by their weakest then the most square, and a candidate as strong as
    `best` wins."""
    q = np.asarray(best, np.float64)
    if float(_misfit(q, shape, settings)) <= settings.square_refit:
        return best
    if settings.square_glare_reach <= 0:
        spots = ()
    own = _weakest_seen(_seen_contrast(q, cue, settings, list(spots)))
    # (under a spot, a square's image as strong as `best` wins: `best` is no square's)
    pick, pick_min = None, own - (1e-9 if spots else 0.0)
    for i in range(4):
        slid = _slid_sides(q, i, settings.square_slide, settings.square_steps)
        mis = _misfit(slid, shape, settings)
        keep = mis < settings.square_refit_fit
        slid, mis = slid[keep], mis[keep]
        if not len(slid):
            continue
        shares = np.array([_seen_contrast(x, cue, settings, list(spots)) for x in slid])
        weakest = np.array([_weakest_seen(s) for s in shares])
        # the new side's share (an unseen one: -1, then the most square of them)
        k = int(np.argmax(np.nan_to_num(shares[:, i], nan=-1.0) + 1e-3 * weakest
                          - (1e-6 * mis if spots else 0.0)))
        if weakest[k] > pick_min:
            pick, pick_min = slid[k], float(weakest[k])
    return best if pick is None else pick


def cast_balanced(small_bgr: np.ndarray, cast: float) -> np.ndarray:
    """uint8 BGR `small_bgr` white balanced in full by its own light
    (`vision.preprocess.light_gains`) where the largest gain is at least `cast`; itself
    otherwise."""
    gains = light_gains(small_bgr, 1.0)
    return apply_gains(small_bgr, gains) if gains.max() >= cast else small_bgr


def exposure_gain(small_bgr: np.ndarray, to: float, pct: float = 99.0,
                  most: float = 4.0) -> float:
    """The gain in linear light (1.0 to `most`) that `exposed` applies to uint8 BGR
    `small_bgr` (H, W, 3): where the `pct` percentile of its brightest channel (linear;
    every 2nd pixel of every 2nd row, the lowest level with `pct` % of them at or under it)
    is under `to`, the gain that brings it to `to`; 1.0 where it is not, for `to` <= 0 and
    for an empty image. Raises ValueError for an image that is not (H, W, 3)."""
    if small_bgr.ndim != 3 or small_bgr.shape[2] != 3:
        raise ValueError(f"exposure_gain: a BGR image (H, W, 3) wanted, got {small_bgr.shape}")
    if to <= 0 or small_bgr.size == 0:
        return 1.0
    sample = small_bgr[::2, ::2]
    top = cv2.max(cv2.max(sample[..., 0], sample[..., 1]), sample[..., 2])
    counts = np.cumsum(np.bincount(top.ravel(), minlength=256))
    level = float(LINEAR8[int(np.searchsorted(counts, pct / 100.0 * counts[-1]))])
    return 1.0 if level >= to else min(most, to / max(level, 1e-4))


def exposed(small_bgr: np.ndarray, to: float, pct: float = 99.0,
            most: float = 4.0) -> np.ndarray:
    """uint8 BGR `small_bgr` (H, W, 3) brought up by one gain in linear light
    (`exposure_gain`: at most `most`, so that the `pct` percentile of its brightest channel
    reaches `to`; an underexposed photo as a well-exposed one); itself where that gain is 1
    (a well-exposed photo, `to` <= 0, an empty image)."""
    gain = exposure_gain(small_bgr, to, pct, most)
    return small_bgr if gain == 1.0 else cv2.LUT(small_bgr, linear_gain_lut(gain))


def area_tone(small_bgr: np.ndarray, prob: np.ndarray, settings: AreaSettings
              ) -> tuple[np.ndarray, np.ndarray]:
    """(exponents, pivots), each (3,) float32 (BGR), for `apply_tone`: a lamp's tone curve
    read off the uint8 BGR working photo `small_bgr` (H, W, 3) where the network's
    probability map `prob` (float32 (H, W)) is over `tone_prob` (`AreaSettings.tone_*`,
    `vision.preprocess.tone_of_pixels`); ones where it cannot tell one or is off."""
    if settings.tone_dev[1] <= 0:
        return np.ones(3, np.float32), np.full(3, 128, np.float32)
    k = max(1, settings.tone_step)
    sure = prob[::k, ::k] > settings.tone_prob
    px = small_bgr[::k, ::k][sure].astype(np.float32)
    px = px[(px.max(axis=1) < settings.tone_clip) & (px.min(axis=1) > 3)]
    return tone_of_pixels(px, settings.tone_bins, settings.tone_span, settings.tone_dev,
                          settings.tone_agree)


def _corners_apart(a: np.ndarray, b: np.ndarray) -> float:
    """The worst corner's distance (px) between two quads (4, 2), in their best
    correspondence (both in `order_corners`' order, any rotation)."""
    p, q = order_corners(np.asarray(a, np.float64)), order_corners(np.asarray(b, np.float64))
    return float(min(np.hypot(*(np.roll(p, k, axis=0) - q).T).max() for k in range(4)))


def _toned_or_plain(image_bgr: np.ndarray, exps: np.ndarray, pivots: np.ndarray,
                    settings: AreaSettings, what: str, game: str | None,
                    use_model: bool) -> PlayArea:
    """`find_area` on a photo whose lamp bends its channels (`area_tone`'s `exps`,
    `pivots`): the cloth looked for on the photo as it is and with the curve taken off
    (`apply_tone`, full size; about `tone_white` on every channel where that is over 0,
    else about `pivots`), both with `tone_dev` off. The second is kept where the first
    is not found, or lies `tone_apart` x the photo's long side or more from it and is
    more square or has a stronger weakest side (`tone_judge`, `_quad_checks`); the first
    where the second is not found, they agree or the first is as good by both checks (a
    few px either way move the cards beside the cloth: `vision.cards.read`);
    `AreaNotFound` where neither is found."""
    plain = replace(settings, tone_dev=(0.0, 0.0))
    found = []
    if settings.tone_white > 0:  # (about white: see `AreaSettings.tone_white`)
        pivots = np.full(3, settings.tone_white, np.float32)
    for img in (image_bgr, apply_tone(image_bgr, exps, pivots)):
        try:
            found.append(find_area(img, plain, what, game, use_model))
        except AreaNotFound as exc:
            found.append(exc)
    first, second = found
    if isinstance(first, AreaNotFound):
        if isinstance(second, AreaNotFound):
            raise first
        return second
    if isinstance(second, AreaNotFound):
        return first
    gate = settings.tone_apart * max(image_bgr.shape[:2])
    if _corners_apart(first.corners, second.corners) < gate:
        return first
    if not settings.tone_judge:
        return second
    cue = cue_map(image_bgr, settings)
    (miss1, side1), (miss2, side2) = (
        _quad_checks(a.corners, image_bgr.shape[:2], cue, settings) for a in (first, second))
    as_square = miss1 <= miss2 + settings.tone_square_tie
    return first if as_square and side1 >= side2 else second


def _quad_checks(quad: np.ndarray, shape: tuple[int, int], cue: np.ndarray,
                 settings: AreaSettings) -> tuple[float, float]:
    """(`square_misfit`, weakest side's `side_contrast` share) of a quad (4, 2) in an image
    of `shape` (h, w) whose cue map (`cue_map`, float32 (h, w)) is `cue`."""
    q = order_corners(np.asarray(quad, np.float64))
    return (float(_misfit(q, shape, settings)),
            float(side_contrast(q, cue, settings).min()))


def _working_size(image_bgr: np.ndarray, settings: AreaSettings) -> tuple[np.ndarray, float]:
    """The reduced uint8 BGR copy of `image_bgr` the area is looked for on
    (`mask_long_side`) and its scale factor."""
    h, w = image_bgr.shape[:2]
    f = min(1.0, settings.mask_long_side / max(h, w))
    src = image_bgr
    while max(src.shape[:2]) >= 2 * settings.mask_long_side:  # halve fast, then area-resize
        src = cv2.pyrDown(src)
    return cv2.resize(src, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA), f


def _squared(area: PlayArea, small: np.ndarray, f: float, settings: AreaSettings) -> PlayArea:
    """`area` (found in a photo whose working copy, uint8 BGR, is `small`, at `f` x its
    size: `_working_size`), or, where its quad is no square's image (`square_refit`), the
    area of `_square_refit`'s quad, judged on the redness cue of the working copy with the
    area's glare spots taken off and exposed (as `_find_area` first makes it, before any
    cast balance or shadow relight), the spots handed on (`square_glare_reach`). After the
    looks are chosen between (`_looked_for`
    judges two looks by `square_misfit`: a look squared before that would win it on a side
    it placed, fresh 2642 glare 0009 4.8 -> 90 px)."""
    q = order_corners(np.asarray(area.corners, np.float64) * f)
    if float(_misfit(q, small.shape[:2], settings)) <= settings.square_refit:
        return area
    spots = [((c[0] * f, c[1] * f), (a[0] * f, a[1] * f), ang) for c, a, ang in area.glare]
    small = exposed(remove_glare(small, settings, spots), settings.expose_to,
                    settings.expose_pct, settings.expose_max)
    new = _square_refit(q, cue_map(small, settings), small.shape[:2], settings, spots)
    if new is q:
        return area
    return replace(area_from_corners(new / f, settings), prob=area.prob,
                   prob_scale=area.prob_scale, glare=area.glare, table_curve=area.table_curve)


def find_area(image_bgr: np.ndarray, settings: AreaSettings, what: str = "play area",
              game: str | None = None, use_model: bool = True) -> PlayArea:
    """The play area in the uint8 BGR photo `image_bgr` (`_looked_for`; with
    `square_refit`, a quad no camera sees a square as refitted, `_squared`); with
    `table_tone`, looked for again where the table beyond it shows a lamp's tone curve
    (`_table_toned`). `AreaNotFound` where none is found."""
    looks = _looks(image_bgr, settings)
    area = _looked_for(image_bgr, settings, what, game, use_model, looks)
    if settings.square_refit > 0:
        area = _squared(area, *looks[:2], settings)  # (the same working copy)
    if settings.table_tone:
        area = _table_toned(image_bgr, area, settings, what, game, use_model)
    if settings.closer_look > 0 and settings.square_refit > 0:
        area = _closer(image_bgr, area, settings, what, game, use_model)
    return area


def _misfit(quads: np.ndarray, shape: tuple[int, ...], settings: AreaSettings) -> np.ndarray:
    """`square_misfit` of `quads` in an image of `shape` under `settings`' camera
    (`square_focal`, `square_camera`)."""
    return square_misfit(quads, shape, settings.square_focal, settings.square_camera)


def _closer(image_bgr: np.ndarray, area: PlayArea, settings: AreaSettings, what: str,
            game: str | None, use_model: bool) -> PlayArea:
    """`area` (found in the uint8 BGR `image_bgr`), or, where its quad is no square's image
    (`square_misfit` over `square_refit`), the area found on a crop of `image_bgr` around it
    (a square `closer_look` x the quad's extent about its centre, clipped to the photo),
    where that one's quad is a square's image in the whole photo (misfit within
    `square_refit`, which `area`'s is not). The crop's glare spots are handed on
    moved to the photo's pixels; the network's map stays the whole photo's."""
    h, w = image_bgr.shape[:2]
    q = order_corners(np.asarray(area.corners, np.float64))
    misfit = float(_misfit(q, (h, w), settings))
    if misfit <= settings.square_refit:
        return area
    half = settings.closer_look * float((q.max(axis=0) - q.min(axis=0)).max()) / 2
    c = q.mean(axis=0)
    x0, y0 = int(max(0.0, c[0] - half)), int(max(0.0, c[1] - half))
    x1, y1 = int(min(float(w), c[0] + half)), int(min(float(h), c[1] + half))
    if (x1 - x0) * (y1 - y0) > settings.closer_max_share * w * h or \
            min(x1 - x0, y1 - y0) < settings.closer_min_side:
        return area  # no closer than the photo itself (or nothing to look at)
    crop = np.ascontiguousarray(image_bgr[y0:y1, x0:x1])
    inner = replace(settings, closer_look=0.0)
    if settings.closer_camera:  # (the photo's camera moved into the crop's pixels)
        cx, cy, fu = settings.square_camera
        inner = replace(inner, square_camera=(
            (cx * w - x0) / (x1 - x0), (cy * h - y0) / (y1 - y0),
            fu * max(h, w) / max(x1 - x0, y1 - y0)))
    try:
        near = find_area(crop, inner, what, game, use_model)
    except AreaNotFound:
        return area
    corners = np.asarray(near.corners, np.float64) + (x0, y0)
    if float(_misfit(order_corners(corners), (h, w), settings)) > settings.square_refit:
        return area
    glare = tuple(((s_c[0] + x0, s_c[1] + y0), axes, ang) for s_c, axes, ang in near.glare)
    return replace(area_from_corners(corners, settings), prob=area.prob,
                   prob_scale=area.prob_scale, glare=glare, table_curve=near.table_curve)


def _table_toned(image_bgr: np.ndarray, area: PlayArea, settings: AreaSettings, what: str,
                 game: str | None, use_model: bool) -> PlayArea:
    """`area` (found on the uint8 BGR `image_bgr` as it is), or the area found on the photo
    with the tone curve of the table beyond it (`vision.shields.table_tone`) taken off
    about white, where the table bends and the second is found, lies `tone_apart` x the
    photo's long side or more from the first and is as good by both its own checks (as
    square within `tone_square_tie` and its weakest side as strong: `_quad_checks` on the
    plain photo's cue). Unlike `_toned_or_plain` (the curve's cloth unless the plain one is
    as good by both), the plain area is the default: a glare copy's table bent by the
    spot's spread light gave a lopsided quad with a stronger weakest side (committed glare
    0013: misfit 0.62 against 0.02, 9 -> 206 px off). The first carries the table's
    reading (`PlayArea.table_curve`), read on it, for the coats of arms' stage."""
    # (imported here: shields reads `near_glare_spots` from this module)
    from vision.shields import SHIELDS, table_tone

    exps = table_tone(image_bgr, area)
    read = replace(area, table_curve=(exps,))  # (the reading kept for the coats of arms' stage)
    if exps is None:
        return read
    toned = power_about(image_bgr, exps, SHIELDS.tone_white)
    try:
        second = _looked_for(toned, replace(settings, table_tone=False), what, game, use_model)
    except AreaNotFound:
        return read
    if _corners_apart(area.corners, second.corners) < \
            settings.tone_apart * max(image_bgr.shape[:2]):
        return read
    return second if _band_judge(toned, area.corners, second.corners, settings,
                                 area.glare) else read


def _band_judge(image_bgr: np.ndarray, first: np.ndarray, second: np.ndarray,
                settings: AreaSettings, spots: tuple = ()) -> bool:
    """Whether the area `second` ((4, 2) corners in the uint8 BGR `image_bgr`'s pixels) is
    taken over `first`, by the bands between them: the band only `first` covers must be of
    a wall's kind (its median redness cue under `tone_band_red` x the arena's, the median
    where both areas, shrunk to `weak_level_inset`, agree) and the band only `second`
    covers, if any, redder than it. Pixels within `glare_like_reach` of a glare spot
    (`spots`, in working-image pixels) are left out (washed out: no colour)."""
    step = 2
    small = np.ascontiguousarray(image_bgr[::step, ::step])
    cue = cue_map(small, settings)
    qs = [order_corners(np.asarray(q, np.float64)) / step for q in (first, second)]

    def filled(q):
        m = np.zeros(small.shape[:2], np.uint8)
        cv2.fillPoly(m, [np.round(q).astype(np.int32)], 1)
        return m > 0

    seen = np.ones(small.shape[:2], bool)
    if spots:
        f = min(1.0, settings.mask_long_side / max(image_bgr.shape[:2])) * step
        yy, xx = np.mgrid[0:small.shape[0], 0:small.shape[1]].astype(np.float32)
        seen = ~near_glare_spots(xx * f, yy * f, spots, settings.glare_like_reach)
    m1, m2 = (filled(q) for q in qs)
    inner = filled(_shrink(qs[0], settings.weak_level_inset)) & \
        filled(_shrink(qs[1], settings.weak_level_inset)) & seen
    least = 0.002 * m1.sum()  # a band thinner than this is the borders' own wobble
    if inner.sum() < least:
        return False
    level = float(np.median(cue[inner]))
    if level <= 0:
        return False

    def redness(band):
        band &= seen
        return float(np.median(cue[band])) / level if band.sum() >= least else None

    if np.count_nonzero(m1 != m2) > settings.tone_band_most * m1.sum():
        return False  # not a band: the two differ by more than a wall's width
    added, dropped = redness(m2 & ~m1), redness(m1 & ~m2)
    if dropped is None or dropped >= settings.tone_band_red:
        return False
    return added is None or added > dropped


def _looks(image_bgr: np.ndarray, settings: AreaSettings) -> tuple:
    """`_find_area`'s looks at the uint8 BGR `image_bgr`: its working copy and scale
    (`_working_size`), its glare spots (`glare_spots`, else `merged_glare_spots`) and those
    under `glare_spots`' looser ring ceiling (with `glare_ring_on_area`; else the same)."""
    small, f = _working_size(image_bgr, settings)  # (once for every look)
    blobs = glare_blobs(small, settings) if settings.glare_core > 0 else None  # (once for
    #   the three: `glare_spot_lists`' both ceilings and `merged_glare_spots`)
    first, loose = glare_spot_lists(small, settings, blobs)
    strict = first or merged_glare_spots(small, settings, blobs)
    spots = loose if settings.glare_ring_on_area > 0 else strict
    return small, f, strict, spots


def _looked_for(image_bgr: np.ndarray, settings: AreaSettings, what: str,
                game: str | None, use_model: bool, looks: tuple | None = None) -> PlayArea:
    """`_find_area` (below). With `glare_ring_on_area`, where a glare spot's ring passes
    only that looser ceiling, the area is looked for both with such spots taken off and as
    before; the first is kept where the second is not found, or where the two lie
    `tone_apart` x the photo's long side or more apart and the first is the nearer to a
    square's image (`square_misfit`: a pale table's own spot taken off made the arena's
    corner run onto it, a lopsided quad); the second otherwise (and where the first is not
    found). `AreaNotFound` where neither is found. With `hull_last`, where neither is,
    the last look (`_find_area`'s `hull`, on the strict spots' photo). `looks`:
    `_looks(image_bgr, settings)`, made here where not given."""
    if looks is None:
        looks = _looks(image_bgr, settings)
    try:
        return _looked_twice(image_bgr, settings, what, game, use_model, looks)
    except AreaNotFound as missed:
        if not settings.hull_last or not use_model or game is None:
            raise
        try:
            return _find_area(image_bgr, settings, what, game, use_model, looks=looks,
                              hull=True)
        except AreaNotFound:
            raise missed from None  # (the looks' own reason: the hull adds none)


def _looked_twice(image_bgr: np.ndarray, settings: AreaSettings, what: str,
                  game: str | None, use_model: bool, looks: tuple) -> PlayArea:
    """`_looked_for`'s search with `looks` (`_find_area`'s), as it judges the two looks."""
    small, f, strict, spots = looks
    if len(spots) == len(strict):
        return _find_area(image_bgr, settings, what, game, use_model, looks=looks)
    try:
        loose = _find_area(image_bgr, settings, what, game, use_model, loose=True, looks=looks)
    except AreaNotFound:
        return _find_area(image_bgr, settings, what, game, use_model, looks=looks)
    try:
        plain = _find_area(image_bgr, settings, what, game, use_model, looks=looks)
    except AreaNotFound:
        return loose
    if _corners_apart(loose.corners, plain.corners) < \
            settings.tone_apart * max(image_bgr.shape[:2]):
        return plain
    shape = small.shape[:2]
    mis = [float(_misfit(order_corners(a.corners * f), shape, settings))
           for a in (loose, plain)]
    return loose if mis[0] < mis[1] else plain


def _find_area(image_bgr: np.ndarray, settings: AreaSettings, what: str, game: str | None,
               use_model: bool, loose: bool = False, *, looks: tuple,
               hull: bool = False) -> PlayArea:
    """Locate the play area in a working-size BGR photo; raise `AreaNotFound` if absent.

    First, on the reduced photo: glare spots taken off (`remove_glare`), a strong colour
    cast balanced away (`balance_cast`), and a hard shadow's shade lit up (`relight_shadow`,
    the network's map made again). Masks tried in turn: the play-area network's at each of
    `model_thresholds` (when `models/area.onnx` exists and `game` is given), under a glare
    spot then its mask repaired there (`glare_rival`: `glare_arena_mask`, and
    `_rival_glare` against the quad found), then the colour masks at each level. In each,
    the largest blobs are fitted with a quadrilateral; the first plausible one is snapped
    to the border's edges. With `square_max`, a quad must be a square's image under a
    phone's camera (`square_misfit`); where none is, the search runs once more without
    that test. With `tone_dev`, a lamp's per-channel tone curve read where the network is
    sure (`area_tone`) sends the photo to `_toned_or_plain` (looked for with and without
    the curve). The area returned carries the glare spots taken off (`PlayArea.glare`, in
    `image_bgr`'s pixels). `looks`: `find_area`'s (working copy, its scale, its glare
    spots, those under `glare_spots`' looser ring ceiling), the latter taken where `loose`.
    `hull`: after every look above finds nothing, the quad of the network's mask's convex
    hull (`_hull_quad`), else `AreaNotFound` at once (the balanced retry and the looks
    after it: `_looked_for`'s first search already made them on these looks)."""
    small, f = looks[:2]
    raw, spots = small, looks[3] if loose else looks[2]
    small = remove_glare(small, settings, spots)
    deglared = small
    balanced_first = False
    if settings.balance_cast > 0:
        cast = cast_balanced(small, settings.balance_cast)
        balanced_first, small = cast is not small, cast
    small = exposed(small, settings.expose_to, settings.expose_pct, settings.expose_max)
    model = None
    prob = None
    if use_model and game is not None:
        from vision.area_model import get_area_model

        model = get_area_model()
    if model is not None and game in model.games:
        prob = model.probability(small, game, (small.shape[1], small.shape[0]))
    if prob is not None and settings.tone_dev[1] > 0:
        # a lamp's tone curve, read where the network is sure (on the photo before its
        # cast is balanced): the cloth looked for with and without it
        exps, pivots = area_tone(deglared, prob, settings)
        if not np.all(exps == 1.0):
            return _toned_or_plain(image_bgr, exps, pivots, settings, what, game, use_model)
    edge = shadow_edge(small, settings, prob)
    if edge is not None:
        small = relight_shadow(small, edge)
        if prob is not None:
            prob = model.probability(small, game, (small.shape[1], small.shape[0]))
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)  # made once, read by every cue below
    measure = area_measure(lab, settings)  # likewise its colour measure
    why = "nothing of its colour"
    best = None
    cue = None  # the cue map, made once when first needed
    edges = dist = None  # the edge maps likewise
    from_model = False
    if prob is not None:
        # a tighter mask when the first one leaks; last, under a glare spot, the mask
        # repaired where the spot washed the arena out (its bite: no four sides)
        glare_last = (None,) if settings.glare_rival and spots else ()
        for th in settings.model_thresholds + glare_last:
            if th is None:
                mask = glare_arena_mask(raw, prob, glare_zone(small.shape, spots,
                                                              settings.glare_like_reach),
                                        measure, settings)
                if mask is None:
                    break
            else:
                mask = (prob > th).astype(np.uint8)
            best, why = _best_candidate(small, mask, settings, why, grow=False)
            if best is not None and \
                    colour_share(small, best, settings, lab, measure) < \
                    settings.min_colour_share:
                best, why = None, "the region found does not have the play area's colour"
            if best is not None:
                from_model = True
                break
        if best is not None:
            if settings.kind == "cloth" and settings.hem_inset > 0:
                lightness = cv2.GaussianBlur(
                    lab[..., 0].astype(np.float32), (0, 0), 0.7)
                best = snap_sides(order_corners(best), lightness, settings, settings.hem_passes,
                                  hem=True)
            else:
                cue = cue_map(small, settings, lab, measure)
                best = snap_sides(order_corners(best), cue, settings, settings.snap_passes_model)
                if settings.weak_share > 0:
                    zone = glare_zone(small.shape, spots, settings.glare_like_reach) \
                        if spots and settings.weak_like_tol > 0 else None
                    best, weakest = refit_weak_sides(best, cue, settings, lab, zone)
                    if settings.colour_rival:
                        best, weakest = _rival_colour(best, weakest, small, lab, cue, settings,
                                                      measure, zone)
                    if settings.enclosed_rival:
                        best = _rival_enclosed(best, weakest, small, lab, prob, cue, settings)
                    if settings.glare_rival and spots:
                        best = _rival_glare(best, raw, spots, small, prob, measure, settings)
                    if settings.like_refit:
                        best = _refit_on_likeness(best, lab, cue, settings, zone, small)
        if settings.edge_check:  # does the quad lie on the cloth's edges? else rebuild it
            edges, dist = edge_maps(small, settings, lab)
            cover = -1.0 if best is None else float(edge_cover(best[None], dist,
                                                               settings.edge_tol)[0])
            # a quad no camera sees a square as (a shadow's or a spot's edge): any rival wins
            odd = best is not None and not is_square(order_corners(best), small.shape[:2],
                                                     settings)
            rebuilt = None
            if cover < settings.edge_min_cover or odd:
                rebuilt, q_cover = edge_quad(prob, edges, dist, settings)
                if rebuilt is not None and (q_cover > cover + settings.edge_gain or odd):
                    best, from_model = order_corners(rebuilt), False  # mask was wrong: no filter
                    rebuilt, odd = None, False
            if best is not None and settings.contrast_min > 0:
                if cue is None:
                    cue = cue_map(small, settings, lab, measure)
                weakest = side_contrast(order_corners(best), cue, settings).min()
                if weakest < settings.contrast_min or odd:
                    if rebuilt is None and cover >= settings.edge_min_cover and not odd:
                        rebuilt, _ = edge_quad(prob, edges, dist, settings)
                    if rebuilt is not None:
                        rebuilt = order_corners(rebuilt)
                        rebuilt_weakest = side_contrast(rebuilt, cue, settings).min()
                        if rebuilt_weakest > weakest + settings.contrast_gain or odd:
                            best, from_model = rebuilt, False
                            weakest, odd = rebuilt_weakest, False
                    if settings.enclosed and (weakest < settings.contrast_min or odd):
                        rival = _enclosed_edge_quad(prob, edges, dist, settings, inside=True)
                        if rival is not None and (odd or side_contrast(rival, cue, settings)
                                                  .min() > weakest + settings.contrast_gain):
                            best, from_model = rival, False  # already in order_corners' order
                            odd = False
    if best is None:
        if cue is None:
            cue = cue_map(small, settings, lab, measure)
        best, why = colour_quad(small, lab, cue, settings, why, measure)
    if best is None and hull:
        # the last look; what follows below was tried, in vain, by the looks before it
        # (`_looked_for`: the same photo, looks and settings) and is not tried again
        if prob is not None:
            best = _hull_quad(small, prob, lab, cue, measure, spots, settings)
        if best is None:
            raise AreaNotFound(f"no {what} found in the photo ({why})")
        from_model = True
    if best is None:
        # under a strong colour cast: once more, balanced (unless it was already, above)
        if settings.retry_balanced > 0 and not balanced_first:
            balanced = apply_gains(image_bgr, light_gains(image_bgr, settings.retry_balanced))
            try:
                # (the hull's last look comes after this retry, on the photo as it is)
                return _looked_for(balanced, replace(settings, retry_balanced=0.0,
                                                    enclosed=False, hull_last=False),
                                   what, game, use_model)
            except AreaNotFound:
                pass
        if settings.enclosed and prob is not None:  # the edges around a partial mask
            if edges is None:
                edges, dist = edge_maps(small, settings, lab)
            best = _enclosed_edge_quad(prob, edges, dist, settings)
            if best is None:
                why = "no four straight edges around it"
    if best is None and settings.square_max > 0 and settings.retry_balanced > 0:
        # no square's outline anywhere: the best quad of any shape, as before the test (the
        # nested balanced retry, retry_balanced 0, leaves this to its caller)
        return _looked_for(image_bgr, replace(settings, square_max=0.0), what, game, use_model)
    if best is None:
        raise AreaNotFound(f"no {what} found in the photo ({why})")
    best = best / f
    area = area_from_corners(best, settings)
    if prob is not None and from_model:
        area = replace(area, prob=prob, prob_scale=f)
    if spots:
        area = replace(area, glare=tuple(((c[0] / f, c[1] / f), (a[0] / f, a[1] / f), ang)
                                         for c, a, ang in spots))
    return area
