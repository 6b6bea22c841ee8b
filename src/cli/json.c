/*
 * The one JSON writer of the CLI: the --json output of the describe commands (info,
 * hll-info, freq --info, kernels, host, params). One object per run, two-space indented,
 * written through cli_out so that stdout errors are caught like every other output.
 *
 * Strings follow RFC 8259 section 7: '"' and '\' escaped, control characters as \n, \t,
 * ... or \u00XX, valid UTF-8 copied as it is. Bytes that are not valid UTF-8 (a file name
 * can hold any) cannot appear in JSON text (RFC 8259 section 8.1): each becomes U+FFFD,
 * the replacement character, so the output always parses. Numbers: integers exactly;
 * doubles with the fewest digits that read back to the same value (%.15g, else %.17g);
 * NaN and infinities, which JSON lacks, as null.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void indent(const cli_json *j)
{
    static const char spaces[] = "                                                            ";
    size_t n = 2 * (size_t)j->depth;
    if (n > sizeof spaces - 1)
        n = sizeof spaces - 1;
    cli_out(spaces, n);
}

/* Before a member or an element: the comma after the previous one, a new line, the
 * indentation and, in an object, the key. */
static void item(cli_json *j, const char *key)
{
    if (j->depth > 0 && j->depth <= CLI_JSON_DEPTH) {
        if (j->count[j->depth - 1]++)
            cli_out(",", 1);
        cli_out("\n", 1);
        indent(j);
    }
    if (key) {
        cli_json_string(key, strlen(key));
        cli_out(": ", 2);
    }
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if it is not one: no
 * overlong forms, no surrogates, nothing above U+10FFFF (RFC 3629 section 4). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned lo = 0x80, hi = 0xBF; /* the allowed range of the second byte */
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0;
        if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90;
        if (c == 0xF4)
            hi = 0x8F;
    } else
        return 0;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    return len;
}

void cli_json_string(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    cli_out("\"", 1);
    size_t run = 0; /* bytes copied as they are, written in one go */
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        size_t len = c < 0x80 ? 1 : utf8_len(p + i, n - i);
        if (len && c >= 0x20 && c != '"' && c != '\\') {
            run += len;
            i += len;
            continue;
        }
        cli_out(p + i - run, run);
        run = 0;
        char esc[8];
        switch (c) {
        case '"': cli_out("\\\"", 2); break;
        case '\\': cli_out("\\\\", 2); break;
        case '\n': cli_out("\\n", 2); break;
        case '\r': cli_out("\\r", 2); break;
        case '\t': cli_out("\\t", 2); break;
        case '\b': cli_out("\\b", 2); break;
        case '\f': cli_out("\\f", 2); break;
        default:
            if (c < 0x20) {
                snprintf(esc, sizeof esc, "\\u%04x", c);
                cli_out(esc, 6);
            } else {
                cli_out("\\ufffd", 6); /* a byte of no valid UTF-8 sequence */
            }
        }
        i++;
    }
    cli_out(p + n - run, run);
    cli_out("\"", 1);
}

void cli_json_begin(cli_json *j)
{
    memset(j, 0, sizeof *j);
    cli_out("{", 1);
    j->depth = 1;
}

void cli_json_end(cli_json *j)
{
    while (j->depth > 1)
        cli_json_close(j);
    cli_out("\n}\n", 3);
    j->depth = 0;
}

static void open_nested(cli_json *j, const char *key, char brace, int array)
{
    item(j, key);
    cli_out(&brace, 1);
    if (j->depth < CLI_JSON_DEPTH) {
        j->count[j->depth] = 0;
        j->array[j->depth] = array;
    }
    j->depth++;
}

void cli_json_object(cli_json *j, const char *key)
{
    open_nested(j, key, '{', 0);
}

void cli_json_array(cli_json *j, const char *key)
{
    open_nested(j, key, '[', 1);
}

void cli_json_close(cli_json *j)
{
    if (j->depth <= 1)
        return;
    j->depth--;
    int had = j->depth < CLI_JSON_DEPTH ? j->count[j->depth] != 0 : 1;
    int array = j->depth < CLI_JSON_DEPTH ? j->array[j->depth] : 0;
    if (had) {
        cli_out("\n", 1);
        indent(j);
    }
    cli_out(array ? "]" : "}", 1);
}

void cli_json_str(cli_json *j, const char *key, const char *s)
{
    item(j, key);
    if (s)
        cli_json_string(s, strlen(s));
    else
        cli_out("null", 4);
}

void cli_json_u64(cli_json *j, const char *key, uint64_t v)
{
    item(j, key);
    cli_outf("%llu", (unsigned long long)v);
}

void cli_json_i64(cli_json *j, const char *key, int64_t v)
{
    item(j, key);
    cli_outf("%lld", (long long)v);
}

void cli_json_num(cli_json *j, const char *key, double v)
{
    item(j, key);
    if (!isfinite(v)) {
        cli_out("null", 4);
        return;
    }
    char buf[40];
    snprintf(buf, sizeof buf, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, sizeof buf, "%.17g", v);
    cli_out(buf, strlen(buf));
}

void cli_json_bool(cli_json *j, const char *key, int v)
{
    item(j, key);
    cli_out(v ? "true" : "false", v ? 4 : 5);
}

void cli_json_null(cli_json *j, const char *key)
{
    item(j, key);
    cli_out("null", 4);
}

void cli_json_geometry(cli_json *j, const char *key, const fl_geometry *g)
{
    char geo[128];
    cli_describe_geometry(g, geo, sizeof geo);
    cli_json_object(j, key);
    cli_json_str(j, "variant", fl_variant_name(g->variant));
    cli_json_u64(j, "units", g->units);
    cli_json_u64(j, "k", g->k);
    cli_json_str(j, "description", geo);
    cli_json_close(j);
}
