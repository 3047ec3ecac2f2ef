"""The board dice's cost (docs/dice.md "Session 26 (mauer-dice-speed)"): connected
components with 16-bit labels (`vision.dice.cc_stats`, the same labels and stats as
OpenCV's int32 ones), the ray directions made once (`_ring_points`), and on a busy table
(`busy_clutter`) a die seen off a crop's centre read next (`busy_seen`), smaller crops
(`busy_die_crop`) and at most `busy_blur_reads` blurred reads."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from tests.vision.test_mauer_dice import _smeared_die_scene
from vision import dice as V
from vision import mauer_dice as D
from vision.dice import Die


@pytest.mark.parametrize("shape,density,seed", [
    ((357, 357), 0.3, 0),  # a crop's adaptive-threshold mask: 16-bit labels
    ((179, 179), 0.5, 1),  # its half-size pass
    ((40, 31), 0.0, 2),  # nothing set: the background alone
    ((600, 600), 0.6, 3),  # more pixels than 65535 set, still few enough components
    ((1, 1), 1.0, 4),  # one pixel
])
def test_cc_stats_are_opencvs_int32_ones(shape, density, seed):
    """`cc_stats` gives OpenCV's labels, stats and centroids bit for bit, whichever label
    type it asks for."""
    rng = np.random.default_rng(seed)
    m = (rng.random(shape) < density).astype(np.uint8) * 255
    m = cv2.dilate(m, np.ones((2, 2), np.uint8)) if min(shape) > 2 else m
    want = cv2.connectedComponentsWithStats(m, connectivity=8)
    got = V.cc_stats(m)
    assert got[0] == want[0]
    assert np.array_equal(got[1].astype(np.int64), want[1].astype(np.int64))
    assert np.array_equal(got[2], want[2])
    assert np.array_equal(got[3], want[3], equal_nan=True)  # (an empty background: NaN)


def test_cc_stats_takes_int32_labels_where_more_than_65535_could_come_out():
    """A checkerboard of lone pixels 600 px a side could hold 90000 components (8-connected
    they are one; the bound does not know): int32 labels, the same results."""
    m = np.zeros((600, 600), np.uint8)
    m[::2, ::2] = 1
    got = V.cc_stats(m)
    assert got[1].dtype == np.int32
    assert got[0] == cv2.connectedComponentsWithStats(m, connectivity=8)[0] == 90001


@pytest.mark.parametrize("n", [16, 32, 7])  # the pip ring, a face's rays, any count
def test_ring_points_are_made_once_and_read_only(n):
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    got = V._ring_points(n)
    assert np.array_equal(got, np.stack([np.cos(a), np.sin(a)], axis=1))
    assert V._ring_points(n) is got and not got.flags.writeable


def _busy_run(monkeypatch, clutter, gives, s=None):
    """`read_board_dice` on candidates b1, b2 (a table of `clutter`, `busy_clutter` 4):
    `gives` maps a read's name to the dice its crop read gives, in die sides from the
    crop's centre. Returns (names read in order, settings each read got, dice)."""
    img, board, view, at, side = _smeared_die_scene()
    at = np.asarray(at, float)
    names = {"b1": at, "b2": at + (0.0, 4 * side)}
    reads, got_s = [], []

    def candidates(image_bgr, view, board, s, lightness, lone, beside, pairs, big,
                   touch=None, fine=None, marks=None, busy=None):
        busy.append(clutter)
        return [(names["b1"], side), (names["b2"], side)]

    def read_crop(image_bgr, view, c, die_px, s, jac, read=True):
        name = next((k for k, v in names.items() if np.hypot(*(v - c)) < 1e-6), None)
        if name is None:  # a die seen off a crop's centre, read where it was seen
            name = f"seen{len(reads)}"
            names[name] = np.asarray(c, float)
        reads.append(name)
        got_s.append(s)
        mid = np.asarray(view.corners, float).mean(axis=0) - c  # (the board's centre)
        dice = [Die(v, 0.9, (float(mid[0] if dx == "board" else dx * side),
                             float(mid[1] if dx == "board" else dy * side)))
                for v, dx, dy in gives.get(name, [])]
        return float(c[0]), float(c[1]), 1.0, np.eye(2), np.full((40, 40, 3), 128, np.uint8), dice

    monkeypatch.setattr(D, "die_candidates", candidates)
    monkeypatch.setattr(D, "_read_crop", read_crop)
    monkeypatch.setattr(D, "_spot_read_at", lambda *a, **k: None)
    monkeypatch.setattr(D, "dot_read", lambda *a, **k: None)
    s = s or replace(D.SETTINGS, dice_wanted=2, warn_unread=False, blur_read=False)
    dice, _ = D.read_board_dice(img, view, board, s)
    return reads, got_s, dice


@pytest.mark.parametrize("clutter,gives,visits,n_dice", [
    (10.0, {"b1": [(5, 0, 0), (3, 1.5, 0)], "seen1": [(3, 0, 0)]}, "b1 seen1", 2),  # busy:
    # the 3 b1's crop saw 1.5 die sides off its centre is read next, centred, and with
    # both dice read b2 is not read
    (1.0, {"b1": [(5, 0, 0), (3, 1.5, 0)]}, "b1 b2", 1),  # a plain table: as before
    (10.0, {"b1": [(5, 0, 0), (5, 0.5, 0)]}, "b1 b2", 1),  # within 0.8 die sides: the die
    # read at the centre (the same die), nothing queued
    (10.0, {"b1": [(5, 0, 0), (3, 1.5, 0), (3, 1.6, 0.2)]}, "b1 seen1 b2", 1),  # two seen
    # within 0.8 die sides of each other: one read there (it gives nothing), then b2
    (10.0, {"b1": [(5, 0, 0), (3, "board", 0)]}, "b1 b2", 1),  # one seen on the board: not
    # read (its printed fields are no dice)
])
def test_a_die_seen_off_a_crops_centre_is_read_next_on_a_busy_table(
        monkeypatch, clutter, gives, visits, n_dice):
    reads, _, dice = _busy_run(monkeypatch, clutter, gives)
    assert " ".join(reads) == visits
    assert len(dice) == n_dice


def test_busy_seen_off_reads_as_before(monkeypatch):
    s = replace(D.SETTINGS, dice_wanted=2, warn_unread=False, blur_read=False,
                busy_seen=False)
    reads, _, _ = _busy_run(monkeypatch, 10.0, {"b1": [(5, 0, 0), (3, 1.5, 0)]}, s)
    assert reads == ["b1", "b2"]


@pytest.mark.parametrize("clutter,want", [(10.0, 3.0), (1.0, 4.0)])  # busy, plain
def test_a_busy_tables_crops_are_smaller(monkeypatch, clutter, want):
    _, got_s, _ = _busy_run(monkeypatch, clutter, {})
    assert [x.die_crop for x in got_s] == [want, want]


@pytest.mark.parametrize("clutter,blur_max,want", [
    (10.0, 4, 1),  # busy: one blurred read at most
    (1.0, 4, 2),  # a plain table: every unread candidate seen (2 here, under the 4)
    (10.0, 0, 0),  # never more than `blur_max_reads`
])
def test_a_busy_table_gets_few_blurred_reads(monkeypatch, clutter, blur_max, want):
    calls = []
    monkeypatch.setattr(D, "die_seen", lambda *a, **k: True)
    monkeypatch.setattr(D, "board_blur", lambda *a, **k: D.BoardBlur(1.0, 0.0, 1.5))
    monkeypatch.setattr(D, "blur_kernels", lambda *a, **k: [np.ones((3, 3), np.float32)])

    def blur_read(*a, **k):
        calls.append(1)

    monkeypatch.setattr(D, "blur_read", blur_read)
    monkeypatch.setattr(D, "blur_fit_read", lambda *a, **k: None)
    s = replace(D.SETTINGS, dice_wanted=2, warn_unread=False, blur_read=True,
                blur_max_reads=blur_max)
    _busy_run(monkeypatch, clutter, {}, s)
    assert len(calls) == want
