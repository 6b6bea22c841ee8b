/*
 * Compressed Bloom filters (src/compressed/compressed.c, the coders, src/compressed/codec_compressed.c): the
 * sizing against Mitzenmacher's formulas, round trips that give back the identical bitset
 * and answers for every bit-array variant, coder, and chunk size, chunked lookups equal to
 * the full filter's, the coders' edge cases (empty, full, dense chunks), and the file codec
 * (kinds, every truncation and bit flip, caps, crafted codes with valid checksums).
 */
#include "testutil.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

/* only its reseal_container is used here */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "fuzz_reseal.h"
#pragma GCC diagnostic pop
#include "core/internal.h"

static fl_filter *filled(fl_variant v, uint64_t n, double fpr, uint64_t stream) {
    fl_filter *f = NULL;
    assert_int_equal(fl_create_for(v, n, fpr, &f), FL_OK);
    uint64_t *h = test_hashes(n, stream);
    assert_int_equal(fl_insert_hashes(f, h, n, NULL), FL_OK);
    free(h);
    return f;
}

static uint8_t *saved_filter(const fl_filter *f, size_t *len) {
    *len = fl_serialized_size(f);
    uint8_t *b = malloc(*len);
    assert_int_equal(fl_save_mem(f, b, *len, NULL), FL_OK);
    return b;
}

static void test_entropy_and_plans(void **state) {
    (void)state;
    assert_true(fabs(fl_cbf_entropy(0.5) - 1) < 1e-12);
    assert_true(fl_cbf_entropy(0) == 0 && fl_cbf_entropy(1) == 0);
    assert_true(fabs(fl_cbf_entropy(0.11) - 0.4999) < 1e-3);
    fl_cbf_plan p;
    assert_int_equal(fl_cbf_plan_for_bits(FL_CUCKOO, 100, 800, 0, &p), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_cbf_plan_for_bits(FL_COUNTING, 100, 800, 0, &p), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_cbf_plan_for_bits(FL_CLASSIC, 0, 800, 0, &p), FL_ERR_BAD_N);
    assert_int_equal(fl_cbf_plan_for_bits(FL_CLASSIC, 100, 0, 0, &p), FL_ERR_TOO_LARGE);
    assert_int_equal(fl_cbf_plan_for_fpr(FL_CLASSIC, 100, 0, 0, &p), FL_ERR_BAD_FPR);

    /* Mitzenmacher 2002: for z = 8 bits per key, an uncompressed classic filter of m = z
     * bits reaches about 2.16% at its best k; allowed m <= 4z, a compressed one beats it
     * within the same m H(p) <= z. */
    const uint64_t n = 100000, z = 8 * n;
    fl_params plain;
    assert_int_equal(fl_params_for_bytes(FL_CLASSIC, n, z / 8, &plain), FL_OK);
    fl_cbf_plan c;
    assert_int_equal(fl_cbf_plan_for_bits(FL_CLASSIC, n, z, 4 * z, &c), FL_OK);
    print_message("classic, z = 8 bits/key: plain m = z FPR %.4g; compressed m = %.2f z, k = %u, "
                  "p = %.3f, FPR %.4g\n", plain.predicted_fpr, (double)c.bits / (double)z,
                  c.geometry.k, c.zero_fraction, c.fpr);
    assert_true(c.entropy_bits <= (double)z);
    assert_true(c.bits <= 4 * z);
    assert_true(c.fpr < plain.predicted_fpr);
    /* away from 1/2, where compression gains nothing (the search may go either way: few
     * ones with small k, or few zeros with large k) */
    assert_true(fabs(c.zero_fraction - 0.5) > 0.1);
    /* more room for m, lower FPR (the trade the paper describes); with m free the optimum
     * is k = 1 (Mitzenmacher 2002, Table I: z/n = 8 gives m/n near 92 and FPR near 1.1%) */
    fl_cbf_plan wide;
    assert_int_equal(fl_cbf_plan_for_bits(FL_CLASSIC, n, z, 64 * z, &wide), FL_OK);
    assert_true(wide.fpr <= c.fpr);
    assert_int_equal(wide.geometry.k, 1);
    assert_true(wide.fpr > 0.009 && wide.fpr < 0.012);
    /* the plan is the best k: no k does better at the largest m that fits */
    for (uint32_t k = 1; k <= 16; k++) {
        fl_cbf_plan pk;
        fl_geometry g = {FL_CLASSIC, c.geometry.units, k};
        if (fl_cbf_plan_geometry(&g, n, &pk) != FL_OK) continue;
        if (pk.entropy_bits <= (double)z) assert_true(pk.fpr >= c.fpr * (1 - 1e-9));
    }
    /* dual: for the plain filter's FPR, a compressed plan needs fewer bits */
    fl_cbf_plan d;
    assert_int_equal(fl_cbf_plan_for_fpr(FL_CLASSIC, n, plain.predicted_fpr, 4 * z, &d), FL_OK);
    assert_true(d.fpr <= plain.predicted_fpr);
    assert_true(d.entropy_bits < (double)z);
    /* blocked variants plan too */
    assert_int_equal(fl_cbf_plan_for_bits(FL_BLOCK512, n, z, 4 * z, &c), FL_OK);
    assert_true(c.entropy_bits <= (double)z && c.bits <= 4 * z);
}

/* The bit-array variants, read from the descriptors (not a list written here), so a variant
 * added later is round-tripped and its chunked lookups compared with the whole filter's. */
static size_t bit_array_variants(fl_variant *vs, size_t cap) {
    size_t n = 0;
    for (int v = FL_VARIANT_MIN; v <= FL_VARIANT_MAX; v++) {
        const fl_variant_desc *d = fl_variant_desc_of((fl_variant)v);
        if (d && d->info.unit_slots == 0 && d->info.counter_bits == 0 && n < cap)
            vs[n++] = (fl_variant)v;
    }
    return n;
}

/* A blocked bit array (block_bits set) must say how one unit is probed: without unit_probe
 * its compressed form would refuse chunked lookups, and a probe that ignored the variant
 * would answer "absent" for every key. */
static void test_blocked_variants_probe_units(void **state) {
    (void)state;
    fl_variant vs[FL_VARIANT_MAX + 1];
    size_t nv = bit_array_variants(vs, FL_VARIANT_MAX + 1);
    assert_true(nv >= 4);
    for (size_t v = 0; v < nv; v++) {
        const fl_variant_desc *d = fl_variant_desc_of(vs[v]);
        if (d->block_bits) assert_non_null(d->unit_probe);
        else assert_null(d->unit_probe);
    }
}

/* Round trips for every bit-array variant, both coders and several chunk sizes, including
 * a payload that is not a multiple of the chunk. */
static void test_round_trips(void **state) {
    (void)state;
    fl_variant vs[FL_VARIANT_MAX + 1];
    size_t nv = bit_array_variants(vs, FL_VARIANT_MAX + 1);
    const fl_coder coders[] = {FL_CODER_GOLOMB, FL_CODER_ZSTD};
    const uint32_t chunks[] = {64, 448, 4096, 0};
    const size_t q = 20000;
    uint64_t *probe = test_hashes(q, 7); /* the first 3000 were inserted */
    uint8_t *full = malloc(q), *part = malloc(q);
    for (size_t v = 0; v < nv; v++) {
        fl_filter *f = filled(vs[v], 3000, 0.02, 7);
        size_t flen = 0;
        uint8_t *fbytes = saved_filter(f, &flen);
        size_t pos_full = 0;
        assert_int_equal(fl_contains_hashes(f, probe, q, full, &pos_full), FL_OK);
        for (size_t c = 0; c < 2; c++)
            for (size_t s = 0; s < 4; s++) {
                fl_cbf *z = NULL;
                assert_int_equal(fl_cbf_compress(f, coders[c], chunks[s], &z), FL_OK);
                assert_int_equal(fl_cbf_verify(z), FL_OK);
                fl_cbf_info in;
                assert_int_equal(fl_cbf_get_info(z, &in), FL_OK);
                assert_int_equal(in.payload_bytes, fl_size_bytes(f));
                assert_int_equal(in.chunk_bytes, chunks[s] ? chunks[s] : FL_CBF_CHUNK_DEFAULT);
                assert_int_equal(in.keys, 3000);
                /* identical bitset and fields */
                fl_filter *back = NULL;
                assert_int_equal(fl_cbf_decompress(z, &back), FL_OK);
                size_t blen = 0;
                uint8_t *bbytes = saved_filter(back, &blen);
                assert_int_equal(blen, flen);
                assert_memory_equal(bbytes, fbytes, flen);
                free(bbytes);
                fl_free(back);
                /* saved and loaded: the same bytes again */
                size_t len = fl_cbf_serialized_size(z), written = 0;
                uint8_t *buf = malloc(len);
                assert_int_equal(fl_cbf_save_mem(z, buf, len, &written), FL_OK);
                assert_int_equal(written, len);
                fl_cbf *l = NULL;
                assert_int_equal(fl_cbf_load_mem(buf, len, 0, &l), FL_OK);
                uint8_t *again = malloc(len);
                assert_int_equal(fl_cbf_save_mem(l, again, len, NULL), FL_OK);
                assert_memory_equal(buf, again, len);
                free(again);
                free(buf);
                /* chunked lookups equal the full filter's (blocked variants) */
                size_t pos = 0, decoded = 0;
                fl_status st = fl_cbf_contains_hashes(l, probe, q, part, &pos, &decoded);
                int found = 0;
                if (!fl_variant_desc_of(vs[v])->unit_probe) {
                    assert_int_equal(st, FL_ERR_UNSUPPORTED);
                    assert_int_equal(fl_cbf_contains_hash(l, probe[0], &found),
                                     FL_ERR_UNSUPPORTED);
                } else {
                    assert_int_equal(st, FL_OK);
                    assert_memory_equal(part, full, q);
                    assert_int_equal(pos, pos_full);
                    assert_true(decoded >= 1 && decoded <= in.chunks);
                    for (size_t i = 0; i < q; i += 97) {
                        assert_int_equal(fl_cbf_contains_hash(l, probe[i], &found), FL_OK);
                        assert_int_equal(found, full[i]);
                    }
                    /* one key decodes one chunk */
                    assert_int_equal(fl_cbf_contains_hashes(l, probe, 1, part, NULL, &decoded),
                                     FL_OK);
                    assert_int_equal(decoded, 1);
                }
                fl_cbf_free(l);
                fl_cbf_free(z);
            }
        free(fbytes);
        fl_free(f);
    }
    free(full);
    free(part);
    free(probe);
}

/* Empty, full, dense (the Golomb coder codes the clear bits then), half-full and
 * alternating payloads round-trip through both coders, chunk by chunk. */
static void check_payload_round_trip(fl_filter *f) {
    const fl_coder coders[] = {FL_CODER_GOLOMB, FL_CODER_ZSTD};
    for (size_t c = 0; c < 2; c++) {
        fl_cbf *z = NULL;
        assert_int_equal(fl_cbf_compress(f, coders[c], 128, &z), FL_OK);
        assert_int_equal(fl_cbf_verify(z), FL_OK);
        fl_cbf_info in;
        assert_int_equal(fl_cbf_get_info(z, &in), FL_OK);
        assert_true(in.compressed_bytes <= in.payload_bytes); /* stored when no gain */
        fl_filter *back = NULL;
        assert_int_equal(fl_cbf_decompress(z, &back), FL_OK);
        assert_memory_equal(back->data, f->data, f->bytes);
        fl_free(back);
        fl_cbf_free(z);
    }
}

static void test_edge_payloads(void **state) {
    (void)state;
    fl_filter *f = test_filter(FL_BLOCK512, 70, 8); /* 4480 bytes: 35 chunks of 128 */
    uint8_t *d = f->data;
    check_payload_round_trip(f); /* empty */
    memset(d, 0xff, f->bytes);
    check_payload_round_trip(f); /* full */
    uint64_t x = 1;
    for (size_t i = 0; i < f->bytes; i++) {
        x = fl_hash_u64(x, 3);
        d[i] = (uint8_t)(x | (x >> 8)); /* about 75% ones */
    }
    check_payload_round_trip(f);
    for (size_t i = 0; i < f->bytes; i++) d[i] = (uint8_t)(i & 1 ? 0x0f : 0xf0); /* half */
    check_payload_round_trip(f);
    for (size_t i = 0; i < f->bytes; i++) d[i] = 0x55;
    check_payload_round_trip(f);
    memset(d, 0, f->bytes);
    d[f->bytes - 1] = 0x80; /* one bit, at the very end: the longest gap */
    check_payload_round_trip(f);
    fl_cbf *z = NULL;
    assert_int_equal(fl_cbf_compress(NULL, FL_CODER_GOLOMB, 0, &z), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_cbf_compress(f, (fl_coder)9, 0, &z), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_cbf_compress(f, FL_CODER_GOLOMB, 100, &z), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_cbf_compress(f, FL_CODER_GOLOMB, FL_CBF_CHUNK_MAX + 64, &z),
                     FL_ERR_INVALID_ARG);
    fl_free(f);
    f = test_filter(FL_COUNTING, 16, 4);
    assert_int_equal(fl_cbf_compress(f, FL_CODER_GOLOMB, 0, &z), FL_ERR_UNSUPPORTED);
    assert_null(z);
    fl_free(f);
    fl_coder c;
    assert_int_equal(fl_coder_parse("zstd", &c), FL_OK);
    assert_int_equal(c, FL_CODER_ZSTD);
    assert_int_equal(fl_coder_parse("gzip", &c), FL_ERR_INVALID_ARG);
    assert_string_equal(fl_coder_name(FL_CODER_GOLOMB), "golomb");
    assert_null(fl_coder_name((fl_coder)0));
}

/* ---- the codec -------------------------------------------------------------------------- */

static uint8_t *saved_cbf(fl_coder coder, size_t *len) {
    fl_filter *f = filled(FL_BLOCK512, 200, 0.05, 8);
    fl_cbf *z = NULL;
    assert_int_equal(fl_cbf_compress(f, coder, 64, &z), FL_OK);
    *len = fl_cbf_serialized_size(z);
    uint8_t *buf = malloc(*len);
    assert_int_equal(fl_cbf_save_mem(z, buf, *len, NULL), FL_OK);
    fl_cbf_free(z);
    fl_free(f);
    return buf;
}

static void test_kinds_and_files(void **state) {
    (void)state;
    size_t len = 0;
    uint8_t *buf = saved_cbf(FL_CODER_GOLOMB, &len);
    uint32_t kind = 0;
    assert_int_equal(fl_file_kind_mem(buf, len, &kind), FL_OK);
    assert_int_equal(kind, FL_FILE_COMPRESSED_BLOOM);
    fl_filter *f = NULL;
    assert_int_equal(fl_load_mem(buf, len, 0, &f), FL_ERR_WRONG_KIND);
    fl_lbf *l = NULL;
    assert_int_equal(fl_lbf_load_mem(buf, len, 0, &l), FL_ERR_WRONG_KIND);
    fl_cbf *z = NULL;
    assert_int_equal(fl_cbf_load_mem(buf, len, 0, &z), FL_OK);
    fl_cbf_info in;
    assert_int_equal(fl_cbf_get_info(z, &in), FL_OK);
    fl_cbf *y = NULL;
    assert_int_equal(fl_cbf_load_mem(buf, len, in.payload_bytes - 1, &y), FL_ERR_TOO_LARGE);
    assert_null(y);
    assert_int_equal(fl_cbf_load_mem(buf, len, in.payload_bytes, &y), FL_OK);
    fl_cbf_free(y);
    char path[] = "/tmp/test_compressed_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(fl_cbf_save_file(z, path), FL_OK);
    assert_int_equal(fl_file_kind_file(path, &kind), FL_OK);
    assert_int_equal(kind, FL_FILE_COMPRESSED_BLOOM);
    assert_int_equal(fl_cbf_load_file(path, 0, &y), FL_OK);
    assert_int_equal(fl_cbf_verify(y), FL_OK);
    fl_cbf_free(y);
    fl_filter *plain = filled(FL_BLOCK512, 10, 0.1, 1);
    assert_int_equal(fl_save_file(plain, path), FL_OK);
    assert_int_equal(fl_cbf_load_file(path, 0, &y), FL_ERR_WRONG_KIND);
    unlink(path);
    assert_int_equal(fl_cbf_load_file(path, 0, &y), FL_ERR_IO);
    fl_free(plain);
    fl_cbf_free(z);
    free(buf);
}

static void test_truncations_and_flips(void **state) {
    (void)state;
    const fl_coder coders[] = {FL_CODER_GOLOMB, FL_CODER_ZSTD};
    for (size_t c = 0; c < 2; c++) {
        size_t len = 0;
        uint8_t *buf = saved_cbf(coders[c], &len);
        fl_cbf *z = NULL;
        for (size_t cut = 0; cut < len; cut++) {
            assert_int_equal(fl_cbf_load_mem(buf, cut, 0, &z), FL_ERR_TRUNCATED);
            assert_null(z);
        }
        uint8_t *longer = malloc(len + 1);
        memcpy(longer, buf, len);
        longer[len] = 0;
        assert_int_equal(fl_cbf_load_mem(longer, len + 1, 0, &z), FL_ERR_TRAILING_DATA);
        free(longer);
        for (size_t bit = 0; bit < 8 * len; bit++) {
            buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            fl_status st = fl_cbf_load_mem(buf, len, 0, &z);
            if (st == FL_OK) fprintf(stderr, "bit %zu accepted\n", bit);
            assert_int_not_equal(st, FL_OK);
            assert_null(z);
            buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        free(buf);
    }
}

/* Crafted headers with valid checksums: absurd sizes are refused before anything is
 * allocated (the payload cap, the index length against the chunk count, the file's length),
 * and every field the header fixes is checked. */
static uint8_t *section(uint8_t *buf, size_t len, uint32_t tag) {
    uint32_t count = (uint32_t)get_le(buf + 12, 4);
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *e = buf + 24 + 24 * (size_t)i;
        if ((uint32_t)get_le(e, 4) == tag) {
            uint64_t off = get_le(e + 8, 8);
            assert_true(off < len);
            return buf + off;
        }
    }
    fail_msg("no section %08x", tag);
    return NULL;
}

static void test_crafted_sizes(void **state) {
    (void)state;
    size_t len = 0;
    uint8_t *buf = saved_cbf(FL_CODER_GOLOMB, &len);
    uint8_t *m = malloc(len);
    const uint32_t cbfh = 'C' | 'B' << 8 | 'F' << 16 | (uint32_t)'H' << 24;
    const uint32_t cidx = 'C' | 'I' << 8 | 'D' << 16 | (uint32_t)'X' << 24;
    struct { size_t at; uint64_t value; int width; fl_status want; } cases[] = {
        {8, (uint64_t)1 << 31, 8, FL_ERR_CORRUPT},    /* units: the chunk count disagrees */
        {8, 0, 8, FL_ERR_CORRUPT},                    /* no unit */
        {4, 99, 4, FL_ERR_CORRUPT},                   /* k out of range */
        {48, 1ull << 60, 8, FL_ERR_CORRUPT},          /* chunks not the payload's */
        {32, 96, 4, FL_ERR_CORRUPT},                  /* chunk bytes not a multiple of 64 */
        {32, 1u << 30, 4, FL_ERR_CORRUPT},            /* chunk bytes above the maximum */
        {40, 1ull << 40, 8, FL_ERR_CORRUPT},          /* more set bits than bits */
        {2, 7, 1, FL_ERR_CORRUPT},                    /* unknown coder */
        {0, 6, 1, FL_ERR_CORRUPT},                    /* a counting variant */
        {36, 1, 4, FL_ERR_CORRUPT},                   /* reserved bytes */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        memcpy(m, buf, len);
        uint8_t *h = section(m, len, cbfh);
        for (int b = 0; b < cases[i].width; b++) h[cases[i].at + b] = (uint8_t)(cases[i].value >> (8 * b));
        reseal_container(m, len);
        fl_cbf *z = NULL;
        fl_status st = fl_cbf_load_mem(m, len, 1 << 20, &z);
        if (st != cases[i].want) print_message("case %zu: %s\n", i, fl_strerror(st));
        assert_int_equal(st, cases[i].want);
        assert_null(z);
    }
    /* 128 GiB of payload, chunk count to match: the caller's cap refuses it, and without a
     * cap the index it would need is not in the file */
    memcpy(m, buf, len);
    uint8_t *h = section(m, len, cbfh);
    for (int b = 0; b < 8; b++) h[8 + b] = (uint8_t)(((uint64_t)1 << 31) >> (8 * b));
    for (int b = 0; b < 8; b++) h[48 + b] = (uint8_t)(((uint64_t)1 << 31) >> (8 * b));
    reseal_container(m, len);
    fl_cbf *y = NULL;
    assert_int_equal(fl_cbf_load_mem(m, len, 1 << 20, &y), FL_ERR_TOO_LARGE);
    assert_null(y);
    assert_int_equal(fl_cbf_load_mem(m, len, 0, &y), FL_ERR_CORRUPT); /* the index's length */
    assert_null(y);
    /* offsets: not starting at 0, going back, a code longer than its coder's bound */
    const uint64_t bad[][2] = {{0, 1}, {1, 0}, {2, 1}, {1, 1ull << 40}};
    for (size_t i = 0; i < 4; i++) {
        memcpy(m, buf, len);
        uint8_t *x = section(m, len, cidx) + 8 * bad[i][0];
        for (int b = 0; b < 8; b++) x[b] = (uint8_t)(bad[i][1] >> (8 * b));
        reseal_container(m, len);
        fl_cbf *z = NULL;
        assert_int_equal(fl_cbf_load_mem(m, len, 0, &z), FL_ERR_CORRUPT);
        assert_null(z);
    }
    free(m);
    free(buf);
}

/* Checksums recomputed after each flip (tests/fuzz_reseal.h), so the fields and the codes
 * themselves are what the loader and the decoders judge: every outcome is a status, the
 * index checks refuse what they can, and a code that still decodes gives a filter of the
 * same geometry. ASan (scripts/test) watches the reads. */
static void test_resealed_flips(void **state) {
    (void)state;
    const fl_coder coders[] = {FL_CODER_GOLOMB, FL_CODER_ZSTD};
    uint64_t *probe = test_hashes(64, 3);
    uint8_t out[64];
    for (size_t c = 0; c < 2; c++) {
        size_t len = 0;
        uint8_t *buf = saved_cbf(coders[c], &len);
        uint8_t *m = malloc(len);
        size_t loaded = 0, corrupt_codes = 0;
        for (size_t bit = 0; bit < 8 * len; bit++) {
            memcpy(m, buf, len);
            m[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            reseal_container(m, len);
            fl_cbf *z = NULL;
            fl_status st = fl_cbf_load_mem(m, len, 1 << 20, &z);
            if (st != FL_OK) {
                assert_null(z);
                assert_true(st > FL_OK && st < FL_STATUS_COUNT);
                continue;
            }
            loaded++;
            st = fl_cbf_verify(z);
            assert_true(st == FL_OK || st == FL_ERR_CORRUPT);
            fl_status sl = fl_cbf_contains_hashes(z, probe, 64, out, NULL, NULL);
            assert_true(sl == FL_OK || sl == FL_ERR_CORRUPT || sl == FL_ERR_UNSUPPORTED);
            fl_filter *f = NULL;
            fl_status sd = fl_cbf_decompress(z, &f);
            assert_true(sd == FL_OK || sd == FL_ERR_CORRUPT || sd == FL_ERR_NO_MEMORY);
            if (sd == FL_ERR_CORRUPT) corrupt_codes++;
            fl_free(f);
            fl_cbf_free(z);
        }
        print_message("%s: %zu of %zu resealed flips load; %zu of them have a code that "
                      "does not decode\n", fl_coder_name(coders[c]), loaded, 8 * len,
                      corrupt_codes);
        assert_true(corrupt_codes > 0);
        free(m);
        free(buf);
    }
    free(probe);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entropy_and_plans),
        cmocka_unit_test(test_blocked_variants_probe_units),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_edge_payloads),
        cmocka_unit_test(test_kinds_and_files),
        cmocka_unit_test(test_truncations_and_flips),
        cmocka_unit_test(test_resealed_flips),
        cmocka_unit_test(test_crafted_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
