"""Magic Rabbit's line (`vision.cards.lineup`): a tile's number over both kinds."""

from __future__ import annotations

import numpy as np
import pytest

from vision.cards.lineup import (
    distinct_numbers,
    inversions,
    line_places,
    number_probs,
    read_line,
    settle_kinds,
    settle_magician,
    whole_line,
)
from vision.cards.pieces import CardPiece


def tile(label, x, y, probs, w=50.0):
    frame = np.array([[x - w / 2, y - w / 2], [x + w / 2, y - w / 2], [x + w / 2, y + w / 2],
                      [x - w / 2, y + w / 2]], float)
    return CardPiece(label, 0.9, np.array([x, y], float), frame, 0.0, w, probs)


@pytest.mark.parametrize("probs, number", [
    ({"hat-9": 0.89, "rabbit-1": 0.0}, 9),  # read as a hat 9: its number stays
    ({"rabbit-2": 0.3, "hat-4": 0.5}, 4),  # the number likeliest over both kinds
    ({"rabbit-2": 0.3, "hat-4": 0.2}, 2),
    ({"hat-3": 0.4, "rabbit-3": 0.4, "hat-5": 0.6}, 3),  # 0.8 for 3 against 0.6
])
def test_number_probs_sums_both_kinds(probs, number):
    assert int(np.argmax(number_probs(probs))) + 1 == number


def test_a_hat_below_a_hat_becomes_the_rabbit_of_its_number():
    hat = tile("hat-2", 100, 100, {"hat-2": 0.99})
    below = tile("hat-9", 100, 160, {"hat-9": 0.89, "hat-1": 0.01})  # no rabbit-n share
    out, warnings = settle_kinds([hat, below])
    assert [p.label for p in out] == ["hat-2", "rabbit-9"] and len(warnings) == 1


def test_distinct_numbers_weighs_a_rabbits_number_read_as_a_hat():
    # A, a true rabbit-1 the model leans to 9; B, a true rabbit-9 read as hat-9 and turned
    # into a rabbit by the layout: the two 9s go to B, whose number is surer over both kinds
    a = tile("rabbit-9", 100, 160, {"rabbit-9": 0.4, "rabbit-1": 0.18})
    b = tile("rabbit-9", 200, 160, {"hat-9": 0.89, "rabbit-9": 0.0})
    out, warnings = distinct_numbers([a, b], "rabbit")
    assert [p.label for p in out] == ["rabbit-1", "rabbit-9"] and len(warnings) == 1


@pytest.mark.parametrize("hats, rabbits, magician, want", [
    # no magician: the line is read from the end its numbers ascend from
    ([9, 8, 7, 5, 6, 4, 3, 2, 1], [9, 8, 7, 5, 6, 4, 3, 2, 1], None, "reversed"),
    ([1, 2, 3, 5, 4, 6, 7, 8, 9], [1, 2, 3, 5, 4, 6, 7, 8, 9], None, "as drawn"),
    ([1, 2], [2, 1], None, "as drawn"),  # a tie (one pair out of order either way): left to
    #                                       right, as before
    # a magician on the right decides, however the numbers run
    ([1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 5, 6, 7, 8, 9], 600.0, "reversed"),
])
def test_the_line_without_a_magician_reads_from_where_it_ascends(hats, rabbits, magician,
                                                                 want):
    ps = []
    for k, (h, r) in enumerate(zip(hats, rabbits, strict=True)):
        ps += [tile(f"hat-{h}", 60 * k, 0, {f"hat-{h}": 0.9}),
               tile(f"rabbit-{r}", 60 * k, 60, {f"rabbit-{r}": 0.9})]
    if magician is not None:
        ps.append(tile("magician", magician, 0, {"magician": 0.9}))
    facts, warnings = read_line(ps)
    got = [p["hat"] for p in facts["line"]]
    assert got == (hats[::-1] if want == "reversed" else hats)
    assert any("magician tile was not found" in w for w in warnings) == (magician is None)


def test_inversions_count_hats_and_rabbits():
    line = [{"hat": 2, "rabbit": 1}, {"hat": 1, "rabbit": None}, {"hat": 3, "rabbit": 2}]
    assert inversions(line) == 1  # hats 2 > 1; rabbits 1, 2 in order
    assert inversions(line[::-1]) == 2 + 1  # hats 3 > 1, 3 > 2; rabbits 2 > 1


def _line_with_hat_magician(n, mag_at, rabbits_under=None, magician_piece=False):
    """n piles (hat k above rabbit k, 60 px apart) and the magician tile read as hat-7
    (another copy's magician shows a hat) at x `mag_at` on the hats' row; `rabbits_under`:
    the piles that have their rabbit (default all)."""
    under = range(n) if rabbits_under is None else rabbits_under
    ps = [tile(f"hat-{k + 1}", 60 * k, 0, {f"hat-{k + 1}": 0.9}) for k in range(n)]
    ps += [tile(f"rabbit-{k + 1}", 60 * k, 60, {f"rabbit-{k + 1}": 0.9}) for k in under]
    ps.append(tile("hat-7", mag_at, 0, {"hat-7": 0.6, "magician": 0.3}))
    if magician_piece:
        ps.append(tile("magician", -300, 0, {"magician": 0.9}))
    return ps


@pytest.mark.parametrize("n, mag_at, under, magician_piece, turned", [
    (9, -60, None, False, True),  # 10 hats, the one at the left end bare: the magician
    (9, 540, None, False, True),  # at the right end
    (7, -60, None, False, True),  # young children: 8 hats
    (8, -60, None, False, False),  # 9 hats: a full line, nothing to settle
    (9, -60, None, True, False),  # a magician tile read already
    (9, 240, None, False, False),  # the extra hat in the middle of the line: no end
    (9, 1200, range(8), False, True),  # far right, the 9th pile's rabbit unseen: the other
    #                                    end bare too would leave a gap of 12 steps
    (9, 540, range(1, 8), False, True),  # both ends bare, the rest evenly spaced either way:
    #                                      the one likelier the magician
])
def test_settle_magician(n, mag_at, under, magician_piece, turned):
    ps = _line_with_hat_magician(n, mag_at, under, magician_piece)
    if mag_at == 240:  # (two hats at x 240: move the pile there down the line)
        ps = [p for p in ps if not (p.label == "hat-7" and p.probs.get("magician"))]
        ps.append(tile("hat-7", 240, -10, {"hat-7": 0.6, "magician": 0.3}))
    out, warnings = settle_magician(ps)
    got = [p for p in out if p.label == "magician" and p.probs.get("hat-7")]
    assert bool(got) is turned and bool(warnings) is turned
    if turned:
        assert got[0].center[0] == mag_at


@pytest.mark.parametrize("along, places", [
    ([0, 60, 120, 180], 4),  # side by side
    ([0, 60, 180, 240], 5),  # one pile missed: its gap counted
    ([0, 110, 160, 270, 320], 7),  # more gaps than single steps: the step is the single one
    ([5], 1),
])
def test_line_places(along, places):
    assert line_places(np.array(along, float)) == places


@pytest.mark.parametrize("along, whole", [
    (range(0, 540, 60), True),  # 9 piles side by side
    ([120, 180, 240, 360, 420, 480, 540], False),  # 7 hats, one gap: 8 places, no line
    ([0, 60, 120, 240, 300, 360, 420, 480], True),  # 8 hats, one gap: a 9 piles' line
    ([204, 341, 465, 588, 704, 823, 885], True),  # 6 piles and a tile read between two:
    #                                               7 hats evenly spaced (a scene's)
    (range(0, 480, 60), False),  # 8 side by side
])
def test_whole_line(along, whole):
    assert whole_line(np.array(along, float)) is whole


@pytest.mark.parametrize("missed_hat, magician_at, turned", [
    (5, None, False),  # 8 hats of 9 piles, hat 5 missed: hat 1 (its rabbit missed) stays a hat
    (None, None, False),  # all 9 hats, rabbit 1 missed: a full line, nothing to settle
    (5, 0, True),  # hat 5 missed, the magician read as a hat left of hat 1: the gap counted
])
def test_settle_magician_counts_a_missed_piles_gap(missed_hat, magician_at, turned):
    ps = [tile(f"hat-{k}", 60 * k, 0, {f"hat-{k}": 0.9, "magician": 0.1}) for k in range(1, 10)
          if k != missed_hat]
    ps += [tile(f"rabbit-{k}", 60 * k, 60, {f"rabbit-{k}": 0.9}) for k in range(2, 10)]
    if magician_at is not None:
        ps.append(tile("hat-7", magician_at, 0, {"hat-7": 0.6, "magician": 0.3}))
    out, warnings = settle_magician(ps)
    got = [p.center[0] for p in out if p.label == "magician"]
    assert got == ([magician_at] if turned else []) and bool(warnings) is turned


@pytest.mark.parametrize("xy, turned", [
    ((540, 0), True),  # read as a rabbit, in the hats' row beyond the last hat: the magician
    ((-70, 5), True),  # beyond the first one
    ((540, 60), False),  # in the rabbits' row: a rabbit whose hat is unseen
    ((240, -80), False),  # above the line's middle: not at an end
])
def test_settle_magician_from_a_rabbit_in_the_hats_row(xy, turned):
    ps = [tile(f"hat-{k + 1}", 60 * k, 0, {f"hat-{k + 1}": 0.9}) for k in range(9)]
    ps += [tile(f"rabbit-{k + 1}", 60 * k, 60, {f"rabbit-{k + 1}": 0.9}) for k in range(8)]
    ps.append(tile("rabbit-7", *xy, {"rabbit-7": 0.4, "magician": 0.2}))
    out, warnings = settle_magician(ps)
    assert (out[-1].label == "magician") is turned and bool(warnings) is turned


def test_settle_magician_a_magician_below_a_hat_is_its_rabbit():
    ps = [tile(f"hat-{k + 1}", 60 * k, 0, {f"hat-{k + 1}": 0.9}) for k in range(3)]
    ps.append(tile("magician", 60, 60, {"magician": 0.4, "rabbit-2": 0.3, "hat-2": 0.2}))
    ps.append(tile("magician", -60, 0, {"magician": 0.9}))
    out, warnings = settle_magician(ps)
    assert [p.label for p in out[3:]] == ["rabbit-2", "magician"] and len(warnings) == 1
