"""A lone pip's face seen as a region (`vision.dice._region_square`, session 18): a small
square face (foreshortened, turned, rounded corners) round a pip is closed and square; a
coin with a dot is round; a pip off the middle, a face with other pips (a 3's middle pip,
glare on a 2 between its dark pips), a face running into a table of its own colour or an
oblong card round a round emblem (whitened, any rectangle is a square) is no 1. And
`read_group` reads a lone pip as a 1 through it where the border rays alone do not."""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np
import pytest

from vision.dice import SETTINGS, _region_square, find_pips, read_group

FACE = (235.0, 235.0, 235.0)  # BGR: a white die
PIP = (25.0, 25.0, 25.0)
TABLE = (60.0, 120.0, 60.0)  # green felt


def _draw(shape: str = "square", half: float = 17.0, turn: float = 20.0, squash: float = 1.0,
          pip_d: float = 10.0, pip_off: tuple[float, float] = (0.0, 0.0),
          extra: tuple = (), table=TABLE, seed: int = 0) -> np.ndarray:
    """A (160, 160, 3) uint8 BGR photo: a face of half side `half` px (a square with rounded
    corners turned by `turn` degrees, or a disc), squashed by `squash` along y, centred at
    (80, 80), with a pip of diameter `pip_d` at `pip_off` from its centre and further spots
    `extra` ((dx, dy, diameter, BGR), ...) on it; drawn 8x oversampled, blurred 0.8 px,
    seeded noise 3."""
    k = 8
    big = np.zeros((160 * k, 160 * k, 3), np.float32)
    big[:] = table
    c = np.array([80.0, 80.0])
    if shape == "disc":
        cv2.ellipse(big, (int(c[0] * k), int(c[1] * k)), (int(half * k), int(half / squash * k)),
                    0, 0, 360, FACE, -1)
    else:
        th = math.radians(turn)
        rot = np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]])
        r = 0.2 * half  # rounded corners
        pts = []
        for a in np.linspace(0, 2 * math.pi, 200, endpoint=False):
            u = np.array([math.cos(a), math.sin(a)])
            q = u / np.abs(u).max() * (half - r) + u * r  # a rounded square's outline
            pts.append(rot @ q * [1.0, 1.0 / squash] + c)
        cv2.fillPoly(big, [np.round(np.array(pts) * k).astype(np.int32)], FACE)
    for dx, dy, dd, col in ((*pip_off, pip_d, PIP), *extra):
        cv2.circle(big, (int((c[0] + dx) * k), int((c[1] + dy) * k)), int(dd / 2 * k), col, -1)
    img = cv2.resize(big, (160, 160), interpolation=cv2.INTER_AREA)
    img = cv2.GaussianBlur(img, (0, 0), 0.8)
    img += np.random.default_rng(seed).normal(0, 3, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def _region(img: np.ndarray, pip_d: float = 10.0, squash: float = 1.0, s=SETTINGS):
    """`_region_square` at the drawn pip, its shape (covariance) squashed by `squash`
    along y as the face is."""
    cov = np.diag([1.0, 1.0 / squash**2]) * (pip_d / 4) ** 2
    return _region_square(img, np.array([80.0, 80.0]), pip_d, cov, np.array(FACE), 200.0,
                          s.one_side_per_pip[1] * pip_d * 0.75, s)


@pytest.mark.parametrize("turn,squash,half,seed", [
    (0.0, 1.0, 17.0, 0),  # upright, 34 px wide
    (20.0, 1.0, 15.0, 1),
    (40.0, 1.3, 17.0, 2),  # turned and seen slanted
    (10.0, 1.6, 20.0, 3),
    (30.0, 1.0, 13.0, 4),  # 26 px wide
])
def test_square_face_round_a_pip_is_found(turn, squash, half, seed):
    got = _region(_draw(half=half, turn=turn, squash=squash, seed=seed), squash=squash)
    assert got is not None
    sq, circ, lin = got
    assert sq < circ
    # the face's square: about the drawn face's area
    area = abs(np.linalg.det(lin)) * 4
    assert 0.55 < area / (4 * half * half / squash) < 1.1  # (the step mask trims ~1 px)


@pytest.mark.parametrize("case", [
    "coin",  # a disc with a dot: round, not square
    "off_middle",  # the pip well off the face's middle
    "three",  # a 3's middle pip: two more pips on the face
    "glare_on_two",  # a light spot between a 2's dark pips
    "own_table",  # a white face on a white table: no closed face
    "oblong",  # a round emblem on an oblong card (squashed 1.5, its emblem not)
])
def test_not_a_one_face(case):
    if case == "coin":
        img = _draw(shape="disc", half=18.0)
    elif case == "off_middle":
        img = _draw(pip_off=(7.0, -6.0))
    elif case == "three":
        img = _draw(half=20.0, extra=((-9.0, -9.0, 8.0, PIP), (9.0, 9.0, 8.0, PIP)))
    elif case == "glare_on_two":
        img = _draw(half=20.0, extra=((-9.0, -9.0, 6.0, PIP), (9.0, 9.0, 6.0, PIP)))
        # the "pip" read is the light spot in the middle (drawn over the dark one)
        cv2.circle(img, (80, 80), 5, (255, 255, 255), -1)
    elif case == "oblong":
        img = _draw(half=20.0, squash=1.5, turn=0.0)
    else:
        img = _draw(table=(232.0, 232.0, 232.0))
    assert _region(img) is None


def test_region_off_finds_nothing():
    s = dataclasses.replace(SETTINGS, one_region=None)
    assert _region(_draw(), s=s) is None


@pytest.mark.parametrize("change, found", [
    ({}, True),
    ({"one_region_least_px": 10**6}, False),  # a region under the least size: none
])
def test_region_least_pixels(change, found):
    assert (_region(_draw(), s=dataclasses.replace(SETTINGS, **change)) is not None) is found


@pytest.mark.parametrize("shape_px, found", [(6.0, False), (100.0, True)])
def test_oblong_card_dropped_only_where_its_pip_is_wide_enough_to_judge(shape_px, found):
    # the round emblem on an oblong card (whitened, a square) is dropped by the pip's shape,
    # judged for pips `one_region_pip_shape_px` wide or more (this one is 10 px)
    img = _draw(half=20.0, squash=1.5, turn=0.0)
    s = dataclasses.replace(SETTINGS, one_region_pip_shape_px=shape_px)
    assert (_region(img, s=s) is not None) is found


def _lone_pip(img: np.ndarray) -> int:
    pips, chans = find_pips(img)
    i = int(np.argmin(np.linalg.norm(pips.xy - [80.0, 80.0], axis=1)))
    assert np.linalg.norm(pips.xy[i] - [80.0, 80.0]) < 3
    return i


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_read_group_reads_the_one_through_the_region(seed):
    """With the border rays' square test made to fail (`one_max_square_res` 0), the lone
    pip is a 1 only through the region; without it (`one_region` None) it is no face."""
    img = _draw(half=16.0, turn=25.0, squash=1.2, seed=seed)
    pips, chans = find_pips(img)
    i = _lone_pip(img)
    strict = dataclasses.replace(SETTINGS, one_max_square_res=0.0)
    f = read_group(np.array([i]), pips, chans, strict)
    assert f is not None and f.value == 1
    assert read_group(np.array([i]), pips, chans,
                      dataclasses.replace(strict, one_region=None)) is None
