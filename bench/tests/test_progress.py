#!/usr/bin/python3
"""Progress: on a terminal, one carriage-return-updated line on stderr (benchmark i of N,
elapsed, estimated time left, what runs), counting to exactly the planned N; nothing of it
when stderr is a pipe (status lines instead); --quiet drops both."""
import os
import pty
import re
import select
import shlex
import subprocess

from benchtest import check, flbench_path, run

if os.environ.get("MESON_EXE_WRAPPER"):
    print("cross build: the terminal test needs the binary to run natively; skipped")
    raise SystemExit(77)


def on_pty(args, timeout=200):
    """Runs flbench with stderr on a pseudo-terminal; returns (rc, stdout, stderr bytes)."""
    master, slave = pty.openpty()
    e = dict(os.environ)
    e.pop("FILTERLAB_KERNEL", None)
    p = subprocess.Popen([flbench_path()] + args, stdout=subprocess.PIPE, stderr=slave, env=e)
    os.close(slave)
    err, out = b"", b""
    while True:
        r, _, _ = select.select([master, p.stdout], [], [], timeout)
        if not r:
            p.kill()
            break
        if master in r:
            try:
                d = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                d = b""
            if not d:
                break
            err += d
        if p.stdout in r:
            d = os.read(p.stdout.fileno(), 65536)
            out += d
    out += p.stdout.read()
    return p.wait(), out.decode(), err.decode()


SMALL = ["--filter", "split256,counting", "--sizes", "16K,64K", "--hit-rate", "0,1", "--reps", "2",
         "--warmup", "0", "--lookups", "4096", "--kernel", "scalar", "--counters", "none"]
# probe: 2 footprints x 2; per filter: insert + 2 lookups, + a delete for counting.
WANT = 2 * 2 + 2 * 3 + 2 * 4

rc, out, err = on_pty(SMALL)
check(rc == 0, "pty run failed:\n" + err)
updates = [u for u in err.split("\r") if u.startswith("flbench: benchmark ")]
check(len(updates) >= WANT, "one update per benchmark at least: %d\n%r" % (len(updates), err[-2000:]))
seen = [tuple(map(int, re.match(r"flbench: benchmark (\d+) of (\d+), ", u).groups())) for u in updates]
check(all(n == WANT for _, n in seen), "N is the plan's %d: %s" % (WANT, sorted({n for _, n in seen})))
check([i for i, _ in seen] == sorted(i for i, _ in seen) and seen[-1][0] == WANT,
      "i counts up to N: %s" % [i for i, _ in seen])
check(all("elapsed" in u for u in updates) and any(" left" in u for u in updates), "elapsed and left")
check(any("split256 64KiB" in u for u in updates), "the line says what runs")
lines = err.replace("\r\n", "\n").split("\n")
check(not any(l.startswith("flbench: probe ") or l.startswith("flbench: split256") for l in lines),
      "status lines are folded into the progress line on a terminal:\n%r" % err[-1500:])
check("\x1b[K" in err, "the line is erased, not overwritten with leftovers")
check("lookup/split256/scalar/bytes:65536/hit:1/keys:u64" in out, "the table is still on stdout")

# Piped: no progress line, the status lines as before.
cp = run(SMALL)
check("\r" not in cp.stderr and "benchmark 1 of" not in cp.stderr, "no progress when piped:\n" + cp.stderr)
check("flbench: split256 64KiB" in cp.stderr, "status lines when piped:\n" + cp.stderr)

# --quiet: neither, on a terminal or not; warnings still shown.
rc, out, err = on_pty(SMALL + ["--quiet"])
check(rc == 0 and "benchmark 1 of" not in err and "split256 64KiB" not in err, "--quiet on a terminal:\n%r" % err)
cp = run(SMALL + ["-q", "--fpr", "0.01"])
check("split256" not in cp.stderr, "--quiet piped:\n" + cp.stderr)

# The family suites' planned counts match what they run.
rc, out, err = on_pty(["--structure", "all", "--sizes", "16K", "--filter", "block512",
                       "--sbf-filters", "1,2", "--hll-precisions", "8,10", "--cms-topk", "4",
                       "--bandwidth-bytes", "1M", "--hit-rate", "0.5,1", "--reps", "1", "--warmup",
                       "0", "--lookups", "2048", "--kernel", "scalar", "--counters", "none"])
check(rc == 0, "--structure all on a terminal:\n" + err[-2000:])
seen = [tuple(map(int, m.groups())) for m in re.finditer(r"flbench: benchmark (\d+) of (\d+), ", err)]
check(seen and seen[-1][0] == seen[-1][1] and len({n for _, n in seen}) == 1,
      "--structure all: planned %s, reached %s" % ({n for _, n in seen}, seen[-1] if seen else None))
print("ok")
