"""Mauerhuepfer during play: the board drawn from the board description
(`scoring.mauerhuepfer.board_for`, default `scoring/boards/default.json`), its cardboard walls,
pawns of the colours in play on track fields, in their start areas B and home in goal slots,
and the two dice on the table beside the board."""

from __future__ import annotations

import math
from functools import partial

import cv2
import numpy as np

from scoring.labels import PAWN_COLOURS, PAWNS_PER_COLOUR
from scoring.mauerhuepfer import GOAL_SLOTS, START, board_for
from vision.synth.art import Sprite, Style, die_face, pawn_top, shade, tint
from vision.synth.scene import Layout, Piece

PAWN_MM = 20.0  # base diameter
PAWN_HEIGHT_MM = 24.0
WALL_HEIGHT_MM = 28.0  # the cardboard walls standing on the board
DIE_MM = 16.0
COLOUR_BGR = {"red": (40, 40, 200), "yellow": (30, 210, 240), "green": (50, 150, 40),
              "black": (40, 40, 40)}

# board(): the default board (`board_for`: loaded once while its file is unchanged, the same
# cache the reader and the scorer use; the Board is immutable)
board = board_for


def _place_order(b, place: str) -> tuple[int, int]:
    if place == START:
        return (0, 0)
    if place in GOAL_SLOTS:
        return (2, GOAL_SLOTS.index(place))
    return (1, b.index(place))


def layout(rng: np.random.Generator, style: Style) -> Layout:
    b = board()
    w, h = b.size_mm
    in_play = [c for c in PAWN_COLOURS if b.area(c) is not None]
    n_col = int(rng.integers(2, len(in_play) + 1))
    colours = sorted(rng.choice(in_play, n_col, replace=False).tolist(), key=PAWN_COLOURS.index)
    track = [f.id for f in b.fields]
    free = set(track)
    pieces: list[Piece] = []
    positions: dict[str, list[str]] = {}
    progress = rng.uniform(0, 1)
    for colour in colours:
        area = b.area(colour)
        places = []
        slots = list(range(len(area.start_slots)))
        rng.shuffle(slots)
        home_slots = list(GOAL_SLOTS)
        for _ in range(PAWNS_PER_COLOUR):
            r = rng.random()
            if r < 0.45 * (1 - progress) + 0.1 and slots:
                s = slots.pop()
                places.append((START, area.start_slots[s]))
            elif r < 0.85 or not home_slots:
                fid = str(rng.choice(sorted(free)))
                free.discard(fid)
                f = b.field(fid)
                places.append((fid, (f.x, f.y)))
            else:
                slot = home_slots.pop(int(rng.integers(len(home_slots))))
                places.append((slot, dict(area.goal_slots)[slot]))
        lab = f"pawn-{colour}"
        positions[lab] = [p for p, _ in sorted(places, key=lambda t: _place_order(b, t[0]))]
        for place, (x, y) in places:
            pieces.append(Piece(
                lab, "board", (float(x + rng.normal(0, 1.2)), float(y + rng.normal(0, 1.2))),
                (PAWN_MM, PAWN_MM), partial(_pawn, style=style, colour=colour),
                int(rng.integers(1 << 31)), round=True, height=PAWN_HEIGHT_MM, kind="pawn",
                z=2, meta={"position": place, "bgr": tint(COLOUR_BGR[colour], style)}))
    dice = [int(v) for v in rng.integers(1, 7, 2)]
    side = int(rng.integers(4))
    along = rng.uniform(60, min(w, h) - 90)
    off = rng.uniform(18, 60)
    for k, v in enumerate(dice):
        a = along + k * rng.uniform(24, 45)
        d = off + rng.uniform(-5, 5)
        x, y = [(a, -d), (w + d, a), (a, h + d), (-d, a)][side]
        pieces.append(Piece(
            f"die-{v}", "table", (float(x), float(y)), (DIE_MM, DIE_MM),
            partial(_die, style=style, value=v), int(rng.integers(1 << 31)),
            angle=float(rng.uniform(0, 360)), height=DIE_MM, kind="die", z=3,
            meta={"light": style.light}))
    facts = {
        "dice": sorted(dice),
        "pawns": {f"pawn-{c}": PAWNS_PER_COLOUR for c in colours},
        "positions": positions,
    }
    area = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
    art_seed = int(rng.integers(1 << 31))
    wall_c = tint((60, 110, 160) if style.edition == 1 else (90, 90, 100), style, rng, 6)
    walls = [{"line": [tuple(map(float, pt)) for pt in wl.line], "height": WALL_HEIGHT_MM,
              "bgr": wall_c} for wl in b.walls]
    return Layout(
        area=area, frame=area, content=area, pieces=pieces,
        area_art=lambda ppm: board_art(ppm, np.random.default_rng(art_seed), style),
        facts=lambda pieces, centres, names: facts, table="any",
        keepout=[(w / 2, h / 2, max(w, h) * 0.75)], walls=walls,
    )


def board_art(px_per_mm: float, rng: np.random.Generator, style: Style):
    """The board seen from above: track, fields, wall numbers, A/B/Z/a-d areas, walls.
    Returns (bgr, alpha, world rect)."""
    b = board()
    w, h = b.size_mm
    s = int(np.clip(max(w, h) * px_per_mm, 64, 1600))
    sp = Sprite(s, s)
    ed = style.edition
    bg = tint((170, 215, 190) if ed == 1 else (150, 190, 225), style, rng, 8)
    sp.rrect(0, 0, 1, 1, 0.01, bg, mask=True)
    sp.rrect(0.01, 0.01, 0.99, 0.99, 0.01, shade(bg, 0.7), sp.lw(0.004))

    def n(x, y):
        return x / w, y / h

    r = b.field_radius_mm / max(w, h)
    lw = max(1, sp.lw(0.002 * style.line))
    path = [n(f.x, f.y) for f in b.fields]
    for p, q in zip(path, path[1:], strict=False):
        sp.line(*p, *q, shade(bg, 0.8), sp.lw(0.012))
    field_bg = (240, 245, 245) if ed == 1 else (225, 240, 250)
    font = style.font
    for f in b.fields:
        sp.circle(*n(f.x, f.y), r, field_bg)
        sp.circle(*n(f.x, f.y), r, shade(bg, 0.5), lw)
        for j in f.jumps:
            wall = next(wl for wl in b.walls if wl.id == j.wall)
            (ax, ay), (bx, by) = wall.line[0], wall.line[-1]
            # the wall side of the field: towards the nearest point of the wall line
            t = np.clip(((f.x - ax) * (bx - ax) + (f.y - ay) * (by - ay))
                        / max((bx - ax) ** 2 + (by - ay) ** 2, 1e-9), 0, 1)
            px, py = ax + t * (bx - ax), ay + t * (by - ay)
            d = math.hypot(px - f.x, py - f.y) or 1.0
            k = b.field_radius_mm * 0.45
            sp.text(str(j.number), *n(f.x + (px - f.x) / d * k, f.y + (py - f.y) / d * k),
                    0.016, (30, 30, 30), font, lw)
    for g in b.goal_fields:
        f = b.field(g)
        sp.circle(*n(f.x, f.y), r, (80, 200, 240))
        sp.text("Z", *n(f.x, f.y), 0.016, (30, 30, 30), font, lw)
    for a in b.colours:
        c = tint(COLOUR_BGR[a.colour], style, rng, 3)
        f = b.field(a.start_field)
        sp.circle(*n(f.x, f.y), r, shade(c, 1.4))
        sp.text("A", *n(f.x, f.y), 0.016, shade(c, 0.5), font, lw)
        sp.circle(*n(*a.start_center), a.start_radius / max(w, h), shade(c, 1.5))
        sp.circle(*n(*a.start_center), a.start_radius / max(w, h), c, sp.lw(0.004))
        sp.text("B", *n(*a.start_center), 0.016, shade(c, 0.6), font, lw)
        for slot, (x, y) in a.goal_slots:
            sp.circle(*n(x, y), r * 0.9, shade(c, 1.5))
            sp.circle(*n(x, y), r * 0.9, c, lw)
            sp.text(slot, *n(x, y + 9), 0.01, shade(c, 0.5), font, lw)
    for wl in b.walls:  # the slot the standing wall sits in (the wall itself is 3D)
        pts = [n(x, y) for x, y in wl.line]
        for p, q in zip(pts, pts[1:], strict=False):
            sp.line(*p, *q, shade(bg, 0.55), sp.lw(0.008))
    bgr, alpha = sp.out()
    return cv2.GaussianBlur(bgr, (3, 3), 0) if s > 900 else bgr, alpha, (0.0, 0.0, w, h)


def _pawn(sw, sh, rng, style, colour):
    return pawn_top(sw, sh, rng, style, colour)


def _die(sw, sh, rng, style, value):
    return die_face(sw, sh, rng, style, value)
