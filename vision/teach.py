"""Teach mode: adapt the crop classifier to one copy of a game from a few example photos,
without retraining.

Covered: Simsala Hopp tiles and Hop la bille marbles (`models/pieces.onnx`), and the pieces
the card reader reads (`models/cards.onnx`, `vision.teach_cards`): Magic Rabbit tiles (not the
doves), Troetofanten cards (per kind, see `TeachGame.unit`), Hop la bille cards.

A *teach folder* holds example photos, `DIR/<label>/*.jpg|png`. Each photo shows the play area
(arena, cloth; Magic Rabbit and Troetofanten: just a table) with either

- exactly one piece of that label on or around it, or
- several pieces, named by taps in a sidecar `<photo stem>.taps.json`:
  `[{"x": 412.0, "y": 230.5, "label": "rabbit-blue"}, ...]` (photo pixels, like the contract's
  `center`; `label` defaults to the folder's label).

The photo goes through the pipeline's own stages (`load_photo`, `find_area`, `find_tiles` /
`find_marbles`, `extract_crops`, the ONNX classifier; cards: the card reader's key points and
crops); the candidate nearest each tap (or the one piece) gives one example: the model's 64-d
L2-normalised embedding and the piece's colour (`piece_colour`: mean CIE Lab of its most
chromatic pixels, measured under *this* light).

A `Profile` keeps, per taught label, the prototype (mean embedding, re-normalised) and the
mean colour. Classification with a profile (`Profile.adjust`) is a product of experts over the
game's labels (N crops, L labels):

    logit_l = a * log p_model(l)  +  cos(e, proto_l) / T  -  c * |lab - colour_l|^2 / (2 s^2)

softmax over l gives the new label distribution; `a`, `T`, `c`, `s` are `TeachSettings`.
Labels the profile does not hold get the mean of the taught labels' prototype and colour terms
(neutral, so teaching some labels never forbids the others). Whether a candidate is a piece
at all (P(background)) stays the model's decision, except that a candidate whose embedding is
very close to a taught prototype (cosine >= `rescue_cos`) is kept as a piece.

Profiles are stored as `profile.npz` (arrays) + `profile.json` (game, labels, counts, model
classes and fingerprint, source photos; Hop la bille's card part under `cards`) in a folder,
by default `<data>/teach/<name>/` (`tablescore teach`).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from pathlib import Path

import cv2
import numpy as np

from tablescore.errors import BadInput, TablescoreError
from vision.area import AREA_SETTINGS, find_area
from vision.classify.settings import BACKGROUND
from vision.image_io import load_photo
from vision.preprocess import extract_crops
from vision.segment import (
    MARBLE_SETTINGS,
    TILE_SETTINGS,
    find_tiles,
    marble_candidates,
)

PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png")
PROFILE_JSON = "profile.json"
PROFILE_NPZ = "profile.npz"


class TeachError(BadInput):
    """Bad teach input (unknown label folder, photo without a piece, empty folder...)."""

    code = "bad_teach_input"


@dataclass(frozen=True)
class TeachSettings:
    model_weight: float = 2.0  # a: exponent of the model's own label probabilities
    temperature: float = 0.05  # T: cosine similarities are divided by this
    colour_weight: float = 3.0  # c: weight of the colour term
    colour_sigma: float = 12.0  # s: Lab distance scale of the colour term
    colour_l_weight: float = 1.0  # lightness differences count this much (light varies)
    colour_norm: float = 0.0  # > 0: the colour term compares a and b divided by the
    # lightness (times this), not a and b: a piece in shade has a lower L and chroma but the
    # same ratio, so a dark yellow rabbit stays nearer yellow than orange
    colour_l_floor: float = 15.0  # ... the lightness divided by is at least this
    rescue_cos: float = 0.9  # a candidate this close to a prototype is a piece, whatever P(bg)
    rescue_margin: float = 0.0  # ... if also this much closer to it than to any other
    rescue_bg: float = 1.0  # ... and the model's P(background) is below this
    min_cos: float = 0.7  # a candidate whose best label is taught but whose cosine to every
    # prototype is below this is background (edition-2 artwork the model takes for pieces)
    neg_k: int = 0  # > 0: background examples (the teach photos' other candidates, each
    # below min_cos to every prototype) decide both gates; a candidate's background cosine
    # is its k-th highest cosine to them (one real piece among them does not decide)
    neg_margin: float = 0.0  # the min_cos gate fires only on a candidate whose background
    # cosine is at least its best prototype cosine plus this
    rescue_neg_margin: float = 0.2  # the rescue needs the best prototype cosine this much
    # above the background cosine
    gate_keep: float = 1.1  # the min_cos gate spares a candidate the model itself reads as
    # one of the game's labels with at least this probability (> 1: never; Hop la bille's
    # marbles: under a harsh light the teach photos' background examples lie near dark
    # green and blue marbles, and the gate dropped marbles the model read right)
    relabel_only: bool = False  # keep the model's confidence, change only which label is
    # on top (fewer low-confidence crops pushed over the reader's bar)
    kind_temperature: float = 0.0  # > 0: a term cos(e, kind prototype) / this as well (see
    # Profile.kind_term)
    keep_mass: bool = False  # cards: the game's labels share only the model's mass for them
    # (see teach_probs), else all but background
    recalibrate: int = 2  # passes re-measuring the colours from this photo's sure pieces
    recalibrate_q: float = 0.95  # ... a piece is sure from this combined probability
    tap_radius: float = 0.75  # a tap names the candidate within this many piece sizes
    colour_inner: float = 0.6  # colour is measured in this central share of the crop side
    colour_top: float = 0.3  # ... over this share of its most chromatic pixels
    colour_hole: float = 0.0  # ... leaving out this central share of the crop side (a
    # Magic Rabbit tile's colour is its frame, the middle is white and black)
    colour_white: float = 0.0  # > 0: white balance each crop by the mean of this share of
    # the brightest pixels of its central colour_hole square (a tile's white paper)
    colour_step: int = 1  # colour from every this-many-th pixel (speed: cards have many crops)
    colour_border: float = 0.0  # > 0: pixels within this a-b distance of the median colour of
    # the crop's 2-pixel border (the arena or table around the piece) are taken last
    shield_shift: float = 0.0  # > 0 (Simsala Hopp): each coloured rabbit's taught colour
    # is turned in hue by this share of how far the photo's coat of arms of that colour lies
    # in hue from the teach photos' (`shield_calibrated`: the castle shows each player
    # colour under this light)
    white_label: str = ""  # a piece white in every copy (Simsala Hopp: rabbit-white): each
    # photo is white balanced by the brightest pixels of its pieces of this label (those
    # nearest its prototype, at cosine >= white_cos, at least white_min of them) before the
    # colours are measured, the teach photos and the scored ones alike (`photo_white_gain`)
    white_cos: float = 0.85
    white_min: int = 2  # (one: a violet rabbit near the white prototype balanced a photo)
    white_top: float = 0.15  # ... the mean of this share of the brightest pixels of each one's
    # central colour_inner square is its white; the median over them the photo's
    white_max_gain: float = 1.25  # a photo that would need a channel's gain beyond [1 / this,
    # this] is not balanced: so strong a cast comes with a non-linear light (teach_eval's
    # harsh light), where gains taken from the white move the other colours the wrong way
    # (rendered edition-2 photos under ordinary light: at most 1.15)
    colour_by_number: bool = False  # labels with the same number share one colour, the mean
    # of their examples (Magic Rabbit: a hat's and a rabbit's frame are the number's colour)
    guessed_colour: float = 1.0  # cards: how much the colour of a teach crop cut at a
    # guessed pose counts in its label's and number's colour (a tap on a weak key point,
    # posed like its nearest posed neighbour: `teach_cards.guessed_poses`); where every
    # example of a label is guessed, their plain mean. Magic Rabbit 0 (session 19, H2,
    # docs/teach.md "Magic Rabbit taught under a harsh lamp, blue against purple"): the
    # guessed crop lets the table into the frame's ring, whose most chromatic pixels are
    # then the warm table, not a dark frame (teach_eval's harsh rabbit-7: Lab (39, 13, 4)
    # against its hat-7's (28, 25, -37); an ordinary teach set's hat-1 (53, 0, 1) against
    # its rabbit-1's red (47, 55, 22))
    tap_neighbours: int = 8  # cards: a tapped piece is posed among its this many nearest key
    # points only (0: a whole card-reader pass per teach photo; see teach_cards)
    tap_window: float = 0.4  # ... found by the detector in a window of this share of the
    # photo's long side around the taps (0: the whole photo)
    tap_off: float = 0.0  # cards (> 0): a tap on a label of `tap_off_labels` whose strong
    # piece lies over this many of its widths from the tap, with a weak key point (under
    # the reader's heat bar) nearer the tap, names that weak key point, posed like its
    # nearest other posed piece (`teach_cards.tapped_pieces`; a guessed pose). Magic Rabbit
    # 0.3 for the magician (session 19, H9, docs/teach.md "Magic Rabbit taught: the
    # magician"): on 342 teach photos (teach_eval seeds 80-88, harsh and ordinary) the strong
    # piece lay 0.00-0.15 widths from the tap, or (5) 0.24-0.44 with a weak key point
    # 0.03-0.17 off; the harsh magicians of seeds 80 and 81 (0.44, 0.40) were crops mostly
    # of table (the taught magician orange, read as a hat-7 in the scenes). 0.2 also took
    # seed 83's (0.24):
    # worse there (fresh 2510 harsh 10.39 -> 11.32 %); every label: worse with seeds 84's
    # hat-1 and 88's rabbit-6 (2510 harsh 6.47 -> 7.39 %, 7.62 -> 8.08 %)
    tap_off_labels: str = ""  # ... (the labels, comma-separated: a profile's settings are
    # JSON)
    tone_off: bool = False  # Simsala Hopp's tiles: teach photos under a lamp whose per-
    # channel tone curve hides the coats of arms (at least `tone_share` of them not named as
    # they are) give the profile that lamp's curve (`Profile.tone`: the median of the curves
    # their tables show, `vision.shields.table_tone`); then each teach photo, and each photo
    # read with the profile, whose coats of arms are not named as they are is read with its
    # own table's curve taken off about white, else the profile's (`lamp_toned`): the teach
    # crops and the scenes' crops in one light (session 19 H1; the crops kept the curve,
    # while the untaught reading takes it off, judged per photo: taught worse than untaught)
    tone_share: float = 0.5
    light_balance: bool = False  # tiles and marbles: the taught crops keep the model's
    # light balance (`CropSettings.light_balance`; see `taught_crop`)
    trust_share: float = 1.1  # cards: when the model reads at least this share of the
    # taught labels right on their examples (`known_p`), a candidate whose top label by the
    # model is one of those keeps the model's reading (> 1: never; tiles and marbles: never,
    # Simsala Hopp's taught crops are not light balanced, so the model's probabilities there
    # are not the ones `Example.model_p` measured, and Hop la bille's marbles lost by it)
    keep_unread: bool = False  # cards: a candidate whose top label by the model, or whose
    # label by the rule, is a taught label the model does not read right on its own examples
    # (`known_p`) keeps the model's reading (Troetofanten under a harsh light: examples posed
    # off the card, see teach_probs)
    known_p: float = 0.5  # a profile where the model itself gives at least `known_share`
    # of the taught labels at least this probability on their examples (the mean over them;
    # the crops as the untaught reading sees them) is *known*: the model already reads this
    # copy under this light, the profile changes nothing (`Profile.known`; > 1: never)
    known_share: float = 1.0  # (tiles and marbles: 0.75, see GAME_TEACH_SETTINGS; not a
    # settled tuning: a held-out Simsala Hopp harsh set read 5 of 7 labels right, 0.71, and
    # teaching there made it worse, docs/teach.md)
    known_median: float = 1.1  # ... or whose median `model_p` over the taught labels is at
    # least this (> 1: never; Simsala Hopp's tiles and Magic Rabbit's cards 0.75: under a
    # harsh light on edition 1 the model misreads 2-4 labels' teach crops yet reads the
    # scenes better untaught; not Hop la bille's marbles, where 3 of 5 read right with a
    # median 0.95 on harsh edition 2 were better taught, nor its cards, whose only misread
    # label, the edition-2 back, is what teaching rescues; docs/teach.md)


TEACH_SETTINGS = TeachSettings()
# Per-game tuned values (see docs/teach.md), for the tiles and marbles (`pieces.onnx`) and
# for the cards and numbered tiles (`cards.onnx`); others use TEACH_SETTINGS.
GAME_TEACH_SETTINGS = {
    # (both: the profile is known, the untaught reading kept, when the model reads at least
    # 3/4 of the taught labels' examples right, `known_share`; Simsala Hopp also when their
    # median `model_p` is at least 0.75, `known_median`; the taught crops' model
    # probabilities differ from the untaught ones, so no per-crop trust as the cards')
    # colours compared by their lightness ratios (shade) and measured off the arena's colour
    # (a white rabbit or the cat on the red arena), the model weighed less (it reads
    # edition-2 frogs as yellow rabbits, sure of it), the teach photos' background examples
    # in the gates (see `neg_k`), each photo white balanced by its white rabbits (`white_label`)
    "simsala-hopp": TeachSettings(model_weight=1.0, colour_l_weight=0.5, colour_norm=80.0,
                                  neg_k=3, colour_border=25.0, shield_shift=0.5,
                                  white_label="rabbit-white", known_share=0.75,
                                  known_median=0.75, tone_off=True),
    # the teach photos' background examples in the gates too (as Simsala Hopp's): under a
    # harsh light the taught yellow marble's prototype is near the table's highlights and
    # the other colours' marbles, and its rescue read them as yellow
    # and the crops light balanced as the untaught reading's (under a harsh light the
    # marbles' crops without it misled the model: harsh committed edition 2, marbles taught,
    # 38.3 % untaught, 39.8 % taught without, 31.6 % with)
    "hop-la-bille": TeachSettings(colour_weight=1.0, neg_k=3, light_balance=True,
                                  known_share=0.75, gate_keep=0.8),
}
CARD_TEACH_SETTINGS: dict[str, TeachSettings] = {
    # (each: where the model reads at least 3/4 of the taught labels' examples right, it
    # keeps its reading of those labels, `trust_share`: under a harsh light on edition 1)
    # the number's colour is the tile's frame: measured on the ring, white balanced by the
    # tile's white middle, one colour per number (a hat's and a rabbit's examples; a crop
    # cut at a guessed pose left out where the number has another, `guessed_colour`); no
    # recalibration (it hurt on the tuning scenes)
    "magic-rabbit": TeachSettings(temperature=0.1, kind_temperature=0.05, colour_weight=1.5,
                                  trust_share=0.75, recalibrate=0, colour_inner=0.85,
                                  colour_hole=0.5, colour_top=0.15, colour_white=0.1, min_cos=0.6,
                                  keep_mass=True, tap_neighbours=5, colour_by_number=True,
                                  known_median=0.75, guessed_colour=0.0, tap_off=0.3,
                                  tap_off_labels="magician"),
    # the kind of card only; the gates off and the model's confidence kept: the embedding
    # separates the kinds too little on edition 2 (crops off the corner under the detector's
    # pose errors), sharper kinds only let covered neighbours over the reader's bar
    "troetofanten": TeachSettings(colour_weight=1.0, min_cos=0.0, rescue_cos=1.1,
                                  trust_share=0.75, keep_mass=True, relabel_only=True,
                                  colour_step=2, keep_unread=True),
    # the cards are read right; edition-2 backs the model takes for background or another
    # game's piece are rescued when clearly nearest the taught back
    "hop-la-bille": TeachSettings(colour_weight=1.0, min_cos=0.0, rescue_cos=0.55,
                                  trust_share=0.75, rescue_margin=0.2, rescue_bg=0.7,
                                  keep_mass=True, colour_step=2),
}


def game_settings(game: str, model: str = "pieces") -> TeachSettings:
    table = CARD_TEACH_SETTINGS if model == "cards" else GAME_TEACH_SETTINGS
    return table.get(game, TEACH_SETTINGS)


@dataclass(frozen=True)
class TeachGame:
    """What teach mode can learn for one game.

    piece_labels: labels read by the crop classifier (`models/pieces.onnx`: tiles, marbles);
    card_labels: labels read by the card reader (`vision.cards`, `models/cards.onnx`);
    area_name: the play area a teach photo must show (None: pieces on a bare table, or the
    Mauerhuepfer board, which `vision.teach_pawns` finds itself)."""

    game: str
    piece_labels: tuple[str, ...]
    card_labels: tuple[str, ...]
    area_name: str | None
    pawn_labels: tuple[str, ...] = ()  # Mauerhuepfer pawns (`vision.teach_pawns`)

    @property
    def labels(self) -> tuple[str, ...]:
        """Every label a teach folder or a tap may name."""
        return self.piece_labels + self.card_labels + self.pawn_labels

    @property
    def marbles(self) -> bool:
        """Its crop-classifier pieces are marbles on a cloth (Hop la bille), not tiles."""
        return bool(self.area_name and "cloth" in self.area_name)

    def unit(self, label: str) -> str:
        """The profile entry a label teaches: the label itself, except Troetofanten
        elephants and tootophants, taught as a kind (their number comes from the corner-index
        model, `models/cards-index.onnx`, which teaching leaves alone)."""
        if self.game == "troetofanten" and label.startswith(TROETO_KINDS):
            return label.rsplit("-", 1)[0]
        return label

    def units(self, labels: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
        """{unit: its labels} in label order."""
        out: dict[str, list[str]] = {}
        for lab in labels:
            out.setdefault(self.unit(lab), []).append(lab)
        return {u: tuple(v) for u, v in out.items()}

    def missing(self, taught: set[str] | dict) -> list[str]:
        """Labels neither taught nor covered by a taught unit."""
        return [lab for lab in self.labels if lab not in taught and self.unit(lab) not in taught]


TROETO_KINDS = ("elephant-", "tootophant-")


def teach_games() -> dict[str, TeachGame]:
    from scoring.labels import CARD_LABELS_HOP, MARBLE_LABELS, SIMSALA_LABELS, TROETO_LABELS
    from vision.cards.read import GAME_LABELS
    from vision.pipeline import VISION_GAMES
    from vision.teach_pawns import pawn_labels

    return {
        "simsala-hopp": TeachGame("simsala-hopp", SIMSALA_LABELS, (),
                                  VISION_GAMES["simsala-hopp"].area_name),
        "hop-la-bille": TeachGame("hop-la-bille", MARBLE_LABELS, CARD_LABELS_HOP,
                                  VISION_GAMES["hop-la-bille"].area_name),
        # doves come from the detector's heat, not the classifier: not taught
        "magic-rabbit": TeachGame("magic-rabbit", (), GAME_LABELS["magic-rabbit"], None),
        "troetofanten": TeachGame("troetofanten", (), TROETO_LABELS, None),
        # the pawns' colours under this light (vision.teach_pawns); not the dice
        "mauerhuepfer": TeachGame("mauerhuepfer", (), (), None, pawn_labels()),
    }


def teachable(game: str) -> TeachGame:
    """The game's `TeachGame` when teach mode covers it, else `TeachError` (unknown games:
    `UnknownGame`)."""
    from scoring import GAMES
    from tablescore.errors import UnknownGame

    if game not in GAMES:
        raise UnknownGame(f"unknown game {game!r}; choose one of: {', '.join(GAMES)}")
    games = teach_games()
    if game not in games:
        raise TeachError(f"teach mode does not cover {game} yet (it covers: "
                         f"{', '.join(games)})")
    return games[game]


def model_id(classifier) -> str:
    """A short fingerprint of a classifier model (its metadata: classes, crop, training
    history), so a profile is not used with a retrained model whose embedding differs."""
    import hashlib

    meta = json.dumps(getattr(classifier, "metadata", {}), sort_keys=True)
    return hashlib.sha256(meta.encode()).hexdigest()[:16]


def piece_colour(crops_bgr: np.ndarray, settings: TeachSettings = TEACH_SETTINGS) -> np.ndarray:
    """(N, S, S, 3) uint8 BGR crops -> (N, 3) float32 CIE Lab (L 0-100, a/b about -128..127):
    the mean of the most chromatic `colour_top` share of the pixels in the central
    `colour_inner` square (the piece, not its surroundings), less its central `colour_hole`
    square; every `colour_step`-th pixel; white balanced first when `colour_white` > 0."""
    n = len(crops_bgr)
    if n == 0:
        return np.zeros((0, 3), np.float32)
    step = settings.colour_step
    crops = crops_bgr[:, ::step, ::step] if step > 1 else crops_bgr
    s = crops.shape[1]
    k = max(1, int(round(s * (1 - settings.colour_inner) / 2)))
    inner = crops[:, k:s - k, k:s - k].reshape(n, -1, 3)
    h = int(round(s * settings.colour_hole / 2))
    if 0 < h < s // 2 - k:  # only the ring outside the central square of side colour_hole
        g = np.abs(np.arange(k, s - k) - (s - 1) / 2)
        inner = inner[:, (np.maximum(g[:, None], g[None, :]) >= h).ravel()]
    if settings.colour_white > 0:
        gain = white_gain(crops, settings)
        inner = np.clip(inner * gain[:, None, :], 0, 255).astype(np.uint8)
    # OpenCV's 8-bit Lab to L 0-100, a and b less 128 (float32) and the chroma hypot(a, b),
    # by table (the same float32 values as converting and np.hypot)
    lab8 = cv2.cvtColor(np.ascontiguousarray(inner), cv2.COLOR_BGR2Lab)  # (N, P, 3) uint8
    lab = cv2.LUT(lab8, _LAB_TABLE)
    chroma = _CHROMA.take((lab8[..., 1].astype(np.uint16) << 8) | lab8[..., 2])  # (N, P)
    if settings.colour_border > 0:  # not the surroundings' colour (a white rabbit on red)
        around = _border_ab(crops)  # (N, 2)
        near = np.hypot(lab[..., 1] - around[:, :1], lab[..., 2] - around[:, 1:]) \
            < settings.colour_border
        chroma = np.where(near, chroma - 1000.0, chroma)
    return _top_mean(lab, -chroma, settings.colour_top)


def _top_mean(values: np.ndarray, key: np.ndarray, share: float) -> np.ndarray:
    """(N, P, 3) float32 values, (N, P) key -> (N, 3) float32: per row the mean of the
    values at the `share` of its pixels with the lowest key (`np.argpartition`'s pick), summed
    in pixel order (as `np.take_along_axis(...).mean(axis=1)`, laid out (m, N, 3) so that the
    sum runs over whole rows)."""
    n, p = key.shape
    m = max(1, int(round(p * share)))
    idx = np.argpartition(key, m - 1, axis=1)[:, :m]  # (N, m)
    top = values.reshape(-1, 3)[idx.T + np.arange(n) * p]  # (m, N, 3)
    return top.mean(axis=0).astype(np.float32)


_AB_VALUES = np.arange(256, dtype=np.float32) - np.float32(128.0)
# cv2.COLOR_BGR2Lab's uint8 L, a, b -> float32 L 0-100, a and b -128..127 (256, 1, 3)
_LAB_TABLE = np.stack([np.arange(256, dtype=np.float32) * np.float32(100.0 / 255.0),
                       _AB_VALUES, _AB_VALUES], axis=1).reshape(256, 1, 3)
# np.hypot(a, b) of every uint8 (a, b) pair (less 128), at a * 256 + b (float32)
_CHROMA = np.hypot(_AB_VALUES[:, None], _AB_VALUES[None, :]).ravel()


def _border_ab(crops: np.ndarray) -> np.ndarray:
    """(N, S, S, 3) uint8 BGR crops -> (N, 2) float32: the median Lab a and b (less 128) of
    each crop's 2-pixel border (the median of an even count: the mean of the middle two)."""
    n, s = len(crops), crops.shape[1]
    if s < 4:  # (all of it)
        edge = np.ascontiguousarray(crops).reshape(n, -1, 3)
    else:  # (N, R, 3): top, sides, bottom
        edge = np.concatenate([crops[:, :2].reshape(n, -1, 3),
                               crops[:, 2:s - 2, :2].reshape(n, -1, 3),
                               crops[:, 2:s - 2, s - 2:].reshape(n, -1, 3),
                               crops[:, s - 2:].reshape(n, -1, 3)], axis=1)
    edge = cv2.cvtColor(edge, cv2.COLOR_BGR2Lab)
    ab = np.sort(np.ascontiguousarray(edge[..., 1:].transpose(0, 2, 1)), axis=2,
                 kind="stable")  # (N, 2, R) uint8 (a radix sort)
    r = ab.shape[2]
    lo, hi = (r - 1) // 2, r // 2
    # (integers and their halves: exact in float32, as np.median of the float values)
    return (ab[..., lo].astype(np.float32) + ab[..., hi]) / np.float32(2) - np.float32(128)


def _bright_mean(crops_bgr: np.ndarray, lo: int, hi: int, share: float) -> np.ndarray:
    """(N, S, S, 3) uint8 BGR crops -> (N, 3) float32: the mean BGR of the brightest
    `share` of the pixels of each crop's square `[lo:hi, lo:hi]` (B + G + R the
    brightness)."""
    n = len(crops_bgr)
    if n == 0:
        return np.zeros((0, 3), np.float32)
    mid = crops_bgr[:, lo:hi, lo:hi].reshape(n, -1, 3).astype(np.float32)
    return _top_mean(mid, -mid.sum(axis=2), share)


def white_gain(crops_bgr: np.ndarray, settings: TeachSettings) -> np.ndarray:
    """(N, 3) float32 per-channel gains taking the mean of the brightest `colour_white` share
    of each crop's central `colour_hole` square (a tile's white paper) to 235."""
    s = crops_bgr.shape[1] if len(crops_bgr) else 0
    h = max(1, int(round(s * settings.colour_hole / 2)))
    white = _bright_mean(crops_bgr, s // 2 - h, s // 2 + h, settings.colour_white)
    return (235.0 / np.maximum(white, 20.0)).astype(np.float32)


def white_point(crops_bgr: np.ndarray, settings: TeachSettings) -> np.ndarray:
    """(N, S, S, 3) uint8 BGR crops -> (N, 3) float32: the mean BGR of the brightest
    `white_top` share of the pixels of each crop's central `colour_inner` square."""
    s = crops_bgr.shape[1] if len(crops_bgr) else 0
    k = max(1, int(round(s * (1 - settings.colour_inner) / 2)))
    return _bright_mean(crops_bgr, k, s - k, settings.white_top)


def photo_white_gain(embedding: np.ndarray, whites: np.ndarray, prototypes: np.ndarray,
                     labels: tuple[str, ...], settings: TeachSettings,
                     white: np.ndarray | None = None) -> np.ndarray | None:
    """(3,) float32 per-channel gains that make one photo's white neutral (its brightness
    kept), or None: the photo's white is the median `white_point` (`whites`, (N, 3)) of its
    candidates whose nearest prototype is `white_label`'s, at cosine >= `white_cos`; None
    with fewer than `white_min` of them (or no such label taught), or when a gain would lie
    beyond `white_max_gain`. A white piece shows the photo's light: a warm or greenish cast
    moves every colour as it moves the white. `white`: those candidates ((N,) bool) when
    the caller has them already (`white_candidates` of the same arguments)."""
    if white is None:
        white = white_candidates(embedding, prototypes, labels, settings)
    if white is None or white.sum() < max(1, settings.white_min):
        return None
    wp = np.median(whites[white], axis=0)
    gain = wp.mean() / np.maximum(wp, 1.0)
    if np.abs(np.log(gain)).max() > np.log(settings.white_max_gain):
        return None
    return gain.astype(np.float32)


def white_candidates(embedding: np.ndarray, prototypes: np.ndarray, labels: tuple[str, ...],
                     settings: TeachSettings) -> np.ndarray | None:
    """(N,) bool: the candidates whose nearest prototype is `white_label`'s, at cosine >=
    `white_cos` (the pieces `photo_white_gain` takes the photo's white from), or None
    (no `white_label`, not taught, or no candidate)."""
    if not settings.white_label or settings.white_label not in labels or len(embedding) == 0:
        return None
    iw = labels.index(settings.white_label)
    cos = embedding @ prototypes.T
    return (cos.argmax(axis=1) == iw) & (cos[:, iw] >= settings.white_cos)


def balanced(crops_bgr: np.ndarray, gain: np.ndarray | None) -> np.ndarray:
    """The crops times per-channel `gain` (None: unchanged), clipped to 0-255 and truncated
    to uint8. uint8 BGR crops ((..., 3)) go through a per-channel table of the same
    products (`cv2.LUT`: the same values, without a float copy of every pixel) when `gain`
    is one (3,) gain for every crop; any other gain (per crop, a scalar) or array: the
    product."""
    if gain is None:
        return crops_bgr
    if (crops_bgr.dtype != np.uint8 or crops_bgr.ndim < 3 or crops_bgr.size == 0
            or np.shape(gain) != (3,) or crops_bgr.shape[-1] != 3):
        return np.clip(crops_bgr.astype(np.float32) * gain, 0, 255).astype(np.uint8)
    table = np.clip(np.arange(256, dtype=np.float32)[:, None] * gain, 0, 255).astype(np.uint8)
    flat = np.ascontiguousarray(crops_bgr).reshape(-1, 1, 3)
    return cv2.LUT(flat, table.reshape(256, 1, 3)).reshape(crops_bgr.shape)


def colour_features(lab: np.ndarray, settings: TeachSettings) -> np.ndarray:
    """(..., 3) Lab -> the (..., 3) features the colour term compares: L times
    `colour_l_weight`, and a, b (with `colour_norm`: a / L and b / L times `colour_norm`, L at
    least `colour_l_floor`: shading scales L and the chroma together)."""
    lab = np.asarray(lab, np.float32)
    if settings.colour_norm <= 0 and settings.colour_l_weight == 1.0:
        return lab.copy()  # (L times 1: the same numbers)
    light = lab[..., :1] * np.float32(settings.colour_l_weight)
    if settings.colour_norm <= 0:
        return np.concatenate([light, lab[..., 1:]], axis=-1)
    ratio = lab[..., 1:] / np.maximum(lab[..., :1], np.float32(settings.colour_l_floor))
    return np.concatenate([light, ratio * np.float32(settings.colour_norm)], axis=-1)


def label_kind(label: str) -> str:
    """`hat-3` -> `hat`, `magician` -> `magician`."""
    head, _, tail = label.rpartition("-")
    return head if head and tail.isdigit() else label


@dataclass(frozen=True)
class Profile:
    """What teaching learnt about one copy of a game.

    labels: (L,) taught labels (for Troetofanten the kinds elephant/tootophant and the other
    cards, see `TeachGame.unit`); prototypes: (L, D) float32 unit vectors; colours: (L, 3)
    float32 Lab; counts: (L,) examples per label; classes: the model's class list and
    model_id its fingerprint (a profile only fits the model whose embedding it was built
    from); model: "pieces" (`models/pieces.onnx`) or "cards" (`models/cards.onnx`);
    cards: Hop la bille's card part (a "cards" profile) beside its marbles."""

    game: str
    labels: tuple[str, ...]
    prototypes: np.ndarray
    colours: np.ndarray
    counts: np.ndarray
    classes: tuple[str, ...]
    sources: tuple[str, ...] = ()
    settings: TeachSettings = field(default=TEACH_SETTINGS)
    model: str = "pieces"
    model_id: str = ""
    cards: Profile | None = None
    negatives: np.ndarray | None = None  # (M, D) background examples (see `neg_k`)
    shields: np.ndarray | None = None  # Simsala Hopp: (4,) hue (degrees) of the coats of
    # arms in `vision.shields.COLOURS` order, over the teach photos (see `shield_calibrated`)
    look: np.ndarray | None = None  # Troetofanten: the taught card back's colour histogram
    # (`vision.teach_cards.back_look`), searched for in each photo for backs the detector
    # misses
    look_area: float | None = None  # Troetofanten: the share of the taught back's card its
    # look covers in its teach photo (`vision.teach_cards.look_area`; None: not measured)
    model_p: np.ndarray | None = None  # (L,) the model's own mean probability of each label
    # on its examples, as the untaught reading sees them (None: not measured; see `known_p`)
    tone: np.ndarray | None = None  # Simsala Hopp: (3,) float32 BGR exponents of the teach
    # photos' lamp's tone curve (`TeachSettings.tone_off`), or None: photos read as they are

    def __post_init__(self) -> None:
        # the arrays read only: what `_memo` and the `cached_property`s keep was worked out
        # from them, so a change in place would leave those stale (`replace` makes a new
        # profile with fresh ones). The caller's own arrays are copied, not frozen in place
        # (they stay theirs to change); a read-only one owning its data (another profile's,
        # through `replace`) is shared.
        for name in ("prototypes", "colours", "counts", "negatives", "shields", "look",
                     "model_p", "tone"):
            value = getattr(self, name)
            if isinstance(value, np.ndarray) and (value.flags.writeable
                                                  or not value.flags.owndata):
                value = value.copy()
                value.setflags(write=False)
                object.__setattr__(self, name, value)

    @cached_property
    def read_share(self) -> float:
        """The share of the taught labels whose examples the model reads right (`known_p`;
        0 when not measured). (Cached, as `known` and the other `cached_property`s: a
        profile is frozen and its arrays are never changed in place; `replace` makes a new
        one.)"""
        if self.model_p is None or len(self.model_p) == 0:
            return 0.0
        return float(np.mean(np.asarray(self.model_p) >= self.settings.known_p))

    @cached_property
    def known(self) -> bool:
        """The model reads (at least `known_share` of) the taught labels' examples right
        already (`known_p`), or gives them a median probability of at least `known_median`:
        the profile leaves the reading to the model (the pipeline's untaught path)."""
        if self.model_p is None or len(self.model_p) == 0:
            return False
        return bool(self.read_share >= self.settings.known_share
                    or np.median(self.model_p) >= self.settings.known_median)

    @cached_property
    def _memo(self) -> dict:
        """Per-profile values `adjust`, `kind_term` and `teach_probs` work out once (label
        columns, the taught colours' features, kind prototypes), by key; and the last
        photo's `shield_calibrated` profile ("shield_calibrated": (its hues, the profile))."""
        return {}

    def _once(self, key, make):
        memo = self._memo
        if key not in memo:
            memo[key] = make()
        return memo[key]

    def _meta(self) -> dict:
        return {"game": self.game, "model": self.model, "model_id": self.model_id,
                "labels": list(self.labels), "classes": list(self.classes),
                "counts": {lab: int(c) for lab, c in zip(self.labels, self.counts,
                                                         strict=True)},
                "sources": list(self.sources), "settings": asdict(self.settings)}

    def save(self, folder: str | Path) -> Path:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        arrays = {"prototypes": self.prototypes, "colours": self.colours, "counts": self.counts}
        if self.negatives is not None:
            arrays["negatives"] = self.negatives
        if self.look is not None:
            arrays["look"] = self.look
        if self.look_area is not None:
            arrays["look_area"] = np.float32(self.look_area)
        if self.shields is not None:
            arrays["shields"] = self.shields
        if self.model_p is not None:
            arrays["model_p"] = self.model_p
        if self.tone is not None:
            arrays["tone"] = self.tone
        meta = self._meta()
        if self.cards is not None:
            arrays |= {"cards_prototypes": self.cards.prototypes,
                       "cards_colours": self.cards.colours, "cards_counts": self.cards.counts}
            if self.cards.look is not None:
                arrays["cards_look"] = self.cards.look
            if self.cards.model_p is not None:
                arrays["cards_model_p"] = self.cards.model_p
            meta["cards"] = self.cards._meta()
        np.savez(folder / PROFILE_NPZ, **arrays)
        (folder / PROFILE_JSON).write_text(json.dumps(meta, indent=2) + "\n")
        return folder

    @classmethod
    def _from(cls, meta: dict, arr, prefix: str = "", cards: Profile | None = None) -> Profile:
        known = TeachSettings.__dataclass_fields__
        settings = TeachSettings(**{k: v for k, v in meta.get("settings", {}).items()
                                    if k in known})
        return cls(game=meta["game"], labels=tuple(meta["labels"]),
                   prototypes=arr[prefix + "prototypes"].astype(np.float32),
                   colours=arr[prefix + "colours"].astype(np.float32),
                   counts=arr[prefix + "counts"].astype(np.int64),
                   classes=tuple(meta["classes"]), sources=tuple(meta.get("sources", ())),
                   settings=settings, model=meta.get("model", "pieces"),
                   model_id=meta.get("model_id", ""), cards=cards,
                   negatives=(arr[prefix + "negatives"].astype(np.float32)
                              if prefix + "negatives" in arr else None),
                   look=(arr[prefix + "look"].astype(np.float32)
                         if prefix + "look" in arr else None),
                   look_area=(float(arr[prefix + "look_area"])
                              if prefix + "look_area" in arr else None),
                   shields=(arr[prefix + "shields"].astype(np.float32)
                            if prefix + "shields" in arr else None),
                   model_p=(arr[prefix + "model_p"].astype(np.float32)
                            if prefix + "model_p" in arr else None),
                   tone=(arr[prefix + "tone"].astype(np.float32)
                         if prefix + "tone" in arr else None))

    @classmethod
    def load(cls, folder: str | Path) -> Profile:
        folder = Path(folder)
        try:
            meta = json.loads((folder / PROFILE_JSON).read_text())
            arr = np.load(folder / PROFILE_NPZ)
            cards = cls._from(meta["cards"], arr, "cards_") if meta.get("cards") else None
            return cls._from(meta, arr, cards=cards)
        except (OSError, KeyError, ValueError, TypeError) as exc:
            raise TeachError(f"cannot read the teach profile in {folder}: {exc}") from None

    def check(self, game: str, classes: tuple[str, ...], model: str | None = None) -> None:
        """`model`: the fingerprint (`model_id`) of the model in use, checked when both
        sides have one."""
        if self.game != game:
            raise TeachError(f"the teach profile is for {self.game}, not {game}")
        if tuple(self.classes) != tuple(classes) or (model and self.model_id
                                                     and model != self.model_id):
            file = "mauer-pawns.npz" if self.model == "mauer-pawns" else f"{self.model}.onnx"
            raise TeachError(f"the teach profile was made with another classifier model "
                             f"(models/{file}); teach again with `tablescore teach`")

    @property
    def piece_part(self) -> Profile | None:
        """The part for `models/pieces.onnx` (tiles, marbles), None when nothing of it."""
        return self if self.model == "pieces" and self.labels else None

    @property
    def card_part(self) -> Profile | None:
        """The part for `models/cards.onnx` (cards, numbered tiles), None when none."""
        return self if self.model == "cards" else self.cards

    def kind_term(self, labels: tuple[str, ...], embedding: np.ndarray) -> np.ndarray | None:
        """(N, L) cos(e, kind prototype) / `kind_temperature`, or None when off. A label's
        kind is its name without the number (`hat-3` -> `hat`); a kind's prototype is the
        mean of its taught labels' prototypes (Magic Rabbit: 9 hats say more about what a hat
        looks like than the one hat of each number)."""
        t = self.settings.kind_temperature
        if t <= 0 or not self.labels:
            return None
        names, kp = self._once("kinds", self._kind_prototypes)
        kcos = embedding @ kp.T / t  # (N, K)
        # each label's kind column; -1 (a kind the profile lacks): the mean over the kinds
        cols = self._once(("kind_cols", labels), lambda: np.array(
            [names.index(label_kind(lab)) if label_kind(lab) in names else -1
             for lab in labels], np.intp))
        return _columns(kcos, cols)

    def _kind_prototypes(self) -> tuple[list[str], np.ndarray]:
        """The taught kinds (sorted) and their (K, D) unit prototypes (`kind_term`)."""
        kinds = [label_kind(lab) for lab in self.labels]
        names = sorted(set(kinds))
        kp = np.stack([self.prototypes[[k == nm for k in kinds]].mean(axis=0) for nm in names])
        kp /= np.maximum(np.linalg.norm(kp, axis=1, keepdims=True), 1e-9)
        return names, kp

    def label_columns(self, labels: tuple[str, ...]) -> _LabelColumns:
        """Where each of `labels` is in the profile (`_LabelColumns`)."""
        return self._once(("cols", labels), lambda: _LabelColumns.of(self.labels, labels))

    def _combine(self, model_term, cos_t, fx, fr, cols: _LabelColumns,
                 kind=None) -> np.ndarray:
        """One pass of the rule: (N, L) q from the model's term (a log p), the prototype
        term (cos / T, (N, L_taught)), the crops' and reference colours' features (`fx`
        (N, 3), `fr` (L_taught, 3)), `cols` (`label_columns`) and the kind term."""
        s = self.settings
        d2 = ((fx[:, None, :] - fr[None]) ** 2).sum(axis=2) / (2 * s.colour_sigma ** 2)
        term_t = cos_t - s.colour_weight * d2
        logit = model_term + cols.pick(term_t)  # (untaught labels: the mean term)
        if kind is not None:
            logit = logit + kind
        logit -= logit.max(axis=1, keepdims=True)
        q = np.exp(logit)
        return q / q.sum(axis=1, keepdims=True)

    def adjust(self, labels: tuple[str, ...], p_labels: np.ndarray, embedding: np.ndarray,
               colours: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Combine the model with the prototypes (rule in the module docstring).

        labels: the game's L labels; p_labels: (N, L) model probabilities over them (need not
        sum to 1); embedding: (N, D); colours: (N, 3) Lab. Returns (q, best_cos): q (N, L)
        float32 rows summing to 1, cos_l (N, L) cosine to each label's prototype (NaN for
        labels the profile does not hold)."""
        s = self.settings
        n = len(p_labels)
        if n == 0:
            return np.zeros((0, len(labels)), np.float32), np.zeros((0, len(labels)))
        pl = p_labels / np.maximum(p_labels.sum(axis=1, keepdims=True), 1e-9)
        cos = embedding @ self.prototypes.T  # (N, L_taught)
        cols = self.label_columns(labels)
        kind = self.kind_term(labels, embedding)
        # what no pass changes: the model's and the prototypes' terms, the crops' colours
        model_term = s.model_weight * np.log(np.maximum(pl, 1e-6))
        cos_t = cos / s.temperature
        fx = colour_features(colours, s)
        fr = self._once("colour_features", lambda: colour_features(self.colours, s))
        near = None  # (N, L_taught') each taught label's prototype near enough to calibrate
        was = None  # the sure pieces the colours came from
        for step in range(1 + s.recalibrate):
            q = self._combine(model_term, cos_t, fx, fr, cols, kind)
            if step == s.recalibrate:
                break
            # colour calibration from this photo's sure pieces (same light): blend them in
            if near is None:
                near = cos[:, cols.taught_rows] >= s.min_cos
            sure = (q[:, cols.taught] >= s.recalibrate_q) & near
            if (not sure.any()) if was is None else np.array_equal(sure, was):  # the same
                break  # colours again: the same q (none sure after the first pass: the taught)
            was = sure
            fr = colour_features(self._recalibrated(cols.taught_rows, sure, colours), s)
        return q.astype(np.float32), cols.cosines(cos)

    def _recalibrated(self, rows: np.ndarray, sure: np.ndarray, colours: np.ndarray
                      ) -> np.ndarray:
        """(L_taught, 3) the taught colours, those of `rows` each the mean of itself and
        the colours of the candidates sure of it (`sure`, (N, len(rows)) bool; `colours`
        (N, 3) float32): per label (colour + the sure ones' sum in candidate order) / (1 +
        their count), the sum in float32, the division as numpy does it for an int64 count
        (float64, stored float32)."""
        ref = self.colours.copy()
        at, k = np.nonzero(sure)  # (candidate order within each label)
        if not len(at):
            return ref
        count = np.bincount(k, minlength=sure.shape[1]).astype(np.int64, copy=False)
        total = np.zeros((sure.shape[1], 3), np.float32)
        np.add.at(total, k, colours[at])
        has = count > 0
        r = rows[has]
        ref[r] = (self.colours[r] + total[has]) / (1 + count[has])[:, None]
        return ref


@dataclass(frozen=True)
class _LabelColumns:
    """Where a game's L labels are in a profile's taught labels (`Profile.label_columns`):
    `cols` (L,) intp each one's row there, -1 where not taught; `taught` the positions in
    `labels` of the taught ones and `taught_rows` their rows; `all_taught`, and `identity`
    (`cols` is 0..L-1: the profile holds the labels in the game's order)."""

    cols: np.ndarray
    taught: np.ndarray
    taught_rows: np.ndarray
    all_taught: bool
    identity: bool

    @classmethod
    def of(cls, profile_labels: tuple[str, ...], labels: tuple[str, ...]) -> _LabelColumns:
        where = {lab: i for i, lab in enumerate(profile_labels)}
        cols = np.array([where.get(lab, -1) for lab in labels], np.intp)
        taught = np.flatnonzero(cols >= 0)
        every = bool((cols >= 0).all())
        return cls(cols=cols, taught=taught, taught_rows=cols[taught], all_taught=every,
                   identity=every and len(cols) == len(profile_labels)
                   and bool((cols == np.arange(len(cols))).all()))

    def pick(self, values: np.ndarray) -> np.ndarray:
        """(N, L_taught) values -> (N, L): each label's column, or the row mean where the
        label is not taught (neutral)."""
        if self.identity:
            return values
        return _columns(values, self.cols)

    def cosines(self, cos: np.ndarray) -> np.ndarray:
        """(N, L_taught) -> (N, L) cosines per label; NaN (float64) where not taught."""
        if self.identity:
            return cos
        if self.all_taught:
            return cos[:, self.cols]
        return np.concatenate([cos, np.full((len(cos), 1), np.nan)], axis=1)[:, self.cols]


def _columns(values: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """(N, K) values -> (N, len(cols)): column `cols[j]` of `values`, or where `cols[j]` is
    -1 the row mean of `values` (neutral)."""
    if (cols >= 0).all():
        return values[:, cols]
    return np.concatenate([values, values.mean(axis=1, keepdims=True)], axis=1)[:, cols]


# ----------------------------------------------------------------------------- building


@dataclass(frozen=True)
class Example:
    label: str
    source: str  # "file" or "file@x,y"
    embedding: np.ndarray  # (D,)
    colour: np.ndarray  # (3,) Lab
    model: str = "pieces"  # the model whose embedding this is ("pieces" or "cards")
    look: np.ndarray | None = None  # a card back's colour histogram (`teach_cards.back_look`)
    look_area: float | None = None  # the share of that back's card its look covers
    shields: np.ndarray | None = None  # (4,) the teach photo's coats of arms' hues
    white: np.ndarray | None = None  # (3,) the crop's `white_point` (with `white_label`)
    crop: np.ndarray | None = None  # the crop, to measure its colour again once balanced
    photo: str = ""  # the teach photo it came from (its candidates share one white balance)
    model_p: float | None = None  # the model's own probability of `label` (Troetofanten: of
    # its kind, summed) on this candidate as the untaught reading crops it (`known_p`)
    colour_weight: float = 1.0  # how much its colour counts in its label's (and number's)
    # colour (`TeachSettings.guessed_colour` for a crop cut at a guessed pose)


def tap_coordinate(value: object, where: str) -> float:
    """A tap's x or y: a finite number (photo pixels). NaN, infinity, text ("nan" too) and
    true/false raise `TeachError` naming ``where``: float() took them all, and a NaN tap
    chose the photo's first piece, taught under the tap's label without a word."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not np.isfinite(value):
        raise TeachError(f"{where}: expected a number of photo pixels, got {value!r}")
    return float(value)


def read_taps(photo: Path, default_label: str) -> list[tuple[float, float, str]] | None:
    """The photo's `<stem>.taps.json` as [(x, y, label)], or None when there is none."""
    from tablescore.jsonfile import read_json_file

    path = photo.with_name(photo.stem + ".taps.json")
    if not path.is_file():
        return None
    what = f"{path}: not a list of taps {{\"x\", \"y\", \"label\"}}"
    raw = read_json_file(path, "taps", TeachError)  # (NaN and Infinity are no JSON)
    if not isinstance(raw, list) or not all(isinstance(t, dict) for t in raw):
        raise TeachError(what)
    taps = []
    for k, t in enumerate(raw):
        if "x" not in t or "y" not in t:
            raise TeachError(f"{what}: tap {k} has no x or y")
        taps.append((tap_coordinate(t["x"], f"{path}: tap {k}: x"),
                     tap_coordinate(t["y"], f"{path}: tap {k}: y"),
                     str(t.get("label", default_label))))
    if not taps:
        raise TeachError(f"{path}: no taps")
    return taps


def loaded_photo(pipeline, game: str, photo_path: str | Path | bytes, name: str):
    """A teach photo's (`vision.image_io.Photo`, play area or None); errors name the file."""
    tg = teachable(game)
    try:
        photo = load_photo(photo_path, pipeline.image_settings)
        area = None if tg.area_name is None else \
            find_area(photo.image, AREA_SETTINGS[game], tg.area_name, game=game)
    except TablescoreError as exc:
        raise TeachError(f"{name}: {exc.message}") from None
    return photo, area


def examples_from_photo(pipeline, game: str, photo_path: str | Path | bytes, label: str,
                        taps: list[tuple[float, float, str]] | None = None,
                        name: str | None = None, settings: TeachSettings | None = None,
                        card_settings: TeachSettings | None = None, loaded=None,
                        tone: np.ndarray | None = None) -> list[Example]:
    """Examples from one teach photo (see `piece_examples` for tiles and marbles,
    `vision.teach_cards.card_examples` for cards and numbered tiles): without taps the photo
    shows one piece of `label`; taps name pieces by their labels. Errors name the file.
    `loaded`: its `loaded_photo` already; `tone`: the teach photos' lamp curve
    (`teach_tone`), or None."""
    from vision.teach_cards import card_examples

    tg = teachable(game)
    name = name or str(photo_path)
    settings = settings or game_settings(game)
    card_settings = card_settings or game_settings(game, "cards")
    photo, area = loaded or loaded_photo(pipeline, game, photo_path, name)
    if tg.pawn_labels:
        from vision.teach_pawns import pawn_examples

        return pawn_examples(photo, label, taps, name)
    if taps is None:
        if label in tg.card_labels:
            return card_examples(pipeline, game, photo, area, label, None, name,
                                 card_settings)
        return piece_examples(pipeline, game, photo, area, label, None, name, settings, tone)
    piece_taps = [t for t in taps if t[2] not in tg.card_labels]
    card_taps = [t for t in taps if t[2] in tg.card_labels]
    out: list[Example] = []
    if piece_taps:
        out += piece_examples(pipeline, game, photo, area, label, piece_taps, name, settings,
                              tone)
    if card_taps:
        out += card_examples(pipeline, game, photo, area, label, card_taps, name,
                             card_settings)
    return out


def piece_examples(pipeline, game: str, photo, area, label: str,
                   taps: list[tuple[float, float, str]] | None, name: str,
                   settings: TeachSettings = TEACH_SETTINGS,
                   tone: np.ndarray | None = None) -> list[Example]:
    """Tiles and marbles (`models/pieces.onnx`). Without taps the photo must show exactly one
    piece (a candidate the model does not call background); with taps (photo pixels) each
    names the nearest candidate within `tap_radius` piece sizes, or, where the segmenter
    found none, a crop centred on the tap (median piece size, angle 0) that the model must
    not call background. `tone`: the teach photos' lamp curve (`teach_tone`; Simsala Hopp),
    taken off as `lamp_toned` takes it off a scored photo, or None."""
    tg = teachable(game)
    marbles = tg.marbles
    if marbles:  # (read on the image scoring reads them on: a dim photo brought up)
        photo, cand = marble_candidates(photo, area, MARBLE_SETTINGS)
    else:
        cand = find_tiles(photo.image, area, TILE_SETTINGS)
    if len(cand) == 0:
        raise TeachError(f"{name}: no piece found in this photo")
    clf = pipeline.classifier
    centers_pl, sides, angles = cand.centers, cand.sides, cand.angles
    n_seg = len(cand)
    chosen: list[tuple[int, str, str]] = []
    if taps is not None:
        centers = area.to_image(cand.centers) * photo.scale  # photo pixels
        # piece size in photo pixels: local scale of the plane at each candidate
        ends = area.to_image(cand.centers + np.c_[cand.sides, np.zeros(n_seg)])
        size = np.hypot(*(ends - area.to_image(cand.centers)).T) * photo.scale
        extra = []
        for x, y, lab in taps:
            d = np.hypot(centers[:, 0] - x, centers[:, 1] - y)
            i = int(d.argmin())
            if d[i] > settings.tap_radius * size[i]:  # the segmenter missed it: crop at the tap
                i = n_seg + len(extra)
                extra.append(area.to_plane(np.array([[x, y]]) / photo.scale)[0])
            chosen.append((i, lab, f"{name}@{x:.0f},{y:.0f}"))
        if extra:
            centers_pl = np.vstack([cand.centers, np.asarray(extra)])
            sides = np.r_[cand.sides, np.full(len(extra), np.median(cand.sides))]
            angles = np.r_[cand.angles, np.zeros(len(extra))]
    image, hues = photo.image, None  # (the photo the crops are cut from; its coats of arms)
    if tone is not None and not marbles:  # the lamp's curve off, as a photo read with it
        hues, toned = lamp_toned(photo.image, area, tone)
        image = photo.image if toned is None else toned
    crops = extract_crops(image, area.H_plane_to_img, centers_pl, sides, angles,
                          taught_crop(clf.crop, settings))
    pred = clf.predict(crops)
    colours = piece_colour(crops, settings)
    bg = pred.probs[:, clf.index(BACKGROUND)]
    if taps is None:
        pieces = np.flatnonzero(bg < pipeline.decide.min_piece_prob)
        if len(pieces) == 0:
            raise TeachError(f"{name}: no piece found in this photo")
        if len(pieces) > 1:
            raise TeachError(
                f"{name}: {len(pieces)} pieces found; photograph one piece per photo or name "
                f"each with a tap in {Path(name).stem}.taps.json")
        chosen = [(int(pieces[0]), label, name)]
    for (i, _lab, _src), (x, y, _tap_lab) in zip(chosen, taps or (), strict=False):
        if i >= n_seg and bg[i] >= pipeline.decide.min_piece_prob:
            raise TeachError(f"{name}: no piece found at the tap ({x:.0f}, {y:.0f})")
    named = {i for i, _, _ in chosen}
    whites = white_point(crops, settings) if settings.white_label else [None] * len(crops)
    others = [Example(BACKGROUND, f"{name}#{i}", pred.embedding[i].astype(np.float32),
                      colours[i], white=whites[i], photo=name)
              for i in range(n_seg) if i not in named]
    shields = None if settings.shield_shift <= 0 else shield_array(hues) \
        if tone is not None and not marbles else photo_shields(photo, area)
    # the model's own reading of the named pieces, on the crops the untaught path reads
    # (`pipeline.untaught_crops`: light balanced, marbles also by the cloth's own light):
    # does it know this copy under this light? (`known_p`). With the balance and no cloth,
    # the taught crops are the untaught path's.
    from vision.pipeline import untaught_crops

    rows = [i for i, _, _ in chosen]
    kind = "marbles" if marbles else "tiles"
    if settings.light_balance and not marbles:
        untaught = pred.probs[rows]
    else:  # (the lamp's curve read only where these crops are cut)
        seen = photo.image  # (Simsala Hopp: a lamp's curve off where the untaught reading
        if settings.tone_off and not marbles:  # takes it off, `pipeline.lamp_reading`)
            from vision.pipeline import lamp_reading

            toned = lamp_reading(photo.image, area)[2]
            seen = photo.image if toned is None else toned
        untaught = clf.predict(untaught_crops(kind, seen, area, centers_pl[rows], sides[rows],
                                              angles[rows], clf.crop)).probs
    return [Example(lab, src, pred.embedding[i].astype(np.float32), colours[i],
                    shields=shields, white=whites[i],
                    crop=crops[i] if settings.white_label else None, photo=name,
                    model_p=float(untaught[k, clf.index(lab)]))
            for k, (i, lab, src) in enumerate(chosen)] + others


def label_folders(folder: Path) -> list[Path]:
    """A teach folder's label folders, sorted; hidden ones (a `.thumbnails`) and the
    `__MACOSX` folder a zip made on a Mac unpacks beside them left out."""
    return sorted(p for p in folder.iterdir()
                  if p.is_dir() and not p.name.startswith(".") and p.name != "__MACOSX")


def shown_files(folder: Path) -> list[Path]:
    """A label folder's files, sorted; hidden ones left out (a Mac's copy puts an
    `._IMG_0001.jpg` of metadata beside each photo, a `.DS_Store` in each folder)."""
    return sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))


def photo_files(folder: Path) -> list[Path]:
    """The teach photos of a label folder (`shown_files`: a Mac's `._IMG_0001.jpg` failed
    as "not a JPEG")."""
    return [p for p in shown_files(folder) if p.suffix.lower() in PHOTO_SUFFIXES]


def build_profile(folder: str | Path, game: str, pipeline=None,
                  settings: TeachSettings | None = None,
                  card_settings: TeachSettings | None = None) -> Profile:
    """A profile from a teach folder `DIR/<label>/*.jpg` (see the module docstring)."""
    from vision.pipeline import get_pipeline

    tg = teachable(game)
    pipeline = pipeline or get_pipeline()
    folder = Path(folder)
    if not folder.is_dir():
        raise TeachError(_not_a_folder(folder))
    subdirs = label_folders(folder)
    if not subdirs:
        raise TeachError(f"{folder}: no label folders (expected {folder}/<label>/*.jpg, labels "
                         f"of {game}: {', '.join(tg.labels)})")
    todo: list[tuple[Path, str, list | None]] = []
    for sub in subdirs:
        if sub.name not in tg.labels:
            raise TeachError(f"{sub}: unknown label {sub.name!r} for {game}; labels: "
                             f"{', '.join(tg.labels)}")
        photos = photo_files(sub)
        if not photos:  # (an iPhone's IMG_0001.HEIC: say so, not "empty")
            others = [p.name for p in shown_files(sub)][:3]  # (not a .DS_Store)
            held = (f"; it holds {', '.join(others)}: tablescore reads JPEG and PNG photos"
                    if others else "")
            raise TeachError(f"{sub}: empty label folder (no .jpg or .png photo){held}")
        for ph in photos:
            taps = read_taps(ph, sub.name)
            for _, _, lab in taps or ():
                if lab not in tg.labels:
                    raise TeachError(f"{ph.with_name(ph.stem + '.taps.json')}: unknown label "
                                     f"{lab!r} for {game}")
            todo.append((ph, sub.name, taps))
    return taught_profile(pipeline, game, [(ph, lab, taps, str(ph)) for ph, lab, taps in todo],
                          settings, card_settings)


def taught_profile(pipeline, game: str, photos: list, settings: TeachSettings | None = None,
                   card_settings: TeachSettings | None = None) -> Profile:
    """The profile (`profile_from_examples`) of teach photos [(path or bytes, label, taps
    or None, name)] (`examples_from_photo`); Simsala Hopp's tiles with the teach photos'
    lamp curve taken off and kept in the profile (`teach_tone`: every photo loaded first,
    to read it)."""
    tg = teachable(game)
    settings = settings or game_settings(game)
    tone, loaded = None, [None] * len(photos)
    if settings.tone_off and tg.piece_labels and tg.area_name and not tg.marbles:
        loaded = [loaded_photo(pipeline, game, ph, name) for ph, _, _, name in photos]
        tone = teach_tone(loaded, settings)
    examples: list[Example] = []
    for (ph, lab, taps, name), pa in zip(photos, loaded, strict=True):
        examples += examples_from_photo(pipeline, game, ph, lab, taps, name, settings,
                                        card_settings, pa, tone)
    return profile_from_examples(game, examples, pipeline, settings, card_settings, tone)


def _part(tg: TeachGame, examples: list[Example], model: str, classifier,
          settings: TeachSettings, tone: np.ndarray | None = None) -> Profile:
    labels = tg.piece_labels if model == "pieces" else tg.card_labels
    bg = [e for e in examples if e.model == model and e.label == BACKGROUND]
    ex = [e for e in examples if e.model == model and e.label != BACKGROUND]
    units = [u for u in tg.units(labels) if any(tg.unit(e.label) == u for e in ex)]
    protos, counts = [], []
    for u in units:
        mine = [e for e in ex if tg.unit(e.label) == u]
        v = np.mean([e.embedding for e in mine], axis=0)
        protos.append(v / max(float(np.linalg.norm(v)), 1e-9))
        counts.append(len(mine))
    dim = len(ex[0].embedding) if ex else 0
    prototypes = np.asarray(protos, np.float32).reshape(len(units), dim)
    if settings.white_label:  # each teach photo white balanced by its own white pieces
        ex = white_balanced(ex, [e for e in examples if e.model == model], prototypes,
                            tuple(units), settings)
    cols, weights = [], []  # each unit's colour, weighed by its examples' colour_weight
    for u in units:
        mine = [e for e in ex if tg.unit(e.label) == u]
        w = np.array([e.colour_weight for e in mine], np.float64)
        weights.append(float(w.sum()))
        if w.sum() <= 0 or np.all(w == w[0]):  # (equal weights: the plain mean, as before)
            cols.append(np.mean([e.colour for e in mine], axis=0))
        else:
            cols.append((np.array([e.colour for e in mine], np.float64) * w[:, None]).sum(0)
                        / w.sum())
    if settings.colour_by_number:
        cols = number_colours(units, cols, weights)
    negatives = None
    if settings.neg_k > 0 and bg and len(units):
        # the other candidates of the teach photos unlike every taught piece: the table, the
        # arena's artwork (an untapped piece of a taught label is mostly nearer its prototype)
        emb = np.stack([e.embedding for e in bg]).astype(np.float32)
        negatives = emb[(emb @ prototypes.T).max(axis=1) < settings.min_cos]
    looks = [e.look for e in ex if e.look is not None]
    look = np.mean(looks, axis=0).astype(np.float32) if looks else None
    areas = [e.look_area for e in ex if e.look_area is not None]
    area = float(np.median(areas)) if areas else None
    hues = np.radians([e.shields for e in ex if e.shields is not None])
    shields = (np.degrees(np.arctan2(np.sin(hues).mean(axis=0), np.cos(hues).mean(axis=0)))
               .astype(np.float32) if len(hues) else None)  # (the circular mean)
    model_p = mean_model_p([[e.model_p for e in ex if tg.unit(e.label) == u] for u in units])
    return Profile(game=tg.game, labels=tuple(units), prototypes=prototypes,
                   colours=np.asarray(cols, np.float32).reshape(len(units), 3),
                   counts=np.asarray(counts, np.int64), classes=tuple(classifier.classes),
                   sources=tuple(e.source for e in ex), settings=settings, model=model,
                   model_id=model_id(classifier), negatives=negatives, look=look,
                   look_area=area, shields=shields, model_p=model_p, tone=tone)


def white_balanced(ex: list[Example], every: list[Example], prototypes: np.ndarray,
                   units: tuple[str, ...], settings: TeachSettings) -> list[Example]:
    """The examples `ex` with their colours measured again on their crops white balanced
    by their teach photo's white pieces (`photo_white_gain` over all of the photo's
    candidates in `every`, the examples and the background ones); unchanged where the photo
    has too few of them or an example has no crop."""
    by_photo: dict[str, list[Example]] = {}  # each photo's candidates with a white point
    for o in every:
        if o.white is not None:
            by_photo.setdefault(o.photo, []).append(o)
    gains: dict[str, np.ndarray | None] = {}  # (once per photo, not per example)
    out = []
    for e in ex:
        if e.crop is None or e.white is None:
            out.append(e)
            continue
        if e.photo not in gains:
            same = by_photo.get(e.photo, [])
            gains[e.photo] = photo_white_gain(
                np.stack([o.embedding for o in same]), np.stack([o.white for o in same]),
                prototypes, units, settings) if same else None
        gain = gains[e.photo]
        if gain is None:
            out.append(e)
            continue
        out.append(replace(e, colour=piece_colour(balanced(e.crop[None], gain), settings)[0]))
    return out


def number_colours(units: list[str], colours: list, counts: list[float]) -> list:
    """Each numbered unit's colour replaced by the mean colour of the units with its number
    (`hat-3` and `rabbit-3`), each weighed by its `counts` (its examples' summed colour
    weights; equally where those are all 0); units without a number keep theirs."""
    def number(u: str) -> str | None:
        tail = u.rpartition("-")[2]
        return tail if tail.isdigit() and "-" in u else None

    out = list(colours)
    for n in {number(u) for u in units} - {None}:
        same = [i for i, u in enumerate(units) if number(u) == n]
        w = np.array([counts[i] for i in same], np.float32)
        if w.sum() <= 0:
            w = np.ones(len(same), np.float32)
        mean = (np.asarray([colours[i] for i in same]) * w[:, None]).sum(axis=0) / w.sum()
        for i in same:
            out[i] = mean
    return out


def profile_from_examples(game: str, examples: list[Example], pipeline,
                          settings: TeachSettings | None = None,
                          card_settings: TeachSettings | None = None,
                          tone: np.ndarray | None = None) -> Profile:
    """The profile of a game from its examples: the tiles' or marbles' part (the top level,
    with `tone`, the teach photos' lamp curve, `teach_tone`), the cards' part (the top
    level for Magic Rabbit and Troetofanten, `cards` for Hop la bille)."""
    tg = teachable(game)
    if not examples:
        raise TeachError("no teach examples")
    if tg.pawn_labels:
        from vision.teach_pawns import pawn_part

        return pawn_part(examples)
    settings = settings or game_settings(game)
    card_settings = card_settings or game_settings(game, "cards")
    cards = None
    if any(e.model == "cards" for e in examples):
        cards = _part(tg, examples, "cards", pipeline.cards.classifier, card_settings)
    if not tg.piece_labels:
        return cards
    piece = _part(tg, examples, "pieces", pipeline.classifier, settings, tone)
    return replace(piece, cards=cards)


def _not_a_folder(folder: Path) -> str:
    """The error for a teach path that is no folder: a file given where the folder (DIR with
    DIR/<label>/*.jpg, or a saved profile's folder) belongs says so."""
    if folder.exists():
        return (f"{folder} is a file, not a teach folder (give the folder: DIR/<label>/*.jpg, "
                "or a saved profile's folder)")
    return f"teach folder not found: {folder}"


_CACHE: dict[tuple, Profile] = {}


def resolve_profile(teach, game: str, pipeline) -> Profile:
    """`teach` as given to `score_photo`: a `Profile`, a folder holding a saved profile
    (`profile.json`), or a teach folder of photos (built now; cached by path and mtime).
    Checked against the models in use."""
    if isinstance(teach, Profile):
        profile = teach
    else:
        folder = Path(teach)
        if not folder.is_dir():
            raise TeachError(_not_a_folder(folder))
        saved = (folder / PROFILE_JSON).is_file()
        stamp = max((p.stat().st_mtime_ns for p in folder.rglob("*")), default=0)
        key = (str(folder.resolve()), stamp, game)
        if key not in _CACHE:
            _CACHE[key] = Profile.load(folder) if saved else build_profile(folder, game, pipeline)
        profile = _CACHE[key]
    check_profile(profile, game, pipeline)
    return profile


def check_profile(profile: Profile, game: str, pipeline) -> None:
    """`TeachError` unless each part of the profile fits the game and the model in use."""
    if profile.game != game:
        raise TeachError(f"the teach profile is for {profile.game}, not {game}")
    if game == "mauerhuepfer":
        from vision.teach_pawns import check

        check(profile)
        return
    if profile.model == "pieces":
        clf = pipeline.classifier
        profile.check(game, clf.classes, model_id(clf))
    if profile.card_part is not None:
        clf = pipeline.cards.classifier
        profile.card_part.check(game, clf.classes, model_id(clf))


def timed_build(folder, game, pipeline=None) -> tuple[Profile, float]:
    t = time.perf_counter()
    prof = build_profile(folder, game, pipeline)
    return prof, (time.perf_counter() - t) * 1000


def photo_shields(photo, area) -> np.ndarray | None:
    """(4,) hues (degrees) of the coats of arms around the arena (`vision.shields`, in its
    `COLOURS` order), or None (no clear coats of arms). Only for a game whose teach settings
    turn the taught colours by them (`shield_shift` > 0: Simsala Hopp's arena)."""
    from vision.shields import shield_hues

    return shield_array(shield_hues(photo.image, area))


def shield_array(hues: dict[str, float] | None) -> np.ndarray | None:
    """`vision.shields`' {colour: hue} as (4,) float32 degrees in its `COLOURS` order, or
    None."""
    from vision.shields import COLOURS

    return None if hues is None else np.array([hues[c] for c in COLOURS], np.float32)


def lamp_curve(image_bgr: np.ndarray, area
               ) -> tuple[dict[str, float] | None, np.ndarray | None]:
    """Simsala Hopp: (the uint8 BGR photo's coats of arms' hues as it is (`shield_hues`),
    None where they are not named; the tone curve its table beyond the castle shows
    (`PlayArea.table_curve`, `find_area`'s reading, else `vision.shields.table_tone`: (3,)
    BGR exponents) or None)."""
    from vision import shields  # (looked up per call: teach_eval times shield_hues)

    return shields.shield_hues(image_bgr, area), shields.kept_table_tone(image_bgr, area)


def teach_tone(loaded: list, settings: TeachSettings) -> np.ndarray | None:
    """The lamp's tone curve over Simsala Hopp's teach photos (`loaded`: [(photo, area)]):
    where at least `tone_share` of them are not named as they are (`lamp_curve`), the
    per-channel median of the curves their tables show; None where none shows one, or
    `tone_off` is off."""
    if not settings.tone_off or not loaded:
        return None
    read = [lamp_curve(photo.image, area) for photo, area in loaded]
    curves = [own for hues, own in read if hues is None and own is not None]
    if not curves or np.mean([hues is None for hues, _ in read]) < settings.tone_share:
        return None
    return np.median(np.stack(curves), axis=0).astype(np.float32)


def lamp_toned(image_bgr: np.ndarray, area, tone: np.ndarray | None
               ) -> tuple[dict[str, float] | None, np.ndarray | None]:
    """Simsala Hopp's photo as teach mode reads it with a profile's lamp curve (`tone`,
    `Profile.tone`; a teach photo likewise): (its coats of arms' hues as `shield_hues` names
    them, or None; the uint8 BGR photo with a lamp's curve taken off about white, or None:
    the photo as it is). Named as it is, or without `tone`: the photo as it is; else its own
    table's curve (`lamp_curve`) taken off, or `tone` where its table shows none."""
    from vision import shields
    from vision.preprocess import power_about

    if tone is None:
        return shields.shield_hues(image_bgr, area), None
    hues, own = lamp_curve(image_bgr, area)
    if hues is not None:
        return hues, None
    toned = power_about(image_bgr, tone if own is None else own, shields.SHIELDS.tone_white)
    return shields.shield_hues(toned, area), toned


def shield_calibrated(profile: Profile, hues: dict[str, float] | None) -> Profile:
    """The profile with each coloured rabbit's taught colour turned in (a, b) hue by
    `shield_shift` x (this photo's coat of arms of that colour - the teach photos'): the
    castle's coats of arms show each player colour under the photo's light (a warm light
    turns yellow towards orange). Unchanged without coats of arms on either side. (The
    last photo's is kept on the profile: a photo's batches share it, and its worked-out
    columns and colours.)"""
    from vision.shields import COLOURS, _hue_diff

    shift = profile.settings.shield_shift
    if shift <= 0 or not hues or profile.shields is None:
        return profile
    key = tuple(sorted((c, float(h)) for c, h in hues.items()))
    last = profile._memo.get("shield_calibrated")
    if last is not None and last[0] == key:
        return last[1]
    colours = profile.colours.copy()
    for c, taught in zip(COLOURS, profile.shields, strict=True):
        label = f"rabbit-{c}"
        if label not in profile.labels:
            continue
        i = profile.labels.index(label)
        d = np.radians(shift * _hue_diff(hues[c], float(taught)))
        a, b = colours[i, 1], colours[i, 2]
        colours[i, 1], colours[i, 2] = a * np.cos(d) - b * np.sin(d), a * np.sin(d) + b * np.cos(d)
    out = replace(profile, colours=colours)
    profile._memo["shield_calibrated"] = (key, out)
    return out


def taught_crop(crop, settings: TeachSettings | None = None):
    """The crop settings teach mode uses, for its examples and for photos scored with a
    profile: without the light balance, unless `settings.light_balance` (Hop la bille). The
    balance is estimated from each photo's content, which differs between a teach photo of
    one piece and a scene, so a colour taught under one would not match the other; the
    profile's colours and recalibration handle the light instead. (But without it, a harsh
    light misleads the model on the marbles.)"""
    if settings is not None and settings.light_balance:
        return crop
    return replace(crop, light_balance=0.0)


def surely_pieces(pu: np.ndarray, level: float) -> np.ndarray:
    """(N,) bool: candidates whose probability of one game label (`pu`, (N, U) per unit) the
    model itself puts at `level` or more (the gates leave them pieces; Hop la bille)."""
    return pu.max(axis=1) >= level


def teach_probs(profile: Profile, classifier, labels: tuple[str, ...], probs: np.ndarray,
                embedding: np.ndarray, crops_bgr: np.ndarray,
                groups: dict[str, tuple[str, ...]] | None = None,
                keep_mass: bool = False,
                also: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """The model's (N, C) class probabilities re-decided with a profile: the game's label
    columns become `Profile.adjust`'s q times the piece mass (1 - P(background)); other games'
    classes get 0; candidates with a prototype cosine >= `rescue_cos` get P(background) at
    most `1 - rescue_cos` (taught pieces the model took for background); candidates whose
    best label is taught but whose cosine to every prototype is below `min_cos` get
    P(background) = 1.

    groups: {profile label: its model labels} when a profile label stands for several of the
    model's labels (Troetofanten kinds): the rule runs on each group's summed probability, and
    a group's share is split over its labels as the model splits it.
    keep_mass (and the profile's `keep_mass`): the game's labels share only what the model
    gave them (a rescued candidate: all but background), other classes keep theirs (the card
    reader drops a crop whose game labels weigh less than background: e.g. another game's
    piece).
    also: (embedding, crops) of the photo's other candidates, whose white pieces count too
    when the photo is white balanced (`white_label`; a later look's few candidates). Same
    shape/dtype."""
    if len(probs) == 0 or not profile.labels or profile.known:
        return probs  # (a known profile: the model's reading stays)
    groups = groups or {lab: (lab,) for lab in labels}
    units = tuple(groups)
    ib = classifier.index(BACKGROUND)
    cols = profile._once(  # (the model's columns of each unit's labels)
        ("unit_columns", tuple(classifier.classes), tuple((u, tuple(groups[u])) for u in units)),
        lambda: _UnitColumns.of([[classifier.index(lab) for lab in groups[u]] for u in units]))
    pu = cols.sums(probs)  # (N, U) each unit's probability
    s = profile.settings
    keep_mass = keep_mass and s.keep_mass
    if s.white_label:  # this photo white balanced by its white pieces (as the teach photos)
        emb_w, whites, near = _whites(profile, embedding, crops_bgr, also)
        crops_bgr = balanced(crops_bgr, photo_white_gain(
            emb_w, whites, profile.prototypes, profile.labels, s, white=near))
    q, cos_l = profile.adjust(units, pu, embedding, piece_colour(crops_bgr, s))
    bg = probs[:, ib].copy()
    choice = q.argmax(axis=1)  # (the rule's label, before relabel_only keeps the spread)
    with np.errstate(invalid="ignore"):
        finite = np.isfinite(cos_l).all()  # (every label taught: no NaN)
        filled = cos_l if finite else np.nan_to_num(cos_l, nan=-1.0)
        best = filled.max(axis=1)
        gate = best < s.min_cos  # like no taught piece at all: background
        if not finite:  # (... where the rule's label is taught)
            gate &= ~np.isnan(cos_l[np.arange(len(q)), choice])
        neg = background_cos(profile, embedding)
        rescue = (best >= s.rescue_cos) & (bg < s.rescue_bg)
        if neg is None and rescue.any():  # ... and clear of the second-nearest prototype
            second = (np.sort(filled, axis=1)[:, -2] if filled.shape[1] > 1
                      else np.full(len(q), -1))
            rescue &= best - second >= s.rescue_margin
        elif neg is not None:  # ... and nearer the teach photos' background than any piece
            gate &= neg >= best + s.neg_margin
            rescue &= (best - neg >= s.rescue_neg_margin) & ~gate
        if gate.any():
            gate &= ~surely_pieces(pu, s.gate_keep)
        if rescue.any():
            bg[rescue] = np.minimum(bg[rescue], 1 - s.rescue_cos)
        if gate.any():
            bg[gate] = 1.0
    top = pu.argmax(axis=1)  # the model's own label
    if s.relabel_only:  # the model's own spread, its top share moved to q's choice
        n = np.arange(len(q))
        i, j = top, choice
        shares = pu / np.maximum(pu.sum(axis=1, keepdims=True), 1e-12)
        q = shares.copy()
        q[n, i], q[n, j] = shares[n, j], shares[n, i]
    if keep_mass:
        out = probs.copy()
        mass = pu.sum(axis=1)
        gone = (bg >= 1.0) | rescue  # rescued: all that is not background is this game's
        if gone.any():
            out[gone] = 0.0
            mass[gone] = 1 - bg[gone]
    else:
        out = np.zeros_like(probs)
        mass = 1 - bg
    out[:, ib] = bg
    # each unit's share split over its labels as the model splits it (evenly where it gave
    # the unit nothing)
    pk = pu[:, cols.unit_of]
    within = probs[:, cols.flat] / np.maximum(pk, 1e-12)
    within = np.where(pk > 1e-12, within, cols.even)
    out[:, cols.flat] = (q[:, cols.unit_of] * mass[:, None]) * within
    if profile.model_p is not None:  # the model's own probability of each unit on its
        # examples (NaN: not taught, neither known nor unread)
        p_unit = profile._once(("p_unit", units), lambda: np.array(
            [profile.model_p[profile.labels.index(lab)] if lab in profile.labels else np.nan
             for lab in units], np.float32))
        modelled = pu.max(axis=1) > probs[:, ib]  # its top reading a label, not background
        #                                           (whose leftover favours one)
        if profile.read_share >= s.trust_share:  # the model knows most of this copy: its
            # reading of a label it reads right on its examples stays
            trusted = (p_unit >= s.known_p)[top] & modelled
            out[trusted] = probs[trusted]
        if s.keep_unread:  # a taught label the model does not read right on its own
            # examples (an example unlike what the model knows as it, e.g. posed off its card
            # under a harsh light) neither keeps a candidate the model reads as another label
            # nor gives up one the model reads as it: the model's reading stays
            unread = p_unit < s.known_p
            kept = (unread[top] | unread[choice]) & modelled
            out[kept] = probs[kept]
    return out


@dataclass(frozen=True)
class _UnitColumns:
    """The model's class columns of each unit (a profile label, Troetofanten: a kind and its
    numbers), laid out for `teach_probs`: `flat` (K,) every unit's columns in unit order
    (`units` of them), `unit_of` (K,) each one's unit, `even` (K,) float32 1 / its unit's
    size, `by_size` per unit size k: (the units' positions, their (G, k) columns)."""

    units: int
    flat: np.ndarray
    unit_of: np.ndarray
    even: np.ndarray
    by_size: tuple[tuple[np.ndarray, np.ndarray], ...]

    @classmethod
    def of(cls, idx: list[list[int]]) -> _UnitColumns:
        sizes = sorted({len(c) for c in idx})
        return cls(units=len(idx), flat=np.array([c for cols in idx for c in cols], np.intp),
                   unit_of=np.array([k for k, cols in enumerate(idx) for _ in cols], np.intp),
                   even=np.array([np.float32(1.0 / len(cols)) for cols in idx for _ in cols],
                                 np.float32),
                   by_size=tuple((np.array([k for k, c in enumerate(idx) if len(c) == m],
                                           np.intp),
                                  np.array([c for c in idx if len(c) == m], np.intp))
                                 for m in sizes))

    def sums(self, probs: np.ndarray) -> np.ndarray:
        """(N, C) probabilities -> (N, U) each unit's sum over its columns (per unit the same
        sum as `probs[:, cols].sum(axis=1)`)."""
        out = np.empty((len(probs), self.units), probs.dtype)
        for units, cols in self.by_size:
            out[:, units] = probs[:, cols].sum(axis=2)
        return out


def _whites(profile: Profile, embedding: np.ndarray, crops_bgr: np.ndarray,
            also: tuple[np.ndarray, np.ndarray] | None
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """`photo_white_gain`'s (embedding, whites, white) for a batch and the photo's other
    candidates (`also`): (M, D) and (M, 3) float32, the `white_point` measured only on the
    candidates `white_candidates` picks (the others' rows are 0: never read), and that
    (M,) bool pick (None: no white label taught, or no candidate)."""
    emb_w, crops = embedding, [crops_bgr]
    if also is not None and len(also[0]):
        emb_w = np.concatenate([embedding, also[0]])
        crops.append(also[1])
    whites = np.zeros((len(emb_w), 3), np.float32)
    near = white_candidates(emb_w, profile.prototypes, profile.labels, profile.settings)
    if near is None or near.sum() < max(1, profile.settings.white_min):
        return emb_w, whites, near  # (too few: no balance, whatever the whites)
    start = 0
    for batch in crops:
        here = np.flatnonzero(near[start:start + len(batch)])
        if len(here):
            whites[start + here] = white_point(batch[here], profile.settings)
        start += len(batch)
    return emb_w, whites, near


def background_cos(profile: Profile, embedding: np.ndarray) -> np.ndarray | None:
    """(N,) each candidate's `neg_k`-th highest cosine to the profile's background
    examples, or None when the profile has fewer than `neg_k` of them (or `neg_k` is 0)."""
    k = profile.settings.neg_k
    neg = profile.negatives
    if k <= 0 or neg is None or len(neg) < k:
        return None
    c = embedding @ neg.T
    return np.partition(c, len(neg) - k, axis=1)[:, len(neg) - k]


def profile_from_taps(game: str, photos: list[tuple[str, bytes]], taps: list[dict],
                      pipeline=None, settings: TeachSettings | None = None) -> Profile:
    """A profile from photos in memory (the page's teach screen): `photos` [(name, bytes)],
    `taps` [{"photo": index, "x", "y", "label"}] in photo pixels. Errors name the photo."""
    from vision.pipeline import get_pipeline

    tg = teachable(game)
    pipeline = pipeline or get_pipeline()
    if not photos:
        raise TeachError("no teach photos")
    if not taps:
        raise TeachError("no taps: tap each piece on the photos and name it")
    by_photo: dict[int, list[tuple[float, float, str]]] = {}
    for k, t in enumerate(taps):
        try:
            i, x, y, lab = int(t["photo"]), t["x"], t["y"], str(t["label"])
        except (KeyError, TypeError, ValueError):
            raise TeachError(f"tap {k}: expected {{\"photo\", \"x\", \"y\", \"label\"}}") \
                from None
        x, y = tap_coordinate(x, f"tap {k}: x"), tap_coordinate(y, f"tap {k}: y")
        if not 0 <= i < len(photos):
            raise TeachError(f"tap {k}: no photo {i}")
        if lab not in tg.labels:
            raise TeachError(f"tap {k}: unknown label {lab!r} for {game}; labels: "
                             f"{', '.join(tg.labels)}")
        by_photo.setdefault(i, []).append((x, y, lab))
    todo = []
    for i, ts in sorted(by_photo.items()):
        name, data = photos[i]
        if sum(n == name for n, _ in photos) > 1:  # each photo its own white balance
            name = f"{name} (photo {i})"  # (`Example.photo`; the page names each `blob`)
        todo.append((data, ts[0][2], ts, name))
    return taught_profile(pipeline, game, todo, settings)


def mean_model_p(per_label: list[list[float | None]]) -> np.ndarray | None:
    """(L,) float32 mean `Example.model_p` of each label's examples, or None when any of
    them was not measured."""
    if not all(p is not None for q in per_label for p in q):
        return None
    return np.array([np.mean(p) for p in per_label], np.float32)


def profile_parts(profile: Profile) -> list[Profile]:
    """A profile's parts: itself for pawns, else its pieces' and cards' parts it has."""
    parts = (profile,) if profile.model == "mauer-pawns" else (profile.piece_part,
                                                               profile.card_part)
    return [p for p in parts if p is not None]


def profile_counts(profile: Profile) -> dict[str, int]:
    """{taught label: examples} over both parts."""
    out = {}
    for part in profile_parts(profile):
        out |= {lab: int(c) for lab, c in zip(part.labels, part.counts, strict=True)}
    return out


def list_profiles(root: str | Path, game: str | None = None) -> list[dict]:
    """Saved profiles under `root` (e.g. `<data>/teach`): [{"name", "game", "labels"}]."""
    root = Path(root)
    out = []
    if not root.is_dir():
        return out
    for d in sorted(root.iterdir()):
        meta = d / PROFILE_JSON
        if not meta.is_file():
            continue
        try:
            m = json.loads(meta.read_text())
        except (OSError, ValueError):
            continue
        if not isinstance(m, dict):  # (a damaged or hand-edited file: the list went on, a
            continue  # list there raised AttributeError, a 500 on the page)
        if game is None or m.get("game") == game:
            cards = m.get("cards") if isinstance(m.get("cards"), dict) else {}
            counts = {k: v for c in (m.get("counts"), cards.get("counts"))
                      if isinstance(c, dict) for k, v in c.items()}
            out.append({"name": d.name, "game": m.get("game"), "labels": counts})
    return out
