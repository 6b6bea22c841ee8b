"""Table 4: FPR against fill ratio (seed 003): each variant sized for n at 1% and filled to
50%-300% of n, against the seed's output and its formula (1-e^(-kn/m))^k, from fpr_sweep
fill (data/t4_fill.json)."""

import math

from context import VARIANTS
from fmt import g
from models import seed_sizing
from plotting import COLORS, axis_labels, plt, save_figure
from rundata import load_json

NUMBER, KEY, DATA = 4, "t4", "t4_fill.json"
EXPERIMENT = ("t4", "table 4: FPR against fill ratio")
SETTINGS = {"quick": dict(t4_n=1_000_000, t4_queries=2_000_000),
            "full": dict(t4_n=1_000_000, t4_queries=20_000_000),
            "tiny": dict(t4_n=20_000, t4_queries=100_000)}
FILL_RATIOS = [0.5, 1.0, 1.5, 2.0, 3.0]

SECTION = dict(heading="FPR against fill ratio", sources="Source: `data/t4_fill.json`.",
               figure="FPR against fill ratio")
FIGURES = ("t4_fpr_vs_fill",)


def experiment(r):
    c = r.cfg
    r.fpr_sweep("t4_fill", ["fill", "--n", str(c["t4_n"]), "--fpr", "0.01", "--fills",
                             ",".join(map(repr, FILL_RATIOS)), "--queries", str(c["t4_queries"])])


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
            ctx.fact("t4.classic.%g.queries" % r["fill"], d["queries"], src)
    # 003 9.2: its 1M-key, 1% filter after only 100K inserts, by the seed's own formula (no
    # filterlab run: the point is the seed's printed "approximately 0.0001")
    ctx.fact("t4.fill10.model", (1 - math.exp(-k * 0.1 * n / m)) ** k, "scripts/repro/models.py (the seed's formula)")
    ctx.tables["t4"] = {"hashing": _hashing(ctx), "n": n, "queries": d["queries"], "rows": rows, "seed_m": m, "seed_k": k,
                        "errors": [r for r in d["rows"] if r.get("error")]}


def _hashing(ctx):
    """003 9.17 Pitfall 2 (data/py_claims.json from pyexp.py): the FPR of one filter design with
    its k positions from k independent hashes, from double hashing, and from the seed's
    bad_hash (hash + i); the ratios to independent hashing, with the standard error of a ratio
    of two Poisson counts, r sqrt(1/a + 1/b)."""
    h = (load_json(ctx.out, "py_claims.json") or {}).get("hashing")
    if not h:
        return None
    src = "data/py_claims.json"
    s = h["schemes"]
    ind = s["independent"]
    for scheme in ("double", "offset"):
        x = s[scheme]
        if ind["fpr"] and x["false_positives"]:
            r = x["fpr"] / ind["fpr"]
            ctx.fact("t4.hashing.%s_ratio" % scheme, r, src)
            ctx.fact("t4.hashing.%s_ratio.se" % scheme, r * math.sqrt(
                1 / x["false_positives"] + 1 / max(ind["false_positives"], 1)), src)
    return h


def report(page, t4):
    page.w("`fpr_sweep fill`: each variant sized for n = %s at 1%%, filled to 50%%-300%% of n, %s "
           "never-inserted queries per point. The seed column is 003's output (10,000 tests, n = 10,000); "
           "its formula column is (1-e^(-kn/m))^k with the seed's own m and k = %d." % (
               "{:,}".format(t4["n"]), "{:,}".format(t4["queries"]), t4["seed_k"]))
    page.w()
    fills = sorted({r["fill"] for r in t4["rows"]})
    seed = seed_by_fill(page.T["claims"])
    rows = []
    for f in fills:
        row = ["%d%%" % round(f * 100), g(seed.get(f))]
        cl = next((r for r in t4["rows"] if r["variant"] == "classic" and r["fill"] == f), None)
        row.append(g(cl["seed_formula"]) if cl else "-")
        for v in VARIANTS:
            r = next((r for r in t4["rows"] if r["variant"] == v and r["fill"] == f), None)
            row.append(("%s%s" % (g(r["measured_fpr"]), " (full at %s)" % "{:,}".format(r["inserted"]) if r["full"] else ""))
                       if r else "-")
        rows.append(row)
    page.table(["fill", "seed", "seed formula"] + list(VARIANTS), rows)


CSVS = (
    ("t4_fill.csv", lambda t: (t["rows"], [
        "variant", "fill", "inserted", "full", "k", "bytes", "predicted_fpr", "measured_fpr",
        "seed_formula", "false_positives", "queries"])),
)


def figure(t4, out, stamp, caches, claims):
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for v in VARIANTS:
        pts = sorted((r["fill"], r["measured_fpr"], r["predicted_fpr"]) for r in t4["rows"] if r["variant"] == v)
        if not pts:
            continue
        ax.plot([p[0] for p in pts], [max(p[1], 1e-7) for p in pts], "o-", color=COLORS[v], label=v, ms=3)
        ax.plot([p[0] for p in pts], [p[2] for p in pts], ":", color=COLORS[v], lw=1)
    seed = seed_by_fill(claims)
    ax.plot(list(seed), list(seed.values()), "kx", label="seed 003, 9.17", ms=7)
    axis_labels(ax, "fill ratio (keys inserted / design n)", "false positive rate (dotted: model)",
                "Table 4: FPR against fill, sized for n = %d at 1%%" % t4["n"], legend=7, log="y")
    return save_figure(fig, out, "t4_fpr_vs_fill", "FPR against fill ratio", stamp)


# ---- explanations ---------------------------------------------------------------------
def _at_fill(fill):
    """The FPR measured at one fill ratio against the seed's formula and the seed's count."""
    def why(ctx, c, m, holds):
        model = ctx.facts.get("t4.classic.%g.model" % fill)
        if holds:
            seed_vs = "is a plausible count at its %s tests" % "{:,}".format(c.tests or 0)
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


def why_fill10(ctx, c, m, holds):
    return ("the seed's own filter (1M keys at 1%%, k = 7) after 100K inserts: (1 - e^(-k n/m))^k = %s, so its "
            "100,000 tests would see about %s false positives, not %d" % (
                g(m), g(m * (c.tests or 0)), round(c.value * (c.tests or 0))))


def _why_hashing(scheme):
    def why(ctx, c, m, holds):
        h = ctx.table("t4").get("hashing") or {}
        s = h.get("schemes", {})
        txt = ("m = %d bits, k = %d, n = %d keys, %d filters x %s queries: FPR with k independent hashes %s, "
               "double hashing (h1 + i h2) mod m %s, the seed's bad_hash (h + i) mod m %s; %s / independent = %s" % (
                   h.get("m", 0), h.get("k", 0), h.get("n", 0), h.get("filters", 0),
                   "{:,}".format(h.get("queries_per_filter", 0)),
                   g(s.get("independent", {}).get("fpr")), g(s.get("double", {}).get("fpr")),
                   g(s.get("offset", {}).get("fpr")), scheme, g(m)))
        if scheme == "double":
            txt += ("; Kirsch and Mitzenmacher's result is asymptotic, and with m = %d (not prime) h2 shares a "
                    "factor with m for most keys, which shortens the cycle of positions" % h.get("m", 0))
        return txt
    return why


EXPLAIN = {cid: _at_fill(fill) for cid, fill in FILLS.items()}
EXPLAIN.update({"t4.fill10": why_fill10, "t4.double_hashing": _why_hashing("double"),
                "t4.offset_hashing": _why_hashing("offset")})


def seed_by_fill(claims):
    """{fill ratio: the seed's FPR} from tables.json's claims, for the report and the plot."""
    return {FILLS[c["id"]]: c["seed_value"] for c in claims if c["id"] in FILLS}
