"""The corner-index model at another crop side (session 19, H3): the trainer's
`--index-size`, the crops it cuts, and the reader's blurred-digit test, which stays on the
32-px crop its threshold was measured on whatever side the index model reads."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from vision.cards.dataset import SampleSettings, index_samples
from vision.cards.geometry import INDEX_SPEC, CardCropSettings, crop_card
from vision.cards.pieces import CardPiece
from vision.cards.read import READ, CardReader, index_sharpness, model_crop_settings

YELLOW, DARK = (20, 200, 250), (40, 30, 30)
POLY = np.array([[40.0, 30.0], [100.0, 30.0], [100.0, 122.5], [40.0, 122.5]])  # 60 px wide


def card_photo(ink, blur: float, seed: int = 0) -> np.ndarray:
    """(160, 160, 3) uint8 BGR: one upright card `POLY` on a grey table, a '5'-like digit of
    `ink` (1 px strokes, about 10 px tall) at its corner index, Gaussian-blurred with sigma
    `blur` px (0: sharp), a little seeded noise."""
    img = np.full((160, 160, 3), 100, np.uint8)
    img[30:123, 40:101] = (235, 245, 250)
    ox, oy = 46, 35  # the index at (0.17, 0.11) of the card: about (50, 40)
    for a, b in (((0, 0), (7, 0)), ((0, 0), (0, 5)), ((0, 5), (6, 5)), ((6, 5), (6, 10)),
                 ((6, 10), (0, 10))):
        cv2.line(img, (ox + a[0], oy + a[1]), (ox + b[0], oy + b[1]), ink, 1)
    if blur > 0:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    noise = np.random.default_rng(seed).normal(0, 1.5, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


def _reader(size: int) -> CardReader:
    """A `CardReader` whose only part is a stand-in index model reading `size`-px crops of
    `INDEX_SPEC`'s box (as a model's metadata tells the reader)."""
    r = CardReader.__new__(CardReader)
    r.index = SimpleNamespace(crop=CardCropSettings(size=size))
    r.index_spec, r.settings = INDEX_SPEC, READ
    return r


@pytest.mark.parametrize("size", [32, 48, 64])
@pytest.mark.parametrize("ink,kind,blur,legible", [
    (YELLOW, "tootophant", 0.0, True),
    (YELLOW, "tootophant", 1.5, True),   # soft strokes: 0.25 on the 32-px crop; a 48-px
    #   crop of the same box measures 0.18, a 64-px one 0.14 (per-pixel gradients)
    (YELLOW, "tootophant", 3.0, False),  # a blob
    (DARK, "elephant", 0.0, True),
    (DARK, "elephant", 3.0, False),
])
def test_blurred_numbers_whatever_the_index_models_crop_side(size, ink, kind, blur, legible):
    img = card_photo(ink, blur)
    p = CardPiece(f"{kind}-5", 0.9, np.array([50.0, 40.0]), POLY, 0.0, 60.0,
                  {f"{kind}-5": 1.0})
    got = _reader(size).blurred_numbers(img, [p])
    assert (id(p) not in got) == legible


def test_the_soft_digit_measures_softer_on_a_larger_crop():
    """Why `sharpness_size`: the case above at 1.5 px measured on a 48-px index model's own
    crop would be called a blob."""
    img = card_photo(YELLOW, 1.5)
    s32 = index_sharpness(crop_card(img, POLY, INDEX_SPEC, CardCropSettings(size=32)),
                          "tootophant")
    s48 = index_sharpness(crop_card(img, POLY, INDEX_SPEC, CardCropSettings(size=48)),
                          "tootophant")
    assert s32 >= READ.legible_sharpness > s48


@pytest.mark.parametrize("size", [32, 48])
def test_index_samples_at_the_crop_side(size):
    img = card_photo(DARK, 0.0)
    truth = {"pieces": [{"label": "elephant-5", "polygon": POLY.tolist(), "visible": 1.0}]}
    still = replace(SampleSettings(), index_jitter_key=0, index_jitter_angle=0,
                    index_jitter_width=0, index_tight_key=0, index_tight_angle=0,
                    index_tight_width=0, index_tail_angle=0)
    crop = CardCropSettings(size=size)
    crops, labels = index_samples(img, truth, np.random.default_rng(0), crop, still)
    assert crops.shape == (3, size, size, 3) and labels == ["5"] * 3
    assert np.abs(crops.astype(int) - crop_card(img, POLY, INDEX_SPEC, crop)).max() <= 1


@pytest.mark.parametrize("argv,size", [
    ([], 32),  # `INDEX_CROP`, as every model before
    (["--index-size", "48"], 48),
])
def test_train_index_size_argument(monkeypatch, argv, size):
    import vision.cards.train as train

    seen = {}
    monkeypatch.setattr(train, "train_index",
                        lambda n, w, cfg, out, crop: seen.update(crop=crop) or 0)
    assert train.main(["--index", "--out", "/nonexistent/x.onnx"] + argv) == 0
    assert seen["crop"] == replace(train.INDEX_CROP, size=size)


@pytest.mark.parametrize("size", [32, 48])
def test_reader_takes_the_crop_side_from_the_model(size):
    assert model_crop_settings(SimpleNamespace(crop=CardCropSettings(size=size))).size == size
