/*
 * single_key's header-inline timing loop: fl_lookup_u64 from filterlab_inline.h, the way a
 * user's hot loop calls it. Compiled twice (bench/baselines/meson.build): at baseline flags
 * (cuckoo inline in SSE2/NEON, split256 through the dispatched kernel pointer) and, on x86-64,
 * with -mavx2 -mbmi2 like a user's file built for x86-64-v3 (split256 inline in AVX2).
 * SINGLE_KEY_SUFFIX names the build; single_key.c calls the AVX2 one only on an AVX2 CPU.
 */
#include "bl_common.h"
#include "filterlab_inline.h"

#define TIME_LOOKUP_NAME(s) TIME_LOOKUP_NAME2(s)
#define TIME_LOOKUP_NAME2(s) single_key_time_lookup_##s

double TIME_LOOKUP_NAME(SINGLE_KEY_SUFFIX)(const fl_filter *f, const uint64_t *keys, size_t m,
                                           size_t *pos);

/* ns per lookup over keys[0..m): one fl_lookup_u64 per key, hashing included. */
double TIME_LOOKUP_NAME(SINGLE_KEY_SUFFIX)(const fl_filter *f, const uint64_t *keys, size_t m,
                                           size_t *pos) {
    const fl_lookup l = fl_lookup_of(f); /* a local whose address never escapes */
    double t0 = bl_now_ns();
    size_t p = 0;
    for (size_t i = 0; i < m; i++) p += (size_t)fl_lookup_u64(&l, keys[i]);
    double t1 = bl_now_ns();
    *pos = p;
    return (t1 - t0) / (double)m;
}
