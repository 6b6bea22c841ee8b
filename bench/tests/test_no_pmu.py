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
    warning = next(l for l in cp.stderr.splitlines() if "hardware counters unavailable" in l)
    check(all(k in warning for k in ("cycles", "llc_load_misses", "branch_misses")),
          "the warning names the counters: " + warning)
    check("--counters callgrind" in warning, "the warning says how to get misses anyway: " + warning)
    # The table on another file than stderr carries the warning once (it may be read alone).
    check(cp.stdout.count("hardware counters unavailable") == 1, "once in the table:\n" + cp.stdout)
    # No column that no row can fill: no hardware columns, no "<not supported>" cells.
    check("<not supported>" not in cp.stdout, "console shows <not supported>:\n" + cp.stdout)
    head = next(l for l in cp.stdout.splitlines() if l.startswith("benchmark "))
    for title in ("cycles", "IPC", "L1D miss", "LLC miss", "dTLB miss", "br miss"):
        check(title not in head, "column %s without a counter: %s" % (title, head))
    check("ns/op" in head and "FPR" in head, "the other columns stay: " + head)

# stdout and stderr on one file (a terminal, or 2>&1): each warning appears once in all.
import subprocess
from benchtest import flbench_cmd
e = dict(os.environ, **env)
e.pop("FILTERLAB_KERNEL", None)
both = subprocess.run(flbench_cmd() + ["--filter", "split256", "--probe", "none"] + TINY,
                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=e, timeout=110)
check(both.returncode == 0, "combined run failed:\n" + both.stdout)
check(both.stdout.count("hardware counters unavailable") == 1, "once in 2>&1:\n" + both.stdout)

# --counters none: no hardware columns either (nothing asked for).
cp = run(["--filter", "split256", "--counters", "none", "--probe", "none"] + TINY)
head = next(l for l in cp.stdout.splitlines() if l.startswith("benchmark "))
check("cycles" not in head and "x bound" not in head, "--counters none --probe none: " + head)
print("ok")
