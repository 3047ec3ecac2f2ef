"""Key-point detection with the ONNX detector (`models/cardkeys.onnx`), no torch needed.

The network's output grid has one cell per `stride` input pixels; the input is the photo
scaled by `scale`. Decoding: local maxima (3 x 3) of each heat channel above `threshold`,
refined by the predicted sub-cell offset, each with the orientation and width read at its
cell. Coordinates: full working-image pixels (x right, y down).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.cards.geometry import area_scaled
from vision.onnx_session import open_session
from vision.preprocess import level_tables, put_lookup

MODELS_DIR = Path(__file__).resolve().parents[2] / "models"
DETECTOR_PATH = MODELS_DIR / "cardkeys.onnx"
KIND_PIECE, KIND_DOVE = 0, 1


@dataclass(frozen=True)
class DetectSettings:
    scale: float = 0.5  # photo -> network input
    stride: int = 2  # input pixels per output cell
    threshold: float = 0.3  # heat (sigmoid) a key point needs
    mean: tuple[float, float, float] = (0.5, 0.5, 0.5)  # RGB after /255
    std: tuple[float, float, float] = (0.25, 0.25, 0.25)
    size_ref: float = 50.0  # width = size_ref * exp(predicted log size)


@dataclass(frozen=True)
class Keypoints:
    """K key points: xy (K, 2) float64 image px, kind (K,) int (0 piece, 1 dove),
    score (K,) float32 heat, angle (K,) degrees, width (K,) px."""

    xy: np.ndarray
    kind: np.ndarray
    score: np.ndarray
    angle: np.ndarray
    width: np.ndarray

    def __len__(self) -> int:
        return len(self.xy)

    def select(self, mask) -> Keypoints:
        return Keypoints(self.xy[mask], self.kind[mask], self.score[mask], self.angle[mask],
                         self.width[mask])


def to_input(image_bgr: np.ndarray, s: DetectSettings) -> np.ndarray:
    """(H, W, 3) uint8 BGR photo -> (1, 3, h, w) float32 RGB normalised, h and w padded (edge
    replicate) to multiples of 8. The same numbers as `small_to_input` (one table lookup per
    pixel instead of five passes of float arithmetic over the image, written plane by plane
    into the network's layout)."""
    small = area_scaled(image_bgr, s.scale)  # (within `keeping_scaled`: shared, not written)
    h, w = small.shape[:2]
    ph, pw = (-h) % 8, (-w) % 8
    if ph or pw:
        small = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
    out = np.empty((1, 3) + small.shape[:2], np.float32)
    bgr = cv2.split(small)
    for c, table in enumerate(level_tables(tuple(s.mean), tuple(s.std))):  # (RGB)
        put_lookup(bgr[2 - c], table, out[0, c])
    return out


def small_to_input(small_bgr: np.ndarray, s: DetectSettings) -> np.ndarray:
    """Already scaled (N?, h, w, 3) uint8 BGR -> (N, 3, h', w') float32 (shared by training)."""
    x = np.asarray(small_bgr)
    if x.ndim == 3:
        x = x[None]
    h, w = x.shape[1:3]
    ph, pw = (-h) % 8, (-w) % 8
    if ph or pw:
        x = np.pad(x, ((0, 0), (0, ph), (0, pw), (0, 0)), mode="edge")
    x = x[..., ::-1].astype(np.float32) / 255.0
    x = (x - np.asarray(s.mean, np.float32)) / np.asarray(s.std, np.float32)
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def decode(maps: np.ndarray, s: DetectSettings, image_shape=None) -> Keypoints:
    """(7, h, w) float32 network output -> key points in full-image pixels."""
    heat = np.negative(maps[:2])  # (1 / (1 + exp(-maps)), the same ufuncs in place)
    np.exp(heat, out=heat)
    np.add(heat, 1.0, out=heat)
    np.divide(1.0, heat, out=heat)
    xs, ys, kinds, scores, angs, widths = [], [], [], [], [], []
    for k in range(2):
        hk = heat[k].astype(np.float32, copy=False)
        peak = (hk == cv2.dilate(hk, np.ones((3, 3), np.uint8))) & (hk >= s.threshold)
        iy, ix = np.divmod(np.flatnonzero(peak), peak.shape[1])  # (`np.nonzero`'s, in its
        #   row-major order: a tenth of the time on a sparse map)
        cx = ix + maps[2, iy, ix]
        cy = iy + maps[3, iy, ix]
        # cell -> scaled-input pixel -> full pixel (area resize: small px i ~ full 2i + 0.5)
        f = 1.0 / s.scale
        xs.append(((cx * s.stride + (s.stride - 1) / 2) + 0.5) * f - 0.5)
        ys.append(((cy * s.stride + (s.stride - 1) / 2) + 0.5) * f - 0.5)
        kinds.append(np.full(len(ix), k))
        scores.append(hk[iy, ix])
        angs.append(np.degrees(np.arctan2(maps[5, iy, ix], maps[4, iy, ix])))
        widths.append(s.size_ref * np.exp(np.clip(maps[6, iy, ix], -3, 3)))
    xy = np.stack([np.concatenate(xs), np.concatenate(ys)], 1).astype(np.float64)
    kp = Keypoints(xy, np.concatenate(kinds).astype(int), np.concatenate(scores),
                   np.concatenate(angs).astype(np.float64),
                   np.concatenate(widths).astype(np.float64))
    if image_shape is not None:
        h, w = image_shape[:2]
        inside = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
        kp = kp.select(inside)
    return kp


class KeyDetector:
    """The ONNX key-point detector; settings come from the model's metadata."""

    def __init__(self, path: str | Path = DETECTOR_PATH, threads: int = 2):
        self.session, meta = open_session(path, "detector", "python -m vision.cards.train",
                                          threads)
        d = json.loads(meta["detect"])
        self.settings = DetectSettings(**{k: tuple(v) if isinstance(v, list) else v
                                          for k, v in d.items()
                                          if k in DetectSettings.__dataclass_fields__})
        self._path = path
        self.threads = threads  # the reader's own session's intra-op threads (0: onnxruntime's
        #   count)
        self._sessions = {threads: self.session}  # by intra-op threads (`detect`'s `threads`)
        self._lock = threading.Lock()

    def detect(self, image_bgr: np.ndarray, threshold: float | None = None,
               threads: int | None = None) -> Keypoints:
        """`threads`: run on a session of that many intra-op threads (made when first asked,
        then kept; None: the reader's own). The same numbers with any count: onnxruntime
        splits each layer's outputs between its threads, not the sums that make one."""
        s = self.settings
        if threshold is not None:
            from dataclasses import replace

            s = replace(s, threshold=threshold)
        (maps,) = self._session(threads).run(None, {"input": to_input(image_bgr, s)})
        return decode(maps[0], s, image_bgr.shape)

    def _session(self, threads: int | None):
        if threads is None:
            return self.session
        with self._lock:
            if threads not in self._sessions:
                self._sessions[threads], _ = open_session(
                    self._path, "detector", "python -m vision.cards.train", threads)
            return self._sessions[threads]


def merge_keys(kp: Keypoints, more: Keypoints, thresholds: tuple[float, float],
               reach: float, added: tuple[float, float] | None = None) -> Keypoints:
    """`kp` and the key points of `more` (the detector on another view of the same photo)
    that `kp` lacks: each of `more`'s of at least its kind's heat in `added` ((piece, dove);
    default `thresholds`) with no key point of its kind of at least that kind's
    `thresholds` heat in `kp` within `reach` x the larger of the two widths. `kp`'s own
    key points stay as they are, first and in their order (the added ones follow), so a
    photo whose key points the other view only repeats reads as before."""
    if not len(more):
        return kp
    thr = np.asarray(thresholds, np.float64)
    bar = thr if added is None else np.asarray(added, np.float64)
    strong_kp = kp.score >= thr[kp.kind]
    add = np.zeros(len(more), bool)
    js = np.flatnonzero(more.score >= bar[more.kind])  # (all at once: a noisy photo has
    #   a thousand key points in each view, one at a time took 0.5 s)
    same = strong_kp[None] & (kp.kind[None] == more.kind[js][:, None])
    d = np.hypot(*(kp.xy[None] - more.xy[js][:, None]).transpose(2, 0, 1))
    near = same & (d <= reach * np.maximum(kp.width[None], more.width[js][:, None]))
    add[js] = ~near.any(axis=1)
    if not add.any():
        return kp
    extra = more.select(add)
    return Keypoints(np.concatenate([kp.xy, extra.xy]), np.concatenate([kp.kind, extra.kind]),
                     np.concatenate([kp.score, extra.score]),
                     np.concatenate([kp.angle, extra.angle]),
                     np.concatenate([kp.width, extra.width]))
