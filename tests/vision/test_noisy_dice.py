"""Noisy and busy photos (session 21, H2): the dice reader reads at most
`max_pip_candidates` pip candidates, the strongest, with a warning where more were found;
under the cap nothing changes."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.dice import SETTINGS, find_pips, read_dice


def _dots(n: int, seed: int) -> np.ndarray:
    """(300, 400, 3) uint8 BGR: `n` dark dots of 5-9 px at seeded places on light grey
    (pip candidates, none a die's face), with seeded noise of s.d. 3."""
    rng = np.random.default_rng(seed)
    img = np.full((300, 400, 3), 210, np.float32)
    for _ in range(n):
        c = (int(rng.integers(10, 390)), int(rng.integers(10, 290)))
        cv2.circle(img, c, int(rng.integers(3, 5)), tuple(float(v) for v in
                                                       rng.integers(10, 80, 3)), -1)
    img += rng.normal(0, 3, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("n, seed", [(40, 0), (80, 1), (120, 2)])
def test_find_pips_caps_the_candidates_strongest_first(n, seed):
    img = _dots(n, seed)
    all_pips, _ = find_pips(img, SETTINGS)
    capped: list[int] = []
    same, _ = find_pips(img, SETTINGS, capped)  # (under the default cap: as before)
    assert capped == [] and len(same) == len(all_pips)
    np.testing.assert_array_equal(same.xy, all_pips.xy)
    most = max(5, len(all_pips) // 3)
    few, _ = find_pips(img, dataclasses.replace(SETTINGS, max_pip_candidates=most), capped)
    assert len(capped) == 1 and capped[0] >= len(all_pips) > most
    assert 0 < len(few) <= most
    # the strongest are kept: nearly all are the uncapped reading's (a blob that covered
    # two cut ones, or a duplicate whose stronger twin was cut, may stay in their place)
    d = np.hypot(*(few.xy[:, None] - all_pips.xy[None]).transpose(2, 0, 1))
    assert (d.min(axis=1) < 1.0).mean() >= 0.8


@pytest.mark.parametrize("most, warned", [(10, True), (SETTINGS.max_pip_candidates, False)])
def test_read_dice_warns_of_a_noisy_photo(most, warned):
    _, warnings, _ = read_dice(_dots(80, 3), dataclasses.replace(
        SETTINGS, max_pip_candidates=most))
    assert any("very noisy or busy" in w for w in warnings) == warned
