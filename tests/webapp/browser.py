"""Helpers for the browser tests and the screenshots: a live tablescore server in a thread and
Debian's headless Chromium driven by Playwright (never a downloaded browser)."""

from __future__ import annotations

import shutil
import threading
from contextlib import contextmanager
from pathlib import Path

PHONE = {"width": 390, "height": 844}
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str:
    path = shutil.which("chromium")
    if path is None:
        raise RuntimeError(
            "the browser tests need Debian's chromium: apt-get install -y chromium "
            "(.ci/run installs it)"
        )
    return path


@contextmanager
def live_server(data_dir: Path):
    """Serve the app on a free localhost port in a thread; yields the base URL."""
    from werkzeug.serving import make_server

    from webapp import create_app

    app = create_app({"DATA_DIR": str(data_dir)})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=5)


@contextmanager
def phone_browser(profile_dir: Path, fake_video: Path | None = None):
    """A phone-sized page (390 x 844) in a fresh Chromium profile; with ``fake_video`` (a .y4m
    file) the camera is Chromium's fake device playing that file, permission granted."""
    from playwright.sync_api import sync_playwright

    args = list(CHROMIUM_ARGS)
    if fake_video is not None:
        args += [
            "--use-fake-device-for-media-stream",
            "--use-fake-ui-for-media-stream",
            f"--use-file-for-fake-video-capture={fake_video}",
        ]
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile_dir),
            executable_path=chromium_path(),
            headless=True,
            args=args,
            viewport=PHONE,
            device_scale_factor=1,
            is_mobile=True,
            has_touch=True,
        )
        try:
            page = context.pages[0] if context.pages else context.new_page()
            yield page
        finally:
            context.close()
