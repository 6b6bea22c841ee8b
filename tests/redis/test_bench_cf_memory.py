#!/usr/bin/python3
"""scripts/bench-redis --cf-memory's plumbing, with a tiny grid (not a measurement): the
module passed as both sides, so the other side's `CF.RESERVE key N` is filterlab's default
width, and the verdicts can be known in advance: FPBITS 12 is that default (the same bytes,
the same items, hence the same false positives: it meets the goal at every row), FPBITS 13
the same bytes at fewer false positives, FPBITS 16 more bytes (over on memory), FPBITS 8
fewer bytes at a higher FPR (over on FPR).

    tests/redis/test_bench_cf_memory.py BUILD_DIR MODULE.so

Runs the mode in this process (redisbench.cf_memory with a smaller grid and fewer probes)
and checks the JSON and Markdown it writes; an --against file that does not exist is one
clear error line. Skipped (77) without redis-server or python3-redis."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from redis_server import skip_if_unavailable  # noqa: E402
import checks  # noqa: E402
from checks import check  # noqa: E402


def main():
    skip_if_unavailable()
    from redisbench import cf_memory
    build, module = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    cf_memory.CF_CAPACITIES = (1000, 1500)
    cf_memory.CF_PROBES = 20_000
    with tempfile.TemporaryDirectory(prefix="fl_bench_cf_memory_") as out:
        a = argparse.Namespace(against=module, other_label="itself")
        cf_memory.cf_memory_main(a, module, {"host_id": "test-host"}, out)
        with open(os.path.join(out, "redis-cf-memory.json")) as f:
            d = json.load(f)
        with open(os.path.join(out, "redis-cf-memory.md")) as f:
            md = f.read()
        rows = d["rows"]
        check([(r["capacity"], r["fill"], r["items"]) for r in rows] ==
              [(1000, 0.5, 500), (1000, 1.0, 1000), (1500, 0.5, 750), (1500, 1.0, 1500)],
              f"one row per capacity and fill: {[(r['capacity'], r['fill']) for r in rows]}")
        check(d["default_fp_bits"] == 12 and d["probes"] == 20_000 and
              d["fp_bits"] == [8, 11, 12, 13, 16], f"the record's head: {d['default_fp_bits']}")
        for r in rows:
            o, m = r["other"], r["filterlab"]
            check(o["filters"] == 1 and o["bytes"] > 0 and o["refused"] == 0 and
                  o["bytes_per_item"] == o["bytes"] / r["items"], f"the other side: {o}")
            check(all(m[w]["fp_bits"] == int(w) and m[w]["refused"] == 0 and
                      0 < m[w]["predicted_fpr"] < 0.05 for w in m), f"each width: {m}")
            check(m["12"]["bytes"] == o["bytes"] and m["12"]["fpr"] == o["fpr"] and
                  m["12"]["meets_both"], f"FPBITS 12 is the other side's twin: {m['12']}, {o}")
            check(m["13"]["bytes"] == o["bytes"] and m["13"]["fpr"] < o["fpr"] and
                  m["13"]["meets_both"], f"FPBITS 13: the same bytes, fewer false positives: "
                  f"{m['13']}, {o}")
            check(m["16"]["bytes_ratio"] > 1 and not m["16"]["meets_both"],
                  f"FPBITS 16 is over on memory: {m['16']}")
            check(m["8"]["bytes_ratio"] < 1 and m["8"]["fpr_ratio"] > 1 and
                  not m["8"]["meets_both"], f"FPBITS 8 is over on FPR: {m['8']}")
        check(d["default_meets_both"] is True, "the default meets the goal against itself")
        check("default fingerprint width: 12 bits" in md and "(over on memory)" in md and
              "(over on FPR)" in md and md.count("\n| 1,500 | 1,500 |") == 2,
              "the Markdown tables")
        script = os.path.join(ROOT, "scripts", "bench-redis")
        p = subprocess.run([sys.executable, script, "--build", build, "--module", module,
                            "--against",
                            os.path.join(out, "none.so"), "--cf-memory", "--out",
                            os.path.join(out, "x")], capture_output=True, text=True,
                           timeout=60, stdin=subprocess.DEVNULL)
        check(p.returncode != 0 and len(p.stderr.strip().splitlines()) == 1 and
              "none.so" in p.stderr and not os.path.exists(os.path.join(out, "x")),
              f"a missing --against file: exit {p.returncode}, {p.stderr!r}")
    print("bench-redis --cf-memory:", "ok" if checks.failures == 0
          else f"{checks.failures} failure(s)")
    sys.exit(1 if checks.failures else 0)


if __name__ == "__main__":
    main()
