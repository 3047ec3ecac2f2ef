"""`vision.cards.light.paper_gains` and `stage.paper_balanced`: the light's colour from the
face-up cards' white paper, the photo balanced and read again only where the cast is strong
(tiny synthetic photos, a stand-in reader, no models)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.cards.helpers import card
from vision.cards.geometry import SPECS
from vision.cards.light import PaperLightSettings, paper_gains
from vision.cards.read import READ
from vision.cards.stage import paper_balanced

ASPECT = SPECS["troetofanten"].aspect
S = PaperLightSettings(cast=1.3)


def photo(light, papers=((235, 235, 235),) * 2) -> np.ndarray:
    """A dark green table with two cards (a red figure on each) on `papers` (BGR) under
    `light` (B, G, R gains on the uint8 values), seeded noise."""
    rng = np.random.default_rng(3)
    img = np.empty((200, 300, 3), np.float32)
    img[:] = (40, 90, 50)
    for cx, paper in zip((80, 200), papers, strict=True):
        img[60:140, cx - 25:cx + 25] = paper  # the paper
        img[85:115, cx - 10:cx + 10] = (30, 30, 200)  # the figure
    img += rng.normal(0, 3, img.shape)
    return np.clip(img * np.asarray(light, np.float32), 0, 255).astype(np.uint8)


CARDS = [card("elephant-3", (80, 100)), card("tamer", (200, 100))]


@pytest.mark.parametrize("light, least, most", [
    ((1.0, 1.0, 1.0), 1.0, 1.05),  # white light: no cast
    ((0.55, 0.8, 1.0), 1.7, 1.9),  # a warm lamp: blue needs ~1 / 0.55
    ((1.0, 0.9, 0.75), 1.25, 1.4),  # cool daylight: red needs ~1 / 0.75
])
def test_paper_gains_follow_the_light(light, least, most):
    g = paper_gains(photo(light), CARDS, s=S)
    assert least <= g.max() <= most


@pytest.mark.parametrize("pieces", [
    [card("elephant-3", (80, 100))],  # one card: too few
    [card("back", (80, 100)), card("back", (200, 100))],  # backs are no paper
    [card("elephant-3", (80, 100), 0.5), card("tamer", (200, 100), 0.5)],  # unsure readings
])
def test_no_estimate_without_sure_face_up_cards(pieces):
    assert np.array_equal(paper_gains(photo((0.55, 0.8, 1.0)), pieces, s=S), np.ones(3))


class Reader:
    """Reads CARDS again, noting the image it was given."""

    settings = READ

    def __init__(self):
        self.seen, self.areas = [], []

    def read_pieces(self, image, game, area=None):
        self.seen.append(image)
        self.areas.append(area)
        return list(CARDS), ["again"]


@pytest.mark.parametrize("light, again", [
    ((1.0, 1.0, 1.0), False),  # no cast: the first look is kept, nothing read again
    ((0.55, 0.8, 1.0), True),  # a warm lamp: balanced and read again
])
def test_read_again_only_under_a_strong_cast(light, again):
    r, img = Reader(), photo(light)
    out, pieces, warnings = paper_balanced(r, img, "troetofanten", CARDS, ["first"], S,
                                           area="the cloth")
    assert (len(r.seen) == 1) == again
    assert r.areas == (["the cloth"] if again else [])  # the second read keeps the area
    assert warnings == (["again"] if again else ["first"])
    if again:  # the paper comes out grey
        paper = out[65:80, 60:70].reshape(-1, 3).mean(axis=0)
        assert paper.max() - paper.min() < 12
    else:
        assert out is img


def test_min_cards_at_least_one():
    with pytest.raises(ValueError):
        PaperLightSettings(min_cards=0)  # (no card: a NaN median would black out the photo)


def test_one_cream_card_is_no_cast():
    """White light, a white card and one with cream artwork (which alone needs a blue gain
    of 2): the median of two is their mean (a gain of ~1.34, over the cast), yet only one
    card needs it: not balanced, not read again."""
    r, img = Reader(), photo((1.0, 1.0, 1.0), ((235, 235, 235), (120, 210, 240)))
    assert np.array_equal(paper_gains(img, CARDS, s=S), np.ones(3))
    out, _, warnings = paper_balanced(r, img, "troetofanten", CARDS, ["first"], S)
    assert out is img and not r.seen and warnings == ["first"]


@pytest.mark.parametrize("second", [
    [],  # the balanced look reads nothing: the first look's, whole
    [CARDS[0]],  # it reads something: its reading
])
def test_an_empty_second_look_keeps_the_first(second):
    class Second(Reader):
        def read_pieces(self, image, game, area=None):
            self.seen.append(image)
            return list(second), ["again"]

    r, img = Second(), photo((0.55, 0.8, 1.0))
    out, pieces, warnings = paper_balanced(r, img, "troetofanten", CARDS, ["first"], S)
    assert len(r.seen) == 1
    if not second:
        assert out is img and pieces == CARDS and warnings == ["first"]
    else:
        assert out is not img and pieces == second and warnings == ["again"]


@pytest.mark.parametrize("light, again", [
    ((1.0, 1.0, 1.0), False),  # white light
    ((1.0, 1.0, 0.92), False),  # a slight tint (~1.09), as ordinary photos show (<= 1.2)
    ((1.0, 0.9, 0.8), True),  # cool daylight, red needs ~1.25 (under the old 1.3 bar)
    ((0.8, 0.9, 1.0), True),  # a mild warm cast, blue ~1.25
    ((0.55, 0.8, 1.0), True),  # a warm lamp
])
def test_default_cast_reads_daylight_again(light, again):
    """The default bar (`PAPER_LIGHT.cast` 1.2, session 17 H14) balances a cool daylight's
    cast of ~1.25, which 1.3 left unbalanced, and not ordinary light's slight tint."""
    r = Reader()
    paper_balanced(r, photo(light), "troetofanten", CARDS, ["first"], PaperLightSettings())
    assert (len(r.seen) == 1) == again
