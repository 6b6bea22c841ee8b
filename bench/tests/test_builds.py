#!/usr/bin/python3
"""Insert timing: a filter whose build fits the insert budget several times gets whole builds
per kernel (own_builds); one whose budget allows a single build is built once for every
kernel, chunks rotating through them (shared_build), and the shares add up to the keys
inserted. --probe-only measures the probe alone. --bits-per-key takes the library's k."""
import os
import re

from benchtest import SKIP, check, load_strict, run, tmpdir

cp = run(["--list"])
kernels = [m.group(1) for m in re.finditer(r"^\s+(\S+)\s+supported(?! \(emulated\))\s", cp.stdout, re.M)]
d = tmpdir()

# 16 KiB filters hold ~13.7k keys: a 100k budget gives them whole builds (3 repetitions);
# 256 KiB ones (~220k keys) get one build.
js = os.path.join(d, "b.json")
ks = ",".join(kernels[:2])
run(["--filter", "classic,cuckoo", "--kernel", ks, "--sizes", "16K,256K", "--hit-rate", "1",
     "--reps", "3", "--lookups", "4096", "--insert-budget", "100000", "--probe", "none",
     "--counters", "none", "--json", js])
doc = load_strict(js)
iters = {b["run_name"]: b for b in doc["benchmarks"] if b["run_type"] == "iteration"}
medians = [b for b in doc["benchmarks"] if b.get("aggregate_name") == "median" and b.get("op") == "insert"]
check(len(medians) == 4 * len(kernels[:2]), "insert results: %s" % [b["run_name"] for b in medians])
by_filter = {}
for b in medians:
    by_filter.setdefault((b["filter"], b["filter_bytes"]), []).append(b)
for (filt, size), rs in by_filter.items():
    methods = {b["insert_method"] for b in rs}
    if size < 65536 or len(rs) == 1:
        check(methods == {"own_builds"}, "%s %d: %s" % (filt, size, methods))
        for b in rs:
            check(b["insert_keys_timed"] == b["keys_inserted"], "own builds time every key")
            want = min(3, max(1, 100000 // b["keys_inserted"]))
            check(b["repetitions"] == want, "%s %d: %d repetitions, expected %d"
                  % (filt, size, b["repetitions"], want))
    else:
        check(methods == {"shared_build"}, "%s %d: %s" % (filt, size, methods))
        total = sum(b["insert_keys_timed"] for b in rs)
        check(total == rs[0]["keys_inserted"], "%s %d: shares %d != %d inserted"
              % (filt, size, total, rs[0]["keys_inserted"]))
        for b in rs:
            check(b["repetitions"] == 1 and iters[b["run_name"]]["iterations"] == b["insert_keys_timed"] > 0,
                  "%s: one repetition over its share" % b["run_name"])
            check(b["real_time"] > 0, "%s: timed" % b["run_name"])

# The probe alone: probe results at exactly the sizes asked for, nothing else.
js = os.path.join(d, "p.json")
run(["--probe-only", "--sizes", "64K,1M", "--reps", "2", "--lookups", "4096", "--counters", "none",
     "--json", js])
doc = load_strict(js)
names = {b["run_name"] for b in doc["benchmarks"]}
check(names == {"probe/latency/bytes:65536", "probe/random_line/bytes:65536",
                "probe/latency/bytes:1048576", "probe/random_line/bytes:1048576"}, "probe-only: %s" % names)
cp = run(["--probe-only", "--sizes-in", "keys", "--sizes", "1000"], check=False)
check(cp.returncode == 1 and "flbench:" in cp.stderr, "--probe-only with keys is refused")

# --bits-per-key: k is the one fl_params_for picks for the budget (classic: round(b ln 2),
# also above 16; cuckoo: 8-bit fingerprints at 10 bits per key, 11-bit semi-sorted ones (10
# bits a slot, load 0.83) at 12, 16-bit ones at 20).
js = os.path.join(d, "k.json")
for b, want in ((10, {"classic": 7, "cuckoo": 8}), (12, {"classic": 8, "cuckoo": 11}),
                (20, {"classic": 14, "cuckoo": 16}), (30, {"classic": 21})):
    filters = ",".join(sorted(want))
    run(["--filter", filters, "--kernel", kernels[0], "--sizes", "64K", "--bits-per-key", str(b),
         "--hit-rate", "1", "--reps", "1", "--lookups", "1024", "--probe", "none",
         "--counters", "none", "--json", js])
    for r in load_strict(js)["benchmarks"]:
        if r.get("aggregate_name") == "median" and r.get("op") == "lookup":
            check(r["k"] == want[r["filter"]], "%s at %g bits per key: k=%d, expected %d"
                  % (r["filter"], b, r["k"], want[r["filter"]]))
cp = run(["--filter", "cuckoo", "--sizes", "64K", "--bits-per-key", "6", "--probe", "none"], check=False)
check(cp.returncode == 0 and "needs >= 8.51 bits per key" in cp.stderr,
      "cuckoo below its loosest sizing is skipped with the reason: %s" % cp.stderr[-500:])
print("ok" if len(kernels) > 1 else "ok (one kernel: the shared build was not exercised)")
