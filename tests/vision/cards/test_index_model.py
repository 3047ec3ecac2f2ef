"""The Troetofanten corner-index model's data, augmentation, training and true-pose check."""

import json
from dataclasses import replace

import numpy as np
import pytest

from vision.cards.dataset import SampleSettings, index_label, index_samples
from vision.cards.geometry import INDEX_SPEC, SPECS, crop_card, pose_from_frame
from vision.cards.train import (
    INDEX_CROP,
    LightJitter,
    ResolutionJitter,
    index_augment,
    light_jitter,
    resolution_jitter,
)


@pytest.mark.parametrize("label, want", [
    ("elephant-1", "1"),
    ("elephant-5", "5"),
    ("tootophant-2", "2"),
    ("mouse", "none"),  # special cards carry a symbol, no number
    ("back", "none"),
])
def test_index_label(label, want):
    assert index_label(label) == want


def _scene(seed=0):
    """A tiny photo with one upright card (a dark square where its index is) and its truth."""
    rng = np.random.default_rng(seed)
    img = rng.integers(90, 110, (160, 200, 3), dtype=np.uint8)
    poly = np.array([[50.0, 30.0], [110.0, 30.0], [110.0, 122.5], [50.0, 122.5]])
    img[33:47, 55:66] = 20
    truth = {"pieces": [{"label": "tootophant-4", "polygon": poly.tolist(), "visible": 1.0}]}
    return img, truth, poly


def test_index_samples_two_crops_per_card_at_the_true_pose_without_jitter():
    img, truth, poly = _scene()
    still = replace(SampleSettings(), index_jitter_key=0, index_jitter_angle=0,
                    index_jitter_width=0, index_tight_key=0, index_tight_angle=0,
                    index_tight_width=0)
    crops, labels = index_samples(img, truth, np.random.default_rng(0), INDEX_CROP, still)
    assert labels == ["4", "4"]
    assert crops.shape == (2, INDEX_CROP.size, INDEX_CROP.size, 3) and crops.dtype == np.uint8
    want = crop_card(img, poly, INDEX_SPEC, INDEX_CROP)
    key, _, _ = pose_from_frame(poly, SPECS["troetofanten"])  # the frame survives the round trip
    assert np.allclose(key, poly[0] + [0.17 * 60, 0.11 * 92.5])
    assert np.abs(crops.astype(int) - want).max() <= 1
    assert np.array_equal(crops[0], crops[1])


def test_index_samples_first_crop_is_the_tighter_one():
    img, truth, poly = _scene()
    want = crop_card(img, poly, INDEX_SPEC, INDEX_CROP).astype(float)
    d = np.zeros(2)
    for seed in range(40):
        crops, _ = index_samples(img, truth, np.random.default_rng(seed), INDEX_CROP)
        d += np.abs(crops.astype(float) - want).mean(axis=(1, 2, 3))
    assert d[0] < d[1]


@pytest.mark.parametrize("s, changed", [
    (LightJitter(share=0.0), False),  # no crop drawn
    (LightJitter(share=1.0, gamma_sd=0.0, gain_sd=0.0), False),  # gamma 1, gain 1
    (LightJitter(share=1.0), True),
])
def test_light_jitter(s, changed):
    x = np.random.default_rng(3).integers(0, 256, (6, 8, 8, 3), dtype=np.uint8)
    y = light_jitter(x, np.random.default_rng(4), s)
    assert y.shape == x.shape and y.dtype == np.uint8
    # the uint8 round trip of gamma 1 may move a level by one
    assert (np.abs(y.astype(int) - x).max() > 2) == changed


@pytest.mark.parametrize("s, changed", [
    (ResolutionJitter(share=0.0), 0),  # no crop drawn
    (ResolutionJitter(share=1.0, scale=(1.0, 1.0)), 0),  # down to the same side: a copy
    (ResolutionJitter(share=1.0, scale=(0.4, 0.5)), 5),  # every crop loses its fine detail
])
def test_resolution_jitter(s, changed):
    x = np.random.default_rng(3).integers(0, 256, (5, 32, 32, 3), dtype=np.uint8)
    y = resolution_jitter(x, np.random.default_rng(4), s)
    assert y.shape == x.shape and y.dtype == np.uint8
    assert sum(not np.array_equal(a, b) for a, b in zip(x, y, strict=True)) == changed
    # the random pixels' contrast drops where they were averaged
    assert all(b.std() < a.std() * 0.8 for a, b in zip(x, y, strict=True)
               if not np.array_equal(a, b))


def test_index_augment_is_seeded_and_keeps_the_crops_shape():
    x = np.random.default_rng(5).integers(0, 256, (4, 32, 32, 3), dtype=np.uint8)
    a = index_augment(x, np.random.default_rng(9))
    b = index_augment(x, np.random.default_rng(9))
    assert a.shape == x.shape and a.dtype == np.uint8 and np.array_equal(a, b)
    assert not np.array_equal(a, x)


def test_index_eval_counts_every_animal_at_its_true_outline(tmp_path, capsys):
    import cv2

    from vision.cards.index_eval import main

    img, truth, poly = _scene()
    truth["pieces"] += [{"label": "elephant-2", "polygon": (poly + [70, 0]).tolist()},
                        {"label": "lasso", "polygon": (poly + [0, 30]).tolist()}]
    cv2.imwrite(str(tmp_path / "a.jpg"), img)
    (tmp_path / "a.json").write_text(json.dumps(truth))
    assert main([str(tmp_path), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["models/cards-index.onnx"]
    assert got["all"]["animals"] == 2  # the lasso has no number
    assert 0 <= got["all"]["wrong"] <= 2


@pytest.mark.slow
def test_train_index_writes_a_model_the_reader_crops_for(tmp_path):
    from vision.cards.read import index_spec
    from vision.cards.train import IndexTrain, train_index
    from vision.classify.model import PieceClassifier

    out = tmp_path / "idx.onnx"
    assert train_index(3, 1, replace(IndexTrain(), time_limit_s=2.0), out) == 0
    m = PieceClassifier(out, 1)
    assert m.crop.size == INDEX_CROP.size
    assert tuple(m.classes) == ("1", "2", "3", "4", "5", "none")
    assert index_spec(m) == INDEX_SPEC
    assert "data + training" in out.with_suffix(".md").read_text()
