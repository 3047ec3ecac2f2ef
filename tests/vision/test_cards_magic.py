"""Magic Rabbit tiles in `vision.cards.read`: the copy-independent cues (kind, colour)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cards.pieces import CardPiece
from vision.cards.read import (
    NUMBER_REF_LAB,
    READ,
    colour_doubts,
    colour_logp,
    colour_weighted,
    light_shift,
    magic_any_copy,
    magic_colour_numbers,
    magic_tile_label,
    magic_tiles,
    ring_lab,
)

# Magic Rabbit number colours (pieces.md names), BGR: what the test tiles are painted with
# (the reader compares with `read.NUMBER_REF_LAB`)
NUMBER_REF_BGR = {
    1: (40, 40, 215), 2: (30, 130, 245), 3: (40, 215, 245), 4: (90, 215, 130),
    5: (50, 120, 20), 6: (235, 190, 100), 7: (140, 40, 20), 8: (150, 50, 120),
    9: (180, 120, 245),
}


@pytest.mark.parametrize("probs, bg, label, conf", [
    # a clear reading: its kind's share
    ({"hat-1": 0.9, "hat-9": 0.05, "magician": 0.05}, 0.0, "hat-1", 0.95),
    # another copy's rabbit: its number split between colours, its kind clear
    ({"rabbit-1": 0.3, "rabbit-9": 0.3, "rabbit-2": 0.3, "hat-1": 0.1}, 0.0, "rabbit-1", 0.9),
    # the kind's share is scaled by 1 - P(background) too
    ({"rabbit-4": 0.2, "rabbit-5": 0.25, "hat-5": 0.55}, 0.5, "hat-5", 0.275),
    # the likeliest kind wins even where another kind holds the likeliest single label
    ({"hat-9": 0.4, "rabbit-1": 0.3, "rabbit-2": 0.3}, 0.0, "rabbit-1", 0.6),
])
def test_magic_tile_label_keeps_a_clear_kind(probs, bg, label, conf):
    got, c = magic_tile_label(probs, bg)
    assert got == label and c == pytest.approx(conf)


def _tile_photo(bgr_frame, size=60, inner=(235, 235, 235)):
    """A photo (120 x 120) with one tile: a `bgr_frame` coloured ring, white inside; and the
    tile's corners."""
    img = np.full((120, 120, 3), 90, np.uint8)
    x0 = 30
    cv2.rectangle(img, (x0, x0), (x0 + size - 1, x0 + size - 1), bgr_frame, -1)
    cv2.rectangle(img, (x0 + 8, x0 + 8), (x0 + size - 9, x0 + size - 9), inner, -1)
    frame = np.array([[x0, x0], [x0 + size, x0], [x0 + size, x0 + size], [x0, x0 + size]],
                     float)
    return img, frame


@pytest.mark.parametrize("number", range(1, 10))
def test_ring_lab_finds_each_numbers_colour(number):
    """A tile framed in its number's colour (pieces.md's, `NUMBER_REF_BGR`) is likeliest
    that number, whatever the drawing inside."""
    img, frame = _tile_photo(NUMBER_REF_BGR[number])
    lp = colour_logp(ring_lab(img, [frame]), READ.colour_spread)
    assert int(np.argmax(lp[0])) + 1 == number


def test_ring_lab_is_relative_to_the_photos_light():
    """The same tile under a dimmer, bluish light (every channel scaled) reads the same
    colour: the photo's white (its brightest tile pixels) scales it back."""
    img, frame = _tile_photo(NUMBER_REF_BGR[2])
    dim = np.clip(img.astype(float) * (0.8, 0.65, 0.55), 0, 255).astype(np.uint8)
    a, b = ring_lab(img, [frame])[0], ring_lab(dim, [frame])[0]
    assert np.abs(a - b).max() < 8


@pytest.mark.parametrize("probs, logp_best, weight, label", [
    # a split number goes to the colour
    ({"rabbit-1": 0.3, "rabbit-9": 0.35, "hat-9": 0.05}, 1, 1.0, "rabbit-1"),
    # the magician's share stays; the numbered shares keep their total
    ({"magician": 0.5, "hat-5": 0.25, "hat-4": 0.25}, 4, 1.0, "hat-4"),
    # weight 0: the classifier's reading
    ({"rabbit-1": 0.3, "rabbit-9": 0.35}, 1, 0.0, "rabbit-9"),
])
def test_colour_weighted(probs, logp_best, weight, label):
    logp = np.full(9, -3.0)
    logp[logp_best - 1] = 0.0
    out = colour_weighted(probs, logp, weight)
    kind = label.split("-")[0]
    assert max((k for k in out if k.startswith(kind)), key=out.get) == label
    assert out.get("magician") == probs.get("magician")
    assert sum(out.values()) == pytest.approx(sum(probs.values()))


def _piece(label, conf, probs, frame):
    return CardPiece(label, conf, frame.mean(axis=0), frame, 0.0, 60.0, probs)


@pytest.mark.parametrize("read, conf, label", [
    ("hat-9", 0.3, "hat-1"),  # unsure (another copy's drawing): the red frame makes it a 1
    ("hat-2", 0.95, "hat-2"),  # read surely, red near orange (2): its number stays
    ("hat-9", 0.95, "hat-1"),  # read surely, but red is over 4 spreads from pink (9)
])
def test_magic_colour_numbers_weighs_unsure_tiles(read, conf, label):
    img, frame = _tile_photo(NUMBER_REF_BGR[1])
    probs = {"hat-9": 0.2, "hat-1": 0.2, "hat-2": 0.2}
    p = _piece(read, conf, {**probs, read: 0.4}, frame)
    out, warnings = magic_colour_numbers(img, [p], READ)
    assert out[0].label == label
    assert any("its colour is that number's" in w for w in warnings) is (label != read)
    assert not any("do not agree" in w for w in warnings)  # (the colour settled it)


@pytest.mark.parametrize("label, frame_number, warned", [
    ("hat-9", 1, True),  # a red frame (1) on a tile settled as pink 9: the colour doubts it
    ("rabbit-9", 1, True),  # (the same for a rabbit: its number, whatever the kind)
    ("hat-9", 9, False),  # a pink frame: they agree
    ("hat-1", 1, False),  # the line settled it on its colour's number
])
def test_colour_doubts_names_a_settled_number_its_colour_doubts(label, frame_number, warned):
    """The colour is checked on the settled labels (after the line), not in
    `magic_colour_numbers`, which no longer says so for a sure reading the line may still
    move."""
    img, frame = _tile_photo(NUMBER_REF_BGR[frame_number])
    p = _piece(label, 0.95, {label: 0.999}, frame)
    out, warnings = magic_colour_numbers(img, [p], READ)
    assert not any("do not agree" in w for w in warnings)
    doubts = colour_doubts(img, [p], READ)
    assert any(f"{label} at (60, 60): its number and its colour do not agree" in w
               for w in doubts) is warned


def test_magic_any_copy_drops_a_false_dove_and_a_lone_tile_with_their_warnings():
    """Untaught too: a dove on a hat's black print is none, a tile far from the line is the
    table's artwork; the warnings naming them go, the others stay."""
    img = np.full((400, 600, 3), 235, np.uint8)
    cv2.rectangle(img, (60, 40), (100, 60), (0, 0, 0), -1)  # the first hat's black print
    frame = np.array([[50, 30], [110, 30], [110, 90], [50, 90]], float)
    hats = [CardPiece(f"hat-{k + 1}", 0.9, np.array([80.0 + 60 * k, 60.0]),
                      frame + (60 * k, 0), 0.0, 60.0) for k in range(3)]
    false_dove = CardPiece("dove", 0.5, np.array([80.0, 50.0]), None, 0.0, 30.0)
    true_dove = CardPiece("dove", 0.5, np.array([140.0, 75.0]), None, 0.0, 30.0)
    lone = CardPiece("rabbit-4", 0.9, np.array([500.0, 350.0]), None, 0.0, 60.0)
    warnings = ["unsure about the rabbit-4 at (500, 350) (confidence 0.40)",
                "unsure about the hat-2 at (140, 60) (confidence 0.40)"]
    out, kept = magic_any_copy(img, [*hats, false_dove, true_dove, lone], warnings)
    assert [p.label for p in out] == ["hat-1", "hat-2", "hat-3", "dove"]
    assert out[3] is true_dove and kept == warnings[1:]


def test_magic_tiles_drops_a_lone_tile_before_its_colour_warns():
    """A lone tile (the table's artwork) whose colour would relabel it is dropped first:
    no warning names it, under its old label or its new."""
    img = np.full((400, 600, 3), 90, np.uint8)
    tiles = []
    for k, (x, y) in enumerate([(50, 30), (110, 30), (170, 30), (450, 300)]):
        cv2.rectangle(img, (x, y), (x + 59, y + 59), NUMBER_REF_BGR[1], -1)
        cv2.rectangle(img, (x + 8, y + 8), (x + 51, y + 51), (235, 235, 235), -1)
        frame = np.array([[x, y], [x + 60, y], [x + 60, y + 60], [x, y + 60]], float)
        tiles.append(_piece(f"hat-{9 - k}", 0.3, {f"hat-{9 - k}": 0.4, "hat-1": 0.3}, frame))
    out, warnings = magic_tiles(img, tiles, [], READ)
    assert len(out) == 3 and "hat-1" in [p.label for p in out]  # (the colour still weighs)
    assert not any("(480, 330)" in w for w in warnings)


@pytest.mark.parametrize("confs, want", [
    ((0.95, 0.95, 0.95), (0.0, 6.0, -4.0)),  # three sure tiles: their median cast (a, b)
    ((0.95, 0.95, 0.5), (0.0, 0.0, 0.0)),  # two: too few to tell the light
])
def test_light_shift(confs, want):
    cast = np.array([20.0, 6.0, -4.0])  # (L is left alone: shading, not the light's colour)
    tiles = [_piece(f"hat-{n}", c, {f"hat-{n}": 1.0}, np.zeros((4, 2)))
             for n, c in zip((1, 4, 7), confs, strict=True)]
    lab = NUMBER_REF_LAB[[0, 3, 6]] + cast
    lab[2] += (0, 30, 30)  # the unsure tile's colour does not count
    assert light_shift(lab, tiles, READ) == pytest.approx(np.array(want))


class _OneTileReader:
    """A stand-in reader: one tile, already read (what `read_cards` gets from the model)."""
    settings = READ

    def __init__(self, piece):
        self.piece = piece

    def read_pieces(self, image, game, area=None):
        return [self.piece], []


@pytest.mark.parametrize("frame_number, warned", [
    (1, True),  # a red frame under a tile read as pink 9: the photo's warnings say so
    (9, False),  # a pink frame: no colour doubt
])
def test_read_cards_warns_where_the_colour_doubts_the_scored_number(frame_number, warned):
    from vision.cards.stage import read_cards

    img, frame = _tile_photo(NUMBER_REF_BGR[frame_number])
    result = read_cards(_OneTileReader(_piece("hat-9", 0.95, {"hat-9": 0.999}, frame)),
                        img, 2.0, "magic-rabbit")
    assert result.detections.labels == ["hat-9"]
    # (in the photo's pixels: the working image's centre (60, 60) x 2)
    assert any("hat-9 at (120, 120): its number and its colour do not agree" in w
               for w in result.warnings) is warned


def _square(label, cx, cy, w=80.0, conf=0.9):
    h = w / 2
    frame = np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]],
                     np.float64)
    return CardPiece(label, conf, np.array([cx - h, cy - h]), frame, 0.0, w)


def _row(n=7, step=100.0, tilt=0.0, x0=200.0, y0=300.0):
    """n hats in a row (their rabbits below), `tilt` px down per step."""
    out = []
    for k in range(n):
        out.append(_square(f"hat-{k + 1}", x0 + k * step, y0 + k * tilt))
        out.append(_square(f"rabbit-{k + 1}", x0 + k * step, y0 + k * tilt + 110))
    return out


@pytest.mark.parametrize("case, unread, n_hats, expect", [
    ("one step before the first hat, off the row a little", [(90, 330)], 7, (90, 330)),
    ("one step before the first hat", [(100, 300)], 7, (100, 300)),
    ("on the line's far end (numbers ascend from the first)", [(900, 300)], 7, None),
    ("three steps on: the table", [(1100, 300)], 7, None),
    ("across the row: below", [(900, 400)], 7, None),
    ("inside the line", [(450, 300)], 7, None),
    ("past both ends: which is unknown", [(900, 300), (100, 300)], 7, None),
    ("too few hats for a line", [(500, 300)], 3, None),
    ("nothing unread", [], 7, None),
])
def test_magician_at_end(case, unread, n_hats, expect):
    from vision.cards.magic import magician_at_end

    pieces = _row(n_hats)
    before = list(pieces)
    out, warnings = magician_at_end(pieces, [_square("unread", x, y, conf=0.0)
                                             for x, y in unread])
    mags = [p for p in out if p.label == "magician"]
    assert pieces == before  # (not changed in place)
    if expect is None:
        assert out == pieces and warnings == []
    else:
        assert len(mags) == 1 and np.allclose(mags[0].center, expect)
        assert mags[0].confidence == pytest.approx(0.35)
        assert len(warnings) == 1 and "magician" in warnings[0]
        assert len(out) == len(pieces) + 1


@pytest.mark.parametrize("seed", range(4))
def test_magician_at_end_tilted_rows(seed):
    """A row at a random slope (perspective): the tile one step on is found, one two widths
    off the row is not."""
    from vision.cards.magic import magician_at_end

    rng = np.random.default_rng(seed)
    tilt = float(rng.uniform(-40, 40))
    pieces = _row(9, 95.0, tilt)
    end = np.array([200 - 95.0, 300 - tilt])  # (before hat 1: the line's start)
    d = np.array([95.0, tilt]) / np.hypot(95.0, tilt)
    off = end + 160 * np.array([-d[1], d[0]])
    out, _ = magician_at_end(pieces, [_square("unread", *end)])
    assert [p.label for p in out].count("magician") == 1
    out, _ = magician_at_end(pieces, [_square("unread", *off)])
    assert out == pieces


def test_magician_at_end_keeps_a_read_magician():
    from vision.cards.magic import magician_at_end

    pieces = _row(7) + [_square("magician", 100, 300)]
    out, warnings = magician_at_end(pieces, [_square("unread", 900, 300)])
    assert out == pieces and warnings == []


@pytest.mark.parametrize("end", ["first", "last"])
def test_magician_at_end_left_to_the_layout_where_an_end_hat_has_no_rabbit(end):
    """An end hat with no tile below may be the magician read as a hat
    (`lineup.settle_magician` takes it): no magician is added past either end."""
    from vision.cards.magic import magician_at_end

    pieces = _row(8)
    gone = "rabbit-1" if end == "first" else "rabbit-8"
    pieces = [p for p in pieces if p.label != gone]
    out, warnings = magician_at_end(pieces, [_square("unread", 1000, 300)])
    assert out == pieces and warnings == []


@pytest.mark.parametrize("numbers, at, found", [
    ((1, 2, 3, 4, 5, 6, 7), (100, 300), True),   # ascending from the left: a tile there
    ((1, 2, 3, 4, 5, 6, 7), (900, 300), False),  # past the last hat: not the line's start
    ((7, 6, 5, 4, 3, 2, 1), (900, 300), True),
    ((2, 1, 3, 4, 6, 7, 5), (900, 300), False),  # mostly ascending from the left
    ((4, 3, 2, 1, 5, 6, 7), (100, 300), True),   # 6 pairs out of order against 15
    ((4, 3, 2, 1, 5, 6, 7), (900, 300), False),
])
def test_magician_at_end_only_where_the_line_ascends_from(numbers, at, found):
    from dataclasses import replace

    from vision.cards.magic import magician_at_end

    pieces = [replace(p, label=f"{p.label.split('-')[0]}-{numbers[k // 2]}")
              for k, p in enumerate(_row(7))]
    out, _ = magician_at_end(pieces, [_square("unread", *at)])
    assert [p.label for p in out].count("magician") == int(found)
