/*
 * Counting Bloom reference kernels (the scalar table's counting module): lookups, one-key
 * lookups and saturating inserts of both layouts, on probe.h's positions. Every other ISA's
 * counting kernel must give exactly these results (tests/checkkernels/check_counting.c).
 */
#include "scalar_common.h"

size_t fl_contains_counting_scalar(const fl_kview *f, const uint64_t *hashes, size_t n,
                                   uint8_t *out) {
    const uint64_t *w = (const uint64_t *)f->data;
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + FL_PREFETCH_AHEAD < n) /* the first counter's word: the rest depend on it */
            __builtin_prefetch(&w[fl_counting_cell(fl_hash_at(hashes, i + FL_PREFETCH_AHEAD), f->units) >> 4], 0, 3);
        int r = fl_counting_probe(f, fl_hash_at(hashes, i));
        out[i] = (uint8_t)r;
        pos += (size_t)r;
    }
    return pos;
}

size_t fl_contains_counting512_scalar(const fl_kview *f, const uint64_t *hashes, size_t n,
                                      uint8_t *out) {
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + FL_PREFETCH_AHEAD < n)
            __builtin_prefetch(fl_block512_at(f, fl_hash_at(hashes, i + FL_PREFETCH_AHEAD)), 0, 3);
        int r = fl_counting512_probe(f, fl_hash_at(hashes, i));
        out[i] = (uint8_t)r;
        pos += (size_t)r;
    }
    return pos;
}

/* Inserts: each key's k increments in probe order, keys in batch order. A counter a key hits
 * twice gets +2 (or saturates on the way), exactly as two one-key steps would. */
static void fl_insert_counting_scalar(const fl_kview *f, const uint64_t *hashes, size_t n) {
    uint64_t *w = (uint64_t *)f->data;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = fl_hash_at(hashes, i), g = h, step = fl_classic_step(h);
        for (uint32_t j = 0; j < f->k; j++, g += step) fl_counter_inc(w, fl_counting_cell(g, f->units));
    }
}

static void fl_insert_counting512_scalar(const fl_kview *f, const uint64_t *hashes, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint64_t h = fl_hash_at(hashes, i);
        uint64_t *b = (uint64_t *)(uintptr_t)fl_block512_at(f, h);
        for (uint32_t j = 0; j < f->k; j++) fl_counter_inc(b, fl_counting512_slot((uint32_t)h, j));
    }
}

FL_SCALAR_PROBE1(counting, fl_counting_probe)
FL_SCALAR_PROBE1(counting512, fl_counting512_probe)

void fl_counting_kernels_init_scalar(fl_kernel_table *t) {
    t->counting.contains[FL_COUNTING_CLASSIC] = fl_contains_counting_scalar;
    t->counting.contains[FL_COUNTING_BLOCKED] = fl_contains_counting512_scalar;
    t->counting.insert[FL_COUNTING_CLASSIC] = fl_insert_counting_scalar;
    t->counting.insert[FL_COUNTING_BLOCKED] = fl_insert_counting512_scalar;
    t->counting.contains1[FL_COUNTING_CLASSIC] = fl_probe1_counting_scalar;
    t->counting.contains1[FL_COUNTING_BLOCKED] = fl_probe1_counting512_scalar;
}
