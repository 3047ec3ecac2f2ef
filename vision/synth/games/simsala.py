"""Simsala Hopp at counting time: 15 tiles, most in the red arena (no overlaps), a few that
flew over the walls lying outside; each tile shows its frog front or its fixed back."""

from __future__ import annotations

import math
from collections import Counter
from functools import partial

import numpy as np

from scoring.labels import PLAYER_COLOURS_SIMSALA, SIMSALA_LABELS
from vision.synth.art import Style, simsala_tile
from vision.synth.geometry import polygons_overlap, rect_corners
from vision.synth.scene import Layout, Piece
from vision.synth.tables import castle

ARENA_MM = 240.0
WALL_MM = 24.0
TOWER_MM = 30.0
GRID = 4  # arena cells per side for non-overlapping placement
OUTSIDE_COUNTS = (0, 0, 0, 1, 1, 2, 3)  # how many tiles flew out (drawn uniformly)


def tile_backs(rng: np.random.Generator) -> list[str]:
    backs = ["rabbit-white"] * 5 + ["cat"] * 2
    backs += [f"rabbit-{c}" for c in PLAYER_COLOURS_SIMSALA for _ in range(2)]
    rng.shuffle(backs)
    return backs


def layout(rng: np.random.Generator, style: Style) -> Layout:
    tile = float(rng.uniform(38, 42))
    backs = tile_backs(rng)
    p_back = rng.uniform(0.25, 0.95)
    n_out = int(OUTSIDE_COUNTS[rng.integers(len(OUTSIDE_COUNTS))])
    cell = ARENA_MM / GRID
    cells = rng.permutation(GRID * GRID)[: len(backs) - n_out]
    pieces: list[Piece] = []

    def make(label, zone, cx, cy, ang):
        return Piece(label, zone, (cx, cy), (tile, tile), partial(_art, style=style, label=label),
                     int(rng.integers(1 << 31)), angle=ang, height=1.5, kind="tile")

    for i, cidx in enumerate(cells):
        r, c = divmod(int(cidx), GRID)
        ang = float(rng.uniform(0, 360))
        half = tile / 2 * (abs(math.cos(math.radians(ang))) + abs(math.sin(math.radians(ang))))
        j = max(0.0, cell / 2 - half - 0.3)
        cx = c * cell + cell / 2 + rng.uniform(-j, j)
        cy = r * cell + cell / 2 + rng.uniform(-j, j)
        label = backs[i] if rng.random() < p_back else "frog"
        pieces.append(make(label, "arena", cx, cy, ang))
    outer = WALL_MM + TOWER_MM * 0.6
    placed = []
    for i in range(len(backs) - n_out, len(backs)):
        for _ in range(50):
            side = int(rng.integers(4))
            along = rng.uniform(-outer, ARENA_MM + outer)
            away = rng.uniform(outer + tile, outer + tile + 90)
            cx, cy = [(along, -away), (ARENA_MM + away, along), (along, ARENA_MM + away),
                      (-away, along)][side]
            ang = float(rng.uniform(0, 360))
            poly = rect_corners(cx, cy, tile, tile, ang)
            if not any(polygons_overlap(poly, q, 3.0) for q in placed):
                placed.append(poly)
                label = backs[i] if rng.random() < 0.7 else "frog"
                pieces.append(make(label, "outside", cx, cy, ang))
                break
    first_wall = int(rng.integers(4))  # world side carrying the yellow coat of arms
    arena = np.array([[0, 0], [ARENA_MM, 0], [ARENA_MM, ARENA_MM], [0, ARENA_MM]], float)
    area = np.roll(arena, -first_wall, axis=0)  # clockwise from the yellow wall's left corner
    box = np.array([[-outer, -outer], [ARENA_MM + outer, -outer],
                    [ARENA_MM + outer, ARENA_MM + outer], [-outer, ARENA_MM + outer]])
    return Layout(
        area=area, frame=arena, content=box, pieces=pieces,
        area_art=lambda ppm: castle(ppm, rng_art(rng), style, first_wall, ARENA_MM, WALL_MM,
                                    TOWER_MM),
        facts=facts, table="any",
        keepout=[(ARENA_MM / 2, ARENA_MM / 2, ARENA_MM * 0.75)],
    )


def rng_art(rng: np.random.Generator) -> np.random.Generator:
    return np.random.default_rng(int(rng.integers(1 << 31)))


def _art(sw, sh, rng, style, label):
    return simsala_tile(sw, sh, rng, style, label)


def facts(pieces: list[Piece], centres, names) -> dict:
    """Contract facts: {"arena": {label: n}, "outside": {label: n}} (labels present only)."""
    out = {"arena": Counter(), "outside": Counter()}
    for p in pieces:
        out[p.zone][p.label] += 1
    return {z: {k: c[k] for k in SIMSALA_LABELS if c[k]} for z, c in out.items()}
