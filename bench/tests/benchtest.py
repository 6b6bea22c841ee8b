"""Helpers shared by the harness tests (run by `meson test --suite bench`)."""
import json
import os
import shlex
import subprocess
import sys
import tempfile

SKIP = 77  # meson's exit code for a skipped test


def flbench_path():
    p = os.environ.get("FLBENCH")
    if not p or not os.path.exists(p):
        print("FLBENCH is not set to the built flbench", file=sys.stderr)
        sys.exit(1)
    return p


def flbench_cmd():
    """flbench's command line: in a cross build meson names its exe_wrapper (qemu-aarch64) in
    MESON_EXE_WRAPPER, which must run it."""
    return shlex.split(os.environ.get("MESON_EXE_WRAPPER", "")) + [flbench_path()]


def source_root():
    return os.environ.get("FLBENCH_SOURCE_ROOT",
                          os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))


def run(args, env=None, check=True, timeout=110):
    e = dict(os.environ)
    e.pop("FILTERLAB_KERNEL", None)
    if env:
        e.update(env)
    cp = subprocess.run(flbench_cmd() + args, capture_output=True, text=True, env=e,
                        timeout=timeout)
    if check and cp.returncode != 0:
        fail("flbench %s exited %d\nstdout:\n%s\nstderr:\n%s"
             % (" ".join(args), cp.returncode, cp.stdout[-3000:], cp.stderr[-3000:]))
    return cp


def reject_constant(name):
    raise ValueError("bare %s in JSON" % name)


def load_strict(path):
    """Parses with the standard parser, refusing NaN/Infinity (not JSON)."""
    with open(path) as f:
        text = f.read()
    return json.loads(text, parse_constant=reject_constant)


def tmpdir():
    return tempfile.mkdtemp(prefix="flbench-test-")


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def iterations(doc, prefix=""):
    return [b for b in doc["benchmarks"] if b["run_type"] == "iteration" and b["run_name"].startswith(prefix)]


def aggregates(doc, prefix=""):
    return [b for b in doc["benchmarks"] if b["run_type"] == "aggregate" and b["run_name"].startswith(prefix)]


# Tiny configurations: a few seconds each on a 2-vCPU VM.
TINY = ["--sizes", "16K,256K", "--hit-rate", "0,1", "--reps", "3", "--warmup", "1",
        "--lookups", "8192", "--kernel", "scalar"]
