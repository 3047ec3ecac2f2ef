"""The committed ONNX models and a seconds-long smoke training run."""

import json

import numpy as np
import pytest

from scoring.labels import MARBLE_LABELS, SIMSALA_LABELS
from vision.area_model import AREA_MODEL_PATH, AreaModel
from vision.classify.model import _KEPT, PieceClassifier, keeping_rows
from vision.classify.settings import BACKGROUND, MODEL_PATH, all_classes
from vision.errors import ModelMissing
from vision.preprocess import CropSettings


def test_committed_classifier_metadata_and_outputs():
    assert MODEL_PATH.stat().st_size < 2 * 1024 * 1024
    clf = PieceClassifier(MODEL_PATH)
    assert set(clf.classes) >= {BACKGROUND, *SIMSALA_LABELS, *MARBLE_LABELS}
    assert clf.crop == CropSettings.from_metadata(json.loads(clf.metadata["crop"]))
    rng = np.random.default_rng(0)
    s = clf.crop.size
    crops = rng.integers(0, 255, (7, s, s, 3), dtype=np.uint8)
    pred = clf.predict(crops)
    assert pred.probs.shape == (7, len(clf.classes))
    assert np.allclose(pred.probs.sum(axis=1), 1, atol=1e-4)
    assert np.allclose(np.linalg.norm(pred.embedding, axis=1), 1, atol=1e-4)
    # one batch or one at a time: the same answer
    single = np.concatenate([clf.predict(crops[i : i + 1]).probs for i in range(7)])
    assert np.allclose(single, pred.probs, atol=1e-5)
    assert clf.predict(crops[:0]).probs.shape == (0, len(clf.classes))


def _counting(memo: bool, seed: int, n: int):
    """A classifier whose model runs are counted (crops per run), and n random crops."""
    clf = PieceClassifier(MODEL_PATH, threads=1, memo=memo)
    ran: list[int] = []
    first_run = clf._run
    clf._run = lambda crops: ran.append(len(crops)) or first_run(crops)
    s = clf.crop.size
    return clf, ran, np.random.default_rng(seed).integers(0, 255, (n, s, s, 3), dtype=np.uint8)


@pytest.mark.parametrize("memo, keep, run", [
    (True, True, [6, 3]),  # the second batch: only its 3 crops not read before run; the
    #                        third: none
    (True, False, [6, 5, 1]),  # outside `keeping_rows`: every crop runs
    (False, True, [6, 5, 1]),  # a classifier made without `memo` keeps nothing
])
def test_crops_read_again_take_their_kept_rows(memo, keep, run):
    clf, ran, crops = _counting(memo, 3, 9)
    want = PieceClassifier(MODEL_PATH, threads=1).predict(crops)

    def read():
        clf.predict(crops[:6])
        again = clf.predict(crops[[8, 0, 6, 7, 5]])  # 0 and 5 read before
        assert np.array_equal(again.probs, want.probs[[8, 0, 6, 7, 5]])
        assert np.array_equal(again.embedding, want.embedding[[8, 0, 6, 7, 5]])
        again.probs[:] = 0  # (the caller's own copy: the kept rows stay)
        assert np.array_equal(clf.predict(crops[:1]).probs, want.probs[:1])

    if keep:
        with keeping_rows():
            read()
    else:
        read()
    assert ran == run
    assert _KEPT.get() is None  # (nothing kept after it)


def test_keeping_rows_nested_keeps_its_own_and_gives_the_outer_back():
    clf, ran, crops = _counting(True, 4, 4)
    with keeping_rows():
        clf.predict(crops[:2])
        with keeping_rows():  # (`second_look`'s reading inside a photo's)
            clf.predict(crops[:1])  # not the outer one's rows: runs
            clf.predict(crops[2:])
        clf.predict(crops)  # the outer one's rows back; the inner one's gone
    assert ran == [2, 1, 2, 2]
    assert _KEPT.get() is None


def test_committed_area_model_runs():
    model = AreaModel(AREA_MODEL_PATH)
    assert set(model.games) == {"simsala-hopp", "hop-la-bille"}
    img = np.full((960, 1280, 3), 120, np.uint8)
    p = model.probability(img, "simsala-hopp", (320, 240))
    assert p.shape == (240, 320) and 0 <= p.min() <= p.max() <= 1
    p = model.probability(img.transpose(1, 0, 2).copy(), "hop-la-bille", (240, 320))
    assert p.shape == (320, 240)


def test_missing_model_is_named(tmp_path):
    with pytest.raises(ModelMissing, match="train it"):
        PieceClassifier(tmp_path / "none.onnx")


def test_smoke_training_writes_a_working_model(tmp_path):
    from vision.classify import train

    classes = all_classes()
    rng = np.random.default_rng(1)
    n = 260
    labels = np.array([classes[i % len(classes)] for i in range(n)])
    # each class its own flat colour, so even a few steps learn something
    colours = rng.integers(0, 255, (len(classes), 3))
    crops = np.stack([np.full((32, 32, 3), colours[i % len(classes)], np.uint8) for i in range(n)])
    data = tmp_path / "crops.npz"
    np.savez(data, crops=crops, labels=labels, scenes=np.arange(n) // 5)
    out = tmp_path / "m.onnx"
    assert train.main(["--crops", str(data), "--epochs", "1", "--out", str(out)]) == 0
    clf = PieceClassifier(out)
    assert clf.classes == classes
    assert out.with_suffix(".md").read_text().startswith("# Model card")
    assert clf.predict(crops[:4]).probs.shape == (4, len(classes))
