"""Teach mode for the pieces the card reader reads (`vision.cards`): Magic Rabbit tiles,
Troetofanten cards, Hop la bille cards.

The same rule as the tiles and marbles (`vision.teach`): prototypes from `models/cards.onnx`'s
64-d embedding of the reader's own crops, colours (Lab) of those crops, and
`teach_probs` re-deciding the model's probabilities. Nothing in `vision.cards` changes: a
`TaughtCardClassifier` wraps the reader's classifier (same `classes`, `crop`, `index`) and
re-decides each `predict`; `taught_reader` is a shallow copy of the reader using it.

Troetofanten cards are taught per kind (elephant, tootophant, mouse, mousetrap, lasso, tamer,
back): an elephant's or tootophant's number comes from the corner-index model
(`models/cards-index.onnx`), which multiplies the kind's probability (`CardReader.
troeto_numbers`), so a prototype per kind corrects the part the classifier decides and leaves
the number to the index model.

Teach photos show the pieces on a table (Hop la bille: beside its cloth, which is found as for
scoring): the reader's key points give the candidates; without taps exactly one must be a
piece, a tap names the candidate whose centre lies within `tap_radius` piece widths.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import cv2
import numpy as np

import vision.teach as teach
from scoring.labels import TROETO_COUNTS, TROETO_LABELS
from tablescore.errors import TablescoreError
from vision.cards.detect import Keypoints
from vision.cards.geometry import KeySpec
from vision.cards.pieces import CardPiece
from vision.cards.read import READ
from vision.cards.zones import _angle_to_side
from vision.classify.model import Prediction

# The label given to a tap's candidates (any label of the game would do)
NEUTRAL_LABEL = {"magic-rabbit": "magician", "troetofanten": "mouse",
                 "hop-la-bille": "card-back"}
BACK_LABEL = {"troetofanten": "back", "hop-la-bille": "card-back"}  # face-down cards
TAP_KEY_THRESHOLD = 0.05  # detector heat a key point needs to be named by a tap


class TaughtCardClassifier:
    """A `PieceClassifier` stand-in: the card model's own prediction, re-decided with a
    profile's card part (the embedding is passed through)."""

    def __init__(self, base, profile: teach.Profile, game: str,
                 fold: FaceFoldSettings | None = None):
        self.base, self.profile, self.game = base, profile, game
        self.fold = fold  # (`fold_faces`' settings; None: no fold)
        self.classes, self.crop, self.metadata = base.classes, base.crop, base.metadata
        tg = teach.teachable(game)
        self.labels = tg.card_labels
        self.groups = tg.units(tg.card_labels)

    def index(self, label: str) -> int:
        return self.base.index(label)

    colours: np.ndarray | None = None  # the taught back's colours in the photo being read
    #                                    (`look_colours`; set by `taught_reader`)

    def predict(self, crops_bgr: np.ndarray) -> Prediction:
        pred = self.base.predict(crops_bgr)
        if len(crops_bgr) == 0:
            return pred
        probs = teach.teach_probs(self.profile, self.base, self.labels, pred.probs,
                                  pred.embedding, crops_bgr, self.groups, keep_mass=True)
        if self.colours is not None:
            probs = look_rescue(self.profile, self.base, self.game, probs, pred.embedding,
                                look_share(crops_bgr, self.colours))
        if self.fold is not None:
            probs = fold_faces(self.profile, self.base, self.game, self.groups, probs,
                               pred.embedding, self.fold)
        return Prediction(probs=probs, embedding=pred.embedding)


@dataclass(frozen=True)
class FaceFoldSettings:
    """A face-up card of the taught copy that the card model reads as its kind but spreads
    over other games' classes (each a little: edition-2 elephants give hats, rabbits and
    Hop la bille cards 0.15-0.30 together), so that this game's labels weigh less than
    background, or calls background by a hair: the reader drops it though its key point
    is strong and the label right. Such a crop is a card of that kind (all but
    P(background) moved onto the kind's labels, split as the model splits them) when the
    taught face prototype nearest its embedding is the kind the model reads likeliest
    (`cos` at least), this game's labels hold more of it than any other game's and
    P(background) is under `bg`; a P(background) at `bar` or over is set just under it."""

    cos: float = 0.45  # cosine to the nearest taught face prototype (not the back's)
    bg: float = 0.56  # P(background) under this (the model undecided: a piece or not)
    bar: float = READ.min_piece_prob  # the reader's `ReadSettings.min_piece_prob` (its
    #   default; `face_fold` sets the reader's own)
    rare: int = READ.rare_count  # no fold onto a kind of which a box holds this many cards
    #   or fewer (`BOX_KINDS`): the reader's `ReadSettings.rare_count` (its default, so that
    #   a fold built without the reader's settings leaves the mice alone too; `face_fold`
    #   sets the reader's own; 0: all fold)


def box_kinds(game: str, labels: tuple[str, ...], counts: dict[str, int]) -> dict[str, int]:
    """{taught kind (`TeachGame.units`): cards of it in one box} from `counts` per label; a
    kind with a label `counts` lacks (Troetofanten's back: any card) is left out."""
    units = teach.teachable(game).units(labels)
    return {u: sum(counts[lab] for lab in labs) for u, labs in units.items()
            if all(lab in counts for lab in labs)}


FACE_FOLD = {"troetofanten": FaceFoldSettings()}
# Cards of each kind in one box, per game that folds faces (`fold_faces`' rare kinds)
BOX_KINDS = {"troetofanten": box_kinds("troetofanten", TROETO_LABELS, TROETO_COUNTS)}


# Troetofanten, taught (`taught_reader` sets this `ReadSettings`; off in the untaught reader)
TAUGHT_SWITCH = 0.8  # (`ReadSettings.repose_switch`) a doubted strong key point read again
#   (`repose_strong`) as another kind this surely is that kind (a lasso posed 25 % narrow read
#   as a mousetrap at 0.34, at its own width as a lasso at 0.85: fresh e2-1815 0005).
#   e2-1810..1817: 0.8 found that lasso and changed nothing else; 0.6 put an extra mouse
#   (0.66) and lost an elephant on 1811 0021, and committed edition 2 went 7 -> 9 errors


def face_fold(reader, game: str) -> FaceFoldSettings | None:
    """`FACE_FOLD`'s settings for `game` with `reader`'s own confidence bar (None: the game
    folds no faces)."""
    s = FACE_FOLD.get(game)
    if s is None or not hasattr(reader, "settings"):
        return s
    return replace(s, bar=reader.settings.min_piece_prob, rare=reader.settings.rare_count)


@dataclass(frozen=True)
class _FoldTables:
    """What `fold_faces` looks up per call, worked out once per profile, classifier and
    game (`Profile._once`): the model's background column `ib`, this game's label columns
    `mine`, each other game's (`rivals`, in `GAME_LABELS` order, those the model holds),
    each taught kind's (`units`, `unit_cols`, `unit_index`), the taught face prototypes
    and their labels (not the back's)."""

    ib: int
    mine: np.ndarray
    rivals: tuple[np.ndarray, ...]
    units: np.ndarray
    unit_cols: tuple[np.ndarray, ...]
    unit_index: dict[str, int]
    face_prototypes: np.ndarray
    face_labels: np.ndarray


def _fold_tables(part: teach.Profile, classifier, game: str,
                 groups: dict[str, tuple[str, ...]]) -> _FoldTables | None:
    """`_FoldTables` for a `fold_faces` call (None: no taught face of `groups`)."""
    from vision.cards.read import GAME_LABELS

    def make():
        back = BACK_LABEL.get(game)
        faces = [k for k, lab in enumerate(part.labels) if lab != back and lab in groups]
        if not faces:
            return None
        units = tuple(groups)
        return _FoldTables(
            ib=classifier.index(teach.BACKGROUND),
            mine=np.array([classifier.index(lab) for lab in GAME_LABELS[game]], np.intp),
            rivals=tuple(np.array([classifier.index(lab) for lab in labs
                                   if lab in classifier.classes], np.intp)
                         for g, labs in GAME_LABELS.items() if g != game),
            units=np.array(units),
            unit_cols=tuple(np.array([classifier.index(lab) for lab in groups[u]], np.intp)
                            for u in units),
            unit_index={u: i for i, u in enumerate(units)},
            face_prototypes=part.prototypes[faces],
            face_labels=np.array([part.labels[k] for k in faces]))

    key = ("fold_tables", tuple(classifier.classes), game,
           tuple((u, tuple(labs)) for u, labs in groups.items()))
    return part._once(key, make)


def fold_faces(part: teach.Profile, classifier, game: str, groups: dict[str, tuple[str, ...]],
               probs: np.ndarray, embedding: np.ndarray,
               settings: FaceFoldSettings) -> np.ndarray:
    """(N, C) `probs` with all but P(background) moved onto the labels of the kind the
    model reads likeliest (split as the model splits them; P(background) at most just
    under `bar`) for the crops `FaceFoldSettings` describes: where this game's labels weigh
    no more than background (else the reader keeps the card anyway) and P(background) is
    under `bg`, the taught face prototype nearest the crop is the kind the model reads
    likeliest, at cosine `cos` or more, and this game's labels hold more than any other
    game's. Same shape."""
    t = _fold_tables(part, classifier, game, groups)
    if t is None or len(probs) == 0:
        return probs
    ib = t.ib
    total = probs[:, t.mine].sum(axis=1)
    ask = np.flatnonzero((total <= probs[:, ib]) & (probs[:, ib] < settings.bg))
    if not len(ask):  # (the reader keeps the others, or they are surely background)
        return probs
    p = probs[ask]
    rival = np.zeros(len(ask), probs.dtype)
    for cols in t.rivals:
        rival = np.maximum(rival, p[:, cols].sum(axis=1))
    pu = np.stack([p[:, cols].sum(axis=1) for cols in t.unit_cols], axis=1)
    top = t.units[pu.argmax(axis=1)]
    cos = embedding[ask] @ t.face_prototypes.T
    near = t.face_labels[cos.argmax(axis=1)]
    hit = (total[ask] > rival) & (near == top) & (cos.max(axis=1) >= settings.cos)
    rare = [u for u, n in BOX_KINDS.get(game, {}).items() if n <= settings.rare]
    if rare:  # (a kind not in `BOX_KINDS` is not rare, as in the reader's `unsure_rare`)
        hit &= ~np.isin(top, rare)
    if not hit.any():
        return probs
    out = probs.copy()
    under = np.float32(settings.bar - 0.01)
    for r in np.flatnonzero(hit):  # all of the piece mass on that kind, its labels (the
        #                            numbers) split as the model splits them
        k = int(ask[r])
        cols = t.unit_cols[t.unit_index[top[r]]]
        within = probs[k, cols] / max(float(probs[k, cols].sum()), 1e-12)
        bg = min(probs[k, ib], under)
        out[k] = 0.0
        out[k, cols] = within * (1.0 - bg)
        out[k, ib] = bg
    return out


def look_rescue(part: teach.Profile, classifier, game: str, probs: np.ndarray,
                embedding: np.ndarray, share: np.ndarray,
                settings: BackLookSettings | None = None) -> np.ndarray:
    """Hop la bille: crops mostly of the taught back's colours (`share`), near its
    prototype, that the model does not call surely background, become face-down cards
    (P(background) `crop_set_bg`, the rest the back's). Same shape."""
    s = settings or BACK_LOOK
    back = BACK_LABEL[game]
    if back not in part.labels:
        return probs
    ib, jb = classifier.index(teach.BACKGROUND), classifier.index(back)
    cos = embedding @ part.prototypes[list(part.labels).index(back)]
    hit = (share >= s.crop_share) & (cos >= s.crop_cos) & (probs[:, ib] < s.crop_bg) \
        & (probs[:, jb] < s.crop_max_back)
    if hit.any():
        probs = probs.copy()
        bg = np.float32(s.crop_set_bg)  # (float32, as the rows were given before)
        probs[hit] = 0.0
        probs[hit, ib], probs[hit, jb] = bg, np.float32(1.0) - bg
    return probs


def with_classifier(reader, classifier):
    """A shallow copy of a `CardReader` classifying with `classifier` (the shared reader is
    left as it is: safe across threads)."""
    out = copy.copy(reader)
    out.classifier = classifier
    return out


def taught_reader(reader, profile: teach.Profile | None, game: str):
    """The reader whose final classification is re-decided with the profile's card part
    (the width and angle searches, which pick each piece's pose by the model's background
    probability where the reader has them, stay untaught), or the reader itself when there
    is no card part or the model knows it (`Profile.known`)."""
    part = None if profile is None else profile.card_part
    if part is None or not part.labels or part.known:  # (known: the model reads this copy)
        return reader
    out = with_classifier(reader, TaughtCardClassifier(reader.classifier, part, game,
                                                       face_fold(reader, game)))
    if game == "troetofanten" and hasattr(reader, "settings"):
        out.settings = replace(reader.settings, repose_switch=TAUGHT_SWITCH)
    for search in ("search_widths", "search_angles"):  # the poses stay the untaught
        if hasattr(reader, search):  # reader's (the same crops as teaching saw; and faster)
            setattr(out, search, getattr(reader, search))
    if game == "magic-rabbit" and hasattr(reader, "_read_pieces"):  # the lamp's tone curve
        #   read off the hats the untaught model reads (`vision.cards.stage.read_balanced`),
        #   labelled within the reading (the model's rows of its crops kept: `keeping_rows`)
        from vision.cards.read import keeping_small_hsv
        from vision.classify.model import keeping_rows

        kept: dict = {}  # (this copy is one photo's reading)

        def read_pieces(image, game, area=None, within=None, keys=None):
            with keeping_rows(), keeping_small_hsv(image):
                pieces, warnings = out._read_pieces(image, game, area, within, keys)
                if game == "magic-rabbit" and within is None and keys is None \
                        and "toned" not in kept:  # (not again for the toned photo's reading)
                    kept["last"] = (image, pieces, untaught_labels(reader, image, pieces))
            return pieces, warnings

        def tone_pieces(image, pieces):
            last = kept.get("last")
            kept["toned"] = True
            if last is not None and last[0] is image and last[1] is pieces:
                return last[2]
            return untaught_labels(reader, image, pieces)

        out.read_pieces, out.tone_pieces = read_pieces, tone_pieces
    if game == "hop-la-bille" and hasattr(out, "read_pieces"):
        read = out.read_pieces  # (bound to the copy)
        clf = out.classifier

        def read_pieces(image, game, area=None):
            if part.look is not None:  # the taught back's colours in this photo
                clf.colours = photo_colours(image, part.look)
            pieces, warnings = read(image, game, area)
            if area is not None and BACK_LOOK.row_depth > 0:
                pieces = off_row_backs(reader, image, area, pieces)
            return pieces, warnings

        out.read_pieces = read_pieces
    if game == "troetofanten" and part.look is not None and hasattr(out, "settle_backs"):
        settle = out.settle_backs  # (bound to the copy: its classifier is the taught one)

        def settle_backs(image, pieces):
            from vision.cards.read import keeping_small_hsv

            with keeping_small_hsv(image):  # (the reader's look and `look_pixels` share the
                #                               photo's HSV at the same scale)
                return taught_settle(image, pieces)

        def taught_settle(image, pieces):
            pieces = settle(image, pieces)
            s, share = BACK_LOOK, part.look_area
            if share is not None and s.measured_area:
                if share > s.bleed:
                    return pieces  # the taught colours do not single the back out
                if s.area_range[0] <= share <= s.area_range[1]:
                    s = replace(s, look_area=share)
            pixels = look_pixels(image, part.look, s)  # (once for both)
            pieces = unlike_backs(image, pieces, part.look, s, pixels)
            return pieces + look_backs(image, pieces, part.look, s, pixels)

        out.settle_backs = settle_backs
    return out


def off_row_backs(reader, image: np.ndarray, area, pieces: list[CardPiece]) -> list[CardPiece]:
    """Hop la bille: `pieces` less the face-down cards only teaching found (the untaught
    card model calls their crops background) that lie off their player's row: a player's
    cards lie in one row beyond their side of the cloth (as `read.hop_row_backs` reads
    them), so such a back's centre must lie within `row_depth` mm of the line of that
    side's other cards, or, on a side with no other card, of the other cards' distance
    beyond the cloth (a crop of bare table near the taught back's prototype, far out)."""
    from vision.cards.geometry import SPECS, crop_card
    from vision.cards.hopcards import card_depth, card_zone

    back = BACK_LABEL["hop-la-bille"]
    cand = [k for k, p in enumerate(pieces) if p.label == back and p.frame is not None]
    if not cand or len(pieces) < 2:
        return pieces
    base = reader.classifier  # the untaught reader's (`taught_reader` passes its argument)
    crops = np.stack([crop_card(image, pieces[k].frame, SPECS["hop-la-bille"],
                                reader.crop_settings) for k in cand])
    bg = base.predict(crops).probs[:, base.index(teach.BACKGROUND)]
    taught = {k for k, b in zip(cand, bg, strict=True) if b >= reader.settings.min_piece_prob}
    if not taught:
        return pieces
    side = float(area.settings.plane_px)
    tol = BACK_LOOK.row_depth * area.settings.px_per_mm
    plane = area.to_plane(np.array([p.center for p in pieces], float))
    zones = [card_zone(q, side) for q in plane]
    depth = np.array([card_depth(q, side) for q in plane])
    sure = [k for k in range(len(pieces)) if k not in taught]
    drop = set()
    for k in taught:
        mates = [j for j in sure if zones[j] == zones[k]]
        if mates:
            line = float(np.median(depth[mates]))
        elif sure:
            line = float(np.median(depth[sure]))
        else:
            continue
        if abs(depth[k] - line) > tol:
            drop.add(k)
    return [p for k, p in enumerate(pieces) if k not in drop]


# ------------------------------------------------------------ Troetofanten: the taught back


@dataclass(frozen=True)
class BackLookSettings:
    """The taught card back's look (Troetofanten): face-down cards the key-point detector
    does not find (edition 2: none of them) are searched for by their colours.

    `size`, `shape`, `fill`, `strip`, `strip_long`, `strip_fill` and `ratio` are this search's
    own, not `ReadSettings.look_size`, `look_shape`, `look_fill`, `strip_across`,
    `strip_along`, `strip_fill` and `look_ratio` (the reader's search from backs it read,
    with other values and steps): the two are tuned apart, so neither reads the other's."""

    bins: tuple[int, int, int] = (30, 8, 2)  # hue x saturation x value histogram
    spread_v: int = 1  # a taught colour also stands for its value bins this far off (shade)
    spread_h: int = 1  # ... and, in Troetofanten's search (`look_pixels`), a taught colour
    #   of saturation bin `spread_min_sat` or over for its hue bins this far off: the
    #   light's colour moves the back's hue between photos (session 26: teach seed 3249's
    #   navy at hue 113, whole backs of fresh scenes at 101-107, one or two 6-unit bins
    #   lower, had 0.000-0.011 of their pixels in the look and `unlike_backs` dropped them;
    #   2 read no better; spreading saturation as well took face-up cards' outlines)
    spread_min_sat: int = 2  # ... (a greyish bin's hue is the paper's and the light's:
    #   bins 0-1 of 8, saturation under 64, are not spread)
    disc: float = 0.4  # teach: the look from a disc of this x the card width around the tap
    known: float = 0.5  # ... unless the card model reads the taught back as one this surely
    #                     (then the reader finds this copy's backs itself)
    scale: float = 0.5  # the photo is searched at this scale (kept equal to
    #   `ReadSettings.look_scale`: `look_pixels` then takes the reader's own photo in HSV
    #   from `read.small_hsv` within `keeping_small_hsv`, not a resize and conversion of
    #   its own; test_look_pixels_shares_the_reader_look_hsv)
    ratio: float = 6.0  # a colour this many times more common on the taught back than in
    #                     the photo is the back's (as `ReadSettings.look_ratio`)
    min_share: float = 0.01  # ... and holds at least this share of the back's pixels
    close: float = 0.3  # its pixels closed over this x the card width (the design's parts)
    size: tuple[float, float] = (0.7, 1.45)  # a whole back: its short side this x the
    #                                          width of the 3 nearest cards read
    shape: tuple[float, float] = (1.15, 2.1)  # ... its long side this x its short side
    fill: float = 0.6  # ... and it fills this share of its rectangle
    stretched: tuple[float, float, float] = (2.4, 0.85, 1.25)  # or, seen at a slant (a low
    #   camera foreshortens the card across: the committed edition-2 scene 0002's back over
    #   a card is 2.17 x as long as wide), its long side up to this x its short side when
    #   it fills this share of its rectangle and holds at most this many backs' looks
    squat: tuple[float, float] = (1.0, 0.9)  # or, seen at a slant along its length (the
    #   long side foreshortened: a back nearer a low camera than the cards read beside it
    #   looks square, fresh e2-1730..1737: long side 1.04-1.14 x the short one, filling
    #   0.94-0.97, 0.9-1.6 backs' looks), its long side down to this x its short side when
    #   it fills this share of its rectangle and holds under `merged[0]` backs' looks
    #   (1.0: any; its width is along the side `squat_axis` picks, not always the short one)
    whole_fill: float = 0.75  # a region of a card's shape but of `merged[0]` backs' looks
    #   or more is one back only when it fills this share of its rectangle (else merged:
    #   two backs side by side, turned a little to each other, make a card's shape too)
    merged: tuple[float, float] = (1.6, 4.5)  # a region of this many backs' looks (each
    #   `look_area` of a card's area; filling `merged_fill` of its rectangle, its short side
    #   at least size[0] x the width): backs side by side or in a pile, split into that many
    #   (rounded) by k-means on its pixels
    merged_long: float = 1.15  # ... and only when its rectangle's long side is at most this
    #   x as long as that many cards end to end (a long band of the look, a shadow on a
    #   table of the back's blue, is no pile)
    merged_depth: float = 0.25  # ... into as many as its outline's notches this x the
    #   width deep say (`notched_cards`: cards larger than those near it, as backs nearer
    #   the camera, are too many by area), by area where it has none (0: by area alone)
    look_area: float | None = None  # the share of a card's area a back's look covers, for
    #   counting the backs of a merged region (the profile's `look_area`, measured on the
    #   teach photo, replaces it; None: not measured, counted in whole cards and no region
    #   parted by `part_close`),
    area_range: tuple[float, float] = (0.4, 1.2)  # ... used only within these (beyond:
    #   the region touches another back in the teach photo)
    bleed: float = 2.5  # a taught look covering over this many cards around the taught back
    #   in its own teach photo (its colours are the table's too: a harsh light) finds no
    #   backs: look_backs is off
    measured_area: bool = True  # use the profile's measured `look_area` (False: `look_area`)
    merged_fill: float = 0.5  # a merged region fills this share of its rectangle
    strip: tuple[float, float] = (0.2, 0.7)  # a back under another card: a strip this x the
    #                                         width across,
    strip_long: tuple[float, float] = (0.8, 2.2)  # this x the width along,
    strip_fill: float = 0.5  # filling this share of its rectangle, beside a card read (a
    #   card lying turned across the back leaves a wedge: a triangle fills half its
    #   rectangle; strips of backs missed at 0.6 filled 0.54-0.55 on fresh photos)
    min_match: float = 0.1  # and the region's own colours match the taught back's this
    #   much (histogram intersection): a back's whole design, not one of its colours
    min_second: float = 0.2  # ... and, shown whole, this share of the taught back's other
    #   colours than its main one (a dark table under a harsh light has only the main one;
    #   a strip of a covered back may show little of the design)
    inside_share: float = 0.8  # a region whose centre lies inside a card read, its frame
    #                            shrunk to this about its centre (`inside_frame`), is part of it
    own_look: float = 0.01  # a face-down card the reader found by its shape or look alone
    #   (no classifier reading) holds at least this share of the taught back's colours in
    #   its visible part, or it is none (`unlike_backs`; 0: not checked)
    own_mix: float = 0.57  # ... and those of its pixels match the taught back's mix of
    #   colours (histogram intersection, over the colours this photo singles out) at least
    #   this x the taught back's main colour's share: a score pad of the colour of the
    #   back's ring alone (a minor colour, about half the main one's share) is no back; a
    #   back shows its main colours, or all of them (`unlike_backs`, and `look_backs` for
    #   backs shown whole or split from a merged region; 0: not checked). A narrow
    #   window: pieces dropped 0.18-0.53 x, pieces kept 0.73 x or more (e2-1221..1223 and
    #   committed edition 2, one teach set; W2: pads up to 0.52, backs from 0.595). Asking
    #   the mix's main bin itself instead fails: of the 154 pieces kept, 35 have under
    #   0.05 of their pixels in it (median 0.23), the 10 dropped 0.000
    own_mix_whole: float = 0.9  # ... asked (in `unlike_backs`) only of a card shown
    #   (nearly) whole: its visible part (off the face-up cards read) this share of its
    #   frame at least (a strip of a back under a card, or a back partly hidden, may show
    #   its border alone, as `look_backs` asks it only of backs shown whole)
    own_mix_hue: int = 1  # ... where a share of its colours left over may meet the mix's
    #   this many coarse hue bins off (`hue_intersection`; 0: off; `look_backs`' mix test,
    #   which finds backs by colour alone, stays exact). The teach photo's light puts the
    #   back's blue on either side of a 12-degree bin's edge (the look's hue bin 17 of 30,
    #   a scene back's 18): with teach seeds 88 and 92 the reader's true whole backs matched
    #   0.1-0.56 x and were dropped (seed 80: one). Committed e2 + fresh e2-2610..2613,
    #   taught errors with teach seeds 80 / 88 / 92: 94 / 126 / 139 -> 94 / 111 / 124, extra
    #   backs 5 / 6 / 6 the same, a yellow score pad still dropped; 2: the same (session 20,
    #   H2)
    own_mix_sat: int = 1  # ... and, in every test of a region's or a piece's colours
    #   against the taught look's (`unlike_backs`' and `look_backs`' mix, `looks_like`), a
    #   share left over may meet the look one coarse saturation bin off (of 4: the same
    #   hue and value bins; `hue_intersection`'s `sat_reach`; 0: off). The teach photo's
    #   light puts the back's blue on either side of a saturation bin's edge from the
    #   scenes' backs (teach seed 92's look mostly in saturation bins 6-7 of 8, the
    #   scenes' backs 5-6): their true backs were dropped as unlike it. Committed e2 + fresh
    #   e2-2805, e2-2806 (664 pieces), taught errors with teach seeds 80 / 88 / 92: 64 / 76
    #   / 92 -> 64 / 75 / 76, backs missed 11 / 24 / 31 -> 11 / 23 / 13, extra backs 0 / 0 /
    #   5 -> 0 / 0 / 6; 2: the same (session 22, H2)
    look_mix_hue: int = 1  # `look_backs`' mix test's hue reach (`own_mix_hue`'s, in the
    #   test of a back it finds shown whole; 0: the exact test, as before session 22):
    #   teach seed 88's look lies mostly in hue bin 17 of 30 (coarse 8), the scenes' backs
    #   in 18 (coarse 9), so their whole backs' regions failed it. Committed e2 + e2-2805,
    #   e2-2806, taught errors with teach seeds 80 / 88 / 92 (with `own_mix_sat` 1): 64 / 75
    #   / 76 -> 64 / 73 / 74, extra backs 0 / 0 / 6 the same (session 22, H2; a reach
    #   in `looks_like` too read the same; session 20's smoothing of both mixes, instead of
    #   a reach, added 19 extra backs with seed 92)
    held: bool = True  # a region whose outline holds as many centres of backs read (by the
    #   reader, or found here before) as the backs it would add is those backs: the look of
    #   a back read already, wider or longer than a card of the width near it (a back nearer
    #   the camera than the cards beside it; a pile), split or moved, made a second back
    same_back: float = 0.5  # a back found within this x a back read's width of its centre
    #                         is that back (not added again)
    same_back_whole: float = 0.7  # ... and a back found shown whole (a region of one
    #   back's look, or split from a merged one) within this x the width of a back the
    #   reader read (not one found here) is that back too: the reader poses its backs at
    #   its neighbours' width, so its centre may lie 0.5-0.7 widths off the look's whole
    #   card (session 17, H3: fresh e2-2120..2124 extra backs 9 -> 6, 137 -> 134 errors,
    #   e2-2050..2053 + 1910..1915 290 -> 288, no set worse; 0.6: 135, 0.85: 140; strips
    #   and covered backs keep `same_back`: all at 0.7, a back under others, 0.32 shown,
    #   was lost)
    confidence: float = 0.7  # the confidence a back found so gets
    main_hue: float = 0.05  # a region of the look must show the taught back's main hue: at
    #   least this share of its pixels within `main_hue_reach` fine hue bins of the look's
    #   likeliest hue (`main_hue_share`). The look holds the back's minor colours too (edition
    #   2's yellow ring), which other cards share (the tootophants' yellow trumpets and
    #   digits): a fan of tootophants made strips of yellow alone, read as backs under
    #   cards. Committed e2 + e2-2920/2921, teach seeds 80 / 88 / 92 (session 23, H3): the
    #   62 backs kept here over a true back showed 0.51-0.97 of the main hue (reach 2); 7
    #   showed 0.00-0.01 (yellow trumpets; dropped: 6 extra backs fewer, nothing else
    #   changed) (0: off)
    main_hue_reach: int = 2  # (`main_hue`) fine hue bins (12 degrees each) either way: the
    #   scenes' backs lie up to two bins off the teach photo's (hue 102-114 against bin 17)
    main_hue_sat: int = 1  # (`main_hue`) colours of this saturation bin (of `bins[1]`) and
    #   over have a hue (white, grey and black have none)
    part_close: float = 0.1  # a region that is no back, no backs side by side and no strip
    #   is looked at again closed over this x the width only (a whole back and the strip of
    #   the next one under a card, joined across a gap narrower than `close`), only with
    #   `look_area` measured (0: off)
    under: float = 0.5  # a back found by a strip lies under cards: at least this share of
    #   its frame off the strip lies under the cards read or shows the look (put on bare
    #   table, it would show whole): else the strip is the back itself, seen flat, and
    #   must show the back's whole design as one shown whole does (`min_second`, `own_mix`:
    #   a one-coloured pen or box edge beside a card is none)
    covered: tuple[float, float] = (0.2, 0.8)  # a region that is no back shown whole, no
    #   backs side by side and no strip (a back partly under face-up cards shows a corner,
    #   an L or a wedge of its look: fresh e2-1730..1737 had 22 such backs missed), of at
    #   least this many backs' looks (and under `merged[0]`), is a back when a card's frame
    #   holds it (`covered_back`: its extent at most `covered_fit` x a card's on both axes,
    #   the frame placed flush with it at either end of each axis, turned as its rectangle
    #   or as the nearest card read) whose part off the region lies under the cards read
    #   (or shows the look: `hidden_share`) at least this much; its visible part must show
    #   the back's design (`min_second`, `own_mix`: without them, the grey drawings of
    #   face-up cards on four photos of e2-1731..1737 made backs; 0: off)
    covered_fit: float = 1.05  # (see `covered`)
    covered_turn: float = 2.0  # `covered_back`'s turns (degrees) this close to one tried
    #   already, or to half a turn off it, are not tried again (the same frames, to a pixel
    #   or two at a card's width)
    key_inside: float = 0.9  # a back found whole (or split from a merged region) must not
    #   cover the key point (the corner index, which shows) of a face-up card read: none
    #   inside its frame shrunk to this (1: not checked)
    fan_reach: float = 1.0  # a strip's fan (`fan_side`): the face-up cards read within
    #   this many card heights of it (0: off; then a strip inside a card read is left out,
    #   and one beside a card lies under the nearest card read),
    fan_vote: float = 0.1  # whose key points lie, on average, this x the width to one side
    # Hop la bille: a key point's crop is a face-down card when at least `crop_share` of its
    # central `crop_inner` has the taught back's colours, it is within `crop_cos` of the
    # taught back (the card model's embedding) and P(background) is below `crop_bg`
    crop_inner: float = 0.67
    crop_share: float = 0.3
    crop_cos: float = 0.5
    crop_bg: float = 0.9
    crop_max_back: float = 0.5  # ... and P(back) is below this (else the model reads it
    #                             as the back already: left alone)
    crop_set_bg: float = 0.45  # such a back's P(background): confidence 0.55, under the
    #   cards the model reads (a player keeps 3 cards, the surest) and with a warning
    row_depth: float = 30.0  # mm: Hop la bille, a face-down card only teaching finds (the
    #   untaught card model calls its crop background) lies in its player's row: its centre
    #   this near the line of that side's other cards (`ReadSettings.hop_row_depth`), or,
    #   on a side with no other card, this near the other sides' cards' distance beyond
    #   the cloth (0: off)


BACK_LOOK = BackLookSettings()


def _look_hist(hsv: np.ndarray, mask, bins) -> np.ndarray:
    h = cv2.calcHist([hsv], [0, 1, 2], mask, list(bins), [0, 180, 0, 256, 0, 256])
    return h / max(float(h.sum()), 1.0)


def _back_project(hsv: np.ndarray, table: np.ndarray, bins) -> np.ndarray:
    """(H, W) uint8: 255 where the pixel's (H, S, V) bin is set in `table` (a 3-d
    histogram's shape), else 0. Per pixel, an 8-bit lookup of its hue and saturation bin
    (`_hs_codes`; `cv2.calcBackProject` reads a 3-d numpy histogram as a 2-d one with
    channels; this is also faster), and of its value bin where the value matters."""
    h, sat, val = cv2.split(hsv)
    return _project_codes(_hs_codes(h, sat, bins), val, table, bins)


def _hs_codes(h: np.ndarray, sat: np.ndarray, bins) -> np.ndarray:
    """(H, W) uint8 per pixel its hue bin x `bins[1]` + saturation bin (`cv2.calcHist`'s
    bins: v x n // range); a hue of 180 or over (never in OpenCV's 8-bit HSV) gets
    `bins[0]` x `bins[1]` + its saturation bin, past every bin."""
    hb, sb, _ = bins
    if (hb + 1) * sb > 256:
        raise ValueError(f"hue x saturation bins {hb} x {sb} do not fit one byte")
    return cv2.add(cv2.LUT(h, _hue_lut(hb, sb)), cv2.LUT(sat, _bin_lut(sb, 1)))


@cache
def _hue_lut(hb: int, sb: int) -> np.ndarray:
    return (np.minimum(np.arange(256), 180) * hb // 180 * sb).astype(np.uint8)


@cache
def _bin_lut(n: int, times: int) -> np.ndarray:
    """(256,) uint8: a channel value's bin of `n` (v x n // 256), times `times`."""
    return (np.arange(256) * n // 256 * times).astype(np.uint8)


def _code_hist(code: np.ndarray, val: np.ndarray, bins) -> np.ndarray:
    """The (H, S, V) histogram (float32, summing to 1) of the pixels whose `_hs_codes` are
    `code` and value channel `val` (each (H, W) uint8): `_look_hist` over the whole image,
    the same numbers (hues of 180 or over left out, as `cv2.calcHist` leaves them)."""
    hb, sb, vb = bins
    idx = code.astype(np.intp)
    if vb > 1:
        idx = idx * vb + cv2.LUT(val, _bin_lut(vb, 1))
    h = np.bincount(idx.ravel(), minlength=(hb + 1) * sb * vb)[:hb * sb * vb]
    h = h.reshape(hb, sb, vb).astype(np.float32)
    return h / max(float(h.sum()), 1.0)


def _project_codes(code: np.ndarray, val: np.ndarray, table: np.ndarray, bins) -> np.ndarray:
    """`_back_project` of the pixels whose `_hs_codes` are `code` (value channel `val`):
    a hue of 180 or over as the last hue bin."""
    hb, sb, vb = bins
    n = hb * sb
    luts = np.zeros((vb, 256), np.uint8)
    luts[:, :n] = np.where(table.reshape(n, vb).T > 0, 255, 0)
    luts[:, n:n + sb] = luts[:, n - sb:n]
    if (luts == luts[:1]).all():  # the value does not matter (e.g. spread over every bin)
        return cv2.LUT(code, luts[0])
    if (1 << vb) * vb <= 256:  # one lookup of which value bins hold the code's colour
        #   (a bit each), one of the pixel's value bin, one of the two added
        held = np.zeros(256, np.uint8)
        for b in range(vb):
            held |= (luts[b] > 0).astype(np.uint8) << b
        pick = np.zeros(256, np.uint8)
        for b in range(vb):
            k = np.arange(1 << vb)
            pick[b * (1 << vb) + k] = np.where((k >> b) & 1, 255, 0)
        return cv2.LUT(cv2.add(cv2.LUT(code, held), cv2.LUT(val, _bin_lut(vb, 1 << vb))),
                       pick)
    vbin = cv2.LUT(val, _bin_lut(vb, 1))
    out = np.zeros(code.shape, np.uint8)
    for b, lut in enumerate(luts):
        if lut.any():
            hit = cv2.LUT(code, lut)
            out |= cv2.bitwise_and(hit, hit, mask=(vbin == b).view(np.uint8))
    return out


def _coarse(h: np.ndarray) -> np.ndarray:
    """A (H, S, V) histogram summed over pairs of bins along each axis."""
    a, b, c = (n // 2 for n in h.shape)
    return h[:2 * a, :2 * b, :2 * c].reshape(a, 2, b, 2, c, 2).sum(axis=(1, 3, 5))


def back_look(image: np.ndarray, centre, width: float,
              settings: BackLookSettings = BACK_LOOK) -> np.ndarray:
    """The (H, S, V) colour histogram (sums to 1) of a disc of `disc` x `width` around
    `centre` (working-image px): a taught face-down card's look."""
    mask = np.zeros(image.shape[:2], np.uint8)
    r = max(2, int(round(settings.disc * width)))
    cv2.circle(mask, tuple(int(round(v)) for v in centre), r, 1, -1)
    return _look_hist(cv2.cvtColor(image, cv2.COLOR_BGR2HSV), mask,
                      settings.bins).astype(np.float32)


def look_pixels(image: np.ndarray, look: np.ndarray,
                settings: BackLookSettings | None = None
                ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """The photo at `scale` (BGR -> HSV: `read.small_hsv`, the reader's own when it has it),
    its pixels of the taught back's colours (`look_colours`), 0/255 at `scale` (None when
    the photo has none of them), and those colours (the bins of the look's histogram this
    photo singles out: `look_mix`)."""
    from vision.cards.read import small_hsv

    s = settings or BACK_LOOK
    hsv = small_hsv(image, s.scale)
    hit, colours = _look_hit(hsv, np.asarray(look, np.float32), s)
    return hsv, hit, colours


def _look_hit(hsv: np.ndarray, look: np.ndarray, s: BackLookSettings
              ) -> tuple[np.ndarray | None, np.ndarray]:
    """`look_pixels`' pixels (None: none) and colours of the photo `hsv` (at `scale`): the
    colours `look_colours` finds in its sample (`_sample`), the pixels `_back_project` sets
    for them. Per pixel one byte names its bin among the few the look can hold (the bins of
    the spread look's hues, `_look_bins`: the sample's counts of those, one histogram, and
    the lookup); where the look spans too many hues for a byte, the hue x saturation code
    and the value (`_hs_codes`)."""
    h, sat, val = cv2.split(hsv)
    few = _look_bins(look, s)
    if few is None:
        code = _hs_codes(h, sat, s.bins)  # (each pixel's bins, once for the sample's counts
        #                                    and the lookup)
        counts = _code_hist(code[::2, ::2], np.ascontiguousarray(val[::2, ::2]), s.bins)
        colours = look_colours(None, look, s, widen=True, h_all=counts)
        if not colours.any():
            return None, colours
        return _project_codes(code, val, colours, s.bins), colours
    hues, hue_lut, sat_lut, val_lut = few
    hb, sb, vb = s.bins
    m, k = len(hues), sb * vb
    code = cv2.add(cv2.add(cv2.LUT(h, hue_lut), cv2.LUT(sat, sat_lut)), cv2.LUT(val, val_lut))
    counts = cv2.calcHist([np.ascontiguousarray(code[::2, ::2])], [0], None, [256],
                          [0, 256]).ravel()  # (the sample's: `_sample`)
    total = float(code[::2, ::2].size) - float(counts[(m + 1) * k:(m + 2) * k].sum())  # (a
    #   hue of 180 or over is not counted, as `cv2.calcHist` leaves it out)
    h_all = np.zeros(s.bins, np.float32)
    h_all[hues] = counts[k:(m + 1) * k].reshape(m, sb, vb)
    h_all /= max(total, 1.0)  # (`_look_hist`'s numbers at the look's bins; elsewhere the
    #                            look is too rare to count)
    colours = look_colours(None, look, s, widen=True, h_all=h_all)
    if not colours.any():
        return None, colours
    table = np.zeros(256, np.uint8)
    table[k:(m + 1) * k] = np.where(colours[hues].ravel() > 0, 255, 0)
    table[(m + 1) * k:(m + 2) * k] = np.where(colours[hb - 1].ravel() > 0, 255, 0)  # (as
    #   `_back_project`: a hue of 180 or over in the last hue bin)
    return cv2.LUT(code, table), colours


_BINS: dict = {}  # (`_look_bins`, per look and settings)


def _look_bins(look: np.ndarray, s: BackLookSettings):
    """(the hue bins where the spread look (`_spread_look`, as `look_pixels` widens it)
    holds `min_share` or more in some bin, and 8-bit lookups of a pixel's hue, saturation
    and value to one byte: 0 for the other hues, 1 + the hue's place among those x the
    saturation x value bins, then its saturation and value bin; a hue of 180 or over the
    last place), or None where those hues do not fit a byte. Only those bins can be the
    look's colours (`look_colours` asks `min_share` of the spread look)."""
    hb, sb, vb = s.bins
    key = (look.shape, look.tobytes(), s.bins, s.spread_v, s.spread_h, s.spread_min_sat,
           s.min_share)
    if key in _BINS:
        return _BINS[key]
    spread = _spread_look(look, s.spread_v, (s.spread_h, s.spread_min_sat))
    hues = np.flatnonzero((spread >= s.min_share).any(axis=(1, 2)))
    out = None
    k = sb * vb
    if (len(hues) + 2) * k <= 256:
        place = np.zeros(hb, np.intp)
        place[hues] = np.arange(1, len(hues) + 1)
        ramp = np.arange(256)
        hue_lut = np.where(ramp < 180, place[np.minimum(ramp * hb // 180, hb - 1)],
                           len(hues) + 1) * k
        out = (hues, hue_lut.astype(np.uint8), (ramp * sb // 256 * vb).astype(np.uint8),
               (ramp * vb // 256).astype(np.uint8))
    if len(_BINS) >= 16:
        _BINS.clear()
    _BINS[key] = out
    return out


def look_regions(image: np.ndarray, look: np.ndarray, width: float,
                 settings: BackLookSettings | None = None, pixels=None):
    """The photo's pixels of the taught back's colours (`look_pixels`, or `pixels`, its
    result for this photo), closed over `close` x `width` (photo px) and opened over 3 px:
    the regions `look_backs` reads, 0/255 at `scale`. Returns (hsv, hit); hit is None when
    the photo has none of the back's colours."""
    s = settings or BACK_LOOK
    hsv, hit, *_ = pixels if pixels is not None else look_pixels(image, look, s)
    if hit is None:
        return hsv, None
    k = max(3, int(round(s.close * width * s.scale)) | 1)
    return hsv, closed_opened(hit, k)


def closed_opened(hit: np.ndarray, k: int) -> np.ndarray:
    """(H, W) uint8 0/255 `hit` closed over a k x k square (k odd), then opened over 3 x 3
    (`cv2.morphologyEx`, its default border), worked out over the box of `hit`'s pixels
    grown by k + 2 alone (the same pixels: the closing reaches k // 2 beyond them and the
    erosions see true zeros there; the rest stays 0)."""
    x, y, w, h = cv2.boundingRect(hit)
    out = np.zeros_like(hit)
    if w == 0:
        return out
    g = k + 2
    x0, y0 = max(x - g, 0), max(y - g, 0)
    x1, y1 = min(x + w + g, hit.shape[1]), min(y + h + g, hit.shape[0])
    roi = cv2.morphologyEx(np.ascontiguousarray(hit[y0:y1, x0:x1]), cv2.MORPH_CLOSE,
                           np.ones((k, k), np.uint8))
    out[y0:y1, x0:x1] = cv2.morphologyEx(roi, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return out


def look_area(image: np.ndarray, centre, width: float, look: np.ndarray,
              settings: BackLookSettings | None = None) -> float | None:
    """Teach: the share of the taught back's card (`width` px wide, the card's aspect) that
    its look covers (the region of `look_regions` whose outer outline holds `centre`, its
    pixels counted as `look_backs` counts a region's: a tap on a hole of the region, a
    centre motif in none of the look's colours, is on it): a back printed with a border or
    on a lighter ground shows less of it than the card; far more than one card (`bleed`)
    when the taught colours also cover the table around it. None when no region lies
    there."""
    from vision.cards.geometry import SPECS

    s = settings or BACK_LOOK
    _, hit = look_regions(image, look, width, s)
    if hit is None:
        return None
    x, y = ((float(v) + 0.5) * s.scale - 0.5 for v in centre)  # (look_backs' mapping)
    outlines, _ = cv2.findContours(hit, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for q in outlines:  # the region whose outline holds the tap, as look_backs reads it
        if cv2.pointPolygonTest(q, (x, y), False) >= 0:
            w = width * s.scale
            a = int(region_pixels(hit, q, cv2.boundingRect(q)).sum())
            return a / (SPECS["troetofanten"].aspect * w * w)
    return None


def region_pixels(hit: np.ndarray, q: np.ndarray, rect) -> np.ndarray:
    """(h, w) uint8 0/1 over the bounding `rect` (x, y, w, h) of the outline `q`: the look's
    pixels (`hit` > 0) inside the filled outline, its holes left out (`look_area` measures a
    teach photo's back as `look_backs` reads a region)."""
    x0, y0, bw, bh = rect
    blob = np.zeros((bh, bw), np.uint8)
    cv2.drawContours(blob, [q], -1, 1, -1, offset=(-x0, -y0))
    blob &= hit[y0:y0 + bh, x0:x0 + bw] > 0
    return blob


def _sample(image: np.ndarray) -> np.ndarray:
    """Every other pixel of each row and column: the sample whose colours `look_colours`
    counts (nearest: per-pixel colour conversions commute with it)."""
    return cv2.resize(image, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_NEAREST)


def photo_colours(image: np.ndarray, look: np.ndarray,
                  settings: BackLookSettings = BACK_LOOK) -> np.ndarray:
    """`look_colours` of a photo (BGR, working image): at `scale` (area), its sample
    (`_sample`) converted to HSV (only the sampled pixels are converted)."""
    s = settings
    small = cv2.resize(image, None, fx=s.scale, fy=s.scale, interpolation=cv2.INTER_AREA)
    return look_colours(cv2.cvtColor(_sample(small), cv2.COLOR_BGR2HSV), look, s)


def look_colours(hsv: np.ndarray | None, look: np.ndarray,
                 settings: BackLookSettings = BACK_LOOK, widen: bool = False,
                 h_all: np.ndarray | None = None) -> np.ndarray:
    """The taught back's colours in this photo (`hsv`: the photo's sample, `_sample` of it
    at any scale): a (H, S, V) table, 1 for the bins far more common on the back (`ratio`,
    each also standing for its `spread_v` neighbouring value bins: light differs; with
    `widen`, Troetofanten's search, also for its `spread_h` hue bins: `widened_look`) than
    in the photo, and not rare on it. `h_all`: the sample's histogram (`_look_hist`),
    where the caller has it (then `hsv` is not read)."""
    s = settings
    if h_all is None:
        h_all = _look_hist(hsv, None, s.bins)
    look = _spread_look(np.asarray(look, np.float32), s.spread_v,
                        (s.spread_h, s.spread_min_sat) if widen else None)
    return ((look >= s.ratio * h_all) & (look >= s.min_share)).astype(np.float32)


_SPREAD: dict = {}  # (`_spread_look`: the few looks of the profiles in use)


def _spread_look(look: np.ndarray, spread_v: int, widen: tuple[int, int] | None
                 ) -> np.ndarray:
    """`look` with each bin also standing for its `spread_v` neighbouring value bins and,
    with `widen` (`spread_h`, `spread_min_sat`), for its hue bins (`widened_look`). The
    same look each photo of a profile: worked out once per look and spread (a few kept;
    read-only)."""
    key = (look.shape, look.tobytes(), spread_v, widen)
    out = _SPREAD.get(key)
    if out is not None:
        return out
    look = look.copy()  # (the caller's, unspread, stays writeable)
    for _ in range(spread_v):  # lighter or darker than on the teach photo
        look = np.maximum(look, np.maximum(np.pad(look[..., 1:], ((0, 0), (0, 0), (0, 1))),
                                           np.pad(look[..., :-1], ((0, 0), (0, 0), (1, 0)))))
    if widen is not None:
        look = widened_look(look, *widen)
    look.flags.writeable = False
    if len(_SPREAD) >= 16:
        _SPREAD.clear()
    _SPREAD[key] = look
    return look


def widened_look(look: np.ndarray, spread_h: int, min_sat: int = 0) -> np.ndarray:
    """`look` (H x S x V) where each bin of saturation bin `min_sat` or over also stands
    for the hue bins up to `spread_h` off (round the hue circle), at its own weight: the
    light's colour moves a back's hue between photos (a greyish bin's hue is the light's
    and the paper's, not the back's: not spread)."""
    out = look.copy()
    out[:, :min_sat] = 0
    for _ in range(spread_h):
        out = np.maximum(out, np.maximum(np.roll(out, 1, axis=0), np.roll(out, -1, axis=0)))
    return np.maximum(look, out)


def look_share(crops_bgr: np.ndarray, colours: np.ndarray,
               settings: BackLookSettings = BACK_LOOK) -> np.ndarray:
    """(N,) the share of each crop's central part (`crop_inner` of its side) in the
    taught back's colours (`look_colours`)."""
    n, k = len(crops_bgr), crops_bgr.shape[1]
    m = max(0, int(round(k * (1 - settings.crop_inner) / 2)))
    inner = np.ascontiguousarray(crops_bgr[:, m:k - m, m:k - m])
    hsv = cv2.cvtColor(inner.reshape(-1, inner.shape[2], 3), cv2.COLOR_BGR2HSV)
    hit = _back_project(hsv, colours, settings.bins)
    return (hit.reshape(n, -1) > 0).mean(axis=1)


def fan_side(centre, normal, pieces: list[CardPiece], centres: list, width: float,
             settings: BackLookSettings | None = None) -> int:
    """Towards which side of a strip of a back's look (`centre`, its long edge's `normal`,
    photo px) the rest of the back lies, from the fan it lies in: +1 along `normal`, -1
    against it, 0 when the face-up cards read beside it do not say. Each card of a fan is
    covered by its neighbour on one side, the same for every card, and the key point (the
    corner index, which the reader finds where the card shows) lies on the side that
    shows; so the back's hidden part lies opposite its neighbours' key points. The
    neighbours: face-up cards whose centre lies within `fan_reach` card heights; each
    votes by its key point's offset from its centre along `normal` (in widths), and the
    mean vote must be at least `fan_vote`. A card the strip lies on (its centre inside the
    card's frame shrunk to `inside_share`) does not vote: a strip of the back's colours in
    a face-up card's drawing has no fan of its own. `centres`: the pieces' centres (photo
    px; the caller works them out once)."""
    from vision.cards.geometry import SPECS
    from vision.cards.read import inside_frame

    s = settings or BACK_LOOK
    c, n = np.asarray(centre, float), np.asarray(normal, float)
    reach = s.fan_reach * SPECS["troetofanten"].aspect * width
    votes = [float(n @ (p.key - pc)) / max(p.width, 1.0)
             for p, pc in zip(pieces, centres, strict=True)
             if p.label != BACK_LABEL["troetofanten"] and p.frame is not None
             and np.hypot(*(pc - c)) <= reach
             and not inside_frame(c, p.frame, s.inside_share)]
    if not votes or abs(float(np.mean(votes))) < s.fan_vote:
        return 0
    return -1 if np.mean(votes) > 0 else 1


def unlike_backs(image: np.ndarray, pieces: list[CardPiece], look: np.ndarray,
                 settings: BackLookSettings | None = None, pixels=None) -> list[CardPiece]:
    """`pieces` without the face-down cards the reader found by a region's shape or look
    alone (no classifier reading: `probs` None; `read.design_regions`, strips, ends) whose
    visible part holds under `own_look` of the taught back's colours (`look_colours`,
    per pixel at `scale`; visible: off the face-up cards read): a card-shaped region of
    one colour that is not this copy's back (a notebook, a coaster) is none; one shown
    (nearly) whole (`own_mix_whole`) must also match the taught back's mix of colours
    (`own_mix`: a score pad of one minor colour of the back's is none). `pixels`:
    `look_pixels` of this photo, where the caller has it."""
    from vision.cards.read import _frames_mask, frame_box_mask

    s = settings or BACK_LOOK
    back = BACK_LABEL["troetofanten"]
    ask = [k for k, p in enumerate(pieces) if p.label == back and p.probs is None
           and p.frame is not None]
    if not ask or look is None or s.own_look <= 0:
        return pieces
    f = s.scale
    hsv, hit, *colours = pixels if pixels is not None else look_pixels(image, look, s)
    if hit is None:  # this photo's colours do not single the back out: no judgement
        return pieces
    up = [p.frame for p in pieces if p.label != back and p.frame is not None]
    covered = _frames_mask(up, f, hit.shape, 1.0) if up else np.zeros_like(hit)
    mix = None  # (`look_mix`, once a piece needs it)
    drop = set()
    for k in ask:
        m, (x0, y0) = frame_box_mask(pieces[k].frame, f, hit.shape)  # (its box alone)
        sub = np.s_[y0:y0 + m.shape[0], x0:x0 + m.shape[1]]
        whole = int(m.sum())
        m &= covered[sub] == 0
        n = int(m.sum())
        share = float(np.count_nonzero(hit[sub][m > 0])) / n if n else 0.0
        if share < s.own_look:
            drop.add(k)
        elif s.own_mix > 0 and n >= s.own_mix_whole * whole:  # (shown whole: a strip
            #   of a back, or a back partly hidden, may show its border's colour alone)
            mix = look_mix(colours[0], look) if mix is None else mix
            if unlike_mix(hsv[sub], (m > 0) & (hit[sub] > 0), mix, s, s.own_mix_hue,
                          s.own_mix_sat):
                drop.add(k)
    return [p for k, p in enumerate(pieces) if k not in drop]


def hue_intersection(a: np.ndarray, b: np.ndarray, reach: int = 0,
                     sat_reach: int = 0) -> float:
    """The intersection of two (H, S, V) histograms where a share of `a` left over may
    also meet what is left of `b` up to `reach` hue bins away (hue is circular; the same
    saturation and value bins): first bin by bin, then one bin off either way, and so on;
    then, of what is left, up to `sat_reach` saturation bins away (the same hue and value
    bins; not circular). Each share counts once, so it is at most min(a.sum(), b.sum()),
    and `a` of one colour alone meets at most `b`'s share within reach of it. 0, 0: the
    plain intersection."""
    if reach <= 0 and sat_reach <= 0:
        return float(np.minimum(a, b).sum())
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    common = np.minimum(a, b)
    total = float(common.sum())
    a, b = a - common, b - common
    n = a.shape[0]
    for d in range(1, reach + 1):
        for shift in (d, -d):  # a's bin h meets b's h+shift, round the circle (`np.roll`
            #   of a, and of what moved back, in two slices: the same numbers)
            k = shift % n
            moved = np.empty_like(a)
            np.minimum(a[:n - k], b[k:], out=moved[k:])
            np.minimum(a[n - k:], b[:k], out=moved[:k])
            total += float(moved.sum())
            b = b - moved
            a[:n - k] -= moved[k:]
            a[n - k:] -= moved[:k]
    for d in range(1, min(sat_reach, a.shape[1] - 1) + 1):  # (farther: nothing meets)
        for shift in (d, -d):  # a's bin s meets b's s+shift (over the bins that have a
            #   partner alone: the same numbers as shifting whole arrays, test_teach_speed's
            #   reference)
            moved = np.zeros_like(a)
            if shift > 0:
                np.minimum(a[:, :-shift], b[:, shift:], out=moved[:, shift:])
                a[:, :-shift] -= moved[:, shift:]
            else:
                np.minimum(a[:, -shift:], b[:, :shift], out=moved[:, :shift])
                a[:, -shift:] -= moved[:, :shift]
            total += float(moved.sum())
            b = b - moved
    return total


def look_mix(colours: np.ndarray, look: np.ndarray) -> np.ndarray:
    """The taught back's mix of the colours this photo singles out (`colours`: those
    `look_pixels` found in it, `look_colours`): its coarse (`_coarse`) histogram over those
    colours, summing to 1 (all zero when there are none)."""
    table = np.asarray(look, np.float32)
    mix = _coarse(np.where(colours > 0, table, 0.0))
    return mix / max(float(mix.sum()), 1e-9)


def mix_match(hsv: np.ndarray, mask: np.ndarray, mix: np.ndarray,
              settings: BackLookSettings = BACK_LOOK, hue_reach: int = 0,
              sat_reach: int = 0) -> float:
    """How much the colours of `hsv`'s pixels under `mask` (bool) match the taught back's
    `mix` (`look_mix`): the intersection of their coarse histograms (1: the same mix; one
    colour of the back alone: that colour's share of the mix). `hue_reach`: a share left
    over may meet the mix up to that many hue bins off (`hue_intersection`): a colour a
    lamp moved across a bin's edge still meets its taught bin, and one colour alone still
    matches at most the mix's share within that reach of it. `sat_reach`: likewise over
    coarse saturation bins."""
    own = _coarse(_look_hist(hsv, mask.astype(np.uint8), settings.bins))
    return hue_intersection(own, mix, hue_reach, sat_reach)


def unlike_mix(hsv: np.ndarray, mask: np.ndarray, mix: np.ndarray,
               settings: BackLookSettings = BACK_LOOK, hue_reach: int = 0,
               sat_reach: int = 0) -> bool:
    """Whether the pixels under `mask` match the taught back's `mix` (`mix_match`) less than
    `own_mix` x its main colour's share: one minor colour of the back's alone (a score pad
    of its ring's colour), no back."""
    return mix_match(hsv, mask, mix, settings, hue_reach, sat_reach) \
        < settings.own_mix * float(mix.max())


def whole_back(short: float, long_: float, fill: float, cards: float, width: float,
               settings: BackLookSettings | None = None, squat: bool = True) -> bool:
    """Whether a region of the taught back's look is one back shown whole: its minimum-area
    rectangle (`short`, `long_` px) has a card's `size` (x the `width` of the cards near
    it) and `shape` (or, filled and about one back's look, the longer `stretched` shape of
    a back seen at a slant; or, with `squat`, the `squat` shape, nearly square, filled and
    under `merged[0]` backs' looks: seen at a slant along its length), the region fills
    `fill` of it, and unless it holds under `merged[0]`
    backs' looks (`cards`), it fills `whole_fill` of it (two backs lying end to end, turned
    a little or shifted across, make a card-shaped rectangle that they fill poorly)."""
    s = settings or BACK_LOOK
    ratio = long_ / max(short, 1.0)
    longest, filled, most = s.stretched
    least, squat_fill = s.squat
    return (s.size[0] * width <= short <= s.size[1] * width and fill >= s.fill
            and (s.shape[0] <= ratio or (squat and least <= ratio and fill >= squat_fill
                                          and cards < s.merged[0]))
            and (ratio <= s.shape[1] or (ratio <= longest and fill >= filled and cards <= most))
            and (cards < s.merged[0] or fill >= s.whole_fill))


def squat_axis(es: np.ndarray, el: np.ndarray, near_angle: float) -> float:
    """The u axis (degrees) of a back seen nearly square (`whole_back`'s `squat`): of its
    rectangle's short side `es` and long side `el` ((2,) each), the one nearer the angle of
    the nearest card read (`near_angle`, degrees; modulo a half turn), as `covered_back`'s
    turns. Its length foreshortened by a low camera, the back's long side may be either:
    fresh e2-1730..1737, 9 such backs, the short side was the width for 6 (their rectangles
    1.03-1.14 x as long as wide) and the long side for 3 (1.02-1.06 x); the nearest card's
    angle picked the width right for 8 (the one left lay crosswise to its neighbour)."""
    a_s, a_l = (float(np.degrees(np.arctan2(v[1], v[0]))) for v in (es, el))
    return a_s if _angle_to_side(a_s, near_angle, True) <= \
        _angle_to_side(a_l, near_angle, True) else a_l


def notched_cards(outline: np.ndarray, depth: float) -> int:
    """How many cards a region of several cards' look holds, from its outline's notches:
    cards lying against each other (a spread pile, turned to each other) make a notch at
    each side of where they meet; 1 + half the notches at least `depth` deep (px, the
    outline's scale; rounded down), at most 4; 0 (not known: cards flush side by side or
    end to end leave no notch) when there are fewer than 2 (one notch alone is a face-up
    card cutting into the region's edge, not a place where two backs meet)."""
    hull = cv2.convexHull(outline, returnPoints=False)
    if len(outline) < 4 or len(hull) < 3:
        return 0
    try:
        defects = cv2.convexityDefects(outline, hull)
    except cv2.error:  # (a self-touching outline)
        return 0
    deep = 0 if defects is None else int(np.count_nonzero(
        np.asarray(defects).reshape(-1, 4)[:, 3] / 256.0 >= depth))
    return min(4, 1 + deep // 2) if deep >= 2 else 0


def merged_axis(short: float, es: np.ndarray, long_: float, el: np.ndarray, n: int,
                width: float, aspect: float) -> np.ndarray:
    """The cards' width direction (their u axis: the zones read a face-down card's side
    from it, up to a half turn) in a region of `n` backs' looks whose rectangle has the
    sides `short` along `es` and `long_` along `el`: backs side by side (a player's row)
    make it n widths long and a card's height across, backs end to end n heights long and a
    width across; the nearer of the two (the region's rectangle alone cannot tell a pile's
    cards' own turn: a pile still of one card's shape keeps the card's own, width across
    its long side)."""
    side = abs(long_ - n * width) + abs(short - aspect * width)
    end = abs(long_ - n * aspect * width) + abs(short - width)
    pile = abs(long_ - aspect * width) + abs(short - width)
    return el if side < min(end, pile) else es


def held_backs(outline: np.ndarray, pieces: list[CardPiece], scale: float,
               centres: list) -> int:
    """How many of `pieces`' face-down cards have their centre (`centres`, photo px; the
    caller works them out once) inside `outline` (a region's outline at `scale`, as
    `look_backs` finds them)."""
    return sum(cv2.pointPolygonTest(outline, tuple(float(v) for v in (pc + 0.5) * scale
                                                   - 0.5), False) >= 0
               for p, pc in zip(pieces, centres, strict=True)
               if p.label == BACK_LABEL["troetofanten"])


def hidden_share(found, f: float, cover: np.ndarray, hit: np.ndarray, q: np.ndarray,
                 spec: KeySpec) -> float:
    """The share of a back's frame (`found`: centre, angle of its u axis in degrees, width,
    at scale `f`) off its strip (the outline `q`) that lies under the cards read (`cover`,
    uint8 at scale `f`) or shows the look (`hit`): about 1 for a back under a card, about 0
    for one put on bare table (1 where nothing of it lies off the strip: nothing says it
    lies on top). The frame's shape: `spec`'s (`look_backs`')."""
    from vision.cards.read import card_frame, frame_box_mask

    c, ang, w = found
    frame = card_frame((np.asarray(c, float) + 0.5) / f - 0.5, ang, w / f, spec.aspect)
    m, (x0, y0) = frame_box_mask(frame, f, hit.shape)  # (its box alone)
    if not m.size:  # the frame lies off the photo
        return 1.0
    box = np.s_[y0:y0 + m.shape[0], x0:x0 + m.shape[1]]
    strip = np.zeros(m.shape, np.uint8)
    cv2.drawContours(strip, [q], -1, 1, -1, offset=(-x0, -y0))
    off = (m > 0) & (strip == 0)
    n = int(np.count_nonzero(off))
    return float(np.count_nonzero(off & ((cover[box] > 0) | (hit[box] > 0)))) / n if n \
        else 1.0


def main_hue_share(sub: np.ndarray, blob: np.ndarray, look: np.ndarray,
                   settings: BackLookSettings | None = None) -> float:
    """The share of a region's pixels (`sub`: its box of the photo in HSV, OpenCV's hue
    0-179; `blob` its 0/1 pixels there, (h, w) uint8) of a colour (saturation bin
    `main_hue_sat` or over of `bins[1]`) whose hue lies within `main_hue_reach` fine hue
    bins (`bins[0]` over the hue circle) of the look's likeliest hue among its colours (the
    (H, S, V) histogram `look`, those saturation bins). 1.0 when under half of the look
    has a colour (a grey back's hue says nothing, whatever the region); else 0.0 for an
    empty region."""
    s = settings or BACK_LOOK
    luts = _main_hue_luts(np.asarray(look, np.float32), s)
    if luts is None:
        return 1.0
    mask = np.asarray(blob) > 0
    total = int(mask.sum())
    if total == 0:
        return 0.0
    px = sub[mask]
    return np.count_nonzero(luts[0][px[:, 0]] & luts[1][px[:, 1]]) / total


_MAIN_HUE: dict = {}  # (`_main_hue_luts`, per look and settings)


def _main_hue_luts(look: np.ndarray, s: BackLookSettings):
    """`main_hue_share`'s tests per channel value: ((256,) bool, a hue within
    `main_hue_reach` fine hue bins of the look's likeliest hue among its colours; (256,)
    bool, a saturation of bin `main_hue_sat` or over), worked out once per look (the same
    integer arithmetic as per pixel), or None when under half the look has a colour."""
    key = (look.shape, look.tobytes(), s.bins, s.main_hue_sat, s.main_hue_reach)
    if key in _MAIN_HUE:
        return _MAIN_HUE[key]
    n, m = s.bins[0], s.bins[1]
    coloured = look[:, s.main_hue_sat:].sum(axis=(1, 2))
    out = None
    if not coloured.sum() < 0.5 * look.sum():
        main = int(np.argmax(coloured))
        ramp = np.arange(256, dtype=np.int32)
        d = np.abs(ramp * n // 180 - main)
        out = (np.minimum(d, n - d) <= s.main_hue_reach, ramp * m // 256 >= s.main_hue_sat)
    if len(_MAIN_HUE) >= 16:
        _MAIN_HUE.clear()
    _MAIN_HUE[key] = out
    return out


def looks_like(sub: np.ndarray, blob: np.ndarray, coarse0: np.ndarray, main0: int,
               settings: BackLookSettings | None = None, design: bool = True) -> bool:
    """Whether a region's own colours (`sub`: its box of the photo in HSV at the search
    scale, `blob` its 0/1 pixels there) match the taught back's (`coarse0`: `_coarse` of
    the look, `main0` its main bin) at least `min_match`, and, where its whole `design`
    shows, hold `min_second` of the back's colours other than the main one. Both measured
    with `own_mix_sat`'s reach (`hue_intersection`): the region's colours may meet the
    look's a saturation bin off; the other colours', against the look without its main."""
    s = settings or BACK_LOOK
    own = _coarse(_look_hist(sub, blob, s.bins))
    rest = coarse0.copy()
    rest.flat[main0] = 0
    match = hue_intersection(own, coarse0, 0, s.own_mix_sat)
    second = hue_intersection(own, rest, 0, s.own_mix_sat)
    return not (match < s.min_match or (
        design and s.min_second > 0
        and second < s.min_second * (1.0 - float(coarse0.flat[main0]))))


def covered_back(q: np.ndarray, blob: np.ndarray, origin, w: float, angles, f: float,
                 cover: np.ndarray, hit: np.ndarray, spec: KeySpec,
                 settings: BackLookSettings | None = None
                 ) -> tuple[np.ndarray, float, float] | None:
    """A back partly under face-up cards, from the region of its look that shows (`q`: its
    outline at scale `f`; `blob`: its uint8 0/1 pixels over its bounding box from
    `origin` (x0, y0)): (centre at scale `f`, angle of its u axis in degrees, width `w`)
    of the card frame that holds the region (extent at most `covered_fit` x the card's
    width and height, turned by one of `angles`, flush with the region at either end of
    each axis) and whose part off the region lies under the cards read (`cover`, uint8 at
    scale `f`) or shows the look (`hit`) the most, at least `covered[1]`; None when no
    frame holds it so; the card's shape `spec`'s, as `look_backs`'. (A region on a card read
    may be a back on it: not asked.)"""
    s = settings or BACK_LOOK
    aspect = spec.aspect
    pts = _row_ends(blob)
    if not len(pts):
        return None
    pts = (pts + np.array(origin)).astype(np.float64)
    size = np.array([w, aspect * w])
    best, best_share = None, s.covered[1]
    tried: list[float] = []
    for ang in angles:
        if any(_angle_to_side(ang, a, True) < s.covered_turn for a in tried):
            continue  # (a turn tried already, or half a turn off it: the same frames)
        tried.append(ang)
        t = np.deg2rad(ang)
        axes = np.array([[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]])  # u, v
        proj = pts @ axes.T
        lo, hi = proj.min(axis=0), proj.max(axis=0)
        if np.any(hi - lo > s.covered_fit * size):
            continue
        ends = [[a, b] if abs(b - a) >= 1.0 else [a] for a, b in  # (one where the
                zip(lo + size / 2, hi - size / 2, strict=True)]  # region spans the card)
        for cu in ends[0]:
            for cv in ends[1]:
                c = cu * axes[0] + cv * axes[1]
                share = hidden_share((c, ang, w), f, cover, hit, q, spec)
                if share > best_share:
                    best, best_share = (c, float(ang), w), share
    return best


def _row_ends(blob: np.ndarray) -> np.ndarray:
    """(M, 2) int (x, y): the first and last pixel set in each row of `blob` ((h, w), set
    where > 0) that has one: along a row a pixel's projection on any axis moves one way
    (the same arithmetic per pixel), so its least and greatest over the region's pixels
    are these pixels' (`covered_back` asks no more of them; a tenth of them or fewer)."""
    on = np.asarray(blob) > 0
    rows = np.flatnonzero(on.any(axis=1))
    if not len(rows):
        return np.zeros((0, 2), np.intp)
    first = on[rows].argmax(axis=1)
    last = on.shape[1] - 1 - on[rows, ::-1].argmax(axis=1)
    return np.column_stack([np.concatenate([first, last]), np.concatenate([rows, rows])])


def _median(values: np.ndarray) -> float:
    """`float(np.median(values))` of a few values (1-D, no NaN) without its overhead: the
    middle one, or the mean of the middle two in the values' own dtype (as numpy takes
    it). (`look_backs` sizes each region by the 3 nearest cards' widths.)"""
    n = len(values)
    if n == 0 or n > 16:
        return float(np.median(values))
    v = np.sort(values)
    return float(v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2)


def look_backs(image: np.ndarray, pieces: list[CardPiece], look: np.ndarray,
               settings: BackLookSettings | None = None, pixels=None) -> list[CardPiece]:
    """Face-down cards found by the taught back's look, where the reader found no card:
    the photo's pixels of the back's colours (far more common on the taught back than in
    this photo), closed over the design's other parts, make regions; a region is a back when
    its minimum-area rectangle has a card's size (the width of the 3 nearest cards read) and
    shape and it fills it, or when it is a strip along a card's side beside a card read (a
    back under it: its centre is then put a card's size from the strip's outer edge); a
    region of 1.6-4.5 backs' looks (`look_area`) is split, when it is no longer than its
    backs end to end (`merged_long`); any other region but one longer than that is looked
    at again closed less (`part_close`, with `look_area` measured). A region that does not
    part is one back seen at a slant along its length where it is nearly square and whole
    (`whole_back`'s `squat`), or a back partly under the face-up cards read where a card's
    frame holds it and the rest of that frame lies under them (`covered`, `covered_back`:
    the back's centre is the frame's; it must show the back's design as a whole one does).
    The region's own colours must match the taught back's (`min_match`) and, shown whole,
    split from a merged region or a strip seen flat (`under`), hold its colours other than
    the main one (`min_second`), and its pixels of the back's colours match the taught
    back's mix of them (`own_mix`, `look_mix`); a back shown whole over a face-up card's
    key point read (`key_inside`) is left out, and so is a region holding as many backs
    read as it would add (`held`). `pixels`: `look_pixels` of this photo, where the
    caller has it."""
    from vision.cards.geometry import SPECS
    from vision.cards.read import _frames_mask, back_piece, inside_frame, nearest, rect_sides

    s = settings or BACK_LOOK  # (read at call time)
    if not pieces or look is None:
        return []
    spec = SPECS["troetofanten"]
    f = s.scale
    look0 = np.asarray(look, np.float32)
    pixels = pixels if pixels is not None else look_pixels(image, look0, s)
    hsv, hit = look_regions(image, look0, _median(np.array([p.width for p in pieces], float)),
                            s, pixels)
    if hit is None:
        return []
    mix = None  # (`look_mix`, once a region needs it)
    cards_read = cache(lambda: _frames_mask(  # (once a strip or a covered back needs it)
        [p.frame for p in pieces if p.frame is not None], f, hit.shape, 1.0))
    at = [p.center for p in pieces]  # (photo px; then `out`'s, as they come)
    centres = np.array(at) * f
    widths = np.array([p.width for p in pieces]) * f
    outlines, _ = cv2.findContours(hit, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)  # 0/255
    coarse0 = _coarse(look0)  # the taught back's, for `min_match`
    main0 = int(np.argmax(coarse0))  # its main colour (`min_second`)
    out: list[CardPiece] = []
    queue = [(q, True) for q in outlines]  # (outline, whether it may be parted again)
    crumb = s.strip[0] * s.strip_long[0] * float(widths.min()) ** 2  # (under the least a
    #   back shows by the narrowest card read: under it near any cards; most regions are
    #   crumbs of a few pixels, left before their nearest cards are looked up)
    while queue:
        q, whole = queue.pop(0)
        x0, y0, bw, bh = cv2.boundingRect(q)
        if bw * bh < crumb:
            continue
        near = nearest(centres, (x0 + bw / 2, y0 + bh / 2))
        w = _median(widths[near])
        least = s.strip[0] * s.strip_long[0] * w * w  # a strip's area, the least a back shows
        if bw * bh < least:
            continue
        blob = region_pixels(hit, q, (x0, y0, bw, bh))  # (its holes left out)
        a = int(blob.sum())
        if a < least:
            continue
        (cx, cy), _, _ = rect = cv2.minAreaRect(q)
        short, es, long_, el = rect_sides(rect)
        fill = a / max(short * long_, 1.0)
        c = np.array([cx, cy])
        cards = a / ((s.look_area or 1.0) * spec.aspect * w * w)  # (in backs' looks)
        found = []  # (centre, angle, width) at scale f
        liked = False  # `looks_like` with the whole design asked already
        on_top = True  # the backs found show whole (not a strip under another card)
        whole_look = False  # a strip that is the back itself, seen flat
        if whole_back(short, long_, fill, cards, w, s, squat=False):
            found = [(c, np.degrees(np.arctan2(es[1], es[0])), short)]
        elif s.merged[0] <= cards <= s.merged[1] and fill >= s.merged_fill \
                and short >= s.size[0] * w:
            n = (notched_cards(q, s.merged_depth * w) if s.merged_depth > 0 else 0) \
                or int(round(cards))
            if long_ > s.merged_long * n * spec.aspect * w:
                continue  # longer than its backs end to end
            found = [None] * n  # (split below, once the region's colours pass: the
            #                      k-means is the dearest step, and the colours and the
            #                      held backs ask only how many)
            split = (blob, x0, y0, n, short, es, long_, el, w)
        elif not (s.strip[0] * w <= short <= s.strip[1] * w and fill >= s.strip_fill
                  and s.strip_long[0] * w <= long_ <= s.strip_long[1] * w):
            parts = []  # (closed less: a whole back and the strip of the next one under a
            #              card, joined across a gap narrower than `close`)
            if whole and s.part_close > 0 and s.look_area is not None:
                k = max(3, int(round(s.part_close * w)) | 1)
                raw = pixels[1][y0:y0 + bh, x0:x0 + bw] & (blob * 255)
                raw = cv2.morphologyEx(raw, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
                parts, _ = cv2.findContours(raw, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE,
                                            offset=(x0, y0))
            if sum(cv2.contourArea(p) >= least for p in parts) > 1:  # its parts again
                #   (two of them at least as large as a strip: crumbs of one back's look
                #   part off too, 0.05 of a width squared and under on e2-1730..1737)
                queue += [(p, False) for p in parts]
                continue
            if whole_back(short, long_, fill, cards, w, s):  # nearly square and whole (it
                #   does not part): one back seen at a slant along its length, its width
                #   across the rectangle's side nearer the nearest card read's (a back's
                #   length foreshortened under its width makes that its long side)
                found = [(c, squat_axis(es, el, pieces[int(near[0])].angle), short)]
            elif s.covered[0] > 0 and s.covered[0] <= cards < s.merged[0] and looks_like(
                    hsv[y0:y0 + bh, x0:x0 + bw], blob, coarse0, main0, s):
                turns = [np.degrees(np.arctan2(es[1], es[0]))]
                turns += [turns[0] + 90.0, pieces[int(near[0])].angle,
                          pieces[int(near[0])].angle + 90.0]
                back = covered_back(q, blob, (x0, y0), w, turns, f, cards_read(), hit, spec, s)
                if back is not None:  # (its visible part must show the back's design:
                    #                       `min_second`, `own_mix`)
                    found, on_top, whole_look = [back], False, True
                    liked = True  # (`looks_like` as below: asked above)
            if not found:
                if len(parts) > 1:  # (its parts again, as before: one may be a strip)
                    queue += [(p, False) for p in parts]
                continue
        else:  # a strip: the card lies under its neighbour, across the strip towards it
            on_top = False
            nrm = np.array([-el[1], el[0]]) / max(long_, 1e-9)
            side = fan_side((c + 0.5) / f - 0.5, nrm, pieces, at[:len(pieces)], w / f, s) \
                if s.fan_reach > 0 else 0
            if side:  # the fan it lies in: the card on top is on that side
                nrm = side * nrm
            elif any(inside_frame((c + 0.5) / f - 0.5, p.frame, s.inside_share)
                     for p in pieces + out):
                continue  # part of a card read (a whole back lies on top of the cards it
                #           covers)
            else:
                cover = centres[near[0]]
                if np.hypot(*(cover - c)) > spec.aspect * w:
                    continue  # no card beside it
                if nrm @ (cover - c) < 0:
                    nrm = -nrm
            along_w = long_ < 0.5 * (1 + spec.aspect) * w  # the strip is the card's width
            across = spec.aspect * w if along_w else w
            ang = np.degrees(np.arctan2(el[1], el[0])) if along_w else \
                np.degrees(np.arctan2(nrm[1], nrm[0]))
            found = [(c + nrm * (across - short) / 2, ang, w)]
            if s.under > 0:
                if hidden_share(found[0], f, cards_read(), hit, q, spec) < s.under:
                    found = [(c, ang, w)]  # nothing there to hide it: the strip is the
                    #   card itself, seen flat (a low camera squashes a back lying whole):
                    whole_look = True  # its whole design shows (`min_second`, `own_mix`)
        if not found or (s.held and held_backs(q, pieces + out, f, at) >= len(found)):
            continue
        sub = hsv[y0:y0 + bh, x0:x0 + bw]
        if not liked and not looks_like(sub, blob, coarse0, main0, s, on_top or whole_look):
            continue
        if s.main_hue > 0 and main_hue_share(sub, blob, look0, s) < s.main_hue:
            continue  # the back's minor colours alone (a fan of yellow trumpets)
        if (on_top or whole_look) and s.own_mix > 0:  # (its whole design shows)
            mix = look_mix(pixels[2], look) if mix is None else mix
            if unlike_mix(sub, (blob > 0) & (pixels[1][y0:y0 + bh, x0:x0 + bw] > 0), mix, s,
                          s.look_mix_hue, s.own_mix_sat):
                continue
        if found[0] is None:  # a merged region: split now
            found = merged_backs(*split, spec.aspect)
        for c, ang, wid in found:
            c, wid = (np.asarray(c, float) + 0.5) / f - 0.5, wid / f
            if any(p.label == "back" and np.hypot(*(pc - c)) < p.width * (
                    s.same_back_whole if on_top and k < len(pieces) else s.same_back)
                   for k, (p, pc) in enumerate(zip(pieces + out, at, strict=True))):
                continue  # a back read already
            back = back_piece(c, ang, wid, s.confidence)
            if on_top and s.key_inside < 1 and any(
                    p.label != "back" and inside_frame(p.key, back.frame, s.key_inside)
                    for p in pieces):
                continue  # shown whole, it would hide a face-up card's corner index that
                #           the reader read
            out.append(back)
            at.append(back.center)
    return out


def merged_backs(blob: np.ndarray, x0: int, y0: int, n: int, short: float, es: np.ndarray,
                 long_: float, el: np.ndarray, w: float, aspect: float) -> list:
    """A merged region's `n` backs (`look_backs`; centre, angle, width at the search scale):
    k-means (seeded, 2 attempts) on its pixels (`blob`, 0/1 over its box at `x0`, `y0`), each
    turned as `merged_axis` says."""
    ys, xs = np.nonzero(blob)
    pts = np.column_stack([xs + x0, ys + y0]).astype(np.float32)
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    cv2.setRNGSeed(0)
    _, _, ctr = cv2.kmeans(pts, n, None, crit, 2, cv2.KMEANS_PP_CENTERS)
    u = merged_axis(short, es, long_, el, n, w, aspect)
    return [(k, np.degrees(np.arctan2(u[1], u[0])), w) for k in ctr]


def _card_crops(reader, image: np.ndarray, game: str, pieces) -> np.ndarray:
    from vision.cards.geometry import SPECS, crop_card

    return np.stack([crop_card(image, p.frame, SPECS[game], reader.crop_settings)
                     for p in pieces])


def card_examples(pipeline, game: str, photo, area, label: str,
                  taps: list[tuple[float, float, str]] | None, name: str,
                  settings: teach.TeachSettings = teach.TEACH_SETTINGS) -> list[teach.Example]:
    """Examples of cards / numbered tiles from one loaded teach photo (`area`: the Hop la
    bille cloth, else None). Without taps the reader must find exactly one piece of the game
    (if it finds none, exactly one key point); each tap (photo pixels) names the key point
    whose piece centre lies within `tap_radius` piece widths (`tapped_pieces`). Errors name
    the file."""
    tg = teach.teachable(game)
    reader = pipeline.cards
    image = photo.image
    if game == "magic-rabbit":  # a lamp's glare taken off first, as scoring reads the photo
        from vision.cards.stage import glare_off

        image = glare_off(image, reader.settings.glare_side)
    posed: list[CardPiece] = []  # the pieces posed around the taps
    try:
        if taps is not None and settings.tap_neighbours > 0:
            pieces = tapped_pieces(reader, image, game, area, taps, photo.scale, settings,
                                   name, posed)
            chosen = [(p, lab, f"{name}@{x:.0f},{y:.0f}")
                      for p, (x, y, lab) in zip(pieces, taps, strict=True)]
        else:
            chosen = _reader_examples(reader, image, game, area, label, taps, photo.scale,
                                      name, tg, settings, posed)
    except TablescoreError as exc:
        if isinstance(exc, teach.TeachError):
            raise
        raise teach.TeachError(f"{name}: {exc.message}") from None
    if game == "magic-rabbit":  # the crops as scoring reads them: a lamp's tone curve off
        image = hat_tone_off(reader, image, posed, [p for p, _, _ in chosen])
    crops = _card_crops(reader, image, game, [p for p, _, _ in chosen])
    pred = reader.classifier.predict(crops)
    colours = teach.piece_colour(crops, settings)
    looks = [None] * len(chosen)
    areas = [None] * len(chosen)
    back = BACK_LABEL.get(game)
    if back is not None:  # a back's look: around the tap (or the one piece's centre), when
        #                   the model does not know this back already
        known = pred.probs[:, reader.classifier.index(back)] >= BACK_LOOK.known
        for k, (p, lab, _) in enumerate(chosen):
            if lab == back and not known[k]:
                at = p.center if taps is None else np.array(taps[k][:2]) / photo.scale
                looks[k] = back_look(image, at, p.width)
                if game == "troetofanten":  # (the card's width as scoring reads it: the
                    #                           3 nearest cards posed, `look_backs`)
                    areas[k] = look_area(image, at, near_width(posed, at, p.width), looks[k])
    groups = tg.units(tg.card_labels)  # (Troetofanten: the kind's probability)
    model_p = [float(sum(pred.probs[k, reader.classifier.index(m)]
                         for m in groups[tg.unit(lab)]))
               for k, (_, lab, _) in enumerate(chosen)]
    cw = [settings.guessed_colour if g else 1.0
          for g in guessed_poses([p for p, _, _ in chosen], posed)]
    return [teach.Example(lab, src, pred.embedding[k].astype(np.float32), colours[k], "cards",
                          looks[k], look_area=areas[k], model_p=model_p[k],
                          colour_weight=cw[k])
            for k, (_, lab, src) in enumerate(chosen)]


def guessed_poses(chosen: list[CardPiece], posed: list[CardPiece]) -> list[bool]:
    """Whether each chosen teach piece was cut at a guessed pose: a tap on a weak key point
    (under the reader's heat bar) is posed like its nearest posed neighbour (its angle and
    width, `tapped_pieces`, `_every_key_point`), a new piece (not one of `posed`, by
    identity) whose confidence is its key point's heat, under 1. The pieces posed around
    the taps and the reader's own pieces are in `posed`; `_every_key_point`'s posed ones
    have confidence 1."""
    ids = {id(q) for q in posed}
    return [id(p) not in ids and p.confidence < 1.0 for p in chosen]


def near_width(pieces: list[CardPiece], at, default: float) -> float:
    """The median width of the 3 pieces nearest `at` (`look_backs` sizes a region so),
    `default` when there are none."""
    if not pieces:
        return default
    from vision.cards.read import near_width as _near

    return _near(np.array([p.center for p in pieces]), np.array([p.width for p in pieces]),
                 np.asarray(at, float))


@dataclass(frozen=True)
class TeachHatToneSettings:
    """How many hats a teach photo's tone curve is read off (`hat_tone_off`; session 18,
    H15)."""

    min_hats: int = 2  # distinct tiles the untaught model names hats among the posed and
    #   chosen pieces; fewer: the reader's whole read's hats. (Before H15 a chosen piece
    #   counted twice, being among the posed ones too, so one taught hat met scoring's
    #   `HAT_TONE.min_hats` 2 alone). 2 as scoring's: 1 measured worse (teach_eval
    #   --harsh, taught: edition 2 0.97 -> 1.93 %, fresh 2441 2.50 -> 3.00 %; docs/teach.md H15)


TEACH_HAT_TONE = TeachHatToneSettings()


def hat_tone_off(reader, image: np.ndarray, pieces: list[CardPiece],
                 chosen: list[CardPiece],
                 s: TeachHatToneSettings = TEACH_HAT_TONE) -> np.ndarray:
    """Magic Rabbit's uint8 BGR teach photo `image` with a lamp's per-channel tone curve
    taken off as scoring takes it off its photos (`vision.cards.stage.hat_tone` of the
    tiles the untaught model reads as hats, `power_about`; session 18, H8): `pieces` (the
    pieces posed around the taps, or the reader's own pieces) and the `chosen` ones (most
    of them the same objects as posed ones: each piece counted once, by identity), each
    labelled by the model's likeliest class; the reader's whole read's hats where fewer than
    `s.min_hats` read as hats; the photo itself where those are fewer than `s.min_hats` or
    their greys show no curve. (Without it, the teach crops under a harsh lamp kept the
    curve that scoring takes off its photos: taught worse than untaught, docs/teach.md.)"""
    from vision.cards.stage import HAT_TONE, hat_tone, power_about

    if not HAT_TONE.on:
        return image
    seen: set[int] = set()
    distinct = []
    for p in [*pieces, *chosen]:
        if id(p) not in seen:
            seen.add(id(p))
            distinct.append(p)
    hats = [p for p in untaught_labels(reader, image, distinct) if p.label.startswith("hat-")]
    if len(hats) < s.min_hats:  # too few hats among them: the reader's whole read
        hats, _ = reader.read_pieces(image, "magic-rabbit")
    exps = hat_tone(image, hats, replace(HAT_TONE, min_hats=s.min_hats))
    return power_about(image, exps, HAT_TONE.white)


def untaught_labels(reader, image: np.ndarray, pieces: list[CardPiece]) -> list[CardPiece]:
    """Magic Rabbit's `pieces` (those with a frame) labelled by the untaught model's
    likeliest class on their crops of the uint8 BGR `image` (`reader`: the untaught reader;
    one model run over the crops, a few ms a photo: teach_eval times it). A
    taught reader reads a lamp's tone curve off these hats (session 18, H8): the taught
    prototypes are learnt from teach photos with the curve taken off, so on the photo with
    the curve still on the taught reader's hats are not the untaught reader's, and the
    curve read off them was weaker or none (harsh edition 2 scene 0006: a magician among
    seven hats, no curve read); taught worse than untaught."""
    framed = [p for p in pieces if p.frame is not None]
    if not framed:
        return []
    from vision.cards.geometry import SPECS, crop_cards

    clf = reader.classifier
    crops = crop_cards(image, [p.frame for p in framed], SPECS["magic-rabbit"],
                       reader.crop_settings)
    top = clf.predict(crops).probs.argmax(1)
    return [replace(p, label=clf.classes[int(k)]) for p, k in zip(framed, top, strict=True)]


def _reader_examples(reader, image, game, area, label, taps, scale, name, tg, settings,
                     found_out: list | None = None):
    """[(piece, label, source)] from the reader's own pieces (a whole `read_pieces` pass:
    their crops are exactly the ones scoring sees, unbalanced: scoring balances a strong
    cast, `vision.cards.stage.paper_balanced`); a tap on a piece the reader drops names the
    nearest key point (`_every_key_point`). `found_out` gets the reader's pieces."""
    found, _ = reader.read_pieces(image, game, area)
    if found_out is not None:
        found_out.extend(found)
    found = [p for p in found if p.label in tg.card_labels and p.frame is not None]
    if taps is None:
        if not found:  # the model calls it background: the detector's key points
            found = _every_key_point(reader, image, game, area)
        if not found:
            raise teach.TeachError(f"{name}: no piece found in this photo")
        if len(found) > 1:
            raise teach.TeachError(
                f"{name}: {len(found)} pieces found; photograph one piece per photo or "
                f"name each with a tap in {Path(name).stem}.taps.json")
        return [(found[0], label, name)]
    every = None
    chosen = []
    for x, y, lab in taps:
        piece = _at_tap(found, x, y, scale, settings.tap_radius)
        if piece is None:  # a piece the model calls background, or a weak key point
            if every is None:
                every = _every_key_point(reader, image, game, area)
            piece = _at_tap(every, x, y, scale, settings.tap_radius)
        if piece is None:
            raise teach.TeachError(f"{name}: no piece found at the tap ({x:.0f}, {y:.0f})")
        chosen.append((piece, lab, f"{name}@{x:.0f},{y:.0f}"))
    return chosen


def tapped_pieces(reader, image: np.ndarray, game: str, area,
                  taps: list[tuple[float, float, str]], scale: float,
                  settings: teach.TeachSettings, name: str,
                  posed_out: list | None = None) -> list[CardPiece]:
    """The piece under each tap, posed as the reader poses its key points
    (`CardReader.pose_key_points`: width search, `refine_poses`) but only over the tapped
    key points and their `tap_neighbours` nearest key points (the width field and the
    shared directions are local; the reader's width search over every key point of a
    crowded teach photo is most of its time). The detector runs once; a tap on no key point
    of the reader's heat bar names a weaker one (down to `TAP_KEY_THRESHOLD`), posed like
    its nearest posed neighbour, as `_every_key_point` does. So does a tap on a label of
    `settings.tap_off_labels` whose strong piece lies over `settings.tap_off` of its widths
    from it where a weak key point lies nearer (posed like its nearest posed piece other
    than that one, which is the same tile posed off it; session 19, H9: teach_eval's harsh
    magician, a strong key point 0.44 widths off the tile's centre, its crop mostly table)."""
    from vision.cards.detect import KIND_PIECE
    from vision.cards.geometry import SPECS, frame_from_pose

    s = reader.settings
    thr = s.troeto_key_threshold if game == "troetofanten" else s.key_threshold
    taps_px = np.array([[x, y] for x, y, _ in taps], float) / scale  # working-image pixels
    kp = detect_near(reader.detector, image, taps_px, settings.tap_window,
                     min(s.key_threshold, s.dove_threshold, TAP_KEY_THRESHOLD))
    piece = kp.kind == KIND_PIECE
    strong = np.flatnonzero(piece & (kp.score >= thr))
    weak = np.flatnonzero(piece & (kp.score < thr))
    # the neighbourhood: each tap's nearest strong key points
    keep = np.zeros(len(kp), bool)
    if len(strong):
        d = np.hypot(*(kp.xy[strong][None] - taps_px[:, None]).transpose(2, 0, 1))
        near = np.argsort(d, axis=1)[:, :settings.tap_neighbours + 1]
        keep[strong[near.ravel()]] = True
    posed = []
    if keep.any():
        sub = kp.select(keep | ~piece)  # (the doves stay: the reader's own input)
        sub, idx, frames = reader.pose_key_points(image, game, sub, thr, area)
        posed = [CardPiece(NEUTRAL_LABEL[game], 1.0, sub.xy[i].copy(), frames[r],
                           float(sub.angle[i]), float(sub.width[i]))
                 for r, i in enumerate(idx)]
    kept = _strongest_first(posed, s.duplicate)
    if posed_out is not None:  # (the cards posed around the taps, for their widths)
        posed_out.extend(kept)
    out = []
    for (x, y, lab), t in zip(taps, taps_px, strict=True):
        p = _at_tap(kept, x, y, scale, settings.tap_radius)
        off = None  # a strong piece posed off the tap, a weak key point nearer (`tap_off`)
        if p is not None and settings.tap_off > 0 and len(weak) and \
                lab in [t.strip() for t in settings.tap_off_labels.split(",")]:
            d = float(np.hypot(*(p.center - t)))
            if d > settings.tap_off * p.width and \
                    float(np.hypot(*(kp.xy[weak] - t).T).min()) < d:
                off = p
        if (p is None or off is not None) and len(weak) and posed:  # a weak key point: its
            #   nearest (other) piece's pose
            dw = np.hypot(*(kp.xy[weak] - t).T)
            i = weak[int(np.argmin(dw))]
            others = [q for q in posed if q is not off] or posed
            r = int(np.argmin([np.hypot(*(q.center - kp.xy[i])) for q in others]))
            ang, wid = others[r].angle, others[r].width
            cand = CardPiece(NEUTRAL_LABEL[game], float(kp.score[i]), kp.xy[i].copy(),
                             frame_from_pose(kp.xy[i], ang, wid, SPECS[game]), ang, wid)
            p = _at_tap([cand], x, y, scale, settings.tap_radius) or off
        if p is None:
            raise teach.TeachError(f"{name}: no piece found at the tap ({x:.0f}, {y:.0f})")
        out.append(p)
    return out


WINDOW_ALIGN = 16  # working-image px: the detector's input scale x its total stride
WINDOW_EDGE = 16  # key points this close to a cut edge of the window are dropped


def detect_near(detector, image: np.ndarray, points: np.ndarray, window: float,
                threshold: float):
    """The detector's key points around `points` ((N, 2) working-image px): it runs on a
    window of `window` x the image's long side around them (its origin on the network's
    grid, so the key points inside are the ones the whole image gives), and again on the
    whole image when the window would cover most of it or the piece nearest a point looks
    too big for it (a close-up photo). Key points at a cut edge of the window are left
    out."""
    h, w = image.shape[:2]
    side = window * max(h, w)
    lo = np.floor((points.min(axis=0) - side / 2) / WINDOW_ALIGN) * WINDOW_ALIGN
    hi = np.ceil((points.max(axis=0) + side / 2) / WINDOW_ALIGN) * WINDOW_ALIGN
    x0, y0 = (int(v) for v in np.maximum(lo, 0))
    x1, y1 = int(min(hi[0], w)), int(min(hi[1], h))
    if window <= 0 or (x1 - x0) * (y1 - y0) > 0.6 * w * h:
        return detector.detect(image, threshold)
    kp = detector.detect(image[y0:y1, x0:x1], threshold)
    kp = Keypoints(kp.xy + [x0, y0], kp.kind, kp.score, kp.angle, kp.width)
    e = WINDOW_EDGE
    inner = (((kp.xy[:, 0] >= x0 + e) | (x0 == 0)) & ((kp.xy[:, 0] < x1 - e) | (x1 == w))
             & ((kp.xy[:, 1] >= y0 + e) | (y0 == 0)) & ((kp.xy[:, 1] < y1 - e) | (y1 == h)))
    kp = kp.select(inner)
    if len(kp):
        d = np.hypot(*(kp.xy[None] - points[:, None]).transpose(2, 0, 1))
        near = d.argmin(axis=1)
        if (kp.width[near] > side / 4).any():  # a close-up: all of it
            return detector.detect(image, threshold)
    return kp


def _strongest_first(posed: list[CardPiece], duplicate: float) -> list[CardPiece]:
    """The posed key points (strongest first) less those within `duplicate` widths of a
    stronger one: the reader keeps one piece there, the strongest."""
    out: list[CardPiece] = []
    for p in posed:
        if all(np.hypot(*(p.center - q.center)) >= duplicate * q.width for q in out):
            out.append(p)
    return out


def _at_tap(pieces: list[CardPiece], x: float, y: float, scale: float, radius: float):
    """The piece whose centre lies nearest the tap (photo pixels), within `radius` of its
    width; None when none does."""
    if not pieces:
        return None
    centers = np.array([p.center for p in pieces]) * scale
    d = np.hypot(centers[:, 0] - x, centers[:, 1] - y)
    i = int(d.argmin())
    return pieces[i] if d[i] <= radius * pieces[i].width * scale else None


def _every_key_point(reader, image: np.ndarray, game: str, area) -> list[CardPiece]:
    """A piece at every key point of the detector, down to `TAP_KEY_THRESHOLD` heat, for a
    tap on a piece the reader does not return (the classifier calls it background, or the
    detector is unsure of it: a face-down Troetofanten card on a pile). The poses follow
    `CardReader.read_pieces` (its width search where the reader has one, `refine_poses`
    over the same key points); weaker key points take their nearest neighbour's pose."""
    from vision.cards.detect import KIND_PIECE
    from vision.cards.geometry import SPECS, frame_from_pose

    s = reader.settings
    thr = s.troeto_key_threshold if game == "troetofanten" else s.key_threshold
    kp = reader.detector.detect(image, min(s.key_threshold, s.dove_threshold,
                                           TAP_KEY_THRESHOLD))
    kp, idx, frames = reader.pose_key_points(image, game, kp, thr, area)
    ang, wid = kp.angle[idx], kp.width[idx]
    # the weaker key points the reader leaves out: posed like their nearest kept neighbour
    low = np.flatnonzero((kp.kind == KIND_PIECE) & (kp.score < thr)
                         & (kp.score >= TAP_KEY_THRESHOLD))
    out = []
    for r, i in enumerate(idx):
        frame = frames[r]
        out.append(CardPiece(NEUTRAL_LABEL[game], 1.0, kp.xy[i].copy(), frame, float(ang[r]),
                             float(wid[r])))
    if len(low) and len(idx):
        for i in low:
            r = int(np.argmin(np.hypot(*(kp.xy[idx] - kp.xy[i]).T)))
            frame = frame_from_pose(kp.xy[i], ang[r], wid[r], SPECS[game])
            out.append(CardPiece(NEUTRAL_LABEL[game], float(kp.score[i]), kp.xy[i].copy(),
                                 frame, float(ang[r]), float(wid[r])))
    return out
