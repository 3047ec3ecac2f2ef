"""What the page needs to know about each game, and the game sessions' state.

A session's stored state is a JSON object::

    {"game": id, "players": [{"name": str, "colour": str}], "options": {name: str},
     "log": [{"at": epoch_s, "text": str}], "undo": [previous "play" objects],
     "play": {...per game...}}

``colour`` is the player's colour (Simsala Hopp, Mauerhuepfer), the side of the table they sit
at (Hop la bille, Troetofanten: ``north|east|south|west``) or ``""`` (Magic Rabbit). The
per-game ``play`` object and its actions live in ``webapp.engines``; this module holds the
static game descriptions (labels, zones, settings, player colours) the page renders forms from.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring import GAMES, labels
from tablescore.errors import BadInput, OptionError, UnknownGame


@dataclass(frozen=True)
class GameInfo:
    id: str
    name: str
    colours: tuple[str, ...]  # what a player picks: colour or side ("" for none)
    min_players: int
    max_players: int
    labels: tuple[str, ...]
    zones: tuple[str, ...]
    settings: dict  # option name -> {"label": str, "choices": [str], "default": str}
    photo_hint: str

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "name": self.name,
            "colours": list(self.colours),
            "min_players": self.min_players,
            "max_players": self.max_players,
            "labels": list(self.labels),
            "zones": list(self.zones),
            "settings": self.settings,
            "photo_hint": self.photo_hint,
            # the page's name fields stop at the same length the server keeps
            "max_name_length": SETTINGS.max_name_length,
        }


# Troetofanten is played by up to 8; a photo's zones are the 4 sides of the table, so the
# points of seats 5-8 are typed in.
EXTRA_SEATS = ("seat-5", "seat-6", "seat-7", "seat-8")

INFO: dict[str, GameInfo] = {
    "simsala-hopp": GameInfo(
        "simsala-hopp",
        "Simsala Hopp",
        labels.PLAYER_COLOURS_SIMSALA,
        2,
        4,
        labels.SIMSALA_LABELS,
        labels.SIMSALA_ZONES,
        {"level": {"label": "Expert level", "choices": ["0", "1", "2"], "default": "0"}},
        "At Simsala Stopp: the whole castle from above, every tile visible.",
    ),
    "magic-rabbit": GameInfo(
        "magic-rabbit",
        "Magic Rabbit",
        ("",),
        1,
        4,
        labels.MAGIC_RABBIT_LABELS,
        (),
        {},
        "At the reveal: the line of hats with each rabbit laid just below its hat.",
    ),
    "hop-la-bille": GameInfo(
        "hop-la-bille",
        "Hop la bille",
        labels.SIDE_ZONES,
        2,
        4,
        labels.HOP_LABELS,
        labels.HOP_ZONES,
        {
            "variant": {
                "label": "Variant",
                "choices": ["normal", "not-time", "suite", "no-card", "pile", "pile-short"],
                "default": "normal",
            }
        },
        "The whole cloth with every player's cards beside their side; south at the bottom.",
    ),
    "mauerhuepfer": GameInfo(
        "mauerhuepfer",
        "Mauerhuepfer",
        labels.PAWN_COLOURS,
        2,
        4,
        labels.MAUER_LABELS,
        (),
        {},
        "The whole board with both dice on it.",
    ),
    "troetofanten": GameInfo(
        "troetofanten",
        "Der Troetofanten-Zirkus",
        labels.SIDE_ZONES + EXTRA_SEATS,
        2,
        8,
        labels.TROETO_LABELS,
        labels.TROETO_ZONES,
        {},
        "Each player's cards spread on their side of the table, index corners visible.",
    ),
}
assert set(INFO) == set(GAMES)


@dataclass(frozen=True)
class SessionSettings:
    max_name_length: int = 24
    max_log: int = 200
    max_undo: int = 30


SETTINGS = SessionSettings()


def info(game: object) -> GameInfo:
    if not isinstance(game, str) or game not in INFO:
        raise UnknownGame(f"unknown game {game!r}; choose one of: {', '.join(INFO)}")
    return INFO[game]


def parse_players(game: GameInfo, raw: object) -> list[dict]:
    """Validate ``[{"name", "colour"}]`` for a new session (`BadInput` says what is wrong)."""
    if not isinstance(raw, list):
        raise BadInput("players: expected a list of {name, colour}")
    if not game.min_players <= len(raw) <= game.max_players:
        raise BadInput(
            f"{game.name} is played by {game.min_players} to {game.max_players} players, "
            f"got {len(raw)}"
        )
    out: list[dict] = []
    for i, p in enumerate(raw):
        if not isinstance(p, dict):
            raise BadInput(f"players[{i}]: expected an object with name and colour")
        colour = p.get("colour", "")
        # (a colour of another type got a 500 here: [1].capitalize(); it is refused below)
        fallback = (colour.capitalize() if isinstance(colour, str) else "") or f"Player {i + 1}"
        name = p.get("name") or fallback
        if not isinstance(name, str):
            raise BadInput(f"players[{i}].name: expected text")
        name = " ".join(name.split())[: SETTINGS.max_name_length] or fallback
        if game.colours == ("",):
            colour = ""
        elif colour not in game.colours:
            raise BadInput(
                f"players[{i}].colour: {colour!r} is not one of {', '.join(game.colours)}"
            )
        out.append({"name": name, "colour": colour})
    used = [p["colour"] for p in out if p["colour"]]
    if len(used) != len(set(used)):
        raise BadInput("two players picked the same colour")
    if game.colours != ("",):
        # Seating order follows the game's order round the table (castle walls, board sides).
        out.sort(key=lambda p: game.colours.index(p["colour"]))
    return out


def parse_settings(game: GameInfo, raw: object) -> dict[str, str]:
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise BadInput("options: expected an object")
    out = {}
    for name, spec in game.settings.items():
        value = str(raw.get(name, spec["default"]))
        if value not in spec["choices"]:
            raise OptionError(
                f"{name}: {value!r} is not one of {', '.join(spec['choices'])}"
            )
        out[name] = value
    unknown = [k for k in raw if k not in game.settings]
    if unknown:
        raise OptionError(f"{game.name} has no setting {', '.join(map(repr, unknown))}")
    return out
