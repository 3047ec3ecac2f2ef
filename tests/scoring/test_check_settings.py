"""`scoring.check_settings`: a game's settings checked without facts, before a photo is read,
so a bad option is exit 2 / HTTP 400 (the contract's code for a bad option) whatever the photo
shows. On c0eeac3 the scorer found it only after the play area: exit 3 / HTTP 422 ("no cloth
found") on a photo the reader could not read (acceptance pass, session 17 H5)."""

from __future__ import annotations

import io

import cv2
import numpy as np
import pytest

import scoring
from tablescore.errors import OptionError
from webapp import create_app

# An empty wooden table: no arena, no cloth, no card; read by no game.
TABLE = cv2.imencode(".jpg", np.full((480, 640, 3), (70, 110, 150), np.uint8))[1].tobytes()


@pytest.fixture
def client(tmp_path):
    return create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data")}).test_client()


# -- a bad option is exit 2 / HTTP 400 whatever the photo shows ------------------------------

BAD_OPTIONS = [
    ("hop-la-bille", {"variant": "bogus"}, "variant"),
    ("simsala-hopp", {"players": "yellow,blue"}, "--magician is required"),
    ("simsala-hopp", {"magician": "blue", "level": "5"}, "--level"),
    ("simsala-hopp", {"magician": "green"}, "green"),
    ("simsala-hopp", {"magician": "blue", "variant": "pile"}, "does not take --variant"),
    ("magic-rabbit", {"players": "9"}, "1-4"),
    ("troetofanten", {"level": "1"}, "does not take --level"),
    ("mauerhuepfer", {"board": "/nonexistent/board.json"}, "board file not found"),
]


@pytest.mark.parametrize("game, options, words", BAD_OPTIONS)
def test_check_settings_refuses_without_facts(game, options, words):
    with pytest.raises(Exception) as exc:
        scoring.check_settings(game, options)
    assert exc.value.exit_code == 2 and words in exc.value.message


@pytest.mark.parametrize("game, options", [
    ("hop-la-bille", {"variant": "pile-short"}), ("hop-la-bille", {}),
    ("simsala-hopp", {"magician": "Blue", "players": "yellow,blue", "level": "2"}),
    ("magic-rabbit", {"players": "3"}), ("troetofanten", {}), ("mauerhuepfer", {}),
    ("simsala-hopp", {"magician": "blue", "variant": None}),  # unset options are dropped
])
def test_check_settings_takes_good_options(game, options):
    scoring.check_settings(game, options)


def test_check_settings_is_an_option_error():
    with pytest.raises(OptionError):
        scoring.check_settings("hop-la-bille", {"variant": "bogus"})


@pytest.mark.parametrize("game, options, words", BAD_OPTIONS)
def test_bad_option_on_an_unreadable_photo_is_exit_2(run_cli, tmp_path, game, options, words):
    # Was exit 3 "no cloth found" (the options were checked only by the scorer, after the
    # photo was read): the contract's exit 2 is for a bad option.
    photo = tmp_path / "table.jpg"
    photo.write_bytes(TABLE)
    args = [f"--{k}={v}" for k, v in options.items()]
    code, out = run_cli("score", photo, "--game", game, *args, "--json")
    assert code == 2, out
    assert words in out["error"]["message"]


@pytest.mark.parametrize("game, options, words", BAD_OPTIONS[:3])
def test_bad_option_on_an_unreadable_photo_is_http_400(client, game, options, words):
    res = client.post("/api/score", data={"game": game, **options,
                                          "photo": (io.BytesIO(TABLE), "table.jpg")},
                      content_type="multipart/form-data")
    assert res.status_code == 400, res.get_json()
    assert words in res.get_json()["error"]["message"]
