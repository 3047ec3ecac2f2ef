"""A glare spot beside a lone pip (`vision.dice._face_round_pip`, `DiceSettings.one_ring_glare`;
session 26): a glossy die's highlight hugging its 1 made the ring of face colour round the
pip fail, so the 1 was never tried (fresh dice_eval seeds 4475 and 4495). One run of up to
three ring samples brighter than the face (plus one other sample amiss) is a highlight;
darker samples, two bright runs, or a pip under 6 px still fail the ring."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from tests.vision.dice_faces import read_with_codes
from vision.dice import SETTINGS, _channels, _face_round_pip, _glare_arc, find_pips, read_dice
from vision.dice_synth import make_scene

OFF = replace(SETTINGS, one_ring_glare=None)


def _die(seed: int, spots: list[tuple[float, float, int]]) -> np.ndarray:
    """(240, 240, 3) uint8 BGR: a dark blue die's face (side 100 px) with one white pip of
    22 px at its centre, on a wooden table, and round spots (angle in degrees, distance from
    the pip's centre in px, BGR grey level) of 10 px radius beside the pip."""
    rng = np.random.default_rng(seed)
    img = np.full((240, 240, 3), (60, 100, 140), np.uint8)
    cv2.rectangle(img, (70, 70), (170, 170), (150, 70, 25), -1)
    cv2.circle(img, (120, 120), 11, (235, 235, 235), -1)
    for ang, dist, level in spots:
        a = np.radians(ang)
        cv2.circle(img, (round(120 + dist * np.cos(a)), round(120 + dist * np.sin(a))), 10,
                   (level, level, level), -1)
    img = cv2.GaussianBlur(img, (0, 0), 1.0).astype(np.int16)
    img += rng.integers(-3, 4, img.shape).astype(np.int16)
    return np.clip(img, 0, 255).astype(np.uint8)


def _pip(img: np.ndarray):
    s = replace(SETTINGS, work_long_side=240)
    p, _ = find_pips(img, s)
    i = int(np.argmin(np.linalg.norm(p.xy - 120.0, axis=1)))
    assert np.linalg.norm(p.xy[i] - 120.0) < 3
    return np.array([i]), p, _channels(img, s), s


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("spots,on,off", [
    # no spot: a plain 1 passes both ways
    ([], True, True),
    # a highlight hugging the pip on one side (up-right): only with the rule
    ([(-34, 28, 250)], True, False),
    # the same spot dark (the table, a seam, a mark): no face colour round it either way
    ([(-34, 28, 20)], False, False),
    # two highlights on opposite sides: two bright runs, not one highlight
    ([(-34, 28, 250), (146, 28, 250)], False, False),
])
def test_a_highlight_beside_a_one(seed, spots, on, off):
    idx, p, chans, s = _pip(_die(seed, spots))
    i = int(idx[0])
    for st, want in ((s, on), (replace(OFF, work_long_side=240), off)):
        got = _face_round_pip(chans, p.xy[i], float(p.d[i]), p.colour[i], float(p.contrast[i]),
                              st)
        assert got == want, (st.one_ring_glare, spots)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_highlighted_one_reads(seed):
    # the whole read: the 1 with a highlight beside it is a 1 with the rule, nothing without
    idx, p, chans, s = _pip(_die(seed, [(-34, 28, 250)]))
    for st, want in ((s, 1), (replace(OFF, work_long_side=240), None)):
        f, codes = read_with_codes(idx, p, chans, st)
        assert (f.value if f is not None else None) == want, (st.one_ring_glare, codes)


@pytest.mark.parametrize("dev,bright,ok", [
    # one run of three bright samples (wrapping round sample 0): a highlight
    ([15, 0, 1], [15, 0, 1], True),
    # ... and one dark sample elsewhere
    ([15, 0, 1, 8], [15, 0, 1], True),
    # four bright samples: too wide for a highlight hugging the pip
    ([0, 1, 2, 3], [0, 1, 2, 3], False),
    # two bright runs
    ([0, 1, 8], [0, 1, 8], False),
    # two dark samples besides the bright run
    ([0, 1, 6, 9], [0, 1], False),
    # nothing bright
    ([4, 5], [], False),
])
def test_glare_arc(dev, bright, ok):
    d = np.zeros(16, bool)
    d[dev] = True
    b = np.zeros(16, bool)
    b[bright] = True
    assert _glare_arc(d, b, 3) == ok


@pytest.mark.parametrize("seed,at", [
    (4475, (1089.4, 562.4)),  # a dark-red 1, a highlight up-right of its pip
    (4495, (485.7, 385.2)),  # a blue 1, a highlight right of its pip
])
def test_fresh_highlighted_ones(seed, at):
    img, _ = make_scene(seed)
    for s, want in ((SETTINGS, [1]), (OFF, [])):
        dice, _, _ = read_dice(img, s)
        near = [d.value for d in dice if np.linalg.norm(np.array(d.center) - at) < 20]
        assert near == want, (s.one_ring_glare, near)
