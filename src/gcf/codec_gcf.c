/*
 * The growing cuckoo filter codec: an fl_gcf in a format-version-2 container
 * (src/format/container.c) of kind FL_KIND_GROWING_CUCKOO, and the public save/load calls of
 * include/filterlab_gcf.h.
 *
 * Sections, in this order (tags as in a hex dump):
 *
 *   "HEAD"  32 bytes, always first:
 *             0  u8 columns c (1..15)     1  u8 window bits W     2  u8 bucket bits K
 *             3  u8 slot bits (16)        4  u8 slots per bucket (4)
 *             5  u8 extension bits of a fresh slot (7)            6  2 zero bytes
 *             8  u64 hash seed
 *            16  u64 items (occupied slots)
 *            24  u64 zero
 *   "SLOT"  the table, always last: (c << K) * 8 bytes, exactly the in-memory words (four
 *           little-endian 16-bit slots each); read straight into the new filter.
 *
 * A load checks, in this order, each failure with its own status: magic and version; the
 * container's preamble and table (TRUNCATED, CHECKSUM, CORRUPT); the kind (WRONG_KIND); the
 * section list (CORRUPT); the HEAD section (TRUNCATED, CHECKSUM, then CORRUPT for a shape no
 * filter has: c outside 1..15, W of 0, K below W or more than 7 doublings past it, c << K of
 * 2^32 or more, another slot layout, nonzero reserved bytes, more items than slots, a SLOT
 * length other than (c << K) * 8); the table bytes against the caller's cap (TOO_LARGE);
 * the input's length (TRUNCATED, TRAILING_DATA); the table's checksum (CHECKSUM); then
 * every slot (CORRUPT: an occupied slot with tag 0 or no sentinel, or with fewer than
 * 7 - (K - W) extension bits, which no insert and split can make; occupied slots
 * that do not sum to HEAD's items). A table that passes is one inserts could have made, so
 * the per-length counts rebuilt from it are exact and the next doubling finds a bit to
 * split every slot by.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gcf/gcf_internal.h"
#include "format/container.h"
#include "format/kind_io.h"

#define TAG_HEAD FL_CT_TAG('H', 'E', 'A', 'D')
#define TAG_SLOT FL_CT_TAG('S', 'L', 'O', 'T')
#define NO_OPTIONAL 0u /* no optional section: no tag is 0 (fl_ct_open refuses it) */
#define HEAD_LEN 32u

size_t fl_gcf_serialized_size(const fl_gcf *g) {
    if (!g) return 0;
    uint64_t lengths[2] = {HEAD_LEN, g->bytes};
    return fl_ct_size(2, lengths);
}

static fl_status write_gcf(const fl_gcf *g, fl_sink *sink) {
    uint32_t tags[2] = {TAG_HEAD, TAG_SLOT};
    uint64_t lengths[2] = {HEAD_LEN, g->bytes};
    uint8_t head[HEAD_LEN];
    memset(head, 0, sizeof head);
    head[0] = (uint8_t)g->columns;
    head[1] = (uint8_t)g->wbits;
    head[2] = (uint8_t)g->kbits;
    head[3] = 16;
    head[4] = FL_GCF_SLOTS;
    head[5] = FL_GCF_EXT_BITS;
    fl_put64(head + 8, g->seed);
    fl_put64(head + 16, fl_gcf_items(g));
    fl_ct_writer w;
    fl_status st = fl_ct_write_begin(&w, sink, FL_KIND_GROWING_CUCKOO, 2, tags, lengths);
    if (st == FL_OK) st = fl_ct_write_section(&w, head, sizeof head);
    if (st == FL_OK) st = fl_ct_write_section(&w, g->table, g->bytes);
    if (st == FL_OK) st = fl_ct_write_end(&w);
    return st;
}

typedef struct fields {
    uint32_t columns, wbits, kbits;
    uint64_t seed, items;
} fields;

static fl_status read_head(fl_ct_reader *r, const fl_ct_section *s, const fl_ct_section *slot,
                           fields *f) {
    const uint8_t *p;
    fl_status st = fl_ct_view(r, s, &p);
    if (st != FL_OK) return st;
    f->columns = p[0];
    f->wbits = p[1];
    f->kbits = p[2];
    f->seed = fl_get64(p + 8);
    f->items = fl_get64(p + 16);
    if (p[3] != 16 || p[4] != FL_GCF_SLOTS || p[5] != FL_GCF_EXT_BITS || p[6] || p[7] ||
        fl_get64(p + 24) != 0)
        return FL_ERR_CORRUPT;
    if (!fl_gcf_shape_ok(f->columns, f->wbits, f->kbits)) return FL_ERR_CORRUPT;
    uint64_t buckets = (uint64_t)f->columns << f->kbits;
    if (f->items > buckets * FL_GCF_SLOTS) return FL_ERR_CORRUPT;
    if (slot->length != buckets * 8) return FL_ERR_CORRUPT;
    return FL_OK;
}

/* Every slot as inserts and splits make them (see the top of the file); the per-length
 * counts rebuilt. */
static fl_status check_slots(fl_gcf *g, uint64_t items) {
    uint32_t min_len = FL_GCF_EXT_BITS - (g->kbits - g->wbits);
    for (uint64_t b = 0; b < g->buckets; b++) {
        uint64_t x = g->table[b];
        for (uint32_t s = 0; s < FL_GCF_SLOTS; s++) {
            uint32_t v = (uint32_t)(x >> (16 * s)) & 0xffffu;
            if (!v) continue;
            if ((v & 0xffu) == 0 || (v >> 8) == 0) return FL_ERR_CORRUPT;
            uint32_t len = fl_gcf_slot_ext(v); /* 0..7 by construction */
            if (len < min_len) return FL_ERR_CORRUPT;
            g->by_ext[len]++;
        }
    }
    return fl_gcf_items(g) == items ? FL_OK : FL_ERR_CORRUPT;
}

static fl_status read_gcf(fl_ct_reader *r, size_t max_bytes, fl_gcf **out) {
    fl_ct_section head, opt, slot;
    fields f;
    memset(&f, 0, sizeof f);
    fl_status st = fl_ct_layout(r, TAG_HEAD, HEAD_LEN, NO_OPTIONAL, TAG_SLOT, &head, &opt, &slot);
    if (st == FL_OK) st = read_head(r, &head, &slot, &f);
    if (st == FL_OK && max_bytes && slot.length > max_bytes) st = FL_ERR_TOO_LARGE;
    if (st == FL_OK) st = fl_in_check_size(r->in, r->end);
    if (st != FL_OK) return st;

    fl_gcf *g = NULL;
    st = fl_gcf_new(f.columns, f.wbits, f.kbits, f.seed, &g);
    if (st != FL_OK) return st;
    g->byte_limit = max_bytes; /* the loader's cap stays the filter's: see the header */
    st = fl_ct_read(r, &slot, g->table);
    if (st == FL_OK) st = fl_in_end(r->in);
    if (st == FL_OK) st = check_slots(g, f.items);
    if (st != FL_OK) {
        int err = errno; /* FL_ERR_IO: the caller reads the cause from errno */
        fl_gcf_free(g);
        errno = err;
        return st;
    }
    *out = g;
    return FL_OK;
}

/* The codec in the shape every kind's save and load share (src/format/kind_io.c). */
static fl_status write_any(const void *obj, fl_sink *sink) {
    return write_gcf((const fl_gcf *)obj, sink);
}
static fl_status read_any(fl_ct_reader *r, size_t max_bytes, void **out) {
    fl_gcf *g = NULL;
    fl_status st = read_gcf(r, max_bytes, &g);
    *out = g;
    return st;
}
static const fl_kind_codec gcf_codec = {FL_KIND_GROWING_CUCKOO, write_any, read_any, NULL};

fl_status fl_gcf_save_mem(const fl_gcf *g, void *buf, size_t cap, size_t *written) {
    if (written) *written = 0;
    if (!g || !buf) return FL_ERR_INVALID_ARG;
    return fl_kind_save_mem(&gcf_codec, g, fl_gcf_serialized_size(g), buf, cap, written);
}

fl_status fl_gcf_load_mem(const void *buf, size_t len, size_t max_bytes, fl_gcf **out) {
    if (out) *out = NULL;
    if (!buf || !out) return FL_ERR_INVALID_ARG;
    void *g = NULL;
    fl_status st = fl_kind_load_mem(&gcf_codec, buf, len, max_bytes, &g);
    *out = g;
    return st;
}

fl_status fl_gcf_save_file(const fl_gcf *g, const char *path) {
    if (!g || !path || !*path) return FL_ERR_INVALID_ARG;
    return fl_kind_save_file(&gcf_codec, g, path);
}

fl_status fl_gcf_load_file(const char *path, size_t max_bytes, fl_gcf **out) {
    if (out) *out = NULL;
    if (!path || !out) return FL_ERR_INVALID_ARG;
    void *g = NULL;
    fl_status st = fl_kind_load_file(&gcf_codec, path, max_bytes, &g);
    *out = g;
    return st;
}
