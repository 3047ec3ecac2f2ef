"""`vision.cards.stage.shadow_relit` and `vision.cards.light.paper_shade_step`: a hard
shadow's shade lit up and the photo read again only where the cards' own paper steps down
across the edge (tiny synthetic photos, a stand-in reader, no models)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.vision.cards.helpers import card
from vision.cards.light import CARD_SHADOW, CardShadowSettings, paper_shade_step, shade_share
from vision.cards.read import READ
from vision.cards.stage import (
    shadow_edges_scaled,
    shadow_relit,
    warnings_about,
)

LIT = [(90, 70), (330, 60)]  # card centres above the edge (y = 150 + 0.2 x)
SHADE = [(120, 260), (360, 290)]  # ... and below it
WIDTH = 50.0


def first_edge(img: np.ndarray):
    """The first of `shadow_edges_scaled`'s candidates, or None."""
    edges = shadow_edges_scaled(img, replace(CARD_SHADOW, edges=1))
    return edges[0] if edges else None


def table(cards, stripe: bool = False, seed: int = 5) -> np.ndarray:
    """A 360 x 480 wood-brown table with white cards (a red figure on each) at `cards`
    (centres); `stripe`: the table (not the cards on it) darker by ~3 x in linear light
    below the line y = 150 + 0.2 x (a table's own pattern or shading), seeded noise."""
    img = np.empty((360, 480, 3), np.float32)
    img[:] = (60, 100, 140)
    if stripe:
        yy, xx = np.mgrid[0:360, 0:480]
        img[yy > 150 + 0.2 * xx] = (32, 56, 80)
    for cx, cy in cards:
        w, h = int(WIDTH / 2), int(WIDTH * 0.7)
        img[cy - h:cy + h, cx - w:cx + w] = (235, 235, 235)
        img[cy - 12:cy + 12, cx - 10:cx + 10] = (30, 30, 200)
    img += np.random.default_rng(seed).normal(0, 2, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def shadowed(img: np.ndarray, dark: float = 0.3) -> np.ndarray:
    """`img` with everything below y = 150 + 0.2 x (cards and table alike) in a hard shadow:
    `dark` of the light, a little bluer, in linear light (as `light_eval`'s shadow)."""
    from vision.light_eval import in_linear

    yy, xx = np.mgrid[0:360, 0:480]
    inside = np.clip(0.5 + (yy - 150 - 0.2 * xx) / 3.0, 0, 1)[..., None]
    return in_linear(img, 1.0 - inside * (1.0 - dark * np.array([1.1, 1.0, 0.9])))


def faces(centres, label="elephant-3", conf=0.95):
    return [card(label, c, conf, width=WIDTH) for c in centres]


class Reader:
    """Reads `first` on the photo it is first given, `second` on any later one; notes the
    images and areas it was given."""

    settings = READ

    def __init__(self, second, warnings2=("again",)):
        self.second, self.warnings2 = second, list(warnings2)
        self.seen, self.areas = [], []

    def read_pieces(self, image, game, area=None):
        self.seen.append(image)
        self.areas.append(area)
        return list(self.second), list(self.warnings2)


ALL = LIT + SHADE


def short_shade(img: np.ndarray) -> np.ndarray:
    """`shadowed`, but lit again right of x = 410: a shade that ends short of the photo's
    edge (a person's shadow with light past their side), its edge still straight across
    most of the photo; the card at (445, 300) below the line is lit."""
    out = shadowed(img)
    out[:, 410:] = img[:, 410:]
    return out


FAR = (445, 300)  # a card below the edge's line, beyond `short_shade`'s end


@pytest.mark.parametrize("scene, read_again", [
    ("shadow", True),  # a hard shadow over half the cards: lit up and read again
    ("deep", True),  # a darker one (a fifth of the light)
    ("plain", False),  # no shadow: no edge
    ("stripe", False),  # the table darker beyond a line, the cards on it not: no shadow
    ("shadow_no_shaded_card", False),  # a shadow, but no sure card in it to check the paper
    ("short_shade", False),  # a card on the shade's side is lit: no half-plane's shade
])
def test_read_again_only_across_a_shadow(scene, read_again):
    centres = {"shadow_no_shaded_card": LIT, "short_shade": ALL + [FAR]}.get(scene, ALL)
    img = {"shadow": lambda: shadowed(table(ALL)),
           "deep": lambda: shadowed(table(ALL), dark=0.2),
           "plain": lambda: table(ALL),
           "stripe": lambda: table(ALL, stripe=True),
           "shadow_no_shaded_card": lambda: shadowed(table(LIT)),
           "short_shade": lambda: short_shade(table(ALL + [FAR]))}[scene]()
    first = faces(centres)
    second = faces(centres) + [card("tamer", (240, 300), width=WIDTH)]
    r = Reader(second)
    out, pieces, warnings = shadow_relit(r, img, "troetofanten", first, ["first"],
                                         area="the cloth")
    assert (len(r.seen) == 1) == read_again
    if read_again:  # (the default "replace": the lit-up look's reading and image)
        assert r.areas == ["the cloth"]
        assert out is r.seen[0] and pieces == second and warnings == ["again"]
        paper = table(ALL)[200:340, 20:460].sum(axis=2) > 600  # the shaded cards' paper
        assert out[200:340, 20:460][paper].mean() > 200  # ... lit up again
        assert img[200:340, 20:460][paper].mean() < 160
    else:
        assert out is img and pieces == first and warnings == ["first"]


def test_short_shade_is_found_and_stopped_by_the_lit_card():
    img = short_shade(table(ALL + [FAR]))
    edge = first_edge(img)
    assert edge is not None
    step, n_lit, n_dark, agree = paper_shade_step(img, faces(ALL + [FAR]), edge[1], READ)
    assert (n_lit, n_dark) == (2, 3) and step > CARD_SHADOW.paper_step
    assert agree == pytest.approx(0.8)  # the far card lies brighter than the midpoint
    step, n_lit, n_dark, agree = paper_shade_step(img, faces(ALL), edge[1], READ)
    assert agree == 1.0  # without it, the same photo's cards agree


def test_a_table_stripe_is_stopped_by_the_paper():
    """The stripe is a long straight step across the photo that `shadow_edge` takes (~3 x,
    of one colour); the cards lying on it are not darkened, so their paper's step (~1)
    stops it."""
    img = table(ALL, stripe=True)
    edge = first_edge(img)
    assert edge is not None
    step, n_lit, n_dark, _ = paper_shade_step(img, faces(ALL), edge[1], READ)
    assert n_lit == n_dark == 2 and step < 1.2


@pytest.mark.parametrize("dark, least, most", [(0.3, 2.6, 3.6), (0.5, 1.7, 2.2)])
def test_paper_step_follows_the_shadow(dark, least, most):
    img = shadowed(table(ALL), dark)
    edge = first_edge(img)
    assert edge is not None
    step, n_lit, n_dark, agree = paper_shade_step(img, faces(ALL), edge[1], READ)
    assert (n_lit, n_dark, agree) == (2, 2, 1.0)
    assert least <= step <= most


@pytest.mark.parametrize("pieces, n", [
    (faces(ALL, "back"), 0),  # backs are no paper
    (faces(ALL, conf=0.5), 0),  # unsure readings
    (faces(ALL) + [card("tamer", (240, 150 + 48), width=WIDTH)], 2),  # one on the edge: neither
])
def test_paper_step_counts_sure_faces_wholly_on_a_side(pieces, n):
    img = shadowed(table(ALL))
    edge = first_edge(img)
    _, n_lit, n_dark, _ = paper_shade_step(img, pieces, edge[1], READ)
    assert n_lit == n_dark == n


def test_replace_keeps_the_second_reading_and_the_lit_image():
    img = shadowed(table(ALL))
    second = faces(SHADE)
    r = Reader(second)
    s = CARD_SHADOW
    out, pieces, warnings = shadow_relit(r, img, "troetofanten", faces(ALL), ["first"], s)
    assert out is r.seen[0] and out is not img
    assert pieces == second and warnings == ["again"]
    r = Reader([])  # the lit-up look reads nothing: the first look's, whole
    out, pieces, warnings = shadow_relit(r, img, "troetofanten", faces(ALL), ["first"], s)
    assert out is img and len(pieces) == 4 and warnings == ["first"]


def test_off_and_bad_settings():
    img = shadowed(table(ALL))
    r = Reader(faces(SHADE))
    shadow_relit(r, img, "troetofanten", faces(ALL), [], replace(CARD_SHADOW, side=0))
    shadow_relit(r, img, "troetofanten", faces(ALL), [], replace(CARD_SHADOW, paper_step=9))
    assert not r.seen
    with pytest.raises(ValueError):
        CardShadowSettings(least_each_side=0)


def test_shade_share_and_warnings_about():
    sides = [((0.0, 100.0), np.array([0.0, 1.0]), (np.array([-2.0, 0, 2]), np.array([0, .5, 1])))]
    got = shade_share(sides, np.array([[5, 50], [5, 100], [5, 150]]))
    assert np.allclose(got, [0.0, 0.5, 1.0])
    assert warnings_about(["x at (10, 10)", "y at (99, 99)", "z"], [card("tamer", (12, 9))]) \
        == ["x at (10, 10)"]


def left_stripe(img: np.ndarray) -> np.ndarray:
    """`img` with the table (not the cards) left of x = 40 darker (0.6 of its sRGB level):
    a table's own straight step with every card on one side of it, which `shadow_edges`
    takes before a real shadow's edge."""
    out = img.copy()
    xx = np.mgrid[0:360, 0:480][1]
    tab = (img.astype(int).sum(axis=2) < 600) & (xx < 40)
    out[tab] = (img[tab] * 0.6).astype(np.uint8)
    return out


@pytest.mark.parametrize("edges, read_again", [(1, False), (4, True)])
def test_a_later_edge_the_paper_confirms_is_taken(edges, read_again):
    """The best-agreeing edge is the stripe (all four cards on its lit side: unconfirmed);
    the shadow's edge, the next candidate, has two sure cards a side and is taken when
    more than one candidate is tried (the default)."""
    img = shadowed(left_stripe(table(ALL)))
    cands = shadow_edges_scaled(img, replace(CARD_SHADOW, edges=4))
    assert len(cands) == 2
    assert paper_shade_step(img, faces(ALL), cands[0][1], READ)[1:3] == (4, 0)
    assert paper_shade_step(img, faces(ALL), cands[1][1], READ)[1:3] == (2, 2)
    r = Reader(faces(SHADE))
    out, _, _ = shadow_relit(r, img, "troetofanten", faces(ALL), ["first"],
                             replace(CARD_SHADOW, edges=edges))
    assert (len(r.seen) == 1) == read_again
    if read_again:  # lit up below the shadow's line, not beyond the stripe
        paper = table(ALL)[200:340, 20:460].sum(axis=2) > 600
        assert out[200:340, 20:460][paper].mean() > 200
        assert np.abs(out[:100, :30].astype(int) - img[:100, :30]).max() == 0
    assert CARD_SHADOW.edges == 4
    with pytest.raises(ValueError):
        CardShadowSettings(edges=0)
