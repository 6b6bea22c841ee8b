/* Helpers every command file uses (see common.h). */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* RedisBloom's defaults until the load arguments change them. */
flr_config flr_cfg = {.bf_error_rate = 0.01, .bf_initial_size = 100,
                      .cf_max_expansions = FLR_CF_MAX_EXPANSIONS_DEFAULT,
                      .max_bytes = FLR_MAX_BYTES,
                      .bf_layout_slack = FLR_BF_LAYOUT_SLACK_DEFAULT};

int flr_arg_is(RedisModuleString *arg, const char *word) {
    size_t len;
    const char *s = RedisModule_StringPtrLen(arg, &len);
    return flr_word_is(s, len, word);
}

/* flr_arg_<name>: the argument's bytes read by flr_parse_<name> (parse.c). */
#define FLR_DEFINE_ARG_PARSER(name, type)                                                  \
    int flr_arg_##name(RedisModuleString *arg, type *out) {                                \
        size_t len;                                                                        \
        const char *s = RedisModule_StringPtrLen(arg, &len);                               \
        return flr_parse_##name(s, len, out);                                              \
    }
FLR_DEFINE_ARG_PARSER(u64, uint64_t)
FLR_DEFINE_ARG_PARSER(i64, int64_t)
FLR_DEFINE_ARG_PARSER(double, double)

int flr_open(RedisModuleCtx *ctx, RedisModuleString *name, int mode, RedisModuleType *type,
             RedisModuleKey **key, void **value) {
    *key = RedisModule_OpenKey(ctx, name, mode);
    *value = NULL;
    int kt = RedisModule_KeyType(*key);
    if (kt == REDISMODULE_KEYTYPE_EMPTY) return 1;
    if (kt != REDISMODULE_KEYTYPE_MODULE || RedisModule_ModuleTypeGetType(*key) != type) {
        RedisModule_CloseKey(*key);
        *key = NULL;
        RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
        return 0;
    }
    *value = RedisModule_ModuleTypeGetValue(*key);
    return 1;
}

RedisModuleKey *flr_open_new(RedisModuleCtx *ctx, RedisModuleString *name, RedisModuleType *type,
                             const char *exists_error) {
    RedisModuleKey *key;
    void *value;
    if (!flr_open(ctx, name, REDISMODULE_READ | REDISMODULE_WRITE, type, &key, &value))
        return NULL;
    if (value) {
        RedisModule_CloseKey(key);
        RedisModule_ReplyWithError(ctx, exists_error);
        return NULL;
    }
    return key;
}

RedisModuleKey *flr_open_existing(RedisModuleCtx *ctx, RedisModuleString *name, int mode,
                                  RedisModuleType *type, const char *missing_error,
                                  void **value) {
    RedisModuleKey *key;
    if (!flr_open(ctx, name, mode, type, &key, value)) return NULL;
    if (!*value) {
        RedisModule_CloseKey(key);
        RedisModule_ReplyWithError(ctx, missing_error);
        return NULL;
    }
    return key;
}

RedisModuleKey *flr_open_or_create(RedisModuleCtx *ctx, RedisModuleString *name,
                                   RedisModuleType *type, int nocreate,
                                   void *(*create)(RedisModuleCtx *ctx, const void *config),
                                   const void *config, void **value) {
    RedisModuleKey *key;
    if (!flr_open(ctx, name, REDISMODULE_READ | REDISMODULE_WRITE, type, &key, value))
        return NULL;
    if (!*value) {
        if (nocreate) {
            RedisModule_CloseKey(key);
            RedisModule_ReplyWithError(ctx, "ERR not found");
            return NULL;
        }
        *value = create(ctx, config);
        if (!*value) {
            RedisModule_CloseKey(key);
            return NULL;
        }
        RedisModule_ModuleTypeSetValue(key, type, *value);
    }
    return key;
}

static uint64_t generations;

uint64_t flr_next_generation(void) { return ++generations; }

void *flr_value_new(size_t size) {
    flr_value_header *h = calloc(1, size);
    if (h) h->generation = flr_next_generation();
    return h;
}

int flr_reply_lookup(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, int single,
                     RedisModuleType *type, flr_lookup_fn lookup) {
    if (single ? argc != 3 : argc < 3) return RedisModule_WrongArity(ctx);
    void *value;
    RedisModuleKey *key;
    if (!flr_open(ctx, argv[1], REDISMODULE_READ, type, &key, &value)) return REDISMODULE_OK;
    flr_batch b;
    if (!flr_batch_alloc(&b, (size_t)(argc - 2))) {
        RedisModule_CloseKey(key);
        return RedisModule_ReplyWithError(ctx, "ERR out of memory");
    }
    if (value) lookup(value, argv + 2, &b);
    if (single) {
        RedisModule_ReplyWithLongLong(ctx, b.flags[0]);
    } else {
        RedisModule_ReplyWithArray(ctx, (long)b.n);
        for (size_t i = 0; i < b.n; i++) RedisModule_ReplyWithLongLong(ctx, b.flags[i]);
    }
    flr_batch_free(&b);
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

int flr_reply_status(RedisModuleCtx *ctx, fl_status st) {
    char msg[160];
    snprintf(msg, sizeof msg, "ERR %s", fl_strerror(st));
    return RedisModule_ReplyWithError(ctx, msg);
}

int flr_batch_alloc(flr_batch *b, size_t n) {
    b->n = n;
    if (n <= FLR_BATCH_INLINE) {
        b->hashes = b->inline_hashes;
        b->flags = b->inline_flags;
        memset(b->flags, 0, n);
        return 1;
    }
    b->hashes = malloc((n ? n : 1) * sizeof *b->hashes);
    b->flags = calloc(n ? n : 1, 1);
    if (!b->hashes || !b->flags) {
        flr_batch_free(b);
        return 0;
    }
    return 1;
}

void flr_batch_free(flr_batch *b) {
    if (b->hashes != b->inline_hashes) free(b->hashes);
    if (b->flags != b->inline_flags) free(b->flags);
    b->hashes = NULL;
    b->flags = NULL;
}
