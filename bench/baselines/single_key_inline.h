/*
 * single_key_inline.c's timing functions, one set per build of it (SINGLE_KEY_SUFFIX: base,
 * and avx2 on x86-64): ns per lookup over keys[0..m), the positives in *pos, or -1 if the
 * filter has no such handle. single_key.c calls them.
 */
#ifndef FL_SINGLE_KEY_INLINE_H
#define FL_SINGLE_KEY_INLINE_H

#include "filterlab.h"
#include "filterlab_static.h"

#define SINGLE_KEY_DECLARE(s)                                                                \
    double single_key_time_lookup_##s(const fl_filter *, const uint64_t *, size_t, size_t *); \
    double single_key_time_typed_##s(const fl_filter *, const uint64_t *, size_t, size_t *);  \
    double single_key_time_fuse_lookup_##s(const fl_fuse *, const uint64_t *, size_t,        \
                                           size_t *);                                         \
    double single_key_time_fuse_typed_##s(const fl_fuse *, const uint64_t *, size_t, size_t *); \
    double single_key_time_vqf_lookup_##s(const fl_vqf *, const uint64_t *, size_t, size_t *);
SINGLE_KEY_DECLARE(base)
SINGLE_KEY_DECLARE(avx2)
#undef SINGLE_KEY_DECLARE

#endif /* FL_SINGLE_KEY_INLINE_H */
