"""vision.preprocess.crops_to_input: the one network input of training and inference; its
table lookup must give the arithmetic's numbers bit for bit (the models were trained on
them)."""

import numpy as np
import pytest

from vision.preprocess import CropSettings, apply_gains, crops_to_input, light_gains


def _arithmetic(crops, s: CropSettings) -> np.ndarray:
    """crops_to_input as first written: float32 arithmetic over the whole array."""
    x = np.asarray(crops, np.float32)[..., ::-1] / 255.0
    x = (x - np.asarray(s.mean, np.float32)) / np.asarray(s.std, np.float32)
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


SETTINGS = [
    CropSettings(),  # the models' mean 0.5, std 0.25
    CropSettings(mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225)),  # ImageNet's
    CropSettings(mean=(0.1, 0.9, 0.3), std=(0.7, 0.05, 1.3)),  # each channel its own
    CropSettings(mean=(0.4,), std=(0.3,)),  # one value for all three (broadcast)
]


@pytest.mark.parametrize("s", SETTINGS)
def test_every_level_every_channel(s):
    # each channel sees all 256 levels, at different places per channel
    levels = np.arange(256, dtype=np.uint8)
    crops = np.stack([levels, np.roll(levels, 85), levels[::-1]], -1).reshape(4, 8, 8, 3)
    got = crops_to_input(crops, s)
    assert got.shape == (4, 3, 8, 8) and got.dtype == np.float32 and got.flags.c_contiguous
    assert got.tobytes() == _arithmetic(crops, s).tobytes()
    # RGB planes: plane 0 is the crops' last (red) channel
    want_red = (levels[::-1].astype(np.float32) / 255.0 - np.float32(s.mean[0])) \
        / np.float32(s.std[0])
    assert got[:, 0].tobytes() == want_red.tobytes()


@pytest.mark.parametrize("make", [
    lambda a: a,  # contiguous
    lambda a: a[:, 2:-2, 1:-3],  # a window of larger crops (not contiguous)
    lambda a: a[::-1, :, ::-1],  # reversed views
    lambda a: a[:0],  # no crop
    lambda a: a.astype(np.float32),  # float crops: the arithmetic itself
])
def test_views_and_types(make):
    a = make(np.random.default_rng(7).integers(0, 256, (5, 12, 12, 3), dtype=np.uint8))
    got = crops_to_input(a)
    assert got.shape == (len(a), 3) + a.shape[1:3] and got.dtype == np.float32
    assert got.tobytes() == _arithmetic(a, CropSettings()).tobytes()


def _numpy_gains(image, strength):
    """light_gains as first written: numpy's power and mean over the whole sample."""
    px = image[::4, ::4].reshape(-1, 3).astype(np.float32) / 255.0
    ref = np.mean(px ** 6, axis=0) ** (1 / 6)
    gains = ref.max() / np.maximum(ref, 1e-3)
    return (gains ** strength).astype(np.float32)


@pytest.mark.parametrize("shape, strength", [
    ((960, 1280), 0.5),  # a photo's size: 76 800 sampled pixels
    ((37, 53), 1.0),  # sizes not a multiple of 4
    ((4, 4), 0.3),  # one sampled pixel
])
def test_light_gains_same_bits(shape, strength):
    rng = np.random.default_rng(11)
    img = rng.integers(0, 256, (*shape, 3), dtype=np.uint8)
    img[..., 0] //= 3  # a colour cast: gains other than 1
    got = light_gains(img, strength)
    assert got.dtype == np.float32 and got.tobytes() == _numpy_gains(img, strength).tobytes()
    assert got[0] > 1.0  # the weak blue channel is lifted


def test_light_gains_every_level():
    levels = np.arange(256, dtype=np.uint8)
    img = np.stack([levels, levels[::-1], np.roll(levels, 99)], -1)[None].repeat(4, 0)
    img = np.repeat(img, 4, axis=1)  # every level sampled once per channel
    assert light_gains(img, 1.0).tobytes() == _numpy_gains(img, 1.0).tobytes()
    assert np.array_equal(light_gains(img, 0.0), np.ones(3, np.float32))


@pytest.mark.parametrize("shape, gains", [
    ((48, 64, 3), np.float32([1.4, 1.0, 0.8])),  # a photo, float32 gains (light_gains)
    ((5, 32, 32, 3), np.float32([2.3, 1.1, 1.0])),  # a stack of crops; products over 255
    ((48, 64, 3), np.array([1.25, 0.9, 1.7])),  # float64 gains: numpy's float64 product
])
def test_apply_gains_looks_up_the_same_numbers(shape, gains):
    img = np.random.default_rng(3).integers(0, 256, shape, dtype=np.uint8)
    want = np.clip(img.astype(np.float32) * gains, 0, 255).astype(np.uint8)
    got = apply_gains(img, gains)
    assert got.dtype == np.uint8 and got.shape == img.shape
    assert np.array_equal(got, want)
    view = img[:, ::2] if img.ndim == 3 else img[:, :, ::2]  # not contiguous
    assert np.array_equal(apply_gains(view, gains),
                          np.clip(view.astype(np.float32) * gains, 0, 255).astype(np.uint8))


@pytest.mark.parametrize("shape", [(48, 64, 3), (5, 12, 12, 3), (7, 3)])
@pytest.mark.parametrize("exps", [(0.74, 1.01, 1.45), (1.3, 1.0, 0.8)])
def test_apply_tone_the_same_levels_for_a_photo_and_for_crops(shape, exps):
    """A photo (H, W, 3) goes through cv2's look-up, crops (N, S, S, 3) through numpy's: the
    same levels per channel for the same pixels, whatever the shape."""
    from vision.preprocess import apply_tone

    rng = np.random.default_rng(5)
    img = rng.integers(0, 256, shape, dtype=np.uint8)
    exps = np.asarray(exps, np.float32)
    pivots = np.asarray((255.0, 200.0, 128.0), np.float32)
    out = apply_tone(img, exps, pivots)
    x = img.astype(np.float64)
    want = np.round(np.clip(pivots * (x / pivots) ** exps, 0, 255))
    assert out.shape == img.shape and out.dtype == np.uint8
    assert np.abs(out.astype(int) - want).max() <= 1
    flat = apply_tone(img.reshape(-1, 3)[None], exps, pivots).reshape(shape)
    assert np.array_equal(out, flat)


@pytest.mark.parametrize("white", [255.0, 240.0])
@pytest.mark.parametrize("seed", range(6))
def test_power_about_is_apply_tone_about_white(seed, white):
    """`power_about` (Magic Rabbit's hats, Hop la bille's cloth, Simsala Hopp's table curve)
    built its own table per channel; it is `apply_tone` with every pivot at `white` now: the same
    levels as that table, for float64 exponents too, and the photo itself for ones."""
    import cv2

    from vision.preprocess import power_about

    rng = np.random.default_rng(seed)
    img = rng.integers(0, 256, (40, 56, 3), dtype=np.uint8)
    exps = rng.uniform(0.5, 2.0, 3)  # (float64)
    x = np.arange(256, dtype=np.float32)[:, None] / np.float32(white)  # (the former table)
    lut = np.clip(np.float32(white) * x ** exps.astype(np.float32), 0, 255)
    want = cv2.LUT(img, np.round(lut).astype(np.uint8).reshape(256, 1, 3))
    assert np.array_equal(power_about(img, exps, white), want)
    assert power_about(img, np.ones(3), white) is img
