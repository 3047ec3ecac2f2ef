"""End to end in real headless Chromium (Debian's ``chromium``, driven by Playwright): open the
page at phone size, start a Simsala Hopp game, take the photo with Chromium's fake camera
playing a committed synthetic scene, and find the right score on the page; then play the turn
through the Lazy Spells to the bats. A second test types the tiles in by hand."""

import json
from pathlib import Path

import pytest

import scoring
from tests.webapp.browser import live_server, phone_browser, write_y4m

DATA = Path(__file__).parents[1] / "data"
SCENE = DATA / "simsala-hopp-scene.jpg"
TRUTH = json.loads((DATA / "simsala-hopp-scene.json").read_text())
PLAYERS = "yellow,orange,blue"  # the new-game form's default: three players, yellow first

pytestmark = pytest.mark.slow


def start_simsala(page, url):
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url + "/")
    page.click("[data-game=simsala-hopp]")
    page.click("#start-game")
    page.wait_for_selector("#magician")
    assert "Yellow is the magician" in page.inner_text("#magician")
    return errors


def finish_turn(page, points):
    """Use the result, let both spectators pass, count: the bats show the turn's points."""
    page.click("#use-result")
    page.wait_for_selector("#lazy")
    for _ in range(2):  # each pass waits for the page to show the next spectator (or the
        # count): a click on the replaced button would pass for the same spectator again
        before = page.inner_text("#lazy h3")
        page.click("#pass")
        page.wait_for_function(
            "(b) => { const h = document.querySelector('#lazy h3'); "
            "return document.querySelector('#count-points') || (h && h.innerText !== b); }",
            arg=before)
    page.click("#count-points")
    page.wait_for_selector("#standings tr[data-colour=yellow]")
    page.wait_for_function("() => document.querySelector('#magician') && "
                           "document.querySelector('#magician').innerText.includes('Orange')")
    for colour, n in points.items():
        row = page.inner_text(f"#standings tr[data-colour={colour}]")
        assert row.split()[-2] == str(n), row


def test_photo_from_the_fake_camera_scores_the_turn(tmp_path):
    clip = write_y4m(SCENE, tmp_path / "scene.y4m")
    expected, _ = scoring.score_facts(
        "simsala-hopp", TRUTH["facts"], {"magician": "yellow", "players": PLAYERS}
    )
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p", clip) as page:
        errors = start_simsala(page, url)
        page.click("#take-photo")
        page.wait_for_function(
            "() => { const v = document.querySelector('#viewfinder'); "
            "return v && v.videoWidth > 0 && !document.querySelector('#shutter').disabled; }"
        )
        page.click("#shutter")
        page.wait_for_selector("#score [data-points=yellow], #camera-status .error",
                               timeout=90_000)
        problem = page.locator("#camera-status .error")
        assert problem.count() == 0, problem.inner_text()
        shown = {c: int(page.inner_text(f"#score [data-points={c}]")) for c in PLAYERS.split(",")}
        assert shown == expected["points"]
        # The photo is shown with every piece outlined, and the referee says why.
        seen = page.evaluate("current.saw.result.pieces.length")
        assert seen > 0 and page.locator("#overlay g.pc").count() == seen
        referee = page.inner_text("#referee")
        assert "Yellow (magician) scores" in referee and "outside the arena" in referee
        finish_turn(page, expected["points"])
    assert errors == []


def test_tiles_typed_in_by_hand(tmp_path):
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        errors = start_simsala(page, url)
        page.click("#type-in")
        arena = page.locator("#editor details[data-zone=arena]")
        for _ in range(2):  # two frogs became white rabbits
            arena.locator(".stepper[data-label=frog] button").first.click()
            arena.locator(".stepper[data-label=rabbit-white] button").last.click()
        arena.locator(".stepper[data-label=frog] button").first.click()
        arena.locator(".stepper[data-label=rabbit-orange] button").last.click()
        page.click("#score-facts")
        page.wait_for_selector("#score [data-points=yellow]")
        shown = {c: page.inner_text(f"#score [data-points={c}]") for c in PLAYERS.split(",")}
        assert shown == {"yellow": "2", "orange": "1", "blue": "0"}
        finish_turn(page, {"yellow": 2, "orange": 1, "blue": 0})
        # A reload keeps the tournament (it lives on the server).
        page.reload()
        page.wait_for_selector("#standings tr[data-colour=yellow]")
        assert page.inner_text("#standings tr[data-colour=yellow]").split()[-2] == "2"
    assert errors == []


# what the game page shows after the typed-in facts were used (default form values)
AFTER_USE = {
    "magic-rabbit": ("#verdict", "You won"),  # the default line is the winning line
    "hop-la-bille": ("#cards", "Cards at the last check"),
    "mauerhuepfer": ("#board-read", "1 and 2"),
    "troetofanten": ("#standings", "R1"),
}


@pytest.mark.parametrize("game", sorted(AFTER_USE))
def test_every_game_from_the_form_to_its_panel(tmp_path, game):
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{url}/#/new/{game}")
        page.click("#start-game")
        page.wait_for_selector("#type-in")
        page.click("#type-in")
        page.click("#score-facts")
        page.wait_for_selector("#score")
        assert page.inner_text("#referee").strip()
        page.click("#use-result")
        selector, text = AFTER_USE[game]
        page.wait_for_selector(selector)
        assert text in page.inner_text(selector)
        # Undo is offered and puts the game back.
        page.click("details:has(#undo) summary")
        page.click("#undo")
        page.wait_for_function(
            "([sel, text]) => { const el = document.querySelector(sel); "
            "return !el || !el.innerText.includes(text); }",
            arg=[selector, text],
        )
    assert errors == []


def test_a_change_from_another_phone_shows_up(tmp_path):
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        start_simsala(page, url)
        sid = page.evaluate("location.hash").split("/")[2]
        # The other phone (here: a plain HTTP request) records Yellow's turn and counts it.
        other = page.context.request
        for action in ({"type": "turn", "facts": {"arena": {"rabbit-white": 1, "frog": 14},
                                                  "outside": {}}},
                       {"type": "pass", "player": "orange"}, {"type": "pass", "player": "blue"},
                       {"type": "count_points"}):
            res = other.post(f"{url}/api/sessions/{sid}/actions", data=action)
            assert res.ok, res.text()
        page.wait_for_function(
            "() => document.querySelector('#magician').innerText.includes('Orange')",
            timeout=20_000)
        assert page.inner_text("#standings tr[data-colour=yellow]").split()[-2] == "1"


def test_page_reads_the_magic_rabbit_line_like_the_server(tmp_path):
    # The photo overlay marks wrong positions with the page's own line order (hatOrder);
    # it must agree with webapp/edit.py's line_order that rebuilds the facts.
    import random

    from webapp.edit import line_order

    rng = random.Random(7)
    cases = []
    for _ in range(25):
        n = rng.choice([6, 7, 9])
        pts = [[rng.uniform(0, 1200), rng.uniform(0, 900)] for _ in range(n)]
        mag = [rng.uniform(0, 1200), rng.uniform(0, 900)] if rng.random() < 0.8 else None
        cases.append((pts, mag))
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        page.goto(url + "/")
        got = page.evaluate(
            """(cases) => cases.map(([pts, mag]) => hatOrder(
                 pts.map((c, i) => ({label: `hat-${i + 1}`, center: c}))
                   .concat(mag ? [{label: 'magician', center: mag}] : [])))""",
            cases,
        )
    assert got == [line_order(pts, mag) for pts, mag in cases]
