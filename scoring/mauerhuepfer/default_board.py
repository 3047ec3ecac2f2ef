"""Our own default Mauerhuepfer board (the real board's layout is not known to us).

A 500 x 500 mm board: a serpentine track of 6 rows x 10 fields, the rows joined by bends, and
the five walls between the rows. The bend in the middle of the track (between rows 3 and 4)
holds the two goal fields Z. Start fields A sit at the four corners of the track: red top-left,
yellow top-right, green bottom-right, black bottom-left (clockwise), each next to its start
area B in the board corner; the goal areas a-d lie along the top and bottom edges. Wall
numbers stand on most fields beside a wall (not at the bends, where a jump would not shorten
the way). The board is mirror-symmetric about its horizontal middle line, which is the same as
reversing the track (red <-> black, yellow <-> green).

Regenerate the shipped JSON with ``python -m scoring.mauerhuepfer.default_board``.
"""

from __future__ import annotations

import json
import random
import sys

from scoring.mauerhuepfer.board import (
    DEFAULT_BOARD_PATH,
    GOAL_SLOTS,
    SCHEMA,
    SerpentineSettings,
    serpentine_layout,
)

SETTINGS = SerpentineSettings(rows=6, cols=10, turns=(1, 1, 2, 1, 1))
SIZE_MM = (500, 500)
JUMP_SEED = 7  # seeds the choice of wall numbers; fixed so the board never changes
JUMP_SHARE = 0.7  # share of wall-side positions that carry a number
CORNER_B = 45.0  # start area B centres, this far from two board edges
B_RADIUS = 33.0
GOAL_Y = (38.0, 462.0)  # goal-area rows, top and bottom edge
GOAL_PITCH = 28.0


def build() -> dict:
    s = SETTINGS
    fields, wall_lines, (w, h) = serpentine_layout(s)
    assert (w, h) <= SIZE_MM, (w, h)
    by_rc = {(r, c): fid for fid, _, _, r, c in fields if r is not None}
    rng = random.Random(JUMP_SEED)
    jumps: dict[str, list] = {}

    def add(r, c, dr, number):
        jumps.setdefault(by_rc[(r, c)], []).append(
            {"wall": min(r, r + dr) + 1, "number": number, "to": by_rc[(r + dr, c)]})

    last = s.rows - 1
    for wall in range(s.rows - 1):  # wall between row `wall` and `wall + 1`
        bend_col = s.cols - 1 if wall % 2 == 0 else 0
        for c in range(s.cols):
            if c == bend_col:
                continue
            mirror = last - 1 - wall
            if wall > mirror:
                continue  # filled from its mirror image below
            for dr in (1, -1):
                if rng.random() > JUMP_SHARE:
                    continue
                n = rng.randint(1, 6)
                r = wall if dr == 1 else wall + 1
                add(r, c, dr, n)
                if wall != mirror:  # mirror: row r <-> row last - r, direction flips
                    add(last - r, c, -dr, n)
    # the middle wall must be self-symmetric: the same number on both sides
    mid = (s.rows - 1) // 2
    for c in range(s.cols):
        up, down = by_rc[(mid + 1, c)], by_rc[(mid, c)]
        down_j = [j for j in jumps.get(down, []) if j["to"] == up]
        up_j = [j for j in jumps.get(up, []) if j["to"] == down]
        if down_j and not up_j:
            jumps.setdefault(up, []).append({**down_j[0], "to": down})
        elif up_j and not down_j:
            jumps.setdefault(down, []).append({**up_j[0], "to": up})
        elif up_j and down_j:
            up_j[0]["number"] = down_j[0]["number"]

    first_row = [fid for fid, _, _, r, _ in fields if r == 0]
    last_row = [fid for fid, _, _, r, _ in fields if r == last]
    starts = {  # clockwise from the top-left corner
        "red": (first_row[0], (CORNER_B, CORNER_B), GOAL_Y[0], 125.0),
        "yellow": (first_row[-1], (SIZE_MM[0] - CORNER_B, CORNER_B), GOAL_Y[0], 291.0),
        "green": (last_row[0], (SIZE_MM[0] - CORNER_B, SIZE_MM[1] - CORNER_B), GOAL_Y[1], 291.0),
        "black": (last_row[-1], (CORNER_B, SIZE_MM[1] - CORNER_B), GOAL_Y[1], 125.0),
    }
    colours = {}
    for colour, (a, (cx, cy), gy, gx) in starts.items():
        off = B_RADIUS * 0.45
        colours[colour] = {
            "start_field": a,
            "start_area": {"center": [cx, cy], "radius": B_RADIUS,
                           "slots": [[cx - off, cy - off], [cx + off, cy - off],
                                     [cx - off, cy + off], [cx + off, cy + off]]},
            "goal_area": {sl: [gx + i * GOAL_PITCH, gy] for i, sl in enumerate(GOAL_SLOTS)},
        }
    turn_fields = [fid for fid, _, _, r, _ in fields if r is None]
    goal_fields = turn_fields[mid:mid + 2]
    return {
        "schema": SCHEMA,
        "name": "tablescore default",
        "note": "Our own design. Millimetres, origin top-left, x right, y down. Fields are "
                "listed in track order; see docs/mauerhuepfer.md.",
        "size_mm": list(SIZE_MM),
        "field_radius_mm": s.field_radius,
        "closed": False,
        "fields": [
            {"id": fid, "x": x, "y": y,
             **({"jumps": sorted(jumps[fid], key=lambda j: j["wall"])} if fid in jumps else {})}
            for fid, x, y, _, _ in fields
        ],
        "goal_fields": goal_fields,
        "walls": [{"id": i + 1, "line": [list(p) for p in line]}
                  for i, line in enumerate(wall_lines)],
        "colours": colours,
    }


def dumps(board: dict | None = None) -> str:
    """Readable JSON: one line per field, wall and colour."""
    board = build() if board is None else board
    lines = []
    for key, value in board.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            inner = ",\n".join("    " + json.dumps(v) for v in value)
            lines.append(f'  {json.dumps(key)}: [\n{inner}\n  ]')
        elif isinstance(value, dict):
            inner = ",\n".join(f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in value.items())
            lines.append(f'  {json.dumps(key)}: {{\n{inner}\n  }}')
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


if __name__ == "__main__":
    if "--write" in sys.argv:
        DEFAULT_BOARD_PATH.write_text(dumps(), encoding="utf-8")
    else:
        sys.stdout.write(dumps())
