"""Magic Rabbit at the reveal: a line of hats, each rabbit laid just below (nearer the camera
than) its hat, the magician tile at one end, doves on some hats."""

from __future__ import annotations

from functools import partial

import numpy as np

from vision.synth.art import Style, dove_token, magic_tile
from vision.synth.scene import Layout, Piece

TILE_MM = 50.0
DOVE_MM = 25.0
LINE_SIZES = (9, 9, 9, 9, 9, 7, 6)  # young children's games remove 2 or 3 piles
DOVES = (2, 3, 4, 5)
LINE_FILL = (0.6, 0.95)  # people frame the line to fill the photo


def _line(rng: np.random.Generator, n: int) -> tuple[list[int], list[int | None], bool]:
    """Hat numbers and rabbit numbers along the line from the magician tile outward."""
    if rng.random() < 0.35:  # won
        hats = list(range(1, n + 1))
        rabbits: list[int | None] = list(hats)
    else:
        hats = list(range(1, n + 1))
        rabbits = list(hats)
        for _ in range(int(rng.integers(1, 4))):
            i, j = rng.choice(n, 2, replace=False)
            if rng.random() < 0.5:
                hats[i], hats[j] = hats[j], hats[i]  # switch two hats
            else:
                hats[i], hats[j] = hats[j], hats[i]  # switch two piles
                rabbits[i], rabbits[j] = rabbits[j], rabbits[i]
        if rng.random() < 0.15:
            rabbits[int(rng.integers(n))] = None  # a rabbit not yet revealed
    won = hats == sorted(hats) and all(r == h for r, h in zip(rabbits, hats, strict=True))
    return hats, rabbits, won


def layout(rng: np.random.Generator, style: Style) -> Layout:
    n = int(LINE_SIZES[rng.integers(len(LINE_SIZES))])
    hats, rabbits, won = _line(rng, n)
    doves = set(rng.choice(n, int(min(n, DOVES[rng.integers(len(DOVES))])), replace=False)
                .tolist()) if rng.random() < 0.85 else set()
    step = TILE_MM + rng.uniform(4, 15)
    drop = TILE_MM + rng.uniform(4, 20)
    magician_left = rng.random() < 0.5
    pieces: list[Piece] = []

    def tile(label, kind, num, x, y):
        return Piece(label, "line", (float(x), float(y)), (TILE_MM, TILE_MM),
                     partial(_tile, style=style, kind=kind, number=num),
                     int(rng.integers(1 << 31)), angle=float(rng.uniform(-8, 8)), height=1.5,
                     kind="tile")

    xs = []
    for i in range(n):
        k = i + 1
        x = (k if magician_left else n - 1 - i) * step + rng.uniform(-3, 3)
        xs.append(x)
        pieces.append(tile(f"hat-{hats[i]}", "hat", hats[i], x, rng.uniform(-3, 3)))
        if rabbits[i] is not None:
            pieces.append(tile(f"rabbit-{rabbits[i]}", "rabbit", rabbits[i],
                               x + rng.uniform(-4, 4), drop + rng.uniform(-3, 3)))
        if i in doves:
            pieces.append(Piece("dove", "line", (float(x + rng.uniform(-10, 10)),
                                                 float(rng.uniform(-14, -8))),
                                (DOVE_MM, DOVE_MM), partial(_dove, style=style),
                                int(rng.integers(1 << 31)), round=True, height=3.0,
                                kind="token", z=1, meta={"pile": i}))
    mx = 0.0 if magician_left else n * step
    pieces.append(tile("magician", "magician", 0, mx + rng.uniform(-3, 3), rng.uniform(-3, 30)))
    for p in pieces:
        if p.label.startswith("hat-") or p.label.startswith("rabbit-"):
            p.meta["pile"] = int(np.argmin([abs(p.center[0] - x) for x in xs]))
    x0, x1 = -TILE_MM, n * step + TILE_MM
    frame = np.array([[x0, -TILE_MM], [x1, -TILE_MM], [x1, drop + TILE_MM],
                      [x0, drop + TILE_MM]], float)
    line = [{"hat": hats[i], "rabbit": rabbits[i], "dove": i in doves} for i in range(n)]
    return Layout(
        area=None, frame=frame, content=frame, pieces=pieces, area_art=None,
        facts=lambda pieces, centres, names: {"line": line, "won": won},
        table="any", yaw_range=(-25.0, 25.0), fill=LINE_FILL,
    )


def _tile(sw, sh, rng, style, kind, number):
    return magic_tile(sw, sh, rng, style, kind, number)


def _dove(sw, sh, rng, style):
    return dove_token(sw, sh, rng, style)
