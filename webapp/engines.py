"""Per-game session engines: what a game session remembers between photos and how each action
changes it. Pure functions over JSON-able dicts (the stored session ``state``, see
``webapp.games``); scores always come from ``scoring.score_facts`` (never from the client).

Each engine offers:
- ``new_play(players, options) -> dict``
- ``score_options(state) -> dict[str, str]``: the scorer's options for the turn now
- ``act(state, action, now) -> str``: change ``state["play"]`` in place for one action; returns
  a line for the session's log. Raises `BadInput` / `RuleError` for actions the game forbids.
- ``view(state, now) -> dict``: what the page shows (standings, whose turn, verdicts).
"""

from __future__ import annotations

import copy
import time

import scoring
from scoring import magic_rabbit
from tablescore.errors import BadInput, RuleError
from webapp import games, simsala

# -- helpers -------------------------------------------------------------------------------


def _facts(action: dict) -> dict:
    facts = action.get("facts")
    if not isinstance(facts, dict):
        raise BadInput("this action needs the facts object (from a photo or typed in)")
    return facts


def _name_of(state: dict, colour: str) -> str:
    for p in state["players"]:
        if p["colour"] == colour:
            return p["name"]
    return colour


# -- Magic Rabbit --------------------------------------------------------------------------


class MagicRabbit:
    rules = magic_rabbit

    @staticmethod
    def new_play(players, options):
        return {
            "hourglass": {"started_at": None, "duration_s": MagicRabbit.rules.HOURGLASS_SECONDS},
            "reveal": None,
            "games": [],
        }

    @staticmethod
    def score_options(state):
        return {"players": str(len(state["players"]))}

    @staticmethod
    def act(state, action, now):
        play = state["play"]
        kind = action.get("type")
        if kind == "start-hourglass":
            play["hourglass"]["started_at"] = now
            play["reveal"] = None
            return "The hourglass was turned: 2 min 30 s."
        if kind == "reveal":
            facts = _facts(action)
            score, warnings = scoring.score_facts("magic-rabbit", facts, score_options(state))
            play["reveal"] = {"facts": facts, "score": score, "warnings": warnings}
            play["games"].append({"won": score["won"], "at": now})
            play["hourglass"]["started_at"] = None  # the game is over; ready for the next
            if score["won"]:
                return "Reveal: every hat is in order and every rabbit under its hat. Won!"
            return f"Reveal: {len(score['wrong_positions'])} position(s) wrong. Not this time."
        if kind == "new-game":
            play["hourglass"]["started_at"] = None
            play["reveal"] = None
            return "New game: shuffle and lay out the line."
        raise BadInput(f"Magic Rabbit has no action {kind!r}")

    @staticmethod
    def view(state, now):
        play = state["play"]
        hg = play["hourglass"]
        remaining = None
        if hg["started_at"] is not None:
            glass = MagicRabbit.rules.Hourglass(hg["started_at"], hg["duration_s"])
            remaining = round(glass.remaining(now), 1)
        games_played = play["games"]
        return {
            "hourglass_remaining_s": remaining,
            "hourglass_duration_s": hg["duration_s"],
            "reveal": play["reveal"],
            "played": len(games_played),
            "won": sum(1 for g in games_played if g["won"]),
        }


# -- Hop la bille --------------------------------------------------------------------------

CARDS_TO_WIN = {"normal": 3, "suite": 3, "not-time": 1}
PILE_SHORT_MARBLES = 11  # "the winner is the first player to have 11 marbles on their cards"


class HopLaBille:
    @staticmethod
    def new_play(players, options):
        return {"returned": {p["colour"]: [] for p in players}, "last": None}

    @staticmethod
    def score_options(state):
        return {"variant": state["options"].get("variant", "normal")}

    @staticmethod
    def act(state, action, now):
        play = state["play"]
        kind = action.get("type")
        if kind == "check":
            facts = _facts(action)
            score, warnings = scoring.score_facts("hop-la-bille", facts, score_options(state))
            play["last"] = {"facts": facts, "score": score, "warnings": warnings}
            done = sum(len(v) for v in score.get("completed", {}).values())
            return f"Checked the cloth: {done} card(s) complete."
        if kind == "return":
            # Turn over a card the last check found complete (its marbles count in 'pile').
            last = play["last"]
            zone, index = action.get("zone"), action.get("index")
            # (a zone of another type was a 500: a list cannot be looked up; an index true or
            # false returned card 0 or 1)
            if not isinstance(zone, str) or isinstance(index, bool) or not isinstance(index, int):
                raise BadInput("return needs a player's side (text) and the card's index (a "
                               "whole number)")
            if not last or index not in last["score"].get("completed", {}).get(zone, []):
                raise RuleError("only a card the last photo found complete can be returned")
            if zone not in play["returned"]:
                raise BadInput(f"nobody sits at {zone!r}")
            card = last["facts"]["cards"][zone][index]
            play["returned"][zone].append(
                {"colour": card["colour"], "marbles": len(card.get("marbles", []))}
            )
            last["score"]["completed"][zone].remove(index)
            return f"{_name_of(state, zone)} returned a {card['colour']} card."
        if kind == "return-card":
            # By hand: a card returned earlier (colour decides its marbles: 3, 4 or 5).
            zone, colour = action.get("zone"), action.get("colour")
            sizes = {"green": 3, "blue": 4, "red": 5}
            if not (isinstance(zone, str) and isinstance(colour, str)) \
                    or zone not in play["returned"] or colour not in sizes:  # (a list: a 500)
                raise BadInput("return-card needs a player's side and a card colour green|blue|red")
            play["returned"][zone].append({"colour": colour, "marbles": sizes[colour]})
            return f"{_name_of(state, zone)} returned a {colour} card."
        raise BadInput(f"Hop la bille has no action {kind!r}")

    @staticmethod
    def view(state, now):
        play = state["play"]
        variant = state["options"].get("variant", "normal")
        rows = []
        for p in state["players"]:
            cards = play["returned"].get(p["colour"], [])
            rows.append(
                {
                    "name": p["name"],
                    "colour": p["colour"],
                    "returned": len(cards),
                    "marbles": sum(c["marbles"] for c in cards),
                }
            )
        winner = None
        need = CARDS_TO_WIN.get(variant)
        if need is not None:
            winners = [r["name"] for r in rows if r["returned"] >= need]
            winner = winners[0] if winners else None
        if variant in ("pile", "pile-short"):
            # Most marbles on returned cards; tie -> most cards (publisher's French rules).
            rows.sort(key=lambda r: (-r["marbles"], -r["returned"]))
        if variant == "pile-short":
            # The shorter game: the first to 11 marbles on returned cards wins.
            winners = [r["name"] for r in rows if r["marbles"] >= PILE_SHORT_MARBLES]
            winner = winners[0] if winners else None
        return {"players": rows, "winner": winner, "last": play["last"], "variant": variant}


# -- Mauerhuepfer --------------------------------------------------------------------------


class Mauerhuepfer:
    @staticmethod
    def new_play(players, options):
        return {"last": None}

    @staticmethod
    def score_options(state):
        return {}

    @staticmethod
    def act(state, action, now):
        kind = action.get("type")
        if kind == "check":
            facts = _facts(action)
            score, warnings = scoring.score_facts("mauerhuepfer", facts, {})
            state["play"]["last"] = {"facts": facts, "score": score, "warnings": warnings}
            dice = facts.get("dice")
            winner = score.get("winner")
            return f"Board read: dice {dice}" + (f"; {winner} has won!" if winner else ".")
        raise BadInput(f"Mauerhuepfer has no action {kind!r}")

    @staticmethod
    def view(state, now):
        return {"last": state["play"]["last"]}


# -- Der Troetofanten-Zirkus ---------------------------------------------------------------


class Troetofanten:
    @staticmethod
    def new_play(players, options):
        # "With 1-4 players up to 100 points, with 5-8 players up to 50 points".
        return {"rounds": [], "target": 100 if len(players) <= 4 else 50}

    @staticmethod
    def score_options(state):
        return {}

    @staticmethod
    def act(state, action, now):
        play = state["play"]
        kind = action.get("type")
        if kind == "round":
            sides = [p["colour"] for p in state["players"]]
            raw = action.get("points", {})
            if not isinstance(raw, dict) or ("facts" not in action and not raw):
                raise BadInput("round needs facts or points {side: n}")
            points = {}
            for s in sides:
                v = raw.get(s, 0)
                if isinstance(v, bool) or not isinstance(v, int) or abs(v) > 200:
                    raise BadInput(f"points.{s}: expected a whole number, got {v!r}")
                points[s] = v
            if "facts" in action:
                # The photo's four sides; typed points only for seats 5-8.
                facts = _facts(action)
                score, warnings = scoring.score_facts("troetofanten", facts, {})
                for s in sides:
                    if s in score["points"] or s not in games.EXTRA_SEATS:
                        points[s] = int(score["points"].get(s, 0))
            play["rounds"].append({"points": points})
            text = ", ".join(f"{_name_of(state, s)} {n}" for s, n in points.items())
            return f"Round {len(play['rounds'])}: {text}."
        raise BadInput(f"Troetofanten has no action {kind!r}")

    @staticmethod
    def view(state, now):
        play = state["play"]
        totals = {p["colour"]: 0 for p in state["players"]}
        for r in play["rounds"]:
            for s, n in r["points"].items():
                totals[s] = totals.get(s, 0) + n
        best = max(totals.values()) if totals else 0
        winner = None
        if best >= play["target"]:
            leaders = [s for s, n in totals.items() if n == best]
            winner = " and ".join(_name_of(state, s) for s in leaders)
        return {
            "rounds": play["rounds"],
            "totals": totals,
            "target": play["target"],
            "winner": winner,
        }


ENGINES = {
    "simsala-hopp": simsala.SimsalaHopp,
    "magic-rabbit": MagicRabbit,
    "hop-la-bille": HopLaBille,
    "mauerhuepfer": Mauerhuepfer,
    "troetofanten": Troetofanten,
}


def score_options(state: dict) -> dict[str, str]:
    return ENGINES[state["game"]].score_options(state)


def new_state(game: str, players: object, options: object) -> dict:
    info = games.info(game)
    ps = games.parse_players(info, players)
    opts = games.parse_settings(info, options)
    state = {"game": game, "players": ps, "options": opts, "log": [], "undo": []}
    state["play"] = ENGINES[game].new_play(ps, opts)
    state["log"].append({"at": time.time(), "text": "New game: " + ", ".join(
        f"{p['name']} ({p['colour']})" if p["colour"] else p["name"] for p in ps)})
    return state


def apply(state: dict, action: object, now: float | None = None) -> dict:
    """The state after one action (a new dict; the input is not changed)."""
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise BadInput('an action is an object with a "type"')
    now = time.time() if now is None else now
    new = copy.deepcopy(state)
    if action["type"] == "undo":
        if not new["undo"]:
            raise RuleError("nothing to undo")
        new["play"] = new["undo"].pop()
        text = "Undid the last step."
    else:
        before = copy.deepcopy(new["play"])
        text = ENGINES[new["game"]].act(new, action, now)
        new["undo"] = (new["undo"] + [before])[-games.SETTINGS.max_undo:]
    new["log"] = (new["log"] + [{"at": now, "text": text}])[-games.SETTINGS.max_log:]
    return new


def view(state: dict, now: float | None = None) -> dict:
    now = time.time() if now is None else now
    return ENGINES[state["game"]].view(state, now)
