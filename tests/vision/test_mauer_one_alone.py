"""A board die's 1 from the spot read must be alone (`BoardDiceSettings.one_alone`,
`vision.mauer_dice._one_as_pair` / `_face_between`; docs/dice.md "Session 29 (dice-acc)"):
a like pip a 2's spacing off it with face between the two, where no face of 2+ pips is
read round them, makes it no 1."""

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.test_mauer_one_pair import _face
from vision import mauer_dice as D

OFF = replace(D.SETTINGS, one_alone=False)
ROOT = Path(__file__).resolve().parents[2]


def _two_with_a_mark(angle: float, seed: int):
    """A drawn 2 on a white table with a dark dot 1.05 face units right of its centre (a
    touching die's pip, print): `dot_read` at the 2's centre then finds three minima, no
    layout, so `_one_as_pair` reads no face. (L, a, the upper-left pip's px)."""
    pips = [(-0.5, -0.5), (0.5, 0.5)]
    L, a = _face(pips, table=232, angle=angle, seed=seed)
    c = np.array([180.0, 180.0])
    m = c + a @ (1.05, 0.0)
    cv2.circle(L, (int(round(m[0])), int(round(m[1]))), int(90 * 0.09), 30, -1)
    return L, a, c + a @ pips[0]


@pytest.mark.parametrize("angle,seed", [(0.0, 0), (20.0, 1), (50.0, 2)])
def test_a_pip_of_a_two_whose_face_is_not_read_is_no_one(angle, seed):
    L, a, at = _two_with_a_mark(angle, seed)
    old = D.spot_read(L, at, a, OFF)
    assert old is not None and old[0] == 1  # the old reading: a wrong 1 on that pip
    assert D.spot_read(L, at, a) is None  # not alone: no die read here


@pytest.mark.parametrize("table,partner,seam", [
    (232, None, False),  # a 1 alone on a white table
    (110, (1.0, 1.0), False),  # on a dark table: a dot a 2's spacing out lies off the face
    (232, (1.05, 1.05), True),  # a touching die's pip corner to corner, on the seam
    (232, (0.0, 1.5), True),  # ... straight across the seam
])
def test_a_true_one_stays_a_one(table, partner, seam):
    L, a = _face([(0.0, 0.0)], table=table, seed=3)
    c = np.array([180.0, 180.0])
    if seam:  # a dark gap along the 1's edge towards the other die
        u = np.asarray(partner) / np.abs(partner).max()  # the edge's outward normal side
        e0 = c + a @ (u * 1.0 + np.array([-u[1], u[0]]) * 1.0)
        e1 = c + a @ (u * 1.0 - np.array([-u[1], u[0]]) * 1.0)
        cv2.line(L, tuple(np.round(e0).astype(int)), tuple(np.round(e1).astype(int)), 60, 5)
    if partner is not None:
        q = c + a @ partner
        cv2.circle(L, (int(round(q[0])), int(round(q[1]))), int(90 * 0.09), 30, -1)
    got = D.spot_read(L, c, a)
    assert got is not None and got[0] == 1


def _harsh_0006(dx: float, dy: float) -> np.ndarray:
    """Committed Mauerhuepfer 0006 under `light_eval`'s harsh light (its JPEG copy, quality
    90, as `light_eval --keep` writes it), shifted by (dx, dy) px (the board and dice move
    by a fraction of a pixel)."""
    from vision.teach_eval import harsh_light

    img = cv2.imread(str(ROOT / "datasets/scenes/mauerhuepfer/mauerhuepfer-e1-s1-0006.jpg"))
    ok, buf = cv2.imencode(".jpg", harsh_light(img), [cv2.IMWRITE_JPEG_QUALITY, 90])
    img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if dx or dy:
        img = cv2.warpAffine(img, np.float32([[1, 0, dx], [0, 1, dy]]), img.shape[1::-1],
                             flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return img


def _board_dice(img, s=D.SETTINGS):
    from scoring.mauerhuepfer import load_board
    from vision.mauer import find_board

    board = load_board()
    view = find_board(img, board)
    assert view is not None
    return D.read_board_dice(img, view, board, s)[0]


# the 2 at about (463, 621) whatever the sub-pixel shift (without the rule, (0, 0.5) read a
# wrong 1 by the spot read and dropped the crop read's 2 beside it)
@pytest.mark.parametrize("dx,dy", [(0.0, 0.0), (0.0, 0.5), (0.5, 0.0), (0.25, 0.75)])
def test_harsh_0006s_two_is_read_at_every_sub_pixel_shift(dx, dy):
    dice = _board_dice(_harsh_0006(dx, dy))
    near = [d for d in dice if np.hypot(d.center[0] - 463 - dx, d.center[1] - 621 - dy) < 8]
    assert [d.value for d in near] == [2]


def test_harsh_0006_shifted_read_a_one_without_the_rule():
    """The case above can fail: without `one_alone` the shift (0, 0.5) reads the 1."""
    dice = _board_dice(_harsh_0006(0.0, 0.5), OFF)
    near = [d for d in dice if np.hypot(d.center[0] - 463, d.center[1] - 621.5) < 8]
    assert [d.value for d in near] == [1]
