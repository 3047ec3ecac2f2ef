"""`vision.warn_eval`: each warning sorted into a rule note, at an error or a false alarm,
and `vision.pipeline.one_doubt_a_piece` (one "unsure about" less where another warning
names the same piece)."""

from __future__ import annotations

import json

import pytest

from vision.pipeline import one_doubt_a_piece
from vision.warn_eval import judge, kind, main, places, summary


def card(label: str, x: float, y: float, zone: str = "north", side: float = 60.0) -> dict:
    h = side / 2
    return {"label": label, "zone": zone, "center": [x, y],
            "polygon": [[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]]}


TRUTH = {"game": "troetofanten",
         "pieces": [card("elephant-2", 100, 100), card("elephant-3", 200, 100),
                    card("tootophant-4", 400, 300, "south")],
         "facts": {"zones": {"north": {"elephant-2": 1, "elephant-3": 1},
                             "south": {"tootophant-4": 1}}}}


def answer(pieces: list[dict], warnings: list[str]) -> dict:
    zones: dict = {}
    for p in pieces:
        zones.setdefault(p["zone"], {}).setdefault(p["label"], 0)
        zones[p["zone"]][p["label"]] += 1
    return {"pieces": pieces, "facts": {"zones": zones}, "warnings": warnings}


RIGHT = [card("elephant-2", 101, 99), card("elephant-3", 201, 101),
         card("tootophant-4", 399, 301, "south")]
MISREAD = [card("elephant-2", 101, 99), card("elephant-5", 201, 101),
           card("tootophant-4", 399, 301, "south")]
UNCLEAR = "the elephant at ({x}, {y}): its corner number is unclear, 5 or 3 (0.60 / 0.30)"


@pytest.mark.parametrize("pieces,warnings,exact,want", [
    (RIGHT, [], True, []),
    # a right number doubted: a false alarm
    (RIGHT, [UNCLEAR.format(x=201, y=101)], True, ["false_alarm"]),
    # the misread card named: at the error; a warning 200 px off it is not
    (MISREAD, [UNCLEAR.format(x=201, y=101)], False, ["at_error"]),
    (MISREAD, [UNCLEAR.format(x=399, y=301)], False, ["false_alarm"]),
    # within the erring card's size (60 px) of it, or 30 px at least
    (MISREAD, [UNCLEAR.format(x=255, y=101)], False, ["at_error"]),
    (MISREAD, [UNCLEAR.format(x=265, y=101)], False, ["false_alarm"]),
    # a card missed: a warning at it, and a placeless one on a wrong photo, are at the error
    (RIGHT[:2], ["possibly a card at (405, 296), not counted"], False, ["at_error"]),
    (RIGHT[:2], ["the cards are only 30 px wide in the photo: come closer"], False,
     ["at_error"]),
    # a placeless doubt on an exact photo: a false alarm
    (RIGHT, ["the photo is blurred (moved or out of focus)"], True, ["false_alarm"]),
    # a card read where none lies (extra): a warning at it is at the error
    (RIGHT + [card("mouse", 600, 600, "east")], ["unsure about the mouse at (600, 600) "
                                                 "(confidence 0.40)"], False, ["at_error"]),
    # rule notes: by pattern, and what the scorer says of the truth's own facts
    (RIGHT, ["middle: 3 face-down cards are still in the ring's edge; the game ends only "
             "when the last card has been drawn"], True, ["rule"]),
    (RIGHT, ["south: a single open animal, but piles always hold at least two animals"],
     True, ["rule"]),
    # the same note where the truth has no such pile: a doubt (here at a wrong photo)
    (RIGHT[1:], ["north: a single open animal, but piles always hold at least two animals"],
     False, ["at_error"]),
])
def test_judge(pieces, warnings, exact, want):
    got = judge("troetofanten", answer(pieces, warnings), TRUTH)
    assert got["exact"] == exact
    assert [c for _, c in got["warnings"]] == want


def test_summary_rows_and_silent_errors():
    photos = {
        "a.jpg": judge("troetofanten", answer(RIGHT, []), TRUTH),
        "b.jpg": judge("troetofanten", answer(RIGHT, [UNCLEAR.format(x=101, y=99)]), TRUTH),
        "c.jpg": judge("troetofanten", answer(MISREAD, [UNCLEAR.format(x=201, y=101)]), TRUTH),
        "d.jpg": judge("troetofanten", answer(MISREAD, [UNCLEAR.format(x=101, y=99)]), TRUTH),
    }
    s = summary("troetofanten", photos)
    assert (s["exact_unwarned"], s["exact_warned"], s["wrong_warned"], s["wrong_silent"]) == \
        (1, 1, 1, 1)
    assert s["wrong_silent_photos"] == ["d.jpg"]
    assert (s["doubts"], s["doubts_at_error"]) == (3, 1)
    # each misread: its read and its true card, named at c, silent at d
    assert (s["errors"], s["errors_named_at"], s["errors_silent"]) == (4, 2, 2)
    k = kind(UNCLEAR.format(x=1, y=2))
    assert s["kinds"][k] == {"count": 3, "at_error": 1, "share_at_error": 0.333}


@pytest.mark.parametrize("message,want_kind,want_places", [
    ("unsure about the hat-3 at (12, 34) (confidence 0.41)",
     "unsure about the L at (N, N) (confidence N)", [(12.0, 34.0)]),
    ("glare from a lamp at the centre of the photo (at (599, 530)) washes out",
     "glare from a lamp at the centre of the photo (at (N, N)) washes out", [(599.0, 530.0)]),
    ("4 dice seen; Mauerhuepfer is played with two", "N dice seen; Mauerhuepfer is played "
                                                     "with two", []),
])
def test_kind_and_places(message, want_kind, want_places):
    assert kind(message) == want_kind
    assert places(message) == want_places


def test_main_reads_results_and_refuses_bad_input(tmp_path, capsys):
    (tmp_path / "s.jpg").write_bytes(b"")
    (tmp_path / "s.json").write_text(json.dumps(TRUTH))
    res = tmp_path / "res.json"
    res.write_text(json.dumps({str(tmp_path / "s.jpg"): answer(MISREAD, [])}))
    assert main(["--game", "troetofanten", str(tmp_path), "--results", str(res),
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["wrong_silent"] == 1
    assert main(["--game", "troetofanten", str(tmp_path / "nope"), "--json"]) == 2
    assert "error" in json.loads(capsys.readouterr().out)
    res.write_text("{}")
    assert main(["--game", "troetofanten", str(tmp_path), "--results", str(res)]) == 2


U = "unsure about the hat-3 at (140, 60) (confidence 0.40)"


@pytest.mark.parametrize("warnings,want", [
    ([U], [U]),  # alone: kept
    ([U, "the hat-3 at (140, 60) is read as hat-5: its colour is that number's"],
     ["the hat-3 at (140, 60) is read as hat-5: its colour is that number's"]),
    ([U, "the tile at (140, 60) looks like a frog to the classifier, but its colour says "
         "rabbit-blue"], ["the tile at (140, 60) looks like a frog to the classifier, but its "
                          "colour says rabbit-blue"]),
    # another place (one pixel off is another piece), or another unsure one: both kept
    ([U, "the hat-2 at (141, 60) is read as hat-5"], [U, "the hat-2 at (141, 60) is read as "
                                                         "hat-5"]),
    ([U, "unsure about the dove at (140, 60) (confidence 0.30)"],
     [U, "unsure about the dove at (140, 60) (confidence 0.30)"]),
    ([], []),
])
def test_one_doubt_a_piece(warnings, want):
    assert one_doubt_a_piece(warnings) == want


@pytest.mark.parametrize("truth,results,message", [
    # another game's scene: refused, as `tablescore evaluate` refuses it (it was judged)
    ({**TRUTH, "game": "magic-rabbit"}, None, "is a magic-rabbit scene, not troetofanten"),
    ("{not json", None, "not valid JSON"),  # (was a traceback)
    ({"game": "troetofanten"}, None, "not a scene truth"),
    ([1, 2], None, "not a scene truth"),
    (TRUTH, [1], "not a JSON object of answers"),
    (TRUTH, {"other.jpg": {}}, "not in"),
    (TRUTH, "S", "not a JSON object"),  # the photo's answer a string
])
def test_main_refuses_bad_input_clearly(tmp_path, capsys, truth, results, message):
    """Each as exit 2 and the contract's error JSON naming what is wrong, never a crash."""
    (tmp_path / "s.jpg").write_bytes(b"")
    (tmp_path / "s.json").write_text(truth if isinstance(truth, str) else json.dumps(truth))
    res = tmp_path / "res.json"
    res.write_text(json.dumps({str(tmp_path / "s.jpg"): answer(RIGHT, [])} if results is None
                              else {str(tmp_path / "s.jpg"): results} if results == "S"
                              else results))
    assert main(["--game", "troetofanten", str(tmp_path), "--results", str(res)]) == 2
    err = json.loads(capsys.readouterr().out)["error"]
    assert err["code"] == "bad_input" and message in err["message"]


def test_main_refuses_a_photo_it_cannot_decode(tmp_path, capsys):
    """Scoring (no --results): a photo that is no image is named, exit 2 (was a traceback)."""
    (tmp_path / "s.jpg").write_bytes(b"not a jpeg")
    (tmp_path / "s.json").write_text(json.dumps(TRUTH))
    assert main(["--game", "troetofanten", str(tmp_path), "--json"]) == 2
    err = json.loads(capsys.readouterr().out)["error"]
    assert str(tmp_path / "s.jpg") in err["message"]


@pytest.mark.parametrize("error", ["no cloth found", {"code": "not_found",
                                                      "message": "no cloth found"}])
def test_judge_a_refused_photo(error):
    """A refused photo's error (a message, or the contract's error object as the CLI's JSON
    has it: was a TypeError) is a placeless doubt, at the error of the cards not read."""
    got = judge("troetofanten", {"error": error}, TRUTH)
    assert not got["exact"]
    assert got["warnings"] == [["no cloth found", "at_error"]]
    assert [e[3] for e in got["errors"]] == ["placeless"] * 3


V = "unsure about the hat-3 at ({at}) (confidence 0.40)"


@pytest.mark.parametrize("at,other,dropped", [
    ("-5, -0", "the hat-3 at (-5, -0) is read as hat-5", True),  # off the photo's edge
    ("123456, 7", "the tile at (123456, 7) looks like a frog", True),
    ("1234, 60", "the tile at (234, 60) looks like a frog", False),  # a number's tail
    ("1234, 60", "the tile at (1234, 600) looks like a frog", False),
    ("5, 60", "the tile at (-5, 60) looks like a frog", False),
    ("140, 60", "glare (at (140, 60)) washes out", True),  # any warning at the point
])
def test_one_doubt_a_piece_odd_places(at, other, dropped):
    u = V.format(at=at)
    assert one_doubt_a_piece([u, other]) == ([other] if dropped else [u, other])


@pytest.mark.parametrize("odd", [
    "unsure about the magician yellow at (5, 6) (confidence 0.40)",  # a label with a space
    "unsure about the hat-3 at (5, 6) (confidence nan)",
    "unsure about the hat-3 at (5.5, 6) (confidence 0.40)",
    "unsure about the hat-3 at (5, 6) (confidence 0.40) and more",
])
def test_one_doubt_a_piece_keeps_what_it_cannot_parse(odd):
    """A text not in `unsure_warnings`' exact words is never dropped (nor crashes)."""
    other = "the tile at (5, 6) looks like a frog"
    assert one_doubt_a_piece([odd, other]) == [odd, other]
