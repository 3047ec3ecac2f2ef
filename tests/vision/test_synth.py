"""Synthetic scene generator (issue 4): the truth agrees with the picture, facts agree with the
pieces, rendering is deterministic, the committed scene folders are complete."""

from __future__ import annotations

import colorsys
import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from scoring.labels import HOP_ZONES, LABELS, MARBLE_LABELS, SIMSALA_LABELS
from vision.synth import GAMES, iter_crops, render_scene, write_scenes
from vision.synth.art import MARBLE_BGR
from vision.synth.games.hopla import card_order

ROOT = Path(__file__).resolve().parents[2] / "datasets"
DONE_GAMES = [g for g in GAMES if (ROOT / "scenes" / g).is_dir()]


def committed(game: str, edition: int = 1) -> list[tuple[Path, dict]]:
    folder = ROOT / ("scenes" if edition == 1 else "scenes-edition2") / game
    files = sorted(folder.glob("*.json"))
    return [(p.with_suffix(".jpg"), json.loads(p.read_text())) for p in files]


def all_committed(game: str) -> list[tuple[Path, dict]]:
    return committed(game, 1) + committed(game, 2)


@pytest.mark.parametrize("game", DONE_GAMES)
def test_committed_folders_hold_30_and_10_scenes(game):
    # 30 scenes per game in datasets/scenes, 10 of the second edition beside them
    assert len(committed(game, 1)) == 30
    assert len(committed(game, 2)) == 10
    for jpg, _truth in all_committed(game):
        assert jpg.exists(), jpg


@pytest.mark.parametrize("game", DONE_GAMES)
def test_truth_geometry_lies_in_frame(game):
    for jpg, truth in all_committed(game):
        w, h = truth["image"]["width"], truth["image"]["height"]
        assert {(w, h)} <= {(1280, 960), (960, 1280)}
        img = cv2.imread(str(jpg))
        assert img.shape == (h, w, 3)
        for p in truth["pieces"]:
            assert p["label"] in LABELS[game], p
            pts = np.asarray(p["polygon"] if p["polygon"] else [p["center"]], float)
            if p["polygon"] is None:
                r = p["radius"]
                assert r and r > 1.5
                pts = np.concatenate([pts - r, pts + r])
            assert np.all(pts >= 0) and np.all(pts[:, 0] <= w) and np.all(pts[:, 1] <= h), (
                jpg.name, p)
        if truth["area"] is not None:
            a = np.asarray(truth["area"], float)
            assert a.shape == (4, 2)
            # corners run clockwise in the image (positive shoelace area with y down)
            x, y = a[:, 0], a[:, 1]
            assert np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)) > 0


def _hsv_feature(bgr) -> np.ndarray:
    b, g, r = (c / 255 for c in bgr)
    hh, s, v = colorsys.rgb_to_hsv(r, g, b)
    return np.array([np.cos(2 * np.pi * hh) * s, np.sin(2 * np.pi * hh) * s, v * 0.5])


def test_marble_centre_colour_matches_label():
    # the median colour around each marble's centre is nearest to its own label's colour
    hits = total = 0
    misses = []
    for edition in (1, 2):
        refs = {f"marble-{k}": _hsv_feature(v) for k, v in MARBLE_BGR[edition].items()}
        for jpg, truth in committed("hop-la-bille", edition):
            img = cv2.imread(str(jpg))
            for p in truth["pieces"]:
                if p["label"] not in MARBLE_LABELS:
                    continue
                mask = np.zeros(img.shape[:2], np.uint8)
                c = tuple(int(round(v)) for v in p["center"])
                cv2.circle(mask, c, max(1, int(round(p["radius"] * 0.3))), 255, -1)
                f = _hsv_feature(np.median(img[mask > 0], axis=0))
                best = min(refs, key=lambda k: np.linalg.norm(refs[k] - f))
                total += 1
                hits += best == p["label"]
                if best != p["label"]:
                    misses.append((jpg.name, p["label"], best))
    assert total > 300
    assert hits / total >= 0.98, misses


def test_tile_centre_colour_matches_simsala_label():
    # frogs are green, cats dark, white rabbits light: checked at each tile's centre patch
    for jpg, truth in committed("simsala-hopp", 1):
        img = cv2.imread(str(jpg))
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
        for p in truth["pieces"]:
            poly = np.asarray(p["polygon"], float)
            c = poly.mean(axis=0)
            # a patch halfway between the centre and a corner shows the tile's background
            x, y = np.round(c + 0.8 * (poly[0] - c)).astype(int)
            hh, s, v = (int(t) for t in np.median(hsv[y - 1:y + 2, x - 1:x + 2].reshape(-1, 3),
                                                  axis=0))
            if p["label"] == "frog":
                assert 30 <= hh <= 90 and s > 60, (jpg.name, p, (hh, s, v))
            elif p["label"] == "cat":
                assert v < 140, (jpg.name, p, (hh, s, v))
            elif p["label"] == "rabbit-white":
                assert s < 90 and v > 80, (jpg.name, p, (hh, s, v))


def _counts(pieces, kinds=None):
    out: dict[str, Counter] = {}
    for p in pieces:
        if kinds is None or p["label"] in kinds:
            out.setdefault(p["zone"], Counter())[p["label"]] += 1
    return {z: dict(c) for z, c in out.items()}


def test_simsala_facts_agree_with_pieces_and_rules():
    for _, truth in all_committed("simsala-hopp"):
        facts = truth["facts"]
        assert set(facts) == {"arena", "outside"}
        got = _counts(truth["pieces"])
        assert {z: c for z, c in facts.items() if c} == got
        assert sum(sum(c.values()) for c in facts.values()) == 15
        backs = Counter()
        for zone in facts.values():
            backs.update({k: n for k, n in zone.items() if k != "frog"})
        assert backs["rabbit-white"] <= 5 and backs["cat"] <= 2
        assert all(backs[f"rabbit-{c}"] <= 2 for c in ("yellow", "orange", "blue", "violet"))
        assert set(backs) <= set(SIMSALA_LABELS)


def test_hop_la_bille_facts_agree_with_pieces_and_rules():
    for _, truth in all_committed("hop-la-bille"):
        facts = truth["facts"]
        marbles = _counts(truth["pieces"], MARBLE_LABELS)
        assert facts["zones"] == marbles
        assert set(facts["zones"]) <= set(HOP_ZONES)
        per_colour = Counter()
        for c in facts["zones"].values():
            per_colour.update(c)
        assert max(per_colour.values()) <= 4
        cards = [p for p in truth["pieces"] if p["label"].startswith("card-")]
        for zone, listed in facts["cards"].items():
            mine = [p for p in cards if p["zone"] == zone]
            order = card_order(zone, [p["center"] for p in mine])
            assert [f"card-{c['colour']}" for c in listed] == [mine[i]["label"] for i in order]
            for c in listed:
                want = {"green": 3, "blue": 4, "red": 5, "back": 0}[c["colour"]]
                assert len(c["marbles"]) == want and set(c["marbles"]) <= set(MARBLE_LABELS)
        assert sum(len(v) for v in facts["cards"].values()) == len(cards)


def test_hop_la_bille_south_zone_is_nearest_the_bottom():
    # a south marble lies lower in the photo than the north marbles of the same scene
    checked = 0
    for _, truth in all_committed("hop-la-bille"):
        ys = {}
        for p in truth["pieces"]:
            ys.setdefault(p["zone"], []).append(p["center"][1])
        if "south" in ys and "north" in ys:
            assert min(ys["south"]) > max(ys["north"])
            checked += 1
    assert checked >= 5


@pytest.mark.parametrize("game", ["simsala-hopp", "hop-la-bille"])
def test_render_is_deterministic(game):
    a_img, a_truth = render_scene(game, 1234, 1)
    b_img, b_truth = render_scene(game, 1234, 1)
    c_img, _ = render_scene(game, 1235, 1)
    assert np.array_equal(a_img, b_img) and a_truth == b_truth
    assert a_img.dtype == np.uint8 and a_img.ndim == 3 and a_img.shape[2] == 3
    assert not np.array_equal(a_img.shape, c_img.shape) or not np.array_equal(a_img, c_img)


def test_write_scenes_matches_render(tmp_path):
    paths = write_scenes("hop-la-bille", 2, 9, tmp_path)
    assert len(paths) == 2
    truth = json.loads(paths[1].with_suffix(".json").read_text())
    assert truth["game"] == "hop-la-bille" and truth["edition"] == 1
    _, again = render_scene("hop-la-bille", truth["seed"], 1)
    assert again["facts"] == truth["facts"]


def test_crops_are_square_labelled_and_contain_the_piece():
    crops = list(iter_crops("simsala-hopp", 1, 5))
    assert len(crops) == 15
    for crop, label in crops:
        assert label in SIMSALA_LABELS
        assert crop.ndim == 3 and crop.shape[0] == crop.shape[1] >= 8 and crop.dtype == np.uint8


def test_cli_synth_writes_scenes_and_rejects_bad_input(run_cli, tmp_path):
    code, out = run_cli("synth", "--game", "simsala-hopp", "--count", "1", "--seed", "3",
                        "--out", tmp_path / "s")
    assert code == 0 and out["scenes"] == 1
    assert len(list((tmp_path / "s").glob("*.jpg"))) == 1
    code, out = run_cli("synth", "--game", "chess", "--count", "1", "--out", tmp_path / "x")
    assert code == 2 and out["error"]["code"]
    code, out = run_cli("synth", "--game", "simsala-hopp", "--edition", "3", "--out", tmp_path)
    assert code == 2 and "edition" in out["error"]["message"]
