/*
 * The header-inline lookups of include/filterlab_inline.h against the scalar kernels, for
 * every variant, on small, odd and realistic geometries, with cuckoo stashes in use; every
 * handle kind on every variant (a refused handle must still answer right); and
 * include/filterlab_static.h's one-key lookups on views of either static kind.
 *
 * This file is compiled the ways a user's file would be (tests/meson.build): at baseline
 * flags (cuckoo inline in SSE2 or NEON, split256 through the dispatched kernel pointer), with
 * FL_INLINE_PORTABLE (the SWAR code every other host gets), and on x86-64 with -mavx2 -mbmi2
 * (split256 inline in AVX2). It includes only public headers; test_lookup.c holds main(),
 * built at baseline, and runs these tests only on a CPU that can execute them.
 *
 * The reference is the scalar batch kernel (fl_kernel_select("scalar") + fl_contains_hashes):
 * plain C per-key probes, independent of the inline code under test.
 */
#include <stdio.h>
#include <string.h>

#include "filterlab_inline.h"
#include "filterlab_static.h"
#include "testutil.h"

#define QUERIES 20000

/* Which code this compilation of the header inlines, for the test log. */
const char *lookup_paths(void) {
#if defined(FL_LOOKUP_X86) && defined(__SSSE3__)
    const char *cuckoo = "cuckoo inline SSE2 (12-bit: SSSE3 byte shuffle)";
#elif defined(FL_LOOKUP_X86)
    const char *cuckoo = "cuckoo inline SSE2 (12-bit: SWAR)";
#elif defined(FL_LOOKUP_NEON)
    const char *cuckoo = "cuckoo inline NEON";
#else
    const char *cuckoo = "cuckoo inline portable SWAR";
#endif
#if defined(__AVX2__) && defined(FL_LOOKUP_SPLIT256_INLINE)
    const char *split = "split256 inline AVX2";
#elif defined(FL_LOOKUP_SPLIT256_INLINE)
    const char *split = "split256 inline NEON";
#else
    const char *split = "split256 through the kernel pointer";
#endif
    static char buf[128];
    snprintf(buf, sizeof buf, "%s, %s", cuckoo, split);
    return buf;
}

/* Answers of the scalar kernels for hashes h[0..n), restoring the process's kernel after. */
static void reference(const fl_filter *f, const uint64_t *h, size_t n, uint8_t *out) {
    char active[32];
    snprintf(active, sizeof active, "%s", fl_kernel_active());
    assert_int_equal(fl_kernel_select("scalar"), FL_OK);
    assert_int_equal(fl_contains_hashes(f, h, n, out, NULL), FL_OK);
    assert_int_equal(fl_kernel_select(active), FL_OK);
}

/* Query keys: every other one among the first `inserted` keys, the rest never inserted. */
static uint64_t query_key(size_t i, uint64_t inserted) {
    return (i & 1) && inserted ? (uint64_t)(i / 2) % inserted : (UINT64_C(1) << 62) + i;
}

/* Every way to look up one key agrees with the reference: the handle of the dispatched kernel
 * (u64 and hash entries), a handle made while the scalar kernel is active, and the library's
 * own single-key calls. Inserted keys are always found. */
static void check_agrees(fl_filter *f, uint64_t inserted, const char *what) {
    fl_info info;
    assert_int_equal(fl_get_info(f, &info), FL_OK);
    uint64_t *keys = malloc(QUERIES * sizeof *keys), *hashes = malloc(QUERIES * sizeof *hashes);
    uint8_t *want = malloc(QUERIES);
    assert_non_null(keys);
    assert_non_null(hashes);
    assert_non_null(want);
    for (size_t i = 0; i < QUERIES; i++) {
        keys[i] = query_key(i, inserted);
        hashes[i] = fl_hash_u64(keys[i], info.seed);
    }
    reference(f, hashes, QUERIES, want);

    const fl_lookup best = fl_lookup_of(f);
    char active[32];
    snprintf(active, sizeof active, "%s", fl_kernel_active());
    assert_int_equal(fl_kernel_select("scalar"), FL_OK);
    const fl_lookup scalar = fl_lookup_of(f);
    assert_int_equal(fl_kernel_select(active), FL_OK);

    /* The one-variant handles: the filter's own, and the other one, which must refuse it in
     * its status and still answer exactly what the filter answers (an unchecked status must
     * never turn into false negatives). */
    fl_status split_status, cuckoo_status;
    const fl_split256_lookup split = fl_split256_lookup_of(f, &split_status);
    const fl_cuckoo_lookup cuckoo = fl_cuckoo_lookup_of(f, &cuckoo_status);
    assert_int_equal(split_status, info.geometry.variant == FL_SPLIT256 ? FL_OK : FL_ERR_INVALID_ARG);
    assert_int_equal(cuckoo_status, info.geometry.variant == FL_CUCKOO ? FL_OK : FL_ERR_INVALID_ARG);

    size_t mismatches = 0;
    for (size_t i = 0; i < QUERIES; i++) {
        int a = fl_lookup_u64(&best, keys[i]), b = fl_lookup_hash(&best, hashes[i]);
        int c = fl_lookup_u64(&scalar, keys[i]), d = fl_contains_u64(f, keys[i]);
        int su = fl_split256_lookup_u64(&split, keys[i]), sh = fl_split256_lookup_hash(&split, hashes[i]);
        int cu = fl_cuckoo_lookup_u64(&cuckoo, keys[i]), ch = fl_cuckoo_lookup_hash(&cuckoo, hashes[i]);
        if (a != want[i] || b != want[i] || c != want[i] || d != want[i] || su != want[i] ||
            sh != want[i] || cu != want[i] || ch != want[i]) {
            if (mismatches++ < 5)
                fprintf(stderr, "%s: key %llu hash %016llx: u64 %d hash %d scalar-handle %d "
                                "fl_contains_u64 %d split256 handle %d/%d cuckoo handle %d/%d, "
                                "scalar kernel %d\n",
                        what, (unsigned long long)keys[i], (unsigned long long)hashes[i], a, b,
                        c, d, su, sh, cu, ch, want[i]);
        }
        if ((i & 1) && inserted && !(a && b && c && d && su && sh && cu && ch)) {
            fprintf(stderr, "%s: inserted key %llu not found by every handle\n", what,
                    (unsigned long long)keys[i]);
            mismatches++;
        }
    }
    assert_int_equal(mismatches, 0);
    free(keys);
    free(hashes);
    free(want);
}

/* Inserts keys 0..n-1 (stopping at the first a cuckoo filter cannot take); returns how many. */
static uint64_t insert_keys(fl_filter *f, uint64_t n) {
    for (uint64_t key = 0; key < n; key++) {
        fl_status s = fl_insert_u64(f, key);
        if (s == FL_ERR_FULL) return key;
        assert_int_equal(s, FL_OK);
    }
    return n;
}

/* The handles of a NULL filter answer 0, like fl_contains_u64(NULL, key) (a NULL filter holds
 * no key); the one-variant ones also say the filter was refused. */
static void test_null_filter(void **state) {
    (void)state;
    fl_status s1 = FL_OK, s2 = FL_OK;
    const fl_lookup l = fl_lookup_of(NULL);
    const fl_split256_lookup sl = fl_split256_lookup_of(NULL, &s1);
    const fl_cuckoo_lookup cl = fl_cuckoo_lookup_of(NULL, &s2);
    assert_int_equal(s1, FL_ERR_INVALID_ARG);
    assert_int_equal(s2, FL_ERR_INVALID_ARG);
    for (uint64_t key = 0; key < 1000; key++) {
        assert_int_equal(fl_lookup_u64(&l, key), 0);
        assert_int_equal(fl_lookup_hash(&l, ~key), 0);
        assert_int_equal(fl_split256_lookup_u64(&sl, key), 0);
        assert_int_equal(fl_split256_lookup_hash(&sl, ~key), 0);
        assert_int_equal(fl_cuckoo_lookup_u64(&cl, key), 0);
        assert_int_equal(fl_cuckoo_lookup_hash(&cl, ~key), 0);
    }
}

/* Every handle kind made for every variant (the README's two snippets pasted one after the
 * other: a split256 handle of a block512 filter, status unchecked): every inserted key is
 * found, and a refused handle still follows later inserts and deletes. */
static void test_every_handle_every_variant(void **state) {
    (void)state;
    for (int v = FL_VARIANT_MIN; v <= FL_VARIANT_MAX; v++) {
        fl_filter *f;
        assert_int_equal(fl_create_for((fl_variant)v, 5000, 0.01, &f), FL_OK);
        fl_status ss, cs;
        const fl_lookup l = fl_lookup_of(f);
        const fl_split256_lookup sl = fl_split256_lookup_of(f, &ss);
        const fl_cuckoo_lookup cl = fl_cuckoo_lookup_of(f, &cs);
        assert_int_equal(ss, v == FL_SPLIT256 ? FL_OK : FL_ERR_INVALID_ARG);
        assert_int_equal(cs, v == FL_CUCKOO ? FL_OK : FL_ERR_INVALID_ARG);
        fl_info info;
        assert_int_equal(fl_get_info(f, &info), FL_OK);
        uint64_t seed = info.seed;
        for (uint64_t key = 0; key < 5000; key++) assert_int_equal(fl_insert_u64(f, key), FL_OK);
        size_t missing = 0;
        for (uint64_t key = 0; key < 5000; key++) {
            uint64_t h = fl_hash_u64(key, seed);
            missing += !fl_lookup_u64(&l, key) + !fl_lookup_hash(&l, h) +
                       !fl_split256_lookup_u64(&sl, key) + !fl_split256_lookup_hash(&sl, h) +
                       !fl_cuckoo_lookup_u64(&cl, key) + !fl_cuckoo_lookup_hash(&cl, h);
        }
        if (missing) fprintf(stderr, "%s: %zu misses\n", fl_variant_name((fl_variant)v), missing);
        assert_int_equal(missing, 0);
        /* Live: a key never inserted is absent, then present once inserted. */
        uint64_t fresh = UINT64_C(1) << 60;
        while (fl_contains_u64(f, fresh)) fresh++;
        assert_int_equal(fl_split256_lookup_u64(&sl, fresh), 0);
        assert_int_equal(fl_cuckoo_lookup_u64(&cl, fresh), 0);
        assert_int_equal(fl_insert_u64(f, fresh), FL_OK);
        assert_int_equal(fl_split256_lookup_u64(&sl, fresh), 1);
        assert_int_equal(fl_cuckoo_lookup_u64(&cl, fresh), 1);
        fl_variant_info vi;
        assert_int_equal(fl_variant_describe((fl_variant)v, &vi), FL_OK);
        if (vi.caps & FL_CAP_DELETE) {
            assert_int_equal(fl_delete_hash(f, fl_hash_u64(fresh, seed)), FL_OK);
            assert_int_equal(fl_split256_lookup_u64(&sl, fresh), fl_contains_u64(f, fresh));
            assert_int_equal(fl_cuckoo_lookup_u64(&cl, fresh), fl_contains_u64(f, fresh));
        }
        fl_free(f);
    }
}

/* Each Bloom variant, a few k, at 1 unit, an odd count and a realistic size; empty, filled
 * to about its design load, and saturated. */
static void test_bloom_variants(void **state) {
    (void)state;
    static const struct {
        fl_variant v;
        uint32_t k;
    } cases[] = {{FL_CLASSIC, 1},  {FL_CLASSIC, 7},  {FL_BLOCK512, 1}, {FL_BLOCK512, 6},
                 {FL_BLOCK512, 16}, {FL_SPLIT256, 8}, {FL_REG64, 1},    {FL_REG64, 5},
                 {FL_REG64, 16},    {FL_COUNTING, 3}, {FL_COUNTING512, 7}};
    static const uint64_t units[] = {1, 3, 1001, 40000};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
            char what[96];
            snprintf(what, sizeof what, "%s k=%u units=%llu", fl_variant_name(cases[c].v),
                     cases[c].k, (unsigned long long)units[u]);
            fl_filter *f = test_filter(cases[c].v, units[u], cases[c].k);
            check_agrees(f, 0, what); /* empty: everything absent */
            /* About 8 bits per key, then (small filters) far past saturation. */
            uint64_t bits = fl_size_bytes(f) * 8;
            check_agrees(f, insert_keys(f, bits / 8 + 1), what);
            if (units[u] <= 3) check_agrees(f, insert_keys(f, 4 * bits), what);
            fl_free(f);
        }
    }
}

/* Cuckoo with 8-, 11- (semi-sorted), 12-, 13- (semi-sorted) and 16-bit fingerprints:
 * realistic load, and tiny tables filled until they refuse a key, so the victim stash is in
 * use. */
static void test_cuckoo(void **state) {
    (void)state;
    static const uint32_t fps[] = {8, 11, 12, 13, 16};
    static const uint64_t units[] = {1, 2, 7, 1001, 30000};
    for (size_t b = 0; b < sizeof fps / sizeof fps[0]; b++) {
        for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
            char what[96];
            snprintf(what, sizeof what, "cuckoo f=%u buckets=%llu", fps[b],
                     (unsigned long long)units[u]);
            fl_filter *f = test_filter(FL_CUCKOO, units[u], fps[b]);
            check_agrees(f, 0, what);
            uint64_t slots = 4 * units[u];
            uint64_t got = insert_keys(f, slots * 9 / 10);
            check_agrees(f, got, what);
            if (units[u] > 1001) { /* filling a large table to the brim is slow, not harder */
                fl_free(f);
                continue;
            }
            got = insert_keys(f, 2 * slots + 64); /* until FULL */
            assert_true(got < 2 * slots + 64);
            fl_info info;
            assert_int_equal(fl_get_info(f, &info), FL_OK);
            assert_true(info.stash_used > 0);
            check_agrees(f, got, what);
            fl_free(f);
        }
    }
}

/* A handle sees what is inserted after it was made, stash and deletes included. */
static void test_handle_is_live(void **state) {
    (void)state;
    fl_filter *s = test_filter(FL_SPLIT256, 64, 8);
    fl_lookup l = fl_lookup_of(s);
    const fl_split256_lookup sl = fl_split256_lookup_of(s, NULL);
    assert_int_equal(fl_lookup_u64(&l, 42), 0);
    assert_int_equal(fl_split256_lookup_u64(&sl, 42), 0);
    assert_int_equal(fl_insert_u64(s, 42), FL_OK);
    assert_int_equal(fl_lookup_u64(&l, 42), 1);
    assert_int_equal(fl_split256_lookup_u64(&sl, 42), 1);
    fl_free(s);

    fl_filter *c = test_filter(FL_CUCKOO, 2, 16);
    l = fl_lookup_of(c);
    const fl_cuckoo_lookup cl = fl_cuckoo_lookup_of(c, NULL);
    uint64_t got = insert_keys(c, 100);
    fl_info info;
    assert_int_equal(fl_get_info(c, &info), FL_OK);
    assert_true(info.stash_used > 0);
    for (uint64_t key = 0; key < got; key++) {
        assert_int_equal(fl_lookup_u64(&l, key), 1);
        assert_int_equal(fl_cuckoo_lookup_u64(&cl, key), 1);
    }
    /* Delete every key: the table and the stash empty out, and the handles see it. */
    for (uint64_t key = 0; key < got; key++)
        assert_int_equal(fl_delete_hash(c, fl_hash_u64(key, 0)), FL_OK); /* test_filter: seed 0 */
    assert_int_equal(fl_get_info(c, &info), FL_OK);
    assert_int_equal(info.stash_used, 0);
    for (uint64_t key = 0; key < got; key++) {
        assert_int_equal(fl_lookup_u64(&l, key), 0);
        assert_int_equal(fl_cuckoo_lookup_u64(&cl, key), 0);
    }
    fl_free(c);
}

/* The static structures' views: fl_fuse_lookup and fl_bloomier_lookup take the view of
 * either kind, and neither calls a stored key absent (fl_fuse_lookup on a Bloomier view once
 * missed every key stored with a nonzero value). */
static void test_static_views_of_either_kind(void **state) {
    (void)state;
    enum { N = 20000 };
    uint64_t *keys = malloc(N * sizeof *keys);
    uint16_t *values = malloc(N * sizeof *values);
    assert_non_null(keys);
    assert_non_null(values);
    for (size_t i = 0; i < N; i++) {
        keys[i] = fl_hash_u64(i, 11);
        values[i] = (uint16_t)(i % 4096); /* 0 included, most nonzero */
    }
    static const uint32_t value_bits[] = {1, 12, 16};
    for (size_t c = 0; c < 3; c++) {
        fl_bloomier_config bc = {.arity = 3 + (uint32_t)c % 2, .value_bits = value_bits[c]};
        fl_bloomier *b = NULL;
        uint32_t mask = (1u << value_bits[c]) - 1;
        for (size_t i = 0; i < N; i++) values[i] &= (uint16_t)mask;
        assert_int_equal(fl_bloomier_build_u64(&bc, keys, values, N, &b), FL_OK);
        const fl_fuse_view bv = fl_bloomier_view_of(b);
        size_t missed = 0;
        for (size_t i = 0; i < N; i++) {
            uint16_t v = 0xffff;
            missed += !fl_fuse_lookup(&bv, keys[i]);
            missed += !fl_bloomier_lookup(&bv, keys[i], &v) || v != values[i];
        }
        assert_int_equal(missed, 0);
        fl_bloomier_free(b);
    }
    fl_fuse_config fc = {.arity = 4, .fingerprint_bits = 16};
    fl_fuse *f = NULL;
    assert_int_equal(fl_fuse_build_u64(&fc, keys, N, &f), FL_OK);
    const fl_fuse_view fv = fl_fuse_view_of(f);
    for (size_t i = 0; i < N; i++) {
        uint16_t v = 0xffff;
        assert_int_equal(fl_fuse_lookup(&fv, keys[i]), 1);
        assert_int_equal(fl_bloomier_lookup(&fv, keys[i], &v), 1);
        assert_int_equal(v, 0);
    }
    /* Keys never stored: the fuse filter's answers are its fl_fuse_contains_u64's. */
    for (uint64_t k = 0; k < N; k++) {
        uint64_t key = fl_hash_u64(k, 12);
        assert_int_equal(fl_fuse_lookup(&fv, key), fl_fuse_contains_u64(f, key));
    }
    fl_fuse_free(f);
    free(keys);
    free(values);
}

/* The split256 handle's rewritten arithmetic equals its definition everywhere, including
 * block counts no test filter reaches (up to 2^32 - 1 blocks, 128 GiB): the hash of the
 * one-key loop (fl_mix64_one_key) is fl_mix64, and in the AVX2 probe the block offset from
 * one 128-bit multiply is 32 * fl_reduce32(h >> 32, blocks) and the broadcast from memory
 * puts h32 in every lane. */
static void test_split256_probe_math(void **state) {
    (void)state;
    static const uint64_t hs[] = {0, 1, 0xffffffffu, UINT64_C(1) << 32, UINT64_C(0xffffffff00000000),
                                  UINT64_C(0x8000000000000000), UINT64_C(0xffffffffffffffff),
                                  UINT64_C(0x7fffffff80000000)};
    static const uint32_t blocks[] = {1, 2, 3, 31, 32, 33, 255, 4096, 0x7fffffffu, 0x80000000u,
                                      0x80000001u, 0xfffffffeu, 0xffffffffu};
    uint64_t z = 12345;
    for (size_t i = 0; i < 200000; i++) {
        z = fl_mix64(z + FL_SEED_MIX);
        assert_true(fl_mix64_one_key(z) == fl_mix64(z));
        uint64_t h = i < 8 ? hs[i] : z;
        (void)h;
#if defined(__AVX2__) && defined(FL_LOOKUP_SPLIT256_INLINE)
        for (size_t b = 0; b < sizeof blocks / sizeof *blocks + 1; b++) {
            uint32_t n = b < sizeof blocks / sizeof *blocks ? blocks[b] : (uint32_t)(z >> 7) | 1u;
            size_t got = fl_split256_block_offset(h, n);
            size_t want = 32 * (size_t)fl_reduce32((uint32_t)(h >> 32), n);
            if (got != want)
                fail_msg("h %016llx blocks %u: offset %zu, want %zu", (unsigned long long)h, n,
                         got, want);
        }
        uint32_t lanes[8];
        _mm256_storeu_si256((__m256i *)(void *)lanes, fl_split256_broadcast((uint32_t)h));
        for (size_t l = 0; l < 8; l++) assert_int_equal(lanes[l], (uint32_t)h);
#endif
    }
    (void)blocks;
}

int run_lookup_tests(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_filter),
        cmocka_unit_test(test_every_handle_every_variant),
        cmocka_unit_test(test_bloom_variants),
        cmocka_unit_test(test_cuckoo),
        cmocka_unit_test(test_handle_is_live),
        cmocka_unit_test(test_static_views_of_either_kind),
        cmocka_unit_test(test_split256_probe_math),
    };
    printf("# filterlab_inline.h compiled with: %s\n", lookup_paths());
    return cmocka_run_group_tests_name(lookup_paths(), tests, NULL, NULL);
}
