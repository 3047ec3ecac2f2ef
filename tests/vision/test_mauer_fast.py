"""The Mauerhuepfer reader's shortcuts give the same numbers as the plain computations."""

import json
import math
import platform
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import mauer as M


def test_dist_is_the_norm_bit_for_bit():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(7, 1, 5, 2)) * 300, rng.normal(size=(1, 9, 5, 2)) * 300
    assert np.array_equal(M._dist(a, b), np.linalg.norm(a - b, axis=-1))


def test_apply_many_is_the_einsum():
    rng = np.random.default_rng(1)
    Hs = rng.normal(size=(40, 3, 3))
    Hs[:, 2, :2] *= 1e-3
    Hs[:, 2, 2] = 1.0
    pts = rng.uniform(0, 500, (66, 2))
    q = np.einsum("kij,mj->kmi", Hs[:, :, :2], pts) + Hs[:, None, :, 2]
    assert np.array_equal(M._apply_many(Hs, pts), q[..., :2] / q[..., 2:3])


def test_bilinear_of_uint8_equals_that_of_a_float_copy():
    rng = np.random.default_rng(2)
    img = rng.integers(0, 256, (50, 60, 3), dtype=np.uint8)
    pts = rng.uniform(-5, 70, (500, 2))
    assert np.array_equal(M._bilinear(img, pts), M._bilinear(img.astype(np.float32), pts))


def test_blurred_lab_at_equals_the_whole_blurred_image():
    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, (40, 50, 3), dtype=np.uint8)
    lab = cv2.cvtColor(cv2.blur(img, (3, 3)), cv2.COLOR_BGR2LAB)
    xy = np.array([[x, y] for y in range(40) for x in range(50)])
    assert np.array_equal(M._blurred_lab_at(img, xy), lab[xy[:, 1], xy[:, 0]])


def test_board_for_gives_one_object_per_file():
    assert M.board_for() is M.board_for()


def _homographies_by_solving(src, dst):
    """The former `_homographies`: each 4-point homography from its 8 x 8 linear system."""
    k = len(src)
    A = np.zeros((k, 8, 8))
    bvec = np.zeros((k, 8))
    x, y = src[..., 0], src[..., 1]
    u, v = dst[..., 0], dst[..., 1]
    A[:, 0::2, 0], A[:, 0::2, 1], A[:, 0::2, 2] = x, y, 1
    A[:, 0::2, 6], A[:, 0::2, 7] = -u * x, -u * y
    A[:, 1::2, 3], A[:, 1::2, 4], A[:, 1::2, 5] = x, y, 1
    A[:, 1::2, 6], A[:, 1::2, 7] = -v * x, -v * y
    bvec[:, 0::2], bvec[:, 1::2] = u, v
    h = np.ones((k, 9))
    h[:, :8] = np.linalg.solve(A, bvec[..., None])[..., 0]
    return h.reshape(k, 3, 3)


def _quads(rng, n, size):
    """n convex quadrilaterals (corners clockwise on screen), jittered squares."""
    c = rng.uniform(0.3 * size, 0.7 * size, (n, 1, 2))
    r = rng.uniform(0.05 * size, 0.25 * size, (n, 1, 1))
    sq = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64)[None]
    return c + r * sq + rng.normal(0, 0.02 * size, (n, 4, 2))


def test_closed_form_homographies_equal_the_linear_solve():
    rng = np.random.default_rng(4)
    src, dst = _quads(rng, 500, 450.0), _quads(rng, 500, 1280.0)
    got = M._homographies(src, dst)
    want = _homographies_by_solving(src, dst)
    assert got.shape == want.shape
    assert np.allclose(got, want, rtol=1e-9, atol=1e-12 * np.abs(want).max())
    for k in range(0, 500, 50):  # and each maps its four points where they belong
        assert np.allclose(M.apply_h(got[k], src[k]), dst[k], atol=1e-8)


@pytest.mark.parametrize("bad", [
    [[0, 0], [10, 0], [20, 0], [0, 10]],  # three corners on a line
    [[0, 0], [0, 0], [10, 10], [0, 10]],  # two corners the same
])
def test_degenerate_quads_give_no_homography(bad):
    rng = np.random.default_rng(5)
    src = _quads(rng, 3, 400.0)
    dst = _quads(rng, 3, 1000.0)
    src[1] = np.array(bad, np.float64)
    got = M._homographies(src, dst)
    assert len(got) == 2
    assert np.allclose(got, _homographies_by_solving(src[[0, 2]], dst[[0, 2]]))


def test_no_quads_no_homographies():
    assert M._homographies(np.zeros((0, 4, 2)), np.zeros((0, 4, 2))).shape == (0, 3, 3)


def test_run_table_lists_every_stretch_of_every_board_row():
    board = M.board_for()
    tb = M._run_table(board)
    runs = M._board_runs(board)
    assert list(tb.blen) == [len(r) for r in runs]
    for i, r in enumerate(runs):
        for n in range(2, len(r) + 1):
            rows = tb.ends[tb.start[i, n]:tb.start[i, n] + tb.count[i, n]].tolist()
            want = [e for o in range(len(r) - n + 1)
                    for e in ([r[o], r[o + n - 1]], [r[o + n - 1], r[o]])]
            assert rows == want
    # parallel board rows without a shared field pair up, a row never with itself
    assert not tb.compat.diagonal().any()
    assert tb.compat.any()


def _icp_every_step(det, fields, H, pitch_mm, s, iters):
    """The former `_icp` (homography steps only): a RANSAC fit at every step."""
    n, rms = 0, 1.0
    for it in range(iters):
        proj = M.apply_h(H, fields)
        pitch_px = M._dist(M.apply_h(H, fields + np.array([pitch_mm, 0.0])), proj)
        d = M._dist(proj[:, None], det[None])
        j = np.argmin(d, axis=1)
        dj = d[np.arange(len(fields)), j]
        back = np.argmin(d, axis=0)
        frac = np.interp(it, [0, max(iters - 1, 1)], list(s.icp_tol))
        ok = (dj < frac * pitch_px) & (back[j] == np.arange(len(fields)))
        n = int(ok.sum())
        H, _ = cv2.findHomography(fields[ok].astype(np.float32), det[j[ok]].astype(np.float32),
                                  cv2.RANSAC, float(0.25 * np.median(pitch_px)))
        rms = float(np.sqrt(np.mean((dj[ok] / pitch_px[ok]) ** 2)))
    return H, n, rms


@pytest.mark.parametrize("seed", range(4))
def test_icp_that_stops_refitting_when_converged_gives_the_same_fit(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    board = M.board_for()
    fields, pitch = M._field_array(board)
    H_true = np.array([[2.1, 0.3, 150.0], [-0.2, 1.8, 120.0], [1e-4, 2e-4, 1.0]])
    det = M.apply_h(H_true, fields) + rng.normal(0, 0.4, (len(fields), 2))
    det = np.concatenate([det[rng.permutation(len(det))[:55]],  # some fields hidden
                          rng.uniform(0, 1280, (20, 2))])  # and other light blobs
    H0 = H_true @ np.array([[1.01, 0.01, 2.0], [-0.01, 0.99, -3.0], [0, 0, 1.0]])
    calls = []
    real = cv2.findHomography

    def counting(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(M.cv2, "findHomography", counting)
    H, n, rms = M._icp(det, fields, H0, pitch, M.SETTINGS, 8, affine=0)
    monkeypatch.undo()
    H_ref, n_ref, rms_ref = _icp_every_step(det, fields, H0, pitch, M.SETTINGS, 8)
    assert (n, rms) == (n_ref, rms_ref)
    assert np.allclose(M.apply_h(H, fields), M.apply_h(H_ref, fields), atol=1e-6)
    assert np.abs(M.apply_h(H, fields) - M.apply_h(H_true, fields)).max() < 1.0
    assert len(calls) < 8  # it did stop refitting


def _find_runs_over_all_points(pts, min_len, tol=0.25, k=6, max_gap=1):
    """The former `find_runs`: each chain step looks at every point in numpy (the chains
    assembled by the same `chains_from`)."""
    n = len(pts)
    if n < min_len:
        return []
    d = M._dist(pts[:, None], pts[None])
    np.fill_diagonal(d, np.inf)
    nbr = np.argsort(d, axis=1)[:, :min(k, n - 1)]

    def extend(chain, slot):
        while True:
            a, b = pts[chain[-2]], pts[chain[-1]]
            step = (b - a) / (slot[-1] - slot[-2])
            size = np.linalg.norm(step)
            for jump in range(1, max_gap + 2):
                dd = M._dist(pts, b + jump * step)
                m = int(np.argmin(dd))
                if dd[m] < tol * size and m not in chain:
                    chain.append(m)
                    slot.append(slot[-1] + jump)
                    break
            else:
                return

    return M.chains_from(nbr, extend, min_len)


def _grid_with_clutter(seed):
    """Rows of evenly spaced points seen in perspective, some missing, plus clutter."""
    rng = np.random.default_rng(seed)
    gx, gy = np.meshgrid(np.arange(11.0), np.arange(6.0))
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    H = np.array([[40.0, 8.0, 100.0], [-5.0, 38.0, 80.0], [2e-3, 1e-2, 1.0]])
    pts = M.apply_h(H, grid) + rng.normal(0, 0.6, (len(grid), 2))
    pts = pts[rng.uniform(size=len(pts)) > 0.12]
    return np.concatenate([pts, rng.uniform(0, 600, (25, 2))])[rng.permutation(len(pts) + 25)]


@pytest.mark.parametrize("seed,kw", [
    (0, {}),  # the board search's settings
    (1, {}),
    (2, {"max_gap": 0}),  # no bridging
    (3, {"tol": 0.05, "k": 8, "max_gap": 0}),  # the board file's own rows
    (4, {"max_gap": 2}),
])
def test_find_runs_equals_the_search_over_all_points(seed, kw):
    pts = _grid_with_clutter(seed)
    got = M.find_runs(pts, 5, **kw)
    want = _find_runs_over_all_points(pts, 5, **kw)
    assert len(got) == len(want) > 0
    for (gi, gs), (wi, ws) in zip(got, want, strict=True):
        assert gi.tolist() == wi.tolist() and gs.tolist() == ws.tolist()


# --- the reduced search and its full size refinement ---------------------------------------

SCENE = (Path(__file__).resolve().parents[2] / "datasets" / "scenes" / "mauerhuepfer"
         / "mauerhuepfer-e1-s1-0000.jpg")


def _scene_view():
    """The committed scene's photo and a view from its true board corners."""
    board = M.board_for()
    truth = json.loads(SCENE.with_suffix(".json").read_text())
    H = cv2.getPerspectiveTransform(M.board_corners_mm(board).astype(np.float32),
                                    np.float32(truth["area"])).astype(np.float64)
    view = M.BoardView(M.apply_h(H, M.board_corners_mm(board)), H, None, 1.0)
    return cv2.imread(str(SCENE)), board, view


@pytest.mark.parametrize("part", [
    (0, 50, 0, 60),  # a corner
    (17, 41, 23, 59),  # inside
    (0, 50, 0, 1),  # one column
])
def test_light_in_is_that_part_of_the_light_map(part):
    rng = np.random.default_rng(6)
    img = cv2.GaussianBlur(rng.integers(0, 256, (50, 60, 3), dtype=np.uint8), (0, 0), 2)
    m = M.blob_map(img, M.SETTINGS)
    y0, y1, x0, x1 = part
    assert np.array_equal(m.light_in(y0, y1, x0, x1), m.light[y0:y1, x0:x1])
    mask = (rng.uniform(size=(y1 - y0, x1 - x0)) < 0.5).astype(np.uint8)
    assert np.array_equal(m.part(y0, y1, x0, x1, mask).light, m.light[y0:y1, x0:x1] * mask)


def test_blob_map_from_the_callers_reduced_copy_is_the_same():
    img, _, _ = _scene_view()
    s = replace(M.SETTINGS, blob_long_side=640)
    h, w = img.shape[:2]
    f = 640 / max(h, w)
    small = cv2.resize(img, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA)
    a, b = M.blob_map(img, s), M.blob_map(img, s, small)
    assert a.f == b.f and np.array_equal(a.light, b.light)
    c = M.blob_map(img, s, small, cv2.cvtColor(small, cv2.COLOR_BGR2LAB))  # and its Lab
    assert np.array_equal(c.lightness, a.lightness) and np.array_equal(c.light, a.light)
    wrong = small[:-1]  # another size: made again (its Lab not used)
    assert np.array_equal(M.blob_map(img, s, wrong, wrong).light, a.light)


@pytest.mark.slow
def test_board_blobs_are_the_whole_photos_blobs_on_the_board():
    img, board, view = _scene_view()
    maps = M.blob_map(img, M.SETTINGS)
    whole = M.field_blobs(img, M.SETTINGS, maps)
    part = M.board_blobs(view, board, M.SETTINGS, maps)
    fields, pitch = M._field_array(board)
    mm = M.apply_h(np.linalg.inv(view.H), whole[:, :2])
    on = np.all((mm > fields.min(axis=0) - 0.4 * pitch)
                & (mm < fields.max(axis=0) + 0.4 * pitch), axis=1)
    assert on.sum() > 40
    d = M._dist(whole[on, None, :2], part[None, :, :2]).min(axis=1)
    # every blob among the fields, most at the same place; a few move a little where a
    # light region reaching beyond the cleared border joined their group at some threshold
    assert np.all(d < 0.5) and np.mean(d < 1e-3) > 0.9
    assert len(part) < len(whole)  # and not those on the table around


@pytest.mark.slow
def test_reduced_search_finds_the_full_size_searchs_board():
    img, board, truth = _scene_view()
    quick = M.find_board(img, board, M.SETTINGS)
    full = M.find_board(img, board, replace(M.SETTINGS, search_long_side=0))
    assert np.abs(quick.corners - full.corners).max() < 1.0
    assert np.abs(quick.corners - truth.corners).max() < 4.0
    assert quick.P is not None and np.allclose(quick.P[:, [0, 1, 3]] / quick.P[2, 3],
                                               quick.H / quick.H[2, 2], atol=1e-6)


@pytest.mark.parametrize("params", [
    (1000.0, 640.0, 480.0),  # the start of the fit
    (1500.0, 600.0, 500.0),
    (700.0, 700.0, 420.0),
])
def test_calib_residual_in_plain_floats_is_the_matrix_one(params):
    H = np.array([[900.0, 30.0, 2e5], [-20.0, 850.0, 1.5e5], [0.05, 0.3, 700.0]])
    f, cx, cy = params
    m = np.linalg.solve(np.array([[f, 0, cx], [0, f, cy], [0, 0, 1.0]]), H)
    r1 = m[:, 0] / np.linalg.norm(m[:, 0])
    r2 = m[:, 1] / np.linalg.norm(m[:, 1])
    n1, n2 = np.linalg.norm(m[:, 0]), np.linalg.norm(m[:, 1])
    want = [r1 @ r2, (n1 - n2) / (n1 + n2), 0.5 * np.cross(r1, r2)[0],
            0.05 * (cx - 640) / 1280, 0.05 * (cy - 480) / 960,
            0.02 * math.log(f / (0.8 * 1280))]
    assert np.allclose(M._calib_residual(params, H.tolist(), (1280, 960)), want,
                       rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("dst,same", [
    ([[0, 0], [10, 0], [10, 10], [0, 10]], True),  # the same square
    ([[5, 5], [30, 6], [28, 25], [4, 22]], True),  # seen at a slant
    ([[0, 0], [0, 10], [10, 10], [10, 0]], False),  # mirrored
    ([[0, 0], [10, 0], [0, 10], [10, 10]], False),  # two corners swapped: a bow tie
])
def test_same_turns(dst, same):
    src = np.array([[[0, 0], [10, 0], [10, 10], [0, 10]]], np.float64)
    assert bool(M._same_turns(src, np.array([dst], np.float64))[0]) is same


def test_no_plausible_homography_turns_a_corner_the_other_way():
    rng = np.random.default_rng(7)
    fields, _ = M._field_array(M.board_for())
    src = fields[rng.integers(0, len(fields), (3000, 4))]  # any four fields
    H = np.array([[2.0, 0.4, 150.0], [-0.3, 1.7, 120.0], [2e-4, 1e-3, 1.0]])
    dst = M.apply_h(H, src.reshape(-1, 2)).reshape(-1, 4, 2)  # seen in perspective
    dst += rng.normal(0, 60, dst.shape)  # and moved about: some become implausible
    keep = [k for k in range(3000) if len(M._homographies(src[k:k + 1], dst[k:k + 1]))]
    src, dst = src[keep], dst[keep]  # those with a homography (no three on a line)
    Hs = M._homographies(src, dst)
    assert len(Hs) == len(keep) > 2000
    plausible = M._plausible_many(Hs, M.board_corners_mm(M.board_for()))
    assert 100 < plausible.sum() < len(Hs) - 100
    assert M._same_turns(src, dst)[plausible].all()


ALWAYS = 1e9  # `threads_below_load`: a helper thread whatever the machine's load


RUNS = pytest.mark.parametrize("run", [M.run_beside, M.run_leaf], ids=["beside", "leaf"])


@RUNS
@pytest.mark.parametrize("threads", [True, False])
def test_run_beside_returns_or_raises_what_the_function_did(run, threads):
    s = replace(M.SETTINGS, threads=threads, threads_below_load=ALWAYS)
    assert run(s, divmod, 7, 2).result() == (3, 1)
    with pytest.raises(ZeroDivisionError):
        run(s, divmod, 7, 0).result()


@RUNS
def test_run_beside_without_threads_runs_only_when_asked(run):
    calls = []
    job = run(replace(M.SETTINGS, threads=False), calls.append, 1)
    assert calls == [] and job.cancel()  # a pass not needed is never made
    job.result()
    job.result()
    assert calls == [1] and not job.cancel()


@RUNS
@pytest.mark.parametrize("load,cores,threaded", [
    ((0.5, 2.0, 2.0), 2, True),  # an idle 2-core machine: a helper thread
    ((1.6, 2.0, 2.0), 2, False),  # 0.8 per core: the steps run one after the other
    ((5.0, 5.0, 5.0), 8, True),  # 0.625 per core on 8 cores
])
def test_run_beside_uses_a_thread_only_with_a_core_to_spare(monkeypatch, run, load, cores,
                                                              threaded):
    monkeypatch.setattr(M.os, "getloadavg", lambda: load)
    monkeypatch.setattr(M.os, "cpu_count", lambda: cores)
    job = run(replace(M.SETTINGS, threads=True, threads_below_load=0.75), int, 3)
    assert isinstance(job, M.Future) == threaded and job.result() == 3


@RUNS
def test_run_beside_keeps_the_callers_context(run):
    import contextvars

    var = contextvars.ContextVar("v", default="unset")
    token = var.set("teach profile")
    try:
        assert run(replace(M.SETTINGS, threads=True, threads_below_load=ALWAYS),
                   var.get).result() == "teach profile"
    finally:
        var.reset(token)


def test_run_beside_and_run_leaf_each_use_one_pool_of_their_own():
    import threading

    s = replace(M.SETTINGS, threads=True, threads_below_load=ALWAYS)
    name = threading.current_thread
    assert M.run_beside(s, lambda: name().name).result().startswith("mauer_")
    assert M.run_leaf(s, lambda: name().name).result().startswith("mauer-leaf_")
    pools = dict(M._POOLS)
    M.run_leaf(s, int).result()  # asked again: the same pools
    assert M._POOLS == pools and set(pools) == {"mauer", "mauer-leaf"}


@pytest.mark.slow
@pytest.mark.parametrize("name", [
    "mauerhuepfer-e1-s1-0001.jpg",  # the reduced search convinces
    "mauerhuepfer-e1-s1-0005.jpg",  # its fit stands in for the strict pass, loose ones run
    "mauerhuepfer-e1-s1-0016.jpg",  # the reduced search finds nothing: every full size pass
])
def test_threads_give_the_same_reading(name):
    img = cv2.imread(str(Path(__file__).resolve().parents[2] / "datasets" / "scenes"
                         / "mauerhuepfer" / name))
    one = M.read_mauer(img, s=replace(M.SETTINGS, threads=False, opencv_threads=0))
    for parallel in (False, True):
        two = M.read_mauer(img, s=replace(M.SETTINGS, threads=True, parallel_passes=parallel,
                                          threads_below_load=ALWAYS, opencv_threads=1))
        assert np.array_equal(one.corners, two.corners)
        assert one.facts == two.facts and one.pieces == two.pieces
        assert one.warnings == two.warnings


@pytest.mark.parametrize("seed", range(3))
def test_one_per_field_is_the_greedy_pass_over_all_kept_blobs(seed):
    rng = np.random.default_rng(seed)
    blobs = np.column_stack([rng.uniform(0, 200, (400, 2)).round(1),
                             rng.uniform(2, 20, 400).round()])
    blobs[1:40:3, :2] = blobs[0:39:3, :2] + [3.0, 4.0]  # exactly 5 px apart: at the limit of
    blobs[0:39:3, 2] = 10.0  # a blob 10 px wide (not within: the former test was "> 0.5 size")
    blobs = blobs[np.argsort(-blobs[:, 2], kind="stable")]
    kept: list[int] = []
    for i, (x, y, _) in enumerate(blobs):
        if all(math.hypot(x - blobs[j, 0], y - blobs[j, 1]) > 0.5 * blobs[j, 2] for j in kept):
            kept.append(i)
    assert M.one_per_field(blobs).tolist() == kept
    assert 0 < len(kept) < len(blobs)


@pytest.mark.parametrize("seed", range(3))
def test_uncontained_keeps_the_runs_not_inside_a_kept_one(seed):
    rng = np.random.default_rng(seed)
    runs = [(rng.choice(30, int(rng.integers(3, 12)), replace=False), np.arange(3))
            for _ in range(60)]
    runs += [(r[0][1:4], r[1]) for r in runs[:10]]  # parts of earlier runs: dropped
    want = []
    for r in runs:  # the former check, on sets of numpy integers
        if not any(set(r[0]) <= set(o[0]) for o in want):
            want.append(r)
    got = M.uncontained(runs)
    assert [id(r) for r in got] == [id(r) for r in want] and len(got) < len(runs)


def test_divide_in_place_is_the_plain_formula():
    rng = np.random.default_rng(5)
    L8 = rng.integers(0, 256, (60, 80), dtype=np.uint8)
    bg = rng.uniform(0, 260, (60, 80)).astype(np.float32)
    bg[:5] = 3.0  # under the floor of 8
    plain = np.clip(L8.astype(np.float32) / np.maximum(bg, 8.0) * 128.0, 0, 255)
    assert np.array_equal(M.BlobMap._divide(L8, bg), plain.astype(np.uint8))


def test_opencv_threads_inside_the_block_then_as_before():
    before = cv2.getNumThreads()
    try:
        cv2.setNumThreads(2)
        with M.opencv_threads(1):
            assert cv2.getNumThreads() == 1
            with M.opencv_threads(1):  # another reading at the same time
                pass
            assert cv2.getNumThreads() == 1  # still inside the first one
        assert cv2.getNumThreads() == 2
        with M.opencv_threads(0):  # 0: left as they are
            assert cv2.getNumThreads() == 2
        with pytest.raises(ValueError), M.opencv_threads(1):
            raise ValueError
        assert cv2.getNumThreads() == 2
    finally:
        cv2.setNumThreads(before)


def _quick_scores_former(Hs, xy, fields, pitch_mm, shape):
    """`_quick_scores` as it was: the projections stacked, each index tested."""
    h, w = shape
    hs, ws = int(h * 0.5) + 1, int(w * 0.5) + 1
    seeds = np.full((hs, ws), 255, np.uint8)
    p = np.round(xy * 0.5).astype(int)
    inside = (p[:, 0] >= 0) & (p[:, 0] < ws) & (p[:, 1] >= 0) & (p[:, 1] < hs)
    seeds[p[inside, 1], p[inside, 0]] = 0
    dist = cv2.distanceTransform(seeds, cv2.DIST_L2, 3) / 0.5
    fields = fields[:: max(1, len(fields) // 24)]
    proj = M._apply_many(Hs, fields)
    pitch_px = M._dist(M._apply_many(Hs, fields + np.array([pitch_mm, 0.0])), proj)
    with np.errstate(invalid="ignore"):
        q = np.round(proj * 0.5).astype(np.int64)
    q = np.where(np.isfinite(proj).all(axis=2)[..., None], q, -1)
    inb = (q[..., 0] >= 0) & (q[..., 0] < ws) & (q[..., 1] >= 0) & (q[..., 1] < hs)
    d = np.full(q.shape[:2], np.inf)
    d[inb] = dist[q[..., 1][inb], q[..., 0][inb]]
    return (d < 0.3 * pitch_px).mean(axis=1)


@pytest.mark.parametrize("seed,at_infinity", [(0, False), (1, False), (2, True)])
def test_quick_scores_equal_the_former_lookup(seed, at_infinity):
    board = M.board_for()
    fields, pitch = M._field_array(board)
    rng = np.random.default_rng(seed)
    truth = np.array([[2.0, 0.1, 100.0], [0.05, 1.9, 80.0], [1e-5, 2e-5, 1.0]])
    Hs = truth[None] + rng.normal(size=(3000, 3, 3)) * [[0.3, 0.3, 300], [0.3, 0.3, 300],
                                                         [3e-4, 3e-4, 0]]  # many off the map
    if at_infinity:
        Hs[5, 2] = 0.0  # every field at infinity
    xy = M.apply_h(truth, fields) + rng.normal(size=(len(fields), 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        got = M._quick_scores(Hs, xy, fields, pitch, (900, 1200))
        want = _quick_scores_former(Hs, xy, fields, pitch, (900, 1200))
    assert np.array_equal(got, want) and 0 < want.max() and want.min() == 0


def test_quick_scores_take_nan_inf_and_huge_projections_as_the_former_lookup():
    """Fields projected to NaN, +-inf (one coordinate or both) or past int64 land on the
    padded map's inf border: off the map, as the former index-by-index test had them."""
    board = M.board_for()
    fields, pitch = M._field_array(board)
    rng = np.random.default_rng(3)
    truth = np.array([[2.0, 0.1, 100.0], [0.05, 1.9, 80.0], [1e-5, 2e-5, 1.0]])
    Hs = truth[None] + rng.normal(size=(2500, 3, 3)) * [[0.1, 0.1, 100], [0.1, 0.1, 100],
                                                        [1e-4, 1e-4, 0]]
    Hs[3] = np.nan  # every field NaN
    Hs[4, 0, 2] = np.inf  # x +inf (or NaN), y finite
    Hs[5, 1, 2] = -np.inf  # y -inf
    Hs[6, 0, 0] = np.nan  # x NaN only
    Hs[7, 0] *= 1e300  # x finite but far past int64
    Hs[8, 1] *= -1e300
    Hs[9, 2] = 0.0  # at infinity
    Hs[2100:2110, 2, 0] = np.nan  # a second chunk of 2000 with a few NaN
    xy = M.apply_h(truth, fields) + rng.normal(size=(len(fields), 2))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        got = M._quick_scores(Hs, xy, fields, pitch, (900, 1200))
        want = _quick_scores_former(Hs, xy, fields, pitch, (900, 1200))
    assert np.array_equal(got, want) and 0 < want.max()
    assert (got[3:10] == 0).all() and (got[2100:2110] == 0).all()


@pytest.mark.slow
@pytest.mark.parametrize("scene", ["0005", "0009"])  # refined quick fits scoring 0.74-0.78
def test_a_quick_fit_above_quick_accept_score_is_the_full_searchs_board(scene):
    """A reduced search's refined fit scoring `quick_accept_score` (0.7) but under
    `good_board_score` is kept without the full size search: on these committed scenes the
    full size search alone finds the same board."""
    img = cv2.imread(str(SCENE.with_name(f"mauerhuepfer-e1-s1-{scene}.jpg")))
    board = M.board_for()
    quick = M.find_board(img, board, M.SETTINGS)
    full = M.find_board(img, board, replace(M.SETTINGS, search_long_side=0))
    assert M.SETTINGS.quick_accept_score <= quick.score < M.SETTINGS.good_board_score
    assert np.abs(quick.corners - full.corners).max() < 1.0


@pytest.mark.parametrize("hit", [True, False])
def test_refine_blobs_made_beside_the_alternatives(hit, monkeypatch):
    """With a helper thread, the refine's full size blobs are made for the reduced search's
    best start while its turned and shifted alternatives are tried, and used when that
    start stays the view (the same board); when an alternative wins they are not used."""
    img, board, _ = _scene_view()
    want = M.find_board(img, board, replace(M.SETTINGS, threads=False))
    given, once = [], M._find_board_once

    def spy_refine(*args):  # (view, board, s, maps, lab, f, blobs)
        given.append(args[6])
        return refine(*args)

    def moved_start(*args):  # (image, board, s, maps, lab, f, ahead): the start handed
        ahead = args[6]  # ahead is not the view

        def moved(H):
            ahead(H @ np.diag([1.0, 1.0, 1.001]))
        return once(*args[:6], None if ahead is None else moved)

    refine = M.refine_view
    monkeypatch.setattr(M, "refine_view", spy_refine)
    if not hit:
        monkeypatch.setattr(M, "_find_board_once", moved_start)
    threaded = replace(M.SETTINGS, threads=True, threads_below_load=ALWAYS,
                       sure_fit=(2.0, 2.0))  # (a sure fit tries no alternatives)
    got = M.find_board(img, board, threaded,
                       M.run_beside(threaded, M.blob_map, img, M.SETTINGS))
    assert len(given) == 1 and (given[0] is not None) == hit
    assert np.array_equal(got.H, want.H) and np.array_equal(got.corners, want.corners)


@pytest.mark.slow
@pytest.mark.parametrize("strict,loose,reduced,full", [
    ("none", "right", ["strict", "loose"], False),  # no strict reduced fit: the loose one's
    ("low", "right", ["strict", "loose"], False),  # a fit under loose_search_below: the same
    ("low", "low", ["strict", "loose"], True),  # the loose fit does not convince either
    ("fair", "right", ["strict"], True),  # 0.6-0.7 (most often right): the full size search
])
def test_a_loose_reduced_pass_before_the_full_size_search(strict, loose, reduced, full,
                                                          monkeypatch):
    """When the strict reduced pass finds no board, or one scoring under
    `loose_search_below`, the reduced search runs once more with the loosest blob shapes;
    its refined fit is kept when it scores `quick_accept_score`, without the full size
    search (up to three more passes, each several times as slow)."""
    img, board, truth = _scene_view()
    once, refine, calls = M._find_board_once, M.refine_view, []
    s = replace(M.SETTINGS, threads=False)
    verdict = {"strict": strict, "loose": loose}

    def spy_once(image, board_, ss, *args):
        kind = "full" if ss.blob_long_side != s.search_long_side else (
            "strict" if ss.blob_min_convexity == s.blob_min_convexity else "loose")
        calls.append(kind)
        if verdict.get(kind) == "none":
            return None
        view = once(image, board_, ss, *args)
        return view if kind == "full" else replace(view, score=kind)

    def spy_refine(view, *args):  # the reduced pass's verdict as its refined score
        got = refine(replace(view, score=0.0), *args)
        return replace(got, score={"right": 0.9, "low": 0.5, "fair": 0.65}[verdict[view.score]])

    monkeypatch.setattr(M, "_find_board_once", spy_once)
    monkeypatch.setattr(M, "refine_view", spy_refine)
    view = M.find_board(img, board, s)
    assert [c for c in calls if c != "full"] == reduced and ("full" in calls) == full
    assert np.abs(view.corners - truth.corners).max() < 4.0


@pytest.mark.slow
@pytest.mark.parametrize("sure,alternatives", [
    ((0.7, 1.0), 0),  # every start colour right and most fields on a blob: none tried
    ((2.0, 2.0), 17),  # never sure: the turned one and the 8 shifts of each (17 in all)
])
def test_a_sure_fit_tries_no_alternatives(sure, alternatives, monkeypatch):
    """The reduced search's best start that fits the fields and all four start colours is
    the view without trying it turned and shifted (those never won after such a fit); the
    view lands on the board either way (that the view is the very same:
    `test_refine_blobs_made_beside_the_alternatives`)."""
    img, board, truth = _scene_view()
    s = replace(M.SETTINGS, threads=False, sure_fit=sure)
    icp, alt = M._icp, []

    def spy_icp(*args, **kw):
        alt.append(args[5] == s.alt_iters)
        return icp(*args, **kw)

    monkeypatch.setattr(M, "_icp", spy_icp)
    view = M.find_board(img, board, s)
    assert sum(alt) == alternatives
    assert np.abs(view.corners - truth.corners).max() < 4.0


@pytest.mark.parametrize("iters", [1, 2, 4, 8])  # alt_iters 4, icp_iters 8, and the edges
def test_icp_tolerances_are_the_per_step_interp(iters):
    tol = M.SETTINGS.icp_tol
    want = [np.interp(it, [0, max(iters - 1, 1)], list(tol)) for it in range(iters)]
    got = M._icp_tolerances(iters, tol)
    assert [float(v) for v in got] == [float(v) for v in want]
    with pytest.raises(ValueError):  # shared between calls: nobody may change it
        got[0] = 0.0


def _icp_rms_every_step(det, fields, H, pitch_mm, s, iters, affine=None):
    """`_icp` as it was before session 13 (69c2f6b^): the rms measured at every step, the
    last step's returned."""
    n, rms = 0, 1.0
    affine = iters if affine is None else affine
    ahead_mm = fields + np.array([pitch_mm, 0.0])
    idx = np.arange(len(fields))
    last = matches = None
    for it in range(iters):
        if matches is None:
            proj, ahead = M.apply_h(H, fields), M.apply_h(H, ahead_mm)
            pitch_px = M._dist(ahead, proj)
            d = M._dist(proj[:, None], det[None])
            j = np.argmin(d, axis=1)
            matches = (pitch_px, j, d[idx, j], np.argmin(d, axis=0)[j] == idx)
        pitch_px, j, dj, mutual = matches
        ok = (dj < np.interp(it, [0, max(iters - 1, 1)], list(s.icp_tol)) * pitch_px) & mutual
        n = int(ok.sum())
        if n < 6:
            return None, n, 1.0
        rms = float(np.sqrt(np.mean((dj[ok] / pitch_px[ok]) ** 2)))
        key = (it < affine, ok.tobytes(), j[ok].tobytes())
        if key == last:
            continue
        last = key
        src, dst = fields[ok].astype(np.float32), det[j[ok]].astype(np.float32)
        if it < affine:
            A, _ = cv2.estimateAffine2D(src, dst, ransacReprojThreshold=float(
                0.3 * np.median(pitch_px)))
            if A is None:
                return None, n, 1.0
            H = np.vstack([A, [0, 0, 1]])
        else:
            H, _ = cv2.findHomography(src, dst, cv2.RANSAC, float(0.25 * np.median(pitch_px)))
            if H is None:
                return None, n, 1.0
        matches = None
    return H, n, rms


@pytest.mark.parametrize("iters,affine,noise", [
    (4, 0, 1.5),  # homographies only (alt_iters), a few px of noise
    (8, 4, 1.5),  # affine steps then homographies (icp_iters)
    (1, None, 0.5),  # a single step: its rms is the only one
    (4, None, 4.0),  # noisy: matches change between steps
])
def test_icp_returns_the_last_steps_rms(iters, affine, noise):
    """`_icp` measures the residual only at its last step: the same H, matches and rms as the
    old loop that measured it at every step and kept the last."""
    rng = np.random.default_rng(11)
    fields, pitch = M._field_array(M.board_for())
    H = np.array([[2.0, 0.1, 30.0], [-0.05, 1.9, 40.0], [1e-5, 2e-5, 1.0]])
    det = M.apply_h(H, fields) + rng.normal(0, noise, (len(fields), 2))
    H0 = H + np.array([[0.02, 0, 3.0], [0, -0.02, -2.0], [0, 0, 0]])  # a start off the truth
    H1, n, rms = M._icp(det, fields, H0, pitch, M.SETTINGS, iters, affine=affine)
    H2, n2, rms2 = _icp_rms_every_step(det, fields, H0, pitch, M.SETTINGS, iters, affine=affine)
    assert H1 is not None and n == n2 > 40
    assert np.array_equal(H1, H2) and rms == rms2
    assert 0.0 < rms < 0.2


class _FakeLibc:
    """ctypes.CDLL("libc.so.6") stand-in that records its mallopt calls."""

    def __init__(self, calls):
        self.calls = calls

        def mallopt(param, value):
            calls.append((param, value))
            return 1

        self.mallopt = mallopt


def test_keep_heap_calls_mallopt_once_per_value_and_clips(monkeypatch):
    calls: list = []
    monkeypatch.setattr(M.sys, "platform", "linux")
    monkeypatch.setattr(M.ctypes, "CDLL", lambda name: _FakeLibc(calls))
    M._keep_heap.cache_clear()
    try:
        assert M.keep_heap(8) is True
        assert calls == [(-3, 8 << 20), (-1, 16 << 20)]
        assert M.keep_heap(8) is True and len(calls) == 2  # (the second call: cached)
        calls.clear()
        # over glibc's limit (and 2 x 1024 MB would wrap a C int): clipped to 32 MB
        for mb in (33, 1024, 4096):
            assert M.keep_heap(mb) is True
        assert calls == [(-3, 32 << 20), (-1, 64 << 20)]
        assert M.keep_heap(0) is False and M.keep_heap(-5) is False
        assert len(calls) == 2
    finally:
        M._keep_heap.cache_clear()  # (the next real call sets the real value again)


def test_keep_heap_is_off_at_0_and_made_once():
    assert M.keep_heap(0) is False
    first = M.keep_heap(M.SETTINGS.heap_keep_mb)
    assert M.keep_heap(M.SETTINGS.heap_keep_mb) is first  # (cached: the call is cheap)
    if sys.platform.startswith("linux") and "glibc" in " ".join(platform.libc_ver()):
        assert first is True
