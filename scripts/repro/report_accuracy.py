"""REPORT.md's sections for tables 9-12 (counting Bloom, Count-Min,
HyperLogLog, scalable Bloom). Formatting only, like report.py: every number comes from
tables.json."""

from fmt import g, human_bytes, pct


def _table(md_table, w, head, rows, align=None):
    w(md_table(head, rows, align))
    w()


def t9(r, t, md_table):
    w = r.w
    w("`flaccuracy --sections counting`: payload bytes at equal n and 1% FPR, FPR against fill (never-inserted "
      "queries), and 4-bit counters that reached 15 (where filterlab stops counting and never decrements) "
      "against the expected count from the binomial load and Fan et al.'s bound on any counter reaching 16.")
    w()
    _table(md_table, w, ["variant", "n", "k", "bytes", "bits per key"],
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
    _table(md_table, w, ["fill"] + variants, rows)
    _table(md_table, w, ["variant", "fill", "keys", "counters", "k", "filters", "with a counter at 15",
                         "mean at 15", "expected (binomial)", "Fan et al. bound (16)"],
           [[o["variant"], g(o["fill"]), "{:,}".format(o["keys"]), "{:,}".format(o["counters"]), o["k"],
             o["trials"], o["trials_with_saturation"], g(o["mean_saturated"]), g(o["expected_saturated"]),
             g(o["fan_bound"])] for o in t["overflow"]])


def t10(r, t, md_table):
    w = r.w
    sh = t["shape"]
    w("`flaccuracy --sections cms`: the seeds' sketch (epsilon %s, delta %s: %d x %d, %s) on uniform and Zipf "
      "(s = %s) streams, plain and conservative update; error = estimate - true count, in units of epsilon N."
      % (g(sh["epsilon"]), g(sh["delta"]), sh["depth"], sh["width"], human_bytes(sh["bytes"]), g(t["zipf_s"])))
    w()
    _table(md_table, w, ["stream", "update", "N", "sketches", "keys", "error 0", "above epsilon N",
                         "99th pct / eps N", "max / eps N", "underestimates"],
           [[s["stream"], "conservative" if s["conservative"] else "plain", "{:,}".format(s["total"]),
             s["sketches"], "{:,}".format(s["keys"]), pct(s["fraction_exact"]), pct(s["fraction_above"]),
             g(s["p99"]), g(s["max"]), s["under"]] for s in t["streams"]])
    ex = t["example"]
    w("Seed 003's example (%d runs, N = %s): mean error of 192.168.1.0 / .9 / .99 = %s, largest %s; heavy "
      "hitters (phi %s): %d per run, %d missed, %d false positives in all runs." % (
          ex["runs"], "{:,}".format(ex["total"]), " / ".join(g(x) for x in ex["printed_mean_error"]),
          " / ".join(str(x) for x in ex["printed_max_error"]), g(ex["phi"]), ex["true_heavy"],
          ex["heavy_missed"], ex["heavy_false_positives"]))
    w()


def t11(r, t, md_table):
    w = r.w
    w("`flaccuracy --sections hll`: distinct u64 keys added in batches, the estimate read at each "
      "cardinality; RMS relative error over the streams of filterlab's (Redis's) estimator and, from the same "
      "registers, the 2007 paper's (linear counting below 2.5 m), 000's raw harmonic mean and 003's (the "
      "paper's with the 2^32 correction meant for 32-bit hashes).")
    w()
    _table(md_table, w, ["p", "bytes", "cardinality", "streams", "filterlab (Redis)", "2007 paper", "000 raw",
                         "003", "1.04/sqrt(m)"],
           [[x["p"], "{:,}".format(x["bytes"]), "{:,}".format(x["card"]), x["runs"], pct(x["rms_estimate"]),
             pct(x["rms_paper2007"]), pct(x["rms_raw"]), pct(x["rms_seed003"]), pct(x["std_error"])]
            for x in t["rows"]])
    _table(md_table, w, ["p", "cardinality", "sketches", "RMS error", "mean error", "within 3 SE",
                         "2007 paper RMS", "1.04/sqrt(m)"],
           [[s["p"], "{:,}".format(s["card"]), s["runs"], pct(s["rms"]), pct(s["mean"]), s["within_3se"],
             pct(s["rms_paper2007"]), pct(s["std_error"])] for s in t["std"]])
    red = t["redis"]
    if red["points"]:
        w("redis-server %s, PFCOUNT against the estimators on the same string (GET before PFCOUNT):" % red["version"])
        w()
        _table(md_table, w, ["keys", "encoding", "PFCOUNT", "filterlab", "2007 paper", "raw"],
               [["{:,}".format(p["card"]), p["encoding"], "{:,}".format(p["pfcount"]),
                 "{:,}".format(p["filterlab"]) if p["filterlab"] is not None else "n/a",
                 "{:,}".format(p["paper2007"]), "{:,}".format(p["raw"])] for p in red["points"]])
    else:
        w("No redis-server comparison in this run (%s)." % red.get("skipped"))
        w()


def t12(r, t, md_table):
    w = r.w
    w("`flaccuracy --sections sbf`: a chain with RedisBloom's defaults (expansion %s, tightening %s, error rate "
      "%s, first capacity %s) filled past its first capacity; FPR from never-inserted queries." % (
          g(t["defaults"]["growth"]), g(t["defaults"]["tightening"]), pct(t["error_rate"]),
          "{:,}".format(t["estimate"])))
    w()
    _table(md_table, w, ["variant", "keys / capacity", "sub-filters", "bytes", "measured FPR", "model"],
           [[c["variant"], g(c["fill"]), c["filters"], human_bytes(c["bytes"]), pct(c["measured_fpr"]),
             pct(c["predicted_fpr"])] for c in t["chain"]])
    _table(md_table, w, ["variant", "sub-filter", "capacity", "keys", "k", "target", "measured FPR"],
           [[s["variant"], s["index"], "{:,}".format(s["capacity"]), "{:,}".format(s["items"]), s["k"],
             pct(s["target_fpr"]), pct(s["measured_fpr"])] for s in t["subfilters"]])
    _table(md_table, w, ["keys / estimate", "bytes", "measured FPR", "model"],
           [[g(p["keys_over_estimate"]), human_bytes(p["bytes"]), pct(p["measured_fpr"]), pct(p["predicted_fpr"])]
            for p in t["planning"]])
