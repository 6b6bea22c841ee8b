/*
 * SCANDUMP/LOADCHUNK chunks: a value's serialized blob (the library's own format for the
 * structure) cut into pieces, each with a header that lets the loader refuse a corrupt,
 * foreign or out-of-order piece before it touches anything.
 *
 * A chunk, all integers little-endian:
 *   0  "FLRC"                 magic
 *   4  u16 version (1)        u16 kind (flr_chunk_kind: which command family made it)
 *   8  u64 total              bytes of the whole blob
 *   16 u64 offset             where this piece starts in the blob
 *   24 u32 length             bytes of this piece (the rest of the chunk)
 *   28 u32 0                  reserved, must be 0
 *   32 u64 blob_hash          XXH3-64 of the whole blob (every chunk of one dump repeats it)
 *   40 u64 chunk_hash         XXH3-64 of bytes 0..39 and the piece
 *   48 the piece
 * Pieces must arrive in blob order (offset = bytes received so far); offset 0 starts a new
 * load. When the last piece arrives, the blob's hash is checked, then the library's loader
 * validates the blob itself. This file has no Redis dependency (tests/redis/test_chunk.c
 * and tests/fuzz_redis_chunk.c use it directly).
 */
#ifndef FLR_CHUNK_H
#define FLR_CHUNK_H
#include <stddef.h>
#include <stdint.h>

#define FLR_CHUNK_HEADER 48u
#define FLR_CHUNK_PIECE_MAX (1u << 20) /* piece bytes SCANDUMP puts in one chunk */
#define FLR_BLOB_MAX (1ull << 33)      /* largest blob a load accepts (8 GiB: above any value
                                          the module creates, whose payloads stop at 4 GiB) */

typedef enum flr_chunk_kind {
    FLR_CHUNK_BF = 1, /* a scalable Bloom chain (fl_sbf_save_mem) */
    FLR_CHUNK_CF = 2, /* a cuckoo chain (cf_chain_save) */
    FLR_CHUNK_CMS = 3, /* a Count-Min sketch (fl_cms_save_mem) */
    FLR_CHUNK_TOPK = 4, /* a top-k sketch: its decay, then fl_cms_save_mem (topk.c) */
} flr_chunk_kind;

typedef enum flr_chunk_result {
    FLR_CHUNK_MORE = 0,       /* accepted; more pieces to come */
    FLR_CHUNK_COMPLETE,       /* accepted; the blob is whole and its hash matches */
    FLR_CHUNK_BAD_FORMAT,     /* too short, bad magic/version/reserved, lengths inconsistent */
    FLR_CHUNK_BAD_KIND,       /* a chunk of another structure */
    FLR_CHUNK_BAD_CHECKSUM,   /* the chunk's own hash does not match */
    FLR_CHUNK_OUT_OF_ORDER,   /* offset is not where the load stands, or another dump's */
    FLR_CHUNK_BAD_BLOB,       /* all pieces arrived but the whole blob's hash differs */
    FLR_CHUNK_TOO_LARGE,      /* total above FLR_BLOB_MAX */
    FLR_CHUNK_NO_MEMORY,
} flr_chunk_result;

/* A Redis error reply for a result (static text, starts with "ERR "). */
const char *flr_chunk_error(flr_chunk_result r);

/* Chunk number `index` (0-based) of blob[0, total): writes at most FLR_CHUNK_HEADER +
 * FLR_CHUNK_PIECE_MAX bytes to out, sets *out_len; returns 0 when index is past the end
 * (nothing written), 1 otherwise. blob_hash is flr_blob_hash(blob, total). */
int flr_chunk_encode(flr_chunk_kind kind, const uint8_t *blob, uint64_t total,
                     uint64_t blob_hash, uint64_t index, uint8_t *out, size_t *out_len);
uint64_t flr_blob_hash(const void *blob, size_t len);

/* A load in progress. Zero-initialize; flr_assembly_reset frees it. */
typedef struct flr_assembly {
    flr_chunk_kind kind;
    uint64_t total, received, blob_hash;
    uint8_t *buf;
    size_t cap;
} flr_assembly;

/* Feeds one chunk. A chunk at offset 0 starts a new blob in `a` (dropping any load in
 * progress only once it is accepted); any other must continue the one in progress. On any
 * error `a` is unchanged. On FLR_CHUNK_COMPLETE a->buf holds a->total bytes. */
flr_chunk_result flr_assembly_feed(flr_assembly *a, flr_chunk_kind kind, const uint8_t *chunk,
                                   size_t len);
void flr_assembly_reset(flr_assembly *a);

#endif /* FLR_CHUNK_H */
