"""Table 7: end to end, `filterlab dedup` against `awk '!seen[$0]++'` and `sort -u` (seed
000): hyperfine times (data/hyperfine/t7_dedup.json) and peak RSS from /usr/bin/time -v
(data/t7_dedup.json)."""

import json
import os

from fmt import bigger, g

NUMBER, KEY, DATA = 7, "t7", "t7_dedup.json"
FILTER = "filterlab dedup (block512)"
AWK = "awk '!seen[$0]++'"


def build(ctx, d):
    src = "data/" + DATA
    hf = None
    if d.get("hyperfine_export"):
        with open(os.path.join(ctx.out, "data", d["hyperfine_export"])) as f:
            hf = json.load(f)
    times = {}
    if hf:
        for r in hf["results"]:
            times[r["command"]] = r
    rows = []
    for c in d["commands"]:
        t = times.get(c["name"], {})
        rows.append({"name": c["name"], "command": c["command"], "status": c["status"],
                     "max_rss_kb": c["max_rss_kb"], "output_lines": c["output_lines"],
                     "mean_s": t.get("mean"), "stddev_s": t.get("stddev"), "min_s": t.get("min"),
                     "runs": len(t.get("times", [])) or None,
                     "dropped": d["distinct"] - c["output_lines"]})
    known = {r["name"] for r in rows}
    for name, t in times.items():
        if name not in known:
            rows.append({"name": name, "command": t.get("command"), "status": 0, "max_rss_kb": None,
                         "output_lines": None, "mean_s": t.get("mean"), "stddev_s": t.get("stddev"),
                         "min_s": t.get("min"), "runs": len(t.get("times", [])) or None, "dropped": None})
    by = {r["name"]: r for r in rows}
    dd = by.get(FILTER)
    awk = by.get(AWK)
    if dd and awk and dd["max_rss_kb"] and awk["max_rss_kb"]:
        ctx.fact("t7.memory_reduction", awk["max_rss_kb"] / dd["max_rss_kb"], src)
    if dd and awk and dd.get("mean_s") and awk.get("mean_s"):
        ctx.fact("t7.speedup_vs_awk", awk["mean_s"] / dd["mean_s"], "data/hyperfine/t7_dedup.json")
    ctx.tables["t7"] = {"rows": rows, "distinct": d["distinct"], "lines": d["lines"],
                        "input_bytes": d["input_bytes"], "awk": d.get("awk"),
                        "awk_version": d.get("awk_version"), "sort_version": d.get("sort_version"),
                        "hyperfine_export": d.get("hyperfine_export")}


# ---- explanations ---------------------------------------------------------------------
def why_memory_reduction(ctx, c, m, holds):
    t7 = ctx.table("t7")
    rows = {r["name"]: r for r in t7.get("rows", [])}
    dd, awk = rows.get(FILTER), rows.get(AWK)
    txt = bigger(c.value, m) + ("peak RSS: awk %s MB, filterlab dedup %s MB for %d lines (%d distinct); the "
                                "seed's own lines say 128 MB -> 18 MB (7.1x) and 128 MB -> 12 MB (10.7x)") % (
        g(awk["max_rss_kb"] / 1000) if awk else "n/a", g(dd["max_rss_kb"] / 1000) if dd else "n/a",
        t7.get("lines", 0), t7.get("distinct", 0))
    return txt


EXPLAIN = {
    "t7.memory_reduction": why_memory_reduction,
}
