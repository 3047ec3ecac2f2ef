"""The Mauerhuepfer reader's shortcuts give the same numbers as the plain computations."""

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


@pytest.mark.parametrize("seed", range(10))
def test_masked_median_equals_numpy(seed):
    rng = np.random.default_rng(seed)
    img = rng.integers(0, 256, (30, 40), dtype=np.uint8)
    if seed % 2:
        img = (img // 64 * 64).astype(np.uint8)  # ties and even counts
    mask = (rng.uniform(size=img.shape) < 0.3).astype(np.uint8)
    assert M._masked_median_u8(img, mask) == np.uint8(np.median(img[mask > 0]))


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
