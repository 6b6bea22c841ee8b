/*
 * The module API table: every RedisModule_* pointer redis_api.h lists, defined here once and
 * filled by flr_api_init from the lookup function the server hands to RedisModule_OnLoad.
 * Every other file of the module declares them extern (redis_api.h) and calls through them.
 */
#include <string.h>

#include "redis_api.h"

#define FLR_API_DEFINE(ret, name, params) ret(*RedisModule_##name) params;
FLR_API_LIST(FLR_API_DEFINE)

static int (*RedisModule_GetApi)(const char *, void *);

int flr_api_init(RedisModuleCtx *ctx) {
    /* The server passes its API lookup function as the first word of the context. */
    void *getapi = ((void **)ctx)[0];
    memcpy(&RedisModule_GetApi, &getapi, sizeof getapi);
#define FLR_API_GET(ret, name, params) \
    if (RedisModule_GetApi("RedisModule_" #name, (void *)&RedisModule_##name) != REDISMODULE_OK) \
        return REDISMODULE_ERR;
    FLR_API_LIST(FLR_API_GET)
    return REDISMODULE_OK;
}
