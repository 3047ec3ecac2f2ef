"""Referee mode: the verdict explained in words from the rules, for a dispute at the table.

``explain(game, facts, score, options, names) -> list[str]``. The numbers always come from the
scorer's ``score``; the sentences name the pieces that make them (and those that do not count).
Where a scoring module gives its own reasons (``score["reasons"]`` / ``score["explanation"]``)
they are used as they are; this module's sentences are the fallback.
"""

from __future__ import annotations


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _join(parts: list[str]) -> str:
    parts = [p for p in parts if p]
    if not parts:
        return "nothing"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _own_reasons(score: dict) -> list[str]:
    out = []
    for key in ("explanation", "reasons"):
        v = score.get(key)
        if isinstance(v, list):
            out += [str(x) for x in v]
        elif isinstance(v, str):
            out.append(v)
    return out


def simsala_hopp(facts, score, options, names):
    arena, outside = facts.get("arena", {}), facts.get("outside", {})
    magician = options.get("magician")
    level = int(options.get("level", "0") or 0)
    order = [c for c in (options.get("players") or "").split(",") if c] or list(score["points"])
    lines = []
    for colour in order:
        pts = score.get("points", {}).get(colour, 0)
        who = names.get(colour, colour.capitalize())
        own = arena.get(f"rabbit-{colour}", 0)
        if colour == magician:
            white = arena.get("rabbit-white", 0)
            parts = [_plural(white, "white rabbit"), _plural(own, f"{colour} rabbit")]
            why = f"{_join(parts)} in the arena"
            extra = []
            cats_in, cats_out = arena.get("cat", 0), outside.get("cat", 0)
            if level >= 1 and cats_in:
                extra.append(f"minus {_plural(cats_in, 'cat')} in the arena (level 1)")
            if level >= 2 and cats_out:
                extra.append(f"plus {_plural(cats_out, 'cat')} tapped over the wall (level 2)")
            if extra:
                why += ", " + ", ".join(extra)
            line = f"{who} (magician) scores {pts}: {why}"
        else:
            line = f"{who} scores {pts}: {_plural(own, f'{colour} rabbit')} in the arena"
        lost = [
            _plural(n, lab.replace("-", " ").replace("rabbit ", "") + " rabbit")
            if lab.startswith("rabbit-") else ""
            for lab, n in outside.items()
            if n and (lab == f"rabbit-{colour}" or (colour == magician and lab == "rabbit-white"))
        ]
        if any(lost):
            line += f"; the {_join(lost)} outside the arena do not count"
        lines.append(line + ".")
    if arena.get("frog"):
        lines.append(f"{_plural(arena['frog'], 'frog')} in the arena score nothing.")
    return lines


def magic_rabbit(facts, score, options, names):
    if score.get("won"):
        head = (
            f"You won: all {score.get('tiles', 9)} hats are in ascending order from the "
            "magician tile and every rabbit lies under its own hat."
        )
    else:
        head = f"Not won: {_plural(len(score.get('wrong_positions', [])), 'position')} wrong."
    return [head]


def hop_la_bille(facts, score, options, names):
    lines = []
    zones = facts.get("zones", {})
    for zone, cards in facts.get("cards", {}).items():
        done = set(score.get("completed", {}).get(zone, []))
        have = {k.removeprefix("marble-"): v for k, v in zones.get(zone, {}).items() if v}
        who = names.get(zone, zone)
        for i, card in enumerate(cards):
            if card.get("colour") == "back":
                lines.append(f"{who}: card {i + 1} is face down (already returned).")
                continue
            need: dict[str, int] = {}
            for m in card.get("marbles", []):
                c = m.removeprefix("marble-")
                need[c] = need.get(c, 0) + 1
            if i in done:
                lines.append(
                    f"{who}'s {card.get('colour')} card is complete: the game area holds exactly "
                    + _join([f"{n} {c}" for c, n in sorted(need.items())])
                    + "."
                )
                continue
            missing = [f"{n - have.get(c, 0)} {c}" for c, n in need.items() if have.get(c, 0) < n]
            spare = [f"{n - need.get(c, 0)} {c}" for c, n in have.items() if n > need.get(c, 0)]
            why = []
            if missing:
                why.append("needs " + _join(missing) + " more")
            if spare:
                why.append(_join(spare) + " too many")
            lines.append(
                f"{who}'s {card.get('colour')} card is not complete: "
                + ("; ".join(why) or "the marbles do not match")
                + "."
            )
    return lines


def mauerhuepfer(facts, score, options, names):
    lines = []
    dice = facts.get("dice")
    if dice:
        lines.append("Dice: " + " and ".join(str(d) for d in dice) + ".")
    for colour, n in score.get("home", {}).items():
        if names and colour not in names:
            continue  # a colour nobody plays
        lines.append(f"{names.get(colour, colour.capitalize())}: {n} of 4 pawns in the goal.")
    if score.get("winner"):
        w = score["winner"]
        lines.append(f"{names.get(w, w.capitalize())} has all four pawns home and wins.")
    return lines


def troetofanten(facts, score, options, names):
    lines = []
    for zone, pts in score.get("points", {}).items():
        counts = facts.get("zones", {}).get(zone, {})
        if not counts:
            continue
        animals = sum(n for lab, n in counts.items() if lab.startswith(("elephant", "tootophant")))
        plus = [_plural(animals, "open animal")] if animals else []
        for lab in ("mouse", "lasso"):
            if counts.get(lab):
                plus.append(_plural(counts[lab], f"open {lab}"))
        minus = []
        if counts.get("back"):
            minus.append(_plural(counts["back"], "face-down card"))
        if counts.get("mousetrap"):
            minus.append("the mousetrap")
        if counts.get("tamer"):
            minus.append(_plural(counts["tamer"], "tamer"))
        why = "+1 each for " + _join(plus) if plus else ""
        if minus:
            why += ("; " if why else "") + "-1 each for " + _join(minus)
        who = names.get(zone, zone)
        lines.append(f"{who} scores {pts}: {why}." if why else f"{who} scores {pts}.")
    return lines


EXPLAINERS = {
    "simsala-hopp": simsala_hopp,
    "magic-rabbit": magic_rabbit,
    "hop-la-bille": hop_la_bille,
    "mauerhuepfer": mauerhuepfer,
    "troetofanten": troetofanten,
}


def with_names(lines: list[str], names: dict[str, str] | None) -> list[str]:
    """Put the players' names on the scorer's sentences: "Blue (magician) scores 3" becomes
    "Ben (blue, magician) scores 3", "north: ..." becomes "Nora (north): ..."."""
    if not names:
        return list(lines)
    out = []
    for line in lines:
        for key, name in names.items():
            if not key or name.lower() == key.lower():
                continue
            for word in (key.capitalize(), key):
                if line.startswith(word + " (magician)"):
                    line = f"{name} ({key}, magician)" + line[len(word) + len(" (magician)"):]
                    break
                if line.startswith(word + " ") or line.startswith(word + ":") or line.startswith(
                    word + "'s "
                ):
                    line = f"{name} ({key})" + line[len(word):]
                    break
        out.append(line)
    return out


def explain(
    game: str, facts: dict, score: dict, options: dict | None = None, names: dict | None = None
) -> list[str]:
    """Sentences for the referee view. Never raises for odd facts: a dispute still gets the
    scorer's own reasons."""
    own = with_names(_own_reasons(score), names)
    try:
        mine = EXPLAINERS[game](facts, score, options or {}, names or {})
    except (KeyError, TypeError, ValueError, AttributeError):
        mine = []
    if game == "magic-rabbit":
        return mine[:1] + own
    return own or mine
