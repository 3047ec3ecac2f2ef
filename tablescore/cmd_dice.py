"""`tablescore dice PHOTO [--json]`: read every ordinary six-sided die in any photo.

Prints the contract's object
``{"dice": [{"value": 1-6, "confidence": 0.97, "center": [x, y]}], "warnings": [],
"timings_ms": {...}}`` (centres in the photo's own pixels, after EXIF orientation; dice listed
top to bottom), or the contract's error JSON with exit 2 for a file that is not a readable
JPEG/PNG photo. No die in the photo is not an error: the list is empty. A photo of a
Mauerhuepfer board (found surely) also has the small dice beside it read the board's way
(`vision.mauer.dice_beside_board`), with that reader's warnings.
"""

from __future__ import annotations

import argparse
import threading
import time

# OpenCV's first 8-bit BGR -> Lab conversion in a process builds its tables (~95 ms alone,
# ~200-250 ms on the shared 2-core box; session 17, H10); only the board gate
# (`vision.mauer.find_board_quick`) converts to Lab here. One helper thread per process
# builds them while the photo is decoded and read (cv2 releases the GIL); joined before the
# gate, so no two threads build them at once. Same tables, so the same readings.
_lab_tables: threading.Thread | None = None
_lab_lock = threading.Lock()


def _lab_tables_ahead() -> threading.Thread:
    """The (started) thread making OpenCV's 8-bit Lab tables: one per process."""
    global _lab_tables
    with _lab_lock:
        if _lab_tables is None:
            import cv2
            import numpy as np

            pixel = np.zeros((1, 1, 3), np.uint8)  # (any size builds the whole tables)
            _lab_tables = threading.Thread(target=cv2.cvtColor, name="lab-tables",
                                           args=(pixel, cv2.COLOR_BGR2LAB), daemon=True)
            _lab_tables.start()
        return _lab_tables


def register(subparsers) -> None:
    p = subparsers.add_parser("dice", help="read the dice in a photo (any table, any game)")
    p.add_argument("photo", help="JPEG or PNG photo")
    p.add_argument("--json", action="store_true", help="print the contract's JSON")
    p.add_argument("--annotate", metavar="OUT.jpg",
                   help="also write the photo with each die's value drawn on it")
    p.set_defaults(func=cmd_dice)


def read_dice_photo(source) -> dict:
    """The contract's dice object for a photo path or bytes (raises BadImage subclasses of
    BadInput for anything that is not a readable photo): `read_dice` on the whole photo,
    merged with the dice beside a Mauerhuepfer board where one is found surely. The CLI and
    `vision.dice_eval --dir D --command` read dice through it (the web API has no dice
    route)."""
    from vision.dice import read_dice, rescale_positions

    lab_tables = _lab_tables_ahead()  # (meanwhile: the imports, decoding, `read_dice`)
    from vision.image_io import AS_TAKEN, load_photo
    from vision.mauer import dice_beside_board

    t0 = time.perf_counter()
    photo = load_photo(source, AS_TAKEN)
    t1 = time.perf_counter()
    dice, warnings, timings = read_dice(photo.image)
    lab_tables.join()
    dice, board_warnings, board_times, _ = dice_beside_board(photo.image, dice)
    warnings = warnings + board_warnings
    timings = {**timings, **board_times}
    out = []
    for d in dice:
        out.append({"value": d.value, "confidence": d.confidence,
                    "center": [round(d.center[0] * photo.scale, 1),
                               round(d.center[1] * photo.scale, 1)]})
    if photo.scale != 1:
        warnings = [rescale_positions(w, photo.scale) for w in warnings]
    t2 = time.perf_counter()
    times = {"decode": round((t1 - t0) * 1000, 2)}
    times.update({k: v for k, v in timings.items() if k != "total"})
    times["total"] = round((t2 - t0) * 1000, 2)
    return {"image": {"width": photo.width, "height": photo.height}, "dice": out,
            "warnings": warnings, "timings_ms": times}


def _annotate(path_in: str, result: dict, path_out: str) -> None:
    import cv2

    from tablescore.errors import BadInput
    from vision.image_io import AS_TAKEN, load_photo

    photo = load_photo(path_in, AS_TAKEN)
    img = photo.image.copy()
    for d in result["dice"]:
        x, y = (round(c / photo.scale) for c in d["center"])
        cv2.circle(img, (x, y), 6, (0, 0, 255), -1)
        cv2.putText(img, str(d["value"]), (x + 8, y - 8), cv2.FONT_HERSHEY_SIMPLEX, 1.0,
                    (0, 0, 255), 2, cv2.LINE_AA)
    if not cv2.imwrite(path_out, img):
        raise BadInput(f"cannot write the annotated photo to {path_out}")


def cmd_dice(args: argparse.Namespace) -> int:
    from tablescore.cli import check_annotate, emit

    check_annotate(args.annotate, args.photo)
    result = read_dice_photo(args.photo)
    if args.annotate:
        _annotate(args.photo, result, args.annotate)
    values = ", ".join(str(d["value"]) for d in result["dice"]) or "no dice"
    human = "\n".join([f"dice: {values}"] + [f"warning: {w}" for w in result["warnings"]])
    emit(result, args.json, human)
    return 0
