"""Table 6: space against the information-theoretic bound n log2(1/e) (seed 003): table 5's
filters, bits per key divided by log2(1/measured FPR); the lower bound of Carter et al. 1978
is 1."""

import math

import static_data
from tables.t5_space import library_rows

from context import VARIANTS
from fmt import g, thousands
from plotting import axis_labels, plt, save_figure, variant_lines
from verdicts import numbers_only

NUMBER, KEY, DATA = 6, "t6", "t5_space.json"
SECTION = dict(heading="space against the information-theoretic bound n log2(1/e)",
               sources="Source: `data/t5_space.json`.", figure="bits per key over log2(1/FPR)")
FIGURES = ("t6_bound",)


def build(ctx, d):
    src = "data/" + DATA
    t6 = []
    for r in library_rows(d):
        if r.get("error") or not r["false_positives"]:
            continue
        lm = math.log2(1 / r["measured_fpr"])
        t6.append({"variant": r["variant"], "target": r["target_fpr"], "bpk": r["bits_per_key"],
                   "measured": r["measured_fpr"], "fp": r["false_positives"],
                   "bound_measured": lm, "factor": r["bits_per_key"] / lm,
                   "factor_target": r["bits_per_key"] / math.log2(1 / r["target_fpr"]),
                   "precise": r["false_positives"] >= 100})
    means, ses = {}, {}
    for v in VARIANTS:
        xs = [x for x in t6 if x["variant"] == v and x["precise"]]
        if xs:
            means[v] = sum(x["factor"] for x in xs) / len(xs)
            # the factor's sampling error through the FPR's: d(b/L)/dp = b / (L^2 p ln 2), and a
            # binomial count's se(p) = sqrt(p (1 - p) / queries)
            ses[v] = math.sqrt(sum((x["bpk"] / (x["bound_measured"] ** 2 * x["measured"] * math.log(2))
                                    * math.sqrt(x["measured"] * (1 - x["measured"]) / d["queries"])) ** 2
                                   for x in xs)) / len(xs)
    if "classic" in means:
        ctx.fact("t6.classic.factor", means["classic"], src)
        ctx.fact("t6.classic.factor.se", ses["classic"], src)
        ctx.fact("t6.classic.efficiency", 1 / means["classic"], src)
        ctx.fact("t6.classic.efficiency.se", ses["classic"] / means["classic"] ** 2, src)
    ctx.tables["t6"] = {"rows": t6, "mean_factor": means}
    static_rows(ctx)


def static_rows(ctx):
    """Binary fuse filters (flbench --structure static, static_data.py): one row per
    shape and key count, bits per key over log2(1/measured FPR) and over the fingerprint's
    log2(1/2^-bits); Graf and Lemire 2022 report ~1.13 for 3-wise 8-bit at a million keys
    and above."""
    rows = []
    for r in static_data.records(ctx.out):
        if not r["fpr_measured"]:
            continue
        lm = math.log2(1 / r["fpr_measured"])
        rows.append({"variant": r["variant"], "keys": r["keys"], "bpk": r["bits_per_key"],
                     "measured": r["fpr_measured"], "expected": r["fpr_expected"],
                     "queries": r["fpr_queries"], "bound_measured": lm,
                     "factor": r["bits_per_key"] / lm,
                     "factor_target": r["bits_per_key"] / math.log2(1 / r["fpr_expected"])})
    if not rows:
        return
    ctx.tables["t6"]["static"] = rows
    big = max(r["keys"] for r in rows)
    for r in rows:
        if r["keys"] == big:
            ctx.fact("t6.%s.factor" % r["variant"], r["factor_target"], static_data.SOURCE)


def report(page, t6):
    page.w("From table 5's filters: bits per key divided by log2(1/measured FPR) (the lower bound of Carter "
           "et al. 1978 is 1). Rows with fewer than 100 false positives are imprecise and left out of the means.")
    page.w()
    targets = sorted({r["target"] for r in t6["rows"]}, reverse=True)
    rows = []
    for t in targets:
        row = [g(t)]
        for v in VARIANTS:
            r = next((x for x in t6["rows"] if x["variant"] == v and x["target"] == t), None)
            row.append((g(r["factor"]) + ("" if r["precise"] else "*")) if r else "-")
        rows.append(row)
    rows.append(["**mean**"] + [g(t6["mean_factor"].get(v)) for v in VARIANTS])
    page.table(["target"] + list(VARIANTS), rows)
    page.w("\\* fewer than 100 false positives measured.")
    page.w()
    if t6.get("static"):
        page.w("Binary fuse filters (Graf and Lemire 2022), built from n keys by `flbench --structure "
               "static` (fuse<arity>_<bits>: flbench's fuse8, fuse16, fuse4w8, fuse4w16): bits per key over "
               "log2(1/measured FPR), and over log2(1/2^-bits), the fingerprint's bound. The FPR is measured "
               "over 2^20 to 2^24 never-stored keys (about 1000 expected positives; fewer for 16-bit "
               "fingerprints, whose FPR figure is the least precise).")
        page.w()
        rows = [[r["variant"], thousands(r["keys"]), g(r["bpk"]), g(r["measured"]), g(r["factor"]),
                 g(r["factor_target"])] for r in t6["static"]]
        page.table(["structure", "keys", "bits/key", "measured FPR", "/ log2(1/measured)",
                    "/ fingerprint bits"], rows)
        page.w("Source: `data/static_flbench.json` (median aggregates of `raw/static_flbench.json`).")
        page.w()


CSVS = (
    ("t6_bound.csv", lambda t: (t["rows"], [
        "variant", "target", "bpk", "measured", "fp", "bound_measured", "factor", "factor_target", "precise"])),
)


def figure(t6, out, stamp, caches, claims):
    if not t6["rows"]:
        return []
    fig, ax = plt.subplots(figsize=(6, 3.4))
    variant_lines(ax, lambda v: sorted((r["measured"], r["factor"]) for r in t6["rows"]
                                       if r["variant"] == v and r["precise"]))
    ax.axhline(1 / math.log(2), color="k", lw=1, ls="--", label="1.44 (seed 003, 9.11)")
    ax.axhline(1.0, color="k", lw=1, label="information-theoretic bound")
    ax.set_xscale("log")
    ax.invert_xaxis()
    axis_labels(ax, "measured FPR", "bits per key / log2(1/FPR)", "Table 6: space over the bound n log2(1/FPR)", legend=6)
    return save_figure(fig, out, "t6_bound", "space against the information-theoretic bound", stamp)


# ---- explanations ---------------------------------------------------------------------
def why_bloom_factor(ctx, c, m, holds):
    means = ctx.table("t6").get("mean_factor", {})
    return ("classic uses %sx log2(1/FPR) bits per key (measured FPR, mean over targets with >= 100 false "
            "positives); block512 %sx, split256 %sx, cuckoo %sx") % (
        g(m), g(means.get("block512")), g(means.get("split256")), g(means.get("cuckoo")))


EXPLAIN = {
    "t6.bloom_factor": why_bloom_factor,
    "t6.efficiency": numbers_only,
}
