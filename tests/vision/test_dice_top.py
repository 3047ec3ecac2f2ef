"""Which of a die's faces is its top (`vision.dice._top_faces`): the camera's nadir from
the faces' foreshortening, two square-looking faces are two dice, and a face from above
is a side face only where die-coloured surface lies on its far side from the image centre."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import replace

import numpy as np
import pytest

from vision.dice import (
    SETTINGS,
    Face,
    Pips,
    _aniso,
    _die_share,
    _face_above,
    _nadir,
    _off_plane,
    _table_between,
    _top_faces,
)

SHAPE = (600, 800)  # (h, w) of the photo


def _face(value, centre, lin, colour=(240.0, 240.0, 240.0)) -> Face:
    lin = np.asarray(lin, float)
    return Face(value=value, center=np.asarray(centre, float), pips=list(range(value)),
                confidence=0.9, extent=np.zeros(SETTINGS.rays),
                area=float(abs(np.linalg.det(lin)) * 4), lin=lin,
                colour=np.asarray(colour, float),
                shape_measured=value not in (2, 3))  # (a 2's or 3's square is a guess)


def _squashed(half, aniso):  # a face squashed along the image's vertical
    return [[half, 0.0], [0.0, half / aniso]]


@pytest.mark.parametrize("anisos,below,slanted,from_above", [
    ((), 0.0, False, False),  # no 4-6 pip face: the tilt is unknown, the image centre
    ((1.0, 1.08), 0.0, False, True),  # from above: the centre (the roll is anything)
    ((1.3, 1.3), 0.8 * 800 * math.sqrt(1.3**2 - 1), False, False),  # tilted ~40 degrees
    ((2.0, 2.0, 1.0), 0.8 * 800 * math.sqrt(3), True, False),  # the median, slanted
])
def test_nadir_lies_below_the_centre_by_the_tilt(anisos, below, slanted, from_above):
    faces = [_face(5, (100 + 150 * k, 100), _squashed(20, a)) for k, a in enumerate(anisos)]
    nadir, is_slanted, is_above = _nadir(faces, [_aniso(f.lin) for f in faces], SHAPE,
                                         SETTINGS)
    assert nadir == pytest.approx([400, 300 + below])
    assert (is_slanted, is_above) == (slanted, from_above)


@pytest.mark.parametrize("aniso,kept", [
    (1.0, 2),  # two square-looking faces: two dice of different size, both read
    (2.0, 1),  # a squashed face beside a square one: its side face, dropped
])
def test_square_faces_side_by_side_are_two_dice(aniso, kept):
    big = _face(5, (400, 300), _squashed(30, 1.0))
    small = _face(4, (400 + 30 + 20, 300), [[20, 0], [0, 20 / aniso]])
    out, _ = _top_faces([big, small], SHAPE, SETTINGS)
    assert len(out) == kept and big in out


def test_side_face_lies_towards_the_tilted_nadir():
    """A photo taken at about 45 degrees whose top face looks squashed by 1.27 only (not
    'slanted'; a 2 on the side face does not fix its shape): the face below a die's top face
    is its side face, though the top face lies farther from the image centre."""
    top = _face(5, (480, 365), _squashed(36, 1.27))
    side = _face(2, (484, 413), _squashed(33, 1.7))  # edge to edge
    out, _ = _top_faces([top, side], SHAPE, SETTINGS)
    assert [f.value for f in out] == [5]


def _photo_with_side_face_above(centre, half, aniso):
    """A dark table with a white face and a white strip (a side face) right above it."""
    img = np.full((SHAPE[0], SHAPE[1], 3), 40, np.uint8)
    x, y = centre
    h = half / aniso
    img[int(y - h):int(y + h), int(x - half):int(x + half)] = 240
    img[int(y - h - 1.8 * h):int(y - h), int(x - half):int(x + half)] = 225
    return img


@pytest.mark.parametrize("from_above,kept", [
    (True, True),  # taken from above: below the centre, the side faces show above a top
    (False, False),  # tilt unknown (no 4-6 pip face): straight up, a side face
])
def test_face_from_above_with_a_side_face_towards_the_centre(from_above, kept):
    three = _face(3, (400, 450), _squashed(30, 1.45))
    faces = [three]
    if from_above:
        faces.append(_face(5, (150, 120), _squashed(30, 1.0)))
    img = _photo_with_side_face_above((400, 450), 30, 1.45)
    out, warnings = _top_faces(faces, SHAPE, SETTINGS, img)
    assert (three in out) == kept
    assert any("only a side face" in w for w in warnings) == (not kept)


def _side_face(half, yaw_deg, elev_deg=50.0):
    """A die's side face seen from `elev_deg` with the die turned by `yaw_deg`: its
    vertical edge is the image's vertical (foreshortened by cos e), its other edge runs
    obliquely (the table's foreshortening along it)."""
    y, e = math.radians(yaw_deg), math.radians(elev_deg)
    return [[half * math.cos(y), 0.0], [half * math.sin(y) * math.sin(e), half * math.cos(e)]]


WHITE, GREY, RED = (240.0, 240.0, 240.0), (190.0, 190.0, 190.0), (40.0, 35.0, 200.0)


@pytest.mark.parametrize("lower_lin,colour,kept", [
    # a side face squashed about as much as the top face (1.66 vs 1.4 at 50 degrees, yaw
    # 20), but along another direction, in the die's colour shaded darker: dropped
    (_side_face(30, 20), GREY, [5]),
    # the same shape in another colour: a second die, not this one's side
    (_side_face(30, 20), RED, [5, 4]),
    # a face in the table's plane (the top face's square turned by 90 degrees): the top
    # face of a touching die in front of it, kept
    ([[0.0, -30.0], [30 / 1.4, 0.0]], WHITE, [5, 4]),
])
def test_touching_dice_have_coplanar_top_faces(lower_lin, colour, kept):
    top = _face(5, (400, 300), _squashed(30, 1.4))
    lower = _face(4, (400, 300 + 30 / 1.4 + 30 * math.cos(math.radians(50))), lower_lin,
                  colour)
    out, _ = _top_faces([top, lower], SHAPE, SETTINGS)
    assert [f.value for f in out] == kept


def test_two_or_three_pips_do_not_fix_a_faces_shape():
    """A 2 below a 3 (their squares are guesses from the border: a diagonal does not fix
    a face's shape), alike in foreshortening and size: kept as two dice whatever the
    guessed squares' directions (two touching dice in a fresh photo were lost so)."""
    three = _face(3, (400, 300), _squashed(30, 1.4))
    two = _face(2, (400, 300 + 30 / 1.4 + 30 * math.cos(math.radians(50))),
                _side_face(30, 20), GREY)
    out, _ = _top_faces([three, two], SHAPE, SETTINGS)
    assert [f.value for f in out] == [3, 2]


def test_a_face_below_a_side_face_is_another_dies_top():
    """Three faces stacked down the photo (taken at about 50 degrees): a die's top face,
    its side face, and the top face of a die in front of it. The lowest lies below a side
    face only, so it is not a side face: kept; the middle one is dropped."""
    half, h_top, h_side = 30, 30 / 1.4, 30 * math.cos(math.radians(50))
    back = _face(5, (400, 200), _squashed(half, 1.4))
    side = _face(4, (400, 200 + h_top + h_side), _side_face(half, 20), GREY)
    front = _face(6, (400, 200 + h_top + 2 * h_side + h_top), _squashed(half, 1.4))
    out, _ = _top_faces([back, side, front], SHAPE, SETTINGS)
    assert [f.value for f in out] == [5, 6]


@pytest.mark.parametrize("squash", [1.25, 1.28])
@pytest.mark.parametrize("measured,kept", [
    (False, [5, 1]),  # a 1 with a tiny pip: its square is a guess (unsquashed), kept
    (True, [5]),  # a 1 whose square was measured: unlike the 5's, its side face
])
def test_a_guessed_square_does_not_fix_a_faces_shape(squash, measured, kept):
    """A 5 squashed by 1.25-1.3 and a touching 1 of its colour below it whose square is
    unsquashed: where that square is a guess (a pip under 6 px: no ellipse to un-squash
    by), the shape test is not asked and the two are two dice, as for a 2 or 3."""
    top = _face(5, (400, 300), _squashed(30, squash))
    one = _face(1, (400, 300 + 30 / squash + 30), [[30.0, 0.0], [0.0, 30.0]])
    one.shape_measured = measured
    out, _ = _top_faces([top, one], SHAPE, SETTINGS)
    assert [f.value for f in out] == kept


def test_a_measured_one_beside_a_two_keeps_the_shape_test():
    """The test is skipped for the face with fewer pips only: a 1 whose square was measured
    above a 2 side face of unlike shape drops the 2 (skipping it because the 2's square is
    a guess kept such side faces as second dice on a fresh seed)."""
    one = _face(1, (400, 300), _squashed(30, 1.4))
    two = _face(2, (400, 300 + 30 / 1.4 + 30 * math.cos(math.radians(50))),
                _side_face(30, 20), GREY)
    out, _ = _top_faces([one, two], SHAPE, SETTINGS)
    assert [f.value for f in out] == [1]


@pytest.mark.parametrize("top_half,square_elsewhere,kept", [
    (26, False, [4]),  # seen from low: the smaller face above is the top, the side dropped
    (26, True, [5, 6]),  # a face elsewhere looks square (from above): smaller is the side
    (14, False, [5]),  # half as wide as the face below it: no top face of that die
])
def test_seen_from_low_the_top_face_is_the_smaller(top_half, square_elsewhere, kept):
    """A photo taken at about 25-35 degrees: a die's top face (a 4, squashed by 2.5) looks
    smaller than its side face below it (a 5, squashed by 1.15); they share an edge, so
    they are about as wide. Only where no face looks square (a top face seen from above,
    whose side faces are slivers) and the two are as wide is the smaller one the top."""
    top = _face(4, (400, 300), _squashed(top_half, 2.5))
    side = _face(5, (400, 300 + top_half / 2.5 + 30 / 1.15), _squashed(30, 1.15))
    faces = [top, side]
    if square_elsewhere:
        faces.append(_face(6, (150, 100), _squashed(30, 1.0)))
    out, _ = _top_faces(faces, SHAPE, SETTINGS)
    assert sorted(f.value for f in out) == kept


def _photo_with_top_aside(centre, half, aniso, below):
    """A dark table, a white face, and white surface up and to the right of it (a turned
    die's top face); `below`: more of it right under the face (a top face's own sides)."""
    img = np.full((SHAPE[0], SHAPE[1], 3), 40, np.uint8)
    x, y = centre
    h = half / aniso
    img[int(y - h):int(y + h), int(x - half):int(x + half)] = 240
    img[int(y - h - 3 * h):int(y - h), int(x + 0.35 * half):int(x + 3 * half)] = 225
    if below:
        img[int(y + h):int(y + 3 * h), int(x - half):int(x + half)] = 200
    return img


@pytest.mark.parametrize("below,turns,kept", [
    (False, SETTINGS.aside_turns_deg, False),  # the top up and aside, table below: a side
    (True, SETTINGS.aside_turns_deg, True),  # die surface below too: a top with its sides
    (False, None, True),  # the rule off: nothing straight above, kept
])
def test_side_face_of_a_turned_die_has_its_top_up_and_aside(below, turns, kept):
    s = replace(SETTINGS, aside_turns_deg=turns)
    four = _face(4, (400, 400), _squashed(30, 1.6))
    img = _photo_with_top_aside((400, 400), 30, 1.6, below)
    assert not _face_above(four, img, np.array([0.0, -1.0]), s)  # straight up: no die
    out, _ = _top_faces([four], SHAPE, s, img)
    assert (four in out) == kept


@pytest.mark.parametrize("aside_other,kept", [
    (SETTINGS.aside_other, True),  # a read face foreshortened alike up there: the top of a
    # die touching it, not this face's top
    (None, False),  # without that test: dropped as a side face
])
def test_the_top_of_a_touching_die_aside_is_not_this_faces_top(aside_other, kept):
    four = _face(4, (400, 400), _squashed(30, 1.6))
    other = _face(5, (430, 355), _squashed(30, 1.6))
    img = _photo_with_top_aside((400, 400), 30, 1.6, False)
    out, _ = _top_faces([four, other], SHAPE, replace(SETTINGS, aside_other=aside_other), img)
    assert (four in out) == kept


BLUE = (56.0, 33.0, 24.0)  # a blue die's shaded side (saturation 0.57)
PALE_BLUE = (52.0, 33.0, 28.0)  # saturation 0.46: under the die's floor of `die_hue`
TUNGSTEN_WHITE = (150.0, 190.0, 230.0)  # a white die under tungsten light (saturation 0.35)


@pytest.mark.parametrize("die,sample,hue_on,hue_off,one_floor", [
    (BLUE, (166, 88, 48), True, False, True),  # a blue die's top in the light above its
    # shaded side
    (BLUE, (60, 90, 140), False, False, False),  # wood: another hue
    (BLUE, (128, 128, 128), False, False, False),  # grey: no hue
    (BLUE, (55, 34, 25), True, True, True),  # the side's own colour: by its chroma
    (PALE_BLUE, (166, 88, 48), False, False, True),  # a die too pale to go by its hue
    (PALE_BLUE, (50, 34, 28), True, True, True),  # its own colour: by its chroma
    # a white die under tungsten light and wooden tables of its hue: no match (one floor
    # of 0.3 for both, die and sample, matched them)
    (TUNGSTEN_WHITE, (60, 110, 170), False, False, True),
    (TUNGSTEN_WHITE, (40, 90, 150), False, False, True),
    (TUNGSTEN_WHITE, (90, 140, 190), False, False, True),
])
def test_a_coloured_die_lit_apart_keeps_its_hue(die, sample, hue_on, hue_off, one_floor):
    side = _face(4, (10, 10), _squashed(6, 1.0), colour=die)
    img = np.zeros((20, 20, 3), np.uint8)
    img[:] = sample
    pts = np.array([[10.0, 10.0]])
    assert (_die_share(side, img, pts, SETTINGS) == 1) == hue_on
    assert (_die_share(side, img, pts, replace(SETTINGS, die_hue=None)) == 1) == hue_off
    floor = SETTINGS.die_hue[1]
    assert (_die_share(side, img, pts, replace(SETTINGS, die_hue=(floor,) + SETTINGS.die_hue[1:])
                       ) == 1) == one_floor


@pytest.mark.parametrize("rule,kept", [
    (True, [4]),  # the 5 has die surface above it (a side face whose top went unread):
    # the face below it lies below no top face, it is the top of a die in front
    (False, []),  # without the rule the 4 was taken for the 5's side face (dice-005's 3)
])
def test_a_face_below_a_side_face_is_a_top(rule, kept):
    # (`apart_by_table` off: the strip of table between them makes them two dice too)
    s = dataclasses.replace(SETTINGS, side_below_side=rule, apart_by_table=False)
    upper = _face(5, (400, 300), _squashed(30, 1.4))
    # (a strip of table between the two: a die in front, not touching the 5)
    lower = _face(4, (400, 350), _side_face(30, 20), GREY)
    img = _photo_with_side_face_above((400, 300), 30, 1.4)
    out, warnings = _top_faces([upper, lower], SHAPE, s, img)
    assert [f.value for f in out] == kept
    assert any("only a side face (5)" in w for w in warnings)


@pytest.mark.parametrize("fill,gap,between", [
    (40, 30, True),  # dark table in a 30 px gap between two white faces: two dice apart
    (235, 30, False),  # white in the gap: die surface (one die's faces), no table
    (40, 1, False),  # the faces' borders (nearly) meet: no gap to look at
])
def test_table_between_two_faces(fill, gap, between):
    img = np.full((SHAPE[0], SHAPE[1], 3), fill, np.uint8)
    img[270:301, 370:431] = 240  # the upper face's square, bottom edge at y 300
    img[301 + gap:361 + gap, 370:431] = 240
    upper = _face(5, (400, 285), [[30.0, 0.0], [0.0, 15.0]])
    lower = _face(4, (400, 331 + gap), [[30.0, 0.0], [0.0, 30.0]])
    assert _table_between(upper, lower, img, SETTINGS) == between


LIT_BLUE = (174.0, 96.0, 48.0)  # a blue die's top face in the light (dice-018)


def _photo_top_and_lower(top: Face, lower: Face, below: str) -> np.ndarray:
    """A dark table with the two faces painted in their colours and, under the lower face,
    `below`: "table", or "side" (a shaded strip of its colour: a top face seen slanted shows
    its own side face below it)."""
    img = np.full((SHAPE[0], SHAPE[1], 3), (30, 60, 90), np.uint8)  # a brown table
    for f in (top, lower):
        hx, hy = np.abs(f.lin).sum(axis=1)
        x, y = f.center
        img[int(y - hy):int(y + hy), int(x - hx):int(x + hx)] = f.colour
    if below == "side":
        hx, hy = np.abs(lower.lin).sum(axis=1)
        x, y = lower.center
        img[int(y + hy):int(y + hy + 40), int(x - hx):int(x + hx)] = 0.75 * lower.colour
    return img


@pytest.mark.parametrize("dx,below,on_table,kept", [
    (0, "table", 0.7, [5]),  # the table right below the 3: it stands on it, a side face
    (0, "side", 0.7, [5, 3]),  # die colour below it: the top face of a die in front
    (0, "table", None, [5, 3]),  # (without the test: two dice, as before)
    (30, "table", 0.7, [5]),  # a little aside (cos 0.81 to the vertical): asked
    (60, "table", 0.7, [5, 3]),  # well aside (cos 0.56): not asked (dice side by side)
])
def test_a_face_standing_on_the_table_below_a_top_is_its_side(dx, below, on_table, kept):
    """A slanted photo (the 5 squashed 1.4): a 3 of the 5's colour right below it, alike
    in foreshortening and size (a 3's square is a guess) and shaded unlike it (a blue die's
    top in the light, its side in shade: the chroma differs, too pale for its hue), is the
    5's side face where the table lies right below the 3 (`side_on_table`, session 16:
    fresh 1952's and dice-018's false dice); with die colour below it, it is the top of
    a touching die in front, kept."""
    s = replace(SETTINGS, side_on_table=on_table)
    half, h_top, h_side = 30, 30 / 1.4, 30 * math.cos(math.radians(50))
    top = _face(5, (400, 250), _squashed(half, 1.4), LIT_BLUE)
    lower = _face(3, (400 + dx, 250 + h_top + h_side), _squashed(half, 1.4), PALE_BLUE)
    img = _photo_top_and_lower(top, lower, below)
    out, _ = _top_faces([top, lower], SHAPE, s, img)
    assert [f.value for f in out] == kept


@pytest.mark.parametrize("far_aniso,kept", [
    (1.4, [1, 5]),  # slanted: the guessed 3 standing on the table below the 1: its side
    (1.0, [1, 3, 5]),  # from above: the 1's measured square vouches for one plane
])
def test_a_guessed_square_vouches_for_no_plane_in_a_slanted_photo(far_aniso, kept):
    """A measured 1 and a 3 right below it, alike in foreshortening and size: in a slanted
    photo the 3's square is a guess, so the two are not called coplanar (two touching
    dice) for it, and the table right below the 3 makes it the 1's side face (fresh
    2153's red 1 above its side 3, session 17 H8); from above, where a side face is a
    sliver, the 1's measured square still says two dice (two touching white dice seen
    from above, fresh 2151 and 2153)."""
    half, h_top, h_side = 30, 30 / 1.4, 30 * math.cos(math.radians(50))
    far = _face(5, (100, 100), _squashed(25, far_aniso), LIT_BLUE)
    top = _face(1, (400, 250), _squashed(half, 1.4), LIT_BLUE)
    lower = _face(3, (400, 250 + h_top + h_side), _squashed(half, 1.4), PALE_BLUE)
    img = _photo_top_and_lower(top, lower, "table")
    out, _ = _top_faces([far, top, lower], SHAPE, SETTINGS, img)
    assert sorted(f.value for f in out) == kept


def _pips_with_shapes(shapes) -> Pips:
    """Pip candidates whose second moments are circles squashed by (aniso, direction in
    degrees) each: a (4 px)^2 circle's moments under that squash."""
    covs = []
    for aniso, deg in shapes:
        a = math.radians(deg)
        r = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        covs.append(r @ np.diag([16.0, 16.0 / aniso**2]) @ r.T)
    n = len(covs)
    z = np.zeros(n)
    return Pips(xy=np.zeros((n, 2)), d=np.full(n, 8.0), cov=np.array(covs),
                dark=np.ones(n, bool), level=z, face=z, contrast=z,
                colour=np.zeros((n, 3)), chan=np.zeros(n, int))


@pytest.mark.parametrize("odd_value,odd_shape,tops,kept", [
    (3, (1.4, 0.0), 3, False),  # squashed across the table's squash: a side face, dropped
    (3, (1.0, 0.0), 3, True),  # a round-pipped 3: within `off_plane`, kept
    (2, (1.4, 90.0), 3, True),  # pips squashed like the table's: a top, kept
    (4, (1.4, 0.0), 3, False),  # a measured 4 squashed across: dropped
    (3, (1.4, 0.0), 1, True),  # one measured face only: no plane, nothing dropped
])
def test_a_face_off_the_tables_plane_is_dropped(odd_value, odd_shape, tops, kept):
    """The top faces' pips are circles on one table, squashed alike (here 1.4 along the
    image's vertical, direction 90 degrees); a face whose pips are squashed unlike them is
    not flat on the table (`_off_plane`, session 17 H8): dropped with a warning."""
    shapes, faces = [], []
    for k, value in enumerate([5, 4, 6][:tops] + [odd_value]):
        odd = k == tops
        idx = list(range(len(shapes), len(shapes) + value))
        shapes += [odd_shape if odd else (1.4, 90.0)] * value
        f = _face(value, (100 + 150 * k, 300), _squashed(25, 1.4))
        f.pips = idx
        faces.append(f)
    p = _pips_with_shapes(shapes)
    out, warnings = _off_plane(faces, p, SETTINGS)
    assert any(f is faces[-1] for f in out) == kept
    assert len(out) == len(faces) - (not kept) and len(warnings) == (not kept)
    assert _off_plane(faces, p, replace(SETTINGS, off_plane=None))[0] == faces
    assert _off_plane(faces, p, replace(SETTINGS, face_affine=(1.0, 0.0, 0.0, 1.0)))[0] == faces


def _table_squash(y, tilt_deg, f=0.8 * 800, h=600):
    """A circle on the table at image row y, a camera tilted by tilt_deg from straight down
    (no roll): its short / long axis, cos(t + alpha) / cos(alpha)."""
    alpha = math.atan((h / 2 - y) / f)
    return math.cos(math.radians(tilt_deg) + alpha) / math.cos(alpha)


@pytest.mark.parametrize("tilt,odd,kept_new,kept_old", [
    (45, None, True, False),  # the far top (2.3 x) and the near ones (1.03 x): one camera
    (60, None, True, False),  # steeper: far 4.0 x, near 1.1 x
    (45, (1.8, 90.0), False, False),  # a side face squashed across the vertical: dropped
    # a near face squashed 1.8 x along it: a front side face (one shape: the mid and far
    # tops and it share one, and it is kept)
    (45, (1.8, 0.0), False, True),
    (0, None, True, True),  # from straight down: every top round, all kept either way
])
def test_a_slanted_tables_far_faces_are_on_its_plane(tilt, odd, kept_new, kept_old):
    """Under perspective a slanted camera sees the far (upper) part of the table more
    squashed than the near part (session 23, H1): with the photo's shape, `_off_plane` fits
    the camera's tilt to the measured faces and keeps a far top face that one shape for the
    whole photo drops; a face squashed unlike the camera's plane at its place is still
    dropped. The faces: two near tops (y 540), one mid (300), one far (60), then `odd` (its
    squash and direction, near, at y 540) or the far top last."""
    rows = [540, 540, 300] + ([60] if odd is None else [60, 540])
    shapes, faces = [], []
    for k, (value, y) in enumerate(zip([5, 4, 6, 4, 4], rows, strict=False)):
        idx = list(range(len(shapes), len(shapes) + value))
        last = k == len(rows) - 1
        shapes += [odd if (last and odd is not None) else
                   (1 / _table_squash(y, tilt), 0.0)] * value
        f = _face(value, (150 + 120 * k, y), _squashed(25, 1 / _table_squash(y, tilt)))
        f.pips = idx
        faces.append(f)
    p = _pips_with_shapes(shapes)
    out, warnings = _off_plane(faces, p, SETTINGS, SHAPE)
    assert any(f is faces[-1] for f in out) == kept_new
    assert len(out) == len(faces) - (not kept_new) and len(warnings) == (not kept_new)
    old, _ = _off_plane(faces, p, SETTINGS)  # (no shape: one shape for the photo)
    assert any(f is faces[-1] for f in old) == kept_old
    assert _off_plane(faces, p, replace(SETTINGS, plane_tilt_max=None), SHAPE)[0] == old


BLUE, LIT_RED, SHADED_RED = (200.0, 120.0, 60.0), (120.0, 110.0, 255.0), (10.0, 5.0, 150.0)


@pytest.mark.parametrize("upper_colour,lower_colour,unlike,kept", [
    (WHITE, GREY, 0.15, [3]),  # one material shaded darker: the lower is the top's side
    (WHITE, BLUE, 0.15, [3, 3]),  # a white and a blue die: two dice
    (BLUE, WHITE, 0.15, [3, 3]),
    (LIT_RED, SHADED_RED, 0.15, [3]),  # chroma drifts 0.38 in shade, the hue stays: one die
    (WHITE, BLUE, None, [3]),  # (without the rule: sizes apart, read as top and side)
])
def test_faces_of_different_materials_are_two_dice(upper_colour, lower_colour, unlike, kept):
    """Two 3s (guessed squares), the lower right below the upper and 0.59 of its area (too
    unlike in size for two touching dice of one colour): of plainly different materials
    (`unlike_chroma`, hues unlike) they are two dice; of one material, or one hue shaded
    (a coloured die's side in shade), the lower is the upper's side face (fresh 2901,
    2916, 2957: an ivory 3 below a blue 3, a white 1 beside a red 3; session 21, H8)."""
    s = replace(SETTINGS, unlike_chroma=unlike)
    upper = _face(3, (400, 300), _squashed(30, 1.4), upper_colour)
    lower = _face(3, (400, 300 + (30 + 23) / 1.4 + 2), _squashed(23, 1.4), lower_colour)
    out, _ = _top_faces([upper, lower], SHAPE, s)
    assert [f.value for f in out] == kept


def _photo_small_top_over_side(side_c, side_half, side_aniso, top_half, top_aniso):
    """A dark table, a white side face and right above it, edge to edge, a white top face
    (the top a little brighter, lit from above), nothing above the top."""
    img = np.full((SHAPE[0], SHAPE[1], 3), 40, np.uint8)
    x, y = side_c
    h, ht = side_half / side_aniso, top_half / top_aniso
    img[int(y - h):int(y + h), int(x - side_half):int(x + side_half)] = 225
    img[int(y - h - 2 * ht):int(y - h), int(x - side_half):int(x + side_half)] = 240
    return img, (x, y - h - ht)


@pytest.mark.parametrize("top_value,dx,setting,kept", [
    (1, 0, 0.85, [1]),  # a 1 right above its side face's 3, in a slanted photo: the top
    (1, 0, None, []),  # without the rule: the 1 "much smaller", the 3 a side face: both lost
    (3, 0, 0.85, [3]),  # a 3's guessed square above the side 3 likewise
    (4, 0, 0.85, []),  # a 4's area is measured: much smaller is a side (a 6's 4 pips)
    (1, 40, 0.85, []),  # the 1 up and aside (cos 0.6), not right above: no such rescue
])
def test_a_small_face_right_above_a_side_face_is_the_top(top_value, dx, setting, kept):
    """Session 27 (dice-acc): seen from about 40 degrees, a 1's or 3's face (its area a
    guess) lies right above a larger face that has die surface right above it (a side face
    by its own look): the face above a die's side face is its top."""
    s = replace(SETTINGS, small_top_over_side=setting)
    img, top_c = _photo_small_top_over_side((400, 450), 30, 1.41, 12, 1.4)
    side = _face(3, (400, 450), _squashed(30, 1.41), colour=(225.0, 225.0, 225.0))
    top = _face(top_value, (top_c[0] + dx, top_c[1]), _squashed(12, 1.4))
    top.shape_measured = top_value not in (2, 3)
    # elsewhere: two squashed 5s (a slanted photo) and a square-looking 6 (not "from low")
    far = [_face(5, (100, 80), _squashed(20, 2.0)), _face(5, (700, 80), _squashed(20, 2.0)),
           _face(6, (700, 540), _squashed(20, 1.05))]
    out, _ = _top_faces([side, top] + far, SHAPE, s, img)
    assert sorted(f.value for f in out if f is side or f is top) == kept


@pytest.mark.parametrize("value,measured_only,kept", [
    (2, True, True),  # a 2's guessed square, squashed: no side-face test from above
    (2, False, False),  # asked anyway: its own face lies "above" its narrow square
    (5, True, False),  # a 5's shape is measured: squashed from above, it is asked still
])
def test_from_above_a_guessed_square_is_no_squashed_side(value, measured_only, kept):
    """Session 27 (dice-acc): from above (a square 5 elsewhere) a 2's square is a guess
    along its pips' diagonal, here narrower than its white face; the surface-above test
    then samples the face itself and drops the top as a side face (fresh 4795's red 2)."""
    s = replace(SETTINGS, side_check_measured=measured_only)
    img = np.full((SHAPE[0], SHAPE[1], 3), 40, np.uint8)
    img[105:195, 365:435] = 240  # the whole face, larger than the guessed square
    face = _face(value, (400, 150), _squashed(30, 1.45))
    square = _face(5, (150, 500), _squashed(30, 1.0))
    out, warnings = _top_faces([face, square], SHAPE, s, img)
    assert any(f is face for f in out) == kept
    assert any("only a side face" in w for w in warnings) == (not kept)


@pytest.mark.parametrize("upper,gap,fill,apart,kept", [
    (2, 12, 40, True, [2, 4]),  # dark table between their borders: two dice, both tops
    (2, 12, 40, False, [2]),  # without the rule: the 4 lies below the 2, called its side
    (2, 12, 235, True, [2]),  # die surface between them: one die's top and side face
    (2, 1, 40, True, [2]),  # borders meeting: no gap to look at, top and side
    (1, 12, 40, True, [1]),  # a lone pip is not asked (false 1s on numbered discs)
])
def test_faces_with_table_between_them_are_two_dice(upper, gap, fill, apart, kept):
    """Session 27 (dice-acc): a die's top and side face share an edge; a 2 and a larger 4
    below it with the table between their borders are two dice (fresh 4815's white 4, 4802's
    dark red 2 and 4844's black 4 were dropped as side faces of the die above or beside)."""
    s = replace(SETTINGS, apart_by_table=apart)
    two = _face(upper, (400, 250), _squashed(30, 1.41))
    two.shape_measured = False  # (a guessed square, as a 2's)
    h2, h4 = 30 / 1.41, 38 / 1.25  # (the 4 1.8 x the 2's area: not alike in size)
    four = _face(4, (400, 250 + h2 + gap + h4), _squashed(38, 1.25))
    img = np.full((SHAPE[0], SHAPE[1], 3), 40, np.uint8)
    img[int(250 + h2):int(250 + h2 + gap), 360:441] = fill
    for f in (two, four):
        hx, hy = np.abs(f.lin).sum(axis=1)
        x, y = f.center
        img[int(y - hy):int(y + hy), int(x - hx):int(x + hx)] = 240
    out, _ = _top_faces([two, four], SHAPE, s, img)
    assert sorted(f.value for f in out) == kept


@pytest.mark.parametrize("small_lin,edge_ratio,kept", [
    ([[15, 0], [0, 15 / 1.41]], 2.5, True),  # a 2 a tenth as wide as the big face: no side
    ([[15, 0], [0, 15 / 1.41]], None, False),  # without the rule: "much smaller", a side
    ([[10, 0], [0, 90]], 2.5, False),  # a sliver as wide as the face's edge: its side face
])
def test_a_much_smaller_side_face_shares_an_edge(small_lin, edge_ratio, kept):
    """Session 27 (dice-acc): a much smaller adjacent face is the side face only where it
    is about as wide as the larger across the line of their centres (a side face shares
    an edge with its top): a huge false 1 made fresh 4828's green 6 beside it a side."""
    s = replace(SETTINGS, side_edge_ratio=edge_ratio)
    big = _face(1, (500, 300), _squashed(100, 1.0))  # (the small face away from the
    hx = small_lin[0][0]  # image centre: not its side by the nadir either)
    small = _face(2, (500 + 100 + hx + 5, 300), small_lin)
    out, _ = _top_faces([big, small], SHAPE, s)
    assert any(f is small for f in out) == kept


@pytest.mark.parametrize("side_aniso,top_half,top_aniso,setting,kept", [
    (1.05, 30, 2.2, 1.5, [4]),  # squashed 2.1 x more than the face below: the top seen low
    (1.05, 30, 2.2, None, [5]),  # without the rule: much smaller, so the side face (the base)
    (1.8, 25, 2.6, 1.5, [5]),  # squashed only 1.44 x more: the smaller is the side
    (1.05, 30, 3.4, 1.5, [5]),  # squashed past `tilt_max_aniso`: a sliver, not a top
])
def test_a_top_seen_from_low_is_squashed_more_than_its_side(side_aniso, top_half, top_aniso,
                                                            setting, kept):
    """Session 31 (dice-split): in a slanted photo (two 5s squashed 2.0 elsewhere) where a
    square-looking face keeps the photo from counting as taken from low, a die's top face
    (a 4) lies right above a larger face (a 5), about as wide and under half its area:
    squashed 1.5 x more along the vertical, it is the top seen from low and the 5 its side
    face (`_top_seen_low`); else the much smaller face is the side."""
    s = replace(SETTINGS, low_top_squash=setting)
    side = _face(5, (400, 400), _squashed(30, side_aniso))
    top = _face(4, (400, 400 - 30 / side_aniso - top_half / top_aniso),
                _squashed(top_half, top_aniso))
    assert top.area < s.side_area_ratio * side.area  # (the "much smaller" case)
    far = [_face(5, (100, 80), _squashed(20, 2.0)), _face(5, (700, 80), _squashed(20, 2.0)),
           _face(6, (700, 540), _squashed(20, 1.05))]
    out, _ = _top_faces([side, top] + far, SHAPE, s)
    assert [f.value for f in out if f is side or f is top] == kept
