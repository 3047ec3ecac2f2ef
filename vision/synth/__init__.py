"""Synthetic table photos with ground truth (issue 4): the classifier's training data and the
committed test scenes. See docs/synth.md.

Public API:
- ``render_scene(game, seed, edition=1) -> (image (H, W, 3) uint8 BGR, truth dict)``
- ``write_scenes(game, count, seed, out_dir, edition=1) -> list[Path]``
- ``iter_crops(game, n_scenes, seed, edition=1)`` yields ``(crop_bgr, label)``
- ``export_crops(game, n_scenes, seed, out_dir, edition=1) -> {label: count}``
"""

# (imported on first use, PEP 562: every `tablescore` command registers `vision.synth.cli`,
# a module of this package; importing the renderer there cost each one-shot call ~75 ms with
# bytecode cached, ~110 ms without; session 17, H10)
_FROM = {"contact_sheet": "dataset", "draw_truth": "dataset", "export_crops": "dataset",
         "iter_crops": "dataset", "scene_seed": "dataset", "write_scenes": "dataset",
         "EDITIONS": "render", "GAME_MODULES": "render", "render_scene": "render"}

__all__ = [
    "EDITIONS", "GAMES", "contact_sheet", "draw_truth", "export_crops", "iter_crops",
    "render_scene", "scene_seed", "write_scenes",
]


def __getattr__(name: str):
    import importlib

    if name == "GAMES":
        return tuple(importlib.import_module("vision.synth.render").GAME_MODULES)
    if name in _FROM:
        return getattr(importlib.import_module(f"vision.synth.{_FROM[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
