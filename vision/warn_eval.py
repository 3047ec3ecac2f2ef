"""Warnings at errors and false alarms: does each doubt the assistant voices lie at a reading
that is wrong, and is each wrong reading named by one?

    python -m vision.warn_eval --game troetofanten DIR [DIR ...] [--json]
        [--results RESULTS.json] [--save OUT.json]

Each photo with a truth (`DIR/*.jpg` + `.json`, as `tablescore evaluate` reads) is scored as
the CLI scores it (`vision.pipeline.score_photo`; Simsala Hopp with the magician yellow), or
its answer is taken from `--results` (a JSON object of contract answers keyed by the photo's
path, as a dump of the committed photos holds). The pieces are paired with the truth's as
`tablescore evaluate` pairs them (`vision.evaluate.match`: same label first, within half a
true piece's size; Mauerhuepfer's pawns are right with their label and board position); an
**error** is a true piece missed, a piece read with the wrong label or zone (position), or a
piece found where none lies; a photo is **exact** when it has no error and its facts equal
the truth's (`comparable_facts`; Mauerhuepfer: `vision.mauer_eval.norm_facts`).

Each warning is sorted into:
- a **rule note**: it states what the rules make of the table, not a doubt about the reading:
  its text is among the warnings the scorer gives for the truth's own facts (a table that
  breaks a rule, a game not over yet), or it matches `RULE_NOTES`; kept out of the doubts;
- **at an error**: a warning naming a place ("at (x, y)", the contract's pixels) with an
  error within `reach` of it (the erring piece's size, at least `min_reach_px`), or a warning
  naming no place on a photo that is not exact;
- a **false alarm**: otherwise (nothing wrong near it, or the photo exact).

Printed per game: photos exact and unwarned, exact but warned (false alarms only), wrong
with a warning at an error, wrong and silent (no warning at any of its errors); errors named
by a warning at them, named only by a placeless warning, silent; and per warning kind (the
text with numbers as N and piece labels as L): count, how many lie at an error.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scoring import GAMES as SCORED_GAMES
from tablescore.errors import BadInput, TablescoreError
from vision.evaluate import comparable_facts, match, piece_size, scene_files

GAMES = tuple(SCORED_GAMES)  # (the scorer's game ids, in its order)
OPTIONS = {"simsala-hopp": {"magician": "yellow"}}

# Warnings that say what the rules make of the table, never a doubt about the reading (also
# kept out when the truth's own facts give the same text; these patterns catch them where
# the reading differs, so the scorer's text differs too).
RULE_NOTES = (
    r"face-down cards are still in the ring's edge",  # Troetofanten: the game is not over
    r"goes home into the goal area",  # Mauerhuepfer: a pawn on a goal field
    r"the win cannot be confirmed",  # Magic Rabbit: rabbits still under their hats
)

_AT = re.compile(r"\(\s*(-?\d+(?:\.\d+)?),\s*(-?\d+(?:\.\d+)?)\s*\)")
_LABEL = re.compile(r"\b(?:hat|rabbit|elephant|tootophant|card|marble|pawn|die)-[a-z0-9]+\b")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


@dataclass(frozen=True)
class WarnSettings:
    reach_factor: float = 1.0  # an error within its piece's size of the named place (cards'
    # key-point doubts sit up to ~0.6 of a card off its centre on the committed photos)
    min_reach_px: float = 30.0  # at least this (pawns and dice are ~15 px across)


def kind(message: str) -> str:
    """The warning's kind: its text with piece labels as L and numbers as N."""
    return _NUMBER.sub("N", _LABEL.sub("L", message))


def places(message: str) -> list[tuple[float, float]]:
    """The image points a warning names ("at (x, y)"): [(x, y)], empty when it names none."""
    return [(float(x), float(y)) for x, y in _AT.findall(message)]


def _key(p: dict) -> tuple:
    return p["label"], p.get("position", p.get("zone"))


def _size(p: dict) -> float:
    s = piece_size(p)
    return s if s > 0 else 30.0


def errors(game: str, pred: list[dict], truth_pieces: list[dict]) -> list[tuple[float, float,
                                                                                float, str]]:
    """The reading's errors [(x, y, size px, what)]: "missed" at the true piece, "extra" at
    the read one, "wrong" (label or zone/position) at both."""
    out = []
    for i, j in match(pred, truth_pieces):
        p = pred[i] if i is not None else None
        t = truth_pieces[j] if j is not None else None
        if p is not None and t is not None and _key(p) == _key(t):
            continue
        size = _size(t) if t is not None else float(np.median([_size(q) for q in truth_pieces])
                                                       if truth_pieces else 30.0)
        what = "missed" if p is None else "extra" if t is None else "wrong"
        for q in (p, t):
            if q is not None:
                out.append((float(q["center"][0]), float(q["center"][1]), size, what))
    return out


def card_errors(game: str, facts: dict, truth: dict) -> list[tuple[float, float, float, str]]:
    """Hop la bille: each true card of a side whose cards (colours and printed marbles, in
    order) differ from the truth's, as an error "cards" at the card (a marble misread on a
    card is no piece error)."""
    if game != "hop-la-bille":
        return []
    got, want = facts.get("cards", {}) or {}, truth["facts"].get("cards", {})
    bad = {z for z in set(got) | set(want) if (got.get(z) or []) != (want.get(z) or [])}
    return [(float(p["center"][0]), float(p["center"][1]), _size(p), "cards")
            for p in truth["pieces"] if p["label"].startswith("card-") and p["zone"] in bad]


def facts_right(game: str, facts: dict, truth_facts: dict) -> bool:
    if game == "mauerhuepfer":
        from vision.mauer_eval import norm_facts

        return norm_facts(facts) == norm_facts(truth_facts)
    return comparable_facts(game, facts) == comparable_facts(game, truth_facts)


def truth_notes(game: str, truth_facts: dict) -> set[str]:
    """The scorer's warnings on the truth's own facts (what the rules make of the table)."""
    from scoring import score_facts

    try:
        return set(score_facts(game, truth_facts, OPTIONS.get(game, {}))[1])
    except TablescoreError:
        return set()


def judge(game: str, answer: dict, truth: dict, settings: WarnSettings = WarnSettings()
          ) -> dict:
    """One photo: {"exact", "errors" [[x, y, what, named: "at"|"placeless"|"silent"]],
    "warnings" [[message, "rule"|"at_error"|"false_alarm"]]} from the contract `answer`
    and the scene's `truth`."""
    true_pieces = truth["pieces"]
    if game != "mauerhuepfer":  # as `tablescore evaluate`: the labels the game's vision reads
        from vision.pipeline import game_vision

        gv = game_vision(game)
        true_pieces = [p for p in true_pieces if p["label"] in gv.labels + gv.card_labels]
    errs = errors(game, answer.get("pieces", []), true_pieces)
    errs += card_errors(game, answer.get("facts", {}), truth)
    exact = not errs and facts_right(game, answer.get("facts", {}), truth["facts"])
    notes = truth_notes(game, truth["facts"])
    judged, hit = [], set()
    any_placeless_doubt = False
    for w in answer.get("warnings", []) + ([_error_text(answer["error"])] if "error" in answer
                                           else []):
        if w in notes or any(re.search(r, w) for r in RULE_NOTES):
            judged.append([w, "rule"])
            continue
        pts = places(w)
        if not pts:
            any_placeless_doubt = True
            judged.append([w, "false_alarm" if exact else "at_error"])
            continue
        near = {k for k, (x, y, s, _) in enumerate(errs) for px, py in pts
                if np.hypot(px - x, py - y) <= max(settings.reach_factor * s,
                                                   settings.min_reach_px)}
        hit |= near
        judged.append([w, "at_error" if near else "false_alarm"])
    named = ["at" if k in hit else "placeless" if any_placeless_doubt else "silent"
             for k in range(len(errs))]
    return {"exact": exact, "facts_right": facts_right(game, answer.get("facts", {}),
                                                       truth["facts"]),
            "errors": [[round(x, 1), round(y, 1), what, n]
                       for (x, y, _, what), n in zip(errs, named, strict=True)],
            "warnings": judged}


def _error_text(error) -> str:
    """A refused photo's error as a warning's text: the contract's error object
    {"code", "message"} (a dump of CLI answers) or a plain message."""
    return str(error.get("message", error)) if isinstance(error, dict) else str(error)


def read_truth(path: Path, game: str) -> dict:
    """The scene truth at `path`: a JSON object with "pieces" (a list) and "facts" (an
    object) of `game`. BadInput where it cannot be read, is no such object, or is another
    game's scene (as `tablescore evaluate` refuses it)."""
    from tablescore.jsonfile import read_json_file

    truth = read_json_file(path, "ground truth")
    if not isinstance(truth, dict) or not isinstance(truth.get("pieces"), list) or \
            not isinstance(truth.get("facts"), dict):
        raise BadInput(f"{path}: not a scene truth (an object with 'pieces' and 'facts')")
    if truth.get("game", game) != game:
        raise BadInput(f"{path} is a {truth.get('game')} scene, not {game}")
    return truth


def summary(game: str, photos: dict[str, dict]) -> dict:
    """The per-game table of `judge`'s answers keyed by photo."""
    rows = {"exact_unwarned": [], "exact_warned": [], "wrong_warned": [], "wrong_silent": []}
    kinds: dict[str, list[int]] = {}
    rules: dict[str, int] = {}
    named = {"at": 0, "placeless": 0, "silent": 0}
    for name, j in sorted(photos.items()):
        doubts = [w for w in j["warnings"] if w[1] != "rule"]
        for w, c in j["warnings"]:
            if c == "rule":
                rules[kind(w)] = rules.get(kind(w), 0) + 1
                continue
            row = kinds.setdefault(kind(w), [0, 0])
            row[0] += 1
            row[1] += int(c == "at_error")
        for e in j["errors"]:
            named[e[3]] += 1
        if j["exact"]:
            rows["exact_warned" if doubts else "exact_unwarned"].append(name)
        else:
            at = any(c == "at_error" for _, c in doubts)
            rows["wrong_warned" if at else "wrong_silent"].append(name)
    n_doubts = sum(v[0] for v in kinds.values())
    return {"game": game, "photos": len(photos),
            **{k: len(v) for k, v in rows.items()},
            "exact_warned_photos": [Path(n).name for n in rows["exact_warned"]],
            "wrong_silent_photos": [Path(n).name for n in rows["wrong_silent"]],
            "doubts": n_doubts, "doubts_at_error": sum(v[1] for v in kinds.values()),
            "errors": sum(named.values()), "errors_named_at": named["at"],
            "errors_named_placeless": named["placeless"], "errors_silent": named["silent"],
            "kinds": {k: {"count": n, "at_error": a, "share_at_error": round(a / n, 3)}
                      for k, (n, a) in sorted(kinds.items(), key=lambda kv: -kv[1][0])},
            "rule_notes": rules}


def human(s: dict) -> str:
    lines = [f"{s['game']}: {s['photos']} photos: exact unwarned {s['exact_unwarned']}, exact "
             f"warned {s['exact_warned']}, wrong warned {s['wrong_warned']}, wrong silent "
             f"{s['wrong_silent']}; doubts {s['doubts']} ({s['doubts_at_error']} at an error); "
             f"errors {s['errors']}: named at {s['errors_named_at']}, placeless "
             f"{s['errors_named_placeless']}, silent {s['errors_silent']}"]
    lines += [f"  {v['count']:4d} {v['at_error']:4d} at error  {k}" for k, v in
              s["kinds"].items()]
    lines += [f"  {n:4d} rule note  {k}" for k, n in s["rule_notes"].items()]
    return "\n".join(lines)


def _judge_all(args) -> tuple[dict, dict]:
    """`judge` of each photo of `args.folders` ({photo path: judgement}, {photo path: answer});
    BadInput on bad input (no scenes, an unreadable or another game's truth, a photo missing
    from `args.results` or not a JSON object there, a photo the scorer refuses as input)."""
    from tablescore.jsonfile import read_json_file

    results = read_json_file(args.results, "results") if args.results else None
    if results is not None and not isinstance(results, dict):
        raise BadInput(f"{args.results}: not a JSON object of answers keyed by photo path")
    files = [f for d in args.folders for f in scene_files(d)]
    photos, answers = {}, {}
    for k, (img, truth_path) in enumerate(files):
        truth = read_truth(truth_path, args.game)
        if results is not None:
            answer = results.get(str(img))
            if not isinstance(answer, dict):
                raise BadInput(f"{img} not in {args.results}" + (
                    f" (its keys are paths as the dump wrote them, e.g. {next(iter(results))}:"
                    " give the folders the same way)" if results else "")
                    if answer is None else f"{img} in {args.results}: not a JSON object")
        else:
            from vision.pipeline import score_photo

            try:
                answer = score_photo(img, args.game, OPTIONS.get(args.game, {}))
                answer.pop("timings_ms", None)
            except BadInput as exc:
                raise BadInput(f"{img}: {exc.message}") from None
            except TablescoreError as exc:
                answer = {"error": str(exc)}
            print(f"\r{k + 1}/{len(files)} photos", end="", file=sys.stderr, flush=True)
        answers[str(img)] = answer
        photos[str(img)] = judge(args.game, answer, truth)
    if results is None:
        print(file=sys.stderr)
    return photos, answers


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", required=True, choices=GAMES)
    ap.add_argument("folders", nargs="+", help="scene folders (photo + .json truth)")
    ap.add_argument("--results", help="contract answers keyed by photo path (a dump) instead "
                                      "of scoring the photos")
    ap.add_argument("--save", help="write each photo's judgement (and answer) here")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    try:
        photos, answers = _judge_all(args)
    except BadInput as exc:  # (a missing folder or truth, another game's scene, a bad photo)
        print(json.dumps(exc.to_json()))
        return 2
    s = summary(args.game, photos)
    if args.save:
        try:
            Path(args.save).write_text(json.dumps({"summary": s, "photos": photos,
                                                   "answers": answers}, default=str))
        except OSError as exc:
            print(json.dumps(BadInput(f"cannot write {args.save}: {exc.strerror or exc}")
                             .to_json()))
            return 2
    print(json.dumps(s, indent=1) if args.json else human(s))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
