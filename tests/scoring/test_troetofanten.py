"""Der Troetofanten-Zirkus: scoring, the one-turn referee, multi-round totals, the facts
adapter and the CLI. Rulebook: shared/rules/troetofanten-zirkus.txt."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import labels
from scoring import troetofanten as tf
from scoring.troetofanten import Action, GameRecord, Pile, PileRef, RingSpot, Table, Turn
from tablescore.errors import FactsError, RuleError

# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def table(players=3, piles=None, ring=(), ring_piles=(), stroll=(), face_down=None, edge=None):
    """A table from plain lists: piles = {player: [[bottom, ..., top], ...]}."""
    piles = piles or {}
    face_down = face_down or {}
    return Table(
        players=players,
        ring=tuple(ring),
        ring_piles=tuple(Pile(tuple(p)) for p in ring_piles),
        piles=tuple(tuple(Pile(tuple(p)) for p in piles.get(i, ())) for i in range(players)),
        face_down=tuple(tuple(face_down.get(i, ())) for i in range(players)),
        stroll=tuple(stroll),
        edge=edge,
    )


FULL_RING = ("elephant-1", "elephant-2", "elephant-5")


def ref(owner, index=0):
    return PileRef(owner, index)


# ---------------------------------------------------------------------------------------------
# Game components (rulebook "Game Components")
# ---------------------------------------------------------------------------------------------


def test_box_matches_the_rulebook():
    base = Counter(tf.box(()))
    # "The base game includes 88 playing cards"
    assert sum(base.values()) == 88
    # "64 x elephant: 16 x the number 1, 12 x the numbers 2, 3, 4, 5 each"
    assert sum(n for c, n in base.items() if c.startswith("elephant-")) == 64
    assert base["elephant-1"] == 16
    assert all(base[f"elephant-{k}"] == 12 for k in range(2, 6))
    # "20 x tootophant: 5 x the numbers 2, 3, 4, 5 each"
    assert [base[f"tootophant-{k}"] for k in range(2, 6)] == [5, 5, 5, 5]
    # "3 x mouse, 1 x mousetrap"
    assert (base["mouse"], base["mousetrap"]) == (3, 1)
    full = Counter(tf.box())
    # "11 playing cards for two game expansions": 6 lasso, 5 tamer (the overview is no
    # playing card)
    assert (full["lasso"], full["tamer"]) == (6, 5)
    assert sum(full.values()) == 88 + 11 == labels.TROETO_TOTAL_CARDS
    assert dict(full) == labels.TROETO_COUNTS


def test_box_rejects_unknown_expansion():
    with pytest.raises(RuleError, match="expansion"):
        tf.box(("overview",))


@pytest.mark.parametrize(
    "card, n",
    [
        ("elephant-1", 1),  # elephants 1-5
        ("elephant-5", 5),
        ("tootophant-2", 2),  # tootophants 2-5
        ("mouse", None),  # special cards carry no number
        ("lasso", None),
    ],
)
def test_number(card, n):
    assert tf.number(card) == n


# ---------------------------------------------------------------------------------------------
# Final scoring (rulebook "Scoring" and the expansions)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "counts, points",
    [
        ({}, 0),  # nothing in front of you
        ({"elephant-1": 2}, 2),  # "+1 POINT: for each animal lying open"
        ({"elephant-3": 1, "tootophant-4": 1}, 2),  # "the type of the animal do[es] not matter"
        ({"elephant-5": 3, "tootophant-2": 2}, 5),  # "the number ... do[es] not matter"
        ({"back": 2}, -2),  # a stroll pair: "they each count as -1 Point"
        ({"elephant-2": 2, "mousetrap": 1}, 1),  # "the mousetrap counts as -1 Point"
        ({"elephant-2": 2, "mouse": 1}, 3),  # mouse on a pile: +1
        ({"back": 1}, -1),  # mouse face down (seen as a back): -1
        ({"elephant-4": 2, "tamer": 1}, 1),  # open tamer: -1
        ({"back": 1, "tamer": 0}, -1),  # face-down tamer is a back: still -1
        ({"elephant-1": 2, "lasso": 1}, 3),  # open lasso: +1
        ({"elephant-2": 2, "mouse": 1, "mousetrap": 1}, 2),  # trap over a mouse pile
        (
            {"elephant-1": 4, "tootophant-2": 1, "mouse": 1, "lasso": 2, "tamer": 1, "back": 3},
            4,  # 5 animals + mouse + 2 lassos - tamer - 3 backs
        ),
    ],
)
def test_score_counts(counts, points):
    assert tf.score_counts(counts).points == points


@pytest.mark.parametrize(
    "counts, err",
    [
        ({"unicorn": 1}, "unknown label"),  # not a card
        ({"elephant-1": -1}, ">= 0"),  # negative count
        ({"elephant-1": 1.5}, ">= 0"),  # not a whole number
        ({"mouse": True}, ">= 0"),  # a bool is not a count
    ],
)
def test_score_counts_rejects(counts, err):
    with pytest.raises(RuleError, match=err):
        tf.score_counts(counts)


def test_score_cards_and_explanation():
    b = tf.score_cards(["elephant-1", "elephant-1", "tootophant-2", "mouse", "mousetrap"], 1)
    assert (b.open_animals, b.mice, b.mousetraps, b.face_down) == (3, 1, 1, 1)
    assert (b.plus, b.minus, b.points) == (4, 2, 2)
    assert b.explain() == "+3 open animals, +1 mouse on a pile, -1 mousetrap, -1 face-down card = 2"
    assert tf.Breakdown().explain() == "no cards = 0"
    with pytest.raises(RuleError, match="face_down"):
        tf.score_cards(["back"])


count_maps = st.dictionaries(st.sampled_from(labels.TROETO_LABELS), st.integers(0, 20))


@given(count_maps)
def test_points_are_open_minus_closed(counts):
    b = tf.score_counts(counts)
    plus = sum(n for c, n in counts.items() if c in tf.ANIMALS or c in ("mouse", "lasso"))
    minus = sum(n for c, n in counts.items() if c in ("back", "mousetrap", "tamer"))
    assert b.points == plus - minus == sum(tf.POINTS[c] * n for c, n in counts.items())
    assert b.as_dict()["points"] == b.points


@given(count_maps, count_maps)
def test_scoring_is_additive(a, b):
    both = Counter(a)
    both.update(b)
    assert tf.score_counts(both).points == tf.score_counts(a).points + tf.score_counts(b).points


# ---------------------------------------------------------------------------------------------
# The referee: TOOT -> MATE -> TRAIN -> STROLL
# ---------------------------------------------------------------------------------------------

# (table, turn, action that applies, its targets)
REFEREE_CASES = [
    # TOOT: tootophant 4 on a pile topped by a 3 of another player
    (
        table(piles={1: [["elephant-3", "elephant-3"]]}, ring=FULL_RING),
        Turn(0, "tootophant-4"),
        Action.TOOT,
        (ref(1),),
    ),
    # "It does not matter whether the top card of the pile is an elephant or a tootophant"
    (
        table(piles={2: [["elephant-2", "elephant-2", "tootophant-3"]]}, ring=FULL_RING),
        Turn(0, "tootophant-4"),
        Action.TOOT,
        (ref(2),),
    ),
    # TOOT beats MATE: the ring holds a 4 too
    (
        table(piles={1: [["elephant-3", "elephant-3"]]}, ring=("elephant-4",)),
        Turn(0, "tootophant-4"),
        Action.TOOT,
        (ref(1),),
    ),
    # several piles to choose from, in two players' circuses
    (
        table(
            piles={
                1: [["elephant-1", "elephant-1"], ["elephant-4", "elephant-4"]],
                2: [["elephant-4", "tootophant-4"]],
            }
        ),
        Turn(0, "tootophant-5"),
        Action.TOOT,
        (ref(1, 1), ref(2, 0)),
    ),
    # a tootophant 2 steals a pile topped by a 1
    (
        table(piles={1: [["elephant-1", "elephant-1"]]}),
        Turn(0, "tootophant-2"),
        Action.TOOT,
        (ref(1),),
    ),
    # only "in front of another player": own pile topped by a 3 -> MATE with the ring's 4
    (
        table(piles={0: [["elephant-3", "elephant-3"]]}, ring=("elephant-4",)),
        Turn(0, "tootophant-4"),
        Action.MATE,
        (RingSpot(0),),
    ),
    # "In the very first turn of the game, the starting player does not have this option"
    (
        table(piles={1: [["elephant-3", "elephant-3"]]}, ring=("elephant-1",)),
        Turn(0, "tootophant-4", first_of_game=True),
        Action.TRAIN,
        (RingSpot(1),),
    ),
    # the number must be higher by exactly 1: a 2 on top does not follow a 4
    (
        table(piles={1: [["elephant-2", "elephant-2"]]}, ring=FULL_RING),
        Turn(0, "tootophant-4"),
        Action.STROLL,
        (),
    ),
    # a tamer on the pile: TOOT is no longer possible
    (
        table(piles={1: [["elephant-3", "elephant-3", "tamer"]]}, ring=("elephant-1",)),
        Turn(0, "tootophant-4"),
        Action.TRAIN,
        (RingSpot(1),),
    ),
    # a mouse on the pile: "This pile can only be stolen by the mousetrap"
    (
        table(piles={1: [["elephant-3", "elephant-3", "mouse"]]}, ring=FULL_RING),
        Turn(0, "tootophant-4"),
        Action.STROLL,
        (),
    ),
    # an elephant never toots, even on a matching pile: MATE
    (
        table(piles={1: [["elephant-3", "elephant-3"]]}, ring=("tootophant-4",)),
        Turn(0, "elephant-4"),
        Action.MATE,
        (RingSpot(0),),
    ),
    # forgotten TOOT: the tootophant goes face down, the stealing was unsuccessful
    (
        table(piles={1: [["elephant-3", "elephant-3"]]}, ring=("elephant-4",)),
        Turn(0, "tootophant-4", shouted=False),
        Action.FORGOTTEN_SHOUT,
        (),
    ),
    # no steal possible: no sound needed, the tootophant simply mates
    (
        table(ring=("elephant-4",)),
        Turn(0, "tootophant-4", shouted=False),
        Action.MATE,
        (RingSpot(0),),
    ),
    # MATE: "An elephant can also attract a tootophant and vice versa"
    (
        table(ring=("elephant-1", "tootophant-3", "elephant-5")),
        Turn(1, "elephant-3"),
        Action.MATE,
        (RingSpot(1),),
    ),
    # TRAIN: fewer than 3 animals in the ring, no partner
    (table(ring=("elephant-1", "elephant-2")), Turn(0, "elephant-5"), Action.TRAIN, (RingSpot(2),)),
    # TRAIN into an empty ring
    (table(), Turn(0, "elephant-5"), Action.TRAIN, (RingSpot(0),)),
    # a lasso pile in the centre comes "in addition to the three": it takes no training spot
    (
        table(
            ring=("elephant-1", "elephant-2"), ring_piles=[["elephant-3", "elephant-3", "lasso"]]
        ),
        Turn(0, "elephant-4"),
        Action.TRAIN,
        (RingSpot(2),),
    ),
    # STROLL: three animals train, none with the number
    (table(ring=FULL_RING), Turn(2, "elephant-3"), Action.STROLL, ()),
]


@pytest.mark.parametrize("tab, turn, action, targets", REFEREE_CASES)
def test_referee(tab, turn, action, targets):
    ruling = tf.referee(tab, turn)
    assert ruling.applies.action == action
    assert ruling.applies.targets == targets
    assert ruling.applies == ruling.legal[0]  # the first legal step applies
    assert not ruling.player_choice
    assert ruling.applies.reason  # a sentence from the rules
    # the steps come in the rulebook's order
    order = [s.action for s in ruling.steps]
    assert order[0] == Action.TOOT and order[-2:] == [Action.TRAIN, Action.STROLL]
    assert (ruling.follow_up is not None) == (action == Action.STROLL)


@pytest.mark.parametrize("guard", ["tamer", "lasso", "mouse"])
def test_a_guard_anywhere_in_a_pile_protects_it(guard):
    # Legal play keeps these cards on top, but a hand-entered table may bury one: "If a tamer
    # lies on a pile, TOOT is no longer possible", a lasso pile "can only be stolen by another
    # lasso", a mouse pile "can only be stolen by the mousetrap".
    tab = table(piles={1: [["elephant-3", guard, "elephant-3"]]}, ring=FULL_RING)
    assert not tf.referee(tab, Turn(0, "tootophant-4")).step(Action.TOOT).legal
    assert tf.referee(tab, Turn(0, "mouse")).applies.action == Action.MOUSE_FACE_DOWN
    if guard != "lasso":
        assert not tf.referee(tab, Turn(0, "lasso")).step(Action.LASSO_CATCH).legal


def test_referee_reasons_quote_the_rulebook():
    tab = table(piles={1: [["elephant-3", "elephant-3"]]}, ring=FULL_RING)
    ruling = tf.referee(tab, Turn(0, "tootophant-4"))
    toot, shout, mate, train, stroll = ruling.steps
    assert "higher by 1 than the top card" in toot.reason and "player 1, pile 0" in toot.reason
    assert "forgets the animal sounds" in shout.reason and not shout.legal
    assert "same number" in mate.reason and not mate.legal
    assert "less than 3 animals" in train.reason and not train.legal
    assert "goes for a STROLL" in stroll.reason
    first = tf.referee(tab, Turn(0, "tootophant-4", first_of_game=True)).steps[0]
    assert "very first turn" in first.reason and not first.legal
    assert "no tootophant" in tf.referee(tab, Turn(0, "elephant-4")).steps[0].reason
    assert ruling.step(Action.MATE) is mate
    with pytest.raises(RuleError):
        ruling.step(Action.SQUEAK)
    assert toot.as_dict() == {
        "action": "toot",
        "legal": True,
        "reason": toot.reason,
        "targets": ["player 1, pile 0"],
    }


def test_toot_moves_the_pile_under_the_tootophant():
    tab = table(piles={1: [["elephant-1", "elephant-1"], ["elephant-3", "tootophant-3"]]})
    after = tf.play(tab, Turn(0, "tootophant-4"))
    # "You now place your tootophant as the new top card on the pile you stole"
    assert after.piles[0] == (Pile(("elephant-3", "tootophant-3", "tootophant-4")),)
    assert after.piles[1] == (Pile(("elephant-1", "elephant-1")),)
    # "This pile can now also be stolen by other players": a tootophant 5 of player 2
    again = tf.referee(after, Turn(2, "tootophant-5"))
    assert again.applies.action == Action.TOOT and again.applies.targets == (ref(0),)


def test_mate_makes_a_new_pile_even_beside_one_with_the_same_number():
    tab = table(piles={0: [["elephant-2", "elephant-2"]]}, ring=("tootophant-2", "elephant-4"))
    after = tf.play(tab, Turn(0, "elephant-2"))
    # "Each new pair forms its own new pile – even if there are piles with the same number"
    assert len(after.piles[0]) == 2 and after.piles[0][1] == Pile(("tootophant-2", "elephant-2"))
    # "The animal that has been taken from the centre of the ring is not replaced"
    assert after.ring == ("elephant-4",)


def test_train_then_anyone_may_mate():
    after = tf.play(table(ring=("elephant-1",)), Turn(0, "elephant-4"))
    assert after.ring == ("elephant-1", "elephant-4")
    # "Your elephant or tootophant can immediately be attracted by all players to MATE."
    assert tf.referee(after, Turn(1, "tootophant-4")).applies.action == Action.MATE


@pytest.mark.parametrize(
    "stroll, after_stroll, face_down",
    [
        ((), ("elephant-3",), ()),  # alone: waits outside the ring
        (("elephant-1",), ("elephant-1", "elephant-3"), ()),  # "different numbers ... next to"
        (("tootophant-3", "elephant-1"), ("elephant-1",), ("tootophant-3", "elephant-3")),  # pair
    ],
)
def test_stroll(stroll, after_stroll, face_down):
    tab = table(ring=FULL_RING, stroll=stroll)
    after = tf.play(tab, Turn(0, "elephant-3"))
    assert after.stroll == after_stroll
    assert after.face_down[0] == face_down
    # the pair: "In the scoring, they each count as -1 Point."
    assert tf.score_table(after)[0].points == -len(face_down)


# ---------------------------------------------------------------------------------------------
# Setting the mousetrap after a STROLL
# ---------------------------------------------------------------------------------------------

# (piles, player who strolls, legal?, targets)
SNAP_CASES = [
    # no pile anywhere: "the mousetrap stays where it is"
    ({}, 0, False, ()),
    # only own piles: "Steal any other player's pile"
    ({0: [["elephant-1", "elephant-1"]]}, 0, False, ()),
    # "for example, with the mouse as the top card"
    ({1: [["elephant-1", "elephant-1", "mouse"]]}, 0, True, (ref(1),)),
    # "Or a pile with an elephant or a tootophant with any number"
    (
        {1: [["elephant-5", "tootophant-5"]], 2: [["elephant-1", "elephant-1"]]},
        0,
        True,
        (ref(1), ref(2)),
    ),
    # "not on top of the one it was on": the trap's own pile cannot be taken again
    (
        {1: [["elephant-1", "elephant-1", "mousetrap"], ["elephant-2", "elephant-2"]]},
        0,
        True,
        (ref(1, 1),),
    ),
    ({1: [["elephant-1", "elephant-1", "mousetrap"]]}, 0, False, ()),
    # tamer: "The stack is safe from the mouse and the mousetrap"
    ({1: [["elephant-1", "elephant-1", "tamer"]]}, 0, False, ()),
    # lasso: "This is not possible with TOOT, the mouse or the mousetrap"
    ({1: [["elephant-1", "elephant-1", "lasso"]]}, 0, False, ()),
]


@pytest.mark.parametrize("piles, player, legal, targets", SNAP_CASES)
def test_snap_after_stroll(piles, player, legal, targets):
    tab = table(piles=piles, ring=FULL_RING)
    ruling = tf.referee(tab, Turn(player, "elephant-4"))
    assert ruling.applies.action == Action.STROLL
    snap = ruling.follow_up
    assert snap.action == Action.SNAP and snap.legal == legal and snap.targets == targets
    assert "set the mousetrap" in snap.reason
    if not legal:
        assert "stays where it is" in snap.reason


def test_snap_moves_the_trap_from_its_pile_to_the_stolen_one():
    tab = table(
        piles={
            1: [["elephant-1", "elephant-1", "mouse", "mousetrap"]],
            2: [["elephant-2", "elephant-2", "mouse"]],
        },
        ring=FULL_RING,
    )
    assert tab.trap_at() == ref(1)
    after = tf.play(tab, Turn(0, "elephant-4"))
    # the mouse pile of player 1 loses the trap and stays with player 1
    assert after.piles[1] == (Pile(("elephant-1", "elephant-1", "mouse")),)
    # player 0 takes player 2's pile with the mousetrap on top
    assert after.piles[0] == (Pile(("elephant-2", "elephant-2", "mouse", "mousetrap")),)
    assert after.piles[2] == ()
    assert after.trap_at() == ref(0)
    assert [b.points for b in tf.score_table(after)] == [2, 3, 0]  # 2 + mouse - trap


def test_snap_from_the_table_and_choice_of_target():
    tab = table(
        piles={1: [["elephant-1", "elephant-1"]], 2: [["elephant-3", "elephant-3"]]}, ring=FULL_RING
    )
    assert tab.trap_at() is None  # "Put the mousetrap aside"
    after = tf.play(tab, Turn(0, "elephant-4"), snap_target=1)
    assert after.piles[0] == (Pile(("elephant-3", "elephant-3", "mousetrap")),)
    # "This pile can no longer be stolen as long as the mousetrap is on it"
    assert tf.referee(after, Turn(1, "tootophant-4")).applies.action != Action.TOOT
    with pytest.raises(RuleError, match="snap_target"):
        tf.play(tab, Turn(0, "elephant-4"), snap_target=5)


# ---------------------------------------------------------------------------------------------
# The mouse, the tamer and the lasso
# ---------------------------------------------------------------------------------------------

# (piles, turn, action that applies, targets)
SPECIAL_CASES = [
    # "steal any pile from any player, in which an elephant or tootophant is the top card"
    ({1: [["elephant-5", "elephant-5"]]}, Turn(0, "mouse"), Action.SQUEAK, (ref(1),)),
    # "from any player": own pile too (read literally; see docs)
    ({0: [["elephant-5", "elephant-5"]]}, Turn(0, "mouse"), Action.SQUEAK, (ref(0),)),
    # "no matter what number it has"
    (
        {1: [["elephant-1", "elephant-1"]], 2: [["tootophant-4", "elephant-4"]]},
        Turn(0, "mouse"),
        Action.SQUEAK,
        (ref(1), ref(2)),
    ),
    # mouse pile: "This pile can only be stolen by the mousetrap" -> face down
    ({1: [["elephant-1", "elephant-1", "mouse"]]}, Turn(0, "mouse"), Action.MOUSE_FACE_DOWN, ()),
    # trap / tamer / lasso on top: no animal on top -> face down
    (
        {
            1: [["elephant-1", "elephant-1", "mousetrap"]],
            2: [["elephant-2", "elephant-2", "tamer"]],
            0: [["elephant-3", "elephant-3", "lasso"]],
        },
        Turn(0, "mouse"),
        Action.MOUSE_FACE_DOWN,
        (),
    ),
    # nobody has a pile: "you must place it face down in front of you"
    ({}, Turn(0, "mouse"), Action.MOUSE_FACE_DOWN, ()),
    # forgotten SQUEAK with a pile to steal
    (
        {1: [["elephant-5", "elephant-5"]]},
        Turn(0, "mouse", shouted=False),
        Action.FORGOTTEN_SHOUT,
        (),
    ),
    # forgotten SQUEAK without any pile: face down anyway (the same -1)
    ({}, Turn(0, "mouse", shouted=False), Action.MOUSE_FACE_DOWN, ()),
    # tamer: "on one of your piles or on the pile of any player" with an animal on top
    (
        {
            0: [["elephant-1", "elephant-1"]],
            1: [["elephant-2", "elephant-2", "mouse"]],
            2: [["elephant-3", "tootophant-3"]],
        },
        Turn(0, "tamer"),
        Action.TAMER,
        (ref(0), ref(2)),
    ),
    # "If this is not possible, place it face down in front of you"
    ({1: [["elephant-2", "elephant-2", "tamer"]]}, Turn(0, "tamer"), Action.TAMER_FACE_DOWN, ()),
    # lasso on a pile with an animal on top (own pile too: "any pile")
    (
        {0: [["elephant-1", "elephant-1"]], 1: [["elephant-2", "elephant-2", "mouse"]]},
        Turn(0, "lasso"),
        Action.LASSO_CATCH,
        (ref(0),),
    ),
    # lasso draws another player's lasso pile
    ({1: [["elephant-2", "elephant-2", "lasso"]]}, Turn(0, "lasso"), Action.LASSO_DRAW, (ref(1),)),
    # own lasso pile only: nothing to draw or catch -> face down
    ({0: [["elephant-2", "elephant-2", "lasso"]]}, Turn(0, "lasso"), Action.LASSO_FACE_DOWN, ()),
]


@pytest.mark.parametrize("piles, turn, action, targets", SPECIAL_CASES)
def test_special_cards(piles, turn, action, targets):
    ruling = tf.referee(table(piles=piles, ring=FULL_RING), turn)
    assert ruling.applies.action == action
    assert ruling.applies.targets == targets
    assert ruling.follow_up is None


def test_mouse_steal_and_face_down():
    tab = table(piles={1: [["elephant-5", "elephant-5"]]})
    after = tf.play(tab, Turn(0, "mouse"))
    # "Place the stolen pile in front of you and your mouse on top of it"
    assert after.piles == ((Pile(("elephant-5", "elephant-5", "mouse")),), (), ())
    assert [b.points for b in tf.score_table(after)] == [3, 0, 0]  # mouse +1
    forgot = tf.play(tab, Turn(0, "mouse", shouted=False))
    assert forgot.face_down[0] == ("mouse",) and forgot.piles[1] == tab.piles[1]
    assert tf.score_table(forgot)[0].points == -1  # face-down mouse -1


def test_tamer_stays_with_the_pile_owner_and_costs_a_point():
    tab = table(piles={1: [["elephant-5", "elephant-5"]]})
    after = tf.play(tab, Turn(0, "tamer"))
    assert after.piles[1] == (Pile(("elephant-5", "elephant-5", "tamer")),)
    assert [b.points for b in tf.score_table(after)] == [0, 1, 0]
    # "If a tamer lies on a pile, TOOT is no longer possible."
    assert tf.referee(after, Turn(2, "tootophant-5")).step(Action.TOOT).legal is False
    none = tf.play(table(), Turn(0, "tamer"))
    assert none.face_down[0] == ("tamer",) and tf.score_table(none)[0].points == -1


def test_lasso_catch_draw_and_choice():
    tab = table(piles={1: [["elephant-2", "elephant-2"]]}, ring=FULL_RING)
    caught = tf.play(tab, Turn(0, "lasso"))
    # "The player places this pile in the centre of the ring immediately"
    assert caught.ring_piles == (Pile(("elephant-2", "elephant-2", "lasso")),)
    assert caught.ring == FULL_RING and caught.piles[1] == ()
    drawn = tf.play(caught, Turn(2, "lasso"))
    # "He places this pile directly in front of him" (the new lasso on top, see docs)
    assert drawn.piles[2] == (Pile(("elephant-2", "elephant-2", "lasso", "lasso")),)
    assert tf.score_table(drawn)[2].points == 4  # 2 animals + 2 open lassos
    # both uses possible: the player chooses
    both = table(
        piles={0: [["elephant-1", "elephant-1"]]},
        ring_piles=[["elephant-3", "elephant-3", "lasso"]],
    )
    ruling = tf.referee(both, Turn(1, "lasso"))
    assert ruling.player_choice and [s.action for s in ruling.legal] == [
        Action.LASSO_CATCH,
        Action.LASSO_DRAW,
    ]
    chosen = tf.play(both, Turn(1, "lasso"), action=Action.LASSO_DRAW)
    assert chosen.piles[1] == (Pile(("elephant-3", "elephant-3", "lasso", "lasso")),)
    assert chosen.ring_piles == ()
    # a lasso pile can only be stolen by another lasso
    assert tf.referee(drawn, Turn(0, "mouse")).applies.action == Action.MOUSE_FACE_DOWN


# ---------------------------------------------------------------------------------------------
# Referee and table errors
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "tab, turn, err",
    [
        (table(), Turn(0, "mousetrap"), "put aside"),  # never drawn
        (table(), Turn(0, "back"), "unknown card"),  # not a face
        (table(), Turn(0, "giraffe"), "unknown card"),
        (table(players=2), Turn(2, "elephant-1"), "player must be"),  # out of range
        (table(piles={1: [["mouse"] * 3]}), Turn(0, "mouse"), "already on the table"),
    ],
)
def test_referee_errors(tab, turn, err):
    with pytest.raises(RuleError, match=err):
        tf.referee(tab, turn)


def test_play_errors():
    tab = table(piles={1: [["elephant-3", "elephant-3"]]}, ring=("elephant-4",))
    # MATE is legal but TOOT comes first: the cascade is strict
    with pytest.raises(RuleError, match="toot comes first"):
        tf.play(tab, Turn(0, "tootophant-4"), action=Action.MATE)
    with pytest.raises(RuleError, match="not allowed"):
        tf.play(tab, Turn(0, "tootophant-4"), action=Action.STROLL)
    with pytest.raises(RuleError, match="cannot squeak"):
        tf.play(tab, Turn(0, "tootophant-4"), action=Action.SQUEAK)
    with pytest.raises(RuleError, match="target must be"):
        tf.play(tab, Turn(0, "tootophant-4"), target=3)
    with pytest.raises(RuleError, match="game has ended"):
        tf.play(table(edge=0), Turn(0, "elephant-1"))


@pytest.mark.parametrize(
    "kwargs, err",
    [
        ({"players": 0}, "players must be"),  # 1-8 players
        ({"players": 9}, "players must be"),
        ({"players": 2, "piles": ((), (), ())}, "one entry per player"),
        ({"players": 2, "ring": ("elephant-1",) * 4}, "room for 3"),
        ({"players": 2, "ring": ("mouse",)}, "only animals train"),
        ({"players": 2, "stroll": ("elephant-1", "elephant-1")}, "paired up"),
        ({"players": 2, "stroll": ("lasso",)}, "only animals go"),
        ({"players": 2, "face_down": (("mousetrap",), ())}, "mousetrap lies"),
        ({"players": 2, "piles": ((Pile(("mousetrap",)), Pile(("mousetrap",))), ())}, "box holds"),
        ({"players": 2, "edge": -1}, "edge"),
    ],
)
def test_table_rejects(kwargs, err):
    with pytest.raises(RuleError, match=err):
        Table(**kwargs)


def test_pile_rejects():
    with pytest.raises(RuleError, match="at least one"):
        Pile(())
    with pytest.raises(RuleError, match="unknown card"):
        Pile(("back",))


# ---------------------------------------------------------------------------------------------
# Whole games: preparation, conservation of cards, invariants
# ---------------------------------------------------------------------------------------------


def test_deal_follows_the_preparation():
    deck = [
        "mouse",
        "elephant-1",
        "elephant-1",
        "mousetrap",
        "lasso",
        "tootophant-2",
        "elephant-2",
        "elephant-5",
        "elephant-3",
    ]
    tab, edge = tf.deal(deck, 2)
    # "three animals with different numbers (1–5). And that there is no mouse."
    assert tab.ring == ("elephant-1", "tootophant-2", "elephant-5")
    # "Put the mousetrap aside"; the rest forms the ring's edge in order
    assert edge == ("mouse", "elephant-1", "lasso", "elephant-2", "elephant-3")
    assert tab.edge == 5 and tab.trap_at() is None
    assert tab.total_cards() == len(deck)
    with pytest.raises(RuleError, match="three animals"):
        tf.deal(["elephant-1"] * 5, 2)


def simulate(seed, players, expansions, forget_rate=0.1, check=None):
    """Play a whole game with random (legal) choices; `check(table)` after every turn."""
    rng = random.Random(seed)
    deck = list(tf.box(expansions))
    rng.shuffle(deck)
    tab, edge = tf.deal(deck, players)
    total = tab.total_cards()
    for i, card in enumerate(edge):
        turn = Turn(i % players, card, shouted=rng.random() >= forget_rate, first_of_game=i == 0)
        ruling = tf.referee(tab, turn)
        step = rng.choice(ruling.legal) if ruling.player_choice else ruling.applies
        snap = ruling.follow_up
        tab = tf.play(
            tab,
            turn,
            action=step.action,
            target=rng.randrange(len(step.targets)) if step.targets else 0,
            snap_target=rng.randrange(len(snap.targets)) if snap and snap.targets else 0,
        )
        assert tab.total_cards() == total  # no card appears or vanishes
        if check:
            check(tab)
    assert tab.edge == 0
    return tab, total


def invariants(tab: Table):
    """What the rules guarantee after any legal turn (the facts adapter's warnings rely on it)."""
    assert len(tab.ring) <= 3
    assert len({tf.number(c) for c in tab.ring}) == len(tab.ring)  # training numbers differ
    for r, pile in tab.all_piles():
        assert sum(tf.is_animal(c) for c in pile.cards) >= 2  # every pile holds a pair
        if "tamer" in pile:
            assert pile.top == "tamer"  # nothing goes on a tamer
        if r.owner is None:
            assert pile.top == "lasso"  # only lasso piles lie in the ring
            assert "mouse" not in pile and "tamer" not in pile


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(1, 8),
    expansions=st.sampled_from([(), ("lasso",), ("tamer",), ("lasso", "tamer")]),
)
def test_whole_game_conserves_cards(seed, players, expansions):
    tab, total = simulate(seed, players, expansions, check=invariants)
    assert total == len(tf.box(expansions))
    counts = tab.card_counts()
    counts["mousetrap"] += tab.trap_at() is None  # set aside all game long
    for label in tf.CARDS:
        # every card is somewhere: open, or face down under its own name
        assert counts[label] == Counter(tf.box(expansions))[label]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(1, 4))
def test_whole_game_facts_score_like_the_table(seed, players):
    tab, _ = simulate(seed, players, ("lasso", "tamer"))
    facts = tf.table_facts(tab)
    score, warnings = tf.score_facts(facts, {})
    expect = {labels.SIDE_ZONES[p]: b.points for p, b in enumerate(tf.score_table(tab))}
    assert score["points"] == expect
    assert warnings == []  # a legal end position raises no doubts
    # the middle holds everything that is nobody's
    assert score["middle"]["cards"] == sum(tab.middle_counts().values())
    # all points: open animals and specials in front of players minus their penalties
    assert sum(expect.values()) == sum(b.plus - b.minus for b in tf.score_table(tab))


# ---------------------------------------------------------------------------------------------
# Several games: up to 100 (1-4 players) or 50 (5-8 players)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "players, target",
    [(1, 100), (2, 100), (4, 100), (5, 50), (8, 50)],  # "1–4 players up to 100", "5–8 ... 50"
)
def test_target_points(players, target):
    assert tf.target_points(players) == target
    assert GameRecord(tuple(f"p{i}" for i in range(players))).target == target


@pytest.mark.parametrize("players", [0, 9, True])
def test_target_points_rejects(players):
    with pytest.raises(RuleError):
        tf.target_points(players)


@pytest.mark.parametrize(
    "rounds, winners",
    [
        ([], ()),  # nobody has played
        ([(40, 30, 20), (40, 30, 20)], ()),  # 80 < 100: go on
        ([(60, 30, 20), (40, 30, 20)], ("ann",)),  # exactly 100 reaches the target
        ([(60, 60, 20), (30, 45, 20)], ("bob",)),  # both reach in one game: higher total wins
        ([(50, 50, 20), (50, 50, 20)], ("ann", "bob")),  # equal totals share the win
        ([(90, 0, 0), (-5, 0, 0), (20, 150, 0)], ("bob",)),  # a round can be negative
    ],
)
def test_game_record_winners(rounds, winners):
    rec = GameRecord(("ann", "bob", "cid"))
    for r in rounds:
        rec = rec.add_round(r)
    assert rec.winners == winners
    assert rec.finished == bool(winners)
    assert rec.winner == (winners[0] if len(winners) == 1 else None)


def test_game_record_first_to_reach_wins():
    rec = GameRecord(("ann", "bob")).add_round({"bob": 99, "ann": 10}).add_round([0, 1])
    assert rec.totals == {"ann": 10, "bob": 100} and rec.winner == "bob"
    with pytest.raises(RuleError, match="series is over"):
        rec.add_round([200, 0])
    # five players play to 50
    five = GameRecord(tuple("abcde")).add_round([50, 0, 0, 0, 0])
    assert five.winner == "a"


@pytest.mark.parametrize(
    "players, round_, err",
    [
        (("a", "a"), None, "must differ"),
        (("a", "b"), {"a": 1}, "exactly"),  # a player missing
        (("a", "b"), [1, 2, 3], "2 scores"),  # too many scores
        (("a", "b"), [1, 2.5], "whole numbers"),
        (tuple("abcdefghi"), None, "players must be"),  # 9 players
    ],
)
def test_game_record_rejects(players, round_, err):
    with pytest.raises(RuleError, match=err):
        GameRecord(players).add_round(round_)


@given(st.lists(st.lists(st.integers(-20, 60), min_size=3, max_size=3), max_size=12))
def test_game_record_totals_are_sums(rows):
    rec = GameRecord(("a", "b", "c"))
    for row in rows:
        if rec.finished:
            break
        rec = rec.add_round(row)
    assert rec.totals == {p: sum(r[i] for r in rec.rounds) for i, p in enumerate(rec.players)}
    if rec.finished:
        assert all(rec.totals[w] >= rec.target for w in rec.winners)
        # nobody reached it in an earlier round
        assert not GameRecord(rec.players, rec.rounds[:-1]).finished


def test_best_of_one_game():
    # "The player with the most points wins!"
    assert tf.best({"north": 5, "south": 9, "east": 9}) == ("south", "east")
    assert tf.best({}) == ()


# ---------------------------------------------------------------------------------------------
# Facts adapter
# ---------------------------------------------------------------------------------------------


def test_score_facts():
    facts = {
        "zones": {
            "north": {"elephant-1": 4, "tootophant-2": 1, "mouse": 1, "back": 2},
            "south": {"elephant-3": 2, "mousetrap": 1, "tamer": 1},
            "middle": {"elephant-5": 3, "lasso": 1, "elephant-4": 2},
        }
    }
    score, warnings = tf.score_facts(facts, {})
    assert score["points"] == {"north": 4, "south": 0}  # 5+1-2 ; 2-1-1
    assert "middle" not in score["points"]  # the training ring is nobody's
    assert score["breakdown"]["north"]["open_animals"] == 5
    assert score["breakdown"]["south"]["minus"] == 2
    assert score["leaders"] == ["north"]
    assert score["middle"] == {"cards": 6, "scored": False}
    assert score["explanation"][0] == (
        "north: +5 open animals, +1 mouse on a pile, -2 face-down cards = 4"
    )
    assert warnings == []


@pytest.mark.parametrize(
    "zones, points",
    [
        ({}, {}),  # no zones at all
        ({"east": {}}, {"east": 0}),  # a present but empty zone scores 0
        ({"west": {"elephant-2": 2, "lasso": 1}}, {"west": 3}),
        ({"north": {"back": 3}, "east": {"elephant-1": 2}}, {"north": -3, "east": 2}),
    ],
)
def test_score_facts_points_for_present_zones(zones, points):
    score, _ = tf.score_facts({"zones": zones}, {})
    assert score["points"] == points


@pytest.mark.parametrize(
    "facts, path",
    [
        ([], "facts"),  # not an object
        ({}, "facts.zones"),  # zones missing
        ({"zones": []}, "facts.zones"),  # zones not an object
        ({"zones": {"kitchen": {}}}, "facts.zones.kitchen"),  # unknown zone
        ({"zones": {"north": {"giraffe": 1}}}, "facts.zones.north.giraffe"),  # unknown label
        ({"zones": {"north": {"elephant-1": -1}}}, "facts.zones.north.elephant-1"),  # negative
        ({"zones": {"north": {"elephant-1": "2"}}}, "facts.zones.north.elephant-1"),  # a string
        ({"zones": {"north": []}}, "facts.zones.north"),  # counts not an object
        # more than the box holds, spread over two zones
        ({"zones": {"north": {"mouse": 2}, "south": {"mouse": 2}}}, "facts.zones.*.mouse"),
        ({"zones": {"middle": {"mousetrap": 2}}}, "facts.zones.*.mousetrap"),
        ({"zones": {"north": {"elephant-1": 17}}}, "facts.zones.*.elephant-1"),
        # backs can be any card, but not more cards than the box
        ({"zones": {"north": {"back": 100}}}, "facts.zones"),
        ({"zones": {"north": {**labels.TROETO_COUNTS, "back": 1}}}, "facts.zones"),
    ],
)
def test_score_facts_errors(facts, path):
    with pytest.raises(FactsError) as err:
        tf.score_facts(facts, {})
    assert err.value.path == path
    assert path in err.value.message


def test_score_facts_accepts_a_full_box():
    score, _ = tf.score_facts({"zones": {"north": dict(labels.TROETO_COUNTS)}}, {})
    assert score["points"]["north"] == 64 + 20 + 3 + 6 - 1 - 5


@pytest.mark.parametrize(
    "zones, needle",
    [
        ({"north": {"elephant-1": 1}}, "single open animal"),  # piles hold pairs
        ({"north": {"mouse": 1}}, "without a pile"),  # a mouse needs a pile
        ({"north": {"elephant-1": 2}, "middle": {"back": 30}}, "provisional"),  # edge not empty
        ({"north": {"elephant-1": 2}, "middle": {"mouse": 1}}, "never lies in the ring"),
        ({}, "no player zone"),
    ],
)
def test_score_facts_warnings(zones, needle):
    _, warnings = tf.score_facts({"zones": zones}, {})
    assert any(needle in w for w in warnings), warnings


def test_score_facts_warns_about_unknown_keys():
    _, warnings = tf.score_facts({"zones": {"north": {}}, "cards": {}}, {})
    assert warnings == ["facts.cards is not used by troetofanten and was ignored"]


def test_table_facts_needs_zones():
    with pytest.raises(RuleError, match="zones"):
        tf.table_facts(table(players=5))


# ---------------------------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------------------------


def test_cli_scores_facts(run_cli, write_json):
    facts = {
        "zones": {
            "north": {"elephant-2": 2, "mouse": 1},
            "west": {"back": 2},
            "middle": {"elephant-1": 3},
        }
    }
    code, out = run_cli("score", "--game", "troetofanten", "--facts", write_json(facts), "--json")
    assert code == 0, out
    assert out["game"] == "troetofanten"
    assert out["facts"] == facts and out["pieces"] == [] and out["area"] is None
    assert out["score"]["points"] == {"north": 3, "west": -2}
    assert out["warnings"] == []


@pytest.mark.parametrize(
    "facts, needle",
    [
        ({"zones": {"north": {"elephant-9": 1}}}, "facts.zones.north.elephant-9"),
        ({"zones": {"north": {"mousetrap": 2}}}, "mousetrap"),
        ({"zones": {"south": {"tamer": -1}}}, "facts.zones.south.tamer"),
        ({"zonez": {}}, "facts.zones"),
    ],
)
def test_cli_bad_facts(run_cli, write_json, facts, needle):
    code, out = run_cli("score", "--game", "troetofanten", "--facts", write_json(facts), "--json")
    assert code == 2
    assert out["error"]["code"] == "bad_facts"
    assert needle in out["error"]["message"]


def test_cli_rejects_options(run_cli, write_json):
    path = write_json({"zones": {}})
    code, out = run_cli(
        "score", "--game", "troetofanten", "--facts", path, "--players", "4", "--json"
    )
    assert code == 2 and out["error"]["code"] == "bad_option"
    assert "no options" in out["error"]["message"]
