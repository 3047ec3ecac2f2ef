"""numpy's OpenBLAS runs one thread: the setting must be in place before numpy loads."""

import os
import subprocess
import sys

import pytest

# Records OPENBLAS_NUM_THREADS at the moment numpy is first imported: while ENTRY is
# imported, or after it (the CLI and the page load numpy only when they first need it).
PROBE = """
import importlib.abc, os, sys
seen = []
class Probe(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "numpy" and not seen:
            seen.append(os.environ.get("OPENBLAS_NUM_THREADS"))
        return None
sys.meta_path.insert(0, Probe())
import {entry}
import numpy
print(seen[0])
"""


@pytest.mark.parametrize("entry", [
    "tablescore.cli",     # the CLI (`tablescore ...`, `python -m tablescore`)
    "vision.pipeline",    # scripts and evaluations that import vision directly
    "webapp",             # the page (`make serve`)
    "vision.dice",        # a vision module imported on its own
])
def test_one_blas_thread_before_numpy(entry):
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", PROBE.format(entry=entry)], env=env,
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "1"


def test_the_environment_wins():
    env = dict(os.environ, OPENBLAS_NUM_THREADS="2")
    out = subprocess.run([sys.executable, "-c", PROBE.format(entry="vision.pipeline")], env=env,
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "2"
