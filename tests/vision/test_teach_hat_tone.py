"""Magic Rabbit taught under a lamp (session 18, H8): the teach photos' crops are taken with
the lamp's tone curve off as scoring takes it off (`vision.teach_cards.hat_tone_off`), and a
taught reader reads the curve off the hats the untaught model reads (`tone_pieces`, used by
`vision.cards.stage.read_balanced`). Drawn tiles (tests/vision/test_cards_hat_tone.py),
stub readers and classifiers, seeded; no renderer, no model."""

from dataclasses import dataclass, replace

import numpy as np
import pytest

from tests.vision.test_cards_hat_tone import hats, tiles_photo
from tests.vision.test_cloth_tone import lamp
from vision.cards.geometry import CARD_CROP
from vision.cards.stage import HAT_TONE, hat_tone, power_about, read_balanced
from vision.classify.model import Prediction
from vision.teach_cards import TeachHatToneSettings, hat_tone_off, untaught_labels

HARSH = ((1.5, 1.1, 0.75), (0.8, 0.95, 1.1))  # teach_eval's harsh_light
GAIN_ONLY = ((1.0, 1.0, 1.0), (0.8, 0.95, 1.1))


@dataclass(frozen=True)
class StubSettings:
    glare_side: int = 0  # (no glare spots looked for)


class StubClassifier:
    """Names every crop `label` (probability 1)."""

    def __init__(self, label: str):
        self.classes = ("background", "hat-3", "rabbit-3", "magician")
        self.label, self.calls = label, 0

    def predict(self, crops):
        self.calls += 1
        probs = np.zeros((len(crops), len(self.classes)), np.float32)
        probs[:, self.classes.index(self.label)] = 1.0
        return Prediction(probs, np.zeros((len(crops), 4), np.float32))


class StubReader:
    """`read_pieces` returns `first` on the photo it is first given, `second` after; the
    photos it is given are recorded. `tone`: the labels `tone_pieces` gives (None: no
    `tone_pieces`, an untaught reader)."""

    def __init__(self, first, second, label="hat-3", tone=None):
        self.first, self.second, self.seen = first, second, []
        self.settings, self.crop_settings = StubSettings(), CARD_CROP
        self.classifier = StubClassifier(label)
        if tone is not None:
            self.tone_pieces = lambda image, pieces: hats([p.frame for p in pieces], tone)

    def read_pieces(self, image, game, area=None):
        self.seen.append(image)
        return list(self.first if len(self.seen) == 1 else self.second), [f"r{len(self.seen)}"]


@pytest.mark.parametrize("light, taught, tone, read_again", [
    (HARSH, "rabbit-3", "hat-3", True),  # the taught reading has no hats, the model's do
    (HARSH, "hat-3", "rabbit-3", False),  # the model reads no hats: no curve read off
    (HARSH, "hat-3", None, True),  # untaught: the reading's own hats
    (GAIN_ONLY, "rabbit-3", "hat-3", False),  # no curve: the taught first reading kept
])
def test_read_balanced_reads_the_curve_off_the_tone_pieces(light, taught, tone, read_again):
    photo, frames = tiles_photo(seed=11)
    lit = lamp(photo, *light)
    first, second = hats(frames, taught), hats(frames, "hat-5")
    reader = StubReader(first, second, tone=tone)
    image, pieces, warnings = read_balanced(reader, lit, "magic-rabbit")
    if read_again:
        assert len(reader.seen) == 2 and image is reader.seen[1] and image is not lit
        assert pieces == second and warnings == ["r2"]
    else:
        assert len(reader.seen) == 1 and image is lit
        assert pieces == first and warnings == ["r1"]  # (not the tone pieces)


@pytest.mark.parametrize("light, label, posed, curve", [
    (HARSH, "hat-3", 4, True),
    (HARSH, "rabbit-3", 4, True),  # no hat among them: the reader's whole read's hats
    (HARSH, "hat-3", 1, True),  # one piece posed: the reader's whole read
    (GAIN_ONLY, "hat-3", 4, False),
])
def test_teach_photo_has_the_curve_taken_off_as_scoring_does(light, label, posed, curve):
    photo, frames = tiles_photo(seed=12)
    lit = lamp(photo, *light)
    pieces = hats(frames[:posed], "magician")  # (posed: labelled by the classifier)
    reader = StubReader(hats(frames), [], label=label)
    out = hat_tone_off(reader, lit, pieces[1:], pieces[:1])
    whole = len(reader.seen) == 1
    assert whole == (label != "hat-3" or posed < HAT_TONE.min_hats)
    if not curve:
        assert out is lit
        return
    assert out is not lit
    used = hats(frames) if whole else hats(frames[:posed])
    assert np.array_equal(out, power_about(lit, hat_tone(lit, used), HAT_TONE.white))


@pytest.mark.parametrize("posed, min_hats, whole", [
    (1, 2, True),  # the chosen hat is among the posed ones: one hat, not two -> whole read
    (2, 2, False),
    (3, 2, False),  # its pixels once, not twice
    (1, 1, False),  # a teach setting of one hat: read off it alone
])
def test_teach_photo_counts_a_chosen_posed_piece_once(posed, min_hats, whole):
    """Session 18, H15: the chosen pieces are the same objects as posed ones (`tapped_pieces`
    poses them, `card_examples` passes both); a taught hat must count once."""
    photo, frames = tiles_photo(seed=14)
    lit = lamp(photo, *HARSH)
    pieces = hats(frames[:posed], "magician")
    reader = StubReader(hats(frames), [], label="hat-3")
    s = TeachHatToneSettings(min_hats=min_hats)
    out = hat_tone_off(reader, lit, pieces, pieces[:1], s)
    assert (len(reader.seen) == 1) == whole
    used = hats(frames) if whole else hats(frames[:posed])
    expect = power_about(lit, hat_tone(lit, used, replace(HAT_TONE, min_hats=min_hats)),
                         HAT_TONE.white)
    assert out is not lit and np.array_equal(out, expect)


def test_untaught_labels_names_each_framed_piece_by_the_model():
    photo, frames = tiles_photo(seed=13)
    reader = StubReader([], [], label="rabbit-3")
    pieces = hats(frames) + [hats(frames[:1])[0].__class__("dove", 0.9, frames[0].mean(0),
                                                           None, 0.0, 30.0)]
    out = untaught_labels(reader, photo, pieces)
    assert [p.label for p in out] == ["rabbit-3"] * len(frames)
    assert all(np.array_equal(a.frame, b.frame) for a, b in zip(out, pieces, strict=False))
    assert untaught_labels(reader, photo, pieces[-1:]) == []
    assert reader.classifier.calls == 1
