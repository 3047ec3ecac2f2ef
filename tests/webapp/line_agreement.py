"""Does the page's Magic Rabbit line (rebuilt from pieces, `webapp.edit.facts_from_pieces`:
what any tap on the page rescores) keep the photo reader's order? For each folder of scenes
(NAME.jpg + NAME.json), prints per photo count:

- ``cli``: the reader's own pieces (`vision.pipeline.score_photo`, as `tablescore score`):
  photos whose page line has the reader's hat order, whose whole line is equal, and how many
  had no magician tile read;
- ``truth``: the ground truth's pieces with the magician tile removed: photos whose page line
  has the true hat order.

``--left-to-right`` reads a line without a magician tile left to right, as the page did
before session 7 (`webapp.edit.inversions` patched to 0: the page only, not the reader).

    .venv/bin/python -m tests.webapp.line_agreement datasets/scenes-edition2/magic-rabbit
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from unittest import mock


def page_line(pieces: list[dict], facts: dict, left_to_right: bool) -> list[dict]:
    from webapp import edit

    if not left_to_right:
        return edit.facts_from_pieces("magic-rabbit", pieces, facts)["line"]
    with mock.patch("webapp.edit.inversions", lambda line: 0):
        return edit.facts_from_pieces("magic-rabbit", pieces, facts)["line"]


def hats(line: list[dict]) -> list[int]:
    return [p["hat"] for p in line]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--left-to-right", action="store_true")
    args = ap.parse_args(argv)
    from vision.pipeline import score_photo

    for folder in args.folders:
        n = {"photos": 0, "no_magician_read": 0, "cli_hat_order": 0, "cli_whole_line": 0,
             "truth_hat_order_without_magician": 0}
        for truth_file in sorted(Path(folder).glob("*.json")):
            truth = json.loads(truth_file.read_text())
            photo = truth_file.with_suffix(".jpg")
            if truth.get("game") != "magic-rabbit" or not photo.exists():
                continue
            r = score_photo(photo.read_bytes(), "magic-rabbit", {})
            line = page_line(r["pieces"], r["facts"], args.left_to_right)
            n["photos"] += 1
            n["no_magician_read"] += not any(p["label"] == "magician" for p in r["pieces"])
            n["cli_hat_order"] += hats(line) == hats(r["facts"]["line"])
            n["cli_whole_line"] += line == r["facts"]["line"]
            pieces = [p for p in truth["pieces"] if p["label"] != "magician"]
            line = page_line(pieces, {}, args.left_to_right)
            n["truth_hat_order_without_magician"] += hats(line) == hats(truth["facts"]["line"])
        print(folder, json.dumps(n), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
