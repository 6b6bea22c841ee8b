/*
 * libFuzzer target for the Redis module's decoders (redis/chunk.c, redis/cf_chain.c,
 * redis/inplace_codec.c): the LOADCHUNK reassembly fed any sequence of chunks, and the CF
 * chain's and the GROWTH INPLACE value's codecs fed any bytes.
 * Neither may crash or read out of bounds; a reassembly that completes holds exactly the
 * pieces fed, and the blob it yields goes through the loader the module would use
 * (cf_chain_load, fl_sbf_load_mem), whose result must behave (lookups of the added keys,
 * a re-save of the same size).
 *
 * Input: byte 0 selects the mode: bit 0 "reseal" (recompute the hashes the module checks,
 * so mutations reach the structure decoders behind them), bit 1 "raw CF value" (the rest is
 * a cf_chain blob), else bit 2 "raw INPLACE value" (the rest is an INPLACE blob of kind BF,
 * or CF with bit 3 set), else a chunk sequence: [kind u8][length u16 LE][chunk bytes] ...
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true && ninja -C build-fuzz
 *   mkdir -p /tmp/corpus_rc
 *   build-fuzz/tests/fuzz_redis_chunk -max_total_time=60 /tmp/corpus_rc \
 *       tests/fuzz_corpus/redis_chunk
 *
 * Seeds (tests/fuzz_corpus/redis_chunk/) come from this file's generator:
 *   build/tests/redis_chunk_replay --write-seeds tests/fuzz_corpus/redis_chunk
 * and the same program with file arguments replays them (the `redis_chunk_seeds` test).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "cf_chain.h"
#include "chunk.h"
#include "filterlab.h"
#include "fuzz_check.h"
#include "inplace_codec.h"

#define FUZZ_CAP ((size_t)1 << 20)

static void put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void check_cf(const uint8_t *blob, size_t len) {
    cf_chain *c = (cf_chain *)1;
    fl_status st = cf_chain_load(blob, len, &c);
    if (st != FL_OK) {
        CHECK(c == (cf_chain *)1);
        CHECK(st > FL_OK && st < FL_STATUS_COUNT);
        return;
    }
    CHECK(c->filters >= 1 && c->filters <= CF_FILTERS_MAX);
    CHECK(cf_chain_serialized_size(c) == len);
    uint64_t h[64];
    uint8_t out[64];
    for (int i = 0; i < 64; i++) h[i] = fl_hash_u64((uint64_t)i, 77);
    size_t added = 0;
    st = cf_chain_add_hashes(c, h, 64, &added);
    CHECK(st == FL_OK || st == FL_ERR_FULL || st == FL_ERR_TOO_LARGE);
    CHECK(cf_chain_contains(c, h, added, out) == FL_OK);
    for (size_t i = 0; i < added; i++) CHECK(out[i] == 1);
    cf_chain_free(c);
}

/* An INPLACE value: refused with *out untouched, or loaded: it encodes back to the same
 * bytes and finds every key it then takes. */
static void check_inplace(const uint8_t *blob, size_t len, uint32_t kind) {
    flr_inplace *ip = (flr_inplace *)1;
    fl_status st = flr_inplace_decode(blob, len, kind, FUZZ_CAP, &ip);
    if (st != FL_OK) {
        CHECK(ip == (flr_inplace *)1);
        CHECK(st > FL_OK && st < FL_STATUS_COUNT);
        return;
    }
    CHECK(ip->kind == kind && ip->capacity > 0);
    size_t n = 0;
    uint8_t *again = flr_inplace_encode(ip, &n);
    CHECK(again != NULL && n == len && memcmp(again, blob, len) == 0);
    free(again);
    for (uint64_t i = 0; i < 64; i++) {
        uint64_t h = fl_hash_u64(i, 78);
        if (fl_gcf_insert_hash(ip->g, h) == FL_OK) CHECK(fl_gcf_contains_hash(ip->g, h));
    }
    flr_inplace_free(ip);
}

static void check_sbf(const uint8_t *blob, size_t len) {
    fl_sbf *s = NULL;
    if (fl_sbf_load_mem(blob, len, FUZZ_CAP, &s) != FL_OK) return;
    CHECK(fl_sbf_serialized_size(s) == len);
    fl_sbf_free(s);
}

/* Rewrites the hashes of a chunk sequence as a dump of the concatenated pieces would have
 * them, so mutated contents reach the loaders. */
static void reseal(uint8_t **chunks, const size_t *lens, size_t n) {
    XXH3_state_t blob;
    XXH3_64bits_reset(&blob);
    for (size_t i = 0; i < n; i++)
        if (lens[i] > FLR_CHUNK_HEADER)
            XXH3_64bits_update(&blob, chunks[i] + FLR_CHUNK_HEADER, lens[i] - FLR_CHUNK_HEADER);
    uint64_t bh = XXH3_64bits_digest(&blob);
    for (size_t i = 0; i < n; i++) {
        if (lens[i] < FLR_CHUNK_HEADER) continue;
        put64(chunks[i] + 32, bh);
        XXH3_state_t st;
        XXH3_64bits_reset(&st);
        XXH3_64bits_update(&st, chunks[i], 40);
        XXH3_64bits_update(&st, chunks[i] + FLR_CHUNK_HEADER, lens[i] - FLR_CHUNK_HEADER);
        put64(chunks[i] + 40, XXH3_64bits_digest(&st));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    uint8_t mode = data[0];
    data++, size--;
    if (mode & 2) {
        uint8_t *copy = malloc(size ? size : 1);
        CHECK(copy != NULL);
        memcpy(copy, data, size);
        if ((mode & 1) && size >= 8) put64(copy + size - 8, XXH3_64bits(copy, size - 8));
        check_cf(copy, size);
        free(copy);
        return 0;
    }
    if (mode & 4) {
        uint8_t *copy = malloc(size ? size : 1);
        CHECK(copy != NULL);
        memcpy(copy, data, size);
        if ((mode & 1) && size >= FLR_INPLACE_HEADER) put64(copy + 48, XXH3_64bits(copy, 48));
        check_inplace(copy, size, (mode & 8) ? FLR_INPLACE_CF : FLR_INPLACE_BF);
        free(copy);
        return 0;
    }
    /* Split into chunks, each in its own exact-size buffer (ASan sees over-reads). */
    enum { MAX_CHUNKS = 64 };
    uint8_t *chunks[MAX_CHUNKS];
    size_t lens[MAX_CHUNKS];
    uint8_t kinds[MAX_CHUNKS];
    size_t n = 0, pos = 0;
    while (n < MAX_CHUNKS && size - pos >= 3) {
        size_t len = (size_t)data[pos + 1] | ((size_t)data[pos + 2] << 8);
        kinds[n] = data[pos];
        pos += 3;
        if (len > size - pos) len = size - pos;
        chunks[n] = malloc(len ? len : 1);
        CHECK(chunks[n] != NULL);
        memcpy(chunks[n], data + pos, len);
        lens[n++] = len;
        pos += len;
    }
    if (mode & 1) reseal(chunks, lens, n);
    flr_assembly a = {0};
    for (size_t i = 0; i < n; i++) {
        flr_chunk_kind kind = (kinds[i] & 1) ? FLR_CHUNK_CF : FLR_CHUNK_BF;
        flr_assembly before = a;
        flr_chunk_result r = flr_assembly_feed(&a, kind, chunks[i], lens[i]);
        if (r != FLR_CHUNK_MORE && r != FLR_CHUNK_COMPLETE) {
            /* Refused: the load is exactly as it was. */
            CHECK(a.buf == before.buf && a.received == before.received &&
                  a.total == before.total && a.blob_hash == before.blob_hash);
            continue;
        }
        CHECK(a.received <= a.total && a.buf != NULL && a.kind == kind);
        if (r == FLR_CHUNK_COMPLETE) {
            CHECK(a.received == a.total);
            CHECK(flr_blob_hash(a.buf, (size_t)a.total) == a.blob_hash);
            if (kind == FLR_CHUNK_CF) check_cf(a.buf, (size_t)a.total);
            else check_sbf(a.buf, (size_t)a.total);
        }
    }
    flr_assembly_reset(&a);
    for (size_t i = 0; i < n; i++) free(chunks[i]);
    return 0;
}

#ifdef FL_FUZZ_STANDALONE
#include <stdio.h>

#include "fuzz_standalone.h"

/* Appends one framed chunk to out. */
static size_t frame(uint8_t *out, uint8_t kind, const uint8_t *chunk, size_t len) {
    out[0] = kind;
    out[1] = (uint8_t)len;
    out[2] = (uint8_t)(len >> 8);
    memcpy(out + 3, chunk, len);
    return 3 + len;
}

/* A seed of a blob cut into small chunks (pieces of `piece` bytes, re-encoded by hand so
 * they fit the 16-bit frame). */
static int seed_chunks(const char *dir, const char *name, uint8_t kind, const uint8_t *blob,
                       size_t len, size_t piece) {
    size_t cap = 1 + (len / piece + 1) * (3 + FLR_CHUNK_HEADER + piece);
    uint8_t *out = malloc(cap), *chunk = malloc(FLR_CHUNK_HEADER + piece);
    size_t n = 0;
    out[n++] = 0;
    uint64_t bh = flr_blob_hash(blob, len);
    for (size_t off = 0; off < len; off += piece) {
        size_t p = len - off < piece ? len - off : piece;
        memcpy(chunk, "FLRC", 4);
        chunk[4] = 1, chunk[5] = 0;
        chunk[6] = (kind & 1) ? FLR_CHUNK_CF : FLR_CHUNK_BF, chunk[7] = 0;
        put64(chunk + 8, len);
        put64(chunk + 16, off);
        for (int i = 0; i < 4; i++) chunk[24 + i] = (uint8_t)(p >> (8 * i));
        memset(chunk + 28, 0, 4);
        put64(chunk + 32, bh);
        memcpy(chunk + FLR_CHUNK_HEADER, blob + off, p);
        XXH3_state_t st;
        XXH3_64bits_reset(&st);
        XXH3_64bits_update(&st, chunk, 40);
        XXH3_64bits_update(&st, chunk + FLR_CHUNK_HEADER, p);
        put64(chunk + 40, XXH3_64bits_digest(&st));
        n += frame(out + n, kind, chunk, FLR_CHUNK_HEADER + p);
    }
    int bad = fuzz_write_seed(dir, name, out, n);
    free(out);
    free(chunk);
    return bad;
}

static int write_seeds(const char *dir) {
    int bad = 0;
    /* A CF chain of three small filters, raw and in chunks; one of 12-bit fingerprints
     * (6-byte buckets, the module's default width) and one each of 13- and 11-bit ones
     * (semi-sorted: a rank the loader must check in every bucket), raw. */
    static const uint32_t widths[] = {8, 12, 13, 11};
    static const char *const names[] = {"cf_raw", "cf12_raw", "cf13_raw", "cf11_raw"};
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        const uint32_t fp = widths[w];
        cf_config cfg = {8, 2, 20, 1, fp};
        cf_chain *c = NULL;
        if (cf_chain_create(&cfg, &c) != FL_OK) return 1;
        uint64_t h[24];
        for (int i = 0; i < 24; i++) h[i] = fl_hash_u64((uint64_t)i, 1);
        size_t added;
        cf_chain_add_hashes(c, h, 24, &added);
        size_t len = cf_chain_serialized_size(c);
        uint8_t *blob = malloc(1 + len);
        blob[0] = 2;
        cf_chain_save(c, blob + 1, len, &len);
        bad |= fuzz_write_seed(dir, names[w], blob, 1 + len);
        if (fp == 8) bad |= seed_chunks(dir, "cf_chunks", 1, blob + 1, len, 64);
        cf_chain_free(c);
        free(blob);
    }
    /* A small scalable Bloom chain in chunks. */
    fl_sbf_config sc = {.capacity = 16, .error_rate = 0.1};
    fl_sbf *s = NULL;
    if (fl_sbf_create(&sc, &s) != FL_OK) return 1;
    for (int i = 0; i < 40; i++) fl_sbf_add_hash(s, fl_hash_u64((uint64_t)i, 2), NULL);
    size_t len = fl_sbf_serialized_size(s);
    uint8_t *blob = malloc(len);
    fl_sbf_save_mem(s, blob, len, &len);
    bad |= seed_chunks(dir, "bf_chunks", 0, blob, len, 200);
    fl_sbf_free(s);
    free(blob);
    /* INPLACE values of each kind, raw: a growing cuckoo filter doubled once. */
    for (uint32_t kind = FLR_INPLACE_BF; kind <= FLR_INPLACE_CF; kind++) {
        flr_inplace p = {.kind = kind, .capacity = 100, .error_rate = kind == FLR_INPLACE_BF ? 0.01 : 0,
                         .bucket_size = kind == FLR_INPLACE_CF ? 2 : 0,
                         .max_iterations = kind == FLR_INPLACE_CF ? 20 : 0};
        if (fl_gcf_create(100, 0, &p.g) != FL_OK) return 1;
        for (uint64_t i = 0; i < 4000; i++) fl_gcf_insert_hash(p.g, fl_hash_u64(i, 3));
        size_t n = 0;
        uint8_t *v = flr_inplace_encode(&p, &n), *seed = malloc(1 + n);
        seed[0] = kind == FLR_INPLACE_BF ? 4 : 12;
        memcpy(seed + 1, v, n);
        bad |= fuzz_write_seed(dir, kind == FLR_INPLACE_BF ? "inplace_bf_raw" : "inplace_cf_raw",
                               seed, 1 + n);
        free(v);
        free(seed);
        fl_gcf_free(p.g);
    }
    return bad;
}

int main(int argc, char **argv) {
    return fuzz_standalone_main(argc, argv, write_seeds);
}
#endif
