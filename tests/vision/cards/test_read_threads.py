"""`read.in_halves`: a batch of crops read in two halves side by side (a helper thread) or
in one go, the same rows either way; and the models it relies on read each crop alone."""

import threading
from dataclasses import replace

import numpy as np
import pytest

from vision.cards.read import INDEX_PATH, READ, in_halves, spare_core

ALWAYS = 1e9  # `threads_below_load`: a helper thread whatever the machine's load


def reader(calls):
    def read(lo, hi):
        calls.append((lo, hi, threading.current_thread().name.startswith("mauer-leaf")))
        return np.arange(lo, hi).repeat(3).reshape(-1, 3)  # 3 rows per item
    return read


@pytest.mark.parametrize("threads, below, n, least, split", [
    (True, ALWAYS, 10, 24, [(0, 5, True), (5, 10, False)]),  # 30 rows: halves
    (True, ALWAYS, 7, 24, [(0, 7, False)]),  # 21 rows: under `threads_least`, one go
    (True, ALWAYS, 1, 1, [(0, 1, False)]),  # one item: nothing to halve
    (True, 0.0, 10, 24, [(0, 10, False)]),  # no core to spare
    (False, ALWAYS, 10, 24, [(0, 10, False)]),  # threads off
])
def test_in_halves_splits_only_where_asked_the_rows_the_same(threads, below, n, least, split):
    calls = []
    s = replace(READ, threads=threads, threads_below_load=below, threads_least=least)
    got = in_halves(s, reader(calls), n, per=3)
    assert sorted(calls) == split
    assert np.array_equal(got, np.arange(n).repeat(3).reshape(-1, 3))


@pytest.mark.parametrize("threads, below, spare", [
    (True, ALWAYS, True),
    (True, 0.0, False),  # the load is never under 0 per core
    (False, ALWAYS, False),  # threads off
])
def test_spare_core_asks_for_threads_and_a_light_load(threads, below, spare):
    assert spare_core(replace(READ, threads=threads, threads_below_load=below)) is spare


@pytest.mark.parametrize("name, spare", [
    ("cards_0", False),  # the pipeline's card thread (Hop la bille beside its marbles)
    ("mauer-leaf_0", False),  # a helper thread already
    ("mauer_1", False),
    ("ThreadPoolExecutor-0_0", True),  # e.g. a web app worker
])
def test_spare_core_not_on_a_helper_thread(name, spare):
    s = replace(READ, threads=True, threads_below_load=ALWAYS)
    got = []
    t = threading.Thread(target=lambda: got.append(spare_core(s)), name=name)
    t.start()
    t.join()
    assert got == [spare]


def test_in_halves_raises_what_a_half_raised():
    def read(lo, hi):  # (raises only on the helper thread: split, or it would not raise)
        if threading.current_thread().name.startswith("mauer-leaf"):  # (run_leaf's pool)
            raise ValueError("first half")
        return np.zeros((hi - lo, 1))
    with pytest.raises(ValueError, match="first half"):
        in_halves(replace(READ, threads=True, threads_below_load=ALWAYS, threads_least=1),
                  read, 4)


@pytest.mark.parametrize("path", ["cards.onnx", "cards-index.onnx"])
def test_the_card_models_read_each_crop_alone(path):
    from vision.classify.model import PieceClassifier

    m = PieceClassifier(INDEX_PATH.with_name(path), threads=1)
    s = m.crop.size
    crops = np.random.default_rng(5).integers(0, 256, (9, s, s, 3), dtype=np.uint8)
    whole = m.predict(crops)
    parts = [m.predict(crops[a:b]) for a, b in ((0, 4), (4, 5), (5, 9))]
    assert np.array_equal(np.concatenate([p.probs for p in parts]), whole.probs)
    assert np.array_equal(np.concatenate([p.embedding for p in parts]), whole.embedding)


@pytest.mark.slow
def test_two_photos_read_at_once_with_threads_read_as_one_at_a_time_without():
    from concurrent.futures import ThreadPoolExecutor
    from pathlib import Path

    from vision.cards.read import CardReader
    from vision.image_io import load_photo

    folder = Path(__file__).resolve().parents[3] / "datasets" / "scenes" / "troetofanten"
    images = [load_photo(folder / f"troetofanten-e1-s1-000{k}.jpg").image for k in (0, 1)]
    reader = CardReader(threads=1, settings=replace(READ, threads=False))
    want = [reader.read_pieces(im, "troetofanten") for im in images]
    both = CardReader(threads=1, settings=replace(READ, threads=True,
                                                     threads_below_load=ALWAYS))
    with ThreadPoolExecutor(2) as ex:  # (the web app reads photos side by side)
        got = list(ex.map(lambda im: both.read_pieces(im, "troetofanten"), images))
    for (wp, ww), (gp, gw) in zip(want, got, strict=True):
        assert ww == gw and len(wp) == len(gp) > 5
        for p, q in zip(wp, gp, strict=True):
            assert (p.label, p.confidence, p.probs) == (q.label, q.confidence, q.probs)
            assert np.array_equal(p.key, q.key) and np.array_equal(p.frame, q.frame)


@pytest.mark.parametrize("own, threads, want", [
    (1, True, 2),  # a spare core: two of the detector's threads
    (3, True, 3),  # the reader's own count where more
    (0, True, None),  # onnxruntime's own count: every core already
    (1, False, None),  # threads off: the reader's own session
])
def test_the_detector_on_at_least_two_threads_where_a_core_is_spare(own, threads, want):
    from types import SimpleNamespace

    from vision.cards.read import CardReader

    r = SimpleNamespace(detector=SimpleNamespace(threads=own),
                        settings=replace(READ, threads=threads, threads_below_load=ALWAYS))
    assert CardReader._key_threads(r) == want
