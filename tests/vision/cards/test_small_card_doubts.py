"""`read.small_card_doubts`: a small Troetofanten animal's number is warned about below
`small_number_doubt` (a larger one only below `number_doubt`), once per card, and its
reading is left as it is."""

from dataclasses import replace

import numpy as np
import pytest

from vision.cards.pieces import CardPiece
from vision.cards.read import READ, piece_warnings, small_card_doubts


def animal(label: str, share: float, width: float, at=(200.0, 150.0), faint: bool = False
           ) -> CardPiece:
    """An animal of `width` px centred at `at` whose number takes `share` of its kind."""
    kind, _, n = label.rpartition("-")
    other = "3" if n != "3" else "2"
    probs = {label: 0.95 * share, f"{kind}-{other}": 0.95 * (1 - share), "mouse": 0.05}
    c = np.asarray(at, float)
    h = width / 0.66
    frame = c + np.array([[-width, -h], [width, -h], [width, h], [-width, h]]) / 2
    return CardPiece(label, 0.95 * share, c.copy(), frame, 0.0, float(width), probs, faint)


@pytest.mark.parametrize("label,share,width,warned", [
    ("elephant-4", 0.85, 38.0, True),   # small and under 0.9: warned (H11's silent errors
    ("elephant-4", 0.85, 44.0, True),   #   were 0.82-0.86 on 30-44 px cards)
    ("elephant-4", 0.85, 46.0, False),  # as wide as `small_card`: `number_doubt` (0.8) only
    ("elephant-4", 0.85, 80.0, False),
    ("elephant-4", 0.93, 38.0, False),  # a small card's sure number is not
    ("elephant-1", 0.5, 30.0, True),
    ("mouse", 0.5, 30.0, False),        # no number on it
    ("back", 0.5, 30.0, False),
])
def test_small_card_share(label, share, width, warned):
    p = animal(label, share, width)
    got = small_card_doubts([p], [], READ)
    assert bool(got) == warned, got
    if warned:
        assert got[0].startswith(f"the {label.rpartition('-')[0]} at (200, 150): its corner "
                                 f"number is unclear")


@pytest.mark.parametrize("existing,more", [
    ([], 1),
    (["the elephant at (200, 150): its corner number is unclear, 4 or 3 (0.78 / 0.22)"], 0),
    (["the elephant at (201, 149): its corner number is too blurred to read"], 0),  # 1 px off
    (["unsure about the elephant-4 at (200, 150) (confidence 0.41)"], 0),  # by its label
    (["the elephant at (210, 150): its corner number is unclear"], 1),  # another card's
    (["the tootophant at (200, 150): its corner number is unclear"], 1),  # another kind's
    (["possibly an elephant at (200, 150), not counted"], 1),  # no "the <kind> at"
])
def test_one_warning_per_card(existing, more):
    got = small_card_doubts([animal("elephant-4", 0.85, 38.0)], existing, READ)
    assert len(got) == more, got


def test_faint_pieces_and_the_reading_are_left_alone():
    p = animal("elephant-4", 0.85, 38.0, faint=True)  # `piece_warnings` warns it always
    assert small_card_doubts([p], [], READ) == []
    q = animal("elephant-4", 0.85, 38.0)
    before = replace(q)
    small_card_doubts([q], [], READ)
    assert q.label == before.label and q.confidence == before.confidence


@pytest.mark.parametrize("seed", range(4))
def test_adds_only_what_piece_warnings_leaves_out(seed):
    """Random animals: every one under `small_card` with a share under
    `small_number_doubt` is named once by the two together; none else is added."""
    rng = np.random.default_rng(seed)
    pieces = [animal(f"elephant-{rng.integers(1, 6)}", float(rng.uniform(0.5, 1.0)),
                     float(rng.uniform(25, 90)), (float(60 * k + 40), float(rng.uniform(50, 900))))
              for k in range(20)]
    first = piece_warnings(pieces, "troetofanten", READ)
    more = small_card_doubts(pieces, first, READ)
    for p in pieces:
        x, y = p.center
        tag = f"the elephant at ({x:.0f}, {y:.0f})"
        n = sum(w.startswith(tag) for w in first + more)
        share = p.probs[p.label] / (p.probs[p.label] + sum(
            v for k, v in p.probs.items() if k.startswith("elephant-") and k != p.label))
        small = p.width < READ.small_card and share < READ.small_number_doubt
        assert n == (1 if small or share < READ.number_doubt else 0), (p.width, share, n)
