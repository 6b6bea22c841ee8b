/*
 * Scalable Bloom filter internals shared by src/sbf/sbf.c (the chain) and src/sbf/codec_sbf.c (its
 * file codec). Not installed.
 */
#ifndef FL_SBF_INTERNAL_H
#define FL_SBF_INTERNAL_H

#include "core/internal.h"

#pragma GCC visibility push(hidden)

struct fl_sbf {
    /* Parameters as normalised by fl_sbf_create (defaults filled in, hash resolved). */
    uint64_t capacity;
    double error_rate, growth, tightening;
    fl_variant variant;
    fl_hash_id hash;
    uint64_t seed;
    uint32_t flags;
    uint32_t max_filters; /* effective: FL_SBF_FILTERS_MAX when the config said 0 */
    uint64_t max_bytes;   /* 0: none; the chain's own cap, saved in its file */
    /* The process's cap on the payload bytes (0: none), never saved: a load's max_bytes
     * (codec_sbf.c), or fl_sbf_set_byte_limit. Growth obeys the tighter of the two, so a
     * file cannot lift the cap it was loaded under by storing max_bytes 0. */
    uint64_t byte_limit;
    double layout_slack;  /* effective: FL_SBF_LAYOUT_SLACK_DEFAULT when the config said 0 */
    /* The chain, oldest first; cap[i] is sub-filter i's capacity. Both arrays hold
     * `slots` entries, one at first, doubled on demand up to max_filters (fl_sbf_room): a
     * chain of one sub-filter, the common case, does not carry two arrays of 127 entries
     * (2 KiB, as much as the payload of a filter for 1,000 keys at 1%), nor of 4. */
    uint32_t count, slots;
    fl_filter **filters;
    uint64_t *cap;
    /* No running totals of keys or payload bytes: the sub-filters hold them, and a chain
     * of one sub-filter (most Redis keys) is smaller without two more words. */
    /* fl_sbf_bind_kernel's kernel name (static storage) or NULL: new sub-filters get it. */
    const char *kernel;
};

/* The rules of the chain, shared with the loader so that a file must obey them. */
/* Capacity of the sub-filter after one of capacity `prev` (RedisBloom multiplies the last
 * capacity by EXPANSION): ceil(prev * growth); FL_ERR_TOO_LARGE past 2^53 keys, where
 * doubles stop counting exactly. */
fl_status fl_sbf_next_capacity(uint64_t prev, double growth, uint64_t *out);
/* Target FPR of sub-filter i: p (1 - r) r^i (non-scaling: p, its only sub-filter). */
double fl_sbf_target_fpr(const fl_sbf *s, uint32_t i);
/* 1 if sub-filter i must be classic whatever the chain's variant: the layout fallback
 * (src/sbf/sbf.c's choose_layout) is for good once taken, so a sub-filter after a classic one is
 * classic too; the loader holds files to the same rule. */
static inline int fl_sbf_classic_from(const fl_sbf *s, uint32_t i) {
    return s->variant == FL_CLASSIC || (i > 0 && s->filters[i - 1]->g.variant == FL_CLASSIC);
}
/* Validates and normalises a configuration into the parameter fields of *s (no filters). */
fl_status fl_sbf_params(const fl_sbf_config *cfg, fl_sbf *s);
/* An empty chain for the parameters in *params: arrays allocated, no sub-filter. */
fl_status fl_sbf_alloc(const fl_sbf *params, fl_sbf **out);
/* Makes the arrays hold at least n sub-filters (n <= max_filters, else FL_ERR_TOO_LARGE);
 * on FL_ERR_NO_MEMORY the chain is unchanged. */
fl_status fl_sbf_room(fl_sbf *s, uint32_t n);
/* Appends a filter the codec loaded as the chain's next sub-filter of capacity cap (the
 * arrays have room for it: fl_sbf_room). */
void fl_sbf_adopt(fl_sbf *s, fl_filter *f, uint64_t cap);

#pragma GCC visibility pop

#endif /* FL_SBF_INTERNAL_H */
