/* A growing chain of cuckoo filters for the CF.* commands (see cf_chain.h). */
#include "cf_chain.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "le.h"

/* Slots of filter i: capacity * expansion^i, saturating (creation then fails TOO_LARGE). */
static uint64_t filter_slots(const cf_config *cfg, uint32_t i) {
    uint64_t slots = cfg->capacity;
    if (i > 0 && cfg->expansion == 0) return UINT64_MAX; /* a non-growing chain has one */
    for (uint32_t j = 0; j < i; j++) {
        if (slots > UINT64_MAX / cfg->expansion) return UINT64_MAX;
        slots *= cfg->expansion;
    }
    return slots;
}

static fl_status new_filter(const cf_config *cfg, uint32_t i, fl_filter **out) {
    uint64_t slots = filter_slots(cfg, i);
    /* 4 slots of fp_bits per bucket: fp_bits / 2 bytes per bucket. */
    if (slots == UINT64_MAX || (slots + 3) / 4 > CF_FILTER_BYTES_MAX / (cfg->fp_bits / 2))
        return FL_ERR_TOO_LARGE;
    fl_config fc = {.variant = FL_CUCKOO,
                    .geometry = {.variant = FL_CUCKOO, .units = (slots + 3) / 4,
                                 .k = cfg->fp_bits}};
    return fl_create(&fc, out);
}

static fl_status check_config(const cf_config *cfg) {
    if (cfg->capacity == 0) return FL_ERR_BAD_N;
    if (cfg->fp_bits != 8 && cfg->fp_bits != 16) return FL_ERR_BAD_K;
    if (cfg->bucket_size == 0 || cfg->max_iterations == 0 ||
        cfg->expansion > CF_EXPANSION_MAX)
        return FL_ERR_INVALID_ARG;
    return FL_OK;
}

fl_status cf_chain_create(const cf_config *cfg, cf_chain **out) {
    fl_status st = check_config(cfg);
    if (st != FL_OK) return st;
    cf_chain *c = calloc(1, sizeof *c);
    if (!c) return FL_ERR_NO_MEMORY;
    c->cfg = *cfg;
    st = new_filter(cfg, 0, &c->f[0]);
    if (st != FL_OK) {
        free(c);
        return st;
    }
    c->filters = 1;
    *out = c;
    return FL_OK;
}

void cf_chain_free(cf_chain *c) {
    if (!c) return;
    for (uint32_t i = 0; i < c->filters; i++) fl_free(c->f[i]);
    free(c);
}

uint64_t cf_chain_hash(const cf_chain *c, const void *key, size_t len) {
    return fl_hash_bytes(c->f[0], key, len); /* every filter has the same hash and seed */
}

/* Appends a filter when the chain may grow; FL_ERR_FULL when it may not. */
static fl_status grow(cf_chain *c) {
    if (c->cfg.expansion == 0 || c->filters >= CF_FILTERS_MAX) return FL_ERR_FULL;
    fl_filter *f;
    fl_status st = new_filter(&c->cfg, c->filters, &f);
    if (st != FL_OK) return st;
    c->f[c->filters++] = f;
    return FL_OK;
}

fl_status cf_chain_add_hashes(cf_chain *c, const uint64_t *hashes, size_t n, size_t *added) {
    size_t pos = 0;
    fl_status st = FL_OK;
    int just_grew = 0; /* a fresh filter refusing a key ends the batch (no endless growth) */
    while (pos < n) {
        size_t ins = 0;
        st = fl_insert_hashes(c->f[c->filters - 1], hashes + pos, n - pos, &ins);
        pos += ins;
        c->items += ins;
        if (st != FL_ERR_FULL) break;
        if (ins == 0 && just_grew) break;
        st = grow(c);
        if (st != FL_OK) break;
        just_grew = 1;
    }
    *added = pos;
    return pos == n ? FL_OK : st;
}

fl_status cf_chain_add(cf_chain *c, uint64_t hash) {
    size_t added;
    return cf_chain_add_hashes(c, &hash, 1, &added);
}

fl_status cf_chain_contains(const cf_chain *c, const uint64_t *hashes, size_t n, uint8_t *out) {
    fl_status st = fl_contains_hashes(c->f[c->filters - 1], hashes, n, out, NULL);
    if (st != FL_OK || c->filters == 1) return st;
    uint8_t *more = malloc(n ? n : 1);
    if (!more) return FL_ERR_NO_MEMORY;
    for (uint32_t i = c->filters - 1; i-- > 0;) {
        st = fl_contains_hashes(c->f[i], hashes, n, more, NULL);
        if (st != FL_OK) break;
        for (size_t j = 0; j < n; j++) out[j] |= more[j];
    }
    free(more);
    return st;
}

fl_status cf_chain_delete(cf_chain *c, uint64_t hash) {
    for (uint32_t i = c->filters; i-- > 0;) {
        fl_status st = fl_delete_hash(c->f[i], hash);
        if (st == FL_OK) {
            c->deleted++;
            if (c->items) c->items--;
            return FL_OK;
        }
        if (st != FL_ERR_NOT_FOUND) return st;
    }
    return FL_ERR_NOT_FOUND;
}

void cf_chain_totals(const cf_chain *c, uint64_t *capacity, size_t *bytes, uint64_t *buckets,
                     uint64_t *used) {
    *capacity = 0, *bytes = 0, *buckets = 0, *used = 0;
    for (uint32_t i = 0; i < c->filters; i++) {
        fl_info in;
        if (fl_get_info(c->f[i], &in) != FL_OK) continue;
        *capacity += in.geometry.units * 4;
        *bytes += in.bytes;
        *buckets += in.geometry.units;
        *used += in.bits_set;
    }
}

double cf_chain_predicted_fpr(const cf_chain *c) {
    double keep = 1.0;
    for (uint32_t i = 0; i < c->filters; i++) {
        fl_info in;
        if (fl_get_info(c->f[i], &in) == FL_OK) keep *= 1.0 - in.predicted_fpr;
    }
    return 1.0 - keep;
}

/* ---- serialization ------------------------------------------------------------------ */

static const uint8_t MAGIC[4] = {'F', 'L', 'C', 'F'};
#define CF_FORMAT_VERSION 1u
#define HEADER_BYTES 56u /* magic, version, capacity, 4 u32 config, items, deleted, filters, 0 */

size_t cf_chain_serialized_size(const cf_chain *c) {
    size_t n = HEADER_BYTES + 8;
    for (uint32_t i = 0; i < c->filters; i++) n += 8 + fl_serialized_size(c->f[i]);
    return n;
}

fl_status cf_chain_save(const cf_chain *c, uint8_t *buf, size_t cap, size_t *written) {
    if (cap < cf_chain_serialized_size(c)) return FL_ERR_BUFFER_TOO_SMALL;
    memcpy(buf, MAGIC, 4);
    flr_put32(buf + 4, CF_FORMAT_VERSION);
    flr_put64(buf + 8, c->cfg.capacity);
    flr_put32(buf + 16, c->cfg.bucket_size);
    flr_put32(buf + 20, c->cfg.max_iterations);
    flr_put32(buf + 24, c->cfg.expansion);
    flr_put32(buf + 28, c->cfg.fp_bits);
    flr_put64(buf + 32, c->items);
    flr_put64(buf + 40, c->deleted);
    flr_put32(buf + 48, c->filters);
    flr_put32(buf + 52, 0);
    size_t pos = HEADER_BYTES;
    for (uint32_t i = 0; i < c->filters; i++) {
        size_t w;
        fl_status st = fl_save_mem(c->f[i], buf + pos + 8, cap - pos - 8 - 8, &w);
        if (st != FL_OK) return st;
        flr_put64(buf + pos, w);
        pos += 8 + w;
    }
    flr_put64(buf + pos, XXH3_64bits(buf, pos));
    *written = pos + 8;
    return FL_OK;
}

fl_status cf_chain_load(const uint8_t *buf, size_t len, cf_chain **out) {
    if (len < HEADER_BYTES + 8) return FL_ERR_TRUNCATED;
    if (memcmp(buf, MAGIC, 4) != 0) return FL_ERR_BAD_MAGIC;
    if (flr_get32(buf + 4) != CF_FORMAT_VERSION) return FL_ERR_BAD_VERSION;
    if (XXH3_64bits(buf, len - 8) != flr_get64(buf + len - 8)) return FL_ERR_CHECKSUM;
    cf_config cfg = {.capacity = flr_get64(buf + 8), .bucket_size = flr_get32(buf + 16),
                     .max_iterations = flr_get32(buf + 20), .expansion = flr_get32(buf + 24),
                     .fp_bits = flr_get32(buf + 28)};
    uint32_t filters = flr_get32(buf + 48);
    if (check_config(&cfg) != FL_OK || filters == 0 || filters > CF_FILTERS_MAX ||
        flr_get32(buf + 52) != 0)
        return FL_ERR_CORRUPT;
    cf_chain *c = calloc(1, sizeof *c);
    if (!c) return FL_ERR_NO_MEMORY;
    c->cfg = cfg;
    c->items = flr_get64(buf + 32);
    c->deleted = flr_get64(buf + 40);
    size_t pos = HEADER_BYTES, end = len - 8;
    fl_variant_info cuckoo;
    fl_status st = fl_variant_describe(FL_CUCKOO, &cuckoo);
    for (uint32_t i = 0; i < filters && st == FL_OK; i++) {
        if (end - pos < 8) {
            st = FL_ERR_TRUNCATED;
            break;
        }
        uint64_t n = flr_get64(buf + pos);
        pos += 8;
        if (n > end - pos) {
            st = FL_ERR_TRUNCATED;
            break;
        }
        st = fl_load_mem(buf + pos, (size_t)n, 0, &c->f[i]);
        if (st != FL_OK) break;
        c->filters = i + 1;
        fl_info in;
        fl_get_info(c->f[i], &in);
        /* Every filter must be the cuckoo filter this chain would have built. */
        if (in.geometry.variant != FL_CUCKOO || in.geometry.k != cfg.fp_bits ||
            in.geometry.units != (filter_slots(&cfg, i) + 3) / 4 ||
            in.hash != cuckoo.default_hash || in.seed != 0)
            st = FL_ERR_CORRUPT;
        pos += n;
    }
    if (st == FL_OK && pos != end) st = FL_ERR_TRAILING_DATA;
    if (st != FL_OK) {
        cf_chain_free(c);
        return st;
    }
    *out = c;
    return FL_OK;
}
