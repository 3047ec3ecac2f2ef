"""What a game's layout hands to the renderer: pieces in world millimetres, the play area,
the table, and the facts (which the renderer completes once the camera fixes the zones)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from vision.synth.geometry import rect_corners

# art(sw, sh, rng) -> (bgr (sh, sw, 3) uint8, alpha (sh, sw) uint8)
Art = Callable[[int, int, np.random.Generator], tuple[np.ndarray, np.ndarray]]


@dataclass
class Piece:
    """One labelled piece on the table.

    center: world mm; size: (w, h) mm of the footprint (round pieces: diameter, diameter);
    angle: degrees; round: True for marbles, doves, pawns (truth gets a radius, no polygon);
    height: mm above the table (shadow length, die side sliver); art: the sprite painter;
    seed: the piece's own art seed; zone: a zone name, or a world side index "side:k" (k = 0
    north, 1 east, 2 south, 3 west of the world) that the renderer renames after the camera.
    """

    label: str
    zone: str
    center: tuple[float, float]
    size: tuple[float, float]
    art: Art
    seed: int
    angle: float = 0.0
    round: bool = False
    height: float = 2.0
    kind: str = "tile"
    z: int = 0  # drawing order (higher on top)
    meta: dict = field(default_factory=dict)

    def corners(self) -> np.ndarray:
        """(4, 2) world corners, clockwise from the artwork's own top-left."""
        return rect_corners(self.center[0], self.center[1], self.size[0], self.size[1],
                            self.angle)


@dataclass
class Layout:
    """A game's table at the moment of scoring, in world mm.

    area: (4, 2) play-area corners clockwise from its own top-left (north-west) corner, or
    None; frame: (4, 2) corners of the play area used to size the camera when `area` is None;
    content: (N, 2) points that must be in frame; area_art: (px_per_mm) -> (bgr, alpha,
    (x0, y0, x1, y1) world rect) drawing the board/cloth/castle; facts: callable(pieces with
    final zones, image points of pieces) -> contract facts; side_zones: zones named after the
    image sides; yaw_range: camera yaw limits or None for any.
    """

    area: np.ndarray | None
    frame: np.ndarray
    content: np.ndarray
    pieces: list[Piece]
    area_art: Callable | None
    facts: Callable
    table: str = "wood"
    side_zones: bool = False
    yaw_range: tuple[float, float] | None = None
    keepout: list[tuple[float, float, float]] = field(default_factory=list)  # (x, y, r) mm
    fill: tuple[float, float] | None = None  # camera fill range override
    # Standing walls: {"line": [(x, y), ...] mm, "height": mm, "bgr": (b, g, r)}.
    walls: list[dict] = field(default_factory=list)
