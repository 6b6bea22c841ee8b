/*
 * A text table with columns padded to their widest cell.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct cli_table {
    size_t ncols, nrows, cap;
    int failed; /* a row or cell could not be stored: printing would show a hole */
    char align[16];
    char **cells; /* nrows * ncols; a span row has cells[1] set and the rest NULL */
    unsigned char *span;
};

cli_table *cli_table_new(size_t ncols, const char *align)
{
    cli_table *t = calloc(1, sizeof *t);
    if (!t || ncols == 0 || ncols > sizeof t->align) {
        free(t);
        return NULL;
    }
    t->ncols = ncols;
    for (size_t c = 0; c < ncols; c++)
        t->align[c] = align && align[c] == 'r' ? 'r' : 'l';
    return t;
}

static char **table_add(cli_table *t, int span)
{
    if (!t)
        return NULL;
    if (t->nrows == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 8;
        char **cells = realloc(t->cells, nc * t->ncols * sizeof *cells);
        if (!cells) {
            t->failed = 1;
            return NULL;
        }
        t->cells = cells;
        unsigned char *sp = realloc(t->span, nc);
        if (!sp) {
            t->failed = 1;
            return NULL;
        }
        t->span = sp;
        t->cap = nc;
    }
    char **row = t->cells + t->nrows * t->ncols;
    for (size_t c = 0; c < t->ncols; c++)
        row[c] = NULL;
    t->span[t->nrows++] = (unsigned char)span;
    return row;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s ? s : "") + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s ? s : "", n);
    return d;
}

void cli_table_row(cli_table *t, const char *const *cells)
{
    char **row = table_add(t, 0);
    if (!row)
        return;
    for (size_t c = 0; c < t->ncols; c++)
        if (!(row[c] = dup_str(cells[c])))
            t->failed = 1;
}

void cli_table_span(cli_table *t, const char *first, const char *text)
{
    char **row = table_add(t, 1);
    if (!row)
        return;
    if (!(row[0] = dup_str(first)) || (t->ncols > 1 && !(row[1] = dup_str(text))))
        t->failed = 1;
}

int cli_table_print(cli_table *t)
{
    /* A table with a missing row or cell would look complete: an error instead. */
    if (!t || t->failed)
        return cli_fail(EXIT_DATA, "out of memory building the table");
    size_t width[16] = {0};
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t c = 0; c < t->ncols; c++) {
            /* A spanning cell does not widen its column. */
            if (t->span[r] && c > 0)
                break;
            size_t w = t->cells[r * t->ncols + c] ? strlen(t->cells[r * t->ncols + c]) : 0;
            if (w > width[c])
                width[c] = w;
        }
    for (size_t r = 0; r < t->nrows; r++) {
        char **row = t->cells + r * t->ncols;
        size_t last = t->span[r] ? 1 : t->ncols - 1;
        for (size_t c = 0; c <= last && c < t->ncols; c++) {
            const char *s = row[c] ? row[c] : "";
            int w = (int)width[c];
            if (c == last && (t->align[c] == 'l' || t->span[r]))
                cli_outf("%s", s); /* no trailing blanks */
            else if (t->align[c] == 'r')
                cli_outf("%*s", w, s);
            else
                cli_outf("%-*s", w, s);
            cli_out(c == last ? "\n" : "  ", c == last ? 1 : 2);
        }
    }
    return EXIT_OK;
}

void cli_table_free(cli_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    free(t->span);
    free(t);
}
