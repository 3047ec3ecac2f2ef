"""The pawn classifier's training lights (vision/mauer_train.py `random_light`) and the
committed model under a harsh warm light: a white field in a wall's shade is no yellow pawn."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from scoring.mauerhuepfer import load_board
from vision import mauer
from vision.mauer_train import JITTER, random_light, view_from_truth
from vision.synth import render_scene
from vision.synth.dataset import scene_seed
from vision.teach_eval import harsh_light

BOARD = load_board()


def _photo(seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, (40, 60, 3), dtype=np.uint8)


def test_random_light_is_seeded_and_keeps_the_photo_shape():
    img = _photo()
    a = random_light(img, np.random.default_rng(5))
    b = random_light(img, np.random.default_rng(5))
    assert a.dtype == np.uint8 and a.shape == img.shape
    assert np.array_equal(a, b)
    assert not np.array_equal(a, img)


@pytest.mark.parametrize("field, value", [
    ("p_gamma", 0.0),  # gains only: a lamp's colour
    ("p_gamma", 1.0),  # always a tone curve
    ("p_shadow", 1.0),  # always a hard shadow
    ("p_dim", 1.0),  # always underexposed
])
def test_random_light_variants_stay_valid(field, value):
    j = dataclasses.replace(JITTER, **{field: value})
    for s in range(3):
        out = random_light(_photo(s), np.random.default_rng(s), j)
        assert out.dtype == np.uint8 and out.shape == (40, 60, 3)


def test_random_light_gains_only_keep_the_brightest_channel():
    """Without a tone curve, shadow or dimming, white stays white in its brightest channel
    (the gains are scaled so that the largest is 1)."""
    j = dataclasses.replace(JITTER, p_gamma=0.0, p_shadow=0.0, p_dim=0.0)
    white = np.full((4, 4, 3), 255, np.uint8)
    for s in range(5):
        out = random_light(white, np.random.default_rng(s), j)
        assert out.max() == 255 and out.min() < 255


def test_random_light_tone_gain_is_the_setting():
    """A tone curve of gamma 1 with `tone_gain` 0.5: the gains-only light, halved (the
    curve's gain range is `LightJitter.tone_gain`, not a literal)."""
    j0 = dataclasses.replace(JITTER, p_gamma=0.0, p_shadow=0.0, p_dim=0.0)
    j1 = dataclasses.replace(j0, p_gamma=1.0, gamma_log=0.0, tone_gain=(0.5, 0.5))
    for s in range(3):
        a = random_light(_photo(s), np.random.default_rng(s), j0).astype(float)
        b = random_light(_photo(s), np.random.default_rng(s), j1).astype(float)
        assert np.abs(b - 0.5 * a).max() <= 1.0


@pytest.mark.parametrize("seed, index", [
    (1865, 4),  # 13 empty spots read as pawns by the model before the light jitter, 0 after
    (1865, 12),  # 12 before, 0 after
])
def test_harsh_light_leaves_empty_fields_empty(seed, index):
    """A fresh scene (not a training one) under the harsh warm light (`harsh_light`), the
    board placed by its truth: the spots the model reads as pawns where there is none (before
    the box rules), at most 1 of the board's 98."""
    model = mauer.load_pawn_model()
    img, truth = render_scene("mauerhuepfer", scene_seed(seed, index), 1)
    ok, buf = cv2.imencode(".jpg", harsh_light(img), [cv2.IMWRITE_JPEG_QUALITY, 90])
    lit = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    y = mauer.truth_labels(BOARD, truth)
    read = mauer.classify_spots(lit, view_from_truth(truth, BOARD), BOARD, model).argmax(axis=1)
    assert ((read > 0) & (y == 0)).sum() <= 1
    assert (read[y > 0] == y[y > 0]).all()
