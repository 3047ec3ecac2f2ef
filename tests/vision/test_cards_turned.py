"""Magic Rabbit photos turned a quarter or half a turn (`vision.cards.turned`): the map back
to the photo's pixels, the layout's pairs, the choice of a turn, and committed photos turned
through `tablescore score`."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cards.pieces import CardPiece
from vision.cards.turned import (
    ROTATE,
    TurnSettings,
    affine_back,
    back_angle,
    back_points,
    doves_on_hats,
    hats_off_row,
    level_copy,
    level_read,
    line_axis,
    line_pairs,
    line_signs,
    proper_line,
    read_any_turn,
    turned_back,
)

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "datasets" / "scenes" / "magic-rabbit"


def tile(label: str, cx: float, cy: float, w: float = 60.0, angle: float = 0.0) -> CardPiece:
    t = np.deg2rad(angle)
    u, v = np.array([np.cos(t), np.sin(t)]), np.array([-np.sin(t), np.cos(t)])
    c = np.array([cx, cy])
    frame = np.array([c - u * w / 2 - v * w / 2, c + u * w / 2 - v * w / 2,
                      c + u * w / 2 + v * w / 2, c - u * w / 2 + v * w / 2])
    return CardPiece(label, 0.9, frame[0], frame, angle, w)


def line(numbers, x0=100.0, y0=200.0, step=70.0, rabbits=None, down=75.0):
    """Hats in a row along x, the rabbit `rabbits[i]` (default: the hat's own) below each."""
    rabbits = numbers if rabbits is None else rabbits
    out = []
    for i, (h, r) in enumerate(zip(numbers, rabbits, strict=True)):
        out.append(tile(f"hat-{h}", x0 + i * step, y0))
        if r is not None:
            out.append(tile(f"rabbit-{r}", x0 + i * step, y0 + down))
    return out


@pytest.mark.parametrize("pieces,want", [
    (line(range(1, 10)), 9),
    (line([1, 2, 3], rabbits=[1, 3, 2]), 1),  # two rabbits under the wrong hats
    (line([1, 2, 3], rabbits=[1, None, 3]), 2),  # one rabbit not read
    (line([1, 2, 3], down=-75.0), 0),  # the rabbits above: the photo half turned
    (line([1, 2, 3], down=200.0), 0),  # too far below
    ([], 0),
    ([tile("magician", 0, 0), tile("dove", 10, 10)], 0),
])
def test_line_pairs(pieces, want):
    assert line_pairs(pieces) == want


@pytest.mark.parametrize("turn", ["cw", "ccw", "180"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_back_points_undo_cv2_rotate(turn, seed):
    """A pixel marked on the photo is where `back_points` maps it from the turned copy."""
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(20, 60)), int(rng.integers(20, 60))
    img = np.zeros((h, w), np.uint8)
    y, x = int(rng.integers(0, h)), int(rng.integers(0, w))
    img[y, x] = 255
    ty, tx = np.argwhere(cv2.rotate(img, ROTATE[turn]) == 255)[0]
    assert back_points(np.array([tx, ty], float), turn, (h, w)).tolist() == [x, y]


@pytest.mark.parametrize("turn,angle,want", [
    ("cw", 0.0, -90.0), ("ccw", 0.0, 90.0), ("180", 0.0, 180.0), ("180", 10.0, -170.0),
    ("cw", -100.0, 170.0), ("ccw", 100.0, -170.0),
])
def test_back_angle(turn, angle, want):
    assert back_angle(angle, turn) == pytest.approx(want)


@pytest.mark.parametrize("turn", ["cw", "ccw", "180"])
def test_turned_back_maps_frames_angles_and_warnings(turn):
    """A tile drawn upright on a turned copy lies, mapped back, with its u axis along
    the turned copy's x axis as seen in the photo; its warning's position follows it."""
    h, w = 300, 400
    th, tw = (w, h) if turn in ("cw", "ccw") else (h, w)
    p = tile("hat-3", tw / 2 + 30, th / 2 - 20, angle=0.0)
    out, warns = turned_back([p], [f"the hat-3 at ({p.center[0]:.0f}, {p.center[1]:.0f}): x"],
                             turn, (h, w))
    q = out[0]
    u = q.frame[1] - q.frame[0]
    assert np.rad2deg(np.arctan2(u[1], u[0])) == pytest.approx(q.angle, abs=1e-6)
    assert warns == [f"the hat-3 at ({q.center[0]:.0f}, {q.center[1]:.0f}): x"]
    assert 0 <= q.center[0] < w and 0 <= q.center[1] < h


def test_turned_back_rejects_an_unknown_turn():
    with pytest.raises(ValueError, match="unknown turn"):
        back_points(np.zeros(2), "sideways", (10, 10))


def _fake_read(turn_right: str | None, n_wrong: int = 1):
    """A `read` whose line is whole (9 pairs) only on the copy turned by `turn_right` (None:
    the photo as it is), `n_wrong` pairs on any other; the copies told apart by a pixel."""
    def read(im):
        right = _marked() if turn_right is None else cv2.rotate(_marked(), ROTATE[turn_right])
        if im.shape == right.shape and np.array_equal(im, right):
            return line(range(1, 10)), {"line": "right"}, ["at (10, 20)"]
        return line(range(1, 10))[: 2 * n_wrong], {"line": "wrong"}, []
    return read


def _marked(h=8, w=6):
    im = np.zeros((h, w, 3), np.uint8)
    im[0, 0] = 255
    return im


@pytest.mark.parametrize("turn", [None, "cw", "ccw", "180"])
def test_read_any_turn_keeps_the_turn_with_the_whole_line(turn):
    """The turned copy read right is kept (mapped back, with a warning); a photo read right
    as it is is read once."""
    calls = []
    base = _fake_read(turn)

    def read(im):
        calls.append(im.shape)
        return base(im)

    pieces, facts, warnings = read_any_turn(read, _marked())
    assert facts == {"line": "right"}
    assert line_pairs(pieces) == 9
    if turn is None:
        assert len(calls) == 1 and warnings == ["at (10, 20)"]
    else:
        assert "turned" in warnings[0] and len(warnings) == 2
        want = back_points(np.array([10.0, 20.0]), turn, (8, 6))
        assert warnings[1] == f"at ({want[0]:.0f}, {want[1]:.0f})"


@pytest.mark.parametrize("n_wrong,proper,doves,reads", [
    (1, 3, 2, 4),  # no proper line anywhere: every turn tried (2 tiles tell no axis), the
    #   photo as it is kept
    (3, 3, 2, 1),  # a proper line as it is, 2 doves on its hats: no turn tried
    (3, 3, 5, 1),
    (3, 3, 1, 2),  # proper pairs but a dove short: half a turn read too (the kinds may be
    #   swapped), the photo as it is kept on a tie
    (3, 3, 0, 2),
    (3, 4, 2, 2),  # 6 tiles across the photo: only half a turn tried
])
def test_read_any_turn_keeps_the_photo_on_a_tie(n_wrong, proper, doves, reads):
    calls = []
    base = _fake_read(None, n_wrong)

    def read(im):
        calls.append(1)
        pieces, facts, w = base(im)
        return (pieces[: 2 * n_wrong] + [dove(100 + 70 * i, 200) for i in range(doves)],
                {"line": "wrong"}, w)  # as it is: n_wrong pairs too

    pieces, facts, warnings = read_any_turn(read, _marked(), TurnSettings(proper_pairs=proper))
    assert len(calls) == reads
    assert line_pairs(pieces) == n_wrong and not any("turned" in w for w in warnings)


@pytest.mark.parametrize("pairs,doves,turned_pairs,kept", [
    (6, 0, 9, "180"),  # upside down, the kinds swapped: 6 pairs, no dove on a "hat"
    (6, 1, 9, "180"),
    (6, 2, 9, None),  # the rules' doves on the hats: read as it is only
    (6, 0, 6, "180"),  # as many pairs, the turn's 3 doves on its hats: the turn
    (6, 1, 6, "180"),
    (6, 0, 5, "180"),  # a pair fewer but 3 doves on its hats (session 24: pairs and doves
    #   on hats counted together, `line_signs`; it was the photo as it is)
    (6, 0, 2, None),  # 2 pairs and 3 doves: fewer signs than 6 pairs
    (6, 1, 4, None),  # 7 signs each: the photo as it is on a tie
    (9, 0, 9, None),  # a whole line (no doves laid): no turn
    (4, 3, 5, "180"),  # too few pairs: turned as before, doves or not
])
def test_read_any_turn_doves_on_hats(pairs, doves, turned_pairs, kept):
    """A line with its pairs but fewer than `least_doves` doves on its hats is read half
    turned too, and the turn kept where it reads more pairs, or as many with more doves on
    its hats."""
    def lay(n, d):  # n pairs, d doves on the first hats
        return line(range(1, n + 1)) + [dove(100 + 70 * i, 200) for i in range(d)], {}, []

    def read(im):
        if np.array_equal(im, cv2.rotate(_marked(), ROTATE["180"])):
            return lay(turned_pairs, 3)
        return lay(pairs, doves)

    pieces, facts, warnings = read_any_turn(read, _marked())
    assert line_pairs(pieces) == (turned_pairs if kept else pairs)
    assert any("half a turn" in w for w in warnings) == (kept == "180")


@pytest.mark.parametrize("cw,ccw,dove_sign,kept", [
    ((4, 0), (3, 2), True, "ccw"),  # committed e2 0001 turned cw: upside down (cw once
    #   more) 4 pairs and no dove, the right way up 3 pairs and 2 doves on hats
    ((4, 0), (3, 2), False, "cw"),  # (session 23's order: pairs first)
    ((3, 2), (4, 0), True, "cw"),  # the right way up tried first: 5 signs against 4
    ((2, 2), (4, 0), True, "cw"),  # 4 signs each: the first tried kept
    ((2, 2), (3, 0), True, "cw"),  # 2 doves outweigh a pair
    ((5, 0), (5, 1), True, "ccw"),
])
def test_read_any_turn_counts_doves_with_pairs(cw, ccw, dove_sign, kept):
    """A photo with no line as it is (no tile: every turn read): the turn kept is the one
    with the most pairs and doves on its hats together (`line_signs`), strictly more than
    those read before it."""
    def lay(n, d):
        return line(range(1, n + 1)) + [dove(100 + 70 * i, 200) for i in range(d)], {}, []

    def read(im):
        for turn, (n, d) in (("cw", cw), ("ccw", ccw)):
            if np.array_equal(im, cv2.rotate(_marked(), ROTATE[turn])):
                return lay(n, d)
        return [], {}, []  # as it is and half round: nothing

    pieces, facts, warnings = read_any_turn(read, _marked(), TurnSettings(dove_sign=dove_sign))
    want = {"cw": "a quarter turn clockwise", "ccw": "a quarter turn anticlockwise"}[kept]
    assert want in warnings[0]
    assert line_pairs(pieces) == (cw if kept == "cw" else ccw)[0]


@pytest.mark.parametrize("proper_first,turned", [
    (True, True),  # the half turn's proper line (7 pairs, 2 doves) kept
    (False, False),  # by signs alone: upside down 5 pairs + 5 doves on "hats" outweigh 9
])
def test_read_any_turn_keeps_a_proper_turn(proper_first, turned):
    """Upside down a line reads 5 pairs with 5 doves on tiles read as hats and 4 on tiles
    read as rabbits (not proper: the rules lay no dove on a rabbit); half round it reads 7
    pairs and 2 doves on hats (proper). With `proper_first` the proper turn is kept although
    its `line_signs` are fewer (session 24, R1)."""
    up = line(range(1, 6)) + [dove(100 + 70 * i, 200) for i in range(5)] + [
        dove(100 + 70 * i, 275) for i in range(4)]
    right = line(range(1, 8)) + [dove(100 + 70 * i, 200) for i in range(2)]
    img = _marked()

    def read(im):
        if np.array_equal(im, img):
            return up, {}, []
        if np.array_equal(im, cv2.rotate(img, ROTATE["180"])):
            return right, {}, []
        return [], {}, []

    s = TurnSettings(proper_first=proper_first)
    assert not proper_line((up, {}, []), s) and proper_line((right, {}, []), s)
    assert line_signs(up, s) > line_signs(right, s)
    pieces, _, warnings = read_any_turn(read, img, s)
    assert bool(warnings) == turned
    assert line_pairs(pieces) == (7 if turned else 5)


@pytest.mark.parametrize("down,angle,lo,hi", [
    (None, 0.0, 0.0, 0.01),  # 9 hats in a row, their rabbits below
    (None, 35.0, 0.0, 0.01),  # slanted
    (None, -80.0, 0.0, 0.01),
    (75.0, 0.0, 1.0, 1.3),  # hats 7 and 8 in the rabbits' row, 75 px down (60 px tiles),
    #   their rabbits unread (committed e2 0004 upside down: 0.76)
    (75.0, -20.0, 1.0, 1.3),
    (20.0, 0.0, 0.2, 0.4),  # a line bent a third of a tile
])
def test_hats_off_row(down, angle, lo, hi):
    t = np.deg2rad(angle)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    pieces = []
    for i in range(9):
        off = down is not None and i in (6, 7)
        for kind, y in (("hat", down if off else 0.0), ("rabbit", None if off else 75.0)):
            if y is not None:
                xy = np.array([70.0 * i, y]) @ rot.T
                pieces.append(tile(f"{kind}-{i + 1}", 400 + xy[0], 300 + xy[1], angle=angle))
    assert lo <= hats_off_row(pieces) <= hi


def test_hats_off_row_needs_four_hats():
    assert hats_off_row(line([1, 2, 3]) + [tile("hat-4", 170, 275)]) > 1.0
    assert hats_off_row(line([1, 2, 3])) == 0.0  # 3 hats: 0.0
    assert hats_off_row(line([1, 2]) + [tile("hat-3", 170, 275)]) == 0.0  # 3 hats


@pytest.mark.parametrize("pairs,hat_doves,rabbit_doves,off,settings,want", [
    (6, 2, 0, False, {}, True),  # the rules' doves on hats, hats in a row
    (6, 2, 0, True, {}, False),  # a hat in the rabbits' row: turned too (e2 0004 upside down)
    (6, 2, 0, True, {"off_row": 2.0}, True),
    (6, 3, 1, False, {}, True),  # 3 on hats less 1 on a rabbit: 2
    (6, 3, 2, False, {}, False),  # (fresh 3040 0008 upside down: 5 on hats, 4 on rabbits)
    (6, 3, 2, False, {"rabbit_doves": False}, True),
    (9, 0, 3, True, {}, True),  # a whole line: no turn
    (4, 3, 0, False, {}, False),  # too few pairs
])
def test_proper_line(pairs, hat_doves, rabbit_doves, off, settings, want):
    pieces = line(range(1, pairs + 1))
    pieces += [dove(100 + 70 * i, 200) for i in range(hat_doves)]
    pieces += [dove(100 + 70 * i, 275) for i in range(rabbit_doves)]
    if off:
        pieces.append(tile("hat-9", 100 + 70 * pairs, 275))
    assert proper_line((pieces, {}, []), TurnSettings(**settings)) == want


def dove(cx: float, cy: float) -> CardPiece:
    return CardPiece("dove", 0.9, np.array([cx, cy]), None, 0.0, 30.0)


@pytest.mark.parametrize("doves,want", [
    ([(100, 200), (170, 200)], 2),  # on the hats' centres
    ([(125, 220)], 1),  # within the hat's own square
    ([(135, 200)], 0),  # past its edge (between two hats)
    ([(100, 275)], 0),  # on the rabbit below
    ([(100, 270), (170, 275), (240, 200)], 1),
    ([], 0),
])
def test_doves_on_hats(doves, want):
    pieces = line([1, 2, 3]) + [dove(*d) for d in doves]
    assert doves_on_hats(pieces) == want


@pytest.mark.slow
@pytest.mark.parametrize("turn", ["cw", "ccw", "180"])
def test_turned_committed_photo_reads_its_line(run_cli, tmp_path, turn):
    """Committed e1 0001 turned: the same facts as the truth, every piece inside the
    turned photo and near its true (turned) position."""
    jpg = SCENES / "magic-rabbit-e1-s1-0001.jpg"
    truth = json.loads(jpg.with_suffix(".json").read_text())
    img = cv2.imread(str(jpg))
    p = tmp_path / f"turned-{turn}.png"
    cv2.imwrite(str(p), cv2.rotate(img, ROTATE[turn]))
    code, out = run_cli("score", p, "--game", "magic-rabbit", "--json")
    assert code == 0, out
    assert out["facts"] == truth["facts"]
    assert any("turned" in w for w in out["warnings"])
    h, w = img.shape[:2]
    th, tw = (w, h) if turn in ("cw", "ccw") else (h, w)
    true_c = {}
    for q in truth["pieces"]:
        x, y = q["center"]
        tx, ty = {"cw": (h - 1 - y, x), "ccw": (y, w - 1 - x),
                  "180": (w - 1 - x, h - 1 - y)}[turn]
        true_c.setdefault(q["label"], []).append((tx, ty))
    for q in out["pieces"]:
        x, y = q["center"]
        assert 0 <= x < tw and 0 <= y < th
        d = min(np.hypot(x - a, y - b) for a, b in true_c[q["label"]])
        assert d < 20, (q["label"], q["center"])


@pytest.mark.parametrize("layout,want", [
    ("across", ("180",)),  # the line along x: the photo as it is or half turned
    ("along", ("cw", "ccw")),  # along y: a quarter turn either way
    ("few", ("cw", "ccw", "180")),  # too few tiles to tell
])
def test_turns_to_try(layout, want):
    from vision.cards.turned import turns_to_try

    pieces = line(range(1, 6)) if layout != "few" else line([1])
    if layout == "along":
        pieces = [tile(p.label, p.center[1], p.center[0]) for p in pieces]
    assert turns_to_try(pieces) == want


@pytest.mark.parametrize("turn,words,want", [
    ("cw", "left to right", "bottom to top"), ("cw", "right to left", "top to bottom"),
    ("ccw", "left to right", "top to bottom"), ("180", "left to right", "right to left"),
    ("180", "right to left", "left to right"),
])
def test_turned_back_names_the_photos_sides(turn, words, want):
    """The no-magician warning's direction, read on the turned copy, in the photo's words:
    the turned copy's x axis is, in the photo, the direction `want` names."""
    w = f"the line is read from the end its numbers ascend from ({words})"
    _, out = turned_back([], [w], turn, (300, 400))
    assert out == [f"the line is read from the end its numbers ascend from ({want})"]
    a, b = back_points(np.array([[0.0, 150.0], [200.0, 150.0]]), turn, (300, 400))
    if words == "right to left":
        a, b = b, a
    d = b - a
    say = {(1, 0): "left to right", (-1, 0): "right to left", (0, 1): "top to bottom",
           (0, -1): "bottom to top"}[tuple(int(v) for v in np.sign(d))]
    assert say == want


def slanted(numbers, angle: float, x0=300.0, y0=300.0, step=70.0, down=75.0):
    """`line(numbers)` turned by `angle` degrees (image px, y down) about (x0, y0): the
    tiles' centres and own axes with it (a phone held crooked)."""
    t = np.deg2rad(angle)
    R = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    out = []
    for p in line(numbers, x0, y0, step, down=down):
        c = R @ (p.center - (x0, y0)) + (x0, y0)
        out.append(tile(p.label, *c, angle=angle))
    return out


@pytest.mark.parametrize("angle", [-44.0, -30.0, -10.0, 0.0, 15.0, 40.0, 70.0, 89.0])
def test_line_axis(angle):
    assert line_axis(slanted(range(1, 10), angle)) == pytest.approx(angle, abs=1.0)


def test_line_axis_needs_four_tiles():
    assert line_axis(line([1])) is None
    assert line_axis([tile("magician", 0, 0)] * 5) is None


@pytest.mark.parametrize("axis", [-40.0, -27.0, 26.0, 43.0])
@pytest.mark.parametrize("seed", [0, 1])
def test_level_copy_holds_the_photo_and_levels_the_line(axis, seed):
    """A pixel marked on the photo lies where the affine maps it (within a pixel); the
    photo's corners lie inside the copy; two points along a line at `axis` degrees come
    out level."""
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(60, 120)), int(rng.integers(60, 160))
    img = np.zeros((h, w, 3), np.uint8)
    y, x = int(rng.integers(5, h - 5)), int(rng.integers(5, w - 5))
    img[y - 1:y + 2, x - 1:x + 2] = 255
    copy, M = level_copy(img, axis)
    ys, xs = np.nonzero(copy[..., 0] > 60)
    wx, wy = M @ (x, y, 1.0)
    assert abs(xs.mean() - wx) < 1.0 and abs(ys.mean() - wy) < 1.0
    corners = np.array([[0, 0, 1], [w - 1, 0, 1], [w - 1, h - 1, 1], [0, h - 1, 1]], float)
    cx, cy = (corners @ M.T).T
    assert cx.min() >= -0.5 and cy.min() >= -0.5
    assert cx.max() <= copy.shape[1] - 0.5 and cy.max() <= copy.shape[0] - 0.5
    t = np.deg2rad(axis)
    a, b = M @ (10.0, 10.0, 1.0), M @ (10.0 + 50 * np.cos(t), 10.0 + 50 * np.sin(t), 1.0)
    assert a[1] == pytest.approx(b[1], abs=1e-6)


@pytest.mark.parametrize("axis", [-35.0, 30.0])
def test_affine_back_maps_frames_angles_and_warnings(axis):
    """A tile read level on the copy lies, mapped back, at the line's slant with its frame
    along its angle; its warning's position follows it."""
    img = np.zeros((300, 400, 3), np.uint8)
    copy, M = level_copy(img, axis)
    p = tile("hat-3", copy.shape[1] // 2 + 30.0, copy.shape[0] // 2 - 20.0)
    out, warns = affine_back([p], [f"the hat-3 at ({p.center[0]:.0f}, {p.center[1]:.0f}): x"],
                             M, axis)
    q = out[0]
    u = q.frame[1] - q.frame[0]
    assert np.rad2deg(np.arctan2(u[1], u[0])) == pytest.approx(axis, abs=1e-6)
    assert q.angle == pytest.approx(axis)
    assert np.allclose(M @ (*q.center, 1.0), p.center)
    assert warns == [f"the hat-3 at ({q.center[0]:.0f}, {q.center[1]:.0f}): x"]


def _slant_read(axis: float, n_slanted: int, calls: list):
    """A `read` of a photo whose line lies at `axis` degrees: as it is `n_slanted` pairs; on
    a level copy (any other shape) the whole line, level."""
    def read(im):
        calls.append(im.shape)
        if im.shape == (300, 400, 3):
            return slanted(range(1, 10), axis)[: 2 * n_slanted], {"line": "slanted"}, []
        return line(range(1, 10)), {"line": "level"}, ["at (100, 200)"]
    return read


@pytest.mark.parametrize("axis,n_slanted,tie,want,reads", [
    (35.0, 5, True, "level", 2),  # slanted past level_min: the level copy reads more pairs
    (-35.0, 9, True, "level", 2),  # as many pairs: kept with level_tie
    (-35.0, 9, False, "slanted", 2),  # ... not without it
    (20.0, 3, True, "slanted", 1),  # within level_min: no level read (then no turn either:
    #   the line lies across the photo and half a turn reads the fake's slanted line)
])
def test_level_read(axis, n_slanted, tie, want, reads):
    calls = []
    s = TurnSettings(level_tie=tie, proper_pairs=3, least_doves=0)
    pieces, facts, warnings = read_any_turn(_slant_read(axis, n_slanted, calls),
                                            np.zeros((300, 400, 3), np.uint8), s)
    assert facts == {"line": want} and len(calls) == reads
    if want == "level":
        assert "degrees" in warnings[0] and line_pairs(pieces) == 9
        assert line_axis(pieces) == pytest.approx(axis, abs=1.0)


def test_level_read_keeps_fewer_pairs_out():
    calls = []
    read = _slant_read(30.0, 9, calls)

    def worse(im):
        got = read(im)
        return (got[0][:6], got[1], got[2]) if im.shape != (300, 400, 3) else got
    img = np.zeros((300, 400, 3), np.uint8)
    got = level_read(worse, img, worse(img))
    assert got[1] == {"line": "slanted"} and len(calls) == 2


@pytest.mark.parametrize("axis,level_max,turn_word", [
    (75.0, 60.0, "quarter"),  # nearer the y axis: the exact quarter turn, no level copy
    (75.0, 90.0, "degrees"),  # level_max raised: the level copy first
    (50.0, 60.0, "degrees"),  # a roll's slant within level_max: the level copy
])
def test_level_read_leaves_a_quarter_turn_to_cv2_rotate(axis, level_max, turn_word):
    calls = []
    s = TurnSettings(proper_pairs=5, least_doves=0, level_max=level_max)
    _, facts, warnings = read_any_turn(_slant_read(axis, 4, calls),
                                       np.zeros((300, 400, 3), np.uint8), s)
    assert facts == {"line": "level"} and turn_word in warnings[0] and len(calls) == 2


@pytest.mark.parametrize("axis,want", [
    (30.0, "left to right"),  # a line slanted under 45 degrees: still left to right
    (-30.0, "left to right"),
    (55.0, "top to bottom"),  # its right end lies lower in the photo: read top to bottom
    (-55.0, "bottom to top"),  # its right end lies higher
])
def test_level_copy_end_words_said_in_the_photo(axis, want):
    img = np.zeros((300, 400, 3), np.uint8)
    copy, M = level_copy(img, axis)
    left, right = np.array([100.0, 150.0]), np.array([300.0, 150.0])  # in the copy
    Minv = cv2.invertAffineTransform(M)
    a, b = (Minv[:, :2] @ p + Minv[:, 2] for p in (left, right))
    along_y = abs(b[1] - a[1]) > abs(b[0] - a[0])
    assert along_y == (abs(axis) > 45)  # the copy's left-to-right, seen in the photo
    _, warns = affine_back([], ["no magician tile (left to right) at (10, 20)",
                                "no magician tile (right to left)"], M, axis)
    rev = {"left to right": "right to left", "top to bottom": "bottom to top",
           "bottom to top": "top to bottom"}[want]
    assert f"({want})" in warns[0] and f"({rev})" in warns[1]


def test_level_read_keeps_no_copy_of_no_pairs():
    """A level copy that reads no pair either is not kept (no warning of a turn that
    gained nothing)."""
    calls = []
    img = np.zeros((300, 400, 3), np.uint8)

    def none(im):
        calls.append(im.shape)
        return slanted(range(1, 10), 35.0)[:9:2], {"line": "slanted" if im.shape == img.shape
                                                   else "level"}, []
    got = level_read(none, img, none(img))
    assert line_pairs(got[0]) == 0 and got[1] == {"line": "slanted"} and len(calls) == 2


@pytest.mark.slow
def test_crooked_committed_photo_reads_its_line(run_cli, tmp_path):
    """Committed e1 0011 turned 20 degrees anticlockwise (0.72 x, the whole photo kept):
    its line lies at 40 degrees; read level, the truth's facts, every piece near its true
    (turned) position."""
    jpg = SCENES / "magic-rabbit-e1-s1-0011.jpg"
    truth = json.loads(jpg.with_suffix(".json").read_text())
    img = cv2.imread(str(jpg))
    h, w = img.shape[:2]
    M = cv2.getRotationMatrix2D((w / 2, h / 2), 20.0, 0.7165)
    p = tmp_path / "crooked.png"
    cv2.imwrite(str(p), cv2.warpAffine(img, M, (w, h), borderMode=cv2.BORDER_REPLICATE))
    code, out = run_cli("score", p, "--game", "magic-rabbit", "--json")
    assert code == 0, out
    assert out["facts"] == truth["facts"]
    assert any("slanted" in x for x in out["warnings"])
    true_c = {}
    for q in truth["pieces"]:
        true_c.setdefault(q["label"], []).append(M @ (*q["center"], 1.0))
    for q in out["pieces"]:
        d = min(np.hypot(*(np.asarray(q["center"]) - c)) for c in true_c[q["label"]])
        assert d < 15, (q["label"], q["center"])
