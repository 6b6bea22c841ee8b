/*
 * The physical bound at a footprint: what random access to that much memory costs on this
 * machine, measured the way a filter lookup uses memory.
 *
 *   latency:     dependent loads chasing a random cyclic permutation of the footprint's cache
 *                lines (Sattolo's algorithm gives one cycle through every line, so the chase
 *                never settles into a short loop); ns per load = the load-to-use latency.
 *   random_line: independent reads of one word from random lines, random values precomputed,
 *                software prefetch `distance` lines ahead (16-32 covers DRAM latency at the
 *                memory-level parallelism of current cores); ns per line = the best a
 *                one-line-per-key filter lookup could do. The bound is the fastest
 *                repetition (a best case), not the median.
 *
 * Both use the same page policy as the filters (MADV_HUGEPAGE at >= 2 MiB unless
 * --huge-pages off), so TLB reach is comparable.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "flbench.h"

#define LINE 64
#define HUGE_PAGE (2u << 20)

int fb_probe_alloc(fb_probe_buf *b, size_t bytes, int huge_pages) {
    memset(b, 0, sizeof *b);
    if (bytes < 2 * LINE)
        bytes = 2 * LINE;
    bytes = (bytes + LINE - 1) / LINE * LINE;
    size_t span = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    size_t map = span + HUGE_PAGE;
    char *p = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    char *aligned = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    b->raw = p;
    b->base = aligned;
    b->bytes = bytes;
    b->mapped = map;
    if (huge_pages && bytes >= HUGE_PAGE)
        b->huge = madvise(aligned, span, MADV_HUGEPAGE) == 0;
    else if (!huge_pages)
        madvise(aligned, span, MADV_NOHUGEPAGE);
    memset(aligned, 0, bytes); /* fault every page in before anything is timed */
    return 0;
}

void fb_probe_free(fb_probe_buf *b) {
    if (b->raw)
        munmap(b->raw, b->mapped);
    memset(b, 0, sizeof *b);
}

void fb_probe_chain(fb_probe_buf *b, fb_rng *rng) {
    size_t lines = b->bytes / LINE;
    uint64_t *next = malloc(lines * sizeof *next);
    char *base = b->base;
    if (!next) { /* fall back to a sequential cycle rather than fail */
        for (size_t i = 0; i < lines; i++)
            *(char **)(base + i * LINE) = base + ((i + 1) % lines) * LINE;
        return;
    }
    for (size_t i = 0; i < lines; i++)
        next[i] = i;
    /* Sattolo (1986): swapping only with j < i yields a single cycle of length `lines`. */
    for (size_t i = lines - 1; i > 0; i--) {
        size_t j = (size_t)fb_rng_below(rng, i);
        uint64_t t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
    for (size_t i = 0; i < lines; i++)
        *(char **)(base + i * LINE) = base + next[i] * LINE;
    free(next);
}

uint64_t fb_probe_chase(const fb_probe_buf *b, uint64_t loads) {
    char *p = b->base;
    for (uint64_t i = 0; i < loads; i++)
        p = *(char **)p;
    return (uint64_t)(uintptr_t)p;
}

uint64_t fb_probe_lines(const fb_probe_buf *b, const uint32_t *rnd, uint64_t n, int distance) {
    /* Line = (r * lines) >> 32, the multiply-shift reduction the filters use for their own
     * addressing. Prefetches go out in groups of 8 (one group `distance` lines ahead per 8
     * reads), which measured ~10-20% faster on Sapphire Rapids than one prefetch per read. */
    const char *base = b->base;
    const uint64_t lines = b->bytes / LINE;
    const uint64_t d = ((uint64_t)distance + 7) / 8 * 8;
    uint64_t sum = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        for (int j = 0; j < 8; j++)
            __builtin_prefetch(base + (((uint64_t)rnd[i + d + j] * lines) >> 32) * LINE, 0, 3);
        for (int j = 0; j < 8; j++)
            sum += *(const uint64_t *)(base + (((uint64_t)rnd[i + j] * lines) >> 32) * LINE);
    }
    for (; i < n; i++)
        sum += *(const uint64_t *)(base + (((uint64_t)rnd[i] * lines) >> 32) * LINE);
    return sum;
}

uint64_t fb_probe_stream(const fb_probe_buf *b, uint64_t passes) {
    /* Eight independent 16-byte vector accumulators (GCC's generic vectors: SSE2 on x86-64,
     * NEON on aarch64; 32-byte ones without -mavx2 were split and spilled to the stack, which
     * bounded the rate by store forwarding) so that neither the adds nor one dependency chain
     * limit the rate: what remains is the read bandwidth of the buffer's footprint. */
    typedef uint64_t v2u64 __attribute__((vector_size(16)));
    const char *base = b->base;
    const size_t n = b->bytes / 128;
    v2u64 a[8] = {{0, 0}};
    for (uint64_t p = 0; p < passes; p++)
        for (size_t i = 0; i < n; i++) {
            const char *q = base + i * 128;
            for (int j = 0; j < 8; j++) {
                v2u64 x;
                memcpy(&x, q + 16 * j, 16);
                a[j] += x;
            }
        }
    v2u64 s = a[0];
    for (int j = 1; j < 8; j++)
        s += a[j];
    return s[0] + s[1];
}
