"""End to end: committed synthetic scenes of the card games through `tablescore score` (the
`run_cli` fixture), compared with their ground truth; bad input gets the contract's errors."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from scoring.labels import TROETO_LABELS

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "datasets" / "scenes"
MODELS = ROOT / "models"

pytestmark = pytest.mark.skipif(
    not (MODELS / "cardkeys.onnx").is_file() or not (MODELS / "cards.onnx").is_file(),
    reason="card models not trained",
)


def _truth(game: str, name: str) -> tuple[Path, dict]:
    jpg = SCENES / game / f"{name}.jpg"
    return jpg, json.loads(jpg.with_suffix(".json").read_text())


# Scenes the reader gets exactly right (see docs/cards.md for the rates over all scenes).
EXACT = [
    ("magic-rabbit", "magic-rabbit-e1-s1-0001"),
    ("magic-rabbit", "magic-rabbit-e1-s1-0002"),
    ("hop-la-bille", "hop-la-bille-e1-s1-0003"),  # 3 players, face-down cards among them
    ("hop-la-bille", "hop-la-bille-e1-s1-0001"),  # Not Time: one red card each
]


@pytest.mark.slow
@pytest.mark.parametrize("game,name", EXACT)
def test_scene_facts_exact(run_cli, game, name):
    jpg, truth = _truth(game, name)
    code, out = run_cli("score", jpg, "--game", game, "--json")
    assert code == 0, out
    assert out["game"] == game
    assert out["image"] == truth["image"]
    if game == "hop-la-bille":
        assert out["facts"]["cards"] == truth["facts"]["cards"]
        assert isinstance(out["score"]["completed"], dict)
        assert not any("cards are not read" in w for w in out["warnings"])
    else:
        assert out["area"] is None
        assert out["facts"] == truth["facts"]
    if game == "magic-rabbit":
        assert out["score"]["won"] == truth["facts"]["won"]
        assert isinstance(out["score"]["wrong_positions"], list)
    for p in out["pieces"]:
        assert 0 <= p["confidence"] <= 1
        if p["label"].startswith(("hat-", "rabbit-", "card-", "elephant-")):
            assert len(p["polygon"]) == 4


@pytest.mark.slow
def test_troetofanten_scene(run_cli):
    """Fanned hands and the middle: the contract's shape, zones and labels from the
    catalogue, and most cards found (exact facts are not reached yet: docs/cards.md)."""
    jpg, truth = _truth("troetofanten", "troetofanten-e1-s1-0001")
    code, out = run_cli("score", jpg, "--game", "troetofanten", "--json")
    assert code == 0, out
    assert out["area"] is None
    zones = out["facts"]["zones"]
    assert set(zones) <= {"north", "east", "south", "west", "middle"}
    n_true = len(truth["pieces"])
    n_seen = sum(sum(c.values()) for c in zones.values())
    assert 0.6 * n_true <= n_seen <= 1.2 * n_true
    assert set(out["score"]["points"]) <= {"north", "east", "south", "west"}
    assert {p["label"] for p in out["pieces"]} <= set(TROETO_LABELS)


@pytest.mark.slow
def test_annotate_without_play_area(run_cli, tmp_path):
    jpg, _ = _truth("magic-rabbit", "magic-rabbit-e1-s1-0000")
    out_jpg = tmp_path / "annotated.jpg"
    code, out = run_cli("score", jpg, "--game", "magic-rabbit", "--annotate", out_jpg, "--json")
    assert code == 0, out
    img = cv2.imread(str(out_jpg))
    assert img is not None and img.shape[:2] == (960, 1280)


@pytest.mark.parametrize("game", ["magic-rabbit", "troetofanten"])
def test_blank_photo_has_no_pieces(run_cli, tmp_path, game):
    """A photo of an empty table: exit 3, the contract's error JSON."""
    p = tmp_path / "blank.png"
    rng = np.random.default_rng(0)
    img = np.clip(rng.normal(120, 3, (480, 640, 3)), 0, 255).astype(np.uint8)
    cv2.imwrite(str(p), img)
    code, out = run_cli("score", p, "--game", game, "--json")
    assert code == 3
    assert out["error"]["code"]


@pytest.mark.parametrize("game", ["magic-rabbit", "troetofanten"])
def test_not_a_photo(run_cli, tmp_path, game):
    p = tmp_path / "notes.jpg"
    p.write_text("not a jpeg")
    code, out = run_cli("score", p, "--game", game, "--json")
    assert code == 2
    assert out["error"]["code"]


@pytest.mark.parametrize("game,names", [
    # 0023 big tiles (the detector says ~70 px, 116 true), 0010 small ones (~75 said, 48 true)
    ("magic-rabbit", ("0000", "0003", "0010", "0016", "0023")),
    ("troetofanten", ("0000", "0003", "0005", "0010", "0012")),  # fans, slanted views
])
def test_piece_widths_follow_the_photo(game, names):
    """The reader's widths (`search_widths` + the width field) are the pieces' true widths,
    not the detector's typical size (off by 30-40 % on some of these scenes): 80 % of the
    matched pieces within 20 % (over all committed scenes: 91 % for both games)."""
    from vision.cards.dataset import piece_keys
    from vision.cards.read import CardReader
    from vision.image_io import load_photo

    reader = CardReader()
    ratios = []
    for name in names:
        jpg, truth = _truth(game, f"{game}-e1-s1-{name}")
        pieces, _ = reader.read_pieces(load_photo(jpg).image, game)
        for x, y, _kind, _ang, w, _lab in piece_keys(game, truth):
            near = [p for p in pieces if p.frame is not None
                    and np.hypot(*(p.key - np.array([x, y]))) < 0.25 * w]
            if near:
                ratios.append(near[0].width / w)
    assert len(ratios) >= 30
    assert np.mean(np.abs(np.log(ratios)) <= np.log(1.2)) >= 0.8, np.round(ratios, 2)
