/*
 * CF.*: RedisBloom's cuckoo filter commands on a chain of filterlab cuckoo filters
 * (cf_chain.h: how RedisBloom's BUCKETSIZE, MAXITERATIONS and EXPANSION map onto
 * filterlab's 4-slot buckets). Beyond RedisBloom: FPBITS 8|11|12|13|16 at CF.RESERVE
 * (fingerprint width, any the library's cuckoo filter takes: cf_fp_bits_ok; default 12,
 * CF_FP_BITS_DEFAULT: why there). CF.INFO has exactly RedisBloom's fields; the capacity,
 * slots, fingerprint bits, fill, the FPR predicted at the current load and the kernel are in
 * FILTERLAB.INFO key. CF.DEBUG
 * gives RedisBloom's line with filterlab's numbers; CF.COMPACT drops the filters of the
 * chain that hold nothing (cf_chain_compact). As in RedisBloom, a chain of
 * CF_MAX_EXPANSIONS filters (a load argument, default 32) takes no more items, and a
 * capacity below twice the bucket size is refused.
 *
 * GROWTH INPLACE at CF.RESERVE / CF.INSERT makes a key of one growing cuckoo filter instead
 * of a chain (inplace.h); the options are cf_options.c's.
 *
 * CF.COUNT counts, as RedisBloom does, the copies of the item's fingerprint where its copies
 * can be (fl_count_hash, summed over the chain): an item added twice gives 2; other items
 * sharing a fingerprint and a bucket can add to it, nothing takes from it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_chain.h"
#include "cf_options.h"
#include "chunk.h"
#include "common.h"
#include "inplace.h"

#define CF_MAX_EXPANSIONS_REACHED "ERR Maximum expansions reached"

/* RedisBloom refuses adds to a chain of CF_MAX_EXPANSIONS filters (so a flood of distinct
 * items cannot grow a filter without bound); 1 if that reply was sent. */
static int refuse_max_expansions(RedisModuleCtx *ctx, const cf_chain *chain) {
    if (!chain || chain->filters < flr_cfg.cf_max_expansions) return 0;
    RedisModule_ReplyWithError(ctx, CF_MAX_EXPANSIONS_REACHED);
    return 1;
}

typedef struct cf_value {
    flr_value_header h; /* first: dump.c and flr_value_new read it */
    cf_chain *chain;  /* GROWTH CHAIN (the default), or */
    flr_inplace *ip;  /* GROWTH INPLACE (inplace.h); the other is NULL */
    int warned_full; /* the "filter is full" warning was logged */
} cf_value;

RedisModuleType *flr_cf_type;

static void cf_free(void *v) {
    cf_value *c = v;
    if (!c) return;
    cf_chain_free(c->chain);
    flr_inplace_free(c->ip);
    free(c);
}

static cf_value *cf_wrap(cf_chain *chain, flr_inplace *ip) {
    cf_value *c = flr_value_new(sizeof *c);
    if (c) c->chain = chain, c->ip = ip;
    else cf_chain_free(chain), flr_inplace_free(ip);
    return c;
}

/* A new value (options: a cf_options): a chain, or a growing filter with GROWTH INPLACE;
 * replies with the error and returns NULL on failure. */
static void *cf_create(RedisModuleCtx *ctx, const void *options) {
    const cf_options *o = options;
    const cf_config *cfg = &o->cfg;
    if (o->inplace) {
        flr_inplace p = {.kind = FLR_INPLACE_CF, .capacity = cfg->capacity,
                         .bucket_size = cfg->bucket_size, .max_iterations = cfg->max_iterations};
        flr_inplace *ip = flr_inplace_create(ctx, &p);
        cf_value *c = ip ? cf_wrap(NULL, ip) : NULL;
        if (ip && !c) RedisModule_ReplyWithError(ctx, "ERR out of memory");
        return c;
    }
    cf_chain *chain;
    fl_status st = cf_chain_create_capped(cfg, flr_max_bytes(), &chain);
    if (st == FL_ERR_TOO_LARGE) { /* above MAX_BYTES: RedisBloom's text for it */
        RedisModule_ReplyWithError(ctx, "ERR Insufficient memory to create filter");
        return NULL;
    }
    if (st != FL_OK) {
        flr_reply_status(ctx, st);
        return NULL;
    }
    cf_value *c = cf_wrap(chain, NULL);
    if (!c) RedisModule_ReplyWithError(ctx, "ERR out of memory");
    return c;
}

static void warn_full(RedisModuleCtx *ctx, RedisModuleString *name, cf_value *c) {
    if (c->warned_full) return;
    c->warned_full = 1;
    size_t len;
    const char *key = RedisModule_StringPtrLen(name, &len);
    flr_log(ctx, "warning",
            "filterlab: cuckoo filter '%.*s' is full (%llu items, expansion %u): further adds "
            "are refused",
            (int)(len > 200 ? 200 : len), key, (unsigned long long)c->chain->items,
            c->chain->cfg.expansion);
}

/* CF.RESERVE key capacity [BUCKETSIZE bs] [MAXITERATIONS mi] [EXPANSION e] [FPBITS 8|11|12|13|16]
 *            [GROWTH CHAIN|INPLACE] */
static int cmd_reserve(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 3 || argc % 2 == 0) return RedisModule_WrongArity(ctx);
    cf_options o;
    if (!cf_parse_reserve(ctx, argv, argc, &o)) return REDISMODULE_OK;
    RedisModuleKey *key = flr_open_new(ctx, argv[1], flr_cf_type, "ERR item exists");
    if (!key) return REDISMODULE_OK;
    cf_value *c = cf_create(ctx, &o);
    if (c) {
        RedisModule_ModuleTypeSetValue(key, flr_cf_type, c);
        RedisModule_ReplicateVerbatim(ctx);
        RedisModule_ReplyWithSimpleString(ctx, "OK");
    }
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* Out of line: inlined into CF.INSERT's command function, the loop's pointers lived on the
 * stack around its two calls per item (callgrind: 7 instructions an item). */
static __attribute__((noinline)) void hash_items(const cf_value *c, RedisModuleString **items,
                                                 flr_batch *b) {
    const cf_chain *chain = c->chain;
    uint64_t *hashes = b->hashes;
    for (size_t i = 0, n = b->n; i < n; i++) {
        size_t len;
        const char *s = RedisModule_StringPtrLen(items[i], &len);
        hashes[i] = cf_chain_hash(chain, s, len);
    }
}

/* One key against the chain, newest filter first (it holds most items): the one-key
 * lookup, without the batch kernel's set-up, for CF.EXISTS, CF.ADDNX and CF.INSERTNX. */
static uint8_t contains_one(const cf_chain *chain, uint64_t h) {
    for (uint32_t i = chain->filters; i-- > 0;)
        if (fl_contains_hash(chain->f[i], h)) return 1;
    return 0;
}

/* CF.ADD key item / CF.ADDNX key item: 1 added; ADDNX 0 if it may already be there. */
static int add_one(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, int nx) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    void *v;
    RedisModuleKey *key =
        flr_open_or_create(ctx, argv[1], flr_cf_type, 0, cf_create, &CF_DEFAULTS, &v);
    if (!key) return REDISMODULE_OK;
    cf_value *c = v;
    if (c->ip) {
        if (flr_inplace_cf_add(ctx, argv[1], c->ip, argv + 2, 1, 1, nx)) {
            flr_touch(c);
            RedisModule_ReplicateVerbatim(ctx);
        }
        RedisModule_CloseKey(key);
        return REDISMODULE_OK;
    }
    size_t len;
    const char *s = RedisModule_StringPtrLen(argv[2], &len);
    uint64_t h = cf_chain_hash(c->chain, s, len);
    uint8_t present = 0;
    if (refuse_max_expansions(ctx, c->chain)) {
        RedisModule_CloseKey(key);
        return REDISMODULE_OK;
    }
    if (nx) present = contains_one(c->chain, h);
    if (present) {
        RedisModule_ReplyWithLongLong(ctx, 0);
    } else {
        fl_status st = cf_chain_add(c->chain, h);
        if (st == FL_OK) {
            flr_touch(c);
            RedisModule_ReplicateVerbatim(ctx);
            RedisModule_ReplyWithLongLong(ctx, 1);
        } else if (st == FL_ERR_FULL) {
            warn_full(ctx, argv[1], c);
            RedisModule_ReplyWithError(ctx, "ERR Filter is full");
        } else {
            flr_reply_status(ctx, st);
        }
    }
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

static int cmd_add(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    return add_one(ctx, argv, argc, 0);
}
static int cmd_addnx(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    return add_one(ctx, argv, argc, 1);
}

/* CF.INSERT / CF.INSERTNX key [CAPACITY c] [NOCREATE] ITEMS item [item ...]: an array of
 * 1 (added), 0 (INSERTNX: may already be there) or -1 (the filter is full), as
 * RedisBloom replies. */
static int insert_common(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, int nx) {
    if (argc < 4) return RedisModule_WrongArity(ctx);
    cf_options o;
    int nocreate, items_at;
    if (!cf_parse_insert(ctx, argv, argc, &o, &nocreate, &items_at)) return REDISMODULE_OK;
    void *v;
    RedisModuleKey *key =
        flr_open_or_create(ctx, argv[1], flr_cf_type, nocreate, cf_create, &o, &v);
    if (!key) return REDISMODULE_OK;
    cf_value *c = v;
    if (refuse_max_expansions(ctx, c->chain)) {
        RedisModule_CloseKey(key);
        return REDISMODULE_OK;
    }
    if (c->ip) {
        if (flr_inplace_cf_add(ctx, argv[1], c->ip, argv + items_at, (size_t)(argc - items_at),
                               0, nx)) {
            flr_touch(c);
            RedisModule_ReplicateVerbatim(ctx);
        }
        RedisModule_CloseKey(key);
        return REDISMODULE_OK;
    }
    flr_batch b;
    if (!flr_batch_alloc(&b, (size_t)(argc - items_at))) {
        RedisModule_CloseKey(key);
        return RedisModule_ReplyWithError(ctx, "ERR out of memory");
    }
    hash_items(c, argv + items_at, &b);
    size_t added = 0;
    fl_status st = FL_OK;
    if (!nx) {
        /* One batch insert (growing the chain where it fills). */
        st = cf_chain_add_hashes(c->chain, b.hashes, b.n, &added);
    } else {
        /* Each item is checked against the filter as the items before it left it, so a
         * repeated item is added once: one key at a time. */
        for (; added < b.n; added++) {
            uint8_t present = contains_one(c->chain, b.hashes[added]);
            if (!present) st = cf_chain_add(c->chain, b.hashes[added]);
            if (st != FL_OK) break;
            b.flags[added] = present;
        }
    }
    if (st == FL_ERR_FULL) warn_full(ctx, argv[1], c);
    if (st != FL_OK && st != FL_ERR_FULL) {
        flr_reply_status(ctx, st);
    } else {
        RedisModule_ReplyWithArray(ctx, (long)b.n);
        for (size_t i = 0; i < added; i++) RedisModule_ReplyWithLongLong(ctx, !b.flags[i]);
        for (size_t i = added; i < b.n; i++) RedisModule_ReplyWithLongLong(ctx, -1);
    }
    flr_touch(c);
    RedisModule_ReplicateVerbatim(ctx);
    flr_batch_free(&b);
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

static int cmd_insert(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    return insert_common(ctx, argv, argc, 0);
}
static int cmd_insertnx(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    return insert_common(ctx, argv, argc, 1);
}

/* Membership of a batch (flr_reply_lookup: CF.EXISTS, CF.MEXISTS). */
static void cf_lookup(const void *v, RedisModuleString **items, flr_batch *b) {
    const cf_value *c = v;
    if (c->ip) {
        flr_inplace_lookup(c->ip, items, b);
        return;
    }
    hash_items(c, items, b);
    if (b->n == 1)
        b->flags[0] = contains_one(c->chain, b->hashes[0]);
    else
        cf_chain_contains(c->chain, b->hashes, b->n, b->flags);
}

/* CF.EXISTS key item / CF.MEXISTS key item [item ...]: a missing key holds nothing. */
static int cmd_exists(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    return flr_reply_lookup(ctx, argv, argc, 1, flr_cf_type, cf_lookup);
}
static int cmd_mexists(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    return flr_reply_lookup(ctx, argv, argc, 0, flr_cf_type, cf_lookup);
}

/* CF.COUNT key item: the copies of the item's fingerprint (see above); 0 for a missing key,
 * as RedisBloom replies. */
static int cmd_count(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    void *v;
    RedisModuleKey *key;
    if (!flr_open(ctx, argv[1], REDISMODULE_READ, flr_cf_type, &key, &v)) return REDISMODULE_OK;
    uint64_t count = 0;
    fl_status st = FL_OK;
    if (v && ((cf_value *)v)->ip) {
        count = flr_inplace_count(((cf_value *)v)->ip, argv[2]);
    } else if (v) {
        const cf_value *c = v;
        size_t len;
        const char *s = RedisModule_StringPtrLen(argv[2], &len);
        st = cf_chain_count(c->chain, cf_chain_hash(c->chain, s, len), &count);
    }
    if (st == FL_OK) RedisModule_ReplyWithLongLong(ctx, (long long)count);
    else flr_reply_status(ctx, st);
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* CF.DEL key item: 1 if a copy was removed, 0 if none was found. */
static int cmd_del(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    void *v;
    RedisModuleKey *key;
    if (!flr_open(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE, flr_cf_type, &key, &v))
        return REDISMODULE_OK;
    if (!v) {
        RedisModule_CloseKey(key);
        return RedisModule_ReplyWithError(ctx, "ERR Not found");
    }
    cf_value *c = v;
    size_t len;
    const char *s = RedisModule_StringPtrLen(argv[2], &len);
    fl_status st = c->ip ? (flr_inplace_delete(c->ip, argv[2]) ? FL_OK : FL_ERR_NOT_FOUND)
                         : cf_chain_delete(c->chain, cf_chain_hash(c->chain, s, len));
    if (st == FL_OK) {
        flr_touch(c);
        RedisModule_ReplicateVerbatim(ctx);
        RedisModule_ReplyWithLongLong(ctx, 1);
    } else if (st == FL_ERR_NOT_FOUND) {
        RedisModule_ReplyWithLongLong(ctx, 0);
    } else {
        flr_reply_status(ctx, st);
    }
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* The value, its chain and filter list, the payloads, and 256 bytes for each filter's
 * struct (about 200) and its payload's rounding. */
static size_t cf_mem_usage(const void *v) {
    const cf_value *c = v;
    if (c->ip) return sizeof *c + flr_inplace_mem_usage(c->ip);
    cf_totals t;
    cf_chain_totals(c->chain, &t);
    return sizeof *c + sizeof *c->chain + c->chain->f_alloc * sizeof *c->chain->f + t.bytes +
           (size_t)c->chain->filters * 256;
}

/* CF.INFO's and CF.DEBUG's numbers, from either layout (one growing filter: its buckets,
 * one filter, expansion 2, the iterations CF.RESERVE asked for). */
typedef struct cf_report {
    cf_totals t;
    uint64_t items, deleted;
    uint32_t filters, expansion, max_iterations;
} cf_report;

/* CF.INFO's and CF.DEBUG's start: `CMD key` opened for reading, its numbers in *r. NULL
 * when the reply (wrong arity, no such key) has been sent. */
static RedisModuleKey *open_report(RedisModuleCtx *ctx, RedisModuleString **argv, int argc,
                                   void **v, cf_report *r) {
    if (argc != 2) {
        RedisModule_WrongArity(ctx);
        return NULL;
    }
    RedisModuleKey *key =
        flr_open_existing(ctx, argv[1], REDISMODULE_READ, flr_cf_type, "ERR not found", v);
    if (!key) return NULL;
    const cf_value *c = *v;
    memset(r, 0, sizeof *r);
    if (c->ip) {
        uint64_t capacity;
        flr_inplace_totals(c->ip, &capacity, &r->items, &r->t.buckets);
        *r = (cf_report){r->t, r->items, c->ip->deleted, 1, 2, c->ip->max_iterations};
    } else {
        cf_chain_totals(c->chain, &r->t);
        *r = (cf_report){r->t, c->chain->items, c->chain->deleted, c->chain->filters,
                         c->chain->cfg.expansion, c->chain->cfg.max_iterations};
    }
    return key;
}

/* CF.INFO key: exactly RedisBloom's fields (clients read them by position). The bucket
 * size is the table's (4 slots); the one CF.RESERVE asked for is in FILTERLAB.INFO. */
static int cmd_info(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    void *v;
    cf_report r;
    RedisModuleKey *key = open_report(ctx, argv, argc, &v, &r);
    if (!key) return REDISMODULE_OK;
    RedisModule_ReplyWithArray(ctx, 16);
    RedisModule_ReplyWithSimpleString(ctx, "Size");
    RedisModule_ReplyWithLongLong(ctx, (long long)cf_mem_usage(v));
    RedisModule_ReplyWithSimpleString(ctx, "Number of buckets");
    RedisModule_ReplyWithLongLong(ctx, (long long)r.t.buckets);
    RedisModule_ReplyWithSimpleString(ctx, "Number of filters");
    RedisModule_ReplyWithLongLong(ctx, r.filters);
    RedisModule_ReplyWithSimpleString(ctx, "Number of items inserted");
    RedisModule_ReplyWithLongLong(ctx, (long long)r.items);
    RedisModule_ReplyWithSimpleString(ctx, "Number of items deleted");
    RedisModule_ReplyWithLongLong(ctx, (long long)r.deleted);
    RedisModule_ReplyWithSimpleString(ctx, "Bucket size");
    RedisModule_ReplyWithLongLong(ctx, CF_TABLE_BUCKET_SLOTS);
    RedisModule_ReplyWithSimpleString(ctx, "Expansion rate");
    RedisModule_ReplyWithLongLong(ctx, r.expansion);
    RedisModule_ReplyWithSimpleString(ctx, "Max iterations");
    RedisModule_ReplyWithLongLong(ctx, r.max_iterations);
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* FILTERLAB.INFO's fields for a cuckoo chain: what CF.INFO has no field for. */
int flr_cf_info_extra(RedisModuleCtx *ctx, void *v) {
    if (((cf_value *)v)->ip) return flr_inplace_info_extra(ctx, ((cf_value *)v)->ip);
    const cf_chain *ch = ((cf_value *)v)->chain;
    cf_totals t;
    cf_chain_totals(ch, &t);
    RedisModule_ReplyWithSimpleString(ctx, "Requested bucket size");
    RedisModule_ReplyWithLongLong(ctx, ch->cfg.bucket_size);
    /* Items the filters are sized for (CF.RESERVE's capacity, times the expansion for each
     * grown filter), and the slots that hold them at the library's sizing load. */
    RedisModule_ReplyWithSimpleString(ctx, "Capacity");
    RedisModule_ReplyWithLongLong(ctx, (long long)t.capacity);
    RedisModule_ReplyWithSimpleString(ctx, "Slots");
    RedisModule_ReplyWithLongLong(ctx, (long long)t.slots);
    RedisModule_ReplyWithSimpleString(ctx, "Fingerprint bits");
    RedisModule_ReplyWithLongLong(ctx, ch->cfg.fp_bits);
    /* Occupied slots over slots (the tables' load; the victim stashes are not slots): a
     * filter refuses keys from about 0.95 (Fan et al. 2014). */
    RedisModule_ReplyWithSimpleString(ctx, "Fill");
    RedisModule_ReplyWithDouble(ctx, t.slots ? (double)t.used / (double)t.slots : 0);
    RedisModule_ReplyWithSimpleString(ctx, "Predicted FPR");
    RedisModule_ReplyWithDouble(ctx, cf_chain_predicted_fpr(ch));
    RedisModule_ReplyWithSimpleString(ctx, "Payload bytes");
    RedisModule_ReplyWithLongLong(ctx, (long long)t.bytes);
    RedisModule_ReplyWithSimpleString(ctx, "Layout");
    RedisModule_ReplyWithSimpleString(ctx, "chain");
    return 16;
}

/* CF.DEBUG key: RedisBloom's line, "bktsize:B buckets:N items:I deletes:D filters:F
 * max_iterations:M expansion:E", with the chain's numbers: B is the table's bucket size
 * (4) and N the buckets of all filters, so N * B is the slots. */
static int cmd_debug(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    void *v;
    cf_report r;
    RedisModuleKey *key = open_report(ctx, argv, argc, &v, &r);
    if (!key) return REDISMODULE_OK;
    char line[256];
    int n = snprintf(line, sizeof line,
                     "bktsize:%u buckets:%llu items:%llu deletes:%llu filters:%u "
                     "max_iterations:%u expansion:%u",
                     CF_TABLE_BUCKET_SLOTS, (unsigned long long)r.t.buckets,
                     (unsigned long long)r.items, (unsigned long long)r.deleted, r.filters,
                     r.max_iterations, r.expansion);
    RedisModule_ReplyWithStringBuffer(ctx, line, (size_t)n);
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* CF.COMPACT key: drops the filters that hold nothing (cf_chain_compact), which deletes
 * can leave; "OK" whether or not one was dropped, as RedisBloom answers. A GROWTH INPLACE
 * key has one filter: nothing to drop. */
static int cmd_compact(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    void *v;
    RedisModuleKey *key = flr_open_existing(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE,
                                            flr_cf_type, "ERR Cuckoo filter was not found", &v);
    if (!key) return REDISMODULE_OK;
    cf_value *c = v;
    if (c->chain && cf_chain_compact(c->chain) > 0) {
        flr_touch(c);
        c->warned_full = 0;
    }
    RedisModule_ReplicateVerbatim(ctx);
    RedisModule_CloseKey(key);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

/* SCANDUMP of a chain that holds nothing: [0, nil] at once, as RedisBloom answers (such a
 * dump restores nothing; CF.RESERVE makes the filter again). */
static int cf_dump_empty(const void *v) {
    const cf_value *c = v;
    uint64_t items = c->chain ? c->chain->items : 0, unused;
    if (c->ip) flr_inplace_totals(c->ip, &unused, &items, &unused);
    return items == 0;
}

/* ---- serialization: RDB, AOF, SCANDUMP ----------------------------------------------- */

static uint8_t *cf_serialize(const void *v, size_t *len, const char **err) {
    const cf_value *c = v;
    if (c->ip) return flr_inplace_serialize(c->ip, len, err);
    size_t cap = cf_chain_serialized_size(c->chain);
    uint8_t *buf = malloc(cap);
    if (!buf) {
        *err = "ERR out of memory";
        return NULL;
    }
    if (cf_chain_save(c->chain, buf, cap, len) != FL_OK) {
        free(buf);
        *err = "ERR could not serialize the filter";
        return NULL;
    }
    return buf;
}

static void *cf_deserialize(const uint8_t *blob, size_t len, const char **err) {
    if (flr_inplace_is_blob(blob, len)) { /* GROWTH INPLACE: its tag (inplace.c) */
        flr_inplace *ip = flr_inplace_deserialize(blob, len, FLR_INPLACE_CF, err);
        cf_value *c = ip ? cf_wrap(NULL, ip) : NULL;
        if (ip && !c) *err = "ERR out of memory";
        return c;
    }
    cf_chain *chain;
    if (cf_chain_load(blob, len, &chain) != FL_OK) {
        *err = "ERR invalid dump: the filter does not load";
        return NULL;
    }
    /* Growth from here on is bounded by this server's MAX_BYTES (the load itself is not:
     * refusing a saved value would lose it). */
    chain->max_bytes = flr_max_bytes();
    cf_value *c = cf_wrap(chain, NULL);
    if (!c) *err = "ERR out of memory";
    return c;
}

static const flr_type_ops CF_TYPE = {
    .prefix = "CF",
    .type_name = "flab-cuc1",
    .encoding_version = 1,
    .kind = FLR_CHUNK_CF,
    .type = &flr_cf_type,
    .serialize = cf_serialize,
    .deserialize = cf_deserialize,
    .mem_usage = cf_mem_usage,
    .free = cf_free,
    .log_io_failures = 1,
    .dump_empty = cf_dump_empty,
    .err_iter = "Invalid position",
    .err_create = "Couldn't create filter!",
    .err_chunk = "Couldn't load chunk!",
};

FLR_TYPE_GLUE(cf, CF_TYPE)

const char *flr_cf_kernel(void *v) {
    const cf_value *c = v;
    return c->ip ? flr_inplace_kernel(c->ip) : fl_filter_kernel(c->chain->f[0]);
}

static const flr_command CF_COMMANDS[] = {
    {"CF.RESERVE", cmd_reserve, "write deny-oom"},
    {"CF.ADD", cmd_add, "write deny-oom"},
    {"CF.ADDNX", cmd_addnx, "write deny-oom"},
    {"CF.INSERT", cmd_insert, "write deny-oom"},
    {"CF.INSERTNX", cmd_insertnx, "write deny-oom"},
    {"CF.EXISTS", cmd_exists, "readonly fast"},
    {"CF.MEXISTS", cmd_mexists, "readonly fast"},
    {"CF.COUNT", cmd_count, "readonly fast"},
    {"CF.DEL", cmd_del, "write fast"},
    {"CF.INFO", cmd_info, "readonly fast"},
    {"CF.DEBUG", cmd_debug, "readonly fast"},
    {"CF.COMPACT", cmd_compact, "write"},
    {"CF.SCANDUMP", cf_cmd_scandump, "readonly"},
    {"CF.LOADCHUNK", cf_cmd_loadchunk, "write deny-oom"},
};

int flr_cf_register(RedisModuleCtx *ctx) {
    return flr_type_register(ctx, &CF_TYPE, &cf_type_glue, CF_COMMANDS,
                             sizeof CF_COMMANDS / sizeof CF_COMMANDS[0]);
}
