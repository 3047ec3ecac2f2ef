"""Session 29's shortcuts in the Mauerhuepfer board and pawn stages give the answers of the
plain computations they replaced (each reference below is the former code)."""

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import area
from vision import mauer as M
from vision.preprocess import apply_gains, light_gains

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "datasets" / "scenes" / "mauerhuepfer"
BOARD = M.board_for()


def _photo(name: str) -> np.ndarray:
    return cv2.imread(str(SCENES / name))


# --------------------------------------------------------------------------- balanced Lab


def test_lab_conversion_is_per_pixel_whatever_the_shape():
    """`_BalancedLab` converts the pixels it is asked for as one row: OpenCV's 8-bit Lab must
    give each colour the numbers the whole image's conversion gives it (a shuffled quarter
    of all 2^24 colours, in images of several widths and in rows of odd lengths)."""
    rng = np.random.default_rng(29)
    v = rng.permutation(1 << 24)[: 1 << 22].astype(np.uint32)
    colours = np.stack([(v >> 16) & 255, (v >> 8) & 255, v & 255], axis=1).astype(np.uint8)
    want = cv2.cvtColor(colours.reshape(1024, 4096, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3)
    assert np.array_equal(cv2.cvtColor(colours.reshape(1, -1, 3), cv2.COLOR_BGR2LAB)
                          .reshape(-1, 3), want)
    for width in (7, 333, 1001):  # (SIMD blocks and scalar tails land elsewhere)
        n = len(colours) // width * width
        got = cv2.cvtColor(colours[:n].reshape(-1, width, 3), cv2.COLOR_BGR2LAB)
        assert np.array_equal(got.reshape(-1, 3), want[:n])
    o = 0
    for n in rng.integers(1, 3000, 200):
        got = cv2.cvtColor(colours[o:o + n].reshape(1, -1, 3), cv2.COLOR_BGR2LAB)
        assert np.array_equal(got.reshape(-1, 3), want[o:o + n])
        o += n


def _old_reduced_lab(img: np.ndarray) -> np.ndarray:
    """The former `_reduced`'s last return value: the whole balanced copy's Lab."""
    s = M.SETTINGS
    h, w = img.shape[:2]
    f = min(1.0, s.work_long_side / max(h, w))
    small = cv2.resize(img, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA)
    lab8 = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
    lab = cv2.cvtColor(apply_gains(small, light_gains(small, s.colour_balance)),
                       cv2.COLOR_BGR2LAB)
    lab[..., 0] = lab8[..., 0]
    return lab


@pytest.mark.parametrize("name,share", [
    ("mauerhuepfer-e1-s1-0000.jpg", 0.25),  # made per pixel (the default)
    ("mauerhuepfer-e1-s1-0019.jpg", 0.25),  # a checked cloth: per pixel, then the whole
    ("mauerhuepfer-e1-s1-0005.jpg", 0.01),  # a small share: the whole image soon
    ("mauerhuepfer-e1-s1-0005.jpg", 0.0),  # 0: `_reduced` returns the whole image
])
def test_balanced_lab_made_where_read_is_the_whole_images(name, share):
    img = _photo(name)
    old = _old_reduced_lab(img)
    _, _, _, lab = M._reduced(img, replace(M.SETTINGS, balanced_lazy_share=share))
    rng = np.random.default_rng(3)
    if share <= 0:
        assert isinstance(lab, np.ndarray) and np.array_equal(lab, old)
        return
    assert isinstance(lab, M._BalancedLab) and lab.shape == old.shape
    for n in (305, 12200, 305, 12200, 40000, 305):  # (the colour checks' sizes; the
        # budget runs out on the way with a small share)
        pts = rng.uniform(-5, 650, (n, 2))  # (some off the image: clamped)
        assert np.array_equal(M._bilinear(lab, pts), M._bilinear(old, pts))
    assert np.array_equal(lab.image(), old)
    assert np.array_equal(M._bilinear(lab, pts), M._bilinear(old, pts))  # (from the whole)


def test_colour_checks_read_the_same_from_the_balanced_lab():
    """The readers of `_reduced`'s Lab (start colours one and many, field contrast) give
    the same numbers from the made-where-read Lab as from the whole image, under fits near
    the board's and random ones."""
    img = _photo("mauerhuepfer-e1-s1-0007.jpg")
    view = M.find_board(img, BOARD, replace(M.SETTINGS, threads=False))
    f, _, _, lab = M._reduced(img, M.SETTINGS)
    old = _old_reduced_lab(img)
    rng = np.random.default_rng(5)
    S = np.diag([f, f, 1.0])
    Hs = np.stack([S @ view.H @ np.array([[1 + rng.normal(0, 0.02), rng.normal(0, 0.02),
                                            rng.normal(0, 20)],
                                           [rng.normal(0, 0.02), 1 + rng.normal(0, 0.02),
                                            rng.normal(0, 20)], [0, 0, 1.0]])
                   for _ in range(40)])
    assert np.array_equal(M._colour_evidence_many(lab, Hs, BOARD),
                          M._colour_evidence_many(old, Hs, BOARD))
    for H in Hs[:8]:
        assert M._colour_evidence(lab, H, BOARD) == M._colour_evidence(old, H, BOARD)
        assert M.field_contrast(lab, H, BOARD) == M.field_contrast(old, H, BOARD)



# --------------------------------------------------------------------------- local light


def _old_local_light(L8: np.ndarray, sigma: float) -> np.ndarray:
    """The former `_local_light`: the whole enlarged map."""
    small = cv2.resize(L8.astype(np.float32), (max(8, L8.shape[1] // 8),
                                               max(8, L8.shape[0] // 8)),
                       interpolation=cv2.INTER_AREA)
    return cv2.resize(cv2.GaussianBlur(small, (0, 0), sigma / 8),
                      (L8.shape[1], L8.shape[0]), interpolation=cv2.INTER_LINEAR)


@pytest.mark.parametrize("name,shape", [
    ("mauerhuepfer-e1-s1-0000.jpg", None),  # 1280 x 960: parts made apart
    ("mauerhuepfer-e1-s1-0016.jpg", None),
    ("mauerhuepfer-e1-s1-0012.jpg", (957, 1271)),  # not 8 x the copy: the whole map
    ("mauerhuepfer-e1-s1-0012.jpg", (480, 640)),  # the reduced search's size
])
def test_local_light_made_where_sliced_is_the_whole_maps(name, shape):
    img = _photo(name)
    if shape is not None:
        img = cv2.resize(img, shape[::-1], interpolation=cv2.INTER_AREA)
    L8 = cv2.extractChannel(cv2.cvtColor(img, cv2.COLOR_BGR2LAB), 0)
    old = _old_local_light(L8, 40.0)
    h, w = L8.shape
    rng = np.random.default_rng(len(name) + h)
    cuts = [(0, h, 0, w), (0, 9, 0, 9), (h - 9, h, w - 9, w), (7, 9, 15, 17),
            (8, 16, 8, 16)]  # (the whole, the corners, parts across an 8 px cell's edge)
    for _ in range(60):
        y0, x0 = int(rng.integers(0, h - 2)), int(rng.integers(0, w - 2))
        cuts.append((y0, int(rng.integers(y0 + 1, h + 1)), x0, int(rng.integers(x0 + 1, w + 1))))
    for y0, y1, x0, x1 in cuts:
        bg = M._local_light(L8, 40.0)  # (a fresh one: each part made apart)
        assert np.array_equal(bg[y0:y1, x0:x1], old[y0:y1, x0:x1]), (y0, y1, x0, x1)
    bg = M._local_light(L8, 40.0)
    assert np.array_equal(np.asarray(bg), old)
    assert np.array_equal(bg[5:h - 3, 2:w - 7], old[5:h - 3, 2:w - 7])  # (from the whole)


def test_blob_map_light_in_parts_is_the_whole_light():
    img = _photo("mauerhuepfer-e1-s1-0021.jpg")
    maps = M.blob_map(img, M.SETTINGS)
    L8 = cv2.extractChannel(cv2.cvtColor(img, cv2.COLOR_BGR2LAB), 0)
    bg = _old_local_light(L8, M.SETTINGS.blob_light_sigma)
    whole = np.clip(L8 / np.maximum(bg, 8.0) * 128, 0, 255).astype(np.uint8)
    assert np.array_equal(maps.light_in(100, 700, 200, 900), whole[100:700, 200:900])
    assert np.array_equal(maps.light, whole)


# --------------------------------------------------------------------------- camera fit


def _base_calib_fit(Hl, size, level):
    """The former `_calib_fit` (session 26): numpy steps' clip, update and test."""
    w, h = size
    x = np.array([0.8 * max(w, h), w / 2, h / 2])
    for _ in range(30):
        f, cx, cy = x.tolist()
        r0 = M._calib_residual((f, cx, cy), Hl, size, level)
        moved = [M._calib_residual(p, Hl, size, level)
                 for p in ((f + 1.0, cx, cy), (f, cx + 1.0, cy), (f, cx, cy + 1.0))]
        r = np.array(r0)
        J = np.array([[m[k] - r0[k] for m in moved] for k in range(len(r0))])
        dx = np.linalg.lstsq(J.T @ J + 1e-9 * np.eye(3), -J.T @ r, rcond=None)[0]
        dx[0] = np.clip(dx[0], -0.3 * x[0], 0.3 * x[0])
        x = x + dx
        x[0] = max(x[0], 0.2 * max(w, h))
        if np.abs(dx).max() < 1e-3:
            break
    return x


def _homographies(n: int) -> list:
    rng = np.random.default_rng(11)
    base = np.array([[900.0, 30.0, 2e5], [-20.0, 850.0, 1.5e5], [0.05, 0.3, 700.0]])
    return [(base * (1 + 0.3 * rng.normal(size=(3, 3)))).tolist() for _ in range(n)]


@pytest.mark.parametrize("size", [(1280, 960), (960, 1280)])  # landscape, portrait
@pytest.mark.parametrize("level", [0.0, 0.5])  # the fit without and with the level camera
def test_calib_fit_in_plain_floats_is_the_former_one(size, level):
    for Hl in _homographies(60):  # (most converge, some run all 30 steps)
        assert np.array_equal(M._calib_fit(Hl, size, level), _base_calib_fit(Hl, size, level))


def test_calib_fit_on_the_committed_boards_is_the_former_one():
    s = replace(M.SETTINGS, threads=False)
    for name in ("mauerhuepfer-e1-s1-0000.jpg", "mauerhuepfer-e1-s1-0005.jpg"):
        img = _photo(name)
        Hl = M.find_board(img, BOARD, s).H.tolist()
        for level in (0.0, 0.5):
            assert np.array_equal(M._calib_fit(Hl, img.shape[1::-1], level),
                                  _base_calib_fit(Hl, img.shape[1::-1], level))


# --------------------------------------------------------------------------- components


def _cores(seed: int) -> list:
    """uint8 0/1 masks: specks and discs (a few large), one with over 65535 pixels set (the
    16-bit labels' bound: `cc_stats` keeps 32-bit labels there)."""
    rng = np.random.default_rng(seed)
    out = []
    for p in (0.01, 0.2, 0.45):
        m = (rng.random((480, 640)) < p).astype(np.uint8)
        for _ in range(6):
            cv2.circle(m, (int(rng.integers(0, 640)), int(rng.integers(0, 480))),
                       int(rng.integers(5, 60)), 1, -1)
        out.append(m)
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_glare_components_are_opencvs_32_bit_ones(seed):
    for core in _cores(seed):
        want = cv2.connectedComponentsWithStats(core, connectivity=8)
        got = area.cc_stats(core)
        assert got[0] == want[0]
        for a, b in zip(got[1:], want[1:], strict=True):
            assert np.array_equal(a, b)


class _Int32Labels:
    """cv2 with `connectedComponentsWithStats` always giving 32-bit labels (the former
    calls)."""

    def __getattr__(self, name):
        return getattr(cv2, name)

    @staticmethod
    def connectedComponentsWithStats(mask, connectivity=8, ltype=cv2.CV_32S):  # noqa: N802
        return cv2.connectedComponentsWithStats(mask, connectivity=connectivity,
                                                ltype=cv2.CV_32S)


@pytest.mark.parametrize("name", [
    "mauerhuepfer-e1-s1-0027.jpg",  # a lamp's glare at the board's edge
    "mauerhuepfer-e1-s1-0002.jpg",  # the fields' own white saturated: components, no spot
])
def test_glare_spots_with_16_bit_labels_are_the_former_ones(name, monkeypatch):
    img = _photo(name)
    s = replace(M.SETTINGS, threads=False)
    view = M.find_board(img, BOARD, s)
    small = cv2.resize(img, (img.shape[1] // 2, img.shape[0] // 2),
                       interpolation=cv2.INTER_AREA)
    got = (M.edge_glare_spots(img, view, s), area.glare_spots(small, s.glare_area),
           area.merged_glare_spots(small, s.glare_area))
    low = np.full(len(BOARD.fields), 255.0)  # (every ring saturated: the board's own search)
    xy = M.apply_h(view.H, M._field_array(BOARD)[0])
    got_board = M.board_glare_spots(img, view, low, xy, s)
    import vision.dice as D
    monkeypatch.setattr(D, "cv2", _Int32Labels())
    want = (M.edge_glare_spots(img, view, s), area.glare_spots(small, s.glare_area),
            area.merged_glare_spots(small, s.glare_area))
    assert got == want
    assert M.board_glare_spots(img, view, low, xy, s) == got_board


# --------------------------------------------------------------------------- pawn stage


def test_spot_points_made_once_are_the_per_photo_ones():
    sp = M.spots(BOARD)
    centres = np.array([[q.x, q.y] for q in sp])
    rings, discs, onehot = M._spot_mm(BOARD)
    ring = BOARD.field_radius_mm * M._FIELD_RING
    assert np.array_equal(rings, (centres[:, None, :] + ring[None]).reshape(-1, 2))
    fields, _ = M._field_array(BOARD)
    r = 0.6 * BOARD.field_radius_mm
    assert np.array_equal(discs, (fields[:, None, :] + r * M._DISC[None]).reshape(-1, 2))
    want = np.zeros((len(sp), M.N_FEATURES - 30), np.float32)
    for i, q in enumerate(sp):
        want[i, M.KINDS.index(q.kind)] = 1.0
        if q.colour is not None:
            want[i, len(M.KINDS) + M.PAWN_COLOURS.index(q.colour)] = 1.0
    assert np.array_equal(onehot, want) and onehot.dtype == np.float32
    with pytest.raises(ValueError):  # (shared between photos: read only)
        rings[0, 0] = 1.0


def test_plane_discs_are_the_per_photo_projections():
    img = _photo("mauerhuepfer-e1-s1-0011.jpg")
    s = replace(M.SETTINGS, threads=False)
    view = M.find_board(img, BOARD, s)
    centres = np.array([[q.x, q.y] for q in M.spots(BOARD)])
    radii = (s.foot_r_mm, 0.85 * s.pawn_radius_mm * 0.7, s.head_r_mm)
    got = list(M._plane_discs(view, BOARD, s))
    assert len(got) == 3 and len(list(M._plane_discs(view, BOARD, s, planes=2))) == 2
    for (z, xy), z0, r in zip(got, s.heights_mm, radii, strict=True):
        pts = (centres[:, None, :] + r * M._DISC[None]).reshape(-1, 2)
        want = M.project(view.P, np.column_stack([pts, np.full(len(pts), -z0)]))
        assert z == z0 and np.array_equal(xy, want)
