"""Run the ONNX crop classifier with onnxruntime (no torch needed).

The model file carries its class names and crop preprocessing settings in its metadata
(`classes`: JSON list, `crop`: JSON `CropSettings`), so inference never guesses them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.onnx_session import open_session
from vision.preprocess import CropSettings, crops_to_input


@dataclass(frozen=True)
class Prediction:
    """probs: (N, C) float32; embedding: (N, D) float32 L2-normalised."""

    probs: np.ndarray
    embedding: np.ndarray


class PieceClassifier:
    def __init__(self, path: str | Path, threads: int = 2):
        self.session, meta = open_session(
            path, "classifier", "python -m vision.classify.train", threads
        )
        self.classes: tuple[str, ...] = tuple(json.loads(meta["classes"]))
        self.crop = CropSettings.from_metadata(json.loads(meta["crop"]))
        self.metadata = dict(meta)
        self._index = {c: i for i, c in enumerate(self.classes)}

    def index(self, label: str) -> int:
        return self._index[label]

    def predict(self, crops_bgr: np.ndarray) -> Prediction:
        """Classify (N, S, S, 3) uint8 BGR crops in one batch."""
        if len(crops_bgr) == 0:
            return Prediction(np.zeros((0, len(self.classes)), np.float32),
                              np.zeros((0, 0), np.float32))
        probs, emb = self.session.run(None, {"input": crops_to_input(crops_bgr, self.crop)})
        return Prediction(probs=probs, embedding=emb)
