"""Board dice on a busy table (newsprint, a printed cloth): a face read from its dark
minima (`vision.mauer_dice.dot_read`) must end at its edge there (`_face_ends`,
`BoardDiceSettings.face_edge`, set by `read_board_dice` on a busy table, `busy_clutter`);
docs/dice.md "Busy tables: a face ends at its edge (session 25)"."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision import mauer_dice as D

EDGE = replace(D.SETTINGS, face_edge=True)


def _scene(table, angle, gap=False, seed=0, side=90, n=360):
    """Float32 lightness of an enlarged (a die `side` px wide) patch, centre n / 2, and
    the face's map a (face units -> px, the board's: unturned). Either a white die (face
    235, a 3's pips, turned by `angle` degrees) on a plain `table` level, or (`gap`) no
    die at all: a newspaper's light gap (paper 235) between rows of dark print strokes,
    three dark marks lying on a 3's diagonal in it (what the dot read took for a 3)."""
    rng = np.random.default_rng(seed)
    L = np.full((n, n), table, np.float32)
    c = np.array([n / 2, n / 2])
    th = np.radians(angle)
    rot = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
    a = np.eye(2) * side / 2
    pip = int(side * 0.09)
    if gap:  # paper with print above and below the gap, the gap running on both ways
        L[:] = 235
        for y in list(range(0, int(c[1] - 1.15 * side / 2), 14)) + list(
                range(int(c[1] + 1.15 * side / 2), n, 14)):
            x = 0
            while x < n:
                w = int(rng.integers(8, 30))
                cv2.rectangle(L, (x, y), (x + w, y + 6), float(rng.integers(30, 80)), -1)
                x += w + int(rng.integers(4, 10))
    else:
        box = c + np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) @ (a @ rot).T
        cv2.fillPoly(L, [np.round(box).astype(np.int32)], 235)
    for u in (-0.5, 0.0, 0.5):
        p = c + (a @ rot) @ (u, u)
        cv2.circle(L, (int(round(p[0])), int(round(p[1]))), pip, 30, -1)
    L += rng.normal(0, 2.0, L.shape).astype(np.float32)
    return D.spot_blur(np.clip(L, 0, 255).astype(np.uint8), a), a


@pytest.mark.parametrize("table,angle", [
    (90, 0.0),  # a white die on a dark table, square to the board
    (90, 60.0),  # the same turned: the square tested is turned with its pips
    (150, 30.0),  # a mid-grey table, turned
    (150, 45.0),  # ... half way (an unturned square would cut its corners)
])
def test_a_die_face_ends_at_its_edge(table, angle):
    Lf, a = _scene(table, angle)
    for s in (D.SETTINGS, EDGE):  # read with and without the edge test alike
        got = D.dot_read(Lf, (180.0, 180.0), a, s)
        assert got is not None and got[0] == 3


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_light_gap_in_print_is_no_face(seed):
    Lf, a = _scene(0, 0.0, gap=True, seed=seed)
    got = D.dot_read(Lf, (180.0, 180.0), a, D.SETTINGS)
    assert got is not None and got[0] == 3  # the old reading: a false 3
    assert D.dot_read(Lf, (180.0, 180.0), a, EDGE) is None


def test_a_white_die_on_a_white_table_is_read_off_a_busy_table():
    # no edge to find: the face as light as the table round it; the test is not made off
    # a busy table (`face_edge` False by default), so the die is read there
    Lf, a = _scene(232, 0.0)
    got = D.dot_read(Lf, (180.0, 180.0), a)
    assert got is not None and got[0] == 3
    assert D.dot_read(Lf, (180.0, 180.0), a, EDGE) is None  # (why only on a busy table)


def test_the_face_square_off_the_image_is_no_face():
    Lf, a = _scene(90, 0.0)
    m = a.copy()
    assert D._face_ends(Lf, (180.0, 180.0), m, 235.0, 200.0, EDGE)
    assert not D._face_ends(Lf, (20.0, 180.0), m, 235.0, 200.0, EDGE)
