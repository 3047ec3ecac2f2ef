"""Photos in formats tablescore does not read are named, with what to do
(`tablescore.photo_format`), and the web API answers the CLI's body for the same file; a photo
sent under another form field, or a teach photo that is no photo, is named (acceptance pass,
session 17 H5). On c0eeac3 every such file was "not a JPEG or PNG" (the API: "the upload is
not a JPEG or PNG photo", code bad_input where the CLI said bad_image)."""

from __future__ import annotations

import io

import cv2
import numpy as np
import pytest

from tablescore.photo_format import other_format, readable_kind, unsupported_message
from webapp import create_app

# An empty wooden table: no arena, no cloth, no card; read by no game.
TABLE = cv2.imencode(".jpg", np.full((480, 640, 3), (70, 110, 150), np.uint8))[1].tobytes()


@pytest.fixture
def client(tmp_path):
    return create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data")}).test_client()


# -- photo formats tablescore does not read are named -------------------------------------

def _ftyp(*brands: bytes) -> bytes:
    body = b"ftyp" + brands[0] + b"\0\0\0\0" + b"".join(brands)
    return (len(body) + 4).to_bytes(4, "big") + body + b"\0" * 64


def _encoded(ext: str) -> bytes | None:
    img = np.full((80, 96, 3), 120, np.uint8)
    if not cv2.haveImageWriter(f"x{ext}"):
        return None
    return cv2.imencode(ext, img)[1].tobytes()


FORMATS = [
    (_ftyp(b"heic", b"mif1", b"heic"), "HEIC"),  # an iPhone's default
    (_ftyp(b"mif1", b"mif1", b"heix"), "HEIC"),
    (_ftyp(b"avif", b"mif1", b"avif"), "AVIF"),
    (b"RIFF\x10\0\0\0WEBPVP8 " + b"\0" * 40, "WebP"),
    (b"GIF89a" + b"\0" * 64, "GIF"),
    (b"GIF87a" + b"\0" * 64, "GIF"),
    (b"II*\0" + b"\0" * 64, "TIFF"),
    (b"MM\0*" + b"\0" * 64, "TIFF"),
    (_encoded(".bmp"), "BMP"),
    (_encoded(".webp"), "WebP"),
    (b"\0\0\0\x0cJXL \r\n\x87\n" + b"\0" * 40, "JPEG XL"),
    (b"shopping list: milk, eggs", None),  # not an image at all
    (b"BMW is a car", None),  # 'BM' but no BMP header
    (_ftyp(b"isom", b"isom", b"mp41"), None),  # an MP4 video
]


KNOWN = [f for f in FORMATS if f[0] is not None]  # (BMP, WebP: where this OpenCV writes them)
IDS = [f"{k}-{name or 'unknown'}" for k, (_, name) in enumerate(KNOWN)]


@pytest.mark.parametrize("data, name", KNOWN, ids=IDS)
def test_other_formats_are_named(data, name):
    assert other_format(data) == name
    assert readable_kind(data) is None
    msg = unsupported_message(data)
    assert msg.startswith("not a JPEG or PNG image")
    assert msg == "not a JPEG or PNG image" if name is None else f"the file is {name}," in msg


@pytest.mark.parametrize("data, kind", [(_encoded(".jpg"), "jpeg"), (_encoded(".png"), "png")])
def test_jpeg_and_png_are_readable(data, kind):
    assert readable_kind(data) == kind and other_format(data) is None


def cli_and_api(run_cli, client, tmp_path, data: bytes):
    """The same file scored through the CLI and POST /api/score: (exit code, CLI JSON,
    HTTP response)."""
    photo = tmp_path / "photo.jpg"
    photo.write_bytes(data)
    code, out = run_cli("score", photo, "--game", "troetofanten", "--json")
    res = client.post("/api/score", data={"game": "troetofanten",
                                          "photo": (io.BytesIO(data), "photo.jpg")},
                      content_type="multipart/form-data")
    return code, out, res


@pytest.mark.parametrize("data, name", KNOWN, ids=IDS)
def test_cli_and_api_give_the_same_error_for_a_file(run_cli, client, tmp_path, data, name):
    # The API said "the upload is not a JPEG or PNG photo" (bad_input), the CLI "not a JPEG or
    # PNG image" (bad_image): the contract's HTTP answer is the CLI's body.
    code, out, res = cli_and_api(run_cli, client, tmp_path, data)
    assert code == 2 and res.status_code == 400
    assert res.get_json() == out
    assert out["error"]["code"] == "bad_image"
    if name:
        assert f"the file is {name}" in out["error"]["message"]


def test_dice_names_the_format_too(run_cli, tmp_path):
    photo = tmp_path / "IMG_0001.HEIC"
    photo.write_bytes(FORMATS[0][0])
    code, out = run_cli("dice", photo, "--json")
    assert code == 2 and "HEIC" in out["error"]["message"]


@pytest.mark.parametrize("data", [b"", b"   "])
def test_empty_or_blank_upload_same_as_cli(run_cli, client, tmp_path, data):
    code, out, res = cli_and_api(run_cli, client, tmp_path, data)
    assert (code, res.status_code) == (2, 400) and res.get_json() == out


# -- the form's field names ----------------------------------------------------------------

@pytest.mark.parametrize("field, words", [
    ("file", "file fields: 'file'"),  # a script's usual name: say what was sent
    ("image", "file fields: 'image'"),
    (None, "has no file in it"),
])
def test_photo_under_another_field_name_is_named(client, field, words):
    form = {"game": "troetofanten"}
    if field:
        form[field] = (io.BytesIO(TABLE), "table.jpg")
    res = client.post("/api/score", data=form, content_type="multipart/form-data")
    assert res.status_code == 400
    msg = res.get_json()["error"]["message"]
    assert "'photo'" in msg and words in msg


@pytest.mark.parametrize("blob, words", [
    (b"", "the file is empty"),
    (b"GIF89a" + b"\0" * 64, "the file is GIF"),
    (b"hello", "not a JPEG or PNG"),
], ids=["empty", "gif", "text"])
def test_teach_upload_that_is_no_photo_names_the_file(client, blob, words):
    # Was "not a JPEG or PNG photo" without the file's name for a non-image teach photo.
    res = client.post("/api/teach", data={
        "game": "simsala-hopp", "name": "kitchen", "taps": "[]",
        "photo": [(io.BytesIO(TABLE), "ok.jpg"), (io.BytesIO(blob), "IMG_0002.HEIC")]},
        content_type="multipart/form-data")
    assert res.status_code == 400
    msg = res.get_json()["error"]["message"]
    assert msg.startswith("IMG_0002.HEIC: ") and words in msg
