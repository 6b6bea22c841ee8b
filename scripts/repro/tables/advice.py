"""Not a seed table: the `filterlab advise` examples the run recorded
(data/advise_examples.json), which the report prints under "Picking a kernel for production"
beside table 8's fastest kernels. It measures no seed claim."""

import json
import os
import subprocess

from rundata import load_json

NUMBER, KEY, DATA = None, "advice", None  # reads its own files
EXPERIMENT = ("advise", "advise.csv and `filterlab advise` examples")
WRITES = ("advise_examples.json",)
EXPLAIN = {}


def experiment(r):
    import advise_data
    path = advise_data.write_advise_csv(r.out, r.host, r.stamp)
    r.say("wrote %s" % os.path.relpath(path, r.root))
    examples = []
    n_small = r.cfg["urls"]
    rel = os.path.relpath(r.out, r.root)
    where = r.out if rel.startswith("..") else rel  # run from the root: no absolute paths
    for n, fpr in ((n_small, 0.01), (10_000_000, 0.001), (100_000_000, 0.01)):
        cmd = [r.bins["filterlab"], "advise", "--n", str(n), "--fpr", repr(fpr),
               "--results", where]
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=r.root)
        examples.append({"command": "filterlab advise --n %d --fpr %s --results %s" % (
            n, repr(fpr), where),
            "status": p.returncode, "stdout": p.stdout, "stderr": p.stderr})
    with open(r.path("advise_examples.json"), "w") as f:
        json.dump({"examples": examples}, f, indent=1)
    r.stamp_json(r.path("advise_examples.json"))


def build(ctx, d=None):
    ex = load_json(ctx.out, "advise_examples.json")
    ctx.tables["advice"] = {"examples": (ex or {}).get("examples", [])}
