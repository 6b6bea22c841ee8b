/*
 * vqf_load: the load at which a vector quotient filter refuses its first insert, over many
 * seeds and sizes, the measurement behind FL_VQF_SIZING_LOAD (include/filterlab_vqf.h), and
 * the false positive rate and bits per key a filter sized for n keys has after n inserts.
 *
 *   vqf_load [--max-keys N] [--seeds-small S] [--seeds-large S] [--md FILE] [--json FILE]
 *
 * For n = 100, 1K, 10K, 100K, 1M, 10M (up to --max-keys): a filter sized for n keys
 * (fl_vqf_create), filled with distinct keys until an insert is refused; per run the load
 * (items / slots) at that first refusal and whether all n inserts landed. Then, per size, a
 * filter filled with n keys is probed with 10^6 keys not inserted (its FPR) and the bits per
 * key are bytes * 8 / n, the share of the n keys whose fingerprint is in their block1 (the
 * deletes that read one block: include/filterlab_vqf.h's FL_VQF_CHOICE_ITEMS rule), and then
 * every one of the n keys is deleted (a refusal would be a false negative). Seeds: --seeds-small (default 200) runs up to 100K keys,
 * --seeds-large (default 10) above. Public API only.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filterlab.h"

static const uint64_t SIZES[] = {100, 1000, 10000, 100000, 1000000, 10000000};
#define NSIZES (sizeof SIZES / sizeof SIZES[0])
#define PROBES 1000000u

typedef struct row {
    uint64_t n;
    uint32_t blocks, runs, n_ok;
    double min_load, med_load, max_load;
    double fpr, fpr_model, bpk;
    double in_block1; /* share of the n keys found in their block1 */
    uint64_t delete_misses; /* deletes of inserted keys refused (must be 0) */
} row;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int measure(uint64_t n, uint32_t seeds, row *r) {
    double *loads = malloc(seeds * sizeof *loads);
    if (!loads) return 1;
    memset(r, 0, sizeof *r);
    r->n = n;
    r->runs = seeds;
    for (uint32_t s = 0; s < seeds; s++) {
        fl_vqf *v = NULL;
        if (fl_vqf_create(n, 0x1000 + s, &v) != FL_OK) return 1;
        fl_vqf_info info;
        fl_vqf_info_get(v, &info);
        r->blocks = info.blocks;
        uint64_t k = 0;
        /* keys (s << 40) + k: distinct within a run, a different hash seed per run */
        while (fl_vqf_insert_u64(v, ((uint64_t)s << 40) + k) == FL_OK) k++;
        loads[s] = (double)k / (double)info.slots;
        if (k >= n) r->n_ok++;
        fl_vqf_free(v);
    }
    qsort(loads, seeds, sizeof *loads, cmp_double);
    r->min_load = loads[0];
    r->med_load = loads[seeds / 2];
    r->max_load = loads[seeds - 1];
    free(loads);

    fl_vqf *v = NULL;
    if (fl_vqf_create(n, 7, &v) != FL_OK) return 1;
    /* held: the keys that landed (all n unless the sizing load is above this run's load at
     * first refusal); the share in block1 and the deletes are over them */
    uint64_t held = 0;
    while (held < n && fl_vqf_insert_u64(v, held) == FL_OK) held++;
    uint64_t fp = 0;
    for (uint64_t k = 0; k < PROBES; k++) fp += (uint64_t)fl_vqf_contains_u64(v, (1ull << 62) + k);
    fl_vqf_info info;
    fl_vqf_info_get(v, &info);
    r->fpr = (double)fp / PROBES;
    r->fpr_model = info.fpr;
    r->bpk = (double)info.bytes * 8.0 / (double)n;
    fl_vqf_lookup l = fl_vqf_lookup_of(v);
    uint64_t in1 = 0;
    for (uint64_t k = 0; k < held; k++) {
        uint64_t h = fl_vqf_hash_u64(v, k);
        in1 += (uint64_t)fl_vqf_block_has(
            l.blocks + (size_t)fl_vqf_block1(h, l.nblocks) * FL_VQF_BLOCK_BYTES,
            fl_vqf_bucket(h), fl_vqf_fp(h));
    }
    r->in_block1 = held ? (double)in1 / (double)held : 0.0;
    /* every inserted key deletes (no copy of another key can have taken its place) */
    for (uint64_t k = 0; k < held; k++) r->delete_misses += fl_vqf_delete_u64(v, k) != FL_OK;
    fl_vqf_free(v);
    return 0;
}

int main(int argc, char **argv) {
    uint64_t max_keys = 10000000;
    uint32_t seeds_small = 200, seeds_large = 10;
    const char *md = NULL, *json = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--max-keys") && i + 1 < argc)
            max_keys = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--seeds-small") && i + 1 < argc)
            seeds_small = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--seeds-large") && i + 1 < argc)
            seeds_large = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--md") && i + 1 < argc)
            md = argv[++i];
        else if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json = argv[++i];
        else {
            fprintf(stderr, "usage: vqf_load [--max-keys N] [--seeds-small S] [--seeds-large S] "
                            "[--md FILE] [--json FILE]\n");
            return 1;
        }
    }
    if (seeds_small == 0 || seeds_large == 0) {
        fprintf(stderr, "vqf_load: seeds must be at least 1\n");
        return 1;
    }
    row rows[NSIZES];
    size_t nr = 0;
    for (size_t i = 0; i < NSIZES && SIZES[i] <= max_keys; i++) {
        if (measure(SIZES[i], SIZES[i] <= 100000 ? seeds_small : seeds_large, &rows[nr])) {
            fprintf(stderr, "vqf_load: out of memory at %llu keys\n", (unsigned long long)SIZES[i]);
            return 2;
        }
        const row *r = &rows[nr++];
        printf("n=%llu blocks=%u runs=%u load at first refusal min %.4f median %.4f max %.4f; "
               "n inserts landed in %u/%u; fpr %.5f (model %.5f), %.3f bits/key; %.4f in "
               "block1; %llu of n deletes refused\n",
               (unsigned long long)r->n, r->blocks, r->runs, r->min_load, r->med_load,
               r->max_load, r->n_ok, r->runs, r->fpr, r->fpr_model, r->bpk, r->in_block1,
               (unsigned long long)r->delete_misses);
        fflush(stdout);
    }
    FILE *f = md ? fopen(md, "w") : NULL;
    if (md && !f) {
        perror(md);
        return 2;
    }
    if (f) {
        fprintf(f, "# Vector quotient filter: load at the first refused insert\n\n"
                   "Written by `build/bench/baselines/vqf_load` (bench/baselines/vqf_load.c). "
                   "Sizing load FL_VQF_SIZING_LOAD = %.3f: a filter sized for n keys has "
                   "ceil(n / (48 * %.3f)) blocks. Inserts go to block1 while it holds at most "
                   "FL_VQF_CHOICE_ITEMS = %u items, else to the emptier block. Per run: "
                   "distinct keys inserted until the first FL_ERR_FULL; load = keys / (48 * "
                   "blocks). FPR: 10^6 keys not inserted, probed after n inserts; bits/key = "
                   "bytes * 8 / n; in block1: the share of the keys inserted whose fingerprint "
                   "is in their block1 (a delete of those reads one block); then every key "
                   "inserted deleted, and the deletes refused counted (any is a false "
                   "negative). FPR, in block1 and deletes are over the first n keys, or over "
                   "the keys before the first refusal in a run where fewer than n landed.\n\n"
                   "| keys n | blocks | runs | load at first refusal: min | median | max | "
                   "runs where all n inserts landed | FPR at n | model | bits/key | "
                   "in block1 | deletes refused |\n"
                   "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
                FL_VQF_SIZING_LOAD, FL_VQF_SIZING_LOAD, (unsigned)FL_VQF_CHOICE_ITEMS);
        for (size_t i = 0; i < nr; i++)
            fprintf(f, "| %llu | %u | %u | %.4f | %.4f | %.4f | %u/%u | %.3f%% | %.3f%% | %.3f | "
                       "%.4f | %llu |\n",
                    (unsigned long long)rows[i].n, rows[i].blocks, rows[i].runs,
                    rows[i].min_load, rows[i].med_load, rows[i].max_load, rows[i].n_ok,
                    rows[i].runs, 100 * rows[i].fpr, 100 * rows[i].fpr_model, rows[i].bpk,
                    rows[i].in_block1, (unsigned long long)rows[i].delete_misses);
        fclose(f);
    }
    f = json ? fopen(json, "w") : NULL;
    if (json && !f) {
        perror(json);
        return 2;
    }
    if (f) {
        fprintf(f, "{\"sizing_load\": %.6f, \"choice_items\": %u, \"rows\": [",
                FL_VQF_SIZING_LOAD, (unsigned)FL_VQF_CHOICE_ITEMS);
        for (size_t i = 0; i < nr; i++)
            fprintf(f, "%s\n {\"keys\": %llu, \"blocks\": %u, \"runs\": %u, \"min_load\": %.6f, "
                       "\"median_load\": %.6f, \"max_load\": %.6f, \"runs_all_landed\": %u, "
                       "\"fpr\": %.6f, \"fpr_model\": %.6f, \"bits_per_key\": %.4f, "
                       "\"in_block1\": %.6f, \"deletes_refused\": %llu}",
                    i ? "," : "", (unsigned long long)rows[i].n, rows[i].blocks, rows[i].runs,
                    rows[i].min_load, rows[i].med_load, rows[i].max_load, rows[i].n_ok,
                    rows[i].fpr, rows[i].fpr_model, rows[i].bpk, rows[i].in_block1,
                    (unsigned long long)rows[i].delete_misses);
        fprintf(f, "\n]}\n");
        fclose(f);
    }
    return 0;
}
