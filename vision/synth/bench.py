"""Rendering speed on one core: `python -m vision.synth.bench [--game G] [--count N]`.

Prints scenes per second per game (OpenCV limited to one thread; the process should be run
alone on its core for a fair figure)."""

from __future__ import annotations

import argparse
import json
import os
import time

import cv2

from vision.synth import GAMES, render_scene


def bench(game: str, count: int, seed: int = 0) -> dict:
    render_scene(game, seed + 10_000)  # warm-up: imports, board file
    started_cpu, started = time.process_time(), time.perf_counter()
    for i in range(count):
        render_scene(game, seed + i)
    wall = time.perf_counter() - started
    cpu = time.process_time() - started_cpu
    return {"game": game, "scenes": count, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
            "scenes_per_s_wall": round(count / wall, 2), "scenes_per_s_cpu": round(count / cpu, 2)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--game", action="append", help="game id (repeatable; default: all)")
    ap.add_argument("--count", type=int, default=50)
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    for game in args.game or GAMES:
        r = bench(game, args.count)
        print(json.dumps(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
