"""`python -m vision.classify.evaluate --game GAME FOLDER [--png OUT.png]`: the same report as
`tablescore evaluate` (per-class precision/recall, confusion matrix, exact-facts share) for a
folder of scenes with ground truth."""

from __future__ import annotations

import argparse
import json
import sys

from tablescore.errors import TablescoreError
from vision.evaluate import confusion_png, evaluate_folder


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder")
    ap.add_argument("--game", required=True)
    ap.add_argument("--png", default=None, help="write the confusion matrix here")
    args = ap.parse_args(argv)
    try:
        report = evaluate_folder(args.game, args.folder, progress=True).to_json()
        if args.png:
            confusion_png(report, args.png)
    except TablescoreError as exc:
        print(json.dumps(exc.to_json()))
        return exc.exit_code
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
