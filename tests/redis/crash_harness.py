"""What the crash tests (test_cluster.py, test_faults.py) share around their scenarios: their
options, UBSan's settings for the servers, the module they load, and the frame that runs a
scenario with a time budget and cleans up after it."""
import argparse
import os
import shutil
import sys
import tempfile

import filter_kinds
from redis_server import Deadline


def parse():
    """--module, --kinds, --time-limit -> (args, [Kind, ...])."""
    p = argparse.ArgumentParser()
    p.add_argument("--module", help="filterlab_redis.so")
    p.add_argument("--kinds", default="bf,cf,cms")
    p.add_argument("--time-limit", type=float, default=100)
    args = p.parse_args()
    # In the sanitizer build the servers run the module with UBSan: undefined behaviour stops
    # the server (which the test sees as a crash it did not cause) instead of a line on its
    # stderr. Set before any server starts; the servers inherit it.
    os.environ.setdefault("UBSAN_OPTIONS", "halt_on_error=1:abort_on_error=1:print_stacktrace=1")
    return args, filter_kinds.parse(args.kinds)


def module_for(kinds, module):
    """The module the servers load: None when only native kinds run. A module kind without
    the module is a skip (exit 77), not a failure."""
    if not any(k.needs_module for k in kinds):
        return None
    if not (module and os.path.exists(module)):
        print("SKIP: the module kinds need --module PATH to filterlab_redis.so")
        sys.exit(77)
    return module


def run(tmp_prefix, time_limit, scenario):
    """Calls scenario(servers, tmp, deadline, failures) with a fresh temporary directory and
    a time budget of time_limit seconds. Every server it appends to `servers` is stopped by
    PID and the directory removed on every exit path (redis_server.py also stops servers on
    SIGTERM/SIGINT/SIGHUP and at exit). Prints the failures (strings) and returns them."""
    deadline = Deadline(time_limit)
    tmp = tempfile.mkdtemp(prefix=tmp_prefix)
    failures = []
    servers = []
    try:
        scenario(servers, tmp, deadline, failures)
    finally:
        for s in servers:
            s.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL:", f)
    return failures
