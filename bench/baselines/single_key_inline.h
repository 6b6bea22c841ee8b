/*
 * single_key_inline.c's timing functions, one set per build of it (SINGLE_KEY_SUFFIX: base,
 * avx2 on x86-64, native in a native build): ns per lookup over keys[0..m), the positives in
 * *pos, or -1 if the filter has no such handle. single_key.c calls them; each build also
 * exports single_key_needs_<suffix>, the instruction-set extensions its flags enabled
 * (SINGLE_KEY_NEEDS_* bits, a constant: reading it runs none of the build's code), so that
 * single_key.c runs a build only on a CPU that has them.
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
    double single_key_time_vqf_lookup_##s(const fl_vqf *, const uint64_t *, size_t, size_t *); \
    extern const unsigned single_key_needs_##s;
SINGLE_KEY_DECLARE(base)
SINGLE_KEY_DECLARE(avx2)
SINGLE_KEY_DECLARE(native)
#undef SINGLE_KEY_DECLARE

/* x86 extensions a build's flags enabled, of those the headers' in-line code tests for and
 * the compiler's own code generation most uses. A -march=native build may enable more; it is
 * meant to run on the machine that built it (bench/baselines/meson.build). */
enum {
    SINGLE_KEY_NEEDS_SSSE3 = 1u << 0,
    SINGLE_KEY_NEEDS_POPCNT = 1u << 1,
    SINGLE_KEY_NEEDS_AVX2 = 1u << 2,
    SINGLE_KEY_NEEDS_BMI2 = 1u << 3,
    SINGLE_KEY_NEEDS_AVX512BW = 1u << 4,
    SINGLE_KEY_NEEDS_AVX512VL = 1u << 5,
    SINGLE_KEY_NEEDS_AVX512DQ = 1u << 6,
    SINGLE_KEY_NEEDS_AVX512F = 1u << 7,
};

#endif /* FL_SINGLE_KEY_INLINE_H */
