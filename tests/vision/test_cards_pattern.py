"""Troetofanten readings on a busy table (session 25, troeto-busy): a face-up reading under
`pattern_sure` whose frame shows the table's print going on through it is no card
(`read.pattern_readings`), on a busy look only; cards, sure readings and backs stay; a
back found by its shape alone far off every other reading is none (`lone_shape_backs`)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.cards.pieces import CardPiece
from vision.cards.read import READ, card_frame, lone_shape_backs, pattern_readings

W, ASPECT = 70.0, 1.45  # a card's width (px) and height / width


def _cloth(rng, base, shape=(720, 960)) -> np.ndarray:
    """A flowered cloth: `base` BGR, with discs of five saturated colours, 6-16 px, over
    about a third of it, lightly blurred."""
    img = np.zeros(shape + (3,), np.uint8)
    img[:] = base
    colours = [(40, 40, 220), (200, 60, 40), (30, 200, 230), (180, 40, 180), (250, 250, 250)]
    for _ in range(int(shape[0] * shape[1] / 400)):
        c = colours[rng.integers(len(colours))]
        x, y = int(rng.integers(shape[1])), int(rng.integers(shape[0]))
        cv2.circle(img, (x, y), int(rng.integers(3, 8)), c, -1)
    return cv2.GaussianBlur(img, (3, 3), 0)


def _card(img: np.ndarray, frame: np.ndarray, paper=(236, 240, 242)) -> None:
    """Draw a face-up card into `img`: paper, a dark outline, a grey animal, a corner
    number at the top-left."""
    q = np.round(frame).astype(np.int32)
    cv2.fillConvexPoly(img, q, paper)
    cv2.polylines(img, [q], True, (60, 60, 60), 1)
    c = frame.mean(axis=0)
    cv2.ellipse(img, (int(c[0]), int(c[1])), (int(W * 0.25), int(W * 0.18)), 0, 0, 360,
                (110, 110, 110), -1)
    k = frame[0] + 0.17 * (frame[1] - frame[0]) + 0.11 * (frame[3] - frame[0])
    cv2.putText(img, "3", (int(k[0]) - 4, int(k[1]) + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.45,
                (30, 30, 30), 2)


def _piece(label: str, conf: float, centre, angle: float = 0.0) -> CardPiece:
    frame = card_frame(np.asarray(centre, float), angle, W, ASPECT)
    return CardPiece(label, conf, frame[0].copy(), frame, angle, W)


def _scene(seed: int, base=(70, 140, 60)):
    """A cloth with three cards (one of them a row of two overlapping) and readings: the
    cards (0.95, 0.7, 0.6 under the next one) and five false ones on the print (0.4-0.85)."""
    rng = np.random.default_rng(seed)
    img = _cloth(rng, base)
    cards = [_piece("elephant-3", 0.95, (200, 200), 5.0),
             _piece("elephant-2", 0.7, (480, 220), -8.0),
             _piece("tootophant-4", 0.6, (700, 420)),
             _piece("elephant-4", 0.97, (700 + 0.3 * W, 420))]  # (a row: it lies on the 0.6)
    for p in cards:
        _card(img, p.frame)
    false = [_piece(lab, conf, xy, a) for lab, conf, xy, a in [
        ("tootophant-3", 0.4, (150, 560), 0.0), ("elephant-5", 0.55, (400, 600), 20.0),
        ("mouse", 0.85, (850, 150), -10.0), ("lasso", 0.5, (320, 420), 0.0),
        ("elephant-1", 0.62, (600, 80), 35.0)]]
    return img, cards, false


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("base", [(70, 140, 60), (215, 200, 235), (40, 40, 40)])
#   (a green cloth, a pale pink one, a near-black one)
def test_busy_look_drops_the_readings_on_the_print(seed, base):
    img, cards, false = _scene(seed, base)
    kept, n = pattern_readings(img, cards + false, True)
    assert n == len(false)
    assert [p.label for p in kept] == [p.label for p in cards]


@pytest.mark.parametrize("case, busy, change, want_dropped", [
    ("an ordinary look", False, None, 0),  # (not busy: nothing judged)
    ("switched off", True, {"pattern_alike": None}, 0),
    ("sure readings", True, {"pattern_sure": 0.3}, 0),  # (all at least 0.3: none judged)
    ("the bar at 1.0", True, {"pattern_alike": 1.0}, 0),  # (no histogram pair is equal)
    ("as set", True, {}, 5),
])
def test_what_is_judged(case, busy, change, want_dropped):
    img, cards, false = _scene(11)
    s = READ if change is None else replace(READ, **change)
    _, n = pattern_readings(img, cards + false, busy, s)
    assert n == want_dropped, case


def test_backs_are_not_judged():
    img, cards, false = _scene(5)
    backs = [replace(p, label="back") for p in false]
    kept, n = pattern_readings(img, cards + backs, True)
    assert n == 0 and len(kept) == len(cards) + len(backs)


@pytest.mark.parametrize("busy", [False, True])  # (a plain table's look is not busy; were
#   it judged, the cards' drawing and outline still part them from the table)
def test_white_cards_on_a_plain_white_table_stay(busy):
    rng = np.random.default_rng(3)
    img = np.full((720, 960, 3), 232, np.uint8)
    img = np.clip(img + rng.normal(0, 6, img.shape), 0, 255).astype(np.uint8)
    cards = [_piece("elephant-3", 0.7, (200, 200)), _piece("elephant-1", 0.8, (500, 300)),
             _piece("elephant-2", 0.95, (700, 500))]
    for p in cards:
        _card(img, p.frame)
    kept, n = pattern_readings(img, cards, busy)
    assert n == 0 and len(kept) == 3


def _back(conf: float, centre) -> CardPiece:
    return replace(_piece("back", conf, centre), label="back")


@pytest.mark.parametrize("case, busy, conf, at, dropped", [
    ("a shape-alone back far off every card", True, 0.6, (900, 650), 1),
    ("the same on an ordinary look", False, 0.6, (900, 650), 0),
    ("a back the classifier read", True, 0.95, (900, 650), 0),
    ("a shape-alone back in the row", True, 0.6, (200 + 1.1 * W, 200), 0),
    ("one 4.5 widths off (inside the 5)", True, 0.6, (200 + 4.5 * W, 200), 0),
    ("one 5.5 widths off", True, 0.6, (200 + 5.5 * W, 200), 1),
])
def test_lone_shape_backs(case, busy, conf, at, dropped):
    cards = [_piece("elephant-3", 0.95, (200, 200)), _piece("elephant-2", 0.7, (200, 320))]
    kept, n = lone_shape_backs(cards + [_back(conf, at)], busy)
    assert n == dropped, case
    assert len(kept) == 3 - dropped


def test_lone_shape_backs_need_another_reading():
    """Two shape-alone backs beside each other do not hold each other up; a sure back
    does."""
    two = [_back(0.6, (200, 200)), _back(0.6, (200 + W, 200))]
    assert lone_shape_backs(two, True)[1] == 2
    assert lone_shape_backs(two + [_back(0.9, (200, 320))], True)[1] == 0
