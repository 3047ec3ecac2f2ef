"""Troetofanten under a lamp's glare (`vision.cards.stage.glare_added`, session 18 H10):
synthetic grey tables with and without a lamp's spot, a stand-in reader."""

import numpy as np
import pytest

from vision.cards.pieces import CardPiece
from vision.cards.stage import CardGlareSettings, glare_added


def _card(label: str, cx: float, cy: float, w: float = 60.0) -> CardPiece:
    h = 1.5 * w
    frame = np.array([[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2],
                      [cx + w / 2, cy + h / 2], [cx - w / 2, cy + h / 2]], np.float64)
    return CardPiece(label, 0.95, frame[0].copy(), frame, 0.0, w)


class _Reader:
    """Reads `cards` off any photo it is given and keeps the photo."""

    def __init__(self, cards):
        self.cards, self.seen = cards, []

    def read_pieces(self, image, game, area=None):
        self.seen.append(image)
        return list(self.cards), [f"the card at ({c.center[0]:.0f}, {c.center[1]:.0f}): x"
                                  for c in self.cards]


def _table(spot, seed: int = 3) -> np.ndarray:
    from vision.light_eval import add_spot

    rng = np.random.default_rng(seed)
    flat = np.clip(100 + rng.normal(0, 3, (960, 1280, 1)), 0, 255).repeat(3, axis=2)
    flat = flat.astype(np.uint8)
    return flat if spot is None else add_spot(flat, spot, 130)


FIRST = [_card("elephant-2", 1100, 800)]  # the first look's: far from the spot
SECOND = [_card("elephant-2", 1102, 801),  # the same card again (not added twice)
          _card("tamer", 700, 480),  # beside the spot's core: added
          _card("mouse", 150, 120)]  # far off: the first look stands there


@pytest.mark.parametrize("spot, side, added, warned", [
    ((640, 480), 640, ["tamer"], True),  # a spot: the second look's card beside it added
    (None, 640, [], False),  # no spot: not read again
    ((640, 480), 0, [], False),  # (off)
])
def test_glare_added_reads_the_cards_beside_a_lamps_spot(spot, side, added, warned):
    img = _table(spot)
    reader = _Reader(SECOND)
    out, pieces, warnings = glare_added(reader, img, "troetofanten", list(FIRST), ["w0"],
                                        CardGlareSettings(side=side))
    assert out is img
    assert [p.label for p in pieces] == ["elephant-2"] + added
    assert len(reader.seen) == (1 if spot is not None and side else 0)
    assert warnings[0] == "w0"
    glare = [w for w in warnings if "glare" in w]
    assert bool(glare) is warned
    assert any("(700, 480)" in w for w in warnings) is bool(added)  # its reading's warning
    if warned:
        x, y = map(float, glare[0].split("(")[1].split(")")[0].split(","))
        assert np.hypot(x - spot[0], y - spot[1]) < 10


@pytest.mark.parametrize("keep_core, core_kept", [((230, 250), True), ((0, 0), False)])
def test_glare_added_leaves_the_clipped_core_white(keep_core, core_kept):
    img = _table((640, 480))
    reader = _Reader([])
    glare_added(reader, img, "troetofanten", [], [], CardGlareSettings(keep_core=keep_core))
    (read,) = reader.seen
    clipped = img.min(axis=2) >= 250
    assert clipped.sum() > 1000
    assert bool(np.abs(read[clipped].astype(int) - img[clipped]).max() <= 1) is core_kept
    yy, xx = np.mgrid[0:960, 0:1280]
    halo = (np.hypot(xx - 640, yy - 480) > 150) & (np.hypot(xx - 640, yy - 480) < 220)
    assert np.median(img[halo].astype(int) - read[halo]) >= 10  # the halo's light taken off


@pytest.mark.parametrize("shape, side, want", [
    ((960, 1280, 3), 640, (480, 640)),  # reduced to `side` on its long side
    ((1280, 960, 3), 640, (640, 480)),  # (portrait)
    ((300, 400, 3), 640, (300, 400)),  # never enlarged: the image itself
    ((480, 640, 3), 640, (480, 640)),
])
def test_reduced_copy(shape, side, want):
    from vision.cards.stage import reduced_copy

    img = np.zeros(shape, np.uint8)
    small, f = reduced_copy(img, side)
    assert small.shape[:2] == want and np.isclose(f, want[1] / shape[1])
    assert (small is img) is (f == 1.0)


@pytest.mark.parametrize("spot, side, changed", [
    ((640, 480), 640, True), (None, 640, False), ((640, 480), 0, False)])
def test_glare_off_takes_the_spot_found_on_the_reduced_copy_off(spot, side, changed):
    from vision.cards.stage import glare_off

    img = _table(spot)
    out = glare_off(img, side)
    assert (out is not img) is changed
    if changed:  # (the halo 150-220 px out: the spot's light taken off the full-size photo)
        yy, xx = np.mgrid[0:960, 0:1280]
        halo = (np.hypot(xx - 640, yy - 480) > 150) & (np.hypot(xx - 640, yy - 480) < 220)
        assert np.median(img[halo].astype(int) - out[halo]) >= 10


@pytest.mark.parametrize("at, core_doubt, doubted", [
    ((645, 482), 1.0, True),  # its centre under the spot's clipped core: its own warning
    ((740, 480), 1.0, False),  # beside the core (1.3 x its half axis): the spot's alone
    ((645, 482), 0.0, False),  # (off)
])
def test_glare_added_doubts_a_card_read_under_the_clipped_core(at, core_doubt, doubted):
    img = _table((640, 480))
    reader = _Reader([_card("elephant-2", *at)])
    _, pieces, warnings = glare_added(reader, img, "troetofanten", [], [],
                                      CardGlareSettings(core_doubt=core_doubt))
    assert [p.label for p in pieces] == ["elephant-2"]  # added all the same
    own = [w for w in warnings if "washed-out middle" in w]
    assert len(own) == int(doubted)
    if doubted:
        assert own[0].startswith(f"the elephant-2 at ({at[0]}, {at[1]})")
    assert any("washes the photo out" in w for w in warnings)  # the spot's warning stays


class _TwoLooks(_Reader):
    """Reads `first` off the first photo it is given, `cards` off every later one."""

    def __init__(self, first, cards):
        super().__init__(cards)
        self.first = first

    def read_pieces(self, image, game, area=None):
        if not self.seen:
            self.seen.append(image)
            return list(self.first), []
        return super().read_pieces(image, game, area)


@pytest.mark.parametrize("spot, added", [
    ((640, 480), ["tamer"]),  # Hop la bille's cards read again by a spot (session 22, H6)
    ((200, 200), ["mouse"]),  # ... a spot elsewhere: the card by it
    (None, []),  # no spot: read once
])
def test_read_balanced_reads_hop_la_bille_again_by_a_lamps_spot(spot, added):
    from vision.cards.stage import read_balanced

    reader = _TwoLooks(FIRST, SECOND)
    _, pieces, _ = read_balanced(reader, _table(spot), "hop-la-bille")
    assert [p.label for p in pieces] == ["elephant-2"] + added
    assert len(reader.seen) == (2 if spot is not None else 1)
