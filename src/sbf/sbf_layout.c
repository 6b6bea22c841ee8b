/*
 * The layout and size of a scalable chain's next sub-filter (src/sbf/sbf.c grows the chain
 * with it): the chain's variant sized for the sub-filter's tightened target, or classic
 * where the variant would cost more than the chain's layout slack allows; and the answers
 * remembered per thread, since a server creates chains of the same shape key after key.
 * include/filterlab_sbf.h says what the layout slack is for.
 */
#include <math.h>

#include "sbf/sbf_internal.h"

/* The geometry of sub-filter i for `cap` keys in variant v: the variant's sizing for p_i,
 * then, where the sizing rounds (classic rounds k, which can leave its prediction a hair
 * above the target), more units until the model's FPR at capacity is <= p_i, which the
 * chain's bound needs. */
static fl_status size_filter(const fl_sbf *s, fl_variant v, uint32_t i, uint64_t cap,
                             fl_geometry *g) {
    double p = fl_sbf_target_fpr(s, i);
    if (!(p > 0)) return FL_ERR_BAD_FPR; /* r^i underflowed: far past any real chain */
    fl_params pr;
    fl_status st = fl_params_for(v, cap, p, &pr);
    if (st != FL_OK) return st;
    *g = pr.geometry;
    double at_cap;
    for (int tries = 0; (at_cap = fl_predict_fpr(g, cap)) > p; tries++) {
        uint64_t more = g->units / 1024 + 1;
        if (tries > 4096 || g->units + more > FL_UNITS_MAX) return FL_ERR_TOO_LARGE;
        g->units += more;
    }
    return isnan(at_cap) ? FL_ERR_NO_MEMORY : FL_OK; /* the blocked model's tables */
}

/* The layout of sub-filter i: the chain's variant, unless it would take more than
 * layout_slack times the bytes of a classic sub-filter for the same capacity and p_i (or
 * cannot reach p_i at all). A blocked filter's bits per key grow faster than classic's as
 * the target falls: k bits confined to one block saturate it, so past a point the units
 * must grow as 1/p instead of log(1/p) (block512 at 1e-9 costs 2.0x classic, at 1e-24
 * 12 MiB for 1000 keys). The tightening p_i = p (1 - r) r^i drives a long chain there
 * (growth 1: sub-filter 30 of a 1% chain is at 5e-12), so without this a chain's memory
 * grows super-linearly with its keys. Once a sub-filter is classic the later ones are too
 * (their targets are smaller still), which also spares sizing the variant where that is
 * slow. */
static fl_status choose_layout(const fl_sbf *s, uint32_t i, uint64_t cap, fl_geometry *g) {
    if (fl_sbf_classic_from(s, i)) return size_filter(s, FL_CLASSIC, i, cap, g);
    fl_status st = size_filter(s, (fl_variant)s->variant, i, cap, g);
    if (s->slack_milli == FL_SBF_SLACK_NEVER) return st;
    fl_geometry gc;
    size_t bytes = 0, bytes_c = 0;
    if (size_filter(s, FL_CLASSIC, i, cap, &gc) != FL_OK ||
        fl_geometry_check(&gc, &bytes_c) != FL_OK)
        return st;
    if (st != FL_OK || fl_geometry_check(g, &bytes) != FL_OK ||
        (double)bytes * 1000.0 > (double)s->slack_milli * (double)bytes_c)
        *g = gc;
    return FL_OK;
}

/* choose_layout's answers, remembered per thread. It is a pure function of the chain's
 * variant, whether sub-filter i must be classic, its capacity and target, and the slack;
 * and the same questions come back key after key: a Redis server creates a chain for every
 * new key, mostly of one shape (BF.ADD's defaults, or an application's BF.RESERVE). Even
 * with the models' own memos (src/core/models.c) an answer costs two sizings, their FPR
 * checks and the geometry checks, about 1,800 instructions of the 3,100 a chain's creation
 * took (callgrind, capacity 100 at 1%): a remembered one, a scan of 8 entries. Per thread:
 * no locking. Failures are not remembered. */
#define LAYOUT_MEMO 8
typedef struct {
    uint64_t cap;
    double p;
    uint32_t slack_milli;
    uint8_t variant, classic;
    fl_geometry g;
} layout_memo;
static _Thread_local layout_memo lmemo[LAYOUT_MEMO];
static _Thread_local unsigned lmemo_next;

fl_status fl_sbf_layout(const fl_sbf *s, uint32_t i, uint64_t cap, fl_geometry *g) {
    double p = fl_sbf_target_fpr(s, i);
    uint8_t classic = (uint8_t)fl_sbf_classic_from(s, i);
    for (unsigned j = 0; j < LAYOUT_MEMO; j++) {
        const layout_memo *e = &lmemo[j];
        if (e->cap == cap && e->p == p && e->slack_milli == s->slack_milli &&
            e->variant == s->variant && e->classic == classic && e->g.units) {
            *g = e->g;
            return FL_OK;
        }
    }
    fl_status st = choose_layout(s, i, cap, g);
    if (st == FL_OK) {
        lmemo[lmemo_next] = (layout_memo){cap, p, s->slack_milli, s->variant, classic, *g};
        lmemo_next = (lmemo_next + 1) % LAYOUT_MEMO;
    }
    return st;
}
