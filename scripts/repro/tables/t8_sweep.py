"""Table 8: the kernel sweep, L1 to DRAM, with the physical bound (seed 000): ns per lookup
of every variant and kernel at each filter size, the memory probe's random-line bound and
latency at the same footprint (data/t8_sweep*.csv, read through advise_data, the reader
`filterlab advise`'s CSV is written with)."""

import json
import os

import advise_data
import static_data
from context import VARIANTS
from fmt import bigger, g, human_bytes, pow2_floor, size_text, thousands
from plotting import cache_lines, plt, save_figure, variant_lines
from rundata import load_json

NUMBER, KEY, DATA = 8, "t8", None  # reads its own files
EXPERIMENT = ("t8", "table 8: the kernel sweep, L1 to DRAM, with the physical bound")
WRITES = ("t8_sweep.csv",)
SETTINGS = {"quick": dict(t8_sizes="quick", t8_hits="0.5", t8_reps=3, t8_lookups=262144,
                           t8_insert_budget=8 << 20, t8_fprs=[0.01]),
            "full": dict(t8_sizes="full", t8_hits="0,0.5,1", t8_reps=9, t8_lookups=1048576,
                          t8_insert_budget=64 << 20, t8_fprs=[0.01, 0.0001]),
            "tiny": dict(t8_sizes="16K,1M", t8_hits="0.5", t8_reps=2, t8_lookups=16384,
                          t8_insert_budget=1 << 20, t8_fprs=[0.01])}
SECTION = dict(heading="the kernel sweep, L1 to DRAM, with the physical bound",
               sources="Source: `data/t8_sweep*.csv` (every configuration: `advise.csv`).",
               figure="ns per lookup against filter size, per kernel")
FIGURES = ("t8_sweep",)


# A footprint's dependent-load latency is "DRAM-like" when it is at least halfway from the
# in-cache latency (the fastest probed footprint) to the latency at the largest one (1 GiB,
# or a quarter of memory), and at least 4x the in-cache latency (an LLC hit costs tens of
# cycles, a DRAM access hundreds). Past the last-level cache, latency climbs towards the
# DRAM latency as the share of loads the cache still serves (about LLC / footprint) falls,
# so halfway means most loads miss. Latencies are the fastest repetition (noise only adds),
# and the point must hold for every larger footprint too, so one disturbed small footprint
# cannot pick it. The largest footprint's latency alone is not the threshold: TLB misses
# and a busy host make it keep rising, which put a 0.8x-of-1-GiB rule at 512 MiB on a
# machine whose latency was DRAM-like from 8 MiB on.
DRAM_HALFWAY = 0.5
DRAM_OVER_CACHE = 4.0


def dram_point(r):
    """The sweep's DRAM point: the smallest probed footprint whose measured pointer-chasing
    latency is DRAM-like (flbench --probe-only; see DRAM_HALFWAY). sysfs alone is not
    trusted: a VM may report any last-level cache size (a 480 MiB one on a 2-vCPU VM put the
    old 1.5x-LLC point at 704 MiB, and its three builds per kernel dominated the run). Falls
    back to the sysfs rule when the probe cannot run. Written to data/t8_dram_point.json."""
    if getattr(r, "_dram", None):
        return r._dram["bytes"]
    c = r.host["caches"]
    l2, llc = c["l2"] or (1 << 20), c["llc"] or (32 << 20)
    memcap = (r.host.get("mem_total") or (8 << 30)) // 4
    ref = min(1 << 30, pow2_floor(memcap))
    # from twice the L2 (a footprint no private cache holds) up, every 2x: the small ones
    # cost little, and a busy or oddly reported LLC can make even them DRAM-like
    cands, s = [], max(1 << 20, pow2_floor(2 * l2))
    while s < ref:
        cands.append(s)
        s *= 2
    cands.append(ref)
    mib64 = 64 << 20
    sysfs_rule = max((3 * llc // 2) // mib64 * mib64, pow2_floor(2 * llc) if llc < mib64 else 0)
    doc = {"candidates": cands, "halfway": DRAM_HALFWAY,
           "over_cache": DRAM_OVER_CACHE, "sysfs_llc": llc,
           "sysfs_rule_bytes": min(sysfs_rule, pow2_floor(memcap))}
    raw = r.rawpath("t8_probe.json")
    rc = r.run([r.bins["flbench"], "--probe-only",
                "--sizes", ",".join(size_text(x) for x in cands), "--reps", "3", "--lookups", "262144", "--counters", "none", "--seed", "1",
                "--json", raw], "t8_probe", check=False, quiet_re=r"^probe/")
    lat = {}
    if rc == 0:
        with open(raw) as f:
            for b in json.load(f).get("benchmarks", []):
                if b.get("aggregate_name") == "min" and b.get("op") == "probe_latency":
                    lat[int(b["footprint_bytes"])] = b["real_time"]
    doc["latency_ns"] = {str(k): v for k, v in sorted(lat.items())}
    if lat and min(lat.values()) > 0:
        fast, top = min(lat.values()), lat[max(lat)]
        thr = max(DRAM_OVER_CACHE * fast, fast + DRAM_HALFWAY * (top - fast))
        ok = [x for x in sorted(lat) if all(lat[y] >= thr for y in lat if y >= x)]
        if top < DRAM_OVER_CACHE * fast:
            # no probed footprint was served by a cache: the smallest is already DRAM-like
            ok, thr = [min(lat)], fast
        pick = ok[0] if ok else max(lat)
        doc.update(bytes=pick, source="probe", latency_at_pick_ns=lat[pick], threshold_ns=thr,
                   in_cache_ns=fast, reference_ns=top)
    else:
        doc.update(bytes=doc["sysfs_rule_bytes"], source="sysfs (the memory probe did not run)")
    r._dram = doc
    with open(r.path("t8_dram_point.json"), "w") as f:
        json.dump(doc, f, indent=1)
    r.stamp_json(r.path("t8_dram_point.json"))
    r.say("DRAM point %s (%s)" % (size_text(doc["bytes"]), doc["source"]))
    return doc["bytes"]


def sweep_sizes(r):
    if getattr(r, "_t8_sizes", None):
        return r._t8_sizes
    spec = r.cfg["t8_sizes"]
    c = r.host["caches"]
    if spec not in ("quick", "full"):
        return spec
    l1d, l2, llc = c["l1d"] or 32768, c["l2"] or (1 << 20), c["llc"] or (32 << 20)
    memcap = (r.host.get("mem_total") or (8 << 30)) // 4
    dram = dram_point(r)
    if spec == "quick":
        # one size per level: L1d/2, L2/2, inside the LLC, LLC/4 (the cache levels from
        # sysfs, kept only below the DRAM point), and the measured DRAM point
        sizes = [pow2_floor(l1d // 2), pow2_floor(l2 // 2), pow2_floor(max(llc // 32, 2 * l2)),
                 pow2_floor(llc // 4)]
        sizes = [x for x in sizes if x < dram] + [dram]
    else:
        # every 4x from L1d/2 below the DRAM point, the DRAM point, and 4x deeper
        sizes, s = [], pow2_floor(l1d // 2)
        while s < dram:
            sizes.append(s)
            s *= 4
        sizes += [dram, 4 * dram]
    sizes = sorted(set(min(x, pow2_floor(memcap)) for x in sizes))
    r._t8_sizes = ",".join(size_text(x) for x in sizes)
    return r._t8_sizes


def experiment(r):
    c = r.cfg
    kernels = r.kernels()
    for fpr in c["t8_fprs"]:
        tag = "t8_sweep" if fpr == 0.01 else "t8_sweep_fpr%g" % fpr
        r.say("sweep at FPR %g: sizes %s, kernels %s" % (fpr, sweep_sizes(r), ",".join(kernels)))
        r.run([r.bins["flbench"], "--filter", "all", "--kernel", ",".join(kernels),
               "--fpr", repr(fpr), "--sizes", sweep_sizes(r), "--hit-rate", c["t8_hits"],
               "--reps", str(c["t8_reps"]), "--lookups", str(c["t8_lookups"]),
               "--insert-budget", str(c["t8_insert_budget"]), "--counters", "auto",
               "--probe", "memory", "--seed", "1",
               "--json", os.path.join(r.raw, tag + ".json"), "--csv", r.path(tag + ".csv")],
              tag, quiet_re=r"^(lookup|insert|probe)/")
        r.stamp_csv(r.path(tag + ".csv"))
        r.keep_context(tag)


def build(ctx, d=None):
    _build_sweep(ctx)
    static_rows(ctx)


def static_rows(ctx):
    """Binary fuse filters (flbench --structure static, static_data.py): per shape
    and key count, the filter's bytes and size class, construction ns/key, the one-key inline
    lookup and batch lookups per kernel, hashing included, 50% hits."""
    cells = []
    for r in static_data.records(ctx.out):
        ns = {}
        if r["inline_ns"] is not None:
            ns["inline"] = r["inline_ns"]
        for k, v in r["batch_ns"].items():
            ns["batch " + k] = v
        cells.append({"variant": r["variant"], "keys": r["keys"], "bytes": r["bytes"],
                      "class": ctx.size_class(r["bytes"]), "build_ns_per_key": r["build_ns_per_key"],
                      "ns": ns})
    if not cells:
        return
    t8 = ctx.tables.get("t8")
    if t8 is None:  # the sweep's table carries the static rows; without it there is no section
        return
    t8["static"] = cells
    modes = []
    for c in cells:
        for m in c["ns"]:
            if m not in modes:
                modes.append(m)
    t8["static_modes"] = modes
    for c in cells:
        if c["variant"] == "fuse3_8":
            batch = [v for m, v in c["ns"].items() if m.startswith("batch ")]
            if batch:
                ctx.fact("t8.fuse3_8.%d.batch_ns" % c["keys"], min(batch), static_data.SOURCE)
            if c["build_ns_per_key"] is not None:
                ctx.fact("t8.fuse3_8.%d.build_ns_per_key" % c["keys"], c["build_ns_per_key"],
                         static_data.SOURCE)


def _build_sweep(ctx):
    rows = advise_data.lookup_rows(ctx.out)
    if not rows:
        return
    main_fpr = 0.01 if any(r["target_fpr"] == 0.01 for r in rows) else rows[0]["target_fpr"]
    # the memory probe: dependent-load latency at each footprint (pointer chasing)
    latency = advise_data.latencies(ctx.out)
    mem_like = advise_data.memory_like_from(latency)
    hits = sorted({r["hit_rate"] for r in rows})
    hit = 0.5 if 0.5 in hits else hits[0]
    sel = [r for r in rows if r["target_fpr"] == main_fpr and r["hit_rate"] == hit]
    targets = sorted({r["target"] for r in sel})
    kernels = []
    for r in sel:
        if r["kernel"] not in kernels:
            kernels.append(r["kernel"])
    pivot = []
    for t in targets:
        for v in VARIANTS:
            cells = {r["kernel"]: r for r in sel if r["target"] == t and r["variant"] == v}
            if not cells:
                continue
            any_r = next(iter(cells.values()))
            best_k = min(cells, key=lambda k: cells[k]["ns_per_lookup"] or 1e99)
            pivot.append({"target": t, "variant": v, "filter_bytes": any_r["filter_bytes"],
                          "class": ctx.size_class(any_r["filter_bytes"]),
                          "k": any_r["k"], "bpk": any_r["bits_per_key"],
                          "fpr_measured": any_r["fpr_measured"],
                          "ns": {k: cells[k]["ns_per_lookup"] for k in cells},
                          "cv": {k: cells[k]["cv_pct"] for k in cells},
                          "best_kernel": best_k, "bound": any_r["bound_ns_per_line"],
                          "latency": latency.get(any_r["filter_bytes"]) or latency.get(t)})
    # the fastest (variant, kernel) per size, and the runner-up
    best = []
    for t in targets:
        cand = [(r["ns_per_lookup"], r["variant"], r["kernel"], r) for r in sel
                if r["target"] == t and r["ns_per_lookup"] is not None
                and (r["fpr_measured"] is None or r["fpr_measured"] <= 1.25 * main_fpr)]
        cand.sort(key=lambda x: x[0])
        if cand:
            r0 = cand[0][3]
            best.append({"target": t, "class": ctx.size_class(r0["filter_bytes"]),
                         "first": {"variant": cand[0][1], "kernel": cand[0][2], "ns": cand[0][0],
                                   "bytes": r0["filter_bytes"]},
                         "second": ({"variant": cand[1][1], "kernel": cand[1][2], "ns": cand[1][0],
                                     "bytes": cand[1][3]["filter_bytes"]} if len(cand) > 1 else None)})
    src = "data/t8_sweep.csv"
    kern = ctx.kernel if ctx.kernel in kernels else kernels[-1]
    big = max(targets)

    def ns_at(v, t, k):
        r = next((x for x in sel if x["variant"] == v and x["target"] == t and x["kernel"] == k), None)
        return r["ns_per_lookup"] if r else None
    speedups = []
    for t in targets:
        c, b, cu = ns_at("classic", t, kern), ns_at("block512", t, kern), ns_at("cuckoo", t, kern)
        speedups.append({"target": t, "class": ctx.size_class(t),
                         "block512": c / b if c and b else None,
                         "cuckoo": c / cu if c and cu else None})
    c, b, cu = ns_at("classic", big, kern), ns_at("block512", big, kern), ns_at("cuckoo", big, kern)
    ctx.fact("t8.speedup_dram", c / b if c and b else None, src)
    ctx.fact("t8.cuckoo_speedup_dram", c / cu if c and cu else None, src)
    # the seed's own terms: its code is scalar
    c, b, cu = ns_at("classic", big, "scalar"), ns_at("block512", big, "scalar"), ns_at("cuckoo", big, "scalar")
    ctx.fact("t8.speedup_dram_scalar", c / b if c and b else None, src)
    ctx.fact("t8.cuckoo_speedup_dram_scalar", c / cu if c and cu else None, src)
    ctx.fact("t8.largest_bytes", big, src)
    ctx.fact("t8.largest_class", ctx.size_class(big), src)
    sj = load_json(ctx.out, "t8_sweep_context.json")
    ctx.fact("t8.memory_like_from", mem_like, src)
    ctx.tables["t8"] = {"latency": {str(k): v for k, v in sorted(latency.items())},
                        "memory_like_from": mem_like,
                        "fpr": main_fpr, "hit_rate": hit, "hit_rates": hits, "kernels": kernels,
                        "kernel": kern, "targets": targets, "pivot": pivot, "best": best,
                        "speedups": speedups, "all_rows": len(rows),
                        "fprs": sorted({r["target_fpr"] for r in rows}),
                        "pmu": bool(((sj or {}).get("context") or {}).get("pmu_available"))}


def report(page, t8):
    page.w("flbench: every variant sized for FPR %g at each filter size, ns per lookup (median) for every "
           "kernel this CPU runs natively, hit rate %g. `bound` is the harness's memory probe at the same "
           "footprint: ns per independent random 64-byte line with software prefetch, the physical floor "
           "for a filter that reads one line per key." % (t8["fpr"], t8["hit_rate"]))
    page.w()
    rows = []
    for p in t8["pivot"]:
        rows.append([human_bytes(p["filter_bytes"]), p["class"], p["variant"], p["k"]] +
                    [g(p["ns"].get(k)) for k in t8["kernels"]] + [p["best_kernel"], g(p["bound"]),
                                                                  g(p["latency"]), g(p["fpr_measured"])])
    page.table(["size", "fits in (sysfs)", "variant", "k"] + ["ns %s" % k for k in t8["kernels"]] +
               ["fastest", "bound ns", "latency ns", "FPR"], rows,
               ["r", "l", "l"] + ["r"] * (len(t8["kernels"]) + 5))
    lat = t8.get("latency") or {}
    if lat:
        c = page.host["caches"]
        ml = t8.get("memory_like_from")
        txt = ("Memory latency measured here (dependent loads over the footprint, `latency ns`): " +
               ", ".join("%s %s ns" % (human_bytes(int(b)), g(v)) for b, v in lat.items()) + ".")
        if ml and c.get("llc") and ml <= c["llc"]:
            txt += (" From %s on, the latency is within 20%% of the largest footprint's: memory-like, although "
                    "sysfs reports a %s last-level cache. %s" % (
                        human_bytes(ml), human_bytes(c["llc"]),
                        "This is a %s guest: sysfs shows the host CPU's L3, and the latency shows the guest "
                        "does not get all of it, so a filter of that size behaves as if in DRAM here."
                        % page.host["hypervisor"].upper()
                        if page.host.get("hypervisor") else "The last level cache is not available in full."))
        page.w(txt)
        page.w()
    page.w("Speedup of block512 and cuckoo over classic with `%s`: " % t8["kernel"] + "; ".join(
        "%s (%s): %sx, %sx" % (human_bytes(s["target"]), s["class"], g(s["block512"]), g(s["cuckoo"]))
        for s in t8["speedups"]) + ".")
    page.w()


def _report_static(page, t8):
    if not t8.get("static"):
        return
    modes = t8["static_modes"]
    page.w("Binary fuse filters, `flbench --structure static`: n keys built, then lookups of which "
           "half were built, hashing included, a fresh pool of keys per repetition; `inline` is the header's "
           "`fl_fuse_lookup` one key at a time, `batch K` `fl_fuse_contains_u64s` in calls of flbench's "
           "`--batch` keys with kernel K; ns per lookup (median). Construction ns per key of the same keys "
           "(median of the timed builds). `scripts/bench-static` runs the same suite at the key "
           "counts of the project's speed targets against them.")
    page.w()
    rows = [[c["variant"], thousands(c["keys"]), human_bytes(c["bytes"]), c["class"], g(c["build_ns_per_key"])] +
            [g(c["ns"].get(m)) for m in modes] for c in t8["static"]]
    page.table(["structure", "keys", "size", "fits in", "build ns/key"] + ["ns %s" % m for m in modes],
               rows, ["l", "r", "r", "l"] + ["r"] * (len(modes) + 1))
    page.w("Source: `data/static_flbench.json` (median aggregates of `raw/static_flbench.json`).")
    page.w()


def report_after_figure(page, t8):
    _report_static(page, t8)
    if len(t8.get("fprs", [])) > 1 or len(t8.get("hit_rates", [])) > 1:
        page.w("The tables show FPR %g at hit rate %g; the run also swept FPR %s and hit rates %s, all in "
               "`advise.csv` (which `filterlab advise` reads)." % (
                   t8["fpr"], t8["hit_rate"], ", ".join(g(f) for f in t8["fprs"]),
                   ", ".join(g(h) for h in t8["hit_rates"])))
        page.w()


def _csv_sweep(t8):
    rows = []
    for p in t8["pivot"]:
        r = {k: p[k] for k in ("target", "variant", "filter_bytes", "class", "k", "bpk", "fpr_measured",
                               "best_kernel", "bound")}
        for k in t8["kernels"]:
            r["ns_" + k] = p["ns"].get(k)
        rows.append(r)
    cols = ["target", "variant", "filter_bytes", "class", "k", "bpk", "fpr_measured"] + \
        ["ns_" + k for k in t8["kernels"]] + ["best_kernel", "bound"]
    return rows, cols


CSVS = (
    ("t8_sweep.csv", _csv_sweep),
)


def figure(t8, out, stamp, caches, claims):
    kernels = t8["kernels"]
    fig, axes = plt.subplots(1, len(kernels), figsize=(3.4 * len(kernels), 3.4), sharey=True, squeeze=False)
    for ax, k in zip(axes[0], kernels):
        variant_lines(ax, lambda v: sorted((p["filter_bytes"], p["ns"].get(k)) for p in t8["pivot"]
                                           if p["variant"] == v and p["ns"].get(k) is not None))
        bpts = sorted({(p["filter_bytes"], p["bound"]) for p in t8["pivot"] if p["bound"]})
        if bpts:
            ax.plot([a for a, _ in bpts], [b for _, b in bpts], "k--", lw=1, label="bound: 1 random line")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title("kernel %s" % k, fontsize=9)
        ax.set_xlabel("filter bytes")
        cache_lines(ax, caches)
    axes[0][0].set_ylabel("ns per lookup (hit rate %g)" % t8["hit_rate"])
    axes[0][-1].legend(fontsize=6, loc="upper left")
    fig.suptitle("Table 8: kernel sweep at FPR %g" % t8["fpr"], fontsize=9)
    return save_figure(fig, out, "t8_sweep", "kernel sweep", stamp)


# ---- explanations ---------------------------------------------------------------------
def _speedup_over_classic(variant):
    """classic/variant at every swept size; where it fails, whether the largest size reached DRAM."""
    def why(ctx, c, m, holds):
        t8 = ctx.table("t8")
        big = ctx.facts.get("t8.largest_bytes")
        return ("%sscalar classic/scalar %s at %s (%s-resident): %sx; the best kernel against the best "
                "(%s) at each size: %s") % (
            bigger(c.value, m), variant, human_bytes(big), ctx.size_class(big), g(m), t8.get("kernel"), ", ".join(
                "%s %sx" % (human_bytes(s["target"]), g(s[variant])) for s in t8.get("speedups", []) if s[variant]))
    return why


EXPLAIN = {
    "t8.blocked_speedup": _speedup_over_classic("block512"),
    "t8.cuckoo_speedup": _speedup_over_classic("cuckoo"),
}
