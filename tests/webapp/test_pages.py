"""The HTML shell and static files: served locally, nothing from a CDN."""

import json
import re
from pathlib import Path

import pytest

import webapp

STATIC = Path(webapp.__file__).parent / "static"


def test_index_embeds_every_game(client):
    res = client.get("/")
    assert res.status_code == 200
    html = res.get_data(as_text=True)
    data = re.search(r'<script id="games-data" type="application/json">(.*?)</script>', html, re.S)
    games = json.loads(data.group(1))
    assert [g["id"] for g in games] == [
        "simsala-hopp", "magic-rabbit", "hop-la-bille", "mauerhuepfer", "troetofanten"
    ]
    assert 'name="viewport"' in html


def test_health(client):
    assert client.get("/healthz").get_json() == {"ok": True}


@pytest.mark.parametrize("name", ["app.js", "app.css", "icon.svg"])
def test_static_files_served(client, name):
    res = client.get(f"/static/{name}")
    assert res.status_code == 200
    assert len(res.data) > 100


PAGE_FILES = sorted(STATIC.iterdir()) + [STATIC.parent / "templates" / "index.html"]


@pytest.mark.parametrize("path", PAGE_FILES, ids=lambda p: p.name)
def test_no_external_resources(path):
    # Only local URLs: the page must work offline on a LAN (the SVG namespace is not fetched).
    text = path.read_text(encoding="utf-8")
    urls = re.findall(r"https?://[^\s'\"`)]+", text)
    assert [u for u in urls if u != "http://www.w3.org/2000/svg"] == []


def test_camera_markup_is_phone_safe():
    js = (STATIC / "app.js").read_text(encoding="utf-8")
    # iPhones only play a camera stream inline and muted; the back camera is preferred.
    for needle in ("playsinline", "muted", "autoplay", "facingMode: { ideal: 'environment' }",
                   "capture: 'environment'", "accept: 'image/*'", "if (inFlight) return"):
        assert needle in js


@pytest.mark.parametrize("method, path, code", [
    ("get", "/api/nothing-here", "no_such_endpoint"),
    ("post", "/api/score/nothing", "no_such_endpoint"),
    ("get", "/api", "no_such_endpoint"),
    ("get", "/api/", "no_such_endpoint"),
    ("get", "/api/sessions/abc", "no_such_session"),  # a path the API has, an id it has not
    ("get", "/api/scans/12345", "no_such_scan"),
    ("get", "/api/scans/abc", "no_such_scan"),  # (an <int:> route: were unknown paths)
    ("get", "/api/scans/-1/photo", "no_such_scan"),
])
def test_unknown_api_path_is_json(client, method, path, code):
    # An unknown path answered Werkzeug's "not_found", the contract's code for "the photo was
    # read but nothing was found on it" (NotFound, exit 3 / 422; session 18, H7).
    res = getattr(client, method)(path)
    assert res.status_code == 404
    err = res.get_json()["error"]
    assert err["code"] == code
    if code == "no_such_endpoint":  # names the path asked for and the API's paths
        assert path in err["message"] and "/api/score/facts" in err["message"]
        assert "/api/sessions/<sid>" in err["message"]
    else:
        assert path.split("/")[3] in err["message"]


def test_a_page_path_beginning_with_api_is_a_page_404(client):
    res = client.get("/apiary")  # not under /api/: the pages' 404, not the API's JSON
    assert res.status_code == 404 and not res.is_json


def test_wrong_method_is_json(client):
    res = client.get("/api/score")
    assert res.status_code == 405
    assert "error" in res.get_json()


def test_games_say_which_photos_this_build_reads(client, monkeypatch):
    import webapp.pages

    monkeypatch.setattr(webapp.pages, "photo_games", lambda: {"simsala-hopp"})
    games = {g["id"]: g["photo"] for g in client.get("/api/games").get_json()["games"]}
    assert games == {"simsala-hopp": True, "magic-rabbit": False, "hop-la-bille": False,
                     "mauerhuepfer": False, "troetofanten": False}


def test_every_game_reads_photos_in_this_build(client):
    # all five games have a vision reader now (Mauerhuepfer through vision.mauer)
    games = {g["id"]: g["photo"] for g in client.get("/api/games").get_json()["games"]}
    assert all(games.values()), games
