"""Noisy and busy photos (session 21, H2): the card reader reads at most `max_keys` key
points per look, the strongest, with a warning where more were found (`noise_warning`);
`merge_keys` compares all key points at once, as its loop did one at a time."""

from __future__ import annotations

import numpy as np
import pytest

from vision.cards.detect import KIND_DOVE, KIND_PIECE, Keypoints, merge_keys
from vision.cards.read import READ, noise_warning


def _keys(rng, n: int, spread: float) -> Keypoints:
    return Keypoints(rng.uniform(0, spread, (n, 2)), rng.choice([KIND_PIECE, KIND_DOVE], n),
                     rng.uniform(0, 1, n).astype(np.float32), np.zeros(n),
                     rng.uniform(20, 80, n))


def _merge_keys_loop(kp, more, thresholds, reach, added=None):
    """`merge_keys` as it was before session 21 (one added key point at a time)."""
    thr = np.asarray(thresholds, np.float64)
    bar = thr if added is None else np.asarray(added, np.float64)
    strong_kp = kp.score >= thr[kp.kind]
    add = np.zeros(len(more), bool)
    for j in np.flatnonzero(more.score >= bar[more.kind]):
        same = strong_kp & (kp.kind == more.kind[j])
        d = np.hypot(*(kp.xy[same] - more.xy[j]).T)
        add[j] = not (d <= reach * np.maximum(kp.width[same], more.width[j])).any()
    return add


@pytest.mark.parametrize("seed, n, m, spread", [
    (0, 30, 30, 600), (1, 0, 20, 300), (2, 25, 0, 300), (3, 200, 300, 1200), (4, 5, 400, 200),
])
def test_merge_keys_as_the_loop(seed, n, m, spread):
    rng = np.random.default_rng(seed)
    kp, more = _keys(rng, n, spread), _keys(rng, m, spread)
    for added in (None, (0.15, 0.4)):
        add = _merge_keys_loop(kp, more, (0.15, 0.3), 0.5, added)
        out = merge_keys(kp, more, (0.15, 0.3), 0.5, added)
        assert len(out) == n + int(add.sum())
        np.testing.assert_array_equal(out.xy[n:], more.xy[add])


@pytest.mark.parametrize("scores, most, warned", [
    ([0.9] * 5, 5, False),
    ([0.9] * 6, 5, True),
    ([0.9] * 5 + [0.1] * 50, 5, False),  # under the threshold: not counted
    ([], 5, False),
])
def test_noise_warning(scores, most, warned):
    n = len(scores)
    kp = Keypoints(np.zeros((n, 2)), np.full(n, KIND_PIECE), np.asarray(scores, np.float32),
                   np.zeros(n), np.full(n, 40.0))
    assert bool(noise_warning(kp, 0.15, most)) == warned


@pytest.mark.parametrize("n, busy, said", [
    (40, 60, None),  # an ordinary layout (the committed photos pose at most 47)
    (60, 60, None),  # at the bar: not yet busy
    (61, 60, "the table looks busy (61 card-like spots"),  # a printed table
    (150, 60, "the table looks busy (150"),  # up to max_keys: all still read
    (151, 60, "the photo is very noisy or busy (151"),  # over max_keys: the cap's warning
    (100, None, None),  # busy warning off
])
def test_busy_table_warning(n, busy, said):
    """Over `busy_keys` key points (a newspaper, a printed cloth: session 24, lead) the
    look says the table is busy; over `max_keys` the cap's own warning says more."""
    kp = Keypoints(np.zeros((n, 2)), np.full(n, KIND_PIECE), np.full(n, 0.9, np.float32),
                   np.zeros(n), np.full(n, 40.0))
    got = noise_warning(kp, 0.15, 150, busy)
    assert (got[0].startswith(said) if said else got == []) and len(got) <= 1


def test_busy_keys_above_the_committed_photos():
    # the busy warning's bar over the committed photos' most (47), under the cap
    assert 47 < READ.busy_keys < READ.max_keys and READ.busy_warning


def test_max_keys_above_the_committed_photos():
    # the 80 committed Magic Rabbit and Troetofanten photos: at most 47 strong key points
    assert READ.max_keys >= 3 * 47
