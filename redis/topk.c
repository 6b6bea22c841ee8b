/*
 * TOPK.*: RedisBloom's top-k commands on filterlab's Count-Min sketch with heavy-hitter
 * candidates (include/filterlab_cms.h, src/cms/topk.c): a sketch of `width` x `depth` counters
 * and a min-heap of the k items with the largest estimates ("sketch plus heap", Cormode and
 * Muthukrishnan 2005, section 4.1).
 *
 * The sketch uses conservative update (Estan and Varghese 2002: an update raises each of
 * the item's counters only up to its new estimate, old estimate + increment), which keeps
 * every estimate at or above the true count while adding far less of the other items'
 * counts to it than plain Count-Min: with plain updates a sketch of RedisBloom's default
 * shapes (width 8 to 1000 for a stream of thousands of items) gives estimates dominated by
 * collisions, and heavy items drop out of the list. Sketches saved before keep plain
 * updates (the library saves the update rule).
 *
 * Differences from RedisBloom, which uses HeavyKeeper (Gong et al., USENIX ATC 2018):
 *   - counts are Count-Min estimates: never below an item's true count (HeavyKeeper's can
 *     be below it, as its counters decay); `decay` is accepted and reported but unused;
 *   - TOPK.ADD / TOPK.INCRBY report as expelled the candidate that left the list when the
 *     item entered it (the one with the smallest estimate then), or nil;
 *   - TOPK.LIST orders by estimate, ties by shorter item, then bytes;
 *   - TOPK.ADD / TOPK.INCRBY cost O(log k) per item (a hash index finds the item's
 *     candidate, and the min-heap gives the one an entering item expels), TOPK.QUERY O(1);
 *     TOPK.LIST re-reads and sorts the k estimates.
 * TOPK.SCANDUMP / TOPK.LOADCHUNK (not in RedisBloom) copy a sketch in chunks; the AOF
 * rewrite emits TOPK.LOADCHUNK.
 */
#include <stdlib.h>
#include <string.h>

#include "chunk.h"
#include "common.h"
#include "le.h"

#define TOPK_WIDTH_DEFAULT 8 /* RedisBloom's defaults */
#define TOPK_DEPTH_DEFAULT 7
#define TOPK_DECAY_DEFAULT 0.9

typedef struct topk_value {
    flr_value_header h; /* first: dump.c and flr_value_new read it */
    fl_cms *cms;
    uint32_t k;
    double decay;
    fl_cms_item *list; /* k entries of scratch for fl_cms_top */
} topk_value;

RedisModuleType *flr_topk_type;

static void topk_free(void *v) {
    topk_value *t = v;
    if (!t) return;
    fl_cms_free(t->cms);
    free(t->list);
    free(t);
}

static topk_value *topk_wrap(fl_cms *cms, double decay) {
    fl_cms_info in;
    fl_cms_info_get(cms, &in);
    topk_value *t = flr_value_new(sizeof *t);
    if (t) t->list = malloc((in.topk ? in.topk : 1) * sizeof *t->list);
    if (!t || !t->list) {
        free(t);
        fl_cms_free(cms);
        return NULL;
    }
    t->cms = cms;
    t->k = in.topk;
    t->decay = decay;
    return t;
}

/* TOPK.RESERVE key topk [width depth decay] */
static int cmd_reserve(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3 && argc != 6) return RedisModule_WrongArity(ctx);
    uint64_t k, w = TOPK_WIDTH_DEFAULT, d = TOPK_DEPTH_DEFAULT;
    double decay = TOPK_DECAY_DEFAULT;
    if (!flr_arg_u64(argv[2], &k) || k == 0 || k > UINT32_MAX)
        return RedisModule_ReplyWithError(ctx, "TopK: invalid k");
    if (k > FL_CMS_TOPK_MAX)
        return RedisModule_ReplyWithError(ctx, "TopK: invalid k (at most 65536)");
    if (argc == 6) {
        if (!flr_arg_u64(argv[3], &w) || w == 0 || w > UINT32_MAX)
            return RedisModule_ReplyWithError(ctx, "TopK: invalid width");
        if (!flr_arg_u64(argv[4], &d) || d == 0 || d > UINT32_MAX)
            return RedisModule_ReplyWithError(ctx, "TopK: invalid depth");
        if (!flr_arg_double(argv[5], &decay) || !(decay > 0 && decay <= 1))
            return RedisModule_ReplyWithError(ctx,
                                              "TopK: invalid decay value. must be '<= 1' & '> 0'");
    }
    /* Counters beyond the per-value cap (MAX_BYTES): RedisBloom's refusal of a sketch it
     * cannot allocate. Then filterlab's row bound for a shape that would fit. */
    if (w > flr_max_bytes() / 4 / d)
        return RedisModule_ReplyWithError(
            ctx, "TopK: Insufficient memory to create topk data structure");
    if (d > FL_CMS_DEPTH_MAX)
        return RedisModule_ReplyWithError(ctx, "TopK: invalid depth (at most 32 rows)");
    RedisModuleKey *key = flr_open_new(ctx, argv[1], flr_topk_type, "TopK: key already exists");
    if (!key) return REDISMODULE_OK;
    fl_cms_config cfg = {.width = (uint32_t)w, .depth = (uint32_t)d, .topk = (uint32_t)k,
                         .conservative = 1};
    fl_cms *cms;
    fl_status st = fl_cms_create(&cfg, &cms);
    topk_value *t = st == FL_OK ? topk_wrap(cms, decay) : NULL;
    if (!t) {
        RedisModule_CloseKey(key);
        return st == FL_OK ? RedisModule_ReplyWithError(ctx, "ERR out of memory")
                           : flr_reply_status(ctx, st);
    }
    RedisModule_ModuleTypeSetValue(key, flr_topk_type, t);
    RedisModule_CloseKey(key);
    RedisModule_ReplicateVerbatim(ctx);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

static RedisModuleKey *open_existing(RedisModuleCtx *ctx, RedisModuleString *name, int mode,
                                     topk_value **out) {
    void *v;
    RedisModuleKey *key =
        flr_open_existing(ctx, name, mode, flr_topk_type, "TopK: key does not exist", &v);
    *out = v;
    return key;
}

/* The key an add expelled, copied there by the library until the reply copies it on. One
 * buffer for the module: commands run one at a time on the server's main thread. */
static char expelled[FL_CMS_KEY_MAX];

/* Adds one item by inc and replies with the candidate it expelled (the one of the smallest
 * stored estimate, replaced when the item entered a full list), or nil: O(1) expected for
 * the key's candidate plus an O(log k) heap step, whatever k is. */
static fl_status add_and_reply(RedisModuleCtx *ctx, topk_value *t, const char *key, size_t len,
                               uint32_t inc) {
    size_t out_len;
    fl_status st = fl_cms_add_bytes_expel(t->cms, key, len, inc, expelled, &out_len);
    if (st != FL_OK) return st;
    if (out_len == SIZE_MAX)
        RedisModule_ReplyWithNull(ctx);
    else
        RedisModule_ReplyWithStringBuffer(ctx, expelled, out_len);
    return FL_OK;
}

#define TOPK_INCR_MAX 100000 /* RedisBloom's bound on one increment */
#define TOPK_BAD_INCR \
    "TopK: increment must be an integer greater or equal to 0 and smaller or equal to 100,000"

/* TOPK.ADD key item [item ...] / TOPK.INCRBY key item increment [item increment ...]:
 * per item the expelled item or nil; as in RedisBloom, an increment that is not an integer
 * from 0 to 100,000 gets an error in its item's place (the item is not added) and the
 * other items are added. */
static int add_common(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, int with_inc) {
    if (argc < 3 || (with_inc && argc % 2 != 0)) return RedisModule_WrongArity(ctx);
    size_t step = with_inc ? 2 : 1, n = (size_t)(argc - 2) / step;
    topk_value *t;
    RedisModuleKey *key = open_existing(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE, &t);
    if (!key) return REDISMODULE_OK;
    RedisModule_ReplyWithArray(ctx, (long)n);
    for (size_t i = 0; i < n; i++) {
        uint64_t inc = 1;
        if (with_inc && (!flr_arg_u64(argv[3 + 2 * i], &inc) || inc > TOPK_INCR_MAX)) {
            RedisModule_ReplyWithError(ctx, TOPK_BAD_INCR);
            continue;
        }
        size_t len;
        const char *s = RedisModule_StringPtrLen(argv[2 + step * i], &len);
        fl_status st = add_and_reply(ctx, t, s, len, (uint32_t)inc);
        if (st != FL_OK) flr_reply_status(ctx, st);
    }
    flr_touch(t);
    RedisModule_ReplicateVerbatim(ctx);
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

static int cmd_add(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    return add_common(ctx, argv, argc, 0);
}
static int cmd_incrby(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    return add_common(ctx, argv, argc, 1);
}

/* TOPK.QUERY key item [item ...] (1 if in the list) / TOPK.COUNT key item [item ...]
 * (estimates, hashed then one batch query). */
static int lookup_common(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, int count) {
    if (argc < 3) return RedisModule_WrongArity(ctx);
    topk_value *t;
    RedisModuleKey *key = open_existing(ctx, argv[1], REDISMODULE_READ, &t);
    if (!key) return REDISMODULE_OK;
    size_t n = (size_t)(argc - 2);
    uint64_t *hashes = malloc(n * sizeof *hashes);
    uint32_t *est = malloc(n * sizeof *est);
    if (!hashes || !est) {
        free(hashes), free(est);
        RedisModule_CloseKey(key);
        return RedisModule_ReplyWithError(ctx, "ERR out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const char *s = RedisModule_StringPtrLen(argv[2 + i], &len);
        if (count)
            hashes[i] = fl_cms_hash_bytes(t->cms, s, len);
        else
            est[i] = (uint32_t)fl_cms_is_candidate(t->cms, s, len);
    }
    if (count) fl_cms_query_hashes(t->cms, hashes, n, est);
    RedisModule_ReplyWithArray(ctx, (long)n);
    for (size_t i = 0; i < n; i++) RedisModule_ReplyWithLongLong(ctx, est[i]);
    free(hashes), free(est);
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

static int cmd_query(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    return lookup_common(ctx, argv, argc, 0);
}
static int cmd_count(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    return lookup_common(ctx, argv, argc, 1);
}

/* TOPK.LIST key [WITHCOUNT] */
static int cmd_list(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2 && argc != 3) return RedisModule_WrongArity(ctx);
    int withcount = argc == 3;
    if (withcount && !flr_arg_is(argv[2], "WITHCOUNT"))
        return RedisModule_ReplyWithError(ctx, "ERR unknown argument received");
    topk_value *t;
    RedisModuleKey *key = open_existing(ctx, argv[1], REDISMODULE_READ, &t);
    if (!key) return REDISMODULE_OK;
    size_t n = 0;
    fl_cms_top(t->cms, t->list, t->k, &n);
    RedisModule_ReplyWithArray(ctx, (long)(withcount ? 2 * n : n));
    for (size_t i = 0; i < n; i++) {
        RedisModule_ReplyWithStringBuffer(ctx, t->list[i].key, t->list[i].len);
        if (withcount) RedisModule_ReplyWithLongLong(ctx, (long long)t->list[i].estimate);
    }
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* TOPK.INFO key: k, width, depth, decay: exactly RedisBloom's fields (clients read the
 * decay as the last one); the stream's total is in FILTERLAB.INFO key. */
static int cmd_info(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    topk_value *t;
    RedisModuleKey *key = open_existing(ctx, argv[1], REDISMODULE_READ, &t);
    if (!key) return REDISMODULE_OK;
    fl_cms_info in;
    fl_cms_info_get(t->cms, &in);
    RedisModule_ReplyWithArray(ctx, 8);
    RedisModule_ReplyWithSimpleString(ctx, "k");
    RedisModule_ReplyWithLongLong(ctx, t->k);
    RedisModule_ReplyWithSimpleString(ctx, "width");
    RedisModule_ReplyWithLongLong(ctx, in.width);
    RedisModule_ReplyWithSimpleString(ctx, "depth");
    RedisModule_ReplyWithLongLong(ctx, in.depth);
    RedisModule_ReplyWithSimpleString(ctx, "decay");
    RedisModule_ReplyWithDouble(ctx, t->decay);
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* FILTERLAB.INFO's fields for a top-k sketch: the stream's total, whether updates are
 * conservative (see above), and the candidates tracked. */
int flr_topk_info_extra(RedisModuleCtx *ctx, void *v) {
    const topk_value *t = v;
    fl_cms_info in;
    fl_cms_info_get(t->cms, &in);
    RedisModule_ReplyWithSimpleString(ctx, "Count");
    RedisModule_ReplyWithLongLong(ctx, in.total > INT64_MAX ? INT64_MAX : (long long)in.total);
    RedisModule_ReplyWithSimpleString(ctx, "Conservative update");
    RedisModule_ReplyWithLongLong(ctx, in.conservative ? 1 : 0);
    RedisModule_ReplyWithSimpleString(ctx, "Candidates");
    RedisModule_ReplyWithLongLong(ctx, (long long)in.candidates);
    return 6;
}

static size_t topk_mem_usage(const void *v) {
    const topk_value *t = v;
    fl_cms_info in;
    fl_cms_info_get(t->cms, &in);
    /* Counters, the candidates (heap, index and key copies: about 64 bytes each plus the
     * key), and the list scratch. */
    return sizeof *t + in.bytes + (size_t)t->k * (64 + sizeof *t->list) + 256;
}

/* ---- serialization: the decay's 8 bytes, then the library's sketch -------------------- */

static uint8_t *topk_serialize(const void *v, size_t *len, const char **err) {
    const topk_value *t = v;
    size_t cap = 8 + fl_cms_serialized_size(t->cms), w;
    uint8_t *buf = malloc(cap);
    if (!buf || fl_cms_save_mem(t->cms, buf + 8, cap - 8, &w) != FL_OK) {
        free(buf);
        *err = "ERR could not serialize the sketch";
        return NULL;
    }
    uint64_t bits;
    memcpy(&bits, &t->decay, 8);
    flr_put64(buf, bits);
    *len = 8 + w;
    return buf;
}

static void *topk_deserialize(const uint8_t *blob, size_t len, const char **err) {
    *err = "ERR invalid dump: the sketch does not load";
    if (len < 8) return NULL;
    uint64_t bits = flr_get64(blob);
    double decay;
    memcpy(&decay, &bits, 8);
    if (!(decay > 0 && decay <= 1)) return NULL;
    fl_cms *cms;
    if (fl_cms_load_mem(blob + 8, len - 8, flr_load_max_bytes(), &cms) != FL_OK) return NULL;
    fl_cms_info in;
    fl_cms_info_get(cms, &in);
    if (in.topk == 0) {
        fl_cms_free(cms);
        return NULL;
    }
    topk_value *t = topk_wrap(cms, decay);
    if (!t) *err = "ERR out of memory";
    return t;
}

static const flr_type_ops TOPK_TYPE = {
    .prefix = "TOPK",
    .type_name = "flab-tpk1",
    .encoding_version = 1,
    .kind = FLR_CHUNK_TOPK,
    .type = &flr_topk_type,
    .serialize = topk_serialize,
    .deserialize = topk_deserialize,
    .mem_usage = topk_mem_usage,
    .free = topk_free,
    .log_io_failures = 0,
};

FLR_TYPE_GLUE(topk, TOPK_TYPE)

const char *flr_topk_kernel(void *v) { return fl_cms_kernel(((topk_value *)v)->cms); }

static const flr_command TOPK_COMMANDS[] = {
    {"TOPK.RESERVE", cmd_reserve, "write deny-oom"},
    {"TOPK.ADD", cmd_add, "write deny-oom"},
    {"TOPK.INCRBY", cmd_incrby, "write deny-oom"},
    {"TOPK.QUERY", cmd_query, "readonly fast"},
    {"TOPK.COUNT", cmd_count, "readonly fast"},
    {"TOPK.LIST", cmd_list, "readonly"},
    {"TOPK.INFO", cmd_info, "readonly fast"},
    {"TOPK.SCANDUMP", topk_cmd_scandump, "readonly"},
    {"TOPK.LOADCHUNK", topk_cmd_loadchunk, "write deny-oom"},
};

int flr_topk_register(RedisModuleCtx *ctx) {
    return flr_type_register(ctx, &TOPK_TYPE, &topk_type_glue, TOPK_COMMANDS,
                             sizeof TOPK_COMMANDS / sizeof TOPK_COMMANDS[0]);
}
