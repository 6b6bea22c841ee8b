/*
 * The Count-Min codec: an fl_cms in a format-version-2 container (src/format/container.c) of kind
 * FL_KIND_COUNT_MIN, and the public save/load calls of include/filterlab_cms.h.
 *
 * Sections, in this order (tags as in a hex dump):
 *
 *   "HEAD"  48 bytes, always first:
 *             0  u32 width          4  u32 depth
 *             8  u64 hash seed
 *            16  u32 flags: bit 0 conservative update, bit 1 N saturated; others 0
 *            20  u32 topk (candidate capacity, 0 = not tracked)
 *            24  u64 N (sum of increments)
 *            32  u32 candidates stored    36  u32 zero    40  u64 zero
 *   "TOPK"  the candidates, present exactly when there are some: per candidate a 16-byte
 *           header (u64 hash, u32 stored estimate, u16 key length, u8 key kind: 0 bytes
 *           hashed with XXH3, 1 a u64 key's 8 bytes hashed with fl_hash_u64; u8 zero), then
 *           the key bytes, zero-padded to a multiple of 8.
 *   "CNTR"  the counters, always last: depth rows of width little-endian u32, row-major,
 *           exactly the in-memory array; read straight into the new sketch.
 *
 * A load checks, in this order, each failure with its own status: magic and version
 * (BAD_MAGIC, BAD_VERSION; a version-1 file is a filter: WRONG_KIND); the container's
 * preamble and table (TRUNCATED, CHECKSUM, CORRUPT); the kind (WRONG_KIND); the section list
 * (CORRUPT: an unknown tag, HEAD not first, CNTR not last, a duplicate, HEAD of the wrong
 * length); the HEAD section (TRUNCATED, CHECKSUM, then CORRUPT for a zero width or depth,
 * depth above FL_CMS_DEPTH_MAX, topk above FL_CMS_TOPK_MAX, unknown flag bits or nonzero
 * reserved fields, the saturation flag without N = 2^64 - 1, more candidates than topk, a
 * TOPK section present without candidates or missing with them, a CNTR length other than
 * width * depth * 4; counters past FL_CMS_BYTES_MAX are TOO_LARGE); the counters against
 * the caller's cap (TOO_LARGE); the input's length against the table (TRUNCATED,
 * TRAILING_DATA); the TOPK section (TRUNCATED, CHECKSUM, CORRUPT: an entry cut short, an
 * unknown kind, a u64 key not 8 bytes long, a key longer than FL_CMS_KEY_MAX, nonzero
 * padding, a hash that is not the key's, a key stored twice, a count other than HEAD's);
 * the counters' checksum (CHECKSUM); then consistency with the stream they summarise
 * (CORRUPT: a row whose sum exceeds N unless N saturated, since every update adds at most
 * its increment to one counter per row; a candidate whose stored estimate exceeds its
 * current one, since estimates only grow).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cms/cms_internal.h"
#include "format/container.h"
#include "format/kind_io.h"

#define TAG_HEAD FL_CT_TAG('H', 'E', 'A', 'D')
#define TAG_TOPK FL_CT_TAG('T', 'O', 'P', 'K')
#define TAG_CNTR FL_CT_TAG('C', 'N', 'T', 'R')
#define HEAD_LEN 48u
#define ENTRY_HDR 16u
#define FLAG_CONS 1u
#define FLAG_NSAT 2u
#define FMT_V2 2u

static size_t pad8(size_t n) {
    return (n + 7) & ~(size_t)7;
}

/* ==== writing ============================================================================ */

static uint64_t topk_length(const fl_cms *c) {
    uint64_t n = 0;
    for (uint32_t i = 0; i < c->top.n; i++) n += ENTRY_HDR + pad8(c->top.heap[i].len);
    return n;
}

static uint32_t sections_of(const fl_cms *c, uint32_t tags[3], uint64_t lengths[3]) {
    uint32_t n = 0;
    tags[n] = TAG_HEAD;
    lengths[n++] = HEAD_LEN;
    if (c->top.n) {
        tags[n] = TAG_TOPK;
        lengths[n++] = topk_length(c);
    }
    tags[n] = TAG_CNTR;
    lengths[n++] = c->bytes;
    return n;
}

size_t fl_cms_serialized_size(const fl_cms *c) {
    if (!c) return 0;
    uint32_t tags[3];
    uint64_t lengths[3];
    uint32_t n = sections_of(c, tags, lengths);
    return fl_ct_size(n, lengths);
}

static fl_status write_cms(const fl_cms *c, fl_sink *sink) {
    uint32_t tags[3];
    uint64_t lengths[3];
    uint32_t n = sections_of(c, tags, lengths);

    uint8_t head[HEAD_LEN];
    memset(head, 0, sizeof head);
    fl_put32(head + 0, c->w);
    fl_put32(head + 4, c->d);
    fl_put64(head + 8, c->seed);
    fl_put32(head + 16, (c->cons ? FLAG_CONS : 0) | (c->total_sat ? FLAG_NSAT : 0));
    fl_put32(head + 20, c->top.cap);
    fl_put64(head + 24, c->total);
    fl_put32(head + 32, c->top.n);

    uint8_t *top = NULL;
    if (c->top.n) {
        if (lengths[1] > SIZE_MAX) return FL_ERR_TOO_LARGE;
        top = calloc(1, (size_t)lengths[1]);
        if (!top) return FL_ERR_NO_MEMORY;
        uint8_t *p = top;
        for (uint32_t i = 0; i < c->top.n; i++) {
            const fl_cms_cand *e = &c->top.heap[i];
            fl_put64(p, e->hash);
            fl_put32(p + 8, e->est);
            fl_put16(p + 12, (uint16_t)e->len);
            p[14] = (uint8_t)e->kind;
            if (e->len) memcpy(p + ENTRY_HDR, e->key, e->len);
            p += ENTRY_HDR + pad8(e->len);
        }
    }

    fl_ct_writer w;
    fl_status st = fl_ct_write_begin(&w, sink, FL_KIND_COUNT_MIN, n, tags, lengths);
    if (st == FL_OK) st = fl_ct_write_section(&w, head, sizeof head);
    if (st == FL_OK && top) st = fl_ct_write_section(&w, top, (size_t)lengths[1]);
    if (st == FL_OK) st = fl_ct_write_section(&w, c->counters, c->bytes);
    if (st == FL_OK) st = fl_ct_write_end(&w);
    int err = errno;
    free(top);
    errno = err;
    return st;
}

/* ==== reading ============================================================================ */

typedef struct fields {
    uint32_t w, d, flags, topk, ncand;
    uint64_t seed, total;
} fields;

static fl_status read_head(fl_ct_reader *r, const fl_ct_section *s, const fl_ct_section *top,
                           const fl_ct_section *cntr, fields *f) {
    const uint8_t *p;
    fl_status st = fl_ct_view(r, s, &p);
    if (st != FL_OK) return st;
    f->w = fl_get32(p);
    f->d = fl_get32(p + 4);
    f->seed = fl_get64(p + 8);
    f->flags = fl_get32(p + 16);
    f->topk = fl_get32(p + 20);
    f->total = fl_get64(p + 24);
    f->ncand = fl_get32(p + 32);
    if (fl_get32(p + 36) != 0 || fl_get64(p + 40) != 0) return FL_ERR_CORRUPT;
    if (f->flags & ~(FLAG_CONS | FLAG_NSAT)) return FL_ERR_CORRUPT;
    if ((f->flags & FLAG_NSAT) && f->total != UINT64_MAX) return FL_ERR_CORRUPT;
    st = fl_cms_check_shape(f->w, f->d, f->topk);
    if (st == FL_ERR_BAD_GEOMETRY || st == FL_ERR_BAD_K) return FL_ERR_CORRUPT;
    if (st != FL_OK) return st;
    if (f->ncand > f->topk) return FL_ERR_CORRUPT;
    if ((f->ncand != 0) != (top->length != 0)) return FL_ERR_CORRUPT;
    if (cntr->length != (uint64_t)f->w * f->d * 4u) return FL_ERR_CORRUPT;
    return FL_OK;
}

static fl_status read_topk(fl_ct_reader *r, const fl_ct_section *s, const fields *f,
                           fl_cms *c) {
    const uint8_t *p;
    fl_status st = fl_ct_view(r, s, &p);
    if (st != FL_OK) return st;
    uint64_t left = s->length;
    uint32_t n = 0;
    while (left) {
        if (left < ENTRY_HDR || n == f->ncand) return FL_ERR_CORRUPT;
        uint64_t hash = fl_get64(p);
        uint32_t est = fl_get32(p + 8);
        uint32_t len = fl_get16(p + 12);
        uint32_t kind = p[14];
        if (p[15] != 0) return FL_ERR_CORRUPT;
        if (kind != FL_CMS_KEY_BYTES && kind != FL_CMS_KEY_U64) return FL_ERR_CORRUPT;
        if (len > FL_CMS_KEY_MAX || (kind == FL_CMS_KEY_U64 && len != 8)) return FL_ERR_CORRUPT;
        uint64_t size = ENTRY_HDR + pad8(len);
        if (left < size) return FL_ERR_CORRUPT;
        const uint8_t *key = p + ENTRY_HDR;
        for (size_t i = len; i < pad8(len); i++)
            if (key[i]) return FL_ERR_CORRUPT;
        uint64_t want = kind == FL_CMS_KEY_U64 ? fl_cms_hash_u64(c, fl_get64(key))
                                               : fl_cms_hash_bytes(c, key, len);
        if (want != hash) return FL_ERR_CORRUPT;
        if (fl_topk_find(&c->top, hash, kind, key, len) != UINT32_MAX) return FL_ERR_CORRUPT;
        st = fl_topk_append(&c->top, hash, kind, key, len, est);
        if (st != FL_OK) return st;
        n++;
        p += size;
        left -= size;
    }
    return n == f->ncand ? FL_OK : FL_ERR_CORRUPT;
}

/* The counters against the stream they summarise (see the top of the file). */
static fl_status check_consistent(const fl_cms *c) {
    if (!c->total_sat) {
        for (uint32_t r = 0; r < c->d; r++) {
            const uint32_t *row = c->counters + (size_t)r * c->w;
            uint64_t sum = 0;
            for (uint32_t i = 0; i < c->w; i++) sum += row[i];
            if (sum > c->total) return FL_ERR_CORRUPT;
        }
    }
    for (uint32_t i = 0; i < c->top.n; i++)
        if (c->top.heap[i].est > fl_cms_query1(c->counters, c->w, c->d, c->top.heap[i].hash))
            return FL_ERR_CORRUPT;
    return FL_OK;
}

static fl_status read_cms(fl_ct_reader *r, size_t max_bytes, fl_cms **out) {
    fl_ct_section head, top, cntr;
    fields f;
    memset(&f, 0, sizeof f);
    fl_status st = fl_ct_layout(r, TAG_HEAD, HEAD_LEN, TAG_TOPK, TAG_CNTR, &head, &top, &cntr);
    if (st == FL_OK) st = read_head(r, &head, &top, &cntr, &f);
    if (st == FL_OK && max_bytes && cntr.length > max_bytes) st = FL_ERR_TOO_LARGE;
    if (st == FL_OK) st = fl_in_check_size(r->in, r->end);
    if (st != FL_OK) return st;

    fl_cms *c = NULL;
    st = fl_cms_new(f.w, f.d, f.seed, (f.flags & FLAG_CONS) != 0, f.topk, &c);
    if (st != FL_OK) return st;
    c->total = f.total;
    c->total_sat = (f.flags & FLAG_NSAT) != 0;
    if (top.length) st = read_topk(r, &top, &f, c);
    if (st == FL_OK) st = fl_ct_read(r, &cntr, c->counters);
    if (st == FL_OK) st = fl_in_end(r->in);
    if (st == FL_OK) st = check_consistent(c);
    if (st != FL_OK) {
        int err = errno; /* FL_ERR_IO: the caller reads the cause from errno */
        fl_cms_free(c);
        errno = err;
        return st;
    }
    fl_topk_refresh(&c->top, c);
    *out = c;
    return FL_OK;
}

/* The codec in the shape every kind's save and load share (src/format/kind_io.c). */
static fl_status write_any(const void *obj, fl_sink *sink) {
    return write_cms((const fl_cms *)obj, sink);
}
static fl_status read_any(fl_ct_reader *r, size_t max_bytes, void **out) {
    fl_cms *c = NULL;
    fl_status st = read_cms(r, max_bytes, &c);
    *out = c;
    return st;
}
static const fl_kind_codec cms_codec = {FL_KIND_COUNT_MIN, write_any, read_any, NULL};

fl_status fl_cms_save_mem(const fl_cms *c, void *buf, size_t cap, size_t *written) {
    if (written) *written = 0;
    if (!c || !buf) return FL_ERR_INVALID_ARG;
    return fl_kind_save_mem(&cms_codec, c, fl_cms_serialized_size(c), buf, cap, written);
}

fl_status fl_cms_load_mem(const void *buf, size_t len, size_t max_bytes, fl_cms **out) {
    if (out) *out = NULL;
    if (!buf || !out) return FL_ERR_INVALID_ARG;
    void *c = NULL;
    fl_status st = fl_kind_load_mem(&cms_codec, buf, len, max_bytes, &c);
    *out = c;
    return st;
}

fl_status fl_cms_save_file(const fl_cms *c, const char *path) {
    if (!c || !path || !*path) return FL_ERR_INVALID_ARG;
    if (fl_cms_serialized_size(c) == 0) return FL_ERR_TOO_LARGE;
    return fl_kind_save_file(&cms_codec, c, path);
}

fl_status fl_cms_load_file(const char *path, size_t max_bytes, fl_cms **out) {
    if (out) *out = NULL;
    if (!path || !out) return FL_ERR_INVALID_ARG;
    void *c = NULL;
    fl_status st = fl_kind_load_file(&cms_codec, path, max_bytes, &c);
    *out = c;
    return st;
}
