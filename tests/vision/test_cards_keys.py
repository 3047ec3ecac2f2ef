"""The card reader's key points: Magic Rabbit's second look on the photo balanced by its
own light (`vision.cards.detect.merge_keys`, `CardReader.detect_keys`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.cards.detect import KIND_DOVE, KIND_PIECE, Keypoints, merge_keys
from vision.cards.read import READ, CardReader


def _keys(*points) -> Keypoints:
    """Key points from (x, y, kind, score, width) tuples (angle 0)."""
    a = np.array(points, np.float64).reshape(-1, 5)
    return Keypoints(a[:, :2].copy(), a[:, 2].astype(int), a[:, 3].astype(np.float32),
                     np.zeros(len(a)), a[:, 4].copy())


P, D = KIND_PIECE, KIND_DOVE
THR = (0.15, 0.3)  # (piece, dove) heat


@pytest.mark.parametrize("own, more, added", [
    # a dove only the balanced view finds is added
    ([(100, 100, P, 0.9, 60)], [(100, 100, P, 0.8, 60), (300, 100, D, 0.6, 30)], [1]),
    # the same piece a little off (under reach x width): not added twice
    ([(100, 100, P, 0.9, 60)], [(125, 100, P, 0.9, 60)], []),
    # beyond reach x width: another piece
    ([(100, 100, P, 0.9, 60)], [(135, 100, P, 0.9, 60)], [0]),
    # a piece's key point does not stand for a dove there (kinds apart)
    ([(100, 100, P, 0.9, 60)], [(100, 100, D, 0.5, 30)], [0]),
    # the photo's own dove too weak to count (under 0.3): the balanced one is added
    ([(100, 100, D, 0.2, 30)], [(102, 100, D, 0.5, 30)], [0]),
    # the balanced view's own weak key points are never added
    ([], [(100, 100, D, 0.2, 30), (300, 100, P, 0.1, 60)], []),
    ([], [], []),
])
def test_merge_keys(own, more, added):
    kp, mk = _keys(*own), _keys(*more)
    out = merge_keys(kp, mk, THR, 0.5)
    _check_merged(kp, mk, out, added)


@pytest.mark.parametrize("more, added", [
    ([(300, 100, D, 0.35, 30)], []),  # a dove the other view alone finds needs 0.4 ...
    ([(300, 100, D, 0.45, 30)], [0]),
    ([(300, 100, P, 0.2, 60)], [0]),  # ... a piece its own threshold
])
def test_merge_keys_bar_for_added_key_points(more, added):
    kp, mk = _keys((100, 100, P, 0.9, 60)), _keys(*more)
    _check_merged(kp, mk, merge_keys(kp, mk, THR, 0.5, (0.15, 0.4)), added)


def _check_merged(kp, mk, out, added):
    assert len(out) == len(kp) + len(added)
    np.testing.assert_array_equal(out.xy[:len(kp)], kp.xy)  # the photo's own first, as they were
    np.testing.assert_array_equal(out.xy[len(kp):], mk.xy[added])
    np.testing.assert_array_equal(out.kind[len(kp):], mk.kind[added])


class _WarmBlindDetector:
    """Finds a dove at (50, 50) only where the photo's blue is 0.6 of its red or more (a white
    dove under a white light, or balanced), a tile at (20, 20) always."""

    threads = 1

    def detect(self, image, threshold=None, threads=None):
        b, r = image[50, 50, 0], image[50, 50, 2]
        pts = [(20, 20, P, 0.9, 30)] + ([(50, 50, D, 0.7, 20)] if b >= 0.6 * r else [])
        return _keys(*pts)


def _reader(strength: float) -> CardReader:
    reader = object.__new__(CardReader)  # (no models: only the detector is asked)
    reader.detector = _WarmBlindDetector()
    reader.settings = replace(READ, balanced_keys=strength, threads=False)
    return reader


@pytest.mark.parametrize("cast, strength, game, doves", [
    ((1.0, 1.0, 1.0), 0.5, "magic-rabbit", 1),  # white light: found as it is
    ((0.45, 0.7, 1.0), 0.5, "magic-rabbit", 1),  # a warm lamp: found on the balanced photo
    ((0.45, 0.7, 1.0), 0.0, "magic-rabbit", 0),  # (off)
    ((0.45, 0.7, 1.0), 0.5, "troetofanten", 0),  # other games: the photo as it is
])
def test_detect_keys_looks_again_on_the_balanced_photo(cast, strength, game, doves):
    rng = np.random.default_rng(3)
    img = rng.integers(60, 200, (100, 100, 3)).astype(np.float32)
    img[40:60, 40:60] = 230  # the white dove
    img = np.clip(img * np.asarray(cast, np.float32), 0, 255).astype(np.uint8)
    kp, own = _reader(strength).detect_keys(img, game)
    assert own == 1 + (cast == (1.0, 1.0, 1.0))  # the photo's own come first
    assert int((kp.kind == KIND_DOVE).sum()) == doves
    assert int((kp.kind == KIND_PIECE).sum()) == 1  # the tile once


@pytest.mark.parametrize("spot, side, changed", [
    ((640, 480), 640, True),  # a lamp's spot on a grey table: its light taken off
    (None, 640, False),  # no spot: the photo itself
    ((640, 480), 0, False),  # (off)
])
def test_glare_off_takes_a_lamps_spot_off_the_photo(spot, side, changed):
    from vision.cards.stage import glare_off
    from vision.light_eval import add_spot

    rng = np.random.default_rng(7)
    flat = np.clip(110 + rng.normal(0, 3, (960, 1280, 1)), 0, 255).repeat(3, axis=2)
    flat = flat.astype(np.uint8)
    lit = flat if spot is None else add_spot(flat, spot, 130)
    out = glare_off(lit, side)
    assert (out is not lit) is changed
    if changed:
        yy, xx = np.mgrid[0:960, 0:1280]
        d = np.hypot(xx - spot[0], yy - spot[1])
        halo = (d > 120) & (d < 220)  # beyond the clipped core, within the light's reach
        before = np.median(lit[halo].astype(int) - flat[halo])
        after = np.median(np.abs(out[halo].astype(int) - flat[halo]))
        assert before >= 20 and after <= 0.4 * before
        assert np.abs(out[d > 600].astype(int) - lit[d > 600]).max() <= 1  # far off: as it was


def _table_with_spot(level: int, amount: float, shade_off: float | None,
                     band: float | None = None) -> np.ndarray:
    """uint8 BGR 480 x 640: a grey table of `level` with a soft bright spot (radius 95 px,
    `amount` of white at its centre, `vision.light_eval.add_spot`) at (400, 120), and
    below the line y = 0.3 x + `shade_off` a hard shadow (0.3 of the light, a little blue,
    4 px soft edge; `light_eval.hard_shadow`'s kind); None: no shadow. `band` (px): the
    shadow only that far below the line (a pole's or an arm's), the spot's light added
    after it (a lamp's reflection inside the shadow of something else)."""
    from vision.light_eval import add_spot, in_linear

    rng = np.random.default_rng(3)
    img = np.clip(level + rng.normal(0, 3, (480, 640, 1)), 0, 255).repeat(3, axis=2)
    img = img.astype(np.uint8)
    if band is None:
        img = add_spot(img, (400, 120), 95, amount)
    if shade_off is not None:
        yy, xx = np.mgrid[0:480, 0:640]
        inside = np.clip(0.5 + (yy - shade_off - 0.3 * xx) / 4.0, 0, 1)[..., None]
        if band is not None:
            far = np.clip(0.5 - (yy - shade_off - band - 0.3 * xx) / 4.0, 0, 1)[..., None]
            inside = np.minimum(inside, far)
        img = in_linear(img, 1.0 - inside * (1.0 - 0.3 * np.array([1.1, 1.0, 0.9])))
    return img if band is None else add_spot(img, (400, 120), 95, amount)


@pytest.mark.parametrize("level, amount, shade_off, kept", [
    # a bright patch of a light table (no spot in full light: its ring is as bright), whose
    # ring a hard shadow darkens on one side: taken for a spot, dropped
    (160, 1.0, 60, False),  # the edge through the spot's rim
    (160, 1.0, 80, False),
    (170, 1.2, 80, False),
    (170, 1.2, 100, False),  # the edge through the ring below it
    # a lamp's reflection on a darker table, the same shadows: kept
    (110, 1.2, 60, True),
    (110, 1.2, 100, True),
    (70, 1.2, 80, True),
    (110, 1.2, None, True),  # no shadow
    (70, 1.2, 300, True),  # a shadow far off (through the cards, not the spot's ring)
    # a lamp's spot inside a shadow band on a darker wood (fresh 2001 glare 0002): kept
    # (the shade lit up would scale the lamp's light with it and make its ring white)
    ((110, 240), 1.2, -120, True),
    ((90, 180), 1.2, -90, True),
])
def test_spots_past_shadow_drops_a_shadowed_white_table(level, amount, shade_off, kept):
    from vision.area import glare_spots, spots_past_shadow
    from vision.cards.stage import GLARE_AREA

    level, band = level if isinstance(level, tuple) else (level, None)
    img = _table_with_spot(level, amount, shade_off, band)
    spots = glare_spots(img, GLARE_AREA)
    assert len(spots) == 1  # what the spot test alone takes for a lamp's spot
    assert len(spots_past_shadow(img, GLARE_AREA, spots)) == int(kept)
    off = replace(GLARE_AREA, shadow_share=0.0)  # no shadow looked for: as before
    assert spots_past_shadow(img, off, spots) == spots
    assert not glare_spots(_table_with_spot(level, amount, None, band), GLARE_AREA) or kept


@pytest.mark.parametrize("level, shade_off, changed", [
    (160, 80, False),  # the shadowed white table read as it is
    (110, 80, True),  # a lamp's spot next to a shadow's edge: its light taken off
])
def test_glare_off_leaves_a_shadowed_white_table(level, shade_off, changed):
    from vision.cards.stage import glare_off

    img = _table_with_spot(level, 1.0 if level > 150 else 1.2, shade_off)
    out = glare_off(img, 640)
    assert (out is not img) is changed


class _ImageReader:
    """Records the photo `read_pieces` was given."""

    settings = READ

    def __init__(self):
        self.seen = None

    def read_pieces(self, image, game, area=None):
        self.seen = image
        self.all = getattr(self, "all", []) + [image]
        return [], []


@pytest.mark.parametrize("game, off", [("magic-rabbit", True), ("troetofanten", False)])
def test_read_balanced_reads_magic_rabbit_without_the_glare(game, off):
    from vision.cards.stage import read_balanced
    from vision.light_eval import add_spot

    flat = np.full((960, 1280, 3), 70, np.uint8)
    lit = add_spot(flat, (640, 480), 130)
    reader = _ImageReader()
    image, _, _ = read_balanced(reader, lit, game)
    assert (reader.all[0] is not lit) is off and image is reader.all[0]
    # Troetofanten reads the photo itself, then again without the glare (`glare_added`)
    assert len(reader.all) == (1 if off else 2) and reader.all[-1] is not lit


@pytest.mark.slow
def test_balanced_keys_leave_the_photos_own_pieces_as_they_were():
    """Committed 0011 and 0024 in ordinary light: the balanced view adds weak false key points
    on the table (the classifier drops them); the pieces read are the same, frames and all,
    as without it (the photo's own key points posed among themselves)."""
    from pathlib import Path

    import cv2

    root = Path(__file__).resolve().parents[2] / "datasets" / "scenes" / "magic-rabbit"
    on = CardReader(threads=1)
    off = CardReader(threads=1, settings=replace(READ, balanced_keys=0.0))
    for name in ("magic-rabbit-e1-s1-0011.jpg", "magic-rabbit-e1-s1-0024.jpg"):
        img = cv2.imread(str(root / name))
        assert len(on.detect_keys(img, "magic-rabbit")[0]) > \
            on.detect_keys(img, "magic-rabbit")[1]  # (the other view did add some)
        a, _ = on.read_pieces(img, "magic-rabbit")
        b, _ = off.read_pieces(img, "magic-rabbit")
        assert [p.label for p in a] == [p.label for p in b]
        for p, q in zip(a, b, strict=True):
            np.testing.assert_allclose(p.center, q.center)
            if p.frame is not None:
                np.testing.assert_allclose(p.frame, q.frame)
