#!/usr/bin/python3
"""bench/baselines/single_key on small filters: every one-key mode this build and CPU have is
reported (the library call, each in-line build: baseline, AVX2, -march=native; the batches),
and every mode of one filter answers the same key stream with the same positives, so an
in-line build whose flags change an answer fails here (single_key counts what each mode
found; the stream is half inserted keys: 10,000 lookups, so that one differing answer moves
the printed fraction's fourth decimal; the check is of counts, so a false negative and a
false positive in one mode would cancel). The modes required: the baseline build's, the AVX2
build's where it is built and this CPU has AVX2 and BMI2, the native build's where it is
built and single_key does not say it skipped it."""
import csv
import os
import shlex
import subprocess
import sys

from benchtest import check, tmpdir

exe = sys.argv[1]
native_built, avx2_built = sys.argv[2] == "1", sys.argv[3] == "1"


def cpu_flags():
    """/proc/cpuinfo's flags of this x86 CPU (empty under an emulator or elsewhere)."""
    if os.environ.get("MESON_EXE_WRAPPER"):
        return set()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


# The AVX2 build runs where the CPU has AVX2 and BMI2 (its -mavx2 -mbmi2).
avx2_runs = avx2_built and {"avx2", "bmi2"} <= cpu_flags()
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
    builds = [""]
    if avx2_runs:
        builds.append("_avx2")
    if native_built and "single_key: the -march=native build needs" not in r.stderr:
        builds.append("_native")
    for b in builds:
        want.add("lookup" + b)
        if variant != "vqf":  # the vqf filter has one handle, no typed one
            want.add("typed" + b)
    if variant in ("split256", "cuckoo"):  # fl_filter variants: the hashes' batch too
        want.add("batch")
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
