#!/usr/bin/python3
"""plot.py and compare.py on the committed sample files (written by flbench itself through
bench/tests/make_samples.sh): every figure as PNG and SVG, the comparison table with a
Mann-Whitney p per benchmark, a geometric-mean row and the low-repetition warning."""
import os
import subprocess
import sys

from benchtest import check, load_strict, source_root, tmpdir

here = os.path.dirname(os.path.abspath(__file__))
a, b = os.path.join(here, "sample_a.json"), os.path.join(here, "sample_b.json")
scripts = os.path.join(source_root(), "scripts")
py = sys.executable
d = tmpdir()

cp = subprocess.run([py, os.path.join(scripts, "plot.py"), "-o", d, a, b], capture_output=True, text=True, timeout=80)
check(cp.returncode == 0, "plot.py failed:\n" + cp.stderr)
for fig in ("ns_per_lookup", "speedup", "cycles_per_lookup", "misses_per_lookup", "fpr", "ratio_to_bound",
            "insert_ns_per_key"):
    png, svg = os.path.join(d, fig + ".png"), os.path.join(d, fig + ".svg")
    check(os.path.exists(png) and os.path.exists(svg), "missing %s.png/.svg" % fig)
    with open(png, "rb") as f:
        check(f.read(8) == b"\x89PNG\r\n\x1a\n", "%s is not a PNG" % png)
    with open(svg) as f:
        head = f.read(400)
    check("<svg" in head or "<?xml" in head, "%s is not an SVG" % svg)
    check(os.path.getsize(png) > 5000, "%s looks empty" % png)

cp = subprocess.run([py, os.path.join(scripts, "compare.py"), a, b], capture_output=True, text=True, timeout=60)
check(cp.returncode == 0, "compare.py failed:\n" + cp.stderr)
runs_a = {x["run_name"] for x in load_strict(a)["benchmarks"]}
runs_b = {x["run_name"] for x in load_strict(b)["benchmarks"]}
common = runs_a & runs_b
rows = [l for l in cp.stdout.splitlines() if l.split() and l.split()[0] in common]
check(len(rows) == len(common), "one row per common benchmark: %d vs %d" % (len(rows), len(common)))
for l in rows:
    f = l.split()
    check(f[3].endswith("%") and 0 <= float(f[4]) <= 1, "row: " + l)
check("geometric mean" in cp.stdout, "no geometric-mean row")
reps = min(x["repetitions"] for x in load_strict(a)["benchmarks"] + load_strict(b)["benchmarks"])
check(("fewer than 9 repetitions" in cp.stderr) == (reps < 9), "warning iff < 9 repetitions:\n" + cp.stderr)

cp = subprocess.run([py, os.path.join(scripts, "compare.py"), a, a], capture_output=True, text=True, timeout=60)
geo = [l for l in cp.stdout.splitlines() if l.startswith("geometric mean")]
check(geo and "+0.00%" in geo[0], "a file against itself: " + str(geo))

# Pooled sides: a file listed twice doubles every benchmark's repetitions on its side.
cp = subprocess.run([py, os.path.join(scripts, "compare.py"), a + "," + a, b],
                    capture_output=True, text=True, timeout=60)
check(cp.returncode == 0, "pooled compare.py failed:\n" + cp.stderr)
counts_a = {}
for x in load_strict(a)["benchmarks"]:
    if x.get("run_type", "iteration") == "iteration":
        counts_a[x["run_name"]] = counts_a.get(x["run_name"], 0) + 1
for l in cp.stdout.splitlines():
    f = l.split()
    if f and f[0] in common:
        check(f[5].split("/")[0] == str(2 * counts_a[f[0]]), "pooled reps: " + l)
print("ok")
