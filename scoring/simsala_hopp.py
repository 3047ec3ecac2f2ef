"""Simsala Hopp rule engine: one turn's points, the Lazy Spell, rounds, the tournament.

Pure Python over small frozen dataclasses (no cv2, no numpy). Rulebook:
``shared/rules/simsala-hopp.txt``; labels and zones: ``shared/pieces.md``.

Shapes used throughout
----------------------
- A *colour* is one of ``"yellow", "orange", "blue", "violet"`` (``PLAYER_COLOURS``).
- ``players`` is a tuple of 2-4 distinct colours in **clockwise seating order**; the player
  after ``players[i]`` (wrapping round) is ``players[i]``'s left-hand neighbour.
- The contract's facts are ``{"arena": {label: count}, "outside": {label: count}}`` with the
  labels of ``scoring.labels.SIMSALA_LABELS``; :class:`Tiles` is their frozen form (one count
  per label, in ``SIMSALA_LABELS`` order, for each zone). A label counts the tiles *showing*
  that side: ``frog`` is a tile lying frog side up.

Readings of the rulebook chosen here (also in ``docs/simsala-hopp.md``):

1. Only tiles in the arena score. The magician scores white rabbits plus rabbits of their own
   colour; each spectator scores rabbits of their own colour. Rabbits of a colour nobody
   plays score for nobody.
2. Expert level 1: the magician loses 1 per cat visible in the arena at counting time (step 7,
   so after the Lazy Spells: a cat a spectator turns up counts too). Level 2 adds level 1 and
   gives the magician +1 per cat lying cat side up outside the arena (tiles go back into the
   arena at every turn's step 1, so every tile outside was tapped out by this magician).
   A turn's points may therefore be negative for the magician at levels 1-2.
3. A bat never moves below the start space 0 (:func:`move_bat`); the rules cannot take a
   bat past space 15 (16 recesses: at most 9 + 3 x 2 points in one round).
4. The Lazy Spell: spectators in clockwise order starting at the magician's left-hand
   neighbour, each may turn one frog or pass; once no frog is visible in the arena the
   remaining spectators get no Lazy Spell.
5. Rounds: the youngest player is the first magician of round 1; every later round starts
   with the youngest player's left-hand neighbour (the rulebook's literal wording); within a
   round the magician passes clockwise until everyone was magician once. The furthest bat
   wins a cup; every tied leader gets one (even when all bats are still on 0); then all
   bats go back to 0.
6. The tournament ends after the round in which somebody reaches 2 cups (3-4 players) or
   3 cups (2 players). If several players share the most cups, the Magic Decision Tap
   decides: only those players take part, one tap each in clockwise order starting with the
   youngest contender (the youngest, or the first contender clockwise after them). A tap
   scores white rabbits plus the tapper's own colour visible in the arena after it (the
   expert cat rules are not applied: the tie-break text names only rabbits). A player who
   taps more than once is eliminated (``foul=True``). After every contender has tapped,
   the furthest bat wins; if still tied, only the tied leaders tap again (their bats stay
   where they are, which ranks exactly as if they restarted from 0).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from scoring.facts import require_choice, require_int, require_list, require_mapping, zone_counts
from scoring.labels import (
    PLAYER_COLOURS_SIMSALA,
    SIMSALA_COUNTS,
    SIMSALA_LABELS,
    SIMSALA_TILES,
    SIMSALA_ZONES,
)
from tablescore.errors import FactsError, OptionError, RuleError

GAME = "simsala-hopp"
PLAYER_COLOURS = PLAYER_COLOURS_SIMSALA


@dataclass(frozen=True)
class Rules:
    """Numbers fixed by the rulebook, and the defaults of the facts adapter."""

    min_players: int = 2
    max_players: int = 4
    start_space: int = 0  # bats start here and never go below it
    cups_to_win: int = 2  # with 3 or 4 players
    cups_to_win_two_players: int = 3
    levels: tuple[int, ...] = (0, 1, 2)
    default_players: tuple[str, ...] = PLAYER_COLOURS  # the walls' order round the castle
    default_level: int = 0


RULES = Rules()

OPTIONS: dict[str, str] = {
    "magician": "the magician's colour this turn (required)",
    "players": "player colours in clockwise seating order, comma-separated "
    "(default: yellow,orange,blue,violet)",
    "level": "expert level 0, 1 or 2 (default 0)",
}

_INDEX = {label: i for i, label in enumerate(SIMSALA_LABELS)}
_EMPTY = (0,) * len(SIMSALA_LABELS)
_BACKS = tuple(label for label in SIMSALA_LABELS if label != "frog")


def rabbit(colour: str) -> str:
    """The label of a rabbit of ``colour`` (``"white"`` or a player colour)."""
    return f"rabbit-{colour}"


# ---------------------------------------------------------------------------------------------
# Tiles (validated facts)


@dataclass(frozen=True)
class Tiles:
    """Visible tile sides per zone: ``arena`` and ``outside`` are tuples of 7 ints aligned with
    ``SIMSALA_LABELS``. Build with :meth:`from_facts` or :meth:`of` (both validate)."""

    arena: tuple[int, ...] = _EMPTY
    outside: tuple[int, ...] = _EMPTY

    @classmethod
    def from_facts(cls, facts: object, path: str = "facts") -> Tiles:
        """Validate the contract's facts object; `FactsError` names the bad entry.

        Rejects unknown zones or labels, non-integer or negative counts, more than 15 tiles,
        and more tiles showing one side than the box holds (``SIMSALA_COUNTS``)."""
        zones = zone_counts(facts, SIMSALA_ZONES, SIMSALA_LABELS, path)
        tiles = cls(
            arena=tuple(zones["arena"].get(label, 0) for label in SIMSALA_LABELS),
            outside=tuple(zones["outside"].get(label, 0) for label in SIMSALA_LABELS),
        )
        tiles.check(path)
        return tiles

    @classmethod
    def of(cls, arena: Mapping[str, int] | None = None,
           outside: Mapping[str, int] | None = None) -> Tiles:
        """Convenience: ``Tiles.of({"rabbit-white": 2}, {"cat": 1})`` (validated)."""
        return cls.from_facts({"arena": dict(arena or {}), "outside": dict(outside or {})})

    def check(self, path: str = "facts") -> None:
        """Raise `FactsError` if the counts are impossible with one box of tiles."""
        for zone in SIMSALA_ZONES:
            counts = getattr(self, zone)
            if len(counts) != len(SIMSALA_LABELS) or any(
                isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in counts
            ):
                raise FactsError("expected a non-negative count per label", f"{path}.{zone}")
        if self.total > SIMSALA_TILES:
            raise FactsError(
                f"{self.total} tiles in all ({sum(self.arena)} in the arena, "
                f"{sum(self.outside)} outside), but the game has only {SIMSALA_TILES}", path)
        for label in SIMSALA_LABELS:
            seen, most = self.seen(label), SIMSALA_COUNTS[label]
            if seen > most:
                where = "arena" if self.in_arena(label) > most else (
                    "outside" if self.outside_count(label) > most else None)
                raise FactsError(
                    f"{seen} {label} tiles ({self.in_arena(label)} in the arena, "
                    f"{self.outside_count(label)} outside), but the game has only {most}",
                    f"{path}.{where}.{label}" if where else f"{path}.{label}")

    def in_arena(self, label: str) -> int:
        return self.arena[_INDEX[label]]

    def outside_count(self, label: str) -> int:
        return self.outside[_INDEX[label]]

    def seen(self, label: str) -> int:
        """Tiles showing ``label`` in either zone."""
        return self.in_arena(label) + self.outside_count(label)

    @property
    def total(self) -> int:
        return sum(self.arena) + sum(self.outside)

    @property
    def frogs_in_arena(self) -> int:
        return self.in_arena("frog")

    def flip_frog(self, result: str, path: str = "result") -> Tiles:
        """One frog in the arena turned over, showing ``result`` (a Lazy Spell).

        `RuleError` when no frog is visible; `FactsError` when ``result`` is not a back side
        or all tiles with that back are already visible."""
        if self.frogs_in_arena == 0:
            raise RuleError("no frog is visible in the arena, so no frog can be turned over")
        require_choice(result, _BACKS, path)
        if self.seen(result) >= SIMSALA_COUNTS[result]:
            raise FactsError(
                f"all {SIMSALA_COUNTS[result]} {result} tiles are already visible, "
                "so the frog cannot show another one", path)
        arena = list(self.arena)
        arena[_INDEX["frog"]] -= 1
        arena[_INDEX[result]] += 1
        return replace(self, arena=tuple(arena))

    def to_facts(self) -> dict[str, dict[str, int]]:
        """The contract's facts object (labels with a zero count are left out)."""
        return {
            zone: {lab: n for lab, n in zip(SIMSALA_LABELS, getattr(self, zone), strict=True) if n}
            for zone in SIMSALA_ZONES
        }


def facts_warnings(tiles: Tiles) -> list[str]:
    """Doubts about facts that are possible but suspicious (human-readable)."""
    warnings = []
    if tiles.total < SIMSALA_TILES:
        missing = SIMSALA_TILES - tiles.total
        warnings.append(
            f"only {tiles.total} of the {SIMSALA_TILES} tiles were seen ({missing} missing): "
            "a hidden or missed tile may change the points")
    if tiles.total and not sum(tiles.arena):
        warnings.append(f"all {tiles.total} tiles seen lie outside the arena, so nobody scores: "
                        "check that the arena was found")
    return warnings


def read_facts(facts: object) -> tuple[Tiles, list[str]]:
    """Validated :class:`Tiles` plus warnings from the contract's facts object."""
    tiles = Tiles.from_facts(facts)
    return tiles, facts_warnings(tiles)


# ---------------------------------------------------------------------------------------------
# Seating, options


def check_players(players: Iterable[str], what: str = "--players") -> tuple[str, ...]:
    """2-4 distinct known colours as a tuple; `OptionError` naming the bad entry."""
    out: list[str] = []
    for colour in players:
        if colour not in PLAYER_COLOURS:
            raise OptionError(f"{what}: unknown player colour {colour!r}; "
                              f"expected some of: {', '.join(PLAYER_COLOURS)}")
        if colour in out:
            raise OptionError(f"{what}: colour {colour!r} is given twice")
        out.append(colour)
    if not RULES.min_players <= len(out) <= RULES.max_players:
        raise OptionError(f"{what}: Simsala Hopp is played by {RULES.min_players} to "
                          f"{RULES.max_players} players, got {len(out)}")
    return tuple(out)


def check_level(level: object, what: str = "--level") -> int:
    """0, 1 or 2 (ints or their strings); `OptionError` otherwise."""
    if isinstance(level, str) and level.strip() in {str(n) for n in RULES.levels}:
        return int(level.strip())
    if isinstance(level, int) and not isinstance(level, bool) and level in RULES.levels:
        return level
    raise OptionError(f"{what}: expert level must be 0, 1 or 2, got {level!r}")


def left_neighbour(players: tuple[str, ...], colour: str) -> str:
    """The next player clockwise (players are listed in clockwise seating order)."""
    return players[(players.index(colour) + 1) % len(players)]


def lazy_spell_order(players: tuple[str, ...], magician: str) -> tuple[str, ...]:
    """The spectators in Lazy Spell order: clockwise, starting at the magician's left."""
    i = players.index(magician)
    return tuple(players[(i + k) % len(players)] for k in range(1, len(players)))


def lazy_spell_possible(tiles: Tiles) -> bool:
    """A Lazy Spell needs at least one frog visible in the arena."""
    return tiles.frogs_in_arena > 0


@dataclass(frozen=True)
class TurnSetup:
    """Who plays, who is the magician this turn, and the expert level (validated)."""

    players: tuple[str, ...]
    magician: str
    level: int = 0

    def __post_init__(self):
        object.__setattr__(self, "players", check_players(self.players))
        if self.magician not in self.players:
            raise OptionError(f"--magician: {self.magician!r} is not among the players "
                              f"({', '.join(self.players)})")
        object.__setattr__(self, "level", check_level(self.level))

    @property
    def spectators(self) -> tuple[str, ...]:
        """In Lazy Spell order (clockwise from the magician's left)."""
        return lazy_spell_order(self.players, self.magician)


def parse_options(options: Mapping[str, object]) -> TurnSetup:
    """The adapter's options -> :class:`TurnSetup`.

    ``magician`` is required (a colour). ``players`` is a comma-separated string (or a list)
    in clockwise order, default all four colours in the walls' order. ``level`` defaults to 0.
    """
    magician = options.get("magician")
    if magician is None or (isinstance(magician, str) and not magician.strip()):
        raise OptionError("--magician is required: the colour of this turn's magician "
                          f"({', '.join(PLAYER_COLOURS)})")
    if not isinstance(magician, str):
        raise OptionError(f"--magician: expected a colour, got {magician!r}")
    magician = magician.strip().lower()
    if magician not in PLAYER_COLOURS:
        raise OptionError(f"--magician: unknown colour {magician!r}; "
                          f"expected one of: {', '.join(PLAYER_COLOURS)}")
    raw = options.get("players")
    if raw is None:
        players = RULES.default_players
    elif isinstance(raw, str):
        players = tuple(p.strip().lower() for p in raw.split(","))
        if any(not p for p in players):
            raise OptionError(f"--players: empty entry in {raw!r}")
    elif isinstance(raw, (list, tuple)) and all(isinstance(p, str) for p in raw):
        players = tuple(p.strip().lower() for p in raw)
    else:
        raise OptionError(f"--players: expected comma-separated colours, got {raw!r}")
    level = options.get("level")
    return TurnSetup(
        players=check_players(players),
        magician=magician,
        level=RULES.default_level if level is None else check_level(level),
    )


# ---------------------------------------------------------------------------------------------
# One turn's points


@dataclass(frozen=True)
class PlayerScore:
    """One player's points this turn, with the counts behind them.

    ``white`` is counted for the magician only (0 for spectators); ``penalty`` (<= 0) is the
    level 1 cat rule, ``bonus`` (>= 0) the level 2 cat rule; ``points = white + own + penalty
    + bonus``. ``*_outside`` are rabbits that would have counted but lie outside the arena."""

    colour: str
    magician: bool
    white: int
    own: int
    penalty: int
    bonus: int
    points: int
    white_outside: int
    own_outside: int
    cats_in_arena: int
    cats_outside: int

    def to_json(self) -> dict:
        return {
            "role": "magician" if self.magician else "spectator",
            "white_rabbits": self.white,
            "own_rabbits": self.own,
            "cat_penalty": self.penalty,
            "cat_bonus": self.bonus,
            "points": self.points,
            "not_counted_outside": self.white_outside + self.own_outside,
        }


def magician_points(tiles: Tiles, colour: str, level: int = 0) -> int:
    """White + own-colour rabbits in the arena, - cats in the arena (level >= 1),
    + cats outside the arena (level 2). May be negative at levels 1 and 2."""
    return _player_score(tiles, colour, True, level).points


def spectator_points(tiles: Tiles, colour: str) -> int:
    """Rabbits of the spectator's own colour in the arena (0, 1 or 2)."""
    return tiles.in_arena(rabbit(colour))


def _player_score(tiles: Tiles, colour: str, is_magician: bool, level: int) -> PlayerScore:
    own = tiles.in_arena(rabbit(colour))
    white = tiles.in_arena("rabbit-white") if is_magician else 0
    cats_in, cats_out = tiles.in_arena("cat"), tiles.outside_count("cat")
    penalty = -cats_in if is_magician and level >= 1 else 0
    bonus = cats_out if is_magician and level >= 2 else 0
    return PlayerScore(
        colour=colour, magician=is_magician, white=white, own=own, penalty=penalty,
        bonus=bonus, points=white + own + penalty + bonus,
        white_outside=tiles.outside_count("rabbit-white") if is_magician else 0,
        own_outside=tiles.outside_count(rabbit(colour)),
        cats_in_arena=cats_in, cats_outside=cats_out,
    )


@dataclass(frozen=True)
class TurnScore:
    """Every player's score for one turn (``players`` in seating order)."""

    setup: TurnSetup
    tiles: Tiles
    players: tuple[PlayerScore, ...]

    @property
    def points(self) -> dict[str, int]:
        return {p.colour: p.points for p in self.players}

    def of(self, colour: str) -> PlayerScore:
        return next(p for p in self.players if p.colour == colour)

    def to_json(self) -> dict:
        """The contract's score object plus explanations."""
        return {
            "points": self.points,
            "magician": self.setup.magician,
            "players": list(self.setup.players),
            "level": self.setup.level,
            "breakdown": {p.colour: p.to_json() for p in self.players},
            "lazy_spell_possible": lazy_spell_possible(self.tiles),
            "lazy_spell_order": list(self.setup.spectators),
            "frogs_in_arena": self.tiles.frogs_in_arena,
            "tiles_seen": self.tiles.total,
            "explanation": explain(self),
        }


def score_turn(tiles: Tiles, setup: TurnSetup) -> TurnScore:
    """Step 7, "count points": every player's points for what is visible now."""
    return TurnScore(setup, tiles, tuple(
        _player_score(tiles, c, c == setup.magician, setup.level) for c in setup.players))


def move_bat(position: int, points: int) -> int:
    """A bat's new space after moving ``points`` (negative = back). A bat never goes below
    the start space 0: the walls have no space behind it, so a magician who must move back
    more spaces than their bat has gone forward stops on 0 (reading chosen for levels 1-2)."""
    return max(RULES.start_space, position + points)


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}" if n == 1 else f"{n} {thing}s"


def _player_line(p: PlayerScore, level: int) -> str:
    name = p.colour.capitalize() + (" (magician)" if p.magician else "")
    parts = []
    if p.magician and p.white:
        parts.append(_count(p.white, "white rabbit"))
    if p.own:
        parts.append(_count(p.own, f"{p.colour} rabbit"))
    if parts:
        line = f"{name} scores {p.points}: {' and '.join(parts)} in the arena"
    else:
        what = f"white or {p.colour}" if p.magician else p.colour
        line = f"{name} scores {p.points}: no {what} rabbit in the arena"
    if p.penalty:
        line += (f", minus {-p.penalty} for {_count(-p.penalty, 'cat')} in the arena "
                 f"(expert level {level})")
    if p.bonus:
        line += (f", plus {p.bonus} for {_count(p.bonus, 'cat')} tapped out of the arena "
                 f"(expert level {level})")
    lost = []
    if p.white_outside:
        lost.append(_count(p.white_outside, "white rabbit"))
    if p.own_outside:
        lost.append(_count(p.own_outside, f"{p.colour} rabbit"))
    if lost:
        verb = "does" if p.white_outside + p.own_outside == 1 else "do"
        line += f"; {' and '.join(lost)} outside the arena {verb} not count"
    if p.points < 0:
        line += f" (the bat moves back {-p.points}, never below the start space 0)"
    return line


def explain(turn: TurnScore) -> list[str]:
    """Human-readable lines: one per player (seating order), then notes."""
    setup, tiles = turn.setup, turn.tiles
    lines = [_player_line(p, setup.level) for p in turn.players]
    cats_in, cats_out = tiles.in_arena("cat"), tiles.outside_count("cat")
    if setup.level == 0 and cats_in + cats_out:
        lines.append("Cats give no points at level 0 (expert levels 1 and 2 count them).")
    elif setup.level == 1 and cats_out:
        lines.append("Cats outside the arena count only at expert level 2.")
    for colour in PLAYER_COLOURS:
        n = tiles.in_arena(rabbit(colour))
        if colour not in setup.players and n:
            lines.append(f"{_count(n, f'{colour} rabbit')} in the arena score for nobody "
                         f"({colour} is not playing).")
    if lazy_spell_possible(tiles):
        lines.append(f"Lazy Spell possible: {_count(tiles.frogs_in_arena, 'frog')} visible in "
                     f"the arena; order {', '.join(setup.spectators)}.")
    else:
        lines.append("Lazy Spell not possible: no frog is visible in the arena.")
    return lines


def check_settings(options: Mapping[str, object]) -> None:
    """`OptionError` for options `parse_options` refuses (``scoring.check_settings``)."""
    parse_options(options)


def score_facts(facts: dict, options: dict[str, str]) -> tuple[dict, list[str]]:
    """The facts adapter (see ``scoring/__init__.py``): ``(score, warnings)``.

    ``score["points"]`` holds every player's points this turn after the expert level."""
    setup = parse_options(options)
    tiles, warnings = read_facts(facts)
    return score_turn(tiles, setup).to_json(), warnings


# ---------------------------------------------------------------------------------------------
# Rounds and the tournament


def cups_to_win(n_players: int) -> int:
    """2 cups with 3-4 players, 3 cups with 2 players."""
    return RULES.cups_to_win_two_players if n_players == 2 else RULES.cups_to_win


def round_winners(bats: Mapping[str, int]) -> tuple[str, ...]:
    """Every player whose bat is furthest forward (ties: all of them), in ``bats`` order."""
    best = max(bats.values())
    return tuple(c for c, pos in bats.items() if pos == best)


def decision_tap_points(tiles: Tiles, colour: str) -> int:
    """Points of a Magic Decision Tap: white + own-colour rabbits visible in the arena."""
    return tiles.in_arena("rabbit-white") + tiles.in_arena(rabbit(colour))


PHASES = ("transform", "lazy_spell", "count", "decision_tap", "finished")


def _state_error(message: str, path: str) -> FactsError:
    return FactsError(message, f"state.{path}" if path else "state")


@dataclass(frozen=True)
class Tournament:
    """The whole tournament as an immutable state; every transition returns a new one.

    Phases and their transitions (anything else raises `RuleError`):

    - ``transform``: the magician taps; :meth:`simsala_stopp` records the tiles after
      "Simsala Stopp!" (contract facts) -> ``lazy_spell`` (or ``count`` if no frog is visible)
    - ``lazy_spell``: :meth:`lazy_spell` / :meth:`pass_lazy_spell` by ``current_spectator``;
      after the last spectator, or once no frog is visible -> ``count``
    - ``count``: :meth:`count_points` moves the bats -> next magician's ``transform``; after the
      round's last turn the round winners get cups, bats return to 0 and either the next round
      starts, the tournament is won (``finished``) or tied leaders go to ``decision_tap``
    - ``decision_tap``: :meth:`decision_tap` by ``current_tapper`` -> ``finished`` once one
      contender is ahead.

    ``bats`` and ``cups`` are aligned with ``players``; ``turn`` is the 0-based turn within
    the round; ``lazy_done`` counts spectators who had their Lazy Spell chance this turn;
    ``contenders``/``tapped`` describe the Magic Decision Tap; ``log`` is human-readable.
    Save with :meth:`to_json`, restore with :meth:`from_json` (validated).
    """

    players: tuple[str, ...]
    youngest: str
    level: int = 0
    bats: tuple[int, ...] = ()
    cups: tuple[int, ...] = ()
    round: int = 1
    turn: int = 0
    phase: str = "transform"
    tiles: Tiles = field(default_factory=Tiles)
    lazy_done: int = 0
    contenders: tuple[str, ...] = ()
    tapped: tuple[str, ...] = ()
    winner: str | None = None
    log: tuple[str, ...] = ()

    # -- construction and invariants ----------------------------------------------------------

    @classmethod
    def start(cls, players: Iterable[str], youngest: str, level: int | str = 0) -> Tournament:
        """A new tournament: bats on 0, no cups, the youngest player is the first magician.
        ``players`` in clockwise seating order. `OptionError` for a bad setup."""
        players = check_players(tuple(players), "players")
        if youngest not in players:
            raise OptionError(f"youngest: {youngest!r} is not among the players "
                              f"({', '.join(players)})")
        n = len(players)
        return cls(players=players, youngest=youngest, level=check_level(level, "level"),
                   bats=(0,) * n, cups=(0,) * n,
                   log=(f"Round 1 starts; {youngest} is the first magician.",))

    def __post_init__(self):
        self._check()

    def _check(self) -> None:
        """Invariants of a reachable state; `FactsError` (path ``state.*``) otherwise."""
        try:
            players = check_players(self.players, "players")
        except OptionError as exc:
            raise _state_error(exc.message, "players") from None
        n = len(players)
        if self.youngest not in players:
            raise _state_error(f"{self.youngest!r} is not among the players", "youngest")
        if self.level not in RULES.levels or isinstance(self.level, bool):
            raise _state_error(f"expert level must be 0, 1 or 2, got {self.level!r}", "level")
        for name in ("bats", "cups"):
            values = getattr(self, name)
            if len(values) != n or any(
                isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in values
            ):
                raise _state_error(f"expected {n} non-negative whole numbers", name)
        if self.phase not in PHASES:
            raise _state_error(f"unknown phase {self.phase!r}", "phase")
        _int_in(self.round, 1, None, "round")
        _int_in(self.turn, 0, n - 1, "turn")
        _int_in(self.lazy_done, 0, n - 1, "lazy_done")
        self.tiles.check("state.tiles")
        if self.lazy_done and self.phase != "lazy_spell" or self.lazy_done > max(0, n - 2):
            raise _state_error("Lazy Spell progress out of range", "lazy_done")
        target, top = cups_to_win(n), max(self.cups)
        playing = self.phase in ("transform", "lazy_spell", "count")
        if playing and top >= target:
            raise _state_error(f"someone already has {top} cups, the tournament is over",
                               "cups")
        if not playing and top < target:
            raise _state_error(f"nobody has {target} cups yet", "cups")
        if self.phase == "transform" and (self.tiles != Tiles() or self.lazy_done):
            raise _state_error("no tiles are recorded before Simsala Stopp", "tiles")
        if self.phase == "lazy_spell" and not lazy_spell_possible(self.tiles):
            raise _state_error("no frog is visible, so no Lazy Spell", "phase")
        if self.phase == "decision_tap":
            if len(self.contenders) < 2 or any(c not in players for c in self.contenders) or (
                len(set(self.contenders)) != len(self.contenders)
            ):
                raise _state_error("expected 2 or more distinct players", "contenders")
            if any(self.cups[players.index(c)] != top for c in self.contenders):
                raise _state_error("only players with the most cups tap", "contenders")
            if any(t not in self.contenders for t in self.tapped) or (
                tuple(self.tapped) != self.contenders[: len(self.tapped)]
                or len(self.tapped) == len(self.contenders)
            ):
                raise _state_error("taps must follow the contenders' order", "tapped")
        elif self.contenders or self.tapped:
            raise _state_error("only used during the Magic Decision Tap", "contenders")
        if (self.phase == "finished") != (self.winner is not None):
            raise _state_error("a winner is set exactly when the tournament is finished",
                               "winner")
        if self.winner is not None and self.cups[players.index(self.winner)] != top:
            raise _state_error("the winner must have the most cups", "winner")

    # -- derived views ------------------------------------------------------------------------

    @property
    def round_start(self) -> str:
        """First magician of this round: the youngest in round 1, then their left neighbour."""
        if self.round == 1:
            return self.youngest
        return left_neighbour(self.players, self.youngest)

    @property
    def magician(self) -> str | None:
        """This turn's magician (None during the Magic Decision Tap and when finished)."""
        if self.phase not in ("transform", "lazy_spell", "count"):
            return None
        i = self.players.index(self.round_start)
        return self.players[(i + self.turn) % len(self.players)]

    @property
    def setup(self) -> TurnSetup | None:
        m = self.magician
        return None if m is None else TurnSetup(self.players, m, self.level)

    @property
    def current_spectator(self) -> str | None:
        """Whose Lazy Spell it is (None outside the ``lazy_spell`` phase)."""
        if self.phase != "lazy_spell":
            return None
        return lazy_spell_order(self.players, self.magician)[self.lazy_done]

    @property
    def current_tapper(self) -> str | None:
        """Whose Magic Decision Tap it is (None outside the ``decision_tap`` phase)."""
        if self.phase != "decision_tap":
            return None
        return self.contenders[len(self.tapped)]

    @property
    def cups_to_win(self) -> int:
        return cups_to_win(len(self.players))

    def bat(self, colour: str) -> int:
        return self.bats[self.players.index(colour)]

    def cups_of(self, colour: str) -> int:
        return self.cups[self.players.index(colour)]

    def turn_score(self) -> TurnScore:
        """The points :meth:`count_points` would apply now (phases lazy_spell and count)."""
        if self.phase not in ("lazy_spell", "count"):
            raise RuleError(f"there are no points to count in phase {self.phase!r}")
        return score_turn(self.tiles, self.setup)

    def next_action(self) -> dict:
        """What the tournament waits for: ``{"action": name, "player": colour or None}``;
        action is ``simsala_stopp``, ``lazy_spell``, ``count_points``, ``decision_tap`` or
        None when finished."""
        action = {"transform": "simsala_stopp", "lazy_spell": "lazy_spell",
                  "count": "count_points", "decision_tap": "decision_tap",
                  "finished": None}[self.phase]
        player = {"transform": self.magician, "lazy_spell": self.current_spectator,
                  "decision_tap": self.current_tapper}.get(self.phase)
        return {"action": action, "player": player}

    # -- transitions --------------------------------------------------------------------------

    def _need(self, phase: str, what: str) -> None:
        if self.phase != phase:
            raise RuleError(f"cannot {what} now: the tournament is in phase {self.phase!r} "
                            f"(waiting for {self.next_action()['action']})")

    def simsala_stopp(self, facts: Mapping) -> Tournament:
        """Step 5: time is up; ``facts`` (contract shape) are the tiles as they now lie."""
        self._need("transform", "call Simsala Stopp")
        tiles = Tiles.from_facts(facts)
        phase = "lazy_spell" if lazy_spell_possible(tiles) else "count"
        note = "" if phase == "lazy_spell" else "; no frog visible, so no Lazy Spell"
        return replace(self, tiles=tiles, phase=phase, lazy_done=0,
                       log=self.log + (f"Simsala Stopp for {self.magician}{note}.",))

    def _check_spectator(self, spectator: str) -> None:
        self._need("lazy_spell", "use a Lazy Spell")
        if spectator == self.magician:
            raise RuleError(f"{spectator} is the magician and may not use a Lazy Spell")
        if spectator not in self.players:
            raise RuleError(f"{spectator!r} is not playing")
        if spectator != self.current_spectator:
            raise RuleError(f"it is {self.current_spectator}'s turn for the Lazy Spell, "
                            f"not {spectator}'s")

    def _after_lazy(self, tiles: Tiles, line: str) -> Tournament:
        done = self.lazy_done + 1
        over = done == len(self.players) - 1 or not lazy_spell_possible(tiles)
        return replace(self, tiles=tiles, lazy_done=0 if over else done,
                       phase="count" if over else "lazy_spell", log=self.log + (line,))

    def lazy_spell(self, spectator: str, result: str) -> Tournament:
        """Step 6: ``spectator`` turns one frog in the arena over; it shows ``result`` (a
        label other than ``frog``)."""
        self._check_spectator(spectator)
        tiles = self.tiles.flip_frog(result)
        return self._after_lazy(tiles, f"{spectator} uses a Lazy Spell: {result}.")

    def pass_lazy_spell(self, spectator: str) -> Tournament:
        """Step 6: ``spectator`` says "I pass!"."""
        self._check_spectator(spectator)
        return self._after_lazy(self.tiles, f"{spectator} passes.")

    def count_points(self) -> Tournament:
        """Step 7: move every bat by this turn's points (never below 0); then the next
        magician's turn, or the end of the round."""
        self._need("count", "count points")
        turn = score_turn(self.tiles, self.setup)
        bats = tuple(move_bat(self.bat(c), turn.of(c).points) for c in self.players)
        pts = ", ".join(f"{c} {turn.of(c).points:+d}" for c in self.players)
        state = replace(self, bats=bats, tiles=Tiles(), lazy_done=0, phase="transform",
                        log=self.log + (f"Round {self.round}, magician {self.magician}: {pts}.",))
        if self.turn + 1 < len(self.players):
            return replace(state, turn=self.turn + 1)
        return state._end_round()

    def _end_round(self) -> Tournament:
        winners = round_winners(dict(zip(self.players, self.bats, strict=True)))
        cups = tuple(k + (c in winners) for c, k in zip(self.players, self.cups, strict=True))
        log = self.log + (f"Round {self.round} won by {', '.join(winners)}; bats back to 0.",)
        n, top = len(self.players), max(cups)
        base = dict(bats=(0,) * n, cups=cups, turn=0, tiles=Tiles(), lazy_done=0)
        if top < cups_to_win(n):
            nxt = replace(self, **base, round=self.round + 1, phase="transform", log=log)
            return replace(nxt, log=log + (
                f"Round {nxt.round} starts; {nxt.round_start} is the first magician.",))
        leaders = tuple(c for c, k in zip(self.players, cups, strict=True) if k == top)
        if len(leaders) == 1:
            return replace(self, **base, phase="finished", winner=leaders[0],
                           log=log + (f"{leaders[0]} wins the tournament with {top} cups.",))
        i = self.players.index(self.youngest)
        order = tuple(self.players[(i + k) % n] for k in range(n))
        contenders = tuple(c for c in order if c in leaders)
        return replace(self, **base, phase="decision_tap", contenders=contenders, log=log + (
            f"Tie on {top} cups: Magic Decision Tap for {', '.join(contenders)}.",))

    def decision_tap(self, player: str, facts: Mapping | None = None,
                     foul: bool = False) -> Tournament:
        """One Magic Decision Tap by ``player`` (must be ``current_tapper``): ``facts`` are the
        tiles visible after the tap. ``foul=True``: the player tapped more than once and is
        eliminated (``facts`` ignored)."""
        self._need("decision_tap", "make a Magic Decision Tap")
        if player != self.current_tapper:
            raise RuleError(f"it is {self.current_tapper}'s Magic Decision Tap, not {player!r}'s")
        if foul:
            contenders = tuple(c for c in self.contenders if c != player)
            tapped, bats, tiles = self.tapped, self.bats, self.tiles
            line = f"{player} tapped more than once and is eliminated."
        else:
            if facts is None:
                raise FactsError("the tiles after the tap are required", "facts")
            tiles = Tiles.from_facts(facts)
            pts = decision_tap_points(tiles, player)
            i = self.players.index(player)
            bats = self.bats[:i] + (self.bats[i] + pts,) + self.bats[i + 1:]
            contenders, tapped = self.contenders, self.tapped + (player,)
            line = f"Magic Decision Tap: {player} +{pts}."
        log = self.log + (line,)
        if len(contenders) == 1:
            return self._won(contenders[0], bats, log)
        if len(tapped) < len(contenders):
            return replace(self, contenders=contenders, tapped=tapped, bats=bats,
                           tiles=tiles, log=log)
        best = max(bats[self.players.index(c)] for c in contenders)
        ahead = tuple(c for c in contenders if bats[self.players.index(c)] == best)
        if len(ahead) == 1:
            return self._won(ahead[0], bats, log)
        return replace(self, contenders=ahead, tapped=(), bats=bats, tiles=tiles,
                       log=log + (f"Still tied: {', '.join(ahead)} tap again.",))

    def _won(self, winner: str, bats: tuple[int, ...], log: tuple[str, ...]) -> Tournament:
        return replace(self, phase="finished", winner=winner, contenders=(), tapped=(),
                       bats=bats, tiles=Tiles(),
                       log=log + (f"{winner} wins the Magic Decision Tap and the tournament.",))

    def play_turn(self, facts: Mapping,
                  lazy: Mapping[str, str | None] | None = None) -> Tournament:
        """Steps 5-7 at once: Simsala Stopp with ``facts``, then each spectator's Lazy Spell
        in order (``lazy[colour]`` = the label the turned frog shows; absent or None = pass),
        then count points. `RuleError` if a listed Lazy Spell is not possible any more."""
        lazy = dict(lazy or {})
        for colour in lazy:
            if colour not in self.players:
                raise RuleError(f"{colour!r} is not playing")
        state = self.simsala_stopp(facts)
        used = set()
        while state.phase == "lazy_spell":
            who = state.current_spectator
            used.add(who)
            result = lazy.get(who)
            state = state.pass_lazy_spell(who) if result is None else state.lazy_spell(who,
                                                                                       result)
        for colour, result in lazy.items():
            if result is not None and colour not in used:
                if colour == self.magician:
                    raise RuleError(f"{colour} is the magician and may not use a Lazy Spell")
                raise RuleError(f"{colour} cannot use a Lazy Spell: no frog was visible any more")
        return state.count_points()

    def apply(self, action: Mapping) -> Tournament:
        """One transition from a JSON action (for the web page):
        ``{"action": "simsala_stopp", "facts": {...}}``,
        ``{"action": "lazy_spell", "player": c, "result": label}``,
        ``{"action": "pass", "player": c}``, ``{"action": "count_points"}``,
        ``{"action": "decision_tap", "player": c, "facts": {...}, "foul": false}``."""
        action = require_mapping(action, "action")
        name = require_choice(action.get("action"), (
            "simsala_stopp", "lazy_spell", "pass", "count_points", "decision_tap"),
            "action.action")
        if name == "simsala_stopp":
            return self.simsala_stopp(action.get("facts", {}))
        if name == "count_points":
            return self.count_points()
        player = action.get("player")
        if not isinstance(player, str):
            raise FactsError("expected a player colour", "action.player")
        if name == "lazy_spell":
            return self.lazy_spell(player, action.get("result"))
        if name == "pass":
            return self.pass_lazy_spell(player)
        foul = action.get("foul", False)
        if not isinstance(foul, bool):
            raise FactsError("expected true or false", "action.foul")
        return self.decision_tap(player, action.get("facts"), foul=foul)

    # -- JSON ---------------------------------------------------------------------------------

    def to_json(self) -> dict:
        """A JSON-ready dict. ``magician``, ``next`` and ``cups_to_win`` are informational
        (recomputed, ignored by :meth:`from_json`)."""
        return {
            "game": GAME,
            "version": 1,
            "players": list(self.players),
            "youngest": self.youngest,
            "level": self.level,
            "bats": dict(zip(self.players, self.bats, strict=True)),
            "cups": dict(zip(self.players, self.cups, strict=True)),
            "round": self.round,
            "turn": self.turn,
            "phase": self.phase,
            "tiles": self.tiles.to_facts(),
            "lazy_done": self.lazy_done,
            "contenders": list(self.contenders),
            "tapped": list(self.tapped),
            "winner": self.winner,
            "log": list(self.log),
            "magician": self.magician,
            "next": self.next_action(),
            "cups_to_win": self.cups_to_win,
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)

    @classmethod
    def from_json(cls, obj: object) -> Tournament:
        """Restore a state saved by :meth:`to_json` (a dict or a JSON string); checks every
        field and invariant, raising `FactsError` naming the entry (``state.bats`` ...)."""
        if isinstance(obj, (str, bytes)):
            try:
                obj = json.loads(obj)
            except json.JSONDecodeError as exc:
                raise FactsError(f"not valid JSON: {exc}", "state") from None
        d = require_mapping(obj, "state")
        known = {"game", "version", "players", "youngest", "level", "bats", "cups", "round",
                 "turn", "phase", "tiles", "lazy_done", "contenders", "tapped", "winner", "log",
                 "magician", "next", "cups_to_win"}
        for key in d:
            if key not in known:
                raise _state_error(f"unknown key {key!r}", "")
        if d.get("game") != GAME:
            raise _state_error(f"expected {GAME!r}, got {d.get('game')!r}", "game")
        if d.get("version") != 1:
            raise _state_error(f"unsupported version {d.get('version')!r}", "version")
        players = require_list(d.get("players"), "state.players")
        if not all(isinstance(p, str) for p in players):
            raise _state_error("expected colour names", "players")
        players = tuple(players)

        def per_player(name: str) -> tuple[int, ...]:
            m = require_mapping(d.get(name), f"state.{name}")
            if set(m) != set(players):
                raise _state_error("expected one entry per player", name)
            return tuple(require_int(m[p], f"state.{name}.{p}", lo=0) for p in players)

        def colours(name: str) -> tuple[str, ...]:
            items = require_list(d.get(name, []), f"state.{name}")
            return tuple(require_choice(c, players, f"state.{name}") for c in items)

        log = require_list(d.get("log", []), "state.log")
        if not all(isinstance(line, str) for line in log):
            raise _state_error("expected text lines", "log")
        winner = d.get("winner")
        if winner is not None:
            require_choice(winner, players, "state.winner")
        try:
            check_players(players, "players")
        except OptionError as exc:
            raise _state_error(exc.message, "players") from None
        return cls(
            players=players,
            youngest=require_choice(d.get("youngest"), players, "state.youngest"),
            level=require_int(d.get("level"), "state.level", 0, 2),
            bats=per_player("bats"),
            cups=per_player("cups"),
            round=require_int(d.get("round"), "state.round", lo=1),
            turn=require_int(d.get("turn"), "state.turn", lo=0),
            phase=require_choice(d.get("phase"), PHASES, "state.phase"),
            tiles=Tiles.from_facts(d.get("tiles", {}), "state.tiles"),
            lazy_done=require_int(d.get("lazy_done", 0), "state.lazy_done", lo=0),
            contenders=colours("contenders"),
            tapped=colours("tapped"),
            winner=winner,
            log=tuple(log),
        )


def _int_in(value: object, lo: int, hi: int | None, path: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < lo or (
        hi is not None and value > hi
    ):
        span = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise _state_error(f"expected a whole number {span}, got {value!r}", path)
