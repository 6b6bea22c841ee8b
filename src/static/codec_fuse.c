/*
 * The static-structure codec: a binary fuse filter (kind FL_KIND_BINARY_FUSE) or a Bloomier
 * filter (kind FL_KIND_BLOOMIER) in a format-version-2 container (src/format/container.c), and the
 * save/load calls of include/filterlab_static.h.
 *
 * Sections, in this order:
 *
 *   "HEAD"  48 bytes, always first:
 *             0  u8  arity (3, 4)     1  u8  cell bits     2  u8  value bits (0 for fuse)
 *             3  u8  zero
 *             4  u32 segment length   8  u32 segment count  12  u32 cells
 *            16  u64 keys             24  u64 seed
 *            32  u64 zero             40  u64 zero
 *   "CELL"  the cells, little-endian, cells * cell bits / 8 bytes; present exactly when
 *           keys > 0 (an empty set has no cells).
 *
 * A load checks, each failure with its own status: magic and version; the container
 * (TRUNCATED, CHECKSUM, CORRUPT); the kind (WRONG_KIND); the section list (CORRUPT: not HEAD
 * then at most one CELL, HEAD of another length); HEAD (TRUNCATED, CHECKSUM, then CORRUPT for
 * an arity, cell or value width the kind does not have, nonzero reserved bytes, a segment
 * length, count or cell count other than the shape fl_fuse_geometry gives for that many keys,
 * a CELL section present for an empty set, missing for a nonempty one, or of another length;
 * TOO_LARGE for more keys than FL_FUSE_KEYS_MAX or cells past the caller's cap); the input's
 * length (TRUNCATED, TRAILING_DATA); the cells' checksum (CHECKSUM). Nothing is allocated
 * before the shape and cap are checked.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/container.h"
#include "static/fuse_internal.h"
#include "format/kind_io.h"

#define TAG_HEAD FL_CT_TAG('H', 'E', 'A', 'D')
#define TAG_CELL FL_CT_TAG('C', 'E', 'L', 'L')
#define HEAD_LEN 48u

static uint32_t sections_of(const fl_static *s, uint32_t tags[2], uint64_t lengths[2]) {
    tags[0] = TAG_HEAD;
    lengths[0] = HEAD_LEN;
    if (!s->keys) return 1;
    tags[1] = TAG_CELL;
    lengths[1] = s->bytes;
    return 2;
}

static size_t serialized_size(const fl_static *s) {
    uint32_t tags[2];
    uint64_t lengths[2];
    return fl_ct_size(sections_of(s, tags, lengths), lengths);
}

static fl_status write_static(const fl_static *s, fl_kind kind, fl_sink *sink) {
    uint32_t tags[2];
    uint64_t lengths[2];
    uint32_t n = sections_of(s, tags, lengths);
    uint8_t head[HEAD_LEN];
    memset(head, 0, sizeof head);
    head[0] = s->view.arity;
    head[1] = s->view.cell_bits;
    head[2] = s->view.value_bits;
    fl_put32(head + 4, s->view.seg_len);
    fl_put32(head + 8, s->seg_count);
    fl_put32(head + 12, s->cells_n);
    fl_put64(head + 16, s->keys);
    fl_put64(head + 24, s->seed);
    fl_ct_writer w;
    fl_status st = fl_ct_write_begin(&w, sink, kind, n, tags, lengths);
    if (st == FL_OK) st = fl_ct_write_section(&w, head, sizeof head);
    if (st == FL_OK && n == 2) st = fl_ct_write_section(&w, s->cells, s->bytes);
    if (st == FL_OK) st = fl_ct_write_end(&w);
    return st;
}

static int widths_ok(fl_kind kind, uint32_t cell_bits, uint32_t value_bits) {
    if (kind == FL_KIND_BINARY_FUSE) return (cell_bits == 8 || cell_bits == 16) && value_bits == 0;
    return (cell_bits == 16 || cell_bits == 32) && value_bits >= 1 && value_bits <= 16;
}

static fl_status read_static(fl_ct_reader *r, fl_kind kind, size_t max_bytes, fl_static **out) {
    if (r->count < 1 || r->count > 2) return FL_ERR_CORRUPT;
    fl_ct_section head = fl_ct_section_at(r, 0), cell = {0, 0, 0, 0};
    if (head.tag != TAG_HEAD || head.length != HEAD_LEN) return FL_ERR_CORRUPT;
    if (r->count == 2) {
        cell = fl_ct_section_at(r, 1);
        if (cell.tag != TAG_CELL || cell.length == 0) return FL_ERR_CORRUPT;
    }
    const uint8_t *p;
    fl_status st = fl_ct_view(r, &head, &p);
    if (st != FL_OK) return st;
    uint32_t arity = p[0], cell_bits = p[1], value_bits = p[2];
    uint32_t seg_len = fl_get32(p + 4), seg_count = fl_get32(p + 8), cells = fl_get32(p + 12);
    uint64_t keys = fl_get64(p + 16), seed = fl_get64(p + 24);
    if (p[3] || fl_get64(p + 32) || fl_get64(p + 40)) return FL_ERR_CORRUPT;
    if ((arity != 3 && arity != 4) || !widths_ok(kind, cell_bits, value_bits))
        return FL_ERR_CORRUPT;
    if (keys > FL_FUSE_KEYS_MAX) return FL_ERR_TOO_LARGE;
    uint32_t want_len, want_count, want_cells;
    st = fl_fuse_geometry(arity, keys, &want_len, &want_count, &want_cells);
    if (st != FL_OK) return FL_ERR_CORRUPT;
    if (seg_len != want_len || seg_count != want_count || cells != want_cells)
        return FL_ERR_CORRUPT;
    uint64_t bytes = keys ? (uint64_t)cells * (cell_bits / 8) : 0;
    if ((keys != 0) != (r->count == 2) || cell.length != bytes) return FL_ERR_CORRUPT;
    if (max_bytes && bytes > max_bytes) return FL_ERR_TOO_LARGE;
    st = fl_in_check_size(r->in, r->end);
    if (st != FL_OK) return st;
    fl_static *s = NULL;
    st = fl_static_new(arity, cell_bits, value_bits, keys, seed, max_bytes, &s);
    if (st != FL_OK) return st;
    if (keys) st = fl_ct_read(r, &cell, s->cells);
    if (st == FL_OK) st = fl_in_end(r->in);
    if (st != FL_OK) {
        int err = errno;
        fl_static_free(s);
        errno = err;
        return st;
    }
    *out = s;
    return FL_OK;
}

/* ==== the two kinds' codecs and public calls ============================================== */

static fl_status write_fuse(const void *obj, fl_sink *sink) {
    return write_static(&((const fl_fuse *)obj)->s, FL_KIND_BINARY_FUSE, sink);
}
static fl_status read_fuse(fl_ct_reader *r, size_t max_bytes, void **out) {
    fl_static *s = NULL;
    fl_status st = read_static(r, FL_KIND_BINARY_FUSE, max_bytes, &s);
    *out = s;
    return st;
}
static fl_status write_bloomier(const void *obj, fl_sink *sink) {
    return write_static(&((const fl_bloomier *)obj)->s, FL_KIND_BLOOMIER, sink);
}
static fl_status read_bloomier(fl_ct_reader *r, size_t max_bytes, void **out) {
    fl_static *s = NULL;
    fl_status st = read_static(r, FL_KIND_BLOOMIER, max_bytes, &s);
    *out = s;
    return st;
}
static const fl_kind_codec fuse_codec = {FL_KIND_BINARY_FUSE, write_fuse, read_fuse, NULL};
static const fl_kind_codec bloomier_codec = {FL_KIND_BLOOMIER, write_bloomier, read_bloomier,
                                             NULL};

/* fl_fuse and fl_bloomier are each exactly an fl_static (src/static/fuse_internal.h), so the
 * loaders' fl_static is returned as either. */
_Static_assert(sizeof(fl_fuse) == sizeof(fl_static), "fl_fuse wraps fl_static");
_Static_assert(sizeof(fl_bloomier) == sizeof(fl_static), "fl_bloomier wraps fl_static");

size_t fl_fuse_serialized_size(const fl_fuse *f) {
    return f ? serialized_size(&f->s) : 0;
}

fl_status fl_fuse_save_mem(const fl_fuse *f, void *buf, size_t cap, size_t *written) {
    if (written) *written = 0;
    if (!f || !buf) return FL_ERR_INVALID_ARG;
    return fl_kind_save_mem(&fuse_codec, f, serialized_size(&f->s), buf, cap, written);
}

fl_status fl_fuse_save_file(const fl_fuse *f, const char *path) {
    if (!f || !path || !*path) return FL_ERR_INVALID_ARG;
    return fl_kind_save_file(&fuse_codec, f, path);
}

fl_status fl_fuse_load_mem(const void *buf, size_t len, size_t max_bytes, fl_fuse **out) {
    if (out) *out = NULL;
    if (!buf || !out) return FL_ERR_INVALID_ARG;
    void *s = NULL;
    fl_status st = fl_kind_load_mem(&fuse_codec, buf, len, max_bytes, &s);
    *out = s;
    return st;
}

fl_status fl_fuse_load_file(const char *path, size_t max_bytes, fl_fuse **out) {
    if (out) *out = NULL;
    if (!path || !out) return FL_ERR_INVALID_ARG;
    void *s = NULL;
    fl_status st = fl_kind_load_file(&fuse_codec, path, max_bytes, &s);
    *out = s;
    return st;
}

size_t fl_bloomier_serialized_size(const fl_bloomier *b) {
    return b ? serialized_size(&b->s) : 0;
}

fl_status fl_bloomier_save_mem(const fl_bloomier *b, void *buf, size_t cap, size_t *written) {
    if (written) *written = 0;
    if (!b || !buf) return FL_ERR_INVALID_ARG;
    return fl_kind_save_mem(&bloomier_codec, b, serialized_size(&b->s), buf, cap, written);
}

fl_status fl_bloomier_save_file(const fl_bloomier *b, const char *path) {
    if (!b || !path || !*path) return FL_ERR_INVALID_ARG;
    return fl_kind_save_file(&bloomier_codec, b, path);
}

fl_status fl_bloomier_load_mem(const void *buf, size_t len, size_t max_bytes,
                               fl_bloomier **out) {
    if (out) *out = NULL;
    if (!buf || !out) return FL_ERR_INVALID_ARG;
    void *s = NULL;
    fl_status st = fl_kind_load_mem(&bloomier_codec, buf, len, max_bytes, &s);
    *out = s;
    return st;
}

fl_status fl_bloomier_load_file(const char *path, size_t max_bytes, fl_bloomier **out) {
    if (out) *out = NULL;
    if (!path || !out) return FL_ERR_INVALID_ARG;
    void *s = NULL;
    fl_status st = fl_kind_load_file(&bloomier_codec, path, max_bytes, &s);
    *out = s;
    return st;
}
