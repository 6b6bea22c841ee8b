/*
 * Keys are lines. A line ends at '\n'; a "\r\n" ending is stripped too, so files written on
 * Windows give the same keys. The last line may lack its newline. An empty line is a key
 * (the empty key). Bytes are otherwise untouched: NULs, invalid UTF-8 and a lone '\r' that
 * does not precede the newline are all part of the key.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "cli.h"

/* Every line any reader returned: commands whose input is several files ask this. */
static uint64_t lines_total;

uint64_t cli_lines_total(void)
{
    return lines_total;
}

void cli_warn_no_keys(const char *input, int count, const char *what)
{
    char q[CLI_QUOTE_BUF];
    if (count > 1)
        snprintf(q, sizeof q, "any of the %d inputs", count);
    else if (!input || strcmp(input, "-") == 0)
        snprintf(q, sizeof q, "standard input");
    else
        cli_quote(input, q, sizeof q);
    fprintf(stderr, "filterlab: warning: no keys in %s; the %s is empty\n", q, what);
}

int cli_lines_open(cli_lines *r, const char *path)
{
    memset(r, 0, sizeof *r);
    if (!path || strcmp(path, "-") == 0) {
        r->fp = stdin;
        r->name = "standard input";
    } else {
        r->fp = fopen(path, "rb");
        if (!r->fp)
            return cli_fail(EXIT_DATA, "cannot open '%s': %s", path, strerror(errno));
        r->name = path;
        r->owned = 1;
    }
    r->progress = cli_progress_active();
    if (r->progress)
        cli_progress_input(r->fp);
    return EXIT_OK;
}

int cli_lines_next(cli_lines *r, const char **key, size_t *len)
{
    /* getline grows the buffer as needed, so a key may be any length memory allows. */
    errno = 0;
    ssize_t n = getline(&r->buf, &r->cap, r->fp);
    if (n < 0) {
        if (ferror(r->fp)) {
            cli_fail(EXIT_DATA, "cannot read '%s': %s", r->name,
                     strerror(errno ? errno : EIO));
            return -1;
        }
        if (errno == ENOMEM || errno == EOVERFLOW) {
            cli_fail(EXIT_DATA, "line %llu of '%s' does not fit in memory",
                     (unsigned long long)r->lineno + 1, r->name);
            return -1;
        }
        if (r->progress)
            cli_progress_clear();
        return 0;
    }
    if (r->progress)
        cli_progress_line((size_t)n);
    size_t l = (size_t)n;
    if (l > 0 && r->buf[l - 1] == '\n') {
        l--;
        if (l > 0 && r->buf[l - 1] == '\r')
            l--;
    }
    r->lineno++;
    lines_total++;
    *key = r->buf;
    *len = l;
    return 1;
}

void cli_lines_close(cli_lines *r)
{
    if (r->owned && r->fp)
        fclose(r->fp);
    free(r->buf);
    memset(r, 0, sizeof *r);
}

/* One file's lines into a sketch: the first failure stops the run. */
static int add_file_lines(const char *path, cli_add_line_fn add, void *sketch)
{
    cli_lines r;
    int rc = cli_lines_open(&r, path);
    if (rc != EXIT_OK)
        return rc;
    const char *key;
    size_t len;
    int got;
    while ((got = cli_lines_next(&r, &key, &len)) == 1) {
        fl_status s = add(sketch, key, len);
        if (s != FL_OK) {
            cli_lines_close(&r);
            return cli_fail(EXIT_DATA, "add: %s", fl_strerror(s));
        }
    }
    cli_lines_close(&r);
    return got < 0 ? EXIT_DATA : EXIT_OK;
}

int cli_add_operand_lines(int argc, char **argv, int first, int stdin_if_none,
                          cli_add_line_fn add, void *sketch)
{
    int rc = EXIT_OK;
    if (first == argc && stdin_if_none)
        rc = add_file_lines("-", add, sketch);
    for (int i = first; i < argc && rc == EXIT_OK; i++)
        rc = add_file_lines(argv[i], add, sketch);
    return rc;
}

cli_batch *cli_batch_new(void)
{
    cli_batch *b = calloc(1, sizeof *b);
    /* The arena always exists, so even an empty key has a valid pointer. */
    if (b) {
        b->arena_cap = 1 << 16;
        b->arena = malloc(b->arena_cap);
    }
    if (!b || !b->arena) {
        cli_batch_free(b);
        cli_fail(EXIT_DATA, "out of memory");
        return NULL;
    }
    return b;
}

void cli_batch_free(cli_batch *b)
{
    if (b)
        free(b->arena);
    free(b);
}

long cli_batch_fill(cli_batch *b, cli_lines *r)
{
    b->count = 0;
    b->used = 0;
    /* The byte bound keeps a file of long lines from growing the arena without limit. */
    while (b->count < CLI_BATCH && b->used < CLI_BATCH_BYTES) {
        const char *key = NULL;
        size_t len = 0;
        int got = cli_lines_next(r, &key, &len);
        if (got < 0)
            return -1;
        if (got == 0)
            break;
        /* Copy into one arena: getline reuses its buffer for the next line. */
        if (len > b->arena_cap - b->used) {
            size_t need = b->used + len;
            if (need < b->used) {
                cli_fail(EXIT_DATA, "out of memory");
                return -1;
            }
            size_t nc = b->arena_cap;
            while (nc < need)
                nc = nc * 2 > nc ? nc * 2 : need;
            char *na = realloc(b->arena, nc);
            if (!na) {
                cli_fail(EXIT_DATA, "out of memory");
                return -1;
            }
            b->arena = na;
            b->arena_cap = nc;
        }
        if (len)
            memcpy(b->arena + b->used, key, len);
        b->off[b->count] = b->used;
        b->len[b->count] = len;
        b->used += len;
        b->count++;
    }
    return (long)b->count;
}

int cli_batch_status(const cli_batch *b, long got, int rc)
{
    /* Both failures were reported where they happened (cli_batch_new, cli_batch_fill). */
    if (!b || (rc == EXIT_OK && got < 0))
        return EXIT_DATA;
    return rc;
}

int cli_batch_end(cli_batch *b, long got, int rc, cli_lines *in)
{
    rc = cli_batch_status(b, got, rc);
    cli_batch_free(b);
    cli_lines_close(in);
    return rc;
}

int cli_batch_each(const char *input, cli_batch_fn step, void *ctx)
{
    cli_lines in;
    int rc = cli_lines_open(&in, input);
    if (rc != EXIT_OK)
        return rc;
    cli_batch *b = cli_batch_new();
    long got = 0;
    while (b && (got = cli_batch_fill(b, &in)) > 0) {
        rc = step(b, ctx);
        if (rc != EXIT_OK || cli_out_failed())
            break;
    }
    return cli_batch_end(b, got, rc, &in);
}

typedef struct query_pass {
    cli_lookup_fn lookup;
    const void *obj;
    int count_only;
    uint64_t positives;
} query_pass;

static int query_step(cli_batch *b, void *ctx)
{
    query_pass *q = ctx;
    q->positives += q->lookup(q->obj, b);
    for (size_t i = 0; i < b->count && !q->count_only; i++)
        if (b->hit[i])
            cli_out_line(b->arena + b->off[i], b->len[i]);
    return EXIT_OK;
}

int cli_query_command(const char *cmd, int argc, char **argv, const cli_globals *g,
                      const cli_query_ops *ops)
{
    const char *input = NULL;
    int count_only = 0;
    const cli_opt opts[] = {
        CLI_OPT_INPUT(&input, CLI_HELP_KEYS_FROM),
        {"count", 0, CLI_ARG_NONE, &count_only, NULL, NULL, "--count",
         "print only how many lines may be in the filter"},
    };
    int rc = cli_parse_one_operand(cmd, argc, argv, opts, CLI_NOPTS(opts), ops->help, "FILTER");
    if (rc >= 0)
        return rc;
    void *obj = NULL;
    rc = ops->load(argv[optind], g->max_bytes, &obj);
    if (rc != EXIT_OK)
        return rc;
    query_pass q = {ops->lookup, obj, count_only, 0};
    rc = cli_batch_each(input, query_step, &q);
    if (rc == EXIT_OK && count_only)
        cli_outf("%llu\n", (unsigned long long)q.positives);
    ops->release(obj);
    return rc == EXIT_OK ? cli_out_finish(0) : rc;
}

void cli_batch_hash(cli_batch *b, const fl_filter *f)
{
    for (size_t i = 0; i < b->count; i++)
        b->hash[i] = fl_hash_bytes(f, b->arena + b->off[i], b->len[i]);
}

void cli_batch_hash_chain(cli_batch *b, const fl_sbf *s)
{
    for (size_t i = 0; i < b->count; i++)
        b->hash[i] = fl_sbf_hash_bytes(s, b->arena + b->off[i], b->len[i]);
}
