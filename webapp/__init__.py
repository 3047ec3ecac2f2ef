"""The phone page and JSON API (Flask app factory, served by waitress).

Blueprints: ``pages`` (the HTML shell and static files), ``api`` (scoring photos and facts),
``sessions`` (game sessions in SQLite). Every error under ``/api`` answers the contract's
``{"error": {"code", "message"}}`` JSON, never an HTML page or a traceback.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from tablescore.errors import TablescoreError

log = logging.getLogger(__name__)

MAX_UPLOAD_BYTES = 12 * 1024 * 1024  # a phone's full-size JPEG is 2-8 MB


def create_app(test_config: dict | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=False)
    app.config.from_mapping(DATA_DIR="data", MAX_CONTENT_LENGTH=MAX_UPLOAD_BYTES)
    if test_config:
        app.config.from_mapping(test_config)
    app.json.sort_keys = False
    from webapp import api, pages, sessions, teach
    from webapp.store import Store, StoreUnavailable

    try:
        Path(app.config["DATA_DIR"]).mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a file of that name, no permission (`serve --data` traced back)
        data = Path(app.config["DATA_DIR"])
        why = "it is a file" if data.is_file() else exc.strerror or str(exc)
        raise StoreUnavailable(f"the data folder {data} cannot be made ({why}); give another "
                               "--data folder") from None

    app.extensions["tablescore.store"] = Store(app.config["DATA_DIR"])
    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(sessions.bp)
    app.register_blueprint(teach.bp)
    register_errors(app)
    return app


def is_api_path(path: str) -> bool:
    """`/api` and below (not `/apiary`: a page path, answered as the pages are)."""
    return path == "/api" or path.startswith("/api/")


def api_paths(app: Flask) -> list[str]:
    """The API's routes (`/api/sessions/<sid>` ...), sorted: named in an unknown path's error."""
    return sorted({re.sub(r"<(?:\w+:)?(\w+)>", r"<\1>", r.rule)  # (<int:n>: <n>)
                   for r in app.url_map.iter_rules() if is_api_path(r.rule)})


def _error(code: str, message: str, status: int):
    return jsonify({"error": {"code": code, "message": message}}), status


def register_errors(app: Flask) -> None:
    @app.errorhandler(TablescoreError)
    def tablescore_error(exc: TablescoreError):
        return jsonify(exc.to_json()), exc.http_status

    @app.errorhandler(RequestEntityTooLarge)
    def too_large(exc):
        limit = app.config["MAX_CONTENT_LENGTH"] // (1024 * 1024)
        return _error("too_large", f"the upload is larger than {limit} MB", 413)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        if not is_api_path(request.path):
            return exc
        if exc.code == 404:  # Werkzeug's code would be "not_found": the contract's NotFound
            #   (a photo read, nothing found on it; exit 3 / 422). A path no route takes:
            return _error("no_such_endpoint", f"the API has no path {request.path}; its paths: "
                          f"{', '.join(api_paths(app))}", 404)
        return _error(exc.name.lower().replace(" ", "_"), exc.description or exc.name, exc.code)

    @app.errorhandler(Exception)
    def unexpected(exc: Exception):
        log.exception("unexpected error on %s", request.path)
        return _error("internal", f"the server failed: {type(exc).__name__}: {exc}", 500)


def serve(host: str = "127.0.0.1", port: int = 8000, data_dir: str = "data", https=False):
    """Run the app (blocking): waitress for http; with ``https`` Werkzeug's threaded server
    with a self-signed certificate kept in ``<data_dir>/tls`` (waitress has no TLS)."""
    app = create_app({"DATA_DIR": data_dir})
    if https:
        from werkzeug.serving import make_server

        from webapp.tls import ensure_certificate, lan_addresses

        cert, key = ensure_certificate(Path(data_dir) / "tls")
        server = make_server(host, port, app, threaded=True, ssl_context=(str(cert), str(key)))
        hosts = lan_addresses() if host in ("0.0.0.0", "") else [host]
        for h in hosts:
            print(f"tablescore serving on https://{h}:{port}/", flush=True)
        print(
            "The certificate is self-signed: the browser warns once; choose 'Advanced' -> "
            "'Proceed' (Safari: 'Show Details' -> 'visit this website').",
            flush=True,
        )
        server.serve_forever()
        return
    import waitress

    from webapp.tls import lan_addresses

    hosts = lan_addresses() if host in ("0.0.0.0", "") else [host]
    for h in hosts:
        print(f"tablescore serving on http://{h}:{port}/", flush=True)
    if any(h != "127.0.0.1" for h in hosts):
        print("Phones allow the camera only over https: use --https for the camera on a LAN "
              "(the photo upload button works either way).", flush=True)
    waitress.serve(app, host=host, port=port, threads=8)
