#!/usr/bin/env python3
"""The seed claim registry of scripts/repro is complete and the verdict engine keeps its rules.

  tests/repro/test_claims.py SOURCE_ROOT

Checks that every claim in seed_claims.json names its seed file and section and has a table
module and an explanation (claims.problems), that every explanation a table module defines
is registered for a claim, that problems() notices each kind of gap, that verdicts.judge
applies its stated rules (verdicts.RULES) on constructed cases that must fail (a binomial test
that rejects what a band admitted, a restated claim counted as a hold, an explanation that
tries to decide, a machine figure compared without normalisation, a speedup on the wrong
terms), that the unchecked list is complete and quotes the seeds, and that the committed runs
under results/ are judged claim by claim. Pure Python (stdlib; scipy only if installed, to
cross-check the binomial tails): no build needed."""

import inspect
import math
import json
import os
import re
import sys
import types
import unittest

ROOT = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts", "repro"))

import analyze  # noqa: E402
import claims  # noqa: E402
import report  # noqa: E402
import tables  # noqa: E402
import verdicts  # noqa: E402
from context import Context  # noqa: E402


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

        spec = spec_copy()
        spec["claims"][0]["tolerance"] = 0.25
        self.assertTrue(any("types a tolerance" in p for p in claims.problems(spec)))

        spec = spec_copy()
        fpr = next(c for c in spec["claims"] if c["kind"] == "fpr" and c.get("tests"))
        del fpr["tests"]
        self.assertTrue(any("number of tests" in p for p in claims.problems(spec)))

        spec = spec_copy()
        spec["claims"][0]["general"] = "t1.model"
        self.assertTrue(any("general and lacks" in p for p in claims.problems(spec)))

        spec = spec_copy()
        mach = next(c for c in spec["claims"] if c["kind"] == "machine")
        del mach["bytes"]
        self.assertTrue(any("structure's bytes" in p for p in claims.problems(spec)))

        spec = spec_copy()
        spec["claims"][0]["printed"] = "about right"
        self.assertTrue(any("holds no number" in p for p in claims.problems(spec)))


def claim(kind="exact", value=10.0, printed="10", explain=verdicts.numbers_only, tests=None, unit="x", **kw):
    return claims.Claim(id="t0.test", table=0, seed="000_test.txt", section="Test", quote="q", value=value,
                        unit=unit, kind=kind, printed=printed, measure="t0.test", tests=tests,
                        module=types.ModuleType("t0"), explain=explain, **kw)


def context(facts=None, dram_from=8 << 20, llc=32 << 20):
    """A Context on a made-up machine: caches from sysfs, a memory probe that found DRAM-like
    latency (100 ns) from dram_from on, 10 ns below it, and a 2 GHz TSC."""
    lat = {str(b): (100.0 if b >= dram_from else 10.0) for b in (1 << 20, 4 << 20, 8 << 20, 64 << 20, 1 << 30)}
    run = {"host": {"caches": {"l1d": 48 << 10, "l2": 1 << 20, "llc": llc}},
           "stamp": {"kernel_selected": "scalar"},
           "t8_dram_point": {"latency_ns": lat, "bytes": dram_from}}
    ctx = Context("/nonexistent", run)
    ctx.tables["t1"] = {"tsc_hz": 2e9}
    for k, v in (facts or {}).items():
        ctx.fact(k, v, "test")
    return ctx


def verdict(c, m, ctx=None):
    return verdicts.judge(ctx or context(), c, m)[0]


class PrintedPrecision(unittest.TestCase):
    """Half a unit in the seed's last printed digit, in the claim's unit, and nothing wider."""

    def test_half_unit(self):
        self.assertAlmostEqual(verdicts.printed_half_unit("10", 10.0), 0.5)
        self.assertAlmostEqual(verdicts.printed_half_unit("0.8%", 0.008), 0.0005)
        self.assertAlmostEqual(verdicts.printed_half_unit("11.44", 11.44), 0.005)
        self.assertAlmostEqual(verdicts.printed_half_unit("1.2", 1.2e6), 50000)
        self.assertAlmostEqual(verdicts.printed_half_unit("6,666,667", 6666667), 0.5)
        self.assertIsNone(verdicts.printed_half_unit("PF", 1.0))

    def test_within_and_outside(self):
        self.assertEqual(verdict(claim(), 10.4), "holds")
        self.assertEqual(verdict(claim(), 10.6), "does not hold")
        self.assertEqual(verdict(claim(), 9.4), "does not hold")
        # a printed 11.44 is not 11.43, however close (table 3's sizes)
        self.assertEqual(verdict(claim(value=11.44, printed="11.44"), 11.4263), "does not hold")
        self.assertEqual(verdict(claim(value=11.44, printed="11.44"), 11.4384), "holds")

    def test_edge_of_the_printed_interval(self):
        """Digits past the one after the printed ones do not decide: 1.250048 MB reads as 1.25."""
        self.assertEqual(verdict(claim(value=1.2e6, printed="1.2"), 1250048), "holds")
        self.assertEqual(verdict(claim(value=1.2e6, printed="1.2"), 1260000), "does not hold")

    def test_measured_error_widens(self):
        c = claim(value=0.0081, printed="0.81%", unit="RMS")
        self.assertEqual(verdict(c, 0.00747), "does not hold")
        self.assertEqual(verdict(c, 0.00747, context({"t0.test.se": 0.0004})), "holds")
        self.assertEqual(verdict(c, 0.00600, context({"t0.test.se": 0.0004})), "does not hold")

    def test_formula_has_no_printed_band(self):
        """A formula (PF, "the same precision") gets only the measured error: without it, exact."""
        c = claim(value=1.0, printed="PF", formula=True)
        self.assertEqual(verdict(c, 1.02), "does not hold")
        self.assertEqual(verdict(c, 1.02, context({"t0.test.se": 0.01})), "holds")
        self.assertEqual(verdict(c, 1.92, context({"t0.test.se": 0.06})), "does not hold")

    def test_tolerance_printed(self):
        v, reason, tol, m = verdicts.judge(context({"t0.test.se": 0.1}), claim(), 10.2)
        self.assertIn("half a unit", tol)
        self.assertIn("standard error", tol)


class Bounds(unittest.TestCase):
    def test_at_most(self):
        c = claim(value=0.01, printed="delta = 0.01", compare="at_most", formula=True, unit="FPR")
        self.assertEqual(verdict(c, 0.0), "holds")
        self.assertEqual(verdict(c, 0.0101), "does not hold")
        self.assertEqual(verdict(c, 0.0101, context({"t0.test.se": 0.0001})), "holds")

    def test_at_least(self):
        c = claim(value=2 / 3, printed="below m/3 ones", compare="at_least", formula=True)
        self.assertEqual(verdict(c, 0.99), "holds")
        self.assertEqual(verdict(c, 0.12), "does not hold")


class Binomial(unittest.TestCase):
    def test_tails_exact(self):
        lo, hi = verdicts.binom_tails(0, 10, 0.5)
        self.assertAlmostEqual(lo, 1 / 1024)
        self.assertAlmostEqual(hi, 1.0)
        lo, hi = verdicts.binom_tails(5, 10, 0.5)
        self.assertAlmostEqual(lo, 638 / 1024)
        self.assertAlmostEqual(hi, 638 / 1024)
        try:
            from scipy.stats import binom
        except ImportError:
            return
        for k, n, p in ((8000, 1000000, 0.00957), (500, 10000, 0.0578), (1, 10000, 0.000251), (37, 200, 0.2)):
            lo, hi = verdicts.binom_tails(k, n, p)
            self.assertAlmostEqual(lo, binom.cdf(k, n, p), delta=1e-9 + 1e-6 * lo)
            self.assertAlmostEqual(hi, binom.sf(k - 1, n, p), delta=1e-9 + 1e-6 * hi)

    def test_rejects_what_a_band_admitted(self):
        """Table 2's blocked filter: the seed's 0.8% at 1M tests against 0.957% measured is 16 sigma
        off, though within the 25% band the report used to apply."""
        c = claim(kind="fpr", value=0.008, printed="0.8%", tests=1000000, unit="FPR")
        self.assertEqual(verdict(c, 0.009565), "does not hold")
        self.assertEqual(verdict(c, 0.008166), "holds")
        # table 4: 5% of 10,000 against 5.78% is 3.3 sigma: rejected, within 25% or not
        c = claim(kind="fpr", value=0.05, printed="0.0500", tests=10000, unit="FPR")
        self.assertEqual(verdict(c, 0.0578), "does not hold")
        self.assertEqual(verdict(c, 0.0510), "holds")

    def test_small_counts(self):
        # 1 false positive in 10,000 is a plausible draw at 0.0002, not at 0.01
        c = claim(kind="fpr", value=0.0001, printed="0.0001", tests=10000, unit="FPR")
        self.assertEqual(verdict(c, 0.0002), "holds")
        self.assertEqual(verdict(c, 0.01), "does not hold")

    def test_two_counts(self):
        """With this run's queries the test compares two counts: a measured rate from few queries
        admits more than the same rate taken as exact."""
        c = claim(kind="fpr", value=0.008, printed="0.8%", tests=1000000, unit="FPR")
        self.assertEqual(verdict(c, 0.0086), "does not hold")
        self.assertEqual(verdict(c, 0.0086, context({"t0.test.queries": 20000})), "holds")
        self.assertGreater(verdicts.binomial_test(0.008, 1000000, 0.0086, 20000),
                           verdicts.binomial_test(0.008, 1000000, 0.0086))

    def test_interval_matches_the_test(self):
        lo, hi = verdicts.binomial_interval(0.0578, 10000)
        self.assertLess(lo, 0.0578)
        self.assertGreater(lo, 0.05)
        self.assertGreater(verdicts.binomial_test(lo, 10000, 0.0578), verdicts.ALPHA)
        self.assertLessEqual(verdicts.binomial_test(lo - 1e-4, 10000, 0.0578), verdicts.ALPHA)


class Labels(unittest.TestCase):
    def test_restated_never_holds(self):
        c = claim(restates="RedisBloom's default")
        self.assertEqual(verdict(c, 10.0), "restated")
        self.assertEqual(verdict(c, 99.0), "restated")
        cs = [{"verdict": "holds"}, {"verdict": "restated"}, {"verdict": "does not hold"}]
        line = report.summary_line(cs)
        self.assertIn("2 judged (1 holds, 1 does not hold)", line)
        self.assertIn("1 restated", line)

    def test_filterlab_lacks(self):
        c = claim(value=0.03, printed="3%", general="t0.model", lacks="semi-sorted buckets")
        self.assertEqual(verdict(c, 0.0002, context({"t0.model": 0.0255})), "filterlab lacks")
        v, reason, _, _ = verdicts.judge(context({"t0.model": 0.0255}), c, 0.0002)
        self.assertIn("semi-sorted buckets", reason)
        # the model fails too: the claim does not hold in general either
        self.assertEqual(verdict(c, 0.0002, context({"t0.model": 0.0041})), "does not hold")
        self.assertEqual(verdict(c, 0.0301, context({"t0.model": 0.0041})), "holds")

    def test_explanation_decides_nothing(self):
        """An explanation may only say the data is missing; it cannot turn a failure into a hold
        or into 'different machine'."""
        for v in ("holds", "different machine"):
            c = claim(explain=lambda ctx, c, m, holds, v=v: (v, "because"))
            self.assertEqual(verdict(c, 20.0), "does not hold")
        c = claim(explain=lambda ctx, c, m, holds: ("not measured", "no redis-server"))
        self.assertEqual(verdict(c, 10.0), "not measured")
        seen, ctx = [], context()
        verdicts.judge(ctx, claim(explain=lambda ctx, c, m, holds: seen.append((ctx, m, holds))), 10.4)
        self.assertEqual(seen, [(ctx, 10.4, True)])

    def test_not_measured(self):
        self.assertEqual(verdict(claim(), None), "not measured")


class Machine(unittest.TestCase):
    def test_cache_resident_is_not_comparable(self):
        c = claim(kind="machine", value=375, printed="375", unit="ns per lookup", misses=7, bytes="t0.bytes")
        v, reason, tol, m = verdicts.judge(context({"t0.bytes": 1 << 20}), c, 27.0)
        self.assertEqual(v, "not comparable")
        self.assertIn("700 ns", reason)  # 7 misses at this machine's 100 ns

    def test_dram_resident_is_judged_normalised(self):
        c = claim(kind="machine", value=150, printed="150", unit="ns per lookup", misses=1, bytes="t0.bytes")
        ctx = context({"t0.bytes": 128 << 20})
        self.assertEqual(verdict(c, 104.0, ctx), "holds")       # 1 x 100 ns
        self.assertEqual(verdict(c, 150.0, ctx), "does not hold")  # the seed's own number, unnormalised
        self.assertEqual(verdict(c, 40.0, ctx), "does not hold")

    def test_cycles_at_this_clock(self):
        c = claim(kind="machine", value=450e6, printed="450M", unit="cycles per 1M lookups", misses=7,
                  per_lookups=1000000, bytes="t0.bytes")
        ctx = context({"t0.bytes": 64 << 20})
        self.assertEqual(verdict(c, 1.4e9, ctx), "holds")  # 7 x 100 ns x 2 GHz x 1M
        self.assertEqual(verdict(c, 450e6, ctx), "does not hold")

    def test_no_miss_count_is_not_comparable(self):
        c = claim(kind="machine", value=150, printed="150", unit="ns per lookup", bytes="t0.bytes")
        self.assertEqual(verdict(c, 150.0, context({"t0.bytes": 128 << 20})), "not comparable")


class Speedups(unittest.TestCase):
    def test_judged_at_dram_on_the_seeds_terms(self):
        c = claim(kind="ratio", value=5.3, printed="5.3", bytes="t0.bytes", dram_measure="t0.dram")
        ctx = context({"t0.bytes": 1 << 20, "t0.dram": 1.14})
        v, reason, tol, m = verdicts.judge(ctx, c, 5.3)
        self.assertEqual((v, m), ("does not hold", 1.14))
        self.assertIn("judged at the DRAM point", reason)
        self.assertEqual(verdict(c, 1.0, context({"t0.bytes": 1 << 20, "t0.dram": 5.31})), "holds")
        # at a DRAM-resident size the value measured there is judged
        self.assertEqual(verdict(c, 5.3, context({"t0.bytes": 64 << 20, "t0.dram": 1.14})), "holds")
        # nothing measured at DRAM: not comparable
        self.assertEqual(verdict(c, 5.3, context({"t0.bytes": 1 << 20})), "not comparable")


class Unchecked(unittest.TestCase):
    def test_complete(self):
        self.assertEqual(claims.unchecked_problems(claims.load_unchecked()), [])
        self.assertTrue(claims.unchecked_problems([{"seed": "000", "section": "x", "quote": "q"}]))

    def test_quotes_are_the_seeds(self):
        """Every quote (claims and unchecked) is in its seed, under its section's headings."""
        seeds = os.path.join(ROOT, "..", "shared", "seeds")
        if not os.path.isdir(seeds):
            self.skipTest("no seed chapters at ../shared/seeds")
        norm = lambda s: re.sub(r"\s+", " ", s).strip()  # noqa: E731
        entries = claims.load_unchecked() + [c for c in claims.load_spec()["claims"] if c["seed"].startswith("00")]
        for u in entries:
            if u["seed"].startswith("001"):
                continue  # the Chinese translation of 000: listed once, not quoted
            with open(os.path.join(seeds, u["seed"]), encoding="utf-8", errors="replace") as f:
                text = f.read()
            for part in u["section"].split(" > "):
                self.assertIn(part, text, (u["seed"], u["section"]))
            if "id" not in u:  # seed_claims.json's quotes restore 003's mis-encoded characters
                self.assertIn(norm(u["quote"]), norm(text), (u["seed"], u["quote"][:60]))


class CuckooWidths(unittest.TestCase):
    """Table 5 with 8-, 11- (semi-sorted), 12-, 13- (semi-sorted) and 16-bit fingerprints: seed
    003's cuckoo claims are judged on the 12-bit filter the seed names (measured as it is, not
    scaled from the other widths), its summary's bits per key at 0.1% on the width the library
    picks (13 bits), and the filters that delete (with the vector quotient filter) come out as
    their own rows without disturbing the library's. Table 2's cuckoo memory claim is judged on
    the filter the library sizes for 1% (11 bits)."""

    @staticmethod
    def space_row(label, variant, target, bpk, fpr, k, load=None, error=None, **more):
        if error:
            return {"label": label, "variant": variant, "target_fpr": target, "fingerprint_bits": k,
                    "error": error}
        r = {"label": label, "variant": variant, "target_fpr": target, "bits_per_key": bpk,
             "measured_fpr": fpr, "false_positives": int(fpr * 1e6), "k": k, "bytes": 1000}
        if load is not None:
            r.update(fingerprint_bits=k, load=load)
        r.update(more)
        return r

    @staticmethod
    def cuckoo_row(f, load, fpr):
        return {"fingerprint_bits": f, "load_wanted": load, "load": load, "units": 10000,
                "inserted": int(load * 40000), "measured_fpr": fpr, "false_positives": int(fpr * 1e7),
                "queries": 10000000, "formula_2b_over_2f": 8.0 / (1 << f),
                "formula_at_load": 8.0 * load / ((1 << f) - 1)}

    def build(self):
        import tempfile
        from tables import t5_space
        R = self.space_row
        rows = [R("library", "classic", 0.001, 14.4, 0.00104, 10),
                R("library", "cuckoo", 0.001, 12.77, 0.00092, 13, 0.94),
                R("deletes", "cuckoo", 0.001, None, None, 8, error="the target needs a load below 0.5"),
                R("deletes", "cuckoo", 0.001, None, None, 11, error="the target needs a load below 0.5 at this width"),
                R("deletes", "cuckoo", 0.001, 23.4, 0.00099, 12, 0.512),
                R("deletes", "cuckoo", 0.001, 12.77, 0.00092, 13, 0.94),
                R("deletes", "cuckoo", 0.001, 17.02, 0.00011, 16, 0.94),
                R("deletes", "vqf", 0.001, None, None, 8, error="the target needs a load below 0.5 at this width"),
                R("deletes", "counting", 0.001, 57.5, 0.00105, 10),
                R("deletes", "counting512", 0.001, 76.1, 0.00098, 8),
                R("library", "classic", 0.002, 12.9, 0.002, 9),
                R("library", "cuckoo", 0.002, 12.77, 0.0018, 12, 0.94),
                R("deletes", "cuckoo", 0.002, 21.5, 0.002, 11, 0.512),
                R("deletes", "cuckoo", 0.002, 12.77, 0.00187, 12, 0.94),
                R("deletes", "cuckoo", 0.002, 12.77, 0.00093, 13, 0.94),
                # 1% to ~0.31%: the library picks 11 bits (10.64 bits per key at load 0.94),
                # fewer than classic's 11.03 at 0.5%
                R("library", "classic", 0.005, 11.03, 0.005, 8),
                R("library", "cuckoo", 0.005, 10.64, 0.0034, 11, 0.94),
                R("deletes", "cuckoo", 0.005, 10.64, 0.0034, 11, 0.94),
                R("deletes", "cuckoo", 0.01, 10.64, 0.0035, 11, 0.94),
                R("deletes", "vqf", 0.002, None, None, 8, error="the target needs a load below 0.5 at this width"),
                # the vqf at its sizing load (two targets, the same filter), and one filled
                # until an insert was refused: its bits per key are over the keys that went in
                R("deletes", "vqf", 0.01, 11.41, 0.0044, 8, 0.935, sizing_load=0.935),
                R("deletes", "vqf", 0.005, 11.41, 0.0045, 8, 0.935, sizing_load=0.935),
                R("deletes", "vqf", 0.003, 20.5, 0.0025, 8, 0.52, sizing_load=0.935, full=1,
                  inserted=999000)]
        # the 8-, 11-, 13- and 16-bit rows are far from the 12-bit one's ratio: a scaled answer would show
        crow = [self.cuckoo_row(8, 0.125, 0.01), self.cuckoo_row(8, 0.94, 0.029),
                self.cuckoo_row(11, 0.125, 0.0004), self.cuckoo_row(11, 0.94, 0.0034),
                self.cuckoo_row(12, 0.125, 0.00024), self.cuckoo_row(12, 0.94, 0.00185),
                self.cuckoo_row(13, 0.125, 0.00006), self.cuckoo_row(13, 0.94, 0.00081),
                self.cuckoo_row(16, 0.125, 0.00005), self.cuckoo_row(16, 0.94, 0.000118)]
        d = tempfile.mkdtemp()
        self.addCleanup(lambda: __import__("shutil").rmtree(d))
        os.makedirs(os.path.join(d, "data"))
        with open(os.path.join(d, "data", "t5_cuckoo.json"), "w") as f:
            json.dump({"queries": 10000000, "rows": crow}, f)
        ctx = context()
        ctx.out = d
        t5_space.build(ctx, {"n": 1000000, "queries": 1000000, "rows": rows})
        return ctx

    def test_facts_from_the_12_bit_filter(self):
        ctx = self.build()
        self.assertEqual(ctx.facts["t5.cuckoo_seed_example"], 0.00024)
        self.assertEqual(ctx.facts["t5.cuckoo_seed_example.queries"], 10000000)
        self.assertAlmostEqual(ctx.facts["t5.cuckoo_full_ratio"], 0.00185 / (8.0 / 4096))
        self.assertAlmostEqual(ctx.facts["t5.cuckoo_full_ratio.f8"], 0.029 / (8.0 / 256))
        # the library's pivot is the library's rows only; the deletes rows have their own facts
        self.assertAlmostEqual(ctx.facts["t5.cuckoo_full_ratio.f13"], 0.00081 / (8.0 / 8192))
        self.assertAlmostEqual(ctx.facts["t5.cuckoo_full_ratio.f11"], 0.0034 / (8.0 / 2048))
        self.assertEqual(ctx.facts["t5.cuckoo.0.001.bpk"], 12.77)
        self.assertEqual(ctx.facts["t5.cuckoo.0.001.width"], 13)
        self.assertEqual(ctx.facts["t5.cuckoo13.full.bpk"], 12.77)
        self.assertEqual(ctx.facts["t5.cuckoo11.full.bpk"], 10.64)
        self.assertEqual(ctx.facts["t5.cuckoo11.full.load"], 0.94)
        self.assertEqual(ctx.facts["t5.cuckoo.0.005.width"], 11)
        self.assertEqual(ctx.facts["t5.cuckoo12.0.001.bpk"], 23.4)
        self.assertEqual(ctx.facts["t5.cuckoo12.full.bpk"], 12.77)
        self.assertNotIn("t5.cuckoo8.0.001.bpk", ctx.facts)
        self.assertNotIn("t5.cuckoo11.0.001.bpk", ctx.facts)
        dl = {p["target"]: p for p in ctx.tables["t5"]["deletes"]}
        self.assertEqual(set(dl[0.001]) - {"target", "bound"},
                         {"cuckoo8", "cuckoo11", "cuckoo12", "cuckoo13", "cuckoo16", "vqf", "counting",
                          "counting512"})
        self.assertIn("error", dl[0.001]["cuckoo8"])
        self.assertIn("error", dl[0.001]["cuckoo11"])
        self.assertAlmostEqual(dl[0.001]["counting"]["bound_measured"], math.log2(1 / 0.00105))
        self.assertEqual(ctx.tables["t5"]["wins"], [0.005, 0.002, 0.001])
        # classic takes 10.64 bits per key at 2^(-10.64 ln 2) = 0.602%: the loosest FPR at which
        # a width (11 bits, its 0.34% under it) beats it; 12 and 13 bits' window ends at 0.216%,
        # 16 bits' lower still
        self.assertAlmostEqual(ctx.facts["t5.crossover.widths"], 2 ** (-math.log(2) * 10.64))
        self.assertEqual(ctx.facts["t5.crossover.widths.width"], 11)
        self.assertAlmostEqual(ctx.facts["t5.cuckoo12.full.classic_edge"], 2 ** (-math.log(2) * 12.77))
        self.assertAlmostEqual(ctx.facts["t5.cuckoo16.full.classic_edge"], 2 ** (-math.log(2) * 17.02))
        # the vqf: its own column, its fullest row as its line's cheapest point, never a cuckoo width
        self.assertIn("error", dl[0.001]["vqf"])
        self.assertEqual(set(dl[0.005]) - {"target", "bound"}, {"cuckoo11", "vqf"})
        self.assertEqual(ctx.facts["t5.vqf.0.005.bpk"], 11.41)
        self.assertEqual(ctx.facts["t5.vqf.0.003.load"], 0.52)
        self.assertEqual(ctx.facts["t5.vqf.full.load"], 0.935)
        self.assertEqual(ctx.facts["t5.vqf.full.bpk"], 11.41)
        self.assertEqual(ctx.tables["t5"]["vqf_sizing_load"], 0.935)
        self.assertIsNone(dl[0.005]["vqf"]["refused_at"])
        self.assertEqual(dl[0.003]["vqf"]["refused_at"], 999000)

    def test_deletes_report_has_the_vqf(self):
        """The report's deletes table, its CSV and its figure's series show the vqf column: a
        measured cell with its load, "below 0.5" where it cannot reach the target, and a filter
        that filled up says after how many keys."""
        from tables import t5_space

        class Page:
            def __init__(self):
                self.text, self.tables = [], []

            def w(self, s=""):
                self.text.append(s)

            def table(self, head, rows, align=None):
                self.tables.append((head, rows))

        ctx = self.build()
        t5 = ctx.tables["t5"]
        page = Page()
        t5_space.report(page, t5)
        head, rows = next((h, r) for h, r in page.tables if "counting512" in h)
        self.assertEqual(head[2:], ["cuckoo 8-bit", "cuckoo 11-bit (semi-sorted)", "cuckoo 12-bit",
                                    "cuckoo 13-bit (semi-sorted)", "cuckoo 16-bit", "vqf (8-bit)", "counting",
                                    "counting512"])
        col = head.index("vqf (8-bit)")
        cells = {float(r[0]): r[col] for r in rows}
        self.assertEqual(cells[0.001], "below 0.5")
        self.assertEqual(cells[0.002], "below 0.5")
        self.assertTrue(cells[0.005].startswith("11.41 (0.00450; "), cells[0.005])
        self.assertIn("load 0.935", cells[0.005])
        self.assertNotIn("full after", cells[0.005])
        self.assertIn("full after 999,000 keys", cells[0.003])
        self.assertIn("sizing load 0.935", " ".join(page.text))
        rows, cols = dict((name, fn) for name, fn in t5_space.CSVS)["t5_deletes.csv"](t5)
        vq = [r for r in rows if r["filter"] == "vqf"]
        self.assertEqual(sorted(r["target"] for r in vq), [0.001, 0.002, 0.003, 0.005, 0.01])
        self.assertIn("refused_at", cols)
        self.assertIn("vqf", t5_space.DELETES_STYLE)
        # the widths the crossover explanation lists are cuckoo's only
        self.assertNotIn("vqf", t5_space._widths_at_full_load(ctx))
        self.assertEqual(t5_space._widths_at_full_load(ctx).count("bits/key"), 4)
        self.assertIn("cuckoo11", t5_space.DELETES_STYLE)

    def test_claims_say_which_width(self):
        ctx = self.build()
        by_id = {c.id: c for c in claims.registry()}
        for cid in ("t5.cuckoo_formula", "t5.cuckoo_bound", "t5.summary_cuckoo"):
            c = by_id[cid]
            v, reason, _, _ = verdicts.judge(ctx, c, ctx.facts[c.measure])
            self.assertIn(v, verdicts.VERDICTS)
            self.assertIn("12-bit", reason, cid)
        # the seed's 20 false positives in 10,000 against 0.024% measured on 10M queries
        c = by_id["t5.cuckoo_formula"]
        self.assertEqual(verdicts.judge(ctx, c, ctx.facts[c.measure])[0], "does not hold")
        # 12.77 bits/key at 0.1% (13-bit fingerprints, semi-sorted, load 0.94) is 12.8 read to one
        # digit past the seed's "~12": outside 12 +/- 0.5. filterlab has semi-sorted buckets now,
        # so the claim is judged on its own filter, not on the published model
        c = by_id["t5.summary_cuckoo"]
        self.assertIsNone(c.general)
        v, reason, _, _ = verdicts.judge(ctx, c, ctx.facts[c.measure])
        self.assertEqual(v, "does not hold")
        self.assertIn("13-bit fingerprints, stored semi-sorted in 12 bits a slot", reason)
        self.assertIn("8- and 11-bit ones cannot reach 0.1%", reason)
        self.assertNotIn("filterlab lacks", reason)
        # the bound: the other widths' ratios beside the 12-bit one, the semi-sorted ones named
        c = by_id["t5.cuckoo_bound"]
        reason = verdicts.judge(ctx, c, ctx.facts[c.measure])[1]
        self.assertIn("f = 11 (semi-sorted): 0.87", reason)
        self.assertIn("f = 13 (semi-sorted)", reason)
        # the crossover: 0.5% measured against the seed's 3%; the semi-sorted model's 2.55% holds,
        # so filterlab lacks the widths (it has 8, 11, 12, 13 and 16)
        c = by_id["t5.crossover"]
        v, reason, _, _ = verdicts.judge(ctx, c, ctx.facts[c.measure])
        self.assertEqual(v, "filterlab lacks")
        self.assertIn("targets 0.00500, 0.00200, 0.00100, the loosest 0.00500", reason)
        self.assertIn("8, 11, 12, 13 and 16 bits", reason)
        self.assertIn("semi-sorted buckets at widths other than 11 and 13", reason)
        self.assertIn("no width of filterlab's beats it above 0.602% (11 bits", reason)

    def test_t2_memory_judged_on_the_11_bit_filter(self):
        """Seed 000's "1M elements, 1%: 1.1 MB" (8.8 bits per key) against the cuckoo filter
        fl_params_for sizes for 1% (11-bit fingerprints at load 0.94: 265,958 buckets of 5 bytes,
        10.64 bits per key): 1.33 MB does not hold, the semi-sorted model's 1.13 MB does, so
        filterlab lacks the narrower widths."""
        from tables import t2_crawler

        def row(name, payload, exact=False):
            return {"structure": name, "exact": exact, "heap_bytes": payload, "payload_bytes": payload,
                    "miss_ns": 50.0, "hit_ns": 60.0, "fpr": 0.004, "lookups": 1000000}
        ctx = context()
        t2_crawler.build(ctx, {"n": 1000000, "mean_key_bytes": 50.0, "lookups": 1000000, "reps": 1,
                               "rows": [row("classic", 1250000), row("cuckoo8", 1063832),
                                        row("cuckoo1pct", 1329790), row("cuckoo16", 2127664)]})
        c = {c.id: c for c in claims.registry()}["t2.cuckoo.memory"]
        v, reason, _, _ = verdicts.judge(ctx, c, ctx.facts[c.measure])
        self.assertEqual(v, "filterlab lacks")
        self.assertIn("the cuckoo filter the library sizes for 1%: 1.33 MB", reason)
        self.assertIn("filterlab lacks fingerprint widths of 9 and 10 bits", reason)


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
                self.assertTrue(c["tolerance"], (d, c["id"]))


if __name__ == "__main__":
    unittest.main(verbosity=2)
