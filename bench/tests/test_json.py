#!/usr/bin/python3
"""The JSON file: valid JSON (strict parser), Google-Benchmark shape, our schema version,
context fields, per-repetition entries and aggregates, CSV with units in column names."""
import csv
import math
import os
import re
import statistics

from benchtest import TINY, aggregates, check, iterations, load_strict, run, tmpdir

d = tmpdir()
js, cs = os.path.join(d, "r.json"), os.path.join(d, "r.csv")
run(["--filter", "split256,block512,cuckoo"] + TINY + ["--json", js, "--csv", cs])
with open(js) as f:
    text = f.read()
check("NaN" not in text and "Infinity" not in text, "bare NaN/Infinity in the JSON")
doc = load_strict(js)
check(set(doc) == {"context", "benchmarks"}, "top level keys: %s" % list(doc))

ctx = doc["context"]
check(ctx["json_schema_version"] == 1, "json_schema_version")
for key in ("date", "host_name", "num_cpus", "caches", "cpu", "os", "compiler", "library_build_type",
            "git_commit", "cpu_governor", "turbo_enabled", "perf_event_paranoid", "pmu_available",
            "counter_backend", "thp", "selected_kernel", "tsc", "warnings", "notes", "options",
            "kernels", "mem_available_bytes"):
    check(key in ctx, "context lacks %s" % key)
check(isinstance(ctx["pmu_available"], bool), "pmu_available is a boolean")
check(ctx["counter_backend"] in ("perf", "none"), "counter_backend %r" % ctx["counter_backend"])
check(isinstance(ctx["cpu"].get("flags"), str) and ctx["cpu"]["flags"], "cpu flags")
check(all({"level", "size", "type"} <= set(c) for c in ctx["caches"]), "cache entries")
check(isinstance(ctx["thp"], dict) and "enabled" in ctx["thp"], "thp mode")
check(isinstance(ctx["compiler"].get("flags"), str), "compiler flags")
if ctx["os"]["machine"] in ("x86_64", "AMD64"):
    check(ctx["tsc"]["available"] and ctx["tsc"]["hz"] > 1e8, "measured TSC frequency")

name_re = re.compile(r"^(lookup/(classic|block512|split256|reg64|cuckoo)/[a-z0-9]+/bytes:\d+/hit:[0-9.]+/keys:(u64|url)"
                     r"|insert/(classic|block512|split256|reg64|cuckoo)/[a-z0-9]+/bytes:\d+/keys:(u64|url)"
                     r"|delete/cuckoo/[a-z0-9]+/bytes:\d+/keys:(u64|url)"
                     r"|probe/(latency|random_line)/bytes:\d+)$")
runs = {}
for b in doc["benchmarks"]:
    for key in ("name", "run_name", "run_type", "repetitions", "real_time", "cpu_time", "time_unit",
                "iterations", "threads", "family_index"):
        check(key in b, "%s lacks %s" % (b.get("name"), key))
    check(b["time_unit"] == "ns", "time_unit")
    check(name_re.match(b["run_name"]), "run name %s" % b["run_name"])
    runs.setdefault(b["run_name"], {"it": [], "agg": {}})
    if b["run_type"] == "iteration":
        check(b["name"] == b["run_name"], "iteration name")
        runs[b["run_name"]]["it"].append(b)
    else:
        check(b["run_type"] == "aggregate", "run_type %s" % b["run_type"])
        check(b["name"] == b["run_name"] + "_" + b["aggregate_name"], "aggregate name %s" % b["name"])
        runs[b["run_name"]]["agg"][b["aggregate_name"]] = b

for name, r in runs.items():
    its = r["it"]
    check(len(its) == its[0]["repetitions"], "%s: %d iterations for %d repetitions" % (name, len(its), its[0]["repetitions"]))
    check(sorted(i["repetition_index"] for i in its) == list(range(len(its))), "%s repetition_index" % name)
    check(set(r["agg"]) == {"mean", "median", "stddev", "cv", "min"}, "%s aggregates %s" % (name, set(r["agg"])))
    times = [i["real_time"] for i in its]
    check(all(t > 0 for t in times), "%s positive times" % name)
    check(math.isclose(r["agg"]["median"]["real_time"], statistics.median(times), rel_tol=1e-6), "%s median" % name)
    check(math.isclose(r["agg"]["min"]["real_time"], min(times), rel_tol=1e-6), "%s min" % name)
    check(math.isclose(r["agg"]["mean"]["real_time"], statistics.mean(times), rel_tol=1e-6), "%s mean" % name)
    check(r["agg"]["cv"]["aggregate_unit"] == "percentage", "cv unit")

lookups = [n for n in runs if n.startswith("lookup/")]
check(len(lookups) == 3 * 2 * 2, "lookup configurations: %d" % len(lookups))
check(len([n for n in runs if n.startswith("insert/")]) == 3 * 2, "insert configurations")
# Cuckoo deletes (FL_CAP_DELETE): one delete configuration per size, ns per deleted key; every
# key deleted was inserted, so none is refused, and each goes back in.
check(sorted(n for n in runs if n.startswith("delete/")) ==
      ["delete/cuckoo/scalar/bytes:16384/keys:u64", "delete/cuckoo/scalar/bytes:262144/keys:u64"],
      "delete configurations: %s" % sorted(n for n in runs if n.startswith("delete/")))
for b in iterations(doc, "delete/"):
    check(b["op"] == "delete" and b["filter"] == "cuckoo" and b["item"] == "key", "%s fields" % b["name"])
    check(b["structure"] == "filter", "%s: structure %r" % (b["name"], b["structure"]))
    check("deletes_refused" not in b and "reinserts_refused" not in b, "%s: refusals %s" % (b["name"], b))
    check(b["iterations"] == min(8192, b["keys_inserted"]), "%s: keys per repetition" % b["name"])
# One probe pair per filter footprint: a target in bytes, or less by under one unit where the
# unit does not divide it (cuckoo at 1% has 12-bit fingerprints in 6-byte buckets).
footprints = {b["filter_bytes"] for b in iterations(doc, "lookup/")}
check(len([n for n in runs if n.startswith("probe/")]) == 2 * len(footprints), "probe configurations")
for b in iterations(doc, "lookup/"):
    check(b["target_bytes"] - 8 < b["filter_bytes"] <= b["target_bytes"], "%s: size" % b["name"])
    check(0 <= b["fpr_measured"] < 0.05, "%s: fpr %s" % (b["name"], b["fpr_measured"]))
    check(b["false_negatives"] == 0, "%s: false negatives" % b["name"])
    check(b["bits_per_key"] > 5, "%s: bits per key" % b["name"])
    check(b["ratio_to_bound"] is not None and b["ratio_to_bound"] > 0, "%s: ratio to bound" % b["name"])
    check(b["bound_ns_per_line"] > 0, "%s: bound" % b["name"])
    if b["hit_rate"] == 1:
        check(b["positives_fraction"] == 1, "%s: every inserted key found" % b["name"])
    if ctx["os"]["machine"] in ("x86_64", "AMD64"):
        check(b["tsc_cycles_per_lookup"] > 0, "%s: TSC cycles" % b["name"])

with open(cs) as f:
    rows = list(csv.DictReader(f))
check(len(rows) == len(runs), "CSV rows %d vs %d configurations" % (len(rows), len(runs)))
for col in ("ns_per_op_median", "ns_per_op_min", "ns_per_op_mean", "ns_per_op_stddev", "ns_per_op_cv_pct",
            "tsc_cycles_per_op_median", "filter_bytes", "bits_per_key", "fpr_measured", "ratio_to_bound_median",
            "llc_load_misses_per_op_median"):
    check(col in rows[0], "CSV lacks column %s" % col)

# URL keys: realistic lengths, hashed inside the timed region.
ju = os.path.join(d, "url.json")
run(["--filter", "split256", "--keys", "url", "--sizes", "64K", "--hit-rate", "0.5", "--reps", "2",
     "--lookups", "8192", "--kernel", "scalar", "--probe", "none", "--json", ju])
u = load_strict(ju)
for b in iterations(u, "lookup/"):
    check(b["run_name"].endswith("/keys:url"), "url run name")
    check(60 <= b["key_bytes_mean"] <= 110, "mean URL length %s" % b["key_bytes_mean"])
    check(0.4 < b["hits_fraction"] < 0.6, "hit fraction %s" % b["hits_fraction"])
print("ok")
