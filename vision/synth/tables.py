"""Table surfaces (wood, cloth, plain), distractors, and the play areas (castle, cloth).

All painters return uint8 BGR images; world rectangles are in mm.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.synth.art import SIMSALA_COLOURS, Sprite, Style, shade, tint

TABLE_KINDS = ("wood", "cloth", "plain", "wood", "laminate", "check", "stripes")
WOOD_BGR = [(60, 100, 150), (40, 70, 110), (90, 140, 190), (30, 50, 80), (120, 170, 210)]
PLAIN_BGR = [(200, 200, 200), (235, 235, 230), (70, 70, 70), (150, 120, 90), (90, 130, 90),
             (60, 60, 120), (200, 180, 150), (40, 40, 45)]


def table_texture(rng: np.random.Generator, w: int, h: int, kind: str | None = None):
    """A (h, w, 3) uint8 BGR table surface: wood grain, woven cloth, laminate or plain."""
    kind = kind or TABLE_KINDS[rng.integers(len(TABLE_KINDS))]
    if kind == "wood":
        base = np.array(WOOD_BGR[rng.integers(len(WOOD_BGR))], np.float32)
        base *= rng.uniform(0.85, 1.15)
        grain = rng.standard_normal((max(8, h // 3), max(4, w // 40)), dtype=np.float32)
        grain = cv2.resize(grain, (w, h), interpolation=cv2.INTER_CUBIC)
        fine = rng.standard_normal((h // 2 + 1, w // 16 + 1), dtype=np.float32)
        fine = cv2.resize(fine, (w, h), interpolation=cv2.INTER_LINEAR)
        g = 1 + 0.08 * grain + 0.04 * fine
        # Planks.
        pw = int(rng.uniform(0.12, 0.3) * h) + 1
        rows = (np.arange(h, dtype=np.float32) // pw)[:, None]
        g *= (1 + 0.06 * np.sin(rows * 2.3 + np.float32(rng.uniform(0, 6)))).astype(np.float32)
        g[(np.arange(h) % pw) < 2] *= 0.6
        img = cv2.merge([g * base[0], g * base[1], g * base[2]])
    elif kind == "cloth":
        base = np.array(tint(PLAIN_BGR[rng.integers(len(PLAIN_BGR))], None, rng, 10), np.float32)
        period = rng.uniform(3, 7)
        xx = np.sin(np.arange(w, dtype=np.float32) * 2 * math.pi / period)
        yy = np.sin(np.arange(h, dtype=np.float32) * 2 * math.pi / period)
        weave = 1 + 0.05 * (xx[None, :] * yy[:, None])
        low = cv2.resize(rng.uniform(0.9, 1.1, (4, 4)).astype(np.float32), (w, h))
        g = weave * low
        img = cv2.merge([g * base[0], g * base[1], g * base[2]])
    elif kind in ("check", "stripes"):
        # A patterned tablecloth: two colours in squares or stripes.
        c1 = np.array(tint(PLAIN_BGR[rng.integers(len(PLAIN_BGR))], None, rng, 10), np.float32)
        c2 = np.array(tint(PLAIN_BGR[rng.integers(len(PLAIN_BGR))], None, rng, 10), np.float32)
        period = rng.uniform(0.03, 0.1) * max(w, h)
        xx = (np.arange(w, dtype=np.float32) // period) % 2
        yy = (np.arange(h, dtype=np.float32) // period) % 2
        m = (xx[None, :] + yy[:, None]) % 2 if kind == "check" else np.repeat(
            xx[None, :], h, axis=0)
        m = cv2.GaussianBlur(m.astype(np.float32), (3, 3), 0)
        img = cv2.merge([c1[i] + (c2[i] - c1[i]) * m for i in range(3)])
    else:
        base = np.array(tint(PLAIN_BGR[rng.integers(len(PLAIN_BGR))], None, rng, 10), np.float32)
        n = rng.standard_normal((h // 4 + 1, w // 4 + 1), dtype=np.float32)
        n = cv2.resize(n, (w, h), interpolation=cv2.INTER_LINEAR)
        amt = 0.03 if kind == "plain" else 0.06
        g = 1 + amt * n
        img = cv2.merge([g * base[0], g * base[1], g * base[2]])
    return cv2.convertScaleAbs(img)


def distractor(rng: np.random.Generator, px_per_mm: float):
    """A coin, pen, paper note or a phone-sized dark slab: (bgr, alpha, size_mm, height_mm)."""
    kind = rng.choice(["coin", "pen", "paper", "coin", "eraser"])
    if kind == "coin":
        d = rng.uniform(16, 26)
        s = max(8, int(d * px_per_mm))
        sp = Sprite(s, s)
        c = (60, 150, 190) if rng.random() < 0.5 else (170, 170, 175)
        sp.circle(0.5, 0.5, 0.5, shade(c, 0.7), mask=True)
        sp.circle(0.5, 0.5, 0.42, c)
        sp.circle(0.5, 0.5, 0.3, shade(c, 0.85), sp.lw(0.04))
        bgr, a = sp.out()
        return bgr, a, (d, d), 2.0
    if kind == "pen":
        L, W = rng.uniform(110, 150), rng.uniform(8, 12)
        sw, sh = max(8, int(L * px_per_mm)), max(3, int(W * px_per_mm))
        sp = Sprite(sw, sh)
        c = tint([(200, 50, 20), (30, 30, 200), (30, 30, 30), (40, 160, 40)][rng.integers(4)],
                 None, rng, 5)
        sp.rrect(0.0, 0.1, 0.88, 0.9, 0.4, c, mask=True)
        sp.poly([[0.88, 0.2], [1.0, 0.5], [0.88, 0.8]], (200, 200, 200))
        cv2.fillConvexPoly(sp.alpha, np.array([[int(0.88 * sw), int(0.2 * sh)], [sw - 1, sh // 2],
                                               [int(0.88 * sw), int(0.8 * sh)]]), 255)
        sp.line(0.1, 0.35, 0.8, 0.35, shade(c, 1.5), sp.lw(0.15))
        bgr, a = sp.out()
        return bgr, a, (L, W), 8.0
    if kind == "paper":
        W, H = rng.uniform(60, 100), rng.uniform(60, 100)
        sw, sh = max(8, int(W * px_per_mm)), max(8, int(H * px_per_mm))
        sp = Sprite(sw, sh)
        c = (245, 248, 250) if rng.random() < 0.6 else (140, 240, 250)
        sp.rrect(0, 0, 1, 1, 0.0, c, mask=True)
        for k in range(1, 8):
            sp.line(0.1, k / 8, 0.9 * rng.uniform(0.4, 1), k / 8, (120, 110, 100), 1)
        bgr, a = sp.out()
        return bgr, a, (W, H), 0.3
    W, H = rng.uniform(25, 50), rng.uniform(15, 25)
    sw, sh = max(8, int(W * px_per_mm)), max(6, int(H * px_per_mm))
    sp = Sprite(sw, sh)
    c = tint([(210, 210, 240), (80, 140, 230), (200, 160, 120)][rng.integers(3)], None, rng, 8)
    sp.rrect(0, 0, 1, 1, 0.15, c, mask=True)
    bgr, a = sp.out()
    return bgr, a, (W, H), 10.0


# --------------------------------------------------------------------------- play areas
def castle(px_per_mm: float, rng: np.random.Generator, style: Style, first_wall: int,
           arena: float = 240.0, wall: float = 24.0, tower: float = 30.0):
    """Simsala Hopp castle seen from above: red transparent arena (world [0, arena]^2), walls
    with coats of arms (yellow, orange, blue, violet clockwise starting at world side
    `first_wall`: 0 north, 1 east, 2 south, 3 west) and four corner towers.
    Returns (bgr, alpha, world rect)."""
    m = wall + tower * 0.6
    x0 = y0 = -m
    size = arena + 2 * m
    s = max(32, int(size * px_per_mm))
    sp = Sprite(s, s)

    def n(v):  # world mm -> normalised sprite coordinate
        return (v + m) / size

    stone = tint((150, 170, 185) if style.edition == 1 else (120, 110, 160), style, rng, 6)
    sp.rrect(n(-wall), n(-wall), n(arena + wall), n(arena + wall), 0.0, stone, mask=True)
    # Red arena: the sheet over the box floor, with faint streaks and reflections.
    red = tint((70, 60, 215) if style.edition == 1 else (110, 70, 235), style, rng, 5)
    sp.rrect(n(0), n(0), n(arena), n(arena), 0.0, red)
    for _ in range(5):
        a = rng.uniform(0, 1, 4)
        sp.line(n(arena * a[0]), n(arena * a[1]), n(arena * a[2]), n(arena * a[3]),
                shade(red, 1.15), sp.lw(0.01))
    sp.rrect(n(0), n(0), n(arena), n(arena), 0.0, shade(red, 0.6), sp.lw(0.006))
    # Walls: battlements along the outer edge and a coat of arms per wall.
    lw = sp.lw(0.004 * style.line)
    for k in range(4):
        colour = SIMSALA_COLOURS[("yellow", "orange", "blue", "violet")[(k - first_wall) % 4]]
        colour = tint(colour, style, rng, 3)
        cx, cy = [(arena / 2, -wall / 2), (arena + wall / 2, arena / 2), (arena / 2,
                  arena + wall / 2), (-wall / 2, arena / 2)][k]
        for j in range(1, 8):
            t = j * arena / 8
            px, py = [(t, -wall), (arena + wall, t), (t, arena + wall), (-wall, t)][k]
            sp.circle(n(px), n(py), 3.0 / size, shade(stone, 0.7))
        sp.rrect(n(cx - 13), n(cy - 11), n(cx + 13), n(cy + 11), 0.25, shade(stone, 0.8))
        sp.poly([[n(cx - 10), n(cy - 9)], [n(cx + 10), n(cy - 9)], [n(cx + 10), n(cy + 2)],
                 [n(cx), n(cy + 10)], [n(cx - 10), n(cy + 2)]], colour)
        sp.poly([[n(cx - 10), n(cy - 9)], [n(cx + 10), n(cy - 9)], [n(cx + 10), n(cy + 2)],
                 [n(cx), n(cy + 10)], [n(cx - 10), n(cy + 2)]], shade(colour, 0.5), lw)
    roof = tint((60, 60, 160) if style.edition == 1 else (140, 90, 60), style, rng, 5)
    o = wall / 2  # towers stand on the box corners, just outside the arena's corners
    for px, py in ((-o, -o), (arena + o, -o), (arena + o, arena + o), (-o, arena + o)):
        sp.circle(n(px), n(py), tower * 0.8 / size, shade(stone, 0.9), mask=True)
        sp.circle(n(px), n(py), tower * 0.64 / size, roof)
        sp.circle(n(px), n(py), tower * 0.12 / size, shade(roof, 0.5))
    bgr, a = sp.out()
    return bgr, a, (x0, y0, x0 + size, y0 + size)


def cloth(px_per_mm: float, rng: np.random.Generator, style: Style, size: float = 600.0):
    """Hop la bille play cloth (world [0, size]^2): light colour, hem, folds. Returns
    (bgr, alpha, world rect)."""
    s = max(32, int(size * px_per_mm))
    low = 160
    base = (225, 235, 240) if style.edition == 1 else (200, 225, 215)
    base = np.array(tint(base, style, rng, 12), np.float32)
    yy, xx = np.mgrid[0:low, 0:low].astype(np.float32) / low
    g = np.ones((low, low), np.float32)
    for _ in range(int(rng.integers(2, 6))):
        a = rng.uniform(0, math.pi)
        d = xx * math.cos(a) + yy * math.sin(a) - rng.uniform(0.1, 1.3)
        w = rng.uniform(0.01, 0.05)
        g += rng.uniform(0.06, 0.2) * (np.exp(-((d / w) ** 2)) - 0.7 * np.exp(-(((d - w * 1.5)
                                                                                 / w) ** 2)))
    g += 0.05 * cv2.resize(rng.standard_normal((6, 6), dtype=np.float32), (low, low),
                           interpolation=cv2.INTER_CUBIC)
    g = cv2.resize(g, (s, s), interpolation=cv2.INTER_LINEAR)
    img = np.clip(g[:, :, None] * base[None, None, :], 0, 255).astype(np.uint8)
    sp = Sprite(s, s)
    sp.img = img
    sp.alpha[:] = 255
    hem = shade(tuple(int(c) for c in base), 0.75)
    sp.rrect(0.01, 0.01, 0.99, 0.99, 0.0, hem, sp.lw(0.006))
    if style.edition == 2:  # printed hopscotch-like playground lines
        sp.circle(0.5, 0.5, 0.18, shade(hem, 0.9), sp.lw(0.004))
    return sp.img, sp.alpha, (0.0, 0.0, size, size)


# ------------------------------------------------------------ tables the models never saw
# Session 24 (H3): surfaces drawn only on request (`tablescore synth --table KIND`), never
# in the default draw (`TABLE_KINDS`) and never in training data (`--table` refuses
# `--crops`): a test of the assistant on tables unlike the generator's own.
NOVEL_TABLE_KINDS = ("marble", "print", "dark-glass", "mat")
TABLE_CHOICES = tuple(dict.fromkeys(TABLE_KINDS)) + NOVEL_TABLE_KINDS
PRINT_BGR = [(40, 40, 220), (30, 200, 240), (200, 90, 30), (60, 170, 60), (170, 80, 220),
             (30, 130, 250), (220, 220, 240), (130, 40, 140)]


def _smooth_noise(rng: np.random.Generator, w: int, h: int, cells: int) -> np.ndarray:
    """(h, w) float32 noise, about unit spread, with `cells` features along the long side."""
    a = max(2, cells)
    gw, gh = (a, max(2, a * h // w)) if w >= h else (max(2, a * w // h), a)
    n = rng.standard_normal((gh, gw), dtype=np.float32)
    return cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC)


def novel_table_texture(rng: np.random.Generator, w: int, h: int, kind: str,
                        px_per_mm: float) -> np.ndarray:
    """A (h, w, 3) uint8 BGR surface of one of `NOVEL_TABLE_KINDS`, `px_per_mm` canvas pixels
    per table mm (pattern sizes are in mm): pale marble with grey veins, a busy printed
    tablecloth (flowers and dots in several saturated colours), near-black glass with soft
    reflections and a lamp's streak, a playmat / newspaper with printed shapes and text."""
    if kind not in NOVEL_TABLE_KINDS:
        raise ValueError(f"unknown table kind {kind!r}")
    ppm = max(float(px_per_mm), 1e-3)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "marble":
        base = np.array([rng.uniform(215, 245)] * 3, np.float32)
        base += rng.uniform(-8, 8, 3).astype(np.float32)  # a warm or cool white
        mott = 1 + 0.035 * _smooth_noise(rng, w, h, 6) + 0.015 * _smooth_noise(rng, w, h, 40)
        img = np.stack([mott * base[i] for i in range(3)], axis=2)
        vein = np.zeros((h, w), np.float32)
        for _ in range(int(rng.integers(1, 4))):  # families of veins: turbulent sine ridges
            ang = rng.uniform(0, math.pi)
            period = rng.uniform(150, 450) * ppm
            turb = 1.2 * _smooth_noise(rng, w, h, 4) + 0.25 * _smooth_noise(rng, w, h, 30)
            ph = (xx * math.cos(ang) + yy * math.sin(ang)) * (2 * math.pi / period) + turb
            sharp = rng.uniform(6, 14)
            vein = np.maximum(vein, np.exp(-sharp * np.abs(np.sin(ph))) * rng.uniform(0.4, 1))
        grey = rng.uniform(90, 150)
        img = img * (1 - 0.75 * vein[..., None]) + 0.75 * vein[..., None] * grey
    elif kind == "print":
        bg = PRINT_BGR[rng.integers(len(PRINT_BGR))] if rng.random() < 0.5 else \
            PLAIN_BGR[rng.integers(len(PLAIN_BGR))]
        img = np.empty((h, w, 3), np.float32)
        img[:] = tint(bg, None, rng, 10)
        cols = [PRINT_BGR[i] for i in rng.choice(len(PRINT_BGR), 4, replace=False)]
        spacing = rng.uniform(35, 80) * ppm  # motifs every few cm, jittered
        ny, nx = int(h / spacing) + 2, int(w / spacing) + 2
        for j in range(ny):
            for i in range(nx):
                cx = (i + 0.5 * (j % 2) + rng.uniform(-0.3, 0.3)) * spacing
                cy = (j + rng.uniform(-0.3, 0.3)) * spacing
                c = tint(cols[rng.integers(len(cols))], None, rng, 8)
                r = rng.uniform(0.15, 0.35) * spacing
                if rng.random() < 0.5:  # a flower: five petals round a centre
                    a0 = rng.uniform(0, 2 * math.pi)
                    for k in range(5):
                        a = a0 + k * 2 * math.pi / 5
                        cv2.circle(img, (int(cx + r * math.cos(a)), int(cy + r * math.sin(a))),
                                   max(1, int(0.55 * r)), c, -1, cv2.LINE_AA)
                    cv2.circle(img, (int(cx), int(cy)), max(1, int(0.4 * r)),
                               tint(cols[rng.integers(len(cols))], None, rng, 8), -1,
                               cv2.LINE_AA)
                else:  # a dot, and a leaf beside it
                    cv2.circle(img, (int(cx), int(cy)), max(1, int(0.7 * r)), c, -1,
                               cv2.LINE_AA)
                    cv2.ellipse(img, (int(cx + r), int(cy - r)),
                                (max(1, int(0.6 * r)), max(1, int(0.25 * r))),
                                rng.uniform(0, 180), 0, 360, (50, 140, 40), -1, cv2.LINE_AA)
        weave = 1 + 0.04 * _smooth_noise(rng, w, h, 8)
        img *= weave[..., None]
    elif kind == "dark-glass":
        base = np.array([rng.uniform(12, 35)] * 3, np.float32) + rng.uniform(-5, 5, 3)
        refl = np.clip(_smooth_noise(rng, w, h, 4), 0, None)  # the room, soft and dim
        img = np.stack([base[i] * (1 + 0.6 * refl) for i in range(3)], axis=2)
        ang = rng.uniform(0, math.pi)  # the lamp's streak: a long soft band
        d = (xx - rng.uniform(0.2, 0.8) * w) * math.sin(ang) - \
            (yy - rng.uniform(0.2, 0.8) * h) * math.cos(ang)
        along = (xx * math.cos(ang) + yy * math.sin(ang)) / max(w, h)
        fade = 0.6 + 0.4 * np.cos(2 * math.pi * (along + rng.uniform(0, 1)))
        width = rng.uniform(20, 60) * ppm
        streak = np.exp(-0.5 * (d / width) ** 2) * fade
        core = np.exp(-0.5 * (d / (0.25 * width)) ** 2) * fade
        lamp = np.array(tint((235, 240, 245), None, rng, 10), np.float32)
        img += (0.45 * streak + 0.45 * core)[..., None] * lamp
    else:  # mat: newsprint or a playmat with printed shapes and text
        papers = [(200, 205, 208), (235, 235, 230), (200, 180, 150), (185, 215, 225)]
        paper = papers[0] if rng.random() < 0.6 else papers[rng.integers(1, len(papers))]
        img = np.empty((h, w, 3), np.uint8)  # uint8: cv2.putText draws on 8-bit images only
        img[:] = tint(paper, None, rng, 8)
        ink = (35, 35, 40)
        col_w = rng.uniform(45, 70) * ppm
        line_h = rng.uniform(4, 6) * ppm
        x = 0.0
        while x < w:
            y = rng.uniform(0, 20) * ppm
            while y < h:
                r = rng.random()
                if r < 0.025:  # a picture or a coloured shape
                    bh = rng.uniform(25, 60) * ppm
                    c = tint(PRINT_BGR[rng.integers(len(PRINT_BGR))], None, rng, 20)
                    if rng.random() < 0.5:
                        cv2.rectangle(img, (int(x), int(y)), (int(x + col_w * 0.9),
                                      int(y + bh)), c, -1)
                    else:
                        cv2.circle(img, (int(x + col_w * 0.45), int(y + bh / 2)),
                                   int(min(col_w * 0.4, bh / 2)), c, -1, cv2.LINE_AA)
                    y += bh + line_h
                elif r < 0.05:  # a headline
                    txt = "".join(chr(65 + int(v)) for v in rng.integers(0, 26, 8))
                    sc = max(0.3, 8 * ppm / 22)
                    cv2.putText(img, txt, (int(x), int(y + 8 * ppm)), cv2.FONT_HERSHEY_DUPLEX,
                                sc, ink, max(1, int(sc * 1.5)), cv2.LINE_AA)
                    y += 12 * ppm
                else:  # a line of words
                    xe = x
                    end = x + col_w * (0.9 if rng.random() < 0.85 else rng.uniform(0.3, 0.8))
                    while xe < end:
                        ww = rng.uniform(3, 12) * ppm
                        cv2.rectangle(img, (int(xe), int(y)),
                                      (int(min(xe + ww, end)), int(y + 0.55 * line_h)),
                                      ink, -1)
                        xe += ww + 1.5 * ppm
                    y += line_h
            x += col_w
        img = cv2.GaussianBlur(img, (0, 0), max(0.5, 0.4 * ppm))
    return cv2.convertScaleAbs(img)
