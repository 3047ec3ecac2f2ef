"""The dice reader (`vision.dice`) on tiny drawn faces: blurred pips that touch (the columns
of a small 6) are found one by one and a blob that covers several pips is not kept in their
place; a face read inside a bigger one (a 3 among the pips of a 5) is doubted."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.dice import SETTINGS, _face_round_pip, find_pips, read_dice


def _face(value_rows: int, pip_d: float, gap: float, blur: float, seed: int = 0
          ) -> tuple[np.ndarray, np.ndarray]:
    """A white face with two columns of `value_rows` black pips `gap` px apart (edge to
    edge) on grey, blurred, with seeded noise. Returns (BGR image, pip centres)."""
    rng = np.random.default_rng(seed)
    img = np.full((200, 300, 3), 90, np.float32)
    step = pip_d + gap
    side = 2 * step + 2.6 * pip_d
    cx, cy = 130, 90
    cv2.rectangle(img, (int(cx - side / 2), int(cy - side / 2)),
                  (int(cx + side / 2), int(cy + side / 2)), (240, 240, 240), -1)
    centres = []
    for col in (-1, 1):
        for row in range(value_rows):
            x = cx + col * step * 0.9
            y = cy + (row - (value_rows - 1) / 2) * step
            centres.append((x, y))
            # drawn 8x oversampled for sub-pixel centres and sizes
            cv2.circle(img, (int(x * 8), int(y * 8)), int(pip_d * 4), (20, 20, 20), -1,
                       lineType=cv2.LINE_AA, shift=3)
    img = cv2.GaussianBlur(img, (0, 0), blur)
    img += rng.normal(0, 3, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8), np.array(centres)


@pytest.mark.parametrize("pip_d,gap,blur", [
    (5.0, 1.8, 1.1),  # tiny pips (a far die)
    (7.0, 2.5, 1.6),
    (10.0, 2.1, 1.7),  # blur merges each column at the mean level
    (10.0, 2.1, 2.3),  # ... still more blur
])
def test_touching_blurred_pips_are_each_found(pip_d, gap, blur):
    img, centres = _face(3, pip_d, gap, blur)
    pips, _ = find_pips(img)
    dark = pips.xy[pips.dark]
    for c in centres:
        assert np.linalg.norm(dark - c, axis=1).min() < 0.35 * pip_d, c
    # and not a merged blob between two of them
    assert (pips.d[pips.dark] < 1.6 * pip_d).all()


def test_without_half_depth_passes_the_columns_are_lost():
    """The same face read without the half-depth passes misses pips: the test can fail."""
    img, centres = _face(3, 10.0, 2.1, 2.3)
    s = dataclasses.replace(SETTINGS, deep_passes=())
    pips, _ = find_pips(img, s)
    dark = pips.xy[pips.dark]
    found = sum(len(dark) and np.linalg.norm(dark - c, axis=1).min() < 2.5 for c in centres)
    assert found < len(centres)


@pytest.mark.parametrize("seed", [0, 1, 2])  # noise
def test_small_blurred_six_is_read(seed):
    img, _ = _face(3, 10.0, 2.1, 2.3, seed=seed)
    assert [d.value for d in read_dice(img)[0]] == [6]


def _square_face(spots, seed: int) -> np.ndarray:
    """A white 60 px face on grey with black pips at face coordinates `spots` ([-1, 1]^2)."""
    rng = np.random.default_rng(seed)
    img = np.full((200, 300, 3), 90, np.float32)
    cx, cy, side = 130, 90, 60
    cv2.rectangle(img, (cx - side // 2, cy - side // 2), (cx + side // 2, cy + side // 2),
                  (240, 240, 240), -1)
    for u, v in spots:
        cv2.circle(img, (int(cx + u * side / 2), int(cy + v * side / 2)), 5, (20, 20, 20), -1,
                   lineType=cv2.LINE_AA)
    img = cv2.GaussianBlur(img, (0, 0), 1.0) + rng.normal(0, 3, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


THREE = [(-0.5, -0.5), (0.0, 0.0), (0.5, 0.5)]


@pytest.mark.parametrize("extra,doubted", [
    ([], False),  # a plain 3: no doubt
    ([(0.5, -0.5)], True),  # a 5 with one corner pip lost: the 3 in it is doubted
    ([(-0.5, 0.5)], True),  # the other corner
])
@pytest.mark.parametrize("seed", [0, 1])  # noise
def test_part_of_a_bigger_face_is_doubted(extra, doubted, seed):
    dice, warnings, _ = read_dice(_square_face(THREE + extra, seed))
    assert [d.value for d in dice] == [3]
    assert any("part of a bigger face" in w for w in warnings) == doubted


FOUR = [(-0.5, -0.5), (0.5, -0.5), (-0.5, 0.5), (0.5, 0.5)]


@pytest.mark.parametrize("light_pips,want", [
    (True, [4]),  # the light-pip passes read a dark die with white pips
    (False, []),  # without them (the Mauerhuepfer crops: light faces only) it is not read
])
@pytest.mark.parametrize("seed", [0, 1])  # noise
def test_light_pips_are_looked_for_only_when_asked(light_pips, want, seed):
    s = dataclasses.replace(SETTINGS, light_pips=light_pips)
    assert [d.value for d in read_dice(255 - _square_face(FOUR, seed), s)[0]] == want
    # a white die with black pips reads the same either way
    assert [d.value for d in read_dice(_square_face(FOUR, seed), s)[0]] == [4]


def _small_die(pips, angle, blur, side=16, up=5.6, pip_r=0.11):
    """A 16 px white die with black pips at (i, j) quarters of its sides on a brown table,
    drawn 8x finer and averaged down, blurred, noised, then enlarged `up` times by cubic
    interpolation as the Mauerhuepfer board reader enlarges its crops: (crop, die side in
    the crop)."""
    rng = np.random.default_rng(0)
    n, sc = 4 * side, 8
    big = np.zeros((n * sc, n * sc, 3), np.float32) + (60, 110, 150)
    box = cv2.boxPoints(((n * sc / 2, n * sc / 2), (side * sc, side * sc), angle))
    cv2.fillPoly(big, [np.round(box).astype(np.int32)], (235, 235, 235), cv2.LINE_AA)
    u, v = (box[1] - box[0]) / 4, (box[3] - box[0]) / 4
    for i, j in pips:
        p = box[0] + i * u + j * v
        cv2.circle(big, (int(p[0]), int(p[1])), int(side * sc * pip_r), (25, 25, 25), -1,
                   cv2.LINE_AA)
    img = cv2.GaussianBlur(cv2.resize(big, (n, n), interpolation=cv2.INTER_AREA), (0, 0), blur)
    img = np.clip(img + rng.normal(0, 2, img.shape), 0, 255).astype(np.uint8)
    return cv2.resize(img, None, fx=up, fy=up, interpolation=cv2.INTER_CUBIC), side * up


_LAYOUT = {1: ((2, 2),), 2: ((1, 1), (3, 3)), 3: ((1, 1), (2, 2), (3, 3)),
           4: ((1, 1), (3, 1), (1, 3), (3, 3)), 5: ((1, 1), (3, 1), (1, 3), (3, 3), (2, 2)),
           6: ((1, 1), (1, 2), (1, 3), (3, 1), (3, 2), (3, 3))}


@pytest.mark.parametrize("angle,blur", [(0, 0.8), (20, 0.8), (40, 1.2), (20, 1.2)])
def test_small_enlarged_two_is_read_with_the_known_die_side(angle, blur):
    """An enlarged 16 px die showing 2: its soft pips measure wide, so the pips-to-side test
    rejects it; sized against the die's known side (`die_side_px`) it reads 2."""
    crop, side = _small_die(_LAYOUT[2], angle, blur)
    assert [d.value for d in read_dice(crop)[0]] == []
    known = dataclasses.replace(SETTINGS, die_side_px=side)
    assert [d.value for d in read_dice(crop, known)[0]] == [2]


@pytest.mark.parametrize("value", range(1, 7))
def test_known_die_side_gives_no_wrong_value(value):
    """Small enlarged dice of every value, blurred 0.8-1.6 px, turned 0-40 degrees: with the
    known side a die is read right or not at all."""
    for angle in (0, 20, 40):
        for blur in (0.8, 1.2, 1.6):
            crop, side = _small_die(_LAYOUT[value], angle, blur)
            known = dataclasses.replace(SETTINGS, die_side_px=side)
            assert set(d.value for d in read_dice(crop, known)[0]) <= {value}


@pytest.mark.parametrize("angle", [15, 30, 45])
def test_known_die_side_reads_no_column_of_a_six_as_three(angle):
    """A small 6 with small pips, turned: three of its pips in a line fit a 3 on the
    diagonal of a smaller square. The known side fixes the face's other diagonal too, and
    then its empty corners are not empty: no 3 (the 6 itself is not read here either)."""
    crop, side = _small_die(_LAYOUT[6], angle, 1.0, pip_r=0.09)
    known = dataclasses.replace(SETTINGS, die_side_px=side)
    assert 3 not in [d.value for d in read_dice(crop, known)[0]]


@pytest.mark.parametrize("angle", [0, 20, 40])
def test_small_enlarged_five_is_read_despite_blur_between_its_pips(angle):
    """An enlarged 16 px die showing 5, blurred 1.2 px: the pips' blur darkens the face
    between them. With the known side the interior may depart from the face colour up to
    `known_interior` of the pip contrast (and the empty-spot test still guards a missed
    centre pip); at 0 it is rejected as a face with a dirty interior."""
    crop, side = _small_die(_LAYOUT[5], angle, 1.2)
    known = dataclasses.replace(SETTINGS, die_side_px=side)
    assert [d.value for d in read_dice(crop, known)[0]] == [5]
    strict = dataclasses.replace(known, known_interior=0.0)
    assert [d.value for d in read_dice(crop, strict)[0]] == []


def _squashed_three(sliver: bool) -> np.ndarray:
    """A die's top face showing 3 seen slanted (90 x 64 px) on a brown table, with (or
    without) a side face showing as a grey sliver above it in the image."""
    img = np.full((360, 360, 3), (60, 100, 150), np.uint8)
    x0, y0, w, h = 135, 150, 90, 64
    if sliver:
        cv2.rectangle(img, (x0, y0 - 22), (x0 + w, y0), (200, 200, 200), -1)
    cv2.rectangle(img, (x0, y0), (x0 + w, y0 + h), (240, 240, 240), -1)
    for i in (1, 2, 3):
        cv2.ellipse(img, (x0 + w * i // 4, y0 + h * i // 4), (8, 6), 0, 0, 360, (25, 25, 25),
                    -1)
    return cv2.GaussianBlur(img, (0, 0), 2.0)


@pytest.mark.parametrize("sliver,up,want", [
    (True, None, []),  # die colour above it: taken for a side face below the top
    (True, (0.0, 1.0), [3]),  # up points down here (the die lies beyond the camera's
    # nadir): the sliver is a side face below this top face
    (True, (0.0, -1.0), []),  # up points up: the sliver would be the top face
    (False, (0.0, -1.0), [3]),  # nothing above it
])
def test_side_face_told_by_the_known_vertical(sliver, up, want):
    s = dataclasses.replace(SETTINGS, die_side_px=90.0, up_dir=up)
    assert [d.value for d in read_dice(_squashed_three(sliver), s)[0]] == want


@pytest.mark.parametrize("theta", [0.0, 0.7, 2.0])
@pytest.mark.parametrize("a", [((10.0, 2.0), (1.0, 6.0)), ((8.0, 0.0), (0.0, 8.0))])
def test_flat_diagonal_face_is_the_known_square(theta, a):
    """With the flat face's affine map known, 2-3 pips on a diagonal fix the face: the
    square through them is the one the map makes (any turn of the die)."""
    from vision.dice import _flat_diag_lin

    a = np.array(a)
    rot = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    lin = a @ rot * 1.3
    xy = np.array([lin @ [-0.5, -0.5], [0, 0], lin @ [0.5, 0.5]]) + 50
    s = dataclasses.replace(SETTINGS, face_affine=tuple(a.ravel()))
    got = _flat_diag_lin(xy, np.array([50.0, 50.0]), s)
    corners = np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]])
    assert np.allclose(sorted(map(tuple, np.round(corners @ got.T, 6))),
                       sorted(map(tuple, np.round(corners @ lin.T, 6))))


@pytest.mark.parametrize("squash,want", [
    (1.0, [4]),  # the table's foreshortening is the face's: read
    (0.5, []),  # the table says the face is squashed to half: four pips of a square are no
    # flat die face there
])
def test_known_face_shape_must_be_the_tables(squash, want):
    crop, side = _small_die(_LAYOUT[4], 20, 0.8)
    a = np.diag([1.0, squash]) * side / 2
    s = dataclasses.replace(SETTINGS, die_side_px=side, face_affine=tuple(a.ravel()))
    assert [d.value for d in read_dice(crop, s)[0]] == want


def _one_with_side_face(angle, side=16, up=5.6):
    """An enlarged 16 px die showing 1 (brown table) with a grey side face hanging below its
    lowest edge, as a slanted view shows it: (crop, die side in the crop)."""
    rng = np.random.default_rng(0)
    n, sc = 4 * side, 8
    big = np.zeros((n * sc, n * sc, 3), np.float32) + (60, 110, 150)
    c = n * sc / 2
    box = cv2.boxPoints(((c, c), (side * sc, side * sc), angle))
    e = box[np.argsort(box[:, 1])[-2:]]
    drop = [0, side * sc * 0.45]
    cv2.fillPoly(big, [np.round([e[0], e[1], e[1] + drop, e[0] + drop]).astype(np.int32)],
                 (200, 200, 200), cv2.LINE_AA)
    cv2.fillPoly(big, [np.round(box).astype(np.int32)], (235, 235, 235), cv2.LINE_AA)
    cv2.circle(big, (int(c), int(c)), int(side * sc * 0.12), (25, 25, 25), -1, cv2.LINE_AA)
    img = cv2.GaussianBlur(cv2.resize(big, (n, n), interpolation=cv2.INTER_AREA), (0, 0), 1.0)
    img = np.clip(img + rng.normal(0, 2, img.shape), 0, 255).astype(np.uint8)
    return cv2.resize(img, None, fx=up, fy=up, interpolation=cv2.INTER_CUBIC), side * up


@pytest.mark.parametrize("angle", [0, 20, 40])
def test_lone_pip_on_a_known_flat_square_is_a_one(angle):
    """A 1 whose side face shows below it: its border rays run on over the side face, so
    the general one-pip test (a square border all round) rejects it; the known flat square
    (`face_affine`) is met by the other rays, and it reads 1."""
    crop, side = _one_with_side_face(angle)
    sized = dataclasses.replace(SETTINGS, die_side_px=side)
    assert [d.value for d in read_dice(crop, sized)[0]] == []
    flat = dataclasses.replace(sized, face_affine=(side / 2, 0.0, 0.0, side / 2))
    assert [d.value for d in read_dice(crop, flat)[0]] == [1]


def test_lone_dot_without_a_face_is_no_one():
    """A dark dot on a plain light surface (no die border anywhere) is not a 1, even with
    a die of known size and shape expected there."""
    img = np.full((360, 360, 3), 235, np.uint8)
    cv2.circle(img, (180, 180), 12, (25, 25, 25), -1)
    img = cv2.GaussianBlur(img, (0, 0), 3)
    flat = dataclasses.replace(SETTINGS, die_side_px=90.0, face_affine=(45.0, 0.0, 0.0, 45.0))
    assert read_dice(img, flat)[0] == []


def _dotted_discs(dots: int) -> np.ndarray:
    """A light square with two big dark red discs on its diagonal (a 2's layout), each
    with `dots` small white dots on it (whole dice, seen as one dark blob each)."""
    img = np.full((360, 360, 3), 90, np.uint8)
    cv2.rectangle(img, (60, 60), (300, 300), (235, 238, 238), -1)
    for cx, cy in ((120, 120), (240, 240)):
        cv2.circle(img, (cx, cy), 26, (40, 35, 150), -1, cv2.LINE_AA)
        for dx, dy in ((-10, -10), (10, 10), (10, -10))[:dots]:
            cv2.circle(img, (cx + dx, cy + dy), 3, (230, 230, 230), -1, cv2.LINE_AA)
    return cv2.GaussianBlur(img, (0, 0), 1.0)


@pytest.mark.parametrize("dots,holds", [
    (0, False),  # a plain dark disc: a pip
    (1, False),  # one light speck in it (glare in a pip's hollow): still a pip
    (3, True),  # light dots in it: a whole die, no pip
])
def test_a_blob_holding_pips_is_marked(dots, holds):
    p, _ = find_pips(_dotted_discs(dots))
    big = p.d > 40
    assert big.sum() == 2 and p.dark[big].all()
    assert (p.holds[big] == holds).all()


@pytest.mark.parametrize("dots,holds_needed,read", [
    (0, SETTINGS.die_pip_holds, True),  # plain discs on a light square: a big 2
    (3, SETTINGS.die_pip_holds, False),  # discs with pips of their own: two dice, no 2
    (3, 99, True),  # (without the test they are read as the 2's pips)
])
def test_dice_are_not_the_pips_of_a_bigger_face(dots, holds_needed, read):
    s = dataclasses.replace(SETTINGS, die_pip_holds=holds_needed)
    dice, _, _ = read_dice(_dotted_discs(dots), s)
    assert any(d.value == 2 and np.hypot(d.center[0] - 180, d.center[1] - 180) < 10
               for d in dice) == read


def _one_seen_from_the_side(side_grey: int, top_h: int) -> np.ndarray:
    """A white die on a dark table seen slanted: its top face (80 px wide, `top_h` high) with
    one pip, right above its side face (64 px high, shaded `side_grey`: the die's own white,
    a little darker) with four pips; blurred by 1 px."""
    img = np.full((400, 400, 3), 40, np.uint8)
    cx, ty = 200, 120
    cv2.rectangle(img, (cx - 40, ty), (cx + 40, ty + top_h), (240, 240, 240), -1)
    cv2.rectangle(img, (cx - 40, ty + top_h), (cx + 40, ty + top_h + 64), (side_grey,) * 3, -1)
    cv2.ellipse(img, (cx, ty + top_h // 2), (12, round(12 * top_h / 80)), 0, 0, 360,
                (30, 30, 30), -1)
    for dx in (-20, 20):
        for dy in (-16, 16):
            cv2.ellipse(img, (cx + dx, ty + top_h + 32 + dy), (7, 6), 0, 0, 360, (30, 30, 30), -1)
    return cv2.GaussianBlur(img, (0, 0), 1.0)


@pytest.mark.parametrize("side_grey,top_h", [
    (215, 40),  # seen at about 30 degrees: the top's border rays run on into the side face
    (215, 50),  # about 40 degrees
])
def test_a_one_above_its_side_face_is_read(side_grey, top_h):
    """The side face's pips vouch for a die there: the lone pip above it is its 1 (without
    `_ones_above` the 1 fails the centring test and nothing is read)."""
    img = _one_seen_from_the_side(side_grey, top_h)
    assert [d.value for d in read_dice(img)[0]] == [1]
    off = dataclasses.replace(SETTINGS, above_one=None)
    assert 1 not in [d.value for d in read_dice(img, off)[0]]


def _lone_pip_photo(kind: str, pip: float = 20.0) -> np.ndarray:
    """A green face with a white pip of diameter `pip` at (100, 100): plain; with a lamp's
    sheen hugging it on one side (a crescent 0.9 pip diameters out, fresh 1955's green 1);
    or on a dark line (a dot in a drawing, no 1)."""
    img = np.full((200, 200, 3), (200, 215, 225), np.float32)
    cv2.rectangle(img, (40, 40), (160, 160), (60, 160, 70), -1)
    if kind == "line":
        cv2.line(img, (0, 100), (199, 100), (20, 20, 20), 3)
    cv2.circle(img, (100, 100), int(pip / 2), (235, 235, 235), -1, cv2.LINE_AA)
    if kind == "sheen":
        yy, xx = np.mgrid[:200, :200].astype(np.float32)
        img += 90 * np.exp(-(xx - 100 - 0.9 * pip) ** 2 / (2 * (0.12 * pip) ** 2)
                           - (yy - 100) ** 2 / (2 * (0.5 * pip) ** 2))[..., None]
    return cv2.GaussianBlur(np.clip(img, 0, 255).astype(np.uint8), (0, 0), 1.0)


@pytest.mark.parametrize("kind,radii,glare,face_round", [
    ("plain", (0.9, 1.2), 3, True),
    ("plain", (0.9,), 3, True),
    ("sheen", (0.9, 1.2), 3, True),  # the face colour all round it a little farther out
    ("sheen", (0.9,), None, False),  # (the former single ring: the 1 was lost)
    ("sheen", (0.9,), 3, True),  # one run of brighter samples: a highlight (session 26)
    ("line", (0.9, 1.2), 3, False),  # a dot on a line is on no face at either ring
    ("line", (0.9,), 3, False),
])
def test_a_lone_pip_with_a_sheen_beside_it_is_on_a_face(kind, radii, glare, face_round):
    """`_face_round_pip` (the cheap test of a 1) asks the face colour round a lone pip at
    each ring of `one_ring_radii` (session 16): one passing ring is enough; a run of up to
    `one_ring_glare` brighter samples in a ring is a highlight (session 26)."""
    s = dataclasses.replace(SETTINGS, one_ring_radii=radii, one_ring_glare=glare)
    chans = [None, None, _lone_pip_photo(kind)]
    assert _face_round_pip(chans, np.array([100.0, 100.0]), 20.0,
                           np.array([60.0, 160.0, 70.0]), 170.0, s) == face_round


_BLUE, _LIGHT_BLUE, _GREEN = (160, 40, 20), (220, 190, 90), (60, 170, 40)
_RED, _YELLOW, _BLACK, _WHITE = (40, 40, 210), (30, 200, 230), (25, 25, 25), (240, 240, 240)
_CARD = (245, 245, 245)


def _dots_face(colours, face) -> np.ndarray:
    """A 120 px square of colour `face` on a wooden table with 4 or 5 dots (one per
    colour of `colours`) in a die's layout, blurred, seeded noise."""
    rng = np.random.default_rng(0)
    img = np.full((300, 300, 3), (60, 110, 170), np.float32)
    cv2.rectangle(img, (90, 90), (210, 210), face, -1)
    spots = [(-1, -1), (1, -1), (-1, 1), (1, 1)] if len(colours) == 4 else [
        (-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)]
    for (u, v), c in zip(spots, colours, strict=True):
        cv2.circle(img, (150 + 32 * u, 150 + 32 * v), 12, c, -1, cv2.LINE_AA)
    img = cv2.GaussianBlur(img, (0, 0), 1.0) + rng.normal(0, 2, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("colours,face,with_hue,without", [
    # a game card's dots of several colours (Hop la bille): no die (read without the test)
    ((_BLUE, _LIGHT_BLUE, _GREEN, _LIGHT_BLUE), _CARD, [], [4]),
    ((_BLUE, _GREEN, _RED, _RED, _YELLOW), _CARD, [], [5]),
    # dice: pips of one paint, coloured, black (a black pip's hue is noise) or white
    ((_RED,) * 4, _CARD, [4], [4]),
    ((_BLACK,) * 5, (40, 210, 235), [5], [5]),
    ((_WHITE,) * 4, (170, 80, 30), [4], [4]),
])
def test_pips_of_one_face_are_one_paint(colours, face, with_hue, without):
    """`pip_hue` (session 16): two saturated pips of hues far apart are not linked. (Without
    `red_one_mid` too, session 17: it drops the light blue dots before any link.) Since
    session 29 the pips' paint directions (`paint_turn_many`) drop the cards' faces too."""
    img = _dots_face(colours, face)
    assert [d.value for d in read_dice(img)[0]] == with_hue
    s = dataclasses.replace(SETTINGS, red_one_mid=None)
    assert [d.value for d in read_dice(img, s)[0]] == with_hue
    s = dataclasses.replace(SETTINGS, pip_hue=None, red_one_mid=None)
    assert [d.value for d in read_dice(img, s)[0]] == with_hue
    s = dataclasses.replace(s, paint_turn_many=None)
    assert [d.value for d in read_dice(img, s)[0]] == without


def _big_dot_face(colour, seed: int) -> np.ndarray:
    """A white 90 px square face on a wooden table with one big dot (26 px) of `colour` in
    its middle (a white die's one-pip, or a game card's coloured ball), blurred, seeded
    noise."""
    rng = np.random.default_rng(seed)
    img = np.full((240, 240, 3), (60, 110, 170), np.float32)
    cv2.rectangle(img, (75, 75), (165, 165), _CARD, -1)
    cv2.circle(img, (120, 120), 13, colour, -1, cv2.LINE_AA)
    img = cv2.GaussianBlur(img, (0, 0), 1.0) + rng.normal(0, 2, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("colour,with_mid,without", [
    # a red one-pip absorbs G and B: dark in the middle channel too
    (_RED, [1], [1]),
    ((30, 30, 150), [1], [1]),  # dark red
    (_BLACK, [1], [1]),
    # a yellow or light blue ball is dark in one channel only: no 1 (read without the test)
    (_YELLOW, [], [1]),
    (_LIGHT_BLUE, [], [1]),
])
@pytest.mark.parametrize("seed", [0, 1])  # noise
def test_a_one_pip_dark_in_one_channel_only_is_no_pip(colour, with_mid, without, seed):
    """`red_one_mid` (session 17): the big dark pips of min(B, G, R) must be dark in the
    middle channel of B, G, R too."""
    img = _big_dot_face(colour, seed)
    assert [d.value for d in read_dice(img)[0]] == with_mid
    s = dataclasses.replace(SETTINGS, red_one_mid=None)
    assert [d.value for d in read_dice(img, s)[0]] == without
