"""The Troetofanten corner-index model's data, augmentation, training and true-pose check."""

import json
from dataclasses import replace

import numpy as np
import pytest

from vision.cards.dataset import SampleSettings, index_jitter, index_label, index_samples
from vision.cards.geometry import INDEX_SPEC, SPECS, crop_card, pose_from_frame
from vision.cards.train import (
    INDEX_CROP,
    CameraNoise,
    LightJitter,
    ResolutionJitter,
    camera_noise,
    index_augment,
    light_jitter,
    resolution_jitter,
)


@pytest.mark.parametrize("label, want", [
    ("elephant-1", "1"),
    ("elephant-5", "5"),
    ("tootophant-2", "2"),
    ("mouse", "none"),  # special cards carry a symbol, no number
    ("back", "none"),
])
def test_index_label(label, want):
    assert index_label(label) == want


def _scene(seed=0):
    """A tiny photo with one upright card (a dark square where its index is) and its truth."""
    rng = np.random.default_rng(seed)
    img = rng.integers(90, 110, (160, 200, 3), dtype=np.uint8)
    poly = np.array([[50.0, 30.0], [110.0, 30.0], [110.0, 122.5], [50.0, 122.5]])
    img[33:47, 55:66] = 20
    truth = {"pieces": [{"label": "tootophant-4", "polygon": poly.tolist(), "visible": 1.0}]}
    return img, truth, poly


@pytest.mark.parametrize("label, n", [
    ("elephant-4", 3),  # two reader-like crops, one detector-like
    ("tootophant-4", 5),  # four reader-like crops of a tootophant's yellow number
    ("mouse", 3),  # special cards: their index is `none`
])
def test_index_samples_crops_per_card_at_the_true_pose_without_jitter(label, n):
    img, truth, poly = _scene()
    truth["pieces"][0]["label"] = label
    still = replace(SampleSettings(), index_jitter_key=0, index_jitter_angle=0,
                    index_jitter_width=0, index_tight_key=0, index_tight_angle=0,
                    index_tight_width=0, index_tail_angle=0)
    crops, labels = index_samples(img, truth, np.random.default_rng(0), INDEX_CROP, still)
    assert labels == [index_label(label)] * n
    assert crops.shape == (n, INDEX_CROP.size, INDEX_CROP.size, 3) and crops.dtype == np.uint8
    want = crop_card(img, poly, INDEX_SPEC, INDEX_CROP)
    key, _, _ = pose_from_frame(poly, SPECS["troetofanten"])  # the frame survives the round trip
    assert np.allclose(key, poly[0] + [0.17 * 60, 0.11 * 92.5])
    assert np.abs(crops.astype(int) - want).max() <= 1
    assert all(np.array_equal(crops[0], c) for c in crops)


def test_index_samples_reader_like_crops_are_the_tighter_ones():
    img, truth, poly = _scene()
    want = crop_card(img, poly, INDEX_SPEC, INDEX_CROP).astype(float)
    d = np.zeros(5)
    for seed in range(40):
        crops, _ = index_samples(img, truth, np.random.default_rng(seed), INDEX_CROP)
        d += np.abs(crops.astype(float) - want).mean(axis=(1, 2, 3))
    assert np.all(d[:-1] < d[-1])  # the tootophant's four reader-like crops, then the wide one


@pytest.mark.parametrize("share, want", [
    (0.0, 0.0),  # every reader-like crop at the tight angle
    (1.0, 1.0),  # every one at the tail's
    (0.3, 0.3),  # the default mixture
])
def test_index_jitter_angle_tail(share, want):
    s = replace(SampleSettings(), index_tail_share=share)
    rng = np.random.default_rng(1)
    got = np.array([index_jitter(rng, True, s) for _ in range(4000)])
    assert np.all(got[:, 0] == s.index_tight_key) and np.all(got[:, 2] == s.index_tight_width)
    assert set(got[:, 1]) <= {s.index_tight_angle, s.index_tail_angle}
    assert abs(np.mean(got[:, 1] == s.index_tail_angle) - want) < 0.03
    assert index_jitter(rng, False, s) == (s.index_jitter_key, s.index_jitter_angle,
                                           s.index_jitter_width)  # the detector-like crop


@pytest.mark.parametrize("s, changed", [
    (LightJitter(share=0.0), False),  # no crop drawn
    (LightJitter(share=1.0, gamma_sd=0.0, gain_sd=0.0), False),  # gamma 1, gain 1
    (LightJitter(share=1.0), True),
])
def test_light_jitter(s, changed):
    x = np.random.default_rng(3).integers(0, 256, (6, 8, 8, 3), dtype=np.uint8)
    y = light_jitter(x, np.random.default_rng(4), s)
    assert y.shape == x.shape and y.dtype == np.uint8
    # the uint8 round trip of gamma 1 may move a level by one
    assert (np.abs(y.astype(int) - x).max() > 2) == changed


@pytest.mark.parametrize("s, changed", [
    (ResolutionJitter(share=0.0), 0),  # no crop drawn
    (ResolutionJitter(share=1.0, scale=(1.0, 1.0)), 0),  # down to the same side: a copy
    (ResolutionJitter(share=1.0, scale=(0.4, 0.5)), 5),  # every crop loses its fine detail
])
def test_resolution_jitter(s, changed):
    x = np.random.default_rng(3).integers(0, 256, (5, 32, 32, 3), dtype=np.uint8)
    y = resolution_jitter(x, np.random.default_rng(4), s)
    assert y.shape == x.shape and y.dtype == np.uint8
    assert sum(not np.array_equal(a, b) for a, b in zip(x, y, strict=True)) == changed
    # the random pixels' contrast drops where they were averaged
    assert all(b.std() < a.std() * 0.8 for a, b in zip(x, y, strict=True)
               if not np.array_equal(a, b))


def test_index_augment_is_seeded_and_keeps_the_crops_shape():
    x = np.random.default_rng(5).integers(0, 256, (4, 32, 32, 3), dtype=np.uint8)
    a = index_augment(x, np.random.default_rng(9))
    b = index_augment(x, np.random.default_rng(9))
    assert a.shape == x.shape and a.dtype == np.uint8 and np.array_equal(a, b)
    assert not np.array_equal(a, x)


def test_index_eval_counts_every_animal_at_its_true_outline(tmp_path, capsys):
    import cv2

    from vision.cards.index_eval import main

    img, truth, poly = _scene()
    truth["pieces"] += [{"label": "elephant-2", "polygon": (poly + [70, 0]).tolist()},
                        {"label": "lasso", "polygon": (poly + [0, 30]).tolist()}]
    cv2.imwrite(str(tmp_path / "a.jpg"), img)
    (tmp_path / "a.json").write_text(json.dumps(truth))
    assert main([str(tmp_path), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["models/cards-index.onnx"]
    assert got["all"]["animals"] == 2  # the lasso has no number
    assert 0 <= got["all"]["wrong"] <= 2
    assert 0 <= got["all"]["blurred_wrong"] <= got["all"]["blurred"] <= 2


@pytest.mark.parametrize("photo, blur", [
    (None, "unknown"),  # a truth without the renderer's photo faults
    ({"defocus_sigma": 0.0, "motion_px": 0}, "sharp"),
    ({"defocus_sigma": 0.8, "motion_px": 0}, "defocus <= 1 px"),
    ({"defocus_sigma": 1.4, "motion_px": 0}, "defocus > 1 px"),
    ({"defocus_sigma": 0.0, "motion_px": 5}, "motion"),
])
def test_index_eval_splits_the_animals_by_photo_blur(tmp_path, capsys, photo, blur):
    import cv2

    from vision.cards.index_eval import main

    img, truth, poly = _scene()
    truth["pieces"] += [{"label": "elephant-2", "polygon": (poly + [70, 0]).tolist()}]
    if photo is not None:
        truth["photo"] = photo
    cv2.imwrite(str(tmp_path / "a.jpg"), img)
    (tmp_path / "a.json").write_text(json.dumps(truth))
    assert main([str(tmp_path), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["models/cards-index.onnx"]
    for part in (got[str(tmp_path)], got["all"]):
        (key, value), = part["wrong_by_photo_blur"].items()
        wrong, animals = (int(v) for v in value.split("/"))
        assert key == blur and animals == 2 and wrong == got["all"]["wrong"]


@pytest.mark.slow
def test_train_index_writes_a_model_the_reader_crops_for(tmp_path):
    from vision.cards.read import index_spec
    from vision.cards.train import IndexTrain, train_index
    from vision.classify.model import PieceClassifier

    out = tmp_path / "idx.onnx"
    assert train_index(3, 1, replace(IndexTrain(), time_limit_s=2.0), out) == 0
    m = PieceClassifier(out, 1)
    assert m.crop.size == INDEX_CROP.size
    assert tuple(m.classes) == ("1", "2", "3", "4", "5", "none")
    assert index_spec(m) == INDEX_SPEC
    assert "data + training" in out.with_suffix(".md").read_text()


@pytest.mark.parametrize("shift, turn, scale, want", [
    ((0.0, 0.0), 0.0, 1.0, (0.0, 0.0, 0.0, 1.0)),  # the true frame itself
    ((6.0, 0.0), 0.0, 1.0, (0.1, 0.0, 0.0, 1.0)),  # key 6 px along u on a 60 px card
    ((0.0, -3.0), 0.0, 1.0, (0.0, -0.05, 0.0, 1.0)),  # 3 px up, against v
    ((0.0, 0.0), 10.0, 1.0, (0.0, 0.0, 10.0, 1.0)),  # turned about the key point
    ((0.0, 0.0), -350.0, 1.0, (0.0, 0.0, 10.0, 1.0)),  # the angle wraps
    ((0.0, 0.0), 0.0, 0.8, (0.0, 0.0, 0.0, 0.8)),  # narrower
])
def test_pose_error(shift, turn, scale, want):
    from vision.cards.geometry import frame_from_pose
    from vision.cards.index_eval import pose_error

    spec = SPECS["troetofanten"]
    _, _, poly = _scene()
    key, ang, w = pose_from_frame(poly, spec)
    frame = frame_from_pose(key + np.array(shift), ang + turn, w * scale, spec)
    assert np.allclose(pose_error(poly, frame, spec), want, atol=1e-9)


def test_pose_error_along_a_turned_card():
    from vision.cards.geometry import frame_from_pose
    from vision.cards.index_eval import pose_error

    spec, t = SPECS["troetofanten"], np.deg2rad(30.0)
    key = np.array([60.0, 40.0])
    truth = frame_from_pose(key, 30.0, 60.0, spec)
    moved = key + 6 * np.array([np.cos(t), np.sin(t)]) + 3 * np.array([-np.sin(t), np.cos(t)])
    assert np.allclose(pose_error(truth, frame_from_pose(moved, 30.0, 60.0, spec), spec),
                       (0.1, 0.05, 0.0, 1.0), atol=1e-9)


@pytest.mark.parametrize("poses", [False, True])
def test_index_eval_on_an_empty_folder_says_so(tmp_path, poses):
    from vision.cards.index_eval import main

    with pytest.raises(SystemExit, match="no scenes"):
        main([str(tmp_path)] + (["--poses"] if poses else []))


def _tiny_net(seed: int, widths=(4, 8, 8)):
    """A small `PieceNet` with random weights and batch-norm statistics (as a trained one's)."""
    import torch

    from vision.classify.net import PieceNet

    torch.manual_seed(seed)
    net = PieceNet(6, widths, 8)
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.3, 0.3)
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 2.0)
    return net.eval()


def test_load_folded_starts_a_net_where_an_exported_model_stands(tmp_path):
    import torch

    from vision.cards.train import frozen_norms, load_folded
    from vision.classify.net import export_onnx

    path = tmp_path / "idx.onnx"
    export_onnx(_tiny_net(1), path, 32, {})  # (the export folds each batch norm away)
    net = _tiny_net(2)  # other weights: all of them replaced
    load_folded(net, path)
    x = torch.from_numpy(np.random.default_rng(0).normal(0, 1, (5, 3, 32, 32)).astype(np.float32))
    with torch.no_grad():
        want = _tiny_net(1).infer(x)[0]
        assert torch.allclose(net.eval().infer(x)[0], want, atol=1e-5)
        net.train()
        frozen_norms(net)  # a training step's forward keeps the folded statistics
        net(x)
        assert torch.allclose(net.eval().infer(x)[0], want, atol=1e-5)
        bn = net.features[0][1]
        net.train()  # batch statistics would move the folded ones (`frozen_norms`' reason)
        net(x)
        assert (bn.running_var - (1 - bn.eps)).abs().max() > 1e-3


def test_load_folded_refuses_a_model_of_other_widths(tmp_path):
    from vision.cards.train import load_folded
    from vision.classify.net import export_onnx

    path = tmp_path / "idx.onnx"
    export_onnx(_tiny_net(1, (4, 8, 8)), path, 32, {})
    with pytest.raises((ValueError, RuntimeError)):
        load_folded(_tiny_net(2, (8, 8, 8)), path)


# a camera with neither noise nor blur nor JPEG: the crops come back as they went in
_QUIET = CameraNoise(share=1.0, exposure=(1.0, 1.0), shot=(1e-9, 1e-9), read=(1e-7, 1e-7),
                     denoise_share=0.0, jpeg_share=0.0)


def test_camera_noise_off_draws_nothing_and_changes_nothing():
    x = np.random.default_rng(3).integers(0, 256, (6, 16, 16, 3), dtype=np.uint8)
    rng = np.random.default_rng(4)
    y = camera_noise(x, rng, CameraNoise())  # the default: off
    assert np.array_equal(x, y) and rng.random() == np.random.default_rng(4).random()


@pytest.mark.parametrize("s, want", [
    (_QUIET, "same"),  # the linear round trip alone keeps every level
    (replace(_QUIET, jpeg_share=1.0, jpeg=(40, 40)), "jpeg"),  # exactly a quality-40 JPEG
    (replace(_QUIET, exposure=(0.5, 0.5)), "darker"),  # half the light
])
def test_camera_noise_parts(s, want):
    import cv2

    x = np.random.default_rng(3).integers(0, 256, (3, 16, 16, 3), dtype=np.uint8)
    y = camera_noise(x, np.random.default_rng(4), s)
    assert y.shape == x.shape and y.dtype == np.uint8
    if want == "same":
        assert np.array_equal(x, y)
    elif want == "jpeg":
        for a, b in zip(x, y, strict=True):
            ok, buf = cv2.imencode(".jpg", a, [cv2.IMWRITE_JPEG_QUALITY, 40])
            assert np.array_equal(b, cv2.imdecode(buf, cv2.IMREAD_COLOR))
            assert not np.array_equal(a, b)
    else:
        assert (y.astype(int) <= x).all() and y.mean() < 0.85 * x.mean()


def test_camera_noise_grows_with_the_signal():
    """Shot noise: the linear noise's s.d. grows as the square root of the signal."""
    from vision.area import LINEAR8

    s = replace(_QUIET, shot=(1e-3, 1e-3), grain=(1.0, 1.0))
    levels = (60, 200)  # dark and bright grey crops (sRGB levels)
    x = np.stack([np.full((32, 32, 3), v, np.uint8) for v in levels for _ in range(8)])
    y = LINEAR8[camera_noise(x, np.random.default_rng(4), s)]
    dark, bright = y[:8].std(), y[8:].std()
    ratio = np.sqrt(LINEAR8[levels[1]] / LINEAR8[levels[0]])  # about 3.6
    assert 0.7 * ratio < bright / dark < 1.3 * ratio


def test_camera_noise_is_seeded_and_touches_its_share():
    x = np.random.default_rng(5).integers(0, 256, (40, 16, 16, 3), dtype=np.uint8)
    s = CameraNoise(share=0.5)
    a = camera_noise(x, np.random.default_rng(9), s)
    assert np.array_equal(a, camera_noise(x, np.random.default_rng(9), s))
    changed = sum(not np.array_equal(p, q) for p, q in zip(x, a, strict=True))
    assert 10 <= changed <= 30
