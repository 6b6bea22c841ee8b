/*
 * Compressed Bloom filter internals shared by src/compressed/compressed.c (sizing, compression,
 * chunked lookups), src/compressed/coder_golomb.c and src/compressed/coder_zstd.c (the chunk
 * coders) and src/compressed/codec_compressed.c (the file codec). Not installed.
 */
#ifndef FL_COMPRESSED_INTERNAL_H
#define FL_COMPRESSED_INTERNAL_H

#include "core/internal.h"
#include "probe.h"

#pragma GCC visibility push(hidden)

struct fl_cbf {
    fl_geometry g;
    const fl_variant_desc *desc;
    fl_hash_id hash;
    uint64_t seed;
    uint64_t keys;
    size_t payload;        /* uncompressed payload bytes */
    size_t unit_bytes;
    fl_coder coder;
    uint32_t chunk_bytes;
    uint64_t chunks;       /* ceil(payload / chunk_bytes) */
    uint64_t ones;         /* set bits of the payload (stored; fl_cbf_verify checks it) */
    uint64_t *offsets;     /* chunks + 1 offsets into codes, offsets[0] = 0, ascending */
    uint8_t *codes;        /* the chunks' codes, back to back */
    size_t code_bytes;
};

/* A chunk coder. encode: writes the code of src[0, len) to dst (cap bytes, at least
 * bound(len)) and returns its length, or 0 on failure (NO_MEMORY). decode: exactly len bytes
 * into dst from the code src[0, n); FL_ERR_CORRUPT unless src is one well-formed code of
 * exactly len bytes and nothing more (every read bounded by n, every write by len). */
typedef struct fl_chunk_coder {
    size_t (*bound)(size_t len);
    size_t (*encode)(const uint8_t *src, size_t len, uint8_t *dst, size_t cap);
    fl_status (*decode)(const uint8_t *src, size_t n, uint8_t *dst, size_t len);
} fl_chunk_coder;

extern const fl_chunk_coder fl_coder_golomb;
extern const fl_chunk_coder fl_coder_zstd;
/* NULL for an unknown coder id. */
const fl_chunk_coder *fl_chunk_coder_of(fl_coder c);

/* Checks the fields a loader read (geometry, variant a bit array, chunk size, coder) and
 * sets the derived ones (desc, payload, unit_bytes, chunks): FL_ERR_CORRUPT / TOO_LARGE. */
fl_status fl_cbf_check_fields(fl_cbf *c);
/* Set bits of a buffer (the payload's count of ones, which the coders and the loader check).
 * Inline: the coders need nothing of compressed.c. */
static inline uint64_t fl_cbf_popcount(const uint8_t *p, size_t n) {
    uint64_t c = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) c += (uint64_t)__builtin_popcountll(fl_load_le64(p + i));
    for (; i < n; i++) c += (uint64_t)__builtin_popcount(p[i]);
    return c;
}

#pragma GCC visibility pop

#endif
