"""Magic Rabbit photographed from another side or with the phone held upright (issue 6).

The key-point detector and the tile classifier learnt upright tiles: the detector poses every
tile the photo's way up (`CardReader.refine_poses`: one direction for the line), so a photo
turned a quarter reads almost no tile and one turned half round reads the hats upside down,
with the rabbits above them. Where the photo as it is shows no proper line (too few hats with
the rabbit of their own number below them, `line_pairs`; or short of a whole line with
fewer doves on its hats than the rules lay, `proper_line`: another copy's artwork upside
down reads as the other kind, hats and rabbits swapped, pairs and all), the photo is read
turned (`cv2.rotate`: exact, no resampling) a quarter either way and half round, and the
reading with the most such pairs and doves on its hats together is kept (`line_signs`; the
first on a tie, the photo as it is first): a rule of the game's layout, not of the truth. Only the
turns the tiles read suggest are tried (`turns_to_try`: a line lying across the photo is
read half turned, one along it a quarter turned either way). The kept pieces and warnings
are mapped back to the photo's own pixels (`turned_back`). The photo as it is reads exactly
as before wherever its line is proper, and wherever no turn reads a better one (all 40
committed photos: the 200 committed photos' readings are the same).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.cards.lineup import LINE, _below, _offset
from vision.cards.pieces import CardPiece


@dataclass(frozen=True)
class TurnSettings:
    proper_pairs: int = 5  # a line with this many hats that have their own rabbit below is
    #   read as it is, no turn tried. The 40 committed photos as they are have 3-9 (e1 0028:
    #   3, 0027 and e2 0001: 4, each pays one more read), fresh 2860 4-9; turned a quarter
    #   0-1, half round 0-1 (e1) and 1-6 (e2, untaught: its artwork upside down reads as the
    #   other kind). 3: committed e2 turned half round 56.5 % piece error, 5: 36.7 %
    turns: tuple[str, ...] = ("cw", "ccw", "180")  # tried in this order (a phone held
    #   upright first)
    axis_tiles: int = 4  # hats and rabbits read as the photo is that tell the line's axis
    #   (`turns_to_try`)
    done_pairs: int = 9  # a turn with this many pairs (a whole line) is kept without trying
    #   the others
    level_min: float = 25.0  # degrees: a line whose axis (hats and rabbits read as the photo
    #   is) lies further than this from the photo's x axis is read again on a copy turned
    #   level (`level_read`; a phone held crooked). The generator's lines lie within 23
    #   degrees (truth: committed e1 -22..22, e2 -16..20, fresh 2940 -23..17), where the
    #   detector poses the tiles within about 10 degrees; the committed e1 turned 20 degrees
    #   (a 0.72 x copy) lie at up to 43 and are posed 15-38 degrees off (session 23, H4)
    least_doves: int = 2  # the rules lay 2-5 doves on the hats: a line with `proper_pairs`
    #   or more pairs (short of `done_pairs`) but fewer doves on its hats (the facts' line)
    #   is read turned as well. Committed e2 turned half round: its artwork upside down reads
    #   as the other kind (hats and rabbits swapped), 5-6 pairs and 0 doves on hats on two
    #   of its three such photos, fresh 2985 turned: 5-7 pairs, 0-1 doves on hats (2-3 on
    #   "rabbits"); e2 as it is: 2-5 on every photo, e1 0 on 3 photos with 5-8 pairs (no
    #   doves laid; they pay one more read) (session 23, H10)
    dove_on: float = 0.5  # a dove on a hat: its centre within this many of the hat's widths
    #   of the hat's centre along both axes (the tile's own square)
    level_tie: bool = True  # the level copy's reading is kept where it reads as many pairs
    #   as the photo as it is (the detector's own range), one or more
    dove_sign: bool = True  # a turn is kept where its pairs and doves on hats together
    #   (`line_signs`) are more than the reading before it; off: more pairs, then more doves
    #   on hats (session 23). Committed e2 turned cw / ccw / 180: 0001 read upside down (4
    #   pairs, no dove) over the right way up (3 pairs, 2 doves) (session 24, H5)
    proper_first: bool = True  # a turn that reads a proper line (`proper_line`) is kept
    #   over one that does not, whatever their `line_signs` (session 24, R1: upside down 5
    #   pairs, 5 doves on "hats" and 4 on "rabbits" outweighed the half turn's 7 pairs, 2
    #   doves)
    rabbit_doves: bool = True  # `proper_line` counts the doves on hats less those on tiles
    #   read as rabbits: fresh 3040 turned half round 0008 read upside down shows 5 pairs,
    #   9 "doves" (its white rabbit tiles upside down), 5 on hats and 4 on rabbits; every
    #   reading the right way up of committed e2 and fresh 3040 (turned or not) 0 on
    #   rabbits but two (an extra dove each) (session 24, H5)
    off_row: float = 0.5  # hat widths: a line whose hats do not lie in one row (a hat
    #   further than this off the others' row, `hats_off_row`) is read turned as well. Read
    #   the right way up, the 40 committed photos and fresh 3040 lie within 0.12 (e1 0026);
    #   committed e2 turned half round 0004 upside down 1.07 (its real hats 7 and 8 read as
    #   hats, in the row below the rabbits read as hats), other readings upside down
    #   0.00-1.24: half way to the rabbits' row (session 24, H5)
    level_max: float = 60.0  # degrees: a line further than this from the photo's x axis
    #   lies nearer its y axis and is left to the exact quarter turns (`cv2.rotate`): read
    #   first on a level copy turned 70-90 degrees (interpolated, a larger canvas) it lost
    #   pieces (committed e2 turned ccw 6.76 -> 18.84 %); a roll of 20 degrees leaves our
    #   lines within about 45 (the full-canvas rolled e1 at -20 lost at 45) (session 23, lead)


TURN = TurnSettings()
ROTATE = {"cw": cv2.ROTATE_90_CLOCKWISE, "ccw": cv2.ROTATE_90_COUNTERCLOCKWISE,
          "180": cv2.ROTATE_180}
SIDES = re.compile(r"\((left to right|right to left)\)")  # `lineup.read_line`'s end words
SIDE_WORDS = {"cw": {"left to right": "bottom to top", "right to left": "top to bottom"},
              "ccw": {"left to right": "top to bottom", "right to left": "bottom to top"},
              "180": {"left to right": "right to left", "right to left": "left to right"}}
TURN_WORDS = {"cw": "a quarter turn clockwise", "ccw": "a quarter turn anticlockwise",
              "180": "half a turn"}


def line_pairs(pieces: list[CardPiece]) -> int:
    """How many hat tiles have the rabbit tile of their own number below them
    (`lineup._below`, in the hat's own frame): the layout's sign that the line was read the
    right way up."""
    rabbits: dict[str, list[CardPiece]] = {}
    for p in pieces:
        if p.label.startswith("rabbit-"):
            rabbits.setdefault(p.label.split("-", 1)[1], []).append(p)
    return sum(any(_below(r, h, LINE) for r in rabbits.get(h.label.split("-", 1)[1], []))
               for h in pieces if h.label.startswith("hat-"))


def doves_on_hats(pieces: list[CardPiece], s: TurnSettings = TURN,
                  kind: str = "hat-") -> int:
    """How many doves lie on a tile read as a hat (`kind` "rabbit-": as a rabbit): the
    dove's centre within `s.dove_on` of the tile's widths from its centre along both of its
    axes (`lineup._offset`)."""
    tiles = [p for p in pieces if p.label.startswith(kind)]
    return sum(any(max(abs(o) for o in _offset(d, h)) <= s.dove_on for h in tiles)
               for d in pieces if d.label == "dove")


def proper_line(got, s: TurnSettings = TURN) -> bool:
    """Is the reading `got` = (pieces, facts, warnings) a proper line, read no other way:
    `s.done_pairs` pairs (`line_pairs`), or `s.proper_pairs` with `s.least_doves` doves on
    its hats (`doves_on_hats`, the rules' 2-5; a line read upside down, its kinds swapped,
    shows its pairs but its doves lie on the tiles read as rabbits or are not read), less
    the doves on tiles read as rabbits where `s.rabbit_doves` (the rules lay none there:
    upside down, a white rabbit tile reads as a dove as well), and its hats in one row
    (`hats_off_row` up to `s.off_row`)."""
    n = line_pairs(got[0])
    doves = doves_on_hats(got[0], s)
    if s.rabbit_doves:
        doves -= doves_on_hats(got[0], s, "rabbit-")
    return n >= s.done_pairs or (n >= s.proper_pairs and doves >= s.least_doves
                                 and hats_off_row(got[0], s) <= s.off_row)


def hats_off_row(pieces: list[CardPiece], s: TurnSettings = TURN) -> float:
    """How far the hat read furthest off the hats' row lies from it, in the hats' median
    widths: the hats' centres (image px) across the line's axis (`line_axis`: hats and
    rabbits), less their median (0.0 with fewer than `s.axis_tiles` hats, or no axis). The
    rules lay the hats in one row with each rabbit below: a hat a row below the others lies
    in the rabbits' row (a line read upside down, most kinds swapped but a few hats read
    right)."""
    hats = [p for p in pieces if p.label.startswith("hat-")]
    axis = line_axis(pieces, s)
    if len(hats) < s.axis_tiles or axis is None:
        return 0.0
    t = np.deg2rad(axis)
    off = np.array([h.center for h in hats], float) @ np.array([-np.sin(t), np.cos(t)])
    width = max(float(np.median([h.width for h in hats])), 1.0)
    return float(np.max(np.abs(off - np.median(off)))) / width


def line_signs(pieces: list[CardPiece], s: TurnSettings = TURN) -> tuple[int, ...]:
    """The signs that a reading is the right way up, compared as a tuple: its pairs
    (`line_pairs`) and its doves on hats (`doves_on_hats`), one each, summed (with
    `s.dove_sign` off: the pairs, then the doves). The reader keeps a dove only near a
    tile read as a hat (`CardReader.read_pieces`), so a reading upside down with the kinds
    swapped loses the doves that lie on the real hats (read as rabbits): committed edition
    2 0001 turned a quarter or half round reads 4 pairs and no dove upside down, 3 pairs
    and 2 doves on hats the right way up (session 24, H5)."""
    n, d = line_pairs(pieces), doves_on_hats(pieces, s)
    return (n + d,) if s.dove_sign else (n, d)


def turns_to_try(pieces: list[CardPiece], s: TurnSettings = TURN) -> tuple[str, ...]:
    """The turns worth reading, from the layout of the tiles read as the photo is: where
    `s.axis_tiles` or more hats and rabbits lie along the photo's x axis (their principal
    axis within 45 degrees of it) the line lies across the photo and only half a turn is
    tried; along its y axis the quarter turns; with fewer tiles, every turn in `s.turns`."""
    axis = line_axis(pieces, s)
    if axis is None:
        return s.turns
    across = abs(axis) <= 45.0
    return tuple(t for t in s.turns if (t == "180") == across)


def line_axis(pieces: list[CardPiece], s: TurnSettings = TURN) -> float | None:
    """Degrees in (-90, 90] of the principal axis of the hats' and rabbits' centres (image
    px, y down), None with fewer than `s.axis_tiles` of them."""
    xy = np.array([p.center for p in pieces if p.label.startswith(("hat-", "rabbit-"))])
    if len(xy) < s.axis_tiles:
        return None
    _, _, vt = np.linalg.svd(xy - xy.mean(axis=0), full_matrices=False)
    a = float(np.degrees(np.arctan2(vt[0][1], vt[0][0])))
    return float(-((-a + 90.0) % 180.0 - 90.0))


def level_copy(image: np.ndarray, axis_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """uint8 BGR `image` (H, W, 3) turned about its centre so that a line at `axis_deg`
    degrees (image px, y down) lies level, on a canvas that holds the whole photo (border
    replicated). Returns the copy and the (2, 3) float affine from `image`'s pixels to it."""
    h, w = image.shape[:2]
    M = cv2.getRotationMatrix2D(((w - 1) / 2.0, (h - 1) / 2.0), axis_deg, 1.0)
    c, s_ = abs(M[0, 0]), abs(M[0, 1])
    w2, h2 = int(np.ceil(w * c + h * s_)), int(np.ceil(w * s_ + h * c))
    M[:, 2] += ((w2 - w) / 2.0, (h2 - h) / 2.0)
    return cv2.warpAffine(image, M, (w2, h2), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE), M


def affine_back(pieces: list[CardPiece], warnings: list[str], M: np.ndarray,
                axis_deg: float) -> tuple[list[CardPiece], list[str]]:
    """Pieces and warnings read on `level_copy`'s copy (affine `M` (2, 3) from the photo to
    it) in the photo's pixels: key, frame, angle (+ `axis_deg`), the warnings' "at (x, y)"
    and the line's "(left to right)" end words (`level_side_words`)."""
    Minv = cv2.invertAffineTransform(M)

    def back(xy: np.ndarray) -> np.ndarray:
        return np.asarray(xy, float) @ Minv[:, :2].T + Minv[:, 2]

    def ang(a: float) -> float:
        return float(-((-(a + axis_deg) + 180.0) % 360.0 - 180.0))

    return mapped_back(pieces, warnings, back, ang, level_side_words(Minv))


def mapped_back(pieces: list[CardPiece], warnings: list[str], back, angle, words: dict
                ) -> tuple[list[CardPiece], list[str]]:
    """Pieces and warnings read on a turned copy of the photo, in the photo's pixels:
    `back` maps (..., 2) float points of the copy to the photo (each piece's key and frame,
    its corners kept in the tile's own order, and the warnings' "at (x, y)"), `angle` a
    piece's u-axis angle (degrees), `words` the line's "(left to right)" end words said of
    the copy (`SIDES`) to the photo's."""
    from vision.cards.read import AT_POSITION

    out = [replace(p, key=back(np.asarray(p.key, float)),
                   frame=None if p.frame is None else back(np.asarray(p.frame, float)),
                   angle=angle(p.angle)) for p in pieces]

    def at(m) -> str:
        x, y = back(np.array([float(m.group(1)), float(m.group(2))]))
        return f"at ({x:.0f}, {y:.0f})"

    return out, [SIDES.sub(lambda m: f"({words[m.group(1)]})", AT_POSITION.sub(at, w))
                 for w in warnings]


def level_side_words(Minv: np.ndarray) -> dict[str, str]:
    """The line's end words (`SIDES`) said of a level copy, in the photo's directions: the
    copy's x axis mapped back by the (2, 3) affine `Minv` (copy -> photo) lies mostly along
    the photo's x axis (the words kept, or swapped where it points left) or its y axis
    (top / bottom: a line slanted past 45 degrees)."""
    dx, dy = np.asarray(Minv, float)[:, 0]
    if abs(dy) > abs(dx):
        fwd, rev = ("top to bottom", "bottom to top") if dy > 0 else \
            ("bottom to top", "top to bottom")
    else:
        fwd, rev = ("left to right", "right to left") if dx > 0 else \
            ("right to left", "left to right")
    return {"left to right": fwd, "right to left": rev}


def level_read(read, image: np.ndarray, got, s: TurnSettings = TURN):
    """`got` = `read(image)`, or, where its line lies slanted `s.level_min` to
    `s.level_max` degrees (`line_axis`) and a copy turned level (`level_copy`) reads as many
    pairs (`line_pairs`; more where `s.level_tie` is off), at least one, that copy's
    reading in `image`'s pixels with a warning saying the turn.
    The detector poses tiles near the photo's own way up: a line slanted this far is posed
    off by up to 40 degrees and loses tiles."""
    axis = line_axis(got[0], s)
    if axis is None or not s.level_min < abs(axis) <= s.level_max:
        return got
    copy, M = level_copy(image, axis)
    pieces, facts, warnings = read(copy)
    n = line_pairs(pieces)
    if n == 0 or n < line_pairs(got[0]) + (0 if s.level_tie else 1):
        return got
    pieces, warnings = affine_back(pieces, warnings, M, axis)
    return pieces, facts, [f"the line was read with the photo turned {abs(axis):.0f} degrees "
                           f"{'anticlockwise' if axis > 0 else 'clockwise'} (it lies "
                           f"slanted)"] + warnings


def back_points(xy: np.ndarray, turn: str, shape: tuple[int, int]) -> np.ndarray:
    """(..., 2) float points of the photo turned by `turn` ("cw", "ccw", "180") mapped back
    to the photo of `shape` (H, W) as it is (pixel centres: `cv2.rotate`'s exact map)."""
    h, w = shape[:2]
    x, y = xy[..., 0], xy[..., 1]
    if turn == "cw":  # (x, y) -> (h - 1 - y, x) when turned
        out = (y, h - 1 - x)
    elif turn == "ccw":  # (x, y) -> (y, w - 1 - x)
        out = (w - 1 - y, x)
    elif turn == "180":
        out = (w - 1 - x, h - 1 - y)
    else:
        raise ValueError(f"unknown turn {turn!r}: one of {sorted(ROTATE)}")
    return np.stack(out, axis=-1).astype(float)


def back_angle(angle: float, turn: str) -> float:
    """A piece's u-axis angle (degrees) read on the turned photo, in the photo as it is,
    in (-180, 180]."""
    a = angle + {"cw": -90.0, "ccw": 90.0, "180": 180.0}[turn]
    return float(-((-a + 180.0) % 360.0 - 180.0))


def turned_back(pieces: list[CardPiece], warnings: list[str], turn: str,
                shape: tuple[int, int]) -> tuple[list[CardPiece], list[str]]:
    """Pieces and warnings read on the photo turned by `turn`, in the pixels of the photo
    of `shape` (H, W) as it is: key, frame (corners kept in the tile's own TL, TR, BR, BL
    order), angle; the warnings' "at (x, y)" positions and the line's "(left to right)" end
    words (`lineup.read_line`, said of the turned copy)."""
    return mapped_back(pieces, warnings, lambda xy: back_points(xy, turn, shape),
                       lambda a: back_angle(a, turn), SIDE_WORDS[turn])


def read_any_turn(read, image: np.ndarray, s: TurnSettings = TURN):
    """`read(image)` -> (pieces, facts, warnings) of uint8 BGR `image` (H, W, 3) as it is,
    or, where its line is not proper (`proper_line`: too few pairs, or short of a whole line
    with too few doves on its hats), of the turn
    of it that reads a proper line (where `s.proper_first`), else with the most pairs and
    doves on its hats together (`line_signs`; strictly more than those before it), mapped back
    to `image`'s pixels with a warning saying the turn."""
    best = level_read(read, image, read(image), s)
    if proper_line(best, s):
        return best
    n_best = (False, line_signs(best[0], s))
    turn_kept = None
    for turn in turns_to_try(best[0], s):
        got = read(cv2.rotate(image, ROTATE[turn]))
        n = (s.proper_first and proper_line(got, s), line_signs(got[0], s))
        if n > n_best:
            best, n_best, turn_kept = got, n, turn
            if line_pairs(got[0]) >= s.done_pairs:
                break
    if turn_kept is None:
        return best
    pieces, facts, warnings = best
    pieces, warnings = turned_back(pieces, warnings, turn_kept, image.shape)
    return pieces, facts, [f"the line was read with the photo turned {TURN_WORDS[turn_kept]} "
                           f"(the tiles lie that way up)"] + warnings
