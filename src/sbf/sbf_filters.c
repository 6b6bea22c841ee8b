/*
 * One sub-filter of a scalable chain as the public API shows it: its info (geometry, items,
 * target and predicted FPR, bits set) and a standalone fl_filter copy of it, both made from
 * the chain's 32-byte link record (fl_sbf_link_view) without touching the chain.
 */
#include <math.h>
#include <string.h>

#include "sbf/sbf_internal.h"

fl_status fl_sbf_filter_info_at(const fl_sbf *s, uint32_t i, fl_sbf_filter_info *out) {
    if (!s || !out || i >= s->count) return FL_ERR_INVALID_ARG;
    fl_filter v;
    fl_sbf_link_view(s, i, &v);
    memset(out, 0, sizeof *out);
    out->geometry = v.g;
    out->capacity = fl_sbf_link_at(s, i)->cap;
    out->items = v.keys;
    out->target_fpr = fl_sbf_target_fpr(s, i);
    out->predicted_fpr = fl_predict_fpr(&v.g, v.keys);
    out->bytes = v.bytes;
    fl_info occ = {0};
    v.desc->occupancy(&v, &occ);
    out->bits_set = occ.bits_set;
    return isnan(out->predicted_fpr) ? FL_ERR_NO_MEMORY : FL_OK; /* the blocked model's tables */
}

fl_status fl_sbf_filter_copy(const fl_sbf *s, uint32_t i, fl_filter **out) {
    if (out) *out = NULL;
    if (!s || !out || i >= s->count) return FL_ERR_INVALID_ARG;
    fl_filter v;
    fl_sbf_link_view(s, i, &v);
    fl_filter *f = NULL;
    fl_status st = fl_filter_new(&v.g, v.hash, v.seed, 0, &f);
    if (st != FL_OK) return st;
    memcpy(f->data, v.data, v.bytes);
    f->keys = v.keys;
    f->bound = v.bound;
    *out = f;
    return FL_OK;
}
