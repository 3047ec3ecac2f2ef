"""Colour jitter shared by the trainings: white balance, brightness, contrast, saturation and
sensor noise, so a model does not learn our renderer's exact colours."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ColourJitter:
    white_balance: float = 0.15  # per-channel gain drawn from 1 +- this
    brightness: float = 0.3  # overall gain 1 +- this
    contrast: float = 0.25  # spread around the image mean, 1 +- this
    saturation: float = 0.3  # spread around each pixel's grey, 1 +- this
    noise_max: float = 8.0  # sensor-noise sigma (grey levels) drawn from [0, this]


def colour_jitter(images: np.ndarray, rng: np.random.Generator, s: ColourJitter) -> np.ndarray:
    """Jittered copies of (N, H, W, 3) uint8 BGR images (same shape and dtype)."""
    n = len(images)
    x = images.astype(np.float32)
    x *= rng.uniform(1 - s.white_balance, 1 + s.white_balance, (n, 1, 1, 3)).astype(np.float32)
    x *= rng.uniform(1 - s.brightness, 1 + s.brightness, (n, 1, 1, 1)).astype(np.float32)
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    x = (x - mean) * rng.uniform(1 - s.contrast, 1 + s.contrast, (n, 1, 1, 1)).astype(
        np.float32
    ) + mean
    grey = x.mean(axis=3, keepdims=True)
    x = (x - grey) * rng.uniform(1 - s.saturation, 1 + s.saturation, (n, 1, 1, 1)).astype(
        np.float32
    ) + grey
    sigma = rng.uniform(0, s.noise_max, (n, 1, 1, 1)).astype(np.float32)
    x += rng.standard_normal(x.shape).astype(np.float32) * sigma
    return np.clip(x, 0, 255).astype(np.uint8)
