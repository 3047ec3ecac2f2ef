"""The one-shot cost of `tablescore dice` (session 17, H10): the CLI does not import the
scene renderer, and OpenCV's 8-bit Lab tables are built on one helper thread, joined before
the board gate, with the readings unchanged."""

import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

import tablescore.cmd_dice as C

ROOT = Path(__file__).resolve().parents[2]


def _modules_after(code: str) -> set[str]:
    code += "\nimport sys\nprint(' '.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    return set(out.stdout.split())


@pytest.mark.parametrize("code", [
    "from tablescore.cli import build_parser; build_parser()",
    "import vision.synth.cli",
    "import vision.synth",
])
def test_the_cli_parser_does_not_import_the_renderer(code):
    loaded = _modules_after(code)
    assert "vision.synth.dataset" not in loaded
    assert "vision.synth.render" not in loaded


@pytest.mark.parametrize("name,module", [
    ("render_scene", "render"), ("EDITIONS", "render"), ("GAME_MODULES", "render"),
    ("write_scenes", "dataset"), ("iter_crops", "dataset"), ("export_crops", "dataset"),
    ("contact_sheet", "dataset"), ("draw_truth", "dataset"), ("scene_seed", "dataset"),
])
def test_the_synth_package_names_resolve_on_first_use(name, module):
    import importlib

    import vision.synth as S

    assert getattr(S, name) is getattr(importlib.import_module(f"vision.synth.{module}"), name)
    assert name in S.__all__ or name == "GAME_MODULES"


def test_synth_games_and_unknown_names():
    import vision.synth as S
    from vision.synth.render import GAME_MODULES

    assert S.GAMES == tuple(GAME_MODULES) and len(S.GAMES) == 5
    with pytest.raises(AttributeError, match="no_such_name"):
        S.no_such_name  # noqa: B018


def test_the_lab_tables_thread_is_one_per_process_and_done_after_a_reading(tmp_path):
    first = C._lab_tables_ahead()
    assert C._lab_tables_ahead() is first
    img = np.full((120, 160, 3), 200, np.uint8)
    cv2.imwrite(str(tmp_path / "plain.png"), img)
    out = C.read_dice_photo(str(tmp_path / "plain.png"))
    assert out["dice"] == [] and not first.is_alive()
    assert C._lab_tables is first


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lab_after_the_tables_thread_is_lab_without_it(seed):
    C._lab_tables_ahead().join()
    code = ("import cv2, numpy as np, hashlib\n"
            f"img = np.random.default_rng({seed}).integers(0, 256, (37, 53, 3), dtype=np.uint8)\n"
            "print(hashlib.sha1(cv2.cvtColor(img, cv2.COLOR_BGR2LAB).tobytes()).hexdigest())")
    alone = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout.strip()
    img = np.random.default_rng(seed).integers(0, 256, (37, 53, 3), dtype=np.uint8)
    import hashlib

    assert hashlib.sha1(cv2.cvtColor(img, cv2.COLOR_BGR2LAB).tobytes()).hexdigest() == alone
