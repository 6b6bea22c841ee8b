"""Table 7: end to end, `filterlab dedup` against `awk '!seen[$0]++'` and `sort -u` (seed
000): hyperfine times (data/hyperfine/t7_dedup.json) and peak RSS from /usr/bin/time -v
(data/t7_dedup.json)."""

import json
import os
import re
import shlex
import shutil

from fmt import bigger, g
from plotting import plt, save_figure
import urlgen

NUMBER, KEY, DATA = 7, "t7", "t7_dedup.json"
EXPERIMENT = ("t7", "table 7: filterlab dedup vs awk and sort -u (hyperfine)")
WRITES = ("hyperfine/t7_dedup.json",)
SETTINGS = {"quick": dict(t7_runs=3, t7_warmup=1), "full": dict(t7_runs=10, t7_warmup=2),
            "tiny": dict(t7_runs=2, t7_warmup=0)}
FILTER = "filterlab dedup (block512)"
AWK = "awk '!seen[$0]++'"
SECTION = dict(heading="end to end, `filterlab dedup` against `awk '!seen[$0]++'` and `sort -u`",
               sources="Sources: `data/t7_dedup.json`, `data/hyperfine/t7_dedup.json`.",
               figure="time and peak memory")
FIGURES = ("t7_dedup",)


def experiment(r):
    c = r.cfg
    stream = r.url_file("stream")
    man = urlgen.generate(os.path.join(r.raw, "urls"), c["urls"], seed=1)
    distinct = man["files"]["stream"]["distinct"]
    fl = r.bins["filterlab"]
    cmds = [
        ("filterlab dedup (block512)", "%s dedup --n %d --fpr 0.01 --input %s" % (shlex.quote(fl), distinct, shlex.quote(stream))),
        ("filterlab dedup (classic)", "%s dedup --type classic --n %d --fpr 0.01 --input %s" % (shlex.quote(fl), distinct, shlex.quote(stream))),
        ("filterlab dedup (cuckoo)", "%s dedup --type cuckoo --n %d --fpr 0.01 --input %s" % (shlex.quote(fl), distinct, shlex.quote(stream))),
        ("awk '!seen[$0]++'", "awk '!seen[$0]++' %s" % shlex.quote(stream)),
        ("sort -u", "sort -u %s" % shlex.quote(stream)),
        ("LC_ALL=C sort -u", "LC_ALL=C sort -u %s" % shlex.quote(stream)),
    ]
    env = {"LC_ALL": os.environ.get("LC_ALL", "C.UTF-8")}
    res = {"distinct": distinct, "lines": man["files"]["stream"]["lines"],
           "input_bytes": man["files"]["stream"]["bytes"], "commands": []}
    # correctness and peak memory: one run each under /usr/bin/time -v
    for name, cmd in cmds:
        r.say("%s: output lines and peak RSS (/usr/bin/time -v)" % name)
        outp = os.path.join(r.raw, "t7_out.txt")
        tv = os.path.join(r.raw, "t7_time.txt")
        rc = r.run(["/usr/bin/time", "-v", "-o", tv, "sh", "-c", cmd + " > " + shlex.quote(outp)],
                   "t7_time_" + re.sub(r"\W+", "_", name), env=env, check=False)
        with open(tv) as f:
            tvt = f.read()
        m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", tvt)
        w = re.search(r"Elapsed \(wall clock\) time.*: (\S+)", tvt)
        with open(outp, "rb") as f:
            nout = sum(1 for _ in f)
        res["commands"].append({"name": name, "command": cmd, "status": rc,
                                "max_rss_kb": int(m.group(1)) if m else None,
                                "time_v_wall": w.group(1) if w else None,
                                "output_lines": nout})
        os.remove(outp)
    # timing: hyperfine, exports kept
    hf = shutil.which("hyperfine")
    if hf:
        export = os.path.join(r.data, "hyperfine", "t7_dedup.json")
        args = [hf, "--style", "basic", "--warmup", str(c["t7_warmup"]), "--runs",
                str(c["t7_runs"]), "--export-json", export, "--output", "null"]
        # the fixed cost of sizing in the dedup runs: fl_params_for alone, per variant
        # (classic's sizing is a closed formula: a few ms, below what hyperfine can time)
        extra = [("filterlab params (sizing only, block512)",
                  "%s params --type block512 --n %d --fpr 0.01" % (shlex.quote(fl), distinct))]
        for name, cmd in cmds + extra:
            args += ["-n", name, cmd]
        r.say("hyperfine: %d commands x %d runs" % (len(cmds), c["t7_runs"]))
        r.run(args, "t7_hyperfine", env=env)
        r.stamp_json(export)
        res["hyperfine_export"] = "hyperfine/t7_dedup.json"
    else:
        res["hyperfine_export"] = None
        r.say("hyperfine not found: table 7 has no timings")
    res["awk"] = os.path.realpath(shutil.which("awk") or "awk")
    res["awk_version"] = (r.capture(["awk", "-W", "version"]) or r.capture(["awk", "--version"])).splitlines()[:1]
    res["sort_version"] = r.capture(["sort", "--version"]).splitlines()[:1]
    with open(r.path("t7_dedup.json"), "w") as f:
        json.dump(res, f, indent=1)
    r.stamp_json(r.path("t7_dedup.json"))


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


def report(page, t7):
    page.w("A stream of %s URL lines (%s distinct, %s MB), output to /dev/null. Times: hyperfine "
           "(export `data/%s`); peak memory: `/usr/bin/time -v` (maximum resident set size); "
           "`dropped`: distinct lines missing from the output (a filter's false positives; `sort -u` and "
           "awk are exact). awk is `%s` (%s)." % (
               "{:,}".format(t7["lines"]), "{:,}".format(t7["distinct"]), g(t7["input_bytes"] / 1e6),
               t7["hyperfine_export"], t7["awk"], "; ".join(t7.get("awk_version") or [])))
    page.w()
    rows = [[r["name"], g(r["mean_s"]), g(r["stddev_s"]), g(r["min_s"]),
             g(r["max_rss_kb"] / 1000) if r["max_rss_kb"] else "-",
             "{:,}".format(r["output_lines"]) if r["output_lines"] is not None else "-",
             "{:,}".format(r["dropped"]) if r["dropped"] is not None else "-"]
            for r in t7["rows"]]
    page.table(["command", "mean s", "stddev s", "min s", "peak RSS MB", "output lines", "dropped"], rows)


CSVS = (
    ("t7_dedup.csv", lambda t: (t["rows"], [
        "name", "command", "mean_s", "stddev_s", "min_s", "runs", "max_rss_kb", "output_lines", "dropped",
        "status"])),
)


def figure(t7, out, stamp, caches, claims):
    rows = t7["rows"]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
    names = [r["name"] for r in rows]
    axes[0].barh(names, [r["mean_s"] or 0 for r in rows], xerr=[r["stddev_s"] or 0 for r in rows], color="#1f77b4")
    axes[0].set_xlabel("seconds (hyperfine mean)")
    axes[1].barh(names, [(r["max_rss_kb"] or 0) / 1000 for r in rows], color="#2ca02c")
    axes[1].set_xlabel("peak RSS, MB (/usr/bin/time -v)")
    axes[1].set_xscale("log")
    axes[1].set_yticklabels([])
    axes[0].invert_yaxis()
    fig.suptitle("Table 7: %d lines, %d distinct" % (t7["lines"], t7["distinct"]), fontsize=9)
    return save_figure(fig, out, "t7_dedup", "end to end dedup", stamp)


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
