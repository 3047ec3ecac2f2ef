"""`vision.cards.light.paper_level` / `dim_gain` and `stage.dim_added`: a dark photo's cards
looked for once more on a copy brought up by its own white paper, the new cards added
(tiny synthetic photos, a stand-in reader, no models; session 20, H4)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.cards.helpers import card
from vision.area import LINEAR8, linear_gain_lut
from vision.cards.light import DimLightSettings, dim_gain, paper_level
from vision.cards.read import READ
from vision.cards.stage import dim_added

CARDS = [card("elephant-3", (80, 100)), card("tamer", (200, 100))]
S = DimLightSettings()


def photo(light: float, seed: int = 3) -> np.ndarray:
    """A dark green table with two white cards (a red figure on each) at CARDS' places,
    seeded noise, under `light` x the light in linear light."""
    rng = np.random.default_rng(seed)
    img = np.empty((200, 300, 3), np.float32)
    img[:] = (40, 90, 50)
    for cx in (80, 200):
        img[75:125, cx - 18:cx + 18] = 240  # the paper (the frame is 40 x 57 px)
        img[92:108, cx - 6:cx + 6] = (30, 30, 200)  # the figure
    img = np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)
    return linear_gain_lut(light)[img] if light != 1.0 else img


@pytest.mark.parametrize("light", [1.0, 0.6, 0.4, 0.2, 0.1])
def test_paper_level_follows_the_light(light):
    """The paper's level is its linear light: 240's (0.87) times the light."""
    level = paper_level(photo(light), CARDS, READ, S)
    assert level == pytest.approx(LINEAR8[240] * light, rel=0.08)


@pytest.mark.parametrize("pieces", [
    [card("elephant-3", (80, 100))],  # one card: too few
    [card("back", (80, 100)), card("back", (200, 100))],  # backs are no paper
    [card("elephant-3", (80, 100), 0.5), card("tamer", (200, 100), 0.5)],  # unsure readings
])
def test_no_level_without_sure_face_up_cards(pieces):
    assert paper_level(photo(0.3), pieces, READ, S) is None


@pytest.mark.parametrize("level, gain", [
    (None, 1.0),  # no level: nothing to go by
    (0.9, 1.0), (0.45, 1.0),  # well exposed, and just at the bar
    (0.4, 2.0), (0.2, 4.0),  # brought up to 0.8
    (0.1, 4.0), (0.0, 4.0),  # at most `most_gain`
])
def test_dim_gain(level, gain):
    assert dim_gain(level, S) == pytest.approx(gain)


def test_dim_gain_off():
    assert dim_gain(0.1, DimLightSettings(below=0.0)) == 1.0


@pytest.mark.parametrize("kw", [{"min_cards": 0}, {"most_gain": 0.5}])
def test_settings_checked(kw):
    with pytest.raises(ValueError):
        DimLightSettings(**kw)


class Reader:
    """Reads `again` on the second look, noting the image and area it was given."""

    settings = READ

    def __init__(self, again):
        self.again, self.seen, self.areas, self.far = again, [], [], []

    def read_pieces(self, image, game, area=None):
        self.seen.append(image)
        self.far.append(self.settings.far_scale)  # (the far look the reading would take)
        self.areas.append(area)
        return list(self.again), [f"the {q.label} at ({q.center[0]:.0f}, {q.center[1]:.0f}) "
                                  "is unsure" for q in self.again]


NEW = card("back", (140, 40))  # no first-look card near it
SAME_PLACE = card("elephant-4", (82, 102))  # the first look's elephant-3, read again


@pytest.mark.parametrize("light, read_again", [(1.0, False), (0.6, False), (0.4, True),
                                                (0.15, True)])
def test_read_again_only_when_dark(light, read_again):
    r, img = Reader([SAME_PLACE, NEW]), photo(light)
    out, pieces, warnings = dim_added(r, img, "troetofanten", CARDS, ["first"], S,
                                      area="the cloth")
    assert out is img  # the first look's image, whatever happens
    assert len(r.seen) == int(read_again)
    if not read_again:
        assert pieces == CARDS and warnings == ["first"]
        return
    assert r.areas == ["the cloth"]
    # the copy is brought up: its paper near `to` (at most `most_gain` x its level)
    level = paper_level(img, CARDS, READ, S)
    assert paper_level(r.seen[0], CARDS, READ, S) == pytest.approx(
        min(S.to, S.most_gain * level), rel=0.12)
    # the first look's readings stand (the elephant-3 not replaced), the new card added
    # with its own warning only
    assert pieces == CARDS + [NEW]
    assert warnings == ["first", "the back at (140, 40) is unsure"]


def test_nothing_new_keeps_the_first_look():
    r, img = Reader([SAME_PLACE]), photo(0.3)
    out, pieces, warnings = dim_added(r, img, "troetofanten", CARDS, ["first"], S)
    assert len(r.seen) == 1
    assert out is img and pieces == CARDS and warnings == ["first"]


@pytest.mark.parametrize("offset, reach, added", [
    (24.0, 0.75, False),  # 0.6 widths from the first look's elephant: that card again
    (24.0, 0.5, True),  # ... a new card under a reach of half a width
    (32.0, 0.75, True),  # 0.8 widths: a card of its own
])
def test_reach_from_the_first_looks_cards(offset, reach, added):
    near = card("back", (80 + offset, 100))
    r = Reader([near])
    _, pieces, _ = dim_added(r, photo(0.3), "troetofanten", CARDS, ["first"],
                             DimLightSettings(reach=reach))
    assert (pieces == CARDS + [near]) == added and (pieces == CARDS) != added


@pytest.mark.parametrize("far_look, far_scale, expected", [
    (False, 2.0, None),  # the default: the brought-up copy read without a far look
    (True, 2.0, 2.0),  # asked for: the reader's own far look, as before session 27
    (False, None, None),  # a reader with no far look stays without one
])
def test_dim_reading_without_its_own_far_look(far_look, far_scale, expected):
    from dataclasses import replace

    r = Reader([NEW])
    r.settings = replace(READ, far_scale=far_scale)
    own = r.settings
    _, pieces, _ = dim_added(r, photo(0.3), "troetofanten", CARDS, ["first"],
                             DimLightSettings(far_look=far_look))
    assert r.far == [expected]
    assert r.settings is own  # the caller's reader keeps its settings
    assert pieces == CARDS + [NEW]  # the card read on the copy added all the same
