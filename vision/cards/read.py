"""Read the card and numbered-tile games from a photo: key points -> crops -> classes ->
pieces -> the contract's facts.

`CardReader` loads the two ONNX models once (`models/cardkeys.onnx`, `models/cards.onnx`).
`read_pieces(image, game)` finds and classifies the pieces; `magic_facts`, `troeto_facts`,
`hop_card_facts` turn them into facts (with warnings). Images are the working image (uint8
BGR, long side at most 1280), coordinates its pixels.
"""

from __future__ import annotations

import copy
import functools
import json
import math
import re
import threading
import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from scoring.labels import CARD_LABELS_HOP, MAGIC_RABBIT_LABELS, TROETO_COUNTS, TROETO_LABELS
from vision.cards.detect import (
    DETECTOR_PATH,
    KIND_DOVE,
    KIND_PIECE,
    KeyDetector,
    Keypoints,
    merge_keys,
)
from vision.cards.geometry import (
    SPECS,
    CardCropSettings,
    KeySpec,
    area_scaled,
    crop_cards,
    frame_from_pose,
    frames_at_widths,
    keeping_scaled,
    mask_min_area_rect,
    pose_from_frame,
    rectify,
)
from vision.cards.hopcards import median_u8
from vision.cards.magic import (
    BAND,
    DOVE_CHECK,
    band_keep,
    bare_hat_doves,
    magician_at_end,
    off_band_tiles,
    off_line_tiles,
    past_the_magician,
    warnings_kept,
)
from vision.cards.opposite import OPPOSITE as OPPOSITE_INDEX
from vision.cards.opposite import opposite_numbers
from vision.cards.pieces import CardPiece
from vision.classify.model import PieceClassifier, keeping_rows
from vision.errors import busy_warning
from vision.preprocess import apply_gains, light_gains

CLASSIFIER_PATH = Path(__file__).resolve().parents[2] / "models" / "cards.onnx"
INDEX_PATH = CLASSIFIER_PATH.with_name("cards-index.onnx")
BACKGROUND = "background"
# the backs' look: bins of hue x saturation (coloured pixels: `look_min_sat` and up)
LOOK_BINS = [30, 16]

TROETO_NUMBERED = ("elephant", "tootophant")  # the Troetofanten kinds that carry a number
GAME_LABELS: dict[str, tuple[str, ...]] = {
    "magic-rabbit": tuple(x for x in MAGIC_RABBIT_LABELS if x != "dove"),
    "troetofanten": TROETO_LABELS,
    "hop-la-bille": CARD_LABELS_HOP,
}



@dataclass(frozen=True)
class ReadSettings:
    key_threshold: float = 0.15  # detector heat a key point needs (the classifier then
    #                              rejects what is no piece)
    troeto_key_threshold: float = 0.3  # fanned cards: more look-alike spots, a higher bar
    hop_inside_cloth_mm: float = 20.0  # Hop la bille cards lie beyond the cloth: a key point
    #                                    deeper inside it than this is none (not even looked at)
    min_piece_prob: float = 0.5  # a key point is a piece when P(background) is below this
    min_confidence: float = 0.35  # and its confidence at least this
    low_confidence: float = 0.6  # pieces below this get a warning
    dove_reach: float = 0.75  # a dove within this many hat widths of a hat's centre
    dove_threshold: float = 0.3  # dove heat needed (between doves and bare hats)
    balanced_keys: float = 0.5  # Magic Rabbit: the detector runs once more on the photo
    #   white balanced by this power of its own light (`vision.preprocess.light_gains`; 0
    #   off), and the key points it finds that the photo's own lack are added
    #   (`detect.merge_keys`): under a warm lamp a white dove is orange and the detector
    #   missed it (light_eval's committed tungsten copies: 13 doves with no key point,
    #   1 on the balanced photo; harsh 9 -> 2 doves, 12 -> 8 tiles). No gate on the cast:
    #   ordinary photos' own light (gain 1.01-1.88) overlaps a warm lamp's (1.15-4.0).
    #   The photo's own key points are posed among themselves as before (`pose_key_points`'
    #   `own`), so the balanced view's weak false ones on the table (0.15-0.3 heat, which
    #   the classifier then drops) do not move their neighbours' widths
    balanced_dove: float = 0.4  # a dove the balanced view alone finds needs this heat (its
    #   false ones on a white edition-2 rabbit or the table, committed and edition-2 lit
    #   copies: 0.31-0.39; its true ones under a warm lamp mostly 0.4-0.9)
    glare_side: int = 640  # Magic Rabbit: a lamp's glare spot is looked for on the photo
    #   reduced to this long side (`vision.area.glare_spots`, Mauerhuepfer's thresholds:
    #   `vision.cards.stage.GLARE_AREA`) and the photo is read with its light taken off
    #   (`vision.area.remove_glare_scaled`; `stage.glare_off`); 0 off. light_eval's glare
    #   copies (with the balanced key points): committed 7.11 -> 4.46 %, edition 2 13.53 ->
    #   6.28 %; ~55 ms CPU on a photo with a spot. A bright patch of a white table whose
    #   ring a hard shadow darkens is not taken for one (`vision.area.spots_past_shadow`;
    #   held-out 1937 shadow 0019, docs)
    balanced_reach: float = 0.5  # x the width: a key point of the balanced photo this near
    #   one of the photo's own, of its kind, is that one
    duplicate: float = 0.25  # two key points closer than this x width: one piece (0.18
    #   before session 8, when the surer corner-number model lifted more of a card's second
    #   key points over `min_confidence`; 0.25 on 16 Troetofanten sets: 669 -> 640 pieces
    #   wrong, 120 -> 87 extra, none worse; harsh committed +1, harsh 873 -2; Magic Rabbit
    #   and Hop la bille unchanged)
    fan_step: float = 0.08  # Troetofanten: except a key point at least this x width from
    #   the kept one that reads as another label: the next card of a tight fan (the
    #   detector's peaks of two corner indices 0.1-0.3 widths apart run together; its
    #   output cells are 4 photo px apart, a card 40-100 px wide)
    fan_confidence: float = 0.6  # and reads so with at least this confidence
    fan_across: float | None = 0.12  # and lies within this x the width across the kept
    #   card's top edge (`row_across`'s value: a fan's next corner index lies along it).
    #   Session 15, the fan's next cards so kept on committed, edition 2 and fresh
    #   e1-1800..1807: right ones 0.00-0.07 across (36), extras 0.11 (committed 0023, on a
    #   tamer's drawing: left) and 0.18 (e1-1802 0007, gone: 1 extra fewer, nothing worse)
    fan_edge: bool = True  # `fan_across` measured across the kept card's own top edge (its
    #   posed angle turned by `edge_angles`, as the number's crop is), not across its posed
    #   angle (the table's direction or its row's median: some degrees off the card's own).
    #   Session 19 (H7), the fan's next cards so kept on committed, edition 2 and fresh
    #   e1-2550, 2551, e2-2552: right ones 0.00-0.09 across at the posed angle, 0.00-0.07 at
    #   the edges' (9); committed 0023's extra elephant-5 0.112 -> 0.142 (the tamer's
    #   drawing beside its elephant-2 read 9 degrees off the card's own)
    colour_weight: float = 1.0  # Magic Rabbit: the frame colour's log likelihood per number
    #   (`colour_logp`) added with this weight to the classifier's (`magic_colour_numbers`)
    colour_spread: tuple[float, float, float] = (40.0, 10.0, 10.0)  # its spread in L, a, b
    #   (OpenCV's 0-255 Lab): the same number's colour varies this much across photos
    colour_floor: float = -4.0  # a colour's log likelihood counts down to this at most (a
    #   number at most e^4 less likely by its colour: under a harsh warm light the colours
    #   shift, and a tile surely miscoloured pushed its neighbours along in
    #   `lineup.distinct_numbers`; -1e9: harsh edition-1 4.86 %, -4: 2.08 %)
    colour_sure: float = 0.8  # tiles read with this confidence show the light's colour:
    colour_sure_count: int = 3  # with this many, their median offset in a and b from their
    #   numbers' colours is taken off every tile's colour (`light_shift`)
    colour_unsure: float = 0.9  # only tiles read with less confidence are weighed by colour
    colour_contradicts: float = -8.0  # or whose colour's log likelihood for their number is
    #   under this (below the likeliest number's): 4 spreads off, another number's colour
    #   (1.0 on the committed edition-1 scenes: two surely read hats 2 and 3 under a warm
    #   light swapped, 0.33 % -> 0.66 %)
    colour_doubt: float = -5.0  # a settled hat's or rabbit's number whose colour's log
    #   likelihood is under this is warned about (`colour_doubts`; on the labels scored,
    #   after `lineup.settle_numbers`: 7 sets, wrong tiles named 0 -> 9 of 43, right tiles
    #   4 -> 4, none on normal light; -3: 11 of 43 but 18 right ones, docs/magic-rabbit.md)
    no_overlap: float = 1.0  # a piece centred inside this share of a kept one: a duplicate
    max_keys: int = 150  # key points posed and read per look at most, the strongest first
    #   (and as many weak Troetofanten ones, `pose_back_candidates`): a noisy or busy photo's
    #   (sensor noise, salt, a newspaper, a patterned cloth) run to 350-1500 over the
    #   threshold, each read at 7 widths (12 000 crops, 4-30 s); the 80 committed Magic
    #   Rabbit and Troetofanten photos have at most 47 strong and 34 weak ones (session 21,
    #   H2, docs/vision.md "Noisy and busy photos")
    busy_keys: int = 60  # a look posing more key points than this is of a busy table (a
    #   newspaper, a printed cloth: the text and motifs give weak key points by the hundred)
    #   and the pieces' shared size (`shared_widths`) and Magic Rabbit's line direction
    #   (`refine_poses`) come from its `sure_heat` ones alone: taken over all, the table's
    #   spots set every tile's width and direction (fresh 3013 Magic Rabbit on a newspaper
    #   mat, `synth --table mat`: 96.6 % piece error, size alone 60.1 %, size and direction
    #   14.0 %; reading only the key points near the truth's pieces, 176 of 178 right;
    #   print 3011 47.0 -> 29.3 %). A real layout holds 24-30
    #   pieces; the 80 committed photos pose at most 47. Magic Rabbit only: Troetofanten on
    #   the mat read worse with it (right 104 -> 98 of 150; its misses there are not the
    #   width: with only the true key points it read 33) (session 24, H3)
    busy_warning: bool = True  # a look over `busy_keys` key points (and up to `max_keys`)
    #   says the table looks busy (session 24, lead: the busy tables of H3, below)
    sure_heat: float = 0.5  # the detector's heat of a sure key point (busy looks above: the
    #   true tiles' median 0.6-0.9, the table's spots mostly 0.15-0.5)
    busy_band: bool = True  # Magic Rabbit: a busy look's size and direction from its sure
    #   key points in the line's band alone (`busy_line`, session 25): on the newspaper the
    #   sure spots outnumber the tiles (fresh mat 3120: 38.6 -> 8.5 % with the tiles' band)
    width_scales: tuple[float, ...] = (0.55, 0.68, 0.83, 1.0, 1.2, 1.45, 1.75)  # tried
    #                                   around the detector's width (`search_widths`)
    threads: bool = True  # on since the quiet-machine A/B (session 12, load 1.0: wall
    #   median Troetofanten 130.1 -> 101.1 ms, Magic Rabbit 77.6 -> 62.8; CPU about +10 ms
    #   in two of three runs, 131.4 -> 141.7 and 77.6 -> 88.3; at
    #   loads 2.45-7.6 the gate keeps them off, where they showed none or a loss): where a
    #   core is spare (Troetofanten and Magic Rabbit are read on
    #   one thread): the width search's crops, and the crops `read_crops` and the
    #   corner-index model read, in two halves side by side, one on a helper thread
    #   (`in_halves`, `vision.mauer.run_leaf`), and the photo's key points on at least two
    #   of the detector's threads (`_key_threads`); the same readings either way ...
    threads_below_load: float = 0.75  # ... while the 1-minute load average per core is under
    #   this: a core idle at least half the time (on loaded shared cores the halves wait for
    #   each other: in one process at load 4-6, forced on, wall +3.5 ms a photo against
    #   -17.3 ms without them; Mauerhuepfer's 1.25 let them on at load 2.45 with no gain)
    threads_least: int = 24  # crops: fewer are read in one go (about 5 ms of reading: little
    #   to gain; a hand-over to the helper costs ~0.02 ms, measured at load 7)
    threads_own_load: bool = True  # the gate leaves out of the load average the share this
    #   process's own helper threads add to it (`HELPERS`: their CPU over the last minute):
    #   one reading with its helpers keeps an idle 2-core machine's load at ~1.3, so any other
    #   0.2 of a core closed the gate (1.5) and the photo went back to one thread until the
    #   load decayed (session 21's note; session 27)
    close_ahead: bool = True  # with `threads`, where a core is spare: `second_look`'s
    #   close-up check (the detector on the photo at `second_scale` and its square, ~7 ms a
    #   Troetofanten photo, needed on nearly every one) run on a helper thread while the first
    #   look reads its key points (`close_keys_ahead`); the same key points either way (session
    #   27, troeto-speed)
    troeto_neighbours: float = 2.5  # card widths: the cards whose angles steady a card's angle
    back_key_threshold: float = 0.15  # Troetofanten: a weaker key point than
    #   `troeto_key_threshold` down to this is kept only when it reads as a face-down card
    #   (a back's two corners look alike, so the detector's heat splits between them); at
    #   most `key_threshold`, the heat the detector's key points are decoded down to (lower,
    #   tried in docs/cards.md: no gain on fresh scenes)
    back_min_prob: float = 0.8  # P(back) such a weak key point needs
    back_min_confidence: float = 0.8  # a face-down card needs this confidence: backs have
    #   no number to check them by, and the look-alike corners of other cards pass for one
    #   (the bar a weak key point's P(back) and the look's teachers need too)
    back_doubt: float = 0.6  # a key point read as a back with this much but under
    #   `back_min_confidence` is warned about ("possibly a face-down card ..."), not counted
    twin_same_place: float = 0.15  # two face-up cards of one label whose centres lie closer
    #   than this x width, turned any way: one card read twice (t1-1401 0006: an elephant-1
    #   read from key points 0.24 widths apart at angles 18 degrees apart, centres 0.08 apart)
    twin_reach: float = 0.3  # two face-up cards of one label turned half round to each other
    #   whose centres lie closer than this x width: one card read from both of its corners
    #   (a tamer's or a mouse's two corners look alike)
    back_duplicate: float = 0.3  # two backs whose centres lie closer than this x width: one
    #   card (its two look-alike corners both found)
    one_back_size: float = 1.15  # or that lie in one card-shaped region of the backs' look
    #   whose sides are at most this x a card's (their width; `one_card_region`), when
    one_back_look: float = 0.3  # less than this share of each one's frame off the region
    #   shows the backs' look (`off_region_look`: a card under the other shows its strip there)
    look_min_conf: float = 0.8  # a face-down card read this surely teaches the backs' look
    #   (only acts when back_min_confidence is below it: every back `read_pieces` keeps has
    #   at least `back_min_confidence`)
    look_ratio: float = 6.0  # a colour this many times more common on the backs read than in
    #   the whole photo is a back's colour
    look_size: tuple[float, float] = (0.6, 2.2)  # a region of the backs' look is a card when
    #   its short side is within this x the width of the cards read nearest to it (loose:
    #   close up, the width search reads large cards too small)
    look_shape: tuple[float, float] = (1.25, 2.1)  # and its long side this x its short one
    #   (91 / 59 = 1.54 seen from straight above; a tilted camera stretches it)
    flat_shape: tuple[float, float] = (2.3, 0.8)  # or up to this x its short one where the
    #   short side is at most this x the cards' width: a back lying across a low camera's
    #   view, its width foreshortened (2.23 x, 0.77 x on edition 2's committed 0002); a
    #   pile shifted half a card along makes such a rectangle a card wide. Its short side
    #   must be wider than `strip_across[1]`: a back under a card showing 0.67-0.7 of its
    #   width is a strip (`look_strips`), not a card 0.15 widths off
    look_fill: float = 0.65  # and it fills this share of its rectangle (a medallion whose
    #   colours the table shares bites into it; where no back was read the classifier
    #   checks it)
    look_faces: float = 2.0  # and a back's colour is this many times denser on the backs
    #   read than on the face-up cards read (their paper under a warm light is coloured)
    look_min_sat: int = 50  # HSV saturation of the pixels that carry the look
    look_scale: float = 0.5  # the look's regions are found on the photo at this scale
    look_close: float = 0.2  # its pixels are closed over this x the narrowest card's width
    #   (an ellipse, 3 px at least: `card_shaped`) before they are cut into regions
    pile_width: tuple[float, float] = (1.15, 1.5)  # a region of the backs' look this x the
    #   width of the cards near it across, a card's height along, and too square for one
    #   card, is a pile of two: the upper one shifted along the other's width by 0.15-0.5
    #   of it (a spread pile)
    design_table: float = 3.0  # where no back was read (`design_regions`): a colour on more
    #   than this many cards' area is the table's
    design_min: float = 0.3  # a back's colours cover at least this share of a card's area
    design_size: tuple[float, float] = (0.75, 1.35)  # a region of one colour is a card when
    #   its short side is this x the width of the cards read nearest to it (tighter than
    #   `look_size`: no back read vouches for the colour)
    design_fill: float = 0.8  # and it fills this share of its rectangle
    design_reclose: float = 0.4  # then its pixels closed over this x the narrowest card's
    #   width (`card_shaped` closes over `look_close`) once more: a card found there a
    #   card's width or more from every card found before is one too (edition 2's yellow
    #   ring reaches nearly to the blue back's sides and cuts a back seen small into parts
    #   none of a card's area: fresh e2-2750 0014, three whole backs). Session 21 (H6), untaught
    #   errors on committed e2 + e2-2750, 2751 (607 pieces): see docs/cards.md "Edition
    #   2's missed cards (session 21, H6)"; 0: off
    design_squat: tuple[float, float, float] | None = (1.0, 0.95, 0.3)  # a region of one
    #   colour squarer than `look_shape[0]` (long / short at least 1.0), under
    #   `pile_width[0]` x the cards' width across, is a card where it fills 0.95 of its
    #   rectangle and no card lies on or within 0.3 x its width beyond either end
    #   (`card_shaped`'s `squat`): a back seen from a low camera is foreshortened along
    #   its length (committed e2 0007: a whole back 1.16 x as long as wide, filling 0.968,
    #   found by no rule; a round token of the backs' colour fills 0.89-0.93 at half
    #   size, test_design_regions_find_backs_no_back_was_read_for; the taught look's
    #   `squat` is (1.0, 0.9)); None: off
    one_design: bool = True  # only the designs found in nearly the most regions
    #   (`one_design`: a box's cards share one back)
    one_design_margin: float = 2.0  # a design is left out when another's regions are at
    #   least this x its own (2 vs 3 regions: both kept; nothing says which is the back)
    pile_apart: float = 0.6  # x the width: a design's cards closer than this are one region
    #   (a spread pile of two)
    design_confidence: float = 0.6  # a face-down card found by its shape alone
    design_pattern: float = 0.08  # and a region of one colour is a back only where its
    #   middle shows a design: the grey levels inside 0.7 of its card frame spread by at
    #   least this x their mean (std / mean; `patterned`). A patch of flat colour is the
    #   table's (a newspaper's pictures). Regions on fresh mat 3013, mat 3060, e2 mat,
    #   default and print 3060 and committed e2: the 75 true backs' 0.164 and up; of the
    #   440 others (437 on the mats) 289 under 0.08. Session 24 (H8), docs/area.md; 0: off
    strip_across: tuple[float, float] = (0.15, 0.7)  # a strip of the backs' look off the
    #   cards read, this x the nearest cards' width across
    strip_along: tuple[float, float] = (1.2, 2.1)  # and this along (a card's height), lying
    #   along a card read, is a face-down card under it (`look_strips`)
    strip_up_along: float = 1.05  # or this along where a face-up card read covers the rest
    #   (its frame, grown by `strip_cover`, clips the strip's ends)
    strip_fill: float = 0.7  # filling this share of its rectangle
    strip_cover: float = 1.05  # the cards read, grown this x around their centre, cover
    #   what is not a strip
    strip_probe: float = 0.15  # a card read covers a strip's rest when it holds the point
    #   this x the nearest cards' width beyond the strip's long side
    end_across: tuple[float, float] = (0.75, 1.35)  # a region of the backs' look too short
    #   for a card, one side this x the nearest cards' width (a card's width: as tight as
    #   `design_size`, the region alone says it is a card)
    end_along: tuple[float, float] = (0.6, 1.45)  # and the other this x it (a card's height
    #   is `aspect` = 1.54 x), a card read beyond that short end: a face-down card whose
    #   end lies under that card (`end_backs`). Card-shaped regions (long side at least
    #   `look_shape[0]` = 1.25 x the short one, the short one a card's width) never reach
    #   it: `card_shaped` takes them as whole cards
    hop_row_step: float = 78.0  # mm: Hop la bille, the next card of a player's row from a
    #   card read (60 mm cards, 10-25 mm apart in the scenes)
    hop_row_apart: float = 52.0  # mm: a rectangle centred nearer a card read is on it (cards
    #   60 mm wide never overlap: 65 mm apart and more in a row)
    hop_row_depth: float = 30.0  # mm: and its centre lies this near the row's line (the
    #   cards' median distance beyond the cloth's edge)
    hop_row_backs: bool = True  # look for face-down cards beside a short row
    split_touching: bool = True  # a region of the backs' look (or of one colour) that is no
    #   card but holds two cards' area is looked at again before it is closed over the
    #   cards' rims: backs lying edge to edge (`touching_cards`)
    hop_faces: bool = True  # a card's face (paper, frame colour) judged under its own light
    #                         overrules the classifier's colour or back where it is clear
    design_apart: float = 0.25  # widths between its centre and any card read's
    weak_up_confidence: float = 0.9  # a weak key point read as a face-up card this surely is one,
    #   unless its key point or its card's centre lies on a card read already (a face-up one,
    #   `up_on_backs`; a large card's heat stays low, as a back's does; a card's other corner index
    #   or its drawing reads as a face-up card, and is on it). Also `read_paper`'s bar (white
    #   clutter on a real table). Session 13 tried 0.8, not kept: fresh e1-1510..1514 (150 photos,
    #   pieces wrong of 2507) 189 -> 183 on c69a491, 181 -> 174 with `far_card` 50 and
    #   `count_doubted`, but held-out 1516-1519 (126 of 2123), committed and edition 2 read the same
    #   (`light_eval`'s other lights: 2 pieces better, 4 worse); 0.65 and 0.5 (on c69a491) 201 and
    #   202 (an extra card unseats a row: zone errors 8 -> 19)
    weak_atop: float = 0.8  # a weak key point read as a face-up card this surely on
    #   face-up cards read of other kinds only (`on_other_kinds`) is a card lying on top of
    #   them (a card's own other corner or drawing reads as its own kind; fresh e2-1811
    #   0006: an elephant-2 whole, read 0.84, on a tamer read 0.62 whose frame covers it).
    #   Over 1: off. The taught Troetofanten reader's since session 15 (fresh e2-1810..1817
    #   with `teach_cards.TAUGHT_SWITCH` 404 -> 397 errors, one extra mouse, 0.62, on 1812
    #   0011; held-out e2-1818 54 -> 53; 0.7 the same total); the untaught one's, and so
    #   every reader's, since session 17 (H9): fresh e1-2160..2163 + e2-2164..2165 (120
    #   photos, 2066 pieces) 177 -> 175 pieces wrong (two whole or index-shown cards found
    #   read 0.98, none lost, no extra), committed and edition 2 the same readings; 0.7
    #   found 2 more there but put an extra mouse (0.75) on committed 0021
    up_on_backs: bool = True  # a back read is no card read for that rule: a face-up card
    #   lies on a face-down one (a pile, a player's row), and no corner or drawing of a back
    #   reads as a face-up card. Session 14: committed 14 -> 13 pieces wrong (0023's
    #   elephant-1 on a back), fresh e1-1720..1723 144 -> 140 (120 photos; no new error),
    #   e1-1510..1514 + e1-1725 and e2-1724 unchanged
    table_share: float = 0.9  # a Troetofanten reading whose frame shows the bare table
    #   there where no other card read lies (that share of those pixels, `on_bare_table`) is
    #   no card: a key point on a cloth's pattern, a pose reaching off a pile onto the table.
    #   Session 14, offline on the final readings of committed, edition 2 and fresh
    #   e1-1720..1723, e1-1510..1514, e1-1725, e2-1724 (5933 readings), those at least
    #   `table_exposed` off the others: 4275 right ones at most 0.82, 181 wrong-label ones at
    #   most 0.58, 5 of 19 extra ones 0.98-1.0 (the rest 0.0-0.66); 0.9: the gap's middle
    table_exposed: float = 0.3  # judged where at least this share of its frame lies on no
    #   other card read (the part off the others must be its own card). 0.1 took 2 extras
    #   more and, at 0.9, a right card (e1-1721 0020's tootophant-2, a frame 0.19 off its
    #   pile's others read a little wide: its sliver off them was table, 0.92)
    table_sure: float = 0.8  # the cards' colours: the frames read this surely
    table_pixel: float = 0.8  # a pixel is the table's where its colour's density off the
    #   cards (the photo away from every frame read, `table_margin` widths beyond) is this
    #   share of its density off plus on the sure cards
    table_margin: float = 0.15  # x the median width read
    table_least: float = 4.0  # the table's colours are learnt only from at least this many
    #   widths squared of it (the pixels `table_margin` off every frame read)
    table_cards_least: float = 0.5  # a reading is judged only where the other frames read
    #   with `table_sure` give at least this many cards' areas of colours (its own excluded:
    #   the only sure card has none to be told from the table by, and on a white cloth its
    #   white would be the table's; one card shown whole, shrunk off its outline, gives 0.9)
    table_floor: float = 1.0  # a colour with no pixel in the table's or the cards' pixels
    #   counts as this many there (the densities' floor, as `common_colours`' one pixel;
    #   before: a fixed density 1e-4, which an empty cards' histogram made the table's)
    table_least_off: int = 4  # and where its part off every other frame has this many
    #   pixels at `look_scale` at least
    table_corner: tuple[float, float] | None = (0.5, 0.12)  # the same test on a face-up
    #   card's strip along its top edge from its top-left corner (this share of its width
    #   along, of its height down; `corner_strip`): a corner index shows the paper beside
    #   and above it, whatever covers the rest (a key point whose frame reaches off its
    #   card: committed 0018's second reading of a tootophant, 0.29 widths above it, its
    #   frame 0.17 off the others). Session 15, offline over the final readings of
    #   committed, edition 2 and fresh e1-1800..1807 (3545 right ones matched, 16 extra):
    #   strips at least `table_exposed` off the other frames, table share right at most
    #   0.79, extra 0.83 and 1.0; at `table_share` (0.9) 1 extra, no right one
    pattern_alike: float | None = 0.5  # on a busy table (a look posing over `busy_keys`
    #   key points: a printed cloth, a newspaper) a Troetofanten face-up reading under
    #   `pattern_sure` is no card where its frame's colours (hue x saturation x value,
    #   `TABLE_BINS`, at `look_scale`) are the table's pattern both around it (the ring
    #   `pattern_ring` x its frame, off every other frame; Bhattacharyya coefficient) and
    #   off every frame read (`table_margin` beyond): at least this on both
    #   (`pattern_readings`). A card is paper with a drawing on it: the pattern around it
    #   does not continue inside. Session 25 (troeto-busy), offline on the final readings
    #   of fresh print and mat 3110-3111 and default 3112: of 187 face-up extras 161 at
    #   0.45 on both, 151 at 0.5; of the 381 face-up readings on a real card of print and
    #   mat, 12 and 11 (frames reaching off their card onto the print, grey cards on grey
    #   newsprint); the default tables' 132 none (no busy look; on one white table, read
    #   without the gate, 4 right cards at 0.70-0.84: why it is gated)
    pattern_sure: float = 0.9  # (the surer readings are not judged: right ones 0.92-1.0
    #   on print and mat at 0.5 on both; extras at most 0.98)
    pattern_ring: tuple[float, float] = (1.15, 1.6)  # the ring around a frame, grown
    #   these x around its centre
    pattern_least: int = 20  # pixels at `look_scale` both inside (off the other frames)
    #   and in the ring, at least, for a reading to be judged
    busy_table: bool = False  # a look judged busy whatever its key points (`far_look`'s
    #   enlarged part of a photo whose look was busy: it poses fewer of the table's spots)
    lone_backs: float | None = 5.0  # and a back found by its look or shape alone
    #   (`design_confidence`) lying more than this x its width from every other reading is
    #   none (`lone_shape_backs`). Session 25 (troeto-busy): the true backs of fresh print,
    #   mat and default sets and the committed scenes (271) lie at most 3.31 widths from
    #   the next true card (95 % within 2.06); on the mat 22 of the 32 false ones (coloured
    #   pictures) 6.6-22 widths from every other reading, and 3 true ones (far photos whose
    #   face-up cards went unread) 4.2-8.3
    number_doubt: float = 0.8  # a Troetofanten animal whose number takes less than this
    #   share of its kind's probability gets a warning naming the two likeliest numbers
    #   (0.75 until session 8's surer index model: its warnings named 61 % of the wrong
    #   numbers at 0.75, 70 % at 0.8, as the old model's at 0.75; docs/cards.md)
    tootophant_doubt: float = 0.9  # the same for a tootophant: its number is yellow on the
    #   pale card (pieces.md), the least contrast of any index, and blurs first on a small
    #   card (a person cannot read several either). Session 10, dev sets (committed, edition
    #   2, fresh 1031, 1033): at 0.8 14 of 21 wrong tootophant numbers warned, at 0.95 20 of
    #   21, for 44 more warnings over 80 photos (38 of them on right numbers). 0.95 -> 0.9
    #   in session 24 (H4; session 23 H12 measured the same offline): no misread number
    #   read at 0.9-0.95 on committed, edition 2 or fresh e1-2995 / 3034, and the warnings
    #   there all on right numbers (docs/vision.md, "Warnings at errors and false alarms")
    big_card: float = 90.0  # px: Troetofanten, a strong key point whose searched width is
    #   at least this (the detector's heat fades on cards over about 100 px: a close-up's
    #   near cards of 101-128 px got 0.18-0.22) has the photo read once more at
    #   `second_scale` (`second_look`)
    big_field: float = 1.8  # and at least this x the width `refine_poses` then gave it (the
    #   width field of the other cards; the search's neighbouring scales are 1.2 x apart)
    big_count: int = 2  # and at least this many such key points (one alone is the search's
    #   noise: its crops look alike at two scales)
    big_reach: float = 4.0  # a card of the second look lies within this x the searched
    #   width of a key point that asked for it
    close_heat: float = 0.5  # or (a close-up whose cards all are too large: the first look
    #   finds few, and none it poses wide) where the detector finds at least `close_more`
    #   more key points of this heat on the photo at `second_scale` than on the photo
    close_more: int = 2
    second_scale: float | None = 0.5  # the second look's scale (None: no second look)
    number_jitter: float = 0.04  # Troetofanten: an animal's number whose likeliest share is
    #   under `number_recheck` is read again at 4 poses shifted this x the card's sides
    #   (along and across) and the 5 readings averaged: a blurred digit's reading swings
    #   with the crop's placement (0: no second reading)
    number_recheck: float = 0.8  # (both kinds: re-reading tootophants up to their
    #   warning's 0.95, `tootophant_doubt`, gave the same figures for twice the crops)
    numbers_of_pieces: bool = True  # Troetofanten: the corner-index model reads (and
    #   re-reads, `number_jitter`) only the crops the card classifier does not call
    #   background (P(background) under `min_piece_prob`): a crop it does is no piece
    #   whatever its number (`read_crops`' piece test, its confidence 0), so its rows keep
    #   the classifier's own numbers. A third of the index model's crops on the committed
    #   photos and their re-reads (session 26, troeto-speed); the same pieces
    small_card: float = 45.0  # px (working image, the card's TL -> TR width): a
    #   Troetofanten animal narrower than this is judged against `small_number_doubt`
    #   instead of `number_doubt` (`small_card_doubts`). Session 16 (H1), the index model
    #   at the true outline, 3310 animals: cards under 45 px misread 15 % (96 / 641),
    #   45-60 px 3 %, 60-80 px 2 %, 80 px and over 0.7 %
    small_number_doubt: float = 0.9  # an animal under `small_card` whose number takes less
    #   than this share of its kind's probability gets `number_doubt`'s warning (session
    #   16, H11, fresh e1-2020..2022, e2-2023: 3 of the 46 wrong numbers had no warning,
    #   all on cards of 30-44 px read at 0.82-0.86; docs/cards.md)
    legible_sharpness: float = 0.18  # Troetofanten: an animal whose corner index crop is
    #   less sharp than this (`index_sharpness`: the digit's ink channel's steepest steps
    #   over its contrast) has a digit no person could read either (a blob): its warning
    #   says so, sure number or not. Session 11, committed + fresh 1211 + 1213 at the true
    #   outline: 38 of 193 tootophants under 0.18 held 12 of the 17 misread (the rest 5 of
    #   155); every crop under 0.175 looked at was a blob (docs/cards.md)
    sharpness_size: int = 32  # px: the side of the crop (the index model's box) that
    #   `legible_sharpness` is measured on, whatever side the index model reads (its
    #   gradients are per pixel: a 48-px crop of the same box measures 1.5 x softer;
    #   the threshold was set on 32-px crops, session 11)
    far_card: float = 50.0  # px: Troetofanten, where the face-up cards read are narrower
    #   than this (median), the photo around them is read once more at `far_scale` x
    #   (`far_look`: the detector, which works at half size, loses cards of 30-36 px; 40
    #   until session 13: sharp, whole cards 36-45 px wide got heat 0.17-0.27 on fresh
    #   sets, under `troeto_key_threshold`. 40 -> 50 on e1-1510..1514: 187 -> 181 pieces
    #   wrong of 2507 (with `count_doubted`), held-out 1516-1519 129 -> 126 of 2123;
    #   committed 16 -> 14. Measured with the `weak_up_confidence` 0.8 tried: 180 -> 174,
    #   10 photos better, 1 worse; 60: the same for more CPU, 80: 183 with 8 extra
    #   readings more; a set card width (70 or 85 px wide enlarged, at most 2 x):
    #   170-171, noise, not kept. Cards just under 50 px come out about 100 px wide in
    #   the enlarged look, about the largest the detector still reads (its heat fades on
    #   cards over 70 px): do not raise this far. Cost: a photo read again takes about
    #   twice the CPU, committed + e1-1510 +16 % mean per photo)
    far_scale: float | None = 2.0  # (None: no far look)
    far_margin: float = 3.0  # x the cards' width around the pieces read: the part read
    second_width_scales: tuple[float, ...] = (0.83, 1.0, 1.2)  # its width search: the
    #   detector's width is near the truth for cards of its size (a fifth of the crops)
    big_ratio: float = 1.35  # a card of the second look is new when it is at least this x
    #   as wide as the first look's cards nearest to it (the first look read it too small,
    #   or not at all)
    close_merge: bool = True  # the second look's cards turned away above (as wide as the
    #   first look's, or in a fan the first look read as narrower cards) are merged card by
    #   card, by key point (`close_merged`): a fan of large cards is read whole there
    #   (committed e2 0008: 6 cards of 115-123 px read at 86-91, two of them missed)
    close_key: float = 0.2  # x the close-up card's width: two readings whose key points
    #   lie this near are one card
    close_ratio: float = 1.1  # a first-look card at a key point that asked for the look is
    #   replaced by the close-up's reading of it at least this x as wide
    corner_backs: bool = True  # the backs read at the corner indices of a card-shaped
    #   region of the backs' look at least `aspect` long (a pile shifted across its width
    #   makes a squarer one) are that one card, its outline (`at_corners`), whatever width
    #   the face-up cards near them gave them (a near back among far cards, a back lying
    #   across a tilted camera's view). Session 15, fresh e1-1800..1807 (240 photos): 5
    #   extra backs fewer (e1-1803 0023, e1-1804 0000), nothing worse; without the
    #   `aspect` bar 3 backs of piles shifted across were lost (committed 0003, e1-1800
    #   0004, e1-1803 0009: regions 1.27-1.46 x, the lower card's index 0.24-0.26 widths
    #   from the corner)
    resettle_backs: bool = True  # where the second look adds cards, the backs are settled
    #   again (`settle_backs`) among them: the first look's backs took the width of the far
    #   cards read then (committed 0028: a near back read 3 times at 54 px of its 80; the
    #   near cards' 94-98 px join them in one, its region's outline). Session 15
    edge_turns: tuple[float, ...] = tuple(np.arange(-9.0, 9.01, 1.5))  # Troetofanten: the
    #   angles (degrees) tried around each face-up card's angle, the one whose top and left
    #   edges near the corner index are the sharpest kept (`edge_angles`; () none)
    edge_reach: float = 0.08  # x the width: how far off the pose's line an edge is looked for
    paper_warnings: bool = True  # Troetofanten: warn about card-shaped regions of the
    #   face-up cards' look off every card read (`paper_regions`)
    look_off_warnings: bool = True  # Troetofanten: warn where the face-down cards' look
    #   shows off every card read (`look_off_cards`; session 24, H6: 10 of the 12 silent
    #   errors on the committed and edition 2 photos were cards missed, 8 of them backs)
    look_off_strip: tuple[float, float] = (0.06, 0.15)  # a strip of it beside a face-up card
    #   read: at least this x a card's area (width x height) and its short side this x the
    #   width (the nearest cards' read: `near_width`). Edition 2's backs missed under a card
    #   showed 0.07-0.14 cards, 0.18-0.35 wide; the one such strip at no missed card,
    #   committed 0005, 0.057 and 0.13 wide (a fan's step is at least 0.3 widths)
    look_off_beside: float = 0.25  # with at least this share of its rim on face-up cards read
    #   (grown `strip_cover`: the card that covers the rest of it; 0.27-0.60 at the misses)
    look_off_on_back: float = 0.1  # and under this share on backs read (a back read a little
    #   too small leaves strips of its own look at its ends: committed 0008, 0028, rims
    #   0.26-0.47 on backs, 0 on face-up cards)
    look_off_whole: tuple[float, float] = (0.5, 0.9)  # or a patch of it on no card read, at
    #   least this x a card's area and filling this share of its minimum-area rectangle (the
    #   two backs missed whole on edition 2, 0.67 and 1.8 cards filling 0.96-0.97; patches of
    #   a table's look at no card on the committed photos filled 0.44-0.86)
    paper_read: bool = True  # and read them (each switch works without the other): one
    #   read surely as a face-up card is one
    paper_twin: bool = True  # and one whose key point lies within `duplicate` x the width
    #   of a face-up card read of its kind (`twin_labels`) is that card once more: the surer
    #   reading is kept. Session 19 (H11): e1-2580 0015's elephant-1 (0.71, posed 20 degrees
    #   off) and a paper region beside it read elephant-4 (0.95), key points 0.05 widths
    #   apart, were counted as two cards
    paper_ratio: float = 4.0  # the paper's colours: this many times more common on the
    #   face-up cards read than elsewhere
    paper_min_conf: float = 0.8  # the face-up cards read this surely teach the look
    paper_fill: float = 0.7  # a region fills this share of its rectangle (a covered corner
    #   bites into it)
    paper_shape: tuple[float, float] = (1.2, 2.1)  # long side / short side of such a region
    paper_scale: float = 0.25  # the regions are found on the photo at this scale (halved
    #   until at most this)
    row_turn: float = 10.0  # a weak key point read surely as a face-up card on a card read
    #   is the next card of its fan or pile (kept) when turned alike within this (degrees)
    row_along: tuple[float, float] = (0.2, 1.0)  # and its index this x the width along the
    #   card's top edge from the card's
    row_across: float = 0.12  # and within this x the width across it (`in_its_row`)
    doubt_kind: float = 0.5  # Troetofanten: a strong key point dropped because its number
    #   splits (confidence under `min_confidence`) whose kind (elephant, tootophant) takes
    #   at least this share of its reading, on no card read, is warned about, not counted
    count_doubted: float = 0.8  # ... but counted, as its likeliest number (warned about as
    #   an unclear number), where its kind takes this share x (1 - P(background)) and it
    #   lies on no card read after every other key point (every open animal scores +1,
    #   whatever its number: a card left out is always wrong, one counted is right at
    #   least in its points); not where `repose_strong`'s crop of it, read again, was
    #   background or a back. Session 13, fresh e1-1510..1514 (150 photos), pieces wrong
    #   of 2507: on c69a491 (`far_card` 40) 189 -> 187; as kept (`far_card` 50) 183 ->
    #   181, held-out 1516-1519 128 -> 126 of 2123; with the `weak_up_confidence` 0.8
    #   tried 183 -> 180 (fully visible cards missed 30 -> 25). 0.5: extra readings
    #   unseated rows (4 zone errors more); 1.1: none counted
    weak_kind: float = 0.9  # Troetofanten: a weak key point read as a numbered animal under
    #   `weak_up_confidence` (its number split) but whose kind takes this share x
    #   (1 - P(background)) is counted as its likeliest number (warned about as an unclear
    #   number) where it lies on no card read (`on_a_card_off_row`, as `weak_up_confidence`'s
    #   test) after every other key point and `count_doubted`'s; over 1: never. Session 14
    #   (true pieces right / missed / wrong / extra): fresh e1-1770..1772 + e2-1773..1777
    #   (240 photos) untaught 3566 / 261 / 131 / 26 -> 3572 / 258 / 128 / 27, taught
    #   e2-1773..1777 2311 / 100 / 93 / 34 -> 2315 / 99 / 90 / 35, taught e2-1730..1733
    #   1899 / 84 / 80 / 22 -> 1902 / 79 / 82 / 22; held out e1-1778/1779 + e2-1778/1779
    #   (120) 1729 / 134 / 50 / 18 -> 1731 / 130 / 52 / 19, taught e2 889 / 54 / 23 / 14 ->
    #   890 / 53 / 23 / 15; committed and edition 2 the same. 0.85: one extra more taught
    #   (e2-1776); 0.8: an extra on committed and on edition 2
    rare_count: int = 3  # Troetofanten: a card of which a box holds this many or fewer (3 mice,
    #   1 mousetrap: pieces.md; 4 of 98 cards, so a reading of one is rarely right by chance)
    rare_confidence: float = 0.55  # is counted only when read with this confidence; under it
    #   it is warned about, not counted (`unsure_rare`: session 11, every mouse or mousetrap
    #   read under 0.5 was a blob on the table, a fan's drawing or an elephant; right ones 0.6+)
    back_on_back: float = 1.0  # a face-down card found by its look or shape alone whose
    #   centre lies inside a back read surely (`back_min_confidence`; its frame scaled this
    #   x about its centre), turned a quarter to it, is that back read again (`_add_back`:
    #   a pile's cards face the same way; its long side taken for a pile of two)
    back_cross: float = 45.0  # degrees (modulo a half turn) at least: "turned a quarter"
    back_smaller: float = 0.85  # and narrower than this x that back (the pattern read across
    #   in session 11: 0.74; a box's cards are one size)
    back_within: float = 0.8  # or this share of its frame inside that back's (a real card
    #   across a back: 0.65, its ends stick out)
    repose: bool = True  # Troetofanten: a strong key point whose refined pose reads as
    #   background is read again at its own poses (`repose_strong`: the shared width field
    #   or the table's direction can miss a card lying alone by 15 % or a few degrees)
    repose_scales: tuple[float, ...] = (0.9, 1.1)  # x the posed width, tried as well
    repose_width: float = 2.0  # its widths within this ratio of the posed one (the width
    #   field's: a dot on a checked cloth read at 3 x the cards' width made an elephant that
    #   unseated every row, e2-1403 0012; at 1.5 e2-1413 lost 3 cards right again)
    repose_switch: float = 1.01  # a doubted piece read again as another kind is taken when
    #   read at least this surely (over 1: never, as before; the taught reader sets 0.8,
    #   `teach_cards.TAUGHT_SWITCH`: a crop posed at a wrong width can read as the wrong kind)
    repose_doubted: bool = True  # and one read under `min_confidence`, any kind (its number
    #   split, or its kind is unsure: mouse, tamer, lasso; read again as its posed kind.
    #   Only the split numbers, `read_pieces`' doubted rule, lost 6 cards right, 1 gained)
    repose_confidence: float = 0.4  # such a card is kept when read this surely, as a face-up
    #   card, and neither its key point nor its centre lies on a card read
    repose_turns: tuple[float, ...] = (90.0, -90.0, 180.0)  # degrees: a strong key point
    #   `repose_strong` reads again (no piece, or under `min_confidence`) is read at its
    #   posed angle turned by these as well (at its posed width): the detector's angle can
    #   be a quarter turn off, and the table's direction snapped to it then is too
    #   (committed e2 0008: a whole elephant-1 at -164 degrees, detector -99, posed -82,
    #   read 0.14 there; 0.91 at -172, a quarter turn on); () none. Session 25
    repose_turn_confidence: float = 0.8  # such a turned crop is taken, as an elephant or a
    #   tootophant only (committed e1 under `light_eval`'s shadow and daylight: a tamer's
    #   and a mouse's turned crops made 3 extra cards; their drawings read alike turned),
    #   only when read this surely, by the classifier and with the number model (`read_pieces`;
    #   a turned pose is no small step from the one read: held-out e1-3104 0004, a quarter
    #   turn off a card's edge read 0.8 by the classifier onto bare table, 0.60 with its
    #   number)
    twice_reach: float = 0.75  # x the width: two backs turned alike (modulo a half turn,
    #   `twice_turn` degrees) whose centres lie nearer than this are one card read twice
    #   when the look covers too little of what each shows off the other (`shown_off`:
    #   the two shares sum to about 1 for one card read at two places, 2 for a pile)
    twice_turn: float = 20.0
    twice_shown: float = 1.4  # the sum under which they are one card
    twice_none: float = 0.1  # and, turned any way, one of them is no card where the look
    #   covers under this share of its part off the other (0: off). Session 14: fresh e1-1720
    #   0029's back read again 40 degrees off (0.02 of its part off the back), the one change
    #   over the committed, edition 2, e1-1720..1723, e1-1510..1514, e1-1725 and e2-1724 sets
    twice_seen: float = 0.3  # decided only where this share of what each shows off the other
    #   lies off the face-up cards read (under a face-up card the look cannot show)
    fan_gaps: bool = True  # Troetofanten: where two face-up cards read lie turned alike
    #   (`row_turn`) and as wide (`fan_gap_width`) with their corner indices a fan's step
    #   apart, a card is looked for where the row's next index would lie (one step past
    #   either end, `fan_gap_step`) and between two cards two steps apart
    #   (`fan_gap_between`), posed as its neighbour, at a peak of the detector's heat too
    #   weak to be read there: the heat peaks of a tight fan's indices run together, and a
    #   card whose index shows in a fan gets little heat of its own (session 22 H1: of the
    #   9 edition-2 face-up cards missed untaught with no key point of 0.15 on committed e2
    #   + fresh e2-2800, 2801, 6 had a peak of 0.075-0.14 within 0.01-0.08 widths of their
    #   index). `fan_gap_poses`, `CardReader.fan_gap_cards`; docs/cards.md "Edition 2's
    #   fans (session 22, H1)"
    fan_gap_step: tuple[float, float] = (0.1, 0.6)  # x the width: a fan's step (to the
    #   nearest card turned alike and as wide)
    fan_gap_between: tuple[float, float] = (0.3, 1.2)  # two cards this far apart: the
    #   middle is looked at
    fan_gap_width: float = 1.2  # the larger of the two widths at most this x the smaller
    fan_gap_heat: float = 0.05  # the detector's peaks are decoded down to this heat (only
    #   `fan_gap_cards` asks for those under `key_threshold`)
    fan_gap_snap: float = 0.25  # x the width: a gap's pose needs such a peak (or a weak key
    #   point's, under `troeto_key_threshold`) this near; the card is read there. Without a
    #   peak (every gap read at its pose): the same cards found at 0.9 with 3 x the crops
    #   (40 edition-2 photos: 310 against 105), at 0.8 more background to misread
    fan_gap_confidence: float = 0.8  # and a face-up card read there this surely is kept.
    #   e2-2800..2801 + committed e2 (40 photos), pieces right untaught / taught: 0.9 560 ->
    #   562 / 596 -> 597, 0.8 563 / 598, 0.6 564 / 598 with an extra lasso (0.64) on
    #   committed e2 0005 and an extra taught
    compressed_smooth: tuple[tuple[int, float], ...] = ((50, 0.7), (75, 0.5))  # a JPEG
    #   photo of at most the quality (`Photo.jpeg_quality`, the IJG scale) of a step has
    #   Troetofanten's corner numbers read from a copy smoothed by a Gaussian of its s.d.
    #   (px of the photo; `smoothing_numbers`, `compressed_sigma`), the first step it is
    #   under: its 8 x 8 blocks and halved colour cut the small digit apart. Session 23
    #   (H5), cards read right, committed photos (q80) re-encoded -> the same smoothed: q40
    #   493 -> 495 of 523, q60 505 -> 511, q70 505 -> 507, q75 511 -> 512; fresh e1-2970
    #   (263) q40 240 -> 243, q60 245 -> 245, q70 253 -> 255. 1.0 at q40 492, 0.5 at q40
    #   493, 0.7 at q70 507 / 253 (docs/cards.md "Compressed photos (session 23, H5)")

READ = ReadSettings()


def _turn_off(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How far apart the angles `a` and `b` (degrees) lie, 0-180."""
    return np.abs((np.asarray(a, float) - b + 180.0) % 360.0 - 180.0)


class HelperLoad:
    """This process's reading helper threads' share of the machine's 1-minute load average:
    the CPU seconds they used (`add`) per second, averaged as the kernel averages the load
    (exponentially, `tau` 60 s; updated at most once a second, when asked). A thread waiting
    for a busy core counts in the load but uses no CPU, so on loaded cores the share is
    under the helpers' part of the load: the gate errs towards no helpers there."""

    def __init__(self, tau: float = 60.0):
        self.tau = tau
        self._lock = threading.Lock()
        self._cpu = 0.0  # CPU seconds added so far
        self._at: float | None = None  # (monotonic time, CPU seconds) at the last update
        self._seen = 0.0
        self._rate = 0.0

    def add(self, seconds: float) -> None:
        with self._lock:
            self._cpu += max(0.0, seconds)

    def share(self, now: float | None = None) -> float:
        now = time.monotonic() if now is None else now
        with self._lock:
            if self._at is None:
                self._at, self._seen = now, self._cpu
            elif now - self._at >= 1.0:
                dt = now - self._at
                w = math.exp(-dt / self.tau)
                self._rate = w * self._rate + (1.0 - w) * (self._cpu - self._seen) / dt
                self._at, self._seen = now, self._cpu
            return self._rate


HELPERS = HelperLoad()  # (the process's: every reader's helpers)


def timed_helper(fn):
    """`fn` whose CPU time on the thread that runs it is added to `HELPERS` (a helper job)."""
    def run(*args):
        t = time.thread_time()
        try:
            return fn(*args)
        finally:
            HELPERS.add(time.thread_time() - t)
    return run


def spare_core(s: ReadSettings) -> bool:
    """Whether `s` asks for a helper thread now: `threads`, not already on a helper thread
    (the pipeline's `cards` thread, which reads Hop la bille's cards beside its marbles, or
    `vision.mauer`'s pools), and the 1-minute load average per core under
    `threads_below_load` (`vision.mauer`'s gate), with `threads_own_load` less this
    process's own helpers' share of it (`HELPERS`)."""
    from vision.mauer import _spare_core

    if not s.threads or threading.current_thread().name.startswith(("cards", "mauer")):
        return False
    return _spare_core(s.threads_below_load, HELPERS.share() if s.threads_own_load else 0.0)


def run_helper(s: ReadSettings, fn, *args):
    """`fn(*args)` on `vision.mauer.run_leaf`'s pool, its CPU added to `HELPERS`: for a caller
    that found a core spare (`spare_core`; the pool's own gate, the plain load, not asked
    again)."""
    from vision.mauer import run_leaf

    return run_leaf(replace(s, threads_below_load=math.inf), timed_helper(fn), *args)


def noise_warning(kp: Keypoints, threshold: float, most: int, busy: int | None = None
                  ) -> list[str]:
    """A warning where more of the detector's piece key points reach `threshold` heat than
    `most` (`ReadSettings.max_keys`: only that many, the strongest, are read), or than
    `busy` (`ReadSettings.busy_keys`: a printed or patterned table), else none."""
    n = int(np.count_nonzero((kp.kind == KIND_PIECE) & (kp.score >= threshold)))
    if n > most:
        return [busy_warning(n, most, "card-like spots")]
    if busy is not None and n > busy:
        return [f"the table looks busy ({n} card-like spots where a game lays about 30): its "
                "print or pattern may be read as pieces or hide them; lay the pieces on a "
                "plain surface"]
    return []


def in_halves(s: ReadSettings, read, n: int, per: int = 1) -> np.ndarray:
    """`read(lo, hi)` (an array of `per` rows for each of the items lo..hi-1) over `n`
    items: in two halves side by side, the first on a helper thread (`vision.mauer.run_leaf`'s
    pool, in a copy of the caller's context), where `s.threads`, at least `threads_least` rows and
    a core is spare (`threads_below_load`), else in one go; the rows concatenated. The
    models read each crop of a batch alone (the same numbers in any batch), so the rows are
    the same either way."""
    if not (n >= 2 and n * per >= s.threads_least and spare_core(s)):
        return read(0, n)
    cut = n // 2
    first = run_helper(s, read, 0, cut)  # (a job that waits for no other: the leaf pool)
    rest = read(cut, n)
    return np.concatenate([first.result(), rest])


def inside_frame(point, frame, shrink: float) -> bool:
    """Whether `point` lies inside `frame` ((4, 2) corners) shrunk about its centre."""
    if frame is None:
        return False
    q = shrunk_frame(frame, shrink)
    return cv2.pointPolygonTest(q, (float(point[0]), float(point[1])), False) >= 0


def shrunk_frame(frame: np.ndarray, shrink: float) -> np.ndarray:
    """(4, 2) float32: `frame` ((4, 2) corners) shrunk about its centre (its corners'
    mean), `(c + (frame - c) * shrink).astype(np.float32)` with `c = frame.mean(axis=0)`.
    A float64 frame's worked out on Python floats: the same sums in the same order, a
    fifth of the time (numpy's mean over the 4 rows adds them one after another and
    divides by 4)."""
    if frame.dtype == np.float64 and frame.shape == (4, 2) and frame.flags.c_contiguous:
        (a0, a1), (b0, b1), (c0, c1), (d0, d1) = frame.tolist()
        cx, cy = (((a0 + b0) + c0) + d0) / 4, (((a1 + b1) + c1) + d1) / 4
        return np.array([[cx + (x - cx) * shrink, cy + (y - cy) * shrink]
                         for x, y in ((a0, a1), (b0, b1), (c0, c1), (d0, d1))], np.float32)
    c = frame.mean(axis=0)
    return (c + (frame - c) * shrink).astype(np.float32)


# Magic Rabbit number colours as photographed: the mean Lab (OpenCV 0-255, a and b less
# 128) of a tile's frame ring under the photo's own white (`ring_lab`), measured on the
# committed edition-1 scenes and a fresh edition-1 set (seed 963; 50 tiles per number).
# Another copy's colours (edition 2) lie within `ReadSettings.colour_spread` of them.
NUMBER_REF_LAB = np.array([
    (148, 35, 17), (176, 12, 38), (205, -10, 49), (200, -29, 30), (146, -28, 15),
    (191, -12, -15), (116, 10, -32), (134, 26, -25), (170, 28, -7)], float)
RING_SIZE = 40  # px: a tile's frame warped to this square for its colour
RING_EDGES = (2, 6)  # the ring: px from the square's edge (the frame, in any drawing)


def photo_white(patches: list[np.ndarray]) -> np.ndarray:
    """(3,) BGR of the photo's light: the 97th percentile per channel of the tiles' pixels
    (their paper, rabbits and number discs are white in any copy)."""
    px = np.concatenate([q.reshape(-1, 3) for q in patches]).astype(np.float32)
    return np.maximum(np.percentile(px, 97, axis=0), 1.0)


def ring_lab(image: np.ndarray, frames: list[np.ndarray], sat_min: int = 60) -> np.ndarray:
    """(N, 3) mean Lab (OpenCV 0-255, a and b less 128) of each tile's frame ring (`frames`:
    (4, 2) corners), its pixels scaled by the photo's white (`photo_white`): the colour
    relative to the light. The ring's saturated pixels (all of it where few are)."""
    n = RING_SIZE
    dst = np.float32([[0, 0], [n, 0], [n, n], [0, n]])
    patches = [cv2.warpPerspective(image, cv2.getPerspectiveTransform(np.float32(f), dst),
                                   (n, n), flags=cv2.INTER_AREA) for f in frames]
    if not patches:
        return np.zeros((0, 3))
    white = photo_white(patches)
    yy, xx = np.mgrid[:n, :n]
    edge = np.minimum(np.minimum(xx, yy), np.minimum(n - 1 - xx, n - 1 - yy))
    ring = (edge >= RING_EDGES[0]) & (edge <= RING_EDGES[1])
    wb = np.clip(np.vstack(patches).astype(np.float32) / white * 255.0, 0, 255
                 ).astype(np.uint8)  # (all tiles at once: one colour conversion each)
    sat = cv2.cvtColor(wb, cv2.COLOR_BGR2HSV)[..., 1].reshape(len(patches), n, n)
    lab = cv2.cvtColor(wb, cv2.COLOR_BGR2Lab).reshape(len(patches), n, n, 3).astype(float)
    out = np.zeros((len(patches), 3))
    for k in range(len(patches)):
        m = ring & (sat[k] >= sat_min)
        out[k] = lab[k][m if m.sum() >= 10 else ring].mean(axis=0)
    return out - (0.0, 128.0, 128.0)


def colour_logp(lab: np.ndarray, spread: tuple[float, float, float]) -> np.ndarray:
    """(N, 9) log likelihood of each colour `lab` ((N, 3), `ring_lab`) for numbers 1..9
    (Gaussian around `NUMBER_REF_LAB`, `spread` in L, a, b), less each row's maximum."""
    z = (lab[:, None, :] - NUMBER_REF_LAB[None]) / np.asarray(spread, float)
    lp = -0.5 * (z ** 2).sum(axis=2)
    return lp - lp.max(axis=1, keepdims=True)


def colour_weighted(probs: dict[str, float], logp: np.ndarray, weight: float
                    ) -> dict[str, float]:
    """`probs` (label -> probability) with each numbered label's share times its number's
    colour likelihood (exp(weight x `logp`[n - 1])), scaled back to the numbered labels'
    total (the magician's share stays)."""
    numbered = {k: v for k, v in probs.items() if k[-1].isdigit()}
    total = sum(numbered.values())
    w = {k: v * float(np.exp(weight * logp[int(k.rsplit("-", 1)[1]) - 1]))
         for k, v in numbered.items()}
    new_total = sum(w.values())
    if total <= 0 or new_total <= 0:
        return dict(probs)
    return {k: (w[k] * total / new_total if k in w else v) for k, v in probs.items()}


def light_shift(lab: np.ndarray, tiles: list[CardPiece], s: ReadSettings) -> np.ndarray:
    """(3,) the light's colour cast in Lab: the median offset, in a and b (L stays 0), of
    the surely read tiles' colours (`lab` (N, 3) of `tiles`, confidence `colour_sure` and
    up) from their numbers' (`NUMBER_REF_LAB`); zero with fewer than `colour_sure_count`.
    A warm light moves every colour alike, which the photo's white alone does not undo."""
    sure = [(r, int(t.label.rsplit("-", 1)[1])) for r, t in enumerate(tiles)
            if t.confidence >= s.colour_sure]
    if len(sure) < s.colour_sure_count:
        return np.zeros(3)
    rows, nums = zip(*sure, strict=True)
    shift = np.median(lab[list(rows)] - NUMBER_REF_LAB[np.array(nums) - 1], axis=0)
    return np.array([0.0, shift[1], shift[2]])


def magic_colour_numbers(image: np.ndarray, pieces: list[CardPiece], s: ReadSettings
                         ) -> tuple[list[CardPiece], list[str]]:
    """Magic Rabbit tiles' numbers weighed by their frame colour (pieces.md: each number has
    its own colour, shared by its hat and rabbit, in any copy): each hat's and rabbit's
    probabilities times its colour's likelihood (`ring_lab`, `colour_logp`,
    `colour_weighted`), its label the likeliest number of its kind, where the classifier
    read it with less than `colour_unsure` confidence (a surely read number keeps it unless
    its colour's log likelihood for it is under `colour_contradicts`, another number's
    colour; a number the classifier splits, another copy's drawing, goes mostly to the colour).
    Warnings: a number the colour changed (a number whose colour still does not agree is
    warned about once the line settled it, `colour_doubts`)."""
    tiles = [k for k, p in enumerate(pieces) if p.label.startswith(("hat-", "rabbit-"))
             and p.frame is not None and p.probs]
    out, warnings = list(pieces), []
    lab = ring_lab(image, [pieces[k].frame for k in tiles])
    lab = lab - light_shift(lab, [pieces[k] for k in tiles], s)
    logp = colour_logp(lab, s.colour_spread)
    for k, lp in zip(tiles, logp, strict=True):
        p = pieces[k]
        kind, n = p.label.split("-", 1)
        if p.confidence >= s.colour_unsure and lp[int(n) - 1] >= s.colour_contradicts:
            continue
        probs = colour_weighted(p.probs, np.maximum(lp, s.colour_floor), s.colour_weight)
        label = max((q for q in probs if q.startswith(kind + "-")), key=probs.get)
        x, y = p.center
        if label != p.label:
            warnings.append(f"the {p.label} at ({x:.0f}, {y:.0f}) is read as {label}: its "
                            "colour is that number's")
        out[k] = replace(p, label=label, probs=probs)
    return out, warnings


def colour_doubts(image: np.ndarray, pieces: list[CardPiece], s: ReadSettings) -> list[str]:
    """Warnings for the hats and rabbits whose settled number (after
    `lineup.settle_numbers`, the labels scored) its frame colour doubts: its log likelihood
    (`ring_lab` less the light's cast, `colour_logp`) under `colour_doubt`. Checked on the
    settled labels, as the line and the layout may still move a number or a kind after
    `magic_colour_numbers`."""
    tiles = [p for p in pieces if p.label.startswith(("hat-", "rabbit-"))
             and p.frame is not None]
    if not tiles:
        return []
    lab = ring_lab(image, [p.frame for p in tiles])
    logp = colour_logp(lab - light_shift(lab, tiles, s), s.colour_spread)
    warnings = []
    for p, lp in zip(tiles, logp, strict=True):
        n = int(p.label.rsplit("-", 1)[1])
        if lp[n - 1] < s.colour_doubt:
            x, y = p.center
            warnings.append(f"the {p.label} at ({x:.0f}, {y:.0f}): its number and its colour "
                            f"do not agree (its colour is {int(np.argmax(lp)) + 1}'s)")
    return warnings


def magic_any_copy(image: np.ndarray, pieces: list[CardPiece], warnings: list[str]
                   ) -> tuple[list[CardPiece], list[str]]:
    """Magic Rabbit: the checks that hold for any copy (`vision.cards.magic`), taught or
    not: a dove whose disc shows the hat's black print is none (`bare_hat_doves`:
    a dove is a white token, every copy's hat tile a black top hat), a hat or rabbit far
    from every other tile is not in the line (`off_line_tiles`), nor is a tile off the
    line's band (`off_band_tiles`: a printed table's motifs) or beyond a surely read
    magician (`past_the_magician`). The warnings of the pieces dropped go with them."""
    kept = bare_hat_doves(image, pieces, DOVE_CHECK) if DOVE_CHECK.max_dark < 1 else pieces
    kept = past_the_magician(off_band_tiles(off_line_tiles(kept)))
    return kept, list(warnings_kept(warnings, pieces, kept) or [])


def magic_tiles(image: np.ndarray, pieces: list[CardPiece], warnings: list[str],
                s: ReadSettings) -> tuple[list[CardPiece], list[str]]:
    """Magic Rabbit: the pieces that are none dropped (`magic_any_copy`), then the kept
    tiles' numbers weighed by colour (`magic_colour_numbers`): a dropped tile neither keeps
    a warning nor counts toward the light's cast."""
    kept, warnings = magic_any_copy(image, pieces, warnings)
    kept, more = magic_colour_numbers(image, kept, s)
    return kept, warnings + more


def fit_widths(xy: np.ndarray, widths: np.ndarray, iters: int = 3) -> np.ndarray:
    """Widths predicted by a robust plane fit w = a + b x + c y over the key points (the
    pieces share one real size; perspective makes it vary smoothly across the photo).
    Robust: it starts from the points near the median width, a small ridge keeps the slope
    finite across points that lie in one row (no extrapolation off the row), and the answer
    stays within the range of the widths it kept."""
    n = len(xy)
    if n < 4:
        return np.full(n, np.median(widths)) if n else widths
    med = float(np.median(widths))
    span = max(float(np.ptp(xy)), 1.0)
    A = np.column_stack([np.ones(n), (xy - xy.mean(axis=0)) / span])
    keep = np.abs(widths - med) <= 0.35 * med
    if keep.sum() < 4:
        keep = np.ones(n, bool)
    coef = np.array([med, 0.0, 0.0])
    for _ in range(iters):
        if keep.sum() < 4:
            break
        lam = 0.05 * np.sqrt(keep.sum())  # about 3 % of the slope of well spread points
        Ak = np.vstack([A[keep], [[0.0, lam, 0.0], [0.0, 0.0, lam]]])
        wk = np.concatenate([widths[keep], [0.0, 0.0]])
        coef, *_ = np.linalg.lstsq(Ak, wk, rcond=None)
        pred = A @ coef
        new_keep = np.abs(widths - pred) <= 0.2 * np.maximum(pred, 1.0)
        if new_keep.sum() < 4:
            break
        keep = new_keep
    kept = widths[keep]
    return np.clip(A @ coef, 0.75 * kept.min(), 1.33 * kept.max())


def busy_sure(scores: np.ndarray | None, s: ReadSettings = READ) -> np.ndarray | None:
    """(N,) bool: the key points of at least `s.sure_heat` of a busy look's (N,) `scores`
    (over `s.busy_keys` of them, 4 or more sure ones), else None (an ordinary look)."""
    if scores is None or len(scores) <= s.busy_keys:
        return None
    sure = np.asarray(scores) >= s.sure_heat
    return sure if sure.sum() >= 4 else None


def busy_line(xy: np.ndarray, widths: np.ndarray, scores: np.ndarray | None,
              s: ReadSettings = READ) -> np.ndarray | None:
    """(N,) bool: a busy look's sure key points (`busy_sure`) that lie in the line's band
    (`magic.band_keep` over the sure ones at (N, 2) `xy`, weighed by their heat): Magic
    Rabbit's tiles lie in one line, the table's sure spots anywhere (fresh newspaper mat
    3120: more of them than tiles, their directions turned the shared one 80 degrees).
    The sure ones as they are where no band is found (or it keeps under 4) or
    `s.busy_band` is off, None on an ordinary look."""
    sure = busy_sure(scores, s)
    if sure is None or not s.busy_band:
        return sure
    at = np.flatnonzero(sure)
    keep = band_keep(xy[at], np.asarray(scores, np.float64)[at], widths[at],
                     replace(BAND, sure=s.sure_heat))
    if keep is None or keep.sum() < 4:
        return sure
    out = np.zeros(len(sure), bool)
    out[at[keep]] = True
    return out


def shared_widths(xy: np.ndarray, widths: np.ndarray, scores: np.ndarray | None,
                  s: ReadSettings = READ, sure: np.ndarray | None = None) -> np.ndarray:
    """(N,) widths of the pieces' one shared size at the (N, 2) key points `xy`
    (`fit_widths`). On a busy look (over `s.busy_keys` key points, (N,) `scores` given, 4 or
    more of them at `s.sure_heat` or more) the plane is fitted through the sure ones alone
    and read at every point, clipped to 0.75 x the least and 1.33 x the most of their fitted
    widths (as `fit_widths` clips): the table's many weak spots no longer set the tiles'
    size. `sure`: those key points where the caller has them (`busy_line`)."""
    sure = busy_sure(scores, s) if sure is None else sure
    if sure is None:
        return fit_widths(xy, widths)
    fit = fit_widths(xy[sure], widths[sure])
    A = np.column_stack([np.ones(int(sure.sum())), xy[sure]])
    coef, *_ = np.linalg.lstsq(A, fit, rcond=None)
    out = np.column_stack([np.ones(len(xy)), xy]) @ coef
    return np.clip(out, 0.75 * fit.min(), 1.33 * fit.max())


def cloth_depth_mm(area, xy: np.ndarray) -> np.ndarray:
    """How far each image point (N, 2) lies inside the cloth `area`, in mm of its plane
    (negative: beyond the cloth's edge)."""
    if len(xy) == 0:
        return np.zeros(0)
    q = area.to_plane(xy)
    s_px = float(area.settings.plane_px)
    depth = np.minimum(np.minimum(q[:, 0], q[:, 1]), np.minimum(s_px - q[:, 0], s_px - q[:, 1]))
    return depth / area.settings.px_per_mm


@functools.lru_cache(maxsize=8)
def _ring_index(n: int, r: int) -> np.ndarray:
    """Flat indices, row by row, of an n x n window's border ring `r` px wide (read-only)."""
    edge = np.ones((n, n), bool)
    edge[r:-r, r:-r] = False
    at = np.flatnonzero(edge)
    at.flags.writeable = False
    return at


def kmeans_seeded(data: np.ndarray, k: int, crit: tuple, attempts: int = 1, seed: int = 0):
    """`cv2.kmeans(data, k, None, crit, attempts, KMEANS_PP_CENTERS)` ((N, D) float32
    `data`: (compactness, (N, 1) int32 labels, (k, D) float32 centres)) with its random
    start drawn from `seed`: OpenCV's k-means draws from the calling thread's own generator
    (`cv::theRNG`), which every earlier draw on that thread moves on, so unseeded the same
    photo's result depended on what the process had read before (session 15: a Hop la bille
    photo read twice in a row gave 16 then 14 pieces). Seed 0 is the state a fresh thread
    starts in (OpenCV's `RNG(0)` is its default state), so a photo read first in a new
    process reads the same."""
    cv2.setRNGSeed(seed)
    return cv2.kmeans(data, k, None, crit, attempts, cv2.KMEANS_PP_CENTERS)


def snap_card(image: np.ndarray, area, p: np.ndarray, size_mm=(60.0, 90.0),
              window_mm: float = 150.0, min_diff: float = 22.0, px_per_mm: float = 1.0,
              table_colours: tuple[int, ...] = (1,), clear: list | None = None):
    """A Hop la bille card's outline near plane point `p`, found in the cloth plane: the
    region that differs from the table around it (Lab distance), its minimum-area rectangle,
    looked for in a window resampled at `px_per_mm` (a card is 60 x 90 px there: plenty for
    its rectangle, at half the cost of the cloth plane's 1.5 px/mm). Returns (centre (2,)
    plane px, u-axis angle in the plane, degrees, modulo 180) or None when no card-sized
    rectangle is there. `table_colours`: the numbers of table colours tried in turn on the
    one window (more than one: a patterned table's, from its border ring); the first that
    finds a card gives it."""
    ppm = min(float(px_per_mm), area.settings.px_per_mm)
    f = ppm / area.settings.px_per_mm  # window px per plane px
    n = int(round(window_mm * ppm))
    off = np.asarray(p, float) - n / (2 * f)  # the window's corner, plane px
    s_px = float(area.settings.plane_px)  # the cloth: cards lie beyond it
    m = 4.0 * area.settings.px_per_mm
    g = np.arange(n) / f
    rows = (g + off[1] > -m) & (g + off[1] < s_px + m)
    cols = (g + off[0] > -m) & (g + off[0] < s_px + m)
    if rows.all() and cols.all():  # the window lies on the cloth: no card there
        return None
    # (`g` grows: the cloth's rows and columns are each one run, or none)
    r0, r1 = (int(i[0]), int(i[-1]) + 1) if (i := np.flatnonzero(rows)).size else (0, 0)
    c0, c1 = (int(i[0]), int(i[-1]) + 1) if (i := np.flatnonzero(cols)).size else (0, 0)
    T = np.array([[1 / f, 0, off[0]], [0, 1 / f, off[1]], [0, 0, 1]], float)
    M = area.H_plane_to_img @ T
    win = cv2.warpPerspective(image, M, (n, n), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                              borderMode=cv2.BORDER_REPLICATE)
    lab = cv2.cvtColor(cv2.GaussianBlur(win, (0, 0), 0.67 * ppm), cv2.COLOR_BGR2LAB)
    r = max(1, int(round(2.7 * ppm)))  # the window's border ring: about 2.7 mm
    known = None
    if clear:  # cards known already ((4, 2) image corners each): not this one, nor a bridge
        #        to it, nor the table's colour
        known = np.zeros((n, n), np.uint8)
        Minv = np.linalg.inv(M)
        for q in clear:
            w = np.column_stack([np.asarray(q, float), np.ones(len(q))]) @ Minv.T
            w = w[:, :2] / w[:, 2:3]
            cv2.fillConvexPoly(known, np.round(w.mean(axis=0) + (w - w.mean(axis=0)) * 1.08
                                               ).astype(np.int32), 1)
    flat, at = lab.reshape(-1, 3), _ring_index(n, r)  # (the ring's pixels, row by row)
    ring = flat[at] if known is None else flat[at[known.ravel()[at] == 0]]
    if len(ring) < r * n:  # the ring mostly on known cards: all of it
        ring = flat[at]
    planes = [lab[..., ch].astype(np.float32) for ch in range(3)]  # (the distances below:
    #                                         float32, as before; contiguous planes, faster)
    for tc in table_colours:  # (the table's colours: the next count when none is found)
        if tc > 1:  # a patterned table (squares): its colours that cover a fifth of the
            #          ring or more, each pixel's distance from the nearest
            crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 10, 1.0)
            _, lbl, cen = kmeans_seeded(ring.astype(np.float32), tc, crit, 1)
            share = np.bincount(lbl.ravel(), minlength=tc) / len(lbl)
            refs = cen[share >= 0.2]
        else:
            refs = median_u8(ring)[None]
        # Lab distance above min_diff, compared squared: the differences are multiples of 0.5,
        # so this is exactly the square-root test
        d2 = None  # (the nearest colour's; one colour: its own)
        for ref in refs:
            e2 = np.zeros((n, n), np.float32)
            for ch in range(3):
                d = planes[ch] - np.float32(ref[ch])
                e2 += d * d
            d2 = e2 if d2 is None else np.minimum(d2, e2)
        if d2 is None:
            d2 = np.full((n, n), np.inf, np.float32)
        mask = (d2 > min_diff * min_diff).astype(np.uint8)
        mask[r0:r1, c0:c1] = 0  # (the cloth: `rows` x `cols`)
        if known is not None:
            mask[known > 0] = 0
        # fill the card's inside (drawings match the table's colour sometimes), then cut thin
        # bridges to its neighbours and the cloth
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        k = 2 * int(round(2.3 * ppm)) + 1  # about 4.7 mm
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
        c = n // 2
        area_px = 0
        if mask[c, c]:  # the blob under the centre: a 4-connected fill, as the labelling below
            filled = np.zeros((n + 2, n + 2), np.uint8)
            area_px, _, _, (x0, y0, bw, bh) = cv2.floodFill(
                mask, filled, (c, c), 1, 0, 0, 4 | cv2.FLOODFILL_MASK_ONLY | (1 << 8))
            blob = filled[1 + y0:1 + y0 + bh, 1 + x0:1 + x0 + bw]
        if area_px < 0.2 * size_mm[0] * size_mm[1] * ppm * ppm:  # none there, or a speck (a
            #   drawing's middle inside a hole of the card's mask): the largest blob
            cnt, lab_img, stats, _ = cv2.connectedComponentsWithStats(mask, 4)
            if cnt < 2:
                continue
            k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
            area_px = stats[k, cv2.CC_STAT_AREA]
            x0, y0, bw, bh = (int(v) for v in stats[k, :4])
            blob = (lab_img[y0:y0 + bh, x0:x0 + bw] == k).astype(np.uint8)
        if area_px < 20 * f * f:
            continue
        rect = mask_min_area_rect(blob, (x0, y0))
        (cx, cy) = rect[0]
        short, eu, long_, _ = rect_sides(rect)  # the short side is the card's u axis
        want = np.array(size_mm) * ppm
        # the plane's scale is only approximate beyond the cloth: a loose size, a firm shape
        if not (0.65 * want[0] <= short <= 1.35 * want[0] and
                abs(long_ / max(short, 1.0) - want[1] / want[0]) <= 0.2):
            continue
        u_ang = float(np.degrees(np.arctan2(eu[1], eu[0])))
        # (pixel centres: window pixel k covers plane [k, k + 1) / f)
        return np.array([cx, cy]) / f + off, float(u_ang % 180.0)
    return None


def _frame_points(q, f: float, k: float) -> np.ndarray:
    """A frame's corners (`q`, (4, 2) photo px) at scale `f` (pixel centres), shrunk (`k` <
    1) or grown (`k` > 1) around its centre, rounded to whole pixels (int32)."""
    q = (np.asarray(q, float) + 0.5) * f - 0.5
    c = q.mean(axis=0)
    return np.round(c + (q - c) * k).astype(np.int32)


def _frames_mask(frames, f: float, shape: tuple[int, int], k: float) -> np.ndarray:
    """A uint8 mask of `shape` (the photo at scale `f`), 1 inside each of `frames` ((4, 2)
    photo corners each) shrunk (`k` < 1) or grown (`k` > 1) around its centre."""
    mask = np.zeros(shape, np.uint8)
    frames = list(frames)
    if not frames:
        return mask
    q = np.asarray(frames, float)  # (N, 4, 2): `_frame_points` of all at once, the very
    q = (q + 0.5) * f - 0.5  # same figures (session 24, H7: a tenth of a ms a mask less)
    c = q.mean(axis=1, keepdims=True)
    for pts in np.round(c + (q - c) * k).astype(np.int32):
        cv2.fillConvexPoly(mask, pts, 1)
    return mask


def frame_box_mask(frame: np.ndarray, f: float, shape: tuple[int, int]
                   ) -> tuple[np.ndarray, tuple[int, int]]:
    """`_frames_mask([frame], f, shape, 1.0)` over the frame's bounding box alone (in the
    photo at scale `f`, of `shape`): (the uint8 0/1 mask of that box, its top-left
    (x0, y0)); the box is empty (0 x 0) when the frame lies off the photo."""
    xs, ys = _frame_points_1(frame, f)
    x0, y0 = max(min(xs), 0), max(min(ys), 0)
    x1 = min(max(xs), shape[1] - 1) + 1
    y1 = min(max(ys), shape[0] - 1) + 1
    mask = np.zeros((max(y1 - y0, 0), max(x1 - x0, 0)), np.uint8)
    if mask.size:
        cv2.fillConvexPoly(mask, np.array([xs, ys], np.int32).T - np.array([x0, y0], np.int32),
                           1)
    return mask, (x0, y0)


def _frame_points_1(q, f: float) -> tuple[list[int], list[int]]:
    """`_frame_points(q, f, 1.0)` as (x's, y's) Python ints: the same sums in numpy's order
    on Python floats (a (4, 2) mean over its rows adds them one after another; `round`
    halves to even as `np.round`), for a fifth of the time."""
    q = [((float(x) + 0.5) * f - 0.5, (float(y) + 0.5) * f - 0.5) for x, y in q]
    cx = (((q[0][0] + q[1][0]) + q[2][0]) + q[3][0]) / 4
    cy = (((q[0][1] + q[1][1]) + q[2][1]) + q[3][1]) / 4
    return ([round(cx + (x - cx) * 1.0) for x, _ in q],
            [round(cy + (y - cy) * 1.0) for _, y in q])


_NUMBER_SMOOTH = threading.local()  # per thread: {"sigma": px, id(image): (image, smoothed)}
#                                     while `smoothing_numbers` holds


@contextmanager
def smoothing_numbers(sigma: float):
    """Within this (on this thread), `number_source` gives the Troetofanten corner-index
    model a copy of the image smoothed by a Gaussian of s.d. `sigma` px (0: the image as it
    is), made once per image; nothing is kept outside it."""
    outer = getattr(_NUMBER_SMOOTH, "memo", None)
    _NUMBER_SMOOTH.memo = {"sigma": float(sigma)} if sigma > 0 else None
    try:
        yield
    finally:
        _NUMBER_SMOOTH.memo = outer


def number_source(image: np.ndarray) -> np.ndarray:
    """The image the corner-index crops are cut from: `image` ((H, W, 3) uint8 BGR), or its
    smoothed copy within `smoothing_numbers` (the caller must not write into it)."""
    memo = getattr(_NUMBER_SMOOTH, "memo", None)
    if memo is None:
        return image
    kept = memo.get(id(image))
    if kept is None or kept[0] is not image:
        kept = (image, cv2.GaussianBlur(image, (0, 0), memo["sigma"]))
        memo[id(image)] = kept
    return kept[1]


def compressed_sigma(jpeg_quality: int | None, scale: float, s: ReadSettings = READ) -> float:
    """The s.d. (working px) `smoothing_numbers` takes for a photo of `jpeg_quality` (None:
    not a JPEG) at `scale` photo px per working px (`Photo.scale`): the first
    `compressed_smooth` step whose quality it does not exceed, its s.d. / scale (not grown
    for a photo enlarged to the working size); else 0 (a
    photo shrunk more than 2 x to the working size, its blocks under 4 px, too)."""
    if jpeg_quality is None or scale > 2.0:
        return 0.0
    for quality, sigma in s.compressed_smooth:
        if jpeg_quality <= quality:
            return sigma / max(scale, 1.0)
    return 0.0


_SMALL_HSV = threading.local()  # per thread: {"image": the photo, scale: its HSV, ("all",
#   scale, ranges): its look histogram (`look_hist_all`), "closed": the closed looks
#   (`closed_regions`)} while `keeping_small_hsv` holds


@contextmanager
def keeping_small_hsv(image: np.ndarray):
    """Within this, `small_hsv` of `image` is worked out once per scale (teach mode's
    `look_pixels` asks for the one the reader's look made, the same photo at the same
    scale), and so are `look_hist_all` and `closed_regions`; nothing is kept outside it
    (per thread: another thread, a pool's worker, keeps its own or none). Nested, the
    outer one's memo is kept on (the same photo: shared) and back in force after the
    inner one."""
    outer = getattr(_SMALL_HSV, "memo", None)
    _SMALL_HSV.memo = outer if outer is not None and outer["image"] is image \
        else {"image": image}
    try:
        yield
    finally:
        _SMALL_HSV.memo = outer


def small_hsv(image: np.ndarray, f: float) -> np.ndarray:
    """The photo at scale `f` (area) in HSV (the caller must not write into it: within
    `keeping_small_hsv` it is shared)."""
    memo = getattr(_SMALL_HSV, "memo", None)
    if memo is not None and memo["image"] is image and f in memo:
        return memo[f]
    hsv = cv2.cvtColor(area_scaled(image, f), cv2.COLOR_BGR2HSV)
    if memo is not None and memo["image"] is image:
        memo[f] = hsv
    return hsv


def look_hist_all(image: np.ndarray, hsv: np.ndarray, f: float, ranges: list) -> np.ndarray:
    """The `LOOK_BINS` histogram (float32) of `hsv` (`small_hsv(image, f)`) over `ranges`:
    within `keeping_small_hsv` worked out once per scale and ranges (the backs' look and
    `design_regions` ask for it several times a read; read-only there). Kept only where
    `hsv` is the memo's own `small_hsv(image, f)` (another array of the same photo and
    scale, say one written into, is worked out afresh: the key holds no content)."""
    memo = getattr(_SMALL_HSV, "memo", None)
    key = ("all", f, tuple(ranges))
    own = memo is not None and memo["image"] is image and memo.get(f) is hsv
    if own and key in memo:
        return memo[key]
    h = cv2.calcHist([hsv], [0, 1], None, LOOK_BINS, ranges)
    if own:
        h.flags.writeable = False
        memo[key] = h
    return h


def _look_hsv(image: np.ndarray, centres: np.ndarray, widths: np.ndarray,
              s: ReadSettings) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """The photo at `look_scale` in HSV (`small_hsv`), the cards' `centres` and `widths` at
    that scale, and the histogram ranges of `LOOK_BINS`: hue, and saturation of coloured
    pixels only (a grey's hue is noise)."""
    f = s.look_scale
    centres, widths = np.asarray(centres, float) * f, np.asarray(widths, float) * f
    return small_hsv(image, f), centres, widths, [0, 180, s.look_min_sat, 256]


def common_colours(h_in: np.ndarray, h_all: np.ndarray, mask: np.ndarray, ratio: float,
                   least: float) -> tuple[np.ndarray, float]:
    """The histogram bins (colours) whose share of the pixels inside `mask` (their
    histogram `h_in`; `h_all` the whole photo's) is at least `ratio` x their share of the
    rest of the photo's pixels (per pixel, grey ones included), with at least `least`
    pixels inside: (bool bins, the mask's pixel count, at least 1)."""
    n_in = max(float(np.count_nonzero(mask)), 1.0)
    n_rest = max(float(mask.size) - n_in, 1.0)
    share = (h_in / n_in) / np.maximum((h_all - h_in) / n_rest, 1.0 / n_rest)
    return (share >= ratio) & (h_in >= least), n_in


def look_alike_regions(image: np.ndarray, frames: list[np.ndarray], centres: np.ndarray,
                       widths: np.ndarray, settings: ReadSettings = READ,
                       masks: list | None = None, faces: list[np.ndarray] = (),
                       ends: list | None = None
                       ) -> list[tuple[np.ndarray, float, float, float]]:
    """Card-sized regions that share the look of the face-down cards at `frames` ((4, 2)
    corners each): all backs of a box share one design. The look is the backs' hue and
    saturation histogram over the photo's (the colours far more common on the backs than
    anywhere else, and than on the face-up cards read: `faces`, their frames); the photo's
    pixels of those colours, closed over the design's other parts, make regions; a region
    is a card when its minimum-area rectangle has a card's shape, about the width of the
    cards read nearest to it (`centres` (N, 2), `widths` (N,) px), and it fills it.
    Returns (centre (2,), angle of the rectangle's short side in degrees modulo 180, its
    short side px, long side / short side) per region. Worked out on the photo at
    `look_scale`. `ends`: the caller's list, given the regions that fill their rectangle
    but have no card's shape (`card_shaped`'s)."""
    s = settings
    if not frames or not len(widths):
        return []
    hit, centres, widths = look_hit(image, frames, centres, widths, s, faces)
    return card_shaped(hit, centres, widths, s.look_size, s.look_fill, s.look_shape,
                       s.look_scale, s, masks=masks, ends=ends, split=s.split_touching,
                       flat=s.flat_shape)


def _masked_hist(hsv: np.ndarray, mask: np.ndarray, ranges: list) -> np.ndarray:
    """`cv2.calcHist([hsv], [0, 1], mask, LOOK_BINS, ranges)` over the bounding box of the
    uint8 `mask`'s pixels alone (the same counts; a few cards' box: a fifth of the time)."""
    x, y, w, h = cv2.boundingRect(mask)
    if w and h:
        hsv, mask = hsv[y:y + h, x:x + w], mask[y:y + h, x:x + w]
    return cv2.calcHist([hsv], [0, 1], mask, LOOK_BINS, ranges)


def look_hit(image: np.ndarray, frames: list[np.ndarray], centres: np.ndarray,
             widths: np.ndarray, settings: ReadSettings = READ, faces: list[np.ndarray] = ()
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`look_alike_regions`' look, unclosed: (the uint8 mask of the photo at `look_scale`,
    255 where a pixel has a colour of the backs at `frames` (and not of the face-up cards
    at `faces`), the cards' `centres` (N, 2) and `widths` (N,) at that scale). `frames`
    must not be empty."""
    s = settings
    f = s.look_scale
    hsv, centres, widths, ranges = _look_hsv(image, centres, widths, s)
    # the cards' inside (their rim may be the faces' colour)
    mask = _frames_mask(frames, f, hsv.shape[:2], 0.85)
    h_back = _masked_hist(hsv, mask, ranges)
    h_all = look_hist_all(image, hsv, f, ranges)
    # each colour's share of the backs' area over its share of the rest of the photo's area
    # (per pixel, grey ones included: where the backs are most of the coloured pixels, a
    # share of the coloured pixels alone cannot be 6 x larger on them than in the photo)
    # a back's colour: far more common on the backs than elsewhere, and not rare on them
    look, n_back = common_colours(h_back, h_all, mask, s.look_ratio, 0.01 * h_back.sum())
    if len(faces):  # nor about as common on the face-up cards read (`look_faces`)
        on = _frames_mask(faces, f, hsv.shape[:2], 0.85)
        h_on = _masked_hist(hsv, on, ranges)
        n_on = max(float(np.count_nonzero(on)), 1.0)
        look &= h_back / n_back >= s.look_faces * h_on / n_on
    look = look.astype(np.float32)
    return cv2.calcBackProject([hsv], [0, 1], look, ranges, 255), centres, widths


def closed_look(hit: np.ndarray, widths: np.ndarray, settings: ReadSettings = READ,
                close: float | None = None) -> np.ndarray:
    """`card_shaped`'s closed mask of `hit` (uint8, the photo at `look_scale`): closed by an
    ellipse of `close` (`look_close` where None) x the narrowest of `widths` (px at that
    scale), then opened by 3 x 3."""
    k = _close_size(widths, settings, close)
    hit = cv2.morphologyEx(hit, cv2.MORPH_CLOSE, cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (k, k)))
    return cv2.morphologyEx(hit, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


def _close_size(widths: np.ndarray, s: ReadSettings, close: float | None) -> int:
    """`closed_look`'s ellipse's size, px (odd, at least 3)."""
    width = float(np.min(widths))
    return max(3, int(round((s.look_close if close is None else close) * width)) | 1)


CLOSED_KEPT = 16  # `closed_regions` keeps this many per read (~1.8 MB each at 640 x 480;
#   a read asks for up to ~10 alike: 8 kept thrashed on committed 0010's 4 designs)


def closed_regions(hit: np.ndarray, widths: np.ndarray, settings: ReadSettings = READ,
                   close: float | None = None) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
    """`closed_look` of `hit` and its 4-connected regions: (the closed uint8 mask, then
    `cv2.connectedComponentsWithStats`' count, int32 labels and stats). Within
    `keeping_small_hsv` the last `CLOSED_KEPT` are kept for the read, found again by
    `hit`'s content and the closing's size (a design's look comes out alike each time
    `design_regions` is asked in a read: `look_off_cards` found 82 of its 100 made
    before; session 24, H7); what is returned is read-only."""
    k = _close_size(widths, settings, close)
    memo = getattr(_SMALL_HSV, "memo", None)
    kept = memo.setdefault("closed", []) if memo is not None else None
    count = int(np.count_nonzero(hit))
    for i, (h, kk, cc, out) in enumerate(kept or ()):
        if kk == k and cc == count and h.shape == hit.shape and np.array_equal(h, hit):
            kept.append(kept.pop(i))  # (the least lately used go first)
            return out
    closed = closed_look(hit, widths, settings, close)
    n, lab, stats = regions_4((closed > 0).astype(np.uint8))
    out = (closed, n, lab, stats)
    if kept is not None:
        for a in (closed, lab, stats):
            a.flags.writeable = False
        kept.append((hit.copy(), k, count, out))
        del kept[:-CLOSED_KEPT]
    return out


def regions_4(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """`cv2.connectedComponentsWithStats(mask, 4)`'s count, (H, W) int32 labels and stats
    of the uint8 0/1 `mask` (H, W) (no centroids), the labelling run over the bounding box
    of its non-zero pixels alone, that box's top row and left column moved back to even
    ones: OpenCV's default 4-connected labelling scans two rows at a time, so on rows
    paired as in the whole mask the same labels come in the same order (an odd top row
    reordered them on 4 of 78 masks of the reader; on the box so aligned, 0 of 78 and of
    3600 random ones: `tests/vision/cards/test_regions.py`). The background's row of the
    stats is the whole mask's (its zero pixels' box and count). The reader's closed looks
    cover a few per cent of the photo: about half the time of labelling it whole."""
    x, y, w, h = cv2.boundingRect(mask)
    x0, y0 = x - x % 2, y - y % 2
    if w == 0 or (x0 == 0 and y0 == 0 and x + w == mask.shape[1] and y + h == mask.shape[0]):
        n, lab, stats, _ = cv2.connectedComponentsWithStats(mask, 4)
        return n, lab, stats
    n, part, stats, _ = cv2.connectedComponentsWithStats(mask[y0:y + h, x0:x + w], 4)
    lab = np.zeros(mask.shape, np.int32)
    lab[y0:y + h, x0:x + w] = part
    stats[1:, cv2.CC_STAT_LEFT] += x0
    stats[1:, cv2.CC_STAT_TOP] += y0
    stats[0, :4] = cv2.boundingRect((mask == 0).view(np.uint8))  # (some lie off the box)
    stats[0, cv2.CC_STAT_AREA] = mask.size - int(stats[1:, cv2.CC_STAT_AREA].sum())
    return n, lab, stats


def card_shaped(hit: np.ndarray, centres: np.ndarray, widths: np.ndarray,
                size: tuple[float, float], fill: float, shape: tuple[float, float],
                scale: float, settings: ReadSettings = READ, piles: bool = False,
                masks: list | None = None, ends: list | None = None, split: bool = False,
                flat: tuple[float, float] | None = None, close: float | None = None,
                squat: tuple[float, float, float] | None = None
                ) -> list[tuple[np.ndarray, float, float, float]]:
    """The card-shaped regions of the mask `hit` (the photo at `scale`, non-zero where a
    back's colours are), closed over the design's other parts: a region's minimum-area
    rectangle has a card's shape (long side / short side within `shape`), its short side
    is `size` x the width of the cards read nearest to it (`centres` (N, 2), `widths` (N,):
    at `scale`) and it fills `fill` of it. With `piles`, a region a card high and
    `pile_width` x the cards' width across is two cards of a spread pile, one at each end.
    With `split`, a region that is no card and holds two cards' area is looked at again
    unclosed (`touching_cards`: cards lying edge to edge, which the closing joins over
    their rims). Returns (centre (2,) photo px, angle of the rectangle's short side in
    degrees modulo 180, its short side photo px, long side / short side) per card.
    `ends`: the caller's list, given (centre (2,) photo px, ((unit vector, length photo px)
    of each of the rectangle's two sides)) of every other region that fills `fill` of its
    rectangle (a card partly under another, for `end_backs`). `flat`: (longest ratio, most
    short side x the width): a longer rectangle is a card too where its short side is
    foreshortened (`flat_shape`), though wider than a strip of a card under another
    (`strip_across`). `close`: the closing's size, x the narrowest card's width
    (`look_close` where None). `squat`: (least long / short ratio, fill, reach): a region
    squarer than `shape[0]`, its short side `size[0]` to `pile_width[0]` x the width, is
    a card too where it fills `fill` of its rectangle and no card (`centres`) lies on
    either end or within `reach` x the width beyond it (`_beyond_ends`: a card seen
    foreshortened along its length; with a card on its end it is the end of a card under
    that one, `ends`)."""
    s = settings
    f = scale
    width = float(np.min(widths))
    lo, hi = size
    least = fill * lo * lo * 1.25 * width * width  # the fewest pixels a card has
    raw = hit
    hit, n, lab, stats = closed_regions(hit, widths, s, close)
    if masks is not None:  # the caller's: the closed mask (read-only)
        masks.append(hit)
    out = []
    for j in range(1, n):
        x0, y0, bw, bh, a = (int(v) for v in stats[j])
        if a < least:
            continue
        blob = (lab[y0:y0 + bh, x0:x0 + bw] == j).astype(np.uint8)
        rect = mask_min_area_rect(blob, (x0, y0))
        short, eu, long_, ev = rect_sides(rect)
        near = near_width(centres, widths, rect[0])
        ang = float(np.degrees(np.arctan2(eu[1], eu[0])) % 180.0)
        centre = np.array(rect[0], float)
        filled = a >= fill * short * long_
        ratio = long_ / max(short, 1.0)
        if filled and lo * near <= short <= hi * near and shape[0] <= ratio and (
                ratio <= shape[1] or flat is not None and ratio <= flat[0]
                and s.strip_across[1] * near < short <= flat[1] * near):
            out.append(((centre + 0.5) / f - 0.5, ang, short / f, long_ / short))
        elif filled and piles and s.pile_width[0] * near <= short <= s.pile_width[1] * near \
                and shape[0] <= long_ / near <= shape[1] and \
                long_ / short < shape[0]:  # too square for one card
            # two cards of a pile, one shifted along the other's width: one at each end
            w = min(near, short / s.pile_width[0])
            u = eu / max(float(np.hypot(*eu)), 1e-9)
            for sign in (-1.0, 1.0):
                c = centre + sign * 0.5 * (short - w) * u
                out.append(((c + 0.5) / f - 0.5, ang, w / f, long_ / w))
        elif squat is not None and a >= squat[1] * short * long_ and \
                lo * near <= short < s.pile_width[0] * near and squat[0] <= ratio < shape[0] \
                and not _beyond_ends(centre, eu, short, ev, long_, centres, widths,
                                     squat[2] * near):  # (after the piles: a spread pile
            #   of two is as square, but wider than one card)
            out.append(((centre + 0.5) / f - 0.5, ang, short / f, long_ / short))
        elif split and a >= 2 * least and (parts := touching_cards(
                raw[y0:y0 + bh, x0:x0 + bw] & (blob * 255), (x0, y0), centres, widths,
                size, fill, shape, least)):
            out += [((c + 0.5) / f - 0.5, an, sh / f, r) for c, an, sh, r in parts]
        elif filled and ends is not None:
            sides = tuple((e / max(float(np.hypot(*e)), 1e-9), n / f)
                          for e, n in ((eu, short), (ev, long_)))
            ends.append(((centre + 0.5) / f - 0.5, sides))
    return out


def _beyond_ends(centre: np.ndarray, eu: np.ndarray, short: float, ev: np.ndarray,
                 long_: float, centres: np.ndarray, widths: np.ndarray, reach: float) -> bool:
    """Whether a card (`centres` (N, 2), `widths` (N,)) lies beyond either end of the
    rectangle centred at `centre`, its short side `short` along `eu`, its long side `long_`
    along `ev` (all in one scale's pixels): its centre off the rectangle's middle line by
    under half the two widths, and along it past the end's inner tenth of a width, within
    `reach` and a card's height beyond the end (a card lying on that end, or touching it)."""
    if not len(centres):
        return False
    aspect = SPECS["troetofanten"].aspect
    u = eu / max(float(np.hypot(*eu)), 1e-9)
    v = ev / max(float(np.hypot(*ev)), 1e-9)
    d = np.asarray(centres, float) - centre
    across, along = np.abs(d @ u), np.abs(d @ v)
    w = np.asarray(widths, float)
    return bool(((across < 0.5 * (short + w)) & (along > 0.5 * long_ - 0.1 * w)
                 & (along < 0.5 * long_ + reach + aspect * w)).any())


def touching_cards(raw: np.ndarray, offset: tuple[int, int], centres: np.ndarray,
                   widths: np.ndarray, size: tuple[float, float], fill: float,
                   shape: tuple[float, float], least: float,
                   necks: tuple[float, ...] = (0.6, 0.7, 0.8)
                   ) -> list[tuple[np.ndarray, float, float, float]]:
    """The cards of one closed region of `card_shaped` that has no card's shape: `raw`
    (uint8, the region's box cut at `offset` from the unclosed mask, 0 off the region).
    Cards lying edge to edge join into one region once closed over their rims: unclosed,
    its 4-connected parts are looked at, each with its holes filled (a medallion of
    another colour). Cards overlapping at a corner stay one part: a part of two cards'
    area whose inside narrows between two cores (the pixels at least `necks[0]` x the part's
    largest distance from its outline) is cut between them, each pixel to the nearer core.
    A part that is no card and has one core there (two cards overlapping by half narrow
    less) is cut at the next of `necks` that gives it two, where every piece is a card.
    A piece is a card by `card_shaped`'s own tests (`size` x the nearest cards' width,
    `shape`, `fill`; `least` pixels). Returns (centre (2,), angle of the short side in
    degrees modulo 180, short side, long / short side) per card, in the mask's pixels."""
    lo, hi = size

    def card(part: np.ndarray):
        contours, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE,
                                       offset=offset)
        cnt = max(contours, key=cv2.contourArea)
        a = cv2.contourArea(cnt) + 0.5 * cv2.arcLength(cnt, True)  # about its pixels
        rect = cv2.minAreaRect(cnt)
        short, eu, long_, _ = rect_sides(rect)
        near = near_width(centres, widths, rect[0])
        if a >= fill * short * long_ and lo * near <= short <= hi * near and \
                shape[0] <= long_ / max(short, 1.0) <= shape[1]:
            return (np.array(rect[0], float),
                    float(np.degrees(np.arctan2(eu[1], eu[0])) % 180.0), short,
                    long_ / short)
        return None

    n, lab, stats, _ = cv2.connectedComponentsWithStats((raw > 0).astype(np.uint8), 4)
    out = []
    for j in range(1, n):
        if stats[j, cv2.CC_STAT_AREA] < 0.5 * least:
            continue
        contours, _ = cv2.findContours((lab == j).astype(np.uint8), cv2.RETR_EXTERNAL,
                                       cv2.CHAIN_APPROX_NONE)
        part = np.zeros(raw.shape, np.uint8)
        cv2.drawContours(part, contours, -1, 1, -1)  # (its holes filled)
        if np.count_nonzero(part) < least:
            continue
        if np.count_nonzero(part) < 2 * least:  # one card, or none
            if (found := card(part)) is not None:
                out.append(found)
            continue
        # two cards' area: cut at a neck
        d = cv2.distanceTransform(np.pad(part, 1), cv2.DIST_L2, 5)[1:-1, 1:-1]
        cores, cut = cut_at_neck(part, d, necks[0], least, card)
        if cores > 1:
            out += cut
            continue
        if (found := card(part)) is not None:
            out.append(found)
            continue
        for neck in necks[1:]:  # no card whole: a deeper neck, where every piece is a card
            cores, cut = cut_at_neck(part, d, neck, least, card)
            if cores > 1 and len(cut) == cores:
                out += cut
                break
    return out


def cut_at_neck(part: np.ndarray, d: np.ndarray, neck: float, least: float, card
                ) -> tuple[int, list]:
    """The cores of the uint8 mask `part` (`d`: each pixel's distance from its outline):
    its pixels at least `neck` x the largest distance, and, where there are two or more,
    the cards its pieces make (each pixel to the nearer core; `card` of each piece of at
    least `least` pixels, where it is one): (the count of cores, [cards])."""
    cores = (d >= neck * float(d.max())).astype(np.uint8)
    k, core_lab = cv2.connectedComponents(cores, connectivity=8)
    if k < 3:
        return k - 1, []
    _, nearest = cv2.distanceTransformWithLabels(1 - cores, cv2.DIST_L2, 5,
                                                 labelType=cv2.DIST_LABEL_CCOMP)
    out = []
    for c in range(1, k):  # (`nearest` numbers the cores its own way)
        ids = np.unique(nearest[core_lab == c])
        piece = (np.isin(nearest, ids) & (part > 0)).astype(np.uint8)
        if np.count_nonzero(piece) >= least and (found := card(piece)) is not None:
            out.append(found)
    return k - 1, out


def design_regions(image: np.ndarray, centres: np.ndarray, widths: np.ndarray,
                   settings: ReadSettings = READ, masks: list | None = None,
                   ends: list | None = None
                   ) -> list[tuple[np.ndarray, float, float, float]]:
    """Card-shaped regions of one colour where no face-down card was read to learn the
    backs' look from (a copy whose backs the card classifier does not know: edition 2's
    are never read as `back`): a back is a card of one coloured design all over, where a
    face-up card is mostly white paper. The candidate colours: hue and saturation bins of
    coloured pixels that, with their neighbour bins, cover `design_min` of a card's area
    (the cards read tell its size), leaving out the table's (a bin on more than
    `design_table` cards' area, and the bins beside it); each group of touching bins is
    one design, its pixels make regions (`card_shaped`, sized by the cards read nearest:
    `design_size`, `design_fill`; closed again over `design_reclose` for the cards a motif
    of another colour cut in parts, kept a card's width from those found before). Only
    the designs found in nearly the most regions are kept (`one_design`,
    `one_design_margin`; cards closer than `pile_apart` widths are one region), with their
    masks and `ends`. Same returns as `look_alike_regions`."""
    s = settings
    if not len(widths):
        return []
    hsv, centres, widths, ranges = _look_hsv(image, centres, widths, s)
    h = look_hist_all(image, hsv, s.look_scale, ranges)
    card = SPECS["troetofanten"].aspect * float(np.median(widths)) ** 2  # a card's area, px
    table = cv2.dilate((h > s.design_table * card).astype(np.uint8), np.ones((3, 3), np.uint8))
    near = cv2.boxFilter(h, -1, (3, 3), normalize=False, borderType=cv2.BORDER_CONSTANT)
    cand = ((h > 0) & (near >= s.design_min * card) & (table == 0)).astype(np.uint8)
    n, groups = cv2.connectedComponents(cand, connectivity=8)
    designs: list[tuple[list, list, int, list]] = []  # (its cards, its masks, in how
    #   many regions it found cards, its regions under another card (`ends`)) per design
    for g in range(1, n):
        look = (groups == g).astype(np.float32)
        if h[look > 0].sum() < s.design_min * card:
            continue
        hit = cv2.calcBackProject([hsv], [0, 1], look, ranges, 255)
        mine: list = []
        my_ends: list | None = [] if ends is not None else None
        found = card_shaped(hit, centres, widths, s.design_size, s.design_fill, s.look_shape,
                            s.look_scale, s, True, mine, my_ends, s.split_touching,
                            s.flat_shape, squat=s.design_squat)
        if s.design_reclose > 0:  # (a motif of another colour across the card cut it)
            found += [r for r in card_shaped(
                hit, centres, widths, s.design_size, s.design_fill, s.look_shape,
                s.look_scale, s, True, None, None, s.split_touching, s.flat_shape,
                s.design_reclose)
                if not any(np.hypot(*(r[0] - o[0])) < o[2] for o in found)]
        if s.design_pattern > 0:  # (a flat patch of colour is no card's back)
            found = [r for r in found if patterned(image, r[0], r[1], r[2], s.design_pattern)]
        regions = sum(not any(np.hypot(*(r[0] - o[0])) < s.pile_apart * r[2]
                              for o in found[:k]) for k, r in enumerate(found))  # (a pile
        designs.append((found, mine if found else [], regions, my_ends or []))  # of two:
        #   one region)
    return one_design(designs, masks, s.one_design, ends, s.one_design_margin)


def patterned(image: np.ndarray, centre, angle: float, width: float, least: float,
              inner: float = 0.7) -> bool:
    """Whether the Troetofanten card centred at `centre` (photo px), its u axis at `angle`
    degrees, `width` px wide, shows a design in the middle of its frame (`inner` x it about
    its centre) of the BGR uint8 `image`: the grey levels there spread (std) by at least
    `least` x their mean. A card's back is a pattern (stripes, a medallion); a patch of one
    flat colour the size of a card (a picture printed on the table) is not. True where
    the middle holds under 4 pixels (nothing to judge)."""
    frame = card_frame(np.asarray(centre, float), float(angle), float(width),
                       SPECS["troetofanten"].aspect)
    mid = (frame - frame.mean(axis=0)) * inner + frame.mean(axis=0)
    h, w = image.shape[:2]
    x0, y0 = np.maximum(np.floor(mid.min(axis=0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(mid.max(axis=0)).astype(int) + 1, [w, h])
    if x1 - x0 < 2 or y1 - y0 < 2:
        return True
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [np.round(mid - [x0, y0]).astype(np.int32)], 1)
    if np.count_nonzero(mask) < 4:
        return True
    grey = cv2.cvtColor(np.ascontiguousarray(image[y0:y1, x0:x1]), cv2.COLOR_BGR2GRAY)
    mean, std = cv2.meanStdDev(grey, mask=mask)
    return float(std[0, 0]) >= least * max(float(mean[0, 0]), 1.0)


def one_design(designs: list[tuple[list, list, int, list]], masks: list | None, most: bool,
               ends: list | None = None, margin: float = 2.0) -> list:
    """The cards (and, into `masks` and `ends`, the masks and the regions under another
    card) of `design_regions`' designs ((its cards, its masks, in how many regions it found
    cards, its `ends`) each) but those found in `margin` x fewer regions than another's: a
    box's cards share one back (pieces.md), so such a design is something else on the table
    (a notepad, a box, the table's own pattern). A card two designs found counts once. All
    of them where `most` is False."""
    top = max((n for _, _, n, _ in designs), default=0)
    out: list = []
    for cards, mine, n, my_ends in designs:
        if most and n < top and n * margin <= top:
            continue
        out += [r for r in cards  # (a card found by another design's colours too: once)
                if not any(np.hypot(*(r[0] - o[0])) < 0.5 * r[2] for o in out)]
        if masks is not None:
            masks += mine
        if ends is not None:
            ends += my_ends
    return out


def shown_off(mask: np.ndarray, a: np.ndarray, b: np.ndarray, faces: np.ndarray, f: float,
              seen: float = 0.3) -> tuple[float, float] | None:
    """Two backs' frames `a`, `b` ((4, 2) photo px): the share of each one's part off the
    other that the backs' look covers (`mask`, at scale `f`), leaving out what lies under the
    face-up cards read (`faces`, uint8 at scale `f`): a card read at two places is one
    stretch of look (its parts off each other's frame share it, summing to about 1), a
    pile of two shows both cards' look there (about 2). None where less than `seen` of
    either part lies off the face-up cards (`_off_part` both ways)."""
    free = faces == 0
    out = []
    for one, other in ((a, b), (b, a)):
        off = _off_part(one, other, f, mask.shape, 1.0)  # (drawn once for both shares)
        if _share(free, off) < seen:
            return None
        out.append(_share(mask, off & free))
    return out[0], out[1]


def one_card_region(short: float, ratio: float, widths, aspect: float, size: float) -> bool:
    """Whether a card-shaped region of the backs' look (its short side `short` px, long side
    `ratio` x that) is no larger than one card of the backs read inside it (`widths` px, a
    card's long side `aspect` x its width): both sides within `size` x a card's. Two backs
    read inside such a region are one card read twice (at its look-alike corners); a
    pile of two shifted by 0.3 widths or more makes a region that much wider or longer."""
    w = float(min(widths))
    return short <= size * w and short * ratio <= size * aspect * w


AT_POSITION = re.compile(r"at \((-?\d+), (-?\d+)\)")  # a warning's position, "at (x, y)"


def from_enlarged(v, scale: float, offset) -> np.ndarray:
    """Pixel coordinates `v` (..., 2) in a part of the photo enlarged `scale` x, cut at
    `offset` (x, y): in the photo's pixels (pixel centres)."""
    return (np.asarray(v, float) + 0.5) / scale - 0.5 + offset


def shift_positions(text: str, scale: float, offset: np.ndarray) -> str:
    """A warning read on a part of the photo enlarged `scale` x, cut at `offset` (x, y):
    its positions ("at (x, y)") in the photo's pixels."""

    def one(m) -> str:
        x, y = from_enlarged([float(m.group(1)), float(m.group(2))], scale, offset)
        return f"at ({x:.0f}, {y:.0f})"

    return AT_POSITION.sub(one, text)


def _off_part(frame: np.ndarray, region: np.ndarray, f: float, shape: tuple[int, int],
              grow: float) -> np.ndarray:
    """(H, W) bool of `shape` (the photo at scale `f`): the part of the card `frame` ((4, 2)
    photo corners) lying off `region` (a frame, grown `grow` x)."""
    return (_frames_mask([frame], f, shape, 1.0) > 0) & \
        (_frames_mask([region], f, shape, grow) == 0)


def _share(mask: np.ndarray, part: np.ndarray) -> float:
    """The share of the (H, W) bool `part` that `mask` (same shape) covers; 0 where `part`
    is empty."""
    n = int(np.count_nonzero(part))
    return float(np.count_nonzero(mask[part])) / n if n else 0.0


def off_region_look(mask: np.ndarray, frame: np.ndarray, region: np.ndarray, f: float
                    ) -> float:
    """The share of the card `frame` ((4, 2) photo corners) lying off the card-shaped
    `region` (its frame, grown by 5 %) that the backs' look covers (`mask`, at scale `f`):
    about 0 for a card's second reading shifted off it onto the table, most of it where a
    card under it shows (0 where nothing of `frame` lies off `region`). (`shown_off` asks
    the same of two backs, off the face-up cards read.)"""
    return _share(mask, _off_part(frame, region, f, mask.shape, 1.05))


def look_strips(mask: np.ndarray, frames: list[np.ndarray], centres: np.ndarray,
                widths: np.ndarray, settings: ReadSettings = READ, faces: int = 0
                ) -> list[tuple[np.ndarray, float, float]]:
    """Face-down cards under others: what is left of the backs' look (`mask`, closed, at
    `look_scale`) off the cards read (`frames`) that is a strip a card long and a fraction
    of its width across (`strip_across`, `strip_along` x the width of the cards read
    nearest to it), lying along a card read that covers the rest of it (a pile spread
    along the row: each card under another shows a strip of its long side). Returns
    (centre (2,) photo px, angle of the card's u axis in degrees modulo 180, width px) of
    each such card: its outer long edge the strip's, reaching under the card beside it.
    A strip `strip_up_along` to `strip_along[0]` widths long (its ends clipped by a frame
    read too large) counts only along one of the first `faces` of `frames` (face-up cards:
    beside a back, its own look reaching out of a misplaced frame is such a strip)."""
    s = settings
    f = s.look_scale
    if not frames or not len(widths):
        return []
    cover = _frames_mask(frames, f, mask.shape, s.strip_cover)
    polys = [((np.asarray(q, float) + 0.5) * f - 0.5).astype(np.float32) for q in frames]
    rest = ((mask > 0) & (cover == 0)).astype(np.uint8)
    rest = cv2.morphologyEx(rest, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    centres, widths = np.asarray(centres, float) * f, np.asarray(widths, float) * f
    least = s.strip_fill * s.strip_across[0] * s.strip_along[0] * float(np.min(widths)) ** 2
    contours, _ = cv2.findContours(rest, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out = []
    for cnt in contours:  # (outlines: a sparse mask's are found faster than its labels)
        a = cv2.contourArea(cnt) + 0.5 * len(cnt)  # about its pixels
        if a < least:
            continue
        rect = cv2.minAreaRect(cnt)
        short, eu, long_, _ = rect_sides(rect)
        c = np.array(rect[0], float)
        near = near_width(centres, widths, c)
        if not (s.strip_across[0] * near <= short <= s.strip_across[1] * near and
                s.strip_up_along * near <= long_ <= s.strip_along[1] * near and
                a >= s.strip_fill * short * long_):
            continue
        on = polys if long_ >= s.strip_along[0] * near else polys[:faces]
        n_ = eu / max(float(np.hypot(*eu)), 1e-9)  # across the strip
        for sign in (1.0, -1.0):  # the side a card read covers the rest of it from
            probe = c + sign * n_ * (0.5 * short + s.strip_probe * near)
            if _on_any(probe, on):
                centre = c + sign * n_ * (0.5 * near - 0.5 * short)
                out.append(((centre + 0.5) / f - 0.5,
                            float(np.degrees(np.arctan2(n_[1], n_[0])) % 180.0), near / f))
                break
    return out


def _on_any(point, polys: list[np.ndarray]) -> bool:
    """Whether the photo point (2,) lies in or on any of the float32 (4, 2) polygons."""
    return any(cv2.pointPolygonTest(q, (float(point[0]), float(point[1])), False) >= 0
               for q in polys)


def end_backs(ends: list, frames: list[np.ndarray], centres: np.ndarray, widths: np.ndarray,
              aspect: float, settings: ReadSettings = READ
              ) -> list[tuple[np.ndarray, float, float]]:
    """Face-down cards whose end lies under another card: regions of the backs' look that
    fill their rectangle (`ends`, from `look_alike_regions` or `design_regions`: (centre
    (2,), ((unit, length) of each side)) photo px) but are too short for a card: one side
    is a card's width
    (`end_across` x the width of the cards read nearest to it), the other `end_along` x
    that width, shorter than a card's height, and a card read (`frames`) holds the point
    `strip_probe` x the width beyond a short end (or both) and not the region's centre. Returns
    (centre (2,) photo px, angle of the card's u axis in degrees modulo 180, width px) of
    each such card: its free end the region's, reaching under the card beside it."""
    s = settings
    if not len(frames) or not len(widths):
        return []
    polys = [np.asarray(q, np.float32) for q in frames]
    out = []
    for c, sides in ends:
        c = np.asarray(c, float)
        w = near_width(centres, widths, c)
        if _on_any(c, polys):
            continue
        for (e, along), (u, across) in (sides, sides[::-1]):
            if not (s.end_across[0] * w <= across <= s.end_across[1] * w and
                    s.end_along[0] * w <= along <= s.end_along[1] * w):
                continue
            hit = [sign for sign in (1.0, -1.0)
                   if _on_any(c + sign * e * (0.5 * along + s.strip_probe * w), polys)]
            if not hit:
                continue
            centre = c if len(hit) == 2 else \
                c + hit[0] * e * (0.5 * aspect * w - 0.5 * along)  # (under cards at both
            #   ends: its centre about the region's)
            if not any(np.hypot(*(centre - o[0])) < s.back_duplicate * w for o in out):
                #   (once: several designs' colours find one card)
                out.append((centre, float(np.degrees(np.arctan2(u[1], u[0])) % 180.0), w))
            break
    return out


def unseen_cards(pieces: list[CardPiece],
                 doubted: list[tuple[str, np.ndarray, np.ndarray, dict]],
                 under: list[tuple[str, np.ndarray, np.ndarray]] = (),
                 settings: ReadSettings = READ, paper: list[np.ndarray] = (),
                 backs: list[tuple[np.ndarray, float, float]] = ()
                 ) -> list[str]:
    """Warnings for Troetofanten cards that are likely there but not counted (a false card
    costs more than a missed one the table can check; the cards read are `pieces`):
    `doubted` readings (kind, key point, frame, probabilities) of strong key points whose
    kind is sure but whose number splits, lying on no card read (`on_a_card`), and
    `under`: weak key points read surely as a face-up card (label, key point, frame) whose
    card lies under a card read but whose corner index lies on none (a fan's card covered
    beyond its index, but not in that card's row). One warning per card: the first of
    those whose card centres lie within `back_duplicate` widths. `paper`: the centres of
    card-shaped regions of the face-up cards' look off the cards read (`paper_regions`: a
    card whose corner index is covered), warned about too. `backs`: (centre, width,
    confidence) of key points read as a back too unsurely to count (`back_doubt` up to
    `back_min_confidence`), warned about where no card read is centred within half a
    width."""
    s = settings
    out: list[str] = []
    seen: list[np.ndarray] = []

    def new(c: np.ndarray, w: float) -> bool:
        """Whether a card centred at `c`, `w` px wide, is not one warned about already."""
        if any(np.hypot(*(c - k)) < s.back_duplicate * w for k in seen):
            return False
        seen.append(c)
        return True

    def centre_width(frame) -> tuple[np.ndarray, float]:
        q = np.asarray(frame, float)
        return q.mean(axis=0), float(np.hypot(*(q[1] - q[0])))

    for kind, key, frame, probs in doubted:
        c, w = centre_width(frame)
        if on_a_card(key, frame, pieces) or not new(c, w):
            continue
        (a, _), (b, _) = _two_numbers(kind, probs)
        out.append(f"possibly {_article(kind)} {kind} at ({c[0]:.0f}, {c[1]:.0f}), not "
                   f"counted: its corner number is unreadable ({a} or {b}); check the card")
    for label, key, frame in under:
        if any(inside_frame(key, q.frame, 1.0) for q in pieces) or \
                not new(*centre_width(frame)):
            continue
        out.append(f"possibly {_article(label)} {label} at ({key[0]:.0f}, {key[1]:.0f}) "
                   f"under another card, not counted: check the card")
    if paper:
        w = float(np.median([p.width for p in pieces]))
        for c in paper:
            if new(np.asarray(c, float), w):
                out.append(f"possibly a card at ({c[0]:.0f}, {c[1]:.0f}) whose corner is not "
                           f"seen (covered?), not counted: check the table there")
    for c, w, conf in backs:
        c = np.asarray(c, float)
        if any(np.hypot(*(c - q.center)) < 0.5 * w for q in pieces) or not new(c, w):
            continue
        out.append(f"possibly a face-down card at ({c[0]:.0f}, {c[1]:.0f}), not counted: "
                   f"read as a back with only {conf:.2f}; check the table there")
    return out


def look_off_cards(image: np.ndarray, pieces: list[CardPiece], settings: ReadSettings = READ
                   ) -> list[str]:
    """Warnings where the face-down cards' look shows off every card read (Troetofanten: a
    back under a face-up card whose strip no reading took, or a back missed whole). The
    look is learnt as `settle_backs` learns it: from the backs read surely
    (`look_alike_regions`, its closed mask), or, with none, from card-shaped regions of one
    colour (`design_regions`). What is left of it off the cards read (their frames grown by
    `strip_cover`, opened by 3 x 3 at `look_scale`) is warned about per region: a strip of
    at least `look_off_strip` (x a card's area, x its width across) whose rim lies at least
    `look_off_beside` on face-up cards read and under `look_off_on_back` on backs read, or
    a patch of at least `look_off_whole[0]` cards' area filling `look_off_whole[1]` of its
    rectangle. Regions within a card's height of one warned about are one card. `image`:
    (H, W, 3) uint8 BGR, the photo the `pieces` were read in; readings are not changed."""
    s = settings
    framed = [p for p in pieces if p.frame is not None and p.width > 0]
    if not framed:
        return []
    f = s.look_scale
    centres = np.array([p.center for p in framed], float)
    widths = np.array([p.width for p in framed], float)
    up = [p.frame for p in framed if p.label != "back"]
    backs = [p.frame for p in framed if p.label == "back"]
    sure = [p.frame for p in framed if p.label == "back" and p.confidence >= s.look_min_conf]
    masks: list = []
    if sure:  # (the closed mask alone: `look_alike_regions`' regions are not asked for)
        hit, _, small = look_hit(image, sure, centres, widths, s, up)
        masks.append(closed_look(hit, small, s))
    else:
        design_regions(image, centres, widths, s, masks)
    if not masks:
        return []
    mask = np.maximum.reduce(masks) > 0 if len(masks) > 1 else masks[0] > 0
    cover_up = _frames_mask(up, f, mask.shape, s.strip_cover)  # (no frames: all 0)
    cover_back = _frames_mask(backs, f, mask.shape, s.strip_cover)
    rest = (mask & (cover_up == 0) & (cover_back == 0)).astype(np.uint8)
    rest = cv2.morphologyEx(rest, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    aspect = SPECS["troetofanten"].aspect
    floor = min(s.look_off_strip[0], s.look_off_whole[0])
    # a region's area in cards is at most its pixels over the narrowest card's (it takes
    # its nearest cards' width, never narrower): with all left under the floor that way,
    # no region can pass (the same warnings, a labelling less; session 24, H7)
    least = float(np.min(widths)) * f
    if float(np.count_nonzero(rest)) / (least * least * aspect) < floor:
        return []  # (too little of the look left for any region)
    # (2 x 2 block-based labelling: the default's very labels, stats and centres, on all
    # 48 such masks of committed, edition 2 and fresh 3054 e1 / e2; about twice as fast
    # here, where the default labels in parallel; session 24, H7)
    n, lab, stats, cents = cv2.connectedComponentsWithStatsWithAlgorithm(
        rest, 8, cv2.CV_32S, cv2.CCL_BBDT)
    found: list[tuple[float, np.ndarray, float, str]] = []  # (area, centre px, width, kind)
    for k in range(1, n):
        c = (cents[k] + 0.5) / f - 0.5
        w = near_width(centres, widths, c) * f
        area = float(stats[k, cv2.CC_STAT_AREA]) / (w * w * aspect)
        if area < floor:
            continue
        x0, y0, bw, bh = (int(v) for v in stats[k, :4])
        sl = (slice(max(y0 - 3, 0), y0 + bh + 3), slice(max(x0 - 3, 0), x0 + bw + 3))
        comp = (lab[sl] == k).astype(np.uint8)
        rim = cv2.dilate(comp, np.ones((5, 5), np.uint8)) - comp
        n_rim = max(float(rim.sum()), 1.0)
        beside = float((rim & cover_up[sl]).sum()) / n_rim
        on_back = float((rim & cover_back[sl]).sum()) / n_rim
        cnts, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        (_, (rw, rh), _) = cv2.minAreaRect(max(cnts, key=cv2.contourArea))
        fill = float(stats[k, cv2.CC_STAT_AREA]) / max(rw * rh, 1.0)
        if area >= s.look_off_strip[0] and min(rw, rh) >= s.look_off_strip[1] * w and \
                beside >= s.look_off_beside and on_back < s.look_off_on_back:
            found.append((area, c, w / f, "strip"))
        elif area >= s.look_off_whole[0] and fill >= s.look_off_whole[1]:
            found.append((area, c, w / f, "whole"))
    out: list[str] = []
    warned: list[np.ndarray] = []
    for _, c, w, kind in sorted(found, key=lambda t: -t[0]):
        if any(np.hypot(*(c - o)) < aspect * w for o in warned):  # (both sides of a card)
            continue
        warned.append(c)
        where = f"({c[0]:.0f}, {c[1]:.0f})"
        out.append(f"a face-down card's pattern shows at {where} beside the cards read, but "
                   f"no card was read there: a card under another may be missed; check the "
                   f"table there" if kind == "strip" else
                   f"a face-down card's pattern covers a patch the size of a card at {where}, "
                   f"but no card was read there: a face-down card may be missed; check the "
                   f"table there")
    return out


def hsv_bins(hsv: np.ndarray, bins) -> np.ndarray:
    """(H, W) uint16: each pixel's bin (flat index, hue slowest) in a hue x saturation x
    value histogram of `bins` ((3,) ints, 65536 bins at most): bins of equal width over
    OpenCV's hue 0-180 and saturation and value 0-256, as `cv2.calcHist(..., bins, [0, 180,
    0, 256, 0, 256])` bins them (`bin_counts` of these is that histogram, flattened).
    `hsv`: (H, W, 3) uint8 HSV."""
    hb, sb, vb = (int(b) for b in bins)
    if hb * sb * vb > 65536:
        raise ValueError(f"{hb} x {sb} x {vb} bins do not fit 16 bits")
    h, s_, v = (cv2.LUT(plane, lut) for plane, lut in zip(  # (each channel's own bin
        cv2.split(hsv), _bin_weights(hb, sb, vb), strict=True))  # times its weight, uint16)
    return h + s_ + v  # (exact: the largest sum is prod(bins) - 1)


@functools.lru_cache(maxsize=8)
def _bin_weights(hb: int, sb: int, vb: int) -> tuple[np.ndarray, ...]:
    """`hsv_bins`' three (256,) uint16 tables, hue, saturation, value: each level's bin in
    its channel times that channel's weight in the flat index (hue x `sb` x `vb`,
    saturation x `vb`, value x 1). Read-only (cached)."""
    ramp = np.arange(256)
    out = tuple(t.astype(np.uint16) for t in (np.minimum(ramp * hb // 180, hb - 1) * (sb * vb),
                                              ramp * sb // 256 * vb, ramp * vb // 256))
    for t in out:  # (hue 180-255: not HSV)
        t.flags.writeable = False
    return out


def bin_counts(codes: np.ndarray, bins, mask: np.ndarray | None = None) -> np.ndarray:
    """(prod(bins),) float64: how many of `codes` (`hsv_bins`' bins, (H, W) uint16) fall in
    each bin, where `mask` ((H, W), nonzero) is set if given."""
    n = int(np.prod(bins))
    if mask is not None:
        mask = mask.astype(np.uint8)
    return cv2.calcHist([codes], [0], mask, [n], [0, n]).ravel().astype(np.float64)


# the table's and the cards' colours (`on_bare_table`): hue x saturation x value bins (hue
# bins of 10 of OpenCV's 180, saturation and value ones of 32)
TABLE_BINS = [18, 8, 8]


def on_bare_table(image: np.ndarray, pieces: list[CardPiece], settings: ReadSettings = READ
                  ) -> tuple[list[CardPiece], list[str]]:
    """The Troetofanten `pieces` (framed; BGR uint8 `image`) less those whose frame shows
    the bare table where it lies on no other card read, and a warning for each of those.
    Colours learnt from the photo (HSV at `look_scale`, `TABLE_BINS`): the table's are the
    pixels `table_margin` widths or more off every frame read, the cards' those inside the
    frames read with `table_sure` (less the judged one's own: a reading is not judged where
    those are under `table_cards_least` cards' areas); a pixel is the table's where its
    colour's table density is `table_pixel` of the two densities' sum (a colour absent from
    either counts `table_floor` pixels there). A reading is dropped where its frame's part
    off every other frame is at least `table_exposed` of it and `table_share` of that
    part's pixels are the table's. Where the two looks cannot be told apart (white cards
    on a white cloth) no pixel is the table's: nothing is dropped."""
    s = settings
    framed = [i for i, p in enumerate(pieces) if p.frame is not None]
    sure = [i for i in framed if pieces[i].confidence >= s.table_sure]
    if len(framed) < 2 or not sure:
        return pieces, []
    f = s.look_scale
    hsv = small_hsv(image, f)
    shape = hsv.shape[:2]
    width = float(np.median([pieces[i].width for i in framed])) * f
    count = np.zeros(shape, np.uint8)  # how many frames cover each pixel
    boxes = {}
    for i in framed:
        m, (x0, y0) = boxes[i] = frame_box_mask(pieces[i].frame, f, shape)
        count[y0:y0 + m.shape[0], x0:x0 + m.shape[1]] += m
    k = max(3, int(2 * s.table_margin * width) | 1)
    table = cv2.dilate((count > 0).astype(np.uint8),
                       cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))) == 0
    if np.count_nonzero(table) < s.table_least * width * width:  # (too little table)
        return pieces, []
    code = hsv_bins(hsv, TABLE_BINS)
    h_table = bin_counts(code, TABLE_BINS, table)
    n_table = max(float(h_table.sum()), 1.0)
    own = {}
    for i in sure:  # (each sure frame's colours, shrunk off its outline)
        m, (x0, y0) = boxes[i]
        m = cv2.erode(m, np.ones((3, 3), np.uint8))
        own[i] = bin_counts(code[y0:y0 + m.shape[0], x0:x0 + m.shape[1]], TABLE_BINS, m)
    h_sure = sum(own.values())
    card_area = SPECS["troetofanten"].aspect * width * width

    def shows_table(m: np.ndarray, x0: int, y0: int, h_card: np.ndarray, n_card: float
                    ) -> bool:  # (its part off every other frame is the bare table)
        box = np.s_[y0:y0 + m.shape[0], x0:x0 + m.shape[1]]
        off = (m > 0) & (count[box] == 1)
        n_off = int(np.count_nonzero(off))
        if not m.size or n_off < s.table_exposed * max(int(np.count_nonzero(m)), 1) \
                or n_off < s.table_least_off:
            return False
        return table_share(code[box][off], h_table, n_table, h_card, n_card, s) >= \
            s.table_share

    kept, warnings = [], []
    for i, p in enumerate(pieces):
        if p.frame is None:
            kept.append(p)
            continue
        h_card = h_sure - own.get(i, 0)
        n_card = float(h_card.sum())
        if n_card < s.table_cards_least * card_area:  # (too few other cards to judge by)
            kept.append(p)
            continue
        m, (x0, y0) = boxes[i]
        if shows_table(m, x0, y0, h_card, n_card):
            where = "where the photo shows the bare table"
        elif p.label != "back" and s.table_corner is not None and shows_table(
                *corner_strip(p.frame, s.table_corner, f, shape), h_card, n_card):
            where = "where the photo shows the bare table along its top edge"
        else:
            kept.append(p)
            continue
        warnings.append(f"possibly {_article(p.label)} {p.label} at ({p.center[0]:.0f}, "
                        f"{p.center[1]:.0f}), not counted: read there ({p.confidence:.2f}) "
                        f"{where}; check the table there")
    return kept, warnings


def table_share(px: np.ndarray, h_table: np.ndarray, n_table: float, h_card: np.ndarray,
                n_card: float, settings: ReadSettings = READ) -> float:
    """`on_bare_table`'s share of the pixels whose bins are `px` ((K,) of `hsv_bins`' codes,
    K > 0) that are the table's: a pixel is where its colour's density among the table's
    pixels (`h_table`, bin counts of `n_table` pixels) is `table_pixel` of the sum of that
    and its density among the cards' (`h_card`, of `n_card`), each bin counting
    `table_floor` pixels more. The test depends on a pixel's bin alone: made once per bin,
    then counted over the pixels (the same count, so the same share, as pixel by pixel)."""
    s = settings
    t = (h_table + s.table_floor) / n_table
    c = (h_card + s.table_floor) / max(n_card, 1.0)
    return np.count_nonzero((t / (t + c) >= s.table_pixel)[px]) / px.size


def _bin_shares(code: np.ndarray, mask: np.ndarray, n: int) -> tuple[np.ndarray, int]:
    """(each bin's share of `code`'s pixels where `mask` is set (float64, (n,)), how many
    pixels that is)."""
    px = code[mask]
    return np.bincount(px, minlength=n) / max(px.size, 1), int(px.size)


def pattern_readings(image: np.ndarray, pieces: list[CardPiece], busy: bool,
                     settings: ReadSettings = READ) -> tuple[list[CardPiece], int]:
    """The Troetofanten `pieces` (BGR uint8 `image`) less the face-up readings under
    `pattern_sure` whose frame shows the table's pattern going on through it, on a `busy`
    look (over `busy_keys` key points posed: a printed cloth, a newspaper), and how many
    were dropped. A reading is the pattern where its frame's colours (`TABLE_BINS` at
    `look_scale`; its part off every other frame, shrunk to 0.9) are those of the ring
    around it (`pattern_ring`, off every other frame) and of the table off every frame
    read (`table_margin` widths beyond; the whole frame, shrunk to 0.9, there), each at
    least `pattern_alike` (Bhattacharyya coefficient of the two histograms). Judged only
    with `pattern_least` pixels inside and in the ring, and the table's at least
    `table_least` widths squared. Backs and every
    reading of a look that is not busy are kept as they are."""
    s = settings
    if not busy or s.pattern_alike is None:
        return pieces, 0
    judged = [i for i, p in enumerate(pieces)
              if p.frame is not None and p.label != "back" and p.confidence < s.pattern_sure]
    if not judged:
        return pieces, 0
    f = s.look_scale
    hsv = small_hsv(image, f)
    shape = hsv.shape[:2]
    framed = [i for i, p in enumerate(pieces) if p.frame is not None]
    width = float(np.median([pieces[i].width for i in framed])) * f
    count = np.zeros(shape, np.uint8)  # how many frames (grown 1.05) cover each pixel
    for i in framed:
        count += _frames_mask([pieces[i].frame], f, shape, 1.05)
    k = max(3, int(2 * s.table_margin * width) | 1)
    table = cv2.dilate((count > 0).astype(np.uint8),
                       cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))) == 0
    if np.count_nonzero(table) < s.table_least * width * width:
        return pieces, 0
    n = int(np.prod(TABLE_BINS))
    code = hsv_bins(hsv, TABLE_BINS)
    h_table, _ = _bin_shares(code, table, n)
    lo, hi = s.pattern_ring
    drop = set()
    for i in judged:
        q = np.asarray(pieces[i].frame, float)
        pts = _frame_points(q, f, hi)  # (the ring's box: the frame grown `hi`)
        x0, y0 = (max(int(v) - 1, 0) for v in pts.min(axis=0))
        x1, y1 = (min(int(v) + 2, m) for v, m in zip(pts.max(axis=0), shape[::-1],
                                                     strict=True))
        if x1 <= x0 or y1 <= y0:
            continue
        box, at = np.s_[y0:y1, x0:x1], q - np.array([x0, y0], float) / f
        size = (y1 - y0, x1 - x0)
        others = (count[box].astype(np.int16) - _frames_mask([at], f, size, 1.05)) > 0
        shrunk = _frames_mask([at], f, size, 0.9) > 0
        ring = (_frames_mask([at], f, size, hi) > 0) & (_frames_mask([at], f, size, lo) == 0)
        c = code[box]
        h_in, n_in = _bin_shares(c, shrunk & ~others, n)
        h_ring, n_ring = _bin_shares(c, ring & ~others, n)
        if min(n_in, n_ring) < s.pattern_least:
            continue
        h_all, _ = _bin_shares(c, shrunk, n)  # (the whole frame against the table's)
        if min(float(np.sqrt(h_in * h_ring).sum()), float(np.sqrt(h_all * h_table).sum())) \
                >= s.pattern_alike:
            drop.add(i)
    return [p for i, p in enumerate(pieces) if i not in drop], len(drop)


def lone_shape_backs(pieces: list[CardPiece], busy: bool, settings: ReadSettings = READ
                     ) -> tuple[list[CardPiece], int]:
    """The Troetofanten `pieces` less, on a `busy` look (see `pattern_readings`), the backs
    found by their look or shape alone (confidence `design_confidence` or less: no
    classifier checks them) that lie more than `lone_backs` x their width (centres) from
    every other reading (any face-up one, or a back read surer than that), and how many
    were dropped: a newspaper's coloured pictures are card-shaped regions of one colour all
    over the table, a game's cards lie in rows and piles."""
    s = settings
    if not busy or s.lone_backs is None:
        return pieces, 0
    lone = [i for i, p in enumerate(pieces)
            if p.label == "back" and p.confidence <= s.design_confidence]
    anchors = np.array([p.center for p in pieces if p.label != "back"
                        or p.confidence > s.design_confidence]).reshape(-1, 2)
    drop = {i for i in lone if not len(anchors) or np.hypot(
        *(anchors - pieces[i].center).T).min() > s.lone_backs * pieces[i].width}
    return [p for i, p in enumerate(pieces) if i not in drop], len(drop)


def corner_strip(frame: np.ndarray, strip: tuple[float, float], f: float,
                 shape: tuple[int, int]) -> tuple[np.ndarray, int, int]:
    """The strip of a card's `frame` ((4, 2) corners TL, TR, BR, BL, photo px) along its top
    edge from its top-left corner, `strip` (share of the width along, share of the height
    down), as `frame_box_mask` gives it at scale `f` on a photo of `shape`: (the uint8 mask
    of its box, the box's x0, y0). A Troetofanten card's corner index lies at 0.17 of the
    width, 0.11 of the height: the strip is the paper beside and above it."""
    q = np.asarray(frame, float)
    ex, ey = strip[0] * (q[1] - q[0]), strip[1] * (q[3] - q[0])
    m, (x0, y0) = frame_box_mask(np.array([q[0], q[0] + ex, q[0] + ex + ey, q[0] + ey]), f,
                                 shape)
    return m, x0, y0


# the face-up cards' paper: bins of hue x saturation x value (grey and white pixels too)
PAPER_BINS = [12, 8, 8]


def sure_faces(pieces: list[CardPiece], settings: ReadSettings = READ) -> list[CardPiece]:
    """The face-up cards read with `paper_min_conf` or more: their paper is the cards' look
    (`paper_regions`) and shows the light's colour (`vision.cards.light.paper_gains`)."""
    return [p for p in pieces if p.label != "back" and p.confidence >= settings.paper_min_conf]


def paper_regions(image: np.ndarray, pieces: list[CardPiece], settings: ReadSettings = READ
                  ) -> list[tuple[np.ndarray, float, float, float]]:
    """Card-shaped regions that look like the face-up cards read but
    lie off every card read: a card whose corner index is not seen (covered by a hand or an
    object, or blurred past the detector). The look: the colours (hue, saturation and
    value: paper is grey or white) `paper_ratio` x more common on the face-up cards read
    with `paper_min_conf` than elsewhere in the photo; its pixels off the cards read make
    regions, a region with a card's shape and about the width of the cards read near it
    (`card_shaped`: `design_size`, `paper_fill`) is one. Worked out at `paper_scale`;
    nothing where fewer than 2 cards were read surely. Returns `card_shaped`'s (centre,
    angle of the short side, short side px, long / short side) per region."""
    s = settings
    sure = sure_faces(pieces, s)
    if len(sure) < 2:
        return []
    f, small = 1.0, image
    while f > s.paper_scale:  # (halving twice is 4 x faster than a quarter at once; within
        #   `keeping_scaled` the detector's input and the close-up check's quarter photo are
        #   these very halvings, made once: `area_scaled`)
        f, small = f / 2, area_scaled(small, 0.5)
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    on = _frames_mask([p.frame for p in sure], f, hsv.shape[:2], 0.85)
    code = hsv_bins(hsv, PAPER_BINS)  # (float32 as `cv2.calcHist`'s were)
    h_on = bin_counts(code, PAPER_BINS, on).astype(np.float32)
    h_all = bin_counts(code, PAPER_BINS).astype(np.float32)
    look, _ = common_colours(h_on, h_all, on, s.paper_ratio,
                             0.01 * max(float(np.count_nonzero(on)), 1.0))
    hit = look[code].astype(np.uint8) * 255  # (OpenCV's back projection reads a 3-d
    #   numpy histogram as a 2-d one of 8 channels)
    hit[_frames_mask([p.frame for p in pieces], f, hit.shape, 1.0) > 0] = 0
    return card_shaped(
        hit, np.array([p.center for p in pieces]) * f, np.array([p.width for p in pieces]) * f,
        s.design_size, s.paper_fill, s.paper_shape, f, s)


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def edge_angles(image: np.ndarray, xy: np.ndarray, angles: np.ndarray, widths: np.ndarray,
                settings: ReadSettings = READ) -> np.ndarray:
    """Troetofanten cards' angles (degrees, (N,)) turned about their key points (`xy`) by the
    one of `edge_turns` whose card edges beside the corner index are sharpest: the card's
    top edge from its top-left corner to 0.3 of its width and its left edge down to 0.8 of
    its height (the part of a card a fan leaves visible), each scored by the photo's
    gradient across it averaged along it, at the best of a few offsets across (within
    `edge_reach` widths: the pose's corner is off by a few pixels). The table's direction
    and a row's median angle leave each card's own turn (a few degrees, and a tilted
    camera's skew) to this; the corner number's crop needs it (`read_pieces` turns only
    that crop: turning the card's whole pose as well changed its kind readings and zones,
    committed scenes 3 extra cards and 2 zone errors more). `image`: (H, W, 3) uint8 BGR, or
    its (H, W) uint8 grey already (a reader asking several times converts it once)."""
    s = settings
    turns = np.asarray(s.edge_turns, float)
    if not len(xy) or not len(turns):
        return angles
    spec = SPECS["troetofanten"]
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    ku, kv = spec.key_uv
    offs = np.linspace(-s.edge_reach, s.edge_reach, 9)
    t = np.deg2rad(np.asarray(angles, float)[:, None] + turns[None])  # (N, T)
    cos, sin = np.cos(t), np.sin(t)
    ex, ey = (cos, sin), (-sin, cos)  # (x, y) each (N, T): the card's u and v axes
    w = np.asarray(widths, float)[:, None, None]
    h = w * spec.aspect
    xy = np.asarray(xy, float)
    tl = [xy[:, c, None] - ku * w[..., 0] * ex[c] - kv * h[..., 0] * ey[c]
          for c in (0, 1)]  # (x, y) each (N, T)
    score = np.zeros(t.shape)
    along_t = np.linspace(0.0, 1.0, 16)
    # (each coordinate on its own plane, each plane of the same sums in the same order as
    #   the (N, T, O, L, 2) points once made together: the same maps, made contiguous)
    across = offs[None, None, :, None] * w[..., None]  # (N, 1, O, 1)
    for along, normal, lo, hi in ((ex, ey, 0.03 * w, 0.3 * w), (ey, ex, 0.03 * h, 0.8 * h)):
        run = (lo + (hi - lo) * along_t)[:, :, None, :]  # (N, 1, 1, L)
        pts = [tl[c][:, :, None, None] + run * along[c][:, :, None, None]
               + across * normal[c][:, :, None, None] for c in (0, 1)]  # (N, T, O, L)
        shape = pts[0].shape
        sides = [[(p + sign * step[:, :, None, None]).reshape(shape[0] * shape[1], -1)
                  .astype(np.float32) for p, step in zip(pts, normal, strict=True)]
                 for sign in (1.0, -1.0)]  # (the gray step across the line: 1 px either side)
        hi_, lo_ = (cv2.remap(gray, qx, qy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
                    .astype(np.float32).reshape(shape) for qx, qy in sides)  # (replicated:
        #   a line off the photo's edge sees no step, as a card cut by the edge has none)
        score += np.abs(hi_ - lo_).mean(axis=3).max(axis=2)
    return np.asarray(angles, float) + turns[np.argmax(score, axis=1)]


def nearest(points: np.ndarray, point, n: int = 3) -> np.ndarray:
    """Indices of the `n` of `points` ((N, 2)) nearest to `point`, nearest first (the cards
    read whose widths size a region found near them)."""
    return np.argsort(np.hypot(*(points - point).T))[:n]


def close_merged(pieces: list[CardPiece], turned: list[CardPiece], seen: list[CardPiece],
                 asked_xy: np.ndarray, s: ReadSettings) -> list[CardPiece]:
    """`pieces` with the close-up look's cards that `second_look` turned away (`turned`,
    in the photo's pixels) merged card by card, by key point (a fan's cards overlap, but
    each has its own corner; two readings whose key points lie within `close_key` x the
    close-up card's width are one card; or, a back among them, whose centres lie within
    `back_duplicate` x its width). A close-up card at no card read is added when at
    least `big_card` px wide (one of the detector's size is the first look's to read) and
    every card read of another label whose centre lies in its frame was seen by the
    close-up look too (`seen`: its cards `second_look` kept, turned away or added, in the
    photo's pixels; else the small photo blurred a pile into one wide card). One at
    exactly one card read replaces it where that card's key point is one that asked for
    the look (`asked_xy` (N, 2), as near) and the close-up card is at least `close_ratio`
    x as wide (the first look posed it too small). Surest close-up cards first, each
    merged with the cards read so far (none added twice); added cards come after
    `pieces`, in that order."""
    out = list(pieces)
    asked_xy = np.asarray(asked_xy, float).reshape(-1, 2)

    for q in sorted(turned, key=lambda c: -c.confidence):
        one = s.close_key * q.width  # (key points this near: one card)
        near = [k for k, c in enumerate(out) if np.hypot(*(c.key - q.key)) < one] or [
            k for k, c in enumerate(out) if "back" in (c.label, q.label) and  # (a back's key
            np.hypot(*(c.center - q.center)) < s.back_duplicate * q.width]  # point: any corner)
        if not near:
            under = [p for p in out if p.label != q.label and inside_frame(p.center, q.frame, 1.0)]
            if q.width >= s.big_card and all(
                    any(c is not q and np.hypot(*(c.key - p.key)) < one for c in seen)
                    for p in under):
                out.append(q)
        elif len(near) == 1 and q.width >= s.close_ratio * out[near[0]].width and \
                len(asked_xy) and np.hypot(*(asked_xy - out[near[0]].key).T).min() < one:
            out[near[0]] = q
    return out


def near_width(centres: np.ndarray, widths: np.ndarray, point, n: int = 3) -> float:
    """The median width of the `n` cards read (`centres` (N, 2), `widths` (N,)) nearest to
    `point`: all cards share one size, so a region found near them takes theirs."""
    w = widths[nearest(centres, point, n)]
    if w.dtype == np.float64 and len(w) and np.isfinite(w).all():  # (on Python floats, as
        return _median(w.tolist())  # np.median: a fiftieth of the time for 3 widths)
    return float(np.median(w))


def rect_sides(rect) -> tuple[float, np.ndarray, float, np.ndarray]:
    """A minimum-area rectangle's (`cv2.minAreaRect`) short side: its length and its edge
    vector, then its long side's (on a tie the first edge is the short one)."""
    box = cv2.boxPoints(rect)
    e1, e2 = box[1] - box[0], box[2] - box[1]
    n1, n2 = float(np.hypot(*e1)), float(np.hypot(*e2))
    return (n1, e1, n2, e2) if n1 <= n2 else (n2, e2, n1, e1)


def card_frame(centre, angle: float, width: float, aspect: float) -> np.ndarray:
    """(4, 2) corners TL, TR, BR, BL of the card centred at `centre` whose u axis points at
    `angle` degrees: `frame_from_pose` with the card's centre as its key point."""
    return frame_from_pose(centre, angle, width, KeySpec((0.5, 0.5), aspect, (0, 1), (0, 1)))


def back_piece(centre, angle: float, width: float, confidence: float) -> CardPiece:
    """The Troetofanten face-down card centred at `centre` (photo px), its u axis at `angle`
    degrees, `width` px wide, found by its look alone (no classifier probabilities): its
    frame (`card_frame`) and the key point posed from it. Shared by the reader's
    `_add_back` and teach mode's `look_backs`."""
    spec = SPECS["troetofanten"]
    frame = card_frame(np.asarray(centre, float), float(angle), float(width), spec.aspect)
    key, _, _ = pose_from_frame(frame, spec)
    return CardPiece("back", confidence, key, frame, float(angle), float(width))


def neighbour_angles(xy: np.ndarray, angles: np.ndarray, widths: np.ndarray,
                     side: np.ndarray, reach: float) -> np.ndarray:
    """Each card's angle (degrees) replaced by the circular median of the cards facing the
    same way (`side`, 0-3) within `reach` x its width, itself included: a spread or fanned
    pile turns little from one card to the next, and one key point's angle is noisy."""
    out = angles.copy()
    n = len(xy)
    if not n:
        return out
    # (the same numbers for less: each value below is worked out element by element, so
    # once for all cards as for each card's neighbours; the medians of Python floats,
    # `_median`, as `np.median` takes them)
    near = np.hypot(*(xy[None] - xy[:, None]).transpose(2, 0, 1)) \
        < (reach * widths)[:, None]  # (row i: `np.hypot(*(xy - xy[i]).T) < reach * w[i]`)
    near &= side[None] == side[:, None]
    z = np.exp(1j * np.deg2rad(angles))
    re, im = z.real.tolist(), z.imag.tolist()
    for i in range(n):
        nb = np.flatnonzero(near[i]).tolist()
        med = np.degrees(np.angle(_median([re[j] for j in nb])
                                  + 1j * _median([im[j] for j in nb])))
        out[i] += (med - angles[i] + 180.0) % 360.0 - 180.0  # keep the caller's wrap
    return out


def _median(v: list[float]) -> float:
    """`np.median` of the Python floats `v` (non-empty): the middle one, or the two
    middle ones' mean, (a + b) / 2 as `np.mean` sums and divides them. A zero among them
    goes to `np.median` itself (which of 0.0 and -0.0 comes first is its sort's)."""
    if 0.0 in v:
        return float(np.median(v))
    v = sorted(v)
    m = len(v) // 2
    return v[m] if len(v) % 2 else (v[m - 1] + v[m]) / 2


def weighted_median(v: np.ndarray, w: np.ndarray) -> float:
    """The value of (N,) `v` at half of the (N,) weights `w` (positive) summed in v's order."""
    o = np.argsort(v)
    c = np.cumsum(w[o])
    return float(v[o][np.searchsorted(c, 0.5 * c[-1])])


def refine_poses(game: str, xy: np.ndarray, angles: np.ndarray, widths: np.ndarray,
                 area=None, image: np.ndarray | None = None, settings: ReadSettings = READ,
                 scores: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, list]:
    """Steadier (angles, widths, frames or None) for piece key points from what all pieces
    share: one size (a smooth width field), Magic Rabbit tiles one direction, Troetofanten
    cards the table's four directions, Hop la bille cards their cloth side's direction
    (their frame then comes from the cloth's plane: 60 x 90 mm). `scores`: (N,) the key
    points' detector scores, weighing each one's say in a shared direction (None: equal)."""
    from vision.cards.zones import table_rotation

    angles = angles.copy()
    line = busy_line(xy, widths, scores, settings) if game == "magic-rabbit" else None
    fit = shared_widths(xy, widths, scores, settings, line) if game == "magic-rabbit" else \
        fit_widths(xy, widths)  # (Troetofanten's busy looks: see `busy_keys`)
    widths = np.where(np.abs(widths - fit) > 0.2 * fit, fit, widths)
    frames: list = [None] * len(xy)
    if len(xy) == 0:
        return angles, widths, frames
    if game == "magic-rabbit":
        z = np.exp(1j * np.deg2rad(angles))
        # (each key point weighed by its detector score: a notebook's weak key points beside
        # the line no longer turn the line's direction)
        if scores is None:
            med = np.degrees(np.angle(np.median(z.real) + 1j * np.median(z.imag)))
        else:
            w = np.maximum(scores, 1e-6)
            if line is not None:  # (a busy look: the sure ones' direction in the line's
                w = np.where(line, w, 0.0)  # band, as their size)
            med = np.degrees(np.angle(weighted_median(z.real, w)
                                      + 1j * weighted_median(z.imag, w)))
        off = (angles - med + 180) % 360 - 180
        angles = np.where(np.abs(off) > 12.0, med, angles)
    elif game == "troetofanten":
        rot = table_rotation(angles)
        k = np.round((angles - rot) / 90.0)
        snapped = rot + 90.0 * k
        off = (angles - snapped + 180) % 360 - 180
        angles = np.where(np.abs(off) > 12.0, snapped, angles)
        # All cards share one size: the smooth width field beats each key point's own guess.
        widths = fit_widths(xy, widths)
        angles = neighbour_angles(xy, angles, widths, k % 4, settings.troeto_neighbours)
    elif game == "hop-la-bille" and area is not None:
        from vision.cards.hopcards import RIGHT, card_zone

        ppm = area.settings.px_per_mm
        side_px = float(area.settings.plane_px)
        plane = area.to_plane(xy)
        for i, p in enumerate(plane):
            zone = card_zone(p, side_px)
            if image is not None:
                snapped = snap_card(image, area, p)
                if snapped is not None:  # the card's own outline: its centre and direction
                    frames[i], angles[i], widths[i] = hop_plane_pose(area, *snapped, zone)
                    continue
            corners = _hop_corners(p, np.array(RIGHT[zone], float), ppm)
            fr = area.to_image(corners)
            ex = fr[1] - fr[0]
            side_ang = float(np.degrees(np.arctan2(ex[1], ex[0])))
            d = (angles[i] - side_ang + 180) % 360 - 180
            if abs(d) > 20.0:  # the detector's angle is off: the side's direction
                angles[i] = side_ang
                frames[i] = fr
            else:  # the detector's angle, the cloth plane's size and perspective
                t = np.deg2rad(d)
                R = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
                frames[i] = area.to_image((corners - p) @ R.T + p)
            widths[i] = float(np.hypot(*(frames[i][1] - frames[i][0])))
    return angles, widths, frames


def hop_plane_pose(area, p: np.ndarray, u_ang: float, zone: str
                   ) -> tuple[np.ndarray, float, float]:
    """The pose of a 60 x 90 mm Hop la bille card centred at plane point `p` whose short
    side lies at `u_ang` degrees in the plane, turned to face the player of `zone`
    (`hopcards.RIGHT`): its (4, 2) image corners TL, TR, BR, BL, the image angle of its top
    side (degrees) and that side's length in image px."""
    from vision.cards.hopcards import RIGHT

    ppm = area.settings.px_per_mm
    u0 = np.array(RIGHT[zone], float)
    t = np.deg2rad(u_ang)
    u = np.array([np.cos(t), np.sin(t)])
    u = u if u @ u0 >= 0 else -u
    fr = area.to_image(_hop_corners(p, u, ppm))
    ex = fr[1] - fr[0]
    return fr, float(np.degrees(np.arctan2(ex[1], ex[0]))), float(np.hypot(*ex))


def _hop_corners(p: np.ndarray, u: np.ndarray, ppm: float) -> np.ndarray:
    """The (4, 2) plane corners TL, TR, BR, BL of a 60 x 90 mm Hop la bille card centred
    at plane point `p` whose short side runs along the unit vector `u` (`ppm` plane px per
    mm)."""
    v = np.array([-u[1], u[0]])
    hw, hh = 30.0 * ppm, 45.0 * ppm
    return np.array([p - u * hw - v * hh, p + u * hw - v * hh, p + u * hw + v * hh,
                     p - u * hw + v * hh])


def hop_row_backs(image: np.ndarray, area, pieces: list[CardPiece],
                  settings: ReadSettings = READ) -> list[CardPiece]:
    """Hop la bille face-down cards found by their shape beside the cards read: a player's
    cards lie in one row beyond their side of the cloth (`hopcards.card_zone`), so where a
    side has fewer than `HOP_CARDS_PER_PLAYER` cards read, a card-sized rectangle that
    differs from the table (`snap_card`) one card step (`hop_row_step` mm) beyond either
    end of the row (or between two cards read that far apart) is a back, when it is not a
    card read already (`hop_row_apart` mm from its centre) and not mostly pale paper under
    its own light as a face-up card is (`hopcards.paper_share_own` >= `FACE.paper_min`);
    such a one is the face-up card `hopcards.face_up_colour` reads, where that is clear (a
    face the classifier missed, e.g. a green card under a warm lamp), else left out.
    Returns `pieces` and the cards found."""
    from vision.cards.hopcards import FACE, card_zone, face_up_colour, own_light, paper_share_own

    s = settings
    cards = [p for p in pieces if p.label.startswith("card-")]
    if not cards:
        return pieces
    ppm = area.settings.px_per_mm
    side_px = float(area.settings.plane_px)
    plane = area.to_plane(np.array([p.center for p in cards]))
    zones = [card_zone(q, side_px) for q in plane]
    along = {"north": 0, "south": 0, "east": 1, "west": 1}
    step = s.hop_row_step * ppm
    spec = SPECS["hop-la-bille"]
    found: list[CardPiece] = []
    taken = [q for q in plane]
    known = [p.frame for p in cards if p.frame is not None]  # (and the backs found)
    for z in sorted(set(zones)):
        mine = plane[[k for k, zz in enumerate(zones) if zz == z]]
        room = HOP_CARDS_PER_PLAYER - len(mine)
        if room <= 0:
            continue
        a = along[z]
        d = np.zeros(2)
        d[a] = step
        tried: list[np.ndarray] = []
        while room > 0:  # (a back found extends the row: probe again beyond it)
            order = mine[np.argsort(mine[:, a])]
            probes = [order[0] - d, order[-1] + d]
            for q0, q1 in zip(order[:-1], order[1:], strict=True):
                if q1[a] - q0[a] > 1.6 * step:  # a card missing between two read
                    probes.append((q0 + q1) / 2)
            probes = [q for q in probes if not any(np.hypot(*(q - t)) < 0.25 * step
                                                   for t in tried)]
            if not probes:
                break
            tried += probes
            for probe in probes:
                # (none with one table colour: a patterned table, more colours are the table)
                c = snap_card(image, area, probe, table_colours=(1, 3), clear=known)
                if c is None:
                    continue
                c, u_ang = c
                if card_zone(c, side_px) != z or abs(c[a] - probe[a]) > 0.5 * step or \
                        abs(c[1 - a] - np.median(mine[:, 1 - a])) > s.hop_row_depth * ppm or \
                        any(np.hypot(*(c - t)) < s.hop_row_apart * ppm for t in taken):
                    continue
                fr, angle, width = hop_plane_pose(area, c, u_ang, z)
                label, card = "card-back", rectify(image, fr, 60, 90)
                light = own_light(card)
                if paper_share_own(card, light) >= FACE.paper_min:  # no back: a face-up card
                    #  missed, where it is clear
                    colour = face_up_colour(card, light=light) if s.hop_faces else None
                    if colour is None:
                        continue
                    label = f"card-{colour}"
                key, _, _ = pose_from_frame(fr, spec)
                found.append(CardPiece(label, s.design_confidence, key, fr, angle, width))
                taken.append(c)
                known.append(fr)
                mine = np.vstack([mine, c])
                room -= 1
                if room <= 0:
                    break
    return pieces + found


def on_a_card(key: np.ndarray, frame: np.ndarray, pieces: list[CardPiece]) -> bool:
    """Whether a reading's key point or its card's centre (`frame`'s) lies on one of the
    `pieces` read already (inside its frame)."""
    centre = np.asarray(frame, float).mean(axis=0)
    return any(inside_frame(key, q.frame, 1.0) or inside_frame(centre, q.frame, 1.0)
               for q in pieces)


def on_a_card_off_row(key: np.ndarray, angle: float, frame: np.ndarray,
                      pieces: list[CardPiece], settings: ReadSettings = READ) -> bool:
    """`on_a_card` for a reading (key point, angle, `frame`) on the `pieces` it does not lie
    in the row of (`in_its_row`: the next card of a fan or a pile there is kept)."""
    return on_a_card(key, frame, [q for q in pieces
                                  if not in_its_row(key, angle, q, settings)])


def in_its_row(key: np.ndarray, angle: float, card: CardPiece,
               settings: ReadSettings = READ) -> bool:
    """Whether a reading (key point, angle) lies where the next card of a fan or a spread
    pile lies on `card` (a face-up card read): turned alike (`row_turn` degrees) and its
    corner index beside `card`'s along the card's top edge (`row_along` widths along its u
    axis, within `row_across` across). Another corner index of `card` (turned half round)
    or its drawing (below its top edge) are not."""
    s = settings
    if card.label == "back" or abs((angle - card.angle + 180.0) % 360.0 - 180.0) > s.row_turn:
        return False
    t = np.deg2rad(card.angle)
    d = np.asarray(key, float) - card.key
    du = (d[0] * np.cos(t) + d[1] * np.sin(t)) / max(card.width, 1.0)
    dv = (-d[0] * np.sin(t) + d[1] * np.cos(t)) / max(card.width, 1.0)
    return bool(s.row_along[0] <= abs(du) <= s.row_along[1] and abs(dv) <= s.row_across)


def on_other_kinds(key: np.ndarray, angle: float, frame: np.ndarray, label: str,
                   pieces: list[CardPiece], settings: ReadSettings = READ) -> bool:
    """Whether a face-up reading as `label` (key point (2,), angle, `frame` (4, 2)) lies on
    cards of `pieces` (`on_a_card`) and, off their rows (`on_a_card_off_row`), only on cards
    of other kinds than its own: a card's own other corner index or drawing reads as its
    own kind, so such a reading is a card lying on top of them (`weak_atop`)."""
    kind = label.rsplit("-", 1)[0]
    return on_a_card(key, frame, pieces) and not on_a_card_off_row(
        key, angle, frame, [q for q in pieces if q.label.rsplit("-", 1)[0] == kind], settings)


def weak_test_cards(pieces: list[CardPiece], settings: ReadSettings = READ
                    ) -> list[CardPiece]:
    """The `pieces` a weak key point's face-up reading is tested against
    (`on_a_card_off_row`): all of them, or the face-up ones alone where `up_on_backs`."""
    return [p for p in pieces if p.label != "back" or not settings.up_on_backs]


def counted_doubts(doubts: list[CardPiece], pieces: list[CardPiece], duplicate: float
                   ) -> list[CardPiece]:
    """`pieces` (the readings kept) and after them each of `doubts` (Troetofanten animals
    whose kind is sure but whose number splits, `ReadSettings.count_doubted`) that lies on
    no card kept (`on_a_card`: its key point or centre inside one's frame; a fan's drawing
    or a card's other corner read) and is no kept reading once more (`seen_before`, within
    `duplicate` x width), in their order (a doubt counted takes the place of later ones)."""
    return _counted(doubts, pieces, lambda q, out: on_a_card(q.key, q.frame, out), duplicate)


def counted_weak(weak: list[CardPiece], pieces: list[CardPiece],
                 settings: ReadSettings = READ) -> list[CardPiece]:
    """`pieces` (the readings kept) and after them each of `weak` (Troetofanten animals read
    at a weak key point whose kind is sure but whose number splits, `ReadSettings.weak_kind`)
    that lies on no face-up card kept (`on_a_card_off_row`: the next card of a fan or a pile
    is kept; `weak_test_cards`: as for a weak key point read surely) and
    is no kept reading once more (`seen_before`), marked `faint`, in their order."""
    s = settings
    return _counted(weak, pieces, lambda q, out: on_a_card_off_row(
        q.key, q.angle, q.frame, weak_test_cards(out, s), s), s.duplicate, faint=True)


def _counted(extra: list[CardPiece], pieces: list[CardPiece], on_card, duplicate: float,
             faint: bool = False) -> list[CardPiece]:
    """`pieces` and after them each of `extra` for which `on_card(piece, kept so far)` is
    false and that is no kept reading once more (`seen_before`), in their order (one counted
    takes the place of later ones); those marked `faint` with `faint`."""
    out = list(pieces)
    for q in extra:
        if not on_card(q, out) and not seen_before(q.key, q.label, out, duplicate):
            out.append(replace(q, faint=True) if faint else q)
    return out


def seen_before(xy: np.ndarray, label: str, kept: list[CardPiece], duplicate: float,
                fan_step: float | None = None, across: float | None = None,
                angle_of=None) -> bool:
    """Whether a key point at `xy` read as `label` is a kept piece once more: it lies within
    `duplicate` x the width of a kept one (their `key`, `width`, `label`). With
    `fan_step` (Troetofanten), not when it lies at least `fan_step` x width from each such
    one and reads as another label than each: the next card of a tight fan, whose corner
    index lies 0.1-0.3 widths from its neighbour's, along its top edge (with `across`:
    within that x the width across the kept one's top edge, its v axis; `angle_of(piece)`,
    where given, the direction of that edge in degrees, else the piece's `angle`)."""
    near = [q for q in kept if np.hypot(*(np.asarray(xy) - q.key)) < duplicate * q.width]
    if not near or fan_step is None:
        return bool(near)

    def beside(q: CardPiece) -> bool:  # (along the kept card's top edge)
        if across is None:
            return True
        t = np.deg2rad(q.angle if angle_of is None else angle_of(q))
        d = np.asarray(xy, float) - q.key
        return abs(-d[0] * np.sin(t) + d[1] * np.cos(t)) <= across * q.width

    return not all(np.hypot(*(np.asarray(xy) - q.key)) >= fan_step * q.width
                   and q.label != label and beside(q) for q in near)


def fan_gap_poses(pieces: list[CardPiece], settings: ReadSettings = READ
                  ) -> list[tuple[np.ndarray, float, float]]:
    """(key point (2,) px, angle in degrees, width px) where a fan's row of corner indices
    read has a gap. Of the face-up `pieces` (read at least `fan_confidence`, not `faint`),
    two are a row's neighbours when turned alike within `row_turn` degrees and the larger
    width is at most `fan_gap_width` x the smaller: one step past a card away from its
    nearest such neighbour (the row's next index, posed as that card) where their key
    points lie `fan_gap_step` x its width apart, and the middle of two lying
    `fan_gap_between` apart (posed as the surer one). Points within `duplicate` x the width
    of any piece's key point (backs' too), or of an earlier point, are left out. Pure
    geometry: no pixels."""
    s = settings
    up = [p for p in pieces if p.label != "back" and not p.faint
          and p.confidence >= s.fan_confidence and p.width > 0]
    out: list[tuple[np.ndarray, float, float]] = []

    def add(k: np.ndarray, a: float, w: float) -> None:
        if any(np.hypot(*(k - q.key)) < s.duplicate * q.width for q in pieces) or any(
                np.hypot(*(k - o)) < s.duplicate * w for o, _, _ in out):
            return
        out.append((k, a, w))

    def alike(p: CardPiece, q: CardPiece) -> bool:
        return abs((p.angle - q.angle + 180.0) % 360.0 - 180.0) <= s.row_turn and \
            max(p.width, q.width) <= s.fan_gap_width * min(p.width, q.width)

    for i, p in enumerate(up):
        near = [(float(np.hypot(*(p.key - q.key))), j) for j, q in enumerate(up)
                if j != i and alike(p, q)]
        if not near:
            continue
        d0, j0 = min(near)
        if s.fan_gap_step[0] <= d0 / p.width <= s.fan_gap_step[1]:
            add(2 * p.key - up[j0].key, p.angle, p.width)
        for d, j in near:
            if j > i and s.fan_gap_between[0] <= d / p.width <= s.fan_gap_between[1]:
                r = p if p.confidence >= up[j].confidence else up[j]
                add((p.key + up[j].key) / 2, r.angle, r.width)
    return out


# opposite_corners: how far off the card's diagonal (degrees) and how far along it (x the
# width: the diagonal is 1.37 widths; the width read for a card whose two corners both pass
# for a top-left one is often far off) the other key point may lie
OPPOSITE_TURN_TOL = 15.0
OPPOSITE_REACH = (0.7, 2.6)


def opposite_corners(p: CardPiece, q: CardPiece) -> bool:
    """Whether two readings' key points lie at opposite corner indices of one card, seen in
    `p`'s frame: `q`'s key point lies along `p`'s card's diagonal from the top-left index to
    the bottom-right one (within `OPPOSITE_TURN_TOL` degrees), `OPPOSITE_REACH` x `p`'s
    width away."""
    spec = SPECS["troetofanten"]
    key = spec.key_uv
    du, dv = 1 - 2 * key[0], (1 - 2 * key[1]) * spec.aspect
    want = np.degrees(np.arctan2(dv, du))
    d = np.asarray(q.key, float) - np.asarray(p.key, float)
    seen = np.degrees(np.arctan2(d[1], d[0])) - p.angle  # in p's frame (y down: v)
    if abs((seen - want + 180.0) % 360.0 - 180.0) > OPPOSITE_TURN_TOL:
        return False
    return bool(OPPOSITE_REACH[0] <= np.hypot(*d) / max(p.width, 1.0) <= OPPOSITE_REACH[1])


def twin_labels(a: str, b: str) -> bool:
    """Whether two face-up readings may be one card read at two corner indices: the same
    label, or two animals of one kind (the number of one corner misread: elephant-3 and
    elephant-4; its kind, read from the drawing, does not change). Backs never (left to
    `settle_backs`)."""
    if a == "back" or b == "back":
        return False
    ka, kb = a.rsplit("-", 1)[0], b.rsplit("-", 1)[0]
    return a == b or (ka == kb and ka in TROETO_NUMBERED)


def _twin_group(label: str) -> str | None:
    """The group of readings `twin_labels` pairs `label` with (each pair lies in one
    group): an animal of a numbered kind, any number, its kind; another face, its label;
    a back none."""
    if label == "back":
        return None
    kind = label.rsplit("-", 1)[0]
    return "kind " + kind if kind in TROETO_NUMBERED else "label " + label


def drop_turned_twins(pieces: list[CardPiece], reach: float, turn_tol: float = 30.0,
                      quarter_min: float = 45.0, same_place: float = 0.0
                      ) -> tuple[list[CardPiece], list[str]]:
    """Troetofanten pieces without the less sure of two of one label (`twin_labels`: or two
    animals of one kind) read from two corners
    of one card: their angles differ by half a turn (within `turn_tol` degrees) and their
    centres lie within `reach` x width or their key points at opposite corner indices
    (`opposite_corners`); or their angles differ by at least `quarter_min` degrees but not
    half a turn (a corner read with its pose a quarter turn off) and the less sure one's key
    point lies at the surer one's bottom-right index; or, of one label, their centres lie
    within `same_place` x width, turned any way (one card read twice in one place from key
    points just past `duplicate`; a pile's next card lies 0.2-0.3 widths along). Cards of a
    pile or a fan face the same way, so they are never taken for the turned twins. Also
    returns a warning for each card whose two corners read two numbers (the surer reading
    is kept)."""
    drop: set[int] = set()
    warnings: list[str] = []
    groups: dict[str, list[int]] = {}  # (`twin_labels`' pairs: of one group, in order)
    for j, p in enumerate(pieces):
        key = _twin_group(p.label)
        if key is not None:
            groups.setdefault(key, []).append(j)
    for i, p in enumerate(pieces):
        key = _twin_group(p.label)
        for j in groups[key] if key is not None else ():
            if j <= i:
                continue
            q = pieces[j]
            if i in drop or j in drop:
                continue
            turn = abs((p.angle - q.angle) % 360.0 - 180.0)
            sure, other = (p, q) if p.confidence >= q.confidence else (q, p)
            gap = np.hypot(*(p.center - q.center)) / max(p.width, q.width, 1.0)
            near = gap < reach
            if (turn <= turn_tol and near) or (p.label == q.label and gap < same_place) or (
                    (turn <= turn_tol or 180.0 - turn >= quarter_min)
                    and opposite_corners(sure, other)):
                drop.add(j if q.confidence <= p.confidence else i)
                if p.label != q.label:
                    kind, _, n = sure.label.rpartition("-")
                    x, y = sure.center
                    warnings.append(f"the {kind} at ({x:.0f}, {y:.0f}): its two corners read "
                                    f"{n} and {other.label.rpartition('-')[2]}; counted once "
                                    f"as {n}, check the number")
    return [p for k, p in enumerate(pieces) if k not in drop], warnings


def paper_twin(piece: CardPiece, kept: list[CardPiece], duplicate: float) -> int | None:
    """The index in `kept` of the face-up card of `piece`'s kind (`twin_labels`: its label,
    or another number of its animal) whose key point lies within `duplicate` x its width of
    `piece`'s (a card read by its paper that is a card read already, its pose turned off),
    the nearest; None where there is none."""
    near = [(float(np.hypot(*(np.asarray(piece.key, float) - q.key))), j)
            for j, q in enumerate(kept) if twin_labels(piece.label, q.label)]
    near = [(d, j) for d, j in near if d < duplicate * max(kept[j].width, 1.0)]
    return min(near)[1] if near else None


def label_kind_share(label: str, probs: dict[str, float]) -> float:
    """The share of the probabilities `probs` (label -> probability) on `label`'s own kind
    (elephant, tootophant, ...: the label without its number); 1.0 where they sum to 0."""
    kind = label.rsplit("-", 1)[0]
    total = sum(probs.values())
    mine = sum(v for k, v in probs.items() if k.rsplit("-", 1)[0] == kind)
    return mine / total if total > 0 else 1.0


def magic_tile_label(probs: dict[str, float], bg: float) -> tuple[str, float]:
    """A Magic Rabbit tile's label and its kind's confidence from the classifier's `probs`
    (label -> probability over the game's labels) and its P(background) `bg`: the likeliest
    number of the likeliest kind (hat, rabbit, magician) and that kind's share x (1 - bg).
    A drawing the classifier never saw (another copy's artwork) splits its number between
    colours while its kind stays clear: `read_pieces` keeps such a tile by this confidence
    (with the classifier's own, low, on the piece: it is warned about); the number is
    settled by the tile's colour and the line (`lineup`)."""
    total = sum(probs.values())
    if total <= 0:
        return max(probs, key=probs.get), 0.0
    kinds: dict[str, float] = {}
    for k, v in probs.items():
        kinds[k.rsplit("-", 1)[0]] = kinds.get(k.rsplit("-", 1)[0], 0.0) + v
    kind = max(kinds, key=kinds.get)
    best = max((k for k in probs if k.rsplit("-", 1)[0] == kind), key=probs.get)
    return best, kinds[kind] / total * (1 - bg)


def kind_share(piece: CardPiece) -> float:
    """The share of a numbered piece's probability (`probs`) on its own kind
    (`label_kind_share`); 1.0 without probabilities."""
    return label_kind_share(piece.label, piece.probs) if piece.probs else 1.0


def _kind_numbers(kind: str, probs: dict[str, float]) -> dict[str, float]:
    """`kind`'s numbers' probabilities in `probs` (label -> probability): number -> P."""
    return {k.rsplit("-", 1)[1]: v for k, v in probs.items()
            if k.rsplit("-", 1)[0] == kind and k[-1].isdigit()}


def _two_numbers(kind: str, probs: dict[str, float]) -> list[tuple[str, float]]:
    """The two likeliest numbers of `kind` in `probs`: (number, probability), likeliest
    first (`number_doubt`'s and `unseen_cards`' "a or b"); always two, a number `probs`
    does not hold given as ("?", 0.0) (the classifier's probabilities hold every label, a
    hand-made or partial dict may not)."""
    two = sorted(_kind_numbers(kind, probs).items(), key=lambda kv: -kv[1])[:2]
    return two + [("?", 0.0)] * (2 - len(two))


def box_limits(pieces: list[CardPiece]
               ) -> tuple[list[CardPiece], list[str], list[CardPiece]]:
    """Troetofanten `pieces` within one box's cards (`TROETO_COUNTS`: 1 mousetrap, 3 mice,
    5 tamers, ...; facts beyond them cannot be scored), a warning for each reading
    changed, and the relabelled pieces (those of the first list whose label it changed;
    their warning already says to check the number, `piece_warnings` adds no second one):
    of a label read more often than the box holds, the surest readings stand; an animal
    beyond them takes its likeliest other number the box still has room for (its points do
    not change), any other card is not counted (a card's other corner index or its drawing
    read as a second one)."""
    count: dict[str, int] = {}
    for p in pieces:
        count[p.label] = count.get(p.label, 0) + 1
    if all(n <= TROETO_COUNTS.get(lab, n) for lab, n in count.items()):
        return pieces, [], []
    out: dict[int, CardPiece] = {}  # (by the reader's order)
    warnings: list[str] = []
    relabelled: list[CardPiece] = []
    seen: dict[str, int] = {}
    for k in sorted(range(len(pieces)), key=lambda k: -pieces[k].confidence):
        p = pieces[k]
        if seen.get(p.label, 0) < TROETO_COUNTS.get(p.label, len(pieces)):
            seen[p.label] = seen.get(p.label, 0) + 1
            out[k] = p
            continue
        x, y = p.center
        kind = p.label.rsplit("-", 1)[0]
        room = [(v, f"{kind}-{n}") for n, v in _kind_numbers(kind, p.probs or {}).items()
                if count.get(f"{kind}-{n}", 0) < TROETO_COUNTS[f"{kind}-{n}"]]
        if room:
            label = max(room)[1]
            count[label] = count.get(label, 0) + 1
            warnings.append(f"the {kind} at ({x:.0f}, {y:.0f}): read as {p.label}, of which "
                            f"a box holds {TROETO_COUNTS[p.label]}; counted as {label}, "
                            "check the number")
            out[k] = replace(p, label=label)
            relabelled.append(out[k])
        else:
            warnings.append(f"possibly {_article(p.label)} {p.label} at ({x:.0f}, {y:.0f}), "
                            f"not counted: a box holds {TROETO_COUNTS[p.label]} and "
                            "surer readings fill it; check the card")
    return [out[k] for k in sorted(out)], warnings, relabelled


def unsure_rare(pieces: list[CardPiece], s: ReadSettings
                ) -> tuple[list[CardPiece], list[str]]:
    """Troetofanten `pieces` without the rare cards (a box holds `rare_count` or fewer of
    the label: mice, the mousetrap) read under `rare_confidence`, and a warning for each one
    left out: a card so rare is more often a blob, another card's drawing or an unclear
    elephant read as one than the card itself."""
    out: list[CardPiece] = []
    warnings: list[str] = []
    for p in pieces:
        if TROETO_COUNTS.get(p.label, s.rare_count + 1) <= s.rare_count and \
                p.confidence < s.rare_confidence:
            x, y = p.center
            warnings.append(f"possibly {_article(p.label)} {p.label} at ({x:.0f}, {y:.0f}), "
                            f"not counted: read unsure ({p.confidence:.2f}) and a box holds "
                            f"{TROETO_COUNTS[p.label]}; check the card")
            continue
        out.append(p)
    return out, warnings


def crosswise_on_back(c, a: float, w: float, backs: list[CardPiece], s: ReadSettings
                      ) -> bool:
    """Whether a face-down card centred at `c` (u axis at `a` degrees, `w` px wide) found by
    its look alone lies on one of `backs` read surely (`back_min_confidence`): its centre
    inside that back's frame shrunk `back_on_back` x about its centre, turned to it by at
    least `back_cross` degrees (modulo a half turn), and either narrower than `back_smaller`
    x that back or at least `back_within` of its own frame inside it. A pile's cards face
    the same way: such a reading is the back's own pattern read across (a card's long side
    taken for a spread pile of two); a real card lying across a back is as wide as it and
    sticks out beyond both its long sides (0.65 of it inside)."""
    frame = None
    for q in backs:
        if q.label != "back" or q.confidence < s.back_min_confidence:
            continue
        turn = abs((a - q.angle + 90.0) % 180.0 - 90.0)
        if turn >= s.back_cross and inside_frame(c, q.frame, s.back_on_back):
            if w < s.back_smaller * q.width:
                return True
            if frame is None:
                frame = card_frame(c, a, w, SPECS["troetofanten"].aspect).astype(np.float32)
            common, _ = cv2.intersectConvexConvex(frame, q.frame.astype(np.float32))
            if common >= s.back_within * cv2.contourArea(frame):
                return True
    return False


def number_doubt(piece: CardPiece, threshold: float) -> str | None:
    """A warning when a Troetofanten animal's number is unsure (its corner index blurred,
    partly covered, or its crop off the index): the number's share of its kind's
    probability below `threshold`. It names the two likeliest numbers; the points do not
    depend on it (every open animal scores +1), exact facts do."""
    kind, _, n = piece.label.rpartition("-")
    if not n.isdigit() or not piece.probs:
        return None
    nums = _kind_numbers(kind, piece.probs)
    total = sum(nums.values())
    if total <= 0 or nums.get(n, 0.0) / total >= threshold:
        return None
    (a, pa), (b, pb) = _two_numbers(kind, piece.probs)
    x, y = piece.center
    return (f"the {kind} at ({x:.0f}, {y:.0f}): its corner number is unclear, {a} or {b} "
            f"({pa / total:.2f} / {pb / total:.2f}); the points do not change, check the "
            f"number")


def index_sharpness(crop: np.ndarray, kind: str) -> float:
    """How legible a corner index crop's digit is ((n, n, 3) uint8 BGR, the index model's
    crop): the 95th percentile of the gradient magnitude of the digit's ink channel (blue
    for a tootophant's yellow digit, which absorbs it; grey for an elephant's dark one) over
    the contrast (2nd-98th percentile range) of that channel, both in the crop's middle
    (its outer fifth, the card's edge and the table, left out). A sharp digit steps over
    its whole contrast within a pixel or two (0.25-0.45); a blurred one is a smooth blob
    (under 0.18), whatever its size in the photo."""
    x = crop.astype(np.float32)
    g = x[..., 0] if kind == "tootophant" else x.mean(axis=2)
    n = g.shape[0]
    a, b = n // 5, n - n // 5
    lo, hi = _percentiles(g[a:b, a:b], (2, 98))
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3) / 8.0
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3) / 8.0
    return float(_percentiles(np.hypot(gx, gy)[a:b, a:b], (95,))[0] / max(hi - lo, 1.0))


def _percentiles(x: np.ndarray, qs: tuple[float, ...]) -> list[float]:
    """`np.percentile(x, qs)` (linear interpolation) of a small array, one sort (np.percentile's
    own overhead is 3 x the sort of a crop's 400 values)."""
    v = np.sort(x, axis=None)
    out = []
    for q in qs:
        r = (len(v) - 1) * q / 100.0
        i = int(r)
        j = min(i + 1, len(v) - 1)
        out.append(float(v[i] + (v[j] - v[i]) * (r - i)))
    return out


def blurred_number(piece: CardPiece) -> str:
    """The warning for an animal whose corner digit is too blurred for anyone to read
    (`legible_sharpness`): the model's two likeliest numbers, and that the facts cannot be
    exact from this photo."""
    kind = piece.label.rpartition("-")[0]
    (a, pa), (b, pb) = _two_numbers(kind, piece.probs or {})
    total = max(sum(_kind_numbers(kind, piece.probs or {}).values()), 1e-9)
    x, y = piece.center
    return (f"the {kind} at ({x:.0f}, {y:.0f}): its corner number is too blurred to read in "
            f"this photo, {a} or {b} ({pa / total:.2f} / {pb / total:.2f}); the points do not "
            f"change but the facts cannot be exact: check the number (a closer, sharper photo "
            f"reads it)")


def small_card_doubts(pieces: list[CardPiece], warnings: list[str], s: ReadSettings
                      ) -> list[str]:
    """`number_doubt`'s warning for each Troetofanten animal narrower than `small_card`
    (its `width`, working px) whose number's share is under `small_number_doubt` and that
    no warning in `warnings` names yet (`the <kind or label> at (x, y)` within 2 px of
    its centre): a small card's digit has about 10 px, so a share a large card's reading
    would be trusted with is not trusted there. Pieces and facts stay as read."""
    named = [(m.group(1).rpartition("-")[0] if m.group(1)[-1:].isdigit() else m.group(1),
              float(m.group(2)), float(m.group(3)))
             for w in warnings for m in _NAMED.finditer(w)]
    out = []
    for p in pieces:
        kind, _, n = p.label.rpartition("-")
        if p.faint or not n.isdigit() or p.width >= s.small_card:
            continue
        x, y = p.center
        if any(k == kind and abs(a - x) <= 2 and abs(b - y) <= 2 for k, a, b in named):
            continue
        doubt = number_doubt(p, s.small_number_doubt)
        if doubt:
            out.append(doubt)
    return out


_NAMED = re.compile(r"the ([a-z0-9-]+) at \((-?\d+), (-?\d+)\)")


def piece_warnings(pieces: list[CardPiece], game: str, s: ReadSettings,
                   relabelled: list[CardPiece] | tuple = (), blurred: set | frozenset = frozenset()
                   ) -> list[str]:
    """Each piece's own warnings: a Troetofanten animal's unclear number (`number_doubt`;
    `tootophant_doubt` for a tootophant's yellow number; always for one counted by its kind
    alone, `faint`; `blurred_number` instead for the
    ids in `blurred`, whose digit nobody can read, sure number or not),
    except for one `box_limits` relabelled (it carries its second-likeliest number, so its
    share is always below the threshold, and `box_limits`' warning already says to check
    the number), and a piece under `low_confidence` (not when only its number is unsure:
    its kind takes 0.9 or more)."""
    skip = {id(p) for p in relabelled}
    warnings: list[str] = []
    for p in pieces:
        if game != "troetofanten":
            doubt = None
        elif p.faint:  # counted by its kind alone (`counted_weak`): always, whatever its share
            doubt = number_doubt(p, math.inf)
        else:
            doubt = number_doubt(p, s.tootophant_doubt if p.label.startswith("tootophant-")
                                 else s.number_doubt)
        if id(p) in blurred and p.probs:
            doubt = blurred_number(p)
        if doubt and id(p) not in skip:
            warnings.append(doubt)
        if p.confidence < s.low_confidence and not (doubt and kind_share(p) >= 0.9):
            x, y = p.center
            warnings.append(f"unsure about the {p.label} at ({x:.0f}, {y:.0f}) "
                            f"(confidence {p.confidence:.2f})")
    return warnings


def at_corners(backs: list[CardPiece], frames: list[np.ndarray], width: float,
               settings: ReadSettings = READ) -> list[int]:
    """The indices (in order) of the `backs` read at one of a card-shaped region's two
    corner indices: their key point within `back_duplicate` x the region's `width` of the
    key point of one of its two `frames` (the region's outline turned either way; a back's
    corners look alike) and turned within `twice_turn` degrees of that frame. All such
    readings are that one card (read at each corner, or twice at one, from key points the
    detector split): the region's own outline, whatever width the cards near it gave them.
    The next card of a pile shows its corner index at least 0.3 widths from it."""
    s = settings
    keys = [pose_from_frame(fr, SPECS["troetofanten"]) for fr in frames]
    return [k for k, p in enumerate(backs)
            if any(np.hypot(*(p.key - key)) < s.back_duplicate * width
                   and abs((p.angle - ang + 180.0) % 360.0 - 180.0) <= s.twice_turn
                   for key, ang, _ in keys)]


def index_spec(model) -> KeySpec:
    """The corner-index box the index model was trained on (its metadata), else the code's."""
    from vision.cards.geometry import INDEX_SPEC

    spec = json.loads((model.metadata if model else {}).get("specs", "{}"))
    d = spec.get("troetofanten-index")
    return KeySpec(**{k: tuple(v) if isinstance(v, list) else v for k, v in d.items()}) \
        if d else INDEX_SPEC


def model_crop_settings(model) -> CardCropSettings:
    """A classifier's crop settings (size, mean, std: from its metadata)."""
    c = model.crop
    return CardCropSettings(size=c.size, mean=c.mean, std=c.std)


_WARN_GATE: ContextVar = ContextVar("warnings_when", default=None)  # (`warnings_when`)


@contextmanager
def warnings_when(needed):
    """Within this, the next `CardReader.read_pieces` (this context's outermost one) of
    Troetofanten leaves out the steps that only make warnings (`look_off_cards`, the blurred
    numbers, the pieces' own warnings: about 10 ms a read) where `needed(pieces)` is false
    for the pieces it reads: for a caller that reads the warnings of a second reading only
    where that holds (`far_look`'s, `stage.dim_added`'s). The pieces are the same either
    way (those steps come after the last that changes them); the reads inside it (the
    close-up and far looks) have no gate."""
    token = _WARN_GATE.set(needed)
    try:
        yield
    finally:
        _WARN_GATE.reset(token)


class CardReader:
    opposite = OPPOSITE_INDEX  # Troetofanten: the opposite corner's index for unsure numbers
    #   (`vision.cards.opposite`; None: off)

    def __init__(self, detector_path=DETECTOR_PATH, classifier_path=CLASSIFIER_PATH,
                 threads: int = 2, settings: ReadSettings = READ, index_path=INDEX_PATH):
        self.detector = KeyDetector(detector_path, threads)
        self.classifier = PieceClassifier(classifier_path, threads, memo=True)  # (a crop
        #   read again in one photo's reading takes its first rows: `keeping_rows`)
        self.index = PieceClassifier(index_path, threads) if Path(index_path).is_file() \
            else None
        self.index_spec = index_spec(self.index)
        self.settings = settings

    def troeto_numbers(self, image: np.ndarray, frames: list, probs: np.ndarray,
                       labels: tuple[str, ...], rows: np.ndarray | None = None) -> np.ndarray:
        """Troetofanten label probabilities with the number read by the corner-index model:
        P(elephant-n) = P(an elephant) x P(index n), likewise tootophants ((N, L) float).
        An unsure number of a crop read as an animal is read again at shifted poses
        (`number_jitter`, `number_recheck`). `rows`: (N,) bool, the crops whose numbers are
        read (the others' rows as `probs`); default all."""
        if self.index is None or not len(frames):
            return probs
        if rows is None or rows.all():
            return self._numbers_read(image, frames, probs, labels)
        at = np.flatnonzero(rows)  # (the rows asked, each read alone: the model's rows do
        out = probs.copy()  #         not depend on the batch)
        if len(at):
            out[at] = self._numbers_read(image, [frames[i] for i in at], probs[at], labels)
        return out

    def _numbers_read(self, image: np.ndarray, frames: list, probs: np.ndarray,
                      labels: tuple[str, ...]) -> np.ndarray:
        """`troeto_numbers` of every row (`frames` not empty, an index model)."""
        cs = model_crop_settings(self.index)
        st = self.settings
        image = number_source(image)  # (a heavily compressed photo: `smoothing_numbers`)
        pidx = in_halves(st, lambda lo, hi: self.index.predict(
            crop_cards(image, frames[lo:hi], self.index_spec, cs)).probs, len(frames))
        if st.number_jitter > 0:  # an unsure number read again at 4 poses shifted a little
            #   (P(index) averaged over the 5 crops)
            top = pidx.max(axis=1) / np.maximum(pidx.sum(axis=1), 1e-9)
            numbered = probs[:, [j for j, lab in enumerate(labels)
                                 if lab.rsplit("-", 1)[0] in TROETO_NUMBERED]].sum(axis=1)
            again = np.flatnonzero((top < st.number_recheck) &
                                   (numbered >= 0.5 * probs.sum(axis=1)))
            if len(again):
                shifted = []
                for r in again:
                    f = np.asarray(frames[r], float)
                    u, v = f[1] - f[0], f[3] - f[0]
                    shifted += [f + st.number_jitter * d for d in (u, -u, v, -v)]
                pm = self.index.predict(crop_cards(image, shifted, self.index_spec, cs)).probs
                pidx = pidx.copy()
                for k, r in enumerate(again):
                    pidx[r] = (pidx[r] + pm[4 * k: 4 * k + 4].sum(axis=0)) / 5.0
        out = probs.copy()
        for kind in TROETO_NUMBERED:
            cols = [j for j, lab in enumerate(labels) if lab.startswith(kind + "-")]
            nums = [labels[j].rsplit("-", 1)[1] for j in cols]
            pk = probs[:, cols].sum(axis=1, keepdims=True)
            pn = pidx[:, [self.index.index(n) for n in nums]]
            pn = pn / np.maximum(pn.sum(axis=1, keepdims=True), 1e-9)
            out[:, cols] = pk * pn
        return out

    def blurred_numbers(self, image: np.ndarray, pieces: list[CardPiece]) -> set[int]:
        """ids of the Troetofanten animals among `pieces` whose corner index crop (at the
        piece's frame, the index model's box) is under `legible_sharpness`."""
        s = self.settings
        if getattr(self, "index", None) is None or s.legible_sharpness <= 0:
            return set()  # (no index model: stand-in readers of the tests too)
        cs = replace(model_crop_settings(self.index), size=s.sharpness_size)
        ask = [(p, p.label.rpartition("-")[0]) for p in pieces if p.frame is not None]
        ask = [(p, kind) for p, kind in ask if kind in TROETO_NUMBERED]
        crops = crop_cards(image, [p.frame for p, _ in ask], self.index_spec, cs)
        return {id(p) for (p, kind), c in zip(ask, crops, strict=True)
                if index_sharpness(c, kind) < s.legible_sharpness}

    def read_crops(self, image: np.ndarray, frames: list, game: str, number_frames=None,
                   numbers: bool = True
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The card classifier's readings of the crops at `frames` ((4, 2) corners each):
        (the game's labels' probabilities (N, L), Troetofanten's numbers read by
        `troeto_numbers` at `number_frames` (default `frames`), P(background) (N,), whether
        each crop is a piece (N,) bool: P(background) under `min_piece_prob` and the game's
        labels together likelier than background (not a piece of another game, the
        classifier's classes cover all games), and its confidence (N,): its likeliest label's
        share of the game's labels, times 1 - P(background); 0 where it is no piece).
        `numbers=False`: the classifier's own Troetofanten probabilities, no number model."""
        s, spec, labels = self.settings, SPECS[game], GAME_LABELS[game]
        cs = self.crop_settings

        def read(lo: int, hi: int) -> np.ndarray:
            return self.classifier.predict(crop_cards(image, frames[lo:hi], spec, cs)).probs

        #   (in one go: a taught classifier, which re-decides its batch as a whole; on a
        #   helper thread already, Hop la bille's cards beside its marbles: `spare_core`)
        probs = in_halves(s, read, len(frames)) if \
            isinstance(self.classifier, PieceClassifier) else read(0, len(frames))
        game_probs = probs[:, [self.classifier.index(lab) for lab in labels]]
        bg = probs[:, self.classifier.index(BACKGROUND)]
        if game == "troetofanten" and numbers:  # (`numbers_of_pieces`: not the crops that
            #   are no piece whatever their number, by P(background) alone)
            game_probs = self.troeto_numbers(
                image, frames if number_frames is None else number_frames, game_probs, labels,
                bg < s.min_piece_prob if s.numbers_of_pieces else None)
        total = game_probs.sum(axis=1)
        piece = (bg < s.min_piece_prob) & (total > bg)
        conf = game_probs.max(axis=1, initial=0.0) / np.maximum(total, 1e-9) * (1 - bg)
        return game_probs, bg, piece, np.where(piece, conf, 0.0)

    def search_widths(self, image: np.ndarray, spec: KeySpec, xy: np.ndarray,
                      angles: np.ndarray, widths: np.ndarray) -> np.ndarray:
        """Each key point's width (px) among `ReadSettings.width_scales` x the detector's:
        the one whose crop the classifier finds least like background. The detector's own
        width regression pulls every piece towards a typical size; a crop of the wrong
        size looks like background to the classifier (trained on the right size)."""
        scales = np.asarray(self.settings.width_scales, float)
        if not len(xy):
            return widths
        cs, j = self.crop_settings, self.classifier.index(BACKGROUND)

        def read(lo: int, hi: int) -> np.ndarray:  # P(background) of key points lo..hi-1
            crops = crop_cards(image, [q for p, a, w in zip(xy[lo:hi], angles[lo:hi],
                                                            widths[lo:hi], strict=True)
                                       for q in frames_at_widths(p, a, w * scales, spec)],
                               spec, cs)
            return self.classifier.predict(crops).probs[:, j]

        bg = in_halves(self.settings, read, len(xy), len(scales))
        best = np.argmin(bg.reshape(len(xy), len(scales)), axis=1)
        return widths * scales[best]

    def search_angles(self, image: np.ndarray, spec: KeySpec, xy: np.ndarray,
                      angles: np.ndarray, widths: np.ndarray, same: float = 4.0
                      ) -> np.ndarray:
        """Each key point's angle (degrees) among the candidates `angles` ((N, C)): the one
        whose crop the classifier finds least like background (the first on ties, and where
        the candidates lie within `same` degrees of the first: no crop read)."""
        n, c = angles.shape
        if not n or c == 1:
            return angles[:, 0].copy() if c else np.zeros(n)
        off = np.abs((angles[:, 1:] - angles[:, :1] + 180.0) % 360.0 - 180.0)
        ask = np.flatnonzero((off > same).any(axis=1))
        out = angles[:, 0].copy()
        if not len(ask):
            return out
        j = self.classifier.index(BACKGROUND)

        def read(lo: int, hi: int) -> np.ndarray:  # P(background) of asked key points lo..hi-1
            crops = crop_cards(image, [frame_from_pose(xy[i], a, widths[i], spec)
                                       for i in ask[lo:hi] for a in angles[i]], spec,
                               self.crop_settings)
            return self.classifier.predict(crops).probs[:, j]

        bg = in_halves(self.settings, read, len(ask), c) if \
            isinstance(self.classifier, PieceClassifier) else read(0, len(ask))  # (as
        #   `read_crops`: a taught classifier in one go)
        best = np.argmin(bg.reshape(len(ask), c), axis=1)
        out[ask] = angles[ask, best]
        return out

    def pose_key_points(self, image: np.ndarray, game: str, kp: Keypoints, threshold: float,
                        area=None, searched: list | None = None, own: int | None = None
                        ) -> tuple[Keypoints, np.ndarray, list[np.ndarray]]:
        """The pieces' poses at the detector's key points of at least `threshold` heat (at
        most `max_keys`, the strongest): (key points with refined angles and widths, their
        indices, strongest first, and each
        one's frame ((4, 2) corners)). Width search (`search_widths`), then `refine_poses`;
        Hop la bille cards deep inside the cloth are left out. `searched`: the caller's list,
        given the widths the search found (before `refine_poses` evens them out). `own`:
        the key points from this index on were added from another view (`detect_keys`):
        the first `own` are posed among themselves alone, as they are without the others,
        the added ones among all."""
        if own is not None and own < len(kp):
            first = Keypoints(kp.xy[:own], kp.kind[:own], kp.score[:own], kp.angle[:own],
                              kp.width[:own])
            kp1, idx1, frames1 = self.pose_key_points(image, game, first, threshold, area,
                                                      searched)
            kp, idx, frames = self.pose_key_points(image, game, kp, threshold, area)
            at1 = {int(i): r for r, i in enumerate(idx1)}
            for r, i in enumerate(idx):
                if int(i) in at1:
                    kp.angle[i], kp.width[i] = kp1.angle[i], kp1.width[i]
                    frames[r] = frames1[at1[int(i)]]
            return kp, idx, frames
        s = self.settings
        spec = SPECS[game]
        idx = np.flatnonzero((kp.kind == KIND_PIECE) & (kp.score >= threshold))
        idx = idx[np.argsort(-kp.score[idx])]
        if game == "hop-la-bille" and area is not None:
            idx = idx[cloth_depth_mm(area, kp.xy[idx]) <= s.hop_inside_cloth_mm]
        idx = idx[:s.max_keys]  # (a noisy or busy photo's: `noise_warning`)
        wid = kp.width[idx]
        if game != "hop-la-bille":  # (those cards take their size from the cloth's plane)
            wid = self.search_widths(image, spec, kp.xy[idx], kp.angle[idx], wid)
        if searched is not None:
            searched.extend(wid.tolist())
        ang, wid, fixed = refine_poses(game, kp.xy[idx], kp.angle[idx], wid, area, image, s,
                                       kp.score[idx])
        if game == "troetofanten":  # the table's directions, unless the card's own angle
            #                         reads better (the middle's cards lie at any angle)
            ang = self.search_angles(image, spec, kp.xy[idx],
                                     np.column_stack([ang, kp.angle[idx]]), wid)
        kp = Keypoints(kp.xy.copy(), kp.kind, kp.score, kp.angle.copy(), kp.width.copy())
        kp.angle[idx], kp.width[idx] = ang, wid
        frames = [fixed[r] if fixed[r] is not None else
                  frame_from_pose(kp.xy[i], kp.angle[i], kp.width[i], spec)
                  for r, i in enumerate(idx)]
        return kp, idx, frames

    def repose_strong(self, image: np.ndarray, raw: Keypoints, kp: Keypoints,
                      idx: np.ndarray, searched: np.ndarray, frames: list,
                      is_piece: np.ndarray, confs: np.ndarray,
                      read_surely: list[CardPiece] = ()) -> tuple[np.ndarray, list]:
        """Troetofanten strong key points (`idx`, posed as `kp`, their `frames`) whose
        crop is no piece (`is_piece` False) or, with `repose_doubted`, whose confidence
        (`confs`) is under `min_confidence` (any kind: a number split, or a kind read
        weakly), read at the poses the key point had before `refine_poses` evened it out:
        the posed angle at the detector's width (`raw`), the `searched` one and
        `repose_scales` x the posed one, the detector's own angle at the posed, its own and
        the searched width, and the posed angle turned by `repose_turns` at the posed width
        (taken as an animal only, at `repose_turn_confidence`); not one whose key point or
        posed frame's centre (`on_a_card`) lies on a card of `read_surely` (the strong
        readings of at least `min_confidence`) outside that card's row (read again,
        `read_pieces` would mostly drop it; the key point alone let an extra mouse
        through, e2-1417 0014). Returns (the ranks in `idx`
        whose most confident such crop reads as a piece more surely than the posed one, of
        the posed kind where that was a piece (or of another kind read at least
        `repose_switch` surely), and those crops' frames); `kp`'s angles and widths are
        set to them.
        Confidence: the classifier's alone, with the number model (unjittered) only where
        the number split. (The crop least like background was often a wrong width's, read
        as a piece under `min_confidence`; a number split on a blank cloth read again
        turned into a mouse.)"""
        spec = SPECS["troetofanten"]
        s = self.settings
        ask = np.flatnonzero(~is_piece[:len(idx)] | (confs[:len(idx)] < s.min_confidence
                                                      if s.repose_doubted else False))
        ask = np.array([r for r in ask if not on_a_card_off_row(
            kp.xy[idx[r]], float(kp.angle[idx[r]]), frames[r], read_surely, s)],
            int)  # (read again there, it would mostly go: `read_pieces` keeps such a card
        #   only where neither its key point nor its new frame's centre lies on a card read)
        if not len(ask):
            return ask, []
        poses = []
        for r in ask:
            i = idx[r]
            a0, w0 = float(kp.angle[i]), float(kp.width[i])
            cand = [(a0, w0)]
            w1, w2 = float(raw.width[i]), float(searched[r])
            a1 = float(raw.angle[i])
            for a, w in [(a0, w1), (a0, w2)] + [(a0, w0 * f) for f in s.repose_scales] + [
                    (a1, w0), (a1, w1), (a1, w2)]:
                if w0 / s.repose_width <= w <= w0 * s.repose_width and all(
                        abs((a - b + 180.0) % 360.0 - 180.0) > 1.0 or abs(w - v) > 1.0
                        for b, v in cand):
                    cand.append((a, w))
            cand += [(a0 + t, w0) for t in s.repose_turns]  # (the other quarter turns)
            poses.append(cand if is_piece[r] else cand[1:])  # (the posed crop of no
            #   piece reads as none again: its confidence is 0, it is not read)
        flat = [frame_from_pose(kp.xy[idx[r]], a, w, spec)
                for r, cand in zip(ask, poses, strict=True) for a, w in cand]
        if not flat:
            return ask[:0], []
        split = np.concatenate([np.full(len(c), bool(is_piece[r]))
                                for r, c in zip(ask, poses, strict=True)])
        labels = GAME_LABELS["troetofanten"]
        probs, conf = np.zeros((len(flat), len(labels))), np.zeros(len(flat))
        look = copy.copy(self)  # (a split number read once per crop, no jitter: the chosen
        look.settings = replace(s, number_jitter=0.0)  # crop is read again jittered)
        for numbers in (False, True):  # (the number model only where the number split)
            at = np.flatnonzero(split == numbers)
            if len(at):
                p, _, _, c = look.read_crops(image, [flat[j] for j in at], "troetofanten",
                                             numbers=numbers)
                probs[at], conf[at] = p, c
        kind = np.array([labels[j].rsplit("-", 1)[0] for j in np.argmax(probs, axis=1)])
        out, new, k = [], [], 0
        for r, cand in zip(ask, poses, strict=True):
            if not cand:
                continue
            c = conf[k:k + len(cand)]
            turn = np.arange(len(cand)) >= len(cand) - len(s.repose_turns)  # (turned crops)
            if is_piece[r]:  # (a piece read under min_confidence: its posed kind, read
                #              surer than at the posed crop, the first)
                c = np.where((kind[k:k + len(cand)] == kind[k]) | (c >= s.repose_switch)
                             | turn, c, 0.0)
            c = np.where(turn & ((c < s.repose_turn_confidence) | ~np.isin(
                kind[k:k + len(cand)], TROETO_NUMBERED)), 0.0, c)  # (an animal, surely)
            b = int(np.argmax(c))
            if (b > 0 or not is_piece[r]) and c[b] > 0:
                i = idx[r]
                kp.angle[i], kp.width[i] = cand[b]
                out.append(r)
                new.append(flat[k + b])
            k += len(cand)
        return np.asarray(out, int), new

    def pose_back_candidates(self, image: np.ndarray, kp: Keypoints, idx: np.ndarray
                             ) -> tuple[np.ndarray, list[np.ndarray]]:
        """Troetofanten key points between `back_key_threshold` and `troeto_key_threshold`
        heat, posed for reading as face-down cards: (their indices, strongest first, their
        frames). Width: the median of the 3 nearest posed cards' (`idx`: they share one
        size); angle: the detector's own or the table's nearest direction, whichever crop
        reads less like background."""
        s = self.settings
        spec = SPECS["troetofanten"]
        weak = np.flatnonzero((kp.kind == KIND_PIECE) & (kp.score >= s.back_key_threshold)
                              & (kp.score < s.troeto_key_threshold))
        weak = weak[np.argsort(-kp.score[weak])][:s.max_keys]
        if not len(weak) or not len(idx):
            return weak[:0], []
        from vision.cards.zones import table_rotation

        d = np.hypot(*(kp.xy[weak][:, None] - kp.xy[idx][None]).transpose(2, 0, 1))
        near = np.argsort(d, axis=1)[:, :3]
        wid = np.median(kp.width[idx][near], axis=1)
        apart = d.min(axis=1) >= s.duplicate * wid  # not on a posed key point
        weak, wid = weak[apart], wid[apart]
        rot = table_rotation(kp.angle[idx])
        raw = kp.angle[weak]
        snapped = rot + 90.0 * np.round((raw - rot) / 90.0)
        ang = self.search_angles(image, spec, kp.xy[weak], np.column_stack([raw, snapped]), wid)
        frames = [frame_from_pose(kp.xy[i], a, w, spec) for i, a, w in zip(weak, ang, wid,
                                                                            strict=True)]
        return weak, frames

    def settle_backs(self, image: np.ndarray, pieces: list[CardPiece],
                     sized: list[CardPiece] = ()) -> list[CardPiece]:
        """Troetofanten face-down cards made whole: a back's pattern looks alike at any
        scale and at both of its corners, so the width search and the detector's corner
        are weak evidence for it. Each back takes the width of the face-up cards nearest
        to it (all cards share one size); two backs whose centres then lie within
        `back_duplicate` widths are one card (its two corners). Card-shaped regions of the
        backs' own look (`look_alike_regions`) then give a back its outline, and where no
        back was read one is added when the card classifier reads it as a back in either
        orientation. Where no back was read surely, card-shaped regions of one colour are
        backs (`design_regions`). Last, a strip of the look beside a card read is a back
        under it (`look_strips`). `sized`: backs of `pieces` that keep their own width (the
        close-up look's, `second_look`: read at their own size)."""
        s = self.settings
        spec = SPECS["troetofanten"]
        up = [p for p in pieces if p.label != "back"]
        backs = sorted((p for p in pieces if p.label == "back"), key=lambda p: -p.confidence)
        if not backs and not up:
            return pieces
        if up and backs:
            up_xy = np.array([p.key for p in up])
            up_w = np.array([p.width for p in up])
            for k, p in enumerate(backs):
                if any(p is q for q in sized):
                    continue
                w = near_width(up_xy, up_w, p.key)
                backs[k] = replace(p, frame=frame_from_pose(p.key, p.angle, w, spec), width=w)
        kept: list[CardPiece] = []
        for p in backs:
            if not any(np.hypot(*(q.center - p.center)) < s.back_duplicate * q.width
                       for q in kept):
                kept.append(p)
        sure = [p for p in kept if p.confidence >= s.look_min_conf]
        centres = np.array([p.center for p in pieces])
        widths = np.array([p.width for p in pieces])
        masks: list = []
        ends: list = []
        if not sure:  # no back to learn their look from: card-shaped regions of one colour
            for c, a, w, _ in design_regions(image, centres, widths, s, masks, ends):
                self._add_back(kept, up, c, a, w)
        else:
            kept = self._look_backs(image, up, kept, sure, centres, widths, masks, ends)
        kept = self._one_read_twice(up, kept, masks)
        for c, a, w in end_backs(ends, [p.frame for p in up + kept], centres, widths,
                                 spec.aspect, s):
            self._add_back(kept, up, c, a, w)
        return self._add_strips(up, kept, masks)

    def _one_read_twice(self, up: list[CardPiece], kept: list[CardPiece], masks: list
                        ) -> list[CardPiece]:
        """`kept` less the backs that are another back read again at a second place: turned
        alike (`twice_turn`, modulo a half turn), their centres within `twice_reach` widths,
        and the backs' look (`masks`) covering too little of what each shows off the other
        (`shown_off` summing under `twice_shown`). The surer one is kept. Turned any way,
        one whose part off the other the look covers under `twice_none` is no card there
        (dropped). (Two readings inside one card-shaped region are `_read_twice`'s.)"""
        s = self.settings
        if not masks or len(kept) < 2:
            return kept
        mask = faces = None  # (the look's and the face-up cards' masks: where a pair asks)
        drop: set[int] = set()
        order = sorted(range(len(kept)), key=lambda k: -kept[k].confidence)
        for i, k in enumerate(order):
            if k in drop:
                continue
            p = kept[k]
            for j in order[i + 1:]:
                q = kept[j]
                if j in drop or np.hypot(*(p.center - q.center)) >= s.twice_reach * min(
                        p.width, q.width):
                    continue
                alike = abs((p.angle - q.angle + 90) % 180 - 90) <= s.twice_turn
                if not alike and s.twice_none <= 0.0:
                    continue
                if faces is None:
                    mask = np.maximum.reduce(masks)
                    faces = _frames_mask([u.frame for u in up], s.look_scale, mask.shape, 1.0)
                shares = shown_off(mask, p.frame, q.frame, faces, s.look_scale, s.twice_seen)
                if shares is None:
                    continue
                if min(shares) < s.twice_none:  # one shows no back off the other: no card
                    drop.add(j if shares[1] <= shares[0] else k)  # there, turned any way
                    if k in drop:
                        break
                elif alike and sum(shares) < s.twice_shown:
                    drop.add(j)
        return [p for k, p in enumerate(kept) if k not in drop]

    def _look_backs(self, image: np.ndarray, up: list[CardPiece], kept: list[CardPiece],
                    sure: list[CardPiece], centres: np.ndarray, widths: np.ndarray,
                    masks: list, ends: list) -> list[CardPiece]:
        """`settle_backs`' backs (`kept`) where some were read surely (`sure`): card-shaped
        regions of their look give a back its outline, or, where none was read, are read by
        the classifier in both orientations (`masks`, `ends` filled as
        `look_alike_regions` does)."""
        s = self.settings
        spec = SPECS["troetofanten"]
        regions = look_alike_regions(image, [p.frame for p in sure], centres, widths, s,
                                     masks, [p.frame for p in up], ends)
        cand = []
        for c, a, w, ratio in regions:  # the region's short side: the card's width
            here = [k for k, p in enumerate(kept) if np.hypot(*(p.center - c)) < 0.5 * w]
            frames = [card_frame(c, a + turn, w, spec.aspect) for turn in (0.0, 180.0)]
            corner = at_corners(kept, frames, w, s) if s.corner_backs and \
                ratio >= spec.aspect else []  # (a pile shifted across is squarer)
            if corner and set(here) <= set(corner):  # every back read here is read at
                here = corner  # one of the region's two corner indices: one card
            elif len(here) > 1 and not (  # more cards than one: leave them, unless it is
                    (len(here) == 2 and abs((kept[here[0]].angle - kept[here[1]].angle)
                                            % 360 - 180) < 30)  # one read from both corners,
                    or self._read_twice(kept, here, masks, frames[0], w, ratio)):  # or twice
                continue
            if here:  # its outline: the orientation nearest the back's own
                k = here[0]  # the surest
                turn = 180.0 * (abs((kept[k].angle - a + 180) % 360 - 180) > 90)
                fr = frames[int(turn > 0)]
                key, _, _ = pose_from_frame(fr, spec)
                kept[k] = replace(kept[k], key=key, frame=fr, angle=float(a + turn), width=w)
                kept = [p for j, p in enumerate(kept) if j == k or j not in here]
            else:
                cand += [(fr, a + turn, w) for fr, turn in zip(frames, (0.0, 180.0),
                                                                strict=True)]
        if cand:  # the classifier alone: the number model can move the argmax off "back"
            pg, bg, _, _ = self.read_crops(image, [f for f, _, _ in cand], "troetofanten",
                                              numbers=False)
            j_back = TROETO_LABELS.index("back")
            for r in range(0, len(cand), 2):
                k = r + int(pg[r + 1, j_back] > pg[r, j_back])  # the likelier orientation
                conf = float(pg[k, j_back] / max(pg[k].sum(), 1e-9) * (1 - bg[k]))
                if pg[k, j_back] < s.back_min_prob or pg[k].argmax() != j_back or \
                        conf < max(s.min_confidence, s.back_min_confidence):
                    continue
                frame, a, w = cand[k]
                key, _, _ = pose_from_frame(frame, spec)
                kept.append(CardPiece("back", conf, key, frame, float(a), w,
                                      {lab: float(v) for lab, v in
                                       zip(TROETO_LABELS, pg[k], strict=True)}))
        return kept

    def _read_twice(self, kept: list[CardPiece], here: list[int], masks: list,
                    region: np.ndarray, w: float, ratio: float) -> bool:
        """Whether the backs `kept[here]`, read inside one card-shaped region of the backs'
        look (its frame `region`, short side `w` px, long side `ratio` x that), are one
        card read twice: the region is no larger than one card of their width
        (`one_card_region`) and none of them reaches off it onto more of the look
        (`off_region_look` on `masks[-1]`, the look's closed mask: a card under it would).
        A card read twice at two places apart, each reading in its own region, is
        `_one_read_twice`'s."""
        s = self.settings
        return bool(masks) and one_card_region(
            w, ratio, [kept[k].width for k in here], SPECS["troetofanten"].aspect,
            s.one_back_size) and all(off_region_look(masks[-1], kept[k].frame, region, s.look_scale)
                                     < s.one_back_look for k in here)

    def close_keys_ahead(self, image: np.ndarray):
        """`second_look`'s close-up check started on a helper thread (`run_helper`)
        where `close_ahead` and a core is spare (`spare_core`), else None: a future of
        [(g, the photo at g, the detector's key points on it)] for g in (`second_scale`, its
        square), as `second_look` finds them itself. Call it within the reading's
        `keeping_scaled` after the photo's own key points (the half-size photo is then the
        detector's input, made already)."""
        s = self.settings
        f = s.second_scale
        if f is None or not s.close_ahead or not spare_core(s):
            return None
        small = area_scaled(image, f)
        ims = [(f, small), (f * f, area_scaled(small, f))]  # (made here, in the reading's
        #   memo: `paper_regions` takes the quarter photo too)
        thr = min(s.key_threshold, s.dove_threshold)
        return run_helper(s, lambda: [(g, im, self.detector.detect(im, thr)) for g, im in ims])

    def second_look(self, image: np.ndarray, pieces: list[CardPiece], searched: np.ndarray,
                    posed: np.ndarray, xy: np.ndarray, sure: int, ahead=None
                    ) -> list[CardPiece]:
        """Troetofanten `pieces` with the cards too large for the detector read once more on
        the photo at `second_scale`, when the first look's width search (`searched`, per
        strong key point) found `big_count` cards at least `big_card` px wide and
        `big_field` x as wide as the pose they were then given (`posed`: the width field of
        a close-up's far cards makes the near ones too narrow, and the detector's heat
        fades on them; where all cards are large the field follows them and the first look
        reads them; `xy`: those key points). A card read there at least `big_card` px wide
        and `big_ratio` x as wide as the first look's cards nearest to it, centred in the
        photo within `big_reach` x a searched width of a key point that asked for the look
        (large cards lie where the first look saw some), and read with `low_confidence` at
        least, is added, unless a card read about as wide lies within `back_duplicate` of
        its width; the first look's readings inside it that are that much narrower go (the
        same card read too small), unless one of them reads as another label (two cards
        there: a fan or a pile that the small photo blurs into one wide card; then the
        first look stands). The second look reads only the key points near those that
        asked for it, with a shorter width search (`second_width_scales`). A close-up
        whose cards all are too large (the first look finds few and poses them narrow):
        where the detector finds `close_more` more key points of `close_heat` on the small
        photo than the first look's `sure` ones, the whole small photo is read so, at
        `second_scale` or its square (the cards larger still), whichever shows more. Where
        it adds cards, the backs are settled again among them (`resettle_backs`,
        `settle_again`: the added backs keep their own width). The cards those rules turn
        away are merged card by card by key point (`close_merge`, `close_merged`; not for
        the whole small photo's look), and those it adds or puts in count as added here
        too. `ahead`: the close-up check's key points from `close_keys_ahead` (a future;
        None: found here)."""
        s = self.settings
        f = s.second_scale
        if f is None:
            return pieces
        asked = (searched >= s.big_card) & (searched >= s.big_field * posed)
        small = area_scaled(image, f)  # (the detector's own input, `keeping_scaled`)
        keys = None  # (the picked small photo's key points, when a close-up's count them)
        whole = False  # (a close-up: the whole small photo is read)
        if np.count_nonzero(asked) >= s.big_count and pieces:
            if ahead is not None:
                ahead.cancel()  # (not needed: stopped where it has not started)
            xy, reach = xy[asked], s.big_reach * searched[asked]
        else:  # a close-up: at the scale where the detector finds the most key points
            best = sure + s.close_more - 1
            thr = min(s.key_threshold, s.dove_threshold)  # (read_pieces' own: detected once;
            #   decode's peaks of heat >= close_heat are the same at any lower threshold)
            looks = ahead.result() if ahead is not None else None
            for k, g in enumerate((f, f * f)):
                if looks is not None:  # (found meanwhile on a helper thread, the same)
                    _, im, kp = looks[k]
                else:
                    im = small if g == f else area_scaled(small, f)
                    kp = self.detector.detect(im, thr)
                n = int(np.count_nonzero((kp.kind == KIND_PIECE) & (kp.score >= s.close_heat)))
                if n > best:
                    best, pick, found, keys = n, g, im, kp
            if best < sure + s.close_more:
                return pieces
            f, small = pick, found
            xy, reach = np.zeros((1, 2)), np.array([np.inf])  # the whole photo
            whole = True
        look = copy.copy(self)  # (the same models; the detector's widths are good here)
        look.settings = replace(s, width_scales=s.second_width_scales)
        more, _ = look.read_pieces(small, "troetofanten",  # (near the key points that asked)
                                   within=((xy + 0.5) * f - 0.5, reach * f), keys=keys)
        at = np.array([p.center for p in pieces]).reshape(-1, 2)
        wid = np.array([p.width for p in pieces])
        drop: set[int] = set()
        big, turned = [], []
        for q in more:  # (the small photo's pixel centres in the photo's pixels)
            q = replace(q, key=(q.key + 0.5) / f - 0.5, frame=(q.frame + 0.5) / f - 0.5,
                        width=q.width / f)
            if q.confidence < s.low_confidence or \
                    not (0 <= q.center[0] < image.shape[1] and 0 <= q.center[1] < image.shape[0]) \
                    or not (np.hypot(*(xy - q.center).T) <= reach).any():
                continue
            if q.width < max(s.big_card, s.big_ratio * near_width(at, wid, q.center)
                             if len(at) else 0.0) or any(
                    p.width * s.big_ratio > q.width and
                    np.hypot(*(p.center - q.center)) < s.back_duplicate * q.width
                    for p in pieces):  # (not wider than the cards read there)
                turned.append(q)
                continue
            inside = [k for k, p in enumerate(pieces) if p.width * s.big_ratio <= q.width
                      and inside_frame(p.center, q.frame, 1.0)]
            if any(pieces[k].label != q.label for k in inside):  # more than one card there
                #   (a fan or a pile the small photo blurs into one wide card)
                turned.append(q)
                continue
            big.append(q)
            drop.update(inside)
        out = [p for k, p in enumerate(pieces) if k not in drop] + big
        if s.close_merge and turned and not whole:  # (not for a whole close-up's look)
            n = len(out)
            out = close_merged(out, turned, turned + big, xy, s)
            big += out[n:] + [q for q in out[:n] if any(q is t for t in turned)]
        if big and s.resettle_backs:  # (the first look's backs took the width of the
            #   far cards read then, about half a near back's: read again at the near
            #   cards' width, so that one back's readings come together)
            out = self.settle_again(image, out, big)
        return out

    def settle_again(self, image: np.ndarray, pieces: list[CardPiece],
                     sized: list[CardPiece]) -> list[CardPiece]:
        """`settle_backs` once more (`second_look`'s, on its merged pieces), the backs of
        `sized` keeping their width. Not for a taught reader, whose `settle_backs`
        (`vision.teach_cards`: called with the image and the pieces alone) adds the taught
        look's backs: run twice it added 2 backs that are not there on an edition-2
        close-up (committed e2 0001's centre enlarged 2 x); its pieces are returned as
        they are."""
        settle = self.settle_backs
        if getattr(settle, "__func__", None) is not CardReader.settle_backs:
            return pieces
        return settle(image, pieces, sized)

    def far_look(self, image: np.ndarray, pieces: list[CardPiece], busy: bool = False
                 ) -> tuple[list[CardPiece], list[str]] | None:
        """Troetofanten photos taken from afar: where the face-up cards read (`pieces`, at
        least 2) are narrower than `far_card` px (median), the part of the photo around
        the pieces read (`far_margin` x that width beyond them) is read once more, enlarged
        `far_scale` x, the whole way (`read_pieces`; no far look nor close-up look there,
        the shorter width search `second_width_scales`: the enlarged cards are of the
        detector's size). Its pieces and warnings (positions in the photo's pixels) are
        returned when it reads more pieces than the first look (neither look's `faint`
        readings counted, nor the first look's taken for the part: as before `weak_kind`),
        with the first look's pieces that no piece of it lies near (within half their width:
        a card the far look lost); else None. `busy`: the photo's look was busy (its part
        enlarged poses fewer key points: its table is judged as busy, `busy_table`)."""
        s = self.settings
        first = [p for p in pieces if not p.faint]  # (the look's choice as without them)
        up = [p for p in first if p.label != "back"]
        if s.far_scale is None or len(up) < 2:
            return None
        w = float(np.median([p.width for p in up]))
        if w >= s.far_card:
            return None
        g = s.far_scale
        xy = np.array([p.center for p in first])
        h, wd = image.shape[:2]
        x0, y0 = (int(max(0.0, v)) for v in xy.min(axis=0) - s.far_margin * w)
        x1, y1 = int(min(wd, xy[:, 0].max() + s.far_margin * w + 1)), \
            int(min(h, xy[:, 1].max() + s.far_margin * w + 1))
        big = cv2.resize(image[y0:y1, x0:x1], None, fx=g, fy=g, interpolation=cv2.INTER_LINEAR)
        look = copy.copy(self)
        look.settings = replace(s, far_scale=None, second_scale=None,
                                width_scales=s.second_width_scales,
                                busy_table=s.busy_table or busy)
        def taken(more: list[CardPiece]) -> bool:  # (more pieces than the first look)
            return sum(not q.faint for q in more) > len(first)

        with warnings_when(taken):  # (its warnings made only where it is taken)
            more, warnings = look.read_pieces(big, "troetofanten")
        if not taken(more):
            return None
        off = np.array([x0, y0], float)
        more = [replace(q, key=from_enlarged(q.key, g, off),
                        frame=None if q.frame is None else from_enlarged(q.frame, g, off),
                        width=q.width / g) for q in more]
        keep = [p for p in pieces  # (a card the far look lost: the first look's reading)
                if not any(np.hypot(*(q.center - p.center)) < 0.5 * p.width for q in more)]
        return more + keep, ([shift_positions(t, g, off) for t in warnings]
                             + piece_warnings(keep, "troetofanten", s,
                                              blurred=self.blurred_numbers(image, keep)))

    def read_paper(self, image: np.ndarray, pieces: list[CardPiece]
                   ) -> tuple[list[CardPiece], list[np.ndarray]]:
        """Troetofanten `pieces` with the cards found by their paper (`paper_regions`, off
        every card read: a card the detector gave no key point) that the card classifier
        reads surely as a face-up card (`weak_up_confidence`, the better of the region's two
        orientations along its short side; the width of the 3 cards read nearest, as all
        cards share one size and the region's edges are blurred at `paper_scale`), and the
        centres of the other regions (warned
        about: a covered corner index leaves the classifier unsure)."""
        s = self.settings
        spec = SPECS["troetofanten"]
        regions = paper_regions(image, pieces, s)
        if not regions or not s.paper_read:
            return pieces, [c for c, _, _, _ in regions]
        at = np.array([p.center for p in pieces])
        wid = np.array([p.width for p in pieces])
        regions = [(c, a, near_width(at, wid, c), r) for c, a, _, r in regions]
        frames = [card_frame(c, a + turn, w, spec.aspect) for c, a, w, _ in regions
                  for turn in (0.0, 180.0)]
        probs, _, _, conf = self.read_crops(image, frames, "troetofanten")
        out, unread = list(pieces), []
        for n, (c, _, w, _) in enumerate(regions):
            k = 2 * n + int(conf[2 * n + 1] > conf[2 * n])
            label = TROETO_LABELS[int(probs[k].argmax())]
            if conf[k] < s.weak_up_confidence or label == "back":
                unread.append(c)
                continue
            key, ang, _ = pose_from_frame(frames[k], spec)
            piece = CardPiece(label, float(conf[k]), key, frames[k], float(ang), float(w),
                              {lab: float(v) for lab, v in zip(TROETO_LABELS, probs[k],
                                                               strict=True)})
            twin = paper_twin(piece, out, s.duplicate) if s.paper_twin else None
            if twin is None:
                out.append(piece)
            elif piece.confidence > out[twin].confidence:
                out[twin] = piece
        return out, unread

    def _add_back(self, kept: list[CardPiece], up: list[CardPiece], c, a: float, w: float
                  ) -> None:
        """Append to `kept` the face-down card centred at `c` (u axis at `a` degrees, `w` px
        wide) found by its look alone, unless a card read lies there (within `design_apart`
        widths of its centre: a row's overlapping cards lie 0.3 widths apart and more), or it
        is a back read surely once more, crosswise (`crosswise_on_back`)."""
        s = self.settings
        if any(np.hypot(*(p.center - c)) < s.design_apart * w for p in up + kept) or \
                crosswise_on_back(c, a, w, kept, s):
            return
        kept.append(back_piece(c, a, w, s.design_confidence))

    def _add_strips(self, up: list[CardPiece], kept: list[CardPiece], masks: list
                    ) -> list[CardPiece]:
        """`up + kept` and the face-down cards under them that show a strip of the backs'
        look (`look_strips` on the union of `masks`)."""
        if not masks:
            return up + kept
        mask = np.maximum.reduce(masks)
        pieces = up + kept
        for c, a, w in look_strips(mask, [p.frame for p in pieces],
                                   np.array([p.center for p in pieces]),
                                   np.array([p.width for p in pieces]), self.settings,
                                   len(up)):
            self._add_back(kept, up, c, a, w)
        return up + kept

    def _detect(self, image: np.ndarray, threshold: float) -> Keypoints:
        """`self.detector.detect(image, threshold, self._key_threads())`; the CPU its extra
        intra-op threads used (the process's CPU less this thread's, at most theirs over the
        run's wall time) added to `HELPERS`."""
        threads = self._key_threads()
        if threads is None:
            return self.detector.detect(image, threshold, None)
        t, c, w = time.thread_time(), time.process_time(), time.monotonic()
        kp = self.detector.detect(image, threshold, threads)
        extra = (time.process_time() - c) - (time.thread_time() - t)
        HELPERS.add(min(extra, (threads - 1) * (time.monotonic() - w)))
        return kp

    def _key_threads(self) -> int | None:
        """`KeyDetector.detect`'s `threads`: where a core is spare (`spare_core`), at least 2
        (the reader's own count where more; 0, onnxruntime's own count, is every core
        already), else None (the reader's own session)."""
        own = self.detector.threads
        return max(2, own) if own and spare_core(self.settings) else None

    def detect_keys(self, image: np.ndarray, game: str) -> tuple[Keypoints, int]:
        """(key points, how many are the photo's own): the detector's key points on uint8
        BGR `image` down to min(`key_threshold`, `dove_threshold`) heat; Magic Rabbit's
        followed by those it finds on the photo balanced by its own light
        (`balanced_keys`) that the photo's own lack (`detect.merge_keys`)."""
        s = self.settings
        low = min(s.key_threshold, s.dove_threshold)
        kp = self._detect(image, low)
        if game != "magic-rabbit" or s.balanced_keys <= 0:
            return kp, len(kp)
        balanced = apply_gains(image, light_gains(image, s.balanced_keys))
        more = self._detect(balanced, low)
        return merge_keys(kp, more, (s.key_threshold, s.dove_threshold), s.balanced_reach,
                          (s.key_threshold, s.balanced_dove)), len(kp)

    def read_pieces(self, image: np.ndarray, game: str, area=None,
                    within: tuple[np.ndarray, np.ndarray] | None = None,
                    keys: Keypoints | None = None) -> tuple[list[CardPiece], list[str]]:
        """`_read_pieces` within `keeping_rows` (a crop of this image read again takes its
        rows; nothing kept after it, and `second_look`'s reading inside keeps its own)."""
        with keeping_rows(), keeping_small_hsv(image), keeping_scaled():  # (the look's HSV
            #   photo, once; the photo's area resizes, once)
            return self._read_pieces(image, game, area, within, keys)

    def _read_pieces(self, image: np.ndarray, game: str, area=None,
                     within: tuple[np.ndarray, np.ndarray] | None = None,
                     keys: Keypoints | None = None) -> tuple[list[CardPiece], list[str]]:
        """`_read_gated` with this context's `warnings_when` gate (taken: the reads it makes
        inside see none)."""
        gate, token = _WARN_GATE.get(), _WARN_GATE.set(None)
        try:
            return self._read_gated(image, game, area, within, keys, gate)
        finally:
            _WARN_GATE.reset(token)

    def _read_gated(self, image: np.ndarray, game: str, area=None,
                    within: tuple[np.ndarray, np.ndarray] | None = None,
                    keys: Keypoints | None = None, gate=None
                    ) -> tuple[list[CardPiece], list[str]]:
        """Pieces (label, confidence, pose) of `game` in the image, and warnings. `area`:
        the Hop la bille cloth (cards then take their frame from its plane). `gate`: a
        Troetofanten read's `warnings_when` (where it is false for the pieces read, the
        warnings returned are not all made). `within`:
        (centres (M, 2), radii (M,)) px: only the key points inside these discs are read
        (`second_look`'s; without it, Troetofanten cards too large for the detector are
        looked for once more). `keys`: the detector's key points on `image` at
        min(`key_threshold`, `dove_threshold`) where the caller has them already."""
        s = self.settings
        spec = SPECS[game]
        faint = None  # (Troetofanten: the detector's peaks under the heat read, for
        #   `fan_gap_cards`)
        low = min(s.key_threshold, s.dove_threshold)
        if keys is None and game == "troetofanten" and s.fan_gaps and s.fan_gap_heat < low:
            every = self._detect(image, s.fan_gap_heat)
            read = every.score >= low  # (as decoded down to `low`: the same key points)
            kp, own = every.select(read), int(np.count_nonzero(read))
            faint = every.select(~read & (every.kind == KIND_PIECE))
        else:
            kp, own = (keys, len(keys)) if keys is not None else self.detect_keys(image, game)
        ahead = self.close_keys_ahead(image) if game == "troetofanten" and \
            within is None else None  # (`second_look`'s close-up check, meanwhile)
        if within is not None:
            c, rad = within

            def inside(xy: np.ndarray) -> np.ndarray:
                return (np.hypot(*(xy[:, None] - c[None]).transpose(2, 0, 1))
                        <= rad[None]).any(axis=1)

            kp = kp.select(inside(kp.xy))
            if faint is not None:  # (the fan gaps' peaks too: only these discs are read)
                faint = faint.select(inside(faint.xy))
        warnings: list[str] = []
        pieces: list[CardPiece] = []
        thr = s.troeto_key_threshold if game == "troetofanten" else s.key_threshold
        searched: list[float] = []
        raw = kp
        kp, idx, frames = self.pose_key_points(image, game, kp, thr, area, searched) \
            if own == len(kp) else \
            self.pose_key_points(image, game, kp, thr, area, searched, own)
        n_strong = len(idx)
        warnings += noise_warning(kp, thr, s.max_keys, s.busy_keys if s.busy_warning else None)
        if game == "troetofanten" and s.back_key_threshold < thr:
            weak, weak_frames = self.pose_back_candidates(image, kp, idx)
            idx, frames = np.concatenate([idx, weak]), frames + weak_frames
        labels = GAME_LABELS[game]
        at = None
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if game == "troetofanten" else None
        if game == "troetofanten":  # (the number's crop turned to the card's own edges)
            turned = edge_angles(gray, kp.xy[idx[:n_strong]], kp.angle[idx[:n_strong]],
                                 kp.width[idx[:n_strong]], s)
            at = [frame_from_pose(kp.xy[i], a, kp.width[i], spec)
                  for i, a in zip(idx[:n_strong], turned, strict=True)] + frames[n_strong:]
        game_probs, bgs, is_piece, confs = self.read_crops(image, frames, game, at)
        n_main, posed_widths = len(idx), kp.width[idx[:n_strong]].copy()  # (`second_look`'s)
        quarter = np.zeros(0, bool)  # (per key point read again: posed turned a quarter or
        #   half turn off its first pose and the detector's, `repose_turns`)
        if game == "troetofanten" and s.repose:  # (a card alone off the shared pose: read
            #   again after every other key point, as a weak one is, `repose_strong`)
            read_surely = [CardPiece(labels[int(np.argmax(game_probs[r]))], float(confs[r]),
                                     kp.xy[idx[r]], frames[r], float(kp.angle[idx[r]]),
                                     float(kp.width[idx[r]]))
                           for r in np.flatnonzero(confs[:n_strong] >= s.min_confidence)]
            posed_angle = kp.angle.copy()  # (`repose_strong` sets the angles it reads)
            again, new = self.repose_strong(image, raw, kp, idx[:n_strong],
                                            np.asarray(searched), frames, is_piece, confs,
                                            read_surely)
            if len(again):
                ii = idx[again]
                quarter = (_turn_off(kp.angle[ii], posed_angle[ii]) > 45.0) & (
                    _turn_off(kp.angle[ii], raw.angle[ii]) > 45.0)  # (`repose_turns`' poses)
                turned = edge_angles(gray, kp.xy[ii], kp.angle[ii], kp.width[ii], s)
                re = self.read_crops(image, new, game, [
                    frame_from_pose(kp.xy[i], a, kp.width[i], spec)
                    for i, a in zip(ii, turned, strict=True)])
                game_probs, bgs, is_piece, confs = (np.concatenate([v, w]) for v, w in zip(
                    (game_probs, bgs, is_piece, confs), re, strict=True))
                idx, frames = np.concatenate([idx, ii]), frames + new
        under: list[tuple[str, np.ndarray, np.ndarray]] = []  # (label, key, frame): weak
        #   key points read surely as face-up cards on a card read
        doubted: list[tuple[str, np.ndarray, np.ndarray, dict]] = []  # (kind, key, frame,
        #   probs) of strong key points dropped because their number splits
        unsure_backs: list[tuple[np.ndarray, float, float]] = []  # (centre, width,
        #   confidence) of backs read under `back_min_confidence`
        countable: list[tuple[int, CardPiece]] = []  # (key point, reading): doubted
        #   readings sure of their kind (`count_doubted`)
        weak_sure: list[CardPiece] = []  # weak key points' readings sure of their kind,
        #   not of their number (`weak_kind`)
        refuted: set[int] = set()  # key points whose `repose_strong` crop, read again, was
        #   a back: a doubt there is not counted. (Background cannot refute one: a doubt is
        #   a piece, and its re-read is the same frame and classifier, so still a piece.)
        edge_turned: dict[int, float] = {}  # id(kept piece): its own top edge's direction

        def own_edge(q: CardPiece) -> float:  # (`fan_edge`: only asked of a fan's neighbours)
            if id(q) not in edge_turned:
                edge_turned[id(q)] = float(edge_angles(gray, q.key[None], np.array([q.angle]),
                                                       np.array([q.width]), s)[0])
            return edge_turned[id(q)]

        no_piece: list[int] = []  # rows of posed tiles read as no piece, or under
        #   `min_confidence` by kind too (Magic Rabbit's `magician_at_end`)
        for r, i in enumerate(idx):
            if not is_piece[r]:
                no_piece.append(r)
                continue
            pg, bg, conf = game_probs[r], float(bgs[r]), float(confs[r])
            b = int(np.argmax(pg))
            if r >= n_main and labels[b] == "back":
                refuted.add(int(i))
            probs = {lab: float(v) for lab, v in zip(labels, pg, strict=True)}
            if game == "troetofanten" and conf < s.min_confidence and r < n_strong \
                    and within is None:  # (`second_look`'s own readings are not warned about)
                kind = labels[b].rsplit("-", 1)[0]
                kconf = label_kind_share(labels[b], probs) * (1 - bg)
                if kind in TROETO_NUMBERED and kconf >= s.doubt_kind:
                    doubted.append((kind, kp.xy[i].copy(), frames[r], probs))
                    if kconf >= s.count_doubted:
                        countable.append((int(i), CardPiece(
                            labels[b], conf, kp.xy[i].copy(), frames[r],
                            float(kp.angle[i]), float(kp.width[i]), probs)))
            fan = game == "troetofanten" and conf >= s.fan_confidence
            if seen_before(kp.xy[i], labels[b], pieces, s.duplicate,
                           s.fan_step if fan else None, s.fan_across,
                           own_edge if fan and s.fan_edge else None):
                continue
            if game != "troetofanten" and any(  # tiles and these cards never overlap
                    inside_frame(frames[r].mean(axis=0), q.frame, s.no_overlap) for q in pieces):
                continue
            label, keep = labels[b], conf
            atop = n_strong <= r < n_main and label != "back" and conf >= s.weak_atop and \
                on_other_kinds(kp.xy[i], float(kp.angle[i]), frames[r], label,
                               weak_test_cards(pieces, s), s)
            if game == "troetofanten" and n_strong <= r < n_main and within is None and \
                    not atop and \
                    conf < s.weak_up_confidence and label.rsplit("-", 1)[0] in TROETO_NUMBERED \
                    and label_kind_share(label, probs) * (1 - bg) >= s.weak_kind:
                weak_sure.append(CardPiece(label, conf, kp.xy[i].copy(), frames[r],
                                           float(kp.angle[i]), float(kp.width[i]), probs))
                continue
            if game == "magic-rabbit" and conf < s.min_confidence:  # (a number split
                label, keep = magic_tile_label(probs, bg)  # between colours: kept by kind)
            if keep < s.min_confidence:
                no_piece.append(r)
                continue
            if r >= n_main and (label == "back" or conf < (
                    s.repose_turn_confidence if quarter[r - n_main] else s.repose_confidence)
                                or on_a_card_off_row(kp.xy[i], float(kp.angle[i]), frames[r],
                                                     pieces, s)):
                continue  # (a strong key point read again: a face-up card on no card read)
            if n_strong <= r < n_main and not atop and (
                    pg[b] < s.back_min_prob if label == "back" else (
                    conf < s.weak_up_confidence or on_a_card_off_row(
                        kp.xy[i], float(kp.angle[i]), frames[r], weak_test_cards(pieces, s),
                        s))):
                if game == "troetofanten" and label != "back" and \
                        conf >= s.weak_up_confidence and within is None:
                    under.append((label, kp.xy[i].copy(), frames[r]))
                continue  # a weak key point: a face-down card, or a face-up one read surely
                #           on no card read already
            if label == "back" and conf < s.back_min_confidence:
                if game == "troetofanten" and conf >= s.back_doubt and within is None:
                    unsure_backs.append((frames[r].mean(axis=0), float(kp.width[i]), conf))
                continue
            pieces.append(CardPiece(label, conf, kp.xy[i].copy(), frames[r], float(kp.angle[i]),
                                    float(kp.width[i]), probs))
            #   (unrounded: shares under 5e-5 stay apart in `lineup.distinct_numbers`)
        pieces = counted_doubts([q for i, q in countable if i not in refuted], pieces,
                                s.duplicate)
        pieces = counted_weak(weak_sure, pieces, s)
        if game == "troetofanten" and s.fan_gaps:  # (at the detector's peaks under `thr`)
            peaks = kp.xy[(kp.kind == KIND_PIECE) & (kp.score < thr)]
            if faint is not None:
                peaks = np.concatenate([faint.xy, peaks])
            pieces = pieces + self.fan_gap_cards(image, gray, pieces, peaks)
        relabelled: list[CardPiece] = []  # (by `box_limits`: its warning names the number)
        if game == "troetofanten":
            pieces, twins = drop_turned_twins(pieces, s.twin_reach,
                                              same_place=s.twin_same_place)
            warnings += twins
            pieces = self.settle_backs(image, pieces)
            if within is None:  # (`idx` only extended since; `kp.xy` as posed)
                strong = idx[:n_strong]  # (their key points; widths: `posed_widths`)
                sure = int(np.count_nonzero((kp.kind == KIND_PIECE) & (kp.score >= s.close_heat)))
                pieces = self.second_look(image, pieces, np.asarray(searched), posed_widths,
                                          kp.xy[strong], sure, ahead)
                busy = s.busy_table or int(np.count_nonzero(
                    (kp.kind == KIND_PIECE) & (kp.score >= thr))) > s.busy_keys  # (the busy
                #   warning's count: a printed cloth, a newspaper; or the far look's part of
                #   a photo found busy)
                pieces, _ = pattern_readings(image, pieces, busy, s)
                pieces, _ = lone_shape_backs(pieces, busy, s)
                unread: list[np.ndarray] = []
                if (s.paper_warnings or s.paper_read) and pieces:
                    pieces, unread = self.read_paper(image, pieces)
                if s.table_share <= 1.0:
                    pieces, bare = on_bare_table(image, pieces, s)
                    warnings += bare
                warnings += unseen_cards(pieces, doubted, under, s,
                                         unread if s.paper_warnings else (), unsure_backs)
                off_at, off_pieces = len(warnings), list(pieces)  # (`look_off_cards`, below)
                pieces, rare = unsure_rare(pieces, s)
                warnings += rare
                pieces, more, relabelled = box_limits(pieces)
                warnings += more
                far = self.far_look(image, pieces, busy)
                if far is not None:  # (read again larger: its own pieces and warnings)
                    return far
                pieces, differ, checked = self.opposite_numbers(image, pieces)  # (within
                #   the box's counts, `TROETO_COUNTS`)
                warnings += differ
                relabelled = relabelled + checked  # (their warning names the number)
                if gate is not None and not gate(pieces):  # (the caller reads no warnings
                    return pieces, warnings  # of this read: the pieces are final here)
                if s.look_off_warnings:  # (in its place, once the far look is not taken)
                    warnings[off_at:off_at] = look_off_cards(image, off_pieces, s)
        judged = len(pieces)  # (the row search judges its own cards' faces: face_up_colour)
        if game == "hop-la-bille" and area is not None and s.hop_row_backs:
            pieces = hop_row_backs(image, area, pieces, s)
        if game == "hop-la-bille" and s.hop_faces:
            from vision.cards.hopcards import settle_faces

            pieces = settle_faces(image, pieces[:judged]) + pieces[judged:]
        if game == "magic-rabbit":  # doves lie on hats: the strongest one per hat
            hats = [p for p in pieces if p.label.startswith("hat-")]
            best: dict[int, int] = {}
            for i in np.flatnonzero((kp.kind == KIND_DOVE) & (kp.score >= s.dove_threshold)):
                if not hats:
                    break
                d = [np.hypot(*(kp.xy[i] - h.center)) / max(h.width, 1.0) for h in hats]
                j = int(np.argmin(d))
                if d[j] <= s.dove_reach and (j not in best or kp.score[i] > kp.score[best[j]]):
                    best[j] = int(i)
            for i in best.values():
                pieces.append(CardPiece("dove", float(min(1.0, kp.score[i] / 0.4)),
                                        kp.xy[i].copy(), None, 0.0, float(kp.width[i])))
        if game == "magic-rabbit":  # each number's colour, shared by its hat and rabbit
            pieces, warnings = magic_tiles(image, pieces, warnings, s)
            pieces, more = magician_at_end(pieces, [
                CardPiece("unread", 0.0, kp.xy[idx[r]].copy(), frames[r],
                          float(kp.angle[idx[r]]), float(kp.width[idx[r]]))
                for r in no_piece if r < n_main])
            warnings += more
        blurred = self.blurred_numbers(image, pieces) if game == "troetofanten" else set()
        warnings += piece_warnings(pieces, game, s, relabelled, blurred)
        return pieces, warnings

    def opposite_numbers(self, image: np.ndarray, pieces: list[CardPiece]
                         ) -> tuple[list[CardPiece], list[str], list[CardPiece]]:
        """`vision.cards.opposite.opposite_numbers` with this reader's `opposite` settings
        (None: off): an unsure animal's number read again at its opposite corner."""
        if self.opposite is None:
            return pieces, [], []
        return opposite_numbers(self, image, pieces, self.opposite)

    @property
    def crop_settings(self):
        """The card classifier's crop settings (from its metadata)."""
        return model_crop_settings(self.classifier)

    def fan_gap_cards(self, image: np.ndarray, gray: np.ndarray, pieces: list[CardPiece],
                      peaks: np.ndarray) -> list[CardPiece]:
        """Troetofanten face-up cards read where a fan's row of corner indices has a gap
        (`fan_gap_poses` of `pieces`, the cards read; uint8 BGR `image`, its `gray`) and the
        detector has a peak too weak to be read (`peaks` (P, 2) px: its key points under
        `troeto_key_threshold` down to `fan_gap_heat`) within `fan_gap_snap` x the width:
        read at the nearest such peak, posed as the row's card, as the main loop reads a key
        point (the number's crop turned to the card's own edges), and kept when read as a
        face-up card with `fan_gap_confidence`, no kept reading once more (`seen_before`)
        and on no card read off its row (`on_a_card_off_row`, `weak_test_cards`). Returns
        the cards added."""
        s = self.settings
        spec = SPECS["troetofanten"]
        poses = []
        for k, a, w in fan_gap_poses(pieces, s) if len(peaks) else ():
            d = np.hypot(*(peaks - k).T)
            if d.min() <= s.fan_gap_snap * w:
                poses.append((peaks[int(np.argmin(d))].copy(), a, w))
        if not poses:
            return []
        frames = [frame_from_pose(k, a, w, spec) for k, a, w in poses]
        xy = np.array([k for k, _, _ in poses], float)
        ang = np.array([a for _, a, _ in poses], float)
        wid = np.array([w for _, _, w in poses], float)
        turned = edge_angles(gray, xy, ang, wid, s)
        at = [frame_from_pose(k, t, w, spec) for (k, _, w), t in zip(poses, turned,
                                                                       strict=True)]
        game_probs, _, is_piece, confs = self.read_crops(image, frames, "troetofanten", at)
        labels = GAME_LABELS["troetofanten"]
        added: list[CardPiece] = []
        for r, (k, a, w) in enumerate(poses):
            b = int(np.argmax(game_probs[r]))
            label, conf = labels[b], float(confs[r])
            if not is_piece[r] or label == "back" or conf < s.fan_gap_confidence:
                continue
            kept = pieces + added
            if seen_before(k, label, kept, s.duplicate) or on_a_card_off_row(
                    k, a, frames[r], weak_test_cards(kept, s), s):
                continue
            probs = {lab: float(v) for lab, v in zip(labels, game_probs[r], strict=True)}
            added.append(CardPiece(label, conf, np.asarray(k, float).copy(), frames[r],
                                   float(a), float(w), probs))
        return added


# ---------------------------------------------------------------- facts per game
def magic_facts(pieces: list[CardPiece]) -> tuple[dict, list[str]]:
    from vision.cards.lineup import read_line

    return read_line(pieces)


def troeto_facts(pieces: list[CardPiece]) -> tuple[dict, list[str], list[str]]:
    """(facts {"zones": {zone: {label: n}}}, zone per piece, warnings)."""
    from vision.cards.zones import assign_zones

    zones, warnings = assign_zones(pieces)
    out: dict[str, dict[str, int]] = {}
    for p, z in zip(pieces, zones, strict=True):
        out.setdefault(z, {})
        out[z][p.label] = out[z].get(p.label, 0) + 1
    facts = {"zones": {z: {lab: out[z][lab] for lab in TROETO_LABELS if lab in out[z]}
                       for z in ("north", "east", "south", "west", "middle") if z in out}}
    return facts, zones, warnings


def keep_per_zone(zones: list[str], confidence: list[float], most: int) -> np.ndarray:
    """Mask keeping at most `most` pieces per zone, the most confident ones."""
    keep = np.ones(len(zones), bool)
    for z in set(zones):
        idx = [i for i, zz in enumerate(zones) if zz == z]
        for i in sorted(idx, key=lambda i: -confidence[i])[most:]:
            keep[i] = False
    return keep


HOP_CARDS_PER_PLAYER = 3  # rules: one card of each colour (Not Time: one card)


def hop_card_facts(image: np.ndarray, pieces: list[CardPiece], to_plane, side_px: float
                   ) -> tuple[dict, list[str], list[str], np.ndarray]:
    """(cards facts {zone: [{"colour", "marbles"}]}, zone per piece, warnings, mask of the
    pieces kept: a player has at most 3 cards, the least sure extra ones are dropped).
    `to_plane`: maps (N, 2) image points to the cloth plane (a square of `side_px`)."""
    from vision.cards.hopcards import (
        CARD_MARBLES,
        DISCS,
        card_zone,
        order_cards,
        read_discs,
        refine_outline,
    )

    warnings: list[str] = []
    zones = [card_zone(to_plane(p.center[None])[0], side_px) for p in pieces]
    keep = keep_per_zone(zones, [p.confidence for p in pieces], HOP_CARDS_PER_PLAYER)
    for z in sorted(set(zones)):
        n = zones.count(z)
        if n > HOP_CARDS_PER_PLAYER:
            warnings.append(f"{n} cards seen at the {z} side, but a player has "
                            f"{HOP_CARDS_PER_PLAYER}: the least sure ones are left out")
    by_zone: dict[str, list[tuple[np.ndarray, dict]]] = {}
    for p, z, k in zip(pieces, zones, keep, strict=True):
        if not k:
            continue
        colour = p.label.split("-", 1)[1]
        marbles: list[str] = []
        if colour != "back":
            outline = refine_outline(image, p.frame, colour)
            if outline is None:  # further off: look wider
                outline = refine_outline(image, p.frame, colour, grow=1.7)
            if outline is not None:  # once more from the better outline
                again = refine_outline(image, outline, colour, grow=1.2)
                outline = outline if again is None else again
            card = rectify(image, p.frame if outline is None else outline, 60, 90)
            marbles, weakest = read_discs(card, CARD_MARBLES[colour])
            if weakest < DISCS.faint_disc:
                x, y = p.center
                warnings.append(f"the {p.label} at ({x:.0f}, {y:.0f}): fewer printed marbles "
                                f"than a {colour} card has were clearly seen")
        by_zone.setdefault(z, []).append((p.center, {"colour": colour, "marbles": marbles}))
    cards = {}
    for z, items in by_zone.items():
        order = order_cards(z, [c for c, _ in items])
        cards[z] = [items[i][1] for i in order]
    return cards, zones, warnings, keep
