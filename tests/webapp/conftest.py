import pytest

from webapp import create_app


@pytest.fixture
def data_dir(tmp_path):
    return tmp_path / "data"


@pytest.fixture
def app(data_dir):
    return create_app({"TESTING": True, "DATA_DIR": str(data_dir)})


@pytest.fixture
def client(app):
    """Flask test client on a temporary database."""
    return app.test_client()


@pytest.fixture
def new_session(client):
    """POST /api/sessions and return the created session (asserting 201)."""

    def make(game, players, options=None):
        res = client.post(
            "/api/sessions", json={"game": game, "players": players, "options": options or {}}
        )
        assert res.status_code == 201, res.get_json()
        return res.get_json()

    return make


@pytest.fixture
def act(client):
    """POST an action to a session; returns (status, json)."""

    def post(sid, action):
        res = client.post(f"/api/sessions/{sid}/actions", json=action)
        return res.status_code, res.get_json()

    return post


def error_code(res) -> str:
    body = res.get_json()
    assert isinstance(body, dict) and "error" in body, res.data[:200]
    assert body["error"]["message"]
    return body["error"]["code"]
