"""Small validators shared by the games' facts adapters. Each raises `FactsError` naming the
entry (a dotted path such as ``facts.arena.rabbit-blue``) so the user can find the mistake."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tablescore.errors import FactsError, OptionError


def require_mapping(obj: object, path: str) -> dict:
    if not isinstance(obj, Mapping):
        raise FactsError(f"expected an object, got {type(obj).__name__}", path)
    return dict(obj)


def require_list(obj: object, path: str) -> list:
    if not isinstance(obj, list):
        raise FactsError(f"expected a list, got {type(obj).__name__}", path)
    return obj


def require_int(obj: object, path: str, lo: int | None = None, hi: int | None = None) -> int:
    if isinstance(obj, bool) or not isinstance(obj, int):
        raise FactsError(f"expected a whole number, got {obj!r}", path)
    if lo is not None and obj < lo:
        raise FactsError(f"must be at least {lo}, got {obj}", path)
    if hi is not None and obj > hi:
        raise FactsError(f"must be at most {hi}, got {obj}", path)
    return obj


def require_bool(obj: object, path: str) -> bool:
    if not isinstance(obj, bool):
        raise FactsError(f"expected true or false, got {obj!r}", path)
    return obj


def require_choice(obj: object, choices: Iterable[str], path: str) -> str:
    choices = tuple(choices)
    if obj not in choices:
        raise FactsError(f"unknown value {obj!r}; expected one of: {', '.join(choices)}", path)
    return obj  # type: ignore[return-value]


def count_map(obj: object, labels: Iterable[str], path: str) -> dict[str, int]:
    """A ``{label: count}`` object with known labels and non-negative whole counts."""
    labels = tuple(labels)
    counts = require_mapping(obj, path)
    out: dict[str, int] = {}
    for label, n in counts.items():
        require_choice(label, labels, f"{path}.{label}" if isinstance(label, str) else path)
        out[label] = require_int(n, f"{path}.{label}", lo=0)
    return out


def zone_counts(obj: object, zones: Iterable[str], labels: Iterable[str], path: str):
    """A ``{zone: {label: count}}`` object; missing zones are empty."""
    zones, labels = tuple(zones), tuple(labels)
    raw = require_mapping(obj, path)
    out = {z: {} for z in zones}
    for zone, counts in raw.items():
        require_choice(zone, zones, f"{path}.{zone}")
        out[zone] = count_map(counts, labels, f"{path}.{zone}")
    return out


def check_options(options: Mapping[str, object], allowed: Mapping[str, str], game: str):
    """Drop unset options; reject ones the game does not take."""
    out = {k: v for k, v in options.items() if v is not None}
    for name in out:
        if name not in allowed:
            takes = ", ".join(f"--{n}" for n in allowed) or "no options"
            raise OptionError(f"{game} does not take --{name} (it takes {takes})")
    return out
