"""Pure rule engines, one module per game. Never imports cv2 or onnxruntime.

Every game module offers the same facts adapter, used by the CLI and the web API:

- ``OPTIONS``: the names of the settings the game takes (``{"variant": "help text"}``).
- ``score_facts(facts: dict, options: dict[str, str]) -> tuple[dict, list[str]]``: validates
  the contract's ``facts`` object (raising ``FactsError`` naming the bad entry) and returns the
  contract's ``score`` object plus human-readable warnings.
- optionally ``check_settings(options: dict[str, str]) -> None``: raises ``OptionError`` for a
  setting value the game refuses, without facts (`check_settings` below, before a photo is
  read).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from tablescore.errors import UnknownGame

# Game id (contract) -> module inside this package.
GAMES: dict[str, str] = {
    "simsala-hopp": "simsala_hopp",
    "magic-rabbit": "magic_rabbit",
    "hop-la-bille": "hop_la_bille",
    "mauerhuepfer": "mauerhuepfer",
    "troetofanten": "troetofanten",
}


def game_module(game: str) -> ModuleType:
    """The scoring module of a game id; `UnknownGame` lists the valid ids."""
    if game not in GAMES:
        raise UnknownGame(f"unknown game {game!r}; choose one of: {', '.join(GAMES)}")
    return importlib.import_module(f"{__name__}.{GAMES[game]}")


def check_settings(game: str, options: dict[str, str] | None = None) -> None:
    """The game's settings checked without any facts: `OptionError` for a setting the game
    does not take or a value it refuses (an unknown variant, no magician, level 5). Photo
    readers call it before reading: a bad option found only by the scorer, after the photo,
    was answered exit 3 / HTTP 422 ("no cloth found") on a photo the reader could not read,
    where the contract says exit 2 / 400 for a bad option."""
    from scoring.facts import check_options

    module = game_module(game)
    opts = check_options(options or {}, module.OPTIONS, game)
    check = getattr(module, "check_settings", None)
    if check is not None:
        check(opts)


def score_facts(game: str, facts: object, options: dict[str, str] | None = None):
    """Score a facts object for a game: returns ``(score, warnings)``."""
    from scoring.facts import check_options, require_mapping

    module = game_module(game)
    opts = check_options(options or {}, module.OPTIONS, game)
    return module.score_facts(require_mapping(facts, "facts"), opts)
