import pytest

from webapp import create_app


@pytest.fixture
def client(tmp_path):
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data")})
    return app.test_client()


def test_index_lists_games(client):
    res = client.get("/")
    assert res.status_code == 200
    assert b"simsala-hopp" in res.data


def test_health(client):
    assert client.get("/healthz").get_json() == {"ok": True}
