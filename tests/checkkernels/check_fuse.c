/*
 * checkkernels, module "fuse": every overriding binary fuse lookup and Bloomier retrieval
 * kernel against scalar, and the scalar kernels against the one-key probe of
 * include/filterlab_static.h. Also the x86 "loads" forms (scalar loads instead of gathers,
 * fl_fuse_kernels_loads_*), which --bench times beside the table's gathers. Structures built
 * by the library at sizes from one key (a one-segment array) to 1.2M keys; queries half built
 * keys, half random and edge values (0, all ones, single bits); every batch size, input
 * against either end of a guard page at every misalignment, canaries after every output.
 */
#include "harness.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fl_config.h"
#include "static/fuse_internal.h"

#define NQ 4000
#define CANARY 0xa7u

/* 1.2M keys: past 2 MiB of cells in every shape, the L2 size class of most x86 cores, where
 * the automatic choice may take another form of a kernel (src/cpu/kernel_rules.c). */
static const size_t set_sizes[] = {1, 2, 5, 100, 3001, 300000, 1200000};

static const struct {
    uint32_t arity, bits;
} fuse_shapes[FL_FUSE_SHAPES] = {{3, 8}, {3, 16}, {4, 8}, {4, 16}};
static const struct {
    uint32_t arity, cell, value;
} bloomier_shapes[FL_BLOOMIER_SHAPES] = {{3, 16, 8}, {3, 32, 16}, {4, 16, 16}, {4, 32, 5}};

static uint32_t contains_slot(int s) {
    return FL_KERNEL_SLOT(fuse.contains) + (uint32_t)(s * sizeof(fl_fuse_contains_fn));
}
static uint32_t get_slot(int s) {
    return FL_KERNEL_SLOT(fuse.get) + (uint32_t)(s * sizeof(fl_bloomier_get_fn));
}

static uint64_t *make_keys(size_t n) {
    uint64_t *k = malloc((n ? n : 1) * 8);
    if (!k) die_oom();
    for (size_t i = 0; i < n; i++) k[i] = rnd();
    return k;
}

static void make_fuse_queries(uint64_t *q, const uint64_t *keys, size_t n) {
    for (size_t i = 0; i < NQ; i++) {
        switch (i & 3) {
        case 0:
        case 1: q[i] = keys[rnd_below(n)]; break;
        case 2: q[i] = rnd(); break;
        default: q[i] = (i & 4) ? special_hash() : ~0ull << (rnd_below(64)); break;
        }
    }
}

/* fn against ref on q, every batch size. */
static int check_contains_fn(const char *what, fl_fuse_contains_fn fn, fl_fuse_contains_fn ref,
                             const fl_fuse_view *v, const uint64_t *q) {
    static uint8_t want[NQ], got[NQ + 64];
    for (size_t si = 0; si < g_nsizes; si++) {
        size_t n = g_sizes[si];
        if (n > NQ) continue;
        const uint64_t *in = gbuf_place(q, n, (unsigned)rnd_below(8), (int)(si & 1));
        size_t wh = ref(v, in, n, want);
        memset(got, CANARY, sizeof got);
        size_t gh = fn(v, in, n, got);
        for (size_t i = 0; i < n; i++)
            if (got[i] != want[i]) {
                failf("%s n=%zu key %zu (%#" PRIx64 "): %u, scalar %u", what, n, i, in[i],
                      got[i], want[i]);
                return 0;
            }
        for (size_t i = n; i < sizeof got; i++)
            if (got[i] != CANARY) {
                failf("%s n=%zu wrote past out[n]", what, n);
                return 0;
            }
        if (gh != wh) {
            failf("%s n=%zu returned %zu, scalar %zu", what, n, gh, wh);
            return 0;
        }
    }
    return 1;
}

static int check_get_fn(const char *what, fl_bloomier_get_fn fn, fl_bloomier_get_fn ref,
                        const fl_fuse_view *v, const uint64_t *q) {
    static uint16_t wantv[NQ], gotv[NQ + 64];
    static uint8_t wantf[NQ], gotf[NQ + 64];
    for (size_t si = 0; si < g_nsizes; si++) {
        size_t n = g_sizes[si];
        if (n > NQ) continue;
        const uint64_t *in = gbuf_place(q, n, (unsigned)rnd_below(8), (int)(si & 1));
        size_t wh = ref(v, in, n, wantv, wantf);
        memset(gotv, CANARY, sizeof gotv);
        memset(gotf, CANARY, sizeof gotf);
        size_t gh = fn(v, in, n, gotv, gotf);
        for (size_t i = 0; i < n; i++)
            if (gotv[i] != wantv[i] || gotf[i] != wantf[i]) {
                failf("%s n=%zu key %zu: found %u value %u, scalar %u %u", what, n, i, gotf[i],
                      gotv[i], wantf[i], wantv[i]);
                return 0;
            }
        for (size_t i = n; i < NQ + 64; i++)
            if (gotf[i] != CANARY || gotv[i] != (uint16_t)(CANARY * 0x101u)) {
                failf("%s n=%zu wrote past the outputs", what, n);
                return 0;
            }
        if (gh != wh) {
            failf("%s n=%zu returned %zu, scalar %zu", what, n, gh, wh);
            return 0;
        }
    }
    return 1;
}

/* The tables to check besides ks: the loads forms, when their ISA's table is there. */
typedef struct extra {
    const char *name;
    const fl_fuse_kernels *k;
} extra;

static size_t extras_of(const kernel *ks, size_t nk, extra *out) {
    (void)ks; /* no loads forms off x86 */
    (void)out;
    size_t m = 0;
    for (size_t ki = 1; ki < nk; ki++) {
#if FL_HAVE_AVX2
        if (!strcmp(ks[ki].name, "avx2")) out[m++] = (extra){"avx2-loads", &fl_fuse_kernels_loads_avx2};
#endif
#if FL_HAVE_AVX512
        if (!strcmp(ks[ki].name, "avx512"))
            out[m++] = (extra){"avx512-loads", &fl_fuse_kernels_loads_avx512};
#endif
    }
    return m;
}

void check_fuse(const kernel *ks, size_t nk) {
    if (!family_selected("fuse")) return;
    static uint64_t q[NQ];
    extra ex[4];
    size_t nex = extras_of(ks, nk, ex);
    for (size_t zi = 0; zi < sizeof set_sizes / sizeof *set_sizes; zi++) {
        size_t n = set_sizes[zi];
        uint64_t *keys = make_keys(n);
        make_fuse_queries(q, keys, n);
        for (int s = 0; s < FL_FUSE_SHAPES; s++) {
            fl_fuse_config cfg = {.arity = fuse_shapes[s].arity,
                                  .fingerprint_bits = fuse_shapes[s].bits, .seed = rnd()};
            fl_fuse *f = NULL;
            if (fl_fuse_build_u64(&cfg, keys, n, &f) != FL_OK) die_oom();
            const fl_fuse_view *v = &f->s.view;
            /* scalar = the one-key probe */
            set_ctx("kernel=scalar fuse%u_%u keys=%zu vs fl_fuse_lookup", cfg.arity,
                    cfg.fingerprint_bits, n);
            static uint8_t out[NQ];
            ks[0].t->fuse.contains[s](v, q, NQ, out);
            int ok = 1;
            for (size_t i = 0; i < NQ && ok; i++)
                if (out[i] != fl_fuse_lookup(v, q[i])) {
                    failf("key %zu: batch %u, fl_fuse_lookup %d", i, out[i], fl_fuse_lookup(v, q[i]));
                    ok = 0;
                }
            record(ok);
            for (size_t ki = 1; ki < nk; ki++) {
                if (!kernel_overrides(ks, ki, contains_slot(s))) continue;
                set_ctx("kernel=%s fuse%u_%u keys=%zu", ks[ki].name, cfg.arity,
                        cfg.fingerprint_bits, n);
                record(check_contains_fn("contains", ks[ki].t->fuse.contains[s],
                                         ks[0].t->fuse.contains[s], v, q));
            }
            for (size_t e = 0; e < nex; e++) {
                set_ctx("kernel=%s fuse%u_%u keys=%zu", ex[e].name, cfg.arity,
                        cfg.fingerprint_bits, n);
                record(check_contains_fn("contains", ex[e].k->contains[s],
                                         ks[0].t->fuse.contains[s], v, q));
            }
            fl_fuse_free(f);
        }
        uint16_t *vals = malloc((n ? n : 1) * 2);
        if (!vals) die_oom();
        for (int s = 0; s < FL_BLOOMIER_SHAPES; s++) {
            uint32_t vb = bloomier_shapes[s].value;
            for (size_t i = 0; i < n; i++) vals[i] = (uint16_t)(rnd() & ((1u << vb) - 1));
            fl_bloomier_config cfg = {.arity = bloomier_shapes[s].arity, .value_bits = vb,
                                      .cell_bits = bloomier_shapes[s].cell, .seed = rnd()};
            fl_bloomier *b = NULL;
            if (fl_bloomier_build_u64(&cfg, keys, vals, n, &b) != FL_OK) die_oom();
            const fl_fuse_view *v = &b->s.view;
            set_ctx("kernel=scalar bloomier%u_%u/%u keys=%zu vs fl_bloomier_lookup", cfg.arity,
                    cfg.cell_bits, vb, n);
            static uint16_t val[NQ];
            static uint8_t fnd[NQ];
            ks[0].t->fuse.get[s](v, q, NQ, val, fnd);
            int ok = 1;
            for (size_t i = 0; i < NQ && ok; i++) {
                uint16_t one;
                int hit = fl_bloomier_lookup(v, q[i], &one);
                if (fnd[i] != hit || val[i] != one) {
                    failf("key %zu: batch %u/%u, fl_bloomier_lookup %d/%u", i, fnd[i], val[i], hit,
                          one);
                    ok = 0;
                }
            }
            record(ok);
            for (size_t ki = 1; ki < nk; ki++) {
                if (!kernel_overrides(ks, ki, get_slot(s))) continue;
                set_ctx("kernel=%s bloomier%u_%u/%u keys=%zu", ks[ki].name, cfg.arity,
                        cfg.cell_bits, vb, n);
                record(check_get_fn("get", ks[ki].t->fuse.get[s], ks[0].t->fuse.get[s], v, q));
            }
            for (size_t e = 0; e < nex; e++) {
                set_ctx("kernel=%s bloomier%u_%u/%u keys=%zu", ex[e].name, cfg.arity,
                        cfg.cell_bits, vb, n);
                record(check_get_fn("get", ex[e].k->get[s], ks[0].t->fuse.get[s], v, q));
            }
            fl_bloomier_free(b);
        }
        free(vals);
        free(keys);
    }
    report_checked("fuse");
}

/* ns per key of batch lookups (u64 keys, hashing included, batches of BENCH_BATCH, 50%
 * positive) at 100K, 1M and 10M keys, every table's entry and the loads forms, reps
 * interleaved. One line per shape and size: "fuse SHAPE KEYS name=ns ...". */
void bench_fuse(const kernel *ks, size_t nk) {
    if (!family_selected("fuse")) return;
    static const size_t sizes[] = {100000, 1000000, 10000000};
    const size_t nq = (size_t)1 << 20;
    extra ex[4];
    size_t nex = extras_of(ks, nk, ex);
    uint64_t *q = malloc(nq * 8);
    uint8_t *out = malloc(BENCH_BATCH);
    if (!q || !out) die_oom();
    for (size_t zi = 0; zi < 3; zi++) {
        size_t n = sizes[zi];
        uint64_t *keys = make_keys(n);
        for (size_t i = 0; i < nq; i++) q[i] = (i & 1) ? keys[rnd_below(n)] : rnd();
        for (int s = 0; s < FL_FUSE_SHAPES; s++) {
            fl_fuse_config cfg = {.arity = fuse_shapes[s].arity,
                                  .fingerprint_bits = fuse_shapes[s].bits};
            fl_fuse *f = NULL;
            if (fl_fuse_build_u64(&cfg, keys, n, &f) != FL_OK) die_oom();
            const fl_fuse_view *v = &f->s.view;
            size_t nfn = nk + nex;
            fl_fuse_contains_fn fns[24];
            const char *names[24];
            for (size_t ki = 0; ki < nk; ki++) {
                fns[ki] = ks[ki].t->fuse.contains[s];
                names[ki] = ks[ki].emulated ? "neon(emulated)" : ks[ki].name;
            }
            for (size_t e = 0; e < nex; e++) {
                fns[nk + e] = ex[e].k->contains[s];
                names[nk + e] = ex[e].name;
            }
            double r[24][BENCH_REPS];
            for (int rep = -1; rep < BENCH_REPS; rep++)
                for (size_t fi = 0; fi < nfn; fi++) {
                    double t0 = now_ns();
                    size_t hits = 0;
                    for (size_t i = 0; i < nq; i += BENCH_BATCH)
                        hits += fns[fi](v, q + i, BENCH_BATCH, out);
                    g_sink += hits;
                    if (rep >= 0) r[fi][rep] = (now_ns() - t0) / (double)nq;
                }
            printf("fuse %u_%-2u %8zu", cfg.arity, cfg.fingerprint_bits, n);
            for (size_t fi = 0; fi < nfn; fi++) printf(" %s=%.2f", names[fi], pick_rep(r[fi], BENCH_REPS));
            printf("\n");
            fflush(stdout);
            fl_fuse_free(f);
        }
        free(keys);
    }
    free(q);
    free(out);
}
