"""Session 26 (hop-speed): Hop la bille's cheaper steps give the very answer of the code they
replace. The detector's key points are found on the cards' thread while the cloth is found
(`early_keys`, handed to `read_cards`): the same reading as the detector run inside it, the
keys left unused where the lamp's curve changed the photo, and an area not found still
reported as itself (the card thread not left waiting)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import vision.cards.stage as stage
from vision.area import AREA_SETTINGS, find_area
from vision.cards.detect import Keypoints
from vision.image_io import ImageSettings, load_photo

ROOT = Path(__file__).resolve().parents[3]
HOP = ROOT / "datasets" / "scenes" / "hop-la-bille"


def _reading(res) -> tuple:
    """A `CardResult` as comparable values (labels, zones, confidences, centres, outlines,
    facts, warnings)."""
    d = res.detections
    return (list(map(str, d.labels)), list(map(str, d.zones)),
            np.asarray(d.confidence, np.float64).tolist(),
            np.asarray(d.centers, np.float64).tolist(),
            [None if p is None else np.asarray(p, np.float64).tolist() for p in d.polygons],
            res.facts, res.warnings)


def _no_keys() -> Keypoints:
    z = np.zeros(0)
    return Keypoints(np.zeros((0, 2)), np.zeros(0, int), z, z, z)


@pytest.fixture(scope="module")
def reader():
    from vision.cards.read import CardReader

    return CardReader(threads=1)


@pytest.mark.parametrize("name", [
    "hop-la-bille-e1-s1-0000.jpg",  # six cards, ordinary light
    "hop-la-bille-e1-s1-0007.jpg",  # another seat and layout
])
def test_early_keys_read_as_the_detector_inside(reader, name):
    from vision.cards.geometry import keeping_scaled

    photo = load_photo(HOP / name, ImageSettings())
    area = find_area(photo.image, AREA_SETTINGS["hop-la-bille"], "cloth", game="hop-la-bille")
    plain = stage.read_cards(reader, photo.image, photo.scale, "hop-la-bille", area)
    with keeping_scaled():  # (as the pipeline's card thread calls it)
        keys = stage.early_keys(reader, photo.image, "hop-la-bille")
        early = stage.read_cards(reader, photo.image, photo.scale, "hop-la-bille", area,
                                 keys=keys)
    assert len(keys) > 0 and len(plain.detections) > 0
    assert _reading(early) == _reading(plain)
    # the keys handed on are the ones read (none: no card), so the check above can fail
    blind = stage.read_cards(reader, photo.image, photo.scale, "hop-la-bille", area,
                             keys=_no_keys())
    assert len(blind.detections) == 0


@pytest.mark.parametrize("toned, used", [
    (False, True),  # the lamp's curve leaves the photo as it is: the early keys are read
    (True, False),  # a curve taken off: the toned photo's own key points instead
])
def test_early_keys_only_for_the_photo_they_were_found_on(monkeypatch, reader, toned, used):
    photo = load_photo(HOP / "hop-la-bille-e1-s1-0000.jpg", ImageSettings())
    area = find_area(photo.image, AREA_SETTINGS["hop-la-bille"], "cloth", game="hop-la-bille")
    if toned:  # (a copy, equal in every pixel: only its identity says it was toned)
        monkeypatch.setattr(stage, "lamp_tone_off", lambda image, area: image.copy())
    res = stage.read_cards(reader, photo.image, photo.scale, "hop-la-bille", area,
                           keys=_no_keys())
    assert (len(res.detections) == 0) == used


def test_early_keys_only_for_hop_and_an_untaught_reader(reader):
    image = np.zeros((48, 64, 3), np.uint8)
    assert stage.early_keys(reader, image, "troetofanten") is None
    assert stage.early_keys(reader, image, "magic-rabbit") is None
    from copy import copy

    taught = copy(reader)
    taught.read_pieces = lambda image, game, area=None: ([], [])  # (a taught Hop reader's)
    assert stage.early_keys(taught, image, "hop-la-bille") is None
    assert stage.early_keys(reader, image, "hop-la-bille") is not None


def test_no_cloth_is_reported_and_the_card_thread_ends():
    """A photo without a cloth: the area's own error (exit 3), the card thread, which was
    finding the key points, stopped at the area and idle again (the next photo is read)."""
    from vision.errors import AreaNotFound
    from vision.pipeline import Pipeline

    pipe = Pipeline()
    blank = np.full((960, 1280, 3), 128, np.uint8)
    import cv2

    ok, buf = cv2.imencode(".jpg", blank)
    with pytest.raises(AreaNotFound):
        pipe.recognise(buf.tobytes(), "hop-la-bille")
    rec = pipe.recognise(HOP / "hop-la-bille-e1-s1-0000.jpg", "hop-la-bille")
    assert "cards" in rec.facts and rec.timings_ms["cards"] > 0


# The area's glare looks (`vision.area._looks`): the lowest channel, core and its blobs made
# once for `glare_spots`' two ceilings and `merged_glare_spots` (`glare_blobs`), both
# ceilings read in one pass (`glare_spot_lists`), and the merged spots' gradient made only
# for a blob of a spot's size. Their answers against the separate calls made before.

def _glare_photos():
    from tests.vision.test_area import add_spot, castle, lamp_spot, white_cloth

    return {
        "loose-only": lamp_spot(castle((170, 200, 220), (170, 180, 190)), (440, 240), 60),
        "both": lamp_spot(castle((170, 200, 220), (60, 90, 110)), (330, 240), 60),
        "white-table": lamp_spot(castle((170, 200, 220), (235, 235, 235)), (440, 240), 60),
        "merged": add_spot(white_cloth(), (150, 180), 45, amount=1.2,
                           colour=(1.0, 1.0, 1.0)),
        "merged-corner": add_spot(white_cloth(), (330, 90), 45, amount=1.2,
                                  colour=(1.0, 1.0, 1.0)),
        "no-lamp": white_cloth(),
        "plain": np.full((360, 480, 3), 90, np.uint8),
    }


@pytest.mark.parametrize("name, strict, loose", [
    ("loose-only", 0, 1),  # a spot only the looser ceiling takes (Simsala Hopp's)
    ("both", 1, 1),  # taken by either
    ("white-table", 0, 0),  # as bright around: by neither
    ("merged", 0, 0),  # a spot merged with the cloth: no round core
    ("merged-corner", 0, 0),
    ("no-lamp", 0, 0),  # a white cloth's core, no spot
    ("plain", 0, 0),  # no core at all (no blobs made)
])
@pytest.mark.parametrize("game", ["simsala-hopp", "hop-la-bille"])
def test_glare_lists_are_the_separate_calls(name, strict, loose, game):
    from vision.area import glare_blobs, glare_spot_lists, glare_spots, merged_glare_spots

    img = _glare_photos()[name]
    s = AREA_SETTINGS[game]
    blobs = glare_blobs(img, s)
    got = glare_spot_lists(img, s, blobs)
    assert got == glare_spot_lists(img, s)  # (blobs made inside: the same)
    assert got[0] == glare_spots(img, s) and got[1] == glare_spots(img, s, loose=True)
    if game == "simsala-hopp":  # (its looser ceiling; Hop's has none: both the same)
        assert (len(got[0]), len(got[1])) == (strict, loose)
    else:
        assert got[0] == got[1]
    assert merged_glare_spots(img, s, blobs) == merged_glare_spots(img, s)


@pytest.mark.parametrize("name, found", [
    ("merged", 1),  # over the cloth's left edge: found by its arc
    ("merged-corner", 1),  # over its corner
    ("no-lamp", 0),  # blobs of a spot's size, no arc: the gradient made, nothing found
    ("plain", 0),  # no blob: nothing made
])
def test_looks_pins_the_old_answer(name, found):
    """`_looks`' (working copy, scale, strict spots, loose spots) as made before session 26:
    `glare_spots` or else `merged_glare_spots`, then `glare_spots(loose=True)` where the
    settings have a looser ceiling, each from scratch."""
    from vision.area import _looks, _working_size, glare_spots, merged_glare_spots

    img = _glare_photos()[name]
    for game in ("hop-la-bille", "simsala-hopp"):
        s = AREA_SETTINGS[game]
        small, f = _working_size(img, s)
        strict = glare_spots(small, s) or merged_glare_spots(small, s)
        loose = glare_spots(small, s, loose=True) if s.glare_ring_on_area > 0 else strict
        got = _looks(img, s)
        assert np.array_equal(got[0], small) and got[1] == f
        assert got[2] == strict and got[3] == loose
        if game == "hop-la-bille":
            assert len(got[2]) == found


@pytest.mark.parametrize("path", [
    "scenes/hop-la-bille/hop-la-bille-e1-s1-0009.jpg",  # its cloth's edge washed out
    "scenes-edition2/hop-la-bille/hop-la-bille-e2-s2-0007.jpg",  # a lamp's glare
    "scenes-edition2/hop-la-bille/hop-la-bille-e2-s2-0004.jpg",  # blurred
    "scenes/hop-la-bille/hop-la-bille-e1-s1-0001.jpg",  # no quality warning
])
def test_quality_read_meanwhile_is_the_old_answer(path):
    """Hop la bille's quality warnings read on the main thread while the cards are read
    (`area_quality`) are the ones read after the score from its JSON, as before, in the
    same place (last); the timings' total does not count them twice."""
    from vision.pipeline import (
        card_width,
        get_pipeline,
        quality_outline,
        score_photo,
    )
    from vision.quality import QUALITY_SETTINGS, photo_quality

    photo = load_photo(ROOT / "datasets" / path, ImageSettings())
    new = score_photo(photo, "hop-la-bille", {})
    old = get_pipeline().score(photo, "hop-la-bille", {})  # (no `meanwhile`: as before)
    assert "meanwhile" not in old and "meanwhile" not in new
    qs = QUALITY_SETTINGS["hop-la-bille"]
    assert qs.far_card <= 0 and card_width(old, photo.scale) is not None  # (not asked for)
    old["warnings"] += photo_quality(qs, photo.image, quality_outline(old, photo.scale),
                                     photo.scale, None)
    t = new.pop("timings_ms")
    old.pop("timings_ms")
    assert new == old
    assert t["quality"] > 0 and t["total"] >= t["decode"] + t["area"]
    said = ("the play area's edge", "glare from", "the photo is blurred")
    assert any(w.startswith(said) for w in new["warnings"]) == (not path.endswith("0001.jpg"))


@pytest.mark.parametrize("game, read", [
    ("hop-la-bille", True),  # cards on a second thread: read meanwhile
    ("simsala-hopp", False),  # no card thread: after the score, as before
    ("troetofanten", False),  # its quality counts the cards' width (`far_card`)
])
def test_area_quality_only_where_a_card_thread_runs(game, read):
    from vision.pipeline import area_quality

    photo = load_photo(HOP / "hop-la-bille-e1-s1-0000.jpg", ImageSettings())
    assert (area_quality(game, photo) is not None) == read


# The card's pixels under a mask by `hopcards.masked` (np.compress on the flattened pixels)
# instead of numpy's 2-D mask indexing: the same rows in the same order, so the same
# medians, percentiles, outlines and discs.

@pytest.mark.parametrize("shape, share, dtype", [
    ((120, 80, 3), 0.7, np.uint8),  # a rectified card, a ragged mask (its pale paper)
    ((120, 80, 3), 1.0, np.uint8),  # every pixel (`refine_outline`'s middle)
    ((120, 80, 3), 0.0, np.uint8),  # none
    ((9, 7, 3), 0.5, np.float32),  # a disc's box, float
    ((5, 4, 1), 0.5, np.uint8),  # one channel
])
def test_masked_is_mask_indexing(shape, share, dtype):
    from vision.cards.hopcards import masked

    rng = np.random.default_rng(sum(shape))
    values = rng.integers(0, 256, shape).astype(dtype)
    mask = rng.random(shape[:2]) < share
    got = masked(values, mask)
    assert got.dtype == values[mask].dtype and np.array_equal(got, values[mask])
    strided = values[::2, ::2]  # (a view: reshaped by copying)
    assert np.array_equal(masked(strided, mask[::2, ::2]), strided[mask[::2, ::2]])


def _card(seed: int, tint=(1.0, 1.0, 1.0)) -> np.ndarray:
    """A rectified 60 x 90 card (uint8 BGR): cream paper under a light `tint`, a coloured
    frame, three discs of marble colours, a little noise."""
    import cv2

    rng = np.random.default_rng(seed)
    card = np.full((90, 60, 3), (215, 235, 240), np.float32)
    cv2.rectangle(card, (0, 0), (59, 89), (40, 160, 60), 5)
    for (x, y), bgr in zip([(30, 25), (30, 45), (30, 65)],
                           [(30, 205, 245), (45, 30, 200), (125, 35, 20)], strict=True):
        cv2.circle(card, (x, y), 7, bgr, -1)
    card = card * np.asarray(tint, np.float32) + rng.normal(0, 4, card.shape)
    return np.clip(np.round(card), 0, 255).astype(np.uint8)


def _old(fn, *args):
    """`fn` with numpy's 2-D mask indexing (`masked` as it was before session 26)."""
    import vision.cards.hopcards as hc

    new = hc.masked
    hc.masked = lambda values, mask: values[mask]
    try:
        return fn(*args)
    finally:
        hc.masked = new


@pytest.mark.parametrize("seed, tint", [
    (1, (1.0, 1.0, 1.0)),  # white light
    (2, (0.7, 0.9, 1.1)),  # a warm lamp
    (3, (1.1, 1.0, 0.8)),  # a sky's blue
])
def test_disc_and_outline_reads_pin_the_old_answer(seed, tint):
    import vision.cards.hopcards as hc

    card = _card(seed, tint)
    labels, weakest = hc.read_discs(card, 3)
    assert (labels, weakest) == _old(hc.read_discs, card, 3)
    assert len(labels) == 3
    photo = np.full((300, 300, 3), (90, 100, 110), np.uint8)
    photo[100:190, 120:180] = card
    frame = np.array([[122.0, 103.0], [178.0, 101.0], [179.0, 188.0], [121.0, 187.0]])
    got = hc.refine_outline(photo, frame, "green")
    want = _old(hc.refine_outline, photo, frame, "green")
    assert (got is None) == (want is None)
    if got is not None:
        assert np.array_equal(got, want)
    inner = np.ones(card.shape[:2], bool)
    assert np.array_equal(hc.card_saturation(card, inner),
                          _old(hc.card_saturation, card, inner))
