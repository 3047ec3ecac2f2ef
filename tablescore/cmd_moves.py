"""`tablescore moves`: the Mauerhuepfer referee on the command line.

    tablescore moves --game mauerhuepfer --position POS.json --dice 2 5 [--colour red]
                     [--board BOARD.json] [--check MOVE.json] [--json]

Lists every legal move for the colour whose turn it is (``--colour``, else the position
file's ``"turn"``) and the roll (``--dice``, else the position file's ``"dice"``). With
``--check MOVE.json`` it judges one claimed move ``{"from": "12", "to": "19"}`` instead and
says why it is or is not allowed (exit 0 either way; ``"ok"`` tells).
"""

from __future__ import annotations

import argparse

from scoring.labels import PAWN_COLOURS
from tablescore.errors import OptionError

GAMES_WITH_MOVES = ("mauerhuepfer",)


def register(subparsers) -> None:
    p = subparsers.add_parser("moves", help="Mauerhuepfer: list legal moves or check one")
    p.add_argument("--game", required=True, help="the game (only mauerhuepfer has a referee)")
    p.add_argument("--position", required=True,
                   help='position JSON: {"turn": colour, "dice": [a, b], '
                        '"positions": {label: [field ids, "B", "a"-"d"]}} (a facts file works)')
    p.add_argument("--dice", nargs=2, type=int, metavar=("A", "B"),
                   help="the two dice (default: the position file's dice)")
    p.add_argument("--colour", "--color", dest="colour",
                   help=f"whose turn: {', '.join(PAWN_COLOURS)} (default: the file's turn)")
    p.add_argument("--board", help="board description JSON (default: the shipped board)")
    p.add_argument("--check", metavar="MOVE.json",
                   help='judge this claimed move: {"from": "12", "to": "19", "legs"?, "beats"?}')
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_moves)


def cmd_moves(args: argparse.Namespace) -> int:
    from scoring import GAMES
    from scoring.mauerhuepfer import (
        check_move,
        legal_moves,
        load_board,
        parse_claim,
        parse_dice,
        parse_position,
    )
    from tablescore.cli import emit, read_json_file

    if args.game not in GAMES_WITH_MOVES:
        if args.game not in GAMES:
            from scoring import game_module

            game_module(args.game)  # raises UnknownGame listing the games
        raise OptionError(f"moves is only available for: {', '.join(GAMES_WITH_MOVES)}")
    board = load_board(args.board)
    position, _ = parse_position(read_json_file(args.position, "position"), board)
    colour = args.colour or position.turn
    if colour is None:
        raise OptionError('say whose turn it is: --colour COLOUR, or "turn" in the position file')
    if colour not in PAWN_COLOURS:
        raise OptionError(f"unknown colour {colour!r}; expected one of: {', '.join(PAWN_COLOURS)}")
    if args.dice is not None:
        dice = parse_dice(list(args.dice), "--dice")
    elif position.dice is not None:
        dice = position.dice
    else:
        raise OptionError('give the roll: --dice A B, or "dice" in the position file')
    result: dict = {"game": args.game, "board": board.name, "colour": colour,
                    "dice": list(dice), "game_over": position.game_over(),
                    "winner": position.winner()}
    if args.check:
        claim = parse_claim(read_json_file(args.check, "move"))
        verdict = check_move(board, position, colour, dice, claim)
        result.update(verdict.to_dict())
        human = ("OK: " if verdict.ok else "NOT ALLOWED: ") + verdict.reason
    else:
        moves = legal_moves(board, position, colour, dice)
        result["moves"] = [m.to_dict() for m in moves]
        result["count"] = len(moves)
        if moves:
            human = "\n".join(m.text() for m in moves)
        elif position.game_over():
            human = "the game is over"
        else:
            human = f"no legal move for {colour} with {dice[0]} and {dice[1]}: the turn passes"
        result["note"] = None if moves else human
    emit(result, args.json, human)
    return 0
