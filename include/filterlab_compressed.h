/*
 * filterlab compressed Bloom filters, after Mitzenmacher, "Compressed Bloom Filters"
 * (IEEE/ACM Transactions on Networking 10(5), 2002), and seed chapter 004, section 4.11.4:
 * a Bloom filter sized for the size it has once compressed (what a network carries), stored
 * in independently compressed chunks so a reader decompresses only the chunks its lookups
 * need.
 *
 * Included by filterlab.h; include that header, not this one.
 *
 * Sizing (Mitzenmacher 2002, section III)
 *   With n keys, m bits and k hash functions a fraction p = exp(-k n / m) of the bits stays
 *   0 (section II), the FPR is f = (1 - p)^k, and an optimal coder needs m H(p) bits, where
 *   H(p) = -p log2 p - (1 - p) log2 (1 - p) (the bits are close to independent with
 *   P(0) = p). An uncompressed filter minimises f for a given m at p = 1/2 (k = ln 2 m / n),
 *   where H = 1 and compression gains nothing; for a given compressed size z = m H(p), f
 *   keeps falling as m grows and k falls (p moves away from 1/2), so the trade is between
 *   z, f and the uncompressed m a reader must hold: the caller bounds m (m_max_bits) and
 *   fl_cbf_plan_for_bits picks, over every k of the variant and every size up to m_max, the
 *   (m, k) with m H(p) <= z and the least FPR, by the variant's own model (src/core/models.c;
 *   for the blocked variants p and f follow Putze et al.'s per-block model, for classic
 *   the formulas above). fl_cbf_plan_for_fpr is the dual: the least m H(p) for an FPR.
 *
 * Chunks and coders
 *   The payload is cut into chunks of chunk_bytes (a multiple of 64) compressed one by one,
 *   with an index of their offsets. A blocked variant (block512, split256, reg64) keeps a
 *   key in one unit, so a lookup decompresses exactly one chunk; classic variants spread a
 *   key over the whole array and are refused by the chunked lookups (decompress them whole).
 *   Coders: FL_CODER_GOLOMB, Golomb-Rice codes of the gaps between set bits (of the clear
 *   bits when those are fewer), the classic code for a sparse bitset whose gaps are close
 *   to geometric (Golomb 1966; Gallager and van Voorhis 1975), with the Rice parameter
 *   chosen per chunk for the shortest code; FL_CODER_ZSTD, zstd (RFC 8878) at level 19.
 *   FL_CODER_DEFAULT is the one measured smaller on Bloom payloads (scripts/repro table 13).
 *   A chunk the coder does not make shorter (a filter near half full has nothing to gain) is
 *   stored as it is, so the compressed form never exceeds the payload plus the index.
 *
 * A compressed filter answers lookups only: adds go to an fl_filter that is compressed again.
 */
#ifndef FILTERLAB_COMPRESSED_H
#define FILTERLAB_COMPRESSED_H

#include <stddef.h>
#include <stdint.h>

#include "filterlab.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fl_coder {
    FL_CODER_GOLOMB = 1,
    FL_CODER_ZSTD = 2,
} fl_coder;
#define FL_CODER_DEFAULT FL_CODER_GOLOMB
/* "golomb", "zstd"; NULL for an unknown value. */
const char *fl_coder_name(fl_coder c);
fl_status fl_coder_parse(const char *name, fl_coder *out);

#define FL_CBF_CHUNK_DEFAULT 4096u      /* bytes of payload per chunk */
#define FL_CBF_CHUNK_MAX (1u << 24)

/* A sizing plan: the geometry, and what the models predict for n keys. */
typedef struct fl_cbf_plan {
    fl_geometry geometry;
    uint64_t bits;           /* m: uncompressed payload bits */
    double zero_fraction;    /* p: expected fraction of 0 bits */
    double entropy_bits;     /* m H(p): the compressed size an optimal coder reaches */
    double fpr;              /* the variant's model at n keys */
} fl_cbf_plan;

/* Binary entropy H(p) in bits (0 at p = 0 or 1). */
double fl_cbf_entropy(double p);
/* The plan for n keys and this geometry (p from the variant's model of bit occupancy). */
fl_status fl_cbf_plan_geometry(const fl_geometry *g, uint64_t n, fl_cbf_plan *out);
/* Least FPR with m H(p) <= z_bits and m <= m_max_bits (Mitzenmacher 2002, above).
 * Errors: FL_ERR_INVALID_ARG (NULL, a variant that is not a bit array), FL_ERR_BAD_N,
 * FL_ERR_TOO_LARGE (no geometry fits: z_bits or m_max_bits too small for one unit). */
fl_status fl_cbf_plan_for_bits(fl_variant v, uint64_t n, uint64_t z_bits, uint64_t m_max_bits,
                               fl_cbf_plan *out);
/* Least m H(p) with FPR <= fpr and m <= m_max_bits (FL_ERR_BAD_FPR if none reaches it). */
fl_status fl_cbf_plan_for_fpr(fl_variant v, uint64_t n, double fpr, uint64_t m_max_bits,
                              fl_cbf_plan *out);

typedef struct fl_cbf fl_cbf;

/* Compresses a Bloom bit-array filter (classic, block512, split256, reg64) in chunks of
 * chunk_bytes (0: FL_CBF_CHUNK_DEFAULT; else a multiple of 64 up to FL_CBF_CHUNK_MAX).
 * Errors: FL_ERR_INVALID_ARG, FL_ERR_UNSUPPORTED (counting or cuckoo filters), FL_ERR_NO_MEMORY. */
fl_status fl_cbf_compress(const fl_filter *f, fl_coder coder, uint32_t chunk_bytes,
                          fl_cbf **out);
void fl_cbf_free(fl_cbf *c);
/* The filter, decompressed whole (every chunk checked). FL_ERR_CORRUPT if a chunk does not
 * decode to exactly its bytes. */
fl_status fl_cbf_decompress(const fl_cbf *c, fl_filter **out);
/* Decodes every chunk once without keeping them: FL_OK or FL_ERR_CORRUPT. */
fl_status fl_cbf_verify(const fl_cbf *c);

uint64_t fl_cbf_hash_bytes(const fl_cbf *c, const void *key, size_t len);
/* One key: decompresses the one chunk holding its unit. *found = 1 or 0. Errors:
 * FL_ERR_UNSUPPORTED (classic), FL_ERR_CORRUPT (the chunk does not decode), NO_MEMORY. */
fl_status fl_cbf_contains_hash(const fl_cbf *c, uint64_t hash, int *found);
/* A batch: keys grouped by chunk, each needed chunk decompressed once. *chunks_decoded (if
 * given) says how many were. */
fl_status fl_cbf_contains_hashes(const fl_cbf *c, const uint64_t *hashes, size_t n,
                                 uint8_t *out, size_t *positives, size_t *chunks_decoded);

typedef struct fl_cbf_info {
    fl_geometry geometry;
    fl_hash_id hash;
    uint64_t seed;
    uint64_t keys;
    fl_coder coder;
    uint32_t chunk_bytes;
    uint64_t chunks;
    size_t payload_bytes;     /* uncompressed */
    size_t compressed_bytes;  /* the chunks' codes together */
    size_t index_bytes;       /* the chunk index */
    uint64_t ones;            /* set bits of the payload */
    double entropy_bits;      /* m H(ones / m): the bound for this payload */
} fl_cbf_info;
fl_status fl_cbf_get_info(const fl_cbf *c, fl_cbf_info *out);

/* Serialization: a container of kind FL_FILE_COMPRESSED_BLOOM (src/compressed/codec_compressed.c).
 * max_bytes caps the uncompressed payload the file describes (0 = none). The load checks
 * the container and the index; chunks are decoded when a lookup needs them (fl_cbf_verify
 * checks them all). */
/* fl_cbf_serialized_size, fl_cbf_save_mem, fl_cbf_load_mem,
 * fl_cbf_save_file, fl_cbf_load_file */
FL_DECLARE_FILE_CALLS(fl_cbf, fl_cbf);

#ifdef __cplusplus
}
#endif
#endif /* FILTERLAB_COMPRESSED_H */
