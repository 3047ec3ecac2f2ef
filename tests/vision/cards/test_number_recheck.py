"""`CardReader.troeto_numbers`: an animal's unsure corner number read again at 4 poses
shifted a little, the 5 readings averaged (`number_jitter`, `number_recheck`). A stand-in
index model reads the first crops as 3 (0.55 against 2's 0.45), those read again as 2."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from vision.cards.geometry import INDEX_SPEC, SPECS
from vision.cards.read import READ, TROETO_LABELS, CardReader, card_frame
from vision.classify.model import Prediction

NUMS = ("1", "2", "3", "4", "5")


class Index:
    """The first call's crops read 0.45 for 2 and 0.55 for 3 (unsure), later calls' 0.95
    for 2; `calls`: the number of crops of each call."""

    crop = SimpleNamespace(size=16, mean=(0.0, 0.0, 0.0), std=(1.0, 1.0, 1.0))
    metadata: dict = {}

    def __init__(self):
        self.calls = []

    def index(self, n):
        return NUMS.index(n)

    def predict(self, crops):
        p2 = 0.45 if not self.calls else 0.95
        self.calls.append(len(crops))
        p = np.zeros((len(crops), 5), np.float32)
        p[:, 1], p[:, 2] = p2, 1.0 - p2
        return Prediction(p, np.zeros((len(crops), 1), np.float32))


def reader(jitter: float) -> CardReader:
    r = CardReader.__new__(CardReader)
    r.settings = replace(READ, number_jitter=jitter)
    r.index = Index()
    r.index_spec = INDEX_SPEC
    return r


@pytest.mark.parametrize("jitter,kind_p,more_crops", [
    (0.0, 0.9, 0),  # off: one reading
    (0.04, 0.9, 4),  # an elephant's unsure number: 4 more crops, averaged with the first
    (0.04, 0.1, 0),  # a crop that is no animal (a back): not read again
])
def test_unsure_number_read_again(jitter, kind_p, more_crops):
    frame = card_frame(np.array([100.0, 100.0]), 0.0, 40.0, SPECS["troetofanten"].aspect)
    img = np.full((200, 200, 3), 128, np.uint8)
    probs = np.zeros((1, len(TROETO_LABELS)), np.float32)
    probs[0, TROETO_LABELS.index("elephant-2")] = kind_p
    probs[0, TROETO_LABELS.index("back")] = 1.0 - kind_p
    r = reader(jitter)
    out = r.troeto_numbers(img, [frame], probs, TROETO_LABELS)
    assert r.index.calls == [1] + ([more_crops] if more_crops else [])
    e2, e3 = (out[0, TROETO_LABELS.index(f"elephant-{n}")] for n in (2, 3))
    want = (0.45 + 4 * 0.95) / 5 if more_crops else 0.45  # P(index 2)
    assert e2 == pytest.approx(kind_p * want, rel=1e-4)
    assert e2 + e3 == pytest.approx(kind_p, rel=1e-4)
