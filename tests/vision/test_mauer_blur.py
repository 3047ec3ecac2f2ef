"""The photo's blur measured on the Mauerhuepfer board (`board_blur`) and blurred dice read
under it (`blur_kernels`, `blur_read`), on small synthetic arrays."""

import re
from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision import mauer_dice as D
from vision.psf import streak_kernel

N = 400  # the synthetic board's side (px)
CORNERS = np.array([[20, 20], [N - 20, 20], [N - 20, N - 20], [20, N - 20]], float)


def _board(seed=0):
    """(N, N) uint8 lightness of a board-like print: white discs with dark rims and dark
    lines between them, every way, on a mid-grey ground (seeded)."""
    rng = np.random.default_rng(seed)
    img = np.full((N, N), 150, np.uint8)
    pts = rng.uniform(40, N - 40, (30, 2))
    for p, q in zip(pts, pts[1:], strict=False):
        cv2.line(img, tuple(int(v) for v in p), tuple(int(v) for v in q), 110, 4, cv2.LINE_AA)
    for x, y in pts:
        cv2.circle(img, (int(x), int(y)), int(rng.uniform(8, 16)), 240, -1, cv2.LINE_AA)
        cv2.circle(img, (int(x), int(y)), int(rng.uniform(8, 16)), 60, 1, cv2.LINE_AA)
    return img


def _streak(img, n, deg):
    """`img` smeared by an n px streak turned `deg` counter-clockwise on screen from the x
    axis (the synthetic camera's motion blur)."""
    return cv2.filter2D(img, -1, streak_kernel(n, deg))


def test_a_sharp_board_shows_no_streak_and_little_blur():
    b = D.board_blur(_board(), CORNERS)
    assert b is not None and not b.motion() and b.known()
    assert b.sigma < 0.9


@pytest.mark.parametrize("sigma", [1.0, 1.6])
def test_a_defocused_board_shows_round_blur_of_its_size(sigma):
    b = D.board_blur(cv2.GaussianBlur(_board(1), (0, 0), sigma), CORNERS)
    assert not b.motion() and b.known()
    assert abs(b.sigma - np.hypot(sigma, 0.5)) < 0.35  # (the drawing's own softness: 0.5)


@pytest.mark.parametrize("deg", [0.0, 35.0, 120.0])  # the streak's turn, counter-clockwise
def test_a_streaked_board_shows_motion_along_the_streak(deg):
    b = D.board_blur(_streak(_board(2), 9, deg), CORNERS)
    assert b.motion()
    want = (-deg) % 180  # image angle, y down
    err = abs(b.angle - want) % 180
    assert min(err, 180 - err) < 12


def test_no_board_in_the_photo_gives_no_blur():
    assert D.board_blur(_board(), CORNERS + 1000) is None  # outline outside the photo
    assert D.board_blur(np.full((N, N), 150, np.uint8), CORNERS) is None  # no edges


def test_blur_kernels_are_one_gaussian_or_streaks_along_the_board():
    round_ = D.BoardBlur(ratio=0.8, angle=0.0, sigma=1.3, along=1.2, across=1.3)
    ks = D.blur_kernels(round_)
    assert len(ks) == 1 and abs(ks[0].sum() - 1) < 1e-4
    streak = D.BoardBlur(ratio=0.2, angle=90.0, sigma=1.4, along=1.7, across=1.1)
    ks = D.blur_kernels(streak)
    assert len(ks) == len(D.SETTINGS.blur_lengths)
    for k in ks:
        assert abs(k.sum() - 1) < 1e-4
        ys, xs = np.nonzero(k > 0.02)
        assert np.ptp(xs) <= 1  # a vertical streak: one column (90 degrees: image y)
    unsure = D.BoardBlur(ratio=0.7, angle=0.0, sigma=1.4, along=1.7, across=1.1)
    assert not unsure.known() and D.blur_kernels(unsure) == []


def _die(value, angle=0.0, side=16.0, blur=None, n=120, pips=True, pip_turn=0.0):
    """Lightness (n x n uint8) of a small die's top face (side px, turned `angle` degrees)
    with its pips (radius 0.1 x side, 0.23 x side from the centre: the pieces' drawing;
    turned `pip_turn` degrees more than the square) on a darker table, drawn 8 x finer,
    then blurred by the 2-D kernel `blur`. (L, centre, a) with `a` the face map (half
    sides -> px)."""
    f = 8
    big = np.full((n * f, n * f), 90, np.uint8)
    th = np.radians(angle)
    a = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]]) * side / 2
    c = np.array([n / 2, n / 2])
    box = (c + np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) @ a.T) * f
    cv2.fillConvexPoly(big, np.round(box).astype(np.int32), 235, cv2.LINE_AA)
    spots = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
             4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
             5: [(-1, -1), (1, -1), (-1, 1), (1, 1), (0, 0)],
             6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}[value]
    tp = np.radians(angle + pip_turn)
    ap = np.array([[np.cos(tp), -np.sin(tp)], [np.sin(tp), np.cos(tp)]]) * side / 2
    for u, v in spots if pips else []:
        p = (c + ap @ (0.46 * u, 0.5 * v if value == 6 else 0.46 * v)) * f
        cv2.circle(big, tuple(int(round(x)) for x in p), int(0.1 * side * f), 25, -1)
    L = cv2.resize(big, (n, n), interpolation=cv2.INTER_AREA)
    if blur is not None:
        L = cv2.filter2D(L, -1, blur)
    return L, (n / 2 + 1.5, n / 2 - 1.0), a  # (the blob's centre a little off the face's)


def _gauss(sigma):
    g = cv2.getGaussianKernel(2 * int(np.ceil(3 * sigma)) + 1, sigma, cv2.CV_32F)
    return g @ g.T


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize("angle", [0.0, 30.0])
def test_blur_read_reads_a_defocused_small_die(value, angle):
    """A 16 px die defocused by 1.4 px, read under that one Gaussian."""
    L, c, a = _die(value, angle, blur=_gauss(1.4))
    got = D.blur_read(L, c, a, [_gauss(1.4)])
    assert got is not None and got[0] == value


@pytest.mark.parametrize("value", range(1, 7))
def test_blur_read_reads_a_die_under_a_streak_across_its_columns(value):
    """A 9 px streak along the image x axis (a die's columns upright): read under the
    board's streaks of every length along x, or refused; never another value."""
    blur = D.BoardBlur(ratio=0.2, angle=0.0, sigma=1.4, along=1.8, across=1.1)
    L, c, a = _die(value, 0.0, side=18.0)
    L = _streak(L, 9, 0.0)
    got = D.blur_read(L, c, a, D.blur_kernels(blur))
    assert got is None or got[0] == value


def test_a_streak_along_a_sixs_columns_is_refused_not_read_as_a_four():
    """A 6 smeared along its columns: its blurred template is a 4's under a streak a little
    longer, so the read is refused (without the refusal it could read either)."""
    blur = D.BoardBlur(ratio=0.2, angle=90.0, sigma=1.4, along=1.8, across=1.1)
    for value in (4, 6):
        L, c, a = _die(value, 0.0, side=16.0)
        L = _streak(L, 9, 90.0)
        got = D.blur_read(L, c, a, D.blur_kernels(blur))
        assert got is None or got[0] == value
    loose = replace(D.SETTINGS, blur_confusable=2.0, blur_min_margin=-1.0, blur_min_ncc=-1.0)
    L, c, a = _die(6, 0.0, side=16.0)
    L = _streak(L, 9, 90.0)
    assert D.blur_read(L, c, a, D.blur_kernels(blur), loose) is not None  # (a read to refuse)


def test_blur_read_reads_no_blank_face_and_nothing_off_the_photo():
    L, c, a = _die(1, 0.0, blur=_gauss(1.4), pips=False)
    assert D.blur_read(L, c, a, [_gauss(1.4)]) is None
    L, c, a = _die(5, 0.0, blur=_gauss(1.4))
    assert D.blur_read(L, (3.0, 3.0), a, [_gauss(1.4)]) is None  # the window leaves the photo


def test_blur_kernels_streaks_are_the_synthetic_cameras():
    """The board's streaks are the renderer's own (`vision.psf.streak_kernel`), the image
    angle negated (y down)."""
    streak = D.BoardBlur(ratio=0.2, angle=30.0, sigma=1.4, along=1.7, across=1.1)
    for n, k in zip(D.SETTINGS.blur_lengths, D.blur_kernels(streak), strict=True):
        assert k.dtype == np.float32 and np.array_equal(k, streak_kernel(n, -30.0))


@pytest.mark.parametrize("bad", [
    np.nan,  # a corner not located
    np.inf,  # a corner at infinity (a degenerate homography)
])
def test_board_blur_of_a_board_with_no_finite_corners_is_unknown(bad):
    corners = CORNERS.copy()
    corners[2, 0] = bad
    assert D.board_blur(_board(), corners) is None


@pytest.mark.parametrize("centre,a", [
    ((np.nan, 60.0), np.eye(2) * 8),  # the die's centre not finite
    ((60.0, 60.0), np.array([[8.0, np.nan], [0.0, 8.0]])),  # nor its face's map
])
def test_blur_read_of_no_finite_die_reads_nothing(centre, a):
    L, _, _ = _die(5, 0.0, blur=_gauss(1.4))
    assert D.blur_read(L, centre, a, [_gauss(1.4)]) is None


@pytest.mark.parametrize("side,slant", [
    (12.0, 1.0),  # a small die seen square
    (40.0, 1.0),  # a big one (before, turned 40 degrees it kept 3419 of its 3721 px)
    (30.0, 0.6),  # foreshortened along y
])
def test_blur_read_templates_hold_the_grown_face_under_every_turn(monkeypatch, side, slant):
    """The face's square grown `blur_face_grow` x, under every turn tried (0-80 degrees),
    lies inside the template with a pixel to spare."""
    sizes = []
    real = D._square

    def square(m, half, grow, fine=1):
        out = real(m, half, grow, fine)
        if grow == D.SETTINGS.blur_face_grow:
            sizes.append(out)
        return out

    monkeypatch.setattr(D, "_square", square)
    a = np.diag([1.0, slant]) * side / 2
    L = np.full((400, 400), 90, np.uint8)
    D.blur_read(L, (200.0, 200.0), a, [_gauss(1.0)])
    assert sizes
    for mask in sizes:
        assert not (mask[0].any() or mask[-1].any() or mask[:, 0].any() or mask[:, -1].any())


def _wired(monkeypatch, reads, s, found=(), fake=None, blur=None):
    """`read_board_dice` on the smeared-die scene with its stages replaced: the light blobs
    at 3 die sides apart right of the smeared die, none read by the crop's read (except
    `found`: blob index -> Die value, read where the blob is), each seen as a die, the board
    streaked, and `blur_read` giving `reads[i]` ((value, ncc, centre) or None) at the i-th
    call (one blob per entry of `reads`; `fake(calls)`: another `blur_read` instead; `blur`:
    the board's `BoardBlur` instead of the streak). (dice, warnings, blobs, calls to
    `blur_read`)."""
    from tests.vision.test_mauer_dice import _smeared_die_scene
    from vision.dice import Die

    img, board, view, at, side = _smeared_die_scene()
    blobs = [np.asarray(at, float) - (3 * side * (i + 1), 0.0) for i in range(len(reads))]
    calls = []

    def read_crop(image_bgr, view, c, die_px, s, jac, read=True):
        i = next(i for i, b in enumerate(blobs) if np.hypot(*(b - c)) < 1e-6)
        dice = [Die(found[i], 0.9, (0.0, 0.0))] if i in found else []
        return float(c[0]), float(c[1]), 1.0, np.eye(2), np.full((8, 8, 3), 200, np.uint8), \
            dice

    def blur_read(L, c, a, kernels, s=D.SETTINGS, why=None, measured=False, searched=None):
        calls.append(np.asarray(c, float))
        return reads[len(calls) - 1]

    monkeypatch.setattr(D, "die_candidates", lambda *a, **k: [(b, side) for b in blobs])
    monkeypatch.setattr(D, "_read_crop", read_crop)
    monkeypatch.setattr(D, "die_seen", lambda *a, **k: True)
    monkeypatch.setattr(D, "board_blur", lambda *a, **k: blur if blur is not None else
                        D.BoardBlur(0.2, 0.0, 1.4, 1.8, 1.1))
    monkeypatch.setattr(D, "blur_read", fake(calls) if fake is not None else blur_read)
    s = replace(s, spot_read=False, lone_pips=False, pair_split=False)
    dice, warnings = D.read_board_dice(img, view, board, s)
    return dice, warnings, blobs, calls


READ_AS = re.compile(r"the die at \((\d+), (\d+)\) was read as (\d) from its blurred pips: "
                     r"check it")
UNREAD = re.compile(r"a die at \((\d+), (\d+)\) could not be read")


@pytest.mark.parametrize("most,n", [
    (2, 5),  # five blurred dice seen, two read so: the rest are not tried (clutter's time)
    (4, 3),  # fewer than the most: all read
])
def test_read_board_dice_reads_at_most_blur_max_reads_blurred_dice(monkeypatch, most, n):
    from tests.vision.test_mauer_dice import _smeared_die_scene

    img, board, view, at, side = _smeared_die_scene()
    blobs = [np.asarray(at, float) - (3 * side * (i + 1), 0.0) for i in range(n)]
    reads = [(1 + i % 6, 0.7, tuple(b)) for i, b in enumerate(blobs)]  # each at its blob
    s = replace(D.SETTINGS, dice_wanted=9, blur_max_reads=most, warn_unread=False)
    dice, warnings, _, calls = _wired(monkeypatch, reads, s)
    assert len(calls) == min(n, most)
    assert sorted(d.value for d in dice) == sorted(r[0] for r in reads[:min(n, most)])
    assert len([w for w in warnings if READ_AS.match(w)]) == min(n, most)


def test_a_blurred_read_needs_neither_the_spot_read_nor_the_warning():
    """The blurred read alone (no spot read, no warning) looks at the crop's lightness too
    (before, it was made only for those two: AttributeError on None)."""
    from tests.vision.test_mauer_dice import _smeared_die_scene

    img, board, view, at, side = _smeared_die_scene()
    s = replace(D.SETTINGS, dice_wanted=3, spot_read=False, warn_unread=False, blur_read=True)
    dice, warnings = D.read_board_dice(img, view, board, s)
    assert sorted(d.value for d in dice) == [2, 5]  # the scene's two sharp dice
    assert not any(np.hypot(d.center[0] - at[0], d.center[1] - at[1]) < side for d in dice)


@pytest.mark.parametrize("off,kept", [
    (1.0, False),  # the blurred face a die side from a die read: that die's, dropped
    (1.5, True),  # past `blur_apart` (1.2 sides): a die of its own
])
def test_a_blurred_read_beside_a_die_read_is_dropped(monkeypatch, off, kept):
    """The first blob is read by the crop's read (a 5); the second's blurred read lands
    `off` die sides from it."""
    from tests.vision.test_mauer_dice import _smeared_die_scene

    img, board, view, at, side = _smeared_die_scene()
    first = np.asarray(at, float) - (3 * side, 0.0)
    die_px = D._die_px(D.local_affine(view.H, first), D.SETTINGS.die_mm)
    face = (float(first[0]), float(first[1] + off * die_px))
    s = replace(D.SETTINGS, dice_wanted=3, warn_unread=False)
    dice, warnings, _, calls = _wired(monkeypatch, [(3, 0.7, face), None], s, found={0: 5})
    assert len(calls) == 1  # (the first blob was read: no blurred read there)
    assert sorted(d.value for d in dice) == ([3, 5] if kept else [5])
    assert len([w for w in warnings if READ_AS.match(w)]) == int(kept)


def test_a_die_read_from_blur_is_warned_as_read_not_as_unread(monkeypatch):
    """A blurred die read so gets the warning that names its value at its face's centre and
    not also 'could not be read'; a blurred die not read gets the latter."""
    from tests.vision.test_mauer_dice import _smeared_die_scene

    img, board, view, at, side = _smeared_die_scene()
    blobs = [np.asarray(at, float) - (3 * side * (i + 1), 0.0) for i in range(2)]
    face = (float(blobs[0][0]) + 1.4, float(blobs[0][1]) - 2.2)
    s = replace(D.SETTINGS, dice_wanted=3, warn_unread=True)
    dice, warnings, _, _ = _wired(monkeypatch, [(4, 0.72, face), None], s)
    assert [(d.value, d.center) for d in dice] == [(4, (round(face[0], 1), round(face[1], 1)))]
    said = [m.groups() for w in warnings if (m := READ_AS.match(w))]
    assert said == [(f"{face[0]:.0f}", f"{face[1]:.0f}", "4")]
    unread = [np.array(m.groups(), float) for w in warnings if (m := UNREAD.match(w))]
    assert len(unread) == 1 and np.hypot(*(unread[0] - blobs[1])) < 1.0  # the second only
    assert len(warnings) == 2


@pytest.mark.parametrize("value,angle,n,deg", [
    (6, 0.0, 5, 90.0),  # a 6 under a short streak along its columns (a 4 under a longer one)
    (3, 45.0, 5, 90.0),  # a 3 turned 45 degrees under a short vertical streak
])
def test_the_confusable_check_holds_only_the_matched_kernel_against_a_read(value, angle, n,
                                                                          deg):
    """The face's square fixes the streak's length; other values are compared under that
    kernel (every turn tried), not under all the board's: with all of them these dice,
    read right, were refused (alike 0.90-0.95; 16 of 250 right synthetic reads, no wrong
    one, session 14)."""
    blur = D.BoardBlur(ratio=0.2, angle=(-deg) % 180, sigma=1.4, along=1.8, across=1.1)
    L, c, a = _die(value, angle, side=14.0)
    why = []
    got = D.blur_read(_streak(L, n, deg), c, a, D.blur_kernels(blur), D.SETTINGS, why)
    assert got is not None and got[0] == value
    assert why[0][3] < D.SETTINGS.blur_confusable


@pytest.mark.parametrize("n", [5, 7, 9])
@pytest.mark.parametrize("deg", [0.0, 35.0, 120.0])
def test_the_board_shows_the_streaks_length(n, deg):
    """The board's derivative autocorrelation along the streak dips at its length or 1 px
    past it (`board_streak`; this drawn board: 1 px past); the kernels tried are that
    length and 1 px shorter, so the true one among them."""
    b = D.board_blur(_streak(_board(3), n, deg), CORNERS)
    assert b.motion() and b.length in (n, n + 1)
    ks = D.blur_kernels(b)
    assert 1 <= len(ks) <= 2 and {k.shape[0] for k in ks} <= {b.length - 1, b.length}
    assert any(k.shape[0] == n for k in ks)


@pytest.mark.parametrize("sigma", [0.0, 1.0, 1.6])
def test_no_streak_length_without_a_streak(sigma):
    img = _board(4) if sigma == 0 else cv2.GaussianBlur(_board(4), (0, 0), sigma)
    assert D.board_blur(img, CORNERS).length == 0


def test_a_streak_past_the_lags_measured_gives_no_length_and_every_kernel():
    """A 20 px streak dips past the last lag (14 px): no length, so every length of
    `blur_lengths` is tried (as before the length was measured)."""
    b = D.board_blur(_streak(_board(5), 20, 30.0), CORNERS)
    assert b.motion() and b.length == 0
    assert len(D.blur_kernels(b)) == len(D.SETTINGS.blur_lengths)


def test_board_streak_on_a_flat_window_is_unknown():
    win = np.full((60, 60), 128, np.float32)
    assert D.board_streak(win, np.ones((60, 60), bool), 30.0) == 0


@pytest.mark.parametrize("v,u,kernel,along", [
    (4, 6, ("streak", 9, 90.0), True),  # a 6's columns (image y) smeared: its middle pips
    (4, 6, ("streak", 9, 0.0), False),  # ... but a streak across them smears no pip onto them
    (5, 4, ("streak", 9, -45.0), True),  # a 5's centre on the streak through two corners
    (5, 4, ("streak", 9, 0.0), False),
    (1, 3, ("streak", 7, -45.0), True),  # a 3's diagonal (image down-right) is the streak
    (1, 3, ("streak", 7, 45.0), False),
    (2, 3, ("streak", 5, -45.0), True),
    (2, 4, ("streak", 9, -45.0), False),  # a 4's other corners lie across a 2's diagonal
    (4, 6, ("round", 1.4, 0.0), True),  # a round blur: no direction, every pair counted
])
def test_along_streak_pairs(v, u, kernel, along):
    """Which value pairs a kernel may smear into each other (a 14 px die, unturned)."""
    kind, n, deg = kernel
    k = streak_kernel(n, deg) if kind == "streak" else _gauss(n)
    m = np.eye(2) * 7.0
    assert D._along_streak(m, v, m, u, D._streak_of(k)) is along
    assert D._along_streak(m, u, m, v, D._streak_of(k)) is along  # (either way round)


@pytest.mark.parametrize("n", [5, 7, 9])
@pytest.mark.parametrize("deg", [0.0, 30.0, 90.0])
def test_streak_of_a_kernel(n, deg):
    d, length = D._streak_of(streak_kernel(n, deg))
    want = np.radians(-deg)  # image angle (y down)
    assert abs(abs(d[0] * np.cos(want) + d[1] * np.sin(want)) - 1.0) < 0.02
    assert abs(length - n) < 1.0
    assert D._streak_of(_gauss(1.4)) is None


@pytest.mark.parametrize("measured,read", [(False, False), (True, True)])
def test_a_pair_along_the_streak_is_read_only_where_the_board_measured_its_length(measured,
                                                                                 read):
    """A read whose most alike other value along the streak (a 4's 6 under a streak along
    its columns, alike 0.94 here) lies between `blur_confusable` and
    `blur_confusable_measured` (here 0.5 and 0.99): refused under kernels of a guessed
    length, kept under the board's measured length."""
    s = replace(D.SETTINGS, blur_confusable=0.5, blur_confusable_measured=0.99)
    L, c, a = _die(4, 0.0, side=14.0)
    L = _streak(L, 7, 90.0)
    why = []
    got = D.blur_read(L, c, a, [streak_kernel(7, 90.0)], s, why, measured=measured)
    assert why and 0.5 <= why[0][5] < 0.99  # the pair (a 6) along the streak
    assert (got is not None and got[0] == 4) is read


# -- a read refused as alike along the streak, told by the other die's pips (session 19) --

def _pair(value, other, side, n, deg=90.0, other_angle=20.0):
    """A die of `value` (turned 0) beside one of `other` (turned `other_angle`), drawn alike
    (`_die`: one pair of dice), both under one `n` px streak at `deg`: (L, the first's
    centre, its map, the second's centre, its map, the board's kernels: that length and
    1 px less)."""
    L1, c1, a = _die(value, 0.0, side=side)
    L2, c2, _ = _die(other, other_angle, side=side)
    L = _streak(np.hstack([L1, L2]), n, deg)
    return L, c1, a, (c2[0] + L1.shape[1], c2[1]), D._turned(a, other_angle), \
        [streak_kernel(n, deg), streak_kernel(n - 1, deg)]


@pytest.mark.parametrize("other,angle", [(3, 45.0), (2, 0.0)])
def test_a_four_along_its_columns_is_read_by_the_other_dies_pips(other, angle):
    """A 16 px 4 under a 9 px streak along its columns is a 6's look-alike and refused;
    beside a die of the same pips (a 3 or a 2, turned `angle`) it is read: a 6 as dark as
    that die's pips is too dark there."""
    L, c, a, c2, a2, ks = _pair(4, other, 16.0, 9, other_angle=angle)
    why = []
    assert D.blur_read(L, c, a, ks, D.SETTINGS, why, measured=True) is None
    assert D._only_along(why[0], True)  # (refused as alike along the streak alone)
    fit = D.blur_contrast(L, c2, a2, ks, other)
    assert fit is not None and fit[0] >= D.SETTINGS.blur_ink_ref_ncc
    got = D.blur_read(L, c, a, ks, D.SETTINGS, measured=True, ref=fit[1])
    assert got is not None and got[0] == 4
    # the other die's pips half as dark: not one pair, the 4 not told from a 6
    assert D.blur_read(L, c, a, ks, D.SETTINGS, measured=True, ref=0.5 * fit[1]) is None


@pytest.mark.parametrize("other", [1, 3, 5])
@pytest.mark.parametrize("n,side", [(7, 14.0), (7, 16.0), (9, 14.0), (9, 16.0), (9, 18.0)])
def test_a_six_along_its_columns_is_never_read_as_a_four_by_the_other_dies_pips(other, n,
                                                                               side):
    """A 6 under a streak along its columns, the other die's pips known: read as 6 or not
    at all; where a 4 matched it best, the 6's layout explains the face better under the
    other die's darkness."""
    L, c, a, c2, a2, ks = _pair(6, other, side, n)
    fit = D.blur_contrast(L, c2, a2, ks, other)
    assert fit is not None and fit[1] > 0
    why = []
    got = D.blur_read(L, c, a, ks, D.SETTINGS, why, measured=True, ref=fit[1])
    assert got is None or got[0] == 6
    if n == 9 and side < 18:  # (here a 4 wins the correlation: the look-alike)
        assert why[0][0] == 4 and why[0][7] is not None
    if why[0][0] == 4 and why[0][7] is not None:
        assert why[0][7][0] > why[0][7][1]  # the 4's residual above the 6's


@pytest.mark.parametrize("k,want", [
    (0.5, 0.0),  # the pips exactly as dark as the patch's: all explained
    (0.0, 1.0),  # no pips: a flat face explains nothing of the pips
])
def test_fixed_residual(k, want):
    rng = np.random.default_rng(0)
    t = rng.uniform(0, 1, (9, 9)).astype(np.float32)
    patch = (200.0 * (1.0 - 0.5 * t)).astype(np.float32)
    mask = np.ones((9, 9), np.uint8)
    assert D._fixed_residual(patch, t, mask, k) == pytest.approx(want, abs=1e-6)
    assert D._fixed_residual(patch, t, mask, 0.3) > 0.01  # (the darkness wrong)
    assert D._fixed_residual(np.full((9, 9), 80, np.float32), t, mask, 0.5) == 1.0  # flat
    assert D._pip_contrast(patch, t, mask) == pytest.approx(0.5, abs=1e-6)


def _refusing(ref_read, ncc=0.9):
    """A `blur_read` for `_wired`: every read refused as alike along the streak alone (its
    `why` so), read as `ref_read` ((value, ncc, centre)) once given a reference darkness;
    `blur_contrast`'s fit (value given) of correlation `ncc` and darkness 0.6."""
    def make(calls):
        def blur_read(L, c, a, kernels, s=D.SETTINGS, why=None, measured=False, ref=None,
                      value=None, searched=None):
            calls.append((np.asarray(c, float), ref, value))
            if value is not None:
                return ncc, 0.6, 0.9, None
            if why is not None:
                why.append((4, 0.8, 0.2, 0.95, 0.9, 0.95, 0.5, None))
            return ref_read if ref is not None else None
        return blur_read
    return make


@pytest.mark.parametrize("ncc,read", [
    (0.9, True),  # the read die's own layout fits well: its darkness tells the 4
    (0.5, False),  # ... it fits poorly (under `blur_ink_ref_ncc`): no darkness, no read
])
def test_a_read_refused_as_alike_is_judged_again_beside_a_die_read(monkeypatch, ncc, read):
    """The first blob's blurred read is refused as alike along the streak; the second blob
    is read by the crop's read (a 5) after it: at the end the first is read again with the
    5's pips' darkness, and named as read from its blurred pips (not 'could not be read')."""
    from tests.vision.test_mauer_dice import _smeared_die_scene

    img, board, view, at, side = _smeared_die_scene()
    first = np.asarray(at, float) - (3 * side, 0.0)
    face = (float(first[0]) + 1.0, float(first[1]) - 1.0)
    s = replace(D.SETTINGS, warn_unread=True)
    dice, warnings, blobs, calls = _wired(monkeypatch, [None, None], s, found={1: 5},
                                          fake=_refusing((4, 0.8, face), ncc))
    assert [c[2] for c in calls] == [None, 5] + ([None] if ncc >= 0.7 else [])
    if read:
        assert calls[2][1] == 0.6  # (the 5's darkness)
    assert sorted(d.value for d in dice) == ([4, 5] if read else [5])
    assert len([w for w in warnings if READ_AS.match(w)]) == int(read)
    assert len([w for w in warnings if UNREAD.match(w)]) == int(not read)


def test_no_read_refused_as_alike_is_judged_again_without_a_die_read(monkeypatch):
    """Both blobs refused as alike, no die read: nothing gives the pips' darkness, both stay
    unread."""
    s = replace(D.SETTINGS, warn_unread=True)
    dice, warnings, _, calls = _wired(monkeypatch, [None, None], s,
                                      fake=_refusing((4, 0.8, (0.0, 0.0))))
    assert dice == [] and len(calls) == 2 and all(c[1] is None and c[2] is None
                                                  for c in calls)
    assert len([w for w in warnings if UNREAD.match(w)]) == 2


# --- the regression read of a die under round blur (`blur_fit_read`, session 22 H3) ---

@pytest.mark.parametrize("value", range(1, 6))
@pytest.mark.parametrize("angle", [0.0, 30.0])
def test_blur_fit_read_reads_a_small_defocused_die(value, angle):
    """A 12 px die defocused by 1.5 px: the face's blurred rim explained by its square, the
    value read (`blur_read`'s correlation refuses most of these)."""
    L, c, a = _die(value, angle, side=12.0, blur=_gauss(1.5))
    got = D.blur_fit_read(L, c, a, _gauss(1.5))
    assert got is not None and got[0] == value
    assert np.hypot(got[2][0] - 60.0, got[2][1] - 60.0) < 1.5  # the face's centre


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize("side,sigma", [(9.0, 1.3), (9.0, 1.5), (10.0, 1.3), (10.0, 1.5)])
def test_blur_fit_read_of_a_tiny_blurred_die_is_right_or_nothing(value, side, sigma):
    for angle in (0.0, 30.0):
        L, c, a = _die(value, angle, side=side, blur=_gauss(sigma))
        got = D.blur_fit_read(L, c, a, _gauss(sigma))
        assert got is None or got[0] == value


def test_blur_fit_read_reads_no_six():
    """A 6 fitted best is refused (`blur_fit_values`: a 6's blurred columns are what a face
    softer than the model's square leaves along two edges), and read where allowed."""
    L, c, a = _die(6, 30.0, side=14.0, blur=_gauss(1.3))
    assert D.blur_fit_read(L, c, a, _gauss(1.3)) is None
    s = replace(D.SETTINGS, blur_fit_values=(1, 2, 3, 4, 5, 6))
    got = D.blur_fit_read(L, c, a, _gauss(1.3), s)
    assert got is not None and got[0] == 6


def test_blur_fit_read_reads_no_blank_face_nothing_off_the_photo_nor_unfinite():
    L, c, a = _die(1, 0.0, side=12.0, blur=_gauss(1.5), pips=False)
    assert D.blur_fit_read(L, c, a, _gauss(1.5)) is None
    L, c, a = _die(5, 0.0, side=12.0, blur=_gauss(1.5))
    assert D.blur_fit_read(L, (3.0, 3.0), a, _gauss(1.5)) is None
    assert D.blur_fit_read(L, (np.nan, 60.0), a, _gauss(1.5)) is None
    assert D.blur_fit_read(L, c, np.full((2, 2), np.inf), _gauss(1.5)) is None
    assert D.blur_fit_read(np.full((120, 120), 200, np.uint8), c, a, _gauss(1.5)) is None


@pytest.mark.parametrize("motion,called", [(False, 1), (True, 0)])
def test_a_refused_blurred_read_is_fitted_again_under_round_blur_only(monkeypatch, motion,
                                                                       called):
    """`read_board_dice`: a die `blur_read` refused gets `blur_fit_read` where the board shows
    round blur (defocus), not under a streak; the fit's die is warned as read from blur."""
    fits = []

    def fit(L, c, a, kernel, s=D.SETTINGS, why=None, searched=None):
        fits.append(np.asarray(c, float))
        return (3, 0.7, (float(c[0]), float(c[1])))

    monkeypatch.setattr(D, "blur_fit_read", fit)
    s = replace(D.SETTINGS, dice_wanted=3, warn_unread=True)
    blur = None if motion else D.BoardBlur(0.9, 0.0, 1.5, 1.5, 1.5)  # (None: `_wired`'s streak)
    dice, warnings, blobs, calls = _wired(monkeypatch, [None], s, blur=blur)
    assert len(calls) == 1 and len(fits) == called
    assert [d.value for d in dice] == ([3] if called else [])
    assert len([w for w in warnings if READ_AS.match(w)]) == called


def _ncc_at(L, c, a, value, yaw, sigma):
    """`value`'s layout turned `yaw` degrees on face map `a`, blurred by a Gaussian of
    `sigma`, matched over the window `blur_read` takes round `c`: (best correlation, window,
    half)."""
    win, _, _, half = D._blur_window(np.float32(L), c, a, D.SETTINGS)
    m = D._turned(a, yaw)
    spots = D._pip_spots(m, half, D.SETTINGS)
    k = _gauss(sigma)
    tm = -np.array([cv2.filter2D(sp, -1, k, borderType=cv2.BORDER_CONSTANT)
                    for sp in spots])[D._BLUR_LAYOUTS[value]].sum(axis=0)
    mask = (D._square(m, half, D.SETTINGS.blur_inner) > 0).astype(np.uint8)
    return D._masked_match(win, tm, mask)[0], win, half


@pytest.mark.parametrize("value,turn,read,refused", [
    (5, 45.0, 1, True),   # a 5 whose square was found 45 degrees off: its 1 is refused
    (3, 45.0, 1, True),   # ... a 3's diagonal too
    (1, 45.0, 1, False),  # a true 1 turned: no other value fits at another turn
    (1, 0.0, 1, False),
    (2, 0.0, 2, False),   # a true 2, 4, 6 at the square's own turn
    (4, 20.0, 4, False),
    (6, 0.0, 6, False),
])
def test_rivals_at_every_turn_refuse_a_read_whose_square_turn_was_off(value, turn, read,
                                                                      refused):
    """`_rival_turns`: the other values matched at the turns `blur_read` did not try beat
    read `read` (matched at the square's turn, 0 +- 10 degrees) by less than
    `blur_min_margin` exactly where the die's pips lie turned from the face's square (the
    face search's turn off on a small blurred die touching another)."""
    sigma = 1.2
    L, c, a = _die(value, 0.0, side=14.0, blur=_gauss(sigma), pip_turn=turn)
    ncc = max(_ncc_at(L, c, a, read, y, sigma)[0] for y in (170, 0, 10, 80, 90, 100))
    _, win, half = _ncc_at(L, c, a, read, 0, sigma)
    made = {(y, 0): None for y in (170, 0, 10, 80, 90, 100)}
    rival = D._rival_turns(win, a, half, [_gauss(sigma)], made, read, D.SETTINGS)
    assert (rival > ncc - D.SETTINGS.blur_min_margin) == refused, (ncc, rival)


@pytest.mark.parametrize("rival,on,kept", [(0.0, True, True), (0.99, True, False),
                                           (0.99, False, True)])
def test_blur_read_keeps_a_read_only_above_its_rivals_at_every_turn(monkeypatch, rival, on,
                                                                    kept):
    """A clean 5 read under its blur is refused where a value at another turn fits within
    `blur_min_margin` of it (`blur_rivals_every_turn`), kept where none does or unasked."""
    monkeypatch.setattr(D, "_rival_turns", lambda *a, **k: rival)
    L, c, a = _die(5, 0.0, blur=_gauss(1.4))
    s = replace(D.SETTINGS, blur_rivals_every_turn=on)
    got = D.blur_read(L, c, a, [_gauss(1.4)], s)
    assert (got is not None and got[0] == 5) == kept


@pytest.mark.parametrize("blur,fitted", [
    # a streak (the default `_wired` board): no regression read (session 28,
    # mauer-streak-dice: fitted under the face's streak it read 8 wrong of 144 synthetic
    # streaked dice, gaps 0.14-0.29 past `blur_fit_gap`), the die stays "could not be read"
    (None, False),
    # round blur (defocus): the refused die is fitted (session 22, H3)
    (D.BoardBlur(ratio=0.9, angle=0.0, sigma=1.5, along=1.5, across=1.5), True),
])
def test_a_refused_blurred_die_is_fitted_only_under_round_blur(monkeypatch, blur, fitted):
    """`blur_read` refuses the one seen die; `blur_fit_read` (reading nothing here) is asked
    only where the board shows round blur; the die is warned as unread either way."""
    fits = []
    monkeypatch.setattr(D, "blur_fit_read", lambda *a, **k: fits.append(a[1]))
    s = replace(D.SETTINGS, dice_wanted=3, warn_unread=True)
    dice, warnings, blobs, calls = _wired(monkeypatch, [None], s, blur=blur)
    assert len(calls) == 1 and len(fits) == int(fitted)
    assert dice == []
    unread = [np.array(m.groups(), float) for w in warnings if (m := UNREAD.match(w))]
    assert len(unread) == 1 and np.hypot(*(unread[0] - blobs[0])) < 1.0
