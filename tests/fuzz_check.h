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

#endif
