"""`tablescore teach --game GAME DIR [--name NAME] [--data DATA] [--json]`: learn one copy's
pieces from example photos `DIR/<label>/*.jpg` (see `vision.teach`) and store the profile as
`DATA/teach/NAME/profile.npz + profile.json` (DATA defaults to `data`, the web page's folder;
NAME defaults to DIR's folder name). Use it with `tablescore score ... --teach
DATA/teach/NAME` or the page's `teach` field (NAME).

Prints `{"game", "name", "profile", "labels": {label: examples}, "missing": [labels not
taught], "skipped": ["<label>/<file>" not read: not a .jpg or .png], "timings_ms":
{"total"}}` (Troetofanten elephants and tootophants are counted per
kind: `elephant`, `tootophant`; their numbers are not taught). Bad teach input (unknown
label folder, a photo without a piece, an empty folder) gets the contract's error JSON naming
the file, exit 2.
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

from tablescore.errors import BadInput, OptionError

NAME_RE = re.compile(r"^[A-Za-z0-9._-]+$")  # looser than the web API's TEACH_NAME
#   (which wants a letter or digit first, at most 64 characters)


def refuse_other_games_profile(root: Path, name: str, game: str) -> None:
    """`BadInput` when `name` is taken by another game's profile: saving would replace it, and
    that game's photos, which name the profile, would all fail."""
    from vision.teach import list_profiles

    for p in list_profiles(root):
        if p["name"] == name and p["game"] != game:
            raise BadInput(f"the teach profile {name!r} is for {p['game']}; give this one "
                           "another name")


def check_profile_folder(folder: Path) -> None:
    """`OptionError` before any work when the profile cannot be saved in `folder`
    (DATA/teach/NAME): a part of it is a file, or the folder that would hold it cannot be
    written to. (Found only when saving, after every photo was read: a traceback, exit 1.)"""
    import os

    there = folder
    while not there.exists() and there != there.parent:  # the nearest part that exists
        there = there.parent
    if not there.is_dir():
        raise OptionError(f"--data: cannot save the profile in {folder}: {there} is a file, "
                          "not a folder; give another --data folder")
    if not os.access(there, os.W_OK | os.X_OK):
        raise OptionError(f"--data: cannot save the profile in {folder}: the folder {there} "
                          "cannot be written to; give another --data folder")


def unread_files(folder: Path) -> list[str]:
    """`<label>/<file>` for each file in a label folder that teaching does not read (an
    iPhone's IMG_0002.HEIC beside JPEGs was left out without a word); taps files and hidden
    files (.DS_Store) are not named."""
    from vision.teach import PHOTO_SUFFIXES, label_folders, shown_files

    if not folder.is_dir():
        return []
    return [f"{sub.name}/{f.name}" for sub in label_folders(folder) for f in shown_files(sub)
            if f.suffix.lower() not in PHOTO_SUFFIXES and not f.name.endswith(".taps.json")]


def games_help() -> str:
    from scoring import GAMES

    return f"one of: {', '.join(GAMES)}"


def register(subparsers) -> None:
    p = subparsers.add_parser("teach", help="learn this copy's pieces from example photos")
    p.add_argument("folder", help="DIR/<label>/*.jpg example photos (optional "
                   "<photo>.taps.json naming several pieces in one photo)")
    p.add_argument("--game", required=True, help=games_help())
    p.add_argument("--name", default=None, help="profile name (default: DIR's name)")
    p.add_argument("--data", default="data", help="data folder (profiles in DATA/teach/NAME)")
    p.add_argument("--json", action="store_true", help="print the JSON summary")
    p.set_defaults(func=cmd_teach)


def cmd_teach(args: argparse.Namespace) -> int:
    from scoring import GAMES, game_module
    from tablescore.cli import emit
    from vision.teach import build_profile, profile_counts, teachable

    if args.game not in GAMES:
        game_module(args.game)  # UnknownGame with the list of games
    tg = teachable(args.game)
    name = args.name or Path(args.folder).resolve().name
    if not NAME_RE.match(name) or name in (".", ".."):
        hint = "" if args.name else " (the folder's name; give the profile one with --name)"
        raise OptionError(
            f"profile names are letters, digits, '.', '_' and '-': {name!r}{hint}")
    refuse_other_games_profile(Path(args.data) / "teach", name, args.game)
    profile_dir = Path(args.data) / "teach" / name
    check_profile_folder(profile_dir)
    started = time.perf_counter()
    profile = build_profile(args.folder, args.game)
    try:
        out = profile.save(profile_dir)
    except OSError as exc:  # (the disk full, the folder taken away meanwhile)
        raise BadInput(f"cannot save the teach profile in {profile_dir}: "
                       f"{exc.strerror or exc}") from None
    counts = profile_counts(profile)
    missing = tg.missing(counts)
    skipped = unread_files(Path(args.folder))
    result = {"game": args.game, "name": name, "profile": str(out), "labels": counts,
              "missing": missing, "skipped": skipped,
              "timings_ms": {"total": round((time.perf_counter() - started) * 1000, 1)}}
    human = (f"taught {sum(counts.values())} examples of {len(counts)} labels to profile "
             f"{name!r} ({out})" + (f"; not taught: {', '.join(missing)}" if missing else "")
             + (f"; not read (tablescore reads JPEG and PNG photos): {', '.join(skipped)}"
                if skipped else ""))
    emit(result, args.json, human)
    return 0
