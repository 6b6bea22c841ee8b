/* Strict argument parsing (see parse.h). */
#include "parse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int flr_parse_u64(const char *s, size_t len, uint64_t *out) {
    if (len == 0 || len > 20) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return 0;
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

int flr_parse_i64(const char *s, size_t len, int64_t *out) {
    int neg = len > 1 && s[0] == '-';
    uint64_t mag;
    if (!flr_parse_u64(s + neg, len - (size_t)neg, &mag)) return 0;
    if (mag > (uint64_t)INT64_MAX + (uint64_t)neg) return 0;
    *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    return 1;
}

int flr_parse_double(const char *s, size_t len, double *out) {
    char buf[64];
    if (len == 0 || len >= sizeof buf) return 0;
    memcpy(buf, s, len);
    buf[len] = 0;
    if (buf[0] == ' ' || buf[0] == '\t' || buf[0] == '+') return 0;
    char *end;
    double v = strtod(buf, &end);
    if (end != buf + len || !isfinite(v)) return 0;
    *out = v;
    return 1;
}

int flr_word_is(const char *s, size_t len, const char *word) {
    return strlen(word) == len && strncasecmp(s, word, len) == 0;
}
