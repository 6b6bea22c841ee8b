/*
 * Names: status messages, variant names, and the per-variant unit size.
 */
#include <string.h>

#include "internal.h"

static const char *const status_text[FL_STATUS_COUNT] = {
    [FL_OK] = "success",
    [FL_ERR_INVALID_ARG] = "invalid argument",
    [FL_ERR_BAD_N] = "number of keys must be at least 1 and addressable by the variant",
    [FL_ERR_BAD_FPR] = "false positive rate must be in (0, 1) and reachable by the variant",
    [FL_ERR_BAD_K] = "k (bits per key, or fingerprint bits) out of range for the variant",
    [FL_ERR_BAD_GEOMETRY] = "geometry needs between 1 and 2^32-1 units",
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
};

const char *fl_strerror(fl_status s) {
    if ((unsigned)s >= FL_STATUS_COUNT || !status_text[s]) return "unknown status";
    return status_text[s];
}

static const char *const variant_names[] = {
    [FL_CLASSIC] = "classic", [FL_BLOCK512] = "block512", [FL_SPLIT256] = "split256",
    [FL_REG64] = "reg64",     [FL_CUCKOO] = "cuckoo",
};

const char *fl_variant_name(fl_variant v) {
    if (v < FL_VARIANT_MIN || v > FL_VARIANT_MAX) return NULL;
    return variant_names[v];
}

fl_status fl_variant_parse(const char *name, fl_variant *out) {
    if (!name || !out) return FL_ERR_INVALID_ARG;
    for (int v = FL_VARIANT_MIN; v <= FL_VARIANT_MAX; v++) {
        if (strcmp(name, variant_names[v]) == 0) {
            *out = (fl_variant)v;
            return FL_OK;
        }
    }
    return FL_ERR_INVALID_ARG;
}

/* Bytes per addressing unit (0 for an unknown variant). */
size_t fl_unit_bytes(fl_variant v, uint32_t k) {
    switch (v) {
    case FL_CLASSIC:
    case FL_REG64: return 8;
    case FL_BLOCK512: return 64;
    case FL_SPLIT256: return 32;
    case FL_CUCKOO: return k == 8 ? 4 : 8;
    }
    return 0;
}

fl_kfamily fl_family_of(const fl_geometry *g) {
    switch (g->variant) {
    case FL_CLASSIC: return FL_K_CLASSIC;
    case FL_BLOCK512: return FL_K_BLOCK512;
    case FL_SPLIT256: return FL_K_SPLIT256;
    case FL_REG64: return FL_K_REG64;
    case FL_CUCKOO: return g->k == 8 ? FL_K_CUCKOO8 : FL_K_CUCKOO16;
    }
    return FL_K_COUNT;
}
