"""Session 25 (troeto-speed): the reader's cheaper steps give the very numbers of the ones
they replace (no reading changes: each is compared bit for bit with the old code, kept
here as written before)."""

import cv2
import numpy as np
import pytest

from vision.cards.geometry import SPECS, frame_from_pose, frames_at_widths
from vision.cards.read import READ, _median, neighbour_angles, regions_4


def _old_neighbour_angles(xy, angles, widths, side, reach):
    """`neighbour_angles` as written before session 25 (one numpy pass per card)."""
    out = angles.copy()
    for i in range(len(xy)):
        nb = (np.hypot(*(xy - xy[i]).T) < reach * widths[i]) & (side == side[i])
        z = np.exp(1j * np.deg2rad(angles[nb]))
        med = np.degrees(np.angle(np.median(z.real) + 1j * np.median(z.imag)))
        out[i] += (med - angles[i] + 180.0) % 360.0 - 180.0
    return out


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.atleast_1d(a), np.atleast_1d(b)
    return a.shape == b.shape and a.dtype == b.dtype and \
        np.array_equal(a.view(np.uint8), b.view(np.uint8))


def _angles(rng, kind: str, n: int) -> np.ndarray:
    if kind == "any":
        return rng.uniform(-180, 180, n)
    if kind == "table":
        return rng.choice([0.0, -0.0, 90.0, -90.0, 180.0, 270.0], n)
    if kind == "row":
        return np.round(rng.normal(0, 5, n), 1)
    return rng.uniform(-400, 400, n)


@pytest.mark.parametrize("kind", [
    "any",  # angles anywhere on the circle, each card its own way
    "table",  # a table's four directions, exact zeros and signed zeros among them
    "row",  # a row's few degrees about one direction (the common photo)
    "wrapped",  # angles past +-360 (the caller's wrap is kept)
])
@pytest.mark.parametrize("seed", range(6))
def test_neighbour_angles_as_before(kind, seed):
    rng = np.random.default_rng(seed)
    for _ in range(40):
        n = int(rng.integers(0, 30))
        xy = rng.uniform(0, 1280, (n, 2))
        angles = _angles(rng, kind, n)
        widths = rng.uniform(20, 200, n)
        side = rng.integers(0, 4, n).astype(float)
        assert _same_bits(neighbour_angles(xy, angles, widths, side, 3.0),
                          _old_neighbour_angles(xy, angles, widths, side, 3.0))


@pytest.mark.parametrize("values", [
    [0.3],  # one value: itself
    [0.5, -0.25, 0.125],  # odd count: the middle one
    [0.1, 0.2],  # even count: the mean of the two, (a + b) / 2 rounded as numpy's
    [1e308, 1e308, 1e308, -1.0],  # a sum past the largest float: inf, as numpy's mean
    [0.0, -0.0, 1.0],  # zeros: np.median's own choice of their order
    [-0.0, 0.0],
])
def test_median_as_numpy(values):
    with np.errstate(over="ignore"):
        want = np.median(np.array(values))
    assert _same_bits(np.float64(_median(list(values))), np.float64(want))


def _blobs(rng, shape) -> np.ndarray:
    """A uint8 0/1 mask of a few ellipses, boxes and speckled patches (a look's closed
    mask: some regions, touching ones, holes)."""
    h, w = shape
    m = np.zeros(shape, np.uint8)
    for _ in range(int(rng.integers(1, 10))):
        cx, cy = int(rng.integers(0, w)), int(rng.integers(0, h))
        kind = int(rng.integers(3))
        if kind == 0:
            cv2.ellipse(m, (cx, cy), (int(rng.integers(1, 30)), int(rng.integers(1, 30))),
                        float(rng.uniform(0, 180)), 0, 360, 1, -1)
        elif kind == 1:
            m[cy:cy + int(rng.integers(1, 20)), cx:cx + int(rng.integers(1, 20))] = 1
        else:
            sub = (rng.random((int(rng.integers(1, 30)), int(rng.integers(1, 30))))
                   < rng.uniform(0.2, 0.8)).astype(np.uint8)
            m[cy:cy + sub.shape[0], cx:cx + sub.shape[1]] = sub[:h - cy, :w - cx]
    return m


@pytest.mark.parametrize("seed", range(12))
def test_regions_4_as_whole_mask(seed):
    """The labels, their order and every stat (the background's row too) as the whole
    mask's labelling gives them; an odd top row of the box is where a plain crop of it
    reorders them (the test would fail without the alignment)."""
    rng = np.random.default_rng(seed)
    for _ in range(300):
        m = _blobs(rng, tuple(int(v) for v in rng.integers(20, 200, 2)))
        n, lab, stats, _ = cv2.connectedComponentsWithStats(m, 4)
        n2, lab2, stats2 = regions_4(m)
        assert n2 == n
        assert _same_bits(lab2, lab)
        assert _same_bits(stats2, stats)


@pytest.mark.parametrize("mask", [
    np.zeros((6, 8), np.uint8),  # nothing set: the whole mask's answer
    np.ones((6, 8), np.uint8),  # all set: the box is the mask
    np.pad(np.ones((3, 3), np.uint8), ((1, 2), (3, 2))),  # one block at an odd row
    np.eye(7, dtype=np.uint8),  # a diagonal: 7 regions 4-connected, one per row
])
def test_regions_4_small(mask):
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask, 4)
    n2, lab2, stats2 = regions_4(mask)
    assert (n2, lab2.tolist(), stats2.tolist()) == (n, lab.tolist(), stats.tolist())


@pytest.mark.parametrize("cast", [
    np.float64,  # the width search's: numpy floats, the once-worked-out cosine
    float,  # Python floats: likewise
    np.float32,  # another type: `frame_from_pose` itself, one width at a time
])
@pytest.mark.parametrize("game", ["troetofanten", "magic-rabbit"])
def test_frames_at_widths_as_frame_from_pose(cast, game):
    rng = np.random.default_rng(5)
    spec = SPECS[game]
    scales = np.asarray(READ.width_scales, float)
    for _ in range(300):
        key = rng.uniform(-50, 1300, 2)
        angle, width = cast(rng.uniform(-400, 400)), cast(rng.uniform(5, 300))
        widths = [cast(w) for w in width * scales]
        got = frames_at_widths(key, angle, widths, spec)
        want = [frame_from_pose(key, angle, w, spec) for w in widths]
        assert len(got) == len(want)
        assert all(_same_bits(g, w) for g, w in zip(got, want, strict=True))


def _as_read(pieces) -> list:
    return [(p.label, p.confidence, p.key.tolist(), None if p.frame is None else
             p.frame.tolist(), p.angle, p.width, p.probs) for p in pieces]


@pytest.fixture(scope="module")
def far_photo():
    """A committed photo read with a far look and a dim light's second reading inside
    (cards of about 35 px), and its reading without a gate."""
    from pathlib import Path

    from vision.cards.read import CardReader

    path = Path(__file__).resolve().parents[3] / "datasets/scenes/troetofanten/" \
        "troetofanten-e1-s1-0004.jpg"
    image = cv2.imread(str(path))
    reader = CardReader(threads=1)
    return reader, image, reader.read_pieces(image, "troetofanten")


@pytest.mark.parametrize("needed", [
    True,  # the caller reads the warnings: all of them, as without a gate
    False,  # it does not: the same pieces, the warnings-only steps left out
])
def test_warnings_when(far_photo, needed):
    from vision.cards.read import warnings_when

    reader, image, (pieces, warnings) = far_photo
    asked = []

    def gate(read):
        asked.append(len(read))
        return needed

    with warnings_when(gate):
        got, got_warnings = reader.read_pieces(image, "troetofanten")
    assert _as_read(got) == _as_read(pieces)
    assert asked == [len(pieces)]  # (asked once: the reads inside it, the far look's, not)
    if needed:
        assert got_warnings == warnings
    else:
        assert set(got_warnings) <= set(warnings) and len(got_warnings) < len(warnings)


@pytest.mark.parametrize("shrink", [
    1.0,  # `on_a_card`'s: the frame as it is (its shrink by 1 still rounds)
    0.85,  # a shrunk frame (`back_on_back`'s kind)
    1.3,  # a grown one
    np.float64(0.9),  # a setting read as a numpy float
])
@pytest.mark.parametrize("dtype", [
    np.float64,  # the readers' frames: the Python-float path
    np.float32,  # any other: numpy's path, as before
])
def test_shrunk_frame_as_before(shrink, dtype):
    """`inside_frame`'s polygon bit for bit as numpy made it, for random frames of every
    size and cards' frames."""
    from vision.cards.read import shrunk_frame

    rng = np.random.default_rng(11)
    for k in range(2000):
        frame = rng.uniform(-100, 1400, (4, 2)) * 10 ** rng.uniform(-3, 3)
        if k % 2:  # a card's frame: a rotated rectangle
            frame = frame_from_pose(rng.uniform(0, 1280, 2), float(rng.uniform(-180, 180)),
                                    float(rng.uniform(10, 200)), SPECS["troetofanten"])
        frame = frame.astype(dtype)
        c = frame.mean(axis=0)
        assert _same_bits(shrunk_frame(frame, shrink),
                          (c + (frame - c) * shrink).astype(np.float32))


def test_keeping_paper():
    """Within `keeping_paper` one image's paper colour at the same frames is worked out once
    (the very arrays again, read-only, the same numbers); another image, other frames or
    outside it: worked out afresh."""
    from vision.cards.light import PAPER_LIGHT, keeping_paper, paper_colour

    rng = np.random.default_rng(3)
    image = rng.integers(0, 256, (120, 160, 3), dtype=np.uint8)
    frames = [frame_from_pose(rng.uniform(40, 120, 2), float(a), 30.0, SPECS["troetofanten"])
              for a in (0.0, 10.0, 95.0)]
    plain = paper_colour(image, frames, PAPER_LIGHT)
    with keeping_paper():
        first = paper_colour(image, frames, PAPER_LIGHT)
        again = paper_colour(image, [f.copy() for f in frames], PAPER_LIGHT)
        other = paper_colour(image.copy(), frames, PAPER_LIGHT)
        fewer = paper_colour(image, frames[:2], PAPER_LIGHT)
    assert all(a is b for a, b in zip(first, again, strict=True))
    assert not any(a is b for a, b in zip(first, other, strict=True))
    assert fewer[1].shape == (2, 3)
    assert all(_same_bits(a, b) for a, b in zip(first, plain, strict=True))
    assert not first[0].flags.writeable
    assert paper_colour(image, frames, PAPER_LIGHT)[0] is not first[0]


def _old_edge_angles(gray, xy, angles, widths, s):
    """`edge_angles` as written before session 25 (the points' x and y on one last axis)."""
    turns = np.asarray(s.edge_turns, float)
    spec = SPECS["troetofanten"]
    ku, kv = spec.key_uv
    offs = np.linspace(-s.edge_reach, s.edge_reach, 9)
    t = np.deg2rad(np.asarray(angles, float)[:, None] + turns[None])
    ex = np.stack([np.cos(t), np.sin(t)], axis=-1)
    ey = np.stack([-np.sin(t), np.cos(t)], axis=-1)
    w = np.asarray(widths, float)[:, None, None]
    h = w * spec.aspect
    tl = np.asarray(xy, float)[:, None] - ku * w * ex - kv * h * ey
    score = np.zeros(t.shape)
    along_t = np.linspace(0.0, 1.0, 16)
    for along, normal, lo, hi in ((ex, ey, 0.03 * w, 0.3 * w), (ey, ex, 0.03 * h, 0.8 * h)):
        run = lo + (hi - lo) * along_t
        pts = (tl[:, :, None, None] + run[:, :, None, :, None] * along[:, :, None, None]
               + offs[None, None, :, None, None] * w[..., None, None]
               * normal[:, :, None, None])
        step = normal[:, :, None, None]
        sides = [(pts + sign * step).reshape(pts.shape[0] * pts.shape[1], -1, 2)
                 .astype(np.float32) for sign in (1.0, -1.0)]
        hi_, lo_ = (cv2.remap(gray, q[..., 0], q[..., 1], cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
                    .reshape(pts.shape[:-1]) for q in sides)
        score += np.abs(hi_ - lo_).mean(axis=3).max(axis=2)
    return np.asarray(angles, float) + turns[np.argmax(score, axis=1)]


@pytest.mark.parametrize("seed", range(4))
def test_edge_angles_as_before(seed):
    """Cards anywhere on a photo with edges (some off its border), of any size and angle:
    the same turned angles bit for bit."""
    from vision.cards.read import edge_angles

    rng = np.random.default_rng(seed)
    gray = cv2.GaussianBlur(rng.integers(0, 256, (240, 320), dtype=np.uint8), (0, 0), 1.5)
    for _ in range(8):  # (cards' edges: bright boxes on the noise)
        x, y = (int(v) for v in rng.integers(0, 280, 2))
        cv2.rectangle(gray, (x, y), (x + 40, y + 60), 250, -1)
    for _ in range(25):
        n = int(rng.integers(1, 25))
        xy, angles = rng.uniform(-30, 350, (n, 2)), rng.uniform(-400, 400, n)
        widths = rng.uniform(8, 90, n)
        assert _same_bits(edge_angles(gray, xy, angles, widths, READ),
                          _old_edge_angles(gray, xy, angles, widths, READ))
