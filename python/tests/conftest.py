"""Shared fixtures and helpers for the Python binding's tests (run by `meson test --suite
python`)."""
import os
import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

import filterlab as fl

# No example database in the build tree, no deadlines (the machine is shared and ASan is slow).
settings.register_profile(
    "filterlab", database=None, deadline=None, max_examples=40,
    suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("filterlab")

SANITIZED = os.environ.get("FILTERLAB_TEST_SANITIZED") == "1"


def lines(keys):
    """The keys as the CLI reads them: one per line."""
    return b"".join(k + b"\n" for k in keys)


def keyset(prefix, n):
    return [f"{prefix}-{i}".encode() for i in range(n)]


def refuses_bad_keys(one_key_calls, batch_calls):
    """TypeError from every one-key call for a key of no key type (None, a float, a list),
    and from every batch call for a batch of none (int64, mixed, a lone string)."""
    for bad in (None, 1.5, [1]):
        for call in one_key_calls:
            with pytest.raises(TypeError):
                call(bad)
    for bad in (np.arange(3, dtype=np.int64), [1, b"x"], "one string"):
        for call in batch_calls:
            with pytest.raises(TypeError):
                call(bad)


def read_back_refusing_other_kinds(cls, obj, filter_bytes, cap, missing):
    """What every class of its own container kind refuses: cls.from_bytes a Filter's bytes
    (FormatError naming from_bytes), Filter.from_bytes obj's bytes, max_bytes below the
    payload (ValueError), a missing file (OSError). Returns obj's bytes read back with
    max_bytes=cap, the payload's size."""
    with pytest.raises(fl.FormatError, match="from_bytes"):
        cls.from_bytes(filter_bytes)
    with pytest.raises(fl.FormatError):
        fl.Filter.from_bytes(obj.to_bytes())
    with pytest.raises(ValueError):
        cls.from_bytes(obj.to_bytes(), max_bytes=64)
    with pytest.raises(OSError):
        cls.load(missing)
    return cls.from_bytes(obj.to_bytes(), max_bytes=cap)


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
