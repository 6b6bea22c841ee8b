/*
 * The scalable Bloom codec: an fl_sbf chain in a format-version-2 container
 * (src/format/container.c) of kind FL_KIND_SCALABLE_BLOOM, and fl_sbf_save_* / fl_sbf_load_*.
 *
 * Sections, in this order:
 *
 *   "SBFH"  64 bytes, the chain:
 *             0  u8  the chain's variant (a Bloom variant); a sub-filter is of it or, from
 *                    some sub-filter on, classic (the layout fallback of src/sbf/sbf.c)
 *             1  u8  hash id
 *             2  u16 flags (fl_sbf_flags)
 *             4  u16 sub-filters (1..max sub-filters)
 *             6  u16 max sub-filters (1..FL_SBF_FILTERS_MAX)
 *             8  u64 capacity (the first sub-filter's)
 *            16  f64 error rate        24  f64 growth        32  f64 tightening
 *            40  u64 hash seed
 *            48  u64 items (keys added, the sum of the sub-filters' counts)
 *            56  u64 max payload bytes (0: none)
 *   then per sub-filter, oldest first:
 *   "SUBH"  40 bytes: the filter codec's 32-byte HEAD (src/format/codec_filter.c: variant, hash,
 *           k, units, seed, key count), then u64 its capacity
 *   "DATA"  its payload, exactly as a filter file stores it
 *
 * Doubles are stored as their IEEE 754 bit patterns (little-endian u64).
 *
 * A load checks, so that each failure has its own status: the container (TRUNCATED,
 * CHECKSUM, CORRUPT); the section list (CORRUPT: SBFH first, then SUBH/DATA pairs, nothing
 * else, SBFH and SUBH of their lengths); SBFH (TRUNCATED, CHECKSUM, then CORRUPT for
 * parameters fl_sbf_create would refuse, a sub-filter count that disagrees with the
 * sections or exceeds the stored maximum, more than one sub-filter in a non-scaling chain);
 * the sum of the payloads against the caller's cap (TOO_LARGE) and the stored one
 * (CORRUPT); the input's length (TRUNCATED, TRAILING_DATA); then per sub-filter its SUBH
 * (CORRUPT: a HEAD the filter codec refuses, a variant other than the chain's or classic, the
 * chain's variant after a classic sub-filter, another hash or seed than the chain's,
 * a capacity other than the chain's rule gives, more keys than its capacity, an older
 * sub-filter that is not full - the chain grows only when its newest is), its payload's
 * checksum (CHECKSUM); finally the items against the sum of the counts (CORRUPT).
 * Nothing is allocated before the cap and length checks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/codec_filter.h"
#include "format/container.h"
#include "format/kind_io.h"
#include "sbf/sbf_internal.h"

#define TAG_SBFH FL_CT_TAG('S', 'B', 'F', 'H')
#define TAG_SUBH FL_CT_TAG('S', 'U', 'B', 'H')
#define TAG_DATA FL_CT_TAG('D', 'A', 'T', 'A')
#define SBFH_LEN 64u

/* ---- writing ---------------------------------------------------------------------------- */

/* SBFH, then a SUBH/DATA pair per sub-filter, SUBH ending with its capacity
 * (src/format/codec_chain.c). */
static const fl_codec_chain sbf_sections = {TAG_SBFH, TAG_SUBH, TAG_DATA, SBFH_LEN, 1};

/* The codec of a list of filters (src/format/codec_chain.c) reads fl_filter objects: each
 * sub-filter as one that reads its payload in place (fl_sbf_link_view), with its capacity.
 * One allocation, freed with free(). */
typedef struct sbf_views {
    fl_filter *views;
    fl_filter **list;
    uint64_t *caps;
} sbf_views;

static fl_status views_of(const fl_sbf *s, sbf_views *v) {
    size_t n = s->count;
    char *mem = malloc(n * (sizeof *v->views + sizeof *v->list + sizeof *v->caps));
    if (!mem) return FL_ERR_NO_MEMORY;
    v->views = (fl_filter *)(void *)mem;
    v->list = (fl_filter **)(void *)(mem + n * sizeof *v->views);
    v->caps = (uint64_t *)(void *)(mem + n * (sizeof *v->views + sizeof *v->list));
    for (uint32_t i = 0; i < s->count; i++) {
        fl_sbf_link_view(s, i, &v->views[i]);
        v->list[i] = &v->views[i];
        v->caps[i] = fl_sbf_link_at(s, i)->cap;
    }
    return FL_OK;
}

/* 0 also when the views cannot be allocated: a save then fails as for a size that
 * overflows. */
size_t fl_sbf_serialized_size(const fl_sbf *s) {
    if (!s) return 0;
    sbf_views v;
    if (views_of(s, &v) != FL_OK) return 0;
    size_t n = fl_codec_chain_size(&sbf_sections, v.list, s->count);
    free(v.views);
    return n;
}

static fl_status write_sbf(const fl_sbf *s, fl_sink *sink) {
    uint8_t h[SBFH_LEN];
    memset(h, 0, sizeof h);
    h[0] = s->variant;
    h[1] = s->hash;
    fl_put16(h + 2, (uint16_t)s->flags);
    fl_put16(h + 4, (uint16_t)s->count);
    fl_put16(h + 6, (uint16_t)fl_sbf_max_filters(s));
    fl_put64(h + 8, s->first.cap);
    fl_put64(h + 16, fl_double_bits(s->error_rate));
    fl_put64(h + 24, fl_double_bits(s->growth));
    fl_put64(h + 32, fl_double_bits(fl_sbf_tightening(s)));
    fl_put64(h + 40, fl_sbf_seed(s));
    fl_put64(h + 48, fl_sbf_count(s));
    fl_put64(h + 56, s->max_bytes);
    sbf_views v;
    fl_status st = views_of(s, &v);
    if (st != FL_OK) return st;
    st = fl_codec_chain_write(&sbf_sections, sink, FL_KIND_SCALABLE_BLOOM, h, v.list, s->count,
                              v.caps);
    free(v.views);
    return st;
}

/* The codec in the shape every kind's save and load share (src/format/kind_io.c). */
static fl_status read_sbf(fl_ct_reader *r, size_t max_bytes, fl_sbf **out);
static fl_status write_any(const void *obj, fl_sink *sink) {
    return write_sbf((const fl_sbf *)obj, sink);
}
static fl_status read_any(fl_ct_reader *r, size_t max_bytes, void **out) {
    fl_sbf *s = NULL;
    fl_status st = read_sbf(r, max_bytes, &s);
    *out = s;
    return st;
}
static const fl_kind_codec sbf_codec = {FL_KIND_SCALABLE_BLOOM, write_any, read_any, NULL};

fl_status fl_sbf_save_mem(const fl_sbf *s, void *buf, size_t cap, size_t *written) {
    if (written) *written = 0;
    if (!s || !buf) return FL_ERR_INVALID_ARG;
    return fl_kind_save_mem(&sbf_codec, s, fl_sbf_serialized_size(s), buf, cap, written);
}

/* Streamed through src/format/kind_io.c like every kind: no second copy of the chain while
 * saving, and a failure leaves the old file as it was. */
fl_status fl_sbf_save_file(const fl_sbf *s, const char *path) {
    if (!s || !path || !*path) return FL_ERR_INVALID_ARG;
    if (fl_sbf_serialized_size(s) == 0) return FL_ERR_TOO_LARGE;
    return fl_kind_save_file(&sbf_codec, s, path);
}

/* ---- reading ---------------------------------------------------------------------------- */

/* The chain's parameters: whatever fl_sbf_create would refuse is CORRUPT here. */
static fl_status read_params(fl_ct_reader *r, fl_sbf_setup *params, uint64_t *items) {
    fl_ct_section sec = fl_ct_section_at(r, 0);
    const uint8_t *h;
    fl_status st = fl_ct_view(r, &sec, &h);
    if (st != FL_OK) return st;
    fl_sbf_config c = {
        .capacity = fl_get64(h + 8),
        .error_rate = fl_bits_double(fl_get64(h + 16)),
        .growth = fl_bits_double(fl_get64(h + 24)),
        .tightening = fl_bits_double(fl_get64(h + 32)),
        .variant = (fl_variant)h[0],
        .hash = (fl_hash_id)h[1],
        .seed = fl_get64(h + 40),
        .flags = fl_get16(h + 2),
        .max_filters = fl_get16(h + 6),
        .max_bytes = fl_get64(h + 56),
    };
    uint32_t filters = fl_get16(h + 4);
    *items = fl_get64(h + 48);
    /* Zeros would mean "the default" to fl_sbf_params; a file stores resolved values. */
    if (c.variant == 0 || c.hash == 0 || c.growth == 0 || c.tightening == 0 ||
        c.max_filters == 0)
        return FL_ERR_CORRUPT;
    if (fl_sbf_params(&c, params) != FL_OK) return FL_ERR_CORRUPT;
    if (filters == 0 || filters > params->max_filters || filters != (r->count - 1) / 2)
        return FL_ERR_CORRUPT;
    if ((params->flags & FL_SBF_NONSCALING) && filters > 1) return FL_ERR_CORRUPT;
    return FL_OK;
}

/* The payloads together against the caller's cap and the chain's own. */
static fl_status check_payload(const fl_ct_reader *r, const fl_sbf_setup *params,
                               size_t max_bytes) {
    uint64_t total = 0;
    fl_status st = fl_codec_chain_check_payload(r, max_bytes, &total);
    if (st != FL_OK) return st;
    if (params->max_bytes && total > params->max_bytes) return FL_ERR_CORRUPT;
    return FL_OK;
}

/* Sub-filter i: its SUBH against the chain's rules, then its payload into a new filter. */
static fl_status read_filter(fl_ct_reader *r, fl_sbf *s, uint32_t i, uint32_t filters,
                             uint64_t cap) {
    const uint8_t *p;
    fl_filter_fields f;
    fl_status st = fl_codec_chain_sub_head(r, i, &p, &f);
    if (st != FL_OK) return st;
    /* The chain's variant, or classic where the chain fell back to it (src/sbf/sbf.c's
     * choose_layout): from then on every sub-filter is classic. */
    int layout_ok = f.g.variant == FL_CLASSIC ||
                    (f.g.variant == s->variant && !fl_sbf_classic_from(s, i));
    if (!layout_ok || f.hash != s->hash || f.seed != fl_sbf_seed(s)) return FL_ERR_CORRUPT;
    if (fl_get64(p + FL_CODEC_HEAD_LEN) != cap || f.keys > cap) return FL_ERR_CORRUPT;
    if (i + 1 < filters && f.keys != cap) return FL_ERR_CORRUPT;
    fl_filter *filter = NULL;
    st = fl_codec_chain_sub_read(r, i, &f, &filter);
    if (st != FL_OK) return st;
    /* The chain keeps the payload (fl_payload_alloc's: fl_payload_mapped gives its mapping
     * back from its size) and the fields, not the filter object. */
    fl_sbf_link l = {.data = filter->data, .keys = filter->keys, .cap = cap,
                     .units = (uint32_t)filter->g.units, .k = (uint16_t)filter->g.k,
                     .variant = (uint8_t)filter->g.variant};
    free(filter);
    fl_sbf_adopt(s, &l);
    return FL_OK;
}

static fl_status read_sbf(fl_ct_reader *r, size_t max_bytes, fl_sbf **out) {
    fl_sbf_setup params;
    uint64_t items = 0;
    /* SBFH first, then SUBH/DATA pairs of the right lengths, nothing else */
    fl_status st = fl_codec_chain_check(&sbf_sections, r);
    if (st == FL_OK) st = read_params(r, &params, &items);
    if (st == FL_OK) st = check_payload(r, &params, max_bytes);
    if (st == FL_OK) st = fl_in_check_size(r->in, r->end);
    if (st != FL_OK) return st;
    uint32_t filters = (r->count - 1) / 2;
    fl_sbf *s = NULL;
    st = fl_sbf_alloc(&params, filters, &s); /* read_params checked filters <= max_filters */
    if (st != FL_OK) return st;
    uint64_t cap = params.capacity;
    for (uint32_t i = 0; i < filters && st == FL_OK; i++) {
        if (i > 0 && fl_sbf_next_capacity(cap, s->growth, &cap) != FL_OK) st = FL_ERR_CORRUPT;
        if (st == FL_OK) st = read_filter(r, s, i, filters, cap);
    }
    if (st == FL_OK) st = fl_in_end(r->in);
    if (st == FL_OK && fl_sbf_count(s) != items) st = FL_ERR_CORRUPT;
    if (st != FL_OK) {
        int err = errno; /* FL_ERR_IO: the caller reads the cause from errno */
        fl_sbf_free(s);
        errno = err;
        return st;
    }
    /* The cap the caller loaded under also bounds the chain's growth from now on: the
     * file's own max_bytes may be 0 (none) and its parameters may make the next
     * sub-filter huge (a tightening far below 0.5 drives p_i towards 1e-100). Not saved:
     * the file keeps its stored max_bytes, so a save writes back the bytes loaded. */
    s->byte_limit = max_bytes;
    *out = s;
    return FL_OK;
}

fl_status fl_sbf_load_mem(const void *buf, size_t len, size_t max_bytes, fl_sbf **out) {
    if (out) *out = NULL;
    if (!buf || !out) return FL_ERR_INVALID_ARG;
    void *s = NULL;
    fl_status st = fl_kind_load_mem(&sbf_codec, buf, len, max_bytes, &s);
    *out = s;
    return st;
}

/* Streamed like fl_load_file: the size from fstat is checked against the table before any
 * payload is allocated, and each payload is read straight into its sub-filter. */
fl_status fl_sbf_load_file(const char *path, size_t max_bytes, fl_sbf **out) {
    if (out) *out = NULL;
    if (!path || !out) return FL_ERR_INVALID_ARG;
    void *s = NULL;
    fl_status st = fl_kind_load_file(&sbf_codec, path, max_bytes, &s);
    *out = s;
    return st;
}
