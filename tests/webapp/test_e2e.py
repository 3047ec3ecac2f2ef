"""End to end in real headless Chromium (Debian's ``chromium``, driven by Playwright): open the
page at phone size, start a Simsala Hopp game, take the photo with Chromium's fake camera
playing a committed synthetic scene, and find the right score on the page; then play the turn
through the Lazy Spells to the bats. A second test types the tiles in by hand."""

import json
from contextlib import contextmanager
from pathlib import Path

import pytest

import scoring
from tests.webapp.browser import live_server, phone_browser, start_simsala, write_y4m

DATA = Path(__file__).parents[1] / "data"
SCENE = DATA / "simsala-hopp-scene.jpg"
TRUTH = json.loads((DATA / "simsala-hopp-scene.json").read_text())
PLAYERS = "yellow,orange,blue"  # the new-game form's default: three players, yellow first

pytestmark = pytest.mark.slow


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


@contextmanager
def started_game(tmp_path, game: str):
    """A phone page on a fresh server whose new `game` is started and typed in by hand:
    yields (page, errors: the page's script errors)."""
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{url}/#/new/{game}")
        page.click("#start-game")
        page.wait_for_selector("#type-in")
        page.click("#type-in")
        yield page, errors


@pytest.mark.parametrize("game", sorted(AFTER_USE))
def test_every_game_from_the_form_to_its_panel(tmp_path, game):
    with started_game(tmp_path, game) as (page, errors):
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


@pytest.mark.parametrize(
    "game, bad",
    [
        ("troetofanten", {"north": {"elephant-3": 1}}),  # the "zones" wrapper forgotten
        ("magic-rabbit", {"line": 5}),  # a key right, its value not a list
        ("simsala-hopp", [1, 2]),  # not an object at all
    ],
)
def test_facts_json_the_form_cannot_show_keeps_the_page(tmp_path, game, bad):
    # Before: "Apply the JSON" stored such facts as the draft and the form threw, so the page
    # showed only an error, on every later visit too, until the phone's storage was cleared.
    with started_game(tmp_path, game) as (page, errors):
        page.wait_for_selector("#editor")
        sid = page.evaluate("location.hash").split("/")[2]
        page.click("details:has(#facts-json) summary")
        page.fill("#facts-json", json.dumps(bad))
        page.click("text=Apply the JSON")
        page.wait_for_selector("#toast.err:has-text('Not applied')")
        assert page.locator("#editor *").count() > 0 and page.locator("#score-facts").count()
        # A draft the form cannot show (kept by an older page): the form starts afresh and the
        # draft stays in the JSON box to be mended.
        page.evaluate("([k, v]) => localStorage.setItem(k, JSON.stringify(v))",
                      [f"draft:{sid}", bad])
        page.reload()
        page.wait_for_selector("#score-facts")
        assert page.locator("#editor *").count() > 0
        assert json.loads(page.input_value("#facts-json")) == bad
        assert "do not fit the form" in page.inner_text("#toast")
    assert errors == []


def test_checking_a_move_with_a_field_left_empty_asks_for_it(tmp_path):
    # Before: an empty "from" went to the referee and came back "Not allowed: there is no
    # field  on this board", a verdict on a move nobody described.
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        page.goto(f"{url}/#/new/mauerhuepfer")
        page.click("#start-game")
        page.click("#type-in")
        page.click("#score-facts")
        page.click("#use-result")
        page.wait_for_selector("#move-from")
        page.fill("#move-to", "7")
        page.click("text=Is this move allowed?")
        page.wait_for_selector("#move-verdict .error")
        assert "Say where the pawn moves from" in page.inner_text("#move-verdict")
        page.fill("#move-from", "B")
        page.click("text=Is this move allowed?")
        page.wait_for_selector("#move-verdict .big")  # a described move gets the verdict


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


HAT_ORDER_JS = "(cases) => cases.map((pieces) => hatOrder(pieces))"


def test_page_reads_the_magic_rabbit_line_like_the_server(tmp_path):
    # The photo overlay marks wrong positions with the page's own line order (hatOrder);
    # it must agree with webapp/edit.py's line_order that rebuilds the facts: with and without
    # a magician tile (then from the end the numbers ascend from, rabbits counted too).
    import random

    from tests.webapp.test_units import line_scene, two_magicians_scene
    from webapp.edit import line_order

    rng = random.Random(7)
    cases = []
    for _ in range(40):
        n = rng.choice([6, 7, 9])
        hats = rng.sample(range(1, 10), n)
        pieces = [{"label": f"hat-{h}", "center": [rng.uniform(0, 1200), rng.uniform(0, 900)]}
                  for h in hats]
        pieces += [{"label": f"rabbit-{r}", "center": [rng.uniform(0, 1200), rng.uniform(0, 900)]}
                   for r in rng.sample(range(1, 10), rng.randint(0, n))]
        if rng.random() < 0.5:
            pieces.append({"label": "magician",
                           "center": [rng.uniform(0, 1200), rng.uniform(0, 900)]})
        rng.shuffle(pieces)
        cases.append(pieces)
    for hats, magician in [([1, 2, 3, 5, 4, 6], None),  # ascends from the left
                           ([6, 5, 4, 3, 2, 1], None),  # from the right
                           ([1, 2], None),  # a tie with the rabbits below (2, 1): left to right
                           ([1, 2, 3, 4, 5, 6], 6)]:  # a magician on the right decides
        rabbits = [2, 1] if hats == [1, 2] else hats
        cases.append(line_scene(hats, rabbits, magician)[0])
    cases.append(two_magicians_scene()[0])  # the surer magician, on the right, decides
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        page.goto(url + "/")
        got = page.evaluate(HAT_ORDER_JS, cases)
    assert got == [line_order(pieces) for pieces in cases]
    assert got[-5:] == [[0, 1, 2, 3, 4, 5], [5, 4, 3, 2, 1, 0], [0, 1], [5, 4, 3, 2, 1, 0],
                        [6, 5, 4, 3, 2, 1]]


@pytest.mark.parametrize("magician", [None, 9])
def test_wrong_positions_are_outlined_on_the_right_tiles(tmp_path, magician):
    # A line that ascends from the right, hats 3 and 4 (from the right) swapped: without a
    # magician tile the page reads it from the right, as the photo reader does, so the two
    # swapped hats are outlined; a magician tile on the right reads it the same way.
    from tests.webapp.test_units import line_scene

    hats = [9, 8, 7, 6, 5, 3, 4, 2, 1]
    pieces, _ = line_scene(hats, hats, magician)
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        page.goto(url + "/")
        got = page.evaluate(
            """async (pieces) => {
                 const post = async (path, body) => (await fetch(path, {method: 'POST',
                   headers: {'Content-Type': 'application/json'},
                   body: JSON.stringify(body)})).json();
                 const s = await post('/api/sessions', {game: 'magic-rabbit',
                   players: [{name: 'Mia'}, {name: 'Leo'}], options: {}});
                 const result = await post('/api/score/facts', {game: 'magic-rabbit',
                   session: s.id, pieces, image: {width: 1000, height: 750}});
                 sessionStorage.setItem(`saw:${s.id}`,
                   JSON.stringify({result, baseFacts: result.facts}));
                 location.hash = `#/s/${s.id}/saw`;
                 return result; }""",
            pieces,
        )
        assert [p["hat"] for p in got["facts"]["line"]] == hats[::-1]
        assert got["score"]["wrong_positions"] == [2, 3]
        page.wait_for_selector("#overlay g.pc")
        wrong = page.eval_on_selector_all(
            "#overlay g.pc", "(gs) => gs.filter((g) => g.querySelector('.wrong'))"
                             ".map((g) => g.dataset.label)")
        assert "Wrong positions (from the magician, 1 = first): 3, 4" in page.inner_text("#score")
    assert sorted(wrong) == ["hat-3", "hat-4"]
