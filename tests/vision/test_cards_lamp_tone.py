"""`vision.cards.stage.lamp_tone_off`: a lamp's per-channel tone curve, read off the cloth's
own shading, taken off the photo Hop la bille's cards are read on, as a power per channel
about white (drawn here, seeded; no renderer, no model)."""

from dataclasses import replace

import numpy as np
import pytest

from tests.vision.test_cloth_tone import AREA, chroma_spread, lamp, shaded_cloth
from vision.cards.stage import LAMP_TONE, lamp_tone_off
from vision.preprocess import apply_tone
from vision.segment import MARBLE_SETTINGS, cloth_tone


def with_cards(photo: np.ndarray) -> np.ndarray:
    """`photo` with a white card (255) and a blue card's frame (200, 120, 40 BGR) on the
    table beside the cloth, the blue one lit in two halves (full and a third)."""
    out = photo.copy()
    out[100:250, 1080:1180] = 255
    out[400:550, 1080:1180] = (200, 120, 40)
    out[475:550, 1080:1180] = (67, 40, 13)
    return out


def ratio_spread(image: np.ndarray) -> float:
    """How much the blue card's log B/R differs between its lit and its dark half."""
    top = image[410:465, 1090:1170].reshape(-1, 3).astype(np.float32).mean(axis=0)
    bottom = image[485:540, 1090:1170].reshape(-1, 3).astype(np.float32).mean(axis=0)
    return abs(np.log(top[0] / top[2]) - np.log(bottom[0] / bottom[2]))


@pytest.mark.parametrize(
    "cloth, gamma, gain, seed",
    [
        ((200, 215, 225), (1.5, 1.1, 0.75), (0.8, 0.95, 1.1), 0),  # light_eval's harsh lamp
        ((150, 215, 200), (1.5, 1.1, 0.75), (0.8, 0.95, 1.1), 1),  # a green cloth, same lamp
        ((200, 215, 225), (0.75, 1.0, 1.4), (1.0, 0.95, 0.85), 2),  # a cold harsh lamp
    ],
)
def test_lamp_tone_off_takes_the_cloths_curve_off_about_white(cloth, gamma, gain, seed):
    """The cloth's curve taken off the whole photo: the cloth and a card beside it are one
    colour again from their light to their dark part, a channel at white stays at white,
    and the numbers are `apply_tone`'s with every pivot at 255."""
    photo = lamp(with_cards(shaded_cloth(cloth, seed=seed)), gamma, gain)
    out = lamp_tone_off(photo, AREA)
    assert out.shape == photo.shape and out.dtype == np.uint8
    assert chroma_spread(out) < 0.3 * chroma_spread(photo)
    assert ratio_spread(out) < 0.3 * ratio_spread(photo), (ratio_spread(photo),
                                                           ratio_spread(out))
    white = photo[100:250, 1080:1180] == 255
    assert white.any() and np.all(out[100:250, 1080:1180][white] == 255)
    exps, _ = cloth_tone(MARBLE_SETTINGS, photo, AREA)
    assert np.array_equal(out, apply_tone(photo, exps, np.full(3, 255, np.float32)))


@pytest.mark.parametrize(
    "gain",
    [(1.0, 1.0, 1.0), (0.55, 0.8, 1.0), (1.0, 0.78, 0.55)],  # none, warm, daylight
)
def test_lamp_tone_off_leaves_a_gain_only_light_alone(gain):
    """A light that only scales each channel bends nothing: the photo comes back itself."""
    from vision.light_eval import in_linear

    photo = in_linear(with_cards(shaded_cloth(seed=3)), np.asarray(gain, np.float32))
    assert lamp_tone_off(photo, AREA) is photo


def test_lamp_tone_off_setting_off_and_a_clothless_area():
    """Off, or a cloth that lies outside the photo: the photo itself."""
    photo = lamp(with_cards(shaded_cloth(seed=4)), (1.5, 1.1, 0.75), (0.8, 0.95, 1.1))
    assert lamp_tone_off(photo, AREA, replace(LAMP_TONE, on=False)) is photo
    small = photo[:60, :60].copy()
    assert lamp_tone_off(small, AREA) is small
