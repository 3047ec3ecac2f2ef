"""The page itself: one HTML shell plus local static files (no CDN; works offline on a LAN)."""

from __future__ import annotations

from flask import Blueprint, render_template

from webapp import games

bp = Blueprint("pages", __name__)


def photo_games() -> set[str]:
    """The games the vision pipeline of this build can read from a photo."""
    try:
        from vision.pipeline import PHOTO_GAMES
    except Exception:  # no vision part in this build (or it is broken): type facts in
        return set()
    return set(PHOTO_GAMES)


@bp.get("/")
def index():
    readable = photo_games()
    data = [{**g.to_json(), "photo": g.id in readable} for g in games.INFO.values()]
    return render_template("index.html", games_json=data)


@bp.get("/healthz")
def healthz():
    return {"ok": True}
