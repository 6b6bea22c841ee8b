"""Shared fixtures for the Python binding's tests (run by `meson test --suite python`)."""
import os
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, settings

# No example database in the build tree, no deadlines (the machine is shared and ASan is slow).
settings.register_profile(
    "filterlab", database=None, deadline=None, max_examples=40,
    suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("filterlab")

SANITIZED = os.environ.get("FILTERLAB_TEST_SANITIZED") == "1"


def cli_path():
    path = os.environ.get("FILTERLAB_CLI") or shutil.which("filterlab")
    return path if path and os.access(path, os.X_OK) else None


@pytest.fixture
def cli():
    """Runs the `filterlab` command; returns (stdout bytes, returncode)."""
    path = cli_path()
    if path is None:
        pytest.skip("the filterlab command is not built (set FILTERLAB_CLI)")

    def run(*args, stdin=b"", check=True):
        # The CLI is a separate process: it must not inherit the ASan preload meant for python.
        env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD",)}
        p = subprocess.run([path, *map(str, args)], input=stdin, capture_output=True,
                           env=env, timeout=120)
        if check and p.returncode != 0:
            raise AssertionError(f"filterlab {' '.join(map(str, args))}: exit {p.returncode}: "
                                 f"{p.stderr.decode(errors='replace')}")
        return p.stdout, p.returncode

    return run
