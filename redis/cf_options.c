/* CF.RESERVE / CF.INSERT options (cf_options.h). RedisBloom's texts for its refusals. */
#include "cf_options.h"

#include <stdio.h>

#include "inplace.h"

const cf_options CF_DEFAULTS = {{CF_CAPACITY_DEFAULT, CF_BUCKET_SIZE_DEFAULT,
                                 CF_MAX_ITERATIONS_DEFAULT, CF_EXPANSION_DEFAULT,
                                 CF_FP_BITS_DEFAULT},
                                0};

/* "ERR FPBITS: value must be 8, 11, 12, 13 or 16": the widths cf_fp_bits_ok takes, as the
 * library words them (fl_variant_k_text), written once (commands run on one thread). */
static const char *fp_bits_refusal(void) {
    static char text[96];
    if (!text[0]) {
        char widths[64];
        if (fl_variant_k_text(FL_CUCKOO, widths, sizeof widths) != FL_OK) return "ERR FPBITS";
        snprintf(text, sizeof text, "ERR FPBITS: value must be %s", widths);
    }
    return text;
}

int cf_parse_reserve(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, cf_options *o) {
    *o = CF_DEFAULTS;
    cf_config *cfg = &o->cfg;
    int64_t capacity;
    int expansion_given = 0, fp_bits_given = 0;
    const char *why = NULL;
    if (!flr_arg_i64(argv[2], &capacity)) why = "ERR Bad capacity";
    for (int i = 3; !why && i + 1 < argc; i += 2) {
        int64_t x;
        int num = flr_arg_i64(argv[i + 1], &x), growth;
        if (flr_arg_is(argv[i], "BUCKETSIZE")) {
            if (!num) why = "ERR Couldn't parse BUCKETSIZE";
            else if (x < 1 || x > 255)
                why = "ERR BUCKETSIZE: value must be an integer between 1 and 255, inclusive.";
            else cfg->bucket_size = (uint32_t)x;
        } else if (flr_arg_is(argv[i], "MAXITERATIONS")) {
            if (!num) why = "ERR Couldn't parse MAXITERATIONS";
            else if (x < 1 || x > 65535)
                why = "ERR MAXITERATIONS: value must be an integer between 1 and 65535, "
                      "inclusive.";
            else cfg->max_iterations = (uint32_t)x;
        } else if (flr_arg_is(argv[i], "EXPANSION")) {
            if (!num) why = "ERR Couldn't parse EXPANSION";
            else if (x < 0 || x > CF_EXPANSION_MAX)
                why = "ERR EXPANSION: value must be an integer between 0 and 32768, inclusive.";
            else cfg->expansion = (uint32_t)x, expansion_given = 1;
        } else if (flr_arg_is(argv[i], "FPBITS")) {
            if (!num || !cf_fp_bits_ok(x)) why = fp_bits_refusal();
            else cfg->fp_bits = (uint32_t)x, fp_bits_given = 1;
        } else if ((growth = flr_growth_option(ctx, argv, argc, &i, &o->inplace)) != 0) {
            if (growth < 0) return 0; /* replied */
            i--; /* the loop steps by pairs: GROWTH and its value were one */
        } else {
            why = "ERR unknown argument received";
        }
    }
    /* One growing filter doubles and has 16-bit slots (inplace.h). */
    if (!why && o->inplace && expansion_given && cfg->expansion != 2)
        why = "ERR GROWTH INPLACE doubles: EXPANSION must be 2";
    if (!why && o->inplace && fp_bits_given)
        why = "ERR GROWTH INPLACE takes no FPBITS (its slots are 16 bits)";
    if (!why && o->inplace) cfg->expansion = 2;
    /* RedisBloom's minimum: two full buckets of the bucket size asked for. */
    if (!why && capacity < 2 * (long long)cfg->bucket_size) why = CF_MIN_CAPACITY;
    if (why) {
        RedisModule_ReplyWithError(ctx, why);
        return 0;
    }
    cfg->capacity = (uint64_t)capacity;
    return 1;
}

int cf_parse_insert(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, cf_options *o,
                    int *nocreate, int *items_at) {
    *o = CF_DEFAULTS;
    *nocreate = 0;
    *items_at = -1;
    int sizing_given = 0;
    for (int i = 2; i < argc && *items_at < 0; i++) {
        int growth;
        if (flr_arg_is(argv[i], "ITEMS")) {
            *items_at = i + 1;
        } else if (flr_arg_is(argv[i], "NOCREATE")) {
            *nocreate = 1;
        } else if (flr_arg_is(argv[i], "CAPACITY") && i + 1 < argc) {
            int64_t capacity;
            if (!flr_arg_i64(argv[++i], &capacity)) {
                RedisModule_ReplyWithError(ctx, "ERR Bad capacity");
                return 0;
            }
            /* The filter INSERT creates has the default bucket size. */
            if (capacity < 2 * (long long)CF_BUCKET_SIZE_DEFAULT) {
                RedisModule_ReplyWithError(ctx, CF_MIN_CAPACITY);
                return 0;
            }
            o->cfg.capacity = (uint64_t)capacity;
            sizing_given |= 1;
        } else if ((growth = flr_growth_option(ctx, argv, argc, &i, &o->inplace)) != 0) {
            if (growth < 0) return 0; /* replied */
            sizing_given |= 2;
        } else {
            RedisModule_ReplyWithError(ctx, "ERR unknown argument received");
            return 0;
        }
    }
    if (*items_at < 0 || *items_at >= argc) {
        RedisModule_WrongArity(ctx);
        return 0;
    }
    if (o->inplace) o->cfg.expansion = 2;
    /* RedisBloom: NOCREATE and CAPACITY exclude each other; GROWTH, which also only shapes
     * a key INSERT creates, too. */
    if (*nocreate && sizing_given) {
        RedisModule_ReplyWithError(ctx, sizing_given & 1
                                            ? "ERR NOCREATE cannot be used with CAPACITY"
                                            : "ERR NOCREATE cannot be used with GROWTH");
        return 0;
    }
    return 1;
}
