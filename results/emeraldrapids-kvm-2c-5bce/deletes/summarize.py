#!/usr/bin/python3
"""summary.txt: ns per delete of each configuration, each run's median over its repetitions
and the median of the runs (run1.json, run2.json, run3.json in this folder)."""
import json
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
runs = [json.load(open(os.path.join(HERE, "run%d.json" % i))) for i in (1, 2, 3)]
names = sorted({b["run_name"] for b in runs[0]["benchmarks"] if b["run_name"].startswith("delete/")})
print("ns per delete: each run's median over 5 repetitions, and the median of the 3 runs")
print("(written by summarize.py from run1.json, run2.json, run3.json)")
print("%-50s %9s %9s %9s %9s %9s %6s" % ("configuration", "run1", "run2", "run3", "median", "keys", "bpk"))
for n in names:
    meds = [next(b for b in d["benchmarks"] if b["run_name"] == n and b.get("aggregate_name") == "median")
            ["real_time"] for d in runs]
    it = next(b for b in runs[0]["benchmarks"] if b["run_name"] == n and b["run_type"] == "iteration")
    print("%-50s %9.1f %9.1f %9.1f %9.1f %9d %6.2f" % (n, *meds, statistics.median(meds), it["keys_inserted"],
                                                        it["bits_per_key"]))
