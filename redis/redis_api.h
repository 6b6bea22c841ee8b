/*
 * The part of the Redis module API this module calls, declared here from the public module
 * API reference (https://redis.io/docs/reference/modules/modules-api-ref/): the API is a
 * table of functions the server hands to a module, looked up by name through the
 * RedisModule_GetApi pointer that is the first word of the context passed to
 * RedisModule_OnLoad. Only calls present in Redis 7.0 (Debian 12's server) are used.
 *
 * Every pointer is defined in redis_api.c (FLR_API_DEFINE) and declared extern elsewhere;
 * flr_api_init fills them and fails if the server lacks one.
 */
#ifndef FLR_REDIS_API_H
#define FLR_REDIS_API_H
#include <stddef.h>
#include <stdint.h>

#define REDISMODULE_OK 0
#define REDISMODULE_ERR 1
#define REDISMODULE_APIVER_1 1

/* OpenKey modes. */
#define REDISMODULE_READ (1 << 0)
#define REDISMODULE_WRITE (1 << 1)

/* RedisModule_KeyType results. */
#define REDISMODULE_KEYTYPE_EMPTY 0
#define REDISMODULE_KEYTYPE_MODULE 6

/* Data type method table version 1: rdb_load, rdb_save, aof_rewrite, mem_usage, digest,
 * free (the fields a version-1 table has; later versions only append). */
#define REDISMODULE_TYPE_METHOD_VERSION_1 1

/* RedisModule_SetModuleOptions: the module checks RedisModule_IsIOError itself instead of
 * the server aborting on a short read. */
#define REDISMODULE_OPTIONS_HANDLE_IO_ERRORS (1 << 0)

#define REDISMODULE_POSTPONED_ARRAY_LEN -1

#define REDISMODULE_ERRORMSG_WRONGTYPE \
    "WRONGTYPE Operation against a key holding the wrong kind of value"

typedef struct RedisModuleCtx RedisModuleCtx;
typedef struct RedisModuleKey RedisModuleKey;
typedef struct RedisModuleString RedisModuleString;
typedef struct RedisModuleIO RedisModuleIO;
typedef struct RedisModuleType RedisModuleType;
typedef struct RedisModuleDigest RedisModuleDigest;

typedef int (*RedisModuleCmdFunc)(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
typedef void *(*RedisModuleTypeLoadFunc)(RedisModuleIO *rdb, int encver);
typedef void (*RedisModuleTypeSaveFunc)(RedisModuleIO *rdb, void *value);
typedef void (*RedisModuleTypeRewriteFunc)(RedisModuleIO *aof, RedisModuleString *key,
                                           void *value);
typedef size_t (*RedisModuleTypeMemUsageFunc)(const void *value);
typedef void (*RedisModuleTypeDigestFunc)(RedisModuleDigest *digest, void *value);
typedef void (*RedisModuleTypeFreeFunc)(void *value);

typedef struct RedisModuleTypeMethods {
    uint64_t version;
    RedisModuleTypeLoadFunc rdb_load;
    RedisModuleTypeSaveFunc rdb_save;
    RedisModuleTypeRewriteFunc aof_rewrite;
    RedisModuleTypeMemUsageFunc mem_usage;
    RedisModuleTypeDigestFunc digest;
    RedisModuleTypeFreeFunc free;
} RedisModuleTypeMethods;

/* The list of calls: X(return type, name, parameters). */
#define FLR_API_LIST(X)                                                                        \
    X(int, SetModuleAttribs, (RedisModuleCtx *, const char *, int, int))                       \
    X(int, IsModuleNameBusy, (const char *))                                                   \
    X(void, SetModuleOptions, (RedisModuleCtx *, int))                                         \
    X(int, CreateCommand, (RedisModuleCtx *, const char *, RedisModuleCmdFunc, const char *,   \
                           int, int, int))                                                     \
    X(RedisModuleType *, CreateDataType, (RedisModuleCtx *, const char *, int,                 \
                                          RedisModuleTypeMethods *))                           \
    X(void *, OpenKey, (RedisModuleCtx *, RedisModuleString *, int))                           \
    X(void, CloseKey, (RedisModuleKey *))                                                      \
    X(int, KeyType, (RedisModuleKey *))                                                        \
    X(int, DeleteKey, (RedisModuleKey *))                                                      \
    X(RedisModuleType *, ModuleTypeGetType, (RedisModuleKey *))                                \
    X(void *, ModuleTypeGetValue, (RedisModuleKey *))                                          \
    X(int, ModuleTypeSetValue, (RedisModuleKey *, RedisModuleType *, void *))                  \
    X(int, GetSelectedDb, (RedisModuleCtx *))                                                  \
    X(int, WrongArity, (RedisModuleCtx *))                                                     \
    X(int, ReplyWithError, (RedisModuleCtx *, const char *))                                   \
    X(int, ReplyWithSimpleString, (RedisModuleCtx *, const char *))                            \
    X(int, ReplyWithLongLong, (RedisModuleCtx *, long long))                                   \
    X(int, ReplyWithDouble, (RedisModuleCtx *, double))                                        \
    X(int, ReplyWithArray, (RedisModuleCtx *, long))                                           \
    X(void, ReplySetArrayLength, (RedisModuleCtx *, long))                                     \
    X(int, ReplyWithStringBuffer, (RedisModuleCtx *, const char *, size_t))                    \
    X(int, ReplyWithNull, (RedisModuleCtx *))                                                  \
    X(const char *, StringPtrLen, (const RedisModuleString *, size_t *))                       \
    X(int, ReplicateVerbatim, (RedisModuleCtx *))                                              \
    X(void, SaveUnsigned, (RedisModuleIO *, uint64_t))                                         \
    X(uint64_t, LoadUnsigned, (RedisModuleIO *))                                               \
    X(void, SaveDouble, (RedisModuleIO *, double))                                             \
    X(double, LoadDouble, (RedisModuleIO *))                                                   \
    X(void, SaveStringBuffer, (RedisModuleIO *, const char *, size_t))                         \
    X(char *, LoadStringBuffer, (RedisModuleIO *, size_t *))                                   \
    X(int, IsIOError, (RedisModuleIO *))                                                       \
    X(void, EmitAOF, (RedisModuleIO *, const char *, const char *, ...))                       \
    X(void, Log, (RedisModuleCtx *, const char *, const char *, ...))                          \
    X(void, LogIOError, (RedisModuleIO *, const char *, const char *, ...))                    \
    X(int, IsKeysPositionRequest, (RedisModuleCtx *))                                          \
    X(void, KeyAtPos, (RedisModuleCtx *, int))                                                 \
    X(void, DigestAddStringBuffer, (RedisModuleDigest *, const char *, size_t))                \
    X(void, DigestEndSequence, (RedisModuleDigest *))                                          \
    X(void, Free, (void *))

#define FLR_API_DECLARE(ret, name, params) extern ret(*RedisModule_##name) params;
FLR_API_LIST(FLR_API_DECLARE)

/* Fills every pointer from the server's table; REDISMODULE_ERR if one is missing. */
int flr_api_init(RedisModuleCtx *ctx);

#endif /* FLR_REDIS_API_H */
