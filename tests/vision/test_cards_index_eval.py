"""index_eval's animals (truth's `visible` read as teach_eval reads it) and the reader's
shared pieces it uses (`model_crop_settings`), and the Hop la bille card corners
(`_hop_corners`) that refine_poses and hop_plane_pose share."""

import json
from types import SimpleNamespace

import numpy as np
import pytest

POLY = [[50.0, 30.0], [110.0, 30.0], [110.0, 122.5], [50.0, 122.5]]


def _write(tmp_path, pieces):
    import cv2

    cv2.imwrite(str(tmp_path / "a.jpg"), np.full((160, 200, 3), 100, np.uint8))
    (tmp_path / "a.json").write_text(json.dumps({"pieces": pieces}))


def test_animals_leaves_out_an_unseen_animal_at_a_min_visible(tmp_path):
    from vision.cards.index_eval import animals

    _write(tmp_path, [{"label": "elephant-2", "polygon": POLY, "visible": 0.0},
                      {"label": "tootophant-4", "polygon": POLY},  # no `visible`: seen
                      {"label": "elephant-5", "polygon": POLY, "visible": 0.6}])
    [(jpg, polys, labels)] = list(animals(tmp_path, 0.5))
    assert jpg.name == "a.jpg" and polys.shape == (2, 4, 2)
    assert labels == ["tootophant-4", "elephant-5"]
    [(_, _, labels)] = list(animals(tmp_path))
    assert labels == ["elephant-2", "tootophant-4", "elephant-5"]


def test_model_crop_settings_reads_the_models_crop():
    from vision.cards.geometry import CardCropSettings
    from vision.cards.read import model_crop_settings

    m = SimpleNamespace(crop=SimpleNamespace(size=48, mean=(0.4, 0.5, 0.6), std=(0.2, 0.2, 0.3)))
    assert model_crop_settings(m) == CardCropSettings(size=48, mean=(0.4, 0.5, 0.6),
                                                      std=(0.2, 0.2, 0.3))


def test_hop_corners_is_a_60_by_90_mm_card_turned_along_u():
    from vision.cards.read import _hop_corners

    p, ppm = np.array([100.0, 200.0]), 2.0
    c = _hop_corners(p, np.array([1.0, 0.0]), ppm)
    assert np.allclose(c, [[40, 110], [160, 110], [160, 290], [40, 290]])
    t = np.deg2rad(30.0)
    c = _hop_corners(p, np.array([np.cos(t), np.sin(t)]), ppm)
    assert np.allclose(c.mean(axis=0), p)
    assert np.isclose(np.hypot(*(c[1] - c[0])), 120.0)
    assert np.isclose(np.hypot(*(c[2] - c[1])), 180.0)


@pytest.mark.parametrize("width, want", [
    (0.0, "under 45 px"), (44.9, "under 45 px"), (45.0, "45-60 px"), (59.99, "45-60 px"),
    (60.0, "60-80 px"), (79.9, "60-80 px"), (80.0, "80 px and over"), (300.0, "80 px and over"),
    (float("nan"), "under 45 px"),
])
def test_width_class_bins_a_cards_width(width, want):
    from vision.cards.index_eval import width_class

    assert width_class(width) == want


def test_by_width_lists_the_classes_narrowest_first_and_leaves_out_empty_ones():
    from collections import Counter

    from vision.cards.index_eval import by_width

    animals = Counter({"80 px and over": 4, "under 45 px": 3, "60-80 px": 2})
    wrong = Counter({"under 45 px": 2})
    assert list(by_width(animals, wrong).items()) == [
        ("under 45 px", "2/3"), ("60-80 px", "0/2"), ("80 px and over", "0/4")]
