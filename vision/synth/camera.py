"""The simulated phone: a pinhole camera above the table (a homography from the table plane to
the image) and the photometric faults of a phone photo (light gradients, shadows, glare, white
balance, sensor noise, defocus or motion blur, JPEG compression).

Images are (H, W, 3) uint8 BGR throughout.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.psf import streak_kernel
from vision.synth.geometry import apply_h


@dataclass(frozen=True)
class CameraSettings:
    """Ranges the camera is drawn from (see docs/synth.md)."""

    landscape: tuple[int, int] = (1280, 960)
    portrait_p: float = 0.3  # share of 3:4 (960 x 1280) frames
    tilt_deg: tuple[float, float] = (0.0, 40.0)  # from straight down
    hfov_deg: tuple[float, float] = (60.0, 75.0)  # horizontal field of view of the long side
    fill: tuple[float, float] = (0.40, 0.95)  # area bbox / frame, the larger of the two ratios
    content_margin: float = 0.02  # content (area + pieces around it) stays this far inside
    side_yaw_jitter: float = 30.0  # games with side zones: yaw = k * 90 +- this


CAMERA = CameraSettings()


@dataclass(frozen=True)
class Camera:
    """h: 3x3 world-mm -> image-px homography of the table plane; p: 3x4 projection of world
    points (x, y, z) with z pointing down into the table (so a piece's top is at z = -height);
    size: (W, H); tilt/yaw in degrees."""

    h: np.ndarray
    size: tuple[int, int]
    tilt: float
    yaw: float
    p: np.ndarray | None = None

    def h_at(self, height_mm: float) -> np.ndarray:
        """Homography of the horizontal plane `height_mm` above the table."""
        if self.p is None or height_mm == 0:
            return self.h
        return np.column_stack([self.p[:, 0], self.p[:, 1], self.p[:, 3] - height_mm
                                * self.p[:, 2]])


def _projection(tilt: float, yaw: float, f: float, pp: tuple[float, float], target, dist):
    t, y = math.radians(tilt), math.radians(yaw)
    rz = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
    # Tilt about the camera x axis so that the camera stands on the image-bottom side.
    rx = np.array([[1, 0, 0], [0, math.cos(t), math.sin(t)], [0, -math.sin(t), math.cos(t)]])
    r = rx @ rz  # world -> camera; world z points down into the table
    axis = r.T @ np.array([0.0, 0.0, 1.0])
    centre = np.array([target[0], target[1], 0.0]) - dist * axis
    k = np.array([[f, 0, pp[0]], [0, f, pp[1]], [0, 0, 1.0]])
    return k @ np.column_stack([r, -r @ centre])


def _homography(tilt: float, yaw: float, f: float, pp: tuple[float, float], target, dist):
    p = _projection(tilt, yaw, f, pp, target, dist)
    return p[:, [0, 1, 3]]


def _bbox(pts: np.ndarray) -> tuple[float, float, float, float]:
    return pts[:, 0].min(), pts[:, 1].min(), pts[:, 0].max(), pts[:, 1].max()


def sample_camera(
    rng: np.random.Generator,
    area: np.ndarray,
    content: np.ndarray,
    side_zones: bool = False,
    yaw_range: tuple[float, float] | None = None,
    settings: CameraSettings = CAMERA,
) -> Camera:
    """Draw a camera that sees `content` ((N, 2) world mm, must be in frame) with the `area`
    polygon's bounding box filling settings.fill of the frame (less if content needs room).

    side_zones: the yaw stays within settings.side_yaw_jitter of a multiple of 90 degrees so
    that "the side nearest the image bottom" is well defined. yaw_range overrides the yaw.
    """
    s = settings
    w, h = s.landscape
    if rng.random() < s.portrait_p:
        w, h = h, w
    tilt = rng.uniform(*s.tilt_deg)
    if yaw_range is not None:
        yaw = rng.uniform(*yaw_range)
    elif side_zones:
        yaw = 90.0 * rng.integers(4) + rng.uniform(-s.side_yaw_jitter, s.side_yaw_jitter)
    else:
        yaw = rng.uniform(0.0, 360.0)
    f = (max(w, h) / 2) / math.tan(math.radians(rng.uniform(*s.hfov_deg)) / 2)
    fill = rng.uniform(*s.fill)
    target = area.mean(axis=0) + rng.normal(0, 0.03, 2) * np.ptp(area, axis=0)
    dist = 600.0
    pp = (w / 2, h / 2)
    hm = _homography(tilt, yaw, f, pp, target, dist)
    for _ in range(4):
        x0, y0, x1, y1 = _bbox(apply_h(hm, area))
        cur = max((x1 - x0) / w, (y1 - y0) / h)
        cx0, cy0, cx1, cy1 = _bbox(apply_h(hm, content))
        room = 1 - 2 * s.content_margin
        need = max((cx1 - cx0) / (w * room), (cy1 - cy0) / (h * room))
        factor = max(cur / fill, need)  # > 1: move away
        dist *= factor
        hm = _homography(tilt, yaw, f, pp, target, dist)
        if abs(factor - 1) < 0.01:
            break
    # Shift the principal point so the content lands at a random place inside the frame.
    cx0, cy0, cx1, cy1 = _bbox(apply_h(hm, content))
    mx, my = s.content_margin * w, s.content_margin * h
    lo_x, hi_x = mx - cx0, (w - mx) - cx1
    lo_y, hi_y = my - cy0, (h - my) - cy1
    dx = rng.uniform(min(lo_x, hi_x), max(lo_x, hi_x)) if hi_x > lo_x else (lo_x + hi_x) / 2
    dy = rng.uniform(min(lo_y, hi_y), max(lo_y, hi_y)) if hi_y > lo_y else (lo_y + hi_y) / 2
    proj = _projection(tilt, yaw, f, (pp[0] + dx, pp[1] + dy), target, dist)
    return Camera(h=proj[:, [0, 1, 3]], size=(w, h), tilt=tilt, yaw=yaw, p=proj)


def scaled_camera(cam: Camera, k: float) -> Camera:
    """`cam` with its image k x as many pixels per side (the same view: pixel centres mapped
    (x + 0.5) * k - 0.5)."""
    m = np.array([[k, 0.0, (k - 1) / 2], [0.0, k, (k - 1) / 2], [0.0, 0.0, 1.0]])
    w, h = cam.size
    return Camera(h=m @ cam.h, size=(round(w * k), round(h * k)), tilt=cam.tilt, yaw=cam.yaw,
                  p=None if cam.p is None else m @ cam.p)


@dataclass(frozen=True)
class PhotoSettings:
    """Photometric fault ranges."""

    gradient: float = 0.35  # illumination varies by up to this factor across the frame
    harsh_p: float = 0.2  # share of harsh light: a much steeper gradient
    harsh_gradient: float = 0.7
    hard_shadow_p: float = 0.15  # a hard-edged shadow band across the frame
    wb: float = 0.10  # per-channel white-balance gain spread
    shadow_p: float = 0.45  # chance of a large soft shadow (a hand, a phone) across the frame
    shadow_depth: tuple[float, float] = (0.25, 0.5)
    glare_p: float = 0.35
    noise_sigma: tuple[float, float] = (0.5, 3.0)
    defocus_p: float = 0.45
    defocus_sigma: tuple[float, float] = (0.5, 1.6)
    motion_p: float = 0.2
    motion_len: tuple[int, int] = (3, 9)
    jpeg_quality: tuple[int, int] = (55, 95)
    exposure: tuple[float, float] = (0.8, 1.15)


PHOTO = PhotoSettings()


def illumination(rng: np.random.Generator, size: tuple[int, int], p: PhotoSettings = PHOTO):
    """Low-resolution (H/8, W/8, 3) float32 gain map: exposure, gradient, white balance and an
    optional large soft shadow; the renderer multiplies the photo by it after upsampling."""
    w, h = size
    lw, lh = max(4, w // 8), max(4, h // 8)
    grad = p.harsh_gradient if rng.random() < p.harsh_p else p.gradient
    coarse = rng.uniform(1 - grad / 2, 1 + grad / 2, (3, 4)).astype(np.float32)
    gain = cv2.resize(coarse, (lw, lh), interpolation=cv2.INTER_CUBIC)
    gain *= rng.uniform(*p.exposure)
    if rng.random() < p.shadow_p:
        mask = np.zeros((lh, lw), np.float32)
        c = rng.uniform([0, 0], [lw, lh])
        ax = rng.uniform([lw * 0.2, lh * 0.1], [lw * 0.6, lh * 0.4])
        cv2.ellipse(mask, (int(c[0]), int(c[1])), (int(ax[0]), int(ax[1])),
                    rng.uniform(0, 180), 0, 360, 1.0, -1)
        k = max(3, int(min(lw, lh) * 0.15) | 1)
        mask = cv2.GaussianBlur(mask, (k, k), 0)
        gain *= 1 - rng.uniform(*p.shadow_depth) * mask
    if rng.random() < p.hard_shadow_p:
        # A hard-edged shadow (a window frame, a lamp arm): a band across the frame.
        mask = np.zeros((lh, lw), np.float32)
        a = rng.uniform(0, np.pi)
        d = np.array([np.cos(a), np.sin(a)])
        n = np.array([-d[1], d[0]])
        c = rng.uniform([0, 0], [lw, lh])
        half = rng.uniform(0.05, 0.4) * max(lw, lh)
        far = 2.0 * max(lw, lh)
        quad = np.array([c - d * far - n * half, c + d * far - n * half, c + d * far + n * half,
                         c - d * far + n * half])
        cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1.0, cv2.LINE_AA)
        gain *= 1 - rng.uniform(*p.shadow_depth) * mask
    wb = 1 + rng.uniform(-p.wb, p.wb, 3).astype(np.float32)
    return gain[:, :, None] * wb[None, None, :]


NOISE_TILE = 1408  # px; holds a 1280 x 1280 window at any offset
NOISE_TILE_SIGMA = 16.0
NOISE_CHROMA = 0.3


@functools.lru_cache(maxsize=2)  # (the 1408-px field and one larger: a 2816-px one is 24 MB)
def _noise_tiles(side: int) -> tuple[np.ndarray, np.ndarray]:
    """Positive and negative parts (uint8, side^2 x 3) of one fixed sensor-noise field:
    Gaussian (luminance plus NOISE_CHROMA per-channel) at half resolution, upsampled
    (demosaicing correlates neighbours), sigma NOISE_TILE_SIGMA. Built once per side from a
    fixed seed, so it never breaks determinism; each photo takes a random window of it and
    scales it to its own sigma. `side`: NOISE_TILE, or above it a field as large (the same
    per-pixel noise) for a photo rendered larger (`render_scene(size_scale=)`)."""
    g = np.random.default_rng(20261129)
    n = side // 2
    # Mostly luminance noise with some chroma noise, as a phone's processing leaves it.
    half = g.standard_normal((n, n, 1), dtype=np.float32) + NOISE_CHROMA * g.standard_normal(
        (n, n, 3), dtype=np.float32)
    full = cv2.resize(half, (side, side), interpolation=cv2.INTER_LINEAR)
    full *= NOISE_TILE_SIGMA / max(float(full.std()), 1e-6)
    return (np.clip(full, 0, 255).astype(np.uint8), np.clip(-full, 0, 255).astype(np.uint8))


def finish_photo(rng: np.random.Generator, img: np.ndarray, p: PhotoSettings = PHOTO,
                 record: dict | None = None, blur_scale: float = 1.0):
    """Apply light, glare, blur, noise and a JPEG round trip to a rendered (H, W, 3) uint8 BGR
    image; returns a new uint8 BGR image of the same size. `record`, where given, receives
    the faults drawn (`defocus_sigma` px and `motion_px`, 0 for none, with `motion_deg` the
    streak's angle, counter-clockwise on screen from the image x axis, where there is motion;
    `glare`, `noise_sigma`, `jpeg_quality`) without changing what is drawn. `blur_scale`:
    the blur's sigma and streak this many times as many pixels (a 1280-px scene rendered k x
    larger per side: k for the same optics, 1 for the blur drawn in the output's pixels, a
    photo k x sharper in the scene's terms); the draws are the same, the noise per pixel and
    the JPEG at the output size whatever the image's size, as a phone's sensor and encoder
    leave them."""
    faults = {"defocus_sigma": 0.0, "motion_px": 0, "glare": False}
    h, w = img.shape[:2]
    gain = np.clip(illumination(rng, (w, h), p) * 128, 0, 255).astype(np.uint8)
    gain = cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)
    img = cv2.multiply(img, gain, scale=1 / 128)
    if rng.random() < p.glare_p:
        lw, lh = w // 8, h // 8
        g = np.zeros((lh, lw), np.float32)
        c = (int(rng.uniform(0, lw)), int(rng.uniform(0, lh)))
        ax = (int(rng.uniform(lw * 0.05, lw * 0.2)), int(rng.uniform(lh * 0.03, lh * 0.12)))
        cv2.ellipse(g, c, ax, rng.uniform(0, 180), 0, 360, 1.0, -1)
        g = cv2.GaussianBlur(g, (0, 0), max(ax) * 0.5 + 1) * rng.uniform(60, 140)
        g = cv2.resize(np.clip(g, 0, 255).astype(np.uint8), (w, h),
                       interpolation=cv2.INTER_LINEAR)
        img = cv2.add(img, cv2.merge([g, g, g]))
        faults["glare"] = True
    r = rng.random()
    if r < p.defocus_p:
        faults["defocus_sigma"] = float(rng.uniform(*p.defocus_sigma)) * blur_scale
        img = cv2.GaussianBlur(img, (0, 0), faults["defocus_sigma"])
    elif r < p.defocus_p + p.motion_p:
        n = int(rng.integers(p.motion_len[0], p.motion_len[1] + 1))
        if blur_scale != 1.0:
            n = max(1, round(n * blur_scale))
        faults["motion_px"] = n
        deg = float(rng.uniform(0, 180))
        faults["motion_deg"] = round(deg, 1)
        img = cv2.filter2D(img, -1, streak_kernel(n, deg))
    sigma = rng.uniform(*p.noise_sigma)
    pos_tile, neg_tile = _noise_tiles(NOISE_TILE if max(h, w) <= NOISE_TILE else
                                      int(np.ceil(max(h, w) / 128)) * 128 + 128)
    y0 = int(rng.integers(0, pos_tile.shape[0] - h + 1))
    x0 = int(rng.integers(0, pos_tile.shape[1] - w + 1))
    k = sigma / NOISE_TILE_SIGMA
    pos = cv2.convertScaleAbs(pos_tile[y0:y0 + h, x0:x0 + w], alpha=k)
    neg = cv2.convertScaleAbs(neg_tile[y0:y0 + h, x0:x0 + w], alpha=k)
    img = cv2.subtract(cv2.add(img, pos), neg)
    q = int(rng.integers(p.jpeg_quality[0], p.jpeg_quality[1] + 1))
    if record is not None:
        record.update(faults, defocus_sigma=round(faults["defocus_sigma"], 2),
                      noise_sigma=round(float(sigma), 2), jpeg_quality=q)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else img
