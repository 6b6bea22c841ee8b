/*
 * The filter codec: an fl_filter in a format-version-2 container (src/format/container.c) of kind
 * FL_KIND_FILTER, plus the field validation format version 1 shares (codec_filter_v1.c).
 *
 * Sections, in this order (tags as in a hex dump):
 *
 *   "HEAD"  32 bytes, always first:
 *             0  u8  variant (fl_variant, 1..5)
 *             1  u8  hash id (fl_hash_id, 1..2)
 *             2  u16 reserved, must be 0
 *             4  u32 k (bits per key; cuckoo: fingerprint bits)
 *             8  u64 units (words / blocks / buckets)
 *            16  u64 hash seed
 *            24  u64 key count (fl_info.keys)
 *   "STSH"  8 bytes per victim-stash entry, 1..8 entries: u32 bucket, u16 fingerprint,
 *           u16 zero. Present exactly when the variant has a stash (cuckoo) and it is not
 *           empty, so every filter has one encoding.
 *   "DATA"  the payload, always last: exactly the in-memory payload (its words are
 *           little-endian, see kernels/probe.h); its length must equal the geometry's
 *           payload size. Being last, it is read straight into the new filter.
 *
 * A load checks, in this order, so that each failure has its own status:
 *   the container's preamble and table (src/format/container.c: TRUNCATED, CHECKSUM, CORRUPT);
 *   the section list (CORRUPT: an unknown tag, a missing or duplicated section, HEAD not
 *   first or DATA not last, a HEAD or STSH of the wrong length); the HEAD section
 *   (TRUNCATED, CHECKSUM, then CORRUPT for an unknown variant or hash, nonzero reserved
 *   bits, a geometry fl_geometry_check rejects, or a DATA length differing from the
 *   geometry's payload; a payload that overflows size_t here is TOO_LARGE); the STSH
 *   section (TRUNCATED, CHECKSUM, CORRUPT: a stash on a variant without one, more entries
 *   than the variant allows, a bad entry); the payload against the caller's cap
 *   (TOO_LARGE); the input's length against the table (TRUNCATED, TRAILING_DATA); the
 *   payload's checksum (CHECKSUM); values the variant never writes (CORRUPT: a 13-bit
 *   cuckoo bucket's rank past the last) and a cuckoo key count against the occupied slots
 *   (CORRUPT).
 * Only then is the filter returned; nothing is allocated before the cap and length checks.
 */
#include <errno.h>
#include <string.h>

#include "format/codec_filter.h"

#define TAG_HEAD FL_CT_TAG('H', 'E', 'A', 'D')
#define TAG_STSH FL_CT_TAG('S', 'T', 'S', 'H')
#define TAG_DATA FL_CT_TAG('D', 'A', 'T', 'A')
#define HEAD_LEN 32u
#define STASH_ENTRY 8u

/* ==== shared by versions 1 and 2 ======================================================= */

uint32_t fl_codec_stash_limit(fl_variant v) {
    const fl_variant_desc *d = fl_variant_desc_of(v);
    return d ? d->stash_max : 0;
}

fl_status fl_codec_check_shape(fl_filter_fields *f, uint8_t variant, uint8_t hash,
                               uint64_t stored_payload) {
    if (variant < FL_VARIANT_MIN || variant > FL_VARIANT_MAX) return FL_ERR_CORRUPT;
    if (hash != FL_HASH_XXH3 && hash != FL_HASH_XXH64) return FL_ERR_CORRUPT;
    f->g.variant = (fl_variant)variant;
    f->hash = (fl_hash_id)hash;
    size_t bytes = 0;
    fl_status st = fl_geometry_check(&f->g, &bytes);
    if (st == FL_ERR_TOO_LARGE || st == FL_ERR_NO_MEMORY) return st;
    if (st != FL_OK) return FL_ERR_CORRUPT;
    if (stored_payload != (uint64_t)bytes) return FL_ERR_CORRUPT;
    f->payload = bytes;
    return FL_OK;
}

fl_status fl_codec_stash_entry(const fl_filter_fields *f, uint32_t bucket, uint16_t fp,
                               uint16_t pad, fl_stash_entry *out) {
    if (bucket >= f->g.units || fp == 0 || pad != 0) return FL_ERR_CORRUPT;
    if (f->g.k < 16 && fp >= (1u << f->g.k)) return FL_ERR_CORRUPT;
    out->bucket = bucket;
    out->fp = fp;
    return FL_OK;
}

fl_status fl_codec_check_cap(const fl_filter_fields *f, size_t max_bytes) {
    return max_bytes && f->payload > max_bytes ? FL_ERR_TOO_LARGE : FL_OK;
}

fl_status fl_codec_filter_alloc(const fl_filter_fields *f, fl_filter **out) {
    return fl_filter_new(&f->g, f->hash, f->seed, 0, out);
}

/* A table of slots (cuckoo) stores one fingerprint per stored key copy, so its key count must
 * be exactly the occupied slots plus the stash, which a later delete relies on. */
static fl_status adopt_fields(fl_filter *filter, const fl_filter_fields *f) {
    filter->stash_count = f->stash_count;
    for (uint32_t i = 0; i < f->stash_count; i++) filter->stash[i] = f->stash[i];
    if (filter->desc->check_payload && filter->desc->check_payload(filter) != FL_OK)
        return FL_ERR_CORRUPT;
    if (filter->desc->info.unit_slots) {
        fl_info occupied = {0};
        filter->desc->occupancy(filter, &occupied);
        if (occupied.bits_set != f->keys) return FL_ERR_CORRUPT;
    }
    filter->keys = f->keys;
    return FL_OK;
}

fl_status fl_codec_filter_finish(fl_filter *filter, const fl_filter_fields *f, fl_status st,
                                 fl_filter **out) {
    if (st == FL_OK) st = adopt_fields(filter, f);
    if (st != FL_OK) {
        int err = errno; /* FL_ERR_IO: the caller reads the cause from errno */
        fl_free(filter);
        errno = err;
        return st;
    }
    *out = filter;
    return FL_OK;
}

void fl_codec_head_encode(const fl_filter *f, uint8_t head[FL_CODEC_HEAD_LEN]) {
    memset(head, 0, FL_CODEC_HEAD_LEN);
    head[0] = (uint8_t)f->g.variant;
    head[1] = (uint8_t)f->hash;
    fl_put32(head + 4, f->g.k);
    fl_put64(head + 8, f->g.units);
    fl_put64(head + 16, f->seed);
    /* keys may be bumped by fl_insert_hashes_atomic on another thread. */
    fl_put64(head + 24, __atomic_load_n(&f->keys, __ATOMIC_RELAXED));
}

fl_status fl_codec_head_decode(const uint8_t *p, uint64_t payload, fl_filter_fields *f) {
    if (fl_get16(p + 2) != 0) return FL_ERR_CORRUPT;
    f->g.k = fl_get32(p + 4);
    f->g.units = fl_get64(p + 8);
    f->seed = fl_get64(p + 16);
    f->keys = fl_get64(p + 24);
    return fl_codec_check_shape(f, p[0], p[1], payload);
}

/* ==== format version 2: writing ======================================================== */

/* Stash entries a save stores: none for a variant without a stash. */
static uint32_t stash_to_store(const fl_filter *f) {
    return fl_codec_stash_limit(f->g.variant) ? f->stash_count : 0;
}

/* The section list of f: tags and lengths, in file order; returns the count. */
static uint32_t sections_of(const fl_filter *f, uint32_t tags[3], uint64_t lengths[3]) {
    uint32_t n = 0, stash = stash_to_store(f);
    tags[n] = TAG_HEAD;
    lengths[n++] = HEAD_LEN;
    if (stash) {
        tags[n] = TAG_STSH;
        lengths[n++] = (uint64_t)STASH_ENTRY * stash;
    }
    tags[n] = TAG_DATA;
    lengths[n++] = f->bytes;
    return n;
}

size_t fl_codec_filter_size(const fl_filter *f) {
    uint32_t tags[3];
    uint64_t lengths[3];
    uint32_t n = sections_of(f, tags, lengths);
    return fl_ct_size(n, lengths);
}

fl_status fl_codec_filter_write(const fl_filter *f, fl_sink *sink) {
    uint32_t stash = stash_to_store(f);
    if (stash > fl_codec_stash_limit(f->g.variant)) return FL_ERR_INVALID_ARG;
    uint32_t tags[3];
    uint64_t lengths[3];
    uint32_t n = sections_of(f, tags, lengths);

    uint8_t head[HEAD_LEN];
    fl_codec_head_encode(f, head);

    uint8_t entries[STASH_ENTRY * FL_STASH_MAX];
    memset(entries, 0, sizeof entries);
    for (uint32_t i = 0; i < stash; i++) {
        fl_put32(entries + STASH_ENTRY * i, f->stash[i].bucket);
        fl_put16(entries + STASH_ENTRY * i + 4, f->stash[i].fp);
    }

    fl_ct_writer w;
    fl_status st = fl_ct_write_begin(&w, sink, FL_KIND_FILTER, n, tags, lengths);
    if (st == FL_OK) st = fl_ct_write_section(&w, head, sizeof head);
    if (st == FL_OK && stash) st = fl_ct_write_section(&w, entries, STASH_ENTRY * stash);
    if (st == FL_OK) st = fl_ct_write_section(&w, f->data, f->bytes);
    if (st == FL_OK) st = fl_ct_write_end(&w);
    return st;
}

/* ==== format version 2: reading ======================================================== */

/* The section list, before any section is read: HEAD first, DATA last, at most one STSH
 * between them, nothing else. */
static fl_status check_sections(const fl_ct_reader *r, fl_ct_section *head,
                                fl_ct_section *stash, fl_ct_section *data) {
    fl_status st = fl_ct_layout(r, TAG_HEAD, HEAD_LEN, TAG_STSH, TAG_DATA, head, stash, data);
    if (st != FL_OK) return st;
    if (stash->length % STASH_ENTRY || stash->length > (uint64_t)STASH_ENTRY * FL_STASH_MAX)
        return FL_ERR_CORRUPT;
    return FL_OK;
}

static fl_status read_head(fl_ct_reader *r, const fl_ct_section *s, uint64_t payload,
                           fl_filter_fields *f) {
    const uint8_t *p;
    fl_status st = fl_ct_view(r, s, &p);
    if (st != FL_OK) return st;
    return fl_codec_head_decode(p, payload, f);
}

static fl_status read_stash(fl_ct_reader *r, const fl_ct_section *s, fl_filter_fields *f) {
    const uint8_t *p;
    fl_status st = fl_ct_view(r, s, &p);
    if (st != FL_OK) return st;
    uint32_t n = (uint32_t)(s->length / STASH_ENTRY);
    if (n > fl_codec_stash_limit(f->g.variant)) return FL_ERR_CORRUPT;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *e = p + STASH_ENTRY * i;
        st = fl_codec_stash_entry(f, fl_get32(e), fl_get16(e + 4), fl_get16(e + 6),
                                  &f->stash[i]);
        if (st != FL_OK) return st;
    }
    f->stash_count = n;
    return FL_OK;
}

fl_status fl_codec_filter_read(fl_ct_reader *r, size_t max_bytes, fl_filter **out) {
    fl_ct_section head, stash, data;
    fl_filter_fields f;
    memset(&f, 0, sizeof f);
    fl_status st = check_sections(r, &head, &stash, &data);
    if (st == FL_OK) st = read_head(r, &head, data.length, &f);
    if (st == FL_OK && stash.length) st = read_stash(r, &stash, &f);
    if (st == FL_OK) st = fl_codec_check_cap(&f, max_bytes);
    if (st == FL_OK) st = fl_in_check_size(r->in, r->end);
    if (st != FL_OK) return st;

    fl_filter *filter = NULL;
    st = fl_codec_filter_alloc(&f, &filter);
    if (st != FL_OK) return st;
    st = fl_ct_read(r, &data, filter->data);
    if (st == FL_OK) st = fl_in_end(r->in);
    return fl_codec_filter_finish(filter, &f, st, out);
}
