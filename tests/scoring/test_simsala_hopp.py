"""Tests of the Simsala Hopp rule engine (scoring/simsala_hopp.py) against the rulebook."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import simsala_hopp as sh
from scoring.labels import SIMSALA_COUNTS, SIMSALA_LABELS
from tablescore.errors import FactsError, OptionError, RuleError

FOUR = ("yellow", "orange", "blue", "violet")

# The rulebook's example (step 7): Vincent (blue) is the magician with 2 white rabbits and
# 1 blue rabbit; 1 orange (Hanna) and 2 yellow (Max) rabbits are visible; no violet (Zara).
VINCENT_ARENA = {"rabbit-white": 2, "rabbit-blue": 1, "rabbit-orange": 1, "rabbit-yellow": 2,
                 "frog": 9}
VINCENT_POINTS = {"blue": 3, "orange": 1, "yellow": 2, "violet": 0}


def facts(arena=None, outside=None):
    return {"arena": dict(arena or {}), "outside": dict(outside or {})}


# ------------------------------------------------------------------------------------------
# Tile model used by the property tests: 15 physical tiles, each with a back side.

BACKS = [label for label in SIMSALA_LABELS if label != "frog" for _ in range(SIMSALA_COUNTS[label])]
assert len(BACKS) == 15

# where a tile lies and which side is up
TILE_STATES = ("frog-arena", "back-arena", "frog-outside", "back-outside", "missing")


def tiles_to_facts(states):
    """Facts seen for the 15 tiles of BACKS in the given states."""
    out = {"arena": {}, "outside": {}}
    for back, state in zip(BACKS, states, strict=True):
        if state == "missing":
            continue
        side, zone = state.split("-")
        label = "frog" if side == "frog" else back
        out[zone][label] = out[zone].get(label, 0) + 1
    return out


tile_states = st.lists(st.sampled_from(TILE_STATES), min_size=15, max_size=15)
all_seen_states = st.lists(st.sampled_from(TILE_STATES[:4]), min_size=15, max_size=15)
seatings = st.permutations(FOUR).flatmap(
    lambda order: st.integers(2, 4).map(lambda n: tuple(order[:n])))


# ------------------------------------------------------------------------------------------
# Turn scoring


def test_rulebook_example_vincent_hanna_max_zara():
    score, warnings = sh.score_facts(facts(VINCENT_ARENA), {"magician": "blue"})
    assert score["points"] == VINCENT_POINTS
    assert warnings == []
    assert score["breakdown"]["blue"]["white_rabbits"] == 2
    assert score["breakdown"]["blue"]["own_rabbits"] == 1
    lines = score["explanation"]
    assert "Blue (magician) scores 3: 2 white rabbits and 1 blue rabbit in the arena" in lines
    assert "Violet scores 0: no violet rabbit in the arena" in lines


def test_rulebook_example_through_a_tournament_turn():
    t = sh.Tournament.start(FOUR, youngest="blue")  # Vincent is the first magician
    assert t.magician == "blue"
    t = t.play_turn(facts(VINCENT_ARENA))
    assert {c: t.bat(c) for c in FOUR} == VINCENT_POINTS
    assert t.magician == "violet"  # the role passes clockwise


@pytest.mark.parametrize(
    "arena, outside, magician, level, expected",
    [
        # nothing transformed: everybody scores 0
        ({"frog": 15}, {}, "blue", 0, {"yellow": 0, "orange": 0, "blue": 0, "violet": 0}),
        # the magician's best: 5 white + 2 own = 7 ("0 to 7 spaces")
        ({"rabbit-white": 5, "rabbit-yellow": 2, "frog": 8}, {}, "yellow", 0,
         {"yellow": 7, "orange": 0, "blue": 0, "violet": 0}),
        # a spectator never gets white rabbits
        ({"rabbit-white": 5, "rabbit-orange": 2}, {}, "blue", 0,
         {"yellow": 0, "orange": 2, "blue": 5, "violet": 0}),
        # rabbits outside the arena do not score
        ({"rabbit-white": 1}, {"rabbit-white": 2, "rabbit-blue": 2, "rabbit-orange": 1}, "blue",
         0, {"yellow": 0, "orange": 0, "blue": 1, "violet": 0}),
        # level 0: cats are ignored
        ({"rabbit-white": 1, "cat": 2}, {}, "violet", 0,
         {"yellow": 0, "orange": 0, "blue": 0, "violet": 1}),
        # level 1: magician -1 per cat in the arena, may go negative
        ({"rabbit-white": 1, "cat": 2}, {}, "violet", 1,
         {"yellow": 0, "orange": 0, "blue": 0, "violet": -1}),
        # level 1: cats outside do not count yet
        ({"rabbit-white": 1}, {"cat": 2}, "violet", 1,
         {"yellow": 0, "orange": 0, "blue": 0, "violet": 1}),
        # level 2: +1 per cat outside, and level 1's penalty still applies
        ({"rabbit-white": 1, "cat": 1}, {"cat": 1}, "violet", 2,
         {"yellow": 0, "orange": 0, "blue": 0, "violet": 1}),
        # level 2: both cats tapped out
        ({"rabbit-white": 2, "rabbit-orange": 1}, {"cat": 2}, "orange", 2,
         {"yellow": 0, "orange": 5, "blue": 0, "violet": 0}),
        # spectators are never hit by the cat rules
        ({"rabbit-blue": 2, "cat": 2}, {}, "yellow", 2,
         {"yellow": -2, "orange": 0, "blue": 2, "violet": 0}),
    ],
)
def test_turn_points_table(arena, outside, magician, level, expected):
    score, _ = sh.score_facts(facts(arena, outside), {"magician": magician, "level": str(level)})
    assert score["points"] == expected


@pytest.mark.parametrize(
    "players, arena, expected",
    [
        # 2 players: violet's rabbits score for nobody
        ("yellow,blue", {"rabbit-violet": 2, "rabbit-white": 1, "rabbit-yellow": 1},
         {"yellow": 1, "blue": 1}),
        # 3 players in the contract's example order
        ("yellow,orange,blue", VINCENT_ARENA, {"yellow": 2, "orange": 1, "blue": 3}),
    ],
)
def test_fewer_players(players, arena, expected):
    score, _ = sh.score_facts(facts(arena), {"magician": "blue", "players": players})
    assert score["points"] == expected
    assert list(score["players"]) == players.split(",")


def test_explanation_mentions_rabbits_outside_and_cats():
    score, _ = sh.score_facts(
        facts({"rabbit-white": 2, "rabbit-blue": 1, "cat": 1},
              {"rabbit-blue": 1, "cat": 1}),
        {"magician": "blue", "level": "2"})
    line = next(x for x in score["explanation"] if x.startswith("Blue"))
    assert line == ("Blue (magician) scores 3: 2 white rabbits and 1 blue rabbit in the arena, "
                    "minus 1 for 1 cat in the arena (expert level 2), plus 1 for 1 cat tapped "
                    "out of the arena (expert level 2); 1 blue rabbit outside the arena does "
                    "not count")
    assert score["points"]["blue"] == 3


def test_negative_points_explain_the_bat_stop():
    score, _ = sh.score_facts(facts({"cat": 2}), {"magician": "orange", "level": 1})
    assert score["points"]["orange"] == -2
    assert any("never below the start space 0" in x for x in score["explanation"])


@pytest.mark.parametrize(
    "arena, possible",
    [
        ({"frog": 1}, True),  # one frog is enough
        ({"rabbit-white": 5, "cat": 2}, False),  # no frog visible
        ({}, False),  # nothing in the arena at all
    ],
)
def test_lazy_spell_possible(arena, possible):
    score, _ = sh.score_facts(facts(arena, {"frog": 2}), {"magician": "blue"})
    assert score["lazy_spell_possible"] is possible
    assert sh.lazy_spell_possible(sh.Tiles.of(arena)) is possible


@pytest.mark.parametrize(
    "players, magician, order",
    [
        (FOUR, "blue", ("violet", "yellow", "orange")),  # starts at the magician's left
        (FOUR, "violet", ("yellow", "orange", "blue")),  # wraps round
        (("orange", "yellow"), "yellow", ("orange",)),  # 2 players: one spectator
        (("blue", "yellow", "violet"), "blue", ("yellow", "violet")),  # seating order given
    ],
)
def test_lazy_spell_order(players, magician, order):
    assert sh.lazy_spell_order(players, magician) == order


@pytest.mark.parametrize(
    "position, points, expected",
    [
        (0, 3, 3),  # forward
        (4, -1, 3),  # back (level 1 cat)
        (1, -2, 0),  # would go below 0: stops on the start space
        (0, -2, 0),  # already on 0
        (0, 0, 0),
    ],
)
def test_move_bat_never_below_start(position, points, expected):
    assert sh.move_bat(position, points) == expected


# ------------------------------------------------------------------------------------------
# Validation: facts and options


@pytest.mark.parametrize(
    "bad, path",
    [
        (facts({"rabbit-pink": 1}), "facts.arena.rabbit-pink"),  # unknown label
        (facts({"frog": -1}), "facts.arena.frog"),  # negative count
        (facts({"frog": 1.5}), "facts.arena.frog"),  # not a whole number
        (facts({"frog": True}), "facts.arena.frog"),  # a bool is not a count
        (facts({"frog": 16}), "facts"),  # more than 15 tiles
        (facts({"frog": 10}, {"frog": 6}), "facts"),  # 16 tiles across both zones
        (facts({"rabbit-blue": 3}), "facts.arena.rabbit-blue"),  # only 2 blue rabbits exist
        (facts({"rabbit-white": 3}, {"rabbit-white": 3}), "facts.rabbit-white"),  # 6 > 5
        (facts(None, {"cat": 3}), "facts.outside.cat"),  # only 2 cats
        ({"arena": {}, "table": {}}, "facts.table"),  # unknown zone
        ({"arena": [1, 2]}, "facts.arena"),  # not an object
    ],
)
def test_bad_facts_name_the_entry(bad, path):
    with pytest.raises(FactsError) as err:
        sh.score_facts(bad, {"magician": "blue"})
    assert err.value.path == path
    assert err.value.message.startswith(path)


@pytest.mark.parametrize(
    "options, needle",
    [
        ({}, "--magician is required"),  # no magician
        ({"magician": "pink"}, "--magician"),  # unknown colour
        ({"magician": "blue", "players": "yellow,orange"}, "not among the players"),
        ({"magician": "blue", "level": "3"}, "--level"),  # level out of range
        ({"magician": "blue", "level": "one"}, "--level"),
        ({"magician": "blue", "players": "blue,green"}, "'green'"),  # unknown player colour
        ({"magician": "blue", "players": "blue,yellow,blue"}, "given twice"),
        ({"magician": "blue", "players": "blue"}, "2 to 4 players"),  # too few
        ({"magician": "blue", "players": "blue,,yellow"}, "empty entry"),
    ],
)
def test_bad_options(options, needle):
    with pytest.raises(OptionError) as err:
        sh.score_facts(facts({"frog": 15}), options)
    assert needle in err.value.message


def test_option_defaults_and_spelling():
    score, _ = sh.score_facts(facts(VINCENT_ARENA), {"magician": " Blue "})
    assert score["players"] == list(FOUR) and score["level"] == 0
    score, _ = sh.score_facts(facts(VINCENT_ARENA),
                              {"magician": "blue", "players": ["violet", "blue"], "level": 2})
    assert score["points"] == {"violet": 0, "blue": 3}


@pytest.mark.parametrize(
    "arena, outside, needles",
    [
        (VINCENT_ARENA, {}, []),  # all 15 tiles seen
        ({"frog": 3}, {"frog": 12}, []),  # many tiles outside is possible
        ({"frog": 13}, {}, ["13 of the 15 tiles were seen"]),  # 2 tiles missing
        ({}, {}, ["0 of the 15 tiles were seen"]),  # nothing seen at all
        ({}, {"frog": 15}, ["all 15 tiles seen lie outside"]),  # arena probably not found
        ({}, {"frog": 14}, ["14 of the 15", "all 14 tiles seen lie outside"]),
    ],
)
def test_warnings_for_doubtful_facts(arena, outside, needles):
    _, warnings = sh.score_facts(facts(arena, outside), {"magician": "blue"})
    assert len(warnings) == len(needles)
    for warning, needle in zip(warnings, needles, strict=True):
        assert needle in warning


# ------------------------------------------------------------------------------------------
# Property tests of the turn scoring


@settings(max_examples=200, deadline=None)
@given(states=tile_states, players=seatings, data=st.data())
def test_turn_properties(states, players, data):
    magician = data.draw(st.sampled_from(players))
    level = data.draw(st.sampled_from((0, 1, 2)))
    f = tiles_to_facts(states)
    score, warnings = sh.score_facts(f, {"magician": magician, "players": ",".join(players),
                                         "level": str(level)})
    points = score["points"]
    assert set(points) == set(players)
    arena = f["arena"]
    for colour in players:
        own = arena.get(f"rabbit-{colour}", 0)
        if colour == magician:
            expected = own + arena.get("rabbit-white", 0)
            if level >= 1:
                expected -= arena.get("cat", 0)
            if level == 2:
                expected += f["outside"].get("cat", 0)
            assert points[colour] == expected
            assert -2 <= points[colour] <= 9
            if level == 0:
                assert 0 <= points[colour] <= 7  # "0 to 7 spaces"
        else:
            assert points[colour] == own and 0 <= own <= 2  # "0, 1 or 2 spaces"
    # the warnings are exactly about missing tiles and an empty arena
    assert len(warnings) == ("missing" in states) + (not arena and any(
        s != "missing" for s in states))
    assert score["lazy_spell_possible"] == (arena.get("frog", 0) > 0)


@settings(max_examples=100, deadline=None)
@given(states=all_seen_states, players=seatings, data=st.data())
def test_outside_rabbits_never_score(states, players, data):
    magician = data.draw(st.sampled_from(players))
    f = tiles_to_facts(states)
    stripped = {"arena": f["arena"], "outside": {k: v for k, v in f["outside"].items()
                                                 if k == "cat"}}
    opts = {"magician": magician, "players": ",".join(players), "level": "2"}
    assert sh.score_facts(f, opts)[0]["points"] == sh.score_facts(stripped, opts)[0]["points"]


@given(bats=st.dictionaries(st.sampled_from(FOUR), st.integers(0, 15), min_size=2))
def test_tied_round_gives_every_leader_a_cup(bats):
    winners = sh.round_winners(bats)
    best = max(bats.values())
    assert set(winners) == {c for c, b in bats.items() if b == best}


@given(position=st.integers(0, 15), points=st.integers(-9, 9))
def test_bat_never_negative(position, points):
    new = sh.move_bat(position, points)
    assert new >= 0 and new == max(0, position + points)


# ------------------------------------------------------------------------------------------
# Tournament: rounds, cups, Magic Decision Tap, illegal transitions


def only_white(n_white, n_own=0, colour="blue"):
    """Facts with n white rabbits (+ own-colour rabbits) in the arena, the rest frogs."""
    arena = {"rabbit-white": n_white, f"rabbit-{colour}": n_own,
             "frog": 15 - n_white - n_own}
    return facts(arena)


NO_FROGS = facts({"rabbit-white": 5, "cat": 2}, {"rabbit-yellow": 2, "rabbit-orange": 2,
                                                 "rabbit-blue": 2, "rabbit-violet": 2})


def play_round(t, points_by_magician, cats="arena"):
    """Play one round where each magician finds only white rabbits (no frogs, so no Lazy
    Spell); both cats lie in the arena (or outside: ``cats="outside"``)."""
    for _ in t.players:
        n = points_by_magician[t.magician]
        arena = {"rabbit-white": n}
        outside = {"rabbit-white": 5 - n, "rabbit-yellow": 2, "rabbit-orange": 2,
                   "rabbit-blue": 2, "rabbit-violet": 2}
        (arena if cats == "arena" else outside)["cat"] = 2
        t = t.play_turn(facts(arena, outside))
    return t


def test_round_order_and_cups():
    t = sh.Tournament.start(FOUR, youngest="orange")
    magicians = []
    for _ in range(4):
        magicians.append(t.magician)
        t = t.play_turn(NO_FROGS if t.magician != "yellow" else only_white(0))
    # round 1: the youngest first, then clockwise
    assert magicians == ["orange", "blue", "violet", "yellow"]
    # everybody got 5 except yellow: three leaders each get a cup, bats go back to 0
    assert t.cups == (0, 1, 1, 1)
    assert t.bats == (0, 0, 0, 0)
    assert t.round == 2
    # later rounds start with the youngest player's left-hand neighbour
    assert t.magician == "blue"
    t = play_round(t, {"yellow": 0, "orange": 0, "blue": 1, "violet": 0})
    assert t.phase == "finished" and t.winner == "blue"
    assert t.next_action() == {"action": None, "player": None}


def test_round_three_starts_with_youngests_left_neighbour_again():
    t = sh.Tournament.start(FOUR, youngest="violet")
    t = play_round(t, {"yellow": 1, "orange": 0, "blue": 0, "violet": 0})
    t = play_round(t, {"yellow": 0, "orange": 1, "blue": 0, "violet": 0})
    assert t.round == 3 and t.magician == "yellow"  # violet's left neighbour (wraps round)
    assert t.cups == (1, 1, 0, 0)


def test_two_players_need_three_cups():
    t = sh.Tournament.start(("yellow", "blue"), youngest="blue")
    assert t.cups_to_win == 3
    for expected_cups in (1, 2):
        t = play_round(t, {"yellow": 0, "blue": 2})
        assert t.phase == "transform" and t.cups_of("blue") == expected_cups
    t = play_round(t, {"yellow": 0, "blue": 2})
    assert t.winner == "blue" and t.cups == (0, 3)


def test_all_zero_round_gives_everyone_a_cup():
    t = sh.Tournament.start(("yellow", "orange", "blue"), youngest="yellow")
    t = play_round(t, {"yellow": 0, "orange": 0, "blue": 0})
    assert t.cups == (1, 1, 1)


def test_decision_tap_tie_break():
    t = sh.Tournament.start(FOUR, youngest="blue")
    t = play_round(t, {"yellow": 1, "orange": 0, "blue": 1, "violet": 0})
    t = play_round(t, {"yellow": 2, "orange": 0, "blue": 2, "violet": 1})
    # yellow and blue both reach 2 cups in the same round
    assert t.phase == "decision_tap"
    assert t.contenders == ("blue", "yellow")  # from the youngest, clockwise
    assert t.bats == (0, 0, 0, 0)
    with pytest.raises(RuleError):
        t.decision_tap("yellow", only_white(1))  # not yellow's turn yet
    with pytest.raises(RuleError):
        t.decision_tap("orange", only_white(1))  # not a contender
    t = t.decision_tap("blue", only_white(2, 1, "blue"))
    assert t.bat("blue") == 3
    t = t.decision_tap("yellow", only_white(1, 2, "yellow"))
    # tied again on 3: only the leaders tap again
    assert t.phase == "decision_tap" and t.contenders == ("blue", "yellow")
    t = t.decision_tap("blue", only_white(0))
    t = t.decision_tap("yellow", only_white(1))
    assert t.winner == "yellow" and t.phase == "finished"


def test_decision_tap_counts_no_cats_and_foul_eliminates():
    t = sh.Tournament.start(("yellow", "orange", "blue"), youngest="orange", level=2)
    t = play_round(t, {"yellow": 1, "orange": 1, "blue": 1}, cats="outside")
    # level 2: +2 for the two cats outside
    assert "Round 1, magician yellow: yellow +3, orange +0, blue +0." in t.log
    t = play_round(t, {"yellow": 1, "orange": 1, "blue": 0}, cats="outside")
    assert t.contenders == ("orange", "yellow")
    # a tap with a cat visible: the tie-break counts rabbits only
    t = t.decision_tap("orange", facts({"rabbit-white": 1, "cat": 2, "frog": 12}))
    assert t.bat("orange") == 1
    t = t.decision_tap("yellow", foul=True)
    assert t.winner == "orange"


def test_three_way_tie_with_a_foul_keeps_going():
    t = sh.Tournament.start(("yellow", "orange", "blue"), youngest="yellow")
    t = play_round(t, {"yellow": 0, "orange": 0, "blue": 0})
    t = play_round(t, {"yellow": 0, "orange": 0, "blue": 0})
    assert t.contenders == ("yellow", "orange", "blue")
    t = t.decision_tap("yellow", foul=True)
    assert t.contenders == ("orange", "blue") and t.current_tapper == "orange"
    t = t.decision_tap("orange", only_white(1))
    t = t.decision_tap("blue", only_white(2))
    assert t.winner == "blue"


def test_lazy_spell_flow():
    t = sh.Tournament.start(FOUR, youngest="blue")
    t = t.simsala_stopp(facts({"rabbit-white": 2, "rabbit-blue": 1, "frog": 12}))
    assert t.phase == "lazy_spell" and t.current_spectator == "violet"
    with pytest.raises(RuleError, match="magician"):
        t.lazy_spell("blue", "rabbit-blue")
    with pytest.raises(RuleError, match="violet's turn"):
        t.lazy_spell("yellow", "rabbit-yellow")
    with pytest.raises(RuleError):
        t.count_points()
    t = t.lazy_spell("violet", "rabbit-violet")
    t = t.pass_lazy_spell("yellow")
    t = t.lazy_spell("orange", "rabbit-blue")  # a rabbit of another colour helps blue
    assert t.phase == "count"
    assert t.turn_score().points == {"yellow": 0, "orange": 0, "blue": 4, "violet": 1}
    t = t.count_points()
    assert t.bats == (0, 0, 4, 1) and t.magician == "violet"


def test_lazy_spell_stops_when_no_frog_is_left():
    t = sh.Tournament.start(FOUR, youngest="yellow")
    t = t.simsala_stopp(facts({"rabbit-white": 5, "rabbit-yellow": 2, "frog": 1}))
    t = t.lazy_spell("orange", "rabbit-orange")
    assert t.phase == "count"  # blue and violet get no Lazy Spell
    with pytest.raises(RuleError):
        t.pass_lazy_spell("blue")
    # no frog at all after Simsala Stopp: straight to counting
    t2 = sh.Tournament.start(FOUR, youngest="yellow").simsala_stopp(NO_FROGS)
    assert t2.phase == "count"
    with pytest.raises(RuleError, match="no frog was visible"):
        sh.Tournament.start(FOUR, youngest="yellow").play_turn(NO_FROGS,
                                                               {"orange": "rabbit-orange"})


def test_lazy_spell_cannot_show_a_third_rabbit():
    t = sh.Tournament.start(FOUR, youngest="yellow")
    t = t.simsala_stopp(facts({"rabbit-orange": 2, "frog": 13}))
    with pytest.raises(FactsError, match="already visible"):
        t.lazy_spell("orange", "rabbit-orange")
    with pytest.raises(FactsError):
        t.lazy_spell("orange", "frog")  # a frog's back is never a frog


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.count_points(),  # nothing to count before Simsala Stopp
        lambda t: t.lazy_spell("orange", "rabbit-orange"),  # no Lazy Spell before Simsala Stopp
        lambda t: t.decision_tap("yellow", only_white(1)),  # no tie-break during the rounds
        lambda t: t.simsala_stopp(NO_FROGS).simsala_stopp(NO_FROGS),  # Simsala Stopp twice
        lambda t: t.apply({"action": "pass", "player": "orange"}),
    ],
)
def test_illegal_transitions(call):
    t = sh.Tournament.start(FOUR, youngest="yellow")
    with pytest.raises(RuleError):
        call(t)


def test_finished_tournament_accepts_nothing():
    t = sh.Tournament.start(("yellow", "blue"), youngest="blue")
    for _ in range(3):
        t = play_round(t, {"yellow": 0, "blue": 2})
    for call in (lambda: t.simsala_stopp(NO_FROGS), t.count_points,
                 lambda: t.decision_tap("blue", NO_FROGS)):
        with pytest.raises(RuleError):
            call()


@pytest.mark.parametrize(
    "players, youngest, level",
    [
        (("yellow",), "yellow", 0),  # too few players
        (("yellow", "yellow"), "yellow", 0),  # repeated colour
        (("yellow", "green"), "yellow", 0),  # unknown colour
        (("yellow", "blue"), "violet", 0),  # youngest not playing
        (("yellow", "blue"), "yellow", 3),  # bad level
    ],
)
def test_bad_tournament_setup(players, youngest, level):
    with pytest.raises(OptionError):
        sh.Tournament.start(players, youngest, level)


def test_apply_dispatches_json_actions():
    t = sh.Tournament.start(FOUR, youngest="blue")
    t = t.apply({"action": "simsala_stopp", "facts": facts(VINCENT_ARENA)})
    t = t.apply({"action": "lazy_spell", "player": "violet", "result": "rabbit-violet"})
    t = t.apply({"action": "pass", "player": "yellow"})
    t = t.apply({"action": "pass", "player": "orange"})
    t = t.apply({"action": "count_points"})
    assert t.bat("violet") == 1 and t.bat("blue") == 3
    with pytest.raises(FactsError):
        t.apply({"action": "jump"})


# ------------------------------------------------------------------------------------------
# JSON save / restore


def test_json_round_trip_simple():
    t = sh.Tournament.start(FOUR, youngest="blue", level=1)
    t = t.simsala_stopp(facts(VINCENT_ARENA))
    text = t.dumps()
    assert sh.Tournament.from_json(text) == t
    assert sh.Tournament.from_json(json.loads(text)).to_json() == t.to_json()


def _tampered(change):
    t = sh.Tournament.start(FOUR, youngest="blue").simsala_stopp(facts(VINCENT_ARENA))
    d = t.to_json()
    change(d)
    return d


@pytest.mark.parametrize(
    "change, path",
    [
        (lambda d: d["bats"].update(blue=-1), "state.bats.blue"),  # negative bat
        (lambda d: d.update(phase="dancing"), "state.phase"),  # unknown phase
        (lambda d: d.update(game="magic-rabbit"), "state.game"),  # another game's state
        (lambda d: d.update(extra=1), "state"),  # unknown key
        (lambda d: d["cups"].update(blue=2), "state.cups"),  # tournament already over
        (lambda d: d["tiles"]["arena"].update(frog=15), "state.tiles"),  # 21 tiles
        (lambda d: d.update(youngest="pink"), "state.youngest"),
        (lambda d: d.update(turn=4), "state.turn"),  # only 4 turns: 0..3
        (lambda d: d.update(phase="transform"), "state.tiles"),  # tiles before Simsala Stopp
        (lambda d: d.update(winner="blue"), "state.winner"),  # winner while playing
        (lambda d: d.update(contenders=["blue", "yellow"]), "state.contenders"),  # no tie-break yet
        (lambda d: d.pop("players"), "state.players"),
    ],
)
def test_from_json_rejects_tampered_states(change, path):
    with pytest.raises(FactsError) as err:
        sh.Tournament.from_json(_tampered(change))
    assert err.value.path == path


def test_from_json_rejects_bad_text():
    with pytest.raises(FactsError):
        sh.Tournament.from_json("{not json")
    with pytest.raises(FactsError):
        sh.Tournament.from_json([1, 2])


# ------------------------------------------------------------------------------------------
# Random tournaments: invariants at every step


def random_tournament(seed, players, level, max_steps=3000):
    """Play a random legal tournament (seeded); yields (before, after) for every transition."""
    rng = random.Random(seed)
    t = sh.Tournament.start(players, rng.choice(players), level)
    tiles = None
    for _ in range(max_steps):
        action = t.next_action()["action"]
        if action is None:
            return
        if action == "simsala_stopp":
            tiles = [rng.choice(TILE_STATES[:4]) for _ in BACKS]
            new = t.simsala_stopp(tiles_to_facts(tiles))
        elif action == "lazy_spell":
            who = t.current_spectator
            frogs = [i for i, s in enumerate(tiles) if s == "frog-arena"]
            if rng.random() < 0.3:
                new = t.pass_lazy_spell(who)
            else:
                i = rng.choice(frogs)
                tiles[i] = "back-arena"
                new = t.lazy_spell(who, BACKS[i])
        elif action == "count_points":
            new = t.count_points()
        else:
            who = t.current_tapper
            if rng.random() < 0.05:
                new = t.decision_tap(who, foul=True)
            else:
                taps = [rng.choice(TILE_STATES[:4]) for _ in BACKS]
                new = t.decision_tap(who, tiles_to_facts(taps))
        yield t, new
        t = new
    raise AssertionError("tournament did not end")


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=seatings, level=st.sampled_from((0, 1, 2)))
def test_random_tournaments_keep_the_rules(seed, players, level):
    n = len(players)
    finished = None
    for before, after in random_tournament(seed, players, level):
        # bats stay on the walls' 16 spaces during the rounds
        assert all(0 <= b <= 15 for b in after.bats) or after.phase in ("decision_tap",
                                                                          "finished")
        # saving and restoring gives the same state
        assert sh.Tournament.from_json(json.loads(after.dumps())) == after
        if before.phase == "count" and before.turn == n - 1:
            # end of a round: every player whose bat was furthest gets exactly one cup
            turn = before.turn_score()
            final = {c: sh.move_bat(before.bat(c), turn.of(c).points) for c in players}
            leaders = set(sh.round_winners(final))
            gained = {c for c in players if after.cups_of(c) == before.cups_of(c) + 1}
            assert gained == leaders
            assert all(after.cups_of(c) - before.cups_of(c) in (0, 1) for c in players)
            assert after.bats == (0,) * n
        finished = after
    assert finished.phase == "finished"
    top = max(finished.cups)
    assert top >= sh.cups_to_win(n) and finished.cups_of(finished.winner) == top


# ------------------------------------------------------------------------------------------
# CLI


def test_cli_scores_facts(run_cli, write_json):
    path = write_json(facts({"rabbit-white": 2, "rabbit-blue": 1, "rabbit-orange": 1,
                             "rabbit-yellow": 2, "cat": 1, "frog": 8}))
    code, out = run_cli("score", "--game", "simsala-hopp", "--facts", path, "--magician", "blue",
                        "--players", "yellow,orange,blue", "--level", "1", "--json")
    assert code == 0
    assert out["score"]["points"] == {"yellow": 2, "orange": 1, "blue": 2}
    assert out["game"] == "simsala-hopp" and out["pieces"] == []
    assert out["warnings"] == []


@pytest.mark.parametrize(
    "bad, needle",
    [
        (facts({"rabbit-pink": 1}), "rabbit-pink"),  # unknown label
        (facts({"frog": -2}), "facts.arena.frog"),  # negative count
        (facts({"frog": 12}, {"frog": 4}), "16 tiles"),  # 16 tiles
    ],
)
def test_cli_bad_facts(run_cli, write_json, bad, needle):
    code, out = run_cli("score", "--game", "simsala-hopp", "--facts", write_json(bad),
                        "--magician", "blue", "--json")
    assert code == 2
    assert out["error"]["code"] == "bad_facts"
    assert needle in out["error"]["message"]


@pytest.mark.parametrize(
    "args, needle",
    [
        ([], "--magician is required"),  # no magician
        (["--magician", "blue", "--players", "yellow,orange"], "not among the players"),
        (["--magician", "blue", "--level", "5"], "--level"),
        (["--magician", "blue", "--variant", "pile"], "does not take --variant"),
    ],
)
def test_cli_bad_options(run_cli, write_json, args, needle):
    code, out = run_cli("score", "--game", "simsala-hopp", "--facts",
                        write_json(facts(VINCENT_ARENA)), *args, "--json")
    assert code == 2 and out["error"]["code"] == "bad_option"
    assert needle in out["error"]["message"]
