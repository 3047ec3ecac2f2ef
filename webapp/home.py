"""Landing page (a placeholder until the phone page is built)."""

from flask import Blueprint

from scoring import GAMES

bp = Blueprint("home", __name__)


@bp.get("/")
def index():
    items = "".join(f"<li>{g}</li>" for g in GAMES)
    return (
        "<!doctype html><meta name=viewport content='width=device-width,initial-scale=1'>"
        f"<title>tablescore</title><h1>tablescore</h1><p>Games:</p><ul>{items}</ul>"
    )


@bp.get("/healthz")
def healthz():
    return {"ok": True}
