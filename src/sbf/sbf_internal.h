/*
 * Scalable Bloom filter internals shared by src/sbf/sbf.c (the chain) and src/sbf/codec_sbf.c (its
 * file codec). Not installed.
 *
 * The chain's memory is most of a small Redis key's (redis/bf.c reports it as MEMORY USAGE,
 * held to 1.1x RedisBloom's): a chain of one sub-filter with the common parameters is one
 * 80-byte struct and its payload. Sub-filters are not fl_filter objects (112 bytes each) but
 * 32-byte links: what differs between sub-filters (payload, geometry, count, capacity); the
 * hash, seed and kernel binding are the chain's, and the kernel slots and payload length
 * follow from the link's variant and geometry. What most chains leave at its default
 * (tightening, seed, kernel binding, max_filters) and the links after the first live in a
 * second allocation that a one-sub-filter chain with those defaults does without.
 */
#ifndef FL_SBF_INTERNAL_H
#define FL_SBF_INTERNAL_H

#include "core/internal.h"

#pragma GCC visibility push(hidden)

/* One sub-filter. */
typedef struct fl_sbf_link {
    void *data;       /* payload: fl_payload_get's (64-byte aligned, FL_PAYLOAD_SLACK after) */
    uint64_t keys;    /* keys it holds */
    uint64_t cap;     /* keys it takes before the chain grows */
    uint32_t units;   /* < 2^32 (FL_UNITS_MAX) */
    uint16_t k;       /* <= 32 for every Bloom variant */
    uint8_t variant;  /* the chain's, or classic (layout_slack) */
    /* The dispatch's size class of the payload (fl_size_class_settled, in fl_sbf_adopt):
     * which of the process's tables its calls use when the chain is not bound
     * (fl_kernels_in_class), read per call without recomputing the payload's size. */
    uint8_t size_class;
} fl_sbf_link;

/* The rarely set parameters and the links after the first: allocated only when one of the
 * parameters is not its default or the chain has grown (fl_sbf_more_needed). */
typedef struct fl_sbf_more {
    double tightening;
    uint64_t seed;
    /* fl_sbf_bind_kernel's table, or NULL for the process's (a link's table then follows
     * its payload's size class, as a filter's does). */
    const fl_kernel_table *bound;
    uint32_t max_filters; /* effective: FL_SBF_FILTERS_MAX when the config said 0 */
    uint32_t slots;       /* entries of links[]: sub-filters 1 .. slots */
    fl_sbf_link links[];
} fl_sbf_more;

struct fl_sbf {
    double error_rate, growth;
    uint64_t max_bytes;   /* 0: none; the chain's own cap, saved in its file */
    /* The process's cap on the payload bytes (0: none), never saved: a load's max_bytes
     * (codec_sbf.c), or fl_sbf_set_byte_limit. Growth obeys the tighter of the two, so a
     * file cannot lift the cap it was loaded under by storing max_bytes 0. */
    uint64_t byte_limit;
    fl_sbf_more *more;    /* NULL: one sub-filter, and the defaults fl_sbf_more lists */
    /* layout_slack in thousandths, rounded up (a policy threshold, not a measurement:
     * 1.1 is stored as 1100 and reported as 1.1); FL_SBF_SLACK_NEVER for INFINITY. */
    uint32_t slack_milli;
    uint8_t variant, hash, flags;
    uint8_t count;        /* sub-filters, 1..FL_SBF_FILTERS_MAX */
    fl_sbf_link first;    /* sub-filter 0: its cap is the chain's capacity */
};
#define FL_SBF_SLACK_NEVER UINT32_MAX

/* The parameters of a chain, unpacked: what fl_sbf_create and a load start from. */
typedef struct fl_sbf_setup {
    uint64_t capacity;
    double error_rate, growth, tightening;
    fl_variant variant;
    fl_hash_id hash;
    uint64_t seed;
    uint32_t flags, max_filters;
    uint64_t max_bytes;
    double layout_slack;
} fl_sbf_setup;

static inline fl_sbf_link *fl_sbf_link_at(const fl_sbf *s, uint32_t i) {
    return i == 0 ? (fl_sbf_link *)&s->first : &s->more->links[i - 1];
}
static inline double fl_sbf_tightening(const fl_sbf *s) {
    return s->more ? s->more->tightening : FL_SBF_TIGHTENING_DEFAULT;
}
static inline uint64_t fl_sbf_seed(const fl_sbf *s) {
    return s->more ? s->more->seed : 0;
}
static inline uint32_t fl_sbf_max_filters(const fl_sbf *s) {
    return s->more ? s->more->max_filters : FL_SBF_FILTERS_MAX;
}
static inline const fl_kernel_table *fl_sbf_bound(const fl_sbf *s) {
    return s->more ? __atomic_load_n(&s->more->bound, __ATOMIC_ACQUIRE) : NULL;
}
/* Payload bytes of a link. */
size_t fl_sbf_link_bytes(const fl_sbf_link *l);
/* A filter that reads link i's payload in place (no allocation of its own: never fl_free
 * it), for the calls that take an fl_filter (info, the codec). */
void fl_sbf_link_view(const fl_sbf *s, uint32_t i, fl_filter *out);

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
    return s->variant == FL_CLASSIC || (i > 0 && fl_sbf_link_at(s, i - 1)->variant == FL_CLASSIC);
}
/* The geometry of sub-filter i for `cap` keys (src/sbf/sbf_layout.c): the chain's
 * variant, or classic (fl_sbf_classic_from, the layout slack), sized so that its model's
 * FPR at capacity is at most the sub-filter's target. */
fl_status fl_sbf_layout(const fl_sbf *s, uint32_t i, uint64_t cap, fl_geometry *g);
/* Validates and normalises a configuration. */
fl_status fl_sbf_params(const fl_sbf_config *cfg, fl_sbf_setup *out);
/* An empty chain for the parameters (count 0), with room for `filters` sub-filters
 * (1..max_filters). */
fl_status fl_sbf_alloc(const fl_sbf_setup *p, uint32_t filters, fl_sbf **out);
/* Appends a link (grown, or loaded by the codec: its payload now the chain's) as the
 * chain's next sub-filter, its size_class set here; the chain has room for it. */
void fl_sbf_adopt(fl_sbf *s, const fl_sbf_link *l);

#pragma GCC visibility pop

#endif /* FL_SBF_INTERNAL_H */
