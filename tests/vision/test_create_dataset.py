"""The classifier's dataset builder: one rendered scene per game goes through the pipeline's
own stages and yields crops labelled from the truth."""

import numpy as np
import pytest

from vision.classify.create_dataset import scene_crops
from vision.pipeline import VISION_GAMES
from vision.preprocess import CropSettings
from vision.synth import render_scene


@pytest.mark.parametrize("game", ["simsala-hopp", "hop-la-bille"])
def test_scene_crops_labels_every_true_piece(game):
    crop = CropSettings()
    img, truth = render_scene(game, 1_000_003, edition=1)
    crops, labels = scene_crops(game, img, truth, crop, np.random.default_rng(0))
    assert crops.shape[1:] == (crop.size, crop.size, 3) and crops.dtype == np.uint8
    assert len(crops) == len(labels)
    true_labels = [p["label"] for p in truth["pieces"]
                   if p["label"] in VISION_GAMES[game].labels]
    assert true_labels, "the scene has pieces of this game"
    # each true piece gives one jittered crop, and the segmenter's candidates matched to a
    # true piece take its label: every true label appears at least twice
    for lab in set(true_labels):
        assert labels.count(lab) >= 2 * true_labels.count(lab) - 1, lab
