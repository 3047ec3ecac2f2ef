"""Facts from a corrected list of pieces (the "what I saw" view: the user relabels, removes or
adds pieces on the photo and the score follows at once).

``facts_from_pieces(game, pieces, base_facts) -> dict`` rebuilds the contract's facts from the
pieces' labels, zones and centres. What a list of pieces cannot say (Hop la bille's card
combinations, Mauerhuepfer's field ids) is kept from ``base_facts`` (the facts of the photo).
"""

from __future__ import annotations

import math
from collections import Counter

from scoring.labels import LABELS, SIMSALA_ZONES, TROETO_ZONES
from tablescore.errors import FactsError

MAX_PIECES = 400  # more than any of the games has on the table


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
            and all(isinstance(v, int | float) and math.isfinite(v) for v in center)
        )
        if not ok:
            raise FactsError("expected [x, y] in image pixels", f"{where}.center")
        out.append({**p, "zone": zone or ""})
    return out


def line_order(points: list[list[float]], magician: list[float] | None) -> list[int]:
    """Indices of ``points`` (hat centres, image pixels) in line order: along the principal
    axis of the points, pointing away from the magician tile (left to right without one) —
    the same reading as ``vision.cards.lineup``. Mirrored in app.js ``hatOrder``."""
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


def _magic_rabbit_line(pieces: list[dict], base: dict) -> dict:
    """Hats in line order from the magician tile (see `line_order`); each rabbit and dove
    goes to the nearest hat."""
    hats = [p for p in pieces if p["label"].startswith("hat-")]
    if not hats:
        raise FactsError("no hats on the photo: add them or type the line in", "pieces")
    mag = next((p for p in pieces if p["label"] == "magician"), None)

    def dist(a, b):
        return math.hypot(a[0] - b[0], a[1] - b[1])

    order = line_order([h["center"] for h in hats], mag["center"] if mag else None)
    hats = [hats[i] for i in order]
    line = [{"hat": int(h["label"].split("-")[1]), "rabbit": None, "dove": False} for h in hats]
    for p in pieces:
        if p["label"].startswith("rabbit-") or p["label"] == "dove":
            i = min(range(len(hats)), key=lambda k: dist(hats[k]["center"], p["center"]))
            if p["label"] == "dove":
                line[i]["dove"] = True
            else:
                line[i]["rabbit"] = int(p["label"].split("-")[1])
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
        zones = sorted({p["zone"] for p in ps if p["zone"]} | set(base.get("zones", {})))
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
