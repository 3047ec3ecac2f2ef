"""Run the ONNX crop classifier with onnxruntime (no torch needed).

The model file carries its class names and crop preprocessing settings in its metadata
(`classes`: JSON list, `crop`: JSON `CropSettings`), so inference never guesses them.
"""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from contextvars import ContextVar
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


_KEPT: ContextVar[dict | None] = ContextVar("kept_rows", default=None)
_KEPT_LOCK = threading.Lock()  # (a context's helper threads share its rows)


@contextmanager
def keeping_rows():
    """Within this (this context: the thread, and the helper threads started in a copy of
    it share it), each `PieceClassifier` made with `memo` keeps the rows of the crops it
    reads, and a crop read again (the same pixels) takes its kept rows instead of a second
    run (the card reader reads each photo within one: its angle search reads about 14 crops
    a Troetofanten photo that `read_crops` then reads again). The same numbers: the network
    reads each crop of a batch alone. Nothing is kept outside it; nested, the inner one
    keeps its own rows (another image: `second_look`'s) and the outer one's are back in
    force after it."""
    token = _KEPT.set({})
    try:
        yield
    finally:
        _KEPT.reset(token)


class PieceClassifier:
    def __init__(self, path: str | Path, threads: int = 2, memo: bool = False):
        self.session, meta = open_session(
            path, "classifier", "python -m vision.classify.train", threads
        )
        self.classes: tuple[str, ...] = tuple(json.loads(meta["classes"]))
        self.crop = CropSettings.from_metadata(json.loads(meta["crop"]))
        self.metadata = dict(meta)
        self._index = {c: i for i, c in enumerate(self.classes)}
        self.memo = memo  # (`keeping_rows`)

    def index(self, label: str) -> int:
        return self._index[label]

    def predict(self, crops_bgr: np.ndarray) -> Prediction:
        """Classify (N, S, S, 3) uint8 BGR crops in one batch."""
        if len(crops_bgr) == 0:
            return Prediction(np.zeros((0, len(self.classes)), np.float32),
                              np.zeros((0, 0), np.float32))
        kept = _KEPT.get() if self.memo else None
        if kept is None:
            return self._run(crops_bgr)
        keys = [c.tobytes() for c in crops_bgr]
        with _KEPT_LOCK:
            mine = kept.setdefault(self, {})  # crop -> (probs, embedding) rows
            rows = [mine.get(k) for k in keys]
        ask = [i for i, row in enumerate(rows) if row is None]
        if len(ask) == len(keys):
            pred = self._run(crops_bgr)
        else:  # (some read before: their kept rows, the rest run)
            new = self._run(crops_bgr[ask]) if ask else None
            for r, i in enumerate(ask):
                rows[i] = (new.probs[r], new.embedding[r])
            pred = Prediction(np.stack([p for p, _ in rows]), np.stack([e for _, e in rows]))
        probs, emb = pred.probs.copy(), pred.embedding.copy()  # (the caller may change its own)
        with _KEPT_LOCK:
            for i in ask:
                mine[keys[i]] = (probs[i], emb[i])
        return pred

    def _run(self, crops_bgr: np.ndarray) -> Prediction:
        probs, emb = self.session.run(None, {"input": crops_to_input(crops_bgr, self.crop)})
        return Prediction(probs=probs, embedding=emb)
