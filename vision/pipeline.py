"""Photo -> play area -> candidates -> classified pieces -> facts -> score.

`Pipeline` loads the ONNX classifier once and chains the stages; each stage is a function
`stage(settings, ...) -> result` whose settings dataclass lives beside it (`AreaSettings` in
`vision.area`, `TileSettings` / `MarbleSettings` in `vision.segment`, `CropSettings` in
`vision.preprocess`, `DecideSettings` here). `score_photo` is the entry point of the CLI and
the web API and returns exactly the contract's JSON object.
"""

from __future__ import annotations

import re
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from scoring import GAMES
from scoring.labels import (
    CARD_LABELS_HOP,
    HOP_ZONES,
    MAGIC_RABBIT_LABELS,
    MARBLE_LABELS,
    MARBLES_PER_COLOUR,
    SIMSALA_COUNTS,
    SIMSALA_LABELS,
    SIMSALA_TILES,
    TROETO_LABELS,
)
from tablescore.errors import BadInput, FactsError, NotFound, UnknownGame
from vision.area import AREA_SETTINGS, PlayArea, find_area, near_glare_spots
from vision.classify.model import PieceClassifier, Prediction
from vision.classify.settings import BACKGROUND, MODEL_PATH
from vision.detections import Detections
from vision.errors import NoPieces
from vision.image_io import ImageSettings, Photo, load_photo
from vision.preprocess import (
    CropSettings,
    apply_gains,
    apply_tone,
    extract_crops,
    light_gains,
    power_about,
)
from vision.segment import (
    MARBLE_SETTINGS,
    TILE_SETTINGS,
    Candidates,
    cloth_gains,
    cloth_tone,
    edge_tiles,
    find_tiles,
    marble_candidates,
    near_glare,
    outline_squares,
    outlined,
    square,
    table_likeness,
    washed_crops,
)


@dataclass(frozen=True)
class DecideSettings:
    low_confidence: float = 0.6  # pieces below this get a warning
    min_piece_prob: float = 0.5  # a candidate is a piece when P(background) is below this
    min_area_prob: float = 0.3  # marbles where the area network sees no cloth are dropped
    # ... except on the cloth's quad within a glare spot's reach (`PlayArea.glare`, the area's
    # `AreaSettings.glare_reach` x its core: as far as `remove_glare` takes the spot's light
    # off): the network's map is made on that de-glared photo, where a white cloth is left
    # with a dark disc and ring, and holes there. light_eval's glare copies: the 10 marbles
    # it dropped on 80 photos (committed, edition 2, fresh 2830-1) kept, no extra
    # (docs/hop-la-bille.md, "Glare again (session 22, H6)"). False: the map decides there too.
    glare_map_free: bool = True
    # More pieces of a label than the game has: the least sure of them move to their next
    # likeliest label that has room, if that label has at least this share of their first's
    # probability (the pair warm light confuses: an orange rabbit read as a third yellow)
    min_alt_ratio: float = 0.02
    # a piece outside the play area read less surely than this is not counted (a warning
    # names it): outside pieces never score, and notes, coins and the castle's shields there
    # are the commonest false pieces
    min_outside_confidence: float = 0.4
    # fewer tiles seen than the game has: a tile of the last look (`segment.edge_tiles`,
    # `segment.outline_squares`) counts only when its likeliest label has at least this
    # probability (a table's checks of a tile's size read as frogs at up to 0.91; tiles
    # found there at 0.93-0.98) ...
    missing_min_prob: float = 0.93
    # ... and it looks unlike the table one or two of its sides beside it by at least this
    # (`segment.table_likeness`, mean Lab difference; table checks and stripes: 3-7)
    missing_unlike_table: float = 9.0
    # an outline square read as a piece at this probability is read again at these shares
    # of a tile's side, the surest kept (its side is the game's, not measured)
    missing_again_prob: float = 0.5
    missing_square_sides: tuple[float, ...] = (0.9, 1.1)


@dataclass(frozen=True)
class GameVision:
    """What the pipeline needs to know about one game."""

    game: str
    area_name: str
    labels: tuple[str, ...]
    kind: str  # "tiles", "marbles" or "cards" (issue 6: `vision.cards`, no play area)
    card_labels: tuple[str, ...] = ()  # pieces read by the card stage (`vision.cards`)
    coats_of_arms: bool = False  # the castle walls' player colours re-decide the coloured
    # pieces (`vision.shields`)
    limits: tuple[int, ...] = ()  # how many of each of `labels` the game has (() no limit)
    total: int = 0  # how many pieces the game has in all (0: no limit)


VISION_GAMES: dict[str, GameVision] = {
    "simsala-hopp": GameVision("simsala-hopp", "Simsala Hopp arena (red square)", SIMSALA_LABELS,
                               "tiles", coats_of_arms=True,
                               limits=tuple(SIMSALA_COUNTS[lab] for lab in SIMSALA_LABELS),
                               total=SIMSALA_TILES),
    "hop-la-bille": GameVision("hop-la-bille", "Hop la bille cloth", MARBLE_LABELS, "marbles",
                               CARD_LABELS_HOP,
                               limits=(MARBLES_PER_COLOUR,) * len(MARBLE_LABELS)),
    "magic-rabbit": GameVision("magic-rabbit", "Magic Rabbit line of tiles", (), "cards",
                               MAGIC_RABBIT_LABELS),
    "troetofanten": GameVision("troetofanten", "Troetofanten cards", (), "cards",
                               TROETO_LABELS),
}


# Every game `score_photo` reads: the games above plus Mauerhuepfer (board and pawns in
# `vision.mauer`, no crop classifier).
PHOTO_GAMES = frozenset(VISION_GAMES) | {"mauerhuepfer"}


def game_vision(game: str) -> GameVision:
    """The game's vision description; `UnknownGame` / `BadInput` for games without vision."""
    if game in VISION_GAMES:
        return VISION_GAMES[game]
    if game not in GAMES:
        raise UnknownGame(f"unknown game {game!r}; choose one of: {', '.join(GAMES)}")
    raise BadInput(
        f"reading {game} from a photo is not supported yet (supported: "
        f"{', '.join(VISION_GAMES)}); type the facts in with --facts FACTS.json"
    )


@dataclass
class Timer:
    ms: dict[str, float] = field(default_factory=dict)

    def lap(self, name: str, started: float) -> float:
        now = time.perf_counter()
        self.ms[name] = round(self.ms.get(name, 0.0) + (now - started) * 1000, 3)
        return now


@dataclass(frozen=True)
class Recognition:
    """Everything the pipeline found in one photo (working-image coordinates inside `area`;
    `detections` in original photo pixels)."""

    game: str
    photo: Photo
    area: PlayArea
    candidates: Candidates
    detections: Detections
    embeddings: np.ndarray
    facts: dict
    warnings: list[str]
    timings_ms: dict[str, float]
    meanwhile: object = None  # what `recognise`'s `meanwhile` gave, or None


def plane_zone(game: str, area: PlayArea, centers_plane: np.ndarray) -> np.ndarray:
    """Zone of each plane point: Simsala Hopp `arena`/`outside`; Hop la bille the side strip
    (`north` top of the plane, clockwise) within `MarbleSettings.zone_depth` of an edge, else
    `middle`."""
    s = float(area.settings.plane_px)
    x, y = centers_plane[:, 0], centers_plane[:, 1]
    if game == "simsala-hopp":
        inside = (x >= 0) & (x <= s) & (y >= 0) & (y <= s)
        return np.where(inside, "arena", "outside").astype(object)
    depth = MARBLE_SETTINGS.zone_depth * s
    d = np.stack([y, s - x, s - y, x], axis=1)  # distance to north, east, south, west edges
    nearest = d.argmin(axis=1)
    zones = np.array(HOP_ZONES[:4], dtype=object)[nearest]
    return np.where(d.min(axis=1) < depth, zones, "middle").astype(object)


def cloth_probability(area: PlayArea, cand: Candidates, glare_reach: float = 0.0
                      ) -> np.ndarray | None:
    """The area network's cloth probability for each marble candidate: the higher of its
    centre's and of the point one marble further in (the network's mask is blurred at the
    cloth's edge, where marbles often lie); 1.0 for a candidate on the cloth's quad within
    `glare_reach` x a glare spot's core (`PlayArea.glare`; 0: none), where the map was made
    on the photo with the spot's light taken off. float (N,), or None when the area did not
    come from the network."""
    centre = np.full(2, area.settings.plane_px / 2)
    to_mid = centre - cand.centers
    step = to_mid / np.maximum(np.hypot(*to_mid.T), 1e-9)[:, None] * cand.sides[:, None]
    here = area.area_probability(area.to_image(cand.centers))
    if here is None:
        return None
    prob = np.maximum(here, area.area_probability(area.to_image(cand.centers + step)))
    if glare_reach > 0 and area.glare:
        x, y = area.to_image(cand.centers).T
        s = area.settings.plane_px
        on_quad = np.all((cand.centers >= 0) & (cand.centers <= s), axis=1)
        prob[on_quad & near_glare_spots(x, y, area.glare, glare_reach)] = 1.0
    return prob


_GLARE_FREE = threading.local()  # per thread: the last photo's glare-free copy


def _glare_free(image_bgr: np.ndarray, area: PlayArea) -> np.ndarray:
    """uint8 BGR `image_bgr` with `area.glare`'s spots' light taken off
    (`vision.area.remove_glare`), worked out once per photo and thread: a photo's tile crops
    are cut up to three times (the first candidates, then the missing tiles' two looks), at
    17-80 ms a time on light_eval's glare copies. The photo itself is kept with it, so an
    identity check cannot match another photo."""
    from vision.area import remove_glare

    last = getattr(_GLARE_FREE, "last", None)
    if last is not None and last[0] is image_bgr and last[1] == area.glare \
            and last[2] == area.settings:
        return last[3]
    out = remove_glare(image_bgr, area.settings, list(area.glare))
    _GLARE_FREE.last = (image_bgr, area.glare, area.settings, out)
    return out


def untaught_crops(kind: str, image_bgr: np.ndarray, area: PlayArea, centers: np.ndarray,
                   sides: np.ndarray, angles: np.ndarray, crop: CropSettings) -> np.ndarray:
    """The crops the untaught path classifies (`extract_crops`' with `crop`), a game of
    `kind` "marbles"'s first freed of a lamp's per-channel tone curve that the cloth's own
    shading shows (`vision.segment.cloth_tone`, `apply_tone`; ordinary photos show none),
    balanced again by the cloth's own light where a strong cast is left on
    it (`vision.segment.cloth_gains`; the photo's light estimated once for both), then a
    lamp's even glare taken off washed-out ones (`vision.segment.washed_crops`); a game of
    kind "tiles"'s crops are cut, where the area stage took a glare spot off
    (`PlayArea.glare`), from the photo with that spot's light taken off likewise
    (`vision.area.remove_glare`, at the working size), and those near it have what is
    left of the lamp's white taken off each (`vision.segment.glare_washed_tiles`); shared
    with teach mode's reading of the untaught model (`Example.model_p`)."""
    if kind != "marbles" or not len(centers):
        glare = kind == "tiles" and bool(area.glare) and len(centers) > 0
        if glare:  # the lamp's light off the photo as the area stage took it off its own
            image_bgr = _glare_free(image_bgr, area)
        crops = extract_crops(image_bgr, area.H_plane_to_img, centers, sides, angles, crop)
        if glare:  # and what that ring average left on each crop near a spot
            from vision.segment import glare_washed_tiles

            crops = glare_washed_tiles(crops, area.to_image(centers), area.glare,
                                       TILE_SETTINGS)
        return crops
    gains = light_gains(image_bgr, crop.light_balance)
    crops = extract_crops(image_bgr, area.H_plane_to_img, centers, sides, angles,
                          replace(crop, light_balance=0.0))
    exps, pivots = cloth_tone(MARBLE_SETTINGS, image_bgr, area)  # (a lamp's tone curve off)
    crops = apply_tone(crops, exps, pivots)
    if crop.light_balance > 0:  # extract_crops' own balance, the same numbers
        crops = apply_gains(crops, gains)
    # (applied after it, not as one product: the same crops as the cloth balance measured
    # in docs/hop-la-bille.md; the product measured harsh 9.74 -> 9.88 %)
    cloth = cloth_gains(MARBLE_SETTINGS, image_bgr, area, gains)
    crops = crops if np.all(cloth == 1.0) else apply_gains(crops, cloth)
    near = near_glare(image_bgr, area, centers, MARBLE_SETTINGS)  # (crops by a spot)
    return washed_crops(crops, MARBLE_SETTINGS, crop.margin, near)  # (a lamp's glare off)


def lamp_reading(image_bgr: np.ndarray, area: PlayArea):
    """Simsala Hopp's coats of arms read as the untaught reading reads them, a lamp's tone
    curve taken off where they name none as they are: (hues or None, the balance strength
    they were read at (`vision.shields.balanced_shield_hues`), the uint8 BGR photo with the
    curve taken off about white or None). Where the photo's coats of arms name none as it
    is, the table beyond the castle's curve (`PlayArea.table_curve`, `find_area`'s reading,
    else `vision.shields.table_tone`) is taken off (`power_about`) and the coats of arms read
    again; that reading is kept where the plain one names none or lies further from their
    usual hues (`vision.shields.naming_error`, docs/simsala-hopp.md session 18 H3). Shared by
    the untaught reading and teach mode's `Example.model_p` (the model's own reading of a
    teach photo's pieces, as the untaught reading sees them; session 19 H1)."""
    from vision import shields  # (looked up per call: teach_eval times shield_hues)

    hues, strength = shields.balanced_shield_hues(image_bgr, area)
    toned = None
    exps = None if hues is not None and strength <= 0 else \
        shields.kept_table_tone(image_bgr, area)  # (`find_area`'s reading, where it made one)
    if exps is not None:  # a lamp's tone curve: its coats of arms read with it taken
        # off too, that reading (and the crops cut from it) kept where they lie nearer
        # their usual hues (`vision.shields.naming_error`)
        curved = power_about(image_bgr, exps, shields.SHIELDS.tone_white)
        hues1, strength1 = shields.balanced_shield_hues(curved, area)
        if hues1 is not None and (hues is None or shields.naming_error(hues1)
                                  < shields.naming_error(hues)):
            hues, strength, toned = hues1, strength1, curved
    return hues, strength, toned


def facts_from(game: str, det: Detections) -> dict:
    counts = det.counts()
    if game == "simsala-hopp":
        return {z: dict(sorted(counts.get(z, {}).items())) for z in ("arena", "outside")}
    zones = {z: dict(sorted(counts[z].items())) for z in HOP_ZONES if counts.get(z)}
    return {"zones": zones, "cards": {}}


def unsure_warnings(det: Detections, settings: DecideSettings) -> list[str]:
    """A warning for each piece read less surely than `settings.low_confidence`."""
    return [f"unsure about the {det.labels[i]} at ({det.centers[i][0]:.0f}, "
            f"{det.centers[i][1]:.0f}) (confidence {det.confidence[i]:.2f})"
            for i in np.flatnonzero(det.confidence < settings.low_confidence)]


_UNSURE = re.compile(r"^unsure about the [^ ]+ at (\(-?\d+, -?\d+\)) \(confidence [0-9.]+\)$")


def one_doubt_a_piece(warnings: list[str]) -> list[str]:
    """`warnings` less each "unsure about the <label> at (x, y) (confidence c)" whose piece
    another warning names at the same "(x, y)" (a reading the game's rules, its colour or
    its number changed, "is read as", "looks like", "its corner number is unclear"): that
    one already asks the user to check the piece; two lines on one piece read as two
    doubts. Session 24 (H4): committed edition 2, Magic Rabbit 63 of its 192 doubts,
    Simsala Hopp 11 of 60; the 4 it drops at an error lie where another doubt names the
    piece, so no error is left unnamed (`python -m vision.warn_eval`, docs/vision.md).
    A text not in `unsure_warnings`' exact words (another label form, a float place) is
    kept."""
    others = {w for w in warnings if not _UNSURE.match(w)}
    return [w for w in warnings
            if not ((m := _UNSURE.match(w)) and any(f"at {m.group(1)}" in o for o in others))]


def within_counts(p: np.ndarray, limits, min_alt_ratio: float) -> tuple[np.ndarray, list]:
    """Labels for N pieces from their (N, L) label probabilities `p` such that no label is
    given more often than `limits` (L ints) allows: while a label is over, the move that
    costs least (log-probability) takes one of its pieces to a label with room, if that
    label has at least `min_alt_ratio` of the piece's first choice. Returns (N,) label
    indices and [(piece, from, to)] of the moves made."""
    best = p.argmax(axis=1) if len(p) else np.zeros(0, int)
    limits = np.asarray(limits)
    moves: list = []
    logp = np.log(np.maximum(p, 1e-12))
    while True:
        counts = np.bincount(best, minlength=len(limits))
        over = counts > limits
        if not over.any():
            return best, moves
        room = counts < limits
        rows = np.flatnonzero(over[best])
        cost = logp[rows, best[rows], None] - logp[rows]  # (R, L): losses of each move
        cost[:, ~room] = np.inf
        cost[cost > -np.log(min_alt_ratio)] = np.inf
        if not np.isfinite(cost).any():
            return best, moves
        r, to = np.unravel_index(np.argmin(cost), cost.shape)
        i = int(rows[r])
        moves.append((i, int(best[i]), int(to)))
        best[i] = to


def beyond_counts(det: Detections, labels: tuple[str, ...], limits, total: int,
                  drawn: np.ndarray | None = None) -> tuple[np.ndarray, list[str]]:
    """(bool mask of the pieces to count, warnings about the others): where `det` holds
    more pieces of a label than `limits` (ints per `labels`) allows, or more than `total`
    pieces in all (0: no limit), the least sure of them are not counted, those outside the
    play area first, and of those the ones not `drawn` ((N,) bool or None: all drawn; a
    tile's square outline, `vision.segment.outlined`) first. The game has no more: the
    extra ones are misreadings or things that only look like pieces (a note, a coin, a
    printed table's flower), and impossible counts could not be scored."""
    keep = np.ones(len(det), bool)
    doubts = []
    drawn = np.ones(len(det), bool) if drawn is None else np.asarray(drawn, bool)
    # outside pieces first (notes and coins lie there), undrawn ones first, each least sure
    # first
    for i in np.lexsort((det.confidence, drawn | (det.zones != "outside"),
                         det.zones != "outside")):
        lab = det.labels[i]
        n_lab = np.count_nonzero(keep & (det.labels == lab))
        limit = limits[labels.index(lab)] if lab in labels else n_lab
        if n_lab > limit:
            seen = f"{n_lab} {lab} seen, but the game has only {limit}"
        elif total and keep.sum() > total:
            seen = f"{keep.sum()} pieces seen, but the game has only {total}"
        else:
            continue
        keep[i] = False
        x, y = det.centers[i]
        doubts.append(f"{seen}: the least sure, a {lab} at ({x:.0f}, {y:.0f}) (confidence "
                      f"{det.confidence[i]:.2f}), is not counted; check it")
    return keep, doubts


def sure_outside(det: Detections, min_confidence: float) -> tuple[np.ndarray, list[str]]:
    """(bool mask of the pieces to count, warnings about the others): pieces in the zone
    `outside` read with confidence under `min_confidence` are not counted."""
    unsure = (det.zones == "outside") & (det.confidence < min_confidence)
    doubts = [f"maybe a {det.labels[i]} outside at ({det.centers[i][0]:.0f}, "
              f"{det.centers[i][1]:.0f}) (confidence {det.confidence[i]:.2f}); not counted"
              for i in np.flatnonzero(unsure)]
    return ~unsure, doubts


def _distance(cand: Candidates, points: np.ndarray) -> np.ndarray:
    """(N,) distance from each of `cand`'s centres to the nearest of (M, 2) `points`
    (inf without points)."""
    if not len(points):
        return np.full(len(cand), np.inf)
    return np.hypot(*(cand.centers[:, None] - points[None]).transpose(2, 0, 1)).min(axis=1)


def _empty_score(game: str) -> dict:
    return {"simsala-hopp": {"points": {}}, "troetofanten": {"points": {}},
            "magic-rabbit": {"won": False, "wrong_positions": []}}.get(game, {"completed": {}})


def _joined(a: Prediction, b: Prediction) -> Prediction:
    """Both classifier outputs in one (an empty one, its embedding (0, 0), adds nothing)."""
    if not len(a.probs):
        return b
    if not len(b.probs):
        return a
    return Prediction(np.concatenate([a.probs, b.probs]),
                      np.concatenate([a.embedding, b.embedding]))


def _join(a: Detections, b: Detections) -> Detections:
    """Both pieces lists in one `Detections`."""
    return Detections(labels=np.concatenate([a.labels, b.labels]),
                      zones=np.concatenate([a.zones, b.zones]),
                      confidence=np.concatenate([a.confidence, b.confidence]),
                      centers=np.concatenate([a.centers, b.centers]),
                      polygons=a.polygons + b.polygons)


def _taught(profile) -> bool:
    """Teach mode: a profile with a piece part the model does not read already (`known`)."""
    return profile is not None and profile.piece_part is not None \
        and not profile.piece_part.known


class Pipeline:
    """Loads the classifier once; `recognise` runs area -> segment -> classify -> facts."""

    def __init__(self, model_path: str | Path = MODEL_PATH,
                 image_settings: ImageSettings | None = None,
                 decide: DecideSettings | None = None, threads: int = 1):
        # One thread each for OpenCV and onnxruntime: on 2 shared cores the thread pools'
        # spinning cost more than they gain (measured: 52 ms CPU per photo with 1 thread,
        # 130 ms with 2). OpenCV's setting is process-wide.
        cv2.setNumThreads(threads)
        self.model_path = Path(model_path)
        self.threads = threads
        self._classifier: PieceClassifier | None = None
        self._cards = None  # vision.cards.read.CardReader, loaded on first use
        self._pool = None  # the card stage's thread (`_card_pool`)
        self.image_settings = image_settings or ImageSettings()
        self.decide = decide or DecideSettings()

    @property
    def classifier(self) -> PieceClassifier:
        """The ONNX classifier, loaded on first use (bad photos never need it)."""
        if self._classifier is None:
            self._classifier = PieceClassifier(self.model_path, threads=self.threads)
        return self._classifier

    @property
    def cards(self):
        """The card reader (issue 6: key-point detector + card classifier), loaded on first
        use."""
        if self._cards is None:
            from vision.cards.read import CardReader

            self._cards = CardReader(threads=self.threads)
        return self._cards

    def _card_reader(self, game: str, profile=None):
        """The card reader, re-deciding with the profile's card part when there is one."""
        if profile is None or profile.card_part is None:
            return self.cards
        from vision.teach_cards import taught_reader

        return taught_reader(self.cards, profile, game)

    def _recognise_cards(self, gv: GameVision, photo: Photo, timer: Timer, t: float,
                         profile=None) -> Recognition:
        """Games without a play area (Magic Rabbit, Troetofanten): `vision.cards`."""
        from vision.cards.stage import read_cards

        res = read_cards(self._card_reader(gv.game, profile), photo.image, photo.scale,
                         gv.game, jpeg_quality=photo.jpeg_quality)
        if len(res.detections) == 0:
            raise NoPieces(f"no {gv.area_name} found in the photo")
        timer.lap("cards", t)
        return Recognition(gv.game, photo, None, None, res.detections, np.zeros((0, 0)),
                           res.facts, res.warnings, timer.ms)

    def _card_pool(self):
        """One worker thread for the card stage of games that also have pieces."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cards")
        return self._pool

    def _timed_cards(self, game: str, photo: Photo, area_at: Future, profile=None):
        """(`vision.cards.stage.read_cards`' result for the cards beside the area `area_at`
        gives, its ms). The detector's key points on the photo (`early_keys`) are found
        first, while the other thread is still finding the area (they need none: issue 6,
        the card stage's network off the photo's longest path); the ms leave out the wait
        for the area. An area not found: its error, raised here too."""
        from vision.cards.geometry import keeping_scaled
        from vision.cards.stage import early_keys, read_cards

        t = time.perf_counter()
        reader = self._card_reader(game, profile)
        with keeping_scaled():  # (the detector's area resize of the photo shared with the
            #                     card reading's, as within `read_cards` alone)
            keys = early_keys(reader, photo.image, game)
            ms = (time.perf_counter() - t) * 1000
            area = area_at.result()
            t = time.perf_counter()
            res = read_cards(reader, photo.image, photo.scale, game, area,
                             jpeg_quality=photo.jpeg_quality, keys=keys)
        return res, ms + (time.perf_counter() - t) * 1000

    def _pieces(self, gv: GameVision, photo: Photo, area: PlayArea, timer: Timer, t: float,
                profile=None):
        """Segment, classify and count the pieces in and around `area`: (detections,
        candidates, the classifier's output, indices of the kept candidates, facts,
        warnings)."""
        game = gv.game
        if gv.kind == "tiles":
            cand = find_tiles(photo.image, area, TILE_SETTINGS)
        else:  # (an underexposed photo brought up first, for the looks and the crops)
            photo, cand = marble_candidates(photo, area, MARBLE_SETTINGS)
            reach = area.settings.glare_reach if self.decide.glare_map_free else 0.0
            on_cloth = cloth_probability(area, cand, reach) if len(cand) else None
            if on_cloth is not None:  # not on a card lying beside a cloth found too big
                cand = cand.take(on_cloth >= self.decide.min_area_prob)
        t = timer.lap("segment", t)
        hues = None  # Simsala Hopp's coats of arms, read once for the photo
        cue = None  # ... and how the tiles' colours are measured against them
        if gv.coats_of_arms:
            hues, cue = self._shields(photo, area, profile)
        pred, probs, crops = self._classify(gv, photo, area, cand, hues, profile, cue=cue)
        keep, labels, conf, moves = self._decide(gv, probs)
        t = timer.lap("classify", t)
        first = len(cand)  # (candidates from here on: the last look's)
        if gv.kind == "tiles" and gv.total and keep.sum() < gv.total:
            cand, pred, probs = self._missing_tiles(gv, photo, area, cand, keep, labels, pred,
                                                    probs, hues, profile, crops, cue)
            keep, labels, conf, moves = self._decide(gv, probs)
            t = timer.lap("missing", t)
        idx = np.flatnonzero(keep)
        centers_img = area.to_image(cand.centers[idx]) * photo.scale if len(idx) else \
            np.zeros((0, 2))
        polys = tuple(
            None if cand.polygons[i] is None else area.to_image(cand.polygons[i]) * photo.scale
            for i in idx
        )
        at = dict(zip(idx.tolist(), centers_img, strict=True))  # candidate -> centre (photo px)
        det = Detections(labels=labels[idx], zones=plane_zone(game, area, cand.centers[idx]),
                         confidence=conf[idx], centers=centers_img, polygons=polys)
        sure, doubts = sure_outside(det, self.decide.min_outside_confidence)
        det, idx = det[sure], idx[sure]
        if gv.limits:
            drawn = None
            if gv.kind == "tiles" and not beyond_counts(det, gv.labels, gv.limits,
                                                        gv.total)[0].all():
                # (which outside pieces go first: a printed table's motifs read as tiles
                # draw no square; only where some must go, the committed photos' time kept)
                out = np.flatnonzero(det.zones == "outside")
                drawn = np.ones(len(det), bool)
                pick = np.zeros(len(cand), bool)
                pick[idx[out]] = True  # (idx ascending: `take` keeps their order)
                drawn[out] = outlined(photo.image, area, cand.take(pick), TILE_SETTINGS)
            sure, more = beyond_counts(det, gv.labels, gv.limits, gv.total, drawn)
            det, idx, doubts = det[sure], idx[sure], doubts + more
        if len(det) == 0:
            raise NoPieces(f"the {gv.area_name} was found, but no piece on or around it")
        facts = facts_from(game, det)
        warnings = [f"more {a} than the game has: the least sure one, at ({at[i][0]:.0f}, "
                    f"{at[i][1]:.0f}), is read as {b}, its next likeliest reading; check it"
                    for (i, a, b) in moves]
        warnings += doubts + unsure_warnings(det, self.decide)
        warnings += [f"the {lab} at ({at[i][0]:.0f}, {at[i][1]:.0f}) was found only by its "
                     f"outline, in a last look for missing tiles; check it"
                     for i, lab in zip(idx, det.labels, strict=True) if i >= first]
        taught = _taught(profile)
        if gv.coats_of_arms and hues is not None and len(idx) and not taught:
            warnings += self._cue_warnings(gv, pred.probs[idx], probs[idx], det)
        timer.lap("facts", t)
        return det, cand, pred, idx, facts, warnings

    def _shields(self, photo: Photo, area: PlayArea, profile=None):
        """Simsala Hopp: the coats of arms' hues (`vision.shields`), or None, and a
        `vision.tile_cues.CueFrame` (or None: the crops as they are, no cast): the gains that
        bring the untaught crops (balanced by `CropSettings.light_balance`) to the balance
        the hues were read in, and the light's hue when a cast had to be balanced away.
        Untaught, a photo whose coats of arms name none as it is is read again white
        balanced by its own light (`balanced_shield_hues`), and where the table beyond the
        castle shows a lamp's per-channel tone curve (`vision.shields.table_tone`) read once
        more with it taken off (`lamp_reading`): its photo is then the CueFrame's `image`,
        the untaught crops cut from it. A teach profile keeps its own calibration: the hues
        as the photo names them (as it is, no balance), on the photo with a lamp's curve
        taken off as its teach photos were (`vision.teach.lamp_toned`, where the profile has
        a lamp curve, `Profile.tone`: the CueFrame's `image`, no gains), else on the photo."""
        from vision.tile_cues import CueFrame, light_hue

        if _taught(profile):  # (`vision.teach.lamp_toned`: as the teach photos were read)
            from vision.teach import lamp_toned

            hues, toned = lamp_toned(photo.image, area, profile.piece_part.tone)
            return hues, None if toned is None else CueFrame(image=toned)
        hues, strength, toned = lamp_reading(photo.image, area)
        image = photo.image if toned is None else toned
        if hues is None or (strength <= 0 and toned is None):
            return hues, None
        if strength <= 0:  # the curve off, its coats of arms named as it is: the crops'
            # own balance (`CropSettings.light_balance`) undone, so the tiles are measured in
            # the balance the hues were read in (kept, it left the lamp's warmth on the coats
            # of arms only and turned the tiles 20-30 degrees past them toward green: yellow
            # rabbits read as frogs, docs/simsala-hopp.md H18)
            base = light_gains(toned, self.classifier.crop.light_balance)
            return hues, CueFrame(1.0 / base if np.all(base > 0) else None, image=toned)
        extra = strength - self.classifier.crop.light_balance
        return hues, CueFrame(light_gains(image, extra) if extra > 0 else None,
                              light_hue(image), toned)

    def _classify(self, gv: GameVision, photo: Photo, area: PlayArea, cand: Candidates,
                  hues: dict[str, float] | None = None, profile=None, also=None,
                  cue=None):
        """The classifier's output for `cand`, its class probabilities (N, C) re-decided
        by the coats of arms (`hues`, `vision.shields.shield_hues`' for the photo, or None)
        and the tiles' colour and the castle (`_tile_cues`), or by a teach profile, and the
        crops classified. also: (embedding, crops) of the photo's other candidates: for the
        teach profile's white balance (`teach_probs`) and, untaught, the photo's light
        (`vision.tile_cues.photo_light`). cue: `_shields`' `CueFrame` (its gains applied to
        the crops, and `also`'s, before their colour is compared with `hues`), or None."""
        taught = _taught(profile)
        crop = self.classifier.crop
        # (Simsala Hopp: a lamp's curve off, `cue`: untaught, or as the teach photos' were)
        image = photo.image if cue is None or cue.image is None else cue.image
        if taught:  # teach mode: its own colour calibration, no light balance (but see
            #         `TeachSettings.light_balance`)
            from vision.teach import taught_crop

            crop = taught_crop(crop, profile.piece_part.settings)
            crops = extract_crops(image, area.H_plane_to_img, cand.centers, cand.sides,
                                  cand.angles, crop)
        else:  # (marbles: the cloth's own light too)
            crops = untaught_crops(gv.kind, image, area, cand.centers, cand.sides,
                                   cand.angles, crop)
        pred = self.classifier.predict(crops)
        probs = pred.probs
        if gv.coats_of_arms and not taught and len(crops):
            gains = None if cue is None else cue.gains
            seen = crops if gains is None else apply_gains(crops, gains)
            others = seen if also is None else (
                also[1] if gains is None else apply_gains(also[1], gains))
            probs = self._coats_of_arms(seen, probs, hues)
            probs = self._tile_cues(gv, area, cand, seen, probs, hues, others,
                                    None if cue is None else cue.cast_hue)
        if taught:  # teach mode
            from vision.teach import shield_calibrated, teach_probs  # (model + prototypes +
            # colours; the coloured rabbits' colours turned by this photo's coats of arms)

            if gv.coats_of_arms:
                profile = shield_calibrated(profile, hues)
            probs = teach_probs(profile, self.classifier, gv.labels, probs, pred.embedding,
                                crops, also=also)
        return pred, probs, crops

    def _cue_warnings(self, gv: GameVision, model_probs: np.ndarray, probs: np.ndarray,
                      det: Detections) -> list[str]:
        """Simsala Hopp: a warning for each counted tile whose kind its colour decided
        against the classifier's own reading (`model_probs`, its (N, C) output for
        `det`'s pieces; `probs`, the same re-decided by colour; `vision.tile_cues.
        disagreements`). A piece the game's counts moved to another label (its own
        warning says so) is not the colour's doing."""
        from vision.tile_cues import disagreements

        cols = [self.classifier.index(lab) for lab in gv.labels]
        names = np.array(gv.labels, dtype=object)
        model = names[model_probs[:, cols].argmax(axis=1)]
        cue = names[probs[:, cols].argmax(axis=1)]
        same = cue == det.labels
        return disagreements(model[same], det.labels[same], det.centers[same])

    def _missing_tiles(self, gv: GameVision, photo: Photo, area: PlayArea, cand: Candidates,
                       keep: np.ndarray, labels: np.ndarray, pred, probs: np.ndarray,
                       hues: dict[str, float] | None, profile, crops: np.ndarray,
                       cue=None):
        """Fewer tiles kept than the game has: the candidates of `edge_tiles` and
        `outline_squares` away from the kept ones join `cand`, each read as background
        unless the classifier is very sure of it and it looks unlike the table beside it
        (`DecideSettings.missing_*`; table checks of a tile's size look like tiles), and no
        more of them than tiles are missing, the surest first, none of a label the kept ones
        (read as `labels`) already have all of (`crops`: those of `cand`, for
        a teach profile's white balance; `cue`: `_shields`'). Returns the joined
        (candidates, classifier output, probabilities)."""
        edge = edge_tiles(photo.image, area, TILE_SETTINGS)
        squares = outline_squares(photo.image, area, TILE_SETTINGS)
        more = edge + squares
        outlined = np.arange(len(more)) >= len(edge)
        if len(more) and keep.any():
            away = _distance(more, cand.centers[keep]) > 0.5 * more.sides
            more, outlined = more.take(away), outlined[away]
        if not len(more):
            return cand, pred, probs
        first = (pred.embedding, crops)
        more_pred, more_probs, _ = self._classify(gv, photo, area, more, hues, profile, first,
                                                  cue)
        cols = [self.classifier.index(lab) for lab in gv.labels]
        again = outlined & (more_probs[:, cols].max(axis=1) >= self.decide.missing_again_prob)
        if again.any():  # an outline square's side is the game's, not measured: the likely
            # ones read again at other sides
            sub = more.take(again)
            other = sum((Candidates(sub.centers, sub.sides * k, sub.angles,
                                    tuple(square(c, d * k, a) for c, d, a in
                                          zip(sub.centers, sub.sides, sub.angles, strict=True)))
                         for k in self.decide.missing_square_sides), Candidates.empty())
            other_pred, other_probs, _ = self._classify(gv, photo, area, other, hues, profile,
                                                        first, cue)
            more = more + other
            more_pred = _joined(more_pred, other_pred)
            more_probs = np.concatenate([more_probs, other_probs])
        best = more_probs[:, cols].max(axis=1)
        likely = best >= self.decide.missing_min_prob
        sure = np.flatnonzero(likely)
        if len(sure) and self.decide.missing_unlike_table > 0:
            unlike = table_likeness(photo.image, area, more.take(likely))
            sure = sure[unlike >= self.decide.missing_unlike_table]
        label = more_probs[:, cols].argmax(axis=1)
        room = np.array(gv.limits or [gv.total] * len(cols)) - np.array(
            [np.count_nonzero(labels[keep] == lab) for lab in gv.labels])
        chosen: list[int] = []
        for i in sure[np.argsort(-best[sure])]:  # (one per place: a square's three sides;
            # none of a label the game has no more of)
            if len(chosen) == gv.total - int(keep.sum()):
                break
            if room[label[i]] > 0 and (not chosen or np.hypot(
                    *(more.centers[chosen] - more.centers[i]).T).min() > 0.5 * more.sides[i]):
                chosen.append(int(i))
                room[label[i]] -= 1
        unsure = np.ones(len(more), bool)
        unsure[chosen] = False
        more_probs = self._as_background(more_probs, unsure)
        return cand + more, _joined(pred, more_pred), np.concatenate([probs, more_probs])

    def _coats_of_arms(self, crops: np.ndarray, probs: np.ndarray,
                       hues: dict[str, float] | None) -> np.ndarray:
        """Simsala Hopp: the coloured rabbits re-decided by the castle's coats of arms under
        this photo's light (`hues`, `vision.shields.shield_hues`'); the probabilities
        unchanged without them (None)."""
        from vision.shields import COLOURS, recolour
        from vision.teach import piece_colour

        if hues is None:
            return probs
        columns = {c: self.classifier.index(f"rabbit-{c}") for c in COLOURS}
        return recolour(probs, columns, piece_colour(crops), hues)

    def _tile_cues(self, gv: GameVision, area: PlayArea, cand: Candidates, crops: np.ndarray,
                   probs: np.ndarray, hues: dict[str, float] | None,
                   first: np.ndarray, cast_hue: float | None = None) -> np.ndarray:
        """Simsala Hopp on any copy's artwork (`vision.tile_cues`): the labels re-decided by
        each tile's colour (green frog, white rabbit, dark cat for this photo's light, a
        coloured rabbit by its coats of arms), and a candidate on the castle (a tower, a coat
        of arms) read as background. `first`: the crops of the photo's first candidates, its
        light (`photo_light`). `cast_hue`: the light's hue where a cast had to be balanced
        away (`vision.tile_cues.without_cast`), or None. Then each reading is compared with
        the photo's own tiles': a yellow rabbit among its frogs' green is a frog
        (`photo_frogs`, also without the coats of arms), a white rabbit far from its white
        rabbits toward a colour that rabbit (`photo_whites`: blue or violet; orange or yellow
        where no lamp's falloff runs that way)."""
        from vision.tile_cues import (
            colour_likelihood,
            middle_lightness,
            on_castle,
            photo_frogs,
            photo_light,
            photo_whites,
            reweigh,
            tile_colour,
            without_cast,
        )

        lab, lightness = tile_colour(crops)
        columns = [self.classifier.index(label) for label in gv.labels]
        if hues is not None:  # (without the coats of arms the photo's light is unknown: a
            #                      harsh warm lamp turns cats orange and white rabbits yellow)
            light = photo_light(lightness if first is crops else middle_lightness(first))
            lab = without_cast(lab, lightness, light, cast_hue)  # (once: the photo cues too)
            like = colour_likelihood(lab, lightness, gv.labels, hues, light)
            probs = reweigh(probs, columns, gv.labels, like)
        castle = on_castle(cand.centers, float(area.settings.plane_px))
        if castle.any():
            probs = self._as_background(probs, castle)
        # (after the castle: a tower is no frog to read the green off; also without the coats
        # of arms: the frogs' own green needs no light, only which side of it yellow lies)
        limit = (gv.limits[gv.labels.index("rabbit-yellow")]
                 if gv.limits and "rabbit-yellow" in gv.labels else 2)
        probs = photo_frogs(probs, columns, gv.labels, lab, hues, limit)
        probs = photo_whites(probs, columns, gv.labels, lab, hues, cast_hue, bool(area.glare),
                             lightness)
        return probs

    def _as_background(self, probs: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """A copy of the (N, C) `probs` with `rows` read as background, surely."""
        probs = probs.copy()
        probs[rows] = 0.0
        probs[rows, self.classifier.index(BACKGROUND)] = 1.0
        return probs

    def recognise(self, source: str | Path | bytes, game: str, profile=None,
                  meanwhile=None) -> Recognition:
        """`profile`: a `vision.teach.Profile` re-deciding the labels (teach mode): its tile /
        marble part the crop classifier's, its card part the card reader's. `meanwhile`:
        called with (photo, area) on this thread once the pieces are read, while the card
        thread may still be reading (Hop la bille: the photo's quality, `score_photo`); its
        answer is the Recognition's `meanwhile`."""
        gv = game_vision(game)
        timer = Timer()
        t = time.perf_counter()
        photo = load_photo(source, self.image_settings)
        t = timer.lap("decode", t)
        if gv.kind == "cards":
            return self._recognise_cards(gv, photo, timer, t, profile)
        cards = None
        if gv.card_labels:  # Hop la bille's cards beside the cloth (`vision.cards`): read on
            # a second thread while this one finds the cloth (the detector's key points, which
            # need no area) and then the marbles (each stage is single-threaded)
            area_at: Future = Future()
            cards = self._card_pool().submit(self._timed_cards, game, photo, area_at, profile)
        try:
            area = find_area(photo.image, AREA_SETTINGS[game], gv.area_name, game=game)
        except BaseException as exc:
            if cards is not None:  # (the card thread stops at the area; this error reported)
                area_at.set_exception(exc)
                wait([cards])
            raise
        if cards is not None:
            area_at.set_result(area)
        t = timer.lap("area", t)
        try:
            det, cand, pred, idx, facts, warnings = self._pieces(gv, photo, area, timer, t,
                                                                 profile)
            extra = None if meanwhile is None else meanwhile(photo, area)
        except BaseException:
            if cards is not None:  # let it finish; this photo's error is the one to report
                wait([cards])
            raise
        res, card_ms = cards.result() if cards is not None else (None, 0.0)
        if res is not None:
            det = _join(det, res.detections)
            facts["cards"] = res.facts["cards"]
            warnings += res.warnings
            timer.ms["cards"] = round(card_ms, 3)  # (overlaps segment, classify and facts)
        emb = pred.embedding[idx] if len(pred.embedding) else pred.embedding
        return Recognition(game, photo, area, cand, det, emb, facts, warnings, timer.ms, extra)

    def _decide(self, gv: GameVision, probs: np.ndarray):
        """Restrict the class scores to the game's labels, within the game's counts of each:
        (keep mask, labels, confidence, [(candidate, from label, to label)] changed by the
        counts)."""
        n = len(probs)
        if n == 0:
            return np.zeros(0, bool), np.zeros(0, object), np.zeros(0, np.float32), []
        cols = [self.classifier.index(lab) for lab in gv.labels]
        bg = probs[:, self.classifier.index(BACKGROUND)]
        p = probs[:, cols]
        piece = p.sum(axis=1)
        best = p.argmax(axis=1)
        keep = (bg < self.decide.min_piece_prob) & (piece > bg)
        moves = []
        if gv.limits and keep.any():
            kept = np.flatnonzero(keep)
            best[kept], moves = within_counts(p[kept], gv.limits, self.decide.min_alt_ratio)
            moves = [(int(kept[i]), gv.labels[a], gv.labels[b]) for i, a, b in moves]
        conf = p[np.arange(n), best] / np.maximum(p.sum(axis=1), 1e-9)
        labels = np.array(gv.labels, dtype=object)[best]
        return keep, labels, np.clip(conf * (1 - bg), 0, 1).astype(np.float32), moves

    def score(self, source, game: str, options: dict[str, str], teach=None,
              annotate: str | None = None, meanwhile=None) -> dict:
        """The contract's JSON object for one photo (without `score_photo`'s quality
        warnings). `meanwhile`: `recognise`'s; its answer under the key "meanwhile" (only
        where given)."""
        from scoring import score_facts

        started = time.perf_counter()
        profile = None
        if teach is not None:
            from vision.teach import resolve_profile

            profile = resolve_profile(teach, game, self)
        rec = self.recognise(source, game, profile, meanwhile)
        t = time.perf_counter()
        warnings = one_doubt_a_piece(list(rec.warnings))
        try:
            score, more = score_facts(game, rec.facts, options)
            warnings += more
        except FactsError as exc:  # impossible counts from a misread photo: say so, score nothing
            warnings.append(f"cannot score these facts: {exc.message}")
            score = _empty_score(game)
        timings = dict(rec.timings_ms)
        timings["scoring"] = round((time.perf_counter() - t) * 1000, 3)
        if annotate:
            write_annotation(rec, annotate)
        timings["total"] = round((time.perf_counter() - started) * 1000, 3)
        photo = rec.photo
        out = {
            "game": game,
            "image": {"width": photo.width, "height": photo.height},
            "area": None if rec.area is None else area_json(rec.area, photo.scale),
            "pieces": rec.detections.to_json(),
            "facts": rec.facts,
            "score": score,
            "warnings": warnings,
            "timings_ms": timings,
        }
        if meanwhile is not None:
            out["meanwhile"] = rec.meanwhile
        return out


def area_json(area: PlayArea, scale: float) -> list[list[float]]:
    """The area's corners in photo pixels as the contract's JSON gives them (0.1 px)."""
    return [[round(float(x) * scale, 1), round(float(y) * scale, 1)] for x, y in area.corners]


def write_annotation(rec: Recognition, path: str | Path) -> None:
    """Draw the area, each piece's outline, label and zone on the working image; write it."""
    img = rec.photo.image.copy()
    s = 1.0 / rec.photo.scale
    if rec.area is not None:
        cv2.polylines(img, [np.round(rec.area.corners).astype(np.int32)], True, (255, 255, 0),
                      2)
    det = rec.detections
    for i in range(len(det)):
        c = det.centers[i] * s
        if det.polygons[i] is not None:
            cv2.polylines(img, [np.round(det.polygons[i] * s).astype(np.int32)], True,
                          (0, 255, 255), 2)
        else:
            cv2.circle(img, (int(c[0]), int(c[1])), 9, (0, 255, 255), 2)
        text = f"{det.labels[i]} {det.zones[i]}"
        org = (int(c[0]) - 30, int(c[1]) - 10)
        cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.4, (255, 255, 255), 1,
                    cv2.LINE_AA)
    if not cv2.imwrite(str(path), img):
        raise BadInput(f"cannot write the annotated photo to {path}")


_PIPELINES: dict[str, Pipeline] = {}


def get_pipeline(model_path: str | Path = MODEL_PATH) -> Pipeline:
    """A cached `Pipeline` per model file (the model is loaded once per process)."""
    key = str(model_path)
    if key not in _PIPELINES:
        _PIPELINES[key] = Pipeline(model_path)
    return _PIPELINES[key]


def quality_outline(result: dict, scale: float):
    """The play area `vision.quality.photo_quality` looks at, in working pixels, from a
    score's JSON: its area, else (card games) the hull of its pieces' outlines, else None
    (the whole photo)."""
    if result.get("area"):
        return np.asarray(result["area"], np.float64) / scale
    pts = [p["polygon"] or [p["center"]] for p in result.get("pieces", ())]
    if not pts:
        return None
    hull = cv2.convexHull(np.concatenate([np.asarray(p, np.float32) for p in pts]))
    return hull.reshape(-1, 2).astype(np.float64) / scale


def card_width(result: dict, scale: float) -> float | None:
    """The median width (each polygon's shortest side) of a score's pieces, in working
    pixels; None without polygons."""
    ws = [min(np.linalg.norm(np.roll(q, -1, 0) - q, axis=1))
          for q in (np.asarray(p["polygon"], np.float64) for p in result.get("pieces", ())
                    if p.get("polygon"))]
    return float(np.median(ws)) / scale if ws else None


def score_photo(source: str | Path | bytes, game: str, options: dict[str, str], teach=None,
                annotate: str | None = None) -> dict:
    """The contract's JSON object for one photo (see ../shared/contract.md), with the
    photo's quality warnings (`vision.quality`: glare, dark, blur, too far, cut off)."""
    from scoring import check_settings
    from vision.quality import QUALITY_SETTINGS, photo_quality

    if game != "mauerhuepfer":
        game_vision(game)  # fail before loading the model or decoding
    started = time.perf_counter()
    photo = load_photo(source, ImageSettings())  # decoded once, here
    decoded = time.perf_counter()
    # A bad option is exit 2 / HTTP 400 whatever the photo shows (the scorer found it only
    # after the area: "no cloth found", exit 3, on a photo it could not read). After the
    # decoding, so a missing or unreadable file is still named first.
    check_settings(game, options)
    try:
        if game == "mauerhuepfer":  # board, pawns and dice: vision/mauer.py (no classifier)
            from vision.mauer import score_mauer_photo

            if teach is not None:  # teach mode: this copy's pawn colours (vision.teach_pawns)
                from vision.teach import resolve_profile
                from vision.teach_pawns import using

                with using(resolve_profile(teach, game, None)):
                    result = score_mauer_photo(photo, options, annotate=annotate)
            else:
                result = score_mauer_photo(photo, options, annotate=annotate)
        else:
            result = get_pipeline().score(photo, game, options, teach=teach,
                                          annotate=annotate,
                                          meanwhile=area_quality(game, photo))
    except NotFound as exc:  # nothing found: what is wrong with the whole photo may say why
        hints = photo_quality(QUALITY_SETTINGS[game], photo.image, None, photo.scale)
        if not hints:
            raise
        raise type(exc)(f"{exc.message}; {'; '.join(hints)}") from None
    t = time.perf_counter()
    qs = QUALITY_SETTINGS[game]  # (the cards' width counts only where `far_card` is set)
    early = result.pop("meanwhile", None)
    if early is not None:  # (read while the card thread was still reading, `area_quality`)
        result["warnings"] += early[0]
    else:
        result["warnings"] += photo_quality(qs, photo.image,
                                            quality_outline(result, photo.scale), photo.scale,
                                            card_width(result, photo.scale)
                                            if qs.far_card > 0 else None)
    timings = result["timings_ms"]
    timings["decode"] = round((decoded - started) * 1000, 3)
    if early is not None:  # (within the score's own time: not added again)
        timings["quality"] = round(early[1], 3)
        timings["total"] = round(timings["total"] + timings["decode"], 3)
    else:
        timings["quality"] = round((time.perf_counter() - t) * 1000, 3)
        timings["total"] = round(timings["total"] + timings["decode"] + timings["quality"], 3)
    return result


def area_quality(game: str, photo: Photo):
    """Hop la bille: a `Pipeline.recognise` `meanwhile` that reads `photo`'s quality
    warnings (`vision.quality.photo_quality` on the area's outline, as `score_photo` reads
    them from the score's JSON: `area_json`, `quality_outline`) on the main thread while the
    card thread is still reading (issue 6: off the photo's longest path), as (warnings, ms);
    None for the other games (their quality is read after the score, as before; a game
    whose quality counts its cards' width, `far_card`, needs them read)."""
    from vision.quality import QUALITY_SETTINGS, photo_quality

    qs = QUALITY_SETTINGS[game]
    if not game_vision(game).card_labels or qs.far_card > 0:
        return None

    def meanwhile(seen: Photo, area: PlayArea):
        t = time.perf_counter()
        outline = np.asarray(area_json(area, photo.scale), np.float64) / photo.scale
        warnings = photo_quality(qs, photo.image, outline, photo.scale, None)
        return warnings, (time.perf_counter() - t) * 1000

    return meanwhile
