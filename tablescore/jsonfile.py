"""Read a user's JSON file with errors that say which file and why (stdlib only, so `scoring/`
may use it)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

from tablescore.errors import BadInput, TablescoreError
from tablescore.photo_format import readable_kind

MAX_FILE_BYTES = 16 * 1024 * 1024  # a game's facts, position or board: a few kB



def read_json_file(
    path: str | Path, what: str, invalid: Callable[[str], TablescoreError] = BadInput
) -> object:
    """Load a JSON file (UTF-8, with or without a byte-order mark). A missing or unreadable
    file raises `BadInput`; text that is not JSON, or nested about 1000 levels deep or more
    (json's parser recurses per level, up to Python's recursion limit), raises
    ``invalid(message)`` (`BadInput` unless the caller names another error). At most
    `MAX_FILE_BYTES` are read: a pipe or device (/dev/zero) has no size to check first."""
    p = Path(path)
    try:
        with p.open("rb") as f:
            raw = f.read(MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:
            raise BadInput(f"{what} file {p} is too large (over {MAX_FILE_BYTES} bytes)")
        text = raw.decode("utf-8-sig")  # (a byte-order mark, as Windows editors write)
    except FileNotFoundError:
        raise BadInput(f"{what} file not found: {p}") from None
    except UnicodeDecodeError as exc:  # (a photo given as --facts, a UTF-16 file)
        why = (" (it is a photo, not a JSON file)" if readable_kind(raw)
               else " (it is UTF-16 text: save it as UTF-8)" if raw[:2] in (b"\xff\xfe",
                                                                          b"\xfe\xff")
               else "")
        raise BadInput(f"{what} file {p} is not JSON text: byte {exc.start} is not UTF-8"
                       f"{why}") from None
    except OSError as exc:
        raise BadInput(f"cannot read {what} file {p}: {exc}") from None
    return loads(text, f"{what} file {p}", invalid)


class _NotJsonNumber(ValueError):
    pass


def _refuse_constant(name: str):
    # Python's json takes NaN, Infinity and -Infinity, which JSON has not; echoed back in an
    # answer's `facts` they made stdout / the HTTP body invalid JSON for every other reader.
    raise _NotJsonNumber(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400: JSON, but Python's float is inf (printed Infinity)
        raise _NotJsonNumber(f"{text} is too large a number")
    return value


MAX_INT_DIGITS = 1000  # Python refuses to convert more than 4300 (a ValueError: a traceback)


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise _NotJsonNumber(f"a number of {digits} digits is too large")
    return int(text)


def loads(text: str, what: str, invalid: Callable[[str], TablescoreError] = BadInput) -> object:
    """`json.loads` whose failures are ``invalid(message)`` naming ``what``: text that is not
    JSON (also NaN, Infinity, -Infinity and numbers too large for a float, as 1e400, which
    Python's json would take and print back as NaN / Infinity; integers of more than
    `MAX_INT_DIGITS` digits, which Python refuses past 4300 with a ValueError), or nested about
    1000 levels deep or more (json's parser recurses per level, up to Python's recursion
    limit: a RecursionError, not a JSONDecodeError)."""
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float,
                          parse_int=_bounded_int)
    except _NotJsonNumber as exc:
        raise invalid(f"{what}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise invalid(f"{what} is not valid JSON: {exc}") from None
    except RecursionError:  # [[[[...]]]] ~1000 deep
        raise invalid(f"{what} is nested too deeply (about 1000 levels or more)") from None
