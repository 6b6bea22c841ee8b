/*
 * checkkernels, module "hash": the integer-key hash kernel against scalar, every length up to
 * 70 and 1000, every input misalignment, canaries after the output.
 */
#include "harness.h"

#include <inttypes.h>
#include <string.h>

#define CANARY_BYTE 0x5a

static int check_u64(const kernel *kn, const kernel *ref, const uint64_t *q) {
    static uint64_t want[1000];
    static unsigned char got[8 * 1000 + 64];
    for (size_t n = 0; n <= 1000; n = n < 70 ? n + 1 : 1000) {
        unsigned mis = (unsigned)rnd_below(8);
        uint64_t seed = rnd();
        const uint64_t *in = gbuf_place(q, n, mis, (int)(n & 1));
        ref->t->hash.u64(in, n, seed, want);
        memset(got, CANARY_BYTE, sizeof got);
        kn->t->hash.u64(in, n, seed, (uint64_t *)(void *)(got + mis));
        for (size_t i = 0; i < n; i++) {
            uint64_t g;
            memcpy(&g, got + mis + 8 * i, 8);
            if (g != want[i]) {
                failf("hash_u64 n=%zu index %zu: got %016" PRIx64 " want %016" PRIx64, n, i, g,
                      want[i]);
                return 0;
            }
        }
        for (size_t i = mis + 8 * n; i < sizeof got; i++)
            if (got[i] != CANARY_BYTE) {
                failf("hash_u64 n=%zu wrote past out[n]", n);
                return 0;
            }
        if (n == 1000) break;
    }
    return 1;
}

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
        record(check_u64(&ks[ki], &ks[0], q));
    }
    for (size_t ki = 0; ki < nk; ki++) {
        set_ctx("kernel=%s hash table", ks[ki].name);
        const uint32_t slots[] = {FL_KERNEL_SLOT(hash.u64)};
        check_entries_present(&ks[ki], slots, 1);
    }
}
