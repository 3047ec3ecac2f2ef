"""The whole pipeline on committed synthetic scenes (datasets/scenes/<game>) against their
ground truth, through `score_photo` and through the CLI."""

import json
from pathlib import Path

import numpy as np
import pytest

from vision.evaluate import comparable_facts, match
from vision.pipeline import VISION_GAMES, score_photo

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "datasets" / "scenes"
KEYS = {"game", "image", "area", "pieces", "facts", "score", "warnings", "timings_ms"}
OPTIONS = {"simsala-hopp": {"magician": "blue", "players": "yellow,orange,blue,violet"},
           "hop-la-bille": {"variant": "normal"}}


def scenes(game, n=3):
    return sorted((SCENES / game).glob("*.jpg"))[:n]


@pytest.mark.slow
@pytest.mark.parametrize("game", ["simsala-hopp", "hop-la-bille"])
def test_score_photo_matches_truth(game, tmp_path):
    exact = 0
    right = total = 0
    for img in scenes(game):
        truth = json.loads(img.with_suffix(".json").read_text())
        out = score_photo(img, game, OPTIONS[game], annotate=str(tmp_path / "a.jpg"))
        assert set(out) == KEYS
        assert out["image"] == truth["image"]
        # the area's corners within 2 % of the photo's width of the truth's (any start corner)
        a, t = np.array(out["area"]), np.array(truth["area"])
        assert min(np.abs(np.roll(a, k, 0) - t).max() for k in range(4)) < \
            0.02 * truth["image"]["width"]
        true_pieces = [p for p in truth["pieces"] if p["label"] in VISION_GAMES[game].labels]
        for i, j in match(out["pieces"], true_pieces):
            if i is not None and j is not None:
                right += (out["pieces"][i]["label"] == true_pieces[j]["label"]
                          and out["pieces"][i]["zone"] == true_pieces[j]["zone"])
        total += len(true_pieces)
        exact += comparable_facts(game, out["facts"]) == comparable_facts(game, truth["facts"])
        assert out["timings_ms"]["total"] > 0
        assert ("points" if game == "simsala-hopp" else "completed") in out["score"]
        assert (tmp_path / "a.jpg").stat().st_size > 1000
    assert right / total >= 0.9
    assert exact >= 2


@pytest.mark.slow
def test_cli_score_photo(run_cli):
    img = scenes("simsala-hopp", 1)[0]
    code, out = run_cli("score", img, "--game", "simsala-hopp", "--magician", "yellow", "--json")
    assert code == 0 and set(out) == KEYS
    assert set(out["score"]["points"]) >= {"yellow"}
    for p in out["pieces"]:
        assert p["zone"] in ("arena", "outside") and len(p["polygon"]) == 4
        assert 0 <= p["confidence"] <= 1


@pytest.mark.slow
def test_evaluate_and_bench_commands(run_cli, tmp_path):
    folder = tmp_path / "few"
    folder.mkdir()
    for img in scenes("hop-la-bille", 2):
        for suffix in (".jpg", ".json"):
            (folder / (img.stem + suffix)).write_bytes(img.with_suffix(suffix).read_bytes())
    png = tmp_path / "cm.png"
    code, out = run_cli("evaluate", "--game", "hop-la-bille", folder, "--json",
                        "--confusion-png", png)
    assert code == 0 and out["scenes"] == 2 and png.stat().st_size > 1000
    assert set(out["per_class"]) == {"marble-yellow", "marble-red", "marble-green",
                                     "marble-lightblue", "marble-darkblue",  # and the cards
                                     "card-green", "card-blue", "card-red", "card-back"}
    assert 0 <= out["facts_exact"] <= 1
    rows = out["confusion"]["rows_true_cols_predicted"]
    assert sum(map(sum, rows)) >= out["pieces_true"]
    code, out = run_cli("bench", "--game", "hop-la-bille", "--repeat", "1",
                        *scenes("hop-la-bille", 2), "--json")
    assert code == 0 and out["runs"] == 2
    assert set(out["stages_ms"]) >= {"decode", "area", "segment", "classify", "scoring",
                                     "quality", "total"}
    assert out["stages_ms"]["quality"]["median"] > 0  # timed as `tablescore score` runs it
    assert out["stages_ms"]["total"]["median"] <= out["stages_ms"]["total"]["p90"]


def test_evaluate_folder_errors(run_cli, tmp_path):
    code, out = run_cli("evaluate", "--game", "simsala-hopp", tmp_path / "missing", "--json")
    assert code == 2 and "not found" in out["error"]["message"]
    code, out = run_cli("evaluate", "--game", "simsala-hopp", tmp_path, "--json")
    assert code == 2 and "no scenes" in out["error"]["message"]


@pytest.mark.slow
def test_large_photo_coordinates_are_in_original_pixels(tmp_path):
    import cv2

    img_path = scenes("simsala-hopp", 1)[0]
    img = cv2.imread(str(img_path))
    big = cv2.resize(img, None, fx=2, fy=2, interpolation=cv2.INTER_LINEAR)
    p = tmp_path / "big.jpg"
    cv2.imwrite(str(p), big, [cv2.IMWRITE_JPEG_QUALITY, 92])
    small_out = score_photo(img_path, "simsala-hopp", OPTIONS["simsala-hopp"])
    big_out = score_photo(p, "simsala-hopp", OPTIONS["simsala-hopp"])
    assert big_out["image"] == {"width": 2 * img.shape[1], "height": 2 * img.shape[0]}
    a, b = np.array(small_out["area"]), np.array(big_out["area"])
    assert min(np.abs(np.roll(b, k, 0) - 2 * a).max() for k in range(4)) < 0.02 * b.max()
    assert len(big_out["pieces"]) >= len(small_out["pieces"]) - 1


def _piece(label, x, y, r=10.0):
    return {"label": label, "center": [x, y], "radius": r}


@pytest.mark.parametrize("pred,truth,pairs", [
    # nearest first
    ([_piece("frog", 0, 0)], [_piece("frog", 3, 0), _piece("frog", 1, 0)], [(0, 1), (None, 0)]),
    # a dove on a hat: each prediction pairs with the true piece of its own label, though the
    # other lies nearer
    ([_piece("dove", 0, 0), _piece("hat-7", 4, 0)], [_piece("hat-7", 0, 0), _piece("dove", 4, 0)],
     [(0, 1), (1, 0)]),
    # another label nearby still pairs (a wrong label is an error, not a miss plus an extra)
    ([_piece("cat", 0, 0)], [_piece("frog", 2, 0)], [(0, 0)]),
    # beyond half the piece's size: no pair
    ([_piece("cat", 0, 0)], [_piece("cat", 11, 0)], [(0, None), (None, 0)]),
    # an unlabelled candidate (the dataset builder's) pairs by distance alone
    ([{"center": [0, 0]}], [_piece("cat", 3, 0), _piece("frog", 1, 0)], [(0, 1), (None, 0)]),
])
def test_match(pred, truth, pairs):
    assert match(pred, truth) == pairs


class _CardStageFailed(Exception):
    pass


def test_hop_cards_on_their_thread_report_errors(monkeypatch):
    """Hop la bille's card stage runs on a second thread: its result joins the marbles', an
    error there reaches the caller, and an error of the marble stage is the one reported
    (the card thread is waited for, not left running)."""
    from vision.errors import NoPieces
    from vision.pipeline import Pipeline

    img = scenes("hop-la-bille", 1)[0]
    pipe = Pipeline()
    rec = pipe.recognise(img, "hop-la-bille")
    assert "cards" in rec.facts and rec.timings_ms["cards"] > 0
    labels = [str(lab) for lab in rec.detections.labels]
    assert any(lab.startswith("card-") for lab in labels)  # the card thread's pieces
    assert any(lab.startswith("marble-") for lab in labels)  # and this thread's

    def card_fails(*a, **k):
        raise _CardStageFailed("card stage")

    monkeypatch.setattr(pipe, "_timed_cards", card_fails)
    with pytest.raises(_CardStageFailed):
        pipe.recognise(img, "hop-la-bille")
    done = []

    def slow_cards(*a, **k):
        import time

        time.sleep(0.2)
        done.append(True)
        raise _CardStageFailed("card stage")

    def no_marbles(*a, **k):
        raise NoPieces("no marbles")

    monkeypatch.setattr(pipe, "_timed_cards", slow_cards)
    monkeypatch.setattr(pipe, "_pieces", no_marbles)
    with pytest.raises(NoPieces):
        pipe.recognise(img, "hop-la-bille")
    assert done == [True]


@pytest.mark.slow
@pytest.mark.parametrize("margin, found", [
    (1.5, True),  # the last look reaches it
    (0.0, False),  # without it the photo shows 14 of the 15 tiles
])
def test_a_tile_far_beyond_the_arena_is_found_when_one_is_missing(monkeypatch, margin, found):
    """simsala-hopp-e1-s1-0019: a blue rabbit lies about 0.9 arena sides beyond the far
    wall, past the first looks' margin; only `edge_tiles` (run because a tile is missing)
    reaches it."""
    from dataclasses import replace

    import vision.pipeline as pipeline

    monkeypatch.setattr(pipeline, "TILE_SETTINGS",
                        replace(pipeline.TILE_SETTINGS, edge_margin=margin))
    img = SCENES / "simsala-hopp" / "simsala-hopp-e1-s1-0019.jpg"
    truth = json.loads(img.with_suffix(".json").read_text())
    out = score_photo(img, "simsala-hopp", OPTIONS["simsala-hopp"])
    blue = [p for p in out["pieces"] if p["label"] == "rabbit-blue" and p["zone"] == "outside"]
    assert len(blue) == int(found)
    assert (comparable_facts("simsala-hopp", out["facts"])
            == comparable_facts("simsala-hopp", truth["facts"])) == found
    if found:
        assert np.hypot(blue[0]["center"][0] - 1132, blue[0]["center"][1] - 74) < 15


@pytest.mark.slow
@pytest.mark.parametrize("square_min, found", [
    (0.5, True),  # the outline look finds it
    (0.0, False),  # without it the photo shows 14 of the 15 tiles
])
def test_a_white_tile_on_white_checks_is_found_by_its_outline(monkeypatch, square_min, found):
    """simsala-hopp-e1-s1-0015: a white rabbit outside the arena on white checks; its edge
    merges with a check's, so no region closes around it, but `outline_squares` sees its four
    sides, and the last look says it found it so."""
    from dataclasses import replace

    import vision.pipeline as pipeline

    monkeypatch.setattr(pipeline, "TILE_SETTINGS",
                        replace(pipeline.TILE_SETTINGS, square_min=square_min))
    img = SCENES / "simsala-hopp" / "simsala-hopp-e1-s1-0015.jpg"
    truth = json.loads(img.with_suffix(".json").read_text())
    out = score_photo(img, "simsala-hopp", OPTIONS["simsala-hopp"])
    white = [p for p in out["pieces"] if p["label"] == "rabbit-white" and p["zone"] == "outside"
             and np.hypot(p["center"][0] - 839, p["center"][1] - 216) < 15]
    assert len(white) == int(found)
    assert (comparable_facts("simsala-hopp", out["facts"])
            == comparable_facts("simsala-hopp", truth["facts"])) == found
    assert any("last look" in w for w in out["warnings"]) == found


def test_the_last_look_alone_when_the_first_finds_nothing(monkeypatch):
    """The first looks find no tile (their empty classifier output has a (0, 0) embedding):
    the last look's tiles are read on their own, and every candidate's outline is the square
    it was classified at (an outline square read again at 0.9 / 1.1 of a tile's side)."""
    import vision.pipeline as pipeline
    from vision.errors import NoPieces
    from vision.segment import Candidates

    monkeypatch.setattr(pipeline, "find_tiles", lambda *a: Candidates.empty())
    img = SCENES / "simsala-hopp" / "simsala-hopp-e1-s1-0015.jpg"
    try:
        rec = pipeline.get_pipeline().recognise(img, "simsala-hopp")
    except NoPieces:  # (nothing sure enough: still the named error, never a crash)
        return
    cand = rec.candidates
    assert len(cand) and len(rec.embeddings) == len(rec.detections)
    for poly, side in zip(cand.polygons, cand.sides, strict=True):
        if poly is not None:
            assert np.allclose(np.hypot(*(poly[1] - poly[0])), side)


@pytest.mark.slow
def test_a_dim_photo_brought_up_for_cloth_and_marbles(monkeypatch):
    """A committed Hop la bille scene under `light_eval`'s dim light (a fifth of the light,
    noise, gain 2): brought up by its own exposure (`vision.area.exposed`), the cloth is
    found where it lies and every marble is read; with the exposure off, the dim cloth was
    found hundreds of pixels off (its corners measured 867 px from the truth)."""
    from dataclasses import replace

    import cv2

    import vision.pipeline as vp
    from vision.light_eval import LIGHTS, photo_rng

    src = Path("datasets/scenes/hop-la-bille/hop-la-bille-e1-s1-0028.jpg")
    truth = json.loads(src.with_suffix(".json").read_text())
    dim = LIGHTS["dim"](cv2.imread(str(src)), photo_rng(src.name, "dim"))
    ok, buf = cv2.imencode(".jpg", dim, [cv2.IMWRITE_JPEG_QUALITY, 90])
    marbles = [p for p in truth["pieces"] if p["label"].startswith("marble")]

    def read():
        rec = vp.get_pipeline().recognise(buf.tobytes(), "hop-la-bille")
        off = np.hypot(*(np.array(rec.area.corners) * rec.photo.scale
                         - np.array(truth["area"])).T).max()
        pred = [p for p in rec.detections.to_json() if p["label"].startswith("marble")]
        right = sum(1 for i, j in match(pred, marbles) if i is not None and j is not None
                    and pred[i]["label"] == marbles[j]["label"])
        return off, right

    off, right = read()
    assert off < 25 and right == len(marbles)
    monkeypatch.setitem(vp.AREA_SETTINGS, "hop-la-bille",
                        replace(vp.AREA_SETTINGS["hop-la-bille"], expose_to=0.0))
    off, right = read()
    assert off > 100


@pytest.mark.slow
def test_a_photo_reads_the_same_whatever_was_read_before(monkeypatch):
    """A photo's contract JSON does not depend on what the process read before: edition 2
    Hop la bille scene 0003 under `vision.light_eval`'s tungsten light, read twice by one
    pipeline (its card thread's OpenCV generator moved on by the first reading), reads the
    same both times (session 15: unseeded k-means in `snap_card` read two card backs the
    first time, none the second)."""
    import cv2

    from vision.light_eval import tungsten
    from vision.pipeline import Pipeline

    img = cv2.imread(str(ROOT / "datasets" / "scenes-edition2" / "hop-la-bille"
                         / "hop-la-bille-e2-s2-0003.jpg"))
    photo = cv2.imencode(".jpg", tungsten(img), [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()
    calls = []
    kmeans = cv2.kmeans
    monkeypatch.setattr(cv2, "kmeans", lambda *a: calls.append(1) or kmeans(*a))
    pipe = Pipeline()  # (a card thread of its own: its generator in its starting state)
    first, second = (pipe.score(photo, "hop-la-bille", {}) for _ in range(2))
    assert calls  # (the photo needs the table's colours: the case this test is about)
    for out in (first, second):
        out.pop("timings_ms")
    assert second == first
