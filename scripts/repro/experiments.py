"""The experiments of scripts/reproduce: which program runs with which options in each mode,
with progress on stderr, a log per command, and every output file stamped with the run's
commit, date, host and selected kernel.

Layout of an output folder (results/<host-id>/ by default):
  run.json            the run: host, commit, date, kernel, mode, commands, durations
  data/               what the programs wrote (JSON, CSV, hyperfine exports)
  tables.json         every table and verdict of the report, computed from data/
  tables/*.csv        the same tables as CSV
  plots/*.png *.svg   the figures
  advise.csv          the kernel sweep in the form `filterlab advise` reads
  REPORT.md           generated from tables.json
  raw/                logs and the URL files (not committed: .gitignore has results/*/raw/)
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import urlgen  # noqa: E402

# Targets of the space experiment (tables 5 and 6): both sides of the seed's 3% crossover,
# down to where the library's cuckoo sizing gives up (~6e-5).
SPACE_TARGETS = [0.2, 0.1, 0.05, 0.03, 0.02, 0.01, 0.005, 0.002, 0.001, 5e-4, 2e-4, 1e-4, 5e-5, 1e-5]
FILLS = [0.5, 1.0, 1.5, 2.0, 3.0]
SIZING_TARGETS = [0.01, 0.001, 0.0001]
CUCKOO_LOADS = [0.125, 0.25, 0.5, 0.75, 0.94]

# flaccuracy's options per mode (tables 9-12): the 1e9-key HyperLogLog points and
# the larger trial counts only in --full; --quick adds about 20 s on a 2-vCPU VM.
ACCURACY = {
    "quick": dict(
        t9=["--counting-n", "1e6", "--counting-queries", "1e6", "--overflow-n", "1e5", "--overflow-trials", "5"],
        t10=["--cms-updates", "1e6", "--cms-keys", "1e5", "--cms-runs", "4", "--cms-example-runs", "200"],
        t11=["--hll-max-card", "1e8", "--hll-runs", "8", "--hll-std-card", "1e5", "--hll-std-runs", "200",
             "--hll-demo-runs", "20"],
        t11_redis_max=1_000_000,
        t12=["--sbf-capacity", "1e5", "--sbf-queries", "1e6"],
    ),
    "full": dict(
        t9=["--counting-n", "1e7", "--counting-queries", "1e7", "--overflow-n", "1e6", "--overflow-trials", "20"],
        t10=["--cms-updates", "1e7", "--cms-keys", "1e6", "--cms-runs", "8", "--cms-example-runs", "1000"],
        t11=["--hll-max-card", "1e9", "--hll-runs", "8", "--hll-std-card", "1e6", "--hll-std-runs", "400",
             "--hll-demo-runs", "50"],
        t11_redis_max=10_000_000,
        t12=["--sbf-capacity", "1e6", "--sbf-queries", "1e7"],
    ),
    "tiny": dict(
        t9=["--counting-n", "1e5", "--counting-queries", "1e5", "--overflow-n", "1e4", "--overflow-trials", "3"],
        t10=["--cms-updates", "1e5", "--cms-keys", "1e4", "--cms-runs", "2", "--cms-example-runs", "20"],
        t11=["--hll-max-card", "1e6", "--hll-runs", "2", "--hll-std-card", "1e4", "--hll-std-runs", "30",
             "--hll-demo-runs", "2"],
        t11_redis_max=100_000,
        t12=["--sbf-capacity", "1e4", "--sbf-queries", "1e5"],
    ),
}

MODES = {
    # --quick: the default, under 10 minutes on a 2-vCPU VM (about 6.5 with the build); the
    # sweep's DRAM point is the smallest footprint whose measured latency is DRAM-like
    "quick": dict(
        urls=1_000_000,
        t1_keys=1_000_000, t1_lookups=1_000_000, t1_reps=5, cg_lookups=65536,
        t2_reps=3,
        t3_n=10_000_000, t3_queries=4_000_000,
        t4_n=1_000_000, t4_queries=2_000_000,
        t5_n=1_000_000, t5_queries=4_000_000, t5_targets=SPACE_TARGETS,
        cuckoo_buckets=10_000, cuckoo_queries=10_000_000,
        t7_runs=3, t7_warmup=1,
        t8_sizes="quick", t8_hits="0.5", t8_reps=3, t8_lookups=262144,
        t8_insert_budget=8 << 20, t8_fprs=[0.01],
        **ACCURACY["quick"],
        static_keys="100000,1000000,10000000", static_lookups=1_000_000, static_reps=3, static_builds=1,
        t13_n=1_000_000, t13_compressed_n=100_000, t13_queries=4_000_000, t13_reps=5,
    ),
    # --full: the complete sweep (every 4x from L1d/2 to the DRAM point, and 4x past it; three
    # hit rates, two FPR targets, more repetitions and queries); 29 minutes on a 2-vCPU VM
    # (measured before the DRAM point came from the probe and filters were built once).
    "full": dict(
        urls=1_000_000,
        t1_keys=1_000_000, t1_lookups=1_000_000, t1_reps=9, cg_lookups=262144,
        t2_reps=9,
        t3_n=10_000_000, t3_queries=50_000_000,
        t4_n=1_000_000, t4_queries=20_000_000,
        t5_n=1_000_000, t5_queries=50_000_000, t5_targets=SPACE_TARGETS,
        cuckoo_buckets=10_000, cuckoo_queries=100_000_000,
        t7_runs=10, t7_warmup=2,
        t8_sizes="full", t8_hits="0,0.5,1", t8_reps=9, t8_lookups=1048576,
        t8_insert_budget=64 << 20, t8_fprs=[0.01, 0.0001],
        **ACCURACY["full"],
        static_keys="100000,1000000,10000000", static_lookups=4_000_000, static_reps=9, static_builds=3,
        t13_n=1_000_000, t13_compressed_n=1_000_000, t13_queries=20_000_000, t13_reps=9,
    ),
    # --tiny: the test suite's end-to-end check (tests/repro/test_reproduce.sh): every
    # experiment and every table, on sizes small enough for well under 3 minutes. Its numbers
    # are not comparable with the seed (the report says so).
    "tiny": dict(
        urls=20_000,
        t1_keys=100_000, t1_lookups=100_000, t1_reps=2, cg_lookups=8192,
        t2_reps=1,
        t3_n=200_000, t3_queries=200_000,
        t4_n=20_000, t4_queries=100_000,
        t5_n=20_000, t5_queries=200_000, t5_targets=[0.1, 0.03, 0.01, 0.001, 2e-4],
        cuckoo_buckets=2_000, cuckoo_queries=200_000,
        t7_runs=2, t7_warmup=0,
        t8_sizes="16K,1M", t8_hits="0.5", t8_reps=2, t8_lookups=16384,
        t8_insert_budget=1 << 20, t8_fprs=[0.01],
        **ACCURACY["tiny"],
        static_keys="10000,100000", static_lookups=100_000, static_reps=2, static_builds=1,
        t13_n=20_000, t13_compressed_n=5_000, t13_queries=200_000, t13_reps=2,
    ),
}

EXPERIMENTS = [
    ("urls", "URL files for the crawler and dedup experiments"),
    ("t1", "table 1: naive vs blocked Bloom, 1M lookups, k = 7, m = 10M bits"),
    ("t2", "table 2: the crawler, exact hash sets vs filters on 1M URLs"),
    ("t3", "table 3: sizing for n keys at 1%, 0.1%, 0.01%"),
    ("t4", "table 4: FPR against fill ratio"),
    ("t5", "tables 5-6: space at equal FPR, cuckoo FPR, information-theoretic bound"),
    ("t7", "table 7: filterlab dedup vs awk and sort -u (hyperfine)"),
    ("t8", "table 8: the kernel sweep, L1 to DRAM, with the physical bound"),
    ("advise", "advise.csv and `filterlab advise` examples"),
    ("t9", "table 9: counting Bloom memory, FPR against fill, counter overflow (flaccuracy)"),
    ("t10", "table 10: Count-Min overestimates and heavy hitters (flaccuracy)"),
    ("t11", "table 11: HyperLogLog error 1e3 and up, and a real redis-server's PFCOUNT"),
    ("t12", "table 12: scalable Bloom FPR against fill, RedisBloom's defaults (flaccuracy)"),
    ("static", "tables 6 and 8: binary fuse filters, space, FPR, build and lookups"),
    ("t13", "table 13: seed 004's layered, compressed and combining Bloom filters"),
    ("py", "tables 2 and 4: a Python set of 1M URLs, offset vs double hashing (pyexp.py, seconds)"),
]


def fmt_secs(s):
    s = int(round(s))
    return "%d:%02d" % (s // 60, s % 60)


def pow2_floor(x):
    p = 1
    while p * 2 <= x:
        p *= 2
    return p


def size_text(b):
    for unit, div in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if b >= div and b % div == 0:
            return "%d%s" % (b // div, unit)
    return str(b)


class Runner:
    def __init__(self, root, build, out, mode, host, only=None, verbose=False, clock_offset=0.0):
        self.root = root
        self.build = build
        self.out = out
        self.mode = mode
        self.cfg = MODES[mode]
        self.host = host
        self.only = only
        self.verbose = verbose
        self.data = os.path.join(out, "data")
        self.raw = os.path.join(out, "raw")
        self.logs = os.path.join(self.raw, "logs")
        for d in (self.data, self.logs, os.path.join(self.data, "hyperfine")):
            os.makedirs(d, exist_ok=True)
        self.bins = {
            "filterlab": os.path.join(build, "src", "cli", "filterlab"),
            "flbench": os.path.join(build, "bench", "flbench"),
            "fpr_sweep": os.path.join(build, "bench", "baselines", "fpr_sweep"),
            "hashset_baseline": os.path.join(build, "bench", "baselines", "hashset_baseline"),
            "flaccuracy": os.path.join(build, "bench", "flaccuracy"),
            "bloom_variants": os.path.join(build, "bench", "baselines", "bloom_variants"),
        }
        self.commands = []
        self.durations = {}
        self.t_start = time.time() - clock_offset  # progress continues scripts/reproduce's clock
        self.exp_index = 0
        self.exp_total = 0
        self.current = ""
        self.kernel = self._selected_kernel()
        self.stamp = {"commit": host["git"]["commit"], "dirty": host["git"]["dirty"],
                      "date": host["date"], "host_id": host["host_id"],
                      "kernel_selected": self.kernel, "mode": mode}

    # ---- progress and commands ----------------------------------------------------------
    def say(self, msg):
        el = fmt_secs(time.time() - self.t_start)
        sys.stderr.write("[reproduce %s %d/%d %s] %s\n" % (el, self.exp_index, self.exp_total,
                                                          self.current, msg))
        sys.stderr.flush()

    def run(self, cmd, log, stdout=None, env=None, check=True, quiet_re=None, shell=False):
        """Runs cmd; its stderr lines are shown as progress (minus lines matching quiet_re) and
        saved in raw/logs/<log>.log with its stdout unless stdout names a file."""
        text = cmd if shell else " ".join(shlex.quote(c) for c in cmd)
        # recorded relative to the checkout (the commands run from its root)
        self.commands.append({"experiment": self.current, "command": text.replace(self.root + os.sep, "")})
        logpath = os.path.join(self.logs, log + ".log")
        e = dict(os.environ)
        e.pop("FILTERLAB_KERNEL", None)  # the automatic choice, unless a command sets one
        if env:
            e.update(env)
        t0 = time.time()
        with open(logpath, "w") as lf:
            lf.write("$ %s\n" % text)
            lf.flush()
            out_f = open(stdout, "w") if stdout else lf
            try:
                p = subprocess.Popen(cmd, stdout=out_f, stderr=subprocess.PIPE, env=e,
                                     cwd=self.root, text=True, shell=shell, bufsize=1)
                for line in p.stderr:
                    lf.write(line)
                    line = line.rstrip()
                    if line and not (quiet_re and re.search(quiet_re, line)):
                        self.say(line if len(line) < 160 else line[:157] + "...")
                rc = p.wait()
            finally:
                if stdout:
                    out_f.close()
        self.commands[-1]["seconds"] = round(time.time() - t0, 1)
        self.commands[-1]["status"] = rc
        if check and rc != 0:
            raise RuntimeError("command failed (status %d): %s\n  log: %s" % (rc, text, logpath))
        return rc

    def capture(self, cmd, env=None):
        e = dict(os.environ)
        e.pop("FILTERLAB_KERNEL", None)
        if env:
            e.update(env)
        return subprocess.run(cmd, capture_output=True, text=True, env=e, cwd=self.root).stdout

    def _selected_kernel(self):
        out = self.capture([self.bins["filterlab"], "kernels"])
        m = re.search(r"^selected:\s*(\S+)", out, re.M)
        return m.group(1) if m else None

    def kernels(self):
        """Kernels this CPU runs natively (emulated ones are correct but not fast)."""
        out = self.capture([self.bins["filterlab"], "kernels"])
        names = []
        for line in out.splitlines()[1:]:
            f = line.split()
            if len(f) >= 4 and f[1] == "yes" and f[2] == "yes" and f[3] == "no":
                names.append(f[0])
        return names or ["auto"]

    def stamp_json(self, path):
        """Adds the run's commit/date/host/kernel to a JSON file a program wrote."""
        with open(path) as f:
            d = json.load(f)
        if isinstance(d, dict):
            d["reproduce"] = self.stamp
        else:
            d = {"reproduce": self.stamp, "data": d}
        with open(path, "w") as f:
            json.dump(d, f, indent=1)
            f.write("\n")

    def stamp_csv(self, path):
        with open(path) as f:
            body = f.read()
        head = "".join("# %s=%s\n" % (k, v) for k, v in self.stamp.items())
        with open(path, "w") as f:
            f.write(head + body)

    def path(self, name):
        return os.path.join(self.data, name)

    def rawpath(self, name):
        return os.path.join(self.raw, name)

    def keep_context(self, name):
        """flbench's JSON holds every repetition (hundreds of KB): it stays in raw/, and its
        context (machine, counters, TSC, callgrind notes, warnings) goes to data/."""
        with open(self.rawpath(name + ".json")) as f:
            d = json.load(f)
        ctx = d.get("context", {})
        if isinstance(ctx.get("cpu"), dict):
            ctx["cpu"].pop("flags", None)
        notes = sorted({b["sim_note"] for b in d.get("benchmarks", []) if b.get("sim_note")})
        with open(self.path(name + "_context.json"), "w") as f:
            json.dump({"context": ctx, "sim_notes": notes, "full_json": "raw/%s.json" % name}, f, indent=1)
        self.stamp_json(self.path(name + "_context.json"))

    # ---- the experiments ----------------------------------------------------------------
    def exp_urls(self):
        d = os.path.join(self.raw, "urls")
        m = urlgen.generate(d, self.cfg["urls"], seed=1, progress=self.say)
        with open(self.path("urls_manifest.json"), "w") as f:
            json.dump(m, f, indent=1)
        self.stamp_json(self.path("urls_manifest.json"))

    def url_file(self, key):
        return os.path.join(self.raw, "urls", urlgen.generate(
            os.path.join(self.raw, "urls"), self.cfg["urls"], seed=1)["files"][key]["name"])

    def exp_t1(self):
        c = self.cfg
        kernels = self.kernels()
        fb = self.bins["flbench"]
        common = ["--filter", "classic,block512,cuckoo", "--bits-per-key", "10",
                  "--sizes", str(c["t1_keys"]), "--sizes-in", "keys", "--hit-rate", "1,0",
                  "--probe", "none", "--seed", "1"]
        self.say("timing on kernels %s (hardware counters if this machine has a PMU)" % ",".join(kernels))
        self.run([fb] + common + ["--kernel", ",".join(kernels), "--lookups", str(c["t1_lookups"]),
                                  "--reps", str(c["t1_reps"]), "--counters", "auto",
                                  "--json", self.rawpath("t1_time.json"), "--csv", self.path("t1_time.csv")],
                 "t1_time", quiet_re=r"^(lookup|insert)/")
        # valgrind has no AVX-512: simulate the kernels it can run (misses are the layout's)
        cg_kernels = [k for k in kernels if not k.startswith("avx512")] or ["scalar"]
        base_cg = [fb] + common + ["--kernel", ",".join(cg_kernels), "--reps", "1",
                                   "--lookups", str(min(c["t1_lookups"], c["cg_lookups"])),
                                   "--counters", "callgrind",
                                   "--callgrind-lookups", str(c["cg_lookups"])]
        if shutil.which("valgrind"):
            self.say("simulated misses: callgrind with this machine's L1d and last-level cache")
            self.run(base_cg + ["--json", self.rawpath("t1_callgrind.json"),
                                "--csv", self.path("t1_callgrind.csv")],
                     "t1_callgrind", check=False, quiet_re=r"^(lookup|insert)/")
            l2 = next((x for x in self.host["caches"]["list"] if x["level"] == 2), None)
            if l2 and l2["ways"]:
                sets = pow2_floor(l2["bytes"] // (l2["ways"] * l2["line"]))
                ll = "%d,%d,%d" % (sets * l2["ways"] * l2["line"], l2["ways"], l2["line"])
                self.say("simulated misses: callgrind with the L2 (%s) as the last level" % ll)
                self.run(base_cg + ["--LL", ll, "--json", self.rawpath("t1_callgrind_l2.json"),
                                    "--csv", self.path("t1_callgrind_l2.csv")],
                         "t1_callgrind_l2", check=False, quiet_re=r"^(lookup|insert)/")
        else:
            self.say("valgrind not found: no simulated misses")
        for n in ("t1_time", "t1_callgrind", "t1_callgrind_l2"):
            if os.path.exists(self.rawpath(n + ".json")):
                self.keep_context(n)
                self.stamp_csv(self.path(n + ".csv"))

    def exp_t2(self):
        out = self.path("t2_crawler.json")
        self.run([self.bins["hashset_baseline"], "--insert", self.url_file("insert"),
                  "--miss", self.url_file("miss"), "--reps", str(self.cfg["t2_reps"]),
                  "--bpk", "10", "--json", out], "t2_crawler")
        self.stamp_json(out)

    def _fpr_sweep(self, name, args):
        out = self.path(name + ".json")
        self.run([self.bins["fpr_sweep"]] + args + ["--json", out], name)
        self.stamp_json(out)

    def exp_t3(self):
        c = self.cfg
        self._fpr_sweep("t3_sizing", ["sizing", "--n", str(c["t3_n"]), "--targets",
                                      ",".join(map(repr, SIZING_TARGETS)),
                                      "--queries", str(c["t3_queries"])])

    def exp_t4(self):
        c = self.cfg
        self._fpr_sweep("t4_fill", ["fill", "--n", str(c["t4_n"]), "--fpr", "0.01", "--fills",
                                    ",".join(map(repr, FILLS)), "--queries", str(c["t4_queries"])])

    def exp_t5(self):
        c = self.cfg
        self._fpr_sweep("t5_space", ["space", "--n", str(c["t5_n"]), "--targets",
                                     ",".join(map(repr, c["t5_targets"])),
                                     "--queries", str(c["t5_queries"])])
        self._fpr_sweep("t5_cuckoo", ["cuckoo", "--buckets", str(c["cuckoo_buckets"]), "--loads",
                                      ",".join(map(repr, CUCKOO_LOADS)),
                                      "--queries", str(c["cuckoo_queries"])])

    def exp_t7(self):
        c = self.cfg
        stream = self.url_file("stream")
        man = urlgen.generate(os.path.join(self.raw, "urls"), c["urls"], seed=1)
        distinct = man["files"]["stream"]["distinct"]
        fl = self.bins["filterlab"]
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
            self.say("%s: output lines and peak RSS (/usr/bin/time -v)" % name)
            outp = os.path.join(self.raw, "t7_out.txt")
            tv = os.path.join(self.raw, "t7_time.txt")
            rc = self.run(["/usr/bin/time", "-v", "-o", tv, "sh", "-c", cmd + " > " + shlex.quote(outp)],
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
            export = os.path.join(self.data, "hyperfine", "t7_dedup.json")
            args = [hf, "--style", "basic", "--warmup", str(c["t7_warmup"]), "--runs",
                    str(c["t7_runs"]), "--export-json", export, "--output", "null"]
            # the fixed cost of sizing in the dedup runs: fl_params_for alone, per variant
            # (classic's sizing is a closed formula: a few ms, below what hyperfine can time)
            extra = [("filterlab params (sizing only, block512)",
                      "%s params --type block512 --n %d --fpr 0.01" % (shlex.quote(fl), distinct))]
            for name, cmd in cmds + extra:
                args += ["-n", name, cmd]
            self.say("hyperfine: %d commands x %d runs" % (len(cmds), c["t7_runs"]))
            self.run(args, "t7_hyperfine", env=env)
            self.stamp_json(export)
            res["hyperfine_export"] = "hyperfine/t7_dedup.json"
        else:
            res["hyperfine_export"] = None
            self.say("hyperfine not found: table 7 has no timings")
        res["awk"] = os.path.realpath(shutil.which("awk") or "awk")
        res["awk_version"] = (self.capture(["awk", "-W", "version"]) or self.capture(["awk", "--version"])).splitlines()[:1]
        res["sort_version"] = self.capture(["sort", "--version"]).splitlines()[:1]
        with open(self.path("t7_dedup.json"), "w") as f:
            json.dump(res, f, indent=1)
        self.stamp_json(self.path("t7_dedup.json"))

    # A footprint's dependent-load latency is "DRAM-like" when it is at least halfway from the
    # in-cache latency (the fastest probed footprint) to the latency at the largest one (1 GiB,
    # or a quarter of memory), and at least 4x the in-cache latency (an LLC hit costs tens of
    # cycles, a DRAM access hundreds). Past the last-level cache, latency climbs towards the
    # DRAM latency as the share of loads the cache still serves (about LLC / footprint) falls,
    # so halfway means most loads miss. Latencies are the fastest repetition (noise only adds),
    # and the point must hold for every larger footprint too, so one disturbed small footprint
    # cannot pick it. The largest footprint's latency alone is not the threshold: TLB misses
    # and a busy host make it keep rising, which put a 0.8x-of-1-GiB rule at 512 MiB on a
    # machine whose latency was DRAM-like from 8 MiB on.
    DRAM_HALFWAY = 0.5
    DRAM_OVER_CACHE = 4.0

    def dram_point(self):
        """The sweep's DRAM point: the smallest probed footprint whose measured pointer-chasing
        latency is DRAM-like (flbench --probe-only; see DRAM_HALFWAY). sysfs alone is not
        trusted: a VM may report any last-level cache size (a 480 MiB one on a 2-vCPU VM put the
        old 1.5x-LLC point at 704 MiB, and its three builds per kernel dominated the run). Falls
        back to the sysfs rule when the probe cannot run. Written to data/t8_dram_point.json."""
        if getattr(self, "_dram", None):
            return self._dram["bytes"]
        c = self.host["caches"]
        l2, llc = c["l2"] or (1 << 20), c["llc"] or (32 << 20)
        memcap = (self.host.get("mem_total") or (8 << 30)) // 4
        ref = min(1 << 30, pow2_floor(memcap))
        # from twice the L2 (a footprint no private cache holds) up, every 2x: the small ones
        # cost little, and a busy or oddly reported LLC can make even them DRAM-like
        cands, s = [], max(1 << 20, pow2_floor(2 * l2))
        while s < ref:
            cands.append(s)
            s *= 2
        cands.append(ref)
        mib64 = 64 << 20
        sysfs_rule = max((3 * llc // 2) // mib64 * mib64, pow2_floor(2 * llc) if llc < mib64 else 0)
        doc = {"candidates": cands, "halfway": self.DRAM_HALFWAY,
               "over_cache": self.DRAM_OVER_CACHE, "sysfs_llc": llc,
               "sysfs_rule_bytes": min(sysfs_rule, pow2_floor(memcap))}
        raw = self.rawpath("t8_probe.json")
        rc = self.run([self.bins["flbench"], "--probe-only",
                       "--sizes", ",".join(size_text(x) for x in cands), "--reps", "3", "--lookups", "262144", "--counters", "none", "--seed", "1",
                       "--json", raw], "t8_probe", check=False, quiet_re=r"^probe/")
        lat = {}
        if rc == 0:
            with open(raw) as f:
                for b in json.load(f).get("benchmarks", []):
                    if b.get("aggregate_name") == "min" and b.get("op") == "probe_latency":
                        lat[int(b["footprint_bytes"])] = b["real_time"]
        doc["latency_ns"] = {str(k): v for k, v in sorted(lat.items())}
        if lat and min(lat.values()) > 0:
            fast, top = min(lat.values()), lat[max(lat)]
            thr = max(self.DRAM_OVER_CACHE * fast, fast + self.DRAM_HALFWAY * (top - fast))
            ok = [x for x in sorted(lat) if all(lat[y] >= thr for y in lat if y >= x)]
            if top < self.DRAM_OVER_CACHE * fast:
                # no probed footprint was served by a cache: the smallest is already DRAM-like
                ok, thr = [min(lat)], fast
            pick = ok[0] if ok else max(lat)
            doc.update(bytes=pick, source="probe", latency_at_pick_ns=lat[pick], threshold_ns=thr,
                       in_cache_ns=fast, reference_ns=top)
        else:
            doc.update(bytes=doc["sysfs_rule_bytes"], source="sysfs (the memory probe did not run)")
        self._dram = doc
        with open(self.path("t8_dram_point.json"), "w") as f:
            json.dump(doc, f, indent=1)
        self.stamp_json(self.path("t8_dram_point.json"))
        self.say("DRAM point %s (%s)" % (size_text(doc["bytes"]), doc["source"]))
        return doc["bytes"]

    def t8_sizes(self):
        if getattr(self, "_t8_sizes", None):
            return self._t8_sizes
        spec = self.cfg["t8_sizes"]
        c = self.host["caches"]
        if spec not in ("quick", "full"):
            return spec
        l1d, l2, llc = c["l1d"] or 32768, c["l2"] or (1 << 20), c["llc"] or (32 << 20)
        memcap = (self.host.get("mem_total") or (8 << 30)) // 4
        dram = self.dram_point()
        if spec == "quick":
            # one size per level: L1d/2, L2/2, inside the LLC, LLC/4 (the cache levels from
            # sysfs, kept only below the DRAM point), and the measured DRAM point
            sizes = [pow2_floor(l1d // 2), pow2_floor(l2 // 2), pow2_floor(max(llc // 32, 2 * l2)),
                     pow2_floor(llc // 4)]
            sizes = [x for x in sizes if x < dram] + [dram]
        else:
            # every 4x from L1d/2 below the DRAM point, the DRAM point, and 4x deeper
            sizes, s = [], pow2_floor(l1d // 2)
            while s < dram:
                sizes.append(s)
                s *= 4
            sizes += [dram, 4 * dram]
        sizes = sorted(set(min(x, pow2_floor(memcap)) for x in sizes))
        self._t8_sizes = ",".join(size_text(x) for x in sizes)
        return self._t8_sizes

    def exp_t8(self):
        c = self.cfg
        kernels = self.kernels()
        for fpr in c["t8_fprs"]:
            tag = "t8_sweep" if fpr == 0.01 else "t8_sweep_fpr%g" % fpr
            self.say("sweep at FPR %g: sizes %s, kernels %s" % (fpr, self.t8_sizes(), ",".join(kernels)))
            self.run([self.bins["flbench"], "--filter", "all", "--kernel", ",".join(kernels),
                      "--fpr", repr(fpr), "--sizes", self.t8_sizes(), "--hit-rate", c["t8_hits"],
                      "--reps", str(c["t8_reps"]), "--lookups", str(c["t8_lookups"]),
                      "--insert-budget", str(c["t8_insert_budget"]), "--counters", "auto",
                      "--probe", "memory", "--seed", "1",
                      "--json", os.path.join(self.raw, tag + ".json"), "--csv", self.path(tag + ".csv")],
                     tag, quiet_re=r"^(lookup|insert|probe)/")
            self.stamp_csv(self.path(tag + ".csv"))
            self.keep_context(tag)

    def exp_advise(self):
        import advise_data
        path = advise_data.write_advise_csv(self.out, self.host, self.stamp)
        self.say("wrote %s" % os.path.relpath(path, self.root))
        examples = []
        n_small = self.cfg["urls"]
        rel = os.path.relpath(self.out, self.root)
        where = self.out if rel.startswith("..") else rel  # run from the root: no absolute paths
        for n, fpr in ((n_small, 0.01), (10_000_000, 0.001), (100_000_000, 0.01)):
            cmd = [self.bins["filterlab"], "advise", "--n", str(n), "--fpr", repr(fpr),
                   "--results", where]
            p = subprocess.run(cmd, capture_output=True, text=True, cwd=self.root)
            examples.append({"command": "filterlab advise --n %d --fpr %s --results %s" % (
                n, repr(fpr), where),
                "status": p.returncode, "stdout": p.stdout, "stderr": p.stderr})
        with open(self.path("advise_examples.json"), "w") as f:
            json.dump({"examples": examples}, f, indent=1)
        self.stamp_json(self.path("advise_examples.json"))

    # ---- tables 9-12: flaccuracy, one section per table --------------------------------
    def _accuracy(self, name, section, args):
        out = self.path(name + ".json")
        self.run([self.bins["flaccuracy"], "--sections", section, "--seed", "1"] + args + ["--json", out],
                 name)
        self.stamp_json(out)

    def exp_t9(self):
        self._accuracy("t9_counting", "counting", self.cfg["t9"])

    def exp_t10(self):
        self._accuracy("t10_cms", "cms", self.cfg["t10"])

    def exp_t11(self):
        self._accuracy("t11_hll", "hll", self.cfg["t11"])
        out = self.path("t11_redis.json")
        self.run([sys.executable, os.path.join(HERE, "redis_pfcount.py"), self.bins["filterlab"], out,
                  "--max-card", str(self.cfg["t11_redis_max"]), "--seconds", "150"], "t11_redis")
        self.stamp_json(out)

    def exp_t12(self):
        self._accuracy("t12_sbf", "sbf", self.cfg["t12"])

    def exp_static(self):
        """Binary fuse filters: flbench --structure static at the mode's key counts, the one
        measurement tool for them (scripts/bench-static runs the same suite for the project's
        speed targets). Bits per key and measured FPR for table 6; construction ns/key, the
        one-key inline lookup and batch lookups per kernel (50% hits) for table 8. The full
        JSON (every repetition) stays in raw/; data/static_flbench.json keeps its context and
        the median aggregates, which is what the tables read (static_data.py)."""
        c = self.cfg
        keys = [int(k) for k in c["static_keys"].split(",")]
        kernels = self.kernels()
        raw = self.rawpath("static_flbench.json")
        # Construction is not dispatched: static_builds timed builds of the largest key set
        # (smaller ones get more, up to --reps) through flbench's insert budget. No memory
        # probe: the tables show ns per lookup (scripts/bench-static adds the bound ratio).
        self.run([self.bins["flbench"], "--structure", "static", "--sizes-in", "keys",
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
        out = self.path("static_flbench.json")
        with open(out, "w") as f:
            json.dump({"context": ctx, "benchmarks": medians, "full_json": "raw/static_flbench.json"},
                      f, indent=1)
        self.stamp_json(out)

    def exp_t13(self):
        c = self.cfg
        out = self.path("t13_variants004.json")
        self.run([self.bins["bloom_variants"], "--n", str(c["t13_n"]), "--compressed-n",
                  str(c["t13_compressed_n"]), "--queries", str(c["t13_queries"]), "--reps",
                  str(c["t13_reps"]), "--json", out], "t13_bloom_variants")
        self.stamp_json(out)

    def exp_py(self):
        out = self.path("py_claims.json")
        self.run([sys.executable, os.path.join(HERE, "pyexp.py"), out] + (["--tiny"] if self.mode == "tiny" else []),
                 "py")
        self.stamp_json(out)

    # ---- driver -------------------------------------------------------------------------
    def check_binaries(self):
        missing = [n for n, p in self.bins.items() if not os.access(p, os.X_OK)]
        hints = {
            "fpr_sweep": "bench/baselines is not in the build: meson.build needs subdir('bench/baselines')",
            "hashset_baseline": "bench/baselines is not in the build, or GLib (libglib2.0-dev) is missing",
            "flbench": "the harness did not build",
            "filterlab": "the CLI did not build",
            "flaccuracy": "bench/flaccuracy (bench/accuracy_*.c) did not build",
            "bloom_variants": "bench/baselines did not build (meson.build needs subdir('bench/baselines'))",
        }
        return ["%s (%s): %s" % (n, self.bins[n], hints[n]) for n in missing]

    def run_all(self, on_step=None):
        """Runs the experiments in order; on_step() after each (run.py saves run.json then, so
        a run that fails half way keeps what it did for a later --only)."""
        todo = [(n, d) for n, d in EXPERIMENTS if not self.only or n in self.only]
        self.exp_total = len(todo)
        for i, (name, desc) in enumerate(todo, 1):
            self.exp_index = i
            self.current = name
            self.say("start: " + desc)
            t0 = time.time()
            getattr(self, "exp_" + name)()
            self.durations[name] = round(time.time() - t0, 1)
            self.say("done in %s" % fmt_secs(self.durations[name]))
            if on_step:
                on_step()
        self.current = "report"
