"""fastfilter_cpp's benchmark beside filterlab's: its output, and one locked benchmark run.

fastfilter_cpp's benchmarks/bulk-insert-and-query prints a row per filter: the filter's name,
then ns per key to add all keys, to remove them, to find keys of which 0, 25, 50, 75 and 100%
were added, and for a mixed stream, then the FPR in percent and the bits per item (FF_COLS;
later columns ignored). scripts/bench-vqf-against and bench-cuckoo-against read it with
ff_rows and run every benchmark through run_logged.
"""
import os
import re
import subprocess
import sys
import time

FF_COLS = ["add", "remove", "find0", "find25", "find50", "find75", "find100", "mix", "fpr_pct",
           "bits_per_item"]


def ff_rows(path, names):
    """The rows of the filters named: name -> {column: value}; a name without a row is left
    out."""
    rows = {}
    text = open(path, errors="replace").read()
    for name in names:
        m = re.search(r"^\s*" + re.escape(name) + r"((?:\s+[-0-9.]+){10,})\s*$", text, re.M)
        if m:
            rows[name] = dict(zip(FF_COLS, (float(x) for x in m.group(1).split())))
    return rows


def run_logged(cmd, lock, out_path, load_log, who):
    """cmd with its output in out_path, under `flock lock` when lock is set, one line in
    load_log (the time, the file, the 1-minute load average before and after, the exit
    status); exits naming `who` if cmd fails."""
    full = (["flock", lock] if lock else []) + cmd
    before = os.getloadavg()[0]
    with open(out_path, "w") as f:
        rc = subprocess.call(full, stdout=f, stderr=subprocess.STDOUT)
    load_log.write("%s %s load %.2f -> %.2f rc %d\n" % (time.strftime("%H:%M:%S"),
                                                         os.path.basename(out_path), before,
                                                         os.getloadavg()[0], rc))
    load_log.flush()
    if rc:
        sys.exit("%s: %s exited %d (see %s)" % (who, cmd[0], rc, out_path))
