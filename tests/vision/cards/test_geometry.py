"""vision.cards.geometry: the crop box and the pose's frame give the same numbers as the
one-piece formulas they replace (the classifiers were trained on those crops)."""

from dataclasses import replace

import numpy as np
import pytest

from vision.cards.geometry import (
    CARD_CROP,
    INDEX_SPEC,
    SPECS,
    card_uv_point,
    crop_box,
    crop_card,
    crop_cards,
    frame_from_pose,
)


def _photo(seed=0, shape=(90, 120, 3)):
    """A small random photo with some smooth structure (a gradient under the noise)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[: shape[0], : shape[1]]
    base = (xx[..., None] * np.array([2, 1, 0]) + yy[..., None] * np.array([0, 1, 2])) % 256
    return np.clip(base + rng.integers(-40, 40, shape), 0, 255).astype(np.uint8)


def _numpy_frame(key, angle_deg, width, spec):
    """frame_from_pose as first written, with numpy arrays at every step."""
    t = np.deg2rad(angle_deg)
    ex = np.array([np.cos(t), np.sin(t)]) * width
    ey = np.array([-np.sin(t), np.cos(t)]) * width * spec.aspect
    tl = np.asarray(key, float) - spec.key_uv[0] * ex - spec.key_uv[1] * ey
    return np.array([tl, tl + ex, tl + ex + ey, tl + ey])


@pytest.mark.parametrize("cast", [
    float,  # Python floats: the fast path
    np.float64,  # a numpy float64 is a float: the fast path
    np.float32,  # float32 angle and width: numpy's own type rules
])
def test_frame_from_pose_same_bits(cast):
    rng = np.random.default_rng(1)
    for game, spec in SPECS.items():
        for _ in range(50):
            key = rng.uniform(-20, 800, 2)
            a, w = cast(rng.uniform(-360, 360)), cast(rng.uniform(2, 300))
            got, want = frame_from_pose(key, a, w, spec), _numpy_frame(key, a, w, spec)
            assert got.dtype == want.dtype == np.float64, game
            assert got.tobytes() == want.tobytes(), (game, key, a, w)


def test_crop_box_is_card_uv_point():
    rng = np.random.default_rng(2)
    frames = rng.uniform(0, 500, (7, 4, 2))  # any quadrilaterals, not only parallelograms
    for spec in (*SPECS.values(), INDEX_SPEC):
        (u0, u1), (v0, v1) = spec.crop_u, spec.crop_v
        got = crop_box(frames, spec)
        assert got.shape == (7, 4, 2) and got.dtype == np.float32
        for f, box in zip(frames, got, strict=True):
            want = np.float32([card_uv_point(f, u0, v0), card_uv_point(f, u1, v0),
                               card_uv_point(f, u1, v1), card_uv_point(f, u0, v1)])
            assert box.tobytes() == want.tobytes()


def test_crop_card_reads_the_box():
    """The crop shows the box: a piece drawn axis-aligned, cropped with a box of exactly
    its own corners, fills the crop (the other tests only compare the functions)."""
    image = np.zeros((100, 100, 3), np.uint8)
    image[20:60, 30:70] = (0, 0, 255)  # a red 40 x 40 square
    spec = replace(SPECS["magic-rabbit"], crop_u=(0.0, 1.0), crop_v=(0.0, 1.0))
    frame = np.array([[29.5, 19.5], [69.5, 19.5], [69.5, 59.5], [29.5, 59.5]])
    crop = crop_card(image, frame, spec)
    assert (crop[2:-2, 2:-2] == (0, 0, 255)).all()


@pytest.mark.parametrize("spec, crop, count", [
    (SPECS["troetofanten"], CARD_CROP, 40),  # the card classifier's crops
    (INDEX_SPEC, replace(CARD_CROP, size=24), 7),  # the corner index, another size
    (SPECS["hop-la-bille"], replace(CARD_CROP, size=17, oversample=3), 5),  # odd sizes
    (SPECS["magic-rabbit"], CARD_CROP, 0),  # none
])
def test_crop_cards_are_crop_card_one_by_one(spec, crop, count):
    rng = np.random.default_rng(7)
    image = _photo(3, (200, 260, 3))
    frames = [frame_from_pose(rng.uniform(-20, 280, 2), rng.uniform(-180, 180),
                              rng.uniform(8, 150), spec) for _ in range(count)]
    want = np.stack([crop_card(image, f, spec, crop) for f in frames]) if count else \
        np.zeros((0, crop.size, crop.size, 3), np.uint8)
    got = crop_cards(image, frames, spec, crop)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert np.array_equal(got, want)
