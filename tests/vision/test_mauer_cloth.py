"""The board search against look-alikes under harsh lights (session 14): washed-out start
areas count half, and a board reaching beyond the photo is searched for once more among
blobs of another size (vision/mauer.py)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from scoring.mauerhuepfer import load_board
from tests.vision.test_mauer import _flat_lab
from vision import mauer
from vision.quality import cut_off

BOARD = load_board()


def _paint(lab: np.ndarray, colour: str, lab_value, s: float = 2.0) -> None:
    a = next(a for a in BOARD.colours if a.colour == colour)
    cv2.circle(lab, tuple(int(v * s) for v in a.start_center), int(a.start_radius * s),
               lab_value, -1)


@pytest.mark.parametrize("colour,value,evidence", [
    ("black", (255, 128, 128), 0.875),  # black area washed out by a lamp: unknown, half
    ("green", (254, 128, 130), 0.875),  # green washed out, no hue left: half
    ("yellow", (251, 118, 166), 1.0),  # a bright yellow ring still showing its hue: seen
    ("green", (200, 128, 128), 0.75),  # a grey ring, not washed out: against the fit
    ("black", (240, 128, 128), 0.75),  # black lighter than the others but not clipped
    ("black", (250, 128, 128), 0.75),  # white paper in a well-exposed photo: not clipped
    ("red", (253, 128, 128), 0.75),  # nearly, but not, clipped: against the fit
])
def test_washed_out_start_area_counts_half(colour, value, evidence):
    lab = _flat_lab()
    _paint(lab, colour, value)
    H = np.diag([2.0, 2.0, 1.0])
    assert mauer._colour_evidence(lab, H, BOARD) == pytest.approx(evidence)
    np.testing.assert_allclose(mauer._colour_evidence_many(lab, H[None], BOARD), [evidence])


@pytest.mark.parametrize("offset,evidence", [
    (None, 0.75),  # no glare spot: L* 251 reads like white paper, against the fit
    ((0, 0), 0.875),  # a glare spot over the black area: washed out there, half
    ((300, 300), 0.75),  # a spot elsewhere on the board: against the fit
])
def test_washed_out_in_a_glare_spot(offset, evidence):
    """Under `_CLIPPED_L` (254), a light ring that does not show its colour counts half only
    within a glare spot (`glare_spots`' ((cx, cy), (axis, axis), degrees), `lab`'s px)."""
    lab = _flat_lab()
    _paint(lab, "black", (251, 128, 128))
    black = next(a for a in BOARD.colours if a.colour == "black")
    cx, cy = (2.0 * v for v in black.start_center)
    axis = 4.0 * black.start_radius  # the spot's core: the area's diameter, 2 px per mm
    glares = [] if offset is None else [((cx + offset[0], cy + offset[1]), (axis, axis), 0.0)]
    H = np.diag([2.0, 2.0, 1.0])
    assert mauer._colour_evidence(lab, H, BOARD, glares) == pytest.approx(evidence)
    np.testing.assert_allclose(mauer._colour_evidence_many(lab, H[None], BOARD, glares),
                               [evidence])


@pytest.mark.parametrize("dx,beyond", [
    (0.0, False),  # inside the photo
    (-15.0, True),  # one corner just left of it
    (2000.0, True),  # far off
])
def test_cut_off(dx, beyond):
    c = np.array([[10.0, 10.0], [300.0, 10.0], [300.0, 200.0], [10.0, 200.0]])
    c[0, 0] += dx if dx < 0 else 0.0
    c[1, 0] += dx if dx > 0 else 0.0
    assert cut_off(c, (640, 480)) is beyond


@pytest.mark.parametrize("x,margin,beyond", [
    (-0.5, 0.0, False),  # on the first pixel's outer side: inside
    (-6.0, 12.8, False),  # 6 px out, within a 1 % margin of 1280 px: a clipped board
    (-14.0, 12.8, True),  # beyond the margin
    (639.5 + 12.0, 12.8, False),  # right edge, within the margin
    (639.5 + 13.0, 12.8, True),
])
def test_cut_off_margin(x, margin, beyond):
    c = np.array([[100.0, 10.0], [300.0, 10.0], [300.0, 200.0], [100.0, 200.0]])
    c[0 if x < 0 else 1, 0] = x
    assert cut_off(c, (640, 480), margin) is beyond


def _two_boards(big: float = 2.2, shift=(-150.0, -60.0), small: float = 0.55):
    """A photo (960 x 1280 BGR) with a plainly drawn board `big` px per mm reaching beyond
    the photo and one `small` px per mm wholly in it: (photo, (H big, H small) mm -> px)."""
    s = 2
    w, h = (int(v * s) for v in BOARD.size_mm)
    flat = np.full((h, w, 3), (150, 200, 215), np.uint8)
    ring = {"red": (40, 40, 210), "yellow": (30, 200, 235), "green": (60, 150, 50),
            "black": (40, 40, 40)}
    for a in BOARD.colours:
        cv2.circle(flat, tuple(int(v * s) for v in a.start_center), int(a.start_radius * s),
                   ring[a.colour], 5, cv2.LINE_AA)
    for f in BOARD.fields:
        c = (int(f.x * s), int(f.y * s))
        cv2.circle(flat, c, int(BOARD.field_radius_mm * s), (245, 245, 245), -1, cv2.LINE_AA)
        cv2.circle(flat, c, int(BOARD.field_radius_mm * s), (120, 120, 120), 2, cv2.LINE_AA)
    photo = np.full((960, 1280, 3), (70, 90, 110), np.uint8)
    Hs = []
    for k, (dx, dy) in ((big, shift), (small, (900.0, 560.0))):
        H = np.array([[k, 0, dx], [0, k, dy], [0, 0, 1.0]])
        S = np.diag([1 / s, 1 / s, 1.0])
        warped = cv2.warpPerspective(flat, H @ S, (1280, 960))
        mask = cv2.warpPerspective(np.full((h, w), 255, np.uint8), H @ S, (1280, 960))
        photo[mask > 128] = warped[mask > 128]
        Hs.append(H)
    rng = np.random.default_rng(0)
    return np.clip(photo + rng.normal(0, 2, photo.shape), 0, 255).astype(np.uint8), Hs


def test_field_blobs_leave_the_skipped_sizes_out():
    photo, _ = _two_boards()
    s = mauer.SETTINGS
    blobs = mauer.field_blobs(photo, s)
    big = blobs[:, 2] > 20.0  # the big board's fields (about 25 px), the small's about 6
    assert big.sum() >= 16 and (~big).sum() >= 16
    kept = mauer.field_blobs(photo, replace(s, blob_skip=(20.0, 1000.0)))
    np.testing.assert_array_equal(kept, blobs[~big])


def test_other_size_view_finds_the_board_of_another_size():
    """Given the small board as the view found, the search among the other blobs finds the
    big one (without the skip it would find the small one again)."""
    photo, (Hb, Hs) = _two_boards()
    corners = mauer.board_corners_mm(BOARD)
    small = mauer.BoardView(mauer.apply_h(Hs, corners), Hs, None, 0.9)
    s = replace(mauer.SETTINGS, threads=0)
    view = mauer._other_size_view(photo, BOARD, s, mauer.blob_map(photo, s), (), small)
    assert view is not None
    assert np.abs(view.corners - mauer.apply_h(Hb, corners)).max() < 6.0


def test_other_size_view_none_without_blobs():
    """No field blobs under the view (a bare photo): None."""
    photo = np.full((480, 640, 3), 90, np.uint8)
    H = np.diag([0.8, 0.8, 1.0])
    view = mauer.BoardView(mauer.apply_h(H, mauer.board_corners_mm(BOARD)), H, None, 0.6)
    s = replace(mauer.SETTINGS, threads=0)
    assert mauer._other_size_view(photo, BOARD, s, mauer.blob_map(photo, s), (), view) is None


def test_other_size_view_none_with_too_few_fields_on_blobs():
    """A view whose lattice lies half a pitch off the drawn board's fields: blobs, but
    under `min_matched` of them on its fields: None (no blob size to leave out)."""
    photo, (_, Hs) = _two_boards()
    _, pitch = mauer._field_array(BOARD)
    H = Hs @ np.array([[1, 0, pitch / 2], [0, 1, pitch / 2], [0, 0, 1.0]])
    view = mauer.BoardView(mauer.apply_h(H, mauer.board_corners_mm(BOARD)), H, None, 0.6)
    s = replace(mauer.SETTINGS, threads=0)
    maps = mauer.blob_map(photo, s)
    assert len(mauer.board_blobs(view, BOARD, s, maps)) > 0
    assert mauer._other_size_view(photo, BOARD, s, maps, (), view) is None


def test_find_board_replaces_a_board_beyond_the_photo():
    """The whole search: the big board (reaching beyond the photo) is found first; the
    search among the other blobs finds the small one, wholly inside and as sure, which
    replaces it, and the reading says so. Without that search, or with the small board
    under `min_board_confidence`, the big one stays."""
    photo, (Hb, Hs) = _two_boards(1.6, (-30.0, -20.0), 0.55)
    corners = mauer.board_corners_mm(BOARD)
    s = replace(mauer.SETTINGS, threads=0)
    first = mauer.find_board(photo, BOARD, replace(s, other_size_ratio=0.0))
    assert np.abs(first.corners - mauer.apply_h(Hb, corners)).max() < 6.0
    assert first.other_search == ""
    view = mauer.find_board(photo, BOARD, s)
    assert np.abs(view.corners - mauer.apply_h(Hs, corners)).max() < 6.0
    assert view.other_search == "replaced"
    strict = mauer.find_board(photo, BOARD, replace(s, min_board_confidence=view.score + 0.01))
    assert strict.other_search == "kept"
    assert np.abs(strict.corners - first.corners).max() < 1.0
    warnings = mauer.read_mauer(photo, BOARD, s=s, with_dice=False).warnings
    assert mauer._OTHER_SEARCH_WARNINGS["replaced"] in warnings
    assert warnings.count(mauer._OTHER_SEARCH_WARNINGS["replaced"]) == 1
    assert mauer._OTHER_SEARCH_WARNINGS["kept"] not in warnings
