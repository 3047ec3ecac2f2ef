"""A lamp's glare on the Mauerhuepfer board: its light read off the board's surface and taken
off the pawns' colours (vision/mauer.py `GlareLight`, `white_reference`)."""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from scoring.mauerhuepfer import load_board
from vision import mauer
from vision.preprocess import linear_to_srgb, srgb_to_linear

BOARD = load_board()
ROOT = Path(__file__).resolve().parents[2]
SPOT = ((200.0, 150.0), (60.0, 60.0), 0.0)  # a round core of radius 30 px


def _rings(base, amp, width, n=80, seed=0, spot=SPOT):
    """(low levels (n,), xy (n, 2)): the lowest channel of the surface around n fields
    scattered about the spot, the surface's `base` (linear, +-0.03 from field to field)
    plus a lobe amp * exp(-d^2 / 2 width^2), as sRGB levels (saturated at 255)."""
    rng = np.random.default_rng(seed)
    xy = np.asarray(spot[0]) + rng.uniform(-130, 130, (n, 2))
    d = mauer.GlareLight.distance([spot], xy)
    lin = base + rng.uniform(-0.03, 0.03, n) + amp * np.exp(-d ** 2 / (2 * width ** 2))
    return np.round(255 * linear_to_srgb(lin)), xy


def _core_edge(base, amp, width):
    """The settings' core level at the core's edge (d = 1) for this surface and lobe."""
    return dataclasses.replace(mauer.SETTINGS, glare_area=dataclasses.replace(
        mauer.SETTINGS.glare_area,
        glare_core=int(round(255 * float(linear_to_srgb(np.float64(base + amp * np.exp(
            -1 / (2 * width ** 2)))))))))


def _under_glare(photo: Path) -> np.ndarray:
    """A committed photo under `vision.light_eval`'s glare (its seeded spot), re-encoded at
    JPEG 90 as light_eval's photos are (BGR uint8)."""
    from vision.light_eval import glare, photo_rng

    lit = glare(cv2.imread(str(photo)), photo_rng(photo.name, "glare"))
    return cv2.imdecode(cv2.imencode(".jpg", lit, [cv2.IMWRITE_JPEG_QUALITY, 90])[1],
                        cv2.IMREAD_COLOR)


@pytest.mark.parametrize("base,amp,width", [
    (0.35, 0.9, 1.0),  # a light board, a strong spot whose middle is saturated
    (0.15, 0.6, 1.4),  # a darker board, a wider, weaker spot
    (0.45, 1.2, 0.8),  # light_eval's strength on a pale board: the rings near it saturate
])
def test_glare_light_from_the_board_surface(base, amp, width):
    low, xy = _rings(base, amp, width)
    light = mauer.GlareLight.from_board([SPOT], low, xy, _core_edge(base, amp, width))
    assert light is not None
    for d in (0.5, 1.0, 1.5, 2.0):
        pt = np.array([[SPOT[0][0] + 30.0 * d, SPOT[0][1]]])  # d core radii right of it
        want = amp * np.exp(-d ** 2 / (2 * width ** 2))
        assert light.at(pt)[0] == pytest.approx(want, abs=0.06)


@pytest.mark.parametrize("n_seen,found", [
    (8, False),  # too few unsaturated rings to fit the lobe
    (40, True),
])
def test_glare_light_needs_enough_unsaturated_rings(n_seen, found):
    low, xy = _rings(0.3, 0.8, 1.2, n=n_seen)
    low = np.append(low, np.full(30, 255.0))  # rings inside the saturated core
    xy = np.vstack([xy, np.tile(SPOT[0], (30, 1))])
    light = mauer.GlareLight.from_board([SPOT], low, xy, mauer.SETTINGS)
    assert (light is not None) is found


def test_glare_light_none_on_an_evenly_lit_board():
    """No lobe in the rings (only the fields' own scatter): no light to take off."""
    rng = np.random.default_rng(3)
    xy = np.asarray(SPOT[0]) + rng.uniform(-130, 130, (80, 2))
    low = np.round(255 * linear_to_srgb(0.3 + rng.uniform(-0.03, 0.03, 80)))
    light = mauer.GlareLight.from_board([SPOT], low, xy, mauer.SETTINGS)
    assert light is None or light.at(np.array([SPOT[0]]))[0] < 0.05


@pytest.mark.parametrize("base,amp,width,dark,seed,found", [
    # a dark board under light_eval's spot, a few rings 0.15 darker than the light on them
    # (a pawn's or print's shadow): the best lobe is over them, a near width is not
    (0.05, 1.2, 1.2, 0.15, 0, True),
    # 0.3 darker: only a needle-narrow lobe far above white inside the core keeps under
    # them, far worse a fit (and 0.2: none under the core's level at its edge): no light
    (0.05, 1.2, 1.2, 0.3, 3, False),
    (0.05, 1.2, 1.2, 0.2, 1, False),
    (0.3, 0.9, 1.0, 0.15, 2, True),  # a lighter board: the best lobe already fits
])
def test_glare_light_bounded_by_the_darkest_rings(base, amp, width, dark, seed, found):
    """(session 17, H13: fresh glare 2192 0003's light was refused, 14 pawns missed)"""
    low, xy = _rings(base, amp, width, seed=seed)
    d = mauer.GlareLight.distance([SPOT], xy)
    lin = srgb_to_linear(low / 255.0)
    idx = np.where((d > 1.0) & (d < 2.2) & (low < 250))[0][::3][:8]
    lin[idx] -= dark
    low = np.round(255 * linear_to_srgb(np.clip(lin, 0.0, 1.0)))
    s = _core_edge(base, amp, width)
    light = mauer.GlareLight.from_board([SPOT], low, xy, s)
    assert (light is not None) is found
    if found:
        pts = np.array([[SPOT[0][0] + 30.0 * k, SPOT[0][1]] for k in (0.5, 1.0, 1.5, 2.0)])
        want = amp * np.exp(-np.array([0.5, 1.0, 1.5, 2.0]) ** 2 / (2 * width ** 2))
        assert light.at(pts) == pytest.approx(want, abs=0.06)
        seen = low < 250
        assert (light.at(xy[seen]) <= srgb_to_linear(low[seen] / 255.0) + 0.1).all()
    if dark >= 0.15 and base < 0.1:  # refused before (no light at all)
        off = dataclasses.replace(s, glare_fit_bounded=0.0)
        assert mauer.GlareLight.from_board([SPOT], low, xy, off) is None


@pytest.mark.parametrize("bgr,d,kept", [
    ((255, 255, 255), 0.5, True),  # saturated: its light is unknown, it stays white
    ((40, 60, 200), 0.5, False),  # a red pawn under the spot: the light taken off
    ((40, 60, 200), 9.0, True),  # far from the spot: nothing to take off
])
def test_glare_light_off(bgr, d, kept):
    light = mauer.GlareLight((SPOT,), np.array([0.0, 1.0, 2.0, 3.0]),
                             np.array([0.4, 0.3, 0.1, 0.0]))
    px = np.array([bgr], float)
    xy = np.array([[SPOT[0][0] + 30.0 * d, SPOT[0][1]]])
    out = light.off(px, xy)
    if kept:
        np.testing.assert_allclose(out, px, atol=1e-6)
    else:
        g = np.interp(d, light.d, light.g)
        want = 255 * linear_to_srgb(srgb_to_linear(px / 255.0) - g)
        np.testing.assert_allclose(out, want, atol=1e-6)
        assert (out < px).all()


@pytest.mark.slow
def test_pawns_under_a_lamps_glare():
    """A committed photo under `vision.light_eval`'s glare (its spot over the middle of the
    board): with the spot's light taken off the pawns' footprint samples, off their body and
    head samples as far as their darkest channel goes, and the board's white from its
    saturated fields where the light is faint, none of its 16 pawns is lost (session 15: 0;
    with the session 15 model 3 with neither of the last two and 6 without any correction,
    `glare_min_seen` 0: the halo's pawns read as empty or as another colour). The session 16
    model, trained with glare spots, loses 2 and 0 there: the corrections' own effect is
    pinned by the unit tests above, not by this photo."""
    photo = ROOT / "datasets" / "scenes" / "mauerhuepfer" / "mauerhuepfer-e1-s1-0013.jpg"
    truth = json.loads(photo.with_suffix(".json").read_text())
    lit = _under_glare(photo)
    want = Counter((p["label"], p["position"]) for p in truth["pieces"]
                   if p["label"].startswith("pawn-"))

    def lost(s):
        r = mauer.read_mauer(lit, BOARD, s=s, with_dice=False)
        return sum((want - Counter((p["label"], p["position"]) for p in r.pieces)).values())

    assert lost(mauer.SETTINGS) <= 1


@pytest.mark.parametrize("bgr,g,want", [
    # (a disc's BGR in linear light: 8 samples of it), the light the spot's fit gives
    # there, the linear BGR the disc should keep
    ((0.02, 0.03, 0.60), 0.3, (0.02, 0.03, 0.60)),  # a matte red pawn the reflection
    #   misses: its dark channel bounds the light off to ~0.02, it stays red
    ((0.32, 0.33, 0.90), 0.3, (0.02, 0.03, 0.60)),  # the same pawn washed by 0.3 of light:
    #   the light comes off
    ((0.32, 0.33, 0.90), 0.1, (0.22, 0.23, 0.80)),  # the fit says less: only that comes off
    ((0.80, 0.85, 0.85), 0.2, (0.60, 0.65, 0.65)),  # an unlit white field: as `off`
])
def test_glare_light_off_dark(bgr, g, want):
    light = mauer.GlareLight((SPOT,), np.array([0.0, 10.0]), np.array([g, g]))
    lin = np.tile(np.asarray(bgr, float), (1, 8, 1))  # (1 disc, 8 samples, 3)
    px = 255 * linear_to_srgb(lin)
    xy = np.tile(np.asarray(SPOT[0]), (8, 1))
    out = light.off_dark(px, xy, 10.0)
    np.testing.assert_allclose(srgb_to_linear(out / 255.0), np.tile(want, (1, 8, 1)),
                               atol=0.022 if bgr[0] < 0.1 else 1e-6)


def test_glare_light_off_dark_leaves_saturated_samples():
    light = mauer.GlareLight((SPOT,), np.array([0.0, 10.0]), np.array([0.3, 0.3]))
    px = np.array([[[255.0, 255.0, 255.0], [60.0, 70.0, 200.0]]])
    out = light.off_dark(px, np.tile(np.asarray(SPOT[0]), (2, 1)), 10.0)
    np.testing.assert_allclose(out[0, 0], 255.0)
    assert (out[0, 1] <= px[0, 1]).all()


def test_white_reference_from_a_light_boards_saturated_fields():
    """A light board's white fields are saturated with or without a lamp: under a spot whose
    lobe reaches the whole board (its fitted light never 0), the white is read from the
    saturated fields where the light is faint (`glare_white_light`); with only the fields
    where it is none (0), every white field was left out and the white became the red
    pawns' colour (fresh 1842 0011 under glare: (57, 111, 81))."""
    from vision.light_eval import add_spot

    s = mauer.SETTINGS
    fields, _ = mauer._field_array(BOARD)
    H = np.diag([2.0, 2.0, 1.0])  # 2 px per mm
    img = np.zeros((900, 900, 3), np.uint8)
    img[:] = (110, 150, 110)  # a light green board
    xy = mauer.apply_h(H, fields)
    pawns = set(np.random.default_rng(0).choice(len(fields), 20, replace=False).tolist())
    for i, (x, y) in enumerate(np.round(xy).astype(int)):
        cv2.circle(img, (int(x), int(y)), 26, (255, 255, 255), -1)  # a field, saturated
        if i in pawns:
            cv2.circle(img, (int(x), int(y)), 20, (40, 40, 200), -1)  # a red pawn on it
    centre, radius = (300.0, 300.0), 200.0
    lit = add_spot(img, centre, radius)
    # the spot's core: where the surface's lowest channel reaches `glare_core`
    base = float(srgb_to_linear(np.float64(110 / 255)))
    edge = float(srgb_to_linear(np.float64(s.glare_area.glare_core / 255)))
    rc = radius / 1.6 * np.sqrt(2 * np.log(1.2 * 0.92 / (edge - base)))
    view = mauer.BoardView(np.zeros((4, 2)), H, np.zeros((3, 4)), 1.0,
                           glares=((centre, (2 * rc, 2 * rc), 0.0),))
    ring = BOARD.field_radius_mm * mauer._FIELD_RING
    around = mauer._bilinear(lit, mauer.apply_h(H, (fields[:, None, :] + ring[None]).reshape(
        -1, 2))).reshape(len(fields), len(ring), 3)
    white, light = mauer.white_reference(lit, view, BOARD, s, around)
    assert light is not None and light.g.max() > 0.5  # the spot's light was fitted
    assert white.min() > 240
    white, _ = mauer.white_reference(lit, view, BOARD, dataclasses.replace(
        s, glare_white_light=0.0, glare_white_bright=0.0), around)
    assert white[2] - white[0] > 100  # the pawns' red
    # (the brightest of those few fields alone (`glare_white_bright`) find the white too)
    white, _ = mauer.white_reference(lit, view, BOARD,
                                     dataclasses.replace(s, glare_white_light=0.0), around)
    assert white.min() > 240


@pytest.mark.parametrize("level,radius", [
    (120, 60.0),  # a mid-grey table, a spot of 60 px
    (60, 45.0),  # a dark table, a smaller spot (`remove_glare` leaves 20-25 levels of its
    #              steep halo on a dark surface)
])
def test_without_glare_takes_the_spot_off(level, radius):
    """A lamp's spot (`vision.light_eval.add_spot`) on a flat, lightly textured photo: found
    on the reduced copy, most of its light taken off the full size photo in its halo; the
    photo far from it unchanged."""
    from vision.area import glare_spots
    from vision.light_eval import add_spot

    rng = np.random.default_rng(5)
    flat = np.clip(level + rng.normal(0, 3, (480, 640, 1)), 0, 255).repeat(3, axis=2)
    flat = flat.astype(np.uint8)
    lit = add_spot(flat, (320, 240), radius)
    small = cv2.resize(lit, (320, 240), interpolation=cv2.INTER_AREA)
    spots = glare_spots(small, mauer.SETTINGS.glare_area)
    assert len(spots) == 1
    out = mauer.without_glare(lit, small, spots, mauer.SETTINGS)
    yy, xx = np.mgrid[0:480, 0:640]
    d = mauer.GlareLight.distance(mauer._full_size(spots, 0.5),
                                  np.column_stack([xx.ravel(), yy.ravel()])).reshape(480, 640)
    halo = (d > 1.3) & (d < 2.5)
    added = np.median(lit[halo].astype(int) - flat[halo])
    assert added >= 15  # (there was light to take)
    assert np.median(np.abs(out[halo].astype(int) - flat[halo])) <= 0.4 * added
    far = d > 4.0
    assert np.abs(out[far].astype(int) - lit[far]).max() <= 1


def test_no_board_retried_without_glare_only_with_a_spot(monkeypatch):
    """The search once more on the photo with the spot's light off only where a glare spot
    was found and no board: an empty table without glare is searched once."""
    calls = []
    real = mauer.without_glare
    monkeypatch.setattr(mauer, "without_glare", lambda *a: calls.append(1) or real(*a))
    table = np.full((480, 640, 3), 90, np.uint8)
    assert mauer.find_board(table, BOARD, dataclasses.replace(mauer.SETTINGS, threads=False)) \
        is None
    assert calls == []


@pytest.mark.slow
def test_board_under_a_spot_found_once_its_light_is_off():
    """Committed 0016 under `vision.light_eval`'s glare (the spot over the board's middle
    washes its fields out of the blob map): no board without the retry, the true one
    (within 8 px) with it (the whiteness search, session 13, switched off for the first).
    Session 13's chroma form of the whiteness map finds this board too, without the retry;
    the lowest-channel form shipped since session 15 does not (its strict pass's blobs hit
    30 of the 66 fields, the chroma map's 36), so the shipped settings find it by the
    retry. (Session 23, H11: the last search at finer blob thresholds, `fine_blob_step`,
    finds the true board too without either; switched off for the first.)"""
    photo = ROOT / "datasets" / "scenes" / "mauerhuepfer" / "mauerhuepfer-e1-s1-0016.jpg"
    truth = json.loads(photo.with_suffix(".json").read_text())
    lit = _under_glare(photo)
    s = dataclasses.replace(mauer.SETTINGS, threads=False)
    plain = dataclasses.replace(s, white_fields_chroma=0.0, fine_blob_step=0)
    assert mauer.find_board(lit, BOARD, dataclasses.replace(plain, glare_retry=False)) is None
    fine = dataclasses.replace(s, white_fields_chroma=0.0, glare_retry=False)
    view = mauer.find_board(lit, BOARD, fine)
    assert view is not None and np.abs(view.corners - np.array(truth["area"])).max() < 8.0
    view = mauer.find_board(lit, BOARD, plain)
    assert view is not None and view.glares
    assert np.abs(view.corners - np.array(truth["area"])).max() < 8.0
    chroma = dataclasses.replace(s, glare_retry=False, white_fields_lowest=False)
    view = mauer.find_board(lit, BOARD, chroma)
    assert view is not None and np.abs(view.corners - np.array(truth["area"])).max() < 8.0
    view = mauer.find_board(lit, BOARD, s)
    assert view is not None and np.abs(view.corners - np.array(truth["area"])).max() < 8.0


def _truth_view(photo: Path) -> mauer.BoardView:
    from vision.mauer_train import view_from_truth

    return view_from_truth(json.loads(photo.with_suffix(".json").read_text()), BOARD)


def _board_rings(image: np.ndarray, view: mauer.BoardView) -> tuple[np.ndarray, np.ndarray]:
    """(low (F,), xy (F, 2)) as `white_reference` reads them: the median lowest channel of
    each track field's surrounding ring, and the fields in photo px."""
    fields, _ = mauer._field_array(BOARD)
    ring = BOARD.field_radius_mm * mauer._FIELD_RING
    px = mauer._bilinear(image, mauer.apply_h(view.H, (fields[:, None] + ring[None]).reshape(
        -1, 2))).reshape(len(fields), len(ring), 3)
    return np.median(px.min(axis=2), axis=1), mauer.apply_h(view.H, fields)


def _lit_with_true_spot(photo):
    """(the truth's board view, the photo under light_eval's glare, the spot's true centre
    (2,) px and its Gaussian sigma px), the spot drawn from light_eval's seeded draw."""
    from vision.light_eval import photo_rng

    view = _truth_view(photo)
    lit = _under_glare(photo)
    h, w = lit.shape[:2]
    rng = photo_rng(photo.name, "glare")
    centre = np.array([w, h]) * rng.uniform(0.25, 0.75, 2)
    return view, lit, centre, w * rng.uniform(0.08, 0.14) / 1.6


@pytest.mark.parametrize("name", ["0010", "0020", "0026"])
def test_a_spot_on_a_light_board_is_found_on_the_board(name):
    """light_eval's glare on committed light boards: `glare_spots` takes the board around the
    core for a white table and finds nothing; the board's own saturated rings find it."""
    photo = ROOT / f"datasets/scenes/mauerhuepfer/mauerhuepfer-e1-s1-{name}.jpg"
    view, lit, centre, sigma = _lit_with_true_spot(photo)
    h, w = lit.shape[:2]
    f = mauer.SETTINGS.work_long_side / max(h, w)
    small = cv2.resize(lit, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA)
    assert mauer.glare_spots(small, mauer.SETTINGS.glare_area) == []
    low, xy = _board_rings(lit, view)
    spots = mauer.board_glare_spots(lit, view, low, xy, mauer.SETTINGS)
    assert len(spots) == 1
    assert np.hypot(*(np.asarray(spots[0][0]) - centre)) < 0.5 * sigma
    light = mauer.GlareLight.from_board(spots, low, xy, mauer.SETTINGS)
    assert light is not None and light.at(centre[None])[0] > 0.3
    # the same photo without the spot: nothing
    plain = cv2.imread(str(photo))
    assert mauer.board_glare_spots(plain, view, *_board_rings(plain, view),
                                   mauer.SETTINGS) == ()


@pytest.mark.parametrize("radius,rings,want", [
    (0.12, 3, 1),  # light_eval's size: found
    (0.12, 0, 0),  # off
    (0.12, 80, 0),  # fewer saturated rings than asked for
    (2.0, 3, 0),  # the whole board washed out: an overexposed board, no spot to fit
])
def test_board_glare_spot_limits(radius, rings, want):
    from vision.light_eval import add_spot

    photo = ROOT / "datasets/scenes/mauerhuepfer/mauerhuepfer-e1-s1-0020.jpg"
    view = _truth_view(photo)
    img = cv2.imread(str(photo))
    w = img.shape[1]
    lit = add_spot(img, np.asarray(view.corners).mean(axis=0), radius * w, 1.5)
    s = dataclasses.replace(mauer.SETTINGS, board_glare_rings=rings)
    assert len(mauer.board_glare_spots(lit, view, *_board_rings(lit, view), s)) == want


def _cream_board_under_a_large_spot(radius: float, n_pawns: int, seed: int = 0):
    """(lit BGR uint8, view, around) for a cream-fielded board (fields (150, 190, 200) BGR on
    a green surface, 2 px per mm) under `add_spot` of `radius` px at the fields' centre,
    black, yellow or red pawns (seeded) on the `n_pawns` fields farthest from it (those the
    spot leaves unsaturated)."""
    from vision.light_eval import add_spot

    s = mauer.SETTINGS
    fields, _ = mauer._field_array(BOARD)
    H = np.diag([2.0, 2.0, 1.0])
    xy = mauer.apply_h(H, fields)
    img = np.zeros((900, 900, 3), np.uint8)
    img[:] = (110, 150, 110)
    centre = xy.mean(axis=0)
    pawns = set(np.argsort(-np.hypot(*(xy - centre).T))[:n_pawns].tolist())
    colours = [(40, 40, 40), (40, 200, 230), (40, 40, 200)]
    rng = np.random.default_rng(seed)
    for i, (x, y) in enumerate(np.round(xy).astype(int)):
        cv2.circle(img, (int(x), int(y)), 26, (150, 190, 200), -1)
        if i in pawns:
            cv2.circle(img, (int(x), int(y)), 20, colours[int(rng.integers(3))], -1)
    lit = add_spot(img, centre, radius)
    base = float(srgb_to_linear(np.float64(110 / 255)))
    edge = float(srgb_to_linear(np.float64(s.glare_area.glare_core / 255)))
    rc = radius / 1.6 * np.sqrt(2 * np.log(1.2 * 0.92 / (edge - base)))
    view = mauer.BoardView(np.zeros((4, 2)), H, np.zeros((3, 4)), 1.0,
                           glares=((tuple(centre), (2 * rc, 2 * rc), 0.0),))
    ring = BOARD.field_radius_mm * mauer._FIELD_RING
    around = mauer._bilinear(lit, mauer.apply_h(H, (fields[:, None, :] + ring[None]).reshape(
        -1, 2))).reshape(len(fields), len(ring), 3)
    return lit, view, around


@pytest.mark.parametrize("radius,n_pawns,mended", [
    (250, 0, False),  # a spot over part of the board: most fields unsaturated, as before
    (250, 14, False),  # the same with pawns on the far fields: the median was white already
    (350, 0, False),  # most fields saturated, no pawns: the few left are white
    (350, 14, True),  # most fields saturated, most of the rest pawns: the median a pawn's
    (450, 0, False),  # nearly every field saturated, no pawns
])
def test_white_reference_under_a_spot_over_most_of_the_board(radius, n_pawns, mended):
    """Under a spot over most of a board the few fields left unsaturated are often pawns
    (edition 2 0005 under light_eval's glare: 13 of 66, white (103, 199, 227) for
    (183, 224, 229)): the white is the median of the brightest of them only
    (`glare_white_bright`); without it the median of all of them was a pawn's colour."""
    lit, view, around = _cream_board_under_a_large_spot(radius, n_pawns)
    s = mauer.SETTINGS
    white, light = mauer.white_reference(lit, view, BOARD, s, around)
    assert light is not None
    np.testing.assert_allclose(white, (150, 190, 200), atol=10)
    old, _ = mauer.white_reference(lit, view, BOARD,
                                   dataclasses.replace(s, glare_white_bright=0.0), around)
    assert (np.abs(old - white).max() > 30) == mended


@pytest.mark.parametrize("name,off", [("0005", True), ("0003", False)])
def test_white_reference_of_a_glared_edition2_board(name, off):
    """Committed edition 2 photos under light_eval's glare, with their true board: the white
    stays within 12 levels of the same photo's in ordinary light (0005: a spot over most of
    the board, 55 of 66 fields saturated; 0003: a spot at the board's edge, found by
    `edge_glare_spots` since session 16 H17, many fields counted: the white as it was)."""
    photo = ROOT / f"datasets/scenes-edition2/mauerhuepfer/mauerhuepfer-e2-s2-{name}.jpg"
    view = _truth_view(photo)
    fields, _ = mauer._field_array(BOARD)
    ring = BOARD.field_radius_mm * mauer._FIELD_RING

    def white(img, s=mauer.SETTINGS):
        around = mauer._bilinear(img, mauer.apply_h(view.H, (
            fields[:, None, :] + ring[None]).reshape(-1, 2))).reshape(len(fields), len(ring), 3)
        return mauer.white_reference(img, view, BOARD, s, around)

    plain, _ = white(cv2.imread(str(photo)))
    lit = _under_glare(photo)
    got, light = white(lit)
    assert light is not None
    _, light = white(lit, dataclasses.replace(mauer.SETTINGS, edge_glare=False))
    assert (light is not None) == off  # (0003's spot at the edge: not found before H17)
    np.testing.assert_allclose(got, plain, atol=12)
    old, _ = white(lit, dataclasses.replace(mauer.SETTINGS, glare_white_bright=0.0))
    assert (np.abs(old - plain).max() > 50) == off


@pytest.mark.parametrize("name", ["0018", "0027"])
def test_a_spot_at_the_boards_edge_is_found(name):
    """light_eval's glare at the board's edge (committed 0018: half on the table): no track
    ring saturated, so `board_glare_spots` finds nothing; `edge_glare_spots` finds it near
    its true centre, and nothing on the same photo without the spot."""
    photo = ROOT / f"datasets/scenes/mauerhuepfer/mauerhuepfer-e1-s1-{name}.jpg"
    view, lit, centre, sigma = _lit_with_true_spot(photo)
    h, w = lit.shape[:2]
    assert mauer.board_glare_spots(lit, view, *_board_rings(lit, view), mauer.SETTINGS) == ()
    spots = mauer.edge_glare_spots(lit, view, mauer.SETTINGS)
    assert len(spots) == 1
    assert np.hypot(*(np.asarray(spots[0][0]) - centre)) < 0.5 * sigma
    assert mauer.edge_glare_spots(cv2.imread(str(photo)), view, mauer.SETTINGS) == ()


@pytest.mark.parametrize("where,min_in,want", [
    ("corner", 0.1, 1),  # on the board's corner, most of it on the table: found
    ("corner", None, 0),  # off
    ("table", 0.1, 0),  # on the table, clear of the board: a white table's patch
    ("table", 0.0, 1),  # ... found only when nothing of it need lie on the board
    ("none", 0.1, 0),  # no spot
])
def test_edge_glare_spot_limits(where, min_in, want):
    from vision.light_eval import add_spot

    photo = ROOT / "datasets/scenes/mauerhuepfer/mauerhuepfer-e1-s1-0020.jpg"
    view = _truth_view(photo)  # corners (286, 174), (853, 291), (765, 923), (90, 754)
    img = cv2.imread(str(photo))
    w = img.shape[1]
    at = {"corner": np.asarray(view.corners[0], np.float64), "table": np.array([1130.0, 600.0])}
    lit = img if where == "none" else add_spot(img, at[where], 0.08 * w, 1.5)
    s = dataclasses.replace(mauer.SETTINGS, edge_glare=min_in is not None,
                            edge_glare_min_in=min_in or 0.0, edge_glare_reach=(
                                0.05 if min_in else 10.0))
    spots = mauer.edge_glare_spots(lit, view, s)
    assert len(spots) == want
    if want:
        assert np.hypot(*(np.asarray(spots[0][0]) - at[where])) < 0.05 * w


def _painted(place: str, level: int, radius_px: float):
    """(view, photo, spot index) of committed 0000 with a disc of `level` in every channel
    painted over `place`'s pawn (a clipped glare core there)."""
    photo = ROOT / "datasets/scenes/mauerhuepfer/mauerhuepfer-e1-s1-0000.jpg"
    view = _truth_view(photo)
    img = cv2.imread(str(photo))
    sp = mauer.spots(BOARD)
    i = next(k for k, q in enumerate(sp) if q.place == place)
    foot = mauer.apply_h(view.H, np.array([[sp[i].x, sp[i].y]], float))[0]
    top = mauer.project(view.P, np.array([[sp[i].x, sp[i].y, -24.0]]))[0]
    for c in (foot, (foot + top) / 2, top):
        cv2.circle(img, tuple(int(round(v)) for v in c), int(radius_px), (level,) * 3, -1)
    return view, img, i


@pytest.mark.parametrize("place, level, radius_px, clipped", [
    ("30", 255, 20, True), ("30", 250, 20, True), ("30", 235, 20, False),
    ("30", 255, 3, False), ("12", 255, 20, True), ("B", 255, 20, True)])
def test_clipped_spots(place, level, radius_px, clipped):
    """A spot is clipped only where its footprint and body discs are (almost) all >= 245 in
    every channel: a pale field (235) or a small highlight (3 px) is not."""
    view, img, i = _painted(place, level, radius_px)
    got = mauer.clipped_spots(img, view, BOARD)
    assert bool(got[i]) == clipped
    assert got.any() == clipped  # the photo itself (ordinary light) clips no spot


@pytest.mark.parametrize("n_black, spot_kept, warned", [
    (3, False, True), (1, False, True), (4, False, False), (0, False, False),
    (3, True, False)])
def test_missing_in_glare_names_the_clipped_position(n_black, spot_kept, warned):
    """A colour read with 1-3 pawns gets the clipped positions named (a pawn there shows
    nothing); a complete or absent colour, or a clipped spot read as a pawn, gets none."""
    view, img, i = _painted("30", 255, 20)
    n = len(mauer.spots(BOARD))
    cls = np.zeros(n, int)
    black = mauer.CLASSES.index("black")
    others = [k for k in range(n) if k != i][:n_black]
    cls[others] = black
    if spot_kept:
        cls[i] = mauer.CLASSES.index("red")
    keep = cls > 0
    out = mauer.missing_in_glare(img, view, BOARD, cls, keep)
    named = re.findall(r"washes out positions? ([^:]*):", out[0])[0].split(", ") if out else []
    assert ("30" in named) == warned
    if warned:
        assert "black pawn" in out[0]
