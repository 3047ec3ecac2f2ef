"""Teach mode (`vision.teach`, `tablescore teach`, `score --teach`)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.teach import (
    TEACH_SETTINGS,
    Profile,
    TeachError,
    TeachSettings,
    build_profile,
    colour_features,
    number_colours,
    photo_white_gain,
    piece_colour,
    shield_calibrated,
    teach_probs,
    white_point,
)

SCENES2 = Path(__file__).resolve().parents[2] / "datasets" / "scenes-edition2"
LABELS = ("a", "b", "c")


def unit(v):
    v = np.asarray(v, np.float32)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def make_profile(labels=LABELS, colours=None, **kw) -> Profile:
    protos = np.eye(len(labels), 8, dtype=np.float32)
    cols = np.zeros((len(labels), 3), np.float32) if colours is None else colours
    return Profile(game="simsala-hopp", labels=tuple(labels), prototypes=protos,
                   colours=np.asarray(cols, np.float32),
                   counts=np.ones(len(labels), np.int64), classes=("background", *LABELS),
                   settings=TEACH_SETTINGS.__class__(**kw) if kw else TEACH_SETTINGS)


@pytest.mark.parametrize("bgr, want", [
    ((0, 0, 255), (53, 80, 67)),  # pure red disc on grey
    ((255, 0, 0), (32, 79, -108)),  # pure blue
    ((0, 255, 255), (97, -22, 94)),  # yellow
])
def test_piece_colour_reads_the_central_disc(bgr, want):
    crop = np.full((32, 32, 3), 128, np.uint8)
    cv2.circle(crop, (16, 16), 9, bgr, -1)
    lab = piece_colour(crop[None])[0]
    assert np.allclose(lab, want, atol=6), lab


def test_prototype_overrides_a_confused_model():
    prof = make_profile()
    p = np.array([[0.6, 0.3, 0.1]])  # the model says a
    emb = unit(np.eye(3, 8)[1:2])  # the embedding sits on b's prototype
    q, cos = prof.adjust(LABELS, p, emb, np.zeros((1, 3)))
    assert q.argmax() == 1
    assert cos[0, 1] == pytest.approx(1.0)


def test_colour_term_decides_between_look_alikes():
    cols = np.array([[50, 60, 40], [50, -40, 40], [50, 0, 0]], np.float32)
    prof = make_profile(colours=cols)
    emb = unit(np.ones((1, 8)))  # equally far from every prototype
    q, _ = prof.adjust(LABELS, np.full((1, 3), 1 / 3), emb, cols[1:2] + 2)
    assert q.argmax() == 1


def test_untaught_label_is_not_forbidden():
    prof = make_profile(labels=("a", "b"))
    p = np.array([[0.02, 0.03, 0.95]])  # the model is sure of c, which was not taught
    emb = unit(np.array([[1, 1, 0, 0, 0, 0, 0, 0]]))
    q, cos = prof.adjust(LABELS, p, emb, np.zeros((1, 3)))
    assert q.argmax() == 2 and np.isnan(cos[0, 2])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 12))
def test_adjust_rows_are_distributions(seed, n):
    rng = np.random.default_rng(seed)
    prof = make_profile(colours=rng.normal(0, 40, (3, 3)))
    p = rng.dirichlet(np.ones(3), n)
    q, _ = prof.adjust(LABELS, p, unit(rng.normal(size=(n, 8))), rng.normal(0, 40, (n, 3)))
    assert q.shape == (n, 3) and np.all(q >= 0) and np.allclose(q.sum(axis=1), 1, atol=1e-5)


class FakeClassifier:
    classes = ("background", *LABELS)

    def index(self, lab):
        return self.classes.index(lab)


@pytest.mark.parametrize("emb, bg, want_bg", [
    ([1, 0.75, 0], 0.2, 0.2),  # near a prototype (cos 0.8), a piece: unchanged
    ([1, 0.05, 0], 0.8, 1 - TEACH_SETTINGS.rescue_cos),  # very close: rescued from background
    ([0.3, 0, 1], 0.1, 1.0),  # far from every prototype: background (min_cos gate)
])
def test_teach_probs_piece_decision(emb, bg, want_bg):
    prof = make_profile(labels=("a", "b"))
    probs = np.array([[bg, (1 - bg) * 0.8, (1 - bg) * 0.1, (1 - bg) * 0.1]], np.float32)
    e = unit(np.pad(np.asarray(emb, np.float32), (0, 5)))[None]
    out = teach_probs(prof, FakeClassifier(), LABELS, probs, e,
                      np.full((1, 32, 32, 3), 128, np.uint8))
    assert out[0, 0] == pytest.approx(want_bg, abs=1e-6)
    assert out[0].sum() == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize("probs, trust_share, want", [
    # the model reads the known label a: its reading stays (the rule would say c)
    ([0.1, 0.8, 0.05, 0.05], 0.6, 1),
    # it calls the crop background, its leftover favouring a: not trusted, the rule
    # rescues the crop by the prototype of c, the label the model misreads
    ([0.65, 0.2, 0.1, 0.05], 0.6, 3),
    # trust off (share above 1): the rule decides both
    ([0.1, 0.8, 0.05, 0.05], 1.1, 3),
])
def test_trust_keeps_only_the_model_s_known_readings(probs, trust_share, want):
    prof = make_profile(trust_share=trust_share, keep_mass=True, rescue_cos=0.55,
                        rescue_bg=0.7, known_share=1.1)
    prof = Profile(**{**prof.__dict__, "model_p": np.float32([0.9, 0.9, 0.1])})
    e = unit(np.eye(3, 8)[2:3])  # the embedding on c's prototype
    out = teach_probs(prof, FakeClassifier(), LABELS, np.array([probs], np.float32), e,
                      np.full((1, 32, 32, 3), 128, np.uint8))
    assert out[0].argmax() == want  # (columns: background, a, b, c)


@pytest.mark.parametrize("probs, on, keep_unread, want", [
    # the model reads c, whose example it did not read as c (model_p 0.1): its reading stays
    # (the rule would move it to a, whose prototype the embedding sits on)
    ([0.1, 0.05, 0.05, 0.8], 0, True, 3),
    ([0.1, 0.05, 0.05, 0.8], 0, False, 1),  # off: the rule decides
    # the model reads b, whose example it reads right, the embedding on c's prototype: the
    # rule's c (an example the model did not read as c) does not take it
    ([0.1, 0.05, 0.8, 0.05], 2, True, 2),
    ([0.1, 0.05, 0.8, 0.05], 2, False, 3),  # off: c takes it
    # the model reads b, the embedding on a's prototype (both read right): the rule decides
    ([0.1, 0.05, 0.8, 0.05], 0, True, 1),
    # the model calls it background (its leftover favouring c): the rule decides
    ([0.7, 0.05, 0.05, 0.2], 0, True, 1),
])
def test_keep_unread_keeps_the_model_s_reading_of_a_misread_example(probs, on, keep_unread,
                                                                    want):
    prof = make_profile(keep_mass=True, relabel_only=True, min_cos=0.0, rescue_cos=1.1,
                        keep_unread=keep_unread, known_share=1.1)
    prof = Profile(**{**prof.__dict__, "model_p": np.float32([0.9, 0.9, 0.1])})
    e = unit(np.eye(3, 8)[on:on + 1])  # the embedding on that label's prototype
    out = teach_probs(prof, FakeClassifier(), LABELS, np.array([probs], np.float32), e,
                      np.full((1, 32, 32, 3), 128, np.uint8))
    assert out[0, 1:].argmax() + 1 == want  # (columns: background, a, b, c)


@pytest.mark.parametrize("model_p, known_p, share, median, want", [
    (None, 0.5, 1.0, 0.7, False),  # not measured (a profile saved before): the rule runs
    ([0.9, 0.6], 0.5, 1.0, 1.1, True),  # the model reads every taught label's examples: known
    ([0.9, 0.3], 0.5, 1.0, 1.1, False),  # one label misread: the rule runs
    ([0.9, 0.3], 0.5, 0.5, 1.1, True),  # ... unless half the labels read right is enough
    ([0.9, 0.6], 1.1, 1.0, 1.1, False),  # known_p above 1: never known
    ([1.0, 0.45], 0.5, 1.0, 0.7, True),  # one misread, but the median 0.725 is enough
    ([0.9, 0.45], 0.5, 1.0, 0.7, False),  # ... the median 0.675 is not
])
def test_profile_is_known_when_the_model_reads_the_examples(model_p, known_p, share, median,
                                                            want):
    prof = make_profile(labels=("a", "b"), known_p=known_p, known_share=share,
                        known_median=median)
    prof = Profile(**{**prof.__dict__, "model_p": None if model_p is None
                      else np.float32(model_p)})
    assert prof.known is want
    # a known profile leaves the model's probabilities as they are, even where a
    # prototype disagrees (the embedding sits on b's, the model says a)
    probs = np.array([[0.1, 0.8, 0.05, 0.05]], np.float32)
    out = teach_probs(prof, FakeClassifier(), LABELS, probs, unit(np.eye(3, 8)[1:2]),
                      np.full((1, 32, 32, 3), 128, np.uint8))
    assert out.argmax() == (1 if want else 2)  # (columns: background, a, b, c)
    assert np.array_equal(out, probs) is want


@pytest.mark.parametrize("neg, emb, bg, keep, want_bg", [
    # far from every prototype and nearest the teach photos' background: gated
    ([[0.3, 0, 1]] * 3, [0.3, 0, 1], 0.1, 1.1, 1.0),
    # far from every prototype but nearer a piece than the background examples: kept
    ([[0, 0.2, -1]] * 3, [1, 0.2, 1.2], 0.1, 1.1, 0.1),
    # only two background examples like it (neg_k 3): the third-nearest decides, kept
    ([[0, 0, 1], [0, 0, 1], [0, 1, 0]], [1, 0.2, 1.2], 0.1, 1.1, 0.1),
    # the model calls it background, close to a prototype and far from the background: rescued
    ([[0, 0, 1]] * 3, [1, 0.3, 0], 0.8, 1.1, 1 - 0.8),
    # ... but as close to the background examples: not rescued
    ([[1, 0.3, 0.1]] * 3, [1, 0.3, 0], 0.8, 1.1, 0.8),
    # gated like the first, but the model reads it as "a" with P 0.9 >= gate_keep: spared
    ([[0.3, 0, 1]] * 3, [0.3, 0, 1], [0.05, 0.9, 0.03, 0.02], 0.8, 0.05),
    # ... the same with gate_keep off (1.1): gated
    ([[0.3, 0, 1]] * 3, [0.3, 0, 1], [0.05, 0.9, 0.03, 0.02], 1.1, 1.0),
])
def test_background_examples_decide_the_gates(neg, emb, bg, keep, want_bg):
    prof = make_profile(labels=("a", "b"), neg_k=3, rescue_cos=0.8, gate_keep=keep)
    negs = unit(np.pad(np.asarray(neg, np.float32), ((0, 0), (0, 5))))
    prof = Profile(**{**prof.__dict__, "negatives": negs})
    probs = (np.array([bg], np.float32) if isinstance(bg, list) else
             np.array([[bg, (1 - bg) * 0.8, (1 - bg) * 0.1, (1 - bg) * 0.1]], np.float32))
    e = unit(np.pad(np.asarray(emb, np.float32), (0, 5)))[None]
    out = teach_probs(prof, FakeClassifier(), LABELS, probs, e,
                      np.full((1, 32, 32, 3), 128, np.uint8))
    assert out[0, 0] == pytest.approx(want_bg, abs=1e-6)


def test_colour_norm_keeps_a_shaded_piece_nearest_its_colour():
    # a yellow rabbit in shade (L and chroma halved) against the taught yellow and orange
    yellow, orange = np.array([80, -8, 60]), np.array([55, 24, 41])
    shaded = yellow * 0.5
    for s, want_yellow in ((TeachSettings(), False), (TeachSettings(colour_norm=80.0), True)):
        f = colour_features(np.stack([shaded, yellow, orange]), s)
        d_yellow, d_orange = np.sum((f[0] - f[1]) ** 2), np.sum((f[0] - f[2]) ** 2)
        assert (d_yellow < d_orange) == want_yellow


@pytest.mark.parametrize("border, want_a", [
    (0.0, 60),  # the red arena around a white rabbit is its most chromatic part
    (25.0, 0),  # ... left out when it is the border's colour: the grey-blue rabbit's own
])
def test_colour_border_leaves_out_the_surroundings(border, want_a):
    crop = np.full((32, 32, 3), (40, 40, 200), np.uint8)  # red arena
    crop[8:24, 8:24] = (200, 185, 180)  # a bluish white tile, pale
    cv2.circle(crop, (16, 16), 5, (170, 140, 120), -1)  # its grey-blue rabbit
    s = TeachSettings(colour_inner=0.8, colour_border=border)
    a = piece_colour(crop[None], s)[0, 1]
    assert abs(a - want_a) < 15, a


def test_number_colours_pool_the_kinds():
    units = ["hat-1", "rabbit-1", "hat-2", "magician"]
    cols = [np.array([10.0, 0, 0]), np.array([20.0, 0, 0]), np.array([5.0, 5, 5]),
            np.array([1.0, 1, 1])]
    out = number_colours(units, cols, [1, 3, 1, 1])
    assert np.allclose(out[0], [17.5, 0, 0]) and np.allclose(out[1], [17.5, 0, 0])
    assert np.allclose(out[2], cols[2]) and np.allclose(out[3], cols[3])


def test_profile_save_load_roundtrip(tmp_path):
    prof = make_profile(colours=np.arange(9).reshape(3, 3))
    back = Profile.load(prof.save(tmp_path / "p"))
    assert back.labels == prof.labels and back.classes == prof.classes
    assert np.allclose(back.prototypes, prof.prototypes)
    assert np.allclose(back.colours, prof.colours)
    assert back.negatives is None
    negs = Profile(**{**prof.__dict__, "negatives": np.eye(2, 8, dtype=np.float32)})
    assert np.allclose(Profile.load(negs.save(tmp_path / "n")).negatives, negs.negatives)
    assert back.shields is None
    arms = Profile(**{**prof.__dict__, "shields": np.float32([90, 55, -90, -40])})
    assert np.allclose(Profile.load(arms.save(tmp_path / "s")).shields, arms.shields)
    assert back.model_p is None
    mp = Profile(**{**prof.__dict__, "model_p": np.float32([0.9, 0.2, 0.7])})
    assert np.allclose(Profile.load(mp.save(tmp_path / "m")).model_p, mp.model_p)
    with pytest.raises(TeachError, match="another classifier"):
        back.check("simsala-hopp", ("background", "x"))
    with pytest.raises(TeachError, match="not hop-la-bille"):
        back.check("hop-la-bille", prof.classes)


def _blank_jpg(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), np.full((480, 640, 3), 200, np.uint8))
    return path


def _copy_scene(src: Path, dst: Path) -> Path:
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_bytes(src.read_bytes())
    return dst


@pytest.mark.parametrize("setup, names", [
    # a label folder the game does not have
    (lambda d: _blank_jpg(d / "dragon" / "x.jpg"), "dragon"),
    # a label folder without photos
    (lambda d: (d / "frog").mkdir(parents=True), "frog"),
    # no label folders at all
    (lambda d: d.mkdir(parents=True), "no label folders"),
    # a photo with no arena / piece in it
    (lambda d: _blank_jpg(d / "cat" / "empty.jpg"), "empty.jpg"),
    # a taps file that is not a list of taps
    (lambda d: (_copy_scene(SCENES2 / "simsala-hopp" / "simsala-hopp-e2-s2-0000.jpg",
                            d / "cat" / "s.jpg"),
                (d / "cat" / "s.taps.json").write_text('{"x": 1}')), "s.taps.json"),
])
def test_bad_teach_input_names_the_file(tmp_path, run_cli, setup, names):
    folder = tmp_path / "teach"
    setup(folder)
    code, out = run_cli("teach", "--game", "simsala-hopp", folder, "--data", tmp_path / "d")
    assert code == 2
    assert out["error"]["code"] == "bad_teach_input"
    assert names in out["error"]["message"]


def test_several_pieces_without_taps_is_refused(tmp_path):
    src = SCENES2 / "simsala-hopp" / "simsala-hopp-e2-s2-0000.jpg"
    _copy_scene(src, tmp_path / "frog" / "many.jpg")
    with pytest.raises(TeachError, match=r"many\.jpg: \d+ pieces found"):
        build_profile(tmp_path, "simsala-hopp")


def test_tap_away_from_any_piece_is_refused(tmp_path):
    src = SCENES2 / "simsala-hopp" / "simsala-hopp-e2-s2-0000.jpg"
    _copy_scene(src, tmp_path / "frog" / "s.jpg")
    (tmp_path / "frog" / "s.taps.json").write_text(json.dumps([{"x": 2, "y": 2}]))
    with pytest.raises(TeachError, match=r"s\.jpg: no piece found at the tap \(2, 2\)"):
        build_profile(tmp_path, "simsala-hopp")


@pytest.fixture(scope="module")
def sim_teach_folder(tmp_path_factory):
    from vision.teach_eval import write_teach_folder

    out = tmp_path_factory.mktemp("teach") / "simsala-hopp"
    write_teach_folder("simsala-hopp", out, per_label=1, seed=80)
    return out


@pytest.mark.slow
def test_teaching_fixes_edition2_labels(sim_teach_folder, run_cli, tmp_path):
    """Teach with one edition-2 photo per label (rendered, seed set 80), then read committed
    edition-2 scenes: the per-piece error must drop well below the untaught pipeline's."""
    from vision.evaluate import evaluate_folder
    from vision.pipeline import get_pipeline
    from vision.teach_eval import TaughtPipeline

    code, out = run_cli("teach", "--game", "simsala-hopp", sim_teach_folder, "--name", "ed2",
                        "--data", tmp_path, "--json")
    assert code == 0 and out["missing"] == [] and sum(out["labels"].values()) == 7
    prof = Profile.load(tmp_path / "teach" / "ed2")
    scenes = tmp_path / "scenes"
    for f in sorted((SCENES2 / "simsala-hopp").glob("*-000[0-3].*")):
        _copy_scene(f, scenes / f.name)
    pipe = get_pipeline()
    before = evaluate_folder("simsala-hopp", scenes, pipe).to_json()
    after = evaluate_folder("simsala-hopp", scenes, TaughtPipeline(pipe, prof)).to_json()
    assert after["piece_error"] < 0.6 * before["piece_error"], (before, after)


def test_taught_pipeline_times_overlapping_threads(monkeypatch):
    """Hop la bille reads its cards on a second thread while the main thread runs
    `teach_probs`: each thread's outermost timed call counts, the overlapping one too; a
    call inside a timed call (look_backs -> look_colours) is not counted twice."""
    import threading
    import time

    import vision.teach as teach
    import vision.teach_cards as tc
    from vision.teach_eval import TaughtPipeline

    nap = 0.1
    monkeypatch.setattr(teach, "teach_probs", lambda *a, **k: time.sleep(nap))
    monkeypatch.setattr(tc, "look_colours", lambda *a, **k: time.sleep(nap))
    monkeypatch.setattr(tc, "look_backs", lambda *a, **k: (time.sleep(nap), tc.look_colours()))
    started = threading.Barrier(2)

    class Overlapping:
        def recognise(self, source, game, profile):
            def cards():
                started.wait()
                tc.look_backs()

            other = threading.Thread(target=cards)
            other.start()
            started.wait()
            teach.teach_probs()
            other.join()
            return "read"

    timed = TaughtPipeline(Overlapping(), None)
    assert timed.recognise("photo", "hop-la-bille") == "read"
    assert teach.teach_probs.__name__ == "<lambda>"  # the real functions are put back
    assert 3 * nap * 1000 <= timed.added_ms[0] < 3.8 * nap * 1000  # 4 x: counted twice


@pytest.mark.parametrize("step", [
    "teach_probs",  # the rule
    "fold_faces",  # Troetofanten's face fold: after the rule in every taught card prediction
    "look_backs",  # the taught backs' look
])
def test_taught_pipeline_counts_each_teach_step(monkeypatch, step):
    """`teach_eval` counts each step teaching adds to a photo (session 27: `fold_faces`
    ran untimed), and puts the real function back."""
    import time

    import vision.teach as teach
    import vision.teach_cards as tc
    from vision.teach_eval import TaughtPipeline

    nap = 0.05
    module = teach if step == "teach_probs" else tc
    real = getattr(module, step)

    class Calls:
        def recognise(self, source, game, profile):
            getattr(module, step)()  # (looked up at call time, as the reader does)
            return "read"

    monkeypatch.setattr(module, step, lambda *a, **k: time.sleep(nap))
    fake = getattr(module, step)
    timed = TaughtPipeline(Calls(), None)
    assert timed.recognise("photo", "troetofanten") == "read"
    assert getattr(module, step) is fake and fake is not real
    assert nap * 1000 <= timed.added_ms[0] < 1.8 * nap * 1000


@pytest.mark.slow
def test_score_with_teach_folder_and_profile(sim_teach_folder, run_cli, tmp_path):
    """`score --teach` takes the photo folder itself or a stored profile; same answer."""
    photo = SCENES2 / "simsala-hopp" / "simsala-hopp-e2-s2-0001.jpg"
    args = ("score", photo, "--game", "simsala-hopp", "--magician", "blue", "--players",
            "yellow,blue", "--json")
    code, direct = run_cli(*args, "--teach", sim_teach_folder)
    assert code == 0, direct
    code, _ = run_cli("teach", "--game", "simsala-hopp", sim_teach_folder, "--name", "p",
                      "--data", tmp_path)
    assert code == 0
    code, stored = run_cli(*args, "--teach", tmp_path / "teach" / "p")
    assert code == 0
    assert stored["facts"] == direct["facts"]
    code, out = run_cli(*args[:-1], "--json", "--teach", tmp_path / "nowhere")
    assert code == 2 and "nowhere" in out["error"]["message"]


def test_teach_covers_every_game():
    from scoring import GAMES
    from vision.teach import teachable

    for game in GAMES:  # (a game it left out would answer TeachError "does not cover")
        assert teachable(game).labels, game


@pytest.mark.parametrize("game, marbles", [("hop-la-bille", True), ("simsala-hopp", False),
                                           ("magic-rabbit", False), ("troetofanten", False),
                                           ("mauerhuepfer", False)])
def test_teach_game_knows_marbles_from_tiles(game, marbles):
    # (cut and balanced as the cloth's marbles are, `piece_examples`; no lamp curve taken
    # off, `taught_profile`)
    from vision.teach import teachable

    assert teachable(game).marbles is marbles


def test_teach_for_an_unknown_game_says_so(tmp_path, run_cli):
    _blank_jpg(tmp_path / "t" / "x" / "a.jpg")
    code, out = run_cli("teach", "--game", "chess", tmp_path / "t", "--data", tmp_path / "d")
    assert code == 2 and "unknown game" in out["error"]["message"]


@pytest.mark.slow
def test_teach_crops_are_not_light_balanced(sim_teach_folder, monkeypatch):
    """Teach examples and photos scored with a profile are cut without the light balance
    (its estimate depends on each photo's content: a one-piece teach photo and a scene would
    be balanced differently); photos scored without one are balanced."""
    import vision.pipeline as pl
    import vision.teach as teach_mod
    from vision.teach import build_profile

    seen = []

    def spy(fn):
        def wrapped(*args, **kwargs):
            seen.append(args[5].light_balance)
            return fn(*args, **kwargs)
        return wrapped

    monkeypatch.setattr(teach_mod, "extract_crops", spy(teach_mod.extract_crops))
    monkeypatch.setattr(pl, "extract_crops", spy(pl.extract_crops))
    pipe = pl.get_pipeline()
    prof = build_profile(sim_teach_folder, "simsala-hopp", pipe)
    # per teach photo: its candidates without the balance, then the named piece with it (the
    # model's own reading, `Example.model_p`, as the untaught path would read it)
    balance = pipe.classifier.crop.light_balance
    assert seen and seen[0::2] == [0.0] * (len(seen) // 2) and set(seen[1::2]) == {balance}
    assert not prof.known  # (edition-2 teach photos: the model misreads some pieces)
    photo = sorted((SCENES2 / "simsala-hopp").glob("*.jpg"))[0]
    seen.clear()
    pipe.recognise(photo, "simsala-hopp", prof)
    assert seen == [0.0]
    seen.clear()
    pipe.recognise(photo, "simsala-hopp")
    assert seen == [pipe.classifier.crop.light_balance] and seen[0] > 0


@pytest.mark.slow
def test_a_known_profile_reads_as_the_untaught_pipeline(sim_teach_folder):
    """A profile whose every label the model reads right on its examples (`Profile.known`)
    gives the untaught reading (its crops light balanced, the coats of arms), not the rule's."""
    import vision.pipeline as pl
    from vision.teach import build_profile

    pipe = pl.get_pipeline()
    prof = build_profile(sim_teach_folder, "simsala-hopp", pipe)
    known = Profile(**{**prof.__dict__, "model_p": np.ones(len(prof.labels), np.float32)})
    photo = sorted((SCENES2 / "simsala-hopp").glob("*.jpg"))[1]
    plain = pipe.recognise(photo, "simsala-hopp").detections
    for profile, same in ((known, True), (prof, False)):
        det = pipe.recognise(photo, "simsala-hopp", profile).detections
        assert (list(det.labels) == list(plain.labels)
                and len(det.confidence) == len(plain.confidence)
                and np.allclose(det.confidence, plain.confidence)) is same


def _rabbits(shields=(90.0, 55.0, -90.0, -40.0), shift=0.5):
    # a yellow rabbit at hue 90 (chroma 60), a violet one at hue -40, a white one
    violet = (40, 60 * np.cos(np.radians(-40)), 60 * np.sin(np.radians(-40)))
    prof = Profile(game="simsala-hopp", labels=("rabbit-yellow", "rabbit-violet", "rabbit-white"),
                   prototypes=np.eye(3, 8, dtype=np.float32),
                   colours=np.float32([(80, 0, 60), violet, (90, 0, 0)]),
                   counts=np.ones(3, np.int64), classes=("background",),
                   settings=TeachSettings(shield_shift=shift),
                   shields=None if shields is None else np.float32(shields))
    return prof


def _hue(lab):
    return float(np.degrees(np.arctan2(lab[2], lab[1])))


@pytest.mark.parametrize("hues, shields, shift, yellow, violet", [
    ({"yellow": 70.0, "orange": 55.0, "blue": -90.0, "violet": -40.0}, (90, 55, -90, -40), 0.5,
     80.0, -40.0),  # a warm light: the photo's yellow arms 20 degrees to orange, half of it
    ({"yellow": 70.0, "orange": 55.0, "blue": -90.0, "violet": -60.0}, (90, 55, -90, -40), 1.0,
     70.0, -60.0),  # the whole shift, each colour its own
    ({"yellow": -170.0, "orange": 55.0, "blue": -90.0, "violet": -40.0}, (170, 55, -90, -40),
     1.0, 110.0, -40.0),  # across +-180: the short way round (+20)
    ({"yellow": 70.0, "orange": 55.0, "blue": -90.0, "violet": -40.0}, (90, 55, -90, -40), 0.0,
     90.0, -40.0),  # off
    (None, (90, 55, -90, -40), 0.5, 90.0, -40.0),  # no coats of arms in this photo
    ({"yellow": 70.0, "orange": 55.0, "blue": -90.0, "violet": -40.0}, None, 0.5,
     90.0, -40.0),  # none on the teach photos
])
def test_shield_calibrated_turns_the_rabbit_colours_by_the_coats_of_arms(
        hues, shields, shift, yellow, violet):
    prof = _rabbits(shields, shift)
    out = shield_calibrated(prof, hues)
    assert _hue(out.colours[0]) == pytest.approx(yellow, abs=1e-3)
    assert _hue(out.colours[1]) == pytest.approx(violet, abs=1e-3)
    chroma = np.hypot(out.colours[:, 1], out.colours[:, 2])
    assert np.allclose(chroma, np.hypot(prof.colours[:, 1], prof.colours[:, 2]), atol=1e-4)
    assert np.allclose(out.colours[:, 0], prof.colours[:, 0])  # lightness kept
    assert np.allclose(out.colours[2], prof.colours[2])  # white: no coat of arms


def _tile(white_bgr, rabbit_bgr, cast=(1.0, 1.0, 1.0)):
    """A 32 x 32 crop: a pale tile (`white_bgr`) with a rabbit disc, under a per-channel
    cast."""
    crop = np.full((32, 32, 3), 90, np.uint8)
    crop[4:28, 4:28] = white_bgr
    cv2.circle(crop, (16, 16), 6, rabbit_bgr, -1)
    return np.clip(crop * np.asarray(cast, np.float32), 0, 255).astype(np.uint8)


WB = TeachSettings(white_label="b")


@pytest.mark.parametrize("whites, near, cast, want", [
    # two white pieces near the white prototype under a warm light: the photo's white
    (2, 0.95, (0.9, 1.0, 1.1), "balanced"),
    (1, 0.95, (0.9, 1.0, 1.1), None),  # one (a violet rabbit near the white prototype
    #                                    once balanced a photo)
    (2, 0.7, (0.9, 1.0, 1.1), None),  # not near enough the white prototype (white_cos 0.85)
    (2, 0.95, (0.6, 1.0, 1.3), None),  # a cast beyond white_max_gain 1.25: not balanced
])
def test_photo_white_gain_from_the_white_pieces(whites, near, cast, want):
    crops = np.stack([_tile((200, 200, 200), (250, 250, 250), cast)] * whites
                     + [_tile((150, 200, 230), (30, 130, 245), cast)])  # + an orange rabbit
    # embeddings: the whites at cosine `near` to b's prototype (white), the orange on a's
    emb = np.zeros((len(crops), 8), np.float32)
    emb[:whites, 1], emb[:whites, 2] = near, np.sqrt(1 - near ** 2)
    emb[whites:, 0] = 1.0
    gain = photo_white_gain(emb, white_point(crops, WB), np.eye(2, 8, dtype=np.float32),
                            ("a", "b"), WB)
    if want is None:
        assert gain is None
        return
    white = white_point(crops[:1], WB)[0] * gain
    assert np.ptp(white) < 3, white  # neutral after the balance
    assert white.mean() == pytest.approx(white_point(crops[:1], WB)[0].mean(), rel=0.02)


def test_white_balance_undoes_a_cast_on_the_colour():
    # an orange rabbit under a cast that makes it read yellow-ish; the photo's two white
    # rabbits give the balance back: its colour returns to the unlit one's hue
    plain = _tile((150, 200, 230), (30, 130, 245))
    cast = (0.85, 1.1, 0.85)  # greenish: orange towards yellow (no channel clipped)
    crops = np.stack([_tile((200, 200, 200), (225, 225, 225), cast)] * 2
                     + [_tile((150, 200, 230), (30, 130, 245), cast)])
    emb = np.zeros((3, 8), np.float32)
    emb[:2, 1] = 1.0
    emb[2, 0] = 1.0
    gain = photo_white_gain(emb, white_point(crops, WB), np.eye(2, 8, dtype=np.float32),
                            ("a", "b"), WB)
    hue = [_hue(piece_colour(c[None], WB)[0]) for c in
           (plain, crops[2], np.clip(crops[2] * gain, 0, 255).astype(np.uint8))]
    assert abs(hue[1] - hue[0]) > 8  # the cast turns it
    assert abs(hue[2] - hue[0]) < 3  # the balance turns it back


def _photo_keys(monkeypatch) -> list[str]:
    """The name each teach photo's examples get (`Example.photo`: the key its white balance
    is pooled by), noted instead of reading the photo."""
    import vision.teach as teach_mod

    keys: list[str] = []

    def examples(pipeline, game, photo, label, taps=None, name=None, *a, **k):
        keys.append(name or str(photo))
        return []

    monkeypatch.setattr(teach_mod, "examples_from_photo", examples)
    monkeypatch.setattr(teach_mod, "profile_from_examples", lambda *a, **k: None)
    # (nor loaded first for the lamp's curve, `taught_profile`)
    monkeypatch.setattr(teach_mod, "loaded_photo", lambda *a, **k: (None, None))
    monkeypatch.setattr(teach_mod, "teach_tone", lambda *a, **k: None)
    return keys


@pytest.mark.parametrize("names, want", [
    # the page uploads every photo as `blob`: each keeps its own white balance
    (["blob.jpg", "blob.jpg", "kitchen.jpg"],
     ["blob.jpg (photo 0)", "blob.jpg (photo 1)", "kitchen.jpg"]),
    (["a.jpg", "b.jpg"], ["a.jpg", "b.jpg"]),  # unique names: as they are
])
def test_teach_photos_with_one_name_are_balanced_apart(monkeypatch, names, want):
    from vision.teach import profile_from_taps

    keys = _photo_keys(monkeypatch)
    taps = [{"photo": i, "x": 1, "y": 1, "label": "frog"} for i in range(len(names))]
    profile_from_taps("simsala-hopp", [(n, b"") for n in names], taps, pipeline=object())
    assert keys == want


def test_teach_folder_photos_with_one_file_name_are_balanced_apart(tmp_path, monkeypatch):
    keys = _photo_keys(monkeypatch)
    for label in ("frog", "cat"):  # the same file name in two label folders
        (tmp_path / label).mkdir()
        (tmp_path / label / "p.jpg").write_bytes(b"")
    build_profile(tmp_path, "simsala-hopp", pipeline=object())
    assert len(keys) == 2 and len(set(keys)) == 2


def test_white_balance_is_measured_once_per_photo(monkeypatch):
    """`white_balanced` measures each teach photo's gain once (not once per example of it),
    each photo by its own candidates: two photos under two casts, each balanced back."""
    import vision.teach as teach_mod
    from vision.teach import Example, white_balanced

    calls = []
    real = teach_mod.photo_white_gain
    monkeypatch.setattr(teach_mod, "photo_white_gain",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    every = []
    for photo, cast in (("p0", (0.85, 1.1, 0.85)), ("p1", (1.1, 1.0, 0.9))):
        for k, (lab, white_bgr, rabbit_bgr) in enumerate(
                [("b", (200, 200, 200), (225, 225, 225))] * 2
                + [("a", (150, 200, 230), (30, 130, 245))] * 2):
            crop = _tile(white_bgr, rabbit_bgr, cast)
            emb = np.eye(2, 8, dtype=np.float32)[1 if lab == "b" else 0]
            every.append(Example(lab, f"{photo}#{k}", emb, piece_colour(crop[None], WB)[0],
                                 white=white_point(crop[None], WB)[0], crop=crop,
                                 photo=photo))
    out = white_balanced(every, every, np.eye(2, 8, dtype=np.float32), ("a", "b"), WB)
    assert len(calls) == 2  # one per photo (8 examples)
    plain = _hue(piece_colour(_tile((150, 200, 230), (30, 130, 245))[None], WB)[0])
    assert all(abs(_hue(e.colour) - plain) < 3 for e in out if e.label == "a")


@pytest.mark.parametrize("pu,level,expect", [
    ([[0.85, 0.05], [0.4, 0.3], [0.1, 0.8]], 0.8, [True, False, True]),  # one label >= 0.8
    ([[0.85, 0.05]], 1.1, [False]),  # > 1: the gates spare nothing (other games)
    (np.zeros((0, 2)), 0.8, []),  # no candidates
])
def test_surely_pieces(pu, level, expect):
    from vision.teach import surely_pieces

    assert surely_pieces(np.asarray(pu, np.float32), level).tolist() == expect


def test_hop_marbles_gate_spares_the_models_sure_pieces():
    from vision.teach import game_settings

    assert game_settings("hop-la-bille").gate_keep <= 0.8  # (harsh light: marbles kept)
    assert game_settings("simsala-hopp").gate_keep > 1.0


@pytest.mark.parametrize("make,message", [
    (lambda p: p, "teach folder not found"),  # nothing there
    (lambda p: (p.write_bytes(b"x"), p)[1], "is a file, not a teach folder"),  # a photo given
    #   where the folder belongs (`--teach photo.jpg`)
])
def test_a_teach_path_that_is_no_folder_says_what_it_is(tmp_path, make, message):
    from vision.teach import resolve_profile

    path = make(tmp_path / "photo.jpg")
    with pytest.raises(TeachError, match=message):
        resolve_profile(path, "hop-la-bille", None)
    with pytest.raises(TeachError, match=message):
        build_profile(path, "hop-la-bille", pipeline=object())


def test_teach_names_the_files_it_did_not_read(tmp_path, run_cli):
    # An iPhone's IMG_0002.HEIC (or a WebP) beside a JPEG in a label folder was left out
    # without a word: the profile had fewer examples than the family put in (session 19, H5).
    src = SCENES2 / "simsala-hopp" / "simsala-hopp-e2-s2-0000.jpg"
    truth = json.loads(src.with_suffix(".json").read_text())
    frog = next(p for p in truth["pieces"] if p["label"] == "frog" and p["zone"] == "arena")
    folder = tmp_path / "kitchen"
    _copy_scene(src, folder / "frog" / "IMG_0001.jpg")
    (folder / "frog" / "IMG_0001.taps.json").write_text(
        json.dumps([{"x": frog["center"][0], "y": frog["center"][1]}]))
    (folder / "frog" / "IMG_0002.HEIC").write_bytes(b"\x00\x00\x00\x18ftypheic" + bytes(16))
    (folder / "frog" / "IMG_0003.webp").write_bytes(b"RIFF\x00\x00\x00\x00WEBPVP8 ")
    (folder / "frog" / ".DS_Store").write_bytes(b"\x00")
    (folder / "frog" / "._IMG_0001.jpg").write_bytes(b"\x00\x05\x16\x07")  # a Mac's metadata
    (folder / ".thumbnails").mkdir()  # a hidden folder is no label
    (folder / "__MACOSX" / "frog").mkdir(parents=True)  # a zip made on a Mac, unpacked
    (folder / "__MACOSX" / "frog" / "._IMG_0001.jpg").write_bytes(b"\x00\x05\x16\x07")
    code, out = run_cli("teach", "--game", "simsala-hopp", folder, "--data", tmp_path / "d",
                        "--json")
    assert code == 0 and out["labels"] == {"frog": 1}, out
    assert out["skipped"] == ["frog/IMG_0002.HEIC", "frog/IMG_0003.webp"]
    code, text = run_cli("teach", "--game", "simsala-hopp", folder, "--data", tmp_path / "d")
    assert code == 0 and "not read" in text and "IMG_0002.HEIC" in text


@pytest.mark.parametrize("meta", [
    [1, 2],  # a list at the top: AttributeError, a 500 on the page's profile list
    {"game": "hop-la-bille", "counts": [["card-red", 1]]},  # counts not an object
    {"game": "hop-la-bille", "cards": ["x"]},  # cards not an object
    "profile",  # a bare string
])
def test_a_damaged_profile_file_is_left_out_of_the_list(tmp_path, meta):
    from vision.teach import PROFILE_JSON, list_profiles

    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / PROFILE_JSON).write_text(json.dumps(meta))
    (tmp_path / "good").mkdir()
    (tmp_path / "good" / PROFILE_JSON).write_text(json.dumps({
        "game": "hop-la-bille", "counts": {"marble-red": 2}, "cards": {"counts": {"card-red": 1}}}))
    listed = list_profiles(tmp_path)
    assert {p["name"] for p in listed} >= {"good"}
    assert next(p for p in listed if p["name"] == "good")["labels"] == {"marble-red": 2,
                                                                        "card-red": 1}
    assert all(isinstance(p["labels"], dict) for p in listed)
