"""The report's figures, PNG and SVG, drawn from tables.json (matplotlib, Agg backend).
Each file carries the run's commit, date, host and kernel in its metadata."""

import functools
import math
import os

import matplotlib

from fmt import human_bytes
from tables import t4_fill

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "filterlab", "font.size": 9,
                     "axes.grid": True, "grid.alpha": 0.3, "figure.dpi": 100})

VARIANTS = ("classic", "block512", "split256", "reg64", "cuckoo")
COLORS = {"classic": "#d62728", "block512": "#1f77b4", "split256": "#2ca02c", "reg64": "#9467bd",
          "cuckoo": "#ff7f0e"}


def _save(fig, out, name, title, stamp):
    d = os.path.join(out, "plots")
    os.makedirs(d, exist_ok=True)
    desc = "scripts/reproduce %s: commit %s, %s, host %s, kernel %s" % (
        stamp["mode"], stamp["commit"], stamp["date"], stamp["host_id"], stamp["kernel_selected"])
    fig.text(0.995, 0.005, "%s  %s  %s" % (stamp["host_id"], (stamp["commit"] or "")[:10], stamp["date"][:10]),
             ha="right", va="bottom", fontsize=6, color="0.5")
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    fig.savefig(os.path.join(d, name + ".png"), metadata={"Title": title, "Description": desc})
    fig.savefig(os.path.join(d, name + ".svg"), metadata={"Title": title, "Description": desc, "Date": None})
    plt.close(fig)
    return ["plots/%s.png" % name, "plots/%s.svg" % name]


def _variant_lines(ax, points):
    """One marked line per variant that has points; points(variant) -> [(x, y)]."""
    for v in VARIANTS:
        pts = points(v)
        if pts:
            ax.plot([a for a, _ in pts], [b for _, b in pts], "o-", color=COLORS[v], label=v, ms=3)


def _label(ax, xlabel, ylabel, title, legend=None):
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    if legend:
        ax.legend(fontsize=legend)


def _cache_lines(ax, caches):
    for key, label in (("l1d", "L1d"), ("l2", "L2"), ("llc", "LLC")):
        if caches.get(key):
            ax.axvline(caches[key], color="0.6", ls=":", lw=1)
            ax.text(caches[key], ax.get_ylim()[1], " " + label, fontsize=7, color="0.4", va="top")


def plot_t1(t1, out, stamp, caches):
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
    return _save(fig, out, "t1_naive_vs_blocked", "naive vs blocked Bloom", stamp)


def plot_t2(t2, out, stamp, caches):
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for r in t2["rows"]:
        if not r.get("memory_bytes") or r.get("miss_ns") is None:
            continue
        c = COLORS.get(r["structure"].rstrip("0123456789") if r["structure"].startswith("cuckoo") else r["structure"], "0.2")
        ax.scatter(r["memory_bytes"], r["miss_ns"], color=c, s=30, marker="o" if r["exact"] else "s")
        ax.annotate(r["structure"], (r["memory_bytes"], r["miss_ns"]), fontsize=7, xytext=(4, 3),
                    textcoords="offset points")
    ax.set_xscale("log")
    _label(ax, "memory, bytes (hash sets: heap growth; filters: payload)", "ns per lookup, never-inserted URL",
           "Table 2: %d URLs, %.1f bytes on average" % (t2["n"], t2["mean_key_bytes"]))
    _cache_lines(ax, caches)
    return _save(fig, out, "t2_crawler", "crawler: hash sets vs filters", stamp)


def plot_t4(t4, out, stamp, caches, claims):
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for v in VARIANTS:
        pts = sorted((r["fill"], r["measured_fpr"], r["predicted_fpr"]) for r in t4["rows"] if r["variant"] == v)
        if not pts:
            continue
        ax.plot([p[0] for p in pts], [max(p[1], 1e-7) for p in pts], "o-", color=COLORS[v], label=v, ms=3)
        ax.plot([p[0] for p in pts], [p[2] for p in pts], ":", color=COLORS[v], lw=1)
    seed = t4_fill.seed_by_fill(claims)
    ax.plot(list(seed), list(seed.values()), "kx", label="seed 003, 9.17", ms=7)
    ax.set_yscale("log")
    _label(ax, "fill ratio (keys inserted / design n)", "false positive rate (dotted: model)",
           "Table 4: FPR against fill, sized for n = %d at 1%%" % t4["n"], legend=7)
    return _save(fig, out, "t4_fpr_vs_fill", "FPR against fill ratio", stamp)


def plot_t5(t5, out, stamp, caches, claims):
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    ax = axes[0]
    xs = [p["target"] for p in t5["pivot"]]
    _variant_lines(ax, lambda v: [(p["target"], p[v]["bpk"]) for p in t5["pivot"] if "bpk" in p.get(v, {})])
    ax.plot(xs, [p["ideal_cuckoo"] for p in t5["pivot"]], "--", color=COLORS["cuckoo"], lw=1,
            label="cuckoo, any f (model)")
    ax.plot(xs, [p["bound"] for p in t5["pivot"]], "k-", lw=1, label="log2(1/FPR) bound")
    seed = next(c["seed_value"] for c in claims if c["id"] == "t5.crossover")
    ax.axvline(seed, color="0.5", ls=":", lw=1)
    ax.text(seed, ax.get_ylim()[1], " seed: %g%%" % (100 * seed), fontsize=7, va="top", color="0.4")
    ax.set_xscale("log")
    ax.invert_xaxis()
    top = max((p["classic"]["bpk"] for p in t5["pivot"] if "bpk" in p.get("classic", {})), default=None)
    if top:
        ax.set_ylim(0, 1.5 * top)  # reg64 climbs far above; its values are in the table
    _label(ax, "target FPR", "bits per key", "Tables 5-6: space at equal FPR (n = %d)" % t5["n"], legend=6)
    ax = axes[1]
    for f, col in ((8, "#ff7f0e"), (12, "#17becf"), (16, "#8c564b")):
        pts = sorted((r["load"], r["measured_fpr"], r["formula_at_load"], r["formula_2b_over_2f"])
                     for r in t5.get("cuckoo", []) if r["fingerprint_bits"] == f)
        if not pts:
            continue
        ax.plot([p[0] for p in pts], [max(p[1], 1e-8) for p in pts], "o", color=col, label="f = %d measured" % f)
        ax.plot([p[0] for p in pts], [p[2] for p in pts], ":", color=col, label="2b*load/(2^f-1)")
        ax.axhline(pts[0][3], color=col, lw=0.8, ls="--")
    ax.set_yscale("log")
    _label(ax, "cuckoo load (occupied slots / slots)", "FPR (dashed: 2b/2^f)", "cuckoo FPR against 2b/2^f", legend=6)
    made = _save(fig, out, "t5_space_and_cuckoo", "space at equal FPR; cuckoo FPR", stamp)
    return made + plot_t5_deletes(t5, out, stamp)


# the filters that delete (table 5's deletes rows): column -> (label, colour, marker)
DELETES_STYLE = {"cuckoo8": ("cuckoo, 8-bit", "#ff7f0e", "o"), "cuckoo12": ("cuckoo, 12-bit", "#17becf", "o"),
                 "cuckoo16": ("cuckoo, 16-bit", "#8c564b", "o"), "counting": ("counting", "#d62728", "s"),
                 "counting512": ("counting512", "#1f77b4", "s")}


def plot_t5_deletes(t5, out, stamp):
    """Bits per key against log2(1/measured FPR) for every filter that deletes, with the
    information-theoretic line y = x (Carter et al. 1978)."""
    rows = t5.get("deletes") or []
    if not any(len(p) > 2 for p in rows):
        return []
    fig, ax = plt.subplots(figsize=(6, 3.8))
    top = 0
    for col, (label, colour, marker) in DELETES_STYLE.items():
        pts = sorted((p[col]["bound_measured"], p[col]["bpk"]) for p in rows
                     if p.get(col, {}).get("bound_measured") is not None)
        if pts:
            ax.plot([x for x, _ in pts], [y for _, y in pts], marker + "-", color=colour, label=label, ms=3)
            top = max(top, max(x for x, _ in pts))
    if top:
        ax.plot([0, top], [0, top], "k-", lw=1, label="log2(1/FPR) (lower bound)")
    ax.set_ylim(bottom=0)
    _label(ax, "log2(1/measured FPR)", "bits per key",
           "Table 5: filters that delete, space against FPR (n = %d)" % t5["n"], legend=6)
    return _save(fig, out, "t5_deletes_space", "filters that delete: bits per key against log2(1/FPR)", stamp)


def plot_t6(t6, out, stamp, caches):
    if not t6["rows"]:
        return []
    fig, ax = plt.subplots(figsize=(6, 3.4))
    _variant_lines(ax, lambda v: sorted((r["measured"], r["factor"]) for r in t6["rows"]
                                        if r["variant"] == v and r["precise"]))
    ax.axhline(1 / math.log(2), color="k", lw=1, ls="--", label="1.44 (seed 003, 9.11)")
    ax.axhline(1.0, color="k", lw=1, label="information-theoretic bound")
    ax.set_xscale("log")
    ax.invert_xaxis()
    _label(ax, "measured FPR", "bits per key / log2(1/FPR)", "Table 6: space over the bound n log2(1/FPR)", legend=6)
    return _save(fig, out, "t6_bound", "space against the information-theoretic bound", stamp)


def plot_t7(t7, out, stamp, caches):
    rows = t7["rows"]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
    names = [r["name"] for r in rows]
    axes[0].barh(names, [r["mean_s"] or 0 for r in rows], xerr=[r["stddev_s"] or 0 for r in rows], color="#1f77b4")
    axes[0].set_xlabel("seconds (hyperfine mean)")
    axes[1].barh(names, [(r["max_rss_kb"] or 0) / 1000 for r in rows], color="#2ca02c")
    axes[1].set_xlabel("peak RSS, MB (/usr/bin/time -v)")
    axes[1].set_xscale("log")
    axes[1].set_yticklabels([])
    axes[0].invert_yaxis()
    fig.suptitle("Table 7: %d lines, %d distinct" % (t7["lines"], t7["distinct"]), fontsize=9)
    return _save(fig, out, "t7_dedup", "end to end dedup", stamp)


def plot_t8(t8, out, stamp, caches):
    kernels = t8["kernels"]
    fig, axes = plt.subplots(1, len(kernels), figsize=(3.4 * len(kernels), 3.4), sharey=True, squeeze=False)
    for ax, k in zip(axes[0], kernels):
        _variant_lines(ax, lambda v: sorted((p["filter_bytes"], p["ns"].get(k)) for p in t8["pivot"]
                                            if p["variant"] == v and p["ns"].get(k) is not None))
        bpts = sorted({(p["filter_bytes"], p["bound"]) for p in t8["pivot"] if p["bound"]})
        if bpts:
            ax.plot([a for a, _ in bpts], [b for _, b in bpts], "k--", lw=1, label="bound: 1 random line")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title("kernel %s" % k, fontsize=9)
        ax.set_xlabel("filter bytes")
        _cache_lines(ax, caches)
    axes[0][0].set_ylabel("ns per lookup (hit rate %g)" % t8["hit_rate"])
    axes[0][-1].legend(fontsize=6, loc="upper left")
    fig.suptitle("Table 8: kernel sweep at FPR %g" % t8["fpr"], fontsize=9)
    return _save(fig, out, "t8_sweep", "kernel sweep", stamp)


def make(out, doc):
    T = doc["tables"]
    stamp = doc["run"]["stamp"]
    caches = doc["run"]["host"]["caches"]
    made = {}
    # the plots that mark seed numbers read them from the claims (seed_claims.json)
    t4 = functools.partial(plot_t4, claims=T["claims"])
    t5 = functools.partial(plot_t5, claims=T["claims"])
    for name, fn in (("t1", plot_t1), ("t2", plot_t2), ("t4", t4), ("t5", t5), ("t6", plot_t6), ("t7", plot_t7),
                     ("t8", plot_t8)):
        made[name] = fn(T[name], out, stamp, caches) if T.get(name) else []
    import plots_accuracy  # tables 9-12; imported here: it imports this module
    for name, fn in plots_accuracy.ALL:
        made[name] = fn(T[name], out, stamp, caches) if T.get(name) else []
    return made
