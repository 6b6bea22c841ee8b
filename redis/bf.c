/*
 * BF.*: RedisBloom's Bloom filter commands on filterlab's scalable Bloom filter
 * (include/filterlab_sbf.h), with RedisBloom's syntax, defaults (error rate 0.01, capacity
 * 100, expansion 2) and replies. Beyond RedisBloom: VARIANT <name> at BF.RESERVE / BF.INSERT
 * picks the Bloom variant of the sub-filters (default block512: one cache line per key and
 * sub-filter; classic is RedisBloom's own layout). BF.INFO has exactly RedisBloom's fields;
 * the fill, the FPR predicted at the current fill, the variant and the kernel are in
 * FILTERLAB.INFO key. BF.DEBUG gives RedisBloom's per-sub-filter lines with filterlab's
 * numbers. GROWTH INPLACE at BF.RESERVE / BF.INSERT makes a key of one growing cuckoo filter
 * instead of a chain (inplace.h); the options are bf_options.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunk.h"
#include "common.h"
#include "bf_options.h"
#include "inplace.h"

typedef struct bf_value {
    flr_value_header h; /* first: dump.c and flr_value_new read it */
    /* The chain (GROWTH CHAIN, the default) or the growing filter (GROWTH INPLACE,
     * inplace.h), with BF_INPLACE and BF_WARNED in the pointer's low bits: both are
     * malloc'ed, so aligned to 16. MEMORY USAGE counts this struct, and most keys are one
     * small chain (80 bytes and its bit array, src/sbf/sbf_internal.h): three fields here
     * would be a tenth of a 10-item key, where RedisBloom's whole value is 96 bytes and its
     * bit array (redis-memory.md holds the two within 1.1x). */
    uintptr_t obj;
} bf_value;
#define BF_INPLACE ((uintptr_t)1) /* obj is an flr_inplace, else an fl_sbf */
#define BF_WARNED ((uintptr_t)2)  /* the "non scaling filter is full" warning was logged */
#define BF_TAGS ((uintptr_t)15)

static inline fl_sbf *bf_sbf(const bf_value *b) {
    return b->obj & BF_INPLACE ? NULL : (fl_sbf *)(b->obj & ~BF_TAGS);
}
static inline flr_inplace *bf_ip(const bf_value *b) {
    return b->obj & BF_INPLACE ? (flr_inplace *)(b->obj & ~BF_TAGS) : NULL;
}

RedisModuleType *flr_bf_type;

static void bf_free(void *v) {
    bf_value *b = v;
    if (!b) return;
    fl_sbf_free(bf_sbf(b));
    flr_inplace_free(bf_ip(b));
    free(b);
}

static bf_value *bf_wrap(fl_sbf *sbf, flr_inplace *ip) {
    _Static_assert(_Alignof(max_align_t) > BF_TAGS, "malloc's alignment leaves the tag bits");
    bf_value *b = flr_value_new(sizeof *b);
    if (b) b->obj = ip ? (uintptr_t)ip | BF_INPLACE : (uintptr_t)sbf;
    else fl_sbf_free(sbf), flr_inplace_free(ip);
    return b;
}

/* A new value (o: a bf_options): a chain, or a growing filter with GROWTH INPLACE; replies
 * with the error and returns NULL on failure. */
static void *bf_create(RedisModuleCtx *ctx, const void *options) {
    const bf_options *o = options;
    if (o->inplace) {
        flr_inplace p = {.kind = FLR_INPLACE_BF, .capacity = o->capacity,
                         .error_rate = o->error_rate};
        flr_inplace *ip = flr_inplace_create(ctx, &p);
        bf_value *b = ip ? bf_wrap(NULL, ip) : NULL;
        if (ip && !b) RedisModule_ReplyWithError(ctx, "ERR out of memory");
        return b;
    }
    fl_sbf_config cfg = {.capacity = o->capacity, .error_rate = o->error_rate,
                         .growth = (double)o->expansion, .variant = o->variant,
                         .flags = o->nonscaling ? FL_SBF_NONSCALING : 0,
                         .max_bytes = flr_max_bytes(),
                         .layout_slack = flr_cfg.bf_layout_slack};
    fl_sbf *sbf;
    fl_status st = fl_sbf_create(&cfg, &sbf);
    if (st == FL_ERR_TOO_LARGE) { /* above MAX_BYTES: the text CF and RedisBloom use */
        RedisModule_ReplyWithError(ctx, "ERR Insufficient memory to create filter");
        return NULL;
    }
    if (st != FL_OK) {
        flr_reply_status(ctx, st);
        return NULL;
    }
    bf_value *b = bf_wrap(sbf, NULL);
    if (!b) RedisModule_ReplyWithError(ctx, "ERR out of memory");
    return b;
}

/* ---- commands ------------------------------------------------------------------------ */

/* BF.RESERVE key error_rate capacity [EXPANSION expansion] [NONSCALING] [VARIANT name]
 *            [GROWTH CHAIN|INPLACE] */
static int cmd_reserve(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 4) return RedisModule_WrongArity(ctx);
    bf_options o = bf_defaults();
    if (!flr_arg_double(argv[2], &o.error_rate))
        return RedisModule_ReplyWithError(ctx, "ERR bad error rate");
    if (!flr_arg_u64(argv[3], &o.capacity))
        return RedisModule_ReplyWithError(ctx, "ERR bad capacity");
    for (int i = 4; i < argc; i++) {
        int shared = bf_parse_shared_option(ctx, argv, argc, &i, &o);
        if (shared < 0) return REDISMODULE_OK;
        if (shared == 0) return RedisModule_ReplyWithError(ctx, "ERR unknown argument received");
    }
    if (!bf_check_options(ctx, &o)) return REDISMODULE_OK;
    RedisModuleKey *key = flr_open_new(ctx, argv[1], flr_bf_type, "ERR item exists");
    if (!key) return REDISMODULE_OK;
    bf_value *b = bf_create(ctx, &o);
    if (b) {
        RedisModule_ModuleTypeSetValue(key, flr_bf_type, b);
        RedisModule_ReplicateVerbatim(ctx);
        RedisModule_ReplyWithSimpleString(ctx, "OK");
    }
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* Logs, once per value, that a non-scaling filter refused an add. */
static void warn_full(RedisModuleCtx *ctx, RedisModuleString *name, bf_value *b) {
    if (b->obj & BF_WARNED) return;
    b->obj |= BF_WARNED;
    fl_sbf_info in;
    fl_sbf_get_info(bf_sbf(b), &in);
    size_t len;
    const char *key = RedisModule_StringPtrLen(name, &len);
    flr_log(ctx, "warning",
            "filterlab: non-scaling Bloom filter '%.*s' reached its capacity (%llu items): "
            "further adds are refused",
            (int)(len > 200 ? 200 : len), key, (unsigned long long)in.capacity);
}

/* BF.ADD's one item: the chain's one-key calls, without a batch's chunking. Replicated and
 * marked written whenever it succeeds, as add_items does. */
static void add_single(RedisModuleCtx *ctx, RedisModuleString *name, bf_value *b,
                       RedisModuleString *item) {
    size_t len;
    const char *s = RedisModule_StringPtrLen(item, &len);
    int added = 0;
    fl_status st = fl_sbf_add_hash(bf_sbf(b), fl_sbf_hash_bytes(bf_sbf(b), s, len), &added);
    if (st != FL_OK) {
        if (st == FL_ERR_FULL) {
            warn_full(ctx, name, b);
            RedisModule_ReplyWithError(ctx, "ERR non scaling filter is full");
        } else {
            flr_reply_status(ctx, st);
        }
        return;
    }
    flr_touch(b);
    RedisModule_ReplicateVerbatim(ctx);
    RedisModule_ReplyWithLongLong(ctx, added);
}

/* Adds items[0..n) (hashed first, then one batch call) and replies with an array where an
 * item that could not be added is an error element, as RedisBloom replies. */
static int add_items(RedisModuleCtx *ctx, RedisModuleString *name, bf_value *b,
                     RedisModuleString **items, size_t n) {
    flr_batch batch;
    if (!flr_batch_alloc(&batch, n)) return RedisModule_ReplyWithError(ctx, "ERR out of memory");
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const char *s = RedisModule_StringPtrLen(items[i], &len);
        batch.hashes[i] = fl_sbf_hash_bytes(bf_sbf(b), s, len);
    }
    size_t count = 0;
    fl_status st = fl_sbf_add_hashes(bf_sbf(b), batch.hashes, n, batch.flags, &count);
    /* On an error the library keeps the items before the failing one; added[] is 1 for
     * those it inserted and 0 for those it found present, so it does not say where the
     * failure was. Replaying one key at a time from just after the last inserted item
     * finds it: present items answer 0 again and change nothing, and the failing item
     * fails again (a failed add leaves the chain unchanged). It and the items after it
     * get the error. */
    size_t failed_at = n;
    if (st != FL_OK) {
        failed_at = 0;
        for (size_t i = 0; i < n; i++)
            if (batch.flags[i]) failed_at = i + 1;
        for (size_t i = failed_at; i < n; i++) {
            int added;
            if (fl_sbf_add_hash(bf_sbf(b), batch.hashes[i], &added) != FL_OK) {
                failed_at = i;
                break;
            }
            batch.flags[i] = (uint8_t)added;
            failed_at = i + 1;
        }
        if (st == FL_ERR_FULL) warn_full(ctx, name, b);
    }
    if (count > 0 || failed_at > 0) {
        flr_touch(b);
        RedisModule_ReplicateVerbatim(ctx);
    }
    RedisModule_ReplyWithArray(ctx, (long)n);
    for (size_t i = 0; i < n; i++) {
        if (i < failed_at)
            RedisModule_ReplyWithLongLong(ctx, batch.flags[i]);
        else if (st == FL_ERR_FULL)
            RedisModule_ReplyWithError(ctx, "ERR non scaling filter is full");
        else
            flr_reply_status(ctx, st);
    }
    flr_batch_free(&batch);
    return REDISMODULE_OK;
}

/* The items of BF.ADD (single) or BF.MADD / BF.INSERT, to either layout. */
static void add_any(RedisModuleCtx *ctx, RedisModuleString *name, bf_value *b,
                    RedisModuleString **items, size_t n, int single) {
    if (!bf_ip(b)) {
        if (single) add_single(ctx, name, b, items[0]);
        else add_items(ctx, name, b, items, n);
    } else if (flr_inplace_bf_add(ctx, name, bf_ip(b), items, n, single)) {
        flr_touch(b);
        RedisModule_ReplicateVerbatim(ctx);
    }
}

/* BF.ADD key item / BF.MADD key item [item ...]: a missing key is created with the
 * defaults. */
static int add_common(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, int single) {
    if (single ? argc != 3 : argc < 3) return RedisModule_WrongArity(ctx);
    void *v;
    bf_options o = bf_defaults();
    RedisModuleKey *key = flr_open_or_create(ctx, argv[1], flr_bf_type, 0, bf_create, &o, &v);
    if (!key) return REDISMODULE_OK;
    add_any(ctx, argv[1], v, argv + 2, (size_t)(argc - 2), single);
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

static int cmd_add(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    return add_common(ctx, argv, argc, 1);
}
static int cmd_madd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    return add_common(ctx, argv, argc, 0);
}

/* BF.INSERT key [CAPACITY c] [ERROR e] [EXPANSION x] [NOCREATE] [NONSCALING]
 *           [VARIANT name] [GROWTH CHAIN|INPLACE] ITEMS item [item ...] */
static int cmd_insert(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 4) return RedisModule_WrongArity(ctx);
    bf_options o = bf_defaults();
    int nocreate = 0, items_at = -1, sizing_given = 0;
    for (int i = 2; i < argc && items_at < 0; i++) {
        int shared = bf_parse_shared_option(ctx, argv, argc, &i, &o);
        if (shared < 0) return REDISMODULE_OK;
        if (shared > 0) continue;
        if (flr_arg_is(argv[i], "ITEMS")) {
            items_at = i + 1;
        } else if (flr_arg_is(argv[i], "NOCREATE")) {
            nocreate = 1;
        } else if (flr_arg_is(argv[i], "CAPACITY") && i + 1 < argc) {
            if (!flr_arg_u64(argv[++i], &o.capacity))
                return RedisModule_ReplyWithError(ctx, "ERR bad capacity");
            sizing_given = 1;
        } else if (flr_arg_is(argv[i], "ERROR") && i + 1 < argc) {
            if (!flr_arg_double(argv[++i], &o.error_rate))
                return RedisModule_ReplyWithError(ctx, "ERR bad error rate");
            sizing_given = 1;
        } else {
            return RedisModule_ReplyWithError(ctx, "ERR unknown argument received");
        }
    }
    if (items_at < 0 || items_at >= argc) return RedisModule_WrongArity(ctx);
    /* RedisBloom: NOCREATE cannot come with the sizing of a filter it will not create. */
    if (nocreate && sizing_given)
        return RedisModule_ReplyWithError(ctx, "ERR NOCREATE cannot be used with CAPACITY or "
                                               "ERROR");
    if (nocreate && o.growth_given) /* GROWTH, too, only shapes a key INSERT creates */
        return RedisModule_ReplyWithError(ctx, "ERR NOCREATE cannot be used with GROWTH");
    if (!bf_check_options(ctx, &o)) return REDISMODULE_OK;
    void *v;
    RedisModuleKey *key = flr_open_or_create(ctx, argv[1], flr_bf_type, nocreate, bf_create, &o,
                                             &v);
    if (!key) return REDISMODULE_OK;
    add_any(ctx, argv[1], v, argv + items_at, (size_t)(argc - items_at), 0);
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* Membership of a batch (flr_reply_lookup: BF.EXISTS, BF.MEXISTS). */
static void bf_lookup(const void *v, RedisModuleString **items, flr_batch *batch) {
    const bf_value *b = v;
    if (bf_ip(b)) {
        flr_inplace_lookup(bf_ip(b), items, batch);
        return;
    }
    for (size_t i = 0; i < batch->n; i++) {
        size_t len;
        const char *s = RedisModule_StringPtrLen(items[i], &len);
        batch->hashes[i] = fl_sbf_hash_bytes(bf_sbf(b), s, len);
    }
    /* One key (BF.EXISTS): the one-key call skips the batch call's chunk set-up. */
    if (batch->n == 1)
        batch->flags[0] = (uint8_t)fl_sbf_contains_hash(bf_sbf(b), batch->hashes[0]);
    else
        fl_sbf_contains_hashes(bf_sbf(b), batch->hashes, batch->n, batch->flags, NULL);
}

/* BF.EXISTS key item / BF.MEXISTS key item [item ...]: a missing key holds nothing. */
static int cmd_exists(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    return flr_reply_lookup(ctx, argv, argc, 1, flr_bf_type, bf_lookup);
}
static int cmd_mexists(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    return flr_reply_lookup(ctx, argv, argc, 0, flr_bf_type, bf_lookup);
}

/* BF.CARD key: items added (0 for a missing key). */
static int cmd_card(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    void *v;
    RedisModuleKey *key;
    if (!flr_open(ctx, argv[1], REDISMODULE_READ, flr_bf_type, &key, &v))
        return REDISMODULE_OK;
    uint64_t items = 0, unused;
    if (v && bf_ip(v)) flr_inplace_totals(bf_ip(v), &unused, &items, &unused);
    else if (v) items = fl_sbf_count(bf_sbf(v));
    RedisModule_ReplyWithLongLong(ctx, (long long)items);
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* MEMORY USAGE and BF.INFO's Size: every byte the value holds, as the library counts its
 * chain (structs, arrays, payloads; allocator rounding aside), and this struct. */
static size_t bf_mem_usage(const void *v) {
    const bf_value *b = v;
    return sizeof *b + (bf_ip(b) ? flr_inplace_mem_usage(bf_ip(b)) : fl_sbf_memory(bf_sbf(b)));
}

/* Bits set over bits of all sub-filters. */
static double bf_fill(const fl_sbf *s, uint32_t filters) {
    double set = 0, bits = 0;
    for (uint32_t i = 0; i < filters; i++) {
        fl_sbf_filter_info in;
        if (fl_sbf_filter_info_at(s, i, &in) != FL_OK) continue;
        set += (double)in.bits_set;
        bits += (double)in.bytes * 8;
    }
    return bits > 0 ? set / bits : 0;
}

/* BF.INFO key [CAPACITY | SIZE | FILTERS | ITEMS | EXPANSION]: exactly RedisBloom's fields
 * (clients read them by position); filterlab's are in FILTERLAB.INFO key. */
static int cmd_info(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2 && argc != 3) return RedisModule_WrongArity(ctx);
    void *v;
    RedisModuleKey *key =
        flr_open_existing(ctx, argv[1], REDISMODULE_READ, flr_bf_type, "ERR not found", &v);
    if (!key) return REDISMODULE_OK;
    bf_value *b = v;
    fl_sbf_info in = {0};
    if (bf_ip(b)) /* one filter that doubles; Capacity: what it holds before doubling */
        flr_inplace_totals(bf_ip(b), &in.total_capacity, &in.items, &(uint64_t){0}),
            in.filters = 1, in.growth = 2;
    else fl_sbf_get_info(bf_sbf(b), &in);
    long long size = (long long)bf_mem_usage(b);
    int nonscaling = (in.flags & FL_SBF_NONSCALING) != 0;
    if (argc == 3) {
        long long value;
        if (flr_arg_is(argv[2], "CAPACITY")) value = (long long)in.total_capacity;
        else if (flr_arg_is(argv[2], "SIZE")) value = size;
        else if (flr_arg_is(argv[2], "FILTERS")) value = in.filters;
        else if (flr_arg_is(argv[2], "ITEMS")) value = (long long)in.items;
        else if (flr_arg_is(argv[2], "EXPANSION")) value = nonscaling ? -1 : (long long)in.growth;
        else {
            RedisModule_CloseKey(key);
            return RedisModule_ReplyWithError(ctx, "ERR invalid information value");
        }
        RedisModule_ReplyWithArray(ctx, 1);
        if (value < 0) RedisModule_ReplyWithNull(ctx);
        else RedisModule_ReplyWithLongLong(ctx, value);
        RedisModule_CloseKey(key);
        return REDISMODULE_OK;
    }
    RedisModule_ReplyWithArray(ctx, 10);
    RedisModule_ReplyWithSimpleString(ctx, "Capacity");
    RedisModule_ReplyWithLongLong(ctx, (long long)in.total_capacity);
    RedisModule_ReplyWithSimpleString(ctx, "Size");
    RedisModule_ReplyWithLongLong(ctx, size);
    RedisModule_ReplyWithSimpleString(ctx, "Number of filters");
    RedisModule_ReplyWithLongLong(ctx, in.filters);
    RedisModule_ReplyWithSimpleString(ctx, "Number of items inserted");
    RedisModule_ReplyWithLongLong(ctx, (long long)in.items);
    RedisModule_ReplyWithSimpleString(ctx, "Expansion rate");
    if (nonscaling) RedisModule_ReplyWithNull(ctx);
    else RedisModule_ReplyWithLongLong(ctx, (long long)in.growth);
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}


/* FILTERLAB.INFO's fields for a Bloom chain: the monitoring facts BF.INFO has no field for
 * (error rate, initial capacity, fill, the FPR the models predict at the current item
 * counts, payload bytes, variant, kernel... see FILTERLAB.INFO). */
int flr_bf_info_extra(RedisModuleCtx *ctx, void *v) {
    bf_value *b = v;
    if (bf_ip(b)) return flr_inplace_info_extra(ctx, bf_ip(b));
    fl_sbf_info in;
    fl_sbf_get_info(bf_sbf(b), &in);
    RedisModule_ReplyWithSimpleString(ctx, "Error rate");
    RedisModule_ReplyWithDouble(ctx, in.error_rate);
    RedisModule_ReplyWithSimpleString(ctx, "Initial capacity");
    RedisModule_ReplyWithLongLong(ctx, (long long)in.capacity);
    RedisModule_ReplyWithSimpleString(ctx, "Fill");
    RedisModule_ReplyWithDouble(ctx, bf_fill(bf_sbf(b), in.filters));
    RedisModule_ReplyWithSimpleString(ctx, "Predicted FPR");
    RedisModule_ReplyWithDouble(ctx, in.predicted_fpr);
    RedisModule_ReplyWithSimpleString(ctx, "Payload bytes");
    RedisModule_ReplyWithLongLong(ctx, (long long)in.bytes);
    RedisModule_ReplyWithSimpleString(ctx, "Variant");
    const char *name = fl_variant_name(in.variant);
    RedisModule_ReplyWithSimpleString(ctx, name ? name : "?");
    RedisModule_ReplyWithSimpleString(ctx, "Layout");
    RedisModule_ReplyWithSimpleString(ctx, "chain");
    return 14;
}

/* BF.DEBUG key: RedisBloom's reply shape, "size:<items>" and then one line per sub-filter,
 * "bytes:B bits:b hashes:k hashwidth:64 capacity:c size:n ratio:p", with filterlab's own
 * numbers (its sizing and variants give other bytes and hash counts than RedisBloom's for
 * the same arguments; hashwidth is 64: filterlab derives every probe from 64-bit hashes). */
static int cmd_debug(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    void *v;
    RedisModuleKey *key =
        flr_open_existing(ctx, argv[1], REDISMODULE_READ, flr_bf_type, "ERR not found", &v);
    if (!key) return REDISMODULE_OK;
    const bf_value *b = v;
    fl_sbf_info in = {.filters = 1};
    char line[256];
    if (bf_ip(b)) {
        flr_inplace_totals(bf_ip(b), &(uint64_t){0}, &in.items, &(uint64_t){0});
        RedisModule_ReplyWithArray(ctx, 2);
        int n = snprintf(line, sizeof line, "size:%llu", (unsigned long long)in.items);
        RedisModule_ReplyWithStringBuffer(ctx, line, (size_t)n);
        n = flr_inplace_debug_line(bf_ip(b), line, sizeof line);
        RedisModule_ReplyWithStringBuffer(ctx, line, (size_t)n);
        RedisModule_CloseKey(key);
        return REDISMODULE_OK;
    }
    fl_sbf_get_info(bf_sbf(b), &in);
    RedisModule_ReplyWithArray(ctx, 1 + (long)in.filters);
    int n = snprintf(line, sizeof line, "size:%llu", (unsigned long long)in.items);
    RedisModule_ReplyWithStringBuffer(ctx, line, (size_t)n);
    for (uint32_t i = 0; i < in.filters; i++) {
        fl_sbf_filter_info f;
        if (fl_sbf_filter_info_at(bf_sbf(b), i, &f) != FL_OK) memset(&f, 0, sizeof f);
        n = snprintf(line, sizeof line,
                     "bytes:%zu bits:%llu hashes:%u hashwidth:64 capacity:%llu size:%llu "
                     "ratio:%g",
                     f.bytes, (unsigned long long)f.bytes * 8, (unsigned)f.geometry.k,
                     (unsigned long long)f.capacity, (unsigned long long)f.items,
                     f.target_fpr);
        RedisModule_ReplyWithStringBuffer(ctx, line, (size_t)n);
    }
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* ---- serialization: RDB, AOF, SCANDUMP ----------------------------------------------- */

static uint8_t *bf_serialize(const void *v, size_t *len, const char **err) {
    const bf_value *b = v;
    if (bf_ip(b)) return flr_inplace_serialize(bf_ip(b), len, err);
    size_t cap = fl_sbf_serialized_size(bf_sbf(b));
    uint8_t *buf = malloc(cap ? cap : 1);
    if (!buf) {
        *err = "ERR out of memory";
        return NULL;
    }
    if (fl_sbf_save_mem(bf_sbf(b), buf, cap, len) != FL_OK) {
        free(buf);
        *err = "ERR could not serialize the filter";
        return NULL;
    }
    return buf;
}

static void *bf_deserialize(const uint8_t *blob, size_t len, const char **err) {
    if (flr_inplace_is_blob(blob, len)) { /* GROWTH INPLACE: its tag (inplace.c) */
        flr_inplace *ip = flr_inplace_deserialize(blob, len, FLR_INPLACE_BF, err);
        bf_value *b = ip ? bf_wrap(NULL, ip) : NULL;
        if (ip && !b) *err = "ERR out of memory";
        return b;
    }
    fl_sbf *sbf;
    fl_status st = fl_sbf_load_mem(blob, len, flr_load_max_bytes(), &sbf);
    if (st != FL_OK) {
        *err = "ERR invalid dump: the filter does not load";
        return NULL;
    }
    /* Files do not keep the slack nor the byte limit (policies of the process): the
     * server's apply. The load accepted up to flr_load_max_bytes, so that a value made
     * under a larger MAX_BYTES still loads; its growth from now on is held to MAX_BYTES,
     * whatever the blob's own max_bytes says (a RESTORE or LOADCHUNK payload may store 0
     * and a tightening that makes the next sub-filter ask for gigabytes). */
    fl_sbf_set_layout_slack(sbf, flr_cfg.bf_layout_slack);
    fl_sbf_set_byte_limit(sbf, flr_max_bytes());
    bf_value *b = bf_wrap(sbf, NULL);
    if (!b) *err = "ERR out of memory";
    return b;
}

static const flr_type_ops BF_TYPE = {
    .prefix = "BF",
    .type_name = "flab-sbf1",
    .encoding_version = 1,
    .kind = FLR_CHUNK_BF,
    .type = &flr_bf_type,
    .serialize = bf_serialize,
    .deserialize = bf_deserialize,
    .mem_usage = bf_mem_usage,
    .free = bf_free,
    .log_io_failures = 1,
    .err_iter = "ERR Second argument must be numeric",
    .err_chunk = "received bad data",
    .err_order = "invalid offset - no link found",
};

FLR_TYPE_GLUE(bf, BF_TYPE)

const char *flr_bf_kernel(void *v) {
    const bf_value *b = v;
    if (bf_ip(b)) return flr_inplace_kernel(bf_ip(b));
    return fl_sbf_kernel(bf_sbf(b), 0);
}

static const flr_command BF_COMMANDS[] = {
    {"BF.RESERVE", cmd_reserve, "write deny-oom"},
    {"BF.ADD", cmd_add, "write deny-oom"},
    {"BF.MADD", cmd_madd, "write deny-oom"},
    {"BF.INSERT", cmd_insert, "write deny-oom"},
    {"BF.EXISTS", cmd_exists, "readonly fast"},
    {"BF.MEXISTS", cmd_mexists, "readonly fast"},
    {"BF.CARD", cmd_card, "readonly fast"},
    {"BF.INFO", cmd_info, "readonly fast"},
    {"BF.DEBUG", cmd_debug, "readonly fast"},
    {"BF.SCANDUMP", bf_cmd_scandump, "readonly"},
    {"BF.LOADCHUNK", bf_cmd_loadchunk, "write deny-oom"},
};

int flr_bf_register(RedisModuleCtx *ctx) {
    return flr_type_register(ctx, &BF_TYPE, &bf_type_glue, BF_COMMANDS,
                             sizeof BF_COMMANDS / sizeof BF_COMMANDS[0]);
}
