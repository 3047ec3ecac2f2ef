"""Session 29 (troeto-speed): the card stage's cheaper steps give the very numbers of the
ones they replace (no reading changes: each is compared bit for bit with the old code,
kept here as written before)."""

import cv2
import numpy as np
import pytest

from scoring.labels import TROETO_LABELS
from tests.vision.cards.helpers import card
from vision.cards.detect import KeyDetector, Keypoints, decode
from vision.cards.geometry import (
    CARD_CROP,
    SPECS,
    CardCropSettings,
    crop_cards,
    frame_from_pose,
    keeping_scaled,
)
from vision.cards.read import (
    READ,
    TROETO_NUMBERED,
    drop_turned_twins,
    frame_box_mask,
    hsv_bins,
    near_width,
    nearest,
    opposite_corners,
    table_share,
    twin_labels,
)

ROOT = "datasets/scenes/troetofanten"


def _old_hsv_bins(hsv, bins):
    """`hsv_bins` as written before session 29 (one 3-channel uint8 table, then the planes
    weighted and summed by numpy)."""
    hb, sb, vb = (int(b) for b in bins)
    ramp = np.arange(256)
    lut = np.stack([np.minimum(ramp * hb // 180, hb - 1), ramp * sb // 256, ramp * vb // 256],
                   axis=-1).astype(np.uint8).reshape(1, 256, 3)
    b = cv2.LUT(hsv, lut)
    return b[..., 0].astype(np.uint16) * (sb * vb) + b[..., 1].astype(np.uint16) * vb \
        + b[..., 2]


def _old_frame_box_mask(frame, f, shape):
    """`frame_box_mask` as written before session 29 (`_frame_points` in numpy)."""
    q = (np.asarray(frame, float) + 0.5) * f - 0.5
    c = q.mean(axis=0)
    pts = np.round(c + (q - c) * 1.0).astype(np.int32)
    x0, y0 = (max(int(v), 0) for v in pts.min(axis=0))
    x1 = min(int(pts[:, 0].max()), shape[1] - 1) + 1
    y1 = min(int(pts[:, 1].max()), shape[0] - 1) + 1
    mask = np.zeros((max(y1 - y0, 0), max(x1 - x0, 0)), np.uint8)
    if mask.size:
        cv2.fillConvexPoly(mask, pts - np.array([x0, y0], np.int32), 1)
    return mask, (x0, y0)


def _old_table_share(px, h_table, n_table, h_card, n_card, s):
    """`on_bare_table`'s share as written before session 29 (pixel by pixel)."""
    t = (h_table[px] + s.table_floor) / n_table
    c = (h_card[px] + s.table_floor) / max(n_card, 1.0)
    return float(np.mean(t / (t + c) >= s.table_pixel))


@pytest.mark.parametrize("bins", [
    [18, 8, 8],  # the table's bins (`TABLE_BINS`)
    [12, 8, 8],  # the paper's (`PAPER_BINS`)
    [1, 1, 1],  # one bin: every code 0
    [256, 16, 16],  # the most that fit 16 bits: codes up to 65535, no saturation
    [7, 3, 5],  # bins that do not divide the ranges
])
@pytest.mark.parametrize("seed", range(3))
def test_hsv_bins_as_before(bins, seed):
    rng = np.random.default_rng(seed)
    hsv = rng.integers(0, 256, (97, 131, 3), dtype=np.uint8)  # (hue 180-255 too)
    new, old = hsv_bins(hsv, bins), _old_hsv_bins(hsv, bins)
    assert new.dtype == old.dtype == np.uint16 and np.array_equal(new, old)


def test_hsv_bins_of_a_photo_as_before():
    img = cv2.imread(f"{ROOT}/troetofanten-e1-s1-0000.jpg")
    hsv = cv2.cvtColor(cv2.resize(img, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA),
                       cv2.COLOR_BGR2HSV)
    assert np.array_equal(hsv_bins(hsv, [18, 8, 8]), _old_hsv_bins(hsv, [18, 8, 8]))


def _frames(rng, kind, n):
    c = rng.uniform(-150, 1450, (n, 1, 2))
    w = rng.uniform(3, 300, (n, 1, 1))
    a = rng.uniform(0, 2 * np.pi, (n, 1))
    u = np.stack([np.cos(a), np.sin(a)], -1) * w
    v = np.stack([-np.sin(a), np.cos(a)], -1) * w * rng.uniform(1.0, 1.6, (n, 1, 1))
    fr = np.concatenate([c, c + u, c + u + v, c + v], axis=1)
    if kind == "halves":  # corners on half pixels: ties in the rounding at scale 1
        fr = np.round(fr * 2) / 2
    elif kind == "quarters":  # ties at scale 0.5 (x + 0.5) * 0.5 - 0.5 = k + 0.5
        fr = np.round(fr * 4) / 4 + 0.25
    return fr


@pytest.mark.parametrize("kind", [
    "any",  # corners anywhere, on and off the photo
    "halves",  # corners on half pixels
    "quarters",  # corners whose scaled figures end in .5
])
@pytest.mark.parametrize("f,shape", [
    (0.5, (480, 640)),  # the look's scale on a 1280 x 960 photo
    (1.0, (960, 1280)),  # the photo itself
    (0.3, (288, 384)),  # a scale that is no power of two
])
def test_frame_box_mask_as_before(kind, f, shape):
    rng = np.random.default_rng([len(kind), int(f * 10)])
    for fr in _frames(rng, kind, 3000):
        (m1, o1), (m2, o2) = frame_box_mask(fr, f, shape), _old_frame_box_mask(fr, f, shape)
        assert o1 == o2 and m1.shape == m2.shape and np.array_equal(m1, m2)


@pytest.mark.parametrize("case", [
    "random",  # bins of any counts
    "ties",  # table and cards' densities equal where counts match: t / (t + c) = 0.5 and
    #          exact 0.8 ties (4 : 1) at the bar
    "empty_card",  # no card pixel at all: every bin's cards' density the floor's
])
@pytest.mark.parametrize("seed", range(4))
def test_table_share_as_before(case, seed):
    rng = np.random.default_rng(seed)
    n = 1152
    for _ in range(50):
        h_table = rng.integers(0, 50, n).astype(np.float64)
        h_card = rng.integers(0, 50, n).astype(np.float64)
        if case == "ties":
            h_table = rng.choice([0.0, 3.0, 4.0, 9.0], n)
            h_card = np.where(rng.random(n) < 0.5, (h_table + 1) / 4 - 1, h_table)
            h_card = np.maximum(h_card, 0.0)
        if case == "empty_card":
            h_card[:] = 0.0
        n_table, n_card = float(h_table.sum()), float(h_card.sum())
        if case == "ties":
            n_card = n_table
        px = rng.integers(0, n, int(rng.integers(1, 3000))).astype(np.uint16)
        new = table_share(px, h_table, max(n_table, 1.0), h_card, n_card, READ)
        old = _old_table_share(px, h_table, max(n_table, 1.0), h_card, n_card, READ)
        assert new == old


def _crops_alone(image, frames, spec, cs):
    """Each crop made on its own (one `crop_cards` call per frame, no memo)."""
    return np.stack([crop_cards(image, [f], spec, cs)[0] for f in frames])


@pytest.mark.parametrize("game,size", [
    ("troetofanten", 32),  # the card classifier's crops
    ("troetofanten", 48),  # another crop size: its own memo entries
    ("magic-rabbit", 32),  # another game's box on the same frames
])
def test_crop_memo_gives_the_same_crops(game, size):
    spec, cs = SPECS[game], CardCropSettings(size=size)
    img = cv2.imread(f"{ROOT}/troetofanten-e1-s1-0003.jpg")
    other = img[::-1].copy()  # (another image of the same shape)
    rng = np.random.default_rng(size)
    frames = [frame_from_pose(rng.uniform(100, 1100, 2), rng.uniform(0, 360),
                              rng.uniform(30, 120), spec) for _ in range(12)]
    with keeping_scaled():
        first = crop_cards(img, frames[:8], spec, cs)  # (all new)
        again = crop_cards(img, frames[4:] + frames[:2] + [frames[5]], spec, cs)  # (mixed,
        #   a frame twice in one call)
        whole = crop_cards(img, frames, spec, cs)  # (all kept)
        elsewhere = crop_cards(other, frames, spec, cs)  # (the same boxes, another image)
    assert np.array_equal(first, _crops_alone(img, frames[:8], spec, cs))
    assert np.array_equal(again, _crops_alone(img, frames[4:] + frames[:2] + [frames[5]],
                                               spec, cs))
    assert np.array_equal(whole, _crops_alone(img, frames, spec, cs))
    assert np.array_equal(elsewhere, _crops_alone(other, frames, spec, cs))
    assert not np.array_equal(elsewhere, whole)


def test_crop_memo_keeps_nothing_after_the_reading():
    spec = SPECS["troetofanten"]
    img = cv2.imread(f"{ROOT}/troetofanten-e1-s1-0003.jpg")
    fr = [frame_from_pose(np.array([600.0, 500.0]), 10.0, 80.0, spec)]
    with keeping_scaled():
        a = crop_cards(img, fr, spec)
        a[:] = 0  # (the caller's own copy: writing into it leaves the memo as it was)
        b = crop_cards(img, fr, spec)
    img[:] = 255 - img  # (written into after the reading: cropped afresh)
    c = crop_cards(img, fr, spec)
    assert b.any() and np.array_equal(c, _crops_alone(img, fr, spec, CARD_CROP))


def _old_decode(maps, s, image_shape=None):
    """`detect.decode` as written before session 29 (a new array per sigmoid step, a copy
    of each heat map, `np.nonzero` of the 2-D peaks)."""
    heat = 1.0 / (1.0 + np.exp(-maps[:2]))
    xs, ys, kinds, scores, angs, widths = [], [], [], [], [], []
    for k in range(2):
        hk = heat[k].astype(np.float32)
        peak = (hk == cv2.dilate(hk, np.ones((3, 3), np.uint8))) & (hk >= s.threshold)
        iy, ix = np.nonzero(peak)
        cx = ix + maps[2, iy, ix]
        cy = iy + maps[3, iy, ix]
        f = 1.0 / s.scale
        xs.append(((cx * s.stride + (s.stride - 1) / 2) + 0.5) * f - 0.5)
        ys.append(((cy * s.stride + (s.stride - 1) / 2) + 0.5) * f - 0.5)
        kinds.append(np.full(len(ix), k))
        scores.append(hk[iy, ix])
        angs.append(np.degrees(np.arctan2(maps[5, iy, ix], maps[4, iy, ix])))
        widths.append(s.size_ref * np.exp(np.clip(maps[6, iy, ix], -3, 3)))
    xy = np.stack([np.concatenate(xs), np.concatenate(ys)], 1).astype(np.float64)
    kp = Keypoints(xy, np.concatenate(kinds).astype(int), np.concatenate(scores),
                   np.concatenate(angs).astype(np.float64),
                   np.concatenate(widths).astype(np.float64))
    if image_shape is not None:
        h, w = image_shape[:2]
        inside = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
        kp = kp.select(inside)
    return kp


def _same_bits(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and \
        np.array_equal(a.view(np.uint8), b.view(np.uint8))


@pytest.mark.parametrize("dtype,shape,spread", [
    (np.float32, (7, 240, 320), 3.0),  # the photo's maps as onnxruntime gives them
    (np.float32, (7, 60, 80), 8.0),  # a small photo's, logits far out (heat 0 and 1 ties)
    (np.float64, (7, 61, 83), 3.0),  # float64 maps, odd sizes
])
@pytest.mark.parametrize("threshold", [0.05, 0.3, 0.9])
def test_decode_as_before(dtype, shape, spread, threshold):
    from dataclasses import replace

    s = replace(KeyDetector().settings, threshold=threshold)
    rng = np.random.default_rng(shape[1])
    maps = rng.normal(0, spread, shape).astype(dtype)
    maps[:2, 5:9, 5:9] = 30.0  # (a plateau: equal heats, each a peak)
    before = maps.copy()
    for shape_arg in (None, (shape[1] * 4 - 7, shape[2] * 4 - 9)):
        new, old = decode(maps, s, shape_arg), _old_decode(maps, s, shape_arg)
        assert len(old) > 0
        for f in ("xy", "kind", "score", "angle", "width"):
            assert _same_bits(getattr(new, f), getattr(old, f)), f
    assert np.array_equal(maps, before)  # (the network's maps are not written into)


def _old_near_width(centres, widths, point, n=3):
    """`near_width` as written before session 29 (`np.median`)."""
    return float(np.median(widths[nearest(centres, point, n)]))


@pytest.mark.parametrize("case", [
    "any",  # widths of any size, 1 to 12 cards, n 1 to 4
    "signed_zero",  # zeros of both signs among them (np.median's own order)
    "float32",  # float32 widths: np.median's float32 mean of the middle two
    "ties",  # equal widths and distances
    "inf",  # an infinite width among them
])
@pytest.mark.parametrize("seed", range(4))
def test_near_width_as_before(case, seed):
    rng = np.random.default_rng([seed, len(case)])
    for _ in range(300):
        m = int(rng.integers(1, 13))
        centres = rng.uniform(0, 1280, (m, 2))
        widths = rng.uniform(10, 200, m)
        if case == "signed_zero":
            widths[rng.random(m) < 0.4] = rng.choice([0.0, -0.0])
        elif case == "float32":
            widths = widths.astype(np.float32)
        elif case == "ties":
            centres = np.round(centres / 400) * 400
            widths = np.round(widths / 50) * 50
        elif case == "inf":
            widths[int(rng.integers(m))] = np.inf
        point, n = rng.uniform(0, 1280, 2), int(rng.integers(1, 5))
        new, old = near_width(centres, widths, point, n), _old_near_width(centres, widths,
                                                                           point, n)
        assert type(new) is float and _same_bits(np.float64([new]), np.float64([old]))


def _old_drop_turned_twins(pieces, reach, turn_tol=30.0, quarter_min=45.0, same_place=0.0):
    """`drop_turned_twins` as written before session 29 (`twin_labels` asked of every
    pair)."""
    drop, warnings = set(), []
    for i, p in enumerate(pieces):
        for j in range(i + 1, len(pieces)):
            q = pieces[j]
            if not twin_labels(p.label, q.label) or i in drop or j in drop:
                continue
            turn = abs((p.angle - q.angle) % 360.0 - 180.0)
            sure, other = (p, q) if p.confidence >= q.confidence else (q, p)
            gap = np.hypot(*(p.center - q.center)) / max(p.width, q.width, 1.0)
            if (turn <= turn_tol and gap < reach) or (p.label == q.label and gap < same_place) \
                    or ((turn <= turn_tol or 180.0 - turn >= quarter_min)
                        and opposite_corners(sure, other)):
                drop.add(j if q.confidence <= p.confidence else i)
                if p.label != q.label:
                    kind, _, n = sure.label.rpartition("-")
                    x, y = sure.center
                    warnings.append(f"the {kind} at ({x:.0f}, {y:.0f}): its two corners read "
                                    f"{n} and {other.label.rpartition('-')[2]}; counted once "
                                    f"as {n}, check the number")
    return [p for k, p in enumerate(pieces) if k not in drop], warnings


@pytest.mark.parametrize("labels", [
    "all",  # every Troetofanten label and backs
    "animals",  # numbered animals only: many twins of one kind, other numbers
    "one",  # a single label: every pair a twin pair
])
@pytest.mark.parametrize("seed", range(5))
def test_drop_turned_twins_as_before(labels, seed):
    rng = np.random.default_rng([seed, len(labels)])
    pool = {"all": list(TROETO_LABELS) + ["back"] * 5,
            "animals": [lab for lab in TROETO_LABELS if lab.rsplit("-", 1)[0] in TROETO_NUMBERED],
            "one": ["elephant-3"]}[labels]
    for _ in range(60):
        n = int(rng.integers(0, 30))
        pieces = [card(str(rng.choice(pool)), rng.uniform(0, 400, 2),
                       float(rng.choice([0.9, 0.8, rng.uniform(0.3, 1.0)])),
                       width=float(rng.uniform(30, 60)),
                       angle=float(rng.choice([0.0, 180.0, 90.0, rng.uniform(-180, 180)])))
                  for _ in range(n)]
        for same in (0.0, 0.3):
            new = drop_turned_twins(pieces, 0.6, same_place=same)
            old = _old_drop_turned_twins(pieces, 0.6, same_place=same)
            assert new[1] == old[1] and len(new[0]) == len(old[0]) and all(
                a is b for a, b in zip(new[0], old[0], strict=True))
