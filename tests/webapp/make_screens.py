"""Screenshots of the phone page's main screens at 390 x 844 for docs/screens/.

    .venv/bin/python -m tests.webapp.make_screens [--out docs/screens]

Runs the real app (and the real vision pipeline for the photo) in headless Debian chromium
with the fake camera playing the committed Simsala Hopp scene (tests/data/). ``--truth`` makes
the photo's answer the scene's ground truth instead (only for working on the page while the
vision part is not ready; never used for the committed screenshots).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from tests.webapp.browser import live_server, phone_browser, write_y4m

DATA = Path(__file__).parents[1] / "data"


def use_truth() -> None:
    import scoring
    import vision.pipeline

    truth = json.loads((DATA / "simsala-hopp-scene.json").read_text())

    def fake(source, game, options, teach=None, annotate=None):
        score, warnings = scoring.score_facts(game, truth["facts"], options)
        return {**{k: truth[k] for k in ("game", "image", "area", "pieces", "facts")},
                "score": score, "warnings": warnings, "timings_ms": {"total": 0}}

    vision.pipeline.score_photo = fake


def act(page, sid, action):
    return page.evaluate(
        """async ([sid, action]) => {
            const r = await fetch(`/api/sessions/${sid}/actions`, {method: 'POST',
              headers: {'Content-Type': 'application/json'}, body: JSON.stringify(action)});
            return await r.json(); }""",
        [sid, action],
    )


def new_session(page, game, players, options=None):
    return page.evaluate(
        """async ([game, players, options]) => {
            const r = await fetch('/api/sessions', {method: 'POST',
              headers: {'Content-Type': 'application/json'},
              body: JSON.stringify({game, players, options})});
            return (await r.json()).id; }""",
        [game, players, options or {}],
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default="docs/screens")
    ap.add_argument("--truth", action="store_true", help="ground truth instead of the pipeline")
    args = ap.parse_args(argv)
    if args.truth:
        use_truth()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="tablescore-screens-"))
    clip = write_y4m(DATA / "simsala-hopp-scene.jpg", tmp / "scene.y4m")

    def shot(page, name):
        page.wait_for_timeout(300)
        page.screenshot(path=str(out / f"{name}.png"))
        print("wrote", out / f"{name}.png")

    with live_server(tmp / "data") as url, phone_browser(tmp / "profile", clip) as page:
        page.goto(url + "/")
        page.wait_for_selector("[data-game=simsala-hopp]")
        shot(page, "01-home")
        page.click("[data-game=simsala-hopp]")
        names = ["Ann", "Olli", "Ben"]
        for colour, name in zip(("yellow", "orange", "blue"), names, strict=True):
            page.fill(f"input[data-colour={colour}]", name)
        shot(page, "02-new-game")
        page.click("#start-game")
        page.wait_for_selector("#magician")
        shot(page, "03-simsala-turn")
        page.click("#take-photo")
        page.wait_for_function(
            "() => { const v = document.querySelector('#viewfinder'); "
            "return v && v.videoWidth > 0; }"
        )
        page.wait_for_timeout(800)
        shot(page, "04-camera")
        page.click("#shutter")
        page.wait_for_selector("#score [data-points=yellow], #camera-status .error",
                               timeout=90_000)
        if page.locator("#camera-status .error").count():
            raise SystemExit("the photo was not read: " + page.inner_text("#camera-status"))
        page.wait_for_selector("#overlay")
        shot(page, "05-what-i-saw")
        page.locator("#score").scroll_into_view_if_needed()
        page.evaluate("window.scrollBy(0, 120)")
        shot(page, "06-score-and-referee")
        page.evaluate("window.scrollTo(0, 0)")
        page.locator("#overlay g.pc").first.click()
        page.wait_for_selector("#sheet:not([hidden])")
        shot(page, "07-relabel-a-piece")
        page.click("#sheet button:has-text('Close')")
        page.click("#use-result")
        page.wait_for_selector("#lazy")
        shot(page, "08-lazy-spell")
        page.click("#pass")
        page.wait_for_selector("#lazy h3:has-text('Ben')")
        page.click("#pass")
        page.wait_for_selector("#count-points")
        page.click("#count-points")
        page.wait_for_function("() => document.querySelector('#magician')"
                               " && document.querySelector('#magician').innerText.includes('Olli')")
        shot(page, "09-standings")

        sid = new_session(page, "magic-rabbit", [{"name": "Mia"}, {"name": "Leo"}])
        line = [{"hat": n, "rabbit": n, "dove": False} for n in range(1, 10)]
        line[5]["rabbit"], line[6]["rabbit"] = 7, 6
        act(page, sid, {"type": "start-hourglass"})
        act(page, sid, {"type": "reveal", "facts": {"line": line}})
        page.goto(f"{url}/#/s/{sid}")
        page.wait_for_selector("#verdict")
        page.locator("#verdict").scroll_into_view_if_needed()
        shot(page, "10-magic-rabbit")

        sid = new_session(page, "hop-la-bille", [{"name": "Nora", "colour": "north"},
                                                 {"name": "Sam", "colour": "south"}],
                          {"variant": "pile"})
        act(page, sid, {"type": "return-card", "zone": "south", "colour": "blue"})
        act(page, sid, {"type": "check", "facts": {
            "zones": {"north": {"marble-red": 2, "marble-green": 1},
                      "south": {"marble-yellow": 1, "marble-darkblue": 2}},
            "cards": {"north": [{"colour": "green", "marbles": ["marble-red", "marble-red",
                                                                "marble-green"]},
                                {"colour": "red", "marbles": ["marble-red", "marble-yellow",
                                                              "marble-green", "marble-lightblue",
                                                              "marble-darkblue"]}],
                      "south": [{"colour": "back", "marbles": []},
                                {"colour": "green", "marbles": ["marble-yellow", "marble-red",
                                                                "marble-darkblue"]}]}}})
        page.goto(f"{url}/#/s/{sid}")
        page.wait_for_selector("#cards")
        shot(page, "11-hop-la-bille")

        sid = new_session(page, "mauerhuepfer", [{"name": "Rita", "colour": "red"},
                                                 {"name": "Gus", "colour": "green"}])
        act(page, sid, {"type": "check", "facts": {
            "dice": [2, 5], "pawns": {"pawn-red": 4, "pawn-green": 4},
            "positions": {"pawn-red": ["B", "B", "12", "a"], "pawn-green": ["B", "B", "B", "19"]}}})
        page.goto(f"{url}/#/s/{sid}")
        page.wait_for_selector("#board-read")
        page.click("#moves + button, #board-read button:has-text('Show the moves')")
        page.wait_for_selector("#moves ul")
        page.locator("#moves").scroll_into_view_if_needed()
        shot(page, "12-mauerhuepfer-moves")

        sid = new_session(page, "troetofanten", [{"name": "Nia", "colour": "north"},
                                                 {"name": "Eli", "colour": "east"},
                                                 {"name": "Sol", "colour": "south"}])
        act(page, sid, {"type": "round", "points": {"north": 31, "east": 24, "south": 28}})
        act(page, sid, {"type": "round", "facts": {"zones": {
            "north": {"elephant-1": 9, "elephant-2": 8, "tootophant-3": 4, "mouse": 1,
                      "back": 2},
            "east": {"elephant-4": 11, "elephant-5": 12, "mousetrap": 1},
            "south": {"elephant-3": 12, "lasso": 2, "tamer": 1}}}})
        page.goto(f"{url}/#/s/{sid}")
        page.wait_for_selector("#standings")
        shot(page, "13-troetofanten")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
