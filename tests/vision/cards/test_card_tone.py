"""`vision.cards.light.card_tone` and its use in `stage.paper_balanced`: a lamp's
per-channel tone curve read off the sure face-up cards' near-grey pixels (white paper, a
grey drawing from black to white) and taken off before the paper's balance; none under
ordinary light or a lamp that only scales the channels (tiny synthetic photos, a stand-in
reader, no models)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.cards.helpers import card
from vision.cards.light import CardToneSettings, PaperLightSettings, card_tone
from vision.cards.read import READ
from vision.cards.stage import paper_balanced
from vision.preprocess import power_about

W = 60  # px: each card's width (its height by the card's aspect)
CENTRES = ((60, 70), (150, 70), (240, 70), (60, 190))
CARDS = [card(f"elephant-{k + 2}", c, width=W) for k, c in enumerate(CENTRES)]

CURVE = (1.5, 1.1, 0.75)  # per-channel gamma (B, G, R): a contrasty orange lamp
WARM = (0.55, 0.8, 1.0)  # gains only: a warm lamp


def photo(gamma=(1.0, 1.0, 1.0), gain=(1.0, 1.0, 1.0), yellow: float = 0.1,
          seed: int = 5) -> np.ndarray:
    """A dark green table with cards `CARDS` on it: white paper (235), a grey drawing (a
    ramp from 20 to 230 down the card) and a yellow patch (`yellow` of the card's height,
    a tootophant's digit and trumpet, shaded from a quarter of its light to all of it),
    seeded noise; then each channel c taken to
    gain[c] * 255 * (x / 255) ** gamma[c]."""
    rng = np.random.default_rng(seed)
    img = np.empty((260, 320, 3), np.float32)
    img[:] = (40, 90, 50)
    for p in CARDS:
        (x0, y0), (x1, y1) = p.frame.min(axis=0).astype(int), p.frame.max(axis=0).astype(int)
        img[y0:y1, x0:x1] = 235
        h = y1 - y0
        ramp = np.linspace(20, 230, h - 16)[:, None, None]
        img[y0 + 8:y1 - 8, x0 + 12:x1 - 12] = ramp
        ny = int(h * yellow)
        if ny:
            shade = np.linspace(0.25, 1.0, ny)[:, None, None]  # its own shading
            img[y0 + 6:y0 + 6 + ny, x0 + 6:x1 - 6] = shade * np.float32((30, 200, 235))
    img += rng.normal(0, 2, img.shape)
    x = np.clip(img, 0, 255) / 255.0
    out = 255.0 * np.asarray(gain, np.float32) * x ** np.asarray(gamma, np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("gamma, gain", [
    ((1.0, 1.0, 1.0), (1.0, 1.0, 1.0)),  # ordinary light
    ((1.0, 1.0, 1.0), WARM),  # a warm lamp's gains alone
    ((1.0, 1.0, 1.0), (1.0, 0.9, 0.8)),  # cool daylight
    ((1.05, 1.0, 0.97), (1.0, 1.0, 1.0)),  # a slight curve, under `dev`[0]
])
def test_no_curve_without_one(gamma, gain):
    assert np.array_equal(card_tone(photo(gamma, gain), CARDS), np.ones(3))


@pytest.mark.parametrize("gain", [(1.0, 1.0, 1.0), (0.8, 0.95, 1.1)])
def test_a_curve_is_read_and_taken_off(gain):
    img = photo(CURVE, gain)
    exps = card_tone(img, CARDS)
    assert exps[0] < 0.85 and exps[2] > 1.2 and abs(exps[1] - 1.0) < 0.1
    # the grey drawing's steps come out grey again once the paper's gains are taken off
    toned = power_about(img, exps, 255.0).astype(np.float32)
    f = CARDS[0].frame
    (x0, y0), (x1, y1) = f.min(axis=0).astype(int), f.max(axis=0).astype(int)
    xs = slice(x0 + 16, x1 - 16)
    paper = toned[y1 - 6:y1 - 3, xs].reshape(-1, 3).mean(axis=0)
    raw = img.astype(np.float32)
    raw_paper = raw[y1 - 6:y1 - 3, xs].reshape(-1, 3).mean(axis=0)
    h = y1 - y0
    for t in (0.45, 0.6, 0.75):  # mid greys of the ramp
        y = int(y0 + 8 + t * (h - 16))
        grey = toned[y - 1:y + 2, xs].reshape(-1, 3).mean(axis=0) / paper
        before = raw[y - 1:y + 2, xs].reshape(-1, 3).mean(axis=0) / raw_paper
        assert np.ptp(np.log(grey)) < 0.5 * np.ptp(np.log(before))


@pytest.mark.parametrize("pieces", [
    CARDS[:2],  # two cards: under `min_cards`
    [card("back", c, width=W) for c in CENTRES],  # backs are no faces
    [card(f"elephant-{k + 2}", c, 0.5, width=W) for k, c in enumerate(CENTRES)],  # unsure
])
def test_no_curve_without_sure_face_up_cards(pieces):
    assert np.array_equal(card_tone(photo(CURVE), pieces), np.ones(3))


def test_off():
    assert np.array_equal(card_tone(photo(CURVE), CARDS, s=CardToneSettings(on=False)),
                          np.ones(3))


@pytest.mark.parametrize("gain", [(1.0, 1.0, 1.0), WARM])
@pytest.mark.parametrize("neutral, toned", [(0.5, False), (0.0, True)])
def test_coloured_pixels_left_out(gain, neutral, toned):
    """Cards with a shaded yellow patch over 0.3 of them, no curve: every pixel read, the
    patch leans the weak channel in the dark bins as a curve would; the near-grey pixels
    alone show none."""
    img = photo((1.0, 1.0, 1.0), gain, yellow=0.3)
    exps = card_tone(img, CARDS, s=CardToneSettings(neutral=neutral))
    assert bool(np.any(exps != 1.0)) == toned


class Reader:
    """Reads CARDS again, noting the image it was given."""

    settings = READ

    def __init__(self):
        self.seen = []

    def read_pieces(self, image, game, area=None):
        self.seen.append(image)
        return list(CARDS), ["again"]


@pytest.mark.parametrize("gamma, gain, again, toned", [
    ((1.0, 1.0, 1.0), (1.0, 1.0, 1.0), False, False),  # ordinary light: the first look kept
    (CURVE, (1.0, 1.0, 1.0), False, False),  # a curve, paper near white: no cast, not read
    #   again (the curve is looked for under a cast only)
    (CURVE, (0.8, 0.95, 1.1), True, True),  # a curve and a cast: toned, balanced, read again
    ((1.0, 1.0, 1.0), WARM, True, False),  # a cast alone: balanced, read again (as before)
])
def test_paper_balanced_tones_under_a_cast(gamma, gain, again, toned):
    r, img = Reader(), photo(gamma, gain)
    out, _, warnings = paper_balanced(r, img, "troetofanten", CARDS, ["first"],
                                      PaperLightSettings())
    assert (len(r.seen) == 1) == again
    assert (out is not img) == again
    assert warnings == (["again"] if again else ["first"])
    if again:  # the paper grey; the grey drawing's mid-tone near grey only if toned
        f = CARDS[0].frame
        (x0, y0), (x1, y1) = f.min(axis=0).astype(int), f.max(axis=0).astype(int)
        xs = slice(x0 + 16, x1 - 16)
        y = int(y0 + 8 + 0.5 * (y1 - y0 - 16))
        grey = out[y - 1:y + 2, xs].reshape(-1, 3).astype(np.float32).mean(axis=0)
        plain = paper_balanced(r, img, "troetofanten", CARDS, ["first"], PaperLightSettings(),
                               tone=CardToneSettings(on=False))[0]
        grey0 = plain[y - 1:y + 2, xs].reshape(-1, 3).astype(np.float32).mean(axis=0)
        if toned:
            assert np.ptp(np.log(grey)) < 0.5 * np.ptp(np.log(grey0))
        else:
            assert np.array_equal(out, plain)
