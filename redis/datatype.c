/*
 * The module data type methods every structure shares, driven by its flr_type_ops
 * (common.h): RDB save and load of the value's one-blob serialization, the AOF rewrite as
 * <PREFIX>.LOADCHUNK chunks, DEBUG DIGEST, and the registration of the type and its
 * commands. Each structure's file keeps only what is its own (the ops' functions).
 */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

/* RDB: the value's serialization (the library's own format) as one string. A value that
 * does not serialize is saved as an empty string, which its loader refuses. */
void flr_type_rdb_save(RedisModuleIO *io, void *value, const flr_type_ops *ops) {
    const char *err;
    size_t len = 0;
    uint8_t *blob = ops->serialize(value, &len, &err);
    RedisModule_SaveStringBuffer(io, blob ? (const char *)blob : "", blob ? len : 0);
    free(blob);
}

void *flr_type_rdb_load(RedisModuleIO *io, int encver, const flr_type_ops *ops) {
    if (encver != ops->encoding_version) {
        if (ops->log_io_failures)
            RedisModule_LogIOError(io, "warning", "filterlab: unknown %s encoding %d",
                                   ops->prefix, encver);
        return NULL;
    }
    size_t len;
    char *buf = RedisModule_LoadStringBuffer(io, &len);
    if (RedisModule_IsIOError(io) || !buf) {
        if (buf) RedisModule_Free(buf);
        return NULL;
    }
    const char *err = "ERR invalid dump";
    void *value = ops->deserialize((const uint8_t *)buf, len, &err);
    RedisModule_Free(buf);
    if (!value)
        RedisModule_LogIOError(io, "warning", "filterlab: %s value refused: %s", ops->prefix,
                               err);
    return value;
}

/* AOF rewrite: the value as <PREFIX>.LOADCHUNK chunks (the same chunks SCANDUMP gives). */
void flr_type_aof_rewrite(RedisModuleIO *aof, RedisModuleString *key, void *value,
                          const flr_type_ops *ops) {
    const char *err;
    size_t len;
    uint8_t *blob = ops->serialize(value, &len, &err);
    if (!blob) {
        if (ops->log_io_failures)
            RedisModule_LogIOError(aof, "warning", "filterlab: %s AOF rewrite failed: %s",
                                   ops->prefix, err);
        return;
    }
    char command[32];
    snprintf(command, sizeof command, "%s.LOADCHUNK", ops->prefix);
    flr_emit_chunks(aof, key, command, ops->kind, blob, len);
    free(blob);
}

void flr_digest(RedisModuleDigest *md, const flr_type_ops *ops, void *value) {
    const char *err;
    size_t len;
    uint8_t *blob = ops->serialize(value, &len, &err);
    if (!blob) return;
    RedisModule_DigestAddStringBuffer(md, (const char *)blob, len);
    RedisModule_DigestEndSequence(md);
    free(blob);
}

int flr_type_register(RedisModuleCtx *ctx, const flr_type_ops *ops, const flr_type_glue *glue,
                      const flr_command *commands, size_t n_commands) {
    RedisModuleTypeMethods tm = {.version = REDISMODULE_TYPE_METHOD_VERSION_1,
                                 .rdb_load = glue->rdb_load,
                                 .rdb_save = glue->rdb_save,
                                 .aof_rewrite = glue->aof_rewrite,
                                 .mem_usage = ops->mem_usage,
                                 .digest = glue->digest,
                                 .free = ops->free};
    *ops->type = RedisModule_CreateDataType(ctx, ops->type_name, ops->encoding_version, &tm);
    if (!*ops->type) return REDISMODULE_ERR;
    /* Every command's key is its first argument (first key 1, last key 1, step 1). */
    for (size_t i = 0; i < n_commands; i++)
        if (RedisModule_CreateCommand(ctx, commands[i].name, commands[i].fn, commands[i].flags,
                                      1, 1, 1) == REDISMODULE_ERR)
            return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
