/*
 * checkkernels: every compiled kernel this CPU can run, checked against the scalar reference
 * (table 0), in the spirit of dav1d's tests/checkasm: random and adversarial inputs, canaries
 * around outputs, guard pages around inputs, byte-for-byte comparison, and an optional
 * --bench that prints ns per key and the ratio to scalar.
 *
 *   checkkernels [--seed N] [--kernel NAME] [--family NAME] [--bench] [--bench-only] [--min]
 *                [--verbose]
 *
 * --min reports the fastest rep instead of the median: on a machine shared with other
 * CPU-bound work the fastest rep is the one that was not preempted.
 *
 * Filters are built by hand through fl_kview (payload words, cuckoo fingerprints and stash
 * entries written directly), so every fill level, including saturated and stash-carrying
 * cuckoo tables, is reachable in a few milliseconds and the checker depends only on the
 * kernel table, not on the filter code above it.
 *
 * Last line: "checkkernels: N passed, M failed". Exit status 1 if anything failed.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "filterlab.h"
#include "internal.h"
#include "probe.h"

/* ---- randomness, failures, context ----------------------------------------------------- */

static uint64_t g_rng;
/* SplitMix64 (Steele, Lea, Flood 2014): small, fast, and fully reproducible from --seed. */
static uint64_t rnd(void) {
    uint64_t z = (g_rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static uint64_t rnd_below(uint64_t n) {
    return n ? rnd() % n : 0;
}

static uint64_t g_seed;
static unsigned long g_passed, g_failed, g_printed;
static int g_verbose;
static const char *g_family; /* --family: only this one */
static int g_bench_min;       /* --min: fastest rep instead of the median */
/* What is being tested, for failure lines and for the crash handler. */
static char g_ctx[256];
static volatile size_t g_ctx_size;

static void failf(const char *fmt, ...) {
    if (g_printed++ >= 40) return; /* the first failures say it all */
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL %s seed=%" PRIu64 ": ", g_ctx, g_seed);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void on_crash(int sig) {
    /* A kernel read or wrote outside its buffers (guard page) or crashed: say where. */
    char buf[400];
    int len = snprintf(buf, sizeof buf, "CRASH (signal %d) %s size=%zu seed=%" PRIu64 "\n", sig,
                       g_ctx, (size_t)g_ctx_size, g_seed);
    if (len > 0) {
        ssize_t w = write(2, buf, (size_t)len < sizeof buf ? (size_t)len : sizeof buf - 1);
        (void)w;
    }
    _exit(2);
}

/* ---- families ----------------------------------------------------------------------------- */

static const char *const FAMILY[FL_K_COUNT] = {"classic", "block512", "split256",
                                               "reg64",   "cuckoo8",  "cuckoo16"};

static size_t unit_bytes(fl_kfamily fam) {
    switch (fam) {
    case FL_K_CLASSIC: return 8;
    case FL_K_BLOCK512: return 64;
    case FL_K_SPLIT256: return 32;
    case FL_K_REG64: return 8;
    case FL_K_CUCKOO8: return 4;
    default: return 8;
    }
}
static int is_cuckoo(fl_kfamily fam) {
    return fam == FL_K_CUCKOO8 || fam == FL_K_CUCKOO16;
}
static fl_variant variant_of(fl_kfamily fam) {
    static const fl_variant v[FL_K_COUNT] = {FL_CLASSIC, FL_BLOCK512, FL_SPLIT256,
                                             FL_REG64,   FL_CUCKOO,   FL_CUCKOO};
    return v[fam];
}

/* ---- test filters: a payload with a guard zone after it --------------------------------- */

#define GUARD 64
#define GUARD_BYTE 0xa5

typedef struct tfilter {
    fl_kview v;
    fl_kfamily fam;
    size_t bytes;
    void *mem;
    size_t mapped; /* 0: aligned_alloc'ed */
    fl_stash_entry stash[FL_STASH_MAX];
} tfilter;

static int tf_alloc(tfilter *t, fl_kfamily fam, uint32_t units, uint32_t k, int huge) {
    memset(t, 0, sizeof *t);
    t->fam = fam;
    t->bytes = (size_t)units * unit_bytes(fam);
    size_t total = (t->bytes + GUARD + 63) & ~(size_t)63;
    if (huge) {
        /* Like the library: 2 MiB aligned and MADV_HUGEPAGE, so the benchmark measures the
         * kernels and not TLB misses. */
        size_t hp = (size_t)2 << 20;
        total = (total + hp - 1) & ~(hp - 1);
        uint8_t *m = mmap(NULL, total + hp, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                          -1, 0);
        if (m == MAP_FAILED) return -1;
        uint8_t *a = (uint8_t *)(((uintptr_t)m + hp - 1) & ~(uintptr_t)(hp - 1));
        madvise(a, total, MADV_HUGEPAGE);
        t->mem = m;
        t->mapped = total + hp;
        t->v.data = a;
    } else {
        t->mem = aligned_alloc(64, total);
        if (!t->mem) return -1;
        t->v.data = t->mem;
    }
    memset(t->v.data, 0, t->bytes);
    memset((uint8_t *)t->v.data + t->bytes, GUARD_BYTE, GUARD);
    t->v.units = units;
    t->v.k = k;
    t->v.stash = t->stash;
    t->v.stash_count = 0;
    return 0;
}

static void tf_free(tfilter *t) {
    if (t->mapped)
        munmap(t->mem, t->mapped);
    else
        free(t->mem);
    t->mem = NULL;
}

static int tf_clone(tfilter *dst, const tfilter *src) {
    if (tf_alloc(dst, src->fam, src->v.units, src->v.k, 0)) return -1;
    memcpy(dst->v.data, src->v.data, src->bytes);
    memcpy(dst->stash, src->stash, sizeof dst->stash);
    dst->v.stash_count = src->v.stash_count;
    return 0;
}

static int guard_intact(const tfilter *t) {
    const uint8_t *g = (const uint8_t *)t->v.data + t->bytes;
    for (int i = 0; i < GUARD; i++)
        if (g[i] != GUARD_BYTE) return 0;
    return 1;
}

/* ---- hashes -------------------------------------------------------------------------------- */

/* Hashes at the edges of every reduction: zero and all-ones halves (first / last unit,
 * smallest / largest fingerprint), sign bits, and single bits. */
static uint64_t special_hash(void) {
    static const uint64_t fixed[] = {
        0, UINT64_MAX, 0xffffffff00000000ull, 0x00000000ffffffffull, 0x8000000000000000ull,
        0x0000000080000000ull, 0x8000000080000000ull, 0x7fffffff7fffffffull, 1, 0x100000000ull,
    };
    uint64_t r = rnd();
    switch (rnd_below(5)) {
    case 0: return fixed[rnd_below(sizeof fixed / sizeof fixed[0])];
    case 1: return r | 0xffffffff00000000ull;   /* last unit */
    case 2: return r & 0x00000000ffffffffull;   /* first unit */
    case 3: return r & 0xffffffff00000000ull;   /* h32 = 0: smallest fp, every salt product 0 */
    default: return r | 0x00000000ffffffffull;  /* h32 = ~0: largest fp */
    }
}

/* ---- filling ------------------------------------------------------------------------------ */

enum { FILL_EMPTY, FILL_HALF, FILL_FULL, FILL_COUNT };
static const char *const FILL[FILL_COUNT] = {"empty", "half", "full"};

/* Bloom: payload words, then the positive keys inserted with the scalar reference.
 * Cuckoo: random fingerprints in the slots (none, half, all), then each positive key's
 * fingerprint written into a random slot of one of its two buckets, then (with_stash) a
 * stash of 1..8 entries, some holding keys whose fingerprints were removed from their
 * buckets so only the stash can answer for them. Fills pos[0..npos) with positives. */
static void tf_fill(tfilter *t, int fill, int with_stash, uint64_t *pos, size_t npos) {
    fl_kview *v = &t->v;
    for (size_t i = 0; i < npos; i++) pos[i] = rnd();
    if (!is_cuckoo(t->fam)) {
        uint64_t *w = (uint64_t *)v->data;
        size_t nw = t->bytes / 8;
        for (size_t i = 0; i < nw; i++)
            w[i] = fill == FILL_EMPTY ? 0 : fill == FILL_FULL ? UINT64_MAX : rnd();
        if (fill != FILL_EMPTY) {
            fl_kernel_table ref;
            fl_kernels_init_scalar(&ref);
            ref.insert[t->fam](v, pos, npos);
        }
        return;
    }
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
    if (with_stash) {
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
}

/* Query pool: about half positives (with their stash share), the rest random or special. */
static void make_queries(uint64_t *q, size_t nq, const uint64_t *pos, size_t npos) {
    for (size_t i = 0; i < nq; i++) {
        uint64_t r = rnd_below(16);
        if (r < 8 && npos)
            q[i] = pos[rnd_below(npos)];
        else if (r < 11)
            q[i] = special_hash();
        else
            q[i] = rnd();
    }
}

/* ---- guarded input buffer --------------------------------------------------------------- */

/* Hashes are placed flush against a PROT_NONE page, after it or before it, at every
 * misalignment: a kernel reading one vector past either end of hashes[0..n) faults. */
typedef struct gbuf {
    uint8_t *map, *lo, *hi;
    size_t mapped;
} gbuf;

static int gbuf_init(gbuf *g, size_t bytes) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t data = (bytes + 8 + page - 1) / page * page;
    g->mapped = data + 2 * page;
    g->map = mmap(NULL, g->mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->map == MAP_FAILED) return -1;
    if (mprotect(g->map, page, PROT_NONE) || mprotect(g->map + page + data, page, PROT_NONE))
        return -1;
    g->lo = g->map + page;
    g->hi = g->lo + data;
    return 0;
}

/* Copies src[0..n) into the guarded buffer with byte misalignment mis (0..7), flush against
 * the end guard (at_end) or the start guard. Returns the (possibly unaligned) array. */
static const uint64_t *gbuf_place(gbuf *g, const uint64_t *src, size_t n, unsigned mis,
                                  int at_end) {
    uint8_t *p = at_end ? g->hi - 8 * n - mis : g->lo + mis;
    memcpy(p, src, 8 * n);
    return (const uint64_t *)(void *)p;
}

/* ---- the checks ------------------------------------------------------------------------- */

#define POOL 4099
#define CANARY 32
#define CANARY_BYTE 0x5a

/* Batch sizes: every size through four 16-key vectors plus tails, then larger ones. */
static size_t g_sizes[128];
static size_t g_nsizes;

static void init_sizes(void) {
    for (size_t s = 0; s <= 4 * 16 + 17; s++) g_sizes[g_nsizes++] = s;
    static const size_t big[] = {96, 127, 128, 129, 255, 1000, 1023, 1024, 1025, 4099};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) g_sizes[g_nsizes++] = big[i];
}

typedef struct kernel {
    const char *name;
    const fl_kernel_table *t;
    int emulated;
} kernel;

static gbuf g_in;
static uint8_t g_out[POOL + 2 * CANARY + 8], g_ref[POOL];

/* One contains kernel on one filter, every batch size. Returns 1 if all matched. */
static int check_contains(const kernel *kn, const kernel *ref, tfilter *t, const uint64_t *q) {
    fl_contains_fn fn = kn->t->contains[t->fam], rf = ref->t->contains[t->fam];
    for (size_t si = 0; si < g_nsizes; si++) {
        size_t n = g_sizes[si];
        size_t start = rnd_below(POOL - n + 1);
        unsigned mis = (unsigned)rnd_below(8), omis = (unsigned)rnd_below(8);
        const uint64_t *in = gbuf_place(&g_in, q + start, n, mis, (int)(si & 1));
        size_t want = rf(&t->v, in, n, g_ref);
        uint8_t *out = g_out + CANARY + omis;
        memset(g_out, CANARY_BYTE, sizeof g_out);
        g_ctx_size = n;
        size_t got = fn(&t->v, in, n, out);
        for (size_t i = 0; i < CANARY + omis; i++)
            if (g_out[i] != CANARY_BYTE) {
                failf("contains size=%zu wrote before out[0] (byte %zd)", n,
                      (ptrdiff_t)i - (ptrdiff_t)(CANARY + omis));
                return 0;
            }
        for (size_t i = CANARY + omis + n; i < sizeof g_out; i++)
            if (g_out[i] != CANARY_BYTE) {
                failf("contains size=%zu wrote past out[n] (out[%zu])", n,
                      i - (CANARY + omis));
                return 0;
            }
        for (size_t i = 0; i < n; i++)
            if (out[i] != g_ref[i]) {
                failf("contains size=%zu first difference at index %zu: hash=%016" PRIx64
                      " got %u want %u",
                      n, i, q[start + i], out[i], g_ref[i]);
                return 0;
            }
        if (got != want) {
            failf("contains size=%zu returned %zu positives, scalar %zu", n, got, want);
            return 0;
        }
    }
    return 1;
}

/* One key on every query of the pool against the scalar batch answer: the kernel's one-key
 * entry (Bloom families) and the header-inline lookup of filterlab_inline.h with that entry
 * as its probe (cuckoo families: the in-line SSE2/NEON/SWAR probe, stash included). */
static int check_contains1(const kernel *kn, const kernel *ref, tfilter *t, const uint64_t *q) {
    const fl_kview *v = &t->v;
    fl_lookup l = {.variant = variant_of(t->fam), .data = v->data, .units = v->units, .k = v->k,
                   .probe = kn->t->contains1[t->fam]};
    l.split256 = (fl_split256_lookup){.blocks = v->data, .units = v->units, .probe = l.probe};
    if (is_cuckoo(t->fam))
        l.cuckoo = (fl_cuckoo_lookup){.buckets = v->data, .units = v->units, .fp_bits = v->k,
                                      .fp_range = (1u << v->k) - 1u, .stash = v->stash,
                                      .stash_count = &v->stash_count};
    uint8_t want[POOL];
    ref->t->contains[t->fam](&t->v, q, POOL, want);
    for (size_t i = 0; i < POOL; i++) {
        int entry = is_cuckoo(t->fam) ? want[i] : l.probe(l.data, l.units, l.k, q[i]);
        int inl = fl_lookup_hash(&l, q[i]);
        if (entry != want[i] || inl != want[i]) {
            failf("one key hash=%016" PRIx64 " (query %zu): contains1 %d, fl_lookup_hash %d, "
                  "want %d", q[i], i, entry, inl, want[i]);
            return 0;
        }
    }
    return 1;
}

/* The integer-key hash kernel vs scalar: every length up to 70 and 1000, every input
 * misalignment, canaries after the output. */
static int check_hash_u64(const kernel *kn, const kernel *ref, const uint64_t *q) {
    static uint64_t want[1000];
    static unsigned char got[8 * 1000 + 64];
    for (size_t n = 0; n <= 1000; n = n < 70 ? n + 1 : 1000) {
        unsigned mis = (unsigned)rnd_below(8);
        uint64_t seed = rnd();
        const uint64_t *in = gbuf_place(&g_in, q, n, mis, (int)(n & 1));
        ref->t->hash_u64(in, n, seed, want);
        memset(got, CANARY_BYTE, sizeof got);
        kn->t->hash_u64(in, n, seed, (uint64_t *)(void *)(got + mis));
        for (size_t i = 0; i < n; i++) {
            uint64_t g;
            memcpy(&g, got + mis + 8 * i, 8);
            if (g != want[i]) {
                failf("hash_u64 n=%zu index %zu: got %016" PRIx64 " want %016" PRIx64, n, i, g,
                      want[i]);
                return 0;
            }
        }
        for (size_t i = mis + 8 * n; i < sizeof got; i++)
            if (got[i] != CANARY_BYTE) {
                failf("hash_u64 n=%zu wrote past out[n]", n);
                return 0;
            }
        if (n == 1000) break;
    }
    return 1;
}

/* One insert kernel vs scalar insert on two copies of the same filter: payloads word for word
 * after each batch, the guard zone, and no false negatives for what was inserted. */
static int check_insert(const kernel *kn, const kernel *ref, const tfilter *base,
                        const uint64_t *q, int big) {
    fl_insert_fn fn = kn->t->insert[base->fam], rf = ref->t->insert[base->fam];
    fl_contains_fn cn = kn->t->contains[base->fam];
    tfilter a, b;
    int ok = 1;
    if (tf_clone(&a, base) || tf_clone(&b, base)) {
        fprintf(stderr, "checkkernels: out of memory\n");
        exit(1);
    }
    for (size_t si = 0; si < g_nsizes && ok; si++) {
        size_t n = g_sizes[si];
        /* On multi-MiB payloads compare only at the end, except for the larger batches. */
        if (big && n > 20 && n < 1000 && n != 96) continue;
        size_t start = rnd_below(POOL - n + 1);
        const uint64_t *in = gbuf_place(&g_in, q + start, n, (unsigned)rnd_below(8), (int)(si & 1));
        g_ctx_size = n;
        rf(&a.v, in, n);
        fn(&b.v, in, n);
        if (!guard_intact(&b)) {
            failf("insert size=%zu wrote past the payload", n);
            ok = 0;
            break;
        }
        if (!big || si + 1 == g_nsizes) {
            const uint64_t *wa = (const uint64_t *)a.v.data, *wb = (const uint64_t *)b.v.data;
            for (size_t w = 0; w < base->bytes / 8; w++)
                if (wa[w] != wb[w]) {
                    failf("insert size=%zu payload word %zu (unit %zu): got %016" PRIx64
                          " want %016" PRIx64,
                          n, w, w * 8 / unit_bytes(base->fam), wb[w], wa[w]);
                    ok = 0;
                    break;
                }
        }
        if (ok && n) {
            size_t got = cn(&b.v, in, n, g_ref);
            for (size_t i = 0; i < n; i++)
                if (g_ref[i] != 1) {
                    failf("insert size=%zu: key %zu (hash %016" PRIx64
                          ") not found after its insert",
                          n, i, q[start + i]);
                    ok = 0;
                    break;
                }
            if (ok && got != n) {
                failf("insert size=%zu: contains counted %zu of %zu", n, got, n);
                ok = 0;
            }
        }
    }
    tf_free(&a);
    tf_free(&b);
    return ok;
}

static void record(int ok) {
    if (ok)
        g_passed++;
    else
        g_failed++;
}

/* Every kernel, family, geometry, k and fill level. */
static void run_checks(const kernel *ks, size_t nk) {
    static const uint32_t small_units[] = {1, 2, 3, 7, 64, 1001};
    uint64_t *q = malloc(POOL * sizeof *q), *pos = malloc(POOL * sizeof *pos);
    if (!q || !pos || gbuf_init(&g_in, (POOL + 8) * 8)) {
        fprintf(stderr, "checkkernels: out of memory\n");
        exit(1);
    }
    for (int fam = 0; fam < FL_K_COUNT; fam++) {
        if (g_family && strcmp(g_family, FAMILY[fam])) continue;
        int ck = is_cuckoo((fl_kfamily)fam);
        uint32_t kmin = 1, kmax = 16;
        if (fam == FL_K_SPLIT256 || fam == FL_K_CUCKOO8) kmin = kmax = 8;
        if (fam == FL_K_CUCKOO16) kmin = kmax = 16;
        size_t ngeo = sizeof small_units / sizeof small_units[0] + 1;
        for (size_t gi = 0; gi < ngeo; gi++) {
            int big = gi + 1 == ngeo;
            /* big: about 4 MiB and an odd unit count, above every kernel's prefetch
             * threshold, so the prefetching loops are checked too. */
            uint32_t units = big ? (uint32_t)(((size_t)4 << 20) / unit_bytes((fl_kfamily)fam)) + 3
                                 : small_units[gi];
            for (uint32_t k = kmin; k <= kmax; k++) {
                if (big && !(k <= 2 || k == 7 || k == 8 || k == 9 || k == 16)) continue;
                for (int fill = 0; fill < FILL_COUNT; fill++) {
                    for (int stash = 0; stash <= ck; stash++) {
                        tfilter t;
                        if (tf_alloc(&t, (fl_kfamily)fam, units, k, 0)) {
                            fprintf(stderr, "checkkernels: out of memory\n");
                            exit(1);
                        }
                        /* Fewer positives than bits, or a small filter is all ones. */
                        size_t npos = ck ? (size_t)units * 2 : t.bytes * 8 / (4 * k);
                        if (npos > POOL) npos = POOL;
                        if (npos == 0) npos = 1;
                        tf_fill(&t, fill, stash, pos, npos);
                        make_queries(q, POOL, pos, npos);
                        for (size_t ki = 1; ki < nk; ki++) {
                            snprintf(g_ctx, sizeof g_ctx,
                                     "kernel=%s family=%s k=%u units=%u fill=%s%s", ks[ki].name,
                                     FAMILY[fam], k, units, FILL[fill],
                                     stash ? " stash=yes" : "");
                            record(check_contains(&ks[ki], &ks[0], &t, q));
                            record(check_contains1(&ks[ki], &ks[0], &t, q));
                            if (!ck && ks[ki].t->insert[fam] && fill != FILL_FULL) {
                                snprintf(g_ctx, sizeof g_ctx,
                                         "kernel=%s family=%s insert k=%u units=%u fill=%s",
                                         ks[ki].name, FAMILY[fam], k, units, FILL[fill]);
                                record(check_insert(&ks[ki], &ks[0], &t, q, big));
                            }
                        }
                        tf_free(&t);
                    }
                }
            }
        }
        if (g_verbose)
            fprintf(stderr, "checked %s: %lu passed, %lu failed so far\n", FAMILY[fam],
                    g_passed, g_failed);
    }
    for (size_t ki = 1; ki < nk; ki++) {
        snprintf(g_ctx, sizeof g_ctx, "kernel=%s hash_u64", ks[ki].name);
        record(check_hash_u64(&ks[ki], &ks[0], q));
    }
    /* The table itself: every lookup present, inserts and one-key entries exactly for the
     * Bloom families. */
    for (size_t ki = 0; ki < nk; ki++)
        for (int fam = 0; fam < FL_K_COUNT; fam++) {
            snprintf(g_ctx, sizeof g_ctx, "kernel=%s family=%s table", ks[ki].name, FAMILY[fam]);
            int cuckoo = is_cuckoo((fl_kfamily)fam) != 0;
            int ok = ks[ki].t->contains[fam] != NULL && ks[ki].t->hash_u64 != NULL &&
                     (ks[ki].t->insert[fam] == NULL) == cuckoo &&
                     (ks[ki].t->contains1[fam] == NULL) == cuckoo;
            if (!ok) failf("table entry missing or unexpected");
            record(ok);
        }
    free(q);
    free(pos);
}

/* ---- benchmark ------------------------------------------------------------------------- */

#define BATCH 1024
#define REPS 7

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static volatile size_t g_sink;

/* ns per key of one pass of contains (insert = 0) or insert over the query set in batches. */
static double bench_pass(const fl_kernel_table *kt, tfilter *t, const uint64_t *q, size_t nq,
                         uint8_t *out, int insert) {
    size_t sum = 0;
    double t0 = now_ns();
    for (size_t i = 0; i < nq; i += BATCH) {
        if (insert)
            kt->insert[t->fam](&t->v, q + i, BATCH);
        else
            sum += kt->contains[t->fam](&t->v, q + i, BATCH, out + i);
    }
    double dt = now_ns() - t0;
    g_sink += sum;
    return dt / (double)nq;
}

/* Random cache-line reads with prefetching, the memory-bound floor for one-line probes. */
static double bench_lines(tfilter *t, const uint64_t *q, size_t nq) {
    const uint8_t *base = t->v.data;
    size_t lines = t->bytes / 64;
    double r[REPS];
    for (int rep = -1; rep < REPS; rep++) {
        uint64_t sum = 0;
        double t0 = now_ns();
        for (size_t i = 0; i < nq; i++) {
            if (i + 32 < nq) __builtin_prefetch(base + 64 * fl_reduce32((uint32_t)(q[i + 32] >> 32), (uint32_t)lines));
            uint64_t w;
            memcpy(&w, base + 64 * fl_reduce32((uint32_t)(q[i] >> 32), (uint32_t)lines), 8);
            sum += w;
        }
        double dt = now_ns() - t0;
        g_sink += (size_t)sum;
        if (rep >= 0) r[rep] = dt / (double)nq;
    }
    qsort(r, REPS, sizeof r[0], cmp_double);
    return g_bench_min ? r[0] : r[REPS / 2];
}

static void run_bench(const kernel *ks, size_t nk) {
    static const size_t mib[] = {1, 64};
    static const uint32_t bench_k[FL_K_COUNT] = {7, 8, 8, 6, 8, 16};
    const size_t nq = (size_t)1 << 19;
    uint64_t *q = malloc(nq * sizeof *q);
    uint64_t *pos = malloc(nq / 2 * sizeof *pos);
    uint8_t *out = malloc(nq);
    if (!q || !pos || !out) {
        fprintf(stderr, "checkkernels: out of memory\n");
        exit(1);
    }
    printf("\nbench: ns per key (ratio to scalar), pre-hashed keys, batch %d, 50%% positive, "
           "%s of %d reps of %zu keys\n",
           BATCH, g_bench_min ? "fastest" : "median", REPS, nq);
    printf("%-9s %2s %6s %-6s", "family", "k", "filter", "op");
    for (size_t ki = 0; ki < nk; ki++)
        printf(" %17s", ks[ki].emulated ? "neon(emulated)" : ks[ki].name);
    printf("\n");
    for (size_t mi = 0; mi < sizeof mib / sizeof mib[0]; mi++) {
        for (int fam = 0; fam < FL_K_COUNT; fam++) {
            if (g_family && strcmp(g_family, FAMILY[fam])) continue;
            tfilter t;
            uint32_t units = (uint32_t)((mib[mi] << 20) / unit_bytes((fl_kfamily)fam));
            if (tf_alloc(&t, (fl_kfamily)fam, units, bench_k[fam], 1)) {
                fprintf(stderr, "checkkernels: out of memory\n");
                exit(1);
            }
            /* Loaded like a real filter: Bloom payloads about half ones, cuckoo tables 95%
             * occupied; then the positives go in. Queries alternate randomly. */
            if (is_cuckoo((fl_kfamily)fam)) {
                uint32_t fpmax = (1u << t.v.k) - 1u;
                for (uint32_t b = 0; b < units; b++)
                    for (int s = 0; s < FL_CUCKOO_SLOTS; s++)
                        fl_cuckoo_set(t.v.data, t.v.k, b, s,
                                      rnd_below(100) < 95 ? 1 + (uint32_t)rnd_below(fpmax) : 0);
                for (size_t i = 0; i < nq / 2; i++) {
                    pos[i] = rnd();
                    uint32_t fp = fl_cuckoo_fp(pos[i], t.v.k);
                    fl_cuckoo_set(t.v.data, t.v.k, fl_cuckoo_bucket(pos[i], units),
                                  (int)rnd_below(4), fp);
                }
            } else {
                uint64_t *w = t.v.data;
                for (size_t i = 0; i < t.bytes / 8; i++) w[i] = rnd();
                for (size_t i = 0; i < nq / 2; i++) pos[i] = rnd();
                ks[0].t->insert[fam](&t.v, pos, nq / 2);
            }
            for (size_t i = 0; i < nq; i++) q[i] = (rnd() & 1) ? pos[rnd_below(nq / 2)] : rnd();

            for (int op = 0; op < 2; op++) {
                if (op == 1 && is_cuckoo((fl_kfamily)fam)) break;
                /* Inserts: each kernel on its own copy, so all start from the same payload
                 * (later reps re-insert the same keys: the same memory traffic). */
                tfilter copy[16];
                for (size_t ki = 0; op == 1 && ki < nk; ki++) {
                    if (tf_alloc(&copy[ki], t.fam, t.v.units, t.v.k, 1)) {
                        fprintf(stderr, "checkkernels: out of memory\n");
                        exit(1);
                    }
                    memcpy(copy[ki].v.data, t.v.data, t.bytes);
                }
                /* Each rep runs every kernel back to back, so noise from other processes
                 * on a shared machine hits all of them alike; the median rep is reported. */
                double r[16][REPS];
                for (int rep = -1; rep < REPS; rep++)
                    for (size_t ki = 0; ki < nk; ki++) {
                        double ns = bench_pass(ks[ki].t, op ? &copy[ki] : &t, q, nq, out, op);
                        if (rep >= 0) r[ki][rep] = ns;
                    }
                for (size_t ki = 0; op == 1 && ki < nk; ki++) tf_free(&copy[ki]);
                char fbuf[16];
                snprintf(fbuf, sizeof fbuf, "%zuMiB", mib[mi]);
                printf("%-9s %2u %6s %-6s", FAMILY[fam], t.v.k, fbuf, op ? "insert" : "lookup");
                double ref = 0;
                for (size_t ki = 0; ki < nk; ki++) {
                    qsort(r[ki], REPS, sizeof r[ki][0], cmp_double);
                    double ns = g_bench_min ? r[ki][0] : r[ki][REPS / 2];
                    if (ki == 0) ref = ns;
                    int same = ki > 0 && (op ? ks[ki].t->insert[fam] == ks[0].t->insert[fam]
                                             : ks[ki].t->contains[fam] == ks[0].t->contains[fam]);
                    char cell[32];
                    snprintf(cell, sizeof cell, "%.2f (%.1fx)%s", ns, ref / ns, same ? "=" : " ");
                    printf(" %17s", cell);
                }
                printf("\n");
                fflush(stdout);
            }
            if (fam == FL_K_BLOCK512)
                printf("%-9s %2s %4zuMiB %-6s %11.2f ns/line\n", "lines", "", mib[mi], "read",
                       bench_lines(&t, q, nq));
            tf_free(&t);
        }
    }
    printf("('=' marks a table entry that is the scalar function itself)\n");
    free(q);
    free(pos);
    free(out);
}

/* ---- main ---------------------------------------------------------------------------------- */

static void usage(void) {
    fprintf(stderr, "usage: checkkernels [--seed N] [--kernel NAME] [--family NAME] [--bench] "
                    "[--bench-only] [--min] [--verbose]\n");
}

int main(int argc, char **argv) {
    int bench = 0, checks = 1;
    const char *only = NULL;
    g_seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            g_seed = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--kernel") && i + 1 < argc) {
            only = argv[++i];
        } else if (!strcmp(argv[i], "--family") && i + 1 < argc) {
            g_family = argv[++i];
        } else if (!strcmp(argv[i], "--min")) {
            g_bench_min = 1;
        } else if (!strcmp(argv[i], "--bench")) {
            bench = 1;
        } else if (!strcmp(argv[i], "--bench-only")) {
            bench = 1;
            checks = 0;
        } else if (!strcmp(argv[i], "--verbose")) {
            g_verbose = 1;
        } else {
            usage();
            return 2;
        }
    }
    g_rng = g_seed;
    printf("checkkernels: seed %" PRIu64 " (rerun with --seed %" PRIu64 ")\n", g_seed, g_seed);

    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    signal(SIGILL, on_crash);

    kernel ks[16];
    size_t nk = 0, count = fl_kernel_count();
    for (size_t i = 0; i < count && nk < 16; i++) {
        fl_kernel_desc d;
        if (fl_kernel_describe(i, &d) != FL_OK) continue;
        const fl_kernel_table *t = fl_kernel_table_at(i);
        if (i == 0 && (!t || strcmp(d.name, "scalar"))) {
            fprintf(stderr, "checkkernels: table 0 is not the scalar reference\n");
            return 1;
        }
        if (!t || !d.supported) {
            printf("  %-8s skipped: this CPU/OS cannot run it (needs %s)\n", d.name,
                   d.requires ? d.requires : "?");
            continue;
        }
        if (i > 0 && only && strcmp(only, d.name)) continue;
        printf("  %-8s %s%s\n", d.name, i == 0 ? "reference" : "checked",
               d.emulated ? " (emulated)" : "");
        ks[nk].name = d.name;
        ks[nk].t = t;
        ks[nk].emulated = d.emulated;
        nk++;
    }
    if (nk == 0) {
        fprintf(stderr, "checkkernels: no scalar kernel table\n");
        return 1;
    }
    init_sizes();
    if (checks) run_checks(ks, nk);
    if (bench) run_bench(ks, nk);
    printf("checkkernels: %lu passed, %lu failed\n", g_passed, g_failed);
    return g_failed ? 1 : 0;
}
