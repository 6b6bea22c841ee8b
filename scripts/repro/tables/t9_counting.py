"""Table 9: counting Bloom filters (seeds 000, 002, 003): memory against the Bloom filter of
the same n and FPR, FPR against fill, and how often a 4-bit counter saturates against Fan et
al.'s bound (flaccuracy --sections counting: data/t9_counting.json)."""

from accuracy_experiment import flaccuracy_section
from fmt import g
from models import LN2, counters_at_least, fan_overflow_bound
from plotting import SKETCH_COLORS, axis_labels, plt, save_figure

NUMBER, KEY, DATA = 9, "t9", "t9_counting.json"
EXPERIMENT = ("t9", "table 9: counting Bloom memory, FPR against fill, counter overflow (flaccuracy)")
SETTINGS, experiment = flaccuracy_section(
    "t9", "counting", DATA, quick="--counting-n 1e6 --counting-queries 1e6 --overflow-n 1e5 --overflow-trials 5",
    full="--counting-n 1e7 --counting-queries 1e7 --overflow-n 1e6 --overflow-trials 20",
    tiny="--counting-n 1e5 --counting-queries 1e5 --overflow-n 1e4 --overflow-trials 3")
# "4 bits are enough" judged for a large filter: 1e9 counters at the optimal k for 1%
BITS_M, BITS_K, BITS_RISK = 1e9, 7, 0.01
SECTION = dict(heading="counting Bloom filters: memory, FPR against fill, counter overflow",
               sources="Source: `data/t9_counting.json`.", figure="FPR against fill; counters at 15 against fill")
FIGURES = ("t9_counting",)


def bits_needed(m=BITS_M, k=BITS_K, risk=BITS_RISK):
    """The narrowest counter (bits) whose Fan et al. bound on any counter overflowing, for m
    counters loaded at the optimal n = m ln 2 / k, is below `risk`."""
    n = m * LN2 / k
    for b in range(1, 9):
        if fan_overflow_bound(m, n, k, 2 ** b) < risk:
            return b
    return None


def build(ctx, d):
    src = "data/" + DATA
    c = d["counting"]
    mem = {r["variant"]: r for r in c["memory"]}
    ratio = mem["counting"]["bytes"] / mem["classic"]["bytes"]
    ratio_blocked = mem["counting512"]["bytes"] / mem["block512"]["bytes"]
    ctx.fact("t9.memory_ratio", ratio, src)
    ctx.fact("t9.memory_ratio_blocked", ratio_blocked, src)
    ctx.fact("t9.bits_needed", bits_needed(), "scripts/repro/models.py (Fan et al. 2000)")
    overflow = []
    for r in c["overflow"]:
        r = dict(r)
        # expected counters at 15 or more if increments were uniform over counters (the
        # classic layout's model; counting512 loads its lines unevenly and sees more)
        r["expected_saturated"] = counters_at_least(r["counters"], r["keys"], r["k"], 15)
        overflow.append(r)
    at1 = [r for r in overflow if r["fill"] == 1]
    trials = sum(r["trials"] for r in at1)
    with_sat = sum(r["trials_with_saturation"] for r in at1)
    ctx.fact("t9.saturated_fraction_fill1", with_sat / trials if trials else None, src)
    ctx.tables["t9"] = {"memory": c["memory"], "ratio": ratio, "ratio_blocked": ratio_blocked,
                        "fill": c["fill"], "overflow": overflow, "trials_fill1": trials,
                        "bits_m": BITS_M, "bits_k": BITS_K, "bits_risk": BITS_RISK,
                        "bound_by_bits": {b: fan_overflow_bound(BITS_M, BITS_M * LN2 / BITS_K, BITS_K, 2 ** b)
                                          for b in (2, 3, 4, 5)}}


def report(page, t):
    page.w("`flaccuracy --sections counting`: payload bytes at equal n and 1% FPR, FPR against fill (never-inserted "
           "queries), and 4-bit counters that reached 15 (where filterlab stops counting and never decrements) "
           "against the expected count from the binomial load and Fan et al.'s bound on any counter reaching 16.")
    page.w()
    page.table(["variant", "n", "k", "bytes", "bits per key"],
               [[m["variant"], "{:,}".format(m["n"]), m["k"], "{:,}".format(m["bytes"]), g(m["bits_per_key"])]
                for m in t["memory"]])
    fills = sorted({f["fill"] for f in t["fill"]})
    variants = []
    for f in t["fill"]:
        if f["variant"] not in variants:
            variants.append(f["variant"])
    rows = []
    for fi in fills:
        row = ["%d%%" % round(fi * 100)]
        for v in variants:
            x = next((f for f in t["fill"] if f["variant"] == v and f["fill"] == fi), None)
            row.append("%s (model %s)" % (g(x["measured_fpr"]), g(x["predicted_fpr"])) if x else "-")
        rows.append(row)
    page.table(["fill"] + variants, rows)
    page.table(["variant", "fill", "keys", "counters", "k", "filters", "with a counter at 15",
                "mean at 15", "expected (binomial)", "Fan et al. bound (16)"],
               [[o["variant"], g(o["fill"]), "{:,}".format(o["keys"]), "{:,}".format(o["counters"]), o["k"],
                 o["trials"], o["trials_with_saturation"], g(o["mean_saturated"]), g(o["expected_saturated"]),
                 g(o["fan_bound"])] for o in t["overflow"]])


CSVS = (
    ("t9_counting_fill.csv", lambda t: (t["fill"], [
        "variant", "fill", "keys", "bytes", "k", "predicted_fpr", "measured_fpr", "false_positives", "queries",
        "saturated"])),
    ("t9_counting_overflow.csv", lambda t: (t["overflow"], [
        "variant", "fill", "keys", "counters", "k", "trials", "trials_with_saturation", "mean_saturated",
        "max_saturated", "expected_saturated", "fan_bound"])),
)


def figure(t, out, stamp, caches, claims):
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.6))
    for v in SKETCH_COLORS:
        pts = sorted((r["fill"], r["measured_fpr"], r["predicted_fpr"]) for r in t["fill"] if r["variant"] == v)
        if pts:
            a.plot([p[0] for p in pts], [max(p[1], 1e-7) for p in pts], "o-", color=SKETCH_COLORS[v], label=v, ms=3)
            a.plot([p[0] for p in pts], [p[2] for p in pts], ":", color=SKETCH_COLORS[v], lw=1)
    axis_labels(a, "fill (keys / design n)", "FPR (dotted: model)", "Counting Bloom FPR against fill, 1% design",
                legend=7, log="y")
    for v in ("counting", "counting512"):
        pts = sorted((r["fill"], r["mean_saturated"], r["expected_saturated"]) for r in t["overflow"]
                     if r["variant"] == v)
        if pts:
            b.plot([p[0] for p in pts], [max(p[1], 0.01) for p in pts], "o-", color=SKETCH_COLORS[v],
                   label=v + " measured", ms=3)
    pts = sorted((r["fill"], r["expected_saturated"]) for r in t["overflow"] if r["variant"] == "counting")
    b.plot([p[0] for p in pts], [max(p[1], 1e-6) for p in pts], "k:", label="binomial expectation (classic)")
    axis_labels(b, "fill (keys / design n)", "counters at 15 per filter (0 drawn as 0.01)",
                "4-bit counters that saturate", legend=7, log="y")
    return save_figure(fig, out, "t9_counting", "Counting Bloom: FPR and counter overflow against fill", stamp)


# ---- explanations ---------------------------------------------------------------------
def why_memory(ctx, c, m, holds):
    t = ctx.table("t9")
    mem = {r["variant"]: r for r in t["memory"]}
    return ("counting uses %s bytes against classic's %s for n = %s at 1%% (same m and k = %d: each bit "
            "becomes a 4-bit counter, exactly 4x); the blocked layout counting512 needs %sx block512 "
            "(128 counters per line instead of 512 bits: more lines for the same FPR)" % (
                "{:,}".format(mem["counting"]["bytes"]), "{:,}".format(mem["classic"]["bytes"]),
                "{:,}".format(mem["classic"]["n"]), mem["classic"]["k"], g(t["ratio_blocked"])))


def why_bits(ctx, c, m, holds):
    t = ctx.table("t9")
    b = t["bound_by_bits"]
    at1 = [r for r in t["overflow"] if r["fill"] == 1]
    first = next((r for r in t["overflow"] if r["variant"] == "counting" and r["trials_with_saturation"]), None)
    return ("Fan et al.'s bound on any counter overflowing, %s counters at k = %d and the optimal load: "
            "3 bits %s, 4 bits %s, 5 bits %s; measured: %d of %d filters at fill 1 had a counter reach 15%s" % (
                g(t["bits_m"]), t["bits_k"], g(b[3]), g(b[4]), g(b[5]),
                sum(r["trials_with_saturation"] for r in at1), t["trials_fill1"],
                "; the classic layout first saturates at %gx its design load (%s counters at 15 on average, "
                "%s expected from the binomial load)" % (first["fill"], g(first["mean_saturated"]),
                                                          g(first["expected_saturated"])) if first else ""))


def why_rare(ctx, c, m, holds):
    t = ctx.table("t9")
    verdict = "holds" if m == 0 else "does not hold"
    return verdict, ("%d filters at their design load: %s had a saturated counter; a saturated counter "
                     "is never decremented here, so it costs permanent positives, never a false negative "
                     "(the seed's 'could cause false negatives' is what a decrement of a saturated counter "
                     "would do)" % (t["trials_fill1"], g(m)))


EXPLAIN = {
    "t9.memory_4x": why_memory,
    "t9.memory_4x_003": why_memory,
    "t9.four_bits": why_bits,
    "t9.overflow_rare": why_rare,
}
