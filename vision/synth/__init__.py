"""Synthetic table photos with ground truth (issue 4): the classifier's training data and the
committed test scenes. See docs/synth.md.

Public API:
- ``render_scene(game, seed, edition=1) -> (image (H, W, 3) uint8 BGR, truth dict)``
- ``write_scenes(game, count, seed, out_dir, edition=1) -> list[Path]``
- ``iter_crops(game, n_scenes, seed, edition=1)`` yields ``(crop_bgr, label)``
- ``export_crops(game, n_scenes, seed, out_dir, edition=1) -> {label: count}``
"""

from vision.synth.dataset import (
    contact_sheet,
    draw_truth,
    export_crops,
    iter_crops,
    scene_seed,
    write_scenes,
)
from vision.synth.render import EDITIONS, GAME_MODULES, render_scene

GAMES = tuple(GAME_MODULES)

__all__ = [
    "EDITIONS", "GAMES", "contact_sheet", "draw_truth", "export_crops", "iter_crops",
    "render_scene", "scene_seed", "write_scenes",
]
