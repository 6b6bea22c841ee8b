"""Table 4: FPR against fill ratio (seed 003): each variant sized for n at 1% and filled to
50%-300% of n, against the seed's output and its formula (1-e^(-kn/m))^k, from fpr_sweep
fill (data/t4_fill.json)."""

import math

from fmt import g
from models import binom_consistent, seed_sizing

NUMBER, KEY, DATA = 4, "t4", "t4_fill.json"


def build(ctx, d):
    src = "data/" + DATA
    rows = [r for r in d["rows"] if not r.get("error")]
    n = d["n"]
    m, k = seed_sizing(n, 0.01)  # the seed's own setup: k = 7
    for r in rows:
        r["seed_formula"] = (1 - math.exp(-k * r["fill"] * n / m)) ** k if r["variant"] == "classic" else None
        if r["variant"] == "classic":
            ctx.fact("t4.classic.%g" % r["fill"], r["measured_fpr"], src)
            ctx.fact("t4.classic.%g.model" % r["fill"], r["seed_formula"], src)
    ctx.tables["t4"] = {"n": n, "queries": d["queries"], "rows": rows, "seed_m": m, "seed_k": k,
                        "errors": [r for r in d["rows"] if r.get("error")]}


# ---- explanations ---------------------------------------------------------------------
def _at_fill(fill):
    """The FPR measured at one fill ratio against the seed's formula and the seed's count."""
    def why(ctx, c, m, holds):
        model = ctx.facts.get("t4.classic.%g.model" % fill)
        if binom_consistent(c.value, m, c.tests or 10000):
            seed_vs = "is within its 10,000-test sampling error"
        else:
            seed_vs = "is %s than the formula by %s%%" % (
                "lower" if c.value < (model or 0) else "higher",
                g(abs(c.value - model) / model * 100 if model else 0, 2))
        return ("%s measured (%d queries); the seed's own formula (1-e^(-kn/m))^k gives %s at %d%% fill; "
                "the seed's %s %s") % (
            g(m), ctx.table("t4").get("queries", 0), g(model), round(fill * 100), g(c.value), seed_vs)
    return why


# the seed's claims: its program's FPR at each fill ratio
FILLS = {"t4.fill50": 0.5, "t4.fill100": 1.0, "t4.fill150": 1.5, "t4.fill200": 2.0, "t4.fill300": 3.0}
EXPLAIN = {cid: _at_fill(fill) for cid, fill in FILLS.items()}


def seed_by_fill(claims):
    """{fill ratio: the seed's FPR} from tables.json's claims, for the report and the plot."""
    return {FILLS[c["id"]]: c["seed_value"] for c in claims if c["id"] in FILLS}
