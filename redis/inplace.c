/*
 * GROWTH INPLACE values of BF and CF keys: one growing cuckoo filter (inplace.h says what
 * the layout promises; include/filterlab_gcf.h how the filter grows).
 */
#include "inplace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INPLACE_SEED 0 /* as the chains' filters (one hash family and seed per module) */

int flr_growth_option(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, int *i,
                      int *inplace) {
    if (!flr_arg_is(argv[*i], "GROWTH")) return 0;
    if (*i + 1 < argc && flr_arg_is(argv[*i + 1], "INPLACE")) *inplace = 1;
    else if (*i + 1 < argc && flr_arg_is(argv[*i + 1], "CHAIN")) *inplace = 0;
    else {
        RedisModule_ReplyWithError(ctx, "ERR GROWTH must be CHAIN or INPLACE");
        return -1;
    }
    ++*i;
    return 1;
}

/* ---- the error-rate bound (inplace.h) ------------------------------------------------- */

/* The library's FPR estimate (fl_gcf_info_get) for `weight` = sum over slots of 2^-L in a
 * table of `buckets`. */
static double fpr_of(double weight, double buckets) {
    return -expm1(-weight * (258.0 / 65536.0) * 2.0 / buckets);
}

/* The FPR the filter reaches at its capacity if it stays at this size (no_double) or at the
 * capacity of the next size (the table doubled now). */
static double fpr_at_capacity(const fl_gcf_info *in, int no_double) {
    double w = 0;
    for (uint32_t l = 0; l <= FL_GCF_EXT_BITS; l++)
        w += (double)in->items_by_ext[l] * ldexp(1.0, -(int)l);
    double rest = in->capacity > in->items ? (double)(in->capacity - in->items) : 0;
    if (no_double) return fpr_of(w + rest * ldexp(1.0, -7), (double)in->buckets);
    double cap2 = floor((double)in->slots * 2 * FL_GCF_GROW_LOAD);
    double filled = (double)(in->capacity > in->items ? in->capacity : in->items);
    double fresh = cap2 > filled ? cap2 - filled : 0;
    return fpr_of(2 * w + rest * ldexp(1.0, -6) + fresh * ldexp(1.0, -7),
                  2.0 * (double)in->buckets);
}

/* Decides whether the next doubling may happen and sets the table's byte limit to match:
 * MAX_BYTES, or the table's own size when the error rate forbids it. Called whenever the
 * table has a new size (creation, load, a doubling). */
static void set_growth_limit(flr_inplace *ip) {
    fl_gcf_info in;
    fl_gcf_info_get(ip->g, &in);
    ip->kbits_seen = in.bucket_bits;
    ip->fpr_stop = ip->kind == FLR_INPLACE_BF && fpr_at_capacity(&in, 0) > ip->error_rate;
    fl_gcf_set_byte_limit(ip->g, ip->fpr_stop ? (uint64_t)in.bytes : ip->max_bytes);
}

static void after_insert(flr_inplace *ip) {
    if (fl_gcf_lookup_of(ip->g).kbits != ip->kbits_seen) set_growth_limit(ip);
}

/* ---- create, free ---------------------------------------------------------------------- */

flr_inplace *flr_inplace_create(RedisModuleCtx *ctx, const flr_inplace *p) {
    /* The table's exact bytes before anything is allocated: over the cap, nothing is. */
    uint64_t need = 0;
    fl_status sized = fl_gcf_bytes_for(p->capacity, &need);
    if (sized == FL_ERR_TOO_LARGE || (sized == FL_OK && need > flr_max_bytes())) {
        RedisModule_ReplyWithError(ctx, "ERR Insufficient memory to create filter");
        return NULL;
    }
    flr_inplace *ip = calloc(1, sizeof *ip);
    if (!ip) {
        RedisModule_ReplyWithError(ctx, "ERR out of memory");
        return NULL;
    }
    *ip = *p;
    ip->g = NULL;
    ip->deleted = 0;
    ip->warned_full = 0;
    ip->max_bytes = flr_max_bytes();
    fl_status st = fl_gcf_create(p->capacity, INPLACE_SEED, &ip->g);
    fl_gcf_info in;
    if (st == FL_OK) fl_gcf_info_get(ip->g, &in);
    if (st == FL_OK && ip->kind == FLR_INPLACE_BF && fpr_at_capacity(&in, 1) > ip->error_rate) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "ERR GROWTH INPLACE gives an FPR of %.3g at this capacity: the error rate "
                 "must be at least that",
                 fpr_at_capacity(&in, 1));
        RedisModule_ReplyWithError(ctx, msg);
        flr_inplace_free(ip);
        return NULL;
    }
    if (st != FL_OK) {
        if (st == FL_ERR_TOO_LARGE)
            RedisModule_ReplyWithError(ctx, "ERR Insufficient memory to create filter");
        else flr_reply_status(ctx, st);
        flr_inplace_free(ip);
        return NULL;
    }
    set_growth_limit(ip);
    return ip;
}


/* ---- adds -------------------------------------------------------------------------------- */

static uint64_t hash_item(const flr_inplace *ip, RedisModuleString *item) {
    size_t len;
    const char *s = RedisModule_StringPtrLen(item, &len);
    return fl_gcf_hash_bytes(ip->g, s, len);
}

static void warn_full(RedisModuleCtx *ctx, RedisModuleString *name, flr_inplace *ip,
                      fl_status st) {
    if (ip->warned_full) return;
    ip->warned_full = 1;
    size_t len;
    const char *key = RedisModule_StringPtrLen(name, &len);
    fl_gcf_info in;
    fl_gcf_info_get(ip->g, &in);
    flr_log(ctx, "warning",
            "filterlab: %s key '%.*s' (GROWTH INPLACE) refused an add at %llu items after %u "
            "doublings: %s",
            ip->kind == FLR_INPLACE_BF ? "BF" : "CF", (int)(len > 200 ? 200 : len), key,
            (unsigned long long)in.items, in.doublings,
            ip->fpr_stop ? "the next doubling would exceed the error rate" : fl_strerror(st));
}

/* One BF item: *inserted 0 if it may be present already (BF.ADD's 0), else 1. A table that
 * may not double takes no more than its capacity (the bound is computed there). */
static fl_status bf_add_hash(flr_inplace *ip, uint64_t h, int nx, uint8_t *inserted) {
    (void)nx; /* a BF add is always "if absent" */
    *inserted = 0;
    if (fl_gcf_contains_hash(ip->g, h)) return FL_OK;
    fl_gcf_info in;
    fl_gcf_info_get(ip->g, &in);
    if (in.items >= in.capacity) {
        if (ip->fpr_stop || in.doublings >= FL_GCF_MAX_DOUBLINGS) return FL_ERR_FULL;
        if ((uint64_t)in.bytes * 2 > ip->max_bytes) return FL_ERR_TOO_LARGE;
    }
    fl_status st = fl_gcf_insert_hash(ip->g, h);
    if (st == FL_ERR_TOO_LARGE && ip->fpr_stop) st = FL_ERR_FULL; /* the bound's limit */
    if (st != FL_OK) return st;
    *inserted = 1;
    after_insert(ip);
    return FL_OK;
}

/* One CF item: a copy added (*inserted 1), or with nx none if one may be there already. */
static fl_status cf_add_hash(flr_inplace *ip, uint64_t h, int nx, uint8_t *inserted) {
    *inserted = 0;
    if (nx && fl_gcf_contains_hash(ip->g, h)) return FL_OK;
    fl_status st = fl_gcf_insert_hash(ip->g, h);
    if (st != FL_OK) return st;
    *inserted = 1;
    after_insert(ip);
    return FL_OK;
}

/* The items hashed into b (allocated for n), then added one at a time in order by `one`
 * (so an item is checked against the filter as the items before it left it, and a
 * doubling re-decides the growth limit before the next) until one fails: returns how many
 * were handled, *st why the next was not (FL_OK: all), b->flags 1 where one was inserted.
 * A failure is logged once per value. */
static size_t add_in_order(RedisModuleCtx *ctx, RedisModuleString *name, flr_inplace *ip,
                           RedisModuleString **items, flr_batch *b, int nx,
                           fl_status (*one)(flr_inplace *, uint64_t, int, uint8_t *),
                           fl_status *st) {
    for (size_t i = 0; i < b->n; i++) b->hashes[i] = hash_item(ip, items[i]);
    size_t done = 0;
    *st = FL_OK;
    for (; done < b->n; done++)
        if ((*st = one(ip, b->hashes[done], nx, &b->flags[done])) != FL_OK) break;
    if (*st != FL_OK) warn_full(ctx, name, ip, *st);
    return done;
}

static int any_inserted(const flr_batch *b, size_t done) {
    for (size_t i = 0; i < done; i++)
        if (b->flags[i]) return 1;
    return 0;
}

static void bf_reply_error(RedisModuleCtx *ctx, fl_status st) {
    if (st == FL_ERR_FULL) RedisModule_ReplyWithError(ctx, "ERR non scaling filter is full");
    else flr_reply_status(ctx, st);
}

int flr_inplace_bf_add(RedisModuleCtx *ctx, RedisModuleString *name, flr_inplace *ip,
                       RedisModuleString **items, size_t n, int single) {
    flr_batch b;
    if (!flr_batch_alloc(&b, n)) return RedisModule_ReplyWithError(ctx, "ERR out of memory"), 0;
    fl_status st;
    size_t done = add_in_order(ctx, name, ip, items, &b, 1, bf_add_hash, &st);
    if (single && st != FL_OK) {
        bf_reply_error(ctx, st);
    } else if (single) {
        RedisModule_ReplyWithLongLong(ctx, b.flags[0]);
    } else {
        RedisModule_ReplyWithArray(ctx, (long)n);
        for (size_t i = 0; i < n; i++) {
            if (i < done) RedisModule_ReplyWithLongLong(ctx, b.flags[i]);
            else bf_reply_error(ctx, st);
        }
    }
    int changed = any_inserted(&b, done);
    flr_batch_free(&b);
    return changed;
}

int flr_inplace_cf_add(RedisModuleCtx *ctx, RedisModuleString *name, flr_inplace *ip,
                       RedisModuleString **items, size_t n, int single, int nx) {
    flr_batch b;
    if (!flr_batch_alloc(&b, n)) return RedisModule_ReplyWithError(ctx, "ERR out of memory"), 0;
    fl_status st;
    size_t done = add_in_order(ctx, name, ip, items, &b, nx, cf_add_hash, &st);
    if (single) {
        if (st == FL_ERR_FULL) RedisModule_ReplyWithError(ctx, "ERR Filter is full");
        else if (st != FL_OK) flr_reply_status(ctx, st);
        else RedisModule_ReplyWithLongLong(ctx, b.flags[0]);
    } else if (st != FL_OK && st != FL_ERR_FULL) {
        flr_reply_status(ctx, st);
    } else { /* 1 added, 0 present (NX), -1 from the item the filter refused on */
        RedisModule_ReplyWithArray(ctx, (long)n);
        for (size_t i = 0; i < n; i++)
            RedisModule_ReplyWithLongLong(ctx, i >= done ? -1 : b.flags[i]);
    }
    int changed = any_inserted(&b, done);
    flr_batch_free(&b);
    return changed;
}

/* ---- lookups, counts, deletes --------------------------------------------------------- */

void flr_inplace_lookup(const flr_inplace *ip, RedisModuleString **items, flr_batch *b) {
    for (size_t i = 0; i < b->n; i++) b->hashes[i] = hash_item(ip, items[i]);
    /* One key: the in-line probe, without the batch kernel's set-up. */
    if (b->n == 1) b->flags[0] = (uint8_t)fl_gcf_contains_hash(ip->g, b->hashes[0]);
    else fl_gcf_contains_hashes(ip->g, b->hashes, b->n, b->flags, NULL);
}

uint32_t flr_inplace_count(const flr_inplace *ip, RedisModuleString *item) {
    uint32_t count = 0;
    fl_gcf_count_hash(ip->g, hash_item(ip, item), &count);
    return count;
}

int flr_inplace_delete(flr_inplace *ip, RedisModuleString *item) {
    if (fl_gcf_delete_hash(ip->g, hash_item(ip, item)) != FL_OK) return 0;
    ip->deleted++;
    return 1;
}

/* ---- reports --------------------------------------------------------------------------- */

size_t flr_inplace_mem_usage(const flr_inplace *ip) {
    return sizeof *ip + fl_gcf_memory(ip->g);
}

void flr_inplace_totals(const flr_inplace *ip, uint64_t *capacity, uint64_t *items,
                        uint64_t *buckets) {
    fl_gcf_info in;
    fl_gcf_info_get(ip->g, &in);
    *capacity = in.capacity;
    *items = in.items;
    *buckets = in.buckets;
}

/* Why the next doubling would be refused, or "allowed". */
static const char *growth_state(const flr_inplace *ip, const fl_gcf_info *in) {
    if (in->doublings >= FL_GCF_MAX_DOUBLINGS) return "stopped: growth limit (128x)";
    if (ip->fpr_stop) return "stopped: the next doubling would exceed the error rate";
    if ((uint64_t)in->bytes * 2 > ip->max_bytes) return "stopped: MAX_BYTES";
    return "allowed";
}

int flr_inplace_info_extra(RedisModuleCtx *ctx, const flr_inplace *ip) {
    fl_gcf_info in;
    fl_gcf_info_get(ip->g, &in);
    int n = 0;
#define FIELD_(name) (RedisModule_ReplyWithSimpleString(ctx, name), n += 2)
    FIELD_("Layout");
    RedisModule_ReplyWithSimpleString(ctx, "inplace");
    if (ip->kind == FLR_INPLACE_BF) {
        FIELD_("Error rate");
        RedisModule_ReplyWithDouble(ctx, ip->error_rate);
    } else {
        FIELD_("Requested bucket size");
        RedisModule_ReplyWithLongLong(ctx, ip->bucket_size);
        FIELD_("Fingerprint bits");
        RedisModule_ReplyWithLongLong(ctx, 16);
    }
    FIELD_("Initial capacity");
    RedisModule_ReplyWithLongLong(ctx, (long long)ip->capacity);
    FIELD_("Capacity");
    RedisModule_ReplyWithLongLong(ctx, (long long)in.capacity);
    FIELD_("Slots");
    RedisModule_ReplyWithLongLong(ctx, (long long)in.slots);
    FIELD_("Fill");
    RedisModule_ReplyWithDouble(ctx, in.load);
    FIELD_("Predicted FPR");
    RedisModule_ReplyWithDouble(ctx, in.fpr);
    FIELD_("Payload bytes");
    RedisModule_ReplyWithLongLong(ctx, (long long)in.bytes);
    FIELD_("Doublings");
    RedisModule_ReplyWithLongLong(ctx, in.doublings);
    FIELD_("Max doublings");
    RedisModule_ReplyWithLongLong(ctx, FL_GCF_MAX_DOUBLINGS);
    FIELD_("Growth");
    RedisModule_ReplyWithSimpleString(ctx, growth_state(ip, &in));
#undef FIELD_
    return n;
}

int flr_inplace_debug_line(const flr_inplace *ip, char *line, size_t cap) {
    fl_gcf_info in;
    fl_gcf_info_get(ip->g, &in);
    /* BF.DEBUG's sub-filter fields: two buckets probed per key, 64-bit hashes, the
     * capacity before the next doubling, the error rate the key keeps */
    return snprintf(line, cap,
                    "bytes:%zu bits:%llu hashes:2 hashwidth:64 capacity:%llu size:%llu "
                    "ratio:%g",
                    in.bytes, (unsigned long long)in.bytes * 8,
                    (unsigned long long)in.capacity, (unsigned long long)in.items,
                    ip->error_rate);
}

const char *flr_inplace_kernel(const flr_inplace *ip) { return fl_gcf_kernel(ip->g); }

/* ---- serialization (inplace_codec.c) ---------------------------------------------------- */

uint8_t *flr_inplace_serialize(const flr_inplace *ip, size_t *len, const char **err) {
    uint8_t *blob = flr_inplace_encode(ip, len);
    if (!blob) *err = "ERR could not serialize the filter";
    return blob;
}

flr_inplace *flr_inplace_deserialize(const uint8_t *blob, size_t len, uint32_t kind,
                                     const char **err) {
    flr_inplace *ip = NULL;
    fl_status st = flr_inplace_decode(blob, len, kind, flr_load_max_bytes(), &ip);
    if (st != FL_OK) {
        *err = st == FL_ERR_NO_MEMORY ? "ERR out of memory"
                                      : "ERR invalid dump: the GROWTH INPLACE value does not load";
        return NULL;
    }
    /* The file's byte limit was the load's cap: from now on, this server's MAX_BYTES and
     * the error rate decide (set_growth_limit). */
    ip->max_bytes = flr_max_bytes();
    set_growth_limit(ip);
    return ip;
}
