"""vision.light_eval: the stress lights act as their names say, on tiny synthetic photos, and
repeat exactly for the same photo name."""

import numpy as np
import pytest

from vision.light_eval import LIGHTS, in_linear, lit_scenes, photo_rng, table


def _grey(level: int = 150, h: int = 40, w: int = 60) -> np.ndarray:
    return np.full((h, w, 3), level, np.uint8)


def test_in_linear_unit_gain_is_identity():
    levels = np.arange(256, dtype=np.uint8).reshape(16, 16, 1).repeat(3, axis=2)
    assert np.array_equal(in_linear(levels, np.ones(3)), levels)


@pytest.mark.parametrize("light, order", [
    ("tungsten", (0, 1, 2)),  # warm: B < G < R on a grey card
    ("daylight", (2, 1, 0)),  # cool: R < G < B
])
def test_casts_tint_grey(light, order):
    out = LIGHTS[light](_grey(), photo_rng("a", light)).astype(int)
    px = out[10, 10]
    assert px[order[0]] < px[order[1]] < px[order[2]]
    assert (out == px).all()  # channel gains only: the same everywhere


def test_dim_is_darker_noisy_and_repeatable():
    img = _grey(180, 64, 64)
    a = LIGHTS["dim"](img, photo_rng("x.jpg", "dim"))
    b = LIGHTS["dim"](img, photo_rng("x.jpg", "dim"))
    c = LIGHTS["dim"](img, photo_rng("y.jpg", "dim"))
    assert a.shape == img.shape and a.dtype == np.uint8
    assert a.mean() < 0.85 * 180  # darker
    assert a.std() > 0.5  # noisy
    assert np.array_equal(a, b) and not np.array_equal(a, c)  # seeded by the photo's name


def test_shadow_darkens_one_side_bluer():
    img = _grey(200, 80, 80)
    out = LIGHTS["shadow"](img, photo_rng("s", "shadow")).astype(int)
    v = out.mean(axis=2)
    dark = v < 150
    assert 0.05 < dark.mean() < 0.95  # part of the photo, not all
    assert (v == 200).mean() > 0.05  # the lit part as it was (beyond the soft edge)
    px = out[dark][0]
    assert px[0] > px[2]  # the shadow is lit by the bluer sky


def test_glare_brightens_a_spot_only():
    img = _grey(100, 100, 100)
    out = LIGHTS["glare"](img, photo_rng("g", "glare")).astype(int)
    assert out.max() >= 230  # washed out at the spot
    assert (out == 100).mean() > 0.2  # far from it, as it was


def test_lit_scenes_copies_truths(tmp_path):
    import cv2
    src = tmp_path / "src"
    src.mkdir()
    for i in range(3):
        cv2.imwrite(str(src / f"s{i}.jpg"), _grey(120 + i))
        (src / f"s{i}.json").write_text('{"pieces": []}')
    out = lit_scenes(src, tmp_path / "out", "tungsten", limit=2)
    assert sorted(p.name for p in out.iterdir()) == ["s0.jpg", "s0.json", "s1.jpg", "s1.json"]


def test_table_lists_games_and_lights():
    r = {"scenes": 2, "piece_error": 0.125, "facts_exact_count": 1, "not_found": 1,
         "cpu_ms_per_photo": 100.0}
    text = table({"magic-rabbit": {"normal": r, "harsh": r}})
    assert "| game | normal | harsh |" in text
    assert "12.50 % (1/2) 1 no area" in text


def _scene(game: str, n: int):
    import json
    from pathlib import Path

    import cv2
    p = Path("datasets/scenes") / game / f"{game}-e1-s1-{n:04d}.jpg"
    return cv2.imread(str(p)), json.loads(p.with_suffix(".json").read_text())


@pytest.mark.slow
@pytest.mark.parametrize("light", ["tungsten", "normal"])
def test_mauer_board_under_tungsten(light):
    # scene 19's board was turned under the warm lamp (start colours read absolutely)
    from scoring.mauerhuepfer import load_board
    from vision.mauer import read_mauer
    from vision.mauer_eval import compare
    img, truth = _scene("mauerhuepfer", 19)
    img = LIGHTS[light](img, photo_rng("19", light))
    r = read_mauer(img, load_board(), with_dice=False)
    n_true, right, extra = compare(r.pieces, truth, with_dice=False)
    assert right == n_true and extra == 0
