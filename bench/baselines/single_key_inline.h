/*
 * single_key_inline.c's timing functions, one set per build of it (SINGLE_KEY_SUFFIX: base,
 * avx2 on x86-64, native in a native build): ns per lookup over keys[0..m), the positives in
 * *pos, or -1 if the filter has no such handle. single_key.c calls them; each build also
 * exports single_key_needs_<suffix>, the FL_CPU_* bits (include/filterlab_host.h) of the
 * extensions its flags enabled, OS register state included (a constant: reading it runs none
 * of the build's code), so that single_key.c runs a build only on a CPU that has them. A
 * -march=native build may use extensions no FL_CPU_* bit names (SSSE3, POPCNT, ...): it is
 * meant for the machine that built it.
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
    double single_key_time_vqf_lookup_form_##s(const fl_vqf *, const uint64_t *, size_t,      \
                                               size_t *, int);                                \
    int single_key_vqf_picks_early_##s(const fl_vqf *);                                       \
    extern const unsigned single_key_needs_##s;
SINGLE_KEY_DECLARE(base)
SINGLE_KEY_DECLARE(avx2)
SINGLE_KEY_DECLARE(native)
#undef SINGLE_KEY_DECLARE

/* Whether this CPU has every FL_CPU_* bit of a build's single_key_needs_<build>. */
static inline int single_key_cpu_has(unsigned needs) {
    fl_host h;
    return fl_host_describe(&h) == FL_OK && (h.features & needs) == needs;
}

#endif /* FL_SINGLE_KEY_INLINE_H */
