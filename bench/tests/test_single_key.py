#!/usr/bin/python3
"""bench/baselines/single_key on small filters: every one-key mode this build and CPU have is
reported (the library call, each in-line build: baseline, AVX2, -march=native; the batches),
and every mode of one filter answers the same key stream with the same positives, so an
in-line build whose flags change an answer fails here (single_key counts what each mode
found; the stream is half inserted keys: 10,000 lookups, so that one differing answer moves
the printed fraction's fourth decimal)."""
import csv
import os
import shlex
import subprocess
import sys

from benchtest import check, tmpdir

exe = sys.argv[1]
native_built = sys.argv[2] == "1"
cmd = shlex.split(os.environ.get("MESON_EXE_WRAPPER", "")) + [exe]
out = os.path.join(tmpdir(), "single_key.csv")
r = subprocess.run(cmd + ["--filter", "split256,cuckoo,fuse8,vqf", "--fpr", "0.005",
                          "--keys", "3000,40000", "--lookups", "10000", "--reps", "1", "-o", out],
                   capture_output=True, text=True, timeout=240)
check(r.returncode == 0, "single_key exited %d: %s" % (r.returncode, r.stderr))
rows = list(csv.DictReader(open(out)))
modes = {}
for row in rows:
    modes.setdefault((row["variant"], row["keys"]), {})[row["mode"]] = row
check(len(modes) == 8, "rows for 4 filters x 2 sizes: %s" % sorted(modes))

for (variant, keys), m in sorted(modes.items()):
    want = {"single", "lookup", "batch_u64s"}
    if variant != "vqf":
        want.add("typed")
    if native_built and "single_key: the -march=native build needs" not in r.stderr:
        want.add("lookup_native")
    got = set(m)
    check(want <= got, "%s %s: modes %s lack %s" % (variant, keys, sorted(got),
                                                   sorted(want - got)))
    hits = {mode: row["hit_fraction"] for mode, row in m.items()}
    check(len(set(hits.values())) == 1,
          "%s %s: the modes found different positives on one stream: %s" % (variant, keys, hits))
    frac = float(m["single"]["hit_fraction"])
    check(0.45 < frac < 0.56, "%s %s: hit fraction %.4f, want about 0.5 (half the stream "
          "inserted)" % (variant, keys, frac))
print("single_key: %d rows, every mode of a filter agrees" % len(rows))
