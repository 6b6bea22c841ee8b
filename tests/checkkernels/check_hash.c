/*
 * checkkernels, module "hash": the integer-key hash kernel against scalar, every length up to
 * 70 and 1000, every input misalignment, canaries after the output.
 */
#include "harness.h"

#include <inttypes.h>
#include <string.h>

void check_hash(const kernel *ks, size_t nk) {
    static uint64_t q[1000];
    for (size_t i = 0; i < 1000; i++) q[i] = (i & 3) ? rnd() : special_hash();
    /* The scalar entry is filterlab.h's fl_hash_u64_inline over an array: check it too. */
    set_ctx("kernel=scalar hash_u64 vs fl_hash_u64");
    uint64_t seed = rnd(), out[1000];
    ks[0].t->hash.u64(q, 1000, seed, out);
    int ok = 1;
    for (size_t i = 0; i < 1000 && ok; i++)
        if (out[i] != fl_hash_u64(q[i], seed)) {
            failf("index %zu differs from fl_hash_u64", i);
            ok = 0;
        }
    record(ok);
    for (size_t ki = 1; ki < nk; ki++) {
        if (!kernel_overrides(ks, ki, FL_KERNEL_SLOT(hash.u64))) continue;
        set_ctx("kernel=%s hash_u64", ks[ki].name);
        record(check_u64_kernel("hash_u64", ks[ki].t->hash.u64, ks[0].t->hash.u64, q, 0, 1));
    }
    for (size_t ki = 0; ki < nk; ki++) {
        set_ctx("kernel=%s hash table", ks[ki].name);
        const uint32_t slots[] = {FL_KERNEL_SLOT(hash.u64)};
        check_entries_present(&ks[ki], slots, 1);
    }
}

/* No bench rows: --bench times lookups and inserts on payloads, and the hash kernel has
 * none (flbench times the integer-key calls that use it). */
void bench_hash(const kernel *ks, size_t nk) {
    (void)ks;
    (void)nk;
}
