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


def segments(data: bytes) -> tuple[list[bytes], bytes]:
    """A JPEG's marker segments after SOI up to SOS (each with its marker), and the rest."""
    i, out = 2, []
    while data[i + 1] != 0xDA:
        n = 2 + int.from_bytes(data[i + 2 : i + 4], "big")
        out.append(data[i : i + n])
        i += n
    return out, data[i:]


def dqt(tq: int, entries, pq: int = 0) -> bytes:
    """One table of a DQT segment: Pq Tq, then 64 entries (8- or 16-bit)."""
    return bytes([pq << 4 | tq]) + b"".join(int(v).to_bytes(1 + pq, "big") for v in entries)


def relaid(q: int, how: str) -> bytes:
    """A libjpeg JPEG of quality `q` with its quantization tables laid out another legal way
    (other encoders': chroma table first, both in one segment, 16-bit entries, fill bytes)."""
    segs, rest = segments(jpeg(noisy(q), q))
    tables = [x for x in segs if x[1] == 0xDB]
    other = [x for x in segs if x[1] != 0xDB]
    luma, chroma = (x[4:] for x in tables)  # (each: Pq Tq + 64 bytes)
    if how == "chroma first":
        laid = [tables[1], tables[0]]
    elif how == "one segment, chroma first":
        body = chroma + luma
        laid = [b"\xff\xdb" + (2 + len(body)).to_bytes(2, "big") + body]
    elif how == "16-bit":
        body = dqt(0, luma[1:], pq=1) + chroma
        laid = [b"\xff\xdb" + (2 + len(body)).to_bytes(2, "big") + body]
    elif how == "fill bytes":
        laid = [b"\xff\xff\xff" + x for x in tables]
    return b"\xff\xd8" + other[0] + b"".join(laid) + b"".join(other[1:]) + rest


@pytest.mark.parametrize("how", ["chroma first", "one segment, chroma first", "16-bit",
                                 "fill bytes"])
@pytest.mark.parametrize("q", [40, 80])
def test_jpeg_quality_table_layouts(how, q):
    data = relaid(q, how)
    assert cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) is not None
    assert jpeg_quality(data) == q  # (chroma first read 70 for 80 before: smoothed)


def test_jpeg_quality_table_past_its_segment():
    segs, rest = segments(jpeg(noisy(0), 80))
    i = next(k for k, x in enumerate(segs) if x[1] == 0xDB)
    segs[i] = segs[i][:4] + bytes([0x10]) + segs[i][5:]  # says 16-bit: 128 bytes, has 64
    assert jpeg_quality(b"\xff\xd8" + b"".join(segs) + rest) is None


@pytest.mark.parametrize("comments,expected", [(0, 80), (900, 80), (1000, None),
                                               (2_000_000, None)])
def test_jpeg_quality_reads_a_bounded_number_of_segments(comments, expected):
    """Empty comment segments before the tables (a crafted upload): read up to
    `ImageSettings.quality_segments` of them, then unknown (quickly, not 8 s a 40 MB file)."""
    data = jpeg(noisy(0), 80)
    assert jpeg_quality(data[:2] + b"\xff\xfe\x00\x02" * comments + data[2:]) == expected


@pytest.mark.parametrize("seed", range(4))
def test_jpeg_quality_never_raises(seed):
    """Seeded mutations of a JPEG's header bytes (and random bytes): None or 1-100."""
    rng = np.random.default_rng(seed)
    base = jpeg(noisy(seed), 60)
    for _ in range(300):
        d = bytearray(base[: int(rng.choice([40, 150, 400, len(base)]))])
        for _ in range(int(rng.integers(1, 6))):
            j = int(rng.integers(0, min(len(d), 400)))
            d[j : j + int(rng.integers(0, 3))] = (b"\xff\xdb", b"\x00\x00", b"\xff\xff",
                                                  b"\x10", b"\x01")[int(rng.integers(0, 5))]
        for data in (bytes(d), rng.integers(0, 256, int(rng.integers(0, 300)),
                                            dtype=np.uint8).tobytes()):
            q = jpeg_quality(data)
            assert q is None or (isinstance(q, int) and 1 <= q <= 100)


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
    (40, 2.0, 0.35),  # shrunk 2 x (libjpeg's 1/2 decode of a 2560-px photo): smoothed
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
