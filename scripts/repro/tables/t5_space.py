"""Table 5: Bloom vs cuckoo space at equal FPR, and cuckoo FPR against 2b/2^f (seed 003):
bits per key of every variant sized by the library at each target (data/t5_space.json, label
"library"), Fan et al.'s ideal cuckoo model beside them; the filters that delete (label
"deletes": cuckoo at each fingerprint width, counting, counting512) as bits per key against
log2(1/measured FPR); and the cuckoo filter's FPR at each load and width
(data/t5_cuckoo.json)."""

import math

from fmt import g, pct
from models import cuckoo_crossover, ideal_cuckoo_bpk
from rundata import load_csv, load_json
from verdicts import numbers_only

NUMBER, KEY, DATA = 5, "t5", "t5_space.json"

# the filters that delete, as the deletes table's columns: (column, variant, fingerprint bits)
DELETES = (("cuckoo8", "cuckoo", 8), ("cuckoo12", "cuckoo", 12), ("cuckoo16", "cuckoo", 16),
           ("counting", "counting", None), ("counting512", "counting512", None))
# the fingerprint width of seed 003's example (fingerprint_bits=12): its cuckoo claims are
# judged on the 12-bit filter where the seed names that configuration
SEED_WIDTH = 12


def library_rows(d):
    """The rows sized by fl_params_for (files before the deletes rows have no label)."""
    return [r for r in d["rows"] if r.get("label", "library") == "library"]


def deletes_table(ctx, d, src):
    """Per target, each filter that deletes: bits per key, measured FPR, log2(1/measured FPR)."""
    out = []
    for t in sorted({r["target_fpr"] for r in d["rows"]}, reverse=True):
        pr = {"target": t, "bound": math.log2(1 / t)}
        for col, v, f in DELETES:
            r = next((r for r in d["rows"] if r.get("label") == "deletes" and r["target_fpr"] == t
                      and r["variant"] == v and (f is None or r.get("fingerprint_bits") == f)), None)
            if r is None:
                continue
            if r.get("error"):
                pr[col] = {"error": r["error"]}
                continue
            c = {"bpk": r["bits_per_key"], "measured": r["measured_fpr"], "fp": r["false_positives"],
                 "k": r["k"], "bytes": r["bytes"], "load": r.get("load")}
            c["bound_measured"] = math.log2(1 / r["measured_fpr"]) if r["false_positives"] else None
            pr[col] = c
            ctx.fact("t5.%s.%g.bpk" % (col, t), c["bpk"], src)
            ctx.fact("t5.%s.%g.measured" % (col, t), c["measured"], src)
            if c["load"] is not None:
                ctx.fact("t5.%s.%g.load" % (col, t), c["load"], src)
        out.append(pr)
    # each width at the library's sizing load (its fullest row): the cheapest point of its line
    for col, v, f in DELETES[:3]:
        full = [p[col] for p in out if "bpk" in p.get(col, {})]
        if full:
            best = max(full, key=lambda c: (c["load"], -c["bpk"]))
            ctx.fact("t5.%s.full.bpk" % col, best["bpk"], src)
            ctx.fact("t5.%s.full.measured" % col, best["measured"], src)
            ctx.fact("t5.%s.full.load" % col, best["load"], src)
    return out


def delete_speed(ctx):
    """ns per delete of each filter that deletes, per filter size, from table 8's flbench sweep
    at 1% (data/t8_sweep.csv, op "delete"): fl_delete_hash one key at a time, the same code
    under every kernel, so each size's figure is the median over the kernels' medians."""
    _, rows = load_csv(ctx.out, "t8_sweep.csv")
    cells = {}
    for r in rows:
        if r.get("op") != "delete" or not r.get("ns_per_op_median"):
            continue
        # grouped by the size asked for: cuckoo's 6-byte buckets leave a few bytes of it unused
        key = (r["filter"], int(float(r["target_bytes"])))
        c = cells.setdefault(key, {"filter": r["filter"], "target_bytes": key[1],
                                   "filter_bytes": int(float(r["filter_bytes"])),
                                   "bits_per_key": float(r["bits_per_key"]), "ns": []})
        c["ns"].append(float(r["ns_per_op_median"]))
    out = []
    for key in sorted(cells, key=lambda k: (k[1], k[0])):
        c = cells[key]
        xs = sorted(c.pop("ns"))
        c["ns_per_delete"] = xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2
        c["kernels"] = len(xs)
        c["class"] = ctx.size_class(c["target_bytes"])
        ctx.fact("t5.%s.%d.ns_per_delete" % key, c["ns_per_delete"], "data/t8_sweep.csv")
        out.append(c)
    return out


def build(ctx, d):
    src = "data/" + DATA
    rows = library_rows(d)
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
                                    "fp": r["false_positives"], "k": r["k"], "bytes": r["bytes"],
                                    "load": r.get("load")}
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
            ctx.fact("t5.cuckoo.%g.width" % t, pr["cuckoo"]["k"], src)
            ctx.fact("t5.cuckoo.%g.measured" % t, pr["cuckoo"]["measured"], src)
    wins = [p["target"] for p in pivot if p.get("cuckoo_wins")]
    ctx.fact("t5.crossover", max(wins) if wins else None, src)
    # the published models (Fan et al. 2014 sec. 5.2, semi-sorted buckets: log2(1/e) + 2 bits
    # per entry at 95.5% load) the cuckoo claims are also judged on
    msrc = "scripts/repro/models.py (Fan et al. 2014)"
    ctx.fact("t5.crossover.semisorted", cuckoo_crossover(2.0), msrc)
    ctx.fact("t5.cuckoo.0.001.model_bpk", ideal_cuckoo_bpk(0.001, 2.0), msrc)
    t5 = ctx.tables["t5"] = {"n": d["n"], "queries": d["queries"], "pivot": pivot, "wins": wins,
                             "ideal_crossover": cuckoo_crossover(3.0),
                             "ideal_crossover_semisort": cuckoo_crossover(2.0),
                             "deletes": deletes_table(ctx, d, src), "delete_speed": delete_speed(ctx)}
    # cuckoo FPR against 2b/2^f
    dc = load_json(ctx.out, "t5_cuckoo.json")
    if dc:
        crow = [r for r in dc["rows"] if not r.get("error")]
        for r in crow:
            r["ratio_to_2b_2f"] = r["measured_fpr"] / r["formula_2b_over_2f"]
        t5["cuckoo"] = crow
        t5["cuckoo_buckets"] = crow[0]["units"] if crow else None
        t5["cuckoo_queries"] = dc["queries"]
        srcc = "data/t5_cuckoo.json"

        def at(load, f):
            return next((r for r in crow if abs(r["load_wanted"] - load) < 1e-9
                         and r["fingerprint_bits"] == f), None)
        # the seed's example: f = 12, b = 4, 5000 keys in 10000 buckets (load 0.125), measured
        # as it is; its false positives and queries go to the verdict's test of two counts
        lo = at(0.125, SEED_WIDTH)
        if lo:
            ctx.fact("t5.cuckoo_seed_example", lo["measured_fpr"], srcc)
            ctx.fact("t5.cuckoo_seed_example.queries", lo["queries"], srcc)
            ctx.fact("t5.cuckoo_seed_example.ratio", lo["ratio_to_2b_2f"], srcc)
            ctx.fact("t5.cuckoo_seed_example.load", lo["load"], srcc)
        # the formula at the library's full load, judged on the seed's width; the others shown
        for f in sorted({r["fingerprint_bits"] for r in crow}):
            hi = at(0.94, f)
            if not hi:
                continue
            key = "t5.cuckoo_full_ratio" + ("" if f == SEED_WIDTH else ".f%d" % f)
            ctx.fact(key, hi["ratio_to_2b_2f"], srcc)
            # a Poisson count's relative standard error, 1/sqrt(false positives)
            ctx.fact(key + ".se", hi["ratio_to_2b_2f"] / math.sqrt(max(hi["false_positives"], 1)), srcc)
            if f == SEED_WIDTH:
                ctx.fact("t5.cuckoo_full_load", hi["load"], srcc)


# ---- explanations ---------------------------------------------------------------------
def _widths_at_full_load(ctx):
    """"8-bit 8.51 bits/key at 2.9%, ..." from the deletes rows (each width's cheapest point)."""
    parts = []
    for col, _, f in DELETES[:3]:
        b, m = ctx.facts.get("t5.%s.full.bpk" % col), ctx.facts.get("t5.%s.full.measured" % col)
        if b is not None:
            parts.append("%d bits %s bits/key at %s" % (f, g(b), pct(m)))
    return ", ".join(parts)


def why_crossover(ctx, c, m, holds):
    t5 = ctx.table("t5")
    ideal, ideal2 = t5.get("ideal_crossover"), t5.get("ideal_crossover_semisort")
    wins = t5.get("wins") or []
    if m is None:
        txt = "cuckoo never needs fewer bits than classic at the measured targets"
    else:
        txt = "here cuckoo (the width fl_params_for picks: 8, 12 or 16 bits) needs fewer bits than classic only at " \
              "FPR <= %s (targets %s)" % (g(m), ", ".join(g(w) for w in sorted(wins, reverse=True)))
    full = _widths_at_full_load(ctx)
    if full:
        txt += "; at the library's sizing load the widths measure %s" % full
    txt += ("; with any width the model (log2(1/e)+3)/0.955 crosses classic at %s, and %s with semi-sorted "
            "buckets (Fan et al. 2014)") % (pct(ideal), pct(ideal2))
    return txt


def why_cuckoo_formula(ctx, c, m, holds):
    ratio = ctx.facts.get("t5.cuckoo_seed_example.ratio")
    load = ctx.facts.get("t5.cuckoo_seed_example.load")
    return (
        "the seed's example fills 5000 of 40000 slots; measured with its configuration (12-bit fingerprints, "
        "buckets of 4, load %s), the FPR is %s, %s of 2b/2^f = 8/4096: 2b/2^f is the full-table rate, the FPR "
        "is about load x 2b/2^f" % (g(load), g(m), g(ratio)))


def why_cuckoo_bound(ctx, c, m, holds):
    others = ", ".join("f = %d: %s" % (f, g(ctx.facts["t5.cuckoo_full_ratio.f%d" % f]))
                       for f in (8, 16) if "t5.cuckoo_full_ratio.f%d" % f in ctx.facts)
    return ("measured FPR / (2b/2^f) = %s with 12-bit fingerprints (the seed's width) at load %s%s: the formula "
            "holds for a full table, scaled by the load") % (
        g(m), g(ctx.facts.get("t5.cuckoo_full_load")), (" (%s)" % others) if others else "")


def why_summary_cuckoo(ctx, c, m, holds):
    f = ctx.facts.get("t5.cuckoo.0.001.width")
    txt = "%s bits/key: at 0.1%% the fewest bytes take %s-bit fingerprints (measured %s)" % (
        g(m), "?" if f is None else "%d" % f, pct(ctx.facts.get("t5.cuckoo.0.001.measured")))
    b12, m12 = ctx.facts.get("t5.cuckoo12.full.bpk"), ctx.facts.get("t5.cuckoo12.full.measured")
    if b12 is not None:
        txt += "; 12-bit fingerprints (the seed's width) measure %s at %s bits/key (load %s)" % (
            pct(m12), g(b12), g(ctx.facts.get("t5.cuckoo12.full.load")))
        b = ctx.facts.get("t5.cuckoo12.0.001.bpk")
        if b is not None:
            txt += " and meet 0.1%% only at load %s, %s bits/key (measured %s)" % (
                g(ctx.facts.get("t5.cuckoo12.0.001.load")), g(b), pct(ctx.facts.get("t5.cuckoo12.0.001.measured")))
    if "t5.cuckoo8.0.001.bpk" not in ctx.facts:
        txt += "; 8-bit ones cannot reach 0.1% above load 0.5"
    return txt + "; 12-bit fingerprints at 95.5%% load would need %s bits/key (Fan et al. 2014)" % g(12 / 0.955)


EXPLAIN = {
    "t5.crossover": why_crossover,
    "t5.cuckoo_formula": why_cuckoo_formula,
    "t5.cuckoo_bound": why_cuckoo_bound,
    "t5.summary_cuckoo": why_summary_cuckoo,
    "t5.summary_bloom": numbers_only,
}
