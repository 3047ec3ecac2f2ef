"""Session 26 (troeto-speed): `ReadSettings.numbers_of_pieces`, the corner-index model read
only for the crops the card classifier does not call background, gives the same pieces:
a crop with P(background) at `min_piece_prob` or more is no piece whatever its number.
Compared with the reader reading every crop's number, on committed photos and the real
models, and on a stand-in index model (which rows it is asked for)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tests.vision.cards.test_number_recheck import Index
from vision.cards.geometry import INDEX_SPEC, SPECS, frame_from_pose
from vision.cards.read import READ, TROETO_LABELS, CardReader, card_frame
from vision.image_io import load_photo

SCENES = Path("datasets/scenes/troetofanten")
SCENES2 = Path("datasets/scenes-edition2/troetofanten")


@pytest.fixture(scope="module")
def readers():
    base = CardReader()
    every = CardReader.__new__(CardReader)
    every.__dict__.update(base.__dict__)
    every.settings = replace(base.settings, numbers_of_pieces=False)
    return base, every


def _same_bits(a, b) -> bool:
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and \
        np.array_equal(a.view(np.uint8), b.view(np.uint8))


@pytest.mark.parametrize("photo", [
    SCENES / "troetofanten-e1-s1-0001.jpg",  # an ordinary photo, no second look
    SCENES / "troetofanten-e1-s1-0022.jpg",  # a photo from afar (its far look is taken)
    SCENES / "troetofanten-e1-s1-0028.jpg",  # a fan, repose and close-up crops
    SCENES2 / "troetofanten-e2-s2-0009.jpg",  # edition 2
])
def test_read_crops_same_for_pieces(readers, photo):
    """Crops at the detector's key points at several widths (pieces and background): the
    piece test, the confidences and P(background) bit for bit, and every piece's row."""
    base, every = readers
    img = load_photo(photo).image
    kp = base.detector.detect(img, 0.05)
    spec = SPECS["troetofanten"]
    top = np.argsort(-kp.score)[:40]  # (the strongest, at the widths the search tries)
    frames = [frame_from_pose(kp.xy[i], kp.angle[i], kp.width[i] * f, spec) for i in top
              for f in READ.width_scales[::2]]
    g1, bg1, p1, c1 = base.read_crops(img, frames, "troetofanten")
    g2, bg2, p2, c2 = every.read_crops(img, frames, "troetofanten")
    assert (bg1 >= READ.min_piece_prob).any() and (bg1 < READ.min_piece_prob).any()
    assert _same_bits(bg1, bg2) and _same_bits(p1, p2) and _same_bits(c1, c2)
    assert _same_bits(g1[p1], g2[p2])


@pytest.mark.parametrize("photo", [
    SCENES / "troetofanten-e1-s1-0004.jpg",  # far look taken, dim light's second look
    SCENES / "troetofanten-e1-s1-0013.jpg",  # far look not taken, dim light's second look
    SCENES2 / "troetofanten-e2-s2-0005.jpg",  # edition 2, a dark photo
])
def test_read_pieces_same(readers, photo):
    base, every = readers
    img = load_photo(photo).image
    a, wa = base.read_pieces(img, "troetofanten")
    b, wb = every.read_pieces(img, "troetofanten")
    assert wa == wb
    assert [(p.label, p.confidence, p.probs) for p in a] == \
        [(p.label, p.confidence, p.probs) for p in b]


def _stand_in() -> CardReader:
    r = CardReader.__new__(CardReader)
    r.settings = replace(READ, number_jitter=0.0)
    r.index = Index()
    r.index_spec = INDEX_SPEC
    return r


@pytest.mark.parametrize("rows,calls", [
    (None, [3]),  # default: every crop's number
    ([True, True, True], [3]),  # all asked: as the default
    ([True, False, True], [2]),  # the middle crop's row left as the classifier's
    ([False, False, False], []),  # none asked: the model not run
])
def test_rows_asked(rows, calls):
    frames = [card_frame(np.array([50.0 + 40 * k, 100.0]), 0.0, 30.0,
                         SPECS["troetofanten"].aspect) for k in range(3)]
    img = np.full((200, 200, 3), 128, np.uint8)
    probs = np.zeros((3, len(TROETO_LABELS)), np.float32)
    probs[:, TROETO_LABELS.index("elephant-2")] = 0.9
    probs[:, TROETO_LABELS.index("back")] = 0.1
    r = _stand_in()
    out = r.troeto_numbers(img, frames, probs,
                           TROETO_LABELS, None if rows is None else np.array(rows))
    assert r.index.calls == calls
    e3 = out[:, TROETO_LABELS.index("elephant-3")]
    asked = np.ones(3, bool) if rows is None else np.array(rows)
    assert np.allclose(e3[asked], 0.9 * 0.55)  # (the stand-in's 3: 0.55 of the kind)
    assert _same_bits(out[~asked], probs[~asked])
