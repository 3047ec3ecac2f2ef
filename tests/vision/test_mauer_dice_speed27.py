"""The board dice's cost, session 27 (docs/dice.md "Session 27 (mauer-dice-speed)"): the
faster parts give the numbers the slower ones gave. Each is compared with a copy of the
code it replaced on seeded synthetic faces and tables."""

from dataclasses import replace

import numpy as np
import pytest

from tests.vision.test_mauer_dice import _spots_face, _uneven
from vision import mauer_dice as D


def _spot_read_every(Lf, centre, a, s):
    """The spot read as it was before session 27 (every test on every placement, the face
    sampled per spacing): the reference the faster `_spot_read_at` must equal."""
    h, w = Lf.shape
    rot, spots, faces, rings, rim, near = D._spot_grids(s.spot_shift, s.spot_shift_steps,
                                                      tuple(s.spot_spacing), s.spot_explain)
    m = np.einsum("ij,tjk->tik", a, rot)  # (T, 2, 2) face units -> px
    c0 = np.asarray(centre, float)

    flat = Lf.ravel()

    def sample(u, inside=False):  # (P, S, k, 2) face units -> (T, P, S, k) lightness
        # c0 + m @ u per turn and axis, written out (np.einsum's "tij,pskj->tpski", bit for
        # bit, several times faster)
        ux, uy = u[None, ..., 0], u[None, ..., 1]
        x = c0[0] + (m[:, 0, 0, None, None, None] * ux + m[:, 0, 1, None, None, None] * uy)
        y = c0[1] + (m[:, 1, 0, None, None, None] * ux + m[:, 1, 1, None, None, None] * uy)
        ok = ((x >= 0) & (y >= 0) & (x <= w - 1) & (y <= h - 1)) if inside else None
        qx = np.clip(np.round(x), 0, w - 1).astype(np.intp)
        qy = np.clip(np.round(y), 0, h - 1).astype(np.intp)
        return flat[qy * w + qx], ok

    v, ok = sample(spots, inside=True)
    f, _ = sample(faces)
    r, _ = sample(rings)
    kq = int(0.85 * (f.shape[-1] - 1))
    face = np.partition(f, kq, axis=-1)[..., kq]  # (T, P, S): the face's 85th percentile
    lo = v.min(axis=-1)
    con = face - lo
    # the square lies on the die: its rim (0.8 of the way out) is face, not table
    rim_dark = ((face[..., None] - f[..., rim]) > 0.5 * np.maximum(con, 1e-6)[..., None]
                ).mean(axis=-1)
    t = (face[..., None] - v) / np.maximum(con, 1e-6)[..., None]
    order = np.sort(t, axis=-1)
    gaps = np.diff(order, axis=-1)
    k = gaps.argmax(axis=-1)
    gap = np.take_along_axis(gaps, k[..., None], -1)[..., 0]
    # every dark part of the face lies at a dark spot (a grid turned or shifted off the pips
    # may split its spots cleanly too, leaving pips between them)
    cut = np.take_along_axis(order, k[..., None], -1)  # (T, P, S, 1)
    dark_spot = t > cut  # (T, P, S, 9)
    tf = (face[..., None] - f) / np.maximum(con, 1e-6)[..., None]  # (T, P, S, 81)
    # (T, P, S, 81): some dark spot is near (an any() over the spots as a product of 0/1s)
    explained = (near @ dark_spot[..., None].astype(np.float32))[..., 0] > 0
    stray = ((tf > 0.5) & ~explained).mean(axis=-1)
    out = ((face[..., None] - r) / np.maximum(con, 1e-6)[..., None]).max(axis=-1)
    clean = ok.all(axis=-1) & (con >= s.spot_min_contrast) & (
        rim_dark <= s.spot_max_rim_dark) & (stray <= s.spot_max_stray)
    value = D._LAYOUT_VALUE[dark_spot.astype(np.int64) @ D._SPOT_BITS]  # (T, P, S), 0: none
    if s.spot_layouts_only:  # the widest split among the placements whose dark spots are
        # a die's layout and end where its pips do (not only the widest of all, which a
        # grid a little off a die with big pips may give: a 5's cross turned, or a 6's
        # pips reaching just past its spots)
        clean &= (value > 0) & (out <= s.spot_max_outside)
    gap = np.where(clean, gap, -1.0)
    b = np.unravel_index(int(np.argmax(gap)), gap.shape)
    if gap[b] < s.spot_min_gap or out[b] > s.spot_max_outside:
        return None
    if value[b] == 0:  # (with `spot_layouts_only`, neither can be: only off)
        return None
    if value[b] == 1 and s.one_as_pair:
        # a 1 is its centre spot dark and the rest of the square light, which a placement
        # centred on one pip of a 2 or 3 also gives on a table as light as the face (its
        # other pips lie at the square's corners, past the spots and the rim sampled):
        # the pip-sized minima round it, read as a face (`dot_read`), must not be another
        # die's layout
        other = D._one_as_pair(Lf, c0 + m[b[0]] @ spots[b[1], b[2], 4], a, s)
        if other is not None:
            return other[:2]
    return int(value[b]), float(gap[b])


def _noisy(L, seed, sd=12.0):
    rng = np.random.default_rng(seed)
    return np.clip(L.astype(np.float32) + rng.normal(0, sd, L.shape), 0, 255).astype(np.uint8)


_LOOSE = replace(D.SETTINGS, spot_max_outside=9.0, spot_max_stray=1.0, spot_max_rim_dark=1.0)
_ANY = replace(D.SETTINGS, spot_layouts_only=False)
_NO_STRAY = replace(D.SETTINGS, spot_max_outside=9.0, spot_max_stray=1.0)


@pytest.mark.parametrize("value,angle,kw,shift,noise,s", [
    (1, 0.0, {}, (0, 0), None, D.SETTINGS),  # a clean 1 (read)
    (3, 25.0, {}, (0, 0), None, D.SETTINGS),  # turned
    (5, 10.0, {}, (6, -4), None, D.SETTINGS),  # the centre off the face's
    (6, 10.0, {"merge": True}, (0, 0), None, D.SETTINGS),  # a 6's columns merged
    (4, 0.0, {"smear": 40}, (0, 0), None, D.SETTINGS),  # smeared: refused by the rim tests
    (4, 0.0, {"smear": 40}, (0, 0), None, _LOOSE),  # ... read as 6 without them
    (2, 40.0, {}, (0, 0), 1, D.SETTINGS),  # a noisy face
    (6, 30.0, {}, (25, 30), 2, D.SETTINGS),  # far off the face: table and edge
    (2, 15.0, {}, (0, 0), 3, _ANY),  # any split, not only a die's layouts
    (5, 0.0, {}, (150, 150), None, D.SETTINGS),  # the grid leaves the image
    (3, 60.0, {}, (0, 0), "uneven", D.SETTINGS),  # a slope and a glare on the face
    (6, 20.0, {"smear": 40}, (0, 0), None, D.SETTINGS),  # refused by the rim test alone
    (3, 20.0, {}, (0, 0), None, D.SETTINGS),  # the stray test picks the placement read
    (2, 20.0, {}, (20, 0), None, _NO_STRAY),  # the rim test picks it
])
def test_spot_read_at_equals_the_every_placement_read(value, angle, kw, shift, noise, s):
    """`_spot_read_at` (the face sampled once for both spacings, the rim and stray tests
    made only where the others pass) gives what every test on every placement gave."""
    L, c, a = _spots_face(value, angle, **kw)
    if noise == "uneven":
        L = _uneven(L, c)
    elif noise is not None:
        L = _noisy(L, noise)
    Lf = D.spot_blur(L, a)
    at = (c[0] + shift[0], c[1] + shift[1])
    want = _spot_read_every(Lf, at, a, s)
    assert D._spot_read_at(Lf, at, a, s) == want


def test_the_spot_read_cases_read_and_refuse():
    """The table above holds reads and refusals (the comparison means something)."""
    got = []
    for value, kw, s in [(1, {}, D.SETTINGS), (4, {"smear": 40}, D.SETTINGS)]:
        L, c, a = _spots_face(value, 0.0, **kw)
        got.append(D._spot_read_at(D.spot_blur(L, a), c, a, s))
    assert got[0] is not None and got[0][0] == 1 and got[1] is None


def _busy_feats_one_by_one(L, at, side, s):
    """`_busy_pick`'s features as they were made before session 27: one candidate at a
    time on `_disc_and_ring`'s window."""
    feats = np.full((len(at), 3), -np.inf)
    for i, c in enumerate(at):
        got = D._disc_and_ring(L, c, side, s)
        if got is None:
            continue
        win, disc, ring = got
        inner = win[disc].astype(np.float32)
        face = float(np.percentile(inner, 85))
        feats[i] = face, face - float(np.median(win[ring])), float(
            np.mean(inner >= face - s.busy_uniform))
    return feats


def _busy_table(seed, n=300):
    """A printed table's lightness: noise, dark strokes, light die-like squares; candidates
    at their centres (sub-pixel), at random and at the image's edges and corners."""
    rng = np.random.default_rng(seed)
    L = rng.integers(60, 200, (n, n)).astype(np.uint8)
    for _ in range(40):
        x, y = rng.integers(0, n, 2)
        L[max(0, y - 1):y + 2, x:x + rng.integers(5, 40)] = rng.integers(0, 60)
    at = []
    for _ in range(12):
        x, y = rng.uniform(10, n - 10, 2)
        L[int(y) - 8:int(y) + 9, int(x) - 8:int(x) + 9] = rng.integers(200, 256)
        at.append((x, y))
    at += [tuple(v) for v in rng.uniform(0, n - 1, (30, 2))]
    at += [(0.0, 0.0), (n - 1.0, 3.5), (2.25, n - 1.0), (n / 2, 0.4), (-0.5, n / 2),
           (-8.0, -8.0), (n + 5.0, n / 2),  # (these two: the disc off the image)
           (n / 2, n / 2), (n / 2 + 0.5, n / 2)]  # (whole and half pixels: pixels on the
    # disc's and ring's bounds with a side of 50)
    return L, np.array(at, float)


@pytest.mark.parametrize("seed,side", [
    (0, 20.0),  # a mat's die size
    (1, 13.5),  # a small die, sub-pixel side
    (2, 31.0),  # a large one: the edges cut more discs and rings
    (3, 0.6),  # a side under a pixel (taken as 1)
    (4, 50.0),  # pixels right on the disc's and the ring's radii (21, 42.5, 62.5 px)
])
def test_busy_feats_equal_one_candidate_at_a_time(seed, side):
    """`_busy_feats` (every candidate at once) gives the features the per-candidate loop
    gave, -inf where the photo's edge leaves too little, bit for bit."""
    L, at = _busy_table(seed)
    want = _busy_feats_one_by_one(L, at, side, D.SETTINGS)
    got = D._busy_feats(L, at, side, D.SETTINGS)
    assert np.array_equal(got, want)
    # (the cases hold candidates read and, but for the largest side, ones left out)
    assert (side > 40 or np.isinf(want[:, 0]).any()) and (
        side < 1 or np.isfinite(want[:, 0]).sum() >= 12)


def _disc_and_ring_grid(L, centre, side, s):
    """`_disc_and_ring` as it was before session 27: np.mgrid's two full grids."""
    h, w = L.shape
    reach = s.seen_table_r[1] * max(side, 1.0) + 2
    x0, y0 = max(0, int(centre[0] - reach)), max(0, int(centre[1] - reach))
    x1 = max(x0, min(w, int(centre[0] + reach) + 2))
    y1 = max(y0, min(h, int(centre[1] + reach) + 2))
    yy, xx = np.mgrid[y0:y1, x0:x1]
    r = np.hypot(xx - centre[0], yy - centre[1]) / max(side, 1.0)
    disc = r <= s.seen_face_r
    ring = (r >= s.seen_table_r[0]) & (r <= s.seen_table_r[1])
    if disc.sum() < 20 or ring.sum() < 20:
        return None
    return L[y0:y1, x0:x1], disc, ring


@pytest.mark.parametrize("centre,side", [
    ((150.3, 140.7), 90.0),  # an enlarged crop's die, sub-pixel centre
    ((150.0, 150.0), 50.0),  # whole pixels right on the disc's radius (21 px)
    ((3.5, 296.0), 40.0),  # at the image's corner: the window cut
    ((-30.0, 100.0), 20.0),  # off the image: too little left (None)
])
def test_disc_and_ring_equal_the_full_grids(centre, side):
    L, _ = _busy_table(5)
    want = _disc_and_ring_grid(L, centre, side, D.SETTINGS)
    got = D._disc_and_ring(L, centre, side, D.SETTINGS)
    if want is None:
        assert got is None and centre[0] < 0
        return
    assert all(np.array_equal(g, x) for g, x in zip(got, want, strict=True))


def _clear_one_at_a_time(pts, fixed, reach, in_turn=True):
    """`die_candidates`' pip means as taken before session 27: each point against a
    growing array of the fixed points and those taken before it (`_clear_of`)."""
    seen = list(fixed)
    out = []
    for c in pts:
        ok = D._clear_of(c, np.array(seen, float).reshape(-1, 2), reach)
        out.append(ok)
        if ok and in_turn:
            seen.append(c)
    return np.array(out, bool)


@pytest.mark.parametrize("seed,n,k,in_turn", [
    (0, 400, 20, True),  # a busy table's pip means among light blobs
    (1, 400, 0, True),  # no light blob
    (2, 300, 30, False),  # the lone dots: against the fixed points only
    (3, 1, 5, True),  # one point
    (4, 0, 5, True),  # none
])
def test_clear_in_turn_takes_what_one_at_a_time_took(seed, n, k, in_turn):
    rng = np.random.default_rng(seed)
    pts = rng.uniform(0, 300, (n, 2))
    fixed = rng.uniform(0, 300, (k, 2))
    if n > 10:  # points right at the reach from one before them and from a fixed one
        pts[5] = pts[2] + (6.0, 8.0)  # 10 px apart exactly
        if k:
            pts[7] = fixed[0] + (0.0, 10.0)
    want = _clear_one_at_a_time(pts, fixed, 10.0, in_turn)
    got = D._clear_in_turn(pts, fixed, 10.0, in_turn)
    assert np.array_equal(got, want)
    assert n < 10 or (want.any() and not want.all())
