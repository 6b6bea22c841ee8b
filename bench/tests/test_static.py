#!/usr/bin/python3
"""The static structures suite (--structure static): options, result names, the
"structure" / "op" fields, sizing (bytes and --sizes-in keys), the accuracy and space fields,
ratio_to_bound against the memory probe, CSV, plot.py's family_static figure. No timing is
asserted."""
import csv
import math
import os
import subprocess
import sys

from benchtest import check, iterations, load_strict, run, source_root, tmpdir

KINDS = {"fuse8": (3, 8, 0), "fuse16": (3, 16, 0), "fuse4w8": (4, 8, 0), "fuse4w16": (4, 16, 0),
         "bloomier": (3, 16, 8)}

cp = run(["--help"])
check("static" in cp.stdout, "--help does not mention the static structures")
cp = run(["--structure", "statics"], check=False)
check(cp.returncode == 1 and "static" in cp.stderr, "a bad structure lists static: %s" % cp.stderr)

d = tmpdir()
js, cs = os.path.join(d, "static.json"), os.path.join(d, "static.csv")
run(["--structure", "static", "--sizes", "16K,256K", "--hit-rate", "0,0.5,1", "--reps", "2",
     "--warmup", "1", "--lookups", "4096", "--kernel", "scalar", "--counters", "none",
     "--json", js, "--csv", cs], timeout=200)
doc = load_strict(js)
its = iterations(doc)
static = [b for b in its if b.get("structure") == "static"]
names = {b["run_name"] for b in static}
for kind in KINDS:
    for size in (16384, 262144):
        for w in ("build/%s/any/bytes:%d/keys:u64" % (kind, size),
                  "lookup/%s/scalar/bytes:%d/hit:0.5/keys:u64" % (kind, size),
                  "lookup/%s/scalar/bytes:%d/hit:1/keys:u64" % (kind, size),
                  "lookup_inline/%s/inline/bytes:%d/hit:0/keys:u64" % (kind, size)):
            check(w in names, "missing %s in %s" % (w, sorted(names)))
check(len(names) == len(KINDS) * 2 * (1 + 2 * 3), "%d static configurations" % len(names))
check({b["run_name"].split("/")[0] for b in its if b["run_name"].startswith("probe/")} == {"probe"},
      "probe results present")

for b in static:
    n = b["run_name"]
    op, kind, kernel = n.split("/")[:3]
    arity, cell_bits, value_bits = KINDS[kind]
    check(b["op"] == op and b["filter"] == kind and b["kernel"] == kernel, "%s: op/filter/kernel" % n)
    check(b["arity"] == arity and b["cell_bits"] == cell_bits and b["value_bits"] == value_bits,
          "%s: arity/cell/value bits %s" % (n, (b["arity"], b["cell_bits"], b["value_bits"])))
    check(isinstance(b.get("real_time"), float) and b["real_time"] > 0, "%s: real_time" % n)
    check(0 < b["structure_bytes"] <= b["target_bytes"], "%s: %s bytes in %s" % (n, b["structure_bytes"], b["target_bytes"]))
    # The largest key count whose cells fit: a bigger one would not.
    check(b["structure_bytes"] > 0.8 * b["target_bytes"], "%s: fills its size" % n)
    check(abs(b["bits_per_key"] - b["structure_bytes"] * 8 / b["keys"]) < 1e-6, "%s: bits_per_key" % n)
    check(b["bound_bits_per_key"] == cell_bits, "%s: bound %s" % (n, b["bound_bits_per_key"]))
    check(abs(b["space_ratio_to_bound"] - b["bits_per_key"] / cell_bits) < 1e-6, "%s: space ratio" % n)
    check(1.0 < b["space_ratio_to_bound"] < 1.6, "%s: space ratio %s" % (n, b["space_ratio_to_bound"]))
    expected = 2.0 ** -(cell_bits - value_bits)
    check(abs(b["fpr_expected"] / expected - 1) < 1e-6, "%s: fpr_expected %s" % (n, b["fpr_expected"]))
    # 2^20..2^24 queries, about 1000+ expected positives: within a factor 2 with certainty.
    check(b["fpr_queries"] >= 1 << 20 and expected / 2 < b["fpr_measured"] < expected * 2,
          "%s: fpr_measured %s over %s" % (n, b["fpr_measured"], b["fpr_queries"]))
    check(b["false_negatives"] == 0 and "false_negatives_seen" not in b, "%s: false negatives" % n)
    if kind == "bloomier":
        check(b["wrong_values"] == 0, "%s: wrong values" % n)
    check(b["build_tries"] >= 1 and b["build_bytes"] > 0, "%s: build info" % n)
    if op == "build":
        check(b["item"] == "key" and b["kernel_used"].startswith("none"), "%s: build fields" % n)
        check("ratio_to_bound" not in b or b["ratio_to_bound"] is None, "%s: no bound for builds" % n)
    else:
        check(b["item"] == "lookup", "%s: item" % n)
        check(b["kernel_used"] == ("inline" if op == "lookup_inline" else "scalar"), "%s: kernel_used" % n)
        r = b.get("ratio_to_bound")
        check(isinstance(r, float) and r > 0 and math.isfinite(r), "%s: ratio_to_bound %r" % (n, r))
        check(b["bound_ns_per_line"] > 0, "%s: bound_ns_per_line" % n)
        h = b["hit_rate"]
        check(b["hits_fraction"] == h if h in (0, 1) else 0.4 < b["hits_fraction"] < 0.6,
              "%s: hits_fraction %s" % (n, b["hits_fraction"]))
        # Every hit is a positive; misses are positive at about the FPR.
        check(b["hits_fraction"] <= b["positives_fraction"] <= b["hits_fraction"] + 0.05,
              "%s: positives %s" % (n, b["positives_fraction"]))

# Every probe footprint of the suite is a static structure's cell array.
probed = {b["footprint_bytes"] for b in its if b["run_name"].startswith("probe/random_line/")}
check({b["structure_bytes"] for b in static} <= probed, "a footprint was not probed")

# --sizes-in keys: the key count as given; 4-wise takes fewer bytes than 3-wise.
js2 = os.path.join(d, "keys.json")
# An --insert-budget below the key count: one build, reported on the console like the rest.
cp = run(["--structure", "static", "--sizes-in", "keys", "--sizes", "50000", "--hit-rate", "1",
          "--reps", "2", "--warmup", "0", "--lookups", "2048", "--kernel", "scalar",
          "--insert-budget", "1000", "--counters", "none", "--probe", "none", "--json", js2],
         timeout=120)
check("build/fuse8/any/nkeys:50000/keys:u64" in cp.stdout, "one build not on the console:\n" + cp.stdout)
ks = [b for b in iterations(load_strict(js2)) if b.get("structure") == "static"]
check(sum(b["run_name"] == "build/fuse8/any/nkeys:50000/keys:u64" for b in ks) == 1, "one build repetition")
check(ks and all(b["keys"] == 50000 and "/nkeys:50000/" in b["run_name"] for b in ks), "nkeys sizing")
by = {b["filter"]: b["structure_bytes"] for b in ks}
check(by["fuse4w8"] < by["fuse8"] < by["fuse4w16"] < by["fuse16"] and by["fuse16"] == by["bloomier"],
      "bytes: %s" % by)
check(all(b.get("ratio_to_bound") is None for b in ks), "--probe none: no ratio_to_bound")

# --structure all includes static.
js3 = os.path.join(d, "all.json")
run(["--structure", "all", "--sizes", "16K", "--filter", "block512", "--sbf-filters", "1",
     "--hll-precisions", "8", "--cms-topk", "0", "--bandwidth-bytes", "1M", "--hit-rate", "1",
     "--reps", "1", "--warmup", "0", "--lookups", "2048", "--kernel", "scalar", "--counters",
     "none", "--probe", "none", "--json", js3], timeout=200)
structs = {b.get("structure") for b in iterations(load_strict(js3))}
check({"filter", "sbf", "cms", "hll", "static"} <= structs, "--structure all: %s" % structs)

# CSV: the suite's columns; plot.py: the family_static figure; compare.py: --structure static.
with open(cs) as f:
    rows = [r for r in csv.DictReader(f) if r.get("structure") == "static"]
check(len(rows) == len(names), "one csv row per static configuration")
check({"space_ratio_to_bound", "bits_per_key", "fpr_measured", "filter"} <= set(rows[0]),
      "csv columns: %s" % sorted(rows[0]))
scripts = os.path.join(source_root(), "scripts")
cp = subprocess.run([sys.executable, os.path.join(scripts, "plot.py"), "-o", d, js],
                    capture_output=True, text=True, timeout=120)
check(cp.returncode == 0, "plot.py failed:\n" + cp.stderr)
check(os.path.getsize(os.path.join(d, "family_static.png")) > 5000, "family_static.png")
cp = subprocess.run([sys.executable, os.path.join(scripts, "compare.py"), "--structure", "static",
                     "--op", "lookup_inline", js, js], capture_output=True, text=True, timeout=60)
check(cp.returncode == 0, "compare.py failed:\n" + cp.stderr)
rows = [l for l in cp.stdout.splitlines() if l.startswith("lookup_inline/")]
check(len(rows) == len(KINDS) * 2 * 3, "compare --structure static --op lookup_inline: %s" % cp.stdout)
