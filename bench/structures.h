/*
 * flbench's structures (--structure), declared once. The enum fb_structure bits (flbench.h),
 * the option's names, its --help line and its error message (options.c), and the dispatch of
 * the suites (family.c) all read this list; a new structure is one line here.
 *
 *   X(ID, name, in_family, suite, planned)
 *
 * ID: the bit is FB_ST_<ID>; name: what --structure takes; in_family: 1 if "--structure
 * family" includes it ("all" includes every one); suite and planned: its family_<name>.c
 * runner, fb_family_<name>(fb_env *), and the count of results it plans,
 * fb_family_<name>_planned(options, probed footprints, their count) (0, 0 for the filter
 * sweep, which run.c drives). The suites run in this order.
 */
#ifndef FB_STRUCTURES_H
#define FB_STRUCTURES_H

#define FB_STRUCTURES(X)                                                    \
    X(FILTER, "filter", 0, 0, 0)                                            \
    FB_SUITES(X)

/* The structures with a suite of their own (family.h declares their two functions from
 * these rows). */
#define FB_SUITES(X)                                                        \
    X(SBF, "sbf", 1, fb_family_sbf, fb_family_sbf_planned)                  \
    X(CMS, "cms", 1, fb_family_cms, fb_family_cms_planned)                  \
    X(HLL, "hll", 1, fb_family_hll, fb_family_hll_planned)                  \
    /* binary fuse filters and the Bloomier filter */                       \
    X(STATIC, "static", 0, fb_family_static, fb_family_static_planned)      \
    /* the vector quotient filter */                                        \
    X(VQF, "vqf", 0, fb_family_vqf, fb_family_vqf_planned)                  \
    /* the growing cuckoo filter */                                         \
    X(GCF, "gcf", 0, fb_family_gcf, fb_family_gcf_planned)

#endif /* FB_STRUCTURES_H */
