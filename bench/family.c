/*
 * The family suites: the structures beyond the filter sweep, each measured through its
 * public API with the object bound to each kernel (fl_sbf_bind_kernel, fl_cms_bind_kernel,
 * fl_hll_bind_kernel). This file dispatches them from the list of structures (structures.h);
 * one file per structure does the rest, with the helpers of family_common.c:
 *
 *   family_sbf.c   scalable Bloom: insert and batch lookup per chain length at equal size
 *   family_cms.c   Count-Min: batch update and query per size, the seeds' point, top-k update
 *   family_hll.c   HyperLogLog: batch add, estimate, merge per precision; read bandwidth
 *   family_static.c  binary fuse and Bloomier: build, batch and inline lookup
 */
#include <stdio.h>
#include <string.h>

#include "family.h"

typedef struct fb_suite {
    unsigned bit;
    const char *name;
    void (*run)(fb_env *);
    size_t (*planned)(const fb_options *, const uint64_t *, size_t);
} fb_suite;

/* The structures with a suite of their own (the filter sweep has none: run.c drives it). */
#define FB_SUITE_(id, name, fam, run, planned) {FB_ST_##id, name, run, planned},
static const fb_suite all_suites[] = {FB_STRUCTURES(FB_SUITE_)};
#undef FB_SUITE_
#define NSUITES (sizeof all_suites / sizeof all_suites[0])

size_t fb_family_planned(const fb_options *o, const uint64_t *probed, size_t nprobed) {
    if (o->probe_only)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < NSUITES; i++)
        if (all_suites[i].run && (o->structures & all_suites[i].bit))
            n += all_suites[i].planned(o, probed, nprobed);
    return n;
}

void fb_family_run(fb_env *e) {
    const fb_options *o = e->o;
    unsigned fam = 0;
    char names[128] = "";
    for (size_t i = 0; i < NSUITES; i++) {
        if (!all_suites[i].run)
            continue;
        fam |= o->structures & all_suites[i].bit;
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                 names[0] ? ", " : "", all_suites[i].name);
    }
    if (!fam)
        return;
    if (o->keys == FB_KEYS_URL)
        fb_note(e->ctx, "family suites (%s) use u64 keys; --keys url applies to the filter sweep",
                names);
    fb_report_section(e);
    for (size_t i = 0; i < NSUITES; i++)
        if (all_suites[i].run && (fam & all_suites[i].bit))
            all_suites[i].run(e);
    fb_report_done(e);
}
