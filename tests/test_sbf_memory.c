/*
 * A scalable chain's memory (include/filterlab_sbf.h): what fl_sbf_memory reports, and what a
 * load's cap lets it allocate later.
 *
 * The library's allocation calls are wrapped (-Wl,--wrap, tests/meson.build): while tracking,
 * every request is recorded with its size, and the blocks still live are kept in a table.
 *
 * - fl_sbf_memory is every byte the chain's allocations requested and still hold: created,
 *   grown over several sub-filters, loaded, cleared (the allocator's own rounding aside).
 * - A chain loaded under a cap stays under it as it grows (fl_sbf_load_mem,
 *   fl_sbf_set_byte_limit). The file's own max_bytes may be 0 and its parameters may make
 *   the next sub-filter huge: a tightening of 1e-98 gives sub-filter 1 a target of 1e-100,
 *   about 10 MB for 2,000 keys. Loaded with a 64 KiB cap, the add that would create it is
 *   refused with FL_ERR_TOO_LARGE, requests nothing near that size, leaves every added key
 *   present, and a save still writes back the loaded bytes.
 * - fl_gcf_memory (include/filterlab_gcf.h), which the Redis module's GROWTH INPLACE keys
 *   report as MEMORY USAGE, is likewise every byte a growing cuckoo filter holds, through
 *   its doublings (heap tables: a mapped one's length is the mapping's).
 */
#include "testutil.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- allocation tracking ------------------------------------------------------------------ */

static int tracking;
static size_t largest; /* the largest request while tracking */
#define LIVE_MAX 1024
static struct {
    void *p;
    size_t n;
} live[LIVE_MAX]; /* blocks allocated while tracking and not freed yet */

static void note(size_t n) {
    if (tracking && n > largest) largest = n;
}
static void add_live(void *p, size_t n) {
    if (!tracking || !p) return;
    for (size_t i = 0; i < LIVE_MAX; i++)
        if (!live[i].p) {
            live[i].p = p, live[i].n = n;
            return;
        }
    fail_msg("more than %d live blocks", LIVE_MAX);
}
static void drop_live(void *p) {
    for (size_t i = 0; p && i < LIVE_MAX; i++)
        if (live[i].p == p) live[i].p = NULL;
}
static size_t live_bytes(void) {
    size_t sum = 0;
    for (size_t i = 0; i < LIVE_MAX; i++)
        if (live[i].p) sum += live[i].n;
    return sum;
}

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__real_aligned_alloc(size_t align, size_t n);
int __real_posix_memalign(void **p, size_t align, size_t n);
/* Large payloads are mappings (src/core/memory.c); with 64-bit file offsets glibc's
 * header turns mmap into mmap64, so both are wrapped. off_t is 64 bits in these builds.
 * Mappings are only measured (largest), not kept as live blocks: the chains whose memory
 * is compared below have small payloads. */
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
void *__real_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off);

void *__wrap_malloc(size_t n) {
    note(n);
    void *p = __real_malloc(n);
    add_live(p, n);
    return p;
}
void *__wrap_calloc(size_t n, size_t size) {
    size_t total = size && n > SIZE_MAX / size ? SIZE_MAX : n * size;
    note(total);
    void *p = __real_calloc(n, size);
    add_live(p, total);
    return p;
}
void *__wrap_realloc(void *old, size_t n) {
    note(n);
    void *p = __real_realloc(old, n);
    if (p || n == 0) drop_live(old);
    add_live(p, n);
    return p;
}
void __wrap_free(void *p) {
    drop_live(p);
    __real_free(p);
}
void *__wrap_aligned_alloc(size_t align, size_t n) {
    note(n);
    void *p = __real_aligned_alloc(align, n);
    add_live(p, n);
    return p;
}
int __wrap_posix_memalign(void **p, size_t align, size_t n) {
    note(n);
    int r = __real_posix_memalign(p, align, n);
    if (r == 0) add_live(*p, n);
    return r;
}
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
    note(len);
    return __real_mmap(addr, len, prot, flags, fd, off);
}
void *__wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
    note(len);
    return __real_mmap64(addr, len, prot, flags, fd, off);
}

static void track(void) {
    largest = 0;
    memset(live, 0, sizeof live);
    tracking = 1;
}
static size_t untrack(void) {
    tracking = 0;
    return largest;
}

/* ---- what fl_sbf_memory reports ----------------------------------------------------------- */

/* Every chain's allocations are tracked from its creation (or load) on. The FPR models'
 * tables are the process's, shared by every filter and extended as sizes first need them
 * (src/core/models.c): the same chain built once before, untracked, has them ready. */
static void check_memory_of(fl_sbf_config c, const char *kernel, size_t keys) {
    fl_sbf *s = NULL;
    uint64_t *h = test_hashes(keys, 3);
    assert_int_equal(fl_sbf_create(&c, &s), FL_OK);
    for (size_t i = 0; i < keys; i++) assert_int_equal(fl_sbf_add_hash(s, h[i], NULL), FL_OK);
    fl_sbf_free(s);
    track();
    assert_int_equal(fl_sbf_create(&c, &s), FL_OK);
    assert_int_equal(fl_sbf_memory(s), live_bytes());
    if (kernel) { /* the binding is kept in the chain's second allocation */
        assert_int_equal(fl_sbf_bind_kernel(s, kernel), FL_OK);
        assert_int_equal(fl_sbf_memory(s), live_bytes());
    }
    uint32_t filters = 1;
    for (size_t i = 0; i < keys; i++) {
        assert_int_equal(fl_sbf_add_hash(s, h[i], NULL), FL_OK);
        fl_sbf_info in;
        assert_int_equal(fl_sbf_get_info(s, &in), FL_OK);
        if (in.filters != filters) { /* grown: a new sub-filter, maybe larger arrays */
            filters = in.filters;
            assert_int_equal(fl_sbf_memory(s), live_bytes());
            assert_true(fl_sbf_memory(s) > in.bytes);
        }
    }
    assert_true(filters >= 3);
    size_t size = fl_sbf_serialized_size(s), len = 0;
    uint8_t *buf = malloc(size);
    assert_non_null(buf);
    assert_int_equal(fl_sbf_save_mem(s, buf, size, &len), FL_OK);
    size_t memory = fl_sbf_memory(s);
    fl_sbf_clear(s);
    assert_int_equal(fl_sbf_memory(s), live_bytes() - size); /* buf is live too */
    fl_sbf_free(s);
    assert_int_equal(live_bytes(), size);
    /* a loaded chain holds what the one it was saved from held */
    assert_int_equal(fl_sbf_load_mem(buf, len, 0, &s), FL_OK);
    assert_int_equal(fl_sbf_memory(s), live_bytes() - size);
    assert_int_equal(fl_sbf_memory(s), memory);
    fl_sbf_free(s);
    untrack();
    free(buf);
    free(h);
}

static void test_memory_is_what_was_allocated(void **state) {
    (void)state;
    check_memory_of((fl_sbf_config){.capacity = 100, .error_rate = 0.01}, NULL, 2000);
    check_memory_of((fl_sbf_config){.capacity = 1, .error_rate = 0.1, .variant = FL_CLASSIC},
                    NULL, 40);
    check_memory_of((fl_sbf_config){.capacity = 1000, .error_rate = 1e-6,
                                    .variant = FL_SPLIT256}, NULL, 10000);
    /* parameters away from their defaults, held from creation on */
    check_memory_of((fl_sbf_config){.capacity = 50, .error_rate = 0.01, .seed = 7,
                                    .tightening = 0.8, .max_filters = 20, .growth = 1.5},
                    NULL, 1000);
    /* a kernel binding made after creation, then growth and a load (not saved) */
    check_memory_of((fl_sbf_config){.capacity = 64, .error_rate = 0.001}, "scalar", 1000);
    assert_int_equal(fl_sbf_memory(NULL), 0);
}

/* What a chain of one sub-filter holds besides its payload, at the defaults the Redis
 * module uses: the chain's struct (80 bytes) and the payload's slack (8). With the Redis
 * value's 16 that is 104 bytes, against RedisBloom's 96 of chain and link structs: its
 * MEMORY USAGE of a key reserved for one item is 136 B, so 1.1x leaves 13.6 B, and the
 * bit arrays of the smallest keys are the same 8 bytes in both. */
static void test_small_chain_bookkeeping(void **state) {
    (void)state;
    const double rates[] = {0.1, 0.01, 1e-4, 1e-9};
    const uint64_t caps[] = {1, 10, 100, 1000};
    for (size_t r = 0; r < sizeof rates / sizeof *rates; r++)
        for (size_t c = 0; c < sizeof caps / sizeof *caps; c++) {
            fl_sbf_config cfg = {.capacity = caps[c], .error_rate = rates[r],
                                 .max_bytes = 128u << 20, .layout_slack = 1.1};
            fl_sbf *s = NULL;
            assert_int_equal(fl_sbf_create(&cfg, &s), FL_OK);
            fl_sbf_info in;
            assert_int_equal(fl_sbf_get_info(s, &in), FL_OK);
            assert_int_equal(fl_sbf_memory(s) - in.bytes, 80 + 8);
            assert_true(in.layout_slack == 1.1);
            fl_sbf_free(s);
        }
}

/* A growing cuckoo filter from its creation through three doublings (tables of 8 KiB to
 * 64 KiB: heap, not mapped): fl_gcf_memory is what its allocations hold at every size. */
static void test_gcf_memory_is_what_was_allocated(void **state) {
    (void)state;
    enum { KEYS = 25000 };
    uint64_t *h = test_hashes(KEYS, 5);
    fl_gcf *g = NULL;
    track();
    assert_int_equal(fl_gcf_create(1000, 1, &g), FL_OK);
    assert_int_equal(fl_gcf_memory(g), live_bytes());
    uint32_t doublings = 0;
    for (size_t i = 0; i < KEYS; i++) {
        assert_int_equal(fl_gcf_insert_hash(g, h[i]), FL_OK);
        fl_gcf_info in;
        assert_int_equal(fl_gcf_info_get(g, &in), FL_OK);
        if (in.doublings != doublings) {
            doublings = in.doublings;
            assert_int_equal(fl_gcf_memory(g), live_bytes());
            assert_true(fl_gcf_memory(g) > in.bytes);
        }
    }
    assert_true(doublings >= 3);
    fl_gcf_free(g);
    assert_int_equal(live_bytes(), 0);
    untrack();
    assert_int_equal(fl_gcf_memory(NULL), 0);
    free(h);
}

/* ---- the chain -------------------------------------------------------------------------- */

#define CAPACITY 1000u
#define TIGHTENING 1e-98 /* sub-filter 1's target: 0.01 * 1e-98 = 1e-100 */
#define CAP ((size_t)64 << 10)
#define KEYS (CAPACITY + 64)

static size_t used; /* keys h[0..used) went into the saved chain (all present) */

/* A chain (max_bytes as given) whose first sub-filter is full of keys from h: the next
 * add creates sub-filter 1. Returns its file image. */
static uint8_t *saved_chain(const uint64_t *h, size_t *len, uint64_t max_bytes) {
    fl_sbf_config c = {.capacity = CAPACITY, .error_rate = 0.01, .tightening = TIGHTENING,
                       .max_bytes = max_bytes};
    fl_sbf *s = NULL;
    assert_int_equal(fl_sbf_create(&c, &s), FL_OK);
    /* one key at a time until the first sub-filter is full: a key it reports already (a
     * false positive) is not counted */
    used = 0;
    while (fl_sbf_count(s) < CAPACITY)
        assert_int_equal(fl_sbf_add_hash(s, h[used++], NULL), FL_OK);
    fl_sbf_info in;
    assert_int_equal(fl_sbf_get_info(s, &in), FL_OK);
    assert_int_equal(in.filters, 1);
    *len = fl_sbf_serialized_size(s);
    uint8_t *buf = malloc(*len);
    assert_non_null(buf);
    assert_int_equal(fl_sbf_save_mem(s, buf, *len, len), FL_OK);
    fl_sbf_free(s);
    return buf;
}

/* The bytes sub-filter 1 would take: classic (the layout fallback; block512 cannot reach
 * 1e-100) for 2 * CAPACITY keys. */
static size_t next_filter_bytes(void) {
    fl_params p;
    assert_int_equal(fl_params_for(FL_CLASSIC, 2 * CAPACITY, 0.01 * TIGHTENING, &p), FL_OK);
    return p.bytes;
}

static uint64_t *chain_keys(void) {
        return test_hashes(KEYS, 7);
}

/* A key after the chain's that it does not report (an add of it must insert). */
static uint64_t new_key(const fl_sbf *s, const uint64_t *h) {
    for (size_t i = used; i < KEYS; i++)
        if (!fl_sbf_contains_hash(s, h[i])) return h[i];
    fail_msg("every spare key a false positive");
    return 0;
}

/* Without a cap the file is trusted: the add grows the chain by the ~10 MB sub-filter,
 * which the wrapped allocator sees (so the checks below can fail). */
static void test_uncapped_load_trusts_the_file(void **state) {
    (void)state;
    uint64_t *h = chain_keys();
    size_t len = 0;
    uint8_t *buf = saved_chain(h, &len, 0);
    size_t next = next_filter_bytes();
    assert_true(next > (size_t)8 << 20);
    fl_sbf *s = NULL;
    assert_int_equal(fl_sbf_load_mem(buf, len, 0, &s), FL_OK);
    fl_sbf_info in;
    assert_int_equal(fl_sbf_get_info(s, &in), FL_OK);
    assert_int_equal(in.byte_limit, 0);
    track();
    int added = 0;
    assert_int_equal(fl_sbf_add_hash(s, new_key(s, h), &added), FL_OK);
    assert_true(untrack() >= next);
    assert_int_equal(added, 1);
    assert_int_equal(fl_sbf_get_info(s, &in), FL_OK);
    assert_int_equal(in.filters, 2);
    fl_sbf_free(s);
    free(buf);
    free(h);
}

/* Every lookup of the chain's keys is present, and a save writes back `orig`. */
static void assert_intact(const fl_sbf *s, const uint64_t *h, const uint8_t *orig, size_t len) {
    for (size_t i = 0; i < used; i++) assert_int_equal(fl_sbf_contains_hash(s, h[i]), 1);
    size_t size = fl_sbf_serialized_size(s), written = 0;
    uint8_t *again = malloc(size);
    assert_non_null(again);
    assert_int_equal(fl_sbf_save_mem(s, again, size, &written), FL_OK);
    assert_int_equal(written, len);
    assert_memory_equal(again, orig, len);
    free(again);
}

/* The refusal, on every add path: one key, a batch; lookups and the saved image intact. */
static void check_refused(fl_sbf *s, const uint64_t *h, const uint8_t *orig, size_t len) {
    fl_sbf_info before, after;
    assert_int_equal(fl_sbf_get_info(s, &before), FL_OK);
    size_t memory = fl_sbf_memory(s);
    track();
    int added = 1;
    assert_int_equal(fl_sbf_add_hash(s, new_key(s, h), &added), FL_ERR_TOO_LARGE);
    assert_int_equal(added, 0);
    size_t count = 99;
    uint8_t flags[16];
    assert_int_equal(fl_sbf_add_hashes(s, h + used, 16, flags, &count), FL_ERR_TOO_LARGE);
    assert_int_equal(count, 0);
    /* the chain's bookkeeping allocates a few hundred bytes at most, never the filter */
    assert_true(untrack() < CAP);
    assert_int_equal(fl_sbf_get_info(s, &after), FL_OK);
    assert_int_equal(after.filters, 1);
    assert_int_equal(after.bytes, before.bytes);
    assert_int_equal(after.items, CAPACITY);
    assert_int_equal(fl_sbf_memory(s), memory); /* not even the arrays grew */
    assert_intact(s, h, orig, len);
}

static void test_load_cap_bounds_growth(void **state) {
    (void)state;
    uint64_t *h = chain_keys();
    size_t len = 0;
    uint8_t *buf = saved_chain(h, &len, 0);
    fl_sbf *s = NULL;
    assert_int_equal(fl_sbf_load_mem(buf, len, CAP, &s), FL_OK);
    fl_sbf_info in;
    assert_int_equal(fl_sbf_get_info(s, &in), FL_OK);
    assert_int_equal(in.byte_limit, CAP);
    assert_int_equal(in.max_bytes, 0); /* the file's own, unchanged */
    assert_true(in.bytes < CAP);
    check_refused(s, h, buf, len);
    fl_sbf_free(s);

    /* the same through a file */
    char path[] = "/tmp/fl_sbf_limit_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, len), (ssize_t)len);
    close(fd);
    assert_int_equal(fl_sbf_load_file(path, CAP, &s), FL_OK);
    unlink(path);
    check_refused(s, h, buf, len);

    /* the holder may lift its own limit: the add then grows the chain */
    assert_int_equal(fl_sbf_set_byte_limit(s, 0), FL_OK);
    assert_int_equal(fl_sbf_add_hash(s, new_key(s, h), NULL), FL_OK);
    assert_int_equal(fl_sbf_get_info(s, &in), FL_OK);
    assert_int_equal(in.filters, 2);
    assert_true(in.bytes > CAP);
    assert_int_equal(fl_sbf_set_byte_limit(NULL, 1), FL_ERR_INVALID_ARG);
    fl_sbf_free(s);
    free(buf);
    free(h);
}

/* The tighter of the chain's max_bytes and the load's cap applies; ordinary growth under a
 * cap goes on as long as it fits. */
static void test_tighter_cap_applies(void **state) {
    (void)state;
    uint64_t *h = chain_keys();
    size_t len = 0;
    /* stored cap 32 KiB, load cap 64 KiB: the stored one refuses */
    uint8_t *buf = saved_chain(h, &len, (uint64_t)32 << 10);
    fl_sbf *s = NULL;
    assert_int_equal(fl_sbf_load_mem(buf, len, CAP, &s), FL_OK);
    check_refused(s, h, buf, len);
    /* no process limit: the stored cap still refuses */
    assert_int_equal(fl_sbf_set_byte_limit(s, 0), FL_OK);
    assert_int_equal(fl_sbf_add_hash(s, new_key(s, h), NULL), FL_ERR_TOO_LARGE);
    fl_sbf_free(s);
    free(buf);

    /* an ordinary chain (tightening 0.5) under a load cap grows until the cap */
    fl_sbf_config c = {.capacity = 100, .error_rate = 0.01, .growth = 2};
    assert_int_equal(fl_sbf_create(&c, &s), FL_OK);
    len = fl_sbf_serialized_size(s);
    buf = malloc(len);
    assert_non_null(buf);
    assert_int_equal(fl_sbf_save_mem(s, buf, len, &len), FL_OK);
    fl_sbf_free(s);
    assert_int_equal(fl_sbf_load_mem(buf, len, (size_t)16 << 10, &s), FL_OK);
    uint64_t *keys = test_hashes(100000, 8);
    fl_status st = FL_OK;
    size_t i = 0;
    for (; i < 100000 && st == FL_OK; i++) st = fl_sbf_add_hash(s, keys[i], NULL);
    assert_int_equal(st, FL_ERR_TOO_LARGE);
    fl_sbf_info in;
    assert_int_equal(fl_sbf_get_info(s, &in), FL_OK);
    assert_true(in.filters >= 4);
    assert_true(in.bytes <= (size_t)16 << 10);
    for (size_t j = 0; j + 1 < i; j++) assert_int_equal(fl_sbf_contains_hash(s, keys[j]), 1);
    fl_sbf_free(s);
    free(keys);
    free(buf);
    free(h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memory_is_what_was_allocated),
        cmocka_unit_test(test_small_chain_bookkeeping),
        cmocka_unit_test(test_gcf_memory_is_what_was_allocated),
        cmocka_unit_test(test_uncapped_load_trusts_the_file),
        cmocka_unit_test(test_load_cap_bounds_growth),
        cmocka_unit_test(test_tighter_cap_applies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
