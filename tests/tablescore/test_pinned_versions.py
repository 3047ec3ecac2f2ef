"""The installed packages that shape readings are the ones constraints.txt pins: the
committed scenes are rendered byte for byte and the figures measured with them, so another
version (opencv 5.1 re-encodes the renders) must show up here, by name, not as puzzling
differences elsewhere."""

from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def pins() -> dict[str, str]:
    out = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, ver = line.partition("==")
            assert ver, f"constraints.txt: {line!r} is not NAME==VERSION"
            out[name.strip()] = ver.strip()
    return out


@pytest.mark.parametrize("name", [
    "opencv-python-headless",  # renders, JPEG coding, blob finding
    "numpy",  # every array step
    "onnxruntime",  # the models' numbers
])
def test_reading_packages_are_the_pinned_ones(name):
    assert version(name) == pins()[name], (
        f"{name} {version(name)} installed, constraints.txt pins {pins()[name]}: "
        "install with `make install` (pip install -c constraints.txt -e .)")


def test_every_runtime_dependency_is_pinned():
    import tomllib
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert {d.split("[")[0].split("=")[0].split(">")[0].strip() for d in deps} <= set(pins())
