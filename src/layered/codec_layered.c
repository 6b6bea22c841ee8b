/*
 * The layered Bloom codec: an fl_lbf in a format-version-2 container (src/format/container.c) of
 * kind FL_KIND_LAYERED_BLOOM, and fl_lbf_save_* / fl_lbf_load_*.
 *
 * Sections, in this order:
 *
 *   "LBFH"  64 bytes, the filter:
 *             0  u8  variant of every layer (a Bloom variant)
 *             1  u8  hash id
 *             2  u16 layers R (1..FL_LBF_LAYERS_MAX)
 *             4  u32 reserved, 0
 *             8  u64 capacity (keys each layer is sized for)
 *            16  f64 fpr (each layer's target)
 *            24  u64 hash seed
 *            32  u64 adds            40  u64 deletes
 *            48  16 bytes reserved, 0
 *   then per layer, layer 0 first:
 *   "LAYH"  the filter codec's 32-byte HEAD (src/format/codec_filter.c: variant, hash, k, units,
 *           seed, key count)
 *   "DATA"  its payload, exactly as a filter file stores it
 *
 * Doubles are stored as their IEEE 754 bit patterns (little-endian u64).
 *
 * A load checks, each failure with its own status: the container (TRUNCATED, CHECKSUM,
 * CORRUPT); the section list (CORRUPT: LBFH first, then LAYH/DATA pairs, nothing else, the
 * headers of their lengths); LBFH (CORRUPT for parameters fl_lbf_create would refuse,
 * nonzero reserved bytes, a layer count that disagrees with the sections); the sum of the
 * payloads against the caller's cap (TOO_LARGE, before any allocation); the input's length
 * (TRUNCATED, TRAILING_DATA); then per layer its HEAD (CORRUPT: one the filter codec
 * refuses, or another variant, hash, seed or geometry than the parameters give), its
 * payload's checksum (CHECKSUM).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/codec_filter.h"
#include "format/container.h"
#include "format/kind_io.h"
#include "layered/layered_internal.h"

#define TAG_LBFH FL_CT_TAG('L', 'B', 'F', 'H')
#define TAG_LAYH FL_CT_TAG('L', 'A', 'Y', 'H')
#define TAG_DATA FL_CT_TAG('D', 'A', 'T', 'A')
#define LBFH_LEN 64u

/* ---- writing ---------------------------------------------------------------------------- */

/* LBFH, then a LAYH/DATA pair per layer (src/format/codec_chain.c). */
static const fl_codec_chain lbf_sections = {TAG_LBFH, TAG_LAYH, TAG_DATA, LBFH_LEN, 0};

size_t fl_lbf_serialized_size(const fl_lbf *l) {
    if (!l) return 0;
    return fl_codec_chain_size(&lbf_sections, l->layer, l->p.layers);
}

static fl_status write_lbf(const fl_lbf *l, fl_sink *sink) {
    uint8_t h[LBFH_LEN];
    memset(h, 0, sizeof h);
    h[0] = (uint8_t)l->p.variant;
    h[1] = (uint8_t)l->p.hash;
    fl_put16(h + 2, (uint16_t)l->p.layers);
    fl_put64(h + 8, l->p.capacity);
    fl_put64(h + 16, fl_double_bits(l->p.fpr));
    fl_put64(h + 24, l->p.seed);
    fl_put64(h + 32, l->p.adds);
    fl_put64(h + 40, l->p.deletes);
    return fl_codec_chain_write(&lbf_sections, sink, FL_KIND_LAYERED_BLOOM, h, l->layer, l->p.layers,
                                NULL);
}

/* The codec in the shape every kind's save and load share (src/format/kind_io.c). */
static fl_status read_lbf(fl_ct_reader *r, size_t max_bytes, fl_lbf **out);
static fl_status write_any(const void *obj, fl_sink *sink) {
    return write_lbf((const fl_lbf *)obj, sink);
}
static fl_status read_any(fl_ct_reader *r, size_t max_bytes, void **out) {
    fl_lbf *l = NULL;
    fl_status st = read_lbf(r, max_bytes, &l);
    *out = l;
    return st;
}
static const fl_kind_codec lbf_codec = {FL_KIND_LAYERED_BLOOM, write_any, read_any, NULL};

fl_status fl_lbf_save_mem(const fl_lbf *l, void *buf, size_t cap, size_t *written) {
    if (written) *written = 0;
    if (!l || !buf) return FL_ERR_INVALID_ARG;
    return fl_kind_save_mem(&lbf_codec, l, fl_lbf_serialized_size(l), buf, cap, written);
}

fl_status fl_lbf_save_file(const fl_lbf *l, const char *path) {
    if (!l || !path || !*path) return FL_ERR_INVALID_ARG;
    if (fl_lbf_serialized_size(l) == 0) return FL_ERR_TOO_LARGE;
    return fl_kind_save_file(&lbf_codec, l, path);
}

/* ---- reading ---------------------------------------------------------------------------- */

static int all_zero(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i]) return 0;
    return 1;
}

/* The parameters: whatever fl_lbf_create would refuse is CORRUPT here. */
static fl_status read_params(fl_ct_reader *r, fl_lbf *params) {
    fl_ct_section sec = fl_ct_section_at(r, 0);
    const uint8_t *h;
    fl_status st = fl_ct_view(r, &sec, &h);
    if (st != FL_OK) return st;
    fl_lbf_config c = {
        .layers = fl_get16(h + 2),
        .capacity = fl_get64(h + 8),
        .fpr = fl_bits_double(fl_get64(h + 16)),
        .variant = (fl_variant)h[0],
        .hash = (fl_hash_id)h[1],
        .seed = fl_get64(h + 24),
    };
    /* Zeros would mean "the default" to fl_lbf_params; a file stores resolved values. */
    if (c.variant == 0 || c.hash == 0) return FL_ERR_CORRUPT;
    if (!all_zero(h + 4, 4) || !all_zero(h + 48, 16)) return FL_ERR_CORRUPT;
    /* The geometry comes from layer 0's head (read_layer), not from the sizing search. */
    st = fl_lbf_params_unsized(&c, params);
    if (st != FL_OK) return FL_ERR_CORRUPT;
    if (c.layers != (r->count - 1) / 2) return FL_ERR_CORRUPT;
    params->p.adds = fl_get64(h + 32);
    params->p.deletes = fl_get64(h + 40);
    return FL_OK;
}

static fl_status check_payload(const fl_ct_reader *r, size_t max_bytes) {
    uint64_t total;
    return fl_codec_chain_check_payload(r, max_bytes, &total);
}

static fl_status read_layer(fl_ct_reader *r, fl_lbf *l, uint32_t i) {
    const uint8_t *p;
    fl_filter_fields f;
    fl_status st = fl_codec_chain_sub_head(r, i, &p, &f);
    if (st != FL_OK) return st;
    if (i == 0) {
        st = fl_lbf_set_geometry(l, &f.g);
        if (st == FL_ERR_TOO_LARGE) return st;
        if (st != FL_OK) return FL_ERR_CORRUPT;
    }
    if (f.g.variant != l->p.variant || f.hash != l->p.hash || f.seed != l->p.seed ||
        f.g.units != l->p.geometry.units || f.g.k != l->p.geometry.k)
        return FL_ERR_CORRUPT;
    return fl_codec_chain_sub_read(r, i, &f, &l->layer[i]);
}

static fl_status read_lbf(fl_ct_reader *r, size_t max_bytes, fl_lbf **out) {
    fl_lbf params;
    fl_status st = fl_codec_chain_check(&lbf_sections, r);
    if (st == FL_OK) st = read_params(r, &params);
    if (st == FL_OK) st = check_payload(r, max_bytes);
    if (st == FL_OK) st = fl_in_check_size(r->in, r->end);
    if (st != FL_OK) return st;
    fl_lbf *l = NULL;
    st = fl_lbf_alloc(&params, &l);
    if (st != FL_OK) return st;
    l->p.adds = params.p.adds;
    l->p.deletes = params.p.deletes;
    for (uint32_t i = 0; i < l->p.layers && st == FL_OK; i++) st = read_layer(r, l, i);
    if (st == FL_OK) st = fl_in_end(r->in);
    if (st != FL_OK) {
        int err = errno; /* FL_ERR_IO: the caller reads the cause from errno */
        fl_lbf_free(l);  /* layers not read yet are NULL, which fl_free ignores */
        errno = err;
        return st;
    }
    *out = l;
    return FL_OK;
}

fl_status fl_lbf_load_mem(const void *buf, size_t len, size_t max_bytes, fl_lbf **out) {
    if (out) *out = NULL;
    if (!buf || !out) return FL_ERR_INVALID_ARG;
    void *l = NULL;
    fl_status st = fl_kind_load_mem(&lbf_codec, buf, len, max_bytes, &l);
    *out = l;
    return st;
}

fl_status fl_lbf_load_file(const char *path, size_t max_bytes, fl_lbf **out) {
    if (out) *out = NULL;
    if (!path || !out) return FL_ERR_INVALID_ARG;
    void *l = NULL;
    fl_status st = fl_kind_load_file(&lbf_codec, path, max_bytes, &l);
    *out = l;
    return st;
}
