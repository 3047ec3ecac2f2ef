"""`read.fan_gap_poses` / `CardReader.fan_gap_cards`: a fan's row of corner indices read with
a gap (session 22, H1). Two face-up cards turned alike and as wide whose key points lie a
fan's step apart: the row's next index one step past either end, and the middle of two
cards two steps apart, are looked at posed as their neighbour; a card read there surely on
no card off its row is added (the detector's heat peaks of a tight fan run together: such
a card has no key point of its own)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.vision.cards import helpers
from vision.cards.geometry import SPECS, pose_from_frame
from vision.cards.read import GAME_LABELS, READ, CardReader, fan_gap_poses

W = 50.0  # card width, px
LABELS = GAME_LABELS["troetofanten"]


def row(steps, angle: float = 0.0, labels=("elephant-2", "tootophant-4", "elephant-5"),
        conf: float = 0.95, widths=None, jitter: float = 0.0, seed: int = 0):
    """Face-up cards whose key points lie at `steps` (x the width, along their top edge
    turned `angle` degrees) from (300, 300), each card centred so; small seeded jitter (px)."""
    rng = np.random.default_rng(seed)
    t = np.deg2rad(angle)
    u = np.array([np.cos(t), np.sin(t)])
    out = []
    for n, st in enumerate(steps):
        w = W if widths is None else widths[n]
        c = helpers.card(labels[n % len(labels)], (0.0, 0.0), conf, width=w, angle=angle)
        key = np.array([300.0, 300.0]) + st * W * u + rng.normal(0.0, jitter, 2)
        out.append(helpers.card(c.label, key - c.key, conf, width=w, angle=angle))
    return out


def keys_of(poses) -> np.ndarray:
    return np.array([k for k, _, _ in poses], float).reshape(-1, 2)


@pytest.mark.parametrize("angle", [0.0, 33.0, -120.0])
@pytest.mark.parametrize("seed", [0, 1])
def test_fan_gap_poses_one_step_past_each_end(angle, seed):
    cards = row([0.0, 0.3], angle, jitter=0.3, seed=seed)
    poses = fan_gap_poses(cards)
    d = cards[1].key - cards[0].key
    want = np.array([cards[1].key + d, cards[0].key - d])
    got = keys_of(poses)
    assert len(got) == 2
    for w in want:
        assert np.min(np.hypot(*(got - w).T)) < 1e-6
    for _, a, wid in poses:
        assert abs(a - angle) < 1e-9 and wid == pytest.approx(W)


@pytest.mark.parametrize("steps,want", [
    ([0.0, 0.3, 0.6], [(-0.3,), (0.9,)]),  # a row of three: its two ends, none inside
    ([0.0, 0.8], [(0.4,)]),  # two steps apart: the middle (too far for the ends)
    ([0.0, 0.55], [(-0.55,), (1.1,), (0.275,)]),  # both
    ([0.0, 1.5], []),  # apart: no fan
    ([0.0, 0.05], []),  # one card read twice, not a step
])
def test_fan_gap_poses_where(steps, want):
    got = keys_of(fan_gap_poses(row(steps)))
    exp = np.array([[300.0 + s[0] * W, 300.0] for s in want]).reshape(-1, 2)
    assert len(got) == len(exp)
    for w in exp:
        assert np.min(np.hypot(*(got - w).T)) < 1e-6


@pytest.mark.parametrize("change", [
    "turned", "wider", "unsure", "faint", "backs",
])
def test_fan_gap_poses_not_a_row(change):
    cards = row([0.0, 0.3])
    if change == "turned":  # over `row_turn`
        c = helpers.card("tootophant-4", (0.0, 0.0), 0.95, width=W, angle=25.0)
        cards[1] = helpers.card("tootophant-4", cards[1].key - c.key, 0.95, width=W,
                                angle=25.0)
    elif change == "wider":  # over `fan_gap_width`
        cards = row([0.0, 0.3], widths=[W, 1.4 * W])
    elif change == "unsure":  # under `fan_confidence`
        cards = row([0.0, 0.3], conf=0.5)
    elif change == "faint":
        cards[1] = replace(cards[1], faint=True)
    else:  # backs make no row
        cards = [replace(c, label="back") for c in cards]
    assert fan_gap_poses(cards) == []


def test_fan_gap_poses_not_on_a_key_point_read():
    cards = row([0.0, 0.3])
    back = helpers.card("back", (0.0, 0.0), 0.9, width=W)
    at = cards[1].key + (cards[1].key - cards[0].key) + np.array([2.0, 1.0])
    cards.append(helpers.card("back", at - back.key, 0.9, width=W))
    got = keys_of(fan_gap_poses(cards))
    assert len(got) == 1 and np.allclose(got[0], cards[0].key - (cards[1].key - cards[0].key))


def test_fan_gap_poses_off():
    assert fan_gap_poses(row([0.0, 0.3]), replace(READ, fan_gap_step=(1.0, 0.0),
                                                  fan_gap_between=(1.0, 0.0))) == []


class GapReader(CardReader):
    """A reader without models whose crops read as `reading` (label, confidence) at the
    poses whose key point lies within 3 px of one of `at`, background elsewhere (as
    `CardReader.read_crops`: game probabilities, P(background), is a piece, confidence)."""

    def __init__(self, reading, at, settings=READ):
        self.settings = settings
        self.reading, self.at = reading, [np.asarray(a, float) for a in at]

    def read_crops(self, image, frames, game, number_frames=None, numbers=True):
        n = len(frames)
        probs = np.zeros((n, len(LABELS)), np.float32)
        bg = np.ones(n, np.float32)
        is_piece = np.zeros(n, bool)
        conf = np.zeros(n, np.float32)
        for r, f in enumerate(frames):
            key = pose_from_frame(np.asarray(f, float), SPECS["troetofanten"])[0]
            if any(np.hypot(*(key - a)) < 3.0 for a in self.at):
                lab, c = self.reading
                probs[r, LABELS.index(lab)] = c
                bg[r], is_piece[r], conf[r] = 1.0 - c, True, c
        return probs, bg, is_piece, conf


@pytest.mark.parametrize("reading,peak,added", [
    (("elephant-3", 0.95), (0.0, 0.0), True),  # a card read surely at the row's next index
    (("elephant-3", 0.85), (0.1, 0.05), True),  # at a peak near it: read there
    (("elephant-3", 0.75), (0.0, 0.0), False),  # under `fan_gap_confidence`
    (("back", 0.95), (0.0, 0.0), False),  # a back: left to the backs' steps
    (("elephant-3", 0.95), (0.4, 0.0), False),  # no peak within `fan_gap_snap`
    (("elephant-3", 0.95), None, False),  # no peak at all
])
def test_fan_gap_cards(reading, peak, added):
    cards = row([0.0, 0.3])
    gray = np.full((600, 600), 128, np.uint8)
    image = np.dstack([gray] * 3)
    past = cards[1].key + (cards[1].key - cards[0].key)
    at = past if peak is None else past + np.asarray(peak) * W
    peaks = np.zeros((0, 2)) if peak is None else at[None]
    reader = GapReader(reading, [at])
    out = reader.fan_gap_cards(image, gray, cards, peaks)
    assert len(out) == int(added)
    if added:
        assert out[0].label == reading[0] and np.allclose(out[0].key, at)
        assert out[0].angle == cards[1].angle and out[0].width == cards[1].width


def test_fan_gap_cards_not_on_another_card():
    """A reading at the row's next index that lies on a card read off its row (a card's own
    drawing under another card): not added."""
    cards = row([0.0, 0.3])
    past = cards[1].key + (cards[1].key - cards[0].key)
    cards.append(helpers.card("mouse", past + np.array([0.0, 20.0]), 0.95, width=W,
                              angle=90.0))
    gray = np.full((600, 600), 128, np.uint8)
    reader = GapReader(("elephant-3", 0.95), [past])
    assert reader.fan_gap_cards(np.dstack([gray] * 3), gray, cards, past[None]) == []


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_decoded_lower_the_same_key_points(seed):
    """`_read_pieces` decodes the detector's output down to `fan_gap_heat` and reads the
    peaks of at least `key_threshold` as before: the same key points, in the same order."""
    from vision.cards.detect import DetectSettings, decode

    rng = np.random.default_rng(seed)
    maps = rng.normal(0.0, 1.0, (7, 40, 50)).astype(np.float32)
    maps[:2] = rng.normal(-2.5, 1.2, (2, 40, 50)).astype(np.float32)  # heat mostly low
    s = DetectSettings()
    low = min(READ.key_threshold, READ.dove_threshold)
    every = decode(maps, replace(s, threshold=READ.fan_gap_heat), (160, 200))
    want = decode(maps, replace(s, threshold=low), (160, 200))
    got = every.select(every.score >= low)
    assert len(want) > 3 and len(every) > len(want)
    for a, b in zip((got.xy, got.kind, got.score, got.angle, got.width),
                    (want.xy, want.kind, want.score, want.angle, want.width), strict=True):
        assert np.array_equal(a, b)


class _FaintDetector:
    """Two key points of heat 0.08 (under every threshold read, over `fan_gap_heat`)."""

    threads = 1

    def detect(self, image, threshold=None, threads=None):
        from vision.cards.detect import KIND_PIECE, Keypoints

        xy = np.array([[100.0, 100.0], [400.0, 300.0]])
        keep = np.full(2, 0.08, np.float32) >= (threshold or 0.0)
        return Keypoints(xy, np.full(2, KIND_PIECE), np.full(2, 0.08, np.float32),
                         np.zeros(2), np.full(2, 50.0)).select(keep)


class _Peaks(Exception):
    """Raised by the stand-in `fan_gap_cards` with the peaks it was handed."""


@pytest.mark.parametrize("within, want", [
    (None, [[100.0, 100.0], [400.0, 300.0]]),  # the whole photo: both peaks
    (([[100.0, 100.0]], [30.0]), [[100.0, 100.0]]),  # `second_look`'s discs: the one inside
    (([[250.0, 250.0]], [30.0]), []),  # none inside
])
def test_fan_gap_peaks_only_within_the_discs_read(within, want):
    """`_read_pieces` hands `fan_gap_cards` the detector's weak peaks only inside `within`'s
    discs, as it reads only the key points there (no models: crops read as background)."""
    reader = object.__new__(CardReader)
    reader.detector = _FaintDetector()
    reader.settings = replace(READ, threads=False)

    def read_crops(image, frames, game, number_frames=None, numbers=True):
        n = len(frames)
        return (np.zeros((n, len(LABELS)), np.float32), np.ones(n, np.float32),
                np.zeros(n, bool), np.zeros(n, np.float32))

    def fan_gap_cards(image, gray, pieces, peaks):
        raise _Peaks(np.asarray(peaks, float).reshape(-1, 2))

    reader.read_crops = read_crops
    reader.fan_gap_cards = fan_gap_cards
    disc = None if within is None else (np.asarray(within[0], float),
                                        np.asarray(within[1], float))
    with pytest.raises(_Peaks) as got:
        reader.read_pieces(np.full((480, 640, 3), 128, np.uint8), "troetofanten", within=disc)
    assert np.array_equal(got.value.args[0], np.asarray(want, float).reshape(-1, 2))
