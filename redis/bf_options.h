/*
 * The options of BF.RESERVE and BF.INSERT (bf.c): RedisBloom's (error rate, capacity,
 * EXPANSION, NONSCALING) with their defaults and refusals, and filterlab's VARIANT and
 * GROWTH CHAIN|INPLACE (inplace.h).
 */
#ifndef FLR_BF_OPTIONS_H
#define FLR_BF_OPTIONS_H
#include "common.h"

#define BF_ERROR_RATE_DEFAULT 0.01 /* RedisBloom's; ERROR_RATE and INITIAL_SIZE change them */
#define BF_CAPACITY_DEFAULT 100
#define BF_EXPANSION_DEFAULT 2

typedef struct bf_options {
    double error_rate;
    uint64_t capacity, expansion;
    int nonscaling;
    fl_variant variant;
    int expansion_given; /* EXPANSION was given: NONSCALING refuses it */
    int variant_given, growth_given, inplace; /* VARIANT, GROWTH given; GROWTH INPLACE */
} bf_options;

/* The defaults with the module's ERROR_RATE and INITIAL_SIZE load arguments. */
bf_options bf_defaults(void);
/* The options BF.RESERVE and BF.INSERT share, at argv[*i]: NONSCALING, EXPANSION x,
 * VARIANT name, GROWTH CHAIN|INPLACE. 1: it was one (*i is at its last word); 0: it was
 * not; -1: a bad value, replied. */
int bf_parse_shared_option(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, int *i,
                           bf_options *o);
/* The checks both commands make once the options are read; replies and returns 0 on an
 * error. */
int bf_check_options(RedisModuleCtx *ctx, const bf_options *o);

#endif /* FLR_BF_OPTIONS_H */
