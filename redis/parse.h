/* Strict number parsing for command arguments (no Redis dependency: tests/redis/test_chunk.c
 * checks it under ASan). Every function returns 1 and sets *out only if the whole text is
 * the number; leading '+', spaces, trailing bytes and overflow are refused. */
#ifndef FLR_PARSE_H
#define FLR_PARSE_H
#include <stddef.h>
#include <stdint.h>

int flr_parse_u64(const char *s, size_t len, uint64_t *out);
/* A signed 64-bit integer ("-5"; "-0" is 0). */
int flr_parse_i64(const char *s, size_t len, int64_t *out);
/* A finite double ("0.01", "1e-3"; not "nan", "inf"). */
int flr_parse_double(const char *s, size_t len, double *out);
/* Case-insensitive equality with a NUL-terminated word. */
int flr_word_is(const char *s, size_t len, const char *word);

#endif /* FLR_PARSE_H */
