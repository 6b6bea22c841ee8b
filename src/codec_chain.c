/*
 * A list of filters stored inside another kind's format-version-2 container (the layered
 * Bloom filter's layers, src/codec_layered.c; the scalable Bloom filter's chain,
 * src/codec_sbf.c): one header section of the kind's own, then per filter, first one first,
 * a sub-header (the filter codec's HEAD, src/codec_filter.c, then optionally the filter's
 * u64 of the kind's) and the filter's payload, exactly as a filter file stores it.
 * What the header holds and what a load checks beyond the section list stay the kind's.
 */
#include "codec_filter.h"

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
