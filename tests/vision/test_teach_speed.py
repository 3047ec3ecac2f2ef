"""Teach mode's cheaper arithmetic (session 13, issue 8: the time a profile adds per photo):
the rewritten parts of `piece_colour` and `white_point` (`_border_ab`, `_top_mean`, the Lab
tables), `balanced`, `photo_white_gain`'s white points, `_median` and `closed_opened` give
the same numbers, bit for bit, as the plain numpy/OpenCV they replaced (kept below as
references); the values a profile works out once (`Profile._memo`) are those a fresh
profile works out, whatever the labels or groups it was called with before. (The decision
rule itself is tested by its behaviour in test_teach.py.)"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.teach import (
    _CHROMA,
    _LAB_TABLE,
    CARD_TEACH_SETTINGS,
    GAME_TEACH_SETTINGS,
    TEACH_SETTINGS,
    Profile,
    _border_ab,
    _top_mean,
    _whites,
    balanced,
    photo_white_gain,
    shield_calibrated,
    teach_probs,
    white_point,
)

# (name, settings): every tuned set, and the defaults
SETTINGS = [("default", TEACH_SETTINGS)] + [
    (f"pieces-{g}", s) for g, s in GAME_TEACH_SETTINGS.items()] + [
    (f"cards-{g}", s) for g, s in CARD_TEACH_SETTINGS.items()]


# ----------------------------------------------------------------- the plain formulas


def ref_border_ab(crops_bgr):
    """np.median of the float Lab a, b (less 128) over each crop's 2-pixel border ring."""
    s = crops_bgr.shape[1]
    ring = np.ones((s, s), bool)
    ring[2:s - 2, 2:s - 2] = False
    edge = cv2.cvtColor(np.ascontiguousarray(crops_bgr[:, ring]),
                        cv2.COLOR_BGR2Lab).astype(np.float32) - 128.0
    return np.median(edge[..., 1:], axis=1)


def ref_top_mean(values, key, share):
    m = max(1, int(round(key.shape[1] * share)))
    idx = np.argpartition(key, m - 1, axis=1)[:, :m]
    return np.take_along_axis(values, idx[..., None], axis=1).mean(axis=1).astype(np.float32)


def ref_balanced(crops_bgr, gain):
    if gain is None:
        return crops_bgr
    return np.clip(crops_bgr.astype(np.float32) * gain, 0, 255).astype(np.uint8)


# ----------------------------------------------------------------- random inputs


class Classifier:
    def __init__(self, classes):
        self.classes = tuple(classes)

    def index(self, label):
        return self.classes.index(label)


def random_crops(rng, n, size=32):
    """(n, size, size, 3) uint8: a coloured disc on a coloured ground, noise, some
    bright (white) pieces and a few saturated pixels."""
    crops = np.empty((n, size, size, 3), np.uint8)
    for i in range(n):
        ground = rng.integers(0, 256, 3)
        crops[i] = np.clip(ground + rng.normal(0, 12, (size, size, 3)), 0, 255)
        disc = rng.integers(150, 256, 3) if rng.random() < 0.3 else rng.integers(0, 256, 3)
        cv2.circle(crops[i], (size // 2, size // 2), size // 3,
                   tuple(int(v) for v in disc), -1)
    return crops


def random_case(rng, settings, n, units_taught=0.75, groups=False):
    """(profile, classifier, labels, probs, embedding, crops, groups): units u0..u5
    (with `groups`: u0, u1 each three model labels), `units_taught` of them taught
    (the white label, where the settings have one, among them); embeddings near the
    prototypes (sure pieces for the recalibration, rescues) and far (gates)."""
    d = 16
    units = [f"u{k}" for k in range(6)]
    if settings.white_label:
        units[0] = settings.white_label
    grp = {u: ((f"{u}-1", f"{u}-2", f"{u}-3") if groups and k < 2 else (u,))
           for k, u in enumerate(units)}
    classes = ("background", *[lab for u in units for lab in grp[u]], "other-1", "other-2")
    taught = tuple(u for k, u in enumerate(units) if k == 0 or rng.random() < units_taught)
    protos = rng.normal(size=(len(taught), d)).astype(np.float32)
    protos /= np.linalg.norm(protos, axis=1, keepdims=True)
    colours = np.column_stack([rng.uniform(20, 90, len(taught)),
                               rng.uniform(-60, 60, (len(taught), 2))]).astype(np.float32)
    table = rng.normal(size=d)  # (the background examples: around one direction)
    negatives = (table + 0.2 * rng.normal(size=(5, d))).astype(np.float32)
    negatives /= np.linalg.norm(negatives, axis=1, keepdims=True)
    model_p = np.where(rng.random(len(taught)) < 0.8, 0.9, 0.2).astype(np.float32)  # (read)
    prof = Profile(game="g", labels=taught, prototypes=protos, colours=colours,
                   counts=np.ones(len(taught), np.int64), classes=classes,
                   settings=replace(settings, known_share=1.1, known_median=1.1),
                   negatives=negatives, model_p=model_p)
    near = rng.integers(0, len(taught), n)
    noise = rng.choice([0.02, 0.1, 0.6, 3.0], n)[:, None]
    emb = protos[near] + noise * rng.normal(size=(n, d)).astype(np.float32)
    emb = (emb / np.linalg.norm(emb, axis=1, keepdims=True)).astype(np.float32)
    emb[1:4] = table + 0.05 * rng.normal(size=(len(emb[1:4]), d))  # like the table
    emb[1:4] /= np.linalg.norm(emb[1:4], axis=1, keepdims=True)
    probs = rng.dirichlet(np.full(len(classes), 0.3), n).astype(np.float32)
    probs[:1, 1:4] = 0.0  # (a unit the model gives nothing: its share split evenly)
    probs[2:4] *= 0.1  # (the model sure of a label: spared by `gate_keep`)
    probs[2:4, 1 + rng.integers(0, 3, len(probs[2:4]))] += 0.9
    labels = tuple(lab for u in units for lab in grp[u])
    return (prof, Classifier(classes), labels if groups else tuple(units), probs, emb,
            random_crops(rng, n), grp if groups else None)


# ----------------------------------------------------------------- tests


@pytest.mark.parametrize("size", [32, 33, 6, 3])  # the model's crop, odd, tiny, no inside
def test_border_ab_is_numpy_s_median(size):
    rng = np.random.default_rng(size)
    crops = random_crops(rng, 9, size)
    crops[0] = 128  # (grey: ties everywhere)
    crops[1, :, :, 1] = 255  # (saturated green: a, b at their ends)
    got, want = _border_ab(crops), ref_border_ab(crops)
    assert got.dtype == want.dtype and np.array_equal(got, want)


@pytest.mark.parametrize("share", sorted({v for _, s in SETTINGS for v in (
    s.colour_top, s.white_top, s.colour_white) if v > 0} | {1e-3, 1.0}))
@pytest.mark.parametrize("size", [32, 33, 6])
def test_top_mean_is_take_along_axis(share, size):
    """As `piece_colour` (Lab values, key -chroma, a border's pixels 1000 down) and
    `white_point` (BGR values, key -brightness) call it; ties (a grey crop) included."""
    rng = np.random.default_rng(size)
    crops = random_crops(rng, 9, size)
    crops[0] = 128
    n = len(crops)
    lab = cv2.cvtColor(crops.reshape(n, -1, 3), cv2.COLOR_BGR2Lab).astype(np.float32)
    lab[..., 0] *= 100.0 / 255.0
    lab[..., 1:] -= 128.0
    chroma = np.hypot(lab[..., 1], lab[..., 2])
    chroma = np.where(rng.random(chroma.shape) < 0.3, chroma - 1000.0, chroma)
    bgr = crops.reshape(n, -1, 3).astype(np.float32)
    for values, key in ((lab, -chroma), (bgr, -bgr.sum(axis=2))):
        got, want = _top_mean(values, key, share), ref_top_mean(values, key, share)
        assert got.dtype == want.dtype and np.array_equal(got, want)


def test_lab_tables_are_the_float_conversion():
    """`_LAB_TABLE` and `_CHROMA` (every uint8 L, a, b): the float32 values of converting
    OpenCV's 8-bit Lab and of np.hypot."""
    v = np.arange(256, dtype=np.uint8)
    lab8 = np.stack(np.meshgrid(v, v, indexing="ij"), axis=-1).reshape(-1, 2)
    lab8 = np.column_stack([lab8[:, 0], lab8]).reshape(-1, 1, 3)  # (L = a, a, b)
    want = lab8.astype(np.float32)
    want[..., 0] *= 100.0 / 255.0
    want[..., 1:] -= 128.0
    assert np.array_equal(cv2.LUT(lab8, _LAB_TABLE), want)
    chroma = _CHROMA.take((lab8[..., 1].astype(np.uint16) << 8) | lab8[..., 2])
    assert np.array_equal(chroma, np.hypot(want[..., 1], want[..., 2]))


@pytest.mark.parametrize("gain", [
    np.array([0.9, 1.0, 1.2], np.float32),  # the photo_white_gain kind
    np.array([1.3, 0.7, 1.01], np.float32),  # clipped at 255
    np.array([1.1, 0.95, 1.0]),  # float64 (the product is float64 then)
    np.float32(1.2),  # one gain for every channel: the product
    np.array([[1.1, 0.9, 1.0]] * 5, np.float32)[:, None, None, :],  # one per crop
    None,  # unchanged
])
def test_balanced_is_the_plain_product(gain):
    crops = random_crops(np.random.default_rng(3), 5)
    got, want = balanced(crops, gain), ref_balanced(crops, gain)
    assert got.dtype == want.dtype and np.array_equal(got, want)


@pytest.mark.parametrize("also", [False, True])
def test_white_points_of_the_white_candidates_alone(also):
    """`_whites` measures `white_point` only on the candidates `white_candidates` picks
    (of the batch and the photo's other candidates): the same gain as measuring all."""
    s = GAME_TEACH_SETTINGS["simsala-hopp"]
    rng = np.random.default_rng(7)
    prof, _, _, _, emb, crops, _ = random_case(rng, s, 30)
    white = prof.prototypes[prof.labels.index(s.white_label)]
    emb[:6] = white + 0.01 * rng.normal(size=(6, 16))
    emb[:6] /= np.linalg.norm(emb[:6], axis=1, keepdims=True)
    crops[:6] = (200, 230, 215)  # greenish whites: a cast to undo
    crops[:6] += rng.integers(0, 20, crops[:6].shape).astype(np.uint8)
    other = None
    emb_all, crops_all = emb, crops
    if also:
        _, _, _, _, _, crops2, _ = random_case(np.random.default_rng(57), s, 10)
        emb2 = (white + 0.01 * rng.normal(size=(10, 16))).astype(np.float32)
        other = (emb2 / np.linalg.norm(emb2, axis=1, keepdims=True), crops2)
        emb_all, crops_all = np.concatenate([emb, other[0]]), np.concatenate([crops, crops2])
    emb_w, whites, near = _whites(prof, emb, crops, other)
    got = photo_white_gain(emb_w, whites, prof.prototypes, prof.labels, s, white=near)
    want = photo_white_gain(emb_all, white_point(crops_all, s), prof.prototypes, prof.labels, s)
    assert want is not None and np.array_equal(got, want)  # (the case does balance)


@pytest.mark.parametrize("name, settings", SETTINGS)
def test_a_profile_s_worked_out_values_are_a_fresh_one_s(name, settings):
    """`Profile._memo` is keyed by what it was worked out for: one profile called with two
    groupings and two label sets (and again) reads as a fresh profile does each time, and
    `replace(prof, colours=...)` after use reads with its own colours. The arrays are read
    only (a change in place would leave the memo stale)."""
    rng = np.random.default_rng(11)
    prof, clf, labels, probs, emb, crops, grp = random_case(rng, settings, 30, groups=True)
    units = tuple(grp)
    calls = [  # (labels, groups)
        (labels, grp),  # Troetofanten's kinds: a unit of three model labels
        (tuple(grp[u][0] for u in units), {u: grp[u][:1] for u in units}),  # one label each
        (tuple(lab for u in units[::2] for lab in grp[u]), {u: grp[u] for u in units[::2]}),
        (labels, grp),  # (the first again, after the others)
    ]
    for labs, groups in calls:
        got = teach_probs(prof, clf, labs, probs, emb, crops, groups)
        want = teach_probs(replace(prof), clf, labs, probs, emb, crops, groups)
        assert np.array_equal(got, want), labs
        q, cos = prof.adjust(tuple(groups), probs[:, 1:1 + len(groups)], emb,
                             np.zeros((len(emb), 3), np.float32) + 50)
        q2, cos2 = replace(prof).adjust(tuple(groups), probs[:, 1:1 + len(groups)], emb,
                                        np.zeros((len(emb), 3), np.float32) + 50)
        assert np.array_equal(q, q2) and np.array_equal(cos, cos2, equal_nan=True)
    before = teach_probs(prof, clf, labels, probs, emb, crops, grp)
    colours = prof.colours + np.float32([5, -40, 40])
    moved = replace(prof, colours=colours)
    got = teach_probs(moved, clf, labels, probs, emb, crops, grp)
    fresh = Profile(game=prof.game, labels=prof.labels, prototypes=prof.prototypes.copy(),
                    colours=colours.copy(), counts=prof.counts, classes=prof.classes,
                    settings=prof.settings, negatives=prof.negatives, model_p=prof.model_p)
    assert np.array_equal(got, teach_probs(fresh, clf, labels, probs, emb, crops, grp))
    if settings.colour_weight > 0 and not settings.relabel_only:
        assert not np.array_equal(got, before)  # (the colours count: a stale memo shows)
    with pytest.raises(ValueError):
        prof.colours[0, 0] = 0.0


def test_profile_copies_the_caller_s_arrays():
    """A profile's arrays are read only, the caller's stay writable and apart from it;
    `replace` shares the profile's own (read only) ones."""
    prototypes = np.eye(2, 4, dtype=np.float32)
    colours = np.float32([[50, 0, 0], [60, 10, 10]])
    prof = Profile(game="magic-rabbit", labels=("a", "b"), prototypes=prototypes,
                   colours=colours, counts=np.ones(2), classes=("a", "b"))
    colours[0, 0] = 0.0  # the caller's array: still theirs to change
    assert prof.colours[0, 0] == 50.0
    with pytest.raises(ValueError):
        prof.prototypes[0, 0] = 0.0
    assert prototypes.flags.writeable
    assert replace(prof, counts=np.zeros(2)).prototypes is prof.prototypes


def test_shield_calibrated_keeps_the_photo_s_profile():
    """The same photo's hues give the same calibrated profile (its worked-out values kept);
    another photo's a new one, as computed afresh."""
    s = GAME_TEACH_SETTINGS["simsala-hopp"]
    labels = ("rabbit-yellow", "rabbit-orange", "rabbit-blue", "rabbit-violet", "rabbit-white")
    prof = Profile(game="simsala-hopp", labels=labels, prototypes=np.eye(5, 8, dtype=np.float32),
                   colours=np.tile(np.float32([60, 20, 50]), (5, 1)),
                   counts=np.ones(5, np.int64), classes=labels, settings=s,
                   shields=np.float32([60, 30, 240, 280]))
    hues = {"yellow": 50.0, "orange": 25.0, "blue": 230.0, "violet": 290.0}
    one = shield_calibrated(prof, hues)
    assert shield_calibrated(prof, dict(hues)) is one
    other = shield_calibrated(prof, hues | {"yellow": 40.0})
    assert other is not one
    fresh = shield_calibrated(replace(prof), hues | {"yellow": 40.0})
    assert np.array_equal(other.colours, fresh.colours)
    assert not np.array_equal(other.colours, one.colours)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 16])  # (look_backs asks 3; 16: the largest
#                                                    `_median` sorts itself)
def test_look_backs_median_is_numpy_s(dtype, n):
    from vision.teach_cards import _median

    rng = np.random.default_rng(n)
    for _ in range(50):
        v = (rng.random(n) * 100).astype(dtype)
        if rng.random() < 0.3:  # (ties)
            v = np.round(v)
        assert _median(v) == float(np.median(v))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [3, 9, 21])  # (`look_regions`' closing: 0.3 x a card's width)
def test_look_regions_closing_over_its_box_is_the_whole_photo_s(seed, k):
    """`closed_opened` works over the box of the look's pixels (grown by k + 2) alone: the
    same pixels as closing and opening the whole mask, where the pixels touch the photo's
    edge too, and for an empty mask."""
    from vision.teach_cards import closed_opened

    rng = np.random.default_rng(seed)
    h, w = (int(v) for v in rng.integers(20, 160, 2))
    hit = np.zeros((h, w), np.uint8)
    hit[rng.random((h, w)) < [0.0, 0.002, 0.02, 0.2, 0.001, 0.01][seed]] = 255
    for _ in range(seed % 3 + 1):  # (backs, some over the edge)
        x, y = int(rng.integers(-10, w)), int(rng.integers(-10, h))
        cv2.rectangle(hit, (x, y), (x + int(rng.integers(2, 40)), y + int(rng.integers(2, 40))),
                      255, -1)
    if seed == 0:
        hit[:] = 0
    want = cv2.morphologyEx(cv2.morphologyEx(hit, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8)),
                            cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    assert np.array_equal(closed_opened(hit, k), want)


def _random_hsv(rng, h: int = 37, w: int = 61, hue_max: int = 180) -> np.ndarray:
    """(h, w, 3) uint8 random HSV-like pixels, every hue, saturation and value at least once
    in its first rows (hues up to `hue_max`: 180-255 are no 8-bit HSV, but may be given)."""
    hsv = np.stack([rng.integers(0, hue_max, (h, w)), rng.integers(0, 256, (h, w)),
                    rng.integers(0, 256, (h, w))], axis=-1).astype(np.uint8)
    hsv.reshape(-1, 3)[:hue_max, 0] = np.arange(hue_max)
    hsv.reshape(-1, 3)[:256, 1] = hsv.reshape(-1, 3)[256:512, 2] = np.arange(256)
    return hsv


@pytest.mark.parametrize("bins, hue_max", [
    ((30, 8, 2), 180),  # the taught look's bins (`BackLookSettings.bins`)
    ((30, 8, 2), 256),  # ... with hues of 180 and over (not counted, as calcHist)
    ((30, 8, 1), 180),  # one value bin
    ((30, 8, 4), 180),  # four
    ((18, 4, 3), 256),  # bins that do not divide the range evenly
])
def test_code_hist_is_calc_hist_s(bins, hue_max):
    """`look_pixels` counts the sample's colours from each pixel's hue x saturation code
    (`_hs_codes`, `_code_hist`; session 27: once for the counts and the lookup): the very
    histogram `_look_hist` (`cv2.calcHist`) gives, float32 for float32."""
    from vision.teach_cards import _code_hist, _hs_codes, _look_hist

    rng = np.random.default_rng(sum(bins) + hue_max)
    hsv = _random_hsv(rng, hue_max=hue_max)
    h, sat, val = cv2.split(hsv)
    got = _code_hist(_hs_codes(h, sat, bins), val, bins)
    want = _look_hist(hsv, None, bins)
    assert got.dtype == want.dtype and np.array_equal(got, want)


@pytest.mark.parametrize("vb, by_value", [
    (2, False),  # the look's bins, the value bins alike: one lookup
    (2, True),  # ... not alike: the value bin's bit looked up (`_project_codes`)
    (4, True),  # four value bins (still one byte of bits)
    (6, True),  # six: 6 x 64 codes do not fit a byte, the lookup per value bin
])
def test_project_codes_is_the_per_value_bin_lookup(vb, by_value):
    """`_project_codes` (`_back_project`, `look_pixels`) sets the pixels whose (H, S, V) bin
    is set in the table (`hsv_bins`' bins, a hue of 180 or over in the last hue bin),
    whichever way it looks the value bin up."""
    from vision.cards.read import hsv_bins
    from vision.teach_cards import _back_project

    rng = np.random.default_rng(vb + 10 * by_value)
    bins = (30, 8, vb)
    hsv = _random_hsv(rng, 48, 256, hue_max=256)
    table = (rng.random(bins) < 0.3).astype(np.float32)
    if not by_value:
        table[:] = table[..., :1]
    want = np.where(table.ravel()[hsv_bins(hsv, bins)] > 0, 255, 0)
    assert np.array_equal(_back_project(hsv, table, bins), want)


@pytest.mark.parametrize("seed, spread_h", [(0, 1), (1, 1), (2, 0), (3, 2)])  # (the look's
#   `spread_h` 1; none; two)
def test_look_pixels_is_the_plain_look_colours_and_lookup(seed, spread_h):
    """`look_pixels` (session 27: one code per pixel for the sample's counts and the lookup;
    the spread look kept per look) gives the photo's HSV, pixels and colours that
    `look_colours` of its sample (`_sample`, `cv2.calcHist`) and `_back_project` give; the
    caller's look stays as it was, writeable, and a second photo gets its own colours."""
    from vision.teach_cards import (
        BACK_LOOK,
        _back_project,
        _sample,
        look_colours,
        look_pixels,
    )

    rng = np.random.default_rng(seed)
    s = replace(BACK_LOOK, spread_h=spread_h)
    look = np.zeros(s.bins, np.float32)
    look[17, 5:8] = rng.random((3, 2))  # a blue back of a few colours, a yellow ring
    look[5, 6, 1] = 0.2
    look /= look.sum()
    before = look.copy()
    for k in range(2):
        photo = np.full((96, 128, 3), (40, 90, 140), np.uint8)  # a brown table ...
        photo = cv2.add(photo, rng.integers(0, 30, photo.shape, np.uint8))
        cv2.rectangle(photo, (20 + 9 * k, 20), (60, 80), (150, 60, 20), -1)  # ... a blue back
        cv2.circle(photo, (40, 50), 8, (20, 200, 230), -1)  # its yellow ring
        hsv, hit, colours = look_pixels(photo, look, s)
        small = cv2.resize(photo, None, fx=s.scale, fy=s.scale, interpolation=cv2.INTER_AREA)
        want_hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
        want = look_colours(_sample(want_hsv), look, s, widen=True)
        assert np.array_equal(hsv, want_hsv) and np.array_equal(colours, want)
        assert want.any() and np.array_equal(hit, _back_project(want_hsv, want, s.bins))
        assert np.array_equal(look, before) and look.flags.writeable


@pytest.mark.parametrize("at, hue_max, fits", [
    ([17, 5, 26], 180, True),  # a look of a few hues (spread: 9): one byte per pixel names
    #                            its bin among them
    ([17, 5, 26], 256, True),  # ... with hues of 180 and over (no 8-bit HSV; counted
    #   nowhere, looked up in the last hue bin, as `cv2.calcHist` and `_back_project` do)
    ([29], 256, True),  # the last hue bin itself
    (list(range(12)), 180, True),  # 14 hues spread: the most a byte holds at 8 x 2 bins
    (list(range(13)), 256, False),  # 15: too many, the hue x saturation code and the value
    (list(range(0, 30, 2)), 180, False),  # every hue
])
def test_look_hit_is_the_sample_s_colours_and_their_lookup(at, hue_max, fits):
    """`_look_hit` (`look_pixels`): the colours `look_colours` finds in the photo's sample
    (`_sample`; `cv2.calcHist`'s counts) and the pixels `_back_project` sets for them, bit
    for bit, whether the look's hues fit one byte per pixel or not."""
    from vision.teach_cards import (
        BACK_LOOK,
        _back_project,
        _look_bins,
        _look_hit,
        _sample,
        look_colours,
    )

    rng = np.random.default_rng(len(at) + hue_max)
    s = BACK_LOOK
    look = np.zeros(s.bins, np.float32)
    look[at, 5, 1] = 1.0  # each hue's main colour, spread a hue bin either way
    look[at, 3:, :] += rng.random((len(at), s.bins[1] - 3, s.bins[2])) * 0.1
    look[at[0], 0, 0] = 0.5  # (a greyish bin: not spread over hue)
    look /= look.sum()
    hsv = _random_hsv(rng, 64, 96, hue_max)
    hsv[:24, :40] = (at[0] * 6 + 2, 180, 200)  # a patch of the look's main colour
    want = look_colours(_sample(hsv), look, s, widen=True)
    hit, colours = _look_hit(hsv, look, s)
    assert (_look_bins(look, s) is not None) == fits
    assert want.any() and np.array_equal(colours, want)
    assert np.array_equal(hit, _back_project(hsv, want, s.bins))


@pytest.mark.parametrize("seed", range(8))  # (random regions: blobs, wedges, holes, rings)
def test_covered_back_projects_each_row_s_ends_as_all_pixels(seed):
    """`covered_back` measures a region's extent along each turn from each row's first and
    last pixel (`_row_ends`): the same least and greatest projections, bit for bit, as from
    every pixel of it, for any turn (its frames are then the same)."""
    from vision.teach_cards import _row_ends

    rng = np.random.default_rng(seed)
    h, w = (int(v) for v in rng.integers(5, 70, 2))
    blob = (rng.random((h, w)) < [0.05, 0.5, 0.9, 0.2][seed % 4]).astype(np.uint8)
    if seed >= 4:  # (a wedge with a hole)
        blob[:] = 0
        cv2.fillConvexPoly(blob, rng.integers(0, [w, h], (3, 2)).astype(np.int32), 1)
        blob[h // 3:h // 2, w // 3:w // 2] = 0
    origin = np.array([int(v) for v in rng.integers(0, 400, 2)])
    ys, xs = np.nonzero(blob)
    every = np.column_stack([xs, ys]) + origin
    ends = _row_ends(blob) + origin
    assert len(ends) == 2 * len(set(ys.tolist()))
    for ang in list(rng.uniform(-180, 180, 30)) + [0.0, 45.0, 90.0, -135.0]:
        t = np.deg2rad(ang)
        axes = np.array([[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]])
        if not len(every):
            assert not len(ends)
            continue
        a, b = every.astype(np.float64) @ axes.T, ends.astype(np.float64) @ axes.T
        assert np.array_equal(a.min(axis=0), b.min(axis=0))
        assert np.array_equal(a.max(axis=0), b.max(axis=0))


def _sat_shifted(a: np.ndarray, shift: int) -> np.ndarray:
    """(The reference: `a` moved `shift` saturation bins up, down when negative.)"""
    out = np.zeros_like(a)
    if shift > 0:
        out[:, shift:] = a[:, :-shift]
    elif shift < 0:
        out[:, :shift] = a[:, -shift:]
    else:
        out[:] = a
    return out


def _hue_intersection_plain(a, b, reach=0, sat_reach=0) -> float:
    """`hue_intersection` as session 22 wrote it (whole arrays shifted)."""
    if reach <= 0 and sat_reach <= 0:
        return float(np.minimum(a, b).sum())
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    common = np.minimum(a, b)
    total = float(common.sum())
    a, b = a - common, b - common
    for d in range(1, reach + 1):
        for shift in (d, -d):
            moved = np.minimum(np.roll(a, shift, axis=0), b)
            total += float(moved.sum())
            b = b - moved
            a = a - np.roll(moved, -shift, axis=0)
    for d in range(1, sat_reach + 1):
        for shift in (d, -d):
            moved = np.minimum(_sat_shifted(a, shift), b)
            total += float(moved.sum())
            b = b - moved
            a = a - _sat_shifted(moved, -shift)
    return total


@pytest.mark.parametrize("reach, sat_reach, shape", [
    (0, 1, (15, 4, 1)),  # `looks_like`'s (coarse bins of the look's (30, 8, 2))
    (1, 1, (15, 4, 1)),  # `unlike_mix`'s, `look_backs`' mix
    (0, 2, (15, 4, 1)),  # two saturation bins
    (2, 3, (15, 4, 2)),  # three
    (1, 5, (6, 4, 1)),  # farther than the bins reach: nothing more meets
    (0, 0, (15, 4, 1)),  # the plain intersection
    (7, 0, (6, 4, 1)),  # a hue reach round the whole circle (a shift of 6: no move)
])
def test_hue_intersection_is_the_whole_array_shifts(reach, sat_reach, shape):
    """`hue_intersection` moves the leftovers over the shifted bins alone (hue: two slices
    round the circle; saturation: the bins with a partner): the very total the whole
    shifted arrays gave, bit for bit; the caller's arrays untouched."""
    from vision.teach_cards import hue_intersection

    rng = np.random.default_rng(reach * 10 + sat_reach)
    for _ in range(40):
        a, b = rng.random(shape) * (rng.random(shape) < 0.4), rng.random(shape)
        a, b = a / a.sum(), (b / b.sum()).astype(np.float32)
        a0, b0 = a.copy(), b.copy()
        assert hue_intersection(a, b, reach, sat_reach) == \
            _hue_intersection_plain(a, b, reach, sat_reach)
        assert np.array_equal(a, a0) and np.array_equal(b, b0)


def _main_hue_share_plain(sub, blob, look, s) -> float:
    """`main_hue_share` as session 23 wrote it (per pixel arithmetic)."""
    n, m = s.bins[0], s.bins[1]
    look = np.asarray(look, np.float32)
    coloured = look[:, s.main_hue_sat:].sum(axis=(1, 2))
    if coloured.sum() < 0.5 * look.sum():
        return 1.0
    main = int(np.argmax(coloured))
    mask = np.asarray(blob) > 0
    total = int(mask.sum())
    if total == 0:
        return 0.0
    px = sub[mask]
    hb = px[:, 0].astype(np.int32) * n // 180
    d = np.abs(hb - main)
    near = (np.minimum(d, n - d) <= s.main_hue_reach) & \
        (px[:, 1].astype(np.int32) * m // 256 >= s.main_hue_sat)
    return float(near.sum() / total)


@pytest.mark.parametrize("main, grey, reach, hue_max", [
    (17, False, 2, 180),  # the look's blue (bin 17 of 30), `main_hue_reach` 2
    (1, False, 2, 256),  # a red near the circle's seam; hues of 180 and over given
    (29, False, 0, 180),  # the last bin, no reach
    (10, True, 2, 180),  # a grey look: 1.0 whatever the region
])
def test_main_hue_share_by_lookup_is_the_per_pixel_one(main, grey, reach, hue_max):
    """`main_hue_share` looks each pixel's hue and saturation up in tables worked out once
    per look (`_main_hue_luts`): the same share as the per-pixel arithmetic, for regions of
    every size, an empty one too, and a second look after the first."""
    from vision.teach_cards import BACK_LOOK, main_hue_share

    rng = np.random.default_rng(main + reach)
    s = replace(BACK_LOOK, main_hue_reach=reach)
    for k in range(2):
        look = rng.random(s.bins).astype(np.float32) * 0.01
        look[(main + k) % 30, 0 if grey else 5, 1] = 1.0
        if grey:
            look[:, 1:] = 0.0
        sub = _random_hsv(rng, 40, 70, hue_max)
        for share in (0.0, 0.01, 0.3, 1.0):
            blob = (rng.random(sub.shape[:2]) < share).astype(np.uint8)
            assert main_hue_share(sub, blob, look, s) == _main_hue_share_plain(sub, blob,
                                                                                look, s)


# ----------------------------------------------------------- session 27 (teach-fresh-speed)


def _fold_faces_per_call(part, classifier, game, groups, probs, embedding, settings):
    """Session 26's `fold_faces`, its columns and face prototypes looked up on every call
    (the reference `_fold_tables` must match)."""
    from vision.cards.read import GAME_LABELS
    from vision.teach import BACKGROUND
    from vision.teach_cards import BACK_LABEL, BOX_KINDS

    back = BACK_LABEL.get(game)
    faces = [k for k, lab in enumerate(part.labels) if lab != back and lab in groups]
    if not faces or len(probs) == 0:
        return probs
    ib = classifier.index(BACKGROUND)
    mine = [classifier.index(lab) for lab in GAME_LABELS[game]]
    total = probs[:, mine].sum(axis=1)
    ask = np.flatnonzero((total <= probs[:, ib]) & (probs[:, ib] < settings.bg))
    if not len(ask):
        return probs
    p = probs[ask]
    rival = np.zeros(len(ask), probs.dtype)
    for g, labs in GAME_LABELS.items():
        if g != game:
            rival = np.maximum(rival, p[:, [classifier.index(lab) for lab in labs
                                            if lab in classifier.classes]].sum(axis=1))
    units = tuple(groups)
    pu = np.stack([p[:, [classifier.index(lab) for lab in groups[u]]].sum(axis=1)
                   for u in units], axis=1)
    top = np.array(units)[pu.argmax(axis=1)]
    cos = embedding[ask] @ part.prototypes[faces].T
    near = np.array([part.labels[k] for k in faces])[cos.argmax(axis=1)]
    hit = (total[ask] > rival) & (near == top) & (cos.max(axis=1) >= settings.cos)
    rare = [u for u, n in BOX_KINDS.get(game, {}).items() if n <= settings.rare]
    if rare:
        hit &= ~np.isin(top, rare)
    if not hit.any():
        return probs
    out = probs.copy()
    under = np.float32(settings.bar - 0.01)
    for r in np.flatnonzero(hit):
        k = int(ask[r])
        cols = [classifier.index(lab) for lab in groups[top[r]]]
        within = probs[k, cols] / max(float(probs[k, cols].sum()), 1e-12)
        bg = min(probs[k, ib], under)
        out[k] = 0.0
        out[k, cols] = within * (1.0 - bg)
        out[k, ib] = bg
    return out


class _Classes:
    """A card classifier's classes alone (`fold_faces` asks no more); `missing` left out
    (another game's label the model lacks)."""

    def __init__(self, missing=()):
        from vision.cards.read import GAME_LABELS

        self.classes = ["background"] + [lab for labs in GAME_LABELS.values() for lab in labs
                                         if lab not in missing]

    def index(self, lab):
        return self.classes.index(lab)


def _unit(v):
    v = np.asarray(v, np.float32)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def _fold_batch(clf, labels, n, seed):
    """(profile, probs, embedding): `n` crops whose game labels often weigh no more than
    background (the fold's case), embeddings near one taught prototype each."""
    rng = np.random.default_rng(seed)
    probs = rng.dirichlet(np.full(len(clf.classes), 0.3), n).astype(np.float32)
    ib = clf.index("background")
    probs[:, ib] += rng.uniform(0.0, 0.6, n).astype(np.float32)  # (near the bars)
    probs /= probs.sum(axis=1, keepdims=True)
    protos = _unit(rng.normal(size=(len(labels), 8)))
    emb = _unit(protos[rng.integers(0, len(labels), n)] + rng.normal(0, 0.4, (n, 8)))
    part = Profile(game="troetofanten", labels=labels, prototypes=protos,
                   colours=np.zeros((len(labels), 3)), counts=np.ones(len(labels), np.int64),
                   classes=clf.classes, model="cards")
    return part, probs.astype(np.float32), emb.astype(np.float32)


@pytest.mark.parametrize("labels, missing, rare, seed", [
    (("elephant", "lasso", "back"), (), 2, 0),  # the kinds taught in part, the rare mice
    #                                             left alone
    (("elephant", "tootophant", "mouse", "mousetrap", "lasso", "tamer", "back"), (), 2, 1),
    #                                             every kind (the session's profiles)
    (("elephant", "mouse", "back"), (), 0, 2),  # no rare kind: the mice fold too
    (("elephant", "tamer"), ("hat-3", "card-green"), 2, 3),  # other games' labels the model
    #                                             lacks (left out of their rivals' sums)
    (("back",), (), 2, 4),  # only the back taught: no face prototype, nothing folds
])
def test_fold_faces_tables_give_the_per_call_answer(labels, missing, rare, seed):
    """`fold_faces` with its columns and face prototypes worked out once per profile
    (`_fold_tables`) is the per-call lookup's answer bit for bit, call after call (the
    same profile asked again, with the kinds grouped otherwise in between)."""
    from vision.teach import teachable
    from vision.teach_cards import FaceFoldSettings, fold_faces

    clf = _Classes(missing)
    part, probs, emb = _fold_batch(clf, labels, 60, seed)
    tg = teachable("troetofanten")
    groups = tg.units(tg.card_labels)
    other = {u: labs[:1] for u, labs in groups.items()}  # (each kind its first label only)
    s = FaceFoldSettings(cos=0.3, bg=0.8, bar=0.5, rare=rare)
    folded = 0
    for g in (groups, other, groups):
        want = _fold_faces_per_call(part, clf, "troetofanten", g, probs, emb, s)
        got = fold_faces(part, clf, "troetofanten", g, probs, emb, s)
        assert got.dtype == want.dtype and np.array_equal(got, want)
        folded += int((got != probs).any(axis=1).sum())
    assert (folded > 0) == (labels != ("back",))  # (the case folds some crops, or none)
    empty = probs[:0]
    assert fold_faces(part, clf, "troetofanten", groups, empty, emb[:0], s) is empty
