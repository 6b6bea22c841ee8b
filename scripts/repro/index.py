"""results/README.md: an index of the hosts that have a run in results/, generated from
their run.json files (CPU, caches, date, commit, mode)."""

import json
import os

from fmt import human_bytes


def refresh(results_dir):
    runs = []
    for name in sorted(os.listdir(results_dir)):
        p = os.path.join(results_dir, name, "run.json")
        if not os.path.isfile(p):
            continue
        try:
            with open(p) as f:
                runs.append((name, json.load(f)))
        except (OSError, ValueError):
            continue
    lines = [
        "# Results",
        "",
        "One folder per machine, written by `scripts/reproduce` (do not edit; rerun it). Each has "
        "`REPORT.md` (the seed chapters' numbers beside this machine's, with verdicts), the data it was "
        "computed from, plots, and `advise.csv` for `filterlab advise --results results/<host-id>`.",
        "",
        "| host | CPU | vCPUs | caches L1d / L2 / LLC | kernel | mode | date | commit |",
        "|:---|:---|---:|:---|:---|:---|:---|:---|",
    ]
    for name, r in runs:
        h, st = r["host"], r["stamp"]
        cpu = h["cpu"]
        c = h["caches"]
        lines.append("| [%s](%s/REPORT.md) | %s (%s)%s | %d | %s / %s / %s | %s | %s | %s | `%s`%s |" % (
            name, name, cpu["model_name"], cpu["uarch"], ", %s" % h["hypervisor"] if h.get("hypervisor") else "",
            h["ncpus"], human_bytes(c["l1d"]), human_bytes(c["l2"]), human_bytes(c["llc"]),
            st["kernel_selected"], st["mode"], st["date"][:10], (st["commit"] or "?")[:12],
            " (modified)" if st.get("dirty") else ""))
    if not runs:
        lines.append("| (none yet: run `scripts/reproduce`) | | | | | | | |")
    lines.append("")
    path = os.path.join(results_dir, "README.md")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return path
