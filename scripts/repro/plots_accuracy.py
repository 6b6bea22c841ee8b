"""The figures of tables 9-12 (counting Bloom, Count-Min, HyperLogLog, scalable Bloom), drawn
from tables.json with plots.py's helpers (same style, same metadata)."""

import plots
from plots import plt

COLORS = {"counting": "#d62728", "counting512": "#1f77b4", "classic": "#9467bd", "block512": "#2ca02c"}


def plot_t9(t, out, stamp, caches):
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.6))
    for v in COLORS:
        pts = sorted((r["fill"], r["measured_fpr"], r["predicted_fpr"]) for r in t["fill"] if r["variant"] == v)
        if pts:
            a.plot([p[0] for p in pts], [max(p[1], 1e-7) for p in pts], "o-", color=COLORS[v], label=v, ms=3)
            a.plot([p[0] for p in pts], [p[2] for p in pts], ":", color=COLORS[v], lw=1)
    a.set_yscale("log")
    plots._label(a, "fill (keys / design n)", "FPR (dotted: model)", "Counting Bloom FPR against fill, 1% design",
                 legend=7)
    for v in ("counting", "counting512"):
        pts = sorted((r["fill"], r["mean_saturated"], r["expected_saturated"]) for r in t["overflow"]
                     if r["variant"] == v)
        if pts:
            b.plot([p[0] for p in pts], [max(p[1], 0.01) for p in pts], "o-", color=COLORS[v], label=v + " measured",
                   ms=3)
    pts = sorted((r["fill"], r["expected_saturated"]) for r in t["overflow"] if r["variant"] == "counting")
    b.plot([p[0] for p in pts], [max(p[1], 1e-6) for p in pts], "k:", label="binomial expectation (classic)")
    b.set_yscale("log")
    plots._label(b, "fill (keys / design n)", "counters at 15 per filter (0 drawn as 0.01)",
                 "4-bit counters that saturate", legend=7)
    return plots._save(fig, out, "t9_counting", "Counting Bloom: FPR and counter overflow against fill", stamp)


def plot_t10(t, out, stamp, caches):
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for s in t["streams"]:
        cdf = s["cdf"]
        if not cdf:
            continue
        qs = [(i + 1) / len(cdf) for i in range(len(cdf))]
        ax.plot(cdf, qs, "-" if not s["conservative"] else "--",
                label="%s, %s" % (s["stream"], "conservative" if s["conservative"] else "plain"))
    ax.axvline(1.0, color="k", lw=1, ls=":")
    ax.text(1.0, 0.05, " epsilon N", fontsize=7)
    plots._label(ax, "overestimate / (epsilon N)", "fraction of keys at or below",
                 "Count-Min (epsilon 0.001, delta 0.01): error distribution", legend=7)
    return plots._save(fig, out, "t10_cms", "Count-Min overestimate distribution", stamp)


def plot_t11(t, out, stamp, caches):
    fig, ax = plt.subplots(figsize=(6, 3.6))
    colors = {11: "#d62728", 14: "#1f77b4"}
    for p in sorted({r["p"] for r in t["rows"]}):
        rows = sorted((r for r in t["rows"] if r["p"] == p), key=lambda r: r["card"])
        c = colors.get(p, "0.3")
        ax.plot([r["card"] for r in rows], [r["rms_estimate"] for r in rows], "o-", color=c, ms=3,
                label="p = %d, filterlab (Redis)" % p)
        ax.plot([r["card"] for r in rows], [r["rms_seed003"] for r in rows], "x--", color=c, ms=4, lw=1,
                label="p = %d, seed 003's estimator" % p)
        ax.axhline(rows[0]["std_error"], color=c, lw=1, ls=":")
    ax.set_xscale("log")
    ax.set_yscale("log")
    plots._label(ax, "distinct keys", "RMS relative error (dotted: 1.04/sqrt(m))",
                 "HyperLogLog error against cardinality", legend=7)
    return plots._save(fig, out, "t11_hll", "HyperLogLog relative error against cardinality", stamp)


def plot_t12(t, out, stamp, caches):
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for v in ("classic", "block512"):
        rows = sorted((r for r in t["chain"] if r["variant"] == v), key=lambda r: r["fill"])
        if rows:
            ax.plot([r["fill"] for r in rows], [max(r["measured_fpr"], 1e-7) for r in rows], "o-",
                    color=COLORS[v], ms=3, label="chain, %s" % v)
            ax.plot([r["fill"] for r in rows], [r["predicted_fpr"] for r in rows], ":", color=COLORS[v], lw=1)
    plan = sorted(t["planning"], key=lambda r: r["keys_over_estimate"])
    ax.plot([r["keys_over_estimate"] for r in plan], [max(r["measured_fpr"], 1e-7) for r in plan], "s--",
            color="0.4", ms=3, label="fixed classic sized for 2x")
    ax.axhline(t["error_rate"], color="k", lw=1, ls=":")
    ax.set_yscale("log")
    ax.set_xscale("log")
    plots._label(ax, "keys / first capacity (the estimate)", "FPR (dotted: model; black: error rate)",
                 "Scalable Bloom (expansion 2, tightening 0.5)", legend=7)
    return plots._save(fig, out, "t12_scalable", "Scalable Bloom FPR against keys", stamp)


ALL = (("t9", plot_t9), ("t10", plot_t10), ("t11", plot_t11), ("t12", plot_t12))
