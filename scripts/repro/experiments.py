"""The experiments of scripts/reproduce: the Runner that runs them in order, with progress on
stderr, a log per command, and every output file stamped with the run's commit, date, host
and selected kernel. Which program runs with which options in each mode is each experiment's
own: its table module's EXPERIMENT, SETTINGS and experiment(runner) (tables.PARTS lists them
in run order).

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
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import tables  # noqa: E402
import urlgen  # noqa: E402

# The modes' settings, each table's from its module (tables.PARTS, SETTINGS):
#   quick  the default, under 10 minutes on a 2-vCPU VM (about 6.5 with the build); the sweep's
#          DRAM point is the smallest footprint whose measured latency is DRAM-like
#   full   the complete sweep (every 4x from L1d/2 to the DRAM point, and 4x past it; three hit
#          rates, two FPR targets, more repetitions and queries); 29 minutes on a 2-vCPU VM
#          (measured before the DRAM point came from the probe and filters were built once)
#   tiny   the test suite's end-to-end check (tests/repro/test_reproduce.sh): every experiment
#          and every table, on sizes small enough for well under 3 minutes. Its numbers are not
#          comparable with the seed (the report says so).
MODES = {mode: {} for mode in ("quick", "full", "tiny")}
for _part in tables.PARTS:
    for _mode, _settings in getattr(_part, "SETTINGS", {}).items():
        MODES[_mode].update(_settings)

# (name, description) in run order, and each one's function of the Runner
EXPERIMENTS = [p.EXPERIMENT for p in tables.PARTS if hasattr(p, "EXPERIMENT")]
RUN = {p.EXPERIMENT[0]: p.experiment for p in tables.PARTS if hasattr(p, "EXPERIMENT")}


def fmt_secs(s):
    s = int(round(s))
    return "%d:%02d" % (s // 60, s % 60)


class Runner:
    def __init__(self, root, build, out, mode, host, only=None, verbose=False, clock_offset=0.0):
        self.root = root
        self.build = build
        self.repro_dir = HERE  # scripts/repro: the Python experiments run from here
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

    # ---- what the experiments share --------------------------------------------------
    def url_file(self, key):
        return os.path.join(self.raw, "urls", urlgen.generate(
            os.path.join(self.raw, "urls"), self.cfg["urls"], seed=1)["files"][key]["name"])

    def fpr_sweep(self, name, args):
        """fpr_sweep's subcommand `args`, its JSON to data/<name>.json (tables 3-5)."""
        out = self.path(name + ".json")
        self.run([self.bins["fpr_sweep"]] + args + ["--json", out], name)
        self.stamp_json(out)

    def accuracy(self, name, section, args):
        """flaccuracy's `section` with `args`, its JSON to data/<name>.json (tables 9-12)."""
        out = self.path(name + ".json")
        self.run([self.bins["flaccuracy"], "--sections", section, "--seed", "1"] + args + ["--json", out],
                 name)
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
            RUN[name](self)
            self.durations[name] = round(time.time() - t0, 1)
            self.say("done in %s" % fmt_secs(self.durations[name]))
            if on_step:
                on_step()
        self.current = "report"
