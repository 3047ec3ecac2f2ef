"""Mauerhuepfer through the CLI: `moves`, `moves --check`, `score --facts`, and error JSON."""

import json

import pytest

from scoring.mauerhuepfer import DEFAULT_BOARD_PATH, score_facts

RAW = json.loads(DEFAULT_BOARD_PATH.read_text())


def test_moves_lists_legal_moves(run_cli, write_json):
    pos = write_json({"turn": "red", "positions": {"pawn-red": ["B", "3"],
                                                   "pawn-yellow": ["5"]}})
    code, out = run_cli("moves", "--game", "mauerhuepfer", "--position", pos,
                        "--dice", 2, 5, "--json")
    assert code == 0, out
    assert out["colour"] == "red" and out["dice"] == [2, 5] and out["count"] == len(out["moves"])
    assert out["count"] > 0 and not out["game_over"]
    for m in out["moves"]:
        assert m["pawn"] == "pawn-red" and m["from"] in ("B", "3")
        assert sorted(g["die"] for g in m["legs"]) == [2, 5] and m["text"]
    # the wall jump from field 5 (number 5) after moving 2 onto the yellow pawn
    jump = [m for m in out["moves"] if m["from"] == "3" and m["legs"][1]["kind"] == "jump"]
    assert jump and jump[0]["beats"] == [{"label": "pawn-yellow", "field": "5"}]


def test_moves_colour_option_overrides_turn_and_dice_from_file(run_cli, write_json):
    pos = write_json({"turn": "red", "dice": [1, 1],
                      "positions": {"pawn-red": ["3"], "pawn-black": ["60"]}})
    code, out = run_cli("moves", "--game", "mauerhuepfer", "--position", pos,
                        "--colour", "black", "--json")
    assert code == 0 and out["colour"] == "black" and out["dice"] == [1, 1]
    assert {m["from"] for m in out["moves"]} == {"60"}


def test_moves_check(run_cli, write_json):
    pos = write_json({"turn": "red", "positions": {"pawn-red": ["3"]}})
    good = write_json({"from": "3", "to": "10"})
    bad = write_json({"from": "3", "to": "5"})
    code, out = run_cli("moves", "--game", "mauerhuepfer", "--position", pos, "--dice", 2, 5,
                        "--check", good, "--json")
    assert code == 0 and out["ok"] and out["moves"]
    code, out = run_cli("moves", "--game", "mauerhuepfer", "--position", pos, "--dice", 2, 5,
                        "--check", bad, "--json")
    assert code == 0 and not out["ok"] and "both dice" in out["reason"]


def test_moves_human_output(run_cli, write_json):
    pos = write_json({"turn": "red", "positions": {"pawn-red": ["3"]}})
    code, out = run_cli("moves", "--game", "mauerhuepfer", "--position", pos, "--dice", 2, 5)
    assert code == 0 and "red pawn on field 3" in out


@pytest.mark.parametrize(
    "position, extra, code_word, where",
    [
        # unknown field id on the board
        ({"turn": "red", "positions": {"pawn-red": ["99"]}}, [], "bad_facts",
         "position.positions.pawn-red[0]"),
        # unknown label
        ({"turn": "red", "positions": {"pawn-blue": ["3"]}}, [], "bad_facts",
         "position.positions.pawn-blue"),
        # two pawns on one field
        ({"turn": "red", "positions": {"pawn-red": ["3"], "pawn-green": ["3"]}}, [],
         "bad_facts", "position.positions.pawn-green[0]"),
        # five pawns of one colour
        ({"turn": "red", "positions": {"pawn-red": ["B"] * 5}}, [], "bad_facts",
         "position.positions.pawn-red"),
        # unknown colour on turn
        ({"turn": "pink", "positions": {}}, [], "bad_facts", "position.turn"),
        # nobody's turn
        ({"positions": {"pawn-red": ["3"]}}, [], "bad_option", "--colour"),
        # a die of 7
        ({"turn": "red", "positions": {}}, ["--dice", "7", "1"], "bad_facts", "--dice[0]"),
        # a misspelt key
        ({"turn": "red", "postions": {}}, [], "bad_facts", "position.postions"),
    ],
)
def test_bad_position_gives_error_json(run_cli, write_json, position, extra, code_word, where):
    pos = write_json(position)
    args = ["moves", "--game", "mauerhuepfer", "--position", pos, "--json"]
    args += extra or ["--dice", 2, 5]
    code, out = run_cli(*args)
    assert code == 2, out
    assert out["error"]["code"] == code_word
    assert where in out["error"]["message"]


@pytest.mark.parametrize(
    "board, where",
    [
        ("{not json", "not valid JSON"),
        ({**RAW, "fields": RAW["fields"][:1]}, "board.fields"),  # one field is no track
        ({**RAW, "goal_fields": ["33", "nope"]}, "board.goal_fields[1]"),
        ({**RAW, "fields": [{**RAW["fields"][0], "x": -5}] + RAW["fields"][1:]},
         "board.fields[0].x"),
    ],
)
def test_bad_board_gives_error_json(run_cli, write_json, board, where):
    path = write_json(board)
    pos = write_json({"turn": "red", "positions": {}})
    code, out = run_cli("moves", "--game", "mauerhuepfer", "--position", pos, "--dice", 1, 2,
                        "--board", path, "--json")
    assert code == 2 and out["error"]["code"] == "bad_facts"
    assert where in out["error"]["message"]
    facts = write_json({"dice": [1, 2], "pawns": {}, "positions": {}})
    code, out = run_cli("score", "--game", "mauerhuepfer", "--facts", facts, "--board", path,
                        "--json")
    assert code == 2 and where in out["error"]["message"]


def test_moves_for_another_game_is_refused(run_cli, write_json):
    pos = write_json({})
    code, out = run_cli("moves", "--game", "troetofanten", "--position", pos, "--dice", 1, 2)
    assert code == 2 and out["error"]["code"] == "bad_option"
    code, out = run_cli("moves", "--game", "chess", "--position", pos, "--dice", 1, 2)
    assert code == 2 and out["error"]["code"] == "unknown_game"


def test_score_from_facts_with_board_option(run_cli, write_json):
    board = write_json(RAW)
    facts = write_json({"dice": [2, 3], "pawns": {"pawn-red": 4, "pawn-black": 4},
                        "positions": {"pawn-red": ["a", "b", "c", "d"],
                                      "pawn-black": ["B", "60", "d", "c"]}})
    code, out = run_cli("score", "--game", "mauerhuepfer", "--facts", facts, "--board", board,
                        "--json")
    assert code == 0, out
    score = out["score"]
    assert score["home"] == {"red": 4, "yellow": 0, "green": 0, "black": 2}
    assert score["winner"] == "red" and score["game_over"]
    assert [r["colour"] for r in score["standing"]] == ["red", "black"]


@pytest.mark.parametrize(
    "facts, home, winner, warning",
    [
        # nobody home yet; three yellow pawns seen
        ({"dice": [1, 6], "pawns": {"pawn-yellow": 3},
          "positions": {"pawn-yellow": ["B", "12", "40"]}},
         {"yellow": 0}, None, "only 3 of the 4 yellow pawns"),
        # counts disagree with the positions listed
        ({"dice": [2, 2], "pawns": {"pawn-green": 2},
          "positions": {"pawn-green": ["goal", "B", "B", "B"]}},
         {"green": 1}, None, "says 2 but facts.positions lists 4"),
        # two pawns read on one field: a warning, not an error, for photo facts
        ({"dice": [3, 4], "positions": {"pawn-red": ["5", "B", "B", "B"],
                                        "pawn-black": ["5", "d", "c", "b"]}},
         {"red": 0, "black": 3}, None, "field 5 holds two pawns"),
        # a pawn still standing on the goal field
        ({"dice": [3, 4], "positions": {"pawn-red": ["33", "B", "B", "B"]}},
         {"red": 0}, None, "stands on goal field 33"),
        # one die seen
        ({"dice": [5], "positions": {"pawn-red": ["a", "b", "c", "d"]}},
         {"red": 4}, "red", "1 dice seen"),
    ],
)
def test_score_facts_warnings(facts, home, winner, warning):
    score, warnings = score_facts(facts, {})
    for colour, n in home.items():
        assert score["home"][colour] == n
    assert score["winner"] == winner
    assert any(warning in w for w in warnings), warnings


def test_standing_orders_by_home_then_fields_to_go():
    score, _ = score_facts({"dice": [1, 2], "positions": {
        "pawn-red": ["B", "B", "B", "B"], "pawn-yellow": ["30", "B", "B", "B"],
        "pawn-green": ["a", "B", "B", "B"]}}, {})
    assert [r["colour"] for r in score["standing"]] == ["green", "yellow", "red"]
    yellow = score["standing"][1]
    assert yellow["track"] == 1 and yellow["start"] == 3 and yellow["rank"] == 2
