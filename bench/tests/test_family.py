#!/usr/bin/python3
"""The family suites (--structure sbf,cms,hll) and the counting variants' deletes: option
refusals, result names, the "structure" and "op" fields and the parameters each result
carries, CSV columns, and plot.py / compare.py on the output. No timing is asserted."""
import csv
import gzip
import json
import os
import subprocess
import sys

from benchtest import check, iterations, load_strict, run, source_root, tmpdir

cp = run(["--help"])
for opt in ["--structure", "--sbf-filters", "--sbf-growth", "--cms-depth", "--cms-topk",
            "--hll-precisions", "--bandwidth-bytes", "--plan"]:
    check(opt in cp.stdout, "--help does not mention %s" % opt)

for bad in (["--structure", "bogus"], ["--structure", ""], ["--sbf-filters", "0"],
            ["--sbf-filters", "1,200"], ["--sbf-growth", "0.5"], ["--cms-depth", "0"],
            ["--cms-depth", "33"], ["--cms-topk", "70000"], ["--hll-precisions", "3"],
            ["--hll-precisions", "17"], ["--bandwidth-bytes", "1K"],
            ["--structure", "cms", "--sizes-in", "keys"]):
    cp = run(bad, check=False)
    check(cp.returncode == 1, "%s: exit %d, expected 1 (usage error)" % (bad, cp.returncode))
    check("flbench:" in cp.stderr, "%s: no message on stderr" % bad)

# --plan prints the sizing without measuring.
cp = run(["--plan", "--filter", "counting512,block512", "--sizes", "64K"])
rows = [l.split() for l in cp.stdout.splitlines()[1:]]
check([r[0] for r in rows] == ["counting512", "block512"], "--plan rows: %s" % cp.stdout)
check(all(int(r[2]) == 65536 and int(r[3]) > 0 for r in rows), "--plan bytes/keys: %s" % cp.stdout)
check(int(rows[1][3]) > int(rows[0][3]), "block512 holds more keys than counting512 in 64K")

d = tmpdir()
js, cs = os.path.join(d, "fam.json"), os.path.join(d, "fam.csv")
run(["--structure", "filter,family", "--filter", "counting512", "--sizes", "16K,64K",
     "--sbf-filters", "1,4", "--hll-precisions", "8,14", "--cms-topk", "16",
     "--bandwidth-bytes", "1M", "--hit-rate", "0.5", "--reps", "2", "--warmup", "0",
     "--lookups", "4096", "--kernel", "scalar", "--counters", "none", "--probe", "none",
     "--json", js, "--csv", cs], timeout=200)
doc = load_strict(js)
its = iterations(doc)
names = {b["run_name"] for b in its}

want = [
    "insert/counting512/scalar/bytes:16384/keys:u64",
    "lookup/counting512/scalar/bytes:16384/hit:0.5/keys:u64",
    "delete/counting512/scalar/bytes:65536/keys:u64",
    "insert/sbf/scalar/bytes:16384/filters:4/keys:u64",
    "lookup/sbf/scalar/bytes:65536/filters:1/hit:0.5/keys:u64",
    "lookup/sbf/scalar/bytes:65536/filters:4/hit:0.5/keys:u64",
    "update/cms/scalar/bytes:16384/d:5/w:819/keys:u64",
    "query/cms/scalar/bytes:65536/d:5/w:3276/keys:u64",
    "update/cms/scalar/bytes:54380/d:5/w:2719/keys:u64",
    "query/cms/scalar/bytes:54380/d:5/w:2719/keys:u64",
    "update_topk/cms/scalar/bytes:54380/d:5/w:2719/topk:16/keys:u64",
    "add/hll/scalar/p:8/dense/keys:u64",
    "estimate/hll/scalar/p:14/n:1048576/keys:u64",
    "merge/hll/scalar/p:14/dense+dense/keys:u64",
    "probe/stream_read/bytes:1048576",
]
for w in want:
    check(w in names, "missing %s in %s" % (w, sorted(names)))

structure_of = {"counting512": "counting", "sbf": "sbf", "cms": "cms", "hll": "hll"}
for b in its:
    n = b["run_name"]
    if n.startswith("probe/"):
        check(b.get("op") == "probe_stream_read" or b.get("op", "").startswith("probe"), n)
        continue
    op, second = n.split("/")[0], n.split("/")[1]
    check(b.get("op") == op, "%s: op field %r" % (n, b.get("op")))
    check(b.get("structure") == structure_of[second], "%s: structure %r" % (n, b.get("structure")))
    check(b.get("kernel") == "scalar", "%s: kernel %r" % (n, b.get("kernel")))
    check(isinstance(b.get("real_time"), float) and b["real_time"] > 0, "%s: real_time" % n)
    check(b.get("repetitions") >= 1, n)
    if second in ("sbf", "cms", "hll"):
        check(b.get("structure_bytes", 0) > 0, "%s: structure_bytes" % n)
        check(b.get("kernel_used") == "scalar", "%s: kernel_used %r" % (n, b.get("kernel_used")))

def one(name):
    return next(b for b in its if b["run_name"] == name)

# Parameters of each suite.
b = one("lookup/sbf/scalar/bytes:65536/filters:4/hit:0.5/keys:u64")
check(b["sub_filters"] == 4 and b["sub_filters_requested"] == 4, "4 sub-filters: %s" % b)
check(0.8 * 65536 <= b["structure_bytes"] <= 1.2 * 65536, "chain bytes near the size: %s" % b["structure_bytes"])
check(b["growth"] == 2 and b["tightening"] == 0.5 and b["hit_rate"] == 0.5, "sbf params")
check(b["fpr_predicted"] <= b["error_rate"], "the chain's model FPR is within its error rate")
check(0.4 < b["positives_fraction"] < 0.7, "half hits: %s" % b["positives_fraction"])
check(one("lookup/sbf/scalar/bytes:65536/filters:1/hit:0.5/keys:u64")["sub_filters"] == 1, "one sub-filter")
b = one("update/cms/scalar/bytes:54380/d:5/w:2719/keys:u64")
check(b["width"] == 2719 and b["depth"] == 5 and b["seeds_point"] == 1, "seeds' point: %s" % b)
check(b["structure_bytes"] == 2719 * 5 * 4 and b["item"] == "item", "cms bytes/item")
check(abs(b["epsilon"] - 0.001) < 1e-5, "epsilon of w=2719: %s" % b["epsilon"])
b = one("update/cms/scalar/bytes:16384/d:5/w:819/keys:u64")
check(b["seeds_point"] == 0 and b["width"] * b["depth"] * 4 <= 16384, "cms from size")
check(one("update_topk/cms/scalar/bytes:54380/d:5/w:2719/topk:16/keys:u64")["topk"] == 16, "topk")
b = one("merge/hll/scalar/p:14/dense+dense/keys:u64")
check(b["precision"] == 14 and b["registers"] == 16384 and b["encoding"] == "dense", "hll merge params")
check(b["merge_bytes"] == 2 * 16384, "merge bytes: %s" % b["merge_bytes"])
for k in ("merge_gb_per_s", "merge_fraction_of_dram_bandwidth", "dram_read_gb_per_s",
          "footprint_read_gb_per_s"):
    check(isinstance(b.get(k), float) and b[k] > 0, "%s: %r" % (k, b.get(k)))
check(one("estimate/hll/scalar/p:14/n:1048576/keys:u64")["item"] == "estimate", "estimate item")
check(one("add/hll/scalar/p:8/dense/keys:u64")["registers"] == 256, "p=8 registers")
b = one("probe/stream_read/bytes:1048576")
check(b.get("gb_per_s", 0) > 0, "stream probe GB/s")
check(doc["context"].get("dram_read_gb_per_s", 0) > 0, "context carries the DRAM read bandwidth")
b = one("delete/counting512/scalar/bytes:65536/keys:u64")
check(b["item"] == "key" and b["filter"] == "counting512", "delete fields: %s" % b)
check("deletes_refused" not in b, "a delete of an inserted key is never refused")

# Aggregates exist for the family results too.
aggs = {b["run_name"] for b in doc["benchmarks"] if b["run_type"] == "aggregate"}
check("update/cms/scalar/bytes:16384/d:5/w:819/keys:u64" in aggs, "no aggregates for cms")

# CSV: one row per configuration, with the new columns.
with open(cs) as f:
    rows = list(csv.DictReader(f))
check({"structure", "op", "structure_bytes", "sub_filters", "width", "precision"} <= set(rows[0]),
      "csv columns: %s" % sorted(rows[0]))
check(len(rows) == len({b["run_name"] for b in its}), "one csv row per configuration")

# plot.py: one family figure per structure; compare.py: --structure/--op filters.
scripts = os.path.join(source_root(), "scripts")
cp = subprocess.run([sys.executable, os.path.join(scripts, "plot.py"), "-o", d, js],
                    capture_output=True, text=True, timeout=120)
check(cp.returncode == 0, "plot.py failed:\n" + cp.stderr)
for s in ("counting", "sbf", "cms", "hll"):
    check(os.path.getsize(os.path.join(d, "family_%s.png" % s)) > 5000, "family_%s.png" % s)
cp = subprocess.run([sys.executable, os.path.join(scripts, "compare.py"), "--structure", "hll",
                     "--op", "merge", "--metric", "merge_gb_per_s", js, js],
                    capture_output=True, text=True, timeout=60)
check(cp.returncode == 0, "compare.py failed:\n" + cp.stderr)
rows = [l for l in cp.stdout.splitlines() if l.startswith("merge/hll/")]
check(len(rows) == 2, "compare --structure hll --op merge rows: %s" % cp.stdout)

# Both read gzip-compressed result files (scripts/bench-family commits its sweeps so).
gz = js + ".gz"
with open(js, "rb") as src, gzip.open(gz, "wb") as dst:
    dst.write(src.read())
cp = subprocess.run([sys.executable, os.path.join(scripts, "compare.py"), "--structure", "cms", gz, js],
                    capture_output=True, text=True, timeout=60)
check(cp.returncode == 0 and "update/cms/scalar/bytes:16384/d:5/w:819/keys:u64" in cp.stdout,
      "compare.py on .gz:\n" + cp.stdout + cp.stderr)
cp = subprocess.run([sys.executable, os.path.join(scripts, "plot.py"), "-o", os.path.join(d, "gz"), gz],
                    capture_output=True, text=True, timeout=120)
check(cp.returncode == 0 and "family_hll.png" in cp.stdout, "plot.py on .gz:\n" + cp.stderr)

# scripts/bench-family parses its options (its runs take minutes: not run here).
cp = subprocess.run([sys.executable, os.path.join(scripts, "bench-family"), "--help"],
                    capture_output=True, text=True, timeout=60)
check(cp.returncode == 0 and "--report-only" in cp.stdout, "bench-family --help:\n" + cp.stderr)
print("ok")
