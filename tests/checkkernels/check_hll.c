/*
 * checkkernels, module "hll": every overriding HyperLogLog kernel against scalar. Register
 * states from empty to saturated, hashes at the edges of the index and rank derivation
 * (upper bits all zero: the capped rank q + 1; index 0 and m - 1), every precision, every
 * batch size and input misalignment, guard bytes after the registers and canaries after
 * outputs.
 */
#include "harness.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hll_probe.h"

#define GUARD 0xa5
#define MAX_M (1u << 16)

/* Registers with FL_HLL_REG_PAD zero bytes (which no kernel may write) and a guard after. */
static uint8_t *regs_alloc(void) {
    uint8_t *r = aligned_alloc(64, MAX_M + FL_HLL_REG_PAD + 64);
    if (!r) die_oom();
    return r;
}

static void regs_fill(uint8_t *r, uint32_t m, int how, uint32_t p) {
    uint32_t top = 64 - p + 1;
    for (uint32_t i = 0; i < m; i++)
        r[i] = how == 0 ? 0 : how == 1 ? (uint8_t)rnd_below(8) : (uint8_t)rnd_below(top + 1);
    memset(r + m, 0, FL_HLL_REG_PAD);
    memset(r + m + FL_HLL_REG_PAD, GUARD, 64);
}

static uint64_t hll_hash(uint32_t p) {
    switch (rnd_below(6)) {
    case 0: return rnd() & ((1ull << p) - 1);                 /* rank capped at q + 1 */
    case 1: return rnd() | ((1ull << p) - 1);                 /* last register */
    case 2: return (rnd() & ~((1ull << p) - 1));              /* register 0 */
    case 3: return rnd() & ((1ull << (p + 1 + rnd_below(63 - p))) - 1); /* long runs */
    default: return rnd();
    }
}

static int check_add(const kernel *kn, const kernel *ref, uint8_t *a, uint8_t *b, uint64_t *q) {
    for (uint32_t p = FL_HLL_P_MIN; p <= FL_HLL_P_MAX; p++) {
        uint32_t m = 1u << p;
        for (int how = 0; how < 3; how++) {
            for (size_t i = 0; i < 1000; i++) q[i] = hll_hash(p);
            /* A few repeats of one register inside a vector (conflicting lanes). */
            for (size_t i = 0; i + 3 < 1000; i += 37) q[i + 1] = q[i] ^ (1ull << 63), q[i + 3] = q[i];
            for (size_t si = 0; si < g_nsizes; si++) {
                size_t n = g_sizes[si];
                if (n > 1000) continue;
                unsigned mis = (unsigned)rnd_below(8);
                const uint64_t *in = gbuf_place(q, n, mis, (int)(si & 1));
                regs_fill(a, m, how, p);
                memcpy(b, a, m + FL_HLL_REG_PAD + 64);
                int want = ref->t->hll.add(a, p, in, n);
                int got = KERNEL_FN(kn, FL_KERNEL_SLOT(hll.add), fl_hll_add_fn)(b, p, in, n);
                if (want != got) {
                    failf("add p=%u fill=%d n=%zu: returned %d, scalar %d", p, how, n, got, want);
                    return 0;
                }
                if (memcmp(a, b, m + FL_HLL_REG_PAD + 64) != 0) {
                    size_t j = 0;
                    while (a[j] == b[j]) j++;
                    failf("add p=%u fill=%d n=%zu: byte %zu is %u, scalar %u%s", p, how, n, j,
                          b[j], a[j], j >= m ? " (past the registers)" : "");
                    return 0;
                }
            }
        }
    }
    return 1;
}

static int check_histo(const kernel *kn, const kernel *ref, uint8_t *a) {
    for (uint32_t p = FL_HLL_P_MIN; p <= FL_HLL_P_MAX; p++) {
        uint32_t m = 1u << p;
        for (int how = 0; how < 4; how++) {
            regs_fill(a, m, how < 3 ? how : 2, p);
            if (how == 3)
                for (uint32_t i = 0; i < m; i++) a[i] = (uint8_t)rnd_below(64);
            uint32_t want[64], got[64];
            for (int v = 0; v < 64; v++) want[v] = got[v] = (uint32_t)v; /* kernels add */
            ref->t->hll.histo(a, m, want);
            KERNEL_FN(kn, FL_KERNEL_SLOT(hll.histo), fl_hll_histo_fn)(a, m, got);
            if (memcmp(want, got, sizeof want) != 0) {
                int v = 0;
                while (want[v] == got[v]) v++;
                failf("histo p=%u fill=%d: value %d counted %u, scalar %u", p, how, v, got[v],
                      want[v]);
                return 0;
            }
        }
    }
    return 1;
}

static int check_max(const kernel *kn, const kernel *ref, uint8_t *a, uint8_t *b, uint8_t *s) {
    for (uint32_t p = FL_HLL_P_MIN; p <= FL_HLL_P_MAX; p++) {
        uint32_t m = 1u << p;
        regs_fill(a, m, 2, p);
        regs_fill(s, m, (int)(p % 3), p);
        memcpy(b, a, m + FL_HLL_REG_PAD + 64);
        ref->t->hll.max(a, s, m);
        KERNEL_FN(kn, FL_KERNEL_SLOT(hll.max), fl_hll_max_fn)(b, s, m);
        if (memcmp(a, b, m + FL_HLL_REG_PAD + 64) != 0) {
            failf("max p=%u differs from scalar", p);
            return 0;
        }
    }
    return 1;
}

void check_hll(const kernel *ks, size_t nk) {
    if (!family_selected("hll")) return;
    uint8_t *a = regs_alloc(), *b = regs_alloc(), *s = regs_alloc();
    static uint64_t q[1000];
    for (size_t i = 0; i < 1000; i++) q[i] = (i & 3) ? rnd() : special_hash();
    /* The scalar murmur8 entry is fl_murmur64a over each key's 8 bytes. */
    set_ctx("kernel=scalar hll murmur8 vs fl_murmur64a");
    uint64_t out[1000];
    ks[0].t->hll.murmur8(q, 1000, FL_HLL_REDIS_SEED, out);
    int ok = 1;
    for (size_t i = 0; i < 1000 && ok; i++)
        if (out[i] != fl_murmur64a(&q[i], 8, FL_HLL_REDIS_SEED)) {
            failf("index %zu differs from fl_murmur64a", i);
            ok = 0;
        }
    record(ok);
    for (size_t ki = 1; ki < nk; ki++) {
        if (kernel_overrides(ks, ki, FL_KERNEL_SLOT(hll.add))) {
            set_ctx("kernel=%s hll add", ks[ki].name);
            record(check_add(&ks[ki], &ks[0], a, b, q));
        }
        if (kernel_overrides(ks, ki, FL_KERNEL_SLOT(hll.histo))) {
            set_ctx("kernel=%s hll histo", ks[ki].name);
            record(check_histo(&ks[ki], &ks[0], a));
        }
        if (kernel_overrides(ks, ki, FL_KERNEL_SLOT(hll.max))) {
            set_ctx("kernel=%s hll max", ks[ki].name);
            record(check_max(&ks[ki], &ks[0], a, b, s));
        }
        if (kernel_overrides(ks, ki, FL_KERNEL_SLOT(hll.murmur8))) {
            set_ctx("kernel=%s hll murmur8", ks[ki].name);
            for (size_t i = 0; i < 1000; i++) q[i] = (i & 3) ? rnd() : special_hash();
            /* Odd lengths with Redis's seed, the one its adds use. */
            record(check_u64_kernel("murmur8", ks[ki].t->hll.murmur8, ks[0].t->hll.murmur8, q,
                                    FL_HLL_REDIS_SEED, 2));
        }
    }
    free(a);
    free(b);
    free(s);
}

/* ns per item: add of pre-hashed keys and of integer keys (murmur8 + add) into p = 14
 * registers, histogram and max of 16384 registers (ns per register). Noisy: a shared
 * machine's numbers, for ratios only. */
void bench_hll(const kernel *ks, size_t nk) {
    if (!family_selected("hll")) return;
    const size_t nq = 1 << 19;
    uint64_t *q = malloc(nq * 8), *hb = malloc(BENCH_BATCH * 8);
    uint8_t *a = regs_alloc(), *s = regs_alloc();
    if (!q || !hb) die_oom();
    for (size_t i = 0; i < nq; i++) q[i] = rnd();
    regs_fill(s, 1u << 14, 2, 14);
    double r[16][BENCH_REPS];
    /* add: registers start at 0..7 each rep, so about one hash in ten raises one (a young
     * sketch); add(warm): they already hold every hash's rank, the steady state of a sketch
     * far above m distinct keys, where almost no add changes a register. */
    uint8_t *warm = regs_alloc();
    regs_fill(warm, 1u << 14, 1, 14);
    ks[0].t->hll.add(warm, 14, q, nq);
    for (int op = 0; op < 5; op++) {
        for (int rep = -1; rep < BENCH_REPS; rep++)
            for (size_t ki = 0; ki < nk; ki++) {
                const fl_hll_kernels *k = &ks[ki].t->hll;
                if (op == 4)
                    memcpy(a, warm, (1u << 14) + FL_HLL_REG_PAD);
                else
                    regs_fill(a, 1u << 14, 1, 14);
                double items = (double)nq;
                double t0 = now_ns();
                int sum = 0;
                if (op == 0 || op == 4) {
                    for (size_t i = 0; i < nq; i += BENCH_BATCH)
                        sum += k->add(a, 14, q + i, BENCH_BATCH);
                } else if (op == 1) {
                    for (size_t i = 0; i < nq; i += BENCH_BATCH) {
                        k->murmur8(q + i, BENCH_BATCH, FL_HLL_REDIS_SEED, hb);
                        sum += k->add(a, 14, hb, BENCH_BATCH);
                    }
                } else if (op == 2) {
                    uint32_t hist[64] = {0};
                    for (int j = 0; j < 32; j++) k->histo(s, 1u << 14, hist);
                    sum = (int)hist[3];
                    items = 32.0 * (1u << 14);
                } else {
                    for (int j = 0; j < 32; j++) k->max(a, s, 1u << 14);
                    sum = a[5];
                    items = 32.0 * (1u << 14);
                }
                g_sink += (size_t)sum;
                if (rep >= 0) r[ki][rep] = (now_ns() - t0) / items;
            }
        static const char *const names[] = {"add", "addu64", "histo", "max", "add(warm)"};
        static const uint32_t slots[] = {FL_KERNEL_SLOT(hll.add), FL_KERNEL_SLOT(hll.murmur8),
                                         FL_KERNEL_SLOT(hll.histo), FL_KERNEL_SLOT(hll.max),
                                         FL_KERNEL_SLOT(hll.add)};
        print_bench_row(ks, nk, "hll", 14, 0, names[op], slots[op], r);
    }
    free(q);
    free(hb);
    free(a);
    free(s);
    free(warm);
}
