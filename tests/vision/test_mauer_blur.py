"""The photo's blur measured on the Mauerhuepfer board (`board_blur`) and blurred dice read
under it (`blur_kernels`, `blur_read`), on small synthetic arrays."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision import mauer_dice as D

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
    k = np.zeros((n, n), np.float32)
    k[n // 2, :] = 1.0 / n
    k = cv2.warpAffine(k, cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), deg, 1.0), (n, n))
    return cv2.filter2D(img, -1, k / k.sum())


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


def _die(value, angle=0.0, side=16.0, blur=None, n=120, pips=True):
    """Lightness (n x n uint8) of a small die's top face (side px, turned `angle` degrees)
    with its pips (radius 0.1 x side, 0.23 x side from the centre: the pieces' drawing) on
    a darker table, drawn 8 x finer, then blurred by the 2-D kernel `blur`. (L, centre, a)
    with `a` the face map (half sides -> px)."""
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
    for u, v in spots if pips else []:
        p = (c + a @ (0.46 * u, 0.5 * v if value == 6 else 0.46 * v)) * f
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
