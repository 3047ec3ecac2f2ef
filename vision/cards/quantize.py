"""Make int8 copies of the card reader's crop classifiers (issue 6: Troetofanten's time).

    python -m vision.cards.quantize [--models cards-index] [--scenes 12] [--check]

For each named model `models/M.onnx` this writes `models/M-int8.onnx`: onnxruntime's static
quantization (QDQ: int8 per-channel weights, uint8 activations, ranges from the 99.999th
percentile; the first convolution (3 input channels, little work) and the two fully
connected layers (the embedding and the logits) stay float) calibrated on
the crops the reader itself feeds the model while it reads freshly rendered Troetofanten
photos: scenes 15.. of synth seeds 3000 (edition 1) and 3001 (edition 2), i.e. none of the
committed photos and none of the 15-photo sets `tablescore synth --count 15 --seed 3000 /
3001` writes, each photo under one of `vision.light_eval`'s seven lights in turn (the
ranges then cover a dim, a harsh and a glaring photo's crops too). The float model's
metadata (`classes`, `crop`, ...) is copied into the int8 one, with `int8` (JSON: how it
was made). Deterministic for the same onnxruntime version.

Only `cards-index-int8.onnx` is used (`ReadSettings.int8_index`); an int8 `cards.onnx`
read worse (docs/cards.md, session 24 H1) and is made only by `--models cards`.
Needs `onnx` (the training extra); the reader needs only onnxruntime. `--check` prints
the float and int8 models' top-class agreement and largest probability difference on the
calibration crops.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

MODELS_DIR = Path(__file__).resolve().parents[2] / "models"
CALIBRATION_SEEDS = ((3000, 1), (3001, 2))  # (synth seed, edition); scenes from FIRST_SCENE
FIRST_SCENE = 15  # `--count 15` sets of these seeds (the evaluation's) hold scenes 0-14
BATCH = 64  # calibration batch (crops; the percentile calibrator needs equal batches: the
#              last, partial one is left out)


class _Recorder:
    """An onnxruntime session stand-in that keeps every `input` it is given."""

    def __init__(self, session):
        self.session, self.inputs = session, []

    def run(self, outputs, feeds, *args, **kw):
        self.inputs.append(np.array(feeds["input"], np.float32))
        return self.session.run(outputs, feeds, *args, **kw)

    def __getattr__(self, name):
        return getattr(self.session, name)


def calibration_photos(scenes: int):
    """(name, BGR uint8 photo) of the calibration scenes, each under one light in turn."""
    from vision.light_eval import LIGHTS, photo_rng
    from vision.synth.dataset import scene_name, scene_seed
    from vision.synth.render import render_scene

    lights = list(LIGHTS)
    k = 0
    for seed, edition in CALIBRATION_SEEDS:
        for i in range(FIRST_SCENE, FIRST_SCENE + scenes):
            image, _ = render_scene("troetofanten", scene_seed(seed, i), edition)
            name = scene_name("troetofanten", edition, seed, i)
            light = lights[k % len(lights)]
            k += 1
            yield f"{name}/{light}", LIGHTS[light](image, photo_rng(name + ".jpg", light))


def record_inputs(models: list[str], scenes: int) -> dict[str, np.ndarray]:
    """The float models' inputs ((N, 3, S, S) float32 each) while the pipeline reads the
    calibration photos."""
    from vision.cards.read import INDEX_PATH
    from vision.classify.model import PieceClassifier
    from vision.pipeline import get_pipeline, score_photo

    reader = get_pipeline().cards
    own_index = reader.index
    reader.index = PieceClassifier(INDEX_PATH, threads=1)  # (the float model reads, whichever
    #   the reader takes: the same crops whether an int8 copy is there already or not)
    clfs = {"cards": reader.classifier, "cards-index": reader.index}
    recs = {}
    for m in models:
        recs[m] = _Recorder(clfs[m].session)
        clfs[m].session = recs[m]
    try:
        for name, photo in calibration_photos(scenes):
            ok, data = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, 90])
            try:
                score_photo(data.tobytes(), "troetofanten", {})
            except Exception as exc:  # a photo the reader rejects: its crops so far count
                print(f"{name}: {exc}", file=sys.stderr)
    finally:
        for m in models:
            clfs[m].session = recs[m].session
        reader.index = own_index
    return {m: np.concatenate(recs[m].inputs) for m in models}


def quantize(src: Path, out: Path, crops: np.ndarray) -> None:
    """Write `out`: `src` statically quantized (QDQ) with `crops` as calibration data."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.batches = iter([{"input": crops[i:i + BATCH]}
                                 for i in range(0, len(crops) - BATCH + 1, BATCH)])

        def get_next(self):
            return next(self.batches, None)

    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
        nodes = onnx.load(str(pre)).graph.node
        convs = [n.name for n in nodes if n.op_type == "Conv"]
        keep_float = convs[:1] + [n.name for n in nodes if n.op_type == "Gemm"]
        quantize_static(str(pre), str(out), Reader(), quant_format=QuantFormat.QDQ,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        per_channel=True, calibrate_method=CalibrationMethod.Percentile,
                        nodes_to_exclude=keep_float)
    meta = {p.key: p.value for p in onnx.load(str(src)).metadata_props}
    meta["int8"] = json.dumps({"from": src.name, "calibration_seeds": CALIBRATION_SEEDS,
                               "first_scene": FIRST_SCENE, "crops": int(len(crops)),
                               "format": "QDQ u8 activations, s8 per-channel weights, "
                               "percentile 99.999; float: first conv, Gemm"})
    model = onnx.load(str(out))
    del model.metadata_props[:]
    for k, v in meta.items():
        model.metadata_props.add(key=k, value=v)
    onnx.save(model, str(out))


def check(src: Path, out: Path, crops: np.ndarray) -> dict:
    """Top-class agreement and the largest |P| difference of the two models on `crops`."""
    import onnxruntime as ort

    def probs(path):
        s = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        return np.concatenate([s.run(None, {"input": crops[i:i + BATCH]})[0]
                               for i in range(0, len(crops), BATCH)])

    a, b = probs(src), probs(out)
    return {"crops": int(len(crops)),
            "top_agree": float(np.mean(a.argmax(1) == b.argmax(1))),
            "max_abs_diff": float(np.abs(a - b).max()),
            "mean_abs_diff": float(np.abs(a - b).mean())}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="cards-index",
                    help="comma-separated: cards-index, cards (default cards-index)")
    ap.add_argument("--scenes", type=int, default=12, help="calibration scenes per seed")
    ap.add_argument("--check", action="store_true", help="print the float/int8 agreement")
    args = ap.parse_args(argv)
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    bad = [m for m in models if m not in ("cards", "cards-index")]
    if bad or not models or args.scenes < 1:
        ap.error(f"--models: cards-index and/or cards (not {bad}); --scenes >= 1")
    crops = record_inputs(models, args.scenes)
    for m in models:
        src, out = MODELS_DIR / f"{m}.onnx", MODELS_DIR / f"{m}-int8.onnx"
        quantize(src, out, crops[m])
        report = {"model": out.name, "calibration_crops": int(len(crops[m]))}
        if args.check:
            report.update(check(src, out, crops[m]))
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
