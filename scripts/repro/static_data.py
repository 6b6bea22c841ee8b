"""Binary fuse filters as `flbench --structure static` measured them: the reader
of data/static_flbench.json (the median aggregates the `static` experiment keeps of flbench's
JSON), one record per (shape, key count), for tables 6 and 8. bench/README.md's static
section defines the fields."""

from rundata import load_json

DATA = "static_flbench.json"
SOURCE = "data/" + DATA
HIT_RATE = 0.5  # the experiment's --hit-rate: half the looked-up keys were built


def variant_name(b):
    """fuse<arity>_<fingerprint bits>: the tables' and the facts' names (flbench's `filter`
    field says fuse8, fuse16, fuse4w8, fuse4w16)."""
    return "fuse%d_%d" % (b["arity"], b["cell_bits"])


def records(out):
    """[{variant, filter, keys, bytes, bits_per_key, space_ratio_to_bound, fpr_measured,
    fpr_expected, fpr_queries, build_ns_per_key, build_tries, inline_ns, batch_ns {kernel:
    ns}, ratio_to_bound {kernel or "inline": ratio or None}}] sorted by (arity, bits, keys);
    [] without the file. The Bloomier map (value_bits > 0) is a map, not a filter: left out."""
    d = load_json(out, DATA)
    if not d:
        return []
    recs = {}
    for b in d.get("benchmarks", []):
        if b.get("structure") != "static" or b.get("value_bits") or b.get("error"):
            continue
        if b.get("run_type") != "aggregate" or b.get("aggregate_name") != "median":
            continue
        key = (b["arity"], b["cell_bits"], b["keys"])
        r = recs.setdefault(key, {
            "variant": variant_name(b), "filter": b["filter"], "keys": b["keys"],
            "bytes": b["structure_bytes"], "bits_per_key": b["bits_per_key"],
            "space_ratio_to_bound": b["space_ratio_to_bound"], "fpr_measured": b["fpr_measured"],
            "fpr_expected": b["fpr_expected"], "fpr_queries": b["fpr_queries"],
            "build_tries": b["build_tries"], "build_ns_per_key": None, "inline_ns": None,
            "batch_ns": {}, "ratio_to_bound": {}})
        op = b["op"]
        if op == "build":
            r["build_ns_per_key"] = b["real_time"]
        elif op in ("lookup", "lookup_inline") and b.get("hit_rate") == HIT_RATE:
            if op == "lookup_inline":
                r["inline_ns"] = b["real_time"]
                r["ratio_to_bound"]["inline"] = b.get("ratio_to_bound")
            else:
                r["batch_ns"][b["kernel"]] = b["real_time"]
                r["ratio_to_bound"][b["kernel"]] = b.get("ratio_to_bound")
    return [recs[k] for k in sorted(recs)]
