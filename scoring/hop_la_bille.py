"""Hop la bille: card completion, the five variants' win conditions, the last-marble referee and
the facts adapter (``OPTIONS``, ``score_facts``). Pure Python, frozen dataclasses, no I/O.

Readings of the rulebook (/work/shared/rules/hop-la-bille.txt) that this module implements:

- A card is *completed* when the player's game area holds exactly the card's multiset of
  marble colours and nothing else ("you must have exactly the right number of marbles. And the
  position is not important. So, sometimes, you will have to voluntarily [...] lose one").
  The order of the marbles printed on the card does not matter either.
- A *returned* card lies face down (``card-back``); it was completed earlier. A face-up card may
  carry ``"returned": true`` in the facts (an extension of the contract) to say that it is a
  returned card turned face up again, e.g. for the pile variant's final count.
- Suite: the combinations must be realised in the order 5, 4, 3 marbles (red, blue, green); a
  face-up card whose combination the area holds out of turn is *matching* but not completed.
- No card!: the winner is the first with 4 marbles of one colour (dark blue is not in play);
  other marbles in the area do not matter ("4 marbles of one colour", no "exactly").
- Pile: a returned card scores the marbles printed on it (green 3, blue 4, red 5); the highest
  total wins, a tie goes to the player with more returned cards, a further tie is shared
  ("well, you are both strong!"). The face of a face-down card is unknown, so its value is
  bounded (3..5, narrowed by the cards of each colour still unseen) and a winner is named only
  when every possible value gives the same answer. ``pile-short`` is the optional shorter game
  in which the first player with at least 11 marbles on returned cards wins (it still ends by
  the pile count when the pile runs out first).

Marble colours are the strings of ``labels.MARBLE_COLOURS`` (``"lightblue"``, not
``"marble-lightblue"``); zones are ``labels.HOP_ZONES``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from scoring.facts import (
    require_bool,
    require_choice,
    require_list,
    require_mapping,
    zone_counts,
)
from scoring.labels import (
    HOP_LABELS,
    HOP_ZONES,
    MARBLE_COLOURS,
    MARBLE_LABELS,
    MARBLES_PER_COLOUR,
    SIDE_ZONES,
)
from tablescore.errors import FactsError, OptionError, RuleError

# ----------------------------------------------------------------------------------------------
# Game constants (rulebook "Contents of the Game").

CARD_COLOURS = ("green", "blue", "red")
CARD_SIZES = {"green": 3, "blue": 4, "red": 5}  # marbles printed on a card of that colour
CARDS_PER_COLOUR = 4
TOTAL_CARDS = CARDS_PER_COLOUR * len(CARD_COLOURS)  # 12
TOTAL_MARBLES = MARBLES_PER_COLOUR * len(MARBLE_COLOURS)  # 20
CARDS_PER_PLAYER = 3  # normal and suite: one green, one blue, one red
SUITE_ORDER = ("red", "blue", "green")  # "combo 5 marbles, combo 4 marbles and then combo 3"
NO_CARD_EXCLUDED = "darkblue"  # "take all marbles except dark blue ones"
NO_CARD_TARGET = 4  # "4 marbles of one color"
PILE_SHORT_TARGET = 11  # "the first player to have 11 marbles on their validated cards"
BACK = "back"

VARIANTS = ("normal", "not-time", "suite", "no-card", "pile", "pile-short")
OPTIONS = {
    "variant": "normal (3 cards, win on 3 returned) | not-time (one card each, same colour) | "
    "suite (order 5, 4, 3) | no-card (4 of one colour) | pile (count returned marbles) | "
    "pile-short (first to 11 marbles on returned cards); default normal",
}

_SPOKEN = {"lightblue": "light blue", "darkblue": "dark blue"}


def spoken(colour: str) -> str:
    """A marble colour as words: ``"lightblue"`` -> ``"light blue"``."""
    return _SPOKEN.get(colour, colour)


# ----------------------------------------------------------------------------------------------
# Multisets of marble colours.


def combination(marbles: Iterable[str]) -> tuple[str, ...]:
    """Canonical multiset of marble colours: a tuple sorted in ``MARBLE_COLOURS`` order.

    Accepts colours (``"red"``) or labels (``"marble-red"``); raises ``ValueError`` on others.
    """
    out = []
    for m in marbles:
        colour = m.removeprefix("marble-")
        if colour not in MARBLE_COLOURS:
            raise ValueError(f"not a marble colour: {m!r}")
        out.append(colour)
    return tuple(sorted(out, key=MARBLE_COLOURS.index))


def describe(marbles: Iterable[str]) -> str:
    """Words for a multiset: ``"2 light blue, 1 red, 1 green"``; ``"no marble"`` when empty."""
    counts = Counter(combination(marbles))
    if not counts:
        return "no marble"
    parts = []
    for colour in MARBLE_COLOURS:
        if counts[colour]:
            parts.append(f"{counts[colour]} {spoken(colour)}")
    return ", ".join(parts)


def completes(card_marbles: Iterable[str], area: Iterable[str]) -> bool:
    """True when the area holds exactly the card's multiset of colours and nothing else
    (position and the order printed on the card are irrelevant)."""
    return Counter(combination(card_marbles)) == Counter(combination(area))


def difference(card_marbles: Iterable[str], area: Iterable[str]) -> tuple[dict, dict]:
    """``(missing, extra)``: colour -> count the area lacks / holds too many for the card."""
    need, have = Counter(combination(card_marbles)), Counter(combination(area))
    return dict(need - have), dict(have - need)


def advice(card_marbles: Iterable[str], area: Iterable[str]) -> str:
    """One sentence saying what the area needs to complete the card."""
    missing, extra = difference(card_marbles, area)
    if not missing and not extra:
        return "completed: the area holds exactly this combination"
    parts = []
    if missing:
        parts.append("win " + describe(Counter(missing).elements()))
    if extra:
        parts.append("lose " + describe(Counter(extra).elements()))
    return " and ".join(parts)


# ----------------------------------------------------------------------------------------------
# Table state.


@dataclass(frozen=True)
class Card:
    """One card as seen. colour: green|blue|red|back; marbles: the printed colours (empty for a
    back); returned: a face-up card that was already returned (turned up again to count it)."""

    colour: str
    marbles: tuple[str, ...] = ()
    returned: bool = False

    @property
    def face_up(self) -> bool:
        return self.colour != BACK

    @property
    def is_returned(self) -> bool:
        """Face down, or marked returned."""
        return not self.face_up or self.returned

    @property
    def size(self) -> int | None:
        """Marbles printed on the card (3, 4, 5); None for a back (unknown)."""
        return CARD_SIZES.get(self.colour)


@dataclass(frozen=True)
class Player:
    """A player's side. zone: north|east|south|west; area: canonical multiset of the marble
    colours in their game area; cards: the cards in front of them, in the facts' order."""

    zone: str
    area: tuple[str, ...] = ()
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True)
class Table:
    """players: one per seated side; middle: marbles in the middle of the cloth; pile: cards in
    the ``middle`` zone (the pile in the pile variant)."""

    players: tuple[Player, ...]
    middle: tuple[str, ...] = ()
    pile: tuple[Card, ...] = ()

    def player(self, zone: str) -> Player:
        for p in self.players:
            if p.zone == zone:
                return p
        raise KeyError(zone)


def matching_cards(player: Player) -> tuple[int, ...]:
    """Indices of the face-up, not yet returned cards whose combination the area holds now."""
    return tuple(
        i
        for i, c in enumerate(player.cards)
        if c.face_up and not c.returned and completes(c.marbles, player.area)
    )


def returned_cards(player: Player) -> tuple[int, ...]:
    """Indices of the cards already returned (face down or marked returned)."""
    return tuple(i for i, c in enumerate(player.cards) if c.is_returned)


def open_cards(player: Player) -> tuple[int, ...]:
    """Indices of face-up cards not yet returned (still to realise)."""
    return tuple(i for i, c in enumerate(player.cards) if c.face_up and not c.returned)


def suite_due(player: Player) -> str | None:
    """Suite: the colour of the card the player must realise next (the largest open card),
    or None when no card is open."""
    open_colours = {player.cards[i].colour for i in open_cards(player)}
    for colour in SUITE_ORDER:
        if colour in open_colours:
            return colour
    return None


def counting_cards(player: Player, variant: str) -> tuple[int, ...]:
    """Indices of the open cards completed now under the variant's rules: every matching card,
    except in suite where only a matching card of the colour due counts; none in no-card."""
    if variant == "no-card":
        return ()
    matches = matching_cards(player)
    if variant == "suite":
        due = suite_due(player)
        return tuple(i for i in matches if player.cards[i].colour == due)
    return matches


def four_of_a_colour(area: Iterable[str]) -> str | None:
    """No card!: the colour of which the area holds 4 marbles (dark blue excluded), or None."""
    counts = Counter(combination(area))
    for colour in MARBLE_COLOURS:
        if colour != NO_CARD_EXCLUDED and counts[colour] >= NO_CARD_TARGET:
            return colour
    return None


# ----------------------------------------------------------------------------------------------
# Setup (rulebook "Set Up" and the variants' set-up sentences).


@dataclass(frozen=True)
class Setup:
    """Marbles per player area and in the middle, cards per player, at the start."""

    marbles_per_player: int
    marbles_in_middle: int
    cards_per_player: int
    marbles_per_colour_in_play: dict[str, int] = field(default_factory=dict)


def setup(variant: str, players: int) -> Setup:
    """The starting counts for 2-4 players (the rulebook seats one player per side)."""
    _check_variant(variant)
    if not 2 <= players <= 4:
        raise ValueError(f"Hop la bille is played by 2 to 4 players, got {players}")
    if variant == "no-card":
        colours = [c for c in MARBLE_COLOURS if c != NO_CARD_EXCLUDED]
        in_play = {c: MARBLES_PER_COLOUR for c in colours}
        per_player = len(colours)  # one of each colour
        middle = sum(in_play.values()) - per_player * players
        return Setup(per_player, middle, 0, in_play)
    cards = 1 if variant == "not-time" else CARDS_PER_PLAYER
    if variant in ("pile", "pile-short"):
        cards = 1  # the first card of the pile
    in_play = {c: players for c in MARBLE_COLOURS}  # 5 marbles of 5 colours each
    return Setup(len(MARBLE_COLOURS), 0, cards, in_play)


# ----------------------------------------------------------------------------------------------
# Pile totals.


@dataclass(frozen=True)
class PileTotal:
    """Marbles on a player's returned cards. known: from cards whose face is seen; hidden:
    face-down cards; low/high: the total's bounds given what the hidden faces can be."""

    cards: int
    known: int
    hidden: int
    low: int
    high: int

    @property
    def exact(self) -> int | None:
        return self.low if self.low == self.high else None


def card_supply(table: Table) -> dict[str, int]:
    """Cards of each colour not seen face up anywhere on the table (at least 0)."""
    seen = Counter(c.colour for p in table.players for c in p.cards if c.face_up)
    seen.update(c.colour for c in table.pile if c.face_up)
    return {c: max(CARDS_PER_COLOUR - seen[c], 0) for c in CARD_COLOURS}


def hidden_bounds(hidden: int, supply: Mapping[str, int]) -> tuple[int, int]:
    """Smallest and largest sum of ``hidden`` face-down cards drawn from ``supply``."""

    def fill(order):
        left, total = hidden, 0
        for colour in order:
            take = min(left, supply.get(colour, 0))
            total += take * CARD_SIZES[colour]
            left -= take
        # More hidden cards than the supply allows (impossible facts): bound by the extreme size.
        return total + left * CARD_SIZES[order[0]]

    return fill(("green", "blue", "red")), fill(("red", "blue", "green"))


def pile_total(
    player: Player, supply: Mapping[str, int], counting: Iterable[int] = ()
) -> PileTotal:
    """The pile score of a player: returned cards plus the ``counting`` indices (cards completed
    now, which the player returns at once)."""
    idx = set(returned_cards(player)) | set(counting)
    known = sum(player.cards[i].size or 0 for i in idx if player.cards[i].face_up)
    hidden = sum(1 for i in idx if not player.cards[i].face_up)
    lo, hi = hidden_bounds(hidden, supply)
    return PileTotal(len(idx), known, hidden, known + lo, known + hi)


def pile_beats(a: PileTotal, b: PileTotal) -> bool:
    """True when ``a`` ranks above ``b`` for every possible value of the hidden cards: more
    marbles, or equal marbles and more cards."""
    return a.low > b.high or (a.low == b.high and a.cards > b.cards)


def pile_ranking(totals: Mapping[str, PileTotal]) -> tuple[tuple[str, ...], bool]:
    """``(leaders, decided)``: the zone(s) ranking first and whether hidden cards cannot change
    it. Several leaders means a shared first place ("well, you are both strong!")."""
    zones = list(totals)
    if not zones:
        return (), True
    for z in zones:
        if all(pile_beats(totals[z], totals[o]) for o in zones if o != z):
            return (z,), True
    if all(t.exact is not None for t in totals.values()):
        best = max((t.exact, t.cards) for t in totals.values())
        return tuple(z for z in zones if (totals[z].exact, totals[z].cards) == best), True
    return (), False


# ----------------------------------------------------------------------------------------------
# Variant outcomes.


@dataclass(frozen=True)
class PlayerResult:
    """Per player: completed = open cards completed now (they count); matching = open cards
    whose combination the area holds (in suite possibly out of turn); returned = cards already
    returned; won = returned + completed now; needed = cards the variant needs to win (None
    where cards do not decide); pile = pile total (pile variants); colour = no-card colour."""

    zone: str
    completed: tuple[int, ...] = ()
    matching: tuple[int, ...] = ()
    returned: tuple[int, ...] = ()
    won: int = 0
    needed: int | None = None
    pile: PileTotal | None = None
    colour: str | None = None
    due: str | None = None


@dataclass(frozen=True)
class Outcome:
    """A variant's verdict on the table. winners: zones that have won (several = a tie or a
    simultaneous finish); decided: whether the winners are certain (False when face-down cards
    or a simultaneous finish leave it open); explanation: sentences in words."""

    variant: str
    players: tuple[PlayerResult, ...]
    winners: tuple[str, ...] = ()
    decided: bool = True
    game_over: bool = False
    explanation: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def winner(self) -> str | None:
        return self.winners[0] if self.decided and len(self.winners) == 1 else None


def _check_variant(variant: str) -> None:
    if variant not in VARIANTS:
        raise OptionError(f"unknown Hop la bille variant {variant!r}; choose one of: "
                          f"{', '.join(VARIANTS)}")


def _card_name(player: Player, i: int) -> str:
    card = player.cards[i]
    return f"{player.zone}'s {card.colour} card #{i}"


def _completion_sentences(player: Player, counting: tuple[int, ...], matches: tuple[int, ...]):
    out = []
    for i in counting:
        out.append(f"{_card_name(player, i)} is completed: the area holds exactly "
                   f"{describe(player.area)}; {player.zone} returns it.")
    for i in matches:
        if i not in counting:
            out.append(f"{_card_name(player, i)} matches the area ({describe(player.area)}) "
                       "but is not the card due, so it does not count yet.")
    return out


def _cards_result(table: Table, variant: str, needed: int) -> Outcome:
    """normal, not-time and suite: a player wins when returned + completed-now cards reach
    ``needed``."""
    results, sentences, warnings = [], [], []
    for p in table.players:
        matches = matching_cards(p)
        counting = counting_cards(p, variant)
        returned = returned_cards(p)
        won = len(returned) + len(counting)
        due = suite_due(p) if variant == "suite" else None
        results.append(PlayerResult(p.zone, counting, matches, returned, won, needed, due=due))
        sentences += _completion_sentences(p, counting, matches)
        sentences.append(f"{p.zone} has {won} of {needed} card(s) returned or completed.")
        if variant == "suite":
            warnings += _suite_order_warnings(p)
    winners = tuple(r.zone for r in results if r.won >= needed)
    decided = len(winners) <= 1
    if len(winners) == 1:
        sentences.append(f"{winners[0]} has realised {needed} combination(s) and wins.")
    elif winners:
        sentences.append(f"{', '.join(winners)} all reach {needed} card(s) at once; the "
                         "rulebook names no winner for a simultaneous finish.")
    else:
        sentences.append("Nobody has won yet.")
    return Outcome(variant, tuple(results), winners, decided, bool(winners), tuple(sentences),
                   tuple(warnings))


def _suite_order_warnings(p: Player) -> list[str]:
    open_colours = [p.cards[i].colour for i in open_cards(p)]
    done = [c.colour for c in p.cards if c.returned and c.face_up]
    hidden = sum(1 for c in p.cards if not c.face_up)
    out = []
    # Returned cards must be the first len(returned) colours of SUITE_ORDER.
    returned_count = hidden + len(done)
    expected_done = set(SUITE_ORDER[:returned_count])
    if any(c not in expected_done for c in done) or any(c in expected_done for c in open_colours):
        out.append(f"{p.zone}: in suite the cards are returned in the order red, blue, green; "
                   f"{returned_count} returned card(s) with {', '.join(open_colours) or 'none'} "
                   "still open does not fit that order")
    return out


def score_normal(table: Table) -> Outcome:
    """Normal game: each player has a green, a blue and a red card; the first to have returned
    all 3 wins."""
    return _cards_result(table, "normal", CARDS_PER_PLAYER)


def score_not_time(table: Table) -> Outcome:
    """Not Time: one card each (all of the same colour); the first to realise it wins."""
    out = _cards_result(table, "not-time", 1)
    colours = {c.colour for p in table.players for c in p.cards if c.face_up}
    extra = []
    if len(colours) > 1:
        extra.append("in Not Time every player's card has the same colour, but the table shows "
                     + ", ".join(sorted(colours)))
    for p in table.players:
        if len(p.cards) > 1:
            extra.append(f"{p.zone} has {len(p.cards)} cards; in Not Time each player has one")
    return replace(out, warnings=out.warnings + tuple(extra))


def score_suite(table: Table) -> Outcome:
    """Suite: the normal game, but the combinations are realised in the order 5, 4, 3
    (red, blue, green); only the card due can be completed."""
    return _cards_result(table, "suite", CARDS_PER_PLAYER)


def score_no_card(table: Table) -> Outcome:
    """No Card!: no cards, no dark blue; the first with 4 marbles of one colour wins."""
    results, sentences = [], []
    for p in table.players:
        colour = four_of_a_colour(p.area)
        results.append(PlayerResult(p.zone, colour=colour))
        if colour:
            sentences.append(f"{p.zone} holds all 4 {spoken(colour)} marbles.")
    winners = tuple(r.zone for r in results if r.colour)
    if len(winners) == 1:
        sentences.append(f"{winners[0]} has 4 marbles of one colour and wins.")
    elif winners:
        sentences.append(f"{', '.join(winners)} each hold 4 of one colour at once; the rulebook "
                         "names no winner for a simultaneous finish.")
    else:
        sentences.append("Nobody holds 4 marbles of one colour yet.")
    return Outcome("no-card", tuple(results), winners, len(winners) <= 1, bool(winners),
                   tuple(sentences))


def score_pile(table: Table, short: bool = False) -> Outcome:
    """Pile: players return cards one at a time and draw from the pile; when a player cannot
    draw (pile empty) the game is over and the marbles on returned cards are counted, ties to
    the player with more cards. ``short``: the first to reach 11 such marbles wins."""
    variant = "pile-short" if short else "pile"
    supply = card_supply(table)
    results, sentences, warnings = [], [], []
    totals: dict[str, PileTotal] = {}
    someone_cannot_draw = False
    for p in table.players:
        matches = matching_cards(p)
        counting = counting_cards(p, variant)
        total = pile_total(p, supply, counting)
        totals[p.zone] = total
        results.append(PlayerResult(p.zone, counting, matches, returned_cards(p), total.cards,
                                    None, total))
        sentences += _completion_sentences(p, counting, matches)
        value = (f"{total.low}" if total.exact is not None
                 else f"between {total.low} and {total.high}")
        sentences.append(f"{p.zone} has {total.cards} returned card(s) worth {value} marbles"
                         + (f" ({total.hidden} face down)" if total.hidden else "") + ".")
        still_open = [i for i in open_cards(p) if i not in counting]
        if len(still_open) > 1:
            warnings.append(f"{p.zone} has {len(still_open)} open cards; in pile a player holds "
                            "one card at a time (mark cards turned up for the count with "
                            '"returned": true)')
        if counting or not still_open:
            someone_cannot_draw = True
    pile_left = len(table.pile)
    game_over = pile_left == 0 and someone_cannot_draw
    if short:
        reached = [z for z, t in totals.items() if t.low >= PILE_SHORT_TARGET]
        maybe = [z for z, t in totals.items() if t.low < PILE_SHORT_TARGET <= t.high]
        if reached:
            decided = len(reached) == 1 and not maybe
            verb = "wins" if decided else "may win"
            sentences.append(f"{', '.join(reached)} reached {PILE_SHORT_TARGET} marbles on "
                             f"returned cards: {verb}"
                             + ("" if decided else " (several reach it or face-down cards hide "
                                "the totals)") + ".")
            return Outcome(variant, tuple(results), tuple(reached), decided, True,
                           tuple(sentences), tuple(warnings))
        if maybe:
            sentences.append(f"{', '.join(maybe)} may have reached {PILE_SHORT_TARGET} marbles; "
                             "turn the face-down returned cards up to know.")
            return Outcome(variant, tuple(results), (), False, False, tuple(sentences),
                           tuple(warnings))
    if not game_over:
        why = (f"{pile_left} card(s) are left in the pile" if pile_left
               else "every player still has a card to realise")
        sentences.append(f"The game goes on: {why}.")
        return Outcome(variant, tuple(results), (), True, False, tuple(sentences),
                       tuple(warnings))
    leaders, decided = pile_ranking(totals)
    if not decided:
        sentences.append("The pile is empty, but face-down returned cards could change the "
                         "ranking: turn them up to count.")
    elif len(leaders) == 1:
        sentences.append(f"The pile is empty: {leaders[0]} has the most marbles on returned "
                         "cards (ties go to more cards) and wins.")
    else:
        sentences.append(f"The pile is empty: {' and '.join(leaders)} tie on marbles and cards: "
                         "well, you are both strong!")
    return Outcome(variant, tuple(results), leaders, decided, True, tuple(sentences),
                   tuple(warnings))


def score_table(table: Table, variant: str = "normal") -> Outcome:
    """The variant's verdict on a table (``variant`` one of ``VARIANTS``)."""
    _check_variant(variant)
    if variant == "normal":
        return score_normal(table)
    if variant == "not-time":
        return score_not_time(table)
    if variant == "suite":
        return score_suite(table)
    if variant == "no-card":
        return score_no_card(table)
    return score_pile(table, short=variant == "pile-short")


# ----------------------------------------------------------------------------------------------
# The last-marble rule, as a referee.


@dataclass(frozen=True)
class Hit:
    """Marbles of one other player touched by a flick (directly or by rebound): ``had`` is how
    many marbles that player held before the flick, ``touched`` how many of them were hit."""

    had: int
    touched: int = 1


@dataclass(frozen=True)
class Flick:
    """One flick. striker_marbles: marbles in the striker's area before the flick (>= 1, the
    flicked one included); touched_middle / touched_own: marbles hit in the middle / in the
    striker's own area; opponents: one ``Hit`` per other player whose marbles were hit."""

    striker_marbles: int
    touched_middle: int = 0
    touched_own: int = 0
    opponents: tuple[Hit, ...] = ()

    @property
    def touched_anything(self) -> bool:
        return bool(self.touched_middle or self.touched_own
                    or any(h.touched for h in self.opponents))


@dataclass(frozen=True)
class Ruling:
    """verdict: a short code; explanation: one sentence; striker_after: marbles in the striker's
    area after the flick; opponents_after: the same for each ``Hit``, in order; middle_change:
    marbles added to (+) or taken from (-) the middle. ``covered`` is False where the rulebook
    is silent and the ruling is this module's suggestion."""

    verdict: str
    explanation: str
    striker_after: int
    opponents_after: tuple[int, ...] = ()
    middle_change: int = 0
    covered: bool = True


def last_marble_ruling(flick: Flick) -> Ruling:
    """What happens to the marbles after a flick, with the rulebook's last-marble rule:

    - nothing touched, several marbles: the flicked marble goes to the middle;
    - nothing touched, the striker's last marble: he takes it back into his own area;
    - something touched: the striker keeps his marble and wins every touched marble, except that
      a player whose only marble is touched chooses which of the two marbles (his own or the
      striker's) he keeps and gives the other to the striker.
    Raises ``RuleError`` for an impossible situation (no marble to flick, more hits than marbles).
    """
    n = flick.striker_marbles
    if n < 1:
        raise RuleError("the striker must have a marble to flick")
    if flick.touched_own > n - 1 or flick.touched_middle < 0 or flick.touched_own < 0:
        raise RuleError("the striker cannot touch more of his own marbles than he has besides "
                        "the flicked one")
    for h in flick.opponents:
        if h.had < 1 or not 0 < h.touched <= h.had:
            raise RuleError(f"an opponent with {h.had} marble(s) cannot have {h.touched} touched")
    if flick.touched_middle > TOTAL_MARBLES - n:
        raise RuleError("more marbles touched in the middle than the game has")

    if not flick.touched_anything:
        if n == 1:
            return Ruling(
                "keeps-last-marble",
                "The flicked marble touched nothing, but it is the player's only marble and he "
                "can't lose it: he takes it back and puts it where he wants in his game area.",
                1,
            )
        return Ruling(
            "to-middle",
            "The flicked marble touched nothing: it goes to the middle of the playground, where "
            "anyone can win it.",
            n - 1,
            middle_change=1,
        )

    lone = [h for h in flick.opponents if h.had == 1]
    emptied = [h for h in flick.opponents if h.had > 1 and h.touched == h.had]
    gained = flick.touched_middle + sum(h.touched for h in flick.opponents)
    if len(lone) > 1:
        return Ruling(
            "not-covered",
            f"The flick touched the only marble of {len(lone)} players; the rulebook lets a lone "
            "player choose between his marble and the striker's, which cannot be done by "
            "several at once: suggested ruling, each keeps his own marble, since a player "
            "with one marble can't lose it.",
            n + gained - len(lone),
            tuple(1 if h.had == 1 else h.had - h.touched for h in flick.opponents),
            -flick.touched_middle,
            covered=False,
        )
    if emptied:
        return Ruling(
            "not-covered",
            "The flick touched every marble of a player who had more than one; by the letter "
            "the striker wins them all and that player is left with none, which the rulebook "
            "does not address: suggested ruling, apply the spirit of the last-marble rule and "
            "let that player keep one of them.",
            n + gained,
            tuple(h.had - h.touched for h in flick.opponents),
            -flick.touched_middle,
            covered=False,
        )
    if lone:
        return Ruling(
            "lone-player-chooses",
            "The flick touched a player's only marble: that player chooses which marble he "
            "keeps, his own or the striker's, and gives the other to the striker; every other "
            "touched marble is won by the striker as usual.",
            n + gained - 1,
            tuple(1 if h.had == 1 else h.had - h.touched for h in flick.opponents),
            -flick.touched_middle,
        )
    own = " (touching his own marble counts: he keeps it)" if flick.touched_own else ""
    return Ruling(
        "wins-touched",
        f"The flicked marble touched {gained + flick.touched_own} marble(s): the striker takes "
        f"it back and wins every touched marble into his game area{own}.",
        n + gained,
        tuple(h.had - h.touched for h in flick.opponents),
        -flick.touched_middle,
    )


# ----------------------------------------------------------------------------------------------
# Facts adapter (contract: facts -> score).

CARD_FACT_KEYS = ("colour", "marbles", "returned")


def parse_card(obj: object, path: str) -> Card:
    """One facts card ``{"colour", "marbles", ["returned"]}``; FactsError names the entry."""
    raw = require_mapping(obj, path)
    if "colour" not in raw:
        raise FactsError("a card needs a colour (green, blue, red or back)", path)
    colour = require_choice(raw["colour"], CARD_COLOURS + (BACK,), f"{path}.colour")
    marbles = require_list(raw.get("marbles", []), f"{path}.marbles")
    colours = []
    for j, label in enumerate(marbles):
        require_choice(label, MARBLE_LABELS, f"{path}.marbles[{j}]")
        colours.append(label.removeprefix("marble-"))
    if colour == BACK:
        if colours:
            raise FactsError("a face-down card shows no marbles", f"{path}.marbles")
    elif len(colours) != CARD_SIZES[colour]:
        raise FactsError(f"a {colour} card shows {CARD_SIZES[colour]} marbles, got "
                         f"{len(colours)}", f"{path}.marbles")
    for c, k in Counter(colours).items():
        if k > MARBLES_PER_COLOUR:
            raise FactsError(f"a card cannot show {k} {spoken(c)} marbles: the game has only "
                             f"{MARBLES_PER_COLOUR} of each colour", f"{path}.marbles")
    returned = require_bool(raw.get("returned", False), f"{path}.returned")
    return Card(colour, combination(colours), returned)


def parse_facts(facts: object) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[Card, ...]],
                                          dict[str, dict[str, int]], list[str]]:
    """Validate the contract's facts: returns ``(areas, cards, zone_counts, warnings)`` with
    areas = zone -> canonical marble multiset (all five zones), cards = zone -> cards (all five
    zones). Raises FactsError for what the rules make impossible."""
    raw = require_mapping(facts, "facts")
    warnings = [f"facts.{k}: unknown key ignored" for k in raw if k not in ("zones", "cards")]
    if "zones" not in raw:
        raise FactsError('missing "zones" ({zone: {label: count}})', "facts")
    counts = zone_counts(raw["zones"], HOP_ZONES, HOP_LABELS, "facts.zones")

    totals = Counter()
    for zone in HOP_ZONES:
        for label in MARBLE_LABELS:
            totals[label] += counts[zone].get(label, 0)
    for label in MARBLE_LABELS:
        if totals[label] > MARBLES_PER_COLOUR:
            where = ", ".join(f"{z} {counts[z][label]}" for z in HOP_ZONES
                              if counts[z].get(label))
            raise FactsError(f"{totals[label]} {label} in all ({where}); the game has only "
                             f"{MARBLES_PER_COLOUR} of each colour", f"facts.zones.{label}")

    raw_cards = require_mapping(raw.get("cards", {}), "facts.cards")
    cards: dict[str, tuple[Card, ...]] = {z: () for z in HOP_ZONES}
    for zone, lst in raw_cards.items():
        require_choice(zone, HOP_ZONES, f"facts.cards.{zone}")
        items = require_list(lst, f"facts.cards.{zone}")
        cards[zone] = tuple(parse_card(c, f"facts.cards.{zone}[{i}]") for i, c in enumerate(items))

    all_cards = [c for z in HOP_ZONES for c in cards[z]]
    if len(all_cards) > TOTAL_CARDS:
        raise FactsError(f"{len(all_cards)} cards; the game has only {TOTAL_CARDS}", "facts.cards")
    up = Counter(c.colour for c in all_cards if c.face_up)
    for colour in CARD_COLOURS:
        if up[colour] > CARDS_PER_COLOUR:
            raise FactsError(f"{up[colour]} {colour} cards face up; the game has only "
                             f"{CARDS_PER_COLOUR}", "facts.cards")

    # Card labels in the zone counts (as a detector reports them) must agree with the list.
    if any(label.startswith("card-") for z in HOP_ZONES for label in counts[z]):
        for zone in HOP_ZONES:
            listed = Counter(f"card-{c.colour}" for c in cards[zone])
            for label in ("card-green", "card-blue", "card-red", "card-back"):
                if counts[zone].get(label, 0) != listed[label]:
                    warnings.append(f"facts.zones.{zone}.{label}: {counts[zone].get(label, 0)} "
                                    f"counted but {listed[label]} in facts.cards.{zone}")

    areas = {
        z: combination(
            lbl for lbl in MARBLE_LABELS for _ in range(counts[z].get(lbl, 0))
        )
        for z in HOP_ZONES
    }
    return areas, cards, counts, warnings


def table_from_facts(areas, cards, variant: str) -> tuple[Table, list[str]]:
    """Seat the players: side zones with cards (no-card: with marbles). Returns the table and
    warnings about doubtful seating."""
    warnings = []
    if variant == "no-card":
        seated = [z for z in SIDE_ZONES if areas[z]]
    else:
        seated = [z for z in SIDE_ZONES if cards[z]]
        if not seated:  # no cards seen at all: seat the sides that hold marbles
            seated = [z for z in SIDE_ZONES if areas[z]]
            if seated:
                warnings.append("no cards in the facts: players seated where marbles lie")
        for z in SIDE_ZONES:
            if z not in seated and areas[z]:
                warnings.append(f"{z}'s area holds {describe(areas[z])} but {z} has no cards: "
                                "is a player missing?")
    players = tuple(Player(z, areas[z], cards[z] if variant != "no-card" else ())
                    for z in seated)
    return Table(players, areas["middle"], cards["middle"]), warnings


def plausibility_warnings(table: Table, areas, cards, variant: str) -> list[str]:
    """Doubtful but possible facts, in words."""
    out = []
    n = len(table.players)
    if n == 1:
        out.append("only one player seated; Hop la bille is played by 2 to 4")
    for p in table.players:
        if not p.area:
            out.append(f"{p.zone}'s area holds no marble; a player always keeps at least one "
                       "(the last-marble rule)")
    totals = Counter(c for z in HOP_ZONES for c in areas[z])
    if variant == "no-card":
        if any(cards[z] for z in HOP_ZONES):
            out.append("the no-card variant plays without cards; the cards in the facts are "
                       "ignored")
        if totals[NO_CARD_EXCLUDED]:
            out.append(f"{totals[NO_CARD_EXCLUDED]} dark blue marble(s) on the cloth; the "
                       "no-card variant leaves them in the box")
        short = [spoken(c) for c in MARBLE_COLOURS
                 if c != NO_CARD_EXCLUDED and totals[c] != MARBLES_PER_COLOUR]
        if short and n:
            out.append(f"no-card puts all 4 marbles of each colour but dark blue in play; "
                       f"not all 4 seen of: {', '.join(short)}")
    elif n >= 2:
        odd = [f"{totals[c]} {spoken(c)}" for c in MARBLE_COLOURS if totals[c] != n]
        if odd:
            out.append(f"with {n} players each colour should have {n} marbles on the cloth (one "
                       f"per player), but there are {', '.join(odd)}")
    if variant in ("normal", "suite"):
        for p in table.players:
            if len(p.cards) != CARDS_PER_PLAYER:
                out.append(f"{p.zone} has {len(p.cards)} cards; each player has "
                           f"{CARDS_PER_PLAYER} (a green, a blue and a red)")
            up = Counter(c.colour for c in p.cards if c.face_up)
            doubled = [c for c in CARD_COLOURS if up[c] > 1]
            if doubled:
                out.append(f"{p.zone} has more than one {' and '.join(doubled)} card; each "
                           "player has one of each colour")
    if variant not in ("no-card",):
        up_middle = [c for c in cards["middle"] if c.face_up]
        if up_middle:
            out.append(f"{len(up_middle)} face-up card(s) in the middle belong to no player and "
                       "are ignored")
        if cards["middle"] and variant not in ("pile", "pile-short"):
            out.append("cards in the middle belong to no player and are ignored")
    if variant in ("pile", "pile-short"):
        seen = sum(len(cards[z]) for z in HOP_ZONES)
        if not cards["middle"] and seen < TOTAL_CARDS and variant == "pile":
            out.append(f"no pile in the middle and only {seen} of {TOTAL_CARDS} cards seen: if "
                       "the pile lies outside the photo, the game is not over")
    return out


def _advice_line(p: Player, i: int, matching: bool) -> str:
    card = p.cards[i]
    if matching:
        return f"{card.colour} card #{i}: matches the area but is not the card due yet"
    return f"{card.colour} card #{i}: {advice(card.marbles, p.area)}"


def outcome_to_score(outcome: Outcome, table: Table, pile_left: int) -> dict:
    """The contract's score object plus this game's extra keys."""
    by_zone = {r.zone: r for r in outcome.players}
    score: dict = {
        "variant": outcome.variant,
        "players": [p.zone for p in table.players],
        "completed": {z: list(by_zone[z].completed) if z in by_zone else [] for z in HOP_ZONES},
        "returned": {r.zone: list(r.returned) for r in outcome.players},
        "matching": {r.zone: list(r.matching) for r in outcome.players},
        "winner": outcome.winner,
        "winners": list(outcome.winners),
        "decided": outcome.decided,
        "game_over": outcome.game_over,
        "explanation": list(outcome.explanation),
    }
    if outcome.variant in ("normal", "not-time", "suite"):
        score["cards_won"] = {r.zone: r.won for r in outcome.players}
        score["cards_needed"] = outcome.players[0].needed if outcome.players else None
    if outcome.variant != "no-card":
        score["advice"] = {
            p.zone: [_advice_line(p, i, i in by_zone[p.zone].matching)
                     for i in open_cards(p) if i not in by_zone[p.zone].completed]
            for p in table.players
        }
    if outcome.variant == "suite":
        score["due"] = {r.zone: r.due for r in outcome.players}
    if outcome.variant == "no-card":
        score["four_of_a_colour"] = {r.zone: r.colour for r in outcome.players}
    if outcome.variant in ("pile", "pile-short"):
        score["pile"] = {
            r.zone: {"cards": r.pile.cards, "marbles": r.pile.exact, "low": r.pile.low,
                     "high": r.pile.high, "face_down": r.pile.hidden}
            for r in outcome.players if r.pile is not None
        }
        score["pile_left"] = pile_left
        if outcome.variant == "pile-short":
            score["target"] = PILE_SHORT_TARGET
    return score


def check_settings(options: dict[str, str]) -> None:
    """`OptionError` for an unknown variant (``scoring.check_settings``)."""
    _check_variant(options.get("variant") or "normal")


def score_facts(facts: dict, options: dict[str, str]) -> tuple[dict, list[str]]:
    """Contract adapter: validate Hop la bille facts, apply the variant (``options["variant"]``,
    default normal) and return ``(score, warnings)``. ``score["completed"]`` lists, per zone,
    the indices of the cards (in that zone's facts list) completed now."""
    variant = options.get("variant") or "normal"
    _check_variant(variant)
    areas, cards, _counts, warnings = parse_facts(facts)
    table, seat_warnings = table_from_facts(areas, cards, variant)
    warnings += seat_warnings
    warnings += plausibility_warnings(table, areas, cards, variant)
    outcome = score_table(table, variant)
    warnings += list(outcome.warnings)
    return outcome_to_score(outcome, table, len(cards["middle"])), warnings
