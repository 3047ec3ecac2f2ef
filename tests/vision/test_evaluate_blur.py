"""The blur a rendered photo was given, recorded in its truth, and the evaluation's split by it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.evaluate import BLUR_CLASSES, Report, photo_blur
from vision.synth.camera import PHOTO, finish_photo


def _photo() -> np.ndarray:
    img = np.full((96, 128, 3), 200, np.uint8)
    img[30:60, 40:90] = (30, 60, 200)
    return img


@pytest.mark.parametrize("settings, blur", [
    (replace(PHOTO, defocus_p=1.0, motion_p=0.0), ("defocus <= 1 px", "defocus > 1 px")),
    (replace(PHOTO, defocus_p=0.0, motion_p=1.0), ("motion",)),  # motion only
    (replace(PHOTO, defocus_p=0.0, motion_p=0.0), ("sharp",)),  # neither
])
def test_record_says_what_was_drawn_and_changes_nothing(settings, blur):
    for seed in range(4):
        plain = finish_photo(np.random.default_rng(seed), _photo(), settings)
        record: dict = {}
        kept = finish_photo(np.random.default_rng(seed), _photo(), settings, record=record)
        assert np.array_equal(plain, kept)  # recording draws nothing more
        assert photo_blur({"photo": record}) in blur
        assert set(record) - {"motion_deg"} == {"defocus_sigma", "motion_px", "glare",
                                                "noise_sigma", "jpeg_quality"}
        assert ("motion_deg" in record) == (record["motion_px"] > 0)  # the streak's angle


@pytest.mark.parametrize("truth, expected", [
    ({}, None),  # a truth written before the record (or a real photo's)
    ({"photo": None}, None),
    ({"photo": {"defocus_sigma": 0.0, "motion_px": 0}}, "sharp"),
    ({"photo": {"defocus_sigma": 0.8, "motion_px": 0}}, "defocus <= 1 px"),
    ({"photo": {"defocus_sigma": 1.0, "motion_px": 0}}, "defocus <= 1 px"),  # boundary
    ({"photo": {"defocus_sigma": 1.4, "motion_px": 0}}, "defocus > 1 px"),
    ({"photo": {"defocus_sigma": 0.0, "motion_px": 5}}, "motion"),
])
def test_photo_blur_classes(truth, expected):
    assert photo_blur(truth) == expected
    assert expected is None or expected in BLUR_CLASSES


def _piece(label, x):
    return {"label": label, "zone": "north", "center": [x, 10.0], "radius": 8.0}


def test_report_splits_errors_by_blur():
    rep = Report(game="troetofanten", labels=("back", "lasso"))
    truth = [_piece("back", 10.0), _piece("lasso", 60.0)]
    rep.add("a", [_piece("back", 10.0), _piece("back", 60.0)], truth, False, "motion")
    rep.add("b", [_piece("back", 10.0), _piece("lasso", 60.0)], truth, True, "sharp")
    rep.add("c", [_piece("back", 10.0), _piece("lasso", 60.0), _piece("back", 120.0)],
            truth, False, "motion")  # one extra piece
    table = rep.to_json()["by_photo_blur"]
    assert list(table) == ["sharp", "motion"]  # in BLUR_CLASSES' order, only those seen
    assert table["sharp"] == {"scenes": 1, "facts_exact_count": 1, "pieces_true": 2,
                              "piece_error": 0.0}
    assert table["motion"] == {"scenes": 2, "facts_exact_count": 0, "pieces_true": 4,
                               "piece_error": 0.5}  # a wrong label and an extra piece
    plain = Report(game="troetofanten", labels=("back",))
    plain.add("a", [_piece("back", 10.0)], [_piece("back", 10.0)], True)
    assert "by_photo_blur" not in plain.to_json()  # truths without the record
