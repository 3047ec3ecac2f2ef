"""Named errors shared by every layer; each maps to the contract's error JSON and exit code.

No third-party imports here: `scoring/` depends on this module.
"""

from __future__ import annotations


class TablescoreError(Exception):
    """Base class: `code` goes into the error JSON, `exit_code` is the CLI's exit status,
    `http_status` the web API's."""

    code = "error"
    exit_code = 2
    http_status = 400

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def to_json(self) -> dict:
        return {"error": {"code": self.code, "message": self.message}}


class BadInput(TablescoreError):
    """The user's input is wrong (file, option, facts): exit 2, HTTP 400."""

    code = "bad_input"


class UnknownGame(BadInput):
    code = "unknown_game"


class FactsError(BadInput):
    """Facts that are malformed or impossible under the rules. `path` names the bad entry."""

    code = "bad_facts"

    def __init__(self, message: str, path: str = ""):
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path


class OptionError(BadInput):
    code = "bad_option"


class RuleError(BadInput):
    """A request the rules do not allow (e.g. an illegal action asked of a referee)."""

    code = "rule_violation"


class NotFound(TablescoreError):
    """The photo was read but the play area or the pieces could not be found: exit 3, HTTP 422."""

    code = "not_found"
    exit_code = 3
    http_status = 422
