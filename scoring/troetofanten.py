"""Der Troetofanten-Zirkus: final scoring, a one-turn referee, multi-round totals and the
facts adapter. Pure Python over small frozen dataclasses (rulebook:
``shared/rules/troetofanten-zirkus.txt``).

Cards are the labels of ``scoring.labels`` (``elephant-1`` ... ``elephant-5``,
``tootophant-2`` ... ``tootophant-5``, ``mouse``, ``mousetrap``, ``lasso``, ``tamer``); ``back``
stands for a face-down card whose face is unknown.

Scoring (rulebook "Scoring" and the expansions), per card in front of a player:

==========================  ======
open elephant / tootophant  +1
mouse on a pile             +1
lasso lying open            +1
mousetrap                   -1
tamer (open or face down)   -1
any face-down card          -1
==========================  ======

A face-down mouse, tamer or lasso is seen as a ``back`` and costs -1 like any face-down card, so
a player's points are always ``open scoring cards - (face-down cards + mousetrap + open
tamers)``. The middle of the table (training ring, lasso piles in the ring, single strolling
animals, the ring's edge and a mousetrap still set aside) belongs to no player and is not
scored.

Interpretations where the rulebook leaves room (documented in docs/troetofanten.md):

- TOOT -> MATE -> TRAIN -> STROLL is a strict cascade: the first action whose conditions hold
  is the one that applies ("Only one of these actions is possible!").
- The forgotten shout applies only when the steal (TOOT or the mouse) was possible and the
  player did not shout; otherwise no sound is needed.
- The mouse may steal any player's pile, the drawing player's own included ("any pile from
  any player"); TOOT and the mousetrap steal only from other players.
- The tamer goes on any player's pile, own included, whose top card is an animal.
- A lasso that draws a lasso pile is laid on top of that pile (the pile stays protected).
- Several players reaching the multi-round target in the same round: the highest total wins;
  equal totals share the win (the rulebook does not say).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from scoring.facts import require_mapping, zone_counts
from scoring.labels import (
    SIDE_ZONES,
    TROETO_COUNTS,
    TROETO_LABELS,
    TROETO_TOTAL_CARDS,
    TROETO_ZONES,
)
from tablescore.errors import FactsError, RuleError

GAME = "troetofanten"

# Facts adapter: this game takes no CLI options.
OPTIONS: dict[str, str] = {}


@dataclass(frozen=True)
class Settings:
    """Numbers fixed by the rulebook."""

    ring_size: int = 3  # "In the centre of the ring there is only room for 3 animals"
    min_players: int = 1
    max_players: int = 8
    small_table_max_players: int = 4  # "With 1-4 players up to 100 points"
    target_small_table: int = 100
    target_large_table: int = 50  # "With 5-8 players up to 50 points"
    scored_zones: tuple[str, ...] = SIDE_ZONES  # `middle` is the training ring: nobody's


SETTINGS = Settings()

# ---------------------------------------------------------------------------------------------
# Cards
# ---------------------------------------------------------------------------------------------

ELEPHANTS = tuple(f"elephant-{n}" for n in range(1, 6))
TOOTOPHANTS = tuple(f"tootophant-{n}" for n in range(2, 6))
ANIMALS = ELEPHANTS + TOOTOPHANTS
SPECIALS = ("mouse", "mousetrap", "lasso", "tamer")
CARDS = ANIMALS + SPECIALS  # every face a real card can show
BACK = "back"
BASE_GAME = ANIMALS + ("mouse", "mousetrap")
EXPANSIONS = ("lasso", "tamer")


def is_animal(card: str) -> bool:
    """True for an elephant or a tootophant."""
    return card in ANIMALS


def is_tootophant(card: str) -> bool:
    return card in TOOTOPHANTS


def number(card: str) -> int | None:
    """The number on an animal card (1-5); None for the special cards."""
    return int(card.rsplit("-", 1)[1]) if card in ANIMALS else None


def _check_card(card: object, what: str) -> str:
    if card not in CARDS:
        raise RuleError(f"{what}: unknown card {card!r}; expected one of: {', '.join(CARDS)}")
    return card  # type: ignore[return-value]


def box(expansions: Iterable[str] = EXPANSIONS) -> tuple[str, ...]:
    """Every card of one box as a tuple of labels (the base game plus the named expansions,
    ``"lasso"`` and/or ``"tamer"``), in label order."""
    expansions = tuple(expansions)
    for name in expansions:
        if name not in EXPANSIONS:
            raise RuleError(f"unknown expansion {name!r}; expected lasso and/or tamer")
    labels = BASE_GAME + tuple(e for e in EXPANSIONS if e in expansions)
    return tuple(label for label in labels for _ in range(TROETO_COUNTS[label]))


# ---------------------------------------------------------------------------------------------
# Final scoring
# ---------------------------------------------------------------------------------------------

RULE_ANIMAL = (
    "+1 POINT: for each animal lying open. The number and the type of the animal do not matter."
)
RULE_MOUSE = "In the scoring, the mouse counts as +1 Point."
RULE_LASSO = (
    "In the scoring, the lasso counts as +1 Point if it lies open in front of the player, "
    "and -1 Point if it is face down in front of the player."
)
RULE_TRAP = "In the scoring, the mousetrap counts as -1 Point."
RULE_TAMER = (
    "In the scoring, the tamer always counts as -1 Point. No matter whether it is face down "
    "or face up in front of you."
)
RULE_BACK = "-1 POINT: Any card lying face down, the mousetrap."

# Points per visible label.
POINTS: dict[str, int] = {
    **{a: 1 for a in ANIMALS},
    "mouse": 1,
    "lasso": 1,
    "mousetrap": -1,
    "tamer": -1,
    BACK: -1,
}
assert set(POINTS) == set(TROETO_LABELS)


@dataclass(frozen=True)
class Breakdown:
    """One player's final score, card kind by card kind (all counts >= 0)."""

    open_animals: int = 0
    mice: int = 0  # open mice: each lies on a pile
    lassos: int = 0  # open lassos
    mousetraps: int = 0
    tamers: int = 0  # open tamers (a face-down tamer is one of `face_down`)
    face_down: int = 0

    @property
    def plus(self) -> int:
        return self.open_animals + self.mice + self.lassos

    @property
    def minus(self) -> int:
        return self.mousetraps + self.tamers + self.face_down

    @property
    def points(self) -> int:
        return self.plus - self.minus

    def as_dict(self) -> dict[str, int]:
        return {
            "open_animals": self.open_animals,
            "mice": self.mice,
            "lassos": self.lassos,
            "mousetraps": self.mousetraps,
            "tamers": self.tamers,
            "face_down": self.face_down,
            "plus": self.plus,
            "minus": self.minus,
            "points": self.points,
        }

    def explain(self) -> str:
        """One line such as ``+6 open animals, +1 mouse, -1 face-down card = 6``."""
        parts = []
        for n, sign, one, many in (
            (self.open_animals, "+", "open animal", "open animals"),
            (self.mice, "+", "mouse on a pile", "mice on piles"),
            (self.lassos, "+", "open lasso", "open lassos"),
            (self.mousetraps, "-", "mousetrap", "mousetraps"),
            (self.tamers, "-", "tamer", "tamers"),
            (self.face_down, "-", "face-down card", "face-down cards"),
        ):
            if n:
                parts.append(f"{sign}{n} {one if n == 1 else many}")
        return f"{', '.join(parts) or 'no cards'} = {self.points}"


def score_counts(counts: Mapping[str, int]) -> Breakdown:
    """Score the cards in front of one player, given as ``{label: count}`` (``back`` = a
    face-down card). Raises RuleError for an unknown label or a negative count."""
    for label, n in counts.items():
        if label not in POINTS:
            raise RuleError(f"unknown label {label!r}")
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise RuleError(f"count of {label} must be a whole number >= 0, got {n!r}")
    return Breakdown(
        open_animals=sum(counts.get(a, 0) for a in ANIMALS),
        mice=counts.get("mouse", 0),
        lassos=counts.get("lasso", 0),
        mousetraps=counts.get("mousetrap", 0),
        tamers=counts.get("tamer", 0),
        face_down=counts.get(BACK, 0),
    )


def score_cards(open_cards: Iterable[str], face_down: int = 0) -> Breakdown:
    """Score a player's open cards (labels, any order) plus ``face_down`` face-down cards."""
    counts = Counter(open_cards)
    if BACK in counts:
        raise RuleError("a face-down card is not an open card; count it in face_down")
    counts[BACK] = face_down
    return score_counts(counts)


# ---------------------------------------------------------------------------------------------
# The table and the one-turn referee
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pile:
    """A pile of open cards in front of a player (or caught by a lasso in the ring).
    ``cards`` run bottom -> top."""

    cards: tuple[str, ...]

    def __post_init__(self):
        cards = tuple(self.cards)
        if not cards:
            raise RuleError("a pile holds at least one card")
        for c in cards:
            _check_card(c, "pile")
        object.__setattr__(self, "cards", cards)

    @property
    def top(self) -> str:
        return self.cards[-1]

    def __contains__(self, card: str) -> bool:
        return card in self.cards

    def __len__(self) -> int:
        return len(self.cards)


@dataclass(frozen=True)
class PileRef:
    """Where a pile lies: ``owner`` is the player index, None for the centre of the ring
    (lasso piles); ``index`` counts that owner's piles from 0."""

    owner: int | None
    index: int

    def describe(self) -> str:
        who = "the ring's centre" if self.owner is None else f"player {self.owner}"
        return f"{who}, pile {self.index}"


@dataclass(frozen=True)
class RingSpot:
    """A training animal in the centre of the ring (index into ``Table.ring``)."""

    index: int

    def describe(self) -> str:
        return f"ring animal {self.index}"


def _as_piles(obj, what: str) -> tuple[Pile, ...]:
    return tuple(p if isinstance(p, Pile) else Pile(tuple(p)) for p in obj)


@dataclass(frozen=True)
class Table:
    """Everything a turn can touch.

    - ``players``: 1-8; players are numbered 0..players-1 in clockwise order.
    - ``ring``: the open training animals in the centre of the ring (at most 3).
    - ``ring_piles``: piles a lasso sent into the centre of the ring.
    - ``piles``: per player, the open piles in front of them (empty tuples by default).
    - ``face_down``: per player, the face-down cards in front of them (labels; ``back`` when
      the face is unknown). These are out of the game.
    - ``stroll``: the single animals strolling on the table outside the ring (distinct numbers).
    - ``edge``: face-down cards still in the ring's edge, or None when not tracked. When it is an
      int, `play` draws from it and refuses to play once it is 0 (the game has ended).

    The mousetrap lies on at most one pile; when no pile holds it, it is set aside on the table.
    """

    players: int
    ring: tuple[str, ...] = ()
    ring_piles: tuple[Pile, ...] = ()
    piles: tuple[tuple[Pile, ...], ...] = ()
    face_down: tuple[tuple[str, ...], ...] = ()
    stroll: tuple[str, ...] = ()
    edge: int | None = None

    def __post_init__(self):
        s = SETTINGS
        p = self.players
        if isinstance(p, bool) or not isinstance(p, int) or not s.min_players <= p <= s.max_players:
            raise RuleError(f"players must be {s.min_players}-{s.max_players}, got {p!r}")
        piles = tuple(_as_piles(ps, "piles") for ps in self.piles) or ((),) * p
        face_down = tuple(tuple(fd) for fd in self.face_down) or ((),) * p
        if len(piles) != p or len(face_down) != p:
            raise RuleError(f"piles and face_down need one entry per player ({p})")
        ring = tuple(self.ring)
        if len(ring) > s.ring_size:
            raise RuleError(f"the ring has room for {s.ring_size} animals, got {len(ring)}")
        for c in ring:
            if not is_animal(_check_card(c, "ring")):
                raise RuleError(f"only animals train in the ring, got {c!r}")
        stroll = tuple(self.stroll)
        for c in stroll:
            if not is_animal(_check_card(c, "stroll")):
                raise RuleError(f"only animals go for a stroll, got {c!r}")
        if len({number(c) for c in stroll}) != len(stroll):
            raise RuleError("two strolling animals with the same number would have paired up")
        for fd in face_down:
            for c in fd:
                if c != BACK:
                    _check_card(c, "face_down")
        if self.edge is not None and (
            isinstance(self.edge, bool) or not isinstance(self.edge, int) or self.edge < 0
        ):
            raise RuleError(f"edge must be a count >= 0 or None, got {self.edge!r}")
        object.__setattr__(self, "piles", piles)
        object.__setattr__(self, "face_down", face_down)
        object.__setattr__(self, "ring", ring)
        object.__setattr__(self, "stroll", stroll)
        object.__setattr__(self, "ring_piles", _as_piles(self.ring_piles, "ring_piles"))
        counts = self.card_counts()
        for label, n in counts.items():
            if label != BACK and n > TROETO_COUNTS[label]:
                raise RuleError(
                    f"{n} x {label} on the table, but a box holds {TROETO_COUNTS[label]}"
                )
        trap_in_piles = sum(pile.cards.count("mousetrap") for _, pile in self.all_piles())
        if counts["mousetrap"] != trap_in_piles:
            raise RuleError("the mousetrap lies on a pile or aside, never elsewhere")

    # -- views --------------------------------------------------------------------------------

    def all_piles(self) -> Iterator[tuple[PileRef, Pile]]:
        """Every pile with its place: players' piles first, then the ring's lasso piles."""
        for owner, ps in enumerate(self.piles):
            for i, pile in enumerate(ps):
                yield PileRef(owner, i), pile
        for i, pile in enumerate(self.ring_piles):
            yield PileRef(None, i), pile

    def pile(self, ref: PileRef) -> Pile:
        return (self.ring_piles if ref.owner is None else self.piles[ref.owner])[ref.index]

    def trap_at(self) -> PileRef | None:
        """The pile the mousetrap lies on, or None while it is set aside on the table."""
        for ref, pile in self.all_piles():
            if "mousetrap" in pile:
                return ref
        return None

    def card_counts(self) -> Counter:
        """Cards on the table by label, the set-aside mousetrap included, the edge not."""
        counts: Counter = Counter(self.ring)
        counts.update(self.stroll)
        for _, pile in self.all_piles():
            counts.update(pile.cards)
        for fd in self.face_down:
            counts.update(fd)
        return counts

    def total_cards(self) -> int:
        """Every card of the game: table, set-aside mousetrap and the edge (when tracked)."""
        counts = self.card_counts()
        trap_aside = 0 if counts["mousetrap"] else 1
        return sum(counts.values()) + trap_aside + (self.edge or 0)

    def player_counts(self, player: int) -> Counter:
        """``{label: count}`` of what lies in front of a player, face-down cards as ``back``."""
        counts: Counter = Counter()
        for pile in self.piles[player]:
            counts.update(pile.cards)
        counts[BACK] += len(self.face_down[player])
        return counts

    def middle_counts(self) -> Counter:
        """What lies in the middle: the ring, its lasso piles, strolling animals, the set-aside
        mousetrap and the ring's edge (as ``back``)."""
        counts: Counter = Counter(self.ring)
        counts.update(self.stroll)
        for pile in self.ring_piles:
            counts.update(pile.cards)
        if self.trap_at() is None:
            counts["mousetrap"] += 1
        if self.edge:
            counts[BACK] += self.edge
        return counts


def score_table(table: Table) -> tuple[Breakdown, ...]:
    """The final score of every player (index = player)."""
    return tuple(score_counts(table.player_counts(p)) for p in range(table.players))


def table_facts(table: Table, zones: Sequence[str] = SIDE_ZONES) -> dict:
    """The contract's facts for a table of up to 4 players: player i sits at ``zones[i]``;
    everything else is in ``middle``. Counts of zero are left out."""
    if table.players > len(zones):
        raise RuleError(f"{table.players} players but only {len(zones)} zones")
    out = {zones[p]: dict(+table.player_counts(p)) for p in range(table.players)}
    out["middle"] = dict(+table.middle_counts())
    return {"zones": out}


class Action(StrEnum):
    """Everything the rules can make a drawn card do, in rulebook order."""

    TOOT = "toot"
    FORGOTTEN_SHOUT = "forgotten-shout"
    MATE = "mate"
    TRAIN = "train"
    STROLL = "stroll"
    SNAP = "snap"  # setting the mousetrap, after every STROLL
    SQUEAK = "squeak"  # the mouse steals a pile
    MOUSE_FACE_DOWN = "mouse-face-down"
    TAMER = "tamer"
    TAMER_FACE_DOWN = "tamer-face-down"
    LASSO_CATCH = "lasso-catch"  # lasso on a pile, pile into the ring
    LASSO_DRAW = "lasso-draw"  # lasso draws a lasso pile
    LASSO_FACE_DOWN = "lasso-face-down"


@dataclass(frozen=True)
class Turn:
    """One drawn card: ``player`` (0-based) shows ``card``. ``shouted``: whether they shouted
    TOOT/SQUEAK when their turn began; ``first_of_game``: the starting player's very first turn
    (no TOOT)."""

    player: int
    card: str
    shouted: bool = True
    first_of_game: bool = False


@dataclass(frozen=True)
class Step:
    """One action the rules consider for a drawn card: whether its conditions hold, the
    rulebook's sentence (with the facts of this table) saying why, and the possible targets
    (piles or ring spots) when it is legal."""

    action: Action
    legal: bool
    reason: str
    targets: tuple[PileRef | RingSpot, ...] = ()

    def as_dict(self) -> dict:
        return {
            "action": self.action.value,
            "legal": self.legal,
            "reason": self.reason,
            "targets": [t.describe() for t in self.targets],
        }


@dataclass(frozen=True)
class Ruling:
    """The referee's answer for one turn.

    - ``steps``: every action the rules consider for this card, in rulebook order.
    - ``applies``: the step that happens: the first legal one.
    - ``follow_up``: after a STROLL, the SNAP step (setting the mousetrap); else None.
    - ``player_choice``: True when the player may pick any legal step instead of the first
      (only the lasso's two uses); the base game's TOOT -> MATE -> TRAIN -> STROLL is strict.
    """

    turn: Turn
    steps: tuple[Step, ...]
    applies: Step
    follow_up: Step | None = None
    player_choice: bool = False

    @property
    def legal(self) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if s.legal)

    def step(self, action: Action) -> Step:
        for s in self.steps:
            if s.action == action:
                return s
        raise RuleError(f"{action.value} is not considered for a {self.turn.card}")


# Rulebook sentences used in the referee's reasons.
R_TOOT_WHO = (
    "You have just drawn a tootophant (with a yellow number and trumpet) from the edge of the "
    "ring? Then you can steal a pile of animals that lies open in front of another player by "
    "tooting loudly."
)
R_TOOT_FIRST = (
    "In the very first turn of the game, the starting player does not have this option yet."
)
R_TOOT_NUMBER = (
    "Your tootophant must have a number that is higher by 1 than the top card of the pile you "
    "want to steal from the other player."
)
R_TOOT_SHOUT = 'You shout "TOOT" loudly when it is your turn.'
R_GUARDS = (
    "If a tamer lies on a pile, TOOT is no longer possible. If a lasso lies on a pile, it can "
    "only be stolen by another lasso."
)
R_SHOUT = (
    "If a player forgets the animal sounds, then he must place his tootophant or mouse face "
    "down in front of him and the stealing was unsuccessful."
)
R_MATE = (
    "The animals must have the same number – then they form a pair. An elephant can also "
    "attract a tootophant and vice versa."
)
R_TRAIN = (
    "If there are less than 3 animals in the centre of the ring for training, you can send "
    "your animal to TRAIN."
)
R_STROLL = (
    "If there are already 3 animals, then your elephant or tootophant goes for a STROLL and "
    "looks for a partner somewhere else."
)
R_STROLL_PAIR = (
    "If there is already an animal with the same number, then they form a pair. Place both "
    "animals face down in front of you"
)
R_SNAP = "Is your animal going for a STROLL? Then you have to set the mousetrap!"
R_SNAP_STEAL = (
    "Steal any other player's pile, place it in front of you and put the mousetrap on top."
)
R_SNAP_NONE = "If there is no pile that you can steal, the mousetrap stays where it is."
R_MOUSE = (
    "If you draw a mouse, you may steal any pile from any player, in which an elephant or "
    "tootophant is the top card – no matter what number it has."
)
R_MOUSE_NONE = (
    "If there is no pile on which you can place the mouse, you must place it face down in "
    "front of you."
)
R_TAMER = (
    "… put it on one of your piles or on the pile of any player with an elephant or "
    "tootophant as the top card."
)
R_TAMER_NONE = "If this is not possible, place it face down in front of you."
R_LASSO_CATCH = (
    "… the player can place it on any pile where the top card is an elephant or a "
    "tootophant. The player places this pile in the centre of the ring immediately"
)
R_LASSO_DRAW = (
    "… the player can use it to draw a pile of cards with a lasso as the top card. He places "
    "this pile directly in front of him."
)
R_LASSO_NONE = "If the player cannot place the lasso, he must place it face down in front of him."


def _refs(refs: Sequence[PileRef | RingSpot]) -> str:
    return "; ".join(r.describe() for r in refs)


def _toot_targets(table: Table, player: int, card: str) -> tuple[PileRef, ...]:
    want = number(card) - 1  # type: ignore[operator]
    return tuple(
        ref
        for ref, pile in table.all_piles()
        if ref.owner is not None
        and ref.owner != player
        and is_animal(pile.top)
        and number(pile.top) == want
        and not {"tamer", "lasso", "mouse"} & set(pile.cards)
    )


def _unprotected_animal_piles(table: Table) -> tuple[PileRef, ...]:
    """Players' piles with an animal on top and no tamer, lasso or mouse in them: what the
    mouse may steal and a lasso may catch."""
    return tuple(
        ref
        for ref, pile in table.all_piles()
        if ref.owner is not None
        and is_animal(pile.top)
        and not {"tamer", "lasso", "mouse"} & set(pile.cards)
    )


def _snap_targets(table: Table, player: int) -> tuple[PileRef, ...]:
    return tuple(
        ref
        for ref, pile in table.all_piles()
        if ref.owner is not None
        and ref.owner != player
        and not {"tamer", "lasso", "mousetrap"} & set(pile.cards)
    )


def _tamer_targets(table: Table) -> tuple[PileRef, ...]:
    return tuple(
        ref for ref, pile in table.all_piles() if ref.owner is not None and is_animal(pile.top)
    )


def _lasso_draw_targets(table: Table, player: int) -> tuple[PileRef, ...]:
    return tuple(
        ref for ref, pile in table.all_piles() if pile.top == "lasso" and ref.owner != player
    )


def _animal_steps(table: Table, turn: Turn) -> list[Step]:
    card, steps = turn.card, []
    # TOOT (and the forgotten shout)
    steal: tuple[PileRef, ...] = ()
    if not is_tootophant(card):
        steps.append(Step(Action.TOOT, False, f"{R_TOOT_WHO} A {card} is no tootophant."))
    elif turn.first_of_game:
        steps.append(Step(Action.TOOT, False, R_TOOT_FIRST))
    else:
        steal = _toot_targets(table, turn.player, card)
        if not steal:
            steps.append(
                Step(
                    Action.TOOT,
                    False,
                    f"{R_TOOT_NUMBER} No other player's pile has an animal numbered "
                    f"{number(card) - 1} on top that a tootophant may steal. {R_GUARDS}",
                )
            )
        elif not turn.shouted:
            steps.append(Step(Action.TOOT, False, f"{R_TOOT_SHOUT} It was not shouted."))
        else:
            steps.append(
                Step(Action.TOOT, True, f"{R_TOOT_NUMBER} {card} may steal: {_refs(steal)}.", steal)
            )
    if is_tootophant(card):
        forgot = bool(steal) and not turn.shouted
        steps.append(
            Step(
                Action.FORGOTTEN_SHOUT,
                forgot,
                R_SHOUT
                + (
                    " The steal was possible but nobody heard TOOT."
                    if forgot
                    else " TOOT was not missed."
                ),
            )
        )
    # MATE
    same = tuple(RingSpot(i) for i, c in enumerate(table.ring) if number(c) == number(card))
    if same:
        steps.append(
            Step(Action.MATE, True, f"{R_MATE} The ring holds the number {number(card)}.", same)
        )
    else:
        steps.append(
            Step(
                Action.MATE,
                False,
                f"{R_MATE} No animal numbered {number(card)} trains in the ring.",
            )
        )
    # TRAIN
    free = len(table.ring) < SETTINGS.ring_size
    steps.append(
        Step(
            Action.TRAIN,
            free,
            f"{R_TRAIN} The ring holds {len(table.ring)}.",
            (RingSpot(len(table.ring)),) if free else (),
        )
    )
    # STROLL
    partner = [c for c in table.stroll if number(c) == number(card)]
    detail = (
        f" {R_STROLL_PAIR}: the strolling {partner[0]} pairs up; both go face down (-1 each)."
        if partner
        else " No strolling animal has its number: it waits outside the ring."
    )
    steps.append(Step(Action.STROLL, not free, R_STROLL + detail))
    return steps


def _snap_step(table: Table, player: int) -> Step:
    at = table.trap_at()
    where = "aside on the table" if at is None else f"on {at.describe()}"
    targets = _snap_targets(table, player)
    if targets:
        return Step(
            Action.SNAP,
            True,
            f"{R_SNAP} {R_SNAP_STEAL} The mousetrap is {where}; it may take: {_refs(targets)}.",
            targets,
        )
    return Step(Action.SNAP, False, f"{R_SNAP} {R_SNAP_NONE} It stays {where}.")


def referee(table: Table, turn: Turn) -> Ruling:
    """What the rules make of ``turn.card`` drawn by ``turn.player`` at this ``table``.

    Raises RuleError for a card that cannot be drawn (the mousetrap is set aside before the
    game; ``back`` is not a card face) or a player out of range."""
    if not 0 <= turn.player < table.players:
        raise RuleError(f"player must be 0-{table.players - 1}, got {turn.player}")
    card = _check_card(turn.card, "drawn card")
    if card == "mousetrap":
        raise RuleError("the mousetrap is put aside before the game and is never drawn")
    if table.card_counts()[card] + 1 > TROETO_COUNTS[card]:
        raise RuleError(f"all {TROETO_COUNTS[card]} x {card} are already on the table")
    follow_up, choice = None, False
    if is_animal(card):
        steps = _animal_steps(table, turn)
    elif card == "mouse":
        targets = _unprotected_animal_piles(table)
        forgot = bool(targets) and not turn.shouted
        steps = [
            Step(
                Action.SQUEAK,
                bool(targets) and turn.shouted,
                R_MOUSE
                + (
                    f" It may take: {_refs(targets)}."
                    if targets and turn.shouted
                    else ' But "SQUEAK" was not shouted.'
                    if targets
                    else " No pile has an unprotected animal on top."
                ),
                targets if turn.shouted else (),
            ),
            Step(
                Action.FORGOTTEN_SHOUT,
                forgot,
                R_SHOUT + (" SQUEAK was forgotten." if forgot else " SQUEAK was not missed."),
            ),
            Step(Action.MOUSE_FACE_DOWN, not targets, R_MOUSE_NONE),
        ]
    elif card == "tamer":
        targets = _tamer_targets(table)
        steps = [
            Step(
                Action.TAMER,
                bool(targets),
                R_TAMER
                + (
                    f" It may go on: {_refs(targets)}."
                    if targets
                    else " No pile has an animal on top."
                ),
                targets,
            ),
            Step(Action.TAMER_FACE_DOWN, not targets, R_TAMER_NONE),
        ]
    else:  # lasso
        catch = _unprotected_animal_piles(table)
        draw = _lasso_draw_targets(table, turn.player)
        steps = [
            Step(
                Action.LASSO_CATCH,
                bool(catch),
                R_LASSO_CATCH
                + (
                    f". It may catch: {_refs(catch)}."
                    if catch
                    else ". No pile has an animal on top that a lasso may catch."
                ),
                catch,
            ),
            Step(
                Action.LASSO_DRAW,
                bool(draw),
                R_LASSO_DRAW
                + (
                    f" It may draw: {_refs(draw)}."
                    if draw
                    else " No other pile has a lasso on top."
                ),
                draw,
            ),
            Step(Action.LASSO_FACE_DOWN, not (catch or draw), R_LASSO_NONE),
        ]
        choice = bool(catch) and bool(draw)
    applies = next(s for s in steps if s.legal)
    if applies.action == Action.STROLL:
        follow_up = _snap_step(table, turn.player)
    return Ruling(turn, tuple(steps), applies, follow_up, choice)


def play(
    table: Table,
    turn: Turn,
    *,
    action: Action | None = None,
    target: int = 0,
    snap_target: int = 0,
) -> Table:
    """Carry out the ruling for ``turn``: the step that applies (or ``action``, which must be a
    legal step the player may choose), on its ``target``-th target; after a STROLL the mousetrap
    takes its ``snap_target``-th target. Returns the new table; the drawn card comes from the
    ring's edge when ``table.edge`` is tracked, so ``total_cards`` stays the same."""
    if table.edge == 0:
        raise RuleError("the ring's edge is empty: the game has ended")
    ruling = referee(table, turn)
    step = ruling.applies
    if action is not None and action != step.action:
        chosen = [s for s in ruling.steps if s.action == action]
        if not chosen or not chosen[0].legal:
            reason = chosen[0].reason if chosen else f"a {turn.card} cannot {action.value}"
            raise RuleError(f"{action.value} is not allowed: {reason}")
        if not ruling.player_choice:
            raise RuleError(
                f"{action.value} is not allowed: {step.action.value} comes first. {step.reason}"
            )
        step = chosen[0]
    if step.targets and not 0 <= target < len(step.targets):
        raise RuleError(f"target must be 0-{len(step.targets) - 1}, got {target}")

    player, card = turn.player, turn.card
    piles = [list(ps) for ps in table.piles]
    ring_piles = list(table.ring_piles)
    face_down = [list(fd) for fd in table.face_down]
    ring, stroll = list(table.ring), list(table.stroll)

    def take(ref: PileRef) -> Pile:
        return (ring_piles if ref.owner is None else piles[ref.owner]).pop(ref.index)

    a = step.action
    tgt = step.targets[target] if step.targets else None
    if a == Action.TOOT:
        pile = take(tgt)  # type: ignore[arg-type]
        piles[player].append(Pile(pile.cards + (card,)))
    elif a == Action.MATE:
        partner = ring.pop(tgt.index)  # type: ignore[union-attr]
        piles[player].append(Pile((partner, card)))
    elif a == Action.TRAIN:
        ring.append(card)
    elif a == Action.STROLL:
        partner = [c for c in stroll if number(c) == number(card)]
        if partner:
            stroll.remove(partner[0])
            face_down[player] += [partner[0], card]
        else:
            stroll.append(card)
        snap = ruling.follow_up
        if snap is not None and snap.legal:
            if not 0 <= snap_target < len(snap.targets):
                raise RuleError(f"snap_target must be 0-{len(snap.targets) - 1}, got {snap_target}")
            ref = snap.targets[snap_target]
            at = table.trap_at()
            if at is not None:  # lift the trap off its pile (that pile stays where it is)
                src = ring_piles if at.owner is None else piles[at.owner]
                cards = list(src[at.index].cards)
                cards.remove("mousetrap")
                src[at.index] = Pile(tuple(cards))
            stolen = take(ref)  # type: ignore[arg-type]
            piles[player].append(Pile(stolen.cards + ("mousetrap",)))
    elif a in (Action.SQUEAK, Action.LASSO_DRAW):
        pile = take(tgt)  # type: ignore[arg-type]
        piles[player].append(Pile(pile.cards + (card,)))
    elif a == Action.TAMER:
        ps = piles[tgt.owner]  # type: ignore[union-attr,index]
        ps[tgt.index] = Pile(ps[tgt.index].cards + (card,))  # type: ignore[union-attr]
    elif a == Action.LASSO_CATCH:
        pile = take(tgt)  # type: ignore[arg-type]
        ring_piles.append(Pile(pile.cards + (card,)))
    else:  # FORGOTTEN_SHOUT and the *_FACE_DOWN steps
        face_down[player].append(card)
    return Table(
        players=table.players,
        ring=tuple(ring),
        ring_piles=tuple(ring_piles),
        piles=tuple(tuple(ps) for ps in piles),
        face_down=tuple(tuple(fd) for fd in face_down),
        stroll=tuple(stroll),
        edge=None if table.edge is None else table.edge - 1,
    )


def deal(deck: Sequence[str], players: int) -> tuple[Table, tuple[str, ...]]:
    """Game preparation from a shuffled ``deck`` (first card = top; the mousetrap, if present,
    is put aside): the first three animals with different numbers go face up into the ring,
    every other card forms the ring's edge in the same order. Returns the table (``edge`` =
    the edge's size) and the edge's cards in drawing order."""
    rest = [_check_card(c, "deck") for c in deck if c != "mousetrap"]
    ring: list[str] = []
    edge: list[str] = []
    for card in rest:
        if (
            len(ring) < SETTINGS.ring_size
            and is_animal(card)
            and number(card) not in {number(c) for c in ring}
        ):
            ring.append(card)
        else:
            edge.append(card)
    if len(ring) < SETTINGS.ring_size:
        raise RuleError("the deck lacks three animals with different numbers for the ring")
    return Table(players=players, ring=tuple(ring), edge=len(edge)), tuple(edge)


# ---------------------------------------------------------------------------------------------
# Several games in a row
# ---------------------------------------------------------------------------------------------


def target_points(players: int) -> int:
    """Points to reach over several games: 100 with 1-4 players, 50 with 5-8."""
    s = SETTINGS
    if isinstance(players, bool) or not isinstance(players, int):
        raise RuleError(f"players must be a whole number, got {players!r}")
    if not s.min_players <= players <= s.max_players:
        raise RuleError(f"players must be {s.min_players}-{s.max_players}, got {players}")
    return s.target_small_table if players <= s.small_table_max_players else s.target_large_table


def best(points: Mapping[str, int]) -> tuple[str, ...]:
    """ "The player with the most points wins!" All players sharing the highest score (the
    rulebook names no tie-break), in the mapping's order."""
    if not points:
        return ()
    top = max(points.values())
    return tuple(name for name, n in points.items() if n == top)


@dataclass(frozen=True)
class GameRecord:
    """Points written down game after game. ``players``: names in seating order; ``rounds``:
    one tuple of points per finished game, in the players' order."""

    players: tuple[str, ...]
    rounds: tuple[tuple[int, ...], ...] = ()

    def __post_init__(self):
        players = tuple(self.players)
        if len(set(players)) != len(players):
            raise RuleError("player names must differ")
        target_points(len(players))
        rounds = tuple(tuple(r) for r in self.rounds)
        for r in rounds:
            if len(r) != len(players):
                raise RuleError(f"each round needs {len(players)} scores, got {len(r)}")
        object.__setattr__(self, "players", players)
        object.__setattr__(self, "rounds", rounds)

    @property
    def target(self) -> int:
        return target_points(len(self.players))

    @property
    def totals(self) -> dict[str, int]:
        return {p: sum(r[i] for r in self.rounds) for i, p in enumerate(self.players)}

    @property
    def winners(self) -> tuple[str, ...]:
        """Empty until someone reaches the target; then the player(s) who reached it first: "The
        first player to reach the points wins". Several reaching it in the same game: the highest
        total wins, equal totals share the win."""
        running = dict.fromkeys(self.players, 0)
        for r in self.rounds:
            for p, n in zip(self.players, r, strict=True):
                running[p] += n
            reached = {p: n for p, n in running.items() if n >= self.target}
            if reached:
                return best(reached)
        return ()

    @property
    def winner(self) -> str | None:
        """The one winner, or None while nobody has won or when the win is shared."""
        w = self.winners
        return w[0] if len(w) == 1 else None

    @property
    def finished(self) -> bool:
        return bool(self.winners)

    def add_round(self, points: Mapping[str, int] | Sequence[int]) -> GameRecord:
        """A new record with one more game's points (a mapping name -> points, or a sequence
        in seating order). RuleError once the series is won or for a wrong set of players."""
        if self.finished:
            raise RuleError(f"the series is over: {', '.join(self.winners)} reached {self.target}")
        if isinstance(points, Mapping):
            if set(points) != set(self.players):
                raise RuleError(f"need points for exactly: {', '.join(self.players)}")
            row = tuple(points[p] for p in self.players)
        else:
            row = tuple(points)
        for n in row:
            if isinstance(n, bool) or not isinstance(n, int):
                raise RuleError(f"points must be whole numbers, got {n!r}")
        return GameRecord(self.players, self.rounds + (row,))


# ---------------------------------------------------------------------------------------------
# Facts adapter (contract: facts = {"zones": {zone: {label: count}}})
# ---------------------------------------------------------------------------------------------


def score_facts(facts: dict, options: dict[str, str]) -> tuple[dict, list[str]]:
    """Score the contract's facts. Returns ``({"points": {zone: n}, "breakdown": {...},
    "leaders": [...], "middle": {...}, "explanation": [...]}, warnings)``; points for every
    player zone present in the facts (``middle`` is the training ring and never scored).
    Raises FactsError naming the bad entry."""
    facts = require_mapping(facts, "facts")
    if "zones" not in facts:
        raise FactsError("missing 'zones' ({zone: {label: count}})", "facts.zones")
    raw = require_mapping(facts["zones"], "facts.zones")
    zones = zone_counts(raw, TROETO_ZONES, TROETO_LABELS, "facts.zones")
    warnings: list[str] = []
    for key in facts:
        if key != "zones":
            warnings.append(f"facts.{key} is not used by troetofanten and was ignored")

    totals: Counter = Counter()
    for counts in zones.values():
        totals.update(counts)
    for label, box_n in TROETO_COUNTS.items():
        if totals[label] > box_n:
            where = ", ".join(f"{z}: {c[label]}" for z, c in zones.items() if c.get(label))
            raise FactsError(
                f"{totals[label]} x {label} ({where}), but a box holds only {box_n}",
                f"facts.zones.*.{label}",
            )
    grand = sum(totals.values())
    if grand > TROETO_TOTAL_CARDS:
        raise FactsError(
            f"{grand} cards in all, but a box holds only {TROETO_TOTAL_CARDS}", "facts.zones"
        )

    present = [z for z in SETTINGS.scored_zones if z in raw]
    breakdown = {z: score_counts(zones[z]) for z in present}
    points = {z: b.points for z, b in breakdown.items()}
    explanation = [f"{z}: {b.explain()}" for z, b in breakdown.items()]
    middle = zones["middle"]
    if "middle" in raw:
        explanation.append(
            f"middle: {sum(middle.values())} cards in the training ring and around it belong to "
            "no player and are not scored"
        )
    if present:
        lead = best(points)
        explanation.append(f"most points: {', '.join(lead)} with {points[lead[0]]}")
    else:
        lead = ()
        warnings.append("no player zone (north, east, south, west) in the facts: nothing scored")
    warnings += _warnings(zones, present)
    score = {
        "points": points,
        "breakdown": {z: b.as_dict() for z, b in breakdown.items()},
        "leaders": list(lead),
        "middle": {"cards": sum(middle.values()), "scored": False},
        "explanation": explanation,
    }
    return score, warnings


def _warnings(zones: Mapping[str, Mapping[str, int]], present: Sequence[str]) -> list[str]:
    """Counts the rules make impossible (probably a misread or hidden card): they do not stop
    the scoring."""
    out = []
    for z in present:
        c = zones[z]
        animals = sum(c.get(a, 0) for a in ANIMALS)
        specials = {k: c.get(k, 0) for k in ("mouse", "mousetrap", "lasso", "tamer") if c.get(k)}
        if animals == 1:
            out.append(f"{z}: a single open animal, but piles always hold at least two animals")
        elif specials and animals < 2:
            names = ", ".join(specials)
            out.append(f"{z}: {names} open without a pile of animals to lie on")
    mid = zones["middle"]
    if mid.get(BACK):
        out.append(
            f"middle: {mid[BACK]} face-down cards are still in the ring's edge; the game ends only "
            "when the last card has been drawn, so these points are provisional"
        )
    for label in ("mouse", "tamer"):
        if mid.get(label):
            out.append(f"middle: an open {label} never lies in the ring; it belongs to a player")
    return out
