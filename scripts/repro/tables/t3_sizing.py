"""Table 3: sizing for n = 10M at 1%, 0.1% and 0.01% (seed 003): the bytes, k and bits per
key the library picks, the seed's own formula evaluated, and the measured FPR, from
fpr_sweep sizing (data/t3_sizing.json)."""

import math

from context import VARIANTS
from fmt import g, mib, thousands
from models import LN2, seed_sizing
from verdicts import numbers_only

NUMBER, KEY, DATA = 3, "t3", "t3_sizing.json"
EXPERIMENT = ("t3", "table 3: sizing for n keys at 1%, 0.1%, 0.01%")
SETTINGS = {"quick": dict(t3_n=10_000_000, t3_queries=4_000_000),
            "full": dict(t3_n=10_000_000, t3_queries=50_000_000),
            "tiny": dict(t3_n=200_000, t3_queries=200_000)}
SIZING_TARGETS = [0.01, 0.001, 0.0001]

SECTION = dict(
    heading=lambda t: "sizing for n = %s at 1%%, 0.1%%, 0.01%%" % (thousands(t["n"]) if t else "10M"),
    sources="Source: `data/t3_sizing.json`.")


def experiment(r):
    c = r.cfg
    r.fpr_sweep("t3_sizing", ["sizing", "--n", str(c["t3_n"]), "--targets",
                               ",".join(map(repr, SIZING_TARGETS)),
                               "--queries", str(c["t3_queries"])])


def build(ctx, d):
    src = "data/" + DATA
    n = d["n"]
    rows = [r for r in d["rows"]]
    classic_bpk = {}
    for r in rows:
        if r.get("error"):
            continue
        p = r["target_fpr"]
        if r["label"] == "library" and r["variant"] == "classic":
            key = "t3.classic.%g" % p
            ctx.fact(key + ".mib", mib(r["bytes"]), src)
            ctx.fact(key + ".k", r["k"], src)
            ctx.fact(key + ".bpk", r["bits_per_key"], src)
            ctx.fact(key + ".measured", r["measured_fpr"], src)
            classic_bpk[p] = r["bits_per_key"]
    formula = []
    for p in sorted({r["target_fpr"] for r in rows if r["label"] == "library"}, reverse=True):
        m, k_ceil = seed_sizing(n, p)
        formula.append({"target": p, "m_bits": m, "mib": m / 8 / 1048576,
                        "k_ceil": k_ceil, "k_round": round(m / n * LN2),
                        "bpk": m / n})
    ps = sorted(classic_bpk)
    if len(ps) >= 2:
        decades = math.log10(ps[-1] / ps[0])
        ctx.fact("t3.classic.bits_per_decade",
                 (classic_bpk[ps[0]] - classic_bpk[ps[-1]]) / decades if decades else None, src)
    per_var_decade = {}
    for v in VARIANTS:
        pts = {r["target_fpr"]: r["bits_per_key"] for r in rows if r["label"] == "library"
               and r["variant"] == v and not r.get("error")}
        if len(pts) >= 2:
            a, b = min(pts), max(pts)
            per_var_decade[v] = (pts[a] - pts[b]) / math.log10(b / a)
    ctx.tables["t3"] = {"n": n, "queries": d["queries"], "rows": rows, "formula": formula,
                        "bits_per_decade": per_var_decade}
    _other_sizes(ctx, n, classic_bpk, src)


def _other_sizes(ctx, n, classic_bpk, src):
    """The seeds' other sizes, from the bits per key the library picks here (the ratio m/n
    does not depend on n past a few thousand keys) and the seeds' own formulas."""
    msrc = "scripts/repro/models.py (the seed's sizing)"
    ctx.fact("t3.seed_code.0.0001.k", seed_sizing(n, 1e-4)[1], msrc)
    # 004 Listing 4.9: numBits <- -ceil(n ln p / ln 2 / ln 2), numHashFunctions <- -ceil(ln p / ln 2):
    # ceil of a negative number, negated, rounds both toward zero; its FPR by the chapter's
    # formula (1 - e^(-kn/m))^k at the default maxTolerance 0.01
    p = 0.01
    m49 = -math.ceil(n * math.log(p) / LN2 / LN2)
    k49 = -math.ceil(math.log(p) / LN2)
    ctx.fact("t3.listing49.fpr", (1 - math.exp(-k49 * n / m49)) ** k49, msrc)
    ctx.fact("t3.listing49.k", k49, msrc)
    ctx.fact("t3.listing49.bpk", m49 / n, msrc)
    if 0.01 in classic_bpk:
        ctx.fact("t3.n1m.mib", classic_bpk[0.01] * 1e6 / 8 / 1048576, src)
        ctx.fact("t3.n1m.bytes", classic_bpk[0.01] * 1e6 / 8, src)
        ctx.fact("t3.n1e10.0.01.gib", classic_bpk[0.01] * 1e10 / 8 / 1024 ** 3, src)
    if 0.001 in classic_bpk:
        ctx.fact("t3.n1e9.0.001.bytes", classic_bpk[0.001] * 1e9 / 8, src)
        ctx.fact("t3.n1e10.0.001.gib", classic_bpk[0.001] * 1e10 / 8 / 1024 ** 3, src)
    # 003 9.4: the URLs a crawler skips among 1e9 when its filter has 10 bits per URL, the
    # FPR table 2 measured at 10 bits per URL
    fpr10 = ctx.facts.get("t2.classic.fpr")
    ctx.fact("t3.skipped_1e9_at_10bits", 1e9 * fpr10 if fpr10 is not None else None, "data/t2_crawler.json")


def _formula_at(ctx, p):
    return next((r for r in ctx.table("t3").get("formula", []) if abs(r["target"] - p) < 1e-12), None)


def report(page, t3):
    page.w("`fpr_sweep sizing`: every variant sized by `fl_params_for`, built with n integer keys and "
           "measured on %s never-inserted keys. `seed k` is classic with the seed's k = ceil((m/n) ln 2); "
           "`same FPR as classic` is each blocked variant sized for the FPR the classic filter really "
           "measured: the bits per key it needs for the same measured FPR." % "{:,}".format(t3["queries"]))
    page.w()
    rows = []
    for r in t3["rows"]:
        label = {"library": "fl_params_for", "seed_k_ceil": "seed k", "match_classic": "same FPR as classic"}[r["label"]]
        if r.get("error"):
            rows.append([g(r["target_fpr"]), r["variant"], label, "-", "-", "-", "-", "-", r["error"]])
            continue
        rows.append([g(r["target_fpr"]), r["variant"], label, r["k"], g(r["bytes"] / 1048576, 4),
                     g(r["bits_per_key"], 4), g(r["predicted_fpr"]), g(r["measured_fpr"]),
                     "{:,}".format(r["false_positives"])])
    page.table(["target", "variant", "sizing", "k", "MiB", "bits/key", "predicted FPR",
                "measured FPR", "false positives"], rows, ["r", "l", "l"] + ["r"] * 6)
    page.w("The seed's formula evaluated here: " + "; ".join(
        "%s: m = %s bits = %s MiB, k = %d (round) / %d (ceil)" % (
            g(f["target"]), "{:,}".format(f["m_bits"]), g(f["mib"], 4), f["k_round"], f["k_ceil"])
        for f in t3["formula"]) + ". Bits per key per 10x lower FPR: " + ", ".join(
        "%s %s" % (v, g(b)) for v, b in t3["bits_per_decade"].items()) + ".")
    page.w()


CSVS = (
    ("t3_sizing.csv", lambda t: (t["rows"], [
        "label", "variant", "target_fpr", "n", "k", "units", "bytes", "bits_per_key",
        "predicted_fpr", "measured_fpr", "false_positives", "queries", "error"])),
)


# ---- explanations ---------------------------------------------------------------------
def why_p3_k(ctx, c, m, holds):
    row = _formula_at(ctx, 1e-4)
    seedk = next((r for r in ctx.table("t3").get("rows", []) if r.get("label") == "seed_k_ceil"
                  and abs(r["target_fpr"] - 1e-4) < 1e-12 and not r.get("error")), None)
    lib = ctx.facts.get("t3.classic.0.0001.measured")
    if not row:
        return None
    txt = "(m/n) ln 2 = %s: the library rounds to %d, the seed's code rounds up (math.ceil) to %d" % (
        g(row["bpk"] * LN2, 4), row["k_round"], row["k_ceil"])
    if seedk and lib is not None:
        txt += "; measured FPR with k = %d: %s, with k = %d: %s" % (
            row["k_round"], g(lib), seedk["k"], g(seedk["measured_fpr"]))
    return txt


def _bits_for(p):
    def why(ctx, c, m, holds):
        return ("a classic filter at %s needs %s bits per key (the library's sizing, = 1.44 log2(1/p)); "
                "10 bits per key give %s (table 2, measured)") % (
            g(p), g(m), g(ctx.facts.get("t2.classic.fpr")))
    return why


def why_crawler_memory(ctx, c, m, holds):
    return ("1e9 URLs at 0.1%%: %s bits per URL, %s GB; 10 bits per URL (1.25 GB) give %s measured" % (
        g(ctx.facts.get("t3.classic.0.001.bpk")), g(m / 1e9), g(ctx.facts.get("t2.classic.fpr"))))


def why_skipped(ctx, c, m, holds):
    return "1e9 x %s (the FPR measured at 10 bits per URL, table 2) = %s URLs skipped" % (
        g(ctx.facts.get("t2.classic.fpr")), g(m))


def _interview(p):
    def why(ctx, c, m, holds):
        return ("1e10 URLs at %s: %s bits per URL (the library's sizing, the seed's formula) / 8 / 1024^3 = %s GiB; "
                "the seed's own code prints that too: its %s is bytes / 1e9 or a slip" % (
                    g(p), g(ctx.facts.get("t3.classic.%g.bpk" % p)), g(m), g(c.value)))
    return why


def why_listing49(ctx, c, m, holds):
    return ("Listing 4.9 rounds both toward zero (-ceil of a negative number): k = %d, %s bits per key, where "
            "(m/n) ln 2 = %s; the chapter's formula (1 - e^(-kn/m))^k gives %s at n = maxSize" % (
                ctx.facts.get("t3.listing49.k"), g(ctx.facts.get("t3.listing49.bpk"), 4),
                g(ctx.facts.get("t3.listing49.bpk", 0) * LN2, 4), g(m, 4)))


def _bytes(p):
    """The size the library picks at target p against the seed's printed size and its formula."""
    def why(ctx, c, m, holds):
        row = _formula_at(ctx, p)
        if not row:
            return None
        return ("%s MiB here (%s bytes); the seed's own formula gives m = %s bits = %s MiB, so its printed %s is "
                "off by %s MiB") % (
            g(m, 4), thousands(round(m * 1048576)), thousands(row["m_bits"]), g(row["mib"], 4),
            g(c.value, 4), g(c.value - row["mib"], 2))
    return why


EXPLAIN = {
    "t3.p1.bytes": _bytes(0.01),
    "t3.p1.k": numbers_only,
    "t3.p1.bpk": numbers_only,
    "t3.p2.bytes": _bytes(0.001),
    "t3.p2.k": numbers_only,
    "t3.p2.bpk": numbers_only,
    "t3.p3.bytes": _bytes(0.0001),
    "t3.p3.k": why_p3_k,
    "t3.p3.bpk": numbers_only,
    "t3.decade_rule": numbers_only,
    "t3.p92_mib": numbers_only,
    "t3.example_1m": numbers_only,
    "t3.opening_bits": _bits_for(0.001),
    "t3.crawler_memory": why_crawler_memory,
    "t3.crawler_skipped": why_skipped,
    "t3.interview_01pct": _interview(0.001),
    "t3.interview_1pct": _interview(0.01),
    "t3.listing49": why_listing49,
}
