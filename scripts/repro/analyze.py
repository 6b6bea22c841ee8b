"""From the files a run wrote (data/*.json, data/*.csv) to tables.json: every table of the
report, every seed claim beside the value measured here, and a verdict with a one-line
reason computed from the data. The report (report.py) only formats tables.json.

Nothing here is typed in by hand except the seed claims (seed_claims.json) and the
published models a reason quotes (cited where used)."""

import csv
import json
import math
import os
import re

import advise_data

HERE = os.path.dirname(os.path.abspath(__file__))
LN2 = math.log(2)


# ---- formatting -------------------------------------------------------------------------
def g(x, digits=3):
    """A number with `digits` significant digits, no exponent for ordinary magnitudes."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    if x == 0:
        return "0"
    a = abs(x)
    if 1e-4 <= a < 1e7:
        d = max(0, digits - 1 - int(math.floor(math.log10(a))))
        return "%.*f" % (d, x)
    return "%.*g" % (digits, x)


def mib(b):
    return None if b is None else b / 1048576.0


def human_bytes(b):
    if b is None:
        return "n/a"
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= div:
            return "%s %s" % (g(b / div), unit)
    return "%d B" % b


def pct(x):
    return "n/a" if x is None else g(100 * x) + "%"


# ---- loading ----------------------------------------------------------------------------
def load_json(out, name):
    p = os.path.join(out, "data", name)
    if not os.path.exists(p):
        return None
    with open(p) as f:
        return json.load(f)


def load_csv(out, name):
    p = os.path.join(out, "data", name)
    if not os.path.exists(p):
        return None, []
    return advise_data.read_csv(p)


def num(x):
    return advise_data.num(x)


def fb_find(rows, **kw):
    """The first flbench CSV row matching every key (numbers compared as floats)."""
    for r in rows:
        ok = True
        for k, v in kw.items():
            rv = r.get(k)
            if isinstance(v, float) or isinstance(v, int):
                if num(rv) is None or abs(num(rv) - v) > 1e-9:
                    ok = False
                    break
            elif rv != v:
                ok = False
                break
        if ok:
            return r
    return None


def size_class(b, caches):
    if b is None:
        return "n/a"
    if caches.get("l1d") and b <= caches["l1d"]:
        return "L1"
    if caches.get("l2") and b <= caches["l2"]:
        return "L2"
    if caches.get("llc") and b <= caches["llc"]:
        return "LLC"
    return "DRAM"


# ---- the tables -------------------------------------------------------------------------
class Tables:
    def __init__(self, out, run):
        self.out = out
        self.run = run
        self.host = run["host"]
        self.caches = self.host["caches"]
        self.kernel = run["stamp"]["kernel_selected"]
        self.facts = {}      # measure key -> value (what claims are compared with)
        self.sources = {}    # measure key -> data file it came from
        self.tables = {}
        self.notes = []

    def fact(self, key, value, source):
        self.facts[key] = value
        self.sources[key] = source

    # table 1 --------------------------------------------------------------------------
    def t1(self):
        meta, time_rows = load_csv(self.out, "t1_time.csv")
        _, cg_rows = load_csv(self.out, "t1_callgrind.csv")
        _, cg2_rows = load_csv(self.out, "t1_callgrind_l2.csv")
        tj = load_json(self.out, "t1_time_context.json")
        ctx = (tj or {}).get("context", {})
        pmu = bool(ctx.get("pmu_available"))
        tsc_hz = (ctx.get("tsc") or {}).get("hz")
        rows = []
        kernels = []
        for r in time_rows:
            if r.get("op") == "lookup" and r["kernel"] not in kernels:
                kernels.append(r["kernel"])
        n_lookups = 1_000_000  # the seed's unit: per 1M lookups
        for kern in kernels:
            for hit in (1.0, 0.0):
                base = None
                for var in ("classic", "block512"):
                    r = fb_find(time_rows, op="lookup", filter=var, kernel=kern, hit_rate=hit)
                    if not r:
                        continue
                    ns = num(r["ns_per_op_median"])
                    cyc = num(r.get("cycles_per_op_median"))
                    tsc = num(r.get("tsc_cycles_per_op_median"))
                    cg = fb_find(cg_rows, op="lookup", filter=var, kernel=kern, hit_rate=hit) or {}
                    cg2 = fb_find(cg2_rows, op="lookup", filter=var, kernel=kern, hit_rate=hit) or {}
                    row = {
                        "variant": var, "kernel": kern, "hit_rate": hit, "k": int(float(r["k"])),
                        "filter_bytes": int(float(r["filter_bytes"])),
                        "ns_per_lookup": ns, "ms_per_1M": ns * n_lookups / 1e6 if ns else None,
                        "cycles_per_1M": (cyc if cyc is not None else tsc) * n_lookups if (cyc or tsc) else None,
                        "cycles_kind": "core (PMU)" if cyc is not None else "TSC",
                        "sim_d1": num(cg.get("sim_d1_misses_per_lookup")),
                        "sim_l2": num(cg2.get("sim_ll_misses_per_lookup")),
                        "sim_llc": num(cg.get("sim_ll_misses_per_lookup")),
                        "pmu_l1d": num(r.get("l1d_load_misses_per_op_median")),
                        "pmu_llc": num(r.get("llc_load_misses_per_op_median")),
                        "fpr_measured": num(r.get("fpr_measured")),
                        "cv_pct": num(r.get("ns_per_op_cv_pct")),
                    }
                    if var == "classic":
                        base = ns
                    row["speedup"] = (base / ns) if (base and ns and var == "block512") else None
                    rows.append(row)
        self.tables["t1"] = {"rows": rows, "pmu": pmu, "tsc_hz": tsc_hz,
                             "counter_note": ctx.get("counter_note"),
                             "sim_geometry": self._cg_geometry(), "kernels": kernels}

        def pick(var, hit, kern):
            return next((x for x in rows if x["variant"] == var and x["hit_rate"] == hit
                         and x["kernel"] == kern), None)
        sel = self.kernel if self.kernel in kernels else (kernels[-1] if kernels else None)
        sim_k = next((k for k in ("scalar",) + tuple(kernels) if any(
            x["kernel"] == k and x["sim_d1"] is not None for x in rows)), None)
        src = "data/t1_time.csv"
        for var in ("classic", "block512"):
            r = pick(var, 1.0, sel)
            if r:
                self.fact("t1.%s.ms" % var, r["ms_per_1M"], src)
                self.fact("t1.%s.cycles" % var, r["cycles_per_1M"], src)
                self.fact("t1.%s.bytes" % var, r["filter_bytes"], src)
            if pmu and r and r["pmu_l1d"] is not None:
                self.fact("t1.%s.misses" % var, r["pmu_l1d"], src)
            else:
                rs = pick(var, 1.0, sim_k) if sim_k else None
                self.fact("t1.%s.misses" % var, rs["sim_d1"] if rs else None, "data/t1_callgrind.csv")
                self.fact("t1.%s.sim_llc" % var, rs["sim_llc"] if rs else None, "data/t1_callgrind.csv")
                self.fact("t1.%s.sim_l2" % var, rs["sim_l2"] if rs else None, "data/t1_callgrind_l2.csv")
        b = pick("block512", 1.0, sel)
        self.fact("t1.speedup", b["speedup"] if b else None, src)
        self.tables["t1"]["selected_kernel"] = sel
        self.tables["t1"]["sim_kernel"] = sim_k
        self.tables["t1"]["misses_source"] = "real (PMU, L1D load misses)" if pmu else \
            "simulated (callgrind, L1D misses; this machine has no PMU)"
        # cuckoo's misses for table 2 (both buckets are read on a miss: hit rate 0)
        cc = fb_find(cg_rows, op="lookup", filter="cuckoo", kernel=sim_k or "scalar", hit_rate=0.0) or {}
        ct = fb_find(time_rows, op="lookup", filter="cuckoo", kernel=sel or "", hit_rate=0.0) or {}
        if pmu and num(ct.get("l1d_load_misses_per_op_median")) is not None:
            self.fact("t2.cuckoo.misses", num(ct.get("l1d_load_misses_per_op_median")), src)
        else:
            self.fact("t2.cuckoo.misses", num(cc.get("sim_d1_misses_per_lookup")), "data/t1_callgrind.csv")
        self.tables["t1"]["cuckoo"] = {"k": num(ct.get("k")), "filter_bytes": num(ct.get("filter_bytes")),
                                       "sim_d1": num(cc.get("sim_d1_misses_per_lookup")),
                                       "ns_per_lookup": num(ct.get("ns_per_op_median"))}

    def _cg_geometry(self):
        res = {}
        for tag, name in (("llc", "t1_callgrind_context.json"), ("l2", "t1_callgrind_l2_context.json")):
            d = load_json(self.out, name)
            if not d:
                continue
            c = d.get("context", {})
            res[tag] = {k: c.get(k) for k in c if k.startswith("callgrind") or k.startswith("valgrind")}
            if d.get("sim_notes"):
                res[tag]["note"] = "; ".join(d["sim_notes"])
        return res

    # table 2 --------------------------------------------------------------------------
    def t2(self):
        d = load_json(self.out, "t2_crawler.json")
        if not d:
            return
        rows = []
        src = "data/t2_crawler.json"
        n = d["n"]
        for r in d["rows"]:
            mem = r["heap_bytes"] if r["exact"] else r["payload_bytes"]
            row = dict(r)
            row["memory_bytes"] = mem
            row["bits_per_url"] = mem * 8 / n if mem else None
            rows.append(row)
            s = r["structure"]
            self.fact("t2.%s.bytes" % s, mem, src)
            self.fact("t2.%s.miss_ns" % s, r["miss_ns"], src)
            self.fact("t2.%s.hit_ns" % s, r["hit_ns"], src)
            self.fact("t2.%s.fpr" % s, r["fpr"], src)
        f = self.facts
        if f.get("t2.ghash.miss_ns") and f.get("t2.block512.miss_ns"):
            self.fact("t2.speedup", f["t2.ghash.miss_ns"] / f["t2.block512.miss_ns"], src)
        if f.get("t2.ghash.bytes") and f.get("t2.block512.bytes"):
            self.fact("t2.memory_reduction", f["t2.ghash.bytes"] / f["t2.block512.bytes"], src)
        if f.get("t2.classic.miss_ns") and f.get("t2.cuckoo16.miss_ns"):
            self.fact("t2.cuckoo.speedup", f["t2.classic.miss_ns"] / f["t2.cuckoo16.miss_ns"], src)
        self.tables["t2"] = {"rows": rows, "n": n, "mean_key_bytes": d["mean_key_bytes"],
                             "lookups": d["lookups"], "reps": d["reps"],
                             "glib_version": d.get("glib_version"), "bits_per_key": d.get("bits_per_key")}

    # table 3 --------------------------------------------------------------------------
    def t3(self):
        d = load_json(self.out, "t3_sizing.json")
        if not d:
            return
        n = d["n"]
        rows = [r for r in d["rows"]]
        src = "data/t3_sizing.json"
        classic_bpk = {}
        for r in rows:
            if r.get("error"):
                continue
            p = r["target_fpr"]
            if r["label"] == "library" and r["variant"] == "classic":
                key = "t3.classic.%g" % p
                self.fact(key + ".mib", mib(r["bytes"]), src)
                self.fact(key + ".k", r["k"], src)
                self.fact(key + ".bpk", r["bits_per_key"], src)
                self.fact(key + ".measured", r["measured_fpr"], src)
                classic_bpk[p] = r["bits_per_key"]
        # the seed's own formula, evaluated: m = -n ln p / (ln 2)^2, k = ceil((m/n) ln 2)
        formula = []
        for p in sorted({r["target_fpr"] for r in rows if r["label"] == "library"}, reverse=True):
            m = math.ceil(-n * math.log(p) / LN2 ** 2)
            formula.append({"target": p, "m_bits": m, "mib": m / 8 / 1048576,
                            "k_ceil": math.ceil(m / n * LN2), "k_round": round(m / n * LN2),
                            "bpk": m / n})
        ps = sorted(classic_bpk)
        if len(ps) >= 2:
            decades = math.log10(ps[-1] / ps[0])
            self.fact("t3.classic.bits_per_decade",
                      (classic_bpk[ps[0]] - classic_bpk[ps[-1]]) / decades if decades else None, src)
        per_var_decade = {}
        for v in ("classic", "block512", "split256", "reg64", "cuckoo"):
            pts = {r["target_fpr"]: r["bits_per_key"] for r in rows if r["label"] == "library"
                   and r["variant"] == v and not r.get("error")}
            if len(pts) >= 2:
                a, b = min(pts), max(pts)
                per_var_decade[v] = (pts[a] - pts[b]) / math.log10(b / a)
        self.tables["t3"] = {"n": n, "queries": d["queries"], "rows": rows, "formula": formula,
                             "bits_per_decade": per_var_decade}

    # table 4 --------------------------------------------------------------------------
    def t4(self):
        d = load_json(self.out, "t4_fill.json")
        if not d:
            return
        rows = [r for r in d["rows"] if not r.get("error")]
        src = "data/t4_fill.json"
        n = d["n"]
        # the seed's own setup: m = ceil(-n ln 0.01 / ln2^2), k = ceil((m/n) ln 2) = 7
        m = math.ceil(-n * math.log(0.01) / LN2 ** 2)
        k = math.ceil(m / n * LN2)
        for r in rows:
            r["seed_formula"] = (1 - math.exp(-k * r["fill"] * n / m)) ** k if r["variant"] == "classic" else None
            if r["variant"] == "classic":
                self.fact("t4.classic.%g" % r["fill"], r["measured_fpr"], src)
                self.fact("t4.classic.%g.model" % r["fill"], r["seed_formula"], src)
        self.tables["t4"] = {"n": n, "queries": d["queries"], "rows": rows, "seed_m": m, "seed_k": k,
                             "errors": [r for r in d["rows"] if r.get("error")]}

    # tables 5 and 6 -------------------------------------------------------------------
    @staticmethod
    def ideal_cuckoo_bpk(eps, extra_bits=3.0, load=0.955):
        """Fan et al. 2014, section 5.2: (log2(1/eps) + 3) / alpha bits per key with b = 4
        and any fingerprint width (+2 with semi-sorted buckets), alpha = 95.5%."""
        return (math.log2(1 / eps) + extra_bits) / load

    def t5(self):
        d = load_json(self.out, "t5_space.json")
        if not d:
            return
        src = "data/t5_space.json"
        rows = d["rows"]
        targets = sorted({r["target_fpr"] for r in rows}, reverse=True)
        pivot = []
        for t in targets:
            pr = {"target": t}
            for r in rows:
                if r["target_fpr"] != t:
                    continue
                if r.get("error"):
                    pr[r["variant"]] = {"error": r["error"]}
                else:
                    pr[r["variant"]] = {"bpk": r["bits_per_key"], "measured": r["measured_fpr"],
                                        "fp": r["false_positives"], "k": r["k"], "bytes": r["bytes"]}
            pr["ideal_cuckoo"] = self.ideal_cuckoo_bpk(t)
            pr["ideal_cuckoo_semisort"] = self.ideal_cuckoo_bpk(t, 2.0)
            pr["bound"] = math.log2(1 / t)
            c, b = pr.get("cuckoo", {}), pr.get("classic", {})
            if "bpk" in c and "bpk" in b:
                pr["cuckoo_wins"] = c["bpk"] < b["bpk"]
            pivot.append(pr)
            if "bpk" in pr.get("classic", {}):
                self.fact("t5.classic.%g.bpk" % t, pr["classic"]["bpk"], src)
            if "bpk" in pr.get("cuckoo", {}):
                self.fact("t5.cuckoo.%g.bpk" % t, pr["cuckoo"]["bpk"], src)
        wins = [p["target"] for p in pivot if p.get("cuckoo_wins")]
        self.fact("t5.crossover", max(wins) if wins else None, src)
        self.tables["t5"] = {"n": d["n"], "queries": d["queries"], "pivot": pivot, "wins": wins,
                             "ideal_crossover": self._crossover(3.0),
                             "ideal_crossover_semisort": self._crossover(2.0)}
        # cuckoo FPR against 2b/2^f
        dc = load_json(self.out, "t5_cuckoo.json")
        if dc:
            crow = [r for r in dc["rows"] if not r.get("error")]
            for r in crow:
                r["ratio_to_2b_2f"] = r["measured_fpr"] / r["formula_2b_over_2f"]
            self.tables["t5"]["cuckoo"] = crow
            self.tables["t5"]["cuckoo_buckets"] = crow[0]["units"] if crow else None
            self.tables["t5"]["cuckoo_queries"] = dc["queries"]
            lo = [r for r in crow if abs(r["load_wanted"] - 0.125) < 1e-9]
            hi = [r for r in crow if abs(r["load_wanted"] - 0.94) < 1e-9]
            srcc = "data/t5_cuckoo.json"
            if lo:
                ratio = sum(r["ratio_to_2b_2f"] for r in lo) / len(lo)
                self.fact("t5.cuckoo_seed_example", ratio * 8 / 4096, srcc)
                self.fact("t5.cuckoo_seed_example.ratio", ratio, srcc)
            if hi:
                self.fact("t5.cuckoo_full_ratio", sum(r["ratio_to_2b_2f"] for r in hi) / len(hi), srcc)
                self.fact("t5.cuckoo_full_load", sum(r["load"] for r in hi) / len(hi), srcc)
        # table 6: bits per key over log2(1/FPR)
        t6 = []
        for r in rows:
            if r.get("error") or not r["false_positives"]:
                continue
            lm = math.log2(1 / r["measured_fpr"])
            t6.append({"variant": r["variant"], "target": r["target_fpr"], "bpk": r["bits_per_key"],
                       "measured": r["measured_fpr"], "fp": r["false_positives"],
                       "bound_measured": lm, "factor": r["bits_per_key"] / lm,
                       "factor_target": r["bits_per_key"] / math.log2(1 / r["target_fpr"]),
                       "precise": r["false_positives"] >= 100})
        means = {}
        for v in ("classic", "block512", "split256", "reg64", "cuckoo"):
            fs = [x["factor"] for x in t6 if x["variant"] == v and x["precise"]]
            if fs:
                means[v] = sum(fs) / len(fs)
        if "classic" in means:
            self.fact("t6.classic.factor", means["classic"], src)
            self.fact("t6.classic.efficiency", 1 / means["classic"], src)
        self.tables["t6"] = {"rows": t6, "mean_factor": means}

    @staticmethod
    def _crossover(extra):
        """eps where (log2(1/eps) + extra)/0.955 = log2(1/eps)/ln 2 (bisection on log2(1/eps))."""
        f = lambda L: (L + extra) / 0.955 - L / LN2  # noqa: E731
        lo, hi = 0.1, 60.0
        if f(lo) * f(hi) > 0:
            return None
        for _ in range(100):
            mid = (lo + hi) / 2
            if f(lo) * f(mid) <= 0:
                hi = mid
            else:
                lo = mid
        return 2 ** -lo

    # table 7 --------------------------------------------------------------------------
    def t7(self):
        d = load_json(self.out, "t7_dedup.json")
        if not d:
            return
        hf = None
        if d.get("hyperfine_export"):
            with open(os.path.join(self.out, "data", d["hyperfine_export"])) as f:
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
        src = "data/t7_dedup.json"
        by = {r["name"]: r for r in rows}
        dd = by.get("filterlab dedup (block512)")
        awk = by.get("awk '!seen[$0]++'")
        if dd and awk and dd["max_rss_kb"] and awk["max_rss_kb"]:
            self.fact("t7.memory_reduction", awk["max_rss_kb"] / dd["max_rss_kb"], src)
        if dd and awk and dd.get("mean_s") and awk.get("mean_s"):
            self.fact("t7.speedup_vs_awk", awk["mean_s"] / dd["mean_s"], "data/hyperfine/t7_dedup.json")
        self.tables["t7"] = {"rows": rows, "distinct": d["distinct"], "lines": d["lines"],
                             "input_bytes": d["input_bytes"], "awk": d.get("awk"),
                             "awk_version": d.get("awk_version"), "sort_version": d.get("sort_version"),
                             "hyperfine_export": d.get("hyperfine_export")}

    # table 8 --------------------------------------------------------------------------
    def t8(self):
        rows = advise_data.lookup_rows(self.out)
        if not rows:
            return
        main_fpr = 0.01 if any(r["target_fpr"] == 0.01 for r in rows) else rows[0]["target_fpr"]
        # the memory probe: dependent-load latency at each footprint (pointer chasing)
        latency = advise_data.latencies(self.out)
        mem_like = advise_data.memory_like_from(latency)
        hits = sorted({r["hit_rate"] for r in rows})
        hit = 0.5 if 0.5 in hits else hits[0]
        sel = [r for r in rows if r["target_fpr"] == main_fpr and r["hit_rate"] == hit]
        targets = sorted({r["target"] for r in sel})
        kernels = []
        for r in sel:
            if r["kernel"] not in kernels:
                kernels.append(r["kernel"])
        pivot = []
        for t in targets:
            for v in ("classic", "block512", "split256", "reg64", "cuckoo"):
                cells = {r["kernel"]: r for r in sel if r["target"] == t and r["variant"] == v}
                if not cells:
                    continue
                any_r = next(iter(cells.values()))
                best_k = min(cells, key=lambda k: cells[k]["ns_per_lookup"] or 1e99)
                pivot.append({"target": t, "variant": v, "filter_bytes": any_r["filter_bytes"],
                              "class": size_class(any_r["filter_bytes"], self.caches),
                              "k": any_r["k"], "bpk": any_r["bits_per_key"],
                              "fpr_measured": any_r["fpr_measured"],
                              "ns": {k: cells[k]["ns_per_lookup"] for k in cells},
                              "cv": {k: cells[k]["cv_pct"] for k in cells},
                              "best_kernel": best_k, "bound": any_r["bound_ns_per_line"],
                              "latency": latency.get(any_r["filter_bytes"]) or latency.get(t)})
        # the fastest (variant, kernel) per size, and the runner-up
        best = []
        for t in targets:
            cand = [(r["ns_per_lookup"], r["variant"], r["kernel"], r) for r in sel
                    if r["target"] == t and r["ns_per_lookup"] is not None
                    and (r["fpr_measured"] is None or r["fpr_measured"] <= 1.25 * main_fpr)]
            cand.sort(key=lambda x: x[0])
            if cand:
                r0 = cand[0][3]
                best.append({"target": t, "class": size_class(r0["filter_bytes"], self.caches),
                             "first": {"variant": cand[0][1], "kernel": cand[0][2], "ns": cand[0][0],
                                       "bytes": r0["filter_bytes"]},
                             "second": ({"variant": cand[1][1], "kernel": cand[1][2], "ns": cand[1][0],
                                         "bytes": cand[1][3]["filter_bytes"]} if len(cand) > 1 else None)})
        src = "data/t8_sweep.csv"
        kern = self.kernel if self.kernel in kernels else kernels[-1]
        big = max(targets)

        def ns_at(v, t, k):
            r = next((x for x in sel if x["variant"] == v and x["target"] == t and x["kernel"] == k), None)
            return r["ns_per_lookup"] if r else None
        speedups = []
        for t in targets:
            c, b, cu = ns_at("classic", t, kern), ns_at("block512", t, kern), ns_at("cuckoo", t, kern)
            speedups.append({"target": t, "class": size_class(t, self.caches),
                             "block512": c / b if c and b else None,
                             "cuckoo": c / cu if c and cu else None})
        c, b, cu = ns_at("classic", big, kern), ns_at("block512", big, kern), ns_at("cuckoo", big, kern)
        self.fact("t8.speedup_dram", c / b if c and b else None, src)
        self.fact("t8.cuckoo_speedup_dram", c / cu if c and cu else None, src)
        self.fact("t8.largest_bytes", big, src)
        self.fact("t8.largest_class", size_class(big, self.caches), src)
        sj = load_json(self.out, "t8_sweep_context.json")
        self.fact("t8.memory_like_from", mem_like, src)
        self.tables["t8"] = {"latency": {str(k): v for k, v in sorted(latency.items())},
                             "memory_like_from": mem_like,
                             "fpr": main_fpr, "hit_rate": hit, "hit_rates": hits, "kernels": kernels,
                             "kernel": kern, "targets": targets, "pivot": pivot, "best": best,
                             "speedups": speedups, "all_rows": len(rows),
                             "fprs": sorted({r["target_fpr"] for r in rows}),
                             "pmu": bool(((sj or {}).get("context") or {}).get("pmu_available"))}

    # advice ---------------------------------------------------------------------------
    def advice(self):
        ex = load_json(self.out, "advise_examples.json")
        self.tables["advice"] = {"examples": (ex or {}).get("examples", [])}

    # claims ---------------------------------------------------------------------------
    def claims(self):
        with open(os.path.join(HERE, "seed_claims.json")) as f:
            spec = json.load(f)
        res = []
        for c in spec["claims"]:
            m = self.facts.get(c["measure"])
            verdict, reason = self.verdict(c, m)
            res.append({"id": c["id"], "table": c["table"], "seed": c["seed"], "section": c["section"],
                        "quote": c["quote"], "seed_value": c["value"], "unit": c["unit"],
                        "kind": c["kind"], "tolerance": c["tolerance"], "measured": m,
                        "source": self.sources.get(c["measure"]), "verdict": verdict, "reason": reason})
        self.tables["claims"] = res
        self.tables["kinds"] = spec["kinds"]

    def verdict(self, c, m):
        v, tol, kind = c["value"], c["tolerance"], c["kind"]
        if m is None:
            return "not measured", "the run produced no value for %s" % c["measure"]
        rel = (m - v) / v if v else float("inf")
        within = abs(rel) <= tol + 1e-12
        consistent = False
        if kind == "fpr" and c.get("tests") and not within:
            consistent = self._binom_consistent(v, m, c["tests"])
        holds = within or consistent
        custom = getattr(self, "why_" + c["id"].replace(".", "_"), None)
        reason = custom(c, m, holds) if custom else None
        if holds:
            verdict = "holds"
        elif kind == "machine":
            verdict = "different machine"
        elif kind == "ratio":
            verdict = "different machine" if self._cache_explains(c) else "does not hold"
        else:
            verdict = "does not hold"
        if isinstance(reason, tuple):
            verdict, reason = reason
        if not reason:
            reason = "%s here vs %s in the seed (%+.0f%%, tolerance %.0f%%)" % (
                self.show(m, c), self.show(v, c), 100 * rel, 100 * tol)
            if consistent:
                reason += "; the seed's count is within its own sampling error at %d tests" % c["tests"]
        return verdict, reason

    def _cache_explains(self, c):
        return c["id"] in ("t1.speedup", "t2.speedup", "t2.cuckoo.speedup")

    @staticmethod
    def _binom_consistent(seed_rate, true_rate, tests):
        try:
            from scipy.stats import binom
        except ImportError:
            return False
        k = round(seed_rate * tests)
        lo = binom.cdf(k, tests, true_rate)
        hi = binom.sf(k - 1, tests, true_rate)
        return min(lo, hi) > 0.005

    @staticmethod
    def show(x, c):
        u = c["unit"]
        if x is None:
            return "n/a"
        if u == "bytes":
            return "%s MB" % g(x / 1e6)
        if u == "FPR":
            return pct(x)
        if u.startswith("cycles"):
            return "%sM" % g(x / 1e6)
        if u.startswith("ms "):
            return g(x) + " ms"
        if u.startswith("ns "):
            return g(x) + " ns"
        if u.startswith("bits per key") and not u.startswith("bits per key per"):
            return g(x) + " bits/key"
        if u == "x" or u.startswith("x "):
            return g(x) + "x"
        return g(x)

    # per-claim reasons (computed from the data) ---------------------------------------
    def _fits(self, b):
        c = self.caches
        cls = size_class(b, c)
        ml = (self.tables.get("t8") or {}).get("memory_like_from")
        if ml and b and b >= ml and cls in ("LLC", "L2"):
            return "DRAM", ("the %s structure is past %s, where this machine's memory latency is already "
                            "DRAM-like (table 8), although sysfs reports a %s last-level cache" % (
                                human_bytes(b), human_bytes(ml), human_bytes(c["llc"])))
        where = {"L1": "the %s L1d" % human_bytes(c["l1d"]), "L2": "the %s L2" % human_bytes(c["l2"]),
                 "LLC": "the %s last-level cache" % human_bytes(c["llc"])}.get(cls)
        return cls, ("the %s filter fits in %s here" % (human_bytes(b), where)) if where else \
            ("the %s filter is larger than the %s last-level cache" % (human_bytes(b), human_bytes(c["llc"])))

    def _t1_machine(self, c, m, holds, what):
        b = self.facts.get("t1.classic.bytes")
        cls, fits = self._fits(b) if b else ("n/a", "")
        ratio = c["value"] / m if m else None
        txt = "%s; %s here with %s vs %s in the seed (%sx %s)" % (
            fits, self.show(m, c), self.tables.get("t1", {}).get("selected_kernel"), self.show(c["value"], c),
            g(ratio if ratio and ratio >= 1 else (1 / ratio if ratio else None)),
            "faster" if ratio and ratio >= 1 else "slower")
        if what == "cycles" and self.tables.get("t1", {}).get("rows") and \
                self.tables["t1"]["rows"][0]["cycles_kind"] == "TSC":
            txt += "; cycles are TSC ticks (%s GHz reference clock: no PMU here)" % g((self.tables["t1"].get("tsc_hz") or 0) / 1e9)
        return txt

    def why_t1_classic_cycles(self, c, m, holds):
        return self._t1_machine(c, m, holds, "cycles")

    why_t1_block512_cycles = why_t1_classic_cycles

    def why_t1_classic_time(self, c, m, holds):
        return self._t1_machine(c, m, holds, "time")

    why_t1_block512_time = why_t1_classic_time

    def _t1_misses(self, var, m):
        src = self.tables.get("t1", {}).get("misses_source", "")
        llc = self.facts.get("t1.%s.sim_llc" % var)
        l2 = self.facts.get("t1.%s.sim_l2" % var)
        b = self.facts.get("t1.%s.bytes" % var)
        _, fits = self._fits(b) if b else ("", "")
        txt = "%s L1D misses per lookup, %s" % (g(m), src.split(" (")[0])
        if llc is not None:
            txt += "; simulated with the L2 as last level %s, with the LLC %s per lookup%s: %s, so they are served by the L2, not by memory" % (
                g(l2), g(llc), " (about 1/8: one 64-byte line per 8 keys of the key stream itself)"
                if l2 is not None and abs(l2 - 0.125) < 0.02 else "", fits)
        return txt

    def why_t1_classic_misses(self, c, m, holds):
        return self._t1_misses("classic", m)

    def why_t1_block512_misses(self, c, m, holds):
        return self._t1_misses("block512", m)

    def why_t1_speedup(self, c, m, holds):
        b = self.facts.get("t1.classic.bytes")
        cls, fits = self._fits(b) if b else ("n/a", "")
        t1 = self.tables.get("t1", {})
        per_kernel = ", ".join("%s %sx" % (r["kernel"], g(r["speedup"])) for r in t1.get("rows", [])
                               if r["variant"] == "block512" and r["hit_rate"] == 1.0 and r["speedup"])
        dram = self.facts.get("t8.speedup_dram")
        big = self.facts.get("t8.largest_bytes")
        txt = "%s%sx with %s (per kernel: %s); %s" % (self._bigger(c, m) if not holds else "", g(m),
                                                     t1.get("selected_kernel"), per_kernel, fits)
        if dram:
            txt += "; at %s (table 8) it is %sx" % (human_bytes(big), g(dram))
        if holds:
            return txt
        if m < c["value"] and cls in ("L1", "L2", "LLC"):
            return "different machine", txt + ": classic's extra misses cost L2 hits here, not memory accesses"
        return "does not hold", txt

    def why_t2_hashtable_memory(self, c, m, holds):
        t2 = self.tables.get("t2", {})
        n, mean = t2.get("n"), t2.get("mean_key_bytes")
        keys = n * (mean + 1) if n and mean else None
        txt = "GLib %s: %s MB for %s URLs, of which %s MB are the URL copies (%s B each with NUL); the seed's 128 MB is its whole crawler (96 MB table + 32 MB other)" % (
            t2.get("glib_version"), g(m / 1e6), n, g(keys / 1e6) if keys else "n/a", g(mean + 1) if mean else "n/a")
        return txt

    def why_t2_hashtable_lookup(self, c, m, holds):
        oa = self.facts.get("t2.oaset.miss_ns")
        xx = self.facts.get("t2.ghash_xxh3.miss_ns")
        gb = self.facts.get("t2.ghash.bytes")
        _, fits = self._fits(gb) if gb else ("", "")
        return "GHashTable: %s ns per never-inserted URL (g_str_hash is djb2, one step per byte; with XXH3 %s ns; the open-addressing set %s ns); %s" % (
            g(m), g(xx), g(oa), fits)

    def why_t2_speedup(self, c, m, holds):
        b = self.facts.get("t2.block512.bytes")
        _, fits = self._fits(b) if b else ("", "")
        gb = self.facts.get("t2.ghash.bytes")
        _, gfits = self._fits(gb) if gb else ("", "")
        gcls, gfits = self._fits(gb) if gb else ("", "")
        txt = "%sx: %s; for the GLib table: %s" % (g(m), fits, gfits)
        if holds:
            return txt
        return ("different machine" if size_class(b, self.caches) != "DRAM" else "does not hold"), txt

    def _t2_lookup(self, structure, c, m):
        b = self.facts.get("t2.%s.bytes" % structure)
        _, fits = self._fits(b) if b else ("", "")
        hit = self.facts.get("t2.%s.hit_ns" % structure)
        rows = {r["structure"]: r for r in (self.tables.get("t2") or {}).get("rows", [])}
        batch = (rows.get(structure) or {}).get("miss_ns_batch")
        close = c["value"] and m and abs(m - c["value"]) <= c["tolerance"] * c["value"]
        return ("%s ns per never-inserted URL, %s ns per inserted one, one URL at a time (hashing the %s-byte "
                "URL included; batches of 1024 through the %s kernel: %s ns); %s; %s") % (
            g(m), g(hit), g((self.tables.get("t2") or {}).get("mean_key_bytes")), self.kernel, g(batch), fits,
            "close to the seed's %s ns" % g(c["value"]) if close else "the seed's %s ns is another machine" % g(c["value"]))

    def why_t2_naive_lookup(self, c, m, holds):
        return self._t2_lookup("classic", c, m)

    def why_t2_blocked_lookup(self, c, m, holds):
        return self._t2_lookup("block512", c, m)

    def why_t2_cuckoo_lookup(self, c, m, holds):
        return self._t2_lookup("cuckoo16", c, m)

    def why_t2_cuckoo_bloom_lookup(self, c, m, holds):
        return self._t2_lookup("classic", c, m) + "; the seed's Final Benchmark gives the same Bloom filter 375 ns (naive) or 45 ns (blocked)"

    def why_t2_cuckoo_misses(self, c, m, holds):
        t = self.tables.get("t1", {}).get("cuckoo", {})
        return "%s L1D misses per never-inserted key (%s; cuckoo in table 1's run: %s, 10 bits per key): two buckets, but often in one cache line pair or already cached" % (
            g(m), self.tables.get("t1", {}).get("misses_source", "").split(" (")[0], human_bytes(t.get("filter_bytes")))

    def why_t2_cuckoo_memory(self, c, m, holds):
        c8 = self.facts.get("t2.cuckoo8.bytes")
        f8 = self.facts.get("t2.cuckoo8.fpr")
        ideal = self.ideal_cuckoo_bpk(0.01) * self.tables.get("t2", {}).get("n", 0) / 8
        return "to promise 1%% the library needs 16-bit fingerprints: %s MB; the %s MB filter with 8-bit fingerprints measures %s FPR; even an ideal cuckoo filter (any fingerprint width, Fan et al. 2014 sec. 5.2) needs %s MB at 1%%, more than classic's %s MB" % (
            g(m / 1e6), g(c8 / 1e6) if c8 else "n/a", pct(f8), g(ideal / 1e6),
            g(self.facts.get("t2.classic.bytes", 0) / 1e6))

    def why_t2_cuckoo_speedup(self, c, m, holds):
        b = self.facts.get("t2.classic.bytes")
        _, fits = self._fits(b) if b else ("", "")
        cb = self.facts.get("t2.cuckoo16.bytes")
        _, cfits = self._fits(cb) if cb else ("", "")
        txt = "%s%sx: classic %s ns vs cuckoo (16-bit fingerprints, the size 1%% needs) %s ns per URL, one at a time, hashing included; for classic %s; for cuckoo %s" % (
            self._bigger(c, m), g(m), g(self.facts.get("t2.classic.miss_ns")), g(self.facts.get("t2.cuckoo16.miss_ns")),
            fits, cfits)
        if holds:
            return txt
        return "different machine", txt

    def why_t2_blocked_fpr(self, c, m, holds):
        return "%s measured on %d never-inserted URLs at 10 bits per URL, k = 7; a blocked filter needs more bits than classic (%s) for the same FPR (table 3)" % (
            pct(m), self.tables.get("t2", {}).get("lookups", 0), pct(self.facts.get("t2.classic.fpr")))

    def why_t3_p3_k(self, c, m, holds):
        row = next((r for r in self.tables.get("t3", {}).get("formula", []) if abs(r["target"] - 1e-4) < 1e-12), None)
        seedk = next((r for r in self.tables.get("t3", {}).get("rows", []) if r.get("label") == "seed_k_ceil"
                      and abs(r["target_fpr"] - 1e-4) < 1e-12 and not r.get("error")), None)
        lib = self.facts.get("t3.classic.0.0001.measured")
        if not row:
            return None
        txt = "(m/n) ln 2 = %s: the library rounds to %d, the seed's code rounds up (math.ceil) to %d" % (
            g(row["bpk"] * LN2, 4), row["k_round"], row["k_ceil"])
        if seedk and lib is not None:
            txt += "; measured FPR with k = %d: %s, with k = %d: %s" % (row["k_round"], g(lib), seedk["k"], g(seedk["measured_fpr"]))
        return txt

    def _t3_bytes(self, p):
        def why(c, m, holds):
            row = next((r for r in self.tables.get("t3", {}).get("formula", []) if abs(r["target"] - p) < 1e-12), None)
            if not row:
                return None
            return "%s MiB here (%s bytes); the seed's own formula gives m = %s bits = %s MiB, so its printed %s is off by %s MiB" % (
                g(m, 4), "{:,}".format(round(m * 1048576)), "{:,}".format(row["m_bits"]), g(row["mib"], 4),
                g(c["value"], 4), g(c["value"] - row["mib"], 2))
        return why

    def __getattr__(self, name):
        m = re.match(r"why_t3_p([123])_bytes$", name)
        if m:
            return self._t3_bytes({"1": 0.01, "2": 0.001, "3": 0.0001}[m.group(1)])
        raise AttributeError(name)

    def _t4(self, fill):
        def why(c, m, holds):
            model = self.facts.get("t4.classic.%g.model" % fill)
            return "%s measured (%d queries); the seed's own formula (1-e^(-kn/m))^k gives %s at %d%% fill; the seed's %s %s" % (
                g(m), self.tables.get("t4", {}).get("queries", 0), g(model), round(fill * 100), g(c["value"]),
                "is within its 10,000-test sampling error" if self._binom_consistent(c["value"], m, c.get("tests", 10000))
                else "is %s than the formula by %s%%" % ("lower" if c["value"] < (model or 0) else "higher",
                                                         g(abs(c["value"] - model) / model * 100 if model else 0, 2)))
        return why

    def why_t4_fill50(self, c, m, h):
        return self._t4(0.5)(c, m, h)

    def why_t4_fill100(self, c, m, h):
        return self._t4(1.0)(c, m, h)

    def why_t4_fill150(self, c, m, h):
        return self._t4(1.5)(c, m, h)

    def why_t4_fill200(self, c, m, h):
        return self._t4(2.0)(c, m, h)

    def why_t4_fill300(self, c, m, h):
        return self._t4(3.0)(c, m, h)

    def why_t5_crossover(self, c, m, holds):
        t5 = self.tables.get("t5", {})
        ideal, ideal2 = t5.get("ideal_crossover"), t5.get("ideal_crossover_semisort")
        wins = t5.get("wins") or []
        if m is None:
            txt = "cuckoo never needs fewer bits than classic at the measured targets"
        else:
            txt = "here cuckoo needs fewer bits than classic only at FPR <= %s (targets %s)" % (
                g(m), ", ".join(g(w) for w in sorted(wins, reverse=True)))
        txt += "; filterlab's fingerprints are 8 or 16 bits, so cuckoo costs 8.5 or 17 bits/key; with any width the model (log2(1/e)+3)/0.955 crosses classic at %s, and %s with semi-sorted buckets (Fan et al. 2014)" % (
            pct(ideal), pct(ideal2))
        return ("does not hold", txt) if not holds else txt

    def why_t5_cuckoo_formula(self, c, m, holds):
        ratio = self.facts.get("t5.cuckoo_seed_example.ratio")
        return ("does not hold" if not holds else "holds"), (
            "the seed's example fills 5000 of 40000 slots (load 12.5%%); measured with 8- and 16-bit fingerprints at that load, the FPR is %s of 2b/2^f, so its f = 12 filter would show about %s, not 8/4096 = 0.002: 2b/2^f is the full-table rate, the FPR is alpha*2b/2^f" % (
                g(ratio), g(m)))

    def why_t5_cuckoo_bound(self, c, m, holds):
        return "measured FPR / (2b/2^f) = %s at load %s (mean of f = 8 and 16): the formula holds for a full table, scaled by the load" % (
            g(m), g(self.facts.get("t5.cuckoo_full_load")))

    def why_t5_summary_cuckoo(self, c, m, holds):
        return "%s bits/key: at 0.1%% filterlab uses 16-bit fingerprints (8-bit ones cannot go below ~1.6%%); 12-bit fingerprints at 95.5%% load would need %s bits/key (Fan et al. 2014)" % (
            g(m), g(12 / 0.955))

    def why_t6_bloom_factor(self, c, m, holds):
        means = self.tables.get("t6", {}).get("mean_factor", {})
        return "classic uses %sx log2(1/FPR) bits per key (measured FPR, mean over targets with >= 100 false positives); block512 %sx, split256 %sx, cuckoo %sx" % (
            g(m), g(means.get("block512")), g(means.get("split256")), g(means.get("cuckoo")))

    def why_t7_memory_reduction(self, c, m, holds):
        rows = {r["name"]: r for r in self.tables.get("t7", {}).get("rows", [])}
        dd, awk = rows.get("filterlab dedup (block512)"), rows.get("awk '!seen[$0]++'")
        txt = self._bigger(c, m) + "peak RSS: awk %s MB, filterlab dedup %s MB for %d lines (%d distinct); the seed's own lines say 128 MB -> 18 MB (7.1x) and 128 MB -> 12 MB (10.7x)" % (
            g(awk["max_rss_kb"] / 1000) if awk else "n/a", g(dd["max_rss_kb"] / 1000) if dd else "n/a",
            self.tables.get("t7", {}).get("lines", 0), self.tables.get("t7", {}).get("distinct", 0))
        if holds:
            return txt
        return ("does not hold" if m and m > c["value"] else "different machine"), txt

    def _bigger(self, c, m):
        if m is None:
            return ""
        return "%s here: " % ("larger" if m > c["value"] else "smaller")

    def why_t8_blocked_speedup(self, c, m, holds):
        sp = self.tables.get("t8", {}).get("speedups", [])
        txt = "%sclassic/block512 with %s: %s" % (self._bigger(c, m), self.tables.get("t8", {}).get("kernel"), ", ".join(
            "%s %sx" % (human_bytes(s["target"]), g(s["block512"])) for s in sp if s["block512"]))
        if holds:
            return txt
        big = self.facts.get("t8.largest_bytes")
        return ("different machine" if size_class(big, self.caches) != "DRAM" else "does not hold"), txt

    def why_t8_cuckoo_speedup(self, c, m, holds):
        sp = self.tables.get("t8", {}).get("speedups", [])
        txt = "%sclassic/cuckoo with %s: %s" % (self._bigger(c, m), self.tables.get("t8", {}).get("kernel"), ", ".join(
            "%s %sx" % (human_bytes(s["target"]), g(s["cuckoo"])) for s in sp if s["cuckoo"]))
        if holds:
            return txt
        big = self.facts.get("t8.largest_bytes")
        return ("different machine" if size_class(big, self.caches) != "DRAM" else "does not hold"), txt

    # ---------------------------------------------------------------------------------
    def build(self):
        for step in (self.t1, self.t2, self.t3, self.t4, self.t5, self.t7, self.t8, self.advice):
            step()
        self.claims()
        return {"run": self.run, "facts": self.facts, "sources": self.sources, "tables": self.tables}


def write_table_csvs(out, doc):
    """tables/*.csv: the report's tables as CSV (numbers unrounded)."""
    d = os.path.join(out, "tables")
    os.makedirs(d, exist_ok=True)
    stamp = doc["run"]["stamp"]
    head = "".join("# %s=%s\n" % (k, v) for k, v in stamp.items())

    def dump(name, rows, cols):
        with open(os.path.join(d, name), "w", newline="") as f:
            f.write(head)
            w = csv.writer(f)
            w.writerow(cols)
            for r in rows:
                w.writerow(["" if r.get(c) is None else r.get(c) for c in cols])
    T = doc["tables"]
    if "t1" in T:
        dump("t1_naive_vs_blocked.csv", T["t1"]["rows"],
             ["variant", "kernel", "hit_rate", "k", "filter_bytes", "ns_per_lookup", "ms_per_1M",
              "cycles_per_1M", "cycles_kind", "sim_d1", "sim_l2", "sim_llc", "pmu_l1d", "pmu_llc",
              "speedup", "fpr_measured", "cv_pct"])
    if "t2" in T:
        dump("t2_crawler.csv", T["t2"]["rows"],
             ["structure", "exact", "describe", "memory_bytes", "heap_bytes", "payload_bytes",
              "bits_per_url", "insert_ns", "miss_ns", "hit_ns", "miss_ns_batch", "hit_ns_batch",
              "fpr", "false_positives", "false_negatives", "lookups"])
    if "t3" in T:
        dump("t3_sizing.csv", T["t3"]["rows"],
             ["label", "variant", "target_fpr", "n", "k", "units", "bytes", "bits_per_key",
              "predicted_fpr", "measured_fpr", "false_positives", "queries", "error"])
    if "t4" in T:
        dump("t4_fill.csv", T["t4"]["rows"],
             ["variant", "fill", "inserted", "full", "k", "bytes", "predicted_fpr", "measured_fpr",
              "seed_formula", "false_positives", "queries"])
    if "t5" in T:
        rows = []
        for p in T["t5"]["pivot"]:
            r = {"target": p["target"], "bound_bits": p["bound"], "ideal_cuckoo_bits": p["ideal_cuckoo"],
                 "ideal_cuckoo_semisort_bits": p["ideal_cuckoo_semisort"]}
            for v in ("classic", "block512", "split256", "reg64", "cuckoo"):
                c = p.get(v, {})
                r[v + "_bits"] = c.get("bpk")
                r[v + "_measured_fpr"] = c.get("measured")
            rows.append(r)
        cols = ["target", "bound_bits"] + [v + s for v in ("classic", "block512", "split256", "reg64", "cuckoo")
                                           for s in ("_bits", "_measured_fpr")] + \
            ["ideal_cuckoo_bits", "ideal_cuckoo_semisort_bits"]
        dump("t5_space.csv", rows, cols)
        if T["t5"].get("cuckoo"):
            dump("t5_cuckoo_fpr.csv", T["t5"]["cuckoo"],
                 ["fingerprint_bits", "units", "load_wanted", "load", "inserted", "measured_fpr",
                  "formula_2b_over_2f", "formula_at_load", "ratio_to_2b_2f", "predicted_fpr", "queries"])
    if "t6" in T:
        dump("t6_bound.csv", T["t6"]["rows"],
             ["variant", "target", "bpk", "measured", "fp", "bound_measured", "factor", "factor_target", "precise"])
    if "t7" in T:
        dump("t7_dedup.csv", T["t7"]["rows"],
             ["name", "command", "mean_s", "stddev_s", "min_s", "runs", "max_rss_kb", "output_lines", "dropped", "status"])
    if "t8" in T:
        rows = []
        for p in T["t8"]["pivot"]:
            r = {k: p[k] for k in ("target", "variant", "filter_bytes", "class", "k", "bpk", "fpr_measured",
                                   "best_kernel", "bound")}
            for k in T["t8"]["kernels"]:
                r["ns_" + k] = p["ns"].get(k)
            rows.append(r)
        dump("t8_sweep.csv", rows, ["target", "variant", "filter_bytes", "class", "k", "bpk", "fpr_measured"]
             + ["ns_" + k for k in T["t8"]["kernels"]] + ["best_kernel", "bound"])
    dump("claims.csv", T["claims"], ["id", "table", "seed", "section", "seed_value", "unit", "measured",
                                     "verdict", "reason", "source"])


def analyze(out, run):
    doc = Tables(out, run).build()
    with open(os.path.join(out, "tables.json"), "w") as f:
        json.dump(doc, f, indent=1, default=lambda o: None)
        f.write("\n")
    write_table_csvs(out, doc)
    return doc
