"""advise.csv: the kernel sweep in the flat form `filterlab advise` reads.

One row per measured (variant, kernel, filter size, hit rate, target FPR) lookup
configuration of flbench, plus '#' header lines naming the machine (cpu_signature is what
`filterlab advise` compares with /proc/cpuinfo), its caches and the run."""

import csv
import glob
import os
import re

COLUMNS = ["variant", "kernel", "emulated", "target_fpr", "filter_bytes", "bits_per_key", "k",
           "hit_rate", "ns_per_lookup", "ns_per_lookup_min", "cv_pct", "fpr_measured",
           "fpr_predicted", "bound_ns_per_line"]


def read_csv(path):
    """flbench CSV minus the '# key=value' lines reproduce adds; returns (meta, rows)."""
    meta, lines = {}, []
    with open(path, newline="") as f:
        for line in f:
            if line.startswith("#"):
                k, _, v = line[1:].strip().partition("=")
                meta[k.strip()] = v.strip()
            else:
                lines.append(line)
    return meta, list(csv.DictReader(lines))


def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def sweep_files(out):
    """(target FPR, path) of every sweep CSV of a run."""
    res = []
    for p in sorted(glob.glob(os.path.join(out, "data", "t8_sweep*.csv"))):
        m = re.search(r"t8_sweep_fpr([0-9.e+-]+)\.csv$", p)
        res.append((float(m.group(1)) if m else 0.01, p))
    return res


def lookup_rows(out):
    """Every lookup row of every sweep, as dicts with numbers, plus the probe bound."""
    rows = []
    for fpr, path in sweep_files(out):
        _, data = read_csv(path)
        bound = {}
        for r in data:
            if r.get("op") == "probe_random_line":
                m = re.search(r"bytes:(\d+)", r["name"])
                if m:
                    bound[int(m.group(1))] = num(r.get("ns_per_op_median"))
        for r in data:
            if r.get("op") != "lookup":
                continue
            fb = int(float(r["filter_bytes"]))
            rows.append({
                "variant": r["filter"], "kernel": r["kernel"], "target_fpr": fpr,
                "filter_bytes": fb, "bits_per_key": num(r["bits_per_key"]), "k": int(float(r["k"])),
                "hit_rate": num(r["hit_rate"]), "ns_per_lookup": num(r["ns_per_op_median"]),
                "ns_per_lookup_min": num(r["ns_per_op_min"]), "cv_pct": num(r["ns_per_op_cv_pct"]),
                "fpr_measured": num(r["fpr_measured"]), "fpr_predicted": num(r["fpr_predicted"]),
                "bound_ns_per_line": num(r.get("bound_ns_per_line")) or bound.get(fb),
                "target": int(float(r.get("target_bytes") or r.get("target_keys") or fb)),
            })
    return rows


def latencies(out):
    """The harness's memory probe: dependent-load latency (ns) at each footprint (bytes)."""
    lat = {}
    for _, path in sweep_files(out):
        for r in read_csv(path)[1]:
            m = re.search(r"bytes:(\d+)", r.get("name", ""))
            if r.get("op") == "probe_latency" and m:
                lat.setdefault(int(m.group(1)), num(r.get("ns_per_op_median")))
    return lat


def memory_like_from(lat):
    """The smallest footprint whose latency is within 20% of the largest footprint's: from
    there on a random access costs about a DRAM access on this machine, whatever sysfs says."""
    if not lat:
        return None
    top = lat[max(lat)]
    return min((b for b, v in lat.items() if v and top and v >= 0.8 * top), default=None)


def write_advise_csv(out, host, stamp, emulated=()):
    rows = lookup_rows(out)
    path = os.path.join(out, "advise.csv")
    c = host["caches"]
    with open(path, "w", newline="") as f:
        f.write("# filterlab advise data: flbench lookup times on this machine (written by scripts/reproduce)\n")
        for k, v in (("host_id", host["host_id"]), ("cpu_model", host["cpu"]["model_name"]),
                     ("cpu_signature", host["cpu_signature"]), ("uarch", host["cpu"]["uarch"]),
                     ("ncpus", host["ncpus"]), ("l1d_bytes", c["l1d"]), ("l2_bytes", c["l2"]),
                     ("llc_bytes", c["llc"]), ("memory_like_from_bytes", memory_like_from(latencies(out)) or ""),
                     ("commit", stamp["commit"]), ("date", stamp["date"]),
                     ("kernel_selected", stamp["kernel_selected"]), ("mode", stamp["mode"])):
            f.write("# %s=%s\n" % (k, v))
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for r in sorted(rows, key=lambda r: (r["variant"], r["kernel"], r["target_fpr"],
                                             r["filter_bytes"], r["hit_rate"])):
            w.writerow([r["variant"], r["kernel"], int(r["kernel"] in emulated), repr(r["target_fpr"]),
                        r["filter_bytes"]] + ["" if r[k] is None else "%.6g" % r[k] for k in
                                              ("bits_per_key", "k", "hit_rate", "ns_per_lookup",
                                               "ns_per_lookup_min", "cv_pct", "fpr_measured",
                                               "fpr_predicted", "bound_ns_per_line")])
    return path
