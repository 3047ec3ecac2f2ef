"""What kind of file a photo is, from its first bytes (stdlib only: the web API checks an upload
before the vision part is loaded; `vision.image_io` gives the CLI the same words).

tablescore reads JPEG and PNG. Phones and browsers also hand over HEIC (an iPhone's default),
AVIF, WebP, GIF, BMP and TIFF files; those are named in the error with what to do, where the
message was "not a JPEG or PNG image" for all of them (a new user with an iPhone photo did not
learn that the photo's format was the trouble, nor how to get a JPEG).
"""

from __future__ import annotations

READABLE: dict[bytes, str] = {b"\xff\xd8\xff": "jpeg", b"\x89PNG\r\n\x1a\n": "png"}
MIME = {"jpeg": "image/jpeg", "png": "image/png"}

# ISO base media brands (bytes 8-12 and the compatible brands after them) of HEIF files.
_HEIC_BRANDS = {b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"hevm", b"hevs",
                b"mif1", b"msf1"}
_AVIF_BRANDS = {b"avif", b"avis"}
_EXPORT = "save or export it as JPEG or PNG and send that"
_HINTS = {
    "HEIC": "on an iPhone, Settings > Camera > Formats > Most Compatible takes JPEG photos; "
            "or share the photo as JPEG",
}


def readable_kind(data: bytes) -> str | None:
    """'jpeg' or 'png' for a file tablescore reads, else None."""
    for sig, kind in READABLE.items():
        if data.startswith(sig):
            return kind
    return None


def other_format(data: bytes) -> str | None:
    """The name of a common image format tablescore does not read ('HEIC', 'AVIF', 'WebP',
    'GIF', 'BMP', 'TIFF', 'JPEG XL'), or None when the bytes are none of these."""
    if len(data) >= 12 and data[4:8] == b"ftyp":
        size = int.from_bytes(data[:4], "big")
        brands = {data[8:12]} | {data[k:k + 4] for k in range(16, min(size, len(data), 64), 4)}
        if brands & _AVIF_BRANDS:
            return "AVIF"
        if brands & _HEIC_BRANDS:
            return "HEIC"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WebP"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "GIF"
    if data[:2] == b"BM" and len(data) >= 26 and data[6:10] == b"\0\0\0\0":
        return "BMP"
    if data[:4] in (b"II*\0", b"MM\0*"):
        return "TIFF"
    if data[:2] == b"\xff\x0a" or data[:12] == b"\0\0\0\x0cJXL \r\n\x87\n":
        return "JPEG XL"
    return None


def unsupported_message(data: bytes) -> str:
    """Why ``data`` (not JPEG, not PNG, not empty) cannot be read, in a user's words."""
    name = other_format(data)
    if name is None:
        return "not a JPEG or PNG image"
    return (f"not a JPEG or PNG image: the file is {name}, which tablescore does not read; "
            f"{_HINTS.get(name, _EXPORT)}")
