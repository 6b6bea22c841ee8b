#!/usr/bin/python3
"""scripts/single-key-ab on two stand-ins for single_key (scripts that write its CSV shape):
the builds run in alternated order (A B, then B A), each gets single_key's arguments after
--, per (variant, keys, mode) the ratio is the median of the rounds' paired A / B (a single
disturbed round does not move it), a mode only one build reports is left out, and -o among
the forwarded arguments is refused."""
import json
import os
import re
import stat
import subprocess
import sys

from benchtest import check, source_root, tmpdir

script = os.path.join(source_root(), "scripts", "single-key-ab")
d = tmpdir()
log = os.path.join(d, "calls.log")

# A stand-in: logs its name and arguments, then writes the CSV -o names. typed_avx2 takes
# NS[name] ns, except B's third call (round 2's first run, B A order), which takes 8.0: a
# disturbed round. A alone also reports a "batch" row.
FAKE = r'''#!%s
import sys
name, ns = %r, %r
args = sys.argv[1:]
out = args[args.index("-o") + 1]
with open(%r, "a") as f:
    f.write(name + " " + " ".join(args) + "\n")
with open(%r) as f:
    calls = sum(1 for line in f if line.startswith(name + " "))
t = 8.0 if name == "B" and calls == 2 else ns
with open(out, "w") as f:
    f.write("variant,keys,bytes,k,kernel,mode,ns_per_lookup_median,ns_per_lookup_min,reps,"
            "lookups,hit_fraction\n")
    f.write("split256,100000,131616,8,auto,typed_avx2,%%.4f,%%.4f,5,100000,0.5\n" %% (t, t))
    if name == "A":
        f.write("split256,100000,131616,8,auto,batch,1.0,1.0,5,100000,0.5\n")
'''
paths = {}
for name, ns in (("A", 3.0), ("B", 2.0)):
    p = os.path.join(d, "single_key_" + name)
    with open(p, "w") as f:
        f.write(FAKE % (sys.executable, name, ns, log, log))
    os.chmod(p, os.stat(p).st_mode | stat.S_IXUSR)
    paths[name] = p

out = os.path.join(d, "ab")
cp = subprocess.run([sys.executable, script, "--a", paths["A"], "--b", paths["B"], "--rounds", "4",
                     "--out", out, "--", "--filter", "split256", "--keys", "100000"],
                    capture_output=True, text=True, timeout=60)
check(cp.returncode == 0, "single-key-ab failed:\n" + cp.stderr)
with open(log) as f:
    calls = [line.split()[0] for line in f]
check(calls == ["A", "B", "B", "A", "A", "B", "B", "A"], "order of the runs: %s" % calls)
with open(log) as f:
    check(all("--filter split256 --keys 100000 -o " in line for line in f),
          "single_key's arguments were not forwarded")
with open(out + ".json") as f:
    doc = json.load(f)
rows = {r["run"]: r for r in doc["summary"]}
check(list(rows) == ["split256/100000/typed_avx2"], "rows: %s (batch is A's alone)" % list(rows))
r = rows["split256/100000/typed_avx2"]
# Ratios per round: 3/2, 3/8 (round 2, B disturbed), 3/2, 3/2: median 1.5.
check([round(q, 4) for q in r["ratios"]] == [1.5, 0.375, 1.5, 1.5] and r["ratio_a_over_b"] == 1.5,
      "ratios: %s median %s" % (r["ratios"], r["ratio_a_over_b"]))
with open(out + ".md") as f:
    md = f.read()
check(re.search(r"^\| split256/100000/typed_avx2 \| 3\.000 \| 2\.000 \| 1\.500x \| "
                r"1\.50, 0\.38, 1\.50, 1\.50 \|$", md, re.M) is not None, "the table row:\n" + md)

cp = subprocess.run([sys.executable, script, "--a", paths["A"], "--b", paths["B"], "--out", out,
                     "--", "-o", "x.csv"], capture_output=True, text=True, timeout=60)
check(cp.returncode != 0 and "no -o" in cp.stderr, "-o in the arguments: " + cp.stderr)
print("ok")
