/*
 * Status messages. (Variant names and sizes are in the descriptors of src/core/variants.c.)
 */

#include "core/internal.h"

static const char *const status_text[FL_STATUS_COUNT] = {
    [FL_OK] = "success",
    [FL_ERR_INVALID_ARG] = "invalid argument",
    [FL_ERR_BAD_N] = "number of keys must be at least 1 and addressable by the variant",
    [FL_ERR_BAD_FPR] = "false positive rate must be in (0, 1) and reachable by the variant",
    [FL_ERR_BAD_K] = "k (bits per key, or fingerprint bits) out of range for the variant",
    [FL_ERR_BAD_GEOMETRY] = "geometry needs between 1 and 2^32-1 units",
    [FL_ERR_INTERRUPTED] = "interrupted: the save was abandoned and the old file left as it was",
    [FL_ERR_TOO_LARGE] = "size overflows or exceeds the allowed limit",
    [FL_ERR_NO_MEMORY] = "out of memory",
    [FL_ERR_FULL] = "cuckoo filter is full; the key was not inserted and nothing was lost",
    [FL_ERR_NOT_FOUND] = "key not found",
    [FL_ERR_UNSUPPORTED] = "operation not supported by this filter variant",
    [FL_ERR_INCOMPATIBLE] = "filters differ in variant, geometry, hash or seed",
    [FL_ERR_IO] = "input/output error",
    [FL_ERR_BAD_MAGIC] = "not a filterlab file (bad magic)",
    [FL_ERR_BAD_VERSION] = "unsupported filterlab format version",
    [FL_ERR_TRUNCATED] = "input is truncated",
    [FL_ERR_TRAILING_DATA] = "unexpected bytes after the end of the data",
    [FL_ERR_CHECKSUM] = "checksum mismatch (data corrupted)",
    [FL_ERR_CORRUPT] = "inconsistent fields (data corrupted or crafted)",
    [FL_ERR_BAD_PARQUET] = "malformed or unsupported Parquet Bloom filter",
    [FL_ERR_UNKNOWN_KERNEL] = "unknown kernel name",
    [FL_ERR_KERNEL_UNAVAILABLE] = "kernel not supported by this CPU or operating system",
    [FL_ERR_BUFFER_TOO_SMALL] = "output buffer too small",
    [FL_ERR_WRONG_KIND] = "file holds another kind of structure (not a filter, or a kind newer than this build)",
    [FL_ERR_BAD_PRECISION] = "HyperLogLog precision must be between 4 and 16 (Redis uses 14)",
    [FL_ERR_HLL_FORMAT] = "not a valid Redis HyperLogLog string (magic, encoding or opcodes)",
    [FL_ERR_BAD_ACCURACY] = "Count-Min epsilon, delta and phi must be between 0 and 1 (exclusive)",
    [FL_ERR_BAD_GROWTH] = "scalable Bloom growth factor must be a finite number >= 1 (RedisBloom's EXPANSION; default 2)",
    [FL_ERR_BAD_TIGHTENING] = "scalable Bloom tightening ratio must be in (0, 1) (default 0.5)",
    [FL_ERR_BUILD_FAILED] = "static filter construction failed for every seed tried (raise max_tries; a key set this unlucky is astronomically rare)",
    [FL_ERR_DUPLICATE_KEY] = "Bloomier filter: a key is given twice with different values",
};

const char *fl_strerror(fl_status s) {
    if ((unsigned)s >= FL_STATUS_COUNT || !status_text[s]) return "unknown status";
    return status_text[s];
}
