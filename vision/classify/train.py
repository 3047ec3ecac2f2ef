"""Train the crop classifier from scratch and write `models/pieces.onnx` + its model card.

    python -m vision.classify.train                 # render scenes, build crops, train, export
    python -m vision.classify.train --crops build/crops.npz --epochs 12

Augmentation (on uint8 BGR crops, before the shared `crops_to_input`): rotations by any
multiple of 90 degrees and flips, a small shift and zoom, brightness/contrast/saturation
jitter, a white-balance shift (per-channel gains), Gaussian blur and sensor noise, so the
model does not learn the renderer's exact colours. Validation: 15 % of the scenes, held out.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

import cv2
import numpy as np

from vision.classify.augment import ColourJitter, colour_jitter
from vision.classify.create_dataset import build, progress
from vision.classify.settings import CARD_PATH, GAME_CLASSES, MODEL_PATH, TrainSettings
from vision.preprocess import CropSettings, crops_to_input


def augment(crops: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Randomly perturbed copies of (N, S, S, 3) uint8 BGR crops (same shape and dtype)."""
    n, s = len(crops), crops.shape[1]
    out = np.empty_like(crops)
    for i in range(n):
        c = crops[i]
        k = int(rng.integers(4))
        if k:
            c = np.rot90(c, k)
        if rng.random() < 0.5:
            c = c[:, ::-1]
        # Small shift and zoom (the segmenter's box is never exact).
        z = rng.uniform(0.9, 1.12)
        dx, dy = rng.normal(0, 0.04 * s, 2)
        M = cv2.getRotationMatrix2D((s / 2, s / 2), float(rng.uniform(-12, 12)), z)
        M[:, 2] += (dx, dy)
        c = cv2.warpAffine(np.ascontiguousarray(c), M, (s, s), borderMode=cv2.BORDER_REFLECT)
        if rng.random() < 0.3:
            c = cv2.GaussianBlur(c, (0, 0), float(rng.uniform(0.4, 1.2)))
        out[i] = c
    return colour_jitter(out, rng, ColourJitter())


def split_by_scene(scenes: np.ndarray, frac: float, seed: int) -> np.ndarray:
    """Boolean mask of validation samples: a random `frac` of the scenes."""
    ids = np.unique(scenes)
    rng = np.random.default_rng(seed)
    val_ids = rng.choice(ids, size=max(1, int(round(frac * len(ids)))), replace=False)
    return np.isin(scenes, val_ids)


def per_class_accuracy(pred: np.ndarray, y: np.ndarray, classes) -> dict[str, float | None]:
    return {c: (round(float((pred[y == i] == i).mean()), 4) if (y == i).any() else None)
            for i, c in enumerate(classes)}


def fit(crops, y, val_mask, settings: TrainSettings, crop: CropSettings, show=True):
    """Train; returns (net, history, per-class validation accuracy, confusion)."""
    import torch

    torch.manual_seed(settings.seed)
    torch.set_num_threads(settings.threads)
    from vision.classify.net import PieceNet

    classes = settings.classes
    rng = np.random.default_rng(settings.seed)
    tr = np.flatnonzero(~val_mask)
    va = np.flatnonzero(val_mask)
    freq = np.bincount(y[tr], minlength=len(classes)).astype(np.float64)
    w = 1.0 / np.sqrt(np.maximum(freq, 1))
    w = w / (w * freq).sum() * freq.sum()
    net = PieceNet(len(classes), settings.widths, settings.embedding_dim)
    opt = torch.optim.AdamW(net.parameters(), lr=settings.lr, weight_decay=settings.weight_decay)
    steps = settings.epochs * int(np.ceil(len(tr) / settings.batch_size))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, settings.lr, total_steps=max(steps, 1))
    loss_fn = torch.nn.CrossEntropyLoss(weight=torch.tensor(w, dtype=torch.float32),
                                        label_smoothing=0.05)
    history = []
    started = time.perf_counter()
    step = 0
    xv = torch.from_numpy(crops_to_input(crops[va], crop)) if len(va) else None
    for epoch in range(settings.epochs):
        net.train()
        order = rng.permutation(tr)
        total_loss = 0.0
        for b in range(0, len(order), settings.batch_size):
            idx = order[b : b + settings.batch_size]
            xb = torch.from_numpy(crops_to_input(augment(crops[idx], rng), crop))
            yb = torch.from_numpy(y[idx].astype(np.int64))
            opt.zero_grad()
            loss = loss_fn(net(xb), yb)
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            total_loss += loss.item() * len(idx)
            if show and (step % 10 == 0 or step == steps):
                progress(step, steps, started, f"epoch {epoch + 1}/{settings.epochs}")
        val_acc = None
        if xv is not None:
            pred = predict(net, xv)
            val_acc = round(float((pred == y[va]).mean()), 4)
        history.append({"epoch": epoch + 1, "loss": round(total_loss / len(tr), 4),
                        "val_accuracy": val_acc})
        if show:
            print(f"\repoch {epoch + 1}: loss {history[-1]['loss']}, val accuracy {val_acc}"
                  + " " * 30, file=sys.stderr)
    per_class, confusion = {}, []
    if xv is not None:
        pred = predict(net, xv)
        per_class = per_class_accuracy(pred, y[va], classes)
        confusion = np.zeros((len(classes), len(classes)), int)
        np.add.at(confusion, (y[va], pred), 1)
        confusion = confusion.tolist()
    return net, history, per_class, confusion, time.perf_counter() - started


def predict(net, x) -> np.ndarray:
    import torch

    net.eval()
    out = []
    with torch.no_grad():
        for b in range(0, len(x), 512):
            out.append(net(x[b : b + 512]).argmax(1).numpy())
    return np.concatenate(out)


def write_card(path: Path, info: dict) -> None:
    classes = info["classes"]
    lines = [
        "# Model card: `pieces.onnx` (crop classifier)",
        "",
        "A small CNN (3 conv blocks of widths "
        f"{info['settings']['widths']}, {info['params']} parameters, "
        f"{info['bytes'] / 1024:.0f} KB) that classifies a {info['crop']['size']} x "
        f"{info['crop']['size']} top-down crop of a candidate piece into one of "
        f"{len(classes)} classes, and outputs a {info['settings']['embedding_dim']}-d "
        "L2-normalised embedding (for teach mode).",
        "",
        "- Inputs: `input` float32 (N, 3, S, S), RGB, (x/255 - mean) / std "
        "(`vision.preprocess.crops_to_input`).",
        "- Outputs: `probs` (N, C) softmax, `embedding` (N, D).",
        "- Metadata: `classes` (JSON list), `crop` (JSON crop settings), `train` (JSON).",
        f"- Classes: {', '.join(classes)}.",
        "",
        "## Data",
        "",
        f"Synthetic scenes rendered by `vision.synth` (edition 1 only; seeds from "
        f"{info['seed_base']}, none of the committed scenes): {info['scenes_per_game']} per "
        f"game for {', '.join(info['games'])}. Each scene went through the pipeline's own "
        "area and segmentation stages; candidates matched to the truth took its label, the "
        "rest `background`; every true piece also gave a jittered crop at its true centre. "
        f"{info['n_crops']} crops; {info['skipped']} scenes skipped (area not found).",
        "",
        "Crops per class: " + ", ".join(f"{c} {n}" for c, n in info["counts"].items()) + ".",
        "",
        "## Training",
        "",
        f"From scratch, {info['settings']['epochs']} epochs, AdamW lr {info['settings']['lr']}"
        f" one-cycle, batch {info['settings']['batch_size']}, class-weighted cross-entropy "
        "with label smoothing, augmentation: 90-degree rotations, flips, shift/zoom/small "
        "rotation, white balance, brightness, contrast, saturation, blur, noise. "
        f"Threads: {info['settings']['threads']}. Dataset build {info['data_s']:.0f} s, "
        f"training {info['train_s']:.0f} s.",
        "",
        "| epoch | loss | val accuracy |",
        "|---|---|---|",
        *[f"| {h['epoch']} | {h['loss']} | {h['val_accuracy']} |" for h in info["history"]],
        "",
        "## Validation accuracy per class (held-out 15 % of the scenes, crop level)",
        "",
        "| class | accuracy | crops |",
        "|---|---|---|",
        *[f"| {c} | {a} | {info['val_counts'].get(c, 0)} |" for c, a in info["per_class"].items()],
        "",
        "Scene-level figures (per-piece error, exact facts) are in docs/vision.md, measured "
        "with `tablescore evaluate`.",
        "",
        "Limits: trained only on our own drawings of the pieces (pieces.md cues); a real copy "
        "may look different, which teach mode addresses.",
        "",
    ]
    path.write_text("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--crops", default=None, help="use this crops .npz instead of rendering")
    ap.add_argument("--scenes", type=int, default=1000, help="scenes per game to render")
    ap.add_argument("--epochs", type=int, default=None)
    ap.add_argument("--out", default=str(MODEL_PATH))
    ap.add_argument("--card", default=None, help="model card (default: beside the model)")
    ap.add_argument("--save-crops", default="build/crops.npz")
    ap.add_argument("--per-class", type=int, default=None,
                    help="use at most this many crops per class (default from settings)")
    args = ap.parse_args(argv)
    settings = TrainSettings()
    if args.epochs is not None:
        settings = replace(settings, epochs=args.epochs)
    crop = CropSettings()
    games = list(GAME_CLASSES)
    t0 = time.perf_counter()
    if args.crops:
        data = np.load(args.crops)
        crops, labels, scenes = data["crops"], data["labels"], data["scenes"]
        skipped = -1
    else:
        crops, labels, scenes, skipped = build(games, args.scenes, settings.seed, crop)
        if args.save_crops:
            Path(args.save_crops).parent.mkdir(parents=True, exist_ok=True)
            np.savez_compressed(args.save_crops, crops=crops, labels=labels, scenes=scenes)
    data_s = time.perf_counter() - t0
    index = {c: i for i, c in enumerate(settings.classes)}
    unknown = sorted(set(labels.tolist()) - set(index))
    if unknown:
        print(f"ignoring crops of labels outside the class list: {unknown}", file=sys.stderr)
    keep = np.isin(labels, list(index))
    # Balance: at most `per_class` crops of any class (a random subset, seeded).
    cap = args.per_class or settings.per_class
    pick = np.random.default_rng(settings.seed).permutation(len(labels))
    seen: dict[str, int] = {}
    for i in pick:
        if keep[i]:
            seen[labels[i]] = seen.get(labels[i], 0) + 1
            keep[i] = seen[labels[i]] <= cap
    crops, labels, scenes = crops[keep], labels[keep], scenes[keep]
    y = np.array([index[c] for c in labels], np.int64)
    val = split_by_scene(scenes, 0.15, settings.seed)
    net, history, per_class, confusion, train_s = fit(crops, y, val, settings, crop)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    from vision.classify.net import export_onnx

    meta = {
        "classes": json.dumps(list(settings.classes)),
        "crop": json.dumps(crop.to_metadata()),
        "train": json.dumps({"epochs": settings.epochs, "games": games,
                             "n_crops": int(len(crops)), "history": history}),
    }
    export_onnx(net, out, crop.size, meta)
    info = {
        "classes": list(settings.classes), "settings": asdict(settings),
        "crop": crop.to_metadata(), "params": sum(p.numel() for p in net.parameters()),
        "bytes": out.stat().st_size, "games": games, "scenes_per_game": args.scenes,
        "seed_base": 1_000_000, "n_crops": int(len(crops)), "skipped": skipped,
        "counts": {c: int((labels == c).sum()) for c in settings.classes},
        "val_counts": {c: int((labels[val] == c).sum()) for c in settings.classes},
        "history": history, "per_class": per_class, "data_s": data_s, "train_s": train_s,
        "confusion": confusion,
    }
    card = Path(args.card) if args.card else (CARD_PATH if out == MODEL_PATH else
                                              out.with_suffix(".md"))
    write_card(card, info)
    print(f"wrote {out} ({out.stat().st_size / 1024:.0f} KB) and {card}; "
          f"val accuracy {history[-1]['val_accuracy'] if history else None}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
