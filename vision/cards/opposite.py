"""Troetofanten: a second, independent look at an unsure animal's number, the index in the
card's OPPOSITE (bottom-right) corner, as a person checks a playing card (issue 6, session
27). Only where the top-left index is unsure, only where that corner lies on no other card
read, and only where the photo's own sure cards show which way that index is printed.

The reader's pose is made for the top-left corner; 1.5 card heights away at the opposite
corner a few degrees or a tenth of the width off move the box off the digit, so that
corner is read at a small grid of poses about the card's own edges' angle (`turns` x
`scales`) and the crops most like an index (least "none") speak. Which way the opposite
index is printed (upright like the top-left one, as this copy's renders, or turned half a
turn, as most playing cards) is not assumed: the photo's surest animals' opposite corners
are read both ways and the way that reads their own numbers is taken (`upright` None); an
index read upside down is often read as a sure wrong digit, and a copy without an opposite
index reads neither way: then nothing is asked. The two readings are combined as
independent cues (P(n) proportional to the product); a changed number and a disagreement
the top-left number survives are both warned about (check the number)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from scoring.labels import TROETO_COUNTS
from vision.cards.geometry import SPECS, crop_cards, frame_from_pose
from vision.cards.pieces import CardPiece


@dataclass(frozen=True)
class OppositeSettings:
    below: float = 0.8  # an animal whose number takes less than this share of its kind's
    #   probability has its opposite corner read: the numbers `number_doubt` warns about
    #   (session 27, committed + fresh e1-3320, e1-3321, e2-3322, the reader's final
    #   animals offline: 0.95 mended one card more for 3 x the crops)
    sure: float = 0.9  # the opposite corner counts where its best crop's number takes this
    #   share of the numbers (0.8 at 0.95 below: 2 right numbers of the committed photos
    #   turned wrong)
    none: float = 0.3  # and that crop's P(no index) is at most this
    agree: int = 1  # and the `agree` crops least like "none" read the same number
    turns: tuple[float, ...] = (-6.0, 0.0, 6.0)  # degrees about the card's own edges' angle
    #   (`read.edge_angles`) the opposite corner is cropped at
    scales: tuple[float, ...] = (0.92, 1.0, 1.08)  # x the read width (the reader's widths
    #   are x0.86-1.11 of the true ones, 10th-90th percentile; at the reader's own pose alone
    #   the opposite corner read right 74 % of the uncovered animals, at the true outline
    #   93 %, at the best of a 5 x 5 grid's crops 96-99 % of those it named surely)
    upright: bool | None = None  # the copy's opposite index printed upright (True), turned
    #   half a turn (False), or learnt from each photo's sure cards (None)
    witnesses: int = 3  # sure animals (share at least `witness_share`, uncovered) whose
    #   opposite corners (at their own pose) decide the way it is printed: the way that
    #   reads at least one of their numbers, more than the other way does, and none wrong
    witness_share: float = 0.9
    witness_turns: tuple[float, ...] = (0.0,)
    witness_sure: float = 0.8  # a witness's crop names a number with this share


OPPOSITE = OppositeSettings()
NUMBERS = ("1", "2", "3", "4", "5")
MIRROR_UV = (0.83, 0.89)  # the opposite index's centre in card coordinates (the top-left
#   one's `key_uv` (0.17, 0.11) turned half a turn about the card's centre)


def _share(p: CardPiece, kind: str) -> np.ndarray:
    """(5,) P(number 1..5 | kind) of the piece's probabilities."""
    v = np.array([(p.probs or {}).get(f"{kind}-{n}", 0.0) for n in NUMBERS], float)
    return v / max(float(v.sum()), 1e-12)


def opposite_point(frame: np.ndarray) -> np.ndarray:
    """(2,) px: the opposite index's centre on the card `frame` ((4, 2) TL, TR, BR, BL)."""
    f = np.asarray(frame, float)
    return f[0] + MIRROR_UV[0] * (f[1] - f[0]) + MIRROR_UV[1] * (f[3] - f[0])


def opposite_frames(key, angle: float, width: float, turns, scales) -> list[np.ndarray]:
    """The card frames turned half a turn (BR, BL, TL, TR) at each pose of the grid about
    (`key`, `angle`, `width`): the index model's box on such a frame is the opposite
    corner, seen as the top-left one is (the card's edges above and left of it)."""
    spec = SPECS["troetofanten"]
    return [frame_from_pose(key, float(angle + da), float(width * ws), spec)[[2, 3, 0, 1]]
            for da in turns for ws in scales]


def visible(point: np.ndarray, own: CardPiece, pieces: list[CardPiece],
            shape: tuple[int, ...], margin: float = 2.0) -> bool:
    """Whether the opposite index at `point` lies in the photo (`margin` px in from its
    edges) and on no other card read (in a fan or a pile the next card covers it)."""
    h, w = shape[:2]
    x, y = float(point[0]), float(point[1])
    if not (margin <= x < w - margin and margin <= y < h - margin):
        return False
    return not any(q is not own and q.frame is not None and cv2.pointPolygonTest(
        np.asarray(q.frame, np.float32), (x, y), False) >= 0 for q in pieces)


def best_number(probs: np.ndarray, cols: list[int], none_col: int, none_max: float,
                least: float, agree: int = 1) -> tuple[int | None, np.ndarray | None]:
    """(index 0..4 of the number read, its (5,) shares averaged over the `agree` crops
    least like "none") of one card's opposite-corner crops (`probs` (G, C)), or (None,
    None) where the best crop is "none" over `none_max`, the `agree` crops name different
    numbers, or the best one's share is under `least`."""
    order = np.argsort(probs[:, none_col], kind="stable")[:max(1, agree)]
    if probs[order[0], none_col] > none_max:
        return None, None
    q = probs[np.ix_(order, cols)]
    q = q / np.maximum(q.sum(axis=1, keepdims=True), 1e-12)
    tops = q.argmax(axis=1)
    if len(set(tops.tolist())) > 1 or q[0].max() < least:
        return None, None
    return int(tops[0]), q.mean(axis=0)


def opposite_numbers(reader, image: np.ndarray, pieces: list[CardPiece],
                     s: OppositeSettings = OPPOSITE
                     ) -> tuple[list[CardPiece], list[str], list[CardPiece]]:
    """`pieces` with each unsure animal's number read again at its opposite corner (module
    doc), the warnings for the numbers changed or disputed, and those pieces (their
    warning says to check the number: `piece_warnings` adds no second one)."""
    from vision.cards.read import TROETO_NUMBERED, edge_angles, model_crop_settings, number_source

    index = getattr(reader, "index", None)
    if index is None or s.below <= 0 or not pieces:
        return pieces, [], []
    animals = []  # (position, piece, kind, shares)
    for k, p in enumerate(pieces):
        kind = p.label.rpartition("-")[0]
        if kind in TROETO_NUMBERED and p.frame is not None and p.probs and not p.faint:
            animals.append((k, p, kind, _share(p, kind)))
    seen: dict[int, bool] = {}

    def uncovered(a) -> bool:
        if a[0] not in seen:
            seen[a[0]] = visible(opposite_point(a[1].frame), a[1], pieces, image.shape)
        return seen[a[0]]

    asked = [a for a in animals if a[3].max() < s.below and uncovered(a)]
    if not asked:
        return pieces, [], []
    cols = [index.index(n) for n in NUMBERS]
    none_col = index.index("none")
    cs = model_crop_settings(index)
    src = number_source(image)

    def turned_angles(group) -> np.ndarray:
        """The cards' own edges' angles (`edge_angles`, on the grey of the part of the photo
        around their corners only: a whole photo's grey costs more than the rest)."""
        xy = np.array([p.key for _, p, _, _ in group], float)
        widths = np.array([p.width for _, p, _, _ in group], float)
        h, w = image.shape[:2]
        reach = 2.0 * float(widths.max())
        x0, y0 = (max(int(v), 0) for v in xy.min(axis=0) - reach)
        x1, y1 = int(min(xy[:, 0].max() + reach, w)), int(min(xy[:, 1].max() + reach, h))
        gray = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
        return edge_angles(gray, xy - [x0, y0], np.array([p.angle for _, p, _, _ in group],
                                                          float), widths, reader.settings)

    def read(frames: list[np.ndarray], ways: tuple[bool, ...]) -> list[np.ndarray]:
        """P(index) of the crops at `frames` read each way (one batch): upright, the crop
        turned back half a turn (a digit printed upright reads upright), or as cut."""
        crops = crop_cards(src, frames, reader.index_spec, cs)
        both = np.concatenate([crops[:, ::-1, ::-1] if way else crops for way in ways])
        probs = index.predict(np.ascontiguousarray(both)).probs
        return np.split(probs, len(ways))

    upright = s.upright
    if upright is None:
        wit = []
        for a in sorted((a for a in animals if a[3].max() >= s.witness_share),
                        key=lambda a: -a[1].confidence):
            if len(wit) < s.witnesses and uncovered(a):
                wit.append(a)
        if not wit:
            return pieces, [], []
        g = len(s.witness_turns)
        frames = [f for (_, p, _, _), a in zip(wit, turned_angles(wit), strict=True)
                  for f in opposite_frames(p.key, a, p.width, s.witness_turns, (1.0,))]
        votes = {}
        for way, pr in zip((True, False), read(frames, (True, False)), strict=True):
            right = wrong = 0
            for j, (_, _, _, sh) in enumerate(wit):
                n, _ = best_number(pr[j * g:(j + 1) * g], cols, none_col, s.none,
                                   s.witness_sure)
                if n is not None:
                    right += n == int(sh.argmax())
                    wrong += n != int(sh.argmax())
            votes[way] = (right, wrong)
        (ur, uw), (tr, tw) = votes[True], votes[False]
        if ur >= 1 and ur > tr and uw == 0:
            upright = True
        elif tr >= 1 and tr > ur and tw == 0:
            upright = False
        else:
            return pieces, [], []
    g = len(s.turns) * len(s.scales)
    frames = [f for (_, p, _, _), a in zip(asked, turned_angles(asked), strict=True)
              for f in opposite_frames(p.key, a, p.width, s.turns, s.scales)]
    pr = read(frames, (upright,))[0]
    out = list(pieces)
    warnings: list[str] = []
    marked: list[CardPiece] = []
    for j, (k, p, kind, sh) in enumerate(asked):
        n, q = best_number(pr[j * g:(j + 1) * g], cols, none_col, s.none, s.sure, s.agree)
        if n is None:
            continue
        now = int(sh.argmax())
        both = sh * q
        new = int(both.argmax())
        if n == now:
            continue
        x, y = p.center
        room = TROETO_COUNTS.get(f"{kind}-{NUMBERS[new]}", 0) > sum(
            o.label == f"{kind}-{NUMBERS[new]}" for o in out)  # (a box's count, `box_limits`)
        if new != now and room:
            pk = sum((p.probs or {}).get(f"{kind}-{m}", 0.0) for m in NUMBERS)
            probs = dict(p.probs or {})
            both = both / max(float(both.sum()), 1e-12)
            for m, v in zip(NUMBERS, both, strict=True):
                probs[f"{kind}-{m}"] = float(pk * v)
            out[k] = replace(p, label=f"{kind}-{NUMBERS[new]}", probs=probs)
            warnings.append(f"the {kind} at ({x:.0f}, {y:.0f}): its corner numbers differ, "
                            f"{NUMBERS[now]} at the top left ({sh[now]:.2f}), {NUMBERS[n]} at "
                            f"the opposite corner ({q[n]:.2f}); counted as {NUMBERS[new]}, "
                            "the points do not change, check the number")
        else:  # (the top-left number stands: the two corners disagree, a warning)
            warnings.append(f"the {kind} at ({x:.0f}, {y:.0f}): its corner numbers differ, "
                            f"{NUMBERS[now]} at the top left ({sh[now]:.2f}), {NUMBERS[n]} at "
                            f"the opposite corner ({q[n]:.2f}); counted as {NUMBERS[now]}, "
                            "the points do not change, check the number")
        marked.append(out[k])
    return out, warnings, marked
