"""The page's teach API (`webapp/teach.py`): POST /api/teach builds and stores a profile that
POST /api/score then uses by name; bad teach input answers 400 naming the photo or tap."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from webapp import create_app

SCENES2 = Path(__file__).resolve().parents[2] / "datasets" / "scenes-edition2" / "simsala-hopp"
SCENE = SCENES2 / "simsala-hopp-e2-s2-0000.jpg"


@pytest.fixture
def client(tmp_path):
    return create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data")}).test_client()


def post_teach(client, taps, name="kitchen", photos=(SCENE,), game="simsala-hopp"):
    form = {"game": game, "name": name, "taps": json.dumps(taps),
            "photo": [(io.BytesIO(Path(p).read_bytes() if isinstance(p, Path) else p),
                       Path(str(p)).name if isinstance(p, Path) else "blob.jpg")
                      for p in photos]}
    return client.post("/api/teach", data=form, content_type="multipart/form-data")


def truth_taps(n=None):
    truth = json.loads(SCENE.with_suffix(".json").read_text())
    pieces = [p for p in truth["pieces"] if p.get("visible", 1) > 0.99][:n]
    return [{"photo": 0, "x": p["center"][0], "y": p["center"][1], "label": p["label"]}
            for p in pieces]


@pytest.mark.slow
def test_teach_then_score_by_name(client):
    taps = truth_taps()
    res = post_teach(client, taps)
    assert res.status_code == 200, res.get_json()
    body = res.get_json()
    assert sum(body["labels"].values()) == len(taps)
    assert set(body["missing"]).isdisjoint(body["labels"])
    listed = client.get("/api/teach?game=simsala-hopp").get_json()["profiles"]
    assert [p["name"] for p in listed] == ["kitchen"]
    photo = (SCENES2 / "simsala-hopp-e2-s2-0001.jpg").read_bytes()
    res = client.post("/api/score", data={"game": "simsala-hopp", "magician": "blue",
                                          "players": "yellow,blue", "teach": "kitchen",
                                          "photo": (io.BytesIO(photo), "p.jpg")},
                      content_type="multipart/form-data")
    assert res.status_code == 200, res.get_json()
    assert res.get_json()["pieces"]


@pytest.mark.parametrize("taps, name, needle", [
    ([], "k", "no taps"),  # nothing named
    ([{"photo": 3, "x": 1, "y": 1, "label": "frog"}], "k", "no photo 3"),  # bad photo index
    ([{"photo": 0, "x": 1, "y": 1, "label": "dragon"}], "k", "dragon"),  # unknown label
    ([{"photo": 0, "x": 1, "y": 1}], "k", "tap 0"),  # tap without label
    ([{"photo": 0, "x": 1, "y": 1, "label": "frog"}], "../x", "names are"),  # unsafe name
])
def test_bad_teach_requests(client, taps, name, needle):
    res = post_teach(client, taps, name=name)
    assert res.status_code == 400
    assert needle in res.get_json()["error"]["message"]


@pytest.mark.parametrize("owner, needle", [
    ("troetofanten", "is for troetofanten"),  # another game's profile: was replaced silently
    ("simsala-hopp", "no taps"),  # the same game's: teaching it again may replace it
])
def test_a_name_another_game_uses_is_refused(client, tmp_path, owner, needle):
    meta = tmp_path / "data" / "teach" / "kitchen" / "profile.json"
    meta.parent.mkdir(parents=True)
    meta.write_text(json.dumps({"game": owner, "labels": [], "counts": {"mouse": 2}}))
    res = post_teach(client, [], name="kitchen")
    assert res.status_code == 400
    assert needle in res.get_json()["error"]["message"]
    assert json.loads(meta.read_text())["game"] == owner  # left as it was


def test_tap_on_no_piece_names_the_photo(client):
    res = post_teach(client, [{"photo": 0, "x": 3, "y": 3, "label": "frog"}])
    assert res.status_code == 400
    assert res.get_json()["error"]["message"].startswith(SCENE.name)


@pytest.mark.parametrize("game, some, never", [
    ("magic-rabbit", "rabbit-9", "dove"),  # doves come from the detector's heat
    ("troetofanten", "elephant-3", "marble-red"),
    ("hop-la-bille", "card-back", "dove"),  # marbles and cards
    ("mauerhuepfer", "pawn-black", "die-3"),  # the pawns' colours, not the dice
])
def test_teach_labels_per_game(client, game, some, never):
    body = client.get(f"/api/teach?game={game}").get_json()
    assert some in body["labels"] and never not in body["labels"]



@pytest.mark.slow
def test_teach_mauerhuepfer_pawns_then_score_by_name(client):
    """A committed edition-2 board photo, every pawn tapped: a pawn profile, used by name."""
    scene = SCENES2.parent / "mauerhuepfer" / "mauerhuepfer-e2-s2-0000.jpg"
    truth = json.loads(scene.with_suffix(".json").read_text())
    taps = [{"photo": 0, "x": p["center"][0], "y": p["center"][1], "label": p["label"]}
            for p in truth["pieces"] if p["label"].startswith("pawn-")]
    res = post_teach(client, taps, name="board", photos=(scene,), game="mauerhuepfer")
    assert res.status_code == 200, res.get_json()
    assert sum(res.get_json()["labels"].values()) == len(taps)
    photo = (SCENES2.parent / "mauerhuepfer" / "mauerhuepfer-e2-s2-0001.jpg").read_bytes()
    res = client.post("/api/score", data={"game": "mauerhuepfer", "teach": "board",
                                          "photo": (io.BytesIO(photo), "p.jpg")},
                      content_type="multipart/form-data")
    assert res.status_code == 200, res.get_json()
    assert res.get_json()["facts"]["pawns"]


@pytest.mark.parametrize("game, label, unit", [
    ("troetofanten", "elephant-3", "elephant"),  # taught per kind: its number is read apart
    ("troetofanten", "tootophant-5", "tootophant"),
    ("troetofanten", "mouse", "mouse"),
    ("simsala-hopp", "rabbit-blue", "rabbit-blue"),
])
def test_teach_labels_say_what_naming_them_teaches(client, game, label, unit):
    # The page listed "Not yet: elephant 1, elephant 3, ..." after an elephant was named:
    # twelve numbered cards to find where one of each kind is enough.
    units = client.get(f"/api/teach?game={game}").get_json()["units"]
    assert units[label] == unit
