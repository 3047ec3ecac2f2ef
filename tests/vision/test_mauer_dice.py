"""The dice search around a Mauerhuepfer board (`vision.mauer_dice`)."""

import re
from dataclasses import replace

import cv2
import numpy as np
import pytest

from tests.vision.test_mauer_fast import _scene_view
from vision import mauer as M
from vision import mauer_dice as D
from vision.dice import Die


@pytest.mark.parametrize("dice,want,n_warn", [
    # (value, confidence, centre); board quad is [100, 300]^2
    ([(3, 0.9, (50, 50)), (5, 0.8, (350, 60))], [3, 5], 0),  # two dice beside the board
    ([(2, 0.99, (200, 200)), (3, 0.9, (50, 50)), (5, 0.8, (350, 60))], [3, 5], 1),  # one on it
    ([(4, 0.7, (50, 50))], [4], 0),  # one die: the scorer warns about it
])
def test_pick_dice_prefers_dice_off_the_board(dice, want, n_warn):
    corners = np.array([[100, 100], [300, 100], [300, 300], [100, 300]], float)
    used, warnings = D.pick_dice([Die(v, c, xy) for v, c, xy in dice], corners)
    assert sorted(d.value for d in used) == want
    assert len(warnings) == n_warn


@pytest.mark.parametrize("dice,said,warned", [
    ([(5, 0.50, (210.4, 88.0)), (6, 0.91, (250, 90))], [], ["(210, 88) read as 5"]),  # unsure
    ([(5, 0.60, (210, 88))], [], []),  # at the bar: sure enough
    ([(4, 0.45, (30, 40))], ["the die at (30, 40) was read as 4 from its blurred pips: "
                             "check it"], []),  # already said by the blurred read
    ([(4, 0.45, (30, 40))], ["the die at (31, 40) was read as 4 from its blurred pips: "
                             "check it"], ["(30, 40) read as 4"]),  # another die said
    ([], [], []),  # no dice
])
def test_unsure_dice_warns_below_the_bar_once(dice, said, warned):
    got = D.unsure_dice([Die(v, c, xy) for v, c, xy in dice], said, 0.6)
    assert len(got) == len(warned)
    for w, part in zip(got, warned, strict=True):
        assert part in w and "low confidence" in w


def test_board_dice_under_the_bar_are_warned_in_the_reading():
    """Committed 0027's 5 is read just over the spot read's gate (about 0.5): the reading
    says so (it said nothing before session 20)."""
    img = cv2.imread("datasets/scenes/mauerhuepfer/mauerhuepfer-e1-s1-0027.jpg")
    r = M.read_mauer(img)
    unsure = [d for d in r.pieces if d["label"].startswith("die-")
              and d["confidence"] < M.SETTINGS.dice.warn_confidence]
    assert unsure, "the photo no longer has an unsure die: pick another"
    for d in unsure:
        at = f"({d['center'][0]:.0f}, {d['center'][1]:.0f})"
        assert any(at in w and "low confidence" in w for w in r.warnings)


@pytest.mark.parametrize("seed", range(10))
def test_masked_median_equals_numpy(seed):
    rng = np.random.default_rng(seed)
    img = rng.integers(0, 256, (30, 40), dtype=np.uint8)
    if seed % 2:
        img = (img // 64 * 64).astype(np.uint8)  # ties and even counts
    mask = (rng.uniform(size=img.shape) < 0.3).astype(np.uint8)
    assert D.masked_median_u8(img, mask) == np.uint8(np.median(img[mask > 0]))


def _die_candidates_in_the_whole_photo(image_bgr, view, board, s, lightness):
    """The former `die_candidates`: the whole photo searched, filled outside the ring."""
    h, w = image_bgr.shape[:2]
    wm, hm = board.size_mm
    m = s.dice_search_mm
    outer = M.apply_h(view.H, [[-m, -m], [wm + m, -m], [wm + m, hm + m], [-m, hm + m]])
    centre = M.apply_h(view.H, [[wm / 2, hm / 2]])[0]
    ppm = float(np.sqrt(abs(cv2.contourArea(view.corners.astype(np.float32))) / (wm * hm)))
    die_px = s.die_mm * ppm
    mask = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(mask, np.round(outer).astype(np.int32), 1)
    cv2.fillConvexPoly(mask, np.round(view.corners).astype(np.int32), 0)
    L = np.where(mask > 0, lightness, D.masked_median_u8(lightness, mask))
    cands = D.light_die_blobs(L, die_px, s)  # (the blobs themselves as the function finds them)
    cands.sort(key=lambda c: float(np.linalg.norm(c - centre)))
    return [(c, die_px) for c in cands[: s.max_die_candidates]]


@pytest.mark.parametrize("shift", [
    (0.0, 0.0),  # the scene as it is
    (-300.0, 0.0),  # the board near the left edge: the ring cut by the photo
])
def test_die_candidates_in_the_rings_box_are_those_of_the_whole_photo(shift):
    img, board, view = _scene_view()
    T = np.array([[1, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1.0]])
    H = T @ view.H
    view = M.BoardView(M.apply_h(H, M.board_corners_mm(board)), H, None, 1.0)
    L = cv2.cvtColor(img, cv2.COLOR_BGR2LAB)[..., 0]
    s = replace(D.SETTINGS, pip_candidates=False)  # (the light blobs: what the box changed)
    got = D.die_candidates(img, view, board, s, L)
    want = _die_candidates_in_the_whole_photo(img, view, board, s, L)
    assert len(got) == len(want) > 0
    for (a, da), (b, db) in zip(got, want, strict=True):
        assert np.abs(a - b).max() < 1e-3 and da == db
    assert len(D.die_candidates(img, view, board, s)) == len(got)  # own L*


def _scene_with_die(table_bgr, angle, pips, pip_r, face_bgr=(250, 250, 250),
                    mean_scale=False):
    """The committed scene with a small white die (the board's 16 mm) drawn 60 mm beyond the
    board's north side on a patch of table colour `table_bgr`, turned by `angle`, its pips
    at (i, j) quarters of its sides, pip_r of its side in radius: (image, board, view, die
    centre px, die side px). The side from the board's scale at the die (`local_die_px`),
    or (`mean_scale`) from its mean scale."""
    img, board, view = _scene_view()
    at = M.apply_h(view.H, [[250.0, -60.0]])[0]
    if mean_scale:
        ppm = float(np.sqrt(abs(cv2.contourArea(view.corners.astype(np.float32))) / 250000.0))
        side = 16.0 * ppm
    else:
        side = D.local_die_px(view.H, at, 16.0)
    x, y = int(at[0]), int(at[1])
    r = int(4 * side)
    img[y - r:y + r, x - r:x + r] = table_bgr
    box = cv2.boxPoints(((at[0], at[1]), (side, side), angle))
    cv2.fillPoly(img, [np.round(box).astype(np.int32)], face_bgr)
    u, v = (box[1] - box[0]) / 4, (box[3] - box[0]) / 4
    for i, j in pips:
        px, py = box[0] + i * u + j * v
        cv2.circle(img, (int(round(px)), int(round(py))), max(1, int(side * pip_r)),
                   (20, 20, 20), -1)
    return img, board, view, at, side


def _die_beside_the_board(table_bgr, angle, pips, pip_r):
    """`_scene_with_die` (mean scale) and near(settings): whether `die_candidates` has a
    candidate on the die."""
    img, board, view, at, side = _scene_with_die(table_bgr, angle, pips, pip_r,
                                                 mean_scale=True)

    def near(settings):
        return any(np.hypot(*(c - at)) < 0.5 * side
                   for c, _ in D.die_candidates(img, view, board, settings))

    return near


@pytest.mark.parametrize("angle", [45.0, 30.0])
def test_a_small_die_split_by_its_pips_is_still_a_candidate(angle):
    """A small white die showing 3, turned so that its diagonal of pips cuts the face in two,
    on a light blue table beside the board: with the pips closed first it is one light blob
    and a candidate; without, its halves are too small and concave."""
    near = _die_beside_the_board((200, 190, 150), angle, ((1, 1), (2, 2), (3, 3)), 1 / 8)
    light = replace(D.SETTINGS, pip_candidates=False)  # the light blobs alone
    assert near(light)
    assert not near(replace(light, die_close=0.0))


def test_a_white_die_on_a_white_table_is_found_by_its_pips():
    """A white die showing 5 on a white table: no light blob stands out, but its pips, dark
    dots close together, make a candidate."""
    near = _die_beside_the_board((246, 246, 246), 20.0,
                                 ((1, 1), (3, 1), (2, 2), (1, 3), (3, 3)), 1 / 9)
    assert near(D.SETTINGS)
    assert not near(replace(D.SETTINGS, pip_candidates=False))


@pytest.mark.parametrize("H,at_mm", [
    (np.diag([2.5, 2.5, 1.0]), (100.0, 40.0)),  # a top view: the board's own scale
    (np.array([[2.0, 0.3, 50], [0.1, 1.8, 20], [0.0, 0.0, 1.0]]), (-60.0, 300.0)),  # affine
    (np.array([[2.0, 0.0, 0], [0.0, 2.0, 0], [0.0, 0.0015, 1.0]]), (250.0, -80.0)),  # far side
    (np.array([[2.0, 0.0, 0], [0.0, 2.0, 0], [0.0, 0.0015, 1.0]]), (250.0, 580.0)),  # near
])
def test_local_die_px_is_the_die_squares_size_at_its_place(H, at_mm):
    """The die's side in px at its place is the square root of the area a 16 mm square
    there covers in the photo (perspective: dice near the camera look bigger)."""
    x, y = at_mm
    sq = M.apply_h(H, [[x - 8, y - 8], [x + 8, y - 8], [x + 8, y + 8], [x - 8, y + 8]])
    want = float(np.sqrt(abs(cv2.contourArea(sq.astype(np.float32)))))
    got = D.local_die_px(H, M.apply_h(H, [[x, y]])[0], 16.0)
    assert got == pytest.approx(want, rel=0.01)


def _face_L(table, face, marks, side=40, n=160, mark=30):
    """A lightness image: a face of level `face` and side `side` on a `table` level, with
    dark marks ((dx, dy, w, h) in face px from its centre, level `mark`), slightly
    blurred."""
    L = np.full((n, n), table, np.uint8)
    c = n // 2
    if face is not None:
        cv2.rectangle(L, (c - side // 2, c - side // 2), (c + side // 2, c + side // 2), face, -1)
    for dx, dy, w, h in marks:
        cv2.ellipse(L, (c + dx, c + dy), (w // 2, h // 2), 0, 0, 360, mark, -1)
    return cv2.GaussianBlur(L, (0, 0), 1.5), (c, c), side


@pytest.mark.parametrize("table,face,marks,want", [
    (120, 235, [(-10, -10, 7, 7), (10, 10, 7, 7)], True),  # a 2
    (120, 235, [(-10, y, 22, 6) for y in (-10, 0, 10)], True),  # a 6 smeared sideways
    (120, 235, [(0, 0, 8, 8)], True),  # a 1 on a darker table
    (120, 235, [], False),  # a light square without marks
    (120, None, [], False),  # the plain table
    (235, 235, [(0, 0, 8, 8)], False),  # white on white, one dark dot: a speck
    (235, 235, [(-10, -10, 7, 7), (0, 0, 7, 7), (10, 10, 7, 7)], True),  # ... three: a 3
    (120, 235, [(0, 0, 34, 34)], False),  # a dark patch over most of the face
])
def test_die_seen(table, face, marks, want):
    L, centre, side = _face_L(table, face, marks)
    assert D.die_seen(L, centre, side) is want


@pytest.mark.parametrize("mark,want", [
    (205, True),  # 30 below the face: the faint pips of a small defocused die
    (223, False),  # 12 below: no marks (noise, JPEG)
])
@pytest.mark.parametrize("marks", [
    [(-10, -10, 7, 7), (10, 10, 7, 7)],  # a 2
    [(0, 0, 8, 8)],  # a 1
    [(0, 12, 44, 24), (0, -8, 7, 7)],  # the disc's lower half on the shaded side faces
    # (the blob's centre below the top face: dark share 0.51, over the former 0.45) and a pip
])
def test_die_seen_takes_faint_marks_on_a_light_face(mark, want, marks):
    """A die-sized light face on a darker table whose pips defocus left faint (contrast
    20-30 L*, committed 0003, 0011) is a die seen, also where half the face disc lies on
    its side faces (`seen_dark_share` up to 0.55); marks no deeper than noise are not."""
    L, centre, side = _face_L(120, 235, marks, mark=mark)
    assert D.die_seen(L, centre, side) is want


def _die_seen_whole(L, centre, side, s=D.SETTINGS):
    """The former `die_seen`: its disc and ring measured over the whole image."""
    yy, xx = np.mgrid[0:L.shape[0], 0:L.shape[1]]
    r = np.hypot(xx - centre[0], yy - centre[1]) / max(side, 1.0)
    disc, ring = r <= s.seen_face_r, (r >= s.seen_table_r[0]) & (r <= s.seen_table_r[1])
    if disc.sum() < 20 or ring.sum() < 20:
        return False
    face = float(np.percentile(L[disc].astype(np.float32), 85))
    contrast = face - float(np.percentile(L[disc].astype(np.float32), 3))
    if contrast < s.seen_min_contrast:
        return False
    dark = ((L.astype(np.float32) < face - 0.5 * contrast) & disc).astype(np.uint8)
    if not (s.seen_dark_share[0] <= dark.sum() / disc.sum() <= s.seen_dark_share[1]):
        return False
    n, _, stats, _ = cv2.connectedComponentsWithStats(dark, connectivity=8)
    marks = [k for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= (0.05 * side) ** 2]
    return bool(marks) and (face - float(np.median(L[ring])) >= s.seen_light_step
                            or len(marks) >= 2)


@pytest.mark.parametrize("shift", [(0, 0), (-60, 0), (0, 62), (75, -75), (300, 0)])
@pytest.mark.parametrize("marks", [[(-10, -10, 7, 7), (10, 10, 7, 7)], [(0, 0, 8, 8)]])
def test_die_seen_measures_only_around_the_die(shift, marks):
    """`die_seen` looks at the part of the image its disc and ring lie in: the same answer
    as over the whole image, for dice whole, cut by the image's edge, or outside it."""
    L, centre, side = _face_L(120, 235, marks)
    c = (centre[0] + shift[0], centre[1] + shift[1])
    assert D.die_seen(L, c, side) == _die_seen_whole(L, c, side)


def _smeared_die_scene():
    """`_scene_with_die` with a die showing 4 whose pips the camera smeared sideways into
    streaks: (image, board, view, die centre px, die side px)."""
    img, board, view, at, side = _scene_with_die(
        (90, 120, 150), 10.0, ((1, 1), (3, 1), (1, 3), (3, 3)), 1 / 8, face_bgr=(240, 240, 240))
    x, y = int(at[0]), int(at[1])
    r = int(4 * side)
    k = int(side * 0.6) | 1
    kernel = np.zeros((k, k), np.float32)
    kernel[k // 2] = 1.0 / k  # a horizontal smear
    patch = img[y - r:y + r, x - r:x + r]
    img[y - r:y + r, x - r:x + r] = cv2.filter2D(patch, -1, kernel)
    return img, board, view, at, side


def test_a_smeared_die_beside_the_board_is_warned_about():
    """A die showing 4 whose pips the camera smeared into streaks, beside the board: it is
    not read, and while a die is missing the warning says a die there could not be read;
    without `warn_unread` nothing is said."""
    img, board, view, at, side = _smeared_die_scene()

    def said(s):
        dice, warnings = D.read_board_dice(img, view, board, s)
        assert not any(np.hypot(d.center[0] - at[0], d.center[1] - at[1]) < side for d in dice)
        return [w for w in warnings if (m := re.match(r"a die at \((\d+), (\d+)\) could not "
                                                      r"be read", w))
                and np.hypot(int(m[1]) - at[0], int(m[2]) - at[1]) < 0.6 * side]

    # the scene's own two dice are read: a third die is missing only in a game of three
    three = replace(D.SETTINGS, dice_wanted=3)
    assert len(said(three)) == 1
    assert said(replace(three, warn_unread=False)) == []
    assert said(D.SETTINGS) == []  # two dice wanted, two read: the smear is no die missing


@pytest.mark.parametrize("at_mm,want", [
    ((100.0, 0.0), (1.0, 0.0)),  # right of the point under the camera: up points right
    ((0.0, -80.0), (0.0, -1.0)),  # above it in the photo: up points up
    ((60.0, 60.0), (0.7071, 0.7071)),
    ((0.0, 0.0), None),  # right under the camera: a die shows no side, no direction
])
def test_up_at_points_away_from_the_camera_nadir(at_mm, want):
    """A camera 500 mm straight above the table point (0, 0) (z down): the vertical at a die
    points away from the image of that point (its nadir)."""
    K = np.array([[800.0, 0, 640], [0, 800.0, 480], [0, 0, 1]])
    P = K @ np.array([[1.0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 500]])
    H = K @ np.array([[1.0, 0, 0], [0, 1, 0], [0, 0, 500]])
    view = M.BoardView(M.apply_h(H, [[0, 0], [10, 0], [10, 10], [0, 10]]), H, P, 1.0)
    got = D.up_at(view, M.apply_h(H, [at_mm])[0])
    if want is None:
        assert got is None
    else:
        assert np.allclose(got, want, atol=1e-3)
    assert D.up_at(M.BoardView(view.corners, H, None, 1.0), (700.0, 480.0)) is None


@pytest.mark.parametrize("pips,lone_there", [
    (((2, 2),), True),  # a 1: a lone dot
    (((1, 1), (2, 2), (3, 3)), False),  # a 3: dots close together, an ordinary candidate
])
def test_a_one_on_a_white_table_is_a_lone_pip_candidate(pips, lone_there):
    """A white die on a white table makes no light blob; a 1 makes no pair of pips either:
    its dot is offered as a lone candidate (read while dice are missing)."""
    img, board, view, at, side = _scene_with_die((246, 246, 246), 20.0, pips, 1 / 9)
    lone: list = []
    D.die_candidates(img, view, board, D.SETTINGS, lone=lone)
    assert any(np.hypot(*(c - at)) < 0.5 * side for c, _ in lone) is lone_there


@pytest.mark.parametrize("pip_r,big_there", [
    (0.11, False),  # a pip of the board's mean scale: an ordinary lone dot
    (0.19, True),  # a pip of a die 1.5 x that (near the camera): only a big lone dot
])
def test_a_big_one_near_the_camera_is_a_big_lone_candidate(pip_r, big_there):
    """Perspective makes a die near the camera up to 1.56 x the board's mean scale: its 1's
    pip is too large for a pip dot of the mean scale and is offered by `big` instead (after
    the lone dots, while dice are missing); a pip dot of the mean scale is not offered
    twice. Without `lone_big` nothing is offered there."""
    img, board, view, at, side = _scene_with_die((246, 246, 246), 20.0, ((2, 2),), pip_r,
                                                 mean_scale=True)
    lone: list = []
    big: list = []
    D.die_candidates(img, view, board, D.SETTINGS, lone=lone, big=big)
    near = [c for c, _ in big[0]() if np.hypot(*(c - at)) < 0.5 * side]
    assert bool(near) is big_there
    assert any(np.hypot(*(c - at)) < 0.5 * side for c, _ in lone) is not big_there
    big = []
    D.die_candidates(img, view, board, replace(D.SETTINGS, lone_big=False), big=big)
    assert big == []


@pytest.mark.parametrize("largest,want", [
    (1.5, 1.5),  # a die near the camera 1.5 x the mean: that scale
    (40.0, 2.0),  # a search ring reaching towards the horizon: capped (`lone_big_max_scale`)
])
def test_big_lone_dots_scale_is_capped(monkeypatch, largest, want):
    img, board, view, at, side = _scene_with_die((246, 246, 246), 20.0, ((2, 2),), 0.11,
                                                 mean_scale=True)
    calls: list = []  # (die_px, scale) of each pip dot search
    pip_dots = D.pip_dots

    def spy(L, die_px, s, scale=1.0):
        calls.append((die_px, scale))
        return pip_dots(L, die_px, s, scale)

    monkeypatch.setattr(D, "pip_dots", spy)
    monkeypatch.setattr(D, "_largest_die_px", lambda *a: largest * calls[0][0])
    big: list = []
    D.die_candidates(img, view, board, D.SETTINGS, lone=[], big=big)
    assert calls and all(sc == 1.0 for _, sc in calls)  # (the mean scale's search)
    big[0]()
    assert calls[-1][1] == pytest.approx(want)


@pytest.mark.parametrize("tilt", [0.0, 4e-4, -7e-4])
def test_largest_die_px_is_the_largest_over_the_search_area_in_the_photo(tilt):
    """`lone_big`'s scale: the largest local die side over the search ring within the
    photo is at a vertex of that part: no point of a dense grid inside it is larger; a ring
    reaching past the photo's edge counts only the part inside."""
    H = np.array([[2.0, 0.3, 100.0], [0.1, 1.8, 80.0], [0.0, tilt, 1.0]])
    w, h = 640, 480
    ring = np.array([[-50, 40], [600, -30], [700, 520], [30, 400]], np.int32)
    got = D._largest_die_px(H, ring, w, h, 16.0)
    xs, ys = np.meshgrid(np.linspace(0, w - 1, 41), np.linspace(0, h - 1, 31))
    pts = [(x, y) for x, y in zip(xs.ravel(), ys.ravel(), strict=True)
           if cv2.pointPolygonTest(ring.astype(np.float32), (float(x), float(y)), False) >= 0]
    best = max(D.local_die_px(H, p, 16.0) for p in pts)
    assert best <= got * (1 + 1e-6)
    assert got <= best * 1.05  # (the grid comes near the vertex)
    if tilt == 0.0:  # an affine map: one scale everywhere
        assert got == pytest.approx(16.0 * np.sqrt(2.0 * 1.8 - 0.3 * 0.1))
    assert D._largest_die_px(H, ring + 2000, w, h, 16.0) == 0.0  # off the photo


def _spots_face(value, angle=0.0, smear=0, merge=False, side=90, n=360, pip=0.09):
    """Lightness of an enlarged die face (side px) on a darker table, its pips (value) drawn
    at a quarter of the side from the centre, turned by `angle` degrees; `merge`: the pips of
    each column drawn as one bar (a small 6 blurred); `smear`: a motion blur (px) along the
    columns; `pip`: the pips' radius (x side). (L, centre, a) with a the face's affine map
    (face units -> px)."""
    L = np.full((n, n), 110, np.uint8)
    c = n / 2
    th = np.radians(angle)
    a = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]]) * side / 2
    box = np.array([c, c]) + np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) @ a.T
    cv2.fillPoly(L, [np.round(box).astype(np.int32)], 235)
    spots = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
             4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
             5: [(-1, -1), (1, -1), (-1, 1), (1, 1), (0, 0)],
             6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}[value]
    for u, v in spots:
        p = np.array([c, c]) + a @ (0.5 * u, 0.5 * v)
        cv2.circle(L, (int(round(p[0])), int(round(p[1]))), int(side * pip), 30, -1)
    if merge:
        for u in (-1, 1):
            p0, p1 = (np.array([c, c]) + a @ (0.5 * u, e) for e in (-0.5, 0.5))
            cv2.line(L, tuple(np.round(p0).astype(int)), tuple(np.round(p1).astype(int)), 30,
                     int(side * 0.14))
    if smear:
        k = np.zeros((smear | 1, smear | 1), np.float32)
        k[:, smear // 2] = 1.0 / (smear | 1)  # along the columns (angle 0: image y)
        L = cv2.filter2D(L, -1, k)
    return cv2.GaussianBlur(L, (0, 0), 2.0), (c, c), a


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize("angle", [0.0, 25.0])
def test_spot_read_reads_clean_faces(value, angle):
    L, c, a = _spots_face(value, angle)
    got = D.spot_read(L, c, a)
    assert got is not None and got[0] == value


def test_spot_read_reads_a_six_whose_columns_merged():
    L, c, a = _spots_face(6, 10.0, merge=True)
    got = D.spot_read(L, c, a)
    assert got is not None and got[0] == 6


@pytest.mark.parametrize("smear", [40, 45])
def test_spot_read_takes_no_smeared_four_for_a_six(smear):
    """A 4 smeared along its columns darkens the spots between its pips like a 6's; the
    streaks run on past the outer spots, so it is not read (and not as a 6)."""
    L, c, a = _spots_face(4, 0.0, smear=smear)
    assert D.spot_read(L, c, a) is None
    loose = replace(D.SETTINGS, spot_max_outside=9.0, spot_max_stray=1.0, spot_max_rim_dark=1.0)
    assert D.spot_read(L, c, a, loose)[0] == 6


def test_spot_read_needs_pips():
    L, c, a = _spots_face(1, 0.0)
    L[:] = cv2.GaussianBlur(np.where(L < 100, 235, L).astype(np.uint8), (0, 0), 2.0)
    assert D.spot_read(L, c, a) is None


def _uneven(L, c, glare=60, slope=0.5):
    """L with a lightness slope across it (slope x px from the centre) and a glare disc
    beside the centre: an unevenly lit face, as the spot read's rim and stray guards refuse."""
    n = L.shape[0]
    yy, xx = np.mgrid[0:n, 0:n]
    out = L.astype(np.float32) - slope * (xx - c[0])
    out += glare * np.exp(-((xx - c[0] - 12) ** 2 + (yy - c[1] + 8) ** 2) / (2 * 10.0 ** 2))
    return np.clip(out, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("value", range(2, 7))
@pytest.mark.parametrize("angle,uneven", [
    (0.0, False),
    (25.0, False),
    (25.0, True),  # slope and glare: no minimum of their own
    (60.0, True),
])
def test_dot_read_reads_faces_by_their_pip_minima(value, angle, uneven):
    L, c, a = _spots_face(value, angle)
    if uneven:
        L = _uneven(L, c)
    got = D.dot_read(D.spot_blur(L, a), c, a)
    assert got is not None and got[0] == value


@pytest.mark.parametrize("value,draw,why", [
    (1, None, "one pip: no layout to check"),
    (6, "faded_middles", "a 6 whose middle pips are faded is no 4 (0.55: read as 6)"),
    (4, "smear", "a 4 smeared along its columns"),
    (4, "big", "four dots 0.7 face units from the centre: not a die's layout"),
    (4, "none", "no pips"),
])
def test_dot_read_gives_no_wrong_value(value, draw, why):
    L, c, a = _spots_face(value, 10.0, smear=40 if draw == "smear" else 0)
    if draw == "faded_middles":  # middle pips at 0.42 of the depth: no pips, not light
        for v in (-0.5, 0.5):
            p = np.array(c) + a @ (v, 0.0)
            cv2.circle(L, (int(round(p[0])), int(round(p[1]))), 8, 235 - 0.42 * 205, -1)
    if draw == "big":
        L = np.full_like(L, 110)
        box = np.array(c) + np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) @ a.T
        cv2.fillPoly(L, [np.round(box).astype(np.int32)], 235)
        for u in [(-0.7, -0.7), (0.7, -0.7), (-0.7, 0.7), (0.7, 0.7)]:
            p = np.array(c) + a @ u
            cv2.circle(L, (int(round(p[0])), int(round(p[1]))), 8, 30, -1)
        L = cv2.GaussianBlur(L, (0, 0), 2.0)
    if draw == "none":
        L = cv2.GaussianBlur(np.where(L < 100, 235, L).astype(np.uint8), (0, 0), 2.0)
    got = D.dot_read(D.spot_blur(L, a), c, a)
    assert got is None or got[0] == value, why
    if draw in ("faded_middles", "big", "none"):
        assert got is None, why


def test_die_height_is_a_die_side_straight_up():
    """The camera of the nadir test: a die 100 mm right of the nadir, 500 mm below the
    camera; its top (16 mm up, 484 mm from the camera) shows 800 * 100 / 484 - 160 px right of
    its base, straight right (the direction `up_at` gives)."""
    K = np.array([[800.0, 0, 640], [0, 800.0, 480], [0, 0, 1]])
    P = K @ np.array([[1.0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 500]])
    H = K @ np.array([[1.0, 0, 0], [0, 1, 0], [0, 0, 500]])
    view = M.BoardView(M.apply_h(H, [[0, 0], [10, 0], [10, 10], [0, 10]]), H, P, 1.0)
    at = M.apply_h(H, [(100.0, 0.0)])[0]
    v = D.die_height(view, at)
    assert np.allclose(v, (800 * 100 / 484 - 160, 0.0), atol=1e-6)
    assert np.allclose(D.up_at(view, at), v / np.linalg.norm(v))
    assert D.die_height(M.BoardView(view.corners, H, None, 1.0), at) is None


def test_spot_read_at_the_top_face_not_at_the_blobs_centre():
    """A small 6 whose columns merged, its light blob's centre pulled 0.3 of a side down by a
    side face seen below it: the spot read there finds nothing; lifted back onto the top
    face (what `spot_lift` does with the die's height) it reads the 6."""
    L, c, a = _spots_face(6, 10.0, merge=True)
    assert D.spot_read(L, (c[0], c[1] + 0.3 * 90), a) is None
    assert D.spot_read(L, c, a)[0] == 6


def test_layout_values_name_each_face_in_every_turn():
    """`_LAYOUT_VALUE`: the value of the 9-bit codes of a face's dark spots (row r, column
    c: bit r * 3 + c), the turns of a 2, 3 and 6 two codes each, 0 for every other code."""
    def code(*spots):
        return sum(1 << (r * 3 + c) for r, c in spots)

    want = {code((1, 1)): 1, code((0, 0), (2, 2)): 2, code((0, 2), (2, 0)): 2,
            code((0, 0), (1, 1), (2, 2)): 3, code((0, 2), (1, 1), (2, 0)): 3,
            code((0, 0), (0, 2), (2, 0), (2, 2)): 4,
            code((0, 0), (0, 2), (1, 1), (2, 0), (2, 2)): 5,
            code((0, 0), (1, 0), (2, 0), (0, 2), (1, 2), (2, 2)): 6,
            code((0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)): 6}
    assert {int(k): int(v) for k, v in enumerate(D._LAYOUT_VALUE) if v} == want


@pytest.mark.parametrize("gives,visits", [
    ((), "b1 b2 l1 l2 g1 g2 p1 p2 t1 t2 f1 f2 m1 m2"),  # nothing read: the blobs, then the
    # lone dots, the big lone dots, pairs round them, touching dice anywhere, the finer
    # ladder, the dice found by their pips
    (("b1", "b2"), "b1 b2"),  # both dice from the blobs: no lone dots, no pairs
    (("b1", "l1"), "b1 b2 l1 l2"),  # the lone dots, once begun, to their end; no pairs
    (("b1", "g1"), "b1 b2 l1 l2 g1 g2"),  # the big ones too
    (("b1", "p1"), "b1 b2 l1 l2 g1 g2 p1 p2"),  # the pairs, once begun, to their end
    (("b1", "t1"), "b1 b2 l1 l2 g1 g2 p1 p2 t1 t2"),  # touching dice anywhere, to the end
    (("b1", "f2"), "b1 b2 l1 l2 g1 g2 p1 p2 t1 t2 f1 f2"),  # the finer ladder's blobs
    (("b1", "m1"), "b1 b2 l1 l2 g1 g2 p1 p2 t1 t2 f1 f2 m1 m2"),  # dice by their pips last
])
def test_read_board_dice_reads_blobs_then_lone_dots_then_pairs(monkeypatch, gives, visits):
    """`read_board_dice`'s order of reads: the light blobs, then (only while dice are
    missing) the lone pip-sized dots, then (still only while missing) the blobs of two
    touching dice round them, then those anywhere (`touching_dice`), but none where a
    pair candidate lies already, then the light blobs of the finer ladder (none where a
    touching die's candidate lies), then the dice found by their pips (`mark_groups`; none
    at a light candidate, but one at a lone dot: a lone dot is not read as a face)."""
    img, board, view, at, side = _smeared_die_scene()
    at = np.asarray(at, float)
    names = {f"{k}{i}": at + (3 * side * i, 3 * side * j)
             for j, k in enumerate("blgptfm") for i in (1, 2)}

    def candidates(image_bgr, view, board, s, lightness, lone, beside, pairs, big,
                   touch=None, fine=None, marks=None, busy=None):
        lone += [(names["l1"], side), (names["l2"], side)]
        big.append(lambda: [(names["g1"], side), (names["g2"], side)])
        pairs.append(lambda anchors: [(names["p1"], side), (names["p2"], side)])
        touch.append(lambda: [(names["p2"] + 0.2 * side, side), (names["t1"], side),
                              (names["t2"], side)])  # (the first at a pair candidate)
        fine.append(lambda: [(names["t1"] + 0.2 * side, side), (names["f1"], side),
                             (names["f2"], side)])  # (the first at a touching one's)
        marks.append(lambda: [(names["f1"] + 0.1 * side, side), (names["m1"], side),
                              (names["m2"], side)])  # (the first at a fine one's)
        return [(names["b1"], side), (names["b2"], side)]

    seen = []

    def read_crop(image_bgr, view, c, die_px, s, jac, read=True):
        name = next(k for k, v in names.items() if np.hypot(*(v - c)) < 1e-6)
        seen.append(name)
        if name not in gives:
            return None
        return float(c[0]), float(c[1]), 1.0, np.eye(2), None, [Die(5, 0.9, (0.0, 0.0))]

    monkeypatch.setattr(D, "die_candidates", candidates)
    monkeypatch.setattr(D, "_read_crop", read_crop)
    dice, _ = D.read_board_dice(img, view, board, replace(D.SETTINGS, dice_wanted=2))
    assert " ".join(seen) == visits
    assert len(dice) == len(gives)


def test_read_board_dice_reads_the_spots_again_lifted_onto_the_top_face(monkeypatch):
    """With a camera model, where the spot read at an unread candidate finds nothing,
    `read_board_dice` reads again `spot_lift` (half) of the die's height above it, in the
    enlarged crop's px: the second centre minus the first is the up direction there, as
    long as half the die's height times the crop's enlargement; the die found is reported
    at the candidate."""
    img, board, view, at, side = _smeared_die_scene()
    view = replace(view, P=M.camera_from_homography(view.H, img.shape[1::-1]))
    s = replace(D.SETTINGS, dice_wanted=3)
    calls = []

    def recorder(Lf, centre, a, s):
        calls.append(np.asarray(centre, np.float64))
        return None if len(calls) == 1 else (6, 0.9)

    monkeypatch.setattr(D, "_spot_read_at", recorder)
    dice, _ = D.read_board_dice(img, view, board, s)
    assert len(calls) == 2
    new = [d for d in dice if d.value == 6 and d.confidence == 0.9]
    assert len(new) == 1 and np.hypot(*np.subtract(new[0].center, at)) < 0.6 * side
    c = np.asarray(new[0].center)  # the candidate (to 0.1 px)
    v = D.die_height(view, c, s)
    up = np.asarray(D.up_at(view, c, s))
    f = max(1.0, s.die_target_px / D.local_die_px(view.H, c, s.die_mm))
    step = calls[1] - calls[0]
    assert np.linalg.norm(step) > 5  # a lift of several px, not nothing
    assert abs(up[0] * step[1] - up[1] * step[0]) < 1e-2 * np.linalg.norm(step)  # parallel,
    assert float(up @ step) > 0  # upwards
    assert np.linalg.norm(step) == pytest.approx(0.5 * np.linalg.norm(v) * f, rel=1e-2)


@pytest.mark.parametrize("value,angle,pip,low", [
    (6, 0.0, 0.14, 0.0),  # big pips reach past their spots on the widest split
    (4, 40.0, 0.12, 0.0),  # turned: the widest split's spots are no layout
    (2, 20.0, 0.14, 0.1),  # read a little off the face's centre
    (3, 0.0, 0.12, 0.2),
])
def test_spot_read_chooses_among_die_layouts(value, angle, pip, low):
    """Big pips (the renderer varies their size; real dice differ too): the widest split of
    all placements is no die layout, or its pips reach past the spots, so the former read
    (`spot_layouts_only` off) gave nothing; the widest split among the placements that are a
    layout reads the value."""
    L, c, a = _spots_face(value, angle, pip=pip)
    at = (c[0], c[1] + low * 90)
    assert D.spot_read(L, at, a, replace(D.SETTINGS, spot_layouts_only=False)) is None
    assert D.spot_read(L, at, a)[0] == value


@pytest.mark.parametrize("value,misses", [
    (1, (0, 0, 0)), (2, (0, 0, 0)), (3, (0, 0, 0)),
    (4, (0, 1, 1)),  # bigger pips, of the 9 turns x offsets: one read gives nothing
    (5, (0, 1, 1)),
    (6, (0, 0, 0)),
])
def test_spot_read_among_layouts_gives_no_wrong_value(value, misses):
    """Drawn faces of every value, turned, with small to big pips, read at or off their
    centre: a value or nothing, never another value; and the value nearly always (per pip
    size, the reads that give nothing now are counted: a read that gives nothing everywhere
    would pass `None or right` alone)."""
    got_none = []
    for pip in (0.09, 0.12, 0.14):
        nones = 0
        for angle in (0.0, 20.0, 40.0):
            for low in (0.0, 0.1, 0.2):
                L, c, a = _spots_face(value, angle, pip=pip)
                got = D.spot_read(L, (c[0], c[1] + low * 90), a)
                assert got is None or got[0] == value
                nones += got is None
        got_none.append(nones)
    assert tuple(got_none) == misses


def _two_dice(angle, apart, side=12.0, n=120, seed=0, turn=None):
    """Lightness of two light dice (squares of `side` px turned by `turn` degrees, `angle`
    when None; pips drawn, blurred, noise) on a dark table, their centres `apart` sides
    apart along a line at `angle` degrees; (L, the two centres)."""
    rng = np.random.default_rng(seed)
    L = np.full((n, n), 70, np.uint8)
    th = np.radians(angle)
    u = np.array([np.cos(th), np.sin(th)])
    tt = np.radians(angle if turn is None else turn)
    r = np.array([[np.cos(tt), -np.sin(tt)], [np.sin(tt), np.cos(tt)]]) * side / 2
    centres = [n / 2 - u * apart * side / 2, n / 2 + u * apart * side / 2]
    for c in centres:
        box = c + np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) @ r.T
        cv2.fillPoly(L, [np.round(box).astype(np.int32)], 215)
        for q in ((-0.5, -0.5), (0.5, 0.5)):  # a 2's pips
            p = c + r @ np.array(q)
            cv2.circle(L, (int(round(p[0])), int(round(p[1]))), 1, 40, -1)
    L = cv2.GaussianBlur(L, (0, 0), 1.2).astype(np.float64) + rng.normal(0, 3, L.shape)
    return np.clip(L, 0, 255).astype(np.uint8), centres


@pytest.mark.parametrize("angle,apart,turn,found", [
    (0, 1.0, None, True),  # side by side, touching
    (45, 1.0, None, True),  # touching along a diagonal line
    (20, 1.15, None, True),  # turned, a little gap blurred shut
    (45, 1.45, 0, True),  # corner to corner (like the committed edition-2 photo 0001's)
    (30, 1.2, 10, True),  # offset, turned a little against their line
    (0, 3.0, None, False),  # apart: two blobs of one die each (the blob detector's)
])
def test_pair_die_blobs_puts_a_candidate_on_each_of_two_touching_dice(angle, apart, turn,
                                                                     found):
    L, centres = _two_dice(angle, apart, seed=angle, turn=turn)
    got = D.pair_die_blobs(D.close_pips(L, 12.0, D.SETTINGS), 12.0, D.SETTINGS)
    near = [any(np.hypot(*(g - c)) < 0.35 * 12.0 for g in got) for c in centres]
    assert all(near) is found
    if not found:
        assert not any(near)


def test_pair_die_blobs_takes_no_single_die():
    L, _ = _two_dice(0, 0.0, seed=3)  # one die (both drawn on the same place)
    assert D.pair_die_blobs(D.close_pips(L, 12.0, D.SETTINGS), 12.0, D.SETTINGS) == []


_PIPS = {2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
         4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
         5: [(-1, -1), (1, -1), (-1, 1), (1, 1), (0, 0)],
         6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}


@pytest.mark.parametrize("value", range(2, 7))
@pytest.mark.parametrize("angle", [0.0, 25.0])
def test_lone_dot_read_reads_the_die_from_any_of_its_pips(value, angle):
    """A die of which one pip alone was found (a lone dot): from that pip the face's centre
    is 0.5-0.71 face units off in an unknown direction, and `_lone_dot_read` reads the die
    from there, its centre at the face's; never another value."""
    L, c, a = _spots_face(value, angle)
    crop_L = cv2.cvtColor(cv2.merge([L, L, L]), cv2.COLOR_BGR2LAB)[..., 0]  # (as read)
    for u, v in _PIPS[value]:
        at = np.array(c) + a @ (0.5 * u, 0.5 * v)
        got = D._lone_dot_read(crop_L, D.spot_blur(crop_L, a), at, a, 90.0, D.SETTINGS)
        assert got is None or got[0] == value
        if (u, v) == _PIPS[value][0]:  # (a corner pip)
            assert got is not None and got[0] == value
            assert np.hypot(*(got[2] - c)) < 0.15 * 90


@pytest.mark.parametrize("on_spot", [True, False])
@pytest.mark.parametrize("off", [(0.0, 0.5), (0.5, 0.0), (-0.5, 0.0)])  # empty spots of a 2
def test_lone_dot_read_needs_the_dot_on_a_pip_of_the_face(on_spot, off):
    """A dot that is no pip of the face read round it (an empty spot of a 2: a mark beside
    the face's pips) reads nothing with `lone_dot_on_spot` unless `lone_dot_agree` reads
    agree (here never: 99); without the rule some read round it is taken."""
    L, c, a = _spots_face(2, 10.0)
    crop_L = cv2.cvtColor(cv2.merge([L, L, L]), cv2.COLOR_BGR2LAB)[..., 0]
    at = np.array(c) + a @ off
    s = replace(D.SETTINGS, lone_dot_on_spot=on_spot, lone_dot_agree=99)
    got = D._lone_dot_read(crop_L, D.spot_blur(crop_L, a), at, a, 90.0, s)
    assert (got is None) is on_spot
    # the die's own pip still reads it under the rule
    pip = np.array(c) + a @ (-0.5, -0.5)
    got = D._lone_dot_read(crop_L, D.spot_blur(crop_L, a), pip, a, 90.0, s)
    assert got is not None and got[0] == 2


@pytest.mark.parametrize("table", [110, 235])
def test_lone_dot_read_needs_a_face_lighter_than_the_table(table):
    """Two dark dots on a bare table lie like a 2's pips: no die's body round them (the face
    no lighter than the table), no read; the same dots on a light face are a 2."""
    L, c, a = _spots_face(2, 10.0)
    if table == 235:  # the face's colour all round: no die body
        L = cv2.GaussianBlur(np.where(L > 150, 235, np.where(L > 80, 235, L)).astype(
            np.uint8), (0, 0), 1.0)
    at = np.array(c) + a @ (-0.5, -0.5)
    crop_L = cv2.cvtColor(cv2.merge([L, L, L]), cv2.COLOR_BGR2LAB)[..., 0]
    got = D._lone_dot_read(crop_L, D.spot_blur(crop_L, a), at, a, 90.0, D.SETTINGS)
    assert (got is not None and got[0] == 2) is (table == 110)


_BLOB_LIMIT = D.SETTINGS.lone_read_blobs_per_die * D.SETTINGS.dice_wanted


@pytest.mark.parametrize("n_blobs,read", [
    (1, True),  # a die's blob beside it: the lone dot is read by `_lone_dot_read`
    (_BLOB_LIMIT, True),  # `lone_read_blobs_per_die` per die of the game
    (_BLOB_LIMIT + 1, False),  # more die-sized blobs than that: clutter (a mislocated
    # board's fields)
])
def test_lone_dots_are_read_only_off_clutter(monkeypatch, n_blobs, read):
    img, board, view, at, side = _smeared_die_scene()
    at = np.asarray(at, float)
    blobs = [(at + (3 * side * (i + 1), 0.0), side) for i in range(n_blobs)]
    dot = at + (0.0, 3 * side)

    def candidates(image_bgr, view, board, s, lightness, lone, beside, pairs, big,
                   touch=None, fine=None, marks=None, busy=None):
        lone.append((dot, side))
        return blobs

    def read_crop(image_bgr, view, c, die_px, s, jac, read=True):
        return float(c[0]), float(c[1]), 1.0, np.eye(2), np.zeros((8, 8, 3), np.uint8), []

    calls = []
    monkeypatch.setattr(D, "die_candidates", candidates)
    monkeypatch.setattr(D, "_read_crop", read_crop)
    monkeypatch.setattr(D, "spot_blur", lambda L, a: L.astype(np.float32))
    monkeypatch.setattr(D, "_spot_read_at", lambda *a: None)
    monkeypatch.setattr(D, "dot_read", lambda *a, **k: None)
    monkeypatch.setattr(D, "_lone_dot_read", lambda *a: calls.append(1) or (3, 0.8, (0, 0)))
    dice, _ = D.read_board_dice(img, view, board, replace(D.SETTINGS, warn_unread=False,
                                                           pair_split=False))
    assert bool(calls) is read
    assert [d.value for d in dice] == ([3] if read else [])


def _px_per_mm_h(side_px):
    """A homography (3x3 float64) of a table seen straight down, a 16 mm die `side_px` px."""
    k = side_px / 16.0
    return np.array([[k, 0.0, 0.0], [0.0, k, 0.0], [0.0, 0.0, 1.0]])


@pytest.mark.parametrize("angle,apart,turn,side,found", [
    (0, 1.0, None, 12.0, True),  # side by side, touching
    (45, 1.0, None, 12.0, True),  # touching along a diagonal line
    (20, 1.15, None, 12.0, True),  # turned, a little gap blurred shut
    (45, 1.45, 0, 12.0, True),  # corner to corner
    (30, 1.2, 10, 12.0, True),  # offset, turned a little against their line
    (70, 1.05, None, 9.0, True),  # small dice
    (0, 1.0, None, 18.0, True),  # large dice
    (0, 3.0, None, 12.0, False),  # apart: two blobs of one die each
    (0, 0.0, None, 12.0, False),  # one die
])
@pytest.mark.parametrize("seed", [0, 1])
def test_touching_dice_puts_a_candidate_on_each_of_two_touching_dice(angle, apart, turn,
                                                                    side, found, seed):
    """Two light dice drawn on a dark table: a candidate within 0.3 sides of each where
    they touch, none where they lie apart or where there is one; the die's size comes from
    the homography, the photo offset `off` is added."""
    L, centres = _two_dice(angle, apart, side=side, seed=seed + angle, turn=turn)
    off = np.array([300.0, 200.0])
    got = D.touching_dice(D.close_pips(L, side, D.SETTINGS), _px_per_mm_h(side), off)
    assert all(abs(p - side) < 1e-6 for _, p in got)
    near = [any(np.hypot(*(g - off - c)) < 0.3 * side for g, _ in got) for c in centres]
    assert all(near) is found
    if not found:
        assert got == []


@pytest.mark.parametrize("side,drawn", [(12.0, 24.0), (12.0, 6.0), (16.0, 8.0)])
def test_touching_dice_sizes_the_pair_by_the_board(side, drawn):
    """A touching pair twice or half the size the board gives a die there is no pair of
    dice (a printed field, a pair of marks)."""
    L, _ = _two_dice(0, 1.0, side=drawn, n=160, seed=5)
    assert D.touching_dice(D.close_pips(L, side, D.SETTINGS), _px_per_mm_h(side), (0, 0)) == []


@pytest.mark.parametrize("w,h", [(4.0, 1.0), (2.0, 2.0), (3.0, 0.4)])
def test_touching_dice_takes_no_bar_or_square_of_other_sizes(w, h):
    """A light bar four dice long, a square two dice wide, a thin strip: no pair of dice."""
    side = 12.0
    L = np.full((120, 120), 70, np.uint8)
    cv2.rectangle(L, (int(60 - w * side / 2), int(60 - h * side / 2)),
                  (int(60 + w * side / 2), int(60 + h * side / 2)), 215, -1)
    L = cv2.GaussianBlur(L, (0, 0), 1.2)
    assert D.touching_dice(D.close_pips(L, side, D.SETTINGS), _px_per_mm_h(side), (0, 0)) == []


@pytest.mark.parametrize("table,face", [(150, 172), (150, 180), (100, 125)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fine_ladder_finds_a_small_die_a_little_lighter_than_the_table(table, face, seed):
    """A 10 px die (a 2) 22-30 levels lighter than its table, blurred: a compact light
    blob at one threshold of the 10-step ladder only (the detector wants two), found over
    `fine_thresholds`; a table with noise alone gives no blob over either."""
    rng = np.random.default_rng(seed)
    L = np.full((80, 80), table, np.uint8)
    cv2.rectangle(L, (35, 35), (45, 45), face, -1)
    for q in ((37, 37), (43, 43)):
        cv2.circle(L, q, 1, 80, -1)
    noise = rng.normal(0, 2, L.shape)
    die = np.clip(cv2.GaussianBlur(L, (0, 0), 1.0) + noise, 0, 255).astype(np.uint8)
    bare = np.clip(np.full(L.shape, float(table)) + noise, 0, 255).astype(np.uint8)
    fine = replace(D.SETTINGS, light_thresholds=D.SETTINGS.fine_thresholds)
    got = D.light_die_blobs(die, 10.0, fine)
    assert len(got) == 1 and np.hypot(*(got[0] - 40)) < 2.0
    assert D.light_die_blobs(die, 10.0, D.SETTINGS) == []
    assert D.light_die_blobs(bare, 10.0, fine) == []


_LAYOUT = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
           4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
           5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
           6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def _marks_scene(value, side, turn, blur, seed, table=242, face=246, pip_r=0.1, at=0.27,
                 n=120):
    """A white die (`face`) showing `value` on a white table (`table`): (L uint8 (n, n),
    centre). `blur`: ("motion", px, degrees) a streak, ("defocus", sigma) or None."""
    rng = np.random.default_rng(seed)
    L = np.full((n, n), float(table))
    c = np.array([n / 2 + rng.uniform(-3, 3), n / 2 + rng.uniform(-3, 3)])
    rot = np.array([[np.cos(np.radians(turn)), -np.sin(np.radians(turn))],
                    [np.sin(np.radians(turn)), np.cos(np.radians(turn))]])
    sq = c + (np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * side / 2) @ rot.T
    cv2.fillConvexPoly(L, np.round(sq * 16).astype(np.int32), float(face), cv2.LINE_AA, 4)
    for u in _LAYOUT[value]:
        q = c + rot @ (np.array(u, float) * at * side)
        cv2.circle(L, tuple(int(round(v * 16)) for v in q), int(round(pip_r * side * 16)),
                   40.0, -1, cv2.LINE_AA, 4)
    if blur and blur[0] == "motion":
        k = np.zeros((blur[1] + 2, blur[1] + 2), np.float32)
        h = (blur[1] + 1) / 2
        d = np.array([np.cos(np.radians(blur[2])), np.sin(np.radians(blur[2]))]) * blur[1] / 2
        cv2.line(k, (int(round((h - d[0]) * 16)), int(round((h - d[1]) * 16))),
                 (int(round((h + d[0]) * 16)), int(round((h + d[1]) * 16))), 1.0, 1,
                 cv2.LINE_AA, 4)
        L = cv2.filter2D(L, -1, k / k.sum())
    elif blur:
        L = cv2.GaussianBlur(L, (0, 0), blur[1])
    L = np.clip(L + rng.normal(0, 2.0, L.shape), 0, 255).astype(np.uint8)
    return L, c


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize("side,turn,blur", [
    (12.0, 0, None),
    (14.0, 25, ("motion", 7, 45)),  # pips streaked (committed 0015, 0027)
    (16.0, 10, ("motion", 9, 0)),
    (16.0, 0, ("defocus", 1.6)),  # a 6's columns blurred into bars (committed 0018)
    (20.0, 40, ("motion", 7, 120)),
])
def test_mark_groups_finds_a_white_die_on_a_white_table_by_its_pips(value, side, turn,
                                                                      blur):
    """A white die on a white table (4 levels apart: no light blob), its pips round,
    streaked or blurred into bars: a candidate within 0.3 sides of its centre, sized by
    the board's homography, the photo offset added; not a 1 unless streaked (a lone
    pip-sized dot, left to the lone dots)."""
    L, c = _marks_scene(value, side, turn, blur, seed=value)
    off = np.array([300.0, 200.0])
    got = D.mark_groups(L, D.close_pips(L, side, D.SETTINGS), _px_per_mm_h(side), off)
    lone_dot = value == 1 and (blur is None or blur[0] == "defocus")  # (a lone dot: the
    # lone dots' own)
    assert any(np.hypot(*(g - off - c)) < 0.3 * side for g, _ in got) is not lone_dot, got
    assert all(abs(p - side) < 1e-6 for _, p in got)


@pytest.mark.parametrize("draw", ["plain", "row", "big", "frame", "faint"])
@pytest.mark.parametrize("seed", [0, 1])
def test_mark_groups_takes_no_row_blot_or_frame(draw, seed):
    """No die where there are no pips of one face: a noisy plain table, a row of ten dots
    (text, a dotted line: too many marks, too long), a dark blot wider than a die (a
    pawn's foot), a printed field's frame two dice wide, marks 10 levels deep only."""
    side = 14.0
    rng = np.random.default_rng(seed)
    L = np.full((120, 120), 240.0)
    if draw == "row":
        for i in range(10):
            cv2.circle(L, (15 + 9 * i, 60), 2, 40.0, -1)
    elif draw == "big":
        cv2.circle(L, (60, 60), int(0.8 * side), 40.0, -1)
    elif draw == "frame":
        cv2.rectangle(L, (46, 46), (74, 74), 40.0, 2)
    elif draw == "faint":
        for u in _LAYOUT[5]:
            cv2.circle(L, (int(60 + 4 * u[0]), int(60 + 4 * u[1])), 1, 230.0, -1)
    L = np.clip(cv2.GaussianBlur(L, (0, 0), 0.8) + rng.normal(0, 2.0, L.shape), 0, 255
                ).astype(np.uint8)
    got = D.mark_groups(L, D.close_pips(L, side, D.SETTINGS), _px_per_mm_h(side), (0, 0))
    assert got == []


@pytest.mark.parametrize("H", [
    np.diag([2.5, 2.5, 1.0]),
    np.array([[2.0, 0.3, 50], [0.1, 1.8, 20], [0.0, 0.0, 1.0]]),
    np.array([[2.0, 0.0, 0], [0.0, 2.0, 0], [0.0, 0.0015, 1.0]]),
])
def test_local_die_px_many_is_local_die_px_at_each_point(H):
    """The die sizes of many marks at once equal `local_die_px` at each."""
    xy = np.random.default_rng(3).uniform(0, 600, (25, 2))
    got = D._local_die_px_many(H, xy, 16.0)
    assert got.shape == (25,)
    assert np.allclose(got, [D.local_die_px(H, p, 16.0) for p in xy], rtol=1e-9)



@pytest.mark.parametrize("kinds,warned", [
    (("blob", "fine"), ["b", "f"]),  # a light blob and a finer ladder's blob seen, unread
    (("blob",), ["b"]),  # (before session 22: the finer ladder's blob said nowhere)
])
def test_an_unread_die_seen_is_warned_at_a_blob_and_a_finer_blob_not_at_half_a_pair(
        monkeypatch, kinds, warned):
    """Three candidates, each seen as a die (`die_seen`) and read by none (no board blur):
    "could not be read" at each kind of `warn_kinds`, never at a half of a blob of two
    touching dice (`touching_dice`)."""
    img, board, view, at, side = _smeared_die_scene()
    at = np.asarray(at, float)
    names = {k: at - (3 * side * (i + 1), 0.0) for i, k in enumerate("btf")}

    def candidates(image_bgr, view, board, s, lightness, lone, beside, pairs, big,
                   touch=None, fine=None, marks=None, busy=None):
        touch.append(lambda: [(names["t"], side)])
        fine.append(lambda: [(names["f"], side)])
        return [(names["b"], side)]

    def read_crop(image_bgr, view, c, die_px, s, jac, read=True):
        return float(c[0]), float(c[1]), 1.0, np.eye(2), np.full((8, 8, 3), 200, np.uint8), []

    monkeypatch.setattr(D, "die_candidates", candidates)
    monkeypatch.setattr(D, "_read_crop", read_crop)
    monkeypatch.setattr(D, "die_seen", lambda *a, **k: True)
    monkeypatch.setattr(D, "board_blur", lambda *a, **k: None)
    s = replace(D.SETTINGS, dice_wanted=3, spot_read=False, lone_pips=False, pair_split=False,
                mark_search=False, warn_kinds=kinds)
    dice, warnings = D.read_board_dice(img, view, board, s)
    assert dice == []
    said = [np.array(m.groups(), float) for w in warnings
            if (m := re.match(r"a die at \((\d+), (\d+)\) could not be read", w))]
    assert len(said) == len(warned)
    for k, xy in zip(warned, said, strict=True):
        assert np.hypot(*(xy - names[k])) < 1.0
