"""Facts from a corrected list of pieces (the "what I saw" view: the user relabels, removes or
adds pieces on the photo and the score follows at once).

``facts_from_pieces(game, pieces, base_facts) -> dict`` rebuilds the contract's facts from the
pieces' labels, zones and centres. What a list of pieces cannot say (Hop la bille's card
combinations, Mauerhuepfer's field ids) is kept from ``base_facts`` (the facts of the photo).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from scoring.labels import LABELS, SIMSALA_ZONES, TROETO_ZONES
from scoring.magic_rabbit import inversions, label_number  # one rule: photo and page
from tablescore.errors import FactsError

MAX_PIECES = 400  # more than any of the games has on the table


@dataclass(frozen=True)
class PieceSettings:
    # A piece's centre is in photo pixels (a 200 MP photo is 16320 wide); far larger ones
    # overflowed Magic Rabbit's line fit (1e200 squared: an OverflowError, a 500).
    max_coordinate: float = 1_000_000.0


SETTINGS = PieceSettings()


def _counts(pieces: list[dict], zone: str, labels: tuple[str, ...]) -> dict[str, int]:
    c = Counter(p["label"] for p in pieces if p["zone"] == zone and p["label"] in labels)
    return dict(sorted(c.items()))


def check_pieces(game: str, pieces: object) -> list[dict]:
    """Validate ``[{"label", "zone", "center": [x, y], ...}]`` (`FactsError` naming the entry)."""
    if not isinstance(pieces, list):
        raise FactsError("expected a list of pieces", "pieces")
    if len(pieces) > MAX_PIECES:
        raise FactsError(f"at most {MAX_PIECES} pieces", "pieces")
    out = []
    for i, p in enumerate(pieces):
        where = f"pieces[{i}]"
        if not isinstance(p, dict):
            raise FactsError("expected an object", where)
        if p.get("label") not in LABELS[game]:
            raise FactsError(f"unknown label {p.get('label')!r} for {game}", f"{where}.label")
        zone = p.get("zone")
        if zone is not None and not isinstance(zone, str):
            raise FactsError("expected a zone name", f"{where}.zone")
        center = p.get("center")
        ok = (
            isinstance(center, list)
            and len(center) == 2
            and all(isinstance(v, int | float) and not isinstance(v, bool)  # (true: 1)
                    and math.isfinite(v) for v in center)
        )
        if not ok:
            raise FactsError("expected [x, y] in image pixels", f"{where}.center")
        if max(abs(v) for v in center) > SETTINGS.max_coordinate:
            raise FactsError(f"[x, y] past {SETTINGS.max_coordinate:.0f} image pixels",
                             f"{where}.center")
        out.append({**p, "zone": zone or ""})
    return out


def axis_order(points: list[list[float]], magician: list[float] | None) -> list[int]:
    """Indices of ``points`` (hat centres, image pixels) along the principal axis of the
    points, pointing away from the magician tile (left to right without one), as
    ``vision.cards.lineup.line_direction`` reads it."""
    n = len(points)
    mx = sum(p[0] for p in points) / n
    my = sum(p[1] for p in points) / n
    sxx = sum((p[0] - mx) ** 2 for p in points)
    syy = sum((p[1] - my) ** 2 for p in points)
    sxy = sum((p[0] - mx) * (p[1] - my) for p in points)
    angle = 0.5 * math.atan2(2 * sxy, sxx - syy) if n >= 2 else 0.0
    d = (math.cos(angle), math.sin(angle))
    ref = (mx - magician[0], my - magician[1]) if magician is not None else (1.0, 0.0)
    if d[0] * ref[0] + d[1] * ref[1] < 0:
        d = (-d[0], -d[1])
    ox, oy = magician if magician is not None else (mx, my)
    return sorted(range(n), key=lambda i: (points[i][0] - ox) * d[0] + (points[i][1] - oy) * d[1])


def _confidence(piece: dict) -> float:
    """A piece's confidence; 1 without one (a piece added on the page carries 1)."""
    c = piece.get("confidence")
    return c if isinstance(c, int | float) else 1.0


def _line(pieces: list[dict]) -> tuple[list[int], list[dict]]:
    """(indices of the hat pieces in line order, the line ``[{"hat", "rabbit", "dove"}]``):
    the hats along `axis_order` from the magician tile (the surest of several, as ``read_line``);
    each rabbit and dove to the nearest hat. Without a magician tile the line is read from the
    end its numbers ascend from, the rule of ``vision.cards.lineup.read_line`` (the same
    ``scoring.magic_rabbit.inversions``: fewer hats and rabbits out of order; a tie: left to
    right)."""
    hats = [i for i, p in enumerate(pieces) if p["label"].startswith("hat-")]
    if not hats:
        return [], []
    mags = [p for p in pieces if p["label"] == "magician"]
    mag = max(mags, key=_confidence, default=None)  # the surest, as lineup.read_line picks it
    order = axis_order([pieces[i]["center"] for i in hats], mag["center"] if mag else None)
    hats = [hats[k] for k in order]
    line = [{"hat": label_number(pieces[i]["label"]), "rabbit": None, "dove": False} for i in hats]

    def dist(a, b):
        return math.hypot(a[0] - b[0], a[1] - b[1])

    for p in pieces:
        if p["label"].startswith("rabbit-") or p["label"] == "dove":
            k = min(range(len(hats)), key=lambda j: dist(pieces[hats[j]]["center"], p["center"]))
            if p["label"] == "dove":
                line[k]["dove"] = True
            else:
                line[k]["rabbit"] = label_number(p["label"])
    if mag is None:
        if inversions(line[::-1]) < inversions(line):
            hats, line = hats[::-1], line[::-1]
    return hats, line


def line_order(pieces: list[dict]) -> list[int]:
    """Indices of the hat pieces (``{"label", "center"}``) in Magic Rabbit line order, the
    order of the facts the page rebuilds (`_line`). Mirrored in app.js ``hatOrder``, which
    marks the wrong positions on the photo."""
    return _line(pieces)[0]


def _magic_rabbit_line(pieces: list[dict], base: dict) -> dict:
    """The line from the pieces (`_line`); ``won`` kept from the photo's facts."""
    hats, line = _line(pieces)
    if not hats:
        raise FactsError("no hats on the photo: add them or type the line in", "pieces")
    facts = {"line": line}
    if isinstance(base.get("won"), bool):
        facts["won"] = base["won"]
    return facts


def facts_from_pieces(game: str, pieces: object, base_facts: object = None) -> dict:
    ps = check_pieces(game, pieces)
    base = base_facts if isinstance(base_facts, dict) else {}
    labels = LABELS[game]
    if game == "simsala-hopp":
        return {z: _counts(ps, z, labels) for z in SIMSALA_ZONES}
    if game == "troetofanten":
        return {"zones": {z: _counts(ps, z, labels) for z in TROETO_ZONES}}
    if game == "hop-la-bille":
        marbles = tuple(lab for lab in labels if lab.startswith("marble-"))
        base_zones = base.get("zones")
        base_zones = {} if base_zones is None else base_zones
        if not isinstance(base_zones, dict):  # (a list or a number: a 500 in set() or sorted())
            raise FactsError(f"expected an object, got {type(base_zones).__name__}",
                             "facts.zones")
        zones = sorted({p["zone"] for p in ps if p["zone"]} | set(base_zones))
        facts = {"zones": {z: _counts(ps, z, marbles) for z in zones}}
        facts["cards"] = base.get("cards", {})
        return facts
    if game == "mauerhuepfer":
        dice = sorted(int(p["label"].split("-")[1]) for p in ps if p["label"].startswith("die-"))
        pawns = Counter(p["label"] for p in ps if p["label"].startswith("pawn-"))
        facts = {"dice": dice, "pawns": dict(sorted(pawns.items()))}
        facts["positions"] = base.get("positions", {})
        return facts
    if game == "magic-rabbit":
        return _magic_rabbit_line(ps, base)
    raise FactsError(f"no facts for game {game!r}")
