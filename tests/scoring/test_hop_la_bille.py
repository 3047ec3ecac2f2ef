"""Hop la bille rule engine: the rulebook's worked examples, tables per rule, properties, CLI."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import hop_la_bille as hlb
from scoring.hop_la_bille import (
    Card,
    Flick,
    Hit,
    Player,
    Table,
    completes,
    last_marble_ruling,
    score_facts,
    score_table,
)
from scoring.labels import HOP_ZONES, MARBLE_COLOURS, SIDE_ZONES
from tablescore.errors import FactsError, OptionError, RuleError

# ----------------------------------------------------------------------------------------------
# Builders.


def m(*colours: str) -> list[str]:
    """Marble labels from colours: m("red", "red") -> ["marble-red", "marble-red"]."""
    return [f"marble-{c}" for c in colours]


def card(colour: str, *marbles: str, returned: bool | None = None) -> dict:
    out = {"colour": colour, "marbles": m(*marbles)}
    if returned is not None:
        out["returned"] = returned
    return out


BACK = {"colour": "back", "marbles": []}


def area(*colours: str) -> dict[str, int]:
    return {f"marble-{c}": n for c, n in Counter(colours).items()}


def facts(zones: dict, cards: dict | None = None) -> dict:
    out = {"zones": {z: area(*cols) for z, cols in zones.items()}}
    if cards is not None:
        out["cards"] = cards
    return out


ALL = ("yellow", "red", "green", "lightblue", "darkblue")


# ----------------------------------------------------------------------------------------------
# Rulebook worked examples.


def test_example_gamer_3_returns_his_4_marble_card_and_has_2_left():
    # "Gamer 3 made his combination of 4 marbles (2 clear blue, 1 red, 1 green). He returns the
    # corresponding card. It remains for him 2 cards to win."
    blue = Card("blue", hlb.combination(["lightblue", "lightblue", "red", "green"]))
    gamer3 = Player("east", hlb.combination(["red", "lightblue", "green", "lightblue"]),
                    (Card("green", ("yellow", "red", "green")), blue,
                     Card("red", ("yellow", "red", "green", "lightblue", "darkblue"))))
    assert hlb.matching_cards(gamer3) == (1,)
    out = hlb.score_normal(Table((gamer3,)))
    assert out.players[0].completed == (1,)
    assert out.players[0].needed - out.players[0].won == 2  # "it remains for him 2 cards"
    assert out.winner is None
    # After returning it, the card lies face down: still 2 to win, nothing completed now.
    after = Player("east", gamer3.area, (gamer3.cards[0], Card("back"), gamer3.cards[2]))
    res = hlb.score_normal(Table((after,))).players[0]
    assert (res.completed, res.returned, res.needed - res.won) == ((), (1,), 2)


@pytest.mark.parametrize(
    "touched, done",
    [
        (["yellow"], True),  # "touching only one yellow marble": combination of 3 obtained
        (["yellow", "red"], False),  # one marble too many: not exactly the combination
        (["red"], False),  # the wrong colour
    ],
)
def test_example_gamer_4_touching_only_one_yellow(touched, done):
    # Gamer 4 holds 2 marbles and a 3-marble card that also needs a yellow.
    mine = ["green", "lightblue"]
    target = ["yellow", "green", "lightblue"]
    ruling = last_marble_ruling(Flick(len(mine), touched_middle=len(touched)))
    assert ruling.verdict == "wins-touched"
    assert ruling.striker_after == len(mine) + len(touched)
    assert completes(target, mine + touched) is done


def test_exactly_means_nothing_else_in_the_area():
    # "you must have exactly the right number of marbles [...] sometimes, you will have to
    # voluntarily not touch other marbles just to lose one and put it in the middle".
    target = ["red", "red", "yellow"]
    held = ["red", "red", "yellow", "green"]
    assert not completes(target, held)
    ruling = last_marble_ruling(Flick(len(held)))  # flick the green, touch nothing
    assert ruling.verdict == "to-middle" and ruling.middle_change == 1
    assert ruling.striker_after == 3
    assert completes(target, ["red", "red", "yellow"])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_counts(players):
    s = hlb.setup("normal", players)
    # "3 cards are given to each player: a green, a blue and a red one."
    assert s.cards_per_player == 3
    # "Each player gets 5 marbles of 5 different colors."
    assert s.marbles_per_player == 5 and s.marbles_in_middle == 0
    assert s.marbles_per_colour_in_play == {c: players for c in MARBLE_COLOURS}
    assert players * s.marbles_per_player <= hlb.TOTAL_MARBLES


def test_setup_at_4_players_distributes_all_12_cards_and_20_marbles():
    s = hlb.setup("normal", 4)
    assert 4 * s.cards_per_player == hlb.TOTAL_CARDS == 12  # "the 12 cards are distributed"
    assert 4 * s.marbles_per_player == hlb.TOTAL_MARBLES == 20


@pytest.mark.parametrize(
    "players, middle",
    [
        (4, 0),  # "at 4 players, there will be no marbles in the center"
        (3, 4),  # 16 marbles without dark blue, 4 per player
        (2, 8),
    ],
)
def test_no_card_setup(players, middle):
    s = hlb.setup("no-card", players)
    assert s.marbles_per_player == 4  # "4 marbles, one of each color"
    assert s.marbles_in_middle == middle
    assert "darkblue" not in s.marbles_per_colour_in_play
    assert s.cards_per_player == 0


def test_not_time_setup_one_card():
    assert hlb.setup("not-time", 3).cards_per_player == 1


@pytest.mark.parametrize("bad", [("normal", 1), ("normal", 5), ("nope", 2)])
def test_setup_rejects(bad):
    with pytest.raises((ValueError, OptionError)):
        hlb.setup(*bad)


def test_three_returned_cards_win_the_normal_game():
    # "As soon as a gamer has returned his 3 cards, he wins the game!"
    p = Player("south", ("red",), (Card("back"), Card("back"), Card("back")))
    q = Player("north", ("red",), (Card("back"), Card("green", ("red", "red", "red"))))
    out = hlb.score_normal(Table((p, q)))
    assert out.winner == "south" and out.game_over


def test_last_card_completed_now_wins():
    # Two returned, the third realised now: he returns it at once and wins.
    p = Player("west", ("yellow", "red", "green"),
               (Card("back"), Card("back"), Card("green", ("green", "yellow", "red"))))
    out = hlb.score_normal(Table((p,)))
    assert out.winner == "west" and out.players[0].completed == (2,)


# ----------------------------------------------------------------------------------------------
# Completion.


@pytest.mark.parametrize(
    "card_marbles, held, done",
    [
        (["red", "red", "yellow"], ["yellow", "red", "red"], True),  # order irrelevant
        (["red", "red", "yellow"], ["red", "yellow"], False),  # one missing
        (["red", "red", "yellow"], ["red", "red", "yellow", "red"], False),  # one extra
        (["red", "red", "yellow"], ["red", "yellow", "yellow"], False),  # same size, wrong mix
        (["red"] * 4 + ["green"], ["green"] + ["red"] * 4, True),  # a 5-marble card
        (ALL, list(reversed(ALL)), True),  # one of each colour: the starting area!
        (["lightblue"] * 2 + ["red", "green"], ["marble-lightblue"] * 2 + ["red", "green"], True),
    ],
)
def test_completes_table(card_marbles, held, done):
    assert completes(card_marbles, held) is done


@pytest.mark.parametrize(
    "card_marbles, held, text",
    [
        (["red", "red", "yellow"], ["red", "yellow"], "win 1 red"),
        (["red", "red", "yellow"], ["red", "red", "yellow", "green"], "lose 1 green"),
        (["yellow", "yellow", "red"], ["red", "green"], "win 2 yellow and lose 1 green"),
        (["red"], ["red"], "completed"),
    ],
)
def test_advice_in_words(card_marbles, held, text):
    assert text in hlb.advice(card_marbles, held)


def test_combination_rejects_unknown_colour():
    with pytest.raises(ValueError):
        hlb.combination(["purple"])


def test_describe_uses_words():
    assert hlb.describe(["lightblue", "lightblue", "red"]) == "1 red, 2 light blue"
    assert hlb.describe([]) == "no marble"


# ----------------------------------------------------------------------------------------------
# Variants.


def test_suite_only_the_card_due_counts():
    # "realize your objectives in this order: combo 5 marbles, combo 4 marbles and then combo 3"
    held = ("yellow", "red", "green")
    cards = (Card("green", held), Card("blue", ("red",) * 4), Card("red", ("red",) * 3 + held[:2]))
    p = Player("south", held, cards)
    normal = hlb.score_normal(Table((p,))).players[0]
    suite = hlb.score_suite(Table((p,))).players[0]
    assert normal.completed == (0,)  # the green counts in the normal game
    assert suite.matching == (0,) and suite.completed == () and suite.due == "red"


@pytest.mark.parametrize(
    "backs, open_colours, due",
    [
        (0, ("green", "blue", "red"), "red"),  # start: the 5-marble card first
        (1, ("green", "blue"), "blue"),  # then the 4-marble card
        (2, ("green",), "green"),  # then the 3-marble card
        (3, (), None),  # all done
    ],
)
def test_suite_due(backs, open_colours, due):
    marbles = {"green": ("red",) * 3, "blue": ("red",) * 4, "red": ("red",) * 4 + ("green",)}
    p = Player("north", ("red",), tuple(Card(c, marbles[c]) for c in open_colours)
               + (Card("back"),) * backs)
    assert hlb.suite_due(p) == due


def test_suite_last_green_wins_and_out_of_order_warns():
    held = ("yellow", "red", "green")
    ok = Player("south", held, (Card("back"), Card("back"), Card("green", held)))
    assert hlb.score_suite(Table((ok,))).winner == "south"
    bad = Player("north", held, (Card("back"), Card("red", ("red",) * 4 + ("green",))))
    out = hlb.score_suite(Table((bad,)))
    assert any("order" in w for w in out.warnings)


def test_not_time_first_to_realise_wins():
    # "The winner will be the first one to realize its combination!"
    held = ("yellow", "red", "green", "green")
    a = Player("north", held, (Card("blue", held),))
    b = Player("south", ("red",), (Card("blue", ("red",) * 4),))
    out = hlb.score_not_time(Table((a, b)))
    assert out.winner == "north" and out.players[0].needed == 1
    assert not out.warnings


def test_not_time_warns_on_different_colours():
    a = Player("north", ("red",), (Card("blue", ("red",) * 4),))
    b = Player("south", ("red",), (Card("green", ("red",) * 3),))
    assert any("same colour" in w for w in hlb.score_not_time(Table((a, b))).warnings)


@pytest.mark.parametrize(
    "held, colour",
    [
        (("yellow",) * 4, "yellow"),  # "4 marbles of one color"
        (("red",) * 4 + ("green", "yellow"), "red"),  # other marbles do not matter
        (("red",) * 3 + ("green",), None),  # only 3
        (("darkblue",) * 4, None),  # dark blue is not in play
        ((), None),
    ],
)
def test_no_card_four_of_a_colour(held, colour):
    assert hlb.four_of_a_colour(held) == colour
    out = hlb.score_no_card(Table((Player("east", held),)))
    assert out.winner == (None if colour is None else "east")


def test_no_card_simultaneous_finish_is_undecided():
    a = Player("north", ("yellow",) * 4)
    b = Player("south", ("red",) * 4)
    out = hlb.score_no_card(Table((a, b)))
    assert out.winners == ("north", "south") and not out.decided and out.winner is None


def pile_player(zone: str, sizes: list[int], backs: int = 0, current=None) -> Player:
    """A pile player with returned face-up cards of the given sizes (3/4/5), face-down backs
    and an optional current card."""
    colour = {3: "green", 4: "blue", 5: "red"}
    cards = [Card(colour[s], ("red",) * min(s, 4) + ("green",) * (s - 4 if s > 4 else 0),
                  returned=True) for s in sizes]
    cards += [Card("back")] * backs
    if current:
        cards.append(current)
    return Player(zone, ("yellow",), tuple(cards))


@pytest.mark.parametrize(
    "a, b, winners",
    [
        ([5, 4], [3, 3], ("north",)),  # 9 marbles against 6
        ([5, 5, 4], [5, 3, 3, 3], ("south",)),  # 14 each: 4 cards beat 3
        ([5, 4], [5, 4], ("north", "south")),  # 9 and 2 cards each: "you are both strong!"
        ([], [3], ("south",)),  # nothing returned against 3
    ],
)
def test_pile_count_and_tie_breaks(a, b, winners):
    out = hlb.score_pile(Table((pile_player("north", a), pile_player("south", b))))
    assert out.game_over and out.decided and out.winners == winners
    if len(winners) > 1:
        assert "both strong" in out.explanation[-1]
    totals = {r.zone: r.pile.exact for r in out.players}
    assert totals == {"north": sum(a), "south": sum(b)}


def test_pile_goes_on_while_cards_remain():
    cur = Card("green", ("red", "red", "red"))
    t = Table((pile_player("north", [5], current=cur), pile_player("south", [3], current=cur)),
              pile=(Card("back"),) * 3)
    out = hlb.score_pile(t)
    assert not out.game_over and out.winners == () and "3 card(s)" in out.explanation[-1]


def test_pile_face_down_cards_bound_the_total():
    # Two face-down returned cards are worth 6 (two greens) to 10 (two reds).
    out = hlb.score_pile(Table((pile_player("north", [], backs=2), pile_player("south", [5]))))
    north = out.players[0].pile
    assert (north.low, north.high, north.exact) == (6, 10, None)
    assert out.decided and out.winner == "north"  # at least 6 beats 5 whatever they show
    # Against 8 marbles, the hidden faces decide (6 loses, 10 wins): no winner named.
    out2 = hlb.score_pile(Table((pile_player("north", [], backs=2), pile_player("south", [5, 3]))))
    assert not out2.decided and out2.winner is None
    assert "turn them up" in out2.explanation[-1]


def test_pile_supply_narrows_the_bounds():
    # All 4 red cards are face up elsewhere: a face-down card is worth at most 4.
    reds = [Card("red", ("red",) * 4 + ("green",), returned=True)] * 4
    a = Player("north", ("yellow",), tuple(reds))
    b = Player("south", ("yellow",), (Card("back"),))
    total = hlb.pile_total(b, hlb.card_supply(Table((a, b))))
    assert (total.low, total.high) == (3, 4)


@pytest.mark.parametrize(
    "sizes, backs, winner, decided",
    [
        ([5, 3, 3], 0, "north", True),  # 11 marbles: wins the short game
        ([4, 4], 0, None, True),  # 8: not yet
        ([4, 3], 1, None, False),  # 7 + a face-down 3..5: 10 to 12, maybe 11
        ([4, 4], 1, "north", True),  # 8 + at least 3 = 11
        ([5, 5], 1, "north", True),  # 10 + at least 3
    ],
)
def test_pile_short_first_to_11(sizes, backs, winner, decided):
    cur = Card("blue", ("red",) * 4)  # the current cards leave green cards for the backs
    t = Table((pile_player("north", sizes, backs, cur), pile_player("south", [3], current=cur)),
              pile=(Card("back"),))
    out = hlb.score_pile(t, short=True)
    assert out.winner == winner and out.decided is decided


def test_pile_completed_now_counts_and_ends_the_game_when_pile_is_empty():
    held = ("yellow", "red", "green")
    a = Player("north", held, (Card("red", ("red",) * 4 + ("green",), returned=True),
                               Card("green", held)))
    b = Player("south", ("red",), (Card("blue", ("red",) * 4, returned=True),
                                   Card("green", ("red",) * 3)))
    out = hlb.score_pile(Table((a, b)))
    assert out.players[0].completed == (1,)
    assert out.game_over and out.winner == "north"  # 5 + 3 = 8 against 4
    assert out.players[0].pile.exact == 8


def test_pile_beats_is_antisymmetric_example():
    a = hlb.PileTotal(2, 8, 0, 8, 8)
    b = hlb.PileTotal(3, 8, 0, 8, 8)
    assert hlb.pile_beats(b, a) and not hlb.pile_beats(a, b)


def test_score_table_dispatches_and_rejects_unknown_variant():
    t = Table((Player("north", ("red",) * 4),))
    assert score_table(t, "no-card").winner == "north"
    with pytest.raises(OptionError):
        score_table(t, "speed")


# ----------------------------------------------------------------------------------------------
# The last-marble rule.


@pytest.mark.parametrize(
    "flick, verdict, striker_after, opponents_after, covered",
    [
        # "when he plays his last marble and it does not touch anything, he takes it again"
        (Flick(1), "keeps-last-marble", 1, (), True),
        # Several marbles, nothing touched: the flicked one goes to the middle.
        (Flick(3), "to-middle", 2, (), True),
        # "if this last marble is touched by the one of another player, this last one chooses"
        (Flick(3, opponents=(Hit(1),)), "lone-player-chooses", 3, (1,), True),
        # A lone striker touching a lone opponent: both still have one marble.
        (Flick(1, opponents=(Hit(1),)), "lone-player-chooses", 1, (1,), True),
        # The last marble hit together with a middle marble: the middle one is won as usual.
        (Flick(2, touched_middle=1, opponents=(Hit(1),)), "lone-player-chooses", 3, (1,), True),
        # Ordinary hits: recover the flicked marble and win the touched ones.
        (Flick(2, touched_middle=2, opponents=(Hit(3, 1),)), "wins-touched", 5, (2,), True),
        # "If the marble you played touches one of your marbles, you win it!"
        (Flick(3, touched_own=1), "wins-touched", 3, (), True),
        # The striker's last marble touches something: no special rule.
        (Flick(1, touched_middle=1), "wins-touched", 2, (), True),
        # Not in the rulebook: two lone players hit at once; every marble of a player taken.
        (Flick(2, opponents=(Hit(1), Hit(1))), "not-covered", 2, (1, 1), False),
        (Flick(2, opponents=(Hit(2, 2),)), "not-covered", 4, (0,), False),
    ],
)
def test_last_marble_referee(flick, verdict, striker_after, opponents_after, covered):
    r = last_marble_ruling(flick)
    assert r.verdict == verdict
    assert r.striker_after == striker_after
    assert r.opponents_after == opponents_after
    assert r.covered is covered
    assert r.explanation.endswith(".") and len(r.explanation) > 40


@pytest.mark.parametrize(
    "flick",
    [
        Flick(0),  # nothing to flick
        Flick(2, touched_own=2),  # only one other own marble exists
        Flick(2, opponents=(Hit(1, 2),)),  # more touched than the opponent had
        Flick(2, opponents=(Hit(0, 0),)),
        Flick(5, touched_middle=16),  # more marbles than the game has
    ],
)
def test_last_marble_referee_rejects_impossible_flicks(flick):
    with pytest.raises(RuleError):
        last_marble_ruling(flick)


# ----------------------------------------------------------------------------------------------
# Facts adapter.

START4 = {z: ALL for z in SIDE_ZONES}  # the starting areas at 4 players


def normal_cards():
    return [card("green", "red", "red", "yellow"),
            card("blue", "lightblue", "lightblue", "red", "green"),
            card("red", "yellow", "red", "green", "lightblue", "darkblue")]


def test_score_facts_completed_indices_per_zone():
    zones = {"south": ("lightblue", "lightblue", "red", "green"), "north": ("yellow", "red"),
             "middle": ("yellow",)}
    f = facts(zones, {"south": normal_cards(), "north": [BACK] + normal_cards()[:2]})
    score, _warnings = score_facts(f, {})
    assert score["variant"] == "normal"
    assert score["completed"] == {"north": [], "east": [], "south": [1], "west": [],
                                  "middle": []}
    assert score["returned"] == {"south": [], "north": [0]}
    assert score["cards_won"] == {"south": 1, "north": 1}
    assert score["winner"] is None
    assert any("south's blue card #1 is completed" in s for s in score["explanation"])


def test_score_facts_start_of_4_player_game_red_card_with_all_colours():
    # At the start every area holds one marble of each colour: a red card printed with the 5
    # colours is completed at once; nothing else is.
    cards = {z: normal_cards() for z in SIDE_ZONES}
    score, warnings = score_facts(facts(START4, cards), {"variant": "normal"})
    assert all(score["completed"][z] == [2] for z in SIDE_ZONES)
    assert warnings == []


@pytest.mark.parametrize(
    "f, path",
    [
        # 5 marbles of one colour in all (4 exist).
        (facts({"north": ("red",) * 3, "middle": ("red",) * 2}), "facts.zones.marble-red"),
        ({"zones": {"north": {"marble-purple": 1}}}, "facts.zones.north.marble-purple"),
        ({"zones": {"north": {"marble-red": -1}}}, "facts.zones.north.marble-red"),
        ({"zones": {"north": {"marble-red": 1.5}}}, "facts.zones.north.marble-red"),
        ({"zones": {"table": {"marble-red": 1}}}, "facts.zones.table"),  # unknown zone
        ({"cards": {}}, "facts"),  # no zones at all
        ({"zones": [], "cards": {}}, "facts.zones"),
        ({"zones": {}, "cards": {"sky": []}}, "facts.cards.sky"),
        ({"zones": {}, "cards": {"north": {}}}, "facts.cards.north"),
        ({"zones": {}, "cards": {"north": ["green"]}}, "facts.cards.north[0]"),
        ({"zones": {}, "cards": {"north": [card("purple")]}}, "facts.cards.north[0].colour"),
        ({"zones": {}, "cards": {"north": [{"marbles": []}]}}, "facts.cards.north[0]"),
        # A green card shows 3 marbles, blue 4, red 5, a back none.
        ({"zones": {}, "cards": {"north": [card("green", "red")]}}, "facts.cards.north[0].marbles"),
        ({"zones": {}, "cards": {"west": [card("blue", *ALL)]}}, "facts.cards.west[0].marbles"),
        ({"zones": {}, "cards": {"east": [card("red", *ALL[:4])]}}, "facts.cards.east[0].marbles"),
        ({"zones": {}, "cards": {"east": [card("back", "red")]}}, "facts.cards.east[0].marbles"),
        ({"zones": {}, "cards": {"north": [{"colour": "green", "marbles": ["marble-red"] * 2
                                            + ["marble-pink"]}]}},
         "facts.cards.north[0].marbles[2]"),
        ({"zones": {}, "cards": {"north": [card("red", *["red"] * 5)]}},  # 5 reds on a card
         "facts.cards.north[0].marbles"),
        ({"zones": {}, "cards": {"north": [card("green", "red", "red", "red", returned="yes")]}},
         "facts.cards.north[0].returned"),
        ({"zones": {}, "cards": {"north": [BACK] * 13}}, "facts.cards"),  # 12 cards exist
        ({"zones": {}, "cards": {z: [card("green", "red", "red", "red")] * 2 for z in
                                 ("north", "east", "south")}}, "facts.cards"),  # 6 green cards
    ],
)
def test_bad_facts_name_the_entry(f, path):
    with pytest.raises(FactsError) as exc:
        score_facts(f, {})
    assert exc.value.path == path
    assert exc.value.message.startswith(path)


def test_five_marbles_of_one_colour_message():
    f = facts({"north": ("green",) * 2, "south": ("green",) * 2, "middle": ("green",)})
    with pytest.raises(FactsError, match="5 marble-green in all .*only 4"):
        score_facts(f, {})


def test_unknown_variant_is_an_option_error():
    with pytest.raises(OptionError, match="pile-short"):
        score_facts(facts({}), {"variant": "tournament"})


@pytest.mark.parametrize(
    "f, variant, fragment",
    [
        # A seated player with no marble: the last-marble rule keeps one.
        (facts({"north": ALL}, {"north": normal_cards(), "south": normal_cards()}), "normal",
         "south's area holds no marble"),
        # Marbles in front of a side with no cards.
        (facts({"north": ALL, "east": ("red",)}, {"north": normal_cards()}), "normal",
         "east has no cards"),
        # Counts per colour should equal the number of players.
        (facts({"north": ALL, "south": ALL[:4]},
               {"north": normal_cards(), "south": normal_cards()}), "normal", "1 dark blue"),
        # Two cards of one colour for a player.
        (facts({"north": ALL}, {"north": normal_cards() + normal_cards()[:1]}), "normal",
         "more than one green"),
        (facts({"north": ALL}, {"north": normal_cards()[:2]}), "normal", "north has 2 cards"),
        (facts({"north": ("red",)}, {"north": normal_cards()}), "no-card", "without cards"),
        (facts({"north": ("darkblue",)}), "no-card", "dark blue"),
        (facts({"north": ("red",)}, {"north": normal_cards()[:1], "south": normal_cards()[1:2]}),
         "not-time", "same colour"),
        (facts({"north": ALL}, {"north": normal_cards(), "middle": normal_cards()[:1]}),
         "normal", "middle"),
        (facts({"north": ALL, "south": ALL}, {"north": normal_cards(), "south": normal_cards()}),
         "pile", "one card at a time"),
        (facts({"north": ("red",)}), "normal", "no cards in the facts"),
        (facts({"north": ALL}, {"north": normal_cards()}), "normal", "only one player"),
        ({"zones": {}, "extra": 1}, "normal", "facts.extra"),
        ({"zones": {"north": {"card-green": 2}}, "cards": {"north": normal_cards()}}, "normal",
         "facts.zones.north.card-green"),
    ],
)
def test_doubtful_facts_warn(f, variant, fragment):
    _score, warnings = score_facts(f, {"variant": variant})
    assert any(fragment in w for w in warnings), warnings


@pytest.mark.parametrize("variant", hlb.VARIANTS)
def test_every_variant_gives_the_contract_keys(variant):
    cards = {z: normal_cards() for z in SIDE_ZONES}
    score, _ = score_facts(facts(START4, cards), {"variant": variant})
    assert set(score["completed"]) == set(HOP_ZONES)
    assert score["variant"] == variant
    assert isinstance(score["explanation"], list) and score["explanation"]
    if variant == "no-card":
        assert all(v == [] for v in score["completed"].values())
        assert set(score["four_of_a_colour"]) == set(SIDE_ZONES)
    if variant.startswith("pile"):
        assert set(score["pile"]) == set(SIDE_ZONES)


def test_returned_flag_counts_for_pile():
    held = ("yellow", "red", "green")
    f = facts({"north": held, "south": ("red", "red", "green", "green")},
              {"north": [card("red", "red", "red", "red", "red", "green", returned=True),
                         card("green", "yellow", "red", "green")],
               "south": [card("blue", "red", "red", "green", "green", returned=True),
                         card("blue", "yellow", "yellow", "yellow", "yellow")]})
    score, _ = score_facts(f, {"variant": "pile"})
    assert score["pile"]["north"] == {"cards": 2, "marbles": 8, "low": 8, "high": 8,
                                      "face_down": 0}
    assert score["pile"]["south"]["marbles"] == 4
    assert score["winner"] == "north" and score["game_over"]


# ----------------------------------------------------------------------------------------------
# Properties.

colour_st = st.sampled_from(MARBLE_COLOURS)


@st.composite
def card_and_area(draw):
    colour = draw(st.sampled_from(("green", "blue", "red")))
    size = hlb.CARD_SIZES[colour]
    marbles = draw(st.lists(colour_st, min_size=size, max_size=size))
    held = draw(st.lists(colour_st, max_size=8))
    return marbles, held


@settings(max_examples=200, deadline=None)
@given(card_and_area(), st.randoms(use_true_random=False))
def test_completion_invariant_under_permutation(ca, rnd):
    marbles, held = ca
    shuffled_card, shuffled_area = list(marbles), list(held)
    rnd.shuffle(shuffled_card)
    rnd.shuffle(shuffled_area)
    assert completes(marbles, held) == completes(shuffled_card, shuffled_area)
    # Completing the card after winning exactly what it shows.
    assert completes(marbles, marbles)


@settings(max_examples=200, deadline=None)
@given(card_and_area(), colour_st)
def test_completion_needs_the_exact_count(ca, extra):
    marbles, held = ca
    if completes(marbles, held):
        assert len(held) == len(marbles)
        assert not completes(marbles, held + [extra])  # one more marble breaks it
        assert not completes(marbles, held[1:])  # one fewer too


zone_area_st = st.dictionaries(
    st.sampled_from(HOP_ZONES),
    st.dictionaries(st.sampled_from([f"marble-{c}" for c in MARBLE_COLOURS]),
                    st.integers(0, 5)),
)


@settings(max_examples=300, deadline=None)
@given(zone_area_st)
def test_accepted_facts_never_exceed_20_marbles(zones):
    try:
        score, _ = score_facts({"zones": zones}, {"variant": "no-card"})
    except FactsError:
        totals = Counter()
        for counts in zones.values():
            totals.update(counts)
        assert max(totals.values()) > 4  # rejected only for too many of one colour
        return
    total = sum(n for counts in zones.values() for n in counts.values())
    assert total <= hlb.TOTAL_MARBLES
    assert set(score["completed"]) == set(HOP_ZONES)


hit_st = st.integers(1, 4).flatmap(lambda had: st.builds(Hit, st.just(had), st.integers(1, had)))


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 6), st.integers(0, 3), st.integers(0, 5),
       st.lists(hit_st, max_size=3))
def test_referee_conserves_marbles(n, middle, own, hits):
    own = min(own, n - 1)
    r = last_marble_ruling(Flick(n, middle, own, tuple(hits)))
    before = n + sum(h.had for h in hits)
    after = r.striker_after + sum(r.opponents_after)
    assert before - after == r.middle_change  # marbles only move, never vanish
    if r.covered:
        # A player who had one marble still has one.
        assert all(a == 1 for h, a in zip(hits, r.opponents_after, strict=True) if h.had == 1)
        assert r.striker_after >= 1


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([3, 4, 5]), max_size=4), st.integers(0, 1_000_000))
def test_pile_bounds_contain_the_revealed_total(faces, seed):
    # Hide a random subset of returned cards; the bounds must contain the true total.
    rng = random.Random(seed)
    hidden = [rng.random() < 0.5 for _ in faces]
    colour = {3: "green", 4: "blue", 5: "red"}
    cards = tuple(Card("back") if h else Card(colour[s], ("red",) * 3 + ("green",) * (s - 3),
                                                  returned=True)
                  for s, h in zip(faces, hidden, strict=True))
    p = Player("north", ("red",), cards)
    total = hlb.pile_total(p, hlb.card_supply(Table((p,))))
    assert total.low <= sum(faces) <= total.high
    assert total.cards == len(faces)


pile_total_st = st.builds(
    lambda cards, known, hidden: hlb.PileTotal(cards + hidden, known, hidden,
                                               known + 3 * hidden, known + 5 * hidden),
    st.integers(0, 3), st.integers(0, 15), st.integers(0, 2),
)


@given(pile_total_st, pile_total_st)
def test_pile_beats_never_both_ways(a, b):
    assert not (hlb.pile_beats(a, b) and hlb.pile_beats(b, a))


# ----------------------------------------------------------------------------------------------
# CLI.


def test_cli_pile_json(run_cli, write_json):
    held = ("yellow", "red", "green")
    f = facts({"north": held, "south": ("red",)},
              {"north": [card("blue", "red", "red", "green", "green", returned=True),
                         card("green", "yellow", "red", "green")],
               "south": [BACK, card("green", "red", "red", "red")],
               "middle": [BACK, BACK]})
    code, out = run_cli("score", "--game", "hop-la-bille", "--facts", write_json(f),
                        "--variant", "pile", "--json")
    assert code == 0, out
    assert out["game"] == "hop-la-bille" and out["pieces"] == [] and out["facts"] == f
    assert out["score"]["completed"]["north"] == [1]
    assert out["score"]["pile"]["north"]["marbles"] == 7
    assert out["score"]["pile_left"] == 2 and out["score"]["game_over"] is False
    assert isinstance(out["warnings"], list)


def test_cli_default_variant_is_normal(run_cli, write_json):
    code, out = run_cli("score", "--game", "hop-la-bille", "--facts",
                        write_json(facts({"north": ALL}, {"north": normal_cards()})), "--json")
    assert code == 0 and out["score"]["variant"] == "normal"
    assert out["score"]["completed"]["north"] == [2]


@pytest.mark.parametrize(
    "f, fragment",
    [
        (facts({"north": ("yellow",) * 3, "south": ("yellow",) * 2}), "marble-yellow"),  # 5
        ({"zones": {"north": {"marble-orange": 1}}}, "marble-orange"),  # unknown label
        ({"zones": {"north": {"marble-red": -2}}}, "at least 0"),  # negative count
        ({"zones": {"north": {}}, "cards": {"north": [card("red", "red")]}}, "shows 5 marbles"),
    ],
)
def test_cli_bad_facts_exit_2(run_cli, write_json, f, fragment):
    code, out = run_cli("score", "--game", "hop-la-bille", "--facts", write_json(f), "--json")
    assert code == 2
    assert out["error"]["code"] == "bad_facts"
    assert fragment in out["error"]["message"]


def test_cli_bad_variant_exit_2(run_cli, write_json):
    code, out = run_cli("score", "--game", "hop-la-bille", "--facts", write_json(facts({})),
                        "--variant", "blitz", "--json")
    assert code == 2 and out["error"]["code"] == "bad_option"
