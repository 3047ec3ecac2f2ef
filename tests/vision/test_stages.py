"""Each pipeline stage on small images drawn here (no renderer, no trained model)."""

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.area import AREA_SETTINGS, area_from_corners, find_area
from vision.errors import AreaNotFound
from vision.preprocess import CropSettings, crops_to_input, extract_crops
from vision.segment import (
    MARBLE_SETTINGS,
    TILE_SETTINGS,
    Candidates,
    cloth_gains,
    find_marbles,
    find_tiles,
)

SIMSALA = AREA_SETTINGS["simsala-hopp"]
CLOTH = AREA_SETTINGS["hop-la-bille"]
GREY = (120, 125, 130)


def table(h=960, w=1280, colour=GREY):
    return np.full((h, w, 3), colour, np.uint8)


def tilted_square(cx=640, cy=480, side=560, tilt=0.25, angle=10.0):
    """4 corners of a square seen with a perspective squeeze (far side shorter)."""
    t = np.radians(angle)
    R = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    h = side / 2
    pts = np.array([[-h * (1 - tilt), -h], [h * (1 - tilt), -h], [h, h], [-h, h]])
    return pts @ R.T + [cx, cy]


def corner_error(found, truth):
    return min(np.abs(np.roll(found, k, 0) - truth).max() for k in range(4))


@pytest.mark.parametrize(
    "tilt, angle, towers",
    [
        (0.0, 0.0, False),  # straight down, square to the frame
        (0.25, 15.0, False),  # tilted camera, rotated arena
        (0.35, -30.0, True),  # strong tilt, dark red towers over the corners
    ],
)
def test_red_arena_corners(tilt, angle, towers):
    img = table()
    quad = tilted_square(tilt=tilt, angle=angle)
    cv2.fillPoly(img, [quad.astype(np.int32)], (50, 50, 210))
    if towers:
        for x, y in quad:
            cv2.circle(img, (int(x), int(y)), 30, (40, 40, 120), -1)
    # pieces on it, some touching the edge (notches in the red outline)
    for k, (x, y) in enumerate(quad[:3]):
        c = 0.75 * np.array([x, y]) + 0.25 * quad.mean(axis=0)
        cv2.rectangle(img, (int(c[0]) - 35, int(c[1]) - 35), (int(c[0]) + 35, int(c[1]) + 35),
                      [(60, 200, 60), (240, 240, 240), (40, 40, 40)][k], -1)
    area = find_area(img, SIMSALA, use_model=False)
    assert corner_error(area.corners, quad) < 6
    # the homography maps the corners onto the plane square
    plane = area.to_plane(area.corners)
    s = SIMSALA.plane_px
    assert np.allclose(plane, [[0, 0], [s, 0], [s, s], [0, s]], atol=1e-3)


def test_corner_order_puts_south_at_the_bottom():
    img = table()
    quad = tilted_square(angle=20.0)
    cv2.fillPoly(img, [quad.astype(np.int32)], (50, 50, 210))
    area = find_area(img, SIMSALA, use_model=False)
    c = area.corners
    assert (c[2, 1] + c[3, 1]) / 2 == max((c[i, 1] + c[(i + 1) % 4, 1]) / 2 for i in range(4))


def test_light_cloth_found_on_wood():
    img = table(colour=(60, 110, 160))
    quad = tilted_square(side=700, tilt=0.2, angle=-12)
    cv2.fillPoly(img, [quad.astype(np.int32)], (225, 230, 232))
    area = find_area(img, CLOTH, use_model=False)
    assert corner_error(area.corners, quad) < 6


@pytest.mark.parametrize(
    "draw",
    [
        lambda img: None,  # an empty grey table
        lambda img: cv2.circle(img, (640, 480), 40, (50, 50, 210), -1),  # a small red coin
        lambda img: cv2.rectangle(img, (100, 400), (1200, 440), (50, 50, 210), -1),  # red ribbon
    ],
)
def test_no_arena_raises_area_not_found(draw):
    img = table()
    draw(img)
    with pytest.raises(AreaNotFound) as exc:
        find_area(img, SIMSALA, use_model=False)
    assert exc.value.exit_code == 3


def arena_scene(tiles, table_bgr=GREY):
    """A top-down red arena 600 px wide (2.5 px/mm, tile side 100 px) with tiles drawn as
    (centre x, centre y, angle, BGR) in image pixels on a table of `table_bgr`; returns
    (image, PlayArea)."""
    img = table(colour=table_bgr)
    cv2.rectangle(img, (340, 180), (940, 780), (45, 45, 215), -1)
    for cx, cy, ang, col in tiles:
        box = cv2.boxPoints(((cx, cy), (96, 96), ang)).astype(np.int32)
        cv2.fillPoly(img, [box], col)
        cv2.polylines(img, [box], True, tuple(int(v * 0.7) for v in col), 3)
    area = area_from_corners([[340, 180], [940, 180], [940, 780], [340, 780]], SIMSALA)
    return img, area


def test_tiles_touching_and_rotated_are_separated():
    tiles = [
        (500, 400, 20, (60, 200, 60)), (592, 425, 35, (235, 235, 235)),  # touching, rotated
        (700, 650, 0, (60, 60, 60)), (797, 650, 0, (60, 200, 60)),  # edge to edge
        (1100, 500, 10, (200, 220, 240)),  # outside the arena on the table
    ]
    img, area = arena_scene(tiles)
    cand = find_tiles(img, area, TILE_SETTINGS)
    found = area.to_image(cand.centers)
    for cx, cy, _, _ in tiles:
        d = np.hypot(found[:, 0] - cx, found[:, 1] - cy).min()
        assert d < 20, f"tile at ({cx}, {cy}) not found"
    assert len(cand) == len(tiles)
    # sides near the true tile side (96 px = 38.4 mm = 76.8 plane px)
    assert np.all(np.abs(cand.sides - 96 / 600 * SIMSALA.plane_px) < 15)


@settings(max_examples=12, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.floats(0, 89)),
                min_size=1, max_size=8, unique_by=lambda t: (t[0], t[1])))
def test_tile_count_on_a_grid_matches(cells):
    """Tiles at any angle on a 4 x 4 grid of the arena, 140 px apart (a 96 px tile reaches at
    most 68 px from its centre, so they may touch but never overlap, as the rules say): every
    one is found once."""
    tiles = [(410 + 140 * i, 270 + 140 * j, a, (60, 200, 60)) for i, j, a in cells]
    img, area = arena_scene(tiles)
    assert len(find_tiles(img, area, TILE_SETTINGS)) == len(tiles)


def cloth_scene(marbles, highlight=True):
    """A light cloth 800 px wide (1.33 px/mm: marble 21 px) with marbles (x, y, BGR)."""
    img = table(colour=(90, 120, 150))
    cv2.rectangle(img, (240, 80), (1040, 880), (215, 225, 230), -1)
    for x, y, col in marbles:
        cv2.circle(img, (x, y), 10, col, -1, cv2.LINE_AA)
        if highlight:
            cv2.circle(img, (x + 3, y - 3), 3, (255, 255, 255), -1)
    area = area_from_corners([[240, 80], [1040, 80], [1040, 880], [240, 880]], CLOTH)
    return img, area


def test_touching_marbles_with_highlights():
    cols = [(0, 220, 240), (40, 40, 210), (60, 170, 60), (230, 200, 120), (140, 40, 20)]
    pts = [(400, 300), (421, 300), (410, 318), (700, 700), (900, 200), (600, 500)]
    img, area = cloth_scene([(x, y, cols[i % 5]) for i, (x, y) in enumerate(pts)])
    cand = find_marbles(img, area, MARBLE_SETTINGS)
    assert len(cand) == len(pts)
    found = area.to_image(cand.centers)
    for x, y in pts:
        assert np.hypot(found[:, 0] - x, found[:, 1] - y).min() < 5
    assert all(p is None for p in cand.polygons)


def test_crop_is_top_down_and_centred():
    from dataclasses import replace

    img, area = arena_scene([(640, 480, 30, (60, 200, 60))])
    c = area.to_plane([[640, 480]])
    side = 96 / 600 * SIMSALA.plane_px
    crops = extract_crops(img, area.H_plane_to_img, c, np.array([side]), np.array([30.0]),
                          replace(CropSettings(), light_balance=0.0))  # (the cut alone)
    s = CropSettings().size
    assert crops.shape == (1, s, s, 3) and crops.dtype == np.uint8
    centre = crops[0, s // 2 - 3 : s // 2 + 3, s // 2 - 3 : s // 2 + 3].reshape(-1, 3).mean(0)
    assert np.allclose(centre, (60, 200, 60), atol=25)  # the tile's colour at the centre
    # axis-aligned after undoing the tile's angle: the corners of the crop are red arena
    assert crops[0, 1, 1, 2] > 150 and crops[0, -2, -2, 2] > 150
    x = crops_to_input(crops)
    assert x.shape == (1, 3, s, s) and x.dtype == np.float32
    assert x[0, 1, s // 2, s // 2] > x[0, 0, s // 2, s // 2]  # RGB order: green > red channel


def test_tiles_touching_the_walls_are_not_lost_with_them():
    """Light castle walls all round the arena and a tile against each of its 4 edges: the cut
    along the arena's edge must survive the mask's closing, else each tile joins the walls'
    blob, far too big to be tiles, and all 4 are dropped (as before the fix)."""
    tiles = [(640, 229, 0, (60, 200, 60)), (891, 480, 0, (60, 200, 60)),
             (640, 731, 0, (235, 235, 235)), (389, 480, 0, (60, 60, 60))]
    img, area = arena_scene(tiles)
    cv2.rectangle(img, (320, 160), (960, 800), (200, 215, 225), 40)  # walls just outside
    cand = find_tiles(img, area, TILE_SETTINGS)
    found = area.to_image(cand.centers)
    for cx, cy, _, _ in tiles:
        assert np.hypot(found[:, 0] - cx, found[:, 1] - cy).min() < 20, f"tile at {cx} lost"


@pytest.mark.parametrize(
    "shift",
    [
        (0, 0),  # the edges are the square itself
        (30, -20),  # a mask blob off-centre (a shadow cut it): still the edges' quad
    ],
)
def test_edge_quad_rebuilds_the_cloth_from_straight_edges(shift):
    from vision.area import edge_cover, edge_maps, edge_quad

    img = table(480, 640, colour=(200, 205, 210))  # a white table: weak colour contrast
    quad = tilted_square(320, 240, 300, tilt=0.2, angle=12)
    cv2.fillPoly(img, [quad.astype(np.int32)], (228, 232, 236))
    cv2.polylines(img, [quad.astype(np.int32)], True, (170, 175, 180), 2)  # the hem
    # a blobby network mask: the square's disc-ish core, shifted
    prob = np.zeros((480, 640), np.float32)
    cv2.circle(prob, (320 + shift[0], 240 + shift[1]), 130, 1.0, -1)
    edges, dist = edge_maps(img, CLOTH)
    found, cover = edge_quad(prob, edges, dist, CLOTH)
    assert found is not None and corner_error(found, quad) < 4
    assert cover > 0.9
    # the blob's own (wrong) quad lies far less on edges than the found one
    wrong = tilted_square(320 + shift[0], 240 + shift[1], 240, tilt=0.0, angle=40)
    assert edge_cover(wrong[None], dist, CLOTH.edge_tol)[0] < cover - 0.3


@pytest.mark.parametrize(
    "colour, found",
    [
        ((110, 150, 120), 2),  # a greenish tile on the grey table: little contrast, found
        ((120, 125, 130), 0),  # the table's own colour: nothing to find
    ],
)
def test_low_contrast_tiles_outside_the_arena(colour, found):
    """Tiles on the table that differ from it by less than the first look's threshold are
    found by the second, lower-contrast look (none of them without it)."""
    from dataclasses import replace

    tiles = [(1100, 500, 10, colour), (200, 300, 30, colour)]
    img, area = arena_scene(tiles)
    by_colour = replace(TILE_SETTINGS, outline_level=0.0)  # (the drawn edges: another look)
    cand = find_tiles(img, area, by_colour)
    assert len(cand) == found
    pts = area.to_image(cand.centers)
    for x, y in pts:
        assert min(np.hypot(x - cx, y - cy) for cx, cy, _, _ in tiles) < 10
    assert len(find_tiles(img, area, replace(by_colour, low_diff=0.0))) == 0


@pytest.mark.parametrize(
    "colour, found",
    [
        ((225, 215, 200), 2),  # a pale blue marble on the light cloth: found by the 2nd look
        ((215, 225, 230), 0),  # the cloth's own colour: nothing
    ],
)
def test_low_contrast_marbles(colour, found):
    from dataclasses import replace

    pts = [(500, 400), (800, 600)]
    img, area = cloth_scene([(x, y, colour) for x, y in pts], highlight=False)
    cand = find_marbles(img, area, MARBLE_SETTINGS)
    assert len(cand) == found
    for x, y in area.to_image(cand.centers):
        assert min(np.hypot(x - px, y - py) for px, py in pts) < 4
    assert len(find_marbles(img, area, replace(MARBLE_SETTINGS, low_diff=0.0, low_ab=0.0))) == 0


@pytest.mark.parametrize(
    "colour, found",
    [
        ((232, 222, 212), 2),  # tinted blue, hardly darker (Lab 12 from the cloth): 3rd look
        ((200, 209, 214), 0),  # grey, darker (shadow-like, no tint): nothing
        ((215, 225, 230), 0),  # the cloth's own colour: nothing
    ],
)
def test_tinted_marbles_found_by_colour(colour, found):
    """A pale marble under daylight or dim light: under both contrast looks, but its colour
    (a*, b*) stands out from the cloth's (whose own noise is ~0)."""
    from dataclasses import replace

    pts = [(500, 400), (800, 600)]
    img, area = cloth_scene([(x, y, colour) for x, y in pts])
    cand = find_marbles(img, area, MARBLE_SETTINGS)
    assert len(cand) == found
    for x, y in area.to_image(cand.centers):
        assert min(np.hypot(x - px, y - py) for px, py in pts) < 4
    assert len(find_marbles(img, area, replace(MARBLE_SETTINGS, low_ab=0.0))) == 0


def test_marble_shadow_does_not_pull_its_centre():
    """A grey shadow attached to each marble: shadow pixels (darker than the cloth, same hue)
    are no marble, so the centre stays on the glass (it moved ~5 px towards the shadow, a
    quarter of the marble, without the shadow test)."""
    from dataclasses import replace

    pts = [(500, 400), (800, 600)]
    img = table(colour=(90, 120, 150))
    cv2.rectangle(img, (240, 80), (1040, 880), (215, 225, 230), -1)
    for x, y in pts:
        cv2.ellipse(img, (x + 9, y + 4), (13, 9), 20, 0, 360, (160, 170, 175), -1)
        cv2.circle(img, (x, y), 10, (60, 170, 60), -1, cv2.LINE_AA)
    area = area_from_corners([[240, 80], [1040, 80], [1040, 880], [240, 880]], CLOTH)

    def worst(st):
        found = area.to_image(find_marbles(img, area, st).centers)
        assert len(found) == len(pts)
        return max(np.hypot(found[:, 0] - x, found[:, 1] - y).min() for x, y in pts)

    assert worst(MARBLE_SETTINGS) < 1.5
    assert worst(replace(MARBLE_SETTINGS, shadow_ab=0.0)) > 3


def striped_arena_scene(tiles, stripe=70):
    """`arena_scene` on a table of dark and light stripes `stripe` px wide, with a little
    blur and sensor noise (seeded) as in a photo."""
    img, area = arena_scene([])
    red = img[480, 640].copy()
    for y in range(0, img.shape[0], 2 * stripe):
        img[y : y + stripe] = (40, 40, 40)
        img[y + stripe : y + 2 * stripe] = (225, 225, 225)
    cv2.rectangle(img, (340, 180), (940, 780), tuple(int(v) for v in red), -1)
    for cx, cy, ang, col in tiles:
        box = cv2.boxPoints(((cx, cy), (96, 96), ang)).astype(np.int32)
        cv2.fillPoly(img, [box], col)
    img = cv2.GaussianBlur(img, (0, 0), 1.0).astype(np.float32)
    img += np.random.default_rng(0).normal(0, 3, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8), area


@pytest.mark.parametrize("tile", [
    (1100, 520, 15, (60, 200, 60)),  # a green tile across a dark and a light stripe
    (160, 300, 30, (60, 60, 200)),  # a red one
])
def test_tiles_on_a_striped_table(tile):
    """On stripes a pixel of either stripe is table (`two_tone_diffs`): the tile is one
    candidate at its place (candidates are generous; the classifier rejects the rest). The
    one-colour median background marks the stripes themselves, whose blobs swallow the tile."""
    from dataclasses import replace

    img, area = striped_arena_scene([tile])
    for sep, ok in ((TILE_SETTINGS.two_tone_sep, True), (0.0, False)):
        cand = find_tiles(img, area, replace(TILE_SETTINGS, two_tone_sep=sep))
        pts = area.to_image(cand.centers)
        d = np.hypot(pts[:, 0] - tile[0], pts[:, 1] - tile[1]) if len(pts) else np.zeros(0)
        found = int(np.sum(d < 20)) == 1 and int(np.sum(d < 96)) == 1
        assert found == ok, (sep, pts[d < 96])


def test_a_tile_that_pulls_its_stripes_tone_is_still_found():
    """A dark red-brown tile lying within a dark stripe is darker than the local median, so
    it counts towards the dark stripe's tone and pulls that tone towards its own colour: only
    with the tones averaged again without the pixels unlike both (`two_tone_refine`) does the
    second look see it."""
    from dataclasses import replace

    tile = (1100, 350, 15, (60, 40, 90))
    img, area = striped_arena_scene([tile], stripe=140)
    for refine, ok in ((TILE_SETTINGS.two_tone_refine, True), (0.0, False)):
        cand = find_tiles(img, area, replace(TILE_SETTINGS, two_tone_refine=refine,
                                             faint_levels=()))
        pts = area.to_image(cand.centers)
        d = np.hypot(pts[:, 0] - tile[0], pts[:, 1] - tile[1]) if len(pts) else np.zeros(0)
        assert (int(np.sum(d < 20)) == 1) == ok, (refine, pts[d < 96])


def white_tile_on_white(outline, stripe: int):
    """A white tile at (1100, 300) on a white table (with dark stripes `stripe` px wide, the
    tile within a white one, when `stripe`), edged by a 4 px line of BGR `outline` (None:
    no edge), blurred and noisy as in a photo."""
    img, area = arena_scene([], table_bgr=(225, 225, 225))
    red = img[480, 640].copy()
    if stripe:
        for y in range(0, img.shape[0], 2 * stripe):
            img[y : y + stripe] = (40, 40, 40)
        cv2.rectangle(img, (340, 180), (940, 780), tuple(int(v) for v in red), -1)
    box = cv2.boxPoints(((1100, 300), (96, 96), 15)).astype(np.int32)
    cv2.fillPoly(img, [box], (228, 228, 228))
    if outline:
        cv2.polylines(img, [box], True, outline, 4)
    img = cv2.GaussianBlur(img, (0, 0), 1.0).astype(np.float32)
    img += np.random.default_rng(0).normal(0, 3, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8), area


@pytest.mark.parametrize("outline, stripe, found", [
    ((150, 150, 150), 0, True),  # a white tile on a white table, edged in grey
    ((205, 205, 205), 0, True),  # a faint edge is enough
    ((190, 190, 190), 200, True),  # within a white stripe: no stripe edge taken for a tile
    (None, 0, False),  # no edge: nothing to see, nothing found
])
def test_a_white_tile_on_white_by_its_outline(outline, stripe, found):
    """Only the outline look (`outline_tiles`) sees it; without it nothing does."""
    from dataclasses import replace

    img, area = white_tile_on_white(outline, stripe)
    for level, want in ((TILE_SETTINGS.outline_level, found), (0.0, False)):
        cand = find_tiles(img, area, replace(TILE_SETTINGS, outline_level=level))
        pts = area.to_image(cand.centers)
        assert len(cand) == int(want), (level, pts)
        if want:
            assert np.hypot(*(pts[0] - (1100, 300))) < 20


@pytest.mark.parametrize("colour, found", [
    ((58, 56, 54), 2),  # a dark grey tile on a dark cloth (a cat tile): faint, found
    ((52, 50, 48), 1),  # fainter still: the tile at 10 degrees, not the one at 30
    ((45, 42, 40), 0),  # the cloth's own colour: nothing, noise or not
])
def test_faint_tiles_on_a_dark_cloth(colour, found):
    """Tiles outside the arena too faint for the second look are found at the fainter
    levels (`faint_levels`) when they are lone tile-sized squares; none without them."""
    from dataclasses import replace

    tiles = [(1100, 500, 10, colour), (200, 300, 30, colour)]
    img, area = arena_scene(tiles, table_bgr=(45, 42, 40))
    noise = np.random.default_rng(0).normal(0, 2, img.shape)
    img = np.clip(img.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    by_colour = replace(TILE_SETTINGS, outline_level=0.0)  # (the drawn edges: another look)
    cand = find_tiles(img, area, by_colour)
    assert len(cand) == found
    for x, y in area.to_image(cand.centers):
        assert min(np.hypot(x - cx, y - cy) for cx, cy, _, _ in tiles) < 20
    assert len(find_tiles(img, area, replace(by_colour, faint_levels=()))) == 0


@pytest.mark.parametrize("moved", [
    None,  # the cloth's own outline: every side has the cloth inside, table outside
    40.0,  # the right side pushed 40 px out onto the table: that side alone is weak
    -40.0,  # the right side pulled 40 px in onto the cloth: that side alone is weak
])
def test_side_contrast_finds_the_side_off_the_cloth(moved):
    from vision.area import cue_map, side_contrast

    img = table(360, 480, (60, 110, 150))  # wood-ish
    quad = np.array([[140.0, 80.0], [340.0, 80.0], [340.0, 280.0], [140.0, 280.0]])
    cv2.fillPoly(img, [quad.astype(np.int32)], (235, 238, 240))
    if moved is not None:
        quad[1:3, 0] += moved
    sc = np.sort(side_contrast(quad, cue_map(img, CLOTH), CLOTH))
    if moved is None:
        assert sc[0] > 0.9, sc
    else:  # (pushed out, the top and bottom sides run 40 of their 240 px on the table)
        assert sc[0] < 0.2 and sc[1] > 0.8, sc


@pytest.mark.parametrize("x, kept", [
    (300.0, True),  # mid-cloth
    (6.0, True),  # a marble on the cloth's edge, where the network's mask fades
    (-60.0, False),  # beyond the cloth (a marble on a card beside it)
])  # x: image px from the cloth's left edge
def test_cloth_probability_looks_one_marble_in(x, kept):
    from dataclasses import replace

    from vision.pipeline import cloth_probability
    from vision.segment import Candidates

    area = area_from_corners([[100, 100], [700, 100], [700, 700], [100, 700]], CLOTH)
    prob = np.zeros((800, 800), np.float32)
    prob[112:688, 112:688] = 1.0  # the network's mask stops 12 px short of the edge
    area = replace(area, prob=prob, prob_scale=1.0)
    centre = area.to_plane(np.array([[100.0 + x, 400.0]]))
    cand = Candidates(centre, np.array([24.0]), np.zeros(1), (None,))  # a 16 px marble
    assert area.area_probability(area.to_image(cand.centers))[0] == (1.0 if x > 12 else 0.0)
    assert (cloth_probability(area, cand)[0] >= 0.3) == kept


@pytest.mark.parametrize("x, spot_x, reach, kept", [
    (300.0, 330.0, 3.0, True),  # in the map's hole, by a spot: the de-glared map not trusted
    (300.0, 330.0, 0.0, False),  # ... the same with the setting off
    (300.0, None, 3.0, False),  # a hole with no spot: the map decides
    (300.0, 560.0, 3.0, False),  # the spot 260 px off, its core 40 px across: beyond 3 x
    (-60.0, -10.0, 3.0, False),  # beyond the cloth (a card), 2.5 x the core from a spot
])  # x, spot_x: image px from the cloth's left edge
def test_cloth_probability_by_a_glare_spot(x, spot_x, reach, kept):
    from dataclasses import replace

    from vision.pipeline import cloth_probability
    from vision.segment import Candidates

    area = area_from_corners([[100, 100], [700, 100], [700, 700], [100, 700]], CLOTH)
    prob = np.ones((800, 800), np.float32)
    prob[:, :112] = prob[:, 688:] = prob[:112] = prob[688:] = 0.0
    prob[300:500, 330:470] = 0.0  # a hole where the spot's removal darkened the cloth
    prob[300:500, 40:100] = 0.0  # (the table beyond the cloth)
    glare = () if spot_x is None else (((100.0 + spot_x, 400.0), (40.0, 40.0), 0.0),)
    area = replace(area, prob=prob, prob_scale=1.0, glare=glare)
    centre = area.to_plane(np.array([[100.0 + x, 400.0]]))
    cand = Candidates(centre, np.array([24.0]), np.zeros(1), (None,))
    assert (cloth_probability(area, cand, reach)[0] >= 0.3) == kept


@pytest.mark.parametrize("gain, colour", [
    (0.35, (20, 120, 230)),  # an orange tile on the red arena in dim light
    (0.45, (30, 110, 225)),  # a redder orange, a little more light
    (0.6, (40, 100, 210)),  # redder still, in better light
])
def test_orange_tile_on_the_arena_in_dim_light(gain, colour):
    """Pixels that are not bare arena count as a tile at half the colour distance, and a
    lone square of another hue on the arena is a tile (a white rabbit drawn to the tile's
    edge leaves a notch): each finds the tile alone, neither finds nothing."""
    from dataclasses import replace

    img, area = arena_scene([(640, 480, 20, colour)])
    cv2.ellipse(img, (625, 470), (18, 18), 0, 0, 360, (230, 230, 230), -1)
    cv2.line(img, (640, 485), (690, 530), (230, 230, 230), 6)  # an ear reaching the edge
    noise = np.random.default_rng(0).normal(0, 2, img.shape)
    img = np.clip(img.astype(float) * gain + noise, 0, 255).astype(np.uint8)
    for off_surface, hue, n in ((0.5, 12.0, 1), (0.5, 0.0, 1), (1.0, 12.0, 1), (1.0, 0.0, 0)):
        s = replace(TILE_SETTINGS, arena_off_surface=off_surface, arena_hue_diff=hue)
        assert len(find_tiles(img, area, s)) == n, (off_surface, hue)


@pytest.mark.parametrize("green, plain, refined", [
    (68, 0, 2),  # orange close to the arena's red: found only once the fit leaves it out
    (72, 2, 2),  # further off: the first fit finds it already
    (60, 0, 0),  # barely another hue: no tile invented from the arena's own noise
])
def test_hue_look_refits_the_arena_without_off_hue_pixels(green, plain, refined):
    """Two orange tiles that pass for bare arena pull its fitted local colour toward their
    own hue; fitted again without the pixels off its hue (`arena_hue_refine`), they stand
    out. Only the hue look sees them here (the colour-distance looks are off)."""
    from dataclasses import replace

    colour = (40, green, 215)
    img, area = arena_scene([(640, 480, 20, colour), (500, 330, 0, colour)])
    noise = np.random.default_rng(0).normal(0, 2, img.shape)
    img = np.clip(img.astype(float) + noise, 0, 255).astype(np.uint8)
    s = replace(TILE_SETTINGS, arena_off_surface=1.0, arena_diff=100.0)
    assert len(find_tiles(img, area, replace(s, arena_hue_refine=0.0))) == plain
    assert len(find_tiles(img, area, replace(s, arena_hue_refine=3.0))) == refined


@pytest.mark.parametrize("width, trim_above, found", [
    (8, 1.1, True),  # a painted line joined to a white tile: cut off, the tile found
    (16, 1.1, True),  # a broader one too
    (8, 0.0, False),  # not trimmed: tile and line make one long blob, no tile
    (4, 0.0, True),  # a hairline the mask's opening removes anyway
])
def test_a_thin_scrap_joined_to_a_tile_is_cut_off(width, trim_above, found):
    """A pale line on the arena running from under a white tile (`trim_scraps`)."""
    from dataclasses import replace

    img, area = arena_scene([])
    cv2.line(img, (640, 480), (470, 650), (200, 200, 220), width)
    box = cv2.boxPoints(((640, 480), (96, 96), 20)).astype(np.int32)
    cv2.fillPoly(img, [box], (225, 230, 230))
    cv2.polylines(img, [box], True, (157, 161, 161), 3)
    cand = find_tiles(img, area, replace(TILE_SETTINGS, trim_above=trim_above))
    at = area.to_image(cand.centers)
    assert (len(cand) == 1 and np.hypot(*(at[0] - (640, 480))) < 5) == found


PALE_AT = [(500, 400), (800, 600)]


def pale_marble_scene(extra, under: bool = False):
    """`cloth_scene` with two pale marbles at PALE_AT (only the second, low-contrast look
    sees them), `extra(img, x, y)` drawn beside each (before the marble when `under`), and
    seeded sensor noise."""
    img, area = cloth_scene([], highlight=False)
    for x, y in PALE_AT:
        if under:
            extra(img, x, y)
        cv2.circle(img, (x, y), 10, (236, 222, 206), -1, cv2.LINE_AA)
        if not under:
            extra(img, x, y)
    noise = np.random.default_rng(0).normal(0, 2, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8), area


def assert_found_at(cand, area, pts, tol):
    """One candidate near each of `pts` (image px, within `tol`) and no other."""
    assert len(cand) == len(pts)
    for x, y in area.to_image(cand.centers):
        assert min(np.hypot(x - px, y - py) for px, py in pts) < tol


def test_pale_marble_with_a_strong_speck_on_its_rim():
    """A pale marble (found only by the second, low-contrast look) with a small strongly
    coloured speck on its rim (a reflection): the first look drops the speck as too small,
    and that dropped scrap no longer hides the marble from the second look."""
    from dataclasses import replace

    def speck(img, x, y):
        cv2.circle(img, (x - 7, y), 2, (200, 160, 120), -1, cv2.LINE_AA)

    img, area = pale_marble_scene(speck)
    assert_found_at(find_marbles(img, area, MARBLE_SETTINGS), area, PALE_AT, 4)
    off = replace(MARBLE_SETTINGS, low_beside_taken=False)
    assert len(find_marbles(img, area, off)) == 0


def test_low_contrast_tile_with_a_strong_speck():
    """A tile close to the table's colour with a small strongly coloured drawing on it: the
    first look drops the drawing as too small, and that scrap no longer hides the tile from
    the second look."""
    from dataclasses import replace

    tiles = [(1100, 500, 10, (110, 150, 120)), (200, 300, 30, (110, 150, 120))]
    img, area = arena_scene(tiles)
    for cx, cy, _, _ in tiles:
        cv2.circle(img, (cx + 30, cy + 30), 12, (40, 40, 200), -1)
    noise = np.random.default_rng(0).normal(0, 2, img.shape)
    img = np.clip(img + noise, 0, 255).astype(np.uint8)
    by_colour = replace(TILE_SETTINGS, outline_level=0.0)  # (the drawn edges: another look)
    cand = find_tiles(img, area, by_colour)
    assert len(cand) == 2
    for x, y in area.to_image(cand.centers):
        assert min(np.hypot(x - cx, y - cy) for cx, cy, _, _ in tiles) < 20
    assert len(find_tiles(img, area, replace(by_colour, low_beside_taken=False))) == 0


def test_a_cluster_of_tiles_joined_by_shadows_is_split_not_dropped():
    """A committed edition-2 scene where a shadow band joins 8 arena tiles into one blob of
    8.5 tiles: it is split into tiles (at `max_blob` 8 it was taken for a wall and all of
    them were lost)."""
    import json
    from dataclasses import replace
    from pathlib import Path

    from vision.image_io import load_photo

    path = Path(__file__).resolve().parents[2] / \
        "datasets/scenes-edition2/simsala-hopp/simsala-hopp-e2-s2-0004.jpg"
    photo = load_photo(path)
    area = find_area(photo.image, SIMSALA, "arena", game="simsala-hopp")
    truth = json.loads(path.with_suffix(".json").read_text())
    true_xy = np.array([p["center"] for p in truth["pieces"] if p["zone"] == "arena"])
    true_xy = true_xy / photo.scale

    def found(settings):
        xy = area.to_image(find_tiles(photo.image, area, settings).centers)
        return sum(np.hypot(*(xy - p).T).min() < 20 for p in true_xy)

    assert len(true_xy) == 15
    assert found(TILE_SETTINGS) >= 13
    # (without the hue look, which finds some of them again as lone squares)
    assert found(replace(TILE_SETTINGS, max_blob=8.0, arena_hue_diff=0.0)) <= 7


@pytest.mark.parametrize("shade", [0.8, 0.85])
def test_pale_marble_with_its_shadow(shade):
    """A pale marble (found only by the second, low-contrast look) with its drop shadow (the
    cloth's own colour, darker): the second look drops the shadow pixels as the first look
    does, so the marble is not taken for an elongated blob and lost."""
    from dataclasses import replace

    dark = tuple(int(v * shade) for v in (215, 225, 230))

    def shadow(img, x, y):  # (drawn under the marble)
        cv2.ellipse(img, (x + 8, y + 12), (10, 14), 30, 0, 360, dark, -1, cv2.LINE_AA)

    img, area = pale_marble_scene(shadow, under=True)
    assert_found_at(find_marbles(img, area, MARBLE_SETTINGS), area, PALE_AT, 3)
    assert len(find_marbles(img, area, replace(MARBLE_SETTINGS, low_shadow=False, low_ab=0.0))) == 0


@pytest.mark.parametrize("cast, strength, want", [
    ((1.0, 1.0, 1.0), 1.0, (1.0, 1.0, 1.0)),  # neutral light: nothing to correct
    ((0.6, 0.9, 1.0), 1.0, (1 / 0.6, 1 / 0.9, 1.0)),  # a warm cast, fully corrected
    ((0.6, 0.9, 1.0), 0.5, ((1 / 0.6) ** 0.5, (1 / 0.9) ** 0.5, 1.0)),  # half of it
    ((0.6, 0.9, 1.0), 0.0, (1.0, 1.0, 1.0)),  # off
])
def test_light_gains_undo_a_colour_cast(cast, strength, want):
    """A grey and white scene under a coloured light (BGR gains `cast`): the gains that white
    balance it, to the power `strength`; the crops come out balanced by them."""
    from dataclasses import replace

    from vision.preprocess import light_gains

    rng = np.random.default_rng(0)
    scene = rng.choice([90.0, 160.0, 230.0], size=(120, 160, 1)) * np.ones(3)
    img = np.clip(scene * np.array(cast), 0, 255).astype(np.uint8)
    assert np.allclose(light_gains(img, strength), want, rtol=0.03)
    crops = extract_crops(img, np.eye(3), np.array([[80.0, 60.0]]), np.array([60.0]),
                          np.zeros(1), replace(CropSettings(), light_balance=1.0))
    if strength == 1.0:  # fully balanced: grey again
        b, g, r = crops.reshape(-1, 3).astype(float).mean(axis=0)
        assert abs(b - r) < 4 and abs(g - r) < 4


def test_cloth_under_a_harsh_lamp_is_found_once_balanced():
    """A committed Hop la bille scene under a harsh warm lamp (`harsh_light`): the colour cues
    no longer see the white cloth; the retry on the photo balanced by its own light finds it
    where the truth has it, and so does the balance before any look (`balance_cast`)."""
    import json
    from dataclasses import replace
    from pathlib import Path

    from vision.errors import AreaNotFound
    from vision.image_io import load_photo
    from vision.teach_eval import harsh_light

    path = Path(__file__).resolve().parents[2] / \
        "datasets/scenes/hop-la-bille/hop-la-bille-e1-s1-0004.jpg"
    photo = load_photo(path)
    img = harsh_light(photo.image)
    with pytest.raises(AreaNotFound):
        find_area(img, replace(CLOTH, retry_balanced=0.0, balance_cast=0.0), "cloth",
                  game="hop-la-bille")
    truth = np.array(json.loads(path.with_suffix(".json").read_text())["area"]) / photo.scale
    # the retry alone; the balance before any look (`balance_cast`) alone
    for cloth in (replace(CLOTH, balance_cast=0.0), replace(CLOTH, retry_balanced=0.0)):
        area = find_area(img, cloth, "cloth", game="hop-la-bille")
        err = min(np.abs(np.roll(area.corners, k, 0) - truth).max() for k in range(4))
        assert err < 0.02 * img.shape[1]


@pytest.mark.parametrize("hue, chroma, want", [
    (30.0, 40.0, 0.0),  # the arena's own hue
    (45.0, 40.0, 15.0),  # an orange pixel on the red arena
    (-150.0, 40.0, 180.0),  # the opposite hue
    (90.0, 10.0, 0.0),  # too grey to have a hue
])
def test_hue_diff(hue, chroma, want):
    from vision.segment import hue_diff

    def lab(h, c):
        out = np.zeros((2, 2, 3), np.float32)
        out[..., 0] = 100.0
        out[..., 1] = 128.0 + c * np.cos(np.radians(h))
        out[..., 2] = 128.0 + c * np.sin(np.radians(h))
        return out

    got = hue_diff(lab(hue, chroma), lab(30.0, 40.0), 20.0)
    assert np.allclose(got, want, atol=1e-3)


SMALL_ARENA = [[490, 330], [790, 330], [790, 630], [490, 630]]  # 300 px: a tile is 48 px


def small_arena_table(table_bgr=(225, 225, 225)):
    """A table of `table_bgr` with the red arena `SMALL_ARENA`, and that arena's `PlayArea`."""
    img = table(colour=table_bgr)
    cv2.rectangle(img, (490, 330), (790, 630), (45, 45, 215), -1)
    return img, area_from_corners(SMALL_ARENA, SIMSALA)


def blurred_noisy(img, seed):
    """The uint8 image blurred (sigma 1) with Gaussian noise (s.d. 3) of generator `seed`."""
    out = cv2.GaussianBlur(img, (0, 0), 1.0).astype(np.float32)
    out += np.random.default_rng(seed).normal(0, 3, out.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def small_arena_far_tile(outline, table_bgr=(225, 225, 225), x=1150):
    """A red arena 300 px wide (490-790, 330-630; tile side 48 px) and one pale tile at (x,
    480) edged by a 3 px line of BGR `outline` (None: no edge), blurred and noisy."""
    img, area = small_arena_table(table_bgr)
    box = cv2.boxPoints(((x, 480), (48, 48), 20)).astype(np.int32)
    cv2.fillPoly(img, [box], (232, 232, 232))
    if outline:
        cv2.polylines(img, [box], True, outline, 3)
    return blurred_noisy(img, 1), area


@pytest.mark.parametrize("outline, x, found", [
    ((150, 150, 150), 1150, True),  # 1.2 arena sides out: beyond the first looks' margin
    ((200, 200, 200), 1150, True),  # a faint cut edge closes the square too
    ((150, 150, 150), 1270, False),  # half off the photo: the photo's border closes nothing
    (None, 1150, False),  # no edge: nothing encloses it
])
def test_edge_tiles_far_out(outline, x, found):
    """The last look (`edge_tiles`) finds a tile the first looks never reach; the first
    looks' own margin (0.75 arena sides) stops 225 px short of it."""
    from dataclasses import replace

    from vision.segment import edge_tiles

    img, area = small_arena_far_tile(outline, x=x)
    assert len(find_tiles(img, area, TILE_SETTINGS)) == 0
    cand = edge_tiles(img, area, TILE_SETTINGS)
    pts = area.to_image(cand.centers)
    assert len(cand) == int(found), pts
    if found:
        assert np.hypot(*(pts[0] - (x, 480))) < 8
        assert abs(cand.sides[0] / SIMSALA.plane_px * 300 - 48) < 8  # in plane px
    assert len(edge_tiles(img, area, replace(TILE_SETTINGS, edge_margin=0.0))) == 0


def outline_scene(sides: int, gap: float = 0.0, table_bgr=(225, 225, 225), x=1100):
    """The small red arena of `small_arena_far_tile` and, 1.1 arena sides out at (x, 480),
    a tile as pale as the table drawn only by `sides` of its four 2 px grey edges, each with
    a gap of `gap` of its length in its middle (a white tile on a white table)."""
    img, area = small_arena_table(table_bgr)
    box = cv2.boxPoints(((x, 480), (48, 48), 20))
    for k in range(sides):
        a, b = box[k], box[(k + 1) % 4]
        for lo, hi in ((0.0, 0.5 - gap / 2), (0.5 + gap / 2, 1.0)):
            p, q = a + lo * (b - a), a + hi * (b - a)
            cv2.line(img, tuple(np.round(p).astype(int)), tuple(np.round(q).astype(int)),
                     (160, 160, 160), 2)
    return blurred_noisy(img, 2), area


@pytest.mark.parametrize("sides, gap, found", [
    (4, 0.0, True),  # a closed outline
    (4, 0.3, True),  # a gap in every side (its edge lost against a check's)
    (3, 0.0, False),  # three sides: a paper's corner and a printed line
    (4, 0.8, False),  # only the corners: too little of each side is drawn
])
def test_outline_squares_need_four_drawn_sides(sides, gap, found):
    """`outline_squares` finds a tile-sized square drawn by edges beyond the first looks'
    reach, gaps and all, but not where a side is missing."""
    from vision.segment import outline_squares

    img, area = outline_scene(sides, gap)
    cand = outline_squares(img, area, TILE_SETTINGS)
    pts = area.to_image(cand.centers)
    near = np.hypot(*(pts - (1100, 480)).T) < 8 if len(cand) else np.zeros(0, bool)
    assert near.any() == found, pts
    if found:
        i = int(np.flatnonzero(near)[0])
        assert abs((cand.angles[i] - 20 + 45) % 90 - 45) <= 5.0  # mod 90 degrees


def test_outline_squares_off_and_away_from_the_arena():
    """Nothing is looked for with `square_min` 0, nor on the arena itself."""
    from dataclasses import replace

    from vision.segment import outline_squares

    img, area = outline_scene(4)
    assert len(outline_squares(img, area, replace(TILE_SETTINGS, square_min=0.0))) == 0
    img, area = outline_scene(4, x=640)  # the same square drawn on the arena
    cand = outline_squares(img, area, TILE_SETTINGS)
    assert not len(cand) or np.hypot(*(area.to_image(cand.centers) - (640, 480)).T).min() > 24


@pytest.mark.parametrize("pattern, unlike", [
    ("checks", False),  # a check of a tile's size repeats two sides on
    ("stripes", False),  # a stripe repeats along itself
    ("tile", True),  # a tile on the stripes repeats nowhere
])
def test_table_likeness(pattern, unlike):
    """`table_likeness` is low where the square's look repeats one or two sides beside it."""
    from vision.segment import table_likeness

    img = table(colour=(200, 200, 200))
    c, side = (1100, 480), 48
    if pattern == "checks":
        for i in range(15, 27):
            for j in range(3, 17):
                if (i + j) % 2:
                    cv2.rectangle(img, (i * side - 24, j * side - 24 + 24),
                                  ((i + 1) * side - 25, (j + 1) * side - 1), (90, 60, 40), -1)
    else:
        for j in range(0, 960, 2 * side):
            cv2.rectangle(img, (0, j + 24), (1279, j + 24 + side - 1), (90, 60, 40), -1)
    if pattern == "tile":
        box = cv2.boxPoints((c, (side, side), 0)).astype(np.int32)
        cv2.fillPoly(img, [box], (230, 230, 230))
        cv2.circle(img, c, 12, (40, 40, 40), 3)
    area = area_from_corners(SMALL_ARENA, SIMSALA)
    plane = area.to_plane(np.array([c], np.float64))
    side_plane = side / 300 * SIMSALA.plane_px
    got = table_likeness(img, area, Candidates(plane, np.array([side_plane]), np.zeros(1),
                                               (None,)))
    assert (got[0] >= 9.0) == unlike, got


def test_candidates_take_and_join():
    a = Candidates(np.arange(6.0).reshape(3, 2), np.array([30.0, 31.0, 32.0]),
                   np.array([0.0, 10.0, 20.0]), (np.zeros((4, 2)), None, np.ones((4, 2))))
    b = Candidates(np.array([[9.0, 9.0]]), np.array([40.0]), np.array([5.0]), (None,))
    kept = a.take(np.array([True, False, True]))
    assert np.array_equal(kept.centers, [[0, 1], [4, 5]])
    assert np.array_equal(kept.sides, [30, 32]) and np.array_equal(kept.angles, [0, 20])
    assert len(kept.polygons) == 2 and kept.polygons[1] is a.polygons[2]
    assert len(a.take(np.zeros(3, bool))) == 0
    both = kept + b
    assert len(both) == 3 and both.polygons == kept.polygons + (None,)
    assert np.array_equal(both.centers, [[0, 1], [4, 5], [9, 9]])
    assert np.array_equal(both.sides, [30, 32, 40]) and np.array_equal(both.angles, [0, 20, 5])
    assert len(Candidates.empty() + b) == 1


@pytest.mark.parametrize("x0, y0", [
    (0, 0),  # two touching tiles in the view's corner: the blob's dilation box is clipped
    (40, 30),  # the same well inside
    (88, 100),  # against the far corner
])
def test_split_peaks_splits_touching_tiles_anywhere(x0, y0):
    from vision.segment import split_peaks

    mask = np.zeros((132, 152), np.uint8)
    mask[y0 : y0 + 32, x0 : x0 + 28] = 1  # two 28 x 32 tiles joined by an 8-px neck
    mask[y0 : y0 + 32, x0 + 36 : x0 + 64] = 1
    mask[y0 + 12 : y0 + 20, x0 + 28 : x0 + 36] = 1
    groups = split_peaks(mask, 32.0, 0.28, 0.72, 0.35, 32.0 * 32.0)
    assert len(groups) == 2
    assert sum(len(g) for g in groups) == mask.sum()  # every pixel in one of the two
    assert min(g[:, 0].min() for g in groups) == x0  # (in view coordinates)


@pytest.mark.parametrize("hole, edge, filled", [
    (5, False, True),  # a drawing's small hole inside a tile is filled
    (30, False, False),  # a hole of over max_area stays open
    (5, True, False),  # a notch open to the outside is no hole
])
def test_fill_holes(hole, edge, filled):
    from vision.segment import fill_holes

    mask = np.zeros((60, 60), np.uint8)
    mask[10:50, 10:50] = 1
    y1 = 50 if edge else 30 + hole // 2
    mask[30 - hole // 2 : y1, 30 - hole // 2 : 30 + hole // 2] = 0
    out = fill_holes(mask, 200)
    assert out.dtype == np.uint8 and set(np.unique(out)) <= {0, 1}
    assert bool(out[30, 30]) == filled
    assert (out[mask > 0] == 1).all()


@pytest.mark.parametrize(
    "cloth, part",
    [
        ((215, 225, 230), 0.0),  # an ordinary light cloth (cast 1.07): left alone
        ((150, 200, 240), 1.0),  # a harsh warm lamp (cast 1.6): taken off in full
        ((190, 215, 230), 0.74),  # cast 1.21: in part
    ],
)
def test_cloth_gains_take_off_a_strong_cast(cloth, part):
    """The cloth's remaining cast is taken off the marble crops by a power of the full
    correction (the cloth to its own grey) that grows with the cast; marbles do not move
    the cloth's median."""
    img, area = cloth_scene([(400 + 60 * k, 300 + 40 * k, (60, 170, 60)) for k in range(8)])
    img[80:880, 240:1040] = np.where(img[80:880, 240:1040] == (215, 225, 230), cloth,
                                     img[80:880, 240:1040])
    gains = cloth_gains(MARBLE_SETTINGS, img, area, np.ones(3, np.float32))
    c = np.asarray(cloth, np.float32)
    assert np.allclose(gains, (c.mean() / c) ** part, atol=0.02)
    balanced = c * gains
    assert balanced.max() / balanced.min() <= c.max() / c.min() + 1e-6
    if part == 1.0:
        assert balanced.max() / balanced.min() < 1.01


def test_cloth_gains_leave_out_clipped_cloth():
    """A harsh lamp clips the bright half of the cloth (red at 255 hides the cast there): the
    cast is read from the unclipped half; with no clip level, from the mix."""
    from dataclasses import replace

    img, area = cloth_scene([])
    img[80:480, 240:1040] = (200, 245, 255)  # clipped
    img[480:880, 240:1040] = (150, 200, 240)  # the same light, darker: cast 1.6
    ones = np.ones(3, np.float32)
    gains = cloth_gains(MARBLE_SETTINGS, img, area, ones)
    c = np.array([150, 200, 240], np.float32)
    assert np.allclose(gains, c.mean() / c, atol=0.02)
    mixed = cloth_gains(replace(MARBLE_SETTINGS, cloth_clip=256), img, area, ones)
    assert not np.allclose(mixed, gains, atol=0.02)


def _marble_crop(glass_bgr, cloth_bgr=(225, 230, 232), n=32):
    """A 32 x 32 uint8 crop: a marble (its glass colour, a dark rim) on a plain cloth."""
    crop = np.full((n, n, 3), cloth_bgr, np.uint8)
    cv2.circle(crop, (n // 2, n // 2), 12, (20, 20, 20), -1)  # the rim / shade
    cv2.circle(crop, (n // 2, n // 2), 10, glass_bgr, -1)
    return crop


@pytest.mark.parametrize(
    "glare, changed",
    [
        (0.0, False),  # an ordinary crop (a dark rim): as it was
        (0.15, False),  # a little added light: its darkest still under washed_dark
        (0.6, True),  # a spot's halo: taken off
        (0.95, False),  # a spot's saturated core: too little range left to read
    ],
)
def test_washed_crops_take_an_even_glare_off(glare, changed):
    """A lamp's even light added in linear light over a marble crop is taken off when the
    marble's darkest pixels are washed out (`washed_crops`): the glass's colour comes back
    near its own; off (`washed_dark` 0) or unwashed, the crops stay as they were."""
    from dataclasses import replace

    from vision.preprocess import linear_to_srgb, srgb_to_linear
    from vision.segment import washed_crops

    clean = np.stack([_marble_crop((40, 170, 60)), _marble_crop((170, 60, 30))])
    lin = srgb_to_linear(clean.astype(np.float32) / 255.0) + glare
    lit = np.round(255.0 * linear_to_srgb(lin)).astype(np.uint8)
    out = washed_crops(lit, MARBLE_SETTINGS)
    if not changed:
        assert np.array_equal(out, lit)
        return
    assert not np.array_equal(out, lit)
    glass = np.s_[:, 12:20, 12:20]
    before = np.abs(lit[glass].astype(int) - clean[glass]).mean()
    after = np.abs(out[glass].astype(int) - clean[glass]).mean()
    assert before > 40 and after < before / 2
    # each marble's hue back: its largest channel the clean one's
    assert np.array_equal(out[glass].mean(axis=(1, 2)).argmax(axis=1),
                          clean[glass].mean(axis=(1, 2)).argmax(axis=1))
    assert washed_crops(lit, replace(MARBLE_SETTINGS, washed_dark=0.0)) is lit


def test_washed_crops_leave_a_plain_patch():
    """A plain light patch of the cloth taken for a candidate (no darker rim: its darkest is
    the cloth's own level) is left as it is, however light; so is a crop whose ring is not
    lighter than its disc by `washed_contrast`."""
    from vision.segment import washed_crops

    patch = np.full((1, 32, 32, 3), (205, 212, 215), np.uint8)
    cv2.circle(patch[0], (16, 16), 10, (196, 203, 214), -1)  # a faint tint, no rim
    assert np.array_equal(washed_crops(patch, MARBLE_SETTINGS), patch)


@pytest.mark.parametrize(
    "x0, x1, changed",
    [
        (22, 28, False),  # a grey-green stripe off the centre: a cloth or card edge
        (18, 26, False),  # a wider one nearer the middle
        (13, 19, True),  # a narrow one straight through the middle (a tenth of the corner
        #                 ring or less): still stretched, the rule's known gap
        (None, None, True),  # no stripe: the washed marble of the glare test, stretched
    ],
)
def test_washed_crops_leave_a_stripe_across_a_pale_crop(x0, x1, changed):
    """A pale crop crossed by a darker stripe (a cloth or card edge: its dark runs on into
    the ring, `washed_ring_step`) is left as it is, while a washed marble (its dark rim
    inside a lighter ring) is still stretched; with `washed_ring_step` 0 the stripe's crop is
    stretched as before the rule (it passes every other test)."""
    from dataclasses import replace

    from vision.preprocess import linear_to_srgb, srgb_to_linear
    from vision.segment import washed_crops

    if x0 is None:
        clean = _marble_crop((40, 170, 60))
    else:
        clean = np.full((32, 32, 3), (225, 230, 232), np.uint8)
        clean[:, x0:x1] = (60, 80, 70)  # a grey-green stripe, top to bottom
    lin = srgb_to_linear(clean[None].astype(np.float32) / 255.0) + 0.6
    lit = np.round(255.0 * linear_to_srgb(lin)).astype(np.uint8)
    out = washed_crops(lit, MARBLE_SETTINGS)
    assert (out is not lit) == changed
    assert washed_crops(lit, replace(MARBLE_SETTINGS, washed_ring_step=0.0)) is not lit


@pytest.mark.parametrize(
    "n, margin, changed",
    [
        (32, 1.3, True),  # the usual crop: the disc holds the marble's dark rim: stretched
        (32, 3.0, False),  # a wider margin: the disc (5 px) is the pale glass alone, too
        #                   washed out to stretch (less than washed_room left)
        (6, 1.3, False),  # too small for a disc and a ring: returned as it is
    ],
)
def test_washed_crops_disc_from_the_crop_margin(n, margin, changed):
    """The disc `washed_crops` looks at is 1 / margin of the crop (`CropSettings.margin`,
    passed by `untaught_crops`), the ring from `washed_ring`; a crop too small for both is
    returned as it is, not an error."""
    from vision.preprocess import linear_to_srgb, srgb_to_linear
    from vision.segment import washed_crops

    clean = _marble_crop((200, 200, 200)) if n == 32 else np.full((n, n, 3), 200, np.uint8)
    lin = srgb_to_linear(clean[None].astype(np.float32) / 255.0) + 0.6
    lit = np.round(255.0 * linear_to_srgb(lin)).astype(np.uint8)
    out = washed_crops(lit, MARBLE_SETTINGS, margin)
    assert (out is not lit) == changed


@pytest.mark.parametrize(
    "glare, near, changed",
    [
        (0.15, False, False),  # a little added light away from any spot: as it was
        (0.15, True, True),  # the same by a glare spot (its halo): taken off
        (0.0, True, False),  # an ordinary crop by a spot (its rim still dark): as it was
        (0.95, True, False),  # a spot's saturated core: too little range left even there
    ],
)
def test_washed_crops_looser_by_a_glare_spot(glare, near, changed):
    """A crop by a glare spot (`near`, `near_glare`) is stretched from a darker darkest
    (`near_washed_dark`) on than one elsewhere (`washed_dark`); `near_washed_dark` 0 takes
    the looser thresholds off."""
    from dataclasses import replace

    from vision.preprocess import linear_to_srgb, srgb_to_linear
    from vision.segment import washed_crops

    clean = _marble_crop((40, 170, 60))[None]
    lin = srgb_to_linear(clean.astype(np.float32) / 255.0) + glare
    lit = np.round(255.0 * linear_to_srgb(lin)).astype(np.uint8)
    mask = np.array([near])
    assert (washed_crops(lit, MARBLE_SETTINGS, near=mask) is not lit) == changed
    off = replace(MARBLE_SETTINGS, near_washed_dark=0.0)  # (the ordinary thresholds, which
    #   none of these crops passes)
    assert washed_crops(lit, off, near=mask) is lit


def test_near_glare_marks_the_crops_by_a_spot():
    """`near_glare`: a lamp's spot added to a cloth photo marks the candidates within
    `near_reach` x its core and not those far off; no spot (the plain photo), or the rule
    off: None. (The cloth a mid grey, as a light one under a dim room's light: on a near
    white one the spot's core merges with the cloth and `glare_spots` takes none.)"""
    from dataclasses import replace

    from vision.light_eval import add_spot
    from vision.segment import near_glare

    img, area = cloth_scene([])
    img[80:880, 240:1040] = (150, 160, 165)
    lit = add_spot(img, (500, 400), 110)
    centers = area.to_plane(np.array([[560.0, 420.0], [1000.0, 850.0]]))
    assert near_glare(img, area, centers, MARBLE_SETTINGS) is None
    near = near_glare(lit, area, centers, MARBLE_SETTINGS)
    assert near is not None and near.tolist() == [True, False]
    assert near_glare(lit, area, centers, replace(MARBLE_SETTINGS, near_washed_dark=0.0)) is None
