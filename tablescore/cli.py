"""The `tablescore` command line. Every failure prints the contract's error JSON on stdout
and exits non-zero (2 bad input, 3 nothing found); never a traceback for a user's mistake."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time

from scoring import GAMES
from tablescore.errors import BadInput, OptionError, TablescoreError
from tablescore.jsonfile import read_json_file

# Modules that add their own subcommands: each has `register(subparsers)`.
COMMAND_MODULES: list[str] = ["tablescore.cmd_moves", "vision.synth.cli", "vision.commands",
                              "tablescore.cmd_dice", "tablescore.cmd_teach"]

# Per-game settings the CLI accepts (the game's scorer rejects those it does not take).
GAME_OPTIONS = {
    "magician": "Simsala Hopp: the magician's colour this turn, yellow, orange, blue or violet "
    "(score needs it)",
    "players": "Simsala Hopp: player colours in seating order, comma-separated; "
    "Magic Rabbit: the number of players",
    "level": "Simsala Hopp expert level 0, 1 or 2 (default 0)",
    "variant": "Hop la bille: normal|not-time|suite|no-card|pile|pile-short (default normal)",
    "board": "Mauerhuepfer: a board description JSON file (default: the shipped board)",
}


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of printing usage and exiting."""

    def error(self, message):
        raise OptionError(message)


def _print(text: str, fallback: str | None = None) -> None:
    """Print for this stdout's encoding: where it cannot hold the text (PYTHONIOENCODING=ascii,
    a cp1252 console, a path with 'ü' in the message) print ``fallback`` (JSON with \\u
    escapes, the same object) or the text with '?' for what it cannot show, not a traceback."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        text = fallback if fallback is not None else text.encode(encoding, "replace").decode(
            encoding)
    except LookupError:
        pass
    print(text)


def print_json(obj: dict, indent: int | None = None) -> None:
    _print(json.dumps(obj, indent=indent, ensure_ascii=False), json.dumps(obj, indent=indent))


def emit(obj: dict, as_json: bool, human: str | None = None) -> None:
    if as_json or human is None:
        print_json(obj, indent=2)
    else:
        _print(human)


def add_game_options(p: argparse.ArgumentParser) -> None:
    for name, help_text in GAME_OPTIONS.items():
        p.add_argument(f"--{name}", default=None, help=help_text)


def game_options(args: argparse.Namespace) -> dict[str, str]:
    return {name: getattr(args, name, None) for name in GAME_OPTIONS}


def check_annotate(path: str | None, photo: str | None = None) -> None:
    """`OptionError` before any work for an --annotate file OpenCV has no writer for (it
    raised cv2.error after the photo was read: a traceback, exit 1). OpenCV itself is asked
    (`cv2.haveImageWriter`): .jpg, .png, .webp, .bmp, .tif ... as this build can write. A
    folder that does not exist or cannot be written to is named before the work too, and so
    is the `photo` itself (its own name, or a link to it), which was overwritten with the
    drawing without a word."""
    if not path:
        return
    import os

    try:
        same = bool(photo) and os.path.samefile(path, photo)
    except OSError:  # (either does not exist: nothing to overwrite; a missing photo is said
        same = False  # when it is read)
    if same:
        raise OptionError(f"--annotate {path!r} is the photo itself: it would be overwritten; "
                          "name another file")
    try:
        import cv2
    except ImportError:  # a build without vision: the photo commands say so themselves
        return
    try:
        ok = cv2.haveImageWriter(path)
    except cv2.error:
        ok = False
    if not ok:
        raise OptionError(f"--annotate: name an image file OpenCV can write (.jpg, .png, ...), "
                          f"got {path!r}")
    from pathlib import Path

    folder = Path(path).parent
    if not folder.is_dir():  # (was found only after the photo was read: "cannot write")
        raise OptionError(f"--annotate: there is no folder {str(folder)!r} to write {path!r} in")
    if not os.access(folder, os.W_OK):
        raise OptionError(f"--annotate: the folder {str(folder)!r} cannot be written to")


def cmd_score(args: argparse.Namespace) -> int:
    from scoring import score_facts

    if args.game not in GAMES:
        from scoring import game_module

        game_module(args.game)  # raises UnknownGame with the list of games
    if args.facts and args.photo:
        raise OptionError("give either a photo or --facts, not both")
    if args.facts:
        for name in ("annotate", "teach"):  # (they were ignored without a word)
            if getattr(args, name):
                raise OptionError(f"--{name} needs a photo; --facts scores facts without one")
        started = time.perf_counter()
        facts = read_json_file(args.facts, "facts")
        score, warnings = score_facts(args.game, facts, game_options(args))
        result = {
            "game": args.game,
            "image": None,
            "area": None,
            "pieces": [],
            "facts": facts,
            "score": score,
            "warnings": warnings,
            "timings_ms": {"total": round((time.perf_counter() - started) * 1000, 3)},
        }
    elif args.photo:
        check_annotate(args.annotate, args.photo)
        try:
            from vision.pipeline import score_photo
        except ImportError:
            raise BadInput("scoring from a photo is not available in this build") from None
        result = score_photo(
            args.photo, args.game, game_options(args), teach=args.teach, annotate=args.annotate
        )
    else:
        raise OptionError("give a photo or --facts FACTS.json")
    emit(result, args.json, human_score(result))
    return 0


def human_score(result: dict) -> str:
    lines = [f"{result['game']}: {json.dumps(result['score'], ensure_ascii=False)}"]
    lines += [f"warning: {w}" for w in result.get("warnings", [])]
    return "\n".join(lines)


def check_listen(host: str, port: int) -> None:
    """`OptionError` when the server could not listen on host:port (a port in use, out of
    range or privileged, an unknown host): waitress raised a traceback, Werkzeug (--https)
    printed its own words; both before any page was served."""
    import os
    import socket

    if not 0 <= port < 65536:  # (0: any free port, the system's choice)
        raise OptionError(f"--port must be 0-65535, got {port}")
    try:
        # host "" is every interface (as webapp.serve takes it): getaddrinfo wants None.
        family, kind, proto, _, addr = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
        with socket.socket(family, kind, proto) as s:
            if os.name != "nt":  # as the servers do; on Windows it lets a busy port bind
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(addr)
    except OSError as exc:
        why = exc.strerror or str(exc)
        raise OptionError(f"cannot serve on {host}:{port}: {why} (another --port or --host?)"
                          ) from None


def cmd_serve(args: argparse.Namespace) -> int:
    from webapp import serve

    check_listen(args.host, args.port)
    serve(host=args.host, port=args.port, data_dir=args.data, https=args.https)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="tablescore", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("score", help="score a photo or a facts file")
    p.add_argument("photo", nargs="?", help="JPEG or PNG photo of the table")
    p.add_argument("--game", required=True, help=f"one of: {', '.join(GAMES)}")
    p.add_argument("--facts", help="score these facts (JSON) instead of a photo")
    p.add_argument("--json", action="store_true", help="print the contract's JSON")
    p.add_argument("--teach", help="folder of example photos of this copy's pieces "
                   "(DIR/<label>/*.jpg), or a profile `tablescore teach` saved (DATA/teach/NAME)")
    p.add_argument("--annotate", help="write the photo with detections drawn to this file")
    add_game_options(p)
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("serve", help="start the web page and JSON API")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only; "
                   "0.0.0.0: phones on the same network too, as `make serve` does)")
    p.add_argument("--port", type=int, default=8000,
                   help="port (default 8000; 0: any free port)")
    p.add_argument("--data", default="data", help="folder for the database and profiles")
    p.add_argument("--https", action="store_true", help="serve with a self-signed certificate")
    p.set_defaults(func=cmd_serve)

    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return args.func(args)
    except TablescoreError as exc:
        print_json(exc.to_json())
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into `head` and the like
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
