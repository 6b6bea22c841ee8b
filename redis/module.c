/*
 * The filterlab Redis module: entry point and the commands that are not one structure's
 * (FILTERLAB.KERNEL, FILTERLAB.INFO); the module API table is redis_api.c.
 *
 *   redis-server --loadmodule build/redis/filterlab_redis.so
 *
 * Each structure's commands, data type and persistence are in their own file (bf.c, cf.c,
 * cms.c, topk.c); dump.c and chunk.c hold SCANDUMP/LOADCHUNK for the filters.
 */
#include <stdio.h>
#include <string.h>

#include "cf_chain.h"
#include "common.h"

/* One name-value pair of a reply: the name a simple string, the value a bulk string (a
 * sentence may hold any character). */
static void reply_field(RedisModuleCtx *ctx, const char *name, const char *text) {
    RedisModule_ReplyWithSimpleString(ctx, name);
    RedisModule_ReplyWithStringBuffer(ctx, text, strlen(text));
}

/* FILTERLAB.KERNEL: the process's kernel ("auto" when each module entry has its own), why,
 * the kernels this CPU runs, the wisdom file's status, and per module entry the kernel and
 * why: one [entry, size classes, kernel, reason] array per run of size classes that agree
 * ("all", "L1", "L1-L2", ...), as `filterlab kernels` prints them. */
static int cmd_kernel(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    if (argc != 1) return RedisModule_WrongArity(ctx);
    RedisModule_ReplyWithArray(ctx, 10);
    RedisModule_ReplyWithSimpleString(ctx, "Kernel");
    RedisModule_ReplyWithSimpleString(ctx, fl_kernel_active());
    reply_field(ctx, "Reason", fl_kernel_reason());
    RedisModule_ReplyWithSimpleString(ctx, "Supported");
    RedisModule_ReplyWithArray(ctx, REDISMODULE_POSTPONED_ARRAY_LEN);
    long n = 0;
    for (size_t i = 0; i < fl_kernel_count(); i++) {
        fl_kernel_desc d;
        if (fl_kernel_describe(i, &d) == FL_OK && d.supported) {
            /* An emulated kernel (NEON through SIMDe on x86) is correct, not fast. */
            char name[64];
            snprintf(name, sizeof name, "%s%s", d.name, d.emulated ? " (emulated)" : "");
            RedisModule_ReplyWithSimpleString(ctx, name);
            n++;
        }
    }
    RedisModule_ReplySetArrayLength(ctx, n);
    reply_field(ctx, "Wisdom", fl_kernel_wisdom_status());
    RedisModule_ReplyWithSimpleString(ctx, "Entries");
    RedisModule_ReplyWithArray(ctx, REDISMODULE_POSTPONED_ARRAY_LEN);
    long rows = 0;
    for (size_t e = 0; e < fl_kernel_entry_count(); e++) {
        const char *entry = fl_kernel_entry_name(e), *k, *why;
        char size[16];
        for (int c = 0, d; c < FL_SIZE_CLASSES; c = d) {
            if (fl_kernel_choice_run(entry, c, &k, &why, &d, size, sizeof size) != FL_OK) break;
            RedisModule_ReplyWithArray(ctx, 4);
            RedisModule_ReplyWithSimpleString(ctx, entry);
            RedisModule_ReplyWithSimpleString(ctx, size);
            RedisModule_ReplyWithSimpleString(ctx, k);
            RedisModule_ReplyWithStringBuffer(ctx, why, strlen(why));
            rows++;
        }
    }
    RedisModule_ReplySetArrayLength(ctx, rows);
    return REDISMODULE_OK;
}

/* FILTERLAB.INFO key: which filterlab structure the key holds and the kernel its calls
 * use. */
static int cmd_info(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], REDISMODULE_READ);
    int kt = RedisModule_KeyType(key);
    if (kt == REDISMODULE_KEYTYPE_EMPTY) {
        RedisModule_CloseKey(key);
        return RedisModule_ReplyWithError(ctx, "ERR not found");
    }
    RedisModuleType *t = kt == REDISMODULE_KEYTYPE_MODULE ? RedisModule_ModuleTypeGetType(key)
                                                          : NULL;
    void *v = t ? RedisModule_ModuleTypeGetValue(key) : NULL;
    const char *type = NULL, *kernel = NULL;
    int (*extra)(RedisModuleCtx *, void *) = NULL;
#define FLR_INFO_OF_TYPE_(name)                                                             \
    if (t && t == flr_##name##_type)                                                        \
        type = #name, kernel = flr_##name##_kernel(v), extra = flr_##name##_info_extra;
    FLR_TYPES(FLR_INFO_OF_TYPE_)
#undef FLR_INFO_OF_TYPE_
    if (!type) {
        RedisModule_CloseKey(key);
        return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    }
    /* Type and kernel, then the structure's facts that its RedisBloom INFO reply has no
     * field for (the value stays valid while the key is open). */
    RedisModule_ReplyWithArray(ctx, REDISMODULE_POSTPONED_ARRAY_LEN);
    RedisModule_ReplyWithSimpleString(ctx, "Type");
    RedisModule_ReplyWithSimpleString(ctx, type);
    RedisModule_ReplyWithSimpleString(ctx, "Kernel");
    RedisModule_ReplyWithSimpleString(ctx, kernel);
    long n = 4 + extra(ctx, v);
    RedisModule_CloseKey(key);
    RedisModule_ReplySetArrayLength(ctx, n);
    return REDISMODULE_OK;
}

/* ---- module load arguments --------------------------------------------------------- */

/* Parses `--loadmodule filterlab_redis.so NAME VALUE ...` into flr_cfg: RedisBloom 2.4's
 * ERROR_RATE (0 < r < 1), INITIAL_SIZE (> 0), CF_MAX_EXPANSIONS (2 to CF_FILTERS_MAX,
 * filterlab's longest chain), and MAX_BYTES (payload bytes one value may allocate, 4096 to
 * 2^40). Names are case-insensitive. A bad argument is logged with its reason and the
 * module refuses to load (as RedisBloom does), so a typo cannot go unnoticed. */
static int flr_parse_load_args(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    flr_config cfg = flr_cfg;
    const char *why = NULL;
    if (argc % 2) why = "arguments come in NAME VALUE pairs";
    for (int i = 0; !why && i + 1 < argc; i += 2) {
        RedisModuleString *v = argv[i + 1];
        int64_t ll = 0;
        double d = 0;
        int is_ll = flr_arg_i64(v, &ll);
        int is_d = flr_arg_double(v, &d);
        if (flr_arg_is(argv[i], "ERROR_RATE")) {
            if (!is_d || !(d > 0 && d < 1)) why = "ERROR_RATE must be a number in (0, 1)";
            else cfg.bf_error_rate = d;
        } else if (flr_arg_is(argv[i], "INITIAL_SIZE")) {
            if (!is_ll || ll <= 0) why = "INITIAL_SIZE must be an integer > 0";
            else cfg.bf_initial_size = (uint64_t)ll;
        } else if (flr_arg_is(argv[i], "CF_MAX_EXPANSIONS")) {
            /* RedisBloom counts the first filter, so 1 would refuse every add. */
            if (!is_ll || ll < 2 || ll > CF_FILTERS_MAX)
                why = "CF_MAX_EXPANSIONS must be an integer from 2 to 64";
            else cfg.cf_max_expansions = (uint32_t)ll;
        } else if (flr_arg_is(argv[i], "MAX_BYTES")) {
            if (!is_ll || ll < 4096 || ll > (1ll << 40))
                why = "MAX_BYTES must be an integer from 4096 to 1099511627776";
            else cfg.max_bytes = (uint64_t)ll;
        } else if (flr_arg_is(argv[i], "BF_LAYOUT_SLACK")) {
            if (!is_d || !(d >= 1 && d <= 1e6))
                why = "BF_LAYOUT_SLACK must be a number from 1 to 1e6";
            else cfg.bf_layout_slack = d;
        } else {
            why = "unknown argument (ERROR_RATE, INITIAL_SIZE, CF_MAX_EXPANSIONS, MAX_BYTES, "
                  "BF_LAYOUT_SLACK)";
        }
        if (why) {
            size_t len;
            const char *name = RedisModule_StringPtrLen(argv[i], &len);
            RedisModule_Log(ctx, "warning", "filterlab: load argument '%.*s': %s",
                            (int)(len > 64 ? 64 : len), name, why);
            return REDISMODULE_ERR;
        }
    }
    if (why) {
        RedisModule_Log(ctx, "warning", "filterlab: load arguments: %s", why);
        return REDISMODULE_ERR;
    }
    flr_cfg = cfg;
    return REDISMODULE_OK;
}

__attribute__((visibility("default"))) int RedisModule_OnLoad(RedisModuleCtx *ctx,
                                                             RedisModuleString **argv,
                                                             int argc);

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (flr_api_init(ctx) != REDISMODULE_OK) return REDISMODULE_ERR;
    if (RedisModule_IsModuleNameBusy("filterlab")) return REDISMODULE_ERR;
    if (flr_parse_load_args(ctx, argv, argc) != REDISMODULE_OK) return REDISMODULE_ERR;
    RedisModule_SetModuleAttribs(ctx, "filterlab", 1, REDISMODULE_APIVER_1);
    /* RDB loaders check RedisModule_IsIOError themselves and refuse a bad value. */
    RedisModule_SetModuleOptions(ctx, REDISMODULE_OPTIONS_HANDLE_IO_ERRORS);
    if (fl_kernel_env_status() != FL_OK) {
        RedisModule_Log(ctx, "warning", "filterlab: FILTERLAB_KERNEL refused (%s); using %s",
                        fl_strerror(fl_kernel_env_status()), fl_kernel_active());
    }
#define FLR_REGISTER_TYPE_(name)                                                            \
    if (flr_##name##_register(ctx) != REDISMODULE_OK) return REDISMODULE_ERR;
    FLR_TYPES(FLR_REGISTER_TYPE_)
#undef FLR_REGISTER_TYPE_
    if (RedisModule_CreateCommand(ctx, "FILTERLAB.KERNEL", cmd_kernel, "readonly fast", 0, 0,
                                  0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "FILTERLAB.INFO", cmd_info, "readonly fast", 1, 1, 1) ==
            REDISMODULE_ERR)
        return REDISMODULE_ERR;
    RedisModule_Log(ctx, "notice", "filterlab %d.%d.%d loaded, kernel %s", FL_VERSION_MAJOR,
                    FL_VERSION_MINOR, FL_VERSION_PATCH,
                    fl_kernel_active());
    return REDISMODULE_OK;
}
