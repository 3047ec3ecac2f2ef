"""`CardReader.second_look`: a close-up's Troetofanten cards too large for the key-point
detector read once more on the photo at half size (stand-in readings, no models)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tests.vision.cards.helpers import card
from vision.cards.detect import KIND_PIECE, Keypoints
from vision.cards.geometry import SPECS
from vision.cards.pieces import CardPiece
from vision.cards.read import READ, CardReader, close_merged

ASPECT = SPECS["troetofanten"].aspect
SHAPE = (480, 640, 3)  # the photo


def half(p: CardPiece) -> CardPiece:
    """`p` as the reader finds it on the photo at half size."""
    return CardPiece(p.label, p.confidence, (p.key + 0.5) / 2 - 0.5,
                     (p.frame + 0.5) / 2 - 0.5, p.angle, p.width / 2)


class Detector:
    """A key-point detector stand-in: `n` key points of heat 0.9 on any photo (a dict: on
    a photo of that width, else none)."""

    def __init__(self, n: int | dict):
        self.n = n

    def detect(self, image, threshold):
        n = self.n if isinstance(self.n, int) else self.n.get(image.shape[1], 0)
        return Keypoints(np.zeros((n, 2)), np.full(n, KIND_PIECE), np.full(n, 0.9, np.float32),
                         np.zeros(n), np.full(n, 50.0))


class Reader:
    """A reader whose second look returns given pieces (photo px, halved for it); its
    detector finds `half_keys` key points on the small photo."""

    def __init__(self, second: list[CardPiece], half_keys: int | dict = 0):
        self.r = CardReader.__new__(CardReader)
        self.r.settings = READ
        self.r.detector = Detector(half_keys)
        self.calls = []
        self.keys = []  # the key points second_look handed on with each call
        self.r.read_pieces = self.read
        self.second = second

    def read(self, image, game, within=None, keys=None):
        self.calls.append((image.shape, game, within))
        self.keys.append(keys)
        return [half(p) for p in self.second], []

    def look(self, first, searched, posed, xy=None, sure=10):
        xy = [(380.0, 300.0 + 10 * k) for k in range(len(searched))] if xy is None else xy
        return self.r.second_look(np.zeros(SHAPE, np.uint8), first,
                                  np.asarray(searched, float), np.asarray(posed, float),
                                  np.asarray(xy, float).reshape(-1, 2), sure)


FAR = [card("elephant-1", (100, 80), width=50), card("elephant-3", (170, 80), width=50),
       card("elephant-2", (240, 80), width=50)]  # a far row, read right
NEAR = card("elephant-4", (400, 330), width=120)  # a near card, missed by the first look
BIG = ([100, 110], [45, 48])  # the search's widths of two key points (near NEAR: `look`)
#                               and their posed widths


@pytest.mark.parametrize("searched,posed,looks", [
    (*BIG, True),  # two near cards the width field of the far row made narrow
    ([100], [45], False),  # one alone: the search's noise
    ([100, 110], [90, 95], False),  # the field follows large cards: the first look reads them
    ([100, 110], [60, 65], False),  # under `big_field` x their pose: the search's noise
    ([80, 85], [40, 40], False),  # under `big_card`: the detector handles such cards
])
def test_second_look_only_where_the_first_found_large_cards_made_narrow(searched, posed,
                                                                         looks):
    rd = Reader([NEAR])
    out = rd.look(FAR, searched, posed)
    assert bool(rd.calls) == looks
    assert (len(out) == 4) == looks
    if looks:  # on the photo at half size, only near the key points that asked for it
        ((shape, game, (centres, radii)),) = rd.calls
        assert shape == (240, 320, 3) and game == "troetofanten"
        assert rd.keys == [None]  # (read_pieces detects them on the small photo itself)
        np.testing.assert_allclose(centres, [(189.75, 149.75), (189.75, 154.75)])
        np.testing.assert_allclose(radii, [200, 220])  # `big_reach` x searched, halved


def test_second_look_adds_a_large_card_in_photo_px():
    out = Reader([NEAR]).look(FAR, *BIG)
    assert out[:3] == FAR
    new = out[3]
    assert new.label == "elephant-4" and new.width == pytest.approx(120)
    np.testing.assert_allclose(new.frame, NEAR.frame, atol=1e-9)


@pytest.mark.parametrize("second,added", [
    (card("elephant-4", (400, 330), width=70), False),  # not `big_ratio` x the cards near it
    (card("elephant-4", (400, 330), width=120, conf=0.5), False),  # unsure
    (card("elephant-4", (660, 330), width=120), False),  # centred off the photo
    (card("elephant-5", (250, 335), width=120), False),  # a card read about as wide lies there
    (card("back", (420, 300), width=110), True),
    (card("back", (600, 120), width=110), True),  # 1.4 of the asking key points' widths away
])
def test_second_look_what_it_adds(second, added):
    first = FAR + [card("elephant-5", (240, 330), width=110)]
    out = Reader([second]).look(first, *BIG)
    assert (len(out) == len(first) + 1) == added


@pytest.mark.parametrize("inside,replaced", [
    (["back", "back"], True),  # one large back read as narrow ones: the large one instead
    (["back"], True),
    (["back", "elephant-2"], False),  # two labels: two cards there (a pile), first look kept
])
def test_second_look_replaces_the_same_card_read_too_narrow(inside, replaced):
    narrow = [card(lab, (380 + 30 * k, 320), width=50) for k, lab in enumerate(inside)]
    out = Reader([card("back", (400, 330), width=115)]).look(FAR + narrow, *BIG)
    if replaced:
        assert out == FAR + [out[-1]] and out[-1].width == pytest.approx(115)
    else:
        assert out == FAR + narrow


@pytest.mark.parametrize("at,added", [
    ((380, 300), True),  # where the first look saw large cards
    ((380 + 3.9 * 100, 300), True),
    ((380 - 4.5 * 100, 300), False),  # far from every key point that asked for the look
])
def test_second_look_adds_cards_only_near_the_key_points_that_asked(at, added):
    out = Reader([card("mousetrap", (400, 330), width=120)]).look(FAR, [100, 100], [45, 45],
                                                           [at, at])
    assert (len(out) == 4) == added


@pytest.mark.parametrize("sure,half_keys,looks", [
    (0, 2, True),  # a close-up: no sure key point on the photo, two on the small one
    (3, 5, True),
    (3, 4, False),  # one more only: under `close_more`
    (10, 3, False),  # the usual photo: the small one's key points are fewer
])
def test_second_look_a_close_up_read_whole_at_half_size(sure, half_keys, looks):
    rd = Reader([NEAR, card("elephant-2", (150, 150), width=100)], half_keys)
    out = rd.look([], [], [], sure=sure)
    assert bool(rd.calls) == looks
    if looks:
        ((shape, _, (centres, radii)),) = rd.calls
        assert np.isinf(radii).all()  # the whole photo
        assert [p.label for p in out] == ["elephant-4", "elephant-2"]
    else:
        assert out == []


@pytest.mark.parametrize("keys,shape", [
    ({320: 4, 160: 2}, (240, 320, 3)),  # more key points at half size
    ({320: 2, 160: 4}, (120, 160, 3)),  # more at a quarter (the cards larger still)
    ({320: 3, 160: 3}, (240, 320, 3)),  # as many: the larger scale
])
def test_second_look_a_close_up_at_the_scale_with_most_key_points(keys, shape):
    rd = Reader([], keys)
    rd.look([], [], [], sure=0)
    assert [c[0] for c in rd.calls] == [shape]
    (kp,) = rd.keys  # the picked photo's key points, detected once
    assert len(kp) == keys[shape[1]]


class WeakDetector(Detector):
    """`n` key points of heat 0.9 and as many of 0.3 (under `close_heat`) on any photo."""

    def detect(self, image, threshold):
        n = self.n
        score = np.r_[np.full(n, 0.9), np.full(n, 0.3)].astype(np.float32)
        return Keypoints(np.zeros((2 * n, 2)), np.full(2 * n, KIND_PIECE), score,
                         np.zeros(2 * n), np.full(2 * n, 50.0))


@pytest.mark.parametrize("n,looks", [(2, True), (1, False)])
def test_second_look_a_close_up_counts_only_key_points_of_close_heat(n, looks):
    """The small photo's key points come at read_pieces' own threshold (they go on to it);
    only those of `close_heat` count."""
    rd = Reader([NEAR], n)
    rd.r.detector = WeakDetector(n)
    rd.look([], [], [], sure=0)
    assert bool(rd.calls) == looks
    if looks:
        assert len(rd.keys[0]) == 2 * n  # all of them handed on, the weak ones too


# `close_merged`: a fan of large cards the first look read narrow (committed e2 0008: six
# cards of 115-123 px read at 86-91 px, two missed), merged card by card by key point.
FAN = [card(lab, (300 + 40 * k, 330), width=120)
       for k, lab in enumerate(["elephant-5", "elephant-2", "tootophant-3"])]


def at_key(label, key, width, conf=0.95):
    """A card read with its key point (top-left corner, upright) at `key`."""
    return card(label, (key[0] + width / 2, key[1] + width * ASPECT / 2), conf, width=width)


FAN_FIRST = [at_key("elephant-2", FAN[1].key, 85)]  # its key point asked for the look


def merged(turned, first=FAN_FIRST, asked=None, seen=None):
    """`close_merged` of `turned` into `first`; the close-up look saw the whole fan."""
    asked = [p.key for p in first] if asked is None else asked
    return close_merged(first, turned, FAN + turned if seen is None else seen, asked, READ)


@pytest.mark.parametrize("q,out_labels", [
    (FAN[0], ["elephant-2", "elephant-5"]),  # at no card read, large: added
    (card("elephant-5", (300, 330), width=70), ["elephant-2"]),  # the detector's size
    (at_key("back", FAN[1].key, 120), ["back"]),  # the same key point, 1.4 x wider
    (at_key("back", FAN[1].key, 90), ["elephant-2"]),  # under `close_ratio` x as wide
])
def test_close_merged_adds_or_replaces_by_key_point(q, out_labels):
    assert [p.label for p in merged([q])] == out_labels


def test_close_merged_a_whole_fan():
    out = merged(FAN)
    assert sorted(p.label for p in out) == ["elephant-2", "elephant-5", "tootophant-3"]
    assert all(p.width == pytest.approx(120) for p in out)


def test_close_merged_replaces_only_where_the_key_point_asked():
    out = merged([FAN[1]], asked=[(600.0, 600.0)])
    assert out == FAN_FIRST


def test_close_merged_not_over_a_card_the_close_up_did_not_see():
    """A wide card over a first-look card of another label that the close-up look did
    not read: the small photo blurred a pile into one card; nothing added."""
    first = [at_key("mouse", (275.0, 300.0), 60)]  # its centre in FAN[0]'s frame
    assert merged([FAN[0]], first=first, asked=[]) == first
    seen = [FAN[0], at_key("mouse", (276.0, 301.0), 66)]  # it saw the mouse too
    assert [p.label for p in merged([FAN[0]], first=first, asked=[], seen=seen)] == \
        ["mouse", "elephant-5"]


def test_close_merged_each_card_once():
    twice = [FAN[0], card("elephant-5", (302, 331), width=121, conf=0.9)]
    assert [p.label for p in merged(twice)] == ["elephant-2", "elephant-5"]


def test_second_look_merges_the_fan_it_turned_away():
    """Through `second_look`: the close-up cards turned away by its own rules (a card
    read about as wide lies there; a card of another label inside) merged by key point."""
    first = FAR + [at_key("elephant-2", FAN[1].key, 90)]
    out = Reader(FAN).look(first, [160, 157], [86, 87], [first[-1].key, first[-1].key])
    assert sorted(p.label for p in out[3:]) == ["elephant-2", "elephant-5", "tootophant-3"]
    off = Reader(FAN)
    off.r.settings = replace(READ, close_merge=False)
    out = off.look(first, [160, 157], [86, 87], [first[-1].key, first[-1].key])
    assert "elephant-5" not in [p.label for p in out]  # without it: the fan's card missed


def test_close_merged_a_back_is_one_card_by_its_centre():
    """A back's key point may be any of its look-alike corners: a close-up back centred on
    a back read (a taught reader's, by its look) is that back, not a second one."""
    first = [card("back", (600, 700), width=110)]
    q = card("back", (603, 698), width=116, angle=180.0)  # key point at the other corner
    assert merged([q], first=first, asked=[]) == first


E2_FAN = Path(__file__).resolve().parents[3] / "datasets" / "scenes-edition2" / "troetofanten" \
    / "troetofanten-e2-s2-0008.jpg"


@pytest.mark.parametrize("merge,found", [
    (True, True),  # the close-up's fan merged card by card
    (False, False),  # as before session 31: its elephant-5 and elephant-3 missed
])
def test_a_committed_close_up_fan_is_read_whole(merge, found):
    """Committed edition-2 scene 0008 (a real reading, the committed models): a fan of six
    cards 115-123 px wide in the south; elephant-5 at (198, 768) and elephant-3 at (366,
    831) are read only by the close-up look, merged card by card."""
    import copy

    import cv2

    from vision.pipeline import get_pipeline

    reader = copy.copy(get_pipeline().cards)
    reader.settings = replace(reader.settings, close_merge=merge)
    pieces, _ = reader.read_pieces(cv2.imread(str(E2_FAN)), "troetofanten")
    for label, at in (("elephant-5", (198.3, 768.3)), ("elephant-3", (365.6, 831.4))):
        here = [p for p in pieces if p.label == label and np.hypot(*(p.center - at)) < 57.0]
        assert bool(here) == found, [(p.label, np.round(p.center)) for p in pieces]
