/*
 * Counting Bloom filters (counting, counting512): the operations that are not kernels.
 * Inserts and lookups are the counting kernel module's (kernels/counting_*.c); the positions
 * are kernels/probe.h's.
 *
 * Design (Fan, Cao, Almeida, Broder, "Summary Cache", IEEE/ACM ToN 2000): each of the k
 * positions of a key is a 4-bit counter; an insert adds 1 to each, a delete takes 1 from
 * each, a lookup asks that all are nonzero. A counter that reaches 15 has lost count (it
 * may stand for more keys than 15), so it saturates: inserts leave it at 15 and deletes never
 * decrement it. A key that was inserted and not deleted therefore keeps every counter >= 1,
 * whatever else is inserted or deleted, and is never a false negative.
 */
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "probe.h"

#define MAX_CELLS 32 /* classic's k_max; counting512 has at most 16 */

/* Takes one count from each of the key's counters, after checking that every one of them can
 * give it: a counter the key hits r times must hold at least r unless it is saturated. If
 * one cannot, the key was never inserted (or was deleted as often as inserted):
 * FL_ERR_NOT_FOUND and nothing moves. */
static fl_status remove_cells(fl_filter *f, const size_t *cells, uint32_t k) {
    uint64_t *w = (uint64_t *)f->data;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t c = fl_counter_get(w, cells[i]);
        if (c == FL_COUNTER_MAX) continue;
        uint32_t uses = 0; /* this key's probes of the same counter up to and including i */
        for (uint32_t j = 0; j <= i; j++) uses += cells[j] == cells[i];
        if (c < uses) return FL_ERR_NOT_FOUND;
    }
    for (uint32_t i = 0; i < k; i++)
        if (fl_counter_get(w, cells[i]) != FL_COUNTER_MAX)
            w[cells[i] >> 4] -= 1ull << (4 * (cells[i] & 15));
    if (f->keys) f->keys--;
    return FL_OK;
}

/* Where a key's k counters are: fl_counting_cells or fl_counting512_cells (kernels/probe.h).
 * The helpers below are always inlined, so each caller's cells function is a direct call. */
typedef void (*cells_fn)(const fl_kview *f, uint64_t h, size_t *cells);
#define FL_COUNTING_INLINE static inline __attribute__((always_inline))

FL_COUNTING_INLINE fl_status remove_key(fl_filter *f, uint64_t h, cells_fn cells_of) {
    size_t cells[MAX_CELLS];
    fl_kview v = fl_view(f);
    cells_of(&v, h, cells);
    return remove_cells(f, cells, f->g.k);
}

fl_status fl_counting_remove(fl_filter *f, uint64_t h) {
    return remove_key(f, h, fl_counting_cells);
}

fl_status fl_counting512_remove(fl_filter *f, uint64_t h) {
    return remove_key(f, h, fl_counting512_cells);
}

/* ---- atomic inserts (fl_insert_hashes_atomic) --------------------------------------------
 * Concurrent with other atomic inserts and with lookups and saves, as for the Bloom variants
 * (not with deletes, merges or plain inserts). One counter's saturating +1 is a
 * compare-and-swap loop on its 64-bit word: read the word, stop if the counter is 15, else
 * swap in the word + 1 at the counter's nibble (no carry: the nibble was below 15); a swap
 * that fails because another thread changed any nibble of the word retries on the value it
 * saw. Each successful swap adds exactly one to one unsaturated counter, so every counter
 * ends at min(15, start + its increments), whatever the interleaving: the payload equals
 * the same keys inserted one by one, in any order. A lookup sees each word before or after
 * a swap, so a key whose insert happened before the lookup has every counter >= 1. Relaxed
 * ordering, as the Bloom ORs: publishing a batch to other threads is the caller's
 * synchronisation. */
static void atomic_counter_inc(uint64_t *w, size_t c) {
    uint64_t *p = &w[c >> 4];
    const unsigned shift = 4 * (unsigned)(c & 15);
    uint64_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (((old >> shift) & 0xf) != FL_COUNTER_MAX &&
           !__atomic_compare_exchange_n(p, &old, old + (1ull << shift), 1, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED)) {
    }
}

/* Each key's k counters in probe order (a counter the key hits twice gets +2), as the insert
 * kernels. */
FL_COUNTING_INLINE fl_status insert_atomic(fl_filter *f, const uint64_t *hashes, size_t n,
                                           cells_fn cells_of) {
    size_t cells[MAX_CELLS];
    fl_kview v = fl_view(f);
    for (size_t i = 0; i < n; i++) {
        cells_of(&v, fl_hash_at(hashes, i), cells);
        for (uint32_t j = 0; j < v.k; j++) atomic_counter_inc((uint64_t *)f->data, cells[j]);
    }
    __atomic_fetch_add(&f->keys, (uint64_t)n, __ATOMIC_RELAXED);
    return FL_OK;
}

fl_status fl_counting_insert_atomic(fl_filter *f, const uint64_t *hashes, size_t n) {
    return insert_atomic(f, hashes, n, fl_counting_cells);
}

fl_status fl_counting512_insert_atomic(fl_filter *f, const uint64_t *hashes, size_t n) {
    return insert_atomic(f, hashes, n, fl_counting512_cells);
}

/* Nibbles of a word that are nonzero / equal to 15, as a count (SWAR on the 16 nibbles). */
static inline unsigned nonzero_nibbles(uint64_t x) {
    const uint64_t n1 = 0x1111111111111111ull;
    uint64_t any = (x | (x >> 1) | (x >> 2) | (x >> 3)) & n1;
    return (unsigned)__builtin_popcountll(any);
}
static inline unsigned full_nibbles(uint64_t x) {
    const uint64_t n1 = 0x1111111111111111ull;
    return (unsigned)__builtin_popcountll(x & (x >> 1) & (x >> 2) & (x >> 3) & n1);
}

/* fl_info for counters: bits_set = nonzero counters, fill = their fraction (what a Bloom
 * filter's fill is to the FPR models: the chance a probe finds its position set), and the
 * saturated counters. */
void fl_counting_occupancy(const fl_filter *f, fl_info *out) {
    const uint64_t *w = (const uint64_t *)f->data;
    size_t words = f->bytes / 8;
    uint64_t nz = 0, sat = 0;
    for (size_t i = 0; i < words; i++) {
        nz += nonzero_nibbles(w[i]);
        sat += full_nibbles(w[i]);
    }
    out->bits_set = nz;
    out->fill = (double)nz / (2.0 * (double)f->bytes);
    out->saturated = sat;
}

/* dst = min(15, dst + src) per counter. Even and odd nibbles are added as bytes (at most 30,
 * so nothing carries out of a byte); a sum of 16 or more has bit 4 set, which becomes 0xf. */
static inline uint64_t sat_add_bytes(uint64_t a, uint64_t b) {
    const uint64_t b1 = 0x0101010101010101ull;
    uint64_t s = a + b;
    uint64_t over = (s >> 4) & b1;
    return (s | (over * 0xf)) & (b1 * 0xf);
}

fl_status fl_counting_merge(fl_filter *dst, const fl_filter *src) {
    const uint64_t lo = 0x0f0f0f0f0f0f0f0full;
    uint64_t *d = (uint64_t *)dst->data;
    const uint64_t *s = (const uint64_t *)src->data;
    for (size_t i = 0; i < dst->bytes / 8; i++) {
        uint64_t even = sat_add_bytes(d[i] & lo, s[i] & lo);
        uint64_t odd = sat_add_bytes((d[i] >> 4) & lo, (s[i] >> 4) & lo);
        d[i] = even | (odd << 4);
    }
    dst->keys += src->keys;
    return FL_OK;
}

double fl_counting_overflow_bound(double m, double n, double k) {
    if (!(m >= 1) || !(k > 0) || !(n >= 0) || !isfinite(m) || !isfinite(n) || !isfinite(k))
        return NAN;
    if (n == 0) return 0.0;
    /* Fan et al. 2000, section V.C: P(max count >= i) <= m (e n k / (i m))^i, i = 16. In
     * logs, so a huge m or n k cannot overflow before the cap. */
    double lb = log(m) + 16.0 * (1.0 + log(n * k / (16.0 * m)));
    return lb >= 0 ? 1.0 : exp(lb);
}
