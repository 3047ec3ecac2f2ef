"""Card and tile geometry shared by training and inference: where a piece's key point sits
on it, its frame (corners) from a key point, and the one crop function.

Conventions: images are uint8 BGR (OpenCV order), coordinates are image pixels (x right,
y down). A piece's *frame* is its 4 corners clockwise from the artwork's own top-left
(TL, TR, BR, BL), as in the synthetic truth. Card coordinates (u, v) run from 0 to 1 across
the width (TL -> TR) and down the height (TL -> BL). A piece's pose is (key point, angle,
width): `angle` (degrees) is the direction of the u axis in the image, `width` the TL -> TR
length in pixels; the height is `width * aspect`.
"""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from functools import lru_cache

import cv2
import numpy as np


@dataclass(frozen=True)
class KeySpec:
    """Where the detector's key point is on one kind of piece, and the crop the classifier
    reads around it (card coordinates)."""

    key_uv: tuple[float, float]  # key point in card coordinates
    aspect: float  # height / width
    crop_u: tuple[float, float]  # crop box in card coordinates
    crop_v: tuple[float, float]


# Troetofanten: the top-left corner index (the part of a fanned card that stays visible) and
# the left part of the drawing; Magic Rabbit tiles and Hop la bille cards: the whole piece.
SPECS: dict[str, KeySpec] = {
    "magic-rabbit": KeySpec((0.5, 0.5), 1.0, (-0.12, 1.12), (-0.12, 1.12)),
    "troetofanten": KeySpec((0.17, 0.11), 91.0 / 59.0, (-0.06, 0.52), (-0.04, 0.62)),
    "hop-la-bille": KeySpec((0.5, 0.5), 1.5, (-0.08, 1.08), (-0.06, 1.06)),
}
# The Troetofanten corner index alone (its number), read by the index classifier.
# A margin around it keeps the number inside under the detector's pose errors.
INDEX_SPEC = KeySpec((0.17, 0.11), 91.0 / 59.0, (-0.04, 0.38), (-0.04, 0.26))
INDEX_CLASSES = ("1", "2", "3", "4", "5", "none")


@dataclass(frozen=True)
class CardCropSettings:
    size: int = 32  # crop side fed to the classifier (square; the card box is resampled)
    oversample: int = 2  # warp at size * oversample, then area-resize (anti-aliasing)
    mean: tuple[float, float, float] = (0.5, 0.5, 0.5)  # RGB after /255 (as vision.preprocess)
    std: tuple[float, float, float] = (0.25, 0.25, 0.25)

    def to_metadata(self) -> dict:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}


CARD_CROP = CardCropSettings()


def specs_metadata() -> str:
    return json.dumps({g: asdict(s) for g, s in SPECS.items()})


def frame_from_pose(key, angle_deg: float, width: float, spec: KeySpec) -> np.ndarray:
    """(4, 2) float64 corners TL, TR, BR, BL of the piece whose key point is `key`."""
    t = np.deg2rad(angle_deg)
    if not (isinstance(t, float) and isinstance(width, float)):  # (e.g. float32: numpy's
        #   own type rules, as written below)
        ex = np.array([np.cos(t), np.sin(t)]) * width
        ey = np.array([-np.sin(t), np.cos(t)]) * width * spec.aspect
        tl = np.asarray(key, float) - spec.key_uv[0] * ex - spec.key_uv[1] * ey
        return np.array([tl, tl + ex, tl + ex + ey, tl + ey])
    # float64 angle and width (np.float64 is a float): the same operations in the same order
    # on Python floats (IEEE doubles, as numpy's), without a numpy call per step
    c, s = float(np.cos(t)), float(np.sin(t))
    ex0, ex1 = c * width, s * width
    aspect = float(spec.aspect)  # (float(): numpy's upcast of e.g. a float32 field)
    ey0, ey1 = -s * width * aspect, c * width * aspect
    k0, k1 = np.asarray(key, float)
    u, v = float(spec.key_uv[0]), float(spec.key_uv[1])
    x, y = k0 - u * ex0 - v * ey0, k1 - u * ex1 - v * ey1
    return np.array([[x, y], [x + ex0, y + ex1], [x + ex0 + ey0, y + ex1 + ey1],
                     [x + ey0, y + ey1]])


def frames_at_widths(key, angle_deg: float, widths, spec: KeySpec) -> list[np.ndarray]:
    """`[frame_from_pose(key, angle_deg, w, spec) for w in widths]` (a width search's
    poses: one key point and angle at several widths), the angle's cosine and sine worked
    out once where the angle and the widths are floats (the same operations on the same
    numbers as `frame_from_pose`'s fast path: the same frames)."""
    t = np.deg2rad(angle_deg)
    if not (isinstance(t, float) and all(isinstance(w, float) for w in widths)):
        return [frame_from_pose(key, angle_deg, w, spec) for w in widths]
    c, s = float(np.cos(t)), float(np.sin(t))
    aspect = float(spec.aspect)
    k0, k1 = np.asarray(key, float)
    u, v = float(spec.key_uv[0]), float(spec.key_uv[1])
    out = []
    for width in widths:
        ex0, ex1 = c * width, s * width
        ey0, ey1 = -s * width * aspect, c * width * aspect
        x, y = k0 - u * ex0 - v * ey0, k1 - u * ex1 - v * ey1
        out.append(np.array([[x, y], [x + ex0, y + ex1], [x + ex0 + ey0, y + ex1 + ey1],
                             [x + ey0, y + ey1]]))
    return out


def pose_from_frame(frame, spec: KeySpec) -> tuple[np.ndarray, float, float]:
    """(key point (2,), angle in degrees, width px) of a 4-corner frame TL, TR, BR, BL."""
    q = np.asarray(frame, float)
    ex = ((q[1] - q[0]) + (q[2] - q[3])) / 2
    ey = ((q[3] - q[0]) + (q[2] - q[1])) / 2
    # bilinear point of the quadrilateral (exact for parallelograms)
    u, v = spec.key_uv
    key = (1 - u) * (1 - v) * q[0] + u * (1 - v) * q[1] + u * v * q[2] + (1 - u) * v * q[3]
    width = float(np.hypot(*ex))
    if not np.isfinite(width) or width <= 0:
        width = float(np.hypot(*ey)) / spec.aspect
    return key, float(np.degrees(np.arctan2(ex[1], ex[0]))), width


def card_uv_point(frame, u: float, v: float) -> np.ndarray:
    q = np.asarray(frame, float)
    return (1 - u) * (1 - v) * q[0] + u * (1 - v) * q[1] + u * v * q[2] + (1 - u) * v * q[3]


@lru_cache(maxsize=16)
def _box_weights(crop_u: tuple[float, float], crop_v: tuple[float, float]) -> np.ndarray:
    """(4, 4, 1) float64: `card_uv_point`'s four weights (on TL, TR, BR, BL) of each corner
    of the box crop_u x crop_v (TL, TR, BR, BL), each the same product of Python floats."""
    (u0, u1), (v0, v1) = crop_u, crop_v
    w = np.array([[(1 - u) * (1 - v), u * (1 - v), u * v, (1 - u) * v]
                  for u, v in ((u0, v0), (u1, v0), (u1, v1), (u0, v1))])[..., None]
    w.flags.writeable = False  # (cached: shared by every caller and thread)
    return w


@lru_cache(maxsize=4)
def _square(n: int) -> np.ndarray:
    """The (4, 2) float32 corners of the n x n warp's pixel square (pixel centres at
    integers)."""
    q = np.float32([[0, 0], [n, 0], [n, n], [0, n]]) - 0.5
    q.flags.writeable = False  # (cached)
    return q


def crop_box(frames, spec: KeySpec) -> np.ndarray:
    """(N, 4, 2) float32 image corners (TL, TR, BR, BL) of `spec`'s crop box on each of the
    N pieces `frames` ((N, 4, 2) corners): `card_uv_point` of each box corner, the same
    sums in the same order (so the same numbers), for all pieces at once."""
    q = np.asarray(frames, float)
    if q.shape[-2:] != (4, 2):
        raise ValueError(f"frames of shape {q.shape}: want (4, 2) or (N, 4, 2) corners")
    q = q.reshape(-1, 1, 4, 2)
    w = _box_weights(tuple(spec.crop_u), tuple(spec.crop_v))
    return (w[:, 0] * q[:, :, 0] + w[:, 1] * q[:, :, 1] + w[:, 2] * q[:, :, 2]
            + w[:, 3] * q[:, :, 3]).astype(np.float32)


def crop_card(image_bgr: np.ndarray, frame, spec: KeySpec,
              settings: CardCropSettings = CARD_CROP) -> np.ndarray:
    """The classifier's (size, size, 3) uint8 BGR crop of `spec`'s box on the piece `frame`
    ((4, 2) corners TL, TR, BR, BL in image pixels), resampled top-down: the box (`crop_box`)
    warped at `oversample` x the size, then area-resized."""
    return crop_cards(image_bgr, [frame], spec, settings)[0]


def crop_cards(image_bgr: np.ndarray, frames, spec: KeySpec,
               settings: CardCropSettings = CARD_CROP) -> np.ndarray:
    """`crop_card` of each of the N `frames` ((N, 4, 2) corners, or a list of (4, 2)): (N,
    size, size, 3) uint8, the same pixels for less work: the boxes worked out at once, the
    warps written one under another into one image area-resized in one go (by a whole
    factor, so each output pixel averages its own crop's block, as `crop_card`'s resize)."""
    n, size = settings.size * settings.oversample, settings.size
    boxes = crop_box(np.asarray(frames, float).reshape(-1, 4, 2), spec)
    k = len(boxes)
    if k == 0:
        return np.zeros((0, size, size) + image_bgr.shape[2:], image_bgr.dtype)
    memo = getattr(_SCALED, "memo", None)
    if memo is None:
        return _warp_boxes(image_bgr, boxes, n, size)
    # (within `keeping_scaled`: a box of this image warped before in this reading is taken
    #   from it: each crop is its own box's warp and its own blocks' means, whatever else
    #   is warped with it, so the same pixels; about 25 of 380 a Troetofanten photo)
    keys = [("crop", id(image_bgr), n, size, b.tobytes()) for b in boxes]
    out = np.empty((k, size, size) + image_bgr.shape[2:], image_bgr.dtype)
    ask = []
    for i, key in enumerate(keys):
        hit = memo.get(key)
        if hit is not None and hit[0] is image_bgr:
            out[i] = hit[1]
        else:
            ask.append(i)
    if ask:
        new = _warp_boxes(image_bgr, boxes[ask], n, size)
        out[ask] = new
        for r, i in enumerate(ask):
            memo[keys[i]] = (image_bgr, new[r])  # (the image kept: its id stays its own)
    return out


def _warp_boxes(image_bgr: np.ndarray, boxes: np.ndarray, n: int, size: int) -> np.ndarray:
    """`crop_cards`' work: each of the (k, 4, 2) float32 `boxes` warped to n x n, one under
    another, then area-resized to size x size in one go ((k, size, size, ...) uint8)."""
    k = len(boxes)
    big = np.empty((k * n, n) + image_bgr.shape[2:], image_bgr.dtype)
    square = _square(n)
    for i, box in enumerate(boxes):
        cv2.warpPerspective(image_bgr, cv2.getPerspectiveTransform(square, box), (n, n),
                            dst=big[i * n : (i + 1) * n],
                            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                            borderMode=cv2.BORDER_REPLICATE)
    out = cv2.resize(big, (size, k * size), interpolation=cv2.INTER_AREA)
    return out.reshape((k, size, size) + image_bgr.shape[2:])


def rectify(image_bgr: np.ndarray, frame, width_px: int, height_px: int) -> np.ndarray:
    """The piece `frame` resampled to a (height_px, width_px, 3) uint8 BGR top-down image."""
    src = np.float32(frame)
    dst = np.float32([[0, 0], [width_px, 0], [width_px, height_px], [0, height_px]]) - 0.5
    M = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(image_bgr, M, (width_px, height_px), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE)


def mask_min_area_rect(mask: np.ndarray, offset: tuple[int, int] = (0, 0)):
    """`cv2.minAreaRect` of the non-zero pixels of `mask` ((H, W) uint8), from their outer
    outlines only: the rectangle depends on the convex hull alone, which the outlines share
    with the whole pixel set, so the result is the same at a fraction of the points (a card
    of 10 000 pixels has some 400 on its outline). `offset`: added to the pixel coordinates
    (the mask cut from a larger image at that x, y). None for an empty mask."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE,
                                   offset=offset)
    if not contours:
        return None
    return cv2.minAreaRect(np.concatenate(contours).reshape(-1, 2).astype(np.float32))


_SCALED = threading.local()  # per thread: {(id(image), fx, fy): (image, its copy)} while
#                              `keeping_scaled` holds (the image kept: its id stays its own)


@contextmanager
def outermost_memo(local: threading.local):
    """`local.memo` a new dict within the outermost `with` on this thread (nested ones
    share it), None again after it: a per-photo store that nothing outlives."""
    if getattr(local, "memo", None) is not None:
        yield
        return
    local.memo = {}
    try:
        yield
    finally:
        local.memo = None


def keeping_scaled():
    """Within this (one photo's reading; nested, the outermost one's memo is shared),
    `area_scaled` of one image at one scale is made once: the detector's input, the second
    look's half-size photo, the look's HSV photo and the light steps' 640-px copy of a
    1280 x 960 photo are one and the same area resize (session 21, H1). Nothing is kept
    outside it."""
    return outermost_memo(_SCALED)


def area_scaled(image: np.ndarray, fx: float, fy: float | None = None) -> np.ndarray:
    """`cv2.resize(image, None, fx=fx, fy=fy, interpolation=cv2.INTER_AREA)` (`fy` default
    `fx`) of uint8 `image` (H, W[, C]); within `keeping_scaled` made once per image and
    scale and shared: the caller must not write into it."""
    fy = fx if fy is None else fy
    memo = getattr(_SCALED, "memo", None)
    if memo is None:
        return cv2.resize(image, None, fx=fx, fy=fy, interpolation=cv2.INTER_AREA)
    key = (id(image), float(fx), float(fy))
    hit = memo.get(key)
    if hit is not None and hit[0] is image:
        return hit[1]
    out = cv2.resize(image, None, fx=fx, fy=fy, interpolation=cv2.INTER_AREA)
    memo[key] = (image, out)
    return out
