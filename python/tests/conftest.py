"""What the tests of python/tests share: one FLCE run of `flce run` (FLCE_BIN: the build under
test), made once a session; its trace records both prototype readings."""
import os
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
FLCE_BIN = os.environ.get("FLCE_BIN", os.path.join(ROOT, "build", "flce"))
TINY = ["--clients", "6", "--per-round", "3", "--rounds", "4", "--dirichlet", "0.3", "--train-subset", "600", "--test-subset",
        "100", "--val-size", "30", "--batch", "32", "--quiet"]


@pytest.fixture(scope="session")
def recorded(tmp_path_factory):
    """the run folder (treat it as read-only: copy it to change it)"""
    d = tmp_path_factory.mktemp("run")
    p = subprocess.run([FLCE_BIN, "run", "--algo", "flce"] + TINY + ["--seed", "5", "--out", str(d / "r")], capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
    return d / "r"
