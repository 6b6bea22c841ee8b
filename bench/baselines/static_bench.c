/*
 * static_bench: binary fuse filters (include/filterlab_static.h) in the shape of
 * fastfilter_cpp's benchmark: keys [0, n) built, then a stream of lookups of which half were
 * built, hashing included. scripts/bench_fuse.py runs it and writes
 * results/<host-id>/static/fuse.json.
 *
 *   static_bench [--keys 100000,1000000,10000000] [--shapes 3_8,3_16,4_8,4_16]
 *                [--lookups N] [--reps R] [--builds B] [-o FILE.json]
 *
 * Wall-clock figures, and beside them this thread's CPU time (which leaves out the time
 * other processes held the core on a shared machine).
 * Per (shape, n): construction ns per key (median of B builds from the same keys; tries,
 * bytes, bits per key, peak scratch), the measured FPR (2^20 never-built keys), and ns per
 * lookup, median of R repetitions after a warm-up, the modes interleaved within each
 * repetition so a noisy neighbour hits all alike:
 *   single      fl_fuse_contains_u64 per key (a library call per key);
 *   inline      fl_fuse_lookup of the header per key, with the view made once (the
 *               one-key-at-a-time loop fastfilter_cpp's benchmark times);
 *   batch:K     fl_fuse_contains_u64s on blocks of 1024 keys with the filter bound to kernel
 *               K, for every kernel this CPU runs natively (hashing inside the kernel).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bl_common.h"
#include "fb_rng.h"

#define BATCH 1024

/* CPU time of this thread: on a shared machine it leaves out the time other processes held
 * the core (wall time does not), so it is reported beside the wall-clock figures. */
static double cpu_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}
#define MISS_BASE (UINT64_C(1) << 62)
#define MODES_MAX 8

static double time_single(const fl_fuse *f, const uint64_t *keys, size_t m, size_t *pos) {
    double t0 = bl_now_ns();
    size_t p = 0;
    for (size_t i = 0; i < m; i++) p += (size_t)fl_fuse_contains_u64(f, keys[i]);
    double t = (bl_now_ns() - t0) / (double)m;
    *pos = p;
    return t;
}

static double time_inline(const fl_fuse *f, const uint64_t *keys, size_t m, size_t *pos) {
    const fl_fuse_view v = fl_fuse_view_of(f);
    double t0 = bl_now_ns();
    size_t p = 0;
    for (size_t i = 0; i < m; i++) p += (size_t)fl_fuse_lookup(&v, keys[i]);
    double t = (bl_now_ns() - t0) / (double)m;
    *pos = p;
    return t;
}

static double time_batch(const fl_fuse *f, const uint64_t *keys, size_t m, size_t *pos) {
    static uint8_t out[BATCH];
    double t0 = bl_now_ns();
    size_t p = 0;
    for (size_t off = 0; off < m; off += BATCH)
        p += fl_fuse_contains_u64s(f, keys + off, m - off < BATCH ? m - off : BATCH, out);
    double t = (bl_now_ns() - t0) / (double)m;
    *pos = p;
    return t;
}

static void usage(FILE *to) {
    fputs("usage: static_bench [--keys LIST] [--shapes LIST] [--lookups N] [--reps R]\n"
          "                    [--builds B] [-o FILE.json]\n"
          "  --keys LIST     key counts [100000,1000000,10000000]\n"
          "  --shapes LIST   arity_bits [3_8,3_16,4_8,4_16]\n"
          "  --lookups N     lookups per repetition [4000000]\n"
          "  --reps R        repetitions (median reported) [7]\n"
          "  --builds B      constructions timed per (shape, n) [3]\n",
          to);
}

int main(int argc, char **argv) {
    double keys_list[16] = {100000, 1000000, 10000000};
    int nkeys = 3;
    const char *shapes = "3_8,3_16,4_8,4_16";
    size_t lookups = 4000000;
    int reps = 7, builds = 3;
    const char *out_path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--keys") && v) {
            nkeys = bl_parse_list(v, keys_list, 16);
            i++;
        } else if (!strcmp(a, "--shapes") && v) {
            shapes = v;
            i++;
        } else if (!strcmp(a, "--lookups") && v) {
            lookups = (size_t)strtoull(v, NULL, 10);
            i++;
        } else if (!strcmp(a, "--reps") && v) {
            reps = atoi(v);
            i++;
        } else if (!strcmp(a, "--builds") && v) {
            builds = atoi(v);
            i++;
        } else if (!strcmp(a, "-o") && v) {
            out_path = v;
            i++;
        } else {
            usage(stderr);
            return 1;
        }
    }
    if (nkeys <= 0 || lookups == 0 || reps < 1 || builds < 1) {
        usage(stderr);
        return 1;
    }
    /* Kernels this CPU runs natively, for the batch modes. */
    const char *kernels[MODES_MAX];
    int nkern = 0;
    for (size_t i = 0; i < fl_kernel_count() && nkern < MODES_MAX - 2; i++) {
        fl_kernel_desc d;
        if (fl_kernel_describe(i, &d) == FL_OK && d.supported && !d.emulated)
            kernels[nkern++] = d.name;
    }
    FILE *out = bl_open_out(out_path);
    bl_json j;
    bl_json_init(&j, out);
    bl_json_open(&j, NULL, '{');
    bl_json_context(&j, "static_bench");
    bl_json_int(&j, "lookups", (long long)lookups);
    bl_json_int(&j, "reps", reps);
    bl_json_int(&j, "batch", BATCH);
    bl_json_open(&j, "rows", '[');

    size_t max_n = 0;
    for (int k = 0; k < nkeys; k++)
        if ((size_t)keys_list[k] > max_n) max_n = (size_t)keys_list[k];
    uint64_t *keys = bl_xmalloc(max_n * sizeof *keys);
    for (size_t i = 0; i < max_n; i++) keys[i] = i;
    uint64_t *stream = bl_xmalloc(lookups * sizeof *stream);
    const size_t nmiss = (size_t)1 << 20;
    uint64_t *miss = bl_xmalloc(nmiss * sizeof *miss);
    uint8_t *hit = bl_xmalloc(nmiss);
    double *bt = bl_xmalloc((size_t)builds * sizeof *bt);
    double *bcpu = bl_xmalloc((size_t)builds * sizeof *bcpu);
    double (*cpu)[64] = bl_xmalloc(MODES_MAX * sizeof *cpu);
    double (*ns)[64] = bl_xmalloc(MODES_MAX * sizeof *ns);
    if (reps > 64) reps = 64;

    char *list = bl_xmalloc(strlen(shapes) + 1);
    strcpy(list, shapes);
    for (char *save = NULL, *sh = strtok_r(list, ",", &save); sh; sh = strtok_r(NULL, ",", &save)) {
        unsigned arity = 0, bits = 0;
        if (sscanf(sh, "%u_%u", &arity, &bits) != 2) {
            fprintf(stderr, "static_bench: bad shape '%s' (want ARITY_BITS, e.g. 3_8)\n", sh);
            return 1;
        }
        for (int ki = 0; ki < nkeys; ki++) {
            size_t n = (size_t)keys_list[ki];
            fl_fuse_config cfg = {.arity = arity, .fingerprint_bits = bits};
            fl_fuse *f = NULL;
            for (int b = 0; b < builds; b++) {
                fl_fuse_free(f);
                f = NULL;
                double t0 = bl_now_ns(), c0 = cpu_now_ns();
                fl_status s = fl_fuse_build_u64(&cfg, keys, n, &f);
                bt[b] = (bl_now_ns() - t0) / (double)n;
                bcpu[b] = (cpu_now_ns() - c0) / (double)n;
                if (s != FL_OK) {
                    fprintf(stderr, "static_bench: %s n=%zu: %s\n", sh, n, fl_strerror(s));
                    return 2;
                }
            }
            double build_med = bl_median(bt, (size_t)builds);
            double build_cpu = bl_median(bcpu, (size_t)builds);
            fl_static_info info;
            fl_fuse_info(f, &info);
            fb_rng rng = {n * 7919 + 1};
            for (size_t i = 0; i < nmiss; i++) miss[i] = MISS_BASE + fb_rng_next(&rng) % MISS_BASE;
            size_t fp = fl_fuse_contains_u64s(f, miss, nmiss, hit);
            for (size_t i = 0; i < lookups; i++)
                stream[i] = (fb_rng_next(&rng) & 1) ? fb_rng_below(&rng, n)
                                                     : MISS_BASE + fb_rng_next(&rng) % MISS_BASE;
            const char *mode_name[MODES_MAX];
            int nmodes = 0;
            mode_name[nmodes++] = "single";
            mode_name[nmodes++] = "inline";
            for (int k = 0; k < nkern; k++) mode_name[nmodes++] = kernels[k];
            size_t pos[MODES_MAX] = {0};
            for (int r = -1; r < reps; r++)
                for (int m = 0; m < nmodes; m++) {
                    double t, c0 = cpu_now_ns();
                    if (m == 0)
                        t = time_single(f, stream, lookups, &pos[m]);
                    else if (m == 1)
                        t = time_inline(f, stream, lookups, &pos[m]);
                    else {
                        fl_fuse_bind_kernel(f, mode_name[m]);
                        t = time_batch(f, stream, lookups, &pos[m]);
                    }
                    if (r >= 0) {
                        ns[m][r] = t;
                        cpu[m][r] = (cpu_now_ns() - c0) / (double)lookups;
                    }
                }
            for (int m = 0; m < nmodes; m++) {
                double med = bl_median(ns[m], (size_t)reps);
                bl_json_open(&j, NULL, '{');
                bl_json_str(&j, "structure", "binary_fuse");
                bl_json_int(&j, "arity", arity);
                bl_json_int(&j, "fingerprint_bits", bits);
                bl_json_int(&j, "keys", (long long)n);
                bl_json_str(&j, "mode", m < 2 ? mode_name[m] : "batch");
                bl_json_str(&j, "kernel", m < 2 ? fl_kernel_active() : mode_name[m]);
                bl_json_num(&j, "ns_per_lookup", med);
                bl_json_num(&j, "ns_per_lookup_min", ns[m][0]);
                bl_json_num(&j, "cpu_ns_per_lookup", bl_median(cpu[m], (size_t)reps));
                bl_json_num(&j, "positive_fraction", (double)pos[m] / (double)lookups);
                bl_json_num(&j, "build_ns_per_key", build_med);
                bl_json_num(&j, "build_cpu_ns_per_key", build_cpu);
                bl_json_int(&j, "build_tries", info.tries);
                bl_json_int(&j, "build_scratch_bytes", (long long)info.build_bytes);
                bl_json_int(&j, "bytes", (long long)info.bytes);
                bl_json_num(&j, "bits_per_key", info.bits_per_key);
                bl_json_num(&j, "fpr_measured", (double)fp / (double)nmiss);
                bl_json_num(&j, "fpr_expected", info.fpr);
                bl_json_close(&j, '}');
            }
            fflush(out);
            fprintf(stderr, "static_bench: %s n=%zu: build %.1f ns/key, single %.2f inline %.2f",
                    sh, n, build_med, bl_median(ns[0], (size_t)reps), bl_median(ns[1], (size_t)reps));
            for (int m = 2; m < nmodes; m++)
                fprintf(stderr, " %s %.2f", mode_name[m], bl_median(ns[m], (size_t)reps));
            fprintf(stderr, " ns\n");
            fl_fuse_free(f);
        }
    }
    bl_json_close(&j, ']');
    bl_json_close(&j, '}');
    bl_close_out(out);
    free(list);
    free(keys);
    free(stream);
    free(miss);
    free(hit);
    free(bt);
    free(bcpu);
    free(cpu);
    free(ns);
    return 0;
}
