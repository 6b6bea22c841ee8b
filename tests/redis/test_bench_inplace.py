#!/usr/bin/python3
"""scripts/bench-redis --inplace's plumbing, with tiny runs (not a measurement): once alone
and once with the module passed as --against, so the third side ("other CHAIN") is this
module's own chain, reserved by the same commands as CHAIN: its bytes, filters and measured
FPR must equal CHAIN's at every growth (the same commands on the same module: the third
side's rows are made as CHAIN's are).

    tests/redis/test_bench_inplace.py BUILD_DIR MODULE.so

Runs the mode in this process (redisbench.inplace with one growth, fewer probes and shorter
timed runs) and checks the JSON and Markdown it writes; an --against file that does not
exist is one clear error and no output. Skipped (77) without redis-server, redis-benchmark
or python3-redis."""
import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from redis_server import skip_if_unavailable  # noqa: E402
import checks  # noqa: E402
from checks import check  # noqa: E402


def run(inplace, module, against):
    """One run into a fresh folder: (the JSON, the Markdown, the file stem)."""
    stem = "redis-inplace-against" if against else "redis-inplace"
    with tempfile.TemporaryDirectory(prefix="fl_bench_inplace_") as out:
        a = argparse.Namespace(against=against, other_label="itself" if against else None,
                               reps=1)
        inplace.inplace_main(a, module, {"host_id": "test-host"}, out)
        check(sorted(os.listdir(out)) == [stem + ".json", stem + ".md"],
              f"files written: {sorted(os.listdir(out))}")
        with open(os.path.join(out, stem + ".json")) as f:
            d = json.load(f)
        with open(os.path.join(out, stem + ".md")) as f:
            md = f.read()
    return d, md


def check_run(d, md, sides):
    growths = d["growths"]
    rows = {(r["kind"], r["layout"], r["growth"]): r for r in d["memory"]}
    check(sorted(rows) == sorted((k, s, g) for k in ("BF", "CF") for s in sides for g in growths),
          f"memory rows {sorted(rows)}")
    for (kind, side, g), r in rows.items():
        check(r["items"] == g * d["capacity"] and r["bytes"] > 0 and 0 <= r["fpr"] < 0.1,
              f"row {r}")
        # FILTERLAB.INFO is asked of this module's keys only; INPLACE keys stay one filter.
        check((r["predicted_fpr"] is None) == (side == "other"), f"predicted FPR of {r}")
        check(("doublings" in r) == (side == "inplace") and
              (side != "inplace" or (r["filters"] == 1 and r["doublings"] >= 1)), f"{r}")
        if side == "other":
            chain = rows[(kind, "chain", g)]
            check(r["bytes"] == chain["bytes"] and r["filters"] == chain["filters"] and
                  r["fpr"] == chain["fpr"],
                  f"the module against itself: other chain {r} != chain {chain}")
    names = [r["command"] for r in d["throughput"]]
    check(names == ["BF.EXISTS", "BF.MEXISTS", "CF.EXISTS", "CF.MEXISTS"], f"rows {names}")
    for r in d["throughput"]:
        check(all(r[f"{s}_items_per_s"] > 0 and r[f"{s}_cpu_ns_per_item"] > 0 for s in sides)
              and len(r["paired_ratios"]) == d["reps"], f"throughput row {r['command']}")
        check(("median_paired_ratio_other" in r) == ("other" in sides),
              f"{r['command']}: the ratio against the other side")
    check(d["load_before"] and d["load_after"] and d["caveat"], "load averages recorded")
    check(("| paired INPLACE / other CHAIN |" in md) == ("other" in sides) and
          "| paired INPLACE / CHAIN |" in md, "Markdown lookup table header")
    check(md.count("| other chain |") == (2 * len(growths) if "other" in sides else 0),
          "Markdown memory rows of the other side")


def main():
    skip_if_unavailable()
    if not os.access("/usr/bin/redis-benchmark", os.X_OK):
        print("SKIP: /usr/bin/redis-benchmark is not installed (scripts/setup installs it)")
        sys.exit(77)
    from redisbench import inplace
    module = os.path.abspath(sys.argv[2])
    inplace.GROWTHS = (8,)
    inplace.PROBES = 20_000
    inplace.SINGLE_ITEMS = 20_000
    inplace.MULTI_ITEMS = 60_000

    d, md = run(inplace, module, None)
    check_run(d, md, ("inplace", "chain"))
    check("modules" not in d, "no other module recorded without --against")
    d, md = run(inplace, module, module)
    check_run(d, md, ("inplace", "chain", "other"))
    check(d.get("modules", {}).get("other", {}).get("path") == module and
          "--against" in d["command"] and "'itself'" in d["command"], "the other module recorded")

    with tempfile.TemporaryDirectory(prefix="fl_bench_inplace_") as out:
        a = argparse.Namespace(against=os.path.join(out, "none.so"), other_label=None, reps=1)
        try:
            inplace.inplace_main(a, module, {"host_id": "test-host"}, out)
            check(False, "a missing --against file was taken")
        except SystemExit as e:
            check("no such file" in str(e), f"missing --against file: {e}")
        check(os.listdir(out) == [], "nothing written for a missing --against file")
    sys.exit(1 if checks.failures else 0)


if __name__ == "__main__":
    main()
