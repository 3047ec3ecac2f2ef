"""`Detections`: the one immutable type that carries recognised pieces from vision to scoring.

Parallel arrays in the style of supervision's `Detections`, validated on construction; boolean
or integer indexing returns a new `Detections`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Detections:
    """N recognised pieces.

    labels: (N,) str; zones: (N,) str; confidence: (N,) float32 in [0, 1];
    centers: (N, 2) float32 image pixels (x, y); polygons: list of N (K, 2) float32 arrays
    (4 corners for tiles and cards) or None for round pieces.
    """

    labels: np.ndarray
    zones: np.ndarray
    confidence: np.ndarray
    centers: np.ndarray
    polygons: tuple = field(default=())

    def __post_init__(self):
        labels = np.asarray(self.labels, dtype=object).reshape(-1)
        n = len(labels)
        zones = np.asarray(self.zones, dtype=object).reshape(-1)
        conf = np.asarray(self.confidence, dtype=np.float32).reshape(-1)
        centers = np.asarray(self.centers, dtype=np.float32)
        if centers.size == 0:
            centers = centers.reshape(0, 2)
        polygons = tuple(self.polygons) if len(self.polygons) else (None,) * n
        if zones.shape != (n,) or conf.shape != (n,) or centers.shape != (n, 2):
            raise ValueError(
                f"Detections arrays disagree: labels {labels.shape}, zones {zones.shape}, "
                f"confidence {conf.shape}, centers {centers.shape} (expected (N, 2))"
            )
        if len(polygons) != n:
            raise ValueError(f"expected {n} polygons, got {len(polygons)}")
        polygons = tuple(
            None if p is None else np.asarray(p, dtype=np.float32).reshape(-1, 2)
            for p in polygons
        )
        if n and (np.any(conf < 0) or np.any(conf > 1)):
            raise ValueError(f"confidence must lie in [0, 1], got {conf.min()}..{conf.max()}")
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "zones", zones)
        object.__setattr__(self, "confidence", conf)
        object.__setattr__(self, "centers", centers)
        object.__setattr__(self, "polygons", polygons)

    @classmethod
    def empty(cls) -> Detections:
        return cls(labels=[], zones=[], confidence=[], centers=np.zeros((0, 2)), polygons=())

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, index) -> Detections:
        idx = np.arange(len(self))[index]
        idx = np.atleast_1d(idx)
        return Detections(
            labels=self.labels[idx],
            zones=self.zones[idx],
            confidence=self.confidence[idx],
            centers=self.centers[idx],
            polygons=tuple(self.polygons[i] for i in idx),
        )

    def counts(self) -> dict[str, dict[str, int]]:
        """``{zone: {label: count}}``."""
        out: dict[str, Counter] = {}
        for label, zone in zip(self.labels, self.zones, strict=True):
            out.setdefault(zone, Counter())[label] += 1
        return {z: dict(c) for z, c in out.items()}

    def to_json(self) -> list[dict]:
        """The contract's ``pieces`` list."""
        return [
            {
                "label": str(self.labels[i]),
                "zone": str(self.zones[i]),
                "confidence": round(float(self.confidence[i]), 4),
                "center": [round(float(v), 1) for v in self.centers[i]],
                "polygon": None
                if self.polygons[i] is None
                else [[round(float(x), 1), round(float(y), 1)] for x, y in self.polygons[i]],
            }
            for i in range(len(self))
        ]
