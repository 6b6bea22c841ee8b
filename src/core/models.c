/*
 * The false-positive models and the sizing searches the variant descriptors name
 * (fl_model_*, fl_size_*); the public calls that reach them through a descriptor are in
 * params.c.
 *
 * classic   (1 - (1 - 1/m)^(kn))^k, the textbook model (Bloom 1970; Broder and Mitzenmacher,
 *           "Network Applications of Bloom Filters", 2004), sized with m = -n ln p / (ln 2)^2
 *           and k = round((m/n) ln 2) exactly as textbooks do, so its prediction can exceed
 *           the target by a hair when rounding k costs a little; above p = 1/sqrt(2), where
 *           that k would be below 1, m is the smallest meeting p with k = 1.
 * blocked   Putze, Sanders, Singler, "Cache-, Hash- and Space-Efficient Bloom Filters"
 *           (WEA 2007): a block receives a Poisson(n/blocks) number of keys, and a lookup
 *           is a false positive of the block it lands in, so
 *               FPR = sum_i Poisson(i; n/blocks) * f_inner(i).
 *           block512/reg64 (B = 512/64 bits, k positions with replacement): the closed form
 *           (1 - (1 - 1/B)^(ik))^k treats bits as independent, which underestimates a block
 *           as small as 64 bits by over 10% (measured). We use the exact value
 *               f_inner(i) = E[(T/B)^k],  T = distinct bits set by i*k uniform throws,
 *           with T's distribution from the occupancy recurrence (Christensen, Roginsky,
 *           Jimeno, "A new analysis of the false positive rate of a Bloom filter", IPL 2010).
 *           split256 (one bit in each of 8 words of 32 bits, words independent):
 *               f_inner(i) = (1 - (1 - 1/32)^i)^8, exact.
 *           The uneven block loads are why a blocked filter needs more bits per key than
 *           classic for the same FPR; sizing searches unit count and k on this model.
 * counting  (counting, counting512) the classic and blocked models above with 4-bit counters
 *           as the cells: a counter is nonzero exactly when a Bloom filter's bit would be set
 *           (Fan, Cao, Almeida, Broder 2000), so m = 16 counters per 64-bit word and B = 128
 *           counters per 64-byte line (the descriptor's block_bits); sizing is the same search.
 * cuckoo    a lookup compares its fingerprint with the occupied slots of two 4-slot buckets,
 *           8 alpha of them on average at load alpha; with fingerprints uniform on
 *           [1, 2^f - 1]: FPR = 1 - (1 - 1/(2^f - 1))^(8 alpha) ~ 2b alpha / 2^f (Fan et al.
 *           2014, section 5.1; 11- and 13-bit semi-sorted buckets hold the same fingerprints).
 *           Sizing picks f in {8, 11, 12, 13, 16} and a load in [0.5, 0.94] giving the fewest
 *           bytes (buckets of 4, 5, 6, 6 and 8 bytes).
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "probe.h"

#define CUCKOO_MIN_LOAD 0.5

/* (1 - (1 - 1/B)^(i k))^k: the closed form, a lower bound used to skip saturated sums. */
static double inner_closed(double B, double k, double i) {
    return pow(-expm1(i * k * log1p(-1.0 / B)), k);
}

/* f_inner(i) for i = 0, 1, 2, ... of one (variant, k), extended on demand. For block512 and
 * reg64 it runs the occupancy recurrence ball by ball: after one more uniform throw into B
 * bits, P(T = t) = P(T = t) t/B + P(T = t-1) (B - t + 1)/B. */
typedef struct {
    uint32_t k;
    int B;           /* bits per block; 0 for a split block (closed form is exact) */
    int words;       /* split block: independent words, one bit each per key ... */
    double word_bits; /* ... of this many bits each */
    double *dist;    /* P(T = t), t = 0..B, after balls throws */
    double *pw;      /* (t/B)^k */
    double *F;       /* f_inner(0..nF-1) */
    int tlo, thi;    /* dist[t] is zero outside [tlo, thi] */
    size_t nF, cap;
    int failed;      /* an allocation failed: the model answers NaN (never a guess) */
} inner_model;

static void model_init(inner_model *m, const fl_variant_desc *d, uint32_t k) {
    memset(m, 0, sizeof *m);
    m->k = k;
    if (d->block_words) {
        m->words = (int)d->block_words;
        m->word_bits = (double)d->block_bits / d->block_words;
        return;
    }
    m->B = (int)d->block_bits;
    m->dist = calloc((size_t)m->B + 1, sizeof *m->dist);
    m->pw = calloc((size_t)m->B + 1, sizeof *m->pw);
    if (!m->dist || !m->pw) {
        m->failed = 1;
        return;
    }
    m->dist[0] = 1.0;
    for (int t = 0; t <= m->B; t++) m->pw[t] = pow((double)t / m->B, k);
}

static void model_free(inner_model *m) {
    free(m->dist);
    free(m->pw);
    free(m->F);
}

static double model_inner(inner_model *m, size_t i) {
    if (!m->B) return pow(-expm1((double)i * log1p(-1.0 / m->word_bits)), m->words);
    /* Without its tables the model has no exact answer, and the closed form would size
     * another filter than the exact model does: NaN reaches the caller, which reports the
     * allocation failure. */
    if (m->failed) return NAN;
    while (m->nF <= i) {
        if (m->nF == m->cap) {
            size_t cap = m->cap ? 2 * m->cap : 256;
            double *F = realloc(m->F, cap * sizeof *F);
            if (!F) {
                m->failed = 1;
                return NAN;
            }
            m->F = F;
            m->cap = cap;
        }
        if (m->nF > 0) { /* key nF adds k throws to the state of key nF - 1 */
            const double inv_b = 1.0 / m->B; /* one multiply per entry, not two divides */
            for (uint32_t b = 0; b < m->k; b++) {
                /* Only [tlo, thi] carries mass: the distribution is a narrow peak (width
                 * ~sqrt(B)), so a throw costs O(sqrt B), not O(B). Both tails are trimmed
                 * where the mass falls below 1e-300 (far below double precision of the
                 * sums it feeds); mass moves up by at most one bit per throw, so thi grows
                 * by one and the trimmed top is re-entered from below when it matters. */
                if (m->thi < m->B) m->thi++;
                for (int t = m->thi; t > m->tlo; t--)
                    m->dist[t] = (m->dist[t] * t + m->dist[t - 1] * (m->B - t + 1)) * inv_b;
                m->dist[m->tlo] *= m->tlo * inv_b;
                while (m->tlo < m->thi && m->dist[m->tlo] < 1e-300) m->dist[m->tlo++] = 0.0;
                while (m->thi > m->tlo && m->dist[m->thi] < 1e-300) m->dist[m->thi--] = 0.0;
            }
        }
        double f = 0.0;
        for (int t = m->tlo; t <= m->thi; t++) f += m->dist[t] * m->pw[t];
        m->F[m->nF++] = f;
    }
    return m->F[i];
}

/* Putze et al.: expectation of f_inner over a Poisson block load (NaN when the model's
 * tables could not be allocated). The sum runs over
 * lambda +- 12 sqrt(lambda) (+30 for small lambda), beyond which the Poisson mass is far below
 * double precision. */
static double blocked_fpr(inner_model *m, double lambda) {
    if (lambda <= 0) return 0.0;
    double sd = sqrt(lambda);
    double lo = floor(lambda - 12 * sd), hi = ceil(lambda + 12 * sd + 30);
    if (lo < 0) lo = 0;
    double B = m->B ? m->B : m->word_bits, k = m->B ? m->k : 1;
    if (pow(inner_closed(B, k, lo), m->B ? 1.0 : m->words) > 1.0 - 1e-12)
        return 1.0; /* saturated blocks: skip a long sum (the exact value is even higher) */
    double sum = 0.0, log_l = log(lambda);
    for (double i = lo; i <= hi; i++) {
        double logp = i * log_l - lambda - lgamma(i + 1);
        sum += exp(logp) * model_inner(m, (size_t)i);
    }
    if (m->failed) return NAN;
    return sum > 1.0 ? 1.0 : sum;
}

/* f_inner depends on (B, k) alone, and building it is the whole cost of a blocked FPR: the
 * recurrence costs about k * sqrt(B) per key of load, where the Poisson sum after it costs a
 * few dozen terms. Sizing calls the model dozens of times per (B, k) (a bisection over unit
 * counts, for every k), and callers size repeatedly (flbench's search for a bits-per-key
 * budget calls fl_params_for 25 times), so each (B, k) model is kept for the process and
 * extended on demand. Few pairs exist (block512, reg64 and counting512 block sizes, k up to
 * FL_K_MAX), so the table is small and fixed; a pair that finds it full gets a model of its
 * own for the call. The lock is held while a model is read or extended: sizing is rare and
 * short, so serializing it costs nothing worth a finer scheme. */
#define SHARED_MODELS 128
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static inner_model *shared_models[SHARED_MODELS];

/* The model of (d, k): the process's shared one (returned locked: release it with
 * model_release), or *own, initialized, for split blocks (nothing to keep) and a full table. */
static inner_model *model_acquire(const fl_variant_desc *d, uint32_t k, inner_model *own) {
    if (d->block_words) {
        model_init(own, d, k);
        return own;
    }
    pthread_mutex_lock(&shared_lock);
    for (int i = 0; i < SHARED_MODELS; i++) {
        inner_model *m = shared_models[i];
        if (m && m->B == (int)d->block_bits && m->k == k) {
            if (m->failed) { /* an earlier extension ran out of memory: start it again */
                model_free(m);
                model_init(m, d, k);
            }
            return m;
        }
        if (!m) {
            m = malloc(sizeof *m);
            if (m) model_init(m, d, k);
            if (m && !m->failed) {
                shared_models[i] = m;
                return m;
            }
            if (m) model_free(m);
            free(m);
            break;
        }
    }
    pthread_mutex_unlock(&shared_lock);
    model_init(own, d, k);
    return own;
}

static void model_release(inner_model *m, inner_model *own) {
    if (m == own)
        model_free(own);
    else
        pthread_mutex_unlock(&shared_lock);
}

/* blocked_fpr_once's answers, remembered per thread: a new filter's predicted FPR is asked
 * for by its sizing and again by its checks (a scalable chain's size_filter, fl_get_info),
 * and the same shapes come back filter after filter (a Redis key per user). Even on the kept
 * tables one prediction is a Poisson sum of a few hundred terms, each a lgamma and an exp,
 * against a few nanoseconds for a remembered one. NaN (no tables) is not remembered. */
#define FPR_MEMO 64
typedef struct {
    const fl_variant_desc *d;
    uint32_t k;
    double lambda, fpr;
} fpr_memo;
static _Thread_local fpr_memo fmemo[FPR_MEMO];
static _Thread_local unsigned fmemo_next;

static double blocked_fpr_once(const fl_variant_desc *d, uint32_t k, double lambda) {
    for (unsigned i = 0; i < FPR_MEMO; i++) {
        const fpr_memo *e = &fmemo[i];
        if (e->d == d && e->k == k && e->lambda == lambda) return e->fpr;
    }
    inner_model own;
    inner_model *m = model_acquire(d, k, &own);
    double r = blocked_fpr(m, lambda);
    model_release(m, &own);
    if (!isnan(r)) {
        fmemo[fmemo_next] = (fpr_memo){d, k, lambda, r};
        fmemo_next = (fmemo_next + 1) % FPR_MEMO;
    }
    return r;
}

static double cuckoo_fpr(uint32_t fp_bits, double load) {
    return -expm1(8.0 * load * log1p(-1.0 / ((double)(1u << fp_bits) - 1.0)));
}

/* ---- the models the descriptors of src/core/variants.c name --------------------------------- */

/* Cells per unit of the classic layout: bits of a bit array, or counters of an array of
 * counters (counting: 16 4-bit counters per 64-bit word). The models count cells; a counter
 * is "set" when nonzero, so a counting filter's FPR is a Bloom filter's with m = cells. */
static double cells_per_unit(const fl_variant_desc *d, uint32_t k) {
    double bits = 8.0 * (double)d->unit_bytes(k);
    return d->info.counter_bits ? bits / d->info.counter_bits : bits;
}

double fl_model_classic_fpr(const fl_variant_desc *d, const fl_geometry *g, double n) {
    double m = (double)g->units * cells_per_unit(d, g->k);
    return pow(-expm1(g->k * n * log1p(-1.0 / m)), g->k);
}

double fl_model_blocked_fpr(const fl_variant_desc *d, const fl_geometry *g, double n) {
    return blocked_fpr_once(d, g->k, n / (double)g->units);
}

double fl_model_cuckoo_fpr(const fl_variant_desc *d, const fl_geometry *g, double n) {
    (void)d;
    double load = n / ((double)g->units * FL_CUCKOO_SLOTS);
    return cuckoo_fpr(g->k, load > 1.0 ? 1.0 : load);
}

/* Distinct keys that explain a fill ratio, inverting the expected fill. Classic: Swamidass
 * and Baldi (2007), fill = 1 - (1 - 1/m)^(kn). Blocked variants under the Poisson model
 * above: a unit of load lambda = n/units has expected fill 1 - exp(-lambda (1 - (1 - 1/B)^k))
 * with B bits per block (block512, reg64), and for a split block, whose every word receives
 * one bit per key, B = the word's bits and k = 1. */
double fl_model_classic_keys(const fl_variant_desc *d, const fl_geometry *g, double fill) {
    if (fill >= 1.0) return INFINITY;
    return log1p(-fill) / ((double)g->k * log1p(-1.0 / ((double)g->units * cells_per_unit(d, g->k))));
}

double fl_model_blocked_keys(const fl_variant_desc *d, const fl_geometry *g, double fill) {
    if (fill >= 1.0) return INFINITY;
    double per_key = d->block_words
                         ? (double)d->block_words / d->block_bits
                         : -expm1((double)g->k * log1p(-1.0 / d->block_bits));
    return (double)g->units * -log1p(-fill) / per_key;
}

/* Smallest unit count whose blocked FPR at n keys is <= p in *units, or 0 if none below 2^32;
 * FL_ERR_NO_MEMORY when the model could not be built. The FPR falls monotonically as units
 * grow, so: double from half the classic size, then bisect with the invariant
 * fpr(lo) > p >= fpr(hi) (lo = 0 stands for "no units", an FPR of 1). */
static fl_status blocked_units(inner_model *m, double n, double p, double unit_bits,
                               uint64_t *units) {
    double guess = ceil(-n * log(p) / (M_LN2 * M_LN2) / unit_bits / 2);
    uint64_t lo = 0, hi = guess < 1 ? 1 : guess > (double)FL_UNITS_MAX ? FL_UNITS_MAX
                                                                        : (uint64_t)guess;
    double f;
    *units = 0;
    while ((f = blocked_fpr(m, n / (double)hi)) > p) {
        if (hi == FL_UNITS_MAX) return FL_OK;
        lo = hi;
        hi = hi * 2 > FL_UNITS_MAX ? FL_UNITS_MAX : hi * 2;
    }
    if (isnan(f)) return FL_ERR_NO_MEMORY;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if ((f = blocked_fpr(m, n / (double)mid)) <= p)
            hi = mid;
        else if (isnan(f))
            return FL_ERR_NO_MEMORY;
        else
            lo = mid;
    }
    *units = hi;
    return FL_OK;
}

/* Units k needs for n keys at p in *u (UINT64_MAX: unreachable below 2^32 units). */
static fl_status units_for_k(const fl_variant_desc *d, double n, double p, uint32_t k,
                             uint64_t *u) {
    inner_model own;
    inner_model *m = model_acquire(d, k, &own);
    fl_status st = blocked_units(m, n, p, cells_per_unit(d, k), u);
    model_release(m, &own);
    if (*u == 0) *u = UINT64_MAX;
    return st;
}

/* The fewest units over k, ties to the smaller k (fewer bits to test). For a fixed unit count
 * the FPR falls and then rises with k (more bits per key set versus more bits tested), so
 * units(k), the ceiling of a function with one minimum, never rises and then falls again:
 * the search walks from the textbook optimum k = log2(1/p) down through every k that needs no
 * more units, then up through every k that needs fewer, instead of sizing all of k_min..k_max
 * (the recurrence for k = 32 alone costs more than the whole walk). */
static fl_status size_blocked_search(const fl_variant_desc *d, double n, double p,
                                     fl_geometry *g) {
    const fl_variant_info *in = &d->info;
    double k0 = round(-log2(p));
    uint32_t start = k0 <= in->k_min ? in->k_min : k0 >= in->k_max ? in->k_max : (uint32_t)k0;
    uint32_t best_k = start;
    uint64_t at_start, u;
    fl_status st = units_for_k(d, n, p, start, &at_start);
    if (st != FL_OK) return st;
    uint64_t best = at_start;
    /* Blocked variants accept every k from k_min to k_max. */
    for (uint32_t k = start; k >= in->k_min + 1;) {
        k--;
        if ((st = units_for_k(d, n, p, k, &u)) != FL_OK) return st;
        if (u > best) break;
        best = u;
        best_k = k;
    }
    uint64_t prev = at_start;
    for (uint32_t k = start + 1; k <= in->k_max; k++) {
        if ((st = units_for_k(d, n, p, k, &u)) != FL_OK) return st;
        if (u < best) {
            best = u;
            best_k = k;
        }
        if (u > prev) break;
        prev = u;
    }
    if (best == UINT64_MAX) return FL_ERR_TOO_LARGE;
    g->k = best_k;
    g->units = best;
    return FL_OK;
}

/* fl_size_blocked's answers, remembered per thread. With the models kept (model_acquire), a
 * sizing still runs a few dozen Poisson sums per k tried, about a millisecond; a program
 * that makes many filters of the same shape (a Redis key per user, each created with the
 * same BF.RESERVE or the defaults, and its scalable chain's sub-filters, whose sizes repeat
 * from key to key) asks the same (variant, n, p) again and again, and the search is a pure
 * function of them. Per thread: no locking. Failures are not remembered. */
#define SIZE_MEMO 64
typedef struct {
    const fl_variant_desc *d;
    double n, p;
    uint64_t units;
    uint32_t k;
} size_memo;
static _Thread_local size_memo memo[SIZE_MEMO];
static _Thread_local unsigned memo_next;

fl_status fl_size_blocked(const fl_variant_desc *d, double n, double p, fl_geometry *g) {
    for (unsigned i = 0; i < SIZE_MEMO; i++) {
        const size_memo *e = &memo[i];
        if (e->d == d && e->n == n && e->p == p) {
            g->units = e->units;
            g->k = e->k;
            return FL_OK;
        }
    }
    fl_status st = size_blocked_search(d, n, p, g);
    if (st == FL_OK) {
        memo[memo_next] = (size_memo){d, n, p, g->units, g->k};
        memo_next = (memo_next + 1) % SIZE_MEMO;
    }
    return st;
}

fl_status fl_size_classic(const fl_variant_desc *d, double n, double p, fl_geometry *g) {
    double m = ceil(-n * log(p) / (M_LN2 * M_LN2));
    double k = round(m / n * M_LN2);
    if (k < 1) {
        /* Targets above 1/sqrt(2): the textbook optimum k = log2(1/p) is below 1/2 and its
         * m assumes it; with the k = 1 a filter must use, that m misses the target by up
         * to 10% (p = 0.8 gave 0.88). So take the smallest m the model accepts for k = 1:
         * 1 - (1 - 1/m)^n <= p  <=>  m >= 1 / (1 - (1 - p)^(1/n)). */
        k = 1;
        double exact = ceil(1.0 / -expm1(log1p(-p) / n));
        if (exact > m) m = exact;
    }
    if (k > d->info.k_max) {
        /* Targets below what the optimal k reaches within k_max (about 2^-(k_max) at
         * m / n = k_max / ln 2): keep k = k_max and take the least m that meets p,
         * (1 - e^(-k n / m))^k = p  <=>  m = -k n / ln(1 - p^(1/k)). Bits per key then grow
         * as k p^(-1/k) instead of log2(1/p) / ln 2 (at k = 32 and p = 1e-30, 260 bits
         * against 144): more than the unbounded optimum, but every target is reachable,
         * which a scalable chain's sub-filters, tightened without end, rely on. */
        k = d->info.k_max;
        m = ceil(-k * n / log1p(-pow(p, 1.0 / k)));
    }
    double units = ceil(m / cells_per_unit(d, (uint32_t)k));
    if (units > (double)FL_UNITS_MAX) return FL_ERR_TOO_LARGE;
    g->units = (uint64_t)units;
    g->k = (uint32_t)k;
    return FL_OK;
}

/* Fewest bytes over f in {8, 11, 12, 13, 16}, ties to the narrower width (12 before 13: the
 * same 6-byte buckets, and 12-bit lookups decode nothing): at load alpha the FPR is
 * cuckoo_fpr(f, alpha), so the load that meets p is alpha = ln(1-p) / (8 ln(1 - 1/(2^f-1))),
 * capped at the sizing load; loads under CUCKOO_MIN_LOAD waste more than a wider fingerprint
 * would, so they count as unreachable. In effect the narrowest width that meets p at a
 * well-filled table: 8 bits down to ~2.3% (8 bits per key / load, which reaches 11-bit's
 * 10.64 at load 0.75), then 11 bits down to ~0.31% (10 / load reaches 12-bit's 12.77 at load
 * 0.78), then 12 bits down to ~0.18% (its FPR at the sizing load), then 13 bits down to
 * ~0.07% (12 / load reaches 16-bit's 17.02 at load 0.71), then 16. */
fl_status fl_size_cuckoo(const fl_variant_desc *d, double n, double p, fl_geometry *g) {
    double best_bytes = 0;
    int too_large = 0;
    for (uint32_t f = d->info.k_min; f <= d->info.k_max; f++) {
        if (!fl_variant_k_valid(d, f)) continue;
        double alpha = log1p(-p) / (8.0 * log1p(-1.0 / ((double)(1u << f) - 1.0)));
        if (alpha > d->info.max_load) alpha = d->info.max_load;
        if (alpha < CUCKOO_MIN_LOAD) continue;
        double buckets = ceil(n / (d->info.unit_slots * alpha));
        double bytes = buckets * (double)d->unit_bytes(f);
        if (buckets > (double)FL_UNITS_MAX) {
            too_large = 1;
            continue;
        }
        if (best_bytes == 0 || bytes < best_bytes) {
            best_bytes = bytes;
            g->units = (uint64_t)buckets;
            g->k = f;
        }
    }
    return best_bytes > 0 ? FL_OK : too_large ? FL_ERR_TOO_LARGE : FL_ERR_BAD_FPR;
}
