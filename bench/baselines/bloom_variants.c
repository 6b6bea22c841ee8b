/*
 * bloom_variants: the measurements behind table 13 (layered, compressed and combining Bloom
 * filters; seed 004, section 4.11), through the public API only, as JSON:
 *
 *   layered     layered Bloom filters (include/filterlab_layered.h), R = 4 layers at PF:
 *               "full": n keys added R times, every layer at capacity; P(count >= d) for
 *               keys never added against PF^d, and each layer's own measured FPR.
 *               "once": n keys added twice and n/100 keys added once (one by one, so adds
 *               that met a false positive and went a layer deeper are counted): P(count >= 2)
 *               and P(count >= 3) of the exactly-added ones against PF and PF^2.
 *               Batch count lookups (the kernels, layer by layer) against one-key counts,
 *               ns per key, reps interleaved, medians.
 *   compressed  compressed Bloom filters (include/filterlab_compressed.h): for a budget of z
 *               bits per key, the plain filter of m = z bits at its best k, and the plans of
 *               fl_cbf_plan_for_bits with m bounded by 2, 4, 8, 16 and 64 times z; each built,
 *               its FPR measured, compressed with both coders in 4 KiB chunks and as one
 *               chunk, bits per key against the entropy bound m H(p) of its measured p;
 *               chunked lookups in ns per key.
 *   combining   one classic filter of m bits (k = 8) against j = 2, 4, 8 filters of m/j bits
 *               with k/j hashes and independent seeds, and 2 filters with k = 8 each.
 *
 *   bloom_variants --n N [--compressed-n N] --queries Q [--reps R] [--zbits Z] --json FILE
 */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bl_common.h"
#include "filterlab.h"

static uint64_t g_queries = 1000000;
static int g_reps = 5;

/* The 1-minute load average from /proc/loadavg (-1 where there is none): the timings in
 * this file are only as good as the machine was quiet, so the file says how busy it was. */
static double loadavg(void) {
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = -1;
        fclose(f);
    }
    return l;
}

static void die(const char *what, fl_status st) {
    fprintf(stderr, "bloom_variants: %s: %s\n", what, fl_strerror(st));
    exit(2);
}

/* n distinct hashes of stream s (fl_hash_u64 is a bijection; streams never overlap). */
static uint64_t *hashes(size_t n, uint64_t s) {
    uint64_t *h = bl_xmalloc((n ? n : 1) * sizeof *h);
    for (size_t i = 0; i < n; i++) h[i] = fl_hash_u64((s << 40) + i, 0xfeed);
    return h;
}

/* ---- layered ------------------------------------------------------------------------------ */

static double layer_fpr(const fl_lbf *l, uint32_t i, const uint64_t *fresh, size_t q,
                        uint8_t *buf) {
    size_t pos = 0;
    fl_status st = fl_contains_hashes(fl_lbf_layer_at(l, i), fresh, q, buf, &pos);
    if (st != FL_OK) die("layer lookup", st);
    return (double)pos / (double)q;
}

/* A layered filter of R layers for n keys at per-layer FPR pf. */
static fl_lbf *layered_create(uint32_t R, uint64_t n, double pf, uint64_t seed) {
    fl_lbf_config c = {.layers = R, .capacity = n, .fpr = pf, .seed = seed};
    fl_lbf *l = NULL;
    fl_status st = fl_lbf_create(&c, &l);
    if (st != FL_OK) die("fl_lbf_create", st);
    return l;
}

/* The fields both layered rows start with. */
static void layered_row(bl_json *j, const char *experiment, double pf, uint32_t R, uint64_t n) {
    bl_json_open(j, NULL, '{');
    bl_json_str(j, "experiment", experiment);
    bl_json_num(j, "pf", pf);
    bl_json_int(j, "layers", R);
    bl_json_int(j, "n", (long long)n);
}

/* "layer_fpr": the measured FPR of each of the R layers on the q fresh hashes. */
static void layer_fprs(bl_json *j, const fl_lbf *l, uint32_t R, const uint64_t *fresh, size_t q,
                       uint8_t *buf) {
    bl_json_open(j, "layer_fpr", '[');
    for (uint32_t i = 0; i < R; i++) bl_json_num(j, NULL, layer_fpr(l, i, fresh, q, buf));
    bl_json_close(j, ']');
}

static void layered_full(bl_json *j, uint64_t n, double pf) {
    const uint32_t R = 4;
    fl_lbf *l = layered_create(R, n, pf, 1);
    fl_status st;
    uint64_t *keys = hashes(n, 1);
    for (uint32_t r = 0; r < R; r++)
        if ((st = fl_lbf_add_hashes(l, keys, n, NULL)) != FL_OK) die("add", st);
    size_t q = g_queries;
    uint64_t *neg = hashes(q, 2), *fresh = hashes(q, 3);
    uint8_t *counts = bl_xmalloc(q);
    if ((st = fl_lbf_count_hashes(l, neg, q, counts)) != FL_OK) die("count", st);
    uint64_t at_least[5] = {0};
    for (size_t i = 0; i < q; i++)
        for (uint32_t d = 0; d <= counts[i]; d++) at_least[d]++;
    /* counts of added keys: never below R */
    uint8_t *kc = bl_xmalloc(n);
    if ((st = fl_lbf_count_hashes(l, keys, n, kc)) != FL_OK) die("count", st);
    uint64_t under = 0;
    for (size_t i = 0; i < n; i++) under += kc[i] < R;
    layered_row(j, "full", pf, R, n);
    bl_json_int(j, "queries", (long long)q);
    bl_json_int(j, "undercounted", (long long)under);
    layer_fprs(j, l, R, fresh, q, counts);
    bl_json_open(j, "at_least", '[');
    for (uint32_t d = 1; d <= R; d++) bl_json_int(j, NULL, (long long)at_least[d]);
    bl_json_close(j, ']');
    bl_json_close(j, '}');
    free(kc);
    free(counts);
    free(neg);
    free(fresh);
    free(keys);
    fl_lbf_free(l);
}

static void layered_once(bl_json *j, uint64_t n, double pf) {
    const uint32_t R = 4;
    fl_lbf *l = layered_create(R, n, pf, 2);
    fl_status st;
    uint64_t *twice = hashes(n, 4);
    size_t s = n / 100 ? n / 100 : 1;
    uint64_t *once = hashes(s, 5);
    for (int r = 0; r < 2; r++)
        if ((st = fl_lbf_add_hashes(l, twice, n, NULL)) != FL_OK) die("add", st);
    uint8_t *pushed = bl_xmalloc(s);
    uint64_t pushes = 0;
    for (size_t i = 0; i < s; i++) {
        uint32_t after = 0;
        if ((st = fl_lbf_add_hash(l, once[i], &after)) != FL_OK) die("add", st);
        pushed[i] = after > 1;
        pushes += pushed[i];
    }
    uint8_t *cnt = bl_xmalloc(s);
    if ((st = fl_lbf_count_hashes(l, once, s, cnt)) != FL_OK) die("count", st);
    uint64_t exact = 0, ge2 = 0, ge3 = 0;
    for (size_t i = 0; i < s; i++) {
        if (pushed[i]) continue;
        exact++;
        ge2 += cnt[i] >= 2;
        ge3 += cnt[i] >= 3;
    }
    size_t q = g_queries;
    uint64_t *fresh = hashes(q, 6);
    uint8_t *buf = bl_xmalloc(q);
    layered_row(j, "once", pf, R, n);
    bl_json_int(j, "added_once", (long long)s);
    bl_json_int(j, "pushed", (long long)pushes);
    bl_json_int(j, "exact", (long long)exact);
    bl_json_int(j, "read_ge2", (long long)ge2);
    bl_json_int(j, "read_ge3", (long long)ge3);
    layer_fprs(j, l, R, fresh, q, buf);
    bl_json_close(j, '}');
    free(buf);
    free(fresh);
    free(cnt);
    free(pushed);
    free(once);
    free(twice);
    fl_lbf_free(l);
}

/* ns per key of batch counts and of one-key counts over q keys, half of them added (once
 * to R times), reps interleaved. */
static void layered_speed(bl_json *j, uint64_t n) {
    const uint32_t R = 4;
    fl_lbf_config c = {.layers = R, .capacity = n, .fpr = 0.01, .seed = 3};
    fl_lbf *l = NULL;
    fl_status st = fl_lbf_create(&c, &l);
    if (st != FL_OK) die("fl_lbf_create", st);
    uint64_t *keys = hashes(n, 7);
    for (uint32_t r = 0; r < R; r++)
        if ((st = fl_lbf_add_hashes(l, keys, n - n / 4 * r, NULL)) != FL_OK) die("add", st);
    size_t q = g_queries;
    uint64_t *probe = bl_xmalloc(q * sizeof *probe), *neg = hashes(q, 8);
    for (size_t i = 0; i < q; i++) probe[i] = i % 2 ? neg[i] : keys[i % n];
    uint8_t *out = bl_xmalloc(q);
    double *tb = bl_xmalloc(g_reps * sizeof *tb), *ts = bl_xmalloc(g_reps * sizeof *ts);
    uint64_t sink = 0;
    for (int r = 0; r < g_reps; r++) {
        double t0 = bl_now_ns();
        fl_lbf_count_hashes(l, probe, q, out);
        double t1 = bl_now_ns();
        for (size_t i = 0; i < q; i++) sink += fl_lbf_count_hash(l, probe[i]);
        double t2 = bl_now_ns();
        tb[r] = (t1 - t0) / (double)q;
        ts[r] = (t2 - t1) / (double)q;
        sink += out[r % q];
    }
    fl_lbf_info in;
    fl_lbf_get_info(l, &in);
    bl_json_open(j, "speed", '{');
    bl_json_int(j, "n", (long long)n);
    bl_json_int(j, "layers", R);
    bl_json_int(j, "bytes", (long long)in.bytes);
    bl_json_int(j, "queries", (long long)q);
    bl_json_int(j, "reps", g_reps);
    bl_json_num(j, "batch_ns_per_key", bl_median(tb, g_reps));
    bl_json_num(j, "single_ns_per_key", bl_median(ts, g_reps));
    bl_json_int(j, "checksum", (long long)(sink & 0xffff));
    bl_json_close(j, '}');
    free(tb);
    free(ts);
    free(out);
    free(neg);
    free(probe);
    free(keys);
    fl_lbf_free(l);
}

/* ---- compressed ----------------------------------------------------------------------------- */

static void compress_one(bl_json *j, const fl_filter *f, fl_coder coder, uint32_t chunk,
                         uint64_t n, const uint64_t *probe, size_t q) {
    fl_cbf *z = NULL;
    double t0 = bl_now_ns();
    fl_status st = fl_cbf_compress(f, coder, chunk, &z);
    double t1 = bl_now_ns();
    if (st != FL_OK) die("fl_cbf_compress", st);
    fl_filter *back = NULL;
    double t2 = bl_now_ns();
    if ((st = fl_cbf_decompress(z, &back)) != FL_OK) die("fl_cbf_decompress", st);
    double t3 = bl_now_ns();
    fl_free(back);
    fl_cbf_info in;
    fl_cbf_get_info(z, &in);
    bl_json_open(j, NULL, '{');
    bl_json_str(j, "coder", fl_coder_name(coder));
    bl_json_int(j, "chunk_bytes", chunk);
    bl_json_int(j, "chunks", (long long)in.chunks);
    bl_json_int(j, "compressed_bytes", (long long)in.compressed_bytes);
    bl_json_int(j, "index_bytes", (long long)in.index_bytes);
    bl_json_num(j, "bits_per_key", 8.0 * (double)in.compressed_bytes / (double)n);
    bl_json_num(j, "bits_per_key_with_index",
                8.0 * (double)(in.compressed_bytes + in.index_bytes) / (double)n);
    bl_json_num(j, "compress_ns_per_byte", (t1 - t0) / (double)in.payload_bytes);
    bl_json_num(j, "decompress_ns_per_byte", (t3 - t2) / (double)in.payload_bytes);
    /* chunked lookups (blocked variants): one key at a time and a batch */
    int found = 0;
    if (fl_cbf_contains_hash(z, probe[0], &found) == FL_OK) {
        size_t ql = q < 20000 ? q : 20000;
        double a = bl_now_ns();
        for (size_t i = 0; i < ql; i++) fl_cbf_contains_hash(z, probe[i], &found);
        double b = bl_now_ns();
        uint8_t *out = bl_xmalloc(q);
        size_t decoded = 0;
        double c = bl_now_ns();
        fl_cbf_contains_hashes(z, probe, q, out, NULL, &decoded);
        double d = bl_now_ns();
        free(out);
        bl_json_num(j, "lookup_one_ns", (b - a) / (double)ql);
        bl_json_num(j, "lookup_batch_ns_per_key", (d - c) / (double)q);
        bl_json_int(j, "batch_chunks_decoded", (long long)decoded);
    }
    bl_json_close(j, '}');
    fl_cbf_free(z);
}

static void compressed_row(bl_json *j, const char *plan_name, double m_factor,
                           const fl_geometry *g, uint64_t n, double zbits) {
    fl_config cfg = {.variant = g->variant, .geometry = *g, .seed = 5};
    fl_filter *f = NULL;
    fl_status st = fl_create(&cfg, &f);
    if (st != FL_OK) die("fl_create", st);
    uint64_t *keys = hashes(n, 9);
    if ((st = fl_insert_hashes(f, keys, n, NULL)) != FL_OK) die("insert", st);
    size_t q = g_queries;
    uint64_t *neg = hashes(q, 10);
    uint8_t *out = bl_xmalloc(q);
    size_t pos = 0;
    fl_contains_hashes(f, neg, q, out, &pos);
    free(out);
    fl_cbf_plan p;
    fl_cbf_plan_geometry(g, n, &p);
    fl_cbf *tmp = NULL;
    fl_cbf_compress(f, FL_CODER_GOLOMB, 0, &tmp);
    fl_cbf_info in;
    fl_cbf_get_info(tmp, &in);
    fl_cbf_free(tmp);
    double m = 8.0 * (double)fl_size_bytes(f);
    bl_json_open(j, NULL, '{');
    bl_json_str(j, "variant", fl_variant_name(g->variant));
    bl_json_str(j, "plan", plan_name);
    bl_json_num(j, "z_bits_per_key", zbits);
    bl_json_num(j, "m_max_factor", m_factor);
    bl_json_int(j, "n", (long long)n);
    bl_json_int(j, "k", g->k);
    bl_json_num(j, "m_bits_per_key", m / (double)n);
    bl_json_num(j, "predicted_zero_fraction", p.zero_fraction);
    bl_json_num(j, "zero_fraction", 1.0 - (double)in.ones / m);
    bl_json_num(j, "predicted_fpr", p.fpr);
    bl_json_num(j, "predicted_entropy_bits_per_key", p.entropy_bits / (double)n);
    bl_json_num(j, "entropy_bits_per_key", in.entropy_bits / (double)n);
    bl_json_int(j, "queries", (long long)q);
    bl_json_int(j, "false_positives", (long long)pos);
    bl_json_num(j, "measured_fpr", (double)pos / (double)q);
    bl_json_open(j, "codes", '[');
    size_t whole = (fl_size_bytes(f) + 63) / 64 * 64;
    uint32_t one_chunk = whole > FL_CBF_CHUNK_MAX ? FL_CBF_CHUNK_MAX : (uint32_t)whole;
    const fl_coder coders[] = {FL_CODER_GOLOMB, FL_CODER_ZSTD};
    for (int c = 0; c < 2; c++) {
        compress_one(j, f, coders[c], FL_CBF_CHUNK_DEFAULT, n, neg, q);
        compress_one(j, f, coders[c], one_chunk, n, neg, q);
    }
    bl_json_close(j, ']');
    bl_json_close(j, '}');
    free(neg);
    free(keys);
    fl_free(f);
}

static void compressed(bl_json *j, uint64_t n, double zbits) {
    const fl_variant vs[] = {FL_CLASSIC, FL_BLOCK512};
    const double factors[] = {2, 4, 8, 16, 64};
    uint64_t z = (uint64_t)(zbits * (double)n);
    for (int v = 0; v < 2; v++) {
        fl_params plain;
        fl_status st = fl_params_for_bytes(vs[v], n, z / 8, &plain);
        if (st != FL_OK) die("fl_params_for_bytes", st);
        compressed_row(j, "plain", 1, &plain.geometry, n, zbits);
        for (int i = 0; i < 5; i++) {
            fl_cbf_plan p;
            st = fl_cbf_plan_for_bits(vs[v], n, z, (uint64_t)(factors[i] * (double)z), &p);
            if (st != FL_OK) die("fl_cbf_plan_for_bits", st);
            compressed_row(j, "for_bits", factors[i], &p.geometry, n, zbits);
        }
    }
}

/* ---- combining ------------------------------------------------------------------------------ */

/* `parts` classic filters of words/parts words and k hashes each, every one with its own
 * hash functions: component i stores and probes fl_hash_u64(h, 100 + i), a bijection of the
 * key's hash h, remixed per component. */
static void combining_row(bl_json *j, size_t parts, uint32_t k, uint64_t words, uint64_t n,
                          const uint64_t *keys, const uint64_t *neg, size_t q) {
    uint8_t *all = bl_xmalloc(q), *hit = bl_xmalloc(q);
    uint64_t *mine = bl_xmalloc((n > q ? n : q) * sizeof *mine);
    memset(all, 1, q);
    for (size_t i = 0; i < parts; i++) {
        fl_config c = {.variant = FL_CLASSIC, .geometry = {FL_CLASSIC, words / parts, k}};
        fl_filter *f = NULL;
        fl_status st = fl_create(&c, &f);
        if (st != FL_OK) die("fl_create", st);
        for (size_t x = 0; x < n; x++) mine[x] = fl_hash_u64(keys[x], 100 + i);
        if ((st = fl_insert_hashes(f, mine, n, NULL)) != FL_OK) die("insert", st);
        for (size_t x = 0; x < q; x++) mine[x] = fl_hash_u64(neg[x], 100 + i);
        fl_contains_hashes(f, mine, q, hit, NULL);
        for (size_t x = 0; x < q; x++) all[x] &= hit[x];
        fl_free(f);
    }
    size_t pos = 0;
    for (size_t x = 0; x < q; x++) pos += all[x];
    bl_json_open(j, NULL, '{');
    bl_json_int(j, "filters", (long long)parts);
    bl_json_int(j, "k_each", k);
    bl_json_int(j, "m_bits", (long long)(64 * words));
    bl_json_int(j, "n", (long long)n);
    bl_json_int(j, "queries", (long long)q);
    bl_json_int(j, "false_positives", (long long)pos);
    bl_json_num(j, "measured_fpr", (double)pos / (double)q);
    bl_json_close(j, '}');
    free(mine);
    free(all);
    free(hit);
}

static void combining(bl_json *j, uint64_t n) {
    /* m/n = 11.54 bits per key: the optimal k is 8 (ln 2 * 11.54), divisible by 2, 4, 8 */
    uint64_t words = (uint64_t)ceil(11.54 * (double)n / 64.0 / 8.0) * 8;
    size_t q = g_queries;
    uint64_t *keys = hashes(n, 11), *neg = hashes(q, 12);
    for (size_t parts = 1; parts <= 8; parts *= 2)
        combining_row(j, parts, 8 / (uint32_t)parts, words, n, keys, neg, q);
    combining_row(j, 2, 8, words, n, keys, neg, q); /* k hashes in every component */
    free(keys);
    free(neg);
}

static void usage(FILE *out) {
    fprintf(out, "Usage: bloom_variants --n N [--compressed-n N] --queries Q [--reps R] [--zbits Z]\n"
                 "                      --json FILE\n"
                 "Layered, compressed and combining Bloom filters measured, as JSON.\n");
}

int main(int argc, char **argv) {
    uint64_t n = 0, cn = 0;
    double zbits = 8;
    const char *json_path = NULL;
    static const struct option opts[] = {
        {"n", required_argument, NULL, 'n'},     {"queries", required_argument, NULL, 'q'},
        {"reps", required_argument, NULL, 'r'},  {"zbits", required_argument, NULL, 'z'},
        {"json", required_argument, NULL, 'j'},  {"help", no_argument, NULL, 'h'},
        {"compressed-n", required_argument, NULL, 'c'},
        {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'n': n = (uint64_t)strtod(optarg, NULL); break;
        case 'q': g_queries = (uint64_t)strtod(optarg, NULL); break;
        case 'r': g_reps = atoi(optarg); break;
        case 'z': zbits = strtod(optarg, NULL); break;
        case 'c': cn = (uint64_t)strtod(optarg, NULL); break;
        case 'j': json_path = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 1;
        }
    }
    if (cn == 0) cn = n;
    if (n < 100 || cn < 100 || g_queries == 0 || g_reps < 1 || !(zbits >= 1)) {
        usage(stderr);
        return 1;
    }
    bl_json j;
    bl_json_begin(&j, json_path, "bloom_variants");
    bl_json_num(&j, "loadavg_1min_start", loadavg());
    bl_json_int(&j, "n", (long long)n);
    bl_json_int(&j, "queries", (long long)g_queries);
    bl_json_open(&j, "layered", '{');
    bl_json_open(&j, "rows", '[');
    const double pfs[] = {0.05, 0.01};
    for (int i = 0; i < 2; i++) {
        layered_full(&j, n, pfs[i]);
        layered_once(&j, n, pfs[i]);
    }
    bl_json_close(&j, ']');
    layered_speed(&j, n);
    bl_json_close(&j, '}');
    bl_json_open(&j, "compressed", '{');
    bl_json_num(&j, "z_bits_per_key", zbits);
    bl_json_int(&j, "n", (long long)cn);
    bl_json_open(&j, "rows", '[');
    compressed(&j, cn, zbits);
    bl_json_close(&j, ']');
    bl_json_close(&j, '}');
    bl_json_open(&j, "combining", '{');
    bl_json_open(&j, "rows", '[');
    combining(&j, n);
    bl_json_close(&j, ']');
    bl_json_close(&j, '}');
    bl_json_num(&j, "loadavg_1min_end", loadavg());
    bl_json_close(&j, '}');
    bl_close_out(j.f);
    return 0;
}
