"""Der Troetofanten-Zirkus: which table side (player zone) or the middle each card lies in.

There is no play area, so zones come from the cards themselves:
1. the table's rotation in the image: the circular mean of the face-up cards' angles
   modulo 90 degrees;
2. a face-up card's side from its orientation: its top points away from its player (top
   up in the image: `south`; right: `west`; down: `north`; left: `east`);
3. the table centre and half-size from the side groups (the players always include two
   opposite sides), then a card belongs to the middle when it lies well inside its side's
   group (depth from the centre below `middle_ratio` of the group's depth). Face-down cards
   (orientation only up to a half turn) take the side whose group they line up with, else
   the middle.
Pure numpy on `CardPiece` records; angles in degrees, image pixels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.cards.pieces import CardPiece

SIDES = ("south", "west", "north", "east")  # side k: the card's u axis at k * 90 degrees
# Outward unit vector (from the table centre to the side) in the table-aligned frame.
OUTWARD = {"south": (0.0, 1.0), "west": (-1.0, 0.0), "north": (0.0, -1.0), "east": (1.0, 0.0)}


@dataclass(frozen=True)
class ZoneSettings:
    side_gap: float = 0.8  # a card within this many card heights of the table's outermost
    #                         card on its side's outward axis belongs to that side
    back_gap: float = 0.6  # the same for face-down cards (the middle's backs lie closer)
    axis_tol: float = 35.0  # degrees: a face-down card lines up with a side's cards
    second_tol: float = 55.0  # degrees: a face-up card may belong to its second-nearest side


ZONES = ZoneSettings()


def table_rotation(angles_deg: np.ndarray) -> float:
    """The table's rotation in the image (degrees in (-45, 45]) from card angles."""
    if len(angles_deg) == 0:
        return 0.0
    z = np.exp(4j * np.deg2rad(np.asarray(angles_deg, float))).mean()
    return float(np.degrees(np.angle(z)) / 4)


def side_of_angle(angle: float, rotation: float) -> str:
    k = int(np.round((angle - rotation) / 90.0)) % 4
    return SIDES[k]


def _angle_to_side(angle: float, rotation: float, name: str, half_turn: bool = False) -> float:
    """Degrees between a card's u axis and the u axis of `name`'s cards."""
    d = angle - rotation - SIDES.index(name) * 90.0
    if half_turn:
        return abs((d + 90) % 180 - 90)
    return abs((d + 180) % 360 - 180)


def assign_zones(pieces: list[CardPiece], s: ZoneSettings = ZONES) -> tuple[list[str], list[str]]:
    """Zone name per piece (same order) and warnings.

    In the table-aligned frame, each side's outermost card position along its outward axis
    marks where that side's cards lie; a card is a side's when its orientation matches the
    side (face-down: up to a half turn) and it lies within `side_gap` card heights of that
    outermost position, else it is in the middle."""
    warnings: list[str] = []
    if not pieces:
        return [], warnings
    up = [i for i, p in enumerate(pieces) if p.label != "back"]
    rot = table_rotation(np.array([pieces[i].angle for i in up] if up else
                                  [p.angle for p in pieces]))
    t = np.deg2rad(-rot)
    R = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    pts = np.array([R @ p.center for p in pieces])  # table-aligned frame
    heights = np.array([max(p.width, 1.0) * (91.0 / 59.0) for p in pieces])
    outer = {name: float(np.max(pts @ np.array(OUTWARD[name]))) for name in SIDES}
    # A side's own outermost face-up card, when it is (nearly) the table's outermost one
    # there: the side's cards lie at that depth. Otherwise the side has no player.
    seated = set()
    for name in SIDES:
        own = [i for i in up if _angle_to_side(pieces[i].angle, rot, name) < 45.0]
        if own:
            o = np.array(OUTWARD[name])
            j = max(own, key=lambda i: float(pts[i] @ o))
            if (outer[name] - float(pts[j] @ o)) / heights[j] <= s.side_gap:
                outer[name] = float(pts[j] @ o)
                seated.add(name)

    def gap(i: int, name: str) -> float:
        return (outer[name] - float(pts[i] @ np.array(OUTWARD[name]))) / heights[i]

    zones: list[str] = []
    for i, p in enumerate(pieces):
        back = p.label == "back"
        tol = s.axis_tol if back else s.second_tol
        cands = sorted((_angle_to_side(p.angle, rot, name, back), name) for name in SIDES)
        limit = s.back_gap if back else s.side_gap
        zone = "middle"
        for k, (diff, name) in enumerate(cands):
            if k > 0 and diff > tol:
                break
            if back and (diff > tol or name not in seated):
                continue
            if gap(i, name) <= limit:
                zone = name
                break
        zones.append(zone)
    found = {z for z in zones if z != "middle"}
    if not any({a, b} <= found for a, b in (("north", "south"), ("east", "west"))):
        warnings.append("no two opposite players' cards found: the zones may be wrong")
    return zones, warnings
