/*
 * Strict parsing of option values: counts, seeds, rates, byte sizes, variant names. Each
 * prints its own usage error and returns -1 on failure.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int has_minus(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return *s == '-';
}

int cli_parse_count(const char *cmd, const char *opt, const char *s, uint64_t *out)
{
    char *end;
    if (*s == '\0' || has_minus(s) || *s == ' ' || *s == '\t')
        return cli_usage_error(cmd, "%s: '%s' is not a non-negative integer", opt, s), -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end == '\0') {
        if (errno == ERANGE)
            return cli_usage_error(cmd, "%s: '%s' is out of range", opt, s), -1;
        *out = v;
        return 0;
    }
    /* Not plain digits: accept scientific notation ("1e6") when it names an exact integer,
     * but not the hex floats, "inf" or "nan" that strtod also takes. */
    if (s[strspn(s, "0123456789.eE+-")] != '\0')
        return cli_usage_error(cmd, "%s: '%s' is not a non-negative integer", opt, s), -1;
    errno = 0;
    double d = strtod(s, &end);
    if (*end != '\0' || end == s || !isfinite(d))
        return cli_usage_error(cmd, "%s: '%s' is not a non-negative integer", opt, s), -1;
    if (d < 0 || d != floor(d))
        return cli_usage_error(cmd, "%s: '%s' is not a whole number", opt, s), -1;
    if (d >= 18446744073709551616.0) /* 2^64 */
        return cli_usage_error(cmd, "%s: '%s' is out of range", opt, s), -1;
    *out = (uint64_t)d;
    return 0;
}

int cli_parse_seed(const char *cmd, const char *opt, const char *s, uint64_t *out)
{
    char *end;
    int base = 10;
    const char *p = s;
    if (*s == '\0' || has_minus(s) || *s == ' ' || *s == '\t')
        return cli_usage_error(cmd, "%s: '%s' is not a non-negative integer", opt, s), -1;
    /* Hex for seeds copied from elsewhere; no octal, so "010" means ten. */
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
        /* Hex digits only: strtoull alone would also take a sign, spaces or a second 0x. */
        for (const char *q = p; *q || q == p; q++)
            if (!isxdigit((unsigned char)*q))
                return cli_usage_error(cmd, "%s: '%s' is not a number", opt, s), -1;
    }
    errno = 0;
    unsigned long long v = strtoull(p, &end, base);
    if (*end != '\0' || end == p)
        return cli_usage_error(cmd, "%s: '%s' is not a non-negative integer", opt, s), -1;
    if (errno == ERANGE)
        return cli_usage_error(cmd, "%s: '%s' does not fit in 64 bits", opt, s), -1;
    *out = v;
    return 0;
}

int cli_parse_fpr(const char *cmd, const char *opt, const char *s, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || end == s || *s == ' ' || *s == '\t')
        return cli_usage_error(cmd, "%s: '%s' is not a number", opt, s), -1;
    /* !(d > 0) also rejects NaN. */
    if (!isfinite(d) || !(d > 0) || d >= 1)
        return cli_usage_error(cmd, "%s: '%s' must be between 0 and 1 (exclusive)", opt, s), -1;
    *out = d;
    return 0;
}

int cli_parse_size(const char *cmd, const char *opt, const char *s, size_t *out)
{
    static const struct { const char *suffix; unsigned shift; } units[] = {
        {"K", 10}, {"KiB", 10}, {"k", 10}, {"M", 20}, {"MiB", 20},
        {"G", 30}, {"GiB", 30}, {"T", 40}, {"TiB", 40},
    };
    size_t n = strlen(s), digits = n;
    unsigned shift = 0;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        size_t sl = strlen(units[i].suffix);
        if (n > sl && strcmp(s + n - sl, units[i].suffix) == 0) {
            digits = n - sl;
            shift = units[i].shift;
            break;
        }
    }
    char num[64];
    if (digits == 0 || digits >= sizeof num)
        return cli_usage_error(cmd, "%s: '%s' is not a size", opt, s), -1;
    memcpy(num, s, digits);
    num[digits] = '\0';
    uint64_t v;
    if (cli_parse_count(cmd, opt, num, &v) < 0)
        return -1;
    if (shift && v > (UINT64_MAX >> shift))
        return cli_usage_error(cmd, "%s: '%s' is out of range", opt, s), -1;
    v <<= shift;
    if (v > SIZE_MAX)
        return cli_usage_error(cmd, "%s: '%s' exceeds this platform's address space", opt, s), -1;
    *out = (size_t)v;
    return 0;
}

int cli_parse_variant(const char *cmd, const char *s, fl_variant *out)
{
    if (fl_variant_parse(s, out) == FL_OK)
        return 0;
    char list[128];
    cli_variant_list(CLI_VARIANTS_ALL, ", ", list, sizeof list);
    return cli_usage_error(cmd, "unknown filter type '%s' (expected one of: %s)", s, list), -1;
}
