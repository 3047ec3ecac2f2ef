"""A heavily compressed JPEG's Troetofanten numbers read from a smoothed copy (session 23,
H5): `image_io.jpeg_quality` (the IJG quality from the photo's luminance table),
`read.compressed_sigma` (the steps of `ReadSettings.compressed_smooth`),
`smoothing_numbers` / `number_source`, and `CardReader.troeto_numbers` cutting its index
crops from the smoothed copy. Small seeded synthetic images, a stand-in index model."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from vision.cards.geometry import INDEX_SPEC, SPECS
from vision.cards.read import (
    READ,
    TROETO_LABELS,
    CardReader,
    card_frame,
    compressed_sigma,
    number_source,
    smoothing_numbers,
)
from vision.classify.model import Prediction
from vision.image_io import jpeg_quality, load_photo


def noisy(seed: int = 0, size: tuple[int, int] = (240, 320)) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = cv2.GaussianBlur(rng.integers(0, 256, size + (3,), dtype=np.uint8), (0, 0), 2.0)
    cv2.putText(img, "3", (100, 150), cv2.FONT_HERSHEY_SIMPLEX, 3, (0, 220, 255), 5)
    return img


def jpeg(img: np.ndarray, q: int) -> bytes:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
    assert ok
    return buf.tobytes()


@pytest.mark.parametrize("q", [20, 25, 40, 50, 55, 70, 75, 80, 90, 95])
def test_jpeg_quality_of_libjpeg(q):
    assert jpeg_quality(jpeg(noisy(q), q)) == q


@pytest.mark.parametrize("q,low,high", [
    (5, 5, 20),  # entries over 255 clipped (8-bit tables): read finer, still heavy
    (10, 10, 20),
    (100, 99, 100),  # a table of ones
])
def test_jpeg_quality_ends(q, low, high):
    assert low <= jpeg_quality(jpeg(noisy(q), q)) <= high


@pytest.mark.parametrize("data", [
    b"",
    b"\xff\xd8",  # a start marker alone
    b"\x89PNG\r\n\x1a\n" + bytes(40),
    b"\xff\xd8\xff\xdb\x00\x43\x00" + bytes(10),  # a table cut short
    b"\xff\xd8\xff\xe0\x00\x10" + bytes(14) + b"\xff\xda\x00\x08" + bytes(6),  # no table
])
def test_jpeg_quality_none(data):
    assert jpeg_quality(data) is None


def test_load_photo_keeps_quality(tmp_path):
    img = cv2.resize(noisy(1), (1280, 960))
    (tmp_path / "a.jpg").write_bytes(jpeg(img, 40))
    ok, png = cv2.imencode(".png", img)
    (tmp_path / "a.png").write_bytes(png.tobytes())
    assert load_photo(tmp_path / "a.jpg").jpeg_quality == 40
    assert load_photo(tmp_path / "a.png").jpeg_quality is None


@pytest.mark.parametrize("q,scale,sigma", [
    (None, 1.0, 0.0),  # not a JPEG
    (20, 1.0, 0.7),
    (50, 1.0, 0.7),
    (51, 1.0, 0.5),
    (75, 1.0, 0.5),
    (76, 1.0, 0.0),
    (80, 1.0, 0.0),  # the committed photos' quality: as before
    (40, 1.6, 0.7 / 1.6),  # a larger photo shrunk to the working size: its px are smaller
    (40, 2.5, 0.0),  # shrunk more than 2 x: blocks of 3 px, none
    (40, 0.5, 0.7),  # enlarged: not grown
])
def test_compressed_sigma(q, scale, sigma):
    assert compressed_sigma(q, scale) == pytest.approx(sigma)


def test_compressed_sigma_off():
    assert compressed_sigma(20, 1.0, replace(READ, compressed_smooth=())) == 0.0


def test_number_source():
    img = noisy(2)
    assert number_source(img) is img
    with smoothing_numbers(0.0):
        assert number_source(img) is img
    with smoothing_numbers(0.7):
        a = number_source(img)
        assert a is not img and a.shape == img.shape and a.dtype == np.uint8
        assert np.array_equal(a, cv2.GaussianBlur(img, (0, 0), 0.7))
        assert number_source(img) is a  # made once per image
        other = noisy(3)
        assert not np.array_equal(number_source(other), other)
    assert number_source(img) is img  # nothing kept outside


class Index:
    """Records the crops it is asked to read; reads every one as 2."""

    crop = SimpleNamespace(size=16, mean=(0.0, 0.0, 0.0), std=(1.0, 1.0, 1.0))
    metadata: dict = {}

    def __init__(self):
        self.crops = []

    def index(self, n):
        return "12345".index(n)

    def predict(self, crops):
        self.crops.append(np.array(crops))
        p = np.zeros((len(crops), 5), np.float32)
        p[:, 1] = 1.0
        return Prediction(p, np.zeros((len(crops), 1), np.float32))


@pytest.mark.parametrize("sigma", [0.0, 0.7])
def test_troeto_numbers_read_from_smoothed(sigma):
    r = CardReader.__new__(CardReader)
    r.settings, r.index, r.index_spec = READ, Index(), INDEX_SPEC
    frame = card_frame(np.array([120.0, 120.0]), 0.0, 40.0, SPECS["troetofanten"].aspect)
    probs = np.zeros((1, len(TROETO_LABELS)), np.float32)
    probs[0, TROETO_LABELS.index("elephant-4")] = 1.0
    img = np.zeros((240, 240, 3), np.uint8)
    img[::2] = 255  # stripes of 1 px: a Gaussian of 0.7 greys them
    with smoothing_numbers(sigma):
        out = r.troeto_numbers(img, [frame], probs, TROETO_LABELS)
    assert out[0, TROETO_LABELS.index("elephant-2")] == pytest.approx(1.0)
    spread = float(r.index.crops[0].astype(float).std())
    assert (spread < 20.0) == (sigma > 0)  # (43 as it is, 7 smoothed)
