"""Measure teach mode: per-piece error and exact-facts share on a scene folder (default
`datasets/scenes-edition2/<game>`, the differently drawn copy) before and after teaching with
`--per-label` photo(s) per label rendered by `vision.synth` (edition 2, render seeds from the
set seed `--seed`, disjoint from the committed scenes' sets 1 and 2).

    python -m vision.teach_eval --game simsala-hopp [--per-label 1] [--out DIR] [--json]

Mauerhuepfer: the pawns are taught (`vision.teach_pawns`), the scenes read by
`vision.mauer_eval.evaluate` with their dice (and `pawns_only`, without).

Each teach photo is a rendered edition-2 scene saved as `DIR/<label>/<name>.jpg` with one tap
(`<name>.taps.json`) on a fully visible piece of that label, a different scene per photo.
Prints: before/after reports (the `tablescore evaluate` JSON's headline keys and per-class
table), the time to build the profile from the folder, and the time `teach_probs` adds per
photo (median over the scenes). A teach photo that teaching refuses (no cloth found, no piece
at the tap) is replaced by another scene, as a user would take another photo; the refusals
are listed (`retakes`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import cv2
import numpy as np

import vision.teach as teach
from vision.evaluate import evaluate_folder, scene_files
from vision.pipeline import Pipeline, get_pipeline
from vision.synth import render_scene
from vision.synth.dataset import scene_seed

COMMITTED_SETS = (1, 2)  # set seeds of datasets/scenes (edition 1) and scenes-edition2
HEADLINE = ("scenes", "piece_error", "facts_exact", "facts_exact_count", "pieces_true",
            "pieces_right", "extra_pieces", "zone_errors", "failed_scenes")


def harsh_light(image: np.ndarray) -> np.ndarray:
    """A harsh warm light over a rendered photo (`--harsh`): per-channel gamma B 1.5, G 1.1,
    R 0.75 and gains 0.8, 0.95, 1.1 (contrasty, orange; a white balance by the photo's own
    white does not undo the gamma)."""
    x = image.astype(np.float32) / 255.0
    g = np.array([1.5, 1.1, 0.75], np.float32)
    k = np.array([0.8, 0.95, 1.1], np.float32)
    return np.clip(255.0 * k * x ** g, 0, 255).astype(np.uint8)


def harsh_scenes(scenes: str | Path, out: Path) -> Path:
    """A copy of a scene folder under `harsh_light` (photos and truths; `out` emptied
    first): `vision.light_eval.lit_scenes` with its "harsh" light."""
    from vision.light_eval import lit_scenes  # (here: light_eval imports this module)

    return lit_scenes(scenes, out, "harsh")


def write_teach_folder(game: str, out: str | Path, per_label: int = 1, seed: int = 80,
                       edition: int = 2, max_scenes: int = 60,
                       labels: tuple[str, ...] | None = None,
                       skip: frozenset[int] = frozenset(), light=None) -> dict[str, list[str]]:
    """Render teach photos: for each label (default: all the game's teachable labels),
    `per_label` scenes (each used once) with a fully visible piece of it; writes
    `<out>/<label>/<scene>.jpg` + `.taps.json` (scene numbers in `skip` are not used;
    `light`: a function applied to each photo, e.g. `harsh_light`). Returns the files per
    label."""
    if seed in COMMITTED_SETS:
        raise ValueError(f"seed {seed} is a committed scene set; pick another")
    labels = tuple(labels or teach.teachable(game).labels)
    out = Path(out)
    need = {lab: per_label for lab in labels}
    files: dict[str, list[str]] = {lab: [] for lab in labels}
    for i in range(max_scenes):
        if not any(need.values()):
            break
        if i in skip:
            continue
        s = scene_seed(seed, i)
        img, truth = render_scene(game, s, edition)
        if light is not None:
            img = light(img)
        here = {p["label"]: p for p in truth["pieces"]
                if p["label"] in labels and p.get("visible", 1.0) >= 0.999}
        # the rarest still-needed label first, so one scene per photo covers them all quickly
        todo = [lab for lab in labels if need[lab] and lab in here]
        if not todo:
            continue
        lab = todo[-1] if game == "simsala-hopp" else todo[0]
        piece = here[lab]
        folder = out / lab
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{game}-e{edition}-s{seed}-{i:04d}"
        cv2.imwrite(str(folder / f"{name}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 80])
        tap = [{"x": piece["center"][0], "y": piece["center"][1], "label": lab}]
        (folder / f"{name}.taps.json").write_text(json.dumps(tap) + "\n")
        files[lab].append(str(folder / f"{name}.jpg"))
        need[lab] -= 1
    missing = [lab for lab, n in need.items() if n]
    if missing:
        raise RuntimeError(f"no scene with a visible {', '.join(missing)} in {max_scenes}")
    return files


class TaughtPipeline:
    """A `Pipeline` stand-in for `evaluate_folder` that recognises with a profile and times
    the teach steps per photo (`teach_probs`; Troetofanten's face fold, `fold_faces`, run
    after it in every taught card prediction; the taught backs' look: Troetofanten's search,
    `teach_cards.look_pixels`, `unlike_backs` and `look_backs`, and Hop la bille's colours,
    `photo_colours`, rescue and row check, `off_row_backs`; Simsala Hopp's coats of arms,
    `shield_hues`, and `teach.shield_calibrated`; Magic Rabbit's hats for the lamp's tone
    curve, `untaught_labels`)."""

    def __init__(self, pipeline: Pipeline, profile: teach.Profile):
        self.pipeline, self.profile = pipeline, profile
        self.added_ms: list[float] = []
        self.added_cpu_ms: list[float] = []  # each thread's own CPU time, summed (less the
        #                                      machine's load)

    def recognise(self, source, game):
        import vision.shields as sh
        import vision.teach_cards as tc

        # (module, name) of each timed step: the rule and the face fold, the card backs' look
        # and row check, Simsala Hopp's coats of arms (read only for the calibration when taught)
        steps = [(teach, "teach_probs"), (teach, "shield_calibrated"), (sh, "shield_hues")] + [
            (tc, n) for n in ("look_pixels", "unlike_backs", "look_backs", "photo_colours",
                              "look_colours", "look_share", "look_rescue", "fold_faces",
                              "off_row_backs", "untaught_labels")]
        real = [getattr(m, n) for m, n in steps]
        spent = [0.0, 0.0]
        lock = threading.Lock()  # Hop la bille reads its cards on a second thread
        local = threading.local()  # per thread: only its outermost timed call counts
        #                            (look_pixels, photo_colours call look_colours;
        #                             look_backs, unlike_backs call look_pixels if not given it)

        def timing(fn):
            def timed(*a, **k):
                depth = getattr(local, "depth", 0)
                local.depth = depth + 1
                t, c = time.perf_counter(), time.thread_time()
                try:
                    return fn(*a, **k)
                finally:
                    local.depth = depth
                    if depth == 0:
                        wall = (time.perf_counter() - t) * 1000
                        cpu = (time.thread_time() - c) * 1000
                        with lock:
                            spent[0] += wall
                            spent[1] += cpu
            return timed

        for (m, n), fn in zip(steps, real, strict=True):
            setattr(m, n, timing(fn))
        try:
            return self.pipeline.recognise(source, game, self.profile)
        finally:
            for (m, n), fn in zip(steps, real, strict=True):
                setattr(m, n, fn)
            self.added_ms.append(spent[0])
            self.added_cpu_ms.append(spent[1])


def headline(report: dict) -> dict:
    return {k: report[k] for k in HEADLINE} | {
        "per_class": {lab: [v["precision"], v["recall"]] for lab, v in
                      report["per_class"].items()}}


def evaluate_pawns(scenes: str | Path, profile: teach.Profile | None, with_dice: bool = True
                   ) -> tuple[dict, list, list]:
    """Mauerhuepfer: `vision.mauer_eval.evaluate` (pawns and dice, or pawns only) read with
    `profile` (None: untaught), and the wall and CPU ms `taught_proba` took per photo."""
    import vision.teach_pawns as tp
    from vision.mauer_eval import evaluate

    real = tp.taught_proba
    wall: list[float] = []
    cpu: list[float] = []

    def timed(*a, **k):
        t, c = time.perf_counter(), time.thread_time()
        r = real(*a, **k)
        wall.append((time.perf_counter() - t) * 1000)
        cpu.append((time.thread_time() - c) * 1000)
        return r

    tp.taught_proba = timed
    try:
        with tp.using(profile):
            report = evaluate(scenes, with_dice=with_dice)
    finally:
        tp.taught_proba = real
    return report, wall, cpu


def pawn_headline(report: dict) -> dict:
    return {k: report[k] for k in HEADLINE if k in report} | {
        "wrong_facts_scenes": report["wrong_facts_scenes"]}


def run(game: str, scenes: str | Path, per_label: int = 1, seed: int = 80,
        out: str | Path | None = None, settings: teach.TeachSettings | None = None,
        edition: int = 2, card_settings: teach.TeachSettings | None = None,
        harsh: bool = False) -> dict:
    pipeline = get_pipeline()
    if game != "mauerhuepfer":
        scene_files(scenes)
    light = harsh_light if harsh else None
    with tempfile.TemporaryDirectory() as tmp:
        if harsh:  # the scenes and the teach photos under the same harsh light
            scenes = harsh_scenes(scenes, Path(tmp) / "harsh-scenes")
        folder = Path(out or tmp) / game
        t = time.perf_counter()
        write_teach_folder(game, folder, per_label, seed, edition, light=light)
        render_s = time.perf_counter() - t
        if game != "mauerhuepfer":
            _ = pipeline.classifier  # load the models before timing
        if teach.teachable(game).card_labels:
            _ = pipeline.cards
        teach._CACHE.clear()
        retakes: list[str] = []
        bad: set[int] = set()
        while True:
            t, c = time.perf_counter(), time.process_time()
            try:
                profile = teach.build_profile(folder, game, pipeline, settings, card_settings)
                break
            except teach.TeachError as exc:  # as a user would: take another photo of it
                photo = next((f for f in folder.rglob("*.jpg")
                              if exc.message.startswith(str(f))), None)
                if photo is None or len(retakes) >= 10:
                    raise
                retakes.append(exc.message)
                photo.unlink()
                photo.with_name(photo.stem + ".taps.json").unlink(missing_ok=True)
                bad.add(int(photo.stem.rsplit("-", 1)[1]))
                used = {int(f.stem.rsplit("-", 1)[1]) for f in folder.rglob("*.jpg")}
                write_teach_folder(game, folder, 1, seed, edition, labels=(photo.parent.name,),
                                   skip=frozenset(used | bad), light=light)
        teach_ms = (time.perf_counter() - t) * 1000
        teach_cpu_ms = (time.process_time() - c) * 1000
        if game == "mauerhuepfer":  # pawns and dice (vision.mauer_eval), the pawns taught
            before, _, _ = evaluate_pawns(scenes, None)
            after, added_ms, added_cpu_ms = evaluate_pawns(scenes, profile)
            before, after = pawn_headline(before), pawn_headline(after)
            before["pawns_only"] = pawn_headline(evaluate_pawns(scenes, None, False)[0])
            after["pawns_only"] = pawn_headline(evaluate_pawns(scenes, profile, False)[0])
        else:
            before = evaluate_folder(game, scenes, pipeline).to_json()
            taught = TaughtPipeline(pipeline, profile)
            after = evaluate_folder(game, scenes, taught).to_json()
            added_ms, added_cpu_ms = taught.added_ms, taught.added_cpu_ms
            before, after = headline(before), headline(after)
    parts = teach.profile_parts(profile)
    return {
        "game": game,
        "scenes_folder": str(scenes),
        "teach_edition": edition,
        "harsh_light": harsh,
        "teach_photos": sum(teach.profile_counts(profile).values()),
        "labels_taught": list(teach.profile_counts(profile)),
        "render_teach_photos_s": round(render_s, 2),
        "retakes": retakes,  # teach photos refused (the error), each replaced by another
        # per part (pieces, cards, pawns): the model's own probability of each taught label
        # on its teach examples, and whether it reads them right (`Profile.known`: then the
        # profile leaves the reading to the model; not asked of pawns, always taught)
        "model_p": {part.model: {lab: round(float(p), 3) for lab, p in
                                 zip(part.labels, part.model_p, strict=True)}
                    for part in parts if part.model_p is not None},
        "model_p_median": {part.model: round(float(np.median(part.model_p)), 3)
                           for part in parts if part.model_p is not None},  # (`known_median`)
        "known": {part.model: part.known for part in parts if part.model != "mauer-pawns"},
        "teach_ms": round(teach_ms, 1),
        "teach_cpu_ms": round(teach_cpu_ms, 1),  # this process's CPU (less the machine's load)
        "load_average": round(os.getloadavg()[0], 2),
        "teach_added_ms_per_photo": {
            "median": round(float(np.median(added_ms)), 3),
            "max": round(float(np.max(added_ms)), 3)},
        "teach_added_cpu_ms_per_photo": {
            "median": round(float(np.median(added_cpu_ms)), 3),
            "max": round(float(np.max(added_cpu_ms)), 3)},
        "before": before,
        "after": after,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", required=True)
    ap.add_argument("--scenes", default=None,
                    help="scene folder (default datasets/scenes-edition2/GAME)")
    ap.add_argument("--per-label", type=int, default=1)
    ap.add_argument("--seed", type=int, default=80, help="set seed of the teach photos")
    ap.add_argument("--out", default=None, help="keep the teach folder here")
    ap.add_argument("--edition", type=int, default=2, help="edition of the teach photos")
    ap.add_argument("--harsh", action="store_true",
                    help="scenes and teach photos under a harsh warm light (harsh_light)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    scenes = args.scenes or Path(__file__).resolve().parents[1] / "datasets" / \
        "scenes-edition2" / args.game
    r = run(args.game, scenes, args.per_label, args.seed, args.out, edition=args.edition,
            harsh=args.harsh)
    if args.json:
        print(json.dumps(r, indent=2))
        return 0
    b, a = r["before"], r["after"]
    print(f"{r['game']} on {r['scenes_folder']} ({b['scenes']} scenes, {b['pieces_true']} "
          f"pieces), taught {r['teach_photos']} photos")
    for name, x in (("before", b), ("after", a)):
        print(f"  {name:6s}: per-piece error {100 * x['piece_error']:.2f} %, exact facts "
              f"{100 * x['facts_exact']:.1f} % ({x['facts_exact_count']}/{x['scenes']}), "
              f"extra {x['extra_pieces']}, zone errors {x.get('zone_errors', '-')}, "
              f"failed {len(x['failed_scenes'])}")
    for msg in r["retakes"]:
        print(f"  retaken: {msg}")
    print(f"  teaching: {r['teach_ms']:.0f} ms (CPU {r['teach_cpu_ms']:.0f} ms, load "
          f"{r['load_average']}); added per photo: median "
          f"{r['teach_added_ms_per_photo']['median']:.2f} ms, max "
          f"{r['teach_added_ms_per_photo']['max']:.2f} ms (CPU: median "
          f"{r['teach_added_cpu_ms_per_photo']['median']:.2f} ms)")
    for lab in b.get("per_class", {}):
        print(f"    {lab:18s} before P/R {b['per_class'][lab]}  after {a['per_class'][lab]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
