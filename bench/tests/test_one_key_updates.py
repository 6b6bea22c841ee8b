#!/usr/bin/python3
"""bench/baselines/one_key_updates on small runs: a row per (filter, keys, op) with the
space each filter is sized to (11-bit semi-sorted cuckoo 10.5-10.8 bits per key, 12-bit
cuckoo 12.6-12.9, the vector quotient filter 11.2-11.6), positive times with the median not below the minimum, the repetitions
asked; and every bad argument refused with one line and no output. Timings are not
checked: this machine's noise is no test's business."""
import csv
import io
import os
import shlex
import subprocess
import sys

from benchtest import check

exe = sys.argv[1]
wrap = shlex.split(os.environ.get("MESON_EXE_WRAPPER", ""))


def run(args):
    return subprocess.run(wrap + [exe] + args, capture_output=True, text=True, timeout=100)


cp = run(["--keys", "1000,30000", "--reps", "3"])
check(cp.returncode == 0, "one_key_updates failed:\n" + cp.stdout + cp.stderr)
rows = list(csv.DictReader(io.StringIO(cp.stdout)))
got = {(r["filter"], int(r["keys"]), r["op"]) for r in rows}
want = {(f, n, op) for f in ("cuckoo11", "cuckoo12", "vqf") for n in (1000, 30000)
        for op in ("insert_one", "delete_one")}
check(got == want and len(rows) == len(want), "rows %s, want %s" % (sorted(got), sorted(want)))
bpk = {"cuckoo11": (10.5, 10.8), "cuckoo12": (12.6, 12.9), "vqf": (11.2, 11.6)}
for r in rows:
    lo, hi = bpk[r["filter"]]
    if int(r["keys"]) == 30000:  # small filters round up to whole blocks and buckets
        check(lo <= float(r["bits_per_key"]) <= hi,
              "%s: %s bits per key, want %s to %s" % (r["filter"], r["bits_per_key"], lo, hi))
    med, mn = float(r["ns_per_key_median"]), float(r["ns_per_key_min"])
    check(0 < mn <= med, "times %s" % r)
    check(r["reps"] == "3", "reps %s" % r)

for bad in (["--keys", "0"], ["--keys", "1.5"], ["--keys", "x"], ["--reps", "0"],
            ["--reps", "102"], ["--filter", "bloom"], ["--filter", "cuckoo13"], ["--keys"],
            ["--bogus", "1"]):
    cp = run(bad)
    check(cp.returncode == 1 and cp.stdout == "" and len(cp.stderr.strip().splitlines()) <= 2,
          "%s: exit %d, stdout %r, stderr %r" % (bad, cp.returncode, cp.stdout, cp.stderr))
print("one_key_updates: %d rows" % len(rows))
