/*
 * single_key: one-key-at-a-time lookups against batches, in the shape of fastfilter_cpp's
 * benchmark (n integer keys inserted, then a stream of lookups of which half were inserted,
 * hashing included), so the two can be put side by side.
 *
 *   single_key [--filter split256,cuckoo] [--keys 100000,1000000,10000000] [--fpr P]
 *              [--lookups N] [--reps R] [-o FILE.csv]
 *
 * Per (variant, n), three ways, all with hashing included, over the same key stream, median
 * of R repetitions after one warm-up:
 *   single      fl_contains_u64 per key (SplitMix64 hash + the kernel table's one-key probe:
 *               the call a user makes for one key);
 *   lookup      fl_lookup_u64 of filterlab_inline.h per key (the generic handle), in a file
 *               built at baseline flags (cuckoo probed in line with SSE2/NEON, split256
 *               through the handle's pointer to the dispatched one-key kernel);
 *   typed       the same with the variant's own handle (fl_split256_lookup_u64 or
 *               fl_cuckoo_lookup_u64): no variant test, no call left in the loop where the
 *               variant is probed in line;
 *   lookup_avx2, typed_avx2
 *               the same file built with -mavx2 -mbmi2 (x86-64 with AVX2 only): split256
 *               probed in line with AVX2;
 *   lookup_native, typed_native
 *               the same file built with -march=native, as fastfilter_cpp's benchmark is
 *               (only in a build configured with -Dbench_march=native, not in cross builds;
 *               run on a CPU with the extensions the build enabled: it is meant for the
 *               machine that built it);
 *   batch       fl_hash_u64_inline into blocks of 1024 hashes, then fl_contains_hashes (the
 *               dispatched SIMD kernel);
 *   batch_u64s  fl_contains_u64s on blocks of 1024 keys (the library hashes them with the
 *               kernel table's vectorized hash, then probes).
 * Binary fuse filters (--filter fuse8, fuse16, fuse4w8, fuse4w16: 3- or 4-wise, 8- or
 * 16-bit fingerprints; fl_fuse_build_u64 of the keys [0, n), same key stream), four ways:
 *   single      fl_fuse_contains_u64 per key (the library call);
 *   lookup      fl_fuse_lookup of filterlab_static.h per key on the filter's view (inline);
 *   typed       the view's typed lookup per key (fl_fuse8_lookup, ...);
 *   lookup_avx2, typed_avx2, lookup_native, typed_native
 *               the same two in the -mavx2 -mbmi2 and -march=native builds;
 *   batch_u64s  fl_fuse_contains_u64s on blocks of 1024 keys (the dispatched kernel).
 * Vector quotient filters (--filter vqf: fl_vqf_create(n) holding [0, n), same stream):
 *   single, lookup (fl_vqf_lookup_u64 in line), lookup_avx2, lookup_native and batch_u64s
 *   as above.
 * Output: CSV, one row per (variant, n, mode), units in the column names; k is the fuse
 * filter's arity (the fingerprint bits for vqf).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bl_common.h"
#include "single_key_inline.h"

#define BATCH 1024

/* single_key_inline.c, built once per flag set: ns per lookup, or -1 if not applicable. */
typedef double (*time_fn)(const fl_filter *f, const uint64_t *keys, size_t m, size_t *pos);
typedef double (*fuse_time_fn)(const fl_fuse *f, const uint64_t *keys, size_t m, size_t *pos);

/* Which in-line builds this CPU runs: the AVX2 build and the native one. */
typedef struct builds_run {
    int avx2, native;
} builds_run;


static void usage(FILE *to) {
    fputs("usage: single_key [--filter LIST] [--keys LIST] [--fpr P] [--lookups N] [--reps R]\n"
          "                  [-o FILE.csv]\n"
          "  --filter LIST   variants, or fuse8, fuse16, fuse4w8, fuse4w16, vqf\n"
          "                  [split256,cuckoo]\n"
          "  --keys LIST     inserted key counts [100000,1000000,10000000]\n"
          "  --fpr P         target FPR for sizing [0.01]\n"
          "  --lookups N     lookups per repetition [4194304]\n"
          "  --reps R        repetitions (median reported) [7]\n"
          "  -o FILE         CSV output [stdout]\n",
          to);
}

static double time_single(const fl_filter *f, const uint64_t *keys, size_t m, size_t *pos) {
    BL_TIME_ONE_KEY(m, pos, fl_contains_u64(f, keys[i]));
}

/* fl_contains_u64s: the library hashes (SIMD where it can) and probes, 1024 keys a call. */
static double time_batch_u64s(const fl_filter *f, const uint64_t *keys, size_t m, size_t *pos) {
    uint8_t out[BATCH];
    double t0 = bl_now_ns();
    size_t p = 0;
    for (size_t off = 0; off < m; off += BATCH) {
        size_t c = m - off < BATCH ? m - off : BATCH, got = 0;
        fl_contains_u64s(f, keys + off, c, out, &got);
        p += got;
    }
    double t1 = bl_now_ns();
    *pos = p;
    return (t1 - t0) / (double)m;
}

static double time_fuse_single(const fl_fuse *f, const uint64_t *keys, size_t m, size_t *pos) {
    BL_TIME_ONE_KEY(m, pos, fl_fuse_contains_u64(f, keys[i]));
}

static double time_fuse_batch(const fl_fuse *f, const uint64_t *keys, size_t m, size_t *pos) {
    uint8_t out[BATCH];
    double t0 = bl_now_ns();
    size_t p = 0;
    for (size_t off = 0; off < m; off += BATCH) {
        size_t c = m - off < BATCH ? m - off : BATCH;
        p += fl_fuse_contains_u64s(f, keys + off, c, out);
    }
    double t1 = bl_now_ns();
    *pos = p;
    return (t1 - t0) / (double)m;
}

/* The fuse kinds --filter takes: name, arity, fingerprint bits. */
static const struct {
    const char *name;
    uint32_t arity, bits;
} fuse_kinds[] = {{"fuse8", 3, 8}, {"fuse16", 3, 16}, {"fuse4w8", 4, 8}, {"fuse4w16", 4, 16}};

/* One fuse kind at n keys: its rows, or 2 after an error. */
static int run_fuse(FILE *out, const char *name, uint32_t arity, uint32_t bits, uint64_t n,
                    uint64_t *stream, size_t lookups, double *ns, int reps, builds_run run) {
    uint64_t *keys = bl_xmalloc((size_t)(n ? n : 1) * sizeof *keys);
    for (uint64_t key = 0; key < n; key++) keys[key] = key;
    fl_fuse_config cfg = {.arity = arity, .fingerprint_bits = bits, .seed = 1};
    fl_fuse *f;
    fl_status s = fl_fuse_build_u64(&cfg, keys, (size_t)n, &f);
    free(keys);
    if (s != FL_OK) {
        fprintf(stderr, "single_key: %s n=%llu: %s\n", name, (unsigned long long)n,
                fl_strerror(s));
        return 2;
    }
    bl_half_hit_stream(stream, lookups, n);
    fl_static_info info;
    fl_fuse_info(f, &info);
    static const char *const mode_name[8] = {"single", "lookup", "typed", "lookup_avx2",
                                             "typed_avx2", "lookup_native", "typed_native",
                                             "batch_u64s"};
    fuse_time_fn inline_fn[8] = {0, single_key_time_fuse_lookup_base,
                                 single_key_time_fuse_typed_base};
#ifdef SINGLE_KEY_HAVE_AVX2_BUILD
    if (run.avx2) {
        inline_fn[3] = single_key_time_fuse_lookup_avx2;
        inline_fn[4] = single_key_time_fuse_typed_avx2;
    }
#endif
#ifdef SINGLE_KEY_HAVE_NATIVE_BUILD
    if (run.native) {
        inline_fn[5] = single_key_time_fuse_lookup_native;
        inline_fn[6] = single_key_time_fuse_typed_native;
    }
#endif
    (void)run;
    for (int mode = 0; mode < 8; mode++) {
        size_t pos = 0;
        if (mode >= 1 && mode <= 6 && !inline_fn[mode]) continue;
        int skip = 0;
        for (int r = -1; r < reps && !skip; r++) { /* r = -1: warm-up */
            double t;
            if (mode == 0) t = time_fuse_single(f, stream, lookups, &pos);
            else if (mode <= 6) t = inline_fn[mode](f, stream, lookups, &pos);
            else t = time_fuse_batch(f, stream, lookups, &pos);
            if (t < 0) skip = 1; /* no typed lookup for this view */
            else if (r >= 0) ns[r] = t;
        }
        if (skip) continue;
        double med = bl_median(ns, (size_t)reps); /* sorted: ns[0] is the min */
        fprintf(out, "%s,%llu,%zu,%u,%s,%s,%.4f,%.4f,%d,%zu,%.4f\n", name,
                (unsigned long long)n, info.bytes, arity, fl_fuse_kernel(f), mode_name[mode],
                med, ns[0], reps, lookups, (double)pos / (double)lookups);
        fflush(out);
    }
    fl_fuse_free(f);
    return 0;
}

/* A vector quotient filter sized for n keys (fl_vqf_create) holding [0, n): per mode (the
 * library's one-key call, the in-line handle of each build, the batch call on blocks of
 * 1024 keys), the median and fastest ns per lookup. Returns 2 after an error. */
static double vqf_single(const fl_vqf *v, const uint64_t *keys, size_t m, size_t *pos) {
    BL_TIME_ONE_KEY(m, pos, fl_vqf_contains_u64(v, keys[i]));
}
static double vqf_batch(const fl_vqf *v, const uint64_t *keys, size_t m, size_t *pos) {
    uint8_t hit[BATCH];
    size_t p = 0, got = 0;
    double t0 = bl_now_ns();
    for (size_t off = 0; off < m; off += BATCH, p += got)
        fl_vqf_contains_u64s(v, keys + off, m - off < BATCH ? m - off : BATCH, hit, &got);
    *pos = p;
    return (bl_now_ns() - t0) / (double)m;
}
static int run_vqf(FILE *out, uint64_t n, uint64_t *stream, size_t lookups, double *ns,
                   int reps, builds_run run) {
    fl_vqf *v = bl_vqf_of_range(n, "single_key");
    if (!v) return 2;
    bl_half_hit_stream(stream, lookups, n);
    fl_vqf_info info;
    fl_vqf_info_get(v, &info);
    const struct {
        const char *mode;
        double (*fn)(const fl_vqf *, const uint64_t *, size_t, size_t *);
    } modes[] = {
        {"single", vqf_single},
        {"lookup", single_key_time_vqf_lookup_base},
#ifdef SINGLE_KEY_HAVE_AVX2_BUILD
        {"lookup_avx2", run.avx2 ? single_key_time_vqf_lookup_avx2 : NULL},
#endif
#ifdef SINGLE_KEY_HAVE_NATIVE_BUILD
        {"lookup_native", run.native ? single_key_time_vqf_lookup_native : NULL},
#endif
        {"batch_u64s", vqf_batch},
    };
    (void)run;
    for (size_t mi = 0; mi < sizeof modes / sizeof modes[0]; mi++) {
        size_t pos = 0;
        if (!modes[mi].fn) continue;
        modes[mi].fn(v, stream, lookups, &pos); /* warm-up */
        for (int r = 0; r < reps; r++) ns[r] = modes[mi].fn(v, stream, lookups, &pos);
        double med = bl_median(ns, (size_t)reps);
        fprintf(out, "vqf,%llu,%zu,8,%s,%s,%.4f,%.4f,%d,%zu,%.4f\n", (unsigned long long)n,
                info.bytes, fl_vqf_kernel(v), modes[mi].mode, med, ns[0], reps, lookups,
                (double)pos / (double)lookups);
        fflush(out);
    }
    fl_vqf_free(v);
    return 0;
}

static double time_batch(const fl_filter *f, const uint64_t *keys, size_t m, uint64_t seed,
                         size_t *pos) {
    uint64_t h[BATCH];
    uint8_t out[BATCH];
    double t0 = bl_now_ns();
    size_t p = 0;
    for (size_t off = 0; off < m; off += BATCH) {
        size_t c = m - off < BATCH ? m - off : BATCH, got = 0;
        for (size_t i = 0; i < c; i++) h[i] = fl_hash_u64_inline(keys[off + i], seed);
        fl_contains_hashes(f, h, c, out, &got);
        p += got;
    }
    double t1 = bl_now_ns();
    *pos = p;
    return (t1 - t0) / (double)m;
}

int main(int argc, char **argv) {
    const char *filters = "split256,cuckoo", *out_path = NULL;
    double keys_list[16], fpr = 0.01;
    int nkeys = bl_parse_list("100000,1000000,10000000", keys_list, 16);
    size_t lookups = (size_t)1 << 22;
    int reps = 7;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!(v = bl_option_value(argc, argv, &i, "single_key"))) return 1;
        if (!strcmp(a, "--filter")) filters = v;
        else if (!strcmp(a, "--keys")) nkeys = bl_parse_list(v, keys_list, 16);
        else if (!strcmp(a, "--fpr")) fpr = strtod(v, NULL);
        else if (!strcmp(a, "--lookups")) lookups = (size_t)strtoull(v, NULL, 10);
        else if (!strcmp(a, "--reps")) reps = atoi(v);
        else if (!strcmp(a, "-o")) out_path = v;
        else {
            usage(stderr);
            return 1;
        }
    }
    if (nkeys <= 0 || lookups == 0 || reps < 1 || reps > 101 || !(fpr > 0 && fpr < 1)) {
        fprintf(stderr, "single_key: bad --keys, --lookups, --reps or --fpr\n");
        return 1;
    }
    builds_run run = {0, 0};
#ifdef SINGLE_KEY_HAVE_AVX2_BUILD
    run.avx2 = single_key_cpu_has(single_key_needs_avx2);
#endif
#ifdef SINGLE_KEY_HAVE_NATIVE_BUILD
    run.native = single_key_cpu_has(single_key_needs_native);
    if (!run.native)
        fprintf(stderr, "single_key: the -march=native build needs extensions this CPU lacks "
                        "(built on another machine?): its modes are skipped\n");
#endif
    FILE *out = bl_open_out(out_path);
    fprintf(out, "variant,keys,bytes,k,kernel,mode,ns_per_lookup_median,ns_per_lookup_min,reps,"
                 "lookups,hit_fraction\n");

    char *list = bl_xmalloc(strlen(filters) + 1);
    strcpy(list, filters);
    uint64_t *stream = bl_xmalloc(lookups * sizeof *stream);
    double *ns = bl_xmalloc((size_t)reps * sizeof *ns);
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name;
         name = strtok_r(NULL, ",", &save)) {
        if (!strcmp(name, "vqf")) {
            for (int ki = 0; ki < nkeys; ki++) {
                int rc = run_vqf(out, (uint64_t)keys_list[ki], stream, lookups, ns, reps, run);
                if (rc) return rc;
            }
            continue;
        }
        int fuse = -1;
        for (size_t k = 0; k < sizeof fuse_kinds / sizeof fuse_kinds[0]; k++)
            if (!strcmp(name, fuse_kinds[k].name)) fuse = (int)k;
        if (fuse >= 0) {
            for (int ki = 0; ki < nkeys; ki++) {
                int rc = run_fuse(out, name, fuse_kinds[fuse].arity, fuse_kinds[fuse].bits,
                                  (uint64_t)keys_list[ki], stream, lookups, ns, reps, run);
                if (rc) return rc;
            }
            continue;
        }
        fl_variant v;
        if (fl_variant_parse(name, &v) != FL_OK) {
            fprintf(stderr, "single_key: unknown variant '%s'\n", name);
            return 1;
        }
        for (int ki = 0; ki < nkeys; ki++) {
            uint64_t n = (uint64_t)keys_list[ki];
            fl_filter *f;
            fl_status s = fl_create_for(v, n, fpr, &f);
            if (s != FL_OK) {
                fprintf(stderr, "single_key: %s n=%llu: %s\n", name, (unsigned long long)n,
                        fl_strerror(s));
                return 2;
            }
            for (uint64_t key = 0; key < n; key++) {
                if ((s = fl_insert_u64(f, key)) != FL_OK) {
                    fprintf(stderr, "single_key: insert: %s\n", fl_strerror(s));
                    return 2;
                }
            }
            bl_half_hit_stream(stream, lookups, n);
            fl_info info;
            fl_get_info(f, &info);
            static const char *const mode_name[9] = {"single", "lookup", "typed", "lookup_avx2",
                                                     "typed_avx2", "lookup_native",
                                                     "typed_native", "batch", "batch_u64s"};
            time_fn inline_fn[9] = {0, single_key_time_lookup_base, single_key_time_typed_base};
#ifdef SINGLE_KEY_HAVE_AVX2_BUILD
            if (run.avx2) {
                inline_fn[3] = single_key_time_lookup_avx2;
                inline_fn[4] = single_key_time_typed_avx2;
            }
#endif
#ifdef SINGLE_KEY_HAVE_NATIVE_BUILD
            if (run.native) {
                inline_fn[5] = single_key_time_lookup_native;
                inline_fn[6] = single_key_time_typed_native;
            }
#endif
            for (int mode = 0; mode < 9; mode++) {
                size_t pos = 0;
                if (mode >= 1 && mode <= 6 && !inline_fn[mode]) continue;
                int skip = 0;
                for (int r = -1; r < reps && !skip; r++) { /* r = -1: warm-up */
                    double t;
                    if (mode == 0) t = time_single(f, stream, lookups, &pos);
                    else if (mode <= 6) t = inline_fn[mode](f, stream, lookups, &pos);
                    else if (mode == 7) t = time_batch(f, stream, lookups, info.seed, &pos);
                    else t = time_batch_u64s(f, stream, lookups, &pos);
                    if (t < 0) skip = 1; /* no one-variant handle for this variant */
                    else if (r >= 0) ns[r] = t;
                }
                if (skip) continue;
                double med = bl_median(ns, (size_t)reps); /* sorted: ns[0] is the min */
                fprintf(out, "%s,%llu,%zu,%u,%s,%s,%.4f,%.4f,%d,%zu,%.4f\n", name,
                        (unsigned long long)n, info.bytes, info.geometry.k,
                        fl_kernel_active(), mode_name[mode],
                        med, ns[0], reps, lookups, (double)pos / (double)lookups);
                fflush(out);
            }
            fl_free(f);
        }
    }
    free(list);
    free(stream);
    free(ns);
    if (out != stdout) fclose(out);
    return 0;
}
