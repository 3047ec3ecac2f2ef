"""Bad input a user (or a script) can send the JSON API: each gets a 4xx with the contract's
error body, never a 500, and a refused action leaves the game session as it was (session 31,
bad-input audit; docs/webapp.md)."""

import io
import json

import pytest

from tests.webapp.conftest import error_code
from tests.webapp.test_api import jpeg


@pytest.mark.parametrize(
    "game, players",
    [
        # a player's colour that is not text: was a 500 ([...].capitalize() for the name)
        ("simsala-hopp", [{"colour": ["blue"]}, {"colour": "yellow"}]),
        ("simsala-hopp", [{"colour": {"c": "blue"}}, {"colour": "yellow"}]),
        ("hop-la-bille", [{"colour": 5}, {"colour": "north"}]),
        ("mauerhuepfer", [{"colour": True}, {"colour": "red"}]),
    ],
)
def test_a_colour_that_is_not_text_is_400(client, game, players):
    res = client.post("/api/sessions", json={"game": game, "players": players})
    assert res.status_code == 400 and error_code(res) == "bad_input"
    assert "players[0].colour" in res.get_json()["error"]["message"]


CHECK = {"type": "check", "facts": {
    "zones": {"north": {"marble-red": 2, "marble-green": 1}},
    "cards": {"north": [{"colour": "green",
                         "marbles": ["marble-red", "marble-red", "marble-green"]}]}}}


@pytest.mark.parametrize(
    "action",
    [
        # a side or colour that is not text: was a 500 (a list cannot be looked up)
        {"type": "return-card", "zone": ["north"], "colour": "red"},
        {"type": "return-card", "zone": {"n": 1}, "colour": "red"},
        {"type": "return-card", "zone": "north", "colour": ["red"]},
        {"type": "return", "zone": ["north"], "index": 0},  # (after a check found card 0)
        {"type": "return", "zone": {"n": 1}, "index": 0},
        # an index true / false: card 1 / 0 was returned without a word
        {"type": "return", "zone": "north", "index": False},
        {"type": "return", "zone": "north", "index": [0]},
    ],
)
def test_hop_la_bille_action_of_wrong_types_is_400_and_keeps_the_game(new_session, act,
                                                                         client, action):
    s = new_session("hop-la-bille", [{"colour": "north"}, {"colour": "south"}],
                    {"variant": "pile"})
    status, checked = act(s["id"], CHECK)
    assert status == 200
    status, body = act(s["id"], action)
    assert status == 400 and body["error"]["code"] == "bad_input", body
    kept = client.get(f"/api/sessions/{s['id']}").get_json()
    assert kept["version"] == checked["version"] and kept["view"] == checked["view"]
    assert kept["log"] == checked["log"]


def piece(label, center, zone="north"):
    return {"label": label, "zone": zone, "center": center}


@pytest.mark.parametrize(
    "game, pieces, facts, path",
    [
        # the photo's facts sent back with zones not an object: was a 500 (set(5), sorted())
        ("hop-la-bille", [], {"zones": 5}, "facts.zones"),
        ("hop-la-bille", [], {"zones": [["north"]]}, "facts.zones"),
        ("hop-la-bille", [piece("marble-red", [1, 2])], {"zones": [3]}, "facts.zones"),
        # centres far off any photo: was a 500 (OverflowError squaring them for the line)
        ("magic-rabbit", [piece("hat-1", [1e200, 1e200]), piece("hat-2", [-1e200, -1e200])],
         None, "pieces[0].center"),
        # a centre true / false: taken as 1 / 0
        ("troetofanten", [piece("back", [True, 2])], None, "pieces[0].center"),
    ],
)
def test_corrected_pieces_of_wrong_types_are_400(client, game, pieces, facts, path):
    res = client.post("/api/score/facts", json={"game": game, "pieces": pieces, "facts": facts})
    assert res.status_code == 400 and error_code(res) == "bad_facts"
    assert res.get_json()["error"]["message"].startswith(path)


def test_hop_la_bille_pieces_with_no_zones_in_the_facts_still_score(client):
    # (null zones in the photo's facts: read as none, as a missing "zones" is)
    res = client.post("/api/score/facts", json={
        "game": "hop-la-bille", "pieces": [piece("marble-red", [1, 2])],
        "facts": {"zones": None, "cards": {}}})
    assert res.status_code == 200, res.get_json()
    assert res.get_json()["facts"]["zones"] == {"north": {"marble-red": 1}}


def teach_form(name):
    return {"game": "simsala-hopp", "name": name, "photo": (io.BytesIO(jpeg()), "p.jpg"),
            "taps": json.dumps([{"photo": 0, "x": 5, "y": 5, "label": "frog"}])}


def test_teach_name_taken_by_a_file_is_400_before_the_photos(client, data_dir):
    # (saving over the file was a 500, FileExistsError, after the photos were read)
    (data_dir / "teach").mkdir(parents=True)
    (data_dir / "teach" / "kitchen").write_text("not a profile")
    res = client.post("/api/teach", data=teach_form("kitchen"),
                      content_type="multipart/form-data")
    assert res.status_code == 400 and error_code(res) == "bad_input"
    assert "taken on the server by a file" in res.get_json()["error"]["message"]


def test_teach_profile_the_server_cannot_save_is_503(client, monkeypatch):
    # (the disk full while saving: was a 500 with OSError's words)
    class Unsavable:
        def save(self, folder):
            raise OSError(28, "No space left on device")

    monkeypatch.setattr("vision.teach.profile_from_taps", lambda *a, **k: Unsavable())
    res = client.post("/api/teach", data=teach_form("kitchen"),
                      content_type="multipart/form-data")
    assert res.status_code == 503 and error_code(res) == "unavailable"
    assert "No space left on device" in res.get_json()["error"]["message"]
