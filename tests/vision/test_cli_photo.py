"""`tablescore score PHOTO` through the CLI: the contract's errors and exit codes."""

import cv2
import numpy as np
import pytest

from tests.vision.test_image_io import jpeg, jpeg_with_size, png_header_only


def write(tmp_path, name, blob):
    p = tmp_path / name
    p.write_bytes(blob)
    return p


@pytest.mark.parametrize(
    "name, blob, code, words",
    [
        ("notes.jpg", b"shopping list: milk, eggs", 2, "not a JPEG or PNG"),  # not an image
        ("cut.jpg", jpeg(640, 480)[:3000], 2, "truncated"),  # truncated JPEG
        ("dot.png", cv2.imencode(".png", np.zeros((1, 1, 3), np.uint8))[1].tobytes(), 2,
         "too small"),  # 1 x 1 pixel
        ("bomb.png", png_header_only(20000, 20000), 2, "megapixels"),  # declared 20000 x 20000
        ("bomb.jpg", jpeg_with_size(20000, 20000), 2, "megapixels"),
        ("table.jpg", cv2.imencode(".jpg", np.full((960, 1280, 3), (70, 110, 150), np.uint8))[1]
         .tobytes(), 3, "arena"),  # an empty wooden table: no arena
    ],
)
def test_bad_photos(run_cli, tmp_path, name, blob, code, words):
    path = write(tmp_path, name, blob)
    exit_code, out = run_cli("score", path, "--game", "simsala-hopp", "--magician", "blue",
                             "--json")
    assert exit_code == code
    assert set(out) == {"error"} and set(out["error"]) == {"code", "message"}
    assert words in out["error"]["message"]


def test_empty_table_for_hop_la_bille_is_exit_3(run_cli, tmp_path):
    blob = cv2.imencode(".jpg", np.full((960, 1280, 3), (40, 60, 90), np.uint8))[1].tobytes()
    code, out = run_cli("score", write(tmp_path, "t.jpg", blob), "--game", "hop-la-bille",
                        "--json")
    assert code == 3 and "cloth" in out["error"]["message"]


def test_missing_photo_file(run_cli, tmp_path):
    code, out = run_cli("score", tmp_path / "none.jpg", "--game", "simsala-hopp", "--json")
    assert code == 2 and "not found" in out["error"]["message"]


def test_game_without_vision_says_so(run_cli, tmp_path, monkeypatch):
    import vision.pipeline

    # every game reads photos since issue 6: take one out to see the message
    monkeypatch.delitem(vision.pipeline.VISION_GAMES, "troetofanten")
    code, out = run_cli("score", write(tmp_path, "a.jpg", jpeg()), "--game", "troetofanten",
                        "--json")
    assert code == 2 and "not supported yet" in out["error"]["message"]


def test_unknown_game(run_cli, tmp_path):
    code, out = run_cli("score", write(tmp_path, "a.jpg", jpeg()), "--game", "chess", "--json")
    assert code == 2 and out["error"]["code"] == "unknown_game"
