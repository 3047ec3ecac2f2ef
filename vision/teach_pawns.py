"""Teach mode for Mauerhuepfer pawns: calibrate one copy's pawn colours under this light.

The pawns are read by `vision.mauer` (board, then every spot's colour statistics through the
small colour classifier `models/mauer-pawns.npz`, which has no embedding). A teach photo shows
the board with one pawn of the label's colour (`DIR/pawn-red/*.jpg`), or several pawns named
by taps (`<photo stem>.taps.json`, as for the other games). Each example is the spot's
*colour vector*: the median CIE Lab of the pawn's footprint, body and head discs, white
balanced by the board's own track fields (`vision.mauer.spot_features`, columns
`COLOUR_COLUMNS`), so the board calibrates the light and the pawn calibrates its colour.

A profile (`vision.teach.Profile`, `model` "mauer-pawns") holds one prototype per taught
colour (the mean colour vector). Reading with it (`taught_proba`): the classifier's
probabilities are first limited as the pawn step limits them (a start or goal slot holds only
its own colour); whether a spot holds a pawn stays its P(empty); which colour is re-decided,

    logit_c = a * log p_model(c)  -  w * |f - proto_c|^2 / (2 s^2)      (taught colours)

softmax over the colours, times the pawn mass 1 - P(empty); untaught colours get the mean of
the taught colours' terms (neutral: teaching one colour alone never changes which colour
is read). The terms fade as exp(-d^2 / (2 g^2)), d the distance to the nearest taught
colour: a spot like no taught pawn (a bare field that a harsh light turned yellowish, read as
an unsure pawn) keeps the model's colour split instead of going to the least far colour.
`a`, `w`, `s`, `g`: `PawnTeachSettings`.

Tried and removed: the board's *empty look* per group of spots learnt from the teach photos'
other spots, a term for P(empty) as well (docs/teach.md: the pawn step's box rules already
dropped what it fixed, and it read 1 more pawn wrong in 20 harsh-light scenes).

Scoring uses the profile through one hook in `vision.mauer.classify_spots`: `taught_model`
wraps the pawn model while a profile is active (`using(profile)`, a context variable, so
concurrent requests of the page do not mix profiles).
"""

from __future__ import annotations

import contextlib
import hashlib
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # (vision.teach is imported where needed: reading pawns never needs it)
    import vision.teach as teach

GAME = "mauerhuepfer"
MODEL = "mauer-pawns"  # the profile's `model`
# white-balanced median L, a, b of the footprint, body and head discs (spot_features)
COLOUR_COLUMNS = (0, 1, 2, 9, 10, 11, 18, 19, 20)
KIND_COLUMN, AREA_COLUMN = 30, 35  # spot_features' one-hot spot kind and area colour


@dataclass(frozen=True)
class PawnTeachSettings:
    model_weight: float = 2.0  # a: exponent of the classifier's probabilities
    colour_weight: float = 1.0  # w: weight of the prototype distance terms
    sigma: float = 0.15  # s: distance scale in the feature units (L / 255, a / 64, b / 64)
    gate: float = 0.7  # g: the terms fade as exp(-d^2 / (2 g^2)), d the distance to the
    #                    nearest taught colour (a spot like no taught pawn: the model's split;
    #                    0: off)
    pawn_prob: float = 0.5  # a photo without taps: a spot is a pawn when P(empty) < 1 - this
    tap_empty: float = 0.95  # a tapped spot whose P(empty) is at least this holds no pawn
    tap_radius: float = 1.5  # a tap names the spot whose pawn (base to head) lies within
    #                          this many pawn radii of it


PAWN_TEACH = PawnTeachSettings()

_ACTIVE: ContextVar[teach.Profile | None] = ContextVar("taught_pawns", default=None)


def pawn_labels() -> tuple[str, ...]:
    from scoring.labels import PAWN_COLOURS

    return tuple(f"pawn-{c}" for c in PAWN_COLOURS)


def model_id(path=None) -> str:
    """A fingerprint of the pawn model file (a profile only fits the model it was built
    with: its classifier's colour split)."""
    from vision.mauer import MODEL_PATH

    p = Path(path or MODEL_PATH)
    return _file_hash(str(p), p.stat().st_mtime_ns)


@lru_cache(maxsize=4)
def _file_hash(path: str, mtime_ns: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def classes() -> tuple[str, ...]:
    from vision.mauer import CLASSES

    return tuple(CLASSES)


# ----------------------------------------------------------------------------- teaching


def read_spots(image: np.ndarray, name: str):
    """(board, view, features (n_spots, F), model probabilities (n_spots, 5)) of a teach
    photo; `TeachError` naming the photo when no board is found."""
    import vision.teach as teach
    from scoring.mauerhuepfer import board_for
    from vision.mauer import (
        SETTINGS,
        allowed_mask,
        blob_map,
        find_board,
        load_pawn_model,
        spot_features,
    )

    board = board_for()
    model = load_pawn_model()
    if model is None:
        raise teach.TeachError("the pawn model models/mauer-pawns.npz is missing")
    view = find_board(image, board, SETTINGS, blob_map(image, SETTINGS))
    if view is None:
        raise teach.TeachError(f"{name}: no Mauerhuepfer board found in the photo (its track "
                               f"fields and coloured start areas were not seen)")
    feats = spot_features(image, view, board, SETTINGS)
    pr = model.proba(feats) * allowed_mask(board)
    return board, view, feats, pr / np.maximum(pr.sum(axis=1, keepdims=True), 1e-9)


def pawn_examples(photo, label: str, taps: list[tuple[float, float, str]] | None, name: str,
                  settings: PawnTeachSettings = PAWN_TEACH) -> list[teach.Example]:
    """Examples from one loaded teach photo of the board: without taps exactly one spot must
    hold a pawn (P(empty) below 1 - `pawn_prob`); each tap (photo pixels) names the spot whose
    pawn, from its base to its head, passes within `tap_radius` pawn radii of it."""
    import vision.teach as teach
    from vision.mauer import SETTINGS, project, spots

    board, view, feats, pr = read_spots(photo.image, name)
    sp = spots(board)
    chosen: list[tuple[int, str, str]] = []
    if taps is None:
        pawns = np.flatnonzero(pr[:, 0] < 1 - settings.pawn_prob)
        if len(pawns) == 0:
            raise teach.TeachError(f"{name}: no pawn found on the board in this photo")
        if len(pawns) > 1:
            raise teach.TeachError(
                f"{name}: {len(pawns)} pawns found; photograph one pawn per photo or name each "
                f"with a tap in {Path(name).stem}.taps.json")
        chosen = [(int(pawns[0]), label, name)]
    else:
        xy = np.array([[q.x, q.y] for q in sp])
        z = np.zeros(len(sp))
        base = project(view.P, np.column_stack([xy, z]))
        top = project(view.P, np.column_stack([xy, z - SETTINGS.pawn_height_mm]))
        side = project(view.P, np.column_stack([xy + [SETTINGS.pawn_radius_mm, 0], z]))
        radius = np.hypot(*(side - base).T)  # a pawn's radius in working px, per spot
        for x, y, lab in taps:
            t = np.array([x, y]) / photo.scale
            d = _segment_distance(t, base, top)
            i = int(np.argmin(d / radius))
            if d[i] > settings.tap_radius * radius[i] or pr[i, 0] >= settings.tap_empty:
                raise teach.TeachError(f"{name}: no pawn found at the tap ({x:.0f}, {y:.0f})")
            chosen.append((i, lab, f"{name}@{x:.0f},{y:.0f}"))
    f = feats[:, COLOUR_COLUMNS]
    col = {lab: 1 + k for k, lab in enumerate(pawn_labels())}  # (pr: empty, then colours)
    return [teach.Example(lab, src, f[i].astype(np.float32), lab_colour(feats[i]), MODEL,
                          model_p=float(pr[i, col[lab]]) if lab in col else None)
            for i, lab, src in chosen]


def allowed(feats: np.ndarray) -> np.ndarray:
    """(N, 5) bool from the spots' features: a start or goal slot holds only its area's
    colour (`vision.mauer.allowed_mask`)."""
    from scoring.labels import PAWN_COLOURS
    from vision.mauer import KINDS

    kind = feats[:, KIND_COLUMN:KIND_COLUMN + len(KINDS)].argmax(axis=1)
    area = feats[:, AREA_COLUMN:AREA_COLUMN + len(PAWN_COLOURS)]
    slot = np.isin(kind, [KINDS.index("start"), KINDS.index("goal")]) & (area.max(axis=1) > 0)
    m = np.ones((len(feats), 1 + len(PAWN_COLOURS)), bool)
    m[slot, 1:] = area[slot] > 0
    return m


def _segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance of point p (2,) to each segment a[i]-b[i] ((N, 2) each)."""
    ab = b - a
    t = np.clip(((p - a) * ab).sum(axis=1) / np.maximum((ab * ab).sum(axis=1), 1e-9), 0, 1)
    return np.hypot(*(a + t[:, None] * ab - p).T)


def lab_colour(feat: np.ndarray) -> np.ndarray:
    """The footprint's white-balanced Lab (L 0-100, a/b about -128..127) of a spot's
    features, for the profile's `colours` (shown, not used by the rule)."""
    return np.array([feat[0] * 100.0, feat[1] * 64.0, feat[2] * 64.0], np.float32)


def pawn_part(examples: list[teach.Example]) -> teach.Profile:
    """The profile of the pawn examples: per taught colour label the mean colour vector."""
    import vision.teach as teach

    labels = [lab for lab in pawn_labels() if any(e.label == lab for e in examples)]
    protos, cols, counts = [], [], []
    for lab in labels:
        mine = [e for e in examples if e.label == lab]
        protos.append(np.mean([e.embedding for e in mine], axis=0))
        cols.append(np.mean([e.colour for e in mine], axis=0))
        counts.append(len(mine))
    model_p = teach.mean_model_p([[e.model_p for e in examples if e.label == lab]
                                  for lab in labels])
    return teach.Profile(game=GAME, labels=tuple(labels),
                         prototypes=np.asarray(protos, np.float32).reshape(len(labels), -1),
                         colours=np.asarray(cols, np.float32).reshape(len(labels), 3),
                         counts=np.asarray(counts, np.int64), classes=classes(),
                         sources=tuple(e.source for e in examples), model=MODEL,
                         model_id=model_id(), model_p=model_p)


# ----------------------------------------------------------------------------- reading


def taught_proba(profile: teach.Profile, probs: np.ndarray, feats: np.ndarray,
                 settings: PawnTeachSettings = PAWN_TEACH) -> np.ndarray:
    """The pawn model's (N, 5) probabilities (empty, then `PAWN_COLOURS`) re-decided with the
    profile (rule in the module docstring); `feats`: the spots' `spot_features`."""
    if len(probs) == 0 or not profile.labels:
        return probs
    s = settings
    probs = probs * allowed(feats)  # as the pawn step does after: P(empty) is this one's
    probs = probs / np.maximum(probs.sum(axis=1, keepdims=True), 1e-12)
    taught = [lab for lab in pawn_labels() if lab in profile.labels]  # in pawn order
    protos = profile.prototypes[[profile.labels.index(lab) for lab in taught]]
    f = feats[:, COLOUR_COLUMNS]
    d2 = ((f[:, None, :] - protos[None]) ** 2).sum(axis=2)
    term_t = -s.colour_weight * d2 / (2 * s.sigma ** 2)  # (N, taught colours)
    if s.gate > 0:  # far from every taught pawn (an empty field under a harsh light):
        term_t *= np.exp(-d2.min(axis=1, keepdims=True) / (2 * s.gate ** 2))  # no say
    neutral = term_t.mean(axis=1) if taught else np.zeros(len(f))  # untaught colours'
    term = np.stack([term_t[:, taught.index(lab)] if lab in taught else neutral
                     for lab in pawn_labels()], axis=1)
    pc = probs[:, 1:] / np.maximum(probs[:, 1:].sum(axis=1, keepdims=True), 1e-12)
    logit = s.model_weight * np.log(np.maximum(pc, 1e-6)) + term
    logit -= logit.max(axis=1, keepdims=True)
    q = np.exp(logit) * (pc > 0)  # (a slot's other colours stay impossible)
    q /= np.maximum(q.sum(axis=1, keepdims=True), 1e-12)
    out = np.column_stack([probs[:, 0], (1 - probs[:, :1]) * q])  # P(empty): the model's
    return out.astype(probs.dtype)


class TaughtPawnModel:
    """A `vision.mauer.PawnModel` stand-in: its probabilities re-decided with a profile."""

    def __init__(self, base, profile: teach.Profile):
        self.base, self.profile = base, profile

    def proba(self, x: np.ndarray) -> np.ndarray:
        return taught_proba(self.profile, self.base.proba(x), x)


def taught_model(model):
    """`model` re-deciding with the active profile (`using`), or `model` itself without one.
    Taught whatever `Profile.known` says: the MLP reads teach pawns at 0.998-1.0 even under
    a harsh light, so that tells nothing, and its pawns on a fresh harsh set were read
    better taught (docs/teach.md, session 9)."""
    profile = _ACTIVE.get()
    return model if profile is None else TaughtPawnModel(model, profile)


@contextlib.contextmanager
def using(profile: teach.Profile | None):
    """Read pawns with `profile` inside the block (None: untaught)."""
    token = _ACTIVE.set(profile)
    try:
        yield profile
    finally:
        _ACTIVE.reset(token)


def check(profile: teach.Profile) -> None:
    """`TeachError` unless the profile is a pawn profile for the pawn model in use."""
    import vision.teach as teach

    if profile.model != MODEL:
        raise teach.TeachError(f"the teach profile is for models/{profile.model}.onnx, not "
                               f"the Mauerhuepfer pawns")
    profile.check(GAME, classes(), model_id())

