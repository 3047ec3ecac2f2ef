"""Dice beside a Mauerhuepfer board: die-sized candidates on the table around the located
board, each read by `vision.dice.read_dice` on an enlarged crop (dice beside a board are
9-25 px wide in a 1280 px photo, too small for the whole-photo reader).

Images are (H, W, 3) uint8 BGR; `view` is a located board (`vision.mauer.BoardView`: its
`H`, board mm -> image px, and its `corners`, (4, 2) image px); `board` the board
description (`scoring.mauerhuepfer.Board`, its `size_mm`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.dice import cc_stats
from vision.psf import streak_kernel

if TYPE_CHECKING:
    from scoring.mauerhuepfer import Board
    from vision.mauer import BoardView


@dataclass(frozen=True)
class BoardDiceSettings:
    """Thresholds of the dice search around the board."""

    dice_wanted: int = 2
    dice_search_mm: float = 130.0  # dice are looked for this far around the board
    die_mm: float = 16.0  # die side (pieces.md)
    max_die_candidates: int = 14  # light die-sized blobs read, nearest the board first
    busy_pick: bool = True  # more than that (a busy table: 32-500 on newsprint, the
    # committed photos 0-4): the most die-like of them instead (`_busy_pick`; the mat's dice
    # ranked 30-215th nearest the board, none read)
    busy_uniform: float = 20.0  # L*: a face disc's share within this of its 85th percentile
    die_close: float = 0.45  # the light is closed over this share of a die's side first (the
    # dark pips would split a small die's face into parts too small or concave for a die)
    lone_pips: bool = True  # while fewer than dice_wanted dice are read, lone pip-sized dark
    # dots are read too (a 1 on a table of the die's colour makes neither light blob nor
    # pair of pips)
    max_lone_candidates: int = 6
    lone_big: bool = True  # after those, while dice are still missing, lone dots too large
    # for a pip of a die of the board's mean scale but not of the largest die the camera
    # model puts in the search area (its local scale at the farthest-reaching corner of the
    # search ring within the photo / the mean: perspective makes a die near the camera up to
    # 1.86 x the mean on committed photos; committed 0023's white 1 on a white table: its
    # pip 8 x 12 px, a die of 38 px, the mean 26 px); the crop read then sizes the pip
    # against the die's local side. False: not looked for
    same_die: float = 0.8  # die sides: a big lone dot or a lone dot's read face this near a
    # candidate or a die read is that die (a die's own pips lie within 0.71 of its centre)
    big_lone_apart: float = 0.5  # die sides: a big lone dot this near a lone dot is that dot
    lone_big_max_scale: float = 2.0  # ... that scale at most (a search ring reaching towards
    # the horizon makes it unbounded; committed photos measured up to 1.86)
    light_thresholds: tuple[int, int, int] = (60, 250, 10)  # the light blob detector's first
    # and last threshold and its step (lightness, uint8)
    pip_thresholds: tuple[int, int, int] = (20, 200, 15)  # ... and the pip detector's
    pip_candidates: bool = True  # also where two or more pip-sized dark dots lie close (a white
    # die on a white table makes no light blob; its pips still show)
    die_crop: float = 4.0  # crop side around a candidate, in die sides
    die_target_px: float = 90.0  # candidates are enlarged so a die is about this wide
    local_scale: bool = True  # each candidate's die size from the board's perspective at its
    # place (not the board's mean scale)
    # A die seen but not read (warned about): a light face of the die's size with dark marks
    # (pips, or pips smeared into streaks) on it. Sizes are shares of the die's side.
    seen_face_r: float = 0.42  # the face disc around the candidate
    seen_table_r: tuple[float, float] = (0.85, 1.25)  # the table ring around it
    seen_min_contrast: float = 20.0  # face level - darkest marks (L*, 0..255): 40 left the
    # faint pips of small defocused dice (21-29: committed 0003, 0011) unwarned; at 20 no
    # warning where no die is on committed, edition 2 or fresh 1550-1555 (session 13)
    seen_dark_share: tuple[float, float] = (0.03, 0.55)  # of the face disc, marks (0.45
    # left dice whose blob centre lies below the top face, the disc on its shaded sides:
    # 0.46-0.51, fresh 1550/1551)
    seen_light_step: float = 10.0  # face lighter than the table by this, or two marks or more
    seen_max_extra: int = 1  # more die-like unread candidates than the missing dice + this:
    # clutter, no warning
    seen_margin: float = 0.7  # no warning this near (die sides) the board or the photo's edge
    spot_read: bool = True  # a candidate read as nothing: its pip spots' darkness read
    spot_shift: float = 0.3  # face centre searched this far (face units) from the candidate
    spot_shift_steps: int = 7  # per axis
    spot_spacing: tuple[float, ...] = (0.45, 0.55)  # pip spots' offsets (face units)
    spot_min_contrast: float = 40.0  # face - darkest spot (L*, 0..255)
    spot_min_gap: float = 0.45  # the dark spots' least darkness - the light ones' most
    spot_explain: float = 0.3  # face units: dark face samples this near a dark spot are its pip
    spot_max_stray: float = 0.03  # share of the face dark away from the dark spots at most
    spot_max_rim_dark: float = 0.15  # share of the square's rim darker than half-way to a pip
    spot_max_outside: float = 0.8  # darkness (as above) at most just outside the pip grid
    one_as_pair: bool = True  # a 1 (spot read or crop read) with a pip-sized minimum a 2's
    # pip spacing away where `dot_read` reads their midpoint as a face of 2+ pips is that
    # face (`_one_as_pair`): on a marble table as light as the face a 1 placed on one pip of
    # a 2 read clean (marble 3010: 3 of 16 dice were 2s read as 1)
    one_pair_reach: tuple[float, float] = (1.15, 1.75)  # face units: a 2's pips lie
    # 2 sqrt(2) x 0.45-0.55 (1.27-1.56) apart
    one_pair_ring: float = 0.35  # face units: the partner's ring (12 points) ...
    one_pair_ring_spread: float = 0.5  # ... its darkness (x the partner's depth) spread at
    # most this (a round pip; marble 3010's three 2s: 0.20-0.37; the face's edge and a
    # newspaper's print beside true 1s, edition 2 0007 and mat 3013 0005, which were read
    # as 2s without it: 0.73 and 0.62)
    one_alone: bool = True  # a spot read's 1 must be alone: where `_one_as_pair` finds no
    # face but a like pip (round, `one_alone_depth` x the 1's depth) lies a 2's pip spacing
    # off it with face between them (`_face_between`), the 1 may be one pip of a 2 whose
    # face was not read (harsh-light 0006, its board moved by a sub-pixel: a wrong 1 at
    # 0.79, the crop read's 2 then dropped beside it): not read
    one_alone_depth: tuple[float, float] = (0.5, 2.0)  # the partner's depth (x the 1's)
    one_alone_ring: float = 0.5  # its ring (`one_pair_ring`) at most this dark on average
    # (x its depth): a dot on a face, not a dark table beyond the 1's edge
    one_alone_line: float = 0.5  # the line between: no sample darker than this x the 1's
    # depth below the face, ...
    one_alone_rim: float = 0.4  # ... the pips' blurred discs (face units round each) left out
    spot_layouts_only: bool = True  # the spot read chooses among die layouts only
    spot_lift: float = 0.5  # where the spot read at the candidate finds nothing, again this
    # share of the die's height (image vector from the camera model) above it (0: not): a
    # light blob holds the top face and the side faces seen below it, so its centre lies
    # below the top face's (dev seeds 741/742 +3 dice; fresh 723 +3, 725 ed. 2 +2, 724 +0,
    # committed +2; no wrong value or false die anywhere)
    dot_read: bool = True  # where the spot read finds nothing: the face's pip-sized dark
    # minima, if they form a die's layout of pips (2-6) on the face of the measured size,
    # are read (`dot_read`): faint blurred pips on an unevenly lit face, which the spot
    # read's rim and stray guards refuse
    dot_window: float = 0.4  # a minimum is the darkest within this (face units) across
    dot_reach: float = 1.1  # minima looked for this far (face units) around the centre
    dot_rel_depth: float = 0.5  # every pip at least this share of the darkest one's depth
    dot_spacing: tuple[float, float, int] = (0.42, 0.58, 9)  # pip spacings tried (face
    # units; a die's pips lie 0.5 from its centre: a field's ring and numeral gave 0.69)
    dot_max_residual: float = 0.12  # face units, each minimum from its grid spot at most
    dot_max_light: float = 0.35  # the grid's other spots at most this dark (x the darkest
    # pip's depth): a 6 whose middle pips are faded is not read as a 4
    dot_edge_r: float = 1.2  # the face read must end at its edge: on the square this many
    # face units from the pips' centre (turned as the pips are; a face reaches 1.0, its
    # rounded corners less), at most `dot_edge_light` of the samples are as light as the
    # face (less than `dot_edge_tol` x the darkest pip's depth darker than it); a die's face
    # is bounded by its darker sides or by the table, a light gap in a newspaper's print or
    # a cloth's pale ground between printed marks runs on past it (session 25: dev mat and
    # print seeds 3140-3141: 7 false dice of dot reads had 0.28-0.94 of the square light,
    # the 5 true dot reads there and on the committed photos 0.00-0.13; all 7 refused, the
    # 5 kept). Only on a busy table (`busy_clutter`)
    dot_edge_light: float = 0.25
    dot_edge_tol: float = 0.25
    face_edge: bool = False  # whether that test is made (`read_board_dice` sets it on a
    # busy table)
    busy_enough: bool = True  # on a busy table the light blob candidates (`_busy_pick`'s,
    # the most die-like first) are read only until `dice_wanted` dice are read: each read
    # costs 20-80 ms CPU, and the rest are the print's die-like spots
    busy_max_reads: int = 64  # ... and at most this many candidates of every kind are read
    # there: a bound on the worst case (dev mat and print seeds 3140-3141: up to 57 a photo,
    # a true die read as the 53rd; 48 lost it; the committed photos are no busy table)
    busy_blur_reads: int = 1  # on a busy table at most this many blurred reads
    # (`blur_max_reads`): the print passes `die_seen`, so they read clutter, 20-500 ms each
    # (session 26: dev mat and print seeds 3221-3222, no true die found by one; up to 1.9 s
    # a photo)
    busy_die_crop: float = 3.0  # on a busy table the crops are at most this many die sides
    # (`die_crop`)
    busy_seen: bool = True  # on a busy table a die a crop read finds off the crop's centre
    # (more than 0.8 die sides from it: not taken from that read) and off the board (as every
    # candidate is) is the next candidate, read
    # in a crop centred on it, before the other candidates and fallbacks (session 26: dev mat
    # and print seeds 3221-3222, 4 true dice seen so 1-31 reads before a fallback found them)
    busy_clutter: float = 4.0  # ... a busy table: this many light die-sized blobs
    # and pip-sized dark dots (`die_candidates`) per 100 die faces of the search ring (the
    # board left out) or more (the 40 committed photos of both editions at most 2.6, default
    # draw 3142 at most 1.3; dev newsprint 3.6-352, printed cloth 0.3-20, its photos with a
    # false die 6.0-20): on a plain table as light as a die's flat face the face has no
    # edge to find (a white die on a white table); 0: never busy
    lone_dot_read: float | None = 0.6  # a lone dot read as nothing while dice are missing:
    # `dot_read` again centred this far (face units) from it in 8 directions (a pip of a
    # 2-6 lies 0.5-0.71 from its face's centre; from the dot itself the reach leaves the far
    # pips out), kept where the face there is lighter than the table round it by
    # `seen_light_step` (a die's body, not marks on the table). None: not
    lone_dot_on_spot: bool = True  # ... and only where the dot lies on a dark spot of the
    # face read (its offset from the face's centre within `dot_max_residual` of a pip of the
    # layout: the dot is one of the die's pips, not a mark beside a face read round it)
    lone_dot_agree: int = 2  # ... or this many reads (of the 8) agree
    lone_read_blobs_per_die: int = 2  # ... and only where the light blob search found at
    # most this many die-sized blobs per die of the game (`dice_wanted`): more are clutter,
    # the printed fields of a board that was mislocated (fresh 1554's 0017: 14 blobs, its
    # white fields' numerals read as two 2s). Blobs per photo (`die_candidates`, session 13):
    # committed 0-4 (0: 3, 1: 2, 2: 22, 3: 2, 4: 1 photo, 0006), edition 2 1-2, fresh
    # 1550-1559 0-4 on 279 of 297 photos with a board found, 5 on 1, 6 on 3, 9-14 on 14
    # (14: `max_die_candidates`); where a lone dot read a die 0-1
    pair_split: bool = True  # while dice are missing, a light blob of two touching dice
    # (1.5-3.2 die areas, elongated: the blob detector's inertia bar rejects it) gives a
    # candidate at each die: its centre +- the half distance its second moments give
    pair_area: tuple[float, float] = (1.5, 3.2)  # die areas
    pair_max_inertia: float = 0.3  # minor / major second moment at most (two squares side
    # by side: 0.25 from straight, less diagonally or apart)
    pair_min_convexity: float = 0.6
    pair_step: int = 20  # lightness threshold step of the pair search (a pair persists over
    # many thresholds: half the light blob ladder's steps)
    pair_reach: float = 2.5  # looked for this far (die sides) around the candidates and the
    # dice read only (a die touching another lies beside it)
    touch_search: bool = True  # while dice are still missing after every other candidate: dice
    # touching another anywhere in the search ring (`touching_dice`), read by the crop
    # reader, the spot read and the blurred read
    fine_thresholds: tuple[int, int, int] | None = (65, 250, 5)  # then, while dice are still
    # missing, the light blobs over this finer ladder too (a small blurred die's face stands
    # out of the table by a narrow band of lightness: fresh 2530-0017's 2, 10 px, seen as a
    # compact blob at one or two thresholds 10 apart). Fresh 2530, 2540 +3 dice, held out
    # 2544 +1, 0 wrong, 0 false; as the only ladder it read fresh 2540-0018's 4 as 2. None: off
    touch_area: tuple[float, float] = (1.4, 3.0)  # local die areas
    touch_length: tuple[float, float] = (1.5, 2.8)  # local die sides along the long axis
    touch_width: tuple[float, float] = (0.7, 1.5)  # ... and across it. On every photo with a
    # die missing of committed, edition 2, fresh 2530-2533, 2540, 2541: 26 candidates, 2 at
    # the one touching pair of light dice (2531-0010, its 2 read), 24 clutter none read;
    # 1.2-4.0 / 1.3-3.5 / 0.6-1.8 (and second moments 0.45): 71 clutter, no die more read
    touch_precut: tuple[float, float] = (0.25, 4.0)  # x `touch_area` at the search area's
    # mean die size: the first cut on a blob's box and outline before its own place's die
    # size is read (perspective: a die near the camera is larger than the mean)
    touch_extent: float = 0.02  # a blob's length and width: between this and 1 - this
    # quantile of its pixels along each axis (a stray pixel of the table's texture left out)
    mark_search: bool = True  # last, while dice are still missing: a die found by its pips
    # rather than by a light body (a white die on a white or pale table, streaked or
    # defocused: no light blob, and its pips are streaks or bars, not round dots). The dark
    # marks of the black-hat (the pip-closed lightness `close_pips` - the lightness) deeper
    # than `mark_depth`, each `mark_area` local die areas and at most `mark_extent` die
    # sides across its box, joined where their centres lie `mark_join` die sides apart
    # (pips of one face), a group of up to `mark_max` marks spanning at most
    # `mark_span` die sides: its centre is a candidate, read by the spot and the dot read
    mark_depth: float = 20.0  # L* levels (0..255)
    mark_area: tuple[float, float] = (0.008, 0.8)  # local die areas (a face's pips smeared
    # into one mark: drawn 5s under a 9 px streak 0.69, 0.25 lost them)
    mark_extent: float = 1.6  # die sides (a face's pips smeared into one mark: 1.0 lost
    # drawn 3s-6s streaked 7-9 px, `test_mark_groups_finds_...`, 1.2 those turned 25-40)
    mark_join: float = 0.8  # die sides (a 2's diagonal is 0.71-0.76 of hers: 0.6, as in
    # `pip_candidates`, left a drawn 2 as two lone marks)
    mark_span: float = 1.6  # die sides: the group's box at most this across (a face turned
    # 45 degrees, 0.96 sides of pips, and a streak of up to 9 px on a die of 12-20: 1.2 lost
    # drawn 4s-6s turned 40 degrees and streaked 7 px)
    mark_lone: float = 0.45  # die sides: a lone mark is a candidate only where its box is
    # this long (pips smeared or blurred into one mark: a 5 under a 9 px streak, a 3
    # defocused 1.6 px); a pip-sized lone dot is the lone dots' (a 1; a letter, a dotted row)
    mark_max: int = 9  # marks per group at most (a smeared pip may part in two)
    mark_precut: tuple[float, float] = (0.5, 2.0)  # x `mark_area`'s least and x
    # `mark_extent` at the search area's mean die size: the first cut on a mark's area and
    # box before its own place's die size is read (a dim or noisy photo has thousands of
    # specks; as `touch_precut`). Lossless where the local die side is 0.71-2.0 x the mean
    max_mark_candidates: int = 8  # mark groups read per photo, nearest the board first (4
    # read the same dice on committed and fresh 2600-2603, 10 ms a photo with a die missing
    # less, but one die fewer each on light_eval's daylight and dim copies)
    mark_apart: float = 0.15  # die sides: a group this near a light candidate is left to it
    # (the spot read looks 0.3 half sides round a candidate: a group's centre farther off,
    # where a light blob of the die and its shadow or side faces lay, is read again)
    warn_unread: bool = True  # warn about candidates that look like dice but were not read
    warn_kinds: tuple[str, ...] = ("blob", "fine")  # ... found as these candidates: a light
    # blob, or one over the finer ladder (committed 0019's 4, an 11 px die defocused 1.45
    # px, seen there only and read by none: no word but "0 dice seen" before session 22);
    # not a half of a blob of two touching dice
    # A die used below this confidence gets "read as N with low confidence" (the general
    # reader's `DiceSettings.warn_confidence`, the pawns' `min_confidence`; the contract's
    # low-confidence warning): a spot, dot or mark read just over its gate (committed
    # 0027's 5 at 0.50, edition 2 0001 / 0007 / 0013 at 0.47-0.59) was said nowhere.
    warn_confidence: float = 0.6
    # A die seen (`die_seen`) but read by none of the above: the 1-6 layouts blurred by the
    # photo's blur, measured on the board (`board_blur`), matched to the photo (`blur_read`).
    blur_read: bool = True
    blur_motion_stretch: float = 1.15  # the board shows a streak (motion blur) where the blur
    # measured along its weakest gradient axis is this many times that across it ...
    blur_motion_ratio: float = 0.55  # ... and that axis' gradients are this share of the other
    # axis' at most (`BoardBlur`; committed, edition 2, fresh 1710-1713, 190 photos: motion
    # 6-9 px stretch 1.18-1.94 at ratio 0.14-0.58, all told but one at 0.58; sharp and
    # defocused 0.64-1.18, the one above 1.15 at 0.58; angle within 12 degrees of the truth)
    blur_round_stretch: float = 1.15  # below it, round blur (defocus > 1 px at most 0.99);
    # above it but no streak by the ratio the board cannot tell, and no die is read under it
    blur_strong_share: float = 0.2  # the tensor sums the strongest gradients only (noise out)
    blur_reblur: float = 2.0  # px: the board blurred again by this Gaussian; how much its
    # strongest gradients drop says how blurred it was (`BoardBlur.sigma`)
    blur_inset: int = 7  # px: the board's outline shrunk by this before its gradients are
    # summed (its own edge against the table left out; a 15 x 15 erosion)
    blur_min_box: int = 16  # px: no blur measured where the board's box in the photo is
    # narrower or lower than this ...
    blur_min_inside: int = 200  # ... or leaves fewer px inside the shrunk outline
    blur_max_drop: float = 0.99  # the re-blur drop capped below 1 (a saturated drop would
    # give an infinite sigma: sigma = r R / sqrt(1 - R^2))
    blur_lengths: tuple[int, ...] = (3, 4, 5, 6, 7, 8, 9, 10)  # streak px tried with motion
    blur_length_lags: tuple[int, int] = (2, 14)  # px: the streak's length measured on the
    # board (`board_streak`): the autocorrelation of the board's derivative along the streak
    # at these lags; its deepest dip lies at the length or 1 px past it (the 20 photos of
    # committed and fresh 2110-2115 told motion: dip - truth 0 on 7, +1 on 11, 2 no length)
    blur_length_rise: float = 0.03  # the dip must rise this much after it, else no length
    # (those 2, a 7 and an 8 px streak: the autocorrelation flat or still falling past 11
    # px, rising 0.01 / 0 after its minimum: the board's own spacing, no streak's dip)
    blur_length_below: int = 1  # the lengths tried are the dip's and this many px below it
    blur_face_kernels: int = 0  # the layouts are tried under the kernels this near (in
    # `blur_kernels`' order) to the one the face's square fits best: a streak's length told
    # by the face's outline, larger than its pips (1, its neighbours too: fresh 1712-0003's
    # 3 under a 9 px streak read as a 1 under 10 px)
    blur_yaw_step: int = 10  # degrees; the face's square tried turned 0-80 by this step
    blur_face_grow: float = 1.5  # the face's square matched over itself grown this much (its
    # blurred rim and the table round it: where the face lies)
    blur_turns: tuple[int, ...] = (0, 90)  # degrees: the layouts tried at the face's turn and
    # a quarter turn on (a 2, 3 or 6 is not a quarter turn alike) ...
    blur_refine: tuple[int, ...] = (-10, 0, 10)  # ... and these degrees either side
    blur_rivals_every_turn: bool = True  # a read is kept only where it also beats every other
    # value matched at every turn (`blur_yaw_step`, 0-170) by `blur_min_margin`: the face
    # square's turn of a small blurred die touching another may be off by 30-45 degrees, and a
    # 5 matched there puts its corners on the edges' middles, so the 1 wins (committed 0013
    # turned -20: a 5 read as a 1; its 5 fits 0.75 at its own turn, the 1 0.60). Only refuses:
    # never changes a value
    blur_supersample: int = 4  # the face's square and the pips drawn this much finer and
    # averaged down (their edges partly covered, as a camera's pixels)
    blur_reach: float = 0.5  # die sides: the face's centre looked for this far from the blob's
    blur_pip_r: float = 0.2  # pip radius, half sides (pieces: 0.1 of the side)
    blur_pip_at: float = 0.5  # pip offsets from the centre, half sides
    blur_inner: float = 0.85  # half sides: the layouts are matched inside this square (the
    # face's own blurred edge left out: with it a drawn die's layouts correlated 0.1-0.3)
    blur_min_ncc: float = 0.55  # masked correlation of the best layout at least (dev sets:
    # committed, edition 2, fresh 1710-1716: reads of no die reached 0.49-0.55, wrong ones
    # of lone dice 0.52 at margin >= 0.1)
    blur_min_margin: float = 0.1  # ... and this far above every other value's best (with the
    # TRUE blur on 70 blurred dice of committed / 1710 / 1711 / edition 2, full face mask,
    # the wrong reads reached 0.61 but then with margins under 0.04)
    blur_max_reads: int = 4  # candidates read so per photo at most (CPU: 20-50 ms each; fresh
    # 1713-0012's printed marks gave 13)
    blur_apart: float = 1.2  # die sides: no blurred die read this near a die read (a die
    # touching another: its square and pips are its neighbour's too)
    blur_min_face: float = 0.5  # the face's light square matched at least this well (a die's
    # 0.52-0.95 on the dev sets where a layout was read right; clutter 0.0-0.68)
    blur_confusable: float = 0.8  # refused where the winner's blurred template correlates
    # this well with another value's under any layout turn tried and the kernels the layouts
    # were matched under (`blur_face_kernels`; a streak along a 6's columns makes it a 4's;
    # all the board's kernels refused right reads and no wrong one). Dev sets: 0.85 let
    # fresh 1715-0000's 10 px 5 under a 7 px streak read as a 3 (0.81 alike); 0.8 refuses
    # it and 4 right reads (0.805-0.84)
    blur_confusable_measured: float = 0.85  # ... this where the board measured the streak's
    # length (`board_streak`: the kernels that length and 1 px less, so no 10 px streak
    # fitted to a 7 px one). Synthetic streaked dice (values 1-6, turned 0/20/45, 12-18 px,
    # 5/7/9 px streaks at 0/45/90/135 degrees, noise and JPEG, 1728 reads): 0.8 -> 0.85
    # read 647 -> 872 right, 2 -> 2 wrong (a 3 read as 2 with no pair alike, as before);
    # 0.9 read a 5 as 2 (alike 0.90)
    blur_confusable_across: float = 0.9  # under a streak, a pair whose differing pips do
    # not lie along the streak from the other's (`_along_streak`: no smear turns one into
    # the other) is refused only at this alike (the same synthetic reads: 0.8 -> 0.9 kept
    # 872 -> 906 right, 2 -> 2 wrong; no die of the dev sets changed by it)
    blur_ink_tol: float = 0.7  # a blurred read refused only by a value alike along the
    # streak (`blur_confusable*`) is kept where, its pips as dark as the photo's other die's
    # (the game's two dice are one pair: one paint, one pip size; `_pip_contrast`), its
    # layout leaves at most this share of the face's variance unexplained
    # (`_fixed_residual`) ...
    blur_ink_margin: float = 0.15  # ... and every other value's layout this much more (a 4
    # smeared along its columns is a 6's look-alike, but a 6 of the other die's darkness is
    # 1.5 x too dark there). Synthetic pairs of dice under one streak or defocus
    # (/tmp/s19/h4/grid_risk.py, seeds 3-6: values 1-6 beside a 2, 4 or 5, turned 0/25,
    # 12/15/18 px, 5/7/9 px streaks at 0/45/90/135 degrees or 1.2-1.8 px defocus, pips
    # 0.08-0.12 of the side and the pair's within 10 %, faces 150-240, noise, JPEG 60):
    # of 173 reads refused only as alike with a reference, the true value's residual was
    # the least of all six values in every one (0.18-0.81; the next value 0.0-0.8 more,
    # 0.13 and more but for one 5 at 0.0); these settings kept 169 right, 0 wrong
    blur_ink_ref_ncc: float = 0.7  # the other die's own layout (its value known) fits this
    # well at least under the board's kernels (committed 0021's 5: 0.78, 0024's 4: 0.83)
    blur_along_tol: float = 0.35  # half sides: a pip lies "along the streak" from another
    # where its offset across the streak is at most this and along it at most the streak's
    # length (+ this); a pip within this of one of the other value's is the same pip
    blur_fit: bool = True  # under round blur (defocus), a die `blur_read` refused is fitted
    # again with its face's blurred square as a regressor beside the pips (`blur_fit_read`):
    # a 9-10 px die's blurred rim, which the layouts' correlation counts against them all,
    # explained (committed 0003's 1 and 0011's 3 and 1: `blur_read`'s 1, 2, 2 at correlation
    # 0.26-0.52, refused; fitted right with the next value 0.18-0.35 more)
    blur_fit_grows: tuple[float, ...] = (1.2, 1.0)  # the fit over the face square grown
    # this much, each alone, in turn: all must read one value with the gates below (the
    # first that fails ends the read: 44 -> 18 ms a die, with the fits of all placements
    # of a turn in one least-squares call; committed and
    # fresh 2810/2811 blurred dice at their true centres: 1.2 alone read fresh 2810-0015's
    # 6 right at a gap 0.04, 1.0 alone as a 1 at 0.14)
    blur_fit_gap: float = 0.12  # the next value's score (the residual over what the face
    # square alone leaves) this much more (those dice, face >= 0.5, grown 1.2: wrong
    # winners 0.0-0.10, committed 0003's 4 read as 6 at 0.10; right ones 0.0-0.62)
    blur_fit_left: float = 0.6  # ... and the read leaves at most this share of the patch's
    # variance (right reads of those dice 0.02-0.51; two wrong ones past the gap under the
    # 1.0 square 0.54 and 0.65)
    blur_fit_values: tuple[int, ...] = (1, 2, 3, 4, 5)  # the values the fit may read: a 6's
    # two columns of pips, blurred on a die of 9-11 px, are the darkening along two opposite
    # edges that a face softer or rounder than the model's square shows (drawn defocused
    # dice with rounded corners and side faces below, 3 x 576, /tmp/s22/h3/grid.py: 16 of
    # 17 wrong fits read a 6 from a pipless-looking 1, 3, 4 or 5; right 6s 131)
    known_shape: bool = True  # a face's foreshortening must be the table's at the die
    known_up: bool = True  # side faces told by the vertical's direction at the die (from the
    # board's camera model) instead of by the crop's own centre
    up_min: float = 0.1  # no direction where the die's height shows shorter (x its side)
    known_side: bool = True  # the crop's faces are sized against the die's known side
    # (16 mm at the board's scale) instead of their pips (soft and wide when enlarged)
    dark_pips_only: bool = True  # the crops are read for dark pips only: every candidate is
    # a light face (a light blob, dark pip-sized dots) and the game's dice are white with
    # black pips (pieces.md); the light-pip passes found no pip of a die read (time)


SETTINGS = BoardDiceSettings()
_FACE_GRID = np.mgrid[-0.8:0.81:0.2, -0.8:0.81:0.2].reshape(2, -1).T  # (81, 2) face units:
# where a die's face lightness is sampled (the spot read's grid and `dot_read`'s)
_FACE_GRID.flags.writeable = False
_SQUARE_RIM = np.concatenate([np.stack([np.full(8, e), np.linspace(-1, 1, 8, endpoint=False)
                                        * e], 1) for e in (1.0, -1.0)]
                             + [np.stack([np.linspace(-1, 1, 8, endpoint=False) * -e,
                                          np.full(8, e)], 1) for e in (1.0, -1.0)])
# (32, 2) face units: the square of half side 1, 8 samples a side (`dot_read`'s edge test)
_SQUARE_RIM.flags.writeable = False


def _through(H: np.ndarray, pts) -> np.ndarray:
    """(N, 2) board mm -> image px through the 3x3 homography H."""
    return cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), H)[:, 0]


def local_affine(H: np.ndarray, xy) -> np.ndarray:
    """The homography's Jacobian (2x2, px per mm) at the table point seen at image `xy`."""
    m = _through(np.linalg.inv(H), [xy])[0]
    p = _through(H, [m, m + (1.0, 0.0), m + (0.0, 1.0)])
    return np.stack([p[1] - p[0], p[2] - p[0]], axis=1)  # (np.c_'s, less overhead)


def local_die_px(H: np.ndarray, xy, die_mm: float) -> float:
    """A die's side in image px at image point `xy` on the table: `die_mm` times the
    homography's local scale there (sqrt of its Jacobian's determinant). Perspective makes a
    die near the camera look larger than at the board's mean scale (up to 1.86 times that
    measured at the search ring's corners on committed photos), one far off smaller."""
    return _die_px(local_affine(H, xy), die_mm)


def _die_px(jac: np.ndarray, die_mm: float) -> float:
    """`local_die_px` from the homography's Jacobian `jac` there (`local_affine`)."""
    return die_mm * float(np.sqrt(abs(np.linalg.det(jac))))


def _largest_die_px(H: np.ndarray, ring: np.ndarray, w: int, h: int, die_mm: float
                    ) -> float:
    """The largest `local_die_px` over the part of the convex polygon `ring` (K, 2) int32
    image px inside a w x h photo: at a vertex of that part (a homography's local scale is
    a power of a denominator linear in the image position, so monotone along any line);
    0.0 where they do not meet."""
    box = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    area, part = cv2.intersectConvexConvex(ring.astype(np.float32), box)
    if part is None or area <= 0:
        return 0.0
    return max(local_die_px(H, p, die_mm) for p in part.reshape(-1, 2).astype(np.float64))


def up_at(view: BoardView, xy, s: BoardDiceSettings = SETTINGS,
          jac: np.ndarray | None = None) -> tuple[float, float] | None:
    """The image direction of the vertical (up) at image point `xy` on the table, from the
    board's camera model (`view.P`, z down): from a die's base towards its top. None
    without a model or where the die is seen from straight above (no direction). `jac`:
    `local_affine(view.H, xy)` when already made."""
    v = die_height(view, xy, s)
    if v is None:
        return None
    n = float(np.linalg.norm(v))
    if jac is None:
        jac = local_affine(view.H, xy)
    if not np.isfinite(n) or n < s.up_min * s.die_mm * _die_px(jac, 1.0):
        return None
    return float(v[0] / n), float(v[1] / n)


def die_height(view: BoardView, xy, s: BoardDiceSettings = SETTINGS) -> np.ndarray | None:
    """The image vector (px) from a die's base at image point `xy` on the table to the
    point a die's side (`die_mm`) above it, from the board's camera model (`view.P`); None
    without a model."""
    from vision.mauer import project  # (vision.mauer imports this module)

    P = getattr(view, "P", None)
    if P is None:
        return None
    m = _through(np.linalg.inv(view.H), [xy])[0]
    base, top = project(P, [[m[0], m[1], 0.0], [m[0], m[1], -s.die_mm]])
    return top - base


def pick_dice(dice: list, corners: np.ndarray | None, wanted: int = 2) -> tuple[list, list[str]]:
    """The `wanted` dice to use: off the board first, then by confidence; a warning when the
    photo shows more (the scorer warns about fewer)."""
    warnings = []
    if corners is not None:
        poly = corners.astype(np.float32).reshape(-1, 1, 2)

        def on_board(d):
            return cv2.pointPolygonTest(poly, (float(d.center[0]), float(d.center[1])),
                                        False) > 0
    else:
        def on_board(d):
            return False
    ranked = sorted(dice, key=lambda d: (on_board(d), -d.confidence))
    if len(dice) > wanted:
        warnings.append(f"{len(dice)} dice seen; the {wanted} read most surely are used")
    return ranked[:wanted], warnings


def unsure_dice(used: list, said: list[str], below: float) -> list[str]:
    """A warning for each die of `used` read under confidence `below`, in the general dice
    reader's words, unless a warning of `said` already names its place "(x, y)" (a blurred
    read's "check it")."""
    out = []
    for d in used:
        at = f"({d.center[0]:.0f}, {d.center[1]:.0f})"
        if d.confidence < below and not any(at in w for w in said):
            out.append(f"die at {at} read as {d.value} with low confidence {d.confidence:.2f}")
    return out


def masked_median_u8(img: np.ndarray, mask: np.ndarray) -> np.uint8:
    """`np.uint8(np.median(img[mask > 0]))` for uint8 images, from a histogram (no copy of
    the masked pixels, no sort)."""
    cum = np.cumsum(cv2.calcHist([img], [0], mask, [256], [0, 256]).ravel().astype(np.int64))
    n = int(cum[-1])
    lo = int(np.searchsorted(cum, (n - 1) // 2 + 1))  # the middle order statistics
    hi = int(np.searchsorted(cum, n // 2 + 1))
    return np.uint8((lo + hi) / 2)


def close_pips(L: np.ndarray, die_px: float, s: BoardDiceSettings) -> np.ndarray:
    """A uint8 lightness image with its dark pips closed (an elliptic closing over
    `die_close` of `die_px`, a die's side: a die is then one light blob, not split by its
    pips); L itself where `die_close` <= 0."""
    if s.die_close <= 0:
        return L
    k = max(3, int(round(s.die_close * die_px)) | 1)
    return cv2.morphologyEx(L, cv2.MORPH_CLOSE,
                            cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))


def light_die_blobs(L: np.ndarray, die_px: float, s: BoardDiceSettings,
                    shut: list | None = None) -> list[np.ndarray]:
    """Centres (x, y) of the light die-sized blobs of a uint8 lightness image, `die_px` a
    die's side: the dark pips closed first (`close_pips`), then OpenCV's blob detector over
    a ladder of thresholds. `shut`: a list that gets that closed image."""
    L = close_pips(L, die_px, s)
    if shut is not None:
        shut.append(L)
    p = cv2.SimpleBlobDetector_Params()
    p.filterByColor, p.blobColor = True, 255
    p.minThreshold, p.maxThreshold, p.thresholdStep = s.light_thresholds
    p.minArea = max(6.0, 0.25 * die_px * die_px)
    p.maxArea = 3.0 * die_px * die_px
    p.filterByCircularity = False
    p.filterByInertia, p.minInertiaRatio = True, 0.25
    p.filterByConvexity, p.minConvexity = True, 0.6
    p.minDistBetweenBlobs = 0.5 * die_px
    return [np.array(k.pt) for k in cv2.SimpleBlobDetector_create(p).detect(L)]


def pip_dots(L: np.ndarray, die_px: float, s: BoardDiceSettings, scale: float = 1.0
             ) -> np.ndarray:
    """Centres (N, 2) of the pip-sized dark dots of a uint8 lightness image, `die_px` a
    die's side (OpenCV's blob detector over `pip_thresholds`). `scale` > 1: instead the dots
    too large for a pip of that die but not for one of a die `scale` times larger."""
    q = cv2.SimpleBlobDetector_Params()
    q.filterByColor, q.blobColor = True, 0
    q.minThreshold, q.maxThreshold, q.thresholdStep = s.pip_thresholds
    q.minArea = max(2.0, 0.01 * die_px * die_px)
    q.maxArea = max(6.0, 0.08 * die_px * die_px)
    if scale > 1.0:
        q.minArea, q.maxArea = q.maxArea, q.maxArea * scale * scale
    q.filterByCircularity, q.minCircularity = True, 0.6
    q.filterByInertia, q.minInertiaRatio = True, 0.4
    q.filterByConvexity = False
    q.minDistBetweenBlobs = 0.1 * die_px
    return np.array([k.pt for k in cv2.SimpleBlobDetector_create(q).detect(L)]).reshape(-1, 2)


def pair_die_blobs(L: np.ndarray, die_px: float, s: BoardDiceSettings) -> list[np.ndarray]:
    """Centres (x, y) of dice that touch another die: light blobs of a uint8 lightness image
    whose pips are closed already (`close_pips`) of `pair_area` die areas, elongated (minor /
    major second moment at most `pair_max_inertia`), convex enough and clear of the image's
    edge. Two squares whose centres lie D apart have the second moments D**2 / 4 + m and m
    along and across their line (m the same for both), so each die lies sqrt(major - minor)
    from the blob's centre along its long axis. `die_px`: a die's side."""
    lo, hi, _ = s.light_thresholds
    a0, a1 = s.pair_area[0] * die_px * die_px, s.pair_area[1] * die_px * die_px
    h, w = L.shape
    out: list[np.ndarray] = []
    for th in range(lo, hi, max(1, s.pair_step)):
        n, lab, st, _ = cc_stats((L > th).view(np.uint8))
        x, y, bw, bh, area = (st[:, i] for i in range(5))
        keep = (area >= a0) & (area <= a1) & (x > 0) & (y > 0) & (x + bw < w) & (y + bh < h)
        for i in np.flatnonzero(keep):
            blob = (lab[y[i]:y[i] + bh[i], x[i]:x[i] + bw[i]] == i).view(np.uint8)
            m = cv2.moments(blob, True)
            cov = np.array([[m["mu20"], m["mu11"]], [m["mu11"], m["mu02"]]]) / m["m00"]
            ev, vec = np.linalg.eigh(cov)
            if ev[1] <= 0 or ev[0] / ev[1] > s.pair_max_inertia:
                continue
            cnt, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            hull = cv2.contourArea(cv2.convexHull(max(cnt, key=cv2.contourArea)))
            if m["m00"] < s.pair_min_convexity * hull:
                continue
            c = np.array([x[i] + m["m10"] / m["m00"], y[i] + m["m01"] / m["m00"]])
            half = np.sqrt(ev[1] - ev[0]) * vec[:, 1]
            for e in (c - half, c + half):
                if all(np.hypot(*(e - q)) > 0.5 * die_px for q in out):
                    out.append(e)
    return out


def pair_candidates(L: np.ndarray, die_px: float, anchors, s: BoardDiceSettings
                    ) -> list[np.ndarray]:
    """`pair_die_blobs` of a uint8 lightness image around each of `anchors` ((x, y) px: the
    candidates and dice already read; a die that touches another lies beside it), within
    `pair_reach` die sides of it; the centres (x, y) px, each once."""
    h, w = L.shape
    r = int(round(s.pair_reach * die_px))
    boxes = []
    for a in anchors:
        x0, y0 = max(0, int(a[0]) - r), max(0, int(a[1]) - r)
        x1, y1 = min(w, int(a[0]) + r + 1), min(h, int(a[1]) + r + 1)
        if x1 - x0 >= 4 and y1 - y0 >= 4:
            boxes.append((x0, y0, x1, y1))
    out: list[np.ndarray] = []
    if not boxes:
        return out
    bx0, by0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    bx1, by1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
    Lb = close_pips(L[by0:by1, bx0:bx1], die_px, s)  # (once, over the boxes' bounding box)
    for x0, y0, x1, y1 in boxes:
        for c in pair_die_blobs(Lb[y0 - by0:y1 - by0, x0 - bx0:x1 - bx0], die_px, s):
            c = c + (x0, y0)
            if all(np.hypot(*(c - q)) > 0.5 * die_px for q in out):
                out.append(c)
    return out


def touching_dice(L: np.ndarray, H: np.ndarray, off, s: BoardDiceSettings = SETTINGS
                  ) -> list[tuple[np.ndarray, float]]:
    """Dice touching another anywhere in a uint8 lightness image `L` whose pips are closed
    already (`close_pips`; its pixel (0, 0) is the photo's `off` (x, y)): light blobs about
    two dice long and one wide, each die's side known at its place from the board's
    homography `H` (`local_die_px`). At each threshold of the pair ladder (`pair_step`) a
    blob (its outline filled) of `touch_area` die areas whose extent along its long axis
    (its pixels' `touch_extent` to 1 - `touch_extent` quantiles, plus a pixel) is
    `touch_length` die sides and across it `touch_width` is split into two die-sized squares
    at its ends: a candidate at each, half a side in from either end. [(centre (x, y) photo
    px float64, die side px)], each place once."""
    lo, hi, _ = s.light_thresholds
    h, w = L.shape
    off = np.asarray(off, float)
    mean_px = local_die_px(H, off + (w / 2, h / 2), s.die_mm)
    a0 = s.touch_precut[0] * s.touch_area[0] * mean_px * mean_px  # (`touch_precut`)
    a1 = s.touch_precut[1] * s.touch_area[1] * mean_px * mean_px
    out: list[tuple[np.ndarray, float]] = []
    for th in range(lo, hi, max(1, s.pair_step)):
        # (each light region's outer outline, its holes filled: faster than labelling)
        cnts, tree = cv2.findContours((L > th).view(np.uint8), cv2.RETR_CCOMP,
                                      cv2.CHAIN_APPROX_SIMPLE)
        for i in np.flatnonzero(tree[0][:, 3] < 0) if tree is not None else []:  # (not a
            # hole's outline)
            cnt = cnts[i]
            x, y, bw, bh = cv2.boundingRect(cnt)
            if x <= 0 or y <= 0 or x + bw >= w or y + bh >= h or \
                    bw * bh < a0 or cv2.contourArea(cnt) > a1:
                continue
            blob = np.zeros((bh, bw), np.uint8)
            cv2.drawContours(blob, [cnt - (x, y)], 0, 1, -1)
            ys, xs = np.nonzero(blob)
            if not a0 <= len(xs) <= a1:
                continue
            pts = np.stack([xs, ys], axis=1).astype(np.float64)  # (np.c_'s, less overhead)
            c = pts.mean(axis=0)
            side = local_die_px(H, c + (x, y) + off, s.die_mm)
            if not s.touch_area[0] <= len(xs) / (side * side) <= s.touch_area[1]:
                continue
            ev, vec = np.linalg.eigh(np.cov((pts - c).T))
            if ev[1] <= 0 or ev[0] / ev[1] > s.pair_max_inertia:
                continue
            t = np.sort((pts - c) @ vec[:, 1])
            q = np.sort((pts - c) @ vec[:, 0])
            k0 = int(s.touch_extent * (len(t) - 1))
            k1 = int(round((1 - s.touch_extent) * (len(t) - 1)))
            t0, t1, q0, q1 = t[k0], t[k1], q[k0], q[k1]
            length, width = (t1 - t0 + 1) / side, (q1 - q0 + 1) / side
            if not (s.touch_length[0] <= length <= s.touch_length[1]
                    and s.touch_width[0] <= width <= s.touch_width[1]):
                continue
            for e in (t0 + 0.5 * side, t1 - 0.5 * side):
                p = c + e * vec[:, 1] + (x, y) + off
                if all(np.hypot(*(p - o)) > 0.5 * side for o, _ in out):
                    out.append((p, side))
    return out


def mark_groups(L: np.ndarray, closed: np.ndarray, H: np.ndarray, off,
                s: BoardDiceSettings = SETTINGS) -> list[tuple[np.ndarray, float]]:
    """Dice found by their pips in a uint8 lightness image `L` and the same with its pips
    closed (`close_pips`; both (h, w), pixel (0, 0) the photo's `off` (x, y)): the dark
    marks of `closed` - `L` deeper than `mark_depth` (round pips, streaks, bars: their shape
    is not asked), each of `mark_area` die areas and at most `mark_extent` die sides across
    its box (the die's side at the mark from the board's homography `H`, `local_die_px`),
    joined where their centres lie within `mark_join` die sides; a group of up to `mark_max`
    marks (a lone one at least `mark_lone` die sides long) whose box spans at most
    `mark_span` die sides gives a candidate at its box's centre. [(centre (x, y) photo px
    float64, die side px)], each place once."""
    off = np.asarray(off, float)
    h, w = L.shape
    if h < 2 or w < 2:
        return []
    dark = (cv2.subtract(closed, L) > s.mark_depth).view(np.uint8)
    n, _, st, cen = cc_stats(dark)
    if n <= 1:
        return []
    st, cen = st[1:], cen[1:]
    ext, area = np.maximum(st[:, 2], st[:, 3]), st[:, 4]
    mean_px = local_die_px(H, off + (w / 2, h / 2), s.die_mm)
    # (a first cut at the mean die size, `mark_precut`)
    keep = np.flatnonzero((area >= s.mark_precut[0] * s.mark_area[0] * mean_px * mean_px)
                          & (ext <= s.mark_precut[1] * s.mark_extent * mean_px))
    if keep.size == 0:
        return []
    side = _local_die_px_many(H, cen[keep] + off, s.die_mm)
    a = area[keep] / (side * side)
    ok = (a >= s.mark_area[0]) & (a <= s.mark_area[1]) & (ext[keep] <= s.mark_extent * side)
    keep, side = keep[ok], side[ok]
    if keep.size == 0:
        return []
    # marks whose centres lie within `mark_join` die sides are one group: discs of half that
    # round each centre, joined where they touch (linear in the marks, not quadratic)
    disc = np.zeros((h, w), np.uint8)
    for (x, y), r in zip(cen[keep], side, strict=True):
        cv2.circle(disc, (int(round(x)), int(round(y))), max(1, int(round(s.mark_join * r / 2))),
                   255, -1)
    _, glab = cv2.connectedComponents(disc, connectivity=8)
    cx = np.clip(np.round(cen[keep, 0]).astype(np.intp), 0, w - 1)
    cy = np.clip(np.round(cen[keep, 1]).astype(np.intp), 0, h - 1)
    group = glab[cy, cx]
    out: list[tuple[np.ndarray, float]] = []
    for g in np.unique(group):
        mem = keep[group == g]
        if mem.size > s.mark_max:
            continue
        x0, y0 = st[mem, 0].min(), st[mem, 1].min()
        x1, y1 = (st[mem, 0] + st[mem, 2]).max(), (st[mem, 1] + st[mem, 3]).max()
        if mem.size == 1 and ext[mem[0]] < s.mark_lone * side[group == g][0]:
            continue  # (a pip-sized lone dot: the lone dots')
        c = np.array([(x0 + x1) / 2.0, (y0 + y1) / 2.0])
        gside = local_die_px(H, c + off, s.die_mm)
        if max(x1 - x0, y1 - y0) > s.mark_span * gside:
            continue
        p = c + off
        if all(np.hypot(*(p - o)) > 0.5 * gside for o, _ in out):
            out.append((p, gside))
    return out


def _local_die_px_many(H: np.ndarray, xy: np.ndarray, die_mm: float) -> np.ndarray:
    """`local_die_px` at each of the image points `xy` ((N, 2) px) at once: (N,) float64."""
    m = _through(np.linalg.inv(H), xy)
    p0, px, py = _through(H, m), _through(H, m + (1.0, 0.0)), _through(H, m + (0.0, 1.0))
    jx, jy = px - p0, py - p0
    return die_mm * np.sqrt(np.abs(jx[:, 0] * jy[:, 1] - jx[:, 1] * jy[:, 0]))


def _clear_of(c: np.ndarray, pts: np.ndarray, reach: float) -> bool:
    """Whether point `c` ((2,) px) lies more than `reach` px from each of `pts` ((K, 2)
    float64; True for none): `all(np.hypot(*(c - e)) > reach for e in pts)` in one array
    operation (a noisy photo's thousands of dots against hundreds of candidates took 14 s
    one pair at a time, session 21, H2)."""
    d = c[None] - pts
    return bool((np.hypot(d[:, 0], d[:, 1]) > reach).all())


def _close_pairs(pts: np.ndarray, reach: float) -> tuple[np.ndarray, np.ndarray]:
    """All ordered pairs (i, j), i == j included, of the points `pts` ((N, 2) float64)
    lying under `reach` px apart (`np.hypot` of their differences, as the full (N, N)
    matrix would give them), sorted by i then j: a grid of `reach`-sized cells, each point
    tested against the 3 x 3 cells round its own (a noisy photo's 8000 pip dots made a
    1 GB matrix, session 21, H2)."""
    n = len(pts)
    if n == 0 or not reach > 0:
        return np.zeros(0, np.intp), np.zeros(0, np.intp)
    cell = np.floor(pts / reach).astype(np.int64)
    cell -= cell.min(axis=0) - 1
    cols = int(cell[:, 1].max()) + 2
    key = cell[:, 0] * cols + cell[:, 1]
    order = np.argsort(key, kind="stable")
    sk = key[order]
    ii, jj = [], []
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            want = key + dx * cols + dy
            lo, hi = np.searchsorted(sk, want, "left"), np.searchsorted(sk, want, "right")
            cnt = hi - lo
            i = np.repeat(np.arange(n), cnt)
            start = np.repeat(lo - np.cumsum(cnt) + cnt, cnt)
            j = order[start + np.arange(len(i))]
            ii.append(i)
            jj.append(j)
    i, j = np.concatenate(ii), np.concatenate(jj)
    diff = pts[i] - pts[j]
    keep = np.hypot(diff[:, 0], diff[:, 1]) < reach
    i, j = i[keep], j[keep]
    s = np.lexsort((j, i))
    return i[s], j[s]


def _clear_in_turn(pts: np.ndarray, fixed: np.ndarray, reach: float, in_turn: bool = True
                   ) -> np.ndarray:
    """(N,) bool: which of the points `pts` ((N, 2) float64) are taken when each, in turn,
    is taken where it lies more than `reach` px from each of `fixed` ((K, 2)) and, with
    `in_turn`, from each point taken before it: `_clear_of` one point at a time against a
    growing array (the same `np.hypot` of the same differences), its near pairs found at
    once by `_close_pairs` (a busy table's 500-1500 pip pairs cost 10-25 ms one by one)."""
    n = len(pts)
    if n == 0:
        return np.zeros(0, bool)
    both = np.concatenate([pts, fixed]).reshape(-1, 2)
    # (pairs under a hair more than `reach`: every pair `_clear_of` would not call clear)
    i, j = _close_pairs(both, reach * (1 + 1e-9) + 1e-9)
    d = both[i] - both[j]
    near = ~(np.hypot(d[:, 0], d[:, 1]) > reach) & (i < n) & (i != j)
    i, j = i[near], j[near]
    blocked = np.zeros(n, bool)
    blocked[i[j >= n]] = True
    if not in_turn:
        return ~blocked
    before = j < i  # (j < i < n: a point before it)
    i, j = i[before], j[before]
    first = np.searchsorted(i, np.arange(n + 1))
    taken = np.zeros(n, bool)
    for k in range(n):
        if not blocked[k] and not taken[j[first[k]:first[k + 1]]].any():
            taken[k] = True
    return taken


def _points(cands: list) -> np.ndarray:
    """(K, 2) float64 array of a list of (2,) points."""
    return np.array(cands, np.float64).reshape(-1, 2)


def die_candidates(image_bgr: np.ndarray, view: BoardView, board: Board,
                    s: BoardDiceSettings, lightness: np.ndarray | None = None,
                    lone: list | None = None, beside=None,
                    pairs: list | None = None, big: list | None = None,
                    touch: list | None = None, fine: list | None = None,
                    marks: list | None = None, busy: list | None = None
                    ) -> list[tuple[np.ndarray, float]]:
    """Light compact blobs of a die's size on the table around the board (the board itself
    masked out): [(centre px, expected die side px)], nearest the board first. `lone`: a
    list that gets the lone pip-sized dark dots (a 1 on a table of the die's colour),
    nearest the board first, as (centre, die side px). `beside(fn, *args)`: runs `fn` on
    another thread (an object whose `.result()` gives what it returned), or None: the light
    blob search (OpenCV, which lets go of Python's lock) is then made there while the pip
    dots are looked for here; the same candidates either way. `pairs`: a list that gets a
    function of a list of (x, y) px giving the candidates of dice touching another around
    them (`pair_candidates`) as (centre, die side px), made only when called. `big`: a list
    that gets a function () giving the lone dots too large for a pip at the board's mean
    scale but not for one of the largest die there (`lone_big`, `_largest_die_px`), nearest
    the board first, as (centre, die side px), made only when called. `touch`: a list that
    gets a function () giving the dice touching another anywhere in the search ring
    (`touching_dice`) as (centre, die side px), made only when called. `fine`: a list that
    gets a function () giving the light blobs over `fine_thresholds` not near a candidate,
    nearest the board first, as (centre, die side px), made only when called. `marks`: a
    list that gets a function () giving the dice found by their pips (`mark_groups`) not
    near a light blob candidate, nearest the board first, as (centre, die side px), made
    only when called. `busy`: a list that gets the table's clutter round the board: its
    light die-sized blobs and pip-sized dark dots per 100 die faces of the search ring
    (the board left out; `busy_clutter`)."""
    h, w = image_bgr.shape[:2]
    wm, hm = board.size_mm
    m = s.dice_search_mm
    outer = _through(view.H, [[-m, -m], [wm + m, -m], [wm + m, hm + m], [-m, hm + m]])
    centre = _through(view.H, [[wm / 2, hm / 2]])[0]
    ppm = float(np.sqrt(abs(cv2.contourArea(view.corners.astype(np.float32))) / (wm * hm)))
    die_px = s.die_mm * ppm
    # only the search ring's bounding box (2 px more, filled like the rest outside the
    # ring) is searched: the same blobs as in the whole photo filled outside the ring
    ring = np.round(outer).astype(np.int32)
    x0, y0 = max(0, int(ring[:, 0].min()) - 2), max(0, int(ring[:, 1].min()) - 2)
    x1, y1 = min(w, int(ring[:, 0].max()) + 3), min(h, int(ring[:, 1].max()) + 3)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return []
    off = np.array([x0, y0], np.int32)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, ring - off, 1)
    cv2.fillConvexPoly(mask, np.round(view.corners).astype(np.int32) - off, 0)
    if lightness is None:
        L = cv2.cvtColor(image_bgr[y0:y1, x0:x1], cv2.COLOR_BGR2LAB)[..., 0]
    else:
        L = lightness[y0:y1, x0:x1]
    if mask.any():  # outside the ring: the ring's median (as np.where(mask > 0, L, median))
        L = cv2.copyTo(L, mask, np.full_like(L, masked_median_u8(L, mask)))
    shut: list = []  # (L with its pips closed: the light blobs' and, when asked for, the
    # touching and the fine search's: made once)
    # the light blobs on the other thread while the pip dots are looked for here
    light = beside(light_die_blobs, L, die_px, s, shut) if beside is not None and \
        s.pip_candidates else None
    # dice with no light blob (a white die on a white table): their pips (in L itself: the
    # closing of the light blob search fills them)
    pips = pip_dots(L, die_px, s) if s.pip_candidates else None
    cands = [c + off for c in (light.result() if light is not None
                               else light_die_blobs(L, die_px, s, shut))]
    if busy is not None:  # (a printed table's marks and the gaps between them)
        faces = max(1.0, float(np.count_nonzero(mask)) / die_px ** 2)
        busy.append(100 * (len(cands) + (len(pips) if pips is not None else 0)) / faces)
    if s.pip_candidates:
        if len(pips) >= 2:
            pips = pips + off
            pi, pj = _close_pairs(pips, 0.6 * die_px)  # (i, j) with d[i, j] < 0.6 die_px
            near = np.bincount(pi, minlength=len(pips)) - 1  # pips of one face lie close
            first = np.searchsorted(pi, np.arange(len(pips) + 1))  # (each i's pairs)
            ids = np.flatnonzero(near >= 1)
            # each pip's mean with the pips near it, taken in turn where clear of the light
            # blobs and of the means taken before it (`_clear_in_turn`)
            means = (np.add.reduceat(pips[pj], first[:-1], axis=0)
                     / np.diff(first)[:, None])[ids]
            light = _points(cands)
            taken = means[_clear_in_turn(means, light, 0.8 * die_px)]
            cands += list(taken)
            if lone is not None:
                alone = pips[near == 0]
                alone = list(alone[_clear_in_turn(alone, np.concatenate([light, taken]),
                                                  0.8 * die_px, in_turn=False)])
                alone.sort(key=lambda c: float(np.linalg.norm(c - centre)))
                lone += [(c, die_px) for c in alone[: s.max_lone_candidates]]
        elif lone is not None and len(pips) == 1:
            lone.append((pips[0] + off, die_px))
    cands.sort(key=lambda c: float(np.linalg.norm(c - centre)))
    if s.busy_pick and len(cands) > s.max_die_candidates:
        cands = _busy_pick(L, cands, off, die_px, s)
    at = _points(cands)  # (the later searches' test against them: `_clear_of`)
    if big is not None and s.lone_big:
        def big_dots():
            scale = _largest_die_px(view.H, ring, w, h, s.die_mm) / die_px
            if scale <= 1.0:  # (no die in the search area is larger than the mean)
                return []
            scale = min(scale, s.lone_big_max_scale)  # (a ring reaching to the horizon)
            got = pip_dots(L, die_px, s, scale) + off
            alone = [c for c in got if _clear_of(c, at, s.same_die * die_px)]
            alone.sort(key=lambda c: float(np.linalg.norm(c - centre)))
            return [(c, die_px) for c in alone[: s.max_lone_candidates]]
        big.append(big_dots)
    if pairs is not None:
        pairs.append(lambda at: [(c + off, die_px) for c in pair_candidates(
            L, die_px, [np.asarray(a, float) - off for a in at], s)])

    def closed() -> np.ndarray:  # (the light blob search's, `shut`)
        if not shut:
            shut.append(close_pips(L, die_px, s))
        return shut[0]

    if touch is not None:
        touch.append(lambda: touching_dice(closed(), view.H, off, s))
    if fine is not None and s.fine_thresholds is not None:
        def fine_blobs():  # (its pips closed already: `die_close` 0)
            got = [c + off for c in light_die_blobs(
                closed(), die_px, replace(s, light_thresholds=s.fine_thresholds,
                                          die_close=0.0))]
            got = [c for c in got if _clear_of(c, at, s.same_die * die_px)]
            got.sort(key=lambda c: float(np.linalg.norm(c - centre)))
            return [(c, die_px) for c in got[: s.max_die_candidates]]
        fine.append(fine_blobs)
    if marks is not None and s.mark_search:
        def mark_cands():
            got = [(c, p) for c, p in mark_groups(L, closed(), view.H, off, s)
                   if _clear_of(c, at, s.mark_apart * p)]
            got.sort(key=lambda cp: float(np.linalg.norm(cp[0] - centre)))
            return [(c, die_px) for c, _ in got[: s.max_mark_candidates]]
        marks.append(mark_cands)
    return [(c, die_px) for c in cands[: s.max_die_candidates]]


def _busy_pick(L: np.ndarray, cands: list, off, die_px: float, s: BoardDiceSettings
               ) -> list:
    """The `max_die_candidates` of more candidates (a busy table: newsprint's gaps between
    its lines are light die-sized blobs, hundreds of them) most like a die's face, nearest
    the board first among them: taken in turns from the lightest face disc (85th
    percentile, `seen_face_r`), the face most above the table ring round it (its median,
    `seen_table_r`) and the most uniform face (share of the disc within `busy_uniform` of
    its 85th percentile): a die's white face with its few pips is all three, a gap in
    print seldom. `L`: the search box's uint8 lightness, `off` its origin in the photo;
    `cands` (x, y) photo px, nearest the board first."""
    feats = _busy_feats(L, _points(cands) - off, die_px, s)
    orders = [np.argsort(-feats[:, k], kind="stable") for k in range(3)]
    picked: list[int] = []
    for row in zip(*orders, strict=True):
        for i in row:
            if len(picked) < s.max_die_candidates and i not in picked and \
                    np.isfinite(feats[i, 0]):
                picked.append(int(i))
    return [cands[i] for i in sorted(picked)]


def _busy_feats(L: np.ndarray, at: np.ndarray, side: float, s: BoardDiceSettings
                ) -> np.ndarray:
    """`_busy_pick`'s features of the candidates `at` ((K, 2) px of the uint8 lightness `L`)
    at once: (K, 3) float64, per candidate its face disc's 85th percentile, that less the
    table ring's median and the disc's share within `busy_uniform` of it (discs and rings
    of `_disc_and_ring`, die side `side` px), -inf where it gives None. The same numbers as
    one candidate at a time (a Python loop: 50-140 ms a photo on a printed cloth's 200-690
    candidates): each pixel's distance is computed as there, and the percentile, median and
    share are numpy's along rows of candidates whose discs (rings) hold as many pixels."""
    k = len(at)
    feats = np.full((k, 3), -np.inf)
    if k == 0:
        return feats
    h, w = L.shape
    sd = max(side, 1.0)
    # every pixel `_disc_and_ring`'s window holds within the ring's outer radius: a square
    # of offsets round each centre's pixel wide enough for it
    rr = int(np.ceil(s.seen_table_r[1] * sd)) + 2
    d = np.arange(-rr, rr + 1)
    base = np.floor(at).astype(np.int64)  # (K, 2)
    xx = base[:, 0, None, None] + d[None, None, :]  # (K, 1, G)
    yy = base[:, 1, None, None] + d[None, :, None]  # (K, G, 1)
    r = np.hypot(xx - at[:, 0, None, None], yy - at[:, 1, None, None]) / sd  # (K, G, G)
    inside = (xx >= 0) & (xx < w) & (yy >= 0) & (yy < h)
    disc = (r <= s.seen_face_r) & inside
    ring = (r >= s.seen_table_r[0]) & (r <= s.seen_table_r[1]) & inside
    vals = L[np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1)]  # (K, G, G)
    disc, ring = disc.reshape(k, -1), ring.reshape(k, -1)
    vals = vals.reshape(k, -1)
    nd, nr = disc.sum(axis=1), ring.sum(axis=1)
    ok = (nd >= 20) & (nr >= 20)
    face = np.full(k, -np.inf)
    share = np.full(k, -np.inf)
    table = np.zeros(k)
    for n in np.unique(nd[ok]):
        rows = np.flatnonzero(ok & (nd == n))
        inner = vals[rows][disc[rows]].reshape(len(rows), n).astype(np.float32)
        f = np.percentile(inner, 85, axis=1)
        face[rows] = f
        # (float32 samples against float64 bars, as against a Python float's: exactly)
        share[rows] = (inner >= (f.astype(np.float64) - s.busy_uniform)[:, None]).mean(axis=1)
    for n in np.unique(nr[ok]):
        rows = np.flatnonzero(ok & (nr == n))
        table[rows] = np.median(vals[rows][ring[rows]].reshape(len(rows), n), axis=1)
    feats[ok, 0] = face[ok]
    feats[ok, 1] = face[ok] - table[ok]
    feats[ok, 2] = share[ok]
    return feats


def _layout_values() -> np.ndarray:
    """(512,) int8: per 9-bit code of the 3 x 3 pip spots a face darkens (bit r * 3 + c for
    the spot at row r, column c), the value of the die face with those dark spots, any
    turn; 0 where no face has them."""
    from vision.dice import LAYOUTS  # pips (x, y) at -0.5, 0, 0.5 of the half side

    out = np.zeros(512, np.int8)
    for v, pips in LAYOUTS.items():
        spots = {(int(round(y * 2)) + 1, int(round(x * 2)) + 1) for x, y in pips}
        for _ in range(4):
            out[sum(1 << (r * 3 + c) for r, c in spots)] = v
            spots = {(c, 2 - r) for r, c in spots}
    return out


_LAYOUT_VALUE = _layout_values()
_SPOT_BITS = (1 << np.arange(9)).astype(np.int64)


@lru_cache(maxsize=4)
def _spot_grids(shift: float, steps: int, spacing: tuple[float, ...], explain: float
                ) -> tuple[np.ndarray, ...]:
    """`spot_read`'s fixed grids (made once per settings): the turns (T, 2, 2); in face
    units per (spacing P, shift S, k): the 3 x 3 pip spots (k 9), the face samples (81)
    and the ring just outside the spots (12); which face samples are on the square's rim
    (81,); and (P, S, 81, 9) float32 1 where a face sample is within `explain` of a spot."""
    from vision.dice import _TURN_ROTS

    rot = np.stack(_TURN_ROTS)  # (T, 2, 2)
    sh = np.linspace(-shift, shift, steps)
    shifts = np.array([[dx, dy] for dx in sh for dy in sh])  # (S, 2)
    sps = np.asarray(spacing, float)  # (P,)
    grid = np.array([[c, r] for r in (-1, 0, 1) for c in (-1, 0, 1)], float)  # (9, 2)
    facep = _FACE_GRID
    ring = np.array([[u, e] for u in (-1, 0, 1) for e in (-1, 1)]
                    + [[e, u] for u in (-1, 0, 1) for e in (-1, 1)], float)  # (12, 2)
    is_out = np.array([[0, 1]] * 6 + [[1, 0]] * 6, bool)  # which coordinate lies outside
    outer = (sps + 1.0) / 2  # (P,)
    spots = shifts[None, :, None] + grid[None, None] * sps[:, None, None, None]
    faces = np.broadcast_to(shifts[None, :, None] + facep[None, None], (len(sps),) + (
        len(shifts), len(facep), 2))
    rings = shifts[None, :, None] + np.where(
        is_out[None], ring[None] * outer[:, None, None],
        ring[None] * sps[:, None, None])[:, None]
    rim = np.abs(facep).max(axis=1) > 0.79
    dd = np.linalg.norm(faces[:, :, :, None] - spots[:, :, None], axis=-1)  # (P, S, 81, 9)
    out = (rot, spots, faces, rings, rim, (dd < explain).astype(np.float32))
    for x in out:
        x.flags.writeable = False  # (shared by every call)
    return out


def spot_read(L: np.ndarray, centre, a: np.ndarray, s: BoardDiceSettings = SETTINGS
              ) -> tuple[int, float] | None:
    """A die's value from the darkness of its face's 3 x 3 pip spots, the face being the flat
    square of known shape and size `a` (2x2: face units, half a side, -> px) near `centre`
    in a uint8 lightness image: over small shifts, turns and pip spacings, the spots split
    into dark and light with the widest gap; the dark ones must be a die's layout, and the
    face just outside the spots must be clean (no streak running on past them: a 4 smeared
    along its columns looks like a 6). For pips blurred into each other (a 6's columns),
    which give no pip candidates of their own. (value, gap) or None."""
    return _spot_read_at(spot_blur(L, a), centre, a, s)


def spot_blur(L: np.ndarray, a: np.ndarray) -> np.ndarray:
    """The float32 lightness `spot_read` samples: a uint8 lightness image blurred in
    proportion to the face's size (`a`: its map, face units -> px)."""
    return cv2.GaussianBlur(L.astype(np.float32), (0, 0), max(1.0, 0.08 * np.sqrt(abs(
        np.linalg.det(a)))))


def _spot_read_at(Lf: np.ndarray, centre, a: np.ndarray, s: BoardDiceSettings
                  ) -> tuple[int, float] | None:
    """`spot_read` of `spot_blur(L, a)` (made once for several centres)."""
    h, w = Lf.shape
    rot, spots, faces, rings, rim, near = _spot_grids(s.spot_shift, s.spot_shift_steps,
                                                      tuple(s.spot_spacing), s.spot_explain)
    m = np.einsum("ij,tjk->tik", a, rot)  # (T, 2, 2) face units -> px
    c0 = np.asarray(centre, float)

    flat = Lf.ravel()

    def sample(u, inside=False):  # (P, S, k, 2) face units -> (T, P, S, k) lightness
        # c0 + m @ u per turn and axis, written out (np.einsum's "tij,pskj->tpski", bit for
        # bit, several times faster)
        ux, uy = u[None, ..., 0], u[None, ..., 1]
        x = c0[0] + (m[:, 0, 0, None, None, None] * ux + m[:, 0, 1, None, None, None] * uy)
        y = c0[1] + (m[:, 1, 0, None, None, None] * ux + m[:, 1, 1, None, None, None] * uy)
        ok = ((x >= 0) & (y >= 0) & (x <= w - 1) & (y <= h - 1)) if inside else None
        # (np.clip's numbers, less overhead: a third of the read's time went to it; in
        # place, x and y being this call's own)
        for q, n in ((x, w), (y, h)):
            np.rint(q, out=q)
            np.maximum(q, 0, out=q)
            np.minimum(q, n - 1, out=q)
        q = y.astype(np.intp)
        q *= w
        q += x.astype(np.intp)
        return flat[q], ok

    v, ok = sample(spots, inside=True)
    # the face samples do not depend on the pips' spacing: sampled for one, the same
    # numbers for each (they were 4/5 of the samples)
    f1 = sample(faces[:1])[0]  # (T, 1, S, 81)
    f = np.broadcast_to(f1, (len(m), faces.shape[0]) + faces.shape[1:3])
    r, _ = sample(rings)
    kq = int(0.85 * (f.shape[-1] - 1))
    face = np.broadcast_to(np.partition(f1, kq, axis=-1)[..., kq], f.shape[:3])  # (T, P,
    # S): the face's 85th percentile
    lo = v.min(axis=-1)
    con = face - lo
    t = (face[..., None] - v) / np.maximum(con, 1e-6)[..., None]
    order = np.sort(t, axis=-1)
    gaps = np.diff(order, axis=-1)
    k = gaps.argmax(axis=-1)
    gap = np.take_along_axis(gaps, k[..., None], -1)[..., 0]
    cut = np.take_along_axis(order, k[..., None], -1)  # (T, P, S, 1)
    dark_spot = t > cut  # (T, P, S, 9)
    out = ((face[..., None] - r) / np.maximum(con, 1e-6)[..., None]).max(axis=-1)
    value = _LAYOUT_VALUE[dark_spot.astype(np.int64) @ _SPOT_BITS]  # (T, P, S), 0: none
    clean = ok.all(axis=-1) & (con >= s.spot_min_contrast)
    if s.spot_layouts_only:  # the widest split among the placements whose dark spots are
        # a die's layout and end where its pips do (not only the widest of all, which a
        # grid a little off a die with big pips may give: a 5's cross turned, or a 6's
        # pips reaching just past its spots)
        clean &= (value > 0) & (out <= s.spot_max_outside)
    # the face's tests, only for the placements still clean (the same placements pass as
    # when every test is made on all of them; most fail the ones above)
    at = np.nonzero(clean)
    if at[0].size:
        fa, fc = face[at][:, None], np.maximum(con[at], 1e-6)[:, None]
        fs = f[at]  # (N, 81)
        # the square lies on the die: its rim (0.8 of the way out) is face, not table
        rim_dark = ((fa - fs[:, rim]) > 0.5 * fc).mean(axis=-1)
        # every dark part of the face lies at a dark spot (a grid turned or shifted off the
        # pips may split its spots cleanly too, leaving pips between them): some dark spot
        # is near (an any() over the spots as a product of 0/1s)
        explained = (near[at[1:]] @ dark_spot[at][..., None].astype(np.float32))[..., 0] > 0
        stray = (((fa - fs) / fc > 0.5) & ~explained).mean(axis=-1)
        clean[at] = (rim_dark <= s.spot_max_rim_dark) & (stray <= s.spot_max_stray)
    gap = np.where(clean, gap, -1.0)
    b = np.unravel_index(int(np.argmax(gap)), gap.shape)
    if gap[b] < s.spot_min_gap or out[b] > s.spot_max_outside:
        return None
    if value[b] == 0:  # (with `spot_layouts_only`, neither can be: only off)
        return None
    if value[b] == 1 and s.one_as_pair:
        # a 1 is its centre spot dark and the rest of the square light, which a placement
        # centred on one pip of a 2 or 3 also gives on a table as light as the face (its
        # other pips lie at the square's corners, past the spots and the rim sampled):
        # the pip-sized minima round it, read as a face (`dot_read`), must not be another
        # die's layout
        partners: list | None = [] if s.one_alone else None
        other = _one_as_pair(Lf, c0 + m[b[0]] @ spots[b[1], b[2], 4], a, s, partners)
        if other is not None:
            return other[:2]
        if partners:  # (`one_alone`: a like pip at a 2's spacing, face between: no lone 1)
            return None
    return int(value[b]), float(gap[b])


def _face_ends(Lf: np.ndarray, centre, m: np.ndarray, face: float, con: float,
               s: BoardDiceSettings) -> bool:
    """Whether a face read at `centre` (px of the float32 `Lf`; `m` its map, face units ->
    px, turned as its pips are) ends at its edge: on the square `dot_edge_r` face units
    round it at most `dot_edge_light` of the samples are as light as the face (`face` its
    level, `con` its darkest pip's depth below it; within `dot_edge_tol` x `con`). False
    where the square leaves the image."""
    h, w = Lf.shape
    p = np.asarray(centre, float) + (s.dot_edge_r * _SQUARE_RIM) @ m.T
    if np.any(p < 0) or np.any(p[:, 0] > w - 1) or np.any(p[:, 1] > h - 1):
        return False
    e = Lf[np.round(p[:, 1]).astype(np.intp), np.round(p[:, 0]).astype(np.intp)]
    return float(np.mean((face - e) / max(con, 1e-6) < s.dot_edge_tol)) <= s.dot_edge_light


def _one_as_pair(Lf: np.ndarray, one, a: np.ndarray, s: BoardDiceSettings,
                 partners: list | None = None) -> tuple[int, float, np.ndarray] | None:
    """The face a 1 at `one` (px of the float32 `Lf`; `a` the face's map, face
    units -> px) belongs to where it is one pip of a 2 or 3: a pip-sized minimum of
    `Lf` (darkest within `dot_window`) as deep as half the 1's pip, a 2's pip spacing away
    (`one_pair_reach` face units), with whose midpoint `dot_read` reads a face of 2+ pips.
    (value, gap, the midpoint in px) of the first such face, deepest partner first, or
    None. `partners`, when given, gets (where no face is read) each round partner as deep
    as a like pip (`one_alone_depth`) with face between it and the 1 (`_face_between`)."""
    h, w = Lf.shape
    hs = float(np.sqrt(abs(np.linalg.det(a))))
    c0 = np.asarray(one, float)
    lo, hi = s.one_pair_reach
    r = int(np.ceil(hi * np.abs(a).sum(axis=1).max())) + 2
    x0, y0 = max(0, int(c0[0]) - r), max(0, int(c0[1]) - r)
    x1, y1 = min(w, int(c0[0]) + r + 1), min(h, int(c0[1]) + r + 1)
    if x1 - x0 < 5 or y1 - y0 < 5:
        return None
    win = Lf[y0:y1, x0:x1]
    fv = c0 + _FACE_GRID @ a.T
    if np.any(fv < 0) or np.any(fv[:, 0] > w - 1) or np.any(fv[:, 1] > h - 1):
        return None
    face = float(np.percentile(Lf[np.round(fv[:, 1]).astype(np.intp),
                                  np.round(fv[:, 0]).astype(np.intp)], 85))
    depth1 = face - float(Lf[int(round(c0[1])), int(round(c0[0]))])
    if depth1 < s.spot_min_contrast:
        return None
    k = max(3, int(s.dot_window * hs) | 1)
    er = cv2.erode(win, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    ys, xs = np.nonzero(win <= er)
    depth = face - win[ys, xs]
    p = np.stack([xs + x0, ys + y0], 1).astype(float)
    d = np.linalg.norm((p - c0) @ np.linalg.inv(a).T, axis=1)
    keep = (d >= lo) & (d <= hi) & (depth >= s.dot_rel_depth * depth1)
    th = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    ring = s.one_pair_ring * np.stack([np.cos(th), np.sin(th)], 1) @ a.T  # (12, 2) px
    if partners is not None:  # the 1's own pip: the deepest minimum on its spot (the
        # read's spot may lie off its centre)
        own = d <= s.one_alone_rim
        j = int(np.argmax(np.where(own, depth, -np.inf))) if own.any() else -1
        c1, dep1 = (p[j], float(depth[j])) if j >= 0 else (c0, depth1)
    for i in np.argsort(-depth[keep]):
        q = p[keep][i]
        # a pip is round: its blurred darkness falls off alike in every direction (the
        # face's edge or a newspaper's print beside a 1 darkens one side of its ring)
        rq = np.round(q + ring).astype(np.intp)
        if np.any(rq < 0) or np.any(rq[:, 0] > w - 1) or np.any(rq[:, 1] > h - 1):
            continue
        dk = (face - Lf[rq[:, 1], rq[:, 0]]) / depth[keep][i]
        if dk.max() - dk.min() > s.one_pair_ring_spread:
            continue
        mid = (c0 + q) / 2
        got = dot_read(Lf, mid, a, s)
        if got is not None and got[0] != 1:
            return got[0], got[1], mid
        if partners is not None and s.one_alone_depth[0] <= depth[keep][i] / dep1 <= \
                s.one_alone_depth[1] and float(dk.mean()) <= s.one_alone_ring and \
                _face_between(Lf, c1, q, face, dep1, a, s):
            partners.append(q)
    return None


def _face_between(Lf: np.ndarray, p: np.ndarray, q: np.ndarray, face: float, depth: float,
                  a: np.ndarray, s: BoardDiceSettings) -> bool:
    """Whether the line between two pips (px of the float32 `Lf`; `a` the face's map, face
    units -> px) stays on face: no sample more than `one_alone_line` x `depth` below the
    `face` level, the pips' own blurred discs (`one_alone_rim` face units round each) left
    out: the two could be pips of one face (a touching die's pip lies past a seam or the
    table; a 3's centre pip on the line keeps its corner pip's 1, as before)."""
    n = float(np.linalg.norm(np.linalg.solve(a, q - p)))  # the line's length, face units
    e = s.one_alone_rim / max(n, 1e-6)
    if e >= 0.5:
        return False
    t = np.linspace(e, 1 - e, 9)
    xy = np.round(p[None] + t[:, None] * (q - p)[None]).astype(np.intp)
    return bool(np.all(face - Lf[xy[:, 1], xy[:, 0]] <= s.one_alone_line * depth))


def dot_read(Lf: np.ndarray, centre, a: np.ndarray, s: BoardDiceSettings = SETTINGS,
             where: list | None = None) -> tuple[int, float] | None:
    """A die's value from the local darkness minima of `spot_blur`'s float32 lightness `Lf`
    on the face (the flat square of known shape `a`, face units -> px) near `centre`: the
    minima within `dot_reach` at least `dot_rel_depth` as deep as the deepest (depth: the
    face's 85th percentile minus the minimum, the deepest at least `spot_min_contrast`) are
    the pips; 2 to 6 of them must lie on a die's layout (a 3 x 3 grid of `dot_spacing`, any
    turn, centred on their mean, within `dot_max_residual`), and the grid's other spots must
    be light (at most `dot_max_light` of the darkest pip's depth, and `spot_min_gap` of it
    lighter than the lightest pip): a 4 whose middle spots are dark is a 6, not a 4. Geometry that
    holds for any die: pip count and layout in a face of the measured size, the pips'
    darkness against the face's own. Smooth shading and glare give no minima, so this reads
    faces the spot read's rim and stray guards refuse. (value, gap) or None; `where`, when
    given, gets the read face's centre (px: the pips' grid's centre) and its dark spots
    ((k, 2) face units from that centre)."""
    h, w = Lf.shape
    hs = float(np.sqrt(abs(np.linalg.det(a))))
    c0 = np.asarray(centre, float)
    r = int(np.ceil(s.dot_reach * 1.5 * np.abs(a).sum(axis=1).max())) + 2
    x0, y0 = max(0, int(c0[0]) - r), max(0, int(c0[1]) - r)
    x1, y1 = min(w, int(c0[0]) + r + 1), min(h, int(c0[1]) + r + 1)
    if x1 - x0 < 5 or y1 - y0 < 5:
        return None
    win = Lf[y0:y1, x0:x1]
    k = max(3, int(s.dot_window * hs) | 1)
    er = cv2.erode(win, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    ys, xs = np.nonzero(win <= er)
    ai = np.linalg.inv(a)
    u = (np.stack([xs + x0, ys + y0], 1) - c0) @ ai.T

    def at(uu):  # face units -> Lf, None outside the image
        p = c0 + uu @ a.T
        if np.any(p < 0) or np.any(p[:, 0] > w - 1) or np.any(p[:, 1] > h - 1):
            return None
        return Lf[np.round(p[:, 1]).astype(np.intp), np.round(p[:, 0]).astype(np.intp)]

    fv = at(_FACE_GRID)
    if fv is None:
        return None
    face = float(np.percentile(fv, 85))
    near = np.abs(u).max(axis=1) <= s.dot_reach
    u, depth = u[near], face - win[ys[near], xs[near]]
    if len(u) < 2 or depth.max() < s.spot_min_contrast:
        return None
    pips = depth >= s.dot_rel_depth * depth.max()
    u = u[pips]
    if not 2 <= len(u) <= 6:
        return None
    mid = u.mean(axis=0)
    d = u - mid
    # every turn (2 degree steps) and spacing at once: each minimum's grid cell and residual
    th = np.deg2rad(np.arange(0.0, 90.0, 2.0))
    cs, sn = np.cos(th)[:, None], np.sin(th)[:, None]  # (A, 1)
    q = np.stack([d[:, 0] * cs + d[:, 1] * sn, d[:, 1] * cs - d[:, 0] * sn], -1)  # turned back
    sp = np.linspace(*s.dot_spacing)
    qs = q[:, None] / sp[None, :, None, None]  # (A, P, n, 2)
    g = np.round(qs)
    res = (np.abs(qs - g) * sp[None, :, None, None]).max(axis=(-1, -2))  # (A, P)
    bits = _SPOT_BITS[((g[..., 1] + 1) * 3 + g[..., 0] + 1).clip(0, 8).astype(np.intp)]
    code = np.bitwise_or.reduce(bits, axis=-1)  # (A, P); one cell per minimum: sum == or
    ok = (res <= s.dot_max_residual) & (np.abs(g).max(axis=(-1, -2)) <= 1) & (
        bits.sum(axis=-1) == code) & (_LAYOUT_VALUE[code] > 0)
    if not ok.any():
        return None
    i, j = np.unravel_index(int(np.argmin(np.where(ok, res, np.inf))), ok.shape)
    th, sp, code = th[i], sp[j], int(code[i, j])
    cs, sn = np.cos(th), np.sin(th)
    grid = np.array([[c, r_] for r_ in (-1, 0, 1) for c in (-1, 0, 1)], float) * sp
    v = at(mid + grid @ np.array([[cs, sn], [-sn, cs]]))
    if v is None:
        return None
    dark = (code & _SPOT_BITS) != 0
    con = face - v[dark].min()
    if con < s.spot_min_contrast:
        return None
    t = (face - v) / con
    gap = float(t[dark].min() - t[~dark].max())
    if gap < s.spot_min_gap or t[~dark].max() > s.dot_max_light:
        return None
    if s.face_edge and not _face_ends(  # (not a light gap in the table's print)
            Lf, c0 + a @ mid, a @ np.array([[cs, -sn], [sn, cs]]), face, con, s):
        return None
    if where is not None:
        where.append(c0 + a @ mid)
        where.append(grid[dark] @ np.array([[cs, sn], [-sn, cs]]))  # the pips' spots (face
        # units from that centre)
    return int(_LAYOUT_VALUE[code]), gap


def _disc_and_ring(L: np.ndarray, centre, side: float, s: BoardDiceSettings
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The window of a uint8 lightness image round `centre` (px) holding a die's face disc
    (`seen_face_r` die sides of `side` px) and the table ring round it (`seen_table_r`):
    (window (h, w) uint8, disc and ring (h, w) bool masks on it), or None where either
    holds under 20 pixels (the photo's edge)."""
    h, w = L.shape
    reach = s.seen_table_r[1] * max(side, 1.0) + 2  # (only the part the disc and ring lie in)
    x0, y0 = max(0, int(centre[0] - reach)), max(0, int(centre[1] - reach))
    x1 = max(x0, min(w, int(centre[0] + reach) + 2))
    y1 = max(y0, min(h, int(centre[1] + reach) + 2))
    # (a row and a column broadcast: the numbers of np.mgrid's two full grids, less work)
    r = np.hypot(np.arange(x0, x1)[None, :] - centre[0],
                 np.arange(y0, y1)[:, None] - centre[1]) / max(side, 1.0)
    disc = r <= s.seen_face_r
    ring = (r >= s.seen_table_r[0]) & (r <= s.seen_table_r[1])
    if disc.sum() < 20 or ring.sum() < 20:
        return None
    return L[y0:y1, x0:x1], disc, ring


def face_lighter(L: np.ndarray, centre, side: float, s: BoardDiceSettings = SETTINGS
                 ) -> bool:
    """Whether a uint8 lightness image's disc of `seen_face_r` die sides (`side` px) round
    `centre` (its 85th percentile: the face between the pips) is lighter than the table
    ring round it (`seen_table_r`, median) by `seen_light_step`: a die's body there."""
    got = _disc_and_ring(L, centre, side, s)
    if got is None:
        return False
    win, disc, ring = got
    return float(np.percentile(win[disc], 85)) - float(np.median(win[ring])) >= \
        s.seen_light_step


def die_seen(L: np.ndarray, centre, side: float, s: BoardDiceSettings = SETTINGS) -> bool:
    """Whether a uint8 lightness image shows a die at `centre` (px) of side `side` (px):
    a light face disc with dark marks on it (pips, or pips smeared into streaks by motion
    or defocus), the face lighter than the table around it or bearing two or more marks.
    For dice that were seen but not read."""
    got = _disc_and_ring(L, centre, side, s)
    if got is None:
        return False
    L, disc, ring = got
    inner = L[disc].astype(np.float32)
    face = float(np.percentile(inner, 85))
    contrast = face - float(np.percentile(inner, 3))
    if contrast < s.seen_min_contrast:
        return False
    dark = ((L.astype(np.float32) < face - 0.5 * contrast) & disc).astype(np.uint8)
    share = dark.sum() / disc.sum()
    if not (s.seen_dark_share[0] <= share <= s.seen_dark_share[1]):
        return False
    n, _, stats, _ = cc_stats(dark)
    min_area = (0.05 * side) ** 2
    marks = [k for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= min_area]
    if not marks:
        return False
    table = float(np.median(L[ring]))
    return face - table >= s.seen_light_step or len(marks) >= 2


@dataclass(frozen=True)
class BoardBlur:
    """The photo's blur as the located board shows it (`board_blur`): `ratio` = weakest /
    strongest axis of the tensor of the board's strongest gradients (0-1; a streak along one
    direction weakens the gradients along it); `angle` = that weakest axis (degrees, image x
    right, y down, 0-180); `sigma` = the Gaussian blur (px) the board's edges show, the
    geometric mean of the two axes' (the render's and camera's own softness included, as a
    die's pips have it too)."""

    ratio: float
    angle: float
    sigma: float
    along: float = 0.0  # the Gaussian blur (px) measured along `angle`
    across: float = 0.0  # ... and across it
    length: int = 0  # px: the streak's length the board shows (`board_streak`), 0 unknown

    def motion(self, s: BoardDiceSettings = SETTINGS) -> bool:
        """Whether the board shows a streak (motion blur) along `angle`: more blur along the
        axis of weakest gradients than across it (where the board merely has fewer edges one
        way, that axis' blur is the smaller)."""
        return self.along >= s.blur_motion_stretch * self.across and \
            self.ratio <= s.blur_motion_ratio

    def known(self, s: BoardDiceSettings = SETTINGS) -> bool:
        """Whether the board tells streak from round blur (not in the band between)."""
        return self.motion(s) or self.along < s.blur_round_stretch * self.across


def board_blur(L: np.ndarray, corners: np.ndarray, s: BoardDiceSettings = SETTINGS
               ) -> BoardBlur | None:
    """The blur the board shows: the 2x2 tensor sum of g g^T over the `blur_strong_share`
    strongest Sobel gradients g inside the board's outline (`corners`, (4, 2) image px,
    shrunk by `blur_inset` px: the board's own edge against the table left out) in `L` (uint8 or
    float32 (H, W) lightness of the whole photo). The board's printed fields, lines and
    walls run every way, so a sharp or defocused photo gives a round tensor and a streak a
    flat one. `sigma`: the board blurred again by a Gaussian of r = `blur_reblur` px, the
    same gradients' tensor along each axis drops by R = sqrt(after / before); an edge
    blurred by sigma drops by sigma / sqrt(sigma^2 + r^2), so sigma = r R / sqrt(1 - R^2)
    (committed + fresh 1710/1711 + edition 2: sharp photos 0.53-0.89 px, defocus 0.5-0.8 px
    0.6-1.2, defocus 1.2-1.6 px 1.1-1.8). Where it shows a streak, its `length` from the
    board too (`board_streak`). None ("unknown blur") where the board leaves
    fewer than `blur_min_inside` px inside the photo or its corners are not finite."""
    corners = np.asarray(corners, np.float64)
    if corners.shape != (4, 2) or not np.all(np.isfinite(corners)):
        return None
    h, w = L.shape[:2]
    x0, y0 = (max(0, int(np.floor(v))) for v in corners.min(axis=0))
    x1, y1 = min(w, int(np.ceil(corners[:, 0].max())) + 1), min(h, int(np.ceil(
        corners[:, 1].max())) + 1)
    if x1 - x0 < s.blur_min_box or y1 - y0 < s.blur_min_box:
        return None
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round(corners - (x0, y0)).astype(np.int32), 1)
    mask = cv2.erode(mask, np.ones((2 * s.blur_inset + 1, 2 * s.blur_inset + 1), np.uint8))
    inside = mask > 0
    if inside.sum() < s.blur_min_inside:
        return None
    win = np.asarray(L[y0:y1, x0:x1], np.float32)

    def tensor(img, strong=None):
        gx = cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=3)[inside]
        gy = cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=3)[inside]
        if strong is None:
            mag = gx * gx + gy * gy
            strong = mag >= np.quantile(mag, 1.0 - s.blur_strong_share)
        gx, gy = gx[strong], gy[strong]
        xx, xy, yy = ((u * v).sum(dtype=np.float64) for u, v in ((gx, gx), (gx, gy), (gy, gy)))
        return np.array([[xx, xy], [xy, yy]]), strong  # (sums, not BLAS: no spinning threads)

    t, strong = tensor(win)
    ev, vec = np.linalg.eigh(t)
    if ev[1] <= 0 or ev[0] <= 0:
        return None
    t2, _ = tensor(cv2.GaussianBlur(win, (0, 0), s.blur_reblur), strong)
    r = s.blur_reblur
    sig = []
    for k in (0, 1):
        e = vec[:, k]
        drop = min(float(np.sqrt(max(e @ t2 @ e, 0.0) / ev[k])), s.blur_max_drop)
        sig.append(r * drop / np.sqrt(1.0 - drop * drop))
    blur = BoardBlur(float(ev[0] / ev[1]),
                     float(np.degrees(np.arctan2(vec[1, 0], vec[0, 0])) % 180.0),
                     float(np.sqrt(sig[0] * sig[1])), float(sig[0]), float(sig[1]))
    if not blur.motion(s):
        return blur
    return replace(blur, length=board_streak(win, inside, blur.angle, s))


def board_streak(win: np.ndarray, inside: np.ndarray, angle: float,
                 s: BoardDiceSettings = SETTINGS) -> int:
    """The streak's length (px) the board shows along `angle` (degrees, image x right, y
    down): `win` float32 (H, W) lightness round the board, `inside` bool (H, W) its shrunk
    outline. A streak of n px turns each edge's derivative along it into a pair of opposite
    ones n px apart, so the derivative's autocorrelation along the streak, over the whole
    board (its printed edges of every direction), dips at lag n (the board's own spacing
    makes dips too, but further out and shallower). The deepest dip over
    `blur_length_lags`, kept where it is not the last lag and the autocorrelation rises by
    `blur_length_rise` after it; 0 (unknown) else."""
    t = np.radians(angle)
    c, sn = float(np.cos(t)), float(np.sin(t))
    d = cv2.Sobel(win, cv2.CV_32F, 1, 0, ksize=3) * c + \
        cv2.Sobel(win, cv2.CV_32F, 0, 1, ksize=3) * sn
    d = np.where(inside, d, 0.0).astype(np.float32)
    e = float((d * d).sum(dtype=np.float64))
    if e <= 0:
        return 0
    lags = np.arange(s.blur_length_lags[0], s.blur_length_lags[1] + 1)
    ac = np.array([float((d * cv2.warpAffine(d, np.float32([[1, 0, k * c], [0, 1, k * sn]]),
                                             (d.shape[1], d.shape[0]))).sum(dtype=np.float64)) / e
                   for k in lags])
    i = int(np.argmin(ac))
    if i == len(lags) - 1 or ac[i:].max() - ac[i] < s.blur_length_rise:
        return 0
    return int(lags[i])


def blur_kernels(blur: BoardBlur, s: BoardDiceSettings = SETTINGS) -> list[np.ndarray]:
    """The point spread functions a die may have been blurred by (float32 2-D kernels, each
    summing to 1): where the board shows motion, a streak along the board's `angle` of its
    measured `length` and `blur_length_below` px less (the measure dips at the length or
    1 px past it), of each of `blur_lengths` px where no length was measured; else the
    one Gaussian of the board's `sigma` (never a streak: a streak fitted to a defocused die
    reads its pips as other layouts); none where the board cannot tell."""
    if not blur.known(s):
        return []
    if not blur.motion(s):
        g = cv2.getGaussianKernel(2 * int(np.ceil(3 * blur.sigma)) + 1, blur.sigma, cv2.CV_32F)
        return [g @ g.T]
    # (`streak_kernel` turns counter-clockwise on screen: the image angle negated)
    lengths = s.blur_lengths
    if blur.length > 0:  # measured on the board: that length or 1 px shorter
        lengths = [n for n in lengths if blur.length - s.blur_length_below <= n <= blur.length]
    return [streak_kernel(n, -blur.angle) for n in lengths]


def _blur_layouts() -> dict[int, list[int]]:
    """Per die value, its pips' indices in the 3 x 3 spot grid (row * 3 + column)."""
    from vision.dice import LAYOUTS  # pips (x, y) at -0.5, 0, 0.5 of the half side

    return {v: [(int(round(y * 2)) + 1) * 3 + int(round(x * 2)) + 1 for x, y in pips]
            for v, pips in LAYOUTS.items()}


_BLUR_LAYOUTS = _blur_layouts()


def _pip_spots(m: np.ndarray, half: int, s: BoardDiceSettings) -> np.ndarray:
    """(9, T, T) float32, T = 2 half + 1: a unit dark pip at each 3 x 3 spot of a face whose
    map (half sides -> px) is `m`, centred, drawn `blur_supersample` x finer and averaged
    down."""
    ss = s.blur_supersample
    t = 2 * half + 1
    ring = np.c_[np.cos(np.linspace(0, 2 * np.pi, 32, endpoint=False)),
                 np.sin(np.linspace(0, 2 * np.pi, 32, endpoint=False))] * s.blur_pip_r
    edge = ring @ m.T
    out = np.zeros((9, t, t), np.float32)
    for r in range(3):
        for c in range(3):
            big = np.zeros((t * ss, t * ss), np.float32)
            at = half + 0.5 + m @ ((c - 1) * s.blur_pip_at, (r - 1) * s.blur_pip_at)
            poly = np.round((at + edge) * ss * 16).astype(np.int32)
            cv2.fillPoly(big, [poly], 1.0, cv2.LINE_AA, 4)
            out[r * 3 + c] = cv2.resize(big, (t, t), interpolation=cv2.INTER_AREA)
    return out


def _masked_corr(a: np.ndarray, b: np.ndarray, mask: np.ndarray) -> float:
    """Pearson correlation of two equal float32 images over mask > 0."""
    x, y = a[mask > 0].astype(np.float64), b[mask > 0].astype(np.float64)
    x, y = x - x.mean(), y - y.mean()
    d = float(np.sqrt((x @ x) * (y @ y)))
    return float(x @ y) / d if d > 0 else 1.0


def _masked_match(win: np.ndarray, tmpl: np.ndarray, mask: np.ndarray
                  ) -> tuple[float, tuple[int, int]]:
    """The best masked normalised correlation (`cv2.TM_CCOEFF_NORMED`) of float32 template
    `tmpl` over float32 image `win` (mask: uint8, the template's size), an undefined one
    (a flat patch) counted -1: (correlation, its (row, col) in the match map)."""
    r = cv2.matchTemplate(win, tmpl, cv2.TM_CCOEFF_NORMED, mask=mask)
    r[~np.isfinite(r)] = -1.0  # (np.nan_to_num's numbers in place: no copies)
    j = np.unravel_index(int(np.argmax(r)), r.shape)
    return float(r[j]), (int(j[0]), int(j[1]))


def _turned(a: np.ndarray, yaw: float) -> np.ndarray:
    """The face map `a` (half sides -> px) of a face turned by `yaw` degrees on it."""
    th = np.radians(yaw)
    return a @ np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])


_SQUARE = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], float)


def _square(m: np.ndarray, half: int, grow: float, fine: int = 1) -> np.ndarray:
    """(T, T) float32, T = 2 half + 1: 1 inside the face square of map `m` grown `grow`
    times, centred; drawn `fine` x finer and averaged down (edges partly covered)."""
    t = 2 * half + 1
    big = np.zeros((t * fine, t * fine), np.float32)
    pts = np.round((half + 0.5 + grow * _SQUARE @ m.T) * fine * 16).astype(np.int32)
    cv2.fillConvexPoly(big, pts, 1.0, cv2.LINE_AA if fine > 1 else 8, 4)
    return cv2.resize(big, (t, t), interpolation=cv2.INTER_AREA) if fine > 1 else big


def _streak_of(k: np.ndarray) -> tuple[np.ndarray, float] | None:
    """A kernel's streak: (unit direction (x, y) in image px, length px) from its second
    moments (a box of n px has variance n^2 / 12 along it), None for a round kernel (its
    axes' variances within 2 x: a Gaussian)."""
    ys, xs = np.mgrid[:k.shape[0], :k.shape[1]]
    w = k.astype(np.float64) / max(float(k.sum()), 1e-12)
    mx, my = float((w * xs).sum()), float((w * ys).sum())
    dx, dy = xs - mx, ys - my
    cov = np.array([[(w * dx * dx).sum(), (w * dx * dy).sum()],
                    [(w * dx * dy).sum(), (w * dy * dy).sum()]])
    ev, vec = np.linalg.eigh(cov)
    if ev[1] < 2.0 * max(ev[0], 1e-12):
        return None
    return vec[:, 1], float(np.sqrt(12.0 * max(ev[1] - ev[0], 0.0)))


def _along_streak(m1: np.ndarray, v: int, m2: np.ndarray, u: int,
                  streak: tuple[np.ndarray, float] | None, s: BoardDiceSettings = SETTINGS
                  ) -> bool:
    """Whether value `v`'s pips on a face of map `m1` and value `u`'s on `m2` (half sides
    -> px) may be smeared into each other by a kernel of `streak` (`_streak_of`: made once
    per kernel by the caller): every pip of either not within `blur_along_tol` of a pip of
    the other lies along the streak from one of the other's (across it within the
    tolerance, along it within the streak's length + the tolerance). True for every pair
    under a round kernel (None: no direction to tell by)."""
    if streak is None:
        return True
    d, n = streak
    tol = s.blur_along_tol * float(np.sqrt(abs(np.linalg.det(m1))))
    grid = np.array([((i % 3) - 1, (i // 3) - 1) for i in range(9)], float) * s.blur_pip_at
    p = grid[_BLUR_LAYOUTS[v]] @ m1.T
    q = grid[_BLUR_LAYOUTS[u]] @ m2.T
    for a_, b_ in ((p, q), (q, p)):
        for x in a_:
            off = b_ - x
            if np.hypot(off[:, 0], off[:, 1]).min() <= tol:
                continue  # the same pip in both
            al = np.abs(off @ d)
            ac = np.abs(off[:, 0] * d[1] - off[:, 1] * d[0])
            if not np.any((ac <= tol) & (al <= n + tol)):
                return False
    return True


def _blur_window(L: np.ndarray, centre, a: np.ndarray, s: BoardDiceSettings
                 ) -> tuple | None:
    """`blur_read`'s window round `centre` in `L` ((H, W) lightness) for a face of map `a`
    (2x2, half sides -> px): (win (h, w) float32, x0, y0, half) with the template side
    2 half + 1, or None where `centre` or `a` is not finite, the die is under 4 px or the
    window leaves the photo."""
    a = np.asarray(a, np.float64)
    if a.shape != (2, 2) or not (np.all(np.isfinite(a)) and np.all(np.isfinite(centre))):
        return None
    side = 2.0 * float(np.sqrt(abs(np.linalg.det(a))))
    # the template holds the face square grown `blur_face_grow` x under any turn: a map's
    # row turned keeps its length, so the square's corners (+-1, +-1) reach at most
    # sqrt(2) x the longest row (a die 40 px wide turned 40 degrees is not clipped)
    half = int(np.ceil(s.blur_face_grow * np.sqrt(2.0) * np.hypot(*a.T).max())) + 4
    reach = s.blur_reach * side
    h, w = L.shape[:2]
    x0, y0 = int(centre[0] - reach - half), int(centre[1] - reach - half)
    x1, y1 = int(centre[0] + reach + half + 1), int(centre[1] + reach + half + 1)
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h or side < 4:
        return None
    return np.ascontiguousarray(L[y0:y1, x0:x1], np.float32), x0, y0, half


def _blur_face(win: np.ndarray, a: np.ndarray, half: int, kernels: list[np.ndarray],
               s: BoardDiceSettings) -> tuple | None:
    """Where a blurred die's face lies in `win` ((h, w) float32 lightness): a light square
    of map `a` turned 0-80 degrees (`blur_yaw_step`), blurred by each kernel, matched by
    masked normalised correlation over itself grown `blur_face_grow` x: (correlation,
    (col, row) of the template's corner in the match map, yaw, kernel index) of the best,
    None where no kernel."""
    face = None
    for yaw in range(0, 90, s.blur_yaw_step):
        m = _turned(a, yaw)
        sq = _square(m, half, 1.0, s.blur_supersample)
        mask = (_square(m, half, s.blur_face_grow) > 0).astype(np.uint8)
        for fk, k in enumerate(kernels):
            ncc, j = _masked_match(win, cv2.filter2D(sq, -1, k, borderType=cv2.BORDER_CONSTANT),
                                   mask)
            if face is None or ncc > face[0]:
                face = (ncc, (int(j[1]), int(j[0])), yaw, fk)
    return face


def blur_read(L: np.ndarray, centre, a: np.ndarray, kernels: list[np.ndarray],
              s: BoardDiceSettings = SETTINGS, why: list | None = None,
              measured: bool = False, ref: float | None = None, value: int | None = None,
              searched: list | None = None) -> tuple | None:
    """A blurred die's value read under the blur the board shows (`kernels`, `blur_kernels`),
    in `L` ((H, W) uint8 or float32 lightness, photo px), the face being the square of
    known shape `a` (2x2, half sides -> px: the table's foreshortening at the die). First the
    face: a light square turned 0-80 degrees (`blur_yaw_step`), blurred by each kernel,
    matched by masked normalised correlation over itself grown `blur_face_grow` x within
    `blur_reach` die sides of `centre` (the square's outline fixes where the face lies and
    how it is turned, so the pips below cannot slide onto the face's shaded edges); then the
    1-6 pip layouts at that face (a pixel round its centre, its turn and `blur_turns` on,
    `blur_refine` degrees either side), each blurred by the kernels `blur_face_kernels` near
    the face's, by masked correlation over the face. Kept where the best layout's
    correlation is at least `blur_min_ncc`, at least `blur_min_margin` above every other
    value's best, and its blurred template not confusable with another value's under any of
    the layout turns tried and those same kernels (by default the one the face's square
    fitted best): for a pair that the kernel may smear into each other (`_along_streak`;
    every pair under a round kernel) an alike of `blur_confusable`, or
    `blur_confusable_measured` where `measured` (the kernels' streak length measured on the
    board, `board_streak`), for any other pair `blur_confusable_across`. A read refused
    only by the pair along the streak is kept where `ref` (the pips' darkness of the
    photo's other die, `blur_contrast`: the game's two dice are one pair) tells it from
    the values alike (`_ink_tells`: a 4 smeared along its columns looks like a 6 but has
    two thirds of its pips). The template (2 half + 1 px square) holds the grown face under
    every turn. (value, correlation, face centre (x, y) px) or None (also where `centre` or
    `a` is not finite or the window leaves the photo). `why`: a list that gets (best
    value, its correlation, margin, the most alike other template's correlation, the face
    square's correlation, the most alike along the streak, the most alike not along it (-1
    where none), (the read's `_fixed_residual` under `ref`, the least other value's) or
    None) where a layout was matched. `value`: instead of a read, that value's
    (correlation, `_pip_contrast`, face correlation, `_fixed_residual` under `ref` or None)
    at its best placement (`blur_contrast`). `searched`: a list that gets the face search
    (window, x0, y0, half, face or None, the blurred pip spots made: {"near": the kernels
    matched, "made": {(yaw, index into them): (9, T, T)}}) for `blur_fit_read` to reuse."""
    got = _blur_window(L, centre, a, s)
    if got is None:
        return None
    win, x0, y0, half = got
    a = np.asarray(a, np.float64)
    face = _blur_face(win, a, half, kernels, s)
    made: dict[tuple, np.ndarray] = {}  # (yaw, kernel index) -> (9, T, T) blurred pip spots
    shared: dict = {}  # (`searched`: the kernels matched and `made`, once made)
    if searched is not None:
        searched.append((win, x0, y0, half, face, shared))
    if face is None:
        return None
    _, (fc, fr), fyaw, fk = face
    near = [k for i, k in enumerate(kernels) if abs(i - fk) <= s.blur_face_kernels]
    shared.update(near=near, made=made)
    sub = win[max(0, fr - 1):fr + 2 + 2 * half, max(0, fc - 1):fc + 2 + 2 * half]
    best: dict[int, tuple] = {}  # value -> (ncc, (x, y), yaw, kernel index)
    masks: dict[int, np.ndarray] = {}  # yaw -> the inner face square (uint8)
    for yaw in sorted({(fyaw + q + d) % 180 for q in s.blur_turns for d in s.blur_refine}):
        mask, per_kernel = _yaw_templates(a, yaw, half, near, s)
        masks[yaw] = mask
        for ki, blurred in enumerate(per_kernel):
            made[yaw, ki] = blurred
            for v, idx in _BLUR_LAYOUTS.items():
                ncc, j = _masked_match(sub, -blurred[idx].sum(axis=0), mask)
                if v not in best or ncc > best[v][0]:
                    at = (x0 + max(0, fc - 1) + j[1] + half, y0 + max(0, fr - 1) + j[0] + half)
                    best[v] = (ncc, at, yaw, ki, j)
    if len(best) < 2:
        return None

    def contrast(u):  # value u's pip darkness at its best placement (`_pip_contrast`)
        _, _, yaw_u, ki_u, (r0, c0) = best[u]
        t = 2 * half + 1
        return _pip_contrast(sub[r0:r0 + t, c0:c0 + t], made[yaw_u, ki_u][_BLUR_LAYOUTS[u]]
                             .sum(axis=0), masks[yaw_u])

    def residual(u, k):  # value u at its best placement, its pips k dark (`_fixed_residual`)
        _, _, yaw_u, ki_u, (r0, c0) = best[u]
        t = 2 * half + 1
        return _fixed_residual(sub[r0:r0 + t, c0:c0 + t], made[yaw_u, ki_u][_BLUR_LAYOUTS[u]]
                               .sum(axis=0), masks[yaw_u], k)

    if value is not None:  # (`blur_contrast`: the one value's fit)
        return (best[value][0], contrast(value), face[0],
                residual(value, ref) if ref else None) if value in best else None
    v = max(best, key=lambda u: best[u][0])
    ncc, at, yaw, ki, _ = best[v]
    margin = ncc - max(b[0] for u, b in best.items() if u != v)
    if why is None and (ncc < s.blur_min_ncc or margin < s.blur_min_margin or
                        face[0] < s.blur_min_face):
        return None
    # another value under any turn tried and the kernels matched (`near`) that looks the same
    # on this face (a 6 under a streak along its columns is a 4 under it). Every one of the
    # board's kernels was tried too (session 14): it refused 16 of 250 right reads of
    # synthetic streaked dice and no wrong one, and changed nothing on the dev sets
    mine = made[yaw, ki][_BLUR_LAYOUTS[v]].sum(axis=0)
    mask = masks[yaw]
    along, across = -1.0, -1.0  # the most alike other value along the streak / not
    streaks = [_streak_of(k) for k in near]  # (once per kernel, not per pair)
    m1 = _turned(a, yaw)
    for (yaw2, ki2), sp in made.items():
        m2 = _turned(a, yaw2)
        for u, idx in _BLUR_LAYOUTS.items():
            if u == v:
                continue
            r = _masked_corr(mine, sp[idx].sum(axis=0), mask)
            if _along_streak(m1, v, m2, u, streaks[ki2], s):
                along = max(along, r)
            else:
                across = max(across, r)
    alike = max(along, across)
    gate = s.blur_confusable_measured if measured else s.blur_confusable
    inked = None  # (the read's residual under the other die's darkness, the least of the
    # other values' (every value, not only those alike along the streak: a 2's pips are
    # half of a 4's, as dark each)) or None
    if ref is not None and along >= gate and ref > 0:
        inked = (residual(v, ref), min(residual(u, ref) for u in best if u != v))
    if why is not None:
        why.append((v, ncc, margin, alike, face[0], along, across, inked))
    if ncc < s.blur_min_ncc or margin < s.blur_min_margin or face[0] < s.blur_min_face or \
            across >= s.blur_confusable_across:
        return None
    if along >= gate and not (inked is not None and _ink_tells(*inked, s)):
        return None
    bar = ncc - s.blur_min_margin
    if s.blur_rivals_every_turn and _rival_turns(sub, a, half, near, made, v, s, bar) > bar:
        return None
    return v, ncc, (float(at[0]), float(at[1]))


def _yaw_templates(a: np.ndarray, yaw: int, half: int, kernels: list[np.ndarray],
                   s: BoardDiceSettings) -> tuple[np.ndarray, list[np.ndarray]]:
    """The face map `a` turned `yaw` degrees: its inner face square (uint8 (T, T), T = 2 half
    + 1, `blur_inner`) and, per kernel of `kernels`, its 9 pip spots blurred by it ((9, T, T)
    float32), as `blur_read` and `_rival_turns` match the layouts."""
    m = _turned(a, yaw)
    spots = _pip_spots(m, half, s)
    mask = (_square(m, half, s.blur_inner) > 0).astype(np.uint8)
    return mask, [np.array([cv2.filter2D(sp, -1, k, borderType=cv2.BORDER_CONSTANT)
                            for sp in spots]) for k in kernels]


def _rival_turns(sub: np.ndarray, a: np.ndarray, half: int, near: list[np.ndarray],
                 made: dict, v: int, s: BoardDiceSettings, bar: float | None = None
                 ) -> float:
    """The best masked correlation of any value but `v` over `sub` ((h, w) float32, the
    window round the face found) at the turns `blur_read` did not try (every `blur_yaw_step`
    degrees of 0-170 not in `made`, its (yaw, kernel index) keys), under the kernels `near`
    (the face map `a`, half sides -> px; template side 2 half + 1); -1 where none. `bar`:
    the first correlation over it is returned as soon as met (the read is refused
    whichever rival beats it: the rest not matched, CPU)."""
    rival = -1.0
    tried = {yaw for yaw, _ in made}
    for yaw in range(0, 180, s.blur_yaw_step):
        if yaw in tried:
            continue
        mask, per_kernel = _yaw_templates(a, yaw, half, near, s)
        for blurred in per_kernel:
            for u, idx in _BLUR_LAYOUTS.items():
                if u != v:
                    rival = max(rival, _masked_match(sub, -blurred[idx].sum(axis=0), mask)[0])
                    if bar is not None and rival > bar:
                        return rival
    return rival


def _fit_left(Y: np.ndarray, face: np.ndarray, pips: np.ndarray | None
              ) -> tuple[np.ndarray, np.ndarray]:
    """Least squares of each column of `Y` ((pixels, k) float64: k patches' lightness) as
    c0 + c1 face - c2 pips (`face`, `pips`: (pixels,) the blurred face square and a
    value's blurred unit-dark pips; `pips` None: c0 + c1 face alone): (the residual sums of
    squares (k,), whether the face is lighter and the pips darker than round them (k,)
    bool: c1 > 0 and c2 > 0)."""
    cols = [np.ones_like(face), face] + ([] if pips is None else [-pips])
    X = np.stack(cols, axis=1)
    c = np.linalg.lstsq(X, Y, rcond=None)[0]
    rss = ((Y - X @ c) ** 2).sum(axis=0)
    ok = (c[1] > 0) & (c[2] > 0) if pips is not None else c[1] > 0
    return rss, ok


def blur_fit_read(L: np.ndarray, centre, a: np.ndarray, kernel: np.ndarray,
                  s: BoardDiceSettings = SETTINGS, why: list | None = None,
                  searched: tuple | None = None) -> tuple | None:
    """A die under round blur (`kernel`: the board's one Gaussian, `blur_kernels`) read by
    regression. The face found as `blur_read` finds it (at least `blur_min_face`); then for
    each value, turn (the face's, `blur_turns`, `blur_refine`) and placement (a pixel round
    the face), the patch of `L` ((H, W) lightness) over the face square grown g (each of
    `blur_fit_grows`) fitted as c0 + c1 x the blurred face square - c2 x the value's
    blurred pips (`_fit_left`, c1 and c2 > 0). A small die's blurred rim reaches well
    inside its face: here the square explains it, where `blur_read`'s correlation counts it
    against every layout. A value's score: its least residual over what the face square
    alone leaves there. Kept where under every g one value of `blur_fit_values` wins, the
    next value's score is `blur_fit_gap` more and the read leaves at most `blur_fit_left`
    of the patch's variance. (value, 1 - its score, face centre (x, y) px) or None (also
    where `centre` or `a` is not finite or the window leaves the photo; the first g that
    fails ends the read). `why`: a list that gets, per g fitted, (winner, its score, the
    next value's, the share of the variance left, the face correlation, ((value, score),
    ...) best first). `searched`: `blur_read`'s face search at this die with `[kernel]`
    alone (its `searched`), not done again."""
    if searched is None:
        got = _blur_window(L, centre, a, s)
        if got is None:
            return None
        win, x0, y0, half = got
        face = _blur_face(win, np.asarray(a, np.float64), half, [kernel], s)
    else:
        win, x0, y0, half, face, _ = searched
    # the pip spots `blur_read` blurred by this kernel alone at these turns (`searched`'s
    # last): the same numbers, not made again
    shared = searched[5] if searched is not None else {}
    near = shared.get("near")
    pre = {yaw: sp for (yaw, _), sp in shared["made"].items()} if near is not None and \
        len(near) == 1 and near[0] is kernel else {}
    a = np.asarray(a, np.float64)
    if face is None or face[0] < s.blur_min_face:
        return None
    _, (fc, fr), fyaw, _ = face
    t = 2 * half + 1
    reads = []
    drawn: dict[int, tuple] = {}  # yaw -> (the blurred face square, its blurred pip spots):
    # the same for every g, made once
    for g in s.blur_fit_grows:
        best: dict[int, tuple] = {}  # value -> (score, share of the variance left, (x, y))
        for yaw in sorted({(fyaw + q + d) % 180 for q in s.blur_turns for d in s.blur_refine}):
            m = _turned(a, yaw)
            inside = _square(m, half, g) > 0
            if yaw not in drawn:
                drawn[yaw] = (cv2.filter2D(_square(m, half, 1.0, s.blur_supersample), -1,
                                           kernel, borderType=cv2.BORDER_CONSTANT),
                              pre[yaw] if yaw in pre else
                              [cv2.filter2D(sp, -1, kernel, borderType=cv2.BORDER_CONSTANT)
                               for sp in _pip_spots(m, half, s)])
            sq = drawn[yaw][0][inside].astype(np.float64)
            spots = np.array([sp[inside] for sp in drawn[yaw][1]], np.float64)
            at, ys = [], []  # the placements a pixel round the face, their patches
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    r0, c0 = fr + dr, fc + dc
                    if r0 < 0 or c0 < 0 or r0 + t > win.shape[0] or c0 + t > win.shape[1]:
                        continue
                    at.append((x0 + c0 + half, y0 + r0 + half))
                    ys.append(win[r0:r0 + t, c0:c0 + t][inside])
            if not ys:
                continue
            Y = np.array(ys, np.float64).T  # (pixels, placements)
            sst = ((Y - Y.mean(axis=0)) ** 2).sum(axis=0)
            rss0, _ = _fit_left(Y, sq, None)
            for v, idx in _BLUR_LAYOUTS.items():
                rss, ok = _fit_left(Y, sq, spots[idx].sum(axis=0))
                for i in np.flatnonzero(ok & (sst > 0) & (rss0 > 0)):
                    if v not in best or rss[i] / rss0[i] < best[v][0]:
                        best[v] = (float(rss[i] / rss0[i]), float(rss[i] / sst[i]), at[i])
        if not best:
            return None
        order = sorted(best, key=lambda u: best[u][0])
        v = order[0]
        gap = (best[order[1]][0] if len(order) > 1 else 1.0) - best[v][0]
        if why is not None:
            why.append((v, best[v][0], best[v][0] + gap, best[v][1], face[0],
                        tuple((u, round(best[u][0], 3)) for u in order)))
        reads.append((v, best[v][0], gap, best[v][1], best[v][2]))
        if v != reads[0][0] or v not in s.blur_fit_values or gap < s.blur_fit_gap or \
                best[v][1] > s.blur_fit_left:
            return None  # (the next square not fitted: CPU)
    v, score, _, _, at = reads[-1]
    return v, 1.0 - score, (float(at[0]), float(at[1]))


def _pip_contrast(patch: np.ndarray, tmpl: np.ndarray, mask: np.ndarray) -> float:
    """How dark a face's pips are: `patch` (T, T) float32 lightness fitted over `mask` > 0
    by least squares as face - b x `tmpl` ((T, T) float32, the value's blurred unit-dark
    pips); b / face (the pips' darkness as a share of the face's lightness, so that a die in
    shade and one in the light compare), 0 where the fit has no lit face."""
    x = tmpl[mask > 0].astype(np.float64)
    y = patch[mask > 0].astype(np.float64)
    if x.size < 3 or y.shape != x.shape:
        return 0.0
    coef = np.linalg.lstsq(np.c_[np.ones_like(x), -x], y, rcond=None)[0]
    return float(coef[1] / coef[0]) if coef[0] > 1e-6 else 0.0


def _fixed_residual(patch: np.ndarray, tmpl: np.ndarray, mask: np.ndarray, k: float
                    ) -> float:
    """How badly a value's blurred pips of a known darkness explain a face: `patch` (T, T)
    float32 lightness fitted over `mask` > 0 as face x (1 - k x `tmpl`) (`tmpl` (T, T)
    float32, the value's blurred unit-dark pips; `k` the pips' darkness as a share of the
    face's lightness, `_pip_contrast` of the photo's other die), the face's lightness the
    one free number: the residual sum of squares over the patch's own about its mean (0 a
    perfect fit, 1 no better than a flat face; 1 where the patch is flat)."""
    x = 1.0 - k * tmpl[mask > 0].astype(np.float64)
    y = patch[mask > 0].astype(np.float64)
    if x.size < 3 or y.shape != x.shape:
        return 1.0
    sst = float(((y - y.mean()) ** 2).sum())
    xx = float(x @ x)
    if sst <= 0 or xx <= 0:
        return 1.0
    face = float(x @ y) / xx
    return float(((y - face * x) ** 2).sum()) / sst


def _ink_tells(own: float, other: float, s: BoardDiceSettings = SETTINGS) -> bool:
    """Whether the pips' darkness tells a read from the values its blur makes it alike:
    with the other die's pip darkness, the read's layout leaves at most `blur_ink_tol` of
    the face unexplained (`_fixed_residual`) and every alike value `blur_ink_margin` more."""
    return own <= s.blur_ink_tol and other - own >= s.blur_ink_margin


def blur_contrast(L: np.ndarray, centre, a: np.ndarray, kernels: list[np.ndarray], value: int,
                  s: BoardDiceSettings = SETTINGS) -> tuple[float, float, float] | None:
    """A die of known `value` at `centre` (a die read on the photo) fitted as `blur_read`
    fits an unread one (the same face search, layouts and kernels; `L`, `a` as there):
    (the value's layout correlation, its pips' darkness `_pip_contrast`, the face square's
    correlation), None where `blur_read` would read nothing there."""
    got = blur_read(L, centre, a, kernels, s, value=value)
    return None if got is None else got[:3]


def _only_along(why: tuple, measured: bool, s: BoardDiceSettings = SETTINGS) -> bool:
    """Whether `blur_read`'s `why` entry is a read refused only as alike along the streak
    to another value (every other gate passed)."""
    v, ncc, margin, _, face, along, across = why[:7]
    gate = s.blur_confusable_measured if measured else s.blur_confusable
    return ncc >= s.blur_min_ncc and margin >= s.blur_min_margin and \
        face >= s.blur_min_face and across < s.blur_confusable_across and along >= gate


def _lone_dot_read(L: np.ndarray, Lf: np.ndarray, at, a: np.ndarray, side: float,
                   s: BoardDiceSettings) -> tuple[int, float, np.ndarray] | None:
    """A lone dot at `at` (crop px) of an unread die: `dot_read` centred `lone_dot_read` face
    units from it in 8 directions (`L`: the crop's uint8 L*, `Lf` its `spot_blur`; `a`: the
    flat face's map, face units -> crop px; `side` the die's side in crop px); the reads
    whose face is lighter than the table round it (`face_lighter`) must agree on one value,
    and (`lone_dot_on_spot`) the dot must lie on a dark spot of a read's layout (within
    `dot_max_residual`) or `lone_dot_agree` reads must agree. (value, widest gap, the
    face's centre in crop px) or None."""
    reads = []
    on_spot = not s.lone_dot_on_spot
    ai = np.linalg.inv(a)
    for k in range(8):
        phi = k * np.pi / 4
        cen = np.asarray(at, float) + a @ (s.lone_dot_read * np.cos(phi),
                                           s.lone_dot_read * np.sin(phi))
        where: list = []
        got = dot_read(Lf, cen, a, s, where)
        if got is not None and face_lighter(L, where[0], side, s):
            reads.append((got[0], got[1], where[0]))
            u = ai @ (np.asarray(at, float) - where[0])  # the dot, face units from the centre
            on_spot = on_spot or bool(
                np.hypot(*(where[1] - u).T).min() <= s.dot_max_residual)
    if not reads or len({v for v, _, _ in reads}) > 1 or not (
            on_spot or len(reads) >= s.lone_dot_agree):
        return None
    return max(reads, key=lambda r: r[1])


def _read_crop(image_bgr: np.ndarray, view: BoardView, c, die_px: float,
               s: BoardDiceSettings, jac: np.ndarray, read: bool = True) -> tuple | None:
    """Candidate `c`'s crop (`die_crop` die sides of `die_px`), enlarged so a die is
    `die_target_px` wide, read by `vision.dice.read_dice` with its settings and what the
    board tells about a die there (`read` False: not read, no dice): (x0, y0, f, a, crop,
    dice), `a` the flat face's map (half sides -> crop px); None where the photo's edge
    leaves too little. `jac`: `local_affine(view.H, c)`."""
    from vision.dice import SETTINGS as base
    from vision.dice import read_dice

    h, w = image_bgr.shape[:2]
    half = int(round(s.die_crop * die_px / 2))
    x0, y0 = int(max(0, c[0] - half)), int(max(0, c[1] - half))
    x1, y1 = int(min(w, c[0] + half)), int(min(h, c[1] + half))
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None
    f = max(1.0, s.die_target_px / max(die_px, 1.0))
    crop = cv2.resize(image_bgr[y0:y1, x0:x1], None, fx=f, fy=f,
                      interpolation=cv2.INTER_CUBIC)
    known: dict = {}  # what the board tells about this die (one copy of the settings)
    if s.dark_pips_only:
        known["light_pips"] = False
    if s.known_side:
        known["die_side_px"] = die_px * f
    if s.known_up:
        known["up_dir"] = up_at(view, c, s, jac)
    a = jac * (s.die_mm / 2 * f)  # the face's map, half-sides -> px
    if s.known_shape:
        known["face_affine"] = tuple(float(v) for v in a.ravel())
    dice = read_dice(crop, replace(base, **known) if known else base)[0] if read else []
    return x0, y0, f, a, crop, dice


def read_board_dice(image_bgr: np.ndarray, view: BoardView, board: Board,
                    s: BoardDiceSettings = SETTINGS, lightness: np.ndarray | None = None,
                    beside=None) -> tuple[list, list[str]]:
    """Dice on the table around the board, read by `vision.dice.read_dice` on an enlarged
    crop around each die-sized light blob (dice beside a board are small in the photo).
    `lightness`: the photo's L* (uint8) when already made; `beside`: see `die_candidates`.
    Returns (dice with centres in photo px, warnings)."""
    from vision.dice import Die

    found: list = []
    warnings: list[str] = []
    unread: list = []  # (centre, die px) of candidates that look like dice but gave none
    h, w = image_bgr.shape[:2]
    lone: list = []
    pairs: list = []
    big: list = []
    touch: list = []
    fine: list = []
    marks: list = []
    busy: list = []
    cands = die_candidates(image_bgr, view, board, s, lightness,
                           lone if s.lone_pips else None, beside,
                           pairs if s.pair_split else None, big if s.lone_pips else None,
                           touch if s.touch_search else None, fine, marks, busy)
    busy_table = bool(busy) and s.busy_clutter > 0 and busy[0] >= s.busy_clutter
    if busy_table:  # (the face's edge asked for on a busy table only)
        s = replace(s, face_edge=True, die_crop=min(s.die_crop, s.busy_die_crop))

    queued: list = []  # (busy table, `busy_seen`) dice seen off a crop's centre: read next
    board_poly = view.corners.astype(np.float32).reshape(-1, 1, 2)
    seen_at: list = []  # (every place so queued)

    def next_up():  # `more()`, a die seen off a crop's centre first
        it = more()
        while True:
            while queued:
                yield queued.pop(0)
            got = next(it, None)
            if got is None:
                return
            yield got

    def more():  # the candidates, then lone dots, dice touching another and the finer
        # ladder's blobs while dice are missing (each list begun only then; once begun,
        # read to its end)
        for c, p in cands:
            if busy_table and s.busy_enough and len(found) >= s.dice_wanted:
                return  # (a busy table: the rest are the print's die-like spots)
            yield c, p, "blob"
        if len(found) < s.dice_wanted:
            yield from ((c, p, "lone") for c, p in lone)
        if big and len(found) < s.dice_wanted:  # (after the lone dots; the pair search
            # below neither avoids nor looks round them: its candidates stay the same)
            for c, p in big[0]():
                if all(np.hypot(c[0] - e[0], c[1] - e[1]) > s.big_lone_apart * p
                       for e, _ in lone):
                    yield c, p, "lone"
        tried = [c for c, _ in cands + lone]
        paired: list = []
        if pairs and len(found) < s.dice_wanted:
            for c, p in pairs[0](tried + [d.center for d in found]):
                if all(np.hypot(c[0] - e[0], c[1] - e[1]) > 0.5 * p for e in tried):
                    paired.append(c)
                    yield c, p, "pair"
        if touch and len(found) < s.dice_wanted:  # (two touching dice anywhere: each read
            # as a candidate, the blurred read too)
            for c, p in touch[0]():
                if all(np.hypot(c[0] - e[0], c[1] - e[1]) > 0.5 * p for e in tried + paired):
                    paired.append(c)
                    yield c, p, "touch"
        if fine and len(found) < s.dice_wanted:  # (light blobs over the finer ladder)
            for c, p in fine[0]():
                if all(np.hypot(c[0] - e[0], c[1] - e[1]) > 0.5 * p for e in tried + paired):
                    paired.append(c)
                    yield c, p, "fine"
        if marks and len(found) < s.dice_wanted:  # (dice found by their pips: a lone dot's
            # candidate is not read as a face, so only light candidates are avoided)
            for c, p in marks[0]():
                if all(np.hypot(c[0] - e[0], c[1] - e[1]) > s.mark_apart * p
                       for e in [q for q, _ in cands] + paired):
                    yield c, p, "marks"

    made: dict = {}  # the photo's lightness and the board's blur, made once when first asked

    def blurred(c, jac, die_px):  # a die seen but not read: its layout under the board's blur
        made["tries"] = made.get("tries", 0) + 1
        if made["tries"] > (min(s.blur_max_reads, s.busy_blur_reads) if busy_table else
                            s.blur_max_reads):  # (clutter: dozens of die-like marks)
            return None
        if "kernels" not in made:
            made["L"] = lightness if lightness is not None else cv2.cvtColor(
                image_bgr, cv2.COLOR_BGR2LAB)[..., 0]
            blur = board_blur(made["L"], view.corners, s)
            made["kernels"] = blur_kernels(blur, s) if blur is not None else []
            made["measured"] = blur is not None and blur.length > 0
            made["round"] = blur is not None and not blur.motion(s)
        if not made["kernels"]:
            return None
        why: list = []
        searched: list = []
        got = blur_read(made["L"], c, jac * (s.die_mm / 2), made["kernels"], s, why,
                        measured=made["measured"], searched=searched)
        if got is None and why and _only_along(why[0], made["measured"], s):
            pending.append((c, jac, die_px))  # (its pips' darkness against the other die's)
        elif got is None and s.blur_fit and made["round"]:  # (the face's blurred rim
            # explained, not counted against every layout; the face found once)
            got = blur_fit_read(made["L"], c, jac * (s.die_mm / 2), made["kernels"][0], s,
                                searched=searched[0] if searched and len(
                                    made["kernels"]) == 1 else None)
        return placed(got, die_px)

    def placed(got, die_px):  # a blurred read as a die, unless a die read lies there
        if got is None or any(np.hypot(got[2][0] - e.center[0], got[2][1] - e.center[1])
                              < s.blur_apart * die_px for e in found):
            return None
        return Die(got[0], round(min(0.9, got[1]), 3),
                   (round(got[2][0], 1), round(got[2][1], 1)))

    def add_blurred(got):
        found.append(got)
        warnings.append(f"the die at ({got.center[0]:.0f}, {got.center[1]:.0f}) was "
                        f"read as {got.value} from its blurred pips: check it")

    pending: list = []  # (centre, face map, die px) of blurred reads refused only as alike
    # along the streak to another value: judged again by their pips' darkness at the end

    reads = 0  # crop reads so far (`busy_max_reads`)
    for c, die_px, kind in next_up():
        if busy_table and reads >= s.busy_max_reads:
            break  # (a bound on a busy table's work)
        reads += 1
        is_lone = kind == "lone"
        jac = local_affine(view.H, c)  # (once per candidate)
        if s.local_scale:
            die_px = _die_px(jac, s.die_mm)
        if any(np.hypot(c[0] - d.center[0], c[1] - d.center[1]) < 0.8 * die_px for d in found):
            continue
        # (a die touching another: its pips blurred past the pip search, only the spot read;
        # a mark group: the spot and dot reads, as the crop reader and the blurred read gave
        # the same dice at up to 2.5 x the CPU, docs/dice.md "Dice on a light table")
        got = _read_crop(image_bgr, view, c, die_px, s, jac,
                         read=kind not in ("pair", "marks"))
        if got is None:
            continue
        x0, y0, f, a, crop, dice = got
        n_found = len(found)
        for d in dice:
            cx, cy = x0 + d.center[0] / f, y0 + d.center[1] / f
            if np.hypot(cx - c[0], cy - c[1]) > 0.8 * die_px:
                if busy_table and s.busy_seen and cv2.pointPolygonTest(
                        board_poly, (float(cx), float(cy)), False) < 0 and all(
                        np.hypot(cx - e[0], cy - e[1]) >= 0.8 * die_px
                        for e in seen_at + [e.center for e in found]):  # (off the board,
                    # as every candidate is: its printed fields are no dice)
                    seen_at.append((cx, cy))
                    queued.append((np.array([cx, cy]), die_px, "seen"))
                continue
            if any(np.hypot(cx - e.center[0], cy - e.center[1]) < 0.8 * die_px for e in found):
                continue
            if d.value == 1 and s.one_as_pair:  # (one pip of a 2 whose other was not linked)
                pair = _one_as_pair(spot_blur(cv2.cvtColor(crop, cv2.COLOR_BGR2LAB)[..., 0],
                                              a), d.center, a, s)
                if pair is not None:
                    cx, cy = x0 + pair[2][0] / f, y0 + pair[2][1] / f
                    d = Die(pair[0], round(min(d.confidence, pair[1]), 3), d.center)
            found.append(Die(d.value, d.confidence, (round(cx, 1), round(cy, 1))))
        short = len(found) < s.dice_wanted  # (the rest only while dice are missing)
        unread_here = not is_lone and len(found) == n_found and short
        lone_here = is_lone and short and len(found) == n_found and \
            s.lone_dot_read is not None and len(cands) <= s.lone_read_blobs_per_die * s.dice_wanted
        crop_L = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB)[..., 0] if lone_here or (
            unread_here and (s.spot_read or s.warn_unread or s.blur_read)) else None
        crop_Lf = spot_blur(crop_L, a) if lone_here or (unread_here and s.spot_read) \
            else None  # (once for every read below)
        if s.spot_read and unread_here:
            got = _spot_read_at(crop_Lf, (c - (x0, y0)) * f, a, s)
            v = die_height(view, c, s) if got is None and s.spot_lift > 0 else None
            # the light blob holds the top face and the side faces seen below it: the top
            # face's centre lies up to half the die's height above the blob's
            lift = c + s.spot_lift * v if v is not None and np.all(np.isfinite(v)) else None
            if lift is not None:
                got = _spot_read_at(crop_Lf, (lift - (x0, y0)) * f, a, s)
            if got is None and s.dot_read:
                for cen in [c] + ([lift] if lift is not None else []):
                    got = dot_read(crop_Lf, (cen - (x0, y0)) * f, a, s)
                    if got is not None:
                        break
            if got is not None:
                found.append(Die(got[0], round(min(0.9, got[1]), 3),
                                 (round(float(c[0]), 1), round(float(c[1]), 1))))
        if lone_here:
            side = 2 * float(np.sqrt(abs(np.linalg.det(a))))  # the die's local side, crop px
            got = _lone_dot_read(crop_L, crop_Lf, (c - (x0, y0)) * f, a, side, s)
            if got is not None:
                v, gap, at = got
                at = np.asarray(at) / f + (x0, y0)
                if all(np.hypot(at[0] - e.center[0], at[1] - e.center[1]) >= s.same_die * side / f
                       for e in found):
                    found.append(Die(v, round(min(0.9, gap), 3),
                                     (round(float(at[0]), 1), round(float(at[1]), 1))))
        if (s.warn_unread or s.blur_read) and unread_here and \
                kind in ("blob", "touch", "fine") and \
                len(found) == n_found and die_seen(crop_L, (c - (x0, y0)) * f, die_px * f, s):
            got = blurred(c, jac, die_px) if s.blur_read else None
            if got is not None:
                add_blurred(got)
            elif s.warn_unread and kind in s.warn_kinds:  # (`warn_kinds`: not at a half
                #   of a blob of two touching dice)
                unread.append((c, die_px))
    if pending and found and len(found) < s.dice_wanted and s.blur_ink_tol > 0:
        # the game's two dice are one pair: a die read gives the pips' darkness a read
        # refused as alike along the streak must have (a 4 smeared along its columns is a
        # 6's look-alike but has two thirds of its pips)
        d = found[0]
        fit = blur_contrast(made["L"], d.center, local_affine(view.H, d.center) *
                            (s.die_mm / 2), made["kernels"], d.value, s)
        if fit is not None and fit[0] >= s.blur_ink_ref_ncc and fit[1] > 0:
            ref = fit[1]
            for c, jac, die_px in pending:
                if len(found) >= s.dice_wanted:
                    break
                got = placed(blur_read(made["L"], c, jac * (s.die_mm / 2), made["kernels"], s,
                                       measured=made["measured"], ref=ref), die_px)
                if got is not None:
                    add_blurred(got)
    poly = view.corners.astype(np.float32).reshape(-1, 1, 2)
    seen = []
    for c, die_px in unread:
        m = s.seen_margin * die_px
        if (min(c[0], c[1], w - 1 - c[0], h - 1 - c[1]) < m  # cut by the photo's edge
                or -cv2.pointPolygonTest(poly, (float(c[0]), float(c[1])), True) < m  # the
                # board's edge and rim: lines, not pips
                or any(np.hypot(c[0] - d.center[0], c[1] - d.center[1]) < 1.2 * die_px
                       for d in found)):  # a die read from another candidate
            continue
        seen.append(c)
    # The game has `dice_wanted` dice: only the missing ones are warned about, and many
    # more die-like things than that are clutter (numbered fields of a board taken for the
    # table when the board was mislocated), not dice.
    missing = max(0, s.dice_wanted - len(found))
    if len(seen) <= missing + s.seen_max_extra:
        for c in seen[:missing]:
            warnings.append(f"a die at ({c[0]:.0f}, {c[1]:.0f}) could not be read: blurred? "
                            "photograph it again")
    return found, warnings
