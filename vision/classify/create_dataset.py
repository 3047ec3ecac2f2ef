"""Build the classifier's training crops from freshly rendered synthetic scenes.

Each scene goes through the pipeline's own stages (load -> segment -> crops, exactly as at
inference, on the scene's true play area), every candidate is matched to the ground truth (a
true piece within half its size: its label, else `background`), and every true piece also
gets a crop at its true centre with a jittered size and angle (so pieces the segmenter misses
still teach the model). Only
edition 1 is used: edition 2 stays unseen for the generalisation test. Seeds start far from
the committed scenes' seeds.

    python -m vision.classify.create_dataset --scenes 1500 --out build/crops.npz
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from tablescore.errors import TablescoreError
from vision.area import AREA_SETTINGS, area_from_corners
from vision.classify.settings import BACKGROUND, GAME_CLASSES, all_classes
from vision.evaluate import match
from vision.image_io import load_photo
from vision.pipeline import VISION_GAMES
from vision.preprocess import CropSettings, extract_crops
from vision.segment import (
    MARBLE_SETTINGS,
    TILE_SETTINGS,
    find_tiles,
    marble_candidates,
)

SEED_BASE = 1_000_000  # far from the seeds of the committed scenes


def progress(done: int, total: int, started: float, what: str) -> None:
    frac = done / max(total, 1)
    bar = "#" * int(30 * frac)
    el = time.perf_counter() - started
    eta = el / max(frac, 1e-9) - el
    print(f"\r{what} [{bar:30s}] {done}/{total} {el:5.0f}s eta {eta:5.0f}s", end="",
          file=sys.stderr, flush=True)
    if done >= total:
        print(file=sys.stderr)


def scene_crops(game: str, image_bgr: np.ndarray, truth: dict, crop: CropSettings,
                rng: np.random.Generator):
    """(crops (N, S, S, 3) uint8 BGR, labels list[str]) for one rendered scene."""
    _, buf = cv2.imencode(".jpg", image_bgr, [cv2.IMWRITE_JPEG_QUALITY, 92])
    photo = load_photo(buf.tobytes())
    # The true play area (the area stage is measured on its own): candidates as the
    # segmenter finds them on it.
    area = area_from_corners(np.array(truth["area"]) / photo.scale, AREA_SETTINGS[game])
    gv = VISION_GAMES[game]
    if gv.kind == "tiles":
        cand = find_tiles(photo.image, area, TILE_SETTINGS)
        size = TILE_SETTINGS.size_mm * area.settings.px_per_mm
    else:  # (the image scoring reads marbles on: a dim photo brought up)
        photo, cand = marble_candidates(photo, area, MARBLE_SETTINGS)
        size = MARBLE_SETTINGS.size_mm * area.settings.px_per_mm
    truth_pieces = [p for p in truth["pieces"] if p["label"] in gv.labels]
    pred = [{"center": list(c * photo.scale)} for c in area.to_image(cand.centers)] \
        if len(cand) else []
    labels = [BACKGROUND] * len(cand)
    for i, j in match(pred, truth_pieces):
        if i is not None and j is not None:
            labels[i] = truth_pieces[j]["label"]
    crops = [extract_crops(photo.image, area.H_plane_to_img, cand.centers, cand.sides,
                           cand.angles, crop)] if len(cand) else []
    # True pieces at their true centre, jittered like a segmenter's box.
    if truth_pieces:
        tc = np.array([p["center"] for p in truth_pieces], float) / photo.scale
        centers = area.to_plane(tc)
        n = len(centers)
        centers += rng.normal(0, 0.06 * size, (n, 2))
        sides = size * rng.uniform(0.85, 1.15, n)
        angles = rng.uniform(0, 360, n)
        crops.append(extract_crops(photo.image, area.H_plane_to_img, centers, sides, angles,
                                   crop))
        labels += [p["label"] for p in truth_pieces]
    out = np.concatenate(crops) if crops else np.zeros((0, crop.size, crop.size, 3), np.uint8)
    return out, labels


def build(games, n_scenes: int, seed: int, crop: CropSettings, show: bool = True):
    from vision.synth import render_scene

    rng = np.random.default_rng(seed)
    all_crops, all_labels, scene_ids = [], [], []
    skipped = 0
    started = time.perf_counter()
    total = n_scenes * len(games)
    done = 0
    for g in games:
        for k in range(n_scenes):
            s = SEED_BASE + seed * 100_000 + k
            img, truth = render_scene(g, s, edition=1)
            try:
                crops, labels = scene_crops(g, img, truth, crop, rng)
            except TablescoreError:
                skipped += 1
                crops, labels = np.zeros((0, crop.size, crop.size, 3), np.uint8), []
            all_crops.append(crops)
            all_labels += labels
            scene_ids += [done] * len(labels)
            done += 1
            if show and (done % 10 == 0 or done == total):
                progress(done, total, started, "scenes")
    crops = np.concatenate(all_crops)
    return crops, np.array(all_labels), np.array(scene_ids), skipped


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenes", type=int, default=1200, help="scenes per game")
    ap.add_argument("--games", default=",".join(GAME_CLASSES))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="build/crops.npz")
    args = ap.parse_args(argv)
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    crops, labels, scenes, skipped = build(games, args.scenes, args.seed, CropSettings())
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, crops=crops, labels=labels, scenes=scenes,
                        classes=np.array(all_classes(games)))
    counts = {c: int((labels == c).sum()) for c in all_classes(games)}
    print(f"{len(crops)} crops from {args.scenes * len(games)} scenes ({skipped} skipped: no "
          f"area found) -> {args.out}\n{counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
