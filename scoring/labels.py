"""Labels, zones and piece counts fixed by ../shared/pieces.md and the rulebooks."""

from __future__ import annotations

PLAYER_COLOURS_SIMSALA = ("yellow", "orange", "blue", "violet")

SIMSALA_LABELS = (
    "frog", "rabbit-white", "rabbit-yellow", "rabbit-orange", "rabbit-blue", "rabbit-violet", "cat",
)
SIMSALA_ZONES = ("arena", "outside")
# How many of each tile exist (15 in all).
SIMSALA_COUNTS = {
    "frog": 15,  # every tile shows a frog on its front
    "rabbit-white": 5, "rabbit-yellow": 2, "rabbit-orange": 2, "rabbit-blue": 2,
    "rabbit-violet": 2, "cat": 2,
}
SIMSALA_TILES = 15

MAGIC_RABBIT_LABELS = (
    tuple(f"hat-{n}" for n in range(1, 10))
    + tuple(f"rabbit-{n}" for n in range(1, 10))
    + ("magician", "dove")
)
MAGIC_RABBIT_COLOURS = {
    1: "red", 2: "orange", 3: "yellow", 4: "light green", 5: "dark green",
    6: "light blue", 7: "dark blue", 8: "purple", 9: "pink",
}

MARBLE_COLOURS = ("yellow", "red", "green", "lightblue", "darkblue")
MARBLE_LABELS = tuple(f"marble-{c}" for c in MARBLE_COLOURS)
MARBLES_PER_COLOUR = 4
CARD_LABELS_HOP = ("card-green", "card-blue", "card-red", "card-back")
HOP_LABELS = MARBLE_LABELS + CARD_LABELS_HOP
SIDE_ZONES = ("north", "east", "south", "west")
HOP_ZONES = SIDE_ZONES + ("middle",)

PAWN_COLOURS = ("red", "yellow", "green", "black")
PAWN_LABELS = tuple(f"pawn-{c}" for c in PAWN_COLOURS)
PAWNS_PER_COLOUR = 4
DICE_LABELS = tuple(f"die-{n}" for n in range(1, 7))
MAUER_LABELS = PAWN_LABELS + DICE_LABELS

TROETO_LABELS = (
    tuple(f"elephant-{n}" for n in range(1, 6))
    + tuple(f"tootophant-{n}" for n in range(2, 6))
    + ("mouse", "mousetrap", "lasso", "tamer", "back")
)
TROETO_ZONES = SIDE_ZONES + ("middle",)
# Cards in one box, per label (pieces.md); backs can be any card.
TROETO_COUNTS = {
    "elephant-1": 16, "elephant-2": 12, "elephant-3": 12, "elephant-4": 12, "elephant-5": 12,
    "tootophant-2": 5, "tootophant-3": 5, "tootophant-4": 5, "tootophant-5": 5,
    "mouse": 3, "mousetrap": 1, "lasso": 6, "tamer": 5,
}
TROETO_TOTAL_CARDS = sum(TROETO_COUNTS.values())

LABELS = {
    "simsala-hopp": SIMSALA_LABELS,
    "magic-rabbit": MAGIC_RABBIT_LABELS,
    "hop-la-bille": HOP_LABELS,
    "mauerhuepfer": MAUER_LABELS,
    "troetofanten": TROETO_LABELS,
}
