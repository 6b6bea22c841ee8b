#!/usr/bin/python3
"""fl-delete-medians.txt: filterlab's ns per cuckoo delete at the comparison's configurations,
the median of the four rounds' medians (min-max), from fl-delete-ROUND-KEYS-P.json."""
import json
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
print("keys  width  deleted per repetition  ns per delete: median of 4 rounds (min-max)  rounds")
for n in (100000, 1000000, 10000000):
    for p in ("0.005", "0.001"):
        meds, width, items = [], None, None
        for r in (1, 2, 3, 4):
            with open(os.path.join(HERE, "fl-delete-%d-%d-%s.json" % (r, n, p))) as f:
                bs = [b for b in json.load(f)["benchmarks"] if b["run_name"].startswith("delete/")]
            meds.append(next(b for b in bs if b.get("aggregate_name") == "median")["real_time"])
            it = next(b for b in bs if b["run_type"] == "iteration")
            width, items = it["k"], it["iterations"]
        print("%d  %d  %d  %.1f (%.1f-%.1f)  %s" % (n, width, items, statistics.median(meds), min(meds), max(meds),
                                                 " ".join("%.1f" % m for m in meds)))
