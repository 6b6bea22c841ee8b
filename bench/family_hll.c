/*
 * HyperLogLog suite, per precision p of --hll-precisions and per kernel:
 *
 *   add       ns per key of fl_hll_add_u64s on a dense sketch, --lookups fresh keys per
 *             repetition in calls of --batch keys, hashing (MurmurHash64A) included
 *   estimate  ns per fl_hll_estimate of a dense sketch holding 2^20 distinct keys (all
 *             registers set; computed from the registers each call, the cache not used)
 *   merge     ns per fl_hll_merge of two dense sketches of 2^20 keys each, and the rate in
 *             GB/s of the register bytes both inputs hold (2 * 2^p: a dense sketch keeps one
 *             byte per register in memory; fl_hll_info.memory_bytes)
 *
 * and, once, the machine's sequential read bandwidth (fb_probe_stream) over a buffer well
 * above the last-level cache (DRAM) and over each merge footprint (2 * 2^p bytes, cache
 * resident): "merge at memory bandwidth" is the merge's GB/s against these
 * (merge_fraction_of_dram_bandwidth, merge_fraction_of_footprint_bandwidth).
 *
 * A sketch is at most 64 KiB (p = 16), so this suite spans L1 and L2 only; the kernels of one
 * precision run in rounds so drift spreads over all of them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"

#define HLL_FILL_KEYS (UINT64_C(1) << 20)

/* The sequential read bandwidth over `bytes`, in GB/s (best repetition), recorded as the
 * result probe/stream_read/bytes:N; NaN if the buffer cannot be mapped. */
static double stream_bandwidth(fb_env *e, uint64_t bytes) {
    const fb_options *o = e->o;
    fb_probe_buf b;
    if (fb_probe_alloc(&b, bytes, o->huge_pages) != 0) {
        fb_warn(e->ctx, "stream probe: cannot map %llu bytes", (unsigned long long)bytes);
        return NAN;
    }
    /* At least 256 MiB read per repetition so that small footprints time long enough. */
    uint64_t passes = (UINT64_C(256) << 20) / b.bytes;
    if (passes < 1)
        passes = 1;
    uint64_t lines = passes * (b.bytes / 128) * 2;
    char name[96];
    snprintf(name, sizeof name, "probe/stream_read/bytes:%llu", (unsigned long long)b.bytes);
    fb_result *r = fb_result_add(e->rs, FB_OP_PROBE_STREAM, name, o->reps, lines);
    fb_result_str(r, "op", "probe_stream_read");
    fb_result_int(r, "footprint_bytes", (int64_t)b.bytes);
    fb_result_int(r, "huge_pages", b.huge);
    volatile uint64_t sink = fb_probe_stream(&b, 1); /* warm */
    double best = 0;
    for (int rep = 0; rep < o->reps; rep++) {
        fb_meas m;
        fb_meas_reset(&m);
        fb_meas_begin(e, &m);
        sink += fb_probe_stream(&b, passes);
        fb_meas_end(e, &m);
        fb_fam_record(e, r, rep, &m, (double)lines);
        double gbps = (double)(lines * 64) / m.wall;
        fb_result_series(r, "gb_per_s")[rep] = gbps;
        best = gbps > best ? gbps : best;
    }
    (void)sink;
    fb_probe_free(&b);
    fb_report_done(e);
    return best;
}

/* 4x the last-level cache, at least 256 MiB, at most a quarter of the available memory. */
static uint64_t dram_probe_bytes(const fb_env *e) {
    if (e->o->bandwidth_bytes)
        return e->o->bandwidth_bytes;
    fb_machine m;
    fb_machine_read(&m);
    uint64_t b = 4 * m.llc;
    if (b < (UINT64_C(256) << 20))
        b = UINT64_C(256) << 20;
    if (m.mem_available && b > m.mem_available / 4)
        b = m.mem_available / 4;
    return b;
}

static fl_hll *filled(uint32_t p, uint64_t first_id, uint64_t seed, uint64_t *keys, size_t cap) {
    fl_hll *h = NULL;
    if (fl_hll_create(p, &h) != FL_OK)
        return NULL;
    fl_hll_to_dense(h);
    for (uint64_t done = 0; done < HLL_FILL_KEYS; done += cap) {
        size_t n = (size_t)(HLL_FILL_KEYS - done < cap ? HLL_FILL_KEYS - done : cap);
        uint64_t cursor = first_id + done;
        fb_fam_fresh_keys(keys, n, &cursor, seed);
        if (fl_hll_add_u64s(h, keys, n, NULL) != FL_OK) {
            fl_hll_free(h);
            return NULL;
        }
    }
    return h;
}

static void hll_fields(fb_result *r, const fl_hll *h, uint32_t p) {
    fl_hll_info in;
    fl_hll_info_get(h, &in);
    fb_result_int(r, "precision", p);
    fb_result_int(r, "registers", in.registers);
    fb_result_int(r, "structure_bytes", (int64_t)in.memory_bytes);
    fb_result_str(r, "encoding", in.encoding == FL_HLL_DENSE ? "dense" : "sparse");
    fb_result_str(r, "kernel_used", fl_hll_kernel(h) ? fl_hll_kernel(h) : "?");
}

static void hll_precision(fb_env *e, uint32_t p, uint64_t *keys, double dram_gbps) {
    const fb_options *o = e->o;
    size_t nk = o->nkernels, L = (size_t)o->lookups, B = o->batch;
    uint64_t calls = o->lookups / 256 < 16 ? 16 : o->lookups / 256;
    fl_hll *add = NULL, *a = filled(p, UINT64_C(1) << 40, o->seed, keys, L),
           *b = filled(p, UINT64_C(2) << 40, o->seed, keys, L);
    if (fl_hll_create(p, &add) == FL_OK)
        fl_hll_to_dense(add);
    if (!a || !b || !add) {
        fb_warn(e->ctx, "hll p=%u: cannot create the sketches; skipped", p);
        fl_hll_free(a);
        fl_hll_free(b);
        fl_hll_free(add);
        return;
    }
    fl_hll_info in;
    fl_hll_info_get(a, &in);
    uint64_t merge_bytes = 2 * (uint64_t)in.registers;
    fb_status("hll p=%u (%u registers)", p, in.registers);
    double fp_gbps = stream_bandwidth(e, merge_bytes);
    char size[32];
    snprintf(size, sizeof size, "p:%u", p);
    fb_result *ra[FB_MAX_KERNELS], *re[FB_MAX_KERNELS], *rm[FB_MAX_KERNELS];
    int ok[FB_MAX_KERNELS];
    for (size_t ki = 0; ki < nk; ki++) {
        ok[ki] = fl_hll_bind_kernel(add, fb_kname(e, ki)) == FL_OK &&
                 fl_hll_bind_kernel(a, fb_kname(e, ki)) == FL_OK;
        ra[ki] = fb_fam_result(e, "add", "hll", "key", ki, size, "dense", o->lookups);
        re[ki] = fb_fam_result(e, "estimate", "hll", "estimate", ki, size, "n:1048576", calls);
        rm[ki] = fb_fam_result(e, "merge", "hll", "merge", ki, size, "dense+dense", calls);
        hll_fields(ra[ki], add, p);
        hll_fields(re[ki], a, p);
        hll_fields(rm[ki], a, p);
        fb_result_int(rm[ki], "merge_bytes", (int64_t)merge_bytes);
        fb_result_num(rm[ki], "dram_read_gb_per_s", dram_gbps);
        fb_result_num(rm[ki], "footprint_read_gb_per_s", fp_gbps);
        if (!ok[ki]) {
            fb_result_str(ra[ki], "error", "kernel cannot be bound");
            fb_result_str(re[ki], "error", "kernel cannot be bound");
            fb_result_str(rm[ki], "error", "kernel cannot be bound");
        }
    }
    uint64_t cursor = UINT64_C(3) << 40;
    volatile uint64_t sink = 0;
    for (int rep = -o->warmup; rep < o->reps; rep++)
        for (size_t ki = 0; ki < nk; ki++) {
            if (!ok[ki])
                continue;
            const char *kn = fb_kname(e, ki);
            fl_hll_bind_kernel(add, kn);
            fl_hll_bind_kernel(a, kn);
            /* add */
            fb_fam_fresh_keys(keys, L, &cursor, o->seed);
            fb_meas m;
            fb_meas_reset(&m);
            fl_status st = FL_OK;
            fb_meas_begin(e, &m);
            for (size_t off = 0; off < L && st == FL_OK; off += B)
                st = fl_hll_add_u64s(add, keys + off, L - off < B ? L - off : B, NULL);
            fb_meas_end(e, &m);
            if (st == FL_OK)
                fb_fam_record(e, ra[ki], rep, &m, (double)L);
            /* estimate */
            fb_meas_reset(&m);
            fb_meas_begin(e, &m);
            for (uint64_t i = 0; i < calls; i++) {
                uint64_t est = 0;
                fl_hll_estimate(a, &est);
                sink += est;
            }
            fb_meas_end(e, &m);
            fb_fam_record(e, re[ki], rep, &m, (double)calls);
            /* merge: b into a (a keeps the union after the first call; every call still
             * reads both register arrays) */
            fb_meas_reset(&m);
            st = FL_OK;
            fb_meas_begin(e, &m);
            for (uint64_t i = 0; i < calls && st == FL_OK; i++)
                st = fl_hll_merge(a, b);
            fb_meas_end(e, &m);
            if (st == FL_OK) {
                fb_fam_record(e, rm[ki], rep, &m, (double)calls);
                if (rep >= 0) {
                    double gbps = (double)merge_bytes * (double)calls / m.wall;
                    fb_result_series(rm[ki], "merge_gb_per_s")[rep] = gbps;
                    fb_result_series(rm[ki], "merge_fraction_of_dram_bandwidth")[rep] =
                        gbps / dram_gbps;
                    fb_result_series(rm[ki], "merge_fraction_of_footprint_bandwidth")[rep] =
                        gbps / fp_gbps;
                }
            }
        }
    (void)sink;
    fl_hll_free(a);
    fl_hll_free(b);
    fl_hll_free(add);
    fb_report_done(e);
}

/* Results of the suite (progress line): the DRAM bandwidth probe, and per precision its
 * footprint's bandwidth probe and add, estimate and merge per kernel. */
size_t fb_family_hll_planned(const fb_options *o, const uint64_t *probed, size_t nprobed) {
    (void)probed, (void)nprobed;
    return 1 + o->nhll_precisions * (1 + 3 * o->nkernels);
}

void fb_family_hll(fb_env *e) {
    const fb_options *o = e->o;
    size_t L = (size_t)o->lookups;
    uint64_t *keys = malloc(L * sizeof *keys);
    if (!keys) {
        fb_warn(e->ctx, "hll: out of memory for %zu keys; suite skipped", L);
        return;
    }
    char hb[32];
    uint64_t dram = dram_probe_bytes(e);
    fb_status("sequential read bandwidth over %s",
            fb_fmt_bytes(dram, hb, sizeof hb));
    double dram_gbps = stream_bandwidth(e, dram);
    json_object_set_new(e->ctx, "dram_read_gb_per_s", fb_json_num(dram_gbps));
    for (size_t i = 0; i < o->nhll_precisions; i++)
        hll_precision(e, o->hll_precisions[i], keys, dram_gbps);
    free(keys);
}
