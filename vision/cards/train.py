"""Train the card/tile models from freshly rendered scenes and write them to `models/`:

- `cardkeys.onnx`: the key-point detector (`vision.cards.keynet`), + `cardkeys.md`;
- `cards.onnx`: the crop classifier (issue 5's `PieceNet` with this module's class list and
  crop size), + `cards.md`.

    python -m vision.cards.train --scenes 450          # about 15 minutes on 2 cores
    python -m vision.cards.train --index               # corner-index model: 2000 scenes,
                                                       # 1800 s of training, about 35 minutes

Augmentation is photometric plus a small shift/zoom/rotation only: crops and photos keep
their orientation (the detector predicts it; digits must not be mirrored).
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from pathlib import Path

import cv2
import numpy as np

from scoring.labels import CARD_LABELS_HOP, MAGIC_RABBIT_LABELS, TROETO_LABELS
from tablescore.errors import BadInput, TablescoreError
from vision.cards.dataset import BACKGROUND, CARD_GAMES, SEED_BASE, build
from vision.cards.detect import DETECTOR_PATH, MODELS_DIR, DetectSettings, small_to_input
from vision.cards.geometry import INDEX_CLASSES, CardCropSettings, specs_metadata
from vision.classify.augment import ColourJitter, colour_jitter
from vision.classify.settings import NetTraining

HOP_CARD_LABELS = CARD_LABELS_HOP
CLASSES: tuple[str, ...] = (BACKGROUND,) + tuple(x for x in MAGIC_RABBIT_LABELS if x != "dove") \
    + TROETO_LABELS + HOP_CARD_LABELS
CLASSIFIER_PATH = MODELS_DIR / "cards.onnx"
INDEX_PATH = MODELS_DIR / "cards-index.onnx"
INDEX_CROP = CardCropSettings(size=32)


@dataclass(frozen=True)
class ClassifierTrain(NetTraining):
    classes: tuple[str, ...] = CLASSES
    epochs: int = 30  # at most; the time limit usually ends it
    time_limit_s: float = 600.0  # the learning rate follows the elapsed share of this
    camera: float = 0.0  # share of the crops given a phone's noise and JPEG (`CameraNoise`)
    hard: float = 0.0  # --index: share of the crops defocused, of the others motion-blurred,
    #   and of all partly covered (`HardDigits`; 0: off)
    init: str = ""  # a model (.onnx) of the same widths whose weights start the net ("": from
    #   scratch); its batch norms are folded into the convolutions, so they stay frozen as
    #   identities with the folded biases (`load_folded`) and the fine-tune moves the weights
    data_seed: int = 0  # which block of rendered scenes (`build_index`, `build`): a fine-tune
    #   from `init` on scenes that model never saw takes another seed
    reader_crops: tuple[str, ...] = ()  # --index: .npz files of crops cut at the reader's own
    #   number frames with the true numbers (`index_eval --reader-crops`), added to the
    #   rendered crops (none: the trainings as before)
    reader_repeat: int = 1  # --index: each reader crop this many times (augmented anew)


@dataclass(frozen=True)
class IndexTrain(ClassifierTrain):
    """The corner-index classifier (`train_index`): a wider `PieceNet` than issue 5's, more
    of the time budget. One torch thread: on this 2-core machine shared with other jobs two
    threads trained 4.5 x slower than one (78 vs 354 crops/s at load 6, measured)."""

    classes: tuple[str, ...] = INDEX_CLASSES
    widths: tuple[int, int, int] = (16, 32, 64)
    time_limit_s: float = 1800.0
    threads: int = 1


@dataclass(frozen=True)
class DetectorTrain:
    steps: int = 3000  # at most; the time limit usually ends it
    batch_size: int = 12
    patch: int = 128  # training patch side, scaled-input pixels
    lr: float = 4e-3
    sigma: float = 1.0  # heat Gaussian, cells
    reg_radius: float = 1.6  # cells around a key point that regress its pose
    seed: int = 0
    threads: int = 2
    time_limit_s: float = 480.0
    widths: tuple[int, int, int] = field(default=(8, 16, 32))
    save: str = "build/cardkeys.pt"  # torch weights, to continue training later
    resume: str = ""
    turn_p: float = 0.0  # share of patches turned by a random quarter turn (`turned_patch`):
    #   the scenes' camera is never rolled, so the tilt always shortens the photo's height


# ------------------------------------------------------------------ photometric augmentation
CARD_JITTER = ColourJitter(white_balance=0.13, brightness=0.28, saturation=0.25, noise_max=6.0)


def photometric(x: np.ndarray, rng: np.random.Generator, noise_max: float = 6.0) -> np.ndarray:
    """`colour_jitter` with the card models' ranges on (N, H, W, 3) uint8 BGR images."""
    return colour_jitter(x, rng, replace(CARD_JITTER, noise_max=noise_max))


@dataclass(frozen=True)
class LightJitter:
    """Coloured, contrasty light beyond `CARD_JITTER`'s gains (warm or cold lamps, harsh
    sun): a per-channel gamma and gain, drawn for a share of the crops."""

    share: float = 0.5
    gamma_sd: float = 0.22  # log of each channel's gamma, s.d. (clipped to 0.6-1.7)
    gain_sd: float = 0.1  # log of each channel's gain, s.d.


INDEX_LIGHT = LightJitter()


def light_jitter(x: np.ndarray, rng: np.random.Generator, s: LightJitter = INDEX_LIGHT
                 ) -> np.ndarray:
    """(N, H, W, 3) uint8 BGR images, a random share of them under `s`'s light."""
    out = x.copy()
    pick = np.flatnonzero(rng.random(len(x)) < s.share)
    if not len(pick):
        return out
    g = np.clip(np.exp(rng.normal(0, s.gamma_sd, (len(pick), 1, 1, 3))), 0.6, 1.7)
    k = np.exp(rng.normal(0, s.gain_sd, (len(pick), 1, 1, 3)))
    y = 255.0 * k * (x[pick].astype(np.float32) / 255.0) ** g.astype(np.float32)
    out[pick] = np.clip(y, 0, 255).astype(np.uint8)
    return out


@dataclass(frozen=True)
class ResolutionJitter:
    """A farther camera: a share of the crops down-sampled and back (the corner numbers of
    small cards are the ones misread; the renders hold few of them)."""

    share: float = 0.35
    scale: tuple[float, float] = (0.45, 0.85)  # of the crop side


INDEX_RESOLUTION = ResolutionJitter()


def resolution_jitter(x: np.ndarray, rng: np.random.Generator,
                      s: ResolutionJitter = INDEX_RESOLUTION) -> np.ndarray:
    """(N, S, S, 3) uint8 BGR crops, a random share of them area-down-sampled to `scale` of
    their side and resized back (bilinear, as `crop_card` up-samples a small card)."""
    out = x.copy()
    side = x.shape[1]
    for i in np.flatnonzero(rng.random(len(x)) < s.share):
        n = max(4, int(round(side * rng.uniform(*s.scale))))
        small = cv2.resize(x[i], (n, n), interpolation=cv2.INTER_AREA)
        out[i] = cv2.resize(small, (side, side), interpolation=cv2.INTER_LINEAR)
    return out


@dataclass(frozen=True)
class CameraNoise:
    """A phone camera in poor light, beyond `CARD_JITTER`'s flat noise: the exposure (the
    output's brightness after the camera's gain), signal-dependent noise in linear light
    (shot noise, variance `shot` x signal, and read noise), part of it per channel (chroma
    noise), drawn coarser than the crop for some (the photo's noise resampled by
    `crop_card`), sometimes the phone's denoise blur, then a JPEG. Every parameter is drawn
    per crop from a wide range (a general camera, not one light's numbers). `share` 0 (off)
    unless a training asks for it (`--camera-noise`)."""

    share: float = 0.0  # of the crops given the camera's noise
    exposure: tuple[float, float] = (0.3, 1.15)  # linear gain of the output, log-uniform
    shot: tuple[float, float] = (2e-5, 4e-3)  # noise variance per unit of linear signal
    read: tuple[float, float] = (1e-3, 2e-2)  # read-noise s.d., linear; both log-uniform
    chroma: tuple[float, float] = (0.3, 1.0)  # share of the noise variance per channel
    grain: tuple[float, float] = (0.5, 1.0)  # noise drawn at this share of the side
    denoise_share: float = 0.3  # a phone's denoise: a Gaussian blur of s.d. `denoise_sd`
    denoise_sd: tuple[float, float] = (0.4, 0.9)
    jpeg_share: float = 0.85
    jpeg: tuple[int, int] = (40, 95)  # quality, uniform


def camera_noise(x: np.ndarray, rng: np.random.Generator, s: CameraNoise) -> np.ndarray:
    """(N, S, S, 3) uint8 BGR crops, a random `s.share` of them as a phone in poor light
    would give them (`CameraNoise`); the others unchanged."""
    from vision.area import LINEAR8
    from vision.preprocess import linear_to_srgb

    out = x.copy()
    side = x.shape[1]

    def logu(r, n):
        return np.exp(rng.uniform(np.log(r[0]), np.log(r[1]), n)).astype(np.float32)

    if s.share <= 0:  # off: no draw either (a training without it runs as before)
        return out
    pick = np.flatnonzero(rng.random(len(x)) < s.share)
    n = len(pick)
    if not n:
        return out
    expo, shot, read = logu(s.exposure, n), logu(s.shot, n), logu(s.read, n)
    chroma = rng.uniform(*s.chroma, n).astype(np.float32)
    for j, i in enumerate(pick):
        lin = LINEAR8[x[i]] * expo[j]  # (S, S, 3) linear light as the camera gives it
        g = max(4, int(round(side * rng.uniform(*s.grain))))
        z = (np.sqrt(chroma[j]) * rng.standard_normal((g, g, 3))
             + np.sqrt(1 - chroma[j]) * rng.standard_normal((g, g, 1))).astype(np.float32)
        if g != side:
            z = cv2.resize(z, (side, side), interpolation=cv2.INTER_LINEAR)
        lin = lin + z * np.sqrt(shot[j] * np.maximum(lin, 0) + read[j] ** 2)
        y = np.round(255.0 * linear_to_srgb(lin)).astype(np.uint8)
        if rng.random() < s.denoise_share:
            y = cv2.GaussianBlur(y, (0, 0), float(rng.uniform(*s.denoise_sd)))
        if rng.random() < s.jpeg_share:
            q = int(rng.integers(s.jpeg[0], s.jpeg[1] + 1))
            y = cv2.imdecode(cv2.imencode(".jpg", y, [cv2.IMWRITE_JPEG_QUALITY, q])[1],
                             cv2.IMREAD_COLOR)
        out[i] = y
    return out


@dataclass(frozen=True)
class HardDigits:
    """The corner-index crops' harder cases, beyond `geometric`'s light blur: a defocus
    (Gaussian, s.d. in 32-px crop pixels, scaled by side / 32), else a straight motion blur
    (a line kernel of `motion_len` crop pixels at any angle), and a partly covered index
    (the crop beyond a line tilted `cover_tilt_sd` degrees s.d., from the bottom edge on
    `cover_bottom` of them, else the right, replaced by another crop of the batch: a fan's
    next card lying over the corner; `cover_area` of the crop).
    Session 19 H7: most wrong numbers at the true outline were blurred tootophant digits and
    partly covered indices. All shares 0 (off, no draw) unless a training asks for it
    (`--hard-digits`)."""

    defocus_share: float = 0.0
    defocus_sd: tuple[float, float] = (1.0, 2.5)
    motion_share: float = 0.0
    motion_len: tuple[float, float] = (3.0, 9.0)
    cover_share: float = 0.0
    cover_area: tuple[float, float] = (0.08, 0.30)
    cover_tilt_sd: float = 15.0
    cover_bottom: float = 0.5


def motion_kernel(length: float, angle_deg: float) -> np.ndarray:
    """A normalised (K, K) float32 line kernel `length` pixels long at `angle_deg`."""
    k = int(np.ceil(length)) | 1
    ker = np.zeros((k, k), np.float32)
    c = (k - 1) / 2
    dx, dy = np.cos(np.radians(angle_deg)), np.sin(np.radians(angle_deg))
    for t in np.linspace(-(length - 1) / 2, (length - 1) / 2, max(2, int(length * 3))):
        ker[int(round(c + t * dy)), int(round(c + t * dx))] = 1.0
    return ker / ker.sum()


def hard_digits(x: np.ndarray, rng: np.random.Generator, s: HardDigits) -> np.ndarray:
    """(N, S, S, 3) uint8 BGR crops, random shares of them defocused, motion-blurred and
    partly covered by another crop of the batch (`HardDigits`); the others unchanged."""
    out = x.copy()
    if s.defocus_share <= 0 and s.motion_share <= 0 and s.cover_share <= 0:
        return out  # off: no draw either (a training without it runs as before)
    side = x.shape[1]
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32) / side
    for i in range(len(x)):
        c = out[i]
        if rng.random() < s.defocus_share:
            c = cv2.GaussianBlur(c, (0, 0), float(rng.uniform(*s.defocus_sd)) * side / 32)
        elif rng.random() < s.motion_share:
            ker = motion_kernel(float(rng.uniform(*s.motion_len)) * side / 32,
                                float(rng.uniform(0, 180)))
            c = cv2.filter2D(c, -1, ker, borderType=cv2.BORDER_REFLECT)
        if len(x) > 1 and rng.random() < s.cover_share:
            other = x[(i + int(rng.integers(1, len(x)))) % len(x)]
            tilt = np.radians(rng.normal(0, s.cover_tilt_sd))
            # distance past the line: the covered part is where it is > 0
            along = (xx - 0.5) * np.cos(tilt) + (yy - 0.5) * np.sin(tilt)
            if rng.random() < s.cover_bottom:  # from the bottom edge instead of the right
                along = (yy - 0.5) * np.cos(tilt) - (xx - 0.5) * np.sin(tilt)
            cut = np.quantile(along, 1 - rng.uniform(*s.cover_area))
            c = np.where((along > cut)[..., None], other, c)
        out[i] = c
    return out


def index_augment(x: np.ndarray, rng: np.random.Generator,
                  camera: CameraNoise = CameraNoise(),
                  hard: HardDigits = HardDigits()) -> np.ndarray:
    """The corner-index crops' augmentation after `geometric`: the hard digits' blur and
    cover (`hard_digits`, off by default), resolution, light, `photometric`, then the
    camera's noise and JPEG (`camera_noise`, off by default)."""
    x = hard_digits(x, rng, hard)
    return camera_noise(photometric(light_jitter(resolution_jitter(x, rng), rng), rng), rng,
                        camera)


def card_augment(x: np.ndarray, rng: np.random.Generator,
                 camera: CameraNoise = CameraNoise()) -> np.ndarray:
    """The card classifier's augmentation after `geometric`: `photometric`, then
    `camera_noise` (off by default: `photometric` alone, as before)."""
    return camera_noise(photometric(x, rng), rng, camera)


def geometric(crops: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Small shift, zoom and rotation (the detector's pose is never exact), blur sometimes."""
    out = np.empty_like(crops)
    s = crops.shape[1]
    for i, c in enumerate(crops):
        M = cv2.getRotationMatrix2D((s / 2, s / 2), float(rng.normal(0, 3)),
                                    float(rng.uniform(0.93, 1.07)))
        M[:, 2] += rng.normal(0, 0.03 * s, 2)
        c = cv2.warpAffine(c, M, (s, s), borderMode=cv2.BORDER_REFLECT)
        if rng.random() < 0.3:  # (s.d. in a 32-px crop's pixels: the same blur on the card
            #   at any crop side)
            c = cv2.GaussianBlur(c, (0, 0), float(rng.uniform(0.4, 1.1)) * (s / 32))
        out[i] = c
    return out


def timed_lr(opt, peak: float, started: float, budget_s: float) -> float:
    """Set the learning rate by the elapsed share of the time budget (warm-up over the first
    5 %, then cosine down to 2 % of the peak); returns the share (>= 1: stop)."""
    frac = (time.perf_counter() - started) / budget_s
    if frac < 0.05:
        lr = peak * (0.1 + 0.9 * frac / 0.05)
    else:
        lr = peak * (0.02 + 0.98 * 0.5 * (1 + np.cos(np.pi * min(1.0, (frac - 0.05) / 0.95))))
    for g in opt.param_groups:
        g["lr"] = lr
    return frac


# ------------------------------------------------------------------ classifier
def load_folded(net, path) -> None:
    """`net`'s (`PieceNet`) weights from an exported ONNX copy of the same widths, whose
    export folded each batch norm into the convolution before it (a weight and a bias per
    convolution, in layer order): the convolutions take the folded weights, the batch norms
    become identities (gain 1, mean 0, variance 1 - eps) carrying the folded biases. Train
    such a net with its batch norms in eval mode (`frozen_norms`): batch statistics would
    undo the folding."""
    import onnx
    import torch
    from onnx import numpy_helper

    init = {t.name: numpy_helper.to_array(t) for t in onnx.load(str(path)).graph.initializer}
    folded = sorted((k for k in init if k.startswith("onnx::Conv_")),
                    key=lambda k: int(k.rsplit("_", 1)[1]))
    convs = [m for m in net.features.modules() if isinstance(m, torch.nn.Conv2d)]
    norms = [m for m in net.features.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    if len(folded) != 2 * len(convs) or len(norms) != len(convs):
        raise ValueError(f"{path}: {len(folded)} folded tensors for {len(convs)} convolutions")
    with torch.no_grad():
        for conv, bn, wk, bk in zip(convs, norms, folded[0::2], folded[1::2], strict=True):
            conv.weight.copy_(torch.from_numpy(np.array(init[wk])))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(np.array(init[bk])))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        params = dict(net.named_parameters())
        for name in ("embed.weight", "embed.bias", "head.2.weight", "head.2.bias"):
            params[name].copy_(torch.from_numpy(np.array(init["net." + name])))


def frozen_norms(net) -> None:
    """`net`'s batch norms in eval mode (their running statistics kept), the rest training."""
    import torch

    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.eval()


def train_classifier(crops, labels, scenes, cfg: ClassifierTrain, crop: CardCropSettings,
                     show=True, augment=photometric):
    import torch

    from vision.classify.create_dataset import progress
    from vision.classify.net import PieceNet
    from vision.classify.train import per_class_accuracy, predict, split_by_scene
    from vision.preprocess import CropSettings, crops_to_input

    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    cs = CropSettings(size=crop.size, mean=crop.mean, std=crop.std)
    index = {c: i for i, c in enumerate(cfg.classes)}
    keep = np.isin(labels, list(index))
    crops, labels, scenes = crops[keep], labels[keep], scenes[keep]
    y = np.array([index[c] for c in labels], np.int64)
    val = split_by_scene(scenes, 0.12, cfg.seed)
    tr, va = np.flatnonzero(~val), np.flatnonzero(val)
    rng = np.random.default_rng(cfg.seed)
    freq = np.bincount(y[tr], minlength=len(cfg.classes)).astype(np.float64)
    w = 1.0 / np.sqrt(np.maximum(freq, 1))
    w = w / (w * freq).sum() * freq.sum()
    net = PieceNet(len(cfg.classes), cfg.widths, cfg.embedding_dim)
    init = getattr(cfg, "init", "")
    if init:
        load_folded(net, init)
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    steps = cfg.epochs * int(np.ceil(len(tr) / cfg.batch_size))
    loss_fn = torch.nn.CrossEntropyLoss(weight=torch.tensor(w, dtype=torch.float32),
                                        label_smoothing=0.05)
    xv = torch.from_numpy(crops_to_input(crops[va], cs))
    history, step, started = [], 0, time.perf_counter()
    frac = 0.0
    for epoch in range(cfg.epochs):
        net.train()
        if init:
            frozen_norms(net)
        order = rng.permutation(tr)
        total = 0.0
        seen = 0
        for b in range(0, len(order), cfg.batch_size):
            frac = timed_lr(opt, cfg.lr, started, cfg.time_limit_s)
            if frac >= 1:
                break
            idx = order[b: b + cfg.batch_size]
            xb = augment(geometric(crops[idx], rng), rng)
            xb = torch.from_numpy(crops_to_input(xb, cs))
            yb = torch.from_numpy(y[idx])
            opt.zero_grad()
            loss = loss_fn(net(xb), yb)
            loss.backward()
            opt.step()
            step += 1
            seen += len(idx)
            total += loss.item() * len(idx)
            if show and step % 20 == 0:
                progress(step, steps, started, f"classifier epoch {epoch + 1}")
        if not seen:  # the time ran out as this epoch began
            break
        acc = round(float((predict(net, xv) == y[va]).mean()), 4)
        history.append({"epoch": epoch + 1, "loss": round(total / seen, 4),
                        "crops": seen,
                        "val_accuracy": acc})
        if show:
            print(f"\rclassifier epoch {epoch + 1}: {history[-1]}" + " " * 20, file=sys.stderr)
        if frac >= 1:
            break
    pred = predict(net, xv)
    info = {"history": history, "per_class": per_class_accuracy(pred, y[va], cfg.classes),
            "val_counts": {c: int((y[va] == i).sum()) for i, c in enumerate(cfg.classes)},
            "counts": {c: int((y == i).sum()) for i, c in enumerate(cfg.classes)},
            "train_s": round(time.perf_counter() - started, 1),
            "params": sum(p.numel() for p in net.parameters())}
    return net, info


# ------------------------------------------------------------------ detector
def detector_targets(keys: np.ndarray, x0: int, y0: int, out_hw, d: DetectSettings,
                     cfg: DetectorTrain):
    """Targets for a patch whose scaled-input origin is (x0, y0): heat (2, h, w), regression
    (5, h, w) (dx, dy, cos, sin, log width) and its mask (h, w)."""
    h, w = out_hw
    heat = np.zeros((2, h, w), np.float32)
    reg = np.zeros((5, h, w), np.float32)
    best = np.full((h, w), np.inf, np.float32)
    gy, gx = np.mgrid[0:h, 0:w].astype(np.float32)
    for x, y, kind, ang, wid in keys:
        xs = (x + 0.5) * d.scale - 0.5 - x0
        ys = (y + 0.5) * d.scale - 0.5 - y0
        cx = (xs - (d.stride - 1) / 2) / d.stride
        cy = (ys - (d.stride - 1) / 2) / d.stride
        if not (-3 <= cx < w + 3 and -3 <= cy < h + 3):
            continue
        d2 = (gx - cx) ** 2 + (gy - cy) ** 2
        k = int(kind)
        heat[k] = np.maximum(heat[k], np.exp(-d2 / (2 * cfg.sigma ** 2)))
        # the exact peak cell gets 1 (focal loss counts it as the positive)
        jx, jy = int(np.floor(cx + 0.5)), int(np.floor(cy + 0.5))
        if 0 <= jx < w and 0 <= jy < h:
            heat[k, jy, jx] = 1.0
        near = (d2 <= cfg.reg_radius ** 2) & (d2 < best)
        best[near] = d2[near]
        t = np.deg2rad(ang)
        reg[0][near] = (cx - gx)[near]
        reg[1][near] = (cy - gy)[near]
        reg[2][near] = np.cos(t)
        reg[3][near] = np.sin(t)
        reg[4][near] = np.log(max(wid, 4.0) / d.size_ref)
    mask = np.isfinite(best).astype(np.float32)
    return heat, reg, mask


def turned_patch(patch: np.ndarray, heat: np.ndarray, reg: np.ndarray, mask: np.ndarray,
                 k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A (p, p, 3) patch and its targets (`detector_targets`: heat (2, o, o), regression
    (5, o, o) dx, dy, cos, sin, log width; mask (o, o)) turned k quarter turns as `np.rot90`
    turns the patch (counter-clockwise on screen): a point (x, y) goes to (y, p - 1 - x), so
    an offset (dx, dy) becomes (dy, -dx) and an angle t becomes t - 90 degrees."""
    k %= 4
    if k == 0:
        return patch, heat, reg, mask
    reg = np.rot90(reg, k, axes=(1, 2)).copy()
    for _ in range(k):
        reg[[0, 1, 2, 3]] = reg[1], -reg[0], reg[3], -reg[2]
    return (np.rot90(patch, k), np.rot90(heat, k, axes=(1, 2)), reg,
            np.rot90(mask, k))


def focal_loss(logits, target):
    import torch

    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = target.eq(1).float()
    neg = 1 - pos
    pos_loss = torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = torch.log(1 - p) * p ** 2 * (1 - target) ** 4 * neg
    n = pos.sum().clamp(min=1)
    return -(pos_loss.sum() + neg_loss.sum()) / n


def train_detector(smalls, keys, cfg: DetectorTrain, d: DetectSettings, show=True):
    import torch

    from vision.cards.keynet import KeyNet, freeze_batch_norms, load_onnx_weights
    from vision.classify.create_dataset import progress

    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    rng = np.random.default_rng(cfg.seed + 1)
    net = KeyNet(cfg.widths)
    if cfg.resume.endswith(".onnx"):  # continue from an exported model (batch norms folded)
        load_onnx_weights(net, cfg.resume)
        freeze_batch_norms(net)
    elif cfg.resume and Path(cfg.resume).is_file():  # continue from saved torch weights
        net.load_state_dict(torch.load(cfg.resume))
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=1e-4)
    p = cfg.patch
    o = p // d.stride
    history, started = [], time.perf_counter()
    run = 0.0
    for step in range(cfg.steps):
        if timed_lr(opt, cfg.lr, started, cfg.time_limit_s) >= 1:
            print(f"\ndetector: time limit after {step} steps", file=sys.stderr)
            break
        xb = np.empty((cfg.batch_size, p, p, 3), np.uint8)
        hb = np.empty((cfg.batch_size, 2, o, o), np.float32)
        rb = np.empty((cfg.batch_size, 5, o, o), np.float32)
        mb = np.empty((cfg.batch_size, o, o), np.float32)
        for b in range(cfg.batch_size):
            i = int(rng.integers(len(smalls)))
            img, k = smalls[i], keys[i]
            hh, ww = img.shape[:2]
            if len(k) and rng.random() < 0.8:  # patches mostly around pieces
                j = int(rng.integers(len(k)))
                cxs, cys = k[j, 0] * d.scale, k[j, 1] * d.scale
                x0 = int(np.clip(cxs - rng.uniform(0.15, 0.85) * p, 0, max(ww - p, 0)))
                y0 = int(np.clip(cys - rng.uniform(0.15, 0.85) * p, 0, max(hh - p, 0)))
            else:
                x0 = int(rng.integers(max(ww - p, 0) + 1))
                y0 = int(rng.integers(max(hh - p, 0) + 1))
            patch = img[y0: y0 + p, x0: x0 + p]
            if patch.shape[:2] != (p, p):
                patch = cv2.copyMakeBorder(patch, 0, p - patch.shape[0], 0, p - patch.shape[1],
                                           cv2.BORDER_REPLICATE)
            heat, reg, mask = detector_targets(k, x0, y0, (o, o), d, cfg)
            if cfg.turn_p and rng.random() < cfg.turn_p:
                patch, heat, reg, mask = turned_patch(patch, heat, reg, mask,
                                                      int(rng.integers(1, 4)))
            xb[b], hb[b], rb[b], mb[b] = patch, heat, reg, mask
        xb = photometric(xb, rng, noise_max=4.0)
        x = torch.from_numpy(small_to_input(xb, d))
        out = net(x)
        hl = focal_loss(out[:, :2], torch.from_numpy(hb))
        m = torch.from_numpy(mb)[:, None]
        rt = torch.from_numpy(rb)
        nm = m.sum().clamp(min=1)
        off = (torch.abs(out[:, 2:4] - rt[:, 0:2]) * m).sum() / nm
        ori = (torch.abs(out[:, 4:6] - rt[:, 2:4]) * m).sum() / nm
        siz = (torch.abs(out[:, 6:7] - rt[:, 4:5]) * m).sum() / nm
        loss = hl + off + 2.0 * ori + siz
        opt.zero_grad()
        loss.backward()
        opt.step()
        run = 0.95 * run + 0.05 * loss.item() if step else loss.item()
        if (step + 1) % 50 == 0:
            history.append({"step": step + 1, "loss": round(run, 4), "heat": round(hl.item(), 4),
                            "offset": round(off.item(), 4), "orient": round(ori.item(), 4),
                            "size": round(siz.item(), 4)})
        if show and (step + 1) % 10 == 0:
            progress(step + 1, cfg.steps, started, f"detector loss {run:.3f}")
    if cfg.save:
        Path(cfg.save).parent.mkdir(parents=True, exist_ok=True)
        torch.save(net.state_dict(), cfg.save)
    info = {"history": history, "steps_done": step,
            "train_s": round(time.perf_counter() - started, 1),
            "params": sum(q.numel() for q in net.parameters())}
    return net, info


# ------------------------------------------------------------------ cards
def write_cards(det_info: dict, cls_info: dict, data: dict) -> None:
    dc = det_info
    lines = [
        "# Model card: `cardkeys.onnx` (card / tile key-point detector)",
        "",
        f"A small fully convolutional network ({dc['params']} parameters, "
        f"{dc['bytes'] / 1024:.0f} KB) on the photo scaled by {data['detect']['scale']}: "
        "output (7, H/2, W/2): heat logits for piece key points (Magic Rabbit tile centre, "
        "Troetofanten top-left corner index, Hop la bille card centre) and dove centres, the "
        "sub-cell offset, the piece's orientation (cos, sin) and log(width / 50 px).",
        "",
        "- Input `input` float32 (N, 3, H, W) RGB, (x/255 - mean) / std, H and W multiples of "
        "8 (`vision.cards.detect.to_input`). Output `maps`.",
        "- Metadata: `detect` (JSON `DetectSettings`), `specs` (key point and crop box per "
        "game), `train` (JSON).",
        "",
        "## Data and training",
        "",
        f"{data['scenes_per_game']} freshly rendered edition-1 scenes per game "
        f"({', '.join(CARD_GAMES)}), seeds from {SEED_BASE} (none of the committed scenes). "
        f"Random {data['detector']['patch']} px patches (mostly around pieces), photometric "
        f"augmentation, focal loss on the heat, L1 on the rest; {dc['steps_done']} steps of "
        f"{data['detector']['batch_size']} in {dc['train_s']:.0f} s on 2 CPU threads.",
        "",
        "| step | loss | heat | offset | orientation | size |",
        "|---|---|---|---|---|---|",
        *[f"| {h['step']} | {h['loss']} | {h['heat']} | {h['offset']} | {h['orient']} | "
          f"{h['size']} |" for h in dc["history"][::2]],
        "",
        "Limits: trained on our own drawings only (pieces.md cues); edition 2 is kept out of "
        "training so its figures in docs/cards.md measure an unseen copy.",
        "",
    ]
    (MODELS_DIR / "cardkeys.md").write_text("\n".join(lines))
    ci = cls_info
    lines = [
        "# Model card: `cards.onnx` (card / tile crop classifier)",
        "",
        f"Issue 5's `PieceNet` (widths {data['classifier']['widths']}, {ci['params']} "
        f"parameters, {ci['bytes'] / 1024:.0f} KB) on {data['crop']['size']} x "
        f"{data['crop']['size']} crops cut by `vision.cards.geometry.crop_card` in the "
        "piece's own frame (Magic Rabbit tile and Hop la bille card: the whole piece with a "
        "margin; Troetofanten: the top-left corner index and the left part of the drawing).",
        "",
        "- Input `input` float32 (N, 3, S, S) RGB, (x/255 - mean) / std "
        "(`vision.preprocess.crops_to_input`). Outputs `probs`, `embedding`.",
        "- Metadata: `classes`, `crop` (JSON), `specs` (JSON), `train` (JSON).",
        f"- Classes ({len(CLASSES)}): {', '.join(CLASSES)}.",
        "",
        "## Data and training",
        "",
        f"Crops from the same {data['scenes_per_game']} scenes per game: every true piece "
        "with its pose jittered like the detector's errors, plus `background` crops (table, "
        "gaps and edges near pieces, and the bottom-right index of Troetofanten cards read as "
        f"a top-left one). {sum(ci['counts'].values())} crops; held-out 12 % of the scenes for "
        f"validation. AdamW one-cycle, class-weighted cross-entropy, photometric + small "
        f"geometric augmentation (no flips or 90-degree turns). Training {ci['train_s']:.0f} s.",
        "",
        "| epoch | loss | val accuracy |",
        "|---|---|---|",
        *[f"| {h['epoch']} | {h['loss']} | {h['val_accuracy']} |" for h in ci["history"]],
        "",
        "| class | val accuracy | val crops | all crops |",
        "|---|---|---|---|",
        *[f"| {c} | {a} | {ci['val_counts'][c]} | {ci['counts'][c]} |"
          for c, a in ci["per_class"].items()],
        "",
    ]
    (MODELS_DIR / "cards.md").write_text("\n".join(lines))


def load_reader_crops(files, side: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The crops of `index_eval --reader-crops` .npz files: per file (crops (N, side, side,
    3) uint8 BGR, classes (N,) str, photo ids (N,) int). `BadInput` for a file that is not
    one, of another crop side, or with a class the index model lacks (read before any scene
    is rendered)."""
    out = []
    for f in files:
        try:
            with np.load(f) as z:
                c, lab, ph = z["crops"], z["labels"].astype(str), z["photo"].astype(np.int64)
        except (OSError, KeyError, ValueError) as exc:
            raise BadInput(f"{f}: not a reader-crops file ({exc})") from None
        if c.shape[1:] != (side, side, 3) or c.dtype != np.uint8 or not \
                len(c) == len(lab) == len(ph):
            raise BadInput(f"{f}: crops {c.shape} {c.dtype} with {len(lab)} labels, the "
                           f"training's are (N, {side}, {side}, 3) uint8")
        unknown = sorted(set(lab.tolist()) - set(INDEX_CLASSES))
        if unknown:
            raise BadInput(f"{f}: classes {unknown} not among {list(INDEX_CLASSES)}")
        out.append((c, lab, ph))
    return out


def with_reader_crops(crops: np.ndarray, labels: np.ndarray, scenes: np.ndarray, loaded=(),
                      repeat: int = 1):
    """The rendered index crops ((N, S, S, 3) uint8 BGR, classes (N,), scene ids (N,)) with
    the reader crops (`load_reader_crops`) appended `repeat` times each (augmented anew each
    time); each file's photos get scene ids of their own after the rendered ones, so the
    validation split holds whole photos out. Returns (crops, labels, scenes, reader crops
    added once)."""
    if not loaded:
        return crops, labels, scenes, 0
    parts_c, parts_l, parts_s, added = [crops], [labels], [scenes], 0
    next_id = int(scenes.max()) + 1 if len(scenes) else 0
    for c, lab, ph in loaded:
        for _ in range(repeat):
            parts_c.append(c)
            parts_l.append(lab)
            parts_s.append(ph + next_id)
        next_id += int(ph.max()) + 1 if len(ph) else 0
        added += len(c)
    return np.concatenate(parts_c), np.concatenate(parts_l), np.concatenate(parts_s), added


def train_index(n_scenes: int, workers: int, cfg: IndexTrain = IndexTrain(),
                out: Path = INDEX_PATH, crop: CardCropSettings = INDEX_CROP) -> int:
    """The corner-index classifier: `out` (default `models/cards-index.onnx`) and its model
    card beside it (`.md`); `crop`: the crop side it reads (`INDEX_SPEC`'s box resampled to
    `crop.size` pixels; written to its metadata, which the reader follows)."""
    import os

    from vision.cards.dataset import SampleSettings, build_index
    from vision.cards.geometry import INDEX_SPEC
    from vision.classify.net import export_onnx as export_cls

    out = Path(out)
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    if cfg.reader_repeat < 1:
        raise BadInput(f"--reader-repeat must be 1 or more, not {cfg.reader_repeat}")
    loaded = load_reader_crops(cfg.reader_crops, crop.size)
    crops, labels, scenes = build_index(n_scenes, cfg.data_seed, crop, workers)
    n_rendered = len(crops)
    crops, labels, scenes, n_reader = with_reader_crops(crops, labels, scenes, loaded,
                                                        cfg.reader_repeat)
    data_s = time.perf_counter() - t0
    print(f"index data: {n_rendered} crops from {n_scenes} scenes, {n_reader} reader crops "
          f"(x{cfg.reader_repeat}) in {data_s:.0f} s", file=sys.stderr)
    net, info = train_classifier(crops, labels, scenes, cfg, crop, augment=partial(
        index_augment, camera=replace(CameraNoise(), share=cfg.camera),
        hard=HardDigits(defocus_share=cfg.hard, motion_share=cfg.hard, cover_share=cfg.hard)))
    total_s = time.perf_counter() - t0
    load1 = os.getloadavg()[0]
    meta = {"classes": json.dumps(list(cfg.classes)),
            "crop": json.dumps(crop.to_metadata()),
            "specs": json.dumps({"troetofanten-index": asdict(INDEX_SPEC)}),
            "train": json.dumps({"history": info["history"], "scenes": n_scenes,
                                 "config": asdict(cfg)})}
    out.parent.mkdir(parents=True, exist_ok=True)
    export_cls(net, out, crop.size, meta)
    s = SampleSettings()
    lines = [
        "# Model card: `cards-index.onnx` (Troetofanten corner-index number)",
        "",
        f"Issue 5's `PieceNet` (widths {cfg.widths}, {info['params']} parameters, "
        f"{out.stat().st_size / 1024:.0f} KB) on {crop.size} x {crop.size} "
        "crops of a card's top-left corner index (`vision.cards.geometry.INDEX_SPEC`, "
        f"u {INDEX_SPEC.crop_u}, v {INDEX_SPEC.crop_v}, cut in the card's frame by "
        "`crop_card`; the reader takes the box and crop size from this model's metadata). "
        "Classes: the number 1-5, or `none` (special cards, backs).",
        "The card classifier (`cards.onnx`) decides the kind of card; this model its number.",
        "",
        "    python -m vision.cards.train --index --scenes "
        f"{n_scenes} --cls-time {cfg.time_limit_s:.0f} --threads {cfg.threads}"
        + (f" --init {cfg.init} --data-seed {cfg.data_seed} --lr {cfg.lr}" if cfg.init else "")
        + (f" --camera-noise {cfg.camera}" if cfg.camera else "")
        + (f" --hard-digits {cfg.hard}" if cfg.hard else "")
        + (f" --data-seed {cfg.data_seed}" if cfg.data_seed and not cfg.init else "")
        + (f" --seed {cfg.seed}" if cfg.seed else "")
        + (f" --index-size {crop.size}" if crop.size != INDEX_CROP.size else "")
        + "".join(f" --reader-crops {f}" for f in cfg.reader_crops)
        + (f" --reader-repeat {cfg.reader_repeat}" if cfg.reader_crops else ""),
        "",
        *([f"Reader crops: {n_reader} index crops cut at the reader's own number frames "
           "(`python -m vision.cards.index_eval DIR... --reader-crops FILE`: every animal "
           "the pipeline's reader reads at the right kind, paired with a true card by key "
           "point, cropped at the frame it reads the number at, labelled with the true "
           f"number), each {cfg.reader_repeat} x, beside the {n_rendered} rendered crops.",
           ""] if cfg.reader_crops else []),
        *([f"Fine-tuned from `{cfg.init}` (its weights, batch norms frozen as folded: "
           f"`load_folded`) on scenes of block {cfg.data_seed}, peak lr {cfg.lr}.", ""]
          if cfg.init else []),
        f"Data: {n_scenes} freshly rendered edition-1 Troetofanten scenes (seeds from "
        f"{SEED_BASE + 500_000 + cfg.data_seed * 100_000}; no committed scene, no edition 2), "
        f"{s.index_tight_crops + 1} crops per card ({s.index_tootophant_crops + 1} per "
        "tootophant, whose yellow numbers are the misread ones): "
        f"{s.index_tight_crops} ({s.index_tootophant_crops}) at a reader-like "
        f"pose (key point s.d. {s.index_tight_key} card widths, angle {s.index_tight_angle} "
        f"degrees or for {s.index_tail_share:.0%} of them {s.index_tail_angle} (the reader's "
        f"angle error has a long tail), width {s.index_tight_width} relative), one at a "
        f"detector-like pose ({s.index_jitter_key}, {s.index_jitter_angle}, "
        f"{s.index_jitter_width}): {n_rendered} crops, {data_s:.0f} s. Held out for "
        "validation: 12 % of the scenes. Augmentation: small shift/zoom/rotation and blur, "
        f"{INDEX_RESOLUTION.share:.0%} of the crops down-sampled to "
        f"{INDEX_RESOLUTION.scale[0]}-{INDEX_RESOLUTION.scale[1]} of their side and back (a "
        f"farther camera), a coloured/contrasty light on {INDEX_LIGHT.share:.0%} (per-channel "
        "gamma and gain), then the card models' colour jitter and noise"
        + (f"; then on {cfg.camera:.0%} a phone camera's noise and JPEG (`CameraNoise`: "
           f"{asdict(CameraNoise())})" if cfg.camera else "")
        + (f"; the hard digits on {cfg.hard:.0%} each (`HardDigits`: a defocus s.d. "
           f"{HardDigits.defocus_sd} crop px, else a motion blur {HardDigits.motion_len} px, "
           f"and a cover of {HardDigits.cover_area} of the crop by another crop beyond a "
           "line from the right or bottom edge), first" if cfg.hard else "") + ".",
        f"Training {info['train_s']:.0f} s ({len(info['history'])} epochs, time-budgeted "
        f"{cfg.time_limit_s:.0f} s, {cfg.threads} torch thread(s), batch {cfg.batch_size}, "
        f"AdamW peak lr {cfg.lr}); data + training {total_s / 60:.1f} minutes wall on this "
        f"2-core machine, 1-minute load {load0:.1f} at the start, {load1:.1f} at the end.",
        "",
        "| epoch | loss | val accuracy |",
        "|---|---|---|",
        *[f"| {h['epoch']} | {h['loss']} | {h['val_accuracy']} |" for h in info["history"]],
        "",
        "| class | val accuracy | val crops | all crops |",
        "|---|---|---|---|",
        *[f"| {c} | {a} | {info['val_counts'][c]} | {info['counts'][c]} |"
          for c, a in info["per_class"].items()],
        "",
        "Number accuracy at the true card outline (the model alone): "
        "`python -m vision.cards.index_eval FOLDER...`; figures in docs/cards.md.",
        "",
    ]
    out.with_suffix(".md").write_text("\n".join(lines))
    print(f"wrote {out} in {total_s:.0f} s", file=sys.stderr)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenes", type=int, default=None,
                    help="scenes per game (default 450; --index: 2000 Troetofanten scenes)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--only", choices=("both", "detector", "classifier"), default="both")
    ap.add_argument("--data", default="build/cards-data.pkl",
                    help="rendered data cache (reused when it exists)")
    ap.add_argument("--det-steps", type=int, default=None)
    ap.add_argument("--epochs", type=int, default=None)
    ap.add_argument("--resume", default="",
                    help="detector: start from these torch weights, or an exported .onnx")
    ap.add_argument("--det-time", type=float, default=None, help="detector time budget, s")
    ap.add_argument("--det-lr", type=float, default=None, help="detector peak learning rate")
    ap.add_argument("--det-turn", type=float, default=None,
                    help="share of detector patches turned by a random quarter turn")
    ap.add_argument("--cls-time", type=float, default=None,
                    help="classifier (or --index) time budget, s")
    ap.add_argument("--threads", type=int, default=None, help="torch threads")
    ap.add_argument("--index", action="store_true",
                    help="train only the Troetofanten corner-index classifier")
    ap.add_argument("--out", default="",
                    help="--index (and --only classifier): write the model here instead of "
                    "models/ (--index: its .md card beside it)")
    ap.add_argument("--init", default="",
                    help="start the classifier (or --index model) from this exported model "
                    "(.onnx, the same widths) instead of from scratch")
    ap.add_argument("--data-seed", type=int, default=None,
                    help="the block of scenes rendered (default 0)")
    ap.add_argument("--lr", type=float, default=None,
                    help="the classifier's (or --index's) peak learning rate")
    ap.add_argument("--camera-noise", type=float, default=None,
                    help="share of the classifier's (or --index's) crops given a phone's "
                    "noise and JPEG (`CameraNoise`; default 0: off)")
    ap.add_argument("--hard-digits", type=float, default=None,
                    help="--index: share of the crops defocused, of the others motion-blurred, "
                    "and of all partly covered (`HardDigits`; default 0: off)")
    ap.add_argument("--seed", type=int, default=None,
                    help="the classifier's (or --index's) weight, order and augmentation seed "
                    "(default 0)")
    ap.add_argument("--index-size", type=int, default=None,
                    help="--index: the crop side in pixels (default 32, `INDEX_CROP`)")
    ap.add_argument("--reader-crops", action="append", default=None,
                    help="--index: add the crops of this .npz (`python -m "
                    "vision.cards.index_eval DIR... --reader-crops FILE`: cut at the reader's "
                    "own number frames, true numbers); repeatable")
    ap.add_argument("--reader-repeat", type=int, default=None,
                    help="--index: each reader crop this many times (default 1)")
    args = ap.parse_args(argv)
    crop, dset = CardCropSettings(), DetectSettings()
    # the classifiers' command-line overrides (the card classifier's and --index's)
    cls_over = {k: v for k, v in (("time_limit_s", args.cls_time), ("threads", args.threads),
                                  ("epochs", args.epochs), ("camera", args.camera_noise),
                                  ("hard", args.hard_digits), ("seed", args.seed))
                if v}
    cls_over.update({k: v for k, v in (("init", args.init), ("data_seed", args.data_seed),
                                       ("lr", args.lr)) if v})
    if args.reader_crops:
        cls_over["reader_crops"] = tuple(args.reader_crops)
    if args.reader_repeat is not None:
        cls_over["reader_repeat"] = args.reader_repeat
    if args.index:
        try:
            return train_index(args.scenes or 2000, args.workers,
                               replace(IndexTrain(), **cls_over), Path(args.out or INDEX_PATH),
                               replace(INDEX_CROP, size=args.index_size or INDEX_CROP.size))
        except TablescoreError as exc:
            raise SystemExit(exc.message) from None
    ccfg, dcfg = replace(ClassifierTrain(), **cls_over), DetectorTrain()
    if args.threads:
        dcfg = replace(dcfg, threads=args.threads)
    args.scenes = args.scenes or 450
    if args.det_steps:
        dcfg = replace(dcfg, steps=args.det_steps)
    if args.resume:
        dcfg = replace(dcfg, resume=args.resume)
    if args.det_time:
        dcfg = replace(dcfg, time_limit_s=args.det_time)
    if args.det_lr:
        dcfg = replace(dcfg, lr=args.det_lr)
    if args.det_turn is not None:
        dcfg = replace(dcfg, turn_p=args.det_turn)
    t0 = time.perf_counter()
    cache = Path(args.data)
    if cache.is_file():
        with cache.open("rb") as f:
            smalls, keys, games, crops, labels, scenes = pickle.load(f)
    else:
        smalls, keys, games, crops, labels, scenes = build(args.scenes, ccfg.data_seed, crop,
                                                           args.workers)
        cache.parent.mkdir(parents=True, exist_ok=True)
        with cache.open("wb") as f:
            pickle.dump((smalls, keys, games, crops, labels, scenes), f, protocol=4)
    data_s = time.perf_counter() - t0
    print(f"data: {len(smalls)} scenes, {len(crops)} crops in {data_s:.0f} s", file=sys.stderr)
    MODELS_DIR.mkdir(exist_ok=True)
    data = {"scenes_per_game": args.scenes, "detect": asdict(dset), "crop": asdict(crop),
            "detector": asdict(dcfg), "classifier": asdict(ccfg), "data_s": round(data_s, 1)}
    det_info = cls_info = None
    if args.only in ("both", "classifier"):
        from vision.classify.net import export_onnx as export_cls

        net, cls_info = train_classifier(crops, labels, scenes, ccfg, crop, augment=partial(
            card_augment, camera=replace(CameraNoise(), share=ccfg.camera)))
        meta = {"classes": json.dumps(list(ccfg.classes)),
                "crop": json.dumps(crop.to_metadata()), "specs": specs_metadata(),
                "train": json.dumps({"history": cls_info["history"],
                                     "scenes_per_game": args.scenes})}
        cls_path = Path(args.out) if args.out and args.only == "classifier" \
            else CLASSIFIER_PATH
        export_cls(net, cls_path, crop.size, meta)
        cls_info["bytes"] = cls_path.stat().st_size
        print(f"wrote {cls_path}", file=sys.stderr)
    if args.only in ("both", "detector"):
        from vision.cards.keynet import export_onnx as export_det

        net, det_info = train_detector(smalls, keys, dcfg, dset)
        meta = {"detect": json.dumps(asdict(dset)), "specs": specs_metadata(),
                "train": json.dumps({"history": det_info["history"],
                                     "scenes_per_game": args.scenes})}
        export_det(net, DETECTOR_PATH, meta)
        det_info["bytes"] = DETECTOR_PATH.stat().st_size
        print(f"wrote {DETECTOR_PATH}", file=sys.stderr)
    if det_info and cls_info:
        write_cards(det_info, cls_info, data)
        Path("build").mkdir(exist_ok=True)
        Path("build/cards-train.json").write_text(json.dumps(
            {"detector": det_info, "classifier": cls_info, "data": data}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
