"""Mauerhuepfer board model: the board is data (a JSON file), validated on load.

Coordinates are board millimetres: origin at the board's top-left corner, x to the right,
y downwards (as the board lies in front of the red player's seat in our default design).

Board JSON (schema ``tablescore/mauerhuepfer-board/1``), see docs/mauerhuepfer.md::

    {
      "schema": "tablescore/mauerhuepfer-board/1",
      "name": "default",
      "size_mm": [500, 500],            # board width, height
      "field_radius_mm": 13,            # round track fields
      "closed": false,                  # optional: true = the track is a loop
      "fields": [                       # ALL track fields, in order along the track
        {"id": "1", "x": 92.5, "y": 90,
         "jumps": [{"wall": 1, "number": 4, "to": "20"}]},   # optional wall pieces
        ...],
      "goal_fields": ["33", "34"],      # the goal fields Z (on the track)
      "walls": [{"id": 1, "line": [[x, y], [x, y], ...]}],  # polyline per wall
      "colours": {
        "red": {"start_field": "1",     # A: where pawns enter (counted as the first step)
                "start_area": {"center": [x, y], "radius": r, "slots": [[x, y] x 4]},  # B
                "goal_area": {"a": [x, y], "b": [x, y], "c": [x, y], "d": [x, y]}},
        ...}
    }

A jump ``{"wall": w, "number": n, "to": v}`` on field u says: a pawn standing on u may use a
die showing n to jump over wall w onto field v. The number is printed on the wall piece where
the straight line u -> v crosses the wall, on the side facing u (`Board.jump_marks`). A wall
piece readable from both sides is two jumps (one on each field, usually the same number).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from scoring.facts import require_bool, require_int, require_list, require_mapping
from scoring.labels import PAWN_COLOURS
from tablescore.errors import FactsError

SCHEMA = "tablescore/mauerhuepfer-board/1"
DEFAULT_BOARD_PATH = Path(__file__).resolve().parent.parent / "boards" / "default.json"

START = "B"  # position id: the pawn waits in its colour's start area B
GOAL_SLOTS = ("a", "b", "c", "d")  # position ids: the pawn is home, in that goal-area slot
GOAL = "goal"  # position id: the pawn is home, slot not known
RESERVED_IDS = (START, GOAL) + GOAL_SLOTS
DIE_FACES = range(1, 7)
MIN_LOOP_FIELDS = 13  # a loop must be longer than 12 so no roll comes back to its start

Point = tuple[float, float]


@dataclass(frozen=True)
class Jump:
    """A wall piece beside a field: with a die showing `number`, jump over `wall` to `to`."""

    number: int
    to: str
    wall: int | str


@dataclass(frozen=True)
class Field:
    id: str
    x: float
    y: float
    jumps: tuple[Jump, ...] = ()


@dataclass(frozen=True)
class Wall:
    id: int | str
    line: tuple[Point, ...]


@dataclass(frozen=True)
class ColourArea:
    """Where one colour starts and finishes: start field A, start area B, goal area a-d."""

    colour: str
    start_field: str
    start_center: Point
    start_radius: float
    start_slots: tuple[Point, ...]
    goal_slots: tuple[tuple[str, Point], ...]  # (("a", (x, y)), ... ("d", (x, y)))


@dataclass(frozen=True, eq=False)
class Board:
    """A validated board. `fields` are in track order; "forward" means towards the end of
    that list (higher index), "backward" towards its start."""

    name: str
    size_mm: tuple[float, float]
    field_radius_mm: float
    fields: tuple[Field, ...]
    goal_fields: tuple[str, ...]
    walls: tuple[Wall, ...]
    colours: tuple[ColourArea, ...]
    closed: bool = False
    _index: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "_index", {f.id: i for i, f in enumerate(self.fields)})

    # --- look-ups ---------------------------------------------------------------------
    def has_field(self, fid: str) -> bool:
        return fid in self._index

    def index(self, fid: str) -> int:
        return self._index[fid]

    def field(self, fid: str) -> Field:
        return self.fields[self._index[fid]]

    def area(self, colour: str) -> ColourArea | None:
        for a in self.colours:
            if a.colour == colour:
                return a
        return None

    def start_field(self, colour: str) -> str | None:
        a = self.area(colour)
        return a.start_field if a else None

    def walk(self, fid: str, direction: int, n: int) -> tuple[str, ...] | None:
        """The `n` fields passed moving `n` steps from `fid` (direction +1 forward, -1
        backward), the last one being where the pawn stops; None if the track ends first."""
        i = self._index[fid]
        out = []
        count = len(self.fields)
        for _ in range(n):
            i += direction
            if self.closed:
                i %= count
            elif not 0 <= i < count:
                return None
            out.append(self.fields[i].id)
        return tuple(out)

    def track_distance(self, a: str, b: str) -> int:
        """Fields between a and b along the track (walls ignored)."""
        d = abs(self._index[a] - self._index[b])
        return min(d, len(self.fields) - d) if self.closed else d

    def fields_to_goal(self, fid: str) -> int:
        return min(self.track_distance(fid, z) for z in self.goal_fields)

    def jump_marks(self) -> list[tuple[str, int, Point]]:
        """(field id, number, (x, y) mm) where each wall number is printed, for drawing."""
        walls = {w.id: w for w in self.walls}
        out = []
        for f in self.fields:
            for j in f.jumps:
                t = self.field(j.to)
                hit = _cross_point((f.x, f.y), (t.x, t.y), walls[j.wall].line)
                out.append((f.id, j.number, hit if hit else ((f.x + t.x) / 2, (f.y + t.y) / 2)))
        return out

    def place_at(self, x: float, y: float, colour: str, reach: float = 1.5) -> str | None:
        """The position id of a `colour` pawn seen at board millimetres (x, y): the nearest
        track field id, "B" inside that colour's start area, or its goal slot "a"-"d";
        None when nothing is within `reach` field radii (start area: its own radius)."""
        best, best_d = None, reach * self.field_radius_mm
        for f in self.fields:
            d = math.hypot(f.x - x, f.y - y)
            if d <= best_d:
                best, best_d = f.id, d
        a = self.area(colour)
        if a is not None:
            for s, (gx, gy) in a.goal_slots:
                d = math.hypot(gx - x, gy - y)
                if d <= best_d:
                    best, best_d = s, d
            if math.hypot(a.start_center[0] - x, a.start_center[1] - y) <= a.start_radius:
                if best is None or best_d > self.field_radius_mm:
                    best = START
        return best

    # --- transforms -------------------------------------------------------------------
    def reversed(self) -> Board:
        """The same board with the track direction reversed (forward <-> backward)."""
        return Board(
            self.name + " (reversed)", self.size_mm, self.field_radius_mm,
            tuple(reversed(self.fields)), self.goal_fields, self.walls, self.colours,
            self.closed,
        )

    def mirror_map(self) -> tuple[dict[str, str], dict[str, str]] | None:
        """If the board is symmetric under reversing the track (field i <-> field n-1-i with
        the same wall numbers, goal fields and start fields), return (field map, colour map);
        otherwise None."""
        n = len(self.fields)
        fmap = {self.fields[i].id: self.fields[n - 1 - i].id for i in range(n)}
        if {fmap[z] for z in self.goal_fields} != set(self.goal_fields):
            return None
        for f in self.fields:
            mine = {(fmap[j.to], j.number) for j in f.jumps}
            theirs = {(j.to, j.number) for j in self.field(fmap[f.id]).jumps}
            if mine != theirs:
                return None
        by_start = {a.start_field: a.colour for a in self.colours}
        if len(by_start) != len(self.colours):
            return None
        cmap = {}
        for a in self.colours:
            other = by_start.get(fmap[a.start_field])
            if other is None:
                return None
            cmap[a.colour] = other
        return fmap, cmap

    def to_dict(self) -> dict:
        return {
            "schema": SCHEMA,
            "name": self.name,
            "size_mm": list(self.size_mm),
            "field_radius_mm": self.field_radius_mm,
            "closed": self.closed,
            "fields": [
                {"id": f.id, "x": f.x, "y": f.y,
                 **({"jumps": [{"wall": j.wall, "number": j.number, "to": j.to}
                               for j in f.jumps]} if f.jumps else {})}
                for f in self.fields
            ],
            "goal_fields": list(self.goal_fields),
            "walls": [{"id": w.id, "line": [list(p) for p in w.line]} for w in self.walls],
            "colours": {
                a.colour: {
                    "start_field": a.start_field,
                    "start_area": {"center": list(a.start_center), "radius": a.start_radius,
                                   "slots": [list(p) for p in a.start_slots]},
                    "goal_area": {s: list(p) for s, p in a.goal_slots},
                }
                for a in self.colours
            },
        }


# --- geometry ---------------------------------------------------------------------------
def _segments_cross(p1: Point, p2: Point, q1: Point, q2: Point) -> Point | None:
    """Intersection point of segments p1p2 and q1q2 (touching counts), else None."""
    rx, ry = p2[0] - p1[0], p2[1] - p1[1]
    sx, sy = q2[0] - q1[0], q2[1] - q1[1]
    den = rx * sy - ry * sx
    if abs(den) < 1e-12:
        return None
    qpx, qpy = q1[0] - p1[0], q1[1] - p1[1]
    t = (qpx * sy - qpy * sx) / den
    u = (qpx * ry - qpy * rx) / den
    if -1e-9 <= t <= 1 + 1e-9 and -1e-9 <= u <= 1 + 1e-9:
        return (p1[0] + t * rx, p1[1] + t * ry)
    return None


def _cross_point(a: Point, b: Point, line: Sequence[Point]) -> Point | None:
    for q1, q2 in zip(line, line[1:], strict=False):
        hit = _segments_cross(a, b, q1, q2)
        if hit:
            return hit
    return None


# --- loading and validation -----------------------------------------------------------
def _num(obj: object, path: str, lo: float | None = None, hi: float | None = None) -> float:
    if isinstance(obj, bool) or not isinstance(obj, int | float) or not math.isfinite(obj):
        raise FactsError(f"expected a number (millimetres), got {obj!r}", path)
    if lo is not None and obj < lo:
        raise FactsError(f"must be at least {lo}, got {obj}", path)
    if hi is not None and obj > hi:
        raise FactsError(f"must be at most {hi}, got {obj}", path)
    return float(obj) if isinstance(obj, float) else obj


def _point(obj: object, path: str, size: tuple[float, float]) -> Point:
    pt = require_list(obj, path)
    if len(pt) != 2:
        raise FactsError(f"expected [x, y] in millimetres, got {obj!r}", path)
    return (_num(pt[0], f"{path}[0]", 0, size[0]), _num(pt[1], f"{path}[1]", 0, size[1]))


def _str_id(obj: object, path: str) -> str:
    if isinstance(obj, bool) or not isinstance(obj, str | int) or str(obj).strip() == "":
        raise FactsError(f"expected a field id (text), got {obj!r}", path)
    return str(obj)


def board_from_dict(raw: object, where: str = "board") -> Board:
    """Validate a board description (the JSON object) and build a `Board`.
    Raises `FactsError` whose path names the bad entry, e.g. ``board.fields[3].jumps[0].to``."""
    d = require_mapping(raw, where)
    known = {"schema", "name", "size_mm", "field_radius_mm", "closed", "fields", "goal_fields",
             "walls", "colours", "note"}
    for key in d:
        if key not in known:
            raise FactsError(f"unknown entry; a board has: {', '.join(sorted(known))}",
                             f"{where}.{key}")
    if "schema" in d and d["schema"] != SCHEMA:
        raise FactsError(f"unsupported schema {d['schema']!r}; expected {SCHEMA!r}",
                         f"{where}.schema")
    for key in ("size_mm", "fields", "goal_fields", "walls", "colours"):
        if key not in d:
            raise FactsError("missing (required)", f"{where}.{key}")
    name = d.get("name", "unnamed")
    if not isinstance(name, str):
        raise FactsError(f"expected text, got {name!r}", f"{where}.name")
    size_raw = require_list(d["size_mm"], f"{where}.size_mm")
    if len(size_raw) != 2:
        raise FactsError("expected [width, height] in millimetres", f"{where}.size_mm")
    size = (_num(size_raw[0], f"{where}.size_mm[0]", 1),
            _num(size_raw[1], f"{where}.size_mm[1]", 1))
    radius = _num(d.get("field_radius_mm", 12), f"{where}.field_radius_mm", 1)
    closed = require_bool(d.get("closed", False), f"{where}.closed")

    # walls
    walls: list[Wall] = []
    wall_ids: set = set()
    for i, w in enumerate(require_list(d["walls"], f"{where}.walls")):
        p = f"{where}.walls[{i}]"
        w = require_mapping(w, p)
        wid = w.get("id")
        if isinstance(wid, bool) or not isinstance(wid, int | str):
            raise FactsError(f"expected a wall id (number or text), got {wid!r}", f"{p}.id")
        if wid in wall_ids:
            raise FactsError(f"wall id {wid!r} is used twice", f"{p}.id")
        wall_ids.add(wid)
        pts = require_list(w.get("line"), f"{p}.line")
        if len(pts) < 2:
            raise FactsError("a wall line needs at least 2 points", f"{p}.line")
        walls.append(Wall(wid, tuple(_point(q, f"{p}.line[{k}]", size) for k, q in enumerate(pts))))

    # fields (first pass: ids and coordinates)
    raw_fields = require_list(d["fields"], f"{where}.fields")
    if len(raw_fields) < 2:
        raise FactsError("a track needs at least 2 fields", f"{where}.fields")
    if closed and len(raw_fields) < MIN_LOOP_FIELDS:
        raise FactsError(f"a closed track needs at least {MIN_LOOP_FIELDS} fields",
                         f"{where}.fields")
    ids: dict[str, int] = {}
    coords = []
    for i, f in enumerate(raw_fields):
        p = f"{where}.fields[{i}]"
        f = require_mapping(f, p)
        for key in f:
            if key not in ("id", "x", "y", "jumps", "note"):
                raise FactsError("unknown entry; a field has id, x, y, jumps", f"{p}.{key}")
        fid = _str_id(f.get("id"), f"{p}.id")
        if fid in RESERVED_IDS:
            raise FactsError(f"{fid!r} is reserved for start/goal areas; rename the field",
                             f"{p}.id")
        if fid in ids:
            raise FactsError(f"field id {fid!r} is used twice (also fields[{ids[fid]}])",
                             f"{p}.id")
        ids[fid] = i
        coords.append((_num(f.get("x"), f"{p}.x", 0, size[0]),
                       _num(f.get("y"), f"{p}.y", 0, size[1])))

    # jumps (second pass: they refer to other fields and walls)
    walls_by_id = {w.id: w for w in walls}
    fields = []
    for i, f in enumerate(raw_fields):
        p = f"{where}.fields[{i}]"
        fid = str(f["id"])
        jumps = []
        for k, j in enumerate(require_list(f.get("jumps", []), f"{p}.jumps")):
            jp = f"{p}.jumps[{k}]"
            j = require_mapping(j, jp)
            number = require_int(j.get("number"), f"{jp}.number", 1, 6)
            to = _str_id(j.get("to"), f"{jp}.to")
            if to not in ids:
                raise FactsError(f"no field with id {to!r} on this board", f"{jp}.to")
            if to == fid:
                raise FactsError("a wall jump must lead to another field", f"{jp}.to")
            wid = j.get("wall")
            if wid not in walls_by_id:
                raise FactsError(f"no wall with id {wid!r}; walls are "
                                 f"{', '.join(str(w) for w in walls_by_id) or 'none'}",
                                 f"{jp}.wall")
            if _cross_point(coords[i], coords[ids[to]], walls_by_id[wid].line) is None:
                raise FactsError(f"the line from field {fid!r} to field {to!r} does not cross "
                                 f"wall {wid!r}", jp)
            if any(x.to == to for x in jumps):
                raise FactsError(f"field {fid!r} already has a jump to {to!r}", jp)
            jumps.append(Jump(number, to, wid))
        fields.append(Field(fid, coords[i][0], coords[i][1], tuple(jumps)))

    goals_raw = require_list(d["goal_fields"], f"{where}.goal_fields")
    if not 1 <= len(goals_raw) <= 2:
        raise FactsError("expected the one or two goal fields Z", f"{where}.goal_fields")
    goals = []
    for k, z in enumerate(goals_raw):
        z = _str_id(z, f"{where}.goal_fields[{k}]")
        if z not in ids:
            raise FactsError(f"no field with id {z!r} on this board", f"{where}.goal_fields[{k}]")
        if z in goals:
            raise FactsError(f"goal field {z!r} listed twice", f"{where}.goal_fields[{k}]")
        goals.append(z)

    colours = []
    cols = require_mapping(d["colours"], f"{where}.colours")
    if not cols:
        raise FactsError("at least one colour needs a start field", f"{where}.colours")
    for colour, c in cols.items():
        p = f"{where}.colours.{colour}"
        if colour not in PAWN_COLOURS:
            raise FactsError(f"unknown colour; expected one of: {', '.join(PAWN_COLOURS)}", p)
        c = require_mapping(c, p)
        a = _str_id(c.get("start_field"), f"{p}.start_field")
        if a not in ids:
            raise FactsError(f"no field with id {a!r} on this board", f"{p}.start_field")
        sa = require_mapping(c.get("start_area"), f"{p}.start_area")
        center = _point(sa.get("center"), f"{p}.start_area.center", size)
        srad = _num(sa.get("radius"), f"{p}.start_area.radius", 1)
        slots_raw = require_list(sa.get("slots"), f"{p}.start_area.slots")
        if len(slots_raw) != 4:
            raise FactsError("expected 4 slot positions [x, y]", f"{p}.start_area.slots")
        slots = tuple(_point(q, f"{p}.start_area.slots[{k}]", size)
                      for k, q in enumerate(slots_raw))
        ga = require_mapping(c.get("goal_area"), f"{p}.goal_area")
        for key in ga:
            if key not in GOAL_SLOTS:
                raise FactsError("unknown goal slot; expected a, b, c, d", f"{p}.goal_area.{key}")
        for s in GOAL_SLOTS:
            if s not in ga:
                raise FactsError("missing goal slot position [x, y]", f"{p}.goal_area.{s}")
        goal_slots = tuple((s, _point(ga[s], f"{p}.goal_area.{s}", size)) for s in GOAL_SLOTS)
        colours.append(ColourArea(colour, a, center, srad, slots, goal_slots))

    return Board(name, size, radius, tuple(fields), tuple(goals), tuple(walls), tuple(colours),
                 closed)


def load_board(path: str | Path | None = None) -> Board:
    """Load and validate a board JSON file (default: the shipped ``scoring/boards/default.json``).
    A missing or unreadable file raises `BadInput`; a malformed one `FactsError` naming the
    bad entry (``board.fields[3].x: ...``)."""
    from tablescore.jsonfile import read_json_file

    p = Path(path) if path is not None else DEFAULT_BOARD_PATH
    return board_from_dict(read_json_file(p, "board", lambda msg: FactsError(msg, "board")))


def board_for(path: str | Path | None = None) -> Board:
    """`load_board(path)`, the same `Board` object again while the file is unchanged: a
    photo's reader and its scorer no longer parse the board file each (a few ms), and the
    field arrays, rows of fields and spots `vision.mauer` derives from a board are cached per
    object (`Board` compares by identity)."""
    p = Path(path) if path is not None else DEFAULT_BOARD_PATH
    try:
        st = p.stat()
    except OSError:  # load_board says what is wrong with it
        return load_board(path)
    return _board_cached(str(p.resolve()), st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=4)
def _board_cached(path: str, mtime_ns: int, size: int) -> Board:
    return load_board(path)


# --- builder: serpentine boards (the default board and the tests' small boards) ----------
@dataclass(frozen=True)
class SerpentineSettings:
    """Geometry of a serpentine track: `rows` rows of `cols` fields, row 0 at the top running
    left to right, the next row back right to left, ...; `turns[r]` extra fields in the bend
    between row r and r+1 (0 = the rows' end fields are neighbours). Millimetres."""

    rows: int
    cols: int
    turns: tuple[int, ...] = ()
    pitch_x: float = 35.0
    pitch_y: float = 64.0
    margin_x: float = 92.5
    margin_top: float = 90.0
    field_radius: float = 13.0


def serpentine_layout(s: SerpentineSettings):
    """Track-ordered fields of a serpentine: list of (id, x, y, row or None, col or None),
    ids "1", "2", ...; plus the wall polylines (one between each pair of rows, open at the
    bend) and the board size."""
    turns = tuple(s.turns) + (0,) * (s.rows - 1 - len(s.turns))
    right_edge = s.margin_x + (s.cols - 1) * s.pitch_x
    out = []

    def add(x, y, r, c):
        out.append((str(len(out) + 1), round(x, 2), round(y, 2), r, c))

    ys = [s.margin_top + r * s.pitch_y for r in range(s.rows)]
    walls = []
    for r in range(s.rows):
        order = range(s.cols) if r % 2 == 0 else range(s.cols - 1, -1, -1)
        for c in order:
            add(s.margin_x + c * s.pitch_x, ys[r], r, c)
        if r == s.rows - 1:
            break
        k = turns[r]
        at_right = r % 2 == 0
        bx = right_edge + 0.9 * s.pitch_x if at_right else s.margin_x - 0.9 * s.pitch_x
        if k == 1:
            turn_ys = [(ys[r] + ys[r + 1]) / 2]
        else:
            lo, hi = ys[r] + 0.25 * s.pitch_y, ys[r + 1] - 0.25 * s.pitch_y
            turn_ys = [lo + (hi - lo) * j / max(k - 1, 1) for j in range(k)]
        for ty in turn_ys:
            add(bx, ty, None, None)
        wy = (ys[r] + ys[r + 1]) / 2
        closed_end = (s.margin_x - 0.5 * s.pitch_x) if at_right else (right_edge + 0.5 * s.pitch_x)
        if k:
            open_end = right_edge + 0.5 * s.pitch_x if at_right else s.margin_x - 0.5 * s.pitch_x
        else:  # the end fields are neighbours: leave their gap open
            open_end = right_edge - 0.5 * s.pitch_x if at_right else s.margin_x + 0.5 * s.pitch_x
        walls.append(((min(closed_end, open_end), wy), (max(closed_end, open_end), wy)))
    width = 2 * s.margin_x
    width += (s.cols - 1) * s.pitch_x
    height = ys[-1] + s.margin_top
    return out, walls, (round(width, 2), round(height, 2))


def serpentine_board(
    settings: SerpentineSettings,
    jumps: Mapping[tuple[int, int, int], int] = (),  # type: ignore[assignment]
    goal_fields: Sequence[str] = (),
    start_fields: Mapping[str, str] | None = None,
    name: str = "serpentine",
) -> dict:
    """A board description (the JSON object) for a serpentine track. `jumps` maps
    (row, col, +1 down / -1 up) -> wall number: a wall piece beside field (row, col) that
    jumps to (row+-1, col). Start areas B and goal areas are laid out below the track.
    Returns the dict (pass it to `board_from_dict`)."""
    fields, wall_lines, (w, h) = serpentine_layout(settings)
    by_rc = {(r, c): fid for fid, _, _, r, c in fields if r is not None}
    fjumps: dict[str, list] = {}
    for (r, c, dr), number in dict(jumps).items():
        src, dst = by_rc[(r, c)], by_rc[(r + dr, c)]
        fjumps.setdefault(src, []).append(
            {"wall": min(r, r + dr) + 1, "number": number, "to": dst})
    start_fields = dict(start_fields or {"red": fields[0][0]})
    h_total = h + 110
    colours = {}
    for k, (colour, a) in enumerate(start_fields.items()):
        cx = 60 + k * 120
        colours[colour] = {
            "start_field": a,
            "start_area": {"center": [cx, h + 30], "radius": 28,
                           "slots": [[cx - 12, h + 18], [cx + 12, h + 18],
                                     [cx - 12, h + 42], [cx + 12, h + 42]]},
            "goal_area": {s: [cx - 36 + 24 * i, h + 85] for i, s in enumerate(GOAL_SLOTS)},
        }
    return {
        "schema": SCHEMA,
        "name": name,
        "size_mm": [max(w, 60 + 120 * len(start_fields)), h_total],
        "field_radius_mm": settings.field_radius,
        "closed": False,
        "fields": [
            {"id": fid, "x": x, "y": y, **({"jumps": fjumps[fid]} if fid in fjumps else {})}
            for fid, x, y, _, _ in fields
        ],
        "goal_fields": list(goal_fields),
        "walls": [{"id": i + 1, "line": [list(p) for p in line]}
                  for i, line in enumerate(wall_lines)],
        "colours": colours,
    }
