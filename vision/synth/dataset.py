"""Scene folders, labelled piece crops and contact sheets built on `render_scene`.

Scene folder: ``<out_dir>/<name>.jpg`` (JPEG quality `DATASET.jpeg_quality`) plus
``<out_dir>/<name>.json`` holding the truth dict; names are ``<game>-e<edition>-s<seed>-<i>``.
Crops: (crop_bgr (S, S, 3) uint8 BGR, label) squares around each piece, jittered the way a
segmenter's boxes would be.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.synth.render import check_scale, check_table, game_layout_module, render_scene


@dataclass(frozen=True)
class DatasetSettings:
    jpeg_quality: int = 80
    crop_context: float = 0.3  # box side = piece extent * (1 + context)
    crop_centre_jitter: float = 0.10  # of the box side
    crop_scale_jitter: float = 0.15  # +- relative box side


DATASET = DatasetSettings()


def scene_seed(seed: int, index: int) -> int:
    """The render seed of scene `index` in a set drawn with `seed` (sets do not overlap)."""
    return int(np.random.SeedSequence([int(seed) % (1 << 63), index]).generate_state(1)[0])


def scene_name(game: str, edition: int, seed: int, index: int) -> str:
    return f"{game}-e{edition}-s{seed}-{index:04d}"


def write_scenes(game: str, count: int, seed: int, out_dir, edition: int = 1,
                 progress: Callable[[int, int], None] | None = None, scale: float = 1.0,
                 pixel_blur: bool = False, table: str | None = None) -> list[Path]:
    """Render `count` scenes of `game` into `out_dir` (created); returns the JPEG paths.
    `scale`: the photos k x as many pixels per side (`render_scene`; the same scenes),
    `pixel_blur` their blur as drawn in the output's pixels, `table` the same scenes on the
    named table kind (`render.check_table`; test data only, never training).

    Deterministic: the same (game, count, seed, edition, scale, pixel_blur, table) writes
    the same files."""
    game_layout_module(game)
    check_scale(scale)
    check_table(table)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        img, truth = render_scene(game, scene_seed(seed, i), edition, scale, pixel_blur,
                                  table)
        name = scene_name(game, edition, seed, i)
        jpg = out / f"{name}.jpg"
        if not cv2.imwrite(str(jpg), img, [cv2.IMWRITE_JPEG_QUALITY, DATASET.jpeg_quality]):
            raise OSError(f"could not write {jpg}")
        truth["file"] = jpg.name
        (out / f"{name}.json").write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
        paths.append(jpg)
        if progress:
            progress(i + 1, count)
    return paths


def piece_box(piece: dict) -> tuple[float, float, float]:
    """(cx, cy, extent) of a truth piece: extent = the larger side of its bounding box (for a
    standing pawn, of base and head together)."""
    cx, cy = piece["center"]
    if piece.get("polygon"):
        p = np.asarray(piece["polygon"], float)
        ext = float(max(np.ptp(p[:, 0]), np.ptp(p[:, 1])))
    else:
        ext = 2.0 * float(piece["radius"])
    if piece.get("top_center"):  # a standing pawn: cover its base and its head
        tx, ty = piece["top_center"]
        ext += float(max(abs(tx - cx), abs(ty - cy)))
        cx, cy = (cx + tx) / 2, (cy + ty) / 2
    return float(cx), float(cy), ext


def crop_piece(img: np.ndarray, piece: dict, rng: np.random.Generator,
               s: DatasetSettings = DATASET) -> np.ndarray:
    """A jittered square crop (S, S, 3) uint8 BGR around a truth piece; the part outside the
    image is filled by replicating the border."""
    cx, cy, ext = piece_box(piece)
    side = ext * (1 + s.crop_context) * (1 + rng.uniform(-s.crop_scale_jitter,
                                                         s.crop_scale_jitter))
    cx += rng.uniform(-s.crop_centre_jitter, s.crop_centre_jitter) * side
    cy += rng.uniform(-s.crop_centre_jitter, s.crop_centre_jitter) * side
    side = max(4, int(round(side)))
    x0, y0 = int(round(cx - side / 2)), int(round(cy - side / 2))
    h, w = img.shape[:2]
    pad = max(0, -x0, -y0, x0 + side - w, y0 + side - h)
    if pad:
        img = cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
        x0, y0 = x0 + pad, y0 + pad
    return img[y0:y0 + side, x0:x0 + side].copy()


def iter_crops(game: str, n_scenes: int, seed: int, edition: int = 1
               ) -> Iterator[tuple[np.ndarray, str]]:
    """Yield (crop_bgr, label) for every piece of `n_scenes` rendered scenes (raw size; the
    consumer resizes). Deterministic for (game, n_scenes, seed, edition)."""
    for i in range(n_scenes):
        ss = scene_seed(seed, i)
        img, truth = render_scene(game, ss, edition)
        rng = np.random.default_rng([ss, 7])
        for piece in truth["pieces"]:
            yield crop_piece(img, piece, rng), piece["label"]


def export_crops(game: str, n_scenes: int, seed: int, out_dir, edition: int = 1) -> dict:
    """Write iter_crops' crops as ``out_dir/<label>/<n>.png``; returns {label: count}."""
    out = Path(out_dir)
    counts: dict[str, int] = {}
    for crop, label in iter_crops(game, n_scenes, seed, edition):
        n = counts.get(label, 0)
        (out / label).mkdir(parents=True, exist_ok=True)
        if not cv2.imwrite(str(out / label / f"{n}.png"), crop):
            raise OSError(f"could not write {out / label / f'{n}.png'}")
        counts[label] = n + 1
    return counts


def draw_truth(img: np.ndarray, truth: dict) -> np.ndarray:
    """A copy of img with the truth drawn on it: area (cyan, first corner dot), polygons and
    circles (green) and labels."""
    out = img.copy()
    if truth.get("area"):
        a = np.round(np.asarray(truth["area"])).astype(np.int32)
        cv2.polylines(out, [a], True, (255, 255, 0), 2, cv2.LINE_AA)
        cv2.circle(out, tuple(int(v) for v in a[0]), 8, (255, 255, 0), -1)
    for p in truth["pieces"]:
        c = tuple(int(round(v)) for v in p["center"])
        if p["polygon"]:
            poly = np.round(np.asarray(p["polygon"])).astype(np.int32)
            cv2.polylines(out, [poly], True, (0, 255, 0), 2, cv2.LINE_AA)
        else:
            cv2.circle(out, c, int(round(p["radius"])), (0, 255, 0), 2, cv2.LINE_AA)
        cv2.putText(out, f"{p['label']}/{p['zone']}", (c[0] - 30, c[1]),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 3, cv2.LINE_AA)
        cv2.putText(out, f"{p['label']}/{p['zone']}", (c[0] - 30, c[1]),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
    return out


def contact_sheet(game: str, seed: int, path, cols: int = 4, rows: int = 3,
                  cell: tuple[int, int] = (256, 192)) -> Path:
    """A PNG grid of scenes (edition 1, the last row edition 2); the first cell with its truth
    drawn on it."""
    cw, ch = cell
    sheet = np.full((rows * ch, cols * cw, 3), 255, np.uint8)
    for k in range(rows * cols):
        edition = 2 if k >= (rows - 1) * cols else 1
        img, truth = render_scene(game, scene_seed(seed, k), edition)
        if k == 0:
            img = draw_truth(img, truth)
        h, w = img.shape[:2]
        f = min(cw / w, ch / h)
        small = cv2.resize(img, (int(w * f), int(h * f)), interpolation=cv2.INTER_AREA)
        r, c = divmod(k, cols)
        y0 = r * ch + (ch - small.shape[0]) // 2
        x0 = c * cw + (cw - small.shape[1]) // 2
        sheet[y0:y0 + small.shape[0], x0:x0 + small.shape[1]] = small
    cv2.imwrite(str(path), sheet, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    return Path(path)


class ProgressBar:
    """A one-line text progress bar on a stream (stderr by default)."""

    def __init__(self, label: str, stream=None, width: int = 30):
        self.label, self.stream, self.width = label, stream or sys.stderr, width

    def __call__(self, done: int, total: int) -> None:
        n = int(math.floor(self.width * done / max(total, 1)))
        self.stream.write(f"\r{self.label} [{'#' * n}{'.' * (self.width - n)}] {done}/{total}")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()
