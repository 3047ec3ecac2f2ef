"""Light stress evaluation: the pipeline on a scene folder under lights the renderer never
made (the assistant is judged on real photos: other lamps, shadows, glare, dim rooms).

    python -m vision.light_eval --game simsala-hopp [--game ...] [--scenes DIR] \
        [--lights normal,tungsten,...] [--limit N] [--json]

Each light is a function `light(image, rng) -> image` of a uint8 BGR photo (its randomness,
where it has any, from `rng`, seeded by the photo's name, so a run is repeatable); the lit
copies are written as JPEG (quality 90; `vision.teach_eval.harsh_scenes` is the "harsh"
light's copy) with their truths to a temporary folder and measured as `tablescore
evaluate` does (Mauerhuepfer: `vision.mauer_eval`). Printed per game and light: the
per-piece error, the scenes with exact facts, the photos without a play area, and the CPU
time per photo (this process's, all threads; the machine's load average beside it).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from functools import partial
from pathlib import Path

import cv2
import numpy as np

from vision.area import LINEAR8, linear_gain_lut
from vision.preprocess import linear_to_srgb
from vision.teach_eval import harsh_light

GAMES = ("simsala-hopp", "magic-rabbit", "hop-la-bille", "mauerhuepfer", "troetofanten")


def in_linear(image: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """uint8 BGR `image` times `gain` (per channel (3,), or per pixel (H, W, 1 or 3)) in
    linear light (as a lamp or a shadow acts on the scene), back to uint8 sRGB."""
    gain = np.asarray(gain, np.float32)
    if gain.shape == (3,):  # one table per channel (`vision.area.linear_gain_lut`)
        return np.dstack([linear_gain_lut(g)[image[..., c]] for c, g in enumerate(gain)])
    return np.round(255.0 * linear_to_srgb(LINEAR8[image] * gain)).astype(np.uint8)


# per-channel gains (B, G, R) in linear light, the brightest channel 1
TUNGSTEN = (0.30, 0.62, 1.0)  # a ~2800 K bulb, the camera's white balance only part way
DAYLIGHT_BLUE = (1.0, 0.78, 0.55)  # overcast sky / shade, ~8000 K


def tungsten(image: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
    """A warm tungsten lamp: a strong orange cast by channel gains only."""
    return in_linear(image, np.array(TUNGSTEN))


def daylight_blue(image: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
    """Cool daylight from a window or shade: a blue cast by channel gains only."""
    return in_linear(image, np.array(DAYLIGHT_BLUE))


def dim_noisy(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """An underexposed phone photo: a fifth of the light, the sensor's shot and read noise
    (gain noise: larger on brighter pixels), then the camera's gain up by 2 (so still dark:
    0.4 of the light) and a JPEG at quality 60."""
    lin = LINEAR8[image] / 5.0  # (each level's linear light, as `in_linear`)
    sigma = np.sqrt(lin * 0.0006 + 0.004 ** 2)  # photon noise ~ sqrt(signal), read noise
    lin = lin + rng.standard_normal(lin.shape).astype(np.float32) * sigma
    out = np.round(255.0 * linear_to_srgb(2.0 * lin)).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, 60])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def hard_shadow(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A hard shadow (a person, a lamp's arm) over part of the table: beyond a random straight
    line through the photo's middle (0.3-0.7 of each side), a quarter to a third of the
    light, lit by the bluer sky light (B 0.34, G 0.3, R 0.26 in linear light), its edge
    4 px soft."""
    h, w = image.shape[:2]
    p = np.array([w, h]) * rng.uniform(0.3, 0.7, 2)
    t = rng.uniform(0, np.pi)
    n = np.array([np.cos(t), np.sin(t)])
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d = (xx - p[0]) * n[0] + (yy - p[1]) * n[1]
    inside = np.clip(0.5 + d / 8.0, 0.0, 1.0)[..., None]  # 1 in the shadow
    dark = np.array([0.34, 0.30, 0.26], np.float32) * rng.uniform(0.9, 1.1)
    return in_linear(image, 1.0 - inside * (1.0 - dark))


WARM_WHITE = (0.92, 0.97, 1.0)  # a halogen lamp's light (B, G, R)


def add_spot(image: np.ndarray, centre, radius: float, amount: float = 1.2,
             colour=WARM_WHITE) -> np.ndarray:
    """uint8 BGR `image` with a lamp's reflection added in linear light: a round spot
    (a Gaussian of sigma `radius` / 1.6 about `centre` (x, y)), `amount` x `colour` at its
    centre."""
    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    spot = np.exp(-(((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2) / (2 * (radius / 1.6) ** 2)))
    lin = LINEAR8[image] + amount * spot[..., None] * np.asarray(colour, np.float32)
    return np.round(255.0 * linear_to_srgb(lin)).astype(np.uint8)


def glare(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A glare / specular spot of a lamp on a glossy table or board: a round washed-out spot
    (radius 8-14 % of the photo's width) somewhere over the middle, the warm-white lamp's
    reflection added in linear light (up to 1.2 times white at its centre, `add_spot`)."""
    h, w = image.shape[:2]
    c = np.array([w, h]) * rng.uniform(0.25, 0.75, 2)
    r = w * rng.uniform(0.08, 0.14)
    return add_spot(image, c, r)


def normal(image: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
    """The photo as rendered (re-encoded as the others are)."""
    return image


def harsh(image: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
    """`vision.teach_eval.harsh_light`: per-channel gamma and gains (contrasty orange)."""
    return harsh_light(image)


LIGHTS: dict[str, Callable[..., np.ndarray]] = {
    "normal": normal, "tungsten": tungsten, "daylight": daylight_blue, "dim": dim_noisy,
    "shadow": hard_shadow, "glare": glare, "harsh": harsh,
}


def photo_rng(name: str, light: str) -> np.random.Generator:
    """The seeded randomness of one photo under one light (repeatable across runs)."""
    return np.random.default_rng(zlib.crc32(f"{light}/{name}".encode()))


def lit_scenes(scenes: str | Path, out: Path, light: str, limit: int | None = None) -> Path:
    """A copy of a scene folder (photos + truths; the first `limit` scenes) under `light`;
    `out` is emptied first (a kept folder's older photos would be counted again)."""
    from vision.evaluate import scene_files

    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    for img, truth in scene_files(scenes)[:limit]:
        photo = cv2.imread(str(img))
        lit = LIGHTS[light](photo, photo_rng(img.name, light))
        cv2.imwrite(str(out / (img.stem + ".jpg")), lit, [cv2.IMWRITE_JPEG_QUALITY, 90])
        (out / (img.stem + ".json")).write_text(truth.read_text())
    return out


def measure(game: str, folder: Path) -> dict:
    """The evaluation of one lit folder: piece error, exact facts, areas not found, CPU ms
    per photo (the pipeline's models loaded before the clock starts)."""
    from vision.evaluate import evaluate_folder
    from vision.mauer_eval import evaluate
    from vision.pipeline import get_pipeline

    if game != "mauerhuepfer":
        get_pipeline()
    c = time.process_time()
    if game == "mauerhuepfer":
        rep = evaluate(folder)
    else:
        rep = evaluate_folder(game, folder).to_json()
    cpu = (time.process_time() - c) * 1000 / max(rep["scenes"], 1)
    return {"scenes": rep["scenes"], "piece_error": rep["piece_error"],
            "facts_exact_count": rep["facts_exact_count"],
            "not_found": len(rep["failed_scenes"]), "cpu_ms_per_photo": round(cpu, 1)}


def run_copies(games, scenes: str | None, copies: dict, keep: str | None = None) -> dict:
    """Each game's scene folder copied by each of `copies` ({name: copy(src, out) -> folder}:
    a light, a turn) into DIR/<game>/<name>/ (a temporary DIR unless `keep`) and measured."""
    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = keep or tmp
        for game in games:
            src = Path(scenes.format(game=game)) if scenes else Path("datasets/scenes") / game
            out[game] = {}
            for name, copy in copies.items():
                folder = copy(src, Path(tmp) / game / name.replace(" ", ""))
                out[game][name] = measure(game, folder)
                print(f"{game} {name}: {out[game][name]}", file=sys.stderr, flush=True)
    return out


def run(games, scenes: str | None, lights, limit: int | None, keep: str | None = None) -> dict:
    return run_copies(games, scenes, {
        light: partial(lit_scenes, light=light, limit=limit) for light in lights}, keep)


def table(result: dict) -> str:
    lights = list(next(iter(result.values())))
    lines = ["| game | " + " | ".join(lights) + " |", "|---|" + "---|" * len(lights)]
    for game, per in result.items():
        cells = []
        for lig in lights:
            r = per[lig]
            cell = (f"{100 * (r['piece_error'] or 0):.2f} % "
                    f"({r['facts_exact_count']}/{r['scenes']})")
            if r["not_found"]:
                cell += f" {r['not_found']} no area"
            cells.append(cell)
        lines.append(f"| {game} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def stress_arguments(doc: str, kept: str) -> argparse.ArgumentParser:
    """The options a stress evaluation shares (this module's and `vision.turn_eval`'s):
    games, scene folder, limit, a folder to keep the copies in (`kept`: its layout), JSON."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--game", action="append", choices=GAMES,
                    help="a game (repeatable); default all five")
    ap.add_argument("--scenes", help="scene folder, {game} replaced by the game id "
                    "(default datasets/scenes/{game})")
    ap.add_argument("--limit", type=int, help="only the first N scenes of each folder")
    ap.add_argument("--keep", help=f"write the copies here ({kept}) and keep them")
    ap.add_argument("--json", action="store_true")
    return ap


def print_result(result: dict, as_json: bool) -> None:
    """A stress evaluation's result as JSON (with the load average) or as a table."""
    if as_json:
        print(json.dumps({"load_average": round(os.getloadavg()[0], 2), "result": result},
                         indent=1))
    else:
        print(table(result))
        print(f"(piece error, scenes with exact facts; load average "
              f"{os.getloadavg()[0]:.2f})")


def main(argv=None) -> int:
    ap = stress_arguments(__doc__, "DIR/<game>/<light>/")
    ap.add_argument("--lights", default=",".join(LIGHTS),
                    help="comma-separated, of: " + ", ".join(LIGHTS))
    args = ap.parse_args(argv)
    lights = [s for s in args.lights.split(",") if s]
    bad = [s for s in lights if s not in LIGHTS]
    if bad:
        ap.error(f"unknown light(s): {', '.join(bad)}")
    result = run(args.game or GAMES, args.scenes, lights, args.limit, args.keep)
    print_result(result, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
