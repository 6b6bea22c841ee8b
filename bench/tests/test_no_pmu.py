#!/usr/bin/python3
"""Without a PMU every hardware counter is null (never 0), the console says <not supported>,
one note says why, and the run succeeds. On a machine with a PMU the same path is taken by
FLBENCH_SIMULATE_NO_PMU=1 (perf_event_open of hardware events is treated as ENOENT)."""
import os

from benchtest import TINY, aggregates, check, iterations, load_strict, run, tmpdir

HW = ["cycles_per_lookup", "instructions_per_lookup", "l1d_load_misses_per_lookup",
      "llc_load_misses_per_lookup", "dtlb_load_misses_per_lookup", "branch_misses_per_lookup", "ipc"]

has_pmu = any(os.path.exists("/sys/bus/event_source/devices/" + d) for d in ("cpu", "cpu_core", "cpu_atom"))
env = {"FLBENCH_SIMULATE_NO_PMU": "1"} if has_pmu else {}
d = tmpdir()
for backend in ("perf", "auto", "none"):
    js = os.path.join(d, backend + ".json")
    cp = run(["--filter", "split256", "--counters", backend, "--probe", "none", "--json", js] + TINY, env=env)
    doc = load_strict(js)
    ctx = doc["context"]
    check(ctx["pmu_available"] is False, "%s: pmu_available %r" % (backend, ctx["pmu_available"]))
    check(ctx["counter_backend"] == "none", "%s: counter_backend %r" % (backend, ctx["counter_backend"]))
    entries = iterations(doc, "lookup/") + aggregates(doc, "lookup/") + iterations(doc, "insert/")
    check(entries, "no results")
    for b in entries:
        for k in HW:
            key = k.replace("_per_lookup", "_per_key") if b["run_name"].startswith("insert/") else k
            check(key in b, "%s: %s missing" % (b["name"], key))
            check(b[key] is None, "%s: %s = %r, expected null" % (b["name"], key, b[key]))
        if ctx["os"]["machine"] in ("x86_64", "AMD64") and b["run_type"] == "iteration":
            tsc = b.get("tsc_cycles_per_lookup", b.get("tsc_cycles_per_key"))
            check(tsc and tsc > 0, "%s: TSC cycles still measured" % b["name"])
    if backend == "none":
        check("disabled" in ctx["counter_note"], "note for --counters none: %s" % ctx["counter_note"])
        continue
    note = ctx["counter_note"]
    check(any(why in note for why in ("no PMU driver", "perf_event_paranoid", "no perf_event_open")),
          "note: %s" % note)
    check(sum("hardware counters unavailable" in w for w in ctx["warnings"]) == 1,
          "one warning in context: %s" % ctx["warnings"])
    check(cp.stderr.count("hardware counters unavailable") == 1, "one warning on stderr:\n" + cp.stderr)
    check("<not supported>" in cp.stdout, "console shows <not supported>:\n" + cp.stdout)
    for line in cp.stdout.splitlines():
        if line.startswith("lookup/"):
            check(line.count("<not supported>") == 6, "six hardware cells: " + line)
print("ok")
