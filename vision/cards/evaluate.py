"""Measure the card reader on scenes with ground truth (`datasets/scenes*/<game>/`).

Per-piece error and exact facts as in `vision.evaluate` (a predicted piece is right when a
true piece of the same label and zone lies within half a piece's size; error = (true pieces
not found right + extra predictions) / true pieces). Facts compared: Magic Rabbit the whole
line and `won`; Troetofanten the zone counts; Hop la bille the `cards` (the marbles are
issue 5's and measured by `tablescore evaluate`).

    python -m vision.cards.evaluate --game troetofanten datasets/scenes/troetofanten
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from tablescore.errors import TablescoreError
from vision.evaluate import evaluate_scenes, scene_files
from vision.image_io import load_photo

GAMES = ("magic-rabbit", "troetofanten", "hop-la-bille")


def read_scene(reader, game: str, source) -> tuple[list[dict], dict, list[str]]:
    """(pieces as contract dicts in photo pixels, facts, warnings) of one photo."""
    from vision.cards.read import hop_card_facts, magic_facts, troeto_facts
    from vision.cards.stage import read_balanced

    photo = load_photo(source)
    img = photo.image
    area = None
    if game == "hop-la-bille":
        from vision.area import AREA_SETTINGS, find_area

        area = find_area(img, AREA_SETTINGS[game], "Hop la bille cloth", game=game)
    img, pieces, warnings = read_balanced(reader, img, game, area)  # as scoring reads
    if game == "magic-rabbit":
        from vision.cards.lineup import distinct_kinds

        settled, more0 = distinct_kinds(pieces)  # (the pieces scored as the reader read them)
        facts, more = magic_facts(settled)
        more = more0 + more
        zones = ["line"] * len(pieces)
    elif game == "troetofanten":
        facts, zones, more = troeto_facts(pieces)
    else:
        cards, zones, more, keep = hop_card_facts(img, pieces, area.to_plane,
                                                  float(area.settings.plane_px))
        pieces = [p for p, k in zip(pieces, keep, strict=True) if k]
        zones = [z for z, k in zip(zones, keep, strict=True) if k]
        facts = {"cards": cards}
    out = [{"label": p.label, "zone": z, "center": list(p.center * photo.scale),
            "confidence": p.confidence} for p, z in zip(pieces, zones, strict=True)]
    return out, facts, warnings + more


def comparable(game: str, facts: dict) -> dict:
    if game == "hop-la-bille":
        return {z: c for z, c in sorted(facts.get("cards", {}).items()) if c}
    if game == "troetofanten":
        return {z: {k: v for k, v in sorted(c.items()) if v}
                for z, c in sorted(facts.get("zones", {}).items()) if any(c.values())}
    return facts


def evaluate(game: str, folder, reader=None, limit: int | None = None) -> dict:
    from vision.cards.read import GAME_LABELS, CardReader

    reader = reader or CardReader()
    labels = GAME_LABELS[game] + (("dove",) if game == "magic-rabbit" else ())
    return evaluate_scenes(game, scene_files(folder)[:limit], labels,
                           lambda jpg: read_scene(reader, game, jpg)[:2],
                           lambda facts: comparable(game, facts)).to_json()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", required=True, choices=GAMES)
    ap.add_argument("folder")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--full", action="store_true", help="print per class and confusion too")
    args = ap.parse_args(argv)
    try:
        r = evaluate(args.game, args.folder, limit=args.limit)
    except TablescoreError as exc:
        raise SystemExit(exc.message) from None
    if not args.full:
        r = {k: v for k, v in r.items() if k not in ("confusion",)}
        r["per_class"] = {k: v for k, v in r["per_class"].items()
                          if v["precision"] != 1.0 or v["recall"] != 1.0}
    print(json.dumps(r, indent=1))
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
