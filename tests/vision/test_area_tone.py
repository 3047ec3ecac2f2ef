"""`vision.area.area_tone` and `vision.preprocess.tone_of_pixels`: a lamp's per-channel
tone curve read off the part of the photo the play-area network is sure of, for the cloth
stage (drawn here: a shaded cloth, a map standing in for the network's; no model)."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.area import AREA_SETTINGS, area_tone
from vision.preprocess import apply_tone, linear_to_srgb, srgb_to_linear, tone_of_pixels

CLOTH = AREA_SETTINGS["hop-la-bille"]


def shaded_cloth(cloth_bgr=(200, 215, 225), shade=(0.2, 1.0), seed=0):
    """(photo, map): a 360 x 480 uint8 BGR photo of a plain cloth (300 px square) whose
    light falls off from `shade[1]` (top) to `shade[0]` (bottom) in linear light, on a dark
    table, a little noise (seeded); and a float32 map, 0.95 on the cloth, 0.05 elsewhere."""
    rng = np.random.default_rng(seed)
    img = np.full((360, 480, 3), 60.0, np.float32) / 255.0
    lin = srgb_to_linear(np.asarray(cloth_bgr, np.float32) / 255.0)
    light = np.linspace(shade[1], shade[0], 300, dtype=np.float32)[:, None, None]
    img[30:330, 90:390] = linear_to_srgb(np.broadcast_to(lin * light, (300, 300, 3)))
    img = 255.0 * img + rng.normal(0.0, 1.5, img.shape)
    prob = np.full((360, 480), 0.05, np.float32)
    prob[30:330, 90:390] = 0.95
    return np.clip(np.round(img), 0, 255).astype(np.uint8), prob


def lamp(image, gamma=(1.0, 1.0, 1.0), gain=(1.0, 1.0, 1.0)):
    """uint8 BGR `image` under a per-channel tone curve: gain * x ** gamma (x in 0-1)."""
    x = image.astype(np.float32) / 255.0
    y = np.asarray(gain, np.float32) * x ** np.asarray(gamma, np.float32)
    return np.clip(np.round(255.0 * y), 0, 255).astype(np.uint8)


@pytest.mark.parametrize(
    "cloth, gamma, gain",
    [
        ((200, 215, 225), (1.5, 1.1, 0.75), (0.8, 0.95, 1.1)),  # light_eval's harsh lamp
        ((150, 215, 200), (1.5, 1.1, 0.75), (0.8, 0.95, 1.1)),  # a green cloth, same lamp
        ((200, 215, 225), (0.75, 1.0, 1.4), (1.0, 0.95, 0.85)),  # a cold harsh lamp
    ],
)
def test_area_tone_reads_a_lamps_curve_where_the_network_is_sure(cloth, gamma, gain):
    """Each exponent is the mean gamma over the channel's own (within 0.1)."""
    photo, prob = shaded_cloth(cloth)
    exps, pivots = area_tone(lamp(photo, gamma, gain), prob, CLOTH)
    want = np.mean(gamma) / np.asarray(gamma)
    assert exps.dtype == np.float32 and pivots.shape == (3,)
    assert np.abs(exps - want).max() < 0.1, (exps, want)


@pytest.mark.parametrize("gain", [(1.0, 1.0, 1.0), (0.7, 0.9, 1.2), (1.2, 1.0, 0.6)])
def test_area_tone_leaves_a_gain_only_light_alone(gain):
    photo, prob = shaded_cloth()
    exps, _ = area_tone(lamp(photo, gain=gain), prob, CLOTH)
    assert np.all(exps == 1.0), exps


def test_area_tone_ones_where_it_cannot_tell_or_is_off():
    """The setting off, a map sure of nothing, a map sure only of the dark table."""
    photo, prob = shaded_cloth()
    harsh = lamp(photo, (1.5, 1.1, 0.75))
    off = replace(CLOTH, tone_dev=(0.0, 0.0))
    assert np.all(area_tone(harsh, prob, off)[0] == 1.0)
    assert np.all(area_tone(harsh, np.zeros_like(prob), CLOTH)[0] == 1.0)
    assert np.all(area_tone(harsh, 1.0 - prob, CLOTH)[0] == 1.0)  # flat: spans too little


def halves(low, high, n=4000, seed=1):
    """float32 (n, 3) BGR samples of one material whose log channels rise with the log
    brightness (-1.2 to 0) at `low`'s slopes in the darker half, `high`'s in the lighter
    one (each averaging 1: the brightness is their mean), a little noise."""
    rng = np.random.default_rng(seed)
    t = rng.uniform(-1.2, 0.0, n)
    low, high = np.asarray(low), np.asarray(high)
    lg = np.where(t[:, None] < -0.6, low * (t[:, None] + 0.6) - high * 0.6, high * t[:, None])
    lg = lg + np.log(0.9) + rng.normal(0.0, 0.005, lg.shape)
    return (255.0 * np.exp(lg)).astype(np.float32)


@pytest.mark.parametrize(
    "low, high, agree, bent",
    [
        ((1.35, 0.98, 0.67), (1.35, 0.98, 0.67), 0.3, True),  # a lamp bends both alike
        ((1.45, 0.95, 0.6), (1.3, 1.0, 0.7), 0.3, True),  # 0.15 apart: still a lamp
        ((1.8, 1.0, 0.2), (1.2, 1.0, 0.8), 0.3, False),  # 0.6 apart: two materials
        ((1.8, 1.0, 0.2), (1.2, 1.0, 0.8), 0.0, True),  # ... taken without the test
    ],
)
def test_tone_of_pixels_wants_both_halves_to_agree(low, high, agree, bent):
    exps, _ = tone_of_pixels(halves(low, high), 8, 0.15, (0.2, 0.3), agree)
    assert bool(np.any(exps != 1.0)) == bent, exps


def test_tone_of_pixels_too_few_samples():
    exps, pivots = tone_of_pixels(np.full((20, 3), 100, np.float32), 8, 0.15, (0.2, 0.3), 0.3)
    assert np.all(exps == 1.0) and np.all(pivots == 128)


SQUARE = np.array([[300, 200], [900, 200], [900, 800], [300, 800]], np.float64)


@pytest.mark.parametrize(
    "plain, toned, want",
    [
        (0.0, 5.0, "plain"),  # they agree (5 px): the plain one (the cards beside it)
        (0.0, 31.0, "plain"),  # under tone_apart x 1280 = 32 px
        (0.0, 40.0, "toned"),  # far apart: the curve's
        (None, 40.0, "toned"),  # the plain one not found
        (0.0, None, "plain"),  # the curve's not found
        (None, None, "none"),
    ],
)
def test_toned_or_plain_keeps_the_curves_cloth_only_far_apart(monkeypatch, plain, toned, want):
    """`_toned_or_plain`'s choice between the cloth found on the photo as it is and with
    the lamp's curve taken off (a stand-in search: it tells the two photos apart by a
    level the curve moves)."""
    import vision.area as area_mod

    photo = np.full((960, 1280, 3), 100, np.uint8)
    exps, pivots = np.array([0.5, 1.0, 1.0], np.float32), np.full(3, 200, np.float32)

    def search(img, settings, what, game, use_model, *_):
        assert settings.tone_dev[1] == 0  # neither looks again for a curve
        shift = plain if img[0, 0, 0] == 100 else toned
        if shift is None:
            raise area_mod.AreaNotFound("none")
        return area_mod.area_from_corners(SQUARE + [shift, 0.0], settings)

    monkeypatch.setattr(area_mod, "find_area", search)
    settings = replace(CLOTH, tone_judge=False)  # the distance alone (H13's rule)
    if want == "none":
        with pytest.raises(area_mod.AreaNotFound):
            area_mod._toned_or_plain(photo, exps, pivots, settings, "cloth", "hop-la-bille",
                                     True)
        return
    got = area_mod._toned_or_plain(photo, exps, pivots, settings, "cloth", "hop-la-bille", True)
    shift = plain if want == "plain" else toned
    assert np.allclose(got.corners, SQUARE + [shift, 0.0])


# quads as offsets of SQUARE's corners (px): a square moved, a corner pulled in (not a
# square's image)
MOVED = np.array([[45.0, 0.0]] * 4)
PULLED = np.array([[0.0, 0.0], [-80.0, 70.0], [0.0, 0.0], [0.0, 0.0]])
TRUE = np.zeros((4, 2))


@pytest.mark.parametrize(
    "cloth_at, plain, toned, judge, want",
    [
        (TRUE, TRUE, MOVED, True, "plain"),  # the plain one on the cloth: as good by both
        (TRUE, TRUE, PULLED, True, "plain"),  # the curve's not square, a side off the edge
        (MOVED, TRUE, MOVED, True, "toned"),  # the plain one's sides off the cloth's edge
        (TRUE, PULLED, TRUE, True, "toned"),  # the plain one not square
        (TRUE, TRUE, MOVED, False, "toned"),  # without the checks: the distance alone
        (MOVED, MOVED, TRUE, True, "plain"),
        # a lit part cut off by a shade: the plain one follows it (strong sides), not square
        (PULLED, PULLED, TRUE, True, "toned"),
    ],
)
def test_toned_or_plain_keeps_the_plain_cloth_where_it_looks_as_good(
        monkeypatch, cloth_at, plain, toned, judge, want):
    """Far apart, the curve's cloth is taken only where the plain one is less square or
    has a weaker side on the photo's cue (a light seeded cloth drawn on a dark table)."""
    import vision.area as area_mod

    rng = np.random.default_rng(7)
    photo = rng.normal(60, 4, (960, 1280, 3)).clip(0, 255).astype(np.uint8)
    cloth = np.round(SQUARE + cloth_at).astype(np.int32)
    cv2.fillConvexPoly(photo, cloth, (210, 215, 212))
    photo[0, 0] = 100
    exps, pivots = np.array([0.5, 1.0, 1.0], np.float32), np.full(3, 200, np.float32)

    def search(img, settings, what, game, use_model, *_):
        quad = plain if img[0, 0, 0] == 100 else toned
        return area_mod.area_from_corners(SQUARE + quad, settings)

    monkeypatch.setattr(area_mod, "find_area", search)
    settings = replace(CLOTH, tone_judge=judge)
    got = area_mod._toned_or_plain(photo, exps, pivots, settings, "cloth", "hop-la-bille", True)
    quad = plain if want == "plain" else toned
    assert np.allclose(area_mod.order_corners(got.corners),
                       area_mod.order_corners(SQUARE + quad))


@pytest.mark.parametrize(
    "white, exps, clips",
    [
        (255.0, (0.67, 0.91, 1.33), False),  # harsh lamp's curve off about white: no clip
        (0.0, (0.67, 0.91, 1.33), True),  # about the sure part's median: R clips
        (255.0, (1.33, 1.0, 0.67), False),  # a cold lamp's, about white
    ],
)
def test_toned_or_plain_takes_the_curve_off_about_white(monkeypatch, white, exps, clips):
    """The second look's photo is `apply_tone`'s about `tone_white` on every channel (the
    median pivots where 0): about white a light table's levels (190-250) stay below 255 and
    apart on a steepened channel; about a median of 120 it clips them together."""
    import vision.area as area_mod
    from vision.preprocess import apply_tone

    rng = np.random.default_rng(11)
    photo = rng.integers(190, 251, (96, 128, 3)).astype(np.uint8)
    seen = []

    def search(img, settings, what, game, use_model, *_):
        seen.append(img)
        return area_mod.area_from_corners(SQUARE, settings)

    monkeypatch.setattr(area_mod, "find_area", search)
    exps = np.asarray(exps, np.float32)
    pivots = np.full(3, 120, np.float32)
    settings = replace(CLOTH, tone_white=white)
    area_mod._toned_or_plain(photo, exps, pivots, settings, "cloth", "hop-la-bille", True)
    assert seen[0] is photo
    want = apply_tone(photo, exps, np.full(3, white, np.float32) if white else pivots)
    assert np.array_equal(seen[1], want)
    clipped = (seen[1][..., int(np.argmax(exps))] == 255).mean()  # the steepened channel
    assert (clipped > 0.3) if clips else (clipped == 0), clipped
    if not clips:  # a steepened channel's levels all still apart: none merged
        for c in np.flatnonzero(exps > 1):
            assert len(np.unique(seen[1][..., c])) == len(np.unique(photo[..., c]))


ARENA = AREA_SETTINGS["simsala-hopp"]


GROWN = np.array([[-60.0, -60.0], [60.0, -60.0], [60.0, 60.0], [-60.0, 60.0]])  # a wall out
SHRUNK = -GROWN  # a wall's width in
HALF = np.array([[0.0, 0.0], [-300.0, 0.0], [-300.0, 0.0], [0.0, 0.0]])  # half the arena


@pytest.mark.parametrize(
    "plain, toned, want",
    [
        (TRUE, None, "plain"),  # the table shows no curve: no second look
        (TRUE, "missing", "plain"),  # the curve's look finds none
        (TRUE, np.array([[20.0, 0.0]] * 4), "plain"),  # 20 px apart: under 32
        (TRUE, GROWN, "plain"),  # the curve's on the wall's outer edge, none dropped
        (GROWN, TRUE, "toned"),  # the plain one's on it: the band dropped is the wall
        (TRUE, SHRUNK, "plain"),  # the band the curve's drops is the arena's red
        (TRUE, HALF, "plain"),  # not a band: half the arena
        (GROWN + MOVED, TRUE, "toned"),  # off across the wall, less red than arena added
        (TRUE, GROWN + MOVED, "plain"),  # the band dropped the arena's, added a wall's
    ],
)
def test_table_toned_judges_by_the_band_between(monkeypatch, plain, toned, want):
    """`_table_toned`: where the table beyond the arena bends (a stand-in for
    `shields.table_tone`), the arena found with that curve taken off is kept only far
    apart from the plain one and where the band it drops is of a wall's kind (a pink
    wall half as red as the arena, 60 px wide, on a grey seeded table) and the band it
    adds, if any, redder."""
    import vision.area as area_mod
    import vision.shields as shields_mod

    rng = np.random.default_rng(5)
    photo = rng.normal(150, 4, (960, 1280, 3)).clip(0, 255).astype(np.uint8)
    cv2.fillConvexPoly(photo, np.round(SQUARE + GROWN).astype(np.int32), (130, 120, 170))
    cv2.fillConvexPoly(photo, np.round(SQUARE).astype(np.int32), (40, 40, 190))
    photo[0, 0] = 100
    exps = None if toned is None else np.array([0.95, 1.0, 1.05], np.float32)
    monkeypatch.setattr(shields_mod, "table_tone", lambda img, area: exps)
    looks = []

    def search(img, settings, what, game, use_model, *_):
        looks.append(settings.table_tone)
        if img[0, 0, 0] == 100:
            return area_mod.area_from_corners(SQUARE + plain, settings)
        assert np.array_equal(img, apply_tone(photo, exps, np.full(3, 255.0, np.float32)))
        if isinstance(toned, str):
            raise area_mod.AreaNotFound("none")
        return area_mod.area_from_corners(SQUARE + toned, settings)

    monkeypatch.setattr(area_mod, "_looked_for", search)
    got = area_mod.find_area(photo, ARENA, "arena", "simsala-hopp")
    assert looks == ([True] if toned is None else [True, False])  # no third look
    quad = plain if want == "plain" else toned
    assert np.allclose(area_mod.order_corners(got.corners),
                       area_mod.order_corners(SQUARE + quad))


def test_table_toned_off_looks_once(monkeypatch):
    """Without `table_tone` (Hop la bille's settings) the table is not read."""
    import vision.area as area_mod
    import vision.shields as shields_mod

    def no_tone(img, area):
        raise AssertionError("table read")

    monkeypatch.setattr(shields_mod, "table_tone", no_tone)
    monkeypatch.setattr(area_mod, "_looked_for",
                        lambda img, s, *a: area_mod.area_from_corners(SQUARE, s))
    assert not AREA_SETTINGS["hop-la-bille"].table_tone
    got = area_mod.find_area(np.zeros((96, 128, 3), np.uint8), AREA_SETTINGS["hop-la-bille"])
    assert np.allclose(got.corners, SQUARE)
