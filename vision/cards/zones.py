"""Der Troetofanten-Zirkus: which table side (player zone) or the middle each card lies in.

There is no play area, so zones come from the cards themselves:
1. the table's rotation in the image: the circular mean of the face-up cards' angles
   modulo 90 degrees; each side's own direction: its face-up cards' mean angle where it
   has 3 or more (a tilted camera's perspective turns each side's row its own way);
2. a face-up card's side from its orientation: its top points away from its player (top
   up in the image: `south`; right: `west`; down: `north`; left: `east`);
3. along each side's outward axis, the side is seated where its own face-up cards are
   the outermost; a card belongs to a side when it lies within `side_gap` card heights
   of that outermost position, else to the middle. A side without a player opposite must
   lie well out from the middle of the sides across it (the training animals in the
   middle all face one way too); so must a side opposite a seated one that lies near
   its opposite row (the animals may face a side with no player opposite a player).
   Face-down cards (orientation only up to a half turn) take
   a seated side they line up with, else the middle.
Pure numpy on `CardPiece` records; angles in degrees, image pixels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.cards.pieces import CardPiece

SIDES = ("south", "west", "north", "east")  # side k: the card's u axis at k * 90 degrees


@dataclass(frozen=True)
class ZoneSettings:
    side_gap: float = 0.8  # a card within this many card heights of the table's outermost
    #                         card on its side's outward axis belongs to that side
    back_gap: float = 0.6  # the same for face-down cards (the middle's backs lie closer)
    axis_tol: float = 35.0  # degrees: a face-down card lines up with a side's cards
    second_tol: float = 55.0  # degrees: a face-up card may belong to its second-nearest side
    row_reach: float = 1.5  # card widths: a face-down card at a seated side's depth whose
    #   angle lines up with no side (a back's is read least surely) is that side's when it
    #   lies within this of one of the side's face-up cards along the row (a row's
    #   cards lie a card width and a gap apart at most)
    axis_cards: int = 3  # face-up cards a side needs to take its own direction
    centre_gap: float = 0.8  # card heights: a side whose opposite side has no player lies at
    #   least this far out from the middle of the sides across it (a player's piles lie in
    #   front of them, the training animals in the middle of the table)
    pair_gap: float = 1.2  # card heights: the same where the opposite side is seated too:
    #   the training animals face one way, so they seated a side of their own opposite a
    #   player (fresh e2-2750 0011: 1.08 out, e2-2751 0001: 0.43); a player's row lies
    #   2-3 card heights out (the generator's 225 mm), but from the middle of one short
    #   row across it as little as 0.69 (fresh e1-2790 0005), so also:
    pair_span: float = 4.0  # card heights: ... and the two opposite sides lie less than this
    #   apart (the ring's side and its opposite: 2.9, 3.1; two players' rows across the
    #   generator's table 4.9, e1-2790 0005 5.3)
    outer_back: float = 0.6  # a face-down card read this surely or less (found by its shape
    #   or colour alone, no classifier: `ReadSettings.design_confidence`) marks no side's
    #   outermost card (an object on the table beyond a row can pass for one). It follows
    #   `ReadSettings.design_confidence` (at least it) and stays under
    #   `ReadSettings.back_min_confidence` (the classifier's backs mark it): change them
    #   together (tests/vision/test_cards.py::test_outer_back_follows_the_read_settings)
    outer_up: float = 0.6  # a face-up card read less surely than this (warned about as
    #   unsure: `ReadSettings.low_confidence`) marks no side's outermost card either (a
    #   card's other corner or a drawing read as a card beyond a row unseated the side)


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


def _angle_to_side(angle: float, axis: float, half_turn: bool = False) -> float:
    """Degrees between a card's u axis (`angle`) and a side's cards' u axis (`axis`), up to a
    half turn with `half_turn`."""
    d = angle - axis
    if half_turn:
        return abs((d + 90) % 180 - 90)
    return abs((d + 180) % 360 - 180)


def side_axes(pieces: list[CardPiece], rotation: float, up: list[int],
              s: ZoneSettings = ZONES) -> dict[str, float]:
    """Each side's card direction (degrees, its cards' u axis): the circular mean of the angles
    of the face-up cards facing that side (within 45 degrees) where it has `axis_cards` of
    them (one card's angle is off by up to 10-15 degrees), else the table's. A tilted
    camera's perspective turns each side's row by its own few degrees (up to 10-15 apart),
    so depths measured along one direction for all four sides put a long row's far end a
    card height inside its near end."""
    axes = {}
    for k, name in enumerate(SIDES):
        base = rotation + 90.0 * k
        # (the angle less the rotation first, then the side's quarter turns: as the zones
        #  were first measured)
        own = [pieces[i].angle for i in up
               if _angle_to_side(pieces[i].angle - rotation, k * 90.0) < 45.0]
        if len(own) >= s.axis_cards:
            z = np.exp(1j * np.deg2rad(np.asarray(own, float) - base)).mean()
            base += float(np.degrees(np.angle(z)))
        axes[name] = base
    return axes


def _outward(angle: float) -> np.ndarray:
    """Unit vector from the table centre out to the side whose cards' u axis is `angle`
    degrees: the cards' v axis (their tops point away from their player)."""
    t = np.deg2rad(angle)
    return np.array([-np.sin(t), np.cos(t)])


OPPOSITE = {"south": "north", "north": "south", "west": "east", "east": "west"}


def assign_zones(pieces: list[CardPiece], s: ZoneSettings = ZONES) -> tuple[list[str], list[str]]:
    """Zone name per piece (same order) and warnings.

    Along each side's outward axis (its own cards' direction, `side_axes`), that side's
    outermost card position marks where its cards lie; a card is a side's when its
    orientation matches the side (face-down: up to a half turn) and it lies within
    `side_gap` card heights of that outermost position, else it is in the middle. A side
    whose opposite side is not seated must lie `centre_gap` card heights out from the
    centre of the sides across it: the middle's training animals all face one way too; a side
    whose opposite side is seated must lie `pair_gap` out, or `pair_span` from its opposite."""
    warnings: list[str] = []
    if not pieces:
        return [], warnings
    up = [i for i, p in enumerate(pieces) if p.label != "back"]
    rot = table_rotation(np.array([pieces[i].angle for i in up] if up else
                                  [p.angle for p in pieces]))
    axes = side_axes(pieces, rot, up, s)
    centres = np.array([p.center for p in pieces])
    depth = {name: centres @ _outward(axes[name]) for name in SIDES}  # (N,) per side
    heights = np.array([max(p.width, 1.0) * (91.0 / 59.0) for p in pieces])
    # the table's outermost card on each side's axis: face-up cards, and face-down ones
    # lined up with that side (a back turned otherwise beyond a row is no card of its
    # player's: an object on the table read as a back, or the ring's edge)
    outer = {}
    for name in SIDES:
        on = [i for i, p in enumerate(pieces)
              if (p.label != "back" and p.confidence >= s.outer_up)
              or (p.label == "back" and _angle_to_side(p.angle, axes[name], True) <= s.axis_tol
                  and p.confidence > s.outer_back)]
        outer[name] = float(np.max(depth[name][on])) if on else float(np.max(depth[name]))
    # A side's own outermost face-up card, when it is (nearly) the table's outermost one
    # there: the side's cards lie at that depth. Otherwise the side has no player.
    seated = set()
    own_of = {name: [i for i in up if _angle_to_side(pieces[i].angle, axes[name]) < 45.0]
              for name in SIDES}
    for name in SIDES:
        own = own_of[name]
        if own:
            j = max(own, key=lambda i: float(depth[name][i]))
            if (outer[name] - float(depth[name][j])) / heights[j] <= s.side_gap:
                outer[name] = float(depth[name][j])
                seated.add(name)
    ring = set()  # sides whose cards lie in the middle of the sides across them: the ring's

    def out_from_middle(name: str, paired: bool) -> float:
        """How far (card heights) a side's outermost card lies out from the middle of the
        seated sides across it; inf where none is seated across, or where its opposite side
        is seated (`paired` False) or not (`paired` True)."""
        across = [n for n in SIDES if n in seated and n not in (name, OPPOSITE[name])]
        if (OPPOSITE[name] in seated) != paired or not across:
            return float("inf")
        mids = [float(np.mean([depth[name][i] for i in own_of[n]])) for n in across]
        h = float(np.median(heights[own_of[name]]))
        if paired:  # the two opposite sides' rows lie too far apart for a ring between them
            span = outer[name] - float(np.mean(depth[name][own_of[OPPOSITE[name]]]))
            if span / h >= s.pair_span:
                return float("inf")
        return (outer[name] - float(np.mean(mids))) / h

    # A lone side at the middle of the sides across it: no player; then a side at the middle
    # though its opposite side is seated (the training animals face one way, and a player
    # may sit across from the way they face): nearer the middle, under `pair_gap`, and less
    # than `pair_span` from its opposite side. The one nearest the middle first, each time
    # (a side unseated changes the others' middles: the order once came from a set's hash
    # order, so a photo's zones changed from run to run); the lone sides first (a lone
    # side's stray card, unseated there, is no side across).
    for paired, bar in ((False, s.centre_gap), (True, s.pair_gap)):
        while seated:
            gaps = {name: out_from_middle(name, paired) for name in SIDES if name in seated}
            name = min(gaps, key=lambda n: (gaps[n], SIDES.index(n)))
            if not gaps[name] < bar:
                break
            seated.discard(name)
            ring.add(name)

    def gap(i: int, name: str) -> float:
        return (outer[name] - float(depth[name][i])) / heights[i]

    def in_row(i: int, name: str) -> bool:
        """Whether piece `i` lies beside one of `name`'s face-up cards along that side's row
        (within `row_reach` of that card's widths)."""
        t = np.deg2rad(axes[name])
        u = np.array([np.cos(t), np.sin(t)])
        return any(abs(float((centres[i] - centres[j]) @ u)) <= s.row_reach * pieces[j].width
                   for j in own_of[name])

    zones: list[str] = []
    for i, p in enumerate(pieces):
        back = p.label == "back"
        tol = s.axis_tol if back else s.second_tol
        cands = sorted((_angle_to_side(p.angle, axes[name], back), name) for name in SIDES)
        limit = s.back_gap if back else s.side_gap
        zone = "middle"
        for k, (diff, name) in enumerate(cands):
            if k > 0 and diff > tol:
                break
            if name in ring or back and (diff > tol or name not in seated):
                continue
            if gap(i, name) <= limit:
                zone = name
                break
        if back and zone == "middle":  # turned wrongly, but in a seated side's row
            rows = [(gap(i, n), n) for n in seated if gap(i, n) <= limit and
                    in_row(i, n)]
            zone = min(rows)[1] if rows else zone
        zones.append(zone)
    found = {z for z in zones if z != "middle"}
    if not any(OPPOSITE[z] in found for z in found):
        warnings.append("no two opposite players' cards found: the zones may be wrong")
    return zones, warnings
