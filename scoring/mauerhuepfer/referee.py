"""Mauerhuepfer referee: positions, legal moves and checking a claimed move (pure functions).

Rules (shared/rules/mauerhuepfer.txt) as implemented here:

- Both dice move the same pawn, one die after the other (either die first). Each die is a
  *leg*: a run of exactly that many fields in one direction (forward = along the board's
  field list, backward = against it), or a wall jump.
- A pawn in its start area B enters with either die onto its start field A, which counts as
  the first field; the rest of that die runs on in a direction of the player's choice.
- A wall jump uses a die equal to the number on the wall piece beside the field the pawn
  stands on (at the start or after the first leg) and puts it on the field across the wall.
- Occupied fields are counted and passed. Only one pawn per field.
- Beating: a pawn on the final field is beaten (sent back to B). A pawn on the intermediate
  stop (after the first leg) is beaten unless both legs are one run in the same direction, i.e.
  when the pawn changes direction there, or a wall jump is one of the legs, or it entered with
  a 1 (the stop is A and the second leg starts from there). Own pawns are never beaten: such a
  move is illegal.
- A move whose final field is a goal field Z takes the pawn home (goal area, filled from d).
  Passing or stopping on Z between the legs does not.
- When a colour has all four pawns home, the game is over: no more moves.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from scoring.facts import require_int, require_list, require_mapping
from scoring.labels import PAWN_COLOURS, PAWNS_PER_COLOUR
from scoring.mauerhuepfer.board import GOAL, GOAL_SLOTS, START, Board
from tablescore.errors import FactsError

FORWARD, BACKWARD = "forward", "backward"
_DIR = {1: FORWARD, -1: BACKWARD}


def label(colour: str) -> str:
    return f"pawn-{colour}"


def is_home(place: str) -> bool:
    return place == GOAL or place in GOAL_SLOTS


# --- position -------------------------------------------------------------------------
@dataclass(frozen=True)
class Position:
    """Where every pawn is: ``pawns[i] = (colour, place)``, place being "B" (start area),
    a track field id, or a goal id ("a"-"d", or "goal" when the slot is not known).
    `turn` (whose turn it is) and `dice` are optional extras of a position file."""

    pawns: tuple[tuple[str, str], ...]
    turn: str | None = None
    dice: tuple[int, int] | None = None

    def places(self, colour: str) -> list[str]:
        return [p for c, p in self.pawns if c == colour]

    def occupancy(self) -> dict[str, str]:
        """track field id -> colour of the pawn on it (positions are validated: one each)."""
        return {p: c for c, p in self.pawns if p != START and not is_home(p)}

    def home(self, colour: str) -> int:
        return sum(1 for p in self.places(colour) if is_home(p))

    def winner(self) -> str | None:
        done = [c for c in PAWN_COLOURS if self.home(c) >= PAWNS_PER_COLOUR]
        return done[0] if len(done) == 1 else None

    def game_over(self) -> bool:
        return any(self.home(c) >= PAWNS_PER_COLOUR for c in PAWN_COLOURS)

    def to_dict(self) -> dict:
        out: dict = {"positions": {label(c): self.places(c) for c in PAWN_COLOURS
                                   if self.places(c)}}
        if self.turn:
            out["turn"] = self.turn
        if self.dice:
            out["dice"] = list(self.dice)
        return out


def parse_dice(obj: object, path: str = "dice") -> tuple[int, int]:
    dice = require_list(obj, path)
    if len(dice) != 2:
        raise FactsError(f"expected the two dice [a, b], got {len(dice)} values", path)
    return tuple(require_int(v, f"{path}[{i}]", 1, 6) for i, v in enumerate(dice))  # type: ignore


def parse_position(obj: object, board: Board, where: str = "position",
                   strict: bool = True) -> tuple[Position, list[str]]:
    """Validate a position (the facts' ``positions`` object, optionally with ``turn`` and
    ``dice``): ``{"turn": "red", "dice": [2, 5], "positions": {"pawn-red": ["B", "12", "d"]}}``.

    Unknown labels or field ids raise `FactsError`. Things the rules make impossible (two pawns
    on one field, more than 4 pawns of a colour, two pawns in one goal slot) raise too when
    `strict`, else they are returned as warnings. Returns (position, warnings)."""
    d = require_mapping(obj, where)
    for key in d:
        if key not in ("positions", "turn", "dice", "pawns"):
            raise FactsError("unknown entry; a position has positions, turn, dice",
                             f"{where}.{key}")
    warnings: list[str] = []

    def doubt(msg: str, path: str) -> None:
        if strict:
            raise FactsError(msg, path)
        warnings.append(f"{path}: {msg}")

    turn = d.get("turn")
    if turn is not None and turn not in PAWN_COLOURS:
        raise FactsError(f"unknown colour {turn!r}; expected one of: {', '.join(PAWN_COLOURS)}",
                         f"{where}.turn")
    dice = parse_dice(d["dice"], f"{where}.dice") if d.get("dice") is not None else None
    raw = require_mapping(d.get("positions", {}), f"{where}.positions")
    pawns: list[tuple[str, str]] = []
    seen: dict[str, str] = {}
    for lab, places in raw.items():
        lp = f"{where}.positions.{lab}"
        if lab not in [label(c) for c in PAWN_COLOURS]:
            raise FactsError(f"unknown label; expected one of: "
                             f"{', '.join(label(c) for c in PAWN_COLOURS)}", lp)
        colour = lab[len("pawn-"):]
        places = require_list(places, lp)
        if len(places) > PAWNS_PER_COLOUR:
            doubt(f"{len(places)} pawns, but each colour has only {PAWNS_PER_COLOUR}", lp)
        slots_used: set[str] = set()
        for i, p in enumerate(places):
            pp = f"{lp}[{i}]"
            if isinstance(p, bool) or not isinstance(p, str | int):
                raise FactsError(f"expected a field id, 'B' or a goal slot, got {p!r}", pp)
            p = str(p)
            if p == START:
                if board.area(colour) is None:
                    raise FactsError(f"this board has no start area for {colour}", pp)
            elif p in GOAL_SLOTS:
                if p in slots_used:
                    doubt(f"two {colour} pawns in goal slot {p!r}", pp)
                slots_used.add(p)
            elif p != GOAL:
                if not board.has_field(p):
                    raise FactsError(
                        f"no field {p!r} on board {board.name!r} (use a field id, 'B' for the "
                        f"start area, 'a'-'d' or 'goal' for the goal area)", pp)
                if p in seen:
                    doubt(f"field {p} holds two pawns ({seen[p]} and {colour}); only one pawn "
                          f"fits on a field", pp)
                seen[p] = colour
            pawns.append((colour, p))
    return Position(tuple(pawns), turn, dice), warnings


# --- moves ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Leg:
    """One die carried out: kind "enter" (from B onto A, then on), "step" (a run) or "jump"
    (over a wall). `path` lists every field passed, the last being where the leg ends."""

    die: int
    kind: str
    direction: str | None  # "forward", "backward", or None (jump; enter with a 1)
    path: tuple[str, ...]
    wall: int | str | None = None

    @property
    def to(self) -> str:
        return self.path[-1]

    def to_dict(self) -> dict:
        out = {"die": self.die, "kind": self.kind, "direction": self.direction,
               "path": list(self.path), "to": self.to}
        if self.wall is not None:
            out["wall"] = self.wall
        return out

    def text(self) -> str:
        if self.kind == "jump":
            return f"jump over wall {self.wall} with the {self.die} to field {self.to}"
        if self.kind == "enter":
            more = f", then {self.die - 1} {self.direction} to field {self.to}" if self.die > 1 \
                else ""
            return f"enter with the {self.die} on start field A ({self.path[0]}){more}"
        return f"move {self.die} {self.direction} to field {self.to}"


@dataclass(frozen=True)
class Move:
    """A whole turn for one pawn: `start` ("B" or a field id), two legs, the pawns it beats
    ((label, field) pairs) and whether it ends on a goal field (the pawn goes home)."""

    colour: str
    start: str
    legs: tuple[Leg, Leg]
    beaten: tuple[tuple[str, str], ...] = ()
    home: bool = False

    @property
    def to(self) -> str:
        return self.legs[-1].to

    def key(self) -> tuple:
        return (self.start, tuple((g.die, g.kind, g.direction, g.to) for g in self.legs))

    def to_dict(self) -> dict:
        return {
            "pawn": label(self.colour),
            "from": self.start,
            "to": self.to,
            "home": self.home,
            "beats": [{"label": lab, "field": f} for lab, f in self.beaten],
            "legs": [g.to_dict() for g in self.legs],
            "text": self.text(),
        }

    def text(self) -> str:
        where = "from the start area B" if self.start == START else f"on field {self.start}"
        parts = [f"{self.colour} pawn {where}: " + "; ".join(g.text() for g in self.legs)]
        for lab, f in self.beaten:
            parts.append(f"beats the {lab[len('pawn-'):]} pawn on {f}")
        if self.home:
            parts.append("ends on the goal field and goes home")
        return ", ".join(parts)


def _legs(board: Board, place: str, colour: str, die: int) -> list[Leg]:
    """Every way to carry out one die from `place` (ignoring other pawns)."""
    if place == START:
        a = board.start_field(colour)
        if a is None:
            return []
        if die == 1:
            return [Leg(die, "enter", None, (a,))]
        out = []
        for d in (1, -1):
            rest = board.walk(a, d, die - 1)
            if rest is not None:
                out.append(Leg(die, "enter", _DIR[d], (a,) + rest))
        return out
    out = []
    for d in (1, -1):
        path = board.walk(place, d, die)
        if path is not None:
            out.append(Leg(die, "step", _DIR[d], path))
    for j in board.field(place).jumps:
        if j.number == die:
            out.append(Leg(die, "jump", None, (j.to,), j.wall))
    return out


def _continuous(a: Leg, b: Leg) -> bool:
    """Both legs are one run in one direction: the stop between them is passed, not beaten."""
    return a.kind in ("step", "enter") and a.direction is not None and b.kind == "step" \
        and b.direction == a.direction


@dataclass(frozen=True)
class _Candidate:
    start: str
    legs: tuple[Leg, Leg]
    beaten: tuple[tuple[str, str], ...]
    home: bool
    problem: str | None  # None = legal; else a parent-friendly reason


def _judge(board: Board, occ: Mapping[str, str], colour: str, start: str,
           a: Leg, b: Leg) -> _Candidate:
    beaten = []
    problem = None
    mid, end = a.to, b.to
    if not _continuous(a, b) and mid in occ:
        if occ[mid] == colour:
            why = "to jump the wall" if b.kind == "jump" or a.kind == "jump" else \
                "to change direction"
            problem = (f"the pawn would stop on field {mid} {why}, but your own {colour} pawn "
                       f"stands there; own pawns cannot be beaten, so move a different pawn")
        else:
            beaten.append((label(occ[mid]), mid))
    if end in occ and problem is None:
        if occ[end] == colour:
            problem = (f"field {end} already has your own {colour} pawn; own pawns cannot be "
                       f"beaten, so move a different pawn")
        else:
            beaten.append((label(occ[end]), end))
    return _Candidate(start, (a, b), tuple(beaten), end in board.goal_fields, problem)


def _candidates(board: Board, position: Position, colour: str, dice: Sequence[int],
                start: str) -> list[_Candidate]:
    occ = dict(position.occupancy())
    occ.pop(start, None)  # the moving pawn leaves its field
    orders = [(dice[0], dice[1])] if dice[0] == dice[1] else [(dice[0], dice[1]),
                                                              (dice[1], dice[0])]
    out = []
    for d1, d2 in orders:
        for a in _legs(board, start, colour, d1):
            for b in _legs(board, a.to, colour, d2):
                out.append(_judge(board, occ, colour, start, a, b))
    return out


def _check_dice(dice: Sequence[int]) -> tuple[int, int]:
    return parse_dice(list(dice), "dice")


def movable_starts(position: Position, colour: str) -> list[str]:
    """Distinct places a pawn of `colour` can move from: "B" once, then track fields."""
    places = [p for p in position.places(colour) if not is_home(p)]
    return ([START] if START in places else []) + sorted(
        {p for p in places if p != START}, key=lambda p: (len(p), p))


def legal_moves(board: Board, position: Position, colour: str,
                dice: Sequence[int]) -> list[Move]:
    """Every legal move of `colour` for the roll `dice` (two values 1-6), each with its path.
    Empty when no pawn can move (the turn passes) or the game is over."""
    if colour not in PAWN_COLOURS:
        raise FactsError(f"unknown colour {colour!r}; expected one of: {', '.join(PAWN_COLOURS)}",
                         "colour")
    dice = _check_dice(dice)
    if position.game_over():
        return []
    moves, keys = [], set()
    for start in movable_starts(position, colour):
        for c in _candidates(board, position, colour, dice, start):
            if c.problem is None:
                m = Move(colour, c.start, c.legs, c.beaten, c.home)
                if m.key() not in keys:
                    keys.add(m.key())
                    moves.append(m)
    return moves


def apply_move(position: Position, move: Move) -> Position:
    """The position after `move`: the pawn moves (home: into the next free goal slot from d
    down to a), beaten pawns go back to their start area B. The turn is not advanced."""
    pawns = list(position.pawns)
    i = pawns.index((move.colour, move.start))
    beaten = {f for _, f in move.beaten}
    if move.home:
        used = {p for c, p in pawns if c == move.colour and p in GOAL_SLOTS}
        free = [s for s in reversed(GOAL_SLOTS) if s not in used]
        pawns[i] = (move.colour, free[0] if free else GOAL)
    else:
        pawns[i] = (move.colour, move.to)
    pawns = [(c, START) if p in beaten and k != i else (c, p) for k, (c, p) in enumerate(pawns)]
    return Position(tuple(pawns), position.turn, position.dice)


# --- checking a claimed move -----------------------------------------------------------
@dataclass(frozen=True)
class Verdict:
    ok: bool
    reason: str
    moves: tuple[Move, ...] = ()  # the legal moves matching the claim

    def to_dict(self) -> dict:
        return {"ok": self.ok, "reason": self.reason, "moves": [m.to_dict() for m in self.moves]}


@dataclass(frozen=True)
class Claim:
    """What a player says they did: from ("B" or a field), to (a field, or "goal"), and
    optionally the legs [{"die", "kind", "direction"}] and the fields of beaten pawns."""

    start: str
    to: str
    legs: tuple[tuple[int | None, str | None, str | None], ...] | None = None
    beats: tuple[str, ...] | None = None


def parse_claim(obj: object, where: str = "move") -> Claim | list:
    """A claim object; a list of two or more claims (dice split between pawns) is returned
    as a list so `check_move` can explain why that is not allowed."""
    if isinstance(obj, list):
        return [parse_claim(o, f"{where}[{i}]") for i, o in enumerate(obj)]
    d = require_mapping(obj, where)
    for key in d:
        if key not in ("from", "to", "legs", "beats", "pawn"):
            raise FactsError("unknown entry; a move has from, to, legs, beats", f"{where}.{key}")
    for key in ("from", "to"):
        if key not in d:
            raise FactsError("missing (required)", f"{where}.{key}")
        if isinstance(d[key], bool) or not isinstance(d[key], str | int):
            raise FactsError(f"expected a field id, got {d[key]!r}", f"{where}.{key}")
    legs = None
    if d.get("legs") is not None:
        legs = []
        for i, g in enumerate(require_list(d["legs"], f"{where}.legs")):
            gp = f"{where}.legs[{i}]"
            g = require_mapping(g, gp)
            die = require_int(g["die"], f"{gp}.die", 1, 6) if "die" in g else None
            kind = g.get("kind")
            if kind not in (None, "enter", "step", "jump"):
                raise FactsError("expected enter, step or jump", f"{gp}.kind")
            direc = g.get("direction")
            if direc not in (None, FORWARD, BACKWARD):
                raise FactsError("expected forward or backward", f"{gp}.direction")
            legs.append((die, kind, direc))
        if len(legs) != 2:
            raise FactsError("a move has exactly two legs, one per die", f"{where}.legs")
        legs = tuple(legs)
    beats = None
    if d.get("beats") is not None:
        beats = tuple(str(b["field"]) if isinstance(b, Mapping) and "field" in b else str(b)
                      for b in require_list(d["beats"], f"{where}.beats"))
    to = str(d["to"])
    if to in GOAL_SLOTS:
        to = GOAL
    return Claim(str(d["from"]), to, legs, beats)


def _leg_matches(want: tuple, leg: Leg) -> bool:
    die, kind, direc = want
    return (die is None or die == leg.die) and (kind is None or kind == leg.kind) and (
        direc is None or direc == leg.direction)


def _reaches(to: str, end: str, board: Board) -> bool:
    return end in board.goal_fields if to == GOAL else end == to


def _explain(board: Board, position: Position, colour: str, dice: tuple[int, int],
             claim: Claim, cands: list[_Candidate]) -> str:
    """Why no legal move from claim.start reaches claim.to: the first rule that explains it."""
    start, to = claim.start, claim.to
    target = "the goal field" if to == GOAL else f"field {to}"
    # 1. an own pawn is in the way
    for c in cands:
        if c.problem and _reaches(to, c.legs[1].to, board):
            return c.problem
    # 2. the start field A was not counted
    if start == START:
        a = board.start_field(colour)
        for d in (1, -1):
            path = board.walk(a, d, dice[0] + dice[1]) if a else None
            if path and _reaches(to, path[-1], board):
                return (f"the start field A ({a}) must be counted: entering with "
                        f"{dice[0]} and {dice[1]} means A is the first of the "
                        f"{dice[0] + dice[1]} fields")
    # 3. only one die used
    for d in dice:
        for leg in _legs(board, start, colour, d):
            if _reaches(to, leg.to, board):
                other = dice[1] if d == dice[0] else dice[0]
                if to == GOAL or leg.to in board.goal_fields:
                    return (f"the pawn cannot move onto the goal field with the {d} alone and "
                            f"let the {other} lapse; both dice must be used, and the pawn only "
                            f"goes home if the whole move ends on a goal field")
                return (f"both dice must be used for the same pawn: the {d} alone reaches "
                        f"{target}, but the {other} must then be moved too")
    # 4. a die used twice
    if dice[0] != dice[1]:
        for d in dice:
            other = dice[1] if d == dice[0] else dice[0]
            firsts = sorted(_legs(board, start, colour, d), key=lambda g: g.kind != "jump")
            for a in firsts:
                for b in _legs(board, a.to, colour, d):
                    if _reaches(to, b.to, board):
                        first = "the wall jump" if a.kind == "jump" else (
                            "entering" if a.kind == "enter" else f"moving {d} fields")
                        second = "jump the wall with it" if b.kind == "jump" else \
                            f"move {d} fields"
                        return (f"the {d} was used for {first}, so the pawn cannot also "
                                f"{second}; the other die shows {other}")
    # 5. direction changed in the middle of one die
    if start != START:
        for d1, d2 in ((dice[0], dice[1]), (dice[1], dice[0])):
            for mid in _split_ends(board, start, d1) | {g.to for g in _legs(board, start,
                                                                             colour, d1)}:
                ends = _split_ends(board, mid, d2) | {g.to for g in _legs(board, mid,
                                                                          colour, d2)}
                if any(_reaches(to, e, board) for e in ends):
                    return ("the value of one die must be carried out completely before the "
                            "direction changes; the pawn can turn only between the two dice")
    # 6. a wall jump whose number is not on the dice
    reach1 = [(g, None) for d in dice for g in _legs(board, start, colour, d)]
    here = [start] if start != START else []
    for fid in here + [g.to for g, _ in reach1]:
        for j in board.field(fid).jumps:
            if j.number in dice:
                continue
            if _reaches(to, j.to, board) or any(
                    _reaches(to, g.to, board) for d in dice
                    for g in _legs(board, j.to, colour, d)):
                return (f"the wall piece at field {fid} shows {j.number}, but the dice show "
                        f"{dice[0]} and {dice[1]}, so the pawn cannot jump there")
    ends = sorted({c.legs[1].to for c in cands if c.problem is None},
                  key=lambda f: board.index(f))
    if ends:
        return (f"with {dice[0]} and {dice[1]} this pawn cannot reach {target}; it can reach "
                f"field{'s' if len(ends) > 1 else ''} {', '.join(ends)}")
    return f"with {dice[0]} and {dice[1]} this pawn cannot move at all; try another pawn"


def _split_ends(board: Board, start: str, die: int) -> set[str]:
    """Fields reached by running part of a die one way and the rest back (not allowed)."""
    out = set()
    for d in (1, -1):
        for k in range(1, die):
            first = board.walk(start, d, k)
            if first is None:
                continue
            back = board.walk(first[-1], -d, die - k)
            if back is not None:
                out.add(back[-1])
    return out


def check_move(board: Board, position: Position, colour: str, dice: Sequence[int],
               claim: Claim | list | Mapping) -> Verdict:
    """Accept or reject a claimed move with a reason a parent understands. `claim` is a
    `Claim`, or its JSON object ``{"from", "to", "legs"?, "beats"?}`` (a list of them means
    the dice were split between pawns)."""
    dice = _check_dice(dice)
    if not isinstance(claim, Claim):
        claim = parse_claim(claim)  # raises FactsError naming the bad entry
    if isinstance(claim, list):
        starts = {c.start for c in claim}
        if len(claim) > 1 and len(starts) > 1:
            return Verdict(False, f"both dice ({dice[0]} and {dice[1]}) must be used for the "
                                  f"same pawn; the roll cannot be split between two pawns")
        if len(claim) != 1:
            return Verdict(False, "a turn moves one pawn; describe it as one move")
        claim = claim[0]
    if position.game_over():
        done = [c for c in PAWN_COLOURS if position.home(c) >= PAWNS_PER_COLOUR]
        return Verdict(False, f"the game is over: {done[0]} has all four pawns home")
    start = claim.start
    places = position.places(colour)
    if is_home(start):
        return Verdict(False, "a pawn in the goal area has finished and does not move again")
    if start == START:
        if START not in places:
            return Verdict(False, f"no {colour} pawn is waiting in the start area B")
    elif not board.has_field(start):
        return Verdict(False, f"there is no field {start} on this board")
    elif start not in places:
        occ = position.occupancy().get(start)
        who = f"a {occ} pawn" if occ else "no pawn"
        return Verdict(False, f"field {start} has {who}, not a {colour} pawn")
    if claim.to == START:
        return Verdict(False, "a pawn never moves back to its start area by itself; only a "
                              "beaten pawn goes back to B")
    if claim.to != GOAL and not board.has_field(claim.to):
        return Verdict(False, f"there is no field {claim.to} on this board")
    cands = _candidates(board, position, colour, dice, start)
    legal = [c for c in cands if c.problem is None]
    hits = [c for c in legal if _reaches(claim.to, c.legs[1].to, board)]
    if not hits:
        return Verdict(False, _explain(board, position, colour, dice, claim, cands))
    if claim.legs is not None:
        way = [c for c in hits if all(_leg_matches(w, g) for w, g in zip(claim.legs, c.legs,
                                                                          strict=True))]
        if not way:
            ways = "; or ".join(" then ".join(g.text() for g in c.legs) for c in hits)
            return Verdict(False, f"the pawn can reach that field, but not that way: {ways}")
        hits = way
    if claim.beats is not None:
        want = set(claim.beats)
        same = [c for c in hits if {f for _, f in c.beaten} == want]
        if not same:
            c = hits[0]
            got = {f for _, f in c.beaten}
            extra = sorted(want - got)
            missing = sorted(got - want)
            if extra:
                f = extra[0]
                passed = any(f in g.path[:-1] for g in c.legs) or (
                    f == c.legs[0].to and _continuous(*c.legs))
                if passed:
                    return Verdict(False, f"the pawn on field {f} was jumped over, not beaten: "
                                          f"the pawn moved both dice the same way, so only a "
                                          f"pawn on the last field is beaten")
                return Verdict(False, f"this move does not beat the pawn on field {f}")
            lab = next(lab for lab, ff in c.beaten if ff == missing[0])
            return Verdict(False, f"this move beats the {lab[len('pawn-'):]} pawn on field "
                                  f"{missing[0]}: it goes back to its start area B")
        hits = same
    moves = tuple(Move(colour, c.start, c.legs, c.beaten, c.home) for c in hits)
    return Verdict(True, "legal: " + moves[0].text(), moves)


def colours_in(position: Position) -> list[str]:
    return [c for c in PAWN_COLOURS if position.places(c)]


def all_legal(board: Board, position: Position, dice: Sequence[int],
              colours: Iterable[str] | None = None) -> dict[str, list[Move]]:
    """legal_moves for several colours (default: every colour with pawns)."""
    return {c: legal_moves(board, position, c, dice) for c in (colours or colours_in(position))}
