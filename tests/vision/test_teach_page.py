"""The page's teach screen in headless Chromium: add an edition-2 photo, tap two pieces and
name them, learn; the profile is stored and remembered for the game's next photos."""

import json
from pathlib import Path

import pytest

from tests.webapp.browser import live_server, phone_browser

SCENE = (Path(__file__).resolve().parents[2] / "datasets" / "scenes-edition2" / "simsala-hopp"
         / "simsala-hopp-e2-s2-0000.jpg")

pytestmark = pytest.mark.slow


def test_teach_screen_taps_and_learns(tmp_path):
    truth = json.loads(SCENE.with_suffix(".json").read_text())
    W, H = truth["image"]["width"], truth["image"]["height"]
    pieces = [p for p in truth["pieces"] if p.get("visible", 1) > 0.99 and p["zone"] == "arena"]
    picks = [next(p for p in pieces if p["label"] == lab) for lab in ("frog", "cat")]
    with live_server(tmp_path / "data") as url, phone_browser(tmp_path / "p") as page:
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url + "/#/teach/simsala-hopp")
        page.wait_for_selector("#teach-file", state="attached")
        page.set_input_files("#teach-file", str(SCENE))
        page.wait_for_selector("#teach-photos svg")
        for p in picks:
            box = page.locator("#teach-photos svg").bounding_box()
            page.mouse.click(box["x"] + p["center"][0] * box["width"] / W,
                             box["y"] + p["center"][1] * box["height"] / H)
            page.click(f"#sheet [data-label={p['label']}]")
        assert "2 piece(s) named" in page.inner_text("#teach-status")
        page.fill("#teach-name", "kitchen")
        page.click("#teach-save")
        page.wait_for_function("() => localStorage.getItem('teach:simsala-hopp') === "
                               "'\"kitchen\"'", timeout=60_000)
    meta = json.loads((tmp_path / "data" / "teach" / "kitchen" / "profile.json").read_text())
    assert meta["counts"] == {"frog": 1, "cat": 1}
    assert errors == []
