/*
 * The family suites' shared pieces (family_common.c), their dispatch (family.c) and one entry
 * per structure (family_*.c, listed in structures.h). Included only by those files and run.c.
 */
#ifndef FB_FAMILY_H
#define FB_FAMILY_H

#include "sweep.h"

/* A result named <op>/<structure>/<kernel>/<size>[/<params>]/keys:u64 whose per-item unit is
 * `item` (a string literal), with the fields every family result has. */
fb_result *fb_fam_result(fb_env *e, const char *op, const char *structure, const char *item,
                         size_t ki, const char *size, const char *params, uint64_t items);
/* n never-seen u64 keys: fb_key_u64 of the ids *cursor, *cursor + 1, ... */
void fb_fam_fresh_keys(uint64_t *keys, size_t n, uint64_t *cursor, uint64_t seed);
/* A timed region as repetition rep of r (rep < 0: warm-up, dropped). */
void fb_fam_record(fb_env *e, fb_result *r, int rep, const fb_meas *m, double items);
/* Bytes the suites may allocate: 60% of the available memory, as the filter sweep. */
uint64_t fb_fam_budget(const fb_env *e);

/* The results the suites --structure asks for will produce when nothing is skipped (the
 * progress line's count); one function per suite, beside its loops. probed: the footprints
 * the filter sweep's probe measures (the static suite probes only the others). */
size_t fb_family_planned(const fb_options *o, const uint64_t *probed, size_t nprobed);

/* Runs the suites --structure asks for, after the filter sweep, in the order of
 * FB_STRUCTURES. */
void fb_family_run(fb_env *e);

/* Each suite's runner and count (family_<name>.c), declared from its FB_SUITES row. */
#define FB_SUITE_DECLARE_(id, name, in_family, suite, planned)                          \
    void suite(fb_env *e);                                                              \
    size_t planned(const fb_options *o, const uint64_t *probed, size_t nprobed);
FB_SUITES(FB_SUITE_DECLARE_)
#undef FB_SUITE_DECLARE_

#endif /* FB_FAMILY_H */
