/*
 * The vector quotient filter codec: an fl_vqf in a format-version-2 container
 * (src/format/container.c) of kind FL_KIND_VECTOR_QUOTIENT, and the public save/load calls of
 * include/filterlab_vqf.h.
 *
 * Sections, in this order (tags as in a hex dump):
 *
 *   "HEAD"  32 bytes, always first:
 *             0  u32 blocks          4  u32 zero
 *             8  u64 hash seed
 *            16  u64 items (fingerprints stored)
 *            24  u16 slots per block (48)   26  u16 buckets per block (80)
 *            28  u8 fingerprint bits (8)    29  3 zero bytes
 *   "BLKS"  the blocks, always last: blocks * 64 bytes, exactly the in-memory table (each
 *           block: 16 bytes of little-endian metadata, then 48 slots); read straight into
 *           the new filter.
 *
 * A load checks, in this order, each failure with its own status: magic and version
 * (BAD_MAGIC, BAD_VERSION; a version-1 file is a filter: WRONG_KIND); the container's
 * preamble and table (TRUNCATED, CHECKSUM, CORRUPT); the kind (WRONG_KIND); the section list
 * (CORRUPT: an unknown tag, HEAD not first, BLKS not last, a duplicate, HEAD of the wrong
 * length); the HEAD section (TRUNCATED, CHECKSUM, then CORRUPT for zero blocks, a shape
 * other than 48 slots, 80 buckets and 8-bit fingerprints, nonzero reserved bytes, more items
 * than slots, a BLKS length other than blocks * 64); the block bytes against the caller's cap
 * (TOO_LARGE); the input's length against the table (TRUNCATED, TRAILING_DATA); the blocks'
 * checksum (CHECKSUM); then every block (CORRUPT: metadata without exactly 80 ones, so that
 * the buckets do not describe the slots; a nonzero slot past the block's items; block items
 * that do not sum to HEAD's). A block that passes holds exactly what inserts can make, so
 * no later lookup, insert or delete meets a bucket outside its slots.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vqf/vqf_internal.h"
#include "format/container.h"
#include "format/kind_io.h"

#define TAG_HEAD FL_CT_TAG('H', 'E', 'A', 'D')
#define TAG_BLKS FL_CT_TAG('B', 'L', 'K', 'S')
#define NO_OPTIONAL 0u /* no optional section: no tag is 0 (fl_ct_open refuses it) */
#define HEAD_LEN 32u

size_t fl_vqf_serialized_size(const fl_vqf *v) {
    if (!v) return 0;
    uint64_t lengths[2] = {HEAD_LEN, v->bytes};
    return fl_ct_size(2, lengths);
}

static fl_status write_vqf(const fl_vqf *v, fl_sink *sink) {
    uint32_t tags[2] = {TAG_HEAD, TAG_BLKS};
    uint64_t lengths[2] = {HEAD_LEN, v->bytes};
    uint8_t head[HEAD_LEN];
    memset(head, 0, sizeof head);
    fl_put32(head + 0, v->nblocks);
    fl_put64(head + 8, v->seed);
    fl_put64(head + 16, v->items);
    fl_put16(head + 24, FL_VQF_SLOTS);
    fl_put16(head + 26, FL_VQF_BUCKETS);
    head[28] = 8;
    fl_ct_writer w;
    fl_status st = fl_ct_write_begin(&w, sink, FL_KIND_VECTOR_QUOTIENT, 2, tags, lengths);
    if (st == FL_OK) st = fl_ct_write_section(&w, head, sizeof head);
    if (st == FL_OK) st = fl_ct_write_section(&w, v->blocks, v->bytes);
    if (st == FL_OK) st = fl_ct_write_end(&w);
    return st;
}

typedef struct fields {
    uint32_t blocks;
    uint64_t seed, items;
} fields;

static fl_status read_head(fl_ct_reader *r, const fl_ct_section *s, const fl_ct_section *blks,
                           fields *f) {
    const uint8_t *p;
    fl_status st = fl_ct_view(r, s, &p);
    if (st != FL_OK) return st;
    f->blocks = fl_get32(p);
    f->seed = fl_get64(p + 8);
    f->items = fl_get64(p + 16);
    if (fl_get32(p + 4) != 0 || p[29] || p[30] || p[31]) return FL_ERR_CORRUPT;
    if (fl_get16(p + 24) != FL_VQF_SLOTS || fl_get16(p + 26) != FL_VQF_BUCKETS || p[28] != 8)
        return FL_ERR_CORRUPT;
    if (f->blocks == 0 || f->items > (uint64_t)f->blocks * FL_VQF_SLOTS) return FL_ERR_CORRUPT;
    if (blks->length != (uint64_t)f->blocks * FL_VQF_BLOCK_BYTES) return FL_ERR_CORRUPT;
    return FL_OK;
}

/* Every block as inserts make them (see the top of the file). */
static fl_status check_blocks(const fl_vqf *v) {
    uint64_t items = 0;
    for (uint32_t i = 0; i < v->nblocks; i++) {
        const uint8_t *blk = v->blocks + (size_t)i * FL_VQF_BLOCK_BYTES;
        uint64_t lo = fl_vqf_md_lo(blk), hi = fl_vqf_md_hi(blk);
        /* 80 ones: the highest is select1(79) at 79 + items, so the items fit in 48 slots
         * and fl_vqf_block_items reads them (hi holds at least 16 of the ones) */
        if (__builtin_popcountll(lo) + __builtin_popcountll(hi) != (int)FL_VQF_BUCKETS)
            return FL_ERR_CORRUPT;
        uint32_t c = fl_vqf_block_items(blk);
        for (uint32_t j = c; j < FL_VQF_SLOTS; j++)
            if (blk[16 + j]) return FL_ERR_CORRUPT;
        items += c;
    }
    return items == v->items ? FL_OK : FL_ERR_CORRUPT;
}

static fl_status read_vqf(fl_ct_reader *r, size_t max_bytes, fl_vqf **out) {
    fl_ct_section head, opt, blks;
    fields f;
    memset(&f, 0, sizeof f);
    fl_status st = fl_ct_layout(r, TAG_HEAD, HEAD_LEN, NO_OPTIONAL, TAG_BLKS, &head, &opt, &blks);
    if (st == FL_OK) st = read_head(r, &head, &blks, &f);
    if (st == FL_OK && max_bytes && blks.length > max_bytes) st = FL_ERR_TOO_LARGE;
    if (st == FL_OK) st = fl_in_check_size(r->in, r->end);
    if (st != FL_OK) return st;

    fl_vqf *v = NULL;
    st = fl_vqf_new(f.blocks, f.seed, &v);
    if (st != FL_OK) return st;
    v->items = f.items;
    st = fl_ct_read(r, &blks, v->blocks);
    if (st == FL_OK) st = fl_in_end(r->in);
    if (st == FL_OK) st = check_blocks(v);
    if (st != FL_OK) {
        int err = errno; /* FL_ERR_IO: the caller reads the cause from errno */
        fl_vqf_free(v);
        errno = err;
        return st;
    }
    *out = v;
    return FL_OK;
}

/* The codec in the shape every kind's save and load share (src/format/kind_io.c). */
static fl_status write_any(const void *obj, fl_sink *sink) {
    return write_vqf((const fl_vqf *)obj, sink);
}
static fl_status read_any(fl_ct_reader *r, size_t max_bytes, void **out) {
    fl_vqf *v = NULL;
    fl_status st = read_vqf(r, max_bytes, &v);
    *out = v;
    return st;
}
static const fl_kind_codec vqf_codec = {FL_KIND_VECTOR_QUOTIENT, write_any, read_any, NULL};

fl_status fl_vqf_save_mem(const fl_vqf *v, void *buf, size_t cap, size_t *written) {
    if (written) *written = 0;
    if (!v || !buf) return FL_ERR_INVALID_ARG;
    return fl_kind_save_mem(&vqf_codec, v, fl_vqf_serialized_size(v), buf, cap, written);
}

fl_status fl_vqf_load_mem(const void *buf, size_t len, size_t max_bytes, fl_vqf **out) {
    if (out) *out = NULL;
    if (!buf || !out) return FL_ERR_INVALID_ARG;
    void *v = NULL;
    fl_status st = fl_kind_load_mem(&vqf_codec, buf, len, max_bytes, &v);
    *out = v;
    return st;
}

fl_status fl_vqf_save_file(const fl_vqf *v, const char *path) {
    if (!v || !path || !*path) return FL_ERR_INVALID_ARG;
    return fl_kind_save_file(&vqf_codec, v, path);
}

fl_status fl_vqf_load_file(const char *path, size_t max_bytes, fl_vqf **out) {
    if (out) *out = NULL;
    if (!path || !out) return FL_ERR_INVALID_ARG;
    void *v = NULL;
    fl_status st = fl_kind_load_file(&vqf_codec, path, max_bytes, &v);
    *out = v;
    return st;
}
