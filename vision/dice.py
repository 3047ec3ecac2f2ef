"""Read ordinary six-sided dice anywhere in a photo by geometry, not by a trained look.

Pipeline (all on a working copy whose long side is `DiceSettings.work_long_side`):

1. Pip candidates: small, round, high-contrast blobs. Dark pips are looked for in the
   max(B, G, R) channel (black pips stand out on white and on every coloured face) and in the
   min(B, G, R) channel (a red one-pip on a white die); light pips in min(B, G, R) (white pips
   on red, blue, green, yellow or black faces). Adaptive mean thresholds at a few window sizes,
   connected components, then shape (area, fill, axis ratio) and contrast against a ring
   around the blob (the ring must be uniform: the face).
2. Grouping: two candidates belong to one face when they have the same polarity, similar size,
   shape and surrounding face colour, are close in units of pip size, and the straight line
   between them stays on face colour (a seam between touching dice, a face edge or a gap breaks
   the link).
3. Layout: each group is matched to the canonical 1-6 layout with an affine fit over all pip
   assignments (2 and 3 diagonal, 4 square, 5 square + centre, 6 two rows of three); the
   residual relative to the layout's spread, the face size relative to the pip size, and (for
   4-6) the agreement of the pips' ellipse shape with the fitted foreshortening decide it.
   Groups that fail are split along their weakest links or lose one outlier (glare).
4. Face check: rays from the face centre must meet the face's border (an edge against the
   table, a seam or a side face) at about the distance the layout predicts; a lone blob (a
   coin, a dot, a letter) on an open surface finds no square border.
5. Top face: a die seen at a slant shows side faces with pips too. Among faces that share an
   edge, a face lying below another die's top face (towards the camera), or much smaller, is
   a side face; one lying below side faces only is the top face of a die in front.

Images are (H, W, 3) uint8 BGR. Coordinates returned are in the caller's image pixels.
"""

from __future__ import annotations

import itertools
import math
import re
import time
from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np

from vision.errors import busy_warning
from vision.shields import _hue_diff


@dataclass(frozen=True)
class DiceSettings:
    """Thresholds of the dice reader; sizes are in working-image pixels unless said."""

    work_long_side: int = 1024  # photos are resized so the long side is this
    # Pip candidates: (polarity, channel, window, downscale) passes of the adaptive threshold.
    blur_sigma: float = 0.8  # denoise before thresholding
    # (window, downscale) of the adaptive-threshold passes: small pips at full working size,
    # medium and large ones on a half-size copy (4x cheaper).
    passes: tuple[tuple[int, int], ...] = ((13, 1), (15, 2), (35, 2))
    offset: int = 7  # a pip is at least this much darker/lighter than its window's mean
    # (window, downscale) of the half-depth passes (touching blurred pips parted).
    deep_passes: tuple[tuple[int, int], ...] = ((13, 1), (15, 2))
    deep_ring: float = 1.25  # their blobs are this much narrower than the pips
    deep_max_elong: float = 4.0  # a plain blob this elongated at most is parted (3 pips)
    min_area: int = 5
    max_area: int = 3000
    max_axis_ratio: float = 3.2  # pip ellipse long / short axis (strong foreshortening)
    min_solidity: float = 0.8  # blob area / convex hull area (pixel-boundary corrected)
    min_ellipse_fill: float = 0.72  # blob area / area of its moment ellipse
    max_ellipse_fill: float = 1.2
    ring_scale: float = 1.6  # ring around a pip where the face level is measured, in radii
    min_contrast: float = 28.0  # face level - pip level, 0..255
    one_min_contrast: float = 45.0  # a lone pip (one-face) needs more
    max_ring_spread: float = 0.45  # IQR of the ring / contrast (the ring must be uniform)
    # Grouping.
    max_size_ratio: float = 1.45  # diameter ratio of two pips of one face
    max_link: float = 6.5  # centre distance / mean pip diameter
    max_colour_diff: float = 40.0  # mean |BGR| difference of the rings of two pips
    pip_hue: tuple[float, float, float] | None = (0.35, 45.0, 80.0)  # two pips both
    # saturated at least this (at their centres, their brightest channel at least the
    # third: a black pip's hue is noise) whose hues differ by more degrees are not linked
    # (session 16: Hop la bille's cards of coloured dots read as dice; a die's pips are
    # one paint)
    los_dev: float = 0.25  # a line sample this far (x contrast, clipped) from the face blocks
    los_max_px: float = 1.5  # blocked when more pixels than this deviate
    los_glare_share: float = 0.6  # ... covering at most this share of the line between the
    #   pips' rims (a spot smaller than their spacing: most blocked pairs are left so, cheaply)
    los_glare_off: float | None = 0.45  # a line blocked only by a highlight (every deviating
    #   sample brighter than the face in each channel and no more saturated) passes where the
    #   samples this x the line's length to either side of it are face colour: a specular
    #   spot lies mid-face, between a 2's pips; the table between two dice, a seam or a face
    #   edge run on across the line (None: off)
    max_shape_diff: float = 0.5  # normalised ellipse-shape difference of two pips of a face
    min_shape_d: float = 6.0  # ... tested on pips at least this wide (px)
    max_contrast_ratio: float = 1.6  # pips of one face are painted alike
    max_split_group: int = 30  # larger linked groups are clutter (text), not split
    max_subset_group: int = 12  # larger failing groups are clutter, not searched
    subset_neighbours: int = 7  # subsets are drawn from this many nearest pips
    max_subsets: int = 120  # per group, face tests of subsets
    max_subsets_per_photo: int = 200  # and per photo (clutter must not cost seconds)
    max_pip_candidates: int = 1500  # the strongest pip candidates (all passes, before
    #   duplicates merge) read at most: pure sensor noise, salt or a busy texture gives
    #   2100-5100 (merging and linking them cost 3-8 s, growing as their square); the 230
    #   committed and `datasets/dice` photos at most 924, their copies with noise of s.d. 20
    #   1061 (session 21, H2, docs/vision.md "Noisy and busy photos")
    leftover_pips: int = 3  # a group's pips no face took, at most this many, read as a face
    split_subsets: bool = True  # a split group whose faces left pips unread is searched whole
    split_subset_min: int = 4  # ... for faces of this many pips (`_split_rest`)
    split_subset_conf: float = 0.6  # ... and this confidence (a false 4 at 0.43 on a stack
    #   of cards, troetofanten-e1-s1-0013; the slanted tops gained: 0.65-0.87)
    grow_pip_size: float | None = 2.0  # a pip merged with glare, up to this x the others'
    #   diameter (any shape), may complete a linked group of 3 or 5 (`_grown_faces`) into a
    #   4 or 6: faces with no centre pip (glare alone lies mid-face: a 4 with it is a 5)
    grow_corner: tuple[int, ...] = (2, 4)  # linked groups of these sizes may grow too, into
    #   a 3 or 5, where the grown pip is a corner pip of the face read (the group holds its
    #   centre pip, so a read 2 or 4 never grows: session 24 H2, dice-023's 5)
    grow_corner_at: float = 0.25  # a corner pip: over this from the face's centre along
    #   either of its axes (face units: centre pip 0, corner pips +-0.5, border +-1)
    grow_mirror: float = 0.3  # ... where it lies opposite a group pip through another
    #   (the centre), within this x their spacing (dice-023's 0.15, dice-028's 0.04)
    grow_drop_one: bool = True  # a group of 3-5 none of whose pips a face took may also
    #   grow with one of its pips left out (a show-through pip linked in: dice-023's 5)
    grow_contrast_ratio: float = 2.0  # the grown pip's contrast / the group's median, at
    #   most this either way (a pip in a shade or dimmed by glare; links ask 1.6)
    # A lone pip above a read face (`_ones_above`) is read as a 1 with these settings (no
    # square and ray-ratio test, a looser centring); None: not looked for.
    above_one: tuple[tuple[str, float], ...] | None = (
        ("one_max_asym", 0.3), ("one_max_square_res", 9.0), ("one_square_vs_circle", 9.0),
        ("one_max_ray_ratio", 9.0), ("min_face_rays_one", 0.7))
    above_one_reach: tuple[float, float] = (0.0, 2.0)  # beyond the face's upper edge, x its
    above_one_lateral: float = 1.0  # half width; at most this far aside (x its half width)
    above_one_pip: tuple[float, float] = (0.7, 2.2)  # its diameter / the face's pips'
    above_one_alone: float = 0.9  # no like pip within this x its border distance
    # A lone pip sized by a die beside it (`_ones_by_kin`): the dice of one photo are of one
    # size and lie on one table, so a read top face (2+ pips) of the same material, pips
    # and polarity near the pip gives its face's square (size and foreshortening); the pip
    # is then tested as a die of known size (`_known_one`). None: not looked for.
    kin_one_reach: float | None = 4.0  # at most this x the kin face's side away
    kin_one_pip: tuple[float, float] = (0.7, 2.2)  # its diameter / the kin face's pips'
    kin_one_light: tuple[float, float] = (0.6, 1.6)  # its face's brightness / the kin's
    kin_one_rays: float = 0.7  # share of border rays meeting the known square
    kin_one_apart: float = 1.8  # a touching die's top face lies 2 half sides off a face
    kin_one_any_fit: bool = True  # the nearest kin face whose foreshortening fits the pip
    side_below_side: bool = True  # a face below a side face (surface above it) with table
    # between them is not its side
    table_gap_px: float = 3.0  # at least this gap between the two faces' borders
    # A 2 or 3 whose diagonal runs on, a like pip one or half a step beyond an end pip or
    # half-way between two (within this x the step, half of it for the half steps), is a
    # row of dots (text, a dotted line), not a die: one step beyond a 3's corner pip (0.35
    # side) is the face's rounded corner, and a die touching it puts its nearest pip
    # farther out; a 2's step is its pip spacing (0.71 side), and one step beyond its
    # corner pip a touching die of the set has a pip (corner to corner, or edge to edge
    # shifted half a side), so there a pip of a read face of 3+ pips does not count.
    row_values: tuple[int, ...] = (2, 3)
    row_pip_tol: float | None = 0.25
    row_contrast: float = 1.4  # the dot's contrast within this ratio of the face's pips'
    row_colour_diff: float = 20.0  # and its ring colour (mean |BGR| difference)
    # A lone pip's face ends at its own edge; where this share of its border rays or more
    # end on the rim of a dot like it (its polarity, within `dots_round_size` x its
    # diameter either way, the ray's end within `dots_round_gap` x its diameter of the
    # dot's rim), that "border" is a ring of like dots round an empty patch: print (a board
    # of numbered discs, a field of flowers or balls), not a die (`_dots_round`; session
    # 28). A touching die's pips lie past the seam between the dice, which stops the ray
    # first. Fresh 4418's board of discs: 6-14 of 16 rays on 22 of its 26 false 1s; the
    # right 1s of dev 4900-4924 and `datasets/dice`: 3 at most. None: not asked.
    dots_round: float | None = 0.3
    dots_round_size: float = 1.6
    dots_round_gap: float = 0.25
    # A die's pips are one paint: seen from its ring (the face round it), each pip's middle
    # (the median of a grid of samples within `paint_spot` x its diameter of its centre, the
    # blurred BGR) departs in one colour direction; blur and shade change how far (a small
    # blurred pip is shallower), not which way. Where two pips' directions differ by more
    # than `paint_turn` degrees (a 2) or `paint_turn_many` (4-6 pips: more light across
    # more pips), they are printed dots of a pattern (a leaf and a flower's heart, a star
    # and a disc; `_paint_unlike`, session 29). Right dice of `--count 100 --seed 5200` and
    # `datasets/dice`: 2s 6 degrees at most, 4-6s 19; false 2s of the printed tables of
    # fresh 3530-3534: 6 of 15 over 9, false 4s 35 and 52. A 3 is not asked (right 3s
    # reach 9, most false 3s there are under it). Pips departing less than `paint_min`
    # (BGR length) give no direction. None: not asked.
    paint_turn: float | None = 9.0
    paint_turn_many: float | None = 30.0
    paint_min: float = 16.0
    paint_spot: float = 0.2
    # Layout.
    max_residual: float = 0.16  # rms affine residual / rms spread of the pips
    side_per_pip: tuple[float, float] = (2.6, 11.0)  # face side / pip diameter
    diag_side_per_pip: float = 3.5  # 2 and 3: corner pips 2.5 diameters apart (not a colon;
    # blurred or upscaled small pips measure wide)
    # A 3 of big pips (or of pips measured wide: blur, a translucent die's halo) down to
    # this (its adjacent pips 1.13 diameters apart, not touching; a row of touching blobs
    # measured 3.07 on datasets/dice dice-026, the 3s gained 3.37-3.45), where no pip like
    # its own lies round it out to `diag_big_clear` x the corner pips' distance from its
    # centre (the other corners of a 4 or 5, the middle pips of a 6's columns; a touching
    # die's nearest pip lies 2.1 x out, 1.5 x along x or y), not counting a candidate within
    # 0.8 diameters of one of its pips as a fragment (big pips lie 1.13-1.24 apart). For 3s
    # `datasets/dice` and fresh 2650-2653 gained 3 right, no wrong, no false. Not for 2s:
    # there `datasets/dice` and fresh 2651-2653 gained 4 right 2s but 3 false (colons, a
    # side face's pips) and a wrong one (two pips of a 4; session 20, H6).
    diag_big_pips: tuple[int, ...] = (3,)  # the values this is for
    diag_side_per_pip_big: float = 3.2
    diag_big_clear: tuple[float, float] = (1.3, 0.8)  # (out to, fragment within)
    one_side_per_pip: tuple[float, float] = (2.3, 9.0)  # the one-pip is often bigger
    max_anisotropy: float = 4.0  # face long / short extent (slanted view)
    max_ellipse_mismatch: float = 0.55  # pip shape vs layout foreshortening (4-6 pips)
    # Face check.
    rays: int = 16
    ray_edge: float = 0.25  # a ray stops where a BGR channel leaves the face colour by this
    ray_edge_px: tuple[float, float] = (16.0, 35.0)  # x pip contrast, clipped to this range
    ray_edge_dark: float | None = 0.6  # a dark face's rays (brightest channel at most
    # `side_run_dark`) stop at this x that channel where that is lower than the contrast
    # rule (floor `ray_edge_px[0]`): a black die's top and side faces differ by shading
    # only, far less than its pips' contrast (session 31); None, or `side_run_dark` None:
    # the contrast rule for every face (`_edge_threshold`)
    ray_step: float = 0.06  # ... or where it steps by this x contrast over 2 px
    ray_step_px: tuple[float, float] = (11.0, 16.0)  # clipped to this range
    face_scales: tuple[float, ...] = (0.9, 1.0, 1.15, 1.3)  # face size / pip-layout size
    glare_run: float = 0.15  # brighter runs shorter than this x ray length are glare
    # A thin mark (up to this x pip diameter wide) after which a ray is back on face colour
    # does not end it well inside a 4-6 face (under `ray_range[0]` of the smallest face
    # scale): the table showing through a translucent die (a board's printed circle,
    # datasets/dice dice-027), a scratch. At the border (a seam between touching dice) it
    # still ends it. For 2-3 too: +2 right but a wrong 1 (`_ones_by_kin` sized by a 3 it
    # gained) and a false 3 (a side face) on dice-009; with 2s also 2 wrong 2s on fresh 2651
    # (session 20, H6). Not for the board's dice (`die_side_px`): not measured there.
    thin_mark: float | None = 0.4
    ray_range: tuple[float, float] = (0.72, 1.32)  # border distance / expected distance
    min_face_rays: tuple[float, float] = (0.8, 0.3)  # share meeting the border in range, for
    # 2-3 pips (a weak layout) and 4-6 pips (a strong one)
    max_early_rays: float = 0.2  # share of rays stopped inside the face by something
    empty_spot_share: float = 0.5  # a spot this much of the way to the pip level is a pip
    extra_pip_inside: float = 0.85  # a like pip this far in (face coords, edge 1) is doubted
    open_ray_weight: float = 0.5  # a ray meeting no border counts this much as meeting it
    open_below_weight: float | None = 0.9  # ... and this much where it runs down the image
    # ... also for a part of 2-3 pips of a split group with the rest of the group below it
    # (`_part_above_rest`: its side faces' pips; session 23, H1): down the image within
    # acos(0.5), 60 degrees, of straight down, none nearer than 0.6 x the part's span.
    part_below_cos: float | None = 0.5
    part_below_clear: float = 0.6
    open_below_dir: float = 0.2  # (its direction's downward component over this), where
    # the die's own side faces lie in a slanted view (dice of unknown size only)
    max_interior_dev: float = 0.08  # share of the face (outside pips) not of the face colour
    glare_weight: float = 0.3  # brighter-than-face samples count this much (glare)
    # A see-through die (session 26): a 4-6 face of light pips fitting its layout within
    # `see_through_residual`, with no pip like its own right above it (`_pip_above`: a top
    # face's 1 whose side face this may be; from `see_through_above` x its upward half
    # extent), counts interior samples darker than the face and not of its hue (the table
    # behind it; the die's own hue darker is its shade) `see_through_darker`, not 1, in
    # `_interior_dev`. Fresh 4410's 4 (read as a 2) and 4425's 5 (missed). None: off.
    see_through_darker: float | None = 0.25
    see_through_residual: float = 0.03
    see_through_above: float = 0.75
    min_face_rays_one: float = 0.85  # the one-pip has no layout to vouch for it
    one_max_ray_ratio: float = 2.4  # longest / shortest border ray of a one-pip face
    one_max_square_res: float = 0.07  # rms residual of the one-pip border's square fit
    one_square_vs_circle: float = 0.75  # ... which must beat a circle fit by this factor
    one_ring_radii: tuple[float, ...] = (0.9, 1.2)  # x pip diameter: the rings round a
    # lone pip where the face colour is asked (any one passing): a glare spot hugging the
    # pip or a pip measured small fails the nearer ring only (session 16)
    one_ring_glare: int | None = 3  # up to this many ring samples brighter than the face, in
    # one run, are a glare spot beside the pip (a glossy die's highlight), not the table
    # (session 26); the border rays still decide. None: every sample counts
    one_ring_glare_px: float = 6.0  # ... for pips this wide or more (round a smaller one the
    # ring lies a few px off: the bright paper between a glyph's strokes, fresh e104414)
    one_like_inside: float | None = 0.95  # a lone pip with a pip like it (polarity, size,
    # contrast: `_extra_pip_inside`) within this of its square's centre (face units, the
    # border at 1) is no 1: a face holds one pip only (fresh 4063: a red 3 split by
    # `_solve`, its centre read as a 1, its corners at 0.69). A touching die's nearest pip
    # lies 1.5 out; 1.15 lost a right red 1 on `datasets/dice` (dice-015). None: not asked
    one_drop_rays: int = 2  # border rays left out of the square fit (side face, seam)
    one_max_asym: float = 0.15  # median |log(ray / opposite ray)|: the pip sits in the middle
    # A lone pip whose rays run on into its die's own side faces (the die's colour,
    # towards the image centre in a photo from above) is tested again with those rays
    # mirrored (`_side_mirrored`; session 21): the rays within this cosine of the
    # direction to the image centre that are `one_side_min` to `one_side_long` x their
    # opposite ray or meet no border, `one_side_rays` or more in one run, take its length;
    # the face so found must then be of the face colour inside and its other eight pip
    # spots empty (text round a dot passes the mirrored rays). None: not tried. Not for
    # dice of known size (`die_side_px`: the board's, `_side_rays_one`).
    one_side_arc: float | None = -0.2
    one_side_min: float = 1.15  # (a ray a pixel longer than its opposite is not running on)
    one_side_long: float = 3.0  # (from above a side face adds about 2 r / f x the half side)
    one_side_mid: float = 0.1  # towards the image centre only this x the long side off it
    one_side_like: tuple[float, float] = (0.75, 1.33)  # a mirrored ray must not end on a
    one_side_like_gap: float = 0.5  # dot of the pip's channel and about its size (this x
    # its diameter), within this x the dot's diameter of its rim: a card's balls stop the
    # rays, not a side face's edge (Hop la bille, hop-la-bille-e1-s1-0005 and -0024, ratios
    # 1.2-1.3, ends 2.5 px off a ball's rim; a side face's pips lie ~1 diameter in)
    one_side_rays: int = 3  # at least this many rays mirrored, in one run (a side face
    # spans 90 degrees seen from the face's centre: 3-5 of 16 rays)
    # A face of 2-3 pips whose border rays fail only because a run of them goes on into
    # the die's own side faces (black dice: top and sides one colour, the edge between them
    # shading only) is tested again with that run mirrored (`_side_run_mirrored`, session
    # 29): a die's top face is centrally symmetric, so the border its opposite rays meet
    # in range vouches for that side too. Runs of `side_run_rays` to `side_run_max` rays
    # that meet no border or go on `one_side_min` x or more past their opposite ray, which
    # must itself be in range. None: not tried; not for dice of known size.
    side_run_pips: tuple[int, int] | None = (2, 3)
    side_run_rays: int = 3
    side_run_max: int = 8  # (at most half the circle: the other half must be measured)
    side_run_along: float = 0.7  # the run's mean direction at least this far (cosine) along
    # the pips' squash axis, pointing down: a top face's side faces follow below it along
    # that axis; a side face's own run goes on up into its top (fresh 5100: two false 2s
    # on a 4's side faces without it; session 29 asked 0.5 down the image's vertical)
    side_run_dark: float | None = 90.0  # only for a dark die (its face's brightest channel
    # at most this): its top and side faces differ by shading only (fresh 5106, 5121: a
    # green, a low-contrast blue and a red side face's 2 read without it); None: any
    side_run_squash: tuple[float, float] = (1.15, 2.0)  # and only for a face whose pips
    # (`side_run_pip_px` or more) look squashed this much (`_squash_axis`): a top face seen
    # slanted (32-60 degrees up); from above the roll is anything and a side face a sliver
    # (fresh 5100, 71 degrees: a false 2 on a side face running down)
    side_run_tilt: float = 55.0  # the squash (short) axis at most this many degrees off the
    # image's vertical: a die turned on the table or seen off the photo's centre line
    # squashes its top along its own axis (session 29: 30)
    side_run_pip_px: float = 6.0  # pips smaller than this (px) do not show their squash
    # A lone pip whose 16 border rays fit a square no better than a circle (a die 26-44 px
    # wide: the rays' whole pixels make its corners as noisy as a circle's) gets a second
    # look at the face as a region (`_region_square`; session 18): the pixels of face colour
    # joined to the pip, holes filled, closed (not running out of `one_side_per_pip`'s
    # reach), whitened by their own second moments (a foreshortened square is a square
    # again, an ellipse a circle), their whole contour fitted by a (rounded) square and a
    # circle. None: no second look.
    one_region: tuple[float, float] | None = (0.07, 0.75)  # square residual at most, and at
    # most this x the circle's
    one_region_solid: float = 0.9  # region area / its convex hull's (a die's face is convex)
    one_region_off: float = 0.3  # the pip's offset from the region's centroid, whitened
    # (the square's half side is sqrt(3) there): the pip sits in the middle
    one_region_side: tuple[float, float] = (1.8, 6.0)  # sqrt(region area) / pip diameter
    one_region_hole: float = 0.2  # a hole of the pip's polarity this x its area: a pip
    one_region_dark_hole: float = 0.5  # ... a dark hole where the pip is light: this x that
    #   (glare on a 2 between its pips)
    one_region_least_px: int = 20  # a region of fewer pixels: none (too few for its shape)
    one_region_pip_shape: float = 0.45  # `_tensor_off` of the region's and the pip's
    # shapes at most (a pip is a circle on the face, squashed as the face is): the 1s
    # read this way on datasets/dice and fresh 2350-2353 measured 0.03-0.44, the round
    # emblem on the oblong back of a Hop la bille card 0.47-0.74 (but one, 0.06)
    one_region_pip_shape_px: float = 6.0  # ... for pips this wide or more (a smaller pip's
    #   pixels tell no shape)
    die_pip_holds: int = 2  # a "pip" with this many smaller candidates of the other
    die_pip_size: float = 0.6  # polarity (at most this x its diameter) inside is no pip
    # Top face versus side faces.
    adjacent: float = 1.35  # centre distance / (sum of the two faces' border distances)
    apart_by_table: bool = True  # two faces of 2+ pips with table between their borders
    # (`_table_between`) are two dice: a die's top and side face share an edge (not asked
    # of a 1: held-out 4851's two false 1s on numbered discs then both stood)
    side_shape_ratio: float = 1.3  # faces more alike in foreshortening are two dice ...
    touching_area_ratio: float = 1.6  # ... if also alike in size
    alike_tensor_off: float = 0.3  # ... and in the shape of their squares, turn aside
    # (`_tensor_off` of lin lin^T: two touching dice's top faces lie in one plane, so the
    # same foreshortening along the same direction; a die's top and side face do not;
    # not asked where the face with fewer pips has a guessed square, `Face.shape_measured`:
    # a 2 or 3, whose diagonal fixes no shape, or a 1 whose pip is too small to unsquash) ...
    lit_apart: tuple[float, float] | None = (1.3, 2.5)  # ... but one chroma and a
    # brightness ratio in this range (`_lit_apart`): one die's top and side face
    alike_chroma: float = 0.08  # ... or unlike in colour (`_chroma`, max over B, G, R): one
    # die's faces are one material, shaded differently but of one chroma
    unlike_chroma: float | None = 0.15  # adjacent faces this far apart in chroma, their
    # hues not alike (`die_hue`), are two dice whatever their foreshortening and size ratio
    # (under `side_area_ratio` still a side): one die is one material. Fresh 2900-2959: the
    # three right faces so dropped as side faces were 0.19-0.25 apart (session 21, H8)
    side_area_ratio: float = 0.5  # a smaller adjacent face than this is a side face ...
    small_top_above: float = 0.5  # ... unless it lies this much above it (cos, the vertical)
    square_seen_aniso: float = 1.1  # in a slanted photo where no face looks this square,
    same_width: float = 1.5  # and as wide as the larger face (at most this ratio either way)
    low_top_squash: float | None = 1.5  # in a slanted photo a smaller face lying above a
    # larger one (`small_top_above`, `same_width`) squashed this much more than it along
    # the vertical (its `_aniso` at most `tilt_max_aniso`) is the die's top seen from low,
    # the larger its side face below, even where some face looks square (`_top_seen_low`)
    side_edge_ratio: float | None = 2.5  # a much smaller face is a side face only where
    # the two are as wide (at most this ratio) across the line of their centres: a side
    # face shares an edge with its top (a huge false 1 made fresh 4828's 2 and 6 sides)
    small_top_over_side: float | None = 0.85  # in a slanted photo a smaller face of 1-3
    # pips lying this straight above (cos, the vertical) a larger one that has die surface
    # right above it (`_surface_side`: a side face by its own look) is the top, seen from
    # any height: the face above a die's side face is its top, and a 1's, 2's or 3's area
    # is a guess (rays cut short by its side faces, a diagonal's square), so "much smaller"
    # says little (session 27, dice-acc: fresh 4761, 4773, 4779, 4785; not for 4-6 pips,
    # whose area is measured: fresh 4751, 4764, 4803 read a 6's 4 pips so, wrong 4s)
    side_toward: float = 0.25  # ... and so is one lying this much towards the camera's nadir
    slanted_aniso: float = 1.3  # median top-face foreshortening of a slanted photo
    tilt_aniso: float = 1.2  # ... above this the camera's tilt is taken from it (nadir
    # f tan t below the image centre); at most this, the nadir is the image centre
    focal_long: float = 0.8  # a phone's or webcam's focal length / the image's long side
    under_camera: float = 0.1  # within this x the long side of the nadir: under the camera
    both_square_aniso: float = 1.3  # two adjacent 4-6 pip faces both squashed less than this
    # are two dice (a top and a side face at right angles: at best both 1.41)
    side_check_aniso: float = 1.25  # a face this squashed (near vertically) in any photo ...
    side_check_tilt_deg: float = 35.0  # ... gets the side-face test (surface above it)
    side_check_measured: bool = True  # ... from above only where its shape is measured (a
    # 2's or 3's square is a guess, often narrower than the face: the test then samples its
    # own face "above" it; session 27, dice-acc: fresh 4795's red 2 at 82 degrees)
    tilt_max_aniso: float = 3.0  # a top face squashed more than this is doubted (cocked) ...
    tilt_vs_others: float = 1.8  # ... and one squashed this much more than the other dice
    tilt_axis_aniso: float = 1.25  # ... or along another direction, both at least this much
    above_chroma: float = 0.035  # die colour (normalised BGR) right above a side face ...
    above_share: float = 0.7  # ... on this share of samples there
    # ... or, for a saturated die, its hue within this many degrees: (the die colour's
    # saturation at least, the sample's at least, degrees); a white die under tungsten light
    # (BGR 150, 190, 230: saturation 0.35) has the hue of a wooden table
    die_hue: tuple[float, float, float] | None = (0.5, 0.3, 10.0)
    beside_share: float = 0.4  # ... while left and right of it less of the table matches
    # A side face's top lies up and aside (the die turned): die colour that way, the table
    # right below it (a top face in a slanted photo has its own side faces below it).
    aside_turns_deg: tuple[float, ...] | None = (-50.0, -25.0, 25.0, 50.0)
    aside_from_above: bool = True  # ... asked in photos from above too (up: away from the
    #   image centre, the nadir there only roughly: dice-023's translucent side 4 at 74
    #   degrees has its top 25 degrees aside of it; no die changed on fresh 3700-3740 nor
    #   on `datasets/dice` without `grow_corner`; session 24 H2)
    aside_other: float | None = 0.75  # ... not within this x its side of another read face
    # foreshortened alike (within `side_shape_ratio`: the top of a die touching it there)
    # Two faces alike, one right below the other in a slanted photo, are a die's top and
    # its side face where the table lies right below the lower one (`_on_table`): a top
    # face seen slanted has its own side face below it (session 16; the alike test cannot
    # tell a 2 or 3's guessed square, nor a shaded side face's chroma).
    side_on_table: float | None = 0.7  # (cos of the angle between the centres' line and
    # the vertical at least: two dice side by side, one edge of a low side face showing
    # below one, are not asked; dice-015)
    # The table's plane (session 17, H8): the pips of every top face are circles on the
    # table, so they all look squashed alike (one foreshortening along one direction); a
    # face whose pips are squashed unlike that is not flat on the table: a side face whose
    # top went unread (or a cocked die). The plane: the trace-normalised mean pip
    # covariance (`_tensor_off`) shared, within `plane_alike`, by most of the measured 4-6
    # pip faces (at least 2); a reported face whose pips lie over `off_plane` from it is
    # dropped with a warning. Fresh dice sets 2150-2153 (`dice_eval`): 0.6 took 12 wrong or
    # false dice and 2 right ones; 0.6 is about a circle squashed 1.55 x more than the
    # table's (a surface turned some 50 degrees from it; a die's side is turned 90).
    plane_alike: float = 0.3
    off_plane: float | None = 0.6
    # The table's plane under perspective (session 23, H1): a slanted camera sees the far
    # (upper) part of the table more squashed than the near part (a circle on the table at
    # a ray alpha off the axis, the camera tilted t from straight down: cos(t + alpha) /
    # cos(alpha) along the vertical; at 50 degrees and a phone's field of view, the top
    # faces' pips from 1.1 at the bottom to 1.9 at the top of one photo). The plane is the
    # camera tilt (0 to `plane_tilt_max`, 1-degree steps) and roll (+-`plane_roll_max`,
    # 5-degree steps; phones are held about upright) that most measured 4-6 pip faces fit
    # within `plane_alike` (f: `focal_long`), each face compared with the shape it
    # predicts at that face; where no such camera fits more faces than one shape for all
    # does or fits under `plane_camera_min`, that one shape (session 17's plane): some
    # tilt fits any two faces, a die cocked on its edge far up and a top near by among
    # them (`test_tilted_die_is_doubted_in_warnings`). Fresh 3300-3359 (`dice_eval`): of
    # the 20 faces one shape dropped, 8 were right tops (3350's four, 3341's, 3348's,
    # 3353's, 3315's); with the camera 7 of them are read, 2 wrong dice more are dropped
    # and nothing is lost (240 / 15 right / wrong of 338, from 233 / 17). None: one shape.
    plane_tilt_max: float | None = 70.0
    plane_roll_max: float = 30.0
    plane_camera_min: int = 3
    # A face rounder than the camera's plane there is no top (session 23, H6): a circle on
    # the table at a spot is squashed as the camera's plane predicts there; a face whose
    # pips look `side_rounder` x rounder than that (its long over short axis) and that has
    # die-coloured surface right above it along the camera's vertical at that spot (away
    # from the camera's nadir: the die's top face) is a die's front side face (fresh
    # 3400's photo 3449: a turned white die's side 4 at 56 degrees, 1.17 against the
    # plane's 1.49, read as a false 4 once the camera's plane kept it). None: not asked.
    side_rounder: float | None = 1.2
    side_rounder_sd: float = 1.5  # ... asked only where the plane's squash leaves the pips'
    # short axis this sd (working px) at least: smaller pips are rounded by the pixels and
    # blur (fresh 3528: a far white 3 at 41 degrees, its pips' long sd 1.9 px, the plane's
    # squash 2.9 there, measured 1.7: a right top, kept)
    # Reporting.
    warn_confidence: float = 0.6
    min_confidence: float = 0.4  # weaker faces are not reported
    # A die of known size (dice beside a Mauerhuepfer board: 16 mm at the board's scale):
    # its side in the image (px of the image passed in), or None. Faces are then sized
    # against it instead of against their own pips (a small die enlarged from a photo has
    # soft pips that measure wide).
    die_side_px: float | None = None
    known_side: tuple[float, float] = (0.6, 1.2)  # layout side / die side (the layout's
    # square through the pips is about 0.9 of the die; foreshortening, perspective)
    known_half_one: tuple[float, float] = (0.28, 0.7)  # one-pip border distance / die side
    up_dir: tuple[float, float] | None = None  # unit image direction of the vertical (up)
    # at the die, when a camera model gives it (the Mauerhuepfer board's): side faces lie
    # below a top face along it, so a face with die colour above it along it is a side face
    known_max_pip: float = 0.42  # pip diameter / die side at most
    face_affine: tuple[float, float, float, float] | None = None  # the table plane's local
    # affine map at the die (a 2x2, row-major: face units, half a side, -> px), when a board
    # gives it: a face lies flat, so its square's shape (foreshortening) must be this one's
    known_one_pip: tuple[float, float] = (0.1, 0.45)  # a lone pip's diameter / die side
    known_one_spots: float = 1.08  # the pip spots' square / the face's (pips at 0.27 side)
    known_shape_tol: float = 0.3  # |normalised lin lin^T - A A^T| (Frobenius, x 2) at most
    known_interior: float = 0.4  # the face's interior may depart this much x pip contrast
    # (the blurred pips of an enlarged small die darken the face between them)
    known_one_side_cone: float | None = 0.5  # a lone pip of a die of known size and known
    # vertical (`up_dir`) whose rays meet nothing on a table of its own colour: the rays
    # within this cos of down (towards the die's own side faces, which shade it off the
    # table) that leave the square through a seen side face's edge must all meet the border
    # in range, every other ray in range or open (no border early or late anywhere). None:
    # off (committed 0023's white 1 on a glare-washed white table: 8 of 16 rays in range,
    # all on the side faces' half, the other 8 open)
    known_one_side_edge: float = 0.25  # a square's edge is a seen side face's where its
    # outward normal has this cos with down at least (a side face's seen height is its
    # die height x this cos: under it a sliver a ray may or may not meet). A ray leaving
    # within `known_one_side_corner` face units of a corner where a seen and an unseen edge
    # meet may pass beside the side face: it is neither asked nor counted
    known_one_side_corner: float = 0.2
    known_one_side_met: float = 0.5  # ... and this share of all rays in range, the rays
    # beside such a corner not counted. Over all 16 (session 13's first rule) a die turned
    # 45 degrees was refused: 7 of 16 met, its sideways rays leave by the side corners (7 of
    # 14 now). A die turned 0 degrees shows one side face: 3 rays through it (+2 by its
    # corners), stays unread: a 2's corner pip whose partner sits at its top face's border,
    # on a table of the face's colour, met 6 (fresh 1559's 0014 and 1556's 0020 were read
    # as 1 with the side faces' rays alone counted). 0023: 8 of 16
    known_one_side_spans: tuple[tuple[float, float], tuple[float, float]] = (
        (0.1, 0.6), (0.3, 0.9))  # `_border_runs_on`'s short lines down (face units: from
    # this far above the edge's end, this long): inside the end (0.1 above to 0.5 below: the
    # side face's own border) and past it (0.3 above to 0.6 below: a border running on)
    known_one_side_rays: int = 3  # ... and at least this many such rays in the cone
    known_one_side_ends: tuple[float, float, float] = (-0.2, 0.35, 0.6)  # the seen side
    # faces end with the square's edges (`_border_runs_on`): 0.2 face units inside each end
    # of their edges a border lies below (the side face), and 0.35 and 0.6 past them not at
    # both ends (a straight border running through, a board's or table's edge). A die's own
    # cast shadow runs on past one end only (committed 0023: its shadow, 84-101 off the face
    # colour, past the left end); a dot 0.5 off the middle of a die turned 45 degrees fits a
    # larger square (`face_scales`) whose end lies past its side face's (`test_dice_known_one`)
    red_one_mid: float | None = 0.5  # the big dark pips of min(B,G,R) (a red one-pip) are
    # dark in the middle channel too by this x their contrast (a red pip on white about 1;
    # yellow and light blue balls of game cards 0.1-0.3; session 17, H6)
    light_pips: bool = True  # look for light pips (white on a dark die) too; off where the
    # die sought is known to be a light face with dark pips (the Mauerhuepfer candidates)


SETTINGS = DiceSettings()

# Canonical pip positions on a face spanning [-1, 1]^2 (pips at a quarter of the side).
_H = 0.5
LAYOUTS: dict[int, np.ndarray] = {
    1: np.array([[0.0, 0.0]]),
    2: np.array([[-_H, -_H], [_H, _H]]),
    3: np.array([[-_H, -_H], [0, 0], [_H, _H]]),
    4: np.array([[-_H, -_H], [_H, -_H], [-_H, _H], [_H, _H]]),
    5: np.array([[-_H, -_H], [_H, -_H], [-_H, _H], [_H, _H], [0, 0]]),
    6: np.array([[-_H, -_H], [-_H, 0], [-_H, _H], [_H, -_H], [_H, 0], [_H, _H]]),
}


def _fit_tables():
    """Per layout: all pip orderings and the least-squares projector of the affine fit."""
    out = {}
    for n, p in LAYOUTS.items():
        if n == 1:
            continue
        x = np.c_[p, np.ones(n)]  # (n, 3)
        pinv = np.linalg.pinv(x)  # (3, n)
        perms = np.array(list(itertools.permutations(range(n))), np.intp)
        out[n] = (x, pinv, perms)
    return out


_FIT = _fit_tables()


@dataclass
class Pips:
    """Pip candidates (N of them): centre xy (N, 2) float; d equivalent diameter (N,);
    cov (N, 2, 2) second moments; dark (N,) bool; level/face (N,) channel levels;
    contrast (N,); colour (N, 3) BGR of the surrounding face; chan (N,) channel index;
    holds (N,) bool: it holds `die_pip_holds` smaller candidates of the other polarity
    (`find_pips`; a whole die or a disc with a number, no pip)."""

    xy: np.ndarray
    d: np.ndarray
    cov: np.ndarray
    dark: np.ndarray
    level: np.ndarray
    face: np.ndarray
    contrast: np.ndarray
    colour: np.ndarray
    chan: np.ndarray
    holds: np.ndarray | None = None

    def __len__(self):
        return len(self.d)

    def take(self, idx):
        return Pips(**{k: None if v is None else v[idx] for k, v in self.__dict__.items()})


@dataclass
class Face:
    value: int
    center: np.ndarray  # (2,) working px
    pips: list[int]
    confidence: float
    extent: np.ndarray  # (rays,) distance to the border per ray direction
    area: float
    lin: np.ndarray  # 2x2: face coords [-1, 1]^2 -> working px (relative to center)
    colour: np.ndarray  # (3,) BGR of the face around its pips
    notes: list[str] = field(default_factory=list)
    shape_measured: bool = True  # lin's shape is measured, not guessed (a 2 or 3: from the
    # border round a diagonal; a 1 with a pip under 6 px: an unsquashed square)


# --------------------------------------------------------------------------- pip candidates

def _channels(img: np.ndarray, s: DiceSettings) -> list[np.ndarray]:
    """[max(B,G,R), min(B,G,R), BGR], all uint8 and lightly blurred."""
    bgr = cv2.GaussianBlur(img, (0, 0), s.blur_sigma)
    b, g, r = cv2.split(bgr)
    return [cv2.max(cv2.max(b, g), r), cv2.min(cv2.min(b, g), r), bgr]


@lru_cache(maxsize=8)
def _ring_points(n_pts: int) -> np.ndarray:
    """(n_pts, 2) unit directions round the circle, made once per count (read-only: shared;
    a face's rays asked for them ~20 times a crop beside a Mauerhuepfer board)."""
    a = np.linspace(0, 2 * np.pi, n_pts, endpoint=False)
    out = np.stack([np.cos(a), np.sin(a)], axis=1)
    out.flags.writeable = False
    return out


_RING16 = _ring_points(16)


def _sample(ch: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """Nearest-pixel samples of a (H, W) image at float points (..., 2), clipped inside."""
    h, w = ch.shape[:2]  # (np.minimum / np.maximum: np.clip's numbers, less overhead)
    x = np.minimum(np.maximum(np.rint(xy[..., 0]).astype(np.intp), 0), w - 1)
    y = np.minimum(np.maximum(np.rint(xy[..., 1]).astype(np.intp), 0), h - 1)
    return ch[y, x]


def median(x: np.ndarray, axis: int = 0):
    """`np.median(x, axis)` bit for bit for float arrays without NaN (the middle value, or
    the mean of the two middle ones in x's own float type), without its overhead: the crops
    beside a Mauerhuepfer board call it some 50 times each."""
    s = np.sort(x, axis=axis)
    n = s.shape[axis]
    hi = np.take(s, n // 2, axis=axis)
    return hi if n % 2 else (np.take(s, n // 2 - 1, axis=axis) + hi) / 2


def quartiles(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`np.percentile(x, [75, 25], axis=1)` bit for bit for a float (N, K) array without
    NaN: numpy's linear interpolation (its `_lerp`, float64 weights) between the sorted
    values around (K - 1) * 0.75 and (K - 1) * 0.25."""
    s = np.sort(x, axis=1)
    out = []
    for q in (0.75, 0.25):
        v = (s.shape[1] - 1) * q
        i = int(math.floor(v))
        t = np.float64(v - i)
        a, b = s[:, i], s[:, min(i + 1, s.shape[1] - 1)]
        d = b - a
        out.append(b - d * (1 - t) if t >= 0.5 else a + d * t)
    return out[0], out[1]


def cc_stats(mask: np.ndarray):
    """`cv2.connectedComponentsWithStats(mask, connectivity=8)` of a uint8 mask: the same
    labels, stats and centroids, the labels uint16 wherever no more than 65535 components can
    come out (one pixel at least each, one at most per 2 x 2 block: `segment.components`'
    bound), else int32. OpenCV's stats with int32 labels cost ~3 x as much (1.0 against 0.35
    ms on a 357 px crop; the board dice's crops make ~10 such calls each)."""
    h, w = mask.shape
    small = min(cv2.countNonZero(mask), ((h + 1) // 2) * ((w + 1) // 2)) <= 65535
    return cv2.connectedComponentsWithStats(
        mask, connectivity=8, ltype=cv2.CV_16U if small else cv2.CV_32S)


def _blob_pass(src, chans, img, ci, dark, window, factor, s: DiceSettings, deep=False):
    """One adaptive-threshold pass; returns a list of candidate dicts in full working
    coordinates. `deep`: also the blobs of the pixels darker than half-way from the window's
    mean to the darkest pixel nearby (half depth), where that parts a blob of a few pips'
    size: blurred pips that touch (the columns of a small 6)."""
    ch = src if dark else 255 - src
    mask = cv2.adaptiveThreshold(ch, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV,
                                 window, s.offset)
    n, labels, stats, cents = cc_stats(mask)
    faced: list[np.ndarray] = []
    out = [_blob_candidates(n, labels, stats, cents, chans, ci, dark, factor, s, faced=faced)]
    if not deep or not faced or not len(faced[0]):
        return out
    # Blobs on a face-like ring big enough for two pips, not too elongated (3 pips in a row).
    j = faced[0]
    pw, ph = stats[j, cv2.CC_STAT_WIDTH], stats[j, cv2.CC_STAT_HEIGHT]
    j = j[(stats[j, cv2.CC_STAT_AREA] >= 2 * s.min_area / factor**2)
          & (np.maximum(pw, ph) <= s.deep_max_elong * np.minimum(pw, ph) + 2)]
    if not len(j):
        return out
    k = max(3, (window // 2) | 1)
    mean = cv2.blur(ch, (window, window)).astype(np.int16)
    low = cv2.erode(ch, np.ones((k, k), np.uint8)).astype(np.int16)
    labels2 = np.zeros_like(labels)
    rows, cen = [np.zeros(5, np.int32)], [np.zeros(2)]
    for jj in j:
        x0, y0, w_, h_ = stats[jj, :4]
        sl = np.s_[y0:y0 + h_, x0:x0 + w_]
        sub = ((labels[sl] == jj) & (2 * ch[sl].astype(np.int16) <= mean[sl] + low[sl]))
        m, lab, st, ce = cc_stats(sub.astype(np.uint8))
        if m <= 2 or (st[1:, cv2.CC_STAT_AREA] >= s.min_area / factor**2).sum() < 2:
            continue  # not parted into two or more pips
        base = len(rows) - 1
        inside = lab > 0
        labels2[sl][inside] = lab[inside] + base
        st = st[1:].copy()
        st[:, 0] += x0
        st[:, 1] += y0
        rows += list(st)
        cen += list(ce[1:] + [x0, y0])
    if len(rows) > 1:
        out.append(_blob_candidates(len(rows), labels2, np.array(rows), np.array(cen), chans,
                                    ci, dark, factor, s, deep=True))
    return out


def _blob_candidates(n, labels, stats, cents, chans, ci, dark, factor, s: DiceSettings,
                     deep=False, faced: list | None = None):
    """Pip candidates among the connected components of one pass (None if none): area,
    shape, contrast against a uniform ring. `faced` gets the labels of the blobs whose ring
    nearly passed (lying on a face), whatever their shape."""
    if n <= 1:
        return None
    st = stats[1:]
    area = st[:, cv2.CC_STAT_AREA].astype(np.float64)
    bw = st[:, cv2.CC_STAT_WIDTH].astype(np.float64)
    bh = st[:, cv2.CC_STAT_HEIGHT].astype(np.float64)
    amin = s.min_area / factor**2
    amax = s.max_area / factor**2
    ok = (area >= amin) & (area <= amax) & (np.maximum(bw, bh) <= s.max_axis_ratio * 1.5
                                             * np.minimum(bw, bh) + 2)
    ok &= area >= 0.3 * bw * bh
    idx = np.nonzero(ok)[0]
    if len(idx) == 0:
        return None
    # Contrast against a ring, on the full-size channel.
    full = chans[ci]
    c = cents[1:][idx] * factor + (factor - 1) / 2
    r_eq = np.sqrt(area[idx] / np.pi) * factor
    r_ring = np.maximum(s.ring_scale * r_eq, 0.5 * np.maximum(bw[idx], bh[idx]) * factor + 1.5)
    if deep:  # a half-depth blob is smaller than its pip; its ring may touch neighbour pips
        r_ring = r_ring * s.deep_ring
    pts = c[:, None, :] + r_ring[:, None, None] * _RING16[None]
    ring = _sample(full, pts).astype(np.float32)
    centre = _sample(full, c).astype(np.float32)
    if deep:  # the face is the half of the ring farthest from the pip's level
        order = np.argsort(-ring if dark else ring, axis=1)[:, :8]
        pts = np.take_along_axis(pts, order[..., None], axis=1)
        ring = np.take_along_axis(ring, order, axis=1)
    face = median(ring, axis=1)
    contrast = (face - centre) if dark else (centre - face)
    q75, q25 = quartiles(ring)
    spread = (q75 - q25) / np.maximum(contrast, 1)
    keep = (contrast >= s.min_contrast) & (spread <= s.max_ring_spread)
    if faced is not None:  # (a row of merged pips may reach past the face with its ring)
        faced.append(idx[(contrast >= s.min_contrast) & (spread <= 2 * s.max_ring_spread)] + 1)
    if not keep.any():
        return None
    idx, c, r_eq = idx[keep], c[keep], r_eq[keep]
    cov = np.empty((len(idx), 2, 2))
    fill = np.empty(len(idx))
    for k, j in enumerate(idx):
        x0, y0, w_, h_ = st[j, :4]
        roi = (labels[y0:y0 + h_, x0:x0 + w_] == j + 1).astype(np.uint8)
        m = cv2.moments(roi, binaryImage=True)
        a = max(m["m00"], 1.0)
        cxx, cxy, cyy = m["mu20"] / a + 1 / 12, m["mu11"] / a, m["mu02"] / a + 1 / 12
        cov[k] = np.array([[cxx, cxy], [cxy, cyy]]) * factor**2
        fill[k] = a / (4 * np.pi * math.sqrt(max(cxx * cyy - cxy * cxy, 1e-9)))
        if a >= 12 and s.min_ellipse_fill <= fill[k] <= s.max_ellipse_fill:
            # pips are convex: a cross of lines or a letter is not
            cnts, _ = cv2.findContours(roi, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            hull = cv2.contourArea(cv2.convexHull(max(cnts, key=len)))
            if a < s.min_solidity * (hull + 0.5 * cv2.arcLength(cnts[0], True)):
                fill[k] = 0.0
    ev = np.linalg.eigvalsh(cov)
    ratio = np.sqrt(ev[:, 1] / np.maximum(ev[:, 0], 1e-9))
    good = (fill >= s.min_ellipse_fill) & (fill <= s.max_ellipse_fill) & (
        ratio <= s.max_axis_ratio)
    if not good.any():
        return None
    sel = np.nonzero(keep)[0][good]
    colour = median(_sample(chans[2], pts[sel]).astype(np.float32), axis=1)
    grow = s.deep_ring if deep else 1.0  # a half-depth blob is narrower than its pip
    return dict(xy=c[good], d=2 * r_eq[good] * grow, cov=cov[good] * grow**2,
                dark=np.full(good.sum(), dark), level=centre[keep][good], face=face[keep][good],
                contrast=contrast[keep][good], colour=colour,
                chan=np.full(good.sum(), ci))


def _one_channel_dark(p: Pips, bgr: np.ndarray, s: DiceSettings) -> np.ndarray:
    """(N,) bool: the big dark pips of min(B, G, R) (the red one-pip pass: dark, `chan` 1)
    not dark in the middle channel of B, G, R by `red_one_mid` x their contrast. A red pip
    absorbs two of the three channels (so do green, blue and black ones); a yellow or light
    blue disc (a marble, a game card's coloured dot) is dark in one only."""
    cand = p.dark & (p.chan == 1)
    if s.red_one_mid is None or not cand.any():
        return np.zeros(len(p), bool)
    centre = np.sort(_sample(bgr, p.xy[cand]).astype(np.float32), axis=1)[:, 1]
    face = np.sort(p.colour[cand], axis=1)[:, 1]
    out = np.zeros(len(p), bool)
    out[cand] = face - centre < s.red_one_mid * p.contrast[cand]
    return out


def find_pips(img: np.ndarray, s: DiceSettings = SETTINGS, capped: list | None = None
              ) -> tuple[Pips, list[np.ndarray]]:
    """Pip candidates of a working-size BGR image, duplicates across passes merged; at most
    `max_pip_candidates`, the strongest (where more were found, their count is appended to
    `capped`)."""
    chans = _channels(img, s)
    half = [cv2.resize(c, (c.shape[1] // 2, c.shape[0] // 2), interpolation=cv2.INTER_AREA)
            for c in chans[:2]]  # (the passes read max and min, not the colour image)
    passes = []
    for ci, dark in ((0, True), (1, False)) if s.light_pips else ((0, True),):
        for wdw, factor in s.passes:
            src = chans[ci] if factor == 1 else half[ci]
            passes += _blob_pass(src, chans, img, ci, dark, wdw, factor, s,
                                 deep=(wdw, factor) in s.deep_passes)
    # Big dark pips that are not dark in max(B, G, R): a red one-pip on a white die.
    wdw, factor = s.passes[-1]
    passes += _blob_pass(half[1], chans, img, 1, True, wdw, factor, s)
    passes = [p for p in passes if p is not None]
    if not passes:
        empty = Pips(np.zeros((0, 2)), np.zeros(0), np.zeros((0, 2, 2)), np.zeros(0, bool),
                     np.zeros(0), np.zeros(0), np.zeros(0), np.zeros((0, 3)), np.zeros(0, int))
        return empty, chans
    allp = Pips(**{k: np.concatenate([p[k] for p in passes]) for k in passes[0]})
    # Merge duplicates: keep the strongest of candidates of one polarity at one place.
    order = np.argsort(-allp.contrast * np.sqrt(allp.d))
    if len(order) > s.max_pip_candidates:  # (a noisy or busy photo: `read_dice` warns)
        order = order[:s.max_pip_candidates]
        if capped is not None:
            capped.append(len(allp))
    p = allp.take(order)
    dist = np.linalg.norm(p.xy[:, None] - p.xy[None], axis=2)
    same = (p.dark[:, None] == p.dark[None]) & (
        dist < 0.6 * np.maximum(p.d[:, None], p.d[None]))
    np.fill_diagonal(same, False)
    # A blob that covers two or more smaller blobs apart from each other is merged pips
    # (blur), not a pip: it goes first, so that it does not hide them.
    inner = same & (p.d[None, :] < 0.7 * p.d[:, None]) & (dist < 0.6 * p.d[:, None])
    merged = np.zeros(len(p), bool)
    for i in np.nonzero(inner.sum(axis=1) >= 2)[0]:
        j = np.nonzero(inner[i])[0]
        apart = dist[np.ix_(j, j)] >= 0.8 * np.minimum(p.d[j][:, None], p.d[j][None])
        merged[i] = bool(apart.any())
    same[merged] = False
    same[:, merged] = False
    alive = np.nonzero(~np.triu(same, 1).any(axis=0) & ~merged)[0]
    out = p.take(alive)
    # Pips are plain: a "pip" with smaller blobs of the other polarity inside it is a
    # whole die (a red die's white pips in a big dark dot) or a disc with a number.
    dist = dist[np.ix_(alive, alive)]
    inside = (out.dark[:, None] != out.dark[None]) & (dist < 0.5 * out.d[:, None]) & (
        out.d[None] < s.die_pip_size * out.d[:, None])
    out.holds = np.count_nonzero(inside, axis=1) >= s.die_pip_holds
    # (dropped last: the merging above and the order of the rest are as without it)
    one = _one_channel_dark(out, chans[2], s)
    if one.any():
        out = out.take(np.nonzero(~one)[0])
    return out, chans


# --------------------------------------------------------------------------- grouping

def _links(p: Pips, chans, s: DiceSettings, strict: float = 1.0) -> np.ndarray:
    """(N, N) bool: the two candidates may be pips of one face. `strict` < 1 tightens the
    line-of-sight and size tests (used to split merged groups)."""
    n = len(p)
    if n == 0:
        return np.zeros((0, 0), bool)
    dmean = 0.5 * (p.d[:, None] + p.d[None])
    dist = np.linalg.norm(p.xy[:, None] - p.xy[None], axis=2)
    ratio = np.maximum(p.d[:, None], p.d[None]) / np.minimum(p.d[:, None], p.d[None])
    cand = (p.dark[:, None] == p.dark[None]) & (dist <= s.max_link * dmean) & (
        ratio <= 1 + (s.max_size_ratio - 1) * strict)
    cand &= np.abs(p.colour[:, None] - p.colour[None]).mean(axis=2) <= s.max_colour_diff
    if s.pip_hue is not None:  # pips of one die are one paint: coloured dots of two hues
        # (a game card's dots in a die's layout) are no pips of one face
        col = _sample(chans[2], p.xy)
        hue, sat = _hue_sat(col)
        vivid = (sat >= s.pip_hue[0]) & (col.max(axis=1) >= s.pip_hue[2])
        dh = np.abs(_hue_diff(np.degrees(hue)[:, None], np.degrees(hue)[None]))
        cand &= ~(vivid[:, None] & vivid[None] & (dh > s.pip_hue[1]))
    cr = p.contrast[:, None] / p.contrast[None]
    cand &= (cr <= s.max_contrast_ratio) & (cr >= 1 / s.max_contrast_ratio)
    tr = np.trace(p.cov, axis1=1, axis2=2)[:, None, None]
    shp = p.cov / tr
    sd = np.linalg.norm(shp[:, None] - shp[None], axis=(2, 3)) * 2
    big = np.minimum(p.d[:, None], p.d[None]) >= s.min_shape_d  # tiny blobs' shapes are noise
    cand &= ~big | (sd <= s.max_shape_diff * strict)
    np.fill_diagonal(cand, False)
    ii, jj = np.nonzero(np.triu(cand))
    out = np.zeros((n, n), bool)
    if len(ii) == 0:
        return out
    # Line of sight, sampled every pixel between the two pips' rims.
    a, b = p.xy[ii], p.xy[jj]
    length = np.linalg.norm(b - a, axis=1)
    steps = int(min(max(length.max(), 2), 400))
    t = np.linspace(0, 1, steps)
    pts = a[:, None] + (b - a)[:, None] * t[None, :, None]
    along = t[None] * length[:, None]
    inside = (along > 0.75 * p.d[ii][:, None]) & (
        along < length[:, None] - 0.75 * p.d[jj][:, None])
    vals = _sample(chans[2], pts).astype(np.float32)  # (pairs, steps, 3)
    colour = 0.5 * (p.colour[ii] + p.colour[jj])
    con = 0.5 * (p.contrast[ii] + p.contrast[jj])
    thr = np.clip(s.los_dev * strict * con, s.ray_edge_px[0] * strict, s.ray_edge_px[1] * strict)
    mag = np.abs(vals - colour[:, None]).max(axis=2)
    dev = mag > thr[:, None]
    # Deviating length in pixels (samples are denser than pixels on short segments).
    hits = (dev & inside).sum(axis=1) * length / (steps - 1)
    ok = hits <= s.los_max_px
    if s.los_glare_off is not None and not ok.all():
        rows = np.nonzero(~ok & (hits <= s.los_glare_share * (inside.sum(axis=1) * length
                                                               / (steps - 1))))[0]
        # (a pair whose most deviating sample is no highlight is none: most of a busy
        # photo's blocked pairs are left here, before their every sample is looked at)
        top = np.argmax(np.where(inside[rows], mag[rows], -1.0), axis=1)
        v, c = vals[rows, top], colour[rows]
        rows = rows[(v > c).all(axis=1)]
        new = rows[_glare_only(vals, pts, dev & inside, colour, thr, b - a, length, chans[2],
                               rows, s)]
        ok[new[~_like_pip_between(p, ii[new], jj[new], s)]] = True
    out[ii[ok], jj[ok]] = True
    out |= out.T
    return out


def _glare_only(vals, pts, dev, colour, thr, ab, length, bgr, rows, s: DiceSettings
                ) -> np.ndarray:
    """(len(rows),) bool: the line of sight of each pair asked (`rows`) is blocked by a
    highlight alone (each deviating sample brighter than the face colour in every channel,
    its channels no farther apart than the face's), bounded across the line: the samples
    `los_glare_off` x the line's length to either side of each deviating one are face
    colour. Only the deviating samples are looked at (most pairs of a busy photo fail)."""
    out = np.zeros(len(rows), bool)
    pr, st = np.nonzero(dev[rows])
    if not len(pr):
        return out
    r = rows[pr]
    v, c = vals[r, st], colour[r]
    light = (v > c).all(axis=1) & (
        v.max(axis=1) - v.min(axis=1) <= c.max(axis=1) - c.min(axis=1) + thr[r])
    keep = light & (np.bincount(pr[~light], minlength=len(rows))[pr] == 0)
    pr, st, r = pr[keep], st[keep], r[keep]
    if not len(pr):
        return out
    nrm = np.stack([-ab[r, 1], ab[r, 0]], axis=1) / length[r, None]
    off = (s.los_glare_off * length[r])[:, None] * nrm
    blocked = np.zeros(len(pr), bool)
    for sgn in (1, -1):
        blocked |= np.abs(_sample(bgr, pts[r, st] + sgn * off).astype(np.float32)
                          - colour[r]).max(axis=1) > thr[r]
    nb = np.bincount(pr[blocked], minlength=len(rows))
    out = (np.bincount(pr, minlength=len(rows)) > 0) & (
        nb * length[rows] / (vals.shape[1] - 1) <= s.los_max_px)
    return out


def _like_pip_between(p: Pips, ii: np.ndarray, jj: np.ndarray, s: DiceSettings) -> np.ndarray:
    """(pairs,) bool: a pip candidate like the pair's (polarity, size and contrast as links
    ask) lies on the line between them (its centre within half its diameter of the line):
    a pip is no highlight, and a line across it links the pair only through it."""
    dm = 0.5 * (p.d[ii] + p.d[jj])[:, None]
    cm = 0.5 * (p.contrast[ii] + p.contrast[jj])[:, None]
    like = (p.dark[None] == p.dark[ii][:, None]) & (
        np.maximum(p.d[None], dm) <= s.max_size_ratio * np.minimum(p.d[None], dm)) & (
        np.maximum(p.contrast[None], cm) <= s.max_contrast_ratio * np.minimum(p.contrast[None], cm))
    like[np.arange(len(ii)), ii] = False
    like[np.arange(len(ii)), jj] = False
    pr, k = np.nonzero(like)
    a = p.xy[ii][pr]
    ab = p.xy[jj][pr] - a
    ln = np.maximum(np.linalg.norm(ab, axis=1), 1e-9)
    rel = p.xy[k] - a
    t = (rel[:, 0] * ab[:, 0] + rel[:, 1] * ab[:, 1]) / ln
    off = np.abs(rel[:, 0] * ab[:, 1] - rel[:, 1] * ab[:, 0]) / ln
    on = (t > 0) & (t < ln) & (off <= 0.5 * p.d[k])
    return np.bincount(pr[on], minlength=len(ii)) > 0


def _components(adj: np.ndarray, members: np.ndarray) -> list[np.ndarray]:
    """Connected components of adj restricted to members (indices)."""
    sub = adj[np.ix_(members, members)]
    seen = np.zeros(len(members), bool)
    comps = []
    for i in range(len(members)):
        if seen[i]:
            continue
        stack, comp = [i], []
        seen[i] = True
        while stack:
            k = stack.pop()
            comp.append(k)
            for j in np.nonzero(sub[k] & ~seen)[0]:
                seen[j] = True
                stack.append(j)
        comps.append(members[np.array(sorted(comp))])
    return comps


# --------------------------------------------------------------------------- layout

def fit_layout(xy: np.ndarray) -> tuple[float, np.ndarray | None, np.ndarray]:
    """Affine fit of n = len(xy) (2-6) pip centres to the canonical layout of n.

    Returns (normalised rms residual, 2x2 linear part mapping face coords [-1, 1]^2 to px
    or None for 2 and 3 pips where it is undetermined, centre (2,))."""
    n = len(xy)
    centre = xy.mean(axis=0)
    x, pinv, perms = _FIT[n]
    c = xy[perms]  # (P, n, 2)
    a = np.einsum("kn,pnd->pkd", pinv, c)  # (P, 3, 2)
    pred = np.einsum("nk,pkd->pnd", x, a)
    res = ((pred - c) ** 2).sum(axis=(1, 2))
    best = int(np.argmin(res))
    spread = math.sqrt(((xy - centre) ** 2).sum() / n)
    r = math.sqrt(res[best] / n) / max(spread, 1e-6)
    lin = a[best, :2].T if n >= 4 else None  # columns: images of the face's u and v axes
    return r, lin, a[best, 2]


def _edge_threshold(colour: np.ndarray, contrast: float, s: DiceSettings) -> float:
    """How far (a BGR channel's level) a border ray's sample may leave the face colour
    `colour` (3,) before it counts as off the face: `ray_edge` x the pips' `contrast`
    clipped to `ray_edge_px`; for a dark face (brightest channel at most `side_run_dark`)
    `ray_edge_dark` x that channel (at least `ray_edge_px[0]`) where that is lower. Off
    where either setting is None."""
    thr = float(np.clip(s.ray_edge * contrast, *s.ray_edge_px))
    top = float(np.max(colour))
    if s.ray_edge_dark is not None and s.side_run_dark is not None and top <= s.side_run_dark:
        thr = min(thr, max(s.ray_edge_px[0], s.ray_edge_dark * top))
    return thr


def _ray_extent(bgr, centre, pip_xy, pip_d, colour, contrast, max_r, s: DiceSettings,
                thin: float = 0.0):
    """Distance from centre to the face border along `s.rays` directions (nan: none within
    max_r): where any BGR channel leaves the face colour (3,). Pixels inside the group's own
    pips are skipped, and so is a brighter run after which the ray is back on face colour
    (glare, `glare_run`); with `thin` (px; 0: off), any run up to that long after which it
    is back on face colour (a thin mark, `DiceSettings.thin_mark`). (the distances (R,)
    float64, the unit directions (R, 2)), R = `s.rays`."""
    dirs = _ring_points(s.rays)
    steps = np.arange(1, int(max_r) + 1, dtype=np.float64)
    pts = centre[None, None] + dirs[:, None] * steps[None, :, None]  # (R, L, 2)
    vals = _sample(bgr, pts).astype(np.float32)  # (R, L, 3)
    h, w = bgr.shape[:2]
    outside = (pts[..., 0] < 0) | (pts[..., 1] < 0) | (pts[..., 0] > w - 1) | (
        pts[..., 1] > h - 1)
    thr = _edge_threshold(colour, contrast, s)
    diff = vals - colour[None, None]
    dev = np.abs(diff).max(axis=2) > thr
    # A faint but sharp step (a white die on white paper) is a border too.
    step = np.zeros(dev.shape, np.float32)
    step[:, 1:-1] = np.abs(vals[:, 2:] - vals[:, :-2]).max(axis=2)
    step_thr = float(np.clip(s.ray_step * contrast, *s.ray_step_px))
    dev |= step > step_thr
    if len(pip_xy):
        # Each pip disc (radius 0.75 d) covers an interval [a, b] of every ray.
        rel = pip_xy - centre  # (K, 2)
        t0 = dirs @ rel.T  # (R, K)
        h2 = (rel**2).sum(axis=1)[None] - t0**2
        rad = 0.75 * pip_d[None] + 1.5
        half = np.sqrt(np.maximum(rad**2 - h2, 0))
        hit = h2 < rad**2
        lo = np.where(hit, t0 - half, np.inf)[:, :, None]
        hi = np.where(hit, t0 + half, -np.inf)[:, :, None]
        in_pip = ((steps[None, None] >= lo) & (steps[None, None] <= hi)).any(axis=1)
        dev &= ~in_pip
    # Glare: a brighter patch after which the ray is back on face colour is no border.
    n_steps = dev.shape[1]
    back = np.where(~dev, np.arange(n_steps)[None], n_steps)
    back = np.minimum.accumulate(back[:, ::-1], axis=1)[:, ::-1]  # next face-colour sample
    bright = diff.sum(axis=2) > 0
    glare = bright & (back - np.arange(n_steps)[None] <= s.glare_run * max_r)
    dev &= ~glare
    if thin > 0:  # a thin mark (up to `thin` px) after which the ray is back on face colour
        dev &= ~(back - np.arange(n_steps)[None] <= thin)
    dev |= outside
    # Two consecutive deviating samples make an edge (noise is one pixel).
    edge = dev[:, :-1] & dev[:, 1:]
    first = np.where(edge.any(axis=1), edge.argmax(axis=1) + 1, -1).astype(np.float64)
    first[first < 0] = np.nan
    return first, dirs


def _expected_extent(lin: np.ndarray, dirs: np.ndarray) -> np.ndarray:
    """Distance along each direction to the border of the square [-1, 1]^2 mapped by lin."""
    inv = np.linalg.inv(lin)
    q = dirs @ inv.T  # face coords per unit pixel step
    return 1.0 / np.abs(q).max(axis=1)


def _border_score(ext: np.ndarray, exp: np.ndarray, s: DiceSettings) -> tuple[float, float]:
    """How well measured border distances match a predicted face: (share of rays meeting the
    border in range, share stopping early on something inside the face). Rays that meet
    nothing (a white die on white paper) count `open_ray_weight` as meeting the border;
    rays down the image count `open_below_weight` where every ray up meets it in range
    (below)."""
    best = (0.0, 1.0)
    # A ray that meets no border (a die on a table of its own colour, a side face of the
    # same colour beyond the edge) neither confirms nor refutes the face: it counts
    # `open_ray_weight` (half).
    n = len(ext)
    open_ = np.isnan(ext)
    n_open = np.count_nonzero(open_)
    open_share = s.open_ray_weight * (n_open / n)
    # every face scale at once (pips sit nearer the middle or the edge on some dice); the
    # shares as counts / n: the same floats as numpy's mean of the bools
    ratio = ext[None] / (exp[None] * np.asarray(s.face_scales)[:, None])
    in_range = (ratio >= s.ray_range[0]) & (ratio <= s.ray_range[1])
    goods = np.count_nonzero(in_range, axis=1).tolist()
    earlies = np.count_nonzero(ratio < s.ray_range[0], axis=1).tolist()
    bonus = [0.0] * len(goods)
    if n_open and s.open_below_weight is not None and s.die_side_px is None:
        # Below a top face its side faces follow (the die's material, often no border
        # between them in a slanted view): where every ray up meets the border in range,
        # a ray down that meets nothing counts more.
        dy = _RING16[:, 1] if n == 16 else _ring_points(n)[:, 1]
        up, dn = dy < -s.open_below_dir, dy > s.open_below_dir
        down = np.count_nonzero(open_ & dn)
        if down:
            b = (s.open_below_weight - s.open_ray_weight) * (down / n)
            bonus = [b if ok else 0.0 for ok in in_range[:, up].all(axis=1).tolist()]
    for g, e, b in zip(goods, earlies, bonus, strict=True):
        good, early = g / n + open_share + b, e / n
        if good - early > best[0] - best[1]:
            best = (good, early)
    return best


_GRID = np.stack(np.meshgrid(np.linspace(-0.75, 0.75, 11), np.linspace(-0.75, 0.75, 11)),
                 axis=-1).reshape(-1, 2)


def _interior_dev(bgr, centre, lin, pip_xy, pip_d, colour, contrast, s: DiceSettings,
                  darker: float = 1.0) -> float:
    """Share of a grid over the face (outside its pips) whose colour is not the face's
    (samples darker than the face count `darker`, brighter ones `glare_weight`)."""
    pts = centre + _GRID @ lin.T
    dd = np.linalg.norm(pts[:, None] - pip_xy[None], axis=2)
    free = ~(dd < 0.8 * pip_d[None]).any(axis=1)
    if free.sum() < 10:
        return 1.0
    diff = _sample(bgr, pts[free]).astype(np.float32) - colour
    thr = float(np.clip(s.ray_edge * contrast, *s.ray_edge_px))
    if s.die_side_px:  # an enlarged small die: the blur of its pips overlaps between them
        thr = max(thr, s.known_interior * contrast)
    dev = np.abs(diff).max(axis=1) > thr
    bright = diff.sum(axis=1) > 0
    shade = dev & ~bright
    if darker < 1.0 and shade.any():  # the die's own hue darker is its shade: counts whole
        own = np.zeros_like(shade)
        own[shade] = _same_hue(_sample(bgr, pts[free][shade]), colour, s)
        return float(darker * (shade & ~own).mean() + (shade & own).mean()
                     + s.glare_weight * (dev & bright).mean())
    return float(shade.mean() + s.glare_weight * (dev & bright).mean())


_SPOTS = np.array([[u, v] for u in (-_H, 0.0, _H) for v in (-_H, 0.0, _H)])


def _pip_at_empty_spot(ch, centre, lin, n, d, face, level, share: float = 0.5) -> bool:
    """Whether one of the 3 x 3 pip spots that layout n leaves empty looks like a pip: it
    departs from the face level towards the pips' level by `share` of their contrast."""
    taken = {tuple(np.round(q, 3)) for q in LAYOUTS[n]}
    spots = np.array([q for q in _SPOTS if tuple(np.round(q, 3)) not in taken])
    disc = _RING16[::2] * (0.2 * d)
    pts = (centre + spots @ lin.T)[:, None] + np.vstack([[0, 0], disc])[None]
    vals = _sample(ch, pts).astype(np.float32).mean(axis=1)
    t = (vals - face) / (level - face if abs(level - face) > 1e-6 else 1e-6)
    return bool((t >= share).any())


def _extra_pip_inside(p: Pips, idx: np.ndarray, centre: np.ndarray, lin: np.ndarray, d: float,
                      contrast: float, s: DiceSettings, inside: float | None = None,
                      fragment: float = 1.2) -> bool:
    """Whether a pip candidate of the group's polarity, size and contrast, not in the group
    and not a fragment beside one of its pips (within `fragment` x d of it), lies inside the
    face (face coordinates within `inside`, default `extra_pip_inside`)."""
    like = (p.dark == p.dark[idx[0]]) & (p.d <= d * s.max_size_ratio) & (
        p.d >= d / s.max_size_ratio)
    cr = p.contrast / max(contrast, 1e-6)
    like &= (cr <= s.max_contrast_ratio) & (cr >= 1 / s.max_contrast_ratio)
    like[idx] = False
    like &= np.linalg.norm(p.xy[:, None] - p.xy[idx][None], axis=2).min(axis=1) > fragment * d
    if not like.any():
        return False
    rel = (p.xy[like] - centre) @ np.linalg.inv(lin).T
    lim = s.extra_pip_inside if inside is None else inside
    return bool((np.abs(rel) < lim).all(axis=1).any())


_DIAG_INV = np.linalg.inv(np.array([[1.0, 1.0], [-1.0, 1.0]]))


def _diag_candidates(xy: np.ndarray, d_cov: np.ndarray | None):
    """Face maps for 2 or 3 pips on a diagonal: the pip line fixes one diagonal; the other
    one's length and skew are unknown (foreshortening), so a few are tried."""
    c = xy.mean(axis=0)
    far = xy[np.argmax(np.linalg.norm(xy - c, axis=1))]
    half = far - c  # centre -> corner pip = half of centre -> corner
    dlen = float(np.linalg.norm(half))
    u = half / max(dlen, 1e-9)
    out = []
    for k in (1.0, 0.85, 0.7, 0.55, 0.4):
        for skew in (-0.35, 0.0, 0.35):
            perp = np.array([-u[1], u[0]])
            w = (perp + skew * u) / math.hypot(1, skew) * 2 * dlen * k
            corner1 = 2 * half  # canonical (1, 1)
            corner2 = w  # canonical (-1, 1)
            # lin @ (1, 1) = corner1, lin @ (-1, 1) = corner2
            m = _DIAG_INV @ np.stack([corner1, corner2])
            out.append(m.T)
    return out


_SQ_PHI = np.radians(np.arange(0, 90, 5.0))
_SQ_CUT = (1.414, 1.3, 1.2)  # corner extent / edge extent: sharp to well-rounded corners


def _square_fit(ext: np.ndarray, dirs: np.ndarray, unwarp: np.ndarray, drop: int = 2
                ) -> tuple[float, float]:
    """Relative rms residual of the border (rays, un-foreshortened by `unwarp`) fitted by the
    best rotated (rounded) square, and by a circle; and the square's (angle, half side)."""
    ok = ~np.isnan(ext)
    pts = (dirs[ok] * ext[ok, None]) @ unwarp.T
    r = np.linalg.norm(pts, axis=1)
    th = np.arctan2(pts[:, 1], pts[:, 0])
    # The `drop` rays farthest from the median are dropped (a side face, a seam, a blemish).
    keep = np.argsort(np.abs(r - np.median(r)))[: max(len(r) - drop, 4)]
    r, th = r[keep], th[keep]
    circ = float(r.std() / max(r.mean(), 1e-9))
    best, phi, half = _rounded_square(r, th, _SQ_PHI)
    return best, circ, (phi, half if np.isfinite(best) else float(r.mean()))


def _rounded_square(r: np.ndarray, th: np.ndarray, phis: np.ndarray
                    ) -> tuple[float, float, float]:
    """The rotated rounded square (corner cuts `_SQ_CUT`, turns `phis`, radians) that fits
    the outline points at radii `r` and angles `th` (float (N,)) best: (its relative rms
    residual, its turn, its half side); (inf, 0, 0) where none fits."""
    a = th[None, :] - phis[:, None]
    m = 1 / np.maximum(np.abs(np.cos(a)), np.abs(np.sin(a)))  # (phi, points)
    best, phi, half = np.inf, 0.0, 0.0
    for cut in _SQ_CUT:
        mc = np.minimum(m, cut)
        scale = (mc * r).sum(axis=1) / (mc * mc).sum(axis=1)
        res = np.sqrt(((r - scale[:, None] * mc) ** 2).mean(axis=1)) / scale
        k = int(res.argmin())
        if res[k] < best:
            best, phi, half = float(res[k]), float(phis[k]), float(scale[k])
    return best, phi, half


def _region_square(bgr: np.ndarray, centre: np.ndarray, d: float, pip_cov: np.ndarray,
                   colour: np.ndarray, contrast: float, max_r: float, s: DiceSettings
                   ) -> tuple[float, float, np.ndarray] | None:
    """A lone pip's face as a region of the (H, W, 3) uint8 BGR image: the pixels within
    the rays' colour threshold of the face colour `colour` (3,) and on no sharp faint step,
    joined (4-connected) to the pip disc at `centre` (x, y) of diameter `d`, holes filled.
    (square residual, circle residual, lin (2x2, half sides -> px)) where it is closed
    within `max_r` px and its whitened contour fits a (rounded) square (`one_region`), it is
    convex (`one_region_solid`), the pip lies in its middle (`one_region_off`) and it is of a
    one-face's size for the pip (`one_region_side`), and squashed as the pip is (its
    covariance `pip_cov` (2, 2), where the pip is `one_region_pip_shape_px`+ px:
    `one_region_pip_shape`); else None."""
    if s.one_region is None:
        return None
    # (no farther than a face of `one_region_side`'s largest side reaches: its half diagonal
    # is 0.71 of it; the crop's pixels are most of the cost)
    r_ = int(min(max_r, 0.75 * s.one_region_side[1] * d)) + 3
    cx, cy = int(round(float(centre[0]))), int(round(float(centre[1])))
    h, w = bgr.shape[:2]
    x0, y0 = cx - r_, cy - r_
    crop = np.zeros((2 * r_ + 1, 2 * r_ + 1, 3), np.float32)
    inside = np.zeros(crop.shape[:2], bool)
    sx0, sy0, sx1, sy1 = max(x0, 0), max(y0, 0), min(x0 + 2 * r_ + 1, w), min(y0 + 2 * r_ + 1, h)
    if sx0 >= sx1 or sy0 >= sy1:
        return None
    crop[sy0 - y0:sy1 - y0, sx0 - x0:sx1 - x0] = bgr[sy0:sy1, sx0:sx1]
    inside[sy0 - y0:sy1 - y0, sx0 - x0:sx1 - x0] = True
    thr = float(np.clip(s.ray_edge * contrast, *s.ray_edge_px))
    m = (np.abs(crop - colour).max(axis=2) <= thr) & inside
    step = float(np.clip(s.ray_step * contrast, *s.ray_step_px))
    gx = np.zeros(m.shape, np.float32)
    gy = np.zeros(m.shape, np.float32)
    gx[:, 1:-1] = np.abs(crop[:, 2:] - crop[:, :-2]).max(axis=2)
    gy[1:-1] = np.abs(crop[2:] - crop[:-2]).max(axis=2)
    m &= (gx <= step) & (gy <= step)
    m = m.astype(np.uint8)
    cv2.circle(m, (r_, r_), int(round(0.75 * d + 1.5)), 1, -1)
    _, lab = cv2.connectedComponents(m, connectivity=4)
    reg = (lab == lab[r_, r_]).astype(np.uint8)
    if reg[0].any() or reg[-1].any() or reg[:, 0].any() or reg[:, -1].any():
        return None  # runs on: no closed face round the pip
    cs, _ = cv2.findContours(reg, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    c = max(cs, key=cv2.contourArea)
    filled = np.zeros_like(reg)
    cv2.drawContours(filled, [c], -1, 1, -1)
    # A hole like the pip (of its polarity, `one_region_hole` of its area or more) is
    # another pip: a 3's or 5's middle pip whose other pips went unfound is no 1. So is a
    # dark hole `one_region_dark_hole` that size where the "pip" is light (glare on a 2
    # between its pips); a light hole where it is dark may be glare on the 1's face.
    holes = (filled > 0) & (reg == 0)
    if holes.any():
        pip_dir = np.sign((crop[r_, r_] - colour).sum())
        nh, hl, hst, _ = cv2.connectedComponentsWithStats(holes.astype(np.uint8), connectivity=8)
        pip_area = math.pi * d * d / 4
        for k in range(1, nh):
            hole_dir = np.sign((crop[hl == k] - colour).sum())
            need = s.one_region_hole * (1.0 if hole_dir == pip_dir
                                        else s.one_region_dark_hole)
            if hst[k, cv2.CC_STAT_AREA] >= need * pip_area and (
                    hole_dir == pip_dir or hole_dir < 0):
                return None
    ys, xs = np.nonzero(filled)
    area = len(xs)
    if area < s.one_region_least_px or not (
            s.one_region_side[0] <= math.sqrt(area) / d <= s.one_region_side[1]):
        return None
    if area / max(cv2.contourArea(cv2.convexHull(c)), 1.0) < s.one_region_solid:
        return None
    pts = np.stack([xs, ys], axis=1).astype(np.float64)
    mu = pts.mean(axis=0)
    ev, evec = np.linalg.eigh(np.cov((pts - mu).T))
    if ev[0] <= 1e-6:
        return None
    if d >= s.one_region_pip_shape_px and \
            _tensor_off(evec @ np.diag(ev) @ evec.T, pip_cov) > s.one_region_pip_shape:
        return None  # whitening makes any rectangle a square: a face and its pip look alike
    wh = evec @ np.diag(1 / np.sqrt(ev)) @ evec.T  # whitening: a square of half side sqrt(3)
    if np.linalg.norm(wh @ (np.array([r_, r_], float) - mu)) > s.one_region_off:
        return None
    q = (c[:, 0].astype(np.float64) - mu) @ wh.T
    r = np.linalg.norm(q, axis=1)
    th = np.arctan2(q[:, 1], q[:, 0])
    circ = float(r.std() / max(r.mean(), 1e-9))
    best, phi, _ = _rounded_square(r, th, _REG_PHI)
    if best > s.one_region[0] or best > s.one_region[1] * circ:
        return None
    rot = np.array([[math.cos(phi), -math.sin(phi)], [math.sin(phi), math.cos(phi)]])
    return best, circ, np.linalg.inv(wh) @ rot * math.sqrt(3)


_REG_PHI = np.radians(np.arange(0, 90, 3.0))


# Set to a list to collect why groups were rejected (diagnostics; see dice_eval --why).
DEBUG: list | None = None


def _reject(code: int, where: dict) -> None:
    if DEBUG is not None:
        names = ("n", "d", "centre", "face_score", "side", "r", "ext", "sq", "circ", "good",
                 "early", "bad", "mis")
        keep = {k: where[k] for k in names if k in where}
        DEBUG.append((code, keep))
    return None


def _tensor_off(m1: np.ndarray, m2: np.ndarray) -> float:
    """How far two 2x2 metric tensors (shapes: a face's lin @ lin.T, a pip's covariance)
    lie apart, scale aside: the distance of the trace-normalised tensors, doubled (0 alike)."""
    return float(np.linalg.norm(m1 / np.trace(m1) - m2 / np.trace(m2))) * 2


def _face_affine(s: DiceSettings) -> np.ndarray:
    """The known flat face's map `face_affine` as a 2x2 array (half sides -> px)."""
    return np.asarray(s.face_affine, float).reshape(2, 2)


def _shape_off(lin: np.ndarray, s: DiceSettings) -> float:
    """How far a face's square (lin) is from the known flat face's shape (`face_affine`),
    rotation and scale aside (0 alike)."""
    a = _face_affine(s)
    return _tensor_off(lin @ lin.T, a @ a.T)


def _flat_diag_lin(xy: np.ndarray, centre: np.ndarray, s: DiceSettings) -> np.ndarray:
    """The face map of 2 or 3 pips on a diagonal when the face's foreshortening is known
    (`face_affine` A): the square A R c whose corner diagonal runs through the pips (the
    pips at half of centre -> corner)."""
    a = _face_affine(s)
    half = xy[np.argmax(np.linalg.norm(xy - centre, axis=1))] - centre
    q = np.linalg.solve(a, 2 * half)  # = R c (1, 1) in face units
    c = float(np.linalg.norm(q)) / math.sqrt(2)
    ang = math.atan2(q[1], q[0]) - math.pi / 4
    rot = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
    return a @ rot * c



_TURNS = np.radians(np.arange(0.0, 90.0, 7.5))
_TURN_ROTS = [np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]])
              for th in _TURNS]  # (made once: `_known_one` tries each)


def _near_one(p: Pips, idx, centre, d: float, max_r: float) -> np.ndarray:
    """A lone pip's rays' maskers: the blobs within `max_r` of `centre`, not much larger
    than the pip, less those like it (a face with more pips is no one-face), the pip too."""
    near = (np.linalg.norm(p.xy - centre, axis=1) < max_r + p.d) & (p.d < 2 * d)
    near &= (p.dark != p.dark[idx[0]]) | (p.d > 1.6 * d) | (p.d < d / 1.6)
    near[idx] = True
    return near


def _side_rays_one(ext: np.ndarray, dirs: np.ndarray, a: np.ndarray, s: DiceSettings,
                   runs_on=None) -> np.ndarray | None:
    """The face square (2x2, half sides -> px: `a` at some turn and face scale) of a lone pip
    of a die of known size on a table of its own colour, from the border rays `ext` (R,)
    along `dirs` (R, 2) (nan: no border met). Per turn, the square's edges whose outward
    normal faces down (`-up_dir`, `known_one_side_edge`) bound the die's seen side faces:
    the rays leaving through them (not beside a corner where such an edge ends,
    `known_one_side_corner`) within `known_one_side_cone` of down must all meet the border
    in range (`known_one_side_rays` of them at least), `known_one_side_met` of all rays but
    those beside such a corner in range, every ray in range or open, at a face scale
    `face_scales`. `runs_on(lin, ends)` (optional): True where a border runs on
    past the ends `ends` (K, 2, 2: face-unit corner, outward tangent) of those edges (a
    straight edge, no die). None where no turn fits.
    A dark dot on a bare table meets no border; one near a table's or board's edge meets it
    out of range on some rays."""
    down = -np.asarray(s.up_dir, float)
    cone = dirs @ down >= s.known_one_side_cone
    open_ = np.isnan(ext)
    if open_[cone].all():
        return None
    normals = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    for rot in _TURN_ROTS:
        lin = a @ rot
        inv = np.linalg.inv(lin)
        nimg = normals @ inv  # (4, 2) image normals of the edges x=1, y=1, x=-1, y=-1
        seen = (nimg @ down) / np.linalg.norm(nimg, axis=1) >= s.known_one_side_edge
        if not seen.any():
            continue
        q = dirs @ inv.T
        q = q / np.abs(q).max(axis=1, keepdims=True)  # exit points on the square (R, 2)
        ax = np.abs(q).argmax(axis=1)  # 0: leaves by x = +-1, 1: by y = +-1
        edge = np.where(ax == 0, np.where(q[:, 0] > 0, 0, 2), np.where(q[:, 1] > 0, 1, 3))
        # The corner a ray leaves beside and the other edge meeting there.
        other_ax = 1 - ax
        other_val = q[np.arange(len(q)), other_ax]
        near_corner = np.abs(other_val) > 1 - s.known_one_side_corner
        other_edge = np.where(other_ax == 0, np.where(other_val > 0, 0, 2),
                              np.where(other_val > 0, 1, 3))
        mixed = near_corner & (seen[edge] != seen[other_edge])
        can = seen[edge] & ~mixed
        must = can & cone
        if np.count_nonzero(must) < s.known_one_side_rays:
            continue
        ends = []  # the corners where a seen edge meets an unseen one, and past them
        for e in np.flatnonzero(seen):
            m = normals[e]
            tan = np.array([-m[1], m[0]])
            for sgn in (1.0, -1.0):
                nb = int(np.flatnonzero((normals == sgn * tan).all(axis=1))[0])
                if not seen[nb]:
                    ends.append((m + sgn * tan, sgn * tan))
        exp = _expected_extent(lin, dirs)
        for k in s.face_scales:
            ratio = ext / (exp * k)
            inr = (ratio >= s.ray_range[0]) & (ratio <= s.ray_range[1])
            if not (inr[must].all() and (inr | open_).all()):
                continue
            if np.count_nonzero(inr & ~mixed) < s.known_one_side_met * np.count_nonzero(~mixed):
                continue
            if runs_on is not None and ends and runs_on(lin * k, np.array(ends)):
                continue
            return lin * k
    return None


def _border_runs_on(bgr, centre, colour, contrast, s: DiceSettings):
    """`_side_rays_one`'s `runs_on` test on a BGR image: does a border (a ray's: two
    samples in a row off the face colour (3,) by `ray_edge`, or a sharp step, `ray_step`)
    lie across short lines down (along -up) near each end (face-unit corner c and outward
    tangent t) of the seen side faces' edges? True (no 1) where it does past every end
    (`known_one_side_ends[1:]` out along t, from 0.3 above to 0.6 below the corner: a
    straight border running through) or where it does not inside some end
    (`known_one_side_ends[0]`, from 0.1 above to 0.5 below: the side face ends short of the
    square's corner, the dot off its middle)."""
    thr = float(np.clip(s.ray_edge * contrast, *s.ray_edge_px))
    step_thr = float(np.clip(s.ray_step * contrast, *s.ray_step_px))
    down = -np.asarray(s.up_dir, float)
    along = np.asarray(s.known_one_side_ends, float)
    (in_up, in_len), (past_up, past_len) = s.known_one_side_spans

    def met(p0, n):
        pts = p0[:, None] + np.arange(n)[None, :, None] * down  # (K, n, 2)
        vals = _sample(bgr, pts).astype(np.float32)
        dev = np.abs(vals - colour).max(axis=2) > thr
        dev[:, 1:-1] |= np.abs(vals[:, 2:] - vals[:, :-2]).max(axis=2) > step_thr
        return (dev[:, :-1] & dev[:, 1:]).any(axis=1)  # (K,)

    def runs_on(lin, ends):
        half = float(np.sqrt(abs(np.linalg.det(lin))))  # px per face unit
        past = 0
        for c, t in ends:
            f = c[None] + along[:, None] * t[None]  # (3, 2) face points along the edge
            px = centre + f @ lin.T
            if not met(px[:1] - in_up * half * down, int(in_len * half) + 2)[0]:
                return True
            past += bool(met(px[1:] - past_up * half * down, int(past_len * half) + 2).all())
        return past == len(ends)

    return runs_on


def _known_one(idx, p: Pips, chans, s: DiceSettings, centre, d, contrast, colour, dirs
               ) -> Face | None:
    """A lone pip on a die of known size and foreshortening (`die_side_px`, `face_affine`):
    the face is that flat square centred on the pip, at some turn. Its border must be met
    where the square (best turn) puts it, its interior be face colour, and the other eight
    pip spots be empty (no 3 or 5 whose other pips were missed)."""
    if not (s.known_one_pip[0] <= d / s.die_side_px <= s.known_one_pip[1]):
        return _reject(17, locals())
    a = _face_affine(s)
    max_r = s.die_side_px
    near = _near_one(p, idx, centre, d, max_r)
    ext, _ = _ray_extent(chans[2], centre, p.xy[near], p.d[near], colour, contrast, max_r, s)
    best = None
    for rot in _TURN_ROTS:
        lin = a @ rot
        good, early = _border_score(ext, _expected_extent(lin, dirs), s)
        if best is None or good - early > best[0] - best[1]:
            best = (good, early, lin)
    good, early, lin = best
    side_met = None  # the square met on the side faces' rays only (a table of its colour)
    if good < s.min_face_rays_one and s.known_one_side_cone is not None and \
            s.up_dir is not None:
        side_met = _side_rays_one(ext, dirs, a, s,
                                  _border_runs_on(chans[2], centre, colour, contrast, s))
    if side_met is not None:  # its score from its own square (every ray in range or open)
        lin, early = side_met, 0.0
        ratio = ext / _expected_extent(lin, dirs)  # (as `_border_score`: open rays count
        # `open_ray_weight`; not `_border_score` itself, which takes the best of its
        # `face_scales`, where this is the square met, and sums the shares in another order)
        good = (np.count_nonzero((ratio >= s.ray_range[0]) & (ratio <= s.ray_range[1]))
                + s.open_ray_weight * np.count_nonzero(np.isnan(ext))) / len(ext)
    elif good < s.min_face_rays_one or early > s.max_early_rays:
        return _reject(18, locals())
    code, bad = _one_face_fault(chans, centre, lin, idx, p, d, colour, contrast, s)
    if code:
        return _reject(code, locals())
    face_score = good - early
    con_score = min(1.0, contrast / 60) * 0.3 + 0.7
    conf = float(np.clip(0.85 * (0.5 + 0.5 * face_score) * con_score, 0, 1))
    return Face(value=1, center=np.asarray(centre, float), pips=list(map(int, idx)),
                confidence=conf, extent=ext, area=float(abs(np.linalg.det(lin)) * 4), lin=lin,
                colour=colour, notes=[])


def _one_face_fault(chans, centre, lin, idx, p: Pips, d: float, colour, contrast,
                    s: DiceSettings) -> tuple[int, float]:
    """A 1's face `lin` (2x2, half sides -> px) about its pip `idx` (diameter `d`) tested
    where its border vouches for little (a die of known size, rays mirrored across the pip):
    (`read_group`'s reject code, 0 where it passes; the interior's deviation). Code 19: the
    face's interior is not of the face colour (`max_interior_dev`); 20: a pip lies at one of
    its other eight spots (`known_one_spots`, `empty_spot_share`)."""
    bad = _interior_dev(chans[2], centre, lin, centre[None], p.d[idx], colour, contrast, s)
    if bad > s.max_interior_dev:
        return 19, bad
    ci = int(p.chan[idx[0]])
    if _pip_at_empty_spot(chans[ci], centre, lin * s.known_one_spots, 1, d,
                          float(p.face[idx[0]]), float(p.level[idx[0]]), s.empty_spot_share):
        return 20, bad
    return 0, bad


def _one_ray_tests(ext: np.ndarray, dirs: np.ndarray, cov: np.ndarray, d: float,
                   s: DiceSettings) -> tuple[int, tuple | None]:
    """A lone pip's border rays `ext` (float (rays,), px, NaN: no border) along `dirs`
    ((rays, 2) unit x, y) tested as a one-pip face's: (0, (square residual, circle
    residual, lin (2x2, half sides -> px), found (bool (rays,)))) where they pass, else
    (`read_group`'s reject code, None); code 7: the square fits no better than a circle."""
    found = ~np.isnan(ext)
    if found.mean() < s.min_face_rays_one:
        return 3, None
    e = ext[found]
    half = float(np.median(e))
    if s.die_side_px:
        lo_h, hi_h = (k * s.die_side_px for k in s.known_half_one)
        if d > s.known_max_pip * s.die_side_px:
            return 4, None
    else:
        lo_h, hi_h = s.one_side_per_pip[0] * d / 2, s.one_side_per_pip[1] * d / 2
    if not (lo_h <= half <= hi_h):
        return 4, None
    lo_e, hi_e = np.percentile(e, [15, 85])
    if hi_e / max(lo_e, 1) > s.one_max_ray_ratio:
        return 5, None
    # A square face: opposite rays agree (the pip sits in the middle).
    opp = ext[: s.rays // 2] / ext[s.rays // 2:]
    opp = opp[~np.isnan(opp)]
    if len(opp) < s.rays // 4 or np.median(np.abs(np.log(opp))) > s.one_max_asym:
        return 6, None
    # Square, not round: un-foreshorten with the pip's own ellipse, look for 4 corners.
    ev, evec = np.linalg.eigh(cov)
    if d >= 6:
        unwarp = evec @ np.diag(np.sqrt(ev[1] / ev)) @ evec.T
    else:
        unwarp = np.eye(2)
    sq, circ, (phi, half_side) = _square_fit(ext, dirs, unwarp, s.one_drop_rays)
    if sq > s.one_max_square_res or sq > s.one_square_vs_circle * circ:
        return 7, None
    rot = np.array([[math.cos(phi), -math.sin(phi)], [math.sin(phi), math.cos(phi)]])
    return 0, (sq, circ, np.linalg.inv(unwarp) @ rot * half_side, found)


def _one_run(at: np.ndarray, n: int) -> bool:
    """Whether the rays `at` (sorted indices, non-empty) of `n` round the circle form one
    run, at most one ray missing in it: the largest gap between them takes the rest."""
    gaps = np.diff(np.append(at, at[0] + n))
    return bool(n - gaps.max() + 1 <= len(at) + 1)


def _squash_axis(cov: np.ndarray, d: float, s: DiceSettings) -> np.ndarray | None:
    """The short axis (unit x, y, pointing down the image) of pips of mean second moments
    `cov` (2x2) and size `d` (px; `side_run_pip_px` or more) where they look squashed
    `side_run_squash` along it and it lies within `side_run_tilt` degrees of the image's
    vertical (a top face seen from a slanted camera); None otherwise."""
    if d < s.side_run_pip_px:
        return None
    ev, evec = np.linalg.eigh(cov)
    if ev[0] <= 1e-9:
        return None
    sq = math.sqrt(ev[1] / ev[0])
    axis = evec[:, 0] * (1.0 if evec[1, 0] >= 0 else -1.0)
    if not s.side_run_squash[0] <= sq <= s.side_run_squash[1] or float(
            axis[1]) < math.cos(math.radians(s.side_run_tilt)):
        return None
    return axis


def _side_run_mirrored(ext: np.ndarray, exp: np.ndarray, dirs: np.ndarray,
                       s: DiceSettings, axis: np.ndarray | None = None) -> np.ndarray | None:
    """A face's border rays (`ext`, float (rays,) px, NaN: no border; `exp` the distances
    its square predicts) with one run of rays going on into the die's side faces mirrored:
    the rays that meet no border or go on `one_side_min` x or more past their opposite ray,
    `side_run_rays` to `side_run_max` of them in one run round the circle (one ray amiss
    in it at most), pointing down the squash `axis` (unit x, y; default the image's
    vertical: their mean direction `dirs`, unit x, y, at least `side_run_along` along it),
    take their opposite ray's length where that one meets the border in range (`ray_range`
    at some face scale). None where no such run is found."""
    n = len(ext)
    opp = np.roll(ext, n // 2)
    r_opp = opp / np.roll(exp, n // 2)
    lo, hi = s.ray_range
    scales = np.asarray(s.face_scales)
    opp_in = ~np.isnan(opp) & ((r_opp[:, None] >= lo * scales) & (
        r_opp[:, None] <= hi * scales)).any(axis=1)
    longer = opp_in & (np.isnan(ext) | (ext >= s.one_side_min * opp))
    at = np.flatnonzero(longer)
    if not s.side_run_rays <= len(at) <= s.side_run_max:
        return None
    if not _one_run(at, n):
        return None
    v = dirs[at].sum(axis=0)
    down = np.array([0.0, 1.0]) if axis is None else axis
    if float(v @ down) < s.side_run_along * max(float(np.linalg.norm(v)), 1e-9):
        return None
    e2 = ext.copy()
    e2[longer] = opp[longer]
    return e2


def _side_mirrored(ext: np.ndarray, dirs: np.ndarray, centre: np.ndarray,
                   shape: tuple, s: DiceSettings) -> np.ndarray | None:
    """A lone pip's border rays (`ext`, float (rays,) px, NaN: no border, along `dirs`)
    with those that run on into the die's own side faces mirrored: a die's top face is a
    (foreshortened) square centred on its 1, so a ray's border lies as far as its opposite
    ray's. The side faces, of the die's colour, lie towards the camera's nadir: the image
    centre in a photo taken from above (`shape`: the image's (H, W, ...); the pip only
    `one_side_mid` x the long side or more off it). The rays within `one_side_arc`
    (cosine) of that direction that are `one_side_min` to `one_side_long` x their opposite
    ray, or meet no border, take the opposite ray's length, where they are `one_side_rays`
    or more in one run round the circle (one ray amiss in it at most). Rays on the other
    side are never changed: they must meet the top face's border. Returns the changed
    rays (None where nothing changed). Straight down the image (a slanted photo's nadir,
    far below) was tried too: it read no 1 more on fresh 2720-2779 and made three false
    ones (a card's ball, a board's lettered disc; session 21)."""
    n = len(ext)
    opp = np.roll(ext, n // 2)
    h, w = shape[:2]
    to_mid = np.array([(w - 1) / 2.0, (h - 1) / 2.0]) - np.asarray(centre, float)
    if np.linalg.norm(to_mid) <= s.one_side_mid * max(h, w):  # (at the centre: none)
        return None
    v = to_mid / np.linalg.norm(to_mid)
    longer = (dirs @ v >= s.one_side_arc) & ~np.isnan(opp) & \
        (np.isnan(ext) | (ext >= s.one_side_min * opp)) & ~(ext > s.one_side_long * opp)
    at = np.flatnonzero(longer)
    if len(at) < s.one_side_rays:
        return None
    if not _one_run(at, n):  # (a side face, or two joined at a corner)
        return None
    e2 = ext.copy()
    e2[longer] = opp[longer]
    return e2


def _runs_to_like_pip(ext: np.ndarray, e2: np.ndarray, dirs: np.ndarray, centre: np.ndarray,
                      idx: np.ndarray, p: Pips, d: float, s: DiceSettings) -> bool:
    """Whether a ray that `_side_mirrored` changed (`ext` -> `e2`, float (rays,) px along
    `dirs`) ends on a dot like the lone pip `idx` (its channel, `one_side_like` of its
    diameter `d`; within `one_side_like_gap` of the dot's diameter of its rim): stopped by
    another dot on one face (a card's balls), not by a side face's far edge (a side face's
    pips, on a plane at right angles, look smaller and lie farther in)."""
    ch = ~np.isclose(e2, ext, equal_nan=True) & ~np.isnan(ext)
    if not ch.any() or len(p) < 2:
        return False
    ends = centre + dirs[ch] * ext[ch, None]  # (k, 2)
    lo, hi = s.one_side_like
    like = (p.chan == p.chan[idx[0]]) & (p.d >= lo * d) & (p.d <= hi * d)
    like[idx] = False
    if not like.any():
        return False
    gap = np.linalg.norm(p.xy[like][None] - ends[:, None], axis=2) - p.d[like][None] / 2
    return bool((gap <= s.one_side_like_gap * p.d[like][None]).any())


def read_group(idx: np.ndarray, p: Pips, chans, s: DiceSettings) -> Face | None:
    """Verify a group of pip candidates as one die face; None if it is not one."""
    n = len(idx)
    if n < 1 or n > 6:
        return _reject(1, locals())
    xy = p.xy[idx]
    d = float(median(p.d[idx]))
    contrast = float(median(p.contrast[idx]))
    colour = median(p.colour[idx], axis=0)
    cov = p.cov[idx].mean(axis=0)
    dirs = _ring_points(s.rays)
    notes: list[str] = []
    big_pips = False  # a 2 or 3 passed on `diag_side_per_pip_big`
    if n == 1:
        centre = xy[0]
        if contrast < s.one_min_contrast:
            return _reject(14, locals())
        if not _face_round_pip(chans, centre, d, colour, contrast, s):  # (cheap test first)
            return _reject(2, locals())
        if s.face_affine is not None and s.die_side_px:  # else the general test below
            f = _known_one(idx, p, chans, s, centre, d, contrast, colour, dirs)
            if f is not None:
                return f
        max_r = s.one_side_per_pip[1] * d * 0.75
        near = _near_one(p, idx, centre, d, max_r)
        ext, _ = _ray_extent(chans[2], centre, p.xy[near], p.d[near], colour, contrast,
                             max_r, s)
        code, fit = _one_ray_tests(ext, dirs, cov, d, s)
        reg = None
        if code == 7:
            reg = _region_square(chans[2], centre, d, cov, colour, contrast, max_r, s)
        if code and reg is None and s.one_side_arc is not None and not s.die_side_px:
            # Rays on into the die's own side faces (slanted, or off the centre of a photo
            # from above): the top face mirrored across the pip (`_side_mirrored`).
            # The mirrored half vouches for less (text round a dot passes it): the face's
            # interior must be the face colour and its other eight pip spots empty.
            e2 = _side_mirrored(ext, dirs, centre, chans[2].shape, s)
            if e2 is not None and not _runs_to_like_pip(ext, e2, dirs, centre, idx, p, d, s):
                c2, f2 = _one_ray_tests(e2, dirs, cov, d, s)
                if not c2 and not _one_face_fault(chans, centre, f2[2], idx, p, d, colour,
                                                  contrast, s)[0]:
                    code, fit, ext = 0, f2, e2
        if not code:
            sq, circ, lin, found = fit
        elif reg is not None:
            sq, circ, lin = reg
            found = ~np.isnan(ext)
        else:
            return _reject(code, locals())
        if s.one_like_inside is not None and _extra_pip_inside(
                p, idx, centre, lin, d, contrast, s, s.one_like_inside):
            # a pip like it on its square: the centre pip of a 3 (or a 5) whose corner pips
            # a split parted from it (their rays stop on them), not a 1
            return _reject(23, locals())
        h4 = 1 - sq / max(circ, 1e-6)
        face_score = float(found.mean())
        layout_score = min(1.0, 0.7 + 3 * h4)
        area = float(abs(np.linalg.det(lin)) * 4)
        fe = ext
    else:
        # at least half of them hold pips of their own (`Pips.holds`): dice, not pips
        if p.holds is not None and 2 * int(np.count_nonzero(p.holds[idx])) >= n:
            return _reject(21, locals())
        r, lin, centre = fit_layout(xy)
        if r > s.max_residual:
            return _reject(8, locals())
        layout_score = 1 - r / s.max_residual * 0.5
        if lin is not None:
            sv = np.linalg.svd(lin, compute_uv=False)
            if sv[1] < 1e-6 or sv[0] / sv[1] > s.max_anisotropy:
                return _reject(9, locals())
            if s.face_affine is not None and _shape_off(lin, s) > s.known_shape_tol:
                return _reject(16, locals())
            side = 2 * math.sqrt(sv[0] * sv[1])
            # Pips are circles on the face: their ellipses follow the same foreshortening.
            if d >= 6:
                mis = _tensor_off(lin @ lin.T, cov)
                if mis > s.max_ellipse_mismatch:
                    return _reject(10, locals())
                layout_score *= 1 - 0.4 * mis / s.max_ellipse_mismatch
            lins = [lin]
        else:
            side = 2 * float(np.linalg.norm(xy - centre, axis=1).max()) * math.sqrt(2)
            if s.die_side_px and s.face_affine is not None:  # a flat face of known shape:
                lins = [_flat_diag_lin(xy, centre, s)]  # its one square through the pips
            else:
                lins = _diag_candidates(xy, cov)
                if s.die_side_px:  # the other diagonal too: the face is a die of known size
                    lins = [m for m in lins if s.known_side[0] <= 2 * math.sqrt(
                        abs(np.linalg.det(m))) / s.die_side_px <= s.known_side[1]]
                    if not lins:
                        return _reject(11, locals())
        if s.die_side_px:
            if not (s.known_side[0] <= side / s.die_side_px <= s.known_side[1]) or (
                    d > s.known_max_pip * s.die_side_px):
                return _reject(11, locals())
        else:
            lo = s.side_per_pip[0] if n >= 4 else s.diag_side_per_pip
            if n in s.diag_big_pips and s.diag_side_per_pip_big <= side / d < lo:
                big_pips = True  # checked below: no like pip on its square
            elif not (lo <= side / d <= s.side_per_pip[1]):
                return _reject(11, locals())
        exps = [_expected_extent(m, dirs) for m in lins]
        max_r = max(e.max() for e in exps) * s.ray_range[1] + 2
        near = (np.linalg.norm(p.xy - centre, axis=1) < max_r + p.d) & (p.d < 2 * d)
        ext, _ = _ray_extent(chans[2], centre, p.xy[near], p.d[near], colour, contrast,
                             max_r, s)
        exts = [ext] * len(exps)
        inner = s.ray_range[0] * min(s.face_scales)
        if s.thin_mark is not None and n >= 4 and s.die_side_px is None and np.any(
                ext < inner * max(e.min() for e in exps)):
            # Rays stopped well inside the face on a thin mark (the table showing through a
            # translucent die, a scratch) go on past it there; a thin mark at the border (a
            # seam between touching dice) still ends them.
            ext_t, _ = _ray_extent(chans[2], centre, p.xy[near], p.d[near], colour, contrast,
                                   max_r, s, thin=s.thin_mark * d)
            lims = [inner * e for e in exps]
            exts = [np.where((ext < lim) & ~(ext_t < lim), ext_t, ext) for lim in lims]
        scores = [_border_score(x, e, s) for x, e in zip(exts, exps, strict=True)]
        net = np.array([g - e for g, e in scores])
        # Among the frames that fit the border about best, the one with the cleanest interior.
        best = [k for k in range(len(lins)) if net[k] >= net.max() - 0.07]
        darker = 1.0
        if s.see_through_darker is not None and n >= 4 and lin is not None and (
                r <= s.see_through_residual) and not p.dark[idx].any() and not (
                _pip_above(p, idx, centre, lin, d, s)):
            darker = s.see_through_darker  # light pips: the table seen through the face
        devs = [_interior_dev(chans[2], centre, lins[k], xy, p.d[idx], colour, contrast, s,
                              darker) for k in best]
        k = best[int(np.argmin(devs))]
        bad = min(devs)
        good, early = scores[k]
        ext = exts[k]
        face_score = good - early
        need = s.min_face_rays[0 if n <= 3 else 1]
        if (good < need or early > s.max_early_rays) and s.side_run_pips is not None and \
                s.side_run_pips[0] <= n <= s.side_run_pips[1] and not s.die_side_px and (
                    s.side_run_dark is None or float(colour.max()) <= s.side_run_dark) and \
                (squash := _squash_axis(cov, d, s)) is not None:
            e2 = _side_run_mirrored(ext, exps[k], dirs, s, squash)
            if e2 is not None:
                g2, r2 = _border_score(e2, exps[k], s)
                if g2 >= need and r2 <= s.max_early_rays:
                    good, early, ext = g2, r2, e2
                    face_score = good - early
        if good < need or early > s.max_early_rays:
            return _reject(12, locals())
        if bad > s.max_interior_dev:
            return _reject(13, locals())
        # A pip where this layout has none: a 5 whose centre pip was missed is no 4.
        ci = int(np.bincount(p.chan[idx]).argmax())
        if _pip_at_empty_spot(chans[ci], centre, lins[k], n, d, float(median(p.face[idx])),
                              float(median(p.level[idx])), s.empty_spot_share):
            return _reject(15, locals())
        # A pip candidate like these inside the face's square (for 2-3 pips: the square of
        # their diagonal) but not in the group: perhaps a part of a bigger face (one column
        # of a 6 reads as a 3) whose other pips were not all found. Doubted, not dropped.
        if big_pips:  # no like pip round it out to `diag_big_clear` x its corner pips'
            # distance (in any frame: the face's shape is a guess for a 3)
            r_corner = float(np.linalg.norm(xy - centre, axis=1).max())
            if _extra_pip_inside(p, idx, centre, np.eye(2) * r_corner, d, contrast, s,
                                 s.diag_big_clear[0], s.diag_big_clear[1]):
                return _reject(22, locals())
        if _extra_pip_inside(p, idx, centre, lins[0] if n <= 3 else lins[k], d, contrast, s):
            notes.append(f"a pip like its own lies on its face beside the {n} read; "
                         "part of a bigger face? check it")
        lin = lins[k]
        area = float(abs(np.linalg.det(lin)) * 4)
        fe = ext
    con_score = min(1.0, contrast / 60) * 0.3 + 0.7
    conf = float(np.clip(layout_score * (0.5 + 0.5 * face_score) * con_score, 0, 1))
    return Face(value=n, center=np.asarray(centre, float), pips=list(map(int, idx)),
                confidence=conf, extent=fe, area=area, lin=lin, colour=colour,
                notes=notes, shape_measured=n >= 4 or (n == 1 and d >= 6))


_UP, _RIGHT = np.array([0.0, -1.0]), np.array([1.0, 0.0])


def _above_frame(p: Pips, centre: np.ndarray, lin: np.ndarray):
    """Each pip candidate's place from a face's centre, (along up, along right) in photo
    pixels ((N,) each), with the face's half extents up and right (`_expected_extent`):
    where `_ones_above` and `_pip_above` look for a top face's 1 above it."""
    e_up = float(_expected_extent(lin, _UP[None])[0])
    e_rt = float(_expected_extent(lin, _RIGHT[None])[0])
    v = p.xy - centre
    return v @ _UP, v @ _RIGHT, e_up, e_rt


def _pip_above(p: Pips, idx: np.ndarray, centre: np.ndarray, lin: np.ndarray, d: float,
               s: DiceSettings) -> bool:
    """Whether a pip candidate of the face's polarity and about its pip size
    (`above_one_pip`) lies right above the face (`above_one_reach` beyond its upper edge,
    `above_one_lateral` aside, x its half width): the 1 of a top face whose side face this
    may be (`_ones_above`'s place)."""
    along, lateral, e_up, e_rt = _above_frame(p, centre, lin)
    hi = s.above_one_reach[1]
    ok = (along > s.see_through_above * e_up) & (along < e_up + hi * e_rt) & (
        np.abs(lateral) < s.above_one_lateral * e_rt) & (p.dark == p.dark[idx[0]]) & (
        p.d > s.above_one_pip[0] * d) & (p.d < s.above_one_pip[1] * d)
    ok[idx] = False
    return bool(ok.any())


def _subset_faces(members: np.ndarray, p: Pips, chans, s: DiceSettings,
                  budget: list[int], min_pips: int = 1) -> list[Face]:
    """Faces hidden in a group that does not fit as a whole (a top face linked with the pips
    of its side faces or of a touching die): try compact subsets of `min_pips` to 6 pips
    around each pip, keep those that pass as faces, then choose non-overlapping ones, bigger
    first."""
    xy = p.xy[members]
    m = len(members)
    dist = np.linalg.norm(xy[:, None] - xy[None], axis=2)
    reach = s.max_link * float(median(p.d[members]))
    seen: set[frozenset] = set()
    found: list[Face] = []
    tried = 0
    for i in range(m):
        nbr = [int(j) for j in np.argsort(dist[i]) if j != i and dist[i, j] <= reach]
        nbr = nbr[: s.subset_neighbours]
        for k in range(min(5, len(nbr)), min_pips - 2, -1):
            for comb in itertools.combinations(nbr, k):
                key = frozenset((i, *comb))
                if key in seen:
                    continue
                seen.add(key)
                sub = members[sorted(key)]
                if len(sub) >= 2:
                    if dist[np.ix_(sorted(key), sorted(key))].max() > reach:
                        continue
                    if fit_layout(p.xy[sub])[0] > s.max_residual:
                        continue
                tried += 1
                budget[0] -= 1
                if tried > s.max_subsets or budget[0] < 0:
                    break
                f = read_group(sub, p, chans, s)
                if f is not None:
                    found.append(f)
    return _pick_faces(found)


def _pick_faces(found: list[Face]) -> list[Face]:
    """Non-overlapping faces (no pip shared, no centre on another's face), bigger and
    surer first."""
    found = sorted(found, key=lambda f: (len(f.pips), f.confidence), reverse=True)
    used: set[int] = set()
    out = []
    for f in found:
        if used & set(f.pips):
            continue
        if any(np.linalg.norm(f.center - g.center) < 0.5 * math.sqrt(g.area) for g in out):
            continue
        out.append(f)
        used |= set(f.pips)
    return out


@lru_cache(maxsize=4)
def _whole_only(s: DiceSettings) -> DiceSettings:
    """`s` without the rays-down rule, for the parts of a linked group (`_solve`), and
    without the lone pip's second look as a region (`one_region`: a pip linked to others
    is one of them, a 1 is a pip alone; the balls of a Hop la bille card, session 18):
    made once per settings (`replace` costs about 70 us, and `_solve` splits groups of 2+
    pips many times a photo)."""
    return replace(s, open_below_weight=None, one_region=None, one_side_arc=None)


def _solve(members: np.ndarray, p: Pips, chans, s: DiceSettings, budget: list[int],
           depth: int = 0, later: list | None = None, whole_s: DiceSettings | None = None
           ) -> list[Face]:
    """Faces from one linked group, splitting it along weak links or searching its subsets
    when it does not fit as one face. `later`: a list the whole groups are put on (with
    their settings) whose split left pips unread (`_split_rest`). `whole_s`: the settings
    of the whole group (a part above the rest of its group reads with them)."""
    if len(members) <= 6:
        f = read_group(members, p, chans, s)
        if f is not None:
            return [f]
    whole_s = whole_s or s
    if depth == 0 and len(members) > 1 and (s.open_below_weight is not None
                                            or s.one_region is not None):
        # (only a whole linked group: rays down from a part of a bigger face, a pair of a
        # 4's pips, run over the rest of that face and meet nothing; a lone pip ends below)
        s = _whole_only(s)
    out: list[Face] = []
    if depth < 2 and 1 < len(members) <= s.max_split_group:
        strict = (0.7, 0.45)[depth]
        adj = _links(p.take(members), chans, s, strict)
        comps = _components(adj, np.arange(len(members)))
        if len(comps) > 1:
            for c in comps:
                f = None
                if whole_s is not s and _part_above_rest(members, c, p, s):
                    f = read_group(members[c], p, chans, whole_s)
                out += [f] if f is not None else _solve(members[c], p, chans, s, budget,
                                                        depth + 1, whole_s=whole_s)
            out += _leftover_face(members, out, p, chans, s, depth)
            if later is not None and depth == 0 and (
                    s.split_subset_min <= len(members) <= s.max_subset_group) and (
                    len({i for f in out for i in f.pips}) < len(members)):
                later.append((members, s, out))  # searched whole once all groups are read
            return out
    if 2 <= len(members) <= s.max_subset_group:
        out = _subset_faces(members, p, chans, s, budget)
        return out + _leftover_face(members, out, p, chans, s, depth)
    return []


def _part_above_rest(members: np.ndarray, c: np.ndarray, p: Pips, s: DiceSettings) -> bool:
    """Whether a part `c` (indices into `members`) of a split group is a top face of 2-3
    pips with the rest of the group below it (its side faces): every other pip lies down
    the image from the part's centre (within `part_below_cos` of straight down) and no
    nearer to it than `part_below_clear` x the part's span (not the rest of a face the
    part belongs to, round or beside its pips)."""
    if s.part_below_cos is None or not 2 <= len(c) <= 3 or len(c) == len(members):
        return False
    xy = p.xy[members[c]]
    rest = np.delete(p.xy[members], c, axis=0)
    centre = xy.mean(axis=0)
    span = float(np.linalg.norm(xy[:, None] - xy[None], axis=2).max())
    v = rest - centre
    dist = np.linalg.norm(v, axis=1)
    return bool(np.all(dist >= s.part_below_clear * span) and np.all(
        v[:, 1] >= s.part_below_cos * dist))


def _split_rest(later: list, p: Pips, chans, budget: list[int]) -> None:
    """Faces of 4-6 pips a split cut apart. A linked group that does not read whole is
    split along its weaker links (`_solve`), but at a slant a top face's pips are small and
    squashed and link weakly to one another, so the split can cut one of them off (with a
    side face's pips). Where the split's faces left pips of the group unread, the whole
    group's compact subsets are searched too, with the photo's budget left once every group
    is read (`later`: (members, settings, the group's face list, changed in place)); a 2 or
    3 found so is not taken (a diagonal of a bigger face as often as a face), nor a face
    under `split_subset_conf`, nor a 6 whose columns run on (`_column_runs_on`). The 2-3
    pips the new faces leave are read as one face again (`_leftover_face`: a slanted die's
    top 3 beside its side face's 5)."""
    for members, s, out in later:
        if budget[0] <= 0:
            return
        sub = [f for f in _subset_faces(members, p, chans, s, budget, s.split_subset_min)
               if f.confidence >= s.split_subset_conf and not _column_runs_on(f, p, s)]
        if sub:  # (and the group's pips none of its faces now took: `_leftover_face`)
            picked = _pick_faces(out + sub)
            out[:] = picked + _leftover_face(members, picked, p, chans, s, 0)


def _grown_faces(faces: list[Face], adj: np.ndarray, p: Pips, chans, s: DiceSettings
                 ) -> list[Face]:
    """Linked groups completed by a pip that links to none of its face's other pips: a pip
    merged with a glare spot or a shadow (it measures larger and of another shape), or one
    dimmed or shaded (contrast over `max_contrast_ratio` from theirs). A candidate linked to
    nothing, of the group's polarity and channel, within reach of its pips, up to
    `grow_pip_size` x their diameter, within `grow_contrast_ratio` of their contrast, of
    their ring colour and paint (`pip_hue`), makes with a group of 3 or 5 a 4 or a 6
    (`read_group`); with a group of `grow_corner` sizes (2, 4) a 3 or a 5 whose corner pip it
    is, and, where no face of 2+ pips was read on a group of 3-5 (`grow_drop_one`), a face
    with one of the group's pips left out (a show-through dot linked in). A grown 3 or 5
    has the grown pip at a corner, opposite a pip of the group through the group's centre
    pip (`grow_mirror`): a glare spot or stray dot lies mid-face, where it would make a 4 a
    5 or a 2 a 3. The face replaces the faces on the group's pips."""
    if s.grow_pip_size is None or s.die_side_px or len(p) < 3:
        return faces
    alone = ~adj.any(axis=1)
    if s.pip_hue is not None:  # (one paint, as `_links` asks: a card's dots of two hues)
        col = _sample(chans[2], p.xy)
        hue, sat = _hue_sat(col)
        hue = np.degrees(hue)
        vivid = (sat >= s.pip_hue[0]) & (col.max(axis=1) >= s.pip_hue[2])
    out = list(faces)
    taken: set[int] = set()
    for comp in _components(adj, np.arange(len(p))):
        whole = len(comp) in (3, 5) or len(comp) in s.grow_corner  # (comp + 1 tried)
        mine = set(comp.tolist())
        unread = not any(mine & set(f.pips) for f in faces
                         if len(f.pips) >= 2 and f.confidence >= s.min_confidence)
        drop = s.grow_drop_one and unread and 3 <= len(comp) <= 5
        if len(comp) in s.grow_corner and not unread:  # (a pip of it read as a 1 gives way)
            whole = False
        if not whole and not drop:
            continue
        d = float(median(p.d[comp]))
        con = float(median(p.contrast[comp]))
        dist = np.linalg.norm(p.xy[:, None] - p.xy[comp][None], axis=2).min(axis=1)
        ok = alone & (p.dark == p.dark[comp[0]]) & (p.chan == p.chan[comp[0]]) & (
            dist <= s.max_link * d) & (p.d >= d / s.grow_pip_size) & (
            p.d <= d * s.grow_pip_size) & (p.contrast <= s.grow_contrast_ratio * con) & (
            p.contrast * s.grow_contrast_ratio >= con) & (np.abs(
                p.colour - median(p.colour[comp], axis=0)).mean(axis=1) <= s.max_colour_diff)
        for k in np.nonzero(ok)[0].tolist():
            if k in taken or s.pip_hue is not None and vivid[k] and bool(
                    (vivid[comp] & (np.abs(_hue_diff(hue[comp], hue[k])) > s.pip_hue[1])).any()):
                continue
            tries = ([comp] if whole else []) + (
                [np.delete(comp, j) for j in range(len(comp))] if drop else [])
            g = None
            for base in tries:
                odd = len(base) % 2 == 0  # (base + k: a 3 or 5, with a centre pip)
                new = odd and len(comp) not in (3, 5) or len(base) < len(comp)
                if new and odd and not _mirrors(p.xy[k], p.xy[base], s.grow_mirror):
                    continue
                g = read_group(np.sort(np.append(base, k)), p, chans, s)
                if g is None or g.confidence < s.min_confidence or new and g.value in (
                        3, 5) and float(np.abs(np.linalg.solve(
                            g.lin, p.xy[k] - g.center)).max()) <= s.grow_corner_at:
                    g = None  # (the grown pip mid-face: glare, a stray dot)
                    continue
                break
            if g is None:
                continue
            out = [f for f in out if not mine & set(f.pips) and k not in f.pips] + [g]
            taken.add(k)
            break
    return out


def _mirrors(xy: np.ndarray, base: np.ndarray, tol: float) -> bool:
    """Whether point `xy` (2,) lies where a face's corner pip lies opposite another pip of
    `base` (n, 2) through a pip of it as the centre: within `tol` x their spacing of
    2 centre - corner (an affine map, as the face's, keeps midpoints)."""
    c, x = base[:, None], base[None]
    gap = np.linalg.norm(c - x, axis=2)
    off = np.linalg.norm(2 * c - x - xy, axis=2)
    return bool(((off <= tol * gap) & (gap > 0)).any())


def _leftover_face(members: np.ndarray, faces: list[Face], p: Pips, chans, s: DiceSettings,
                   depth: int) -> list[Face]:
    """The pips of a whole linked group that none of its faces took, read as one face (two
    touching dice of one colour: a pip of the one linked across the unseen seam to the
    other's pips is left out when the other is read, and its own face's other pips were
    split off alone): at most `leftover_pips`, none on a face read."""
    if depth > 0 or not faces or not s.leftover_pips:
        return []
    used = {i for f in faces for i in f.pips}
    rest = np.array([i for i in members.tolist() if i not in used], dtype=members.dtype)
    if not 2 <= len(rest) <= s.leftover_pips:
        return []
    f = read_group(rest, p, chans, s)
    if f is None or _on_a_face(f.center, faces):
        return []
    return [f]


def _ones_above(faces: list[Face], p: Pips, chans, s: DiceSettings) -> list[Face]:
    """One-pip faces over the read faces. A die's top face lies right above its side face,
    and in a slanted view the top's border below meets its side faces (of its own material,
    shaded), so the general one-pip test (a square border, the pip in its middle) fails for
    most 1s seen from the side, while their side faces are read (false dice). A lone pip
    candidate not taken by any face, above a read face (2+ pips) where its die's top face or
    the top of a die just behind lies (`above_one_reach`, `above_one_lateral`), on the same
    material (ring chroma within `alike_chroma`), about that face's pip size
    (`above_one_pip`), with no like pip on its own face (the middle pip of a 3 whose corners
    were missed), is read as a 1 with the settings `above_one`: the face below vouches for
    a die there. `_top_faces` then tells which of the two is a side face."""
    if s.above_one is None or not faces or s.die_side_px:  # (the board's dice: spot reads)
        return []
    used = {i for f in faces for i in f.pips}
    loose = replace(s, **dict(s.above_one), one_side_arc=None)  # (its rays are loose already)
    out: list[Face] = []
    tried: set[int] = set()
    pip_chroma = _chroma(p.colour)
    for f in faces:
        if len(f.pips) < 2:
            continue
        along, lateral, e_up, e_rt = _above_frame(p, f.center, f.lin)
        lo, hi = s.above_one_reach
        ok = (along > e_up + lo * e_rt) & (along < e_up + hi * e_rt) & (
            np.abs(lateral) < s.above_one_lateral * e_rt) & (
            p.d > 2 * e_rt / s.one_side_per_pip[1]) & (p.d < 2 * e_rt / s.one_side_per_pip[0])
        d_f = float(median(p.d[f.pips]))
        ok &= (p.d > s.above_one_pip[0] * d_f) & (p.d < s.above_one_pip[1] * d_f)
        ok &= np.abs(pip_chroma - _chroma(f.colour)).max(axis=1) < s.alike_chroma
        for i in np.nonzero(ok)[0].tolist():
            if i in used or i in tried:
                continue
            tried.add(i)
            g = read_group(np.array([i]), p, chans, loose)
            if g is None or g.confidence < s.min_confidence:
                continue
            # no pip like it on its face (the middle pip of a 3 whose corners were missed)
            if not _like_pip_near(p, i, p.d[i], float(np.nanmedian(g.extent)), s) and not (
                    _on_a_face(g.center, faces + out)):
                out.append(g)
    return out


def _ones_by_kin(tops: list[Face], faces: list[Face], p: Pips, chans, s: DiceSettings
                 ) -> list[Face]:
    """One-pip faces sized by the photo's other dice. Alone, a 1 has only its border to
    show it is a die face, and that border is often not square (seen slanted, it runs on
    into the die's side faces; on a dark die into its shadow). The dice of one photo are
    of one size on one table: a read top face of 2+ pips near the lone pip (within
    `kin_one_reach` of its side), of its material (ring chroma within `alike_chroma`,
    brightness within `kin_one_light`), its pip polarity and about its pip size
    (`kin_one_pip`) gives the 1's face square, and the pip is read the way a die of known
    size is (`_known_one`: the border met where that square puts it at some turn, its
    interior face colour, the other eight pip spots empty; no like pip on it, no die
    surface right above it). Not tried: pips that a face took, pips on a read face's die
    (`_on_die_of`), and pips whose ellipse has another foreshortening than the kin face."""
    if s.kin_one_reach is None or s.die_side_px:
        return []
    refs = [f for f in tops if len(f.pips) >= 2]
    if not refs:
        return []
    used = np.zeros(len(p.xy), bool)
    used[[i for f in faces for i in f.pips]] = True
    # every pip against every kin face at once: (pips, refs) tables of the tests
    side = np.sqrt([f.area for f in refs])  # (area: 4 |det lin|)
    dist = np.linalg.norm(p.xy[:, None] - np.array([f.center for f in refs])[None], axis=2)
    d_f = np.array([float(median(p.d[f.pips])) for f in refs])
    light = p.colour.sum(axis=1)[:, None] / np.maximum(
        np.array([float(f.colour.sum()) for f in refs]), 1.0)[None]
    chroma_off = np.abs(_chroma(p.colour)[:, None] - np.array(
        [_chroma(f.colour) for f in refs])[None]).max(axis=2)
    ok = (dist <= s.kin_one_reach * side) & (dist >= 0.5 * side) & (
        p.dark[:, None] == np.array([p.dark[f.pips[0]] for f in refs])[None]) & (
        p.d[:, None] > s.kin_one_pip[0] * d_f) & (p.d[:, None] < s.kin_one_pip[1] * d_f) & (
        light > s.kin_one_light[0]) & (light < s.kin_one_light[1]) & (
        chroma_off < s.alike_chroma)
    ok &= ~used[:, None] & (p.contrast >= s.one_min_contrast)[:, None]
    dirs = _ring_points(s.rays)
    out: list[Face] = []
    known_by: dict[int, DiceSettings] = {}
    for i in np.nonzero(ok.any(axis=1))[0].tolist():
        xy, d = p.xy[i], float(p.d[i])
        if _on_a_face(xy, faces + out):
            continue
        # A pip is round on its face: its ellipse has the face's foreshortening (a pip of a
        # side face is squashed along another direction than the top faces). The nearest
        # kin face whose foreshortening fits (the nearest may be a die turned or read
        # otherwise; `kin_one_any_fit`), else only the nearest.
        order = [k for k in np.argsort(dist[i]).tolist() if ok[i, k]]
        if d >= 6:
            fit = [k for k in order if _tensor_off(
                refs[k].lin @ refs[k].lin.T, p.cov[i]) <= s.max_ellipse_mismatch]
            if not fit or (fit[0] != order[0] and not s.kin_one_any_fit):
                continue
            k = fit[0]
        else:
            k = order[0]
        f, f_side = refs[k], float(side[k])
        # Not on a read face's die: its side faces lie round its top face (within
        # `kin_one_apart` half sides in that face's frame) and below it (up to a side more).
        if any(_on_die_of(xy, h, s) for h in faces):
            continue
        colour = p.colour[i]
        contrast = float(p.contrast[i])
        if not _face_round_pip(chans, xy, d, colour, contrast, s):
            continue
        known = known_by.get(k)  # (one settings copy per kin face: `replace` is slow)
        if known is None:
            known = known_by[k] = replace(s, die_side_px=f_side,
                                          face_affine=tuple(f.lin.ravel().tolist()),
                                          min_face_rays_one=s.kin_one_rays)
        g = _known_one(np.array([i]), p, chans, known, xy, d, contrast, colour, dirs)
        if g is None or g.confidence < s.min_confidence:
            continue
        # alone on its face (no pip like it there: a 3 whose corner pips were missed) and
        # no die surface right above it (a side face whose top was not read)
        e = float(np.nanmedian(g.extent)) if np.isfinite(g.extent).any() else f_side / 2
        if not _like_pip_near(p, i, d, e, s) and not _face_above(
                g, chans[2], np.array([0.0, -1.0]), s):
            out.append(g)
    return out


def _on_die_of(xy: np.ndarray, h: Face, s: DiceSettings) -> bool:
    """Whether image point `xy` lies on the die whose face `h` is: within `kin_one_apart`
    of its half sides round it (its side faces), or below it by up to its border distance
    plus a side (a side face seen from low), not more than a half side aside."""
    v = xy - h.center
    if float(np.abs(np.linalg.solve(h.lin, v)).max()) < s.kin_one_apart:
        return True
    e_dn = float(_expected_extent(h.lin, np.array([[0.0, 1.0]]))[0])
    e_rt = float(_expected_extent(h.lin, np.array([[1.0, 0.0]]))[0])
    return bool(0 < v[1] < e_dn + 2 * e_rt and abs(v[0]) < e_rt)


def _face_round_pip(chans, xy: np.ndarray, d: float, colour: np.ndarray, contrast: float,
                    s: DiceSettings) -> bool:
    """Whether a lone pip has face colour all around it at 0.9 pip diameters, or at any
    of `one_ring_radii` (all but one of 16 samples within `ray_edge` of its ring colour):
    the cheap test of a 1."""
    for r in s.one_ring_radii:
        ring = _sample(chans[2], xy + r * d * _RING16).astype(np.float32)
        dev = np.abs(ring - colour).max(axis=1) > max(s.ray_edge_px[0], s.ray_edge * contrast)
        if dev.sum() <= 1:
            return True
        if s.one_ring_glare and d >= s.one_ring_glare_px and _glare_arc(
                dev, (ring - colour).sum(axis=1) > 0, s.one_ring_glare):
            return True  # a highlight hugging the pip on one side
    return False


def _glare_arc(dev: np.ndarray, bright: np.ndarray, most: int) -> bool:
    """Whether the ring's deviating samples (bool (16,)) are one run of at most `most`
    brighter samples (a highlight), plus at most one other."""
    run = dev & bright
    k = int(np.count_nonzero(run))
    if k == 0 or k > most or int(np.count_nonzero(dev & ~bright)) > 1:
        return False
    starts = np.count_nonzero(run & ~np.roll(run, 1))  # (circular) runs of bright samples
    return starts == 1


def _like_pip_near(p: Pips, i: int, d, half: float, s: DiceSettings) -> bool:
    """Whether a pip candidate like pip `i` (its polarity, within `max_size_ratio` of its
    diameter `d`) lies within `above_one_alone` of the half side `half` of its one-pip face:
    then it is no 1 alone (a 3 whose corner pips were missed)."""
    r = np.linalg.norm(p.xy - p.xy[i], axis=1)
    like = (r > 0.75 * d) & (r < s.above_one_alone * half) & (p.dark == p.dark[i]) & (
        p.d * s.max_size_ratio > d) & (p.d < s.max_size_ratio * d)
    return bool(like.any())


def _row_runs_on(f: Face, p: Pips, s: DiceSettings, on_dice: frozenset | None = None
                 ) -> bool:
    """Whether face `f` (a 2 or 3 of `row_values`) is part of a row of dots: a pip
    candidate like its pips (their polarity, within `max_size_ratio` of their diameter,
    `row_contrast` of their contrast, `row_colour_diff` of their ring colour) lies on the
    row's line half a step beyond an end pip, half-way between two of its pips, or (a 3;
    a 2 only with `on_dice` given) one step beyond an end pip (within `row_pip_tol` of the
    step, half of it for the half steps). A 2's step is its pip spacing, and one step
    beyond its corner pip lies a pip of a die touching it corner to corner (or edge to edge
    shifted half a side): there a dot of `on_dice` (the pips of the read faces of 3+ pips)
    does not run the row on."""
    if s.row_pip_tol is None or f.value not in s.row_values:
        return False
    idx = np.asarray(f.pips)
    xy = p.xy[idx]
    dd = np.linalg.norm(xy[:, None] - xy[None], axis=2)
    a, b = np.unravel_index(int(np.argmax(dd)), dd.shape)
    step = (xy[b] - xy[a]) / (len(idx) - 1)
    like = _like_dots(idx, p, s)
    # one step beyond the ends (a 2's: not onto a read die's pip, a touching die's), half
    # a step beyond, half-way between the pips (the face took every other dot): the row
    # runs on at the face's spacing or at half of it
    full = [[xy[a] - step, xy[b] + step]] if f.value == 3 or on_dice is not None else []
    at = np.concatenate(full + [[xy[a] - 0.5 * step, xy[b] + 0.5 * step],
                                xy[a] + (np.arange(len(idx) - 1)[:, None] + 0.5) * step])
    tol = s.row_pip_tol * float(np.linalg.norm(step)) * np.array(
        [1] * (2 * len(full)) + [0.5] * (len(at) - 2 * len(full)))
    hit = like[None] & (np.linalg.norm(p.xy[None] - at[:, None], axis=2) < tol[:, None])
    if f.value == 2 and on_dice:
        hit[:2, list(on_dice)] = False
    return bool(hit.any())


def _dots_round(f: Face, p: Pips, s: DiceSettings) -> bool:
    """Whether the border rays of a one-pip face `f` end on like dots (`dots_round`): its
    pip's polarity, within `dots_round_size` x its diameter either way, the ray's end within
    `dots_round_gap` x its diameter of the dot's rim, on `dots_round` of the rays or more:
    an empty patch ringed by dots (print), not a die's face, which ends at its own edge."""
    if s.dots_round is None or len(f.pips) != 1 or len(p) < 2:
        return False
    i = f.pips[0]
    d = float(p.d[i])
    like = (p.dark == p.dark[i]) & (p.d * s.dots_round_size >= d) & (
        p.d <= s.dots_round_size * d)
    like[i] = False
    found = ~np.isnan(f.extent)
    if not like.any() or not found.any():
        return False
    ends = f.center + _ring_points(len(f.extent))[found] * f.extent[found, None]  # (k, 2)
    gap = np.linalg.norm(p.xy[like][None] - ends[:, None], axis=2) - p.d[like][None] / 2
    on = np.count_nonzero((gap <= s.dots_round_gap * d).any(axis=1))
    return bool(on >= s.dots_round * len(f.extent))


def _printed(f: Face, p: Pips, s: DiceSettings, on_dice: frozenset | None,
             chans) -> bool:
    """Whether face `f` is print, not a die's face: a row of dots that runs on past it
    (`_row_runs_on`, 2s and 3s), a lone pip ringed by like dots (`_dots_round`, 1s) or
    pips of two paints (`_paint_unlike`, 2s and 4-6s; `chans` as `_channels` makes them).
    Asked of every face `read_dice` reports, the 1s found later included."""
    return _row_runs_on(f, p, s, on_dice) or _dots_round(f, p, s) or _paint_unlike(
        f, p, chans, s)


_PAINT_GRID = np.stack(np.meshgrid(np.linspace(-1, 1, 5), np.linspace(-1, 1, 5)),
                       axis=-1).reshape(-1, 2)  # (25, 2): a pip's middle, sampled


def _paint_unlike(f: Face, p: Pips, chans, s: DiceSettings) -> bool:
    """Whether the pips of face `f` (a 2, or 4-6 pips) are of unlike paint: the directions
    in BGR from each pip's ring colour to its middle (the median of `paint_spot` x its
    diameter round its centre, the blurred BGR) differ by more than `paint_turn` (a 2) or
    `paint_turn_many` (4-6) degrees for some two pips. Not for a die of known size (the
    board's crops)."""
    most = s.paint_turn if f.value == 2 else s.paint_turn_many if f.value >= 4 else None
    if most is None or s.die_side_px:
        return False
    idx = np.asarray(f.pips)
    pts = p.xy[idx, None] + _PAINT_GRID[None] * (s.paint_spot * p.d[idx])[:, None, None]
    vec = np.median(_sample(chans[2], pts).astype(np.float32), axis=1) - p.colour[idx]
    n = np.linalg.norm(vec, axis=1)
    if n.min() < s.paint_min:
        return False
    u = vec / n[:, None]
    return bool((u @ u.T).min() < math.cos(math.radians(most)))


def _like_dots(idx: np.ndarray, p: Pips, s: DiceSettings) -> np.ndarray:
    """(N,) bool: the pip candidates other than `idx` alike to them as printed dots are:
    their polarity, within `max_size_ratio` of their diameter, `row_contrast` of their
    contrast, `row_colour_diff` of their ring colour."""
    d = float(np.median(p.d[idx]))
    con = float(np.median(p.contrast[idx]))
    # (printed dots are alike; a side face's pips below a slanted top face lie in its
    # shade: another ring colour, less contrast)
    like = (p.dark == p.dark[idx[0]]) & (p.d * s.max_size_ratio > d) & (
        p.d < s.max_size_ratio * d) & (p.contrast < s.row_contrast * con) & (
        p.contrast * s.row_contrast > con) & (np.abs(
            p.colour - np.median(p.colour[idx], axis=0)).mean(axis=1) <= s.row_colour_diff)
    like[idx] = False
    return like


def _column_runs_on(f: Face, p: Pips, s: DiceSettings) -> bool:
    """Whether a 6's columns of three run on: a dot like its pips (`_like_dots`) one pip
    step beyond a column's end (face coordinates (+-0.5, +-1), within `row_pip_tol` of
    the step). That spot is the face's border, where no pip of its own lies and a touching
    die's pips lie half a side farther: a grid of dots (text's colons), not a die."""
    if f.value != 6 or s.row_pip_tol is None:
        return False
    like = _like_dots(np.asarray(f.pips), p, s)
    if not like.any():
        return False
    ends = np.array([[-0.5, -1.0], [0.5, -1.0], [-0.5, 1.0], [0.5, 1.0]])
    at = f.center + ends @ f.lin.T
    tol = s.row_pip_tol * float(np.linalg.norm(f.lin @ [0.0, 0.5]))
    return bool((np.linalg.norm(p.xy[like][None] - at[:, None], axis=2) < tol).any())


def _on_a_face(xy: np.ndarray, faces: list[Face]) -> bool:
    """Whether image point `xy` lies within half a side of a face's centre."""
    return any(np.linalg.norm(xy - h.center) < 0.5 * math.sqrt(h.area) for h in faces)


# --------------------------------------------------------------------------- top faces

def _nadir(faces: list[Face], aniso: list[float], shape: tuple[int, int], s: DiceSettings
           ) -> tuple[np.ndarray, bool, bool]:
    """Where the camera's nadir (the vanishing point of the vertical, below the table) lies
    in the image, whether the photo is slanted, and whether it is known to be taken from
    above. A camera tilted by t from straight down sees a flat square squashed by cos t
    (the median foreshortening of the 4-6 pip faces, mostly top faces) and has its nadir
    f tan t below the image centre (a phone or webcam tilted is held upright; f is about
    `focal_long` of the long side). From above (`tilt_aniso`) the roll is anything and the
    nadir is the image centre; without a 4-6 pip face it is taken there too. `aniso`: each
    face's `_aniso`."""
    h, w = shape
    centre = np.array([w / 2, h / 2], float)
    square = [a for f, a in zip(faces, aniso, strict=True) if len(f.pips) >= 4]
    if not square:
        return centre, False, False
    a = float(np.median(square))
    if a <= s.tilt_aniso:
        return centre, False, True
    return (centre + [0.0, s.focal_long * max(w, h) * math.sqrt(a * a - 1)],
            a > s.slanted_aniso, False)


def _aniso(lin: np.ndarray) -> float:
    """A face map's anisotropy: its long over its short extent (by SVD)."""
    sv = np.linalg.svd(lin, compute_uv=False)
    return sv[0] / max(sv[1], 1e-9)


def _up_at(xy: np.ndarray, nadir: np.ndarray, shape: tuple[int, int], s: DiceSettings
           ) -> np.ndarray | None:
    """Unit image direction of the vertical (up) at a point: away from the nadir, or
    `up_dir` where a camera model gives it; None right under the camera."""
    if s.up_dir is not None:
        return np.array(s.up_dir, float)
    v = xy - nadir
    n = float(np.linalg.norm(v))
    return None if n < s.under_camera * max(shape) else v / n


def _top_faces(faces: list[Face], shape: tuple[int, int], s: DiceSettings,
               bgr: np.ndarray | None = None) -> tuple[list[Face], list[str]]:
    """Drop side faces. Two accepted faces that share an edge are one die's top and side
    face: a much smaller one is the side, unless the photo is taken from low (no measured
    face looks square) and it lies above a face of about its width (`small_top_above`,
    `same_width`): then it is the top; otherwise the side is the one lying towards the
    camera's nadir (`_nadir`). Two faces that both look square (4-6 pips, so their shape is
    measured) are two dice: a die's top and side face are at right angles and cannot both
    face the camera. Two faces alike in foreshortening and size are two dice only where
    their squares also have one shape (`alike_tensor_off`: top faces on one table lie in
    one plane; not asked where the face with fewer pips has a guessed square: a 2, a 3, a 1
    with a tiny pip) or their colours differ (`alike_chroma`: one die is one material); but
    two of one chroma lit apart (`lit_apart`) that lie one along the vertical from the other
    and are as wide across it (`same_width`) are one die's top and side. The
    pairs are resolved from the top down: a face lying below side faces only is no side
    face but the top face of a die in front, and the faces below it are its sides. A face
    with die-coloured surface right above it (along the vertical) is a side face."""
    warnings: list[str] = []
    aniso = [_aniso(f.lin) for f in faces]
    nadir, slanted, from_above = _nadir(faces, aniso, shape, s)
    # Taken from low: slanted, and no face whose shape is measured looks square (a top face
    # seen from nearly above: then side faces are slivers).
    low = slanted and not any(f.shape_measured and a < s.square_seen_aniso
                              for f, a in zip(faces, aniso, strict=True))
    surf_of: dict[int, bool] = {}

    def surf(k: int) -> bool:  # (`_surface_side` once a face, and only for the faces asked:
        # the upper faces of `below` and the faces left as tops; `bgr` given)
        if k not in surf_of:
            surf_of[k] = _surface_side(faces[k], faces, bgr, nadir, shape, s, slanted,
                                       from_above)
        return surf_of[k]

    side = np.zeros(len(faces), bool)
    below: list[tuple[int, int]] = []  # (upper, lower) face pairs: the lower is its side
    order = sorted(range(len(faces)), key=lambda i: -faces[i].area)
    for a_, i in enumerate(order):
        for j in order[a_ + 1:]:
            fi, fj = faces[i], faces[j]  # fi is the larger
            v = fj.center - fi.center
            dist = float(np.linalg.norm(v))
            u = v / max(dist, 1e-9)
            reach = float(_expected_extent(fi.lin, u[None])[0] + _expected_extent(
                fj.lin, -u[None])[0])
            if dist > s.adjacent * reach:
                continue
            if s.apart_by_table and bgr is not None and min(len(fi.pips), len(fj.pips)) >= 2 \
                    and _table_between(fi, fj, bgr, s):
                continue
            if min(len(fi.pips), len(fj.pips)) >= 4 and max(aniso[i], aniso[j]) < (
                    s.both_square_aniso):
                continue
            mid = 0.5 * (fi.center + fj.center)
            # (slanted: straight up, as the faces' pips place the nadir too roughly to
            # slant the vertical by perspective)
            up = np.array([0.0, -1.0]) if slanted and s.up_dir is None else _up_at(
                mid, nadir, shape, s)
            # > 0: fj lies towards the nadir, so fj is the side (right under the camera a
            # die's sides are slivers anyway: the smaller face)
            toward = 1.0 if up is None else -float(u @ up)
            if slanted and up is not None and _top_seen_low(fi, fj, aniso[j], toward, up, s):
                below.append((j, i))  # the smaller is the top, the larger its side face
                continue
            # A much smaller face is the side face, unless in a photo taken from low it lies
            # above the larger one: under 45 degrees a die's side face looks larger than its
            # top face.
            if fj.area < s.side_area_ratio * fi.area and (
                    not low or toward > -s.small_top_above or not _same_width(fi, fj, up, s)
                    ) and (s.side_edge_ratio is None or _same_width(
                        fi, fj, u, s, s.side_edge_ratio)):
                if s.small_top_over_side is not None and slanted and bgr is not None and (
                        len(fj.pips) <= 3 and toward <= -s.small_top_over_side) and surf(
                        i) and not surf(j):
                    below.append((j, i))  # the smaller, above a side face, is its top
                    continue
                side[j] = True
                continue
            # Two top faces of touching dice look alike; a top and a side face do not.
            # (the shape test is not asked where the face with fewer pips has a guessed
            # square: a 2, a 3, a 1 with a tiny pip; a measured 1 beside a 2 is asked)
            few = min((fi, fj), key=lambda f: (len(f.pips), f.shape_measured))
            shape_ratio = aniso[i] / aniso[j]
            chroma_off = float(np.abs(_chroma(fi.colour) - _chroma(fj.colour)).max())
            # One chroma lit apart is one die's top and side only where they lie as those
            # do: one along the vertical from the other, as wide across it (two touching
            # dice side by side, one in a shadow, are two tops).
            lit_side = chroma_off <= s.alike_chroma and up is not None and abs(
                toward) >= s.side_toward and _same_width(fi, fj, up, s) and _lit_apart(
                fi, fj, s)
            # (in a photo not from above, a guessed square vouches for no plane: a 1 over
            # its side 3 in a slanted photo looked coplanar by the 3's guess; session 17)
            coplanar = few.shape_measured and (from_above or (
                fi.shape_measured and fj.shape_measured)) and _tensor_off(
                fi.lin @ fi.lin.T, fj.lin @ fj.lin.T) < s.alike_tensor_off
            # Alike but for a guessed square or the colour only, one right below the other
            # in a slanted photo: the lower standing on the table is the upper's side face.
            stands = not coplanar and s.side_on_table is not None and slanted and (
                up is not None and bgr is not None and abs(toward) >= s.side_on_table
                and _same_width(fi, fj, up, s)
                and _on_table(fj if toward > 0 else fi, bgr, up, s))
            # Of plainly different materials (chroma far apart, hues unlike): two dice,
            # however unlike their shapes and sizes (a 1's, 2's or 3's square is a guess).
            if s.unlike_chroma is not None and chroma_off > s.unlike_chroma and not bool(
                    _same_hue(fj.colour[None].astype(np.float32), fi.colour, s)[0]):
                continue
            if max(shape_ratio, 1 / shape_ratio) < s.side_shape_ratio and (
                    fi.area < s.touching_area_ratio * fj.area) and (
                    not few.shape_measured or coplanar or (
                    chroma_off > s.alike_chroma)) and not lit_side and not stands:
                continue
            if toward >= s.side_toward:
                below.append((i, j))
            elif toward <= -s.side_toward:
                below.append((j, i))
            else:
                side[j] = True
                warnings.append(
                    f"die at ({fi.center[0]:.0f}, {fi.center[1]:.0f}): two faces ({fi.value} and "
                    f"{fj.value}) look like its top; read the larger one")
    # A die's side faces lie below its top face, not below one another: a face lying below
    # only side faces is another die's top (in front of them), and its own lower
    # neighbours are its sides. Resolved from the faces with none above them down.
    # A face with its die's surface right above it is a side face itself (`_surface_side`):
    # a face below it lies below no top, it is the top of a die in front
    # (`side_below_side`).
    if s.side_below_side and bgr is not None:
        below = [(i, j) for i, j in below if not (
            surf(i) and _table_between(faces[i], faces[j], bgr, s))]
    uppers: dict[int, set[int]] = {}  # lower face -> the faces it lies below
    for i, j in below:
        uppers.setdefault(j, set()).add(i)
    top = {i for i, _ in below} - uppers.keys()
    lower: set[int] = set()
    while True:
        lower |= {k for k, up in uppers.items() if up & top}
        more = {k for k, up in uppers.items() if k not in top and k not in lower and up <= lower}
        if not more:
            break
        top |= more
    for k in uppers.keys() - top:
        side[k] = True
    for k, f in enumerate(faces):
        if side[k] or bgr is None:
            continue
        if surf(k):
            side[k] = True
            warnings.append(
                f"die at ({f.center[0]:.0f}, {f.center[1]:.0f}): only a side face ({f.value}) "
                "was readable, not its top face; photo it from higher up")
    return [f for k, f in enumerate(faces) if not side[k]], warnings


def _vertical_squash(f: Face, up: np.ndarray) -> float:
    """How much face `f` looks squashed along the vertical's image direction `up`: the
    width across it over the height along it of the ellipse a circle on the face makes."""
    m = f.lin @ f.lin.T
    up = np.asarray(up, float)
    across = np.array([-up[1], up[0]])
    return math.sqrt(float(across @ m @ across) / max(float(up @ m @ up), 1e-9))


def _top_seen_low(big: Face, small: Face, small_aniso: float, toward: float, up: np.ndarray,
                  s: DiceSettings) -> bool:
    """Whether, in a slanted photo, the smaller face `small` is the top of the die whose
    side face is `big`: it lies above it (`toward`: > 0 towards the nadir), about as wide
    across the vertical `up` (they share an edge), and squashed `low_top_squash` x more
    along it. Seen from under 45 degrees a die's top face looks squashed and smaller than
    its side face below, which looks nearly square; a face squashed past `tilt_max_aniso`
    (`small_aniso`: its `_aniso`, as `_note_tilted` measures it) is no top seen from a
    sensible height but a side face seen from above (dice-015's 6 over its top 5, 3.27)."""
    if s.low_top_squash is None or small.area >= big.area or toward > -s.small_top_above:
        return False
    return bool(small_aniso <= s.tilt_max_aniso and _vertical_squash(small, up) >= (
        s.low_top_squash * _vertical_squash(big, up)) and _same_width(big, small, up, s))


def _surface_side(f: Face, faces: list[Face], bgr: np.ndarray, nadir, shape: tuple[int, int],
                  s: DiceSettings, slanted: bool, from_above: bool) -> bool:
    """Whether face `f` has die surface right above it along the vertical (`_face_above`)
    or its top lies up and aside (`_top_aside`): a side face whose top went unread."""
    # (from above, away from the image centre; else straight up: the face maps of
    # 2-3 pip faces are guesses, too unsure for the vertical's perspective slant)
    up = _up_at(f.center, nadir, shape, s) if from_above or s.up_dir is not None \
        else np.array([0.0, -1.0])
    guess = not f.shape_measured and from_above and s.side_check_measured
    return bool(up is not None and ((slanted or not guess and _squashed_upright(
        f, up, s)) and _face_above(
        f, bgr, up, s) or (slanted or from_above and s.aside_from_above) and _top_aside(
        f, bgr, up, s, [g for g in faces if g is not f])))


def _on_table(f: Face, bgr: np.ndarray, up: np.ndarray, s: DiceSettings) -> bool:
    """Whether the table (not the face's die colour) lies right below face `f` along the
    vertical's image direction `up`: a side face stands on the table, while a top face
    seen slanted has its own side face below it."""
    up = np.asarray(up, float)
    below = _beyond(f, np.array([-up[1], up[0]]), -up, 1, 0.0)
    return _die_share(f, bgr, below, s) < s.beside_share


def _table_between(f: Face, g: Face, bgr: np.ndarray, s: DiceSettings) -> bool:
    """Whether table (like neither face's die) lies between faces `f` and `g` on the line
    of their centres, beyond both borders: two dice apart, not one die's faces."""
    v = g.center - f.center
    dist = float(np.linalg.norm(v))
    u = v / max(dist, 1e-9)
    a = float(_expected_extent(f.lin, u[None])[0])
    b = dist - float(_expected_extent(g.lin, -u[None])[0])
    if b - a < s.table_gap_px:
        return False
    pts = f.center + u * np.linspace(a, b, 7)[1:-1, None]
    return _die_share(f, bgr, pts, s) < 0.5 and _die_share(g, bgr, pts, s) < 0.5


def _lit_apart(f: Face, g: Face, s: DiceSettings) -> bool:
    """Whether two faces' brightness ratio lies in `lit_apart`: of one chroma, that is one
    die's top and side face turned differently to the light (the top faces of two dice on
    one table face the light alike); far more apart, two dice (a black and a white one are
    of one chroma too)."""
    if s.lit_apart is None:
        return False
    a, b = float(f.colour.sum()), float(g.colour.sum())
    ratio = max(a, b) / max(min(a, b), 1.0)
    return s.lit_apart[0] < ratio < s.lit_apart[1]


def _same_width(f: Face, g: Face, up: np.ndarray, s: DiceSettings,
                ratio: float | None = None) -> bool:
    """Whether two faces are about as wide (within `ratio`, default `same_width`) across
    the vertical's image direction `up`, as a die's top face and the side face below it
    are (they share an edge)."""
    ratio = s.same_width if ratio is None else ratio
    across = np.array([[-up[1], up[0]]], float)
    r = float(_expected_extent(f.lin, across)[0] / _expected_extent(g.lin, across)[0])
    return 1 / ratio <= r <= ratio


def _squashed_upright(f: Face, up: np.ndarray, s: DiceSettings) -> bool:
    """Whether a face looks foreshortened along the vertical's image direction `up`, as a
    die's side face (or a top face seen from low) does."""
    u, sv, _ = np.linalg.svd(f.lin)
    if sv[1] < 1e-6 or sv[0] / sv[1] < s.side_check_aniso:
        return False
    return abs(float(u[:, 1] @ up)) >= math.cos(math.radians(s.side_check_tilt_deg))


def _pip_shape(f: Face, p: Pips) -> np.ndarray:
    """A face's pips' mean second moments (2, 2), trace-normalised: the ellipse a circle on
    the face looks like (its foreshortening and direction, size aside)."""
    m = p.cov[np.asarray(f.pips, int)].mean(axis=0)
    return m / max(float(np.trace(m)), 1e-9)


def _plane_shapes(xy: np.ndarray, shape: tuple[int, int], s: DiceSettings, tilts: np.ndarray,
                  rolls: np.ndarray) -> np.ndarray:
    """The trace-normalised shape (2, 2) a circle on the table takes at each image point
    xy (n, 2) (working px; `shape` (h, w)) for a pinhole camera of focal length `focal_long`
    x the long side, tilted by each of `tilts` (T,) from straight down and rolled by each
    of `rolls` (R,) (radians): (T, R, n, 2, 2). A ray alpha off the axis along the (rolled)
    vertical meets the table at t + alpha from the vertical: the circle is squashed by
    cos(t + alpha) / cos(alpha) along the vertical."""
    h, w = shape
    f = s.focal_long * max(h, w)
    d = np.asarray(xy, float).reshape(-1, 2) - [w / 2, h / 2]
    sin, cos = np.sin(rolls), np.cos(rolls)
    up = -(np.outer(sin, d[:, 0]) + np.outer(cos, d[:, 1]))  # (R, n): along the rolled up
    alpha = np.arctan(up / f)
    theta = np.clip(tilts[:, None, None] + alpha[None], -1.54, 1.54)  # (88 degrees)
    r2 = (np.cos(theta) / np.cos(alpha)[None]) ** 2  # (T, R, n)
    v = np.stack([sin, cos], -1)  # the rolled vertical, and across it
    u = np.stack([cos, -sin], -1)
    mu = np.einsum("ri,rj->rij", u, u)[None, :, None]
    mv = np.einsum("ri,rj->rij", v, v)[None, :, None]
    return (mu + r2[..., None, None] * mv) / (1 + r2)[..., None, None]


def _camera_plane(shapes: list[np.ndarray], xy: np.ndarray, shape: tuple[int, int],
                  s: DiceSettings) -> tuple[int, float, float]:
    """The camera tilt and roll (radians) that most of the faces' pip shapes (trace-
    normalised (2, 2) each, at xy (n, 2)) fit within `plane_alike` (`_plane_shapes`; ties:
    the smaller mean misfit of those): (how many fit, tilt, roll)."""
    tilts = np.radians(np.arange(0.0, s.plane_tilt_max + 0.5, 1.0))
    rolls = np.radians(np.arange(-s.plane_roll_max, s.plane_roll_max + 0.5, 5.0))
    m = _plane_shapes(xy, shape, s, tilts, rolls)
    off = 2 * np.linalg.norm((m - np.array(shapes)[None, None]).reshape(*m.shape[:3], 4),
                             axis=-1)  # `_tensor_off` (T, R, n)
    fits = off < s.plane_alike
    n_fit = fits.sum(-1)
    mis = np.where(fits, off, 0.0).sum(-1) / np.maximum(n_fit, 1)
    i, j = np.unravel_index(int(np.argmax(n_fit * 10.0 - mis)), n_fit.shape)
    return int(n_fit[i, j]), float(tilts[i]), float(rolls[j])


def _off_plane(faces: list[Face], p: Pips, s: DiceSettings, shape: tuple[int, int] | None = None,
               bgr: np.ndarray | None = None) -> tuple[list[Face], list[str]]:
    """Drop the faces not flat on the table (`off_plane`): where at least two measured 4-6
    pip faces share one pip shape (`_pip_shape` within `plane_alike`: the table's plane;
    the shape most of them share), a face whose pips are squashed unlike it is a side face
    (or a cocked die), its value not the die's. With the image's `shape` (h, w), the plane
    is a slanted camera's (`_camera_plane`: a far face looks more squashed than a near one)
    where that fits more faces; there, with the (H, W, 3) BGR working image `bgr`, a face
    rounder than the camera's plane at its place with die surface above it is dropped too
    (`_rounder_side`). Returns (the faces kept, warnings in working px). Not with a known
    face shape (`face_affine`: the board's dice)."""
    if s.off_plane is None or s.face_affine is not None:
        return faces, []
    shapes = [_pip_shape(f, p) for f in faces]
    meas = [k for k, f in enumerate(faces) if f.shape_measured and len(f.pips) >= 4]
    if len(meas) < 2:
        return faces, []
    support = [[j for j in meas if _tensor_off(shapes[k], shapes[j]) < s.plane_alike]
               for k in meas]
    best = max(support, key=len)
    planes = [np.mean([shapes[j] for j in best], axis=0)] * len(faces)  # (one shape)
    camera = None  # (tilt, roll) where a slanted camera's plane fits more faces
    if shape is not None and s.plane_tilt_max is not None:
        n_fit, tilt, roll = _camera_plane([shapes[j] for j in meas],
                                          np.array([faces[j].center for j in meas]), shape, s)
        if n_fit >= s.plane_camera_min and n_fit > len(best):
            camera = (tilt, roll)
            planes = list(_plane_shapes(np.array([f.center for f in faces]), shape, s,
                                        np.array([tilt]), np.array([roll]))[0, 0])
    if len(best) < 2 and camera is None:
        return faces, []
    kept, warnings = [], []
    for f, m, plane in zip(faces, shapes, planes, strict=True):
        if _tensor_off(m, plane) > s.off_plane or (camera is not None and bgr is not None and (
                _rounder_side(f, p, plane, bgr, shape, camera, s))):
            warnings.append(
                f"die at ({f.center[0]:.0f}, {f.center[1]:.0f}): a face ({f.value}) tilted "
                "from the table (its pips look squashed unlike the other dice's): a side face "
                "whose top was not readable, or a die on its edge? not read; check it")
        else:
            kept.append(f)
    return kept, warnings


def _camera_up(xy: np.ndarray, shape: tuple[int, int], tilt: float, roll: float,
               s: DiceSettings) -> np.ndarray:
    """Unit image direction (2,) of the vertical (up) at the point xy (2,) (working px;
    `shape` (h, w)) for the camera of `_plane_shapes` (tilt, roll in radians): away from its
    nadir, f tan(tilt) from the image centre along the rolled downward; straight up along
    the rolled vertical for a camera looking straight down or right at its nadir."""
    h, w = shape
    down = np.array([math.sin(roll), math.cos(roll)])
    nadir = np.array([w / 2, h / 2]) + s.focal_long * max(h, w) * math.tan(tilt) * down
    v = np.asarray(xy, float) - nadir
    n = float(np.linalg.norm(v))
    return -down if tilt < 1e-6 or n < 1e-6 else v / n


def _ellipse_aniso(m: np.ndarray) -> float:
    """A (2, 2) second-moment matrix's long over short axis."""
    ev = np.linalg.eigvalsh(m)
    return math.sqrt(max(float(ev[1]), 0.0) / max(float(ev[0]), 1e-12))


def _rounder_side(f: Face, p: Pips, plane: np.ndarray, bgr: np.ndarray,
                  shape: tuple[int, int], camera: tuple[float, float], s: DiceSettings) -> bool:
    """Whether face `f` (the camera plane's shape `plane` (2, 2) at its place) is a side
    face: its pips `side_rounder` x rounder than the table there, with die-coloured surface
    right above it along the camera's vertical at its place (`_camera_up`; its die's top
    face): a top face is squashed at least as the table is. Not asked where the table's
    squash would leave the pips' short axis under `side_rounder_sd` px (sd)."""
    if s.side_rounder is None:
        return False
    m = p.cov[np.asarray(f.pips, int)].mean(axis=0)
    a_plane = _ellipse_aniso(plane)
    long_sd = math.sqrt(max(float(np.linalg.eigvalsh(m)[1]), 0.0))
    if _ellipse_aniso(m) * s.side_rounder > a_plane or long_sd / a_plane < s.side_rounder_sd:
        return False
    return _die_above(f, bgr, _camera_up(f.center, shape, camera[0], camera[1], s), s)


def _note_tilted(faces: list[Face], s: DiceSettings) -> None:
    """Note a die whose top face is foreshortened unlike the photo's other dice (a die
    cocked on its edge or leaning against something), or far more than any photo taken from
    a sensible height would show: its value is reported but doubted."""
    info = []
    for f in faces:
        if len(f.pips) < 4:  # 2 and 3 pips do not fix the face's shape
            continue
        u, sv, _ = np.linalg.svd(f.lin)
        info.append((f, sv[0] / max(sv[1], 1e-9), u[:, 1]))
    for k, (f, aniso, axis) in enumerate(info):
        others = [(a, ax) for j, (_, a, ax) in enumerate(info) if j != k]
        tilted = aniso > s.tilt_max_aniso
        if others:
            ref = float(np.median([a for a, _ in others]))
            ref_axis = max(others, key=lambda t: t[0])[1]
            tilted |= aniso > s.tilt_vs_others * ref
            # Squashed along another direction than the other dice (which share the view).
            tilted |= (min(aniso, ref) > s.tilt_axis_aniso
                       and abs(float(axis @ ref_axis)) < math.cos(math.radians(40)))
        if tilted:
            f.notes.append(f"its top face ({f.value}) looks tilted (die on its edge or "
                           "leaning?); check it")


def _chroma(bgr: np.ndarray) -> np.ndarray:
    bgr = bgr.astype(np.float32) + 1
    return bgr / bgr.sum(axis=-1, keepdims=True)


def _face_above(f: Face, bgr: np.ndarray, up: np.ndarray, s: DiceSettings) -> bool:
    """Whether die-coloured surface lies right above the face along the vertical's image
    direction `up` (so it is a side face with the die's top face above it) while the table
    left and right of it does not look like the die."""
    up = np.asarray(up, float)
    right = np.array([-up[1], up[0]])
    beside = np.concatenate([_beyond(f, up, right, sg, 0.3) for sg in (-1, 1)])
    return _die_above(f, bgr, up, s) and _die_share(f, bgr, beside, s) < s.beside_share


def _die_above(f: Face, bgr: np.ndarray, up: np.ndarray, s: DiceSettings) -> bool:
    """Whether die-coloured surface (`_die_share` at least `above_share`) lies right above
    the face along the unit image direction `up` (2,) in the (H, W, 3) BGR working image
    (`_beyond`: 1.2-1.7 x its extent there, +- 0.4 of its extent across)."""
    up = np.asarray(up, float)
    return _die_share(f, bgr, _beyond(f, np.array([-up[1], up[0]]), up, 1, 0.0), s) >= (
        s.above_share)


def _top_aside(f: Face, bgr: np.ndarray, up: np.ndarray, s: DiceSettings,
               others: list[Face] = ()) -> bool:
    """Whether the face is a side face whose die's top lies up and aside (a turned die:
    from a side face, its top face lies up and away from the side face's own outward
    direction): die-coloured surface beyond the face along a direction turned from `up` by
    one of `aside_turns_deg`, and the table right below it (a top face seen slanted has its
    own side faces below it, of its colour). Not towards another read face of `others`
    foreshortened alike (the top face of a die touching it there: the tops of dice on one
    table look alike)."""
    a_f = _aniso(f.lin) if f.shape_measured else 0.0
    if s.aside_turns_deg is None or not f.shape_measured or a_f < s.side_check_aniso:
        return False
    up = np.asarray(up, float)
    others = [g for g in others if max(a_f / _aniso(g.lin), _aniso(g.lin) / a_f) < (
        s.side_shape_ratio)]
    below = _beyond(f, np.array([-up[1], up[0]]), -up, 1, 0.0)
    if _die_share(f, bgr, below, s) >= s.beside_share:
        return False
    for deg in s.aside_turns_deg:
        a = math.radians(deg)
        d = np.array([math.cos(a) * up[0] - math.sin(a) * up[1],
                      math.sin(a) * up[0] + math.cos(a) * up[1]])
        pts = _beyond(f, np.array([-d[1], d[0]]), d, 1, 0.0)
        if _die_share(f, bgr, pts, s) >= s.above_share and not (s.aside_other and any(
                np.linalg.norm(pts.reshape(-1, 2).mean(axis=0) - g.center) < (
                    s.aside_other * math.sqrt(g.area)) for g in others)):
            return True
    return False


def _beyond(f: Face, across: np.ndarray, along: np.ndarray, sign: int, more: float):
    """Sample points just beyond the face's border along `sign * along` (1.2-1.7 x its
    extent there, plus `more`), spread across it by +- 0.4 of its extent `across`."""
    e_al = float(_expected_extent(f.lin, along[None])[0])
    e_ac = float(_expected_extent(f.lin, across[None])[0])
    t = np.linspace(1.2, 1.7, 4) + more
    off = np.linspace(-0.4, 0.4, 5)
    return f.center + (sign * t[:, None, None] * e_al * along
                       + off[None, :, None] * e_ac * across)


def _die_share(f: Face, bgr: np.ndarray, pts: np.ndarray, s: DiceSettings) -> float:
    """The share of `pts` of the face's die colour (its chroma, or for a saturated die its
    hue (`die_hue`), about its brightness)."""
    colour = f.colour
    h, w = bgr.shape[:2]
    pts = pts.reshape(-1, 2)
    inside = (pts[:, 0] >= 0) & (pts[:, 1] >= 0) & (pts[:, 0] < w) & (pts[:, 1] < h)
    v = _sample(bgr, pts).astype(np.float32)
    ch = np.abs(_chroma(v) - _chroma(colour)).max(axis=1)
    lum = (v.sum(axis=1) + 3) / (colour.sum() + 3)
    ok = ((ch < s.above_chroma) | _same_hue(v, colour, s)) & (lum > 0.35) & (lum < 2.8) & inside
    return float(ok.mean())


def _hue_sat(bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hue (radians) and saturation (max - min over max) of BGR rows."""
    bgr = np.atleast_2d(bgr).astype(np.float32)
    b, g, r = bgr[:, 0], bgr[:, 1], bgr[:, 2]
    hue = np.arctan2(math.sqrt(3) * (g - b), 2 * r - g - b)
    hi = bgr.max(axis=1)
    return hue, (hi - bgr.min(axis=1)) / np.maximum(hi, 1.0)


def _same_hue(v: np.ndarray, colour: np.ndarray, s: DiceSettings) -> np.ndarray:
    """Per row of `v`: of the hue of a saturated face colour (`die_hue`: the face colour and
    the sample each saturated at least their floor, the hue within its degrees): a coloured
    die's faces lit apart (a top face in the light, a side in shade) keep their hue while their
    normalised BGR drifts (a saturated colour brightened moves towards its own primary)."""
    if s.die_hue is None:
        return np.zeros(len(v), bool)
    hv, sv = _hue_sat(v)
    hc, sc = _hue_sat(colour)
    dh = np.abs(_hue_diff(np.degrees(hv), math.degrees(hc[0])))
    return (sc[0] >= s.die_hue[0]) & (sv >= s.die_hue[1]) & (dh <= s.die_hue[2])


# --------------------------------------------------------------------------- entry point

def rescale_positions(text: str, scale: float) -> str:
    """Rewrite every `(x, y)` in a message by `scale` (working pixels -> photo pixels)."""
    if scale == 1:
        return text

    def fix(m):
        return f"({float(m.group(1)) * scale:.0f}, {float(m.group(2)) * scale:.0f})"

    return re.sub(r"\((\d+(?:\.\d+)?), (\d+(?:\.\d+)?)\)", fix, text)


@dataclass(frozen=True)
class Die:
    """value 1-6, confidence 0-1, center (x, y) in the caller's image pixels."""

    value: int
    confidence: float
    center: tuple[float, float]


def read_dice(img: np.ndarray, s: DiceSettings = SETTINGS) -> tuple[list[Die], list[str],
                                                                    dict[str, float]]:
    """All dice in a (H, W, 3) uint8 BGR image: (dice sorted top-to-bottom, warnings, timings
    in ms)."""
    t0 = time.perf_counter()
    if img.ndim != 3 or img.shape[2] != 3:
        raise ValueError("read_dice needs an (H, W, 3) BGR image")
    h, w = img.shape[:2]
    f = min(1.0, s.work_long_side / max(h, w))
    work = cv2.resize(img, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA) \
        if f < 1 else img
    t1 = time.perf_counter()
    capped: list[int] = []
    pips, chans = find_pips(work, s, capped)
    t2 = time.perf_counter()
    adj = _links(pips, chans, s)
    faces: list[Face] = []
    budget = [s.max_subsets_per_photo]
    # Small groups first: they are the likely dice; clutter groups get what budget is left.
    later: list | None = [] if s.split_subsets and not s.die_side_px else None
    groups = [_solve(comp, pips, chans, s, budget, later=later)
              for comp in sorted(_components(adj, np.arange(len(pips))), key=len)]
    _split_rest(later or [], pips, chans, budget)
    faces = [fc for g in groups for fc in g]
    faces = _grown_faces(faces, adj, pips, chans, s)
    on_dice = frozenset(i for fc in faces if len(fc.pips) >= 3 and fc.confidence >= (
        s.min_confidence) for i in fc.pips)
    faces = [fc for fc in faces if fc.confidence >= s.min_confidence
             and not _printed(fc, pips, s, on_dice, chans)]
    faces += [fc for fc in _ones_above(faces, pips, chans, s)  # (reported faces vouch)
              if not _printed(fc, pips, s, on_dice, chans)]
    t3 = time.perf_counter()
    tops, warnings = _top_faces(faces, work.shape[:2], s, chans[2])
    kin = [fc for fc in _ones_by_kin(tops, faces, pips, chans, s)
           if not _printed(fc, pips, s, on_dice, chans)]
    if kin:  # the new 1s among the others: which are tops
        tops, warnings = _top_faces(faces + kin, work.shape[:2], s, chans[2])
    faces, off = _off_plane(tops, pips, s, work.shape[:2], chans[2])
    warnings += off
    _note_tilted(faces, s)
    warnings = [rescale_positions(w_, 1 / f) for w_ in warnings] + [
        busy_warning(n, s.max_pip_candidates, "pip-like spots") for n in capped]
    dice = []
    for fc in sorted(faces, key=lambda q: (q.center[1], q.center[0])):
        cx, cy = fc.center / f
        dice.append(Die(value=fc.value, confidence=round(fc.confidence, 3),
                        center=(round(float(cx), 1), round(float(cy), 1))))
        if fc.confidence < s.warn_confidence:
            warnings.append(f"die at ({cx:.0f}, {cy:.0f}) read as {fc.value} with low "
                            f"confidence {fc.confidence:.2f}")
        for note in fc.notes:
            warnings.append(f"die at ({cx:.0f}, {cy:.0f}): {note}")
    t4 = time.perf_counter()
    timings = {"resize": (t1 - t0) * 1000, "pips": (t2 - t1) * 1000,
               "faces": (t3 - t2) * 1000, "top_faces": (t4 - t3) * 1000,
               "total": (t4 - t0) * 1000}
    return dice, warnings, {k: round(v, 2) for k, v in timings.items()}
