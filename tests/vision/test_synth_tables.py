"""Tables the generator's default draw never gives (session 24, H3): `--table KIND` draws that
kind under the same scene, and the default draw (committed scenes, training data) is unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tablescore.errors import BadInput
from vision.synth import GAMES, render_scene, write_scenes
from vision.synth.tables import (
    NOVEL_TABLE_KINDS,
    TABLE_CHOICES,
    TABLE_KINDS,
    novel_table_texture,
    table_texture,
)

ROOT = Path(__file__).resolve().parents[2] / "datasets"


def test_default_draw_never_gives_a_novel_kind():
    assert TABLE_KINDS == ("wood", "cloth", "plain", "wood", "laminate", "check", "stripes")
    assert not set(NOVEL_TABLE_KINDS) & set(TABLE_KINDS)
    assert set(TABLE_CHOICES) == set(TABLE_KINDS) | set(NOVEL_TABLE_KINDS)
    rng = np.random.default_rng(0)
    means = {tuple(table_texture(rng, 16, 12).mean(axis=(0, 1)).round(1)) for _ in range(40)}
    assert len(means) > 10  # the default draw still draws (and is still random)


@pytest.mark.parametrize("edition, folder", [(1, "scenes"), (2, "scenes-edition2")])
@pytest.mark.parametrize("game", GAMES)
def test_default_render_is_the_committed_scene_byte_for_byte(tmp_path, game, edition, folder):
    first = sorted((ROOT / folder / game).glob("*-0000.jpg"))[0]
    seed = int(first.stem.split("-s")[-1].split("-")[0])
    (path,) = write_scenes(game, 1, seed, tmp_path, edition)
    assert path.name == first.name
    assert path.read_bytes() == first.read_bytes()
    truth = json.loads(path.with_suffix(".json").read_text())
    assert "table" not in truth


@pytest.mark.parametrize("kind", NOVEL_TABLE_KINDS + ("cloth",))
@pytest.mark.parametrize("game", ["simsala-hopp", "hop-la-bille", "mauerhuepfer"])
def test_named_table_keeps_the_scene_and_changes_the_table(game, kind):
    img0, truth0 = render_scene(game, 77, 1)
    img1, truth1 = render_scene(game, 77, 1, table=kind)
    assert truth1.pop("table") == kind
    assert truth1 == truth0  # the same pieces, camera, facts and photo faults
    assert img1.shape == img0.shape and img1.dtype == np.uint8
    assert np.abs(img1.astype(int) - img0.astype(int)).mean() > 5
    img2, _ = render_scene(game, 77, 1, table=kind)
    assert np.array_equal(img1, img2)


def _stats(img: np.ndarray) -> dict:
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    sat = hsv[..., 1] > 120
    hues = np.bincount(hsv[..., 0][sat & (hsv[..., 2] > 80)] // 30, minlength=6)
    return {"median": float(np.median(grey)), "p99": float(np.percentile(grey, 99.5)),
            "p1": float(np.percentile(grey, 1)), "sat": float(sat.mean()),
            "sat_med": float(np.median(hsv[..., 1])), "ink": float((grey < 70).mean()),
            "p25": float(np.percentile(grey, 25)),
            "edges": float((cv2.Canny(grey, 60, 150) > 0).mean()),
            "hues": int((hues > 0.01 * img.shape[0] * img.shape[1]).sum())}


# What each kind is, in general terms (every seed): pale grey stone with darker veins; a busy
# print of several saturated colours; near-black glass with a bright streak; a light paper with
# much dark ink.
KIND_CHECKS = {
    "marble": lambda s: s["median"] > 170 and s["sat_med"] < 40 and s["p1"] < s["median"] - 20,
    "print": lambda s: s["sat"] > 0.12 and s["hues"] >= 2,
    "dark-glass": lambda s: s["p25"] < 50 and s["p99"] > 150,
    "mat": lambda s: 0.05 < s["ink"] < 0.7 and s["median"] > 100 and s["edges"] > 0.05,
}


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kind", NOVEL_TABLE_KINDS)
def test_novel_texture_is_its_kind(kind, seed):
    img = novel_table_texture(np.random.default_rng(seed), 960, 720, kind, px_per_mm=1.5)
    assert img.shape == (720, 960, 3) and img.dtype == np.uint8
    stats = _stats(img)
    assert KIND_CHECKS[kind](stats), (kind, stats)
    if kind in ("marble", "dark-glass"):  # the plain ones are not the busy ones
        assert not KIND_CHECKS["print"](stats) and not KIND_CHECKS["mat"](stats), stats


def test_bad_table_kind_is_a_clear_error():
    with pytest.raises(BadInput, match="table must be one of"):
        render_scene("simsala-hopp", 1, 1, table="granite")
    with pytest.raises(ValueError):
        novel_table_texture(np.random.default_rng(0), 8, 8, "wood", 1.0)


def test_cli_synth_table(run_cli, tmp_path):
    code, out = run_cli("synth", "--game", "magic-rabbit", "--count", "1", "--seed", "4",
                        "--table", "dark-glass", "--out", tmp_path / "g")
    assert code == 0 and out["table"] == "dark-glass"
    (truth,) = [json.loads(p.read_text()) for p in (tmp_path / "g").glob("*.json")]
    assert truth["table"] == "dark-glass"
    code, out = run_cli("synth", "--game", "magic-rabbit", "--table", "granite",
                        "--out", tmp_path / "x")
    assert code == 2 and "table" in out["error"]["message"]
    code, out = run_cli("synth", "--game", "magic-rabbit", "--table", "marble", "--crops",
                        "--out", tmp_path / "c")
    assert code == 2 and "--crops" in out["error"]["message"]
    assert not (tmp_path / "c").exists()
