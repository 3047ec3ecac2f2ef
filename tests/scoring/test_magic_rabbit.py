"""Magic Rabbit rule engine: rulebook examples, tables, properties and the CLI facts path."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from scoring import magic_rabbit as mr
from scoring.magic_rabbit import Action, Hourglass, Pile
from tablescore.errors import FactsError, OptionError, RuleError

# Seeded, bounded property runs (the whole file stays well under a few seconds).
PROPS = settings(max_examples=150, derandomize=True, deadline=None)


def line_of(*pairs, doves=()):
    """Build a line from (hat, rabbit) pairs; `doves` = positions carrying a dove."""
    return tuple(Pile(h, r, i in doves) for i, (h, r) in enumerate(pairs))


def hats(*numbers, doves=()):
    """A line whose rabbits all match their hats, with hats in the given order."""
    return line_of(*[(n, n) for n in numbers], doves=doves)


# --- rulebook worked examples ------------------------------------------------------------


@pytest.mark.parametrize(
    "players, doves, uncovered",
    [
        (4, 2, 7),  # "4 PLAYERS: place 2 Doves" ... "with 2 Doves, the remaining 7 hats"
        (3, 3, 6),  # "3 PLAYERS: place 3 Doves" ... "with 3 Doves, 6 hats"
        (2, 4, 5),  # "2 PLAYERS: place 4 Doves" ... "with 4 Doves, 5 hats"
        (1, 5, 4),  # "1 PLAYER: place 5 Doves" ... "with 5 Doves, 4 hats"
    ],
)
def test_rulebook_dove_counts(players, doves, uncovered):
    assert mr.dove_count(players) == doves
    assert mr.FULL_TILES - mr.dove_count(players) == uncovered


@pytest.mark.parametrize("players", [0, 5, -1, True, "2", 2.0, None])  # not 1-4 players
def test_dove_count_rejects_other_player_counts(players):
    with pytest.raises(RuleError):
        mr.dove_count(players)


def test_rulebook_winning_line():
    # "The winning line reads, from the Magician tile: Hats 1, 2, ..., 9, each with the
    # matching Rabbit underneath."
    line = hats(1, 2, 3, 4, 5, 6, 7, 8, 9)
    assert line == mr.winning_line()
    verdict = mr.check_line(line)
    assert verdict.won is True
    assert verdict.wrong_positions == () and verdict.problems == ()


def test_rulebook_winning_line_with_doves_still_wins():
    # Doves sit on the hats during play; they do not change the reveal.
    line = hats(1, 2, 3, 4, 5, 6, 7, 8, 9, doves=(0, 4, 8))
    assert mr.check_line(line).won is True


def test_rulebook_hourglass_is_two_and_a_half_minutes():
    # "It determines the length of the game: 2m 30s."
    assert mr.HOURGLASS_SECONDS == 2 * 60 + 30
    glass = Hourglass(started_at=0.0)
    assert glass.remaining(0.0) == 150.0
    assert not glass.expired(149.9)
    assert glass.expired(150.0)


@pytest.mark.parametrize(
    "tiles, numbers",
    [
        (9, (1, 2, 3, 4, 5, 6, 7, 8, 9)),  # full game
        (7, (1, 2, 3, 4, 5, 6, 7)),  # young children: "remove 2 ... Rabbits"
        (6, (1, 2, 3, 4, 5, 6)),  # young children: "remove ... 3 Rabbits"
    ],
)
def test_rulebook_young_children_sizes(tiles, numbers):
    assert mr.numbers_for(tiles) == numbers
    assert mr.check_line(mr.winning_line(numbers)).won


@pytest.mark.parametrize("tiles", [8, 5, 10, 0, 1])  # the rulebook removes 2 or 3, no other
def test_other_line_sizes_are_not_games(tiles):
    with pytest.raises(RuleError):
        mr.numbers_for(tiles)


def test_young_children_any_removed_numbers_win_when_ascending():
    # The rulebook does not say which rabbits are removed: 2, 5 and 8 gone here.
    assert mr.check_line(hats(1, 3, 4, 6, 7, 9)).won
    verdict = mr.check_line(hats(1, 3, 6, 4, 7, 9))
    assert verdict.wrong_positions == (2, 3)
    assert verdict.reasons[0].endswith("hat 6 should be hat 4")


def test_rulebook_no_action_on_a_dove_pile():
    # "A player cannot do any of these actions to a pile that has a Dove on it."
    line = hats(1, 2, 3, 4, 5, 6, 7, 8, 9, doves=(3,))
    for action in (
        Action("lift", (3,)),
        Action("switch-hats", (3, 5)),
        Action("switch-piles", (0, 3)),
    ):
        verdict = mr.check_action(line, action)
        assert not verdict.ok
        assert "dove" in verdict.reason


def test_rulebook_switch_side_by_side_or_not():
    # "Switch 2 hats of their choosing, whether they're side by side or not."
    line = hats(1, 2, 3, 4, 5, 6, 7, 8, 9)
    assert mr.check_action(line, Action("switch-hats", (0, 1))).ok
    assert mr.check_action(line, Action("switch-hats", (0, 8))).ok
    assert mr.check_action(line, Action("switch-piles", (2, 7))).ok


def test_rulebook_end_of_turn_moves_a_dove_onto_another_hat():
    line = hats(1, 2, 3, 4, 5, 6, 7, 8, 9, doves=(1, 6))
    moved = mr.move_dove(line, 1, 4)
    assert [i for i, p in enumerate(moved) if p.dove] == [4, 6]
    assert [p.hat for p in moved] == [p.hat for p in line]


# --- the win check, with reasons ---------------------------------------------------------


@pytest.mark.parametrize(
    "line, wrong, reasons",
    [
        # hats 4 and 5 swapped together with their rabbits: only the hats are wrong
        (
            hats(1, 2, 3, 5, 4, 6, 7, 8, 9),
            (3, 4),
            [
                "position 3 (4th pile from the magician): hat 5 should be hat 4",
                "position 4 (5th pile from the magician): hat 4 should be hat 5",
            ],
        ),
        # rabbits 3 and 7 swapped under correct hats
        (
            line_of((1, 1), (2, 2), (3, 7), (4, 4), (5, 5), (6, 6), (7, 3), (8, 8), (9, 9)),
            (2, 6),
            [
                "position 2 (3rd pile from the magician): rabbit 7 is under hat 3 "
                "(it belongs under hat 7)",
                "position 6 (7th pile from the magician): rabbit 3 is under hat 7 "
                "(it belongs under hat 3)",
            ],
        ),
        # hats 1 and 2 swapped, rabbits left: both positions wrong twice over
        (
            line_of((2, 1), (1, 2), (3, 3), (4, 4), (5, 5), (6, 6), (7, 7)),
            (0, 1),
            [
                "position 0 (1st pile from the magician): hat 2 should be hat 1",
                "position 0 (1st pile from the magician): rabbit 1 is under hat 2 "
                "(it belongs under hat 1)",
                "position 1 (2nd pile from the magician): hat 1 should be hat 2",
                "position 1 (2nd pile from the magician): rabbit 2 is under hat 1 "
                "(it belongs under hat 2)",
            ],
        ),
        # line read from the wrong end (descending), 6 tiles: all but none in the middle
        (
            hats(6, 5, 4, 3, 2, 1),
            (0, 1, 2, 3, 4, 5),
            [
                f"position {i} ({o} pile from the magician): hat {7 - i - 1} should be hat {i + 1}"
                for i, o in enumerate(["1st", "2nd", "3rd", "4th", "5th", "6th"])
            ],
        ),
        # descending 9 tiles: the middle pile (5) is right
        (hats(9, 8, 7, 6, 5, 4, 3, 2, 1), (0, 1, 2, 3, 5, 6, 7, 8), None),
        # a 3-cycle of piles
        (hats(2, 3, 1, 4, 5, 6, 7), (0, 1, 2), None),
    ],
)
def test_check_line_table(line, wrong, reasons):
    verdict = mr.check_line(line)
    assert verdict.won is False
    assert verdict.wrong_positions == wrong
    if reasons is not None:
        assert verdict.reasons == reasons


def test_unseen_rabbit_blocks_the_win_but_is_not_wrong():
    line = line_of((1, 1), (2, None), (3, 3), (4, 4), (5, 5), (6, 6))
    verdict = mr.check_line(line)
    assert verdict.won is False
    assert verdict.wrong_positions == ()
    assert verdict.unseen_positions == (1,)
    assert verdict.reasons == [
        "position 1 (2nd pile from the magician): the rabbit under hat 2 was not seen"
    ]


def test_unseen_rabbit_under_a_wrong_hat_is_still_wrong():
    verdict = mr.check_line(line_of((2, None), (1, 1), (3, 3), (4, 4), (5, 5), (6, 6)))
    assert verdict.wrong_positions == (0, 1)
    assert verdict.unseen_positions == (0,)


@pytest.mark.parametrize(
    "n, text",
    [
        (1, "1st"),
        (2, "2nd"),
        (3, "3rd"),
        (4, "4th"),
        (9, "9th"),
        (11, "11th"),
        (12, "12th"),
        (13, "13th"),
        (21, "21st"),
        (22, "22nd"),
        (101, "101st"),
        (111, "111th"),
    ],
)
def test_ordinal(n, text):
    assert mr.ordinal(n) == text


# --- validation: impossible lines name the entry -----------------------------------------

NINE = [{"hat": n, "rabbit": n, "dove": False} for n in range(1, 10)]


def edited(changes=None, length=None, **top):
    """The winning 9-pile facts with `changes` {index: {key: value}} applied."""
    line = [dict(p) for p in NINE[: length or 9]]
    for i, change in (changes or {}).items():
        line[i].update(change)
    return {"line": line, "won": True, **top}


def with_doves(count):
    return edited({i: {"dove": True} for i in range(count)})


@pytest.mark.parametrize(
    "facts, path, words",
    [
        (edited(length=8), "facts.line", "got 8"),  # 8 piles: not a game size
        (edited(length=5), "facts.line", "got 5"),  # too short
        ({"line": NINE + [{"hat": 1, "rabbit": 1}]}, "facts.line", "got 10"),  # too long
        (edited({3: {"hat": 0}}), "facts.line[3].hat", "at least 1"),  # hat 0
        (edited({3: {"hat": 10}}), "facts.line[3].hat", "at most 9"),  # hat 10
        (edited({3: {"hat": "4"}}), "facts.line[3].hat", "whole number"),  # a string
        (edited({3: {"hat": 4.0}}), "facts.line[3].hat", "whole number"),  # a float
        (edited({3: {"hat": True}}), "facts.line[3].hat", "whole number"),  # a bool
        (edited({3: {"hat": None}}), "facts.line[3].hat", "whole number"),  # hat must be seen
        (edited({5: {"hat": 2}}), "facts.line[5].hat", "hat 2 appears twice"),  # duplicate hat
        (edited({7: {"rabbit": 1}}), "facts.line[7].rabbit", "rabbit 1 appears twice"),
        (edited({2: {"rabbit": 0}}), "facts.line[2].rabbit", "at least 1"),  # rabbit 0
        (edited({2: {"rabbit": 12}}), "facts.line[2].rabbit", "at most 9"),  # rabbit 12
        (edited({1: {"dove": "yes"}}), "facts.line[1].dove", "true or false"),  # dove not bool
        (edited({1: {"dove": 1}}), "facts.line[1].dove", "true or false"),  # dove as 1
        (with_doves(6), "facts.line[5].dove", "more than 5 doves"),  # the 6th dove
        (edited({4: {"colour": "green"}}), "facts.line[4]", "unknown key"),  # typo / extra
        ({"line": [dict(p) for p in NINE[:8]] + [{"rabbit": 9}]}, "facts.line[8]", "'hat'"),
        ({"line": [dict(p) for p in NINE[:8]] + [{"hat": 9}]}, "facts.line[8]", "'rabbit'"),
        ({"line": [dict(p) for p in NINE[:8]] + [9]}, "facts.line[8]", "an object"),
        ({"line": "1,2,3"}, "facts.line", "a list"),  # not a list
        ({"won": True}, "facts", "missing 'line'"),  # no line at all
        (edited(won="yes"), "facts.won", "true or false"),  # won not bool
        # 7 piles: rabbit 8 without hat 8 (a removed rabbit goes with its hat)
        (edited({6: {"rabbit": 8}}, length=7), "facts.line[6].rabbit", "hat 8 is not"),
    ],
)
def test_impossible_facts_raise_with_path(facts, path, words):
    with pytest.raises(FactsError) as info:
        mr.score_facts(facts, {})
    assert info.value.path == path
    assert words in info.value.message


@pytest.mark.parametrize("count", [0, 1, 2, 3, 4, 5])  # up to 5 doves exist
def test_up_to_five_doves_are_fine(count):
    score, _ = mr.score_facts(with_doves(count), {})
    assert score["doves"] == count and score["won"] is True


def test_facts_not_an_object():
    with pytest.raises(FactsError):
        mr.score_facts([1, 2, 3], {})


# --- the facts adapter -------------------------------------------------------------------


def test_score_facts_shape_for_a_win():
    score, warnings = mr.score_facts(edited(), {})
    assert score == {
        "won": True,
        "wrong_positions": [],
        "unseen_positions": [],
        "reasons": [],
        "tiles": 9,
        "doves": 0,
    }
    assert warnings == []


@pytest.mark.parametrize(
    "facts, won, warned",
    [
        (edited(), True, False),  # says won, is won
        (edited(won=False), True, True),  # says lost, is won: computed wins
        (edited({0: {"hat": 2}, 1: {"hat": 1}}), False, True),  # says won, two hats swapped
        (edited({0: {"hat": 2}, 1: {"hat": 1}}, won=False), False, False),  # agrees
        ({"line": NINE}, True, False),  # no claim at all: nothing to disagree with
    ],
)
def test_claimed_won_vs_computed(facts, won, warned):
    score, warnings = mr.score_facts(facts, {})
    assert score["won"] is won
    assert any("the score follows the line" in w for w in warnings) is warned


def test_unseen_rabbits_are_reported():
    facts = edited({2: {"rabbit": None}, 5: {"rabbit": None}}, won=False)
    score, warnings = mr.score_facts(facts, {})
    assert score["won"] is False
    assert score["unseen_positions"] == [2, 5]
    assert score["wrong_positions"] == []
    assert warnings == ["rabbits not seen at positions 2, 5: the win cannot be confirmed"]


def test_missing_dove_key_means_no_dove():
    facts = {"line": [{"hat": n, "rabbit": n} for n in range(1, 8)]}
    score, _ = mr.score_facts(facts, {})
    assert score["won"] is True and score["doves"] == 0 and score["tiles"] == 7


@pytest.mark.parametrize(
    "players, doves, warned",
    [
        ("4", 2, False),  # 4 players, 2 doves: as set up
        ("1", 5, False),  # 1 player, 5 doves
        ("3", 2, True),  # 3 players should have 3 doves
        ("2", 5, True),  # 2 players should have 4 doves
        ("2", 0, False),  # no doves: lifted for the reveal or the no-dove variant
        (" 3 ", 3, False),  # spaces are forgiven
    ],
)
def test_players_option_checks_doves(players, doves, warned):
    _, warnings = mr.score_facts(with_doves(doves), {"players": players})
    assert any("dove" in w for w in warnings) is warned


@pytest.mark.parametrize("players", ["0", "5", "two", "yellow,blue", "-1", ""])  # not 1-4
def test_bad_players_option(players):
    with pytest.raises(OptionError):
        mr.score_facts(edited(), {"players": players})


def test_unknown_top_level_keys_warn():
    _, warnings = mr.score_facts(edited(board="x"), {})
    assert warnings == ["ignored unknown facts keys: board"]


# --- actions -----------------------------------------------------------------------------

BOARD = hats(1, 2, 3, 4, 5, 6, 7, 8, 9, doves=(2, 6))


@pytest.mark.parametrize(
    "action, ok, words",
    [
        (Action("lift", (0,)), True, None),  # lift a free pile
        (Action("lift", (2,)), False, "dove"),  # dove on it
        (Action("switch-hats", (0, 8)), True, None),  # far apart is fine
        (Action("switch-hats", (1, 2)), False, "dove"),  # second pile has a dove
        (Action("switch-piles", (6, 7)), False, "dove"),  # first pile has a dove
        (Action("switch-piles", (3, 4)), True, None),  # side by side
        (Action("switch-hats", (3, 3)), False, "two different piles"),  # same pile twice
        (Action("lift", (0, 1)), False, "one pile"),  # lift takes one pile
        (Action("switch-piles", (1,)), False, "two piles"),  # a switch takes two
        (Action("lift", (9,)), False, "no position 9"),  # off the end
        (Action("lift", (-1,)), False, "no position -1"),  # negative
        (Action("switch-hats", (0, True)), False, "no position"),  # bool is not a position
        (Action("peek", (0,)), False, "unknown action"),  # not a rulebook action
    ],
)
def test_check_action_table(action, ok, words):
    verdict = mr.check_action(BOARD, action)
    assert verdict.ok is ok
    if ok:
        assert verdict.reason is None
    else:
        assert words in verdict.reason


def test_apply_illegal_action_raises_rule_error():
    with pytest.raises(RuleError, match="dove"):
        mr.apply_action(BOARD, Action("switch-hats", (0, 2)))


def test_switch_hats_leaves_rabbits():
    line = mr.apply_action(BOARD, Action("switch-hats", (0, 8)))
    assert (line[0].hat, line[0].rabbit, line[8].hat, line[8].rabbit) == (9, 1, 1, 9)


def test_switch_piles_moves_rabbits_too():
    line = mr.apply_action(BOARD, Action("switch-piles", (0, 8)))
    assert (line[0].hat, line[0].rabbit, line[8].hat, line[8].rabbit) == (9, 9, 1, 1)


@pytest.mark.parametrize(
    "source, target, words",
    [
        (0, 1, "no dove to move"),  # pile 0 has none
        (2, 6, "already has a dove"),  # doves do not stack
        (2, 9, "no position 9"),  # off the end
    ],
)
def test_move_dove_errors(source, target, words):
    with pytest.raises(RuleError, match=words):
        mr.move_dove(BOARD, source, target)


# --- hourglass ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "now, remaining, expired",
    [
        (100.0, 150.0, False),  # just turned
        (175.0, 75.0, False),  # half way
        (249.5, 0.5, False),  # last half second
        (250.0, 0.0, True),  # sand out
        (900.0, 0.0, True),  # long after
        (40.0, 150.0, False),  # asked before it was turned: full
    ],
)
def test_hourglass_table(now, remaining, expired):
    glass = Hourglass(started_at=100.0)
    assert glass.remaining(now) == pytest.approx(remaining)
    assert glass.expired(now) is expired


@PROPS
@given(
    start=st.floats(-1e6, 1e6),
    a=st.floats(-1e3, 1e3),
    b=st.floats(-1e3, 1e3),
    duration=st.floats(1.0, 1e3),
)
def test_hourglass_runs_down_monotonically(start, a, b, duration):
    glass = Hourglass(start, duration)
    early, late = sorted((start + a, start + b))
    assert 0.0 <= glass.remaining(late) <= glass.remaining(early) <= duration
    assert glass.expired(late) or not glass.expired(early)
    if glass.expired(late):
        assert glass.remaining(late) == 0.0


# --- properties --------------------------------------------------------------------------

numbers = st.sampled_from(mr.LINE_LENGTHS).flatmap(
    lambda n: st.lists(st.integers(1, 9), min_size=n, max_size=n, unique=True)
)
winning = numbers.map(mr.winning_line)


@st.composite
def two_positions(draw, line_strategy=winning):
    line = draw(line_strategy)
    i, j = draw(st.lists(st.integers(0, len(line) - 1), min_size=2, max_size=2, unique=True))
    return line, i, j


@st.composite
def any_line(draw):
    """A valid line: any numbers, hats shuffled, rabbits a shuffle of the same numbers,
    some rabbits unseen, up to 5 doves."""
    nums = draw(numbers)
    hat_order = draw(st.permutations(nums))
    rabbit_order = draw(st.permutations(nums))
    unseen = draw(st.lists(st.booleans(), min_size=len(nums), max_size=len(nums)))
    dove_at = draw(st.sets(st.integers(0, len(nums) - 1), max_size=5))
    return tuple(
        Pile(h, None if u else r, i in dove_at)
        for i, (h, r, u) in enumerate(zip(hat_order, rabbit_order, unseen, strict=True))
    )


@PROPS
@given(nums=numbers)
def test_sorted_line_always_wins(nums):
    verdict = mr.check_line(mr.winning_line(nums))
    assert verdict.won and verdict.wrong_positions == () and verdict.problems == ()


@PROPS
@given(nums=numbers)
def test_any_shuffle_other_than_sorted_loses(nums):
    line = hats(*nums)
    assert mr.check_line(line).won is (list(nums) == sorted(nums))


@PROPS
@given(case=two_positions())
def test_swapping_two_hats_of_a_win_loses_exactly_there(case):
    line, i, j = case
    swapped = mr.apply_action(line, Action("switch-hats", (i, j)))
    verdict = mr.check_line(swapped)
    assert not verdict.won
    assert verdict.wrong_positions == tuple(sorted((i, j)))
    # each of the two piles has the wrong hat and a rabbit that does not match it
    assert sorted((p.position, p.kind) for p in verdict.problems) == sorted(
        [(i, "hat"), (i, "rabbit"), (j, "hat"), (j, "rabbit")]
    )


@PROPS
@given(case=two_positions())
def test_swapping_two_piles_of_a_win_loses_only_on_hats(case):
    line, i, j = case
    verdict = mr.check_line(mr.apply_action(line, Action("switch-piles", (i, j))))
    assert verdict.wrong_positions == tuple(sorted((i, j)))
    assert {p.kind for p in verdict.problems} == {"hat"}


@PROPS
@given(case=two_positions(any_line()), kind=st.sampled_from(["switch-hats", "switch-piles"]))
def test_switching_twice_undoes_it(case, kind):
    line, i, j = case
    action = Action(kind, (i, j))
    if mr.check_action(line, action).ok:
        assert mr.apply_action(mr.apply_action(line, action), action) == line
    else:
        assert line[i].dove or line[j].dove


@PROPS
@given(line=any_line(), data=st.data())
def test_actions_on_dove_piles_are_always_illegal(line, data):
    pos = data.draw(st.integers(0, len(line) - 1))
    other = data.draw(st.integers(0, len(line) - 1).filter(lambda k: k != pos))
    for action in (
        Action("lift", (pos,)),
        Action("switch-hats", (pos, other)),
        Action("switch-piles", (other, pos)),
    ):
        legal = mr.check_action(line, action).ok
        assert legal is not (line[pos].dove or (action.kind != "lift" and line[other].dove))


@PROPS
@given(line=any_line(), data=st.data())
def test_lift_never_changes_the_line(line, data):
    free = [i for i, p in enumerate(line) if not p.dove]
    pos = data.draw(st.sampled_from(free))
    assert mr.apply_action(line, Action("lift", (pos,))) == line


@PROPS
@given(line=any_line())
def test_verdict_matches_the_definition(line):
    verdict = mr.check_line(line)
    order = sorted(p.hat for p in line)
    wrong = tuple(
        i
        for i, p in enumerate(line)
        if p.hat != order[i] or (p.rabbit is not None and p.rabbit != p.hat)
    )
    unseen = tuple(i for i, p in enumerate(line) if p.rabbit is None)
    assert verdict.wrong_positions == wrong
    assert verdict.unseen_positions == unseen
    assert verdict.won is (not wrong and not unseen)
    # every wrong or unseen position has a reason, and every reason names its position
    assert {p.position for p in verdict.problems} == set(wrong) | set(unseen)
    for p in verdict.problems:
        assert p.message.startswith(f"position {p.position} (")


@PROPS
@given(line=any_line())
def test_facts_round_trip_scores_like_the_engine(line):
    score, warnings = mr.score_facts(mr.line_to_facts(line), {})
    verdict = mr.check_line(line)
    assert score["won"] is verdict.won
    assert score["wrong_positions"] == list(verdict.wrong_positions)
    assert score["reasons"] == verdict.reasons
    assert not any("the score follows the line" in w for w in warnings)
    # claiming the opposite always adds exactly that warning and changes nothing else
    flipped, warnings2 = mr.score_facts(mr.line_to_facts(line, won=not verdict.won), {})
    assert flipped == score
    assert sum("the score follows the line" in w for w in warnings2) == 1


@PROPS
@given(line=any_line(), data=st.data())
def test_moving_a_dove_keeps_the_count(line, data):
    with_dove = [i for i, p in enumerate(line) if p.dove]
    without = [i for i, p in enumerate(line) if not p.dove]
    assume(with_dove and without)
    src, dst = data.draw(st.sampled_from(with_dove)), data.draw(st.sampled_from(without))
    moved = mr.move_dove(line, src, dst)
    assert sum(p.dove for p in moved) == sum(p.dove for p in line)
    assert moved[dst].dove and not moved[src].dove
    assert mr.check_line(moved).won is mr.check_line(line).won


# --- CLI ---------------------------------------------------------------------------------


def test_cli_scores_a_win(run_cli, write_json):
    facts = edited({1: {"dove": True}, 4: {"dove": True}})
    code, out = run_cli(
        "score",
        "--game",
        "magic-rabbit",
        "--facts",
        write_json(facts),
        "--players",
        "4",
        "--json",
    )
    assert code == 0
    assert out["game"] == "magic-rabbit" and out["pieces"] == []
    assert out["facts"] == facts
    assert out["score"]["won"] is True and out["score"]["wrong_positions"] == []
    assert out["warnings"] == []


def test_cli_scores_a_loss_with_reasons(run_cli, write_json):
    facts = edited({3: {"hat": 5, "rabbit": 5}, 4: {"hat": 4, "rabbit": 4}})
    code, out = run_cli("score", "--game", "magic-rabbit", "--facts", write_json(facts), "--json")
    assert code == 0
    assert out["score"]["won"] is False
    assert out["score"]["wrong_positions"] == [3, 4]
    assert out["score"]["reasons"][0] == (
        "position 3 (4th pile from the magician): hat 5 should be hat 4"
    )
    assert any("the score follows the line" in w for w in out["warnings"])


def test_cli_young_children_line(run_cli, write_json):
    facts = {"line": [{"hat": n, "rabbit": n, "dove": False} for n in range(1, 7)], "won": True}
    code, out = run_cli("score", "--game", "magic-rabbit", "--facts", write_json(facts), "--json")
    assert code == 0 and out["score"]["won"] is True and out["score"]["tiles"] == 6


@pytest.mark.parametrize(
    "facts, words",
    [
        (edited({5: {"hat": 2}}), "facts.line[5].hat"),  # duplicate hat
        (edited(length=8), "facts.line"),  # 8 piles
        (with_doves(6), "facts.line[5].dove"),  # 6 doves
        (edited({0: {"rabbit": "one"}}), "facts.line[0].rabbit"),  # rabbit not a number
        ([], "facts"),  # not an object
    ],
)
def test_cli_bad_facts_exit_2_with_error_json(run_cli, write_json, facts, words):
    code, out = run_cli("score", "--game", "magic-rabbit", "--facts", write_json(facts), "--json")
    assert code == 2
    assert out["error"]["code"] == "bad_facts"
    assert out["error"]["message"].startswith(words)


@pytest.mark.parametrize(
    "args",
    [
        ["--players", "7"],  # not 1-4 players
        ["--variant", "pile"],  # an option Magic Rabbit does not take
        ["--level", "1"],  # neither this one
    ],
)
def test_cli_bad_options_exit_2(run_cli, write_json, args):
    code, out = run_cli(
        "score", "--game", "magic-rabbit", "--facts", write_json(edited()), *args, "--json"
    )
    assert code == 2 and out["error"]["code"] == "bad_option"
