"""A board die's 1 that is one pip of a 2 on a table as light as the face
(`vision.mauer_dice._one_as_pair`, docs/dice.md "Dice on marble and newsprint")."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision import mauer_dice as D

OFF = replace(D.SETTINGS, one_as_pair=False)


def _face(pips, table, angle=0.0, marks=(), side=90, n=360, pip=0.09, seed=0):
    """Lightness (uint8) of an enlarged die face (side px, level 235) turned by `angle`
    degrees on a `table` level, its pips at `pips` (face units, +-0.5 a corner pip) and dark
    `marks` ((u, v, half length, half width) face units, along the face's x axis: print),
    a little noise (seeded). (L, a): a the face's map (face units -> px), centre n / 2."""
    rng = np.random.default_rng(seed)
    L = np.full((n, n), table, np.float32)
    c = np.array([n / 2, n / 2])
    th = np.radians(angle)
    a = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]]) * side / 2
    box = c + np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) @ a.T
    cv2.fillPoly(L, [np.round(box).astype(np.int32)], 235)
    for u, v in pips:
        p = c + a @ (u, v)
        cv2.circle(L, (int(round(p[0])), int(round(p[1]))), int(side * pip), 30, -1)
    for u, v, hl, hw in marks:
        p0, p1 = (c + a @ (u + e, v) for e in (-hl, hl))
        cv2.line(L, tuple(np.round(p0).astype(int)), tuple(np.round(p1).astype(int)), 30,
                 max(1, int(round(2 * hw * side / 2))))
    L += rng.normal(0, 2.0, L.shape).astype(np.float32)
    return np.clip(L, 0, 255).astype(np.uint8), a


@pytest.mark.parametrize("angle", [0.0, 25.0, 60.0])
@pytest.mark.parametrize("pips,want", [
    ([(-0.5, -0.5), (0.5, 0.5)], 2),  # a 2 read from one of its pips
    ([(-0.5, -0.5), (0.0, 0.0), (0.5, 0.5)], 3),  # a 3 from a corner pip
])
def test_a_one_on_a_pip_of_a_two_on_a_white_table_is_the_two(pips, want, angle):
    L, a = _face(pips, table=232, angle=angle, seed=int(angle))
    at = np.array([180.0, 180.0]) + a @ pips[0]  # the candidate on a corner pip
    assert D.spot_read(L, at, a, OFF)[0] == 1  # the old reading: a 1 on that pip
    got = D.spot_read(L, at, a)
    assert got is not None and got[0] == want


@pytest.mark.parametrize("table,marks", [
    (232, []),  # a 1 alone on a white table
    (110, []),  # a 1 on a darker table: the face's edge is no pip
    (232, [(1.0, 1.0, 0.35, 0.08)]),  # print (a bar) a 2's spacing off its pip
    (232, [(1.05, -1.05, 0.3, 0.07), (1.05, -0.85, 0.3, 0.07)]),  # two lines of print
])
@pytest.mark.parametrize("angle", [0.0, 30.0])
def test_a_true_one_stays_a_one(table, marks, angle):
    L, a = _face([(0.0, 0.0)], table=table, angle=angle, marks=marks, seed=1)
    got = D.spot_read(L, (180.0, 180.0), a)
    assert got is not None and got[0] == 1


def test_a_one_as_pair_needs_a_face_in_reach():
    L, a = _face([(0.0, 0.0)], table=232)
    assert D._one_as_pair(L.astype(np.float32), (3.0, 3.0), a, D.SETTINGS) is None


def _busy_table(die_at, n_gaps, seed, die_px=16):
    """Lightness (uint8) of a newsprint-like table: rows of dark text strokes (seeded) on
    grey paper (level 200), a white die face (250, a 2's pips) at `die_at`; `n_gaps` gap
    centres between strokes, nearest first from (0, 0). (L, candidates px, the die's
    index among them)."""
    rng = np.random.default_rng(seed)
    L = np.full((400, 400), 200, np.uint8)
    for y in range(6, 400, 12):
        x = 0
        while x < 400:
            w = int(rng.integers(4, 18))
            cv2.rectangle(L, (x, y), (x + w, y + 4), int(rng.integers(30, 80)), -1)
            x += w + int(rng.integers(3, 8))
    cx, cy = die_at
    h = die_px // 2
    cv2.rectangle(L, (cx - h - 3, cy - h - 3), (cx + h + 3, cy + h + 3), 200, -1)  # its gap
    cv2.rectangle(L, (cx - h, cy - h), (cx + h, cy + h), 250, -1)
    for dx in (-4, 4):
        cv2.circle(L, (cx + dx, cy + dx), 2, 30, -1)
    gaps = [np.array([x, y], float) for y in range(12, 400, 12) for x in range(10, 400, 30)]
    gaps = [g for g in gaps if np.hypot(*(g - die_at)) > die_px]
    gaps.sort(key=lambda g: float(np.hypot(*g)))
    cands = gaps[:n_gaps] + [np.array(die_at, float)]
    cands.sort(key=lambda g: float(np.hypot(*g)))
    i = next(k for k, g in enumerate(cands) if np.allclose(g, die_at))
    return L, cands, i


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("die_at", [(300, 300), (350, 120), (200, 380)])
def test_a_busy_table_keeps_the_die_among_its_candidates(die_at, seed):
    L, cands, i = _busy_table(die_at, 200, seed)
    s = D.SETTINGS
    assert i >= s.max_die_candidates  # nearest the board first: the die is not read
    got = D._busy_pick(L, cands, np.zeros(2), 16.0, s)
    assert len(got) == s.max_die_candidates
    assert any(np.allclose(g, die_at) for g in got)
    d = [float(np.hypot(*g)) for g in got]
    assert d == sorted(d)  # still nearest the board first among them
