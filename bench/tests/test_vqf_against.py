#!/usr/bin/python3
"""scripts/bench-vqf-against's verdicts on inserts and deletes, on made-up one_key_updates
files beside a committed round's raw files (fastfilter_cpp's output, single_key's and
flbench's): filterlab's fastest filter of equal or fewer bits per key at a comparable FPR is
set against each of fastfilter_cpp's filters with an add (a remove: Cuckoo12 alone), the
worst ratio is the verdict; a 12-bit cuckoo filter of more bits per key than Cuckoo12 is left
out, and so are the VQF and the 11-bit cuckoo filter against Cuckoo12 (twice its FPR); a
round without the file falls back to flbench's VQF figures over the best of theirs. Also the
lookup stream it gives single_key (fastfilter_cpp's sample size, at most 4Mi keys), and the
summary's header naming the stream its CSVs record."""
import importlib.machinery
import importlib.util
import os
import re
import shutil
import subprocess
import sys

from benchtest import check, source_root, tmpdir

root = source_root()
script = os.path.join(root, "scripts", "bench-vqf-against")
run3 = os.path.join(root, "results", "zen3-kvm-2c-5bce", "against", "fastfilter_cpp",
                    "deletable-run3")
N = 100000
# round 1 of run3 at 100,000 keys: ff VQF add 21.84 (0.443%), Cuckoo12 add 36.64, remove 19.90
# (0.180%); flbench's VQF insert_one 28.29, delete_one 28.34


summaries = []  # every summary.md verdict_row read, in order


def verdict_row(updates):
    d = os.path.join(tmpdir(), "vqf-against")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for f in ("ff-r1-%d.txt", "fl-single-r1-%d.csv", "fl-cuckoo12-r1-%d.csv",
              "fl-suite-r1-%d.json"):
        shutil.copy(os.path.join(run3, f % N), d)
    if updates is not None:
        with open(os.path.join(d, "fl-updates-r1-%d.csv" % N), "w") as f:
            f.write("filter,keys,bytes,bits_per_key,kernel,op,ns_per_key_median,"
                    "ns_per_key_min,reps\n")
            for flt, bpk, ins, dele in updates:
                for op, v in (("insert_one", ins), ("delete_one", dele)):
                    f.write("%s,%d,0,%.4f,-,%s,%.4f,%.4f,5\n" % (flt, N, bpk, op, v, v))
    cp = subprocess.run([sys.executable, script, "--report-only", "--keys", str(N), "--out", d],
                        capture_output=True, text=True, timeout=50)
    check(cp.returncode == 0, "bench-vqf-against failed:\n" + cp.stdout + cp.stderr)
    text = open(os.path.join(d, "summary.md")).read()
    summaries.append(text)
    rows = [l for l in text.splitlines() if l.startswith("| 100,000 |")]
    check(len(rows) == 1, "verdict rows: %s" % rows)
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    return cells[3], cells[4], cells[5]  # insert vs VQF add, insert (worst), delete


def unjudged(cell):
    return cell == "- missed"


def ratio(cell):
    m = re.match(r"([0-9.]+) \[batch [0-9.-]+\] (met|missed)$", cell)
    check(m is not None, "cell %r" % cell)
    return float(m.group(1)), m.group(2)


# VQF inserts 20 (21.84: 0.92), cuckoo12 inserts 30 (Cuckoo12's add 36.64: 0.82; the VQF's 20,
# at 0.44%, is not compared with it): worst 0.92; deletes: cuckoo12 19 over remove 19.90, 0.95.
ins_vqf, ins, dele = verdict_row([("vqf", 11.41, 20.0, 25.0), ("cuckoo12", 12.7664, 30.0, 19.0)])
check(ratio(ins_vqf) == (0.92, "met"), "insert vs VQF add: " + ins_vqf)
check(ratio(ins) == (0.92, "met"), "insert, worst: " + ins)
check(ratio(dele) == (0.95, "met"), "delete: " + dele)
# The VQF's insert slower than their VQF's add: missed, whatever the cuckoo filter does.
ins_vqf, ins, _ = verdict_row([("vqf", 11.41, 24.0, 25.0), ("cuckoo12", 12.7664, 10.0, 19.0)])
check(ratio(ins_vqf) == (1.10, "missed") and ratio(ins) == (1.10, "missed"),
      "insert: %s, %s" % (ins_vqf, ins))
# A cuckoo filter of more bits per key than Cuckoo12's 12.77 is not compared, nor the VQF at
# more than twice its FPR: no delete of filterlab's is set against Cuckoo12's remove.
_, _, dele = verdict_row([("vqf", 11.41, 20.0, 25.0), ("cuckoo12", 12.9, 30.0, 19.0)])
check(unjudged(dele), "delete, cuckoo12 over Cuckoo12's bits: " + dele)
# The 11-bit cuckoo filter (10.64 bits per key, 0.37%) counts against their VQF (15 / 21.84 =
# 0.69), not against Cuckoo12 (0.18%): there the 12-bit filter's 30 / 36.64 = 0.82 is the
# worst insert, and its delete 19 / 19.90 = 0.95, not the 11-bit one's 12.
ins_vqf, ins, dele = verdict_row([("vqf", 11.41, 24.0, 25.0), ("cuckoo11", 10.6378, 15.0, 12.0),
                                  ("cuckoo12", 12.7664, 30.0, 19.0)])
check(ratio(ins_vqf) == (0.69, "met") and ratio(ins) == (0.82, "met") and
      ratio(dele) == (0.95, "met"), "with the 11-bit filter: %s, %s, %s" % (ins_vqf, ins, dele))
# No one_key_updates file (older runs): flbench's VQF one-key figures, 28.29 / 21.84 and
# 28.34 / 19.90.
ins_vqf, ins, dele = verdict_row(None)
check(ratio(ins_vqf) == (1.30, "missed") and ratio(ins) == (1.30, "missed") and
      ratio(dele) == (1.42, "missed"), "fallback: %s, %s, %s" % (ins_vqf, ins, dele))
# The header names the stream single_key read, from its CSVs (run3: 5 x 4Mi at 100K).
summary = summaries[-1]
check("the median of 5 repetitions over 4,194,304 lookups at 100,000 keys)" in summary,
      "summary header: " + summary.splitlines()[2][:400])
# The stream rule: fastfilter_cpp's sample size up to 4Mi keys, repetitions to span 4Mi.
loader = importlib.machinery.SourceFileLoader("bench_vqf_against", script)
spec = importlib.util.spec_from_loader(loader.name, loader)
bva = importlib.util.module_from_spec(spec)
loader.exec_module(bva)
for n, fixed, want in ((100000, 0, (100000, 42)), (1000000, 0, (1000000, 5)),
                       (10000000, 0, (4194304, 5)), (1000, 0, (1000, 101)),
                       (100000, 4194304, (4194304, 5))):
    check(bva.stream_for(n, fixed) == want, "stream_for(%d, %d): %s" % (n, fixed,
                                                                      bva.stream_for(n, fixed)))
print("bench-vqf-against: insert and delete verdicts as the figures give, stream as ff's")
