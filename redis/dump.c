/*
 * SCANDUMP and LOADCHUNK for any type that serializes to one blob (chunk format: chunk.h).
 *
 * SCANDUMP key iter: returns chunk number `iter` (0 first) of the value's serialization and
 * the cursor iter + 1; past the end it returns [0, ""] (RedisBloom's end marker). The
 * serialization of the value last dumped is kept while its generation (common.h) is
 * unchanged, so a dump of n chunks serializes once, not n times; it is dropped when a dump
 * reaches its end. A value modified during a dump is serialized anew: its later chunks
 * belong to another blob, and the loader refuses them (their blob hashes differ).
 *
 * LOADCHUNK key iter data: chunks must come in SCANDUMP order. A load in progress is kept
 * beside the keyspace, not in it, per (database, key, type): the key is created or replaced
 * only when the last chunk arrives and the whole blob passes its hash and the library's
 * loader. A refused chunk changes nothing (the load in progress stays where it was, so the
 * client may resend a good copy). Replicas and the AOF see the same LOADCHUNK stream and
 * assemble the same blob; a load in progress is not part of an RDB snapshot (a snapshot
 * taken mid-load has the key as it was before the load).
 */
#include <stdlib.h>
#include <string.h>

#include "chunk.h"
#include "common.h"

#define PENDING_MAX 16 /* loads in progress at once; the oldest is dropped beyond */

typedef struct pending_load {
    int used, db, kind;
    uint64_t stamp;
    char *key;
    size_t key_len;
    flr_assembly a;
} pending_load;

static pending_load pending[PENDING_MAX];
static uint64_t pending_clock;

/* The serialization SCANDUMP made last (see above). */
static struct {
    uint64_t generation; /* 0: empty */
    int kind;
    uint8_t *blob;
    size_t len;
    uint64_t hash;
} dumped;

static void drop_dumped(void) {
    free(dumped.blob);
    memset(&dumped, 0, sizeof dumped);
}

static pending_load *find_pending(int db, int kind, const char *key, size_t len) {
    for (int i = 0; i < PENDING_MAX; i++) {
        pending_load *p = &pending[i];
        if (p->used && p->db == db && p->kind == kind && p->key_len == len &&
            memcmp(p->key, key, len) == 0)
            return p;
    }
    return NULL;
}

static void drop_pending(pending_load *p) {
    flr_assembly_reset(&p->a);
    free(p->key);
    memset(p, 0, sizeof *p);
}

/* A free slot, or the least recently fed load's. */
static pending_load *claim_pending(int db, int kind, const char *key, size_t len) {
    pending_load *victim = &pending[0];
    for (int i = 0; i < PENDING_MAX; i++) {
        if (!pending[i].used) {
            victim = &pending[i];
            break;
        }
        if (pending[i].stamp < victim->stamp) victim = &pending[i];
    }
    char *copy = malloc(len ? len : 1);
    if (!copy) return NULL;
    memcpy(copy, key, len);
    if (victim->used) drop_pending(victim);
    *victim = (pending_load){.used = 1, .db = db, .kind = kind, .key = copy, .key_len = len};
    return victim;
}

int flr_scandump(RedisModuleCtx *ctx, RedisModuleString **argv, int argc,
                 const flr_type_ops *ops) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    uint64_t iter;
    if (!flr_arg_u64(argv[2], &iter))
        return RedisModule_ReplyWithError(ctx, ops->err_iter ? ops->err_iter
                                                             : "ERR invalid iterator");
    void *value;
    RedisModuleKey *key;
    if (!flr_open(ctx, argv[1], REDISMODULE_READ, *ops->type, &key, &value))
        return REDISMODULE_OK;
    if (!value) {
        RedisModule_CloseKey(key);
        return RedisModule_ReplyWithError(ctx, "ERR not found");
    }
    if (ops->dump_empty && ops->dump_empty(value)) {
        RedisModule_CloseKey(key);
        RedisModule_ReplyWithArray(ctx, 2);
        RedisModule_ReplyWithLongLong(ctx, 0);
        return RedisModule_ReplyWithNull(ctx);
    }
    uint64_t generation = ((const flr_value_header *)value)->generation;
    if (dumped.generation != generation || dumped.kind != ops->kind) {
        drop_dumped();
        const char *err = NULL;
        size_t len;
        uint8_t *blob = ops->serialize(value, &len, &err);
        if (!blob) {
            RedisModule_CloseKey(key);
            return RedisModule_ReplyWithError(ctx, err);
        }
        dumped.generation = generation;
        dumped.kind = ops->kind;
        dumped.blob = blob;
        dumped.len = len;
        dumped.hash = flr_blob_hash(blob, len);
    }
    RedisModule_CloseKey(key);
    uint8_t *chunk = malloc(FLR_CHUNK_HEADER + FLR_CHUNK_PIECE_MAX);
    if (!chunk) return RedisModule_ReplyWithError(ctx, "ERR out of memory");
    size_t chunk_len;
    RedisModule_ReplyWithArray(ctx, 2);
    if (flr_chunk_encode((flr_chunk_kind)ops->kind, dumped.blob, dumped.len, dumped.hash, iter,
                         chunk, &chunk_len)) {
        RedisModule_ReplyWithLongLong(ctx, (long long)(iter + 1));
        RedisModule_ReplyWithStringBuffer(ctx, (const char *)chunk, chunk_len);
    } else {
        drop_dumped(); /* the dump is over */
        RedisModule_ReplyWithLongLong(ctx, 0);
        RedisModule_ReplyWithStringBuffer(ctx, "", 0);
    }
    free(chunk);
    return REDISMODULE_OK;
}

/* The text of a refused chunk: the type's RedisBloom text where it has one (creating: the
 * load would create the key), else own (filterlab's). */
static const char *chunk_error_text(const flr_type_ops *ops, int creating, const char *own) {
    if (creating && ops->err_create) return ops->err_create;
    return ops->err_chunk ? ops->err_chunk : own;
}

static const char *chunk_error(const flr_type_ops *ops, flr_chunk_result r, int creating) {
    if (r == FLR_CHUNK_NO_MEMORY) return flr_chunk_error(r);
    if (r == FLR_CHUNK_OUT_OF_ORDER && ops->err_order) return ops->err_order;
    return chunk_error_text(ops, creating, flr_chunk_error(r));
}

int flr_loadchunk(RedisModuleCtx *ctx, RedisModuleString **argv, int argc,
                  const flr_type_ops *ops) {
    if (argc != 4) return RedisModule_WrongArity(ctx);
    uint64_t iter;
    if (!flr_arg_u64(argv[2], &iter) || iter == 0)
        return RedisModule_ReplyWithError(ctx, ops->err_iter ? ops->err_iter
                                                             : "ERR invalid iterator");
    void *old;
    RedisModuleKey *key;
    if (!flr_open(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE, *ops->type, &key, &old))
        return REDISMODULE_OK;
    size_t name_len, data_len;
    const char *name = RedisModule_StringPtrLen(argv[1], &name_len);
    const uint8_t *data = (const uint8_t *)RedisModule_StringPtrLen(argv[3], &data_len);
    int db = RedisModule_GetSelectedDb(ctx);

    /* Feed a copy of the load's state so a refused chunk leaves it untouched. */
    pending_load *p = find_pending(db, ops->kind, name, name_len);
    flr_assembly a = p ? p->a : (flr_assembly){0};
    flr_chunk_result r = flr_assembly_feed(&a, (flr_chunk_kind)ops->kind, data, data_len);
    if (r != FLR_CHUNK_MORE && r != FLR_CHUNK_COMPLETE) {
        RedisModule_CloseKey(key);
        /* The reply may be RedisBloom's terse text: the precise reason goes to the log at
         * "verbose" (a client can send bad chunks at will; the default log stays quiet). */
        flr_log(ctx, "verbose", "filterlab: %s.LOADCHUNK refused: %s", ops->prefix,
                flr_chunk_error(r));
        return RedisModule_ReplyWithError(ctx, chunk_error(ops, r, old == NULL));
    }
    /* Accepted: a first chunk replaced the buffer (the old one was freed inside feed only
     * if it was the one in `a`, which is p's). */
    if (!p) {
        p = claim_pending(db, ops->kind, name, name_len);
        if (!p) {
            flr_assembly_reset(&a);
            RedisModule_CloseKey(key);
            return RedisModule_ReplyWithError(ctx, "ERR out of memory");
        }
    }
    p->a = a;
    p->stamp = ++pending_clock;
    if (r == FLR_CHUNK_MORE) {
        RedisModule_CloseKey(key);
        RedisModule_ReplicateVerbatim(ctx);
        return RedisModule_ReplyWithSimpleString(ctx, "OK");
    }
    const char *err = "ERR invalid dump";
    void *value = ops->deserialize(p->a.buf, (size_t)p->a.total, &err);
    drop_pending(p);
    if (!value) {
        RedisModule_CloseKey(key);
        return RedisModule_ReplyWithError(
            ctx, chunk_error_text(ops, old == NULL, err));
    }
    RedisModule_ModuleTypeSetValue(key, *ops->type, value); /* frees the old value */
    RedisModule_CloseKey(key);
    RedisModule_ReplicateVerbatim(ctx);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

void flr_emit_chunks(RedisModuleIO *aof, RedisModuleString *key, const char *command, int kind,
                     const uint8_t *blob, size_t len) {
    uint8_t *chunk = malloc(FLR_CHUNK_HEADER + FLR_CHUNK_PIECE_MAX);
    if (!chunk) {
        RedisModule_LogIOError(aof, "warning", "filterlab: out of memory in AOF rewrite");
        return;
    }
    uint64_t hash = flr_blob_hash(blob, len);
    size_t chunk_len;
    for (uint64_t i = 0; flr_chunk_encode((flr_chunk_kind)kind, blob, len, hash, i, chunk,
                                          &chunk_len);
         i++)
        RedisModule_EmitAOF(aof, command, "slb", key, (long long)(i + 1), (const char *)chunk,
                            chunk_len);
    free(chunk);
}
