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
class BandSettings:
    """Magic Rabbit: every tile lies in the line's band (`off_band_tiles`). The hats lie in
    one straight row (a straight row on the table stays straight in a photo), each rabbit
    just below its hat: two parallel rows, the magician at an end. A printed cloth or a
    newspaper under the line reads as tiles all over the photo, in clusters that
    `off_line_tiles` keeps. Measured (session 25, the tiles `read_pieces` posed, matched to
    the truth): true tiles of the default draw, edition 2, the committed photos and the
    printed cloth / newspaper lie -0.25 to 1.9 widths from the row found; of the busy
    tables' false tiles, 157 of 178 lie off the band."""

    sure: float = 0.8  # the tiles that place the rows: read with this confidence or more
    min_sure: int = 4  # fewer sure tiles than this: no band (nothing dropped)
    min_tiles: int = 6  # fewer tiles (hats, rabbits, magician) than this: nothing dropped
    seeds: int = 30  # rows are tried through pairs of the surest this many (the time: a
    #   busy look poses up to 150 key points, `busy_line`)
    base: float = 2.0  # a row is tried through two sure tiles at least this many widths
    #   apart (a short base tilts it)
    row: float = 0.5  # a row's reach across, in widths, when scoring it (each tile weighs
    #   its confidence x (1 - (offset / row)^2): a row through the tiles' centres wins)
    other: tuple[float, float] = (0.8, 2.6)  # the other row: this far across from the first
    reach: float = 0.7  # kept: the tiles between the two rows and up to this many widths
    #   past either (a rabbit laid 1.9 widths below its hat; the magician may lie between
    #   the rows). Measured on the posed tiles above: 0.4 lost no true tile; fresh print
    #   3120 / 3121 read 0.65 / 2.38 % at 0.7, 1.31 / 2.98 % at 0.8, 2.61 / 2.98 % at 1.0
    #   (a flower's tile a row above a hat, which turned that hat into a rabbit)
    gap: float = 3.0  # along the band, a gap over this many widths ends the line (a missed
    #   pile leaves about 2.4): of the runs it cuts, the surest (confidences summed) is kept


BAND = BandSettings()


def band_keep(centres: np.ndarray, conf: np.ndarray, widths: np.ndarray,
              s: BandSettings = BAND) -> np.ndarray | None:
    """(N,) bool: the tiles at (N, 2) `centres` (confidences `conf`, widths `widths`) that
    lie in the line's band, or None where too few tiles (`s.min_tiles`) or sure ones
    (`s.min_sure`) place it. The first row: the line through two sure tiles (`s.base`
    widths apart or more) that scores best with the other row (`s.other` across from it,
    wherever it scores best: hats and rabbits alike, the kinds are not trusted yet),
    refitted through its tiles (`s.row` across, their principal axis); kept: the tiles
    between the two rows or up to `s.reach` widths past either (without another row, up
    to `s.other[1]` + `s.reach` on either side), in the surest run along the band that no gap over
    `s.gap` widths cuts. Positions alone: no colour, drawing or label."""
    n = len(centres)
    sure = np.flatnonzero(conf >= s.sure)
    if n < s.min_tiles or len(sure) < s.min_sure:
        return None
    sure = sure[np.argsort(-conf[sure], kind="stable")][:s.seeds]
    c = np.asarray(centres, np.float64)
    w = max(float(np.median(widths[sure])), 1.0)
    ii, jj = np.triu_indices(len(sure), 1)
    ii, jj = sure[ii], sure[jj]
    d = c[jj] - c[ii]
    length = np.hypot(d[:, 0], d[:, 1])
    ok = length >= s.base * w
    if not ok.any():
        return None
    ii, d, length = ii[ok], d[ok], length[ok]
    normals = np.column_stack([-d[:, 1], d[:, 0]]) / length[:, None]
    b = np.einsum("pnk,pk->pn", c[None] - c[ii][:, None], normals) / w  # (P, N) across

    def weight(off: np.ndarray) -> np.ndarray:
        return conf * np.clip(1 - (off / s.row) ** 2, 0, None)

    score = weight(b).sum(axis=1)
    # the other row at each tile's offset in reach, scored alike: (P, N candidates, N)
    cand = (np.abs(b) >= s.other[0]) & (np.abs(b) <= s.other[1])
    other = np.where(cand, weight(b[:, None, :] - b[:, :, None]).sum(axis=2), 0.0)
    k = int(np.argmax(score + other.max(axis=1)))
    at = float(b[k, int(np.argmax(other[k]))]) if cand[k].any() else None
    origin, normal = c[ii[k]], normals[k]
    first = np.abs((c - origin) @ normal / w) <= s.row
    mid = c[first].mean(axis=0)
    _, _, vt = np.linalg.svd(c[first] - mid, full_matrices=False)
    along = vt[0] if first.sum() >= 2 else np.array([-normal[1], normal[0]])
    across = np.array([-along[1], along[0]])
    if across @ normal < 0:
        across = -across
    b = (c - mid) @ across / w
    if at is None:  # (one row found: its both sides, as far as the other row may lie)
        keep = np.abs(b) <= s.other[1] + s.reach
    else:  # (between the rows and `s.reach` past either)
        second = np.abs((c - origin) @ normal / w - at) <= s.row
        lo, hi = sorted((0.0, float(np.median(b[second]))))
        keep = (b >= lo - s.reach) & (b <= hi + s.reach)
    if not keep.any():
        return None
    a = (c - mid) @ along / w
    idx = np.flatnonzero(keep)
    idx = idx[np.argsort(a[idx])]
    runs, run = [], [idx[0]]
    for k in idx[1:]:
        if a[k] - a[run[-1]] > s.gap:
            runs.append(run)
            run = []
        run.append(k)
    runs.append(run)
    out = np.zeros(n, bool)
    out[max(runs, key=lambda r: float(conf[r].sum()))] = True
    return out


def off_band_tiles(pieces: list[CardPiece], s: BandSettings = BAND) -> list[CardPiece]:
    """Magic Rabbit: the pieces less the tiles (hats, rabbits, magician) off the line's band
    (`band_keep`) and the doves that then lie on no kept tile (a dove lies on a hat; the
    reader put each one on its nearest tile read as a hat, `lineup.LINE.dove_reach`)."""
    tiles = [p for p in pieces if p.label.startswith(("hat-", "rabbit-")) or
             p.label == "magician"]
    if len(tiles) < s.min_tiles:
        return pieces
    keep = band_keep(np.array([p.center for p in tiles], np.float64),
                     np.array([p.confidence for p in tiles], np.float64),
                     np.array([p.width for p in tiles], np.float64), s)
    if keep is None or keep.all():
        return pieces
    gone = {id(p) for p, k in zip(tiles, keep, strict=True) if not k}
    return lone_doves([p for p in pieces if id(p) not in gone])


@dataclass(frozen=True)
class EndSettings:
    """Magic Rabbit: the line's ends (`past_the_magician`). The rules lay one magician tile
    at one end of the line and 9 hats and 9 rabbits (`pieces.md`); a printed cloth reads
    as tiles beyond the magician, as more magicians, and as hats past the count."""

    magician_sure: float = 0.8  # the magician that ends the line: read with this or more
    past: float = 0.5  # a hat or rabbit over this many widths beyond it along the line is
    #   the table's
    share: float = 1 / 3  # ... unless more than this share of the tiles lie there (the
    #   magician then is no end: a tile misread as one in the line)
    hats: int = 9  # the game's hats (`surplus_tiles`), one more where no magician is read
    #   (a magician read as a hat: `lineup.settle_magician` tells it by the layout). Not
    #   for rabbits: on fresh mat 3120 0006 a false rabbit read at 0.92 between two true
    #   ones outranked the true rabbit 2 (the line lost its pair; without it, `read_line`
    #   pairs each hat with the rabbit best below it)


ENDS = EndSettings()


def past_the_magician(pieces: list[CardPiece], s: EndSettings = ENDS) -> list[CardPiece]:
    """Magic Rabbit: the pieces less what cannot be a tile of the line once its magician is
    read surely (`s.magician_sure`, the surest one): the other magicians (the game has one;
    one lying below a hat stays, `lineup.settle_magician` makes it that hat's rabbit), the
    hats and rabbits over `s.past` widths beyond it along the line (the line's principal
    axis; not where over `s.share` of them lie there); and the doves left on no tile
    (`lone_doves`). Positions, kinds and confidences only."""
    from vision.cards.lineup import LINE, _below

    tiles = [p for p in pieces if p.label.startswith(("hat-", "rabbit-"))]
    mags = [p for p in pieces if p.label == "magician"]
    gone: set[int] = set()
    sure = max(mags, key=lambda p: p.confidence) if mags else None
    if sure is not None and sure.confidence >= s.magician_sure and len(tiles) >= 3:
        hats = [p for p in tiles if p.label.startswith("hat-")]
        gone |= {id(m) for m in mags if m is not sure
                 and not any(_below(m, h, LINE) for h in hats)}
        c = np.array([p.center for p in tiles], np.float64)
        mid = np.median(c, axis=0)
        _, _, vt = np.linalg.svd(c - c.mean(axis=0), full_matrices=False)
        a = (c - mid) @ vt[0]
        am = float((np.asarray(sure.center) - mid) @ vt[0])
        width = max(float(np.median([p.width for p in tiles])), 1.0)
        beyond = np.sign(am) * (a - am) > s.past * width
        if beyond.sum() <= s.share * len(tiles):
            gone |= {id(p) for p, b in zip(tiles, beyond, strict=True) if b}
    return lone_doves([p for p in pieces if id(p) not in gone])


def surplus_tiles(pieces: list[CardPiece], s: EndSettings = ENDS) -> list[CardPiece]:
    """Magic Rabbit: the pieces less the least sure hats past the game's count (`s.hats`,
    one more where no magician is read), and the doves then on no tile (`lone_doves`). Run
    on settled kinds (`lineup.settle_numbers`, after `settle_kinds`: another copy's rabbits
    read as hats are rabbits by then)."""
    most = s.hats + (0 if any(p.label == "magician" for p in pieces) else 1)
    hats = sorted((p for p in pieces if p.label.startswith("hat-")), key=lambda p: -p.confidence)
    gone = {id(p) for p in hats[most:]}
    return lone_doves([p for p in pieces if id(p) not in gone]) if gone else pieces


def lone_doves(pieces: list[CardPiece]) -> list[CardPiece]:
    """The pieces less the doves on no hat or rabbit tile (within `lineup.LINE.dove_reach`
    of its widths): a dove lies on a hat; the reader put each one on its nearest tile read as
    a hat, which a check may have dropped since."""
    from vision.cards.lineup import LINE

    tiles = [p for p in pieces if p.label.startswith(("hat-", "rabbit-"))]

    def on_a_tile(d: CardPiece) -> bool:
        return any(np.hypot(*(d.center - q.center)) <= LINE.dove_reach * max(q.width, 1.0)
                   for q in tiles)

    return [p for p in pieces if p.label != "dove" or on_a_tile(p)]


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
