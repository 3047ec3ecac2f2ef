"""The play-area stage alone against the truth: for each scene folder (the game is the
folder's name, as `tablescore synth` writes it), the share of photos whose area was found
(a photo that cannot be read counts as not found),
the share whose worst corner lies within 10 px and 5 px of the truth's (photo pixels), the
median worst-corner error and the CPU time of `find_area` per photo.

    python -m vision.area_eval datasets/scenes/simsala-hopp /tmp/dev80/hop-la-bille
    python -m vision.area_eval --harsh datasets/scenes/hop-la-bille   # under a harsh lamp
    python -m vision.area_eval --list DIR                             # every photo's error
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from tablescore.errors import TablescoreError, UnknownGame
from vision.area import AREA_SETTINGS, find_area, order_corners
from vision.errors import AreaNotFound
from vision.image_io import load_photo


def corner_error(found, truth) -> float:
    """The worst corner's distance (px) between two quads, in their best correspondence
    (both ordered by `order_corners`, any rotation)."""
    p = order_corners(np.asarray(found, np.float64))
    t = order_corners(np.asarray(truth, np.float64))
    return float(min(np.hypot(*(np.roll(p, k, axis=0) - t).T).max() for k in range(4)))


def area_errors(folder: Path, harsh: bool = False,
                unread: list[str] | None = None) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(photo names, worst-corner errors (inf: not found), CPU seconds (nan: not read)) of a
    scene folder named after a game. A photo that cannot be read (`tablescore.errors`, e.g.
    `BadImage`) counts as not found; `unread`, if given, gets "name: why" for each."""
    game = folder.name
    if game not in AREA_SETTINGS:
        raise UnknownGame(f"{folder}: the folder's name is not a game ({', '.join(AREA_SETTINGS)})")
    settings = AREA_SETTINGS[game]
    names, errors, cpu = [], [], []
    for truth_file in sorted(folder.glob("*.json")):
        photo_file = truth_file.with_suffix(".jpg")
        if not photo_file.exists():
            continue
        truth = json.loads(truth_file.read_text())
        names.append(truth_file.stem)
        try:
            photo = load_photo(photo_file)
        except TablescoreError as exc:
            errors.append(np.inf)
            cpu.append(np.nan)
            if unread is not None:
                unread.append(f"{truth_file.stem}: {exc.message}")
            continue
        image = photo.image
        if harsh:
            from vision.teach_eval import harsh_light

            image = harsh_light(image)
        t = time.process_time()
        try:
            area = find_area(image, settings, game=game)
            err = corner_error(area.corners * photo.scale, truth["area"])
        except AreaNotFound:
            err = np.inf
        cpu.append(time.process_time() - t)
        errors.append(err)
    return names, np.array(errors), np.array(cpu)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.area_eval", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--harsh", action="store_true", help="under vision.teach_eval.harsh_light")
    ap.add_argument("--list", action="store_true", help="every photo's error")
    args = ap.parse_args(argv)
    for folder in args.folders:
        if folder.name not in AREA_SETTINGS or not folder.is_dir():
            print(f"area_eval: {folder}: not a scene folder named after a game (the folder's "
                  f"name is the game: {', '.join(AREA_SETTINGS)})", file=sys.stderr)
            return 2
    cv2.setNumThreads(1)  # as the pipeline runs
    for folder in args.folders:
        unread: list[str] = []
        names, err, cpu = area_errors(folder, args.harsh, unread)
        found = np.isfinite(err)
        median = float(np.median(err[found])) if found.any() else float("nan")
        ran = np.isfinite(cpu)
        cpu_ms = 1000 * cpu[ran].mean() if ran.any() else float("nan")
        print(f"{folder}{' (harsh)' if args.harsh else ''}: {len(err)} photos, found "
              f"{found.sum()}, within 10 px {(err <= 10).sum()}, within 5 px "
              f"{(err <= 5).sum()}, median {median:.1f} px, CPU {cpu_ms:.1f} ms")
        if unread:
            print("  not read (counted as not found):", "; ".join(unread))
        far = [f"{n.rsplit('-', 1)[-1]}: {e:.0f}" for n, e in zip(names, err, strict=True)
               if not e <= 10]
        if far:
            print("  over 10 px:", ", ".join(far))
        if args.list:
            for n, e in zip(names, err, strict=True):
                print(f"  {n} {e:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
