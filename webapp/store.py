"""Game sessions and scans kept in SQLite (stdlib ``sqlite3``, WAL mode).

One file (``<data>/tablescore.sqlite3``) holds every table's session, so a server restart keeps
tournaments and several tables can play at once. Each request opens its own short-lived
connection (waitress serves requests from several threads); read-modify-write of a session runs
inside ``BEGIN IMMEDIATE`` so two phones at the same table cannot overwrite each other's turn.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tablescore.errors import TablescoreError


class SessionNotFound(TablescoreError):
    code = "no_such_session"
    http_status = 404


class ScanNotFound(SessionNotFound):
    """A kept photo's id that is not in the store (404 like a session)."""

    code = "no_such_scan"


class Conflict(TablescoreError):
    """The session changed since the client last read it (another phone recorded a turn)."""

    code = "conflict"
    http_status = 409


class StoreUnavailable(TablescoreError):
    """The SQLite file cannot be used (not a database, damaged, unreadable, the disk full):
    HTTP 503 naming the file and what to do, not a 500 with SQLite's bare words."""

    code = "store_unavailable"
    http_status = 503


class StoreBusy(StoreUnavailable):
    """Another program holds the database locked longer than ``busy_timeout_ms``: nothing was
    changed; trying again helps."""

    code = "store_busy"


@dataclass(frozen=True)
class StoreSettings:
    filename: str = "tablescore.sqlite3"
    busy_timeout_ms: int = 5000  # wait this long for another writer before failing
    max_sessions_listed: int = 50
    max_scans_per_session: int = 40  # older photos of a session are dropped beyond this


SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    version INTEGER NOT NULL,
    state TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS scans (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT,
    created REAL NOT NULL,
    game TEXT NOT NULL,
    mime TEXT NOT NULL,
    photo BLOB NOT NULL,
    result TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS scans_by_session ON scans(session_id, id);
"""


class Store:
    """Sessions (``state`` is a JSON object owned by ``webapp.games``) and scanned photos."""

    def __init__(self, data_dir: str | Path, settings: StoreSettings | None = None):
        self.settings = settings or StoreSettings()
        self.path = Path(data_dir) / self.settings.filename
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as con:
            con.execute("PRAGMA journal_mode=WAL")
            con.executescript(SCHEMA)

    @contextmanager
    def _connect(self):
        """A connection; SQLite's errors (in connecting or in the caller's statements) come out
        as `StoreBusy` / `StoreUnavailable` naming the file."""
        try:
            con = sqlite3.connect(
                self.path, timeout=self.settings.busy_timeout_ms / 1000, isolation_level=None
            )
        except sqlite3.Error as exc:
            raise self._unusable(exc) from exc
        con.row_factory = sqlite3.Row
        try:
            con.execute(f"PRAGMA busy_timeout={int(self.settings.busy_timeout_ms)}")
            yield con
        except sqlite3.Error as exc:
            raise self._unusable(exc) from exc
        finally:
            con.close()

    def _unusable(self, exc: sqlite3.Error) -> StoreUnavailable:
        why = str(exc)
        if isinstance(exc, sqlite3.OperationalError) and ("locked" in why or "busy" in why):
            return StoreBusy(f"the game store {self.path} is in use by another program "
                             f"({why}); nothing was changed: try again in a moment")
        return StoreUnavailable(
            f"the game store {self.path} cannot be used ({why}); if the file is damaged, "
            "move it aside (the server then starts an empty one) or restore a copy, or start "
            "the server with another --data folder")

    # -- sessions ---------------------------------------------------------------------------
    @staticmethod
    def _session(row: sqlite3.Row) -> dict:
        return {
            "id": row["id"],
            "game": row["game"],
            "created": row["created"],
            "updated": row["updated"],
            "version": row["version"],
            "state": json.loads(row["state"]),
        }

    def create_session(self, game: str, state: dict) -> dict:
        now = time.time()
        sid = secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")
        with self._connect() as con:
            con.execute(
                "INSERT INTO sessions (id, game, created, updated, version, state) "
                "VALUES (?, ?, ?, ?, 1, ?)",
                (sid, game, now, now, json.dumps(state)),
            )
        return self.get_session(sid)

    def get_session(self, sid: str) -> dict:
        if not isinstance(sid, str):  # a JSON body's "session": [1] or {} names no session
            raise SessionNotFound(f"no game session {sid!r}: a session id is text")
        with self._connect() as con:
            row = con.execute("SELECT * FROM sessions WHERE id = ?", (sid,)).fetchone()
        if row is None:
            raise SessionNotFound(f"no game session {sid!r} (it may have been deleted)")
        return self._session(row)

    def list_sessions(self) -> list[dict]:
        with self._connect() as con:
            rows = con.execute(
                "SELECT * FROM sessions ORDER BY updated DESC LIMIT ?",
                (self.settings.max_sessions_listed,),
            ).fetchall()
        return [self._session(r) for r in rows]

    def update_session(
        self, sid: str, change: Callable[[dict], dict], expect_version: int | None = None
    ) -> dict:
        """Apply ``change(state) -> new state`` atomically; `Conflict` if ``expect_version``
        is given and the stored version differs. Exceptions from ``change`` leave it as it was."""
        with self._connect() as con:
            con.execute("BEGIN IMMEDIATE")
            try:
                row = con.execute("SELECT * FROM sessions WHERE id = ?", (sid,)).fetchone()
                if row is None:
                    raise SessionNotFound(f"no game session {sid!r} (it may have been deleted)")
                if expect_version is not None and row["version"] != expect_version:
                    raise Conflict(
                        "this game was changed on another device; the page reloaded it, "
                        "please check and try again"
                    )
                new_state = change(json.loads(row["state"]))
                con.execute(
                    "UPDATE sessions SET state = ?, updated = ?, version = version + 1 "
                    "WHERE id = ?",
                    (json.dumps(new_state), time.time(), sid),
                )
                con.execute("COMMIT")
            except BaseException:
                if con.in_transaction:  # (a failed COMMIT may have rolled back already: a
                    con.execute("ROLLBACK")  # second ROLLBACK's error hid the first one)
                raise
        return self.get_session(sid)

    def delete_session(self, sid: str) -> None:
        with self._connect() as con:
            cur = con.execute("DELETE FROM sessions WHERE id = ?", (sid,))
            con.execute("DELETE FROM scans WHERE session_id = ?", (sid,))
        if cur.rowcount == 0:
            raise SessionNotFound(f"no game session {sid!r}")

    # -- scans ------------------------------------------------------------------------------
    def add_scan(
        self, session_id: str | None, game: str, photo: bytes, mime: str, result: dict
    ) -> int:
        with self._connect() as con:
            cur = con.execute(
                "INSERT INTO scans (session_id, created, game, mime, photo, result) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (session_id, time.time(), game, mime, photo, json.dumps(result)),
            )
            scan_id = int(cur.lastrowid)
            if session_id is not None:
                con.execute(
                    "DELETE FROM scans WHERE session_id = ? AND id NOT IN (SELECT id FROM scans "
                    "WHERE session_id = ? ORDER BY id DESC LIMIT ?)",
                    (session_id, session_id, self.settings.max_scans_per_session),
                )
        return scan_id

    def get_scan(self, scan_id: int) -> dict:
        row = None
        if 0 <= scan_id < 2**63:  # SQLite's INTEGER; a larger id from the URL names no photo
            with self._connect() as con:
                row = con.execute("SELECT * FROM scans WHERE id = ?", (scan_id,)).fetchone()
        if row is None:
            raise ScanNotFound(f"no photo {scan_id}")
        return {
            "id": row["id"],
            "session_id": row["session_id"],
            "game": row["game"],
            "mime": row["mime"],
            "photo": bytes(row["photo"]),
            "result": json.loads(row["result"]),
        }
