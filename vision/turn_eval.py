"""Turned-photo stress evaluation: the pipeline on a scene folder whose photos are turned by
quarter turns, as a phone held sideways takes them or as a photo whose EXIF orientation was
lost arrives (the renderer's camera is never rolled: its tilt always shortens the photo's
height, and the far side of the table is always at the top).

    python -m vision.turn_eval --game troetofanten [--game ...] [--scenes DIR] \
        [--turns 0,1,2,3] [--limit N] [--json]

Turn k is `np.rot90(photo, k)` (k quarter turns counter-clockwise on screen). The truths are
turned with the photos (`turned_truth`): piece centres, outlines and the play area, and the
side zones of Troetofanten and Hop la bille (`north` is the photo's top edge: a quarter turn
moves the top side to the left, so `north` becomes `west`). Turn 0 is the same copy
unturned (the JPEG written again at the same quality), the baseline of the others. Measured
as `vision.light_eval` measures a light (Mauerhuepfer: `vision.mauer_eval`)."""

from __future__ import annotations

import json
import shutil
from functools import partial
from pathlib import Path

import cv2
import numpy as np

from vision.light_eval import GAMES, print_result, run_copies, stress_arguments

SIDES = ("north", "west", "south", "east")  # a quarter turn moves each to the next
SIDE_ZONE_GAMES = ("troetofanten", "hop-la-bille")  # zones named by the photo's sides
JPEG_QUALITY = 95


def turned_point(xy, k: int, width: int, height: int) -> list[float]:
    """Pixel (x, y) of a `width` x `height` photo after `np.rot90(photo, k)`: each quarter
    turn takes (x, y) to (y, w - 1 - x), w the width before that turn."""
    x, y = float(xy[0]), float(xy[1])
    w, h = width, height
    for _ in range(k % 4):
        x, y, w, h = y, w - 1 - x, h, w
    return [round(x, 1), round(y, 1)]


def turned_zone(zone: str, k: int) -> str:
    """A side zone after k quarter turns (`north` -> `west` -> `south` -> `east`); other
    zones (`middle`, `arena`, `line`, ...) stay."""
    if zone not in SIDES:
        return zone
    return SIDES[(SIDES.index(zone) + k) % 4]


def turned_truth(truth: dict, k: int) -> dict:
    """A scene's truth JSON for its photo turned k quarter turns: sizes swapped on odd turns,
    every point turned, side zones renamed (in the pieces and in the facts keyed by zone)."""
    w, h = int(truth["image"]["width"]), int(truth["image"]["height"])
    out = json.loads(json.dumps(truth))  # (a deep copy)
    if k % 2:
        out["image"] = dict(out["image"], width=h, height=w)
    if out.get("area"):
        out["area"] = [turned_point(p, k, w, h) for p in out["area"]]
    side_zones = truth.get("game") in SIDE_ZONE_GAMES
    for p in out.get("pieces", []):
        p["center"] = turned_point(p["center"], k, w, h)
        if p.get("polygon"):
            p["polygon"] = [turned_point(q, k, w, h) for q in p["polygon"]]
        if side_zones:
            p["zone"] = turned_zone(p["zone"], k)
    facts = out.get("facts", {})
    if side_zones:
        for key in ("zones", "cards"):
            if isinstance(facts.get(key), dict):
                facts[key] = {turned_zone(z, k): v for z, v in facts[key].items()}
    return out


def turned_scenes(scenes: str | Path, out: Path, k: int, limit: int | None = None) -> Path:
    """A copy of a scene folder (the first `limit` scenes) turned k quarter turns; `out` is
    emptied first."""
    from vision.evaluate import scene_files

    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    for img, truth in scene_files(scenes)[:limit]:
        photo = np.ascontiguousarray(np.rot90(cv2.imread(str(img)), k))
        cv2.imwrite(str(out / (img.stem + ".jpg")), photo,
                    [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        (out / (img.stem + ".json")).write_text(
            json.dumps(turned_truth(json.loads(truth.read_text()), k)))
    return out


def run(games, scenes: str | None, turns, limit: int | None, keep: str | None = None) -> dict:
    return run_copies(games, scenes, {
        f"turn {k}": partial(turned_scenes, k=k, limit=limit) for k in turns}, keep)


def main(argv=None) -> int:
    ap = stress_arguments(__doc__, "DIR/<game>/turnK/")
    ap.add_argument("--turns", default="0,1,2,3",
                    help="comma-separated quarter turns, each 0-3 (default 0,1,2,3)")
    args = ap.parse_args(argv)
    try:
        turns = [int(t) for t in args.turns.split(",") if t.strip()]
    except ValueError:
        turns = []
    if not turns or any(t not in range(4) for t in turns):
        ap.error(f"--turns must be integers 0-3, not {args.turns!r}")
    print_result(run(args.game or GAMES, args.scenes, turns, args.limit, args.keep), args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
