"""Troetofanten: the animal's number from its second (bottom-right) corner index
(`vision.cards.corners`). Tiny synthetic photos; a stand-in index model."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.cards.corners import (
    CORNER,
    bottom_right_frame,
    bottom_right_spec,
    combine_numbers,
    corner_visible,
    read_second_corners,
    renumbered,
)
from vision.cards.geometry import (
    INDEX_SPEC,
    SPECS,
    CardCropSettings,
    card_uv_point,
    frame_from_pose,
    pose_from_frame,
)
from vision.cards.pieces import CardPiece
from vision.cards.read import card_frame
from vision.classify.model import Prediction

SPEC = SPECS["troetofanten"]
ASPECT = SPEC.aspect
W = 40.0  # card width, px
CLASSES = ("1", "2", "3", "4", "5", "none")
PAPER = (235, 240, 242)
ON = replace(CORNER, weight=1.0, turns=(0.0,))


def table(seed: int, shape=(240, 320)) -> np.ndarray:
    """A grey-brown table with seeded noise."""
    rng = np.random.default_rng(seed)
    img = np.full((*shape, 3), (95, 110, 125), np.int16)
    img += rng.integers(-12, 13, img.shape, dtype=np.int16)
    return np.clip(img, 0, 255).astype(np.uint8)


def draw_card(img, centre, angle, width=W) -> np.ndarray:
    """A plain face-up card (paper colour); returns its frame (TL, TR, BR, BL)."""
    frame = card_frame(np.asarray(centre, float), angle, width, ASPECT)
    cv2.fillPoly(img, [np.round(frame * 16).astype(np.int32)], PAPER, cv2.LINE_AA, 4)
    return frame


def animal(label, frame, numbers, kind_p=0.9, conf=None) -> CardPiece:
    """An animal read with `numbers` (number -> share of the kind's `kind_p`)."""
    kind = label.rsplit("-", 1)[0]
    probs = {f"{kind}-{n}": kind_p * v for n, v in numbers.items()}
    probs["back"] = 1.0 - kind_p
    key, ang, wid = pose_from_frame(frame, SPEC)
    c = max(probs.values()) if conf is None else conf
    return CardPiece(label, c, key, np.asarray(frame, float), ang, wid, probs)


class Reads:
    """An index-model stand-in: every crop reads as `probs` (over `CLASSES`); counts the
    crops it was given."""

    classes = CLASSES

    def __init__(self, probs):
        self.probs = np.asarray(probs, np.float32)
        self.seen = 0

    def index(self, name: str) -> int:
        return CLASSES.index(name)

    def predict(self, crops: np.ndarray) -> Prediction:
        self.seen += len(crops)
        out = np.repeat(self.probs[None], len(crops), axis=0)
        return Prediction(out, np.zeros((len(crops), 0), np.float32))


def test_bottom_right_spec_mirrors_the_index_box():
    br = bottom_right_spec(INDEX_SPEC)
    assert br.crop_u == pytest.approx((1 - INDEX_SPEC.crop_u[1], 1 - INDEX_SPEC.crop_u[0]))
    assert br.crop_v == pytest.approx((1 - INDEX_SPEC.crop_v[1], 1 - INDEX_SPEC.crop_v[0]))
    assert br.key_uv == INDEX_SPEC.key_uv


@pytest.mark.parametrize("first,second,weight,want", [
    # both corners agree: surer than either alone
    ({"3": 0.6, "5": 0.4}, {"3": 0.6, "5": 0.4}, 1.0, ("3", 0.69)),
    # a blurred top-left 5/3 and a clear bottom-right 3: 3
    ({"3": 0.4, "5": 0.6}, {"3": 0.95, "5": 0.05}, 1.0, ("3", 0.93)),
    # the same at half weight: the second still turns it
    ({"3": 0.4, "5": 0.6}, {"3": 0.95, "5": 0.05}, 0.5, ("3", 0.74)),
    # weight 0: the first alone (normalised)
    ({"3": 0.2, "5": 0.6}, {"3": 0.95, "5": 0.05}, 0.0, ("5", 0.75)),
    # a number the second reading lacks counts as 0 there, the floor keeps it possible
    ({"2": 0.9, "4": 0.1}, {"4": 1.0}, 1.0, ("4", 1.0)),
])
def test_combine_numbers(first, second, weight, want):
    got = combine_numbers(first, second, weight, 1e-4)
    assert sum(got.values()) == pytest.approx(1.0)
    best = max(got, key=got.get)
    assert (best, round(got[best], 2)) == want


def test_renumbered_keeps_the_kind_and_scales_the_confidence():
    frame = card_frame(np.array([100.0, 100.0]), 0.0, W, ASPECT)
    p = animal("tootophant-5", frame, {"2": 0.1, "3": 0.3, "4": 0.0, "5": 0.6}, conf=0.5)
    q = renumbered(p, {"2": 0.0, "3": 0.9, "4": 0.0, "5": 0.1})
    assert q.label == "tootophant-3"
    assert q.probs["tootophant-3"] == pytest.approx(0.81)
    assert sum(v for k, v in q.probs.items() if k.startswith("tootophant")) == \
        pytest.approx(0.9)
    assert q.probs["back"] == p.probs["back"]
    assert q.confidence == pytest.approx(0.5 * 0.81 / 0.54)


@pytest.mark.parametrize("centre,other,want", [
    ((150.0, 110.0), None, True),  # alone in the photo
    ((300.0, 110.0), None, False),  # its bottom-right corner beyond the photo's edge
    ((150.0, 110.0), (180.0, 150.0), False),  # another card read lies over that corner
    ((150.0, 110.0), (110.0, 110.0), True),  # another card beside its top-left: no matter
])
def test_corner_visible(centre, other, want):
    frame = card_frame(np.array(centre), 0.0, W, ASPECT)
    others = [] if other is None else [card_frame(np.array(other), 0.0, W, ASPECT)]
    assert corner_visible(frame, others, INDEX_SPEC, (240, 320, 3)) == want


@pytest.mark.parametrize("angle,scale,turn", [
    (0.0, 1.0, 0.0),  # the pose right: stays
    (10.0, 1.12, 0.0),  # the width read 12 % too wide
    (-20.0, 0.88, 5.0),  # too narrow and turned 5 degrees off
    (35.0, 1.0, -6.0),  # turned the other way
])
def test_bottom_right_frame_finds_the_card_edges(angle, scale, turn):
    img = table(1)
    truth = draw_card(img, (160.0, 120.0), angle)
    key, _, _ = pose_from_frame(truth, SPEC)  # (the top-left index: found well)
    pose = frame_from_pose(key, angle + turn, W * scale, SPEC)
    got = bottom_right_frame(img, pose)
    assert got is not None
    want = card_uv_point(truth, 0.83, 0.89)
    before = np.hypot(*(card_uv_point(pose, 0.83, 0.89) - want)) / W
    after = np.hypot(*(card_uv_point(got, 0.83, 0.89) - want)) / W
    assert after < 0.06
    assert after <= before + 0.02


def test_bottom_right_frame_none_without_edges():
    img = np.full((240, 320, 3), PAPER, np.uint8)  # paper everywhere: no card edge
    pose = card_frame(np.array([160.0, 120.0]), 0.0, W, ASPECT)
    assert bottom_right_frame(img, pose) is None


def _scene():
    """Two tootophants read as 5 (0.6) or 3 (0.4): one alone, one under a card read."""
    img = table(2)
    alone = draw_card(img, (80.0, 110.0), 0.0)
    under = draw_card(img, (200.0, 110.0), 0.0)
    top = draw_card(img, (225.0, 140.0), 0.0)
    numbers = {"2": 0.0, "3": 0.4, "4": 0.0, "5": 0.6}
    key, ang, wid = pose_from_frame(top, SPEC)
    mouse = CardPiece("mouse", 0.9, key, top, ang, wid, {"mouse": 0.9, "back": 0.1})
    return img, [animal("tootophant-5", alone, numbers), animal("tootophant-5", under, numbers),
                 mouse]


@pytest.mark.parametrize("br,settings,want", [
    # the bottom-right index reads 3 surely: the card alone becomes 3, the covered one stays
    ([0.0, 0.02, 0.95, 0.02, 0.01, 0.0], ON, ["tootophant-3", "tootophant-5", "mouse"]),
    # it looks like no index ("none"): no vote
    ([0.0, 0.0, 0.3, 0.0, 0.0, 0.7], ON, ["tootophant-5", "tootophant-5", "mouse"]),
    # off (the default weight 0): nothing read
    ([0.0, 0.02, 0.95, 0.02, 0.01, 0.0], CORNER, ["tootophant-5", "tootophant-5", "mouse"]),
])
def test_read_second_corners(br, settings, want):
    img, pieces = _scene()
    model = Reads(br)
    got = read_second_corners(model, INDEX_SPEC, CardCropSettings(), img, pieces, settings)
    assert [p.label for p in got] == want
    assert model.seen == (1 if settings.weight > 0 else 0)  # only the card alone is read
