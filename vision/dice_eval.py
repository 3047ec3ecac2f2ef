"""Evaluate the dice reader on generated photos (`vision.dice_synth`).

    python -m vision.dice_eval --count 200 --seed 0

prints per-die accuracy (right value), miss rate (a die not found), wrong-value rate,
false-positive rate (reported dice that are no die), false dice per photo on photos without
dice, and the reader's time per photo; then the same broken down by die style, table and
camera elevation.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict

import numpy as np

from vision.dice import read_dice
from vision.dice_synth import make_scene, no_dice_scene


def match(dice, truth, tol=0.6):
    """Greedy nearest matching of reported dice to true dice (centre within tol * side).
    Returns (pairs [(truth_i, dice_i)], unmatched truth, unmatched dice)."""
    pairs, used = [], set()
    cand = []
    for ti, t in enumerate(truth):
        for di, d in enumerate(dice):
            dist = float(np.hypot(d.center[0] - t["center"][0], d.center[1] - t["center"][1]))
            if dist <= tol * t["side_px"]:
                cand.append((dist, ti, di))
    tdone = set()
    for _, ti, di in sorted(cand):
        if ti in tdone or di in used:
            continue
        pairs.append((ti, di))
        tdone.add(ti)
        used.add(di)
    return pairs, [i for i in range(len(truth)) if i not in tdone], [
        i for i in range(len(dice)) if i not in used]


def evaluate(count: int, seed: int, verbose: bool = False) -> dict:
    tot = defaultdict(lambda: np.zeros(4))  # key -> [dice, right, missed, wrong]
    fp = reported = 0
    times, cpu = [], []
    for k in range(count):
        img, truth = make_scene(seed + k)
        t, c = time.perf_counter(), time.process_time()
        dice, _, _ = read_dice(img)
        times.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
        pairs, miss, extra = match(dice, truth.dice)
        fp += len(extra)
        reported += len(dice)
        elev = "elev>=70" if truth.elevation >= 70 else (
            "elev45-70" if truth.elevation >= 45 else "elev<45")
        rows = []
        for ti, di in pairs:
            tr = truth.dice[ti]
            ok = dice[di].value == tr["value"]
            rows.append((tr, 1 if ok else 0, 0, 0 if ok else 1))
            if verbose and not ok:
                print(f"seed {seed + k}: die {tr['value']} at {tr['center']} read as "
                      f"{dice[di].value} ({tr['style']})")
        for ti in miss:
            rows.append((truth.dice[ti], 0, 1, 0))
            if verbose:
                tr = truth.dice[ti]
                print(f"seed {seed + k}: missed {tr['value']} at {tr['center']} ({tr['style']},"
                      f" {truth.table}, elev {truth.elevation})")
        if verbose:
            for di in extra:
                print(f"seed {seed + k}: false die {dice[di].value} at {dice[di].center}")
        for tr, right, missed, wrong in rows:
            for key in ("all", "style:" + tr["style"], "table:" + truth.table, elev,
                        "touching" if tr["touching"] else "apart", f"value:{tr['value']}"):
                tot[key] += (1, right, missed, wrong)
    nod_fp = 0
    n_empty = max(1, count // 4)
    for k in range(n_empty):
        nod_fp += len(read_dice(no_dice_scene(seed + 100_000 + k))[0])
    a = tot["all"]
    return {
        "photos": count,
        "dice": int(a[0]),
        "accuracy": round(a[1] / a[0], 4),
        "miss_rate": round(a[2] / a[0], 4),
        "wrong_value_rate": round(a[3] / a[0], 4),
        "false_positive_rate": round(fp / max(reported, 1), 4),
        "false_dice_per_empty_photo": round(nod_fp / n_empty, 3),
        "empty_photos": n_empty,
        "ms_per_photo_median": round(float(np.median(times)), 1),
        "ms_per_photo_p90": round(float(np.percentile(times, 90)), 1),
        "cpu_ms_per_photo_median": round(float(np.median(cpu)), 1),
        "breakdown": {k: {"dice": int(v[0]), "accuracy": round(v[1] / v[0], 3),
                          "miss": round(v[2] / v[0], 3), "wrong": round(v[3] / v[0], 3)}
                      for k, v in sorted(tot.items()) if k != "all"},
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--verbose", action="store_true", help="list every error")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    r = evaluate(args.count, args.seed, args.verbose)
    if args.json:
        print(json.dumps(r, indent=2))
        return 0
    print(f"photos {r['photos']}, dice {r['dice']}")
    print(f"per-die accuracy {r['accuracy']:.2%}  miss {r['miss_rate']:.2%}  wrong value "
          f"{r['wrong_value_rate']:.2%}  false positives {r['false_positive_rate']:.2%} of "
          f"reported")
    print(f"false dice per photo without dice: {r['false_dice_per_empty_photo']} "
          f"({r['empty_photos']} photos)")
    print(f"time per photo: median {r['ms_per_photo_median']} ms, p90 "
          f"{r['ms_per_photo_p90']} ms (wall clock); CPU time median "
          f"{r['cpu_ms_per_photo_median']} ms")
    for k, v in r["breakdown"].items():
        print(f"  {k:22s} dice {v['dice']:4d}  acc {v['accuracy']:.3f}  miss {v['miss']:.3f}"
              f"  wrong {v['wrong']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
