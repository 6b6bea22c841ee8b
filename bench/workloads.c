/*
 * Workloads: which keys are inserted and which are looked up.
 *
 * Every key is named by a 64-bit id. The filter of a configuration holds ids [0, n);
 * never-inserted ids start at FB_ID_MISS (timed lookups) and FB_ID_FPR (the FPR pass), so
 * a "miss" is a true negative by construction and a measured positive among them is a false
 * positive. A lookup batch mixes the two at the requested hit rate with an independent coin
 * per key, so a branch predictor cannot learn the pattern.
 *
 * u64 keys: key = a bijection of the id, hashed with fl_hash_u64 (the library's SplitMix64
 *   finalizer) when the batch is prepared, outside the timed region.
 * url keys: a synthetic URL per id, built from word lists with a length distribution around
 *   80 bytes (scheme, host, 1-4 path segments, a slug, an optional query), stored as bytes
 *   and hashed with fl_hash_bytes (XXH3) inside the timed region. The slug ends in a 13-digit
 *   base-36 token of a bijection of the id, and the token is the text after the last '-' of
 *   the path, so two ids never give the same URL.
 */
#include <stdlib.h>
#include <string.h>

#include "flbench.h"

uint64_t fb_key_u64(uint64_t id, uint64_t seed) {
    return fl_mix64(id ^ (seed * UINT64_C(0x2545f4914f6cdd1d)));
}

static const char *const words[] = {
    "news",    "blog",    "shop",     "store",   "music",   "video",   "photo",   "travel",
    "health",  "sports",  "science",  "tech",    "world",   "local",   "market",  "finance",
    "weather", "games",   "books",    "movies",  "food",    "recipes", "home",    "garden",
    "auto",    "cars",    "jobs",     "career",  "money",   "search",  "cloud",   "data",
    "open",    "source",  "project",  "digital", "media",   "press",   "daily",   "times",
    "review",  "guide",   "help",     "support", "forum",   "wiki",    "learn",   "school",
    "city",    "green",   "energy",   "design",  "art",     "style",   "fashion", "beauty",
    "kids",    "family",  "pets",     "dog",     "cat",     "best",    "top",     "new",
    "how",     "why",     "what",    "update",   "latest",  "report",  "analysis", "policy",
    "global",  "national", "european", "market", "price",   "deal",    "sale",    "free"};
#define NWORDS (sizeof words / sizeof words[0])

static const char *const tlds[] = {".com", ".com", ".com", ".com", ".org", ".net", ".io",
                                   ".de",  ".co.uk", ".fr", ".edu", ".gov", ".info", ".jp"};
static const char *const exts[] = {"", "", "", ".html", ".html", ".php", "/", ".aspx"};
static const char *const params[] = {"utm_source=newsletter", "utm_medium=email", "ref=home",
                                     "lang=en", "sort=newest", "page=2", "id=8841",
                                     "session=a81f", "q=bloom+filter", "src=rss"};

static char *put(char *p, const char *s) {
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

static const char *word(fb_rng *r) { return words[fb_rng_below(r, NWORDS)]; }

size_t fb_key_url(uint64_t id, uint64_t seed, char *buf) {
    fb_rng r = {fl_mix64(id * FL_SEED_MIX + seed)};
    char *p = buf;
    p = put(p, fb_rng_unit(&r) < 0.85 ? "https://" : "http://");
    if (fb_rng_unit(&r) < 0.5)
        p = put(p, "www.");
    p = put(p, word(&r));
    if (fb_rng_unit(&r) < 0.5) {
        if (fb_rng_unit(&r) < 0.3)
            *p++ = '-';
        p = put(p, word(&r));
    }
    p = put(p, tlds[fb_rng_below(&r, sizeof tlds / sizeof tlds[0])]);
    /* 1-4 directory segments, mostly 1-2. */
    static const int nseg_w[] = {1, 1, 1, 2, 2, 2, 3, 4};
    int nseg = nseg_w[fb_rng_below(&r, 8)];
    for (int s = 0; s < nseg; s++) {
        *p++ = '/';
        double u = fb_rng_unit(&r);
        if (u < 0.15) {
            p += (size_t)snprintf(p, 8, "20%02u", (unsigned)(10 + fb_rng_below(&r, 15)));
        } else {
            p = put(p, word(&r));
            if (u > 0.75) {
                *p++ = '-';
                p = put(p, word(&r));
            }
        }
    }
    /* The slug: 1-4 words, then the unique token. */
    *p++ = '/';
    int nslug = 1 + (int)fb_rng_below(&r, 4);
    for (int s = 0; s < nslug; s++) {
        p = put(p, word(&r));
        *p++ = '-';
    }
    uint64_t t = fl_mix64(id ^ UINT64_C(0x6a09e667f3bcc909));
    for (int i = 12; i >= 0; i--) {
        unsigned d = (unsigned)(t % 36);
        t /= 36;
        p[i] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
    }
    p += 13;
    p = put(p, exts[fb_rng_below(&r, sizeof exts / sizeof exts[0])]);
    if (fb_rng_unit(&r) < 0.3) {
        int np = 1 + (int)fb_rng_below(&r, 3);
        for (int i = 0; i < np; i++) {
            *p++ = i ? '&' : '?';
            p = put(p, params[fb_rng_below(&r, sizeof params / sizeof params[0])]);
        }
    }
    return (size_t)(p - buf);
}

int fb_keys_alloc(fb_keys_buf *k, int type, size_t cap) {
    memset(k, 0, sizeof *k);
    k->type = type;
    k->cap = cap;
    if (type == FB_KEYS_U64) {
        k->hashes = malloc(cap * sizeof *k->hashes);
        return k->hashes ? 0 : -1;
    }
    k->arena_cap = cap * 96 + FB_URL_MAX;
    k->arena = malloc(k->arena_cap);
    k->off = malloc(cap * sizeof *k->off);
    k->len = malloc(cap * sizeof *k->len);
    k->hashes = malloc(cap * sizeof *k->hashes); /* per-batch scratch for the timed loop */
    return (k->arena && k->off && k->len && k->hashes) ? 0 : -1;
}

void fb_keys_free(fb_keys_buf *k) {
    free(k->hashes);
    free(k->arena);
    free(k->off);
    free(k->len);
    memset(k, 0, sizeof *k);
}

void fb_keys_clear(fb_keys_buf *k) {
    k->n = 0;
    k->arena_len = 0;
    k->hits = 0;
    k->key_bytes = 0;
}

void fb_keys_push(fb_keys_buf *k, uint64_t id, uint64_t seed) {
    if (k->n >= k->cap)
        return;
    if (k->type == FB_KEYS_U64) {
        k->hashes[k->n++] = fl_hash_u64(fb_key_u64(id, seed), seed);
        k->key_bytes += 8;
        return;
    }
    if (k->arena_len + FB_URL_MAX > k->arena_cap) {
        size_t ncap = k->arena_cap * 2;
        char *a = realloc(k->arena, ncap);
        if (!a)
            return;
        k->arena = a;
        k->arena_cap = ncap;
    }
    size_t len = fb_key_url(id, seed, k->arena + k->arena_len);
    k->off[k->n] = k->arena_len;
    k->len[k->n] = (uint32_t)len;
    k->arena_len += len;
    k->key_bytes += (double)len;
    k->n++;
}

void fb_keys_fill_mix(fb_keys_buf *k, size_t n, double hit_rate, uint64_t inserted,
                      uint64_t *miss_cursor, fb_rng *rng, uint64_t seed) {
    for (size_t i = 0; i < n; i++) {
        if (inserted && fb_rng_unit(rng) < hit_rate) {
            fb_keys_push(k, fb_rng_below(rng, inserted), seed);
            k->hits++;
        } else {
            fb_keys_push(k, (*miss_cursor)++, seed);
        }
    }
}
