"""Point spread functions shared by the synthetic camera (`vision.synth.camera`) and the
readers that undo or match its blur (`vision.mauer_dice`): one module that imports only
cv2 and numpy, so both `vision.synth` and `vision` may import it without cycles."""

from __future__ import annotations

import cv2
import numpy as np


def streak_kernel(n: int, deg: float) -> np.ndarray:
    """A motion streak n px long, turned `deg` degrees counter-clockwise on screen from the
    image x axis (image y points down, so an image angle `a` measured clockwise is
    `deg = -a`): (n, n) float32 summing to 1 (a row of 1/n turned by bilinear warping about
    the kernel's centre, then normalised). The synthetic camera's motion blur is
    `cv2.filter2D(img, -1, streak_kernel(n, deg))`."""
    k = np.zeros((n, n), np.float32)
    k[n // 2, :] = 1.0 / n
    k = cv2.warpAffine(k, cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), deg, 1.0),
                       (n, n))
    return k / max(k.sum(), 1e-6)
