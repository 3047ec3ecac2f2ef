"""The corner-index model's number accuracy at the TRUE card pose: every elephant and
tootophant of scenes with ground truth (its index cropped from the truth's polygon, the box
from the model's metadata as the reader does), so the figure measures the model alone, not
the detector's pose.

    python -m vision.cards.index_eval datasets/scenes/troetofanten /tmp/dev95/troetofanten \
        --model models/cards-index.onnx --model /tmp/old.onnx [--sheet /tmp/wrong.png]

Prints per model and folder: wrong / animals, per true number, and the confusions, how
many animals' digits are blurred past reading (`read.index_sharpness` under
`legible_sharpness`: no person reads them either) and how many of those the model misreads,
and wrong / animals by the blur the renderer gave each photo (`vision.evaluate.photo_blur`:
sharp, defocus <= 1 px, defocus > 1 px, motion; `unknown` for a truth without it) and by
the card's width in the photo (`width_class`).

    python -m vision.cards.index_eval datasets/scenes/troetofanten --poses

`--poses` instead measures the reader's pose error where it reads the number: every frame
`CardReader.troeto_numbers` is given while `read_pieces` reads the photo (weak candidates and
readings dropped later included; the second look's in the photo's pixels), paired one-to-one
with the true animals, nearest key points first, within 0.2 card widths (the index model's
training jitter, `vision.cards.dataset.SampleSettings`, should cover these errors).

    python -m vision.cards.index_eval datasets/scenes/troetofanten --causes

`--causes` sorts the numbers the reader reads (`stage.read_balanced`, as scoring reads) by
where a wrong one comes from (`number_cause`): each animal read at the right kind, paired
with a true animal by key point (`pair_by_key`), read by the index model once at the TRUE
outline and once at the reader's number frame (the piece's key point and width, turned to
the card's edges as `read_pieces` turns the number's crop, `edge_angles`; one crop, on the
image the kept reading was read on): "model" (the true outline misreads it too: only the
model, or a sharper photo, mends it), "frame" (right at the true outline, wrong at the
frame: the pose), "elsewhere" (right at both: `number_jitter`'s average, another look's
crop); and the right ones the true outline misreads ("rescued": a pose error that happened
to help). Each wrong one is listed with its frame's `pose_error` and the number read at
the frame with the true key point, angle or width swapped in. `tables` splits the causes
(`cause_tables`) by the true card's width in the photo, by the blur the renderer gave the
photo (`photo_blur`) and by kind, per folder and over all; `--markdown` prints those
tables as markdown instead of the JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from tablescore.errors import BadInput, TablescoreError
from vision.cards.dataset import index_label
from vision.cards.geometry import (
    SPECS,
    CardCropSettings,
    KeySpec,
    crop_card,
    frame_from_pose,
    pose_from_frame,
)
from vision.cards.read import READ, index_sharpness, index_spec, model_crop_settings
from vision.classify.model import Prediction
from vision.evaluate import BLUR_CLASSES, one_to_one, photo_blur, scene_files
from vision.image_io import load_photo


def animals(folder: Path, min_visible: float = 0.0):
    """(photo path, polygons (N, 4, 2), true labels) of every scene with animals."""
    for jpg, truth_path in scene_files(folder):
        truth = json.loads(truth_path.read_text())
        cards = [q for q in truth["pieces"] if q.get("polygon")
                 and q["label"].split("-")[0] in ("elephant", "tootophant")
                 and q.get("visible", 1.0) >= min_visible]
        if cards:
            yield (jpg, np.array([q["polygon"] for q in cards], float),
                   [q["label"] for q in cards])


WIDTH_CLASSES = (45.0, 60.0, 80.0)  # px: the card widths `width_class` splits at (session
#   16: at the true outline, cards under 60 px wide held 119 of the 140 misreads of eight
#   fresh sets, 2834 animals; docs/cards.md)


def width_class(width_px: float, edges: tuple[float, ...] = WIDTH_CLASSES) -> str:
    """The card-width bin (a card's TL -> TR length in the photo, px) an animal falls in,
    e.g. "45-60 px"; "under 45 px" and "80 px and over" at the ends."""
    w = float(width_px)
    if not np.isfinite(w) or w < edges[0]:
        return f"under {edges[0]:g} px"
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        if w < hi:
            return f"{lo:g}-{hi:g} px"
    return f"{edges[-1]:g} px and over"


def by_width(animals: Counter, wrong: Counter) -> dict[str, str]:
    """{width class: "wrong/animals"} in the classes' order (narrowest first)."""
    order = [width_class(e - 0.5) for e in WIDTH_CLASSES] + [width_class(WIDTH_CLASSES[-1])]
    return {b: f"{wrong[b]}/{animals[b]}" for b in order if animals[b]}


def read_numbers(model, spec: KeySpec, cs: CardCropSettings, image: np.ndarray,
                 polygons: np.ndarray):
    """(probs (N, C), crops) of the index model (its `index_spec` box, its
    `model_crop_settings`) at the given card outlines."""
    crops = np.stack([crop_card(image, f, spec, cs) for f in polygons])
    return model.predict(crops).probs, crops


def pose_error(truth_frame, frame, spec: KeySpec) -> tuple[float, float, float, float]:
    """`frame`'s pose error against the true `truth_frame` (both (4, 2) TL, TR, BR, BL): the
    key point's offset along the card's u and v axes in card widths, the angle error in
    degrees (-180..180) and the width ratio."""
    k, a, w = pose_from_frame(truth_frame, spec)
    k2, a2, w2 = pose_from_frame(frame, spec)
    t = np.deg2rad(a)
    off = k2 - k
    du = float(off @ [np.cos(t), np.sin(t)]) / w
    dv = float(off @ [-np.sin(t), np.cos(t)]) / w
    return du, dv, float((a2 - a + 180) % 360 - 180), w2 / w


def reader_poses(folders, reach: float = 0.2, min_visible: float = 0.0) -> np.ndarray:
    """(N, 4) rows (du, dv, angle error, width ratio: `pose_error`) of every true animal the
    reader read a number for (`pose_error` at the frame read nearest its key point):
    frames and animals paired one-to-one by key point (`pair_by_key`), nearest first, within
    `reach` true widths (a fan neighbour's key point lies ~0.3 widths away; 90 % of the
    reader's own within 0.032; 0.2 and 0.3 give the same rows on the committed scenes)."""
    from vision.cards.read import CardReader

    spec = SPECS["troetofanten"]
    reader = CardReader()
    seen: list[np.ndarray] = []
    orig = reader.troeto_numbers

    photo_w = [1]  # the photo's width: `second_look` reads a half- (or quarter-) size copy
    #   with a shallow copy of the reader, which keeps this recording
    scales = (1.0, reader.settings.second_scale or 1.0, (reader.settings.second_scale or 1.0) ** 2)

    def recording(image, frames, probs, labels, rows=None):
        # each frame in the photo's pixels, as `second_look` maps its own pieces back
        #   ((x + 0.5) / f - 0.5, f the scale it resized the photo by); `rows`: the frames
        #   whose numbers are read (`ReadSettings.numbers_of_pieces`)
        f = min(scales, key=lambda g: abs(round(photo_w[0] * g) - image.shape[1]))
        seen.extend((np.asarray(fr, float) + 0.5) / f - 0.5
                    for k, fr in enumerate(frames) if rows is None or rows[k])
        return orig(image, frames, probs, labels, rows)

    reader.troeto_numbers = recording
    rows = []
    for folder in folders:
        for jpg, polys, _labels in animals(Path(folder), min_visible):
            seen.clear()
            img = load_photo(jpg).image
            photo_w[0] = img.shape[1]
            reader.read_pieces(img, "troetofanten")
            if not seen:
                continue
            poses = [pose_from_frame(q, spec) for q in polys]
            rows += [pose_error(polys[i], seen[j], spec) for j, i in pair_by_key(
                [pose_from_frame(f, spec)[0] for f in seen], [k for k, _, _ in poses],
                [w for _, _, w in poses], reach=reach)]
    return np.array(rows, float).reshape(-1, 4)


def pose_summary(rows: np.ndarray) -> dict:
    """Medians, tails and spreads of `reader_poses` rows."""
    if not len(rows):
        return {"animals": 0}
    du, dv, da, wr = rows[:, 0], rows[:, 1], np.abs(rows[:, 2]), rows[:, 3]
    key = np.hypot(du, dv)

    def r(x) -> float:
        return round(float(x), 4)

    return {"animals": len(rows), "key_median": r(np.median(key)),
            "key_p90": r(np.percentile(key, 90)), "du_sd": r(du.std()), "dv_sd": r(dv.std()),
            "angle_median": r(np.median(da)), "angle_p90": r(np.percentile(da, 90)),
            "angle_over_6": r(np.mean(da > 6)), "angle_over_10": r(np.mean(da > 10)),
            "angle_over_15": r(np.mean(da > 15)),
            "width_p10": r(np.percentile(wr, 10)), "width_median": r(np.median(wr)),
            "width_p90": r(np.percentile(wr, 90))}


def number_cause(final_ok: bool, true_ok: bool, frame_ok: bool) -> str:
    """Where the number the reader read for an animal comes from: "right" (read right and
    right at the true outline), "rescued" (read right, but the index model misreads the
    TRUE outline), and for a wrong one "model" (the true outline misreads it too),
    "frame" (right at the true outline, wrong at the reader's number frame: its pose) or
    "elsewhere" (right at both: the pipeline's own steps, e.g. `number_jitter`)."""
    if final_ok:
        return "right" if true_ok else "rescued"
    if not true_ok:
        return "model"
    return "elsewhere" if frame_ok else "frame"


def pair_by_key(pred_keys, true_keys, true_widths, same=None, reach: float = 0.2
                ) -> list[tuple[int, int]]:
    """One-to-one (pred, true) index pairs whose key points ((N, 2), (M, 2) px) lie within
    `reach` x the true card's width (`true_widths` (M,)), nearest first, only where
    `same[i][j]` (the same kind; None: any). By key point, not centre: a piece posed too narrow or
    turned has its centre off, and a fan's centres lie 0.3 widths apart (`evaluate.match`
    then pairs a piece with its neighbour)."""
    pk = np.asarray(pred_keys, float).reshape(-1, 2)
    tk = np.asarray(true_keys, float).reshape(-1, 2)
    pairs = []
    for i in range(len(pk)):
        d = np.hypot(*(tk - pk[i]).T)
        pairs += [(float(d[j]), i, j) for j in range(len(tk))
                  if (same is None or same[i][j]) and d[j] <= reach * float(true_widths[j])]
    return one_to_one(sorted(pairs))


@dataclass(frozen=True)
class CauseTableSettings:
    """How `cause_tables` splits the numbers the reader reads."""

    width_edges: tuple[float, ...] = (40.0, 60.0, 80.0, 120.0)  # px: the true card widths
    #   (`NumberRecord.width_px`) the width table splits at (session 31: the model's misreads
    #   lie on cards under 60 px; the close-ups over 120 px)
    kinds: tuple[str, ...] = ("elephant", "tootophant")  # the kind table's rows, in order


CAUSE_TABLES = CauseTableSettings()
CAUSE_COLUMNS = ("animals", "wrong", "model", "frame", "elsewhere", "rescued",
                 "digit_blurred", "wrong_digit_blurred")  # a table row's counts, in order
#   (`cause_tables`)


@dataclass(frozen=True)
class NumberRecord:
    """One animal the reader read at the right kind, as `number_causes` sorts it."""

    cause: str  # `number_cause`
    width_px: float  # the true card's width in the photo (`pose_from_frame`: the mean of
    #   its top and bottom edges, as the wrong numbers' listing gives it)
    blur: str  # `photo_blur` of the photo's truth ("unknown" without it)
    kind: str  # "elephant" or "tootophant"
    digit_blurred: bool  # its digit at the true outline under `legible_sharpness`


def cause_tables(records, settings: CauseTableSettings = CAUSE_TABLES) -> dict:
    """`NumberRecord`s -> {"by_card_width", "by_photo_blur", "by_kind": {row: {column:
    count}}} (`CAUSE_COLUMNS`: animals; wrong = model + frame + elsewhere; each cause;
    the animals whose digit is blurred past reading, and the wrong ones among them).
    Width rows narrowest first (`width_class` at `settings.width_edges`), blur rows in
    `BLUR_CLASSES`' order, kind rows in `settings.kinds`' order; a row no animal falls in
    is left out, a blur or kind not named is added at the end."""
    edges = settings.width_edges
    width_rows = [width_class(e - 0.5, edges) for e in edges] + [width_class(edges[-1], edges)]
    keys = {"by_card_width": (lambda r: width_class(r.width_px, edges), width_rows),
            "by_photo_blur": (lambda r: r.blur, [*BLUR_CLASSES, "unknown"]),
            "by_kind": (lambda r: r.kind, list(settings.kinds))}
    out = {}
    for name, (key, order) in keys.items():
        rows: dict[str, Counter] = {}
        for r in records:
            c = rows.setdefault(key(r), Counter())
            c["animals"] += 1
            c[r.cause] += 1
            c["wrong"] += r.cause in ("model", "frame", "elsewhere")
            c["digit_blurred"] += bool(r.digit_blurred)
            c["wrong_digit_blurred"] += bool(r.digit_blurred) and r.cause in (
                "model", "frame", "elsewhere")
        names = [b for b in order if b in rows] + sorted(b for b in rows if b not in order)
        out[name] = {b: {col: rows[b][col] for col in CAUSE_COLUMNS} for b in names}
    return out


def cause_markdown(tables: dict, title: str = "") -> str:
    """`cause_tables`' three tables as markdown, one after another (`title` heads each)."""
    lines = []
    for name, rows in tables.items():
        lines += ["", f"{title}{' ' if title else ''}{name.replace('_', ' ')}", "",
                  "| " + " | ".join((name[3:].replace("_", " "), *CAUSE_COLUMNS)) + " |",
                  "|" + "---|" * (len(CAUSE_COLUMNS) + 1)]
        lines += ["| " + " | ".join((b, *(str(v[c]) for c in CAUSE_COLUMNS))) + " |"
                  for b, v in rows.items()]
    return "\n".join(lines[1:])


def reader_number_frames(reader, folder, reach: float = 0.2, min_visible: float = 0.0):
    """Every animal the reader reads at the right kind (`stage.read_balanced`, as scoring
    reads) paired with a true animal by key point (`pair_by_key`): yields (photo path, the
    image read (H, W, 3) uint8 BGR, the read piece, the true polygon (4, 2) px, the true
    label, the reader's number frame (4, 2) px: the piece's key point and width turned to
    the card's edges as `read_pieces` turns the number's crop, `edge_angles`)."""
    from vision.cards.read import TROETO_NUMBERED, edge_angles
    from vision.cards.stage import read_balanced

    spec = SPECS["troetofanten"]
    for jpg, polys, labels in animals(Path(folder), min_visible):
        image, pieces, _ = read_balanced(reader, load_photo(jpg).image, "troetofanten")
        read = [p for p in pieces if p.frame is not None
                and p.label.rpartition("-")[0] in TROETO_NUMBERED]
        poses = [pose_from_frame(q, spec) for q in polys]
        same = [[p.label.rpartition("-")[0] == lab.rpartition("-")[0] for lab in labels]
                for p in read]
        for i, j in pair_by_key([p.key for p in read], [k for k, _, _ in poses],
                                [w for _, _, w in poses], same, reach):
            p = read[i]
            turned = float(edge_angles(image, p.key[None], np.array([p.angle]),
                                       np.array([p.width]), reader.settings)[0])
            yield jpg, image, p, polys[j], labels[j], frame_from_pose(p.key, turned,
                                                                      float(p.width), spec)


def number_causes(folders, reach: float = 0.2, min_visible: float = 0.0,
                  tables: CauseTableSettings = CAUSE_TABLES) -> dict:
    """`number_cause` counts per folder and over all, each wrong number (scene, true ->
    read, its frame's `pose_error`, the numbers read at the true outline, at the frame and
    at the frame with the true key point / angle / width swapped in), and `tables`: the
    causes split by card width, photo blur and kind (`cause_tables`) per folder and over
    all."""
    from vision.cards.read import CardReader

    spec = SPECS["troetofanten"]
    reader = CardReader()
    net = reader.index
    ispec, cs = index_spec(net), model_crop_settings(net)

    def number(image, frame) -> str:
        p, _ = read_numbers(net, ispec, cs, image, np.asarray(frame, float)[None])
        return net.classes[int(np.argmax(p[0]))]

    sharp_cs = replace(cs, size=READ.sharpness_size)
    out: dict = {}
    total: Counter = Counter()
    wrong: list[str] = []
    records: dict[str, list[NumberRecord]] = {}
    blurs: dict[Path, str] = {}
    for folder in folders:
        counts: Counter = Counter()
        kept = records.setdefault(folder, [])
        for jpg, image, p, truth, label, frame in reader_number_frames(reader, folder, reach,
                                                                       min_visible):
            n = index_label(label)
            at_true, at_frame = number(image, truth), number(image, frame)
            cause = number_cause(index_label(p.label) == n, at_true == n, at_frame == n)
            counts[cause] += 1
            if jpg not in blurs:
                blurs[jpg] = photo_blur(json.loads(jpg.with_suffix(".json").read_text())) \
                    or "unknown"
            kind = label.rpartition("-")[0]
            kept.append(NumberRecord(
                cause, pose_from_frame(truth, spec)[2], blurs[jpg], kind,
                index_sharpness(crop_card(image, truth, ispec, sharp_cs), kind)
                < READ.legible_sharpness))
            if cause in ("right", "rescued"):
                continue
            du, dv, da, wr = pose_error(truth, frame, spec)
            tk, ta, tw = pose_from_frame(truth, spec)
            fk, fa, fw = pose_from_frame(frame, spec)
            swaps = [number(image, frame_from_pose(k, a, w, spec))
                     for k, a, w in ((tk, fa, fw), (fk, ta, fw), (fk, fa, tw))]
            wrong.append(f"{Path(folder).name}/{jpg.stem} {label} -> {p.label} "
                         f"({p.confidence:.2f}) {cause}: true outline {at_true}, frame "
                         f"{at_frame} (du {du:+.3f} dv {dv:+.3f} angle {da:+.1f} width "
                         f"x{wr:.2f}; true key / angle / width {'/'.join(swaps)}), "
                         f"card {tw:.0f} px")
        out[folder] = dict(counts)
        total.update(counts)
    out["all"] = dict(total)
    out["wrong"] = wrong
    out["tables"] = {f: cause_tables(r, tables) for f, r in records.items()}
    out["tables"]["all"] = cause_tables([r for rs in records.values() for r in rs], tables)
    return out


def reader_crops(folders, crop: CardCropSettings | None = None, reach: float = 0.2,
                 min_visible: float = 0.0):
    """Training crops cut at the READER's own number frames (`reader_number_frames`: its
    pose errors, its balanced image), labelled with the TRUE number: (crops (N, S, S, 3)
    uint8 BGR, classes (N,) str, photo ids (N,) int, one per photo, for a split by scene).
    The box is the reader's index model's (its metadata, `INDEX_SPEC` for the committed
    one), the side `crop`'s (default: that model's, as the reader crops)."""
    from vision.cards.read import CardReader

    reader = CardReader()
    ispec, cs = index_spec(reader.index), crop or model_crop_settings(reader.index)
    crops, labels, photo = [], [], []
    names: dict[str, int] = {}
    for folder in folders:
        for jpg, image, _p, _truth, label, frame in reader_number_frames(reader, folder, reach,
                                                                         min_visible):
            crops.append(crop_card(image, frame, ispec, cs))
            labels.append(index_label(label))
            photo.append(names.setdefault(str(jpg), len(names)))
    side = cs.size
    return (np.stack(crops) if crops else np.zeros((0, side, side, 3), np.uint8),
            np.array(labels, dtype=str), np.array(photo, np.int64))


def sheet(items, path: str, side: int = 112) -> None:
    """A contact sheet of (crop, caption) at `side` px (nearest-neighbour up-scaling)."""
    cols = 10
    rows = max(1, -(-len(items) // cols))
    out = np.full((rows * (side + 18), cols * side, 3), 255, np.uint8)
    for i, (crop, text) in enumerate(items):
        r, c = divmod(i, cols)
        big = cv2.resize(crop, (side, side), interpolation=cv2.INTER_NEAREST)
        out[r * (side + 18): r * (side + 18) + side, c * side: (c + 1) * side] = big
        cv2.putText(out, text, (c * side + 2, r * (side + 18) + side + 13),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 1)
    cv2.imwrite(path, out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--model", action="append", default=None,
                    help="index model(s) to compare (default models/cards-index.onnx; "
                    "not with --poses); A.onnx+B.onnx: the two read as one, P(index) "
                    "averaged (`IndexModels`)")
    ap.add_argument("--below", type=float, default=1.01,
                    help="A+B models: B asked only where A's likeliest share is under this "
                    "(default: every crop)")
    ap.add_argument("--min-visible", type=float, default=0.0,
                    help="only true animals at least this visible (--poses too)")
    ap.add_argument("--sheet", default="",
                    help="contact sheet of the first model's wrong crops (not with --poses)")
    ap.add_argument("--json", action="store_true",
                    help="print JSON (--poses always does)")
    ap.add_argument("--poses", action="store_true",
                    help="the reader's pose error where it reads the number (the reader's own "
                    "models; uses --min-visible only)")
    ap.add_argument("--causes", action="store_true",
                    help="each number the reader reads sorted by where a wrong one comes from: "
                    "the model (wrong at the true outline too), the reader's frame, elsewhere "
                    "(JSON; the reader's own models; uses --min-visible only)")
    ap.add_argument("--markdown", action="store_true",
                    help="with --causes: print its tables (by card width, photo blur, kind; "
                    "per folder and over all) as markdown instead of the JSON")
    ap.add_argument("--reader-crops", default="",
                    help="write the index crops cut at the reader's own number frames, with "
                    "the true numbers, to this .npz (`reader_crops`; the trainer's "
                    "--reader-crops) instead of measuring")
    args = ap.parse_args(argv)
    try:
        return run(args)
    except TablescoreError as exc:
        raise SystemExit(exc.message) from None


class IndexModels:
    """Corner-index models read as one (a `PieceClassifier`'s `predict`, `classes`, `index`,
    `crop`, `metadata`): the first model's P(index) (N, C) float32, averaged with the other
    models' for the crops whose first-model likeliest share is under `below` (over 1: all).
    The models must share the classes, the crop settings and the index box (their
    metadata): one crop serves them all; else `BadInput`. An ensemble tried as the
    reader's second opinion (session 20, H3: not kept, docs/cards.md "A second index
    model"); `--model A.onnx+B.onnx` measures one."""

    def __init__(self, models: list, below: float = 1.01):
        if not models:
            raise BadInput("IndexModels: no corner-index model")
        first = models[0]
        for m in models[1:]:
            if m.classes != first.classes or m.crop != first.crop \
                    or index_spec(m) != index_spec(first):
                raise BadInput("corner-index models disagree on their classes, crop or index "
                               "box (their metadata): one crop cannot serve them all")
        self.models, self.below = list(models), float(below)
        self.classes, self.crop, self.metadata = first.classes, first.crop, first.metadata

    def index(self, label: str) -> int:
        return self.models[0].index(label)

    def predict(self, crops_bgr: np.ndarray) -> Prediction:
        """(N, S, S, 3) uint8 BGR crops -> the first model's `Prediction` with the averaged
        probabilities (its embedding as is)."""
        pred = self.models[0].predict(crops_bgr)
        if len(self.models) == 1 or not len(crops_bgr):
            return pred
        p = pred.probs
        ask = np.flatnonzero(p.max(axis=1) / np.maximum(p.sum(axis=1), 1e-9) < self.below)
        if not len(ask):
            return pred
        out = p.astype(np.float32, copy=True)
        more = [m.predict(crops_bgr[ask]).probs for m in self.models[1:]]
        out[ask] = (p[ask] + sum(more)) / len(self.models)
        return Prediction(out, pred.embedding)


def eval_model(name: str, below: float = 1.01):
    """The model `--model` names: a file, or files joined by "+" read as one (`IndexModels`:
    P(index) averaged, the later ones asked where the first's likeliest share is under
    `below`)."""
    from vision.classify.model import PieceClassifier

    parts = name.split("+")
    if len(parts) == 1:
        return PieceClassifier(name, 2)
    return IndexModels([PieceClassifier(m, 2) for m in parts], below)


def run(args) -> int:
    """`main` after its arguments are read."""
    if args.poses:
        print(json.dumps(pose_summary(reader_poses(args.folders,
                                                   min_visible=args.min_visible)), indent=1))
        return 0
    if args.reader_crops:
        crops, labels, photo = reader_crops(args.folders, min_visible=args.min_visible)
        if not len(crops):
            raise BadInput(f"no animal read in {', '.join(args.folders)}: no reader crops")
        np.savez_compressed(args.reader_crops, crops=crops, labels=labels, photo=photo)
        print(json.dumps({"crops": len(crops), "photos": int(photo.max()) + 1,
                          "per_number": dict(sorted(Counter(labels.tolist()).items())),
                          "out": args.reader_crops}))
        return 0
    if args.causes:
        out = number_causes(args.folders, min_visible=args.min_visible)
        if args.markdown:
            print("\n\n".join(cause_markdown(t, f"{name}:")
                               for name, t in out["tables"].items()))
        else:
            print(json.dumps(out, indent=1))
        return 0
    models = args.model or ["models/cards-index.onnx"]
    nets = [eval_model(m, args.below) for m in models]
    crops_of = [(index_spec(net), model_crop_settings(net)) for net in nets]
    result = {m: {} for m in models}
    blur_totals = {m: (Counter(), Counter()) for m in models}  # animals, wrong by photo blur
    #   over every folder (each folder's `by_blur`, `by_blur_wrong` added)
    width_totals = {m: (Counter(), Counter()) for m in models}  # ... by card width
    wrong_items = []
    for folder in args.folders:
        stats = {m: {"animals": 0, "wrong": 0, "per_number": Counter(), "wrong_number": Counter(),
                     "confusions": Counter(), "blurred": 0, "blurred_wrong": 0,
                     "by_blur": Counter(), "by_blur_wrong": Counter(),
                     "by_width": Counter(), "by_width_wrong": Counter()}
                 for m in models}
        for jpg, polys, labels in animals(Path(folder), args.min_visible):
            img = load_photo(jpg).image
            blur = photo_blur(json.loads(jpg.with_suffix(".json").read_text())) or "unknown"
            nums = [index_label(lab) for lab in labels]
            widths = [width_class(w) for w in np.hypot(*(polys[:, 1] - polys[:, 0]).T)]
            for m, net, (spec, cs) in zip(models, nets, crops_of, strict=True):
                probs, crops = read_numbers(net, spec, cs, img, polys)
                s = stats[m]
                for k, (p, n) in enumerate(zip(probs, nums, strict=True)):
                    got = net.classes[int(np.argmax(p))]
                    s["animals"] += 1
                    s["per_number"][n] += 1
                    s["by_blur"][blur] += 1
                    s["by_blur_wrong"][blur] += got != n
                    s["by_width"][widths[k]] += 1
                    s["by_width_wrong"][widths[k]] += got != n
                    sharp = crops[k] if cs.size == READ.sharpness_size else crop_card(
                        img, polys[k], spec, replace(cs, size=READ.sharpness_size))
                    blurred = index_sharpness(sharp, labels[k].rpartition("-")[0]) \
                        < READ.legible_sharpness  # (a digit no person reads either; measured
                    #   on the reader's `sharpness_size` crop whatever the model's side)
                    s["blurred"] += blurred
                    s["blurred_wrong"] += blurred and got != n
                    if got != n:
                        s["wrong"] += 1
                        s["wrong_number"][n] += 1
                        s["confusions"][f"{labels[k]}->{got}"] += 1
                        if m == models[0] and args.sheet:
                            wrong_items.append((crops[k], f"{labels[k][0]}{n}>{got} "
                                                f"{jpg.stem[-4:]}"))
        for m in models:
            s = stats[m]
            blur_totals[m][0].update(s["by_blur"])
            blur_totals[m][1].update(s["by_blur_wrong"])
            width_totals[m][0].update(s["by_width"])
            width_totals[m][1].update(s["by_width_wrong"])
            result[m][folder] = {"animals": s["animals"], "wrong": s["wrong"],
                                 "accuracy": round(1 - s["wrong"] / max(s["animals"], 1), 4),
                                 "blurred": s["blurred"], "blurred_wrong": s["blurred_wrong"],
                                 "wrong_per_number": {n: f"{s['wrong_number'][n]}/{c}"
                                                      for n, c in sorted(s["per_number"].items())},
                                 "wrong_by_photo_blur": {b: f"{s['by_blur_wrong'][b]}/{c}"
                                                         for b, c in sorted(s["by_blur"].items())},
                                 "wrong_by_card_width": by_width(s["by_width"],
                                                                 s["by_width_wrong"]),
                                 "confusions": dict(s["confusions"].most_common())}
    for m in models:
        tot = sum(r["animals"] for r in result[m].values())
        wr = sum(r["wrong"] for r in result[m].values())
        bl = sum(r["blurred"] for r in result[m].values())
        bw = sum(r["blurred_wrong"] for r in result[m].values())
        n_by, w_by = blur_totals[m]
        result[m]["all"] = {"animals": tot, "wrong": wr,
                            "accuracy": round(1 - wr / max(tot, 1), 4),
                            "blurred": bl, "blurred_wrong": bw,
                            "wrong_by_photo_blur": {b: f"{w_by[b]}/{c}"
                                                    for b, c in sorted(n_by.items())},
                            "wrong_by_card_width": by_width(*width_totals[m])}
    if args.sheet and wrong_items:
        sheet(wrong_items, args.sheet)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        for m in models:
            print(m)
            for f, r in result[m].items():
                print(f"  {f}: {r['wrong']} wrong of {r['animals']} ({r['accuracy']:.4f}); "
                      f"digit blurred {r['blurred']}, {r['blurred_wrong']} of them wrong; "
                      f"by photo blur {r['wrong_by_photo_blur']}; "
                      f"by card width {r['wrong_by_card_width']}"
                      + (f" per number {r['wrong_per_number']} {r['confusions']}"
                         if "confusions" in r else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
