"""tables/*.csv: the report's tables as CSV (numbers unrounded), each headed by the run's
stamp as '# key=value' lines."""

import csv
import os

VARIANTS = ("classic", "block512", "split256", "reg64", "cuckoo")


def _t5_rows(t5):
    rows = []
    for p in t5["pivot"]:
        r = {"target": p["target"], "bound_bits": p["bound"], "ideal_cuckoo_bits": p["ideal_cuckoo"],
             "ideal_cuckoo_semisort_bits": p["ideal_cuckoo_semisort"]}
        for v in VARIANTS:
            c = p.get(v, {})
            r[v + "_bits"] = c.get("bpk")
            r[v + "_measured_fpr"] = c.get("measured")
        rows.append(r)
    cols = ["target", "bound_bits"] + [v + s for v in VARIANTS for s in ("_bits", "_measured_fpr")] + \
        ["ideal_cuckoo_bits", "ideal_cuckoo_semisort_bits"]
    return rows, cols


def _t5_deletes_rows(t5):
    rows = []
    for p in t5.get("deletes") or []:
        for col in ("cuckoo8", "cuckoo12", "cuckoo16", "counting", "counting512"):
            c = p.get(col)
            if c is None:
                continue
            rows.append({"target": p["target"], "bound_bits": p["bound"], "filter": col,
                         "bits_per_key": c.get("bpk"), "measured_fpr": c.get("measured"),
                         "false_positives": c.get("fp"), "log2_1_over_measured": c.get("bound_measured"),
                         "load": c.get("load"), "k": c.get("k"), "bytes": c.get("bytes"),
                         "error": c.get("error")})
    return rows or None, ["target", "bound_bits", "filter", "k", "bytes", "load", "bits_per_key",
                          "measured_fpr", "false_positives", "log2_1_over_measured", "error"]


def _t8_rows(t8):
    rows = []
    for p in t8["pivot"]:
        r = {k: p[k] for k in ("target", "variant", "filter_bytes", "class", "k", "bpk", "fpr_measured",
                               "best_kernel", "bound")}
        for k in t8["kernels"]:
            r["ns_" + k] = p["ns"].get(k)
        rows.append(r)
    cols = ["target", "variant", "filter_bytes", "class", "k", "bpk", "fpr_measured"] + \
        ["ns_" + k for k in t8["kernels"]] + ["best_kernel", "bound"]
    return rows, cols


# (file, table key, the table -> (rows, columns); rows None: no such file), in the order written
CSVS = (
    ("t1_naive_vs_blocked.csv", "t1", lambda t: (t["rows"], [
        "variant", "kernel", "hit_rate", "k", "filter_bytes", "ns_per_lookup", "ms_per_1M",
        "cycles_per_1M", "cycles_kind", "sim_d1", "sim_l2", "sim_llc", "pmu_l1d", "pmu_llc",
        "speedup", "fpr_measured", "cv_pct"])),
    ("t2_crawler.csv", "t2", lambda t: (t["rows"], [
        "structure", "exact", "describe", "memory_bytes", "heap_bytes", "payload_bytes",
        "bits_per_url", "insert_ns", "miss_ns", "hit_ns", "miss_ns_batch", "hit_ns_batch",
        "fpr", "false_positives", "false_negatives", "lookups"])),
    ("t3_sizing.csv", "t3", lambda t: (t["rows"], [
        "label", "variant", "target_fpr", "n", "k", "units", "bytes", "bits_per_key",
        "predicted_fpr", "measured_fpr", "false_positives", "queries", "error"])),
    ("t4_fill.csv", "t4", lambda t: (t["rows"], [
        "variant", "fill", "inserted", "full", "k", "bytes", "predicted_fpr", "measured_fpr",
        "seed_formula", "false_positives", "queries"])),
    ("t5_space.csv", "t5", _t5_rows),
    ("t5_deletes.csv", "t5", _t5_deletes_rows),
    ("t5_delete_speed.csv", "t5", lambda t: (t.get("delete_speed") or None, [
        "filter", "target_bytes", "filter_bytes", "class", "bits_per_key", "ns_per_delete", "kernels"])),
    ("t5_cuckoo_fpr.csv", "t5", lambda t: (t.get("cuckoo") or None, [
        "fingerprint_bits", "units", "load_wanted", "load", "inserted", "measured_fpr",
        "formula_2b_over_2f", "formula_at_load", "ratio_to_2b_2f", "predicted_fpr", "queries"])),
    ("t6_bound.csv", "t6", lambda t: (t["rows"], [
        "variant", "target", "bpk", "measured", "fp", "bound_measured", "factor", "factor_target", "precise"])),
    ("t7_dedup.csv", "t7", lambda t: (t["rows"], [
        "name", "command", "mean_s", "stddev_s", "min_s", "runs", "max_rss_kb", "output_lines", "dropped",
        "status"])),
    ("t8_sweep.csv", "t8", _t8_rows),
    ("t9_counting_fill.csv", "t9", lambda t: (t["fill"], [
        "variant", "fill", "keys", "bytes", "k", "predicted_fpr", "measured_fpr", "false_positives", "queries",
        "saturated"])),
    ("t9_counting_overflow.csv", "t9", lambda t: (t["overflow"], [
        "variant", "fill", "keys", "counters", "k", "trials", "trials_with_saturation", "mean_saturated",
        "max_saturated", "expected_saturated", "fan_bound"])),
    ("t10_cms.csv", "t10", lambda t: (t["streams"], [
        "stream", "conservative", "total", "eps_n", "sketches", "keys", "exact", "above", "fraction_above",
        "p99", "max", "under"])),
    ("t11_hll.csv", "t11", lambda t: (t["rows"], [
        "p", "bytes", "card", "runs", "rms_estimate", "rms_paper2007", "rms_raw", "rms_seed003", "std_error",
        "max_abs_estimate"])),
    ("t11_redis_pfcount.csv", "t11", lambda t: (t["redis"]["points"] or None, [
        "card", "encoding", "pfcount", "filterlab", "paper2007", "raw"])),
    ("t12_scalable.csv", "t12", lambda t: (t["chain"], [
        "variant", "fill", "keys", "filters", "bytes", "total_capacity", "predicted_fpr", "measured_fpr",
        "false_positives", "queries"])),
    ("t13_layered.csv", "t13", lambda t: (t["layered"], [
        "experiment", "pf", "c", "d", "events", "trials", "rate", "pf_d", "ratio", "layer_fpr"])),
    ("t13_compressed.csv", "t13", lambda t: (t["compressed"], [
        "variant", "plan", "m_max_factor", "k", "m_bpk", "zero_fraction", "measured_fpr", "predicted_fpr",
        "false_positives", "entropy_bpk", "coder", "chunk_bytes", "chunks", "bpk", "bpk_index", "over_entropy",
        "decompress_ns_per_byte", "lookup_one_ns", "lookup_batch_ns_per_key"])),
    ("t13_combining.csv", "t13", lambda t: (t["combining"], [
        "filters", "k_each", "m_bits", "n", "queries", "false_positives", "measured_fpr", "ratio"])),
    ("claims.csv", "claims", lambda rows: (rows, [
        "id", "table", "seed", "section", "seed_value", "unit", "printed", "measured", "tolerance", "verdict",
        "reason", "source"])),
)


def write_table_csvs(out, doc):
    d = os.path.join(out, "tables")
    os.makedirs(d, exist_ok=True)
    head = "".join("# %s=%s\n" % (k, v) for k, v in doc["run"]["stamp"].items())
    T = doc["tables"]
    for name, key, rows_cols in CSVS:
        if key not in T:
            continue
        rows, cols = rows_cols(T[key])
        if rows is None:
            continue  # a part its table does not have (table 5 without its cuckoo run)
        with open(os.path.join(d, name), "w", newline="") as f:
            f.write(head)
            w = csv.writer(f)
            w.writerow(cols)
            for r in rows:
                w.writerow(["" if r.get(c) is None else r.get(c) for c in cols])
