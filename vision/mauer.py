"""Mauerhuepfer from a photo: locate the board, read the pawn on every position, read the dice.

Stages (all images are (H, W, 3) uint8 BGR; "mm" are the board description's millimetres,
origin at the board's top-left corner, x right, y down, z down into the board):

1. Board (`find_board`): the track fields are light discs. Rows of evenly spaced light
   blobs are matched to the board description's rows of fields (homography hypotheses,
   refined by ICP, checked by the start areas' colours) on a reduced copy first, that fit
   refined on the full size blobs of the fields; the full size search when it does not
   convince. The homography H (mm -> image) has corner 0 at the board file's (0, 0).
2. Camera (`camera_from_homography`): focal length and principal point from H (orthonormal
   board axes, level camera unless the photo is held crooked), so points above the board (a
   pawn's head, z = -24 mm) can be projected: the 3x4 matrix P.
3. Pawns (`read_positions`): every track field, start-area slot and goal slot is one
   position. Colour statistics (white-balanced by the board's own fields) of the pawn's
   footprint on the board and of its body and head above it (through P) feed a small
   classifier (empty / red / yellow / green / black; `models/mauer-pawns.npz`, trained on
   rendered scenes by `python -m vision.mauer_train`). A start-area or goal slot only holds
   its own colour. Near pawns are decided first; a far position mostly covered by a near
   pawn's head is doubted in the warnings.
4. Dice: `vision.mauer_dice` (die-sized blobs around the board, each read by
   `vision.dice.read_dice` on an enlarged crop), preferring dice off the board.
"""

from __future__ import annotations

import bisect
import contextlib
import contextvars
import ctypes
import functools
import math
import os
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from pathlib import Path

import cv2
import numpy as np

from scoring.labels import PAWN_COLOURS, PAWNS_PER_COLOUR
from scoring.mauerhuepfer import GOAL_SLOTS, START, Board, board_for
from vision.area import AreaSettings, glare_distance, glare_spots
from vision.dice import (  # np.median bit for bit, less overhead (called often here);
    cc_stats,  # OpenCV's components with 16-bit labels where they fit: the same, faster
    median,
)
from vision.mauer_dice import (
    BoardDiceSettings,
    local_die_px,
    pick_dice,
    read_board_dice,
    unsure_dice,
)
from vision.quality import QUALITY_SETTINGS, cut_off

MODEL_PATH = Path(__file__).resolve().parent.parent / "models" / "mauer-pawns.npz"
CLASSES = ("empty",) + tuple(PAWN_COLOURS)  # classifier outputs, in this order
STAGES = ("decode", "board", "pawns", "dice", "scoring", "total")  # timings_ms keys


@dataclass(frozen=True)
class MauerSettings:
    """Thresholds of the Mauerhuepfer reader."""

    work_long_side: int = 640  # colour checks on a copy this size
    blob_long_side: int = 1280  # field blobs are looked for at this size ...
    search_long_side: int = 640  # ... but first searched for at this size (a quarter of the
    # pixels), that fit refined on the full size blobs of the board's fields only; the full
    # size search when this fit does not convince (0: always the full size search)
    refine_margin: float = 1.0  # the full size blobs: the fields' extent and this many
    # pitches around it, under the reduced search's fit
    blob_area: tuple[float, float] = (20.0, 5000.0)  # px at full size
    blob_min_inertia: float = 0.2  # minor / major axis of a field seen at a slant
    blob_min_convexity: float = 0.7
    # (convexity, inertia) limits of the field blobs: strict first, looser while no board fits
    # convincingly (fields merged with the track lines, blur, glare)
    blob_shape_passes: tuple[tuple[float, float], ...] = ((0.7, 0.2), (0.5, 0.2), (0.5, 0.1))
    good_board_score: float = 0.8  # a fit this good stops the search
    quick_accept_score: float = 0.7  # the reduced search's refined fit scoring this is kept
    # without the full size search
    loose_search_below: float = 0.6  # no reduced fit, or one scoring under this: the reduced
    # search once more with the loosest blob shapes (`blob_shape_passes[-1]`: fields merged
    # with the track lines, glare, noise), its fit refined as above and kept when it scores
    # `quick_accept_score` (wrong boards scored up to 0.69 there on the dev photos: a thin
    # margin, kept because the boards found on 420 photos stayed the same); else the full
    # size search
    min_board_score: float = 0.4  # (field fit + start colours) / 2 below this: no board
    colour_weight: float = 0.5  # start-area colours vs the field fit when choosing a board
    # the start areas' colours (a*, b* of the colour checks) are read on the photo white
    # balanced by this power of its own light (`preprocess.light_gains`; a warm lamp turned
    # red and green towards yellow and the board went unseen or was turned); 0 off. Full,
    # unlike the classifiers' crops (half): these checks compare four start colours with
    # each other to choose the board's turn, no model trained on unbalanced crops reads them
    colour_balance: float = 1.0
    balanced_lazy_share: float = 0.25  # that balanced copy's Lab is made per pixel where
    # the colour checks sample it, until the pixels made pass this share of the copy's
    # (then the whole copy once): the same numbers (`_BalancedLab`); 0: always whole
    blob_max_chroma: float = 18.0  # Lab chroma at a blob's centre, off the median blob's
    blob_step: int = 4  # threshold step of the blob detector (on lightness / local light)
    fine_blob_step: int = 2  # no board found at all (after the glare retry): the full size
    # search once more with this threshold step (0: never). White fields on a light board
    # can stand only 1-4 % above it on the light map (committed e1 0020: fields 139-140,
    # the board around them 133-138), so a field persists over the two thresholds
    # `blob_repeat` asks for only at a step this fine; 0020 shrunk to 0.72 x in its photo
    # kept 33-42 of its 66 fields and no run (session 23, H11)
    blob_thresholds: tuple[int, int] = (100, 250)  # its first and last threshold (128: the
    #                                                 level of the surroundings)
    blob_repeat: int = 2  # thresholds a blob must persist over
    noisy_light_step: float = 10.0  # a photo this noisy (`_calmed`: mean step between
    # neighbours of the light map; committed and fresh ordinary photos 1-7.7, noisy dim ones
    # 11-37; synthetic photos only) has its light map median-blurred for the full size
    # search, blobs from `noisy_thresholds`: fewer noise specks
    noisy_median: int = 3  # px, that blur's aperture (0: never)
    noisy_thresholds: tuple[int, int] = (140, 250)  # the blob thresholds on that map
    max_search_blobs: int = 500  # a pass's board search looks at this many of the largest
    # field blobs: a noisy dim photo gives 800-1300 (most of them small noise specks, each
    # one more hypothesis to try: seconds); ordinary photos give at most ~350 (unchanged)
    search_thresholds: tuple[int, int] = (140, 250)  # the reduced search's blob thresholds:
    # below 140 (the surroundings' level is 128) the table's texture makes most of the blob
    # detector's contours; the reduced search only gives the start of the refine, whose full
    # size blobs keep `blob_thresholds` (the same boards on 130 scenes; the detector takes a
    # third of the time)
    search_prescore_keep: int = 40  # the reduced search's `prescore_keep` (the same boards)
    blob_light_sigma: float = 40.0  # px at full size: scale of the light normalisation
    icp_iters: int = 8
    refine_best: int = 4  # best run hypotheses refined with homographies
    min_run: int = 5  # evenly spaced collinear blobs that may be a row of fields
    max_runs: int = 80  # longest runs looked at
    run_partners: int = 3  # each run is paired with its nearest parallel runs
    prescore_keep: int = 100  # hypotheses kept after the quick score for the full one
    # (300 before: the same boards on 120 committed and fresh scenes, 1.3 x faster)
    dedupe_px: float = 6.0  # hypotheses whose board corners agree to this are one
    size_ratio: tuple[float, float] = (0.95, 2.0)  # (run spacing / blob diameter) in the
    # photo over (spacing / field diameter) on the board: blobs are a field's white inside
    glare_area: AreaSettings = AreaSettings("cloth", 0.0, 0)  # only its glare_* thresholds
    # are read: a lamp's round reflection (`vision.area.glare_spots` on the 640 px copy;
    # none on the 60 committed and fresh photos in ordinary light, 38 of 50 under our glare)
    # A glare spot's light is taken off the pawns' colour samples (`GlareLight`): the light
    # it adds to the board's surface around the track fields, fitted as a smooth lobe
    # A exp(-d^2 / 2 t^2) of the elliptical distance d from the spot (t from `glare_widths`)
    # over at least `glare_min_seen` unsaturated rings (0: off), those farther than
    # `glare_trim` robust deviations left out of the second fit; the board's white from its
    # unsaturated fields with that light taken off too (session 12)
    glare_retry: bool = True  # no board found with a glare spot in the photo: the whole
    # search once more on the photo with the spot's light taken off (`without_glare`; its
    # halo had washed the fields out of the blob map)
    glare_off_heights: tuple[float, ...] = (0.0,)  # the sample planes (of `heights_mm`)
    # the glare light is taken off: the footprint only. A lamp's reflection lies on the
    # glossy board, not on the matte pawns' body and head (light_eval's synthetic glare
    # lights the whole photo, pawns too: it would reward all three)
    glare_dark_quantile: float = 10.0  # the other planes (body, head): the glare light taken
    # off a spot's disc at most as far as its darkest channel's this percentile (linear)
    # goes (a dark channel bound: a matte pawn under a real lamp keeps a dark channel and is
    # left as it is; a pawn washed by light over it, as the synthetic glare does, is mended;
    # an empty white field keeps its white); None: those planes left as they are
    glare_white_light: float = 0.05  # the board's white under a glare spot: a saturated
    # field counts where the spot's fitted light is at most this (linear, of white: its own
    # white then at least 249 of 255, within the saturation test's 250), not only where it
    # is none (the lobe's tail reaches the whole board; a light board's saturated fields
    # were all left out and the median of the rest was a pawn's colour: fresh 1842 0011
    # white (57, 111, 81) for (247, 253, 253); 0.02 mended it, 0.05 more photos)
    glare_white_bright: float = 0.7  # the board's white under a glare spot: of the fields
    # counted (above), only those whose lowest channel (light taken off) is at least this x
    # their 90th percentile of it: a spot over most of a board leaves few fields unsaturated,
    # many of them under pawns or printed in a colour, and their median was no white
    # (edition 2 0005 under light_eval's glare: 13 of 66 fields, 7 a pawn or a colour, white
    # (103, 199, 227) for (183, 224, 229) in ordinary light); 0: every counted field
    glare_white_few: float = 0.5  # ... and only where fewer than this share of the track
    # fields are counted: with more, pawns and printed colours are a minority and the median
    # is the white; the brightest of many fields are those the fitted light left too light
    # (the filter on every glare photo: edition 2 glare 5.88 -> 2.94 % but fresh 2010-2013
    # glare each 1-5 pieces worse, all on photos with 37-66 of 66 fields counted)
    board_glare_rings: int = 3  # a glare spot on the board itself (`board_glare_spots`), where
    # `glare_spots` found none: its ring test's absolute ceiling leaves a spot on a light board
    # alone (the board's own surface around the core reads 150-215, over `glare_ring_max`),
    # so on committed, edition 2 and fresh glare photos 14 of some 50 spots on the board were
    # not found and nothing of their light was taken off. Where at least this many track
    # fields' surrounding rings are saturated (median lowest channel >= 250; none in
    # ordinary light, measured: session 16, H8), the saturated core on the board around them
    # is the spot (0: off)
    board_glare_max_share: float = 0.6  # ... unless that core covers this share of the board
    # or more: an overexposed light board, not a lamp's reflection (no falloff to fit)
    edge_glare: bool = True  # a spot at the board's edge (`edge_glare_spots`), where neither
    # of the above found one: half on the table, no track ring saturated, and `glare_spots`'
    # ring test refuses it on a light table (committed glare 0018, 0027; session 16, H17)
    edge_glare_reach: float = 0.05  # ... a round core blob (`glare_area`'s size and ellipse
    # fill) within this share of the board's diagonal of its outline
    edge_glare_min_in: float = 0.1  # ... with at least this share of it inside the board
    edge_glare_fill: float = 0.7  # ... filling this share of its fitted ellipse (below
    # `glare_area`'s 0.85: the board's dark rim and the pawns cut into an edge spot's core;
    # committed glare 0018's fills 0.78)
    glare_widths: tuple[float, ...] = tuple(np.round(np.arange(0.3, 3.01, 0.1), 2))
    glare_min_seen: int = 12
    glare_trim: float = 3.0
    glare_edge_weight: float = 0.25  # the core's edge counts as this share of the rings
    glare_fit_bounded: float = 3.0  # where the best lobe is brighter than some seen ring
    # (+0.1), the best width whose lobe is not (nor at the core's edge), with at most this x
    # the best one's squared misfit, is taken (0: no light at all, as before). Fresh glare
    # 2192 0003: the best lobe (width 1.2) over 8 of 53 rings by up to 0.15 on a dark board
    # left the spot's light on, 14 pawns missed; width 1.1 (misfit 1.09 x) fits every ring
    # (session 17, H13)
    glare_grow: float = 1.5  # track fields within this x a spot's core ellipse are unknown to
    # a fit (neither with nor without their blob; 0: off, the spots still found for the
    # colours' correction and the retry): the true board lost to one
    # stretched over the seen part of the board (session 11)
    small_blob_frac: float = 0.45  # a blob under this x a field's diameter there (the
    # fit's local scale, both board axes) is no field's: it does not count against a fit as
    # a blob no field explains (0: every blob counts). A harsh light made bits of the track's
    # line between the fields into blobs of 0.2-0.25 field diameters, field blobs 0.55-0.86,
    # and the true board's fit fell to 0.45 while a board shifted by half a field won
    # (session 11)
    sep_ratio: tuple[float, float] = (0.5, 1.4)  # image / board distance of two paired runs,
    # in units of their spacing (perspective shortens it)
    alt_iters: int = 4  # ICP steps for the turned / shifted alternatives of the best fit
    sure_fit: tuple[float, float] = (0.7, 1.0)  # the best fit's field fit and start colours
    # at least these: its alternatives are not tried (a turned or shifted lattice leaves a
    # start area off its colour or fields without a blob; on 60 committed and fresh photos
    # an alternative won only after a fit with start colours 0.25-0.75)
    icp_tol: tuple[float, float] = (0.6, 0.3)  # matching radius, share of the pitch
    min_matched: int = 16  # fields matched to accept a board
    # A board found reaching beyond the photo (a corner outside it: never so in the 112
    # committed and fresh truths) may be a pattern of the table (a checked cloth's light
    # squares fit the field lattice: committed 0019 under dim, harsh and glare light, 54
    # pawns): the board search once more on the blobs of another size only (not within
    # this factor of the found fit's field blobs' median diameter), its board kept when it
    # scores higher or lies within the photo (0: off). The cloth's squares were 60-75 px,
    # the fields 12-21.
    other_size_ratio: float = 1.6
    # ... only for a found board reaching more than this share of the photo's long side
    # beyond it (quality.py's `cut_margin`: real photos often clip the board a little, and
    # quality warns "cut off" beyond it), whatever its score (not only under
    # `good_board_score`: the cloth's fit on committed 0019 under the harsh light at full
    # size scored 0.803, the true board found by this search 0.852; the search costs ~0.4 s
    # CPU on photos already warned "cut off"); the other board replaces it where it scores
    # higher, or lies within the photo and scores `min_board_confidence` (the true board
    # under the glare light: 0.625)
    beyond_margin: float = QUALITY_SETTINGS["mauerhuepfer"].cut_margin
    blob_skip: tuple[float, float] = (0.0, 0.0)  # (set by that search) blobs of a
    # diameter (full size px) within this range are left out
    # pawns
    pawn_height_mm: float = 24.0
    pawn_radius_mm: float = 10.0
    foot_r_mm: float = 7.0  # footprint disc sampled on the board
    head_r_mm: float = 5.0
    heights_mm: tuple[float, ...] = (0.0, 11.0, 21.0)  # footprint, body, head sample planes
    min_confidence: float = 0.6  # below: a warning names the position
    min_board_confidence: float = 0.5  # board evidence below this: a warning
    lone_colour_min_conf: float = 0.95  # a colour with < 4 pawns needs one pawn this sure
    complete_min_prob: float = 0.002  # a colour's missing pawn: its likeliest spot, if at
    complete_margin: float = 3.0  # least this probable and this many times the next one
    # a colour missing pawns: the positions a lamp's glare clips (every channel of this
    # share of the footprint and body discs' samples at least `clipped_level`) are named
    # in its warning, a pawn there shows nothing to read (session 20 H10: light_eval's glare
    # on the committed photos, 13 of the 24 pawn errors had the pawn's pixels >= 240 in
    # every channel; in ordinary light no unread spot of the 200 committed photos' boards
    # is clipped, so nothing is added there: the contract dump is unchanged)
    clipped_level: int = 245
    clipped_share: float = 0.5  # (0.8 named 11 of 12 clipped misses on the committed glare
    # copies, none of 8 on fresh 2691, 2692: JPEG noise leaves a clipped pawn 0.69-0.75)
    dice: BoardDiceSettings = BoardDiceSettings()  # the dice beside the board
    threads: bool = True  # independent steps overlap on a helper thread (OpenCV and most of
    # numpy let go of Python's lock): the full size blob map beside the reduced search, the
    # dice beside the pawns; the same readings either way ...
    threads_below_load: float = 1.25  # ... while the 1-minute load average per core is
    # under this: on the shared 2 cores at load 5-6 the overlapped steps only slowed each
    # other (bench: pawns 19 -> 46 ms, dice 121-144 -> 184 ms, total no faster); at load 2
    # they saved 5 % of the wall time (read_mauer median 174 -> 166 ms, 10 photos x 2)
    opencv_threads: int = 1  # OpenCV's own worker threads while a photo is read (0: as they
    # are): on the shared 2 cores (load 6) its 2 threads made the reading slower, CPU per
    # photo median 199 -> 167 ms, wall 487 -> 362 ms with 1; the same readings
    heap_keep_mb: int = 32  # glibc's allocator keeps freed blocks up to this size (and twice
    # this much freed memory at its heap's top; 1-32, larger is clipped) for reuse instead
    # of giving them back to the system (0: as it is): a photo's images (0.3-15 MB) were
    # fresh pages each time, their page faults about 5 ms of system CPU per photo
    # (2300-2900 faults; 80 so); the process' whole setting, made once per value
    # (`keep_heap`), the readings the same (session 13)
    white_fields_chroma: float = 2.0  # no board in any pass: the full size passes once more
    # on a map of whiteness, L* (8-bit) less this x the chroma (a*, b* of the photo white
    # balanced by its own light; 0: off). The fields are white: on a pale coloured board
    # (committed 0020, white fields on light green) they stand out from it by their chroma,
    # hardly by their lightness (light map: fields 142, the board around them 139), and
    # the plain map gave 21-34 field blobs, too few for a fit; this one 56-67 (0.69-0.76).
    # At 3.0 an ordinary board's coloured parts spoiled the map (0003: no board), hence
    # only where the plain map found none (session 13). The chroma is taken off the colour
    # of the photo's lightest pixels (this percentile of L*), not off grey nor after
    # `light_gains`' balance: a pale board filling the photo pulled that balance (daylight
    # 0020: still no board with it, 0.74 so)
    white_top_percentile: float = 98.0
    white_fields_lowest: bool = True  # that map's whiteness: the photo's lowest channel
    # over the light's white (the lightest pixels' median BGR), not L* less the chroma. A
    # white field has every channel as high as the light's white; any coloured board has
    # one channel low, however little its lightness or chroma differ. Under the harsh
    # orange light the pale 0020 board's fields (BGR 196, 238, 255) and its surface (151,
    # 232, 235) differed by 10 in L* and 2 x 13 in chroma: the strict pass's blobs hit 11
    # of 66 fields, on the lowest channel 36 (in ordinary light 46 either way; session 15).
    # Under glare it sees fewer: committed 0016 is then found by the glare retry, not by
    # this pass (30 of 66 fields against 36). `white_fields_chroma` 0 still turns it off
    white_fields_passes: int = 1  # that search's passes: the first this many of
    # `blob_shape_passes` (the strict one found 0020 in normal, daylight and dim light at
    # 0.72-0.73; on 120 photos of the other games, without a board, find_board CPU mean
    # 239 -> 318 ms with 1, -> 532 with all 3)
    level_lean_max: float = 0.04  # the camera's fit keeps its level-camera residual while
    # the fit without it leans the board's normal sideways (its camera x component) by at
    # most this (a phone held level); beyond it the photo is held crooked and the level
    # residual would pull the focal length to a third and the heads off the pawns. The 40
    # committed photos (both editions) lean 0.0006-0.0217, turned 5 degrees 0.005-0.058,
    # turned 10-20 degrees 0.033-0.094 (committed 0000, 0003, 0004; session 22, H11)
    parallel_passes: bool = False  # with `threads`, also the full size search's blob passes
    # side by side: faster on an idle machine, but on the shared 2 cores (load 5-6) the
    # passes' Python parts wait for each other: p90 770 -> 986, 587 -> 698 ms (bench)

SETTINGS = MauerSettings()

_POOLS: dict[str, ThreadPoolExecutor] = {}  # by thread name prefix, made when first used
_POOLS_LOCK = threading.Lock()  # two threads asking at once make one pool, not two


def _run_on(pool: str, s: MauerSettings, fn, *args) -> Future | Later:
    """`fn(*args)` on the helper pool named `pool` (2 workers, made when first used) when
    `s.threads` and a core is to spare, else a `Later`: `run_beside` and `run_leaf`."""
    if not (s.threads and _spare_core(s.threads_below_load)):
        return Later(fn, *args)
    ex = _POOLS.get(pool)
    if ex is None:
        with _POOLS_LOCK:
            ex = _POOLS.get(pool)
            if ex is None:
                ex = _POOLS[pool] = ThreadPoolExecutor(max_workers=2,
                                                       thread_name_prefix=pool)
    return ex.submit(contextvars.copy_context().run, fn, *args)


def run_beside(s: MauerSettings, fn, *args) -> Future | Later:
    """`fn(*args)` started on a helper thread when `s.threads` and a core is to spare (in a
    copy of the caller's context: a teach profile in use stays in use), else made when first
    asked for: a `Future` or a `Later`, either way `.result()` returns or raises what `fn`
    did."""
    return _run_on("mauer", s, fn, *args)


def run_leaf(s: MauerSettings, fn, *args) -> Future | Later:
    """`run_beside` for a job that waits for no other job (a step inside a job that
    `run_beside` started, e.g. the dice's light blob search): on a pool of its own, so that
    the helper threads waiting for such jobs (several photos read at once in the web app)
    can never wait for each other's."""
    return _run_on("mauer-leaf", s, fn, *args)


_CV_LOCK = threading.Lock()
_cv_readers = 0  # readings inside `opencv_threads` now
_cv_before = 0  # OpenCV's thread count before the first of them


@contextlib.contextmanager
def opencv_threads(n: int):
    """OpenCV's worker threads set to `n` inside the block (0: left as they are), back to
    what they were when the last block running at the same time (other threads) ends. The
    count is the whole process's: other work running meanwhile in other threads (another
    game's photo in the web app) gets `n` too (the Mauerhuepfer readings are the same with
    1 or 2 threads: test and 60 photos)."""
    global _cv_readers, _cv_before
    if n <= 0:
        yield
        return
    with _CV_LOCK:
        if _cv_readers == 0:
            _cv_before = cv2.getNumThreads()
            cv2.setNumThreads(n)
        _cv_readers += 1
    try:
        yield
    finally:
        with _CV_LOCK:
            _cv_readers -= 1
            if _cv_readers == 0:
                cv2.setNumThreads(_cv_before)


HEAP_KEEP_MAX_MB = 32  # glibc's largest M_MMAP_THRESHOLD on 64 bits (a larger one is refused)


def keep_heap(mb: int) -> bool:
    """Ask glibc's malloc (where there is one) to serve blocks under `mb` MB from its heap and
    to keep up to twice that freed at the heap's top (`mallopt` M_MMAP_THRESHOLD and
    M_TRIM_THRESHOLD) rather than map fresh pages for every large array and give them back
    when it is freed: the page faults of each photo's images cost about 5 ms of system CPU.
    `mb` is clipped to 1..`HEAP_KEEP_MAX_MB` (0 or less: off). The setting is the whole
    process'; the last value's result is cached, so repeating it costs nothing (another
    value sets it again). True when it was taken, False with `mb` 0 or no glibc."""
    if mb <= 0 or not sys.platform.startswith("linux"):
        return False
    return _keep_heap(min(int(mb), HEAP_KEEP_MAX_MB))


@lru_cache(maxsize=1)
def _keep_heap(mb: int) -> bool:
    """`keep_heap` of a clipped `mb` (1..`HEAP_KEEP_MAX_MB`: 2 x mb MB fits a C int)."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
        mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
        return bool(mallopt(-3, mb << 20)) and bool(mallopt(-1, 2 * mb << 20))
    except (OSError, AttributeError):  # not glibc
        return False


def _spare_core(below: float, less: float = 0.0) -> bool:
    """The 1-minute load average per core, less `less` (a share of it this process knows is
    its own; never under 0), is under `below` (True where it is not known)."""
    try:
        return max(0.0, os.getloadavg()[0] - less) < below * (os.cpu_count() or 1)
    except (AttributeError, OSError):
        return True


class Later:
    """`fn(*args)`, made by the first `.result()` (`run_beside` without threads)."""

    def __init__(self, fn, *args):
        self._fn, self._args, self._value, self._made = fn, args, None, False

    def result(self):
        if not self._made:
            self._value, self._made = self._fn(*self._args), True
        return self._value

    def cancel(self) -> bool:
        return not self._made


def _now(maps: BlobMap | Future | Later | None) -> BlobMap | None:
    """A blob map that may still be in the making (`run_beside`): the map."""
    return maps.result() if isinstance(maps, Future | Later) else maps


# --------------------------------------------------------------------------- geometry


def _dist(a, b) -> np.ndarray:
    """Euclidean distance between broadcast (..., 2) point arrays: `np.linalg.norm(a - b,
    axis=-1)` bit for bit, without building a - b or numpy's slow reduction over a length-2
    axis (the board search computes millions of these)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    dx = a[..., 0] - b[..., 0]
    dy = a[..., 1] - b[..., 1]
    return np.sqrt(dx * dx + dy * dy)


def apply_h(H: np.ndarray, pts) -> np.ndarray:
    """(N, 2) points through a 3x3 homography."""
    p = np.asarray(pts, np.float64).reshape(-1, 2)
    q = p @ H[:, :2].T + H[:, 2]
    return q[:, :2] / q[:, 2:3]


def project(P: np.ndarray, pts3) -> np.ndarray:
    """(N, 3) board points (mm, z down) -> (N, 2) image pixels through a 3x4 matrix."""
    p = np.asarray(pts3, np.float64).reshape(-1, 3)
    q = p @ P[:, :3].T + P[:, 3]
    return q[:, :2] / q[:, 2:3]


def board_corners_mm(board: Board) -> np.ndarray:
    w, h = board.size_mm
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)


def _k(f: float, cx: float, cy: float) -> np.ndarray:
    return np.array([[f, 0, cx], [0, f, cy], [0, 0, 1.0]])


def _calib_residual(params, H, size, level: float = 0.5) -> list[float]:
    """The calibration's residuals for (f, cx, cy) and H (3x3 as nested lists), in plain
    floats (called ~100 times per photo): K^-1 H's first two columns m1, m2 should be
    orthonormal up to scale; `level` weighs the level camera's (0: no such residual's
    pull, a photo held crooked)."""
    f, cx, cy = (float(v) for v in params)
    w, h = size
    (a0, b0, _), (a1, b1, _), (a2, b2, _) = H  # 3x3, nested lists
    # m = K^-1 H for K = [[f, 0, cx], [0, f, cy], [0, 0, 1]]
    m1 = ((a0 - cx * a2) / f, (a1 - cy * a2) / f, a2)
    m2 = ((b0 - cx * b2) / f, (b1 - cy * b2) / f, b2)
    n1 = math.sqrt(m1[0] * m1[0] + m1[1] * m1[1] + m1[2] * m1[2])
    n2 = math.sqrt(m2[0] * m2[0] + m2[1] * m2[1] + m2[2] * m2[2])
    r1 = [v / n1 for v in m1]
    r2 = [v / n2 for v in m2]
    return [
        r1[0] * r2[0] + r1[1] * r2[1] + r1[2] * r2[2],  # board axes orthogonal
        (n1 - n2) / (n1 + n2),  # ... and equally long
        level * (r1[1] * r2[2] - r1[2] * r2[1]),  # level camera (no roll): the vertical
        # r1 x r2 has no image-x component
        0.05 * (cx - w / 2) / w,  # weak prior: principal point near the centre
        0.05 * (cy - h / 2) / h,
        0.02 * math.log(f / (0.8 * max(w, h))),  # weak prior: ordinary phone lens
    ]


_CALIB_DAMP = 1e-9 * np.eye(3)  # `_calib_fit`'s damping of J^T J (made once)


def _calib_fit(Hl, size: tuple[int, int], level: float) -> np.ndarray:
    """(f, cx, cy) fitted by Gauss-Newton to `_calib_residual` with that `level` weight,
    from an ordinary phone lens at the photo's centre."""
    w, h = size
    f, cx, cy = 0.8 * max(w, h), w / 2, h / 2
    least = 0.2 * max(w, h)
    for _ in range(30):
        # forward differences with a step of 1 in f, cx, cy, in plain floats (the same
        # numbers as the former numpy steps and columns, less overhead; session 26); the
        # step's clip, update and test in plain floats too (np.clip, x + dx, x[0] = max(..)
        # and np.abs(dx).max() < 1e-3 on 3 numbers: the same operations; session 29)
        r0 = _calib_residual((f, cx, cy), Hl, size, level)
        moved = [_calib_residual(p, Hl, size, level)
                 for p in ((f + 1.0, cx, cy), (f, cx + 1.0, cy), (f, cx, cy + 1.0))]
        r = np.array(r0)
        J = np.array([[m[k] - r0[k] for m in moved] for k in range(len(r0))])  # (/ step 1)
        d0, d1, d2 = np.linalg.lstsq(J.T @ J + _CALIB_DAMP, -J.T @ r, rcond=None)[0].tolist()
        lim = 0.3 * f
        if d0 < -lim:
            d0 = -lim
        elif d0 > lim:
            d0 = lim
        f, cx, cy = max(f + d0, least), cx + d1, cy + d2
        if abs(d0) < 1e-3 and abs(d1) < 1e-3 and abs(d2) < 1e-3:
            break
    return np.array([f, cx, cy])


def camera_from_homography(H: np.ndarray, size: tuple[int, int],
                           s: MauerSettings = SETTINGS) -> np.ndarray:
    """3x4 projection P of board points (x, y, z) mm, z down into the board, from the 3x3
    board-plane homography H (mm -> px) of a (W, H) photo: K [r1 r2 r1xr2 t] with the focal
    length and principal point fitted by Gauss-Newton (orthonormal axes, level camera, weak
    priors). A photo held crooked (its camera rolled) is not level: where the fit without
    the level residual leans the board's normal sideways by more than `s.level_lean_max`,
    that fit is kept (session 22, H11). P[:, [0, 1, 3]] equals H up to scale."""
    Hl = H.tolist()
    x = _calib_fit(Hl, size, 0.0)
    if abs(_calib_residual(x, Hl, size, 1.0)[2]) <= s.level_lean_max:
        x = _calib_fit(Hl, size, 0.5)
    K = _k(*x)
    m = np.linalg.solve(K, H)
    lam = (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1])) / 2
    if m[2, 2] < 0:  # the board lies in front of the camera
        lam = -lam
    r1, r2, t = m[:, 0] / lam, m[:, 1] / lam, m[:, 2] / lam
    r3 = np.cross(r1, r2)
    P = K @ np.column_stack([r1, r2, r3, t])
    return P


# --------------------------------------------------------------------------- board search


@dataclass(frozen=True)
class BoardView:
    """A located board. corners: (4, 2) image px in the board file's order (0, 0), (w, 0),
    (w, h), (0, h); H: 3x3 mm -> image px; P: 3x4 (x, y, z mm, z down) -> image px;
    score: board evidence 0-1; glares: a lamp's glare spots in the photo (`glare_spots`'
    ((cx, cy), (axis, axis), degrees), full size px), read off the pawns' colours."""

    corners: np.ndarray
    H: np.ndarray
    P: np.ndarray
    score: float
    glares: tuple = ()
    other_search: str = ""  # `find_board`'s search among blobs of another size, run for
    # a board reaching beyond the photo: "" not run, "replaced" its board won, "kept" it
    # found none surer


@dataclass(frozen=True)
class BlobMap:
    """What the field blob search looks at, the same for every pass of it: `img` the photo
    at `f` x its size (uint8 BGR), `lightness` its plain L* (uint8, OpenCV's scale; the
    dice search reuses it when f is 1), `bg` the local light (float32, L* blurred wide; a
    `_LocalLight`, made where sliced); `light` (made on first use) the lightness relative
    to the local light (uint8, 128 = the surroundings' level), `light_in` the same for a
    part of the photo only."""

    img: np.ndarray
    f: float
    lightness: np.ndarray
    bg: np.ndarray | _LocalLight

    @cached_property
    def light(self) -> np.ndarray:
        return self.light_in(0, self.lightness.shape[0], 0, self.lightness.shape[1])

    @cached_property
    def lab(self) -> np.ndarray:
        """`img`'s Lab (uint8, OpenCV's scale; `blob_map` keeps the one it made)."""
        return cv2.cvtColor(self.img, cv2.COLOR_BGR2LAB)

    def light_in(self, y0: int, y1: int, x0: int, x1: int) -> np.ndarray:
        """`light[y0:y1, x0:x1]`, made for that part only (the same numbers)."""
        return self._divide(self.lightness[y0:y1, x0:x1], self.bg[y0:y1, x0:x1])

    def part(self, y0: int, y1: int, x0: int, x1: int, mask: np.ndarray) -> BlobMap:
        """The map of `img[y0:y1, x0:x1]` with `light` cleared where `mask` (uint8 0/1, the
        part's size) is 0."""
        part = BlobMap(self.img[y0:y1, x0:x1], self.f, self.lightness[y0:y1, x0:x1],
                       self.bg[y0:y1, x0:x1])
        part.__dict__["light"] = self.light_in(y0, y1, x0, x1) * mask  # the cached property
        return part

    @staticmethod
    def _divide(L8: np.ndarray, bg: np.ndarray) -> np.ndarray:
        """`np.clip(L8 / max(bg, 8) * 128, 0, 255)` as uint8 (float32, in place: the same
        numbers with fewer copies)."""
        x = L8.astype(np.float32)
        x /= np.maximum(bg, np.float32(8.0))
        x *= np.float32(128.0)
        return np.clip(x, 0, 255, out=x).astype(np.uint8)


def _calmed(maps: BlobMap, s: MauerSettings) -> tuple[BlobMap, MauerSettings]:
    """The map and settings of the full size search: `maps` and `s` themselves, or, when the
    photo is noisy (a dim room: a mean absolute step between horizontal neighbours of
    `light`, every other row, of `noisy_light_step` or more), `light` median-blurred
    (`noisy_median` px) and the blob thresholds `noisy_thresholds` (from the
    specks' level: on three noisy dim photos 1000-1250 blobs in 440-770 ms CPU a pass
    raw, 100-170 in 60-150 ms so)."""
    light = maps.light
    if not s.noisy_median:
        return maps, s
    rows = light[::2].astype(np.int16)
    if float(np.abs(np.diff(rows, axis=1)).mean()) < s.noisy_light_step:
        return maps, s
    calm = BlobMap(maps.img, maps.f, maps.lightness, maps.bg)
    calm.__dict__["light"] = cv2.medianBlur(light, s.noisy_median)  # the cached property
    return calm, replace(s, blob_thresholds=s.noisy_thresholds)


def blob_map(image_bgr: np.ndarray, s: MauerSettings = None,
             resized: np.ndarray | None = None, resized_lab: np.ndarray | None = None
             ) -> BlobMap:
    """The photo's `BlobMap` at `s.blob_long_side`; `resized`: the photo already reduced to
    that size (INTER_AREA), when the caller has it, and `resized_lab` its Lab (uint8)."""
    s = s or SETTINGS
    h, w = image_bgr.shape[:2]
    f = min(1.0, s.blob_long_side / max(h, w))
    size = (round(w * f), round(h * f))
    lab8 = None
    if f >= 1:
        img = image_bgr
    elif resized is not None and resized.shape[1::-1] == size:
        img, lab8 = resized, resized_lab
    else:
        img = cv2.resize(image_bgr, size, interpolation=cv2.INTER_AREA)
    # L* as its own contiguous plane (not a view into Lab: its float copy here, the
    # light's division and the dice's crops of it run faster on it)
    lab8 = cv2.cvtColor(img, cv2.COLOR_BGR2LAB) if lab8 is None else lab8
    L8 = cv2.extractChannel(lab8, 0)
    maps = BlobMap(img, f, L8, _local_light(L8, s.blob_light_sigma * f))
    maps.__dict__["lab"] = lab8  # the cached property (`whiteness_map` reads it)
    return maps


def _local_light(L8: np.ndarray, sigma: float) -> _LocalLight:
    """The local light of a uint8 lightness map (float32, its size, a `_LocalLight`: made
    where sliced): blurred wide (Gaussian, `sigma` px) on an eighth size copy, to divide out
    shadows and gradients."""
    small = cv2.resize(L8.astype(np.float32), (max(8, L8.shape[1] // 8),
                                               max(8, L8.shape[0] // 8)),
                       interpolation=cv2.INTER_AREA)
    return _LocalLight(cv2.GaussianBlur(small, (0, 0), sigma / 8), L8.shape[:2])


class _LocalLight:
    """`_local_light`'s (H, W) float32 map: the blurred eighth size copy `small` enlarged
    (INTER_LINEAR) to (H, W), made only for the part sliced (`light[y0:y1, x0:x1]`, steps
    of 1) while the whole is not made: the refine reads the board's part of the full size
    map only, and the whole map was 0.5-1 ms a photo (session 29). Where H and W are 8 x
    the copy's, the part is the copy's part round it (one pixel more each side where
    there is one) enlarged 8 x: OpenCV places each pixel by the same offsets and weights
    as in the whole map, so the same numbers (tests: every committed photo, random parts);
    other sizes make the whole map. `np.asarray` gives the whole map."""

    def __init__(self, small: np.ndarray, shape: tuple[int, int]):
        self._small, self.shape = small, shape
        self._whole: np.ndarray | None = None
        sh, sw = small.shape[:2]
        self._parts = shape == (8 * sh, 8 * sw)  # (an exact 8 x enlargement)

    def whole(self) -> np.ndarray:
        if self._whole is None:
            self._whole = cv2.resize(self._small, self.shape[::-1],
                                     interpolation=cv2.INTER_LINEAR)
        return self._whole

    def __array__(self, dtype=None, copy=None):
        return self.whole() if dtype is None else self.whole().astype(dtype)

    def __getitem__(self, key) -> np.ndarray:
        ys, xs = key
        if self._whole is not None or not self._parts or ys.step not in (None, 1) \
                or xs.step not in (None, 1):
            return self.whole()[ys, xs]
        (y0, y1, _), (x0, x1, _) = ys.indices(self.shape[0]), xs.indices(self.shape[1])
        if y1 <= y0 or x1 <= x0:
            return self.whole()[ys, xs]
        sh, sw = self._small.shape[:2]
        # the copy's pixels these output pixels are made from, and one more each side (no
        # border clamped inside the photo)
        sy0, sx0 = max(0, y0 // 8 - 1), max(0, x0 // 8 - 1)
        sy1, sx1 = min(sh, -(-y1 // 8) + 1), min(sw, -(-x1 // 8) + 1)
        part = cv2.resize(self._small[sy0:sy1, sx0:sx1], (8 * (sx1 - sx0), 8 * (sy1 - sy0)),
                          interpolation=cv2.INTER_LINEAR)
        return part[y0 - 8 * sy0:y1 - 8 * sy0, x0 - 8 * sx0:x1 - 8 * sx0]


def whiteness_map(maps: BlobMap, s: MauerSettings) -> BlobMap:
    """`maps` with its lightness replaced by whiteness, and its local light made anew from
    it. The light's white is the median BGR of `maps.img`'s lightest pixels
    (`white_top_percentile` of L*). With `s.white_fields_lowest`: the lowest of the three
    channels over that white (uint8); else L* (OpenCV's scale) less `s.white_fields_chroma`
    x the chroma off the white's, clipped to uint8. White fields on a pale coloured board
    differ from it in one channel or in chroma more than in lightness."""
    lab = maps.lab
    L = lab[..., 0]
    top = L >= np.percentile(L[::4, ::4], s.white_top_percentile)
    if s.white_fields_lowest:  # each channel over the light's white, the lowest
        ref = np.maximum(np.median(maps.img[top], axis=0), 1.0)
        lut = np.clip(np.arange(256.0)[:, None] * (255.0 / ref), 0, 255).astype(np.uint8)
        b, g, r = cv2.split(cv2.LUT(maps.img, lut[:, None, :]))  # (a table per channel)
        white = cv2.min(cv2.min(b, g), r)
        return BlobMap(maps.img, maps.f, white,
                       _local_light(white, s.blob_light_sigma * maps.f))
    ab = lab[..., 1:].astype(np.float32)
    ab -= np.median(ab[top], axis=0)  # the light's white: the lightest pixels' colour
    chroma = np.hypot(ab[..., 0], ab[..., 1])
    white = np.clip(L - s.white_fields_chroma * chroma, 0, 255).astype(np.uint8)
    return BlobMap(maps.img, maps.f, white, _local_light(white, s.blob_light_sigma * maps.f))


def _blurred_lab_at(img: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """Lab (uint8, OpenCV's scale) of `cv2.blur(img, (3, 3))` at integer pixels xy (N, 2):
    the same numbers as converting the whole blurred image, for a few pixels."""
    h, w = img.shape[:2]

    def reflect(v, n):  # OpenCV's default border (BORDER_REFLECT_101)
        return np.abs(n - 1 - np.abs(v - (n - 1)))

    acc = np.zeros((len(xy), 3), np.int32)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            acc += img[reflect(xy[:, 1] + dy, h), reflect(xy[:, 0] + dx, w)]
    mean = np.rint(acc / 9.0).astype(np.uint8)  # never a tie: sums / 9 end in k/9
    return cv2.cvtColor(mean[:, None], cv2.COLOR_BGR2LAB)[:, 0]


def field_blobs(image_bgr: np.ndarray, s: MauerSettings = None,
                maps: BlobMap | None = None) -> np.ndarray:
    """Light round blobs (track fields are white discs): (N, 3) image px centre x, y and
    diameter. `maps`: `blob_map(image_bgr, s)` when already made (several passes)."""
    s = s or SETTINGS
    maps = maps or blob_map(image_bgr, s)
    img, L, f = maps.img, maps.light, maps.f
    p = cv2.SimpleBlobDetector_Params()
    p.filterByColor, p.blobColor = True, 255
    p.minThreshold, p.maxThreshold = _thresholds_seen(L, s.blob_thresholds, s.blob_step)
    p.thresholdStep = s.blob_step
    p.minRepeatability = s.blob_repeat
    p.minArea, p.maxArea = s.blob_area[0] * f * f, s.blob_area[1] * f * f
    p.filterByCircularity = False
    p.filterByInertia, p.minInertiaRatio = True, s.blob_min_inertia
    p.filterByConvexity, p.minConvexity = True, s.blob_min_convexity
    p.minDistBetweenBlobs = 3
    kp = sorted(cv2.SimpleBlobDetector_create(p).detect(L), key=lambda k: -k.size)
    if kp:  # fields are white: drop coloured blobs (wooden walls, coloured slots)
        xy = np.array([k.pt for k in kp]).round().astype(int)
        xy[:, 0] = xy[:, 0].clip(0, img.shape[1] - 1)
        xy[:, 1] = xy[:, 1].clip(0, img.shape[0] - 1)
        px = _blurred_lab_at(img, xy).astype(np.float32)
        ab = px[:, 1:] - 128
        light = px[:, 0] >= np.percentile(px[:, 0], 50)
        ab -= np.median(ab[light], axis=0)  # relative to the lighter blobs (white fields
        # under a colour cast of the light or the board)
        grey = np.hypot(ab[:, 0], ab[:, 1]) < s.blob_max_chroma
        kp = [k for k, g in zip(kp, grey, strict=True) if g]
    blobs = np.array([(k.pt[0], k.pt[1], k.size) for k in kp], np.float64).reshape(-1, 3)
    lo, hi = s.blob_skip
    if hi > 0:  # (before `one_per_field`: a skipped big blob hides no field blob near it)
        blobs = blobs[(blobs[:, 2] < lo * f) | (blobs[:, 2] > hi * f)]
    return blobs[one_per_field(blobs)] / f


def _thresholds_seen(L: np.ndarray, thresholds: tuple[int, int], step: int
                     ) -> tuple[float, float]:
    """The blob detector's (first, last) threshold on the uint8 map `L`: `thresholds`, the
    last lowered to the first threshold of the detector's ladder (first + k x step) at or
    above L's maximum. The detector binarizes L > t at each threshold t: from there on every
    binary image is empty, no contour, no blob, yet each one was a scan of the map (29 % of
    the thresholds' pixels on the committed photos, 16 % on fresh ones; an empty image scans
    fast: `field_blobs` 19.3 -> 18.2 ms CPU a call on the committed 30). The same ladder
    below, so the same blobs to the bit. Where fewer than two thresholds would be left,
    `thresholds` as they are (OpenCV refuses a single threshold with `blob_repeat` 2; no
    blob persists over one anyway) (session 27)."""
    lo, hi = thresholds
    top = int(L.max()) if L.size else 0
    cut = lo + step * math.ceil((top - lo) / step) if top > lo else lo
    if cut - lo < 2 * step or cut >= hi:
        return float(lo), float(hi)
    return float(lo), float(cut)


def one_per_field(blobs: np.ndarray) -> np.ndarray:
    """Indices of the blobs (N, 3: x, y, diameter; largest first) kept when each is dropped
    that lies within half the diameter of a blob kept before it (a digit may split a field
    into two blobs): the greedy pass over all kept blobs, with only the few near ones
    measured one by one (math.hypot, as that pass did)."""
    n = len(blobs)
    x, y, size = blobs[:, 0], blobs[:, 1], blobs[:, 2]
    # [i, j]: blob i may lie within half of blob j's diameter (a margin over numpy's hypot)
    near = np.hypot(x[:, None] - x[None], y[:, None] - y[None]) <= \
        0.5 * size[None] * (1 + 1e-9) + 1e-9
    kept = np.zeros(n, bool)
    xs, ys, ss = x.tolist(), y.tolist(), size.tolist()
    for i in range(n):
        kept[i] = all(math.hypot(xs[i] - xs[j], ys[i] - ys[j]) > 0.5 * ss[j]
                      for j in np.flatnonzero(near[i, :i] & kept[:i]).tolist())
    return np.flatnonzero(kept)


def find_runs(pts: np.ndarray, min_len: int, tol: float = 0.25, k: int = 6,
              max_gap: int = 1) -> list[tuple[np.ndarray, np.ndarray]]:
    """Chains of points that are collinear and evenly spaced (a row of fields; spacing may
    change slowly, as under perspective), allowing up to `max_gap` missing points in a row (a
    pawn or a shadow on a field): [(indices, slots)] where slots are the points' integer
    positions along the chain from 0; at least `min_len` points, most points first, none
    contained in another."""
    n = len(pts)
    if n < min_len:
        return []
    d = _dist(pts[:, None], pts[None])
    np.fill_diagonal(d, np.inf)
    by_dist = np.argsort(d, axis=1)
    nbr = by_dist[:, :min(k, n - 1)]
    # the next point of a chain is looked for among the last point's neighbours, nearest
    # first, in plain floats (the same numbers as over all points in numpy, many times faster)
    xs, ys = pts[:, 0].tolist(), pts[:, 1].tolist()
    near_idx = by_dist.tolist()
    near_d = np.take_along_axis(d, by_dist, axis=1).tolist()

    def nearest(b: int, tx: float, ty: float, lo: float, hi: float) -> tuple[int, float]:
        """The point nearest (tx, ty) (the lowest index of equals, as np.argmin) and its
        distance, among the points lo to hi away from b; else (-1, inf)."""
        best, best_d = -1, math.inf
        ds = near_d[b]
        for k in range(bisect.bisect_left(ds, lo), len(ds)):
            if ds[k] > hi:
                break
            m = near_idx[b][k]
            dx, dy = xs[m] - tx, ys[m] - ty
            dd = math.sqrt(dx * dx + dy * dy)
            if dd < best_d or (dd == best_d and m < best):
                best, best_d = m, dd
        return best, best_d

    def extend(chain: list[int], slot: list[int]) -> None:
        while True:
            a, b = chain[-2], chain[-1]
            ds = slot[-1] - slot[-2]
            sx, sy = (xs[b] - xs[a]) / ds, (ys[b] - ys[a]) / ds
            size = math.sqrt(sx * sx + sy * sy)
            for jump in range(1, max_gap + 2):
                # a point within tol * size of the target (jump * size from b) lies within
                # (jump -+ tol) * size of b; if none does, no point is near enough
                m, dm = nearest(b, xs[b] + jump * sx, ys[b] + jump * sy,
                                (jump - tol) * size * (1 - 1e-9),
                                (jump + tol) * size * (1 + 1e-9))
                if dm < tol * size and m not in chain:
                    chain.append(m)
                    slot.append(slot[-1] + jump)
                    break
            else:
                return

    return chains_from(nbr, extend, min_len)


def chains_from(nbr: np.ndarray, extend, min_len: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """`find_runs`' chains: from each point i and each of its neighbours `nbr[i]` a chain
    grown both ways by `extend(chain, slot)` (it appends while it can), links already inside
    a found chain skipped; [(indices, slots)] of at least `min_len` points, most points
    first, none contained in another."""
    found: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
    covered: set[tuple[int, int]] = set()  # neighbour links already inside a found chain
    for i in range(len(nbr)):
        for j in nbr[i]:
            if (i, int(j)) in covered:
                continue
            chain, slot = [i, int(j)], [0, 1]
            extend(chain, slot)
            chain, slot = chain[::-1], [-v for v in slot[::-1]]
            extend(chain, slot)
            for a, b in zip(chain, chain[1:], strict=False):
                covered.add((a, b))
                covered.add((b, a))
            if len(chain) >= min_len:
                key = tuple(sorted(chain))
                if key not in found:
                    sl = np.array(slot)
                    found[key] = (np.array(chain), sl - sl[0])
    return uncontained(sorted(found.values(), key=lambda r: (len(r[0]), -r[1][-1]),
                              reverse=True))


def uncontained(runs: list[tuple[np.ndarray, np.ndarray]]) -> list[tuple[np.ndarray,
                                                                          np.ndarray]]:
    """The runs (indices, slots) whose points are not all in a run kept before them (each
    kept run's points made a set of plain ints once: sets of numpy integers hash slowly)."""
    out: list[tuple[np.ndarray, np.ndarray]] = []
    out_sets: list[set[int]] = []
    for r in runs:
        points = set(r[0].tolist())
        if not any(points <= o for o in out_sets):
            out.append(r)
            out_sets.append(points)
    return out


@lru_cache(maxsize=4)
def _board_runs(board: Board, min_len: int = 6) -> tuple[np.ndarray, ...]:
    fields, _ = _field_array(board)
    return tuple(r for r, _ in find_runs(fields, min_len, tol=0.05, k=8, max_gap=0))


@dataclass(frozen=True)
class _RunTable:
    """What `_run_hypotheses` needs of a board's rows of fields, made once per board: per
    run its direction and normal (unit), spacing / field diameter, length; which run pairs
    may show as two parallel image runs (parallel, no field shared) and their separation in
    units of the first one's spacing; and every stretch of n fields of run i, each way round
    (offset, then direction), as rows ends[start[i, n]:start[i, n] + count[i, n]] of
    (first, last) field indices."""

    blen: np.ndarray  # (R,) fields per run
    qb: np.ndarray  # (R,) spacing / field diameter
    compat: np.ndarray  # (R, R) bool
    ratio_b: np.ndarray  # (R, R)
    start: np.ndarray  # (R, longest + 1) int
    count: np.ndarray  # (R, longest + 1) int
    ends: np.ndarray  # (E, 2) int


@lru_cache(maxsize=4)
def _run_table(board: Board) -> _RunTable:
    fields, _ = _field_array(board)
    field_d = 2 * board.field_radius_mm
    binfo = []
    for r in _board_runs(board):
        pts = fields[r]
        v = pts[-1] - pts[0]
        sp = float(np.linalg.norm(v)) / (len(r) - 1)
        binfo.append((r, v / np.linalg.norm(v), np.array([-v[1], v[0]]) / np.linalg.norm(v),
                      sp, sp / field_d, pts.mean(axis=0), set(r.tolist())))
    nb_ = len(binfo)
    compat = np.zeros((nb_, nb_), bool)
    ratio_b = np.ones((nb_, nb_))
    for i1, (_, v1, nb, sb1, _, cb1, bs1) in enumerate(binfo):
        for i2, (_, v2, _, _, _, cb2, bs2) in enumerate(binfo):
            if i1 != i2 and not abs(v1 @ v2) < 0.99 and not bs1 & bs2:
                compat[i1, i2] = True
                ratio_b[i1, i2] = abs((cb2 - cb1) @ nb) / sb1
    blen = np.array([len(b[0]) for b in binfo])
    longest = int(blen.max())
    start = np.zeros((nb_, longest + 1), np.int64)
    count = np.zeros((nb_, longest + 1), np.int64)
    rows: list[tuple[int, int]] = []
    for i, (b, *_) in enumerate(binfo):
        for n in range(2, len(b) + 1):
            block = [e for o in range(len(b) - n + 1)
                     for e in ((b[o], b[o + n - 1]), (b[o + n - 1], b[o]))]
            start[i, n], count[i, n] = len(rows), len(block)
            rows.extend(block)
    return _RunTable(blen, np.array([b[4] for b in binfo]), compat, ratio_b, start, count,
                     np.array(rows, np.int64).reshape(-1, 2))


def _run_hypotheses(det: np.ndarray, board: Board, s: MauerSettings,
                    colour=None) -> list[np.ndarray]:
    """Homographies (mm -> px) from pairs of parallel image runs of blobs matched to pairs of
    board runs of fields (every offset and direction), best fitting first. det: (N, 3)
    blobs x, y, diameter. A run's spacing over its blobs' diameter must suit the board run
    it is matched to (fields nearly touch along a row; a tablecloth's pattern does not).
    colour: optional (K, 3, 3) homographies -> (K,) start-area colour evidence."""
    fields, pitch = _field_array(board)
    xy = det[:, :2]
    tb = _run_table(board)
    longest = int(tb.blen.max())
    runs, windows = [], []  # (points, slots)
    for r, sl in find_runs(xy, s.min_run):
        if sl[-1] + 1 > longest:  # a regular pattern longer than any row: its windows, last
            for w0 in range(sl[-1] + 2 - longest):
                inw = (sl >= w0) & (sl < w0 + longest)
                if inw.sum() >= s.min_run:
                    windows.append((r[inw], sl[inw] - sl[inw][0]))
        else:
            runs.append((r, sl))
    runs = (runs + windows)[: s.max_runs]
    if not runs:
        return []
    # per image run: first and last point, centre, unit direction and normal, spacing,
    # spacing / blob diameter, length in slots; which runs share a blob
    nr = len(runs)
    first = np.array([xy[r[0]] for r, _ in runs])
    last = np.array([xy[r[-1]] for r, _ in runs])
    centre = np.array([xy[r].mean(axis=0) for r, _ in runs])
    u = last - first
    ulen = np.sqrt(u[:, 0] * u[:, 0] + u[:, 1] * u[:, 1])
    du = u / ulen[:, None]
    nu = np.column_stack([-u[:, 1], u[:, 0]]) / ulen[:, None]
    slots = np.array([sl[-1] for _, sl in runs], np.float64)
    sp = ulen / slots
    q = sp / np.array([det[r, 2].mean() for r, _ in runs])
    rlen = slots.astype(np.int64) + 1
    member = np.zeros((nr, len(xy)), bool)
    for a, (r, _) in enumerate(runs):
        member[a, r] = True
    shared = _sharing(member)  # [a, b]: a blob in both
    # each run with its nearest parallel runs (a run on its other side, not overlapping)
    parallel = np.abs(du[:, 0][:, None] * du[:, 0][None] + du[:, 1][:, None] * du[:, 1][None])
    dc = centre[None, :, :] - centre[:, None, :]  # [a, b] = centre b - centre a
    sep = np.abs(dc[..., 0] * nu[:, 0][:, None] + dc[..., 1] * nu[:, 1][:, None])
    cand = (~(parallel < math.cos(math.radians(25))) & ~shared & (sep >= 0.5 * sp[:, None]))
    np.fill_diagonal(cand, False)
    pairs: list[tuple[int, int]] = []
    seen_pairs: set[tuple[int, int]] = set()
    for a in range(nr):
        bs = np.flatnonzero(cand[a])
        for b in bs[np.lexsort((bs, sep[a, bs]))][: s.run_partners].tolist():
            if (b, a) not in seen_pairs:
                pairs.append((a, b))
                seen_pairs.add((a, b))
    if not pairs:
        return []
    pa, pb = np.array(pairs).T
    shape = (int(xy[:, 1].max()) + 2, int(xy[:, 0].max()) + 2)
    lo_q, hi_q = s.size_ratio
    # per pair (a, b): which board run pairs (i1 on a, i2 on b) may show as the two runs
    ratio_i = sep[pa, pb] / ((sp[pa] + sp[pb]) / 2)
    qa, qbb = q[pa][:, None] / tb.qb[None], q[pb][:, None] / tb.qb[None]
    ok1 = (tb.blen[None] >= rlen[pa][:, None]) & (lo_q < qa) & (qa < hi_q)
    ok2 = (tb.blen[None] >= rlen[pb][:, None]) & (lo_q < qbb) & (qbb < hi_q)
    r = ratio_i[:, None, None] / np.maximum(tb.ratio_b, 1e-6)[None]
    ok = (ok1[:, :, None] & ok2[:, None, :] & tb.compat[None]
          & (s.sep_ratio[0] < r) & (r < s.sep_ratio[1]))
    p, i1, i2 = np.nonzero(ok)  # pair-major, then i1, then i2: the former loops' order
    if not len(p):
        return []
    n1, n2 = rlen[pa[p]], rlen[pb[p]]
    c = np.column_stack([tb.start[i1, n1], tb.count[i1, n1], tb.start[i2, n2],
                         tb.count[i2, n2], p])
    dst_of = np.stack([first[pa], last[pa], last[pb], first[pb]], axis=1)
    # every stretch of one board run on a's run times every stretch of the other on b's,
    # the first one's stretches outermost (the order of the former nested loops)
    per = c[:, 1] * c[:, 3]
    cid = np.repeat(np.arange(len(c)), per)
    local = np.arange(int(per.sum())) - np.repeat(np.cumsum(per) - per, per)
    tab = tb.ends
    e1 = tab[c[cid, 0] + local // c[cid, 3]]
    e2 = tab[c[cid, 2] + local % c[cid, 3]]
    srcs = np.column_stack([e1[:, 0], e1[:, 1], e2[:, 1], e2[:, 0]])
    dsts = dst_of[c[cid, 4]]
    # a plausible homography keeps the turn of every three of its points on the board (not
    # mirrored, the horizon off the board): pairings that do not are left out before
    # the homographies are made (about half, each run direction is either way round)
    same = _same_turns(fields[srcs], dsts)
    srcs, dsts = srcs[same], dsts[same]
    if not len(srcs):
        return []
    Hs = _homographies(fields[srcs], dsts)
    ok = _plausible_many(Hs, board_corners_mm(board))
    Hs = Hs[ok]
    if not len(Hs):
        return []
    quick = _quick_scores(Hs, xy, fields, pitch, shape)
    order = np.argsort(-quick)
    corners = _apply_many(Hs[order[: 4 * s.prescore_keep]], board_corners_mm(board))
    keys = np.round(corners.reshape(len(corners), -1) / s.dedupe_px).astype(int).tolist()
    seen_keys: set = set()
    top = []
    for k, i in enumerate(order[: 4 * s.prescore_keep].tolist()):  # near-identical fits once
        key = tuple(keys[k])  # (rounded all at once: the same numbers as one by one)
        if key not in seen_keys:
            seen_keys.add(key)
            top.append(i)
        if len(top) >= s.prescore_keep:
            break
    top = np.array(top)
    ce = colour(Hs[top]) if colour is not None else np.zeros(len(top))
    fs = _fit_scores_many(xy, fields, Hs[top], pitch, _min_size(det, board, s))
    hyps = sorted(zip((fs + s.colour_weight * ce).tolist(), top.tolist(), strict=True),
                  reverse=True)
    return [Hs[i] for _, i in hyps[: s.refine_best]]


def _sharing(member: np.ndarray) -> np.ndarray:
    """(R, R) bool: whether runs a and b share a blob, from `member` (R, N) bool (run a holds
    blob n); the diagonal True. A bool product over the blobs held by two runs or more (no
    BLAS): the former float32 product `member @ member.T > 0` went to OpenBLAS, whose worker
    threads spun 24-76 ms of CPU on an (80, 175) one on the shared 2 cores (committed 0019,
    the print table's photos; the same matrix, session 27)."""
    m = member[:, member.sum(axis=0) >= 2]
    out = m @ m.T
    np.fill_diagonal(out, True)
    return out


def _same_turns(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """(K,) bool: each corner of the quadrilaterals src and dst (K, 4, 2) turns the same way
    (the sign of the cross product of its two sides)."""
    out = np.ones(len(src), bool)
    # (4, K) rows of each corner's x and y, contiguous (the same numbers as the strided
    # columns of src and dst, faster to subtract; session 26)
    xy = [(q[..., 0].T.copy(), q[..., 1].T.copy()) for q in (src, dst)]
    for i in range(4):
        a, b, c = i - 1, i, (i + 1) % 4
        turn = [(x[b] - x[a]) * (y[c] - y[b]) - (y[b] - y[a]) * (x[c] - x[b]) > 0
                for x, y in xy]
        out &= turn[0] == turn[1]
    return out


def _square_to_quad(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Homographies taking the unit square's corners (0, 0), (1, 0), (1, 1), (0, 1) to the
    quadrilaterals q (K, 4, 2), in closed form (Heckbert): ((K, 3, 3), (K,) bool: the quad
    is not degenerate, three of its corners not on one line)."""
    x0, x1, x2, x3 = q[..., 0].T.copy()  # (contiguous rows: faster arithmetic, the same
    y0, y1, y2, y3 = q[..., 1].T.copy()  # numbers as the strided columns)
    dx1, dx2, sx = x1 - x2, x3 - x2, x0 - x1 + x2 - x3
    dy1, dy2, sy = y1 - y2, y3 - y2, y0 - y1 + y2 - y3
    den = dx1 * dy2 - dx2 * dy1
    ok = np.ones(len(q), bool)
    xs, ys = (x0, x1, x2, x3), (y0, y1, y2, y3)
    for i in range(4):  # no three corners on a line (on the corners' own x and y arrays:
        # the same numbers as on the strided (K, 2) sides; session 26)
        a, b, c = i - 1, i, (i + 1) % 4
        ux, uy, vx, vy = xs[b] - xs[a], ys[b] - ys[a], xs[c] - xs[b], ys[c] - ys[b]
        p, r = ux * vy, uy * vx
        ok &= np.abs(p - r) > 1e-9 * (np.abs(p) + np.abs(r) + 1e-300)
    den = np.where(ok, den, 1.0)
    g = (sx * dy2 - dx2 * sy) / den
    h = (dx1 * sy - sx * dy1) / den
    out = np.empty((len(q), 3, 3))
    out[:, 0, 0], out[:, 0, 1], out[:, 0, 2] = x1 - x0 + g * x1, x3 - x0 + h * x3, x0
    out[:, 1, 0], out[:, 1, 1], out[:, 1, 2] = y1 - y0 + g * y1, y3 - y0 + h * y3, y0
    out[:, 2, 0], out[:, 2, 1], out[:, 2, 2] = g, h, 1.0
    return out, ok


def _homographies(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Batched 4-point homographies: src, dst (K, 4, 2) -> (K', 3, 3) (h33 = 1), the
    degenerate ones (three points of a quad on a line) left out: square -> dst after
    src -> square, both in closed form (the same matrices as solving each 8 x 8 system,
    to rounding, about 10 times faster)."""
    A, ok_a = _square_to_quad(np.asarray(src, np.float64))
    B, ok_b = _square_to_quad(np.asarray(dst, np.float64))
    # the adjugate of A (its inverse up to scale), then B @ adj(A), written out
    a, b, c = A[:, 0, 0], A[:, 0, 1], A[:, 0, 2]
    d, e, f = A[:, 1, 0], A[:, 1, 1], A[:, 1, 2]
    g, h, i = A[:, 2, 0], A[:, 2, 1], A[:, 2, 2]
    adj = np.empty_like(A)
    adj[:, 0, 0], adj[:, 0, 1], adj[:, 0, 2] = e * i - f * h, c * h - b * i, b * f - c * e
    adj[:, 1, 0], adj[:, 1, 1], adj[:, 1, 2] = f * g - d * i, a * i - c * g, c * d - a * f
    adj[:, 2, 0], adj[:, 2, 1], adj[:, 2, 2] = d * h - e * g, b * g - a * h, a * e - b * d
    Hs = np.empty_like(A)
    for r in range(3):
        for col in range(3):
            Hs[:, r, col] = (B[:, r, 0] * adj[:, 0, col] + B[:, r, 1] * adj[:, 1, col]
                             + B[:, r, 2] * adj[:, 2, col])
    h33 = Hs[:, 2, 2]
    if not len(Hs):
        return Hs
    good = ok_a & ok_b & (np.abs(h33) > 1e-12 * np.abs(Hs).reshape(len(Hs), 9).max(axis=1))
    Hs = Hs[good] / h33[good][:, None, None]
    return Hs[np.isfinite(Hs).all(axis=(1, 2))]


def _apply_many(Hs: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """(K, 3, 3) homographies on (M, 2) points -> (K, M, 2)."""
    x, y = pts[:, 0][None], pts[:, 1][None]
    q = [Hs[:, i, 0][:, None] * x + Hs[:, i, 1][:, None] * y + Hs[:, i, 2][:, None]
         for i in range(3)]  # the einsum "kij,mj->kmi" written out (5 times faster)
    return np.stack([q[0] / q[2], q[1] / q[2]], axis=-1)


def _plausible_many(Hs: np.ndarray, corners_mm: np.ndarray) -> np.ndarray:
    """`_plausible` for a batch: (K,) bool."""
    c = _apply_many(Hs, corners_mm)
    ok = np.isfinite(c).all(axis=(1, 2))
    x, y = c[..., 0].T.copy(), c[..., 1].T.copy()  # (4, K) rows: one corner's x (y) each
    for i in range(4):
        a, b, d = i - 1, i, (i + 1) % 4
        ux, uy, vx, vy = x[d] - x[b], y[d] - y[b], x[a] - x[b], y[a] - y[b]
        cross = ux * vy - uy * vx
        # (the dot product and numpy's norms over the length-2 axis written out: the
        # same operations in the same order, the same numbers; session 26)
        cosv = (ux * vx + uy * vy) / np.maximum(
            np.sqrt(ux * ux + uy * uy) * np.sqrt(vx * vx + vy * vy), 1e-9)
        ok &= (cross > 0) & (np.abs(cosv) < 0.87)
    return ok


def _projected(xs: np.ndarray, rows) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) of points (xs, y) under many H, whose rows `rows` hold (h0, h1 * y, h2) each
    (the products of y made once for two sets of xs): in place, the same operations as
    `_apply_many`."""
    (a0, ay, a2), (b0, by, b2), (c0, cy, c2) = rows
    w = c0 * xs
    w += cy
    w += c2
    u = a0 * xs
    u += ay
    u += a2
    u /= w
    v = b0 * xs
    v += by
    v += b2
    v /= w
    return u, v


# A blob within this share of the field pitch from a field's centre lies on that field (the
# fit scores and `_other_size_view`). A module constant: the fit scores are called per
# candidate without settings
_NEAR_FIELD = 0.3


def _quick_scores(Hs: np.ndarray, xy: np.ndarray, fields: np.ndarray, pitch_mm: float,
                  shape: tuple[int, int]) -> np.ndarray:
    """Share of fields landing within 0.3 pitch of some blob, for many H at once (a distance
    map of the blobs, looked up at the projected fields)."""
    h, w = shape
    scale = 0.5
    hs, ws = int(h * scale) + 1, int(w * scale) + 1
    seeds = np.full((hs, ws), 255, np.uint8)
    p = np.round(xy * scale).astype(int)
    inside = (p[:, 0] >= 0) & (p[:, 0] < ws) & (p[:, 1] >= 0) & (p[:, 1] < hs)
    seeds[p[inside, 1], p[inside, 0]] = 0
    dist = cv2.distanceTransform(seeds, cv2.DIST_L2, 3)
    dist /= scale  # (in place: the same float32 numbers as `dist / scale`)
    # the map with a border of inf all round: an index clipped to it lands on inf when off
    # the map, as the former test of each index did
    padded = cv2.copyMakeBorder(dist, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=float("inf"))
    out = np.zeros(len(Hs))
    fields = fields[:: max(1, len(fields) // 24)]  # a spread subset is enough to rank
    x, y = fields[:, 0][None], fields[:, 1][None]
    xa = (fields[:, 0] + pitch_mm)[None]  # a pitch ahead (as fields + [pitch, 0])
    for lo in range(0, len(Hs), 2000):
        Hc = Hs[lo:lo + 2000]
        a0, a1, a2 = (Hc[:, 0, i][:, None] for i in range(3))
        b0, b1, b2 = (Hc[:, 1, i][:, None] for i in range(3))
        c0, c1, c2 = (Hc[:, 2, i][:, None] for i in range(3))
        # `_apply_many` of the fields and of the points a pitch ahead, x and y apart, in
        # place and with the products of y made once (the same operations, the same numbers)
        rows = ((a0, a1 * y, a2), (b0, b1 * y, b2), (c0, c1 * y, c2))
        px, py = _projected(x, rows)
        dx, dy = _projected(xa, rows)
        dx -= px
        dy -= py
        dx *= dx
        dy *= dy
        dx += dy
        pitch_px = np.sqrt(dx, out=dx)
        # a field at infinity too: NaN and -inf go to -1, +inf to the far side (both
        # the inf border; fmax drops NaN, as the former np.nan_to_num(nan=-1) then np.clip),
        # clipped before the integer cast (no overflow)
        for v, hi in ((px, ws), (py, hs)):
            v *= scale
            np.fmax(v, -1.0, out=v)
            np.minimum(v, hi, out=v)
            np.rint(v, out=v)
        qx, qy = px.astype(np.int64) + 1, py.astype(np.int64) + 1
        d = np.take(padded, qy * (ws + 2) + qx)  # padded[qy, qx], a flat gather (faster)
        out[lo:lo + 2000] = (d < _NEAR_FIELD * pitch_px).mean(axis=1)
    return out


def _plausible(H: np.ndarray, board: Board) -> bool:
    """The board quad under H is convex, not mirrored, with corner angles 30-150 degrees."""
    c = apply_h(H, board_corners_mm(board))
    for i in range(4):
        a, b, d = c[i - 1], c[i], c[(i + 1) % 4]
        u, v = d - b, a - b
        cross = u[0] * v[1] - u[1] * v[0]
        if cross <= 0:  # the board file's corners go clockwise on screen (y down)
            return False
        cosv = u @ v / max(np.linalg.norm(u) * np.linalg.norm(v), 1e-9)
        if not -0.87 < cosv < 0.87:
            return False
    return True


def _fit_score(det: np.ndarray, fields: np.ndarray, H: np.ndarray, pitch_mm: float,
               min_size: np.ndarray | None = None, unknown: np.ndarray | None = None) -> float:
    """Share of fields with their own blob on them (mutual nearest), less half the share of
    blobs among the fields that no field explains (a lattice shifted by a row or a field
    leaves such blobs over). `min_size`: (N,) blob diameter over `small_blob_frac` x the
    field diameter in mm (`_min_size`): a blob under `small_blob_frac` x a field's diameter
    at its place (the fit's local scale: the geometric mean of its px per mm along both
    board axes at its nearest field, so a tilt along either axis is seen; a bit of the
    track's line between two fields, light under a lamp) is no field's and not counted as
    unexplained. `unknown`: (F,) fields under a glare spot (`_glared`), left out of the
    share of fields with a blob while at least half the fields are seen (else every field
    counts, as without glare: one or two seen fields would decide the share)."""
    proj = apply_h(H, fields)
    ahead = apply_h(H, fields + np.array([pitch_mm, 0.0]))
    pitch_px = _dist(ahead, proj)
    d = _dist(proj[:, None], det[None])
    j = np.argmin(d, axis=1)
    back = np.argmin(d, axis=0)
    matched = (d[np.arange(len(fields)), j] < _NEAR_FIELD * pitch_px) \
        & (back[j] == np.arange(len(fields)))
    near = d.min(axis=0) < _NEAR_FIELD * float(pitch_px.mean())
    if min_size is not None:  # blob px per field mm there (its nearest field's area scale)
        side = apply_h(H, fields + np.array([0.0, pitch_mm]))
        near |= min_size * pitch_mm < np.sqrt(pitch_px * _dist(side, proj))[back]
    try:
        mm = apply_h(np.linalg.inv(H), det)
    except np.linalg.LinAlgError:
        return -1.0
    lo, hi = fields.min(axis=0) - 0.3 * pitch_mm, fields.max(axis=0) + 0.3 * pitch_mm
    inside = np.all((mm > lo) & (mm < hi), axis=1)
    seen = matched
    if unknown is not None and 2 * int((~unknown).sum()) >= len(fields):
        seen = matched[~unknown]
    return float(seen.mean() - 0.5 * (inside & ~near).sum() / len(fields))


def _glared(H: np.ndarray, fields: np.ndarray, glares, grow: float) -> np.ndarray | None:
    """(F,) bool: the fields (mm) under H (mm -> the spots' px) within `grow` x a glare
    spot's core ellipse (`vision.area.glare_distance` of `glare_spots`' spots, as
    `remove_glare` measures it); None without spots or with `grow` 0 (off)."""
    if not glares or grow <= 0:
        return None
    return GlareLight.distance(glares, apply_h(H, fields)) <= grow


def _min_size(blobs: np.ndarray, board: Board, s: MauerSettings) -> np.ndarray | None:
    """`_fit_score`'s `min_size` of (N, 3) blobs (x, y, diameter): each blob's diameter
    over `small_blob_frac` x the field diameter in mm; None with `small_blob_frac` 0."""
    if s.small_blob_frac <= 0:
        return None
    return blobs[:, 2] / (s.small_blob_frac * 2.0 * board.field_radius_mm)


def _fit_scores_many(det: np.ndarray, fields: np.ndarray, Hs: np.ndarray,
                     pitch_mm: float, min_size: np.ndarray | None = None) -> np.ndarray:
    """`_fit_score` for (K, 3, 3) homographies at once: (K,). Without its `unknown` (the
    first round's ranking does not look at glare spots: every field counts)."""
    out = np.full(len(Hs), -1.0)
    lo, hi = fields.min(axis=0) - 0.3 * pitch_mm, fields.max(axis=0) + 0.3 * pitch_mm
    dets = np.linalg.det(Hs)
    ok = np.abs(dets) > 1e-12
    if not ok.any():
        return out
    scores = []
    for k0 in range(0, int(ok.sum()), 32):  # in chunks: the (K, F, N) distances stay in cache
        H = Hs[ok][k0:k0 + 32]
        proj = _apply_many(H, fields)  # (K, F, 2)
        ahead = _apply_many(H, fields + np.array([pitch_mm, 0.0]))
        pitch_px = _dist(ahead, proj)  # (K, F)
        d = _dist(proj[:, :, None], det[None, None])  # (K, F, N)
        j = d.argmin(axis=2)
        back = d.argmin(axis=1)  # (K, N)
        dj = np.take_along_axis(d, j[..., None], axis=2)[..., 0]
        mutual = np.take_along_axis(back, j, axis=1) == np.arange(len(fields))[None]
        matched = (dj < _NEAR_FIELD * pitch_px) & mutual
        # (K, N): d.min(axis=1), the value at its argmin
        near = np.take_along_axis(d, back[:, None], axis=1)[:, 0] \
            < _NEAR_FIELD * pitch_px.mean(axis=1, keepdims=True)
        if min_size is not None:  # `_fit_score`'s local area scale at each blob's field
            side = _apply_many(H, fields + np.array([0.0, pitch_mm]))
            local = np.sqrt(pitch_px * _dist(side, proj))  # (K, F)
            near |= min_size[None] * pitch_mm < np.take_along_axis(local, back, axis=1)
        mm = _apply_many(np.linalg.inv(H), det)  # (K, N, 2)
        inside = np.all((mm > lo) & (mm < hi), axis=2)
        scores.append(matched.mean(axis=1) - 0.5 * (inside & ~near).sum(axis=1) / len(fields))
    out[ok] = np.concatenate(scores)
    return out


@lru_cache(maxsize=16)
def _icp_tolerances(iters: int, tol: tuple[float, float]) -> np.ndarray:
    """`_icp`'s matching radius per step (share of the pitch), `tol[0]` shrinking to `tol[1]`:
    (iters,) float64, `np.interp` of the step over the steps made once (one call per step
    was a tenth of ICP's time)."""
    out = np.interp(np.arange(iters), [0, max(iters - 1, 1)], list(tol))
    out.flags.writeable = False
    return out


def _icp(det: np.ndarray, fields: np.ndarray, H: np.ndarray, pitch_mm: float,
         s: MauerSettings, iters: int, affine: int | None = None,
         ) -> tuple[np.ndarray | None, int, float]:
    """Refine H (mm -> px) so the board's fields land on detected blobs: nearest-neighbour
    matching with a shrinking tolerance, affine fits first, then homographies.
    Returns (H or None, matched fields, rms residual in units of the pitch)."""
    n = 0
    rms = 1.0
    affine = iters if affine is None else affine
    ahead_mm = fields + np.array([pitch_mm, 0.0])
    idx = np.arange(len(fields))
    fracs = _icp_tolerances(iters, s.icp_tol)
    last = None  # the matches the last fit was made from
    matches = None  # (pitch_px, j, dj, mutual) of the current H: kept while H stays
    for it in range(iters):
        if matches is None:
            proj = apply_h(H, fields)
            ahead = apply_h(H, ahead_mm)
            pitch_px = _dist(ahead, proj)
            d = _dist(proj[:, None], det[None])
            j = np.argmin(d, axis=1)
            back = np.argmin(d, axis=0)  # mutual nearest neighbours only
            matches = (pitch_px, j, d[idx, j], back[j] == idx)
        pitch_px, j, dj, mutual = matches
        ok = (dj < fracs[it] * pitch_px) & mutual
        n = int(ok.sum())
        if n < 6:
            return None, n, 1.0
        if it == iters - 1:  # (what it returns: the last step's; the earlier ones unread)
            rms = float(np.sqrt(np.mean((dj[ok] / pitch_px[ok]) ** 2)))
        key = (it < affine, ok.tobytes(), j[ok].tobytes())
        if key == last:  # converged: the fit of these matches is H already (a refit
            continue  # differs only through the RANSAC threshold's tiny change with H)
        last = key
        src, dst = fields[ok].astype(np.float32), det[j[ok]].astype(np.float32)
        if it < affine:
            A, _ = cv2.estimateAffine2D(src, dst, ransacReprojThreshold=float(
                0.3 * median(pitch_px)))
            if A is None:
                return None, n, 1.0
            H = np.vstack([A, [0, 0, 1]])
        else:
            Hn, _ = cv2.findHomography(src, dst, cv2.RANSAC, float(0.25 * median(pitch_px)))
            if Hn is None:
                return None, n, 1.0
            H = Hn
        matches = None  # a new H: its distances made again
    return H, n, rms


def _ring(center, r0: float, r1: float, n: int = 24) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    pts = []
    for rr in np.linspace(r0, r1, 3):
        pts.append(np.column_stack([center[0] + rr * np.cos(a), center[1] + rr * np.sin(a)]))
    return np.concatenate(pts)


def _bilinear(img: np.ndarray | _BalancedLab, pts: np.ndarray) -> np.ndarray:
    """Sample an (H, W, C) image (float, or uint8: the same numbers without a float copy; or
    a `_BalancedLab`, its pixels made where read) at (N, 2) x, y points (clamped); returns
    (N, C) float64."""
    h, w = img.shape[:2]
    x = np.clip(pts[:, 0], 0, w - 1.001)
    y = np.clip(pts[:, 1], 0, h - 1.001)
    x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
    fx, fy = (x - x0)[:, None], (y - y0)[:, None]
    gx = 1 - fx
    i = y0 * w + x0
    if isinstance(img, _BalancedLab):  # the four corners' pixels made at once
        n = len(i)
        v = img.rows(np.concatenate([i, i + 1, i + w, i + w + 1]))
        a = v[:n] * gx + v[n:2 * n] * fx
        b = v[2 * n:3 * n] * gx + v[3 * n:] * fx
        return a * (1 - fy) + b * fy
    flat = img.reshape(h * w, -1)  # one flat gather per corner (faster than 2-d indexing;
    # np.take's rows 3-4 times faster than flat[i], the same values)
    a = np.take(flat, i, axis=0) * gx + np.take(flat, i + 1, axis=0) * fx
    i += w
    b = np.take(flat, i, axis=0) * gx + np.take(flat, i + 1, axis=0) * fx
    return a * (1 - fy) + b * fy


# expected colour of each start area's ring: direction in Lab (a*, b*)
_START_HUE = {"red": (1.0, 0.45), "yellow": (0.0, 1.0), "green": (-1.0, 0.5)}
# the start areas' hues are read against every 4th track field's colour (the board's own
# white under the fit), not the photo's grey: a harsh orange light left the green ring yellow
# after the photo's balance and a turned or wrong board won (session 11). A module constant,
# not a `MauerSettings` field: `_white_fields` is cached per board and never sees settings
_WHITE_FIELD_STEP = 4
# A start area whose ring reads this light (median L*, OpenCV's 0-255 scale: more than half
# its samples clipped, about all channels >= 254) and does not show its colour is washed out
# (a lamp's glare): its colour is unknown and counts half, neither for nor against a fit
# (pure yellow reads 248; a washed-out ring that still shows its hue counts as seen). Under
# the glare light the true board's black area read 254-255 and lost to wrong boards whose
# rings landed on the board's own tint (session 14). 254, not 250 everywhere: white paper
# in a well-exposed photo reads 245-255, and a wrong fit's ring on a white field is no
# unknown. A module constant for the reason above.
_CLIPPED_L = 254.0
# ... or this light where the ring lies in one of the photo's glare spots (`glare_spots`,
# the ring's median elliptical distance within `_GLARE_REACH` x its core's ellipse, as
# `glare_grow`): 254 alone lost fresh 1740 0004 under the glare light (the wrong board
# again, 272.7 px off); with this, the same light_eval figures as 250 on the committed and
# fresh sets (session 14)
_GLARE_CLIPPED_L = 250.0
_GLARE_REACH = 1.5
# A washed-out area's share of the evidence: half (unknown), not left out: an area left out
# made a wrong fit's evidence whole (1.0) and `sure_fit` skipped the shifted alternatives
# that held the true board (session 14)
_WASHED_CREDIT = 0.5


def _area_credit(hit, lightness, glared=False):
    """A start area's colour evidence (floats or arrays): 1 where its ring shows its
    colour (`hit`), `_WASHED_CREDIT` where it does not but its median L* (`lightness`)
    reads washed out (`_CLIPPED_L`, or `_GLARE_CLIPPED_L` where `glared`: in a glare
    spot), else 0."""
    L = np.asarray(lightness)
    washed = (L >= _CLIPPED_L) | (np.asarray(glared) & (L >= _GLARE_CLIPPED_L))
    return np.where(~np.asarray(hit) & washed, _WASHED_CREDIT, np.asarray(hit, float))


def _rings_glared(glares, proj: np.ndarray) -> np.ndarray:
    """(..., c) bool: whether each ring's (..., c, n, 2) px sample points lie in a glare
    spot (their median elliptical distance within `_GLARE_REACH`); all False without spots."""
    if not glares:
        return np.zeros(proj.shape[:-2], bool)
    d = GlareLight.distance(glares, proj.reshape(-1, 2)).reshape(proj.shape[:-1])
    return median(d, axis=-1) <= _GLARE_REACH


def _colour_evidence_many(lab: np.ndarray, Hs: np.ndarray, board: Board,
                          glares=()) -> np.ndarray:
    """`_colour_evidence` for (K, 3, 3) homographies at once: (K,) floats."""
    rings = _start_rings(board)
    if len(rings) < 2:
        return np.zeros(len(Hs))
    white = _white_fields(board)
    pts = np.concatenate(rings + (white,))
    proj = _apply_many(Hs, pts).reshape(-1, 2)
    proj = np.where(np.isfinite(proj), proj, -1.0)
    px = _bilinear(lab, proj).reshape(len(Hs), -1, 3)
    n = len(rings) * len(rings[0])
    med = median(px[:, :n].reshape(len(Hs), len(rings), len(rings[0]), 3), axis=2)  # (K, c, 3)
    ref = median(px[:, n:, 1:], axis=1)  # (K, 2): the board's white fields' a*, b*
    glared = _rings_glared(glares, proj.reshape(len(Hs), -1, 2)[:, :n].reshape(
        len(Hs), len(rings), len(rings[0]), 2))
    ev = np.zeros(len(Hs))
    names = [a.colour for a in board.colours]
    for ci, colour in enumerate(names):
        v = med[:, ci]
        if colour == "black":
            others = np.min(np.delete(med[:, :, 0], ci, axis=1), axis=1)
            hit = v[:, 0] < others - 5
        else:
            hit = _shows_hue(v[:, 1] - ref[:, 0], v[:, 2] - ref[:, 1], colour)
        ev += _area_credit(hit, v[:, 0], glared[:, ci])
    return ev / len(names)


def _shows_hue(a, b, colour: str):
    """Whether Lab a*, b* offsets (floats or arrays) from a neutral show a start area's hue:
    within 0.7 rad of its direction and at least 8 units of chroma."""
    ea, eb = _START_HUE[colour]
    ang = np.arctan2(b, a) - math.atan2(eb, ea)
    ang = np.abs((ang + math.pi) % (2 * math.pi) - math.pi)
    return (ang < 0.7) & (np.hypot(a, b) > 8.0)


@lru_cache(maxsize=4)
def _white_fields(board: Board) -> np.ndarray:
    """Centres (mm) of every `_WHITE_FIELD_STEP`-th track field: the board's own white, the
    neutral the start areas' hues are read against (a lamp's cast that the photo's grey
    world balance leaves, e.g. an orange light on a brown table, moves the rings and the
    fields alike)."""
    fields, _ = _field_array(board)
    return fields[::_WHITE_FIELD_STEP].copy()


@lru_cache(maxsize=4)
def _start_rings(board: Board) -> tuple[np.ndarray, ...]:
    """Sample points (mm) on each start area's coloured ring, in `board.colours` order."""
    return tuple(_ring(a.start_center, 0.78 * a.start_radius, 0.95 * a.start_radius, 24)
                 for a in board.colours)


def _colour_evidence(lab: np.ndarray, H: np.ndarray, board: Board, glares=()) -> float:
    """0-1: how well the start areas B under H (mm -> `lab` px) show their colours (the ring's
    hue for red, yellow, green against the board's own white fields under H; black darker
    than the others)."""
    cols = {}
    white, rings = _white_fields(board), _start_rings(board)
    # one sampling of the white fields and every ring (each projected on its own, as before;
    # the rings' points also tell where they lie in glare)
    ring_px = [apply_h(H, r) for r in rings]
    px = _bilinear(lab, np.concatenate([apply_h(H, white)] + ring_px))
    ref = median(px[:len(white), 1:], axis=0)
    o = len(white)
    for a, ring_mm in zip(board.colours, rings, strict=True):
        cols[a.colour] = median(px[o:o + len(ring_mm)], axis=0)
        o += len(ring_mm)
    if len(cols) < 2:
        return 0.0
    glared = _rings_glared(glares, np.stack(ring_px))
    ev = 0.0
    for ci, (colour, v) in enumerate(cols.items()):
        if colour == "black":
            others = [cols[c][0] for c in cols if c != "black"]
            hit = bool(v[0] < min(others) - 5)
        else:
            hit = bool(_shows_hue(v[1] - ref[0], v[2] - ref[1], colour))
        ev += float(_area_credit(hit, v[0], glared[ci]))
    return ev / len(cols)


@lru_cache(maxsize=4)
def _field_array(board: Board) -> tuple[np.ndarray, float]:
    """Track field centres (N, 2) mm and the pitch (median nearest-neighbour distance)."""
    fields = np.array([[f.x, f.y] for f in board.fields], np.float64)
    d = np.linalg.norm(fields[:, None] - fields[None], axis=2)
    np.fill_diagonal(d, np.inf)
    return fields, float(np.median(d.min(axis=1)))


def _reduced(image_bgr: np.ndarray, s: MauerSettings
             ) -> tuple[float, np.ndarray, np.ndarray, np.ndarray | _BalancedLab]:
    """(f, the photo reduced by f to `work_long_side`, its 8-bit Lab, that Lab with a* b* of
    the colour-balanced copy (`colour_balance`; L* as it was: the field contrast reads it),
    uint8 too, as a `_BalancedLab` made where sampled): what the board search reads. (Every
    reader of the last samples it by `_bilinear`, which gives the same float64 numbers from
    uint8 as from a float32 copy; that copy and the strided float write of a* b* were 1.5 ms
    a photo, session 26.)"""
    h, w = image_bgr.shape[:2]
    f = min(1.0, s.work_long_side / max(h, w))
    small = cv2.resize(image_bgr, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA)
    lab8 = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)  # (the reduced search's map reads it too)
    lab = lab8
    if s.colour_balance > 0:
        from vision.preprocess import light_gains

        lab = _BalancedLab(small, lab8, light_gains(small, s.colour_balance),
                           s.balanced_lazy_share)
        if s.balanced_lazy_share <= 0:
            lab = lab.image()
    return f, small, lab8, lab


class _BalancedLab:
    """`_reduced`'s Lab of the colour-balanced copy (uint8, OpenCV's scale: a* b* of the
    reduced photo `small` times `gains` (`preprocess.apply_gains`), L* of `lab8`, the
    photo's own), made only at the pixels `_bilinear` reads (`rows`): the colour checks
    read some 50 000 pixels on most photos (the start areas' rings and the white fields
    under the fits, 5 000-11 000 of them distinct: converted again where read again, which
    costs less than finding them), where the balanced copy and its whole Lab were 2.6-2.9 ms
    CPU a photo (session 29). OpenCV's 8-bit Lab is a per pixel conversion (the same
    numbers for all 2^24 colours whatever the image's shape, a row of pixels included:
    tests), the gains a table, so the numbers are those of the whole image. Once the pixels
    read pass `lazy_share` of the copy's (a photo read by many passes), the whole image is
    made once and read from then on (`image`; two threads reading at once may both make
    it: the same numbers)."""

    def __init__(self, small: np.ndarray, lab8: np.ndarray, gains: np.ndarray,
                 lazy_share: float):
        self.shape = lab8.shape
        self._small, self._lab8 = small, lab8
        table = np.clip(np.arange(256, dtype=np.float32)[:, None] * gains, 0, 255)
        self._lut = np.ascontiguousarray(table.astype(np.uint8).reshape(1, 256, 3))  # as
        # `apply_gains` makes it
        self._left = lazy_share * lab8.shape[0] * lab8.shape[1]  # pixels still made apart
        self._whole: np.ndarray | None = None  # (H x W, 3) once made

    def image(self) -> np.ndarray:
        """The whole (H, W, 3) uint8 image (as `_reduced` made it before session 29)."""
        whole = self._whole
        if whole is None:
            lab = cv2.cvtColor(cv2.LUT(self._small, self._lut), cv2.COLOR_BGR2LAB)
            lab[..., 0] = self._lab8[..., 0]
            whole = self._whole = lab.reshape(-1, 3)
        return whole.reshape(self.shape)

    def rows(self, i: np.ndarray) -> np.ndarray:
        """(N, 3) uint8: the pixels at flat indices `i` (N,) (y x W + x)."""
        if self._whole is None and len(i) <= self._left:
            self._left -= len(i)
            bgr = np.take(self._small.reshape(-1, 3), i, axis=0).reshape(1, -1, 3)
            lab = cv2.cvtColor(cv2.LUT(bgr, self._lut), cv2.COLOR_BGR2LAB).reshape(-1, 3)
            lab[:, 0] = np.take(self._lab8.reshape(-1), 3 * i)  # (L*: the photo's own)
            return lab
        return np.take(self.image().reshape(-1, 3), i, axis=0)


def _reduced_search(image_bgr: np.ndarray, board: Board, s: MauerSettings, small, lab8, lab,
                    f: float, glares, maps: BlobMap | Future | Later | None
                    ) -> tuple[BoardView | None, BlobMap | Future | Later | None]:
    """`find_board`'s search on the reduced copy (`search_long_side`), its fit refined at
    full size (`refine_view`): the view when it scores `quick_accept_score`, else None;
    first the strict blob shapes, then (with no fit or one below `loose_search_below`) the
    loosest ones. Returns (view, `maps`: the full size blob map where one was made)."""
    quick = replace(s, blob_long_side=s.search_long_side, blob_thresholds=s.search_thresholds,
                    prescore_keep=s.search_prescore_keep)
    early = None  # (H, its board_blobs on the helper thread): `ahead` runs once at most

    def ahead(H):  # the refine's full size blobs of the likely view, made meanwhile
        nonlocal early
        early = (H, run_beside(s, _blobs_for, H, board, s, maps))

    qmaps = blob_map(image_bgr, quick, small, lab8)
    view = _find_board_once(image_bgr, board, quick, qmaps, lab, f,
                            ahead if isinstance(maps, Future) else None, glares)
    blobs = None
    if early is not None:
        H, job = early
        if view is not None and np.array_equal(H, view.H) and not job.cancel():
            blobs = job.result()  # (not started there: made by refine_view here)
        else:
            job.cancel()
    if view is not None:
        maps = _now(maps) or blob_map(image_bgr, s)
        view = refine_view(view, board, s, maps, lab, f, blobs, glares)
    if view is not None and view.score >= s.quick_accept_score:
        return view, maps
    if (view is None or view.score < s.loose_search_below) and s.blob_shape_passes \
            and s.blob_shape_passes[-1] != (quick.blob_min_convexity, quick.blob_min_inertia):
        convexity, inertia = s.blob_shape_passes[-1]
        loose = replace(quick, blob_min_convexity=convexity, blob_min_inertia=inertia)
        other = _find_board_once(image_bgr, board, loose, qmaps, lab, f, None, glares)
        if other is not None:
            maps = _now(maps) or blob_map(image_bgr, s)
            other = refine_view(other, board, s, maps, lab, f, None, glares)
        if other is not None and other.score >= s.quick_accept_score:
            return other, maps
    return None, maps


def find_board(image_bgr: np.ndarray, board: Board | None = None,
               s: MauerSettings = SETTINGS, maps: BlobMap | Future | Later | None = None,
               _glares=None) -> BoardView | None:
    """Locate the board in a BGR photo by its track fields (light discs) and its coloured
    start areas: a `BoardView`, or None when nothing looks like the board. First a search
    on a reduced copy (`search_long_side`), its fit refined and scored on the full size
    blobs of the board's fields (`refine_view`); kept when convincing (with no fit or a poor
    one, first once more with the loosest blob shapes). Otherwise the full
    size search: the field blobs looked for strictly first, then (if the fit is not
    convincing) with
    looser shape limits (fields merged with the track's connecting lines, glare); the
    better fit wins. `maps`: `blob_map(image_bgr, s)` when the caller already
    made it (or a `Future` of it: `run_beside`). `_glares`: the glare spots already found
    on the same photo's reduced copy (the retry's: its copy, their light taken off, shows
    none, yet the fields under them stay unknown)."""

    board = board or board_for()
    h, w = image_bgr.shape[:2]
    f, small, lab8, lab = _reduced(image_bgr, s)
    S = np.diag([f, f, 1.0])
    # (found with `glare_grow` 0 too: the colours' correction and the retry read them)
    glares = glare_spots(small, s.glare_area) if _glares is None else _glares
    views = []
    if 0 < s.search_long_side < min(s.blob_long_side, max(h, w)):
        view, maps = _reduced_search(image_bgr, board, s, small, lab8, lab, f, glares, maps)
        if view is not None:
            views.append(view)
    if not views:
        maps = _now(maps) or blob_map(image_bgr, s)  # the passes differ in blob shapes
        calm, full = _calmed(maps, s)  # (made once, before the passes share it)
        views = _full_size_passes(image_bgr, board, full, calm, lab, f, glares)
        if not views and s.white_fields_chroma > 0:  # pale board: its white fields' chroma
            calm, full = _calmed(whiteness_map(maps, s), s)
            views = _full_size_passes(image_bgr, board, replace(
                full, blob_shape_passes=s.blob_shape_passes[:s.white_fields_passes]),
                calm, lab, f, glares)
    if not views:
        if glares and s.glare_retry:  # the whole search once more, the spots' light off
            return find_board(without_glare(image_bgr, small, glares, s), board,
                              replace(s, glare_retry=False), _glares=glares)
        if 0 < s.fine_blob_step != s.blob_step:  # last: the full size search, finer steps
            return find_board(image_bgr, board, replace(
                s, blob_step=s.fine_blob_step, fine_blob_step=0, search_long_side=0,
                glare_retry=False), _now(maps), glares)
        return None
    # passes saw different blobs: judge their boards on the photo itself
    best = views[0] if len(views) == 1 else max(
        views, key=lambda v: field_contrast(lab, S @ v.H, board)
        + s.colour_weight * _colour_evidence(lab, S @ v.H, board, glares))
    margin = s.beyond_margin * max(w, h)
    if s.other_size_ratio > 0 and cut_off(best.corners, (w, h), margin):
        maps = _now(maps) or blob_map(image_bgr, s)
        other = _other_size_view(image_bgr, board, s, maps, glares, best)
        if other is not None and (other.score > best.score or (
                other.score >= s.min_board_confidence
                and not cut_off(other.corners, (w, h), margin))):
            best = replace(other, other_search="replaced")  # (the whole board in the photo)
        else:
            best = replace(best, other_search="kept")
    return replace(best, P=camera_from_homography(best.H, (w, h), s),  # for the chosen one only
                   glares=_full_size(glares, f))


def find_board_quick(image_bgr: np.ndarray, board: Board | None = None,
                     s: MauerSettings = SETTINGS) -> tuple[BoardView | None, BlobMap | None]:
    """`find_board`'s reduced search only (its strict pass, then its loose one), the fit
    refined at full size: (the view when it scores `quick_accept_score` and lies within the
    photo (to `beyond_margin`), else None; the full size `BlobMap` its refine made, or None
    where none was made: the map's `lightness` is the photo's L* when its `f` is 1, which
    the board's dice reader would otherwise convert once more, `dice_beside_board`). No full
    size search, no glare retry, no search among other blob sizes. A cheap, sure test for a
    board in a photo that need not show one: on photos without a board it costs the reduced
    blob map and its fits (median 21 ms), not `find_board`'s full size passes (median 0.26 s
    CPU, up to 1.8 s, on 150 committed photos without a board; session 17)."""
    board = board or board_for()
    h, w = image_bgr.shape[:2]
    if not 0 < s.search_long_side < min(s.blob_long_side, max(h, w)):
        return None, None
    f, small, lab8, lab = _reduced(image_bgr, s)
    glares = glare_spots(small, s.glare_area)
    view, maps = _reduced_search(image_bgr, board, s, small, lab8, lab, f, glares, None)
    if view is None or cut_off(view.corners, (w, h), s.beyond_margin * max(w, h)):
        return None, maps  # (cut off: maybe a pattern of the table; `find_board` looks further)
    return replace(view, P=camera_from_homography(view.H, (w, h), s),
                   glares=_full_size(glares, f)), maps


def dice_beside_board(image_bgr: np.ndarray, dice: list, s: MauerSettings = SETTINGS
                      ) -> tuple[list, list[str], dict[str, float], bool]:
    """`dice` (`vision.dice.Die`, photo px: the whole-photo reader's) with the dice beside a
    Mauerhuepfer board in the photo ((H, W, 3) uint8 BGR) read the board's way
    (`read_board_dice`: the die's size known from the board's perspective; `pick_dice`: the
    dice wanted), for the dice command. A die of `dice` within `s.dice.same_die` die sides
    (the board's local die size) of a board die is that die: the board's reading is kept.
    Returns (dice top to bottom, the board reader's warnings, timings ms {"board"[,
    "board_dice"]}, whether a board was found surely: `find_board_quick`). Without a board:
    `dice` as given, no warnings."""
    board = board_for()
    t0 = time.perf_counter()
    with opencv_threads(s.opencv_threads):
        view, maps = find_board_quick(image_bgr, board, s)
        t1 = time.perf_counter()
        times = {"board": round((t1 - t0) * 1000, 2)}
        if view is None:
            return list(dice), [], times, False
        # the photo's L* where the refine made it (as `_read_mauer` passes it): the same
        # numbers as the dice reader's own conversion, made once
        found, warnings = read_board_dice(image_bgr, view, board, s.dice,
                                          maps.lightness if maps is not None
                                          and maps.f == 1.0 else None)
    used, more = pick_dice(found, view.corners, s.dice.dice_wanted)
    more += unsure_dice(used, warnings, s.dice.warn_confidence)
    sides = [local_die_px(view.H, d.center, s.dice.die_mm) for d in used]
    kept = [g for g in dice if all(
        math.hypot(g.center[0] - d.center[0], g.center[1] - d.center[1]) > s.dice.same_die * p
        for d, p in zip(used, sides, strict=True))]
    times["board_dice"] = round((time.perf_counter() - t1) * 1000, 2)
    return sorted(kept + list(used), key=lambda d: (d.center[1], d.center[0])), \
        warnings + more, times, True


def _other_size_view(image_bgr: np.ndarray, board: Board, s: MauerSettings, maps: BlobMap,
                     glares, view: BoardView) -> BoardView | None:
    """The board search (`find_board`, every pass) once more on the blobs whose diameter
    differs from the median diameter of `view`'s field blobs (the full size blobs nearest
    its fields, within `_NEAR_FIELD` of a pitch) by more than `other_size_ratio` either way: another
    board among blobs of another size (`view` fitted a table's pattern). None when it
    finds none."""
    fields, pitch = _field_array(board)
    blobs = board_blobs(view, board, s, maps)
    if not len(blobs):
        return None
    proj = apply_h(view.H, fields)
    step = _dist(apply_h(view.H, fields + np.array([pitch, 0.0])), proj)
    d = _dist(proj[:, None], blobs[None, :, :2])
    near = d.min(axis=1) < _NEAR_FIELD * step
    if near.sum() < s.min_matched:
        return None
    size = float(np.median(blobs[d.argmin(axis=1)[near], 2]))
    r = s.other_size_ratio
    return find_board(image_bgr, board, replace(s, blob_skip=(size / r, size * r),
                                                other_size_ratio=0.0, fine_blob_step=0),
                      maps, glares)


def _full_size_passes(image_bgr: np.ndarray, board: Board, s: MauerSettings, maps: BlobMap,
                      lab: np.ndarray, f: float, glares) -> list[BoardView]:
    """The full size search: a `_find_board_once` pass on `maps` per blob shape limits of
    `s.blob_shape_passes`, strict first; the views scoring `min_board_score`, until one
    scores `good_board_score`."""
    views = []
    jobs: list = []  # (side by side with `parallel_passes`) a later pass's fit is used
    # only while the earlier ones' do not convince, as when they ran one after the other
    side = replace(s, threads=s.threads and s.parallel_passes)
    for convexity, inertia in s.blob_shape_passes:
        jobs.append(run_beside(side, _find_board_once, image_bgr, board,
                               replace(s, blob_min_convexity=convexity,
                                       blob_min_inertia=inertia), maps, lab, f,
                               None, glares))
    for job in jobs:
        view = job.result()
        if view is not None and view.score >= s.min_board_score:
            views.append(view)
            if view.score >= s.good_board_score:
                break
    for job in jobs:
        job.cancel()  # a pass not yet started and not needed
    return views


def _full_size(glares, f: float) -> tuple:
    """`glare_spots`' spots found on a copy reduced by `f`, in the photo's px."""
    return tuple(((cx / f, cy / f), (ax / f, bx / f), ang) for (cx, cy), (ax, bx), ang in glares)


def without_glare(image_bgr: np.ndarray, small: np.ndarray, glares, s: MauerSettings
                  ) -> np.ndarray:
    """The photo with its glare spots' light (`vision.area.remove_glare` on the reduced copy
    `small`, in which `glares` were found) taken off: the light it took off each pixel of
    the copy (its largest channel's, linear), enlarged and taken off every channel
    (`vision.area.remove_glare_scaled`)."""
    from vision.area import remove_glare_scaled

    return remove_glare_scaled(image_bgr, small, s.glare_area, list(glares))


def board_blobs(view: BoardView, board: Board, s: MauerSettings, maps: BlobMap) -> np.ndarray:
    """`field_blobs` on `maps` within the board's fields under `view` only (their extent
    and `refine_margin` pitches around it; elsewhere the blob map is cleared): (N, 3) image
    px x, y, diameter. The blobs of the whole map there (most to the bit, a few moved by
    a fraction of a pixel where a light region reaching beyond the cleared border joined
    their group at some threshold), for a fraction of the time: the table around the
    board, its texture at the surroundings' level, is most of the blob search's work."""
    fields, pitch = _field_array(board)
    lo = fields.min(axis=0) - s.refine_margin * pitch
    hi = fields.max(axis=0) + s.refine_margin * pitch
    quad = apply_h(view.H, [[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
    if not np.isfinite(quad).all():
        return np.zeros((0, 3))
    mh, mw = maps.lightness.shape  # (not `light`'s: that would make it for the whole photo)
    q = np.round(quad * maps.f).astype(np.int32)
    x0, y0 = max(0, int(q[:, 0].min()) - 1), max(0, int(q[:, 1].min()) - 1)
    x1, y1 = min(mw, int(q[:, 0].max()) + 2), min(mh, int(q[:, 1].max()) + 2)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return np.zeros((0, 3))
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, q - np.array([x0, y0], np.int32), 1)
    crop = maps.part(y0, y1, x0, x1, mask)
    blobs = field_blobs(crop.img, s, crop)  # crop px / f
    blobs[:, :2] += np.array([x0, y0]) / maps.f
    return blobs


def _blobs_for(H: np.ndarray, board: Board, s: MauerSettings, maps) -> np.ndarray:
    """`board_blobs` for a view with homography H, `maps` possibly still in the making."""
    return board_blobs(BoardView(None, H, None, 0.0), board, s, _now(maps))


def refine_view(view: BoardView, board: Board, s: MauerSettings, maps: BlobMap,
                lab: np.ndarray, f: float, blobs: np.ndarray | None = None, glares=()
                ) -> BoardView | None:
    """A view found on a reduced copy, refined on the full size blobs of its fields
    (`board_blobs`, or `blobs` when already made for it): ICP from it, then scored as a
    full size pass scores its fit (fields with their blob and the start colours; `lab`:
    the photo at `f` x its size, Lab as `_reduced` makes it); None when it does not fit."""
    fields, pitch = _field_array(board)
    blobs = board_blobs(view, board, s, maps) if blobs is None else blobs
    det, small = blobs[:, :2], _min_size(blobs, board, s)
    if len(det) < s.min_matched:
        return None
    H, n, _ = _icp(det, fields, view.H, pitch, s, s.icp_iters, affine=0)
    if H is None or n < s.min_matched or not _plausible(H, board):
        return None
    H = H / H[2, 2]
    Hs = np.diag([f, f, 1.0]) @ H
    ce = _colour_evidence(lab, Hs, board, glares)
    fs = _fit_score(det, fields, H, pitch, small, _glared(Hs, fields, glares, s.glare_grow))
    return BoardView(corners=apply_h(H, board_corners_mm(board)), H=H, P=None,
                     score=round(float(fs + ce) / 2, 3))


def field_contrast(lab: np.ndarray, H: np.ndarray, board: Board) -> float:
    """Share of track fields that are lighter than the board around them under H (mm ->
    `lab` px): inner disc vs a ring just outside the field, median L* each."""
    fields, _ = _field_array(board)
    r = board.field_radius_mm
    inner = np.concatenate([_ring((0.0, 0.0), 0.3 * r, 0.7 * r, 8)])
    outer = _ring((0.0, 0.0), 1.2 * r, 1.45 * r, 12)
    pi = _bilinear(lab, apply_h(H, (fields[:, None] + inner[None]).reshape(-1, 2)))
    po = _bilinear(lab, apply_h(H, (fields[:, None] + outer[None]).reshape(-1, 2)))
    li = np.median(pi[:, 0].reshape(len(fields), -1), axis=1)
    lo = np.median(po[:, 0].reshape(len(fields), -1), axis=1)
    return float(np.mean(li - lo > 4.0))


def _find_board_once(image_bgr: np.ndarray, board: Board, s: MauerSettings, maps: BlobMap,
                     lab: np.ndarray, f: float, ahead=None, glares=()) -> BoardView | None:
    """One pass of the board search on `maps`' blobs; `lab`: the photo at `f` x its size,
    Lab as `_reduced` makes it (the colour checks). The view's camera P is left None
    (`find_board` makes it for the view it keeps). `ahead(H)`: called with the best
    start's fit (its H as the view would hold it) before its turned and shifted
    alternatives are tried (most often it stays the best): work for that view may start
    meanwhile. A fit as sure as `sure_fit` is the view without its alternatives."""
    blobs = field_blobs(image_bgr, s, maps)[:s.max_search_blobs]  # (largest first)
    det, small = blobs[:, :2], _min_size(blobs, board, s)
    fields, pitch = _field_array(board)
    if len(det) < s.min_matched:
        return None
    S = np.diag([f, f, 1.0])
    starts = _run_hypotheses(blobs, board, s,
                             lambda Hs: _colour_evidence_many(lab, S[None] @ Hs, board, glares))
    best = None
    seen: list[np.ndarray] = []
    for H0 in starts:
        H, n, rms = _icp(det, fields, H0, pitch, s, s.icp_iters, affine=0)
        if H is None or n < s.min_matched:
            continue
        c = apply_h(H, board_corners_mm(board))
        if any(np.abs(c - o).max() < 2.0 for o in seen) or not _plausible(H, board):
            continue
        seen.append(c)
        fs = _fit_score(det, fields, H, pitch, small,
                        _glared(S @ H, fields, glares, s.glare_grow))
        if best is not None and _cannot_win(fs, rms, best[0], s):
            continue
        ce = _colour_evidence(lab, S @ H, board, glares)
        total = fs + s.colour_weight * ce - rms
        if best is None or total > best[0]:
            best = (total, H, fs, ce)
    if best is None:
        return None
    if best[2] >= s.sure_fit[0] and best[3] >= s.sure_fit[1]:
        return _pass_view(best, board)
    if ahead is not None:
        ahead(best[1] / best[1][2, 2])
    # The lattice of fields repeats: also try the best fit turned by 180 degrees and moved by
    # a row or a field, keep what fits the fields and the start colours best.
    w_mm, h_mm = board.size_mm
    rot = np.array([[-1, 0, w_mm], [0, -1, h_mm], [0, 0, 1.0]])
    row = float(np.median(np.diff(np.unique(np.round(fields[:, 1])))))
    for G in (np.eye(3), rot):
        for dx in (-pitch, 0.0, pitch):
            for dy in (-row, 0.0, row):
                if G is not rot and dx == 0 and dy == 0:
                    continue
                T = np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1.0]])
                H, n, rms = _icp(det, fields, best[1] @ G @ T, pitch, s, s.alt_iters, affine=0)
                if H is None or n < s.min_matched or not _plausible(H, board):
                    continue
                fs = _fit_score(det, fields, H, pitch, small,
                                _glared(S @ H, fields, glares, s.glare_grow))
                if _cannot_win(fs, rms, best[0], s):
                    continue
                ce = _colour_evidence(lab, S @ H, board, glares)
                total = fs + s.colour_weight * ce - rms
                if total > best[0]:
                    best = (total, H, fs, ce)
    return _pass_view(best, board)


def _cannot_win(fs: float, rms: float, best_total: float, s: MauerSettings) -> bool:
    """Whether a fit with field fit `fs` and ICP residual `rms` cannot beat `best_total`
    (`_find_board_once`'s fs + colour_weight x start colours - rms, strictly) whatever
    its start colours (`_colour_evidence`, at most 1): their sampling is then skipped.
    Rounding is monotone, so the bound holds to the bit (the same choices; session 27)."""
    return s.colour_weight >= 0 and fs + s.colour_weight * 1.0 - rms <= best_total


def _pass_view(best: tuple, board: Board) -> BoardView:
    """A pass's view from its best (total, H, field fit, start colours)."""
    H = best[1] / best[1][2, 2]
    corners = apply_h(H, board_corners_mm(board))
    return BoardView(corners=corners, H=H, P=None,  # the camera: for the chosen view only
                     score=round(float(best[2] + best[3]) / 2, 3))


# --------------------------------------------------------------------------- pawns


@dataclass(frozen=True)
class Spot:
    """One place a pawn can stand: `place` is the position id it gives (field id, "B",
    "a"-"d"), `kind` field / start / goal, `colour` the area's colour (None on the track:
    any colour), (x, y) mm."""

    place: str
    kind: str
    colour: str | None
    x: float
    y: float


KINDS = ("field", "start-field", "goal-field", "start", "goal")


@lru_cache(maxsize=4)
def spots(board: Board) -> tuple[Spot, ...]:
    """Every track field, start-area slot and goal slot of the board."""
    starts = {a.start_field: a.colour for a in board.colours}
    out = []
    for f in board.fields:
        kind = ("goal-field" if f.id in board.goal_fields
                else "start-field" if f.id in starts else "field")
        out.append(Spot(f.id, kind, starts.get(f.id), f.x, f.y))
    for a in board.colours:
        for x, y in a.start_slots:
            out.append(Spot(START, "start", a.colour, x, y))
        for slot, (x, y) in a.goal_slots:
            out.append(Spot(slot, "goal", a.colour, x, y))
    return tuple(out)


def _disc(n_rings: int = 3, per: int = 10) -> np.ndarray:
    """Unit-disc sample offsets (M, 2): the centre and rings."""
    pts = [np.zeros((1, 2))]
    for i in range(1, n_rings + 1):
        r = i / n_rings
        a = np.linspace(0, 2 * np.pi, per * i, endpoint=False) + 0.3 * i
        pts.append(np.column_stack([r * np.cos(a), r * np.sin(a)]))
    return np.concatenate(pts)


_DISC = _disc()
# the board's surface just outside a field, x its radius: the local light of a spot
# (`spot_features`) and the glare's light around the track fields (`white_reference`)
_FIELD_RING = _ring((0.0, 0.0), 1.3, 1.5, 12)
N_FEATURES = 3 * 9 + 3 + len(KINDS) + len(PAWN_COLOURS)


def white_reference(image_bgr: np.ndarray, view: BoardView, board: Board,
                    s: MauerSettings, around: np.ndarray
                    ) -> tuple[np.ndarray, GlareLight | None]:
    """(BGR of the empty track fields (median over fields of each field's bright half): the
    board's own white, used to balance colours; the view's glare spots' light
    (`GlareLight.from_board`) or None). Under a glare spot the white is that of the
    fields with its light taken off; the brightest of them only where they are few
    (`glare_white_bright`, `glare_white_few`: a spot over most of the board leaves few,
    often pawns or printed colours). `around`:
    (F, len(_FIELD_RING), 3) the photo's BGR on each track field's ring (`spot_features`
    samples it)."""
    fields, _ = _field_array(board)
    pts = _spot_mm(board)[1]  # (0.6 x the field's radius round each track field)
    px = _bilinear(image_bgr, apply_h(view.H, pts)).reshape(
        len(fields), len(_DISC), 3)
    per_field = np.percentile(px, 70, axis=1)
    light = None
    if s.glare_min_seen > 0:
        xy = apply_h(view.H, fields)
        low = median(around.min(axis=2), axis=1)
        glares = (view.glares or board_glare_spots(image_bgr, view, low, xy, s)
                  or edge_glare_spots(image_bgr, view, s))
        if glares:
            light = GlareLight.from_board(glares, low, xy, s)
    if light is not None:  # (a saturated field under the light: its white is unknown)
        known = (per_field.max(axis=1) < 250) | (light.at(xy) <= s.glare_white_light)
        per_field = light.off(per_field, xy)[known] if known.any() else per_field
        if s.glare_white_bright > 0 and known.sum() < s.glare_white_few * len(known):
            # (few fields left: a pawn or a printed colour, with its dark channel, may be most)
            lowest = per_field.min(axis=1)
            per_field = per_field[lowest >= s.glare_white_bright * np.percentile(lowest, 90)]
    return np.maximum(np.median(per_field, axis=0), 1.0), light


def board_glare_spots(image_bgr: np.ndarray, view: BoardView, low: np.ndarray, xy: np.ndarray,
                      s: MauerSettings) -> tuple:
    """A lamp's glare spot on the board itself (`glare_spots`' tuple form, photo px), for a
    photo where `glare_spots` found none: on a light board the surface around the spot's
    core is as light as `glare_spots` takes for a white table. `low` (F,): the median lowest
    channel of the ring around each track field at `xy` (F, 2) px. With at least
    `board_glare_rings` saturated rings (>= 250), the spot is the component of the photo's
    saturated core (every channel >= `glare_area.glare_core`) within the board's outline
    that holds most of them, as an ellipse; () when there is none, or when it covers
    `board_glare_max_share` of the board or more. The light's profile is then fitted and
    checked by `GlareLight.from_board` as for any spot."""
    hot = low >= 250
    if s.board_glare_rings <= 0 or hot.sum() < s.board_glare_rings:
        return ()
    h, w = image_bgr.shape[:2]
    quad = np.asarray(view.corners, np.float64)
    x0, y0 = np.clip(np.floor(quad.min(axis=0)).astype(int), 0, [w - 1, h - 1])
    x1, y1 = np.clip(np.ceil(quad.max(axis=0)).astype(int) + 1, 1, [w, h])
    part = image_bgr[y0:y1, x0:x1]
    inside = np.zeros(part.shape[:2], np.uint8)
    cv2.fillConvexPoly(inside, np.round(quad - [x0, y0]).astype(np.int32), 1)
    core = cv2.min(cv2.min(part[..., 0], part[..., 1]), part[..., 2]) >= s.glare_area.glare_core
    core = (core & inside.astype(bool)).astype(np.uint8)
    n, labels, stats, _ = cc_stats(core)  # (16-bit labels where they fit; session 29)
    pts = np.round(xy[hot] - [x0, y0]).astype(int)
    ok = ((pts >= 0) & (pts < [core.shape[1], core.shape[0]])).all(axis=1)
    hits = labels[pts[ok, 1], pts[ok, 0]]
    hits = hits[hits > 0]
    if n < 2 or not len(hits):
        return ()
    i = int(np.bincount(hits).argmax())
    if stats[i, cv2.CC_STAT_AREA] >= s.board_glare_max_share * max(int(inside.sum()), 1):
        return ()
    cs, _ = cv2.findContours((labels == i).astype(np.uint8), cv2.RETR_EXTERNAL,
                             cv2.CHAIN_APPROX_NONE)
    outline = max(cs, key=cv2.contourArea)
    if len(outline) < 5:
        return ()
    (cx, cy), axes, angle = cv2.fitEllipse(outline)
    return (((cx + x0, cy + y0), axes, angle),)


def edge_glare_spots(image_bgr: np.ndarray, view: BoardView, s: MauerSettings) -> tuple:
    """A lamp's glare spot at the board's edge (`glare_spots`' tuple form, photo px), for a
    photo where neither `glare_spots` nor `board_glare_spots` found one: part of its core
    lies on the table (no track ring saturated) and the table's own light fails
    `glare_spots`' ring test. `image_bgr`: uint8 BGR photo. The spot is the largest blob of
    the saturated core (every channel >= `glare_area.glare_core`) of `glare_area`'s size
    (`glare_min_frac`-`glare_max_frac` of the photo) filling `edge_glare_fill` of its
    fitted ellipse, at least
    `edge_glare_min_in` of it inside the board's outline and within `edge_glare_reach` x
    the board's diagonal of that outline; () when there is none."""
    if not s.edge_glare:
        return ()
    a_s = s.glare_area
    f = 2  # (every 2nd pixel: a quarter of the work, about 1-4 ms on a light table without
    # a spot; every 4th lost committed glare 0027's spot)
    half = cv2.resize(image_bgr, (image_bgr.shape[1] // f, image_bgr.shape[0] // f),
                      interpolation=cv2.INTER_NEAREST)
    h, w = half.shape[:2]
    quad = np.asarray(view.corners, np.float64) / f
    # every channel >= glare_core (255 there: the same set, the same components as the
    # lowest channel's 0/1 test, in one pass instead of three channel copies; session 26)
    c = float(a_s.glare_core)
    core = cv2.inRange(half, (c, c, c), (255.0, 255.0, 255.0))
    total = h * w
    if cv2.countNonZero(core) < a_s.glare_min_frac * total:
        return ()
    diag = float(np.hypot(*(quad.max(axis=0) - quad.min(axis=0))))
    poly = quad.astype(np.float32).reshape(-1, 1, 2)
    qx0, qy0 = quad.min(axis=0) - s.edge_glare_reach * diag
    qx1, qy1 = quad.max(axis=0) + s.edge_glare_reach * diag
    n, labels, stats, _ = cc_stats(core)  # (16-bit labels where they fit; session 29)
    best, best_a = None, 0
    for i in range(1, n):
        a = int(stats[i, cv2.CC_STAT_AREA])
        if not a_s.glare_min_frac * total <= a <= a_s.glare_max_frac * total or a <= best_a:
            continue
        x, y, bw, bh = stats[i, :4]
        if x > qx1 or y > qy1 or x + bw < qx0 or y + bh < qy0:
            continue  # (out of reach of the board's box)
        blob = (labels[y:y + bh, x:x + bw] == i).astype(np.uint8)
        cs, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        outline = max(cs, key=cv2.contourArea)
        if len(outline) < 5:
            continue
        # (within reach of the board's outline: its own outline's nearest point)
        gap = [abs(cv2.pointPolygonTest(poly, (float(px + x), float(py + y)), True))
               for px, py in outline[::4, 0]]
        if min(gap) > s.edge_glare_reach * diag:
            continue
        inside = np.zeros_like(blob)
        cv2.fillConvexPoly(inside, np.round(quad - [x, y]).astype(np.int32), 1)
        if int((blob & inside).sum()) < s.edge_glare_min_in * a:
            continue
        (cx, cy), axes, angle = cv2.fitEllipse(outline)
        if a < s.edge_glare_fill * np.pi * axes[0] * axes[1] / 4:
            continue  # ragged: a light patch of the board or table, not a lamp's reflection
        best, best_a = ((f * (cx + x), f * (cy + y)), (f * axes[0], f * axes[1]), angle), a
    return () if best is None else (best,)


@dataclass(frozen=True)
class GlareLight:
    """A lamp's glare spots' light over the board: `at(xy)` (linear light, 0-1 of white)
    at the elliptical distance d from the nearest spot (`glare_distance`: 1 on its core),
    interpolated over `d` (ring centres) -> `g`, 0 beyond."""

    spots: tuple
    d: np.ndarray
    g: np.ndarray

    @staticmethod
    def distance(spots, xy: np.ndarray) -> np.ndarray:
        return np.min([glare_distance(xy[:, 0], xy[:, 1], sp) for sp in spots], axis=0)

    @classmethod
    def from_board(cls, spots, low: np.ndarray, xy: np.ndarray, s: MauerSettings
                   ) -> GlareLight | None:
        """From the board's surface around the track fields (`low` (F,): the median lowest
        channel, levels, of a ring just outside each field at `xy` (F, 2) px; the fields'
        own white is often saturated without any glare). A spot adds about the same light
        to every channel, falling off smoothly from its centre (a specular lobe): the
        rings' lowest channel (linear) is fitted as the surface's own level plus
        A exp(-d^2 / 2 t^2) of the distance d (least squares over a ladder of t, the rings
        farther than `glare_trim` robust deviations from the first fit left out once); the
        saturated rings are left out (their light is unknown). The spot often covers most
        of the board, so no ring can be taken as unlit. None with too few rings seen or no
        light found."""
        from vision.preprocess import srgb_to_linear

        d = cls.distance(spots, xy)
        seen = low < 250
        if seen.sum() < s.glare_min_seen:
            return None
        # (and the core's own edge: there the lowest channel is `glare_core` by definition,
        # weighed as `glare_edge_weight` x the seen rings; the rings near the core are often
        # saturated and the lobe's tail alone leaves its height and the surface's level unsure)
        edge = float(srgb_to_linear(np.float64(s.glare_area.glare_core) / 255.0))
        n_edge = round(s.glare_edge_weight * seen.sum())  # (weight 0: off)
        rings = srgb_to_linear(np.clip(low[seen], 0, 255) / 255.0)
        y = np.append(rings, np.full(n_edge, edge))
        dd = np.append(d[seen] ** 2, np.ones(n_edge))
        widths = np.asarray(s.glare_widths, np.float64)
        E = np.exp(-dd[None] / (2 * widths[:, None] ** 2))  # (T, N): the lobe of each width
        keep = np.ones(len(y), bool)
        for _ in range(2):  # y = a + b E per width, least squares over the kept rings
            k = keep.astype(np.float64)
            n, sy = k.sum(), k @ y
            se, see, sey = E @ k, (E * E) @ k, E @ (k * y)
            det = n * see - se * se
            b = np.where(det > 1e-12, (n * sey - se * sy) / np.where(det > 1e-12, det, 1.0),
                         0.0)
            a = (sy - b * se) / n
            res = y[None] - a[:, None] - b[:, None] * E
            err = np.where(b > 0, (res * res) @ k, np.inf)
            i = int(np.argmin(err))
            if not np.isfinite(err[i]):
                return None
            r = res[i]
            mad = float(np.median(np.abs(r[keep] - np.median(r[keep])))) + 1e-6
            keep = np.abs(r) <= s.glare_trim * 1.4826 * mad
            keep[len(rings):] = True  # (the core's edge stays: trimmed with the rings, a
            # lobe pinned by nothing could rise far above white near the spot)
        lobes = b[:, None] * np.exp(-d[seen][None] ** 2 / (2 * widths[:, None] ** 2))
        fits = np.isfinite(err) & ~(lobes > rings[None] + 0.1).any(axis=1)
        if not fits[i]:  # brighter on some ring than that ring is: no such light, but a
            # narrower or wider lobe of the same least squares may be (the best of them, and
            # none brighter at the core's edge than the core's level there either)
            fits &= b * np.exp(-1.0 / (2 * widths ** 2)) <= edge + 0.1
            fits &= err <= s.glare_fit_bounded * err[i]  # (and nearly as good a fit)
            if not fits.any():
                return None
            i = int(np.argmin(np.where(fits, err, np.inf)))
        t, amp = float(widths[i]), float(b[i])
        grid = np.linspace(0.0, 4.0 * t, 41)
        return cls(tuple(spots), grid, amp * np.exp(-grid ** 2 / (2 * t * t)))

    def at(self, xy: np.ndarray) -> np.ndarray:
        """(N,) the spots' light (linear, 0-1) at `xy` (N, 2) px."""
        return np.interp(self.distance(self.spots, xy), self.d, self.g, right=0.0)

    def off(self, bgr: np.ndarray, xy: np.ndarray) -> np.ndarray:
        """BGR levels (N, 3) sampled at `xy` (N, 2) px with the spots' light taken off
        (saturated samples as they are)."""
        from vision.preprocess import linear_to_srgb, srgb_to_linear

        lin = srgb_to_linear(np.clip(bgr, 0, 255) / 255.0) - self.at(xy)[:, None]
        # (a saturated sample's light is unknown: left white, as an empty field reads,
        # rather than made a grey that reads as a pawn)
        return np.where(bgr.min(axis=1, keepdims=True) >= 250, bgr, 255.0 * linear_to_srgb(lin))

    def off_dark(self, bgr: np.ndarray, xy: np.ndarray, q: float) -> np.ndarray:
        """`off` for (S, M, 3) BGR levels sampled at `xy` (S * M, 2) px, S discs of M
        samples, the light taken off each disc at most as far as its darkest channel's
        `q`th percentile over the disc (linear) goes: light added over a pawn leaves none of
        its channels dark, a matte pawn that the lamp's reflection misses keeps a dark
        channel and so loses no light (saturated samples as they are)."""
        from vision.preprocess import linear_to_srgb, srgb_to_linear

        lin = srgb_to_linear(np.clip(bgr, 0, 255) / 255.0)
        bound = np.percentile(lin.min(axis=2), q, axis=1)  # (S,)
        g = np.minimum(self.at(xy).reshape(bgr.shape[:2]), bound[:, None])
        out = 255.0 * linear_to_srgb(np.maximum(lin - g[..., None], 0.0))
        return np.where(bgr.min(axis=2, keepdims=True) >= 250, bgr, out)


def _plane_discs(view: BoardView, board: Board, s: MauerSettings = SETTINGS,
                 planes: int = 3):
    """(z mm, image xy (n_spots x len(_DISC), 2) float64) of the disc samples round each
    spot's pawn axis (`spots(board)`) on the footprint (z = 0), body and head planes (the
    first `planes` of them), through the camera `view.P`."""
    radii = (s.foot_r_mm, 0.85 * s.pawn_radius_mm * 0.7, s.head_r_mm)
    for z, r in list(zip(s.heights_mm, radii, strict=True))[:planes]:
        yield z, project(view.P, _disc_mm(board, r, z))


@lru_cache(maxsize=4)
def _spot_centres(board: Board) -> np.ndarray:
    """(n_spots, 2) mm: each spot's pawn axis (`spots(board)` order; read only)."""
    out = np.array([[q.x, q.y] for q in spots(board)])
    out.flags.writeable = False
    return out


@lru_cache(maxsize=16)
def _disc_mm(board: Board, r: float, z: float) -> np.ndarray:
    """(n_spots x len(_DISC), 3) board points (x, y, -z mm): the disc of radius `r` mm round
    each spot's pawn axis at height `z` mm, `_plane_discs`' points (the same numbers, made
    once per board and plane instead of per photo: 0.4 ms a photo; read only)."""
    pts = (_spot_centres(board)[:, None, :] + r * _DISC[None]).reshape(-1, 2)
    out = np.column_stack([pts, np.full(len(pts), -z)])
    out.flags.writeable = False
    return out


@lru_cache(maxsize=4)
def _spot_mm(board: Board) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What `spot_features` and `white_reference` read of a board, made once per board
    (read only; the same numbers as made per photo): the points (mm) of the ring just
    outside each spot's field (`_FIELD_RING`, (n_spots x len ring, 2)), the disc inside
    each track field (0.6 x its radius, (F x len(_DISC), 2)), and the spots' one-hot
    kinds and area colours ((n_spots, len(KINDS) + len(PAWN_COLOURS)) float32)."""
    sp = spots(board)
    centres = _spot_centres(board)
    ring = board.field_radius_mm * _FIELD_RING
    rings = (centres[:, None, :] + ring[None]).reshape(-1, 2)
    fields, _ = _field_array(board)
    discs = (fields[:, None, :] + 0.6 * board.field_radius_mm * _DISC[None]).reshape(-1, 2)
    onehot = np.zeros((len(sp), len(KINDS) + len(PAWN_COLOURS)), np.float32)
    for i, q in enumerate(sp):
        onehot[i, KINDS.index(q.kind)] = 1.0
        if q.colour is not None:
            onehot[i, len(KINDS) + PAWN_COLOURS.index(q.colour)] = 1.0
    for a in (rings, discs, onehot):
        a.flags.writeable = False
    return rings, discs, onehot


def spot_features(image_bgr: np.ndarray, view: BoardView, board: Board,
                  s: MauerSettings = SETTINGS) -> np.ndarray:
    """(n_spots, N_FEATURES) float32: for the footprint (z = 0), body and head planes, colour
    statistics of a disc around the pawn's axis, white-balanced by the board's fields; the
    median L*, a*, b* of a ring on the board just outside the field (the local light); then
    the spot kind and the area colour one-hot."""
    sp = spots(board)
    img = image_bgr  # uint8: `_bilinear` gives the same float64 as from a float32 copy
    # the light around the spot (a shadow band darkens a field, not only a black pawn); the
    # track fields' rings (the first spots) read by `white_reference` too
    rings_mm, _, onehot = _spot_mm(board)
    ring = _FIELD_RING
    ring_xy = apply_h(view.H, rings_mm)
    ring_px = _bilinear(img, ring_xy)
    white, light = white_reference(image_bgr, view, board, s,
                                   ring_px.reshape(len(sp), len(ring), 3)[:len(board.fields)])
    feats = np.zeros((len(sp), N_FEATURES), np.float32)
    planes = list(_plane_discs(view, board, s))
    pxs = []
    for z, xy in planes:
        px = _bilinear(img, xy)
        if light is not None and z in s.glare_off_heights:
            px = light.off(px, xy)
        elif light is not None and s.glare_dark_quantile is not None:
            px = light.off_dark(px.reshape(len(sp), len(_DISC), 3), xy,
                                s.glare_dark_quantile).reshape(-1, 3)
        pxs.append(px)
    # the planes' discs balanced and converted at once: per sample the same operations, so
    # the same numbers (three passes before; session 26)
    px = np.clip(np.concatenate(pxs) / white * 200.0, 0, 255).astype(np.uint8)
    labs = np.split(cv2.cvtColor(px.reshape(-1, len(_DISC), 3), cv2.COLOR_BGR2LAB)
                    .astype(np.float32), len(planes))
    for k, lab in enumerate(labs):
        L, a, b = lab[..., 0] / 255.0, (lab[..., 1] - 128) / 64.0, (lab[..., 2] - 128) / 64.0
        chroma = np.hypot(a, b)
        hue = np.arctan2(b, a)
        o = 9 * k
        feats[:, o + 0] = median(L, axis=1)
        feats[:, o + 1] = median(a, axis=1)
        feats[:, o + 2] = median(b, axis=1)
        feats[:, o + 3] = L.std(axis=1)
        feats[:, o + 4] = (L < 0.35).mean(axis=1)  # black pawn
        sat = chroma > 0.35
        feats[:, o + 5] = (sat & (np.abs(hue - 0.5) < 0.45)).mean(axis=1)  # red
        feats[:, o + 6] = (sat & (np.abs(hue - 1.45) < 0.4)).mean(axis=1)  # yellow
        feats[:, o + 7] = (sat & (np.abs(hue - 2.5) < 0.6)).mean(axis=1)  # green
        feats[:, o + 8] = chroma.mean(axis=1)
    px = ring_px
    if light is not None:
        px = light.off(px, ring_xy)
    px = np.clip(px / white * 200.0, 0, 255).astype(np.uint8).reshape(len(sp), len(ring), 3)
    lab = cv2.cvtColor(px, cv2.COLOR_BGR2LAB).astype(np.float32)
    feats[:, 27] = median(lab[..., 0], axis=1) / 255.0
    feats[:, 28] = median(lab[..., 1] - 128, axis=1) / 64.0
    feats[:, 29] = median(lab[..., 2] - 128, axis=1) / 64.0
    feats[:, 30:] = onehot  # (the spot kind and area colour)
    return feats


def allowed_mask(board: Board) -> np.ndarray:
    """(n_spots, len(CLASSES)) bool: a start-area or goal slot holds only its own colour."""
    sp = spots(board)
    m = np.ones((len(sp), len(CLASSES)), bool)
    for i, q in enumerate(sp):
        if q.kind in ("start", "goal"):
            m[i, 1:] = False
            m[i, 1 + PAWN_COLOURS.index(q.colour)] = True
    return m


@dataclass(frozen=True)
class PawnModel:
    """Softmax regression with one hidden layer (numpy): standardise, W1, relu, W2."""

    mean: np.ndarray
    std: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    def proba(self, x: np.ndarray) -> np.ndarray:
        z = (x - self.mean) / self.std
        hdn = np.maximum(z @ self.w1 + self.b1, 0)
        lg = hdn @ self.w2 + self.b2
        lg -= lg.max(axis=1, keepdims=True)
        e = np.exp(lg)
        return e / e.sum(axis=1, keepdims=True)

    def save(self, path: str | Path) -> None:
        np.savez_compressed(path, **{k: getattr(self, k) for k in
                                     ("mean", "std", "w1", "b1", "w2", "b2")})


@lru_cache(maxsize=2)
def load_pawn_model(path: str | Path = MODEL_PATH) -> PawnModel | None:
    p = Path(path)
    if not p.exists():
        return None
    d = np.load(p)
    return PawnModel(*(d[k] for k in ("mean", "std", "w1", "b1", "w2", "b2")))


def train_pawn_model(x: np.ndarray, y: np.ndarray, hidden: int = 32, epochs: int = 400,
                     lr: float = 0.05, seed: int = 0) -> PawnModel:
    """Full-batch Adam on cross-entropy; x (N, F) float32, y (N,) int class indices."""
    rng = np.random.default_rng(seed)
    mean, std = x.mean(axis=0), x.std(axis=0) + 1e-3
    z = (x - mean) / std
    n, f = z.shape
    k = len(CLASSES)
    params = [rng.normal(0, 1 / math.sqrt(f), (f, hidden)), np.zeros(hidden),
              rng.normal(0, 1 / math.sqrt(hidden), (hidden, k)), np.zeros(k)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    onehot = np.eye(k)[y]
    counts = np.bincount(y, minlength=k).astype(np.float64)
    wts = (1.0 / np.maximum(counts, 1))[y]
    wts *= n / wts.sum()
    for t in range(1, epochs + 1):
        w1, b1, w2, b2 = params
        h = z @ w1 + b1
        a = np.maximum(h, 0)
        lg = a @ w2 + b2
        lg -= lg.max(axis=1, keepdims=True)
        e = np.exp(lg)
        pr = e / e.sum(axis=1, keepdims=True)
        g = (pr - onehot) * wts[:, None] / n
        gw2, gb2 = a.T @ g, g.sum(axis=0)
        ga = g @ w2.T * (h > 0)
        gw1, gb1 = z.T @ ga, ga.sum(axis=0)
        grads = [gw1 + 1e-4 * w1, gb1, gw2 + 1e-4 * w2, gb2]
        for i, gr in enumerate(grads):
            m[i] = 0.9 * m[i] + 0.1 * gr
            v[i] = 0.999 * v[i] + 0.001 * gr * gr
            params[i] = params[i] - lr * (m[i] / (1 - 0.9**t)) / (
                np.sqrt(v[i] / (1 - 0.999**t)) + 1e-8)
    return PawnModel(mean.astype(np.float32), std.astype(np.float32),
                     *(p.astype(np.float32) for p in params))


def truth_labels(board: Board, truth: dict) -> np.ndarray:
    """Class index per spot from a synthetic scene's truth (pawn base centre nearest spot)."""
    sp = spots(board)
    H = cv2.getPerspectiveTransform(np.float32(truth["area"]),
                                    board_corners_mm(board).astype(np.float32))
    y = np.zeros(len(sp), int)
    centres = np.array([[q.x, q.y] for q in sp])
    for p in truth["pieces"]:
        if not p["label"].startswith("pawn-"):
            continue
        colour = p["label"][5:]
        mm = apply_h(H, [p["center"]])[0]
        d = np.linalg.norm(centres - mm, axis=1)
        for i, q in enumerate(sp):
            if q.kind in ("start", "goal") and q.colour != colour:
                d[i] = np.inf
        y[int(np.argmin(d))] = 1 + PAWN_COLOURS.index(colour)
    return y


# --------------------------------------------------------------------------- whole photo


@dataclass(frozen=True)
class MauerReading:
    """What one photo shows. corners: (4, 2) image px (board file order) or None; pieces:
    contract piece dicts (pawns with "position", dice); facts: the contract's
    {"dice", "pawns", "positions"}; warnings; timings_ms per stage."""

    corners: np.ndarray | None
    pieces: list[dict]
    facts: dict
    warnings: list[str]
    timings_ms: dict[str, float]


def _place_key(board: Board, place: str) -> tuple[int, int]:
    if place == START:
        return (0, 0)
    if place in GOAL_SLOTS:
        return (2, GOAL_SLOTS.index(place))
    return (1, board.index(place))


def classify_spots(image_bgr: np.ndarray, view: BoardView, board: Board,
                   model: PawnModel, s: MauerSettings = SETTINGS) -> np.ndarray:
    """(n_spots, len(CLASSES)) class probabilities, slots limited to their own colour; with
    a teach profile in use, its pawn colours re-decide them (`vision.teach_pawns.using`)."""
    from vision.teach_pawns import taught_model

    pr = taught_model(model).proba(spot_features(image_bgr, view, board, s)) \
        * allowed_mask(board)
    return pr / np.maximum(pr.sum(axis=1, keepdims=True), 1e-9)


def complete_colours(pr: np.ndarray, cls: np.ndarray, keep: np.ndarray,
                     s: MauerSettings = SETTINGS) -> list[int]:
    """A colour in play has all 4 pawns on the board (B, track or home). For a colour seen
    1-3 times, the empty spot most likely to hold its missing pawn is taken when it clearly
    stands out (probability at least `complete_min_prob` and `complete_margin` times the
    next spot's). Returns the spot indices added (the caller warns about each)."""
    added = []
    for k in range(1, len(CLASSES)):
        n = int((keep & (cls == k)).sum())
        if not 0 < n < PAWNS_PER_COLOUR:
            continue
        free = np.flatnonzero(~keep)
        order = free[np.argsort(-pr[free, k])]
        for j in range(PAWNS_PER_COLOUR - n):
            if j >= len(order):
                break
            p = pr[order[j], k]
            nxt = pr[order[j + 1], k] if j + 1 < len(order) else 0.0
            if p < s.complete_min_prob or p < s.complete_margin * nxt:
                break
            added.append(int(order[j]))
            cls[order[j]] = k
            keep[order[j]] = True
    return added


def missing_pawns(cls: np.ndarray, keep: np.ndarray) -> list[str]:
    """Warnings for the colours in play with fewer than 4 pawns read: every pawn of a colour
    in play is always on the board (start area B, track or home), so the others stand where
    no field is read (between two fields) or are hidden."""
    out = []
    for k in range(1, len(CLASSES)):
        n = int((keep & (cls == k)).sum())
        if 0 < n < PAWNS_PER_COLOUR:
            several = PAWNS_PER_COLOUR - n > 1
            out.append(f"only {n} {CLASSES[k]} pawn{'s' if n > 1 else ''} seen, but all "
                       f"{PAWNS_PER_COLOUR} are always on the board: the "
                       f"{'others stand' if several else 'other stands'} between two fields "
                       f"or hidden; put {'them' if several else 'it'} on a field and take "
                       f"the photo again")
    return out


def clipped_spots(image_bgr: np.ndarray, view: BoardView, board: Board,
                  s: MauerSettings = SETTINGS) -> np.ndarray:
    """(n_spots,) bool: the spots (`spots(board)` order) a lamp's glare clips in the photo
    ((H, W, 3) uint8 BGR): at least `clipped_share` of the footprint and body discs' samples
    (the planes z = 0 and the body's, as `spot_features` samples them) have every channel at
    least `clipped_level`. A pawn standing there shows nothing of its colour."""
    sp = spots(board)
    shares = []
    for _, xy in _plane_discs(view, board, s, planes=2):  # (footprint, body)
        low = _bilinear(image_bgr, xy).min(axis=1).reshape(len(sp), len(_DISC))
        shares.append((low >= s.clipped_level).mean(axis=1))
    return np.minimum(*shares) >= s.clipped_share


def missing_in_glare(image_bgr: np.ndarray, view: BoardView, board: Board, cls: np.ndarray,
                     keep: np.ndarray, s: MauerSettings = SETTINGS) -> list[str]:
    """A warning naming the positions a lamp's glare clips (`clipped_spots`, not read as
    pawns) and where they lie in the photo, for the colours in play with fewer than 4
    pawns read (a missing pawn may stand there unseen); none otherwise."""
    short = [CLASSES[k] for k in range(1, len(CLASSES))
             if 0 < int((keep & (cls == k)).sum()) < PAWNS_PER_COLOUR]
    if not short:
        return []
    idx = np.flatnonzero(clipped_spots(image_bgr, view, board, s) & ~keep)
    if not len(idx):
        return []
    sp = spots(board)
    order = sorted({sp[i].place for i in idx}, key=lambda p: _place_key(board, p))
    xy = apply_h(view.H, np.array([[sp[i].x, sp[i].y] for i in idx], float)).mean(axis=0)
    return [f"a lamp's glare at about ({xy[0]:.0f}, {xy[1]:.0f}) in the photo washes out "
            f"position{'s' if len(order) > 1 else ''} {', '.join(order)}: a "
            f"{' or '.join(short)} pawn standing there cannot be seen; move the lamp or the "
            f"camera and take the photo again"]


def box_limits(cls: np.ndarray, conf: np.ndarray, s: MauerSettings = SETTINGS,
               ) -> tuple[np.ndarray, list[tuple[int, str]]]:
    """Which spot readings to keep as pawns, given what the box holds: at most 4 pawns of a
    colour (the least sure extra ones are dropped), and a colour seen only as a few unsure
    pawns (fewer than 4, none read surely) is dropped: a shadow or a coloured field, not a
    player. Returns (keep mask over spots, [(spot index, why dropped)])."""
    keep = cls > 0
    doubts = []
    for k in range(1, len(CLASSES)):
        idx = np.flatnonzero(cls == k)
        idx = idx[np.argsort(-conf[idx])]
        for i in idx[PAWNS_PER_COLOUR:]:
            keep[i] = False
            doubts.append((int(i), f"a {PAWNS_PER_COLOUR + 1}th pawn of this colour is not "
                                   f"possible; dropped (confidence {conf[i]:.2f})"))
        if 0 < len(idx) < PAWNS_PER_COLOUR and conf[idx].max() < s.lone_colour_min_conf:
            for i in idx:
                keep[i] = False
                doubts.append((int(i), f"maybe a pawn (confidence {conf[i]:.2f}), but no "
                                       f"pawn of this colour was seen surely; not counted"))
    return keep, doubts


def read_mauer(image_bgr: np.ndarray, board: Board | None = None,
               model: PawnModel | None = None, s: MauerSettings = SETTINGS,
               with_dice: bool = True) -> MauerReading:
    """Read a Mauerhuepfer photo ((H, W, 3) uint8 BGR). Raises `vision.errors.AreaNotFound`
    when no board is found and `vision.errors.ModelMissing` without a pawn model."""
    keep_heap(s.heap_keep_mb)
    with opencv_threads(s.opencv_threads):
        return _read_mauer(image_bgr, board, model, s, with_dice)


_OTHER_SEARCH_WARNINGS = {  # `BoardView.other_search`
    "replaced": "a board-like pattern reaching beyond the photo was set aside for a board "
                "found among blobs of another size: check the board's outline",
    "kept": "the board found is unsure and may be a pattern of the table: check its "
            "outline"}


def _read_mauer(image_bgr: np.ndarray, board: Board | None, model: PawnModel | None,
                s: MauerSettings, with_dice: bool) -> MauerReading:
    from vision.errors import AreaNotFound, ModelMissing

    board = board or board_for()
    model = model or load_pawn_model()
    if model is None:
        raise ModelMissing(f"pawn model {MODEL_PATH} is missing; build it with "
                           f"`python -m vision.mauer_train`")
    t0 = time.perf_counter()
    later = run_beside(s, blob_map, image_bgr, s)  # beside the reduced search
    view = find_board(image_bgr, board, s, later)
    t1 = time.perf_counter()
    if view is None:
        raise AreaNotFound("no Mauerhuepfer board found in the photo (its track fields and "
                           "coloured start areas were not seen)")
    if with_dice:  # beside the pawns
        maps = later.result()
        dice_job = run_beside(s, _timed, read_board_dice, image_bgr, view, board, s.dice,
                              maps.lightness if maps.f == 1.0 else None,
                              functools.partial(run_leaf, s))
    warnings: list[str] = []
    if view.score < s.min_board_confidence:
        warnings.append(f"the board was located with low confidence {view.score:.2f}")
    if view.other_search == "replaced" or (view.other_search == "kept"
                                           and view.score < s.good_board_score):
        warnings.append(_OTHER_SEARCH_WARNINGS[view.other_search])  # (not "cut off" again:
        # quality.py says so of a board beyond the photo)
    pr = classify_spots(image_bgr, view, board, model, s)
    cls, conf = pr.argmax(axis=1), pr.max(axis=1)
    t2 = time.perf_counter()
    sp = spots(board)
    keep, doubts = box_limits(cls, conf, s)
    warnings += [f"{CLASSES[cls[i]]} pawn at position {sp[i].place}: {why}" for i, why in doubts]
    for i in complete_colours(pr, cls, keep, s):
        conf[i] = pr[i, cls[i]]
        warnings.append(f"the {PAWNS_PER_COLOUR}th {CLASSES[cls[i]]} pawn was not seen clearly; "
                        f"it is most likely at position {sp[i].place} "
                        f"(probability {conf[i]:.3f})")
    warnings += missing_pawns(cls, keep)
    warnings += missing_in_glare(image_bgr, view, board, cls, keep, s)
    pieces = []
    positions: dict[str, list[str]] = {}
    for i in np.argsort(-conf):
        q = sp[i]
        if cls[i] == 0:
            if conf[i] < s.min_confidence:
                warnings.append(f"position {q.place} ({q.kind}) may hold a pawn "
                                f"(empty with confidence {conf[i]:.2f})")
            continue
        if not keep[i]:
            continue
        colour = CLASSES[cls[i]]
        label = f"pawn-{colour}"
        base = project(view.P, [[q.x, q.y, 0.0]])[0]
        top = project(view.P, [[q.x, q.y, -s.pawn_height_mm]])[0]
        pieces.append({"label": label, "zone": "board", "confidence": round(float(conf[i]), 3),
                       "center": [round(float(base[0]), 1), round(float(base[1]), 1)],
                       "polygon": None, "position": q.place,
                       "top_center": [round(float(top[0]), 1), round(float(top[1]), 1)]})
        positions.setdefault(label, []).append(q.place)
        if conf[i] < s.min_confidence:
            warnings.append(f"{colour} pawn at position {q.place} read with low confidence "
                            f"{conf[i]:.2f}")
    for label in positions:
        positions[label].sort(key=lambda p: _place_key(board, p))
    order = {f"pawn-{c}": k for k, c in enumerate(PAWN_COLOURS)}
    positions = dict(sorted(positions.items(), key=lambda kv: order[kv[0]]))
    facts: dict = {"dice": [], "pawns": {lab: len(v) for lab, v in positions.items()},
                   "positions": positions}
    timings = {"board": (t1 - t0) * 1000, "pawns": (t2 - t1) * 1000, "dice": 0.0}
    if with_dice:
        (dice, dwarn), timings["dice"] = dice_job.result()
        used, pwarn = pick_dice(dice, view.corners, s.dice.dice_wanted)
        warnings += dwarn + pwarn + unsure_dice(used, dwarn, s.dice.warn_confidence)
        facts["dice"] = sorted(d.value for d in used)
        for d in used:
            pieces.append({"label": f"die-{d.value}", "zone": "table",
                           "confidence": float(d.confidence),
                           "center": [float(d.center[0]), float(d.center[1])],
                           "polygon": None})
    timings["total"] = (time.perf_counter() - t0) * 1000
    return MauerReading(view.corners, pieces, facts, warnings,
                        {k: round(v, 2) for k, v in timings.items()})


def _timed(fn, *args) -> tuple[object, float]:
    """(fn(*args), its wall time in ms): a stage's time when it ran beside another."""
    t = time.perf_counter()
    out = fn(*args)
    return out, (time.perf_counter() - t) * 1000


# --------------------------------------------------------------------------- contract JSON


def annotate_image(image_bgr: np.ndarray, reading: MauerReading) -> np.ndarray:
    """A copy of the photo with the board outline, each pawn (label, position) and the dice
    drawn on it; (H, W, 3) uint8 BGR."""
    out = image_bgr.copy()
    if reading.corners is not None:
        cv2.polylines(out, [np.round(reading.corners).astype(np.int32)], True, (0, 255, 255), 2)
        c0 = tuple(int(v) for v in np.round(reading.corners[0]))
        cv2.circle(out, c0, 8, (0, 255, 255), 2)
    colours = {"red": (0, 0, 255), "yellow": (0, 220, 255), "green": (0, 200, 0),
               "black": (40, 40, 40)}
    for p in reading.pieces:
        x, y = (int(round(v)) for v in p["center"])
        if p["label"].startswith("pawn-"):
            col = colours.get(p["label"][5:], (255, 255, 255))
            cv2.circle(out, (x, y), 9, col, 2)
            cv2.putText(out, p["position"], (x + 10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.45,
                        (255, 255, 255), 2, cv2.LINE_AA)
            cv2.putText(out, p["position"], (x + 10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.45, col, 1,
                        cv2.LINE_AA)
        else:
            cv2.rectangle(out, (x - 12, y - 12), (x + 12, y + 12), (255, 0, 255), 2)
            cv2.putText(out, p["label"][4:], (x + 14, y), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                        (255, 0, 255), 2, cv2.LINE_AA)
    return out


def score_mauer_photo(source, options: dict[str, str | None], annotate: str | None = None,
                      colour: str | None = None) -> dict:
    """The contract's JSON object for one Mauerhuepfer photo (path, bytes): area (board
    corners, the board file's (0, 0) first), pieces (pawns with their `position`, dice),
    facts, score (`scoring.mauerhuepfer.score_facts`, with its `moves`: the legal moves for
    the roll per colour in play; for `colour` only where given), warnings, timings_ms."""
    from scoring import score_facts
    from vision.image_io import load_photo

    started = time.perf_counter()
    board = board_for(options.get("board"))
    photo = load_photo(source)
    decoded = time.perf_counter()
    reading = read_mauer(photo.image, board)
    t = time.perf_counter()
    score, warnings = score_facts("mauerhuepfer", reading.facts, options)
    if colour:  # (the scorer's `moves` are every colour's in play)
        from scoring.mauerhuepfer import moves_for

        score["moves"] = moves_for(board, reading.facts, colour)
    timings = {"decode": round((decoded - started) * 1000, 3), **reading.timings_ms}
    timings["scoring"] = round((time.perf_counter() - t) * 1000, 3)
    if annotate:
        from tablescore.errors import BadInput

        if not cv2.imwrite(str(annotate), annotate_image(photo.image, reading)):
            raise BadInput(f"cannot write the annotated photo to {annotate}")
    k = photo.scale

    def sc(pt):
        return [round(float(pt[0]) * k, 1), round(float(pt[1]) * k, 1)]

    pieces = []
    for p in reading.pieces:
        q = dict(p)
        q["center"] = sc(p["center"])
        if "top_center" in q:
            q["top_center"] = sc(q["top_center"])
        pieces.append(q)
    timings["total"] = round((time.perf_counter() - started) * 1000, 3)
    return {
        "game": "mauerhuepfer",
        "image": {"width": photo.width, "height": photo.height},
        "area": [sc(c) for c in reading.corners] if reading.corners is not None else None,
        "pieces": pieces,
        "facts": reading.facts,
        "score": score,
        "warnings": reading.warnings + warnings,
        "timings_ms": timings,
    }
