"""Troetofanten face-down cards and card angles in the card reader (`vision.cards.read`):
the angle search, the look of the backs, backs made whole. Tiny synthetic photos; a stand-in
classifier that calls a crop a piece by how much of it is card."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.cards.geometry import SPECS, CardCropSettings, frame_from_pose, pose_from_frame
from vision.cards.pieces import CardPiece
from vision.cards.read import (
    READ,
    CardReader,
    card_frame,
    design_regions,
    end_backs,
    look_alike_regions,
    look_strips,
)
from vision.classify.model import Prediction

SPEC = SPECS["troetofanten"]
ASPECT = SPEC.aspect
W = 40.0  # card width, px


def table(seed: int, shape=(360, 480)) -> np.ndarray:
    """A grey-brown table with seeded noise."""
    rng = np.random.default_rng(seed)
    img = np.full((*shape, 3), (95, 110, 125), np.int16)
    img += rng.integers(-12, 13, img.shape, dtype=np.int16)
    return np.clip(img, 0, 255).astype(np.uint8)


def draw_back(img, centre, angle, width, colour, stripe, aspect=ASPECT) -> np.ndarray:
    """A face-down card of one design: a coloured card with stripes along its long side
    (`aspect` x its width: more where a tilted camera foreshortens its width); returns its
    frame (TL, TR, BR, BL)."""
    frame = card_frame(np.asarray(centre, float), angle, width, aspect)
    cv2.fillPoly(img, [np.round(frame).astype(np.int32)], colour)
    for t in (0.2, 0.45, 0.7):  # stripes between points on the top and bottom edges
        a = frame[0] + t * (frame[1] - frame[0])
        b = frame[3] + t * (frame[2] - frame[3])
        cv2.line(img, tuple(np.round(a).astype(int)), tuple(np.round(b).astype(int)), stripe,
                 max(1, int(width * 0.08)))
    return frame


def draw_face(img, centre, angle, width) -> np.ndarray:
    frame = card_frame(np.asarray(centre, float), angle, width, ASPECT)
    cv2.fillPoly(img, [np.round(frame).astype(np.int32)], (235, 240, 242))
    return frame


class CardOrNot:
    """A classifier stand-in: P(background) is the share of the crop whose pixels disagree
    with a card's top-left part seen the right way round (the card's colours `card`, BGR
    within 40 of one, right of and below the crop's margins; the table above and left of
    them); the rest goes to `label`."""

    def __init__(self, card, label="back"):
        from vision.cards.read import CLASSIFIER_PATH
        from vision.classify.model import PieceClassifier

        real = PieceClassifier(CLASSIFIER_PATH, threads=1)
        self.classes, self.crop = real.classes, real.crop
        self.card, self.label, self.calls = np.array(card, int).reshape(-1, 3), label, 0

    def index(self, lab):
        return self.classes.index(lab)

    def predict(self, crops):
        self.calls += 1
        n = crops.shape[1]
        (u0, u1), (v0, v1) = SPEC.crop_u, SPEC.crop_v
        g = (np.arange(n) + 0.5) / n
        want = ((u0 + g * (u1 - u0))[None, :] >= 0) & ((v0 + g * (v1 - v0))[:, None] >= 0)
        card = (np.abs(crops[..., None, :].astype(int) - self.card).max(axis=-1) < 40
                ).any(axis=-1)
        on = (card == want).mean(axis=(1, 2))
        probs = np.zeros((len(crops), len(self.classes)), np.float32)
        probs[:, self.index("background")] = 1 - on
        probs[:, self.index(self.label)] = on
        return Prediction(probs, np.zeros((len(crops), 8), np.float32))


def reader_with(classifier) -> CardReader:
    r = CardReader.__new__(CardReader)  # no models loaded: the stand-in classifier only
    r.classifier, r.settings = classifier, READ
    return r


def back_piece(centre, angle, width, conf=0.95, corner="tl") -> CardPiece:
    """A back as the reader has it: posed from its key point (`corner`: the top-left one, or
    the bottom-right one, read as a top-left one turned half round)."""
    frame = card_frame(np.asarray(centre, float), angle, width, ASPECT)
    if corner == "br":
        frame = frame[[2, 3, 0, 1]]
    key, ang, w = pose_from_frame(frame, SPEC)
    return CardPiece("back", conf, key, frame_from_pose(key, ang, w, SPEC), ang, w)


# ------------------------------------------------------------------ the angle search
@pytest.mark.parametrize("true_angle,candidates", [
    (135.0, (90.0, 135.0)),  # a card at an odd angle in the middle: its own angle wins
    (90.0, (90.0, 118.0)),  # the detector is off: the table's direction wins
    (-20.0, (-20.0, 25.0)),
])
def test_search_angles_takes_the_angle_whose_crop_is_card(true_angle, candidates):
    img = table(1)
    frame = draw_face(img, (240, 180), true_angle, 60)
    key, _, _ = pose_from_frame(frame, SPEC)
    r = reader_with(CardOrNot((235, 240, 242)))
    got = r.search_angles(img, SPEC, key[None], np.array([candidates]), np.array([60.0]))
    assert got[0] == pytest.approx(true_angle)


def test_search_angles_reads_no_crop_when_the_candidates_agree():
    img = table(2)
    fake = CardOrNot((235, 240, 242))
    r = reader_with(fake)
    ang = np.array([[10.0, 12.0], [95.0, 93.0]])  # within the 4 degrees `same`
    got = r.search_angles(img, SPEC, np.array([[100.0, 100.0], [300.0, 200.0]]), ang,
                          np.array([50.0, 50.0]))
    assert got.tolist() == [10.0, 95.0] and fake.calls == 0


# ------------------------------------------------------------------ the backs' look
# Designs of other copies: the look is learnt from the back read, never a fixed colour.
DESIGNS = [((40, 40, 190), (120, 140, 235)),  # red with light stripes
           ((150, 80, 30), (60, 30, 10)),  # blue with dark stripes
           ((40, 150, 60), (30, 210, 230))]  # green with yellow stripes


@pytest.mark.parametrize("colour,stripe", DESIGNS)
def test_look_alike_regions_finds_the_other_backs(colour, stripe):
    img = table(3)
    known = draw_back(img, (90, 100), 10.0, W, colour, stripe)
    draw_back(img, (260, 120), 127.0, W, colour, stripe)  # in the middle, at an odd angle
    draw_back(img, (380, 260), 88.0, W * 1.2, colour, stripe)  # nearer the camera
    draw_face(img, (200, 270), 0.0, W)  # a face-up card: another look
    cv2.circle(img, (80, 290), 18, colour, -1)  # the backs' colour, not a card's shape
    got = look_alike_regions(img, [known], np.array([[90.0, 100.0], [200.0, 270.0]]),
                             np.array([W, W]))
    by_x = sorted(got, key=lambda g: g[0][0])
    assert len(by_x) == 3, [np.round(g[0]) for g in got]
    for (c, a, w, ratio), (want_c, want_a, want_w) in zip(
            by_x, [((90, 100), 10.0, W), ((260, 120), 127.0, W), ((380, 260), 88.0, 1.2 * W)],
            strict=True):
        assert np.hypot(*(c - want_c)) < 3.0
        assert abs((a - want_a + 90) % 180 - 90) < 5.0
        assert w == pytest.approx(want_w, rel=0.12)
        assert ratio == pytest.approx(ASPECT, rel=0.12)


@pytest.mark.parametrize("colour,stripe", DESIGNS)
def test_look_alike_regions_where_the_backs_are_most_of_the_colour(colour, stripe):
    """A grey table and white faces: nearly every coloured pixel is a back's, so no colour is
    6 x more common among the coloured pixels of the backs read than among the photo's; per
    pixel of area it is, and the back not read yet is found."""
    rng = np.random.default_rng(7)
    img = np.clip(np.full((360, 480, 3), 118, np.int16) + rng.integers(-6, 7, (360, 480, 1)),
                  0, 255).astype(np.uint8)
    known = [draw_back(img, (60 + 70 * k, 90), 0.0, W, colour, stripe) for k in range(6)]
    draw_face(img, (100, 260), 0.0, W)
    draw_back(img, (330, 250), 118.0, W, colour, stripe)  # not read yet, at an odd angle
    got = look_alike_regions(img, known, np.array([[60.0 + 70 * k, 90.0] for k in range(6)]),
                             np.full(6, W))
    assert any(np.hypot(*(c - (330, 250))) < 3.0 for c, _, _, _ in got), \
        [np.round(g[0]) for g in got]


@pytest.mark.parametrize("table_bgr", [(60, 130, 60), (118, 118, 118)])  # green felt, grey
@pytest.mark.parametrize("colour,stripe", DESIGNS[1:])
def test_design_regions_find_backs_no_back_was_read_for(table_bgr, colour, stripe):
    """No back read (a copy whose backs the classifier does not know): card-shaped regions
    of one colour, sized like the face-up cards read, are backs; the table's colour, a round
    token of the backs' colour and the white face-up cards are not."""
    rng = np.random.default_rng(8)
    img = np.clip(np.array(table_bgr, np.int16) + rng.integers(-8, 9, (360, 480, 3)),
                  0, 255).astype(np.uint8)
    faces = [draw_face(img, (60 + 55 * k, 300), 0.0, W) for k in range(3)]
    draw_back(img, (300, 110), 35.0, W, colour, stripe)
    draw_back(img, (400, 250), 90.0, W, colour, stripe)
    cv2.circle(img, (120, 110), 22, colour, -1)
    centres = np.array([fr.mean(axis=0) for fr in faces])
    got = design_regions(img, centres, np.full(3, W))
    found = sorted((tuple(np.round(c)) for c, _, _, _ in got), key=lambda c: c[0])
    assert len(found) == 2, found
    for c, want in zip(found, [(300, 110), (400, 250)], strict=True):
        assert np.hypot(*(np.array(c) - want)) < 3.0


@pytest.mark.parametrize("step", [0.3, 0.45])  # widths the upper card is shifted
def test_design_regions_a_spread_pile_of_two(step):
    img = table(10)
    colour, stripe = DESIGNS[1]
    faces = [draw_face(img, (60 + 55 * k, 300), 0.0, W) for k in range(3)]
    t = np.deg2rad(15.0)
    u = np.array([np.cos(t), np.sin(t)])
    lower, upper = np.array([280.0, 130.0]), np.array([280.0, 130.0]) + step * W * u
    for c in (lower, upper):
        draw_back(img, c, 15.0, W, colour, stripe)
    got = design_regions(img, np.array([fr.mean(axis=0) for fr in faces]), np.full(3, W))
    assert len(got) == 2, [np.round(g[0]) for g in got]
    for want in (lower, upper):
        assert min(np.hypot(*(c - want)) for c, _, _, _ in got) < 0.15 * W


def test_settle_backs_adds_the_designs_backs_when_none_was_read():
    img = table(9)
    colour, stripe = DESIGNS[1]
    faces = []
    for k in range(3):
        fr = draw_face(img, (80 + 55 * k, 280), 0.0, W)
        key, _, _ = pose_from_frame(fr, SPEC)
        faces.append(CardPiece("elephant-2", 0.9, key, frame_from_pose(key, 0.0, W, SPEC), 0.0,
                               W))
    draw_back(img, (330, 120), 20.0, W, colour, stripe)
    got = reader_with(CardOrNot([colour, stripe])).settle_backs(img, faces)
    backs = [p for p in got if p.label == "back"]
    assert len(got) == 4 and len(backs) == 1
    assert np.hypot(*(backs[0].center - (330, 120))) < 4.0


def test_look_alike_regions_needs_a_back_read():
    img = table(4)
    draw_back(img, (260, 120), 127.0, W, *DESIGNS[0])
    assert look_alike_regions(img, [], np.array([[260.0, 120.0]]), np.array([W])) == []


# ------------------------------------------------------------------ backs made whole
def test_settle_backs_one_card_read_from_both_corners():
    """The same back read at its top-left and at its bottom-right corner (a back's corners
    look alike) with a width too small (its pattern looks alike at any scale): one back,
    centred on the card."""
    img = table(5)
    colour, stripe = DESIGNS[1]
    draw_back(img, (240, 180), 80.0, W, colour, stripe)
    faces = [CardPiece("elephant-2", 0.9, np.array([x, 300.0]), None, 0.0, W)
             for x in (100.0, 160.0, 220.0)]
    faces = [CardPiece(p.label, p.confidence, p.key, frame_from_pose(p.key, 0.0, W, SPEC),
                       0.0, W) for p in faces]
    backs = [back_piece((240, 180), 80.0, 0.7 * W, 0.95, "tl"),
             back_piece((240, 180), 80.0, 0.7 * W, 0.9, "br")]
    got = reader_with(CardOrNot([colour, stripe])).settle_backs(img, faces + backs)
    out = [p for p in got if p.label == "back"]
    assert len(out) == 1
    assert np.hypot(*(out[0].center - (240, 180))) < 4.0
    assert len(got) == len(faces) + 1


def test_settle_backs_keeps_two_backs_side_by_side_and_adds_a_missed_one():
    img = table(6)
    colour, stripe = DESIGNS[2]
    for c in ((150, 150), (150 + 1.05 * W, 150)):  # a spread pair
        draw_back(img, c, 0.0, W, colour, stripe)
    draw_back(img, (350, 250), 140.0, W, colour, stripe)  # the detector missed this one
    backs = [back_piece((150, 150), 0.0, W), back_piece((150 + 1.05 * W, 150), 0.0, W)]
    got = reader_with(CardOrNot([colour, stripe])).settle_backs(img, backs)
    centres = sorted((tuple(np.round(p.center)) for p in got), key=lambda c: c[0])
    assert len(got) == 3, centres
    assert np.hypot(*(np.array(centres[2]) - (350, 250))) < 4.0


def test_crop_settings_of_the_stand_in_are_the_models():
    r = reader_with(CardOrNot((0, 0, 0)))
    assert isinstance(r.crop_settings, CardCropSettings)


# ------------------------------------------------------------------ doubts about numbers
@pytest.mark.parametrize("label,probs,want", [
    # the index reads 3 and 2 about alike (a blurred or half-covered corner): say so
    ("tootophant-3", {"tootophant-3": 0.46, "tootophant-2": 0.44, "elephant-3": 0.1},
     "tootophant at (10, 20): its corner number is unclear, 3 or 2 (0.51 / 0.49)"),
    # a clear number, however unsure the kind: no doubt about the number
    ("elephant-4", {"elephant-4": 0.5, "tootophant-4": 0.45, "elephant-2": 0.05}, None),
    # no number on the card
    ("mouse", {"mouse": 0.4, "lasso": 0.4}, None),
    ("back", {"back": 0.9}, None),
])
def test_number_doubt(label, probs, want):
    from vision.cards.read import number_doubt

    frame = np.array([[0.0, 10.0], [20.0, 10.0], [20.0, 30.0], [0.0, 30.0]])
    got = number_doubt(CardPiece(label, 0.5, np.zeros(2), frame, 0.0, 20.0, probs), 0.75)
    assert (got is None) == (want is None)
    if want:
        assert want in got


_SPLIT = {"elephant-2": 0.3, "elephant-4": 0.28, "elephant-1": 0.1, "mouse": 0.02}


@pytest.mark.parametrize("doubted_at,card_at,n,text", [
    # a sure elephant whose number splits, on no card read: warned about, not counted
    ([(200, 200)], None, 1, "not counted: its corner number is unreadable (2 or 4)"),
    # the same reading at a card read (its other corner, its drawing): nothing to say
    ([(200, 200)], (200, 200), 0, ""),
    # two key points on one card (centres within `back_duplicate` widths): one warning
    ([(200, 200), (203, 201)], None, 1, "possibly an elephant at ("),
    # two cards apart: two warnings
    ([(200, 200), (400, 200)], None, 2, "possibly an elephant at ("),
])
def test_unseen_cards_warns_once_per_doubted_card_off_the_cards_read(doubted_at, card_at, n,
                                                                     text):
    from vision.cards.read import unseen_cards

    doubted = [("elephant", c.key, c.frame, _SPLIT)
               for c in (_card_at(k, 0.0) for k in doubted_at)]
    read = [] if card_at is None else [_card_at(card_at, 0.0)]
    got = unseen_cards(read, doubted, ())
    assert len(got) == n, got
    assert all(text in g for g in got), got


@pytest.mark.parametrize("backs,card_at,n", [
    ([((200.0, 200.0), 50.0, 0.7)], None, 1),  # a back read with 0.7: not counted, said
    ([((200.0, 200.0), 50.0, 0.7)], (210.0, 205.0), 0),  # a card read there: nothing to say
    ([((200.0, 200.0), 50.0, 0.7), ((205.0, 203.0), 50.0, 0.65)], None, 1),  # one card
])
def test_unseen_cards_warns_about_a_back_read_unsurely(backs, card_at, n):
    from vision.cards.read import unseen_cards

    read = [] if card_at is None else [_piece("elephant-3", card_at, 0.0, 0.9)]
    got = unseen_cards(read, [], (), backs=[(np.array(c), w, conf) for c, w, conf in backs])
    assert len(got) == n, got
    assert all(g.startswith("possibly a face-down card at (200, 200), not counted: read as "
                            "a back with only 0.70") for g in got), got


@pytest.mark.parametrize("key,want", [
    ((140.0, 150.0), 1),  # its index off the card above (which covers its centre): say so
    ((170.0, 170.0), 0),  # its index on a card read: that card's own drawing or corner
])
def test_unseen_cards_warns_about_a_card_under_another(key, want):
    from vision.cards.read import unseen_cards

    spec = SPECS["troetofanten"]
    above = _card_at((158.5, 148.5), 0.0)  # (its top-left corner at (150, 140), 50 px wide)
    k = np.array(key)
    got = unseen_cards([above], [], [("elephant-1", k, frame_from_pose(k, 0.0, 50.0, spec))])
    assert len(got) == want, got
    assert all("possibly an elephant-1 at (" in g and "under another card" in g for g in got)


@pytest.mark.parametrize("doubted_too", [False, True])
def test_unseen_cards_warns_once_about_paper_whose_corner_is_not_seen(doubted_too):
    """`paper`: the centre of a card-shaped region of the face-up cards' paper off the cards
    read is warned about (the card's width: the cards read's median); where a doubted card
    was warned about at the same place, once only (the doubted card's warning first)."""
    from vision.cards.read import READ, unseen_cards

    read = [_card_at((100.0, 100.0), 0.0), _card_at((200.0, 100.0), 0.0)]
    doubted = []
    if doubted_too:
        frame = card_frame(np.array([400.0, 200.0]), 0.0, 50.0, ASPECT)
        key, _, _ = pose_from_frame(frame, SPEC)
        doubted = [("elephant", key, frame, _SPLIT)]
    got = unseen_cards(read, doubted, (), READ, [np.array([400.0, 200.0])])
    assert len(got) == 1, got
    if doubted_too:
        assert "possibly an elephant at (400, 200)" in got[0], got
    else:
        assert "possibly a card at (400, 200) whose corner is not seen" in got[0], got


# ------------------------------------------------------------------ weak key points
def test_pose_back_candidates_poses_weak_key_points_like_their_neighbours():
    """Key points under the bar: one on a back at an odd angle (its own angle reads as a
    card, the table's direction does not), one on top of a posed key point (left out), one
    too weak; widths from the 3 nearest posed cards."""
    from vision.cards.detect import KIND_PIECE, Keypoints

    img = table(7)
    colour, stripe = DESIGNS[0]
    frame = draw_back(img, (300, 200), 130.0, W, colour, stripe)
    key, ang, _ = pose_from_frame(frame, SPEC)
    strong = np.array([[60.0, 300.0], [120.0, 300.0], [180.0, 300.0]])
    xy = np.vstack([strong, key, strong[1] + 3.0, [400.0, 60.0]])
    kp = Keypoints(xy, np.full(len(xy), KIND_PIECE), np.array([0.9, 0.8, 0.7, 0.2, 0.2, 0.05]),
                   np.array([0.0, 0.0, 0.0, ang, 0.0, 0.0]),
                   np.array([W, 1.1 * W, 0.9 * W, 30.0, 30.0, 30.0]))
    r = reader_with(CardOrNot([colour, stripe]))
    weak, frames = r.pose_back_candidates(img, kp, np.arange(3))
    assert weak.tolist() == [3]
    got_key, got_ang, got_w = pose_from_frame(frames[0], SPEC)
    assert got_w == pytest.approx(W)
    assert got_ang == pytest.approx(ang)


# ------------------------------------------------------------------ one card, two corners
def _piece(label, centre, angle, conf):
    frame = card_frame(np.asarray(centre, float), angle, W, ASPECT)
    key, _, _ = pose_from_frame(frame, SPEC)
    return CardPiece(label, conf, key, frame, angle, W)


@pytest.mark.parametrize("pieces,want", [
    # a tamer read at both corners (its corners look alike): the surer reading stays
    ([("tamer", (100, 100), 10.0, 0.6), ("tamer", (103, 98), 188.0, 0.9)], [0.9]),
    # two tamers of a pile face the same way: both stay
    ([("tamer", (100, 100), 10.0, 0.6), ("tamer", (108, 100), 12.0, 0.9)], [0.6, 0.9]),
    # half a turn apart but a card apart: two cards
    ([("mouse", (100, 100), 0.0, 0.6), ("mouse", (140, 100), 180.0, 0.9)], [0.6, 0.9]),
    # different labels: both stay
    ([("mouse", (100, 100), 0.0, 0.6), ("tamer", (101, 100), 180.0, 0.9)], [0.6, 0.9]),
    # backs are left to settle_backs
    ([("back", (100, 100), 0.0, 0.6), ("back", (101, 100), 180.0, 0.9)], [0.6, 0.9]),
])
def test_drop_turned_twins(pieces, want):
    from vision.cards.read import drop_turned_twins

    got, _ = drop_turned_twins([_piece(*p) for p in pieces], reach=0.3)
    assert sorted(p.confidence for p in got) == want


# ------------------------------------------------------------------ a tight fan
@pytest.mark.parametrize("xy,label,fan_step,want", [
    ((100.0, 100.0), "elephant-3", 0.08, False),  # nothing kept near
    ((54.0, 50.0), "elephant-3", 0.08, True),  # 0.1 widths off, the same label: once more
    ((54.0, 50.0), "elephant-1", 0.08, False),  # 0.1 widths off, another label: the next card
    ((52.0, 50.0), "elephant-1", 0.08, True),  # 0.05 widths off: one key point's two peaks
    ((54.0, 50.0), "elephant-1", None, True),  # other games: any key point that near
    ((50.0, 55.0), "tamer", 0.08, True),  # near two kept cards, one of them a tamer
])
def test_seen_before(xy, label, fan_step, want):
    from vision.cards.read import seen_before

    kept = [CardPiece(lab, 0.9, np.array(k), None, 0.0, W)
            for lab, k in (("elephant-3", [50.0, 50.0]), ("tamer", [50.0, 60.0]))]
    got = seen_before(np.array(xy), label, kept, 0.18, fan_step)
    assert got == want


@pytest.mark.parametrize("xy,want", [
    ((60.0, 50.0), False),  # 0.25 widths along the kept card's top edge: the fan's next card
    ((60.0, 53.0), False),  # and 0.075 across: still beside it
    ((58.0, 56.0), True),  # 0.15 across, below its top edge (its drawing): once more
    ((58.0, 44.0), True),  # 0.15 across, above it (off the card)
])
def test_seen_before_a_fans_next_card_lies_along_the_top_edge(xy, want):
    """Session 15 (`fan_across`): the next card of a tight fan has its corner index beside
    the kept card's, along its top edge; another label read 0.15 widths across it is the
    kept card once more (fresh e1-1802 0007's elephant-1, 0.18 across)."""
    from vision.cards.read import seen_before

    kept = [CardPiece("elephant-3", 0.9, np.array([50.0, 50.0]), None, 0.0, W)]
    assert seen_before(np.array(xy), "elephant-1", kept, 0.4, 0.08, 0.12) == want
    assert not seen_before(np.array(xy), "elephant-1", kept, 0.4, 0.08)  # (no bar)


@pytest.mark.parametrize("xy, own, want", [
    ((58.49, 54.9), None, True),  # 0.12 across the posed angle's top edge: the card again
    ((58.49, 54.9), 30.0, False),  # but along the card's own top edge, turned 30 degrees
    ((58.0, 54.4), None, False),  # 0.11 across the posed edge: a fan's next card
    ((58.0, 54.4), -9.0, True),  # 0.14 across the card's own edge (committed 0023's extra:
    #   the tamer's drawing beside an elephant posed 9 degrees off)
    ((58.0, 54.4), 0.0, False),  # its own edge the posed one: as without
])
def test_seen_before_measures_across_the_kept_cards_own_top_edge(xy, own, want):
    """Session 19 (`fan_edge`): `fan_across` measured across the kept card's own top edge
    (the direction `edge_angles` finds), where given, not across its posed angle."""
    from vision.cards.read import seen_before

    kept = [CardPiece("elephant-3", 0.9, np.array([50.0, 50.0]), None, 0.0, W)]
    angle_of = None if own is None else (lambda q: own)
    assert seen_before(np.array(xy), "elephant-1", kept, 0.4, 0.08, 0.12, angle_of) == want


# ------------------------------------------------------------------ one card, opposite corners
def _read_at(label, frame, width, conf, corner="tl"):
    """A card read from one corner index as if it were the top-left one, with `width`."""
    f = np.asarray(frame, float)
    if corner == "br":
        f = f[[2, 3, 0, 1]]
    key, ang, _ = pose_from_frame(f, SPEC)
    return CardPiece(label, conf, key, frame_from_pose(key, ang, width, SPEC), ang, width)


@pytest.mark.parametrize("angle,width,second,want", [
    # the tamer read at both corners, its width right or far off: one card
    (15.0, W, ("tamer", (100, 100), "br"), [0.9]),
    (15.0, 0.6 * W, ("tamer", (100, 100), "br"), [0.9]),
    (-150.0, 0.8 * W, ("tamer", (100, 100), "br"), [0.9]),
    # another tamer beside it, turned half round: two cards
    (15.0, W, ("tamer", (100 + 1.2 * W, 100), "br"), [0.5, 0.9]),
    # another label at the opposite corner: two cards
    (15.0, W, ("lasso", (100, 100), "br"), [0.5, 0.9]),
])
def test_drop_turned_twins_opposite_corners(angle, width, second, want):
    from vision.cards.read import drop_turned_twins

    first = _read_at("tamer", card_frame(np.array([100.0, 100.0]), angle, W, ASPECT), width,
                     0.9)
    label, centre, corner = second
    other = _read_at(label, card_frame(np.asarray(centre, float), angle, W, ASPECT), width,
                     0.5, corner)
    got, _ = drop_turned_twins([first, other], reach=0.3)
    assert sorted(p.confidence for p in got) == want


@pytest.mark.parametrize("off", [-25.0, 25.0])
def test_drop_turned_twins_a_corner_read_a_little_turned(off):
    """A mouse read at its bottom-right corner with that reading's angle 25 degrees off half
    a turn and its width 1.3 x: seen from the surer reading's frame its key point lies on
    the diagonal (from the other's, 25 degrees off it; their centres over 0.3 widths apart):
    one card."""
    from dataclasses import replace

    from vision.cards.read import drop_turned_twins

    first = _read_at("mouse", card_frame(np.array([100.0, 100.0]), 15.0, W, ASPECT), W, 0.9)
    other = _read_at("mouse", card_frame(np.array([100.0, 100.0]), 15.0, W, ASPECT), W, 0.5,
                     "br")
    ang = other.angle + off
    other = replace(other, angle=ang, frame=frame_from_pose(other.key, ang, 1.3 * W, SPEC),
                    width=1.3 * W)
    assert [p.confidence for p in drop_turned_twins([first, other], reach=0.3)[0]] == [0.9]


@pytest.mark.parametrize("key_uv,angle,want", [
    ((0.83, 0.89), 105.0, [0.9]),  # at its bottom-right index, a quarter turn off: one card
    ((0.83, 0.89), -75.0, [0.9]),  # the other quarter turn
    ((0.83, 0.89), 15.0, [0.5, 0.9]),  # the same way round: a pile's next card
    ((1.6, 0.11), 105.0, [0.5, 0.9]),  # a quarter turn off beside it: another card
])
def test_drop_turned_twins_quarter_turn(key_uv, angle, want):
    """A special card read once at its top-left index and once at another index with its
    pose a quarter turn off."""
    from vision.cards.geometry import card_uv_point
    from vision.cards.read import drop_turned_twins

    frame = card_frame(np.array([100.0, 100.0]), 15.0, W, ASPECT)
    first = _read_at("tamer", frame, W, 0.9)
    key = card_uv_point(frame, *key_uv)
    other = CardPiece("tamer", 0.5, key, frame_from_pose(key, angle, W, SPEC), angle, W)
    got, _ = drop_turned_twins([other, first], reach=0.3)
    assert sorted(p.confidence for p in got) == want


@pytest.mark.parametrize("centre,angle,want", [
    ((300.0, 100.0), 15.0, False),  # a card of its own, away from the one read
    ((100.0, 100.0), 195.0, True),  # the read card's other corner, turned half round
    ((100.0, 150.0), 15.0, True),  # its key point on the read card (a fan's next card)
    ((100.0, 75.0), 15.0, True),  # only its centre on the read card
])
def test_on_a_card(centre, angle, want):
    """A weak key point read as a face-up card counts only where no card was read."""
    from vision.cards.read import on_a_card

    read = _read_at("mouse", card_frame(np.array([100.0, 100.0]), 15.0, W, ASPECT), W, 0.9)
    frame = card_frame(np.asarray(centre, float), angle, W, ASPECT)
    key, _, _ = pose_from_frame(frame, SPEC)
    assert on_a_card(key, frame, [read]) == want


@pytest.mark.parametrize("side", [-1.0, 1.0])  # the strip left or right of the card on top
def test_look_strips_a_back_under_a_card(side):
    """A face-down card under a face-up one, shifted along the row: a strip of the backs'
    look (0.35 widths across, a card long) lies along the card on top. The back's outer
    edge is the strip's; it reaches a card width under the card on top. A strip lying
    alone (along no card read) and a square patch are no card."""
    f = READ.look_scale
    mask = np.zeros((200, 300), np.uint8)
    on_top = card_frame(np.array([200.0, 200.0]), 0.0, W, ASPECT)
    strip_c = np.array([200.0 + side * (0.5 + 0.175) * W, 200.0])
    for c, w, h in ((strip_c, 0.35 * W, ASPECT * W), ((450.0, 200.0), 0.35 * W, ASPECT * W),
                    ((450.0, 340.0), 30.0, 30.0)):
        x0, y0 = (np.asarray(c) - (w / 2, h / 2)) * f
        cv2.rectangle(mask, (int(x0), int(y0)), (int(x0 + w * f) - 1, int(y0 + h * f) - 1), 255,
                      -1)
    got = look_strips(mask, [on_top], np.array([[200.0, 200.0]]), np.array([W]))
    assert len(got) == 1
    c, a, w = got[0]
    want = strip_c + side * (0.5 * W - 0.175 * W) * np.array([-1.0, 0.0])
    assert np.hypot(*(c - want)) < 0.1 * W
    assert abs((a + 90) % 180 - 90) < 5 and w == pytest.approx(W, rel=0.1)


@pytest.mark.parametrize("along,faces,want", [
    (1.3, 0, 1),  # a card long: beside any card read
    (1.1, 0, 0),  # its ends clipped (a frame read too large): not beside a back
    (1.1, 1, 1),  # but beside a face-up card
    (0.9, 1, 0),  # too short for a card's long side
])
def test_look_strips_clipped_beside_a_face(along, faces, want):
    """A strip of a back under a face-up card whose frame was read too large is clipped at
    its ends by the grown frame: down to `strip_up_along` widths it is a back where a
    face-up card covers its rest (the first `faces` frames); beside a back (whose own look
    reaches out of a misplaced frame) it must be `strip_along[0]` long."""
    f = READ.look_scale
    mask = np.zeros((200, 300), np.uint8)
    on_top = card_frame(np.array([200.0, 200.0]), 0.0, W, ASPECT)
    c = np.array([200.0 - (0.5 + 0.175) * W, 200.0])
    x0, y0 = (c - (0.175 * W, 0.5 * along * W)) * f
    cv2.rectangle(mask, (int(x0), int(y0)), (int(x0 + 0.35 * W * f) - 1,
                                             int(y0 + along * W * f) - 1), 255, -1)
    got = look_strips(mask, [on_top], np.array([[200.0, 200.0]]), np.array([W]), READ, faces)
    assert len(got) == want, got


def test_look_alike_regions_not_the_faces_colour():
    """Under a warm light the face-up cards' paper is coloured; a back drawn on the paper's
    colour would teach it as the backs' look, and a face-up card not read (or
    the part of one off its misplaced frame) would become a back. A colour about as common
    on the face-up cards read is none of the backs'."""
    img = table(12)
    paper = (150, 200, 240)  # cream-orange: saturated under the warm light
    known = draw_back(img, (90, 100), 0.0, W, paper, (40, 40, 190))  # red stripes on it
    faces = [draw_face(img, (90 + 55 * k, 280), 0.0, W) for k in range(1, 4)]
    for fr in faces + [draw_face(img, (380, 120), 30.0, W)]:  # the last one not read
        cv2.fillPoly(img, [np.round(fr).astype(np.int32)], paper)
    centres = np.array([[90.0, 100.0]] + [fr.mean(axis=0) for fr in faces])
    args = (img, [known], centres, np.full(4, W))
    near_unread = [np.hypot(*(c - (380, 120))) < 5 for c, _, _, _ in look_alike_regions(*args)]
    assert any(near_unread)  # the faces' colour taught as the backs': the unread face a back
    got = look_alike_regions(*args, faces=faces[:3])
    assert not any(np.hypot(*(c - (380, 120))) < 5 for c, _, _, _ in got)


def _back_on_squares(split: bool) -> np.ndarray:
    """A 60 x 90 mm brown back with a pale medallion (plane = image, 1.5 px/mm), lying on a
    table of dark and blue squares (`split`: across two of them) or on blue alone."""
    img = np.full((600, 600, 3), (150, 110, 60), np.uint8)  # blue
    if split:
        img[:, :300] = (25, 25, 25)  # a dark square under the card's left half
    rect = ((300.0, 310.0), (90.0, 135.0), 8.0)
    cv2.fillPoly(img, [np.round(cv2.boxPoints(rect)).astype(np.int32)], (40, 90, 150))
    cv2.circle(img, (300, 310), 22, (200, 215, 225), -1)  # the medallion
    cv2.circle(img, (300, 310), 6, (40, 90, 150), -1)  # its drawing (as brown)
    return img


@pytest.mark.parametrize("split,colours,found", [
    (False, (1,), True),  # one table colour: the card (its pale medallion differs from
    #   the table too: the speck fallback is tested below)
    (True, (1,), False),  # across two squares: the dark one joins the card (no card shape)
    (True, (3,), True),  # the table's colours from its ring: the card alone
    (True, (1, 3), True),  # one colour first, then three on the same window (hop_row_backs)
])
def test_snap_card_on_a_patterned_table(split, colours, found):
    from types import SimpleNamespace

    from vision.cards.read import snap_card

    area = SimpleNamespace(settings=SimpleNamespace(px_per_mm=1.5, plane_px=100),
                           H_plane_to_img=np.eye(3))  # the cloth far from the card
    got = snap_card(_back_on_squares(split), area, np.array([301.0, 309.0]),
                    table_colours=colours)
    assert (got is not None) == found
    if found:
        assert np.allclose(got[0], (300, 310), atol=3.0)


def _hop_art(colour: str, edition: int) -> np.ndarray:
    """A rectified Hop la bille card (60 x 90, uint8 BGR) as the synthetic scenes draw it."""
    from vision.synth.art import Style, hop_card

    style = Style(edition, 0, 1, 1, 1, 0, 0.1, 0.5, (1, 0))
    marbles = () if colour == "back" else ("marble-yellow", "marble-red", "marble-green")
    img, alpha = hop_card(120, 180, np.random.default_rng(1), style, colour, marbles)
    img = img.copy()
    img[alpha == 0] = (90, 120, 150)
    return cv2.resize(img, (60, 90), interpolation=cv2.INTER_AREA)


@pytest.mark.parametrize("light", ["normal", "tungsten", "harsh"])  # (the row search's guard:
@pytest.mark.parametrize("edition", [1, 2])  # a face-up card is no back, under a warm lamp too)
def test_paper_share_own(light, edition):
    from vision.cards.hopcards import FACE, paper_share_own
    from vision.light_eval import LIGHTS

    assert paper_share_own(LIGHTS[light](_hop_art("green", edition))) >= FACE.paper_min
    assert paper_share_own(LIGHTS[light](_hop_art("back", edition))) < FACE.paper_min
    plain = np.full((90, 60, 3), (90, 40, 60) if edition == 1 else (40, 90, 140), np.uint8)
    cv2.rectangle(plain, (0, 0), (59, 89), (235, 235, 235), 3)  # a plain back, a white rim:
    assert paper_share_own(LIGHTS[light](plain)) < FACE.paper_min  # its inside is not paper


@pytest.mark.parametrize("clear,found", [
    (False, False),  # the back and the face-up card beside it make one region
    (True, True),  # the card read (`clear`) taken out: the back alone
])
def test_snap_card_clears_the_cards_read(clear, found):
    from types import SimpleNamespace

    from vision.cards.read import snap_card

    img = np.full((600, 600, 3), (150, 110, 60), np.uint8)
    back = ((300.0, 310.0), (90.0, 135.0), 0.0)
    cv2.fillPoly(img, [np.round(cv2.boxPoints(back)).astype(np.int32)], (40, 90, 150))
    up = np.array([[348.0, 243.0], [438.0, 243.0], [438.0, 378.0], [348.0, 378.0]])
    cv2.fillPoly(img, [up.astype(np.int32)], (235, 240, 242))  # touching its right edge
    area = SimpleNamespace(settings=SimpleNamespace(px_per_mm=1.5, plane_px=100),
                           H_plane_to_img=np.eye(3))
    got = snap_card(img, area, np.array([300.0, 310.0]), clear=[up] if clear else None)
    assert (got is not None) == found
    if found:
        assert np.allclose(got[0], (300, 310), atol=3.0)


@pytest.mark.parametrize("speck", [(40, 40, 200), (235, 240, 242)])
def test_snap_card_a_speck_under_the_centre_takes_the_largest_blob(speck):
    """The blob under the window's centre is only a speck (the back's drawing: a dot of
    another colour than the table's, inside a medallion of the table's colour, touching
    nothing), so the card's outline is the largest blob's, not the speck's."""
    from types import SimpleNamespace

    from vision.cards.read import snap_card

    img = np.full((600, 600, 3), (150, 110, 60), np.uint8)  # blue table
    rect = ((300.0, 310.0), (90.0, 135.0), 8.0)
    cv2.fillPoly(img, [np.round(cv2.boxPoints(rect)).astype(np.int32)], (40, 90, 150))
    cv2.circle(img, (300, 310), 25, (150, 110, 60), -1)  # a medallion of the table's blue
    cv2.circle(img, (300, 310), 9, speck, -1)  # its drawing: a speck under the centre
    area = SimpleNamespace(settings=SimpleNamespace(px_per_mm=1.5, plane_px=100),
                           H_plane_to_img=np.eye(3))
    got = snap_card(img, area, np.array([301.0, 309.0]))
    assert got is not None
    assert np.allclose(got[0], (300, 310), atol=3.0)


def _hop_row_scene(n_up: int, back: bool):
    """A 600 mm cloth (1 photo px per mm) on a wooden table, `n_up` face-up Hop la bille
    cards (60 x 90 mm, 78 mm apart) in a row beyond its south side and, with `back`, a
    back (the project's art) one card step beyond the row's east end."""
    from vision.area import AREA_SETTINGS, area_from_corners

    img = np.full((1000, 1000, 3), (60, 100, 140), np.uint8)  # wood
    img[150:750, 200:800] = (70, 140, 60)  # the green cloth
    area = area_from_corners([[200.0, 150.0], [800.0, 150.0], [800.0, 750.0], [200.0, 750.0]],
                             AREA_SETTINGS["hop-la-bille"])
    xs = [380.0 + 78.0 * k for k in range(n_up)]
    pieces = []
    for x in xs:
        fr = np.array([[x - 30, 760.0], [x + 30, 760.0], [x + 30, 850.0], [x - 30, 850.0]])
        cv2.fillPoly(img, [np.round(fr).astype(np.int32)], (235, 240, 242))  # paper
        cv2.circle(img, (int(x), 805), 12, (40, 40, 200), -1)  # its drawing
        pieces.append(CardPiece("card-red", 0.95, fr[0], fr, 0.0, 60.0))
    bx = xs[-1] + 78.0
    if back:
        img[760:850, int(bx) - 30: int(bx) + 30] = _hop_art("back", 1)
    return img, area, pieces, np.array([bx, 805.0])


@pytest.mark.parametrize("n_up", [1, 2])
@pytest.mark.parametrize("back", [True, False])
def test_hop_row_backs_a_back_beside_a_short_row(n_up, back):
    from vision.cards.read import hop_row_backs

    img, area, pieces, where = _hop_row_scene(n_up, back)
    got = hop_row_backs(img, area, pieces)
    assert all(a is b for a, b in zip(got[:n_up], pieces, strict=True))
    new = got[n_up:]
    if back:  # the back one step beyond the row's end, and nothing else
        assert len(new) == 1 and new[0].label == "card-back"
        assert np.allclose(new[0].center, where, atol=4.0)
        assert 50.0 <= new[0].width <= 70.0
    else:  # only table beyond the row: no back
        assert new == []


@pytest.mark.parametrize("rect", [((50.0, 40.0), (30.0, 46.0), 20.0),
                                  ((50.0, 40.0), (46.0, 30.0), -35.0),
                                  ((10.0, 12.0), (25.0, 25.0), 45.0),  # a square: a tie
                                  ((0.0, 0.0), (7.0, 3.0), 90.0)])
def test_rect_sides_short_side_first(rect):
    """rect_sides (shared by card_shaped, look_strips, snap_card and teach_cards.look_backs)
    gives the short side's length and edge, then the long side's: on a tie the first edge of
    cv2.boxPoints is the short one, as the copies it replaced had it."""
    from vision.cards.read import rect_sides

    box = cv2.boxPoints(rect)
    e1, e2 = box[1] - box[0], box[2] - box[1]
    short, es, long_, el = rect_sides(rect)
    assert (short, long_) == tuple(sorted((float(np.hypot(*e1)), float(np.hypot(*e2)))))
    assert np.array_equal(es, e1 if np.hypot(*e1) <= np.hypot(*e2) else e2)
    assert np.array_equal(el, e2 if np.hypot(*e1) <= np.hypot(*e2) else e1)
    assert abs(float(np.hypot(*es)) - short) < 1e-9 and abs(float(np.hypot(*el)) - long_) < 1e-9


def test_back_piece_is_a_posed_back():
    """back_piece (CardReader._add_back's and teach_cards.look_backs' face-down card found by
    its look): a 'back' of the given confidence whose frame is card_frame's and whose key
    point is posed from it, width and angle as plain floats."""
    from vision.cards.read import back_piece

    p = back_piece(np.array([120.0, 80.0]), 30.0, np.float32(W), 0.6)
    frame = card_frame(np.array([120.0, 80.0]), 30.0, float(np.float32(W)), ASPECT)
    key, _, _ = pose_from_frame(frame, SPEC)
    assert p.label == "back" and p.confidence == 0.6
    assert np.array_equal(p.frame, frame) and np.array_equal(p.key, key)
    assert type(p.width) is float and type(p.angle) is float and p.width == W


def test_nearest_three_cards_nearest_first():
    """nearest (the cards read whose widths size a region: card_shaped, look_strips,
    settle_backs, teach_cards.look_backs): the n nearest indices, nearest first."""
    from vision.cards.read import nearest

    pts = np.array([[0.0, 0.0], [10.0, 0.0], [3.0, 4.0], [100.0, 100.0], [1.0, 1.0]])
    assert nearest(pts, (0.0, 0.0)).tolist() == [0, 4, 2]
    assert nearest(pts, np.array([99.0, 99.0]), 2).tolist() == [3, 1]
    assert nearest(pts[:2], (0.0, 0.0)).tolist() == [0, 1]  # fewer than n: all of them


# ------------------------------------------------------------------ the number's crop angle
@pytest.mark.parametrize("true_turn,posed_turn,key_x", [
    (6.0, 0.0, 120.0),  # a card turned 6 degrees from the row's angle: found
    (-4.5, 0.0, 120.0),
    (0.0, 7.5, 120.0),  # a pose turned off a straight card: turned back
    (3.0, 3.0, 120.0),  # a right pose stays
    # a card whose left edge lies just off the photo (its key point 8 px in): the sample
    # lines off the photo see the photo's own last pixels (no step), so the edge inside it
    # decides; with a black border (cv2.remap's default) they scored the card's brightness
    # and turned the number's crop to the photo's axes (0 degrees)
    (6.0, 0.0, 8.0),
    (-4.5, 0.0, 8.0),
    (3.0, 3.0, 8.0),
])
def test_edge_angles_turn_the_pose_to_the_cards_edges(true_turn, posed_turn, key_x):
    from vision.cards.read import READ, edge_angles

    spec = SPECS["troetofanten"]
    img = np.full((300, 300, 3), 40, np.uint8)
    key = np.array([key_x, 100.0])
    card = frame_from_pose(key, true_turn, 80.0, spec)
    cv2.fillConvexPoly(img, np.round(card).astype(np.int32), (225, 230, 235))
    got = edge_angles(img, key[None], np.array([posed_turn]), np.array([80.0]), READ)
    assert abs(got[0] - true_turn) <= 1.5, got  # (one step of `edge_turns`)


# ------------------------------------------------------------------ a fan's next card on a card
def _card_at(key, angle, label="elephant-3", width=50.0):
    spec = SPECS["troetofanten"]
    key = np.array(key, float)
    return CardPiece(label, 0.9, key, frame_from_pose(key, angle, width, spec), angle, width)


def _paper_table(label):
    """Three white cards `label`, 80 px wide, in a row on a dark table: (the photo, the
    cards)."""
    img = np.full((400, 600, 3), (40, 60, 90), np.uint8)
    keys = [(100.0, 100.0), (250.0, 100.0), (400.0, 100.0)]
    cards = [_card_at(k, 0.0, label, 80.0) for k in keys]
    for c in cards:
        cv2.fillConvexPoly(img, np.round(c.frame).astype(np.int32), (235, 235, 235))
    return img, cards


@pytest.mark.parametrize("key,angle,card_label,want", [
    ((120.0, 100.0), 0.0, "elephant-3", True),  # 0.4 widths along the top edge: a fan's next
    ((100.0, 100.0), 0.0, "elephant-3", False),  # on its own index: the same card
    ((140.0, 150.0), 0.0, "elephant-3", False),  # below the top edge: the card's drawing
    ((120.0, 100.0), 180.0, "elephant-3", False),  # turned half round: its other corner
    ((120.0, 100.0), 14.0, "elephant-3", False),  # turned more than a pile's cards are
    ((120.0, 103.0), 5.0, "elephant-3", True),
    ((120.0, 100.0), 0.0, "back", False),  # (a back's corners look alike: not a row)
])
def test_in_its_row_tells_a_fans_next_card_from_a_cards_other_parts(key, angle, card_label,
                                                                     want):
    from vision.cards.read import in_its_row

    assert in_its_row(np.array(key), angle, _card_at((100.0, 100.0), 0.0, card_label)) is want


def test_paper_regions_find_a_card_whose_corner_is_covered():
    """Three white cards on a dark table, two read; the third's corner under a thumb: its
    card-shaped paper off the cards read is found, and nothing where all cards are read."""
    from vision.cards.read import paper_regions

    img, cards = _paper_table("elephant-2")
    for c in cards:
        cv2.circle(img, tuple(int(v) for v in c.center), 15, (120, 120, 120), -1)
    cv2.circle(img, tuple(int(v) for v in cards[2].key), 22, (120, 150, 210), -1)  # a thumb
    got = paper_regions(img, cards[:2])
    assert len(got) == 1 and np.hypot(*(got[0][0] - cards[2].center)) < 0.25 * 80.0, got
    assert paper_regions(img, cards) == []


@pytest.mark.parametrize("thumb,added", [
    (False, True),  # a card with no key point, its paper whole: read surely, counted
    (True, False),  # its corner indices under fingers: the reading is unsure, only warned
])
def test_read_paper_counts_a_card_read_surely_and_leaves_the_rest_to_a_warning(thumb, added):
    img, cards = _paper_table("mouse")
    if thumb:  # (a finger on each corner index: the stand-in reads either orientation)
        for corner in (cards[2].frame[0], cards[2].frame[2]):
            at = corner + 14 * np.sign(cards[2].center - corner)
            cv2.circle(img, tuple(int(v) for v in at), 22, (120, 150, 210), -1)
    r = reader_with(CardOrNot((235, 235, 235), "mouse"))
    r.index = None
    pieces, unread = r.read_paper(img, cards[:2])
    assert len(pieces) == 2 + added and len(unread) == 1 - added
    if added:
        assert pieces[2].label == "mouse"
        assert np.hypot(*(pieces[2].center - cards[2].center)) < 0.2 * 80.0


class OtherGame(CardOrNot):
    """`CardOrNot` reading a card as another game's piece (`label`) with a little of a
    Troetofanten mouse, never likelier than background (0.9 x P(background))."""

    def predict(self, crops):
        pred = super().predict(crops)
        bg = pred.probs[:, self.index("background")].copy()
        pred.probs[:, self.index("mouse")] = 0.9 * bg
        pred.probs[:, self.index(self.label)] -= 0.9 * bg
        return pred


def test_read_paper_counts_no_piece_of_another_game():
    """A paper region the classifier reads as another game's card (its 38 classes cover all
    games): the mouse, the likeliest Troetofanten label, is no likelier than background,
    so nothing is read there (`read_pieces`' rule), only warned about. Before, its share of
    the Troetofanten labels (all of them) made it a sure mouse."""
    img, cards = _paper_table("mouse")
    r = reader_with(OtherGame((235, 235, 235), "hat-3"))
    r.index = None
    pieces, unread = r.read_paper(img, cards[:2])
    assert len(pieces) == 2 and len(unread) == 1
    assert np.hypot(*(unread[0] - cards[2].center)) < 0.2 * 80.0


@pytest.mark.parametrize("side", [1.0, -1.0])  # the face-up card over the back's bottom / top
@pytest.mark.parametrize("design", [False, True])  # no back read: regions of one design
def test_end_backs_a_back_whose_end_lies_under_a_card(side, design):
    """A face-down card whose end (0.3 of its height) lies under a face-up card: its visible
    part has the backs' look (or one design's colours) but a card's width across and too
    little length for a card's shape, so `look_alike_regions` (`design_regions`) makes no
    card of it; `end_backs` does, its free end the region's and its centre a card's height
    from it, under the card. A square patch of the look beside no card is none."""
    colour, stripe = DESIGNS[0]
    img = table(5)
    known = draw_back(img, (90, 100), 0.0, W, colour, stripe)
    true_c = np.array([260.0, 180.0])
    draw_back(img, true_c, 0.0, W, colour, stripe)
    face_c = true_c + side * np.array([0.0, 0.7 * ASPECT * W])
    face = draw_face(img, face_c, 0.0, W)
    cv2.rectangle(img, (380, 40), (421, 85), colour, -1)  # the look, square, beside no card
    centres = np.array([[90.0, 100.0], face_c])
    ends: list = []
    if design:
        got = design_regions(img, centres[1:], np.array([W]), ends=ends)
    else:
        got = look_alike_regions(img, [known], centres, np.array([W, W]), ends=ends)
    assert len(got) == 1  # the known back only
    backs = end_backs(ends, [known, face], centres, np.array([W, W]), ASPECT)
    assert len(backs) == 1, backs
    c, a, w = backs[0]
    assert np.hypot(*(c - true_c)) < 0.15 * W
    assert abs((a + 90) % 180 - 90) < 5 and w == pytest.approx(W, rel=0.05)


@pytest.mark.parametrize("pieces,want_labels,n_warn", [
    # two mousetraps (a box holds one): the surer stands, the other is not counted (the
    # less sure one first in reader order: keeping the first would fail the test)
    ([("mousetrap", 0.43), ("mousetrap", 0.9), ("mouse", 0.8)], ["mousetrap", "mouse"], 1),
    # within the box: unchanged, no warning
    ([("mousetrap", 0.9), ("mouse", 0.5), ("mouse", 0.6), ("mouse", 0.7)],
     ["mousetrap", "mouse", "mouse", "mouse"], 0),
    # a sixth tootophant-3: the least sure (first in reader order, not last) takes its
    # likeliest other number with room
    ([("tootophant-3", 0.5)] + [("tootophant-3", 0.9)] * 5, ["tootophant-2"] +
     ["tootophant-3"] * 5, 1),
])
def test_box_limits(pieces, want_labels, n_warn):
    from vision.cards.read import box_limits

    read = [replace(_piece(lab, (60.0 * k, 100.0), 0.0, conf), probs={
        lab: 0.6, "tootophant-2": 0.3, "tootophant-5": 0.1} if lab.startswith("toot") else
        {lab: conf}) for k, (lab, conf) in enumerate(pieces)]
    got, warnings, relabelled = box_limits(read)
    assert [p.label for p in got] == want_labels
    assert len(warnings) == n_warn
    if any(lab == "mousetrap" for lab, _ in pieces):  # the surer one stands
        assert [p.confidence for p in got if p.label == "mousetrap"] == [0.9]
    if any(lab.startswith("toot") for lab, _ in pieces):
        assert [p.confidence for p in got if p.label == "tootophant-2"] == [0.5]
    read_labels = {lab for lab, _ in pieces}
    assert [p.label for p in relabelled] == [lab for lab in want_labels if lab not in read_labels]
    assert all(any(p is q for q in got) for p in relabelled)


def test_a_relabelled_card_gets_one_warning():
    """A sixth tootophant-3 (a box holds 5) that `box_limits` counts as a tootophant-2 gets
    its warning only: it carries its second-likeliest number, so `number_doubt` would warn
    about it too ("3 or 2"), which `piece_warnings` leaves out."""
    from vision.cards.read import box_limits, piece_warnings

    probs = {"tootophant-3": 0.95, "tootophant-2": 0.03, "tootophant-5": 0.02}
    read = [replace(_piece("tootophant-3", (60.0 * k, 100.0), 0.0, 0.9 if k < 5 else 0.7),
                    probs=probs) for k in range(6)]
    got, warnings, relabelled = box_limits(read)
    assert [p.label for p in got] == ["tootophant-3"] * 5 + ["tootophant-2"]
    assert relabelled == [got[5]]
    warnings += piece_warnings(got, "troetofanten", READ, relabelled)
    assert len(warnings) == 1, warnings
    assert "(300, 100)" in warnings[0] and "counted as tootophant-2" in warnings[0]
    # without it, the number's warning would come too
    assert len(piece_warnings(got, "troetofanten", READ)) == 1


def test_look_alike_regions_a_back_whose_medallion_the_table_shares():
    """A back whose medallion's colours are the table's too (a red medallion on a brown
    wooden table) is no colour of the look: a notch of 0.45 x 0.6 of the card (a quarter of
    it) bites into its region from one edge, which then fills about 0.73 of its rectangle; it is
    still found (`look_fill` 0.65; the classifier then checks a region no back was read in)."""
    colour, stripe = DESIGNS[0]
    img = table(7)
    known = draw_back(img, (90, 100), 0.0, W, colour, stripe)
    draw_back(img, (260, 180), 0.0, W, colour, stripe)
    x0, y0 = 260 - W / 2, 180 - 0.3 * ASPECT * W
    cv2.rectangle(img, (int(x0), int(y0)), (int(x0 + 0.45 * W), int(y0 + 0.6 * ASPECT * W)),
                  (95, 110, 125), -1)
    got = look_alike_regions(img, [known], np.array([[90.0, 100.0]]), np.array([W]))
    assert sorted(np.round(g[0]).tolist() for g in got) == [[90.0, 100.0], [260.0, 180.0]]


@pytest.mark.parametrize("kind,share,warned", [
    ("elephant", 0.78, True),   # the session-8 index model's wrong numbers often take 0.75-0.8
    ("elephant", 0.82, False),  # a number this sure is not
    ("elephant", 0.5, True),    # an even split always is
    ("tootophant", 0.82, True),  # a yellow number blurs first: warned up to 0.9
    ("tootophant", 0.88, True),
    ("tootophant", 0.93, False),  # 0.9-0.95: no misread there, warned until session 24
    ("tootophant", 0.97, False),
])
def test_number_doubt_threshold_of_the_reader(kind, share, warned):
    """`READ.number_doubt` and `tootophant_doubt` as `piece_warnings` applies them (0.8:
    fails at the old 0.75; a tootophant's fails at 0.8 and at the old 0.95)."""
    from vision.cards.read import piece_warnings

    probs = {f"{kind}-2": 0.95 * share, f"{kind}-3": 0.95 * (1 - share), "mouse": 0.05}
    p = replace(_piece(f"{kind}-2", (100.0, 100.0), 0.0, 0.95), probs=probs)
    got = [w for w in piece_warnings([p], "troetofanten", READ)
           if "corner number is unclear" in w]
    assert bool(got) == warned, got


@pytest.mark.parametrize("faint,warned", [
    (True, True),  # counted by its kind alone (`counted_weak`): warned, its number sure or not
    (False, False),  # read surely: not
])
def test_number_doubt_always_for_a_faint_piece(faint, warned):
    from vision.cards.read import piece_warnings

    probs = {"elephant-2": 0.95, "elephant-3": 0.0, "mouse": 0.05}  # its number: all its kind
    p = replace(_piece("elephant-2", (100.0, 100.0), 0.0, 0.95), probs=probs, faint=faint)
    got = [w for w in piece_warnings([p], "troetofanten", READ)
           if "corner number is unclear" in w]
    assert bool(got) == warned, got


def draw_rimmed_back(img, centre, angle, width, colour, stripe) -> np.ndarray:
    """A face-down card with a white rim (6 % of its width) around its design."""
    frame = draw_face(img, centre, angle, width)
    draw_back(img, centre, angle, 0.88 * width, colour, stripe)
    return frame


@pytest.mark.parametrize("second,split,want", [
    (((300 + W, 150 + 0.3 * W), 0.0), True, 2),  # edge to edge: the rims part them unclosed
    (((300 + W, 150 + 0.3 * W), 0.0), False, 0),  # closed over the rims: one region
    (((300 + 0.8 * W, 150 + 1.2 * W), 30.0), True, 2),  # overlapping at a corner: a neck
    (((300 + 0.8 * W, 150 + 1.2 * W), 30.0), False, 0),
    (((300, 150 + 0.5 * W), 0.0), True, 1),  # half on the other: the top card, no neck
    (((300, 150 + 0.5 * W), 0.0), False, 0),
])
def test_design_regions_backs_that_touch(second, split, want):
    """Two backs that touch are joined by `card_shaped`'s closing; `touching_cards` takes
    them apart again (`split_touching`); of a pile with no neck, the top card (its rim parts
    it from the strip of the card under it)."""
    rng = np.random.default_rng(11)
    img = np.clip(np.array((60, 130, 60), np.int16) + rng.integers(-8, 9, (360, 480, 3)),
                  0, 255).astype(np.uint8)
    faces = [draw_face(img, (60 + 55 * k, 300), 0.0, W) for k in range(3)]
    draw_rimmed_back(img, (300, 150), 0.0, W, (150, 60, 20), (120, 40, 10))
    draw_rimmed_back(img, *second, W, (150, 60, 20), (120, 40, 10))
    centres = np.array([fr.mean(axis=0) for fr in faces])
    got = design_regions(img, centres, np.full(3, W), replace(READ, split_touching=split))
    assert len(got) == want, [np.round(c) for c, _, _, _ in got]
    for c, _, w, _ in got:  # each at one of the two cards, a card wide
        assert min(np.hypot(*(c - np.array(p))) for p in [(300, 150), second[0]]) < 0.15 * W
        assert 0.8 * W <= w <= 1.2 * W


@pytest.mark.parametrize("second,necks,want", [
    (None, (0.6, 0.7, 0.8), 1),  # one card: never cut
    (((95.0, 115.0), 30.0), (0.6,), 0),  # overlapping by half: one core at 0.6, no card
    (((95.0, 115.0), 30.0), (0.6, 0.7, 0.8), 2),  # a deeper neck parts them
    (((105.0, 105.0), 30.0), (0.6, 0.7, 0.8), 2),  # less overlap: a neck at 0.6 already
    (((95.0, 100.0), 30.0), (0.6, 0.7, 0.8), 1),  # the two make a card's shape: left whole
])
def test_touching_cards_deeper_neck(second, necks, want):
    """A part of two backs overlapping by half narrows too little for a core at 0.6 of its
    deepest point; where it is no card whole, it is cut at the next neck that gives two
    pieces that are each a card."""
    from vision.cards.read import touching_cards

    w = 40.0
    raw = np.zeros((220, 240), np.uint8)
    cards = [((80.0, 70.0), 0.0)] + ([second] if second else [])
    for c, a in cards:
        cv2.fillConvexPoly(raw, np.round(card_frame(np.array(c), a, w, ASPECT)).astype(np.int32),
                           255)
    least = READ.look_fill * READ.look_size[0] ** 2 * 1.25 * w * w
    got = touching_cards(raw, (0, 0), np.array([[60.0, 200.0]]), np.array([w]), READ.look_size,
                         READ.look_fill, READ.look_shape, least, necks)
    assert len(got) == want, [np.round(c) for c, _, _, _ in got]
    if want == len(cards):  # each at its card, a card wide
        for c, _, short, _ in got:
            assert min(np.hypot(*(c - np.array(p))) for p, _ in cards) < 0.2 * w
            assert 0.8 * w <= short <= 1.2 * w


@pytest.mark.parametrize("short,ratio,want", [
    (W, ASPECT, True),  # one card
    (1.1 * W, 1.3, True),  # seen a little tilted
    (W, (ASPECT * W + 0.35 * W) / W, False),  # a pile shifted 0.35 widths along its length
    (1.35 * W, ASPECT / 1.35, False),  # or across
])
def test_one_card_region(short, ratio, want):
    from vision.cards.read import one_card_region

    assert one_card_region(short, ratio, [W, 1.05 * W], ASPECT, READ.one_back_size) == want


@pytest.mark.parametrize("shift,under,want", [
    (0.0, False, (0.0, 0.0)),  # on the region itself: nothing off it
    (0.38, False, (0.0, 0.1)),  # a second reading shifted onto the table
    (0.38, True, (0.8, 1.0)),  # a card under it shows its strip there
])
def test_off_region_look(shift, under, want):
    from vision.cards.read import off_region_look

    f = 0.5
    mask = np.zeros((180, 240), np.uint8)
    region = card_frame(np.array([200.0, 180.0]), 0.0, W, ASPECT)
    frame = card_frame(np.array([200.0 + shift * W, 180.0]), 0.0, W, ASPECT)
    cv2.fillConvexPoly(mask, np.round((region + 0.5) * f - 0.5).astype(np.int32), 255)
    if under:
        cv2.fillConvexPoly(mask, np.round((frame + 0.5) * f - 0.5).astype(np.int32), 255)
    got = off_region_look(mask, frame, region, f)
    assert want[0] <= got <= want[1], got


@pytest.mark.parametrize("pile,reach,want", [
    (False, READ.twice_reach, 1),  # one back read at its place and 0.6 widths off it
    (False, 0.0, 2),  # not asked: the second reading stays a second back
    (True, READ.twice_reach, 2),  # a pile of two, 0.6 widths apart: the look shows both
])
def test_settle_backs_one_back_read_at_two_places(pile, reach, want):
    img = table(7)
    colour, stripe = DESIGNS[1]
    if pile:
        draw_back(img, (240 + 0.6 * W, 180), 0.0, W, colour, stripe)
    draw_back(img, (240, 180), 0.0, W, colour, stripe)
    faces = [CardPiece("elephant-2", 0.9, np.array([x, 300.0]), None, 0.0, W)
             for x in (100.0, 160.0, 220.0)]
    faces = [CardPiece(p.label, p.confidence, p.key, frame_from_pose(p.key, 0.0, W, SPEC),
                       0.0, W) for p in faces]
    backs = [back_piece((240, 180), 0.0, W, 0.95), back_piece((240 + 0.6 * W, 180), 0.0, W, 0.9)]
    r = reader_with(CardOrNot([colour, stripe]))
    r.settings = replace(READ, twice_reach=reach)
    got = [p for p in r.settle_backs(img, faces + backs) if p.label == "back"]
    assert len(got) == want, [np.round(p.center) for p in got]
    assert min(np.hypot(*(p.center - (240, 180))) for p in got) < 0.2 * W


@pytest.mark.parametrize("shift,under,faces,want", [
    (0.5, False, False, (0.9, 1.1)),  # one card between two readings: the shares sum to 1
    (0.5, True, False, (1.8, 2.0)),  # a second card under the second reading: 2
    (0.5, False, True, None),  # what lies off each other under face-up cards: undecided
])
def test_shown_off(shift, under, faces, want):
    from vision.cards.read import shown_off

    f = 0.5
    mask = np.zeros((180, 240), np.uint8)
    a = card_frame(np.array([200.0, 180.0]), 0.0, W, ASPECT)
    b = card_frame(np.array([200.0 + shift * W, 180.0]), 0.0, W, ASPECT)
    card = card_frame(np.array([200.0 + shift * W / 2, 180.0]), 0.0, W, ASPECT)  # between
    for q in [a, b] if under else [card]:
        cv2.fillConvexPoly(mask, np.round((q + 0.5) * f - 0.5).astype(np.int32), 255)
    cover = np.zeros_like(mask)
    if faces:  # face-up cards over both ends
        for x in (200.0 - W / 2, 200.0 + (shift + 0.5) * W):
            q = card_frame(np.array([x, 180.0]), 0.0, W, ASPECT)
            cv2.fillConvexPoly(cover, np.round((q + 0.5) * f - 0.5).astype(np.int32), 1)
    got = shown_off(mask, a, b, cover, f, READ.twice_seen)
    if want is None:
        assert got is None
    else:
        assert want[0] <= sum(got) <= want[1], got


@pytest.mark.parametrize("squash,found", [
    (1.0, True),  # seen from above
    (0.7, True),  # a low camera foreshortens its width: its rectangle 2.2 x as long
    (0.6, False),  # 2.57: no card's shape
])
def test_design_regions_a_back_seen_from_a_low_camera(squash, found):
    """A back lying across a low camera's view: its width foreshortened, its rectangle
    longer than `look_shape` allows, a card by `flat_shape`."""
    img = table(11)
    colour, stripe = DESIGNS[1]
    faces = [draw_face(img, (60 + 55 * k, 300), 0.0, W) for k in range(3)]
    w = 2 * W  # (a close-up: its outline not rounded off at half size)
    frame = card_frame(np.array([300.0, 120.0]), 90.0, w, ASPECT)  # long side across the view
    c = frame.mean(axis=0)
    frame = c + (frame - c) * (1.0, squash)  # (its width along y)
    cv2.fillPoly(img, [np.round(frame).astype(np.int32)], colour)
    for t in (0.2, 0.45, 0.7):  # its design's stripes (a flat patch is no back: `patterned`)
        a, b = frame[0] + t * (frame[1] - frame[0]), frame[3] + t * (frame[2] - frame[3])
        cv2.line(img, tuple(np.round(a).astype(int)), tuple(np.round(b).astype(int)), stripe,
                 max(1, int(w * 0.08)))
    got = design_regions(img, np.array([fr.mean(axis=0) for fr in faces]),  # (their widths
                         np.full(3, 0.9 * w))  # read foreshortened too)
    assert any(np.hypot(*(g[0] - c)) < 0.15 * W for g in got) == found, \
        [np.round(g[0]) for g in got]


def newspaper(seed: int, shape=(360, 480)) -> np.ndarray:
    """A busy table (session 24, H8): columns of dark "text" strokes on pale paper."""
    rng = np.random.default_rng(seed)
    img = np.full((*shape, 3), (225, 228, 230), np.uint8)
    for x0 in range(8, shape[1] - 40, 48):
        for y in range(6, shape[0] - 6, 7):
            x = x0
            while x < x0 + 40:
                n = int(rng.integers(3, 12))
                cv2.line(img, (x, y), (min(x + n, x0 + 40), y), (40, 40, 40), 2)
                x += n + int(rng.integers(2, 5))
    return img


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("light", [1.0, 0.5, "veil"])  # as drawn, dimmed, a glare's veil
@pytest.mark.parametrize("colour,stripe", DESIGNS)
def test_patterned_a_back_and_a_flat_patch(seed, light, colour, stripe):
    """A back's middle shows its design (grey levels spread at least `design_pattern` x
    their mean); a card-sized patch of one flat colour does not, under any light."""
    from vision.cards.read import patterned

    rng = np.random.default_rng(seed)
    img = table(seed)
    back_c, flat_c = np.array([130.0, 120.0]), np.array([330.0, 200.0])
    a = float(rng.uniform(0, 180))
    draw_back(img, back_c, a, W, colour, stripe)
    flat = card_frame(flat_c, a, W, ASPECT)
    cv2.fillPoly(img, [np.round(flat).astype(np.int32)], colour)
    img = np.clip(img.astype(np.int16) + rng.integers(-3, 4, img.shape), 0, 255)
    img = (img * light if light != "veil" else 0.6 * img + 90).astype(np.uint8)
    img = cv2.GaussianBlur(img, (3, 3), 0)
    least = READ.design_pattern
    assert patterned(img, back_c, a, W, least)
    assert not patterned(img, flat_c, a, W, least)


@pytest.mark.parametrize("seed", range(3))
def test_design_regions_leave_a_newspapers_pictures(seed):
    """No back read, on a newspaper: its card-sized pictures of flat colour (one the backs'
    own) are the table's, not backs; the one striped back among them is found."""
    rng = np.random.default_rng(seed)
    img = newspaper(seed)
    faces = [draw_face(img, (60 + 55 * k, 300), 0.0, W) for k in range(3)]
    colour, stripe = DESIGNS[1]
    pictures = [(40, 40, 190), (150, 80, 30), (40, 180, 230), (160, 60, 170)]
    for k, bgr in enumerate(pictures):  # card-sized flat pictures, upright
        x, y = 40 + 110 * k + int(rng.integers(0, 10)), 40 + int(rng.integers(0, 20))
        cv2.rectangle(img, (x, y), (x + int(W), y + int(ASPECT * W)), bgr, -1)
    draw_back(img, (380, 220), 30.0, W, colour, stripe)
    centres = np.array([fr.mean(axis=0) for fr in faces])
    got = design_regions(img, centres, np.full(3, W))
    assert len(got) == 1, [np.round(g[0]) for g in got]
    assert np.hypot(*(got[0][0] - (380, 220))) < 0.15 * W
    # without the design test, the flat pictures were backs too (what this guards against)
    old = design_regions(img, centres, np.full(3, W), replace(READ, design_pattern=0.0))
    assert len(old) > 1


@pytest.mark.parametrize("shown,flat_strip,card", [
    (0.7, True, False),  # 0.7 of its width beside the card on it (its region 0.68 x the
    #                      width across, 2.26 x as long): a strip of a back under a card,
    #                      no card there
    (0.7, False, True),  # the strip's bound not asked (flat_shape's window alone): a card,
    #                      0.16 widths off the back
    (1.0, True, True),  # the whole back: a card
])
def test_look_alike_regions_a_strip_beside_a_card_is_no_flat_back(shown, flat_strip, card):
    """`flat_shape` takes a rectangle up to 2.3 x as long as wide for a back seen from a low
    camera, but only where its short side is wider than a strip (`strip_across[1]`)."""
    img = table(11)
    colour, stripe = DESIGNS[1]
    w = 2 * W  # (a close-up: its outline not rounded off at half size)
    known = draw_back(img, (80.0, 110.0), 0.0, w, colour, stripe)  # a back read
    draw_back(img, (300.0, 130.0), 0.0, w, colour, stripe)
    faces = [draw_face(img, (80.0 + 90 * k, 290.0), 0.0, w) for k in range(3)]
    if shown < 1.0:  # a face-up card over its right part
        faces.append(draw_face(img, (300.0 + shown * w, 130.0), 0.0, w))
    c = np.array([300.0 - (1.0 - shown) * w / 2, 130.0])  # the shown part's centre
    s = READ if flat_strip else replace(READ, strip_across=(READ.strip_across[0], 0.0))
    centres = np.array([[80.0, 110.0]] + [fr.mean(axis=0) for fr in faces])
    got = look_alike_regions(img, [known], centres, np.full(len(centres), float(w)), s,
                             faces=faces)
    assert any(np.hypot(*(g[0] - c)) < 0.15 * W for g in got) == card, \
        [np.round(g[0]) for g in got]


@pytest.mark.parametrize("pile,none,want,again", [
    (False, READ.twice_none, 1, 0.9),  # one back, read again 0.56 widths off and turned 40
    #   degrees: that frame's part off the back shows none of the look, no card there
    (False, READ.twice_none, 1, 0.97),  # the same read again more surely than the back:
    #   the surer reading is the one dropped (and no other pair asked about it)
    (False, 0.0, 2, 0.9),  # not asked: turned otherwise than a twin, it stays
    (True, READ.twice_none, 2, 0.9),  # a second back lies so: the look shows it, a pile
])
def test_settle_backs_a_back_read_again_turned_onto_the_table(pile, none, want, again):
    """Session 14 (fresh e1-1720 0029): a back read a second time at a pose turned off its
    own, 40 degrees, whose part off the back lies on the bare table (`again`: the second
    reading's confidence, the back's 0.95)."""
    img = table(7)
    colour, stripe = DESIGNS[1]
    second = (240 + 0.5 * W, 180 + 0.25 * W)  # (0.56 widths: off the region's reach)
    if pile:
        draw_back(img, second, 40.0, W, colour, stripe)
    draw_back(img, (240, 180), 0.0, W, colour, stripe)
    faces = [CardPiece("elephant-2", 0.9, np.array([x, 300.0]), None, 0.0, W)
             for x in (100.0, 160.0, 220.0)]
    faces = [CardPiece(p.label, p.confidence, p.key, frame_from_pose(p.key, 0.0, W, SPEC),
                       0.0, W) for p in faces]
    backs = [back_piece((240, 180), 0.0, W, 0.95), back_piece(second, 40.0, W, again)]
    r = reader_with(CardOrNot([colour, stripe]))
    r.settings = replace(READ, twice_none=none)
    got = [p for p in r.settle_backs(img, faces + backs) if p.label == "back"]
    assert len(got) == want, [np.round(p.center) for p in got]
    assert min(np.hypot(*(p.center - (240, 180))) for p in got) < 0.2 * W


def _keyed(key, angle, width, conf) -> CardPiece:
    """A back read at key point `key` and `angle`, posed at `width`."""
    key = np.asarray(key, float)
    return CardPiece("back", conf, key, frame_from_pose(key, angle, width, SPEC), angle, width)


def test_settle_backs_again_among_the_close_up_cards():
    """Committed 0028 in small (session 15): a near back, its width foreshortened (1.4 W
    across, 3.08 W along: 2.2 x), read at three key points (twice at its top-left corner,
    once at its bottom-right one) takes the width W of the far cards read by the first
    look: its region is too long for a card that wide and its readings stay apart; settled
    again among the near cards the second look added (2 W, `second_look`,
    `resettle_backs`) they are one card at the near width. A back of the second look
    (`sized`) keeps its own width."""
    img = table(7)
    colour, stripe = DESIGNS[1]
    true = draw_back(img, (240, 250), 0.0, 1.4 * W, colour, stripe, 3.08 / 1.4)
    far = [CardPiece("elephant-2", 0.9, np.array([x, 40.0]),
                     frame_from_pose(np.array([x, 40.0]), 0.0, W, SPEC), 0.0, W)
           for x in (100.0, 160.0, 220.0)]
    near = []
    for x in (90.0, 390.0):
        fr = draw_face(img, (x, 270), 0.0, 2 * W)
        key, _, _ = pose_from_frame(fr, SPEC)
        near.append(CardPiece("elephant-3", 0.9, key, fr, 0.0, 2 * W))
    for p in far:
        draw_face(img, p.center, 0.0, W)
    tl, _, _ = pose_from_frame(true, SPEC)
    br, _, _ = pose_from_frame(true[[2, 3, 0, 1]], SPEC)
    reads = [_keyed(tl, 0.0, W, 0.95), _keyed(tl + (5.0, 7.0), 0.0, W, 0.6),
             _keyed(br, 180.0, W, 0.9)]
    r = reader_with(CardOrNot([colour, stripe]))
    first = [p for p in r.settle_backs(img, far + reads) if p.label == "back"]
    assert len(first) > 1  # (the first look's trouble: the far cards' width)
    again = [p for p in r.settle_backs(img, far + near + first) if p.label == "back"]
    assert len(again) == 1, [np.round(p.center) for p in again]
    assert np.hypot(*(again[0].center - (240, 250))) < 0.15 * 2 * W
    assert again[0].width >= 1.3 * W  # (not the far cards' W)
    own = _keyed(tl, 0.0, 1.5 * W, 0.95)  # (the second look's, kept at its own width)
    kept = [p for p in r.settle_backs(img, far + [own], [own]) if p.label == "back"]
    assert kept[0].width != pytest.approx(W, rel=0.05)


@pytest.mark.parametrize("offset,turn,want", [
    ((0.0, 0.0), 0.0, True),  # at the region's top-left corner index
    ((0.1, 0.1), 0.0, True),  # beside it (the detector's key points split)
    ((0.0, 0.0), 180.0, False),  # there but turned half round: no corner index of it
    ((0.4, 0.0), 0.0, False),  # 0.4 widths off: the next card of a pile
    ((0.0, 0.0), 90.0, False),  # turned across
])
def test_at_corners(offset, turn, want):
    """`at_corners` (session 15): a back read at either of a card-shaped region's corner
    indices, turned that corner's way, is that card; the other corner is the region's
    outline turned half round."""
    from vision.cards.read import at_corners

    w = 2 * W
    frames = [card_frame(np.array([240.0, 180.0]), 30.0 + t, w, ASPECT) for t in (0.0, 180.0)]
    for k, fr in enumerate(frames):  # (each corner: the same answers)
        key, ang, _ = pose_from_frame(fr, SPEC)
        t = np.deg2rad(ang)
        u, v = np.array([np.cos(t), np.sin(t)]), np.array([-np.sin(t), np.cos(t)])
        p = _keyed(key + w * (offset[0] * u + offset[1] * v), ang + turn, W, 0.9)
        assert (at_corners([p], frames, w) == [0]) == want, k


@pytest.mark.parametrize("corner_backs", [True, False])
def test_settle_backs_one_back_read_twice_at_one_corner(corner_backs):
    """Fresh e1-1803 0023 in small (session 15): a back lying across a tilted camera's view
    (1.6 W across, 3.1 W along: 1.94 x) among face-up cards W wide, read twice at its
    top-left corner index: posed at their W its readings make a region too large for one
    card, so before `at_corners` both were kept; read at the region's corner index, they
    are one card, its outline."""
    img = table(8)
    colour, stripe = DESIGNS[2]
    true = draw_back(img, (250, 200), 20.0, 1.6 * W, colour, stripe, 3.1 / 1.6)
    faces = []
    for x in (60.0, 120.0, 420.0):
        fr = draw_face(img, (x, 60), 0.0, W)
        key, _, _ = pose_from_frame(fr, SPEC)
        faces.append(CardPiece("elephant-2", 0.9, key, fr, 0.0, W))
    tl, ang, _ = pose_from_frame(true, SPEC)
    reads = [_keyed(tl, ang, W, 0.95), _keyed(tl + (12.0, 8.0), ang, W, 0.9)]  # (0.36 W apart)
    r = reader_with(CardOrNot([colour, stripe]))
    r.settings = replace(READ, corner_backs=corner_backs)
    got = [p for p in r.settle_backs(img, faces + reads) if p.label == "back"]
    if not corner_backs:  # (the rule off: two)
        assert len(got) == 2
        return
    assert len(got) == 1, [np.round(p.center) for p in got]
    assert np.hypot(*(got[0].center - (250, 200))) < 0.3 * W
    assert got[0].width == pytest.approx(1.6 * W, rel=0.15)


def test_settle_again_with_a_taught_readers_settle_backs():
    """`second_look` settles the backs again through `settle_again`: the reader's own
    `settle_backs` is given the close-up look's backs to keep at their width; a taught
    reader's (`vision.teach_cards` replaces it on its copy with one of the image and the
    pieces alone, which adds the taught look's backs) is not run again: the pieces stay."""
    img = table(9)
    r = reader_with(CardOrNot((0, 0, 0)))
    own = back_piece((200, 150), 0.0, 2 * W)
    far = [CardPiece("elephant-2", 0.9, np.array([x, 40.0]),
                     frame_from_pose(np.array([x, 40.0]), 0.0, W, SPEC), 0.0, W)
           for x in (100.0, 160.0, 220.0)]
    kept = [p for p in r.settle_again(img, far + [own], [own]) if p.label == "back"]
    assert kept and kept[0].width == pytest.approx(2 * W)
    calls = []
    r.settle_backs = lambda image, pieces: calls.append(len(pieces)) or pieces[:1]
    assert r.settle_again(img, far + [own], [own]) == far + [own] and calls == []
def test_snap_card_does_not_depend_on_what_was_drawn_before():
    """The patterned table's colours (k-means on the window's ring) start from a seeded
    draw: the same window gives the same card whatever OpenCV's generator of this thread
    drew before (session 15: unseeded, the same photo read twice in one process gave
    different card backs). A noisy table of two squares: three colours split the noise, and
    where they split it depends on k-means' start (unseeded: 4 outlines over 12 states)."""
    from types import SimpleNamespace

    from vision.cards.read import snap_card

    img = _back_on_squares(True).astype(np.float64)
    img += np.random.default_rng(3).normal(0.0, 12.0, img.shape)  # sensor noise
    img = np.clip(img, 0, 255).astype(np.uint8)
    area = SimpleNamespace(settings=SimpleNamespace(px_per_mm=1.5, plane_px=100),
                           H_plane_to_img=np.eye(3))
    got = []
    for state in range(6):  # the thread's generator moved on by other draws before
        cv2.setRNGSeed(state)
        cv2.randu(np.zeros(state + 1, np.float32), 0, 1)
        c = snap_card(img, area, np.array([301.0, 309.0]), table_colours=(3,))
        assert c is not None
        got.append((*c[0], c[1]))
    assert len(set(got)) == 1, got


def test_kmeans_seeded_is_a_fresh_threads_kmeans():
    """`kmeans_seeded` gives what `cv2.kmeans` gives first on a new thread (OpenCV's
    generator in its starting state), after any draws of this thread."""
    import threading

    from vision.cards.read import kmeans_seeded

    x = (np.random.default_rng(5).random((300, 3)) * 100).astype(np.float32)
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 10, 1.0)
    fresh = {}
    t = threading.Thread(target=lambda: fresh.setdefault(
        "c", cv2.kmeans(x, 3, None, crit, 1, cv2.KMEANS_PP_CENTERS)[2]))
    t.start()
    t.join()
    for _ in range(3):
        cv2.kmeans(x, 3, None, crit, 1, cv2.KMEANS_PP_CENTERS)  # (moves the generator on)
        assert np.array_equal(kmeans_seeded(x, 3, crit, 1)[2], fresh["c"])


@pytest.mark.slow
def test_fan_edge_drops_a_drawing_read_beside_a_fans_card():
    """Committed 0023: the tamer's drawing 0.23 widths beside an elephant-2 whose pose is 9
    degrees off its own edges read as an elephant-5 (0.79), 0.112 across the posed top edge,
    0.142 across its own: kept as a fan's next card without `fan_edge`, not with it."""
    from dataclasses import replace

    from vision.cards.read import READ, CardReader
    from vision.image_io import load_photo

    image = load_photo("datasets/scenes/troetofanten/troetofanten-e1-s1-0023.jpg").image

    def extra(settings) -> bool:
        pieces, _ = CardReader(threads=1, settings=settings).read_pieces(image, "troetofanten")
        return any(p.label == "elephant-5" and np.hypot(*(p.center - (274, 1073))) < 20
                   for p in pieces)

    assert extra(replace(READ, fan_edge=False))
    assert not extra(READ)


def draw_ringed_back(img, centre, angle, width, colour, ring, outer, stroke) -> np.ndarray:
    """A face-down card of one colour with a ring of another across most of it (outer radius
    `outer` x the width, its stroke `stroke` x the width: edition 2's blue back with its
    yellow ring); returns its frame."""
    frame = card_frame(np.asarray(centre, float), angle, width, ASPECT)
    cv2.fillPoly(img, [np.round(frame).astype(np.int32)], colour)
    c = tuple(int(round(v)) for v in centre)
    cv2.circle(img, c, int(round((outer - stroke / 2) * width)), ring,
               max(1, int(round(stroke * width))))
    return frame


@pytest.mark.parametrize("stroke,reclose,want", [
    (0.1, 0.0, 2),  # a thin ring: the first closing (0.2 of a width) joins over it
    (0.1, None, 2),
    (0.2, 0.0, 0),  # a broad ring cuts the card's colour in parts no closing of 0.2 joins
    (0.2, None, 2),  # `design_reclose` (0.4) joins them: the card's region again
])
def test_design_regions_backs_with_a_ring_of_another_colour(stroke, reclose, want):
    """Edition 2's backs (fresh e2-2750 0014, session 21): a yellow ring reaching nearly to
    the card's sides cuts the blue of a back seen small into parts, none of a card's area;
    `design_regions` closes its colour once more over `design_reclose` x the narrowest
    card's width."""
    img = table(11)
    faces = [draw_face(img, (60 + 55 * k, 300), 0.0, W) for k in range(3)]
    wants = [((280.0, 110.0), 20.0), ((400.0, 240.0), 90.0)]
    for c, a in wants:
        draw_ringed_back(img, c, a, W, (130, 40, 20), (40, 190, 230), 0.45, stroke)
    s = READ if reclose is None else replace(READ, design_reclose=reclose)
    got = design_regions(img, np.array([fr.mean(axis=0) for fr in faces]), np.full(3, W), s)
    assert len(got) == want, [np.round(g[0]) for g in got]
    for c, _ in wants[:want]:
        assert min(np.hypot(*(g[0] - c)) for g in got) < 0.1 * W


def test_design_regions_reclose_keeps_the_first_cards():
    """The second closing adds cards only a card's width or more from those found before:
    two backs of a spread pile (found apart at the first closing, joined at the second) stay
    two cards, not three."""
    img = table(10)
    colour, stripe = DESIGNS[1]
    faces = [draw_face(img, (60 + 55 * k, 300), 0.0, W) for k in range(3)]
    t = np.deg2rad(15.0)
    u = np.array([np.cos(t), np.sin(t)])
    lower, upper = np.array([280.0, 130.0]), np.array([280.0, 130.0]) + 0.45 * W * u
    for c in (lower, upper):
        draw_back(img, c, 15.0, W, colour, stripe)
    base = design_regions(img, np.array([fr.mean(axis=0) for fr in faces]), np.full(3, W),
                          replace(READ, design_reclose=0.0))
    got = design_regions(img, np.array([fr.mean(axis=0) for fr in faces]), np.full(3, W))
    assert len(base) == 2
    assert [np.round(g[0]).tolist() for g in got] == [np.round(g[0]).tolist() for g in base]


SQUAT = READ.design_squat


@pytest.mark.parametrize("aspect,squat,beyond,found", [
    (ASPECT, SQUAT, False, True),  # seen from above (1.54 x as long as wide): a card either way
    (ASPECT, None, False, True),
    (1.15, SQUAT, False, True),  # a low camera foreshortens its length: a squat card
    (1.15, None, False, False),  # (without `design_squat`, as before session 25: none)
    (1.05, SQUAT, False, True),  # nearly square
    (1.15, SQUAT, True, False),  # a face-up card read just beyond its end: the end of a
    #   card under it, not a whole card (`end_backs`' part)
])
def test_design_regions_a_back_foreshortened_along_its_length(aspect, squat, beyond, found):
    """No back read: a back seen from a low camera is squarer than `look_shape` allows;
    filling its rectangle, with no card beyond either end, it is a card
    (`design_squat`)."""
    img = table(19)
    colour, stripe = DESIGNS[1]
    faces = [draw_face(img, (60 + 55 * k, 300), 0.0, W) for k in range(3)]
    c = np.array([300.0, 110.0])
    if beyond:  # (under the back's end: the back drawn over it)
        faces.append(draw_face(img, c + (0.0, 0.5 * aspect * W + 0.5 * W), 0.0, W))
    draw_back(img, c, 0.0, W, colour, stripe, aspect)
    s = replace(READ, design_squat=squat)
    got = design_regions(img, np.array([fr.mean(axis=0) for fr in faces]),
                         np.full(len(faces), W), s)
    assert any(np.hypot(*(g[0] - c)) < 0.15 * W for g in got) == found, \
        [np.round(g[0]) for g in got]


@pytest.mark.parametrize("diameter", [0.9, 1.0, 1.2])  # x the cards' width
def test_design_squat_leaves_a_round_token(diameter):
    """A round token of the backs' colour a card's width across is as square as a squat
    back, but fills under 0.95 of its rectangle (`design_squat`): no card."""
    img = table(20)
    colour, stripe = DESIGNS[1]
    faces = [draw_face(img, (60 + 55 * k, 300), 0.0, W) for k in range(3)]
    draw_back(img, (100, 100), 0.0, W, colour, stripe)  # (one back: the design's colours)
    c = (300, 120)
    cv2.circle(img, c, int(round(0.5 * diameter * W)), colour, -1)
    cv2.line(img, (c[0] - 8, c[1]), (c[0] + 8, c[1]), stripe, 3)  # (a design: `patterned`)
    got = design_regions(img, np.array([fr.mean(axis=0) for fr in faces]), np.full(3, W))
    assert not any(np.hypot(*(g[0] - c)) < 0.3 * W for g in got), \
        [np.round(g[0]) for g in got]
