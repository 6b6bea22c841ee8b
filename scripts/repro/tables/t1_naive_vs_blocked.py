"""Table 1: naive (classic) vs blocked (block512) Bloom, 1M lookups at k = 7, m = 10M bits
(seed 000): time, cycles and L1D misses per lookup for every kernel, from flbench
(data/t1_time.csv) and its callgrind runs (data/t1_callgrind*.csv; simulated misses where
the machine has no PMU)."""

import os
import shutil

from fmt import bigger, g, human_bytes, pow2_floor, show
from plotting import COLORS, plt, save_figure
from rundata import fb_find, load_csv, load_json, num
from verdicts import numbers_only

NUMBER, KEY, DATA = 1, "t1", None  # reads its own files
EXPERIMENT = ("t1", "table 1: naive vs blocked Bloom, 1M lookups, k = 7, m = 10M bits")
WRITES = ("t1_time.csv", "t1_time_context.json", "t1_callgrind.csv")
SETTINGS = {"quick": dict(t1_keys=1_000_000, t1_lookups=1_000_000, t1_reps=5, cg_lookups=65536),
            "full": dict(t1_keys=1_000_000, t1_lookups=1_000_000, t1_reps=9, cg_lookups=262144),
            "tiny": dict(t1_keys=100_000, t1_lookups=100_000, t1_reps=2, cg_lookups=8192)}
N_LOOKUPS = 1_000_000  # the seed's unit: per 1M lookups
SECTION = dict(
    heading="naive vs blocked Bloom, 1M lookups, k = 7, m = 10M bits",
    sources="Sources: `data/t1_time.csv`, `data/t1_callgrind.csv`, `data/t1_callgrind_l2.csv`, and "
            "`data/t1_*_context.json` (the harness's context; its full JSON stays in `raw/`).",
    figure="ns per lookup, classic vs block512, per kernel", measured=lambda t: t["rows"])
FIGURES = ("t1_naive_vs_blocked",)


def experiment(r):
    c = r.cfg
    kernels = r.kernels()
    fb = r.bins["flbench"]
    common = ["--filter", "classic,block512,cuckoo", "--bits-per-key", "10",
              "--sizes", str(c["t1_keys"]), "--sizes-in", "keys", "--hit-rate", "1,0",
              "--probe", "none", "--seed", "1"]
    r.say("timing on kernels %s (hardware counters if this machine has a PMU)" % ",".join(kernels))
    r.run([fb] + common + ["--kernel", ",".join(kernels), "--lookups", str(c["t1_lookups"]),
                           "--reps", str(c["t1_reps"]), "--counters", "auto",
                           "--json", r.rawpath("t1_time.json"), "--csv", r.path("t1_time.csv")],
          "t1_time", quiet_re=r"^(lookup|insert)/")
    # valgrind has no AVX-512: simulate the kernels it can run (misses are the layout's)
    cg_kernels = [k for k in kernels if not k.startswith("avx512")] or ["scalar"]
    base_cg = [fb] + common + ["--kernel", ",".join(cg_kernels), "--reps", "1",
                               "--lookups", str(min(c["t1_lookups"], c["cg_lookups"])),
                               "--counters", "callgrind",
                               "--callgrind-lookups", str(c["cg_lookups"])]
    if shutil.which("valgrind"):
        r.say("simulated misses: callgrind with this machine's L1d and last-level cache")
        r.run(base_cg + ["--json", r.rawpath("t1_callgrind.json"),
                         "--csv", r.path("t1_callgrind.csv")],
              "t1_callgrind", check=False, quiet_re=r"^(lookup|insert)/")
        l2 = next((x for x in r.host["caches"]["list"] if x["level"] == 2), None)
        if l2 and l2["ways"]:
            sets = pow2_floor(l2["bytes"] // (l2["ways"] * l2["line"]))
            ll = "%d,%d,%d" % (sets * l2["ways"] * l2["line"], l2["ways"], l2["line"])
            r.say("simulated misses: callgrind with the L2 (%s) as the last level" % ll)
            r.run(base_cg + ["--LL", ll, "--json", r.rawpath("t1_callgrind_l2.json"),
                             "--csv", r.path("t1_callgrind_l2.csv")],
                  "t1_callgrind_l2", check=False, quiet_re=r"^(lookup|insert)/")
    else:
        r.say("valgrind not found: no simulated misses")
    for n in ("t1_time", "t1_callgrind", "t1_callgrind_l2"):
        if os.path.exists(r.rawpath(n + ".json")):
            r.keep_context(n)
            r.stamp_csv(r.path(n + ".csv"))


def _cg_geometry(ctx):
    res = {}
    for tag, name in (("llc", "t1_callgrind_context.json"), ("l2", "t1_callgrind_l2_context.json")):
        d = load_json(ctx.out, name)
        if not d:
            continue
        c = d.get("context", {})
        res[tag] = {k: c.get(k) for k in c if k.startswith("callgrind") or k.startswith("valgrind")}
        if d.get("sim_notes"):
            res[tag]["note"] = "; ".join(d["sim_notes"])
    return res


def build(ctx, d=None):
    meta, time_rows = load_csv(ctx.out, "t1_time.csv")
    _, cg_rows = load_csv(ctx.out, "t1_callgrind.csv")
    _, cg2_rows = load_csv(ctx.out, "t1_callgrind_l2.csv")
    tj = load_json(ctx.out, "t1_time_context.json")
    tctx = (tj or {}).get("context", {})
    pmu = bool(tctx.get("pmu_available"))
    tsc_hz = (tctx.get("tsc") or {}).get("hz")
    rows = []
    kernels = []
    for r in time_rows:
        if r.get("op") == "lookup" and r["kernel"] not in kernels:
            kernels.append(r["kernel"])
    for kern in kernels:
        for hit in (1.0, 0.0):
            base = None
            for var in ("classic", "block512"):
                r = fb_find(time_rows, op="lookup", filter=var, kernel=kern, hit_rate=hit)
                if not r:
                    continue
                ns = num(r["ns_per_op_median"])
                cyc = num(r.get("cycles_per_op_median"))
                tsc = num(r.get("tsc_cycles_per_op_median"))
                cg = fb_find(cg_rows, op="lookup", filter=var, kernel=kern, hit_rate=hit) or {}
                cg2 = fb_find(cg2_rows, op="lookup", filter=var, kernel=kern, hit_rate=hit) or {}
                row = {
                    "variant": var, "kernel": kern, "hit_rate": hit, "k": int(float(r["k"])),
                    "filter_bytes": int(float(r["filter_bytes"])),
                    "ns_per_lookup": ns, "ms_per_1M": ns * N_LOOKUPS / 1e6 if ns else None,
                    "cycles_per_1M": (cyc if cyc is not None else tsc) * N_LOOKUPS if (cyc or tsc) else None,
                    "cycles_kind": "core (PMU)" if cyc is not None else "TSC",
                    "sim_d1": num(cg.get("sim_d1_misses_per_lookup")),
                    "sim_l2": num(cg2.get("sim_ll_misses_per_lookup")),
                    "sim_llc": num(cg.get("sim_ll_misses_per_lookup")),
                    "pmu_l1d": num(r.get("l1d_load_misses_per_op_median")),
                    "pmu_llc": num(r.get("llc_load_misses_per_op_median")),
                    "fpr_measured": num(r.get("fpr_measured")),
                    "cv_pct": num(r.get("ns_per_op_cv_pct")),
                }
                if var == "classic":
                    base = ns
                row["speedup"] = (base / ns) if (base and ns and var == "block512") else None
                rows.append(row)
    t1 = ctx.tables["t1"] = {"rows": rows, "pmu": pmu, "tsc_hz": tsc_hz,
                             "counter_note": tctx.get("counter_note"),
                             "sim_geometry": _cg_geometry(ctx), "kernels": kernels}

    def pick(var, hit, kern):
        return next((x for x in rows if x["variant"] == var and x["hit_rate"] == hit
                     and x["kernel"] == kern), None)
    sel = ctx.kernel if ctx.kernel in kernels else (kernels[-1] if kernels else None)
    sim_k = next((k for k in ("scalar",) + tuple(kernels) if any(
        x["kernel"] == k and x["sim_d1"] is not None for x in rows)), None)
    src = "data/t1_time.csv"
    for var in ("classic", "block512"):
        r = pick(var, 1.0, sel)
        if r:
            ctx.fact("t1.%s.ms" % var, r["ms_per_1M"], src)
            ctx.fact("t1.%s.cycles" % var, r["cycles_per_1M"], src)
            ctx.fact("t1.%s.bytes" % var, r["filter_bytes"], src)
        if pmu and r and r["pmu_l1d"] is not None:
            ctx.fact("t1.%s.misses" % var, r["pmu_l1d"], src)
        else:
            rs = pick(var, 1.0, sim_k) if sim_k else None
            ctx.fact("t1.%s.misses" % var, rs["sim_d1"] if rs else None, "data/t1_callgrind.csv")
            ctx.fact("t1.%s.sim_llc" % var, rs["sim_llc"] if rs else None, "data/t1_callgrind.csv")
            ctx.fact("t1.%s.sim_l2" % var, rs["sim_l2"] if rs else None, "data/t1_callgrind_l2.csv")
    cm, bm = ctx.facts.get("t1.classic.misses"), ctx.facts.get("t1.block512.misses")
    ctx.fact("t1.miss_ratio", cm / bm if cm and bm else None, ctx.sources.get("t1.classic.misses"))
    b = pick("block512", 1.0, sel)
    ctx.fact("t1.speedup", b["speedup"] if b else None, src)
    # the seed's own terms: its code is scalar (one key at a time, no SIMD)
    bs = pick("block512", 1.0, "scalar")
    ctx.fact("t1.speedup_scalar", bs["speedup"] if bs else None, src)
    t1["selected_kernel"] = sel
    t1["sim_kernel"] = sim_k
    t1["misses_source"] = "real (PMU, L1D load misses)" if pmu else \
        "simulated (callgrind, L1D misses; this machine has no PMU)"
    # Table 2's cuckoo misses are measured in this run (its files hold the cuckoo rows): both
    # buckets are read on a miss, so hit rate 0.
    cc = fb_find(cg_rows, op="lookup", filter="cuckoo", kernel=sim_k or "scalar", hit_rate=0.0) or {}
    ct = fb_find(time_rows, op="lookup", filter="cuckoo", kernel=sel or "", hit_rate=0.0) or {}
    if pmu and num(ct.get("l1d_load_misses_per_op_median")) is not None:
        ctx.fact("t2.cuckoo.misses", num(ct.get("l1d_load_misses_per_op_median")), src)
    else:
        ctx.fact("t2.cuckoo.misses", num(cc.get("sim_d1_misses_per_lookup")), "data/t1_callgrind.csv")
    t1["cuckoo"] = {"k": num(ct.get("k")), "filter_bytes": num(ct.get("filter_bytes")),
                    "sim_d1": num(cc.get("sim_d1_misses_per_lookup")),
                    "ns_per_lookup": num(ct.get("ns_per_op_median"))}


def report(page, t1):
    r0 = t1["rows"][0]
    geo = t1.get("sim_geometry", {})
    page.w("flbench, %s keys at 10 bits per key (%s), lookups in batches of 1024 through "
           "`fl_contains_hashes`, hit rate 1 (every probe is made, as in the seed's 7 misses) and 0. "
           "Misses: %s. Simulated geometry: %s; second run with the L2 as the last level: %s. "
           "valgrind cannot execute AVX-512, so those rows have no simulated misses (the misses are a "
           "property of the memory layout, the same for every kernel)." % (
               "{:,}".format(round(r0["filter_bytes"] * 8 / 10)), human_bytes(r0["filter_bytes"]),
               t1["misses_source"], (geo.get("llc") or {}).get("note") or "this machine's L1d and LLC",
               (geo.get("l2") or {}).get("note") or "L2 from sysfs"))
    page.w()
    rows = []
    for r in t1["rows"]:
        rows.append([r["variant"], r["kernel"], g(r["hit_rate"]), r["k"], g(r["ms_per_1M"]),
                     "%sM (%s)" % (g(r["cycles_per_1M"] / 1e6) if r["cycles_per_1M"] else "n/a", r["cycles_kind"]),
                     g(r["sim_d1"]), g(r["sim_l2"]), g(r["sim_llc"]),
                     g(r["pmu_l1d"]) if t1["pmu"] else "-", g(r["pmu_llc"]) if t1["pmu"] else "-",
                     (g(r["speedup"]) + "x") if r["speedup"] else "", g(r["cv_pct"], 2)])
    page.table(["variant", "kernel", "hit rate", "k", "ms per 1M lookups", "cycles per 1M",
                "L1D miss/lookup (sim)", "L2 miss (sim)", "LLC miss (sim)", "L1D miss (PMU)",
                "LLC miss (PMU)", "speedup", "cv %"], rows, ["l", "l"] + ["r"] * 11)


CSVS = (
    ("t1_naive_vs_blocked.csv", lambda t: (t["rows"], [
        "variant", "kernel", "hit_rate", "k", "filter_bytes", "ns_per_lookup", "ms_per_1M",
        "cycles_per_1M", "cycles_kind", "sim_d1", "sim_l2", "sim_llc", "pmu_l1d", "pmu_llc",
        "speedup", "fpr_measured", "cv_pct"])),
)


def figure(t1, out, stamp, caches, claims):
    if not t1["rows"]:
        return []
    kernels = t1["kernels"]
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.2))
    for ax, hit in zip(axes, (1.0, 0.0)):
        for i, var in enumerate(("classic", "block512")):
            ys = [next((r["ns_per_lookup"] for r in t1["rows"] if r["variant"] == var and r["kernel"] == k
                        and r["hit_rate"] == hit), float("nan")) for k in kernels]
            xs = [j + (i - 0.5) * 0.38 for j in range(len(kernels))]
            ax.bar(xs, ys, width=0.36, color=COLORS[var], label=var)
        ax.set_xticks(range(len(kernels)))
        ax.set_xticklabels(kernels)
        ax.set_ylabel("ns per lookup (= ms per 1M lookups)")
        ax.set_title("hit rate %g" % hit)
        ax.legend(fontsize=7)
    fig.suptitle("Table 1: 1M keys, 10 bits/key, k = 7 (filter %s)" % human_bytes(
        t1["rows"][0]["filter_bytes"], lambda x: "%.3g" % x), fontsize=9)
    return save_figure(fig, out, "t1_naive_vs_blocked", "naive vs blocked Bloom", stamp)


# ---- explanations ---------------------------------------------------------------------
def _machine(ctx, c, m, what):
    """A time or cycle count of the seed's machine against this one's, with where the filter fits."""
    b = ctx.facts.get("t1.classic.bytes")
    fits = ctx.fits_text(b)
    t1 = ctx.table("t1")
    ratio = c.value / m if m else None
    txt = "%s; %s here with %s vs %s in the seed (%sx %s)" % (
        fits, show(m, c.unit), t1.get("selected_kernel"), show(c.value, c.unit),
        g(ratio if ratio and ratio >= 1 else (1 / ratio if ratio else None)),
        "faster" if ratio and ratio >= 1 else "slower")
    if what == "cycles" and t1.get("rows") and t1["rows"][0]["cycles_kind"] == "TSC":
        txt += "; cycles are TSC ticks (%s GHz reference clock: no PMU here)" % g((t1.get("tsc_hz") or 0) / 1e9)
    return txt


def why_cycles(ctx, c, m, holds):
    return _machine(ctx, c, m, "cycles")


def why_time(ctx, c, m, holds):
    return _machine(ctx, c, m, "time")


def _misses(variant):
    def why(ctx, c, m, holds):
        src = ctx.table("t1").get("misses_source", "")
        llc = ctx.facts.get("t1.%s.sim_llc" % variant)
        l2 = ctx.facts.get("t1.%s.sim_l2" % variant)
        fits = ctx.fits_text(ctx.facts.get("t1.%s.bytes" % variant))
        txt = "%s L1D misses per lookup, %s" % (g(m), src.split(" (")[0])
        if llc is not None:
            txt += ("; simulated with the L2 as last level %s, with the LLC %s per lookup%s: %s, so they are "
                    "served by the L2, not by memory") % (
                g(l2), g(llc), " (about 1/8: one 64-byte line per 8 keys of the key stream itself)"
                if l2 is not None and abs(l2 - 0.125) < 0.02 else "", fits)
        return txt
    return why


def why_speedup(ctx, c, m, holds):
    b = ctx.facts.get("t1.classic.bytes")
    cls, fits = ctx.fits(b) if b else ("n/a", "")
    t1 = ctx.table("t1")
    per_kernel = ", ".join("%s %sx" % (r["kernel"], g(r["speedup"])) for r in t1.get("rows", [])
                           if r["variant"] == "block512" and r["hit_rate"] == 1.0 and r["speedup"])
    dram = ctx.facts.get("t8.speedup_dram")
    dram_s = ctx.facts.get("t8.speedup_dram_scalar")
    big = ctx.facts.get("t8.largest_bytes")
    txt = "%sscalar against scalar (the seed's code) %sx at %s (table 8)" % (
        bigger(c.value, m) if not holds else "", g(dram_s), human_bytes(big))
    if dram:
        txt += ", best kernel against best (%s) %sx" % (t1.get("selected_kernel"), g(dram))
    txt += "; at the seed's size, per kernel: %s; %s" % (per_kernel, fits)
    return txt


EXPLAIN = {
    "t1.classic.misses": _misses("classic"),
    "t1.classic.cycles": why_cycles,
    "t1.classic.time": why_time,
    "t1.block512.misses": _misses("block512"),
    "t1.block512.cycles": why_cycles,
    "t1.block512.time": why_time,
    "t1.speedup": why_speedup,
    "t1.miss_ratio": numbers_only,
}
