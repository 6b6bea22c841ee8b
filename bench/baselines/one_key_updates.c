/*
 * one_key_updates: one-key inserts and deletes in the shape of fastfilter_cpp's benchmark
 * (its add loop, one call per key over a vector of keys made before the timer, then its
 * remove loop over the same keys in the same order), so the two can be put side by side.
 *
 *   one_key_updates [--filter cuckoo11,cuckoo12,vqf] [--keys 100000,1000000,10000000]
 *                   [--reps R] [-o FILE.csv]
 *
 * Per (filter, n), the filter is sized for n keys and created once:
 *   cuckoo11  fl_create_for(FL_CUCKOO, n, 0.0045): 11-bit fingerprints semi-sorted in 5-byte
 *             buckets, 10.64 bits per key at 0.37% (checked: 11 bits), fewer bits and a lower
 *             FPR than fastfilter_cpp's VQF (11.47 bits, 0.44%);
 *   cuckoo12  fl_create_for(FL_CUCKOO, n, 0.002): 12-bit fingerprints in 6-byte buckets,
 *             12.77 bits per key, as fastfilter_cpp's Cuckoo12 (checked: 12 bits);
 *   vqf       fl_vqf_create(n): the vector quotient filter, 11.41 bits per key.
 * The n keys are random 64-bit integers (SplitMix64 seeded by n), made before any timer. A
 * repetition inserts them one call each (fl_insert_u64, fl_vqf_insert_u64), timed, then
 * deletes them in the same order (fl_delete_u64, fl_vqf_delete_u64), timed; the filter is
 * then empty again (its count is checked), so every repetition fills the same empty filter
 * from 0 to n keys. One untimed repetition first: caches, branch history, and the payload's
 * pages (a filter of 2 MiB and more is mapped and faulted in on first touch, where the
 * incumbent's constructor writes its table before its timer). A refused insert or delete is
 * an error (exit 2), never skipped. Median of R repetitions.
 *
 * Output: CSV, one row per (filter, n, op), op insert_one or delete_one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bl_common.h"
#include "filterlab_kernels.h"
#include "filterlab_vqf.h"

#define TOOL "one_key_updates"

/* The cuckoo filters by name: the FPR they are sized for and the width that must give. */
static const struct cuckoo_kind {
    const char *name;
    double fpr;
    uint32_t fp_bits;
} CUCKOOS[] = {{"cuckoo11", 0.0045, 11}, {"cuckoo12", 0.002, 12}};
#define NCUCKOOS (sizeof CUCKOOS / sizeof CUCKOOS[0])

/* The cuckoo kind of this name, or NULL. */
static const struct cuckoo_kind *cuckoo_kind(const char *name) {
    for (size_t i = 0; i < NCUCKOOS; i++)
        if (!strcmp(CUCKOOS[i].name, name)) return &CUCKOOS[i];
    return NULL;
}

/* One filter behind the two calls a repetition makes. */
typedef struct target {
    fl_filter *f;
    fl_vqf *v;
} target;

/* The kernel the process's calls use for vqf entry `entry` (vqf.insert1, vqf.delete1) on a
 * payload of `bytes`. */
static const char *vqf_entry_kernel(const char *entry, size_t bytes) {
    uint64_t lim[3];
    int c = 0;
    if (fl_size_class_limits(lim) == FL_OK)
        while (c < 3 && bytes > lim[c]) c++;
    const char *kernel = NULL, *reason = NULL;
    return fl_kernel_choice(entry, c, &kernel, &reason) == FL_OK ? kernel : "?";
}

static uint64_t count_of(const target *t) {
    if (!t->v) return fl_count(t->f);
    fl_vqf_info in;
    fl_vqf_info_get(t->v, &in);
    return in.items;
}

/* keys[0..n) inserted (insert = 1) or deleted, one call a key, timed: ns per key, or -1 after
 * a message when a call is refused. The filter test is outside the loops, so each loop holds
 * one library call a key, as a user's would. */
static double timed_pass(const target *t, const uint64_t *keys, size_t n, int insert) {
    fl_status s = FL_OK;
    size_t i = 0;
    double t0 = bl_now_ns();
    if (t->v) {
        if (insert)
            for (; i < n && (s = fl_vqf_insert_u64(t->v, keys[i])) == FL_OK; i++) {}
        else
            for (; i < n && (s = fl_vqf_delete_u64(t->v, keys[i])) == FL_OK; i++) {}
    } else {
        if (insert)
            for (; i < n && (s = fl_insert_u64(t->f, keys[i])) == FL_OK; i++) {}
        else
            for (; i < n && (s = fl_delete_u64(t->f, keys[i])) == FL_OK; i++) {}
    }
    double t1 = bl_now_ns();
    if (s != FL_OK) {
        fprintf(stderr, TOOL ": %s of key %zu of %zu: %s\n", insert ? "insert" : "delete", i, n,
                fl_strerror(s));
        return -1;
    }
    return (t1 - t0) / (double)n;
}

static int run(FILE *out, const char *name, uint64_t n, int reps, double *ns_ins,
               double *ns_del) {
    target t = {NULL, NULL};
    fl_status s;
    size_t bytes;
    const struct cuckoo_kind *ck = cuckoo_kind(name);
    if (!ck) {
        s = fl_vqf_create(n, 1, &t.v);
    } else {
        s = fl_create_for(FL_CUCKOO, n, ck->fpr, &t.f);
    }
    if (s != FL_OK) {
        fprintf(stderr, TOOL ": %s n=%llu: %s\n", name, (unsigned long long)n, fl_strerror(s));
        return 2;
    }
    if (t.v) {
        fl_vqf_info in;
        fl_vqf_info_get(t.v, &in);
        bytes = in.bytes;
    } else {
        fl_info in;
        fl_get_info(t.f, &in);
        if (in.geometry.k != ck->fp_bits) {
            fprintf(stderr, TOOL ": %s n=%llu: sized with %u-bit fingerprints\n", name,
                    (unsigned long long)n, in.geometry.k);
            fl_free(t.f);
            return 2;
        }
        bytes = in.bytes;
    }
    uint64_t *keys = bl_xmalloc((size_t)n * sizeof *keys);
    fb_rng rng = {n * 0x9e3779b97f4a7c15ull + 17};
    for (uint64_t i = 0; i < n; i++) keys[i] = fb_rng_next(&rng);
    int rc = 0;
    for (int r = -1; r < reps && !rc; r++) { /* r = -1: the untimed repetition */
        double a = timed_pass(&t, keys, (size_t)n, 1);
        double b = a < 0 ? -1 : timed_pass(&t, keys, (size_t)n, 0);
        if (a < 0 || b < 0) {
            rc = 2;
        } else if (count_of(&t) != 0) {
            fprintf(stderr, TOOL ": %s n=%llu: %llu keys left after deleting every key\n", name,
                    (unsigned long long)n, (unsigned long long)count_of(&t));
            rc = 2;
        } else if (r >= 0) {
            ns_ins[r] = a;
            ns_del[r] = b;
        }
    }
    if (!rc) {
        /* the vqf's one-key entries run the kernels chosen for its size class; the cuckoo
         * filter's inserts and deletes are not kernel code (src/cuckoo/cuckoo.c) */
        double *v[2] = {ns_ins, ns_del};
        static const char *const op[2] = {"insert_one", "delete_one"};
        static const char *const entry[2] = {"vqf.insert1", "vqf.delete1"};
        for (int o = 0; o < 2; o++) {
            const char *kernel = t.v ? vqf_entry_kernel(entry[o], bytes) : "-";
            double med = bl_median(v[o], (size_t)reps); /* sorted: [0] is the min */
            fprintf(out, "%s,%llu,%zu,%.4f,%s,%s,%.4f,%.4f,%d\n", name, (unsigned long long)n,
                    bytes, 8.0 * (double)bytes / (double)n, kernel, op[o], med, v[o][0], reps);
        }
        fflush(out);
    }
    free(keys);
    fl_vqf_free(t.v);
    fl_free(t.f);
    return rc;
}

static void usage(FILE *to) {
    fprintf(to, "usage: " TOOL " [--filter cuckoo11,cuckoo12,vqf]\n"
                "                       [--keys 100000,1000000,10000000] [--reps R] [-o FILE.csv]\n");
}

int main(int argc, char **argv) {
    const char *filters = "cuckoo11,cuckoo12,vqf", *out_path = NULL;
    double keys_list[16];
    int nkeys = bl_parse_list("100000,1000000,10000000", keys_list, 16);
    int reps = 5;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--filter") && strcmp(a, "--keys") && strcmp(a, "--reps") &&
            strcmp(a, "-o")) {
            usage(stderr);
            return 1;
        }
        if (!(v = bl_option_value(argc, argv, &i, TOOL))) return 1;
        if (!strcmp(a, "--filter")) filters = v;
        else if (!strcmp(a, "--keys")) nkeys = bl_parse_list(v, keys_list, 16);
        else if (!strcmp(a, "--reps")) reps = atoi(v);
        else out_path = v;
    }
    int keys_ok = nkeys > 0;
    for (int k = 0; k < nkeys; k++)
        keys_ok &= keys_list[k] >= 1 && keys_list[k] <= 1e9 &&
                   keys_list[k] == (double)(uint64_t)keys_list[k];
    if (!keys_ok || reps < 1 || reps > 101) {
        fprintf(stderr, TOOL ": --keys takes whole numbers from 1 to 1e9, --reps 1 to 101\n");
        return 1;
    }
    char *list = bl_xmalloc(strlen(filters) + 1);
    strcpy(list, filters);
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name;
         name = strtok_r(NULL, ",", &save))
        if (!cuckoo_kind(name) && strcmp(name, "vqf")) {
            fprintf(stderr, TOOL ": unknown filter '%s' (cuckoo11, cuckoo12 or vqf)\n", name);
            free(list);
            return 1;
        }
    FILE *out = bl_open_out(out_path);
    fprintf(out, "filter,keys,bytes,bits_per_key,kernel,op,ns_per_key_median,ns_per_key_min,"
                 "reps\n");
    double *ns = bl_xmalloc(2 * (size_t)reps * sizeof *ns);
    int rc = 0;
    strcpy(list, filters);
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name && !rc;
         name = strtok_r(NULL, ",", &save))
        for (int k = 0; k < nkeys && !rc; k++)
            rc = run(out, name, (uint64_t)keys_list[k], reps, ns, ns + reps);
    free(list);
    free(ns);
    if (out != stdout) fclose(out);
    return rc;
}
