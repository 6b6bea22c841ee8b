/*
 * CMS.*: RedisBloom's Count-Min sketch commands on filterlab's Count-Min sketch
 * (include/filterlab_cms.h).
 *
 * Differences from RedisBloom:
 *   - CMS.INITBYPROB error probability sizes the sketch as the paper and the library do
 *     (fl_cms_dims: w = ceil(e / error), d = ceil(ln(1 / probability)); Cormode and
 *     Muthukrishnan 2005, Theorem 1), where RedisBloom takes w = ceil(2 / error) and
 *     d = ceil(log2(1 / probability)): the same arguments give other dimensions, each with
 *     the guarantee its formula states.
 *   - none in CMS.MERGE and CMS.INCRBY: as in RedisBloom, MERGE's weights are signed
 *     64-bit integers and a merge whose counters or count would leave [0, 2^32 - 1] (or
 *     overflow on the way) is refused whole ("CMS: MERGE overflow"); an INCRBY that takes
 *     a counter past 2^32 - 1 saturates it and answers "CMS: INCRBY overflow" in that
 *     item's place.
 *   - CMS.SCANDUMP / CMS.LOADCHUNK (not in RedisBloom) copy a sketch in chunks; the AOF
 *     rewrite emits CMS.LOADCHUNK.
 */
#include <stdlib.h>
#include <string.h>

#include "chunk.h"
#include "common.h"

typedef struct cms_value {
    flr_value_header h; /* first: dump.c and flr_value_new read it */
    fl_cms *cms;
} cms_value;

RedisModuleType *flr_cms_type;

static void cms_free(void *v) {
    cms_value *c = v;
    if (!c) return;
    fl_cms_free(c->cms);
    free(c);
}

static cms_value *cms_wrap(fl_cms *cms) {
    cms_value *c = flr_value_new(sizeof *c);
    if (c) c->cms = cms;
    else fl_cms_free(cms);
    return c;
}

#define CMS_NO_MEMORY "CMS: Insufficient memory to create the key" /* RedisBloom's text */

/* A width x depth sketch's counters fit the module's per-value cap (MAX_BYTES); else the
 * refusal RedisBloom gives for a sketch it cannot allocate. Checked before the key opens. */
static int dims_fit(uint64_t width, uint64_t depth) {
    return width <= flr_max_bytes() / 4 / depth;
}

static int init_with(RedisModuleCtx *ctx, RedisModuleString *name, uint32_t width,
                     uint32_t depth) {
    if (!dims_fit(width, depth)) return RedisModule_ReplyWithError(ctx, CMS_NO_MEMORY);
    RedisModuleKey *key = flr_open_new(ctx, name, flr_cms_type, "CMS: key already exists");
    if (!key) return REDISMODULE_OK;
    fl_cms_config cfg = {.width = width, .depth = depth};
    fl_cms *cms;
    fl_status st = fl_cms_create(&cfg, &cms);
    cms_value *c = st == FL_OK ? cms_wrap(cms) : NULL;
    if (!c) {
        RedisModule_CloseKey(key);
        return st == FL_OK ? RedisModule_ReplyWithError(ctx, "ERR out of memory")
                           : flr_reply_status(ctx, st);
    }
    RedisModule_ModuleTypeSetValue(key, flr_cms_type, c);
    RedisModule_CloseKey(key);
    RedisModule_ReplicateVerbatim(ctx);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

/* CMS.INITBYDIM key width depth */
static int cmd_initbydim(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 4) return RedisModule_WrongArity(ctx);
    uint64_t w, d;
    if (!flr_arg_u64(argv[2], &w) || w == 0)
        return RedisModule_ReplyWithError(ctx, "CMS: invalid width");
    if (!flr_arg_u64(argv[3], &d) || d == 0)
        return RedisModule_ReplyWithError(ctx, "CMS: invalid depth");
    /* Too many counters for the cap first (RedisBloom's refusal of any width x depth it
     * cannot allocate), then filterlab's own bounds on a shape that would fit. */
    if (!dims_fit(w, d)) return RedisModule_ReplyWithError(ctx, CMS_NO_MEMORY);
    if (w > UINT32_MAX) return RedisModule_ReplyWithError(ctx, "CMS: invalid width");
    if (d > FL_CMS_DEPTH_MAX)
        return RedisModule_ReplyWithError(ctx, "CMS: invalid depth (at most 32 rows)");
    return init_with(ctx, argv[1], (uint32_t)w, (uint32_t)d);
}

/* CMS.INITBYPROB key error probability */
static int cmd_initbyprob(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 4) return RedisModule_WrongArity(ctx);
    double error, prob;
    if (!flr_arg_double(argv[2], &error) || !(error > 0 && error < 1))
        return RedisModule_ReplyWithError(ctx, "CMS: invalid overestimation value");
    if (!flr_arg_double(argv[3], &prob) || !(prob > 0 && prob < 1))
        return RedisModule_ReplyWithError(ctx, "CMS: invalid prob value");
    uint32_t w, d;
    fl_status st = fl_cms_dims(error, prob, &w, &d);
    if (st != FL_OK) return flr_reply_status(ctx, st);
    return init_with(ctx, argv[1], w, d);
}

/* An existing sketch; NULL (reply sent) if missing or of another type. */
static RedisModuleKey *open_existing(RedisModuleCtx *ctx, RedisModuleString *name, int mode,
                                     cms_value **out) {
    void *v;
    RedisModuleKey *key =
        flr_open_existing(ctx, name, mode, flr_cms_type, "CMS: key does not exist", &v);
    *out = v;
    return key;
}

/* Replies with the estimates of items[0..n): hashed, then one batch query. */
/* saturated: the reply of an estimate at 2^32 - 1, or NULL to reply it as a number. */
static int reply_estimates(RedisModuleCtx *ctx, const fl_cms *cms, RedisModuleString **items,
                           size_t step, size_t n, const char *saturated) {
    if (n == 0) return RedisModule_ReplyWithArray(ctx, 0);
    uint64_t *hashes = malloc(n * sizeof *hashes);
    uint32_t *est = malloc(n * sizeof *est);
    if (!hashes || !est) {
        free(hashes);
        free(est);
        return RedisModule_ReplyWithError(ctx, "ERR out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const char *s = RedisModule_StringPtrLen(items[i * step], &len);
        hashes[i] = fl_cms_hash_bytes(cms, s, len);
    }
    fl_cms_query_hashes(cms, hashes, n, est);
    RedisModule_ReplyWithArray(ctx, (long)n);
    for (size_t i = 0; i < n; i++) {
        if (saturated && est[i] == UINT32_MAX) RedisModule_ReplyWithError(ctx, saturated);
        else RedisModule_ReplyWithLongLong(ctx, est[i]);
    }
    free(hashes);
    free(est);
    return REDISMODULE_OK;
}

/* CMS.INCRBY key item increment [item increment ...]: the items' estimates after; an item
 * whose estimate reached 2^32 - 1 (a counter saturated: its true count may be larger) gets
 * RedisBloom's "CMS: INCRBY overflow" in its place. An increment above 2^32 - 1 saturates
 * the counters it touches the same way. */
static int cmd_incrby(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 4 || argc % 2 != 0) return RedisModule_WrongArity(ctx);
    size_t n = (size_t)(argc - 2) / 2;
    uint32_t *incs = malloc(n * sizeof *incs);
    const void **keys = malloc(n * sizeof *keys);
    size_t *lens = malloc(n * sizeof *lens);
    if (!incs || !keys || !lens) {
        free(incs), free(keys), free(lens);
        return RedisModule_ReplyWithError(ctx, "ERR out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t inc;
        int64_t signed_inc;
        if (!flr_arg_u64(argv[3 + 2 * i], &inc)) {
            int negative = flr_arg_i64(argv[3 + 2 * i], &signed_inc) && signed_inc < 0;
            free(incs), free(keys), free(lens);
            return RedisModule_ReplyWithError(ctx, negative ? "CMS: Number cannot be negative"
                                                            : "CMS: Cannot parse number");
        }
        incs[i] = inc > UINT32_MAX ? UINT32_MAX : (uint32_t)inc;
        keys[i] = RedisModule_StringPtrLen(argv[2 + 2 * i], &lens[i]);
    }
    cms_value *c;
    RedisModuleKey *key = open_existing(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE, &c);
    if (key) {
        fl_status st = fl_cms_add_strings(c->cms, keys, lens, n, incs);
        if (st != FL_OK) flr_reply_status(ctx, st);
        else reply_estimates(ctx, c->cms, argv + 2, 2, n, "CMS: INCRBY overflow");
        flr_touch(c);
        RedisModule_ReplicateVerbatim(ctx);
        RedisModule_CloseKey(key);
    }
    free(incs), free(keys), free(lens);
    return REDISMODULE_OK;
}

/* CMS.QUERY key item [item ...] */
static int cmd_query(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 3) return RedisModule_WrongArity(ctx);
    cms_value *c;
    RedisModuleKey *key = open_existing(ctx, argv[1], REDISMODULE_READ, &c);
    if (!key) return REDISMODULE_OK;
    reply_estimates(ctx, c->cms, argv + 2, 1, (size_t)(argc - 2), NULL);
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* CMS.MERGE destination numKeys source [source ...] [WEIGHTS weight [weight ...]]: the
 * destination (which must exist, with the sources' dimensions) becomes the weighted sum. */
static int cmd_merge(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    uint64_t nkeys;
    int nkeys_ok = argc >= 4 && flr_arg_u64(argv[2], &nkeys) && nkeys > 0 &&
                   nkeys <= (uint64_t)argc - 3;
    /* getkeys-api: the destination and every source are keys (Redis Cluster then refuses
     * sources in other slots with CROSSSLOT, and ACLs see them). */
    if (RedisModule_IsKeysPositionRequest(ctx)) {
        if (argc >= 2) RedisModule_KeyAtPos(ctx, 1);
        for (uint64_t i = 0; nkeys_ok && i < nkeys; i++) RedisModule_KeyAtPos(ctx, 3 + (int)i);
        return REDISMODULE_OK;
    }
    if (argc < 4) return RedisModule_WrongArity(ctx);
    if (!nkeys_ok) return RedisModule_ReplyWithError(ctx, "CMS: invalid numkeys");
    int rest = argc - 3 - (int)nkeys;
    if (rest != 0 && (rest != (int)nkeys + 1 || !flr_arg_is(argv[3 + nkeys], "WEIGHTS")))
        return RedisModule_ReplyWithError(ctx, "CMS: wrong number of keys/weights");
    int64_t *weights = calloc(nkeys, sizeof *weights);
    const fl_cms **src = calloc(nkeys, sizeof *src);
    RedisModuleKey **keys = calloc(nkeys, sizeof *keys);
    if (!weights || !src || !keys) {
        free(weights), free(src), free(keys);
        return RedisModule_ReplyWithError(ctx, "ERR out of memory");
    }
    int replied = 0;
    for (uint64_t i = 0; i < nkeys; i++) {
        int64_t w = 1;
        if (rest && !flr_arg_i64(argv[4 + nkeys + i], &w)) {
            RedisModule_ReplyWithError(ctx, "CMS: invalid weight value");
            replied = 1;
            break;
        }
        weights[i] = w;
    }
    cms_value *dst = NULL;
    RedisModuleKey *dkey = NULL;
    if (!replied) {
        dkey = open_existing(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE, &dst);
        replied = dkey == NULL;
    }
    fl_cms_info dinfo;
    if (!replied) fl_cms_info_get(dst->cms, &dinfo);
    for (uint64_t i = 0; i < nkeys && !replied; i++) {
        cms_value *s;
        keys[i] = open_existing(ctx, argv[3 + i], REDISMODULE_READ, &s);
        if (!keys[i]) {
            replied = 1;
            break;
        }
        src[i] = s->cms;
        fl_cms_info si;
        fl_cms_info_get(s->cms, &si);
        if (si.width != dinfo.width || si.depth != dinfo.depth || si.seed != dinfo.seed) {
            RedisModule_ReplyWithError(ctx, "CMS: width/depth is not equal");
            replied = 1;
        }
    }
    if (!replied) {
        /* The library checks every counter before it writes one: a refused merge leaves
         * the destination as it was (a source may be the destination itself). */
        fl_status st = fl_cms_merge_weighted(dst->cms, src, weights, (size_t)nkeys);
        if (st == FL_ERR_TOO_LARGE) {
            RedisModule_ReplyWithError(ctx, "CMS: MERGE overflow");
        } else if (st != FL_OK) {
            flr_reply_status(ctx, st);
        } else {
            flr_touch(dst);
            RedisModule_ReplicateVerbatim(ctx);
            RedisModule_ReplyWithSimpleString(ctx, "OK");
        }
    }
    for (uint64_t i = 0; i < nkeys; i++)
        if (keys[i]) RedisModule_CloseKey(keys[i]);
    if (dkey) RedisModule_CloseKey(dkey);
    free(weights), free(src), free(keys);
    return REDISMODULE_OK;
}

/* CMS.INFO key: width, depth, count (N), exactly RedisBloom's fields (clients read them by
 * position); filterlab's bounds are in FILTERLAB.INFO key. */
static int cmd_info(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    cms_value *c;
    RedisModuleKey *key = open_existing(ctx, argv[1], REDISMODULE_READ, &c);
    if (!key) return REDISMODULE_OK;
    fl_cms_info in;
    fl_cms_info_get(c->cms, &in);
    RedisModule_ReplyWithArray(ctx, 6);
    RedisModule_ReplyWithSimpleString(ctx, "width");
    RedisModule_ReplyWithLongLong(ctx, in.width);
    RedisModule_ReplyWithSimpleString(ctx, "depth");
    RedisModule_ReplyWithLongLong(ctx, in.depth);
    RedisModule_ReplyWithSimpleString(ctx, "count");
    RedisModule_ReplyWithLongLong(ctx, in.total > INT64_MAX ? INT64_MAX : (long long)in.total);
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* FILTERLAB.INFO's fields for a sketch: the bounds its shape gives and its kernel. */
int flr_cms_info_extra(RedisModuleCtx *ctx, void *v) {
    cms_value *c = v;
    fl_cms_info in;
    fl_cms_info_get(c->cms, &in);
    RedisModule_ReplyWithSimpleString(ctx, "Epsilon");
    RedisModule_ReplyWithDouble(ctx, in.epsilon);
    RedisModule_ReplyWithSimpleString(ctx, "Delta");
    RedisModule_ReplyWithDouble(ctx, in.delta);
    RedisModule_ReplyWithSimpleString(ctx, "Saturated counters");
    RedisModule_ReplyWithLongLong(ctx, (long long)in.saturated);
    return 6;
}

static size_t cms_mem_usage(const void *v) {
    const cms_value *c = v;
    fl_cms_info in;
    fl_cms_info_get(c->cms, &in);
    return sizeof *c + in.bytes + 256;
}

/* ---- serialization --------------------------------------------------------------------- */

static uint8_t *cms_serialize(const void *v, size_t *len, const char **err) {
    const cms_value *c = v;
    size_t cap = fl_cms_serialized_size(c->cms);
    uint8_t *buf = malloc(cap ? cap : 1);
    if (!buf || fl_cms_save_mem(c->cms, buf, cap, len) != FL_OK) {
        free(buf);
        *err = "ERR could not serialize the sketch";
        return NULL;
    }
    return buf;
}

static void *cms_deserialize(const uint8_t *blob, size_t len, const char **err) {
    fl_cms *cms;
    if (fl_cms_load_mem(blob, len, flr_load_max_bytes(), &cms) != FL_OK) {
        *err = "ERR invalid dump: the sketch does not load";
        return NULL;
    }
    fl_cms_info in;
    fl_cms_info_get(cms, &in);
    if (in.topk != 0) { /* a top-k sketch is TOPK's value, not a CMS */
        fl_cms_free(cms);
        *err = "ERR invalid dump: a top-k sketch";
        return NULL;
    }
    cms_value *c = cms_wrap(cms);
    if (!c) *err = "ERR out of memory";
    return c;
}

static const flr_type_ops CMS_TYPE = {
    .prefix = "CMS",
    .type_name = "flab-cms1",
    .encoding_version = 1,
    .kind = FLR_CHUNK_CMS,
    .type = &flr_cms_type,
    .serialize = cms_serialize,
    .deserialize = cms_deserialize,
    .mem_usage = cms_mem_usage,
    .free = cms_free,
    .log_io_failures = 0,
};

FLR_TYPE_GLUE(cms, CMS_TYPE)

const char *flr_cms_kernel(void *v) { return fl_cms_kernel(((cms_value *)v)->cms); }

static const flr_command CMS_COMMANDS[] = {
    {"CMS.INITBYDIM", cmd_initbydim, "write deny-oom"},
    {"CMS.INITBYPROB", cmd_initbyprob, "write deny-oom"},
    {"CMS.INCRBY", cmd_incrby, "write deny-oom"},
    {"CMS.QUERY", cmd_query, "readonly fast"},
    {"CMS.MERGE", cmd_merge, "write deny-oom getkeys-api"},
    {"CMS.INFO", cmd_info, "readonly fast"},
    {"CMS.SCANDUMP", cms_cmd_scandump, "readonly"},
    {"CMS.LOADCHUNK", cms_cmd_loadchunk, "write deny-oom"},
};

int flr_cms_register(RedisModuleCtx *ctx) {
    return flr_type_register(ctx, &CMS_TYPE, &cms_type_glue, CMS_COMMANDS,
                             sizeof CMS_COMMANDS / sizeof CMS_COMMANDS[0]);
}
