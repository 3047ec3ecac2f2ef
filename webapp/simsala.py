"""Simsala Hopp tournament session: a thin layer over ``scoring.simsala_hopp.Tournament`` (the
rules' state machine: magician rotation, Simsala Stopp, Lazy Spells, counting, cups, the Magic
Decision Tap). The session stores ``Tournament.to_json()`` and restores it with ``from_json``.

Page actions (``{"type": ...}``):
- ``first-magician`` ``{"colour"}``: who is the youngest (only before anything was played)
- ``turn`` ``{"facts"}``: Simsala Stopp with the tiles from the photo or typed in
- ``lazy_spell`` ``{"player", "result"}`` / ``pass`` ``{"player"}``: step 6
- ``count_points``: step 7, the bats move
- ``tap`` ``{"facts", "foul"?}``: the current tapper's Magic Decision Tap
"""

from __future__ import annotations

from scoring import simsala_hopp as rules
from tablescore.errors import BadInput, RuleError
from webapp import referee


def _t(state: dict) -> rules.Tournament:
    return rules.Tournament.from_json(state["play"]["t"])


def _name(state: dict, colour: str | None) -> str:
    return next((p["name"] for p in state["players"] if p["colour"] == colour), colour or "")


class SimsalaHopp:
    @staticmethod
    def new_play(players, options):
        colours = [p["colour"] for p in players]
        t = rules.Tournament.start(colours, youngest=colours[0], level=options.get("level", "0"))
        return {"t": t.to_json(), "last": None, "started": False}

    @staticmethod
    def score_options(state):
        t = _t(state)
        who = t.magician or t.current_tapper or t.players[0]
        return {"magician": who, "players": ",".join(t.players), "level": str(t.level)}

    @staticmethod
    def act(state, action, now):
        play = state["play"]
        t = _t(state)
        kind = action.get("type")
        facts = action.get("facts")
        if kind == "first-magician":
            if play["started"]:
                raise RuleError("the first magician can only be chosen before the first turn")
            colour = action.get("colour")
            if colour not in t.players:
                raise BadInput(f"no player plays {colour!r}")
            new = rules.Tournament.start(t.players, youngest=colour, level=t.level)
        elif kind == "turn":
            if not isinstance(facts, dict):
                raise BadInput("a turn needs the facts (from the photo or typed in)")
            opts = SimsalaHopp.score_options(state)
            new = t.simsala_stopp(facts)
            play["last"] = {"facts": facts, "options": opts}
        elif kind in ("lazy_spell", "pass"):
            player = action.get("player") or t.current_spectator
            new = t.apply({"action": kind, "player": player, "result": action.get("result")})
        elif kind == "count_points":
            new = t.count_points()
        elif kind == "tap":
            player = t.current_tapper
            foul = action.get("foul", False)
            if not foul and not isinstance(facts, dict):
                raise BadInput("a tap needs the facts (from the photo or typed in)")
            new = t.apply(
                {"action": "decision_tap", "player": player, "facts": facts, "foul": foul}
            )
            if facts:
                play["last"] = {"facts": facts, "options": SimsalaHopp.score_options(state)}
        else:
            raise BadInput(f"Simsala Hopp has no action {kind!r}")
        if kind != "first-magician":
            play["started"] = True
        play["t"] = new.to_json()
        added = list(new.log[len(t.log):]) if kind != "first-magician" else list(new.log)
        return " ".join(added) or "OK."

    @staticmethod
    def view(state, now):
        t = _t(state)
        out = t.to_json()
        out["started"] = state["play"]["started"]
        out["current_spectator"] = t.current_spectator
        out["current_tapper"] = t.current_tapper
        if t.magician:
            out["lazy_order"] = list(rules.lazy_spell_order(t.players, t.magician))
        if t.phase in ("lazy_spell", "count"):
            out["turn_score"] = ts = t.turn_score().to_json()
            names = {p["colour"]: p["name"] for p in state["players"]}
            ts["explanation"] = referee.with_names(ts["explanation"], names)
        out["standings"] = sorted(t.players, key=lambda c: (-t.cups_of(c), -t.bat(c)))
        out["names"] = {c: _name(state, c) for c in t.players}
        out["log"] = out["log"][-10:]
        return out
