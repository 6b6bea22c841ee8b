#!/usr/bin/python3
"""Compares two flbench (or Google Benchmark) JSON result files.

usage: scripts/compare.py [--metric real_time] [--filter REGEX] [--structure S] [--op OP]
                          [--alpha 0.05] OLD.json NEW.json
       scripts/compare.py ... OLD1.json,OLD2.json,... NEW1.json,NEW2.json,...

A comma-separated list on a side pools the repetitions of its files: runs of the two builds
made in alternation (old, new, old, new, ...) and pooled this way cancel slow drifts of a
shared machine that a single pair of runs would read as a change.

For every benchmark (run_name) present in both files: the medians of the metric over the
repetitions, the change (new - old) / old, and a two-sided Mann-Whitney U test over the
repetitions (scipy.stats.mannwhitneyu; it assumes nothing about the distribution, which
matters for timings with a long right tail). A final row gives the geometric mean of the
new/old ratios. With fewer than 9 repetitions on either side the test has little power
(5 vs 5 runs cannot reach p < 0.008), and a warning says so.

--structure and --op keep the results whose "structure" field (filter, counting, sbf, cms,
hll, static; files from before that field count as filter) and "op" field (lookup, insert, delete,
update, query, add, estimate, merge, ...) match; --metric takes any per-repetition key, e.g.
merge_gb_per_s.

Files ending in .gz are read through gzip.

Needs Debian's python3-scipy (run it with /usr/bin/python3).
"""
import argparse
import gzip
import json
import math
import re
import statistics
import sys
from collections import defaultdict

from scipy.stats import mannwhitneyu

MIN_REPS = 9


def reject_constant(name):
    raise ValueError("non-standard JSON constant %s" % name)


def iterations(paths, metric, structure=None, op=None):
    """The metric's repetitions per run name, pooled over the comma-separated files."""
    out = defaultdict(list)
    for path in paths.split(","):
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
            doc = json.load(f, parse_constant=reject_constant)
        collect(doc, metric, out, structure, op)
    return out


def collect(doc, metric, out, structure=None, op=None):
    for b in doc.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration":
            continue
        if structure is not None and b.get("structure", "filter") != structure:
            continue
        if op is not None and b.get("op") != op:
            continue
        v = b.get(metric)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
            out[b.get("run_name", b["name"])].append(float(v))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--metric", default="real_time",
                    help="iteration key to compare (real_time, cpu_time, tsc_cycles_per_lookup, ...)")
    ap.add_argument("--filter", default=None, help="only run names matching this regex")
    ap.add_argument("--structure", default=None,
                    help="only results of this structure (filter, counting, sbf, cms, hll, static)")
    ap.add_argument("--op", default=None, help="only results of this operation (lookup, update, ...)")
    ap.add_argument("--alpha", type=float, default=0.05, help="significance level for the marker [0.05]")
    args = ap.parse_args(argv)

    old = iterations(args.old, args.metric, args.structure, args.op)
    new = iterations(args.new, args.metric, args.structure, args.op)
    names = [n for n in old if n in new]
    if args.filter:
        rx = re.compile(args.filter)
        names = [n for n in names if rx.search(n)]
    if not names:
        print("compare: no benchmark with '%s' in both files" % args.metric, file=sys.stderr)
        return 1

    width = max(len("benchmark"), max(len(n) for n in names))
    print("%-*s %12s %12s %9s %9s %5s %s" % (width, "benchmark", "old", "new", "change", "p(U)",
                                          "reps", ""))
    logs = []
    few = []
    for n in names:
        a, b = old[n], new[n]
        mo, mn = statistics.median(a), statistics.median(b)
        change = (mn - mo) / mo if mo else float("nan")
        if len(a) >= 1 and len(b) >= 1 and (len(set(a)) > 1 or len(set(b)) > 1 or a[0] != b[0]):
            p = mannwhitneyu(a, b, alternative="two-sided").pvalue
        else:
            p = 1.0
        if mo > 0 and mn > 0:
            logs.append(math.log(mn / mo))
        if min(len(a), len(b)) < MIN_REPS:
            few.append(n)
        mark = "*" if p < args.alpha else ""
        print("%-*s %12.4g %12.4g %+8.2f%% %9.4f %2d/%-2d %s" % (width, n, mo, mn, 100 * change, p,
                                                            len(a), len(b), mark))
    if logs:
        g = math.exp(sum(logs) / len(logs))
        print("%-*s %12s %12s %+8.2f%% %9s %5s" % (width, "geometric mean (new/old)", "", "",
                                                  100 * (g - 1), "", str(len(logs))))
    only_old = sorted(set(old) - set(new))
    only_new = sorted(set(new) - set(old))
    if only_old or only_new:
        print("(%d only in %s, %d only in %s)" % (len(only_old), args.old, len(only_new), args.new))
    print("metric: %s medians; change = (new - old) / old; p: two-sided Mann-Whitney U over "
          "repetitions; * = p < %g" % (args.metric, args.alpha))
    if few:
        print("compare: warning: %d of %d benchmarks have fewer than %d repetitions on a side; "
              "the U test has little power there (rerun with flbench --reps %d or more)"
              % (len(few), len(names), MIN_REPS, MIN_REPS), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
