#!/usr/bin/python3
"""flbench option parsing: --help, --list, refusals with exit code 2, sizes in keys."""
import json
import os

from benchtest import check, run, tmpdir, load_strict

cp = run(["--help"])
for opt in ["--filter", "--kernel", "--fpr", "--bits-per-key", "--sizes", "--hit-rate", "--batch",
            "--keys", "--reps", "--warmup", "--interleave", "--pin", "--huge-pages", "--counters",
            "--events", "--json", "--csv", "--probe", "--quick", "--D1", "--LL"]:
    check(opt in cp.stdout, "--help does not mention %s" % opt)
check("minutes" in cp.stdout, "--help does not say how long the default sweep takes")

cp = run(["--list"])
check("scalar" in cp.stdout and "default sweep" in cp.stdout, "--list output: " + cp.stdout)

for bad in (["--nope"], ["--filter", "bogus"], ["--kernel", "bogus"], ["--sizes", "20..10"],
            ["--fpr", "0.01", "--bits-per-key", "10"], ["--fpr", "1.5"], ["--hit-rate", "2"],
            ["--keys", "strings"], ["--counters", "magic"], ["--huge-pages", "maybe"],
            ["--sizes", "12Q"], ["--reps", "0"], ["--D1", "32K"]):
    cp = run(bad, check=False)
    check(cp.returncode == 2, "%s: exit %d, expected 2" % (bad, cp.returncode))
    check("flbench:" in cp.stderr, "%s: no message on stderr" % bad)

# Sizes in keys with bits per key, a log2 range, report on stdout (console moves to stderr).
d = tmpdir()
out = os.path.join(d, "keys.json")
cp = run(["--filter", "split256,cuckoo", "--sizes-in", "keys", "--sizes", "10..12:2",
          "--bits-per-key", "12", "--hit-rate", "1", "--reps", "2", "--lookups", "2048",
          "--probe", "none", "--counters", "none", "--kernel", "scalar", "--json", "-"])
doc = json.loads(cp.stdout)
names = {b["run_name"] for b in doc["benchmarks"]}
for want in ("lookup/split256/scalar/nkeys:1024/hit:1/keys:u64",
             "lookup/cuckoo/scalar/nkeys:4096/hit:1/keys:u64"):
    check(want in names, "missing %s in %s" % (want, sorted(names)))
for b in doc["benchmarks"]:
    if b.get("op") == "lookup":
        check(b["keys_inserted"] == b["target_keys"], "keys mode inserts the requested keys")
        check(11.5 <= b["bits_per_key"] <= 13.5, "bits per key %s for --bits-per-key 12" % b["bits_per_key"])
print("ok")
