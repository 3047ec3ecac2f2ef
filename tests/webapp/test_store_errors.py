"""The game store's SQLite file when it cannot be used: damaged, locked by another program, or
its folder cannot be made (session 19, H5). Each answered a 500 "the server failed:
DatabaseError: file is not a database" or, at `tablescore serve`, a traceback."""

import dataclasses
import sqlite3

import pytest

from tests.webapp.conftest import error_code
from webapp import create_app
from webapp.store import StoreUnavailable

PLAYERS = [{"name": "Ann", "colour": "north"}, {"name": "Ben", "colour": "south"}]
ROUND = {"type": "round", "points": {"north": 3, "south": 2}}


def new_game(client) -> str:
    res = client.post("/api/sessions", json={"game": "troetofanten", "players": PLAYERS})
    assert res.status_code == 201, res.get_json()
    return res.get_json()["id"]


def damage(data_dir) -> None:
    for f in data_dir.glob("tablescore.sqlite3*"):
        f.write_bytes(b"not a database " * 500)


@pytest.mark.parametrize("content", [b"not a database " * 500, b"\x00" * 4096,
                                     b"SQLite format 3\x00" + b"\xff" * 200])
def test_a_damaged_file_at_start_names_it(tmp_path, content):
    (tmp_path / "tablescore.sqlite3").write_bytes(content)
    with pytest.raises(StoreUnavailable) as exc:
        create_app({"TESTING": True, "DATA_DIR": str(tmp_path)})
    message = str(exc.value)
    assert "tablescore.sqlite3" in message and "move it aside" in message
    assert exc.value.code == "store_unavailable"


@pytest.mark.parametrize("method, path, body", [
    ("get", "/api/sessions", None),
    ("get", "/api/sessions/{sid}", None),
    ("post", "/api/sessions/{sid}/actions", ROUND),
    ("post", "/api/sessions", {"game": "troetofanten", "players": PLAYERS}),
    ("delete", "/api/sessions/{sid}", None),
    ("get", "/api/scans/1", None),
])
def test_a_file_damaged_while_serving_is_a_503_naming_it(client, data_dir, method, path, body):
    sid = new_game(client)
    damage(data_dir)
    res = getattr(client, method)(path.format(sid=sid), json=body)
    assert res.status_code == 503, res.get_json()
    assert error_code(res) == "store_unavailable"
    assert "tablescore.sqlite3" in res.get_json()["error"]["message"]


def test_a_locked_file_is_busy_and_changes_nothing(app, client, data_dir):
    sid = new_game(client)
    store = app.extensions["tablescore.store"]
    store.settings = dataclasses.replace(store.settings, busy_timeout_ms=100)
    other = sqlite3.connect(data_dir / "tablescore.sqlite3", isolation_level=None)
    try:
        other.execute("BEGIN EXCLUSIVE")  # another program (a backup, a second server) writes
        res = client.post(f"/api/sessions/{sid}/actions", json=ROUND)
        assert res.status_code == 503 and error_code(res) == "store_busy"
        assert "try again" in res.get_json()["error"]["message"]
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert client.get(f"/api/sessions/{sid}").get_json()["version"] == 1
    assert client.post(f"/api/sessions/{sid}/actions", json=ROUND).status_code == 200


@pytest.mark.parametrize("nested, words", [(False, "it is a file"),
                                           (True, "Not a directory")])
def test_a_data_folder_that_cannot_be_made(tmp_path, nested, words):
    (tmp_path / "f").write_text("a file, not a folder")
    folder = tmp_path / "f" / "sub" if nested else tmp_path / "f"
    with pytest.raises(StoreUnavailable) as exc:
        create_app({"TESTING": True, "DATA_DIR": str(folder)})
    assert words in str(exc.value) and "--data" in str(exc.value)


def test_serve_on_a_damaged_store_is_the_error_json(run_cli, tmp_path):
    (tmp_path / "tablescore.sqlite3").write_bytes(b"not a database " * 500)
    code, out = run_cli("serve", "--port", "0", "--data", tmp_path)
    assert code == 2 and out["error"]["code"] == "store_unavailable", out
