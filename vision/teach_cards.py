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
from pathlib import Path

import numpy as np

import vision.teach as teach
from tablescore.errors import TablescoreError
from vision.cards.detect import Keypoints
from vision.cards.pieces import CardPiece
from vision.classify.model import Prediction

# The label given to a tap's candidates (any label of the game would do)
NEUTRAL_LABEL = {"magic-rabbit": "magician", "troetofanten": "mouse",
                 "hop-la-bille": "card-back"}
TAP_KEY_THRESHOLD = 0.05  # detector heat a key point needs to be named by a tap


class TaughtCardClassifier:
    """A `PieceClassifier` stand-in: the card model's own prediction, re-decided with a
    profile's card part (the embedding is passed through)."""

    def __init__(self, base, profile: teach.Profile, game: str):
        self.base, self.profile, self.game = base, profile, game
        self.classes, self.crop, self.metadata = base.classes, base.crop, base.metadata
        tg = teach.teachable(game)
        self.labels = tg.card_labels
        self.groups = tg.units(tg.card_labels)

    def index(self, label: str) -> int:
        return self.base.index(label)

    def predict(self, crops_bgr: np.ndarray) -> Prediction:
        pred = self.base.predict(crops_bgr)
        if len(crops_bgr) == 0:
            return pred
        probs = teach.teach_probs(self.profile, self.base, self.labels, pred.probs,
                                  pred.embedding, crops_bgr, self.groups, keep_mass=True)
        return Prediction(probs=probs, embedding=pred.embedding)


def with_classifier(reader, classifier):
    """A shallow copy of a `CardReader` classifying with `classifier` (the shared reader is
    left as it is: safe across threads)."""
    out = copy.copy(reader)
    out.classifier = classifier
    return out


def taught_reader(reader, profile: teach.Profile | None, game: str):
    """The reader whose final classification is re-decided with the profile's card part
    (the width search, which picks each piece's size by the model's background probability
    where the reader has one, stays untaught), or the reader itself when there is no card
    part."""
    part = None if profile is None else profile.card_part
    if part is None or not part.labels:
        return reader
    out = with_classifier(reader, TaughtCardClassifier(reader.classifier, part, game))
    if hasattr(reader, "search_widths"):  # the poses stay the untaught reader's (the same
        out.search_widths = reader.search_widths  # crops as teaching saw; and faster)
    return out


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
    try:
        if taps is not None and settings.tap_neighbours > 0:
            pieces = tapped_pieces(reader, image, game, area, taps, photo.scale, settings,
                                   name)
            chosen = [(p, lab, f"{name}@{x:.0f},{y:.0f}")
                      for p, (x, y, lab) in zip(pieces, taps, strict=True)]
        else:
            chosen = _reader_examples(reader, image, game, area, label, taps, photo.scale,
                                      name, tg, settings)
    except TablescoreError as exc:
        if isinstance(exc, teach.TeachError):
            raise
        raise teach.TeachError(f"{name}: {exc.message}") from None
    crops = _card_crops(reader, image, game, [p for p, _, _ in chosen])
    pred = reader.classifier.predict(crops)
    colours = teach.piece_colour(crops, settings)
    return [teach.Example(lab, src, pred.embedding[k].astype(np.float32), colours[k], "cards")
            for k, (_, lab, src) in enumerate(chosen)]


def _reader_examples(reader, image, game, area, label, taps, scale, name, tg, settings):
    """[(piece, label, source)] from the reader's own pieces (a whole `read_pieces` pass:
    their crops are exactly the ones scoring sees); a tap on a piece the reader drops names
    the nearest key point (`_every_key_point`)."""
    found, _ = reader.read_pieces(image, game, area)
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
                  settings: teach.TeachSettings, name: str) -> list[CardPiece]:
    """The piece under each tap, posed as the reader poses its key points
    (`CardReader.pose_key_points`: width search, `refine_poses`) but only over the tapped
    key points and their `tap_neighbours` nearest key points (the width field and the
    shared directions are local; the reader's width search over every key point of a
    crowded teach photo is most of its time). The detector runs once; a tap on no key point
    of the reader's heat bar names a weaker one (down to `TAP_KEY_THRESHOLD`), posed like
    its nearest posed neighbour, as `_every_key_point` does."""
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
    out = []
    for (x, y, _), t in zip(taps, taps_px, strict=True):
        p = _at_tap(kept, x, y, scale, settings.tap_radius)
        if p is None and len(weak) and posed:  # a weak key point: its nearest piece's pose
            dw = np.hypot(*(kp.xy[weak] - t).T)
            i = weak[int(np.argmin(dw))]
            r = int(np.argmin([np.hypot(*(q.center - kp.xy[i])) for q in posed]))
            ang, wid = posed[r].angle, posed[r].width
            cand = CardPiece(NEUTRAL_LABEL[game], float(kp.score[i]), kp.xy[i].copy(),
                             frame_from_pose(kp.xy[i], ang, wid, SPECS[game]), ang, wid)
            p = _at_tap([cand], x, y, scale, settings.tap_radius)
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
