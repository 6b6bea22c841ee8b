/*
 * A list of filters stored inside another kind's format-version-2 container (the layered
 * Bloom filter's layers, src/layered/codec_layered.c; the scalable Bloom filter's chain,
 * src/sbf/codec_sbf.c): one header section of the kind's own, then per filter, first one first,
 * a sub-header (the filter codec's HEAD, src/format/codec_filter.c, then optionally the filter's
 * u64 of the kind's) and the filter's payload, exactly as a filter file stores it.
 * What the header holds and what a load checks beyond the section list stay the kind's.
 */
#include "format/codec_filter.h"

uint32_t fl_codec_chain_sections(const fl_codec_chain *c, fl_filter *const *filters,
                                 uint32_t count, uint32_t *tags, uint64_t *lengths) {
    uint32_t n = 0;
    tags[n] = c->head_tag;
    lengths[n++] = c->head_len;
    for (uint32_t i = 0; i < count; i++) {
        tags[n] = c->sub_tag;
        lengths[n++] = fl_codec_chain_sub_len(c);
        tags[n] = c->data_tag;
        lengths[n++] = filters[i]->bytes;
    }
    return n;
}

size_t fl_codec_chain_size(const fl_codec_chain *c, fl_filter *const *filters, uint32_t count) {
    uint32_t tags[FL_CT_SECTIONS_MAX];
    uint64_t lengths[FL_CT_SECTIONS_MAX];
    return fl_ct_size(fl_codec_chain_sections(c, filters, count, tags, lengths), lengths);
}

fl_status fl_codec_chain_write(const fl_codec_chain *c, fl_sink *sink, fl_kind kind,
                               const uint8_t *head, fl_filter *const *filters, uint32_t count,
                               const uint64_t *sub_u64) {
    uint32_t tags[FL_CT_SECTIONS_MAX];
    uint64_t lengths[FL_CT_SECTIONS_MAX];
    uint32_t n = fl_codec_chain_sections(c, filters, count, tags, lengths);
    fl_ct_writer w;
    fl_status st = fl_ct_write_begin(&w, sink, kind, n, tags, lengths);
    if (st == FL_OK) st = fl_ct_write_section(&w, head, c->head_len);
    for (uint32_t i = 0; i < count && st == FL_OK; i++) {
        uint8_t sub[FL_CODEC_HEAD_LEN + 8];
        fl_codec_head_encode(filters[i], sub);
        if (c->sub_u64) fl_put64(sub + FL_CODEC_HEAD_LEN, sub_u64[i]);
        st = fl_ct_write_section(&w, sub, fl_codec_chain_sub_len(c));
        if (st == FL_OK) st = fl_ct_write_section(&w, filters[i]->data, filters[i]->bytes);
    }
    if (st == FL_OK) st = fl_ct_write_end(&w);
    return st;
}

fl_status fl_codec_chain_check(const fl_codec_chain *c, const fl_ct_reader *r) {
    if (r->count < 3 || r->count % 2 == 0) return FL_ERR_CORRUPT;
    for (uint32_t i = 0; i < r->count; i++) {
        fl_ct_section s = fl_ct_section_at(r, i);
        uint32_t want = i == 0 ? c->head_tag : i % 2 ? c->sub_tag : c->data_tag;
        if (s.tag != want) return FL_ERR_CORRUPT;
        if (i == 0 && s.length != c->head_len) return FL_ERR_CORRUPT;
        if (i > 0 && i % 2 && s.length != fl_codec_chain_sub_len(c)) return FL_ERR_CORRUPT;
    }
    return FL_OK;
}

fl_status fl_codec_chain_check_payload(const fl_ct_reader *r, size_t max_bytes,
                                       uint64_t *total) {
    uint64_t sum = 0;
    for (uint32_t i = 2; i < r->count; i += 2) {
        uint64_t len = fl_ct_section_at(r, i).length;
        if (len > UINT64_MAX - sum) return FL_ERR_TOO_LARGE;
        sum += len;
    }
    if (sum > SIZE_MAX || (max_bytes && sum > max_bytes)) return FL_ERR_TOO_LARGE;
    *total = sum;
    return FL_OK;
}

fl_status fl_codec_chain_sub_head(fl_ct_reader *r, uint32_t i, const uint8_t **sub,
                                  fl_filter_fields *f) {
    fl_ct_section head = fl_ct_section_at(r, 1 + 2 * i), data = fl_ct_section_at(r, 2 + 2 * i);
    fl_status st = fl_ct_view(r, &head, sub);
    if (st != FL_OK) return st;
    memset(f, 0, sizeof *f);
    st = fl_codec_head_decode(*sub, data.length, f);
    if (st == FL_ERR_TOO_LARGE) return st;
    if (st != FL_OK) return FL_ERR_CORRUPT;
    return FL_OK;
}

fl_status fl_codec_chain_sub_read(fl_ct_reader *r, uint32_t i, const fl_filter_fields *f,
                                  fl_filter **out) {
    fl_ct_section data = fl_ct_section_at(r, 2 + 2 * i);
    fl_filter *filter = NULL;
    fl_status st = fl_codec_filter_alloc(f, &filter);
    if (st != FL_OK) return st;
    return fl_codec_filter_finish(filter, f, fl_ct_read(r, &data, filter->data), out);
}
