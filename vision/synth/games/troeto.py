"""Der Troetofanten-Zirkus at scoring: each player's piles spread out in front of them (cards
overlap like a fanned hand, every top-left corner index visible), face-down cards among them,
the training ring's cards in the middle of the table."""

from __future__ import annotations

import math
from collections import Counter
from functools import partial

import numpy as np

from scoring.labels import TROETO_COUNTS, TROETO_LABELS
from vision.synth.art import Style, troeto_card
from vision.synth.scene import Layout, Piece

CARD_MM = (59.0, 91.0)
TABLE_MM = 640.0  # the virtual square whose sides the players sit at
SIDE_DEPTH_MM = 95.0  # from the square's edge to the middle of a player's cards
CARD_ANGLE = {0: 180.0, 1: 270.0, 2: 0.0, 3: 90.0}  # card top away from its player


def _deck(rng: np.random.Generator) -> list[str]:
    deck = [lab for lab, n in TROETO_COUNTS.items() for _ in range(n)]
    rng.shuffle(deck)
    return deck


def layout(rng: np.random.Generator, style: Style) -> Layout:
    deck = _deck(rng)
    n_players = int(rng.integers(2, 5))
    first = int(rng.integers(4))
    seats = sorted({(first + k * (2 if n_players == 2 else 1)) % 4 for k in range(n_players)})
    pieces: list[Piece] = []
    c = TABLE_MM / 2
    z = 0

    def card(label, zone, x, y, ang):
        nonlocal z
        z += 1
        return Piece(label, zone, (float(x), float(y)), CARD_MM,
                     partial(_card, style=style, label=label), int(rng.integers(1 << 31)),
                     angle=float(ang), height=0.4, kind="card", z=z)

    for seat in seats:
        n_cards = int(rng.integers(2, 9))
        # Spread along the player's side: runs of overlapping cards (piles fanned out).
        base_ang = CARD_ANGLE[seat] + rng.uniform(-8, 8)
        along = rng.uniform(-150, -60)
        step_over = rng.uniform(18, 26)  # overlap step: the corner index stays visible
        local = []
        for _ in range(n_cards):
            label = deck.pop() if rng.random() > 0.15 else "back"
            local.append((label, along, rng.uniform(-4, 4)))
            along += step_over if rng.random() < 0.6 else CARD_MM[0] + rng.uniform(6, 15)
            if along > 170:
                break
        edge, inward, right = _seat_frame(seat)
        for label, a, d in local:
            x, y = edge + inward * (SIDE_DEPTH_MM + d) + right * a
            pieces.append(card(label, f"side:{seat}", x, y, base_ang + rng.uniform(-3, 3)))
    # The training ring: up to 3 animals face up in the middle, maybe some ring cards left.
    for i in range(int(rng.integers(0, 4))):
        lab = next((x for x in deck if x.startswith(("elephant", "tootophant"))), None)
        if lab is None:
            break
        deck.remove(lab)
        pieces.append(card(lab, "middle", c + (i - 1) * 72 + rng.uniform(-5, 5),
                           c + rng.uniform(-8, 8), rng.uniform(-12, 12)))
    for _ in range(int(rng.integers(0, 3))):
        a = rng.uniform(0, 2 * math.pi)
        pieces.append(card("back", "middle", c + 150 * math.cos(a), c + 120 * math.sin(a),
                           math.degrees(a) + 90))
    frame = np.array([[0, 0], [TABLE_MM, 0], [TABLE_MM, TABLE_MM], [0, TABLE_MM]], float)
    return Layout(
        area=None, frame=frame, content=np.array([[c - 60, c - 60], [c + 60, c + 60]]),
        pieces=pieces, area_art=None, facts=facts, table="any", side_zones=True,
    )


def _seat_frame(seat: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """World (edge middle, unit vector to the centre, unit vector to the seated player's right)
    of side `seat` (0 north, 1 east, 2 south, 3 west)."""
    t, c = TABLE_MM, TABLE_MM / 2
    edge = [(c, 0), (t, c), (c, t), (0, c)][seat]
    inward = [(0, 1), (-1, 0), (0, -1), (1, 0)][seat]
    right = [(-1, 0), (0, -1), (1, 0), (0, 1)][seat]
    return np.array(edge, float), np.array(inward, float), np.array(right, float)


def _card(sw, sh, rng, style, label):
    return troeto_card(sw, sh, rng, style, label)


def facts(pieces: list[Piece], centres, names) -> dict:
    """Contract facts: {"zones": {zone: {label: n}}} (zones with cards)."""
    zones: dict[str, Counter] = {}
    for p in pieces:
        zones.setdefault(p.zone, Counter())[p.label] += 1
    return {"zones": {z: {k: c[k] for k in TROETO_LABELS if c[k]} for z, c in zones.items()}}
