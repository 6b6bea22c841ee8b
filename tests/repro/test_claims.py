#!/usr/bin/env python3
"""The seed claim registry of scripts/repro is complete and the verdict engine keeps its rules.

  tests/repro/test_claims.py SOURCE_ROOT

Checks that every claim in seed_claims.json names its seed file and section and has a table
module and an explanation (claims.problems), that every explanation a table module defines
is registered for a claim, that problems() notices each kind of gap, that verdicts.judge
applies the rules seed_claims.json's "kinds" state, and that the committed runs under
results/ are judged claim by claim. Pure Python (stdlib; scipy only if installed): no build
needed."""

import inspect
import json
import os
import sys
import types
import unittest

ROOT = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts", "repro"))

import analyze  # noqa: E402
import claims  # noqa: E402
import tables  # noqa: E402
import verdicts  # noqa: E402


def spec_copy():
    return json.loads(json.dumps(claims.load_spec()))


class Registry(unittest.TestCase):
    def test_complete(self):
        self.assertEqual(claims.problems(claims.load_spec()), [])

    def test_every_claim_joined(self):
        spec = claims.load_spec()
        reg = claims.registry(spec)
        self.assertEqual([c.id for c in reg], [c["id"] for c in spec["claims"]])
        for c in reg:
            self.assertTrue(c.seed and c.section, c.id)
            self.assertEqual(c.module.NUMBER, c.table, c.id)
            self.assertIs(c.explain, c.module.EXPLAIN[c.id])
        numbered = {t.NUMBER for t in tables.ALL if t.NUMBER is not None}
        self.assertEqual({c.table for c in reg}, numbered, "a seed table without claims")
        self.assertTrue(set(range(1, 14)) <= numbered, "tables 1-13 each have claims")

    def test_every_explanation_registered(self):
        """A why_* function a table module defines but no claim uses is dead (or a typo in EXPLAIN)."""
        for t in tables.ALL:
            used = set(map(id, t.EXPLAIN.values()))
            for name, fn in inspect.getmembers(t, inspect.isfunction):
                if name.startswith("why_") and fn.__module__ == t.__name__:
                    self.assertIn(id(fn), used, "%s.%s is not in its EXPLAIN" % (t.__name__, name))
            for cid, fn in t.EXPLAIN.items():
                self.assertTrue(callable(fn), cid)

    def test_table_modules(self):
        numbers = [t.NUMBER for t in tables.ALL if t.NUMBER is not None]
        self.assertEqual(len(numbers), len(set(numbers)), "two modules for one seed table")
        keys = [t.KEY for t in tables.ALL]
        self.assertEqual(len(keys), len(set(keys)))

    def test_problems_found(self):
        spec = spec_copy()
        extra = dict(spec["claims"][0], id="t1.not_explained")
        spec["claims"].append(extra)
        self.assertTrue(any("t1.not_explained" in p and "no explanation" in p for p in claims.problems(spec)))
        self.assertRaises(ValueError, claims.registry, spec)

        spec = spec_copy()
        gone = spec["claims"].pop()["id"]
        self.assertTrue(any(gone in p and "not a claim" in p for p in claims.problems(spec)))

        spec = spec_copy()
        spec["claims"][0]["table"] = 99
        self.assertTrue(any("table 99" in p for p in claims.problems(spec)))

        spec = spec_copy()
        spec["claims"][0]["section"] = ""
        self.assertTrue(any("lacks its section" in p for p in claims.problems(spec)))

        spec = spec_copy()
        spec["claims"][1]["kind"] = "vibes"
        self.assertTrue(any("vibes" in p for p in claims.problems(spec)))

        spec = spec_copy()
        spec["claims"].append(dict(spec["claims"][0]))
        self.assertTrue(any("listed twice" in p for p in claims.problems(spec)))


def claim(kind="exact", value=10.0, tolerance=0.1, explain=verdicts.numbers_only, tests=None, unit="x"):
    return claims.Claim(id="t0.test", table=0, seed="000_test.txt", section="Test", quote="q", value=value,
                        unit=unit, kind=kind, tolerance=tolerance, measure="t0.test", tests=tests,
                        module=types.ModuleType("t0"), explain=explain)


class Verdicts(unittest.TestCase):
    def test_not_measured(self):
        self.assertEqual(verdicts.judge(None, claim(), None)[0], "not measured")

    def test_tolerance(self):
        self.assertEqual(verdicts.judge(None, claim(), 10.9)[0], "holds")
        self.assertEqual(verdicts.judge(None, claim(), 11.1)[0], "does not hold")
        self.assertEqual(verdicts.judge(None, claim(), 8.9)[0], "does not hold")

    def test_kinds(self):
        self.assertEqual(verdicts.judge(None, claim(kind="machine"), 20.0)[0], "different machine")
        self.assertEqual(verdicts.judge(None, claim(kind="ratio"), 20.0)[0], "does not hold")
        self.assertEqual(verdicts.judge(None, claim(kind="machine"), 10.5)[0], "holds")

    def test_default_reason(self):
        v, reason = verdicts.judge(None, claim(), 12.0)
        self.assertEqual(reason, "12.0x here vs 10.0x in the seed (+20%, tolerance 10%)")

    def test_explanation_decides(self):
        def why(ctx, c, m, holds):
            return ("different machine", "because") if not holds else "fine"
        self.assertEqual(verdicts.judge(None, claim(kind="ratio", explain=why), 20.0), ("different machine", "because"))
        self.assertEqual(verdicts.judge(None, claim(kind="ratio", explain=why), 10.0), ("holds", "fine"))
        seen = []
        verdicts.judge("CTX", claim(explain=lambda ctx, c, m, holds: seen.append((ctx, m, holds))), 10.5)
        self.assertEqual(seen, [("CTX", 10.5, True)])

    def test_fpr_sampling(self):
        try:
            import scipy  # noqa: F401
        except ImportError:
            self.skipTest("scipy not installed: the binomial check is off")
        # 1 false positive in 10,000 tests is a plausible draw at a true rate of 0.0002, not at 0.01
        self.assertEqual(verdicts.judge(None, claim(kind="fpr", value=0.0001, tests=10000, unit="FPR"), 0.0002)[0],
                         "holds")
        self.assertEqual(verdicts.judge(None, claim(kind="fpr", value=0.0001, tests=10000, unit="FPR"), 0.01)[0],
                         "does not hold")


class CommittedRuns(unittest.TestCase):
    def test_every_claim_judged(self):
        results = os.path.join(ROOT, "results")
        runs = [d for d in sorted(os.listdir(results)) if os.path.isfile(os.path.join(results, d, "run.json"))]
        if not runs:
            self.skipTest("no committed run under results/")
        n_claims = len(claims.load_spec()["claims"])
        for d in runs:
            with open(os.path.join(results, d, "run.json")) as f:
                run = json.load(f)
            doc = analyze.build(os.path.join(results, d), run)
            cs = doc["tables"]["claims"]
            self.assertEqual(len(cs), n_claims, d)
            for c in cs:
                self.assertIn(c["verdict"], verdicts.VERDICTS, (d, c["id"]))
                self.assertTrue(c["reason"], (d, c["id"]))


if __name__ == "__main__":
    unittest.main(verbosity=2)
