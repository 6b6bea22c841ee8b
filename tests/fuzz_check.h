/*
 * What every fuzz target's checks are made of: CHECK traps on a property that does not
 * hold, which libFuzzer reports as a crash with the input saved, and the standalone replay
 * (tests/fuzz_standalone.h) as a signal; the entry point both call; and the checks every
 * loader's target makes (its outcome, the save back to the input's bytes).
 */
#ifndef FL_FUZZ_CHECK_H
#define FL_FUZZ_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "filterlab.h"

#define CHECK(c)                    \
    do {                            \
        if (!(c)) __builtin_trap(); \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A loader's outcome on any input (st, whether it gave an object), for a loader of files of
 * `kind`: a failure is a status in range with no object, and WRONG_KIND only for a file
 * fl_file_kind_mem names as another kind; a success gives an object, and fl_file_kind_mem
 * names `kind`. Returns whether the load succeeded (the caller checks the object next). */
static inline int check_load_outcome(const uint8_t *data, size_t size, fl_status st,
                                     int got_object, uint32_t kind) {
    uint32_t named = 0;
    fl_status kst = fl_file_kind_mem(data, size, &named);
    if (st != FL_OK) {
        CHECK(!got_object);
        CHECK(st > FL_OK && st < FL_STATUS_COUNT);
        if (st == FL_ERR_WRONG_KIND) CHECK(kst == FL_OK && named != kind);
        return 0;
    }
    CHECK(got_object);
    CHECK(kst == FL_OK && named == kind);
    return 1;
}

/* A loaded object saves back to exactly the input bytes (each format here has one encoding
 * per object): size_fn(obj) is the input's size, and save_mem_fn writes it whole. */
#define CHECK_SAVES_BACK(obj, size_fn, save_mem_fn, data, size)                   \
    do {                                                                          \
        size_t need_ = size_fn(obj), written_ = 0;                                \
        CHECK(need_ == (size));                                                   \
        uint8_t *buf_ = malloc(need_);                                            \
        CHECK(buf_ != NULL);                                                      \
        CHECK(save_mem_fn(obj, buf_, need_, &written_) == FL_OK && written_ == need_); \
        CHECK(memcmp(buf_, (data), need_) == 0);                                  \
        free(buf_);                                                               \
    } while (0)

/* A deletable filter's batch lookups (prefix##_contains_u64s) of keys[0..n) give exactly
 * want[0..n) (its one-key answers, npos of them 1) under every kernel it can be bound to
 * (those this CPU cannot run are refused by the bind and skipped). */
#define CHECK_KERNELS_AGREE(prefix, obj, keys, n, want, npos)                              \
    do {                                                                                   \
        static const char *const names_[] = {"scalar", "neon", "avx2", "avx512", "auto"};  \
        uint8_t got_[256];                                                                 \
        CHECK((n) <= sizeof got_);                                                         \
        for (size_t k_ = 0; k_ < sizeof names_ / sizeof names_[0]; k_++) {                 \
            size_t pos_ = 0;                                                               \
            if (prefix##_bind_kernel(obj, names_[k_]) != FL_OK) continue;                  \
            CHECK(prefix##_contains_u64s(obj, keys, n, got_, &pos_) == FL_OK);             \
            CHECK(pos_ == (npos) && memcmp(got_, want, n) == 0);                           \
        }                                                                                  \
    } while (0)

/* What obj holds after the target changed it still saves, and the image loads. */
#define CHECK_STILL_LOADS(prefix, type, obj)                                               \
    do {                                                                                   \
        size_t need_ = prefix##_serialized_size(obj);                                      \
        uint8_t *out_ = malloc(need_);                                                     \
        CHECK(out_ != NULL && prefix##_save_mem(obj, out_, need_, NULL) == FL_OK);         \
        type *back_ = NULL;                                                                \
        CHECK(prefix##_load_mem(out_, need_, 0, &back_) == FL_OK);                         \
        free(out_);                                                                        \
        prefix##_free(back_);                                                              \
    } while (0)

#endif
