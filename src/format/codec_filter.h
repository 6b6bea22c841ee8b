/*
 * The filter codecs (internal): how an fl_filter is stored in a format-version-2 container
 * (src/format/codec_filter.c) and how a format-version-1 file is read
 * (src/format/codec_filter_v1.c, read-only), with the validation both share.
 */
#ifndef FL_CODEC_FILTER_H
#define FL_CODEC_FILTER_H

#include "core/internal.h"
#include "format/container.h"

#pragma GCC visibility push(hidden)

/* A filter's stored fields, decoded; validated by fl_filter_fields_check before use. */
typedef struct fl_filter_fields {
    fl_geometry g;
    fl_hash_id hash;
    uint64_t seed;
    uint64_t keys;
    size_t payload;        /* payload bytes, from the geometry */
    uint32_t stash_count;
    fl_stash_entry stash[FL_STASH_MAX];
} fl_filter_fields;

/* ---- shared by both versions (codec_filter.c) ------------------------------------------ */
/* Most victim-stash entries a variant stores (0: it has no stash). The one place the codecs
 * ask a per-variant question. */
uint32_t fl_codec_stash_limit(fl_variant v);
/* Variant and hash ids as stored (CORRUPT if unknown), the geometry (fl_geometry_check:
 * CORRUPT, or TOO_LARGE when the payload overflows size_t here) and the stored payload
 * length against it (CORRUPT). Sets f->payload. */
fl_status fl_codec_check_shape(fl_filter_fields *f, uint8_t variant, uint8_t hash,
                               uint64_t stored_payload);
/* One stored stash entry (bucket, fingerprint, pad): CORRUPT unless it names a bucket of
 * the filter and a fingerprint in [1, 2^k - 1] (0 marks an empty slot, kernels/probe.h). */
fl_status fl_codec_stash_entry(const fl_filter_fields *f, uint32_t bucket, uint16_t fp,
                               uint16_t pad, fl_stash_entry *out);
/* The caller's cap on the payload (0 = none): TOO_LARGE above it. */
fl_status fl_codec_check_cap(const fl_filter_fields *f, size_t max_bytes);
/* A new filter for the fields, payload zeroed, ready to be read into. */
fl_status fl_codec_filter_alloc(const fl_filter_fields *f, fl_filter **out);
/* The end of every filter load (v1, v2, a scalable chain's sub-filter): st is how reading
 * the payload into filter went. If FL_OK, the fields are adopted (a cuckoo filter's key
 * count must be its occupied slots, which a later delete relies on: CORRUPT otherwise) and
 * *out gets the filter; on any failure the filter is freed with errno kept, since an
 * FL_ERR_IO's cause is read from it. Returns the load's status. */
fl_status fl_codec_filter_finish(fl_filter *filter, const fl_filter_fields *f, fl_status st,
                                 fl_filter **out);

/* ---- format version 2 (codec_filter.c) ------------------------------------------------- */
/* Bytes of the v2 encoding of f (0 if it overflows size_t). */
size_t fl_codec_filter_size(const fl_filter *f);
/* Writes the v2 encoding of f (a container of kind FL_KIND_FILTER) through the sink. */
fl_status fl_codec_filter_write(const fl_filter *f, fl_sink *sink);
/* Decodes a filter from an opened container of kind FL_KIND_FILTER (the order of checks is
 * at the top of codec_filter.c). */
fl_status fl_codec_filter_read(fl_ct_reader *r, size_t max_bytes, fl_filter **out);

/* The 32-byte HEAD section of a filter, shared with codecs that store filters inside
 * their own containers (src/sbf/codec_sbf.c): encode f's, or decode one and check it against
 * the stored payload length like a filter load does (fl_codec_check_shape). */
#define FL_CODEC_HEAD_LEN 32u
void fl_codec_head_encode(const fl_filter *f, uint8_t head[FL_CODEC_HEAD_LEN]);
fl_status fl_codec_head_decode(const uint8_t *p, uint64_t payload, fl_filter_fields *f);

/* ---- a list of filters in another kind's container (codec_chain.c) -------------------- */
/* The layout: a header section (head_tag, head_len bytes), then per filter a sub-header
 * (sub_tag: its HEAD, then, if sub_u64, one u64 of the kind's) and its payload (data_tag). */
typedef struct fl_codec_chain {
    uint32_t head_tag, sub_tag, data_tag;
    uint32_t head_len;
    int sub_u64; /* 1: each sub-header ends with a u64 after the HEAD */
} fl_codec_chain;
static inline uint32_t fl_codec_chain_sub_len(const fl_codec_chain *c) {
    return FL_CODEC_HEAD_LEN + (c->sub_u64 ? 8u : 0u);
}
/* The sections' tags and lengths for count filters (FL_CT_SECTIONS_MAX entries at most);
 * returns how many. */
uint32_t fl_codec_chain_sections(const fl_codec_chain *c, fl_filter *const *filters,
                                 uint32_t count, uint32_t *tags, uint64_t *lengths);
/* The container's bytes (fl_ct_size; 0 if it overflows). */
size_t fl_codec_chain_size(const fl_codec_chain *c, fl_filter *const *filters, uint32_t count);
/* Writes the container of kind `kind`: head (head_len bytes), then the filters; sub_u64[i]
 * (read only when c->sub_u64) ends filter i's sub-header. */
fl_status fl_codec_chain_write(const fl_codec_chain *c, fl_sink *sink, fl_kind kind,
                               const uint8_t *head, fl_filter *const *filters, uint32_t count,
                               const uint64_t *sub_u64);
/* The section list of a load: CORRUPT unless it is the header, then sub-header/payload
 * pairs (at least one), of the tags and header lengths above, nothing else. */
fl_status fl_codec_chain_check(const fl_codec_chain *c, const fl_ct_reader *r);
/* The payloads together (the DATA sections of a checked list) into *total: TOO_LARGE if they
 * overflow, exceed SIZE_MAX or the caller's cap max_bytes (0 = none). */
fl_status fl_codec_chain_check_payload(const fl_ct_reader *r, size_t max_bytes,
                                       uint64_t *total);
/* Filter i's sub-header (of a checked list): *sub gets its bytes (the HEAD, then the kind's
 * u64 if any), *f the HEAD decoded against the payload's length (fl_codec_head_decode:
 * TOO_LARGE as it says, any other refusal CORRUPT). The kind checks f next. */
fl_status fl_codec_chain_sub_head(fl_ct_reader *r, uint32_t i, const uint8_t **sub,
                                  fl_filter_fields *f);
/* Filter i's payload into a new filter for f (fl_codec_filter_alloc, then
 * fl_codec_filter_finish: *out only on success). */
fl_status fl_codec_chain_sub_read(fl_ct_reader *r, uint32_t i, const fl_filter_fields *f,
                                  fl_filter **out);

/* ---- format version 1, read-only (codec_filter_v1.c) ----------------------------------- */
/* Decodes a version-1 file whose magic and version the caller has seen. */
fl_status fl_codec_filter_v1_read(fl_in *in, size_t max_bytes, fl_filter **out);

#pragma GCC visibility pop

#endif /* FL_CODEC_FILTER_H */
