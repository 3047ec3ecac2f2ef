"""Run the play-area network (`models/area.onnx`, trained by `python -m
vision.classify.train_area`): a probability map of "this pixel is the game's play area".

`area_input` is the one preprocessing shared by training and inference: the photo (uint8
BGR) turned landscape (portrait photos transposed), resized to `AREA_INPUT` (w, h) and
normalised like the crops (float32 NCHW RGB).
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from vision.classify.settings import MODELS_DIR
from vision.onnx_session import open_session
from vision.preprocess import CropSettings, crops_to_input

AREA_INPUT = (128, 96)  # network input (width, height), landscape
AREA_GAMES = ("simsala-hopp", "hop-la-bille")  # output channel order
AREA_MODEL_PATH = MODELS_DIR / "area.onnx"


def area_input(image_bgr: np.ndarray) -> tuple[np.ndarray, bool]:
    """(x (1, 3, h, w) float32, transposed): the network input for one photo."""
    img = image_bgr
    transposed = img.shape[0] > img.shape[1]
    if transposed:
        img = img.transpose(1, 0, 2)
    small = cv2.resize(img, AREA_INPUT, interpolation=cv2.INTER_AREA)
    return crops_to_input(small[None], CropSettings()), transposed


class AreaModel:
    def __init__(self, path: str | Path = AREA_MODEL_PATH, threads: int = 1):
        self.session, meta = open_session(
            path, "play-area", "python -m vision.classify.train_area", threads
        )
        self.games = tuple(json.loads(meta.get("games", json.dumps(AREA_GAMES))))

    def probability(self, image_bgr: np.ndarray, game: str, size: tuple[int, int]) -> np.ndarray:
        """float32 (size[1], size[0]) map in [0, 1] for a photo, resized to `size` (w, h)."""
        x, transposed = area_input(image_bgr)
        logits = self.session.run(None, {"input": x})[0][0, self.games.index(game)]
        p = 1.0 / (1.0 + np.exp(-logits))
        if transposed:
            p = p.T
        return cv2.resize(np.ascontiguousarray(p), size, interpolation=cv2.INTER_LINEAR)


_MODELS: dict[str, AreaModel] = {}


def get_area_model(path: str | Path = AREA_MODEL_PATH) -> AreaModel | None:
    """The cached area model, or None when the file is absent (colour heuristics only)."""
    key = str(path)
    if key not in _MODELS:
        if not Path(path).is_file():
            return None
        _MODELS[key] = AreaModel(path)
    return _MODELS[key]
