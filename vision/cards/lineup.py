"""Magic Rabbit: the line of piles from the classified tiles and doves.

The line runs from the magician tile outward: hats are ordered by their position along the
line's direction (the principal axis of the hat centres, pointing away from the magician;
without a magician tile, from the end the numbers ascend from: `inversions`).
Each rabbit goes to the hat it lies below (smallest offset along that hat's own u axis, on
its lower side); each dove to the hat it covers. Pure numpy on `CardPiece` records.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scoring.magic_rabbit import LINE_LENGTHS, inversions, label_number
from vision.cards.pieces import CardPiece


@dataclass(frozen=True)
class LineSettings:
    rabbit_across: float = 0.6  # a rabbit's offset along its hat's u axis, in tile widths
    rabbit_below: tuple[float, float] = (0.4, 2.2)  # its offset down the hat's v axis
    dove_reach: float = 0.75  # a dove within this many tile widths of a hat's centre
    row_across: float = 0.6  # a tile in the hats' row: its offset across the line, in widths


LINE = LineSettings()


def unique_assignment(logp: np.ndarray) -> list[int] | None:
    """The one-to-one choice of columns for the rows of `logp` ((n, m) log probabilities,
    n <= m <= 12) with the largest total, by dynamic programming over subsets of columns;
    None when n > m."""
    n, m = logp.shape
    if n > m:
        return None
    best = {0: (0.0, [])}
    for i in range(n):
        nxt: dict[int, tuple[float, list[int]]] = {}
        for used, (score, cols) in best.items():
            for j in range(m):
                if used >> j & 1:
                    continue
                key = used | (1 << j)
                val = score + float(logp[i, j])
                if key not in nxt or val > nxt[key][0]:
                    nxt[key] = (val, cols + [j])
        best = nxt
    return max(best.values(), key=lambda t: t[0])[1]


def number_probs(probs: dict) -> np.ndarray:
    """(9,) each number's probability over both kinds (`hat-n` + `rabbit-n`, n = 1..9). A
    hat's and a rabbit's number is the same frame colour, so a tile whose kind the classifier
    doubted (or the layout changed) keeps the number it was read with."""
    return np.array([probs.get(f"hat-{n}", 0.0) + probs.get(f"rabbit-{n}", 0.0)
                     for n in range(1, 10)])


def distinct_numbers(tiles: list[CardPiece], kind: str) -> tuple[list[CardPiece], list[str]]:
    """Each number has one hat and one rabbit: relabel the `kind` tiles ("hat"/"rabbit") with
    the most probable distinct numbers (`number_probs` of their classifier probabilities);
    warnings say which readings changed."""
    from dataclasses import replace

    if not tiles or any(not t.probs for t in tiles) or len(tiles) > 9:
        return tiles, []
    labels = [f"{kind}-{n}" for n in range(1, 10)]
    p = np.array([number_probs(t.probs) for t in tiles])
    choice = unique_assignment(np.log(np.maximum(p, 1e-6)))
    if choice is None:
        return tiles, []
    out, warnings = [], []
    for t, j in zip(tiles, choice, strict=True):
        if labels[j] != t.label:
            x, y = t.center
            warnings.append(f"the {t.label} at ({x:.0f}, {y:.0f}) is read as {labels[j]}: "
                            f"each number has one {kind}")
            t = replace(t, label=labels[j], confidence=min(t.confidence, 0.5))
        out.append(t)
    return out, warnings


def line_direction(hats: np.ndarray, magician: np.ndarray | None) -> np.ndarray:
    """Unit (2,) direction along the hats (principal axis), pointing away from the
    magician; without one, pointing to the right of the image."""
    c = hats - hats.mean(axis=0)
    if len(hats) >= 2:
        _, _, vt = np.linalg.svd(c, full_matrices=False)
        d = vt[0]
    else:
        d = np.array([1.0, 0.0])
    ref = hats.mean(axis=0) - magician if magician is not None else np.array([1.0, 0.0])
    return d if float(d @ ref) >= 0 else -d


def _offset(r: CardPiece, h: CardPiece) -> tuple[float, float]:
    """Where tile `r` lies in hat tile `h`'s own frame: (across, down) in `h`'s widths."""
    t = np.deg2rad(h.angle)
    u = np.array([np.cos(t), np.sin(t)])
    v = np.array([-np.sin(t), np.cos(t)])
    off = (r.center - h.center) / max(h.width, 1.0)
    return float(off @ u), float(off @ v)


def _below_at(across: float, down: float, s: LineSettings) -> bool:
    """Is an `_offset` (across, down) where a hat tile's rabbit lies?"""
    return abs(across) <= s.rabbit_across and s.rabbit_below[0] <= down <= s.rabbit_below[1]


def _below(r: CardPiece, h: CardPiece, s: LineSettings) -> bool:
    """Does tile `r` lie where the rabbit of hat tile `h` lies (below it in its own frame)?"""
    return _below_at(*_offset(r, h), s)


def settle_kinds(pieces: list[CardPiece], s: LineSettings = LINE
                 ) -> tuple[list[CardPiece], list[str]]:
    """Hats and rabbits told apart by the line's layout (the rules: each rabbit tile lies
    below its hat tile): a tile read as a hat that lies below another hat is a rabbit, a tile
    read as a rabbit that has a rabbit below it is a hat. The new label keeps the number the
    classifier finds likeliest over both kinds (`number_probs` of `CardPiece.probs`: the
    number is the frame's colour, whatever the kind); warnings say so."""
    from dataclasses import replace

    out = list(pieces)
    warnings: list[str] = []
    for i, p in enumerate(pieces):
        kind = p.label.split("-", 1)[0]
        if kind not in ("hat", "rabbit") or not p.probs:
            continue
        if kind == "hat":
            wrong = any(q is not p and q.label.startswith("hat-") and _below(p, q, s)
                        for q in pieces)
        else:
            wrong = any(q is not p and q.label.startswith("rabbit-") and _below(q, p, s)
                        for q in pieces)
        if not wrong:
            continue
        other = "rabbit" if kind == "hat" else "hat"
        label = f"{other}-{int(np.argmax(number_probs(p.probs))) + 1}"
        x, y = p.center
        warnings.append(f"the {p.label} at ({x:.0f}, {y:.0f}) is read as {label}: it lies "
                        f"{'below a hat' if kind == 'hat' else 'above a rabbit'}")
        out[i] = replace(p, label=label, confidence=min(p.confidence, 0.5))
    return out, warnings


def _no_gap(along: np.ndarray) -> bool:
    """Whether positions along the line are evenly spaced: as many as their span holds in
    median steps (a missed pile leaves a gap of two steps)."""
    a = np.sort(along)
    step = float(np.median(np.diff(a))) if len(a) > 1 else 0.0
    return step > 0 and round((a[-1] - a[0]) / step) + 1 == len(a)


def whole_line(along: np.ndarray) -> bool:
    """Whether hats at `along` make a whole line (9, 7 or 6 piles): as many, evenly spaced,
    or spanning as many places with a missed pile's gap counted (`line_places`; its
    smallest-gap step is thrown by a tile read between two piles, the count is not)."""
    return (len(along) in LINE_LENGTHS and _no_gap(along)) or \
        line_places(along) in LINE_LENGTHS


def line_places(along: np.ndarray, single: float = 1.5) -> int:
    """How many piles' places tiles at `along` (positions along the line) span, the missed
    piles' gaps counted: 1 + each gap in steps (the step: the median of the gaps under
    `single` times the smallest, the piles next to each other); 0 for a step of 0."""
    if len(along) < 2:
        return len(along)
    gaps = np.diff(np.sort(along))
    step = float(np.median(gaps[gaps <= single * gaps.min()]))
    return 1 + int(np.round(gaps / step).sum()) if step > 0 else 0


def settle_magician(pieces: list[CardPiece], s: LineSettings = LINE
                    ) -> tuple[list[CardPiece], list[str]]:
    """The magician tile told by the line's layout (the rules: it lies at one end of the
    line of hats, and every hat has its rabbit below; another copy's magician may show a
    hat, or read as a rabbit): a magician read below a hat is that hat's rabbit (its
    likeliest number over both kinds). Then, without a magician tile, it is
    - a hat at an end of the line with no tile below it, the other hats spanning a whole
      line (`whole_line`: 9, 7 or 6 piles evenly spaced, or their places with a missed
      pile's gap counted);
    - else (none such) a rabbit below no hat lying in the hats' row beyond its last hat;
    of two such, the one the classifier finds more like the magician. Warnings say so."""
    from dataclasses import replace

    out, warnings = list(pieces), []
    hats = [i for i, p in enumerate(out) if p.label.startswith("hat-")]
    for i, p in enumerate(out):
        if p.label == "magician" and p.probs and any(_below(p, out[h], s) for h in hats):
            label = f"rabbit-{int(np.argmax(number_probs(p.probs))) + 1}"
            x, y = p.center
            warnings.append(f"the magician at ({x:.0f}, {y:.0f}) is read as {label}: it lies "
                            "below a hat")
            out[i] = replace(p, label=label, confidence=min(p.confidence, 0.5))
    if any(p.label == "magician" for p in out) or len(hats) < 2:
        return out, warnings
    hc = np.array([out[i].center for i in hats])
    d = line_direction(hc, None)
    along = (hc - hc.mean(axis=0)) @ d
    width = float(np.median([out[i].width for i in hats]))
    cand: list[int] = []
    if len(hats) > min(LINE_LENGTHS):
        ends = [int(np.argmin(along)), int(np.argmax(along))]
        cand = [hats[e] for e in ends if whole_line(np.delete(along, e))
                and not any(q.label.startswith(("hat-", "rabbit-"))
                            and _below(q, out[hats[e]], s) for q in out)]
    if not cand:
        normal = np.array([-d[1], d[0]])
        for i, p in enumerate(out):
            if not p.label.startswith("rabbit-") or any(_below(p, out[h], s) for h in hats):
                continue
            a, b = (p.center - hc.mean(axis=0)) @ d, (p.center - hc.mean(axis=0)) @ normal
            if abs(b) <= s.row_across * width and \
                    (a > along.max() + 0.5 * width or a < along.min() - 0.5 * width):
                cand.append(i)
    if not cand:
        return out, warnings
    i = max(cand, key=lambda k: (out[k].probs or {}).get("magician", 0.0))
    p = out[i]
    x, y = p.center
    out[i] = replace(p, label="magician", confidence=min(p.confidence, 0.5))
    kind = p.label.split("-", 1)[0]
    why = "with no rabbit below it, one hat more than a line holds" if kind == "hat" else \
        "in the hats' row, below no hat"
    warnings.append(f"the {p.label} at ({x:.0f}, {y:.0f}) is read as the magician: it lies "
                    f"at an end of the line, {why}")
    return out, warnings


def distinct_kinds(pieces: list[CardPiece]) -> tuple[list[CardPiece], list[str]]:
    """All pieces, the hats and then the rabbits each relabelled with distinct numbers
    (`distinct_numbers`), then the rest, in their order; the hats' warnings, then the
    rabbits'. Run once per photo, before `read_line` (which takes the numbers as they are)."""
    hats, w1 = distinct_numbers([p for p in pieces if p.label.startswith("hat-")], "hat")
    rabbits, w2 = distinct_numbers([p for p in pieces if p.label.startswith("rabbit-")],
                                   "rabbit")
    rest = [p for p in pieces if not p.label.startswith(("hat-", "rabbit-"))]
    return hats + rabbits + rest, w1 + w2


def settle_numbers(pieces: list[CardPiece]) -> tuple[list[CardPiece], list[str]]:
    """All pieces: hats and rabbits told apart by the layout (`settle_kinds`), then each kind
    relabelled with distinct numbers (`distinct_kinds`); between the two, the least sure
    tiles past the game's count dropped (`magic.surplus_tiles`) and a magician read as a
    hat (`settle_magician`: its count of hats is the layout's)."""
    from vision.cards.magic import surplus_tiles

    pieces, w0 = settle_kinds(pieces)
    pieces = surplus_tiles(pieces)
    pieces, wm = settle_magician(pieces)
    pieces, w1 = distinct_kinds(pieces)
    return pieces, w0 + wm + w1


def read_line(pieces: list[CardPiece], s: LineSettings = LINE) -> tuple[dict, list[str]]:
    """(facts {"line": [{"hat", "rabbit", "dove"}], "won"}, warnings) of pieces whose numbers
    are settled (`distinct_kinds` or `settle_numbers` first)."""
    from scoring.magic_rabbit import Pile, check_line

    warnings: list[str] = []
    hats = [p for p in pieces if p.label.startswith("hat-")]
    rabbits = [p for p in pieces if p.label.startswith("rabbit-")]
    mags = [p for p in pieces if p.label == "magician"]
    doves = [p for p in pieces if p.label == "dove"]
    if not hats:
        return {"line": [], "won": False}, ["no hat tiles found"]
    hc = np.array([h.center for h in hats])
    mag = None
    if mags:
        mag = max(mags, key=lambda p: p.confidence).center
        if len(mags) > 1:
            warnings.append(f"{len(mags)} magician tiles seen; the game has one")
    d = line_direction(hc, mag)
    origin = mag if mag is not None else hc.mean(axis=0)
    order = np.argsort((hc - origin) @ d)
    hats = [hats[i] for i in order]
    line = [{"hat": label_number(h.label), "rabbit": None, "dove": False} for h in hats]
    # Rabbits: each to the hat it lies below, best pairs first, one rabbit per hat.
    pairs = []
    for j, r in enumerate(rabbits):
        for i, h in enumerate(hats):
            across, down = _offset(r, h)
            if _below_at(across, down, s):
                pairs.append((abs(across) + 0.1 * abs(down - 1.2), i, j))
    pairs.sort()
    used_h, used_r = set(), set()
    for _, i, j in pairs:
        if i in used_h or j in used_r:
            continue
        used_h.add(i)
        used_r.add(j)
        line[i]["rabbit"] = label_number(rabbits[j].label)
    for j, r in enumerate(rabbits):
        if j not in used_r:
            x, y = r.center
            warnings.append(f"the {r.label} at ({x:.0f}, {y:.0f}) lies below no hat")
    for dv in doves:
        dist = [float(np.hypot(*(dv.center - h.center))) / max(h.width, 1.0) for h in hats]
        i = int(np.argmin(dist))
        if dist[i] <= s.dove_reach:
            line[i]["dove"] = True
    if mag is None:  # which end is the magician's? the one the numbers ascend from
        back = line[::-1]
        if inversions(back) < inversions(line):
            line = back
            warnings.append("the magician tile was not found: the line is read from the end "
                            "its numbers ascend from (right to left)")
        else:
            warnings.append("the magician tile was not found: the line is read from the end "
                            "its numbers ascend from (left to right)")
    numbers = [p["hat"] for p in line]
    dup = sorted({n for n in numbers if numbers.count(n) > 1})
    if dup:
        warnings.append(f"hat number(s) {dup} seen more than once")
    rn = [p["rabbit"] for p in line if p["rabbit"] is not None]
    dup = sorted({n for n in rn if rn.count(n) > 1})
    if dup:
        warnings.append(f"rabbit number(s) {dup} seen more than once")
    if len(line) not in (9, 7, 6):
        warnings.append(f"{len(line)} hats seen; a line has 9 (or 7 or 6) piles")
    won = check_line(tuple(Pile(p["hat"], p["rabbit"], p["dove"]) for p in line)).won
    return {"line": line, "won": bool(won)}, warnings
