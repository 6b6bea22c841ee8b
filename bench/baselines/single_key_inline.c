/*
 * single_key's header-inline timing loops: filterlab_inline.h's handles, the way a user's hot
 * loop calls them. Compiled once per set of flags (bench/baselines/meson.build): at baseline
 * (cuckoo in line in SSE2/NEON, split256 through the dispatched kernel pointer), on x86-64
 * with -mavx2 -mbmi2 like a user's file built for x86-64-v3 (split256 in line in AVX2), and
 * with -march=native as fastfilter_cpp's benchmark is (the vqf lookup's AVX-512 compare on
 * such a CPU). SINGLE_KEY_SUFFIX names the build; single_key.c calls a build only on a CPU
 * with the extensions single_key_needs_<suffix> lists.
 *
 * Each handle is a local const whose address no call sees, as filterlab_inline.h advises.
 */
#include "bl_common.h"
#include "filterlab_inline.h"
#include "single_key_inline.h"

#define NAME(s, what) NAME2(s, what)
#define NAME2(s, what) single_key_time_##what##_##s
#define NEEDS(s) NEEDS2(s)
#define NEEDS2(s) single_key_needs_##s
#define PICKS(s) PICKS2(s)
#define PICKS2(s) single_key_vqf_picks_early_##s

const unsigned NEEDS(SINGLE_KEY_SUFFIX) = 0
#ifdef __AVX2__
    | FL_CPU_AVX2 | FL_CPU_OS_YMM
#endif
#ifdef __FMA__
    | FL_CPU_FMA
#endif
#ifdef __BMI2__
    | FL_CPU_BMI2
#endif
#ifdef __AVX512F__
    | FL_CPU_AVX512F | FL_CPU_OS_ZMM
#endif
#ifdef __AVX512BW__
    | FL_CPU_AVX512BW
#endif
#ifdef __AVX512VL__
    | FL_CPU_AVX512VL
#endif
#ifdef __AVX512DQ__
    | FL_CPU_AVX512DQ
#endif
#ifdef __AVX512VBMI2__
    | FL_CPU_AVX512_VBMI2
#endif
#ifdef __AVX512VPOPCNTDQ__
    | FL_CPU_AVX512_VPOPCNTDQ
#endif
#ifdef __AVX512BITALG__
    | FL_CPU_AVX512_BITALG
#endif
#ifdef __AVX512VNNI__
    | FL_CPU_AVX512_VNNI
#endif
#ifdef __AVX512VP2INTERSECT__
    | FL_CPU_AVX512_VP2INTERSECT
#endif
#ifdef __AVX512BF16__
    | FL_CPU_AVX512_BF16
#endif
#ifdef __AVX512FP16__
    | FL_CPU_AVX512_FP16
#endif
#ifdef __AVXVNNI__
    | FL_CPU_AVX_VNNI
#endif
#ifdef __AMX_TILE__
    | FL_CPU_AMX_TILE
#endif
#ifdef __AMX_INT8__
    | FL_CPU_AMX_INT8
#endif
#ifdef __AMX_BF16__
    | FL_CPU_AMX_BF16
#endif
#ifdef __AMX_FP16__
    | FL_CPU_AMX_FP16
#endif
    ;

/* ns per lookup over keys[0..m): the generic handle, one fl_lookup_u64 per key. */
double NAME(SINGLE_KEY_SUFFIX, lookup)(const fl_filter *f, const uint64_t *keys, size_t m,
                                       size_t *pos) {
    const fl_lookup l = fl_lookup_of(f);
    BL_TIME_ONE_KEY(m, pos, fl_lookup_u64(&l, keys[i]));
}

/* The same with the filter's one-variant handle; -1 if its variant has none. */
double NAME(SINGLE_KEY_SUFFIX, typed)(const fl_filter *f, const uint64_t *keys, size_t m,
                                      size_t *pos) {
    fl_status s;
    size_t p = 0;
    double t0, t1;
    if (fl_get_variant(f) == FL_SPLIT256) {
        const fl_split256_lookup l = fl_split256_lookup_of(f, &s);
        BL_TIME_KEYS(t0, t1, p, m, fl_split256_lookup_u64(&l, keys[i]));
    } else if (fl_get_variant(f) == FL_CUCKOO) {
        const fl_cuckoo_lookup l = fl_cuckoo_lookup_of(f, &s);
        BL_TIME_KEYS(t0, t1, p, m, fl_cuckoo_lookup_u64(&l, keys[i]));
    } else {
        return -1;
    }
    if (s != FL_OK) return -1;
    *pos = p;
    return (t1 - t0) / (double)m;
}

/* Binary fuse filters (include/filterlab_static.h): fl_fuse_lookup on the filter's view, one
 * key per call, the way fastfilter_cpp's benchmark calls its filters' Contain. */
double NAME(SINGLE_KEY_SUFFIX, fuse_lookup)(const fl_fuse *f, const uint64_t *keys, size_t m,
                                            size_t *pos) {
    const fl_fuse_view v = fl_fuse_view_of(f);
    BL_TIME_ONE_KEY(m, pos, fl_fuse_lookup(&v, keys[i]));
}

/* The same with the typed lookup of the view's shape; -1 for a view of none. */
#define FUSE_TYPED_LOOP(fn) BL_TIME_KEYS(t0, t1, p, m, fn(&v, keys[i]))
double NAME(SINGLE_KEY_SUFFIX, fuse_typed)(const fl_fuse *f, const uint64_t *keys, size_t m,
                                           size_t *pos) {
    const fl_fuse_view v = fl_fuse_view_of(f);
    size_t p = 0;
    double t0, t1;
    switch (v.shape) {
    case FL_FUSE_SHAPE_3_8: FUSE_TYPED_LOOP(fl_fuse8_lookup); break;
    case FL_FUSE_SHAPE_3_16: FUSE_TYPED_LOOP(fl_fuse16_lookup); break;
    case FL_FUSE_SHAPE_4_8: FUSE_TYPED_LOOP(fl_fuse4w8_lookup); break;
    case FL_FUSE_SHAPE_4_16: FUSE_TYPED_LOOP(fl_fuse4w16_lookup); break;
    default: return -1;
    }
    *pos = p;
    return (t1 - t0) / (double)m;
}

/* Vector quotient filters (include/filterlab_vqf.h): fl_vqf_lookup_u64 per key on the
 * filter's handle, probed in line with what this build's flags allow (pdep and AVX2 compares
 * in the -mavx2 -mbmi2 build, one 64-byte compare with AVX-512BW). */
double NAME(SINGLE_KEY_SUFFIX, vqf_lookup)(const fl_vqf *v, const uint64_t *keys, size_t m,
                                           size_t *pos) {
    const fl_vqf_lookup l = fl_vqf_lookup_of(v);
    BL_TIME_ONE_KEY(m, pos, fl_vqf_lookup_u64(&l, keys[i]));
}

/* The same lookups through one probe form (early 0: fl_vqf_probe, 1: fl_vqf_probe_early)
 * whatever the handle would pick, and the handle's pick in this build (1: early):
 * vqf_probe_forms. */
double NAME(SINGLE_KEY_SUFFIX, vqf_lookup_form)(const fl_vqf *v, const uint64_t *keys, size_t m,
                                                size_t *pos, int early) {
    const fl_vqf_lookup l = fl_vqf_lookup_of(v);
    if (early)
        BL_TIME_ONE_KEY(m, pos,
                        fl_vqf_probe_early(l.blocks, l.nblocks, fl_mix64(keys[i] + l.seed_mix)));
    BL_TIME_ONE_KEY(m, pos, fl_vqf_probe(l.blocks, l.nblocks, fl_mix64(keys[i] + l.seed_mix)));
}
int PICKS(SINGLE_KEY_SUFFIX)(const fl_vqf *v) {
    const fl_vqf_lookup l = fl_vqf_lookup_of(v);
    return fl_vqf_lookup_is_early(&l);
}
