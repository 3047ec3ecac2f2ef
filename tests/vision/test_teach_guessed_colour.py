"""A Magic Rabbit teach crop cut at a guessed pose (a tap on a weak key point, posed like its
nearest posed neighbour) and the number's colour (session 19, H2; docs/teach.md "Magic
Rabbit taught under a harsh lamp, blue against purple")."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

import vision.teach_cards as tc
from vision.cards.pieces import CardPiece
from vision.cards.read import READ
from vision.teach import CARD_TEACH_SETTINGS, Example, profile_from_examples

MAGIC = CARD_TEACH_SETTINGS["magic-rabbit"]
BLUE7 = np.float32([28.0, 25.0, -37.0])  # Lab: a dark-blue frame (the scenes' 7s)
TABLE7 = np.float32([39.0, 13.0, 4.0])  # a guessed crop's ring, the warm table let in
OTHER = np.float32([30.0, 20.0, -20.0])


def _piece(confidence: float, label: str = "magician", at=(50.0, 50.0)) -> CardPiece:
    x, y = at
    frame = np.array([[x - 5, y - 5], [x + 5, y - 5], [x + 5, y + 5], [x - 5, y + 5]])
    return CardPiece(label, confidence, np.array(at), frame, 0.0, 10.0)


def test_magic_rabbit_leaves_guessed_colours_out():
    assert MAGIC.guessed_colour == 0.0
    assert CARD_TEACH_SETTINGS["troetofanten"].guessed_colour == 1.0  # (not measured there)


@pytest.mark.parametrize("in_posed, confidence, guessed", [
    (True, 1.0, False),  # posed around the taps
    (True, 0.4, False),  # the reader's own piece (its confidence the classifier's)
    (False, 1.0, False),  # `_every_key_point`'s posed key point
    (False, 0.999, True),  # a weak key point posed like its neighbour
    (False, 0.07, True),
    (False, 0.0, True),
])
def test_guessed_poses(in_posed, confidence, guessed):
    p = _piece(confidence)
    posed = [_piece(1.0, at=(80.0, 50.0))] + ([p] if in_posed else [])
    assert tc.guessed_poses([p], posed) == [guessed]
    # (by identity: an equal piece that is not the posed one is still new)
    twin = _piece(confidence)
    assert tc.guessed_poses([twin], posed) == [confidence < 1.0]


def _profile(examples):
    labels = ("background", *(f"hat-{n}" for n in range(1, 10)),
              *(f"rabbit-{n}" for n in range(1, 10)), "magician", "dove")
    clf = SimpleNamespace(classes=labels, metadata={})
    return profile_from_examples("magic-rabbit", examples,
                                 SimpleNamespace(cards=SimpleNamespace(classifier=clf)),
                                 card_settings=MAGIC)


def _example(label, colour, weight, k):
    rng = np.random.default_rng(k)
    e = rng.normal(size=8).astype(np.float32)
    return Example(label, f"p{k}.jpg", e / np.linalg.norm(e), colour, "cards",
                   colour_weight=weight)


@pytest.mark.parametrize("examples, want", [
    # (label, colour, colour weight) -> the number's colour (hat-7's and rabbit-7's)
    ([("hat-7", BLUE7, 1.0), ("rabbit-7", TABLE7, 1.0)], (BLUE7 + TABLE7) / 2),  # as before
    ([("hat-7", BLUE7, 1.0), ("rabbit-7", TABLE7, 0.0)], BLUE7),  # the guessed one left out
    ([("hat-7", TABLE7, 0.0), ("rabbit-7", BLUE7, 1.0)], BLUE7),
    ([("hat-7", BLUE7, 0.0), ("rabbit-7", TABLE7, 0.0)], (BLUE7 + TABLE7) / 2),  # all
    #   guessed: their plain mean
    ([("hat-7", BLUE7, 1.0), ("hat-7", TABLE7, 0.0), ("rabbit-7", OTHER, 1.0)],
     (BLUE7 + OTHER) / 2),  # within a label too
    ([("hat-7", BLUE7, 1.0), ("hat-7", TABLE7, 1.0), ("rabbit-7", OTHER, 1.0)],
     (BLUE7 + TABLE7 + OTHER) / 3),  # (each example once, as before)
    ([("hat-7", BLUE7, 0.5), ("rabbit-7", TABLE7, 1.0)], (0.5 * BLUE7 + TABLE7) / 1.5),
])
def test_number_colour_weighs_each_example(examples, want):
    prof = _profile([_example(lab, c, w, k) for k, (lab, c, w) in enumerate(examples)])
    cols = dict(zip(prof.labels, prof.colours, strict=True))
    assert np.allclose(cols["hat-7"], want, atol=1e-4)
    assert np.allclose(cols["rabbit-7"], want, atol=1e-4)
    assert list(prof.counts) == [sum(lab == u for lab, _, _ in examples)
                                 for u in prof.labels]  # (counts are examples still)


@pytest.mark.parametrize("weak, settings, weight", [
    (True, MAGIC, 0.0),  # a tap on a weak key point: its colour left out
    (False, MAGIC, 1.0),  # a tap on a posed piece
    (True, replace(MAGIC, guessed_colour=0.25), 0.25),
    (True, replace(MAGIC, guessed_colour=1.0), 1.0),
])
def test_card_examples_mark_a_guessed_crop(monkeypatch, weak, settings, weight):
    classes = ("background", "hat-7", "rabbit-7", "magician")
    probs = np.float32([[0.1, 0.2, 0.6, 0.1]])
    clf = SimpleNamespace(classes=classes, index=classes.index,
                          predict=lambda crops: SimpleNamespace(
                              probs=probs, embedding=np.ones((len(crops), 8), np.float32)))
    reader = SimpleNamespace(classifier=clf, settings=READ, crop_settings=None)
    posed = _piece(1.0, at=(40.0, 40.0))
    new = _piece(0.07, at=(60.0, 60.0))

    def tapped(reader, image, game, area, taps, scale, s, name, posed_out=None):
        posed_out.extend([posed])
        return [new if weak else posed]

    monkeypatch.setattr(tc, "tapped_pieces", tapped)
    monkeypatch.setattr(tc, "hat_tone_off", lambda reader, image, pieces, chosen: image)
    monkeypatch.setattr(tc, "_card_crops", lambda reader, image, game, pieces:
                        np.full((len(pieces), 32, 32, 3), 128, np.uint8))
    image = np.full((100, 100, 3), 128, np.uint8)
    ex, = tc.card_examples(SimpleNamespace(cards=reader), "magic-rabbit",
                           SimpleNamespace(image=image, scale=1.0), None, "rabbit-7",
                           [(60.0, 60.0, "rabbit-7")], "photo.jpg", settings)
    assert ex.label == "rabbit-7" and ex.colour_weight == weight
