"""Train the play-area network from rendered scenes and write `models/area.onnx`.

    python -m vision.classify.train_area --scenes 1200 --epochs 12

Targets: each scene's true play-area quadrilateral, rasterised (soft edges) at the
network's output size. Edition 1 only, seeds far from the committed scenes. Augmentation:
flips, white balance, brightness, contrast, noise.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

from vision.area_model import AREA_GAMES, AREA_INPUT, AREA_MODEL_PATH, area_input
from vision.classify.create_dataset import SEED_BASE, progress

SEED_OFFSET = 500_000  # area scenes use other seeds than the crop scenes


def render_one(args):
    game, seed = args
    from vision.synth import render_scene

    img, truth = render_scene(game, seed, edition=1)
    x, transposed = area_input(img)
    w, h = AREA_INPUT
    k = 4
    canvas = np.zeros((img.shape[0], img.shape[1]), np.uint8)
    if truth.get("area"):
        cv2.fillPoly(canvas, [np.round(np.array(truth["area"]) * 1).astype(np.int32)], 255)
    if transposed:
        canvas = canvas.T
    target = cv2.resize(canvas, (w // 2 * k, h // 2 * k), interpolation=cv2.INTER_AREA)
    target = cv2.resize(target, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    return x[0].astype(np.float16), (target / 255.0).astype(np.float16), AREA_GAMES.index(game)


def build(n_scenes: int, workers: int = 2):
    jobs = [(g, SEED_BASE + SEED_OFFSET + k) for g in AREA_GAMES for k in range(n_scenes)]
    xs, ys, gs = [], [], []
    started = time.perf_counter()
    with Pool(workers) as pool:
        for i, (x, y, g) in enumerate(pool.imap(render_one, jobs, chunksize=8)):
            xs.append(x)
            ys.append(y)
            gs.append(g)
            if (i + 1) % 20 == 0 or i + 1 == len(jobs):
                progress(i + 1, len(jobs), started, "area scenes")
    return np.stack(xs), np.stack(ys), np.array(gs)


def augment(x: np.ndarray, y: np.ndarray, rng):
    """x (N, 3, H, W) normalised float32, y (N, h, w): flipped and colour-jittered copies."""
    x = x.copy()
    y = y.copy()
    n = len(x)
    flip = rng.random(n) < 0.5
    x[flip] = x[flip][..., ::-1]
    y[flip] = y[flip][..., ::-1]
    flip = rng.random(n) < 0.5
    x[flip] = x[flip][..., ::-1, :]
    y[flip] = y[flip][..., ::-1, :]
    x = x * rng.uniform(0.8, 1.2, (n, 1, 1, 1)) + rng.uniform(-0.3, 0.3, (n, 3, 1, 1))
    x = x + rng.standard_normal(x.shape).astype(np.float32) * rng.uniform(0, 0.1, (n, 1, 1, 1))
    return np.ascontiguousarray(x, np.float32), np.ascontiguousarray(y, np.float32)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenes", type=int, default=1200, help="scenes per game")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--data", default="build/area_data.npz")
    ap.add_argument("--out", default=str(AREA_MODEL_PATH))
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    import torch

    from vision.classify.area_net import AreaNet

    torch.manual_seed(0)
    torch.set_num_threads(2)
    if Path(args.data).is_file():
        d = np.load(args.data)
        X, Y, G = d["x"], d["y"], d["g"]
    else:
        X, Y, G = build(args.scenes, args.workers)
        Path(args.data).parent.mkdir(parents=True, exist_ok=True)
        np.savez(args.data, x=X, y=Y, g=G)
    rng = np.random.default_rng(0)
    val = rng.random(len(X)) < 0.1
    tr = np.flatnonzero(~val)
    net = AreaNet(len(AREA_GAMES))
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    bs = 32
    steps = args.epochs * int(np.ceil(len(tr) / bs))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps)
    started = time.perf_counter()
    step = 0
    history = []
    for ep in range(args.epochs):
        net.train()
        order = rng.permutation(tr)
        for b in range(0, len(order), bs):
            idx = order[b : b + bs]
            xb, yb = augment(X[idx].astype(np.float32), Y[idx].astype(np.float32), rng)
            out = net(torch.from_numpy(xb))
            logit = out[torch.arange(len(idx)), torch.from_numpy(G[idx])]
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logit,
                                                                        torch.from_numpy(yb))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            if step % 10 == 0 or step == steps:
                progress(step, steps, started, f"epoch {ep + 1}/{args.epochs}")
        net.eval()
        with torch.no_grad():
            vi = np.flatnonzero(val)
            out = net(torch.from_numpy(X[vi].astype(np.float32)))
            p = out[torch.arange(len(vi)), torch.from_numpy(G[vi])].numpy() > 0
            t = Y[vi] > 0.5
            iou = float((p & t).sum() / max((p | t).sum(), 1))
        history.append({"epoch": ep + 1, "val_iou": round(iou, 4)})
        print(f"\repoch {ep + 1}: validation IoU {iou:.4f}" + " " * 40, file=sys.stderr)
    net.eval()
    import onnx

    out_path = Path(args.out)
    w, h = AREA_INPUT
    torch.onnx.export(net, torch.zeros(1, 3, h, w), str(out_path), input_names=["input"],
                      output_names=["logits"], opset_version=17, dynamo=False)
    model = onnx.load(str(out_path))
    for k, v in {"games": json.dumps(list(AREA_GAMES)), "input": json.dumps(AREA_INPUT),
                 "train": json.dumps({"scenes_per_game": int(len(X) // len(AREA_GAMES)),
                                      "epochs": args.epochs, "history": history,
                                      "seconds": round(time.perf_counter() - started)})}.items():
        e = model.metadata_props.add()
        e.key, e.value = k, v
    onnx.save(model, str(out_path))
    print(f"wrote {out_path} ({out_path.stat().st_size / 1024:.0f} KB); {history[-1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
