"""Simsala Hopp taught under a lamp (session 19, H1): the teach photos' lamp curve
(`vision.teach.teach_tone`, `Profile.tone`) taken off the teach photos and the photos read
with the profile alike (`lamp_toned`, `Pipeline._shields`)."""

from types import SimpleNamespace

import numpy as np
import pytest

import vision.shields as shields_mod
import vision.teach as teach
from tests.vision.test_shields import _lit_table, _SquareArea
from vision.preprocess import power_about
from vision.shields import SHIELDS

HARSH = ((1.5, 1.1, 0.75), (0.8, 0.95, 1.1))  # light_eval's harsh lamp (gamma, gains; BGR)
ORDINARY = ((1.0, 1.0, 1.0), (1.0, 1.0, 1.0))
HUES = {"yellow": 85.0, "orange": 45.0, "blue": -95.0, "violet": -35.0}


def _photos(lights, named, seed=0):
    """[(photo, area)] stand-ins: a lit table round a red square per light; the coats of
    arms named as they are (`shield_hues` gives HUES) on the photos whose `named` is True,
    none on the others (the test patches `shield_hues` by the image's identity)."""
    out = []
    for k, light in enumerate(lights):
        out.append((SimpleNamespace(image=_lit_table(*light, seed + k)), _SquareArea()))
    return out, {id(p.image) for (p, _), n in zip(out, named, strict=True) if n}


@pytest.fixture
def named_by_identity(monkeypatch):
    """`vision.shields.shield_hues` names the coats of arms (HUES) only on the images whose
    id is in the returned set; elsewhere none."""
    named: set[int] = set()
    monkeypatch.setattr(shields_mod, "shield_hues",
                        lambda img, area, s=SHIELDS: dict(HUES) if id(img) in named else None)
    return named


@pytest.mark.parametrize("lights, named, tone_off, want", [
    ([HARSH] * 3, [False] * 3, True, "harsh"),  # every teach photo under the lamp
    ([HARSH, HARSH, ORDINARY], [False] * 3, True, "harsh"),  # one table shows no curve
    ([HARSH] * 3, [False] * 3, False, None),  # `tone_off` off: no curve
    ([ORDINARY] * 3, [False] * 3, True, None),  # no table shows a curve
    ([HARSH] * 3, [True] * 3, True, None),  # every photo named as it is (ordinary light)
    ([HARSH, HARSH, HARSH, HARSH], [True, True, True, False], True, None),  # 1 / 4 not
    #                                                         named: under `tone_share`
    ([HARSH, HARSH, HARSH, HARSH], [True, True, False, False], True, "harsh"),  # 2 / 4
])
@pytest.mark.parametrize("seed", [0, 5])
def test_teach_tone_is_the_teach_photos_lamp_curve(named_by_identity, lights, named,
                                                   tone_off, want, seed):
    """The profile's curve: the median of the curves the tables show, on photos not named as
    they are, where at least `tone_share` of the teach photos are not; else None."""
    loaded, ids = _photos(lights, named, seed)
    named_by_identity |= ids
    settings = teach.TeachSettings(tone_off=tone_off)
    tone = teach.teach_tone(loaded, settings)
    if want is None:
        assert tone is None
    else:
        gamma = np.asarray(HARSH[0])
        assert tone is not None and tone.dtype == np.float32 and tone.shape == (3,)
        assert np.allclose(tone, np.mean(gamma) / gamma, atol=0.08), tone


@pytest.mark.parametrize("light, named, tone, expect", [
    (HARSH, False, "profile", "own"),  # its own table's curve first
    (ORDINARY, False, "profile", "profile"),  # its table shows none: the profile's
    (HARSH, True, "profile", "plain"),  # named as it is: the photo as it is
    (HARSH, False, None, "plain"),  # a profile without a curve: as it is
])
def test_lamp_toned_takes_off_the_photos_own_curve_else_the_profiles(
        named_by_identity, light, named, tone, expect):
    loaded, ids = _photos([light], [named])
    named_by_identity |= ids
    photo, area = loaded[0]
    prof = np.array([0.8, 1.0, 1.3], np.float32)
    hues, toned = teach.lamp_toned(photo.image, area, prof if tone else None)
    if expect == "plain":
        assert toned is None and hues == (HUES if named else None)
        return
    exps = shields_mod.table_tone(photo.image, area) if expect == "own" else prof
    assert exps is not None
    assert toned is not None and toned.dtype == np.uint8 and toned.shape == photo.image.shape
    assert np.array_equal(toned, power_about(photo.image, exps, SHIELDS.tone_white))
    assert not np.array_equal(toned, photo.image)


@pytest.mark.parametrize("tone", [None, np.array([0.75, 1.0, 1.45], np.float32)])
def test_taught_reading_cuts_its_crops_as_the_teach_photos_were(named_by_identity, tone):
    """`Pipeline._shields` with a taught profile: with the profile's curve, a photo whose
    coats of arms are not named as it is gets a CueFrame whose image has the curve off (no
    gains); without one, the photo as it is (as before session 19)."""
    from vision.pipeline import Pipeline

    loaded, _ = _photos([ORDINARY], [False])  # (its table shows no curve: the profile's)
    photo, area = loaded[0]
    part = SimpleNamespace(tone=tone, known=False)
    profile = SimpleNamespace(piece_part=part)
    hues, cue = Pipeline._shields(SimpleNamespace(), photo, area, profile)
    assert hues is None
    if tone is None:
        assert cue is None
    else:
        assert cue is not None and cue.gains is None and cue.cast_hue is None
        assert np.array_equal(cue.image, power_about(photo.image, tone, SHIELDS.tone_white))


@pytest.mark.parametrize("tone", [None, np.array([0.75, 1.0, 1.45], np.float32)])
def test_profile_keeps_its_lamp_curve(tmp_path, tone):
    """Saved and loaded with the profile; a profile saved before it has none."""
    p = teach.Profile(game="simsala-hopp", labels=("frog",),
                      prototypes=np.ones((1, 4), np.float32) / 2,
                      colours=np.zeros((1, 3), np.float32), counts=np.ones(1, np.int64),
                      classes=("background", "frog"), tone=tone)
    back = teach.Profile.load(p.save(tmp_path / "p"))
    if tone is None:
        assert back.tone is None
    else:
        assert back.tone is not None and np.allclose(back.tone, tone)


@pytest.mark.slow
@pytest.mark.parametrize("harsh", [False, True])
def test_teach_photos_under_the_harsh_lamp_give_its_curve(tmp_path, harsh):
    """Rendered edition-2 teach photos (teach_eval's, seed 80): under the harsh lamp the
    profile carries the lamp's curve (near the inverse of its gamma relative to the mean,
    as `table_tone` reads it); under ordinary light no curve (the photos read as they are,
    as before)."""
    from vision.pipeline import get_pipeline
    from vision.teach_eval import harsh_light, write_teach_folder

    folder = tmp_path / "simsala-hopp"
    write_teach_folder("simsala-hopp", folder, 1, 80, 2, light=harsh_light if harsh else None)
    profile = teach.build_profile(folder, "simsala-hopp", get_pipeline())
    if not harsh:
        assert profile.tone is None
        return
    gamma = np.array([1.5, 1.1, 0.75])
    assert profile.tone is not None
    assert np.allclose(profile.tone, np.mean(gamma) / gamma, atol=0.25), profile.tone
