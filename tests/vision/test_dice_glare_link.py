"""A highlight on the line between two pips (`vision.dice._glare_only`,
`DiceSettings.los_glare_off`; session 28): a glossy die's specular spot mid-face lay between
a 2's pips and broke their line of sight, so the 2 was never tried (fresh dice_eval seeds
4988, 5060, 5068). A line blocked only by samples brighter than the face in every channel,
and bounded across the line (face colour 0.45 x the line's length to either side), passes;
a dark mark, a highlight over most of the line (`los_glare_share`), the table between two
dice, a bright band running on across the face or a pip like theirs on the line
(`_like_pip_between`: a 3's corners, a top face's pip and its side face's across another
pip) do not."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.dice import SETTINGS, _channels, _links, find_pips, read_dice

S = replace(SETTINGS, work_long_side=240)
OFF = replace(S, los_glare_off=None)
RED, WHITE = (40, 30, 180), (235, 235, 235)


def _finish(img: np.ndarray, seed: int) -> np.ndarray:
    img = cv2.GaussianBlur(img, (0, 0), 1.0).astype(np.int16)
    img += np.random.default_rng(seed).integers(-3, 4, img.shape).astype(np.int16)
    return np.clip(img, 0, 255).astype(np.uint8)


def _two(mark: str, seed: int) -> np.ndarray:
    """(240, 240, 3) BGR: a red die's face (side 100 px) with a 2 of white pips (18 px) on
    its diagonal, on a wooden table, and a mark between the pips."""
    img = np.full((240, 240, 3), (60, 100, 140), np.uint8)
    cv2.rectangle(img, (70, 70), (170, 170), RED, -1)
    for c in ((95, 95), (145, 145)):
        cv2.circle(img, c, 9, WHITE, -1)
    if mark == "glare":  # a specular spot, soft and elongated, across the line
        spot = np.zeros((240, 240), np.float32)
        cv2.ellipse(spot, (108, 108), (12, 5), -45, 0, 360, 1.0, -1)
        spot = cv2.GaussianBlur(spot, (0, 0), 3.0)[..., None] * 0.6
        img = (img * (1 - spot) + 255 * spot).astype(np.uint8)
    elif mark == "long":  # a highlight along the line, over most of it between the pips
        spot = np.zeros((240, 240), np.float32)
        cv2.ellipse(spot, (120, 120), (24, 4), 45, 0, 360, 1.0, -1)
        spot = cv2.GaussianBlur(spot, (0, 0), 1.5)[..., None] * 0.6
        img = (img * (1 - spot) + 255 * spot).astype(np.uint8)
    elif mark == "dark":  # a dark spot of the same size (a hole, a stain)
        cv2.ellipse(img, (108, 108), (12, 5), -45, 0, 360, (20, 15, 30), -1)
    elif mark == "pip":  # a third pip between them (a 3): bright and bounded, but a pip
        cv2.circle(img, (120, 120), 9, WHITE, -1)
    elif mark == "band":  # a bright band across the whole face (table showing between
        # two dice, a light seam): not bounded across the line
        cv2.line(img, (70, 170), (170, 70), (245, 240, 250), 9)
    return _finish(img, seed)


def _apart(seed: int) -> np.ndarray:
    """Two red dice (side 60 px) apart on white paper, a white pip on each, in one row."""
    img = np.full((240, 240, 3), (225, 228, 230), np.uint8)
    for x0 in (40, 130):
        cv2.rectangle(img, (x0, 90), (x0 + 60, 150), RED, -1)
    for c in ((85, 120), (145, 120)):
        cv2.circle(img, c, 7, WHITE, -1)
    return _finish(img, seed)


def _linked(img: np.ndarray, a, b, s) -> bool:
    p, chans = find_pips(img, s)
    ia = int(np.argmin(np.linalg.norm(p.xy - a, axis=1)))
    ib = int(np.argmin(np.linalg.norm(p.xy - b, axis=1)))
    assert np.linalg.norm(p.xy[ia] - a) < 3 and np.linalg.norm(p.xy[ib] - b) < 3
    return bool(_links(p, _channels(img, s), s)[ia, ib])


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("mark,on,off", [
    # nothing between the pips: linked both ways
    ("none", True, True),
    # a highlight between them: linked only with the rule
    ("glare", True, False),
    # the same spot dark: no highlight, blocked both ways
    ("dark", False, False),
    # a bright band edge to edge: not bounded across the line, blocked both ways
    ("band", False, False),
    # a highlight over most of the line (`los_glare_share` 0.6): no spot, blocked both ways
    ("long", False, False),
    # a pip like theirs between them (a 3's corners): no highlight, blocked both ways
    ("pip", False, False),
])
def test_a_highlight_between_two_pips(mark, on, off, seed):
    img = _two(mark, seed)
    a, b = np.array([95.0, 95.0]), np.array([145.0, 145.0])
    assert _linked(img, a, b, S) is on
    assert _linked(img, a, b, OFF) is off


@pytest.mark.parametrize("seed", [0, 1])
def test_a_long_highlight_is_linked_only_without_the_share_cap(seed):
    # the "long" case above would pass as a highlight (bright, bounded across the line) but
    # for the share of the line it covers
    img = _two("long", seed)
    a, b = np.array([95.0, 95.0]), np.array([145.0, 145.0])
    assert _linked(img, a, b, replace(S, los_glare_share=1.0))


@pytest.mark.parametrize("seed", [0, 1])
def test_the_white_table_between_two_dice_blocks(seed):
    # brighter than the red face in every channel and less saturated, as glare is, but it
    # runs on across the line: two dice's pips stay unlinked
    img = _apart(seed)
    assert not _linked(img, np.array([85.0, 120.0]), np.array([145.0, 120.0]), S)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_two_with_glare_mid_face_is_read(seed):
    img = _two("glare", seed)
    on = [(d.value, round(d.center[0]), round(d.center[1])) for d in read_dice(img, S)[0]]
    off = [d.value for d in read_dice(img, OFF)[0]]
    assert [v for v, _, _ in on] == [2] and all(abs(c - 120) < 4 for _, *xy in on for c in xy)
    assert 2 not in off
