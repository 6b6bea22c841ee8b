#!/usr/bin/python3
"""Compares two flbench (or Google Benchmark) JSON result files.

usage: scripts/compare.py [--metric real_time] [--filter REGEX] [--structure S] [--op OP]
                          [--ignore auto|none|FIELD,...] [--alpha 0.05] OLD.json NEW.json
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

Which benchmarks are "the same": by default (--ignore auto) those with the same run name,
unless the two sides differ in the kernel, the filter or the key type (flbench --kernel scalar
against --kernel avx2, split256 against block512, u64 against url keys): each of those whose
values differ between the sides is left out of the match, so that lookup/split256/scalar/...
in OLD pairs with lookup/split256/avx2/... in NEW. A field is kept when leaving it out would
pair one benchmark with several (OLD has scalar and avx2, NEW has avx2 and avx512: only avx2
pairs). --ignore FIELD,... names the fields to leave out instead (none: whole names). The
fields are the parts of a run name: op, filter (the variant, structure or static kind),
kernel, and the key:value parts by their key (bytes, nkeys, hit, keys, filters, d, w, p, n,
topk). The first line of the output says which fields matched and which were left out (with
their values on each side); a left-out part shows as * in the benchmark column.

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


# Kernel names for files whose entries carry no "kernel" field (plain Google Benchmark
# output, or names only): the third part of a run name is the kernel when it is one of these.
KNOWN_KERNELS = {"scalar", "avx2", "avx512", "neon", "sve", "any", "inline"}
# The fields --ignore auto may leave out: what an A/B run of flbench varies on purpose.
AUTO_FIELDS = ("kernel", "filter", "keys")


def parts(name, kernel=None):
    """A run name as (field, value) pairs: op, filter, kernel, then key:value parts by key."""
    out = []
    for i, p in enumerate(name.split("/")):
        if i == 0:
            field = "op"
        elif i == 1:
            field = "filter"
        elif i == 2 and (p == kernel or (kernel is None and p in KNOWN_KERNELS)):
            field = "kernel"
        elif ":" in p:
            field = p.split(":", 1)[0]
        else:
            field = "params"
        out.append((field, p))
    return tuple(out)


def iterations(paths, metric, structure=None, op=None, rx=None):
    """The metric's repetitions per run name, pooled over the comma-separated files, and the
    name's parts."""
    out = defaultdict(list)
    names = {}
    for path in paths.split(","):
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
            doc = json.load(f, parse_constant=reject_constant)
        collect(doc, metric, out, names, structure, op, rx)
    return out, names


def collect(doc, metric, out, names, structure=None, op=None, rx=None):
    for b in doc.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration":
            continue
        if structure is not None and b.get("structure", "filter") != structure:
            continue
        if op is not None and b.get("op") != op:
            continue
        name = b.get("run_name", b["name"])
        if rx is not None and not rx.search(name):
            continue
        v = b.get(metric)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
            out[name].append(float(v))
            names.setdefault(name, parts(name, b.get("kernel")))


def keyed(names, ignore):
    """run name -> its identity with the ignored fields as '*'; None if two names of one side
    become the same identity (the match would be ambiguous)."""
    out, seen = {}, {}
    for name, ps in names.items():
        ident = "/".join("*" if f in ignore else v for f, v in ps)
        if ident in seen:
            return None
        seen[ident] = name
        out[name] = ident
    return out


def values(names, field):
    return {v for ps in names.values() for f, v in ps if f == field}


def choose_ignore(old_names, new_names, spec):
    """The fields to leave out of the match: the explicit list, or (auto) each of
    AUTO_FIELDS whose values differ between the sides, unless that makes the match
    ambiguous."""
    if spec == "none":
        return []
    if spec != "auto":
        return [f.strip() for f in spec.split(",") if f.strip()]
    ignore = []
    for field in AUTO_FIELDS:
        vo, vn = values(old_names, field), values(new_names, field)
        if not vo or not vn or vo == vn:
            continue
        trial = ignore + [field]
        if keyed(old_names, trial) is not None and keyed(new_names, trial) is not None:
            ignore = trial
    return ignore


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
    ap.add_argument("--ignore", default="auto",
                    help="run-name fields to leave out when pairing benchmarks: auto (the "
                         "kernel, filter or key type when they differ between the sides), "
                         "none, or a list such as kernel,filter [auto]")
    ap.add_argument("--alpha", type=float, default=0.05, help="significance level for the marker [0.05]")
    args = ap.parse_args(argv)

    rx = re.compile(args.filter) if args.filter else None
    old_runs, old_names = iterations(args.old, args.metric, args.structure, args.op, rx)
    new_runs, new_names = iterations(args.new, args.metric, args.structure, args.op, rx)
    ignore = choose_ignore(old_names, new_names, args.ignore)
    known = {f for ps in list(old_names.values()) + list(new_names.values()) for f, _ in ps}
    unknown = [f for f in ignore if f not in known]
    if unknown and (old_names or new_names):
        print("compare: --ignore %s: no such field in these run names (fields: %s)"
              % (",".join(unknown), ", ".join(sorted(known))), file=sys.stderr)
        return 1
    old_id, new_id = keyed(old_names, ignore), keyed(new_names, ignore)
    for side, ids, names_ in (("old", old_id, old_names), ("new", new_id, new_names)):
        if ids is None:
            print("compare: without %s, several %s benchmarks become one (%s: %s); keep the "
                  "field (--ignore none) or narrow the runs with --filter"
                  % (",".join(ignore), side, ",".join(ignore),
                     "; ".join(", ".join(sorted(values(names_, f))) for f in ignore)),
                  file=sys.stderr)
            return 1
    old = {old_id[n]: v for n, v in old_runs.items()}
    new = {new_id[n]: v for n, v in new_runs.items()}
    names = [n for n in old if n in new]
    if not names:
        differ = ["%s (old: %s; new: %s)" % (f, ", ".join(sorted(values(old_names, f))),
                                             ", ".join(sorted(values(new_names, f))))
                  for f in sorted(known) if values(old_names, f) != values(new_names, f)]
        print("compare: no benchmark with '%s' in both files%s" % (
            args.metric, "; they differ in " + "; ".join(differ) if differ else ""), file=sys.stderr)
        return 1

    matched = [f for f in ("op", "filter", "kernel") if f in known and f not in ignore]
    for ps in list(old_names.values()) + list(new_names.values()):
        for f, _ in ps:
            if f not in matched and f not in ignore:
                matched.append(f)
    left_out = ["%s (old: %s; new: %s)" % (f, ", ".join(sorted(values(old_names, f))),
                                           ", ".join(sorted(values(new_names, f))))
                for f in ignore]
    print("matched %d benchmarks on %s%s" % (len(names), ", ".join(matched),
                                             "; left out " + "; ".join(left_out) if left_out else ""))

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
