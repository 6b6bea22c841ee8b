/*
 * filterlab errors: fl_status, the code every call that can fail returns, and fl_strerror
 * (included by filterlab.h).
 */
#ifndef FILTERLAB_ERRORS_H
#define FILTERLAB_ERRORS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------------------- */
typedef enum fl_status {
    FL_OK = 0,
    FL_ERR_INVALID_ARG,       /* NULL pointer, unknown variant, bad flag */
    FL_ERR_BAD_N,             /* n = 0 */
    FL_ERR_BAD_FPR,           /* FPR <= 0, >= 1, NaN, or unreachable for the variant */
    FL_ERR_BAD_K,             /* k out of the variant's range (or fingerprint bits not 8/16) */
    FL_ERR_BAD_GEOMETRY,      /* zero or too many blocks/words/buckets */
    FL_ERR_TOO_LARGE,         /* size overflows size_t, or exceeds a caller-set limit */
    FL_ERR_NO_MEMORY,         /* allocation failed */
    FL_ERR_FULL,              /* cuckoo: no room; the filter is unchanged */
    FL_ERR_NOT_FOUND,         /* cuckoo delete of a key that is not there */
    FL_ERR_UNSUPPORTED,       /* operation not defined for this variant */
    FL_ERR_INCOMPATIBLE,      /* union of filters with different geometry/hash/seed */
    FL_ERR_IO,                /* open/read/write failed (errno is left set) */
    FL_ERR_BAD_MAGIC,         /* not a filterlab file */
    FL_ERR_BAD_VERSION,       /* format version this build cannot read */
    FL_ERR_TRUNCATED,         /* input ends before the structure it announces */
    FL_ERR_TRAILING_DATA,     /* bytes after the end of the structure */
    FL_ERR_CHECKSUM,          /* XXH3 checksum mismatch (header or payload) */
    FL_ERR_CORRUPT,           /* fields valid one by one but inconsistent with each other */
    FL_ERR_BAD_PARQUET,       /* malformed Parquet BloomFilterHeader or bitset */
    FL_ERR_UNKNOWN_KERNEL,    /* kernel name that was not compiled in */
    FL_ERR_KERNEL_UNAVAILABLE,/* kernel compiled in but this CPU/OS cannot run it */
    FL_ERR_BUFFER_TOO_SMALL,  /* output buffer smaller than fl_serialized_size() */
    FL_ERR_WRONG_KIND,        /* a file holding another kind of structure than the call loads */
    FL_ERR_BAD_PRECISION,     /* HyperLogLog precision outside [FL_HLL_P_MIN, FL_HLL_P_MAX] */
    FL_ERR_HLL_FORMAT,        /* not a Redis HyperLogLog string (magic, encoding, opcodes) */
    FL_ERR_BAD_ACCURACY,      /* Count-Min epsilon, delta or phi outside (0, 1) or NaN */
    FL_ERR_BAD_GROWTH,        /* scalable Bloom growth factor below 1, NaN or infinite */
    FL_ERR_BAD_TIGHTENING,    /* scalable Bloom tightening ratio outside (0, 1) */
    FL_ERR_BUILD_FAILED,      /* static filter: no seed of max_tries gave a construction */
    FL_ERR_DUPLICATE_KEY,     /* Bloomier filter: one key given with two different values */
    FL_ERR_INTERRUPTED,       /* a save abandoned: the interrupt flag was set (see
                                 fl_set_interrupt_flag); the old file is untouched */
    FL_STATUS_COUNT
} fl_status;

/* A static, human-readable sentence for a status (never NULL). */
const char *fl_strerror(fl_status s);

#ifdef __cplusplus
}
#endif
#endif /* FILTERLAB_ERRORS_H */
