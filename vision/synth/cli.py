"""`tablescore synth --game GAME --count N --seed S --out DIR [--edition 2] [--crops]`:
render synthetic scenes (JPEG + truth JSON) with a progress bar on stderr."""

from __future__ import annotations

import argparse
from pathlib import Path

from tablescore.errors import BadInput


def register(subparsers) -> None:
    p = subparsers.add_parser("synth", help="render synthetic table photos with ground truth")
    from tablescore.cmd_teach import games_help

    p.add_argument("--game", required=True, help=games_help())
    p.add_argument("--count", type=int, default=10, help="number of scenes")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--edition", type=int, default=1, help="1 or 2 (the second artwork)")
    p.add_argument("--scale", type=float, default=1.0,
                   help="photos this many times larger per side (1 to 4; 2: 2560 x 1920): "
                   "the same scenes at more pixels, as a phone's full-size photo")
    p.add_argument("--pixel-blur", action="store_true",
                   help="with --scale: the blur drawn in the output's pixels (a photo sharper "
                   "in the scene's terms) instead of --scale x as many")
    p.add_argument("--table", default=None, metavar="KIND",
                   help="draw every scene on this table kind (the same scenes otherwise): "
                   "wood, cloth, plain, laminate, check, stripes, or one the default draw "
                   "never gives (test data only, not for --crops): marble, print, "
                   "dark-glass, mat")
    p.add_argument("--crops", action="store_true",
                   help="write labelled piece crops OUT/<label>/<n>.png instead of scenes")
    p.add_argument("--json", action="store_true", help="print a JSON summary (default)")
    p.set_defaults(func=cmd_synth)


def cmd_synth(args: argparse.Namespace) -> int:
    from tablescore.cli import emit
    from vision.synth.dataset import ProgressBar, export_crops, write_scenes
    from vision.synth.render import EDITIONS, check_scale, check_table, game_layout_module

    game_layout_module(args.game)  # UnknownGame lists the games
    if args.count < 0:
        raise BadInput(f"--count must be 0 or more, got {args.count}")
    if args.edition not in EDITIONS:
        raise BadInput(f"--edition must be one of {EDITIONS}, got {args.edition}")
    if (args.scale != 1.0 or args.pixel_blur) and args.crops:
        raise BadInput("--scale and --pixel-blur are for scenes, not --crops")
    check_scale(args.scale)
    if args.table is not None and args.crops:
        raise BadInput("--table is for scenes (test data), not --crops (training data)")
    check_table(args.table)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise BadInput(f"--out {out} exists and is not a folder")
    try:
        if args.crops:
            counts = export_crops(args.game, args.count, args.seed, out, args.edition)
            emit({"game": args.game, "out": str(out), "crops": counts}, True)
            return 0
        paths = write_scenes(args.game, args.count, args.seed, out, args.edition,
                             progress=ProgressBar(f"synth {args.game}"), scale=args.scale,
                             pixel_blur=args.pixel_blur, table=args.table)
    except OSError as exc:
        raise BadInput(f"cannot write to {out}: {exc}") from None
    summary = {"game": args.game, "edition": args.edition, "out": str(out),
               "scenes": len(paths)}
    if args.scale != 1.0:
        summary["scale"] = args.scale
    if args.pixel_blur:
        summary["pixel_blur"] = True
    if args.table is not None:
        summary["table"] = args.table
    emit(summary, True)
    return 0
