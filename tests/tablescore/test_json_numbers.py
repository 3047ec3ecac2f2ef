"""NaN, Infinity and -Infinity are not JSON: Python's json took them, and an answer that echoes
the facts printed them back, so stdout (and the HTTP body) was no JSON for any other reader
(acceptance pass, session 17 H5)."""

from __future__ import annotations

import json
import math

import pytest

from webapp import create_app


@pytest.fixture
def client(tmp_path):
    return create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data")}).test_client()


# -- NaN and Infinity are not JSON ---------------------------------------------------------

@pytest.mark.parametrize("text, constant", [
    ('{"zones": {"north": {}}, "note": NaN}', "NaN"),  # an ignored key was echoed as NaN
    ('{"zones": {"north": {"elephant-3": Infinity}}}', "Infinity"),
    ('{"zones": {"north": {}}, "x": [-Infinity]}', "-Infinity"),
])
def test_facts_file_with_nan_is_refused(run_cli, write_json, text, constant):
    # Python's json took them and `facts` echoed them: stdout was no JSON for other readers.
    code, out = run_cli("score", "--game", "troetofanten", "--facts", write_json(text),
                        "--json")
    assert code == 2 and isinstance(out, dict), out
    assert f"{constant} is not a JSON number" in out["error"]["message"]


def test_facts_body_with_nan_is_400(client):
    res = client.post("/api/score/facts", content_type="application/json",
                      data='{"game": "troetofanten", "facts": {"zones": {}, "x": NaN}}')
    assert res.status_code == 400
    json.loads(res.data)  # (strict: the body is JSON)
    assert "NaN is not a JSON number" in res.get_json()["error"]["message"]


def test_good_facts_still_parse_floats(run_cli, write_json):
    path = write_json('{"zones": {"north": {"elephant-3": 1}}, "x": 1.5e3}')
    code, out = run_cli("score", "--game", "troetofanten", "--facts", path, "--json")
    assert code == 0 and math.isclose(out["facts"]["x"], 1500.0)
