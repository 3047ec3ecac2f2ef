"""Session 26 (hop-speed): Hop la bille's cheaper steps give the very answer of the code they
replace. The detector's key points are found on the cards' thread while the cloth is found
(`early_keys`, handed to `read_cards`): the same reading as the detector run inside it, the
keys left unused where the lamp's curve changed the photo, and an area not found still
reported as itself (the card thread not left waiting)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import vision.cards.stage as stage
from vision.area import AREA_SETTINGS, find_area
from vision.cards.detect import Keypoints
from vision.image_io import ImageSettings, load_photo

ROOT = Path(__file__).resolve().parents[3]
HOP = ROOT / "datasets" / "scenes" / "hop-la-bille"


def _reading(res) -> tuple:
    """A `CardResult` as comparable values (labels, zones, confidences, centres, outlines,
    facts, warnings)."""
    d = res.detections
    return (list(map(str, d.labels)), list(map(str, d.zones)),
            np.asarray(d.confidence, np.float64).tolist(),
            np.asarray(d.centers, np.float64).tolist(),
            [None if p is None else np.asarray(p, np.float64).tolist() for p in d.polygons],
            res.facts, res.warnings)


def _no_keys() -> Keypoints:
    z = np.zeros(0)
    return Keypoints(np.zeros((0, 2)), np.zeros(0, int), z, z, z)


@pytest.fixture(scope="module")
def reader():
    from vision.cards.read import CardReader

    return CardReader(threads=1)


@pytest.mark.parametrize("name", [
    "hop-la-bille-e1-s1-0000.jpg",  # six cards, ordinary light
    "hop-la-bille-e1-s1-0007.jpg",  # another seat and layout
])
def test_early_keys_read_as_the_detector_inside(reader, name):
    from vision.cards.geometry import keeping_scaled

    photo = load_photo(HOP / name, ImageSettings())
    area = find_area(photo.image, AREA_SETTINGS["hop-la-bille"], "cloth", game="hop-la-bille")
    plain = stage.read_cards(reader, photo.image, photo.scale, "hop-la-bille", area)
    with keeping_scaled():  # (as the pipeline's card thread calls it)
        keys = stage.early_keys(reader, photo.image, "hop-la-bille")
        early = stage.read_cards(reader, photo.image, photo.scale, "hop-la-bille", area,
                                 keys=keys)
    assert len(keys) > 0 and len(plain.detections) > 0
    assert _reading(early) == _reading(plain)
    # the keys handed on are the ones read (none: no card), so the check above can fail
    blind = stage.read_cards(reader, photo.image, photo.scale, "hop-la-bille", area,
                             keys=_no_keys())
    assert len(blind.detections) == 0


@pytest.mark.parametrize("toned, used", [
    (False, True),  # the lamp's curve leaves the photo as it is: the early keys are read
    (True, False),  # a curve taken off: the toned photo's own key points instead
])
def test_early_keys_only_for_the_photo_they_were_found_on(monkeypatch, reader, toned, used):
    photo = load_photo(HOP / "hop-la-bille-e1-s1-0000.jpg", ImageSettings())
    area = find_area(photo.image, AREA_SETTINGS["hop-la-bille"], "cloth", game="hop-la-bille")
    if toned:  # (a copy, equal in every pixel: only its identity says it was toned)
        monkeypatch.setattr(stage, "lamp_tone_off", lambda image, area: image.copy())
    res = stage.read_cards(reader, photo.image, photo.scale, "hop-la-bille", area,
                           keys=_no_keys())
    assert (len(res.detections) == 0) == used


def test_early_keys_only_for_hop_and_an_untaught_reader(reader):
    image = np.zeros((48, 64, 3), np.uint8)
    assert stage.early_keys(reader, image, "troetofanten") is None
    assert stage.early_keys(reader, image, "magic-rabbit") is None
    from copy import copy

    taught = copy(reader)
    taught.read_pieces = lambda image, game, area=None: ([], [])  # (a taught Hop reader's)
    assert stage.early_keys(taught, image, "hop-la-bille") is None
    assert stage.early_keys(reader, image, "hop-la-bille") is not None


def test_no_cloth_is_reported_and_the_card_thread_ends():
    """A photo without a cloth: the area's own error (exit 3), the card thread, which was
    finding the key points, stopped at the area and idle again (the next photo is read)."""
    from vision.errors import AreaNotFound
    from vision.pipeline import Pipeline

    pipe = Pipeline()
    blank = np.full((960, 1280, 3), 128, np.uint8)
    import cv2

    ok, buf = cv2.imencode(".jpg", blank)
    with pytest.raises(AreaNotFound):
        pipe.recognise(buf.tobytes(), "hop-la-bille")
    rec = pipe.recognise(HOP / "hop-la-bille-e1-s1-0000.jpg", "hop-la-bille")
    assert "cards" in rec.facts and rec.timings_ms["cards"] > 0
