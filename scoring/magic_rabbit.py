"""Magic Rabbit: the rule engine and the facts adapter (rulebook: shared/rules/magic-rabbit.txt).

The line of piles is read from the magician tile outward: position 0 is the pile next to the
magician tile. Each pile is a hat tile, the rabbit tile under it and maybe a dove on top.

The players win when the hats are in ascending order from the magician tile and every rabbit
lies under the hat with its own number. In the full game the line holds hats 1..9. For young
children the rulebook removes 2 or 3 rabbits "and their corresponding hats" without saying
which numbers, so a line of 7 or 6 piles may hold any 7 or 6 distinct numbers from 1..9 and
must then read in ascending order of the numbers present (``numbers_for`` gives the usual
choice, 1..7 or 1..6).

Everything here is pure: small frozen dataclasses and functions without side effects. Nothing
reads a clock; the hourglass takes ``now`` (seconds, any monotonic origin) as an argument.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from scoring.facts import require_bool, require_int, require_list, require_mapping
from tablescore.errors import FactsError, OptionError, RuleError

# --- rules as data -----------------------------------------------------------------------

HIGHEST_NUMBER = 9  # hats and rabbits are numbered 1..9
FULL_TILES = 9  # the full game uses all nine hats and rabbits
YOUNG_TILES = (7, 6)  # "remove 2 or 3 Rabbits (and their corresponding Hats)"
LINE_LENGTHS = (FULL_TILES,) + YOUNG_TILES
# "Number of Doves": players -> doves placed on the hats at setup.
DOVES_BY_PLAYERS: dict[int, int] = {4: 2, 3: 3, 2: 4, 1: 5}
MAX_DOVES = max(DOVES_BY_PLAYERS.values())
HOURGLASS_SECONDS = 150.0  # "2m 30s"

ACTIONS = ("lift", "switch-hats", "switch-piles")
# How many piles each action names.
ACTION_ARITY = {"lift": 1, "switch-hats": 2, "switch-piles": 2}


def dove_count(players: int) -> int:
    """Doves placed at setup for 1-4 players (4:2, 3:3, 2:4, 1:5); `RuleError` otherwise."""
    if type(players) is not int or players not in DOVES_BY_PLAYERS:
        raise RuleError(f"Magic Rabbit is played by 1 to 4 players, not {players!r}")
    return DOVES_BY_PLAYERS[players]


def numbers_for(tiles: int = FULL_TILES) -> tuple[int, ...]:
    """The numbers in play for a line of `tiles` piles: 9 -> 1..9; young children's game
    7 -> 1..7, 6 -> 1..6 (the rulebook leaves the choice open; removing the highest numbers is
    this project's convention, and the win check accepts any set). `RuleError` for other
    sizes."""
    if tiles not in LINE_LENGTHS:
        raise RuleError(
            f"a Magic Rabbit line has 9 piles (or 7 or 6 for young children), not {tiles}"
        )
    return tuple(range(1, tiles + 1))


# --- the line ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Pile:
    """One pile: `hat` 1-9, `rabbit` 1-9 or None when it was not seen, `dove` on top or not."""

    hat: int
    rabbit: int | None
    dove: bool = False


Line = tuple[Pile, ...]  # position 0 is next to the magician tile


def winning_line(numbers: Sequence[int] | None = None) -> Line:
    """The winning line for these numbers (default 1..9): ascending hats, matching rabbits,
    no doves."""
    nums = sorted(numbers) if numbers is not None else list(numbers_for(FULL_TILES))
    return tuple(Pile(hat=n, rabbit=n) for n in nums)


def ordinal(n: int) -> str:
    """1 -> '1st', 2 -> '2nd', 11 -> '11th'."""
    if 10 <= n % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def where(position: int) -> str:
    """'position 3 (4th pile from the magician)': the JSON's 0-based index and a count a
    parent can follow on the table."""
    return f"position {position} ({ordinal(position + 1)} pile from the magician)"


@dataclass(frozen=True)
class Problem:
    """Why one position is not right. `kind`: 'hat' (wrong hat there), 'rabbit' (the rabbit
    does not match its hat) or 'unseen' (the rabbit was not seen, so it cannot be checked)."""

    position: int
    kind: str
    message: str


@dataclass(frozen=True)
class Verdict:
    """The result of checking a line.

    `won`: True only when every position is right and every rabbit was seen.
    `wrong_positions`: sorted 0-based indices known to be wrong (hat or rabbit).
    `unseen_positions`: sorted indices whose rabbit was not seen (not counted as wrong).
    `problems`: every reason, in position order (a position can have a hat and a rabbit
    problem)."""

    won: bool
    wrong_positions: tuple[int, ...]
    unseen_positions: tuple[int, ...] = ()
    problems: tuple[Problem, ...] = field(default_factory=tuple)

    @property
    def reasons(self) -> list[str]:
        return [p.message for p in self.problems]


def check_line(line: Sequence[Pile]) -> Verdict:
    """Check a line against the win condition: hats ascending from the magician tile (the
    k-th pile holds the k-th smallest number in the line, so 1..n for a 1..n line), and each
    rabbit equal to the hat above it. The line is assumed valid (see `validate_line`)."""
    expected = sorted(p.hat for p in line)
    problems: list[Problem] = []
    wrong: list[int] = []
    unseen: list[int] = []
    for i, (pile, want) in enumerate(zip(line, expected, strict=True)):
        bad = False
        if pile.hat != want:
            bad = True
            problems.append(Problem(i, "hat", f"{where(i)}: hat {pile.hat} should be hat {want}"))
        if pile.rabbit is None:
            unseen.append(i)
            problems.append(
                Problem(i, "unseen", f"{where(i)}: the rabbit under hat {pile.hat} was not seen")
            )
        elif pile.rabbit != pile.hat:
            bad = True
            problems.append(
                Problem(
                    i,
                    "rabbit",
                    f"{where(i)}: rabbit {pile.rabbit} is under hat {pile.hat} "
                    f"(it belongs under hat {pile.rabbit})",
                )
            )
        if bad:
            wrong.append(i)
    return Verdict(
        won=not wrong and not unseen,
        wrong_positions=tuple(wrong),
        unseen_positions=tuple(unseen),
        problems=tuple(problems),
    )


def validate_line(line: Sequence[Pile], path: str = "line") -> Line:
    """Raise `FactsError` (naming ``path[i].hat`` etc.) unless the line is one the game can
    produce: 9, 7 or 6 piles; hats and rabbits whole numbers 1-9, each number at most once;
    every rabbit's hat in the line (a removed rabbit goes with its hat); at most 5 doves."""
    if len(line) not in LINE_LENGTHS:
        raise FactsError(
            f"a Magic Rabbit line has 9 piles (or 7 or 6 for young children), got {len(line)}",
            path,
        )
    hats: dict[int, int] = {}
    rabbits: dict[int, int] = {}
    doves = 0
    for i, pile in enumerate(line):
        here = f"{path}[{i}]"
        require_int(pile.hat, f"{here}.hat", lo=1, hi=HIGHEST_NUMBER)
        if pile.hat in hats:
            raise FactsError(
                f"hat {pile.hat} appears twice (also at {path}[{hats[pile.hat]}]); "
                "there is only one hat of each number",
                f"{here}.hat",
            )
        hats[pile.hat] = i
        if pile.rabbit is not None:
            require_int(pile.rabbit, f"{here}.rabbit", lo=1, hi=HIGHEST_NUMBER)
            if pile.rabbit in rabbits:
                raise FactsError(
                    f"rabbit {pile.rabbit} appears twice (also at {path}[{rabbits[pile.rabbit]}]);"
                    " there is only one rabbit of each number",
                    f"{here}.rabbit",
                )
            rabbits[pile.rabbit] = i
        require_bool(pile.dove, f"{here}.dove")
        doves += pile.dove
        if doves > MAX_DOVES:
            raise FactsError(f"more than {MAX_DOVES} doves; the game has only 5", f"{here}.dove")
    for rabbit, i in rabbits.items():
        if rabbit not in hats:
            raise FactsError(
                f"rabbit {rabbit} is in the line but hat {rabbit} is not; "
                "a rabbit is only removed together with its hat",
                f"{path}[{i}].rabbit",
            )
    return tuple(line)


# --- actions -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Action:
    """A turn's main action: `kind` one of ACTIONS; `positions` the 0-based piles it touches
    (one for 'lift', two different ones for the switches)."""

    kind: str
    positions: tuple[int, ...]


@dataclass(frozen=True)
class Legality:
    """`ok` True when allowed; otherwise `reason` says why in plain words."""

    ok: bool
    reason: str | None = None


def check_action(line: Sequence[Pile], action: Action) -> Legality:
    """Is this action allowed on this line? Never on a pile with a dove; lift names one pile,
    a switch two different piles (side by side or not)."""
    if action.kind not in ACTIONS:
        return Legality(False, f"unknown action {action.kind!r}; one of: {', '.join(ACTIONS)}")
    need = ACTION_ARITY[action.kind]
    if len(action.positions) != need:
        piles = "one pile" if need == 1 else "two piles"
        return Legality(False, f"{action.kind} takes {piles}, got {len(action.positions)}")
    for pos in action.positions:
        if isinstance(pos, bool) or not isinstance(pos, int) or not 0 <= pos < len(line):
            return Legality(
                False, f"there is no position {pos!r}; the line has positions 0-{len(line) - 1}"
            )
    if need == 2 and action.positions[0] == action.positions[1]:
        return Legality(False, f"{action.kind} needs two different piles")
    for pos in action.positions:
        if line[pos].dove:
            return Legality(False, f"{where(pos)} has a dove on it; it cannot be touched")
    return Legality(True)


def apply_action(line: Sequence[Pile], action: Action) -> Line:
    """The line after the action (`RuleError` with the reason when it is illegal). Lifting
    only looks, so the line is unchanged; switching hats leaves the rabbits where they were;
    switching piles moves hats with their rabbits (doves are never involved)."""
    verdict = check_action(line, action)
    if not verdict.ok:
        raise RuleError(verdict.reason or "illegal action")
    out = list(line)
    if action.kind == "switch-hats":
        i, j = action.positions
        out[i] = replace(line[i], hat=line[j].hat)
        out[j] = replace(line[j], hat=line[i].hat)
    elif action.kind == "switch-piles":
        i, j = action.positions
        out[i], out[j] = line[j], line[i]
    return tuple(out)


def move_dove(line: Sequence[Pile], source: int, target: int) -> Line:
    """End of turn: move the dove from pile `source` onto the hat of pile `target` (one
    without a dove). `RuleError` when there is no dove to move or nowhere to put it."""
    n = len(line)
    for pos in (source, target):
        if isinstance(pos, bool) or not isinstance(pos, int) or not 0 <= pos < n:
            raise RuleError(f"there is no position {pos!r}; the line has positions 0-{n - 1}")
    if not line[source].dove:
        raise RuleError(f"{where(source)} has no dove to move")
    if line[target].dove:
        raise RuleError(f"{where(target)} already has a dove")
    out = list(line)
    out[source] = replace(line[source], dove=False)
    out[target] = replace(line[target], dove=True)
    return tuple(out)


# --- the hourglass -----------------------------------------------------------------------


@dataclass(frozen=True)
class Hourglass:
    """The 2 min 30 s hourglass, turned at `started_at` (seconds on any clock the caller
    uses). Before the start it shows the full time; it never goes below zero."""

    started_at: float
    duration_s: float = HOURGLASS_SECONDS

    def remaining(self, now: float) -> float:
        """Seconds of sand left at `now`, between 0 and `duration_s`."""
        return min(self.duration_s, max(0.0, self.started_at + self.duration_s - now))

    def expired(self, now: float) -> bool:
        """True once the sand has run out: the game is over, reveal the rabbits."""
        return now >= self.started_at + self.duration_s


# --- facts adapter -----------------------------------------------------------------------

OPTIONS: dict[str, str] = {
    "players": "Magic Rabbit: number of players 1-4 (checks the doves: 4p 2, 3p 3, 2p 4, 1p 5)",
}

PILE_KEYS = ("hat", "rabbit", "dove")
FACT_KEYS = ("line", "won")


def parse_players(value: str) -> int:
    """The --players option as a count 1-4; `OptionError` otherwise."""
    text = str(value).strip()
    if not text.isdigit() or int(text) not in DOVES_BY_PLAYERS:
        raise OptionError(f"--players for magic-rabbit is a number of players 1-4, got {value!r}")
    return int(text)


def check_settings(options: Mapping[str, str]) -> None:
    """`OptionError` for a --players that is no count 1-4 (``scoring.check_settings``)."""
    if "players" in options:
        parse_players(options["players"])


def line_from_facts(obj: object, path: str = "facts.line") -> Line:
    """Parse and validate the contract's ``line`` list into piles (`FactsError` naming the
    entry, e.g. ``facts.line[3].hat``)."""
    raw = require_list(obj, path)
    piles = []
    for i, entry in enumerate(raw):
        here = f"{path}[{i}]"
        pile = require_mapping(entry, here)
        for key in pile:
            if key not in PILE_KEYS:
                raise FactsError(f"unknown key {key!r}; a pile has: hat, rabbit, dove", here)
        for key in ("hat", "rabbit"):
            if key not in pile:
                raise FactsError(f"missing {key!r} (use null for a rabbit not seen)", here)
        hat = require_int(pile["hat"], f"{here}.hat", lo=1, hi=HIGHEST_NUMBER)
        rabbit = pile["rabbit"]
        if rabbit is not None:
            rabbit = require_int(rabbit, f"{here}.rabbit", lo=1, hi=HIGHEST_NUMBER)
        dove = require_bool(pile.get("dove", False), f"{here}.dove")
        piles.append(Pile(hat=hat, rabbit=rabbit, dove=dove))
    return validate_line(piles, path)


def line_to_facts(line: Sequence[Pile], won: bool | None = None) -> dict:
    """The contract's facts object for a line (``won`` defaults to the computed verdict)."""
    if won is None:
        won = check_line(line).won
    return {
        "line": [{"hat": p.hat, "rabbit": p.rabbit, "dove": p.dove} for p in line],
        "won": won,
    }


def label_number(label: str) -> int:
    """The number of a hat or rabbit tile's label (`hat-3`, `rabbit-7` -> 3, 7): one reading
    for the photo (`vision.cards.lineup`) and the page (`webapp.edit`)."""
    return int(label.rsplit("-", 1)[1])


def inversions(line: list[dict]) -> int:
    """Pairs out of ascending order along a line of piles ({"hat", "rabbit"}), its hats and
    its rabbits counted alike (a rabbit not seen: left out). Players sort the line from the
    magician tile, so at the reveal it mostly ascends from there."""
    n = 0
    for key in ("hat", "rabbit"):
        seq = [p[key] for p in line if p[key] is not None]
        n += sum(1 for i in range(len(seq)) for j in range(i + 1, len(seq)) if seq[i] > seq[j])
    return n


def score_facts(facts: Mapping, options: Mapping[str, str]) -> tuple[dict, list[str]]:
    """Score the contract's facts ``{"line": [{"hat", "rabbit", "dove"}, ...], "won"}``.

    Returns ``(score, warnings)``; score = ``{"won": bool, "wrong_positions": [int],
    "unseen_positions": [int], "reasons": [str], "tiles": n, "doves": n}``. The verdict is
    always computed from the line: when ``facts["won"]`` disagrees, the computed one wins and a
    warning says so. Options: ``players`` (1-4) to check the number of doves."""
    facts = require_mapping(facts, "facts")
    warnings: list[str] = []
    extra = [k for k in facts if k not in FACT_KEYS]
    if extra:
        warnings.append(f"ignored unknown facts keys: {', '.join(map(str, extra))}")
    if "line" not in facts:
        raise FactsError("missing 'line' (the piles from the magician tile outward)", "facts")
    line = line_from_facts(facts["line"], "facts.line")
    claimed = facts.get("won")
    if claimed is not None:
        require_bool(claimed, "facts.won")

    verdict = check_line(line)
    doves = sum(p.dove for p in line)
    score = {
        "won": verdict.won,
        "wrong_positions": list(verdict.wrong_positions),
        "unseen_positions": list(verdict.unseen_positions),
        "reasons": verdict.reasons,
        "tiles": len(line),
        "doves": doves,
    }

    if claimed is not None and claimed != verdict.won:
        if verdict.won:
            why = "every hat and rabbit is in place"
        elif verdict.wrong_positions:
            why = f"{len(verdict.wrong_positions)} position(s) are wrong"
        else:
            why = "some rabbits were not seen"
        warnings.append(
            f"facts say won={str(claimed).lower()} but the line says "
            f"won={str(verdict.won).lower()} ({why}); the score follows the line"
        )
    if verdict.unseen_positions:
        listed = ", ".join(str(i) for i in verdict.unseen_positions)
        warnings.append(f"rabbits not seen at positions {listed}: the win cannot be confirmed")
    if "players" in options:
        players = parse_players(options["players"])
        want = dove_count(players)
        if doves and doves != want:
            warnings.append(
                f"{doves} dove(s) on the line, but {players} player(s) play with {want}"
            )
    return score, warnings
