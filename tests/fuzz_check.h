/*
 * What every fuzz target's checks are made of: CHECK traps on a property that does not
 * hold, which libFuzzer reports as a crash with the input saved, and the standalone replay
 * (tests/fuzz_standalone.h) as a signal; and the entry point both call.
 */
#ifndef FL_FUZZ_CHECK_H
#define FL_FUZZ_CHECK_H

#include <stddef.h>
#include <stdint.h>

#define CHECK(c)                    \
    do {                            \
        if (!(c)) __builtin_trap(); \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
