"""Magic Rabbit checks that hold for any copy of the game (untaught and taught alike; run
by `read.magic_any_copy`): a dove must look like one (`bare_hat_doves`), every tile lies in
the line (`off_line_tiles`); the warnings of the pieces they drop go with them
(`warnings_kept`)."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.cards.pieces import CardPiece


def piece_name(p: CardPiece) -> str:
    """How `read.py`'s warnings name a piece: `the <label> at (x, y)` (its centre, in
    whole pixels), as in "unsure about the dove at (412, 230) (confidence 0.31)"."""
    return f"the {p.label} at ({p.center[0]:.0f}, {p.center[1]:.0f})"


def warnings_kept(warnings: list[str] | None, pieces: list[CardPiece],
                  kept: list[CardPiece]) -> list[str] | None:
    """`warnings` less those naming a piece of `pieces` not in `kept` (a check dropped it:
    the user is not asked to check a piece the result does not have); a name a kept piece
    shares keeps its warnings."""
    if not warnings:
        return warnings
    names = {piece_name(p) for p in kept}
    kept_ids = {id(q) for q in kept}
    gone = {n for p in pieces if id(p) not in kept_ids
            if (n := piece_name(p)) not in names}
    return [w for w in warnings if not any(g in w for g in gone)]


@dataclass(frozen=True)
class DoveCheckSettings:
    """Magic Rabbit: a dove the detector reports must look like one. A dove is a white
    token on the hat; where the detector's dove heat lies on a bare hat, the disc at its key
    point shows the hat's black print. Measured on the photo's grey levels, relative to the
    hat's own paper (the light does not matter)."""

    radius: float = 0.2  # the disc looked at: this many dove widths around the key point
    dark: float = 0.5  # a pixel is dark under this share of the hat's paper (the 90th
    #                    percentile grey of the box of the nearest hat's width)
    max_dark: float = 0.15  # a dove whose disc is more dark than this is dropped (1: off)


DOVE_CHECK = DoveCheckSettings()


def bare_hat_doves(image: np.ndarray, pieces: list[CardPiece],
                   settings: DoveCheckSettings = DOVE_CHECK) -> list[CardPiece]:
    """The pieces less the doves whose disc (`radius` dove widths) is over `max_dark`
    dark: the hat's black print under a dove heat the detector put on a bare hat (rendered
    edition-2 scenes: true doves 0.00-0.01 dark, such false doves 0.33-0.96)."""
    hats = [p for p in pieces if p.label.startswith("hat-")]
    if not hats or not any(p.label == "dove" for p in pieces):
        return pieces
    h, w = image.shape[:2]

    def gray(y0, y1, x0, x1):  # (only the small windows: the whole photo costs ms)
        win = image[y0:y1, x0:x1]
        return cv2.cvtColor(win, cv2.COLOR_BGR2GRAY) if win.ndim == 3 and win.size else win

    out = []
    for p in pieces:
        if p.label != "dove":
            out.append(p)
            continue
        hat = min(hats, key=lambda q: float(np.hypot(*(q.center - p.center))))
        half = hat.width / 2
        x0, x1 = int(max(0, hat.center[0] - half)), int(min(w, hat.center[0] + half))
        y0, y1 = int(max(0, hat.center[1] - half)), int(min(h, hat.center[1] + half))
        paper = float(np.percentile(gray(y0, y1, x0, x1), 90)) if x1 > x0 and y1 > y0 \
            else 255.0
        r = max(2, int(round(settings.radius * p.width)))
        cx, cy = int(round(p.center[0])), int(round(p.center[1]))
        ya, yb, xa, xb = max(0, cy - r), min(h, cy + r + 1), max(0, cx - r), min(w, cx + r + 1)
        yy, xx = np.ogrid[ya:yb, xa:xb]
        patch = gray(ya, yb, xa, xb)
        vals = patch[(xx - cx) ** 2 + (yy - cy) ** 2 <= r * r] if patch.size else np.zeros(0)
        if len(vals) and float((vals < settings.dark * paper).mean()) > settings.max_dark:
            continue
        out.append(p)
    return out


OFF_LINE_REACH = 2.5  # a Magic Rabbit tile this many tile widths from every other tile of
#                       the line is not in it (see off_line_tiles)


def off_line_tiles(pieces: list[CardPiece]) -> list[CardPiece]:
    """Magic Rabbit: the pieces less the hat and rabbit tiles lying over `OFF_LINE_REACH`
    tile widths from every other hat or rabbit tile: every tile lies in the line (hats side by
    side, each rabbit just below its hat), so a lone one is the table's artwork read as a tile."""
    tiles = [p for p in pieces if p.label.startswith(("hat-", "rabbit-"))]
    if len(tiles) < 3:
        return pieces
    c = np.array([p.center for p in tiles], np.float64)
    w = np.array([max(p.width, 1.0) for p in tiles])
    d = np.hypot(*(c[:, None] - c[None]).transpose(2, 0, 1)) / w[:, None]
    np.fill_diagonal(d, np.inf)
    lone = {id(p) for p, near in zip(tiles, d.min(axis=1), strict=True) if near > OFF_LINE_REACH}
    return [p for p in pieces if id(p) not in lone]


@dataclass(frozen=True)
class EndTileSettings:
    """Magic Rabbit's magician at an end of the line (`magician_at_end`). Measured (session
    21, H10, `light_eval`'s seven lights of edition 2's committed scenes and fresh edition-2
    sets 2770 / 2771): 27 of the 57 + 86 errors' magicians had a posed key point the
    classifier read as no piece (another copy's magician; P(background) 0.4 there)."""
    min_hats: int = 5  # a line of hats to extend: at least this many hats read
    beyond: tuple[float, float] = (0.7, 1.2)  # the tile's offset past the end hat, in the
    #   step between that hat and its neighbour (the magician lies one step on, as a pile
    #   would; the step there, as perspective shrinks a far end's): true magicians 0.92-1.14,
    #   a key point on a tile's edge 1.26 and 1.40 (e2 glare 0006, e1 harsh 0028)
    clear: float = 0.6  # no piece read within this many tile widths of it
    confidence: float = 0.35  # the piece's confidence (warned about)


END_TILE = EndTileSettings()


def magician_at_end(pieces: list[CardPiece], unread: list[CardPiece],
                    s: EndTileSettings = END_TILE) -> tuple[list[CardPiece], list[str]]:
    """Magic Rabbit: (pieces, warnings) with the magician found by the layout where none is
    read: of `unread` (posed tiles the classifier read as no piece: another copy's artwork
    it never saw), the one lying in the hats' row (`lineup.LineSettings.row_across`) one
    step past an end hat (`s.beyond`) with no piece near (`s.clear`) becomes the
    magician, confidence `s.confidence`, with a warning (the rules: the magician tile lies
    at one end of the line).
    Nothing where a magician is read, fewer than `s.min_hats` hats are, an end hat has no
    tile below it (the magician read as a hat: `lineup.settle_magician` tells it), tiles
    lie past both ends (which end is unknown) or the hats' numbers do not ascend from its
    end (fewer pairs out of order, `scoring.magic_rabbit.inversions`: the end the line is
    read from without a magician, so the facts stay as they were). Only positions and the
    hats' numbers are used: no colour or drawing."""
    if not unread or any(p.label == "magician" for p in pieces):
        return pieces, []
    hats = [p for p in pieces if p.label.startswith("hat-")]
    if len(hats) < s.min_hats:
        return pieces, []
    from vision.cards.lineup import LINE, _below, line_direction

    hc = np.array([h.center for h in hats], np.float64)
    mid = hc.mean(axis=0)
    d = line_direction(hc, None)  # (either way along: the ends' tests are symmetric)
    normal = np.array([-d[1], d[0]])
    along = np.sort((hc - mid) @ d)
    step = float(np.median(np.diff(along)))
    width = float(np.median([h.width for h in hats]))
    if step <= 0 or width <= 0:
        return pieces, []
    ends = [hats[int(np.argmin((hc - mid) @ d))], hats[int(np.argmax((hc - mid) @ d))]]
    if not all(any(_below(p, e, LINE) for p in pieces if p.label.startswith(("hat-", "rabbit-"))
                   and p is not e) for e in ends):
        return pieces, []  # (an end hat with no tile below: perhaps the magician read as a
        #   hat, `lineup.settle_magician`'s)
    found: list[tuple[int, CardPiece]] = []
    for q in unread:
        a, b = (np.asarray(q.center, np.float64) - mid) @ d, \
            (np.asarray(q.center, np.float64) - mid) @ normal
        past = (a - along[-1]) / max(along[-1] - along[-2], 1e-6) if a > along[-1] else \
            (along[0] - a) / max(along[1] - along[0], 1e-6)
        if abs(b) > LINE.row_across * width or not s.beyond[0] <= past <= s.beyond[1]:
            continue
        if any(np.hypot(*(np.asarray(q.center) - p.center)) < s.clear * width
               for p in pieces):
            continue
        found.append((1 if a > along[-1] else -1, q))
    if not found or len({e for e, _ in found}) > 1:
        return pieces, []
    from scoring.magic_rabbit import inversions

    order = np.argsort((hc - mid) @ d)
    line = [{"hat": int(hats[k].label.rsplit("-", 1)[1]), "rabbit": None} for k in order]
    up, down = inversions(line), inversions(line[::-1])
    if (up >= down) if found[0][0] < 0 else (down >= up):
        return pieces, []  # (the line's numbers do not ascend from that end: a tile there
        #   is the table's, or it would turn the line round)
    q = found[0][1]
    from dataclasses import replace

    x, y = q.center
    return pieces + [replace(q, label="magician", confidence=s.confidence)], [
        f"the tile at ({x:.0f}, {y:.0f}) is read as the magician: it lies at an end of the "
        "line of hats, where no piece was read; check it"]
