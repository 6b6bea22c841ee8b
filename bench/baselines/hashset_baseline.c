/*
 * hashset_baseline: the crawler table of the seed chapter (000 "Final Benchmark" and the
 * cuckoo filter benchmark): memory, ns per lookup and false positive rate of exact hash sets
 * and of the filters, all on the same URL files and the same lookup order.
 *
 *   hashset_baseline --insert urls.txt --miss urls_miss.txt [--lookups N] [--reps R]
 *                    [--bpk B] [--only a,b,...] [--json OUT]
 *
 * Structures (one JSON row each):
 *   ghash        GLib's GHashTable (g_str_hash, g_str_equal) owning a copy of every URL:
 *                a real, maintained C library from Debian, used as its documentation shows
 *   ghash_xxh3   the same table with XXH3 as its hash function (GLib's default hash is
 *                djb2, one multiply per byte, so the hash alone costs ~80 steps per URL)
 *   oaset        an open-addressing set written for this benchmark: 16-byte slots holding
 *                the full 64-bit XXH3 hash and the key's place in an arena of copied keys,
 *                linear probing, load <= 1/2; a miss compares hashes only, a hit also
 *                compares the bytes (so the set is exact)
 *   classic block512 split256   filters of --bpk bits per URL (10, the seed's
 *                BITS_PER_URL), k = 7 (the seed's NUM_HASH) for classic and block512,
 *                k = 8 for split256 (fixed by the Parquet format)
 *   cuckoo8      8-bit fingerprints at the library's sizing load (0.94): the smallest cuckoo
 *                filter, the size class of the seed's "1.1 MB"
 *   cuckoo1pct   the cuckoo filter fl_params_for(cuckoo, n, 1%) sizes: the library's answer
 *                to the seed's "1M elements, 1% false positive rate" (11-bit semi-sorted
 *                fingerprints in 5-byte buckets at load 0.94 since the library has them,
 *                12-bit ones before)
 *   cuckoo16     16-bit fingerprints at the sizing load (what fl_params_for picked for 1%
 *                before the library had 12-bit fingerprints)
 *
 * Memory: hash sets are measured as the growth of the C heap while building them
 * (mallinfo2: uordblks + hblkhd, i.e. small chunks plus mmapped ones), which counts the
 * table, the copied keys and malloc's per-chunk overhead; the filters report their payload
 * (fl_size_bytes) and the same heap growth.
 *
 * Lookups: every structure answers the same two streams: `miss`, the never-inserted URLs
 * in file order (the crawler's common case, and the false positives), and `hit`, the
 * inserted URLs in a seeded random order, copied into a buffer of their own in that order so
 * that, like the misses, the key being looked up is read sequentially (a crawler asks about
 * the URL it has just parsed; only the structure's own memory is accessed at random). Each
 * stream runs once untimed, then --reps timed
 * passes; the median ns per lookup is reported. Filters are timed one key at a time
 * (fl_contains_bytes, like a crawler asking about each URL) and in batches (hash 1024 URLs,
 * then fl_contains_hashes).
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <glib.h>
#include <xxhash.h>

#include "bl_common.h"
#include "filterlab.h"

#define BATCH 1024
#define MAX_REPS 64

/* ---- input: a file of lines, kept as NUL-terminated strings in one buffer ---- */
typedef struct lines {
    char *buf;
    size_t n;
    char **key;
    uint32_t *len;
    double mean_len;
} lines;

static int read_lines(const char *path, size_t limit, lines *out)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    if (fseek(f, 0, SEEK_END) != 0) {
        perror(path);
        fclose(f);
        return -1;
    }
    long size = ftell(f);
    rewind(f);
    if (size < 0) {
        perror(path);
        fclose(f);
        return -1;
    }
    out->buf = bl_xmalloc((size_t)size + 1);
    if (fread(out->buf, 1, (size_t)size, f) != (size_t)size) {
        perror(path);
        fclose(f);
        return -1;
    }
    fclose(f);
    out->buf[size] = '\n';
    size_t cap = 0;
    for (long i = 0; i < size; i++)
        cap += out->buf[i] == '\n';
    cap += 1;
    if (limit && limit < cap)
        cap = limit;
    out->key = bl_xmalloc(cap * sizeof *out->key);
    out->len = bl_xmalloc(cap * sizeof *out->len);
    char *p = out->buf, *end = out->buf + size;
    double total = 0;
    while (p < end && out->n < cap) {
        char *nl = memchr(p, '\n', (size_t)(end - p) + 1);
        size_t len = (size_t)(nl - p);
        if (len && p[len - 1] == '\r')
            len--;
        p[len] = '\0';
        if (len) {
            out->key[out->n] = p;
            out->len[out->n] = (uint32_t)len;
            out->n++;
            total += (double)len;
        }
        p = nl + 1;
    }
    out->mean_len = out->n ? total / (double)out->n : 0;
    return 0;
}

static void free_lines(lines *l)
{
    free(l->buf);
    free(l->key);
    free(l->len);
}

/* Heap bytes in use: small chunks plus mmapped ones. */
static long long heap_in_use(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 mi = mallinfo2();
    return (long long)(mi.uordblks + mi.hblkhd);
#else
    return -1;
#endif
}

/* ---- the open-addressing set ---- */
#define OA_EMPTY UINT32_MAX

typedef struct oa_slot {
    uint64_t h;
    uint32_t off; /* OA_EMPTY: free slot */
    uint32_t len;
} oa_slot;

typedef struct oaset {
    oa_slot *slots;
    uint64_t mask;
    int shift;
    char *arena;
    size_t arena_len, arena_cap;
    size_t n;
} oaset;

static void oa_init(oaset *s, size_t expected, size_t key_bytes)
{
    memset(s, 0, sizeof *s);
    uint64_t cap = 16;
    int bits = 4;
    while (cap < 2 * (uint64_t)expected) { /* load <= 1/2 */
        cap *= 2;
        bits++;
    }
    s->slots = bl_xmalloc(cap * sizeof *s->slots);
    for (uint64_t i = 0; i < cap; i++)
        s->slots[i].off = OA_EMPTY;
    s->mask = cap - 1;
    s->shift = 64 - bits;
    s->arena_cap = key_bytes ? key_bytes : 1;
    s->arena = bl_xmalloc(s->arena_cap);
}

static void oa_free(oaset *s)
{
    free(s->slots);
    free(s->arena);
}

static inline int oa_contains(const oaset *s, const char *key, size_t len)
{
    uint64_t h = XXH3_64bits(key, len);
    uint64_t i = h >> s->shift;
    for (;;) {
        const oa_slot *sl = &s->slots[i];
        if (sl->off == OA_EMPTY)
            return 0;
        if (sl->h == h && sl->len == len && memcmp(s->arena + sl->off, key, len) == 0)
            return 1;
        i = (i + 1) & s->mask;
    }
}

/* Returns 1 if added, 0 if already present, -1 if the arena is full (sized by the caller). */
static int oa_add(oaset *s, const char *key, size_t len)
{
    uint64_t h = XXH3_64bits(key, len);
    uint64_t i = h >> s->shift;
    for (;;) {
        oa_slot *sl = &s->slots[i];
        if (sl->off == OA_EMPTY)
            break;
        if (sl->h == h && sl->len == len && memcmp(s->arena + sl->off, key, len) == 0)
            return 0;
        i = (i + 1) & s->mask;
    }
    if (s->arena_len + len > s->arena_cap || s->arena_len + len >= OA_EMPTY ||
        2 * (s->n + 1) > s->mask + 1)
        return -1;
    memcpy(s->arena + s->arena_len, key, len);
    s->slots[i].h = h;
    s->slots[i].off = (uint32_t)s->arena_len;
    s->slots[i].len = (uint32_t)len;
    s->arena_len += len;
    s->n++;
    return 1;
}

static guint xxh3_str_hash(gconstpointer key)
{
    const char *s = key;
    return (guint)XXH3_64bits(s, strlen(s));
}

/* ---- one structure under test ---- */
enum kind { K_GHASH, K_GHASH_XXH3, K_OASET, K_FILTER };

typedef struct subject {
    const char *name;
    enum kind kind;
    fl_variant variant;
    GHashTable *gh;
    oaset oa;
    fl_filter *f;
} subject;

typedef struct row {
    double insert_ns;
    double miss_ns, hit_ns;             /* one key at a time */
    double miss_ns_batch, hit_ns_batch; /* filters: batches of BATCH */
    uint64_t miss_pos, hit_pos, lookups;
    long long heap_bytes, payload_bytes;
    char describe[160];
    int ok;
    char error[160];
} row;

static volatile uint64_t sink;

/* One pass of single-key lookups over the first n keys of `l`; returns the positives. */
static uint64_t pass_single(const subject *s, const lines *l, size_t n)
{
    uint64_t pos = 0;
    switch (s->kind) {
    case K_GHASH:
    case K_GHASH_XXH3:
        for (size_t i = 0; i < n; i++)
            pos += g_hash_table_contains(s->gh, l->key[i]) ? 1 : 0;
        break;
    case K_OASET:
        for (size_t i = 0; i < n; i++)
            pos += (uint64_t)oa_contains(&s->oa, l->key[i], l->len[i]);
        break;
    case K_FILTER:
        for (size_t i = 0; i < n; i++)
            pos += (uint64_t)fl_contains_bytes(s->f, l->key[i], l->len[i]);
        break;
    }
    return pos;
}

/* One pass of batched filter lookups: hash BATCH keys, then one fl_contains_hashes. */
static uint64_t pass_batch(const subject *s, const lines *l, size_t n)
{
    uint64_t hashes[BATCH];
    uint8_t out[BATCH];
    uint64_t pos = 0;
    for (size_t a = 0; a < n; a += BATCH) {
        size_t m = n - a < BATCH ? n - a : BATCH;
        for (size_t i = 0; i < m; i++)
            hashes[i] = fl_hash_bytes(s->f, l->key[a + i], l->len[a + i]);
        size_t p = 0;
        if (fl_contains_hashes(s->f, hashes, m, out, &p) != FL_OK)
            return UINT64_MAX;
        pos += p;
    }
    return pos;
}

/* Median ns per lookup over `reps` timed passes after one untimed pass. */
static double time_passes(const subject *s, const lines *l, size_t n, int reps, int batch,
                          uint64_t *positives)
{
    double t[MAX_REPS];
    *positives = batch ? pass_batch(s, l, n) : pass_single(s, l, n);
    for (int r = 0; r < reps; r++) {
        double t0 = bl_now_ns();
        uint64_t p = batch ? pass_batch(s, l, n) : pass_single(s, l, n);
        t[r] = (bl_now_ns() - t0) / (double)n;
        sink += p;
    }
    return bl_median(t, (size_t)reps);
}

static int build(subject *s, const lines *ins, double bpk, row *r)
{
    size_t n = ins->n;
    long long h0 = heap_in_use();
    double t0 = bl_now_ns();
    switch (s->kind) {
    case K_GHASH:
    case K_GHASH_XXH3:
        s->gh = g_hash_table_new_full(s->kind == K_GHASH ? g_str_hash : xxh3_str_hash,
                                      g_str_equal, g_free, NULL);
        for (size_t i = 0; i < n; i++)
            g_hash_table_add(s->gh, g_strndup(ins->key[i], ins->len[i]));
        snprintf(r->describe, sizeof r->describe, "GLib %u.%u.%u GHashTable, %s, owns a copy of each URL",
                 glib_major_version, glib_minor_version, glib_micro_version,
                 s->kind == K_GHASH ? "g_str_hash (djb2)" : "XXH3 hash");
        break;
    case K_OASET: {
        size_t key_bytes = 0;
        for (size_t i = 0; i < n; i++)
            key_bytes += ins->len[i];
        oa_init(&s->oa, n, key_bytes);
        for (size_t i = 0; i < n; i++)
            if (oa_add(&s->oa, ins->key[i], ins->len[i]) < 0) {
                snprintf(r->error, sizeof r->error, "oaset: arena or table full");
                return -1;
            }
        snprintf(r->describe, sizeof r->describe,
                 "open addressing, %llu slots of 16 B (load %.3f), XXH3, keys in one arena",
                 (unsigned long long)(s->oa.mask + 1), (double)s->oa.n / (double)(s->oa.mask + 1));
        break;
    }
    case K_FILTER: {
        fl_config cfg = {.variant = s->variant, .hash = FL_HASH_XXH3, .seed = 0};
        if (!strcmp(s->name, "cuckoo1pct")) {
            fl_params p;
            fl_status st = fl_params_for(FL_CUCKOO, n, 0.01, &p);
            if (st != FL_OK) {
                snprintf(r->error, sizeof r->error, "fl_params_for: %s", fl_strerror(st));
                return -1;
            }
            cfg.geometry = p.geometry;
        } else if (!strcmp(s->name, "cuckoo16") || !strcmp(s->name, "cuckoo8")) {
            cfg.geometry = (fl_geometry){FL_CUCKOO, (uint64_t)((double)n / (4 * 0.94)) + 1,
                                         s->name[6] == '8' ? 8 : 16};
        } else {
            uint64_t unit_bits = s->variant == FL_CLASSIC ? 64 : s->variant == FL_BLOCK512 ? 512 : 256;
            uint64_t bits = (uint64_t)((double)n * bpk + 0.5);
            cfg.geometry = (fl_geometry){s->variant, (bits + unit_bits - 1) / unit_bits,
                                         s->variant == FL_SPLIT256 ? 8 : 7};
        }
        fl_status st = fl_create(&cfg, &s->f);
        if (st != FL_OK) {
            snprintf(r->error, sizeof r->error, "fl_create: %s", fl_strerror(st));
            return -1;
        }
        for (size_t i = 0; i < n; i++) {
            st = fl_insert_bytes(s->f, ins->key[i], ins->len[i]);
            if (st != FL_OK) {
                snprintf(r->error, sizeof r->error, "insert %zu: %s", i, fl_strerror(st));
                return -1;
            }
        }
        fl_info info;
        fl_get_info(s->f, &info);
        snprintf(r->describe, sizeof r->describe, "%llu units, k = %u, %.2f bits per URL",
                 (unsigned long long)info.geometry.units, info.geometry.k,
                 (double)info.bytes * 8.0 / (double)n);
        r->payload_bytes = (long long)fl_size_bytes(s->f);
        break;
    }
    }
    r->insert_ns = (bl_now_ns() - t0) / (double)n;
    long long h1 = heap_in_use();
    r->heap_bytes = (h0 >= 0 && h1 >= 0) ? h1 - h0 : -1;
    if (s->kind == K_OASET)
        r->payload_bytes = (long long)((s->oa.mask + 1) * sizeof(oa_slot) + s->oa.arena_cap);
    return 0;
}

static void destroy(subject *s)
{
    if (s->gh)
        g_hash_table_destroy(s->gh);
    if (s->kind == K_OASET)
        oa_free(&s->oa);
    fl_free(s->f);
    s->gh = NULL;
    s->f = NULL;
}

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: hashset_baseline --insert FILE --miss FILE [options]\n"
            "\n"
            "Memory, ns per lookup and FPR of exact hash sets (GLib GHashTable, an\n"
            "open-addressing set) and of filters over the same URL files (one URL a line).\n"
            "\n"
            "  --insert FILE   URLs to insert (all distinct)\n"
            "  --miss FILE     never-inserted URLs to look up (the false positives)\n"
            "  --lookups N     lookups per stream (default: every line)\n"
            "  --reps R        timed passes per stream, median reported (default 5)\n"
            "  --bpk B         bits per URL of classic/block512/split256 (default 10)\n"
            "  --only LIST     comma-separated subset of: ghash,ghash_xxh3,oaset,classic,\n"
            "                  block512,split256,cuckoo8,cuckoo1pct,cuckoo16\n"
            "  --json FILE     write the results there (default: standard output)\n");
}

int main(int argc, char **argv)
{
    const char *ins_path = NULL, *miss_path = NULL, *json_path = NULL, *only = NULL;
    long long lookups = 0;
    int reps = 5;
    double bpk = 10;
    static const struct option opts[] = {
        {"insert", required_argument, NULL, 'i'}, {"miss", required_argument, NULL, 'm'},
        {"lookups", required_argument, NULL, 'l'}, {"reps", required_argument, NULL, 'r'},
        {"bpk", required_argument, NULL, 'b'},     {"only", required_argument, NULL, 'o'},
        {"json", required_argument, NULL, 'j'},    {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'i': ins_path = optarg; break;
        case 'm': miss_path = optarg; break;
        case 'l': lookups = atoll(optarg); break;
        case 'r': reps = atoi(optarg); break;
        case 'b': bpk = atof(optarg); break;
        case 'o': only = optarg; break;
        case 'j': json_path = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 1;
        }
    }
    if (!ins_path || !miss_path || reps < 1 || reps > MAX_REPS || !(bpk > 0) || lookups < 0) {
        usage(stderr);
        return 1;
    }
    lines ins, miss;
    if (read_lines(ins_path, 0, &ins) || read_lines(miss_path, 0, &miss))
        return 2;
    if (!ins.n || !miss.n) {
        fprintf(stderr, "hashset_baseline: empty input\n");
        return 2;
    }
    size_t L = lookups ? (size_t)lookups : (ins.n < miss.n ? ins.n : miss.n);
    if (L > ins.n)
        L = ins.n;
    if (L > miss.n)
        L = miss.n;
    /* hit order: a seeded Fisher-Yates permutation of the inserted URLs */
    uint32_t *hit_idx = bl_xmalloc(ins.n * sizeof *hit_idx);
    for (size_t i = 0; i < ins.n; i++)
        hit_idx[i] = (uint32_t)i;
    fb_rng rng = {42};
    for (size_t i = ins.n - 1; i > 0; i--) {
        size_t j = (size_t)fb_rng_below(&rng, i + 1);
        uint32_t t = hit_idx[i];
        hit_idx[i] = hit_idx[j];
        hit_idx[j] = t;
    }

    /* the hit stream: the first L keys of that order, copied contiguously */
    lines hits;
    memset(&hits, 0, sizeof hits);
    {
        size_t bytes = 0;
        for (size_t i = 0; i < L; i++)
            bytes += (size_t)ins.len[hit_idx[i]] + 1;
        hits.buf = bl_xmalloc(bytes ? bytes : 1);
        hits.key = bl_xmalloc(L * sizeof *hits.key);
        hits.len = bl_xmalloc(L * sizeof *hits.len);
        char *p = hits.buf;
        for (size_t i = 0; i < L; i++) {
            uint32_t j = hit_idx[i];
            memcpy(p, ins.key[j], (size_t)ins.len[j] + 1);
            hits.key[i] = p;
            hits.len[i] = ins.len[j];
            p += ins.len[j] + 1;
        }
        hits.n = L;
        hits.mean_len = ins.mean_len;
    }

    subject all[] = {
        {"ghash", K_GHASH, 0, NULL, {0}, NULL},
        {"ghash_xxh3", K_GHASH_XXH3, 0, NULL, {0}, NULL},
        {"oaset", K_OASET, 0, NULL, {0}, NULL},
        {"classic", K_FILTER, FL_CLASSIC, NULL, {0}, NULL},
        {"block512", K_FILTER, FL_BLOCK512, NULL, {0}, NULL},
        {"split256", K_FILTER, FL_SPLIT256, NULL, {0}, NULL},
        {"cuckoo8", K_FILTER, FL_CUCKOO, NULL, {0}, NULL},
        {"cuckoo1pct", K_FILTER, FL_CUCKOO, NULL, {0}, NULL},
        {"cuckoo16", K_FILTER, FL_CUCKOO, NULL, {0}, NULL},
    };
    const size_t nall = sizeof all / sizeof all[0];

    bl_json j;
    bl_json_begin(&j, json_path, "hashset_baseline");
    bl_json_int(&j, "n", (long long)ins.n);
    bl_json_num(&j, "mean_key_bytes", ins.mean_len);
    bl_json_num(&j, "mean_miss_key_bytes", miss.mean_len);
    bl_json_int(&j, "lookups", (long long)L);
    bl_json_int(&j, "reps", reps);
    bl_json_num(&j, "bits_per_key", bpk);
    char gv[32];
    snprintf(gv, sizeof gv, "%u.%u.%u", glib_major_version, glib_minor_version, glib_micro_version);
    bl_json_str(&j, "glib_version", gv);
    bl_json_open(&j, "rows", '[');
    int failures = 0;
    for (size_t s = 0; s < nall; s++) {
        subject *sub = &all[s];
        if (only) {
            size_t nl = strlen(sub->name);
            const char *p = only;
            int found = 0;
            while ((p = strstr(p, sub->name)) != NULL) {
                if ((p == only || p[-1] == ',') && (p[nl] == ',' || p[nl] == '\0')) {
                    found = 1;
                    break;
                }
                p += nl;
            }
            if (!found)
                continue;
        }
        fprintf(stderr, "hashset_baseline: %s: building (%zu URLs)\n", sub->name, ins.n);
        row r;
        memset(&r, 0, sizeof r);
        r.lookups = L;
        r.payload_bytes = -1;
        r.miss_ns_batch = r.hit_ns_batch = NAN;
        if (build(sub, &ins, bpk, &r) == 0) {
            fprintf(stderr, "hashset_baseline: %s: %zu lookups x %d passes\n", sub->name, L, reps);
            r.miss_ns = time_passes(sub, &miss, L, reps, 0, &r.miss_pos);
            r.hit_ns = time_passes(sub, &hits, L, reps, 0, &r.hit_pos);
            if (sub->kind == K_FILTER) {
                uint64_t p;
                r.miss_ns_batch = time_passes(sub, &miss, L, reps, 1, &p);
                r.hit_ns_batch = time_passes(sub, &hits, L, reps, 1, &p);
            }
            r.ok = 1;
        } else {
            failures++;
            fprintf(stderr, "hashset_baseline: %s: %s\n", sub->name, r.error);
        }
        destroy(sub);

        bl_json_open(&j, NULL, '{');
        bl_json_str(&j, "structure", sub->name);
        bl_json_int(&j, "exact", sub->kind != K_FILTER);
        bl_json_str(&j, "describe", r.describe);
        if (!r.ok)
            bl_json_str(&j, "error", r.error);
        bl_json_num(&j, "heap_bytes", r.heap_bytes >= 0 ? (double)r.heap_bytes : NAN);
        bl_json_num(&j, "payload_bytes", r.payload_bytes >= 0 ? (double)r.payload_bytes : NAN);
        bl_json_num(&j, "insert_ns", r.ok ? r.insert_ns : NAN);
        bl_json_num(&j, "miss_ns", r.ok ? r.miss_ns : NAN);
        bl_json_num(&j, "hit_ns", r.ok ? r.hit_ns : NAN);
        bl_json_num(&j, "miss_ns_batch", r.miss_ns_batch);
        bl_json_num(&j, "hit_ns_batch", r.hit_ns_batch);
        bl_json_int(&j, "lookups", (long long)L);
        bl_json_int(&j, "false_positives", (long long)r.miss_pos);
        bl_json_num(&j, "fpr", r.ok ? (double)r.miss_pos / (double)L : NAN);
        bl_json_int(&j, "false_negatives", r.ok ? (long long)(L - r.hit_pos) : -1);
        bl_json_close(&j, '}');
    }
    bl_json_close(&j, ']');
    bl_json_close(&j, '}');
    bl_close_out(j.f);
    free(hit_idx);
    free_lines(&hits);
    free_lines(&ins);
    free_lines(&miss);
    return failures ? 2 : 0;
}
