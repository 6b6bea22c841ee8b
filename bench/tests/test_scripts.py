#!/usr/bin/python3
"""plot.py and compare.py on the committed sample files (written by flbench itself through
bench/tests/make_samples.sh): every figure as PNG and SVG, the comparison table with a
Mann-Whitney p per benchmark, a geometric-mean row and the low-repetition warning; and
compare.py on two tiny real runs of different kernels."""
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

# Two runs that differ only by kernel: compare.py pairs each benchmark with its twin of the
# other kernel (the names differ in the kernel part), and says so.
import re  # noqa: E402

from benchtest import run  # noqa: E402

kernels = [m.group(1) for m in re.finditer(r"^\s+(\S+)\s+supported(?! \(emulated\))\s",
                                           run(["--list"]).stdout, re.M)]
if len(kernels) < 2:
    print("ok (one kernel on this machine: the cross-kernel comparison was not exercised)")
    raise SystemExit(0)
k1, k2 = kernels[0], kernels[1]
tiny = ["--filter", "split256", "--sizes", "16K", "--hit-rate", "0.5,1", "--reps", "3", "--warmup", "0",
        "--lookups", "2048", "--counters", "none", "-q"]
ja, jb, jab = (os.path.join(d, n) for n in ("ka.json", "kb.json", "kab.json"))
run(tiny + ["--kernel", k1, "--json", ja])
run(tiny + ["--kernel", k2, "--json", jb])
run(tiny + ["--kernel", "%s,%s" % (k1, k2), "--json", jab])


def compare(*args):
    return subprocess.run([py, os.path.join(scripts, "compare.py")] + list(args),
                          capture_output=True, text=True, timeout=60)


cp = compare(ja, jb)
check(cp.returncode == 0, "compare.py across kernels failed:\n" + cp.stderr)
first = cp.stdout.splitlines()[0]
check(re.match(r"matched \d+ benchmarks on op, filter, bytes, (hit, keys|keys, hit); left out kernel "
               r"\(old: %s; new: %s\)$" % (k1, k2), first), "first line: " + first)
rows = {l.split()[0] for l in cp.stdout.splitlines()[2:] if l.split() and "/" in l.split()[0]}
want = {"lookup/split256/*/bytes:16384/hit:0.5/keys:u64", "lookup/split256/*/bytes:16384/hit:1/keys:u64",
        "insert/split256/*/bytes:16384/keys:u64", "probe/latency/bytes:16384",
        "probe/random_line/bytes:16384"}
check(want <= rows, "rows: %s" % sorted(rows))

# --ignore none compares whole names: only the kernel-less probes pair; with none of those
# left, the error says what differs.
cp = compare("--ignore", "none", ja, jb)
rows = [l.split()[0] for l in cp.stdout.splitlines()[2:] if l.split() and "/" in l.split()[0]]
check(cp.returncode == 0 and rows and all(r.startswith("probe/") for r in rows), "--ignore none:\n" + cp.stdout)
cp = compare("--ignore", "none", "--op", "lookup", ja, jb)
check(cp.returncode == 1 and "differ in kernel (old: %s; new: %s)" % (k1, k2) in cp.stderr,
      "--ignore none --op lookup:\n" + cp.stderr)
# One side with both kernels: leaving the kernel out would be ambiguous, so auto keeps it and
# only the common kernel pairs; asking for it explicitly is refused with the reason.
cp = compare(jab, jb)
check(cp.returncode == 0 and cp.stdout.startswith("matched") and "left out" not in cp.stdout.splitlines()[0],
      "both kernels against one:\n" + cp.stdout + cp.stderr)
rows = [l.split()[0] for l in cp.stdout.splitlines() if l.startswith("lookup/")]
check(rows and all("/%s/" % k2 in r for r in rows), "only %s pairs: %s" % (k2, rows))
cp = compare("--ignore", "kernel", jab, jb)
check(cp.returncode == 1 and "several old benchmarks become one" in cp.stderr, "explicit ambiguity:\n" + cp.stderr)
cp = compare("--ignore", "colour", ja, jb)
check(cp.returncode == 1 and "no such field" in cp.stderr, "unknown field:\n" + cp.stderr)
print("ok")
