/*
 * The serialization of a GROWTH INPLACE value (inplace.h), with no Redis dependency (the
 * module, the unit tests and tests/fuzz_redis_chunk.c link it):
 *   0  "FLRGROW1"  the layout tag (a BF chain's blob starts with the library's file magic
 *                  "FLTRLAB\x1a", a CF chain's with "FLCF")
 *   8  u32 kind (enum flr_inplace_kind)   12 u32 bucket size   16 u32 max iterations
 *   20 u32 0       24 u64 error rate (IEEE 754 bits)   32 u64 capacity   40 u64 deleted
 *   48 u64 XXH3-64 of bytes 0..47
 *   56 the filter (fl_gcf_save_mem: its own header and checksum)
 * All integers little-endian.
 */
#ifndef FLR_INPLACE_CODEC_H
#define FLR_INPLACE_CODEC_H
#include <filterlab.h>
#include <stddef.h>
#include <stdint.h>

enum flr_inplace_kind { FLR_INPLACE_BF = 1, FLR_INPLACE_CF = 2 };

typedef struct flr_inplace {
    fl_gcf *g;
    uint32_t kind;                        /* enum flr_inplace_kind */
    uint32_t bucket_size, max_iterations; /* CF: as CF.RESERVE asked (reported); BF: 0 */
    double error_rate;                    /* BF: the FPR bound; CF: 0 */
    uint64_t capacity;                    /* the capacity the key was created for */
    uint64_t deleted;                     /* CF: deletes (CF.INFO) */
    /* Not saved: the server's MAX_BYTES, whether the error rate stops the next doubling,
     * the table's bucket bits when that was decided, the "full" warning logged. */
    uint64_t max_bytes;
    int fpr_stop, warned_full;
    uint32_t kbits_seen;
} flr_inplace;

#define FLR_INPLACE_HEADER 56u

void flr_inplace_free(flr_inplace *ip);
/* 1 if the blob starts with the INPLACE tag (chain blobs never do). */
int flr_inplace_is_blob(const uint8_t *blob, size_t len);
/* The value's blob, malloc'ed, *len its bytes; NULL when out of memory or the filter does not
 * save. */
uint8_t *flr_inplace_encode(const flr_inplace *ip, size_t *len);
/* A value from a whole blob of `kind`: FL_OK with *out, its filter loaded with load_max
 * (fl_gcf_load_mem's max_bytes) and the fields past the saved ones zero (the owner sets its
 * growth limit); FL_ERR_CORRUPT for a header that is not one of `kind` (tag, hash, kind,
 * reserved field, capacity 0, an error rate or bucket size out of range), the library
 * loader's error for the filter, FL_ERR_NO_MEMORY. *out is untouched on an error. */
fl_status flr_inplace_decode(const uint8_t *blob, size_t len, uint32_t kind, uint64_t load_max,
                             flr_inplace **out);

#endif /* FLR_INPLACE_CODEC_H */
