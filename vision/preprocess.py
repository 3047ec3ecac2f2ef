"""The one crop preprocessing shared by training (`vision.classify`) and inference
(`vision.pipeline`): cut a top-down square crop of each candidate out of the photo, then turn
crops into the network's input tensor.

Conventions: images and crops are uint8 BGR (OpenCV order); the network input is float32
NCHW RGB, normalised with `CropSettings.mean` / `std`. Candidate geometry lives in the
rectified play-area plane; `H_plane_to_img` (3x3 float64) maps plane pixels to photo pixels.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache

import cv2
import numpy as np


@dataclass(frozen=True)
class CropSettings:
    size: int = 32  # crop side fed to the network, pixels
    margin: float = 1.3  # crop side / piece size (context around the piece)
    oversample: int = 2  # warp at size*oversample, then area-resize (anti-aliasing)
    mean: tuple[float, float, float] = (0.5, 0.5, 0.5)  # RGB, after /255
    std: tuple[float, float, float] = (0.25, 0.25, 0.25)
    # crops are white balanced by this power of the photo's own light (`light_gains`): 0 off,
    # 1 the full correction (a strong cast, e.g. a harsh warm lamp, turns frogs, cats and
    # white rabbits yellow; half the correction leaves ordinary light as it was)
    light_balance: float = 0.5

    def to_metadata(self) -> dict:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def from_metadata(cls, meta: dict) -> CropSettings:
        fields = {k: tuple(v) if isinstance(v, list) else v for k, v in meta.items()
                  if k in cls.__dataclass_fields__}
        return cls(**fields)


def crop_matrix(center, side: float, angle_deg: float, settings: CropSettings) -> np.ndarray:
    """3x3 affine matrix mapping crop pixels (u, v) at the oversampled size to plane pixels:
    a square of side `side * margin` centred on `center`, rotated by `angle_deg`."""
    n = settings.size * settings.oversample
    span = side * settings.margin
    t = np.deg2rad(angle_deg)
    c, s = np.cos(t), np.sin(t)
    k = span / n
    cx, cy = float(center[0]), float(center[1])
    # plane = center + R @ ((u + 0.5) * k - span / 2)
    off = 0.5 * k - span / 2
    return np.array(
        [
            [c * k, -s * k, cx + c * off - s * off],
            [s * k, c * k, cy + s * off + c * off],
            [0.0, 0.0, 1.0],
        ]
    )


def light_gains(image_bgr: np.ndarray, strength: float) -> np.ndarray:
    """(3,) float32 per-channel gains that white balance a uint8 BGR photo by its own light,
    raised to `strength`: the light's colour is the photo's shades-of-grey estimate (the
    6-norm of each channel over every 4th pixel: bright surfaces weigh most), the gains
    bring it to grey at its brightest channel's level."""
    if strength <= 0:
        return np.ones(3, np.float32)
    sample = np.ascontiguousarray(image_bgr[::4, ::4])
    if sample.dtype == np.uint8 and sample.ndim == 3 and sample.shape[2] == 3 and sample.size:
        # the same numbers as below: each level's (x / 255) ** 6 from a table, and the column
        # sums accumulated row after row in float32 as np.mean's axis-0 sum does (cv2.reduce
        # in one pass instead of numpy's slow 3-wide reduction), divided by the count
        px6 = cv2.LUT(sample, _sixth_powers()).reshape(-1, 3)
        ref = (cv2.reduce(px6, 0, cv2.REDUCE_SUM, dtype=cv2.CV_32F).reshape(3)
               / np.float32(len(px6))) ** (1 / 6)
    else:
        px = sample.reshape(-1, 3).astype(np.float32) / 255.0
        ref = np.mean(px ** 6, axis=0) ** (1 / 6)
    gains = ref.max() / np.maximum(ref, 1e-3)
    return (gains ** strength).astype(np.float32)


@lru_cache(maxsize=1)
def _sixth_powers() -> np.ndarray:
    """(1, 256, 3) float32: `light_gains`' (level / 255) ** 6 of each uint8 level."""
    levels = np.arange(256, dtype=np.float32) / 255.0
    t = np.ascontiguousarray(np.repeat((levels ** 6)[None, :, None], 3, axis=2))
    t.flags.writeable = False  # (cached)
    return t


def apply_gains(image_bgr: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """uint8 BGR pixels (any leading shape) times per-channel `gains` (3,), clipped."""
    if image_bgr.dtype == np.uint8 and image_bgr.ndim >= 2 and image_bgr.shape[-1] == 3 \
            and image_bgr.size:
        # the same numbers, each level's product looked up (a photo: 1 ms instead of 7)
        table = np.clip(np.arange(256, dtype=np.float32)[:, None] * gains, 0, 255)
        flat = np.ascontiguousarray(image_bgr).reshape(-1, 1, 3)
        lut = np.ascontiguousarray(table.astype(np.uint8).reshape(1, 256, 3))
        return cv2.LUT(flat, lut).reshape(image_bgr.shape)
    return np.clip(image_bgr.astype(np.float32) * gains, 0, 255).astype(np.uint8)


def extract_crops(
    image_bgr: np.ndarray,
    H_plane_to_img: np.ndarray,
    centers: np.ndarray,
    sides: np.ndarray,
    angles: np.ndarray,
    settings: CropSettings = CropSettings(),
) -> np.ndarray:
    """Top-down crops of N candidates: returns (N, size, size, 3) uint8 BGR, white balanced by
    the photo's light (`light_gains`, `settings.light_balance`).

    centers: (N, 2) plane pixels; sides: (N,) piece size in plane pixels; angles: (N,) degrees.
    """
    n = settings.size * settings.oversample
    out = np.empty((len(centers), settings.size, settings.size, 3), np.uint8)
    H = np.asarray(H_plane_to_img, np.float64)
    for i, (ctr, side, ang) in enumerate(zip(centers, sides, angles, strict=True)):
        M = H @ crop_matrix(ctr, float(side), float(ang), settings)
        big = cv2.warpPerspective(
            image_bgr, M, (n, n), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )
        out[i] = cv2.resize(big, (settings.size, settings.size), interpolation=cv2.INTER_AREA)
    if len(out) and settings.light_balance > 0:
        out = apply_gains(out, light_gains(image_bgr, settings.light_balance))
    return out


def crops_to_input(crops_bgr: np.ndarray, settings: CropSettings = CropSettings()) -> np.ndarray:
    """(N, S, S, 3) uint8 BGR crops -> (N, 3, S, S) float32 RGB normalised network input:
    (x / 255 - mean) / std in float32. uint8 crops take each value from a table of those 256
    levels per channel (the same float32 operations on the same level: the same numbers),
    looked up plane by plane from the crops' uint8 RGB planes (a quarter of the bytes to
    transpose), instead of five passes of arithmetic and a float transpose."""
    x = np.asarray(crops_bgr)
    if x.dtype == np.uint8 and x.ndim == 4 and x.shape[-1] == 3 and x.size:
        n, h, w = x.shape[:3]
        planes = np.ascontiguousarray(x[..., ::-1].transpose(0, 3, 1, 2)).reshape(n, 3, h * w)
        out = np.empty((n, 3, h * w), np.float32)
        for c, table in enumerate(level_tables(tuple(settings.mean), tuple(settings.std))):
            put_lookup(planes[:, c], table, out[:, c])
        return out.reshape(n, 3, h, w)
    x = np.asarray(x, np.float32)[..., ::-1] / 255.0
    x = (x - np.asarray(settings.mean, np.float32)) / np.asarray(settings.std, np.float32)
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


@lru_cache(maxsize=8)
def level_tables(mean: tuple[float, ...], std: tuple[float, ...]) -> tuple[np.ndarray, ...]:
    """Per RGB channel c, a (1, 256) float32 table of (level / 255 - mean[c]) / std[c] (the
    float32 operations of `crops_to_input`'s arithmetic, so its numbers)."""
    levels = np.arange(256, dtype=np.float32) / 255.0
    means = np.broadcast_to(np.asarray(mean, np.float32), (3,))  # (as the arithmetic's
    stds = np.broadcast_to(np.asarray(std, np.float32), (3,))  # broadcasting: 1 or 3 values)
    tables = tuple(np.ascontiguousarray(((levels - m) / s)[None])
                   for m, s in zip(means, stds, strict=True))
    for t in tables:
        t.flags.writeable = False  # (cached: shared by every caller and thread)
    return tables


def put_lookup(src: np.ndarray, table: np.ndarray, dst: np.ndarray) -> None:
    """dst[...] = table[src] for (R, C) uint8 `src` and a (R, C) float32 view `dst` (rows
    may be strided): cv2.LUT writes into the view."""
    got = cv2.LUT(src, table, dst=dst)
    if not np.shares_memory(got, dst):  # (had it allocated its own)
        dst[...] = got


def srgb_to_linear(x: np.ndarray, gamma: float | None = None) -> np.ndarray:
    """sRGB levels scaled to 0-1 -> linear light (where a lamp's or a shadow's light adds
    and multiplies): the sRGB curve, or with `gamma` the plain power x ** gamma (the
    glare removal's, `vision.area.remove_glare`: its figures were measured with 2.2)."""
    if gamma is not None:
        return x ** gamma
    return np.where(x <= 0.04045, x / 12.92, ((x + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(x: np.ndarray, gamma: float | None = None) -> np.ndarray:
    """Linear light -> sRGB levels 0-1 (clipped to 0-1 first): `srgb_to_linear`'s inverse
    (with the same `gamma`)."""
    x = np.clip(x, 0.0, 1.0)
    if gamma is not None:
        return x ** (1 / gamma)
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * x ** (1 / 2.4) - 0.055)


def tone_of_pixels(px: np.ndarray, bins: int, span: float, dev: tuple[float, float],
                   agree: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(exponents, pivots), each (3,) float32 (BGR): the power per channel about the
    samples' median level (pivot, 0-255) that takes a lamp's per-channel tone curve off,
    read off float32 (N, 3) BGR samples (0-255, clipped and black ones already left out)
    of one material across its own shading (a cloth: `vision.segment.cloth_tone`, the
    play-area stage's `AreaSettings.tone_dev`). Under a light that only scales the
    channels each channel's log level rises with the log brightness at a slope of 1: the
    slopes of `bins` brightness bins (median colours, between the 5th and 95th percentile)
    over the darker and the lighter half, per channel the one nearer 1 where both lean the
    same way, else 1, clipped to 0.5-2; a largest |slope - 1| up to dev[0] is left alone,
    from dev[1] taken off in full, in part between. Ones (pivots 128) for fewer than 10 x
    `bins` samples or dev[1] <= 0; ones where the brightness spans under `span` (log) or
    fewer than 4 bins hold 10 samples, and, with `agree` > 0, where the two halves'
    slopes differ by more than `agree` on any channel (a lamp's curve bends both alike)."""
    ones = np.ones(3, np.float32)
    lo_dev, hi_dev = dev
    if hi_dev <= 0 or len(px) < 10 * bins:
        return ones, ones * 128
    pivot = np.median(px, axis=0)
    lg = np.log(px / 255.0)
    ref = lg.mean(axis=1)
    lo, hi = np.percentile(ref, [5, 95])
    if hi - lo < span:
        return ones, pivot
    edges = np.linspace(lo, hi, bins + 1)
    xs, ys = [], []
    for a, b in zip(edges[:-1], edges[1:], strict=True):
        m = (ref >= a) & (ref <= b)
        if m.sum() >= 10:
            xs.append(np.median(ref[m]))
            ys.append(np.median(lg[m], axis=0))
    if len(xs) < 4:
        return ones, pivot
    xs, ys = np.array(xs), np.array(ys)

    def fit(x, y):  # (3,) least-squares slopes of y (n, 3) on x (n,)
        xc = x - x.mean()
        return (xc @ (y - y.mean(axis=0))) / max(float(xc @ xc), 1e-9)

    # a tone curve bends the whole range: the slopes of the darker and the lighter half
    # (bins overlapping by one), per channel the one nearer 1 where both lean the same
    # way, else 1 (a highlight's white or a shade's colour shows in one half only)
    k = len(xs) // 2
    low, high = fit(xs[:k + 1], ys[:k + 1]), fit(xs[k - 1:], ys[k - 1:])
    if agree > 0 and float(np.abs(low - high).max()) > agree:
        return ones, pivot.astype(np.float32)
    same = np.sign(low - 1.0) == np.sign(high - 1.0)
    slope = np.where(same, np.where(np.abs(low - 1) < np.abs(high - 1), low, high), 1.0)
    slope = np.clip(slope, 0.5, 2.0)
    deviation = float(np.abs(slope - 1.0).max())
    part = float(np.clip((deviation - lo_dev) / max(hi_dev - lo_dev, 1e-6), 0.0, 1.0))
    return (1.0 / slope ** part).astype(np.float32), pivot.astype(np.float32)


def apply_tone(crops: np.ndarray, exps: np.ndarray, pivots: np.ndarray) -> np.ndarray:
    """uint8 BGR `crops` (..., 3) with each channel c taken to pivots[c] * (x / pivots[c])
    ** exps[c] (a table per channel); themselves where every exponent is 1."""
    if np.all(exps == 1.0):
        return crops
    x = np.arange(256, dtype=np.float32)
    luts = np.stack([np.round(np.clip(pivots[c] * (x / max(float(pivots[c]), 1.0))
                                      ** exps[c], 0, 255)).astype(np.uint8)
                     for c in range(3)], axis=1)  # (256, 3)
    if crops.ndim == 3:  # a photo (H, W, 3): cv2's table look-up, the same levels, 1/3 the
        return cv2.LUT(crops, luts.reshape(256, 1, 3))  # time (7 -> 2.4 ms at 1280 x 960)
    out = np.empty_like(crops)
    for c in range(3):
        out[..., c] = luts[:, c][crops[..., c]]
    return out


def power_about(image: np.ndarray, exps: np.ndarray, white: float) -> np.ndarray:
    """uint8 BGR `image` (H, W, 3) with each channel c taken to white * (x / white) **
    exps[c] (`apply_tone` with every pivot at `white`: a lamp's tone curve taken off about
    white, so white stays white); the image itself where every exponent is 1."""
    return apply_tone(image, np.asarray(exps, np.float32), np.full(3, white, np.float32))
