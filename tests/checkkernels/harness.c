/*
 * The harness of checkkernels: see harness.h.
 */
#include "harness.h"

#include "cpu/kernel_choice.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* ---- randomness, failures, context ---------------------------------------------------- */
uint64_t g_seed;
static uint64_t g_rng;
unsigned long g_passed, g_failed;
static unsigned long g_printed;
int g_verbose, g_bench_min;
const char *g_family;
char g_ctx[256];
volatile size_t g_ctx_size;

void rnd_seed(uint64_t seed) {
    g_seed = g_rng = seed;
}

/* SplitMix64 (Steele, Lea, Flood 2014) through the library's own finalizer: small, fast,
 * and fully reproducible from --seed. */
uint64_t rnd(void) {
    return fl_mix64(g_rng += FL_SEED_MIX);
}

uint64_t rnd_below(uint64_t n) {
    return n ? rnd() % n : 0;
}

uint64_t special_hash(void) {
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

void set_ctx(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_ctx, sizeof g_ctx, fmt, ap);
    va_end(ap);
}

void failf(const char *fmt, ...) {
    if (g_printed++ >= 40) return; /* the first failures say it all */
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL %s seed=%" PRIu64 ": ", g_ctx, g_seed);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void record(int ok) {
    if (ok)
        g_passed++;
    else
        g_failed++;
}

void die_oom(void) {
    fprintf(stderr, "checkkernels: out of memory\n");
    exit(1);
}

int family_selected(const char *name) {
    return !g_family || strcmp(g_family, name) == 0;
}

void report_checked(const char *family) {
    if (g_verbose)
        fprintf(stderr, "checked %s: %lu passed, %lu failed so far\n", family, g_passed,
                g_failed);
}

/* A kernel read or wrote outside its buffers (guard page) or crashed: say where. */
void on_crash(int sig) {
    char buf[400];
    int len = snprintf(buf, sizeof buf, "CRASH (signal %d) %s size=%zu seed=%" PRIu64 "\n", sig,
                       g_ctx, (size_t)g_ctx_size, g_seed);
    if (len > 0) {
        ssize_t w = write(2, buf, (size_t)len < sizeof buf ? (size_t)len : sizeof buf - 1);
        (void)w;
    }
    _exit(2);
}

/* ---- the tables under test ------------------------------------------------------------- */
int kernel_overrides(const kernel *ks, size_t ki, uint32_t slot) {
    const void *fn = KERNEL_FN(&ks[ki], slot, void *);
    for (size_t j = 0; j < ki; j++)
        if (KERNEL_FN(&ks[j], slot, void *) == fn) return 0;
    return 1;
}

size_t with_candidate(const kernel *ks, size_t nk, int cand, const char *isa, kernel *out) {
    size_t m = 0;
    for (size_t ki = 0; ki < nk && m < MAX_KERNELS - 1; ki++) out[m++] = ks[ki];
    const fl_kernel_table *ct = fl_cand_table(cand);
    for (size_t ki = 1; ki < nk && ct; ki++)
        if (!strcmp(ks[ki].name, isa)) {
            out[m++] = (kernel){fl_cand_names[cand], ct, 0};
            break;
        }
    return m;
}

void print_candidate_columns(const char *family, const kernel *ks, size_t nk, size_t nk_in) {
    if (nk <= nk_in) return;
    printf("%-9s %2s %6s %-6s", family, "", "", "");
    for (size_t ki = 0; ki < nk; ki++) printf(" %17s", ki < nk_in ? "" : ks[ki].name);
    printf("\n");
}

void check_entries_present(const kernel *kn, const uint32_t *slots, size_t nslots) {
    int ok = 1;
    for (size_t i = 0; i < nslots && ok; i++) ok = KERNEL_FN(kn, slots[i], void *) != NULL;
    if (!ok) failf("table entry missing");
    record(ok);
}

void variant_info(fl_variant variant, const char *name, fl_variant_info *vi) {
    if (fl_variant_describe(variant, vi) != FL_OK) {
        fprintf(stderr, "checkkernels: no descriptor for %s\n", name);
        exit(1);
    }
}

/* ---- guarded input buffer --------------------------------------------------------------- */
static uint8_t *g_lo, *g_hi;

void gbuf_setup(void) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t data = ((POOL + 8) * 8 + 8 + page - 1) / page * page;
    uint8_t *map = mmap(NULL, data + 2 * page, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED || mprotect(map, page, PROT_NONE) ||
        mprotect(map + page + data, page, PROT_NONE))
        die_oom();
    g_lo = map + page;
    g_hi = g_lo + data;
}

/* Copies src[0..n) into the guarded buffer with byte misalignment mis (0..7), flush against
 * the end guard (at_end) or the start guard. Returns the (possibly unaligned) array. */
const uint64_t *gbuf_place(const uint64_t *src, size_t n, unsigned mis, int at_end) {
    uint8_t *p = at_end ? g_hi - 8 * n - mis : g_lo + mis;
    memcpy(p, src, 8 * n);
    return (const uint64_t *)(void *)p;
}

size_t g_sizes[128];
size_t g_nsizes;

void init_sizes(void) {
    for (size_t s = 0; s <= 4 * 16 + 17; s++) g_sizes[g_nsizes++] = s;
    static const size_t big[] = {96, 127, 128, 129, 255, 1000, 1023, 1024, 1025, 4099};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) g_sizes[g_nsizes++] = big[i];
}

/* ---- test payloads ----------------------------------------------------------------------- */
#define GUARD 64
#define GUARD_BYTE 0xa5

void tf_alloc(tfilter *t, size_t unit_bytes, uint32_t units, uint32_t k, int huge) {
    memset(t, 0, sizeof *t);
    t->unit_bytes = unit_bytes;
    t->bytes = (size_t)units * unit_bytes;
    size_t total = (t->bytes + GUARD + 63) & ~(size_t)63;
    if (huge) {
        /* Like the library: 2 MiB aligned and MADV_HUGEPAGE, so the benchmark measures the
         * kernels and not TLB misses. */
        size_t hp = (size_t)2 << 20;
        total = (total + hp - 1) & ~(hp - 1);
        uint8_t *m = mmap(NULL, total + hp, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                          -1, 0);
        if (m == MAP_FAILED) die_oom();
        uint8_t *a = (uint8_t *)(((uintptr_t)m + hp - 1) & ~(uintptr_t)(hp - 1));
        madvise(a, total, MADV_HUGEPAGE);
        t->mem = m;
        t->mapped = total + hp;
        t->v.data = a;
    } else {
        t->mem = aligned_alloc(64, total);
        if (!t->mem) die_oom();
        t->v.data = t->mem;
    }
    memset(t->v.data, 0, t->bytes);
    memset((uint8_t *)t->v.data + t->bytes, GUARD_BYTE, GUARD);
    t->v.units = units;
    t->v.k = k;
    t->v.stash = t->stash;
    t->v.stash_count = 0;
}

void tf_free(tfilter *t) {
    if (t->mapped)
        munmap(t->mem, t->mapped);
    else
        free(t->mem);
    t->mem = NULL;
}

void tf_clone(tfilter *dst, const tfilter *src) {
    tf_alloc(dst, src->unit_bytes, src->v.units, src->v.k, 0);
    memcpy(dst->v.data, src->v.data, src->bytes);
    memcpy(dst->stash, src->stash, sizeof dst->stash);
    dst->v.stash_count = src->v.stash_count;
}

int tf_guard_intact(const tfilter *t) {
    const uint8_t *g = (const uint8_t *)t->v.data + t->bytes;
    for (int i = 0; i < GUARD; i++)
        if (g[i] != GUARD_BYTE) return 0;
    return 1;
}

const char *const FILL[FILL_COUNT] = {"empty", "half", "full"};

void make_queries(uint64_t *q, size_t nq, const uint64_t *pos, size_t npos) {
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

/* ---- the batch lookup check, shared by every filter module --------------------------------- */
#define CANARY 32
#define CANARY_BYTE 0x5a
static uint8_t g_out[POOL + 2 * CANARY + 8], g_ref[POOL];

int check_contains(fl_contains_fn fn, fl_contains_fn rf, tfilter *t, const uint64_t *q) {
    for (size_t si = 0; si < g_nsizes; si++) {
        size_t n = g_sizes[si];
        size_t start = rnd_below(POOL - n + 1);
        unsigned mis = (unsigned)rnd_below(8), omis = (unsigned)rnd_below(8);
        const uint64_t *in = gbuf_place(q + start, n, mis, (int)(si & 1));
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
                failf("contains size=%zu wrote past out[n] (out[%zu])", n, i - (CANARY + omis));
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

int check_u64_kernel(const char *what, fl_hash_u64_fn fn, fl_hash_u64_fn ref, const uint64_t *q,
                     uint64_t odd_seed, size_t end_bit) {
    static uint64_t want[1000];
    static unsigned char got[8 * 1000 + 64];
    for (size_t n = 0; n <= 1000; n = n < 70 ? n + 1 : 1000) {
        unsigned mis = (unsigned)rnd_below(8);
        uint64_t seed = (odd_seed && (n & 1)) ? odd_seed : rnd();
        const uint64_t *in = gbuf_place(q, n, mis, (int)(n & end_bit));
        ref(in, n, seed, want);
        memset(got, CANARY_BYTE, sizeof got);
        fn(in, n, seed, (uint64_t *)(void *)(got + mis));
        for (size_t i = 0; i < n; i++) {
            uint64_t g;
            memcpy(&g, got + mis + 8 * i, 8);
            if (g != want[i]) {
                failf("%s n=%zu index %zu: got %016" PRIx64 " want %016" PRIx64, what, n, i, g,
                      want[i]);
                return 0;
            }
        }
        for (size_t i = mis + 8 * n; i < sizeof got; i++)
            if (got[i] != CANARY_BYTE) {
                failf("%s n=%zu wrote past out[n]", what, n);
                return 0;
            }
        if (n == 1000) break;
    }
    return 1;
}

/* ---- filter geometries ---------------------------------------------------------------------- */
static const uint32_t SMALL_UNITS[GEOMETRIES - 1] = {1, 2, 3, 7, 64, 1001};

int geometry_big(size_t gi) {
    return gi + 1 == GEOMETRIES;
}

uint32_t geometry_units(size_t gi, size_t unit_bytes) {
    return geometry_big(gi) ? (uint32_t)(((size_t)4 << 20) / unit_bytes) + 3 : SMALL_UNITS[gi];
}

int insert_batch(fl_insert_fn fn, fl_insert_fn ref, tfilter *a, tfilter *b, const uint64_t *q,
                 size_t si, size_t *start, const uint64_t **in) {
    size_t n = g_sizes[si], at = rnd_below(POOL - n + 1);
    const uint64_t *keys = gbuf_place(q + at, n, (unsigned)rnd_below(8), (int)(si & 1));
    if (start) *start = at;
    if (in) *in = keys;
    g_ctx_size = n;
    ref(&a->v, keys, n);
    fn(&b->v, keys, n);
    if (tf_guard_intact(b)) return 1;
    failf("insert size=%zu wrote past the payload", n);
    return 0;
}

int check_one_key(const fl_lookup *l, fl_contains_fn ref, tfilter *t, const uint64_t *q) {
    uint8_t want[POOL];
    ref(&t->v, q, POOL, want);
    for (size_t i = 0; i < POOL; i++) {
        int entry = l->probe(l->data, l->units, l->k, q[i]);
        int inl = fl_lookup_hash(l, q[i]);
        if (entry != want[i] || inl != want[i]) {
            failf("one key hash=%016" PRIx64 " (query %zu): contains1 %d, fl_lookup_hash %d, "
                  "want %d", q[i], i, entry, inl, want[i]);
            return 0;
        }
    }
    return 1;
}

/* ---- benchmark helpers ---------------------------------------------------------------------- */
volatile size_t g_sink;

double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double pick_rep(double *r, size_t n) {
    qsort(r, n, sizeof r[0], cmp_double);
    return g_bench_min ? r[0] : r[n / 2];
}

double bench_contains_pass(fl_contains_fn fn, tfilter *t, const uint64_t *q, size_t nq,
                           uint8_t *out) {
    size_t sum = 0;
    double t0 = now_ns();
    for (size_t i = 0; i < nq; i += BENCH_BATCH) sum += fn(&t->v, q + i, BENCH_BATCH, out + i);
    double dt = now_ns() - t0;
    g_sink += sum;
    return dt / (double)nq;
}

void bench_contains_reps(const kernel *ks, size_t nk, uint32_t slot, tfilter *t,
                         const uint64_t *q, size_t nq, uint8_t *out, double r[][BENCH_REPS]) {
    for (int rep = -1; rep < BENCH_REPS; rep++)
        for (size_t ki = 0; ki < nk; ki++) {
            double ns = bench_contains_pass(KERNEL_FN(&ks[ki], slot, fl_contains_fn), t, q, nq, out);
            if (rep >= 0) r[ki][rep] = ns;
        }
}

void print_bench_row(const kernel *ks, size_t nk, const char *family, uint32_t k, size_t mib,
                     const char *op, uint32_t slot, double r[][BENCH_REPS]) {
    char fbuf[16];
    snprintf(fbuf, sizeof fbuf, "%zuMiB", mib);
    printf("%-9s %2u %6s %-6s", family, k, fbuf, op);
    double ref = 0;
    for (size_t ki = 0; ki < nk; ki++) {
        double ns = pick_rep(r[ki], BENCH_REPS);
        if (ki == 0) ref = ns;
        int same = ki > 0 && KERNEL_FN(&ks[ki], slot, void *) ==
                                 KERNEL_FN(&ks[0], slot, void *);
        char cell[32];
        snprintf(cell, sizeof cell, "%.2f (%.1fx)%s", ns, ref / ns, same ? "=" : " ");
        printf(" %17s", cell);
    }
    printf("\n");
    fflush(stdout);
}
