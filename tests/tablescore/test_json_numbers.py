"""NaN, Infinity and -Infinity are not JSON: Python's json took them, and an answer that echoes
the facts printed them back, so stdout (and the HTTP body) was no JSON for any other reader
(acceptance pass, session 17 H5)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from webapp import create_app


@pytest.fixture
def client(tmp_path):
    return create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data")}).test_client()


# -- NaN and Infinity are not JSON ---------------------------------------------------------

NOT_JSON_NUMBERS = [
    ('{"zones": {"north": {}}, "note": NaN}', "NaN is not a JSON number"),  # echoed as NaN
    ('{"zones": {"north": {"elephant-3": Infinity}}}', "Infinity is not a JSON number"),
    ('{"zones": {"north": {}}, "x": [-Infinity]}', "-Infinity is not a JSON number"),
    ('{"zones": {"north": {}}, "x": 1e400}', "1e400 is too large"),  # float inf: "Infinity"
    ('{"zones": {"north": {}}, "x": -2.5e999}', "-2.5e999 is too large"),
    ('{"zones": {}, "x": ' + "9" * 5000 + "}", "5000 digits"),  # ValueError: a traceback
]
IDS = ["nan", "inf", "-inf", "1e400", "-2.5e999", "5000-digits"]


@pytest.mark.parametrize("text, words", NOT_JSON_NUMBERS, ids=IDS)
def test_facts_file_with_nan_is_refused(run_cli, write_json, text, words):
    # Python's json took them and `facts` echoed them: stdout was no JSON for other readers.
    code, out = run_cli("score", "--game", "troetofanten", "--facts", write_json(text),
                        "--json")
    assert code == 2 and isinstance(out, dict), out
    assert words in out["error"]["message"]


@pytest.mark.parametrize("text, words", NOT_JSON_NUMBERS, ids=IDS)
def test_facts_body_with_nan_is_400(client, text, words):
    res = client.post("/api/score/facts", content_type="application/json",
                      data='{"game": "troetofanten", "facts": ' + text + "}")
    assert res.status_code == 400
    json.loads(res.data, parse_constant=lambda c: pytest.fail(c))  # (strict: the body is JSON)
    assert words in res.get_json()["error"]["message"]


def test_good_facts_still_parse_numbers(run_cli, write_json):
    big = "9" * 300  # long, but well within what Python converts
    path = write_json('{"zones": {"north": {"elephant-3": 1}}, "x": [1.5e3, -0.0, 1e308, '
                      + big + "]}")
    code, out = run_cli("score", "--game", "troetofanten", "--facts", path, "--json")
    assert code == 0
    x = out["facts"]["x"]
    assert math.isclose(x[0], 1500.0) and x[1] == 0 and x[2] == 1e308 and x[3] == int(big)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_facts_from_an_endless_device_are_refused(run_cli, monkeypatch):
    # /dev/zero has no size: it was read until memory ran out (session 17, H5).
    import tablescore.jsonfile

    monkeypatch.setattr(tablescore.jsonfile, "MAX_FILE_BYTES", 100_000)
    code, out = run_cli("score", "--game", "troetofanten", "--facts", "/dev/zero", "--json")
    assert code == 2 and "too large" in out["error"]["message"]


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="needs named pipes")
def test_facts_with_a_byte_order_mark_and_from_a_pipe(run_cli, tmp_path):
    import os
    import threading

    text = '\ufeff{"zones": {"north": {"elephant-3": 1}}}'
    fifo = tmp_path / "facts.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(text, encoding="utf-8"))
    writer.start()
    code, out = run_cli("score", "--game", "troetofanten", "--facts", fifo, "--json")
    writer.join(timeout=10)
    assert code == 0 and out["facts"]["zones"]["north"] == {"elephant-3": 1}


@pytest.mark.parametrize("data, words", [
    (b"\xff\xd8\xff\xe0" + b"\0" * 64, "it is a photo, not a JSON file"),  # was the codec's
    (b"\x89PNG\r\n\x1a\n" + b"\0" * 64, "it is a photo, not a JSON file"),  # own words
    ('{"zones": {}}'.encode("utf-16"), "it is UTF-16 text: save it as UTF-8"),
    (b'{"zones": {"north": "\xe9"}}', "byte 21 is not UTF-8"),  # Latin-1
])
def test_facts_file_that_is_no_utf8_text_says_what_it_is(run_cli, tmp_path, data, words):
    path = tmp_path / "facts.json"
    path.write_bytes(data)
    code, out = run_cli("score", "--game", "troetofanten", "--facts", path, "--json")
    assert code == 2 and "is not JSON text" in out["error"]["message"]
    assert words in out["error"]["message"]
