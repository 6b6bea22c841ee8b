/*
 * Help texts: the parts generated from the library's own lists (the variant descriptors,
 * the coders), so that no help text can name fewer variants than the commands accept, and
 * the printer that wraps an option's description under its own column.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define HELP_WIDTH 79 /* the widest help line: fits an 80-column terminal and help2man */

int cli_variant_in(cli_variant_set set, fl_variant v)
{
    fl_variant_info vi;
    if (fl_variant_describe(v, &vi) != FL_OK)
        return 0;
    switch (set) {
    case CLI_VARIANTS_ALL: return 1;
    case CLI_VARIANTS_NEVER_FULL: return !(vi.caps & FL_CAP_MAY_FILL);
    case CLI_VARIANTS_MAY_FILL: return (vi.caps & FL_CAP_MAY_FILL) != 0;
    case CLI_VARIANTS_BIT_ARRAYS: return vi.unit_slots == 0 && vi.counter_bits == 0;
    case CLI_VARIANTS_DELETE: return (vi.caps & FL_CAP_DELETE) != 0;
    }
    return 0;
}

/* Appends `word` to a list in buf: ", " between words, `last` before the final one (the
 * caller passes the count so far and whether this one is the last). */
static void list_add(char *buf, size_t cap, const char *word, size_t index, int final,
                     const char *last)
{
    size_t used = strlen(buf);
    if (used + 1 >= cap)
        return;
    const char *sep = index == 0 ? "" : final ? last : ", ";
    snprintf(buf + used, cap - used, "%s%s", sep, word);
}

void cli_variant_list(cli_variant_set set, const char *last, char *buf, size_t cap)
{
    size_t total = 0, i = 0;
    if (cap)
        buf[0] = '\0';
    for (int v = FL_VARIANT_MIN; v <= FL_VARIANT_MAX; v++)
        total += (size_t)cli_variant_in(set, (fl_variant)v);
    for (int v = FL_VARIANT_MIN; v <= FL_VARIANT_MAX; v++)
        if (cli_variant_in(set, (fl_variant)v)) {
            list_add(buf, cap, fl_variant_name((fl_variant)v), i, i + 1 == total, last);
            i++;
        }
}

/* Coders are numbered from 1 with no gap (fl_coder); fl_coder_name is NULL past the last. */
void cli_coder_list(const char *last, char *buf, size_t cap)
{
    size_t total = 0;
    if (cap)
        buf[0] = '\0';
    while (fl_coder_name((fl_coder)(total + 1)))
        total++;
    for (size_t i = 0; i < total; i++)
        list_add(buf, cap, fl_coder_name((fl_coder)(i + 1)), i, i + 1 == total, last);
}

void cli_help_wrap(size_t indent, size_t first, const char *text)
{
    /* Greedy word wrap: a line holds words while it fits HELP_WIDTH (a longer word gets a
     * line of its own); `first` columns of the first line are already printed. */
    size_t col = first;
    const char *p = text;
    int line_empty = 1;
    while (*p) {
        if (*p == '\n') { /* an explicit break */
            cli_outf("\n%*s", (int)indent, "");
            col = indent;
            line_empty = 1;
            p++;
            continue;
        }
        if (*p == ' ') {
            p++;
            continue;
        }
        size_t len = strcspn(p, " \n");
        if (!line_empty && col + 1 + len > HELP_WIDTH) {
            cli_outf("\n%*s", (int)indent, "");
            col = indent;
            line_empty = 1;
        }
        if (!line_empty) {
            cli_out(" ", 1);
            col++;
        }
        cli_out(p, len);
        col += len;
        line_empty = 0;
        p += len;
    }
    cli_out("\n", 1);
}

void cli_help_variants_option(size_t col, const char *name, cli_variant_set set,
                              const char *last, const char *fmt)
{
    char list[128];
    cli_variant_list(set, last, list, sizeof list);
    cli_help_option(col, name, fmt, list);
}

void cli_help_option(size_t col, const char *name, const char *fmt, ...)
{
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    size_t width = 2 + strlen(name);
    cli_outf("  %s", name);
    if (width + 1 > col) { /* a long name: its description starts on the next line */
        cli_outf("\n%*s", (int)col, "");
        width = col;
    } else {
        cli_outf("%*s", (int)(col - width), "");
    }
    cli_help_wrap(col, col, text);
}
