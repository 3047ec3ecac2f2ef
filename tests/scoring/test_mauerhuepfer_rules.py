"""Every example of the Mauerhuepfer rulebook, each on a small board built for it, plus the
parent-friendly reasons of check_move."""

import pytest

from scoring.mauerhuepfer import (
    Position,
    apply_move,
    board_from_dict,
    check_move,
    legal_moves,
    parse_position,
)
from scoring.mauerhuepfer.board import SerpentineSettings, serpentine_board


def make_board(rows, cols, jumps=(), goals=(), starts=None):
    """A serpentine board: row 0 is fields 1..cols left to right, row 1 runs back right to
    left (its first field lies under the last field of row 0), ...; walls between the rows.
    The goal field defaults to the last field."""
    raw = serpentine_board(SerpentineSettings(rows=rows, cols=cols), dict(jumps),
                           goals or [str(rows * cols)], starts or {"red": "1"})
    return board_from_dict(raw)


def pos(board, **places):
    """pos(board, red=["2"], yellow=["4"]) -> Position."""
    p, _ = parse_position({"positions": {f"pawn-{c}": v for c, v in places.items()}}, board)
    return p


def summary(moves):
    """(from, to, [(die, kind, direction)], {beaten fields}, home) per move."""
    return {(m.start, m.to, tuple((g.die, g.kind, g.direction) for g in m.legs),
             frozenset(f for _, f in m.beaten), m.home) for m in moves}


F, B = "forward", "backward"


def test_2_and_5_moves_seven_fields_counting_occupied_ones():
    # "Red rolled 2 and 5. The pawn moves 2 and then 5 fields further. Occupied fields are
    # counted." A straight track 1..12; red on 2, a yellow pawn on 4 is counted, not skipped.
    board = make_board(1, 12)
    moves = legal_moves(board, pos(board, red=["2"], yellow=["4"]), "red", (2, 5))
    assert summary(moves) == {
        ("2", "9", ((2, "step", F), (5, "step", F)), frozenset(), False),  # 2 then 5 on
        ("2", "9", ((5, "step", F), (2, "step", F)), frozenset(), False),  # 5 then 2 on
        ("2", "5", ((5, "step", F), (2, "step", B)), frozenset(), False),  # 5 on, 2 back
    }  # backwards the track ends after one field, so every other way is impossible


def test_2_and_5_cannot_be_split_between_two_pawns():
    board = make_board(1, 12)
    p = pos(board, red=["2", "8"])
    v = check_move(board, p, "red", (2, 5), [{"from": "2", "to": "4"}, {"from": "8", "to": "3"}])
    assert not v.ok and "same pawn" in v.reason and "split" in v.reason
    # and every legal move moves one pawn with both dice
    for m in legal_moves(board, p, "red", (2, 5)):
        assert sorted(g.die for g in m.legs) == [2, 5]


@pytest.fixture
def wall_board():
    """Rulebook wall picture: three rows of 6. Field 2 has a 3 on its wall piece (to 11),
    field 3 a 4 (to 10), and field 11 a 5 on the next wall (to 14, the rulebook's "X")."""
    return make_board(3, 6, {(0, 1, 1): 3, (0, 2, 1): 4, (1, 1, 1): 5})


def test_1_and_4_one_field_then_wall_jump(wall_board):
    # "Red rolled 1 and 4. First the pawn moves 1 field forward, then it jumps over the wall
    # with the 4."
    moves = legal_moves(wall_board, pos(wall_board, red=["2"]), "red", (1, 4))
    jump = [m for m in moves if m.legs[1].kind == "jump"]
    assert summary(jump) == {("2", "10", ((1, "step", F), (4, "jump", None)), frozenset(), False)}
    assert jump[0].legs[1].wall == 1


def test_3_and_5_jump_two_walls_to_x(wall_board):
    # "Had Red rolled 3 and 5, the pawn could have jumped over two walls and reached field X."
    moves = legal_moves(wall_board, pos(wall_board, red=["2"]), "red", (3, 5))
    two = [m for m in moves if all(g.kind == "jump" for g in m.legs)]
    assert summary(two) == {("2", "14", ((3, "jump", None), (5, "jump", None)), frozenset(),
                             False)}
    assert [g.wall for g in two[0].legs] == [1, 2]


def test_3_and_3_beats_only_on_the_last_field():
    # "Red rolled 3 and 3. The pawn is moved 6 fields forward. The yellow pawn reached after
    # 3 steps stays and is not beaten, but the green pawn at the end is beaten."
    board = make_board(1, 10)
    p = pos(board, red=["1"], yellow=["4"], green=["7"])
    moves = legal_moves(board, p, "red", (3, 3))
    straight = [m for m in moves if [g.direction for g in m.legs] == [F, F]]
    assert len(straight) == 1
    m = straight[0]
    assert m.to == "7" and m.beaten == (("pawn-green", "7"),)
    after = apply_move(p, m)
    assert after.places("yellow") == ["4"] and after.places("green") == ["B"]
    assert after.places("red") == ["7"]


def test_2_and_5_direction_change_at_wall_jump_beats_two():
    # "Red rolled 2 and 5. The pawn first moves 2 fields forward and then jumps over the wall
    # with the 5. Because Red changes direction on the field of the yellow pawn, the yellow
    # pawn is beaten. Red then also beats the black pawn at the end of the move."
    board = make_board(2, 6, {(0, 2, 1): 5})  # field 3 jumps with a 5 to field 10
    p = pos(board, red=["1"], yellow=["3"], black=["10"])
    moves = legal_moves(board, p, "red", (2, 5))
    jump = [m for m in moves if m.legs[1].kind == "jump"]
    assert summary(jump) == {("1", "10", ((2, "step", F), (5, "jump", None)),
                              frozenset({"3", "10"}), False)}
    after = apply_move(p, jump[0])
    assert after.places("yellow") == ["B"] and after.places("black") == ["B"]


def test_2_and_4_back_and_forth_beats_two():
    # "Red rolled 2 and 4. First 2 fields to the left, then 4 fields to the right. Because Red
    # changes direction on the yellow pawn's field, it is beaten; Red also beats green."
    board = make_board(1, 10)
    p = pos(board, red=["5"], yellow=["3"], green=["7"])
    moves = legal_moves(board, p, "red", (2, 4))
    back_forth = [m for m in moves if [(g.die, g.direction) for g in m.legs] == [(2, B), (4, F)]]
    assert len(back_forth) == 1
    assert set(back_forth[0].beaten) == {("pawn-yellow", "3"), ("pawn-green", "7")}


def test_2_and_3_back_and_forth_onto_the_goal():
    # "Red rolled 2 and 3. First 2 fields to the left, then 3 to the right. Because Red ends
    # the move on the goal field Z, the pawn is placed in the goal area."
    board = make_board(1, 10, goals=["6"])
    p = pos(board, red=["5", "B"])
    moves = legal_moves(board, p, "red", (2, 3))
    home = [m for m in moves if m.home]
    assert summary(home) == {
        ("5", "6", ((2, "step", B), (3, "step", F)), frozenset(), True),  # the rulebook's way
        ("5", "6", ((3, "step", F), (2, "step", B)), frozenset(), True),  # 3 on, 2 back
    }
    after = apply_move(p, home[0])
    assert sorted(after.places("red")) == ["B", "d"]  # goal area filled from d


def test_no_goal_with_one_die_and_letting_the_other_lapse():
    board = make_board(1, 10, goals=["6"])
    p = pos(board, red=["5"])
    assert not [m for m in legal_moves(board, p, "red", (1, 4)) if m.home]
    v = check_move(board, p, "red", (1, 4), {"from": "5", "to": "goal"})
    assert not v.ok and "lapse" in v.reason


def test_enter_from_b_counts_start_field():
    # "Pawns enter on the start field A. The start field must always be counted!"
    board = make_board(1, 12, starts={"red": "3"})
    moves = legal_moves(board, pos(board, red=["B"]), "red", (1, 2))
    # A=3 counts: 1 onto A then 2 either way (5, 1), or 2 = A and one on, then 1 either way
    assert {m.to for m in moves} == {"5", "1", "3"}
    for m in moves:
        assert m.legs[0].kind == "enter" and m.legs[0].path[0] == "3"
    v = check_move(board, pos(board, red=["B"]), "red", (1, 2), {"from": "B", "to": "6"})
    assert not v.ok and "must be counted" in v.reason


def test_own_pawn_blocks_then_another_pawn_must_move():
    # "Own pawns cannot be beaten. In this case the player must move a different pawn."
    board = make_board(1, 8)
    p = pos(board, red=["1", "4"])  # 1+2 from field 1 forward ends on own pawn at 4
    v = check_move(board, p, "red", (1, 2), {"from": "1", "to": "4"})
    assert not v.ok and "own red pawn" in v.reason and "different pawn" in v.reason
    assert all(m.to != "4" for m in legal_moves(board, p, "red", (1, 2)))


@pytest.mark.parametrize(
    "claim, ok, words",
    [
        # the rulebook's own case: 2 onto the yellow pawn, then the 5 over the wall
        ({"from": "1", "to": "14"}, True, "legal"),
        # 5 used for the wall jump (6 -> 11), and then 5 more fields: that die is spent
        ({"from": "6", "to": "16"}, False, "the 5 was used for the wall jump, so the pawn "
                                           "cannot also move 5 fields"),
        # claiming only the black pawn was beaten: yellow at the stop before the jump is too
        ({"from": "1", "to": "14", "beats": ["14"]}, False, "beats the yellow pawn on field 3"),
        # only one die moved
        ({"from": "1", "to": "3"}, False, "both dice must be used"),
        # a pawn that is not there
        ({"from": "2", "to": "9"}, False, "not a red pawn"),
        # the right field, but the legs told in an impossible way
        ({"from": "1", "to": "14", "legs": [{"die": 5}, {"die": 2}]}, False, "not that way"),
        # a pawn does not walk back into B
        ({"from": "6", "to": "B"}, False, "only a beaten pawn"),
        # 2 forward onto the yellow pawn, turn there (beating it), 5 back
        ({"from": "6", "to": "3"}, True, "beats the yellow pawn"),
    ],
)
def test_check_move_reasons(claim, ok, words):
    # rows 1..8 and 16..9; field 3 jumps with a 5 to 14, field 6 with a 5 to 11
    board = make_board(2, 8, {(0, 2, 1): 5, (0, 5, 1): 5})
    p = pos(board, red=["1", "6"], yellow=["3"], black=["14"])
    v = check_move(board, p, "red", (2, 5), claim)
    assert v.ok is ok, v.reason
    assert words in v.reason


def test_check_move_direction_change_inside_one_die():
    board = make_board(1, 14)
    p = pos(board, red=["6"])
    # legal ends are 13, 9 and 3; 7 needs part of the 5 forward and the rest back
    assert {m.to for m in legal_moves(board, p, "red", (2, 5))} == {"13", "9", "3"}
    v = check_move(board, p, "red", (2, 5), {"from": "6", "to": "7"})
    assert not v.ok and "carried out completely" in v.reason


def test_check_move_passed_pawn_is_not_beaten():
    board = make_board(1, 10)
    p = pos(board, red=["1"], yellow=["4"], green=["7"])
    v = check_move(board, p, "red", (3, 3), {"from": "1", "to": "7", "beats": ["4", "7"]})
    assert not v.ok and "jumped over, not beaten" in v.reason
    v = check_move(board, p, "red", (3, 3), {"from": "1", "to": "7", "beats": ["7"]})
    assert v.ok


def test_wall_number_not_on_the_dice():
    board = make_board(2, 6, {(0, 2, 1): 5})
    v = check_move(board, pos(board, red=["3"]), "red", (2, 3), {"from": "3", "to": "10"})
    assert not v.ok and "shows 5" in v.reason


def test_game_over_when_four_pawns_home():
    board = make_board(1, 10, goals=["6"])
    p = pos(board, red=["a", "b", "c", "d"], yellow=["2"])
    assert p.game_over() and p.winner() == "red"
    assert legal_moves(board, p, "yellow", (1, 2)) == []
    v = check_move(board, p, "yellow", (1, 2), {"from": "2", "to": "5"})
    assert not v.ok and "game is over" in v.reason


def test_no_legal_move_means_the_turn_passes():
    board = make_board(1, 3)
    p = pos(board, red=["2"])
    assert legal_moves(board, p, "red", (6, 6)) == []  # every run leaves the short track


def test_position_is_immutable_and_apply_keeps_counts():
    board = make_board(1, 10)
    p = pos(board, red=["1", "B"], yellow=["3"])
    m = legal_moves(board, p, "red", (1, 1))[0]
    q = apply_move(p, m)
    assert isinstance(q, Position) and p.places("red") == ["1", "B"]
    assert len(q.places("red")) == 2 and len(q.places("yellow")) == 1
