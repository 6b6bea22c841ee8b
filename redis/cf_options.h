/*
 * The options of CF.RESERVE and CF.INSERT / CF.INSERTNX (cf.c): RedisBloom's (capacity,
 * BUCKETSIZE, MAXITERATIONS, EXPANSION, NOCREATE) with RedisBloom's refusal texts, and
 * filterlab's FPBITS and GROWTH CHAIN|INPLACE (inplace.h: EXPANSION must be 2 or absent,
 * FPBITS is refused, the table's slots being 16 bits).
 */
#ifndef FLR_CF_OPTIONS_H
#define FLR_CF_OPTIONS_H
#include "cf_chain.h"
#include "common.h"

#define CF_CAPACITY_DEFAULT 1024 /* RedisBloom's capacity for a filter CF.ADD creates */
#define CF_MIN_CAPACITY "ERR Capacity must be at least (BucketSize * 2)"

/* What a new key is made of: the chain's config, or GROWTH INPLACE with its capacity,
 * bucket size and iterations (reported as a chain's). */
typedef struct cf_options {
    cf_config cfg;
    int inplace;
} cf_options;

extern const cf_options CF_DEFAULTS;

/* CF.RESERVE key capacity [BUCKETSIZE bs] [MAXITERATIONS mi] [EXPANSION e] [FPBITS 8|11|12|13|16]
 * [GROWTH CHAIN|INPLACE] (argc odd, checked by the caller): 1 with *o filled, or 0 with
 * the error replied. */
int cf_parse_reserve(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, cf_options *o);
/* CF.INSERT[NX] key [CAPACITY c] [NOCREATE] [GROWTH CHAIN|INPLACE] ITEMS item ...: 1 with *o,
 * *nocreate and *items_at (the first item) set, or 0 with the reply sent (an error, or
 * wrong arity). */
int cf_parse_insert(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, cf_options *o,
                    int *nocreate, int *items_at);

#endif /* FLR_CF_OPTIONS_H */
