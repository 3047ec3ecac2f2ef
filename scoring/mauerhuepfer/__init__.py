"""Mauerhuepfer: board model, move referee and the facts adapter (rulebook:
shared/rules/mauerhuepfer.txt; documentation: docs/mauerhuepfer.md).

Position ids (facts ``positions`` and position files): a track field id of the board
("1" ... "66" on the default board), ``"B"`` for a pawn waiting in its colour's start area,
``"a"``-``"d"`` for a pawn home in that slot of its colour's goal area, or ``"goal"`` when it
is home but the slot is not known.
"""

from __future__ import annotations

from scoring.facts import count_map, require_list, require_mapping
from scoring.labels import PAWN_COLOURS, PAWN_LABELS, PAWNS_PER_COLOUR
from scoring.mauerhuepfer.board import (
    DEFAULT_BOARD_PATH,
    GOAL,
    GOAL_SLOTS,
    SCHEMA,
    START,
    Board,
    board_for,
    board_from_dict,
    load_board,
)
from scoring.mauerhuepfer.referee import (
    Claim,
    Leg,
    Move,
    Position,
    Verdict,
    apply_move,
    check_move,
    is_home,
    legal_moves,
    parse_claim,
    parse_dice,
    parse_position,
)
from tablescore.errors import FactsError

__all__ = [
    "DEFAULT_BOARD_PATH", "GOAL", "GOAL_SLOTS", "OPTIONS", "SCHEMA", "START", "Board", "Claim",
    "Leg", "Move", "Position", "Verdict", "apply_move", "board_for", "board_from_dict",
    "check_move",
    "is_home", "legal_moves", "load_board", "parse_claim", "parse_dice", "parse_position",
    "race_standing", "score_facts",
]

OPTIONS = {"board": "a board description JSON file (default: the shipped board)"}


def check_settings(options: dict[str, str]) -> None:
    """`BadInput` for a --board file that is missing or no board (``scoring.check_settings``;
    the board is cached, so the photo reader's and the scorer's loads are not repeated)."""
    board_for(options.get("board"))


def race_standing(board: Board, position: Position) -> list[dict]:
    """Per colour with pawns: home / start / track counts and `fields_to_go`, the sum over its
    pawns not yet home of the track distance to the nearest goal field (walls ignored; a pawn
    in B counts 1 + the distance from its start field A). Best first: most pawns home, then
    fewest fields to go."""
    rows = []
    for colour in PAWN_COLOURS:
        places = position.places(colour)
        if not places:
            continue
        a = board.start_field(colour)
        to_go = 0
        for p in places:
            if p == START:
                to_go += 1 + board.fields_to_goal(a) if a else 0
            elif not is_home(p):
                to_go += board.fields_to_goal(p)
        rows.append({
            "colour": colour,
            "home": position.home(colour),
            "start": sum(1 for p in places if p == START),
            "track": sum(1 for p in places if p != START and not is_home(p)),
            "fields_to_go": to_go,
        })
    rows.sort(key=lambda r: (-r["home"], r["fields_to_go"]))
    for rank, r in enumerate(rows, 1):
        r["rank"] = rank
    return rows


def moves_for(board: Board, facts: dict, colour: str | None = None) -> dict:
    """Legal moves for the roll in `facts`, per colour in play (or only `colour`):
    {colour: [Move.to_dict() with "text"]}; {} without two dice or when the position is not
    possible under the rules (the warnings say why)."""
    if len(facts.get("dice") or []) != 2:
        return {}
    try:
        position, _ = parse_position({"positions": facts.get("positions", {})}, board,
                                     where="facts", strict=True)
    except Exception:  # a misread photo may give an impossible position: no moves then
        return {}
    return _moves(board, position, facts, colour)


def _moves(board: Board, position: Position, facts: dict, colour: str | None = None) -> dict:
    """`moves_for` on a position already parsed from `facts` and possible under the rules."""
    dice = facts.get("dice") or []
    if len(dice) != 2:
        return {}
    colours = [colour] if colour else [lab[len("pawn-"):] for lab in facts.get("positions", {})]
    out = {}
    for c in colours:
        moves = legal_moves(board, position, c, tuple(dice))
        out[c] = [{**m.to_dict(), "text": m.text()} for m in moves]
    return out


def score_facts(facts: dict, options: dict[str, str]) -> tuple[dict, list[str]]:
    """facts ``{"dice": [a, b], "pawns": {label: n}, "positions": {label: [ids]}}`` ->
    score ``{"home": {colour: n}, "winner": colour or None, "standing": [...],
    "game_over": bool, "moves": {colour: [move]}}`` plus warnings. ``moves`` (`moves_for`):
    the legal moves for the roll per colour in play, as a photo's score has had them; facts
    typed in or corrected by hand had none (the contract: the same scorer)."""
    board = board_for(options.get("board"))
    for key in facts:
        if key not in ("dice", "pawns", "positions", "turn"):
            raise FactsError("unknown entry; mauerhuepfer facts have dice, pawns, positions",
                             f"facts.{key}")
    warnings: list[str] = []
    if facts.get("dice") is not None:
        dice = require_list(facts["dice"], "facts.dice")
        if len(dice) == 2:
            parse_dice(dice, "facts.dice")
        else:
            warnings.append(f"{len(dice)} dice seen; Mauerhuepfer is played with two")
    counts = count_map(facts.get("pawns", {}), PAWN_LABELS, "facts.pawns")
    position, doubts = parse_position(
        {"positions": require_mapping(facts.get("positions", {}), "facts.positions"),
         **({"turn": facts["turn"]} if facts.get("turn") is not None else {})},
        board, where="facts", strict=False)
    warnings += doubts
    for lab in PAWN_LABELS:
        colour = lab[len("pawn-"):]
        n_pos = len(position.places(colour))
        if lab in counts and counts[lab] != n_pos:
            warnings.append(f"facts.pawns.{lab} says {counts[lab]} but facts.positions lists "
                            f"{n_pos}")
        if 0 < n_pos < PAWNS_PER_COLOUR:
            warnings.append(f"only {n_pos} of the {PAWNS_PER_COLOUR} {colour} pawns were seen")
        on_z = [p for p in position.places(colour) if p in board.goal_fields]
        if on_z:
            warnings.append(f"a {colour} pawn stands on goal field {on_z[0]}; it goes home "
                            f"into the goal area")
    home = {c: position.home(c) for c in PAWN_COLOURS}
    done = [c for c in PAWN_COLOURS if home[c] >= PAWNS_PER_COLOUR]
    if len(done) > 1:
        warnings.append(f"{' and '.join(done)} both have all pawns home; only one can win")
    score = {
        "home": home,
        "winner": done[0] if len(done) == 1 else None,
        "game_over": bool(done),
        "standing": race_standing(board, position),
        # (the position parsed above: with no doubts it is the one `moves_for` would parse
        # strictly again; with doubts it is impossible under the rules, and has no moves)
        "moves": {} if doubts else _moves(board, position, facts),
    }
    return score, warnings

