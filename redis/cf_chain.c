/* A growing chain of cuckoo filters for the CF.* commands (see cf_chain.h). */
#include "cf_chain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "le.h"

/* Items filter i is sized for: capacity * expansion^i, saturating (creation then fails
 * TOO_LARGE). */
static uint64_t filter_items(const cf_config *cfg, uint32_t i) {
    uint64_t items = cfg->capacity;
    if (i > 0 && cfg->expansion == 0) return UINT64_MAX; /* a non-growing chain has one */
    for (uint32_t j = 0; j < i; j++) {
        if (items > UINT64_MAX / cfg->expansion) return UINT64_MAX;
        items *= cfg->expansion;
    }
    return items;
}

/* Buckets of filter i, 0 if above CF_FILTER_BYTES_MAX. CF_SIZING_LOAD: the items at the
 * load the library sizes cuckoo filters for (its descriptor's max_load and unit_slots:
 * 0.94 of 4 slots, Fan et al. 2014's ~95% before the first failure), so `capacity` items
 * fit. CF_SIZING_SLOTS (format 1, values saved before): the items were slots. */
static uint64_t filter_buckets(const cf_config *cfg, uint32_t sizing, uint32_t i) {
    uint64_t items = filter_items(cfg, i);
    uint64_t max = CF_FILTER_BYTES_MAX / fl_variant_unit_bytes(FL_CUCKOO, cfg->fp_bits);
    if (items == UINT64_MAX) return 0;
    if (sizing == CF_SIZING_SLOTS) return (items + 3) / 4 > max ? 0 : (items + 3) / 4;
    fl_variant_info cuckoo;
    if (fl_variant_describe(FL_CUCKOO, &cuckoo) != FL_OK) return 0;
    double buckets = ceil((double)items / (cuckoo.unit_slots * cuckoo.max_load));
    return buckets > (double)max ? 0 : (uint64_t)buckets;
}

static fl_status new_filter(const cf_chain *c, uint32_t i, fl_filter **out) {
    uint64_t buckets = filter_buckets(&c->cfg, c->sizing, i);
    if (buckets == 0) return FL_ERR_TOO_LARGE;
    if (c->max_bytes) { /* checked before anything is allocated */
        uint64_t bytes = buckets * fl_variant_unit_bytes(FL_CUCKOO, c->cfg.fp_bits), have = 0;
        for (uint32_t j = 0; j < c->filters; j++) have += fl_size_bytes(c->f[j]);
        if (bytes > c->max_bytes || have > c->max_bytes - bytes) return FL_ERR_TOO_LARGE;
    }
    fl_config fc = {.variant = FL_CUCKOO,
                    .geometry = {.variant = FL_CUCKOO, .units = buckets, .k = c->cfg.fp_bits}};
    return fl_create(&fc, out);
}

int cf_fp_bits_ok(int64_t bits) {
    fl_variant_info cuckoo;
    return bits >= 0 && bits < 64 && fl_variant_describe(FL_CUCKOO, &cuckoo) == FL_OK &&
           (cuckoo.k_set >> bits & 1);
}

static fl_status check_config(const cf_config *cfg) {
    if (cfg->capacity == 0) return FL_ERR_BAD_N;
    if (!cf_fp_bits_ok(cfg->fp_bits)) return FL_ERR_BAD_K;
    if (cfg->bucket_size == 0 || cfg->max_iterations == 0 ||
        cfg->expansion > CF_EXPANSION_MAX)
        return FL_ERR_INVALID_ARG;
    return FL_OK;
}

/* Room for n filters in c->f; 0 when out of memory (c unchanged). */
static int reserve_filters(cf_chain *c, uint32_t n) {
    if (n <= c->f_alloc) return 1;
    fl_filter **f = realloc(c->f, (size_t)n * sizeof *f);
    if (!f) return 0;
    for (uint32_t i = c->f_alloc; i < n; i++) f[i] = NULL;
    c->f = f;
    c->f_alloc = n;
    return 1;
}

fl_status cf_chain_create(const cf_config *cfg, cf_chain **out) {
    return cf_chain_create_capped(cfg, 0, out);
}

fl_status cf_chain_create_capped(const cf_config *cfg, uint64_t max_bytes, cf_chain **out) {
    fl_status st = check_config(cfg);
    if (st != FL_OK) return st;
    cf_chain *c = calloc(1, sizeof *c);
    if (!c) return FL_ERR_NO_MEMORY;
    c->cfg = *cfg;
    c->sizing = CF_SIZING_LOAD;
    c->max_bytes = max_bytes;
    st = reserve_filters(c, 1) ? new_filter(c, 0, &c->f[0]) : FL_ERR_NO_MEMORY;
    if (st != FL_OK) {
        free(c->f);
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
    free(c->f);
    free(c);
}

uint64_t cf_chain_hash(const cf_chain *c, const void *key, size_t len) {
    return fl_hash_bytes(c->f[0], key, len); /* every filter has the same hash and seed */
}

/* Appends a filter when the chain may grow; FL_ERR_FULL when it may not. */
static fl_status grow(cf_chain *c) {
    if (c->cfg.expansion == 0 || c->filters >= CF_FILTERS_MAX) return FL_ERR_FULL;
    if (!reserve_filters(c, c->filters + 1)) return FL_ERR_NO_MEMORY;
    fl_filter *f;
    fl_status st = new_filter(c, c->filters, &f);
    if (st != FL_OK) return st;
    c->f[c->filters++] = f;
    return FL_OK;
}

/* Adds the chain may still take: unbounded for a growing chain; for one that may not grow
 * (expansion 0), its capacity less the items it holds, so that it holds what CF.RESERVE
 * asked for and refuses more, as a non-scaling filter does (RedisBloom's tables of
 * 2^k slots hold no more than the capacity rounded up; a table of 4-slot buckets sized at
 * 94% load could take about 1% more, and the smallest one, 2 buckets, 8 slots and a stash
 * of 8 for a capacity of 4, four times more at a fill its FPR was not sized for). */
static uint64_t room(const cf_chain *c) {
    if (c->cfg.expansion != 0) return UINT64_MAX;
    return c->items >= c->cfg.capacity ? 0 : c->cfg.capacity - c->items;
}

fl_status cf_chain_add_hashes(cf_chain *c, const uint64_t *hashes, size_t n, size_t *added) {
    size_t pos = 0, want = room(c) < n ? (size_t)room(c) : n;
    fl_status st = FL_OK;
    int just_grew = 0; /* a fresh filter refusing a key ends the batch (no endless growth) */
    while (pos < want) {
        size_t ins = 0;
        st = fl_insert_hashes(c->f[c->filters - 1], hashes + pos, want - pos, &ins);
        pos += ins;
        c->items += ins;
        if (st != FL_ERR_FULL) break;
        if (ins == 0 && just_grew) break;
        st = grow(c);
        if (st != FL_OK) break;
        just_grew = 1;
    }
    *added = pos;
    if (pos == n) return FL_OK;
    return pos == want ? FL_ERR_FULL : st;
}

fl_status cf_chain_add(cf_chain *c, uint64_t hash) {
    /* CF.ADD's one key: the one-key insert skips the batch call's set-up (callgrind: 47 of
     * the 1,780 instructions of CF.ADD's command call in redis-server); a full newest
     * filter takes the batch path, which grows the chain. */
    if (room(c) == 0) return FL_ERR_FULL;
    fl_status st = fl_insert_hash(c->f[c->filters - 1], hash);
    if (st == FL_OK) {
        c->items++;
        return FL_OK;
    }
    if (st != FL_ERR_FULL) return st;
    size_t added;
    return cf_chain_add_hashes(c, &hash, 1, &added);
}

static int filter_empty(const fl_filter *f) {
    fl_info in;
    return fl_get_info(f, &in) == FL_OK && in.bits_set == 0;
}

uint32_t cf_chain_compact(cf_chain *c) {
    uint32_t n = c->filters, nonempty = 0;
    for (uint32_t i = 0; i < n; i++) nonempty += !filter_empty(c->f[i]);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        /* All empty: the oldest (smallest) stays, so the chain keeps one filter. */
        if (nonempty ? !filter_empty(c->f[i]) : i == 0) {
            c->f[kept++] = c->f[i];
        } else {
            fl_free(c->f[i]);
        }
    }
    for (uint32_t i = kept; i < n; i++) c->f[i] = NULL;
    c->filters = kept;
    return n - kept;
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

fl_status cf_chain_count(const cf_chain *c, uint64_t hash, uint64_t *count) {
    *count = 0;
    for (uint32_t i = 0; i < c->filters; i++) {
        uint32_t n;
        fl_status st = fl_count_hash(c->f[i], hash, &n);
        if (st != FL_OK) return st;
        *count += n;
    }
    return FL_OK;
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

void cf_chain_totals(const cf_chain *c, cf_totals *t) {
    memset(t, 0, sizeof *t);
    fl_variant_info cuckoo;
    if (fl_variant_describe(FL_CUCKOO, &cuckoo) != FL_OK) return;
    for (uint32_t i = 0; i < c->filters; i++) {
        fl_info in;
        if (fl_get_info(c->f[i], &in) != FL_OK) continue;
        uint64_t slots = in.geometry.units * cuckoo.unit_slots;
        /* Format 1 filters were sized in slots: they hold their slots at the sizing load. */
        t->capacity += c->sizing == CF_SIZING_LOAD
                           ? filter_items(&c->cfg, i)
                           : (uint64_t)floor((double)slots * cuckoo.max_load);
        t->slots += slots;
        t->bytes += in.bytes;
        t->buckets += in.geometry.units;
        t->used += in.bits_set - in.stash_used;
        t->stashed += in.stash_used;
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
/* Version 1: capacity counted slots (CF_SIZING_SLOTS); version 2: items at the library's
 * sizing load (CF_SIZING_LOAD). The layout is the same; a chain keeps the sizing, and so the
 * version, it was created with, so that its grown filters match its saved ones. */
#define CF_FORMAT_SLOTS 1u
#define CF_FORMAT_LOAD 2u
#define HEADER_BYTES 56u /* magic, version, capacity, 4 u32 config, items, deleted, filters, 0 */

size_t cf_chain_serialized_size(const cf_chain *c) {
    size_t n = HEADER_BYTES + 8;
    for (uint32_t i = 0; i < c->filters; i++) n += 8 + fl_serialized_size(c->f[i]);
    return n;
}

fl_status cf_chain_save(const cf_chain *c, uint8_t *buf, size_t cap, size_t *written) {
    if (cap < cf_chain_serialized_size(c)) return FL_ERR_BUFFER_TOO_SMALL;
    memcpy(buf, MAGIC, 4);
    flr_put32(buf + 4, c->sizing == CF_SIZING_SLOTS ? CF_FORMAT_SLOTS : CF_FORMAT_LOAD);
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
    uint32_t version = flr_get32(buf + 4);
    if (version != CF_FORMAT_SLOTS && version != CF_FORMAT_LOAD) return FL_ERR_BAD_VERSION;
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
    c->sizing = version == CF_FORMAT_SLOTS ? CF_SIZING_SLOTS : CF_SIZING_LOAD;
    c->items = flr_get64(buf + 32);
    c->deleted = flr_get64(buf + 40);
    if (!reserve_filters(c, filters)) {
        free(c);
        return FL_ERR_NO_MEMORY;
    }
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
            in.geometry.units != filter_buckets(&cfg, c->sizing, i) ||
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
