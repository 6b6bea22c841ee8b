#!/usr/bin/python3
"""Plots flbench result files (JSON) as PNG and SVG.

usage: scripts/plot.py [-o DIR] [--prefix P] RESULT.json[.gz] [RESULT.json[.gz] ...]

Figures (each written as DIR/P<name>.png and .svg):
  ns_per_lookup       ns per lookup against filter size, one panel per hit rate
  speedup             speedup of each kernel over scalar at the same configuration
  cycles_per_lookup   TSC cycles per lookup (and core cycles when a PMU counted them)
  misses_per_lookup   L1D and LLC misses per lookup: perf counters, or callgrind's
                      simulated D1/LL misses (labelled simulated)
  fpr                 measured FPR against bits per key, with the classic Bloom theory curve
  ratio_to_bound      ns per lookup / ns per random cache line at the same footprint
  insert_ns_per_key   build throughput
  family_<structure>  one per structure of the family found in the files (counting, sbf,
                      cms, hll): ns per operation against the structure's size, one panel
                      per operation (insert, lookup, delete; update, query; add, estimate,
                      merge), line style = kernel, colour = the structure's parameter
                      (counting variant, sub-filters; for Count-Min and HLL the kernel).
                      family_static: build, batch lookup and one-key inline lookup of the
                      binary fuse and Bloomier filters, colour = the structure (fuse8, ...)

Sizes are on a log2 axis with the L1d/L2/L3 sizes of the first file's context drawn as
vertical lines. Colour = filter family (fixed), line style = kernel, marker = key type.
Needs only Debian's python3-matplotlib (run it with /usr/bin/python3).
"""
import argparse
import gzip
import json
import math
import os
import statistics
import sys
import textwrap
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FAMILY_COLOURS = {
    "classic": "#1f77b4",
    "block512": "#ff7f0e",
    "split256": "#2ca02c",
    "reg64": "#d62728",
    "cuckoo": "#9467bd",
}
KERNEL_STYLES = {"scalar": "-", "avx2": "--", "avx512": "-.", "neon": ":"}
KEY_MARKERS = {"u64": "o", "url": "s"}
HW = {"l1d": "l1d_load_misses_per_lookup", "llc": "llc_load_misses_per_lookup"}
SIM = {"l1d": "sim_d1_misses_per_lookup", "llc": "sim_ll_misses_per_lookup"}


def reject_constant(name):
    raise ValueError("non-standard JSON constant %s" % name)


def load(path):
    """A result file; .gz ones (committed sweeps) are read through gzip."""
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f, parse_constant=reject_constant)


STAT = statistics.median


def summarise(doc):
    """One record per run_name: the median (or --stat min) over the iteration entries of
    every numeric key, and the static (string or constant) keys of the first iteration."""
    groups = defaultdict(list)
    for b in doc.get("benchmarks", []):
        if b.get("run_type", "iteration") == "iteration":
            groups[b.get("run_name", b["name"])].append(b)
    out = []
    for name, its in groups.items():
        rec = dict(its[0])
        keys = set()
        for it in its:
            keys.update(k for k, v in it.items() if isinstance(v, (int, float)) and not isinstance(v, bool))
        for k in keys:
            vals = [it.get(k) for it in its]
            vals = [v for v in vals if isinstance(v, (int, float)) and not isinstance(v, bool)]
            rec[k] = STAT(vals) if vals else None
        rec["run_name"] = name
        rec["_reps"] = len(its)
        out.append(rec)
    return out


def family_colour(f):
    return FAMILY_COLOURS.get(f, "#7f7f7f")


def cache_lines(ax, ctx, sizes=None):
    """Vertical lines at the cache sizes that fall inside the plotted size range: the
    machine's (from the context) or, for simulated misses, the simulated geometry."""
    if not ax.lines and not ax.collections:
        return
    if sizes is None:
        sizes = [("L%d" % c.get("level", 0), c.get("size")) for c in ctx.get("caches", [])
                 if c.get("type") != "Instruction" and c.get("size")]
    xmin, xmax = ax.get_xlim()
    ymin, ymax = ax.get_ylim()
    for label, size in sizes:
        if not (xmin <= size <= xmax):
            continue
        ax.axvline(size, color="#999999", lw=0.8, ls=":", zorder=0)
        ax.text(size, ymax, " " + label, color="#666666", fontsize=7, va="top", ha="left")
    ax.set_xlim(xmin, xmax)


def size_axis(ax):
    ax.set_xscale("log", base=2)
    ax.set_xlabel("filter size (bytes, log2)")


def finish(fig, outdir, prefix, name, written):
    fig.tight_layout()
    for ext in ("png", "svg"):
        path = os.path.join(outdir, "%s%s.%s" % (prefix, name, ext))
        fig.savefig(path, dpi=120)
        written.append(path)
    plt.close(fig)


def empty(ax, text):
    """A panel with nothing to plot says why instead of drawing empty axes."""
    ax.text(0.5, 0.5, textwrap.fill(text, 60), ha="center", va="center", transform=ax.transAxes,
            fontsize=9, color="#666666")
    ax.set_axis_off()


def series(records, key, group_by=("filter", "kernel", "keys_type", "_file")):
    """{group tuple: sorted [(filter_bytes, value)]} for records that have key."""
    out = defaultdict(list)
    for r in records:
        v = r.get(key)
        x = r.get("filter_bytes")
        if v is None or x is None or (isinstance(v, float) and not math.isfinite(v)):
            continue
        out[tuple(r.get(g) for g in group_by)].append((x, v))
    return {k: sorted(v) for k, v in out.items()}


FILL_STYLES = ["full", "none", "left", "right", "top", "bottom"]
FILES = []  # file labels in command-line order (marker fill tells files apart)


def plot_lines(ax, groups):
    for (fam, kern, keys, src), pts in sorted(groups.items(), key=lambda kv: tuple(str(x) for x in kv[0])):
        xs, ys = zip(*pts)
        fill = FILL_STYLES[FILES.index(src) % len(FILL_STYLES)] if src in FILES else "full"
        ax.plot(xs, ys, color=family_colour(fam), ls=KERNEL_STYLES.get(kern, "-"),
                marker=KEY_MARKERS.get(keys, "o"), fillstyle=fill, ms=4, lw=1.4)


def legend(ax, groups, **kw):
    """A compact legend: one entry per family (colour), kernel (line style), key type
    (marker) and file (marker fill), instead of one per line."""
    from matplotlib.lines import Line2D
    fams = sorted({g[0] for g in groups}, key=lambda f: list(FAMILY_COLOURS).index(f) if f in FAMILY_COLOURS else 99)
    kerns = sorted({g[1] for g in groups}, key=lambda k: list(KERNEL_STYLES).index(k) if k in KERNEL_STYLES else 99)
    keys = sorted({g[2] for g in groups})
    srcs = [f for f in FILES if f in {g[3] for g in groups}]
    h = [Line2D([], [], color=family_colour(f), lw=2.5, label=f) for f in fams]
    h += [Line2D([], [], color="black", ls=KERNEL_STYLES.get(k, "-"), lw=1.4, label=k) for k in kerns]
    if len(keys) > 1:
        h += [Line2D([], [], color="black", ls="", marker=KEY_MARKERS.get(k, "o"), label="keys: %s" % k) for k in keys]
    if len(srcs) > 1:
        h += [Line2D([], [], color="black", ls="", marker="o", fillstyle=FILL_STYLES[FILES.index(f) % len(FILL_STYLES)],
                     label=f) for f in srcs]
    ax.legend(handles=h, fontsize=7, **kw)


def hits_of(lookups):
    return sorted({r.get("hit_rate") for r in lookups if r.get("hit_rate") is not None})


def pick_hit(lookups, keys):
    """The hit rate to show for a single-panel figure: 0.5 if it has data for one of keys,
    else the first hit rate that does."""
    hits = hits_of(lookups)
    def has(h):
        return any(r.get("hit_rate") == h and r.get(k) is not None for r in lookups for k in keys)
    for h in ([0.5] if 0.5 in hits else []) + hits:
        if has(h):
            return h
    return hits[len(hits) // 2] if hits else None


def per_hit_figure(lookups, ctx, key, ylabel, title, logy=True):
    hits = hits_of(lookups) or [None]
    fig, axes = plt.subplots(1, len(hits), figsize=(5.2 * len(hits), 4.2), squeeze=False)
    for ax, h in zip(axes[0], hits):
        recs = [r for r in lookups if r.get("hit_rate") == h]
        groups = series(recs, key)
        if groups:
            plot_lines(ax, groups)
            if logy:
                ax.set_yscale("log")
        else:
            empty(ax, "no %s recorded" % key)
        size_axis(ax)
        ax.set_ylabel(ylabel)
        ax.set_title("%s, hit rate %s" % (title, h))
        ax.grid(True, which="both", alpha=0.25)
        cache_lines(ax, ctx)
    allg = series(lookups, key)
    if allg:
        legend(axes[0][-1], allg, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    return fig


# The family's structures, one row each: their operations in panel order, and the record
# field that tells their lines apart (colour). Count-Min (one depth) and HyperLogLog (one size
# per precision) colour by kernel; the static suite by kind (fuse8, ..., bloomier).
FAMILY = {
    "counting": (["insert", "lookup", "delete"], "filter"),
    "sbf": (["insert", "lookup"], "sub_filters"),
    "cms": (["update", "query", "update_topk"], "kernel"),
    "hll": (["add", "estimate", "merge"], "kernel"),
    "static": (["build", "lookup", "lookup_inline"], "filter"),
    "vqf": (["insert", "insert_one", "lookup", "lookup_inline", "delete", "delete_one"],
            "kernel"),
    "gcf": (["insert", "insert_one", "lookup", "lookup_inline", "delete", "delete_one"],
            "kernel"),
}
PARAM_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                 "#7f7f7f", "#bcbd22", "#17becf"]


def family_size(r):
    """The structure's bytes: structure_bytes (family suites) or filter_bytes (the sweep)."""
    v = r.get("structure_bytes")
    return v if v is not None else r.get("filter_bytes")


def param_label(v):
    """A parameter as text: 4.0 (a median over repetitions) prints as 4."""
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return str(v)


def family_figure(structure, recs, ctx, stat):
    family_ops, pkey = FAMILY[structure]
    ops = [op for op in family_ops if any(r.get("op") == op for r in recs)]
    fig, axes = plt.subplots(1, max(1, len(ops)), figsize=(5.2 * max(1, len(ops)), 4.2),
                             squeeze=False)
    params = sorted({param_label(r.get(pkey)) for r in recs}, key=lambda x: (len(x), x))
    for ax, op in zip(axes[0], ops):
        rs = [r for r in recs if r.get("op") == op]
        hit = pick_hit(rs, ["real_time"]) if any(r.get("hit_rate") is not None for r in rs) else None
        if hit is not None:
            rs = [r for r in rs if r.get("hit_rate") == hit]
        groups = defaultdict(list)
        for r in rs:
            x, y = family_size(r), r.get("real_time")
            if x is None or y is None or (isinstance(y, float) and not math.isfinite(y)):
                continue
            groups[(param_label(r.get(pkey)), r.get("kernel"), r.get("_file"))].append((x, y))
        from matplotlib.lines import Line2D
        for (param, kern, src), pts in sorted(groups.items(), key=lambda kv: tuple(str(x) for x in kv[0])):
            xs, ys = zip(*sorted(pts))
            fill = FILL_STYLES[FILES.index(src) % len(FILL_STYLES)] if src in FILES else "full"
            ax.plot(xs, ys, color=PARAM_COLOURS[params.index(param) % len(PARAM_COLOURS)],
                    ls=KERNEL_STYLES.get(kern, "-"), marker="o", fillstyle=fill, ms=4, lw=1.4)
        if groups:
            ax.set_yscale("log")
            h = [Line2D([], [], color=PARAM_COLOURS[params.index(p) % len(PARAM_COLOURS)], lw=2.5,
                        label="%s %s" % (pkey, p)) for p in sorted({g[0] for g in groups}, key=params.index)]
            h += [Line2D([], [], color="black", ls=KERNEL_STYLES.get(k, "-"), lw=1.4, label=k)
                  for k in sorted({g[1] for g in groups}, key=lambda k: list(KERNEL_STYLES).index(k)
                                  if k in KERNEL_STYLES else 99)]
            ax.legend(handles=h, fontsize=7, loc="best")
        else:
            empty(ax, "no %s results" % op)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("%s size (bytes, log2)" % structure)
        item = rs[0].get("item", "op") if rs else "op"
        ax.set_ylabel("ns per %s (%s)" % (item, stat))
        ax.set_title("%s %s%s" % (structure, op, "" if hit is None else ", hit rate %s" % hit))
        ax.grid(True, which="both", alpha=0.25)
        cache_lines(ax, ctx)
    return fig


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", help="flbench JSON result files")
    ap.add_argument("-o", "--outdir", default=".", help="output directory [.]")
    ap.add_argument("--prefix", default="", help="prefix of every output file name")
    ap.add_argument("--stat", choices=("median", "min"), default="median",
                    help="summary over repetitions: median, or min for a noisy (shared) machine [median]")
    args = ap.parse_args(argv)
    global STAT
    STAT = min if args.stat == "min" else statistics.median
    os.makedirs(args.outdir, exist_ok=True)

    docs = [load(p) for p in args.files]
    ctx = docs[0].get("context", {})
    records = []
    for path, d in zip(args.files, docs):
        recs = summarise(d)
        label = os.path.splitext(os.path.basename(path))[0] if len(docs) > 1 else ""
        if label in FILES:
            label = "%s#%d" % (label, len(FILES))
        FILES.append(label)
        for r in recs:  # files are told apart (marker fill) only when there are several
            r["_file"] = label
        records.extend(recs)
    cg = next((d["context"]["callgrind"] for d in docs if d.get("context", {}).get("callgrind")), {})
    # The filter sweep's records (files from before the "structure" field have none).
    sweep = [r for r in records if r.get("structure") in (None, "filter", "counting")]
    lookups = [r for r in sweep if r.get("op") == "lookup" or r["run_name"].startswith("lookup/")]
    inserts = [r for r in sweep if r.get("op") == "insert" or r["run_name"].startswith("insert/")]
    written = []

    # 1. ns per lookup
    fig = per_hit_figure(lookups, ctx, "real_time", "ns per lookup (%s)" % args.stat, "lookup time")
    finish(fig, args.outdir, args.prefix, "ns_per_lookup", written)

    # 2. speedup over scalar
    hits = hits_of(lookups) or [None]
    fig, axes = plt.subplots(1, len(hits), figsize=(5.2 * len(hits), 4.2), squeeze=False)
    for ax, h in zip(axes[0], hits):
        base = {}
        for r in lookups:
            if r.get("hit_rate") == h and r.get("kernel") == "scalar":
                base[(r.get("filter"), r.get("keys_type"), r.get("filter_bytes"), r["_file"])] = r["real_time"]
        groups = defaultdict(list)
        for r in lookups:
            if r.get("hit_rate") != h or r.get("kernel") in (None, "scalar"):
                continue
            b = base.get((r.get("filter"), r.get("keys_type"), r.get("filter_bytes"), r["_file"]))
            if b and r.get("real_time"):
                groups[(r.get("filter"), r.get("kernel"), r.get("keys_type"), r["_file"])].append(
                    (r["filter_bytes"], b / r["real_time"]))
        if groups:
            plot_lines(ax, {k: sorted(v) for k, v in groups.items()})
            ax.axhline(1.0, color="black", lw=0.8)
            legend(ax, groups, loc="best")
        else:
            empty(ax, "needs scalar and at least one other kernel\n(flbench --kernel all)")
        size_axis(ax)
        ax.set_ylabel("speedup over scalar (x)")
        ax.set_title("speedup over scalar, hit rate %s" % h)
        ax.grid(True, which="both", alpha=0.25)
        cache_lines(ax, ctx)
    finish(fig, args.outdir, args.prefix, "speedup", written)

    # 3. cycles per lookup: TSC everywhere, core cycles when counted
    h = pick_hit(lookups, ["tsc_cycles_per_lookup", "cycles_per_lookup"])
    recs = [r for r in lookups if r.get("hit_rate") == h]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), squeeze=False)
    for ax, key, title in ((axes[0][0], "tsc_cycles_per_lookup", "TSC cycles per lookup"),
                           (axes[0][1], "cycles_per_lookup", "core cycles per lookup (perf)")):
        groups = series(recs, key)
        if groups:
            plot_lines(ax, groups)
            ax.set_yscale("log")
            legend(ax, groups, loc="best")
        else:
            empty(ax, "not measured: %s" % (ctx.get("counter_note") or "no PMU"))
        size_axis(ax)
        ax.set_ylabel(title.split(" (")[0])
        ax.set_title("%s, hit rate %s" % (title, h))
        ax.grid(True, which="both", alpha=0.25)
        cache_lines(ax, ctx)
    finish(fig, args.outdir, args.prefix, "cycles_per_lookup", written)

    # 4. misses per lookup: real (perf) or simulated (callgrind), labelled as such
    h = pick_hit(lookups, list(HW.values()) + list(SIM.values()))
    recs = [r for r in lookups if r.get("hit_rate") == h]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), squeeze=False)
    for ax, level, name in ((axes[0][0], "l1d", "L1D"), (axes[0][1], "llc", "LLC")):
        groups = series(recs, HW[level])
        kind = "perf, measured"
        if not groups:
            groups = series(recs, SIM[level])
            kind = "callgrind, simulated %s=%s" % ("D1" if level == "l1d" else "LL",
                                                  cg.get("D1" if level == "l1d" else "LL", "?"))
        sim_sizes = None
        if groups and kind.startswith("callgrind"):
            geo = cg.get("D1" if level == "l1d" else "LL", "")
            try:
                sim_sizes = [("sim " + ("D1" if level == "l1d" else "LL"), int(geo.split(",")[0]))]
            except ValueError:
                sim_sizes = []
        if groups:
            plot_lines(ax, groups)
            legend(ax, groups, loc="best")
            ax.set_title("%s misses per lookup, hit rate %s\n(%s)" % (name, h, kind), fontsize=9)
        else:
            empty(ax, "no miss counts in this file (counter backend: %s; pmu_available: %s). "
                      "flbench --counters callgrind gives simulated misses."
                  % (ctx.get("counter_backend") or "none", ctx.get("pmu_available")))
            ax.set_title("%s misses per lookup, hit rate %s" % (name, h), fontsize=9)
        size_axis(ax)
        ax.set_ylabel("%s misses per lookup" % name)
        ax.grid(True, which="both", alpha=0.25)
        cache_lines(ax, ctx, sim_sizes)
    finish(fig, args.outdir, args.prefix, "misses_per_lookup", written)

    # 5. FPR against bits per key, with theory
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    seen = set()
    pts = defaultdict(list)
    pred = defaultdict(list)
    for r in lookups + inserts:
        key = (r.get("filter"), r.get("filter_bytes"), r.get("keys_type"))
        if key in seen or r.get("fpr_measured") is None or r.get("bits_per_key") is None:
            continue
        seen.add(key)
        pts[r.get("filter")].append((r["bits_per_key"], r["fpr_measured"]))
        if r.get("fpr_predicted") is not None:
            pred[r.get("filter")].append((r["bits_per_key"], r["fpr_predicted"]))
    if pts:
        for fam, p in sorted(pts.items()):
            xs, ys = zip(*sorted(p))
            ax.scatter(xs, [max(y, 1e-9) for y in ys], color=family_colour(fam), s=22, label="%s measured" % fam)
            if pred.get(fam):
                xs, ys = zip(*sorted(pred[fam]))
                ax.scatter(xs, ys, facecolors="none", edgecolors=family_colour(fam), s=40, label="%s model" % fam)
        lo = min(x for p in pts.values() for x, _ in p)
        hi = max(x for p in pts.values() for x, _ in p)
        lo, hi = max(1.0, lo * 0.8), hi * 1.2
        bs = [lo + (hi - lo) * i / 200 for i in range(201)]
        theory = [min((1 - math.exp(-k / b)) ** k for k in range(1, 33)) for b in bs]
        ax.plot(bs, theory, color="black", lw=1, label="classic Bloom theory, best integer k")
        ax.set_yscale("log")
        ax.legend(fontsize=7)
    else:
        empty(ax, "no FPR measurements")
    ax.set_xlabel("bits per key")
    ax.set_ylabel("false-positive rate")
    ax.set_title("measured FPR (never-inserted keys) vs bits per key")
    ax.grid(True, which="both", alpha=0.25)
    finish(fig, args.outdir, args.prefix, "fpr", written)

    # 6. ratio to the physical bound
    fig = per_hit_figure(lookups, ctx, "ratio_to_bound",
                         "ns per lookup / ns per random line", "ratio to the memory bound")
    for ax in fig.axes:
        ax.axhline(1.0, color="black", lw=0.8)
    finish(fig, args.outdir, args.prefix, "ratio_to_bound", written)

    # 7. insert throughput
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    groups = series(inserts, "real_time")
    if groups:
        plot_lines(ax, groups)
        ax.set_yscale("log")
        legend(ax, groups, loc="best")
    else:
        empty(ax, "no insert results")
    size_axis(ax)
    ax.set_ylabel("ns per inserted key (%s)" % args.stat)
    ax.set_title("build (insert) time per key")
    ax.grid(True, which="both", alpha=0.25)
    cache_lines(ax, ctx)
    finish(fig, args.outdir, args.prefix, "insert_ns_per_key", written)

    # 8. one figure per structure of the family
    for structure in FAMILY:
        recs = [r for r in records if r.get("structure") == structure]
        if recs:
            fig = family_figure(structure, recs, ctx, args.stat)
            finish(fig, args.outdir, args.prefix, "family_" + structure, written)

    for p in written:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
