"""The page itself: one HTML shell plus local static files (no CDN; works offline on a LAN)."""

from __future__ import annotations

from flask import Blueprint, render_template

from webapp import games

bp = Blueprint("pages", __name__)


@bp.get("/")
def index():
    return render_template("index.html", games_json=[g.to_json() for g in games.INFO.values()])


@bp.get("/healthz")
def healthz():
    return {"ok": True}
