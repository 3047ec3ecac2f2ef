"""Train the Mauerhuepfer pawn classifier on freshly rendered scenes (not the committed ones):

    python -m vision.mauer_train [--scenes 150] [--seed 7100] [--out models/mauer-pawns.npz]

Features come from `vision.mauer.spot_features` with the board placed by the scene's true
corners (so labels line up exactly); the held-out tail of the scenes is scored per spot.
Edition 1 only: edition 2 stays an unseen copy for the evaluation."""

from __future__ import annotations

import argparse
import json
import sys

import cv2
import numpy as np

from scoring.mauerhuepfer import load_board
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--scenes", type=int, default=150)
    ap.add_argument("--seed", type=int, default=7100)
    ap.add_argument("--out", default=str(MODEL_PATH))
    args = ap.parse_args(argv)
    board = load_board()
    xs, ys = [], []
    for i in range(args.scenes):
        img, truth = render_scene("mauerhuepfer", scene_seed(args.seed, i), 1)
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        xs.append(spot_features(img, view_from_truth(truth, board), board))
        ys.append(truth_labels(board, truth))
        print(f"\r{i + 1}/{args.scenes}", end="", file=sys.stderr)
    print(file=sys.stderr)
    n_train = int(0.8 * len(xs))
    x, y = np.concatenate(xs[:n_train]), np.concatenate(ys[:n_train])
    model = train_pawn_model(x, y)
    allowed = allowed_mask(board)
    wrong = total = 0
    for xv, yv in zip(xs[n_train:], ys[n_train:], strict=True):
        pr = model.proba(xv) * allowed
        wrong += int((pr.argmax(axis=1) != yv).sum())
        total += len(yv)
    model.save(args.out)
    print(json.dumps({"train_spots": len(y), "heldout_spots": total, "heldout_wrong": wrong,
                      "classes": list(CLASSES), "out": args.out}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
