"""Simsala Hopp tiles read by the cues that hold for any copy (vision.tile_cues)."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from scoring.labels import SIMSALA_LABELS
from vision.tile_cues import (
    CUES,
    colour_likelihood,
    disagreements,
    kind,
    light_hue,
    on_castle,
    photo_frogs,
    photo_light,
    photo_whites,
    reference_hues,
    reweigh,
    tile_colour,
    without_cast,
)

ARENA = (60, 40, 200)  # BGR red-pink around the tile
HUES = {"yellow": 100.0, "orange": 62.0, "blue": -85.0, "violet": -45.0}  # one photo's arms


def lab_bgr(L, a, b):
    """One BGR colour from CIE Lab (L 0-100, a/b about 0-centred)."""
    px = np.uint8([[[round(L * 255 / 100), a + 128, b + 128]]])
    return tuple(int(v) for v in cv2.cvtColor(px, cv2.COLOR_Lab2BGR)[0, 0])


def tile(face, drawing=None, size=32):
    """A crop: the arena around a tile of colour `face` (BGR) with a smaller `drawing` on it."""
    img = np.zeros((size, size, 3), np.uint8)
    img[:] = ARENA
    k = size // 8
    img[k:size - k, k:size - k] = face
    if drawing is not None:
        img[size // 3:2 * size // 3, size // 3:2 * size // 3] = drawing
    return img


CROPS = {  # label -> a crop of that kind from some copy
    "frog": tile(lab_bgr(60, -45, 55), lab_bgr(40, -35, 35)),  # green tile, darker frog
    "rabbit-white": tile(lab_bgr(92, 0, 3), lab_bgr(70, 0, 0)),  # cream tile, grey lines
    "cat": tile(lab_bgr(25, 0, 0), lab_bgr(10, 0, 0)),  # dark grey tile, black cat
    # pale tile, the player colour dominant in the rabbit and the frame
    "rabbit-orange": tile(lab_bgr(85, 5, 10), lab_bgr(65, 25, 45)),
    "rabbit-blue": tile(lab_bgr(88, -2, -8), lab_bgr(55, 0, -40)),
}


@pytest.mark.parametrize("label", sorted(CROPS))
@pytest.mark.parametrize("hues", [HUES, None])  # this photo's coats of arms, or none read
#   (the function alone: the pipeline leaves the colour out without the coats of arms)
def test_each_kind_is_most_likely_its_own(label, hues):
    lab, lightness = tile_colour(CROPS[label][None])
    like = colour_likelihood(lab, lightness, SIMSALA_LABELS, hues)[0]
    best = SIMSALA_LABELS[int(np.argmax(like))]
    assert kind(best) == kind(label), (label, like.round(2))


@pytest.mark.parametrize("scale", [
    1.0,  # ordinary light: the white rabbits are white, the cat a cat
    0.3,  # dim light (every lightness x0.3): still, by this photo's own light
])
def test_white_and_cat_by_the_photos_light(scale):
    lab = np.zeros((6, 3), np.float32)  # achromatic tiles
    lightness = np.array([90.0, 88.0, 85.0, 92.0, 87.0, 22.0]) * scale  # 5 white, 1 cat
    light = photo_light(lightness)
    like = colour_likelihood(lab, lightness, SIMSALA_LABELS, HUES, light)
    white, cat = SIMSALA_LABELS.index("rabbit-white"), SIMSALA_LABELS.index("cat")
    assert (like[:5, white] > like[:5, cat]).all()
    assert like[5, cat] > like[5, white]
    absolute = colour_likelihood(lab, lightness, SIMSALA_LABELS, HUES, None)  # (no light)
    assert (absolute[:5, white] > absolute[:5, cat]).all() == (scale == 1.0)


def test_too_few_candidates_give_no_photo_light():
    assert photo_light(np.array([50.0, 60.0])) is None


def test_the_arena_around_a_white_tile_is_not_its_colour():
    """Pixels of the red arena inside the crop's middle do not make a white tile red."""
    crop = tile(lab_bgr(92, 0, 3))
    crop[12:20, 10:22] = ARENA  # a red gap through the tile's middle
    lab, _ = tile_colour(crop[None])
    assert np.hypot(lab[0, 1], lab[0, 2]) < CUES.white_chroma


@pytest.mark.parametrize("hues, frog", [
    (HUES, 132.0),  # yellow 100 turned away from orange (62) toward green
    (None, 122.0),  # the usual hues: yellow 90
    ({"yellow": 90.0, "orange": 120.0, "blue": -85.0, "violet": -45.0}, 58.0),  # mirrored
])
def test_frog_green_turns_from_yellow_away_from_orange(hues, frog):
    assert reference_hues(hues)["frog"] == pytest.approx(frog)


def test_reweigh_keeps_the_piece_mass_and_lets_a_clear_colour_win():
    probs = np.array([[0.1, 0.0, 0.855, 0.0, 0.0, 0.0, 0.0, 0.045]])  # 8 columns, last: bg
    like = np.array([[0.9, 0.0, 0.01, 0.01, 0.01, 0.01, 0.0]])  # green: frog, not yellow
    out = reweigh(probs, list(range(7)), SIMSALA_LABELS, like)
    assert out[0, :7].sum() == pytest.approx(probs[0, :7].sum())
    assert out[0, 7] == probs[0, 7]  # whether it is a piece stays the classifier's call
    assert out[0, :7].argmax() == 0
    off = reweigh(probs, list(range(7)), SIMSALA_LABELS, like, s=replace(CUES, floor=1.0))
    assert np.array_equal(off, probs)


def test_reweigh_keeps_which_player_colour():
    """A coloured rabbit's colour cue says rabbit, not which player's: yellow against orange
    stays as the classifier (and the coats of arms) had it."""
    probs = np.array([[0.0, 0.3, 0.42, 0.18, 0.0, 0.0, 0.0, 0.1]])
    like = np.array([[0.0, 0.01, 0.8, 0.8, 0.8, 0.8, 0.0]])
    out = reweigh(probs, list(range(7)), SIMSALA_LABELS, like)
    assert out[0, 2] / out[0, 3] == pytest.approx(0.42 / 0.18)
    assert out[0, 2] + out[0, 3] > 0.85


def test_reweigh_leaves_what_is_hardly_a_tile():
    """A candidate the classifier gives little for any tile (a note, a pen) is not made a
    sure rabbit by its colour."""
    probs = np.array([[0.0, 0.01, 0.05, 0.03, 0.01, 0.01, 0.01, 0.11]])
    like = np.array([[0.0, 0.0, 0.9, 0.9, 0.9, 0.9, 0.0]])
    out = reweigh(probs, list(range(7)), SIMSALA_LABELS, like)
    assert np.array_equal(out, probs)


@pytest.mark.parametrize("point, castle", [
    ((-20, -20), True),  # beyond the top-left corner on both axes: the corner tower
    ((500, 503), True),  # beyond the bottom-right corner
    ((240, -30), True),  # beyond the top edge, mid-side: the wall and its coat of arms
    ((-5, 240), False),  # a tile at the arena's edge, mid-side
    ((-4, -4), False),  # a tile in the corner, just over the edge
    ((-120, -120), False),  # on the table beyond the castle
    ((240, -100), False),  # on the table beyond the north wall
    ((240, 240), False),  # in the arena
])
def test_castle(point, castle):
    assert on_castle(np.array([point], float), 480.0)[0] == castle


def test_disagreements_name_only_a_changed_kind():
    warn = disagreements(["rabbit-yellow", "rabbit-yellow", "frog"],
                         ["frog", "rabbit-orange", "frog"], np.array([[1, 2], [3, 4], [5, 6]]))
    assert len(warn) == 1 and "(1, 2)" in warn[0] and "counted as frog" in warn[0]


class _Index:
    """A classifier stand-in: its columns are the game's labels."""

    def index(self, label):
        return SIMSALA_LABELS.index(label)


@pytest.mark.parametrize("model, cue, counted, warned", [
    ("frog", "rabbit-yellow", "rabbit-yellow", True),  # the colour decided it: warned
    ("cat", "cat", "rabbit-white", False),  # the counts moved a third cat: not the colour's
    ("frog", "frog", "frog", False),  # all agree
])
def test_cue_warnings_name_only_what_the_colour_decided(model, cue, counted, warned):
    from vision.detections import Detections
    from vision.pipeline import Pipeline, game_vision

    pipe = Pipeline.__new__(Pipeline)
    pipe._classifier = _Index()
    n = len(SIMSALA_LABELS)
    model_probs, probs = np.zeros((1, n)), np.zeros((1, n))
    model_probs[0, SIMSALA_LABELS.index(model)] = 1.0
    probs[0, SIMSALA_LABELS.index(cue)] = 1.0
    det = Detections(labels=[counted], zones=["arena"], confidence=[0.9],
                     centers=np.array([[10.0, 20.0]], np.float32))
    out = pipe._cue_warnings(game_vision("simsala-hopp"), model_probs, probs, det)
    assert len(out) == int(warned)


def _ab(hue_deg, chroma):
    t = np.radians(hue_deg)
    return [chroma * np.cos(t), chroma * np.sin(t)]


@pytest.mark.parametrize("L, hue, chroma, cast, left", [
    (25.0, 58.0, 25.0, 60.0, (0.0, 3.0)),  # a dark grey cat turned orange by the lamp: grey
    (25.0, 58.0, 25.0, None, (24.9, 25.1)),  # no cast balanced away: as it was
    (85.0, 60.0, 55.0, 60.0, (54.9, 55.1)),  # a light orange rabbit: not dark, as it was
    (25.0, -75.0, 40.0, 60.0, (39.9, 40.1)),  # a dark blue rabbit: far from the light's hue
    (25.0, 60.0, 50.0, 60.0, (19.0, 21.0)),  # very orange and dark: only cast_chroma taken
])
def test_without_cast_takes_off_only_a_dark_tiles_cast(L, hue, chroma, cast, left):
    lab = np.array([[L, *_ab(hue, chroma)]])
    out = without_cast(lab, np.array([L]), 90.0, cast)
    c = float(np.hypot(out[0, 1], out[0, 2]))
    assert left[0] <= c <= left[1], c
    assert out[0, 0] == L


def test_a_cast_cat_is_a_cat_again():
    """A dark tile at the light's hue, chromatic enough to pass for a coloured rabbit, is a
    cat once the cast is taken off."""
    labels = tuple(SIMSALA_LABELS)
    lab = np.array([[25.0, *_ab(58.0, 26.0)]])
    before = colour_likelihood(lab, np.array([25.0]), labels, HUES, 90.0)
    after = colour_likelihood(lab, np.array([25.0]), labels, HUES, 90.0, cast_hue=60.0)
    cat = labels.index("cat")
    assert before[0].argmax() != cat and after[0].argmax() == cat


@pytest.mark.parametrize("bgr, lo, hi", [
    ((120, 180, 250), 30.0, 90.0),  # a warm lamp: its light is orange
    ((250, 200, 160), -150.0, -60.0),  # daylight's blue
])
def test_light_hue(bgr, lo, hi):
    img = np.full((40, 40, 3), bgr, np.uint8)
    assert lo <= light_hue(img) <= hi


def test_light_hue_of_a_black_photo_is_none():
    """A black photo has no light: no hue (its gains are 0, and 1 / 0 made the light inf
    and its hue a NaN cast to uint8, a number that meant nothing), and no warning."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert light_hue(np.zeros((40, 40, 3), np.uint8)) is None


def _photo(tiles, chroma=50.0):
    """(probs (N, C+1) read as each tile's label, 0.9 sure; lab (N, 3)) for tiles given as
    (label read, degrees past this photo's yellow coat of arms toward green)."""
    labels = tuple(SIMSALA_LABELS)
    probs = np.full((len(tiles), len(labels) + 1), 0.1 / len(labels))
    lab = np.zeros((len(tiles), 3))
    for i, (read, past) in enumerate(tiles):
        probs[i, labels.index(read)] = 0.9
        lab[i] = (70.0, *_ab(HUES["yellow"] + past, chroma))
    return probs, lab


@pytest.mark.parametrize("tiles, frogs", [
    # a frog read as a yellow rabbit among the photo's frogs (the lamp's curve): a frog
    ([("frog", 30), ("frog", 31), ("frog", 29), ("rabbit-yellow", 25)], [0, 1, 2, 3]),
    # yellow rabbits short of the photo's frogs: left
    ([("rabbit-yellow", 0), ("rabbit-yellow", 3), ("frog", 28), ("frog", 30)], [2, 3]),
    # four frogs all read as yellow rabbits: the two beyond the game's two give the green
    ([("rabbit-yellow", 20), ("rabbit-yellow", 21), ("rabbit-yellow", 22),
      ("rabbit-yellow", 23)], [0, 1, 2, 3]),
    # ... but where those lie short of green (`frog_min_turn`), nothing is changed
    ([("rabbit-yellow", -3), ("rabbit-yellow", -1), ("rabbit-yellow", 2),
      ("rabbit-yellow", 4)], []),
    # a misread orange rabbit among the yellow readings takes no yellow place: one frog
    # and no yellow reading beyond the two give no green, the yellow rabbits stay
    ([("rabbit-yellow", -24), ("rabbit-yellow", 12), ("rabbit-yellow", 15), ("frog", 30)],
     [3]),
    # one frog alone gives no photo's green (`frog_anchors`)
    ([("frog", 30), ("rabbit-yellow", 25)], [0]),
    # a tile far past the frogs' window is not judged (`frog_window`)
    ([("frog", 30), ("frog", 31), ("rabbit-yellow", 120)], [0, 1]),
])
def test_photo_frogs_reads_a_yellow_reading_among_the_frogs_as_a_frog(tiles, frogs):
    labels = tuple(SIMSALA_LABELS)
    probs, lab = _photo(tiles)
    columns = list(range(len(labels)))
    out = photo_frogs(probs, columns, labels, lab, HUES)
    read = out[:, columns].argmax(axis=1)
    assert list(np.flatnonzero(read == labels.index("frog"))) == frogs
    np.testing.assert_allclose(out.sum(axis=1), probs.sum(axis=1))  # only swapped


def test_photo_frogs_needs_colour_not_the_coats_of_arms():
    labels = tuple(SIMSALA_LABELS)
    columns = list(range(len(labels)))
    tiles = [("frog", 30), ("frog", 31), ("rabbit-yellow", 28)]
    probs, lab = _photo(tiles)
    # (no coats of arms read: the usual hues only say which side of the frogs yellow lies)
    assert photo_frogs(probs, columns, labels, lab, None)[2].argmax() == labels.index("frog")
    pale, pale_lab = _photo(tiles, chroma=8.0)  # achromatic: white rabbits, not frogs
    assert np.array_equal(photo_frogs(pale, columns, labels, pale_lab, HUES), pale)
    off = replace(CUES, frog_spread=0.0)
    assert photo_frogs(probs, columns, labels, lab, HUES, s=off) is probs
    assert photo_frogs(probs[:0], columns, labels, lab[:0], HUES).shape == (0, len(labels) + 1)


def _whites(tiles):
    """(probs (N, C+1) each read as a white rabbit, 0.8 sure, 0.1 blue, 0.1 yellow; lab
    (N, 3)) for tiles given as (a*, b*) colours."""
    labels = tuple(SIMSALA_LABELS)
    probs = np.zeros((len(tiles), len(labels) + 1))
    probs[:, labels.index("rabbit-white")] = 0.8
    probs[:, labels.index("rabbit-blue")] = 0.1
    probs[:, labels.index("rabbit-yellow")] = 0.1
    lab = np.array([(80.0, a, b) for a, b in tiles])
    return probs, lab


WARM = [(4.0, 14.0), (5.0, 15.0), (3.0, 13.0), (4.0, 16.0)]  # whites under a warm cast


@pytest.mark.parametrize("extra, read", [
    # a pale blue rabbit dulled by the cast (chroma 12, under `white_chroma`): toward blue
    # of the photo's own whites by 20+: blue
    ((*_ab(HUES["blue"], 12.0)[:1], _ab(HUES["blue"], 12.0)[1]), "rabbit-blue"),
    # one more white, a little off: white
    ((6.0, 20.0), "rabbit-white"),
    # a white further along the warm light's hue (its falloff): white, not yellow
    ((0.0, 40.0), "rabbit-white"),
])
def test_photo_whites_reads_a_cold_tile_among_the_whites_by_its_colour(extra, read):
    labels = tuple(SIMSALA_LABELS)
    columns = list(range(len(labels)))
    probs, lab = _whites(WARM + [tuple(extra)])
    out = photo_whites(probs, columns, labels, lab, HUES)
    got = [labels[j] for j in out[:, columns].argmax(axis=1)]
    assert got[:-1] == ["rabbit-white"] * len(WARM)
    assert got[-1] == read
    np.testing.assert_allclose(out.sum(axis=1), probs.sum(axis=1))


COOL = [(-4.0, -9.0), (-5.0, -10.0), (-3.0, -8.0), (-4.0, -11.0)]  # bluish whites (no warm
#                                                                     cast)
DAY = [(0.0, -28.0), (-1.0, -30.0), (1.0, -29.0), (0.0, -31.0)]  # whites under a blue cast
CLOSE = dict(HUES, yellow=90.0)  # a photo whose yellow and orange coats of arms lie 28 apart


@pytest.mark.parametrize("whites, extra, hues, cast, read", [
    # a pale orange rabbit dulled under `white_chroma` (chroma 16) among bluish whites:
    # 25+ from them toward the warm colours: orange
    (COOL, tuple(_ab(HUES["orange"], 16.0)), HUES, None, "rabbit-orange"),
    (COOL, tuple(_ab(HUES["yellow"], 16.0)), HUES, None, "rabbit-yellow"),
    # among whites under a blue cast the difference leans toward yellow (its hue 80, nearer
    # yellow's 90 than orange's 62): the tile's own hue tells orange
    (DAY, tuple(_ab(HUES["orange"], 16.0)), CLOSE, None, "rabbit-orange"),
    # ... where a cool light had to be balanced away: still orange
    (COOL, tuple(_ab(HUES["orange"], 16.0)), HUES, -95.0, "rabbit-orange"),
    # a warm lamp balanced away (its light's hue 85, 23 from orange): a white along its
    # falloff, though the balanced whites show no cast
    (COOL, tuple(_ab(HUES["orange"], 16.0)), HUES, 85.0, "rabbit-white"),
    # the same orange tile among whites under a warm cast toward it: a white further along
    # the lamp's hue, white as before
    (WARM, tuple(_ab(HUES["orange"], 24.0)), HUES, None, "rabbit-white"),
    # near the bluish whites: white
    (COOL, (0.0, 2.0), HUES, None, "rabbit-white"),
])
def test_photo_whites_reads_a_warm_tile_only_where_the_whites_show_no_warm_cast(
        whites, extra, hues, cast, read):
    labels = tuple(SIMSALA_LABELS)
    columns = list(range(len(labels)))
    probs, lab = _whites(whites + [extra])
    out = photo_whites(probs, columns, labels, lab, hues, cast_hue=cast)
    got = [labels[j] for j in out[:, columns].argmax(axis=1)]
    assert got == ["rabbit-white"] * len(whites) + [read]
    np.testing.assert_allclose(out.sum(axis=1), probs.sum(axis=1))
    cold = replace(CUES, white_warm_cast=-1e9)  # (cold colours only, as before)
    assert photo_whites(probs, columns, labels, lab, hues, cast_hue=cast,
                        s=cold)[-1].argmax() == \
        labels.index("rabbit-white")


def test_photo_whites_needs_the_coats_of_arms_and_three_whites():
    labels = tuple(SIMSALA_LABELS)
    columns = list(range(len(labels)))
    blue = tuple(_ab(HUES["blue"], 12.0))
    probs, lab = _whites(WARM + [blue])
    assert photo_whites(probs, columns, labels, lab, None) is probs
    few, few_lab = _whites(WARM[:1] + [blue])  # two white readings make no photo's white
    assert photo_whites(few, columns, labels, few_lab, HUES) is few
    off = replace(CUES, white_apart=0.0)
    assert photo_whites(probs, columns, labels, lab, HUES, s=off) is probs


def test_photo_whites_takes_no_warm_colour_on_a_photo_with_a_lamp_spot():
    # a lamp's spot warms the tiles round it locally: no warm swap there, cold ones still
    labels = tuple(SIMSALA_LABELS)
    columns = list(range(len(labels)))
    for colour, read in (("orange", "rabbit-white"), ("blue", "rabbit-blue")):
        probs, lab = _whites(COOL + [tuple(_ab(HUES[colour], 30.0))])
        out = photo_whites(probs, columns, labels, lab, HUES, spot=True)
        assert labels[int(out[-1, columns].argmax())] == read


GREY = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)]  # whites close together
WIDE = [(6.0, 0.0), (-6.0, 0.0), (0.0, 6.0), (0.0, -6.0), (0.0, 0.0)]  # ... 6 apart on the median


@pytest.mark.parametrize("whites, colour, chroma, light, read", [
    # dim light (the whites' middles at L 40: a*, b* x 56/116, `white_apart` 9.2): a pale
    # blue or violet rabbit 12 from close whites is that rabbit
    (GREY, "blue", 12.0, 40.0, "rabbit-blue"),
    (GREY, "violet", 12.0, 40.0, "rabbit-violet"),
    # the same tile in full light (L 95: 18.2 wanted): white
    (GREY, "blue", 12.0, 95.0, "rabbit-white"),
    # dim, but the white readings lie 6 apart on the median (3 x 6 = 18 wanted): white
    (WIDE, "blue", 12.0, 40.0, "rabbit-white"),
    # dim, toward a warm colour: only from `white_apart` as before
    (GREY, "orange", 12.0, 40.0, "rabbit-white"),
    # dim, nearer than the light's share of `white_apart`: white
    (GREY, "blue", 8.0, 40.0, "rabbit-white"),
])
def test_photo_whites_takes_a_nearer_cold_tile_under_a_dim_light_by_the_whites_spread(
        whites, colour, chroma, light, read):
    labels = tuple(SIMSALA_LABELS)
    columns = list(range(len(labels)))
    probs, lab = _whites(whites + [tuple(_ab(HUES[colour], chroma))])
    lightness = np.full(len(lab), light)
    out = photo_whites(probs, columns, labels, lab, HUES, lightness=lightness)
    got = [labels[j] for j in out[:, columns].argmax(axis=1)]
    assert got == ["rabbit-white"] * len(whites) + [read]
    np.testing.assert_allclose(out.sum(axis=1), probs.sum(axis=1))
    # without the tiles' lightness, with the rule off, or where a cast was balanced away:
    # `white_apart` alone (12 < 19)
    for kw in ({}, {"s": replace(CUES, white_spread=0.0), "lightness": lightness},
               {"cast_hue": 65.0, "lightness": lightness}):
        assert photo_whites(probs, columns, labels, lab, HUES, **kw)[-1].argmax() == \
            labels.index("rabbit-white")
