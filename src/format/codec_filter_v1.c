/*
 * The reader of format version 1, the fixed-header filter file written before the
 * format-version-2 container (src/format/container.c). Read-only: saves write version 2, and
 * tests/fixtures/v1/ holds files the last v1 writer made.
 *
 * Byte layout of format version 1 (every integer little-endian):
 *
 *   offset  size  field
 *   ------  ----  ----------------------------------------------------------------------
 *        0     8  magic: 'F' 'L' 'T' 'R' 'L' 'A' 'B' 0x1A
 *        8     2  u16 format version = 1
 *       10     1  u8  variant (fl_variant, 1..5)
 *       11     1  u8  hash id (fl_hash_id, 1..2)
 *       12     4  u32 k (bits per key; cuckoo: fingerprint bits)
 *       16     8  u64 units (words / blocks / buckets)
 *       24     8  u64 hash seed
 *       32     8  u64 key count (fl_info.keys)
 *       40     8  u64 payload byte count (must equal the geometry's payload size)
 *       48     4  u32 flags: reserved, must be 0
 *       52     4  u32 stash count (cuckoo only, 0..8; 0 for the Bloom variants)
 *       56    64  8 stash slots of 8 bytes: u32 bucket, u16 fingerprint, u16 zero;
 *                 slots at and after the stash count are all zero
 *      120     8  u64 XXH3_64bits of bytes [0, 120)
 *      128     P  payload, P = payload byte count, exactly the in-memory payload (its
 *                 words are little-endian, see kernels/probe.h)
 *    128+P     8  u64 XXH3_64bits of the payload
 *
 * Total size: 136 + P.
 *
 * A load validates before it trusts, in this order, so each failure has its own status
 * (magic and version are checked by the caller, src/format/io.c, before it picks this reader):
 *   header length (TRUNCATED), header checksum (CHECKSUM), field semantics (CORRUPT:
 *   unknown variant or hash, nonzero reserved bits, geometry rejected by
 *   fl_geometry_check, payload count differing from the geometry, bad stash), payload size
 *   against the caller's cap (TOO_LARGE), total length (TRUNCATED / TRAILING_DATA),
 *   payload checksum (CHECKSUM), cuckoo key count against the occupied slots (CORRUPT).
 * A geometry whose payload size overflows size_t on this host is TOO_LARGE, not CORRUPT.
 */
#include <string.h>

#include <xxhash.h>

#include "format/codec_filter.h"

#define V1_HEADER 128u   /* fixed header, checksum included */
#define V1_HSUM_AT 120u  /* header checksum offset: covers [0, 120) */
#define V1_STASH_AT 56u
#define V1_STASH_SLOTS 8u
#define V1_TRAILER 8u    /* payload checksum */

_Static_assert(FL_STASH_MAX <= V1_STASH_SLOTS, "version 1 stores at most 8 stash entries");
_Static_assert(V1_STASH_AT + 8 * V1_STASH_SLOTS == V1_HSUM_AT, "version 1 header layout");

/* Header checksum and field semantics of the 128-byte header at p. */
static fl_status decode_header(const uint8_t *p, fl_filter_fields *f) {
    if (fl_get64(p + V1_HSUM_AT) != XXH3_64bits(p, V1_HSUM_AT)) return FL_ERR_CHECKSUM;

    /* From here every byte is what the writer wrote, so a bad value is a writer bug or a
     * crafted file: CORRUPT. */
    memset(f, 0, sizeof *f);
    f->g.k = fl_get32(p + 12);
    f->g.units = fl_get64(p + 16);
    f->seed = fl_get64(p + 24);
    f->keys = fl_get64(p + 32);
    uint64_t payload = fl_get64(p + 40);
    uint32_t flags = fl_get32(p + 48), stash_count = fl_get32(p + 52);
    /* Variant and hash are judged first, as the v1 writer's reader did. */
    /* Format 1 knew classic .. cuckoo: a later variant number in a v1 file is a crafted one. */
    if (p[10] < FL_VARIANT_MIN || p[10] > FL_CUCKOO) return FL_ERR_CORRUPT;
    if (p[11] != FL_HASH_XXH3 && p[11] != FL_HASH_XXH64) return FL_ERR_CORRUPT;
    if (flags != 0) return FL_ERR_CORRUPT;
    fl_status st = fl_codec_check_shape(f, p[10], p[11], payload);
    if (st != FL_OK) return st;

    if (stash_count > fl_codec_stash_limit(f->g.variant)) return FL_ERR_CORRUPT;
    for (uint32_t i = 0; i < V1_STASH_SLOTS; i++) {
        const uint8_t *e = p + V1_STASH_AT + 8 * i;
        uint32_t bucket = fl_get32(e);
        uint16_t fp = fl_get16(e + 4), pad = fl_get16(e + 6);
        if (i >= stash_count) {
            /* Unused slots are zero: one encoding per filter. */
            if (bucket || fp || pad) return FL_ERR_CORRUPT;
            continue;
        }
        st = fl_codec_stash_entry(f, bucket, fp, pad, &f->stash[i]);
        if (st != FL_OK) return st;
    }
    f->stash_count = stash_count;
    return FL_OK;
}

fl_status fl_codec_filter_v1_read(fl_in *in, size_t max_bytes, fl_filter **out) {
    fl_filter_fields f;
    fl_status st = fl_in_need(in, V1_HEADER);
    if (st == FL_OK) st = decode_header(in->p, &f);
    if (st == FL_OK) st = fl_codec_check_cap(&f, max_bytes);
    /* payload <= 2^38 (units < 2^32 of at most 64 bytes), so this cannot overflow. */
    if (st == FL_OK) st = fl_in_check_size(in, (uint64_t)V1_HEADER + f.payload + V1_TRAILER);
    if (st != FL_OK) return st;

    fl_filter *filter = NULL;
    st = fl_codec_filter_alloc(&f, &filter);
    if (st != FL_OK) return st;
    uint8_t sum[V1_TRAILER];
    st = fl_in_read(in, filter->data, f.payload);
    if (st == FL_OK) st = fl_in_read(in, sum, sizeof sum);
    if (st == FL_OK) st = fl_in_end(in);
    if (st == FL_OK && fl_get64(sum) != XXH3_64bits(filter->data, f.payload))
        st = FL_ERR_CHECKSUM;
    return fl_codec_filter_finish(filter, &f, st, out);
}
