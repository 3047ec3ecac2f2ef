"""`vision.segment.cloth_tone` / `apply_tone`: a lamp's per-channel tone curve read off the
cloth's own shading and taken off the marble crops (drawn here; no renderer, no model)."""

from dataclasses import replace

import numpy as np
import pytest

from vision.area import AREA_SETTINGS, area_from_corners
from vision.preprocess import apply_tone, linear_to_srgb, srgb_to_linear
from vision.segment import MARBLE_SETTINGS, cloth_tone

CLOTH = AREA_SETTINGS["hop-la-bille"]
AREA = area_from_corners([[240, 80], [1040, 80], [1040, 880], [240, 880]], CLOTH)


def shaded_cloth(cloth_bgr=(200, 215, 225), shade=(0.2, 1.0), seed=0, shade_bgr=None):
    """A 960 x 1280 uint8 BGR photo: a plain cloth (800 px square) whose light falls off
    from `shade[1]` (top) to `shade[0]` (bottom) in linear light, on a dark table; a little
    noise (seeded). `shade_bgr`: the darker half's light coloured (a shade lit by the sky)."""
    rng = np.random.default_rng(seed)
    img = np.full((960, 1280, 3), 60.0, np.float32) / 255.0
    lin = srgb_to_linear(np.asarray(cloth_bgr, np.float32) / 255.0)
    light = np.linspace(shade[1], shade[0], 800, dtype=np.float32)[:, None, None]
    cloth = np.broadcast_to(lin * light, (800, 800, 3)).copy()
    if shade_bgr is not None:
        cloth[400:] *= np.asarray(shade_bgr, np.float32)
    img[80:880, 240:1040] = linear_to_srgb(cloth)
    img = 255.0 * img + rng.normal(0.0, 1.5, img.shape)
    return np.clip(np.round(img), 0, 255).astype(np.uint8)


def lamp(image, gamma=(1.0, 1.0, 1.0), gain=(1.0, 1.0, 1.0)):
    """uint8 BGR `image` under a per-channel tone curve: gain * x ** gamma (x in 0-1)."""
    x = image.astype(np.float32) / 255.0
    y = np.asarray(gain, np.float32) * x ** np.asarray(gamma, np.float32)
    return np.clip(np.round(255.0 * y), 0, 255).astype(np.uint8)


def chroma_spread(image):
    """How much the cloth's B/R ratio (log) differs between its light top and dark bottom."""
    top = image[150:250, 400:900].reshape(-1, 3).astype(np.float32).mean(axis=0)
    bottom = image[700:800, 400:900].reshape(-1, 3).astype(np.float32).mean(axis=0)
    return abs(np.log(top[0] / top[2]) - np.log(bottom[0] / bottom[2]))


@pytest.mark.parametrize(
    "cloth, gamma, gain",
    [
        ((200, 215, 225), (1.5, 1.1, 0.75), (0.8, 0.95, 1.1)),  # light_eval's harsh lamp
        ((150, 215, 200), (1.5, 1.1, 0.75), (0.8, 0.95, 1.1)),  # a green cloth, same lamp
        ((200, 215, 225), (0.75, 1.0, 1.4), (1.0, 0.95, 0.85)),  # a cold harsh lamp
        ((190, 200, 230), (1.3, 1.0, 0.8), (1.0, 1.0, 1.0)),  # a milder warm curve: in part
    ],
)
def test_cloth_tone_reads_a_lamps_tone_curve(cloth, gamma, gain):
    """Each channel's slope in log-log is the curve's own gamma against their mean, taken
    off in full beyond `tone_dev[1]` (in part below): the cloth is one colour from its light
    to its dark part again (nearer it, in part)."""
    photo = lamp(shaded_cloth(cloth), gamma, gain)
    exps, pivots = cloth_tone(MARBLE_SETTINGS, photo, AREA)
    slope = np.asarray(gamma) / np.mean(gamma)
    lo, hi = MARBLE_SETTINGS.tone_dev
    part = np.clip((np.abs(slope - 1).max() - lo) / (hi - lo), 0.0, 1.0)
    assert np.allclose(exps, slope ** -part, atol=0.05), (exps, slope ** -part)
    assert np.all((pivots > 0) & (pivots < 255))
    before, after = chroma_spread(photo), chroma_spread(apply_tone(photo, exps, pivots))
    assert before > 0.2 and after < (0.3 if part == 1 else 0.7) * before, (before, after)


@pytest.mark.parametrize(
    "gain",
    [(1.0, 1.0, 1.0), (0.55, 0.8, 1.0), (1.0, 0.78, 0.55), (0.3, 0.62, 1.0)],  # none,
    # warm, daylight, tungsten: gains only (as `light_eval` makes them, in linear light)
)
def test_cloth_tone_leaves_a_gain_only_light_alone(gain):
    """A light that only scales each channel (any cast) bends no channel: exponents 1, and
    the crops come back as they went in (the same array)."""
    from vision.light_eval import in_linear

    photo = in_linear(shaded_cloth(), np.asarray(gain))
    exps, pivots = cloth_tone(MARBLE_SETTINGS, photo, AREA)
    assert np.all(exps == 1.0), exps
    crop = photo[100:132, 300:332]
    assert apply_tone(crop, exps, pivots) is crop


def test_cloth_tone_a_coloured_shade_is_no_tone_curve():
    """A shade lit by a bluer light (the darker half only) leans one half's slopes, not the
    other's: no curve is taken off."""
    photo = shaded_cloth(shade_bgr=(1.0, 0.85, 0.65))
    exps, _ = cloth_tone(MARBLE_SETTINGS, photo, AREA)
    assert np.all(exps == 1.0), exps


@pytest.mark.parametrize(
    "photo, settings",
    [
        (lamp(shaded_cloth(shade=(0.9, 1.0)), (1.5, 1.1, 0.75)), MARBLE_SETTINGS),  # flat
        (lamp(shaded_cloth(), (1.5, 1.1, 0.75)), replace(MARBLE_SETTINGS, tone_dev=(0, 0))),
        (np.zeros((40, 60, 3), np.uint8), MARBLE_SETTINGS),  # the cloth outside the photo
        (np.full((960, 1280, 3), 255, np.uint8), MARBLE_SETTINGS),  # all clipped
    ],
)
def test_cloth_tone_ones_where_it_cannot_tell(photo, settings):
    """A cloth that spans too little brightness, the setting off, a cloth outside the photo
    and a clipped one: exponents 1."""
    exps, _ = cloth_tone(settings, photo, AREA)
    assert exps.shape == (3,) and np.all(exps == 1.0)


def test_apply_tone_keeps_the_pivot_and_dtype():
    """The power per channel leaves each channel's pivot level where it was, keeps uint8
    and the shape, and bends darker levels the way the exponent says."""
    crops = np.stack([np.full((4, 8, 8, 3), v, np.uint8) for v in (40, 128, 200)], axis=1)
    exps = np.array([0.7, 1.0, 1.5], np.float32)
    out = apply_tone(crops, exps, np.array([128, 128, 128], np.float32))
    assert out.dtype == np.uint8 and out.shape == crops.shape
    assert np.all(out[:, 1] == 128)
    assert out[0, 0, 0, 0, 0] > 40 and out[0, 0, 0, 0, 1] == 40 and out[0, 0, 0, 0, 2] < 40
