"""Compose one synthetic table photo and its ground truth.

`render_scene(game, seed, edition)` -> (image, truth): image (H, W, 3) uint8 BGR, 1280 x 960
or 960 x 1280; truth as documented in docs/synth.md. Deterministic for (game, seed, edition):
every random draw comes from one numpy Generator seeded from those three values.
`render_scene(..., size_scale=k)`: the same scene (the same draws) photographed at k x the pixels
per side (a phone's 2560 x 1920 at k = 2), the photo's faults applied at that size
(`camera.finish_photo`); k = 1 is the default render, byte for byte.
"""

from __future__ import annotations

import importlib
import math
import zlib
from dataclasses import dataclass, replace

import cv2
import numpy as np

from tablescore.errors import BadInput, UnknownGame
from vision.synth.art import Style
from vision.synth.camera import CAMERA, Camera, finish_photo, sample_camera, scaled_camera
from vision.synth.geometry import apply_h, local_scale, rot, scale, translate
from vision.synth.scene import Layout, Piece
from vision.synth.tables import (
    NOVEL_TABLE_KINDS,
    TABLE_CHOICES,
    distractor,
    novel_table_texture,
    table_texture,
)

GAME_MODULES = {
    "simsala-hopp": "vision.synth.games.simsala",
    "hop-la-bille": "vision.synth.games.hopla",
    "magic-rabbit": "vision.synth.games.magic",
    "mauerhuepfer": "vision.synth.games.mauer",
    "troetofanten": "vision.synth.games.troeto",
}
EDITIONS = (1, 2)
SIDE_NAMES = ("north", "east", "south", "west")  # clockwise, as in the world


@dataclass(frozen=True)
class RenderSettings:
    table_canvas_px: int = 640  # long side of the table texture canvas
    table_reach_mm: float = 2500.0  # farthest table drawn from the play area's centre
    # A table asked for by name (`--table`, session 24 H3): its canvas, finer so that printed
    # flowers and text (a few mm) keep their shape at the photo's ~1-2 px per mm.
    named_table_canvas_px: int = 2048
    sprite_oversample: float = 1.25  # sprite pixels per image pixel
    sprite_max_px: int = 320
    area_max_px: int = 1600
    distractors: tuple[int, int] = (0, 4)
    shadow_strength: tuple[float, float] = (0.25, 0.55)


RENDER = RenderSettings()


def game_layout_module(game: str):
    if game not in GAME_MODULES:
        raise UnknownGame(f"unknown game {game!r}; choose one of: {', '.join(GAME_MODULES)}")
    return importlib.import_module(GAME_MODULES[game])


def scene_rng(game: str, seed: int, edition: int) -> np.random.Generator:
    key = zlib.crc32(game.encode())
    return np.random.default_rng(np.random.SeedSequence([int(seed) % (1 << 63), key, edition]))


def paste(img: np.ndarray, bgr: np.ndarray, alpha: np.ndarray, m: np.ndarray) -> None:
    """Alpha-blend a sprite into `img` (in place) through the 3x3 sprite->image map `m`."""
    sh, sw = alpha.shape
    c = apply_h(m, [[0, 0], [sw, 0], [sw, sh], [0, sh]])
    h, w = img.shape[:2]
    x0, y0 = max(0, int(math.floor(c[:, 0].min()))), max(0, int(math.floor(c[:, 1].min())))
    x1, y1 = min(w, int(math.ceil(c[:, 0].max())) + 1), min(h, int(math.ceil(c[:, 1].max())) + 1)
    if x1 <= x0 or y1 <= y0:
        return
    t = translate(-x0, -y0) @ m
    size = (x1 - x0, y1 - y0)
    # One warp of the premultiplied BGRA sprite: the zero border then needs no special care.
    a3 = cv2.merge([alpha, alpha, alpha])
    bgra = cv2.merge([*cv2.split(cv2.multiply(bgr, a3, scale=1 / 255)), alpha])
    w4 = cv2.warpPerspective(bgra, t, size, flags=cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    pm, wa = w4[:, :, :3], w4[:, :, 3]
    inv = 255 - wa
    roi = img[y0:y1, x0:x1]
    roi[:] = cv2.add(cv2.multiply(roi, cv2.merge([inv, inv, inv]), scale=1 / 255), pm)


def piece_map(h: np.ndarray, p: Piece, sw: int, sh: int) -> np.ndarray:
    """Sprite pixel -> image pixel map of a piece's sprite of size (sw, sh)."""
    w, hh = p.size
    a = np.array([[w / sw, 0, -w / 2], [0, hh / sh, -hh / 2], [0, 0, 1.0]])
    return h @ translate(*p.center) @ rot(p.angle) @ a


def sprite_size(h: np.ndarray, p: Piece, s: RenderSettings = RENDER) -> tuple[int, int]:
    k = local_scale(h, *p.center) * s.sprite_oversample
    sw = int(np.clip(round(p.size[0] * k), 8, s.sprite_max_px))
    sh = int(np.clip(round(p.size[1] * k), 8, s.sprite_max_px))
    return sw, sh


def _circle(cx, cy, r, n=12) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], axis=1)


def footprint(p: Piece) -> np.ndarray:
    return _circle(p.center[0], p.center[1], p.size[0] / 2) if p.round else p.corners()


def check_table(table: str | None) -> str | None:
    """`table` (None: the default draw) if it names a table kind; `BadInput` otherwise."""
    if table is not None and table not in TABLE_CHOICES:
        raise BadInput(f"table must be one of {', '.join(TABLE_CHOICES)}, got {table!r}")
    return table


def _draw_table(rng, cam: Camera, layout: Layout, s: RenderSettings,
                named: tuple[str, np.random.Generator] | None = None) -> np.ndarray:
    """The table under the scene, (H, W, 3) uint8 BGR. `named` (kind, its own Generator): the
    default texture is still drawn from `rng` (so every later draw, the scene, stays the same)
    and thrown away; the named kind is painted from the other Generator instead."""
    w, h = cam.size
    inv = np.linalg.inv(cam.h)
    world = apply_h(inv, [[0, 0], [w, 0], [w, h], [0, h]])
    ref = layout.area if layout.area is not None else layout.frame
    c = ref.mean(axis=0)
    world = np.clip(world, c - s.table_reach_mm, c + s.table_reach_mm)
    x0, y0 = world.min(axis=0)
    x1, y1 = world.max(axis=0)
    k = s.table_canvas_px / max(x1 - x0, y1 - y0, 1.0)
    cw, ch = max(8, int((x1 - x0) * k)), max(8, int((y1 - y0) * k))
    tex = table_texture(rng, cw, ch, layout.table if layout.table != "any" else None)
    if named is not None:
        kind, trng = named
        if kind in NOVEL_TABLE_KINDS:
            k = s.named_table_canvas_px / max(x1 - x0, y1 - y0, 1.0)
            cw, ch = max(8, int((x1 - x0) * k)), max(8, int((y1 - y0) * k))
            tex = novel_table_texture(trng, cw, ch, kind, k)
        else:
            tex = table_texture(trng, cw, ch, kind)
    m = cam.h @ translate(x0, y0) @ scale(1 / k)
    return cv2.warpPerspective(tex, m, (w, h), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REFLECT)


def _place_distractors(rng, img, cam: Camera, layout: Layout, style: Style, s: RenderSettings,
                       shadows: list):
    w, h = cam.size
    inv = np.linalg.inv(cam.h)
    ref = layout.area if layout.area is not None else layout.frame
    lo, hi = ref.min(axis=0), ref.max(axis=0)
    blocked = [(*p.center, max(p.size) * 0.75) for p in layout.pieces] + layout.keepout
    for _ in range(int(rng.integers(s.distractors[0], s.distractors[1] + 1))):
        for _try in range(12):
            pt = apply_h(inv, [[rng.uniform(0, w), rng.uniform(0, h)]])[0]
            if np.all(pt > lo - 70) and np.all(pt < hi + 70):
                continue
            if any(math.hypot(pt[0] - bx, pt[1] - by) < br + 70 for bx, by, br in blocked):
                continue
            ppm = local_scale(cam.h, *pt) * s.sprite_oversample
            bgr, alpha, size, height = distractor(rng, ppm)
            p = Piece("distractor", "", (float(pt[0]), float(pt[1])), size, None, 0,
                      angle=float(rng.uniform(0, 360)), height=height)
            paste(img, bgr, alpha, piece_map(cam.h, p, alpha.shape[1], alpha.shape[0]))
            shadows.append(p)
            blocked.append((pt[0], pt[1], max(size) * 0.6))
            break


def _shadow_pass(rng, img, cam: Camera, items: list[Piece], style: Style, s: RenderSettings,
                 walls=()):
    """Darken soft drop shadows of `items` and standing `walls` ((a, b, wall) segments), cast
    away from the light, into img (in place)."""
    if not items and not walls:
        return
    w, h = cam.size
    f = 0.5
    mask = np.zeros((int(h * f), int(w * f)), np.float32)
    lx, ly = style.light
    for p in items:
        off = np.array([-lx, -ly]) * (p.height * 0.9 + 1.5)
        poly = apply_h(cam.h, footprint(p) + off) * f
        cv2.fillPoly(mask, [np.round(poly * 4).astype(np.int32)], 1.0, cv2.LINE_AA, 2)
    for a, b, wall in walls:
        off = np.array([-lx, -ly]) * wall["height"] * 0.9
        poly = apply_h(cam.h, np.array([a, b, b + off, a + off])) * f
        cv2.fillConvexPoly(mask, np.round(poly * 4).astype(np.int32), 1.0, cv2.LINE_AA, 2)
    ref = items[0].center if items else walls[0][0]
    ppm = local_scale(cam.h, *ref) * f
    mask = cv2.GaussianBlur(mask, (0, 0), max(1.0, 1.5 * ppm))
    dark = 255 * (1 - rng.uniform(*s.shadow_strength) * np.minimum(mask, 1))
    dark = cv2.resize(dark.astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)
    img[:] = cv2.multiply(img, cv2.merge([dark, dark, dark]), scale=1 / 255)


def _fill(img, poly: np.ndarray, col) -> None:
    cv2.fillConvexPoly(img, np.round(np.asarray(poly) * 4).astype(np.int32), col, cv2.LINE_AA,
                       2)


def _fill_ids(ids: np.ndarray, poly: np.ndarray, value: int) -> None:
    """Mark a convex image polygon in the int16 piece-id map (no anti-aliasing)."""
    cv2.fillConvexPoly(ids, np.round(np.asarray(poly) * 4).astype(np.int32), value, cv2.LINE_8,
                       2)


def _draw_die(img, cam: Camera, p: Piece, s: RenderSettings) -> None:
    """A die as a cube: its side faces (far ones first), then the top face's pips drawn on
    the plane `p.height` above the table."""
    base = p.corners()
    bot = apply_h(cam.h, base)
    top = apply_h(cam.h_at(p.height), base)
    body = p.meta.get("side_bgr", (200, 200, 196))
    faces = []
    for i in range(4):
        j = (i + 1) % 4
        mid = np.append((base[i] + base[j]) / 2, -p.height / 2)
        depth = float(cam.p[2] @ np.append(mid, 1.0)) if cam.p is not None else 0.0
        faces.append((depth, i, np.array([bot[i], bot[j], top[j], top[i]])))
    lx, ly = p.meta.get("light", (0.0, -1.0))  # unit vector towards the light (world)
    for _, i, quad in sorted(faces, key=lambda t: -t[0]):
        e = base[(i + 1) % 4] - base[i]
        normal = np.array([e[1], -e[0]]) / (np.linalg.norm(e) + 1e-9)
        f = 0.72 + 0.18 * float(normal @ (lx, ly))
        _fill(img, quad, tuple(int(c * f) for c in body))
    sw, sh = sprite_size(cam.h_at(p.height), p, s)
    bgr, alpha = p.art(sw, sh, np.random.default_rng(p.seed))
    paste(img, bgr, alpha, piece_map(cam.h_at(p.height), p, sw, sh))


def sphere_image(cam: Camera, p: Piece) -> tuple[np.ndarray, float]:
    """Image centre and radius (px) of a ball of diameter p.size[0] lying at p.center: its
    centre is one radius above the table and its outline is (nearly) a circle."""
    r = p.size[0] / 2
    hm = cam.h_at(r)
    c = apply_h(hm, [p.center])[0]
    return c, local_scale(hm, *p.center) * r


def _draw_sphere(img, cam: Camera, p: Piece, s: RenderSettings) -> None:
    """A marble: its art pasted as a screen-aligned disc around the projected ball centre."""
    c, rad = sphere_image(cam, p)
    side = int(np.clip(round(2 * rad * s.sprite_oversample), 8, s.sprite_max_px))
    bgr, alpha = p.art(side, side, np.random.default_rng(p.seed))
    k = 2 * rad / side
    paste(img, bgr, alpha, translate(*c) @ scale(k) @ translate(-side / 2, -side / 2))


def _wall_segments(layout: Layout):
    for wall in layout.walls:
        pts = np.asarray(wall["line"], float)
        for a, b in zip(pts[:-1], pts[1:], strict=True):
            yield a, b, wall


def _wall_quad(cam: Camera, a, b, wall) -> np.ndarray:
    base = apply_h(cam.h, [a, b])
    top = apply_h(cam.h_at(wall["height"]), [a, b])
    return np.array([base[0], base[1], top[1], top[0]])


def image_outline(cam: Camera, p: Piece) -> np.ndarray:
    """(N, 2) convex image polygon a piece covers in the photo (for visibility)."""
    if p.kind == "marble":
        c, r = sphere_image(cam, p)
        return _circle(c[0], c[1], r, 16)
    if p.kind in ("die", "pawn"):
        base = footprint(p)
        top = footprint(p) if p.kind == "die" else _circle(p.center[0], p.center[1],
                                                            p.size[0] * 0.35, 12)
        pts = np.concatenate([apply_h(cam.h, base), apply_h(cam.h_at(p.height), top)])
        return cv2.convexHull(np.float32(pts)).reshape(-1, 2).astype(np.float64)
    return apply_h(cam.h, footprint(p))


def _draw_wall(img, cam: Camera, a, b, wall) -> None:
    """A standing cardboard wall along world segment a-b: its face (with two brick courses)
    and a lighter top edge."""
    hgt = wall["height"]
    col = wall["bgr"]
    base = apply_h(cam.h, [a, b])
    top = apply_h(cam.h_at(hgt), [a, b])
    _fill(img, np.array([base[0], base[1], top[1], top[0]]), col)
    line = tuple(int(c * 0.6) for c in col)
    for f in (1 / 3, 2 / 3):
        m = apply_h(cam.h_at(hgt * f), [a, b])
        cv2.line(img, tuple(np.round(m[0] * 4).astype(int)), tuple(np.round(m[1] * 4).astype(
            int)), line, 1, cv2.LINE_AA, 2)
    cv2.line(img, tuple(np.round(top[0] * 4).astype(int)), tuple(np.round(top[1] * 4).astype(
        int)), tuple(min(255, int(c * 1.35)) for c in col), 2, cv2.LINE_AA, 2)


def _camera_ground(cam: Camera) -> np.ndarray:
    """World (x, y) of the point on the table straight below the camera."""
    m, p4 = cam.p[:, :3], cam.p[:, 3]
    c = -np.linalg.solve(m, p4)
    return c[:2]


def _crosses(p, q, a, b) -> bool:
    def side(u, v, w):
        return (v[0] - u[0]) * (w[1] - u[1]) - (v[1] - u[1]) * (w[0] - u[0])

    return (side(a, b, p) * side(a, b, q) < 0) and (side(p, q, a) * side(p, q, b) < 0)


def _draw_pawn(img, cam: Camera, p: Piece, s: RenderSettings) -> None:
    """A pawn standing up: base disc on the table, tapering body, round head (the piece's art,
    a top view) on the plane `p.height` above the table."""
    cx, cy = p.center
    r = p.size[0] / 2
    col = p.meta.get("bgr", (128, 128, 128))
    base = apply_h(cam.h, _circle(cx, cy, r, 20))
    _fill(img, base, tuple(int(c * 0.7) for c in col))
    neck_h = p.height * 0.7
    body = np.concatenate([apply_h(cam.h, _circle(cx, cy, r * 0.8, 16)),
                           apply_h(cam.h_at(neck_h), _circle(cx, cy, r * 0.35, 12))])
    hull = cv2.convexHull(np.float32(body)).reshape(-1, 2)
    _fill(img, hull, tuple(int(c * 0.85) for c in col))
    head = Piece(p.label, p.zone, p.center, (r * 1.4, r * 1.4), p.art, p.seed, round=True)
    hm = cam.h_at(p.height)
    sw, sh = sprite_size(hm, head, s)
    bgr, alpha = p.art(sw, sh, np.random.default_rng(p.seed))
    paste(img, bgr, alpha, piece_map(hm, head, sw, sh))


def _side_names(cam: Camera, layout: Layout) -> dict[int, str]:
    """World side index (0 north, 1 east, 2 south, 3 west) -> zone name by the image: the side
    whose middle lies lowest in the photo is south, the rest follow clockwise."""
    ref = layout.area if layout.area is not None else layout.frame
    mids = np.array([(ref[i] + ref[(i + 1) % 4]) / 2 for i in range(4)])
    c = apply_h(cam.h, ref.mean(axis=0, keepdims=True))[0]
    d = apply_h(cam.h, mids) - c
    south = int(np.argmax(d[:, 1] / (np.linalg.norm(d, axis=1) + 1e-9)))
    return {k: SIDE_NAMES[(k - south + 2) % 4] for k in range(4)}


MAX_SCALE = 4.0  # a 5120 x 3840 photo at most (render memory and time grow with its square)


def check_scale(scale) -> float:
    """`scale` as a float in [1, MAX_SCALE]; `BadInput` otherwise."""
    try:
        k = float(scale)
    except (TypeError, ValueError):
        raise BadInput(f"scale must be a number from 1 to {MAX_SCALE:g}, got {scale!r}") from None
    if not (1.0 <= k <= MAX_SCALE):
        raise BadInput(f"scale must be a number from 1 to {MAX_SCALE:g}, got {scale!r}")
    return k


def render_scene(game: str, seed: int, edition: int = 1, size_scale: float = 1.0,
                 pixel_blur: bool = False, table: str | None = None
                 ) -> tuple[np.ndarray, dict]:
    """Render one photo of `game` and its ground truth (see the module docstring). `size_scale`
    (1 to `MAX_SCALE`): the photo's pixels per side x this, the scene and every draw the
    same (sprites drawn at as many more pixels; blur, noise and JPEG at the output size; the
    blur k x as many pixels, the same optics, or with `pixel_blur` as drawn, in the
    output's pixels: a photo k x sharper in the scene's terms). `table`: one of
    `TABLE_CHOICES` instead of the layout's draw (the same scene on that table; truth
    `table`), including `NOVEL_TABLE_KINDS`, which the default draw never gives."""
    module = game_layout_module(game)
    check_table(table)
    if edition not in EDITIONS:
        raise BadInput(f"edition must be one of {EDITIONS}, got {edition!r}")
    k = check_scale(size_scale)
    s = RENDER if k == 1.0 else replace(RENDER, sprite_max_px=round(RENDER.sprite_max_px * k),
                                        area_max_px=round(RENDER.area_max_px * k))
    rng = scene_rng(game, seed, edition)
    style = Style.sample(rng, edition)
    layout: Layout = module.layout(rng, style)
    ref = layout.area if layout.area is not None else layout.frame
    content = np.concatenate([layout.content] + [footprint(p) for p in layout.pieces])
    if layout.area is not None:
        fill_ref = layout.area
    else:  # no play area: the pieces' bounding box fills the frame
        (x0, y0), (x1, y1) = content.min(axis=0), content.max(axis=0)
        fill_ref = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    cam_settings = CAMERA if layout.fill is None else replace(CAMERA, fill=layout.fill)
    cam = sample_camera(rng, fill_ref, content, layout.side_zones, layout.yaw_range,
                        cam_settings)
    if k != 1.0:
        cam = scaled_camera(cam, k)
    w, h = cam.size
    named = None
    if table is not None:
        key = [int(seed) % (1 << 63), zlib.crc32(game.encode()), edition,
               zlib.crc32(table.encode())]
        named = (table, np.random.default_rng(np.random.SeedSequence(key)))
    img = _draw_table(rng, cam, layout, s, named)
    if layout.area_art is not None:
        ppm = max(local_scale(cam.h, *pt) for pt in ref)
        bgr, alpha, (x0, y0, x1, y1) = layout.area_art(ppm)
        sh, sw = alpha.shape
        m = cam.h @ translate(x0, y0) @ scale((x1 - x0) / sw, (y1 - y0) / sh)
        paste(img, bgr, alpha, m)
    shadow_items: list[Piece] = []
    _place_distractors(rng, img, cam, layout, style, s, shadow_items)
    pieces = sorted(layout.pieces, key=lambda p: p.z)
    if cam.p is not None and layout.walls:  # standing things: far ones first
        pieces.sort(key=lambda p: (p.z, -float(cam.p[2] @ [*p.center, 0.0, 1.0])))
    _shadow_pass(rng, img, cam, shadow_items + [p for p in pieces if p.height > 0.5], style, s,
                 walls=list(_wall_segments(layout)))
    segments = list(_wall_segments(layout))
    for a, b, wall in segments:
        _draw_wall(img, cam, a, b, wall)
    ground = _camera_ground(cam) if segments else None
    ids = np.zeros((h, w), np.int16)  # which piece (index + 1) shows at each pixel
    outlines = []
    for i, p in enumerate(pieces):
        if p.kind == "die":
            _draw_die(img, cam, p, s)
        elif p.kind == "pawn":
            _draw_pawn(img, cam, p, s)
        elif p.kind == "marble":
            _draw_sphere(img, cam, p, s)
        else:
            sw, sh = sprite_size(cam.h, p, s)
            bgr, alpha = p.art(sw, sh, np.random.default_rng(p.seed))
            paste(img, bgr, alpha, piece_map(cam.h, p, sw, sh))
        outline = image_outline(cam, p)
        outlines.append(outline)
        _fill_ids(ids, outline, i + 1)
        if p.kind == "pawn":
            for a, b, wall in segments:  # a wall between the pawn and the camera hides it
                if _crosses(np.asarray(p.center), ground, a, b):
                    _draw_wall(img, cam, a, b, wall)
                    _fill_ids(ids, _wall_quad(cam, a, b, wall), 0)
    shown = np.bincount(ids.ravel(), minlength=len(pieces) + 1)[1:]
    for p, n, outline in zip(pieces, shown, outlines, strict=True):
        p.meta["visible"] = float(min(1.0, n / max(1.0, cv2.contourArea(np.float32(outline)))))
    names = _side_names(cam, layout)
    for p in pieces:
        if p.zone.startswith("side:"):
            p.zone = names[int(p.zone[5:])]
    faults: dict = {}
    img = finish_photo(rng, img, record=faults, blur_scale=1.0 if pixel_blur else k)
    truth = make_truth(game, cam, layout, pieces, names)
    truth["seed"] = int(seed)
    truth["edition"] = edition
    truth["camera"] = {"tilt_deg": round(float(cam.tilt), 2),
                       "yaw_deg": round(float(cam.yaw) % 360, 2)}
    truth["photo"] = faults  # the blur, glare, noise and JPEG quality the photo was given
    if table is not None:
        truth["table"] = table  # asked for by name (absent: the default draw)
    if k != 1.0:
        truth["photo"]["scale"] = k  # (its blur in the output's pixels: k x the drawn one,
        #   or as drawn with `pixel_blur`)
        truth["photo"]["pixel_blur"] = bool(pixel_blur)
    return img, truth


def _r(v: float) -> float:
    return round(float(v), 1)


def make_truth(game: str, cam: Camera, layout: Layout, pieces: list[Piece], names) -> dict:
    w, h = cam.size
    items = []
    centres = {}
    for p in pieces:
        hm = cam.h_at(p.height) if p.kind == "die" else cam.h  # a die is read on its top
        c = apply_h(hm, [p.center])[0]
        centres[id(p)] = c
        if p.kind == "marble":
            c, radius = sphere_image(cam, p)
            centres[id(p)] = c
            poly = None
        elif p.round:
            ring = apply_h(cam.h, _circle(p.center[0], p.center[1], p.size[0] / 2, 16))
            radius = float(np.linalg.norm(ring - ring.mean(axis=0), axis=1).mean())
            poly = None
        else:
            radius = None
            poly = [[_r(x), _r(y)] for x, y in apply_h(hm, p.corners())]
        item = {"label": p.label, "zone": p.zone, "center": [_r(c[0]), _r(c[1])],
                "polygon": poly, "radius": None if radius is None else _r(radius)}
        item["visible"] = round(p.meta.get("visible", 1.0), 2)
        if "position" in p.meta:  # Mauerhuepfer pawns: field id, "B" or goal slot
            item["position"] = p.meta["position"]
        if p.kind == "pawn":  # centre/radius: the base on the table; the head appears here
            t = apply_h(cam.h_at(p.height), [p.center])[0]
            item["top_center"] = [_r(t[0]), _r(t[1])]
        items.append(item)
    area = None
    if layout.area is not None:
        corners = layout.area
        if layout.side_zones:  # start at the corner where the image-north side begins
            k = next(k for k, n in names.items() if n == "north")
            corners = np.roll(corners, -k, axis=0)
        area = [[_r(x), _r(y)] for x, y in apply_h(cam.h, corners)]
    facts = layout.facts(pieces, centres, names)
    return {"game": game, "image": {"width": w, "height": h}, "area": area, "pieces": items,
            "facts": facts}
