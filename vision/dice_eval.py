"""Evaluate the dice reader on generated photos (`vision.dice_synth`) or a folder of photos.

    python -m vision.dice_eval --count 200 --seed 0
    python -m vision.dice_eval --dir datasets/dice
    python -m vision.dice_eval --dir datasets/scenes/mauerhuepfer [--mauer-board | --command]
    python -m vision.dice_eval --count 60 --seed 7000 --baseline /tmp/dice_old.py
    python -m vision.dice_eval --dir datasets/dice --baseline /tmp/dice_old.py --changes
    python -m vision.dice_eval --sheet datasets/scenes/mauerhuepfer /tmp/sheet.png

prints per-die accuracy (right value), miss rate (a die not found), wrong-value rate,
false-positive rate (reported dice that are no die), false dice per photo on photos without
dice (generated photos only), and the reader's time per photo; then the same broken down by
die style, table and camera elevation.

A folder holds photos (`.jpg`/`.png`) each with a truth `.json` beside it: either a labelled
dice photo (`vision.dice_synth.write_folder`: `"dice": [{"value", "center", "side_px",
"style", "touching"}]`, `"table"`, `"elevation"`) or a game scene whose `"pieces"` hold
`die-N` pieces with a `"polygon"` (the Mauerhuepfer scenes). Game scenes are read as a
whole photo by `read_dice` (dice anywhere), or with `--mauer-board` the way the Mauerhuepfer
pipeline reads them (board located, enlarged crops around die-sized blobs beside it), or with
`--command` the way `tablescore dice` reads them (`tablescore.cmd_dice.read_dice_photo`: the
photo decoded as the command does, the whole-photo reader merged with the board's dice where
a Mauerhuepfer board is found surely).

Folders with labels in `datasets/dice-legibility.json` (which dice a person can count, made
blind from `--sheet` crops) also get "right among legible dice": the share of the dice a
person can count that were read right (the renderer smears some dice past reading).
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

from vision.dice import read_dice
from vision.dice_synth import make_scene, no_dice_scene

LEGIBILITY = Path(__file__).resolve().parent.parent / "datasets" / "dice-legibility.json"


def match(dice, truth, tol=0.6):
    """Greedy nearest matching of reported dice to true dice (centre within tol * side).
    Returns (pairs [(truth_i, dice_i)], unmatched truth, unmatched dice)."""
    from vision.evaluate import one_to_one  # (here: it imports the pipeline)

    cand = []
    for ti, t in enumerate(truth):
        for di, d in enumerate(dice):
            dist = float(np.hypot(d.center[0] - t["center"][0], d.center[1] - t["center"][1]))
            if dist <= tol * t["side_px"]:
                cand.append((dist, ti, di))
    pairs = one_to_one(sorted(cand))
    tdone, used = {ti for ti, _ in pairs}, {di for _, di in pairs}
    return pairs, [i for i in range(len(truth)) if i not in tdone], [
        i for i in range(len(dice)) if i not in used]


def _elev_key(elevation: float) -> str:
    return "elev>=70" if elevation >= 70 else ("elev45-70" if elevation >= 45 else "elev<45")


def _false_dice(dice) -> list[tuple[int, int, int]]:
    """Dice no true die matched, as sorted (x, y, value): for `die_changes`."""
    return sorted((round(d.center[0]), round(d.center[1]), d.value) for d in dice)


class _Tally:
    """Per-die counts [dice, right, missed, wrong] by breakdown key, false dice, times."""

    def __init__(self):
        self.tot = defaultdict(lambda: np.zeros(4))
        self.fp = self.reported = 0
        self.times: list[float] = []
        self.cpu: list[float] = []
        self.unread = np.zeros(4, int)  # "could not be read" warnings: [missed dice
        # warned about, missed dice, warnings at no die, warnings at a die that was read]
        self.legible = np.zeros(4)  # labelled legible: [dice, right, missed, wrong]
        self.illegible = np.zeros(4)  # labelled not legible
        # photo name -> (each true die's outcome: "right", "missed", "wrong N"; the false
        # dice as (x, y, value)), for `die_changes`
        self.outcomes: dict[str, tuple[list[str], list[tuple]]] = {}

    def add(self, name, dice, truth_dice, table, elevation, verbose=False, legible=None):
        """`legible`: per true die True / False / None (not labelled), or None. Returns the
        match made (`match`: pairs, missed, extra), for `add_unread`."""
        pairs, miss, extra = matched = match(dice, truth_dice)
        self.fp += len(extra)
        self.reported += len(dice)
        rows = []
        outcome = ["right"] * len(truth_dice)  # (per true die, for `die_changes`)
        for ti, di in pairs:
            tr = truth_dice[ti]
            ok = dice[di].value == tr["value"]
            rows.append((ti, 1 if ok else 0, 0, 0 if ok else 1))
            if not ok:
                outcome[ti] = f"wrong {dice[di].value}"
            if verbose and not ok:
                print(f"{name}: die {tr['value']} at {tr['center']} read as "
                      f"{dice[di].value} ({tr.get('style')})")
        for ti in miss:
            rows.append((ti, 0, 1, 0))
            outcome[ti] = "missed"
            if verbose:
                tr = truth_dice[ti]
                print(f"{name}: missed {tr['value']} at {tr['center']} ({tr.get('style')},"
                      f" {table}, elev {elevation})")
        if verbose:
            for di in extra:
                print(f"{name}: false die {dice[di].value} at {dice[di].center}")
        self.outcomes[name] = (outcome, _false_dice([dice[di] for di in extra]))
        for ti, right, missed, wrong in rows:
            lab = legible[ti] if legible is not None else None
            if lab is not None:  # (labelled: legible or not)
                (self.legible if lab else self.illegible)[:] += (1, right, missed, wrong)
            tr = truth_dice[ti]
            keys = ["all", f"value:{tr['value']}"]
            if "style" in tr:
                keys.append("style:" + tr["style"])
            if table:
                keys.append("table:" + table)
            if elevation is not None:
                keys.append(_elev_key(elevation))
            if "touching" in tr:
                keys.append("touching" if tr["touching"] else "apart")
            for key in keys:
                self.tot[key] += (1, right, missed, wrong)
        return matched

    def add_unread(self, dice, truth_dice, where: list[tuple[float, float]],
                   matched: tuple | None = None) -> None:
        """Tally "a die ... could not be read" warnings at `where` against the truth.
        `matched`: `match(dice, truth_dice)` when already made (`add` returns it)."""
        _, miss, _ = matched if matched is not None else match(dice, truth_dice)
        used = set()
        for ti, t in enumerate(truth_dice):
            hits = {k for k, p in enumerate(where) if np.hypot(
                p[0] - t["center"][0], p[1] - t["center"][1]) < 0.8 * t["side_px"]}
            used |= hits
            if ti in miss:
                self.unread[1] += 1
                self.unread[0] += bool(hits)
            elif hits:  # (a true die not missed was read: `match` pairs or misses each)
                self.unread[3] += 1
        self.unread[2] += len(where) - len(used)

    def report(self, photos: int) -> dict:
        a = self.tot["all"]
        n = max(a[0], 1)
        extra = {}
        for key, v in (("legible", self.legible), ("illegible", self.illegible)):
            if v[0]:
                extra[key] = {"dice": int(v[0]), "right": int(v[1]), "missed": int(v[2]),
                              "wrong": int(v[3]), "accuracy": round(v[1] / v[0], 4)}
        if self.unread.any():
            extra["unread_warnings"] = {"missed_warned": int(self.unread[0]),
                                        "missed": int(self.unread[1]),
                                        "at_no_die": int(self.unread[2]),
                                        "at_read_die": int(self.unread[3])}
        return extra | {
            "photos": photos,
            "dice": int(a[0]),
            "accuracy": round(a[1] / n, 4),
            "miss_rate": round(a[2] / n, 4),
            "wrong_value_rate": round(a[3] / n, 4),
            "false_positive_rate": round(self.fp / max(self.reported, 1), 4),
            "false_dice": self.fp,
            "ms_per_photo_median": round(float(np.median(self.times)), 1),
            "ms_per_photo_p90": round(float(np.percentile(self.times, 90)), 1),
            "cpu_ms_per_photo_median": round(float(np.median(self.cpu)), 1),
            "breakdown": {k: {"dice": int(v[0]), "accuracy": round(v[1] / v[0], 3),
                              "miss": round(v[2] / v[0], 3), "wrong": round(v[3] / v[0], 3)}
                          for k, v in sorted(self.tot.items()) if k != "all"},
        }

    def timed(self, fn, *args):
        t, c = time.perf_counter(), time.process_time()
        out = fn(*args)
        self.times.append((time.perf_counter() - t) * 1000)
        self.cpu.append((time.process_time() - c) * 1000)
        return out


def _each(readers, k, img):
    """Every reader on one photo, in turns of order (interleaved timing under load)."""
    order = list(range(len(readers)))
    if k % 2:
        order.reverse()
    out = [None] * len(readers)
    for i in order:
        out[i] = readers[i][1].timed(readers[i][0], img)
    return out


def evaluate(count: int, seed: int, verbose: bool = False, reads=None,
             tallies: list | None = None) -> dict | list[dict]:
    """Figures on `count` generated photos from `seed` (and count // 4 without dice).
    `reads`: several read(img) -> dice functions measured on the same photos in turns
    (a list of reports); default `read_dice`. `tallies`: a list the readers' tallies are
    appended to (for `die_changes`)."""
    readers = [(r, _Tally()) for r in (reads or [lambda im: read_dice(im)[0]])]
    if tallies is not None:
        tallies += [tally for _, tally in readers]
    for k in range(count):
        img, truth = make_scene(seed + k)
        for dice, (_, tally) in zip(_each(readers, k, img), readers, strict=True):
            tally.add(f"seed {seed + k}", dice, truth.dice, truth.table, truth.elevation,
                      verbose)
    n_empty = max(1, count // 4)
    nod_fp = [0] * len(readers)
    for k in range(n_empty):
        img = no_dice_scene(seed + 100_000 + k)
        for i, (read, tally) in enumerate(readers):
            dice = read(img)
            nod_fp[i] += len(dice)
            tally.outcomes[f"no dice {seed + 100_000 + k}"] = ([], _false_dice(dice))
    out = []
    for (_, tally), fp in zip(readers, nod_fp, strict=True):
        r = tally.report(count)
        r["false_dice_per_empty_photo"] = round(fp / n_empty, 3)
        r["empty_photos"] = n_empty
        out.append(r)
    return out if reads else out[0]


def truth_dice(truth: dict) -> list[dict]:
    """The true dice of a truth JSON: a labelled dice photo's `dice`, or a game scene's
    `die-N` pieces (side from the polygon's area)."""
    if "dice" in truth and isinstance(truth["dice"], list):
        return truth["dice"]
    out = []
    for p in truth.get("pieces", []):
        lab = p.get("label", "")
        if not lab.startswith("die-"):
            continue
        poly = np.asarray(p.get("polygon") or [], np.float32)
        side = float(np.sqrt(abs(cv2.contourArea(poly)))) if len(poly) >= 3 else 20.0
        out.append({"value": int(lab[4:]), "center": p["center"], "side_px": side})
    return out


def load_legibility(path=LEGIBILITY) -> dict:
    """file name -> [(centre, legible)] of the labelled dice (`datasets/dice-legibility.json`);
    {} when there is no such file."""
    path = Path(path)
    if not path.is_file():
        return {}
    out: dict = defaultdict(list)
    for e in json.loads(path.read_text())["dice"]:
        out[e["file"]].append((e["center"], bool(e["legible"])))
    return dict(out)


def legibility_of(labels: dict, file_name: str, dice: list[dict]) -> list | None:
    """Per true die: its label (True / False), None where none lies within a fifth of its
    side; None when the photo has no labels."""
    marks = labels.get(file_name)
    if not marks:
        return None
    out = []
    for t in dice:
        near = [(float(np.hypot(c[0] - t["center"][0], c[1] - t["center"][1])), lab)
                for c, lab in marks]
        d, lab = min(near)
        out.append(lab if d <= 0.2 * t["side_px"] else None)
    return out


def contact_sheet(folder, out_png, tile: int = 150, cols: int = 8) -> int:
    """A sheet of crops centred on every true die of a folder (side 2.8 die sides, enlarged
    to `tile` px), each labelled `file#die side px` and NOT with its value: for labelling
    by eye which dice a person can count. Returns the number of dice."""
    tiles = []
    for j in sorted(Path(folder).glob("*.json")):
        photo = next((j.with_suffix(e) for e in (".jpg", ".png") if j.with_suffix(e).is_file()),
                     None)
        if photo is None:
            continue
        img = cv2.imread(str(photo), cv2.IMREAD_COLOR)
        for i, t in enumerate(truth_dice(json.loads(j.read_text()))):
            r = int(max(8, 1.4 * t["side_px"]))
            pad = cv2.copyMakeBorder(img, r, r, r, r, cv2.BORDER_CONSTANT)
            x, y = int(t["center"][0]) + r, int(t["center"][1]) + r
            c = cv2.resize(pad[y - r:y + r, x - r:x + r], (tile, tile),
                           interpolation=cv2.INTER_CUBIC)
            c = cv2.copyMakeBorder(c, 16, 0, 0, 0, cv2.BORDER_CONSTANT, value=(255, 255, 255))
            cv2.putText(c, f"{j.stem[-4:]}#{i} {t['side_px']:.0f}px", (2, 12),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.42, (0, 0, 200), 1)
            tiles.append(c)
    if not tiles:
        raise SystemExit(f"no dice with truth in {folder}")
    blank = np.zeros_like(tiles[0])
    rows = [np.hstack(tiles[i:i + cols] + [blank] * (cols - len(tiles[i:i + cols])))
            for i in range(0, len(tiles), cols)]
    cv2.imwrite(str(out_png), np.vstack(rows))
    return len(tiles)


def _mauer_reader(dice_reader=read_dice, board_dice=None):
    """read(img) -> dice the way the Mauerhuepfer pipeline reads them (with `dice_reader`
    in the place of `vision.dice.read_dice`, and `board_dice`, another copy of
    vision/mauer_dice.py as a module, in the place of `vision.mauer_dice`)."""
    import vision.dice
    import vision.mauer_dice
    from scoring.mauerhuepfer import load_board
    from vision.mauer import find_board

    board = load_board()
    pick_dice = (board_dice or vision.mauer_dice).pick_dice
    read_board_dice = (board_dice or vision.mauer_dice).read_board_dice

    def read(img):
        saved = vision.dice.read_dice
        vision.dice.read_dice = dice_reader  # read_board_dice imports it when called
        read.unread = []
        try:
            view = find_board(img, board)
            if view is None:
                return []
            dice, warnings = read_board_dice(img, view, board)
            read.unread = unread_warnings(warnings)
            return pick_dice(dice, view.corners)[0]
        finally:
            vision.dice.read_dice = saved

    read.unread = []
    return read


def unread_warnings(warnings: list[str]) -> list[tuple[float, float]]:
    """Positions of the "a die at (x, y) could not be read" warnings."""
    out = []
    for w in warnings:
        m = re.match(r"a die at \(([-\d.]+), ([-\d.]+)\) could not be read", w)
        if m:
            out.append((float(m[1]), float(m[2])))
    return out


def _load_module(path, name):
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def load_baseline(path):
    """`read_dice` of another version of vision/dice.py (e.g. `git show REV:vision/dice.py >
    /tmp/dice_old.py`), to measure before and after on the same photos under the same load."""
    return _load_module(path, "dice_baseline").read_dice


def load_board_dice_baseline(path):
    """Another version of vision/mauer_dice.py as a module (`--baseline-mauer`)."""
    return _load_module(path, "mauer_dice_baseline")


def _print(r: dict, title: str = "") -> None:
    print(title + f"photos {r['photos']}, dice {r['dice']}" + (
        f" ({r['folder']}, {r['reader']})" if "folder" in r else ""))
    print(f"per-die accuracy {r['accuracy']:.2%}  miss {r['miss_rate']:.2%}  wrong value "
          f"{r['wrong_value_rate']:.2%}  false positives {r['false_positive_rate']:.2%} of "
          f"reported")
    if "empty_photos" in r:
        print(f"false dice per photo without dice: {r['false_dice_per_empty_photo']} "
              f"({r['empty_photos']} photos)")
    for key, what in (("legible", "right among legible dice"),
                      ("illegible", "of the dice no person can count")):
        if key in r:
            v = r[key]
            print(f"{what}: {v['right']}/{v['dice']} ({v['accuracy']:.1%}), missed "
                  f"{v['missed']}, wrong {v['wrong']}")
    if "unread_warnings" in r:
        u = r["unread_warnings"]
        print(f"'could not be read' warnings: at {u['missed_warned']} of {u['missed']} missed "
              f"dice, {u['at_no_die']} where no die is, {u['at_read_die']} at dice read")
    print(f"time per photo: median {r['ms_per_photo_median']} ms, p90 "
          f"{r['ms_per_photo_p90']} ms (wall clock); CPU time median "
          f"{r['cpu_ms_per_photo_median']} ms")


def _command_reader():
    """read(photo) -> dice (`vision.dice.Die`, the photo's own px) as `tablescore dice` reports
    them; `photo`: a `vision.image_io.Photo` (`load_photo`); `read.unread`: the positions of
    its "could not be read" warnings."""
    from tablescore.cmd_dice import read_dice_photo
    from vision.dice import Die

    def read(photo):
        r = read_dice_photo(photo)
        read.unread = unread_warnings(r["warnings"])
        return [Die(d["value"], d["confidence"], tuple(d["center"])) for d in r["dice"]]

    read.unread = []
    return read


def evaluate_folder(folder, verbose: bool = False, mauer_board: bool = False,
                    dice_readers=None, board_dice=None, tallies: list | None = None,
                    command: bool = False) -> dict | list[dict]:
    """Per-die figures on a folder of photos with truth JSON (see the module docstring).
    `dice_readers`: several `read_dice`-like functions measured on the same photos in turns
    (a list of reports); `board_dice`: per reader, a vision/mauer_dice.py module or None
    (the current one) for `mauer_board`. `command`: the dice command's reading instead
    (`_command_reader`; the current code only)."""
    if command and (mauer_board or dice_readers):
        raise ValueError("command reads with the current code alone, not the board way")
    files = sorted(p for p in Path(folder).iterdir() if p.suffix.lower() in (".jpg", ".png")
                   and p.with_suffix(".json").is_file())
    if not files:
        raise SystemExit(f"no photos with a truth .json in {folder}")
    fns = dice_readers or [read_dice]
    mods = board_dice or [None] * len(fns)
    readers = [(_command_reader() if command else _mauer_reader(fn, mod) if mauer_board
                else (lambda img, fn=fn: fn(img)[0]), _Tally())
               for fn, mod in zip(fns, mods, strict=True)]
    if tallies is not None:
        tallies += [tally for _, tally in readers]
    labels = load_legibility()
    for k, f in enumerate(files):
        truth = json.loads(f.with_suffix(".json").read_text())
        if command:
            from vision.image_io import AS_TAKEN, load_photo

            img = load_photo(str(f), AS_TAKEN)  # (decoded as the command does: its input)
        else:
            img = cv2.imread(str(f), cv2.IMREAD_COLOR)
        elev = truth.get("elevation")
        if elev is None and "camera" in truth:  # game scenes: tilt from the vertical
            elev = 90.0 - float(truth["camera"].get("tilt_deg", 0.0))
        tdice = truth_dice(truth)
        legible = legibility_of(labels, f.name, tdice)
        for dice, (read, tally) in zip(_each(readers, k, img), readers, strict=True):
            matched = tally.add(f.name, dice, tdice, truth.get("table", ""), elev, verbose,
                                legible)
            if mauer_board or command:
                tally.add_unread(dice, tdice, read.unread, matched)
    out = []
    for _, tally in readers:
        r = tally.report(len(files))
        r["folder"] = str(folder)
        r["reader"] = "tablescore dice" if command else "mauer board crops" if mauer_board \
            else "read_dice on the whole photo"
        out.append(r)
    return out if dice_readers else out[0]


def die_changes(before: _Tally, after: _Tally) -> list[str]:
    """Die by die, what changed between two readers on the same photos: each true die whose
    outcome differs ("photo die K: missed -> right", "... right -> wrong 6") and each
    false die that went or came."""
    out = []
    for name, (dice_b, false_b) in before.outcomes.items():
        dice_a, false_a = after.outcomes[name]
        out += [f"{name} die {k}: {b} -> {a}" for k, (b, a) in
                enumerate(zip(dice_b, dice_a, strict=True)) if a != b]
        out += [f"{name} false die gone {f}" for f in false_b if f not in false_a]
        out += [f"{name} false die NEW {f}" for f in false_a if f not in false_b]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--verbose", action="store_true", help="list every error")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--dir", metavar="FOLDER", help="photos with truth .json instead of "
                                                     "generated ones")
    ap.add_argument("--mauer-board", action="store_true",
                    help="with --dir: read dice the Mauerhuepfer pipeline's way")
    ap.add_argument("--command", action="store_true",
                    help="with --dir: read dice the way `tablescore dice` does (the whole "
                         "photo, and beside a Mauerhuepfer board the board's way)")
    ap.add_argument("--baseline", metavar="DICE_PY",
                    help="another vision/dice.py measured on the same photos in turns "
                         "(before -> after under the same load)")
    ap.add_argument("--sheet", nargs=2, metavar=("FOLDER", "OUT_PNG"),
                    help="write a sheet of crops of every true die (no values) and stop")
    ap.add_argument("--baseline-mauer", metavar="MAUER_DICE_PY",
                    help="with --dir D --mauer-board: another vision/mauer_dice.py for the "
                         "baseline (with --baseline's dice.py, else the current one)")
    ap.add_argument("--changes", action="store_true",
                    help="with --baseline or --baseline-mauer: list every die whose outcome "
                         "changed and every false die that went or came")
    args = ap.parse_args(argv)
    if args.changes and not (args.baseline or args.baseline_mauer):
        ap.error("--changes needs --baseline (or --baseline-mauer)")
    if args.command and (not args.dir or args.mauer_board or args.baseline
                         or args.baseline_mauer):
        ap.error("--command needs --dir and goes with neither --mauer-board nor a baseline")
    if args.sheet:
        print(contact_sheet(*args.sheet), "dice")
        return 0
    if args.baseline or args.baseline_mauer:
        fns = [load_baseline(args.baseline) if args.baseline else read_dice, read_dice]
        mods = [load_board_dice_baseline(args.baseline_mauer) if args.baseline_mauer
                else None, None]
        tallies: list = []
        if args.dir:
            reports = evaluate_folder(args.dir, args.verbose, args.mauer_board, fns, mods,
                                      tallies)
        else:
            reports = evaluate(args.count, args.seed, args.verbose,
                               [lambda im, f=f: f(im)[0] for f in fns], tallies)
        if args.changes:
            print("\n".join(die_changes(*tallies)))
        if args.json:
            print(json.dumps({"baseline": reports[0], "current": reports[1]}, indent=2))
            return 0
        for name, r in zip(("baseline", "current"), reports, strict=True):
            _print(r, f"{name}: ")
        print(f"{'':22s} baseline right/wrong  current right/wrong")
        for k, v in reports[0]["breakdown"].items():
            w = reports[1]["breakdown"][k]
            print(f"  {k:22s} {v['dice']:4d}  {v['accuracy']:.3f} {v['wrong']:.3f}   "
                  f"{w['accuracy']:.3f} {w['wrong']:.3f}")
        return 0
    if args.dir:
        r = evaluate_folder(args.dir, args.verbose, args.mauer_board, command=args.command)
    else:
        r = evaluate(args.count, args.seed, args.verbose)
    if args.json:
        print(json.dumps(r, indent=2))
        return 0
    _print(r)
    for k, v in r["breakdown"].items():
        print(f"  {k:22s} dice {v['dice']:4d}  acc {v['accuracy']:.3f}  miss {v['miss']:.3f}"
              f"  wrong {v['wrong']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
