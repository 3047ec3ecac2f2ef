"""`vision.cards.hopcards`' counted order statistics (`median_u8`, `percentile_u8`) give
numpy's numbers to the bit, dtype included (seeded random uint8 columns: few and many
values, narrow and full ranges, odd and even counts)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cards.hopcards import (
    _CARD_HUE_NEAR,
    _REF_LAB,
    _REF_NAMES,
    CARD_REF_BGR,
    _marble_dists,
    median_u8,
    nearest_marbles,
    percentile_u8,
)


def columns(n: int, c: int, top: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, top + 1, (n, c)).astype(np.uint8)


@pytest.mark.parametrize("n,c,top", [
    (1, 3, 255),     # one value: every percentile is it
    (2, 3, 255),     # two: the median is their mean (a half)
    (21, 3, 9),      # many equal values (the paper's few levels)
    (113, 1, 255),   # a disc's saturations
    (6300, 3, 255),  # a card's inner part
])
@pytest.mark.parametrize("q", [50, 75, 90, 33.3])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])  # of uint8; of float32 values
def test_percentile_u8_is_numpys(n, c, top, q, dtype):
    v = columns(n, c, top, seed=n + c)
    want = np.percentile(v.astype(np.uint8 if dtype == np.float64 else dtype), q, axis=0)
    got = percentile_u8(v, q, dtype)
    assert got.dtype == want.dtype
    assert np.array_equal(got, want)


@pytest.mark.parametrize("n,c,top", [(1, 3, 255), (2, 3, 255), (20, 3, 9), (5001, 3, 255)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])  # of uint8; of float32 values
def test_median_u8_is_numpys(n, c, top, dtype):
    v = columns(n, c, top, seed=7 * n)
    want = np.median(v.astype(np.uint8 if dtype == np.float64 else dtype), axis=0)
    got = median_u8(v, dtype)
    assert got.dtype == want.dtype
    assert np.array_equal(got, want)


@pytest.mark.parametrize("bgr", [(30, 205, 245), (0, 0, 0), (255, 255, 255), (90, 120, 60)])
def test_nearest_marble_distance_is_the_lab_norm(bgr):
    [label] = nearest_marbles([bgr])
    d = float(_marble_dists([bgr])[0, _REF_NAMES.index(label)])
    want = lab_norms(bgr)
    assert label == min(want, key=want.get) and d == want[label]


def lab_norms(bgr) -> dict[str, float]:
    """The Lab distance of one BGR colour (clipped to 0-255, then uint8) from each printed
    marble colour, by np.linalg.norm: marble label -> distance."""
    px = np.uint8([[np.clip(np.asarray(bgr, float), 0, 255)]])
    lab = cv2.cvtColor(px, cv2.COLOR_BGR2LAB)[0, 0].astype(np.float32)
    return {k: float(np.linalg.norm(lab - v)) for k, v in _REF_LAB.items()}



@pytest.mark.parametrize("colour", ["green", "blue", "red"])  # red wraps around 0 / 180
def test_card_hue_table_is_the_circular_difference(colour):
    ref = int(cv2.cvtColor(np.uint8([[CARD_REF_BGR[colour]]]), cv2.COLOR_BGR2HSV)[0, 0, 0])
    hue = np.arange(180, dtype=np.uint8)[None]
    dh = np.abs(hue.astype(np.int32) - ref)
    want = (np.minimum(dh, 180 - dh) <= 14).astype(np.uint8)
    assert np.array_equal(cv2.LUT(hue, _CARD_HUE_NEAR[colour]), want)
    assert want.sum() == 29  # 14 either side


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_nearest_marbles_is_the_least_lab_norm_of_each(seed):
    colours = np.random.default_rng(seed).uniform(-20, 280, (40, 3)).astype(np.float32)
    want = [lab_norms(c) for c in colours]
    assert nearest_marbles(colours) == [min(w, key=w.get) for w in want]
