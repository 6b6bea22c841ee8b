#!/usr/bin/python3
"""--counters callgrind: simulated D1/LL misses per lookup from a warm-cache valgrind re-run.
A filter far larger than the simulated LL misses it on (nearly) every lookup; a filter that
fits in the simulated D1 barely misses it (only the streamed key array does), which shows the
caches were warm when collection started."""
import os
import shutil

from benchtest import SKIP, check, iterations, load_strict, run, tmpdir

if not shutil.which("valgrind"):
    print("valgrind not found: skipped")
    raise SystemExit(SKIP)

d = tmpdir()
js = os.path.join(d, "cg.json")
common = ["--counters", "callgrind", "--kernel", "scalar", "--hit-rate", "0", "--reps", "1",
          "--warmup", "0", "--lookups", "4096", "--callgrind-lookups", "16384", "--probe", "none"]
cp = run(["--filter", "split256,block512", "--sizes", "16K,4M", "--D1", "32768,8,64",
          "--LL", "131072,8,64", "--json", js] + common)
doc = load_strict(js)
ctx = doc["context"]
check(ctx["counter_backend"] == "callgrind", "backend %r" % ctx["counter_backend"])
cg = ctx["callgrind"]
check(cg["D1"] == "32768,8,64" and cg["LL"] == "131072,8,64", "geometry recorded: %s" % cg)
check("simulated" in cg["label"], "labelled simulated")
seen = 0
for b in iterations(doc, "lookup/"):
    for k in ("sim_d1_misses_per_lookup", "sim_ll_misses_per_lookup", "sim_data_reads_per_lookup",
              "sim_instructions_per_lookup"):
        check(isinstance(b.get(k), float), "%s: %s = %r" % (b["name"], k, b.get(k)))
    check(b["sim_lookups"] == 16384, "simulated lookups")
    if b["filter_bytes"] == 4 << 20:  # 32x the simulated LL
        check(b["sim_ll_misses_per_lookup"] >= 0.5, "%s: %.3f LL misses per lookup" % (b["name"], b["sim_ll_misses_per_lookup"]))
    else:  # fits in the simulated D1: warm, only the key stream misses (8 B keys: 1/8 per lookup)
        check(b["sim_d1_misses_per_lookup"] < 0.3, "%s: %.3f D1 misses per lookup (cold caches?)" % (b["name"], b["sim_d1_misses_per_lookup"]))
    check(b["cycles_per_lookup"] is None, "hardware counters stay null under callgrind")
    seen += 1
check(seen == 4, "4 lookup configurations, got %d" % seen)
check("sim D1 miss" in cp.stdout, "console shows the simulated columns")

# Default geometry: this machine's caches from sysfs, set counts made powers of two.
js2 = os.path.join(d, "cg2.json")
run(["--filter", "split256", "--sizes", "16K", "--json", js2] + common)
cg2 = load_strict(js2)["context"]["callgrind"]
if os.path.exists("/sys/devices/system/cpu/cpu0/cache/index0/size"):
    check(cg2["geometry_source"] == "sysfs", "geometry source %s" % cg2["geometry_source"])
for g in (cg2["D1"], cg2["LL"]):
    size, ways, line = (int(x) for x in g.split(","))
    sets = size // (ways * line)
    check(sets & (sets - 1) == 0, "set count of %s is a power of two" % g)
print("ok")
