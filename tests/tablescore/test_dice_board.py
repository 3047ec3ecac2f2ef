"""`tablescore dice` on a photo of a Mauerhuepfer board: the small dice beside the board are
read the board's way and merged with the whole-photo reader's (session 17, H7)."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tablescore.cmd_dice import read_dice_photo
from vision import mauer as M
from vision.dice import Die, read_dice
from vision.image_io import AS_TAKEN, load_photo

ROOT = Path(__file__).resolve().parents[2] / "datasets"


def _true_dice(photo: Path) -> list[tuple[int, tuple[float, float]]]:
    truth = json.loads(photo.with_suffix(".json").read_text())
    return sorted((int(p["label"].split("-")[1]), tuple(np.mean(p["polygon"], axis=0)))
                  for p in truth["pieces"] if p["label"].startswith("die-"))


# committed photos whose two dice the whole-photo reader missed (both, or one) and the
# board's way reads
@pytest.mark.parametrize("name", [
    "scenes/mauerhuepfer/mauerhuepfer-e1-s1-0000.jpg",
    "scenes/mauerhuepfer/mauerhuepfer-e1-s1-0009.jpg",
    "scenes-edition2/mauerhuepfer/mauerhuepfer-e2-s2-0001.jpg",
])
def test_dice_command_reads_the_dice_beside_a_mauerhuepfer_board(run_cli, name):
    photo = ROOT / name
    code, out = run_cli("dice", photo, "--json")
    assert code == 0
    want = _true_dice(photo)
    assert sorted(d["value"] for d in out["dice"]) == [v for v, _ in want]
    for d in out["dice"]:  # each at its true die
        assert min(np.hypot(d["center"][0] - c[0], d["center"][1] - c[1]) for _, c in want) < 12
    assert [d["center"][1] for d in out["dice"]] == sorted(d["center"][1] for d in out["dice"])
    assert "board_dice" in out["timings_ms"]


@pytest.mark.parametrize("name", [
    "dice/dice-000.jpg", "dice/dice-007.jpg",
    "scenes/hop-la-bille/hop-la-bille-e1-s1-0000.jpg",
    "scenes/magic-rabbit/magic-rabbit-e1-s1-0003.jpg",
    "scenes/simsala-hopp/simsala-hopp-e1-s1-0000.jpg",
    "scenes/troetofanten/troetofanten-e1-s1-0000.jpg",
])
def test_dice_command_without_a_board_is_the_whole_photo_reading(name):
    photo = ROOT / name
    if not photo.exists():
        pytest.skip(f"{name} not in the committed sets")
    p = load_photo(str(photo), AS_TAKEN)  # (as the command decodes it)
    dice, warnings, _ = read_dice(p.image)
    out = read_dice_photo(str(photo))
    assert [(d["value"], d["center"]) for d in out["dice"]] == [
        (d.value, [round(d.center[0] * p.scale, 1), round(d.center[1] * p.scale, 1)])
        for d in dice]
    assert len(out["warnings"]) == len(warnings)
    assert "board_dice" not in out["timings_ms"]


@pytest.mark.parametrize("kind", ["grey", "noise", "checks", "dots"])
def test_no_board_is_found_in_plain_pictures(kind):
    rng = np.random.default_rng(7)
    img = np.full((960, 1280, 3), 128, np.uint8)
    if kind == "noise":
        img = rng.integers(0, 256, img.shape, dtype=np.uint8)
    elif kind == "checks":
        yy, xx = np.mgrid[:960, :1280]
        img[((yy // 40 + xx // 40) % 2) == 0] = 230
    elif kind == "dots":  # a lattice of light discs without the board's start colours
        for y in range(100, 900, 40):
            for x in range(100, 1200, 40):
                cv2.circle(img, (x, y), 10, (245, 245, 245), -1)
    assert M.find_board_quick(img)[0] is None
    dice = [Die(3, 0.9, (10.0, 20.0))]
    got, warnings, times, found = M.dice_beside_board(img, dice)
    assert (got, warnings, found) == (dice, [], False)
    assert set(times) == {"board"}


class _View:
    corners = np.array([[100, 100], [300, 100], [300, 300], [100, 300]], float)
    H = np.array([[1.0, 0, 100], [0, 1.0, 100], [0, 0, 1]])  # 1 px per mm: a die 16 px


@pytest.mark.parametrize("general,board,want", [
    # (value, centre) of the whole-photo reader's dice, the board reader's; want top to bottom
    ([], [(3, (50, 60)), (5, (350, 40))], [(5, (350, 40)), (3, (50, 60))]),
    ([(3, (52, 61))], [(3, (50, 60)), (5, (350, 40))], [(5, (350, 40)), (3, (50, 60))]),
    ([(4, (52, 61))], [(3, (50, 60))], [(3, (50, 60))]),  # one die: the board's reading
    ([(2, (50, 80))], [(3, (50, 60))], [(3, (50, 60)), (2, (50, 80))]),  # 20 px apart: two
    ([(6, (600, 10))], [], [(6, (600, 10))]),  # a board, no die beside it
])
def test_a_die_read_by_both_readers_is_one_entry(monkeypatch, general, board, want):
    monkeypatch.setattr(M, "find_board_quick", lambda img, b, s: (_View(), None))
    monkeypatch.setattr(M, "read_board_dice", lambda img, view, b, s, lightness: (
        [Die(v, 0.8, c) for v, c in board], ["a die at (1, 2) could not be read"]))
    got, warnings, times, found = M.dice_beside_board(
        np.zeros((400, 700, 3), np.uint8), [Die(v, 0.9, c) for v, c in general])
    assert found and set(times) == {"board", "board_dice"}
    assert [(d.value, tuple(d.center)) for d in got] == want
    assert warnings[0] == "a die at (1, 2) could not be read"


@pytest.mark.parametrize("scale, given", [(1.0, True), (1.5, False)])
def test_board_dice_read_on_the_lightness_the_refine_made(monkeypatch, scale, given):
    # The dice command converted the whole photo to Lab for the board's dice once more
    # (`read_board_dice` without `lightness`), after the board gate's refine had made its
    # L* (session 18, H7). A photo over `blob_long_side` (the refine's map at f < 1) still
    # has the dice reader convert its own.
    img = load_photo(str(ROOT / "scenes/mauerhuepfer/mauerhuepfer-e1-s1-0000.jpg")).image
    if scale != 1.0:
        img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    got = []
    real = M.read_board_dice

    def spy(image, view, board, s, lightness=None):
        got.append(lightness)
        return real(image, view, board, s, lightness)

    monkeypatch.setattr(M, "read_board_dice", spy)
    dice, _, _, found = M.dice_beside_board(img, [])
    assert found and len(got) == 1 and len(dice) == 2
    if given:
        assert np.array_equal(got[0], cv2.cvtColor(img, cv2.COLOR_BGR2LAB)[..., 0])
    else:
        assert got[0] is None
