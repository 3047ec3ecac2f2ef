"""vision.cards.detect.to_input: the detector's input from the photo, bit for bit what the
training's `small_to_input` makes of the scaled photo, for any channel settings."""

import cv2
import numpy as np
import pytest

from vision.cards.detect import DetectSettings, small_to_input, to_input


@pytest.mark.parametrize("shape, settings", [
    ((96, 128), DetectSettings()),  # multiples of 8 after scaling: no padding
    ((95, 131), DetectSettings(mean=(0.2, 0.5, 0.9), std=(0.3, 0.1, 0.6))),  # padded; each
    #   channel its own mean and std (a swapped plane shows)
    ((40, 30), DetectSettings(scale=1.0, mean=(0.485, 0.456, 0.406),
                              std=(0.229, 0.224, 0.225))),  # unscaled, padded
])
def test_to_input_same_bits_as_small_to_input(shape, settings):
    img = np.random.default_rng(3).integers(0, 256, (*shape, 3), dtype=np.uint8)
    small = cv2.resize(img, None, fx=settings.scale, fy=settings.scale,
                       interpolation=cv2.INTER_AREA)
    want = small_to_input(small, settings)
    got = to_input(img, settings)
    assert got.shape == want.shape and got.dtype == np.float32 and got.flags.c_contiguous
    assert got.tobytes() == want.tobytes()
