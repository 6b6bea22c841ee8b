"""The published formulas the tables evaluate and the explanations quote, each with its
source: the seed's own Bloom sizing, Fan et al.'s cuckoo space model (the binomial test of a seed's
false-positive count is verdicts.binomial_test)."""

import math

LN2 = math.log(2)


def seed_sizing(n, p):
    """The seeds' classic sizing (003, 9.3): m = ceil(-n ln p / (ln 2)^2) bits and
    k = ceil((m/n) ln 2) (the seed's code rounds k up with math.ceil). Returns (m, k)."""
    m = math.ceil(-n * math.log(p) / LN2 ** 2)
    return m, math.ceil(m / n * LN2)


def ideal_cuckoo_bpk(eps, extra_bits=3.0, load=0.955):
    """Fan et al. 2014, section 5.2: (log2(1/eps) + 3) / alpha bits per key with b = 4
    and any fingerprint width (+2 with semi-sorted buckets), alpha = 95.5%."""
    return (math.log2(1 / eps) + extra_bits) / load


def cuckoo_crossover(extra):
    """eps where (log2(1/eps) + extra)/0.955 = log2(1/eps)/ln 2 (bisection on log2(1/eps))."""
    f = lambda L: (L + extra) / 0.955 - L / LN2  # noqa: E731
    lo, hi = 0.1, 60.0
    if f(lo) * f(hi) > 0:
        return None
    for _ in range(100):
        mid = (lo + hi) / 2
        if f(lo) * f(mid) <= 0:
            hi = mid
        else:
            lo = mid
    return 2 ** -lo


# ---- counting Bloom, HyperLogLog -------------------------------------------------------
def fan_overflow_bound(m, n, k, i=16):
    """Fan, Cao, Almeida, Broder, "Summary Cache" (IEEE/ACM ToN 8(3), 2000), section V.C:
    P(some counter of m reaches i when n keys set k counters each) <= m (e n k / (i m))^i,
    capped at 1 (i = 16 overflows a 4-bit counter; i = 2^b for b bits)."""
    if n <= 0:
        return 0.0
    lb = math.log(m) + i * (1 + math.log(n * k / (i * m)))
    return 1.0 if lb >= 0 else math.exp(lb)


def counters_at_least(m, n, k, c=15):
    """Expected counters (of m) that receive c or more of the n k increments, each landing
    on a uniform counter: m P[Binomial(n k, 1/m) >= c] (the classic layout's load)."""
    trials, p = int(round(n * k)), 1.0 / m
    below, term = 0.0, (1 - p) ** trials  # P[X = 0]
    for j in range(c):
        below += term
        term *= (trials - j) / (j + 1) * p / (1 - p)
    return m * max(0.0, 1.0 - below)


def hll_alpha(m):
    """alpha_m = (m * integral_0^inf (log2((2 + u) / (1 + u)))^m du)^-1 (Flajolet, Fusy,
    Gandouet, Meunier 2007, Theorem 1), by the trapezoid rule on the substitution
    u = t / m, where the integrand is exp(m ln log2((2 + t/m) / (1 + t/m)))."""
    def f(t):
        u = t / m
        return math.exp(m * math.log(math.log2((2 + u) / (1 + u))))
    h, upper = 1e-3, 60.0  # f(t) ~ exp(-t / (2 ln 2)): below 1e-18 past t = 60
    steps = int(upper / h)
    s = 0.5 * (f(0) + f(upper)) + sum(f(j * h) for j in range(1, steps))
    return 1.0 / (s * h)  # m * integral du = integral dt
