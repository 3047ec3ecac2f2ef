"""Mauerhuepfer end to end on committed scenes: photo -> board, pawns, dice -> facts, score,
legal moves (vision.mauer.score_mauer_photo), and the bad-input cases."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tablescore.errors import BadInput, NotFound
from vision.mauer import score_mauer_photo
from vision.mauer_eval import norm_facts

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "datasets" / "scenes" / "mauerhuepfer"
SCENES2 = ROOT / "datasets" / "scenes-edition2" / "mauerhuepfer"


@pytest.mark.slow
@pytest.mark.parametrize("photo", [
    SCENES / "mauerhuepfer-e1-s1-0000.jpg",  # steep view, pawns in B and goal slots
    SCENES / "mauerhuepfer-e1-s1-0007.jpg",
    SCENES / "mauerhuepfer-e1-s1-0017.jpg",  # light board, fields shaded by the walls
    SCENES2 / "mauerhuepfer-e2-s2-0001.jpg",  # the other edition's board and pawns
])
def test_photo_to_facts_and_moves(photo, tmp_path):
    truth = json.loads(photo.with_suffix(".json").read_text())
    out = score_mauer_photo(photo, {}, annotate=str(tmp_path / "a.jpg"))
    assert out["game"] == "mauerhuepfer"
    assert out["image"] == truth["image"]
    assert np.abs(np.array(out["area"]) - np.array(truth["area"])).max() < 8.0
    assert norm_facts(out["facts"], False) == norm_facts(truth["facts"], False)
    pawns = [p for p in out["pieces"] if p["label"].startswith("pawn-")]
    assert sorted((p["label"], p["position"]) for p in pawns) == sorted(
        (p["label"], p["position"]) for p in truth["pieces"] if p["label"].startswith("pawn-"))
    assert set(out["score"]) >= {"home", "winner", "moves"}
    home = {c: sum(1 for p in ps if p in "abcd") for c, ps in
            ((lab[5:], ps) for lab, ps in truth["facts"]["positions"].items())}
    assert all(out["score"]["home"][c] == n for c, n in home.items())
    dice = out["facts"]["dice"]
    assert len(dice) <= 2 and all(1 <= d <= 6 for d in dice) and dice == sorted(dice)
    if len(dice) == 2:  # moves for every colour in play, from the pawns read
        assert set(out["score"]["moves"]) == {lab[5:] for lab in out["facts"]["positions"]}
    assert cv2.imread(str(tmp_path / "a.jpg")) is not None
    assert out["timings_ms"]["total"] > 0


def test_not_a_photo_is_bad_input(tmp_path):
    bad = tmp_path / "x.jpg"
    bad.write_bytes(b"this is not a jpeg")
    with pytest.raises(BadInput):
        score_mauer_photo(bad, {})


def test_photo_without_a_board_is_not_found(tmp_path):
    rng = np.random.default_rng(4)
    table = np.clip(rng.normal(110, 25, (480, 640, 3)), 0, 255).astype(np.uint8)
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), table)
    with pytest.raises(NotFound):
        score_mauer_photo(path, {})


# --- through the CLI (tablescore score / evaluate) ------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("photo", [
    SCENES / "mauerhuepfer-e1-s1-0003.jpg",
    SCENES2 / "mauerhuepfer-e2-s2-0004.jpg",  # edition 2
])
def test_cli_score_photo(run_cli, photo, tmp_path):
    truth = json.loads(photo.with_suffix(".json").read_text())
    ann = tmp_path / "ann.jpg"
    code, out = run_cli("score", photo, "--game", "mauerhuepfer", "--annotate", ann, "--json")
    assert code == 0
    assert set(out) >= {"game", "image", "area", "pieces", "facts", "score", "warnings",
                        "timings_ms"}
    assert norm_facts(out["facts"], False) == norm_facts(truth["facts"], False)
    assert set(out["score"]) >= {"home", "winner", "moves"}
    assert ann.is_file()


@pytest.mark.parametrize("make,code,err", [
    (lambda p: p.write_bytes(b"GIF89a not a photo"), 2, "bad_image"),  # unsupported file
    (lambda p: cv2.imwrite(str(p), np.full((480, 640, 3), 128, np.uint8)), 3,
     "area_not_found"),  # a photo of an empty table
])
def test_cli_bad_photos(run_cli, tmp_path, make, code, err):
    path = tmp_path / "x.png"
    make(path)
    got, out = run_cli("score", path, "--game", "mauerhuepfer", "--json")
    assert got == code
    assert out["error"]["code"] == err


@pytest.mark.slow
def test_cli_evaluate_small_folder(run_cli, tmp_path):
    for name in ("mauerhuepfer-e1-s1-0001", "mauerhuepfer-e1-s1-0002"):
        for ext in (".jpg", ".json"):
            (tmp_path / (name + ext)).write_bytes((SCENES / (name + ext)).read_bytes())
    code, out = run_cli("evaluate", tmp_path, "--game", "mauerhuepfer", "--json")
    assert code == 0
    assert out["scenes"] == 2 and out["pieces_true"] > 0
    assert 0.0 <= out["piece_error"] <= 1.0 and 0.0 <= out["facts_exact"] <= 1.0
    code, out = run_cli("evaluate", tmp_path / "missing", "--game", "mauerhuepfer", "--json")
    assert code == 2 and out["error"]["code"] == "bad_input"
