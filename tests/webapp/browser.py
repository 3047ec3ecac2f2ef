"""Helpers for the browser tests and the screenshots: a live tablescore server in a thread and
Debian's headless Chromium driven by Playwright (never a downloaded browser)."""

from __future__ import annotations

import shutil
import threading
from contextlib import contextmanager
from pathlib import Path

PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 320, "height": 568}  # the smallest phones still in use (iPhone SE 1)
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
def phone_browser(profile_dir: Path, fake_video: Path | None = None, viewport: dict | None = None):
    """A phone-sized page (390 x 844, else ``viewport``) in a fresh Chromium profile; with
    ``fake_video`` (a .y4m file) the camera is Chromium's fake device playing that file,
    permission granted."""
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
            viewport=viewport or PHONE,
            device_scale_factor=1,
            is_mobile=True,
            has_touch=True,
        )
        try:
            page = context.pages[0] if context.pages else context.new_page()
            yield page
        finally:
            context.close()


def write_y4m(photo: Path, out: Path, frames: int = 3, fps: int = 10) -> Path:
    """Convert a photo (JPEG/PNG) into a short Y4M clip for Chromium's fake camera
    (``--use-file-for-fake-video-capture``): planar YUV 4:2:0, the photo's size rounded down
    to even numbers, the same frame repeated."""
    import cv2

    img = cv2.imread(str(photo), cv2.IMREAD_COLOR)  # BGR, uint8, (H, W, 3)
    if img is None:
        raise FileNotFoundError(photo)
    h, w = img.shape[:2]
    img = img[: h - h % 2, : w - w % 2]
    h, w = img.shape[:2]
    yuv = cv2.cvtColor(img, cv2.COLOR_BGR2YUV_I420)  # (H * 3 / 2, W) uint8
    with open(out, "wb") as f:
        f.write(f"YUV4MPEG2 W{w} H{h} F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(frames):
            f.write(b"FRAME\n")
            f.write(yuv.tobytes())
    return out


def start_simsala(page, url) -> list[str]:
    """Open the page, start a Simsala Hopp game with the new-game form's default players
    (yellow the magician); returns the list the page's script errors are collected in."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url + "/")
    page.click("[data-game=simsala-hopp]")
    page.click("#start-game")
    page.wait_for_selector("#magician")
    assert "Yellow is the magician" in page.inner_text("#magician")
    return errors
