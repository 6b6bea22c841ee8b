#!/usr/bin/python3
"""flbench option parsing: --help, --version, --list, usage errors (one line, exit 1, as
filterlab), output paths checked before anything runs (exit 2), sizes in keys."""
import json
import os
import re
import stat

from benchtest import check, run, tmpdir, load_strict

cp = run(["--help"])
for opt in ["--filter", "--kernel", "--fpr", "--bits-per-key", "--sizes", "--hit-rate", "--batch",
            "--keys", "--reps", "--warmup", "--interleave", "--pin", "--huge-pages", "--counters",
            "--events", "--json", "--csv", "--probe", "--quick", "--D1", "--LL", "--quiet",
            "--version"]:
    check(opt in cp.stdout, "--help does not mention %s" % opt)
check("minutes" in cp.stdout, "--help does not say how long the default sweep takes")
check(re.search(r"0 success, 1 usage error.*\n?.*2 data or I/O error", cp.stdout),
      "--help documents the exit status:\n" + cp.stdout[-1500:])

# The help's counts of the default sweep are the ones the sweep is built from: --plan over the
# default sizes lists every (variant, size), and --list names the variants.
help_text = " ".join(cp.stdout.split())
m = re.search(r"default sweep on this machine is (\d+) variants x (\d+) sizes \(\S+ to \S+\) x "
              r"(\d+) hit rates = (\d+) lookup configurations of (\d+) repetitions each, plus "
              r"(\d+) filter builds", help_text)
check(m, "--help states the default sweep's counts:\n" + cp.stdout[-1500:])
nv, ns, nh, nl, reps, nb = (int(x) for x in m.groups())
plan = run(["--plan"]).stdout.splitlines()[1:]
variants = run(["--list"]).stdout.splitlines()[0].split()[1:]
check(nv == len(variants) and nv == len({l.split()[0] for l in plan}),
      "--help says %d variants; --list has %d, --plan %d" % (nv, len(variants), len({l.split()[0] for l in plan})))
check(nv * ns == len(plan) == nb, "--help says %d x %d sizes = %d builds; --plan has %d rows"
      % (nv, ns, nb, len(plan)))
check(nh == 3 and nl == nv * ns * nh and reps == 9, "--help's counts: %s" % (m.groups(),))
check("[0,0.5,1]" in cp.stdout and "[9]" in cp.stdout, "--help's default hit rates and repetitions")

# --version: one line, "program (package) version", as help2man reads it.
cp = run(["--version"])
lines = cp.stdout.splitlines()
check(len(lines) == 1 and re.match(r"^flbench \(filterlab\) \d+\.\d+\.\d+( \(git \S+\))?$", lines[0]),
      "--version: %r" % cp.stdout)
check(run(["-V"]).stdout == cp.stdout and cp.stderr == "", "-V is --version")

cp = run(["--list"])
check("scalar" in cp.stdout and "default sweep" in cp.stdout, "--list output: " + cp.stdout)

# Usage errors: exit 1, one line on stderr naming the problem, nothing on stdout.
for bad, says in ((["--nope"], "unknown option '--nope'"), (["--nope=3"], "unknown option '--nope'"),
                  (["-x"], "unknown option '-x'"), (["--quick=1"], "option '--quick' takes no value"),
                  (["--json"], "option '--json' needs a value"),
                  (["--js"], "option '--json' needs a value"),
                  (["--s", "1"], "ambiguous option '--s'"),
                  (["--filter", "bogus"], "unknown filter 'bogus'"), (["--kernel", "bogus"], None),
                  (["--sizes", "20..10"], None), (["--fpr", "0.01", "--bits-per-key", "10"], None),
                  (["--fpr", "1.5"], None), (["--hit-rate", "2"], None), (["--keys", "strings"], None),
                  (["--counters", "magic"], None), (["--huge-pages", "maybe"], None),
                  (["--sizes", "12Q"], None), (["--reps", "0"], None), (["--D1", "32K"], None),
                  (["--json", "x.json", "--csv", "x.json"], "name the same file"),
                  (["extra"], "unexpected argument 'extra'")):
    cp = run(bad, check=False)
    check(cp.returncode == 1, "%s: exit %d, expected 1" % (bad, cp.returncode))
    err = cp.stderr.splitlines()
    check(len(err) == 1 and err[0].startswith("flbench: ") and err[0].endswith("(see 'flbench --help')"),
          "%s: one line on stderr, got:\n%s" % (bad, cp.stderr))
    check(says is None or says in err[0], "%s: %r does not say %r" % (bad, err[0], says))
    check(cp.stdout == "", "%s: nothing on stdout" % bad)

# Output paths are checked before anything is measured: exit 2, one line, in well under the
# time of a run (the sweep below would take seconds; the refusal takes milliseconds).
d = tmpdir()
ro = os.path.join(d, "ro")
os.mkdir(ro)
os.chmod(ro, stat.S_IRUSR | stat.S_IXUSR)
cases = [(["--json", "/nonexistent/x.json"], "directory /nonexistent does not exist"),
         (["--csv", "/nonexistent/x.csv"], "directory /nonexistent does not exist"),
         (["--json", os.path.join(d, "ok.json"), "--csv", "/nonexistent/x.csv"], "--csv"),
         (["--csv", d], "is a directory"),
         (["--json", os.path.join(d, "file.json", "x.json")], None)]
open(os.path.join(d, "file.json"), "w").close()
if os.geteuid() != 0:  # root may write anywhere
    cases.append((["--json", os.path.join(ro, "x.json")], "Permission denied"))
for args, says in cases:
    cp = run(["--filter", "split256", "--sizes", "16K", "--reps", "1", "--lookups", "1024",
              "--kernel", "scalar", "--probe", "none"] + args, check=False, timeout=20)
    check(cp.returncode == 2, "%s: exit %d, expected 2\n%s" % (args, cp.returncode, cp.stderr))
    err = cp.stderr.splitlines()
    check(len(err) == 1 and err[0].startswith("flbench: cannot write"), "%s: one line:\n%s" % (args, cp.stderr))
    check(says is None or says in err[0], "%s: %r does not say %r" % (args, err[0], says))
    check(cp.stdout == "", "%s: nothing measured:\n%s" % (args, cp.stdout))
check(not os.path.exists(os.path.join(d, "ok.json")), "no file written when another path is bad")
check(sorted(os.listdir(ro)) == [], "the writability check leaves nothing behind")

# Sizes in keys with bits per key, a log2 range, report on stdout (console moves to stderr).
out = os.path.join(d, "keys.json")
cp = run(["--filter", "split256,cuckoo", "--sizes-in", "keys", "--sizes", "10..12:2",
          "--bits-per-key", "12", "--hit-rate", "1", "--reps", "2", "--lookups", "2048",
          "--probe", "none", "--counters", "none", "--kernel", "scalar", "--json", "-"])
doc = json.loads(cp.stdout)
names = {b["run_name"] for b in doc["benchmarks"]}
for want in ("lookup/split256/scalar/nkeys:1024/hit:1/keys:u64",
             "lookup/cuckoo/scalar/nkeys:4096/hit:1/keys:u64"):
    check(want in names, "missing %s in %s" % (want, sorted(names)))
for b in doc["benchmarks"]:
    if b.get("op") == "lookup":
        check(b["keys_inserted"] == b["target_keys"], "keys mode inserts the requested keys")
        check(11.5 <= b["bits_per_key"] <= 13.5, "bits per key %s for --bits-per-key 12" % b["bits_per_key"])

# A file written at the end appears whole, readable like any file the user makes, with no
# temporary file left beside it.
js, cs = os.path.join(d, "r.json"), os.path.join(d, "r.csv")
run(["--filter", "split256", "--sizes", "16K", "--hit-rate", "1", "--reps", "1", "--lookups", "1024",
     "--kernel", "scalar", "--probe", "none", "--counters", "none", "--json", js, "--csv", cs])
load_strict(js)
check(sorted(f for f in os.listdir(d) if f.startswith("r.")) == ["r.csv", "r.json"],
      "temporary files left: %s" % os.listdir(d))
mask = os.umask(0)
os.umask(mask)
check(stat.S_IMODE(os.stat(js).st_mode) == 0o666 & ~mask, "mode %o" % os.stat(js).st_mode)

# A device is written in place (never replaced by a renamed file), a symbolic link is written
# through (it stays a link, its target gets the file, created if missing).
short = ["--filter", "split256", "--sizes", "16K", "--hit-rate", "1", "--reps", "1", "--lookups", "1024",
         "--kernel", "scalar", "--probe", "none", "--counters", "none", "-q"]
run(short + ["--csv", "/dev/null"])
check(stat.S_ISCHR(os.stat("/dev/null").st_mode), "/dev/null is still a device")
link = os.path.join(d, "link.json")
os.symlink("target.json", link)
run(short + ["--json", link])
check(os.path.islink(link) and load_strict(os.path.join(d, "target.json"))["benchmarks"],
      "written through the link")
print("ok")
