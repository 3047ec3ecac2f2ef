"""`vision.turn_eval`: a turned photo's truth is the truth of the turned scene."""

import json

import numpy as np
import pytest

from vision.turn_eval import turned_point, turned_scenes, turned_truth, turned_zone


@pytest.mark.parametrize("k", [0, 1, 2, 3, 5])  # each turn; 5 is 1 again
@pytest.mark.parametrize("xy", [(0, 0), (12, 3), (19, 9), (7, 5)])  # corners and inside
def test_a_point_goes_where_rot90_puts_its_pixel(xy, k):
    img = np.zeros((10, 20), np.uint8)  # 20 wide, 10 high
    img[xy[1], xy[0]] = 255
    y, x = np.argwhere(np.rot90(img, k))[0]
    assert turned_point(xy, k, 20, 10) == [float(x), float(y)]


@pytest.mark.parametrize("zone,k,want", [
    ("north", 1, "west"),  # the top side goes to the left
    ("west", 1, "south"),
    ("east", 1, "north"),
    ("south", 2, "north"),
    ("east", 3, "south"),
    ("middle", 1, "middle"),  # not a side
    ("arena", 3, "arena"),
])
def test_side_zones_turn_with_the_photo(zone, k, want):
    assert turned_zone(zone, k) == want


def truth(game: str) -> dict:
    return {"game": game, "image": {"width": 40, "height": 30},
            "area": [[1, 2], [38, 2], [38, 27], [1, 27]],
            "pieces": [{"label": "back", "zone": "north", "center": [10, 5],
                        "polygon": [[8, 3], [12, 3], [12, 7], [8, 7]]},
                       {"label": "lasso", "zone": "middle", "center": [20, 15]}],
            "facts": {"zones": {"north": {"back": 1}, "middle": {"lasso": 1}}}}


def test_truth_turned_once_swaps_the_size_and_renames_the_sides():
    t = turned_truth(truth("troetofanten"), 1)
    assert t["image"] == {"width": 30, "height": 40}
    assert t["pieces"][0]["zone"] == "west" and t["pieces"][0]["center"] == [5.0, 29.0]
    assert t["facts"]["zones"] == {"west": {"back": 1}, "middle": {"lasso": 1}}
    assert t["area"][0] == [2.0, 38.0]


def test_four_turns_give_the_truth_back_and_the_input_is_untouched():
    t0 = truth("hop-la-bille")
    before = json.dumps(t0)
    t = t0
    for _ in range(4):
        t = turned_truth(t, 1)
    assert t == json.loads(before) and json.dumps(t0) == before


def test_zones_not_named_by_sides_stay():
    t = turned_truth(dict(truth("simsala-hopp"), facts={"zones": {"north": 1}}), 1)
    assert t["pieces"][0]["zone"] == "north"  # (only the side-zone games rename)
    assert t["facts"] == {"zones": {"north": 1}}


def test_turned_scenes_writes_turned_photos_and_truths(tmp_path):
    import cv2

    src = tmp_path / "src"
    src.mkdir()
    img = np.zeros((30, 40, 3), np.uint8)
    img[5, 10] = 255
    cv2.imwrite(str(src / "s.png"), img)
    (src / "s.json").write_text(json.dumps(truth("troetofanten")))
    out = turned_scenes(src, tmp_path / "out", 1)
    photo = cv2.imread(str(out / "s.jpg"))
    assert photo.shape[:2] == (40, 30)
    y, x = np.unravel_index(np.argmax(photo.sum(axis=2)), photo.shape[:2])
    assert [float(x), float(y)] == json.loads((out / "s.json").read_text())["pieces"][0]["center"]
