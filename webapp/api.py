"""The JSON API behind the page: score a photo, rescore corrected facts, game descriptions.

Every error answers the contract's ``{"error": {"code", "message"}}`` body (see
``webapp.errors``): 400 bad input, 413 upload too large, 422 nothing found on the photo.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from flask import Blueprint, Response, current_app, request

import scoring
from tablescore.cli import GAME_OPTIONS
from tablescore.errors import BadInput, TablescoreError
from tablescore.jsonfile import loads
from tablescore.photo_format import MIME, readable_kind, unsupported_message
from webapp import edit, engines, games, referee
from webapp.store import ScanNotFound

bp = Blueprint("api", __name__, url_prefix="/api")

TEACH_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
# The CLI's options that name a file on the machine they run on: over HTTP a client would
# make the server open any path it names (telling which exist; a device such as /dev/zero).
SERVER_PATH_OPTIONS = ("board",)


class Unavailable(TablescoreError):
    code = "unavailable"
    http_status = 503


def store():
    return current_app.extensions["tablescore.store"]


def json_body() -> dict:
    body = None
    if request.is_json:  # (other content types: no JSON body, as get_json(silent=True) took them)
        # (not get_json: its silent covers bad JSON, not [[[[...]]]] ~1000 deep: a 500)
        body = loads(request.get_data(as_text=True), "the JSON in the request body")
    if not isinstance(body, dict):
        raise BadInput("expected a JSON object in the request body")
    return body


def multipart_form(what: str) -> None:
    """`BadInput` for a body that is not a multipart form (a JSON body read as an empty form
    was answered "unknown game ''", though the JSON named one)."""
    if request.mimetype != "multipart/form-data":
        raise BadInput(f"{what} takes a multipart form (the photo as the file field 'photo', "
                       "'game' and the settings as fields), "
                       + (f"not {request.mimetype}" if request.mimetype else
                          "but the request has no body"))


def image_type(data: bytes) -> str:
    """The MIME type of a JPEG or PNG photo; `BadImage` for anything else, with the CLI's
    words and code for the same file (a HEIC, WebP, GIF ... file is named, with what to do)."""
    from vision.errors import BadImage  # (tablescore.errors only: no OpenCV)

    if not data:
        raise BadImage("the file is empty")
    kind = readable_kind(data)
    if kind is None:
        raise BadImage(unsupported_message(data))
    return MIME[kind]


def names_of(session: dict | None) -> dict[str, str]:
    if not session:
        return {}
    return {p["colour"]: p["name"] for p in session["state"]["players"] if p["colour"]}


def resolve_options(game: str, given: dict, session: dict | None) -> dict[str, str]:
    """The scorer's options: the session's (whose turn, seating, level) then the request's."""
    opts: dict[str, str] = {}
    if session is not None:
        if session["game"] != game:
            raise BadInput(f"session {session['id']} plays {session['game']}, not {game}")
        opts.update(engines.score_options(session["state"]))
    for name in GAME_OPTIONS:
        v = given.get(name)
        if v not in (None, "") and name in SERVER_PATH_OPTIONS:
            raise BadInput(f"{name}: the web API takes no file on the server (only the "
                           f"command line's --{name} does); leave it out for the shipped one")
        if v not in (None, ""):
            if not isinstance(v, str):
                raise BadInput(f"{name}: expected text")
            opts[name] = v
    return opts


def teach_dir(name: str | None) -> Path | None:
    if not name:
        return None
    if not TEACH_NAME.match(name):
        raise BadInput(f"teach profile names are letters, digits, '.', '_' and '-': {name!r}")
    path = Path(current_app.config["DATA_DIR"]) / "teach" / name
    if not path.is_dir():
        raise BadInput(f"no teach profile {name!r}")
    return path


def with_explanation(result: dict, game: str, options: dict, session: dict | None) -> dict:
    result["explanation"] = referee.explain(
        game, result.get("facts") or {}, result.get("score") or {}, options, names_of(session)
    )
    result["options"] = options
    return result


@bp.get("/games")
def list_games():
    from webapp.pages import photo_games

    readable = photo_games()
    return {"games": [{**g.to_json(), "photo": g.id in readable} for g in games.INFO.values()]}


@bp.post("/score")
def score_photo():
    """Multipart: ``photo`` file, ``game``, the game's option fields, optional ``session``."""
    multipart_form("POST /api/score")
    game = request.form.get("game", "")
    games.info(game)
    upload = request.files.get("photo")
    if upload is None:
        sent = ", ".join(repr(k) for k in request.files)  # (a script's 'file' or 'image')
        raise BadInput("send the photo as the multipart file field 'photo'"
                       + (f"; this form's file fields: {sent}" if sent else
                          "; this form has no file in it"))
    data = upload.read()
    mime = image_type(data)
    sid = request.form.get("session") or None
    session = store().get_session(sid) if sid else None
    options = resolve_options(game, request.form, session)
    try:
        from vision.pipeline import score_photo as pipeline
    except ImportError:
        raise Unavailable(
            "reading photos is not available in this build yet; enter what is on the table "
            "by hand"
        ) from None
    started = time.perf_counter()
    result = pipeline(data, game, options, teach=teach_dir(request.form.get("teach")))
    result.setdefault("timings_ms", {})
    result["timings_ms"]["server_total"] = round((time.perf_counter() - started) * 1000, 1)
    with_explanation(result, game, options, session)
    if session is not None:
        result["scan_id"] = store().add_scan(session["id"], game, data, mime, result)
    return result


@bp.post("/score/facts")
def score_facts():
    """JSON ``{"game", "options"?, "session"?, "facts"?, "pieces"?, "image"?, "area"?}``: the
    contract's answer for facts typed in, or rebuilt from corrected ``pieces``."""
    started = time.perf_counter()
    body = json_body()
    game = body.get("game")
    games.info(game)
    session = store().get_session(body["session"]) if body.get("session") else None
    given = body.get("options") or {}
    if not isinstance(given, dict):
        raise BadInput("options: expected an object")
    options = resolve_options(game, given, session)
    facts = body.get("facts")
    pieces = body.get("pieces")
    if pieces is not None:
        facts = edit.facts_from_pieces(game, pieces, facts)
    elif facts is None:
        raise BadInput("send 'facts' or 'pieces'")
    score, warnings = scoring.score_facts(game, facts, options)
    result = {
        "game": game,
        "image": body.get("image"),
        "area": body.get("area"),
        "pieces": pieces or [],
        "facts": facts,
        "score": score,
        "warnings": warnings,
        "timings_ms": {"total": round((time.perf_counter() - started) * 1000, 3)},
    }
    return with_explanation(result, game, options, session)


def kept_scan(scan_id: str) -> dict:
    """The kept photo `scan_id` names; `ScanNotFound` (404 `no_such_scan`) for any id that
    names none, "abc" and "-1" too (an `<int:>` route answered those as an unknown API path)."""
    if not re.fullmatch(r"[0-9]{1,30}", scan_id):
        raise ScanNotFound(f"no photo {scan_id!r}")
    return store().get_scan(int(scan_id))


@bp.get("/scans/<scan_id>")
def get_scan(scan_id: str):
    scan = kept_scan(scan_id)
    return {"id": scan["id"], "session_id": scan["session_id"], "result": scan["result"]}


@bp.get("/scans/<scan_id>/photo")
def get_scan_photo(scan_id: str):
    scan = kept_scan(scan_id)
    headers = {"Cache-Control": "max-age=86400"}
    return Response(scan["photo"], mimetype=scan["mime"], headers=headers)


def _mauer_position(body: dict):
    from scoring import mauerhuepfer as mh

    facts = body.get("facts")
    if not isinstance(facts, dict):
        raise BadInput("send the board's facts {dice, pawns, positions}")
    board = mh.load_board(None)
    dice = mh.parse_dice(facts.get("dice"), "facts.dice")
    position, warnings = mh.parse_position(
        {"positions": facts.get("positions", {})}, board, where="facts", strict=False
    )
    colour = body.get("colour")
    if colour not in games.INFO["mauerhuepfer"].colours:
        raise BadInput(f"colour: one of {', '.join(games.INFO['mauerhuepfer'].colours)}")
    return mh, board, position, dice, colour, warnings


@bp.post("/mauerhuepfer/moves")
def mauerhuepfer_moves():
    """JSON ``{"facts", "colour"}`` -> ``{"moves": [move], "warnings"}`` for the dice read."""
    mh, board, position, dice, colour, warnings = _mauer_position(json_body())
    moves = mh.legal_moves(board, position, colour, dice)
    return {"moves": [m.to_dict() for m in moves], "warnings": warnings}


@bp.post("/mauerhuepfer/check")
def mauerhuepfer_check():
    """JSON ``{"facts", "colour", "move": {"from", "to", "legs"?, "beats"?}}`` -> the verdict
    ``{"ok", "reason", "moves"}`` on the move a player describes."""
    body = json_body()
    mh, board, position, dice, colour, warnings = _mauer_position(body)
    verdict = mh.check_move(board, position, colour, dice, body.get("move"))
    return {**verdict.to_dict(), "warnings": warnings}
