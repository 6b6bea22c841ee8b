#!/usr/bin/python3
"""scripts/bench-vqf-probe-forms on small runs of bench/baselines/vqf_probe_forms: every
in-line build this CPU runs (baseline; AVX2 where built and the CPU has AVX2 and BMI2; the
-Dbench_march build where configured) times
both probe forms in every round at every size, the two forms find the same positives, the
handle's pick is the form include/filterlab_vqf.h's fl_vqf_lookup_is_early gives (at x86-64
baseline the early form always; with BMI2 from kernels/kernels.h's FL_VQF_EARLY_MIN_BYTES,
L2 + 1 bytes: a filter of 1.6M keys is past it on a CPU whose L2 is at most 2 MiB, the
others are not), and the report has a row per build and size and its verdict
count; and, on made-up figures, that each verdict (agrees, disagrees, within band) is given
where it should be. Timings are not checked: this machine's noise is no test's business."""
import csv
import json
import os
import platform
import subprocess
import sys

from benchtest import SKIP, check, source_root, tmpdir

exe = sys.argv[1]
if os.environ.get("MESON_EXE_WRAPPER"):
    print("cross build: the script runs the host's filterlab, not an emulated one")
    sys.exit(SKIP)
build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(exe))))
cli = os.path.join(build, "src", "cli", "filterlab")
host = json.loads(subprocess.check_output([cli, "host", "--json"]))
l2 = max([c["bytes"] for c in host.get("caches", []) if c["level"] == 2] or [1 << 20])
early_min = l2 + 1


def cpu_flags():
    for line in open("/proc/cpuinfo"):
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


builds = {"base"}
native_built, avx2_built = sys.argv[2] == "1", sys.argv[3] == "1"
if avx2_built and {"avx2", "bmi2"} <= cpu_flags():
    builds.add("avx2")
if native_built:
    builds.add("native")  # built with -Dbench_march on this machine: it runs here
# Builds whose select is the portable one on x86-64 (no BMI2) always take the early form.
x86 = platform.machine() in ("x86_64", "AMD64")
always_early = {"base": x86, "avx2": False, "native": x86 and "bmi2" not in cpu_flags()}
out = os.path.join(tmpdir(), "forms")
keys = [3000, 40000, 1600000]
cp = subprocess.run([os.path.join(source_root(), "scripts", "bench-vqf-probe-forms"),
                     "--build", build, "--keys", ",".join(map(str, keys)), "--rounds", "2",
                     "--lookups", "20000", "--out", out],
                    capture_output=True, text=True, timeout=110)
check(cp.returncode == 0, "bench-vqf-probe-forms failed:\n" + cp.stdout + cp.stderr)
rows = list(csv.DictReader(open(out + ".csv")))
cells = {}
for r in rows:
    cells.setdefault((r["build"], int(r["keys"])), []).append(r)
check({b for b, _ in cells} == builds, "builds %s, want %s" % (sorted({b for b, _ in cells}),
                                                             sorted(builds)))
for (b, n), rs in sorted(cells.items()):
    got = sorted((int(r["round"]), r["form"]) for r in rs)
    check(got == [(1, "early"), (1, "probe"), (2, "early"), (2, "probe")],
          "%s %d: rounds and forms %s" % (b, n, got))
    check(len({r["positives"] for r in rs}) == 1, "%s %d: the forms found different positives: "
          "%s" % (b, n, [(r["form"], r["positives"]) for r in rs]))
    pos = int(rs[0]["positives"])
    check(0.45 * 20000 < pos < 0.56 * 20000, "%s %d: %d positives in 20,000 lookups of half "
          "inserted keys" % (b, n, pos))
    want = "early" if int(rs[0]["bytes"]) >= early_min or always_early[b] else "probe"
    check({r["picked"] for r in rs} == {want}, "%s %d (%s bytes): picked %s, want %s (early "
          "from %d bytes)" % (b, n, rs[0]["bytes"], rs[0]["picked"], want, early_min))
md = open(out + ".md").read()
for b in builds:
    check("## In-line build: %s" % b in md, "no section for the %s build" % b)
check(md.count("\n| 3,000 |") == len(builds) and md.count("\n| 1,600,000 |") == len(builds),
      "a row per build and size:\n" + md)
check("Verdicts: " in md, "no verdict count:\n" + md)
check(not os.path.exists(out + ".load.txt") and not os.path.exists(out + ".log"),
      "the run left a load log or an empty program log beside the report")

# The verdicts on made-up figures: early 0.5x picked early (agrees), early 1.5x picked early
# (disagrees), early 1.02x picked probe (within the 5% band), early 1.5x picked probe (agrees).
fake = out + "-fake"
with open(fake + ".csv", "w") as f:
    f.write("build,keys,bytes,picked,round,form,ns_per_lookup,positives\n")
    for n, picked, ratio in ((10, "early", 0.5), (20, "early", 1.5), (30, "probe", 1.02),
                             (40, "probe", 1.5)):
        for r in (1, 2, 3):
            f.write("base,%d,%d,%s,%d,probe,10.0,5\n" % (n, 64 * n, picked, r))
            f.write("base,%d,%d,%s,%d,early,%.2f,5\n" % (n, 64 * n, picked, r, 10 * ratio))
with open(fake + ".meta.json", "w") as f:
    json.dump({"host": "made-up", "lookups": 5, "load_before": "0.00", "load_after": "0.00",
               "csv": "x.csv"}, f)
cp = subprocess.run([os.path.join(source_root(), "scripts", "bench-vqf-probe-forms"),
                     "--report-only", "--out", fake], capture_output=True, text=True)
check(cp.returncode == 0, "--report-only on made-up files: " + cp.stderr)
md = open(fake + ".md").read()
for n, v in ((10, "agrees"), (20, "disagrees"), (30, "within band"), (40, "agrees")):
    row = [line for line in md.splitlines() if line.startswith("| %d |" % n)]
    check(len(row) == 1 and row[0].endswith("| %s |" % v), "made-up row %d: want %s, got %s"
          % (n, v, row))
check("Verdicts: 2 agree, 1 within band, 1 disagree." in md, "made-up verdict count:\n" + md)

cp = subprocess.run([os.path.join(source_root(), "scripts", "bench-vqf-probe-forms"),
                     "--report-only", "--out", out + "-none"], capture_output=True, text=True)
check(cp.returncode != 0 and "no " in cp.stderr, "--report-only without files: %d %s"
      % (cp.returncode, cp.stderr))
print("vqf_probe_forms: %d rows over %d builds, each build's pick as its flags and the L2 say"
      % (len(rows), len(builds)))
