"""A tap's x and y are finite numbers of photo pixels (`vision.teach.tap_coordinate`), in a
`<photo>.taps.json` sidecar and in the page's `POST /api/teach` taps. float() took NaN
(Python's json reads it), "nan", "inf" and true: a NaN tap chose the photo's first piece and
taught it under the tap's label without a word; a dict instead of a list answered Python's
"string indices must be integers" (acceptance pass, session 17 H5)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from vision.teach import TeachError, read_taps, tap_coordinate
from webapp import create_app

SCENE = (Path(__file__).resolve().parents[2] / "datasets" / "scenes-edition2" / "simsala-hopp"
         / "simsala-hopp-e2-s2-0000.jpg")
FROG = next(p for p in json.loads(SCENE.with_suffix(".json").read_text())["pieces"]
            if p["label"] == "frog")


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), "nan", "12",
                                   True, False, None, [1], {"x": 1}])
def test_tap_coordinate_refuses(value):
    with pytest.raises(TeachError, match="tap 0: x: expected a number"):
        tap_coordinate(value, "tap 0: x")


@pytest.mark.parametrize("value", [0, 12, 12.5, -3, 1e6])
def test_tap_coordinate_takes_numbers(value):
    assert tap_coordinate(value, "x") == float(value)


@pytest.mark.parametrize("text, words", [
    ('[{"x": NaN, "y": 1}]', "NaN is not a JSON number"),
    ('[{"x": "nan", "y": 1}]', "tap 0: x: expected a number"),
    ('[{"x": 1, "y": 2}, {"x": 1, "y": Infinity}]', "Infinity is not a JSON number"),
    ('[{"x": 1, "y": true}]', "tap 0: y: expected a number"),
    ('{"x": 1, "y": 1}', "not a list of taps"),  # one tap, not in a list
    ('[[1, 1]]', "not a list of taps"),
    ('[{"x": 1}]', "tap 0 has no x or y"),
    ("[]", "no taps"),
    ("{bad", "not valid JSON"),
])
def test_bad_taps_file_names_the_file(tmp_path, text, words):
    photo = tmp_path / "frog" / "s.jpg"
    photo.parent.mkdir()
    photo.write_bytes(b"")
    (tmp_path / "frog" / "s.taps.json").write_text(text)
    with pytest.raises(TeachError) as exc:
        read_taps(photo, "frog")
    assert "s.taps.json" in exc.value.message and words in exc.value.message


def test_good_taps_file(tmp_path):
    photo = tmp_path / "s.jpg"
    (tmp_path / "s.taps.json").write_text('[{"x": 1, "y": 2.5}, {"x": 3, "y": 4, "label": "cat"}]')
    assert read_taps(photo, "frog") == [(1.0, 2.5, "frog"), (3.0, 4.0, "cat")]


@pytest.mark.parametrize("x, words", [
    ("nan", "tap 0: x: expected a number"),  # a string float() read as NaN
    ("Infinity", "tap 0: x: expected a number"),
    (True, "tap 0: x: expected a number"),
])
def test_page_taps_with_no_number_are_400(tmp_path, x, words):
    client = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "d")}).test_client()
    taps = [{"photo": 0, "x": x, "y": FROG["center"][1], "label": "cat"}]
    res = client.post("/api/teach", data={
        "game": "simsala-hopp", "name": "kitchen", "taps": json.dumps(taps),
        "photo": (io.BytesIO(SCENE.read_bytes()), SCENE.name)},
        content_type="multipart/form-data")
    assert res.status_code == 400, res.get_json()
    assert words in res.get_json()["error"]["message"]
    assert not (tmp_path / "d" / "teach" / "kitchen").exists()


@pytest.mark.parametrize("files, held", [
    # Was "empty label folder (no .jpg or .png photo)" for a folder of iPhone photos.
    (("IMG_0001.HEIC",), "; it holds IMG_0001.HEIC: tablescore reads"),
    # a Mac's copy of a folder of photos not copied: its hidden files named nothing (it
    # said "it holds ._IMG_0001.jpg: tablescore reads JPEG and PNG photos")
    (("._IMG_0001.jpg", ".DS_Store"), ""),
    (("._IMG_0001.jpg", "IMG_0002.HEIC"), "; it holds IMG_0002.HEIC: tablescore reads"),
])
def test_label_folder_without_photos_names_what_it_holds(tmp_path, run_cli, files, held):
    (tmp_path / "t" / "frog").mkdir(parents=True)
    for name in files:
        (tmp_path / "t" / "frog" / name).write_bytes(b"\0\0\0\x18ftypheic")
    code, out = run_cli("teach", "--game", "simsala-hopp", tmp_path / "t", "--data",
                        tmp_path / "d")
    message = out["error"]["message"]
    assert code == 2 and "empty label folder (no .jpg or .png photo)" in message, out
    assert message.endswith("photo)" + held) if not held else held in message
