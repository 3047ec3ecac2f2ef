import json

import pytest

from tablescore.cli import main


@pytest.fixture
def run_cli(capsys):
    """Run `tablescore ARGS...` in-process: returns (exit code, parsed JSON stdout)."""

    def run(*args):
        code = main([str(a) for a in args])
        out = capsys.readouterr().out
        try:
            return code, json.loads(out)
        except json.JSONDecodeError:
            return code, out

    return run


@pytest.fixture
def write_json(tmp_path):
    """Write an object to a JSON file under tmp_path and return its path."""
    counter = iter(range(10_000))

    def write(obj, name=None):
        path = tmp_path / (name or f"f{next(counter)}.json")
        path.write_text(obj if isinstance(obj, str) else json.dumps(obj))
        return path

    return write
