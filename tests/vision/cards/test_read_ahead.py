"""Session 27 (troeto-speed): work moved to a helper thread where a core is spare reads the
same. `CardReader.close_keys_ahead` (`second_look`'s close-up check, the detector on the
photo at half and quarter size, run beside the first look) and `search_angles`' crops read
in two halves (`in_halves`): the same key points, rows and whole readings as in one go on
this thread, on committed photos and close-ups made from them, with the real models."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cards.geometry import SPECS, area_scaled, keeping_scaled
from vision.cards.read import READ, CardReader
from vision.image_io import load_photo

SCENES = Path("datasets/scenes/troetofanten")
SCENES2 = Path("datasets/scenes-edition2/troetofanten")
ALWAYS = 1e9  # `threads_below_load`: a helper thread whatever the machine's load
ON = replace(READ, threads=True, threads_below_load=ALWAYS, threads_least=1)
OFF = replace(READ, threads=False)


@pytest.fixture(scope="module")
def readers():
    on = CardReader(threads=1, settings=ON)
    off = CardReader.__new__(CardReader)
    off.__dict__.update(on.__dict__)
    off.settings = OFF
    return on, off


def close_up(path: Path, zoom: float) -> np.ndarray:
    """The centre of the photo at `path` enlarged `zoom` x to the photo's size (its cards
    too large for the detector: the close-up look reads them)."""
    img = load_photo(path).image
    h, w = img.shape[:2]
    ch, cw = int(h / zoom), int(w / zoom)
    y, x = (h - ch) // 2, (w - cw) // 2
    return cv2.resize(img[y:y + ch, x:x + cw], (w, h), interpolation=cv2.INTER_LINEAR)


def _same_bits(a, b) -> bool:
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and \
        np.array_equal(a.view(np.uint8), b.view(np.uint8))


def same_reading(a, b) -> bool:
    (pa, wa), (pb, wb) = a, b
    return wa == wb and len(pa) == len(pb) and all(
        p.label == q.label and p.confidence == q.confidence and _same_bits(p.key, q.key)
        and (p.frame is None) == (q.frame is None)
        and (p.frame is None or _same_bits(p.frame, q.frame)) and p.angle == q.angle
        and p.width == q.width for p, q in zip(pa, pb, strict=True))


PHOTOS = [
    (SCENES / "troetofanten-e1-s1-0001.jpg", 1.0),  # an ordinary photo
    (SCENES / "troetofanten-e1-s1-0022.jpg", 1.0),  # from afar: its far look is taken
    (SCENES2 / "troetofanten-e2-s2-0009.jpg", 1.0),  # edition 2
    (SCENES / "troetofanten-e1-s1-0001.jpg", 2.0),  # a close-up: the close-up look reads
    (SCENES / "troetofanten-e1-s1-0012.jpg", 2.0),  # a close-up the first look reads none of
]


@pytest.mark.parametrize("path, zoom", PHOTOS)
def test_close_keys_ahead_are_second_looks_own(readers, path, zoom):
    """The helper's photos and key points at half and quarter size, bit for bit those
    `second_look` finds itself (`area_scaled`, the detector at read_pieces' threshold)."""
    on, _ = readers
    img = load_photo(path).image if zoom == 1.0 else close_up(path, zoom)
    f, thr = READ.second_scale, min(READ.key_threshold, READ.dove_threshold)
    with keeping_scaled():
        ahead = on.close_keys_ahead(img)
        assert isinstance(ahead, Future)  # (on a helper thread)
        looks = ahead.result()
    small = area_scaled(img, f)
    want = [(f, small), (f * f, area_scaled(small, f))]
    assert [g for g, _, _ in looks] == [g for g, _ in want]
    for (_, im, kp), (_, im2) in zip(looks, want, strict=True):
        assert _same_bits(im, im2)
        kp2 = on.detector.detect(im2, thr)
        for a in ("xy", "kind", "score", "angle", "width"):
            assert _same_bits(getattr(kp, a), getattr(kp2, a))


@pytest.mark.parametrize("s, made", [
    (ON, True),
    (replace(ON, close_ahead=False), False),  # its own setting off
    (replace(ON, threads_below_load=0.0), False),  # no core to spare
    (OFF, False),  # threads off
    (replace(ON, second_scale=None), False),  # no second look (`far_look`'s own reading)
])
def test_close_keys_ahead_only_where_asked(readers, s, made):
    on, _ = readers
    r = CardReader.__new__(CardReader)
    r.__dict__.update(on.__dict__)
    r.settings = s
    with keeping_scaled():
        ahead = r.close_keys_ahead(np.zeros((96, 128, 3), np.uint8))
        if ahead is not None:
            ahead.result()
    assert (ahead is not None) == made


@pytest.mark.parametrize("path, zoom", PHOTOS)
def test_whole_reading_the_same_with_the_helpers(readers, path, zoom):
    """`read_pieces` with every helper thread forced on (the close-up check ahead, the
    angle search's and the other crops' halves) and with none: the same pieces, bit for
    bit, and warnings."""
    on, off = readers
    img = load_photo(path).image if zoom == 1.0 else close_up(path, zoom)
    assert same_reading(on.read_pieces(img, "troetofanten"),
                        off.read_pieces(img, "troetofanten"))


@pytest.mark.parametrize("path, least", [
    (SCENES / "troetofanten-e1-s1-0001.jpg", 1),  # halves
    (SCENES / "troetofanten-e1-s1-0028.jpg", 1),  # a fan: angles far apart
    (SCENES / "troetofanten-e1-s1-0028.jpg", 10 ** 6),  # under `threads_least`: one go
])
def test_search_angles_in_halves(readers, path, least):
    """The angle search's P(background) read in two halves: the same angles as in one go
    (every candidate pair more than `same` apart is read)."""
    on, off = readers
    on = CardReader.__new__(CardReader)
    on.__dict__.update(readers[0].__dict__)
    on.settings = replace(ON, threads_least=least)
    img = load_photo(path).image
    kp = off.detector.detect(img, 0.3)
    top = np.argsort(-kp.score)[:30]
    rng = np.random.default_rng(27)
    angles = np.column_stack([kp.angle[top], kp.angle[top] + rng.uniform(-60, 60, len(top))])
    spec = SPECS["troetofanten"]
    a = on.search_angles(img, spec, kp.xy[top], angles, kp.width[top])
    b = off.search_angles(img, spec, kp.xy[top], angles, kp.width[top])
    assert _same_bits(a, b)
    assert (a != angles[:, 0]).any() and (a == angles[:, 0]).any()  # (both chosen)


class Ahead:
    """A finished helper's answer (or a stand-in never asked)."""

    def __init__(self, looks):
        self.looks, self.cancelled = looks, False

    def result(self):
        assert self.looks is not None, "asked for an answer it has not"
        return self.looks

    def cancel(self):
        self.cancelled = True
        return True


def test_second_look_takes_the_key_points_ahead_and_finds_none_itself():
    """With `ahead`, `second_look` runs no detector of its own: a close-up is judged and
    read on the helper's photo and key points (stand-ins: the half photo shows 5 sure key
    points, the quarter 3; the first look 2)."""
    from tests.vision.cards.test_second_look import NEAR, Detector, Reader

    rd = Reader([NEAR])
    rd.r.detector = None  # (asked for nothing: it would raise)
    half, quarter = np.zeros((240, 320, 3), np.uint8), np.zeros((120, 160, 3), np.uint8)
    looks = [(0.5, half, Detector(5).detect(half, 0.3)),
             (0.25, quarter, Detector(3).detect(quarter, 0.3))]
    out = rd.r.second_look(np.zeros((480, 640, 3), np.uint8), [], np.zeros(0), np.zeros(0),
                           np.zeros((0, 2)), 2, Ahead(looks))
    assert [c[0] for c in rd.calls] == [(240, 320, 3)]  # the half photo read whole
    assert rd.keys[0] is looks[0][2]  # with the helper's key points
    assert [p.label for p in out] == ["elephant-4"]


def test_second_look_cancels_the_check_it_does_not_need():
    """Where the first look's own large cards ask for the second look, the close-up check
    is not needed: cancelled, never asked."""
    from tests.vision.cards.test_second_look import BIG, FAR, NEAR, Reader

    rd = Reader([NEAR])
    ahead = Ahead(None)
    rd.r.second_look(np.zeros((480, 640, 3), np.uint8), FAR, np.asarray(BIG[0], float),
                     np.asarray(BIG[1], float), np.array([(380.0, 300.0), (380.0, 310.0)]),
                     10, ahead)
    assert ahead.cancelled and len(rd.calls) == 1


def test_helper_load_averages_as_the_kernel():
    """`HelperLoad.share`: the helpers' CPU per second, averaged over a minute as the load
    is; asked again within a second, the last figure."""
    from vision.cards.read import HelperLoad

    h = HelperLoad()
    assert h.share(0.0) == 0.0  # (the first ask: where it starts)
    for k in range(1, 601):  # 10 minutes of 0.3 s helper CPU a second
        h.add(0.3)
        h.share(float(k))
    assert abs(h.share(600.0) - 0.3) < 1e-4  # (e^-10 of the start left)
    h.add(50.0)
    assert h.share(600.5) == h.share(600.0)  # (under a second: not updated)
    assert h.share(660.0) < 0.3 + 50.0 / 60.0  # (a minute's share of the burst at most)
    for k in range(661, 1261):  # then 10 minutes without helpers
        h.share(float(k))
    assert h.share(1260.0) < 1e-3


@pytest.mark.parametrize("load, share, own, spare", [
    (1.4, 0.0, True, True),  # under 0.75 x 2 cores
    (1.8, 0.4, True, True),  # 1.8 with this process's helpers' 0.4: 1.4 of the rest
    (1.8, 0.2, True, False),  # 1.6 of the rest
    (1.8, 0.4, False, False),  # `threads_own_load` off: the plain load
    (0.2, 0.9, True, True),  # (the share above the load: none of the rest)
    (7.0, 0.4, True, False),  # a loaded machine
])
def test_spare_core_leaves_out_the_own_helpers(monkeypatch, load, share, own, spare):
    import vision.cards.read as R
    import vision.mauer as M

    monkeypatch.setattr(M.os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(M.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(R.HELPERS, "share", lambda now=None: share)
    s = replace(READ, threads=True, threads_below_load=0.75, threads_own_load=own)
    assert R.spare_core(s) is spare


def test_run_helper_on_the_leaf_pool_and_timed(monkeypatch):
    """`run_helper`: on a helper thread whatever the pool's own gate says (its caller
    found a core spare), and its CPU time added to `HELPERS`."""
    import threading

    import vision.cards.read as R
    import vision.mauer as M

    monkeypatch.setattr(M.os, "getloadavg", lambda: (99.0, 99.0, 99.0))
    added = []
    monkeypatch.setattr(R.HELPERS, "add", added.append)

    def work(n):
        x = sum(i * i for i in range(n))
        return threading.current_thread().name, x

    name, x = R.run_helper(replace(READ, threads=True), work, 200_000).result()
    assert name.startswith("mauer-leaf") and x == sum(i * i for i in range(200_000))
    assert len(added) == 1 and added[0] > 0.0
