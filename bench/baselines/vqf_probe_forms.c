/*
 * vqf_probe_forms: the vector quotient filter's two one-key probe forms side by side, in line
 * (include/filterlab_vqf.h: fl_vqf_probe, both blocks tested without a branch on the data,
 * and fl_vqf_probe_early, block1 first and each block's select only when a slot holds the
 * fingerprint), at each filter size, so that the handle's choice between them
 * (fl_vqf_lookup_is_early: FL_VQF_EARLY_MIN_BYTES of kernels/kernels.h with BMI2, the early
 * form always at x86-64 baseline) can be checked on the machine at hand.
 *
 *   vqf_probe_forms [--keys 100000,1000000,10000000] [--lookups N] [--rounds R] [-o FILE.csv]
 *
 * Per n: a filter made as single_key's (fl_vqf_create(n) holding [0, n)), single_key's
 * stream of lookups (half inserted keys, hashing included); per build of single_key's in-line
 * loops this CPU runs (base; avx2 on x86-64 with AVX2; native when configured with
 * -Dbench_march), one warm-up of each form, then R rounds that time both forms, in the order
 * AB in odd rounds and BA in even ones, so drift on a shared machine falls on both alike. The
 * comparison is the per-round ratio (scripts/bench-vqf-probe-forms writes it up).
 *
 * Output: CSV, one row per (build, n, round, form): the form that build's handle takes for
 * that filter ("early" or "probe": include/filterlab_vqf.h's fl_vqf_lookup_is_early), ns per
 * lookup, and the positives (the same for both forms, or the program stops: the forms must
 * answer alike).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bl_common.h"
#include "single_key_inline.h"

typedef double (*form_fn)(const fl_vqf *v, const uint64_t *keys, size_t m, size_t *pos,
                          int early);
typedef int (*picks_fn)(const fl_vqf *v);

/* A build of single_key's in-line loops: its name, its timing of a form, its handle's pick. */
typedef struct inline_build {
    const char *name;
    form_fn fn;
    picks_fn picks;
} inline_build;

static void usage(FILE *to) {
    fputs("usage: vqf_probe_forms [--keys LIST] [--lookups N] [--rounds R] [-o FILE.csv]\n"
          "  --keys LIST     inserted key counts [100000,1000000,10000000]\n"
          "  --lookups N     lookups per timing [4194304]\n"
          "  --rounds R      rounds of both forms, order alternating [9]\n"
          "  -o FILE         CSV output [stdout]\n",
          to);
}

static const char *const FORM[2] = {"probe", "early"};

/* One build's rounds on filter v: 0, or 1 when the forms' positives differ. */
static int run_build(FILE *out, const inline_build *b, const fl_vqf *v, uint64_t n,
                     const uint64_t *stream, size_t lookups, int rounds) {
    const char *build = b->name;
    const form_fn fn = b->fn;
    const int picked = b->picks(v) != 0;
    fl_vqf_info info;
    fl_vqf_info_get(v, &info);
    size_t pos[2];
    for (int f = 0; f < 2; f++) fn(v, stream, lookups, &pos[f], f); /* warm-up */
    if (pos[0] != pos[1]) {
        fprintf(stderr, "vqf_probe_forms: %s n=%llu: the forms found %zu and %zu keys\n", build,
                (unsigned long long)n, pos[0], pos[1]);
        return 1;
    }
    for (int r = 1; r <= rounds; r++)
        for (int j = 0; j < 2; j++) {
            int f = r % 2 ? j : 1 - j;
            size_t p = 0;
            double t = fn(v, stream, lookups, &p, f);
            if (p != pos[0]) {
                fprintf(stderr, "vqf_probe_forms: %s n=%llu: %s found %zu keys, not %zu\n", build,
                        (unsigned long long)n, FORM[f], p, pos[0]);
                return 1;
            }
            fprintf(out, "%s,%llu,%zu,%s,%d,%s,%.4f,%zu\n", build, (unsigned long long)n,
                    info.bytes, FORM[picked], r, FORM[f], t, p);
            fflush(out);
        }
    return 0;
}

int main(int argc, char **argv) {
    const char *out_path = NULL;
    double keys_list[16];
    int nkeys = bl_parse_list("100000,1000000,10000000", keys_list, 16);
    size_t lookups = (size_t)1 << 22;
    int rounds = 9;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!(v = bl_option_value(argc, argv, &i, "vqf_probe_forms"))) return 1;
        if (!strcmp(a, "--keys")) nkeys = bl_parse_list(v, keys_list, 16);
        else if (!strcmp(a, "--lookups")) lookups = (size_t)strtoull(v, NULL, 10);
        else if (!strcmp(a, "--rounds")) rounds = atoi(v);
        else if (!strcmp(a, "-o")) out_path = v;
        else {
            usage(stderr);
            return 1;
        }
    }
    if (nkeys <= 0 || lookups == 0 || lookups > ((size_t)1 << 30) || rounds < 1 || rounds > 101) {
        fprintf(stderr, "vqf_probe_forms: bad --keys, --lookups (1 to 2^30) or --rounds (1 to "
                        "101)\n");
        return 1;
    }
    for (int ki = 0; ki < nkeys; ki++)
        if (!(keys_list[ki] >= 1 && keys_list[ki] <= 1e9)) {
            fprintf(stderr, "vqf_probe_forms: --keys: each count from 1 to 10^9\n");
            return 1;
        }
    inline_build builds[3];
    size_t nb = 0;
    builds[nb++] = (inline_build){"base", single_key_time_vqf_lookup_form_base,
                                  single_key_vqf_picks_early_base};
#ifdef SINGLE_KEY_HAVE_AVX2_BUILD
    if (single_key_cpu_has(single_key_needs_avx2))
        builds[nb++] = (inline_build){"avx2", single_key_time_vqf_lookup_form_avx2,
                                      single_key_vqf_picks_early_avx2};
#endif
#ifdef SINGLE_KEY_HAVE_NATIVE_BUILD
    if (single_key_cpu_has(single_key_needs_native))
        builds[nb++] = (inline_build){"native", single_key_time_vqf_lookup_form_native,
                                      single_key_vqf_picks_early_native};
#endif
    FILE *out = bl_open_out(out_path);
    fprintf(out, "build,keys,bytes,picked,round,form,ns_per_lookup,positives\n");
    uint64_t *stream = bl_xmalloc(lookups * sizeof *stream);
    int rc = 0;
    for (int ki = 0; ki < nkeys && !rc; ki++) {
        uint64_t n = (uint64_t)keys_list[ki];
        fl_vqf *v = bl_vqf_of_range(n, "vqf_probe_forms");
        if (!v) {
            rc = 1;
            break;
        }
        bl_half_hit_stream(stream, lookups, n);
        for (size_t b = 0; b < nb && !rc; b++)
            rc = run_build(out, &builds[b], v, n, stream, lookups, rounds);
        fl_vqf_free(v);
    }
    free(stream);
    if (out != stdout && fclose(out) != 0) {
        perror("vqf_probe_forms: closing the output");
        return 1;
    }
    return rc;
}
