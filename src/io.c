/*
 * The filterlab file format: versioned, checksummed, little-endian.
 *
 * Byte layout of format version 1 (every integer little-endian, encoded byte by byte so the
 * layout never depends on a compiler's struct padding or the host's byte order):
 *
 *   offset  size  field
 *   ------  ----  ----------------------------------------------------------------------
 *        0     8  magic: 'F' 'L' 'T' 'R' 'L' 'A' 'B' 0x1A
 *        8     2  u16 format version = 1
 *       10     1  u8  variant (fl_variant, 1..5)
 *       11     1  u8  hash id (fl_hash_id, 1..2)
 *       12     4  u32 k (bits per key; cuckoo: fingerprint bits)
 *       16     8  u64 units (words / blocks / buckets)
 *       24     8  u64 hash seed
 *       32     8  u64 key count (fl_info.keys)
 *       40     8  u64 payload byte count (must equal the geometry's payload size)
 *       48     4  u32 flags: reserved, must be 0
 *       52     4  u32 stash count (cuckoo only, 0..8; 0 for the Bloom variants)
 *       56    64  8 stash slots of 8 bytes: u32 bucket, u16 fingerprint, u16 zero;
 *                 slots at and after the stash count are all zero
 *      120     8  u64 XXH3_64bits of bytes [0, 120)
 *      128     P  payload, P = payload byte count, exactly the in-memory payload (its
 *                 words are little-endian, see kernels/probe.h)
 *    128+P     8  u64 XXH3_64bits of the payload
 *
 * Total size: 136 + P. The header is a fixed 128 bytes so that (a) a bit flip anywhere in
 * it, the stash count included, is caught by the header checksum rather than misdirecting
 * the parse, and (b) the payload of a file mapped at a page boundary is 64-byte aligned,
 * as kernels expect. The stash always takes its 8 slots (64 bytes, negligible).
 *
 * A load validates before it trusts, in this order, so each failure has its own status:
 *   magic (BAD_MAGIC; a short input that is a prefix of the magic is TRUNCATED), version
 *   (BAD_VERSION), header length (TRUNCATED), header checksum (CHECKSUM), field semantics
 *   (CORRUPT: unknown variant or hash, nonzero reserved bits, geometry rejected by
 *   fl_geometry_check, payload count differing from the geometry, bad stash), payload size
 *   against the caller's cap (TOO_LARGE), total length (TRUNCATED / TRAILING_DATA),
 *   payload checksum (CHECKSUM), cuckoo key count against the occupied slots (CORRUPT).
 * A geometry whose payload size overflows size_t on this host is TOO_LARGE, not CORRUPT.
 *
 * Any change to the layout or to a probe formula in kernels/probe.h needs a new version.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h> /* rename; nothing is printed */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "atomic_file.h"
#include "internal.h"

#define FMT_VERSION 1u
#define FMT_HEADER 128u     /* fixed header, checksum included */
#define FMT_HSUM_AT 120u    /* header checksum offset: covers [0, 120) */
#define FMT_STASH_AT 56u
#define FMT_STASH_SLOTS 8u
#define FMT_TRAILER 8u      /* payload checksum */

static const uint8_t FMT_MAGIC[8] = {'F', 'L', 'T', 'R', 'L', 'A', 'B', 0x1A};

_Static_assert(FL_STASH_MAX <= FMT_STASH_SLOTS, "the format stores at most 8 stash entries");
_Static_assert(FMT_STASH_AT + 8 * FMT_STASH_SLOTS == FMT_HSUM_AT, "header layout");

/* ---- byte-by-byte little-endian codecs ------------------------------------------------ */
static void put16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint16_t get16(const uint8_t *p) {
    return (uint16_t)(p[0] | (p[1] << 8));
}
static uint32_t get32(const uint8_t *p) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static uint64_t get64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

/* The decoded, validated header. */
typedef struct fl_hdr {
    fl_geometry g;
    fl_hash_id hash;
    uint64_t seed;
    uint64_t keys;
    size_t payload;
    uint32_t stash_count;
    fl_stash_entry stash[FMT_STASH_SLOTS];
} fl_hdr;

/* ---- writing -------------------------------------------------------------------------- */
static void encode_header(const fl_filter *f, uint8_t h[FMT_HEADER]) {
    memset(h, 0, FMT_HEADER);
    memcpy(h, FMT_MAGIC, sizeof FMT_MAGIC);
    put16(h + 8, FMT_VERSION);
    h[10] = (uint8_t)f->g.variant;
    h[11] = (uint8_t)f->hash;
    put32(h + 12, f->g.k);
    put64(h + 16, f->g.units);
    put64(h + 24, f->seed);
    /* keys may be bumped by fl_insert_hashes_atomic on another thread. */
    put64(h + 32, __atomic_load_n(&f->keys, __ATOMIC_RELAXED));
    put64(h + 40, (uint64_t)f->bytes);
    put32(h + 48, 0);
    uint32_t n = f->g.variant == FL_CUCKOO ? f->stash_count : 0;
    put32(h + 52, n);
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *e = h + FMT_STASH_AT + 8 * i;
        put32(e, f->stash[i].bucket);
        put16(e + 4, f->stash[i].fp);
    }
    put64(h + FMT_HSUM_AT, XXH3_64bits(h, FMT_HSUM_AT));
}

/* Copies a payload that fl_insert_hashes_atomic may be OR-ing bits into on another thread.
 * Relaxed atomic loads make that a defined race for the C11 memory model (and for TSan);
 * on x86-64 and AArch64 an aligned relaxed 8-byte load is a plain load. `src` is 8-byte
 * aligned (payloads are 64-byte aligned, callers step in multiples of 8). */
static void fl_copy_payload(uint8_t *dst, const uint8_t *src, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = __atomic_load_n((const uint64_t *)(const void *)(src + i), __ATOMIC_RELAXED);
        memcpy(dst + i, &w, 8);
    }
    for (; i < n; i++) dst[i] = __atomic_load_n(src + i, __ATOMIC_RELAXED);
}

/* A filter in memory is already consistent; this guards against one that is not (a stash
 * count beyond the format's slots would otherwise be written out of bounds). */
static fl_status check_saveable(const fl_filter *f) {
    if (f->g.variant == FL_CUCKOO && f->stash_count > FL_STASH_MAX) return FL_ERR_INVALID_ARG;
    return FL_OK;
}

size_t fl_serialized_size(const fl_filter *f) {
    if (!f) return 0;
    if (f->bytes > SIZE_MAX - FMT_HEADER - FMT_TRAILER) return 0;
    return FMT_HEADER + f->bytes + FMT_TRAILER;
}

fl_status fl_save_mem(const fl_filter *f, void *buf, size_t cap, size_t *written) {
    if (written) *written = 0;
    if (!f || !buf) return FL_ERR_INVALID_ARG;
    fl_status st = check_saveable(f);
    if (st != FL_OK) return st;
    size_t need = fl_serialized_size(f);
    if (need == 0) return FL_ERR_TOO_LARGE;
    if (cap < need) return FL_ERR_BUFFER_TOO_SMALL;
    uint8_t *p = (uint8_t *)buf;
    encode_header(f, p);
    if (f->bytes) fl_copy_payload(p + FMT_HEADER, (const uint8_t *)f->data, f->bytes);
    /* Checksum the copy, not f->data: atomic inserts on another thread may set bits in
     * between, and the file must agree with its own checksum. */
    put64(p + FMT_HEADER + f->bytes, XXH3_64bits(p + FMT_HEADER, f->bytes));
    if (written) *written = need;
    return FL_OK;
}

/* ---- reading -------------------------------------------------------------------------- */

/* Checks everything the first `avail` bytes can tell: magic, version, header length,
 * header checksum and field semantics. */
static fl_status decode_header(const uint8_t *p, size_t avail, fl_hdr *h) {
    if (avail < sizeof FMT_MAGIC)
        return memcmp(p, FMT_MAGIC, avail) ? FL_ERR_BAD_MAGIC : FL_ERR_TRUNCATED;
    if (memcmp(p, FMT_MAGIC, sizeof FMT_MAGIC)) return FL_ERR_BAD_MAGIC;
    if (avail < 10) return FL_ERR_TRUNCATED;
    if (get16(p + 8) != FMT_VERSION) return FL_ERR_BAD_VERSION;
    if (avail < FMT_HEADER) return FL_ERR_TRUNCATED;
    if (get64(p + FMT_HSUM_AT) != XXH3_64bits(p, FMT_HSUM_AT)) return FL_ERR_CHECKSUM;

    /* From here every byte is what the writer wrote, so a bad value is a writer bug or a
     * crafted file: CORRUPT. */
    memset(h, 0, sizeof *h);
    uint8_t variant = p[10], hash = p[11];
    if (variant < FL_VARIANT_MIN || variant > FL_VARIANT_MAX) return FL_ERR_CORRUPT;
    if (hash != FL_HASH_XXH3 && hash != FL_HASH_XXH64) return FL_ERR_CORRUPT;
    h->g.variant = (fl_variant)variant;
    h->g.k = get32(p + 12);
    h->g.units = get64(p + 16);
    h->hash = (fl_hash_id)hash;
    h->seed = get64(p + 24);
    h->keys = get64(p + 32);
    uint64_t payload = get64(p + 40);
    if (get32(p + 48) != 0) return FL_ERR_CORRUPT;
    h->stash_count = get32(p + 52);

    size_t bytes = 0;
    fl_status st = fl_geometry_check(&h->g, &bytes);
    if (st == FL_ERR_TOO_LARGE || st == FL_ERR_NO_MEMORY) return st;
    if (st != FL_OK) return FL_ERR_CORRUPT;
    if (payload != (uint64_t)bytes) return FL_ERR_CORRUPT;
    h->payload = bytes;

    uint32_t limit = h->g.variant == FL_CUCKOO ? FL_STASH_MAX : 0;
    if (h->stash_count > limit) return FL_ERR_CORRUPT;
    for (uint32_t i = 0; i < FMT_STASH_SLOTS; i++) {
        const uint8_t *e = p + FMT_STASH_AT + 8 * i;
        uint32_t bucket = get32(e);
        uint16_t fp = get16(e + 4), pad = get16(e + 6);
        if (i >= h->stash_count) {
            /* Unused slots are zero so that a load followed by a save is byte-identical. */
            if (bucket || fp || pad) return FL_ERR_CORRUPT;
            continue;
        }
        /* fp 0 marks an empty slot; fingerprints are in [1, 2^k - 1] (kernels/probe.h). */
        if (bucket >= h->g.units || fp == 0 || pad != 0) return FL_ERR_CORRUPT;
        if (h->g.k < 16 && fp >= (1u << h->g.k)) return FL_ERR_CORRUPT;
        h->stash[i].bucket = bucket;
        h->stash[i].fp = fp;
    }
    return FL_OK;
}

static fl_status check_cap(const fl_hdr *h, size_t max_bytes) {
    return max_bytes && h->payload > max_bytes ? FL_ERR_TOO_LARGE : FL_OK;
}

/* total: the whole input's length. */
static fl_status check_length(const fl_hdr *h, uint64_t total) {
    /* payload <= 2^38 (units < 2^32 of at most 64 bytes), so this cannot overflow. */
    uint64_t expect = (uint64_t)FMT_HEADER + h->payload + FMT_TRAILER;
    if (total < expect) return FL_ERR_TRUNCATED;
    if (total > expect) return FL_ERR_TRAILING_DATA;
    return FL_OK;
}

/* Occupied cuckoo slots in a payload: nonzero fingerprints. */
static uint64_t cuckoo_slots_used(const uint8_t *payload, size_t bytes, uint32_t k) {
    uint64_t n = 0;
    if (k == 8) {
        for (size_t i = 0; i < bytes; i++) n += payload[i] != 0;
    } else {
        for (size_t i = 0; i + 1 < bytes; i += 2) n += (payload[i] | payload[i + 1]) != 0;
    }
    return n;
}

/* Payload checksum, then the cuckoo count: stored copies must be exactly the occupied
 * slots (fl_info.keys for cuckoo), which a later delete relies on. */
static fl_status check_payload(const fl_hdr *h, const uint8_t *payload, const uint8_t sum[8]) {
    if (get64(sum) != XXH3_64bits(payload, h->payload)) return FL_ERR_CHECKSUM;
    if (h->g.variant == FL_CUCKOO &&
        cuckoo_slots_used(payload, h->payload, h->g.k) + h->stash_count != h->keys)
        return FL_ERR_CORRUPT;
    return FL_OK;
}

static void adopt_header(fl_filter *f, const fl_hdr *h) {
    f->keys = h->keys;
    f->stash_count = h->stash_count;
    for (uint32_t i = 0; i < h->stash_count; i++) f->stash[i] = h->stash[i];
}

fl_status fl_load_mem(const void *buf, size_t len, size_t max_bytes, fl_filter **out) {
    if (out) *out = NULL;
    if (!buf || !out) return FL_ERR_INVALID_ARG;
    const uint8_t *p = (const uint8_t *)buf;
    fl_hdr h;
    fl_status st = decode_header(p, len, &h);
    if (st == FL_OK) st = check_cap(&h, max_bytes);
    if (st == FL_OK) st = check_length(&h, len);
    if (st == FL_OK) st = check_payload(&h, p + FMT_HEADER, p + FMT_HEADER + h.payload);
    if (st != FL_OK) return st;

    fl_filter *f = NULL;
    st = fl_filter_new(&h.g, h.hash, h.seed, 0, &f);
    if (st != FL_OK) return st;
    if (h.payload) memcpy(f->data, p + FMT_HEADER, h.payload);
    adopt_header(f, &h);
    *out = f;
    return FL_OK;
}

/* ---- files ---------------------------------------------------------------------------- */

/* write(2) until done; EINTR and short writes are retried. */
static int write_full(int fd, const void *buf, size_t n) {
    const uint8_t *p = (const uint8_t *)buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (w == 0) {
            errno = EIO;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* read(2) until n bytes or end of file; *got says how many. */
static int read_full(int fd, void *buf, size_t n, size_t *got) {
    uint8_t *p = (uint8_t *)buf;
    size_t done = 0;
    while (done < n) {
        ssize_t r = read(fd, p + done, n - done);
        if (r < 0) {
            if (errno == EINTR) continue;
            *got = done;
            return -1;
        }
        if (r == 0) break;
        done += (size_t)r;
    }
    *got = done;
    return 0;
}

/* Header, payload, payload checksum, as an fl_content_writer for fl_replace_file. The
 * payload goes through a bounce buffer that is both hashed and written, so the checksum
 * matches the bytes on disk even while atomic inserts on another thread set bits. */
static fl_status write_filter(int fd, void *ctx) {
    const fl_filter *f = (const fl_filter *)ctx;
    uint8_t head[FMT_HEADER], sum[FMT_TRAILER];
    encode_header(f, head);
    enum { CHUNK = 1 << 16 };
    uint8_t *chunk = malloc(CHUNK);
    XXH3_state_t *st = XXH3_createState();
    /* Our own buffers failing is NO_MEMORY, as the header promises, not an I/O error. */
    fl_status rc = chunk && st && XXH3_64bits_reset(st) == XXH_OK ? FL_OK : FL_ERR_NO_MEMORY;
    if (rc == FL_OK && write_full(fd, head, sizeof head) != 0) rc = FL_ERR_IO;
    for (size_t off = 0; off < f->bytes && rc == FL_OK; off += CHUNK) {
        size_t n = f->bytes - off < CHUNK ? f->bytes - off : CHUNK;
        fl_copy_payload(chunk, (const uint8_t *)f->data + off, n);
        if (XXH3_64bits_update(st, chunk, n) != XXH_OK) rc = FL_ERR_NO_MEMORY;
        else if (write_full(fd, chunk, n) != 0) rc = FL_ERR_IO;
    }
    if (rc == FL_OK) {
        put64(sum, XXH3_64bits_digest(st));
        if (write_full(fd, sum, sizeof sum) != 0) rc = FL_ERR_IO;
    }
    int err = errno;
    free(chunk);
    XXH3_freeState(st);
    errno = err;
    return rc;
}

/* Atomic replace (src/atomic_file.c): a failure never destroys the previous file, and a
 * symbolic link's target is replaced, not written through. */
fl_status fl_save_file(const fl_filter *f, const char *path) {
    if (!f || !path || !*path) return FL_ERR_INVALID_ARG;
    fl_status st = check_saveable(f);
    if (st != FL_OK) return st;
    if (fl_serialized_size(f) == 0) return FL_ERR_TOO_LARGE;
    return fl_replace_file(path, write_filter, (void *)f);
}

/* Reads the header first and checks it against the file size from fstat, so a huge or
 * mislabelled file is refused before its payload is read or allocated; the payload is then
 * read straight into the new filter (no second copy of a large filter in memory). A file
 * that is not regular (a pipe) has no size up front: its end is checked after the read. */
static fl_status load_fd(int fd, size_t max_bytes, fl_filter **out) {
    struct stat sb;
    if (fstat(fd, &sb) != 0) return FL_ERR_IO;
    int regular = S_ISREG(sb.st_mode);

    uint8_t head[FMT_HEADER];
    size_t got = 0;
    if (read_full(fd, head, sizeof head, &got) != 0) return FL_ERR_IO;
    fl_hdr h;
    fl_status st = decode_header(head, got, &h);
    if (st == FL_OK) st = check_cap(&h, max_bytes);
    if (st == FL_OK && regular) st = check_length(&h, (uint64_t)sb.st_size);
    if (st != FL_OK) return st;

    fl_filter *f = NULL;
    st = fl_filter_new(&h.g, h.hash, h.seed, 0, &f);
    if (st != FL_OK) return st;

    uint8_t sum[FMT_TRAILER], extra;
    size_t got_sum = 0, got_extra = 0;
    if (read_full(fd, f->data, h.payload, &got) != 0) {
        st = FL_ERR_IO;
    } else if (got < h.payload) {
        st = FL_ERR_TRUNCATED; /* the file shrank after fstat, or a pipe ended early */
    } else if (read_full(fd, sum, sizeof sum, &got_sum) != 0) {
        st = FL_ERR_IO;
    } else if (got_sum < sizeof sum) {
        st = FL_ERR_TRUNCATED;
    } else if (read_full(fd, &extra, 1, &got_extra) != 0) {
        st = FL_ERR_IO;
    } else if (got_extra) {
        st = FL_ERR_TRAILING_DATA;
    } else {
        st = check_payload(&h, (const uint8_t *)f->data, sum);
    }
    if (st != FL_OK) {
        int err = errno;
        fl_free(f);
        errno = err;
        return st;
    }
    adopt_header(f, &h);
    *out = f;
    return FL_OK;
}

fl_status fl_load_file(const char *path, size_t max_bytes, fl_filter **out) {
    if (out) *out = NULL;
    if (!path || !out) return FL_ERR_INVALID_ARG;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return FL_ERR_IO;
    fl_status st = load_fd(fd, max_bytes, out);
    int err = errno;
    close(fd);
    errno = err;
    return st;
}
