/*
 * checkkernels, module "cuckoo": batch lookups per fingerprint width (8, 11 and 13
 * semi-sorted, 12 and 16 bits) against the scalar table, with tables empty, half and fully occupied, with and without a
 * victim stash; the integer-key lookups (contains_u64s, every table's, scalar's included)
 * against the scalar lookup of the keys' hashes; the header-inline one-key lookup
 * (SSE2/NEON/SWAR, stash included) against the same answers; and their benchmark. Also the
 * avx2-loads candidate's cuckoo entries (kernels/cuckoo_avx2.c's loads form: scalar loads in
 * place of the gathers), checked and timed beside the avx2 table's.
 */
#include "harness.h"

#include "cpu/kernel_choice.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct width {
    const char *name;
    fl_cuckoo_width id;
    uint32_t fp_bits;
} width;

static const width WIDTHS[FL_CUCKOO_WIDTHS] = {
    {"cuckoo8", FL_CUCKOO_FP8, 8},
    {"cuckoo16", FL_CUCKOO_FP16, 16},
    {"cuckoo12", FL_CUCKOO_FP12, 12}, /* the harness's guard bytes (0xa5) follow the last
                                         6-byte bucket: its 8-byte loads must ignore them */
    {"cuckoo13", FL_CUCKOO_FP13, 13}, /* semi-sorted 6-byte buckets, the same guard */
    {"cuckoo11", FL_CUCKOO_FP11, 11}, /* semi-sorted 5-byte buckets: 3 guard bytes read */
};

#define SLOT(w) FL_KERNEL_SLOT(cuckoo.contains[w])
#define SLOT_U64S(w) FL_KERNEL_SLOT(cuckoo.contains_u64s[w])

/* The key whose fl_hash_u64(key, seed) is h: the SplitMix64 finalizer undone step by step
 * (each xorshift and each odd multiply is a bijection of 64-bit words), so the integer-key
 * lookups are checked on exactly the hashes the hash lookups are (positives, edges of every
 * reduction). */
static uint64_t inv_odd(uint64_t c) { /* c * inv_odd(c) = 1 mod 2^64 (Newton, 6 steps) */
    uint64_t x = c;
    for (int i = 0; i < 6; i++) x *= 2 - c * x;
    return x;
}
static uint64_t key_of_hash(uint64_t h, uint64_t seed) {
    uint64_t z = h ^ (h >> 31) ^ (h >> 62);
    z *= inv_odd(0x94d049bb133111ebull);
    z ^= (z >> 27) ^ (z >> 54);
    z *= inv_odd(0xbf58476d1ce4e5b9ull);
    z ^= (z >> 30) ^ (z >> 60);
    return z - seed * FL_SEED_MIX;
}

/* Random fingerprints in the slots (none, half, all), then each positive key's fingerprint
 * written into a random slot of one of its two buckets, then (with_stash) a stash of 1..8
 * entries, some holding keys whose fingerprints were removed from their buckets so only the
 * stash can answer for them. Fills pos[0..npos) with the positives. */
static void fill_cuckoo(tfilter *t, int fill, int with_stash, uint64_t *pos, size_t npos) {
    fl_kview *v = &t->v;
    for (size_t i = 0; i < npos; i++) pos[i] = rnd();
    uint32_t fpmax = (1u << v->k) - 1u;
    for (uint32_t b = 0; b < v->units; b++)
        for (int s = 0; s < FL_CUCKOO_SLOTS; s++) {
            uint32_t fp = 0;
            if (fill == FILL_FULL || (fill == FILL_HALF && (rnd() & 1)))
                fp = 1 + (uint32_t)rnd_below(fpmax);
            fl_cuckoo_set(v->data, v->k, b, s, fp);
        }
    if (fill != FILL_EMPTY) {
        for (size_t i = 0; i < npos; i++) {
            uint32_t fp = fl_cuckoo_fp(pos[i], v->k), b = fl_cuckoo_bucket(pos[i], v->units);
            if (rnd() & 1) b = fl_cuckoo_alt(b, fp, v->units);
            fl_cuckoo_set(v->data, v->k, b, (int)rnd_below(FL_CUCKOO_SLOTS), fp);
        }
    }
    v->stash_count = 0;
    if (!with_stash) return;
    uint32_t count = 1 + (uint32_t)rnd_below(FL_STASH_MAX);
    for (uint32_t e = 0; e < count; e++) {
        fl_stash_entry *se = &t->stash[e];
        memset(se, 0, sizeof *se);
        if ((e & 1) == 0 && npos) {
            uint64_t h = pos[rnd_below(npos)];
            uint32_t fp = fl_cuckoo_fp(h, v->k), b1 = fl_cuckoo_bucket(h, v->units);
            uint32_t b2 = fl_cuckoo_alt(b1, fp, v->units);
            se->bucket = (rnd() & 1) ? b1 : b2;
            se->fp = (uint16_t)fp;
            for (int s = 0; s < FL_CUCKOO_SLOTS; s++) {
                if (fl_cuckoo_get(v->data, v->k, b1, s) == fp) fl_cuckoo_set(v->data, v->k, b1, s, 0);
                if (fl_cuckoo_get(v->data, v->k, b2, s) == fp) fl_cuckoo_set(v->data, v->k, b2, s, 0);
            }
        } else {
            se->bucket = (uint32_t)rnd_below(v->units);
            se->fp = (uint16_t)(1 + rnd_below(fpmax));
        }
    }
    v->stash_count = count;
}

/* The header-inline lookup, every query of the pool, against the scalar batch answer. */
static int check_inline(const kernel *ref, const width *w, tfilter *t, const uint64_t *q) {
    const fl_kview *v = &t->v;
    fl_lookup l = {.variant = FL_CUCKOO, .data = v->data, .units = v->units, .k = v->k};
    l.cuckoo = (fl_cuckoo_lookup){.buckets = v->data, .units = v->units, .fp_bits = v->k,
                                  .fp_range = (1u << v->k) - 1u, .tuples = fl_cuckoo_tuples_of(v->k),
                                  .stash = v->stash,
                                  .stash_count = &v->stash_count};
    uint8_t want[POOL];
    ref->t->cuckoo.contains[w->id](&t->v, q, POOL, want);
    for (size_t i = 0; i < POOL; i++) {
        int inl = fl_lookup_hash(&l, q[i]);
        if (inl != want[i]) {
            failf("one key hash=%016" PRIx64 " (query %zu): fl_lookup_hash %d, want %d", q[i], i,
                  inl, want[i]);
            return 0;
        }
    }
    return 1;
}

/* An integer-key lookup against the scalar lookup of the hashes q (keys: their keys under
 * seed), every batch size, keys against either end of the guard buffer at every
 * misalignment, canaries around the output. Returns 1 if everything matched. */
#define U64S_CANARY 32
static int check_u64s(fl_contains_u64s_fn fn, fl_hash_u64_fn hash, fl_contains_fn ref, tfilter *t,
                      const uint64_t *q, const uint64_t *keys, uint64_t seed) {
    static uint8_t want[POOL], buf[POOL + 2 * U64S_CANARY + 8];
    for (size_t si = 0; si < g_nsizes; si++) {
        size_t n = g_sizes[si], start = rnd_below(POOL - n + 1);
        unsigned mis = (unsigned)rnd_below(8), omis = (unsigned)rnd_below(8);
        const uint64_t *in = gbuf_place(keys + start, n, mis, (int)(si & 1));
        size_t wpos = ref(&t->v, q + start, n, want);
        uint8_t *out = buf + U64S_CANARY + omis;
        memset(buf, 0x5a, sizeof buf);
        g_ctx_size = n;
        size_t got = fn(&t->v, in, n, seed, hash, out);
        for (size_t i = 0; i < sizeof buf; i++)
            if ((i < U64S_CANARY + omis || i >= U64S_CANARY + omis + n) && buf[i] != 0x5a) {
                failf("contains_u64s size=%zu wrote outside out[0..n) (byte %zd)", n,
                      (ptrdiff_t)i - (ptrdiff_t)(U64S_CANARY + omis));
                return 0;
            }
        for (size_t i = 0; i < n; i++)
            if (out[i] != want[i]) {
                failf("contains_u64s size=%zu seed=%016" PRIx64 " first difference at index %zu: "
                      "key=%016" PRIx64 " hash=%016" PRIx64 " got %u want %u",
                      n, seed, i, keys[start + i], q[start + i], out[i], want[i]);
                return 0;
            }
        if (got != wpos) {
            failf("contains_u64s size=%zu returned %zu positives, scalar %zu", n, got, wpos);
            return 0;
        }
    }
    return 1;
}

/* Some width's family was asked for (--family). */
static int any_width_selected(void) {
    for (int wi = 0; wi < FL_CUCKOO_WIDTHS; wi++)
        if (family_selected(WIDTHS[wi].name)) return 1;
    return 0;
}

void check_cuckoo(const kernel *ks_in, size_t nk_in) {
    kernel ks[MAX_KERNELS];
    const size_t nk = with_candidate(ks_in, nk_in, FL_CAND_AVX2_LOADS, "avx2", ks);
    if (nk > nk_in && any_width_selected())
        printf("  cuckoo: avx2-loads checked (the avx2 lookups with scalar loads for gathers)\n");
    uint64_t *q = malloc(POOL * sizeof *q), *pos = malloc(POOL * sizeof *pos);
    uint64_t *keys = malloc(POOL * sizeof *keys);
    if (!q || !pos || !keys) die_oom();
    for (int wi = 0; wi < FL_CUCKOO_WIDTHS; wi++) {
        const width *w = &WIDTHS[wi];
        if (!family_selected(w->name)) continue;
        size_t unit = fl_variant_unit_bytes(FL_CUCKOO, w->fp_bits);
        /* A table that brings its own lookup of hashes brings its own lookup of integer keys
         * too: fl_contains_u64s goes through the latter, and an inherited one would keep the
         * parent's lookup with the same answers (HACKING.md, "Adding a kernel"). */
        for (size_t ki = 1; ki < nk; ki++) {
            set_ctx("kernel=%s family=%s entries", ks[ki].name, w->name);
            int paired = !kernel_overrides(ks, ki, SLOT(w->id)) ||
                         kernel_overrides(ks, ki, SLOT_U64S(w->id));
            if (!paired) failf("overrides cuckoo.contains but inherits cuckoo.contains_u64s");
            record(paired);
        }
        for (size_t gi = 0; gi < GEOMETRIES; gi++) {
            uint32_t units = geometry_units(gi, unit);
            for (int fill = 0; fill < FILL_COUNT; fill++)
                for (int stash = 0; stash <= 1; stash++) {
                    tfilter t;
                    tf_alloc(&t, unit, units, w->fp_bits, 0);
                    size_t npos = (size_t)units * 2;
                    if (npos > POOL) npos = POOL;
                    fill_cuckoo(&t, fill, stash, pos, npos);
                    make_queries(q, POOL, pos, npos);
                    for (size_t ki = 1; ki < nk; ki++) {
                        if (!kernel_overrides(ks, ki, SLOT(w->id))) continue;
                        set_ctx("kernel=%s family=%s units=%u fill=%s%s", ks[ki].name, w->name,
                                units, FILL[fill], stash ? " stash=yes" : "");
                        record(check_contains(ks[ki].t->cuckoo.contains[w->id],
                                              ks[0].t->cuckoo.contains[w->id], &t, q));
                    }
                    /* The seed: random, or 0 (no seed term). */
                    uint64_t seed = (rnd() & 1) ? rnd() : 0;
                    for (size_t i = 0; i < POOL; i++) keys[i] = key_of_hash(q[i], seed);
                    set_ctx("key_of_hash seed=%016" PRIx64, seed);
                    int inverse_ok = 1;
                    for (size_t i = 0; i < POOL && inverse_ok; i++)
                        if (fl_hash_u64(keys[i], seed) != q[i]) {
                            failf("key_of_hash: fl_hash_u64(%016" PRIx64 ") != %016" PRIx64,
                                  keys[i], q[i]);
                            inverse_ok = 0;
                        }
                    record(inverse_ok);
                    for (size_t ki = 0; ki < nk && inverse_ok; ki++) {
                        if (!kernel_overrides(ks, ki, SLOT_U64S(w->id))) continue;
                        set_ctx("kernel=%s family=%s u64s units=%u fill=%s%s", ks[ki].name,
                                w->name, units, FILL[fill], stash ? " stash=yes" : "");
                        record(check_u64s(ks[ki].t->cuckoo.contains_u64s[w->id], ks[ki].t->hash.u64,
                                          ks[0].t->cuckoo.contains[w->id], &t, q, keys, seed));
                    }
                    set_ctx("inline family=%s units=%u fill=%s%s", w->name, units, FILL[fill],
                            stash ? " stash=yes" : "");
                    record(check_inline(&ks[0], w, &t, q));
                    tf_free(&t);
                }
        }
        report_checked(w->name);
    }
    for (size_t ki = 0; ki < nk; ki++)
        for (int wi = 0; wi < FL_CUCKOO_WIDTHS; wi++) {
            set_ctx("kernel=%s family=%s table", ks[ki].name, WIDTHS[wi].name);
            const uint32_t slots[] = {SLOT(wi), SLOT_U64S(wi)};
            check_entries_present(&ks[ki], slots, 2);
        }
    free(q);
    free(pos);
    free(keys);
}

void bench_cuckoo(const kernel *ks_in, size_t nk_in) {
    if (!any_width_selected()) return;
    kernel ks[MAX_KERNELS];
    const size_t nk = with_candidate(ks_in, nk_in, FL_CAND_AVX2_LOADS, "avx2", ks);
    print_candidate_columns("cuckoo", ks, nk, nk_in);
    static const size_t mib[] = {1, 64};
    const size_t nq = (size_t)1 << 19;
    uint64_t *q = malloc(nq * sizeof *q), *pos = malloc(nq / 2 * sizeof *pos);
    uint64_t *keys = malloc(nq * sizeof *keys);
    uint8_t *out = malloc(nq);
    if (!q || !pos || !keys || !out) die_oom();
    for (size_t mi = 0; mi < sizeof mib / sizeof mib[0]; mi++)
        for (int wi = 0; wi < FL_CUCKOO_WIDTHS; wi++) {
            const width *w = &WIDTHS[wi];
            if (!family_selected(w->name)) continue;
            size_t unit = fl_variant_unit_bytes(FL_CUCKOO, w->fp_bits);
            uint32_t units = (uint32_t)((mib[mi] << 20) / unit);
            tfilter t;
            tf_alloc(&t, unit, units, w->fp_bits, 1);
            /* Loaded like a real table: 95% of the slots occupied, then the positives. */
            uint32_t fpmax = (1u << t.v.k) - 1u;
            for (uint32_t b = 0; b < units; b++)
                for (int s = 0; s < FL_CUCKOO_SLOTS; s++)
                    fl_cuckoo_set(t.v.data, t.v.k, b, s,
                                  rnd_below(100) < 95 ? 1 + (uint32_t)rnd_below(fpmax) : 0);
            for (size_t i = 0; i < nq / 2; i++) {
                pos[i] = rnd();
                fl_cuckoo_set(t.v.data, t.v.k, fl_cuckoo_bucket(pos[i], units), (int)rnd_below(4),
                              fl_cuckoo_fp(pos[i], t.v.k));
            }
            for (size_t i = 0; i < nq; i++) q[i] = (rnd() & 1) ? pos[rnd_below(nq / 2)] : rnd();
            double r[MAX_KERNELS][BENCH_REPS];
            bench_contains_reps(ks, nk, SLOT(w->id), &t, q, nq, out, r);
            print_bench_row(ks, nk, w->name, t.v.k, mib[mi], "lookup", SLOT(w->id), r);
            /* The same lookups from integer keys (contains_u64s: hashing included). */
            for (size_t i = 0; i < nq; i++) keys[i] = key_of_hash(q[i], 0);
            for (int rep = -1; rep < BENCH_REPS; rep++)
                for (size_t ki = 0; ki < nk; ki++) {
                    fl_contains_u64s_fn fn = KERNEL_FN(&ks[ki], SLOT_U64S(w->id), fl_contains_u64s_fn);
                    size_t sum = 0;
                    double t0 = now_ns();
                    for (size_t i = 0; i < nq; i += BENCH_BATCH)
                        sum += fn(&t.v, keys + i, BENCH_BATCH, 0, ks[ki].t->hash.u64, out + i);
                    g_sink += sum;
                    if (rep >= 0) r[ki][rep] = (now_ns() - t0) / (double)nq;
                }
            print_bench_row(ks, nk, w->name, t.v.k, mib[mi], "u64s", SLOT_U64S(w->id), r);
            tf_free(&t);
        }
    free(q);
    free(pos);
    free(keys);
    free(out);
}
