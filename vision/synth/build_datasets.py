"""Rebuild the committed data: `python -m vision.synth.build_datasets [--root datasets]`.

Writes 30 scenes per game (edition 1, seed 1) to ROOT/scenes/<game>/, 10 per game of the
second edition (seed 2) to ROOT/scenes-edition2/<game>/ and a contact sheet
ROOT/contact-<game>.png per game. Deterministic: rerunning rewrites the same files."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from vision.synth import GAMES, contact_sheet, write_scenes

SCENES, SCENES_E2 = 30, 10
SEED, SEED_E2, SHEET_SEED = 1, 2, 3


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--root", default="datasets")
    ap.add_argument("--game", action="append", help="only these games (default: all)")
    args = ap.parse_args(argv)
    root = Path(args.root)
    for game in args.game or GAMES:
        for sub, n, seed, ed in (("scenes", SCENES, SEED, 1), ("scenes-edition2", SCENES_E2,
                                                               SEED_E2, 2)):
            out = root / sub / game
            if out.exists():
                shutil.rmtree(out)
            write_scenes(game, n, seed, out, ed)
        contact_sheet(game, SHEET_SEED, root / f"contact-{game}.png")
        print(f"{game}: {SCENES} + {SCENES_E2} scenes, contact sheet written")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
