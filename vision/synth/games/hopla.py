"""Hop la bille mid-game: 2-4 players seated at sides of the 600 mm cloth, their 5 marbles each
(one per colour, never touching) spread over the players' game areas (at least one each) and
the middle, each player's 3 cards (one per colour; "Not Time": one card each, all of one
colour) on the table just outside their side of the cloth, completed ones face down."""

from __future__ import annotations

from collections import Counter
from functools import partial

import numpy as np

from scoring.labels import MARBLE_COLOURS, MARBLE_LABELS
from vision.synth.art import Style, hop_card, marble
from vision.synth.scene import Layout, Piece
from vision.synth.tables import cloth

CLOTH_MM = 600.0
MARBLE_MM = 16.0
MARBLE_GAP_MM = 5.0  # marbles never touch
CARD_MM = (60.0, 90.0)
# Player game area for the world's north side (rotated for the others): x range, y range.
ZONE_ALONG = (150.0, 450.0)  # ends 150 mm from the corners: no marble in two zones
ZONE_DEPTH = (14.0, 150.0)
MIDDLE = (200.0, 400.0)
CARD_SIZES = {"green": 3, "blue": 4, "red": 5}
CARD_ANGLE = {0: 180.0, 1: 270.0, 2: 0.0, 3: 90.0}  # card top away from its player
NOT_TIME_P = 0.2  # share of "Not Time" games: one card each, all of one colour
FACE_DOWN_P = 0.3  # a card already completed and returned


def _to_side(side: int, along: float, depth: float) -> tuple[float, float]:
    """World point `depth` mm in from side `side` (0 N, 1 E, 2 S, 3 W), `along` it."""
    s = CLOTH_MM
    return [(along, depth), (s - depth, along), (s - along, s - depth), (depth, s - along)][side]


def combination(rng: np.random.Generator, n: int) -> tuple[str, ...]:
    """A card's marble combination: n marble labels (at most 2 of a colour), sorted."""
    while True:
        picks = rng.choice(len(MARBLE_COLOURS), size=n)
        if np.bincount(picks, minlength=5).max() <= 2:
            return tuple(MARBLE_LABELS[i] for i in sorted(picks))


def layout(rng: np.random.Generator, style: Style) -> Layout:
    n_players = int(rng.integers(2, 5))
    first = int(rng.integers(4))
    seats = sorted({(first + k * (2 if n_players == 2 else 1)) % 4 for k in range(n_players)})
    # Each player brought one marble of each colour: 5 per player are in play.
    pool = [lab for lab in MARBLE_LABELS for _ in range(n_players)]
    rng.shuffle(pool)
    pieces: list[Piece] = []
    cards_of: dict[int, list[tuple[str, tuple[str, ...]]]] = {}
    not_time = rng.random() < NOT_TIME_P  # one card each, all of the same colour
    one_colour = str(rng.choice(list(CARD_SIZES)))
    for seat in seats:
        hand = []
        colours = [one_colour] if not_time else [str(c) for c in rng.permutation(
            list(CARD_SIZES))]
        for colour in colours:
            combo = combination(rng, CARD_SIZES[colour])
            face_down = not not_time and rng.random() < FACE_DOWN_P  # completed, returned
            hand.append(("back" if face_down else colour, () if face_down else combo))
        cards_of[seat] = hand
    # Marbles per player area (at least one each); sometimes exactly a card's combination.
    assign: dict[str, list[str]] = {}
    for seat in seats:
        up = [c for c in cards_of[seat] if c[0] != "back"]
        got: list[str] = []
        if up and rng.random() < 0.4:
            for lab in up[int(rng.integers(len(up)))][1]:
                if lab in pool:
                    pool.remove(lab)
                    got.append(lab)
        if not got:
            k = int(rng.integers(1, 8))
            got, pool = pool[:k], pool[k:]
        if not got:  # the pool ran dry: borrow one from a neighbour's area
            donor = next(z for z, v in assign.items() if len(v) > 1)
            got = [assign[donor].pop()]
        assign[f"side:{seat}"] = got
    assign["middle"] = pool
    placed: list[tuple[float, float]] = []
    min_d = MARBLE_MM + MARBLE_GAP_MM
    for zone, labels in assign.items():
        for lab in labels:
            for _ in range(60):
                if zone == "middle":
                    x, y = rng.uniform(*MIDDLE, 2)
                else:
                    x, y = _to_side(int(zone[5:]), rng.uniform(*ZONE_ALONG),
                                    rng.uniform(*ZONE_DEPTH))
                if all((x - a) ** 2 + (y - b) ** 2 >= min_d**2 for a, b in placed):
                    placed.append((x, y))
                    pieces.append(Piece(
                        lab, zone, (float(x), float(y)), (MARBLE_MM, MARBLE_MM),
                        partial(_marble, style=style, colour=lab.split("-", 1)[1]),
                        int(rng.integers(1 << 31)), round=True, height=7.0, kind="marble", z=2))
                    break
    # Cards: a row just outside the player's side.
    for seat, hand in cards_of.items():
        gap = rng.uniform(68, 85)
        start = CLOTH_MM / 2 - gap * (len(hand) - 1) / 2 + rng.uniform(-60, 60)
        depth = -(CARD_MM[1] / 2 + rng.uniform(8, 30))
        for i, (colour, combo) in enumerate(hand):
            x, y = _to_side(seat, start + i * gap + rng.uniform(-4, 4), depth)
            label = f"card-{colour}"
            pieces.append(Piece(
                label, f"side:{seat}", (float(x), float(y)), CARD_MM,
                partial(_card, style=style, colour=colour, marbles=combo),
                int(rng.integers(1 << 31)), angle=float(CARD_ANGLE[seat] + rng.uniform(-12, 12)),
                height=0.5, kind="card", z=1, meta={"colour": colour, "marbles": list(combo)}))
    s = CLOTH_MM
    area = np.array([[0, 0], [s, 0], [s, s], [0, s]], float)
    reach = CARD_MM[1] + 40
    content = np.array([[-reach, -reach], [s + reach, -reach], [s + reach, s + reach],
                        [-reach, s + reach]]) if len(seats) == 4 else area
    art_seed = int(rng.integers(1 << 31))
    return Layout(
        area=area, frame=area, content=content, pieces=pieces,
        area_art=lambda ppm: cloth(ppm, np.random.default_rng(art_seed), style, CLOTH_MM),
        facts=facts, table="any", side_zones=True,
        keepout=[(s / 2, s / 2, s * 0.8)],
    )


def _marble(sw, sh, rng, style, colour):
    return marble(sw, sh, rng, style, colour, style.light)


def _card(sw, sh, rng, style, colour, marbles):
    return hop_card(sw, sh, rng, style, colour, marbles)


# Unit vector in the image pointing to the seated player's right, by zone.
RIGHT = {"south": (1, 0), "north": (-1, 0), "east": (0, -1), "west": (0, 1)}


def card_order(zone: str, centres: list) -> list[int]:
    """Indices of a zone's cards from the seated player's left to right (image coordinates)."""
    rx, ry = RIGHT[zone]
    return sorted(range(len(centres)), key=lambda i: centres[i][0] * rx + centres[i][1] * ry)


def facts(pieces: list[Piece], centres, names) -> dict:
    """Contract facts: zones {zone: {marble label: n}} (zones with marbles) and cards
    {zone: [{"colour", "marbles"}]} listed from the seated player's left to right."""
    zones: dict[str, Counter] = {}
    cards: dict[str, list[Piece]] = {}
    for p in pieces:
        if p.kind == "marble":
            zones.setdefault(p.zone, Counter())[p.label] += 1
        else:
            cards.setdefault(p.zone, []).append(p)
    out_cards = {}
    for zone, ps in cards.items():
        order = card_order(zone, [centres[id(p)] for p in ps])
        out_cards[zone] = [{"colour": ps[i].meta["colour"], "marbles": ps[i].meta["marbles"]}
                           for i in order]
    return {
        "zones": {z: {k: c[k] for k in MARBLE_LABELS if c[k]} for z, c in zones.items()},
        "cards": out_cards,
    }
