"""Troetofanten: the animal's number read from its second corner index too (off by default).

Every elephant and tootophant carries its number twice: in the top-left corner, which the
reader reads (`CardReader.troeto_numbers`), and in the bottom-right one. Where the
bottom-right index shows (the top card of a pile or the last card of a row, a card alone
in the ring: no other card read lies over it, and it lies inside the photo), the same
index model can read it too and both readings are combined (`combine_numbers`), so that
one blurred corner no longer decides the number alone. The pose is found at the top-left
index; the card's right and bottom edges place the bottom-right crop
(`bottom_right_frame`).

Off (`CornerSettings.weight` 0): the index model, trained on top-left crops only, reads
the bottom-right ones worse (at the true outline 86 % against 98 %: the drawing reaches
into the crop; `python -m vision.cards.index_eval ... --corner br`) and misreads the same
blurred yellow digits the top-left crop does, so on fresh scenes the combination changed
nothing for the better (docs/cards.md). An index model trained on both corners could
switch it on (`CardReader.corner`).

The synthetic cards draw the bottom-right index upright; printed decks often turn it half
round: `CornerSettings.turns` says which (both: each read, the crop less like the model's
"none" votes). A crop that looks like no index (a card or a thumb over it that the pieces
read do not show) does not vote.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.cards.geometry import KeySpec, card_uv_point, crop_box, crop_card
from vision.cards.pieces import CardPiece

NUMBERED = ("elephant", "tootophant")


@dataclass(frozen=True)
class CornerSettings:
    weight: float = 0.0  # the bottom-right reading's log-probabilities count this x the
    #   top-left's (0: not read). Off: the index model, trained on top-left crops only,
    #   reads the bottom-right ones worse (the drawing reaches into them) and misreads the
    #   same blurred digits the top-left crop does (docs/cards.md, `tablescore evaluate`:
    #   1.0 / 0.5 on the committed scenes 16 -> 14 / 14 pieces wrong, on 7 fresh sets
    #   321 -> 326 / 325)
    max_none: float = 0.5  # a bottom-right crop the index model gives at least this P("none")
    #   does not vote (something lies over it)
    turns: tuple[float, ...] = (0.0,)  # how the bottom-right index is drawn: upright (0:
    #   the synthetic cards) and/or turned half round (180); each is read, the one less like
    #   "none" votes (both, on the synthetic cards: the turned crop of an upright digit
    #   sometimes wins and votes wrong)
    floor: float = 1e-4  # added to each number's probability before the logarithm (one
    #   reading's near-zero cannot veto the other's)
    edge_turns: tuple[float, ...] = tuple(np.arange(-9.0, 9.01, 1.5))  # degrees tried about
    #   the pose's directions for the card's right and bottom edges (`bottom_right_frame`)
    edge_span: tuple[float, float] = (0.75, 1.25)  # where the right (bottom) edge is looked
    #   for: this x the pose's width (height) from its top-left corner
    edge_steps: int = 21  # positions tried across that span
    edge_gap: float = 0.04  # x the width: the paper is looked for this far inside an edge,
    #   and its absence this far outside (beyond the card's printed border line)
    paper_tol: float = 40.0  # BGR distance from the card's paper colour that still is paper
    edge_min: float = 0.5  # an edge needs this share more paper inside than outside


CORNER = CornerSettings()


def bottom_right_spec(spec: KeySpec) -> KeySpec:
    """`spec`'s index box mirrored to the card's bottom-right corner, upright (the crop of a
    bottom-right index drawn the same way up as the top-left one)."""
    (u0, u1), (v0, v1) = spec.crop_u, spec.crop_v
    return replace(spec, crop_u=(1.0 - u1, 1.0 - u0), crop_v=(1.0 - v1, 1.0 - v0))


def _paper_share(image: np.ndarray, pts: np.ndarray, paper: np.ndarray, tol: float
                 ) -> np.ndarray:
    """Whether the photo's colour at each point (..., 2) lies within `tol` (BGR distance) of
    `paper` (3,), as 0.0 / 1.0 of the points' shape."""
    flat = pts.reshape(1, -1, 2).astype(np.float32)
    bgr = cv2.remap(image, flat[..., 0], flat[..., 1], cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE).reshape(*pts.shape[:-1], 3)
    return (np.linalg.norm(bgr.astype(np.float32) - paper, axis=-1) <= tol).astype(np.float32)


def _edge_scores(image: np.ndarray, paper: np.ndarray, tol: float, origin: np.ndarray,
                 across: np.ndarray, along: np.ndarray, offsets: np.ndarray,
                 run: tuple[float, float], gap: float) -> np.ndarray:
    """(T, O) how well each line origin + o x across[t] + r x along[t] (r in `run` px) is the
    card's edge: the share of its points with the card's paper `gap` px inside it (towards
    the origin) less the share with paper `gap` px outside. `across`, `along`: (T, 2) unit
    directions per turn, `offsets`: (O,) px."""
    r = np.linspace(run[0], run[1], 16)
    pts = (origin[None, None, None] + offsets[None, :, None, None] * across[:, None, None]
           + r[None, None, :, None] * along[:, None, None])  # (T, O, 16, 2)
    step = gap * across[:, None, None]
    inside = _paper_share(image, pts - step, paper, tol)
    outside = _paper_share(image, pts + step, paper, tol)
    return (inside - outside).mean(axis=2)


def _best_line(scores: np.ndarray, turns: np.ndarray, span: np.ndarray
               ) -> tuple[float, float]:
    """(turn, position) of the best line of `scores` ((T, O): `turns` radians x `span`
    positions): the mean over the lines that reach the top score (a sharp edge scores the
    same over a band of lines as wide as the paper test's gap; its first lies inside the
    card)."""
    rows, cols = np.nonzero(scores >= scores.max() - 1e-6)
    return float(turns[rows].mean()), float(span[cols].mean())


def card_paper(image: np.ndarray, frame: np.ndarray) -> np.ndarray:
    """(3,) float32 BGR: the median colour of a card's paper, along its top and left margins
    next to the top-left index (the part of a card read that shows)."""
    q = np.asarray(frame, float)
    uv = [(u, 0.07) for u in np.linspace(0.35, 0.9, 12)] + \
         [(0.07, v) for v in np.linspace(0.25, 0.6, 12)]
    pts = np.array([card_uv_point(q, u, v) for u, v in uv], np.float32).reshape(1, -1, 2)
    bgr = cv2.remap(image, pts[..., 0], pts[..., 1], cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE).reshape(-1, 3)
    return np.median(bgr.astype(np.float32), axis=0)


def bottom_right_frame(image: np.ndarray, frame: np.ndarray,
                       settings: CornerSettings = CORNER) -> np.ndarray | None:
    """The card `frame` ((4, 2) TL, TR, BR, BL) moved so that its bottom-right corner lies
    where the photo (`image`, BGR) shows the card's right and bottom edges, None where an
    edge is not clear (`edge_min`). The pose is found at the top-left index, and its width,
    aspect (a tilted camera foreshortens) and angle errors add up 1.4 widths away (median
    0.17 widths off at the bottom-right index on the committed scenes, where the index
    model reads well only within about 0.1). Each edge is the line, among `edge_turns`
    about the pose's direction (turned about the top-left corner) and `edge_steps`
    positions across `edge_span`, with the card's paper (`card_paper`, within
    `paper_tol`) inside it and none outside, along the part next to the bottom-right
    corner; the new frame keeps the pose's width and height, its bottom-right corner at
    the two lines' crossing and its sides along them."""
    s = settings
    q = np.asarray(frame, float)
    tl = q[0]
    ex, ey = q[1] - q[0], q[3] - q[0]
    w, h = float(np.hypot(*ex)), float(np.hypot(*ey))
    if w < 1 or h < 1:
        return None
    paper = card_paper(image, q)
    a0 = np.arctan2(ex[1], ex[0])
    b0 = np.arctan2(ey[1], ey[0])
    t = np.deg2rad(np.asarray(s.edge_turns, float))
    u_dir = np.stack([np.cos(a0 + t), np.sin(a0 + t)], axis=1)  # (T, 2)
    v_dir = np.stack([np.cos(b0 + t), np.sin(b0 + t)], axis=1)
    span = np.linspace(s.edge_span[0], s.edge_span[1], s.edge_steps)
    gap = max(1.0, s.edge_gap * w)
    # the right edge: across it along u, the line running along v near the bottom
    right = _edge_scores(image, paper, s.paper_tol, tl, u_dir, v_dir, span * w,
                         (0.45 * h, 0.9 * h), gap)
    bottom = _edge_scores(image, paper, s.paper_tol, tl, v_dir, u_dir, span * h,
                          (0.4 * w, 0.9 * w), gap)
    if right.max() < s.edge_min or bottom.max() < s.edge_min:
        return None
    tr, sr = _best_line(right, t, span)
    tb, sb = _best_line(bottom, t, span)
    d_r = np.array([np.cos(b0 + tr), np.sin(b0 + tr)])  # each line's direction and a point
    d_b = np.array([np.cos(a0 + tb), np.sin(a0 + tb)])
    p_r = tl + sr * w * np.array([np.cos(a0 + tr), np.sin(a0 + tr)])
    p_b = tl + sb * h * np.array([np.cos(b0 + tb), np.sin(b0 + tb)])
    m = np.column_stack([d_r, -d_b])
    if abs(np.linalg.det(m)) < 1e-6:
        return None
    k = np.linalg.solve(m, p_b - p_r)
    br = p_r + k[0] * d_r
    ux, vy = d_b * w, d_r * h
    return np.array([br - ux - vy, br - vy, br, br - ux])


def corner_visible(frame: np.ndarray, others: list[np.ndarray], spec: KeySpec,
                   shape: tuple[int, ...]) -> bool:
    """Whether a card's bottom-right index (`frame`: the card's (4, 2) corners TL, TR, BR, BL)
    can show: its whole crop box (`bottom_right_spec`) inside the photo (`shape`), and its
    centre on none of the `others` frames (the other cards read: which of two overlapping
    cards lies on top is unknown, so any one over that corner keeps it from voting)."""
    box = crop_box(frame, bottom_right_spec(spec))[0]
    h, w = shape[:2]
    if (box < -0.5).any() or (box[:, 0] > w - 0.5).any() or (box[:, 1] > h - 0.5).any():
        return False
    u, v = spec.key_uv
    p = card_uv_point(frame, 1.0 - u, 1.0 - v)
    pt = (float(p[0]), float(p[1]))
    return not any(cv2.pointPolygonTest(np.float32(q), pt, False) >= 0 for q in others)


def corner_crops(image: np.ndarray, frame: np.ndarray, spec: KeySpec, cs,
                 turns: tuple[float, ...]) -> list[np.ndarray]:
    """The bottom-right index's crops of the card `frame`, one per turn in `turns`: 0 the
    index upright (`bottom_right_spec`), 180 turned half round (the frame turned so that
    its bottom-right corner is the top-left one, read with `spec` itself)."""
    out = []
    for t in turns:
        if t == 0.0:
            out.append(crop_card(image, frame, bottom_right_spec(spec), cs))
        elif t == 180.0:
            out.append(crop_card(image, np.roll(np.asarray(frame, float), 2, axis=0), spec, cs))
        else:
            raise ValueError(f"corner turn {t}: 0 or 180")
    return out


def combine_numbers(first: dict[str, float], second: dict[str, float], weight: float,
                    floor: float) -> dict[str, float]:
    """Number -> probability from two readings of one card's number (each number ->
    probability, any scale): normalised, log(p + floor) summed with the second's x `weight`,
    normalised again (a softmax). Numbers missing from `second` count as 0 there."""
    nums = list(first)
    a = np.array([first[n] for n in nums], float)
    b = np.array([second.get(n, 0.0) for n in nums], float)
    a = a / max(a.sum(), 1e-12)
    b = b / max(b.sum(), 1e-12)
    s = np.log(a + floor) + weight * np.log(b + floor)
    e = np.exp(s - s.max())
    e /= e.sum()
    return dict(zip(nums, e.tolist(), strict=True))


def renumbered(piece: CardPiece, numbers: dict[str, float]) -> CardPiece:
    """`piece` (an animal) with its kind's numbers' probabilities replaced by `numbers`
    (number -> share of the kind, summing to 1): its kind's total probability stays, its
    label is the likeliest number, its confidence scales with that label's probability
    (the reader's confidence is the label's share of the game's labels x (1 - P(bg)))."""
    kind = piece.label.rsplit("-", 1)[0]
    probs = dict(piece.probs)
    total = sum(v for k, v in probs.items() if k.rsplit("-", 1)[0] == kind)
    for n, v in numbers.items():
        probs[f"{kind}-{n}"] = total * v
    label = f"{kind}-{max(numbers, key=numbers.get)}"
    old = piece.probs.get(piece.label, 0.0)
    conf = piece.confidence * probs[label] / old if old > 0 else piece.confidence
    return replace(piece, label=label, confidence=float(min(conf, 1.0)), probs=probs)


def read_second_corners(index, spec: KeySpec, cs, image: np.ndarray,
                        pieces: list[CardPiece], settings: CornerSettings = CORNER
                        ) -> list[CardPiece]:
    """Troetofanten `pieces` with each face-up animal whose bottom-right index shows
    (`corner_visible` against every other piece read) renumbered by both of its corner
    indices (`combine_numbers`): `index` is the corner-index model (`PieceClassifier`,
    classes "1".."5", "none"), `spec` / `cs` its crop box and settings. A bottom-right crop
    the model reads as "none" with `max_none` or more, or one whose edges are not clear
    (`bottom_right_frame`), leaves the piece as it was."""
    s = settings
    if index is None or not s.turns or s.weight <= 0:
        return pieces
    todo, frames = [], []
    for k, p in enumerate(pieces):
        if p.frame is None or not p.probs or p.label.rsplit("-", 1)[0] not in NUMBERED or \
                not corner_visible(p.frame, [q.frame for j, q in enumerate(pieces)
                                             if j != k and q.frame is not None],
                                   spec, image.shape):
            continue
        frame = bottom_right_frame(image, p.frame, s)
        if frame is not None:
            todo.append(k)
            frames.append(frame)
    if not todo:
        return pieces
    crops = [c for f in frames for c in corner_crops(image, f, spec, cs, s.turns)]
    probs = index.predict(np.stack(crops)).probs.reshape(len(todo), len(s.turns), -1)
    none = index.index("none")
    out = list(pieces)
    for k, pk in zip(todo, probs, strict=True):
        best = pk[int(np.argmin(pk[:, none]))]
        if best[none] >= s.max_none:
            continue
        p = pieces[k]
        kind = p.label.rsplit("-", 1)[0]
        first = {lab.rsplit("-", 1)[1]: v for lab, v in p.probs.items()
                 if lab.rsplit("-", 1)[0] == kind}
        second = {n: float(best[index.index(n)]) for n in first}
        out[k] = renumbered(p, combine_numbers(first, second, s.weight, s.floor))
    return out
