"""The card stage's shortcuts give the same numbers as the plain computations they replace."""

import cv2
import numpy as np
import pytest

from vision.cards.detect import DetectSettings, small_to_input, to_input
from vision.cards.geometry import mask_min_area_rect


@pytest.mark.parametrize("seed", range(20))
def test_mask_min_area_rect_equals_the_rectangle_of_all_pixels(seed):
    rng = np.random.default_rng(seed)
    mask = np.zeros((160, 200), np.uint8)
    box = cv2.boxPoints(((rng.uniform(60, 140), rng.uniform(50, 110)),
                         tuple(rng.uniform(20, 80, 2)), rng.uniform(0, 180)))
    cv2.fillPoly(mask, [np.round(box).astype(np.int32)], 1)
    for _ in range(4):  # holes, bites and a second blob
        centre = tuple(int(v) for v in rng.uniform(0, 160, 2))
        cv2.circle(mask, centre, int(rng.integers(2, 15)), int(rng.integers(0, 2)), -1)
    ys, xs = np.nonzero(mask)
    want = cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))
    assert mask_min_area_rect(mask) == want
    assert mask_min_area_rect(np.zeros((5, 5), np.uint8)) is None


@pytest.mark.parametrize("shape, settings", [
    ((96, 128), DetectSettings()),  # multiples of 8 after scaling: no padding
    ((95, 131), DetectSettings(mean=(0.2, 0.5, 0.9), std=(0.3, 0.1, 0.6))),  # padded; each
    #   channel its own mean and std (a swapped plane shows)
    ((120, 90), DetectSettings(scale=1.0, mean=(0.485, 0.456, 0.406),
                               std=(0.229, 0.224, 0.225))),  # unscaled
])
def test_detector_input_is_the_same_as_the_plain_normalisation(shape, settings):
    img = np.random.default_rng(1).integers(0, 256, (*shape, 3), dtype=np.uint8)
    small = cv2.resize(img, None, fx=settings.scale, fy=settings.scale,
                       interpolation=cv2.INTER_AREA)
    want = small_to_input(small, settings)
    got = to_input(img, settings)
    assert got.shape == want.shape and got.dtype == np.float32 and got.flags.c_contiguous
    assert got.tobytes() == want.tobytes()


def test_key_points_deep_inside_the_cloth_are_no_cards():
    from vision.area import AREA_SETTINGS, area_from_corners
    from vision.cards.read import cloth_depth_mm, snap_card

    corners = [[100.0, 100.0], [700.0, 100.0], [700.0, 700.0], [100.0, 700.0]]
    area = area_from_corners(corners, AREA_SETTINGS["hop-la-bille"])  # 600 mm, 1 px per mm
    depth = cloth_depth_mm(area, np.array([[400.0, 400.0], [400.0, 95.0], [100.0, 400.0]]))
    assert depth == pytest.approx([300.0, -5.0, 0.0], abs=1e-6)
    img = np.full((800, 800, 3), 128, np.uint8)
    img[300:400, 300:360] = 250  # a card-like patch, but on the cloth
    assert snap_card(img, area, area.to_plane(np.array([[400.0, 400.0]]))[0]) is None


@pytest.mark.parametrize("warning, scale, want", [
    # a photo read at its own size: unchanged
    ("the hat-3 at (100, 40): unsure", 1.0, "the hat-3 at (100, 40): unsure"),
    # a 2560 px photo read at 1280: positions doubled, like the pieces' centres
    ("the hat-3 at (100, 40): unsure", 2.0, "the hat-3 at (200, 80): unsure"),
    # no position in it
    ("3 cards seen at the north side", 2.0, "3 cards seen at the north side"),
])
def test_card_warnings_name_photo_pixels(warning, scale, want):
    from vision.cards.stage import photo_px_warnings

    assert photo_px_warnings([warning], scale) == [want]
