"""Teach profiles over HTTP (the page's teach screen; `vision.teach` does the work).

- `GET /api/teach?game=GAME`: `{"profiles": [{"name", "game", "labels": {label: n}}],
  "labels": [the labels a photo of GAME can teach], "units": {label: the profile entry naming
  it teaches}}` (400 for a game photos cannot read).
- `POST /api/teach` multipart: `game`, `name` (letters, digits, '.', '_', '-'), one or more
  files `photo`, and `taps`: JSON `[{"photo": index, "x", "y", "label"}]` (photo pixels, the
  index into the uploaded photos in order). Builds the profile, stores it as
  `<DATA_DIR>/teach/<name>/` (what `POST /api/score`'s `teach` field names) and answers
  `{"name", "game", "labels", "missing", "timings_ms"}`. Bad input: 400 with the contract's
  error body naming the photo or tap.
"""

from __future__ import annotations

import time
from pathlib import Path

from flask import Blueprint, current_app, request

from tablescore.cmd_teach import refuse_other_games_profile
from tablescore.errors import BadInput
from tablescore.jsonfile import loads
from webapp import games

bp = Blueprint("teach", __name__, url_prefix="/api")


def teach_root() -> Path:
    return Path(current_app.config["DATA_DIR"]) / "teach"


@bp.get("/teach")
def list_teach():
    from vision.teach import list_profiles, teachable

    game = request.args.get("game") or None
    out: dict = {"profiles": list_profiles(teach_root(), game)}
    if game:
        games.info(game)
        tg = teachable(game)
        out["labels"] = list(tg.labels)  # what a photo of this game can teach
        # {label: what naming it teaches}: Troetofanten's "elephant-2" teaches every elephant
        # (the number is read by the corner-index model), so the page's "not yet" list is
        # per kind, not the 12 numbered cards it asked for
        out["units"] = {lab: tg.unit(lab) for lab in tg.labels}
    return out


@bp.post("/teach")
def create_teach():
    from vision.teach import profile_counts, profile_from_taps, teachable
    from webapp.api import TEACH_NAME, Unavailable, image_type, multipart_form

    multipart_form("POST /api/teach")
    game = request.form.get("game", "")
    games.info(game)
    tg = teachable(game)
    name = request.form.get("name", "")
    if not TEACH_NAME.match(name):
        raise BadInput(f"teach profile names are letters, digits, '.', '_' and '-': {name!r}")
    refuse_other_games_profile(teach_root(), name, game)  # (the CLI's teach rule)
    if (teach_root() / name).exists() and not (teach_root() / name).is_dir():
        # (said before the photos are read: saving over it was a 500, FileExistsError)
        raise BadInput(f"the name {name!r} is taken on the server by a file that is not a "
                       "teach profile; give the profile another name")
    photos = []
    for k, f in enumerate(request.files.getlist("photo")):
        data = f.read()
        label = f.filename or f"photo {k}"
        try:
            image_type(data)
        except BadInput as exc:  # (the photo's name, as the CLI's teach names its file)
            raise type(exc)(f"{label}: {exc.message}") from None
        photos.append((label, data))
    taps = loads(request.form.get("taps", "[]"), "taps")
    if not isinstance(taps, list):
        raise BadInput("taps: expected a list of {photo, x, y, label}")
    started = time.perf_counter()
    profile = profile_from_taps(game, photos, taps)
    try:
        profile.save(teach_root() / name)
    except OSError as exc:  # (the disk full, DATA_DIR/teach a file: was a 500)
        raise Unavailable(f"the server cannot save the teach profile {name!r}: "
                          f"{exc.strerror or exc}; nothing was saved") from None
    counts = profile_counts(profile)
    return {"name": name, "game": game, "labels": counts, "missing": tg.missing(counts),
            "timings_ms": {"total": round((time.perf_counter() - started) * 1000, 1)}}
