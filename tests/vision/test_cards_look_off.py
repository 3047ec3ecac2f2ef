"""Troetofanten: the warning where the face-down cards' look shows off every card read
(`vision.cards.read.look_off_cards`, session 24 H6). Tiny synthetic photos, seeded."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cards.geometry import SPECS
from vision.cards.pieces import CardPiece
from vision.cards.read import READ, card_frame, look_off_cards

ASPECT = SPECS["troetofanten"].aspect
W = 40.0  # card width, px
DESIGNS = [((150, 80, 30), (60, 30, 10)),  # blue with dark stripes
           ((40, 40, 190), (30, 210, 230)),  # red with yellow stripes
           ((40, 150, 60), (30, 210, 230))]  # green with yellow stripes


def table(seed: int, shape=(360, 480)) -> np.ndarray:
    """(H, W, 3) uint8 BGR: a grey-brown table with seeded noise."""
    rng = np.random.default_rng(seed)
    img = np.full((*shape, 3), (95, 110, 125), np.int16)
    img += rng.integers(-12, 13, img.shape, dtype=np.int16)
    return np.clip(img, 0, 255).astype(np.uint8)


def draw_back(img, centre, width, colour, stripe) -> np.ndarray:
    """A face-down card (upright), stripes along its long side; returns its frame."""
    frame = card_frame(np.asarray(centre, float), 0.0, width, ASPECT)
    cv2.fillPoly(img, [np.round(frame).astype(np.int32)], colour)
    for t in (0.2, 0.45, 0.7):
        a = frame[0] + t * (frame[1] - frame[0])
        b = frame[3] + t * (frame[2] - frame[3])
        cv2.line(img, tuple(np.round(a).astype(int)), tuple(np.round(b).astype(int)), stripe,
                 max(1, int(width * 0.08)))
    return frame


def draw_face(img, centre, width=W) -> np.ndarray:
    frame = card_frame(np.asarray(centre, float), 0.0, width, ASPECT)
    cv2.fillPoly(img, [np.round(frame).astype(np.int32)], (235, 240, 242))
    cv2.circle(img, tuple(int(v) for v in frame.mean(axis=0)), int(width * 0.25),
               (120, 120, 125), -1)  # an elephant's grey
    return frame


def piece(label: str, frame: np.ndarray, conf: float = 0.95) -> CardPiece:
    return CardPiece(label, conf, frame[0].copy(), frame, 0.0, float(np.hypot(
        *(frame[1] - frame[0]))), {})


def scene(seed, colour, stripe, shown: float | None, whole: bool = False):
    """A back read surely at (90, 100); a back at (250, 150) under a face-up card that
    leaves `shown` x W of its long side showing (None: no such back); `whole`: a back at
    (380, 260) no card was read at. Returns (image, pieces read)."""
    img = table(seed)
    known = draw_back(img, (90, 100), W, colour, stripe)
    read = [piece("back", known)]
    if shown is not None:
        draw_back(img, (250, 150), W, colour, stripe)
        read.append(piece("elephant-3", draw_face(img, (250 + shown * W, 150))))
    else:
        read.append(piece("elephant-3", draw_face(img, (250, 150))))
    if whole:
        draw_back(img, (380, 260), W, colour, stripe)
    return img, read


@pytest.mark.parametrize("colour,stripe", DESIGNS)
@pytest.mark.parametrize("seed", [1, 2])
def test_a_back_under_a_face_up_card_showing_a_strip_is_named(colour, stripe, seed):
    img, read = scene(seed, colour, stripe, shown=0.35)
    got = look_off_cards(img, read)
    assert len(got) == 1, got
    assert "beside the cards read" in got[0]
    x, y = (float(v) for v in got[0].split(" at (")[1].split(")")[0].split(", "))
    assert abs(x - (250 - 0.5 * W + 0.5 * 0.35 * W)) < 0.25 * W and abs(y - 150) < 0.25 * W


@pytest.mark.parametrize("colour,stripe", DESIGNS)
@pytest.mark.parametrize("shown", [None, 0.0, 0.05])
def test_no_warning_where_no_back_shows_off_the_cards_read(colour, stripe, shown):
    """No back under the face-up card, or one it covers (a sliver under `look_off_strip`)."""
    img, read = scene(3, colour, stripe, shown=shown)
    assert look_off_cards(img, read) == []


@pytest.mark.parametrize("colour,stripe", DESIGNS)
def test_a_back_missed_whole_is_named(colour, stripe):
    img, read = scene(4, colour, stripe, shown=None, whole=True)
    got = look_off_cards(img, read)
    assert len(got) == 1 and "a patch the size of a card at (380, 26" in got[0], got


@pytest.mark.parametrize("shrink", [0.8, 0.85])
def test_a_back_read_too_small_is_not_a_missed_card(shrink):
    """A back's frame read short of its ends leaves its own look there: not another card."""
    img = table(5)
    frame = draw_back(img, (200, 150), W, *DESIGNS[0])
    small = card_frame(frame.mean(axis=0), 0.0, W, ASPECT * shrink)
    face = draw_face(img, (320, 150))
    assert look_off_cards(img, [piece("back", small), piece("elephant-1", face)]) == []


def test_with_no_back_read_the_look_is_a_design_and_a_back_missed_whole_is_named():
    """No back read to learn the look from: card-shaped regions of one colour are
    (`design_regions`); the back at (90, 100) nobody read is named."""
    img, read = scene(6, *DESIGNS[0], shown=0.35)
    got = look_off_cards(img, [read[1]])
    assert any("a patch the size of a card at (90, 100)" in w for w in got), got


def test_no_pieces_and_thresholds_out_of_reach_warn_nothing():
    from dataclasses import replace

    img, read = scene(7, *DESIGNS[0], shown=0.35, whole=True)
    assert look_off_cards(img, []) == []
    assert len(look_off_cards(img, read)) == 2
    off = replace(READ, look_off_strip=(5.0, 0.15), look_off_whole=(5.0, 0.9))
    assert look_off_cards(img, read, off) == []


@pytest.mark.parametrize("colour,stripe", DESIGNS)
@pytest.mark.parametrize("seed,shown,whole", [(3, 0.35, False), (4, None, True),
                                              (5, 0.05, True)])
def test_the_look_mask_alone_is_look_alike_regions_closed_mask(colour, stripe, seed, shown,
                                                               whole):
    """(session 24, H7) `look_off_cards` takes the backs' closed mask from `look_hit` and
    `closed_look` without `look_alike_regions`' regions: the very mask it would give."""
    from vision.cards.read import closed_look, keeping_small_hsv, look_alike_regions, look_hit

    img, read = scene(seed, colour, stripe, shown, whole)
    centres = np.array([p.center for p in read], float)
    widths = np.array([p.width for p in read], float)
    sure, up = [read[0].frame], [p.frame for p in read[1:]]
    masks: list = []
    look_alike_regions(img, sure, centres, widths, READ, masks, up, [])
    with keeping_small_hsv(img):  # (the photo's histogram from the memo the second time)
        for _ in range(2):
            hit, _, small = look_hit(img, sure, centres, widths, READ, up)
            assert len(masks) == 1 and np.array_equal(closed_look(hit, small, READ), masks[0])
    assert np.count_nonzero(masks[0]) > 0


@pytest.mark.parametrize("specks", [0, 3, 12])
def test_specks_of_the_look_under_the_floor_warn_nothing(specks):
    """(session 24, H7) a few pixels of the backs' colour off the cards (under
    `look_off_strip`'s area however they lie) are passed over before labelling."""
    img, read = scene(6, *DESIGNS[0], shown=None)
    rng = np.random.default_rng(specks)
    for x, y in rng.integers((200, 250), (460, 340), (specks, 2)):
        cv2.rectangle(img, (int(x), int(y)), (int(x) + 3, int(y) + 3), DESIGNS[0][0], -1)
    assert look_off_cards(img, read) == []


@pytest.mark.parametrize("seed", [7, 8, 9])
@pytest.mark.parametrize("close", [None, 0.4])
def test_closed_regions_kept_for_a_read_are_the_ones_worked_out_again(seed, close):
    """(session 24, H7) within `keeping_small_hsv`, `closed_regions` of a look alike in
    content (another array) is the one kept, read-only; another closing or look is worked
    out anew; outside it nothing is kept. The figures are those worked out afresh."""
    from vision.cards.read import closed_regions, keeping_small_hsv

    rng = np.random.default_rng(seed)
    hit = (rng.random((120, 160)) < 0.3).astype(np.uint8) * 255
    widths = np.array([30.0, 34.0])
    fresh = closed_regions(hit, widths, READ, close)
    assert fresh[0].flags.writeable  # (nothing kept outside a read)
    with keeping_small_hsv(np.zeros((4, 4, 3), np.uint8)):
        first = closed_regions(hit, widths, READ, close)
        again = closed_regions(hit.copy(), widths, READ, close)
        other = closed_regions(hit, widths, READ, 0.8)
        moved = hit.copy()
        moved[0, 0] = 255 - moved[0, 0]
        changed = closed_regions(moved, widths, READ, close)
    assert again is first and not first[0].flags.writeable
    assert other is not first and changed is not first
    for a, b in zip(first, fresh, strict=True):
        assert np.array_equal(a, b)
    with pytest.raises(ValueError):
        first[0][0, 0] = 1


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("share", [0.05, 0.3, 0.6])
def test_block_labelling_gives_the_default_labels(seed, share):
    """(session 24, H7) `look_off_cards` labels what is left of the look with
    `CCL_BBDT`: its labels (their order ranks regions of one area), stats and centres are
    the default's, on seeded blotchy masks of odd sizes."""
    rng = np.random.default_rng(seed)
    shape = (101 + 2 * seed, 157 + 3 * seed)
    noise = cv2.GaussianBlur(rng.random(shape).astype(np.float32), (0, 0), 1.5 + seed % 3)
    mask = (noise < np.quantile(noise, share)).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    want = cv2.connectedComponentsWithStats(mask)
    got = cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_BBDT)
    assert want[0] > 2
    for a, b in zip(want, got, strict=True):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("f,k", [(0.5, 0.85), (0.5, 1.08), (0.25, 1.0), (1.0, 1.3)])
def test_frames_mask_is_each_frame_filled_in_turn(seed, f, k):
    """(session 24, H7) `_frames_mask` works the corners of all frames out at once: the
    very mask of filling each frame's `_frame_points` in turn (frames partly off the photo,
    float32 and float64 corners); no frames: an empty mask."""
    from vision.cards.read import _frame_points, _frames_mask

    rng = np.random.default_rng(seed)
    frames = [card_frame(rng.uniform(-40, 500, 2), rng.uniform(0, 180), rng.uniform(15, 120),
                         ASPECT).astype(rng.choice([np.float32, np.float64]))
              for _ in range(1 + seed)]
    shape = (int(360 * f), int(480 * f))
    want = np.zeros(shape, np.uint8)
    for q in frames:
        cv2.fillConvexPoly(want, _frame_points(q, f, k), 1)
    assert np.array_equal(_frames_mask(frames, f, shape, k), want)
    assert np.array_equal(_frames_mask(iter(frames), f, shape, k), want)
    assert not _frames_mask([], f, shape, k).any()


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("cards", [0, 1, 3, 9])
def test_masked_hist_over_the_box_is_the_whole_photos(seed, cards):
    """(session 24, H7) the backs' and faces' histograms are taken over their mask's box
    alone: the counts of the whole photo's (no cards: an empty mask, all zero)."""
    from vision.cards.read import LOOK_BINS, _frames_mask, _masked_hist

    rng = np.random.default_rng(seed)
    img = table(seed)
    frames = [draw_back(img, rng.uniform((30, 30), (450, 330)), W, *DESIGNS[k % 3])
              for k in range(cards)]
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    mask = _frames_mask(frames, 1.0, hsv.shape[:2], 0.85)
    ranges = [0, 180, READ.look_min_sat, 256]
    want = cv2.calcHist([hsv], [0, 1], mask, LOOK_BINS, ranges)
    assert np.array_equal(_masked_hist(hsv, mask, ranges), want)
    assert (want.sum() > 0) == (cards > 0)


@pytest.mark.parametrize("seed", [10, 11])
def test_closed_regions_drops_the_least_lately_used(seed):
    """(session 24, H7) past `CLOSED_KEPT` looks, the one asked for again lately is kept and
    the one left longest is dropped (worked out anew: another object)."""
    from vision.cards.read import CLOSED_KEPT, closed_regions, keeping_small_hsv

    rng = np.random.default_rng(seed)
    hits = [(rng.random((40, 60)) < 0.3).astype(np.uint8) * 255 for _ in range(CLOSED_KEPT + 1)]
    widths = np.array([30.0])
    with keeping_small_hsv(np.zeros((4, 4, 3), np.uint8)):
        first = [closed_regions(h, widths) for h in hits[:2]]
        for h in hits[2:CLOSED_KEPT]:
            closed_regions(h, widths)
        assert closed_regions(hits[0], widths) is first[0]  # (asked again: used lately)
        closed_regions(hits[CLOSED_KEPT], widths)  # (one too many: the oldest goes)
        assert closed_regions(hits[0], widths) is first[0]
        assert closed_regions(hits[1], widths) is not first[1]


@pytest.mark.parametrize("seed", [12, 13])
def test_the_read_stores_are_per_thread_and_gone_after_the_read(seed):
    """(session 24, R2) `keeping_small_hsv`'s memo (the HSV, the look histogram, the closed
    looks) is the entering thread's alone: another thread (a pool's worker, a web server's
    other request) neither sees nor fills it, and nothing is kept once the read is over."""
    from concurrent.futures import ThreadPoolExecutor

    from vision.cards.read import closed_regions, keeping_small_hsv

    rng = np.random.default_rng(seed)
    hit = (rng.random((60, 80)) < 0.3).astype(np.uint8) * 255
    widths = np.array([30.0])
    with keeping_small_hsv(np.zeros((4, 4, 3), np.uint8)), ThreadPoolExecutor(2) as pool:
        mine = closed_regions(hit, widths)
        theirs = [pool.submit(closed_regions, hit, widths).result() for _ in range(2)]
        assert closed_regions(hit, widths) is mine and not mine[0].flags.writeable
        assert all(t is not mine and t[0].flags.writeable for t in theirs)  # (none kept)
        assert theirs[0] is not theirs[1]
        for t in theirs:
            assert all(np.array_equal(a, b) for a, b in zip(t, mine, strict=True))
    after = closed_regions(hit, widths)
    assert after is not mine and after[0].flags.writeable


@pytest.mark.parametrize("f", [0.5, 0.25])
def test_look_hist_all_keeps_only_the_memos_own_hsv(f):
    """(session 24, R2) the photo's look histogram is kept per (scale, ranges) only for the
    memo's own `small_hsv` (read-only); an HSV array of the same photo and scale that is
    not it (a copy written into) is counted afresh, never given the kept one."""
    from vision.cards.read import LOOK_BINS, keeping_small_hsv, look_hist_all, small_hsv

    img = table(14)
    ranges = [0, 180, READ.look_min_sat, 256]
    with keeping_small_hsv(img):
        hsv = small_hsv(img, f)
        kept = look_hist_all(img, hsv, f, ranges)
        assert look_hist_all(img, hsv, f, ranges) is kept and not kept.flags.writeable
        other = hsv.copy()
        other[:, :, 0] = (other[:, :, 0].astype(int) + 60) % 180
        other[:, :, 1] = 255
        got = look_hist_all(img, other, f, ranges)
        assert got is not kept
        assert np.array_equal(got, cv2.calcHist([other], [0, 1], None, LOOK_BINS, ranges))
        assert not np.array_equal(got, kept)
    assert look_hist_all(img, hsv, f, ranges) is not kept
