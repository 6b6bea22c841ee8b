"""Table 13: layered, compressed and combining Bloom filters (seed 004, section 4.11): the
layered Bloom filter's error bounds (c + d with probability about PF^d), the compressed Bloom
filter (Mitzenmacher 2002: its sizing for a compressed size, the fraction of 0 bits at the
optimum, per-chunk compression, Golomb against zstd), and combining j filters of m/j bits
against one of m bits. Measured by bench/baselines/bloom_variants (data/t13_variants004.json,
the name the committed runs under results/ hold). Seed 004's scalable filter (4.11.5) states no
number; table 12 covers scalable filters."""

import math

from fmt import g, human_bytes, thousands

NUMBER, KEY, DATA = 13, "t13", "t13_variants004.json"
EXPERIMENT = ("t13", "table 13: seed 004's layered, compressed and combining Bloom filters")
SETTINGS = {"quick": dict(t13_n=1_000_000, t13_compressed_n=100_000, t13_queries=4_000_000, t13_reps=5),
            "full": dict(t13_n=1_000_000, t13_compressed_n=1_000_000, t13_queries=20_000_000, t13_reps=9),
            "tiny": dict(t13_n=20_000, t13_compressed_n=5_000, t13_queries=200_000, t13_reps=2)}

PF_CLAIMS = 0.05  # the layered rows the claims read: PF = 5%, enough events for PF^3
SECTION = dict(heading="seed 004's variants: layered, compressed and combining Bloom filters",
               sources="Source: `data/t13_variants004.json` (bench/baselines/bloom_variants).")


def experiment(r):
    c = r.cfg
    out = r.path("t13_variants004.json")
    r.run([r.bins["bloom_variants"], "--n", str(c["t13_n"]), "--compressed-n",
           str(c["t13_compressed_n"]), "--queries", str(c["t13_queries"]), "--reps",
           str(c["t13_reps"]), "--json", out], "t13_bloom_variants")
    r.stamp_json(out)


def _layered(ctx, d, src):
    rows = []
    for r in d["layered"]["rows"]:
        pf = r["pf"]
        if r["experiment"] == "full":
            q = r["queries"]
            for dd, events in enumerate(r["at_least"], 1):
                rate = events / q
                rows.append({"experiment": "never added, all layers at capacity", "pf": pf, "c": 0, "d": dd,
                             "events": events, "trials": q, "rate": rate, "pf_d": pf ** dd,
                             "ratio": rate / pf ** dd, "layer_fpr": r["layer_fpr"][dd - 1]})
                if pf == PF_CLAIMS and dd <= 3:
                    ctx.fact("t13.layered.ratio_d%d" % dd, rate / pf ** dd, src)
                    ctx.fact("t13.layered.ratio_d%d.se" % dd, rate / pf ** dd / math.sqrt(max(events, 1)), src)
            if pf == PF_CLAIMS:
                ctx.fact("t13.layered.undercounted", r["undercounted"], src)
        else:
            ex = r["exact"]
            for dd, key in ((1, "read_ge2"), (2, "read_ge3")):
                rate = r[key] / ex if ex else None
                rows.append({"experiment": "added once (adds that met no false positive)", "pf": pf, "c": 1, "d": dd,
                             "events": r[key], "trials": ex, "rate": rate, "pf_d": pf ** dd,
                             "ratio": rate / pf ** dd if rate is not None else None,
                             "layer_fpr": r["layer_fpr"][dd]})
                if pf == PF_CLAIMS and dd == 1 and rate is not None:
                    ctx.fact("t13.layered.ratio_c1", rate / pf, src)
            if pf == PF_CLAIMS:
                # every key added once: those whose add met a false positive went one layer
                # deeper and read c + 1 as well
                ev = r["read_ge2"] + r["pushed"]
                ctx.fact("t13.layered.ratio_c1_all", ev / r["added_once"] / pf, src)
                ctx.fact("t13.layered.ratio_c1_all.se", ev / r["added_once"] / pf / math.sqrt(max(ev, 1)), src)
            rows.append({"experiment": "adds that met a false positive and went one layer deeper", "pf": pf,
                         "c": 1, "d": 1, "events": r["pushed"], "trials": r["added_once"],
                         "rate": r["pushed"] / r["added_once"], "pf_d": pf, "ratio": r["pushed"] / r["added_once"] / pf,
                         "layer_fpr": r["layer_fpr"][0]})
    return rows


def _compressed(ctx, d, src):
    rows = []
    z = d["compressed"]["z_bits_per_key"]
    for r in d["compressed"]["rows"]:
        for c in r["codes"]:
            rows.append({"variant": r["variant"], "plan": r["plan"], "m_max_factor": r["m_max_factor"],
                         "k": r["k"], "m_bpk": r["m_bits_per_key"], "zero_fraction": r["zero_fraction"],
                         "measured_fpr": r["measured_fpr"], "predicted_fpr": r["predicted_fpr"],
                         "false_positives": r["false_positives"], "entropy_bpk": r["entropy_bits_per_key"],
                         "coder": c["coder"], "chunk_bytes": c["chunk_bytes"], "chunks": c["chunks"],
                         "bpk": c["bits_per_key"], "bpk_index": c["bits_per_key_with_index"],
                         "over_entropy": c["bits_per_key"] / r["entropy_bits_per_key"],
                         "decompress_ns_per_byte": c["decompress_ns_per_byte"],
                         "lookup_one_ns": c.get("lookup_one_ns"),
                         "lookup_batch_ns_per_key": c.get("lookup_batch_ns_per_key")})
    chunk = 4096

    def pick(variant, plan, factor, coder, chunked):
        for x in rows:
            if (x["variant"], x["plan"], x["m_max_factor"], x["coder"]) == (variant, plan, factor, coder) and \
                    ((x["chunk_bytes"] == chunk) == chunked):
                return x
        return None

    factors = sorted({x["m_max_factor"] for x in rows if x["plan"] == "for_bits"})
    if factors:
        best = pick("classic", "for_bits", factors[-1], "golomb", True)
        plain = pick("classic", "plain", 1, "golomb", True)
        whole = pick("classic", "for_bits", factors[-1], "golomb", False)
        if best:
            ctx.fact("t13.compressed.zero_fraction", best["zero_fraction"], src)
        # 004 states the rule for the compressed filter's optimum whatever m may grow to: the
        # fewest zeros over every bound on m the run planned for
        plans = [x for x in rows if x["plan"] == "for_bits" and x["coder"] == "golomb" and x["chunk_bytes"] == chunk]
        if plans:
            worst = min(plans, key=lambda x: x["zero_fraction"])
            ctx.fact("t13.compressed.zero_fraction_min", worst["zero_fraction"], src)
            ctx.fact("t13.compressed.zero_fraction_min.factor", worst["m_max_factor"], src)
            ctx.fact("t13.compressed.bpk", best["bpk"], src)
        if best and plain and best["measured_fpr"]:
            ctx.fact("t13.compressed.fpr_gain", plain["measured_fpr"] / best["measured_fpr"], src)
        if best and whole:
            ctx.fact("t13.compressed.chunk_penalty", best["bpk"] / whole["bpk"], src)
    # the default coder, by measurement: mean bits per key of each coder over every chunked row
    means = {}
    for coder in ("golomb", "zstd"):
        v = [x["bpk"] for x in rows if x["coder"] == coder and x["chunk_bytes"] == chunk]
        if v:
            means[coder] = sum(v) / len(v)
    if len(means) == 2:
        ctx.fact("t13.compressed.zstd_over_golomb", means["zstd"] / means["golomb"], src)
    return rows, means, z


def _combining(ctx, d, src):
    rows = d["combining"]["rows"]
    one = next((r for r in rows if r["filters"] == 1), None)
    out = []
    for r in rows:
        ratio = r["measured_fpr"] / one["measured_fpr"] if one and one["measured_fpr"] else None
        out.append(dict(r, ratio=ratio))
        if r["filters"] > 1 and r["k_each"] * r["filters"] == 8 and ratio is not None:
            ctx.fact("t13.combining.ratio_j%d" % r["filters"], ratio, src)
            ctx.fact("t13.combining.ratio_j%d.se" % r["filters"], ratio * math.sqrt(
                1 / max(r["false_positives"], 1) + 1 / max(one["false_positives"], 1)), src)
    return out


def build(ctx, d):
    src = "data/" + DATA
    lay = _layered(ctx, d, src)
    comp, means, z = _compressed(ctx, d, src)
    comb = _combining(ctx, d, src)
    speed = d["layered"].get("speed")
    if speed:
        ctx.fact("t13.layered.batch_ns", speed["batch_ns_per_key"], src)
    load = [d.get("loadavg_1min_start"), d.get("loadavg_1min_end")]
    ctx.tables[KEY] = {"n": d["n"], "queries": d["queries"], "layered": lay, "layered_speed": speed, "loadavg": load,
                       "compressed": comp, "coder_means": means, "z_bits_per_key": z, "combining": comb}


def report(page, t13):
    page.w("Seed 004, section 4.11. **Layered Bloom filter** (R = 4 layers of block512, each probing with its own "
           "remix of the key's hash): the rate at which a key added c times reads c + d or more, against PF^d.")
    page.w()
    rows = [[r["experiment"], g(r["pf"]), r["c"], "c + %d" % r["d"], "{:,}".format(r["events"]),
             "{:,}".format(r["trials"]), g(r["rate"]), g(r["pf_d"]), g(r["ratio"]), g(r["layer_fpr"])]
            for r in t13["layered"]]
    page.table(["keys", "PF", "c", "read", "events", "keys tried", "rate", "PF^d", "rate / PF^d",
                "that layer's measured FPR"], rows)
    sp = t13.get("layered_speed")
    if sp:
        page.w("Counts of %s keys (half of them added) on %s layers of %s in all: %s ns per key in batches "
               "(each layer's kernel over the keys still counting), %s ns per key one at a time (medians of %d "
               "interleaved reps)." % (thousands(sp["queries"]), sp["layers"], human_bytes(sp["bytes"]),
                                       g(sp["batch_ns_per_key"]), g(sp["single_ns_per_key"]), sp["reps"]))
        load = [x for x in t13.get("loadavg") or [] if x is not None and x >= 0]
        if load:
            page.w("The machine's 1-minute load average was %s at the start of the measurement and %s at its "
                   "end: timings from a busy machine are upper bounds." % tuple(g(x) for x in (load + load)[:2]))
        page.w()
    page.w("**Compressed Bloom filter** (Mitzenmacher 2002), z = %s bits per key sent: the plain filter of m = z "
           "bits at its best k, and the least-FPR plans with m H(p) <= z and m up to the factor shown; each "
           "built, measured and coded in 4 KiB chunks and as one chunk." % g(t13["z_bits_per_key"]))
    page.w()
    rows = [[r["variant"], r["plan"] if r["plan"] == "plain" else "m <= %sz" % g(r["m_max_factor"]), r["k"],
             g(r["m_bpk"]), g(r["zero_fraction"]), g(r["measured_fpr"]), g(r["entropy_bpk"]), r["coder"],
             "one" if r["chunks"] == 1 else human_bytes(r["chunk_bytes"]), g(r["bpk"]), g(r["over_entropy"]),
             g(r["lookup_one_ns"])]
            for r in t13["compressed"]]
    page.table(["variant", "plan", "k", "m bits/key", "0 bits", "measured FPR", "m H(p)/n",
                "coder", "chunk", "code bits/key", "code / m H(p)", "one-key lookup ns"], rows)
    means = t13.get("coder_means") or {}
    if len(means) == 2:
        page.w("Mean code size over the 4 KiB-chunk rows: Golomb %s, zstd %s bits per key; the default coder "
               "is the smaller one (Golomb)." % (g(means["golomb"]), g(means["zstd"])))
        page.w()
    page.w("**Combining filters**: one classic filter of m bits (k = 8, m/n = 11.54) against j filters of m/j "
           "bits with independent hashes.")
    page.w()
    rows = [[r["filters"], r["k_each"], "{:,}".format(r["false_positives"]), g(r["measured_fpr"]), g(r["ratio"])]
            for r in t13["combining"]]
    page.table(["filters j", "k each", "false positives", "measured FPR", "/ one filter"], rows)


CSVS = (
    ("t13_layered.csv", lambda t: (t["layered"], [
        "experiment", "pf", "c", "d", "events", "trials", "rate", "pf_d", "ratio", "layer_fpr"])),
    ("t13_compressed.csv", lambda t: (t["compressed"], [
        "variant", "plan", "m_max_factor", "k", "m_bpk", "zero_fraction", "measured_fpr", "predicted_fpr",
        "false_positives", "entropy_bpk", "coder", "chunk_bytes", "chunks", "bpk", "bpk_index", "over_entropy",
        "decompress_ns_per_byte", "lookup_one_ns", "lookup_batch_ns_per_key"])),
    ("t13_combining.csv", lambda t: (t["combining"], [
        "filters", "k_each", "m_bits", "n", "queries", "false_positives", "measured_fpr", "ratio"])),
)


# ---- explanations ---------------------------------------------------------------------
def why_layered(ctx, c, m, holds):
    t = ctx.table(KEY)
    under = ctx.facts.get("t13.layered.undercounted")
    return ("measured rate / PF^d = %s (PF = %g per layer, R = 4, every layer probing with its own remix of the "
            "key's hash); keys added R times counted below R: %s") % (g(m), PF_CLAIMS, g(under) if under is not None else "-") \
        if t else None


def why_layered_c1(ctx, c, m, holds):
    t = ctx.table(KEY)
    pushed = [r for r in t.get("layered", []) if r["experiment"].startswith("adds that met") and r["pf"] == PF_CLAIMS]
    extra = ""
    if pushed:
        extra = ("; %s of the adds themselves met a false positive and went one layer deeper, so a key added c "
                 "times reads high with probability up to about (c + 1) PF" % g(pushed[0]["rate"]))
    return ("P(count >= 2 | added once) / PF over every key added once = %s; over the keys whose add met no "
            "false positive only, %s%s" % (g(m), g(ctx.facts.get("t13.layered.ratio_c1")), extra))


def why_combining(ctx, c, m, holds):
    t = ctx.table(KEY)
    rows = t.get("combining", [])
    full = next((r for r in rows if r["filters"] == 2 and r["k_each"] == 8), None)
    one = next((r for r in rows if r["filters"] == 1), None)
    s = "FPR of the j filters (k/j hashes each, independent) / FPR of one filter of m bits, k = 8: %s" % g(m)
    if full and one:
        s += ("; with the full k = 8 in each of 2 filters instead, %s: the claim needs the hashes split, "
              "k/j each (or each component at its own optimal k)" % g(full["measured_fpr"] / one["measured_fpr"]))
    return s


def why_zero_fraction(ctx, c, m, holds):
    t = ctx.table(KEY)
    dense = [r for r in t.get("compressed", []) if r["variant"] == "classic" and r["plan"] == "for_bits"
             and r["coder"] == "golomb" and r["chunk_bytes"] == 4096 and r["zero_fraction"] < 0.5]
    s = "the plan with m up to 64 z keeps a fraction %s of the bits 0 (k = 1)" % g(m)
    if dense:
        s += ("; bounding m to %sx z instead, the least FPR within m H(p) <= z is on the dense side "
              "(k = %d, %s of the bits 0): compression needs p away from 1/2, either way" %
              (g(dense[0]["m_max_factor"]), dense[0]["k"], g(dense[0]["zero_fraction"])))
    best = ctx.facts.get("t13.compressed.zero_fraction")
    if best is not None and best != m:
        s = ("the fewest zeros over the plans: %s; " % g(m)) + s.replace(
            "the plan with m up to 64 z keeps a fraction %s" % g(m), "the plan with m up to 64 z keeps a fraction %s" % g(best))
    return s


def why_fpr_gain(ctx, c, m, holds):
    bpk = ctx.facts.get("t13.compressed.bpk")
    t = ctx.table(KEY)
    z = t.get("z_bits_per_key")
    s = ("at z = %s bits per key sent, the plain filter (m = z) has %sx the FPR of the compressed plan (m up to 64 z), "
         "whose Golomb code takes %s bits per key") % (g(z), g(m), g(bpk) if bpk else "-")
    return s


def why_chunks(ctx, c, m, holds):
    s = ("4 KiB chunks coded one by one take %sx the bits of the payload coded as one chunk (Golomb; the chunk "
         "index adds 64 bits per chunk on top)") % g(m)
    return s


EXPLAIN = {
    "t13.layered_c1": why_layered_c1,
    "t13.layered_d2": why_layered,
    "t13.layered_d3": why_layered,
    "t13.combining_j2": why_combining,
    "t13.combining_j4": why_combining,
    "t13.combining_j8": why_combining,
    "t13.compressed_zero_fraction": why_zero_fraction,
    "t13.compressed_larger_m": why_fpr_gain,
    "t13.compressed_chunks": why_chunks,
}
