"""A tile's square outline (`vision.segment.square_outline`, `outlined`) and its use where
more pieces are seen than the game has (`vision.pipeline.beyond_counts`' `drawn`): a printed
table's flowers and dots read as tiles draw no straight side."""

import cv2
import numpy as np
import pytest

from vision.area import PlayArea
from vision.detections import Detections
from vision.pipeline import AREA_SETTINGS, TILE_SETTINGS, beyond_counts
from vision.segment import Candidates, outlined, square, square_outline

N = 200  # the test image's side (plane = image pixels)
SIDE = 40.0


def _area() -> PlayArea:
    corners = np.float64([[0, 0], [N - 1, 0], [N - 1, N - 1], [0, N - 1]])
    return PlayArea(corners, np.eye(3), np.eye(3), AREA_SETTINGS["simsala-hopp"])


def _cand(side: float, angle: float) -> Candidates:
    c = np.float64([[N / 2, N / 2]])
    return Candidates(c, np.float64([side]), np.float64([angle]), (square(c[0], side, angle),))


def _table(bg, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = np.full((N, N, 3), bg, np.float32) + rng.normal(0, 4, (N, N, 3))
    return img


def _tile(img, colour, angle: float, edge=None) -> np.ndarray:
    """A tile of SIDE turned by `angle`, with a soft shadow, a darker rim (`edge`) and a
    drawing inside."""
    corners = square(np.float64([N / 2, N / 2]), SIDE, angle)
    shadow = np.zeros((N, N), np.float32)
    cv2.fillConvexPoly(shadow, np.int32(np.round(corners + 3)), 1.0)
    img *= 1 - 0.35 * cv2.GaussianBlur(shadow, (0, 0), 2)[..., None]
    cv2.fillConvexPoly(img, np.int32(np.round(corners)), colour, lineType=cv2.LINE_AA)
    if edge is not None:
        cv2.polylines(img, [np.int32(np.round(corners))], True, edge, 1, cv2.LINE_AA)
    cv2.circle(img, (N // 2, N // 2), 7, (40, 40, 40), 2, cv2.LINE_AA)  # the drawing
    return img


def _flower(img, colours, r: float) -> np.ndarray:
    """Five round petals about a disc, about a tile across (a printed cloth's motif)."""
    for k in range(5):
        a = 2 * np.pi * k / 5
        c = (int(N / 2 + r * np.cos(a)), int(N / 2 + r * np.sin(a)))
        cv2.circle(img, c, int(r * 0.75), colours[0], -1, cv2.LINE_AA)
    cv2.circle(img, (N // 2, N // 2), int(r * 0.5), colours[1], -1, cv2.LINE_AA)
    return img


def _photo(img) -> np.ndarray:
    return np.clip(cv2.GaussianBlur(img, (0, 0), 0.8), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("bg, colour, edge, angle, side_err, seed", [
    ((160, 160, 160), (60, 170, 60), None, 0.0, 1.0, 0),  # a frog on a grey table
    ((40, 40, 40), (40, 200, 230), None, 17.0, 1.1, 1),  # a yellow rabbit on black, turned
    ((200, 120, 60), (230, 230, 235), None, -31.0, 0.9, 2),  # white on blue, side short
    ((235, 235, 235), (245, 245, 245), (150, 150, 150), 8.0, 1.05, 3),  # white on white: rim
    ((120, 40, 140), (170, 100, 60), None, 44.0, 1.15, 4),  # blue on violet, side long
])
def test_a_tile_is_outlined(bg, colour, edge, angle, side_err, seed):
    img = _photo(_tile(_table(bg, seed), colour, angle, edge))
    cand = _cand(SIDE * side_err, angle + 2.0)  # (a blob's estimate of side and angle)
    shares = square_outline(img, _area(), cand, TILE_SETTINGS)
    assert shares.shape == (1, 4)
    assert shares[0].mean() >= 0.8
    assert outlined(img, _area(), cand, TILE_SETTINGS).tolist() == [True]


@pytest.mark.parametrize("bg, colours, r, angle, seed", [
    ((120, 40, 140), ((60, 200, 60), (40, 200, 230)), 12.0, 0.0, 0),  # green on magenta
    ((200, 170, 140), ((200, 80, 40), (230, 230, 230)), 14.0, 20.0, 1),  # blue on pale blue
    ((40, 40, 40), ((60, 120, 240), (60, 220, 240)), 11.0, 45.0, 2),  # orange on black
    ((90, 230, 230), ((200, 60, 200), (240, 240, 240)), 13.0, 10.0, 3),  # violet on yellow
])
def test_a_printed_flower_is_not(bg, colours, r, angle, seed):
    img = _photo(_flower(_table(bg, seed), colours, r))
    cand = _cand(SIDE, angle)
    assert square_outline(img, _area(), cand, TILE_SETTINGS)[0].mean() < 0.4
    assert outlined(img, _area(), cand, TILE_SETTINGS).tolist() == [False]


def test_a_round_dot_is_not():
    img = _table((120, 40, 140), 5)
    cv2.circle(img, (N // 2, N // 2), int(SIDE / 2), (60, 200, 60), -1, cv2.LINE_AA)
    assert outlined(_photo(img), _area(), _cand(SIDE, 0.0), TILE_SETTINGS).tolist() == [False]


def _at(x: float, y: float, side: float, angle: float) -> Candidates:
    c = np.float64([[x, y]])
    return Candidates(c, np.float64([side]), np.float64([angle]), (square(c[0], side, angle),))


@pytest.mark.parametrize("cy", [4, 10, 16])
def test_a_leaf_cut_by_the_photos_border_is_not(cy):
    """The crop repeats the photo's last row beyond it: streaks, no tile's side."""
    img = _table((120, 40, 140), 7)
    cv2.ellipse(img, (N // 2, cy), (22, 14), 0, 0, 360, (60, 200, 60), -1, cv2.LINE_AA)
    assert outlined(_photo(img), _area(), _at(N / 2, cy, SIDE, 0.0),
                    TILE_SETTINGS).tolist() == [False]


@pytest.mark.parametrize("band_end, cy", [(12, -8), (16, -4), (10, -10)])
def test_the_photos_border_draws_no_side(band_end, cy):
    """A tile-wide band of colour running off the photo: beyond the border the crop repeats
    the last row, whose streaks would draw the square's two sides that run off it."""
    img = _table((160, 160, 160), 9)
    img[:band_end, 80:120] = (60, 170, 60)
    cand = _at(N / 2, cy, SIDE, 0.0)
    assert outlined(_photo(img), _area(), cand, TILE_SETTINGS).tolist() == [False]


@pytest.mark.parametrize("cy", [12, 20])
def test_a_tile_cut_by_the_photos_border_still_is(cy):
    """Three sides drawn are enough."""
    img = _table((160, 160, 160), 8)
    corners = square(np.float64([N / 2, cy]), SIDE, 0.0)
    cv2.fillConvexPoly(img, np.int32(np.round(corners)), (60, 170, 60), lineType=cv2.LINE_AA)
    assert outlined(_photo(img), _area(), _at(N / 2, cy, SIDE, 0.0),
                    TILE_SETTINGS).tolist() == [True]


def test_no_candidates():
    img = _photo(_table((100, 100, 100), 6))
    assert square_outline(img, _area(), Candidates.empty(), TILE_SETTINGS).shape == (0, 4)
    assert outlined(img, _area(), Candidates.empty(), TILE_SETTINGS).shape == (0,)


def _det(labels, zones, confidence) -> Detections:
    n = len(labels)
    return Detections(labels=np.array(labels, object), zones=np.array(zones, object),
                      confidence=np.array(confidence, np.float32),
                      centers=np.arange(2.0 * n).reshape(n, 2), polygons=(None,) * n)


@pytest.mark.parametrize("zones, confidence, drawn, kept", [
    # one too many: the undrawn outside piece goes though it is the surest
    (["outside", "outside", "arena"], [1.0, 0.9, 0.5], [0, 1, 1], [0, 1, 1]),
    # without `drawn` (marbles, or nothing over): the least sure outside one, as before
    (["outside", "outside", "arena"], [1.0, 0.9, 0.5], None, [1, 0, 1]),
    # all outside pieces drawn: the least sure of them
    (["outside", "outside", "arena"], [1.0, 0.9, 0.5], [1, 1, 1], [1, 0, 1]),
    # an arena piece's `drawn` is not read: outside pieces still go first
    (["arena", "outside", "arena"], [0.5, 0.9, 0.6], [0, 1, 1], [1, 0, 1]),
    # two undrawn outside pieces, one too many: the less sure of them
    (["outside", "outside", "outside"], [1.0, 0.95, 0.6], [0, 0, 1], [1, 0, 1]),
])
def test_beyond_counts_undrawn_outside_first(zones, confidence, drawn, kept):
    det = _det(["frog"] * 3, zones, confidence)
    keep, doubts = beyond_counts(det, ("frog", "cat"), (5, 2), 2,
                                 None if drawn is None else np.array(drawn, bool))
    assert keep.tolist() == [bool(k) for k in kept]
    assert len(doubts) == 1 and "not counted" in doubts[0]
