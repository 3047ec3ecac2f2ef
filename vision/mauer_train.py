"""Train the Mauerhuepfer pawn classifier on freshly rendered scenes (not the committed ones):

    python -m vision.mauer_train [--scenes 400] [--seed 7100] [--lit 2]
                                 [--out models/mauer-pawns.npz]

Features come from `vision.mauer.spot_features` with the board placed by the scene's true
corners (so labels line up exactly); the held-out tail of the scenes is scored per spot.
Each scene is used as rendered and `--lit` times more under a random light (`random_light`:
a lamp's colour and a camera's tone curve per channel, sometimes a hard shadow or an
underexposure), so that a shade or a warm cast does not move the pawn colours' features.
Edition 1 only: edition 2 stays an unseen copy for the evaluation."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass

import cv2
import numpy as np

from scoring.mauerhuepfer import load_board
from vision.light_eval import dim_noisy, hard_shadow, in_linear
from vision.mauer import (
    CLASSES,
    MODEL_PATH,
    BoardView,
    allowed_mask,
    board_corners_mm,
    camera_from_homography,
    spot_features,
    train_pawn_model,
    truth_labels,
)
from vision.synth import render_scene
from vision.synth.dataset import scene_seed


def view_from_truth(truth: dict, board) -> BoardView:
    corners = np.array(truth["area"], np.float64)
    H = cv2.getPerspectiveTransform(board_corners_mm(board).astype(np.float32),
                                    corners.astype(np.float32)).astype(np.float64)
    size = (truth["image"]["width"], truth["image"]["height"])
    return BoardView(corners, H, camera_from_homography(H, size), 1.0)


@dataclass(frozen=True)
class LightJitter:
    """The range of `random_light`'s lights (measured against `vision.light_eval`'s fixed
    lights, which lie inside it but are not drawn as such: its harsh light is gamma B 1.5,
    G 1.1, R 0.75 and gains 0.8-1.1, tungsten gains 0.3-1.0, daylight 0.55-1.0)."""

    gain_lo: float = 0.3  # per-channel gain in linear light (a lamp's colour), the
    gain_hi: float = 1.0  # brightest channel then scaled to 1
    gamma_log: float = 0.45  # per-channel tone curve x ** g, |ln g| up to this (0.45: g 0.64-1.57)
    p_gamma: float = 0.6  # share of lights with a tone curve
    tone_gain: tuple[float, float] = (0.8, 1.1)  # ... and with it a per-channel gain (uniform)
    p_shadow: float = 0.35  # share with a hard shadow over part of the photo
    p_dim: float = 0.15  # share underexposed and noisy


JITTER = LightJitter()


def random_light(image: np.ndarray, rng: np.random.Generator,
                 j: LightJitter = JITTER) -> np.ndarray:
    """uint8 BGR `image` under a random light: channel gains in linear light, then (often) a
    per-channel tone curve with gains (contrasty, as a phone's processing of a harsh lamp),
    sometimes a hard shadow or an underexposure (`vision.light_eval`'s)."""
    gain = rng.uniform(j.gain_lo, j.gain_hi, 3)
    out = in_linear(image, gain / gain.max())
    if rng.random() < j.p_gamma:
        g = np.exp(rng.uniform(-j.gamma_log, j.gamma_log, 3)).astype(np.float32)
        k = rng.uniform(*j.tone_gain, 3).astype(np.float32)
        out = np.clip(255.0 * k * (out.astype(np.float32) / 255.0) ** g, 0, 255).astype(np.uint8)
    if rng.random() < j.p_shadow:
        out = hard_shadow(out, rng)
    if rng.random() < j.p_dim:
        out = dim_noisy(out, rng)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--scenes", type=int, default=400)
    ap.add_argument("--seed", type=int, default=7100)
    ap.add_argument("--lit", type=int, default=2,
                    help="copies of each scene under a random light (`random_light`)")
    ap.add_argument("--out", default=str(MODEL_PATH))
    args = ap.parse_args(argv)
    board = load_board()
    xs, ys = [], []  # per scene: its photos' features, stacked
    for i in range(args.scenes):
        img, truth = render_scene("mauerhuepfer", scene_seed(args.seed, i), 1)
        rng = np.random.default_rng(scene_seed(args.seed, i))
        view, labels = view_from_truth(truth, board), truth_labels(board, truth)
        fx = []
        for lit in [img] + [random_light(img, rng) for _ in range(args.lit)]:
            ok, buf = cv2.imencode(".jpg", lit, [cv2.IMWRITE_JPEG_QUALITY, 80])
            fx.append(spot_features(cv2.imdecode(buf, cv2.IMREAD_COLOR), view, board))
        xs.append(np.concatenate(fx))
        ys.append(np.tile(labels, len(fx)))
        print(f"\r{i + 1}/{args.scenes}", end="", file=sys.stderr)
    print(file=sys.stderr)
    n_train = int(0.8 * len(xs))
    x, y = np.concatenate(xs[:n_train]), np.concatenate(ys[:n_train])
    model = train_pawn_model(x, y)
    allowed = allowed_mask(board)
    wrong = total = 0
    for xv, yv in zip(xs[n_train:], ys[n_train:], strict=True):
        pr = model.proba(xv) * np.tile(allowed, (len(xv) // len(allowed), 1))
        wrong += int((pr.argmax(axis=1) != yv).sum())
        total += len(yv)
    model.save(args.out)
    print(json.dumps({"train_spots": len(y), "lit": args.lit, "heldout_spots": total,
                      "heldout_wrong": wrong, "classes": list(CLASSES), "out": args.out}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
