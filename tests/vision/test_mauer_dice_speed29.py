"""The board dice's cost, session 29 (docs/dice.md "Session 29 (mauer-dice-speed)"): the
faster parts give the numbers the slower ones gave. Each is compared with a copy of the
code it replaced (or the same call without the shortcut) on seeded synthetic dice, tables
and the committed scene; the spot read's sampling is compared with the session-26 read in
`test_mauer_dice_speed27.py`."""

import concurrent.futures
from dataclasses import replace

import cv2
import numpy as np
import pytest

from tests.vision.test_mauer_blur import _die, _gauss
from tests.vision.test_mauer_fast import _scene_view
from vision import mauer_dice as D


def _masked_match_copying(win, tmpl, mask):
    """`_masked_match` as it was before session 29 (np.nan_to_num's copy)."""
    r = cv2.matchTemplate(win, tmpl, cv2.TM_CCOEFF_NORMED, mask=mask)
    r = np.nan_to_num(r, nan=-1.0, posinf=-1.0, neginf=-1.0)
    j = np.unravel_index(int(np.argmax(r)), r.shape)
    return float(r[j]), (int(j[0]), int(j[1]))


@pytest.mark.parametrize("flat,seed", [
    (None, 0),  # a noisy window: every correlation defined
    ("window", 1),  # a flat window: every correlation undefined (NaN), counted -1
    ("half", 2),  # the left half flat: the undefined ones beside defined ones
    ("template", 3),  # a flat template
])
def test_masked_match_counts_undefined_correlations_as_before(flat, seed):
    rng = np.random.default_rng(seed)
    win = rng.uniform(0, 255, (40, 40)).astype(np.float32)
    tmpl = rng.uniform(0, 255, (15, 15)).astype(np.float32)
    if flat == "window":
        win[:] = 120.0
    elif flat == "half":
        win[:, :22] = 90.0
    elif flat == "template":
        tmpl[:] = 50.0
    mask = (rng.random((15, 15)) < 0.7).astype(np.uint8)
    want = _masked_match_copying(win, tmpl, mask)
    assert D._masked_match(win, tmpl, mask) == want
    if flat == "window":
        assert want[0] == -1.0  # (the case holds undefined correlations)


@pytest.mark.parametrize("value,angle,sigma", [
    (4, 0.0, 1.4),  # a 4: a 6 turned 90 degrees is its rival
    (6, 20.0, 1.4),
    (3, 45.0, 1.2),
    (1, 10.0, 1.6),
])
def test_rival_turns_with_a_bar_decides_as_the_full_search(value, angle, sigma):
    """`_rival_turns` told the bar returns the first rival over it: whether a rival beats
    the bar is what the whole search says, and under the bar it is the whole search's."""
    L, c, a = _die(value, angle, blur=_gauss(sigma))
    win, _, _, half = D._blur_window(np.float32(L), c, a, D.SETTINGS)
    k = [_gauss(sigma)]
    made = {(yaw, 0): None for yaw in (0, 10, 90)}  # (the turns `blur_read` tried: keys)
    for v in (value, 1 + value % 6):
        full = D._rival_turns(win, a, half, k, made, v, D.SETTINGS)
        for bar in (full - 0.2, full - 1e-6, full, full + 0.1):
            got = D._rival_turns(win, a, half, k, made, v, D.SETTINGS, bar)
            assert (got > bar) == (full > bar)
            assert got == full or got > bar


def _blur_fit_read_per_g(L, centre, a, kernel, s=D.SETTINGS, why=None, searched=None):
    """`blur_fit_read` as it was before session 29: the blurred face square and pip spots
    made again for every grown square g."""
    if searched is None:
        got = D._blur_window(L, centre, a, s)
        if got is None:
            return None
        win, x0, y0, half = got
        face = D._blur_face(win, np.asarray(a, np.float64), half, [kernel], s)
    else:
        win, x0, y0, half, face = searched[:5]
    a = np.asarray(a, np.float64)
    if face is None or face[0] < s.blur_min_face:
        return None
    _, (fc, fr), fyaw, _ = face
    t = 2 * half + 1
    reads = []
    for g in s.blur_fit_grows:
        best = {}
        for yaw in sorted({(fyaw + q + d) % 180 for q in s.blur_turns for d in s.blur_refine}):
            m = D._turned(a, yaw)
            inside = D._square(m, half, g) > 0
            sq = cv2.filter2D(D._square(m, half, 1.0, s.blur_supersample), -1, kernel,
                              borderType=cv2.BORDER_CONSTANT)[inside].astype(np.float64)
            spots = np.array([cv2.filter2D(sp, -1, kernel, borderType=cv2.BORDER_CONSTANT)[inside]
                              for sp in D._pip_spots(m, half, s)], np.float64)
            at, ys = [], []
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    r0, c0 = fr + dr, fc + dc
                    if r0 < 0 or c0 < 0 or r0 + t > win.shape[0] or c0 + t > win.shape[1]:
                        continue
                    at.append((x0 + c0 + half, y0 + r0 + half))
                    ys.append(win[r0:r0 + t, c0:c0 + t][inside])
            if not ys:
                continue
            Y = np.array(ys, np.float64).T
            sst = ((Y - Y.mean(axis=0)) ** 2).sum(axis=0)
            rss0, _ = D._fit_left(Y, sq, None)
            for v, idx in D._BLUR_LAYOUTS.items():
                rss, ok = D._fit_left(Y, sq, spots[idx].sum(axis=0))
                for i in np.flatnonzero(ok & (sst > 0) & (rss0 > 0)):
                    if v not in best or rss[i] / rss0[i] < best[v][0]:
                        best[v] = (float(rss[i] / rss0[i]), float(rss[i] / sst[i]), at[i])
        if not best:
            return None
        order = sorted(best, key=lambda u: best[u][0])
        v = order[0]
        gap = (best[order[1]][0] if len(order) > 1 else 1.0) - best[v][0]
        if why is not None:
            why.append((v, best[v][0], best[v][0] + gap, best[v][1], face[0],
                        tuple((u, round(best[u][0], 3)) for u in order)))
        reads.append((v, best[v][0], gap, best[v][1], best[v][2]))
        if v != reads[0][0] or v not in s.blur_fit_values or gap < s.blur_fit_gap or \
                best[v][1] > s.blur_fit_left:
            return None
    v, score, _, _, at = reads[-1]
    return v, 1.0 - score, (float(at[0]), float(at[1]))


_ALL = replace(D.SETTINGS, blur_fit_values=(1, 2, 3, 4, 5, 6), blur_fit_left=1.0,
               blur_fit_gap=0.0)  # (every g fitted: the later squares compared too)


@pytest.mark.parametrize("value,angle,side,sigma,s", [
    (3, 0.0, 12.0, 1.5, D.SETTINGS),  # read
    (5, 30.0, 12.0, 1.5, D.SETTINGS),  # turned
    (6, 30.0, 14.0, 1.3, D.SETTINGS),  # refused (a 6)
    (2, 15.0, 9.0, 1.5, D.SETTINGS),  # tiny
    (4, 40.0, 16.0, 1.2, _ALL),  # both grown squares fitted
    (1, 0.0, 12.0, 1.5, _ALL),
])
def test_blur_fit_read_equals_the_read_made_per_grown_square(value, angle, side, sigma, s):
    """`blur_fit_read` (the blurred square and spots made once per turn, the spots
    `blur_read` made taken from its `searched`) gives what the read making them for every
    grown square gave, with and without `blur_read`'s search, `why` alike."""
    L, c, a = _die(value, angle, side=side, blur=_gauss(sigma))
    k = _gauss(sigma)
    why_old, why_new = [], []
    want = _blur_fit_read_per_g(L, c, a, k, s, why_old)
    assert D.blur_fit_read(L, c, a, k, s, why_new) == want
    assert why_new == why_old
    searched = []
    D.blur_read(np.float32(L), c, a, [k], s, searched=searched)
    assert len(searched) == 1 and searched[0][5]["made"]  # (the spots shared)
    Lf = np.float32(L)
    assert D.blur_fit_read(Lf, c, a, k, s, searched=searched[0]) == \
        _blur_fit_read_per_g(Lf, c, a, k, s, searched=searched[0])
    # another kernel than the one `blur_read` matched: its spots not taken
    k2 = _gauss(sigma + 0.3)
    assert D.blur_fit_read(Lf, c, a, k2, s, searched=searched[0]) == \
        _blur_fit_read_per_g(Lf, c, a, k2, s, searched=searched[0])


def test_the_blur_fit_cases_read_and_refuse():
    """The table above holds reads and refusals (the comparison means something)."""
    L, c, a = _die(3, 0.0, side=12.0, blur=_gauss(1.5))
    got = D.blur_fit_read(L, c, a, _gauss(1.5))
    assert got is not None and got[0] == 3
    L, c, a = _die(6, 30.0, side=14.0, blur=_gauss(1.3))
    assert D.blur_fit_read(L, c, a, _gauss(1.3)) is None


def test_light_die_blobs_hands_back_its_closed_lightness():
    """`light_die_blobs`' `shut` gets the closed lightness it searched (`close_pips`): the
    touching, fine and mark searches take it instead of closing again."""
    img, board, view = _scene_view()
    L = cv2.cvtColor(img, cv2.COLOR_BGR2LAB)[..., 0]
    shut = []
    got = D.light_die_blobs(L, 14.0, D.SETTINGS, shut)
    want = D.light_die_blobs(L, 14.0, D.SETTINGS)
    assert len(got) == len(want) > 0 and all(np.array_equal(p, q) for p, q in zip(
        got, want, strict=True))
    assert len(shut) == 1 and np.array_equal(shut[0], D.close_pips(L, 14.0, D.SETTINGS))


@pytest.mark.parametrize("threaded", [False, True])
def test_die_candidates_later_searches_are_those_of_their_own_closing(threaded):
    """`die_candidates`' touching and fine searches on the light search's closed lightness
    (made on another thread or here) give what they gave closing it again."""
    img, board, view = _scene_view()
    pool = concurrent.futures.ThreadPoolExecutor(1) if threaded else None
    beside = (lambda fn, *args: pool.submit(fn, *args)) if threaded else None
    touch, fine = [], []
    D.die_candidates(img, view, board, D.SETTINGS, beside=beside, touch=touch, fine=fine)
    L = cv2.cvtColor(img, cv2.COLOR_BGR2LAB)[..., 0]
    calls = []
    real = D.close_pips

    def counted(L, die_px, s):
        if s.die_close > 0:  # (the fine search's own call closes nothing: `die_close` 0)
            calls.append(1)
        return real(L, die_px, s)

    try:
        D.close_pips = counted  # (the later searches: no closing of their own)
        got_touch, got_fine = touch[0](), fine[0]()
    finally:
        D.close_pips = real
    assert calls == []
    # the same searches on a closing made again
    ref_touch, ref_fine = [], []
    D.die_candidates(img, view, board, D.SETTINGS, L, touch=ref_touch, fine=ref_fine)
    for got, want in ((got_touch, ref_touch[0]()), (got_fine, ref_fine[0]())):
        assert len(got) == len(want)
        assert all(np.array_equal(p, q) and dp == dq
                   for (p, dp), (q, dq) in zip(got, want, strict=True))
    if pool is not None:
        pool.shutdown()
