"""A new user's walk through the page (session 19, H5), in real headless Chromium at phone size
(slow): what broke on the way from the camera screen to the teach screen and back."""

import json
from pathlib import Path

import pytest

from tests.webapp.browser import SMALL_PHONE, live_server, phone_browser

pytestmark = pytest.mark.slow


def page_errors(page, errors: list[str] | None = None) -> list[str]:
    """The list (`errors`, else a new one) that the page's script errors are collected in."""
    errors = [] if errors is None else errors
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def teach_photo(page, url, game, scene) -> None:
    """The teach screen of `game` with the photo `scene` added (its svg drawn)."""
    page.goto(url + f"/#/teach/{game}")
    page.wait_for_selector("#teach-file", state="attached")
    page.set_input_files("#teach-file", str(scene))
    page.wait_for_selector("#teach-photos svg")


def hold_first_request(page, pattern: str, sent: list | None = None) -> list:
    """The first request to `pattern` held (its route in the list returned, to be answered
    with `.continue_()` later); the rest go on. `sent`: every such request's URL."""
    held: list = []

    def hold(route):
        if sent is not None:
            sent.append(route.request.url)
        if not held:
            held.append(route)
        else:
            route.continue_()

    page.route(pattern, hold)
    return held


def new_game(page, url, game) -> str:
    """Start `game` on the new-game form with its default players: the session's id."""
    page.goto(f"{url}/#/new/{game}")
    page.click("#start-game")
    page.wait_for_function("/^#\\/s\\/[^/]+$/.test(location.hash)")
    return page.evaluate("location.hash").split("/")[2]


@pytest.mark.parametrize("game", ["simsala-hopp", "troetofanten"])
def test_the_camera_screens_teach_link_opens_the_teach_screen(tmp_path, game):
    # Before: the link is #/teach/<game>?back=<sid>; the router split the query with the path,
    # found no game "<game>?back=<sid>" and went to the start page, so the teach screen could
    # only be reached by typing its address.
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        errors = page_errors(page)
        sid = new_game(page, url, game)
        page.goto(f"{url}/#/s/{sid}/camera")
        page.click("#teach-line a")
        page.wait_for_selector("#teach-file", state="attached")
        assert page.evaluate("location.hash") == f"#/teach/{game}?back={sid}"
        assert page.inner_text("#title").startswith("Teach")
        page.click("#back")  # the title bar's back arrow returns to this game's camera
        page.wait_for_selector("#teach-line")
        assert page.evaluate("location.hash") == f"#/s/{sid}/camera"
        assert not errors


REPO = Path(__file__).parents[2]
RABBIT = REPO / "datasets" / "scenes" / "magic-rabbit" / "magic-rabbit-e1-s1-0000.jpg"
HEIC = b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + b"\x00" * 200  # an iPhone's photo


def toast_shown(page) -> bool:
    return page.evaluate("!document.querySelector('#toast').hidden")


def test_an_error_stays_with_its_screen_and_a_half_done_swap_says_why(tmp_path):
    # Before: (1) the red toast of a photo the server refused ("not a JPEG or PNG image")
    # stayed for 7 s over the next screen, also over the next photo's result; (2) swapping
    # two hats on the photo goes through "two hats 2": the server refuses that, and the page
    # said only "Your change is kept but not scored yet" with "Score it again", which gets
    # the same refusal (the reason flashed by in the toast).
    heic = tmp_path / "IMG_0001.HEIC"
    heic.write_bytes(HEIC)
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        errors = page_errors(page)
        sid = new_game(page, url, "magic-rabbit")
        for leave in ("back", "next photo"):
            page.goto(f"{url}/#/s/{sid}/camera")
            page.set_input_files("#photo-file", str(heic))
            page.wait_for_selector("#camera-status .error")
            # (said once, under the shutter: session 31, page-walk-2)
            assert not toast_shown(page) and "HEIC" in page.inner_text("#camera-status")
            if leave == "back":
                page.click("#back")
                page.wait_for_selector("#take-photo")
                assert not toast_shown(page)
        page.set_input_files("#photo-file", str(RABBIT))
        # while it is read, the refused photo's error is gone from under the shutter too
        page.wait_for_function("document.querySelector('.busy') && "
                               "!document.querySelector('#camera-status .error')")
        page.wait_for_selector("#use-result:not([disabled])", timeout=90_000)
        assert not toast_shown(page)
        # Swap hats 1 and 2 by hand: the first half is refused, with the reason on the page.
        page.dispatch_event("g.pc[data-label=hat-1]", "click")
        page.click("#sheet [data-label=hat-2]")
        page.wait_for_selector("#unscored")
        unscored = page.inner_text("#unscored")
        assert "appears twice" in unscored and "Correct the pieces further" in unscored
        assert page.locator("#rescore").count() == 0 and page.is_disabled("#use-result")
        page.reload()  # the reason is kept with the change
        page.wait_for_selector("#unscored")
        assert "appears twice" in page.inner_text("#unscored")
        first = page.get_attribute("g.pc[data-label=hat-2]", "data-i")  # (the two: in order)
        page.dispatch_event(f"g.pc[data-label=hat-2]:not([data-i='{first}'])", "click")
        page.click("#sheet [data-label=hat-1]")
        page.wait_for_selector("#use-result:not([disabled])")
        assert page.locator("#unscored").count() == 0
        assert not errors


def tile(cx: float, cy: float, label: str, half: float = 30.0) -> dict:
    return {"label": label, "zone": "line", "confidence": 0.9, "center": [cx, cy],
            "polygon": [[cx - half, cy - half], [cx + half, cy - half],
                        [cx + half, cy + half], [cx - half, cy + half]]}


def dove(cx: float, cy: float) -> dict:
    return {"label": "dove", "zone": "line", "confidence": 0.9, "center": [cx, cy],
            "polygon": None}


def test_tapping_a_pieces_centre_opens_that_piece(tmp_path):
    # Before: the topmost outline took the tap, and a round piece's tap circle (2.2 times its
    # drawn radius, ~51 px on a 1280 px photo) drawn after a tile covered the tile's centre:
    # tapping a hat opened the dove on it (11 of 62 Magic Rabbit pieces of committed photos,
    # 13 of 42 Hop la bille marbles opened a neighbour). Now the nearest centre wins.
    pieces = [tile(200 + 80 * k, 400, f"hat-{k + 1}") for k in range(4)]
    pieces += [dove(200 + 80 * k + 22, 400 - 24) for k in range(4)]  # on each hat's corner
    pieces += [dove(700, 400), dove(730, 400)]  # two doves 30 px apart
    result = {"game": "magic-rabbit", "image": {"width": 1280, "height": 960}, "area": None,
              "pieces": pieces, "facts": {"line": [], "won": False},
              "score": {"won": False, "wrong_positions": []}, "warnings": [],
              "explanation": [], "timings_ms": {"total": 1.0}}
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        errors = page_errors(page)
        show_saw(page, url, "magic-rabbit", result)
        opened = []
        for p in pieces:
            box = page.locator("#overlay").bounding_box()
            page.mouse.click(box["x"] + p["center"][0] / 1280 * box["width"],
                             box["y"] + p["center"][1] / 960 * box["height"])
            opened.append(page.inner_text("#sheet h3").removeprefix("This is: "))
            page.click("#sheet button:has-text('Close')")
        assert opened == [f"hat {k}" for k in range(1, 5)] + ["dove"] * 6
        assert not errors


def test_a_second_tab_sees_the_other_tabs_round_before_sending_its_own(tmp_path):
    # Before: the second tab's "Record the round" got 409, the message said "the page
    # reloaded it, please check", but the standings on the screen stayed without the first
    # tab's round, so nothing could be checked and a second tap recorded the round twice.
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as first:
        errors = page_errors(first)
        sid = new_game(first, url, "troetofanten")
        second = first.context.new_page()
        page_errors(second, errors)
        second.goto(f"{url}/#/s/{sid}")
        record = "button:has-text('Record the round')"
        second.wait_for_selector(record, state="attached")
        for page, points in ((first, "5"), (second, "9")):
            page.click("summary:has-text('Enter points by hand')")
            page.fill("input[data-side=north]", points)
        first.click(record)
        first.wait_for_function("document.querySelectorAll('#standings th').length === 3")
        second.click(record)
        second.wait_for_selector("#toast.err:has-text('changed on another device')")
        second.wait_for_function("document.querySelectorAll('#standings th').length === 3")
        assert "5" in second.inner_text("#standings tr:has-text('North')")
        assert second.input_value("input[data-side=north]") == "9"  # what was typed stays
        assert not errors


def test_the_teach_screen_asks_for_kinds_not_numbers(tmp_path):
    # Troetofanten is taught per kind (the number comes from the corner-index model). Before:
    # with an elephant and a tootophant named, "Not yet:" still listed elephant 1, 3, 4, 5 and
    # tootophant 3, 4, 5 next to the kinds not named.
    scene = REPO / "datasets" / "scenes-edition2" / "troetofanten" / "troetofanten-e2-s2-0000.jpg"
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        teach_photo(page, url, "troetofanten", scene)
        for k, label in enumerate(("elephant-2", "tootophant-3")):
            box = page.locator("#teach-photos svg").bounding_box()
            page.mouse.click(box["x"] + 50 + 100 * k, box["y"] + 50)
            page.click(f"#sheet [data-label={label}]")
        status = page.inner_text("#teach-status")
        assert "2 piece(s) named" in status
        missing = status.split("Not yet:")[1]
        assert "elephant" not in missing and "tootophant" not in missing
        assert "mouse" in missing and "back" in missing


def show_saw(page, url, game, result) -> None:
    """Start `game` with the form's default players and open "what I saw" on `result`."""
    sid = new_game(page, url, game)
    page.evaluate("([k, v]) => sessionStorage.setItem(k, JSON.stringify(v))",
                  [f"saw:{sid}", {"result": result, "baseFacts": result["facts"]}])
    page.goto(f"{url}/#/s/{sid}/saw")
    page.wait_for_selector("#score")


def typed(game, facts, score) -> dict:
    return {"game": game, "image": None, "area": None, "pieces": [], "facts": facts,
            "score": score, "warnings": [], "explanation": [], "timings_ms": {"total": 1.0}}


def test_the_score_lists_the_players_and_what_was_read(tmp_path):
    # Before: Hop la bille's score listed every zone the scorer answers, "South –", "West –",
    # "Middle –", as if they played, for two players (north, east); Mauerhuepfer with no die
    # read said "Dice: " and nothing.
    hop = typed("hop-la-bille",
                {"zones": {}, "cards": {"east": [{"colour": "green", "marbles": []}],
                                        "west": [{"colour": "red", "marbles": []}]}},
                {"completed": {"north": [], "east": [0], "south": [], "west": [],
                               "middle": []}})
    mauer = typed("mauerhuepfer", {"dice": [], "pawns": {}, "positions": {}},
                  {"home": {"red": 0, "yellow": 0}, "winner": None})
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        show_saw(page, url, "hop-la-bille", hop)
        zones = page.eval_on_selector_all("#score .score-line", "ls => ls.map(l => l.dataset.zone)")
        assert zones == ["north", "east", "west"]  # the players, and west where cards lie
        show_saw(page, url, "mauerhuepfer", mauer)
        assert "Dice: none seen" in page.inner_text("#score")


LONG_NAMES = ["Wolfeschlegelsteinhausen", "Ångström-Łukasiewiczowa", "M" * 24]  # (24: the most)


@pytest.mark.parametrize("game, colours", [("simsala-hopp", ["yellow", "orange", "blue"]),
                                           ("troetofanten", ["north", "east", "south"])])
def test_long_names_fit_the_phone(tmp_path, game, colours):
    # Before: a 24-letter name without a space made the game 505 px wide on a 390 px phone
    # (the whole page scrolled sideways). The table's headings must not break ("Tot|al").
    players = [{"name": n, "colour": c} for n, c in zip(LONG_NAMES, colours, strict=True)]
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        page.goto(url + "/")
        session = page.evaluate(
            "(b) => fetch('/api/sessions', {method: 'POST', headers: {'Content-Type': "
            "'application/json'}, body: JSON.stringify(b)}).then((r) => r.json())",
            {"game": game, "players": players})
        page.goto(f"{url}/#/s/{session['id']}")
        page.wait_for_selector("#standings")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        heights = page.eval_on_selector_all("#standings th", "ts => ts.map(t => t.clientHeight)")
        assert len(set(heights)) == 1, heights  # every heading on one line


@pytest.mark.parametrize("image", [{"width": 1280, "height": 960}, None])
def test_a_doubt_about_a_piece_shows_where_it_is(tmp_path, image):
    # Before: "the card-blue at (870, 518): ..." named the piece by photo pixels only, and a
    # black and white photo's "no colour" came 27th, after 26 doubts about single pieces;
    # now the doubt's number is drawn there on the photo, tapping the doubt opens that piece,
    # and doubts about the whole photo come first. (A result without `image`, as typed-in
    # facts' are, drew the pieces on a stand-in but a tap on the doubt threw a TypeError.)
    pieces = [tile(300, 300, "hat-1"), tile(700, 400, "hat-2"), dove(722, 376)]
    result = typed("magic-rabbit", {"line": [], "won": False},
                   {"won": False, "wrong_positions": []})
    result.update(image=image, pieces=pieces, warnings=[
        "the hat-2 at (700, 400) is read as hat-2: check it",
        "unsure about the dove at (722.4, 376.0) (confidence 0.39)",
        "the photo has no colour (black and white): take a colour photo"])
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        errors = page_errors(page)
        show_saw(page, url, "magic-rabbit", result)
        spots = page.eval_on_selector_all(
            "#overlay g.warn-spot", "gs => gs.map(g => [g.dataset.k, "
            "Number(g.querySelector('circle').getAttribute('cx'))])")
        assert spots == [["1", 700], ["2", 722.4]]
        # the doubt about the whole photo first (it came last, after those about pieces)
        assert page.inner_text("#warnings li >> nth=0").startswith("the photo has no colour")
        assert page.inner_text("#warnings li >> nth=1").startswith("1 the hat-2")
        page.click("#warnings li >> nth=1")
        assert page.inner_text("#sheet h3") == "This is: hat 2"
        page.click("#sheet button:has-text('Close')")
        page.click("#warnings li >> nth=2")
        assert page.inner_text("#sheet h3") == "This is: dove"
        assert not errors


def test_a_screen_left_before_its_game_loaded_does_not_cover_the_next(tmp_path):
    # Before: the router did not drop a screen the user had left: the game screen's request
    # answered after the camera screen was drawn, and the game screen was drawn over it (the
    # camera's file field went away under the finger; seen in the walk at machine speed, a
    # slow phone network makes it likely).
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        errors = page_errors(page)
        sid = new_game(page, url, "troetofanten")
        page.goto(f"{url}/#/s/{sid}/hand")
        page.wait_for_selector("#score-facts")
        held = hold_first_request(page, f"**/api/sessions/{sid}")  # the game screen's:
        #   answered later
        page.evaluate(f"location.hash = '#/s/{sid}'")
        page.wait_for_function("() => true")
        while not held:
            page.wait_for_timeout(50)
        page.evaluate(f"location.hash = '#/s/{sid}/camera'")
        page.wait_for_selector("#photo-file", state="attached")
        held[0].continue_()
        page.wait_for_timeout(800)
        assert page.evaluate("location.hash") == f"#/s/{sid}/camera"
        assert page.locator("#photo-file").count() == 1, page.inner_text("#app")[:200]
        assert not errors


def test_teach_photos_and_taps_survive_a_reload(tmp_path):
    # Before: the teach screen kept its photos and taps in the page's memory only: a reload,
    # or the phone dropping the tab while the camera app was open, lost them all.
    scene = REPO / "datasets" / "scenes-edition2" / "simsala-hopp" / "simsala-hopp-e2-s2-0000.jpg"
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        errors = page_errors(page)
        teach_photo(page, url, "simsala-hopp", scene)
        truth = json.loads(scene.with_suffix(".json").read_text())
        cat = next(p for p in truth["pieces"] if p["label"] == "cat" and p["zone"] == "arena")
        box = page.locator("#teach-photos svg").bounding_box()
        page.mouse.click(box["x"] + cat["center"][0] * box["width"] / truth["image"]["width"],
                         box["y"] + cat["center"][1] * box["height"] / truth["image"]["height"])
        page.click("#sheet [data-label=cat]")
        page.fill("#teach-name", "grandmas-box")
        page.wait_for_timeout(300)  # (IndexedDB writes are asynchronous)
        page.reload()
        page.wait_for_selector("#teach-photos svg")
        assert "1 piece(s) named" in page.inner_text("#teach-status")
        assert page.input_value("#teach-name") == "grandmas-box"
        assert page.locator("#teach-photos svg text").text_content() == "cat"
        page.click("#teach-save")  # the kept photo is what is sent
        page.wait_for_function("localStorage.getItem('teach:simsala-hopp') === "
                               "'\"grandmas-box\"'", timeout=60_000)
        page.goto(url + "/#/teach/simsala-hopp")  # learnt: the screen starts empty again
        page.wait_for_selector("#teach-file", state="attached")
        assert page.locator("#teach-photos svg").count() == 0
        assert not errors
    meta = json.loads((tmp_path / "data" / "teach" / "grandmas-box" / "profile.json").read_text())
    assert meta["counts"] == {"cat": 1}


def title_fits(page) -> bool:
    """The title bar's text is shown whole (not cut with an ellipsis or clipped)."""
    return page.evaluate("""() => { const t = document.querySelector('#title');
        return t.scrollWidth <= t.clientWidth + 1 && t.scrollHeight <= t.clientHeight + 1; }""")


def test_the_title_names_the_screen_on_a_small_phone(tmp_path):
    # Session 31 (page-walk). Before: the title bar kept one line and cut the rest with "...":
    # on a 320 px phone "Simsala Hopp: what I saw" read "Simsala Hopp: what I ..." for every
    # game, "Der Troetofanten-Zirkus" lost its screen name everywhere ("Der Troetofanten-Z...").
    with live_server(tmp_path / "data") as url, \
            phone_browser(tmp_path / "p", viewport=SMALL_PHONE) as page:
        errors = page_errors(page)
        sid = new_game(page, url, "troetofanten")
        page.wait_for_selector("#app table")
        assert title_fits(page), page.inner_text("#title")
        page.goto(f"{url}/#/s/{sid}/camera")
        page.wait_for_selector("#photo-file", state="attached")
        assert page.inner_text("#title") == "Der Troetofanten-Zirkus: photo"
        assert title_fits(page)
        assert page.locator("#title").bounding_box()["height"] <= 60  # two lines at most
        page.goto(f"{url}/#/teach/troetofanten?back={sid}")
        page.wait_for_selector("#teach-file", state="attached")
        assert title_fits(page), page.inner_text("#title")
        assert not errors


def test_a_photo_being_read_cannot_be_sent_again_or_hidden(tmp_path):
    # Session 31 (page-walk). Before: while a photo was read (seconds on a slow server or
    # network) "Choose a photo" still opened the picker, and the photo chosen then was dropped
    # without a word (one photo in flight); with no camera (plain http) the "No camera ...
    # Choose a photo instead." line stood through "Reading the photo...", both unreadable.
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        errors = page_errors(page)
        sid = new_game(page, url, "magic-rabbit")
        page.goto(f"{url}/#/s/{sid}/camera")
        page.wait_for_selector(".camera .noimg")
        sent: list[str] = []
        held = hold_first_request(page, "**/api/score", sent)  # answered when the busy
        #   screen has been looked at
        page.set_input_files("#photo-file", str(RABBIT))
        page.wait_for_selector(".busy")
        while not held:
            page.wait_for_timeout(50)
        assert page.is_disabled("#photo-file")
        assert page.get_attribute("label[for=photo-file]", "aria-disabled") == "true"
        assert page.evaluate("getComputedStyle(document.querySelector("
                             "'label[for=photo-file]')).pointerEvents") == "none"
        assert not page.is_visible(".camera .noimg")  # only "Reading the photo..." shows
        held[0].continue_()
        page.wait_for_selector("#use-result", timeout=90_000)
        assert len(sent) == 1
        page.go_back()  # back on the camera screen the picker works again
        page.wait_for_selector("#photo-file", state="attached")
        assert not page.is_disabled("#photo-file")
        assert page.get_attribute("label[for=photo-file]", "aria-disabled") is None
        assert not errors


def test_the_teach_screen_says_what_to_do_with_the_photo(tmp_path):
    # Session 31 (page-walk). Before: once a photo was added, the line "then tap each piece
    # and name it" gave way to "0 piece(s) named. Not yet: ...", and nothing on the screen
    # said that the photo is to be tapped.
    scene = REPO / "datasets" / "scenes" / "troetofanten" / "troetofanten-e1-s1-0000.jpg"
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        errors = page_errors(page)
        teach_photo(page, url, "troetofanten", scene)
        status = page.inner_text("#teach-status")
        assert "Tap a piece" in status and "0 piece(s) named" in status
        assert not errors


def test_a_change_not_scored_does_not_show_the_old_score_as_it_is(tmp_path):
    # Session 31 (page-walk). Before: swapping two hats of a won Magic Rabbit line goes through
    # "two hats 2", which the server refuses; the page said so above, but below it "Won!" and
    # "You won: all 6 hats are in ascending order" stood as before, in full colour: the table
    # reads the big green word, not the red line.
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        errors = page_errors(page)
        sid = new_game(page, url, "magic-rabbit")
        page.goto(f"{url}/#/s/{sid}/camera")
        page.set_input_files("#photo-file", str(RABBIT))
        page.wait_for_selector("#use-result", timeout=90_000)
        assert "stale" not in page.get_attribute("#score", "class")
        assert page.inner_text("#referee summary") == "Referee: why?"
        page.dispatch_event("g.pc[data-label=hat-1]", "click")
        page.click("#sheet [data-label=hat-2]")
        page.wait_for_selector("#unscored")
        assert "stale" in page.get_attribute("#score", "class")
        assert page.inner_text("#score").startswith("Before your change:")
        assert "before your change" in page.inner_text("#referee summary")
        assert float(page.evaluate("getComputedStyle(document.querySelector('#score'))"
                                   ".opacity")) < 1
        first = page.get_attribute("g.pc[data-label=hat-2]", "data-i")  # finish the swap
        page.dispatch_event(f"g.pc[data-label=hat-2]:not([data-i='{first}'])", "click")
        page.click("#sheet [data-label=hat-1]")
        page.wait_for_selector("#use-result:not([disabled])")
        assert "stale" not in page.get_attribute("#score", "class")
        assert not errors


PLACEHOLDER_FITS = """(sel) => { const el = document.querySelector(sel), cs = getComputedStyle(el);
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const room = el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    return ctx.measureText(el.placeholder).width <= room; }"""


def test_the_move_check_fields_say_what_goes_in_them_on_a_small_phone(tmp_path):
    # Session 31 (page-walk). Before: Mauerhuepfer's "Check a move" had two fields whose only
    # words were their placeholders, "from: B or a field" and "to: a field or goal", cut to
    # "from: B or a" / "to: a field o" on a 320 px phone, and gone with the first letter typed.
    board = sorted((REPO / "datasets" / "scenes" / "mauerhuepfer").glob("*.jpg"))[0]
    with live_server(tmp_path / "data") as url, \
            phone_browser(tmp_path / "p", viewport=SMALL_PHONE) as page:
        errors = page_errors(page)
        sid = new_game(page, url, "mauerhuepfer")
        page.goto(f"{url}/#/s/{sid}/camera")
        page.set_input_files("#photo-file", str(board))
        page.click("#use-result:not([disabled])", timeout=90_000)
        page.wait_for_selector("#move-from")
        page.fill("#move-from", "B")
        for sel, word in (("#move-from", "From"), ("#move-to", "To")):
            assert page.evaluate(f"document.querySelector('{sel}').closest('label')"
                                 ".firstChild.textContent") == word
            assert page.evaluate(PLACEHOLDER_FITS, sel), page.get_attribute(sel, "placeholder")
        assert not errors


def test_a_tap_hides_an_error_over_the_controls(tmp_path):
    # Session 31 (page-walk). Before: a refused photo's message (a blank photo: no play area)
    # stood 7 s over the camera screen's "Type it in instead" link and could not be put away;
    # taps on it did nothing. (Since page-walk-2 the camera screen says a refusal under the
    # shutter only; an error toast, as after a refused correction, is raised here by hand.)
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        errors = page_errors(page)
        sid = new_game(page, url, "magic-rabbit")
        page.goto(f"{url}/#/s/{sid}/camera")
        page.set_input_files("#photo-file", {"name": "blank.png", "mimeType": "image/png",
                                             "buffer": blank_png()})
        page.wait_for_selector("#camera-status .error", timeout=60_000)
        page.evaluate("toast('An error over the controls', true)")
        assert toast_shown(page)
        link = page.locator("#camera-status a").bounding_box()
        toast = page.locator("#toast").bounding_box()
        covered = (toast["y"] < link["y"] + link["height"]
                   and link["y"] < toast["y"] + toast["height"])
        assert covered  # (at 390 x 844)
        page.click("#toast")
        assert not toast_shown(page)
        page.click("#camera-status a")  # the link under it takes the next tap
        page.wait_for_selector("#score-facts")
        assert not errors


def blank_png() -> bytes:
    """A 640 x 480 grey photo: no play area, no piece."""
    import cv2
    import numpy as np

    ok, buf = cv2.imencode(".png", np.full((480, 640, 3), 128, np.uint8))
    return buf.tobytes()


def test_a_name_at_the_limit_says_so_and_is_kept_whole(tmp_path):
    # Session 31 (page-walk-2). Before: a name field stopped taking letters at 24 without a
    # word, and the page's 24 was written apart from the server's limit.
    from webapp.games import SETTINGS

    limit = SETTINGS.max_name_length
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        errors = page_errors(page)
        page.goto(f"{url}/#/new/simsala-hopp")
        field = page.locator("input[data-colour=yellow]")
        assert field.get_attribute("maxlength") == str(limit)
        assert not page.is_visible("#name-limit")
        field.press_sequentially("Maximiliane Wolkenstein-Hohenberg")  # 33 letters
        name = field.input_value()
        assert len(name) == limit
        assert page.is_visible("#name-limit") and str(limit) in page.inner_text("#name-limit")
        page.click("#start-game")
        page.wait_for_function("/^#\\/s\\/[^/]+$/.test(location.hash)")
        sid = page.evaluate("location.hash").split("/")[2]
        session = page.evaluate(f"fetch('/api/sessions/{sid}').then((r) => r.json())")
        names = [p["name"] for p in session["players"]]
        assert name.strip() in names  # the server kept what the field showed
        assert not errors


def test_a_refused_photo_is_said_once_and_in_view_on_a_small_phone(tmp_path):
    # Session 31 (page-walk-2). Before: a refused photo's message stood twice on the camera
    # screen, under the shutter and in the red toast over it.
    with live_server(tmp_path / "data") as url, \
            phone_browser(tmp_path / "p", viewport=SMALL_PHONE) as page:
        errors = page_errors(page)
        sid = new_game(page, url, "magic-rabbit")
        page.goto(f"{url}/#/s/{sid}/camera")
        page.wait_for_selector(".camera .noimg")  # (the camera's answer redraws the view)
        page.set_input_files("#photo-file", {"name": "blank.png", "mimeType": "image/png",
                                             "buffer": blank_png()})
        page.wait_for_selector("#camera-status .error", timeout=60_000)
        message = page.inner_text("#camera-status .error")
        assert message and not toast_shown(page)
        assert page.evaluate("document.body.innerText").count(message) == 1
        box = page.locator("#camera-status").bounding_box()  # the message and its link
        bar = page.locator("header").bounding_box()
        assert bar["y"] + bar["height"] <= box["y"]
        assert box["y"] + box["height"] <= SMALL_PHONE["height"] + 1  # in view, not under it
        assert not errors


def test_a_reload_while_a_photo_is_read_says_it_was_not_scored(tmp_path):
    # Session 31 (page-walk-2). Before: the photo lives in the page only; a reload while it
    # was read brought back the camera screen as if nothing had been sent.
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        errors = page_errors(page)
        sid = new_game(page, url, "magic-rabbit")
        page.goto(f"{url}/#/s/{sid}/camera")
        page.wait_for_selector(".camera .noimg")  # (the camera's answer redraws the view)
        assert page.locator("#photo-lost").count() == 0
        held = []
        page.route("**/api/score", lambda route: held.append(route))  # never answered
        page.set_input_files("#photo-file", str(RABBIT))
        page.wait_for_selector(".busy")
        while not held:
            page.wait_for_timeout(50)
        page.unroute("**/api/score")
        page.reload()
        page.wait_for_selector("#photo-lost")
        assert "not scored" in page.inner_text("#camera-status")
        page.reload()  # said once: the next visit is as before
        page.wait_for_selector(".camera .noimg")
        assert page.locator("#photo-lost").count() == 0
        held.clear()
        page.route("**/api/score", lambda route: held.append(route))  # never answered
        page.set_input_files("#photo-file", str(RABBIT))  # again, and the photo is sent again
        while not held:
            page.wait_for_timeout(50)
        page.reload()
        page.unroute("**/api/score")
        page.click("#resend-lost")
        page.wait_for_selector("#use-result", timeout=90_000)
        assert page.locator("g.pc").count() > 0  # the kept photo was read
        assert not errors
