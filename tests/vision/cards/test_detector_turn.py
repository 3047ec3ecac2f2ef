"""The detector's quarter-turn augmentation (`train.turned_patch`): a turned patch's targets
are the targets of the turned key points, so the network learns the same poses turned."""

import numpy as np
import pytest

from vision.cards.detect import DetectSettings
from vision.cards.train import DetectorTrain, detector_targets, turned_patch

P = 128  # patch side (scaled-input px); the output grid is P / stride square


def turned_keys(keys: np.ndarray, k: int, d: DetectSettings) -> np.ndarray:
    """Key points (x, y, kind, angle, width) in photo px turned k quarter turns as np.rot90
    turns the P x P scaled patch at the origin."""
    out = keys.copy()
    for _ in range(k % 4):
        xs = (out[:, 0] + 0.5) * d.scale - 0.5
        ys = (out[:, 1] + 0.5) * d.scale - 0.5
        xs, ys = ys, P - 1 - xs
        out[:, 0] = (xs + 0.5) / d.scale - 0.5
        out[:, 1] = (ys + 0.5) / d.scale - 0.5
        out[:, 3] = out[:, 3] - 90.0
    return out


@pytest.mark.parametrize("k", [1, 2, 3])  # each quarter turn
@pytest.mark.parametrize("keys", [
    [(60.0, 90.0, 0, 0.0, 50.0)],  # one upright card corner
    [(30.0, 200.0, 0, 35.0, 40.0), (180.0, 60.0, 1, -120.0, 24.0)],  # turned; a dove
    [(100.0, 100.0, 0, 179.0, 60.0), (112.0, 101.0, 0, 178.0, 60.0)],  # a tight fan
])
def test_turned_targets_are_the_turned_keys_targets(keys, k):
    d, cfg = DetectSettings(), DetectorTrain()
    o = P // d.stride
    keys = np.array(keys, np.float32)
    patch = np.random.default_rng(k).integers(0, 256, (P, P, 3), dtype=np.uint8)
    heat, reg, mask = detector_targets(keys, 0, 0, (o, o), d, cfg)
    tp, th, tr, tm = turned_patch(patch, heat, reg, mask, k)
    eh, er, em = detector_targets(turned_keys(keys, k, d), 0, 0, (o, o), d, cfg)
    assert np.array_equal(tp, np.rot90(patch, k))
    np.testing.assert_allclose(th, eh, atol=1e-5)
    np.testing.assert_array_equal(tm, em)
    on = em > 0
    np.testing.assert_allclose(tr[:, on], er[:, on], atol=1e-4)


def test_no_turn_is_the_same_arrays():
    d, cfg = DetectSettings(), DetectorTrain()
    o = P // d.stride
    heat, reg, mask = detector_targets(np.array([(60.0, 90.0, 0, 10.0, 50.0)], np.float32),
                                       0, 0, (o, o), d, cfg)
    patch = np.zeros((P, P, 3), np.uint8)
    out = turned_patch(patch, heat, reg, mask, 4)
    assert all(a is b for a, b in zip(out, (patch, heat, reg, mask), strict=True))
