/*
 * Growing cuckoo filter: how many slots of a key's two buckets match it (RedisBloom's
 * CF.COUNT semantics, include/filterlab_gcf.h). The buckets and the slot test are the
 * header's probe math (fl_gcf_buckets and fl_gcf_match, as fl_gcf_probe), counted instead
 * of or-ed.
 */
#include "gcf_internal.h"

fl_status fl_gcf_count_hash(const fl_gcf *g, uint64_t h, uint32_t *count) {
    if (count) *count = 0;
    if (!g || !count) return FL_ERR_INVALID_ARG;
    size_t i1, i2;
    fl_gcf_buckets(&g->geom, h, &i1, &i2);
    uint32_t pat = fl_gcf_pattern(&g->geom, h);
    /* one bit per matching 16-bit lane (fl_gcf_match); i2 != i1, so two distinct buckets */
    uint64_t m1 = fl_gcf_match(g->table[i1], pat);
    uint64_t m2 = fl_gcf_match(g->table[i2], pat);
    *count = (uint32_t)(__builtin_popcountll(m1) + __builtin_popcountll(m2));
    return FL_OK;
}

fl_status fl_gcf_count_bytes(const fl_gcf *g, const void *key, size_t len, uint32_t *count) {
    if (count) *count = 0;
    if (!g || !count || (!key && len)) return FL_ERR_INVALID_ARG;
    return fl_gcf_count_hash(g, fl_gcf_hash_bytes(g, key, len), count);
}

fl_status fl_gcf_count_u64(const fl_gcf *g, uint64_t key, uint32_t *count) {
    if (count) *count = 0;
    if (!g || !count) return FL_ERR_INVALID_ARG;
    return fl_gcf_count_hash(g, fl_gcf_hash_u64(g, key), count);
}
