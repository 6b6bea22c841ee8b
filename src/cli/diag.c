/*
 * One-line diagnostics: "filterlab: MESSAGE" on stderr, a subcommand's usage error with its
 * pointer to --help, and user-supplied values quoted for them.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cli_fail(int code, const char *fmt, ...)
{
    va_list ap;
    cli_progress_clear();
    fputs("filterlab: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return code;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    cli_progress_clear();
    fputs("filterlab: ", stderr);
    if (cmd)
        fprintf(stderr, "%s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see 'filterlab%s%s --help')\n", cmd ? " " : "", cmd ? cmd : "");
    return EXIT_USAGE;
}

void cli_quote(const char *s, char *buf, size_t cap)
{
    /* One short line whatever the value holds: a newline or a 100 KB value must not
     * reach the terminal as is. */
    size_t o = 0, i = 0;
    if (cap < 16) {
        if (cap)
            buf[0] = '\0';
        return;
    }
    buf[o++] = '\'';
    for (; s[i] && i < CLI_QUOTE_MAX && o + 9 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'')
            buf[o++] = (char)c;
        else
            o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", c);
    }
    if (s[i]) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o++] = '\'';
    buf[o] = '\0';
}
