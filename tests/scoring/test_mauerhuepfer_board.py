"""The Mauerhuepfer board file: the shipped default board's geometry, and validation of bad
boards naming the bad entry."""

import copy
import json
import math

import pytest

from scoring.labels import PAWN_COLOURS
from scoring.mauerhuepfer import DEFAULT_BOARD_PATH, board_from_dict, load_board
from scoring.mauerhuepfer.default_board import build, dumps
from tablescore.errors import BadInput, FactsError

RAW = json.loads(DEFAULT_BOARD_PATH.read_text())
BOARD = load_board()


def test_shipped_file_is_what_the_generator_builds():
    assert RAW == build()
    assert DEFAULT_BOARD_PATH.read_text() == dumps()


def test_default_board_follows_the_rulebook():
    assert BOARD.size_mm == (500, 500)  # pieces.md: about 500 x 500 mm
    assert len(BOARD.walls) == 5  # "The track is divided by five walls"
    assert len(BOARD.goal_fields) == 2  # "one of the two goal fields Z"
    assert {a.colour for a in BOARD.colours} == set(PAWN_COLOURS)
    numbered = [f for f in BOARD.fields if f.jumps]
    assert len(numbered) >= len(BOARD.fields) / 2  # "on many fields ... wall pieces"
    assert {j.number for f in numbered for j in f.jumps} == set(range(1, 7))
    assert {j.wall for f in numbered for j in f.jumps} == {w.id for w in BOARD.walls}
    starts = [a.start_field for a in BOARD.colours]
    assert len(set(starts)) == 4 and not set(starts) & set(BOARD.goal_fields)


def _discs():
    """(name, x, y, radius) of everything drawn round on the default board."""
    r = BOARD.field_radius_mm
    out = [(f"field {f.id}", f.x, f.y, r) for f in BOARD.fields]
    for a in BOARD.colours:
        out.append((f"B {a.colour}", *a.start_center, a.start_radius))
        out += [(f"goal {a.colour} {s}", x, y, r) for s, (x, y) in a.goal_slots]
    return out


def test_default_board_drawables_fit_and_do_not_overlap():
    discs = _discs()
    w, h = BOARD.size_mm
    for name, x, y, r in discs:
        assert r <= x <= w - r and r <= y <= h - r, name
    for i, (n1, x1, y1, r1) in enumerate(discs):
        for n2, x2, y2, r2 in discs[i + 1:]:
            assert math.hypot(x1 - x2, y1 - y2) >= r1 + r2, (n1, n2)
    for a in BOARD.colours:  # the 4 B slots lie inside the start area
        for x, y in a.start_slots:
            assert math.hypot(x - a.start_center[0], y - a.start_center[1]) < a.start_radius


def test_track_neighbours_are_close_and_walls_separate_rows():
    for f, g in zip(BOARD.fields, BOARD.fields[1:], strict=False):
        d = math.hypot(f.x - g.x, f.y - g.y)
        assert 2 * BOARD.field_radius_mm <= d <= 50, (f.id, g.id)
    marks = BOARD.jump_marks()
    assert len(marks) == sum(len(f.jumps) for f in BOARD.fields)
    for fid, number, (x, y) in marks:  # the number sits on a wall line, near its field
        f = BOARD.field(fid)
        assert any(abs(y - w.line[0][1]) < 1e-6 for w in BOARD.walls)
        assert abs(x - f.x) < 1e-6 and 1 <= number <= 6


def test_load_board_missing_file():
    with pytest.raises(BadInput, match="not found"):
        load_board("/nonexistent/board.json")


def _set(path, value):
    """A copy of the default board with one entry replaced (path: list of keys/indices);
    value DELETE removes the entry."""
    raw = copy.deepcopy(RAW)
    node = raw
    for key in path[:-1]:
        node = node[key]
    if value is DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return raw


DELETE = object()


@pytest.mark.parametrize(
    "path, value, where",
    [
        (["size_mm"], [500], "board.size_mm"),  # one number instead of width, height
        (["fields", 3, "x"], "left", "board.fields[3].x"),  # not a number
        (["fields", 3, "y"], 900, "board.fields[3].y"),  # outside the 500 mm board
        (["fields", 4, "id"], "1", "board.fields[4].id"),  # duplicate field id
        (["fields", 4, "id"], "B", "board.fields[4].id"),  # reserved for start area
        (["fields", 0, "jumps", 0, "to"], "99", "board.fields[0].jumps[0].to"),  # no such field
        (["fields", 0, "jumps", 0, "number"], 7, "board.fields[0].jumps[0].number"),  # die 1-6
        (["fields", 0, "jumps", 0, "wall"], 9, "board.fields[0].jumps[0].wall"),  # no wall 9
        (["fields", 0, "jumps", 0, "wall"], 3, "board.fields[0].jumps[0]"),  # doesn't cross 3
        (["fields", 2, "colour"], "red", "board.fields[2].colour"),  # unknown entry
        (["goal_fields"], ["33", "34", "35"], "board.goal_fields"),  # three goal fields
        (["goal_fields", 1], "Z", "board.goal_fields[1]"),  # not a field
        (["walls", 1, "line"], [[0, 0]], "board.walls[1].line"),  # one point is no line
        (["colours", "purple"], {}, "board.colours.purple"),  # not a pawn colour
        (["colours", "red", "start_field"], "0", "board.colours.red.start_field"),
        (["colours", "red", "start_area", "slots"], [[1, 1]], "board.colours.red.start_area"),
        (["colours", "red", "goal_area", "d"], DELETE, "board.colours.red.goal_area.d"),
        (["walls"], DELETE, "board.walls"),  # required
        (["schema"], "other/2", "board.schema"),
    ],
)
def test_bad_board_names_the_entry(path, value, where):
    with pytest.raises(FactsError) as exc:
        board_from_dict(_set(path, value))
    assert exc.value.path.startswith(where), exc.value.message


def test_board_reversal_and_loop_walk():
    raw = copy.deepcopy(RAW)
    rev = BOARD.reversed()
    assert rev.walk("2", 1, 1) == ("1",) and BOARD.walk("2", 1, 1) == ("3",)
    assert BOARD.walk("2", -1, 2) is None  # the open track ends at field 1
    raw["closed"] = True
    loop = board_from_dict(raw)
    assert loop.walk("2", -1, 2) == ("1", "66")
    assert loop.track_distance("1", "66") == 1


@pytest.mark.parametrize(
    "x, y, colour, place",
    [
        (92.5, 90.0, "red", "1"),  # exactly on field 1
        (100.0, 95.0, "red", "1"),  # a little off its centre
        (45.0, 45.0, "red", "B"),  # in red's start area
        (30.15, 59.85, "red", "B"),  # on one of its slots
        (209.0, 40.0, "red", "d"),  # red goal slot d
        (209.0, 460.0, "black", "d"),  # black goal slot d (bottom edge)
        (209.0, 460.0, "red", None),  # not red's goal area, and no field near
        (250.0, 250.0, "green", None),  # the middle of the track, between fields
    ],
)
def test_place_at_maps_millimetres_to_position_ids(x, y, colour, place):
    assert BOARD.place_at(x, y, colour) == place
