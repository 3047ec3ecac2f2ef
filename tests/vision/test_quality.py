"""`vision.quality.photo_quality`: each check fires on a tiny synthetic photo that has the
fault and stays quiet on one that has not; one committed scene with a lamp's glare drawn on
it gets the warning through `tablescore score --json`."""

import cv2
import numpy as np
import pytest

from vision.light_eval import add_spot
from vision.quality import QUALITY_SETTINGS, QualitySettings, photo_quality, where

S = QualitySettings(far_share=0.07)
FULL = np.array([[20, 20], [619, 20], [619, 459], [20, 459]], float)  # most of a 640 x 480


def blocks(seed: int = 0) -> np.ndarray:
    """A sharp 640 x 480 photo: 150 random flat rectangles of mid-range greys and colours."""
    rng = np.random.default_rng(seed)
    img = np.full((480, 640, 3), 110, np.uint8)
    for _ in range(150):
        x, y = rng.integers(0, 600), rng.integers(0, 440)
        w, h = rng.integers(10, 60, 2)
        cv2.rectangle(img, (int(x), int(y)), (int(x + w), int(y + h)),
                      tuple(int(c) for c in rng.integers(40, 200, 3)), -1)
    return img


def motion(img: np.ndarray, n: int) -> np.ndarray:
    k = np.zeros((n, n), np.float32)
    k[n // 2] = 1.0 / n
    return cv2.filter2D(img, -1, k)


def dim(img: np.ndarray, seed: int = 0) -> np.ndarray:
    """A fifth of the light, amplified noise (sigma 6 grey levels)."""
    rng = np.random.default_rng(seed)
    out = img.astype(np.float32) / 3.0 + rng.normal(0, 6, img.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def noisy(img: np.ndarray, sigma: float, gain: float = 1.0, seed: int = 0) -> np.ndarray:
    """`img` x `gain` plus sensor noise normal(0, `sigma`)."""
    rng = np.random.default_rng(seed)
    out = img.astype(np.float32) * gain + rng.normal(0, sigma, img.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def kinds(warnings: list[str]) -> set[str]:
    words = {"glare": "glare from a lamp", "dark": "photo is too dark", "blur": "photo is blurred",
             "far": "come closer", "cut": "cut off", "grey": "photo has no colour"}
    return {k for k, w in words.items() if any(w in s for s in warnings)}


def grey(img: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)


def jpeg(img: np.ndarray, quality: int = 80) -> np.ndarray:
    return cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], 1)


@pytest.mark.parametrize("make, expected", [
    (lambda: grey(blocks()), {"grey"}),  # a black-and-white photo
    (lambda: jpeg(grey(blocks())), {"grey"}),  # ... saved as a colour JPEG
    (lambda: grey(blocks()) // 5, {"grey", "dark"}),  # ... and dark: both said
    (lambda: jpeg(blocks() // 4), {"dark"}),  # a quarter of the light: dark, not grey
    (lambda: noisy(grey(blocks()), 2.0), set()),  # grey pieces, a sensor's colour noise
    (lambda: cv2.transform(blocks(), np.array([[0.13, 0.53, 0.27], [0.17, 0.69, 0.35],
                                               [0.19, 0.77, 0.39]])), set()),  # sepia
])
def test_no_colour(make, expected):
    # A grey photo was answered only "no arena found" (exit 3): every game's pieces are told
    # apart by colour (session 17, H5).
    assert kinds(photo_quality(S, make(), FULL)) == expected


@pytest.mark.parametrize("make, area, expected", [
    (lambda: blocks(), FULL, set()),  # sharp, lit, filling the photo: nothing to say
    (lambda: blocks(1), None, set()),  # no area (card games before any card): the photo
    (lambda: cv2.GaussianBlur(blocks(), (0, 0), 3.0), FULL, {"blur"}),  # out of focus
    (lambda: motion(blocks(), 15), FULL, {"blur"}),  # moved sideways
    (lambda: cv2.GaussianBlur(blocks(), (0, 0), 0.7), FULL, set()),  # a little soft: fine
    (lambda: cv2.resize(cv2.resize(blocks(), (1280, 960)), (640, 480),
                        interpolation=cv2.INTER_AREA), FULL, set()),  # scaled, still sharp
    (lambda: dim(blocks()), FULL, {"dark"}),  # dim, noisy
    (lambda: noisy(blocks(), 2.0), FULL, set()),  # lit, a phone's sensor noise: fine
    (lambda: noisy(blocks(), 2.0, 0.9), FULL, set()),  # the same, its white at ~160
    (lambda: noisy(blocks(), 4.0, 0.6), FULL, {"dark"}),  # grey white (~106), amplified
    (lambda: noisy(blocks(), 1.0, 0.6), FULL, set()),  # grey white, clean: a dark table
    (lambda: (blocks() // 5).astype(np.uint8), FULL, {"dark"}),  # very dark, no noise
    (lambda: blocks(), FULL * 0.2 + [250, 180], {"far"}),  # the area 4 % of the photo
    (lambda: blocks(), FULL + [200, 0], {"cut"}),  # two corners beyond the right edge
    (lambda: blocks(), np.array([[0, 0], [639.4, 0], [639.4, 479.4], [0, 479.4]]),
     set()),  # corners on the last pixels (and a fit's pixel of jitter): not cut off
    (lambda: blocks(), np.array([[-20, 0], [639, 0], [639, 479], [-20, 479]]), {"cut"}),
])
def test_each_check(make, area, expected):
    assert kinds(photo_quality(S, make(), area)) == expected


def test_glare_on_the_area_is_named_where_it_is():
    img = add_spot(blocks(), (400, 200), 70)
    warnings = photo_quality(S, img, FULL, scale=2.0)
    assert kinds(warnings) == {"glare"}
    x, y = map(float, warnings[0].split("at (")[1].split(")")[0].split(", "))
    assert abs(x - 800) < 20 and abs(y - 400) < 20  # photo pixels: 2 x the working image's
    assert "at the centre of the photo" in warnings[0]  # and in words: its thirds
    assert "tilt the phone or move the lamp" in warnings[0]


def test_where_in_words():
    assert [where(x, y, 640, 480) for x, y in ((10, 10), (320, 10), (630, 470), (320, 240),
                                               (10, 240))] == \
        ["top left", "top", "bottom right", "centre", "left"]


def test_far_cards_by_their_width_not_their_spread():
    s = QUALITY_SETTINGS["troetofanten"]
    small = FULL * 0.2 + [250, 180]  # a few cards' hull: a small share of the photo
    assert "far" not in kinds(photo_quality(s, blocks(), small, card_width=60.0))
    warnings = photo_quality(s, blocks(), FULL, card_width=25.0)
    assert kinds(warnings) == {"far"}
    assert "the cards are only 25 px wide in the photo: come closer" in warnings


@pytest.mark.parametrize("width, far", [
    (38.0, True),  # most cards under 40 px: their corner numbers are misread often (session 16)
    (42.0, False),
])
def test_troetofanten_cards_too_small_for_their_numbers(width, far):
    s = QUALITY_SETTINGS["troetofanten"]
    assert ("far" in kinds(photo_quality(s, blocks(), FULL, card_width=width))) == far


def enlarged(img: np.ndarray) -> np.ndarray:
    """`img` enlarged 2 x as `vision.image_io.load_photo` enlarges a small photo."""
    return cv2.resize(img, (2 * img.shape[1], 2 * img.shape[0]), interpolation=cv2.INTER_CUBIC)


@pytest.mark.parametrize("make, expected", [
    (lambda: blocks(), set()),  # a sharp small photo enlarged: soft only by the enlarging
    (lambda: cv2.GaussianBlur(blocks(), (0, 0), 1.0), set()),  # a little soft as taken (its
    #   sharpness 0.41): enlarged 2 x, 0.21 in working pixels, under `blur_min`
    (lambda: cv2.GaussianBlur(blocks(), (0, 0), 3.0), {"blur"}),  # out of focus as taken
    (lambda: dim(blocks()), {"dark"}),  # dim and noisy as taken (noise smoothed by enlarging)
])
def test_an_enlarged_photo_is_judged_at_its_own_size(make, expected):
    # A photo under the working size is enlarged to it (`ImageSettings.enlarge_small`,
    # `Photo.scale` 0.5 here): judged in its working pixels, a little soft one was blurred.
    assert kinds(photo_quality(S, enlarged(make()), FULL * 2, scale=0.5)) == expected


def test_an_enlarged_photos_cards_and_glare_in_its_own_pixels():
    s = QUALITY_SETTINGS["troetofanten"]  # (far_card 40: pixels of the photo as taken)
    assert "far" in kinds(photo_quality(s, enlarged(blocks()), FULL * 2, 0.5, card_width=64.0))
    assert "far" not in kinds(photo_quality(s, enlarged(blocks()), FULL * 2, 0.5,
                                            card_width=90.0))
    warnings = photo_quality(S, enlarged(add_spot(blocks(), (400, 200), 70)), FULL * 2, 0.5)
    x, y = map(float, warnings[0].split("at (")[1].split(")")[0].split(", "))
    assert abs(x - 400) < 20 and abs(y - 200) < 20  # photo pixels
    assert "at the centre of the photo" in warnings[0]


def test_glare_away_from_the_area_is_not_warned():
    img = add_spot(blocks(), (560, 400), 50)
    area = np.array([[20, 20], [300, 20], [300, 200], [20, 200]], float)
    assert "glare" not in kinds(photo_quality(S, img, area))


def test_every_game_has_settings():
    from vision.pipeline import PHOTO_GAMES

    assert set(QUALITY_SETTINGS) == PHOTO_GAMES


@pytest.mark.slow
def test_glare_reaches_the_score_json(run_cli, tmp_path):
    from pathlib import Path

    scene = Path(__file__).parents[1] / "data" / "simsala-hopp-scene.jpg"
    img = cv2.imread(str(scene))
    photo = tmp_path / "glare.jpg"
    cv2.imwrite(str(photo), add_spot(img, (640, 480), 110))
    code, out = run_cli("score", photo, "--game", "simsala-hopp", "--magician", "blue",
                        "--json")
    assert code == 0
    assert any("glare from a lamp at the centre of the photo (at (" in w
               for w in out["warnings"]), out["warnings"]
    code, out = run_cli("score", scene, "--game", "simsala-hopp", "--magician", "blue",
                        "--json")
    assert code == 0 and not kinds(out["warnings"])


def test_nothing_found_says_what_is_wrong_with_the_photo(run_cli, tmp_path):
    rng = np.random.default_rng(3)  # a dark, noisy empty table: no cloth, and why perhaps
    table = np.clip(rng.normal(25, 6, (960, 1280, 3)), 0, 255).astype(np.uint8)
    photo = tmp_path / "dark.jpg"
    cv2.imwrite(str(photo), table)
    code, out = run_cli("score", photo, "--game", "hop-la-bille", "--json")
    assert code == 3 and "cloth" in out["error"]["message"]
    assert "photo is too dark" in out["error"]["message"]


def test_grey_photo_not_found_says_it_has_no_colour(run_cli, tmp_path):
    from pathlib import Path

    scene = Path(__file__).parents[2] / "datasets/scenes/simsala-hopp/simsala-hopp-e1-s1-0000.jpg"
    photo = tmp_path / "grey.jpg"
    cv2.imwrite(str(photo), cv2.imread(str(scene), cv2.IMREAD_GRAYSCALE))  # a 1-channel JPEG
    code, out = run_cli("score", photo, "--game", "simsala-hopp", "--magician", "blue",
                        "--json")
    assert code == 3 and "photo has no colour" in out["error"]["message"]


@pytest.mark.parametrize("shape, q", [
    ((48, 64, 3), 0.99),  # random colours, the quantile the grey test uses
    ((48, 64, 3), 0.5),   # the median
    ((48, 64, 3), 0.0),   # the least spread
    ((48, 64, 3), 1.0),   # the largest (the last order statistic)
    ((1, 1, 3), 0.99),    # a single pixel
])
def test_colour_spread_quantile_is_numpys(shape, q):
    from vision.quality import colour_spread_quantile

    img = np.random.default_rng(7).integers(0, 256, shape, dtype=np.uint8)
    spread = img.max(axis=2).astype(np.int16) - img.min(axis=2)
    assert colour_spread_quantile(img, q) == pytest.approx(float(np.quantile(spread, q)))


def cloth_under_lamp(seed: int, cloth: int, table: int | None, lamp: bool) -> np.ndarray:
    """A 640 x 480 photo: `blocks` (or a flat `table` grey) with a 200 x 200 cloth of grey
    `cloth` (noise sigma 2) at (220-420, 140-340); with `lamp`, a clipped disc of radius 120
    on the cloth's north side, the photo lit to 215 or more out to 1.6 radii."""
    rng = np.random.default_rng(seed)
    img = blocks(seed) if table is None else np.full((480, 640, 3), table, np.uint8)
    patch = np.clip(cloth + rng.normal(0, 2, (200, 200, 3)), 0, 255)
    img[140:340, 220:420] = np.minimum(patch, 250 if cloth < 250 else 255).astype(np.uint8)
    if lamp:
        cx, cy = 320 + rng.integers(-10, 11), 140 + rng.integers(-10, 11)
        yy, xx = np.mgrid[0:480, 0:640]
        d = np.hypot(xx - cx, yy - cy)
        img[d <= 1.6 * 120] = np.maximum(img[d <= 1.6 * 120], 215)
        img[d <= 120] = 255
    return img


CLOTH = np.array([[220, 140], [419, 140], [419, 339], [220, 339]], float)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("cloth, table, lamp, expected", [
    (235, None, True, True),    # a lamp's clip over the cloth's edge, the table lit round it
    (235, 225, True, True),     # likewise on a pale table
    (235, None, False, False),  # a white cloth, not clipped, on a busy table
    (255, 60, False, False),    # a clipped white cloth on a dark table: its edge is seen
    (235, 225, False, False),   # a white cloth on a pale table: not clipped
])
def test_washed_edge_is_warned_where_clip_meets_white(seed, cloth, table, lamp, expected):
    img = cloth_under_lamp(seed, cloth, table, lamp)
    warned = any("edge is washed out" in w
                 for w in photo_quality(QUALITY_SETTINGS["hop-la-bille"], img, CLOTH))
    assert warned == expected
    # off (every other game's settings): never warned
    assert not any("edge is washed out" in w for w in photo_quality(S, img, CLOTH))


@pytest.mark.parametrize("outline", [
    np.zeros((4, 2)), np.full((4, 2), np.nan), np.array([[0, 0], [10, 10]], float)])
def test_washed_edge_of_a_degenerate_outline_is_none(outline):
    from vision.quality import washed_edge

    img = cloth_under_lamp(0, 235, None, True)
    assert washed_edge(img, outline, QUALITY_SETTINGS["hop-la-bille"]) == 0.0
