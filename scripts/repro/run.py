#!/usr/bin/env python3
"""The reproduction driver behind scripts/reproduce (which sets up and builds first):
runs the experiments, then writes tables.json, the plots, REPORT.md and the results index.

  run.py [--mode quick|full|tiny] [--out DIR] [--build-dir DIR] [--only LIST] [--report-only]
"""

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import analyze  # noqa: E402
import experiments  # noqa: E402
import hostinfo  # noqa: E402
import index  # noqa: E402
import plots  # noqa: E402
import report  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description="filterlab: reproduce the seed chapters' tables here")
    ap.add_argument("--mode", choices=sorted(experiments.MODES), default="quick")
    ap.add_argument("--out", help="output folder [results/<host-id>]")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--only", help="comma-separated experiments to rerun (%s); the others' files are kept"
                    % ",".join(n for n, _ in experiments.EXPERIMENTS))
    ap.add_argument("--report-only", action="store_true", help="only rebuild tables, plots and REPORT.md")
    ap.add_argument("--setup-seconds", type=float, default=None, help="(from scripts/reproduce) setup+build time")
    a = ap.parse_args()

    t0 = time.time()
    host = hostinfo.describe(ROOT, a.build_dir)
    out = os.path.abspath(a.out or os.path.join(ROOT, "results", host["host_id"]))
    os.makedirs(out, exist_ok=True)
    build = os.path.abspath(a.build_dir)
    only = set(a.only.split(",")) if a.only else None
    if only and not only <= {n for n, _ in experiments.EXPERIMENTS}:
        ap.error("--only: unknown experiment in %s" % a.only)
    run_path = os.path.join(out, "run.json")
    prev = None
    if os.path.exists(run_path) and (only or a.report_only):
        with open(run_path) as f:
            prev = json.load(f)

    if a.report_only:
        if not prev:
            sys.exit("reproduce: --report-only needs a previous run in %s" % out)
        run = prev
    else:
        r = experiments.Runner(ROOT, build, out, a.mode, host, only=only,
                               clock_offset=a.setup_seconds or 0.0)
        problems = r.check_binaries()
        if problems:
            sys.stderr.write("reproduce: missing programs:\n  " + "\n  ".join(problems) + "\n")
            sys.exit(2)
        sys.stderr.write("reproduce: %s run on %s (%s, %d vCPUs), kernel %s, output %s\n" % (
            a.mode, host["host_id"], host["cpu"]["model_name"], host["ncpus"], r.kernel, out))

        def record():
            durations = dict(prev["durations"]) if prev else {}
            durations.update(r.durations)
            commands = [c for c in (prev or {}).get("commands", []) if c["experiment"] not in r.durations]
            commands += r.commands
            run = {"host": host, "stamp": r.stamp, "mode": a.mode, "durations": durations,
                   "commands": commands, "partial": sorted(only) if only else None,
                   "setup_seconds": a.setup_seconds,
                   # how the kernel sweep's DRAM point was chosen (tables/t8_sweep.py, dram_point)
                   "t8_dram_point": getattr(r, "_dram", None) or (prev or {}).get("t8_dram_point"),
                   "total_seconds": round(time.time() - t0 + (a.setup_seconds or 0), 1)}
            with open(run_path, "w") as f:
                json.dump(run, f, indent=1)
                f.write("\n")
            return run
        try:
            r.run_all(on_step=record)
        except RuntimeError as e:
            record()
            sys.stderr.write("reproduce: %s\n" % e)
            sys.stderr.write("reproduce: what ran is kept; finish with --only %s\n" % ",".join(
                n for n, _ in experiments.EXPERIMENTS if n not in r.durations and (not only or n in only)))
            sys.exit(1)
        run = record()

    sys.stderr.write("reproduce: tables, plots and report\n")
    doc = analyze.analyze(out, run)
    figs = plots.make(out, doc)
    report.write(out, doc, figs)
    idx = index.refresh(os.path.dirname(out))
    counts = {}
    for c in doc["tables"]["claims"]:
        counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
    sys.stderr.write("reproduce: %s\n" % ", ".join("%d %s" % (v, k) for k, v in sorted(counts.items())))
    sys.stderr.write("reproduce: wrote %s and %s in %.0f s\n" % (
        os.path.join(out, "REPORT.md"), idx, time.time() - t0 + (a.setup_seconds or 0)))


if __name__ == "__main__":
    main()
