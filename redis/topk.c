/*
 * TOPK.*: RedisBloom's top-k commands on filterlab's Count-Min sketch with heavy-hitter
 * candidates (include/filterlab_cms.h, src/topk.c): a sketch of `width` x `depth` counters
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
 *   - TOPK.ADD / TOPK.INCRBY cost O(k log k) per item (the candidate list is read before
 *     each update to tell which candidate an entering item expels), so they suit the small
 *     k top-k lists are made for.
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

static int list_has(const fl_cms_item *list, size_t n, const void *key, size_t len) {
    for (size_t i = 0; i < n; i++)
        if (list[i].len == len && memcmp(list[i].key, key, len) == 0) return 1;
    return 0;
}

/* Adds one item by inc and replies with the candidate it expelled, or nil. Only when the
 * list is full and the item is not in it can one leave: the keys are copied first (the
 * list's pointers die with the update), and the one missing after the update is the one
 * expelled. */
static fl_status add_and_reply(RedisModuleCtx *ctx, topk_value *t, const char *key, size_t len,
                               uint32_t inc) {
    size_t before = 0;
    fl_status st = fl_cms_top(t->cms, t->list, t->k, &before);
    if (st != FL_OK) return st;
    char *saved = NULL;
    size_t *offs = NULL;
    if (before == t->k && !list_has(t->list, before, key, len)) {
        size_t total = 0;
        for (size_t i = 0; i < before; i++) total += t->list[i].len;
        saved = malloc(total ? total : 1);
        offs = malloc((before + 1) * sizeof *offs);
        if (!saved || !offs) {
            free(saved), free(offs);
            return FL_ERR_NO_MEMORY;
        }
        offs[0] = 0;
        for (size_t i = 0; i < before; i++) {
            memcpy(saved + offs[i], t->list[i].key, t->list[i].len);
            offs[i + 1] = offs[i] + t->list[i].len;
        }
    }
    st = fl_cms_add_bytes(t->cms, key, len, inc);
    if (st == FL_OK && saved) {
        size_t after = 0;
        st = fl_cms_top(t->cms, t->list, t->k, &after);
        if (st == FL_OK && list_has(t->list, after, key, len)) {
            /* The item entered: report the one that left (scanned from the smallest). */
            for (size_t i = before; i-- > 0;) {
                if (!list_has(t->list, after, saved + offs[i], offs[i + 1] - offs[i])) {
                    RedisModule_ReplyWithStringBuffer(ctx, saved + offs[i],
                                                      offs[i + 1] - offs[i]);
                    free(saved), free(offs);
                    return FL_OK;
                }
            }
        }
    }
    free(saved), free(offs);
    if (st == FL_OK) RedisModule_ReplyWithNull(ctx);
    return st;
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
    size_t n = (size_t)(argc - 2), listed = 0;
    uint64_t *hashes = malloc(n * sizeof *hashes);
    uint32_t *est = malloc(n * sizeof *est);
    if (!hashes || !est || (!count && fl_cms_top(t->cms, t->list, t->k, &listed) != FL_OK)) {
        free(hashes), free(est);
        RedisModule_CloseKey(key);
        return RedisModule_ReplyWithError(ctx, "ERR out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const char *s = RedisModule_StringPtrLen(argv[2 + i], &len);
        hashes[i] = fl_cms_hash_bytes(t->cms, s, len);
        est[i] = count ? 0 : (uint32_t)list_has(t->list, listed, s, len);
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
