"""Teach mode for Mauerhuepfer pawns (`vision.teach_pawns`, `tablescore teach` / `score
--teach` for mauerhuepfer)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.teach_pawns as tp
from vision.mauer import CLASSES, N_FEATURES
from vision.teach import Profile, TeachError, build_profile

COLOURS = ("pawn-red", "pawn-yellow", "pawn-green", "pawn-black")
# colour vectors (foot, body, head: L / 255, a / 64, b / 64), roughly as the board reads them
VEC = {"pawn-red": (0.3, 0.7, 0.5), "pawn-yellow": (0.55, -0.1, 0.85),
       "pawn-green": (0.45, -0.65, 0.5), "pawn-black": (0.1, 0.0, 0.0)}


# the pawns taught under teach_eval's harsh warm light (the board white balances less)
HARSH = {"pawn-red": (0.4, 0.9, 0.75), "pawn-yellow": (0.64, 0.08, 1.0),
         "pawn-green": (0.44, -0.38, 0.59), "pawn-black": (0.09, 0.19, 0.17)}


def profile(labels=COLOURS, vec=VEC) -> Profile:
    protos = np.array([vec[lab] * 3 for lab in labels], np.float32)
    return Profile(game="mauerhuepfer", labels=tuple(labels), prototypes=protos,
                   colours=np.zeros((len(labels), 3), np.float32),
                   counts=np.ones(len(labels), np.int64), classes=CLASSES, model=tp.MODEL)


def features(*vecs) -> np.ndarray:
    f = np.zeros((len(vecs), N_FEATURES), np.float32)
    f[:, tp.COLOUR_COLUMNS] = np.array([v * 3 for v in vecs], np.float32)
    return f


@pytest.mark.parametrize("model, seen, want", [
    ((0.1, 0.2, 0.2, 0.2, 0.3), "pawn-red", 1),  # the model says black, the colour is red
    ((0.1, 0.5, 0.2, 0.1, 0.1), "pawn-green", 3),  # says red, is green
    ((0.9, 0.001, 0.001, 0.097, 0.001), "pawn-yellow", 2),  # mostly empty: stays so
])
def test_prototypes_decide_the_colour_and_keep_p_empty(model, seen, want):
    pr = np.array([model], np.float32)
    out = tp.taught_proba(profile(), pr, features(VEC[seen]))
    assert out[0, 1:].argmax() + 1 == want
    assert out[0, 0] == pytest.approx(pr[0, 0])
    assert out.sum() == pytest.approx(1.0, abs=1e-5)


def test_one_taught_colour_alone_keeps_the_model_colour():
    """Untaught colours get the taught ones' mean distance term: with one colour taught every
    colour gets the same term, so the model's colour stands (teaching one colour never
    forbids the others)."""
    pr = np.array([[0.2, 0.1, 0.5, 0.1, 0.1]], np.float32)
    out = tp.taught_proba(profile(("pawn-red",)), pr, features(VEC["pawn-red"]))
    assert out[0].argmax() == 2 and out[0, 0] == pytest.approx(0.2)


@pytest.mark.parametrize("gate, want", [
    (0.7, 2),  # like no taught pawn: the model's yellow stands (the box rules judge it)
    (0.0, 4),  # gate off: the nearest of the far prototypes (black) took it
])
def test_a_spot_far_from_every_taught_colour_keeps_the_model_colour(gate, want):
    """A bare track field under a harsh warm light (L 0.6, a 0.05, b 0.25), which the model
    reads as a yellow pawn: every prototype is far, and without the gate the least far one
    (black) took the pawn mass; four such fields made 4 black pawns the box rules kept."""
    pr = np.array([[0.1, 0.007, 0.874, 0.015, 0.004]], np.float32)
    s = tp.PawnTeachSettings(gate=gate)
    assert tp.PAWN_TEACH.gate > 0
    out = tp.taught_proba(profile(vec=HARSH), pr, features((0.6, 0.05, 0.25)), s)
    assert out[0].argmax() == want and out[0, 0] == pytest.approx(0.1)


def test_the_hook_reads_with_the_profile_only_inside_using():
    class Fixed:
        def proba(self, x):
            return np.tile(np.array([[0.1, 0.6, 0.1, 0.1, 0.1]], np.float32), (len(x), 1))

    base, x = Fixed(), features(VEC["pawn-green"])
    assert tp.taught_model(base) is base
    with tp.using(profile()):
        assert tp.taught_model(base).proba(x)[0].argmax() == 3
    assert tp.taught_model(base) is base


@pytest.mark.parametrize("model_p", [
    None,  # not measured (an older profile): the prototypes re-decide
    (0.3, 0.9, 0.9, 0.9),  # the MLP misread the taught red pawn: re-decided
    (0.8, 0.9, 0.9, 0.9),  # it read every one right: still re-decided (the MLP reads
    #                        teach pawns at 0.998-1.0 even under harsh light)
])
def test_a_pawn_profile_re_decides_whatever_the_model_read(model_p):
    class Fixed:
        def proba(self, x):
            return np.tile(np.array([[0.1, 0.6, 0.1, 0.1, 0.1]], np.float32), (len(x), 1))

    base, x = Fixed(), features(VEC["pawn-green"])
    prof = profile()
    prof = Profile(**{**prof.__dict__, "model_p": None if model_p is None
                      else np.float32(model_p)})
    with tp.using(prof):
        model = tp.taught_model(base)
        assert model is not base
        assert model.proba(x)[0].argmax() == 3


def _blank(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), np.full((480, 640, 3), 200, np.uint8))
    return path


@pytest.mark.parametrize("setup, names", [
    (lambda d: _blank(d / "pawn-blue" / "x.jpg"), "pawn-blue"),  # unknown label folder
    (lambda d: (d / "pawn-red").mkdir(parents=True), "empty label folder"),
    (lambda d: _blank(d / "pawn-red" / "empty.jpg"), "empty.jpg: no Mauerhuepfer board"),
])
def test_bad_pawn_teach_input_names_the_file(tmp_path, run_cli, setup, names):
    setup(tmp_path / "teach")
    code, out = run_cli("teach", "--game", "mauerhuepfer", tmp_path / "teach", "--data",
                        tmp_path / "d")
    assert code == 2 and out["error"]["code"] == "bad_teach_input"
    assert names in out["error"]["message"]


@pytest.fixture(scope="module")
def pawn_folder(tmp_path_factory):
    """Edition-2 rendered teach photos (seed set 83), one per pawn colour, each tapped."""
    from vision.teach_eval import write_teach_folder

    root = tmp_path_factory.mktemp("pawns") / "mauerhuepfer"
    write_teach_folder("mauerhuepfer", root, per_label=1, seed=83, edition=2)
    return root


@pytest.mark.slow
def test_teach_and_score_mauerhuepfer(pawn_folder, run_cli, tmp_path):
    code, out = run_cli("teach", "--game", "mauerhuepfer", pawn_folder, "--name", "p",
                        "--data", tmp_path, "--json")
    assert code == 0, out
    assert set(out["labels"]) == set(COLOURS) and out["missing"] == []
    prof = Profile.load(tmp_path / "teach" / "p")
    assert prof.model == tp.MODEL and prof.prototypes.shape == (4, len(tp.COLOUR_COLUMNS))
    photo = next((pawn_folder / "pawn-red").glob("*.jpg"))
    code, plain = run_cli("score", photo, "--game", "mauerhuepfer", "--json")
    assert code == 0
    code, taught = run_cli("score", photo, "--game", "mauerhuepfer", "--teach",
                           tmp_path / "teach" / "p", "--json")
    assert code == 0, taught
    assert taught["facts"]["pawns"] == plain["facts"]["pawns"]  # its own pawns stay right
    assert prof.model_p.min() >= 0.5  # (the MLP reads these teach pawns right)
    # a profile with red and green swapped makes the taught red pawn green
    swapped = Profile(**{**prof.__dict__, "prototypes": prof.prototypes[[2, 1, 0, 3]]})
    swapped.save(tmp_path / "teach" / "swapped")
    tap = json.loads(photo.with_name(photo.stem + ".taps.json").read_text())[0]
    code, wrong = run_cli("score", photo, "--game", "mauerhuepfer", "--teach",
                          tmp_path / "teach" / "swapped", "--json")
    assert code == 0

    def label_at(res):
        d = [np.hypot(p["center"][0] - tap["x"], p["center"][1] - tap["y"])
             for p in res["pieces"]]
        return res["pieces"][int(np.argmin(d))]["label"]

    assert label_at(plain) == "pawn-red" and label_at(wrong) == "pawn-green"


@pytest.mark.slow
def test_tap_on_no_pawn_names_the_photo(pawn_folder, tmp_path):
    src = next((pawn_folder / "pawn-red").glob("*.jpg"))
    dst = tmp_path / "pawn-red" / "t.jpg"
    dst.parent.mkdir(parents=True)
    dst.write_bytes(src.read_bytes())
    dst.with_name("t.taps.json").write_text(json.dumps([{"x": 1, "y": 1}]))
    with pytest.raises(TeachError, match=r"t\.jpg: no pawn found at the tap \(1, 1\)"):
        build_profile(tmp_path, "mauerhuepfer")


def test_a_card_profile_is_refused_for_mauerhuepfer():
    prof = profile()
    with pytest.raises(TeachError, match="not the Mauerhuepfer pawns"):
        tp.check(Profile(**{**prof.__dict__, "model": "cards"}))


def test_a_slot_keeps_only_its_own_colour():
    """A black start slot read mostly as yellow by the model: the yellow mass is not moved to
    black (the pawn step's slot limit comes first, P(empty) stays that reading's)."""
    from vision.mauer import KINDS

    f = features(VEC["pawn-black"])
    f[0, tp.KIND_COLUMN + KINDS.index("start")] = 1.0
    f[0, tp.AREA_COLUMN + 3] = 1.0  # the black area
    pr = np.array([[0.3, 0.0, 0.69, 0.0, 0.01]], np.float32)
    out = tp.taught_proba(profile(), pr, f)
    assert out[0, 2] == 0 and out[0, 0] == pytest.approx(0.3 / 0.31, abs=1e-4)


def test_several_pawns_without_taps_names_the_photo(tmp_path):
    src = Path(__file__).resolve().parents[2] / "datasets" / "scenes-edition2" / \
        "mauerhuepfer" / "mauerhuepfer-e2-s2-0000.jpg"
    dst = tmp_path / "pawn-red" / "board.jpg"
    dst.parent.mkdir()
    dst.write_bytes(src.read_bytes())
    with pytest.raises(TeachError, match=r"board\.jpg: \d+ pawns found; .*board\.taps\.json"):
        build_profile(tmp_path, "mauerhuepfer")
