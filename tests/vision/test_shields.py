"""The castle's coats of arms as colour references (vision.shields)."""

from pathlib import Path

import numpy as np
import pytest

from vision.area import AREA_SETTINGS, find_area
from vision.image_io import load_photo
from vision.shields import COLOURS, NOMINAL_HUE, balanced_shield_hues, recolour, shield_hues

SCENES = Path(__file__).resolve().parents[2] / "datasets" / "scenes" / "simsala-hopp"
EDITION2 = SCENES.parents[1] / "scenes-edition2" / "simsala-hopp"


@pytest.mark.parametrize("name", ["simsala-hopp-e1-s1-0000.jpg", "simsala-hopp-e1-s1-0009.jpg"])
def test_coats_of_arms_are_found_and_named(name):
    """On committed scenes the four walls' colours come back, each near its usual hue."""
    photo = load_photo(SCENES / name)
    area = find_area(photo.image, AREA_SETTINGS["simsala-hopp"], "arena", game="simsala-hopp")
    hues = shield_hues(photo.image, area)
    assert hues is not None and set(hues) == set(COLOURS)
    for c, h in hues.items():
        assert abs((h - NOMINAL_HUE[c] + 180) % 360 - 180) < 45, (c, h)


def _walls_grey(img, area):
    """`img` (uint8 BGR) with the ring round `area`'s arena (0.2 of its side: the castle's
    walls and their coats of arms) painted grey."""
    import cv2

    img = img.copy()
    s = float(area.settings.plane_px)
    ring = area.to_image(np.array([[-0.2, -0.2], [1.2, -0.2], [1.2, 1.2], [-0.2, 1.2]]) * s)
    inner = area.to_image(np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float) * s)
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(ring).astype(np.int32)], 1)
    cv2.fillPoly(mask, [np.round(inner).astype(np.int32)], 0)
    img[mask > 0] = (128, 128, 128)
    return img


def test_no_reference_without_coloured_walls():
    """The arena's walls painted grey: no coat of arms, no reference."""
    photo = load_photo(SCENES / "simsala-hopp-e1-s1-0000.jpg")
    area = find_area(photo.image, AREA_SETTINGS["simsala-hopp"], "arena", game="simsala-hopp")
    assert shield_hues(_walls_grey(photo.image, area), area) is None


def _lab(hue_deg, chroma=40.0):
    t = np.deg2rad(hue_deg)
    return np.array([[60.0, chroma * np.cos(t), chroma * np.sin(t)]])


@pytest.mark.parametrize("crop_hue, want", [
    (92.0, "yellow"),  # near the yellow coat of arms: yellow, though the model said orange
    (50.0, "orange"),  # near the orange one: stays orange
])
def test_recolour_follows_the_nearer_coat_of_arms(crop_hue, want):
    columns = {c: k + 1 for k, c in enumerate(COLOURS)}  # column 0: background
    probs = np.array([[0.1, 0.35, 0.55, 0.0, 0.0]])  # background, Y, O, B, V
    hues = {"yellow": 85.0, "orange": 45.0, "blue": -95.0, "violet": -35.0}
    out = recolour(probs, columns, _lab(crop_hue), hues)
    assert np.isclose(out.sum(), 1.0) and out[0, 0] == probs[0, 0]
    assert COLOURS[int(np.argmax(out[0, 1:]))] == want


def test_no_reference_when_one_wall_shows_a_colour_no_coat_of_arms_has():
    """One wall's coat of arms covered by something teal (a tile against the wall in
    shadow): the other three still fit their usual hues on average, but that wall lies too
    far from any, so there is no reference rather than a wrong one."""
    import cv2

    photo = load_photo(SCENES / "simsala-hopp-e1-s1-0000.jpg")
    area = find_area(photo.image, AREA_SETTINGS["simsala-hopp"], "arena", game="simsala-hopp")
    assert shield_hues(photo.image, area) is not None
    img = photo.image.copy()
    s = float(area.settings.plane_px)
    strip = area.to_image(np.array([[0.25, -0.13], [0.75, -0.13], [0.75, 0.0], [0.25, 0.0]]) * s)
    teal = cv2.cvtColor(np.uint8([[[150, 128 - 40, 128 - 5]]]), cv2.COLOR_Lab2BGR)[0, 0]
    cv2.fillPoly(img, [np.round(strip).astype(np.int32)], [int(v) for v in teal])
    assert shield_hues(img, area) is None


def test_balanced_reading_keeps_a_photo_named_as_it_is():
    """A photo whose coats of arms are named as it is: the same hues, strength 0."""
    photo = load_photo(SCENES / "simsala-hopp-e1-s1-0000.jpg")
    area = find_area(photo.image, AREA_SETTINGS["simsala-hopp"], "arena", game="simsala-hopp")
    hues, strength = balanced_shield_hues(photo.image, area)
    assert strength == 0.0 and hues == shield_hues(photo.image, area)


def test_balanced_reading_names_the_coats_of_arms_under_a_harsh_warm_lamp():
    """Edition 2 under the harsh warm light: the blue and violet coats of arms too dull to
    name as the photo is; white balanced by the photo's own light they are named, each
    near its usual hue."""
    from vision.teach_eval import harsh_light

    photo = load_photo(EDITION2 / "simsala-hopp-e2-s2-0000.jpg")
    area = find_area(photo.image, AREA_SETTINGS["simsala-hopp"], "arena", game="simsala-hopp")
    img = harsh_light(photo.image)
    assert shield_hues(img, area) is None
    hues, strength = balanced_shield_hues(img, area)
    assert hues is not None and strength > 0 and set(hues) == set(COLOURS)
    for c, h in hues.items():
        assert abs((h - NOMINAL_HUE[c] + 180) % 360 - 180) < 45, (c, h)


def test_balanced_reading_invents_no_reference():
    """Grey walls stay no reference at every strength of the balance."""
    photo = load_photo(SCENES / "simsala-hopp-e1-s1-0000.jpg")
    area = find_area(photo.image, AREA_SETTINGS["simsala-hopp"], "arena", game="simsala-hopp")
    assert balanced_shield_hues(_walls_grey(photo.image, area), area) == (None, 0.0)


class _SquareArea:
    """A stand-in for `vision.area.PlayArea`: the arena the photo's square [100, 300]^2."""

    settings = type("S", (), {"plane_px": 200})()

    @staticmethod
    def to_image(pts):
        return np.asarray(pts, float) + 100.0


def _lit_table(gamma, gains=(1.0, 1.0, 1.0), seed=0):
    """(400, 400, 3) uint8 BGR: a table of random pale blocks (each its own grey or tint)
    under a light falling off across the photo (from 1 to 0.35), a red arena square in the
    middle, then a lamp: per channel x -> gains * x ** gamma (0-1 levels, BGR)."""
    rng = np.random.default_rng(seed)
    albedo = rng.uniform(0.55, 0.9, (50, 50, 1)) * rng.uniform(0.85, 1.0, (50, 50, 3))
    img = np.kron(albedo, np.ones((8, 8, 1))) * np.linspace(1.0, 0.35, 400)[None, :, None]
    img[100:300, 100:300] = (0.15, 0.15, 0.6)
    img = np.asarray(gains) * img ** np.asarray(gamma)
    return np.clip(np.round(255 * img), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("gamma, gains, bends", [
    ((1.0, 1.0, 1.0), (1.0, 1.0, 1.0), False),  # an ordinary photo
    ((1.0, 1.0, 1.0), (0.8, 0.95, 1.1), False),  # a warm lamp that only scales: a gain's job
    ((1.5, 1.1, 0.75), (0.8, 0.95, 1.1), True),  # light_eval's harsh lamp
    ((0.7, 1.0, 1.4), (1.0, 1.0, 1.0), True),  # a cold lamp's curve the other way round
])
@pytest.mark.parametrize("seed", [0, 1])
def test_table_tone_reads_a_lamps_curve_off_the_table(gamma, gains, bends, seed):
    """The table's own light and shade tell a per-channel gamma from a gain: the exponents
    that take it off bring every channel to the channels' mean gamma (mean(g) / g each)."""
    from vision.shields import table_tone

    exps = table_tone(_lit_table(gamma, gains, seed), _SquareArea())
    assert (exps is not None) == bends
    if bends:
        want = np.mean(gamma) / np.asarray(gamma)
        assert np.allclose(exps, want, atol=0.08), (exps, want)


def test_table_tone_none_without_light_and_shade_or_table():
    """A plain table evenly lit (one level: no curve to read) and a photo the castle fills
    (no table beyond it): no curve, whatever the lamp."""
    from vision.shields import table_tone

    harsh = ((1.5, 1.1, 0.75), (0.8, 0.95, 1.1))
    rng = np.random.default_rng(3)
    plain = np.clip(np.full((400, 400, 3), (150.0, 170.0, 190.0))
                    + rng.normal(0, 2, (400, 400, 3)), 0, 255) / 255.0
    plain[100:300, 100:300] = (0.15, 0.15, 0.6)
    plain = np.round(255 * np.asarray(harsh[1]) * plain ** np.asarray(harsh[0]))
    assert table_tone(plain.astype(np.uint8), _SquareArea()) is None
    crop = np.ascontiguousarray(_lit_table(*harsh)[90:310, 90:310])  # (the arena and a rim)

    class Tight(_SquareArea):
        @staticmethod
        def to_image(pts):
            return np.asarray(pts, float) + 10.0

    assert table_tone(crop, Tight()) is None


@pytest.mark.slow
def test_a_harsh_lamps_curve_is_taken_off_before_the_tiles_are_read(tmp_path):
    """Edition 2 under the harsh warm lamp (0008: ten frogs, the classifier took them all
    for yellow rabbits on the photo as it was): the table shows the lamp's curve, the crops
    are cut with it taken off, and the frogs read as frogs; a committed photo under its own
    light keeps the photo as it is (coats of arms named as it is)."""
    import json

    import cv2

    from vision.pipeline import get_pipeline
    from vision.teach_eval import harsh_light

    pipe = get_pipeline()
    name = EDITION2 / "simsala-hopp-e2-s2-0008.jpg"
    lit = tmp_path / name.name
    cv2.imwrite(str(lit), harsh_light(cv2.imread(str(name))), [cv2.IMWRITE_JPEG_QUALITY, 90])
    photo = load_photo(lit, pipe.image_settings)
    area = find_area(photo.image, AREA_SETTINGS["simsala-hopp"], "arena", game="simsala-hopp")
    hues, cue = pipe._shields(photo, area)
    assert hues is not None and cue is not None and cue.image is not None
    assert cue.image.shape == photo.image.shape
    truth = json.loads(name.with_suffix(".json").read_text())
    frogs = sum(p["label"] == "frog" for p in truth["pieces"])
    rec = pipe.recognise(lit, "simsala-hopp")
    assert frogs >= 8 and sum(lab == "frog" for lab in rec.detections.labels) >= frogs - 1

    photo = load_photo(SCENES / "simsala-hopp-e1-s1-0000.jpg", pipe.image_settings)
    area = find_area(photo.image, AREA_SETTINGS["simsala-hopp"], "arena", game="simsala-hopp")
    assert pipe._shields(photo, area)[1] is None


@pytest.mark.parametrize("curved_strength, undone", [(0.0, True), (0.5, False), (1.0, False)])
@pytest.mark.parametrize("seed", [0, 1])
def test_curve_off_crops_measured_in_the_coats_of_arms_balance(monkeypatch, curved_strength,
                                                                undone, seed):
    """With the lamp's curve off and the coats of arms named on that photo as it is
    (strength 0), the crops' own balance (`light_balance`) is undone by the CueFrame's gains,
    so the tiles are measured in the balance the hues were read in (H18: left on, a warm
    lamp's tiles turned 20-30 degrees past the yellow coat of arms and yellow rabbits read
    as frogs); named at a ladder strength, the gains bring the crops up to that strength."""
    from types import SimpleNamespace

    from vision import shields as shields_mod
    from vision.pipeline import Pipeline
    from vision.preprocess import apply_gains, light_gains

    rng = np.random.default_rng(seed)
    image = rng.integers(0, 256, (64, 64, 3)).astype(np.float32)
    image *= np.array([0.55, 0.8, 1.0], np.float32)  # (a warm cast, BGR)
    image = image.astype(np.uint8)
    hues = {"yellow": 80.0, "orange": 60.0, "blue": -80.0, "violet": -35.0}
    calls = []

    def balanced(img, area):
        calls.append(img)
        return (None, 0.0) if len(calls) == 1 else (hues, curved_strength)

    monkeypatch.setattr(shields_mod, "balanced_shield_hues", balanced)
    monkeypatch.setattr(shields_mod, "table_tone",
                        lambda img, area: np.array([0.75, 1.0, 1.45], np.float32))
    fake = SimpleNamespace(classifier=SimpleNamespace(crop=SimpleNamespace(light_balance=0.5)))
    got, cue = Pipeline._shields(fake, SimpleNamespace(image=image), object())
    assert got == hues and cue is not None and cue.image is not None
    crops = cue.image[None, :8, :8].copy()
    seen = apply_gains(apply_gains(crops, light_gains(cue.image, 0.5)), cue.gains) \
        if cue.gains is not None else apply_gains(crops, light_gains(cue.image, 0.5))
    want = apply_gains(crops, light_gains(cue.image, curved_strength))
    if undone:
        assert cue.gains is not None and np.all(cue.gains <= 1.0)
    assert np.abs(seen.astype(int) - want.astype(int)).max() <= 2
