"""The contract's `--facts` path: "score is computed by the same scorer" as the photo's. For
each game, a committed photo's facts scored again from a file give the photo's score, and the
answer has the contract's keys and types. Mauerhuepfer's photo score had `moves` (the legal
moves for the roll) that the same facts typed in did not (acceptance pass, session 17 H5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SCENES = Path(__file__).resolve().parents[2] / "datasets" / "scenes"
OPTIONS = {
    "simsala-hopp": ["--magician", "blue", "--players", "yellow,orange,blue"],
    "magic-rabbit": ["--players", "2"],
    "hop-la-bille": ["--variant", "pile"],
    "mauerhuepfer": [],
    "troetofanten": [],
}
KEYS = {"game", "image", "area", "pieces", "facts", "score", "warnings", "timings_ms"}


@pytest.mark.parametrize("game", list(OPTIONS))
def test_facts_of_a_photo_score_the_same(run_cli, write_json, game):
    photo = sorted((SCENES / game).glob("*.jpg"))[0]
    code, seen = run_cli("score", photo, "--game", game, *OPTIONS[game], "--json")
    assert code == 0, seen
    assert KEYS <= set(seen)
    code, typed = run_cli("score", "--game", game, "--facts",
                          write_json(json.dumps(seen["facts"])), *OPTIONS[game], "--json")
    assert code == 0, typed
    assert KEYS <= set(typed)
    assert typed["facts"] == seen["facts"] and typed["pieces"] == []
    assert typed["score"] == seen["score"]


def test_mauerhuepfer_facts_typed_in_get_the_moves(run_cli, write_json):
    facts = {"dice": [2, 5], "pawns": {"pawn-red": 4},
             "positions": {"pawn-red": ["B", "B", "B", "12"]}}
    code, out = run_cli("score", "--game", "mauerhuepfer", "--facts", write_json(facts),
                        "--json")
    assert code == 0, out
    moves = out["score"]["moves"]
    assert list(moves) == ["red"] and moves["red"]
    assert all({"pawn", "from", "to", "text"} <= set(m) for m in moves["red"])
    code, out = run_cli("score", "--game", "mauerhuepfer", "--facts",
                        write_json({**facts, "dice": [3]}), "--json")
    assert code == 0 and out["score"]["moves"] == {}  # one die: no roll to move by
