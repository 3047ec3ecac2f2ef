"""`vision.cards.stage.hat_tone` / `hat_toned`: a lamp's per-channel tone curve read off
Magic Rabbit's hat tiles (a black top hat on white paper: neutral from black to white) and
taken off the photo, which is then read again (drawn here, seeded; no renderer, no model)."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from tests.vision.test_cloth_tone import lamp
from vision.cards.pieces import CardPiece
from vision.cards.stage import HAT_TONE, as_sure, hat_reading, hat_tone, hat_toned, power_about

FRAMES = ((255, 80, 40), (40, 40, 220), (60, 200, 60), (200, 60, 200))  # BGR frame colours
SIDE = 120  # px: a tile's side


def tiles_photo(n: int = 4, seed: int = 0, table=(70, 110, 150), paper=(250, 250, 250)):
    """(960 x 1280 uint8 BGR photo, [(4, 2) corners]): `n` hat tiles on a plain table, each
    `paper` (BGR; white 250) in a coloured frame with a black top hat (brim and crown, 20), blurred
    as a photo is, the light falling off across the photo (0.55-1.0 in linear light); a
    little noise (seeded)."""
    rng = np.random.default_rng(seed)
    img = np.zeros((960, 1280, 3), np.float32)
    img[:] = table
    frames = []
    for k in range(n):
        x0, y0 = 150 + 260 * (k % 4), 200 + 300 * (k // 4)
        img[y0:y0 + SIDE, x0:x0 + SIDE] = FRAMES[k % len(FRAMES)]
        img[y0 + 10:y0 + SIDE - 10, x0 + 10:x0 + SIDE - 10] = paper
        img[y0 + 30:y0 + 70, x0 + 40:x0 + 80] = 20  # crown
        img[y0 + 68:y0 + 78, x0 + 28:x0 + 92] = 20  # brim
        frames.append(np.float32([[x0, y0], [x0 + SIDE, y0], [x0 + SIDE, y0 + SIDE],
                                  [x0, y0 + SIDE]]))
    img = cv2.GaussianBlur(img, (0, 0), 2.5)
    lin = (img / 255.0) ** 2.2 * np.linspace(1.0, 0.55, 1280, dtype=np.float32)[None, :, None]
    img = 255.0 * lin ** (1 / 2.2) + rng.normal(0.0, 1.0, img.shape)
    return np.clip(np.round(img), 0, 255).astype(np.uint8), frames


def hats(frames, label="hat-3"):
    return [CardPiece(label, 0.9, f.mean(axis=0), f, 0.0, float(SIDE)) for f in frames]


def grey_lean(image, frames) -> float:
    """How much the hats' greys lean between their light and dark part: the spread of log
    B/R (median over pixels) from the paper's brightest greys to the hat's darkest."""
    px = np.concatenate([image[int(f[0, 1]) + 14:int(f[2, 1]) - 14,
                               int(f[0, 0]) + 14:int(f[1, 0]) - 14].reshape(-1, 3)
                         for f in frames]).astype(np.float32) + 1.0
    px = px[px.max(axis=1) < 250]
    lum = np.log(px).mean(axis=1)
    dark, light = px[lum < np.percentile(lum, 10)], px[lum > np.percentile(lum, 60)]
    lean = [np.median(np.log(q[:, 0] / q[:, 2])) for q in (dark, light)]
    return abs(lean[0] - lean[1])


@pytest.mark.parametrize(
    "gamma, gain, seed",
    [
        ((1.5, 1.1, 0.75), (0.8, 0.95, 1.1), 0),  # light_eval's harsh lamp
        ((1.5, 1.1, 0.75), (0.8, 0.95, 1.1), 1),  # the same, another table's noise
        ((0.75, 1.0, 1.4), (1.0, 0.95, 0.85), 2),  # a cold harsh lamp
        ((1.4, 1.0, 0.7), (1.0, 1.0, 1.0), 3),  # another warm curve, no gain
    ],
)
def test_hat_tone_takes_the_hats_curve_off_about_white(gamma, gain, seed):
    """A per-channel curve: the hats' greys lean between dark and light under it, much less
    once `hat_tone`'s power is taken off; white stays white; the exponents undo the curve's
    lean (each channel's exponent over the mean nearer the curve's inverse)."""
    photo, frames = tiles_photo(seed=seed)
    lit = lamp(photo, gamma, gain)
    exps = hat_tone(lit, hats(frames))
    assert exps.shape == (3,) and exps.dtype == np.float32
    assert np.abs(exps - 1).max() > 0.15, exps
    out = power_about(lit, exps, HAT_TONE.white)
    assert out.shape == lit.shape and out.dtype == np.uint8
    assert grey_lean(out, frames) < 0.35 * grey_lean(lit, frames), (grey_lean(lit, frames),
                                                                    grey_lean(out, frames))
    white = lit == 255
    assert np.all(out[white] == 255)
    g = np.asarray(gamma)
    np.testing.assert_allclose(exps / exps.mean(), (1 / g) / (1 / g).mean(), atol=0.12)


@pytest.mark.parametrize(
    "gain",
    [(1.0, 1.0, 1.0), (0.30, 0.62, 1.0), (1.0, 0.78, 0.55), (0.5, 0.5, 0.5)],  # none,
    #   tungsten, daylight, dim (light_eval's, in linear light)
)
def test_hat_tone_leaves_a_gain_only_light_alone(gain):
    """A light that only scales each channel (in linear light) bends no grey: exponents
    one, and `power_about` hands the photo itself back."""
    from vision.light_eval import in_linear

    photo, frames = tiles_photo(seed=5)
    lit = in_linear(photo, np.asarray(gain, np.float32))
    exps = hat_tone(lit, hats(frames))
    assert np.all(exps == 1.0), exps
    assert power_about(lit, exps, HAT_TONE.white) is lit


def test_hat_tone_needs_hats():
    """Ones without enough hats read (only rabbits, one hat, none, frameless pieces) or
    with the setting off."""
    photo, frames = tiles_photo(seed=6)
    lit = lamp(photo, (1.5, 1.1, 0.75), (0.8, 0.95, 1.1))
    assert np.abs(hat_tone(lit, hats(frames)) - 1).max() > 0.15
    for pieces in ([], hats(frames, "rabbit-3"), hats(frames[:1]),
                   [replace(p, frame=None) for p in hats(frames)]):
        assert np.all(hat_tone(lit, pieces) == 1.0)
    assert np.all(hat_tone(lit, hats(frames), replace(HAT_TONE, on=False)) == 1.0)


class StubReader:
    """A reader whose `read_pieces` records the photos it is given and returns `again`."""

    def __init__(self, again):
        self.again, self.seen = again, []

    def read_pieces(self, image, game, area=None):
        self.seen.append((image, game))
        return list(self.again), ["second look"]


def test_hat_toned_reads_again_only_under_a_curve():
    """Under a curve the toned photo is read again and its reading kept; a gain-only light
    is not read again; a second reading with nothing in it leaves the first."""
    from vision.light_eval import in_linear

    photo, frames = tiles_photo(seed=7)
    first = hats(frames)
    lit = lamp(photo, (1.5, 1.1, 0.75), (0.8, 0.95, 1.1))
    second = hats(frames, "hat-5")
    reader = StubReader(second)
    image, pieces, warnings = hat_toned(reader, lit, first, ["first"])
    assert len(reader.seen) == 1 and reader.seen[0][1] == "magic-rabbit"
    assert image is reader.seen[0][0] and image is not lit
    assert np.array_equal(image, power_about(lit, hat_tone(lit, first), HAT_TONE.white))
    assert pieces == second and warnings == ["second look"]

    empty = StubReader([])
    image, pieces, warnings = hat_toned(empty, lit, first, ["first"])
    assert len(empty.seen) == 1 and image is lit and pieces == first and warnings == ["first"]

    plain = in_linear(photo, np.asarray((0.30, 0.62, 1.0), np.float32))
    never = StubReader(second)
    image, pieces, warnings = hat_toned(never, plain, first, ["first"])
    assert never.seen == [] and image is plain and pieces == first and warnings == ["first"]


# papers (BGR) another copy's hat tiles may be printed on, with their print's black (20)
CREAM, PALE_BLUE, PINK = (215, 240, 250), (250, 225, 200), (225, 215, 250)
YELLOW, ORANGE = (40, 220, 250), (60, 160, 250)


@pytest.mark.parametrize("paper", [YELLOW, ORANGE, (30, 230, 120)])  # and a green
def test_hat_tone_reads_no_curve_off_a_saturated_paper(paper):
    """A saturated paper under ordinary light: its weak channel runs from the print's black
    to little more, which leans it as a lamp's curve would (read without the neutral-paper
    guard); with it, no curve is read and the photo is not bent."""
    photo, frames = tiles_photo(seed=8, paper=paper)
    unguarded = hat_tone(photo, hats(frames), replace(HAT_TONE, max_chroma=1e9))
    assert np.abs(unguarded - 1).max() > 0.15, unguarded
    assert np.all(hat_tone(photo, hats(frames)) == 1.0)


@pytest.mark.parametrize("paper", [CREAM, PALE_BLUE, PINK])
def test_hat_tone_on_a_pale_paper_as_on_white(paper):
    """A pale paper bends nothing in ordinary light, and a harsh lamp's curve is still read
    off it and taken off (the greys' lean less than half of what the lamp left)."""
    photo, frames = tiles_photo(seed=9, paper=paper)
    assert np.all(hat_tone(photo, hats(frames)) == 1.0)
    lit = lamp(photo, (1.5, 1.1, 0.75), (0.8, 0.95, 1.1))
    exps = hat_tone(lit, hats(frames))
    assert np.abs(exps - 1).max() > 0.15, exps
    assert grey_lean(power_about(lit, exps, HAT_TONE.white), frames) < \
        0.5 * grey_lean(lit, frames)


def sure_hats(frames, confs, label="hat-5"):
    return [CardPiece(label, c, f.mean(axis=0), f, 0.0, float(SIDE))
            for f, c in zip(frames, confs, strict=False)]


@pytest.mark.parametrize(
    "second_confs, kept",
    [
        ((0.9, 0.9, 0.9, 0.9), True),  # as many pieces, as many sure: the second kept
        ((0.95, 0.95, 0.9, 0.9, 0.9), True),  # one more, all sure
        ((0.9, 0.9, 0.9, 0.5), False),  # one sure piece fewer
        ((0.9, 0.9, 0.9), False),  # one piece fewer
    ],
)
def test_hat_toned_on_a_saturated_paper_keeps_only_as_sure_a_second_reading(second_confs, kept):
    """Under the harsh lamp a saturated yellow paper's curve cannot be told from its print
    (chroma over `max_chroma`): the photo is read again, but the second reading is kept only
    where it has as many pieces and as many sure ones as the first (4 hats read at 0.9)."""
    photo, frames = tiles_photo(seed=10, paper=YELLOW)
    lit = lamp(photo, (1.5, 1.1, 0.75), (0.8, 0.95, 1.1))
    exps, chroma = hat_reading(lit, hats(frames))
    assert chroma > HAT_TONE.max_chroma and np.abs(exps - 1).max() > 0.15
    first = hats(frames)
    frames5 = list(frames) + [frames[0] + 300]
    reader = StubReader(sure_hats(frames5, second_confs))
    image, pieces, warnings = hat_toned(reader, lit, first, ["first"])
    assert len(reader.seen) == 1
    if kept:
        assert image is not lit and pieces == reader.again and warnings == ["second look"]
    else:
        assert image is lit and pieces == first and warnings == ["first"]


def test_hat_toned_on_white_paper_keeps_even_a_less_sure_second_reading():
    """Near-neutral paper (white): the lamp's curve is trusted, the second reading kept even
    where it reads fewer pieces surely (H4's rule, which its gains rest on)."""
    photo, frames = tiles_photo(seed=11)
    lit = lamp(photo, (1.5, 1.1, 0.75), (0.8, 0.95, 1.1))
    assert hat_reading(lit, hats(frames))[1] <= HAT_TONE.max_chroma
    reader = StubReader(sure_hats(frames, (0.9, 0.5, 0.5)))
    image, pieces, _ = hat_toned(reader, lit, hats(frames), ["first"])
    assert image is not lit and pieces == reader.again


@pytest.mark.parametrize(
    "first, again, expected",
    [((0.9, 0.5), (0.9, 0.5), True), ((0.9, 0.5), (0.5, 0.5, 0.5), False),
     ((0.9, 0.5), (0.8, 0.2, 0.1), True), ((), (), True), ((0.9,), (), False)],
)
def test_as_sure(first, again, expected):
    f = np.float32([[0, 0], [1, 0], [1, 1], [0, 1]])
    def ps(cs):
        return [CardPiece("hat-1", c, f.mean(axis=0), f, 0.0, 1.0) for c in cs]
    assert as_sure(ps(again), ps(first), 0.8) is expected
