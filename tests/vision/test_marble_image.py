"""The image the marbles are read on (`vision.segment.marble_image`): one function for
scoring, teach mode and the classifier's training crops (a dim photo brought up alike)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision import segment
from vision.area import AREA_SETTINGS, area_from_corners, exposure_gain
from vision.image_io import Photo
from vision.preprocess import linear_to_srgb, srgb_to_linear
from vision.segment import marble_image

CLOTH = AREA_SETTINGS["hop-la-bille"]
CORNERS = np.array([[100.0, 60.0], [380.0, 60.0], [380.0, 300.0], [100.0, 300.0]])


def dim_photo(light: float = 0.25) -> np.ndarray:
    """A light grey cloth with a few pale marbles on a brown table (360 x 480 BGR) under
    `light` x the light (linear)."""
    img = np.full((360, 480, 3), (40, 70, 110), np.uint8)
    cv2.rectangle(img, (100, 60), (380, 300), (215, 215, 215), -1)
    for x, y in ((160, 120), (240, 200), (320, 150)):
        cv2.circle(img, (x, y), 9, (120, 210, 235), -1)
    lin = srgb_to_linear(img.astype(np.float32) / 255.0) * light
    return np.round(255.0 * linear_to_srgb(lin)).astype(np.uint8)


class Read(Exception):
    """Raised by the stand-in `find_marbles` once it has the image it was given."""


@pytest.mark.parametrize(
    "light, lifted",
    [
        (0.25, True),  # a dim room: brought up by the area's own exposure setting
        (1.0, False),  # well exposed: the photo itself
    ],
)
def test_marble_image_uses_the_areas_exposure(light, lifted):
    img = dim_photo(light)
    area = area_from_corners(CORNERS, CLOTH)
    out = marble_image(img, area)
    assert (out is not img) == lifted
    if lifted:
        assert out.mean() > img.mean() + 20
        assert exposure_gain(out, CLOTH.expose_to) == pytest.approx(1.0, abs=0.1)
    off = area_from_corners(CORNERS, replace(CLOTH, expose_to=0.0))
    assert marble_image(img, off) is img  # the area's setting off: off for the marbles too


def test_teach_reads_marbles_on_the_scored_image(monkeypatch):
    """Teach mode looks for (and crops) the marbles on `marble_image`, as scoring does: a
    copy taught in a dim room is read as it is scored there."""
    import vision.teach as vt

    img = dim_photo()
    area = area_from_corners(CORNERS, CLOTH)
    seen = []

    def find(image, *_a, **_k):
        seen.append(image)
        raise Read

    monkeypatch.setattr(segment, "find_marbles", find)  # (`marble_candidates`')
    photo = Photo(image=img, width=480, height=360, scale=1.0, format="jpeg")
    with pytest.raises(Read):
        vt.piece_examples(None, "hop-la-bille", photo, area, "marble-red", None, "x.jpg")
    assert np.array_equal(seen[0], marble_image(img, area)) and seen[0].mean() > img.mean()


def test_training_crops_read_on_the_scored_image(monkeypatch):
    """The classifier's training crops (`create_dataset.scene_crops`) come from the image
    scoring reads the marbles on: future training sees what inference sees."""
    import vision.classify.create_dataset as cd
    from vision.image_io import load_photo

    img = dim_photo()
    seen = []

    def find(image, *_a, **_k):
        seen.append(image)
        raise Read

    monkeypatch.setattr(segment, "find_marbles", find)
    truth = {"area": CORNERS.tolist(), "pieces": []}
    with pytest.raises(Read):
        cd.scene_crops("hop-la-bille", img, truth, cd.CropSettings(),
                       np.random.default_rng(0))
    _, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 92])
    photo = load_photo(buf.tobytes())
    area = area_from_corners(CORNERS / photo.scale, CLOTH)
    assert np.array_equal(seen[0], marble_image(photo.image, area))
    assert seen[0].mean() > photo.image.mean() + 20
