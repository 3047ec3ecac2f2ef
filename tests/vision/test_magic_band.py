"""Magic Rabbit on a busy table (session 25): every tile lies in the line's band
(`magic.band_keep`, `magic.off_band_tiles`), and a busy look's shared size and direction
come from the sure key points in that band (`read.busy_line`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.cards.magic import BAND, band_keep, off_band_tiles
from vision.cards.pieces import CardPiece
from vision.cards.read import READ, busy_line, refine_poses


def _line(rng, deg: float = 0.0, piles: int = 9, width: float = 60.0, conf=(0.85, 1.0),
          rabbit_conf=None, low: float = 0.0, gap_at: int | None = None,
          magician: float = 0.0):
    """(centres (N, 2), confidences, widths, is_magician) of a line of `piles` hats (step
    1.15 widths) with each rabbit 1.25 widths below (`low` more for the last one), turned
    `deg` degrees about (640, 480), 0.08 widths of jitter; the pile at `gap_at` missed; a
    magician one step before the first hat, `magician` widths down toward the rabbits."""
    pts, kinds = [], []
    for k in range(piles):
        if k == gap_at:
            continue
        pts += [(k * 1.15, 0.0), (k * 1.15, 1.25 + (low if k == piles - 1 else 0.0))]
        kinds += ["hat", "rabbit"]
    pts.append((-1.15, magician))
    kinds.append("magician")
    p = np.array(pts) * width + rng.normal(0, 0.08 * width, (len(pts), 2))
    p -= p.mean(axis=0)
    t = np.deg2rad(deg)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    c = p @ rot.T + (640.0, 480.0)
    cf = rng.uniform(*conf, len(c))
    if rabbit_conf is not None:  # (another copy: its rabbits read unsure)
        cf[[k for k, kind in enumerate(kinds) if kind == "rabbit"]] = \
            rng.uniform(*rabbit_conf, kinds.count("rabbit"))
    return c, cf, np.full(len(c), width) * rng.normal(1.0, 0.05, len(c)), \
        np.array([k == "magician" for k in kinds])


def _junk(rng, n: int, conf=(0.1, 0.9), width: float = 60.0, away: float = 0.0):
    """`n` tiles read on the table's print, anywhere over a 1280 x 960 photo at least
    `away` px from (640, 480) across the line... (0: anywhere)."""
    xy = rng.uniform([0, 0], [1280, 960], (4 * n + 50, 2))
    if away:
        xy = xy[np.abs(xy[:, 1] - 480.0) >= away]
    xy = xy[:n]
    return xy, rng.uniform(*conf, len(xy)), np.full(len(xy), width)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("kw", [
    {},  # a level line of 9 piles
    {"deg": 20.0},  # held crooked
    {"deg": 90.0},  # photographed from the side (read before the quarter turn)
    {"deg": 180.0},  # from the far end
    {"deg": -35.0, "piles": 6},  # young children's 6 piles
    {"low": 0.6},  # the last rabbit laid low under its hat (1.85 widths down)
    {"gap_at": 4},  # a pile missed: a gap of two steps along the line
    {"magician": 0.6},  # the magician between the rows
    {"rabbit_conf": (0.2, 0.7)},  # edition 2: its rabbits read unsure
])
def test_band_keeps_every_tile_of_a_line(seed, kw):
    rng = np.random.default_rng(seed)
    c, cf, w, _ = _line(rng, **kw)
    keep = band_keep(c, cf, w)
    assert keep is not None and keep.all()


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("deg, n_junk", [(0.0, 40), (15.0, 25), (-80.0, 60)])
def test_band_drops_the_tables_tiles_off_the_line(seed, deg, n_junk):
    """Tiles read on a printed cloth 2.5 widths and more across the line are dropped, the
    line's tiles all kept, whichever direction the line runs."""
    rng = np.random.default_rng(seed)
    c, cf, w, _ = _line(rng, deg=deg)
    t = np.deg2rad(deg)
    across = np.array([-np.sin(t), np.cos(t)])
    jxy, jcf, jw = _junk(rng, 4 * n_junk)
    off = np.abs((jxy - (640.0, 480.0)) @ across) - 0.6 * 60.0  # (from the rows' middle)
    jxy, jcf, jw = jxy[off >= 3.2 * 60.0][:n_junk], jcf[off >= 3.2 * 60.0][:n_junk], \
        jw[off >= 3.2 * 60.0][:n_junk]
    keep = band_keep(np.r_[c, jxy], np.r_[cf, jcf], np.r_[w, jw])
    assert keep[:len(c)].all()
    assert not keep[len(c):].any()


def test_band_drops_a_run_past_a_gap_along_the_line():
    """Tiles in the line's band beyond a gap of over `gap` widths are the table's (the line
    is one run; a missed pile leaves about 2.3 widths), the line's own kept."""
    rng = np.random.default_rng(5)
    c, cf, w, _ = _line(rng)
    far = np.array([[640 + 5.2 * 60 + k * 69, 480 + r * 75] for k in (4, 5) for r in (0, 1)])
    keep = band_keep(np.r_[c, far], np.r_[cf, [0.5, 0.4, 0.6, 0.3]], np.r_[w, [60.0] * 4])
    assert keep[:len(c)].all() and not keep[len(c):].any()
    # with a reach along the line over that gap, they would be kept
    wide = band_keep(np.r_[c, far], np.r_[cf, [0.5, 0.4, 0.6, 0.3]], np.r_[w, [60.0] * 4],
                     replace(BAND, gap=6.0))
    assert wide.all()


@pytest.mark.parametrize("conf, n, why", [
    ((0.2, 0.7), 19, "under `min_sure` sure tiles"),
    ((0.85, 1.0), 5, "under `min_tiles` tiles"),
])
def test_band_needs_enough_sure_tiles(conf, n, why):
    rng = np.random.default_rng(1)
    c, cf, w, _ = _line(rng, conf=conf)
    assert band_keep(c[:n], cf[:n], w[:n]) is None, why


def _piece(label: str, xy, conf: float = 0.95, width: float = 60.0) -> CardPiece:
    return CardPiece(label, conf, np.asarray(xy, np.float64), None, 0.0, width)


def test_off_band_tiles_drops_the_tiles_and_their_doves():
    """A tile off the band goes, and a dove on it; a dove on a kept hat stays; an ordinary
    line loses nothing."""
    rng = np.random.default_rng(2)
    c, cf, w, mag = _line(rng)
    line = [_piece("magician" if m else f"hat-{k % 9 + 1}", xy, f, wd)
            for k, (xy, f, wd, m) in enumerate(zip(c, cf, w, mag, strict=True))]
    dove_on_line = _piece("dove", line[2].center + (5, 3), 0.9, 30.0)
    junk = _piece("hat-8", (640, 80), 0.6)
    dove_on_junk = _piece("dove", (645, 84), 1.0, 30.0)
    pieces = line + [dove_on_line, junk, dove_on_junk]
    out = off_band_tiles(pieces)
    assert [id(p) for p in out] == [id(p) for p in line + [dove_on_line]]
    assert off_band_tiles(line + [dove_on_line]) == line + [dove_on_line]


def _busy_keys(rng, line_deg: float, table_deg: float, n_spots: int):
    """A busy look: the line's key points (sure, heat 0.6-0.95, at `line_deg`) and more
    sure spots of the table's (heat 0.5-0.7, at `table_deg`) than tiles, anywhere but in
    the band, and 100 weak ones; widths 60 (the table's sure spots 40)."""
    c, _, _, _ = _line(rng, deg=line_deg)
    sxy, _, _ = _junk(rng, n_spots, away=240.0)
    wxy, _, _ = _junk(rng, 100)
    xy = np.r_[c, sxy, wxy]
    sc = np.r_[rng.uniform(0.6, 0.95, len(c)), rng.uniform(0.5, 0.7, len(sxy)),
               rng.uniform(0.15, 0.45, len(wxy))]
    ang = np.r_[line_deg + rng.normal(0, 2, len(c)), table_deg + rng.normal(0, 2, len(sxy)),
                rng.uniform(-180, 180, len(wxy))]
    w = np.r_[np.full(len(c), 60.0), np.full(len(sxy), 40.0), np.full(len(wxy), 30.0)]
    return xy, ang, w * rng.normal(1.0, 0.05, len(xy)), sc, len(c)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("line_deg, table_deg", [(18.0, 98.0), (0.0, 45.0), (-20.0, 64.0)])
def test_busy_look_takes_the_lines_direction_and_size(seed, line_deg, table_deg):
    """More sure spots on the table than tiles (the newspaper mat): the tiles keep their
    direction and size; without the band (`busy_band` off) the table's direction wins."""
    rng = np.random.default_rng(seed)
    xy, ang, w, sc, n = _busy_keys(rng, line_deg, table_deg, 40)
    line = busy_line(xy, w, sc)
    assert line[:n].sum() >= n - 1 and not line[n:].any()
    got, widths, _ = refine_poses("magic-rabbit", xy, ang, w, scores=sc)
    assert np.all(np.abs((got[:n] - line_deg + 180) % 360 - 180) < 8.0)
    assert np.all(np.abs(widths[:n] - 60.0) < 0.15 * 60.0)
    off = replace(READ, busy_band=False)
    before, _, _ = refine_poses("magic-rabbit", xy, ang, w, settings=off, scores=sc)
    assert np.median(np.abs((before[:n] - table_deg + 180) % 360 - 180)) < 8.0


def test_busy_line_is_none_on_an_ordinary_look():
    rng = np.random.default_rng(3)
    c, _, w, _ = _line(rng)
    assert busy_line(c, w, rng.uniform(0.6, 0.95, len(c))) is None  # (under `busy_keys`)
    assert busy_line(c, w, None) is None


def _named_line(rng, mag_conf: float = 0.95):
    """A line of 9 piles as pieces (hats 1-9 in the top row, rabbits below), the magician
    one step before hat 1 (confidence `mag_conf`)."""
    c, cf, w, mag = _line(rng)
    out, k = [], 0
    for xy, f, wd, m in zip(c, cf, w, mag, strict=True):
        label = "magician" if m else f"{'hat' if k % 2 == 0 else 'rabbit'}-{k // 2 + 1}"
        k += 0 if m else 1
        out.append(_piece(label, xy, mag_conf if m else f, wd))
    return out


def test_past_the_magician_drops_what_lies_beyond_it():
    """Print read as tiles beyond a surely read magician goes (and a dove on one), as do
    other magicians off the line's hats; nothing of the line itself."""
    from vision.cards.magic import past_the_magician

    rng = np.random.default_rng(4)
    line = _named_line(rng)
    mag = next(p for p in line if p.label == "magician")
    step = line[2].center - line[0].center  # (hat 1 to hat 2)
    beyond = [_piece("rabbit-8", mag.center - step, 0.9),
              _piece("rabbit-9", mag.center - 1.9 * step, 0.3)]
    dove = _piece("dove", beyond[0].center + 3, 1.0, 30.0)
    other_mag = _piece("magician", line[-2].center + 3 * step, 0.5)
    got = past_the_magician(line + beyond + [dove, other_mag])
    assert [id(p) for p in got] == [id(p) for p in line]


@pytest.mark.parametrize("mag_conf, why", [
    (0.6, "the magician read unsure: no end is known"),
    (0.95, "the magician misread in the middle: half the line lies beyond it"),
])
def test_past_the_magician_keeps_the_line_when_no_end_is_sure(mag_conf, why):
    from vision.cards.magic import past_the_magician

    rng = np.random.default_rng(6)
    line = _named_line(rng, mag_conf)
    if "middle" in why:  # (the magician read on hat 5's place, hat 5 not read)
        mag = next(p for p in line if p.label == "magician")
        hat5 = next(p for p in line if p.label == "hat-5")
        line = [p for p in line if p is not hat5 and p is not mag] + \
            [_piece("magician", hat5.center, mag_conf)]
    step = line[2].center - line[0].center
    extra = _piece("rabbit-8", line[0].center - 2.2 * step, 0.9)
    got = past_the_magician(line + [extra])
    assert len(got) == len(line) + 1, why


@pytest.mark.parametrize("magician, n_extra, dropped", [
    (True, 2, 2),  # 11 hats with a magician read: the 2 least sure go
    (False, 2, 1),  # 11 hats, no magician: one may be the magician read as a hat
    (True, 0, 0),  # 9 hats: nothing
])
def test_surplus_tiles_drops_the_least_sure_hats(magician, n_extra, dropped):
    from vision.cards.magic import surplus_tiles

    rng = np.random.default_rng(8)
    line = [p for p in _named_line(rng) if magician or p.label != "magician"]
    extra = [_piece("hat-5", line[0].center + (0, -200 - 80 * k), 0.2 + 0.1 * k)
             for k in range(n_extra)]
    dove = [_piece("dove", extra[0].center + 2, 1.0, 30.0)] if extra else []
    got = surplus_tiles(line + extra + dove)
    gone = [p for p in line + extra + dove if all(p is not q for q in got)]
    assert all(p.label == "dove" or (p.label == "hat-5" and p.confidence < 0.5)
               for p in gone)
    assert sum(p.label == "hat-5" for p in gone) == dropped
    assert sum(p.label == "dove" for p in gone) == (1 if dropped else 0)  # (on extra[0])
    assert all(any(p is q for q in got) for p in line)  # (the line's own all kept)
