#!/usr/bin/python3
"""flaccuracy (bench/accuracy_*.c) on small sizes: it writes every section, and what it
measured keeps the structures' guarantees, so that tables 9-12 of scripts/reproduce rest on a
program that is checked.

    test_flaccuracy.py FLACCURACY

- options: bad values and unknown sections are refused with status 1 and a one-line message
  (a usage error, as for filterlab and flbench); an unwritable --json path with status 2
  before anything is measured;
- HyperLogLog: every std-run estimate within 4 standard errors, their RMS within 30% of
  1.04/sqrt(m) (at 1e5 keys, past 5 m); Redis's promotion seen at 3000 bytes and at a
  register value of 33;
- Count-Min: no underestimate anywhere, seed 003's example finds every heavy hitter;
- counting Bloom: 4x classic's bytes, measured FPR at fill 1 within 30% of the model;
- scalable Bloom: the chain's measured FPR never above its error rate (plus sampling slack),
  expansion 2 and tightening 0.5 by default.
Pure checks of the JSON; seconds."""

import json
import math
import os
import shlex
import subprocess
import sys
import tempfile
import unittest

EXE = shlex.split(os.environ.get("MESON_EXE_WRAPPER", "")) + [os.path.abspath(sys.argv.pop(1))]
SMALL = ["--seed", "3", "--hll-max-card", "1e5", "--hll-runs", "2", "--hll-std-card", "1e5",
         "--hll-std-runs", "60", "--hll-demo-runs", "1", "--cms-updates", "1e5", "--cms-keys", "1e4",
         "--cms-runs", "2", "--cms-example-runs", "10", "--counting-n", "5e4", "--counting-queries", "2e5",
         "--overflow-n", "5e3", "--overflow-trials", "2", "--sbf-capacity", "5e3", "--sbf-queries", "2e5"]


def run(args):
    return subprocess.run(EXE + args, capture_output=True, text=True, timeout=300)


class Options(unittest.TestCase):
    def test_refused(self):
        for args in (["--json", "/dev/null", "--hll-runs", "x"], ["--json", "/dev/null", "--sections", "nope"],
                     ["--hll-max-card", "1e5"], ["--json", "/dev/null", "--hll-precisions", "3"],
                     ["--json", "/dev/null", "--cms-keys", "0"]):
            p = run(args)
            self.assertEqual(p.returncode, 1, (args, p.stderr))
            self.assertEqual(len(p.stderr.splitlines()), 1, (args, p.stderr))
            self.assertTrue(p.stderr.startswith("flaccuracy: "), (args, p.stderr))
        for args in (["--nope", "--json", "/dev/null"], ["--json"]):
            p = run(args)
            self.assertEqual((p.returncode, len(p.stderr.splitlines())), (1, 1), (args, p.stderr))

    def test_output_checked_first(self):
        # The default sizes take minutes: a bad path must fail before any of it.
        p = run(["--json", "/nonexistent/acc.json"])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stderr.strip(),
                         "flaccuracy: cannot write --json /nonexistent/acc.json: directory "
                         "/nonexistent does not exist")

    def test_help(self):
        p = run(["--help"])
        self.assertEqual(p.returncode, 0)
        self.assertIn("--sections", p.stdout)


class Measured(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "acc.json")
            p = run(SMALL + ["--json", out])
            if p.returncode != 0:
                raise AssertionError("flaccuracy failed: %s" % p.stderr)
            with open(out) as f:
                cls.doc = json.load(f)

    def test_sections(self):
        for s in ("hll", "cms", "counting", "sbf"):
            self.assertIn(s, self.doc)
            self.assertGreater(self.doc[s]["seconds"], 0)

    def test_hll(self):
        h = self.doc["hll"]
        se = {p["p"]: p["std_error"] for p in h["precisions"]}
        self.assertAlmostEqual(se[14], 1.04 / math.sqrt(16384), places=6)
        for s in h["std"]:
            errs = [(e - s["card"]) / s["card"] for e in s["estimates"]]
            for e in errs:
                self.assertLess(abs(e), 4 * se[s["p"]], s["p"])
            rms = math.sqrt(sum(e * e for e in errs) / len(errs))
            # past 5 m keys the error is the asymptotic one; 60 runs estimate it within ~9%
            self.assertLess(abs(rms / se[s["p"]] - 1), 0.3, (s["p"], rms))
        cards = sorted({p["card"] for p in h["sweep"]})
        self.assertEqual(cards, [1000, 10000, 100000])
        pr = h["promotion"]
        self.assertEqual(pr["sparse_max_bytes"], 3000)
        self.assertLessEqual(pr["longest_sparse_bytes"], 3000)
        self.assertGreater(pr["longest_sparse_bytes"], 2900)
        self.assertFalse(pr["value32_dense"])
        self.assertTrue(pr["value33_dense"])
        self.assertEqual(pr["dense_redis_bytes"], 16 + 12288)

    def test_cms(self):
        c = self.doc["cms"]
        self.assertEqual((c["shape"]["width"], c["shape"]["depth"]), (2719, 5))
        self.assertEqual(c["shape"]["bytes"], 2719 * 5 * 4)
        for s in c["streams"]:
            self.assertEqual(s["underestimates"], 0, s["stream"])
            self.assertLessEqual(s["above_eps_n"] / s["keys"], 0.01, s["stream"])
        ex = c["example"]
        self.assertEqual(ex["total"], sum(10000 // (i + 1) for i in range(100)))
        self.assertEqual(ex["true_heavy"], 19)
        self.assertEqual(ex["heavy_missed"], 0)

    def test_counting(self):
        k = self.doc["counting"]
        mem = {m["variant"]: m for m in k["memory"]}
        self.assertAlmostEqual(mem["counting"]["bytes"] / mem["classic"]["bytes"], 4, places=3)
        for r in k["fill"]:
            if r["fill"] == 1.0:
                self.assertLess(abs(r["measured_fpr"] / r["predicted_fpr"] - 1), 0.3, r["variant"])
                self.assertEqual(r["saturated"], 0, r["variant"])
        sat = [r["mean_saturated"] for r in k["overflow"] if r["variant"] == "counting"]
        self.assertEqual(sat, sorted(sat), "saturated counters grow with the fill")
        self.assertGreater(sat[-1], 0)

    def test_sbf(self):
        s = self.doc["sbf"]
        self.assertEqual((s["defaults"]["growth"], s["defaults"]["tightening"]), (2, 0.5))
        for r in s["chain"]:
            # the bound is the model's; allow 4 binomial standard deviations of sampling
            sd = math.sqrt(s["error_rate"] * (1 - s["error_rate"]) / r["queries"])
            self.assertLessEqual(r["measured_fpr"], s["error_rate"] + 4 * sd, r)
            self.assertLessEqual(r["predicted_fpr"], s["error_rate"])
        self.assertEqual(max(r["filters"] for r in s["chain"]), 4)
        caps = [x["capacity"] for x in s["subfilters"] if x["variant"] == "classic"]
        self.assertEqual(caps, [caps[0] * 2 ** i for i in range(len(caps))])


if __name__ == "__main__":
    unittest.main(verbosity=2)
