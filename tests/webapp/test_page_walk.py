"""A new user's walk through the page (session 19, H5), in real headless Chromium at phone size
(slow): what broke on the way from the camera screen to the teach screen and back."""

import pytest

from tests.webapp.browser import live_server, phone_browser

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("game", ["simsala-hopp", "troetofanten"])
def test_the_camera_screens_teach_link_opens_the_teach_screen(tmp_path, game):
    # Before: the link is #/teach/<game>?back=<sid>; the router split the query with the path,
    # found no game "<game>?back=<sid>" and went to the start page, so the teach screen could
    # only be reached by typing its address.
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{url}/#/new/{game}")
        page.click("#start-game")
        page.wait_for_function("/^#\\/s\\/[^/]+$/.test(location.hash)")
        sid = page.evaluate("location.hash").split("/")[2]
        page.goto(f"{url}/#/s/{sid}/camera")
        page.click("#teach-line a")
        page.wait_for_selector("#teach-file", state="attached")
        assert page.evaluate("location.hash") == f"#/teach/{game}?back={sid}"
        assert page.inner_text("#title").startswith("Teach")
        page.click("#back")  # the title bar's back arrow returns to this game's camera
        page.wait_for_selector("#teach-line")
        assert page.evaluate("location.hash") == f"#/s/{sid}/camera"
        assert not errors
