"""Synthetic scene generator (issue 4): the truth agrees with the picture, the facts agree with
the pieces and the rules, rendering is deterministic, the committed scene folders are complete.

Most checks read the committed scenes (no rendering); a few render a handful of scenes."""

from __future__ import annotations

import colorsys
import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.labels import (
    HOP_ZONES,
    LABELS,
    MARBLE_LABELS,
    SIMSALA_LABELS,
    TROETO_COUNTS,
    TROETO_ZONES,
)
from vision.synth import GAMES, iter_crops, render_scene, write_scenes
from vision.synth.art import MARBLE_BGR
from vision.synth.games.hopla import card_order
from vision.synth.games.mauer import board

ROOT = Path(__file__).resolve().parents[2] / "datasets"


def committed(game: str, edition: int = 1) -> list[tuple[Path, dict]]:
    folder = ROOT / ("scenes" if edition == 1 else "scenes-edition2") / game
    files = sorted(folder.glob("*.json"))
    return [(p.with_suffix(".jpg"), json.loads(p.read_text())) for p in files]


def all_committed(game: str) -> list[tuple[Path, dict]]:
    return committed(game, 1) + committed(game, 2)


def _counts(pieces, labels=None) -> dict[str, dict[str, int]]:
    out: dict[str, Counter] = {}
    for p in pieces:
        if labels is None or p["label"] in labels:
            out.setdefault(p["zone"], Counter())[p["label"]] += 1
    return {z: dict(c) for z, c in out.items()}


def _image_h(truth) -> np.ndarray:
    """Board-mm -> image homography of a Mauerhuepfer truth (from its area corners)."""
    w, h = board().size_mm
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    return cv2.getPerspectiveTransform(src, np.float32(truth["area"]))


# --------------------------------------------------------------------- per-game fact checks
def check_simsala(truth):
    facts = truth["facts"]
    assert set(facts) == {"arena", "outside"}
    assert {z: c for z, c in facts.items() if c} == _counts(truth["pieces"])
    assert sum(sum(c.values()) for c in facts.values()) == 15  # all 15 tiles are in the photo
    backs = Counter()
    for zone in facts.values():
        backs.update({k: n for k, n in zone.items() if k != "frog"})
    assert backs["rabbit-white"] <= 5 and backs["cat"] <= 2
    assert all(backs[f"rabbit-{c}"] <= 2 for c in ("yellow", "orange", "blue", "violet"))
    assert set(backs) <= set(SIMSALA_LABELS)
    # arena tiles do not overlap (the magician slides them apart)
    arena = [np.float32(p["polygon"]) for p in truth["pieces"] if p["zone"] == "arena"]
    for i, a in enumerate(arena):
        for b in arena[i + 1:]:
            inter, _ = cv2.intersectConvexConvex(a, b)
            assert inter < 0.02 * cv2.contourArea(a)


def check_hop(truth):
    facts = truth["facts"]
    assert facts["zones"] == _counts(truth["pieces"], MARBLE_LABELS)
    assert set(facts["zones"]) <= set(HOP_ZONES)
    per_colour = Counter()
    for c in facts["zones"].values():
        per_colour.update(c)
    seated = set(facts["cards"])
    assert 2 <= len(seated) <= 4
    # each player brought one marble per colour and always keeps at least one
    assert all(per_colour[m] == len(seated) for m in MARBLE_LABELS)
    assert all(sum(facts["zones"].get(z, {}).values()) >= 1 for z in seated)
    hands = [len(v) for v in facts["cards"].values()]
    assert set(hands) == {3} or set(hands) == {1}
    marbles = [p for p in truth["pieces"] if p["label"] in MARBLE_LABELS]
    for i, a in enumerate(marbles):  # two marbles never touch
        for b in marbles[i + 1:]:
            d = np.hypot(*(np.subtract(a["center"], b["center"])))
            assert d > a["radius"] + b["radius"]
    cards = [p for p in truth["pieces"] if p["label"].startswith("card-")]
    for zone, listed in facts["cards"].items():
        assert zone in HOP_ZONES[:4]
        mine = [p for p in cards if p["zone"] == zone]
        order = card_order(zone, [p["center"] for p in mine])
        assert [f"card-{c['colour']}" for c in listed] == [mine[i]["label"] for i in order]
        for c in listed:
            want = {"green": 3, "blue": 4, "red": 5, "back": 0}[c["colour"]]
            assert len(c["marbles"]) == want and set(c["marbles"]) <= set(MARBLE_LABELS)
    assert sum(len(v) for v in facts["cards"].values()) == len(cards)


def check_magic(truth):
    facts = truth["facts"]
    line = facts["line"]
    assert len(line) in (9, 7, 6)
    hats = [p for p in truth["pieces"] if p["label"].startswith("hat-")]
    mag = [p for p in truth["pieces"] if p["label"] == "magician"]
    assert len(mag) == 1 and len(hats) == len(line)
    # the line is listed from the magician tile outward
    dist = [np.hypot(*np.subtract(h["center"], mag[0]["center"])) for h in hats]
    along = [int(hats[i]["label"][4:]) for i in np.argsort(dist)]
    assert along == [e["hat"] for e in line]
    rabbits = Counter(int(p["label"][7:]) for p in truth["pieces"]
                      if p["label"].startswith("rabbit-"))
    assert rabbits == Counter(e["rabbit"] for e in line if e["rabbit"] is not None)
    doves = [p for p in truth["pieces"] if p["label"] == "dove"]
    assert len(doves) == sum(e["dove"] for e in line) <= 5
    numbers = [e["hat"] for e in line]
    won = numbers == sorted(numbers) and all(e["rabbit"] == e["hat"] for e in line)
    assert facts["won"] == won


def check_mauer(truth):
    facts = truth["facts"]
    dice = sorted(int(p["label"][4:]) for p in truth["pieces"] if p["label"].startswith("die-"))
    assert facts["dice"] == dice and len(dice) == 2
    pawns = [p for p in truth["pieces"] if p["label"].startswith("pawn-")]
    assert facts["pawns"] == dict(Counter(p["label"] for p in pawns))
    got: dict[str, Counter] = {}
    for p in pawns:
        got.setdefault(p["label"], Counter())[p["position"]] += 1
    assert {k: Counter(v) for k, v in facts["positions"].items()} == got
    # each pawn stands where the board file puts its field (through the area homography)
    b = board()
    hm = _image_h(truth)
    for p in pawns:
        colour = p["label"][5:]
        pos = p["position"]
        if pos == "B":
            a = b.area(colour)
            ref, tol = a.start_center, a.start_radius
        elif pos in ("a", "b", "c", "d"):
            ref, tol = dict(b.area(colour).goal_slots)[pos], 4.0
        else:
            f = b.field(pos)
            ref, tol = (f.x, f.y), 4.0
        img_pt = cv2.perspectiveTransform(np.float32([[ref]]), hm)[0, 0]
        k = p["radius"] / 10.0  # image px per mm near the pawn (pawns are 20 mm)
        assert np.hypot(*(img_pt - p["center"])) <= (tol + 5) * k * 1.5, (pos, p)


def check_troeto(truth):
    facts = truth["facts"]
    assert facts["zones"] == _counts(truth["pieces"])
    assert set(facts["zones"]) <= set(TROETO_ZONES)
    total = Counter()
    for c in facts["zones"].values():
        total.update(c)
    for label, n in total.items():
        assert label == "back" or n <= TROETO_COUNTS[label]


CHECKS = {"simsala-hopp": check_simsala, "hop-la-bille": check_hop, "magic-rabbit": check_magic,
          "mauerhuepfer": check_mauer, "troetofanten": check_troeto}


def check_geometry(game, truth, img_shape=None):
    w, h = truth["image"]["width"], truth["image"]["height"]
    assert (w, h) in {(1280, 960), (960, 1280)}
    if img_shape is not None:
        assert img_shape == (h, w, 3)
    assert truth["game"] == game
    for p in truth["pieces"]:
        assert p["label"] in LABELS[game], p
        assert 0.0 <= p["visible"] <= 1.0
        if p["polygon"] is None:
            r = p["radius"]
            assert r and r > 1.5
            c = np.asarray(p["center"], float)
            pts = np.stack([c - r, c + r])
        else:
            pts = np.asarray(p["polygon"], float)
            assert pts.shape == (4, 2)
            inside = cv2.pointPolygonTest(np.float32(pts), tuple(p["center"]), False)
            assert inside >= 0
        assert np.all(pts >= 0) and np.all(pts[:, 0] <= w) and np.all(pts[:, 1] <= h), p
    if game == "troetofanten" or game == "magic-rabbit":
        assert truth["area"] is None
    else:
        a = np.asarray(truth["area"], float)
        assert a.shape == (4, 2)
        # corners run clockwise in the image (positive shoelace area with y down)
        x, y = a[:, 0], a[:, 1]
        assert np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)) > 0


# --------------------------------------------------------------------- committed scenes
@pytest.mark.parametrize("game", GAMES)
def test_committed_folders_hold_30_and_10_scenes(game):
    # 30 scenes per game in datasets/scenes, 10 of the second edition beside them
    assert len(committed(game, 1)) == 30
    assert len(committed(game, 2)) == 10
    assert (ROOT / f"contact-{game}.png").exists()
    for jpg, truth in all_committed(game):
        assert jpg.exists() and truth["file"] == jpg.name


@pytest.mark.parametrize("game", GAMES)
def test_committed_truth_geometry_and_facts(game):
    for jpg, truth in all_committed(game):
        img = cv2.imread(str(jpg))
        check_geometry(game, truth, img.shape)
        CHECKS[game](truth)


def _hsv_feature(bgr) -> np.ndarray:
    b, g, r = (c / 255 for c in bgr)
    hh, s, v = colorsys.rgb_to_hsv(r, g, b)
    return np.array([np.cos(2 * np.pi * hh) * s, np.sin(2 * np.pi * hh) * s, v * 0.5])


def _disc_median(img, p, frac):
    mask = np.zeros(img.shape[:2], np.uint8)
    c = tuple(int(round(v)) for v in p["center"])
    cv2.circle(mask, c, max(1, int(round(p["radius"] * frac))), 255, -1)
    return np.median(img[mask > 0], axis=0)


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
                f = _hsv_feature(_disc_median(img, p, 0.3))
                best = min(refs, key=lambda k: np.linalg.norm(refs[k] - f))
                total += 1
                hits += best == p["label"]
                if best != p["label"]:
                    misses.append((jpg.name, p["label"], best))
    assert total > 300
    assert hits / total >= 0.98, misses


def _background(shape, truth, dilate: int = 9) -> np.ndarray:
    """uint8 mask of the play area without any piece (pieces dilated by `dilate` px)."""
    mask = np.zeros(shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(np.float32(truth["area"])).astype(np.int32), 255)
    pieces = np.zeros_like(mask)
    for p in truth["pieces"]:
        if p["polygon"]:
            cv2.fillConvexPoly(pieces, np.round(np.float32(p["polygon"])).astype(np.int32), 255)
        else:
            for c in [p["center"]] + ([p["top_center"]] if p.get("top_center") else []):
                cv2.circle(pieces, tuple(int(round(v)) for v in c),
                           int(round(p["radius"] * 1.3)), 255, -1)
    pieces = cv2.dilate(pieces, np.ones((dilate, dilate), np.uint8))
    return mask & ~pieces


def _local_v(v: np.ndarray, mask: np.ndarray, centre, half: int) -> float:
    """Median brightness of the masked background in a window around `centre` (the local
    light level: the lighting is smooth, so ratios to it cancel exposure and gradients)."""
    x, y = (int(round(t)) for t in centre)
    y0, x0 = max(0, y - half), max(0, x - half)
    win, m = v[y0:y + half, x0:x + half], mask[y0:y + half, x0:x + half]
    return float(np.median(win[m > 0])) if np.count_nonzero(m) > 20 else float("nan")


def test_pawn_colour_matches_label():
    # a pawn's disc is red / yellow / green by hue; a black pawn is much darker than the board
    black = 0
    for jpg, truth in all_committed("mauerhuepfer"):
        img = cv2.imread(str(jpg))
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
        board_mask = _background(img.shape, truth)
        for p in truth["pieces"]:
            if not p["label"].startswith("pawn-"):
                continue
            hh, s, v = _disc_median(hsv, p, 0.6)
            colour = p["label"][5:]
            if colour == "black":
                light = _local_v(hsv[:, :, 2], board_mask, p["center"], int(p["radius"] * 6))
                if not np.isnan(light):
                    assert v < 0.6 * light, (jpg.name, p, (hh, s, v), light)
                    black += 1
                continue
            assert s > 60, (jpg.name, p, (hh, s, v))
            lo, hi = {"red": (-15, 12), "yellow": (14, 40), "green": (40, 90)}[colour]
            hue = hh - 180 if hh > 160 else hh
            assert lo <= hue <= hi, (jpg.name, p, (hh, s, v))
    assert black >= 20


def test_tile_colour_matches_simsala_label():
    # frogs are green; against the red arena around them, white rabbits are bright and cats
    # dark (checked near a corner of each arena tile, where its background shows)
    counts = Counter()
    for jpg, truth in committed("simsala-hopp", 1):
        img = cv2.imread(str(jpg))
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
        arena = _background(img.shape, truth)
        for p in truth["pieces"]:
            poly = np.asarray(p["polygon"], float)
            c = poly.mean(axis=0)
            x, y = np.round(c + 0.8 * (poly[0] - c)).astype(int)
            hh, s, v = (int(t) for t in np.median(hsv[y - 1:y + 2, x - 1:x + 2].reshape(-1, 3),
                                                  axis=0))
            if p["label"] == "frog":
                assert 30 <= hh <= 90 and s > 60, (jpg.name, p, (hh, s, v))
                counts["frog"] += 1
                continue
            if p["zone"] != "arena" or p["label"] not in ("cat", "rabbit-white"):
                continue
            light = _local_v(hsv[:, :, 2], arena, c, int(np.ptp(poly[:, 0])))
            if np.isnan(light):
                continue
            if p["label"] == "cat":
                assert v < 0.6 * light, (jpg.name, p, (hh, s, v), light)
            else:
                assert s < 90 and v > 0.8 * light, (jpg.name, p, (hh, s, v), light)
            counts[p["label"]] += 1
    assert min(counts.values()) >= 10, counts


def test_visibility_follows_what_covers_what():
    # arena tiles never overlap; a fanned Troetofanten card shows at least its index strip;
    # a hat with a dove on it is partly covered
    for _, truth in all_committed("simsala-hopp"):
        assert all(p["visible"] >= 0.95 for p in truth["pieces"] if p["zone"] == "arena")
    fanned = 0
    for _, truth in all_committed("troetofanten"):
        cards = [p["visible"] for p in truth["pieces"] if p["zone"] != "middle"]
        assert min(cards) >= 0.25
        fanned += any(v < 0.9 for v in cards)
    assert fanned >= 20
    for _, truth in all_committed("magic-rabbit"):
        doves = sum(e["dove"] for e in truth["facts"]["line"])
        hidden = [p for p in truth["pieces"] if p["label"].startswith("hat-")
                  and p["visible"] < 0.97]
        assert len(hidden) == doves


def test_hop_la_bille_south_zone_is_nearest_the_bottom():
    # a south marble lies lower in the photo than the north marbles of the same scene
    checked = 0
    for _, truth in all_committed("hop-la-bille"):
        ys: dict[str, list[float]] = {}
        for p in truth["pieces"]:
            ys.setdefault(p["zone"], []).append(p["center"][1])
        if "south" in ys and "north" in ys:
            assert min(ys["south"]) > max(ys["north"])
            checked += 1
    assert checked >= 5


# --------------------------------------------------------------------- rendering
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 2**40), edition=st.sampled_from([1, 2]))
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_seed_gives_consistent_truth(game, seed, edition):
    img, truth = render_scene(game, seed, edition)
    check_geometry(game, truth, img.shape)
    CHECKS[game](truth)


@pytest.mark.parametrize("game", ["simsala-hopp", "mauerhuepfer"])
def test_render_is_deterministic(game):
    a_img, a_truth = render_scene(game, 1234, 2)
    b_img, b_truth = render_scene(game, 1234, 2)
    c_img, _ = render_scene(game, 1235, 2)
    assert np.array_equal(a_img, b_img) and a_truth == b_truth
    assert a_img.dtype == np.uint8 and a_img.ndim == 3 and a_img.shape[2] == 3
    assert a_img.shape != c_img.shape or not np.array_equal(a_img, c_img)


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
    again = list(iter_crops("simsala-hopp", 1, 5))
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(crops, again, strict=True))


def test_cli_synth_writes_scenes_and_rejects_bad_input(run_cli, tmp_path):
    code, out = run_cli("synth", "--game", "simsala-hopp", "--count", "1", "--seed", "3",
                        "--out", tmp_path / "s")
    assert code == 0 and out["scenes"] == 1
    assert len(list((tmp_path / "s").glob("*.jpg"))) == 1
    code, out = run_cli("synth", "--game", "chess", "--count", "1", "--out", tmp_path / "x")
    assert code == 2 and out["error"]["code"]
    code, out = run_cli("synth", "--game", "simsala-hopp", "--edition", "3", "--out", tmp_path)
    assert code == 2 and "edition" in out["error"]["message"]
    code, out = run_cli("synth", "--game", "magic-rabbit", "--count", "1", "--crops",
                        "--out", tmp_path / "c")
    assert code == 0 and sum(out["crops"].values()) >= 10


# ------------------------------------------------------------ larger photos (session 17)
@pytest.mark.parametrize("k", [1.5, 2.0])
@pytest.mark.parametrize("pixel_blur", [False, True])
def test_scaled_render_is_the_same_scene_at_more_pixels(k, pixel_blur):
    img1, t1 = render_scene("troetofanten", 2100, 1)
    img, t = render_scene("troetofanten", 2100, 1, k, pixel_blur)
    w, h = t1["image"]["width"], t1["image"]["height"]
    assert (t["image"]["width"], t["image"]["height"]) == (round(w * k), round(h * k))
    assert img.shape == (round(h * k), round(w * k), 3) and img.dtype == np.uint8
    assert t["facts"] == t1["facts"]
    assert [p["label"] for p in t["pieces"]] == [p["label"] for p in t1["pieces"]]
    for p, q in zip(t["pieces"], t1["pieces"], strict=True):  # pixel centres mapped
        assert np.allclose(p["center"], (np.array(q["center"]) + 0.5) * k - 0.5, atol=0.2)
    assert t["photo"]["scale"] == k and t["photo"]["pixel_blur"] is pixel_blur
    assert t["photo"]["jpeg_quality"] == t1["photo"]["jpeg_quality"]
    drawn = t1["photo"]["defocus_sigma"] * (1 if pixel_blur else k)
    assert t["photo"]["defocus_sigma"] == pytest.approx(drawn, abs=0.02)
    small = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)  # the same picture
    assert np.abs(small.astype(int) - img1.astype(int)).mean() < 8


@pytest.mark.parametrize("bad", [0.5, 0, -1, 4.5, float("nan"), float("inf"), "two", None])
def test_scaled_render_rejects_bad_scales(bad):
    from tablescore.errors import BadInput

    with pytest.raises(BadInput, match="scale"):
        render_scene("magic-rabbit", 1, 1, bad)


@pytest.mark.parametrize("kind,settings", [
    ("defocus_sigma", dict(defocus_p=1.0, motion_p=0.0)),
    ("motion_px", dict(defocus_p=0.0, motion_p=1.0)),
])
@pytest.mark.parametrize("k", [1.0, 2.0, 3.0])
def test_finish_photo_blur_follows_the_scale(kind, settings, k):
    from vision.synth.camera import PhotoSettings, finish_photo

    p = PhotoSettings(**settings)
    img = np.full((int(96 * k), int(128 * k), 3), 128, np.uint8)
    base, scaled, own = {}, {}, {}
    finish_photo(np.random.default_rng(7), img[:96, :128], p, base)
    out = finish_photo(np.random.default_rng(7), img, p, scaled, blur_scale=k)
    finish_photo(np.random.default_rng(7), img, p, own, blur_scale=1.0)
    assert out.shape == img.shape
    assert scaled[kind] == pytest.approx(base[kind] * k, abs=0.51)  # (a streak: whole px)
    assert own[kind] == base[kind]
    assert scaled["noise_sigma"] == base["noise_sigma"]


def test_finish_photo_noise_on_a_photo_larger_than_the_tile():
    from vision.synth.camera import NOISE_TILE, PhotoSettings, finish_photo

    img = np.full((NOISE_TILE + 200, NOISE_TILE + 600, 3), 128, np.uint8)
    rec = {}
    out = finish_photo(np.random.default_rng(3), img, PhotoSettings(noise_sigma=(3.0, 3.0),
                       glare_p=0.0, defocus_p=0.0, motion_p=0.0, shadow_p=0.0,
                       hard_shadow_p=0.0, jpeg_quality=(95, 95), gradient=0.0, harsh_p=0.0,
                       wb=0.0, exposure=(1.0, 1.0)), rec, blur_scale=2.0)
    assert out.shape == img.shape
    for part in (out[:400, :400], out[-400:, -400:]):  # per-pixel noise everywhere
        assert 1.5 < float(part[..., 1].astype(float).std()) < 6.0


def test_cli_synth_scale(run_cli, tmp_path):
    code, out = run_cli("synth", "--game", "magic-rabbit", "--count", "1", "--seed", "3",
                        "--scale", "1.5", "--out", tmp_path / "s")
    assert code == 0 and out["scale"] == 1.5
    truth = json.loads(next((tmp_path / "s").glob("*.json")).read_text())
    img = cv2.imread(str(next((tmp_path / "s").glob("*.jpg"))))
    assert img.shape[1::-1] == (truth["image"]["width"], truth["image"]["height"])
    assert max(img.shape[:2]) == 1920
    for bad in ("0.9", "5", "nan"):
        code, out = run_cli("synth", "--game", "magic-rabbit", "--scale", bad,
                            "--out", tmp_path / "b")
        assert code == 2 and "scale" in out["error"]["message"]
    code, out = run_cli("synth", "--game", "magic-rabbit", "--scale", "2", "--crops",
                        "--out", tmp_path / "c")
    assert code == 2 and "--crops" in out["error"]["message"]
