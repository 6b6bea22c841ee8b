#!/usr/bin/python3
"""scripts/bench-cuckoo-against on stand-ins for fastfilter_cpp's benchmark and single_key
(scripts that print made-up rows and check the arguments they are given): the filter and
target FPR each --width asks for, the ratios and medians of the summary (batch: ff find50 /
batch_u64s; one key: ff find50 / the fastest one-key row), and the refusals: a single_key
file of another width, a missing ff row."""
import os
import re
import shutil
import subprocess
import sys

from benchtest import check, source_root, tmpdir

script = os.path.join(source_root(), "scripts", "bench-cuckoo-against")

FF = r'''#!/usr/bin/python3
import sys
n, ids = sys.argv[1], sys.argv[2]
want = {"12": "11", "13": "13"}[WIDTH]
if ids != want:
    sys.exit("ff stand-in: ids %s, not %s" % (ids, want))
name = {"11": "Cuckoo12", "13": "CuckooSemiSort13"}[ids] if ROW else "Other"
# add remove find0 find25 find50 find75 find100 mix fpr bits
print("%s 40.0 30.0 20.0 21.0 %s 23.0 24.0 50.0 0.0930 12.77" % (name, FIND50[n]))
'''

FL = r'''#!/usr/bin/python3
import sys
a = sys.argv[1:]
fpr = a[a.index("--fpr") + 1]
if a[a.index("--filter") + 1] != "cuckoo" or fpr != {"12": "0.002", "13": "0.001"}[WIDTH]:
    sys.exit("single_key stand-in: arguments " + " ".join(a))
n = a[a.index("--keys") + 1]
print("variant,keys,bytes,k,kernel,mode,ns_per_lookup_median,ns_per_lookup_min,reps,lookups,"
      "hit_fraction")
modes = {"single": 15.0, "lookup": 12.0, "typed": ONEKEY, "typed_avx2": 11.0,
         "batch": 9.0, "batch_u64s": BATCH}
for mode, ns in modes.items():
    print("cuckoo,%s,%d,%s,auto,%s,%.4f,%.4f,3,4194304,0.5" % (n, int(n) * 12.77 / 8, K, mode, ns, ns))
'''


def run(width, k="13", row=True):
    d = os.path.join(tmpdir(), "cuckoo-against-%s-%s-%d" % (width, k, row))
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    consts = ("WIDTH = %r\nK = %r\nROW = %r\nFIND50 = {'1000': 30.0, '2000': 44.0}\n"
              "ONEKEY = 10.0\nBATCH = 5.0\n" % (width, k, row))
    paths = {}
    for name, body in (("ff", FF), ("fl", FL)):
        p = os.path.join(d, name)
        lines = body.split("\n")
        with open(p, "w") as f:
            f.write("\n".join(lines[:1] + [consts] + lines[1:]))
        os.chmod(p, 0o755)
        paths[name] = p
    out = os.path.join(d, "out")
    cp = subprocess.run([sys.executable, script, "--width", width, "--ff", paths["ff"],
                         "--ff-commit", "abc1234", "--single-key", paths["fl"], "--keys",
                         "1000,2000", "--rounds", "2", "--reps", "3", "--out", out],
                        capture_output=True, text=True, timeout=50)
    summary = os.path.join(out, "summary.md")
    return cp, open(summary).read() if os.path.exists(summary) else ""


cp, s = run("13")
check(cp.returncode == 0, "width 13 failed: %s" % cp.stderr)
check(s.startswith("# 13-bit cuckoo filter lookups against fastfilter_cpp's CuckooSemiSort13"),
      "title: %s" % s[:200])
check("`bulk-insert-and-query.exe N 13`" in s and "--fpr 0.001" in s, "commands: %s" % s[:900])
# 1,000 keys: find50 30, batch 5 -> 6.00; fastest one-key typed 10 -> 3.00
check("| 1 | 30.00 | 5.00 | 6.00 | 10.00 (typed) | 3.00 |" in s, "round row: %s" % s)
check(re.search(r"Median ratios: batch \*\*6\.00\*\* \(rounds 6\.00, 6\.00\), one key \*\*3\.00\*\*", s),
      "1,000 medians: %s" % s)
check("batch **8.80**" in s and "one key **4.40**" in s, "2,000 medians: %s" % s)
check("ff CuckooSemiSort13 12.77 (FPR 0.093%)" in s, "bits line: %s" % s)

cp, s = run("12", k="12")
check(cp.returncode == 0, "width 12 failed: %s" % cp.stderr)
check("fastfilter_cpp's Cuckoo12" in s and "`bulk-insert-and-query.exe N 11`" in s,
      "width 12 title/commands: %s" % s[:600])

cp, s = run("13", k="12")
check(cp.returncode != 0 and "holds a 12-bit filter, not 13-bit" in cp.stderr,
      "a 12-bit file under --width 13: rc %d, %s" % (cp.returncode, cp.stderr))

cp, s = run("13", row=False)
check(cp.returncode != 0 and "no CuckooSemiSort13 row" in cp.stderr,
      "no ff row: rc %d, %s" % (cp.returncode, cp.stderr))
print("ok: bench-cuckoo-against's summary, widths and refusals")
