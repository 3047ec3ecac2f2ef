"""`vision.dice_eval`: the legibility labels and the "right among legible dice" figure."""

import json
from pathlib import Path

import pytest

from vision import dice_eval as E
from vision.dice import Die


def test_legibility_file_covers_the_committed_sets():
    """Every true die of the committed Mauerhuepfer scenes and of datasets/dice is labelled
    exactly once (the labels were made by eye from `--sheet` crops)."""
    labels = E.load_legibility()
    for folder in ("datasets/scenes/mauerhuepfer", "datasets/dice"):
        root = E.LEGIBILITY.parent.parent / folder
        for j in sorted(root.glob("*.json")):
            dice = E.truth_dice(json.loads(j.read_text()))
            marks = E.legibility_of(labels, j.with_suffix(".jpg").name, dice)
            assert marks is not None and None not in marks, j.name
            assert len(labels[j.with_suffix(".jpg").name]) == len(dice), j.name


@pytest.mark.parametrize("read,legible,want_legible,want_illegible", [
    # truth: a 3 at (100, 100) and a 5 at (300, 100), 40 px dice
    ([(3, (101, 99)), (5, (300, 102))], [True, False], (1, 1, 0, 0), (1, 1, 0, 0)),
    ([(2, (101, 99))], [True, True], (2, 0, 1, 1), None),  # wrong value and a miss
    ([(3, (140, 100))], [True, True], (2, 0, 2, 0), None),  # 40 px off: not that die
    ([(3, (101, 99))], None, None, None),  # an unlabelled photo adds nothing
])
def test_tally_counts_legible_dice_apart(read, legible, want_legible, want_illegible):
    truth = [{"value": 3, "center": [100, 100], "side_px": 40},
             {"value": 5, "center": [300, 100], "side_px": 40}]
    t = E._Tally()
    t.timed(lambda: None)
    t.add("x", [Die(v, 0.9, c) for v, c in read], truth, "", None, legible=legible)
    r = t.report(1)
    for key, want in (("legible", want_legible), ("illegible", want_illegible)):
        if want is None:
            assert key not in r
        else:
            got = r[key]
            assert (got["dice"], got["right"], got["missed"], got["wrong"]) == want


def test_legibility_of_needs_a_label_near_the_die():
    labels = {"a.jpg": [([100.0, 100.0], True), ([300.0, 100.0], False)]}
    dice = [{"center": [102, 101], "side_px": 20}, {"center": [300, 120], "side_px": 20},
            {"center": [299, 99], "side_px": 20}]
    assert E.legibility_of(labels, "a.jpg", dice) == [True, None, False]
    assert E.legibility_of(labels, "b.jpg", dice) is None


def test_contact_sheet_has_a_tile_per_die(tmp_path):
    import cv2
    import numpy as np

    img = np.full((120, 160, 3), 90, np.uint8)
    cv2.imwrite(str(tmp_path / "p.png"), img)
    (tmp_path / "p.json").write_text(json.dumps({"dice": [
        {"value": 1, "center": [20, 30], "side_px": 10},
        {"value": 2, "center": [150, 110], "side_px": 12}]}))
    out = tmp_path / "sheet.png"
    assert E.contact_sheet(tmp_path, out, tile=50, cols=4) == 2
    sheet = cv2.imread(str(out))
    assert sheet.shape[:2] == (66, 200)


@pytest.mark.parametrize("read,where,want", [
    # truth: a 3 at (100, 100) and a 5 at (300, 100), 40 px dice
    ([], [(102, 98)], (1, 2, 0, 0)),  # one missed die warned about, one not
    ([(3, (101, 99))], [(302, 101), (600, 600)], (1, 1, 1, 0)),  # and one warning at no die
    ([(3, (101, 99)), (5, (300, 100))], [(100, 104)], (0, 0, 0, 1)),  # at a die read
])
def test_tally_counts_unread_warnings(read, where, want):
    truth = [{"value": 3, "center": [100, 100], "side_px": 40},
             {"value": 5, "center": [300, 100], "side_px": 40}]
    t = E._Tally()
    t.add_unread([Die(v, 0.9, c) for v, c in read], truth, where)
    assert tuple(t.unread) == want
    t2 = E._Tally()  # with the match `add` made and returns: the same counts
    dice = [Die(v, 0.9, c) for v, c in read]
    matched = t2.add("x", dice, truth, "", None)
    assert matched == E.match(dice, truth)
    t2.add_unread(dice, truth, where, matched)
    assert tuple(t2.unread) == want


def test_unread_warnings_are_parsed():
    got = E.unread_warnings(["3 dice seen; the 2 read most surely are used",
                             "a die at (12, 345) could not be read: blurred? photograph it "
                             "again"])
    assert got == [(12.0, 345.0)]


@pytest.mark.parametrize("before,after,want", [
    # truth: a 3 at (100, 100) and a 5 at (300, 100), 40 px dice
    ([(3, (101, 99))], [(3, (101, 99))], []),  # the same readings: nothing changed
    ([], [(3, (101, 99))], ["p die 0: missed -> right"]),
    ([(3, (101, 99)), (5, (300, 100))], [(3, (101, 99)), (6, (300, 100))],
     ["p die 1: right -> wrong 6"]),
    ([(2, (500, 100))], [(4, (600, 100))],  # one false die went, another came
     ["p false die gone (500, 100, 2)", "p false die NEW (600, 100, 4)"]),
])
def test_die_changes_lists_each_die_that_changed(before, after, want):
    truth = [{"value": 3, "center": [100, 100], "side_px": 40},
             {"value": 5, "center": [300, 100], "side_px": 40}]
    tallies = []
    for read in (before, after):
        t = E._Tally()
        t.add("p", [Die(v, 0.9, c) for v, c in read], truth, "", None)
        tallies.append(t)
    assert E.die_changes(*tallies) == want


@pytest.mark.parametrize("name,want_right", [
    ("mauerhuepfer-e1-s1-0000.jpg", 2),  # both beside the board: read the board's way
    ("mauerhuepfer-e1-s1-0003.jpg", 1),  # small defocused dice: the 1 read by the board's
    #   blurred fit (`mauer_dice.blur_fit_read`), the 4 refused
])
def test_command_reader_reads_as_the_dice_command(tmp_path, name, want_right):
    import shutil

    from vision.dice_eval import evaluate_folder

    src = Path(__file__).resolve().parents[2] / "datasets" / "scenes" / "mauerhuepfer" / name
    for suffix in (".jpg", ".json"):
        shutil.copy(src.with_suffix(suffix), tmp_path / src.with_suffix(suffix).name)
    r = evaluate_folder(tmp_path, command=True)
    assert r["reader"] == "tablescore dice"
    assert r["dice"] == 2 and round(r["accuracy"] * 2) == want_right
    assert r["wrong_value_rate"] == 0


@pytest.mark.parametrize("argv", [["--command"], ["--command", "--dir", "x", "--mauer-board"],
                                  ["--command", "--dir", "x", "--baseline", "y.py"]])
def test_command_option_needs_a_folder_alone(argv):
    from vision.dice_eval import main

    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
