"""The verdict engine: one seed claim and the value measured here -> holds, does not hold,
different machine (or not measured), with a one-line reason.

The rules per kind are those seed_claims.json's "kinds" describe. A claim's explanation
(its table module's, through the registry in claims.py) writes the reason; it may also
decide the verdict by returning (verdict, reason), which is how the cache-bound ratios
become "different machine" where this machine's caches explain the difference. An
explanation that returns None leaves the engine's own reason: the two numbers, the
relative difference and the tolerance."""

from fmt import show
from models import binom_consistent

VERDICTS = ("holds", "does not hold", "different machine", "not measured")


def numbers_only(ctx, c, m, holds):
    """The explanation of a claim whose reason is the comparison itself."""
    return None


def judge(ctx, c, m):
    """(verdict, reason) for claim c (a claims.Claim) measured as m here."""
    v, tol, kind = c.value, c.tolerance, c.kind
    if m is None:
        return "not measured", "the run produced no value for %s" % c.measure
    rel = (m - v) / v if v else float("inf")
    within = abs(rel) <= tol + 1e-12
    consistent = False
    if kind == "fpr" and c.tests and not within:
        consistent = binom_consistent(v, m, c.tests)
    holds = within or consistent
    reason = c.explain(ctx, c, m, holds)
    if holds:
        verdict = "holds"
    elif kind == "machine":
        verdict = "different machine"
    else:
        verdict = "does not hold"
    if isinstance(reason, tuple):
        verdict, reason = reason
    if not reason:
        reason = "%s here vs %s in the seed (%+.0f%%, tolerance %.0f%%)" % (
            show(m, c.unit), show(v, c.unit), 100 * rel, 100 * tol)
        if consistent:
            reason += "; the seed's count is within its own sampling error at %d tests" % c.tests
    return verdict, reason
