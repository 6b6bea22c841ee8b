/*
 * Shared helpers of the CLI: one-line diagnostics, strict number parsing, formatting,
 * whole-file I/O, checked standard output and a small table printer. (Option parsing's
 * shared end is options.c; file kinds and their commands, kinds.c; help texts, help.c.)
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* ------------------------------------------------------------------------------------ */
/* Diagnostics                                                                          */
/* ------------------------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------------------------ */
/* Parsing                                                                              */
/* ------------------------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------------------------ */
/* Formatting                                                                           */
/* ------------------------------------------------------------------------------------ */

void cli_human_bytes(uint64_t bytes, char *buf, size_t cap)
{
    static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        snprintf(buf, cap, "%llu B", (unsigned long long)bytes);
        return;
    }
    double v = (double)bytes;
    size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof names / sizeof names[0]) {
        v /= 1024;
        u++;
    }
    /* Three significant digits, without printing "1024 KiB" after rounding. */
    if (v < 9.995)
        snprintf(buf, cap, "%.2f %s", v, names[u]);
    else if (v < 99.95)
        snprintf(buf, cap, "%.1f %s", v, names[u]);
    else
        snprintf(buf, cap, "%.0f %s", v, names[u]);
}

void cli_describe_geometry(const fl_geometry *g, char *buf, size_t cap)
{
    fl_geometry_describe(g, buf, cap);
}

const char *cli_hash_name(fl_hash_id h)
{
    switch (h) {
    case FL_HASH_XXH3: return "xxh3";
    case FL_HASH_XXH64: return "xxh64";
    default: return "unknown";
    }
}

/* ------------------------------------------------------------------------------------ */
/* Filters and files                                                                    */
/* ------------------------------------------------------------------------------------ */

int cli_create_filter(const char *cmd, const fl_config *cfg, fl_filter **out)
{
    fl_status s = fl_create(cfg, out);
    if (s == FL_OK)
        return EXIT_OK;
    /* Out of memory is the machine's limit; anything else is a bad size request. */
    return cli_fail(s == FL_ERR_NO_MEMORY ? EXIT_DATA : EXIT_USAGE,
                    "%s: cannot create the %s filter: %s", cmd, fl_variant_name(cfg->variant),
                    fl_strerror(s));
}

int cli_create_sbf(const char *cmd, const fl_sbf_config *cfg, fl_sbf **out)
{
    fl_status s = fl_sbf_create(cfg, out);
    if (s == FL_OK)
        return EXIT_OK;
    return cli_fail(s == FL_ERR_NO_MEMORY ? EXIT_DATA : EXIT_USAGE,
                    "%s: cannot create the scalable %s filter: %s", cmd,
                    fl_variant_name(cfg->variant ? cfg->variant : FL_BLOCK512), fl_strerror(s));
}

/* The outcome of fl_save_file / fl_write_file_atomic; e is errno right after the call. */
static int write_status(const char *path, fl_status s, int e)
{
    if (s == FL_OK)
        return EXIT_OK;
    if (s == FL_ERR_IO && e)
        return cli_fail(EXIT_DATA, "cannot write '%s': %s", path, strerror(e));
    return cli_fail(EXIT_DATA, "cannot write '%s': %s", path, fl_strerror(s));
}

int cli_save_object(const void *obj, const cli_saver *how, const char *path)
{
    /* "-" is stdout; everything else, devices, FIFOs and symbolic links included, is the
     * save_file call's job (it replaces a link's target atomically and writes through what
     * cannot be replaced, such as a FIFO). */
    if (strcmp(path, "-") == 0) { /* serialized whole, then written */
        size_t size = how->serialized_size(obj), written = 0;
        unsigned char *buf = malloc(size ? size : 1);
        if (!buf)
            return cli_fail(EXIT_DATA, "out of memory serializing %s", how->what);
        fl_status s = how->save_mem(obj, buf, size, &written);
        int rc = s == FL_OK ? cli_write_file(path, buf, written)
                            : cli_fail(EXIT_DATA, "cannot serialize %s: %s", how->what,
                                       fl_strerror(s));
        free(buf);
        return rc;
    }
    cli_replace_begin(path);
    errno = 0;
    fl_status s = how->save_file(obj, path);
    int e = errno;
    cli_replace_end(s);
    return write_status(path, s, e);
}

CLI_SAVER(filter_saver, fl, "the filter");
CLI_SAVER(sbf_saver, fl_sbf, "the filter");

int cli_save_filter(const fl_filter *f, const char *path)
{
    return cli_save_object(f, &filter_saver, path);
}

int cli_save_sbf(const fl_sbf *sbf, const char *path)
{
    return cli_save_object(sbf, &sbf_saver, path);
}

int cli_read_file(const char *path, size_t cap, unsigned char **buf, size_t *len)
{
    int is_stdin = strcmp(path, "-") == 0;
    const char *name = is_stdin ? "standard input" : path;
    FILE *fp = is_stdin ? stdin : fopen(path, "rb");
    if (!fp)
        return cli_fail(EXIT_DATA, "cannot open '%s': %s", path, strerror(errno));
    unsigned char *data = NULL;
    size_t used = 0, size = 0;
    /* Read at most one byte past the cap: enough to tell "too large" without first
     * swallowing a huge file. */
    size_t limit = cap && cap < SIZE_MAX ? cap + 1 : SIZE_MAX;
    int rc = EXIT_OK;
    while (used < limit) {
        if (used == size) {
            size_t ns = size ? (size <= SIZE_MAX / 2 ? size * 2 : SIZE_MAX) : 65536;
            if (ns > limit)
                ns = limit;
            unsigned char *nd = realloc(data, ns);
            if (!nd) {
                rc = cli_fail(EXIT_DATA, "out of memory reading '%s'", name);
                break;
            }
            data = nd;
            size = ns;
        }
        size_t got = fread(data + used, 1, size - used, fp);
        used += got;
        if (got == 0) {
            if (ferror(fp))
                rc = cli_fail(EXIT_DATA, "cannot read '%s': %s", name, strerror(errno));
            break;
        }
    }
    if (!is_stdin)
        fclose(fp);
    if (rc == EXIT_OK && cap && used > cap)
        rc = cli_fail(EXIT_DATA, "'%s' is larger than --max-bytes %zu", name, cap);
    if (rc != EXIT_OK) {
        free(data);
        return rc;
    }
    *buf = data;
    *len = used;
    return EXIT_OK;
}

int cli_write_file(const char *path, const void *buf, size_t len)
{
    if (strcmp(path, "-") == 0) {
        cli_out(buf, len);
        return EXIT_OK; /* errors surface in cli_out_finish */
    }
    cli_replace_begin(path);
    errno = 0;
    fl_status s = fl_write_file_atomic(path, buf, len);
    int e = errno;
    cli_replace_end(s);
    return write_status(path, s, e);
}

/* ------------------------------------------------------------------------------------ */
/* Standard output                                                                      */
/* ------------------------------------------------------------------------------------ */

static int out_errno; /* errno of the first failed write to stdout, 0 if none */

void cli_out_init(void)
{
    /* A terminal keeps line buffering (interactive dedup shows lines as they come);
     * pipes and files get a large buffer because query/dedup write one line per key. */
    if (!isatty(STDOUT_FILENO))
        setvbuf(stdout, NULL, _IOFBF, 1 << 16);
}

static void out_note_error(void)
{
    if (!out_errno)
        out_errno = errno ? errno : EIO;
}

void cli_out(const void *p, size_t n)
{
    if (out_errno || n == 0)
        return;
    errno = 0;
    if (fwrite(p, 1, n, stdout) != n)
        out_note_error();
}

void cli_out_line(const void *p, size_t n)
{
    cli_out(p, n);
    cli_out("\n", 1);
}

void cli_outf(const char *fmt, ...)
{
    if (out_errno)
        return;
    va_list ap;
    va_start(ap, fmt);
    errno = 0;
    int r = vfprintf(stdout, fmt, ap);
    va_end(ap);
    if (r < 0)
        out_note_error();
}

int cli_out_failed(void)
{
    return out_errno != 0;
}

int cli_out_finish(int quiet)
{
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout))
        out_note_error();
    if (!out_errno || out_errno == EPIPE || quiet)
        return EXIT_OK;
    return cli_fail(EXIT_DATA, "cannot write output: %s", strerror(out_errno));
}

/* ------------------------------------------------------------------------------------ */
/* Tables                                                                               */
/* ------------------------------------------------------------------------------------ */

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
