"""Safe photo reading: header checks before decoding, bad inputs named clearly."""

import os
import struct
import threading
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.errors import BadImage
from vision.image_io import ImageSettings, load_photo, probe


def jpeg(w=320, h=240, seed=0) -> bytes:
    rng = np.random.default_rng(seed)
    img = rng.integers(0, 255, (h, w, 3), dtype=np.uint8)
    return cv2.imencode(".jpg", img)[1].tobytes()


def png(w=320, h=240) -> bytes:
    return cv2.imencode(".png", np.full((h, w, 3), 90, np.uint8))[1].tobytes()


def png_header_only(w: int, h: int) -> bytes:
    """A PNG whose IHDR declares w x h but carries (almost) no pixel data."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + chunk(b"IDAT", zlib.compress(b"\x00" * 16)) + chunk(b"IEND", b""))


def jpeg_with_size(w: int, h: int, progressive: bool = False) -> bytes:
    """A real small JPEG whose SOF header is rewritten to declare w x h."""
    flags = [cv2.IMWRITE_JPEG_PROGRESSIVE, 1] if progressive else []
    img = np.random.default_rng(0).integers(0, 255, (64, 64, 3), dtype=np.uint8)
    data = bytearray(cv2.imencode(".jpg", img, flags)[1].tobytes())
    i = 2
    while True:
        marker = data[i + 1]
        length = struct.unpack(">H", data[i + 2 : i + 4])[0]
        if marker in (0xC0, 0xC2):
            data[i + 5 : i + 9] = struct.pack(">HH", h, w)
            return bytes(data)
        i += 2 + length


def jpeg_non_interleaved(w: int, h: int) -> bytes:
    """A colour baseline (SOF0) JPEG declaring w x h whose components come one per scan
    (Ns = 1 < Nf = 3): libjpeg then buffers every coefficient of the photo, as for a
    progressive one. OpenCV cannot write one: the one interleaved scan of a real file is
    split into three single-component scans (header checks only; the data is not decoded)."""
    data = jpeg_with_size(w, h)
    i = 2
    while data[i + 1] != 0xDA:  # to the SOS segment
        i += 2 + struct.unpack(">H", data[i + 2 : i + 4])[0]
    length = struct.unpack(">H", data[i + 2 : i + 4])[0]
    ns = data[i + 4]
    assert ns == 3
    comps = [data[i + 5 + 2 * k : i + 7 + 2 * k] for k in range(ns)]
    entropy = data[i + 2 + length : data.rindex(b"\xff\xd9")]
    scans = b"".join(b"\xff\xda" + struct.pack(">HB", 8, 1) + c + b"\x00\x3f\x00" + entropy
                     for c in comps)
    return data[:i] + scans + b"\xff\xd9"


def test_reads_jpeg_and_png_sizes():
    for blob, fmt in ((jpeg(), "jpeg"), (png(), "png")):
        photo = load_photo(blob, ImageSettings(enlarge_small=False))
        assert (photo.width, photo.height, photo.format) == (320, 240, fmt)
        assert photo.image.shape == (240, 320, 3) and photo.image.dtype == np.uint8
        assert photo.scale == 1.0


@pytest.mark.parametrize("size,work", [
    ((320, 240), (1280, 960)),  # a small photo: enlarged to the working size
    ((640, 480), (1280, 960)),  # a webcam's
    ((480, 640), (960, 1280)),  # held upright: the long side is the working size
    ((1280, 720), (1280, 720)),  # already at the working size: as it is
])
def test_small_photo_is_enlarged_and_scaled_back(size, work):
    for blob in (jpeg(*size), png(*size)):
        photo = load_photo(blob)
        assert (photo.width, photo.height) == size
        assert photo.image.shape[1::-1] == work
        assert photo.scale == pytest.approx(size[0] / work[0])  # working px -> photo px


def test_large_photo_is_decoded_reduced_and_scaled_back():
    photo = load_photo(jpeg(3000, 2000))
    assert (photo.width, photo.height) == (3000, 2000)
    assert max(photo.image.shape[:2]) == ImageSettings().work_long_side
    assert photo.scale == pytest.approx(3000 / photo.image.shape[1])


@pytest.mark.parametrize(
    "blob, words",
    [
        (b"hello, not an image", "not a JPEG or PNG"),  # plain text
        (b"", "empty"),  # empty upload
        (jpeg()[: len(jpeg()) // 2], "truncated"),  # JPEG cut in half
        (jpeg()[:-2], "truncated"),  # JPEG missing only its EOI marker
        (png()[:-20], "truncated"),  # PNG cut before IEND
        (png_header_only(20000, 20000), "megapixels"),  # decompression bomb (PNG)
        (jpeg_with_size(20000, 20000), "megapixels"),  # decompression bomb (JPEG)
        (jpeg_with_size(12000, 9000, progressive=True), "not baseline"),  # whole in memory
        (jpeg_non_interleaved(12000, 9000), "not baseline"),  # SOF0, one scan a component
        (cv2.imencode(".png", np.zeros((1, 1, 3), np.uint8))[1].tobytes(), "too small"),  # 1x1
        (cv2.imencode(".jpg", np.zeros((1, 1, 3), np.uint8))[1].tobytes(), "too small"),
    ],
)
def test_bad_inputs_are_named(blob, words):
    with pytest.raises(BadImage) as exc:
        load_photo(blob)
    assert words in exc.value.message
    assert exc.value.exit_code == 2


@pytest.mark.parametrize("tail", [b"\n", b"\0" * 100, b"appended by an editor" * 3],
                         ids=["newline", "zero-padding", "text"])
def test_bytes_after_the_end_are_not_truncation(tail):
    # A whole PNG with bytes after IEND was refused as "truncated" (IEND not in the last 16).
    for blob, fmt in ((png(), "png"), (jpeg(), "jpeg")):
        assert load_photo(blob + tail).format == fmt


def test_phone_108_megapixel_jpeg_is_read():
    # A 108 MP phone photo (12000 x 9000, baseline JPEG) was refused as a bomb (over 64 MP);
    # libjpeg decodes it at 1/8 scale without holding the whole photo.
    blob = cv2.imencode(".jpg", np.zeros((9000, 12000), np.uint8))[1].tobytes()
    photo = load_photo(blob)
    assert (photo.width, photo.height, photo.format) == (12000, 9000, "jpeg")
    assert max(photo.image.shape[:2]) == ImageSettings().work_long_side


def test_bomb_rejected_from_header_alone():
    # Only the header is read: the declared size is refused without decoding anything.
    assert probe(png_header_only(20000, 20000))[1:] == (20000, 20000)
    assert probe(jpeg_with_size(20000, 20000))[1:] == (20000, 20000)
    assert probe(jpeg_with_size(20000, 20000))[0] == "jpeg"
    assert probe(jpeg_with_size(640, 480, progressive=True))[0] == "jpeg-buffered"
    assert probe(jpeg_non_interleaved(640, 480))[0] == "jpeg-buffered"


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(BadImage, match="not found"):
        load_photo(tmp_path / "nope.jpg")
    with pytest.raises(BadImage, match="folder"):
        load_photo(tmp_path)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_endless_device_is_refused_not_read_to_the_end():
    # A device or pipe has no size (st_size 0): /dev/zero was read until memory ran out.
    with pytest.raises(BadImage, match="too large"):
        load_photo("/dev/zero", ImageSettings(max_file_bytes=100_000))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_photo_from_a_pipe_is_read(tmp_path):
    fifo = tmp_path / "photo.fifo"
    os.mkfifo(fifo)
    blob = jpeg()
    writer = threading.Thread(target=lambda: fifo.write_bytes(blob))
    writer.start()
    try:
        photo = load_photo(fifo)
    finally:
        writer.join(timeout=10)
    assert (photo.width, photo.height) == (320, 240)
