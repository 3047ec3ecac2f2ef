"""A second corner-index model as a second opinion (session 20, H3; not kept in the reader):
`index_eval`'s `IndexModels` (the models read as one, P(index) averaged where the first is
unsure) and the trainer's hard-digit augmentation (`HardDigits`, `--hard-digits`)."""

from __future__ import annotations

import json
from dataclasses import asdict, replace

import numpy as np
import pytest

from tablescore.errors import BadInput
from vision.cards.geometry import INDEX_SPEC
from vision.cards.index_eval import IndexModels
from vision.cards.train import HardDigits, hard_digits, motion_kernel
from vision.classify.model import Prediction
from vision.preprocess import CropSettings

CLASSES = ("1", "2", "3", "4", "5", "none")


class FakeIndex:
    """A stand-in index model: each crop's probabilities are the row of `table` its first
    pixel's blue value names; it counts the crops it was asked for."""

    def __init__(self, table, crop=None, spec=INDEX_SPEC, classes=CLASSES):
        self.table = np.asarray(table, np.float32)
        self.classes, self.asked = classes, 0
        self.crop = crop or CropSettings(size=32)
        self.metadata = {"specs": json.dumps({"troetofanten-index": asdict(spec)})}

    def index(self, label: str) -> int:
        return self.classes.index(label)

    def predict(self, crops):
        self.asked += len(crops)
        rows = self.table[crops[:, 0, 0, 0].astype(int)]
        return Prediction(rows, np.zeros((len(crops), 2), np.float32))


def crops_of(rows) -> np.ndarray:
    """(N, 4, 4, 3) uint8 crops whose first pixel's blue value is each of `rows`."""
    c = np.zeros((len(rows), 4, 4, 3), np.uint8)
    c[:, 0, 0, 0] = rows
    return c


SURE = [0.9, 0.02, 0.02, 0.02, 0.02, 0.02]     # a "1", share 0.9
UNSURE = [0.45, 0.4, 0.05, 0.04, 0.03, 0.03]   # a "1" just ahead of a "2"
OTHER = [0.1, 0.8, 0.04, 0.02, 0.02, 0.02]     # the second model: a "2"


@pytest.mark.parametrize("below,rows,asked,want", [
    (1.01, [0, 1], 2, [(np.array(SURE) + OTHER) / 2, (np.array(UNSURE) + OTHER) / 2]),
    (0.8, [0, 1], 1, [SURE, (np.array(UNSURE) + OTHER) / 2]),  # the sure one: the first alone
    (0.8, [0, 0], 0, [SURE, SURE]),
    (0.3, [1], 0, [UNSURE]),
])
def test_index_models_average_where_the_first_is_unsure(below, rows, asked, want):
    first, second = FakeIndex([SURE, UNSURE]), FakeIndex([OTHER, OTHER])
    m = IndexModels([first, second], below)
    got = m.predict(crops_of(rows)).probs
    assert np.allclose(got, np.array(want, np.float32), atol=1e-6)
    assert second.asked == asked and first.asked == len(rows)
    assert m.classes == CLASSES and m.index("5") == 4 and m.crop == first.crop


def test_index_models_one_model_and_no_crops_as_the_first_reads():
    first = FakeIndex([UNSURE])
    assert np.array_equal(IndexModels([first]).predict(crops_of([0])).probs,
                          first.predict(crops_of([0])).probs)
    empty = IndexModels([first, FakeIndex([OTHER])]).predict(crops_of([]))
    assert empty.probs.shape[0] == 0


@pytest.mark.parametrize("second", [
    FakeIndex([OTHER], crop=CropSettings(size=48)),
    FakeIndex([OTHER], spec=replace(INDEX_SPEC, crop_u=(-0.04, 0.5))),
    FakeIndex([OTHER[:5]], classes=CLASSES[:5]),
])
def test_index_models_refuse_a_second_opinion_cut_otherwise(second):
    with pytest.raises(BadInput):
        IndexModels([FakeIndex([SURE]), second])
    with pytest.raises(BadInput):
        IndexModels([])


def test_hard_digits_off_draws_nothing_and_changes_nothing():
    x = np.random.default_rng(0).integers(0, 255, (6, 32, 32, 3), dtype=np.uint8)
    rng = np.random.default_rng(1)
    assert np.array_equal(hard_digits(x, rng, HardDigits()), x)
    assert rng.random() == np.random.default_rng(1).random()


def _digit_crops(n: int, side: int = 32) -> np.ndarray:
    """(n, side, side, 3) uint8: a dark bar on white, crop k's bar at its own column."""
    x = np.full((n, side, side, 3), 240, np.uint8)
    for k in range(n):
        c = 4 + (3 * k) % (side // 3)
        x[k, 4: side // 2, c: c + 3] = 30
    return x


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("kind", ["defocus", "motion"])
def test_hard_digits_blurs_soften_the_digit_keep_its_ink(kind, seed):
    x = _digit_crops(8)
    y = hard_digits(x, np.random.default_rng(seed), HardDigits(**{f"{kind}_share": 1.0}))
    assert y.shape == x.shape and y.dtype == np.uint8
    for k in range(len(x)):
        assert abs(float(y[k].mean()) - float(x[k].mean())) < 6.0
        def energy(a):  # the gradient's energy: any blur lowers it, whatever its direction
            a = a[:, :, 0].astype(float)
            return (np.diff(a, axis=0) ** 2).sum() + (np.diff(a, axis=1) ** 2).sum()
        assert energy(y[k]) < 0.9 * energy(x[k])


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_hard_digits_cover_takes_another_crops_pixels_beyond_a_line(seed):
    s = HardDigits(cover_share=1.0)
    x = np.random.default_rng(10 + seed).integers(0, 255, (6, 32, 32, 3), dtype=np.uint8)
    y = hard_digits(x, np.random.default_rng(seed), s)
    for k in range(len(x)):
        covered = (y[k] != x[k]).any(axis=2)
        assert s.cover_area[0] - 0.03 <= covered.mean() <= s.cover_area[1] + 0.03
        assert any((y[k][covered] == x[j][covered]).all() for j in range(len(x)) if j != k)
        assert not covered[:8, :8].any()  # the top-left (the digit's) corner stays


@pytest.mark.parametrize("length,angle", [(3.0, 0.0), (5.0, 45.0), (9.0, 100.0), (4.5, 170.0)])
def test_motion_kernel_a_normalised_line(length, angle):
    k = motion_kernel(length, angle)
    assert k.shape[0] == k.shape[1] and k.shape[0] % 2 == 1
    assert abs(float(k.sum()) - 1.0) < 1e-6 and (k > 0).sum() >= int(length / 1.5)
    assert np.allclose(k, k[::-1, ::-1])  # symmetric about the centre


@pytest.mark.parametrize("argv,hard,seed,data_seed", [
    (["--index"], 0.0, 0, 0),  # the committed model's training as before
    (["--index", "--hard-digits", "0.2", "--seed", "1", "--data-seed", "2"], 0.2, 1, 2),
])
def test_train_cli_hard_digits_and_seed(monkeypatch, argv, hard, seed, data_seed):
    import vision.cards.train as tr

    got = {}
    monkeypatch.setattr(tr, "train_index", lambda n, w, cfg, out, crop: got.update(cfg=cfg)
                        or 0)
    assert tr.main(argv) == 0
    cfg = got["cfg"]
    assert (cfg.hard, cfg.seed, cfg.data_seed) == (hard, seed, data_seed)
