/*
 * The Redis module's Redis-independent parts, under cmocka (and ASan+UBSan in the sanitizer
 * build): strict argument parsing (redis/parse.c), the SCANDUMP/LOADCHUNK chunk codec and
 * its reassembly (redis/chunk.c: round trips, every kind of bad chunk refused with the load
 * left as it was), and the CF value's cuckoo chain (redis/cf_chain.c: growth without false
 * negatives, deletes, counts, capacity items fitting in one filter, the serialization's round
 * trip, format 1 values still loading, every truncation and bit flip refused).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <filterlab.h>
#include <xxhash.h>

#include "cf_chain.h"
#include "chunk.h"
#include "le.h"
#include "parse.h"

static int u64_is(const char *s, uint64_t want) {
    uint64_t v = ~want;
    return flr_parse_u64(s, strlen(s), &v) && v == want;
}
static int u64_bad(const char *s) {
    uint64_t v = 12345;
    return !flr_parse_u64(s, strlen(s), &v) && v == 12345;
}
static int dbl_bad(const char *s) {
    double v = 7;
    return !flr_parse_double(s, strlen(s), &v) && v == 7;
}

static void test_parse(void **state) {
    (void)state;
    assert_true(u64_is("0", 0));
    assert_true(u64_is("1000", 1000));
    assert_true(u64_is("18446744073709551615", UINT64_MAX));
    const char *bad[] = {"", "-1", "+1", " 1", "1 ", "1x", "0x10", "18446744073709551616",
                         "99999999999999999999", "1.5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) assert_true(u64_bad(bad[i]));
    double d;
    assert_true(flr_parse_double("0.01", 4, &d) && d == 0.01);
    assert_true(flr_parse_double("1e-3", 4, &d) && d == 1e-3);
    assert_true(flr_parse_double("-2", 2, &d) && d == -2);
    const char *dbad[] = {"", "nan", "inf", "-inf", " 1", "1 ", "+1", "0.01x", "1e999"};
    for (size_t i = 0; i < sizeof dbad / sizeof dbad[0]; i++) assert_true(dbl_bad(dbad[i]));
    char longnum[100];
    memset(longnum, '1', sizeof longnum);
    assert_false(flr_parse_double(longnum, sizeof longnum, &d));
    assert_true(flr_word_is("items", 5, "ITEMS"));
    assert_false(flr_word_is("item", 4, "ITEMS"));
    assert_false(flr_word_is("itemsx", 6, "ITEMS"));
}

/* ---- chunks -------------------------------------------------------------------------- */

typedef struct dump {
    uint8_t **chunk;
    size_t *len;
    size_t n;
} dump;

static dump make_dump(flr_chunk_kind kind, const uint8_t *blob, size_t total) {
    dump d = {0};
    size_t cap = total / FLR_CHUNK_PIECE_MAX + 2;
    d.chunk = calloc(cap, sizeof *d.chunk);
    d.len = calloc(cap, sizeof *d.len);
    assert_non_null(d.chunk);
    uint64_t h = flr_blob_hash(blob, total);
    uint8_t *buf = malloc(FLR_CHUNK_HEADER + FLR_CHUNK_PIECE_MAX);
    size_t len;
    while (flr_chunk_encode(kind, blob, total, h, d.n, buf, &len)) {
        assert_true(d.n < cap);
        d.chunk[d.n] = malloc(len);
        memcpy(d.chunk[d.n], buf, len);
        d.len[d.n++] = len;
    }
    free(buf);
    return d;
}

static void free_dump(dump *d) {
    for (size_t i = 0; i < d->n; i++) free(d->chunk[i]);
    free(d->chunk);
    free(d->len);
}

static uint8_t *random_blob(size_t n, uint64_t seed) {
    uint8_t *b = malloc(n);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        b[i] = (uint8_t)(seed >> 56);
    }
    return b;
}

/* The load's state, to compare before and after a refused chunk. */
static void assert_same_state(const flr_assembly *a, uint64_t received, uint64_t total) {
    assert_int_equal(a->received, received);
    assert_int_equal(a->total, total);
}

static void test_chunk_round_trip(void **state) {
    (void)state;
    size_t sizes[] = {1, 100, FLR_CHUNK_PIECE_MAX, FLR_CHUNK_PIECE_MAX + 1,
                      2 * FLR_CHUNK_PIECE_MAX + 12345};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint8_t *blob = random_blob(sizes[s], s + 1);
        dump d = make_dump(FLR_CHUNK_BF, blob, sizes[s]);
        assert_int_equal(d.n, (sizes[s] + FLR_CHUNK_PIECE_MAX - 1) / FLR_CHUNK_PIECE_MAX);
        flr_assembly a = {0};
        for (size_t i = 0; i < d.n; i++)
            assert_int_equal(flr_assembly_feed(&a, FLR_CHUNK_BF, d.chunk[i], d.len[i]),
                             i + 1 == d.n ? FLR_CHUNK_COMPLETE : FLR_CHUNK_MORE);
        assert_int_equal(a.total, sizes[s]);
        assert_memory_equal(a.buf, blob, sizes[s]);
        flr_assembly_reset(&a);
        free_dump(&d);
        free(blob);
    }
}

static void test_chunk_refusals(void **state) {
    (void)state;
    size_t total = 2 * FLR_CHUNK_PIECE_MAX + 999;
    uint8_t *blob = random_blob(total, 42), *other = random_blob(total, 43);
    dump d = make_dump(FLR_CHUNK_CF, blob, total), e = make_dump(FLR_CHUNK_CF, other, total);
    flr_assembly a = {0};

    /* Nothing loaded: a middle chunk, a foreign kind, junk, a short header. */
    assert_int_equal(flr_assembly_feed(&a, FLR_CHUNK_CF, d.chunk[1], d.len[1]),
                     FLR_CHUNK_OUT_OF_ORDER);
    assert_int_equal(flr_assembly_feed(&a, FLR_CHUNK_BF, d.chunk[0], d.len[0]),
                     FLR_CHUNK_BAD_KIND);
    assert_int_equal(flr_assembly_feed(&a, FLR_CHUNK_CF, (const uint8_t *)"garbage", 7),
                     FLR_CHUNK_BAD_FORMAT);
    assert_int_equal(flr_assembly_feed(&a, FLR_CHUNK_CF, d.chunk[0], FLR_CHUNK_HEADER),
                     FLR_CHUNK_BAD_FORMAT);
    assert_null(a.buf);

    /* Every single-byte change of the first chunk's header and of a sample of its piece is
     * refused (the chunk hash covers both). */
    uint8_t *c = malloc(d.len[0]);
    for (size_t pos = 0; pos < d.len[0]; pos += pos < 64 ? 1 : 4099) {
        memcpy(c, d.chunk[0], d.len[0]);
        c[pos] ^= 0x10;
        flr_chunk_result r = flr_assembly_feed(&a, FLR_CHUNK_CF, c, d.len[0]);
        assert_true(r != FLR_CHUNK_MORE && r != FLR_CHUNK_COMPLETE);
        assert_null(a.buf);
    }
    /* Every truncation of the last chunk is refused. */
    assert_int_equal(flr_assembly_feed(&a, FLR_CHUNK_CF, d.chunk[0], d.len[0]), FLR_CHUNK_MORE);
    assert_int_equal(flr_assembly_feed(&a, FLR_CHUNK_CF, d.chunk[1], d.len[1]), FLR_CHUNK_MORE);
    for (size_t cut = 0; cut < d.len[2]; cut += cut < 100 ? 1 : 97) {
        assert_int_not_equal(flr_assembly_feed(&a, FLR_CHUNK_CF, d.chunk[2], cut),
                             FLR_CHUNK_COMPLETE);
        assert_same_state(&a, 2 * FLR_CHUNK_PIECE_MAX, total);
    }
    /* A chunk of another dump with the right offset, a repeated chunk, a skipped one. */
    assert_int_equal(flr_assembly_feed(&a, FLR_CHUNK_CF, e.chunk[2], e.len[2]),
                     FLR_CHUNK_OUT_OF_ORDER);
    assert_int_equal(flr_assembly_feed(&a, FLR_CHUNK_CF, d.chunk[1], d.len[1]),
                     FLR_CHUNK_OUT_OF_ORDER);
    assert_same_state(&a, 2 * FLR_CHUNK_PIECE_MAX, total);
    /* The right last chunk completes the load, which then takes no more pieces. */
    assert_int_equal(flr_assembly_feed(&a, FLR_CHUNK_CF, d.chunk[2], d.len[2]),
                     FLR_CHUNK_COMPLETE);
    assert_memory_equal(a.buf, blob, total);
    assert_int_equal(flr_assembly_feed(&a, FLR_CHUNK_CF, d.chunk[2], d.len[2]),
                     FLR_CHUNK_OUT_OF_ORDER);

    /* Chunks of two dumps whose headers agree (same total, forged blob hash) still fail the
     * whole blob's hash at the end: re-encode e's last piece under d's blob hash. */
    flr_assembly b = {0};
    assert_int_equal(flr_assembly_feed(&b, FLR_CHUNK_CF, d.chunk[0], d.len[0]), FLR_CHUNK_MORE);
    assert_int_equal(flr_assembly_feed(&b, FLR_CHUNK_CF, d.chunk[1], d.len[1]), FLR_CHUNK_MORE);
    uint8_t *forged = malloc(FLR_CHUNK_HEADER + FLR_CHUNK_PIECE_MAX);
    size_t flen;
    assert_true(flr_chunk_encode(FLR_CHUNK_CF, other, total, flr_blob_hash(blob, total), 2,
                                 forged, &flen));
    assert_int_equal(flr_assembly_feed(&b, FLR_CHUNK_CF, forged, flen), FLR_CHUNK_BAD_BLOB);
    assert_same_state(&b, 2 * FLR_CHUNK_PIECE_MAX, total);
    /* A first chunk restarts the load. */
    assert_int_equal(flr_assembly_feed(&b, FLR_CHUNK_CF, e.chunk[0], e.len[0]), FLR_CHUNK_MORE);
    assert_same_state(&b, FLR_CHUNK_PIECE_MAX, total);
    flr_assembly_reset(&b);

    /* A total beyond the cap is refused before any allocation. */
    uint8_t big[FLR_CHUNK_HEADER + 1];
    uint8_t one = 7;
    assert_true(flr_chunk_encode(FLR_CHUNK_CF, &one, 1, flr_blob_hash(&one, 1), 0, big, &flen));
    /* Patch total to 2^40 and re-seal the chunk hash as a forger would. */
    for (int i = 0; i < 8; i++) big[8 + i] = (uint8_t)((1ull << 40) >> (8 * i));
    uint8_t copy[FLR_CHUNK_HEADER + 1];
    memcpy(copy, big, sizeof big);
    assert_int_not_equal(flr_assembly_feed(&b, FLR_CHUNK_CF, copy, flen), FLR_CHUNK_COMPLETE);
    assert_null(b.buf);

    free(forged);
    free(c);
    flr_assembly_reset(&a);
    free_dump(&d);
    free_dump(&e);
    free(blob);
    free(other);
}

/* ---- the cuckoo chain ---------------------------------------------------------------- */

static cf_chain *new_chain(uint64_t capacity, uint32_t expansion, uint32_t fp_bits) {
    cf_config cfg = {capacity, CF_BUCKET_SIZE_DEFAULT, CF_MAX_ITERATIONS_DEFAULT, expansion,
                     fp_bits};
    cf_chain *c = NULL;
    assert_int_equal(cf_chain_create(&cfg, &c), FL_OK);
    return c;
}

static void test_cf_chain(void **state) {
    (void)state;
    cf_config bad = {0, 2, 20, 1, 16};
    cf_chain *c = NULL;
    assert_int_equal(cf_chain_create(&bad, &c), FL_ERR_BAD_N);
    bad.capacity = 10;
    static const uint32_t bad_bits[] = {0, 4, 9, 10, 14, 15, 17, 24, 32, 63, 64, 0xffffffffu};
    for (size_t i = 0; i < sizeof bad_bits / sizeof bad_bits[0]; i++) {
        bad.fp_bits = bad_bits[i];
        assert_false(cf_fp_bits_ok(bad_bits[i]));
        assert_int_equal(cf_chain_create(&bad, &c), FL_ERR_BAD_K);
    }
    bad.fp_bits = 8, bad.expansion = CF_EXPANSION_MAX + 1;
    assert_int_equal(cf_chain_create(&bad, &c), FL_ERR_INVALID_ARG);
    assert_null(c);

    enum { N = 20000 };
    uint64_t *h = malloc(N * sizeof *h);
    uint8_t *out = malloc(N);
    static const uint32_t widths[] = {8, 11, 12, 13, 16}; /* every width the chain takes */
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        const uint32_t fp = widths[w];
        assert_true(cf_fp_bits_ok(fp));
        c = new_chain(1000, 2, fp);
        for (size_t i = 0; i < N; i++) h[i] = fl_hash_u64(i, 99);
        size_t added = 0;
        assert_int_equal(cf_chain_add_hashes(c, h, N, &added), FL_OK);
        assert_int_equal(added, N);
        assert_true(c->filters > 1);
        assert_int_equal(c->items, N);
        /* cf_chain_hash (XXH3 called directly) is the hash every filter gives a key, for
         * every length XXH3 treats apart (0, 1-3, 4-8, 9-16, 17-128, 129-240, longer). */
        char key[300];
        for (size_t i = 0; i < sizeof key; i++) key[i] = (char)(i * 37 + fp);
        for (size_t len = 0; len <= sizeof key; len += len < 20 ? 1 : 13)
            for (uint32_t j = 0; j < c->filters; j++)
                assert_true(cf_chain_hash(c, key, len) == fl_hash_bytes(c->f[j], key, len));
        assert_int_equal(cf_chain_contains(c, h, N, out), FL_OK);
        for (size_t i = 0; i < N; i++) assert_int_equal(out[i], 1);
        /* Deletes of half the keys. In a chain a delete removes the first matching
         * fingerprint from the newest filter that has one, which may be another key's
         * (a false positive there, about 8 / 2^fp per filter): that key may then be missed
         * and its own delete find nothing. Such misses stay rare. */
        size_t not_found = 0, missed = 0;
        for (size_t i = 0; i < N / 2; i++) {
            fl_status st = cf_chain_delete(c, h[i]);
            assert_true(st == FL_OK || st == FL_ERR_NOT_FOUND);
            not_found += st == FL_ERR_NOT_FOUND;
        }
        assert_int_equal(c->deleted, N / 2 - not_found);
        assert_int_equal(c->items, N - (N / 2 - not_found));
        assert_int_equal(cf_chain_contains(c, h + N / 2, N - N / 2, out), FL_OK);
        for (size_t i = 0; i < N - N / 2; i++) missed += out[i] == 0;
        assert_true(not_found <= N / 100 && missed <= N / 100);
        if (fp == 16) assert_true(not_found <= N / 1000 && missed <= N / 1000);

        /* Round trip: same answers, same counts, byte-identical re-save. */
        size_t cap = cf_chain_serialized_size(c), len;
        uint8_t *buf = malloc(cap);
        assert_int_equal(cf_chain_save(c, buf, cap, &len), FL_OK);
        assert_int_equal(len, cap);
        cf_chain *d = NULL;
        assert_int_equal(cf_chain_load(buf, len, &d), FL_OK);
        assert_int_equal(d->filters, c->filters);
        assert_int_equal(d->items, c->items);
        uint8_t *out2 = malloc(N);
        for (size_t i = 0; i < N; i++) h[i] = fl_hash_u64(i + 7 * N, 5);
        cf_chain_contains(c, h, N, out);
        cf_chain_contains(d, h, N, out2);
        assert_memory_equal(out, out2, N);
        uint8_t *buf2 = malloc(cap);
        assert_int_equal(cf_chain_save(d, buf2, cap, &len), FL_OK);
        assert_memory_equal(buf, buf2, cap);
        assert_int_equal(cf_chain_save(d, buf2, cap - 1, &len), FL_ERR_BUFFER_TOO_SMALL);
        cf_chain_free(d);
        free(buf2);
        free(out2);
        free(buf);
        cf_chain_free(c);
    }

    /* Expansion 0: FULL, and nothing added by the refused key. */
    c = new_chain(64, 0, 16);
    size_t added = 0;
    for (size_t i = 0; i < 1000; i++) h[i] = fl_hash_u64(i, 1);
    assert_int_equal(cf_chain_add_hashes(c, h, 1000, &added), FL_ERR_FULL);
    assert_true(added >= 60 && added < 1000);
    assert_int_equal(c->items, added);
    assert_int_equal(c->filters, 1);
    assert_int_equal(cf_chain_add(c, h[added]), FL_ERR_FULL);
    assert_int_equal(c->items, added);
    cf_chain_free(c);
    free(h);
    free(out);
}

/* CF.RESERVE's capacity counts items: that many distinct adds never grow the chain, for
 * small and large capacities and both fingerprint widths; the filter holds them at the
 * library's sizing load (the cuckoo descriptor's max_load), not at 100% of its slots. */
static void test_cf_capacity_fits(void **state) {
    (void)state;
    fl_variant_info cuckoo;
    assert_int_equal(fl_variant_describe(FL_CUCKOO, &cuckoo), FL_OK);
    const uint64_t capacities[] = {1, 3, 7, 100, 1000, 1024, 4096, 100000};
    uint64_t *h = malloc(100000 * sizeof *h);
    for (uint32_t fp = 8; fp <= 16; fp += 8) {
        for (size_t ci = 0; ci < sizeof capacities / sizeof capacities[0]; ci++) {
            uint64_t n = capacities[ci];
            cf_chain *c = new_chain(n, 1, fp);
            for (uint64_t i = 0; i < n; i++) h[i] = fl_hash_u64(i + 1000000 * ci, 42 + fp);
            size_t added = 0;
            assert_int_equal(cf_chain_add_hashes(c, h, n, &added), FL_OK);
            assert_int_equal(added, n);
            assert_int_equal(c->filters, 1);
            cf_totals t;
            cf_chain_totals(c, &t);
            assert_int_equal(t.capacity, n);
            assert_int_equal(t.slots, t.buckets * cuckoo.unit_slots);
            assert_int_equal(t.used + t.stashed, n);
            /* The fewest whole buckets that keep the load within max_load. */
            assert_true((double)n <= (double)t.slots * cuckoo.max_load);
            assert_true((double)n > (double)(t.slots - cuckoo.unit_slots) * cuckoo.max_load);
            cf_chain_free(c);
        }
    }
    /* Grown filters are sized for capacity * expansion^i items. */
    cf_chain *c = new_chain(1000, 2, 16);
    for (uint64_t i = 0; i < 7000; i++) h[i] = fl_hash_u64(i, 77);
    size_t added;
    assert_int_equal(cf_chain_add_hashes(c, h, 7000, &added), FL_OK);
    assert_true(c->filters >= 3);
    cf_totals t;
    cf_chain_totals(c, &t);
    assert_int_equal(t.capacity, 1000u * ((1u << c->filters) - 1));
    cf_chain_free(c);
    free(h);
}

/* cf_chain_count: copies summed over the chain's filters, never below the truth. */
static void test_cf_chain_count(void **state) {
    (void)state;
    cf_chain *c = new_chain(64, 1, 16);
    const uint64_t x = fl_hash_u64(123456789, 1);
    uint64_t n = 99;
    assert_int_equal(cf_chain_count(c, x, &n), FL_OK);
    assert_int_equal(n, 0);
    assert_int_equal(cf_chain_add(c, x), FL_OK);
    assert_int_equal(cf_chain_add(c, x), FL_OK);
    assert_int_equal(cf_chain_count(c, x, &n), FL_OK);
    assert_int_equal(n, 2);
    /* Grow the chain, then add x again: its copies sit in two filters. */
    uint64_t h[400];
    for (size_t i = 0; i < 400; i++) h[i] = fl_hash_u64(i, 2);
    size_t added;
    assert_int_equal(cf_chain_add_hashes(c, h, 400, &added), FL_OK);
    assert_true(c->filters >= 3);
    assert_int_equal(cf_chain_add(c, x), FL_OK);
    assert_int_equal(cf_chain_count(c, x, &n), FL_OK);
    assert_true(n >= 3);
    uint64_t before = n;
    for (int r = 0; r < 3; r++) {
        assert_int_equal(cf_chain_delete(c, x), FL_OK);
        assert_int_equal(cf_chain_count(c, x, &n), FL_OK);
        assert_int_equal(n, before - 1 - (uint64_t)r);
    }
    for (size_t i = 0; i < 400; i++) {
        assert_int_equal(cf_chain_count(c, h[i], &n), FL_OK);
        assert_true(n >= 1);
    }
    cf_chain_free(c);
}

/* A chain saved in format 1 (capacity counted slots: ceil(capacity / 4) buckets), written
 * here field by field as cf_chain_save wrote it then: it loads, keeps its sizing as it grows,
 * and saves as format 1 again. */
static void test_cf_chain_format1(void **state) {
    (void)state;
    const uint64_t capacity = 1000;
    fl_config fc = {.variant = FL_CUCKOO, .geometry = {FL_CUCKOO, (capacity + 3) / 4, 16}};
    fl_filter *f = NULL;
    assert_int_equal(fl_create(&fc, &f), FL_OK);
    uint64_t h[3000];
    for (size_t i = 0; i < 3000; i++) h[i] = fl_hash_u64(i, 11);
    assert_int_equal(fl_insert_hashes(f, h, 500, NULL), FL_OK);
    size_t fsize = fl_serialized_size(f), w;
    size_t len = 56 + 8 + fsize + 8;
    uint8_t *blob = calloc(1, len);
    memcpy(blob, "FLCF", 4);
    flr_put32(blob + 4, 1);
    flr_put64(blob + 8, capacity);
    flr_put32(blob + 16, CF_BUCKET_SIZE_DEFAULT);
    flr_put32(blob + 20, CF_MAX_ITERATIONS_DEFAULT);
    flr_put32(blob + 24, 2); /* expansion */
    flr_put32(blob + 28, 16);
    flr_put64(blob + 32, 500); /* items */
    flr_put64(blob + 40, 0);   /* deleted */
    flr_put32(blob + 48, 1);   /* filters */
    assert_int_equal(fl_save_mem(f, blob + 64, fsize, &w), FL_OK);
    assert_int_equal(w, fsize);
    flr_put64(blob + 56, w);
    flr_put64(blob + 64 + w, XXH3_64bits(blob, 64 + w));
    fl_free(f);

    cf_chain *c = NULL;
    assert_int_equal(cf_chain_load(blob, len, &c), FL_OK);
    assert_int_equal(c->sizing, CF_SIZING_SLOTS);
    uint8_t out[3000];
    assert_int_equal(cf_chain_contains(c, h, 500, out), FL_OK);
    for (size_t i = 0; i < 500; i++) assert_int_equal(out[i], 1);
    /* Growth in format 1's sizing: filter i has capacity * 2^i slots. */
    size_t added;
    assert_int_equal(cf_chain_add_hashes(c, h + 500, 2500, &added), FL_OK);
    assert_true(c->filters >= 2);
    fl_info in;
    assert_int_equal(fl_get_info(c->f[1], &in), FL_OK);
    assert_int_equal(in.geometry.units, 2 * capacity / 4);
    assert_int_equal(cf_chain_contains(c, h, 3000, out), FL_OK);
    for (size_t i = 0; i < 3000; i++) assert_int_equal(out[i], 1);
    size_t cap = cf_chain_serialized_size(c);
    uint8_t *again = malloc(cap);
    assert_int_equal(cf_chain_save(c, again, cap, &len), FL_OK);
    assert_int_equal(flr_get32(again + 4), 1);
    cf_chain *d = NULL;
    assert_int_equal(cf_chain_load(again, len, &d), FL_OK);
    assert_int_equal(d->sizing, CF_SIZING_SLOTS);
    assert_int_equal(d->filters, c->filters);
    /* A format 1 header over format 2 geometry (or the reverse) is refused. */
    cf_chain *e = new_chain(capacity, 2, 16);
    cap = cf_chain_serialized_size(e);
    uint8_t *v2 = malloc(cap);
    assert_int_equal(cf_chain_save(e, v2, cap, &len), FL_OK);
    assert_int_equal(flr_get32(v2 + 4), 2);
    flr_put32(v2 + 4, 1);
    flr_put64(v2 + len - 8, XXH3_64bits(v2, len - 8));
    cf_chain *g = (cf_chain *)1;
    assert_int_equal(cf_chain_load(v2, len, &g), FL_ERR_CORRUPT);
    assert_ptr_equal(g, (cf_chain *)1);
    flr_put32(v2 + 4, 3);
    flr_put64(v2 + len - 8, XXH3_64bits(v2, len - 8));
    assert_int_equal(cf_chain_load(v2, len, &g), FL_ERR_BAD_VERSION);
    cf_chain_free(e);
    cf_chain_free(d);
    cf_chain_free(c);
    free(v2);
    free(again);
    free(blob);
}

/* cf_chain_compact drops the filters deletes emptied and nothing else; max_bytes bounds the
 * first filter and the growth, refusing before it allocates. */
static void test_cf_chain_compact_and_cap(void **state) {
    (void)state;
    enum { N = 400, KEEP = 10 };
    uint64_t h[N];
    uint8_t out[N];
    for (size_t i = 0; i < N; i++) h[i] = fl_hash_u64(i, 3);
    cf_chain *c = new_chain(16, 1, 16);
    size_t added = 0;
    assert_int_equal(cf_chain_add_hashes(c, h, N, &added), FL_OK);
    uint32_t grown = c->filters;
    assert_true(grown > 4);
    assert_int_equal(cf_chain_compact(c), 0); /* no filter is empty */
    assert_int_equal(c->filters, grown);
    /* Delete all but the first KEEP keys (they sit in the oldest filter). */
    for (size_t i = KEEP; i < N; i++) assert_int_equal(cf_chain_delete(c, h[i]), FL_OK);
    uint32_t dropped = cf_chain_compact(c);
    assert_true(dropped > 0 && c->filters == grown - dropped && c->filters >= 1);
    assert_int_equal(cf_chain_contains(c, h, KEEP, out), FL_OK);
    for (size_t i = 0; i < KEEP; i++) assert_int_equal(out[i], 1);
    for (size_t i = 0; i < c->filters; i++) assert_non_null(c->f[i]);
    assert_int_equal(cf_chain_add_hashes(c, h + KEEP, N - KEEP, &added), FL_OK);
    assert_int_equal(cf_chain_contains(c, h, N, out), FL_OK);
    for (size_t i = 0; i < N; i++) assert_int_equal(out[i], 1);
    /* Everything deleted: one filter stays. */
    for (size_t i = 0; i < N; i++) assert_int_equal(cf_chain_delete(c, h[i]), FL_OK);
    cf_chain_compact(c);
    assert_int_equal(c->filters, 1);
    assert_int_equal(cf_chain_add(c, h[0]), FL_OK);
    cf_chain_free(c);

    /* The cap: a first filter above it is refused; growth stops at it, the chain intact. */
    cf_config cfg = {100000, CF_BUCKET_SIZE_DEFAULT, CF_MAX_ITERATIONS_DEFAULT, 2, 16};
    c = NULL;
    assert_int_equal(cf_chain_create_capped(&cfg, 4096, &c), FL_ERR_TOO_LARGE);
    assert_null(c);
    cfg.capacity = 500;
    assert_int_equal(cf_chain_create_capped(&cfg, 8192, &c), FL_OK);
    uint64_t many[8000];
    for (size_t i = 0; i < 8000; i++) many[i] = fl_hash_u64(i, 4);
    fl_status st = cf_chain_add_hashes(c, many, 8000, &added);
    assert_int_equal(st, FL_ERR_TOO_LARGE);
    assert_true(added > 500 && added < 8000);
    cf_totals t;
    cf_chain_totals(c, &t);
    assert_true(t.bytes <= 8192);
    assert_int_equal(c->items, added);
    static uint8_t found[8000];
    assert_int_equal(cf_chain_contains(c, many, added, found), FL_OK);
    for (size_t i = 0; i < added; i++) assert_int_equal(found[i], 1);
    cf_chain_free(c);

    /* Expansion 0: the capacity (adds less deletes) and no more, though the table (11
     * buckets, 44 slots, a stash) has room left. */
    cfg = (cf_config){40, CF_BUCKET_SIZE_DEFAULT, CF_MAX_ITERATIONS_DEFAULT, 0, 12};
    assert_int_equal(cf_chain_create(&cfg, &c), FL_OK);
    assert_int_equal(cf_chain_add_hashes(c, many, 100, &added), FL_ERR_FULL);
    assert_int_equal(added, 40);
    assert_int_equal(cf_chain_add(c, many[40]), FL_ERR_FULL);
    assert_int_equal(cf_chain_delete(c, many[0]), FL_OK);
    assert_int_equal(cf_chain_add(c, many[40]), FL_OK);
    assert_int_equal(cf_chain_add_hashes(c, many + 41, 1, &added), FL_ERR_FULL);
    assert_int_equal(added, 0);
    assert_int_equal(c->items, 40);
    assert_int_equal(c->filters, 1);
    assert_int_equal(cf_chain_contains(c, many + 1, 40, found), FL_OK);
    for (size_t i = 0; i < 40; i++) assert_int_equal(found[i], 1);
    cf_chain_free(c);
}

static void test_cf_chain_corruption(void **state) {
    (void)state;
    cf_chain *c = new_chain(40, 1, 8);
    uint64_t h[200];
    for (size_t i = 0; i < 200; i++) h[i] = fl_hash_u64(i, 3);
    size_t added;
    assert_int_equal(cf_chain_add_hashes(c, h, 200, &added), FL_OK);
    assert_true(c->filters >= 3);
    size_t len = cf_chain_serialized_size(c);
    uint8_t *buf = malloc(len), *cut = malloc(len);
    assert_int_equal(cf_chain_save(c, buf, len, &len), FL_OK);
    cf_chain *d = (cf_chain *)1;
    /* Every truncation, in an exact-size buffer so ASan sees any over-read. */
    for (size_t n = 0; n < len; n++) {
        uint8_t *p = malloc(n ? n : 1);
        memcpy(p, buf, n);
        d = (cf_chain *)1;
        assert_int_not_equal(cf_chain_load(p, n, &d), FL_OK);
        assert_ptr_equal(d, (cf_chain *)1);
        free(p);
    }
    /* Every bit flip. */
    for (size_t i = 0; i < len; i++) {
        for (int bit = 0; bit < 8; bit++) {
            memcpy(cut, buf, len);
            cut[i] ^= (uint8_t)(1u << bit);
            assert_int_not_equal(cf_chain_load(cut, len, &d), FL_OK);
        }
    }
    assert_int_equal(cf_chain_load(buf, len, &d), FL_OK);
    cf_chain_free(d);
    free(buf);
    free(cut);
    cf_chain_free(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_chunk_round_trip),
        cmocka_unit_test(test_chunk_refusals),
        cmocka_unit_test(test_cf_chain),
        cmocka_unit_test(test_cf_chain_compact_and_cap),
        cmocka_unit_test(test_cf_chain_corruption),
        cmocka_unit_test(test_cf_capacity_fits),
        cmocka_unit_test(test_cf_chain_count),
        cmocka_unit_test(test_cf_chain_format1),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
