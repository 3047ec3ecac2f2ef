"""Game sessions over HTTP: start a game, read it, record what happened, undo, delete.

``POST /api/sessions`` ``{"game", "players": [{"name", "colour"}], "options": {}}`` -> 201
``GET /api/sessions`` -> ``{"sessions": [summary]}``
``GET /api/sessions/<id>`` -> the session with its ``view``
``POST /api/sessions/<id>/actions`` ``{"type", "version"?, ...}`` -> the changed session
``DELETE /api/sessions/<id>`` -> ``{"deleted": id}``
"""

from __future__ import annotations

import time

from flask import Blueprint, current_app

from tablescore.errors import BadInput
from webapp import engines, games
from webapp.api import json_body

bp = Blueprint("sessions", __name__, url_prefix="/api/sessions")


def store():
    return current_app.extensions["tablescore.store"]


def public(session: dict) -> dict:
    state = session["state"]
    return {
        "id": session["id"],
        "game": session["game"],
        "name": games.info(session["game"]).name,
        "created": session["created"],
        "updated": session["updated"],
        "version": session["version"],
        "players": state["players"],
        "options": state["options"],
        "score_options": engines.score_options(state),
        "log": state["log"][-30:],
        "can_undo": bool(state["undo"]),
        "view": engines.view(state, time.time()),
        "server_time": time.time(),
    }


@bp.post("")
def create():
    body = json_body()
    game = body.get("game")
    games.info(game)
    state = engines.new_state(game, body.get("players"), body.get("options"))
    session = store().create_session(game, state)
    return public(session), 201


@bp.get("")
def list_sessions():
    return {
        "sessions": [
            {
                "id": s["id"],
                "game": s["game"],
                "name": games.info(s["game"]).name,
                "players": [p["name"] for p in s["state"]["players"]],
                "updated": s["updated"],
            }
            for s in store().list_sessions()
        ]
    }


@bp.get("/<sid>")
def get(sid: str):
    return public(store().get_session(sid))


@bp.post("/<sid>/actions")
def act(sid: str):
    action = json_body()
    version = action.pop("version", None)
    if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
        raise BadInput("version: expected a whole number")
    session = store().update_session(
        sid, lambda state: engines.apply(state, action), expect_version=version
    )
    return public(session)


@bp.delete("/<sid>")
def delete(sid: str):
    store().delete_session(sid)
    return {"deleted": sid}
