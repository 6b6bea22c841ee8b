"""The verdict engine: one seed claim and the value measured here -> a verdict and a one-line
reason, by rules stated here (RULES, printed in the report's preamble) and nowhere else.

Verdicts:
  holds              the measured value passes the claim's test
  does not hold      it fails it
  restated           the claim restates a setting (filterlab's, RedisBloom's) or the seed's own
                     arithmetic: the comparison is shown but cannot fail, so it is not counted
                     among the holds
  filterlab lacks    the claim fails as measured here, but passes the same test on the published
                     model of the structure (the claim holds in general); the claim says what
                     filterlab is missing
  not comparable     a machine-bound figure this machine cannot be compared with after
                     normalisation (the structure lives in another memory level here, or the seed
                     gives nothing to normalise by)
  not measured       the run produced no value

Tests (every tolerance is derived, and printed beside the claim):
  fpr with the seed's number of tests: a two-sided exact binomial test at 99%, never a band.
      When the run also counted its queries, the conditional test of two Poisson counts (the
      seed's false positives, given both counts' sum, are Binomial(sum, n1 / (n1 + n2)) when
      both rates are equal); otherwise the measured rate is taken as the true one.
  at_most / at_least: a bound the seed states (delta, "below m/3", "never past"): the measured
      value, less (more) z standard errors when the run measured its variation, must not cross it.
  everything else: |measured - seed| <= half a unit in the last digit the seed prints (its
      `printed` string) + z x the measured standard error (fact `<measure>.se`), z = 2.576 (99%);
      the measured value is read to one digit past the printed ones (printed_round), so noise
      far below the seed's precision cannot decide at the interval's edge.
  machine (a time or cycle count of the seed's hardware): normalised by what this machine
      measured before anything is said. The seed's stated misses per lookup, each a memory
      access on its machine, are priced at this machine's DRAM latency (the memory probe's
      latency at the structure's footprint) and, for cycles, at its TSC clock; the figure is
      judged against that, and only when the structure measured here is DRAM-resident too.
      Otherwise it is "not comparable", with the normalised figure and the reason.
  ratio claims with `dram_measure` (speedups the seed explains by memory accesses) are judged on
      the seed's terms (its kernel: scalar) at the DRAM point when the seed's size fits in this
      machine's caches.

Explanations (the table modules' EXPLAIN) write the reason; they decide no verdict, except
"not measured" when the data they need is missing."""

import math
import re

from fmt import g, human_bytes, show

VERDICTS = ("holds", "does not hold", "restated", "filterlab lacks", "not comparable", "not measured")
COUNTED = ("holds", "does not hold")  # the verdicts of claims that could go either way
Z99 = 2.5758293035489  # two-sided 99% normal quantile
ALPHA = 0.01           # the binomial test's level (two-sided)

RULES = [
    "A false positive rate the seed measured on a stated number of tests is judged by an exact two-sided "
    "binomial test at 99% (the conditional test of two counts when this run counted its queries), never by a band.",
    "Any other number holds when, read to one digit past the seed's last printed one, it is within half a unit "
    "of that last digit, plus 2.58 measured standard errors where this run measured its variation; a bound the seed states (at most, at "
    "least) must not be crossed by more than that. The tolerance is printed beside every claim.",
    "A claim that restates a setting or the seed's own arithmetic is **restated**: shown, not counted as a hold.",
    "**filterlab lacks**: the claim fails as measured here but passes the same test on the published model of "
    "the structure, so it holds in general; the reason names what filterlab is missing.",
    "A time or cycle count of the seed's hardware is normalised first: its stated misses per lookup are priced "
    "at this machine's measured DRAM latency (and TSC clock for cycles), and judged only where the structure is "
    "DRAM-resident here too; otherwise it is **not comparable**, with the normalised figure.",
    "A speedup is judged on the seed's own terms (scalar kernel against scalar kernel, at a size that is "
    "DRAM-resident here when the seed's argument is memory accesses); the best kernel against the best is "
    "shown beside it.",
]


def numbers_only(ctx, c, m, holds):
    """The explanation of a claim whose reason is the comparison itself."""
    return None


# ---- the binomial tests ------------------------------------------------------------------
def _log_pmf(k, n, p):
    if p <= 0.0:
        return 0.0 if k == 0 else -math.inf
    if p >= 1.0:
        return 0.0 if k == n else -math.inf
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
            + k * math.log(p) + (n - k) * math.log1p(-p))


def binom_tails(k, n, p):
    """(P[X <= k], P[X >= k]) for X ~ Binomial(n, p), summed in log space outward from k until
    the terms no longer matter (exact to double precision; no scipy needed)."""
    def tail(direction):
        lp0 = _log_pmf(k, n, p)
        if lp0 == -math.inf:
            # the mass is entirely on the other side of k, or k is unreachable
            mode = min(n, max(0, int((n + 1) * p)))
            if (direction < 0 and mode < k) or (direction > 0 and mode > k):
                return 1.0
            return 0.0
        total, j = 0.0, k
        while 0 <= j <= n:
            lp = _log_pmf(j, n, p)
            t = math.exp(lp - lp0)
            total += t
            if t < 1e-17 * total and abs(j - k) > 2:
                mean = n * p
                if (direction > 0 and j > mean) or (direction < 0 and j < mean):
                    break
            j += direction
        return min(1.0, math.exp(lp0) * total)
    return tail(-1), tail(+1)


def binomial_test(seed_rate, tests, measured_rate, queries=None):
    """Two-sided p-value (twice the smaller tail) of the seed's count of false positives,
    round(seed_rate * tests), under the hypothesis that its rate equals the one measured here.
    With `queries` (this run's count of queries), the conditional test of two counts: given
    K = k1 + k2 false positives in all, k1 ~ Binomial(K, tests / (tests + queries))."""
    k1 = int(round(seed_rate * tests))
    if queries:
        k2 = int(round(measured_rate * queries))
        n, p, k = k1 + k2, tests / float(tests + queries), k1
    else:
        n, p, k = tests, measured_rate, k1
    lo, hi = binom_tails(k, n, p)
    return min(1.0, 2 * min(lo, hi))


def binomial_interval(measured_rate, tests, queries=None):
    """The seed rates (counts / tests) the test accepts at 99%: what is printed as its tolerance."""
    if measured_rate is None:
        return None
    mean = measured_rate * tests
    sd = math.sqrt(max(mean * (1 - measured_rate), 1e-12) * (1 + (tests / float(queries) if queries else 0)))
    lo_k, hi_k = max(0, int(mean - 8 * sd) - 2), min(tests, int(mean + 8 * sd) + 2)
    mid = min(max(int(round(mean)), lo_k), hi_k)

    def accepted(k):
        return binomial_test(k / float(tests), tests, measured_rate, queries) > ALPHA
    if not accepted(mid):
        return None
    # the p-value falls monotonically away from the mean on either side: bisect each edge
    a, b = lo_k, mid  # first accepted count in [a, b]
    while a < b:
        c = (a + b) // 2
        a, b = (a, c) if accepted(c) else (c + 1, b)
    first = a
    a, b = mid, hi_k  # last accepted count in [a, b]
    while a < b:
        c = (a + b + 1) // 2
        a, b = (c, b) if accepted(c) else (a, c - 1)
    return first / float(tests), a / float(tests)


# ---- tolerance from the printed precision ----------------------------------------------------
def printed_half_unit(printed, value):
    """Half a unit in the last digit of `printed` (the number as the seed prints it: "0.8%",
    "5.3x", "11.44", "1.1 MB"), converted to the unit of `value` (the claim's number): the
    printed number and value differ only by a scale (percent, M, MB), so the relative half-unit
    carries over. None when `printed` holds no number."""
    mt = re.search(r"(\d[\d,]*)(?:\.(\d+))?", printed or "")
    if not mt:
        return None
    decimals = len(mt.group(2) or "")
    num = float(mt.group(1).replace(",", "") + ("." + mt.group(2) if mt.group(2) else ""))
    half = 0.5 * 10 ** -decimals
    if num == 0:
        return half * (abs(value) if value else 1.0)
    return abs(value) * half / num


def tolerance(c, se):
    """(absolute tolerance, its description) for a non-FPR, non-machine claim."""
    half = None if c.formula else printed_half_unit(c.printed, c.value)
    parts, tol = [], 0.0
    if half is not None and c.compare == "within":
        tol += half
        parts.append("%s (half a unit of the seed's \"%s\")" % (show(half, c.unit), c.printed))
    if se:
        tol += Z99 * se
        parts.append("2.58 x %s (measured standard error)" % show(se, c.unit))
    return tol, " + ".join(parts) if parts else "none (exact)"


def passes(c, m, se):
    """Whether m passes claim c's test (within / at_most / at_least), and the tolerance text."""
    tol, desc = tolerance(c, se)
    if c.compare == "at_most":
        return m - (Z99 * se if se else 0.0) <= c.value + 1e-12 * max(1.0, abs(c.value)), \
            "at most %s%s" % (show(c.value, c.unit), (", less " + desc) if se else "")
    if c.compare == "at_least":
        return m + (Z99 * se if se else 0.0) >= c.value - 1e-12 * max(1.0, abs(c.value)), \
            "at least %s%s" % (show(c.value, c.unit), (", plus " + desc) if se else "")
    return abs(printed_round(c, m) - c.value) <= tol + 1e-12 * max(1.0, abs(c.value)), "+/- " + desc


def printed_round(c, m):
    """m rounded to one digit past the seed's last printed one (what the report shows of it): a
    measured 1.250048 MB against a printed "1.2" is compared as 1.25, at the edge of the
    printed interval, not 48 bytes past it."""
    if c.formula:
        return m
    mt = re.search(r"(\d[\d,]*)(?:\.(\d+))?", c.printed or "")
    if not mt or not c.value:
        return m
    num = float(mt.group(1).replace(",", "") + ("." + mt.group(2) if mt.group(2) else ""))
    if not num:
        return m
    scale = c.value / num
    return round(m / scale, len(mt.group(2) or "") + 1) * scale


# ---- machine figures ---------------------------------------------------------------------
def dram_latency(ctx, nbytes):
    """This machine's DRAM latency per dependent load (ns) for a structure of nbytes, from the
    memory probe that found the DRAM point (run.json t8_dram_point: latency_ns per footprint,
    bytes = where DRAM-like latency starts): the first probed footprint at or past both nbytes
    and the DRAM point, else the largest probed."""
    dp = ctx.run.get("t8_dram_point") or {}
    lat = dp.get("latency_ns") or {}
    pts = sorted((int(k), v) for k, v in lat.items() if v)
    if not pts:
        return None, None
    want = max(nbytes or 0, dp.get("bytes") or 0)
    for b, v in pts:
        if b >= want:
            return v, b
    return pts[-1][1], pts[-1][0]


def tsc_hz(ctx):
    return (ctx.table("t1") or {}).get("tsc_hz")


def judge_machine(ctx, c, m):
    """(verdict, reason, tolerance text) for a figure of the seed's hardware."""
    nb = ctx.facts.get(c.bytes) if c.bytes else None
    misses = c.misses
    per = c.per_lookups or 1
    where = ctx.size_class(nb) if nb else None
    if misses is None:
        lat, at = dram_latency(ctx, nb)
        why = "the seed states no miss count to price at this machine's latency"
        if lat:
            why += " (one DRAM access here: %s ns at a %s footprint)" % (g(lat), human_bytes(at))
        return "not comparable", why, "n/a"
    lat, at = dram_latency(ctx, nb)
    if lat is None:
        return "not comparable", "this run has no memory-latency probe to normalise by", "n/a"
    pred_ns = misses * lat
    if c.unit.startswith("cycles"):
        hz = tsc_hz(ctx)
        if not hz:
            return "not comparable", "no clock measured here to convert cycles", "n/a"
        pred = pred_ns * 1e-9 * hz * per
        norm = "%s x %s ns (this machine's DRAM latency at %s) x %s GHz (TSC) = %s" % (
            g(misses), g(lat), human_bytes(at), g(hz / 1e9), show(pred, c.unit))
    else:
        scale = per / 1e6 if c.unit.startswith("ms") else per
        pred = pred_ns * scale
        norm = "%s x %s ns (this machine's DRAM latency at %s) = %s" % (
            g(misses), g(lat), human_bytes(at), show(pred, c.unit))
    seed_implied = c.value / (misses * (per / 1e6 if c.unit.startswith("ms") else per)) \
        if not c.unit.startswith("cycles") else None
    implied = (" (the seed's figure implies %s ns per access on its machine)" % g(seed_implied)) \
        if seed_implied else ""
    if where != "DRAM":
        return "not comparable", ("normalised, the seed's %s misses per lookup cost %s here%s; but the %s "
                                  "structure is served by the %s here, not by DRAM" % (
                                      g(misses), norm, implied, human_bytes(nb) if nb else "?", where or "cache")), \
            "n/a (%s-resident here)" % (where or "?")
    half = (None if c.formula else printed_half_unit(c.printed, c.value)) or 0.0
    tol = pred * (half / c.value if c.value else 0.0)
    ok = abs(m - pred) <= tol + 0.1 * pred  # the memory probe's own run-to-run spread is ~10%
    return ("holds" if ok else "does not hold"), (
        "normalised: %s%s; measured %s (%+.0f%%)" % (norm, implied, show(m, c.unit), 100 * (m - pred) / pred)), \
        "+/- %s (printed precision, scaled) + 10%% (latency probe spread)" % show(tol, c.unit)


# ---- the engine --------------------------------------------------------------------------
def judge(ctx, c, m):
    """(verdict, reason, tolerance text, the value judged) for claim c (a claims.Claim)
    measured as m here. The value judged is m, except for a ratio judged at the DRAM point."""
    v, reason, tol, judged = _judge(ctx, c, m)
    return v, reason, tol, judged


def _judge(ctx, c, m):
    if m is None:
        return "not measured", "the run produced no value for %s" % c.measure, "n/a", None
    note = []
    if c.kind == "machine":
        verdict, reason, tol = judge_machine(ctx, c, m)
        expl = c.explain(ctx, c, m, verdict == "holds")
        if isinstance(expl, tuple):
            if expl[0] == "not measured":
                return expl[0], expl[1], "n/a", m
            expl = expl[1]
        return verdict, "; ".join(x for x in (reason, expl, c.differs) if x), tol, m
    if c.dram_measure:
        nb = ctx.facts.get(c.bytes) if c.bytes else None
        if nb and ctx.size_class(nb) != "DRAM":
            alt = ctx.facts.get(c.dram_measure)
            if alt is None:
                expl = c.explain(ctx, c, m, False)
                expl = expl[1] if isinstance(expl, tuple) else expl
                return "not comparable", "; ".join(x for x in (
                    "the %s structure is %s-resident here, the seed's was not, and the run measured no "
                    "DRAM-resident point to judge instead" % (human_bytes(nb), ctx.size_class(nb)),
                    expl, c.differs) if x), "n/a", m
            note.append("at the seed's size (%s, %s-resident here) %sx; judged at the DRAM point" % (
                human_bytes(nb), ctx.size_class(nb), g(m)))
            m = alt
    se = ctx.facts.get(c.measure + ".se")
    if c.kind == "fpr" and c.tests:
        queries = ctx.facts.get(c.measure + ".queries")
        pval = binomial_test(c.value, c.tests, m, queries)
        ok = pval > ALPHA
        iv = binomial_interval(m, c.tests, queries)
        tol = "binomial, 99%%, at the seed's %s tests%s: seed rates %s accepted" % (
            "{:,}".format(c.tests), " and %s here" % "{:,}".format(int(queries)) if queries else "",
            ("%s to %s" % (g(iv[0]), g(iv[1]))) if iv else "none")
        note.append("the seed's %d false positives of %s against %s here: two-sided p = %s" % (
            round(c.value * c.tests), "{:,}".format(c.tests), g(m), "%.2g" % pval))
    else:
        ok, tol = passes(c, m, se)
    general_ok = None
    if not ok and c.general:
        gm = ctx.facts.get(c.general)
        if gm is not None:
            general_ok, _ = passes(c, gm, ctx.facts.get(c.general + ".se"))
            note.append("the published model gives %s" % show(gm, c.unit))
    if c.restates:
        verdict = "restated"
        note.insert(0, "restates %s" % c.restates)
    elif ok:
        verdict = "holds"
    elif general_ok:
        verdict = "filterlab lacks"
        note.append("filterlab lacks %s" % c.lacks)
    else:
        verdict = "does not hold"
    expl = c.explain(ctx, c, m, ok)
    if isinstance(expl, tuple):
        if expl[0] == "not measured":
            return expl[0], expl[1], "n/a", m
        expl = expl[1]
    if not expl:
        rel = (m - c.value) / c.value if c.value else float("inf")
        expl = "%s here vs %s in the seed (%+.1f%%)" % (show(m, c.unit), show(c.value, c.unit), 100 * rel)
    return verdict, "; ".join(x for x in [expl] + note + [c.differs] if x), tol, m
