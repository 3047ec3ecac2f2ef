"""Named vision errors; each is a `tablescore.errors` class so the CLI and the web API map it
to the contract's error JSON and exit code (BadImage: exit 2 / HTTP 400; AreaNotFound and
NoPieces: exit 3 / HTTP 422)."""

from __future__ import annotations

from tablescore.errors import BadInput, NotFound


class BadImage(BadInput):
    """The file is not a photo we can read: not an image, truncated, too small or too big."""

    code = "bad_image"


class AreaNotFound(NotFound):
    """The photo was read but the game's play area (arena, cloth) is not in it."""

    code = "area_not_found"


class NoPieces(NotFound):
    """The play area was found but no piece could be found."""

    code = "no_pieces"


class ModelMissing(BadInput):
    """The classifier model file is missing or unreadable (the build is incomplete)."""

    code = "model_missing"


def busy_warning(n: int, most: int, what: str) -> str:
    """The warning for a photo with `n` `what` (e.g. "pip-like spots") where only the `most`
    strongest are read (the dice's and the cards' caps on a very noisy or busy photo)."""
    return (f"the photo is very noisy or busy ({n} {what}): only the {most} strongest were "
            "read; light the table well and clear it of patterns")
