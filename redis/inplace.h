/*
 * GROWTH INPLACE: the layout of a BF or CF key that holds one growing cuckoo filter
 * (include/filterlab_gcf.h: a table that doubles in place by splitting its buckets, one
 * lookup of two buckets at every size) instead of a chain of filters (GROWTH CHAIN, the
 * default). bf.c and cf.c keep their commands and hand an INPLACE value's work to the calls
 * below, which give the chain's replies.
 *
 * BF keys: error_rate is an upper bound the key keeps. The filter's FPR is a sum over its
 * slots (the library's estimate, fl_gcf_info.fpr): a slot with L extension bits matches a
 * key not inserted with probability 258/65536 * 2^-L. A doubling halves the load but takes a
 * bit from every slot, so the FPR is highest when a table is full (its capacity, load
 * FL_GCF_GROW_LOAD). Whenever the table changes size, the FPR the filter would have at the
 * capacity of the NEXT size is predicted (the slots it holds with one bit less, the rest of
 * this size's capacity at 6 bits, the next size's new slots at 7): above error_rate, the next
 * doubling is refused (the table's byte limit is held at its size), and once that table
 * holds its capacity, adds answer as a full NONSCALING key does. Deletes only lower the
 * prediction (they remove slots), so it stays a bound. A BF.RESERVE whose error_rate is
 * below the FPR of a fresh table at its capacity is refused.
 *
 * CF keys: CF.COUNT is fl_gcf_count_hash; deletes take the matching slot with the most
 * extension bits (the header's rule). BUCKETSIZE and MAXITERATIONS are kept and reported as
 * for chains (the table's buckets have 4 slots, its walks FL_GCF_KICKS kicks); EXPANSION
 * must be 2; FPBITS is refused (16-bit slots). CF_MAX_EXPANSIONS counts a chain's filters,
 * so it does not apply: the filter's own growth limit (FL_GCF_MAX_DOUBLINGS) does.
 *
 * Both: the server's MAX_BYTES caps the table at creation (refused before anything is
 * allocated) and every doubling; a loaded value (RDB, RESTORE, LOADCHUNK) is loaded with
 * flr_load_max_bytes and then held to MAX_BYTES, as chains are.
 */
#ifndef FLR_INPLACE_H
#define FLR_INPLACE_H
#include <filterlab.h>

#include "common.h"
#include "inplace_codec.h"

/* GROWTH CHAIN | INPLACE at argv[*i]: 1 if it was (*inplace set, *i at its value), 0 if
 * argv[*i] is not GROWTH, -1 if its value is bad (replied). */
int flr_growth_option(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, int *i,
                      int *inplace);

/* A new value of p's kind, capacity, error_rate (BF), bucket_size and max_iterations (CF),
 * held to MAX_BYTES. NULL if a reply was sent (the error). */
flr_inplace *flr_inplace_create(RedisModuleCtx *ctx, const flr_inplace *p);

/* BF.ADD (single: one integer) and BF.MADD / BF.INSERT (an array, an error element for
 * the item that could not go in and those after it). Replies; 1 if the filter changed. */
int flr_inplace_bf_add(RedisModuleCtx *ctx, RedisModuleString *name, flr_inplace *ip,
                       RedisModuleString **items, size_t n, int single);
/* CF.ADD / CF.ADDNX (single) and CF.INSERT / CF.INSERTNX (1 added, 0 present (NX), -1 for
 * the item the filter refused and those after it). Replies; 1 if the filter changed. */
int flr_inplace_cf_add(RedisModuleCtx *ctx, RedisModuleString *name, flr_inplace *ip,
                       RedisModuleString **items, size_t n, int single, int nx);
/* EXISTS / MEXISTS (flr_lookup_fn's contract, with the value's filter). */
void flr_inplace_lookup(const flr_inplace *ip, RedisModuleString **items, flr_batch *b);
uint32_t flr_inplace_count(const flr_inplace *ip, RedisModuleString *item);
/* CF.DEL: 1 if a copy was removed, 0 if none matched. */
int flr_inplace_delete(flr_inplace *ip, RedisModuleString *item);

/* MEMORY USAGE and INFO's Size, beyond the owner's struct. */
size_t flr_inplace_mem_usage(const flr_inplace *ip);
/* BF.INFO / CF.INFO numbers: capacity before the next doubling, items, buckets. */
void flr_inplace_totals(const flr_inplace *ip, uint64_t *capacity, uint64_t *items,
                        uint64_t *buckets);
/* FILTERLAB.INFO's fields (returns the replies made) and BF.DEBUG's sub-filter line. */
int flr_inplace_info_extra(RedisModuleCtx *ctx, const flr_inplace *ip);
int flr_inplace_debug_line(const flr_inplace *ip, char *line, size_t cap);
const char *flr_inplace_kernel(const flr_inplace *ip);

/* Serialization (inplace_codec.h's, with the module's error texts; a loaded value is held
 * to this server's MAX_BYTES and the error rate). */
uint8_t *flr_inplace_serialize(const flr_inplace *ip, size_t *len, const char **err);
flr_inplace *flr_inplace_deserialize(const uint8_t *blob, size_t len, uint32_t kind,
                                     const char **err);

#endif /* FLR_INPLACE_H */
