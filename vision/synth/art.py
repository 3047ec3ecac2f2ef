"""Procedural artwork of every piece, drawn with cv2 at the size it will appear in the photo.

Every function here returns a sprite: ``(bgr, alpha)`` with bgr (sh, sw, 3) uint8 BGR and alpha
(sh, sw) uint8 (255 = opaque), covering the piece's footprint rectangle (the top face for tiles,
cards and dice; the bounding square for round pieces). Drawing uses normalised coordinates
(0..1 across the sprite) so that the art does not depend on the resolution.

Variation: a `Style` is drawn once per scene (one physical copy of the game: its hue cast, line
weight, font, corner radius, proportions) and every piece adds its own small jitter, so no label
is one fixed sprite. `Style.edition` 2 switches to a differently drawn second edition.
"""

from __future__ import annotations

import colorsys
import math
from dataclasses import dataclass

import cv2
import numpy as np

FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_COMPLEX_SMALL,
)
SHIFT = 3  # sub-pixel bits for cv2 drawing
ONE = 1 << SHIFT


@dataclass(frozen=True)
class Style:
    """One copy of a game: per-scene look. Angles in degrees, factors around 1."""

    edition: int
    hue: float  # hue cast in degrees
    sat: float
    val: float
    line: float  # line-width factor
    font: int
    corner: float  # corner radius as a fraction of the short side
    shape: float  # 0..1 proportions knob (ear length, body width...)
    light: tuple[float, float]  # unit vector towards the light, world axes

    @classmethod
    def sample(cls, rng: np.random.Generator, edition: int) -> Style:
        a = rng.uniform(0, 2 * math.pi)
        return cls(
            edition=edition,
            hue=float(rng.uniform(-7, 7)),
            sat=float(rng.uniform(0.8, 1.12)),
            val=float(rng.uniform(0.88, 1.08)),
            line=float(rng.uniform(0.7, 1.6)),
            font=int(FONTS[rng.integers(len(FONTS))]),
            corner=float(rng.uniform(0.04, 0.2)),
            shape=float(rng.uniform(0, 1)),
            light=(math.cos(a), math.sin(a)),
        )


def tint(bgr, style: Style | None = None, rng: np.random.Generator | None = None, jit=4.0):
    """Shift a BGR colour by the copy's hue/saturation/value cast plus a per-piece jitter."""
    b, g, r = (c / 255.0 for c in bgr)
    h, s, v = colorsys.rgb_to_hsv(r, g, b)
    dh = (style.hue if style else 0.0) + (rng.normal(0, jit) if rng is not None else 0.0)
    h = (h + dh / 360.0) % 1.0
    if style:
        s, v = min(1.0, s * style.sat), min(1.0, v * style.val)
    if rng is not None:
        s = float(np.clip(s * rng.uniform(0.93, 1.07), 0, 1))
        v = float(np.clip(v * rng.uniform(0.94, 1.05), 0, 1))
    r, g, b = colorsys.hsv_to_rgb(h, s, v)
    return (int(b * 255), int(g * 255), int(r * 255))


def shade(bgr, f: float):
    """Darken (f < 1) or lighten (f > 1, towards white) a BGR colour."""
    if f <= 1:
        return tuple(int(c * f) for c in bgr)
    t = min(1.0, f - 1)
    return tuple(int(c + (255 - c) * t) for c in bgr)


class Sprite:
    """A drawing surface in normalised coordinates; `u` is the short side in pixels."""

    def __init__(self, sw: int, sh: int, bg=(0, 0, 0)):
        self.sw, self.sh = sw, sh
        self.u = min(sw, sh)
        self.img = np.empty((sh, sw, 3), np.uint8)
        self.img[:] = bg
        self.alpha = np.zeros((sh, sw), np.uint8)

    def p(self, x: float, y: float) -> tuple[int, int]:
        return (int(round(x * self.sw * ONE)), int(round(y * self.sh * ONE)))

    def pts(self, xy) -> np.ndarray:
        a = np.asarray(xy, np.float64).reshape(-1, 2) * (self.sw * ONE, self.sh * ONE)
        return np.round(a).astype(np.int32)

    def lw(self, frac: float) -> int:
        return max(1, int(round(frac * self.u)))

    def circle(self, x, y, r, col, th=-1, mask=False):
        cv2.circle(self.img, self.p(x, y), int(r * self.u * ONE), col, th, cv2.LINE_AA, SHIFT)
        if mask:
            cv2.circle(self.alpha, self.p(x, y), int(r * self.u * ONE), 255, th, cv2.LINE_AA,
                       SHIFT)

    def ellipse(self, x, y, ax, ay, ang, col, th=-1, a0=0, a1=360):
        cv2.ellipse(self.img, self.p(x, y), (int(ax * self.u * ONE), int(ay * self.u * ONE)),
                    ang, a0, a1, col, th, cv2.LINE_AA, SHIFT)

    def poly(self, xy, col, th=-1):
        p = self.pts(xy)
        if th < 0:
            cv2.fillPoly(self.img, [p], col, cv2.LINE_AA, SHIFT)
        else:
            cv2.polylines(self.img, [p], True, col, th, cv2.LINE_AA, SHIFT)

    def line(self, x0, y0, x1, y1, col, th):
        cv2.line(self.img, self.p(x0, y0), self.p(x1, y1), col, th, cv2.LINE_AA, SHIFT)

    def rrect(self, x0, y0, x1, y1, r, col, th=-1, mask=False):
        """Rounded rectangle; r as a fraction of the short side."""
        targets = [self.img] + ([self.alpha] if mask else [])
        for t in targets:
            c = 255 if t is self.alpha else col
            _rrect(t, self.p(x0, y0), self.p(x1, y1), int(r * self.u * ONE), c, th)

    def text(self, s: str, x, y, height, col, font, th=None, anchor="c"):
        """Text of `height` (fraction of the short side) centred (anchor c) at (x, y)."""
        th = th or max(1, int(height * self.u * 0.12))
        (tw, tht), _ = cv2.getTextSize(s, font, 1.0, th)
        fs = height * self.u / max(tht, 1)
        (tw, tht), _ = cv2.getTextSize(s, font, fs, th)
        px, py = x * self.sw, y * self.sh
        org = (int(px - tw / 2), int(py + tht / 2)) if anchor == "c" else (int(px), int(py + tht))
        cv2.putText(self.img, s, org, font, fs, col, th, cv2.LINE_AA)

    def out(self):
        return self.img, self.alpha


def _rrect(img, p0, p1, r, col, th):
    x0, y0 = p0
    x1, y1 = p1
    r = max(0, min(r, (x1 - x0) // 2, (y1 - y0) // 2))
    if th < 0:
        # Filled: two rectangles plus four corner discs (coordinates carry SHIFT bits).
        s = ONE
        cv2.rectangle(img, ((x0 + r) // s, y0 // s), ((x1 - r) // s, y1 // s), col, -1)
        cv2.rectangle(img, (x0 // s, (y0 + r) // s), (x1 // s, (y1 - r) // s), col, -1)
        for cx, cy in ((x0 + r, y0 + r), (x1 - r, y0 + r), (x1 - r, y1 - r), (x0 + r, y1 - r)):
            cv2.circle(img, (cx, cy), r, col, -1, cv2.LINE_AA, SHIFT)
    else:
        pts = []
        for cx, cy, a in ((x1 - r, y0 + r, 270), (x1 - r, y1 - r, 0), (x0 + r, y1 - r, 90),
                          (x0 + r, y0 + r, 180)):
            for k in range(0, 91, 15):
                t = math.radians(a + k)
                pts.append((cx + r * math.cos(t), cy + r * math.sin(t)))
        cv2.polylines(img, [np.round(pts).astype(np.int32)], True, col, th, cv2.LINE_AA, SHIFT)


# --------------------------------------------------------------------------- creatures
def draw_rabbit(sp: Sprite, body, outline, lw, style: Style, rng, cx=0.5, cy=0.55, k=1.0):
    """A long-eared rabbit; edition 1 front view, edition 2 sitting side view."""
    ear = 0.16 + 0.08 * style.shape
    if style.edition == 1:
        for sx in (-1, 1):
            sp.ellipse(cx + sx * 0.07 * k, cy - (0.14 + ear) * k, 0.045 * k, ear * k,
                       sx * rng.uniform(5, 18), body)
            sp.ellipse(cx + sx * 0.07 * k, cy - (0.14 + ear) * k, 0.045 * k, ear * k,
                       sx * rng.uniform(5, 18), outline, lw)
        sp.ellipse(cx, cy + 0.12 * k, (0.17 + 0.04 * style.shape) * k, 0.17 * k, 0, body)
        sp.ellipse(cx, cy + 0.12 * k, (0.17 + 0.04 * style.shape) * k, 0.17 * k, 0, outline, lw)
        sp.circle(cx, cy - 0.06 * k, 0.12 * k, body)
        sp.circle(cx, cy - 0.06 * k, 0.12 * k, outline, lw)
        sp.circle(cx - 0.045 * k, cy - 0.08 * k, 0.018 * k, outline)
        sp.circle(cx + 0.045 * k, cy - 0.08 * k, 0.018 * k, outline)
        sp.circle(cx, cy - 0.03 * k, 0.015 * k, (150, 120, 230))
    else:
        sp.ellipse(cx + 0.04 * k, cy + 0.1 * k, 0.2 * k, 0.15 * k, -15, body)
        sp.ellipse(cx + 0.04 * k, cy + 0.1 * k, 0.2 * k, 0.15 * k, -15, outline, lw)
        sp.circle(cx + 0.24 * k, cy + 0.14 * k, 0.05 * k, shade(body, 1.3))
        hx, hy = cx - 0.12 * k, cy - 0.08 * k
        sp.ellipse(hx + 0.05 * k, hy - ear * k, 0.04 * k, ear * k, 25 + 10 * style.shape, body)
        sp.ellipse(hx + 0.05 * k, hy - ear * k, 0.04 * k, ear * k, 25 + 10 * style.shape,
                   outline, lw)
        sp.ellipse(hx, hy, 0.12 * k, 0.1 * k, -20, body)
        sp.ellipse(hx, hy, 0.12 * k, 0.1 * k, -20, outline, lw)
        sp.circle(hx - 0.04 * k, hy - 0.02 * k, 0.02 * k, outline)


def draw_cat(sp: Sprite, body, outline, lw, style: Style, rng):
    eye = (40, 220, 240)
    if style.edition == 1:
        sp.ellipse(0.52, 0.68, 0.2, 0.17, 0, body)
        sp.ellipse(0.75, 0.62, 0.05, 0.2, 20, body)  # tail
        h = 0.4
        ear = 0.14 + 0.06 * style.shape
        sp.poly([[0.33, h], [0.36, h - ear - 0.08], [0.46, h - 0.08]], body)
        sp.poly([[0.67, h], [0.64, h - ear - 0.08], [0.54, h - 0.08]], body)
        sp.circle(0.5, h, 0.16, body)
        sp.circle(0.5, h, 0.16, outline, lw)
        for ex in (0.44, 0.56):
            sp.ellipse(ex, h - 0.02, 0.03, 0.022, 0, eye)
            sp.ellipse(ex, h - 0.02, 0.008, 0.02, 0, (0, 0, 0))
    else:
        # Sitting cat silhouette from the side with an arched tail.
        sp.ellipse(0.55, 0.66, 0.17, 0.22, 10, body)
        sp.ellipse(0.75, 0.45, 0.04, 0.2, -25, body, -1)
        sp.circle(0.4, 0.36, 0.13, body)
        sp.poly([[0.29, 0.32], [0.28, 0.12], [0.38, 0.25]], body)
        sp.poly([[0.42, 0.24], [0.5, 0.1], [0.52, 0.28]], body)
        sp.ellipse(0.36, 0.35, 0.025, 0.018, 0, eye)
        sp.ellipse(0.55, 0.66, 0.17, 0.22, 10, outline, lw)


def draw_frog(sp: Sprite, body, outline, lw, style: Style, rng):
    if style.edition == 1:
        for sx in (-1, 1):
            sp.ellipse(0.5 + sx * 0.22, 0.7, 0.1, 0.05, sx * 30, body)
        sp.ellipse(0.5, 0.58, 0.25 + 0.05 * style.shape, 0.2, 0, body)
        for sx in (-1, 1):
            sp.circle(0.5 + sx * 0.12, 0.38, 0.08, body)
            sp.circle(0.5 + sx * 0.12, 0.38, 0.045, (245, 245, 245))
            sp.circle(0.5 + sx * 0.12, 0.38, 0.022, (0, 0, 0))
        sp.ellipse(0.5, 0.6, 0.12, 0.05, 0, outline, lw, 10, 170)
    else:
        # Frog seen from above: round body, four splayed legs.
        for sx in (-1, 1):
            for sy in (-1, 1):
                sp.line(0.5, 0.55, 0.5 + sx * 0.28, 0.55 + sy * 0.25, body, sp.lw(0.07))
        sp.ellipse(0.5, 0.55, 0.18, 0.24, 0, body)
        sp.ellipse(0.5, 0.55, 0.18, 0.24, 0, outline, lw)
        for sx in (-1, 1):
            sp.circle(0.5 + sx * 0.09, 0.33, 0.05, (40, 230, 230))
            sp.circle(0.5 + sx * 0.09, 0.33, 0.02, (0, 0, 0))


def draw_hat(sp: Sprite, col, lw, style: Style, rng, cy=0.42):
    """A black top hat with a coloured band."""
    black = (25, 25, 30)
    w = 0.22 + 0.04 * style.shape
    sp.poly([[0.5 - w * 0.8, cy - 0.28], [0.5 + w * 0.8, cy - 0.28], [0.5 + w * 0.7, cy + 0.08],
             [0.5 - w * 0.7, cy + 0.08]], black)
    sp.ellipse(0.5, cy + 0.1, w * 1.5, 0.06, 0, black)
    sp.poly([[0.5 - w * 0.7, cy - 0.02], [0.5 + w * 0.7, cy - 0.02], [0.5 + w * 0.7, cy + 0.05],
             [0.5 - w * 0.7, cy + 0.05]], col)


def draw_dove(sp: Sprite, col, lw, style: Style):
    sp.ellipse(0.5, 0.55, 0.22, 0.12, -10, col)
    sp.poly([[0.45, 0.5], [0.62, 0.22], [0.66, 0.5]], shade(col, 0.9))
    sp.circle(0.28, 0.48, 0.07, col)
    sp.poly([[0.2, 0.47], [0.13, 0.5], [0.2, 0.52]], (60, 150, 230))
    sp.poly([[0.7, 0.55], [0.85, 0.47], [0.85, 0.65]], col)
    sp.ellipse(0.5, 0.55, 0.22, 0.12, -10, (120, 120, 120), lw)


def draw_elephant(sp: Sprite, body, outline, lw, style: Style, cx=0.5, cy=0.55, k=1.0):
    sp.ellipse(cx + 0.05 * k, cy, 0.26 * k, 0.18 * k, 0, body)
    for lx in (-0.12, -0.02, 0.12, 0.22):
        sp.poly([[cx + (lx - 0.04) * k, cy + 0.08 * k], [cx + (lx + 0.04) * k, cy + 0.08 * k],
                 [cx + (lx + 0.04) * k, cy + 0.27 * k], [cx + (lx - 0.04) * k, cy + 0.27 * k]],
                body)
    sp.circle(cx - 0.2 * k, cy - 0.08 * k, 0.13 * k, body)
    sp.ellipse(cx - 0.12 * k, cy - 0.07 * k, 0.08 * k, 0.11 * k, 0, shade(body, 0.85))
    sp.line(cx - 0.3 * k, cy - 0.05 * k, cx - 0.36 * k, cy + 0.2 * k, body,
            sp.lw(0.06 * k))
    sp.circle(cx - 0.24 * k, cy - 0.12 * k, 0.015 * k, outline)
    sp.ellipse(cx + 0.05 * k, cy, 0.26 * k, 0.18 * k, 0, outline, lw)


def draw_trumpet(sp: Sprite, col, lw, x=0.62, y=0.3, k=1.0):
    sp.line(x - 0.2 * k, y + 0.06 * k, x + 0.05 * k, y, col, sp.lw(0.035 * k))
    sp.poly([[x + 0.04 * k, y - 0.01 * k], [x + 0.2 * k, y - 0.09 * k],
             [x + 0.2 * k, y + 0.1 * k], [x + 0.04 * k, y + 0.02 * k]], col)


# --------------------------------------------------------------------------- pieces
SIMSALA_COLOURS = {  # BGR
    "yellow": (40, 215, 245), "orange": (30, 130, 245), "blue": (200, 110, 30),
    "violet": (170, 60, 140),
}
MARBLE_BGR = {
    1: {"yellow": (30, 205, 245), "red": (40, 35, 205), "green": (50, 165, 40),
        "lightblue": (235, 195, 105), "darkblue": (130, 35, 15)},
    2: {"yellow": (20, 185, 250), "red": (70, 20, 180), "green": (50, 185, 60),
        "lightblue": (225, 215, 90), "darkblue": (115, 30, 45)},
}
NUMBER_BGR = {  # Magic Rabbit number colours (pieces.md)
    1: (40, 40, 215), 2: (30, 130, 245), 3: (40, 215, 245), 4: (90, 215, 130), 5: (50, 120, 20),
    6: (235, 190, 100), 7: (140, 40, 20), 8: (150, 50, 120), 9: (180, 120, 245),
}
CARD_BGR = {"green": (60, 160, 40), "blue": (190, 100, 30), "red": (45, 40, 200)}


def simsala_tile(sw, sh, rng, style: Style, label: str):
    """Square tile (40 mm) of Simsala Hopp: frog, rabbit-<colour>, rabbit-white or cat."""
    ed = style.edition
    lw = max(1, int(round(min(sw, sh) * 0.025 * style.line)))
    if label == "frog":
        fill = tint((70, 175, 70) if ed == 1 else (40, 190, 120), style, rng)
        body, outline = shade(fill, 0.6), shade(fill, 0.35)
    elif label == "cat":
        fill = tint((60, 60, 62) if ed == 1 else (95, 85, 80), style, rng)
        body, outline = ((25, 25, 28), (90, 90, 90)) if ed == 1 else ((15, 15, 15), (0, 0, 0))
    elif label == "rabbit-white":
        fill = tint((215, 235, 240) if ed == 1 else (230, 215, 200), style, rng, 2)
        body, outline = (252, 252, 252), (120, 120, 130)
    else:
        c = tint(SIMSALA_COLOURS[label.split("-")[1]], style, rng)
        if ed == 1:
            fill, body, outline = c, shade(c, 1.55), shade(c, 0.4)
        else:
            fill, body, outline = shade(c, 1.7), c, shade(c, 0.4)
    sp = Sprite(sw, sh)
    sp.rrect(0, 0, 1, 1, style.corner, fill, mask=True)
    if ed == 2 and label.startswith("rabbit-") and label != "rabbit-white":
        sp.rrect(0.04, 0.04, 0.96, 0.96, style.corner, c, sp.lw(0.08))
    sp.rrect(0.02, 0.02, 0.98, 0.98, style.corner, shade(fill, 0.75), lw)
    if label == "frog":
        draw_frog(sp, body, outline, lw, style, rng)
    elif label == "cat":
        draw_cat(sp, body, outline, lw, style, rng)
    else:
        draw_rabbit(sp, body, outline, lw, style, rng)
    return sp.out()


def marble(sw, sh, rng, style: Style, colour: str, light=(0.0, -1.0)):
    """Glass marble seen from above (~16 mm): body colour at the centre, darker rim, a specular
    highlight displaced towards `light` (sprite axes) and a faint caustic on the far side."""
    c = tint(MARBLE_BGR[style.edition][colour], None, rng, 3)
    sp = Sprite(sw, sh)
    sp.circle(0.5, 0.5, 0.5, shade(c, 0.55), mask=True)
    sp.circle(0.5, 0.5, 0.43, shade(c, 0.8))
    sp.circle(0.5, 0.5, 0.34, c)
    lx, ly = light
    if style.edition == 2:
        sp.ellipse(0.5 - 0.18 * ly, 0.5 + 0.18 * lx, 0.2, 0.05, math.degrees(math.atan2(ly, lx)),
                   shade(c, 1.4))
    sp.circle(0.5 - 0.3 * lx, 0.5 - 0.3 * ly, 0.1, shade(c, 1.35))
    sp.circle(0.5 + 0.3 * lx, 0.5 + 0.3 * ly, 0.1, (250, 250, 250))
    sp.circle(0.5 + 0.34 * lx, 0.5 + 0.34 * ly, 0.05, (255, 255, 255))
    return sp.out()


def marble_layout(n: int):
    """Normalised disc positions of n printed marbles on a card."""
    return {
        3: [(0.5, 0.3), (0.3, 0.65), (0.7, 0.65)],
        4: [(0.3, 0.32), (0.7, 0.32), (0.3, 0.68), (0.7, 0.68)],
        5: [(0.3, 0.27), (0.7, 0.27), (0.5, 0.5), (0.3, 0.73), (0.7, 0.73)],
    }[n]


def hop_card(sw, sh, rng, style: Style, colour: str, marbles: tuple[str, ...] = ()):
    """Hop la bille card (60 x 90 mm): `colour` green/blue/red with printed marble discs, or
    "back" for a face-down card."""
    sp = Sprite(sw, sh)
    ed = style.edition
    lw = max(1, int(round(sp.u * 0.015 * style.line)))
    r = style.corner * 0.5
    if colour == "back":
        base = tint((90, 40, 60) if ed == 1 else (40, 90, 140), style, rng)
        sp.rrect(0, 0, 1, 1, r, (235, 235, 235), mask=True)
        sp.rrect(0.06, 0.05, 0.94, 0.95, r, base)
        step = 0.12
        for k in range(-8, 9):
            sp.line(0.06 + k * step, 0.05, 0.06 + k * step + 0.88, 0.95, shade(base, 1.3), lw)
        sp.circle(0.5, 0.5, 0.2, shade(base, 1.5))
        sp.text("HB", 0.5, 0.5, 0.14, base, style.font)
        return sp.out()
    cc = tint(CARD_BGR[colour], style, rng)
    if ed == 1:
        sp.rrect(0, 0, 1, 1, r, (240, 242, 244), mask=True)
        sp.rrect(0.03, 0.02, 0.97, 0.98, r, cc, sp.lw(0.09))
    else:
        sp.rrect(0, 0, 1, 1, r, shade(cc, 1.15), mask=True)
        sp.rrect(0.12, 0.1, 0.88, 0.9, r * 2, (245, 245, 240))
    for (x, y), m in zip(marble_layout(len(marbles)), marbles, strict=True):
        mc = MARBLE_BGR[ed][m.split("-", 1)[1]]
        rad = 0.13 if len(marbles) < 5 else 0.115
        sp.circle(x, y, rad, mc)
        sp.circle(x, y, rad, (40, 40, 40), lw)
        sp.circle(x - rad * 0.35, y - rad * 0.35, rad * 0.25, shade(mc, 1.5))
    return sp.out()


def magic_tile(sw, sh, rng, style: Style, kind: str, number: int = 0):
    """Magic Rabbit tile (50 mm): kind "hat" or "rabbit" with its number (colour = number's
    colour), or "magician"."""
    sp = Sprite(sw, sh)
    ed = style.edition
    lw = max(1, int(round(sp.u * 0.02 * style.line)))
    if kind == "magician":
        bg = tint((90, 30, 60) if ed == 1 else (120, 60, 20), style, rng)
        sp.rrect(0, 0, 1, 1, style.corner, bg, mask=True)
        sp.poly([[0.3, 0.72], [0.5, 0.12], [0.7, 0.72]], (150, 60, 110) if ed == 1 else
                (60, 40, 160))
        sp.ellipse(0.5, 0.74, 0.3, 0.07, 0, (150, 60, 110) if ed == 1 else (60, 40, 160))
        for x, y in ((0.45, 0.45), (0.56, 0.32), (0.52, 0.58), (0.2, 0.2), (0.82, 0.25)):
            sp.circle(x, y, 0.035, (60, 220, 250))
        sp.line(0.7, 0.85, 0.92, 0.6, (240, 240, 240), sp.lw(0.04))
        sp.rrect(0.03, 0.03, 0.97, 0.97, style.corner, shade(bg, 1.4), lw)
        return sp.out()
    c = tint(NUMBER_BGR[number], style, rng, 3)
    if ed == 1:
        bg = c
        sp.rrect(0, 0, 1, 1, style.corner, bg, mask=True)
        sp.rrect(0.05, 0.05, 0.95, 0.95, style.corner, shade(bg, 1.35))
        ring = (255, 255, 255)
    else:
        bg = (238, 242, 245)
        sp.rrect(0, 0, 1, 1, style.corner, bg, mask=True)
        sp.rrect(0.04, 0.04, 0.96, 0.96, style.corner, c, sp.lw(0.09))
        ring = c
    if kind == "hat":
        draw_hat(sp, c if ed == 1 else (240, 240, 240), lw, style, rng, cy=0.4)
    else:
        fur = (250, 250, 250) if ed == 1 else (205, 210, 215)  # edition 2: a grey-white rabbit
        draw_rabbit(sp, fur, (90, 90, 90), lw, style, rng, cx=0.5, cy=0.42, k=0.7)
    num = str(number)
    if ed == 1:
        sp.circle(0.5, 0.78, 0.15, ring)
        sp.text(num, 0.5, 0.78, 0.16, shade(c, 0.7), style.font, sp.lw(0.035))
    else:
        sp.text(num, 0.2, 0.2, 0.2, ring, style.font, sp.lw(0.045))
        sp.text(num, 0.5, 0.82, 0.16, shade(c, 0.8), style.font, sp.lw(0.035))
    return sp.out()


def dove_token(sw, sh, rng, style: Style):
    """Round white dove token (~25 mm)."""
    sp = Sprite(sw, sh)
    edge = (200, 200, 205) if style.edition == 1 else (200, 170, 120)
    sp.circle(0.5, 0.5, 0.5, edge, mask=True)
    sp.circle(0.5, 0.5, 0.45, (248, 248, 250) if style.edition == 1 else (235, 235, 225))
    draw_dove(sp, (250, 250, 252), max(1, sp.lw(0.02)), style)
    return sp.out()


TROETO_BACK = {1: (40, 40, 190), 2: (140, 70, 30)}


def troeto_card(sw, sh, rng, style: Style, label: str):
    """Troetofanten card (59 x 91 mm): elephants (dark number), tootophants (yellow number and
    trumpet), mouse, mousetrap, lasso, tamer, or the shared back. The top-left corner index
    carries the number (or a small symbol for the special cards)."""
    sp = Sprite(sw, sh)
    ed = style.edition
    lw = max(1, int(round(sp.u * 0.02 * style.line)))
    r = style.corner * 0.6
    if label == "back":
        c = tint(TROETO_BACK[ed], style, rng)
        sp.rrect(0, 0, 1, 1, r, (240, 240, 240), mask=True)
        sp.rrect(0.05, 0.04, 0.95, 0.96, r, c)
        for k in range(6):
            x = 0.05 + k * 0.18
            sp.poly([[x, 0.04], [x + 0.09, 0.04], [x + 0.09, 0.96], [x, 0.96]],
                    shade(c, 1.4) if ed == 1 else shade(c, 0.8))
        sp.circle(0.5, 0.5, 0.28, (40, 200, 240))
        sp.circle(0.5, 0.5, 0.22, c)
        return sp.out()
    paper = tint((235, 245, 250) if ed == 1 else (215, 235, 240), style, rng, 3)
    sp.rrect(0, 0, 1, 1, r, paper, mask=True)
    sp.rrect(0.03, 0.02, 0.97, 0.98, r, shade(paper, 0.8), lw)
    grey = tint((150, 145, 140) if ed == 1 else (170, 150, 150), style, rng, 3)
    yellow = (20, 200, 250)
    kind, _, n = label.partition("-")
    if kind in ("elephant", "tootophant"):
        draw_elephant(sp, grey, shade(grey, 0.4), lw, style, cx=0.52, cy=0.58, k=0.9)
        if kind == "tootophant":
            draw_trumpet(sp, yellow, lw, x=0.2, y=0.45, k=0.8)
        ink = yellow if kind == "tootophant" else (40, 30, 30)
        for x, y in ((0.17, 0.11), (0.83, 0.89)):
            if ed == 2:
                sp.circle(x, y, 0.17, (255, 255, 255))
            if kind == "tootophant":
                sp.text(n, x, y, 0.17, (20, 20, 20), style.font, sp.lw(0.09))
            sp.text(n, x, y, 0.17, ink, style.font, sp.lw(0.05))
        return sp.out()
    # Special cards: a drawing and a small symbol in the corners.
    if kind == "mouse":
        sp.ellipse(0.5, 0.55, 0.25, 0.14, 0, (130, 130, 135))
        sp.circle(0.3, 0.42, 0.09, (150, 150, 155))
        sp.circle(0.27, 0.52, 0.02, (0, 0, 0))
        sp.ellipse(0.8, 0.62, 0.15, 0.04, 20, (110, 110, 200), lw)
        sym = (130, 130, 135)
    elif kind == "mousetrap":
        sp.rrect(0.2, 0.35, 0.8, 0.75, 0.05, (70, 130, 190))
        sp.rrect(0.25, 0.45, 0.75, 0.68, 0.05, (160, 160, 165), sp.lw(0.03))
        sp.circle(0.5, 0.56, 0.05, (40, 200, 240))
        sym = (70, 130, 190)
    elif kind == "lasso":
        sp.ellipse(0.5, 0.45, 0.28, 0.18, -10, (50, 110, 170), sp.lw(0.05))
        sp.line(0.7, 0.52, 0.85, 0.85, (50, 110, 170), sp.lw(0.05))
        sym = (50, 110, 170)
    else:  # tamer
        sp.circle(0.5, 0.3, 0.1, (150, 180, 230))
        sp.poly([[0.4, 0.15], [0.6, 0.15], [0.58, 0.24], [0.42, 0.24]], (20, 20, 20))
        sp.poly([[0.35, 0.4], [0.65, 0.4], [0.7, 0.78], [0.3, 0.78]], (40, 40, 200))
        sp.line(0.68, 0.5, 0.9, 0.3, (40, 60, 90), sp.lw(0.02))
        sym = (40, 40, 200)
    for x, y in ((0.16, 0.1), (0.84, 0.9)):
        sp.circle(x, y, 0.08, sym)
    return sp.out()


def pawn_top(sw, sh, rng, style: Style, colour: str):
    """A pawn seen from above: the base ring, the body and the round head."""
    c = tint({"red": (40, 40, 200), "yellow": (30, 210, 240), "green": (50, 150, 40),
              "black": (30, 30, 30)}[colour], style, rng, 3)
    sp = Sprite(sw, sh)
    sp.circle(0.5, 0.5, 0.5, shade(c, 0.7), mask=True)
    sp.circle(0.5, 0.5, 0.4, c)
    sp.circle(0.5, 0.5, 0.26, shade(c, 1.25) if colour != "black" else (70, 70, 70))
    lx, ly = style.light
    sp.circle(0.5 + 0.1 * lx, 0.5 + 0.1 * ly, 0.07, shade(c, 1.7) if colour != "black"
              else (140, 140, 140))
    if style.edition == 2:
        sp.circle(0.5, 0.5, 0.4, shade(c, 0.5), sp.lw(0.04))
    return sp.out()


DIE_GLARE_P = 0.25
PIPS = {1: [(0.5, 0.5)], 2: [(0.27, 0.27), (0.73, 0.73)],
        3: [(0.27, 0.27), (0.5, 0.5), (0.73, 0.73)],
        4: [(0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)],
        5: [(0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)],
        6: [(0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)]}


def die_face(sw, sh, rng, style: Style, value: int):
    """The top face of an ordinary white die with black pips (the side sliver is drawn by the
    renderer)."""
    sp = Sprite(sw, sh)
    body = (245, 245, 242) if style.edition == 1 else (235, 240, 250)
    sp.rrect(0, 0, 1, 1, 0.18, body, mask=True)
    sp.rrect(0.02, 0.02, 0.98, 0.98, 0.18, (205, 205, 200), max(1, sp.lw(0.03)))
    pip = (20, 20, 20) if style.edition == 1 else (40, 30, 120) if value in (1, 4) else (20, 20,
                                                                                          20)
    for x, y in PIPS[value]:
        sp.circle(x, y, 0.1 if style.edition == 1 else 0.085, pip)
    if rng.random() < DIE_GLARE_P:  # a glint on the glossy face, towards a corner
        gx, gy = rng.choice([0.16, 0.84], 2)
        glint = sp.img.copy()
        cv2.ellipse(glint, sp.p(gx, gy), (int(0.12 * sp.u * ONE), int(0.07 * sp.u * ONE)),
                    float(rng.uniform(0, 180)), 0, 360, (255, 255, 255), -1, cv2.LINE_AA, SHIFT)
        sp.img[:] = cv2.addWeighted(sp.img, 0.4, glint, 0.6, 0)
    return sp.out()
