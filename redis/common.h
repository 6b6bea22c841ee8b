/* What the command files share: argument helpers, key access with type checks, replies for
 * library errors, scratch arrays, and the module's data types. */
#ifndef FLR_COMMON_H
#define FLR_COMMON_H
#include <filterlab.h>
#include <stdint.h>

#include "parse.h"
#include "redis_api.h"

/* Payload bytes one value may allocate by default (creation, growth): 4 GiB. */
#define FLR_MAX_BYTES (1ull << 32)

/* The module's load arguments (module.c parses them: flr_parse_load_args). RedisBloom
 * 2.4's ERROR_RATE and INITIAL_SIZE (BF.ADD / BF.INSERT's defaults for a filter they
 * create) and CF_MAX_EXPANSIONS (a cuckoo chain with that many filters takes no more
 * items), and filterlab's MAX_BYTES (payload bytes one value may allocate). */
typedef struct flr_config {
    double bf_error_rate;
    uint64_t bf_initial_size;
    uint32_t cf_max_expansions;
    uint64_t max_bytes;
    /* BF chains' fl_sbf_config.layout_slack: a sub-filter of the chain's variant may take at
     * most this many times the bytes of a classic one, which is RedisBloom's layout and
     * size, so BF memory stays within it of RedisBloom's (block512 at 0.5% is 1.05x). */
    double bf_layout_slack;
} flr_config;
#define FLR_BF_LAYOUT_SLACK_DEFAULT 1.1
extern flr_config flr_cfg;
#define FLR_CF_MAX_EXPANSIONS_DEFAULT 32u /* RedisBloom's */
static inline uint64_t flr_max_bytes(void) { return flr_cfg.max_bytes; }
/* What a load (RDB, LOADCHUNK) accepts: at least the default, so a value made before
 * MAX_BYTES was lowered still loads after a restart (refusing it would lose data). */
static inline uint64_t flr_load_max_bytes(void) {
    return flr_cfg.max_bytes > FLR_MAX_BYTES ? flr_cfg.max_bytes : FLR_MAX_BYTES;
}

/* The module's data types, one file each (bf.c, cf.c, cms.c, topk.c), declared once: X(name).
 * Each defines flr_<name>_type, flr_<name>_register (its data type and commands, called at
 * load in this order), flr_<name>_info_extra and flr_<name>_kernel (FILTERLAB.INFO); their
 * declarations below and module.c's registration and FILTERLAB.INFO come from this list. */
#define FLR_TYPES(X) X(bf) X(cf) X(cms) X(topk)

#define FLR_DECLARE_TYPE_(name) extern RedisModuleType *flr_##name##_type;
FLR_TYPES(FLR_DECLARE_TYPE_)
#undef FLR_DECLARE_TYPE_

/* Argument access. */
int flr_arg_is(RedisModuleString *arg, const char *word);
int flr_arg_u64(RedisModuleString *arg, uint64_t *out);
int flr_arg_i64(RedisModuleString *arg, int64_t *out);
int flr_arg_double(RedisModuleString *arg, double *out);

/* Opens a key and checks its type. Returns 0 if a reply was sent (a key of another type
 * gets WRONGTYPE), else 1 with *key (NULL for a missing key opened read-only; CloseKey
 * accepts NULL) and *value (the module value, or NULL if the key is empty). */
int flr_open(RedisModuleCtx *ctx, RedisModuleString *name, int mode, RedisModuleType *type,
             RedisModuleKey **key, void **value);

/* "ERR <fl_strerror>" for a library error. */
int flr_reply_status(RedisModuleCtx *ctx, fl_status st);

/* Hashes (and one byte per item, zeroed) for a command's items: hash every item, then one
 * batch call. Freed with flr_batch_free. Up to FLR_BATCH_INLINE items live in the struct
 * itself (on the caller's stack): a single-item command's malloc, calloc and two frees
 * cost about as many instructions as the lookup they serve. */
#define FLR_BATCH_INLINE 128
typedef struct flr_batch {
    uint64_t *hashes;
    uint8_t *flags;
    size_t n;
    uint64_t inline_hashes[FLR_BATCH_INLINE];
    uint8_t inline_flags[FLR_BATCH_INLINE];
} flr_batch;
int flr_batch_alloc(flr_batch *b, size_t n);
void flr_batch_free(flr_batch *b);

/* A filter's membership lookup of a batch: hashes the items (b->n of them) into b->hashes,
 * then one batch call sets b->flags (1: may be present). */
typedef void (*flr_lookup_fn)(const void *value, RedisModuleString **items, flr_batch *b);
/* EXISTS key item / MEXISTS key item [item ...] for a filter type: a missing key holds
 * nothing; replies with one integer (single) or an array of them. */
int flr_reply_lookup(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, int single,
                     RedisModuleType *type, flr_lookup_fn lookup);

/* Logs through the server's log (level "warning", "notice", ...). */
#define flr_log(ctx, level, ...) RedisModule_Log((ctx), (level), __VA_ARGS__)

/* One module data type whose value serializes to one blob: what the generic code needs of
 * it (dump.c: SCANDUMP / LOADCHUNK; datatype.c: RDB, AOF rewrite, DEBUG DIGEST, the type's
 * registration). Each structure's file fills one; the rest is shared. */
typedef struct flr_type_ops {
    const char *prefix;                 /* "BF": the commands' prefix, also in log lines */
    const char *type_name;              /* 9 characters from A-Z a-z 0-9 _ - (module API) */
    int encoding_version;               /* the RDB encoding it writes and accepts */
    int kind;                           /* flr_chunk_kind */
    RedisModuleType **type;
    /* The value's blob, malloc'ed; NULL on error (*err says why). */
    uint8_t *(*serialize)(const void *value, size_t *len, const char **err);
    /* A value from a whole blob, or NULL with *err set (the blob is refused). */
    void *(*deserialize)(const uint8_t *blob, size_t len, const char **err);
    size_t (*mem_usage)(const void *value); /* MEMORY USAGE */
    void (*free)(void *value);
    /* 1: an RDB value of an unknown encoding and a failed AOF rewrite are logged (BF, CF);
     * 0: they are not (CMS, TOPK, as they always were). A refused RDB value is always. */
    int log_io_failures;
    /* RedisBloom's error texts for SCANDUMP / LOADCHUNK refusals of its commands (BF, CF),
     * so clients that match them keep working; NULL: filterlab's own, which say more. */
    /* 1 if SCANDUMP of the value answers [0, nil] at once (NULL: never). */
    int (*dump_empty)(const void *value);
    const char *err_iter;          /* an iterator that is not a number (or 0 for LOADCHUNK) */
    const char *err_create;        /* a refused chunk of a load that would create the key */
    const char *err_chunk;         /* any other refused chunk or reassembled dump */
    const char *err_order;         /* a chunk that is not the next one of the load */
} flr_type_ops;
int flr_scandump(RedisModuleCtx *ctx, RedisModuleString **argv, int argc,
                 const flr_type_ops *ops);
int flr_loadchunk(RedisModuleCtx *ctx, RedisModuleString **argv, int argc,
                  const flr_type_ops *ops);

/* Every value struct starts with this header. generation changes at every write (and is
 * new for every value), so SCANDUMP can reuse one serialization across the calls of a dump
 * of an unchanged value (dump.c). The counter lives in common.c, beside flr_value_new. */
typedef struct flr_value_header {
    uint64_t generation;
} flr_value_header;
/* A generation never used before (a process-wide counter; the server is single-threaded). */
uint64_t flr_next_generation(void);
/* Marks a value as written: a new generation. Call it where the write is replicated. */
#define flr_touch(value) ((value)->h.generation = flr_next_generation())
/* A new value struct of `size` bytes (it starts with the header), zeroed but for a new
 * generation; NULL when out of memory. */
void *flr_value_new(size_t size);


/* AOF rewrite of a blob as `command key iter chunk` lines (the chunks SCANDUMP gives). */
void flr_emit_chunks(RedisModuleIO *aof, RedisModuleString *key, const char *command, int kind,
                     const uint8_t *blob, size_t len);

/* DEBUG DIGEST of a value: its serialization (equal values, equal digests: a replica's
 * DEBUG DIGEST matches its primary's). */
void flr_digest(RedisModuleDigest *md, const flr_type_ops *ops, void *value);

/* The type methods of datatype.c, for one type's ops. */
void flr_type_rdb_save(RedisModuleIO *io, void *value, const flr_type_ops *ops);
void *flr_type_rdb_load(RedisModuleIO *io, int encver, const flr_type_ops *ops);
void flr_type_aof_rewrite(RedisModuleIO *aof, RedisModuleString *key, void *value,
                          const flr_type_ops *ops);

/* A command of a type's table: name, function, flags ("write deny-oom" for writes,
 * "readonly fast" for lookups). Its key is the first argument. */
typedef struct flr_command {
    const char *name;
    RedisModuleCmdFunc fn;
    const char *flags;
} flr_command;

/* The type's methods that the module API calls without its ops (FLR_TYPE_GLUE writes them). */
typedef struct flr_type_glue {
    RedisModuleTypeLoadFunc rdb_load;
    RedisModuleTypeSaveFunc rdb_save;
    RedisModuleTypeRewriteFunc aof_rewrite;
    RedisModuleTypeDigestFunc digest;
} flr_type_glue;

/* Creates the data type and its commands (datatype.c). */
int flr_type_register(RedisModuleCtx *ctx, const flr_type_ops *ops, const flr_type_glue *glue,
                      const flr_command *commands, size_t n_commands);

/* The module API passes no user data to a type's methods or to a command, and C has no
 * closures: each type needs its own functions that hand its ops to the generic code. This
 * writes them: <p>_type_glue (for flr_type_register) and the commands <p>_cmd_scandump and
 * <p>_cmd_loadchunk (for the type's command table). */
#define FLR_TYPE_GLUE(p, ops)                                                                  \
    static void *p##_rdb_load(RedisModuleIO *io, int encver) {                                 \
        return flr_type_rdb_load(io, encver, &(ops));                                          \
    }                                                                                          \
    static void p##_rdb_save(RedisModuleIO *io, void *v) { flr_type_rdb_save(io, v, &(ops)); } \
    static void p##_aof_rewrite(RedisModuleIO *aof, RedisModuleString *key, void *v) {         \
        flr_type_aof_rewrite(aof, key, v, &(ops));                                             \
    }                                                                                          \
    static void p##_digest(RedisModuleDigest *md, void *v) { flr_digest(md, &(ops), v); }     \
    static const flr_type_glue p##_type_glue = {p##_rdb_load, p##_rdb_save, p##_aof_rewrite,  \
                                                p##_digest};                                   \
    static int p##_cmd_scandump(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {     \
        return flr_scandump(ctx, argv, argc, &(ops));                                          \
    }                                                                                          \
    static int p##_cmd_loadchunk(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {    \
        return flr_loadchunk(ctx, argv, argc, &(ops));                                         \
    }

/* A key that must not exist yet (RESERVE / INIT*): NULL if a reply was sent (another type
 * gets WRONGTYPE, an existing value gets exists_error). */
RedisModuleKey *flr_open_new(RedisModuleCtx *ctx, RedisModuleString *name, RedisModuleType *type,
                             const char *exists_error);
/* A key for a write that creates a missing value (create(ctx, config), which replies
 * itself when it fails) unless nocreate: NULL if a reply was sent (another type gets
 * WRONGTYPE, a missing key with nocreate "ERR not found"), else the key, with *value. */
RedisModuleKey *flr_open_or_create(RedisModuleCtx *ctx, RedisModuleString *name,
                                   RedisModuleType *type, int nocreate,
                                   void *(*create)(RedisModuleCtx *ctx, const void *config),
                                   const void *config, void **value);
/* A key that must hold a value of the type: NULL if a reply was sent (another type gets
 * WRONGTYPE, a missing key gets missing_error), else the key, with *value. */
RedisModuleKey *flr_open_existing(RedisModuleCtx *ctx, RedisModuleString *name, int mode,
                                  RedisModuleType *type, const char *missing_error,
                                  void **value);

/* Each type's calls (FLR_TYPES): its registration at load; FILTERLAB.INFO's
 * structure-specific fields (the facts beyond RedisBloom's INFO reply: replies with
 * name/value pairs and returns how many replies it made); the kernel a value's lookups use. */
#define FLR_DECLARE_TYPE_CALLS_(name)                                                       \
    int flr_##name##_register(RedisModuleCtx *ctx);                                         \
    int flr_##name##_info_extra(RedisModuleCtx *ctx, void *value);                          \
    const char *flr_##name##_kernel(void *value);
FLR_TYPES(FLR_DECLARE_TYPE_CALLS_)
#undef FLR_DECLARE_TYPE_CALLS_

#endif /* FLR_COMMON_H */
