/* BF.RESERVE / BF.INSERT options (bf_options.h). */
#include "bf_options.h"

#include <string.h>

#include "inplace.h"

static const bf_options BF_DEFAULTS = {.error_rate = BF_ERROR_RATE_DEFAULT,
                                       .capacity = BF_CAPACITY_DEFAULT,
                                       .expansion = BF_EXPANSION_DEFAULT,
                                       .variant = FL_BLOCK512};

/* The defaults with the module's ERROR_RATE and INITIAL_SIZE load arguments. */
bf_options bf_defaults(void) {
    bf_options o = BF_DEFAULTS;
    o.error_rate = flr_cfg.bf_error_rate;
    o.capacity = flr_cfg.bf_initial_size;
    return o;
}

/* Parses VARIANT's value; replies and returns 0 on an error. */
static int parse_variant(RedisModuleCtx *ctx, RedisModuleString *arg, fl_variant *out) {
    size_t len;
    const char *s = RedisModule_StringPtrLen(arg, &len);
    char name[32];
    if (len >= sizeof name) goto bad;
    memcpy(name, s, len);
    name[len] = 0;
    fl_variant_info vi;
    if (fl_variant_parse(name, out) != FL_OK || fl_variant_describe(*out, &vi) != FL_OK ||
        vi.unit_slots != 0 || vi.counter_bits != 0)
        goto bad;
    return 1;
bad:
    RedisModule_ReplyWithError(ctx, "ERR bad variant (a Bloom variant: classic, block512, "
                                    "split256, reg64)");
    return 0;
}

/* The options BF.RESERVE and BF.INSERT share, at argv[*i]: NONSCALING, EXPANSION x,
 * VARIANT name, GROWTH CHAIN|INPLACE. 1: it was one (*i is at its last word); 0: it was not; -1: a bad value,
 * replied. */
int bf_parse_shared_option(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, int *i,
                               bf_options *o) {
    if (flr_arg_is(argv[*i], "NONSCALING")) {
        o->nonscaling = 1;
    } else if (flr_arg_is(argv[*i], "EXPANSION") && *i + 1 < argc) {
        if (!flr_arg_u64(argv[++*i], &o->expansion)) {
            RedisModule_ReplyWithError(ctx, "ERR bad expansion");
            return -1;
        }
        o->expansion_given = 1;
    } else if (flr_arg_is(argv[*i], "VARIANT") && *i + 1 < argc) {
        if (!parse_variant(ctx, argv[++*i], &o->variant)) return -1;
        o->variant_given = 1;
    } else {
        int growth = flr_growth_option(ctx, argv, argc, i, &o->inplace);
        o->growth_given |= growth > 0;
        return growth;
    }
    return 1;
}

/* The checks both commands make once the options are read; replies and returns 0 on an
 * error. */
int bf_check_options(RedisModuleCtx *ctx, const bf_options *o) {
    if (o->nonscaling && o->expansion_given) {
        RedisModule_ReplyWithError(ctx, "ERR nonscaling filters cannot expand");
        return 0;
    }
    if (!(o->error_rate > 0 && o->error_rate < 1)) {
        RedisModule_ReplyWithError(ctx, "ERR (0 < error rate range < 1)");
        return 0;
    }
    if (o->capacity == 0) {
        RedisModule_ReplyWithError(ctx, "ERR (capacity should be larger than 0)");
        return 0;
    }
    if (o->expansion == 0) {
        RedisModule_ReplyWithError(ctx, "ERR expansion should be greater or equal to 1");
        return 0;
    }
    /* One growing filter doubles (expansion 2), is a cuckoo table and grows by design. */
    const char *why = !o->inplace ? NULL
                      : o->nonscaling ? "ERR GROWTH INPLACE cannot be NONSCALING"
                      : o->expansion != 2 ? "ERR GROWTH INPLACE doubles: EXPANSION must be 2"
                      : o->variant_given ? "ERR GROWTH INPLACE takes no VARIANT" : NULL;
    if (why) RedisModule_ReplyWithError(ctx, why);
    return why == NULL;
}
