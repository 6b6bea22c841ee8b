"""Table 1: naive (classic) vs blocked (block512) Bloom, 1M lookups at k = 7, m = 10M bits
(seed 000): time, cycles and L1D misses per lookup for every kernel, from flbench
(data/t1_time.csv) and its callgrind runs (data/t1_callgrind*.csv; simulated misses where
the machine has no PMU)."""

from fmt import bigger, g, human_bytes, show
from rundata import fb_find, load_csv, load_json, num
from verdicts import numbers_only

NUMBER, KEY, DATA = 1, "t1", None  # reads its own files
N_LOOKUPS = 1_000_000  # the seed's unit: per 1M lookups


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
