"""The new-game form keeps the settings (expert level, variant) with the players: a reload or a
failed start put them back to the defaults while the players' names were kept (acceptance
pass, session 17 H5). Real headless Chromium at phone size (slow)."""

import pytest

from tests.webapp.browser import live_server, phone_browser, start_simsala

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("game, setting, value, name_field", [
    ("simsala-hopp", "level", "2", "input[data-colour=orange]"),
    ("hop-la-bille", "variant", "pile-short", "input[data-colour=north]"),
])
def test_settings_survive_a_reload_and_start_the_game(tmp_path, game, setting, value,
                                                      name_field):
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{url}/#/new/{game}")
        page.wait_for_selector("#start-game")
        page.select_option(f"select[name={setting}]", value)
        page.fill(name_field, "Bea")
        page.reload()
        page.wait_for_selector("#start-game")
        assert page.input_value(f"select[name={setting}]") == value
        assert page.input_value(name_field) == "Bea"
        page.click("#start-game")
        page.wait_for_function("/^#\\/s\\/[^/]+$/.test(location.hash)")
        sid = page.evaluate("location.hash").split("/")[2]
        session = page.evaluate(f"fetch('/api/sessions/{sid}').then((r) => r.json())")
        assert session["options"][setting] == value
        page.goto(f"{url}/#/new/{game}")  # the draft is gone once the game started
        page.wait_for_selector("#start-game")
        default = page.eval_on_selector(f"select[name={setting}] option", "o => o.value")
        assert page.input_value(f"select[name={setting}]") == default
        assert not errors


def test_magic_rabbit_player_count_still_kept(tmp_path):
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        page.goto(f"{url}/#/new/magic-rabbit")
        page.wait_for_selector("#player-count")
        page.select_option("#player-count", "4")
        page.reload()
        page.wait_for_selector("#player-count")
        assert page.input_value("#player-count") == "4"


def test_a_correction_the_server_did_not_score_is_kept_and_not_used(tmp_path):
    """Relabel a piece while /api/score/facts fails: the old score must not be usable (it
    recorded the turn without the correction), and the correction survives a reload; once
    scored, the turn takes it."""
    from pathlib import Path

    scene = Path(__file__).parents[1] / "data" / "simsala-hopp-scene.jpg"
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        errors = start_simsala(page, url)
        page.click("#take-photo")
        page.set_input_files("#photo-file", str(scene))
        page.wait_for_selector("#use-result:not([disabled])", timeout=60000)
        first = page.get_attribute("g.pc[data-i='0']", "data-label")
        label = "cat" if first != "cat" else "frog"
        page.route("**/api/score/facts", lambda route: route.abort())
        page.click("g.pc[data-i='0'] text", force=True)
        page.click(f"#sheet [data-label={label}]")
        page.wait_for_selector("#unscored")
        assert page.is_disabled("#use-result")
        assert page.get_attribute("g.pc[data-i='0']", "data-label") == label
        page.reload()
        page.wait_for_selector("#unscored")
        assert page.is_disabled("#use-result")
        assert page.get_attribute("g.pc[data-i='0']", "data-label") == label
        page.unroute("**/api/score/facts")
        page.click("#rescore")
        page.wait_for_selector("#use-result:not([disabled])")
        assert not page.query_selector("#unscored")
        counted = page.evaluate("JSON.parse(sessionStorage.getItem(Object.keys(sessionStorage)"
                                ".find((k) => k.startsWith('saw:')))).result.facts")
        zone = counted["arena"] if label in counted["arena"] else counted["outside"]
        assert zone.get(label, 0) >= 1
        assert not errors


def test_typed_round_points_survive_the_page_being_drawn_again(tmp_path):
    """Troetofanten points typed but not recorded went back to 0 when another phone changed
    the game (the page polls and draws itself again) or on a reload."""
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{url}/#/new/troetofanten")
        page.wait_for_selector("#start-game")
        page.click("#start-game")
        page.wait_for_selector("button:has-text('Record the round')", state="attached")
        sid = page.evaluate("location.hash").split("/")[2]
        page.click("summary:has-text('Enter points by hand')")
        page.fill("input[data-side=north]", "12")
        page.fill("input[data-side=east]", "7")
        # another phone records a round: this page draws itself again (as its poll does)
        page.evaluate(f"fetch('/api/sessions/{sid}/actions', {{method: 'POST', headers: "
                      "{'Content-Type': 'application/json'}, body: JSON.stringify({type: "
                      "'round', points: {north: 1, east: 2}})}).then(() => route())")
        page.wait_for_function("document.querySelectorAll('#standings th').length === 3")
        assert page.input_value("input[data-side=north]") == "12"
        page.reload()
        page.wait_for_selector("button:has-text('Record the round')", state="attached")
        assert page.input_value("input[data-side=north]") == "12"
        assert page.input_value("input[data-side=east]") == "7"
        page.click("button:has-text('Record the round')")
        page.wait_for_function("document.querySelectorAll('#standings th').length === 4")
        assert page.input_value("input[data-side=north]") == "0"  # recorded: the draft is gone
        assert "13" in page.inner_text("#standings")  # 1 + 12
        assert not errors


def test_the_move_to_check_survives_the_page_being_drawn_again(tmp_path):
    facts = {"dice": [2, 5], "pawns": {"pawn-red": 4},
             "positions": {"pawn-red": ["B", "B", "B", "12"]}}
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        page.goto(f"{url}/#/new/mauerhuepfer")
        page.wait_for_selector("#start-game")
        page.click("#start-game")
        page.wait_for_function("/^#\\/s\\/[^/]+$/.test(location.hash)")
        sid = page.evaluate("location.hash").split("/")[2]
        page.evaluate(f"fetch('/api/sessions/{sid}/actions', {{method: 'POST', headers: "
                      "{'Content-Type': 'application/json'}, body: JSON.stringify({type: "
                      f"'check', facts: {facts!r}}})}}).then(() => route())".replace("'", '"'))
        page.wait_for_selector("#move-from")
        page.fill("#move-from", "12")
        page.fill("#move-to", "17")
        page.evaluate("route()")
        page.wait_for_selector("#move-from")
        page.reload()
        page.wait_for_selector("#move-from")
        assert (page.input_value("#move-from"), page.input_value("#move-to")) == ("12", "17")


def test_a_photo_the_server_did_not_get_can_be_sent_again(tmp_path):
    """A photo whose upload failed (no connection) was gone: the shutter's moment (a Simsala
    Stopp) cannot be taken again. It is kept to send again."""
    from pathlib import Path

    scene = Path(__file__).parents[1] / "data" / "simsala-hopp-scene.jpg"
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        start_simsala(page, url)
        page.click("#take-photo")
        page.route("**/api/score", lambda route: route.abort())
        page.set_input_files("#photo-file", str(scene))
        page.wait_for_selector("#camera-status .error")
        page.unroute("**/api/score")
        page.click("#resend")
        page.wait_for_function("location.hash.endsWith('/saw')", timeout=60000)
        page.wait_for_selector("#use-result:not([disabled])")
