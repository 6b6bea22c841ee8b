/*
 * The public sizing and prediction calls (fl_params_for, fl_params_for_bytes,
 * fl_params_for_geometry, fl_predict_fpr): each checks its request, finds the variant's
 * descriptor and calls the model or sizing search the descriptor names (models.c).
 */
#include <math.h>
#include <string.h>

#include "core/internal.h"

static int fpr_valid(double p) {
    return p > 0.0 && p < 1.0; /* false for NaN too */
}

double fl_predict_fpr_at(const fl_geometry *g, double n) {
    if (!g || fl_geometry_check(g, NULL) != FL_OK || !(n >= 0)) return NAN;
    if (n == 0) return 0.0;
    const fl_variant_desc *d = fl_variant_desc_of(g->variant);
    return d->predict_fpr(d, g, n);
}

double fl_predict_fpr(const fl_geometry *g, uint64_t n) {
    return fl_predict_fpr_at(g, (double)n);
}

fl_status fl_params_for_geometry(const fl_geometry *g, uint64_t n, fl_params *out) {
    size_t bytes;
    if (!out) return FL_ERR_INVALID_ARG;
    fl_status s = fl_geometry_check(g, &bytes);
    if (s != FL_OK) return s;
    if (n == 0) return FL_ERR_BAD_N;
    memset(out, 0, sizeof *out);
    out->geometry = *g;
    out->bytes = bytes;
    out->bits = (uint64_t)bytes * 8;
    out->bits_per_key = (double)out->bits / (double)n;
    out->predicted_fpr = fl_predict_fpr(g, n);
    /* The geometry was checked: NaN means the blocked model's tables could not be allocated. */
    return isnan(out->predicted_fpr) ? FL_ERR_NO_MEMORY : FL_OK;
}

/* What every sizing call checks first, in this order: out (cleared), the variant (its
 * descriptor in *d) and n. */
static fl_status sizing_request(fl_variant variant, uint64_t n, fl_params *out,
                                const fl_variant_desc **d) {
    if (!out) return FL_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    *d = fl_variant_desc_of(variant);
    if (!*d) return FL_ERR_INVALID_ARG;
    if (n == 0) return FL_ERR_BAD_N;
    return FL_OK;
}

fl_status fl_params_for(fl_variant variant, uint64_t n, double fpr, fl_params *out) {
    const fl_variant_desc *d;
    fl_status st = sizing_request(variant, n, out, &d);
    if (st != FL_OK) return st;
    if (!fpr_valid(fpr)) return FL_ERR_BAD_FPR;
    fl_geometry g = {.variant = variant};
    st = d->size(d, (double)n, fpr, &g);
    if (st != FL_OK) return st;
    return fl_params_for_geometry(&g, n, out);
}

/* For a byte budget: every valid k at the unit count the budget buys, keeping the lowest
 * prediction. For a table of slots (cuckoo) a wider fingerprint always predicts less at the
 * same load, so it keeps the widest one whose load stays within the sizing load (beyond it
 * inserts start to fail, Fan et al. 2014). */
fl_status fl_params_for_bytes(fl_variant variant, uint64_t n, uint64_t bytes, fl_params *out) {
    const fl_variant_desc *d;
    fl_status st = sizing_request(variant, n, out, &d);
    if (st != FL_OK) return st;
    if (bytes == 0) return FL_ERR_BAD_GEOMETRY;
    int found = 0, too_large = 0;
    double best = 2.0;
    fl_geometry best_g = {0};
    for (uint32_t k = d->info.k_min; k <= d->info.k_max; k++) {
        if (!fl_variant_k_valid(d, k)) continue;
        uint64_t units = bytes / d->unit_bytes(k);
        if (units == 0) units = 1;
        if (units > d->info.units_max) {
            too_large = 1;
            continue;
        }
        fl_geometry g = {variant, units, k};
        /* A table of slots holds n keys only within its sizing load. */
        if (d->info.unit_slots && (double)n > d->info.max_load * d->info.unit_slots * (double)units) continue;
        double p = fl_predict_fpr(&g, n);
        if (isnan(p)) return FL_ERR_NO_MEMORY; /* the blocked model's tables */
        if (!found || p < best || d->info.unit_slots) {
            best = p;
            best_g = g;
            found = 1;
        }
    }
    if (!found) return too_large ? FL_ERR_TOO_LARGE : FL_ERR_FULL;
    return fl_params_for_geometry(&best_g, n, out);
}
