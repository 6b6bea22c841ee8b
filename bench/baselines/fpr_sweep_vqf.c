/*
 * fpr_sweep's vector quotient filter rows (include/filterlab_vqf.h, through its own API):
 * one "space"/"deletes" row per target, measured as the cuckoo widths are (fpr_sweep.c): the
 * bits per key from the filter's real bytes over the keys inserted, the measured FPR over
 * the same never-inserted queries, and the load it was filled to.
 *
 * Its fingerprint is a fixed 8 bits, so, like a fixed cuckoo width, it meets a target tighter
 * than its full-load FPR (about 0.44% at FL_VQF_SIZING_LOAD) only in an emptier table: it is
 * sized for the loosest load up to the sizing load that its FPR model allows, and reported
 * unreachable below WIDTH_MIN_LOAD.
 */
#include <math.h>

#include "fpr_sweep.h"

#define VQF_NAME "vqf"
#define VQF_FP_BITS 8

/* The header's FPR model at load L (items / slots): a query's bucket holds 48 L / 80
 * fingerprints on average in each of its two blocks, each equal to the query's with
 * probability 1/256, so 1 - (1 - 1/256)^(2 * 48 L / 80) (fl_vqf_info_get's estimate). */
static double vqf_model_fpr(double load)
{
    return -expm1(2.0 * FL_VQF_SLOTS * load / FL_VQF_BUCKETS * log1p(-1.0 / 256));
}

/* The inverse: the load at which the model predicts p. */
static double vqf_model_load(double p)
{
    return log1p(-p) / log1p(-1.0 / 256) * FL_VQF_BUCKETS / (2.0 * FL_VQF_SLOTS);
}

/* Blocks for n keys at target p: n / L keys' worth of slots, L the largest load up to
 * FL_VQF_SIZING_LOAD whose model FPR is <= p. At the sizing load that is the library's own
 * sizing, fl_vqf_blocks_for(n). FL_ERR_BAD_FPR when L < WIDTH_MIN_LOAD, FL_ERR_TOO_LARGE past
 * FL_VQF_BLOCKS_MAX. */
static fl_status vqf_target_blocks(uint64_t n, double p, uint32_t *blocks)
{
    double load = vqf_model_load(p);
    if (load >= FL_VQF_SIZING_LOAD)
        return fl_vqf_blocks_for(n, blocks);
    if (load < WIDTH_MIN_LOAD)
        return FL_ERR_BAD_FPR;
    double b = ceil((double)n / (FL_VQF_SLOTS * load));
    /* the inversion's rounding must not leave the load a hair above L */
    if (!(vqf_model_fpr((double)n / (FL_VQF_SLOTS * b)) <= p))
        b += 1;
    if (b > FL_VQF_BLOCKS_MAX)
        return FL_ERR_TOO_LARGE;
    *blocks = (uint32_t)b;
    return FL_OK;
}

static fl_status vqf_insert(void *f, const uint64_t *h, size_t m, size_t *done)
{
    return fl_vqf_insert_hashes(f, h, m, done);
}

static fl_status vqf_contains(const void *f, const uint64_t *h, size_t m, uint8_t *out,
                              size_t *positives)
{
    return fl_vqf_contains_hashes(f, h, m, out, positives);
}

void vqf_space_row(bl_json *j, uint64_t n, double target, uint64_t salt, int *failures)
{
    uint32_t blocks = 0;
    fl_vqf *v = NULL;
    fl_status s = vqf_target_blocks(n, target, &blocks);
    if (s == FL_OK && (s = fl_vqf_create_blocks(blocks, g_seed, &v)) != FL_OK)
        (*failures)++;
    if (s != FL_OK) {
        width_error_row(j, VQF_NAME, target, VQF_FP_BITS, s);
        return;
    }
    measured m = {.variant = VQF_NAME, .units = blocks, .k = VQF_FP_BITS};
    fill_and_count(v, vqf_insert, vqf_contains, n, salt, &m);
    fl_vqf_info info;
    fl_vqf_info_get(v, &info);
    m.bytes = info.bytes;
    m.bits = 8 * (uint64_t)info.bytes;
    m.predicted_fpr = info.fpr;
    bl_json_open(j, NULL, '{');
    emit_measured(j, "space", "deletes", target, &m);
    bl_json_int(j, "n", (long long)n);
    bl_json_int(j, "fingerprint_bits", VQF_FP_BITS);
    bl_json_num(j, "load", info.load);
    bl_json_num(j, "sizing_load", FL_VQF_SIZING_LOAD);
    bl_json_close(j, '}');
    fl_vqf_free(v);
}
