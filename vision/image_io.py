"""Read a photo safely: JPEG or PNG from a path or bytes, checked before decoding.

The header is parsed first, so a file that declares a huge size (a "decompression bomb",
e.g. 20000 x 20000) or is truncated is rejected before any pixel is decoded. Large photos are
decoded at a reduced scale (libjpeg's DCT scaling) and resized so the long side is at most
`ImageSettings.work_long_side`; `Photo.scale` maps working pixels back to the original photo.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from tablescore.photo_format import readable_kind, unsupported_message
from vision.errors import BadImage


@dataclass(frozen=True)
class ImageSettings:
    max_file_bytes: int = 40 * 1024 * 1024  # larger uploads are refused unread
    max_pixels: int = 64_000_000  # declared width * height above this is refused undecoded
    # ... except a baseline (sequential, one interleaved scan) JPEG, which libjpeg decodes a
    # row of blocks at a time, at 1/8, 1/4 or 1/2 scale, whatever keeps the long side >= 1280
    # (a 108 MP phone photo, 12000 x 9000: 0.06 s, 55 MB): up to a 200 MP phone sensor's
    # full size (16320 x 12240). Other JPEGs (progressive, one scan per component, lossless,
    # arithmetic) may keep every coefficient of the photo in memory while decoding (108 MP:
    # 360 MB; 200 MP: 0.6-1.2 GB), so they keep `max_pixels`.
    max_baseline_jpeg_pixels: int = 200_000_000
    min_side: int = 64  # smaller photos cannot show a play area with pieces
    work_long_side: int = 1280  # the pipeline works at most at this size
    # ... and a smaller photo (a webcam's 640 x 480) is enlarged to it (bicubic): the
    # detectors, the models' crops and every threshold in working pixels were made at this
    # size. Session 22: the committed photos reduced to half size and read at their own size
    # lost most cards (Magic Rabbit, Troetofanten); enlarged, see docs/vision.md "Small
    # photos". `Photo.scale` is then under 1; `vision.quality` judges such a photo at its own
    # size. False: read at its own size.
    enlarge_small: bool = True
    # `jpeg_quality` reads at most this many marker segments before the first scan (a
    # photo's: 5-30, phones' EXIF, ICC chunks and MPF included): a crafted 40 MB file of
    # 4-byte segments took 8 s more to load (10 MB: 2.0 s, the size check's own walk 1.4 s);
    # past it the quality is unknown (None: read as any photo) (session 23, R1).
    quality_segments: int = 1000


AS_TAKEN = ImageSettings(enlarge_small=False)  # `tablescore dice`: the dice reader sizes a
#   photo itself (`DiceSettings.work_long_side`); `datasets/dice` (800 px) enlarged first read
#   128 -> 122 of 165 dice (false 7 -> 4) at twice the CPU (session 22)


@dataclass(frozen=True)
class Photo:
    """A decoded photo.

    image: (H, W, 3) uint8 BGR at working size; width/height: the original photo's size
    (after EXIF orientation); scale: original pixels per working pixel (under 1 for a photo
    enlarged to the working size, `ImageSettings.enlarge_small`).
    """

    image: np.ndarray
    width: int
    height: int
    scale: float
    format: str
    jpeg_quality: int | None = None  # the JPEG's quality on the IJG scale, estimated from
    #   its luminance quantization table (`jpeg_quality`); None for a PNG or no table


def _png_size(data: bytes) -> tuple[int, int]:
    if len(data) < 33 or data[12:16] != b"IHDR":
        raise BadImage("the PNG file is truncated or corrupt (no IHDR header)")
    w, h = struct.unpack(">II", data[16:24])
    # Walk the chunks to IEND: bytes after it (some tools pad or append) are not truncation.
    i = 8
    while True:
        if i + 8 > len(data):
            raise BadImage("the PNG file is truncated (no IEND chunk at its end)")
        (length,) = struct.unpack(">I", data[i : i + 4])
        kind = data[i + 4 : i + 8]
        i += 12 + length  # length, type, data, CRC
        if kind == b"IEND":
            break
    if i > len(data):
        raise BadImage("the PNG file is truncated (no IEND chunk at its end)")
    return w, h


# JPEG markers that start a frame (SOFn) and carry the image size.
_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}
_SOF_BASELINE = {0xC0, 0xC1}  # sequential Huffman: decoded a row of blocks at a time


def _jpeg_size(data: bytes) -> tuple[int, int, bool]:
    """Walk the JPEG marker segments: returns (width, height, baseline) from the SOF segment
    and checks that the entropy-coded data ends with an EOI marker (else the file is
    truncated). ``baseline``: a sequential Huffman frame (SOF0/1) whose first scan holds all
    its components (one interleaved scan); libjpeg buffers every coefficient otherwise
    (jdinput.c: ``comps_in_scan < num_components || progressive_mode``)."""
    n = len(data)
    i = 2
    size = None
    frame_comps = None  # Nf of the SOF segment
    scan_comps = None  # Ns of the first SOS segment
    while True:
        # Find the next marker (skip fill bytes 0xFF).
        if i >= n:
            raise BadImage("the JPEG file is truncated (it ends before the image data ends)")
        if data[i] != 0xFF:
            raise BadImage("the JPEG file is corrupt (bad marker structure)")
        while i < n and data[i] == 0xFF:
            i += 1
        if i >= n:
            raise BadImage("the JPEG file is truncated (it ends before the image data ends)")
        marker = data[i]
        i += 1
        if marker == 0xD9:  # EOI
            break
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:  # standalone markers
            continue
        if i + 2 > n:
            raise BadImage("the JPEG file is truncated (inside a header segment)")
        (length,) = struct.unpack(">H", data[i : i + 2])
        if length < 2 or i + length > n:
            raise BadImage("the JPEG file is truncated (inside a header segment)")
        if marker in _SOF:
            if length < 7:
                raise BadImage("the JPEG file is corrupt (short frame header)")
            h, w = struct.unpack(">HH", data[i + 3 : i + 7])
            size = (w, h, marker in _SOF_BASELINE)
            frame_comps = data[i + 7] if length >= 8 else None
        if marker == 0xDA and scan_comps is None:
            scan_comps = data[i + 2] if length >= 3 else None
        i += length
        if marker == 0xDA:  # SOS: skip entropy-coded data up to the next real marker
            while True:
                j = data.find(b"\xff", i)
                if j < 0 or j + 1 >= n:
                    raise BadImage(
                        "the JPEG file is truncated (it ends inside the image data)"
                    )
                nxt = data[j + 1]
                if nxt == 0x00 or 0xD0 <= nxt <= 0xD7 or nxt == 0xFF:
                    i = j + 1 if nxt == 0xFF else j + 2
                    continue
                i = j
                break
    if size is None:
        raise BadImage("the JPEG file has no frame header (SOF)")
    w, h, sequential = size
    return w, h, sequential and frame_comps is not None and scan_comps == frame_comps


def probe(data: bytes) -> tuple[str, int, int]:
    """Format ('jpeg', 'jpeg-buffered' or 'png') and declared (width, height), without
    decoding pixels. 'jpeg' is a baseline JPEG, decoded a row of blocks at a time;
    'jpeg-buffered' any other JPEG (progressive, one scan per component, lossless,
    arithmetic-coded), whose decoder may hold every coefficient of the photo in memory."""
    kind = readable_kind(data)
    if kind == "png":
        return ("png", *_png_size(data))
    if kind == "jpeg":
        w, h, baseline = _jpeg_size(data)
        return ("jpeg" if baseline else "jpeg-buffered", w, h)
    if not data:
        raise BadImage("the file is empty")
    raise BadImage(unsupported_message(data))  # (names HEIC, WebP, GIF ... with what to do)


# The IJG (libjpeg) luminance quantization table at quality 50 (any order: only its sum is
#   compared with the photo's table).
_IJG_LUMA = (16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24,
             40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77,
             24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95,
             98, 112, 100, 103, 99)


def jpeg_quality(data: bytes, max_segments: int = ImageSettings.quality_segments
                 ) -> int | None:
    """The JPEG `data`'s quality (1-100) on the IJG scale most encoders use (libjpeg, phones,
    chat apps), from its luminance quantization table (table 0, 8- or 16-bit entries, in
    whichever DQT segment and place it comes): the table's sum over the IJG table's at
    quality 50 is the encoder's scale factor S (%), quality (200 - S) / 2 for S <= 100,
    else 5000 / S. A table of another encoder gets the IJG quality nearest its coarseness
    (IJG's own under quality 20, its entries capped at 255, reads 11-20). None where no
    table 0 is found before the first scan (not a JPEG, truncated, a table cut short) or
    in its first `max_segments` marker segments. Never raises: it reads the marker segments
    only (each at least 2 bytes further)."""
    n = len(data)
    i = 2
    while i + 4 <= n and data[i] == 0xFF and max_segments > 0:
        max_segments -= 1
        marker = data[i + 1]
        if marker == 0xFF:  # (a fill byte before a marker)
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        if marker in (0xDA, 0xD9):
            return None
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if marker == 0xDB:
            j, stop = i + 4, min(i + 2 + length, n)  # the segment's tables: Pq Tq, 64 entries
            while j < stop:
                pq, tq = data[j] >> 4, data[j] & 0x0F
                size = 128 if pq else 64
                if j + 1 + size > stop:
                    break
                if tq == 0:
                    table = (data[j + 1 : j + 65] if pq == 0
                             else struct.unpack(">64H", data[j + 1 : j + 129]))
                    scale = 100.0 * sum(table) / sum(_IJG_LUMA)
                    q = (200.0 - scale) / 2.0 if scale <= 100.0 else 5000.0 / max(scale, 1e-9)
                    return int(min(100, max(1, round(q))))
                j += 1 + size
        i += 2 + max(length, 2)
    return None


def read_bytes(source: str | Path | bytes, settings: ImageSettings = ImageSettings()) -> bytes:
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
    else:
        p = Path(source)
        try:
            if p.stat().st_size > settings.max_file_bytes:
                raise BadImage(
                    f"photo file is too large ({p.stat().st_size} bytes; "
                    f"limit {settings.max_file_bytes})"
                )
            # At most one byte over the limit: a pipe or device (/dev/stdin works; /dev/zero,
            # /dev/urandom) has no size, and was read until memory ran out.
            with p.open("rb") as f:
                data = f.read(settings.max_file_bytes + 1)
        except FileNotFoundError:
            raise BadImage(f"photo file not found: {p}") from None
        except IsADirectoryError:
            raise BadImage(f"photo path is a folder, not a file: {p}") from None
        except PermissionError:
            raise BadImage(f"no permission to read the photo file {p}") from None
        except OSError as exc:
            raise BadImage(f"cannot read photo file {p}: {exc.strerror or exc}") from None
    if len(data) > settings.max_file_bytes:  # (read one byte over, at most: "over the limit")
        raise BadImage(f"photo is too large (over the limit of {settings.max_file_bytes} bytes)")
    return data


def load_photo(source: str | Path | bytes | Photo,
               settings: ImageSettings = ImageSettings()) -> Photo:
    """Decode a JPEG/PNG photo (path or bytes) to a working-size BGR image; raise `BadImage`
    for anything that is not a sane photo. A `Photo` is returned as it is (decoded once)."""
    if isinstance(source, Photo):
        return source
    data = read_bytes(source, settings)
    kind, w, h = probe(data)
    fmt = "png" if kind == "png" else "jpeg"
    limit = settings.max_baseline_jpeg_pixels if kind == "jpeg" else settings.max_pixels
    if w * h > limit:
        raise BadImage(
            f"photo declares {w} x {h} pixels, more than the limit of "
            f"{limit // 1_000_000} megapixels"
            + (" for a JPEG that is not baseline" if kind == "jpeg-buffered" else "")
        )
    if min(w, h) < settings.min_side:
        raise BadImage(
            f"photo is too small ({w} x {h} pixels); need at least "
            f"{settings.min_side} pixels on each side"
        )
    flags = cv2.IMREAD_COLOR
    if fmt == "jpeg":
        # Let libjpeg decode at 1/2, 1/4 or 1/8 size when the photo is much larger than needed.
        reduced = ((8, cv2.IMREAD_REDUCED_COLOR_8), (4, cv2.IMREAD_REDUCED_COLOR_4),
                   (2, cv2.IMREAD_REDUCED_COLOR_2))
        for factor, flag in reduced:
            if max(w, h) / factor >= settings.work_long_side:
                flags = flag
                break
    buf = np.frombuffer(data, dtype=np.uint8)
    try:
        img = cv2.imdecode(buf, flags)
    except cv2.error as exc:  # pragma: no cover - depends on the codec's mood
        raise BadImage(f"cannot decode the photo: {exc}") from None
    if img is None or img.ndim != 3 or img.shape[2] != 3 or img.size == 0:
        raise BadImage(f"cannot decode the {fmt.upper()} photo (corrupt data)")
    # Original size after EXIF orientation (the decoder may have turned the photo).
    ih, iw = img.shape[:2]
    orig_w, orig_h = (w, h) if (iw >= ih) == (w >= h) else (h, w)
    long_side = max(iw, ih)
    if long_side > settings.work_long_side or (long_side < settings.work_long_side
                                                and settings.enlarge_small):
        f = settings.work_long_side / long_side
        img = cv2.resize(img, (round(iw * f), round(ih * f)),
                         interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_CUBIC)
    scale = orig_w / img.shape[1]
    return Photo(image=np.ascontiguousarray(img), width=orig_w, height=orig_h, scale=scale,
                 format=fmt, jpeg_quality=jpeg_quality(data, settings.quality_segments)
                 if fmt == "jpeg" else None)
