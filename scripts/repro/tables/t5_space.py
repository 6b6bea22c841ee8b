"""Table 5: Bloom vs cuckoo space at equal FPR, and cuckoo FPR against 2b/2^f (seed 003):
bits per key of every variant sized by the library at each target (data/t5_space.json), Fan
et al.'s ideal cuckoo model beside them, and the cuckoo filter's FPR at each load
(data/t5_cuckoo.json)."""

import math

from fmt import g, pct
from models import cuckoo_crossover, ideal_cuckoo_bpk
from rundata import load_json
from verdicts import numbers_only

NUMBER, KEY, DATA = 5, "t5", "t5_space.json"


def build(ctx, d):
    src = "data/" + DATA
    rows = d["rows"]
    targets = sorted({r["target_fpr"] for r in rows}, reverse=True)
    pivot = []
    for t in targets:
        pr = {"target": t}
        for r in rows:
            if r["target_fpr"] != t:
                continue
            if r.get("error"):
                pr[r["variant"]] = {"error": r["error"]}
            else:
                pr[r["variant"]] = {"bpk": r["bits_per_key"], "measured": r["measured_fpr"],
                                    "fp": r["false_positives"], "k": r["k"], "bytes": r["bytes"]}
        pr["ideal_cuckoo"] = ideal_cuckoo_bpk(t)
        pr["ideal_cuckoo_semisort"] = ideal_cuckoo_bpk(t, 2.0)
        pr["bound"] = math.log2(1 / t)
        c, b = pr.get("cuckoo", {}), pr.get("classic", {})
        if "bpk" in c and "bpk" in b:
            pr["cuckoo_wins"] = c["bpk"] < b["bpk"]
        pivot.append(pr)
        if "bpk" in pr.get("classic", {}):
            ctx.fact("t5.classic.%g.bpk" % t, pr["classic"]["bpk"], src)
        if "bpk" in pr.get("cuckoo", {}):
            ctx.fact("t5.cuckoo.%g.bpk" % t, pr["cuckoo"]["bpk"], src)
    wins = [p["target"] for p in pivot if p.get("cuckoo_wins")]
    ctx.fact("t5.crossover", max(wins) if wins else None, src)
    # the published models (Fan et al. 2014 sec. 5.2, semi-sorted buckets: log2(1/e) + 2 bits
    # per entry at 95.5% load) the cuckoo claims are also judged on
    msrc = "scripts/repro/models.py (Fan et al. 2014)"
    ctx.fact("t5.crossover.semisorted", cuckoo_crossover(2.0), msrc)
    ctx.fact("t5.cuckoo.0.001.model_bpk", ideal_cuckoo_bpk(0.001, 2.0), msrc)
    t5 = ctx.tables["t5"] = {"n": d["n"], "queries": d["queries"], "pivot": pivot, "wins": wins,
                             "ideal_crossover": cuckoo_crossover(3.0),
                             "ideal_crossover_semisort": cuckoo_crossover(2.0)}
    # cuckoo FPR against 2b/2^f
    dc = load_json(ctx.out, "t5_cuckoo.json")
    if dc:
        crow = [r for r in dc["rows"] if not r.get("error")]
        for r in crow:
            r["ratio_to_2b_2f"] = r["measured_fpr"] / r["formula_2b_over_2f"]
        t5["cuckoo"] = crow
        t5["cuckoo_buckets"] = crow[0]["units"] if crow else None
        t5["cuckoo_queries"] = dc["queries"]
        lo = [r for r in crow if abs(r["load_wanted"] - 0.125) < 1e-9]
        hi = [r for r in crow if abs(r["load_wanted"] - 0.94) < 1e-9]
        srcc = "data/t5_cuckoo.json"
        if lo:
            ratio = sum(r["ratio_to_2b_2f"] for r in lo) / len(lo)
            # the seed's example: f = 12, b = 4 -> 2b/2^f = 8/4096
            ctx.fact("t5.cuckoo_seed_example", ratio * 8 / 4096, srcc)
            ctx.fact("t5.cuckoo_seed_example.ratio", ratio, srcc)
        if hi:
            ctx.fact("t5.cuckoo_full_ratio", sum(r["ratio_to_2b_2f"] for r in hi) / len(hi), srcc)
            # a Poisson count's standard error, 1/sqrt(false positives), per row, averaged
            ctx.fact("t5.cuckoo_full_ratio.se", math.sqrt(sum(
                (r["ratio_to_2b_2f"] ** 2) / max(r["false_positives"], 1) for r in hi)) / len(hi), srcc)
            ctx.fact("t5.cuckoo_full_load", sum(r["load"] for r in hi) / len(hi), srcc)


# ---- explanations ---------------------------------------------------------------------
def why_crossover(ctx, c, m, holds):
    t5 = ctx.table("t5")
    ideal, ideal2 = t5.get("ideal_crossover"), t5.get("ideal_crossover_semisort")
    wins = t5.get("wins") or []
    if m is None:
        txt = "cuckoo never needs fewer bits than classic at the measured targets"
    else:
        txt = "here cuckoo needs fewer bits than classic only at FPR <= %s (targets %s)" % (
            g(m), ", ".join(g(w) for w in sorted(wins, reverse=True)))
    txt += ("; filterlab's fingerprints are 8, 12 or 16 bits, so cuckoo costs 8.5, 12.8 or 17 bits/key at full load; "
            "with any width the "
            "model (log2(1/e)+3)/0.955 crosses classic at %s, and %s with semi-sorted buckets (Fan et al. 2014)") % (
        pct(ideal), pct(ideal2))
    return txt


def why_cuckoo_formula(ctx, c, m, holds):
    ratio = ctx.facts.get("t5.cuckoo_seed_example.ratio")
    return (
        "the seed's example fills 5000 of 40000 slots (load 12.5%%); measured with 8- and 16-bit fingerprints at "
        "that load, the FPR is %s of 2b/2^f, so its f = 12 filter would show about %s, not 8/4096 = 0.002: "
        "2b/2^f is the full-table rate, the FPR is alpha*2b/2^f" % (g(ratio), g(m)))


def why_cuckoo_bound(ctx, c, m, holds):
    return ("measured FPR / (2b/2^f) = %s at load %s (mean of f = 8 and 16): the formula holds for a full table, "
            "scaled by the load") % (g(m), g(ctx.facts.get("t5.cuckoo_full_load")))


def why_summary_cuckoo(ctx, c, m, holds):
    return ("%s bits/key: at 0.1%% filterlab uses 16-bit fingerprints (12-bit ones give ~0.18%% at full load and reach "
            "0.1%% only near half load, at ~23 bits/key; 8-bit ones cannot go below ~1.6%%); 12-bit fingerprints at "
            "95.5%% load would need %s bits/key (Fan et al. 2014)") % (g(m), g(12 / 0.955))


EXPLAIN = {
    "t5.crossover": why_crossover,
    "t5.cuckoo_formula": why_cuckoo_formula,
    "t5.cuckoo_bound": why_cuckoo_bound,
    "t5.summary_bloom": numbers_only,
    "t5.summary_cuckoo": why_summary_cuckoo,
}
