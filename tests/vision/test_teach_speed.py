"""Teach mode's cheaper arithmetic (session 13, issue 8: the time a profile adds per photo):
`piece_colour`, `white_point`, `balanced`, `Profile.adjust` and `teach_probs` give the same
numbers, bit for bit, as the plain formulas they replaced (kept below as references), on
seeded random crops, embeddings and probabilities under every game's teach settings."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.teach import (
    CARD_TEACH_SETTINGS,
    GAME_TEACH_SETTINGS,
    TEACH_SETTINGS,
    Profile,
    balanced,
    label_kind,
    piece_colour,
    shield_calibrated,
    teach_probs,
    white_point,
)

# (name, settings): every tuned set, and the defaults
SETTINGS = [("default", TEACH_SETTINGS)] + [
    (f"pieces-{g}", s) for g, s in GAME_TEACH_SETTINGS.items()] + [
    (f"cards-{g}", s) for g, s in CARD_TEACH_SETTINGS.items()]


# ----------------------------------------------------------------- the plain formulas


def ref_piece_colour(crops_bgr, settings):
    n = len(crops_bgr)
    if n == 0:
        return np.zeros((0, 3), np.float32)
    step = settings.colour_step
    crops = crops_bgr[:, ::step, ::step] if step > 1 else crops_bgr
    s = crops.shape[1]
    k = max(1, int(round(s * (1 - settings.colour_inner) / 2)))
    inner = crops[:, k:s - k, k:s - k].reshape(n, -1, 3)
    h = int(round(s * settings.colour_hole / 2))
    if 0 < h < s // 2 - k:
        g = np.abs(np.arange(k, s - k) - (s - 1) / 2)
        inner = inner[:, (np.maximum(g[:, None], g[None, :]) >= h).ravel()]
    if settings.colour_white > 0:
        hh = max(1, int(round(s * settings.colour_hole / 2)))
        white = ref_bright_mean(crops, s // 2 - hh, s // 2 + hh, settings.colour_white)
        gain = (235.0 / np.maximum(white, 20.0)).astype(np.float32)
        inner = np.clip(inner * gain[:, None, :], 0, 255).astype(np.uint8)
    lab = cv2.cvtColor(np.ascontiguousarray(inner), cv2.COLOR_BGR2Lab).astype(np.float32)
    lab[..., 0] *= 100.0 / 255.0
    lab[..., 1:] -= 128.0
    chroma = np.hypot(lab[..., 1], lab[..., 2])
    if settings.colour_border > 0:
        ring = np.ones((s, s), bool)
        ring[2:s - 2, 2:s - 2] = False
        edge = cv2.cvtColor(np.ascontiguousarray(crops[:, ring]),
                            cv2.COLOR_BGR2Lab).astype(np.float32) - 128.0
        around = np.median(edge[..., 1:], axis=1)
        near = np.hypot(*(lab[..., 1:] - around[:, None]).transpose(2, 0, 1)) \
            < settings.colour_border
        chroma = np.where(near, chroma - 1000.0, chroma)
    m = max(1, int(round(chroma.shape[1] * settings.colour_top)))
    idx = np.argpartition(-chroma, m - 1, axis=1)[:, :m]
    top = np.take_along_axis(lab, idx[..., None], axis=1)
    return top.mean(axis=1).astype(np.float32)


def ref_bright_mean(crops_bgr, lo, hi, share):
    n = len(crops_bgr)
    mid = crops_bgr[:, lo:hi, lo:hi].reshape(n, -1, 3).astype(np.float32)
    m = max(1, int(round(mid.shape[1] * share)))
    idx = np.argpartition(-mid.sum(axis=2), m - 1, axis=1)[:, :m]
    return np.take_along_axis(mid, idx[..., None], axis=1).mean(axis=1)


def ref_white_point(crops_bgr, settings):
    s = crops_bgr.shape[1]
    k = max(1, int(round(s * (1 - settings.colour_inner) / 2)))
    return ref_bright_mean(crops_bgr, k, s - k, settings.white_top)


def ref_balanced(crops_bgr, gain):
    if gain is None:
        return crops_bgr
    return np.clip(crops_bgr.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def ref_features(lab, s):
    lab = np.asarray(lab, np.float32)
    light = lab[..., :1] * np.float32(s.colour_l_weight)
    if s.colour_norm <= 0:
        return np.concatenate([light, lab[..., 1:]], axis=-1)
    ratio = lab[..., 1:] / np.maximum(lab[..., :1], np.float32(s.colour_l_floor))
    return np.concatenate([light, ratio * np.float32(s.colour_norm)], axis=-1)


def ref_kind_term(prof, labels, embedding):
    t = prof.settings.kind_temperature
    if t <= 0 or not prof.labels:
        return None
    kinds = [label_kind(lab) for lab in prof.labels]
    names = sorted(set(kinds))
    kp = np.stack([prof.prototypes[[k == nm for k in kinds]].mean(axis=0) for nm in names])
    kp /= np.maximum(np.linalg.norm(kp, axis=1, keepdims=True), 1e-9)
    kcos = embedding @ kp.T / t
    neutral = kcos.mean(axis=1)
    return np.stack([kcos[:, names.index(label_kind(lab))] if label_kind(lab) in names
                     else neutral for lab in labels], axis=1)


def ref_combine(prof, pl, cos, colours, ref, cols, kind=None):
    s = prof.settings
    fx, fr = ref_features(colours, s), ref_features(ref, s)
    d2 = ((fx[:, None, :] - fr[None]) ** 2).sum(axis=2) / (2 * s.colour_sigma ** 2)
    term_t = cos / s.temperature - s.colour_weight * d2
    neutral = term_t.mean(axis=1)
    term = np.stack([term_t[:, c] if c >= 0 else neutral for c in cols], axis=1)
    logit = s.model_weight * np.log(np.maximum(pl, 1e-6)) + term
    if kind is not None:
        logit = logit + kind
    logit -= logit.max(axis=1, keepdims=True)
    q = np.exp(logit)
    return q / q.sum(axis=1, keepdims=True)


def ref_adjust(prof, labels, p_labels, embedding, colours):
    s = prof.settings
    n = len(p_labels)
    pl = p_labels / np.maximum(p_labels.sum(axis=1, keepdims=True), 1e-9)
    cos = embedding @ prof.prototypes.T
    where = {lab: i for i, lab in enumerate(prof.labels)}
    cols = [where.get(lab, -1) for lab in labels]
    ref = prof.colours
    kind = ref_kind_term(prof, labels, embedding)
    for _ in range(1 + s.recalibrate):
        q = ref_combine(prof, pl, cos, colours, ref, cols, kind)
        lab_idx = [j for j, c in enumerate(cols) if c >= 0]
        taught_cols = [cols[j] for j in lab_idx]
        sure = (q[:, lab_idx] >= s.recalibrate_q) & (cos[:, taught_cols] >= s.min_cos)
        ref = prof.colours.copy()
        for k, c in enumerate(taught_cols):
            m = sure[:, k]
            if m.any():
                ref[c] = (prof.colours[c] + colours[m].sum(axis=0)) / (1 + m.sum())
    nan = np.full(n, np.nan)
    cos_l = np.stack([cos[:, where[lab]] if lab in where else nan for lab in labels], axis=1)
    return q.astype(np.float32), cos_l


def ref_white_gain(embedding, whites, prototypes, labels, settings):
    if not settings.white_label or settings.white_label not in labels or len(embedding) == 0:
        return None
    iw = labels.index(settings.white_label)
    cos = embedding @ prototypes.T
    white = (cos.argmax(axis=1) == iw) & (cos[:, iw] >= settings.white_cos)
    if white.sum() < max(1, settings.white_min):
        return None
    wp = np.median(whites[white], axis=0)
    gain = wp.mean() / np.maximum(wp, 1.0)
    if np.abs(np.log(gain)).max() > np.log(settings.white_max_gain):
        return None
    return gain.astype(np.float32)


def ref_teach_probs(profile, classifier, labels, probs, embedding, crops_bgr, groups=None,
                    keep_mass=False, also=None):
    if len(probs) == 0 or not profile.labels or profile.known:
        return probs
    groups = groups or {lab: (lab,) for lab in labels}
    units = tuple(groups)
    ib = classifier.index("background")
    idx = [[classifier.index(lab) for lab in groups[u]] for u in units]
    pu = np.stack([probs[:, cols].sum(axis=1) for cols in idx], axis=1)
    s = profile.settings
    keep_mass = keep_mass and s.keep_mass
    if s.white_label:
        emb_w, whites = embedding, ref_white_point(crops_bgr, s)
        if also is not None and len(also[0]):
            emb_w = np.concatenate([embedding, also[0]])
            whites = np.concatenate([whites, ref_white_point(also[1], s)])
        crops_bgr = ref_balanced(crops_bgr, ref_white_gain(
            emb_w, whites, profile.prototypes, profile.labels, s))
    q, cos_l = ref_adjust(profile, units, pu, embedding, ref_piece_colour(crops_bgr, s))
    bg = probs[:, ib].copy()
    with np.errstate(invalid="ignore"):
        filled = np.nan_to_num(cos_l, nan=-1.0)
        best = filled.max(axis=1)
        taught = ~np.isnan(cos_l[np.arange(len(q)), q.argmax(axis=1)])
        gate = taught & (best < s.min_cos)
        neg = None
        if s.neg_k > 0 and profile.negatives is not None and len(profile.negatives) >= s.neg_k:
            c = embedding @ profile.negatives.T
            neg = np.partition(c, len(profile.negatives) - s.neg_k, axis=1)[
                :, len(profile.negatives) - s.neg_k]
        rescue = (best >= s.rescue_cos) & (bg < s.rescue_bg)
        if neg is None:
            second = (np.sort(filled, axis=1)[:, -2] if filled.shape[1] > 1
                      else np.full(len(q), -1))
            rescue &= best - second >= s.rescue_margin
        else:
            gate &= neg >= best + s.neg_margin
            rescue &= (best - neg >= s.rescue_neg_margin) & ~gate
        gate &= ~(pu.max(axis=1) >= s.gate_keep)
        bg[rescue] = np.minimum(bg[rescue], 1 - s.rescue_cos)
        bg[gate] = 1.0
    choice = q.argmax(axis=1)
    if s.relabel_only:
        n = np.arange(len(q))
        i, j = pu.argmax(axis=1), choice
        shares = pu / np.maximum(pu.sum(axis=1, keepdims=True), 1e-12)
        q = shares.copy()
        q[n, i], q[n, j] = shares[n, j], shares[n, i]
    if keep_mass:
        out = probs.copy()
        mass = pu.sum(axis=1)
        gone = (bg >= 1.0) | rescue
        out[gone] = 0.0
        mass[gone] = 1 - bg[gone]
    else:
        out = np.zeros_like(probs)
        mass = 1 - bg
    out[:, ib] = bg
    for k, cols in enumerate(idx):
        within = probs[:, cols] / np.maximum(pu[:, k:k + 1], 1e-12)
        within = np.where(pu[:, k:k + 1] > 1e-12, within, 1.0 / len(cols))
        out[:, cols] = (q[:, k] * mass)[:, None] * within
    if profile.model_p is not None:
        p_unit = np.array([profile.model_p[profile.labels.index(lab)]
                           if lab in profile.labels else np.nan for lab in units], np.float32)
        top = pu.argmax(axis=1)
        modelled = pu.max(axis=1) > probs[:, ib]
        if profile.read_share >= s.trust_share:
            trusted = (p_unit >= s.known_p)[top] & modelled
            out[trusted] = probs[trusted]
        if s.keep_unread:
            unread = p_unit < s.known_p
            kept = (unread[top] | unread[choice]) & modelled
            out[kept] = probs[kept]
    return out


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


@pytest.mark.parametrize("name, settings", SETTINGS)
@pytest.mark.parametrize("size", [32, 33, 6])  # the model's crop, odd, tiny
def test_piece_colour_is_the_plain_formula(name, settings, size):
    rng = np.random.default_rng(size)
    crops = random_crops(rng, 9, size)
    crops[0] = 128  # (grey: ties everywhere)
    want = ref_piece_colour(crops, settings)
    got = piece_colour(crops, settings)
    assert got.dtype == want.dtype and np.array_equal(got, want)
    assert np.array_equal(white_point(crops, settings), ref_white_point(crops, settings))


@pytest.mark.parametrize("gain", [
    np.array([0.9, 1.0, 1.2], np.float32),  # the photo_white_gain kind
    np.array([1.3, 0.7, 1.01], np.float32),  # clipped at 255
    np.array([1.1, 0.95, 1.0]),  # float64 (the product is float64 then)
    None,  # unchanged
])
def test_balanced_is_the_plain_product(gain):
    crops = random_crops(np.random.default_rng(3), 5)
    got, want = balanced(crops, gain), ref_balanced(crops, gain)
    assert got.dtype == want.dtype and np.array_equal(got, want)


@pytest.mark.parametrize("name, settings", SETTINGS)
@pytest.mark.parametrize("seed", range(4))
def test_adjust_is_the_plain_rule(name, settings, seed):
    rng = np.random.default_rng(seed)
    prof, _, labels, probs, emb, crops, _ = random_case(rng, settings, 40)
    pl = probs[:, 1:1 + len(labels)]
    colours = ref_piece_colour(crops, settings)
    q, cos_l = prof.adjust(labels, pl, emb, colours)
    want_q, want_cos = ref_adjust(prof, labels, pl, emb, colours)
    assert q.dtype == want_q.dtype and np.array_equal(q, want_q)
    assert np.array_equal(cos_l, want_cos, equal_nan=True)


@pytest.mark.parametrize("name, settings", SETTINGS)
@pytest.mark.parametrize("seed, n, groups, also", [
    (0, 40, False, False),  # one batch, a label per unit
    (1, 40, True, False),  # units of several model labels (Troetofanten's kinds)
    (2, 3, False, True),  # a small later batch, the photo's other candidates beside it
    (3, 25, True, True),
    (4, 1, False, False),
])
def test_teach_probs_is_the_plain_rule(name, settings, seed, n, groups, also):
    rng = np.random.default_rng(seed)
    prof, clf, labels, probs, emb, crops, grp = random_case(rng, settings, n, groups=groups)
    other = None
    if also:
        _, _, _, _, emb2, crops2, _ = random_case(np.random.default_rng(seed + 50), settings,
                                                  30, groups=groups)
        other = (prof.prototypes[0] + 0.05 * rng.normal(size=(30, 16))).astype(np.float32)
        other = (other / np.linalg.norm(other, axis=1, keepdims=True), crops2)
    for keep_mass in (False, True):
        got = teach_probs(prof, clf, labels, probs, emb, crops, grp, keep_mass, other)
        want = ref_teach_probs(prof, clf, labels, probs, emb, crops, grp, keep_mass, other)
        assert got.dtype == want.dtype and np.array_equal(got, want), (keep_mass, name)
        # (again: the profile's worked-out values are reused, the same numbers)
        again = teach_probs(prof, clf, labels, probs, emb, crops, grp, keep_mass, other)
        assert np.array_equal(again, want)


def test_white_balanced_photo_is_the_plain_rule():
    """A batch whose white rabbits (and the photo's other candidates') set a cast: the
    white points measured only on them give the same balance."""
    s = GAME_TEACH_SETTINGS["simsala-hopp"]
    rng = np.random.default_rng(7)
    prof, clf, labels, probs, emb, crops, _ = random_case(rng, s, 30)
    white = prof.prototypes[prof.labels.index(s.white_label)]
    emb[:6] = white + 0.01 * rng.normal(size=(6, 16))
    emb[:6] /= np.linalg.norm(emb[:6], axis=1, keepdims=True)
    crops[:6] = (200, 230, 215)  # greenish whites: a cast to undo
    crops[:6] += rng.integers(0, 20, crops[:6].shape).astype(np.uint8)
    got = teach_probs(prof, clf, labels, probs, emb, crops)
    want = ref_teach_probs(prof, clf, labels, probs, emb, crops)
    assert np.array_equal(got, want)
    assert ref_white_gain(emb, ref_white_point(crops, s), prof.prototypes, prof.labels,
                          s) is not None  # (the case does balance)


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
@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 20])  # (look_backs asks 3; 20: numpy's own)
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
