/*
 * Compressed Bloom filters (Mitzenmacher 2002; seed 004, 4.11.4): sizing for a compressed
 * size, compression in chunks, and lookups that decompress only the chunks they need. The
 * formulas and the choice of coders are in include/filterlab_compressed.h; the coders are
 * src/compressed/coder_golomb.c and src/compressed/coder_zstd.c, the file codec
 * src/compressed/codec_compressed.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "probe.h"
#include "compressed/compressed_internal.h"

const char *fl_coder_name(fl_coder c) {
    switch (c) {
    case FL_CODER_GOLOMB: return "golomb";
    case FL_CODER_ZSTD: return "zstd";
    }
    return NULL;
}

fl_status fl_coder_parse(const char *name, fl_coder *out) {
    if (!name || !out) return FL_ERR_INVALID_ARG;
    if (strcmp(name, "golomb") == 0) *out = FL_CODER_GOLOMB;
    else if (strcmp(name, "zstd") == 0) *out = FL_CODER_ZSTD;
    else return FL_ERR_INVALID_ARG;
    return FL_OK;
}

const fl_chunk_coder *fl_chunk_coder_of(fl_coder c) {
    switch (c) {
    case FL_CODER_GOLOMB: return &fl_coder_golomb;
    case FL_CODER_ZSTD: return &fl_coder_zstd;
    }
    return NULL;
}

/* ---- sizing ------------------------------------------------------------------------------ */

double fl_cbf_entropy(double p) {
    if (!(p > 0 && p < 1)) return 0;
    return -p * log2(p) - (1 - p) * log2(1 - p);
}

/* The bit arrays: classic, and the blocked variants whose block holds a key's bits. */
static int bit_array(const fl_variant_desc *d) {
    return d && d->info.unit_slots == 0 && d->info.counter_bits == 0;
}

/* Expected fraction of 0 bits. Classic: p = (1 - 1/m)^(kn) (Mitzenmacher 2002, section II).
 * Blocked (Putze, Sanders, Singler 2007): a block receives Poisson(lambda = n / blocks)
 * keys, each leaving a given bit 0 with probability q (k bits with replacement among B:
 * q = (1 - 1/B)^k; one bit in each of w words of B / w bits: q = 1 - w / B), so
 * E[p] = sum_j Poisson(j) q^j = exp(-lambda (1 - q)). */
static double zero_fraction(const fl_variant_desc *d, const fl_geometry *g, double n,
                            double m) {
    if (d->block_bits == 0) return exp((double)g->k * n * log1p(-1.0 / m));
    double B = d->block_bits, lambda = n / (double)g->units;
    double q = d->block_words ? 1.0 - d->block_words / B : pow(1.0 - 1.0 / B, g->k);
    return exp(-lambda * (1.0 - q));
}

fl_status fl_cbf_plan_geometry(const fl_geometry *g, uint64_t n, fl_cbf_plan *out) {
    if (!g || !out) return FL_ERR_INVALID_ARG;
    const fl_variant_desc *d = fl_variant_desc_of(g->variant);
    if (!bit_array(d)) return FL_ERR_INVALID_ARG;
    size_t bytes = 0;
    fl_status st = fl_geometry_check(g, &bytes);
    if (st != FL_OK) return st;
    memset(out, 0, sizeof *out);
    out->geometry = *g;
    out->bits = 8 * (uint64_t)bytes;
    out->zero_fraction = zero_fraction(d, g, (double)n, (double)out->bits);
    out->entropy_bits = (double)out->bits * fl_cbf_entropy(out->zero_fraction);
    out->fpr = fl_predict_fpr(g, n);
    return isnan(out->fpr) ? FL_ERR_NO_MEMORY : FL_OK; /* the blocked model's tables */
}

/* For each valid k, units in [1, hi] are searched by bisection: m H(p) grows with m at fixed
 * k and n (d/dm m H(p) = H(p) - p ln(1/p) log2(p / (1 - p)) > 0 for every p) and the FPR
 * falls with m, so "m H(p) <= z" and "FPR <= f" each hold on one side of a threshold. */
typedef int (*plan_ok_fn)(const fl_cbf_plan *p, double bound);

static int fits_bits(const fl_cbf_plan *p, double z) {
    return p->entropy_bits <= z;
}
static int meets_fpr(const fl_cbf_plan *p, double f) {
    return p->fpr <= f;
}

static uint64_t units_max_for(const fl_variant_desc *d, uint32_t k, uint64_t m_max_bits) {
    uint64_t unit_bits = 8 * (uint64_t)d->unit_bytes(k);
    uint64_t hi = d->info.units_max;
    if (m_max_bits && m_max_bits / unit_bits < hi) hi = m_max_bits / unit_bits;
    return hi;
}

static fl_status plan(fl_variant v, uint64_t n, double bound, uint64_t m_max_bits,
                      int for_bits, fl_cbf_plan *out) {
    if (!out) return FL_ERR_INVALID_ARG;
    const fl_variant_desc *d = fl_variant_desc_of(v);
    if (!bit_array(d)) return FL_ERR_INVALID_ARG;
    if (n == 0) return FL_ERR_BAD_N;
    plan_ok_fn ok = for_bits ? fits_bits : meets_fpr;
    int found = 0;
    fl_cbf_plan best;
    memset(&best, 0, sizeof best);
    for (uint32_t k = d->info.k_min; k <= d->info.k_max; k++) {
        if (!fl_variant_k_valid(d, k)) continue;
        uint64_t hi = units_max_for(d, k, m_max_bits);
        if (hi == 0) continue;
        fl_cbf_plan p;
        fl_geometry g = {v, 1, k};
        /* for_bits: the largest units that fit; for an FPR: the smallest that meets it */
        uint64_t lo_u = 1, hi_u = hi;
        g.units = for_bits ? lo_u : hi_u;
        if (fl_cbf_plan_geometry(&g, n, &p) != FL_OK || !ok(&p, bound)) continue;
        while (lo_u < hi_u) {
            uint64_t mid = for_bits ? lo_u + (hi_u - lo_u + 1) / 2 : lo_u + (hi_u - lo_u) / 2;
            g.units = mid;
            int good = fl_cbf_plan_geometry(&g, n, &p) == FL_OK && ok(&p, bound);
            if (for_bits) {
                if (good) lo_u = mid;
                else hi_u = mid - 1;
            } else {
                if (good) hi_u = mid;
                else lo_u = mid + 1;
            }
        }
        g.units = lo_u;
        if (fl_cbf_plan_geometry(&g, n, &p) != FL_OK) continue;
        int better = for_bits ? p.fpr < best.fpr : p.entropy_bits < best.entropy_bits;
        if (!found || better) best = p;
        found = 1;
    }
    if (!found) return for_bits ? FL_ERR_TOO_LARGE : FL_ERR_BAD_FPR;
    *out = best;
    return FL_OK;
}

fl_status fl_cbf_plan_for_bits(fl_variant v, uint64_t n, uint64_t z_bits, uint64_t m_max_bits,
                               fl_cbf_plan *out) {
    if (z_bits == 0) return FL_ERR_TOO_LARGE;
    return plan(v, n, (double)z_bits, m_max_bits, 1, out);
}

fl_status fl_cbf_plan_for_fpr(fl_variant v, uint64_t n, double fpr, uint64_t m_max_bits,
                              fl_cbf_plan *out) {
    if (!(fpr > 0 && fpr < 1)) return FL_ERR_BAD_FPR;
    return plan(v, n, fpr, m_max_bits, 0, out);
}

/* ---- compression ------------------------------------------------------------------------- */

fl_status fl_cbf_check_fields(fl_cbf *c) {
    c->desc = fl_variant_desc_of(c->g.variant);
    if (!bit_array(c->desc)) return FL_ERR_CORRUPT;
    if (c->hash != FL_HASH_XXH3 && c->hash != FL_HASH_XXH64) return FL_ERR_CORRUPT;
    size_t bytes = 0;
    fl_status st = fl_geometry_check(&c->g, &bytes);
    if (st == FL_ERR_TOO_LARGE) return st;
    if (st != FL_OK) return FL_ERR_CORRUPT;
    if (!fl_chunk_coder_of(c->coder)) return FL_ERR_CORRUPT;
    if (c->chunk_bytes == 0 || c->chunk_bytes % 64 || c->chunk_bytes > FL_CBF_CHUNK_MAX)
        return FL_ERR_CORRUPT;
    c->payload = bytes;
    c->unit_bytes = c->desc->unit_bytes(c->g.k);
    /* a chunk holds whole units (64 is a multiple of every bit array's unit) */
    if (c->unit_bytes == 0 || c->chunk_bytes % c->unit_bytes) return FL_ERR_CORRUPT;
    c->chunks = (bytes + c->chunk_bytes - 1) / c->chunk_bytes;
    if (c->ones > 8 * (uint64_t)bytes) return FL_ERR_CORRUPT;
    return FL_OK;
}

static size_t chunk_len(const fl_cbf *c, uint64_t i) {
    size_t at = (size_t)i * c->chunk_bytes;
    return c->payload - at < c->chunk_bytes ? c->payload - at : c->chunk_bytes;
}

fl_status fl_cbf_compress(const fl_filter *f, fl_coder coder, uint32_t chunk_bytes,
                          fl_cbf **out) {
    if (out) *out = NULL;
    if (!f || !out) return FL_ERR_INVALID_ARG;
    const fl_chunk_coder *cc = fl_chunk_coder_of(coder);
    if (!cc) return FL_ERR_INVALID_ARG;
    if (chunk_bytes == 0) chunk_bytes = FL_CBF_CHUNK_DEFAULT;
    if (chunk_bytes % 64 || chunk_bytes > FL_CBF_CHUNK_MAX) return FL_ERR_INVALID_ARG;
    if (!bit_array(f->desc)) return FL_ERR_UNSUPPORTED;
    fl_cbf *c = calloc(1, sizeof *c);
    if (!c) return FL_ERR_NO_MEMORY;
    c->g = f->g;
    c->hash = f->hash;
    c->seed = f->seed;
    c->keys = f->keys;
    c->coder = coder;
    c->chunk_bytes = chunk_bytes;
    c->ones = fl_cbf_popcount(f->data, f->bytes);
    fl_status st = fl_cbf_check_fields(c);
    if (st != FL_OK) {
        free(c);
        return st == FL_ERR_CORRUPT ? FL_ERR_INVALID_ARG : st;
    }
    /* Every chunk takes at most its own length (stored, below), so the payload's size bounds
     * the codes; one scratch buffer takes each coder's worst case. */
    size_t scratch_cap = cc->bound(chunk_bytes);
    uint8_t *scratch = malloc(scratch_cap);
    c->offsets = malloc((c->chunks + 1) * sizeof *c->offsets);
    c->codes = malloc(c->payload);
    if (!scratch || !c->offsets || !c->codes) {
        free(scratch);
        fl_cbf_free(c);
        return FL_ERR_NO_MEMORY;
    }
    size_t at = 0;
    c->offsets[0] = 0;
    for (uint64_t i = 0; i < c->chunks; i++) {
        const uint8_t *src = (const uint8_t *)f->data + (size_t)i * chunk_bytes;
        size_t len = chunk_len(c, i);
        size_t n = cc->encode(src, len, scratch, scratch_cap);
        if (n == 0) {
            free(scratch);
            fl_cbf_free(c);
            return FL_ERR_NO_MEMORY;
        }
        if (n >= len) { /* no gain: the chunk is stored as it is */
            memcpy(c->codes + at, src, len);
            n = len;
        } else {
            memcpy(c->codes + at, scratch, n);
        }
        at += n;
        c->offsets[i + 1] = at;
    }
    free(scratch);
    c->code_bytes = at;
    uint8_t *shrunk = realloc(c->codes, at ? at : 1);
    if (shrunk) c->codes = shrunk;
    *out = c;
    return FL_OK;
}

void fl_cbf_free(fl_cbf *c) {
    if (!c) return;
    free(c->offsets);
    free(c->codes);
    free(c);
}

/* A code exactly as long as its chunk is the chunk itself, stored: the encoder keeps a code
 * only when it is shorter, so the two never meet. */
static fl_status decode_chunk(const fl_cbf *c, uint64_t i, uint8_t *dst) {
    const fl_chunk_coder *cc = fl_chunk_coder_of(c->coder);
    const uint8_t *code = c->codes + c->offsets[i];
    size_t n = (size_t)(c->offsets[i + 1] - c->offsets[i]), len = chunk_len(c, i);
    if (n == len) {
        memcpy(dst, code, len);
        return FL_OK;
    }
    return cc->decode(code, n, dst, len);
}

fl_status fl_cbf_decompress(const fl_cbf *c, fl_filter **out) {
    if (out) *out = NULL;
    if (!c || !out) return FL_ERR_INVALID_ARG;
    fl_config cfg = {.variant = c->g.variant, .geometry = c->g, .hash = c->hash,
                     .seed = c->seed};
    fl_filter *f = NULL;
    fl_status st = fl_create(&cfg, &f);
    if (st != FL_OK) return st;
    for (uint64_t i = 0; i < c->chunks && st == FL_OK; i++)
        st = decode_chunk(c, i, (uint8_t *)f->data + (size_t)i * c->chunk_bytes);
    if (st == FL_OK && fl_cbf_popcount(f->data, f->bytes) != c->ones) st = FL_ERR_CORRUPT;
    if (st != FL_OK) {
        fl_free(f);
        return st;
    }
    f->keys = c->keys;
    *out = f;
    return FL_OK;
}

fl_status fl_cbf_verify(const fl_cbf *c) {
    if (!c) return FL_ERR_INVALID_ARG;
    uint8_t *buf = malloc(c->chunk_bytes);
    if (!buf) return FL_ERR_NO_MEMORY;
    fl_status st = FL_OK;
    uint64_t ones = 0;
    for (uint64_t i = 0; i < c->chunks && st == FL_OK; i++) {
        st = decode_chunk(c, i, buf);
        if (st == FL_OK) ones += fl_cbf_popcount(buf, chunk_len(c, i));
    }
    free(buf);
    if (st == FL_OK && ones != c->ones) st = FL_ERR_CORRUPT;
    return st;
}

/* ---- chunked lookups --------------------------------------------------------------------- */

uint64_t fl_cbf_hash_bytes(const fl_cbf *c, const void *key, size_t len) {
    if (!c || (!key && len)) return 0;
    if (!key) key = "";
    if (c->hash == FL_HASH_XXH64) return XXH64(key, len, c->seed);
    return XXH3_64bits_withSeed(key, len, c->seed);
}

/* Chunked lookups need a variant whose key lives in one unit, found by reduce32(h >> 32,
 * units) (kernels/probe.h), and whose in-unit positions do not depend on the unit count: its
 * descriptor's unit_probe then answers from a one-unit view of the decoded unit exactly as the
 * whole filter does. Any other variant is refused, never probed. */
static int blocked(const fl_cbf *c) {
    return c->desc->unit_probe != NULL;
}

static uint32_t unit_of(const fl_cbf *c, uint64_t h) {
    return fl_reduce32((uint32_t)(h >> 32), (uint32_t)c->g.units);
}

static int probe_unit(const fl_cbf *c, const uint8_t *unit, uint64_t h) {
    fl_kview v = fl_bloom_view(unit, 1, c->g.k);
    return c->desc->unit_probe(&v, h);
}

fl_status fl_cbf_contains_hash(const fl_cbf *c, uint64_t hash, int *found) {
    if (found) *found = 0;
    if (!c || !found) return FL_ERR_INVALID_ARG;
    if (!blocked(c)) return FL_ERR_UNSUPPORTED;
    size_t byte = (size_t)unit_of(c, hash) * c->unit_bytes;
    uint64_t chunk = byte / c->chunk_bytes;
    uint8_t *buf = malloc(c->chunk_bytes);
    if (!buf) return FL_ERR_NO_MEMORY;
    fl_status st = decode_chunk(c, chunk, buf);
    if (st == FL_OK) *found = probe_unit(c, buf + byte % c->chunk_bytes, hash);
    free(buf);
    return st;
}

typedef struct keyed {
    uint64_t chunk;
    size_t i;
} keyed;

static int by_chunk(const void *a, const void *b) {
    const keyed *x = a, *y = b;
    if (x->chunk != y->chunk) return x->chunk < y->chunk ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

fl_status fl_cbf_contains_hashes(const fl_cbf *c, const uint64_t *hashes, size_t n,
                                 uint8_t *out, size_t *positives, size_t *chunks_decoded) {
    if (positives) *positives = 0;
    if (chunks_decoded) *chunks_decoded = 0;
    if (!c || (n && (!hashes || !out))) return FL_ERR_INVALID_ARG;
    if (!blocked(c)) return FL_ERR_UNSUPPORTED;
    if (n == 0) return FL_OK;
    keyed *order = malloc(n * sizeof *order);
    uint8_t *buf = malloc(c->chunk_bytes);
    if (!order || !buf) {
        free(order);
        free(buf);
        return FL_ERR_NO_MEMORY;
    }
    for (size_t i = 0; i < n; i++) {
        size_t byte = (size_t)unit_of(c, fl_hash_at(hashes, i)) * c->unit_bytes;
        order[i] = (keyed){byte / c->chunk_bytes, i};
    }
    qsort(order, n, sizeof *order, by_chunk);
    fl_status st = FL_OK;
    size_t pos = 0, decoded = 0;
    uint64_t have = UINT64_MAX;
    for (size_t j = 0; j < n && st == FL_OK; j++) {
        if (order[j].chunk != have) {
            have = order[j].chunk;
            st = decode_chunk(c, have, buf);
            decoded++;
            if (st != FL_OK) break;
        }
        uint64_t h = fl_hash_at(hashes, order[j].i);
        size_t byte = (size_t)unit_of(c, h) * c->unit_bytes;
        out[order[j].i] = (uint8_t)probe_unit(c, buf + byte % c->chunk_bytes, h);
        pos += out[order[j].i];
    }
    free(order);
    free(buf);
    if (st != FL_OK) return st;
    if (positives) *positives = pos;
    if (chunks_decoded) *chunks_decoded = decoded;
    return FL_OK;
}

fl_status fl_cbf_get_info(const fl_cbf *c, fl_cbf_info *out) {
    if (!c || !out) return FL_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->geometry = c->g;
    out->hash = c->hash;
    out->seed = c->seed;
    out->keys = c->keys;
    out->coder = c->coder;
    out->chunk_bytes = c->chunk_bytes;
    out->chunks = c->chunks;
    out->payload_bytes = c->payload;
    out->compressed_bytes = c->code_bytes;
    out->index_bytes = (size_t)(c->chunks + 1) * 8;
    out->ones = c->ones;
    double m = 8.0 * (double)c->payload;
    out->entropy_bits = m * fl_cbf_entropy(1.0 - (double)c->ones / m);
    return FL_OK;
}
