"""The phone page and JSON API (Flask app factory, served by waitress)."""

from __future__ import annotations

from pathlib import Path

from flask import Flask


def create_app(test_config: dict | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=False)
    app.config.from_mapping(DATA_DIR="data", MAX_CONTENT_LENGTH=16 * 1024 * 1024)
    if test_config:
        app.config.from_mapping(test_config)
    Path(app.config["DATA_DIR"]).mkdir(parents=True, exist_ok=True)

    from webapp import home

    app.register_blueprint(home.bp)
    return app


def serve(host: str = "127.0.0.1", port: int = 8000, data_dir: str = "data", https=False):
    """Run the app with waitress (blocking)."""
    import waitress

    app = create_app({"DATA_DIR": data_dir})
    if https:
        raise NotImplementedError("--https comes with the web page issue")
    print(f"tablescore serving on http://{host}:{port}/", flush=True)
    waitress.serve(app, host=host, port=port)
