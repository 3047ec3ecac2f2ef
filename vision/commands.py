"""CLI subcommands of the vision pipeline: `evaluate`, `bench`, `train` (listed in
`tablescore.cli.COMMAND_MODULES`)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tablescore.errors import BadInput, OptionError

STAGES = ("decode", "area", "segment", "classify", "missing", "facts", "cards", "scoring",
          "quality", "total")  # ("missing": the last look for tiles, only where a tile is
#   missing; "quality": the photo-quality warnings, `vision.quality`)


def register(sub) -> None:
    from tablescore.cli import add_game_options

    p = sub.add_parser("evaluate", help="measure the pipeline on scenes with ground truth")
    p.add_argument("folder", help="folder of scenes: NAME.jpg + NAME.json (ground truth)")
    from tablescore.cmd_teach import games_help

    p.add_argument("--game", required=True, help=games_help())
    p.add_argument("--json", action="store_true", help="print the JSON report")
    p.add_argument("--confusion-png", default=None,
                   help="write the confusion matrix here (default: FOLDER-confusion.png in "
                   "the current folder)")
    p.add_argument("--model", default=None, help="ONNX model (default: models/pieces.onnx)")
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("bench", help="time each pipeline stage on photos")
    p.add_argument("photos", nargs="+", help="JPEG or PNG photos")
    p.add_argument("--game", default=None,
                   help="the photos' game (default: the `game` of the first photo's .json)")
    p.add_argument("--repeat", type=int, default=5, help="runs per photo (after one warm-up)")
    p.add_argument("--json", action="store_true", help="print the JSON report")
    add_game_options(p)
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("train", help="train the crop classifier (needs the train extra: torch)")
    p.add_argument("--scenes", type=int, default=None, help="synthetic scenes per game")
    p.add_argument("--epochs", type=int, default=None,
                   help="training epochs (default: TrainSettings.epochs in "
                   "vision/classify/settings.py)")
    p.add_argument("--out", default=None, help="ONNX file to write (default models/pieces.onnx)")
    p.set_defaults(func=cmd_train)


def cmd_evaluate(args: argparse.Namespace) -> int:
    from tablescore.cli import emit
    from vision.evaluate import blur_lines, confusion_png, evaluate_folder
    from vision.pipeline import Pipeline, get_pipeline

    if args.game == "mauerhuepfer":  # pawns by position and dice: vision/mauer_eval.py
        from vision.mauer_eval import evaluate, human_report

        report = evaluate(args.folder, progress=not args.json)
        emit(report, args.json, human_report(report))
        return 0
    pipeline = Pipeline(args.model) if args.model else get_pipeline()
    report = evaluate_folder(args.game, args.folder, pipeline, progress=not args.json).to_json()
    png = args.confusion_png or f"{Path(args.folder).resolve().name}-{args.game}-confusion.png"
    confusion_png(report, png)
    report["confusion_png"] = str(png)
    human = (
        f"{report['game']}: {report['scenes']} scenes, facts exact "
        f"{100 * (report['facts_exact'] or 0):.1f} %, per-piece error "
        f"{100 * (report['piece_error'] or 0):.2f} % ({report['pieces_right']}/"
        f"{report['pieces_true']} right, {report['extra_pieces']} extra)\n"
        + "\n".join(f"  {lab:18s} precision {v['precision']}  recall {v['recall']}"
                    for lab, v in report["per_class"].items())
        + blur_lines(report) + f"\nconfusion matrix: {png}"
    )
    emit(report, args.json, human)
    return 0


def _percentiles(values: list[float]) -> dict:
    import numpy as np  # (here, not at the top: every CLI command imports this module to
    #   register its subcommands, `--help` and `score --facts` too; ~150 ms, session 18 H7)

    a = np.asarray(values, float)
    return {"median": round(float(np.median(a)), 2), "p90": round(float(np.percentile(a, 90)), 2)}


def cmd_bench(args: argparse.Namespace) -> int:
    from tablescore.cli import emit, game_options
    from vision.pipeline import score_photo

    if args.repeat < 1:
        raise OptionError("--repeat must be at least 1")
    if args.game is None:
        truth = Path(args.photos[0]).with_suffix(".json")
        if not truth.is_file():
            raise OptionError("give --game (no ground-truth .json beside the first photo)")
        from tablescore.cli import read_json_file

        args.game = read_json_file(truth, "ground truth").get("game")
    options = game_options(args)
    if args.game == "simsala-hopp" and not options.get("magician"):
        options["magician"] = "yellow"  # any colour: the timing does not depend on it
    data = []
    for p in args.photos:
        try:
            data.append(Path(p).read_bytes())
        except OSError as exc:
            raise BadInput(f"cannot read photo {p}: {exc.strerror or exc}") from None
    stages = STAGES
    if args.game == "mauerhuepfer":  # read by vision/mauer.py: its own stages
        from vision.mauer import STAGES as mauer_stages

        stages = (*mauer_stages[:-1], "quality", "total")

    def run(blob):  # what `tablescore score` runs (decode, the game's stages, quality)
        return score_photo(blob, args.game, options)

    run(data[0])  # warm-up (model, caches)
    times: dict[str, list[float]] = {s: [] for s in stages}
    started = time.perf_counter()
    for blob in data:
        for _ in range(args.repeat):
            t = run(blob)["timings_ms"]
            for s in stages:
                times[s].append(t.get(s, 0.0))
    report = {
        "game": args.game,
        "photos": len(data),
        "runs": len(data) * args.repeat,
        "stages_ms": {s: _percentiles(v) for s, v in times.items()},
        "wall_s": round(time.perf_counter() - started, 2),
    }
    human = "\n".join(f"{s:9s} median {v['median']:8.2f} ms   p90 {v['p90']:8.2f} ms"
                      for s, v in report["stages_ms"].items())
    emit(report, args.json, human)
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    try:
        from vision.classify import train
    except ImportError as exc:
        raise BadInput(f"training needs the train extra (pip install -e '.[train]'): {exc}") \
            from None
    argv = []
    if args.scenes is not None:
        argv += ["--scenes", str(args.scenes)]
    if args.epochs is not None:
        argv += ["--epochs", str(args.epochs)]
    if args.out is not None:
        argv += ["--out", args.out]
    return train.main(argv)
