"""Table 3: sizing for n = 10M at 1%, 0.1% and 0.01% (seed 003): the bytes, k and bits per
key the library picks, the seed's own formula evaluated, and the measured FPR, from
fpr_sweep sizing (data/t3_sizing.json)."""

import math

from fmt import g, mib, thousands
from models import LN2, seed_sizing
from verdicts import numbers_only

NUMBER, KEY, DATA = 3, "t3", "t3_sizing.json"


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
    for v in ("classic", "block512", "split256", "reg64", "cuckoo"):
        pts = {r["target_fpr"]: r["bits_per_key"] for r in rows if r["label"] == "library"
               and r["variant"] == v and not r.get("error")}
        if len(pts) >= 2:
            a, b = min(pts), max(pts)
            per_var_decade[v] = (pts[a] - pts[b]) / math.log10(b / a)
    ctx.tables["t3"] = {"n": n, "queries": d["queries"], "rows": rows, "formula": formula,
                        "bits_per_decade": per_var_decade}


def _formula_at(ctx, p):
    return next((r for r in ctx.table("t3").get("formula", []) if abs(r["target"] - p) < 1e-12), None)


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
}
