"""Evaluate the Mauerhuepfer reader on a folder of scenes (photo + truth JSON):

    python -m vision.mauer_eval datasets/scenes/mauerhuepfer [--no-dice] [--json]

Pieces are the pawns (right when the pawn read at the true pawn's spot has the true colour and
position id) and the two dice (right when the value matches; compared as a multiset). The
per-piece error is (true pieces not read right + pieces read where there is none) / true
pieces, so a misread pawn counts once. Facts are exact when dice, pawn counts and every
colour's positions equal the truth."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from scoring.mauerhuepfer import load_board
from tablescore.errors import BadInput, TablescoreError
from vision.evaluate import BlurTable, blur_lines, one_to_one, photo_blur
from vision.mauer import read_mauer


def norm_facts(facts: dict, with_dice: bool = True) -> dict:
    out = {"pawns": {k: v for k, v in sorted(facts.get("pawns", {}).items()) if v},
           "positions": {k: sorted(v) for k, v in sorted(facts.get("positions", {}).items())
                         if v}}
    if with_dice:
        out["dice"] = sorted(facts.get("dice", []))
    return out


def compare(pred_pieces: list[dict], truth: dict, with_dice: bool = True) -> tuple[int, int, int]:
    """(true pieces, right, extra) for one scene."""
    tp = [p for p in truth["pieces"] if p["label"].startswith("pawn-")]
    pp = [p for p in pred_pieces if p["label"].startswith("pawn-")]
    pairs = sorted((float(np.hypot(p["center"][0] - t["center"][0],
                                   p["center"][1] - t["center"][1])), i, j)
                   for i, p in enumerate(pp) for j, t in enumerate(tp)
                   if np.hypot(p["center"][0] - t["center"][0],
                               p["center"][1] - t["center"][1]) <= 1.5 * t["radius"])
    paired = one_to_one(pairs)
    right = sum(int(pp[i]["label"] == tp[j]["label"] and pp[i]["position"] == tp[j]["position"])
                for i, j in paired)
    n_true, extra = len(tp), len(pp) - len(paired)
    if with_dice:
        td = Counter(truth["facts"]["dice"])
        pd = Counter(int(p["label"][4:]) for p in pred_pieces if p["label"].startswith("die-"))
        hit = sum((td & pd).values())
        n_true += sum(td.values())
        right += hit
        extra += max(0, sum(pd.values()) - sum(td.values()))
    return n_true, right, extra


def evaluate(folder: str | Path, with_dice: bool = True, progress: bool = False) -> dict:
    board = load_board()
    if not Path(folder).is_dir():
        raise BadInput(f"scene folder not found: {folder}")
    files = sorted(p for p in Path(folder).iterdir() if p.suffix.lower() in (".jpg", ".png")
                   and p.with_suffix(".json").is_file())
    if not files:
        raise BadInput(f"no scenes (photo + .json truth) in {folder}")
    n_true = right = extra = exact = 0
    failed, wrong, times = [], [], []
    by_blur = BlurTable()
    for k, img_path in enumerate(files):
        truth = json.loads(img_path.with_suffix(".json").read_text())
        if truth.get("game") != "mauerhuepfer":
            raise BadInput(f"{img_path.with_suffix('.json')} is not a mauerhuepfer scene")
        img = cv2.imread(str(img_path))
        t0 = time.perf_counter()
        try:
            r = read_mauer(img, board, with_dice=with_dice)
            pieces, facts = r.pieces, r.facts
        except TablescoreError as exc:
            failed.append(f"{img_path.name}: {exc.message}")
            pieces, facts = [], {}
        times.append((time.perf_counter() - t0) * 1000)
        nt, rt, ex = compare(pieces, truth, with_dice)
        n_true, right, extra = n_true + nt, right + rt, extra + ex
        ok = norm_facts(facts, with_dice) == norm_facts(truth["facts"], with_dice)
        exact += int(ok)
        by_blur.add(photo_blur(truth), ok, nt, nt - rt + ex)
        if not ok:
            wrong.append(img_path.name)
        if progress:
            print(f"\r{k + 1}/{len(files)}", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    return {"folder": str(folder), "scenes": len(files), "dice": with_dice,
            "pieces_true": n_true, "pieces_right": right, "extra_pieces": extra,
            "piece_error": round((n_true - right + extra) / max(n_true, 1), 5),
            "facts_exact": round(exact / max(len(files), 1), 4), "facts_exact_count": exact,
            "failed_scenes": failed, "wrong_facts_scenes": wrong,
            "median_ms": round(float(np.median(times)), 1) if times else None,
            **({"by_photo_blur": by_blur.to_json()} if by_blur.rows else {})}


def human_report(report: dict) -> str:
    what = "pawns and dice" if report["dice"] else "pawns"
    return (f"mauerhuepfer ({what}): {report['scenes']} scenes, facts exact "
            f"{100 * report['facts_exact']:.1f} %, per-piece error "
            f"{100 * report['piece_error']:.2f} % ({report['pieces_right']}/"
            f"{report['pieces_true']} right, {report['extra_pieces']} extra), "
            f"{len(report['failed_scenes'])} without a board" + blur_lines(report))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("folder")
    ap.add_argument("--no-dice", action="store_true", help="pawns only")
    args = ap.parse_args(argv)
    print(json.dumps(evaluate(args.folder, not args.no_dice, progress=True), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
