"""The dice reader (`vision.dice`) on tiny drawn faces: blurred pips that touch (the columns
of a small 6) are found one by one and a blob that covers several pips is not kept in their
place; a face read inside a bigger one (a 3 among the pips of a 5) is doubted."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.dice import SETTINGS, find_pips, read_dice


def _face(value_rows: int, pip_d: float, gap: float, blur: float, seed: int = 0
          ) -> tuple[np.ndarray, np.ndarray]:
    """A white face with two columns of `value_rows` black pips `gap` px apart (edge to
    edge) on grey, blurred, with seeded noise. Returns (BGR image, pip centres)."""
    rng = np.random.default_rng(seed)
    img = np.full((200, 300, 3), 90, np.float32)
    step = pip_d + gap
    side = 2 * step + 2.6 * pip_d
    cx, cy = 130, 90
    cv2.rectangle(img, (int(cx - side / 2), int(cy - side / 2)),
                  (int(cx + side / 2), int(cy + side / 2)), (240, 240, 240), -1)
    centres = []
    for col in (-1, 1):
        for row in range(value_rows):
            x = cx + col * step * 0.9
            y = cy + (row - (value_rows - 1) / 2) * step
            centres.append((x, y))
            # drawn 8x oversampled for sub-pixel centres and sizes
            cv2.circle(img, (int(x * 8), int(y * 8)), int(pip_d * 4), (20, 20, 20), -1,
                       lineType=cv2.LINE_AA, shift=3)
    img = cv2.GaussianBlur(img, (0, 0), blur)
    img += rng.normal(0, 3, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8), np.array(centres)


@pytest.mark.parametrize("pip_d,gap,blur", [
    (5.0, 1.8, 1.1),  # tiny pips (a far die)
    (7.0, 2.5, 1.6),
    (10.0, 2.1, 1.7),  # blur merges each column at the mean level
    (10.0, 2.1, 2.3),  # ... still more blur
])
def test_touching_blurred_pips_are_each_found(pip_d, gap, blur):
    img, centres = _face(3, pip_d, gap, blur)
    pips, _ = find_pips(img)
    dark = pips.xy[pips.dark]
    for c in centres:
        assert np.linalg.norm(dark - c, axis=1).min() < 0.35 * pip_d, c
    # and not a merged blob between two of them
    assert (pips.d[pips.dark] < 1.6 * pip_d).all()


def test_without_half_depth_passes_the_columns_are_lost():
    """The same face read without the half-depth passes misses pips: the test can fail."""
    img, centres = _face(3, 10.0, 2.1, 2.3)
    s = dataclasses.replace(SETTINGS, deep_passes=())
    pips, _ = find_pips(img, s)
    dark = pips.xy[pips.dark]
    found = sum(len(dark) and np.linalg.norm(dark - c, axis=1).min() < 2.5 for c in centres)
    assert found < len(centres)


@pytest.mark.parametrize("seed", [0, 1, 2])  # noise
def test_small_blurred_six_is_read(seed):
    img, _ = _face(3, 10.0, 2.1, 2.3, seed=seed)
    assert [d.value for d in read_dice(img)[0]] == [6]


def _square_face(spots, seed: int) -> np.ndarray:
    """A white 60 px face on grey with black pips at face coordinates `spots` ([-1, 1]^2)."""
    rng = np.random.default_rng(seed)
    img = np.full((200, 300, 3), 90, np.float32)
    cx, cy, side = 130, 90, 60
    cv2.rectangle(img, (cx - side // 2, cy - side // 2), (cx + side // 2, cy + side // 2),
                  (240, 240, 240), -1)
    for u, v in spots:
        cv2.circle(img, (int(cx + u * side / 2), int(cy + v * side / 2)), 5, (20, 20, 20), -1,
                   lineType=cv2.LINE_AA)
    img = cv2.GaussianBlur(img, (0, 0), 1.0) + rng.normal(0, 3, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


THREE = [(-0.5, -0.5), (0.0, 0.0), (0.5, 0.5)]


@pytest.mark.parametrize("extra,doubted", [
    ([], False),  # a plain 3: no doubt
    ([(0.5, -0.5)], True),  # a 5 with one corner pip lost: the 3 in it is doubted
    ([(-0.5, 0.5)], True),  # the other corner
])
@pytest.mark.parametrize("seed", [0, 1])  # noise
def test_part_of_a_bigger_face_is_doubted(extra, doubted, seed):
    dice, warnings, _ = read_dice(_square_face(THREE + extra, seed))
    assert [d.value for d in dice] == [3]
    assert any("part of a bigger face" in w for w in warnings) == doubted
