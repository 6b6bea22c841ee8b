/*
 * The compressed Bloom codec: an fl_cbf in a format-version-2 container (src/format/container.c) of
 * kind FL_KIND_COMPRESSED_BLOOM, and fl_cbf_save_* / fl_cbf_load_*.
 *
 * Sections, in this order:
 *
 *   "CBFH"  64 bytes:
 *             0  u8  variant (a bit-array Bloom variant)     1  u8  hash id
 *             2  u8  coder (fl_coder)                        3  u8  reserved, 0
 *             4  u32 k                                       8  u64 units
 *            16  u64 hash seed                              24  u64 key count
 *            32  u32 chunk bytes (a multiple of 64)         36  u32 reserved, 0
 *            40  u64 set bits of the payload                48  u64 chunks
 *            56  u64 reserved, 0
 *   "CIDX"  (chunks + 1) u64 offsets of the chunks' codes in CDAT: 0 first, strictly
 *           ascending (no code is empty), the last CDAT's length
 *   "CDAT"  the codes, back to back; a code exactly as long as its chunk is the chunk's bytes
 *           as they are (stored: the coder did not make it shorter)
 *
 * A load checks, each failure with its own status: the container (TRUNCATED, CHECKSUM,
 * CORRUPT); the section list (CORRUPT); CBFH (CORRUPT: an unknown variant, hash or coder, a
 * geometry fl_create would refuse, a chunk size that is not a multiple of 64 and of the
 * unit, more set bits than bits, a chunk count other than the payload's, nonzero reserved
 * bytes); the uncompressed payload against the caller's cap (TOO_LARGE); the index's length
 * (CORRUPT) and the input's (TRUNCATED, TRAILING_DATA), all before allocating anything;
 * then the index (CORRUPT: offsets out of order, a code longer than its chunk). The codes themselves are decoded, and checked, when a lookup needs them
 * (fl_cbf_verify decodes every one).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compressed/compressed_internal.h"
#include "format/container.h"
#include "format/kind_io.h"

#define TAG_CBFH FL_CT_TAG('C', 'B', 'F', 'H')
#define TAG_CIDX FL_CT_TAG('C', 'I', 'D', 'X')
#define TAG_CDAT FL_CT_TAG('C', 'D', 'A', 'T')
#define CBFH_LEN 64u

static void lengths_of(const fl_cbf *c, uint32_t *tags, uint64_t *lengths) {
    tags[0] = TAG_CBFH;
    lengths[0] = CBFH_LEN;
    tags[1] = TAG_CIDX;
    lengths[1] = (c->chunks + 1) * 8;
    tags[2] = TAG_CDAT;
    lengths[2] = c->code_bytes;
}

size_t fl_cbf_serialized_size(const fl_cbf *c) {
    if (!c) return 0;
    uint32_t tags[3];
    uint64_t lengths[3];
    lengths_of(c, tags, lengths);
    return fl_ct_size(3, lengths);
}

static fl_status write_cbf(const fl_cbf *c, fl_sink *sink) {
    uint32_t tags[3];
    uint64_t lengths[3];
    lengths_of(c, tags, lengths);
    uint8_t h[CBFH_LEN];
    memset(h, 0, sizeof h);
    h[0] = (uint8_t)c->g.variant;
    h[1] = (uint8_t)c->hash;
    h[2] = (uint8_t)c->coder;
    fl_put32(h + 4, c->g.k);
    fl_put64(h + 8, c->g.units);
    fl_put64(h + 16, c->seed);
    fl_put64(h + 24, c->keys);
    fl_put32(h + 32, c->chunk_bytes);
    fl_put64(h + 40, c->ones);
    fl_put64(h + 48, c->chunks);
    size_t idx_len = (size_t)lengths[1];
    uint8_t *idx = malloc(idx_len);
    if (!idx) return FL_ERR_NO_MEMORY;
    for (uint64_t i = 0; i <= c->chunks; i++) fl_put64(idx + 8 * i, c->offsets[i]);
    fl_ct_writer w;
    fl_status st = fl_ct_write_begin(&w, sink, FL_KIND_COMPRESSED_BLOOM, 3, tags, lengths);
    if (st == FL_OK) st = fl_ct_write_section(&w, h, sizeof h);
    if (st == FL_OK) st = fl_ct_write_section(&w, idx, idx_len);
    if (st == FL_OK) st = fl_ct_write_section(&w, c->codes, c->code_bytes);
    if (st == FL_OK) st = fl_ct_write_end(&w);
    free(idx);
    return st;
}

static fl_status read_cbf(fl_ct_reader *r, size_t max_bytes, fl_cbf **out);
static fl_status write_any(const void *obj, fl_sink *sink) {
    return write_cbf((const fl_cbf *)obj, sink);
}
static fl_status read_any(fl_ct_reader *r, size_t max_bytes, void **out) {
    fl_cbf *c = NULL;
    fl_status st = read_cbf(r, max_bytes, &c);
    *out = c;
    return st;
}
static const fl_kind_codec cbf_codec = {FL_KIND_COMPRESSED_BLOOM, write_any, read_any, NULL};

fl_status fl_cbf_save_mem(const fl_cbf *c, void *buf, size_t cap, size_t *written) {
    if (written) *written = 0;
    if (!c || !buf) return FL_ERR_INVALID_ARG;
    return fl_kind_save_mem(&cbf_codec, c, fl_cbf_serialized_size(c), buf, cap, written);
}

fl_status fl_cbf_save_file(const fl_cbf *c, const char *path) {
    if (!c || !path || !*path) return FL_ERR_INVALID_ARG;
    if (fl_cbf_serialized_size(c) == 0) return FL_ERR_TOO_LARGE;
    return fl_kind_save_file(&cbf_codec, c, path);
}

/* ---- reading ---------------------------------------------------------------------------- */

static int all_zero(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i]) return 0;
    return 1;
}

static fl_status read_head(fl_ct_reader *r, fl_cbf *c, size_t max_bytes) {
    if (r->count != 3) return FL_ERR_CORRUPT;
    fl_ct_section head = fl_ct_section_at(r, 0), idx = fl_ct_section_at(r, 1),
                  dat = fl_ct_section_at(r, 2);
    if (head.tag != TAG_CBFH || head.length != CBFH_LEN || idx.tag != TAG_CIDX ||
        dat.tag != TAG_CDAT)
        return FL_ERR_CORRUPT;
    const uint8_t *h;
    fl_status st = fl_ct_view(r, &head, &h);
    if (st != FL_OK) return st;
    if (h[3] || !all_zero(h + 36, 4) || !all_zero(h + 56, 8)) return FL_ERR_CORRUPT;
    c->g.variant = (fl_variant)h[0];
    c->hash = (fl_hash_id)h[1];
    c->coder = (fl_coder)h[2];
    c->g.k = fl_get32(h + 4);
    c->g.units = fl_get64(h + 8);
    c->seed = fl_get64(h + 16);
    c->keys = fl_get64(h + 24);
    c->chunk_bytes = fl_get32(h + 32);
    c->ones = fl_get64(h + 40);
    uint64_t chunks = fl_get64(h + 48);
    st = fl_cbf_check_fields(c);
    if (st != FL_OK) return st;
    if (chunks != c->chunks) return FL_ERR_CORRUPT;
    if (max_bytes && c->payload > max_bytes) return FL_ERR_TOO_LARGE;
    if (idx.length != (c->chunks + 1) * 8) return FL_ERR_CORRUPT;
    if (idx.length > SIZE_MAX || dat.length > SIZE_MAX) return FL_ERR_TOO_LARGE;
    return FL_OK;
}

static size_t chunk_len(const fl_cbf *c, uint64_t i) {
    size_t at = (size_t)i * c->chunk_bytes;
    return c->payload - at < c->chunk_bytes ? c->payload - at : c->chunk_bytes;
}

static fl_status read_index(fl_ct_reader *r, fl_cbf *c) {
    fl_ct_section idx = fl_ct_section_at(r, 1), dat = fl_ct_section_at(r, 2);
    c->offsets = malloc((size_t)idx.length);
    if (!c->offsets) return FL_ERR_NO_MEMORY;
    fl_status st = fl_ct_read(r, &idx, c->offsets);
    if (st != FL_OK) return st;
    for (uint64_t i = 0; i <= c->chunks; i++) {
        c->offsets[i] = fl_get64((const uint8_t *)&c->offsets[i]);
        if (i == 0 && c->offsets[0] != 0) return FL_ERR_CORRUPT;
        /* no code is longer than its chunk: that chunk would have been stored */
        if (i > 0 && (c->offsets[i] <= c->offsets[i - 1] ||
                      c->offsets[i] - c->offsets[i - 1] > chunk_len(c, i - 1)))
            return FL_ERR_CORRUPT;
    }
    if (c->offsets[c->chunks] != dat.length) return FL_ERR_CORRUPT;
    c->code_bytes = (size_t)dat.length;
    c->codes = malloc(c->code_bytes ? c->code_bytes : 1);
    if (!c->codes) return FL_ERR_NO_MEMORY;
    return fl_ct_read(r, &dat, c->codes);
}

static fl_status read_cbf(fl_ct_reader *r, size_t max_bytes, fl_cbf **out) {
    fl_cbf *c = calloc(1, sizeof *c);
    if (!c) return FL_ERR_NO_MEMORY;
    fl_status st = read_head(r, c, max_bytes);
    if (st == FL_OK) st = fl_in_check_size(r->in, r->end);
    if (st == FL_OK) st = read_index(r, c);
    if (st == FL_OK) st = fl_in_end(r->in);
    if (st != FL_OK) {
        int err = errno;
        fl_cbf_free(c);
        errno = err;
        return st;
    }
    *out = c;
    return FL_OK;
}

fl_status fl_cbf_load_mem(const void *buf, size_t len, size_t max_bytes, fl_cbf **out) {
    if (out) *out = NULL;
    if (!buf || !out) return FL_ERR_INVALID_ARG;
    void *c = NULL;
    fl_status st = fl_kind_load_mem(&cbf_codec, buf, len, max_bytes, &c);
    *out = c;
    return st;
}

fl_status fl_cbf_load_file(const char *path, size_t max_bytes, fl_cbf **out) {
    if (out) *out = NULL;
    if (!path || !out) return FL_ERR_INVALID_ARG;
    void *c = NULL;
    fl_status st = fl_kind_load_file(&cbf_codec, path, max_bytes, &c);
    *out = c;
    return st;
}
