"""Procedural photos of real-looking dice for tests and `vision.dice_eval`.

Each die is a 3-D cube standing on a table plane, seen by a pinhole camera from 30 to 90
degrees elevation, so a tilted view shows the top face foreshortened plus one or two side
faces (slivers) with their own pips. Faces are drawn as textures (rounded corners, darkened
rounded edges, pips with a slight engraving shade) and warped with each face's exact
homography. Scenes vary die style (white, ivory, black, red, blue, green, yellow, translucent,
big red one-pip), pip size and spacing, table (wood, felt/cloth, paper with text, game board
with printed numbers, dark table), distractors (coins, printed number fields, round stickers,
text), light (direction, harsh over-exposure, low contrast, colour cast, gradient), cast
shadows, specular glare, noise, defocus or motion blur and JPEG compression.

Everything is seeded: `make_scene(seed)` returns the same photo and truth on every machine
with the same OpenCV. Images are (H, W, 3) uint8 BGR.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

# Pip positions on a unit face, (u, v) in [0, 1]^2, before the margin is applied.
# The grid index 0/1/2 means margin / centre / 1 - margin.
PIP_GRID = {
    1: [(1, 1)],
    2: [(0, 0), (2, 2)],
    3: [(0, 0), (1, 1), (2, 2)],
    4: [(0, 0), (2, 0), (0, 2), (2, 2)],
    5: [(0, 0), (2, 0), (0, 2), (2, 2), (1, 1)],
    6: [(0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)],
}

# name: (face BGR, pip BGR, translucent)
STYLES = {
    "white": ((238, 240, 240), (25, 25, 25), False),
    "ivory": ((200, 228, 240), (40, 30, 30), False),
    "black": ((28, 28, 30), (235, 235, 235), False),
    "red": ((40, 35, 200), (240, 240, 240), False),
    "blue": ((170, 80, 25), (240, 240, 240), False),
    "green": ((60, 150, 40), (240, 240, 240), False),
    "yellow": ((40, 205, 235), (25, 25, 25), False),
    "darkred": ((30, 20, 120), (210, 210, 210), False),
    "lowblue": ((150, 95, 60), (30, 20, 20), False),  # low-contrast dark pips on blue
    "trans-red": ((50, 40, 220), (245, 245, 245), True),
    "trans-blue": ((210, 120, 40), (245, 245, 245), True),
    "trans-green": ((90, 200, 60), (245, 245, 245), True),
    "white-red1": ((238, 240, 240), (25, 25, 25), False),  # big red one-pip
}
STYLE_WEIGHTS = {
    "white": 4, "ivory": 1, "black": 1.5, "red": 2, "blue": 1.5, "green": 1, "yellow": 1,
    "darkred": 0.7, "lowblue": 0.6, "trans-red": 0.8, "trans-blue": 0.6, "trans-green": 0.5,
    "white-red1": 0.8,
}

TABLES = ("wood", "felt", "paper", "board", "dark", "white")
TABLE_WEIGHTS = (3, 2, 2, 1.5, 1, 1)


@dataclass(frozen=True)
class DiceSceneSettings:
    """Ranges each scene is drawn from (uniform unless said otherwise)."""

    size: tuple[int, int] = (1280, 960)
    portrait_p: float = 0.2  # share of 960 x 1280 frames
    n_dice: tuple[int, int] = (1, 10)  # inclusive
    die_frac: tuple[float, float] = (0.03, 0.12)  # die side / image width near the centre
    elevation_deg: tuple[float, float] = (32.0, 90.0)  # camera above the table; 90 = top-down
    hfov_deg: tuple[float, float] = (50.0, 70.0)
    roll_deg: float = 25.0  # camera roll +- for tilted views (phones are held upright)
    topdown_deg: float = 70.0  # at or above this elevation the roll is anything
    touching_p: float = 0.35  # chance that a die is put flush against an earlier one
    same_style_p: float = 0.5  # all dice of a scene share one style
    pip_margin: tuple[float, float] = (0.2, 0.3)  # pip centre offset from the face edge
    pip_radius: tuple[float, float] = (0.06, 0.105)  # of the face side
    corner_radius: tuple[float, float] = (0.08, 0.22)
    distractors: tuple[int, int] = (0, 6)
    glare_p: float = 0.3
    harsh_p: float = 0.15  # over-exposed light
    low_contrast_p: float = 0.15
    blur_p: float = 0.35
    motion_blur_p: float = 0.1
    noise_sigma: tuple[float, float] = (1.0, 9.0)
    jpeg_quality: tuple[int, int] = (45, 95)
    texture_px: int = 128  # face texture side


SCENE = DiceSceneSettings()


@dataclass
class SceneTruth:
    """dice: list of {"value", "center": [x, y], "style", "touching", "side_px"}."""

    dice: list[dict] = field(default_factory=list)
    table: str = ""
    elevation: float = 90.0


# --------------------------------------------------------------------------- textures

def _noise_field(rng, h, w, scale, octaves=3):
    out = np.zeros((h, w), np.float32)
    amp = 1.0
    for o in range(octaves):
        s = max(2, int(scale / (2**o)))
        small = rng.standard_normal((h // s + 2, w // s + 2)).astype(np.float32)
        out += amp * cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
        amp *= 0.5
    return out / (np.abs(out).max() + 1e-6)


def _words(rng, n):
    letters = "abcdefghijklmnopqrstuvwxyz0123456789oO.:-"
    return ["".join(rng.choice(list(letters), size=int(rng.integers(2, 9)))) for _ in range(n)]


def table_texture(rng, w, h, kind):
    """A (h, w, 3) uint8 BGR table surface of the given kind."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "wood":
        base = np.array(rng.choice([(60, 110, 170), (40, 75, 120), (90, 150, 200), (30, 50, 80),
                                    (110, 170, 215)]), np.float32)
        ang = rng.uniform(0, math.pi)
        coord = xx * math.cos(ang) + yy * math.sin(ang)
        warp = _noise_field(rng, h, w, 200) * rng.uniform(10, 40)
        period = rng.uniform(6, 30)
        grain = np.sin((coord + warp) / period * 2 * math.pi)
        fine = _noise_field(rng, h, w, 8, 2)
        f = 1 + 0.12 * grain + 0.08 * fine + 0.1 * _noise_field(rng, h, w, 300)
        img = base[None, None, :] * f[..., None]
    elif kind == "felt":
        base = np.array(rng.choice([(50, 120, 30), (110, 60, 20), (40, 40, 140), (90, 90, 90),
                                    (30, 80, 40), (120, 100, 60)]), np.float32)
        period = rng.uniform(2.5, 5)
        weave = np.sin(xx / period * math.pi) * np.sin(yy / period * math.pi)
        f = 1 + 0.06 * weave + 0.1 * _noise_field(rng, h, w, 4, 2) + 0.08 * _noise_field(
            rng, h, w, 250)
        img = base[None, None, :] * f[..., None]
    elif kind in ("paper", "white"):
        base = np.array(rng.choice([(235, 238, 240), (215, 225, 232), (245, 245, 245)]),
                        np.float32)
        f = 1 + 0.03 * _noise_field(rng, h, w, 200) + 0.02 * _noise_field(rng, h, w, 3, 1)
        img = base[None, None, :] * f[..., None]
        if kind == "paper":
            img = np.clip(img, 0, 255).astype(np.uint8)
            if rng.random() < 0.5:  # squared paper
                step = int(rng.integers(18, 40))
                col = (200, 170, 140)
                for x in range(0, w, step):
                    cv2.line(img, (x, 0), (x, h), col, 1)
                for y in range(0, h, step):
                    cv2.line(img, (0, y), (w, y), col, 1)
            size = rng.uniform(0.5, 1.4)
            lh = int(30 * size) + 4
            for y in range(int(rng.integers(20, 60)), h, lh):
                if rng.random() < 0.3:
                    continue
                x = int(rng.integers(5, 60))
                for wd in _words(rng, 12):
                    cv2.putText(img, wd, (x, y), cv2.FONT_HERSHEY_SIMPLEX, size, (40, 40, 40),
                                max(1, int(2 * size)), cv2.LINE_AA)
                    x += int(len(wd) * 20 * size) + 15
                    if x > w:
                        break
            return img
    elif kind == "board":
        base = np.array(rng.choice([(200, 225, 235), (150, 200, 220), (120, 170, 120)]),
                        np.float32)
        img = np.clip(base[None, None, :] * (1 + 0.04 * _noise_field(rng, h, w, 150)[..., None]),
                      0, 255).astype(np.uint8)
        step = int(rng.integers(60, 130))
        for k, y in enumerate(range(step // 2, h, step)):
            for j, x in enumerate(range(step // 2, w, step)):
                col = tuple(int(c) for c in rng.integers(30, 230, 3))
                r = int(step * rng.uniform(0.25, 0.42))
                if rng.random() < 0.5:
                    cv2.circle(img, (x, y), r, col, -1, cv2.LINE_AA)
                else:
                    cv2.rectangle(img, (x - r, y - r), (x + r, y + r), col, -1)
                cv2.circle(img, (x, y), r, (20, 20, 20), 2, cv2.LINE_AA)
                cv2.putText(img, str((k * 7 + j) % 60 + 1), (x - r // 2, y + r // 3),
                            cv2.FONT_HERSHEY_SIMPLEX, r / 25, (20, 20, 20), 2, cv2.LINE_AA)
        return img
    else:  # dark table
        base = np.array(rng.choice([(35, 35, 35), (30, 40, 55), (60, 50, 45)]), np.float32)
        f = 1 + 0.15 * _noise_field(rng, h, w, 120) + 0.05 * _noise_field(rng, h, w, 4, 1)
        img = base[None, None, :] * f[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def draw_distractors(rng, img, n, px):
    """Coins, printed number fields, round stickers and dot rows; `px` is a die side in px."""
    h, w = img.shape[:2]
    for _ in range(n):
        kind = rng.choice(["coin", "field", "sticker", "dots", "text"])
        x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
        if kind == "coin":
            r = int(px * rng.uniform(0.5, 0.8))
            col = np.array(rng.choice([(150, 150, 150), (60, 150, 190), (80, 110, 160)]))
            cv2.circle(img, (x, y), r, tuple(int(c) for c in col), -1, cv2.LINE_AA)
            cv2.circle(img, (x, y), int(r * 0.85), tuple(int(c) for c in col * 0.75), 2,
                       cv2.LINE_AA)
            cv2.putText(img, str(int(rng.integers(1, 50))), (x - r // 2, y + r // 4),
                        cv2.FONT_HERSHEY_SIMPLEX, r / 30, tuple(int(c) for c in col * 0.6), 2)
        elif kind == "field":
            r = int(px * rng.uniform(0.4, 0.9))
            cv2.circle(img, (x, y), r, tuple(int(c) for c in rng.integers(40, 240, 3)), -1,
                       cv2.LINE_AA)
            cv2.putText(img, str(int(rng.integers(1, 13))), (x - r // 2, y + r // 3),
                        cv2.FONT_HERSHEY_SIMPLEX, r / 22, (15, 15, 15), 2, cv2.LINE_AA)
        elif kind == "sticker":
            r = int(px * rng.uniform(0.1, 0.3))
            cv2.circle(img, (x, y), r, tuple(int(c) for c in rng.integers(0, 255, 3)), -1,
                       cv2.LINE_AA)
        elif kind == "dots":  # a row of round holes or dots, like a board track
            r = max(2, int(px * rng.uniform(0.06, 0.12)))
            dx, dy = rng.normal(size=2)
            nrm = math.hypot(dx, dy) + 1e-6
            step = r * rng.uniform(2.5, 5)
            for k in range(int(rng.integers(3, 8))):
                cv2.circle(img, (int(x + k * step * dx / nrm), int(y + k * step * dy / nrm)), r,
                           (25, 25, 25), -1, cv2.LINE_AA)
        else:
            cv2.putText(img, " ".join(_words(rng, 3)), (x, y), cv2.FONT_HERSHEY_SIMPLEX,
                        px / 45, (30, 30, 30), 2, cv2.LINE_AA)


def face_texture(rng, value, style, t, margin, pip_r, corner_r):
    """One die face: (t, t, 3) float32 BGR in 0..255 and (t, t) float32 alpha (rounded
    corners). Pip layouts are rotated by a random multiple of 90 degrees."""
    face_col, pip_col, _ = STYLES[style]
    face = np.empty((t, t, 3), np.float32)
    face[:] = face_col
    # Slight edge darkening that mimics the rounded cube edges.
    yy, xx = np.mgrid[0:t, 0:t].astype(np.float32) + 0.5
    dist = np.minimum(np.minimum(xx, t - xx), np.minimum(yy, t - yy)) / t
    edge = 1 - rng.uniform(0.1, 0.35) * np.exp(-dist / rng.uniform(0.03, 0.07))
    face *= edge[..., None]
    img = face.copy()
    ss = 4  # supersampled pips
    big = np.zeros((t * ss, t * ss), np.uint8)
    grid = (margin, 0.5, 1 - margin)
    pts = [(grid[i], grid[j]) for i, j in PIP_GRID[value]]
    k = int(rng.integers(0, 4))
    for _ in range(k):
        pts = [(1 - v, u) for u, v in pts]
    r = pip_r * (rng.uniform(1.2, 1.9) if value == 1 and rng.random() < 0.5 else 1.0)
    if style == "white-red1" and value == 1:
        r = pip_r * 1.9
        pip_col = (40, 30, 200)
    for u, v in pts:
        cv2.circle(big, (int(u * t * ss), int(v * t * ss)), int(r * t * ss), 255, -1)
    mask = cv2.resize(big, (t, t), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    # Engraving: pips a touch darker on one side.
    shade = 1 + 0.15 * (xx - t / 2) / t * rng.choice([-1, 1])
    pip = np.asarray(pip_col, np.float32)[None, None, :] * shade[..., None]
    img = img * (1 - mask[..., None]) + pip * mask[..., None]
    alpha = np.zeros((t * ss, t * ss), np.uint8)
    cr = int(corner_r * t * ss)
    cv2.rectangle(alpha, (cr, 0), (t * ss - cr, t * ss), 255, -1)
    cv2.rectangle(alpha, (0, cr), (t * ss, t * ss - cr), 255, -1)
    for cx in (cr, t * ss - cr):
        for cy in (cr, t * ss - cr):
            cv2.circle(alpha, (cx, cy), cr, 255, -1)
    a = cv2.resize(alpha, (t, t), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    return img, a, mask


# --------------------------------------------------------------------------- camera

@dataclass
class _Cam:
    k: np.ndarray
    r: np.ndarray
    t: np.ndarray
    pos: np.ndarray

    def project(self, pts):
        pc = (self.r @ np.asarray(pts, np.float64).T).T + self.t
        uv = (self.k @ pc.T).T
        return uv[:, :2] / uv[:, 2:3]

    def ray_to_table(self, uv):
        """Back-project pixels to the z = 0 table plane (world units = die sides)."""
        uv = np.asarray(uv, np.float64)
        d = np.linalg.inv(self.k) @ np.c_[uv, np.ones(len(uv))].T
        d = (self.r.T @ d).T
        s = -self.pos[2] / d[:, 2]
        return self.pos[None, :] + s[:, None] * d


def _camera(rng, s: DiceSceneSettings, w, h, die_px):
    f = w / (2 * math.tan(math.radians(rng.uniform(*s.hfov_deg)) / 2))
    e = math.radians(rng.uniform(*s.elevation_deg))
    dist = f / die_px
    pos = np.array([0.0, -dist * math.cos(e), dist * math.sin(e)])
    fwd = -pos / np.linalg.norm(pos)
    up = np.array([0.0, 1.0, 0.0]) if e > math.radians(89) else np.array([0.0, 0.0, 1.0])
    right = np.cross(fwd, up)
    right /= np.linalg.norm(right)
    down = np.cross(fwd, right)
    r = np.stack([right, down, fwd])
    rmax = 180.0 if math.degrees(e) >= s.topdown_deg else s.roll_deg
    roll = math.radians(rng.uniform(-rmax, rmax))
    rz = np.array([[math.cos(roll), -math.sin(roll), 0], [math.sin(roll), math.cos(roll), 0],
                   [0, 0, 1]])
    r = rz @ r
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
    return _Cam(k=k, r=r, t=-r @ pos, pos=pos), math.degrees(e)


def _cube_faces(cx, cy, yaw, top, rng):
    """Five faces (no bottom): list of (value, 4x3 corners in texture order, normal)."""
    c, s_ = math.cos(yaw), math.sin(yaw)
    ex, ey = np.array([c, s_, 0.0]) * 0.5, np.array([-s_, c, 0.0]) * 0.5
    ez = np.array([0.0, 0.0, 0.5])
    o = np.array([cx, cy, 0.5])
    sides = [v for v in range(1, 7) if v not in (top, 7 - top)]
    a = sides[int(rng.integers(0, 4))]
    b = next(v for v in sides if v not in (a, 7 - a))
    faces = [(top, o + ez, ex, ey, ez)]
    for val, nrm, u in ((a, ex, ey), (7 - a, -ex, -ey), (b, ey, -ex), (7 - b, -ey, ex)):
        faces.append((val, o + nrm, u, -ez, nrm))
    out = []
    for val, ctr, u, v, nrm in faces:
        corners = np.array([ctr - u - v, ctr + u - v, ctr + u + v, ctr - u + v])
        out.append((val, corners, nrm / np.linalg.norm(nrm)))
    return out


# --------------------------------------------------------------------------- scene

def _place(rng, cam, n, touching_p, w, h, die_px):
    """Die centres (x, y, yaw) on the table, inside the frame, not overlapping."""
    out, touching = [], []
    margin = 1.2 * die_px
    for _ in range(n * 60):
        if len(out) == n:
            break
        if out and rng.random() < touching_p:
            bx, by, byaw = out[int(rng.integers(0, len(out)))]
            k = int(rng.integers(0, 4))
            ang = byaw + k * math.pi / 2
            gap = rng.uniform(1.0, 1.06)
            off = rng.uniform(-0.45, 0.45)
            x = bx + gap * math.cos(ang) - off * math.sin(ang)
            y = by + gap * math.sin(ang) + off * math.cos(ang)
            yaw = byaw + rng.uniform(-0.05, 0.05)
            touch = True
        else:
            uv = np.array([[rng.uniform(margin, w - margin), rng.uniform(margin, h - margin)]])
            x, y, _ = cam.ray_to_table(uv)[0]
            yaw = rng.uniform(0, 2 * math.pi)
            touch = False
        ok = True
        for ox, oy, _ in out:
            d = math.hypot(x - ox, y - oy)
            if d < (0.99 if touch else 1.5):
                ok = False
                break
        if not ok:
            continue
        pts = cam.project([[x + dx, y + dy, z] for dx in (-0.8, 0.8) for dy in (-0.8, 0.8)
                           for z in (0, 1)])
        if pts.min() < 4 or pts[:, 0].max() > w - 4 or pts[:, 1].max() > h - 4:
            continue
        if any(_occludes(cam, (x, y, yaw), o) or _occludes(cam, o, (x, y, yaw)) for o in out):
            continue
        out.append((x, y, yaw))
        touching.append(touch)
    return out, touching


def _corners(x, y, yaw, zs, k=0.5):
    c, s = math.cos(yaw), math.sin(yaw)
    return [[x + c * dx - s * dy, y + s * dx + c * dy, z]
            for dx, dy in ((-k, -k), (k, -k), (k, k), (-k, k)) for z in zs]


def _occludes(cam, a, b):
    """Whether die a's silhouette covers part of die b's top face in the image."""
    hull = cv2.convexHull(cam.project(_corners(*a, (0.0, 1.0))).astype(np.float32))
    top = cam.project(_corners(*b, (1.0,), k=0.46)).astype(np.float32)
    area, _ = cv2.intersectConvexConvex(hull, top)
    return area > 1.0


def make_scene(seed: int, s: DiceSceneSettings = SCENE, values: list[int] | None = None,
               style: str | None = None, table: str | None = None
               ) -> tuple[np.ndarray, SceneTruth]:
    """A photo (H, W, 3) uint8 BGR and its truth, from the seed alone. `values` fixes the
    dice (their number and top faces), `style` the die style, `table` the table kind."""
    rng = np.random.default_rng(seed)
    w, h = s.size
    if rng.random() < s.portrait_p:
        w, h = h, w
    die_px = rng.uniform(*s.die_frac) * w
    cam, elev = _camera(rng, s, w, h, die_px)
    kind = str(rng.choice(TABLES, p=np.array(TABLE_WEIGHTS) / sum(TABLE_WEIGHTS)))
    kind = table or kind
    img = table_texture(rng, w, h, kind)
    draw_distractors(rng, img, int(rng.integers(s.distractors[0], s.distractors[1] + 1)),
                     die_px)
    n = int(rng.integers(s.n_dice[0], s.n_dice[1] + 1))
    n = len(values) if values is not None else n
    places, touching = _place(rng, cam, n, s.touching_p, w, h, die_px)
    names = list(STYLE_WEIGHTS)
    pw = np.array([STYLE_WEIGHTS[k] for k in names])
    scene_style = str(rng.choice(names, p=pw / pw.sum()))
    scene_style = style or scene_style
    light = np.array([rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(0.4, 2.0)])
    light /= np.linalg.norm(light)
    ambient = rng.uniform(0.35, 0.65)
    truth = SceneTruth(table=kind, elevation=round(elev, 1))
    imgf = img.astype(np.float32)
    # Cast shadows first (on the table only).
    shadow = np.ones((h, w), np.float32)
    for x, y, yaw in places:
        c, s_ = math.cos(yaw), math.sin(yaw)
        pts = []
        for dx in (-0.5, 0.5):
            for dy in (-0.5, 0.5):
                bx, by = x + c * dx - s_ * dy, y + s_ * dx + c * dy
                pts.append([bx, by, 0.0])
                pts.append([bx - light[0] / light[2], by - light[1] / light[2], 0.0])
        hull = cv2.convexHull(cam.project(pts).astype(np.float32)).astype(np.int32)
        cv2.fillConvexPoly(shadow, hull, float(rng.uniform(0.45, 0.8)), cv2.LINE_AA)
    k = int(die_px * 0.15) | 1
    shadow = cv2.GaussianBlur(shadow, (k, k), 0)
    imgf *= shadow[..., None]
    # Far dice first.
    order = sorted(range(len(places)),
                   key=lambda i: -np.linalg.norm(np.array([*places[i][:2], 0.5]) - cam.pos))
    t = s.texture_px
    src = np.float32([[0, 0], [t, 0], [t, t], [0, t]])
    for i in order:
        x, y, yaw = places[i]
        die_style = scene_style if rng.random() < s.same_style_p else str(
            rng.choice(names, p=pw / pw.sum()))
        die_style = style or die_style
        value = int(rng.integers(1, 7))
        value = values[i] if values is not None else value
        margin = rng.uniform(*s.pip_margin)
        pip_r = rng.uniform(*s.pip_radius)
        pip_r = min(pip_r, margin * 0.75)
        corner_r = rng.uniform(*s.corner_radius)
        translucent = STYLES[die_style][2]
        faces = _cube_faces(x, y, yaw, value, rng)
        centre_px = cam.project([[x, y, 1.0]])[0]
        for val, corners, nrm in faces[::-1]:  # sides before the top
            ctr = corners.mean(axis=0)
            if np.dot(nrm, cam.pos - ctr) <= 1e-6:
                continue
            quad = cam.project(corners).astype(np.float32)
            area = cv2.contourArea(quad)
            if area < 4:
                continue
            tex, alpha, _ = face_texture(rng, val, die_style, t, margin, pip_r, corner_r)
            light_f = ambient + (1 - ambient) * max(0.0, float(np.dot(nrm, light)))
            tex = tex * light_f
            if nrm[2] > 0.5 and rng.random() < s.glare_p:
                gx, gy = rng.uniform(0.2, 0.8, 2) * t
                gl = np.zeros((t, t), np.float32)
                cv2.ellipse(gl, (int(gx), int(gy)), (int(t * rng.uniform(0.05, 0.2)),
                            int(t * rng.uniform(0.03, 0.1))), rng.uniform(0, 180), 0, 360, 1.0,
                            -1)
                gl = cv2.GaussianBlur(gl, (0, 0), t * 0.03) * rng.uniform(0.3, 0.9)
                tex = tex + (255 - tex) * gl[..., None]
            x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 1
            x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 2
            x0, y0 = max(x0, 0), max(y0, 0)
            x1, y1 = min(x1, w), min(y1, h)
            if x1 <= x0 or y1 <= y0:
                continue
            m = cv2.getPerspectiveTransform(src, quad - np.float32([x0, y0]))
            size = (x1 - x0, y1 - y0)
            warped = cv2.warpPerspective(tex, m, size, flags=cv2.INTER_LINEAR)
            wa = cv2.warpPerspective(alpha, m, size, flags=cv2.INTER_LINEAR)
            roi = imgf[y0:y1, x0:x1]
            if translucent:
                _, _, pmask = face_texture(rng, val, die_style, t, margin, pip_r, corner_r)
                wp = cv2.warpPerspective(pmask, m, size, flags=cv2.INTER_LINEAR)
                op = rng.uniform(0.55, 0.8)
                body = roi * (1 - op) + warped * op
                warped = body * (1 - wp[..., None]) + warped * wp[..., None]
            roi[:] = roi * (1 - wa[..., None]) + warped * wa[..., None]
        truth.dice.append({"value": value, "center": [round(float(centre_px[0]), 1),
                                                       round(float(centre_px[1]), 1)],
                           "style": die_style, "touching": bool(touching[i]),
                           "side_px": round(float(die_px), 1)})
    img = _finish(rng, imgf, s, die_px)
    truth.dice.sort(key=lambda d: (d["center"][1], d["center"][0]))
    return img, truth


def _finish(rng, imgf, s: DiceSceneSettings, die_px):
    h, w = imgf.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gx, gy = rng.normal(size=2) * 0.4
    grad = 1 + gx * (xx / w - 0.5) + gy * (yy / h - 0.5)
    vign = 1 - rng.uniform(0, 0.35) * (((xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2) * 2)
    imgf = imgf * (grad * vign)[..., None]
    imgf = imgf * rng.uniform(0.85, 1.15, 3)[None, None, :]  # white balance
    if rng.random() < s.harsh_p:
        imgf = imgf * rng.uniform(1.3, 1.8)
    elif rng.random() < s.low_contrast_p:
        a = rng.uniform(0.45, 0.7)
        imgf = imgf * a + rng.uniform(20, 90) * (1 - a) + 30
    if rng.random() < s.blur_p:
        sigma = rng.uniform(0.5, 1.2) * max(1.0, die_px / 80)
        imgf = cv2.GaussianBlur(imgf, (0, 0), sigma)
    if rng.random() < s.motion_blur_p:
        ln = int(rng.integers(3, 8))
        kern = np.zeros((ln, ln), np.float32)
        kern[ln // 2, :] = 1 / ln
        rot = cv2.getRotationMatrix2D((ln / 2 - 0.5, ln / 2 - 0.5), rng.uniform(0, 180), 1)
        kern = cv2.warpAffine(kern, rot, (ln, ln))
        kern /= kern.sum()
        imgf = cv2.filter2D(imgf, -1, kern)
    imgf = imgf + rng.normal(0, rng.uniform(*s.noise_sigma), imgf.shape).astype(np.float32)
    img = np.clip(imgf, 0, 255).astype(np.uint8)
    q = int(rng.integers(s.jpeg_quality[0], s.jpeg_quality[1] + 1))
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def no_dice_scene(seed: int, s: DiceSceneSettings = SCENE) -> np.ndarray:
    """A table with distractors (coins, numbers, text, dots) and no die."""
    rng = np.random.default_rng(seed)
    w, h = s.size
    kind = str(rng.choice(TABLES, p=np.array(TABLE_WEIGHTS) / sum(TABLE_WEIGHTS)))
    img = table_texture(rng, w, h, kind)
    die_px = rng.uniform(*s.die_frac) * w
    draw_distractors(rng, img, int(rng.integers(3, 10)), die_px)
    return _finish(rng, img.astype(np.float32), s, die_px)


# --------------------------------------------------------------------------- labelled folder

# The committed test folder `datasets/dice/` (see `write_folder`): every photo's style,
# table and view are fixed by its index alone, so the folder covers every style, table and
# both views evenly; the dice, their values, light and defects come from the seed.
FOLDER_STYLES = ("white", "red", "blue", "trans-red", "trans-blue", "black", "ivory", "green",
                 "yellow", "trans-green", "darkred", "lowblue", "white-red1", None)  # None: mixed
FOLDER_VIEWS = {"above": (70.0, 90.0), "slanted": (35.0, 65.0)}


def folder_scene(index: int, seed: int = 20_000, size: tuple[int, int] = (800, 600)
                 ) -> tuple[np.ndarray, dict]:
    """Photo `index` of a labelled folder: (BGR image, truth dict ready for JSON)."""
    style = FOLDER_STYLES[index % len(FOLDER_STYLES)]
    table = TABLES[index % len(TABLES)]
    # Both views for every style (the style cycle is even, so plain parity would tie them).
    view = ("above", "slanted")[(index + index // len(FOLDER_STYLES)) % 2]
    n = 1 + index % 10
    rng = np.random.default_rng(seed + index)
    values = [int(v) for v in rng.integers(1, 7, n)]
    s = SCENE.__class__(**{**SCENE.__dict__, "size": size, "portrait_p": 0.0,
                           "elevation_deg": FOLDER_VIEWS[view]})
    img, truth = make_scene(seed + index, s, values=values, style=style, table=table)
    out = {"generator": "vision.dice_synth.folder_scene", "index": index, "seed": seed + index,
           "image": {"width": int(img.shape[1]), "height": int(img.shape[0])},
           "style": style or "mixed", "table": truth.table, "view": view,
           "elevation": truth.elevation, "dice": truth.dice}
    return img, out


def write_folder(folder, count: int = 30, seed: int = 20_000, quality: int = 75) -> list[str]:
    """Write `count` labelled photos (`dice-NNN.jpg` + `dice-NNN.json`) into `folder`; the
    same arguments always write the same files. Returns the photo names."""
    import json
    from pathlib import Path

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    names = []
    for k in range(count):
        img, truth = folder_scene(k, seed)
        name = f"dice-{k:03d}.jpg"
        truth["file"] = name
        cv2.imwrite(str(folder / name), img, [cv2.IMWRITE_JPEG_QUALITY, quality])
        (folder / name).with_suffix(".json").write_text(json.dumps(truth, indent=1) + "\n")
        names.append(name)
    return names


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="Write a labelled folder of generated dice "
                                             "photos (photo + truth JSON each).")
    ap.add_argument("--write", required=True, metavar="FOLDER")
    ap.add_argument("--count", type=int, default=30)
    ap.add_argument("--seed", type=int, default=20_000)
    args = ap.parse_args(argv)
    names = write_folder(args.write, args.count, args.seed)
    print(f"wrote {len(names)} photos to {args.write}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
