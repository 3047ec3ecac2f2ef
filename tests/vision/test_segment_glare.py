"""A lamp's glare spot on the arena: its light taken off the segmentation view, its saturated
core left out, the washed-out bare arena around it still bare arena (`vision.segment`)."""

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.area import LINEAR8, PlayArea
from vision.light_eval import LIGHTS, add_spot, photo_rng
from vision.pipeline import AREA_SETTINGS, TILE_SETTINGS, get_pipeline
from vision.preprocess import linear_to_srgb
from vision.segment import find_tiles, washed_arena, without_glare

SCENES = Path(__file__).resolve().parents[2] / "datasets" / "scenes" / "simsala-hopp"


def _lab(bgr) -> np.ndarray:
    return cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2LAB).astype(np.float32)[0, 0]


RED = (40, 40, 200)  # the bare arena (BGR)


@pytest.mark.parametrize("pixel, in_zone, washed", [
    ((150, 150, 240), True, True),  # the arena's red, lighter and paler: washed out
    ((40, 40, 200), True, True),  # the bare arena itself (as light as its median)
    ((20, 20, 120), True, False),  # darker red: a shadow or a tile, not washed
    ((60, 200, 250), True, False),  # an orange-yellow tile: another hue
    ((60, 180, 60), True, False),  # a green tile
    ((245, 245, 245), True, False),  # a white tile: no hue to speak of
    ((150, 150, 240), False, False),  # washed-looking, but no spot reaches it
])
def test_washed_arena_is_the_arenas_hue_lighter(pixel, in_zone, washed):
    lab = np.stack([np.full((4, 4, 3), _lab(RED)), np.full((4, 4, 3), _lab(pixel))])
    lab = lab.reshape(8, 4, 3)
    surface = np.zeros((8, 4), bool)
    surface[:4] = True
    zone = np.zeros((8, 4), bool)
    zone[4:] = in_zone
    got = washed_arena(lab, surface, zone, TILE_SETTINGS)
    assert not got[:4].any()  # nothing outside the zone (the surface rows)
    assert bool(got[4:].all()) == washed and bool(got[4:].any()) == washed


def _area(n: int) -> PlayArea:
    """An n x n px arena filling the view (only its settings are read here)."""
    corners = np.float64([[0, 0], [n - 1, 0], [n - 1, n - 1], [0, n - 1]])
    return PlayArea(corners, np.eye(3), np.eye(3), AREA_SETTINGS["simsala-hopp"])


def test_without_a_spot_the_view_is_left_alone():
    view = np.full((200, 200, 3), RED, np.uint8)
    valid = np.ones((200, 200), bool)
    area = _area(200)
    out, ok, reach = without_glare(view, valid, area, TILE_SETTINGS)
    assert out is view and ok is valid and reach is None


def test_a_spot_is_taken_off_and_its_core_left_out():
    view = np.full((240, 240, 3), RED, np.uint8)
    view[136:160, 136:160] = (60, 180, 60)  # a green tile beside the spot
    lit = add_spot(view, (120, 120), 40)
    valid = np.ones((240, 240), bool)
    area = _area(240)
    out, ok, reach = without_glare(lit, valid, area, TILE_SETTINGS)
    assert reach is not None and reach[120, 120] and not reach[5, 5]
    assert not ok[120, 120] and ok[5, 5] and ok[148, 148]  # the core out, the tile kept
    # the tile and the arena beside it are nearer their own colours than in the lit view
    for y, x, want in ((148, 148, (60, 180, 60)), (120, 150, RED)):
        assert np.abs(out[y, x].astype(int) - want).sum() < \
            np.abs(lit[y, x].astype(int) - want).sum()
    _, ok_out, none_out = without_glare(lit, valid, area, TILE_SETTINGS, (0, 40))
    assert none_out is None and ok_out is valid  # a spot centred off the arena: left alone
    off = replace(TILE_SETTINGS, view_glare_max_frac=0.0)
    same, ok_off, none = without_glare(lit, valid, area, off)
    assert same is lit and ok_off is valid and none is None  # switched off


@pytest.mark.parametrize("end, beyond, far, kind", [
    (140, 1.0, 2.0, "taken"),  # centred on the arena (120 < 140)
    (110, 1.0, 2.0, "taken"),  # 10 px beyond its red: on the wall, within a tile side (32 px)
    (100, 1.0, 2.0, "taken"),  # 20 px beyond
    (100, 0.0, 0.0, "none"),  # 20 px beyond, but only spots centred on the arena count
    (100, 0.0, 2.0, "far"),  # likewise, but one on the table beside it half counts
    (80, 1.0, 2.0, "far"),  # 40 px beyond: on the table beside the arena
    (60, 1.0, 2.0, "far"),  # 60 px beyond (under 2 tile sides)
    (80, 1.0, 0.0, "none"),  # (a spot on the table beside it switched off)
    (40, 1.0, 2.0, "none"),  # 80 px beyond: 2.5 tile sides off
])
def test_a_spot_beside_the_arena(end, beyond, far, kind):
    # taken: its light off the view, its core left out, its reach given; far: its core out
    # and its reach given, its light left on (an estimate of it beside the arena ran deep
    # over the arena's edge); none: the view as it was
    view = np.full((240, 240, 3), RED, np.uint8)
    lit = add_spot(view, (120, 120), 40)
    valid = np.ones((240, 240), bool)
    settings = replace(TILE_SETTINGS, view_glare_beyond=beyond, view_glare_far=far)
    out, ok, reach = without_glare(lit, valid, _area(240), settings, (0, end))
    if kind == "none":
        assert out is lit and ok is valid and reach is None
        return
    assert reach is not None and reach[120, 120] and not reach[5, 5]
    assert not ok[120, 120] and ok[5, 5]  # the core out either way
    if kind == "far":
        assert out is lit  # its light left on
    else:  # the arena beside the core nearer its own red than in the lit view
        assert np.abs(out[120, 150].astype(int) - RED).sum() < \
            np.abs(lit[120, 150].astype(int) - RED).sum()


def _missing_tiles(name: str, *settings) -> list[int]:
    """light_eval's glare copy of committed Simsala Hopp scene `name`: per `TileSettings` of
    `settings`, how many of its tiles outside the spot's saturated core (every channel
    >= 235) have no tile candidate within 20 px (the area found once)."""
    from vision.area import find_area
    from vision.image_io import load_photo

    img = SCENES / name
    truth = __import__("json").loads(img.with_suffix(".json").read_text())
    photo_bgr = LIGHTS["glare"](cv2.imread(str(img)), photo_rng(img.name, "glare"))
    ok, buf = cv2.imencode(".png", photo_bgr)
    photo = load_photo(buf.tobytes(), get_pipeline().image_settings)
    area = find_area(photo.image, AREA_SETTINGS["simsala-hopp"], "arena", game="simsala-hopp")
    low = photo.image.min(axis=2)
    out = []
    for s in settings:
        at = area.to_image(find_tiles(photo.image, area, s).centers) * photo.scale
        n = 0
        for p in truth["pieces"]:
            x, y = (np.asarray(p["center"]) / photo.scale).astype(int)
            if low[y, x] >= 235:  # under the saturated core: nothing to find
                continue
            n += int(np.hypot(*(at - p["center"]).T).min() > 20)
        out.append(n)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name, off", [
    ("simsala-hopp-e1-s1-0005.jpg", {"view_glare_beyond": 0.0, "view_glare_far": 0.0}),
    ("simsala-hopp-e1-s1-0014.jpg", {"view_glare_beyond": 0.0, "view_glare_far": 0.0}),
    ("simsala-hopp-e1-s1-0012.jpg", {"view_glare_far": 0.0}),
])
def test_tiles_beside_a_spot_off_the_red_are_found(name, off):
    # light_eval's glare on committed scenes whose spot's centre lies beside the red: on the
    # arena's right wall (0005, 0014: 3 and 4 tiles beside it), on the table 1.5 tile sides
    # beyond its left side (0012: a frog). Every tile outside the saturated core has a
    # candidate; with the spot left alone (`off`), at least one had none (the halo joined
    # it to the tiles beside it into one blob too big to be a tile)
    got = _missing_tiles(name, TILE_SETTINGS, replace(TILE_SETTINGS, **off))
    assert got[0] == 0 and got[1] >= 1


@pytest.mark.slow
def test_tiles_beside_a_glare_spot_are_found():
    # light_eval's glare on committed scene 0000 (a spot over the arena's top right):
    # every tile outside the spot's saturated core has a candidate; without the glare
    # handling 3 of them had none (their washed-out halo joined them into one blob)
    got = _missing_tiles("simsala-hopp-e1-s1-0000.jpg", TILE_SETTINGS,
                         replace(TILE_SETTINGS, view_glare_max_frac=0.0))
    assert got[0] == 0 and got[1] >= 3


def _tile_crop(white: float) -> np.ndarray:
    """A 32 px crop: the red arena around a green tile with a dark drawing, `white` of
    white light added in linear light everywhere (a lamp's reflection seen close up)."""
    crop = np.full((32, 32, 3), RED, np.uint8)
    crop[6:26, 6:26] = (60, 180, 60)
    crop[12:20, 14:18] = (20, 30, 20)
    return add_spot(crop, (16, 16), 1e6, amount=white, colour=(1.0, 1.0, 1.0))


@pytest.mark.parametrize("white, centre, changed", [
    (0.4, (100.0, 100.0), True),  # washed out, by a spot: the lamp's white taken off
    (0.4, (400.0, 400.0), False),  # washed out, but no spot reaches it: as it was
    (0.0, (100.0, 100.0), False),  # by a spot, but not washed (its drawing dark): as it was
])
def test_glare_washed_tiles_takes_the_white_off_near_a_spot(white, centre, changed):
    from vision.segment import glare_washed_tiles

    clean, lit = _tile_crop(0.0), _tile_crop(white)
    spot = ((100.0, 100.0), (40.0, 40.0), 0.0)  # core radius 20 px: reach 60 px
    crops = np.stack([lit, lit])
    out = glare_washed_tiles(crops, np.array([centre, (900.0, 900.0)]), [spot],
                             TILE_SETTINGS)
    assert np.array_equal(out[1], lit)  # far from it: never changed
    if not changed:
        assert out is crops
        return
    before = np.abs(lit.astype(int) - clean).mean()
    after = np.abs(out[0].astype(int) - clean).mean()
    assert before > 40 and after < 12  # (the floor assumed: 0.02 in linear light)
    off = replace(TILE_SETTINGS, crop_glare_reach=0.0)
    assert glare_washed_tiles(crops, np.array([centre, centre]), [spot], off) is crops


def test_find_area_hands_its_glare_spots_on():
    from vision.area import find_area

    st = AREA_SETTINGS["simsala-hopp"]
    img = np.full((480, 640, 3), (60, 90, 110), np.uint8)
    cv2.rectangle(img, (170, 90), (470, 390), (170, 200, 220), -1)
    cv2.rectangle(img, (200, 120), (440, 360), RED, -1)
    area = find_area(img, st, "arena", use_model=False)
    assert area.glare == ()  # no lamp: none
    lit = add_spot(img, (300, 240), 60, colour=(1.0, 1.0, 1.0))
    area = find_area(lit, st, "arena", use_model=False)
    assert len(area.glare) == 1
    assert np.hypot(*(np.array(area.glare[0][0]) - (300, 240))) < 5  # working-image px


def _shaded_arena(kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(Lab float32 8-bit scale, bare-arena mask) of a 160 px red arena view: "shadow": a
    hard shadow (a third of the light, bluer) over its right part from x = 90; "plain":
    evenly lit; "specks": dark 6 px specks on it (a tile's shadow, the arena's print)."""
    view = np.full((160, 160, 3), RED, np.uint8)
    if kind == "shadow":
        lin = LINEAR8[view]
        lin[:, 90:] *= np.float32([0.36, 0.32, 0.28])
        view = np.round(255.0 * linear_to_srgb(lin)).astype(np.uint8)
    if kind == "specks":
        for y in range(5, 160, 16):
            for x in range(5, 160, 16):
                view[y:y + 6, x:x + 6] = (10, 10, 60)
    lab = cv2.cvtColor(view, cv2.COLOR_BGR2LAB).astype(np.float32)
    return lab, np.ones((160, 160), bool)


@pytest.mark.parametrize("kind, split", [
    ("shadow", True),  # a hard shadow: each side its own colour up to the edge
    ("plain", False),  # no shadow: the plain local colour
    ("specks", False),  # scattered dark bits: no broad shade, the plain local colour
])
def test_shade_split_colour_keeps_a_shadows_edge(kind, split):
    from vision.segment import shade_split_colour, surface_colour

    lab, surface = _shaded_arena(kind)
    got = shade_split_colour(lab, surface, 48.0, TILE_SETTINGS)
    plain = surface_colour(lab, surface, 48.0)
    if not split:
        assert np.array_equal(got, plain)
        return
    for x in (84, 96):  # 6 px either side of the edge: its own side's colour
        assert np.abs(got[80, x] - lab[80, x]).max() < 3
        assert np.abs(plain[80, x] - lab[80, x]).max() > 10  # (one average over both)
    off = replace(TILE_SETTINGS, shade_ratio=0.0)
    assert np.array_equal(shade_split_colour(lab, surface, 48.0, off), plain)


def test_glare_free_photo_is_worked_out_once_per_photo(monkeypatch):
    """`pipeline._glare_free`: the tile crops' glare-free photo is made once for a photo and
    its spots (the crops are cut up to three times), again for another photo or spots."""
    import vision.area as va
    from vision import pipeline as vp

    calls = []
    real = va.remove_glare
    monkeypatch.setattr(va, "remove_glare", lambda *a: calls.append(1) or real(*a))
    rng = np.random.default_rng(5)
    photo = rng.integers(0, 200, (120, 160, 3), dtype=np.uint8)
    other = photo.copy()
    area = replace(_area(120), glare=(((80.0, 60.0), (20.0, 20.0), 0.0),))
    first = vp._glare_free(photo, area)
    assert vp._glare_free(photo, area) is first and len(calls) == 1
    assert np.array_equal(first, real(photo, area.settings, list(area.glare)))
    vp._glare_free(other, area)  # (an equal but other photo)
    moved = replace(area, glare=(((40.0, 60.0), (20.0, 20.0), 0.0),))
    vp._glare_free(other, moved)
    assert len(calls) == 3
