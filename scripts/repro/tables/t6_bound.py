"""Table 6: space against the information-theoretic bound n log2(1/e) (seed 003): table 5's
filters, bits per key divided by log2(1/measured FPR); the lower bound of Carter et al. 1978
is 1."""

import math

import static_data
from tables.t5_space import library_rows

from fmt import g
from verdicts import numbers_only

NUMBER, KEY, DATA = 6, "t6", "t5_space.json"


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
    for v in ("classic", "block512", "split256", "reg64", "cuckoo"):
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
