"""Score the pipeline against scenes with ground truth (`datasets/scenes/<game>/*.jpg + .json`).

A predicted piece is right when a true piece of the same label and zone lies within half a
piece's size of it (pieces are matched one to one, nearest first). Per class: precision =
right predictions / predictions, recall = right / true pieces. Per-piece error = (true pieces
not found right + predictions matching no true piece) / true pieces. A scene's facts are right
when they equal the truth's exactly (zero counts ignored; Hop la bille: the marble `zones`
and the `cards`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from tablescore.errors import BadInput, TablescoreError
from vision.pipeline import Pipeline, game_vision

NONE = "(none)"
BLUR_CLASSES = ("sharp", "defocus <= 1 px", "defocus > 1 px", "motion")


def photo_blur(truth: dict) -> str | None:
    """The blur a rendered scene's photo was given (`truth["photo"]`, written by
    `vision.synth.camera.finish_photo`): one of BLUR_CLASSES, None for a truth without it."""
    ph = truth.get("photo")
    if not isinstance(ph, dict):
        return None
    if ph.get("motion_px", 0):
        return "motion"
    sigma = float(ph.get("defocus_sigma", 0.0))
    return "sharp" if sigma <= 0 else BLUR_CLASSES[1] if sigma <= 1.0 else BLUR_CLASSES[2]


def blur_lines(report: dict) -> str:
    """An evaluation report's split by the photos' blur (`by_photo_blur`), a line each."""
    def error(v: dict) -> str:
        return "n/a" if v["piece_error"] is None else f"{100 * v['piece_error']:.2f} %"

    return "".join(f"\n  photos {name:16s} {v['scenes']:3d} scenes, {v['facts_exact_count']} "
                   f"exact, per-piece error {error(v)}"
                   for name, v in report.get("by_photo_blur", {}).items())


@dataclass
class BlurTable:
    """Scenes, exact scenes, true pieces and wrong pieces (missed, misread or extra) by the
    blur the photos were rendered with (`photo_blur`)."""

    rows: dict = field(default_factory=dict)  # class -> [scenes, exact, true, wrong]

    def add(self, blur: str | None, exact: bool, n_true: int, wrong: int) -> None:
        if blur is not None:
            row = self.rows.setdefault(blur, [0, 0, 0, 0])
            for k, v in enumerate((1, int(exact), n_true, wrong)):
                row[k] += v

    def to_json(self) -> dict:
        return {name: {"scenes": n, "facts_exact_count": exact, "pieces_true": true,
                       "piece_error": round(wrong / true, 5) if true else None}
                for name in BLUR_CLASSES if name in self.rows
                for n, exact, true, wrong in [self.rows[name]]}


def _clean_counts(m: dict) -> dict:
    return {k: v for k, v in sorted(m.items()) if v}


def comparable_facts(game: str, facts: dict) -> dict:
    """The part of the facts this issue reads, normalised (zero counts and empty zones out)."""
    if game == "hop-la-bille":
        zones = facts.get("zones", {})
        cards = {z: c for z, c in sorted(facts.get("cards", {}).items()) if c}
        return {"zones": {z: _clean_counts(c) for z, c in sorted(zones.items())
                          if _clean_counts(c)}, "cards": cards}
    if game == "troetofanten":
        zones = facts.get("zones", {})
        return {z: _clean_counts(c) for z, c in sorted(zones.items()) if _clean_counts(c)}
    if game == "magic-rabbit":
        return {"line": facts.get("line", []), "won": facts.get("won")}
    return {z: _clean_counts(facts.get(z, {})) for z in ("arena", "outside")}


def piece_size(p: dict) -> float:
    """A true piece's size in image pixels: polygon side or diameter."""
    if p.get("polygon"):
        q = np.asarray(p["polygon"], float)
        return float(np.mean(np.hypot(*(np.roll(q, -1, 0) - q).T)))
    if p.get("radius"):
        return 2.0 * float(p["radius"])
    return 0.0


def one_to_one(pairs) -> list[tuple[int, int]]:
    """(i, j) of the tuples `pairs` (..., i, j), taken in their order (sorted: nearest
    first), each i and each j at most once."""
    used_i, used_j, out = set(), set(), []
    for *_, i, j in pairs:
        if i not in used_i and j not in used_j:
            used_i.add(i)
            used_j.add(j)
            out.append((i, j))
    return out


def match(pred: list[dict], truth: list[dict]) -> list[tuple[int | None, int | None]]:
    """One-to-one pairs (pred index or None, truth index or None), a pair only within half
    the true piece's size: pairs of the same label first (a piece is right when a true piece
    of its label lies there, even where another piece lies nearer: a dove on a hat), then
    the rest, each nearest first. A prediction without a label (a bare candidate, as the
    classifier's dataset builder has) pairs by distance alone."""
    pairs = []
    for i, p in enumerate(pred):
        for j, t in enumerate(truth):
            d = float(np.hypot(p["center"][0] - t["center"][0], p["center"][1] - t["center"][1]))
            if d <= 0.5 * piece_size(t):
                pairs.append((p.get("label") != t["label"], d, i, j))
    out = one_to_one(sorted(pairs))
    used_p, used_t = {i for i, _ in out}, {j for _, j in out}
    out += [(i, None) for i in range(len(pred)) if i not in used_p]
    out += [(None, j) for j in range(len(truth)) if j not in used_t]
    return out


@dataclass
class Report:
    game: str
    labels: tuple[str, ...]
    scenes: int = 0
    facts_right: int = 0
    n_true: int = 0
    n_pred: int = 0
    right: int = 0
    extra: int = 0
    zone_wrong: int = 0
    failed: list[str] = field(default_factory=list)
    wrong_scenes: list[str] = field(default_factory=list)
    confusion: dict = field(default_factory=dict)  # (true or NONE, pred or NONE) -> count
    times_ms: list[float] = field(default_factory=list)
    by_blur: BlurTable = field(default_factory=BlurTable)

    def add(self, name: str, pred: list[dict], truth: list[dict], facts_ok: bool,
            blur: str | None = None) -> None:
        wrong_before = self.n_true - self.right + self.extra
        self.scenes += 1
        self.facts_right += int(facts_ok)
        if not facts_ok:
            self.wrong_scenes.append(name)
        self.n_true += len(truth)
        self.n_pred += len(pred)
        for i, j in match(pred, truth):
            tl = truth[j]["label"] if j is not None else NONE
            pl = pred[i]["label"] if i is not None else NONE
            self.confusion[(tl, pl)] = self.confusion.get((tl, pl), 0) + 1
            if i is not None and j is not None:
                if tl == pl and pred[i]["zone"] == truth[j]["zone"]:
                    self.right += 1
                elif tl == pl:
                    self.zone_wrong += 1
            elif j is None:
                self.extra += 1
        self.by_blur.add(blur, facts_ok, len(truth),
                         self.n_true - self.right + self.extra - wrong_before)

    def per_class(self) -> dict:
        out = {}
        for lab in self.labels:
            tp = self.confusion.get((lab, lab), 0)
            n_pred = sum(v for (_, p), v in self.confusion.items() if p == lab)
            n_true = sum(v for (t, _), v in self.confusion.items() if t == lab)
            out[lab] = {
                "true": n_true,
                "predicted": n_pred,
                # label right; zone errors are reported separately (and count in `error`)
                "precision": round(tp / n_pred, 4) if n_pred else None,
                "recall": round(tp / n_true, 4) if n_true else None,
            }
        return out

    def to_json(self) -> dict:
        names = list(self.labels) + [NONE]
        matrix = [[self.confusion.get((t, p), 0) for p in names] for t in names]
        wrong = (self.n_true - self.right) + self.extra
        times = np.asarray(self.times_ms) if self.times_ms else np.zeros(1)
        return {
            "game": self.game,
            "scenes": self.scenes,
            "facts_exact": round(self.facts_right / self.scenes, 4) if self.scenes else None,
            "facts_exact_count": self.facts_right,
            "pieces_true": self.n_true,
            "pieces_predicted": self.n_pred,
            "pieces_right": self.right,
            "piece_error": round(wrong / self.n_true, 5) if self.n_true else None,
            "extra_pieces": self.extra,
            "zone_errors": self.zone_wrong,
            "per_class": self.per_class(),
            "confusion": {"labels": names, "rows_true_cols_predicted": matrix},
            "failed_scenes": self.failed,
            "wrong_facts_scenes": self.wrong_scenes,
            "median_ms": round(float(np.median(times)), 1),
            **({"by_photo_blur": self.by_blur.to_json()} if self.by_blur.rows else {}),
        }


def confusion_png(report: dict, path: str | Path) -> None:
    """Draw the confusion matrix (rows true, columns predicted) as a PNG with OpenCV."""
    names = report["confusion"]["labels"]
    m = np.asarray(report["confusion"]["rows_true_cols_predicted"], float)
    n = len(names)
    cell, left, top = 44, 150, 150
    img = np.full((top + n * cell + 20, left + n * cell + 20, 3), 255, np.uint8)
    rown = m / np.maximum(m.sum(axis=1, keepdims=True), 1)
    font = cv2.FONT_HERSHEY_SIMPLEX
    for i in range(n):
        for j in range(n):
            x, y = left + j * cell, top + i * cell
            v = rown[i, j]
            col = (255, int(255 * (1 - v)), int(255 * (1 - v))) if i == j else \
                (int(255 * (1 - v)), int(255 * (1 - v)), 255)
            cv2.rectangle(img, (x, y), (x + cell, y + cell), col, -1)
            cv2.rectangle(img, (x, y), (x + cell, y + cell), (180, 180, 180), 1)
            if m[i, j]:
                cv2.putText(img, str(int(m[i, j])), (x + 4, y + 27), font, 0.42, (0, 0, 0), 1,
                            cv2.LINE_AA)
        cv2.putText(img, names[i], (4, top + i * cell + 27), font, 0.42, (0, 0, 0), 1,
                    cv2.LINE_AA)
        # Column names written vertically: draw on a strip and rotate it.
        strip = np.full((cell, top - 10, 3), 255, np.uint8)
        cv2.putText(strip, names[i], (4, 27), font, 0.42, (0, 0, 0), 1, cv2.LINE_AA)
        strip = cv2.rotate(strip, cv2.ROTATE_90_COUNTERCLOCKWISE)
        img[0 : top - 10, left + i * cell : left + (i + 1) * cell] = strip
    cv2.putText(img, "true \\ predicted", (4, 20), font, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
    if not cv2.imwrite(str(path), img):
        raise BadInput(f"cannot write the confusion matrix PNG to {path}")


def scene_files(folder: str | Path) -> list[tuple[Path, Path]]:
    folder = Path(folder)
    if not folder.is_dir():
        raise BadInput(f"scene folder not found: {folder}")
    out = []
    for img in sorted(folder.iterdir()):
        if img.suffix.lower() in (".jpg", ".jpeg", ".png"):
            truth = img.with_suffix(".json")
            if truth.is_file():
                out.append((img, truth))
    if not out:
        raise BadInput(f"no scenes (photo + .json truth) in {folder}")
    return out


def evaluate_scenes(game: str, files: list[tuple[Path, Path]], labels: tuple[str, ...],
                    read, comparable, progress: bool = False) -> Report:
    """The report over scenes `files` ((photo, truth JSON) pairs): `read(photo path) ->
    (predicted pieces as contract dicts, facts)`, `comparable(facts)` the part of the facts
    compared with the truth's. A photo the reader refuses (a named error) counts as nothing
    found."""
    import sys
    import time

    report = Report(game=game, labels=labels)
    for k, (img, truth_path) in enumerate(files):
        truth = json.loads(truth_path.read_text())
        if truth.get("game", game) != game:
            raise BadInput(f"{truth_path} is a {truth.get('game')} scene, not {game}")
        true_pieces = [p for p in truth["pieces"] if p["label"] in labels]
        t0 = time.perf_counter()
        try:
            pred, facts = read(img)
        except TablescoreError as exc:
            report.failed.append(f"{img.name}: {exc.message}")
            pred, facts = [], {}
        report.times_ms.append((time.perf_counter() - t0) * 1000)
        report.add(img.name, pred, true_pieces, comparable(facts) == comparable(truth["facts"]),
                   photo_blur(truth))
        if progress:
            print(f"\r{k + 1}/{len(files)} scenes", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    return report


def evaluate_folder(game: str, folder: str | Path, pipeline: Pipeline | None = None,
                    progress: bool = False) -> Report:
    from vision.pipeline import get_pipeline

    gv = game_vision(game)
    pipeline = pipeline or get_pipeline()

    def read(img):
        rec = pipeline.recognise(img, game)
        return rec.detections.to_json(), rec.facts

    return evaluate_scenes(game, scene_files(folder), gv.labels + gv.card_labels, read,
                           lambda facts: comparable_facts(game, facts), progress)
