"""Binary fuse filters as `flbench --structure static` measured them: the reader
of data/static_flbench.json (the median aggregates the `static` experiment keeps of flbench's
JSON), one record per (shape, key count), for tables 6 and 8. bench/README.md's static
section defines the fields."""

import json

from rundata import load_json

DATA = "static_flbench.json"
EXPERIMENT = ("static", "tables 6 and 8: binary fuse filters, space, FPR, build and lookups")
SETTINGS = {
    "quick": dict(static_keys="100000,1000000,10000000", static_lookups=1_000_000, static_reps=3, static_builds=1),
    "full": dict(static_keys="100000,1000000,10000000", static_lookups=4_000_000, static_reps=9, static_builds=3),
    "tiny": dict(static_keys="10000,100000", static_lookups=100_000, static_reps=2, static_builds=1),
}
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


# ---- the experiment: what scripts/reproduce runs for the tables that read it (experiments.Runner) ----

def experiment(r):
    """Binary fuse filters: flbench --structure static at the mode's key counts, the one
    measurement tool for them (scripts/bench-static runs the same suite for the project's
    speed targets). Bits per key and measured FPR for table 6; construction ns/key, the
    one-key inline lookup and batch lookups per kernel (50% hits) for table 8. The full
    JSON (every repetition) stays in raw/; data/static_flbench.json keeps its context and
    the median aggregates, which is what the tables read (records, above)."""
    c = r.cfg
    keys = [int(k) for k in c["static_keys"].split(",")]
    kernels = r.kernels()
    raw = r.rawpath("static_flbench.json")
    # Construction is not dispatched: static_builds timed builds of the largest key set
    # (smaller ones get more, up to --reps) through flbench's insert budget. No memory
    # probe: the tables show ns per lookup (scripts/bench-static adds the bound ratio).
    r.run([r.bins["flbench"], "--structure", "static", "--sizes-in", "keys",
           "--sizes", c["static_keys"], "--kernel", ",".join(kernels), "--hit-rate", "0.5",
           "--reps", str(c["static_reps"]), "--lookups", str(c["static_lookups"]),
           "--insert-budget", str(c["static_builds"] * max(keys)), "--counters", "none",
           "--probe", "none", "--seed", "1", "--json", raw],
          "static", quiet_re=r"^(build|lookup|lookup_inline|probe)/")
    with open(raw) as f:
        d = json.load(f)
    ctx = d.get("context", {})
    if isinstance(ctx.get("cpu"), dict):
        ctx["cpu"].pop("flags", None)
    medians = [b for b in d.get("benchmarks", [])
               if b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median"]
    out = r.path("static_flbench.json")
    with open(out, "w") as f:
        json.dump({"context": ctx, "benchmarks": medians, "full_json": "raw/static_flbench.json"},
                  f, indent=1)
    r.stamp_json(out)
