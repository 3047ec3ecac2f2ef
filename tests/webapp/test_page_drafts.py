"""The new-game form keeps the settings (expert level, variant) with the players: a reload or a
failed start put them back to the defaults while the players' names were kept (acceptance
pass, session 17 H5). Real headless Chromium at phone size (slow)."""

import pytest

from tests.webapp.browser import live_server, phone_browser

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
