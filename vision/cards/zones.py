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
    middle_ratio: float = 0.8  # depth / side group's depth below this: middle
    back_axis_tol: float = 35.0  # degrees: a face-down card lines up with a side's axis


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


def assign_zones(pieces: list[CardPiece], s: ZoneSettings = ZONES) -> tuple[list[str], list[str]]:
    """Zone name per piece (same order) and warnings."""
    warnings: list[str] = []
    if not pieces:
        return [], warnings
    up = [i for i, p in enumerate(pieces) if p.label != "back"]
    rot = table_rotation(np.array([pieces[i].angle for i in up] if up else
                                  [p.angle for p in pieces]))
    t = np.deg2rad(-rot)
    R = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    pts = np.array([R @ p.center for p in pieces])  # table-aligned frame
    side = {i: side_of_angle(pieces[i].angle, rot) for i in up}
    # Group depth: each side's median coordinate along its outward axis (provisional groups:
    # the face-up cards of that orientation in the outer half of their spread).
    depth_of: dict[str, float] = {}
    for name in SIDES:
        o = np.array(OUTWARD[name])
        members = [i for i in up if side[i] == name]
        if members:
            dv = pts[members] @ o
            depth_of[name] = float(np.max(dv))  # the group's outermost position
    centre = np.median(pts, axis=0)
    for axis, (a, b) in ((0, ("east", "west")), (1, ("south", "north"))):
        if a in depth_of and b in depth_of:
            # along the axis: east/south positive, west/north negative
            centre[axis] = (depth_of[a] - depth_of[b]) / 2
    half = [depth_of[a] + depth_of[b] for a, b in (("east", "west"), ("south", "north"))
            if a in depth_of and b in depth_of]
    half_size = float(np.mean(half)) / 2 if half else None
    rel: dict[str, float] = {}
    for name, dv in depth_of.items():
        o = np.array(OUTWARD[name])
        rel[name] = dv - float(centre @ o)
    if half_size is None:
        warnings.append("no two opposite players' cards found: zones are a guess")
        half_size = max(rel.values()) if rel else 1.0
    zones: list[str] = []
    for i, p in enumerate(pieces):
        q = pts[i] - centre
        if i in side:
            name = side[i]
            ref = rel.get(name, half_size)
            ratio = float(q @ np.array(OUTWARD[name])) / max(ref, 1e-6)
            zones.append(name if ratio >= s.middle_ratio else "middle")
            continue
        best, best_ratio = "middle", -np.inf
        for name in SIDES:
            a = np.deg2rad(SIDES.index(name) * 90.0 + rot)
            diff = abs(((p.angle - np.degrees(a)) + 90) % 180 - 90)  # axis, up to a half turn
            if diff > s.back_axis_tol:
                continue
            ref = rel.get(name, half_size)
            ratio = float(q @ np.array(OUTWARD[name])) / max(ref, 1e-6)
            if ratio > best_ratio:
                best, best_ratio = name, ratio
        zones.append(best if best_ratio >= s.middle_ratio else "middle")
    return zones, warnings
