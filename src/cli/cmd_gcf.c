/*
 * filterlab gcf-build, gcf-add, gcf-query, gcf-delete, gcf-info: growing cuckoo filters of
 * lines (include/filterlab_gcf.h). A line is a key: XXH3-64 of its bytes with the filter's
 * seed (fl_gcf_hash_bytes). gcf-add is the point of the structure: it loads a filter, adds
 * lines, and the table doubles in place as they come, up to 128x the table it was built
 * with, never past the CLI's size limit (--max-bytes and physical memory, limits.c), which
 * becomes the filter's byte limit. Files are filterlab files of kind GROWING_CUCKOO; a file
 * of another kind is named as such (kinds.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

CLI_SAVER(gcf_saver, fl_gcf, "the growing cuckoo filter");

static int load_gcf(const char *path, size_t max_bytes, fl_gcf **out) {
    errno = 0;
    fl_status s = fl_gcf_load_file(path, max_bytes, out);
    return s == FL_OK ? EXIT_OK
                      : cli_load_kind_error(path, s, errno, FL_FILE_GROWING_CUCKOO, max_bytes);
}

/* load_gcf and fl_gcf_free as cli_query_command takes them. */
static int load_untyped(const char *path, size_t max_bytes, void **obj) {
    fl_gcf *f = NULL;
    int rc = load_gcf(path, max_bytes, &f);
    *obj = f;
    return rc;
}
static void free_untyped(void *obj) {
    fl_gcf_free(obj);
}

/* Inserts (gcf-build, gcf-add) or deletes (gcf-delete) of every line, all or nothing: the
 * caller writes the filter only when every line went through. */
typedef struct line_op {
    const char *cmd;
    fl_gcf *g;
    int del;
    uint64_t lines, limit;
} line_op;

/* The refusal of line o->lines + 1 (its text quoted in q), named. */
static int why_refused(const line_op *o, fl_status s, const char *q) {
    unsigned long long line = (unsigned long long)o->lines + 1;
    char lim[32];
    switch (s) {
    case FL_ERR_TOO_LARGE:
        cli_human_bytes(o->limit, lim, sizeof lim);
        return cli_fail(EXIT_DATA, "%s: line %llu (%s): the filter would grow past the size "
                        "limit (%s: --max-bytes, or physical memory); nothing written",
                        o->cmd, line, q, lim);
    case FL_ERR_FULL:
        return cli_fail(EXIT_DATA, "%s: line %llu (%s): the filter is full (it has doubled "
                        "%u times, the most it can; or the line was added 8 times already); "
                        "nothing written: build a new filter with a larger --n",
                        o->cmd, line, q, FL_GCF_MAX_DOUBLINGS);
    case FL_ERR_NOT_FOUND:
        return cli_fail(EXIT_DATA, "%s: line %llu (%s) is not in the filter; nothing written",
                        o->cmd, line, q);
    default:
        return cli_fail(EXIT_DATA, "%s: line %llu (%s): %s; nothing written", o->cmd, line, q,
                        fl_strerror(s));
    }
}

static void hash_lines(const fl_gcf *f, cli_batch *b) {
    for (size_t i = 0; i < b->count; i++)
        b->hash[i] = fl_gcf_hash_bytes(f, cli_batch_key(b, i), b->len[i]);
}

/* gcf-query's batch: the lines' hashes through the batch kernel */
static size_t lookup_batch(const void *f, cli_batch *b) {
    hash_lines(f, b);
    size_t pos = 0;
    fl_gcf_contains_hashes(f, b->hash, b->count, b->hit, &pos);
    return pos;
}

static int apply_batch(cli_batch *b, void *ctx) {
    line_op *o = ctx;
    hash_lines(o->g, b);
    size_t done = 0;
    fl_status s = o->del ? fl_gcf_delete_hashes(o->g, b->hash, b->count, &done)
                         : fl_gcf_insert_hashes(o->g, b->hash, b->count, &done);
    o->lines += done;
    if (s == FL_OK) return EXIT_OK;
    char q[CLI_QUOTE_BUF], line[256];
    size_t n = b->len[done] < sizeof line - 1 ? b->len[done] : sizeof line - 1;
    memcpy(line, cli_batch_key(b, done), n);
    line[n] = 0;
    cli_quote(line, q, sizeof q);
    return why_refused(o, s, q);
}

/* Every input line through o, then the filter saved to `output`. */
static int apply_and_save(line_op *o, const char *input, const char *output) {
    cli_progress_start(o->cmd);
    int rc = cli_batch_each(input, apply_batch, o);
    cli_progress_stop();
    if (rc == EXIT_OK) rc = cli_save_object(o->g, &gcf_saver, output);
    if (rc == EXIT_OK && o->lines == 0) cli_warn_no_keys(input, 1, "filter");
    return rc;
}

#define OUTPUT_OPT(where, what)                                                               \
    {"output", 'o', CLI_ARG_STRING, where, NULL, NULL, "-o, --output OUT", what}

/* ---- gcf-build ---------------------------------------------------------------------------- */

static void help_build(void) {
    cli_outf("Usage: filterlab gcf-build --n N [--seed S] [--input FILE] -o OUT\n\n");
    cli_help_wrap(0, 0,
                  "Build a growing cuckoo filter of the input lines with a first table for N "
                  "keys: 4-slot buckets of 16-bit slots (an 8-bit tag and 7 bits a doubling "
                  "splits by), 0.024% false positives fresh. More lines than N double the "
                  "table in place, up to 128x (each doubling costs the oldest slots a bit: "
                  "0.2% false positives for slots from 3 doublings back); 'filterlab gcf-add' "
                  "adds lines later. The table never grows past --max-bytes or physical "
                  "memory: a line that would make it do so stops the build, nothing is "
                  "written and the exit status is 2. Every line is one insert (a repeated "
                  "line is stored again, and deletes once per copy). OUT is written "
                  "atomically.");
    cli_outf("\nOptions:\n");
    cli_help_options();
}

int cmd_gcf_build(int argc, char **argv, const cli_globals *g) {
    static const char *const CMD = "gcf-build";
    uint64_t n = 0, seed = 0;
    int have_n = 0;
    const char *input = NULL, *output = NULL;
    const cli_opt opts[] = {
        {"n", 0, CLI_ARG_COUNT, &n, &have_n, NULL, "--n N", "keys the first table is for"},
        {"seed", 0, CLI_ARG_SEED, &seed, NULL, NULL, "--seed S", "hash seed (default 0)"},
        CLI_OPT_INPUT(&input, CLI_HELP_KEYS_FROM),
        OUTPUT_OPT(&output, "write the filter here ('-': standard output; required)"),
    };
    int rc = cli_parse_options(CMD, argc, argv, opts, CLI_NOPTS(opts), help_build);
    if (rc >= 0) return rc;
    rc = cli_output_operands(CMD, argc, argv, NULL);
    if (rc != EXIT_OK) return rc;
    if (!output) return cli_usage_error(CMD, "-o OUT is required");
    if (!have_n || n < 1) return cli_usage_error(CMD, "--n (at least 1) is required");
    fl_gcf *f = NULL;
    fl_status s = fl_gcf_create(n, seed, &f);
    if (s == FL_ERR_TOO_LARGE)
        return cli_usage_error(CMD, "--n %llu: %s", (unsigned long long)n, fl_strerror(s));
    if (s != FL_OK) return cli_fail(EXIT_DATA, "%s: cannot create the filter: %s", CMD, fl_strerror(s));
    fl_gcf_info in;
    fl_gcf_info_get(f, &in);
    rc = cli_check_create(CMD, "a growing cuckoo filter", in.bytes, g);
    if (rc != EXIT_OK) {
        fl_gcf_free(f);
        return rc;
    }
    line_op o = {CMD, f, 0, 0, cli_create_limit(g)};
    fl_gcf_set_byte_limit(f, o.limit);
    rc = apply_and_save(&o, input, output);
    fl_gcf_free(f);
    return rc;
}

/* ---- gcf-add and gcf-delete: a filter file changed by lines ----------------------------- */

static void help_add(void) {
    cli_outf("Usage: filterlab gcf-add FILTER [--input FILE] [-o OUT]\n\n");
    cli_help_wrap(0, 0,
                  "Add every input line to a growing cuckoo filter, doubling its table in "
                  "place as it fills (no rebuild, one lookup whatever its size), and write "
                  "the result back to FILTER (or to OUT), replacing the file atomically. All "
                  "or nothing: if a line cannot go in (the filter has doubled 7 times and is "
                  "full, or would grow past --max-bytes or physical memory), nothing is "
                  "written and the exit status is 2.");
    cli_outf("\nOptions:\n");
    cli_help_options();
}

static void help_delete(void) {
    cli_outf("Usage: filterlab gcf-delete FILTER [--input FILE] [-o OUT]\n\n");
    cli_help_wrap(0, 0,
                  "Delete every input line from a growing cuckoo filter, one copy per line, "
                  "and write the result back to FILTER (or to OUT), replacing the file "
                  "atomically. All or nothing: if a line matches no slot of its two buckets "
                  "(a line never inserted), nothing is written and the exit status is 2. "
                  "Delete only lines you inserted: a line never inserted that the filter "
                  "answers 'present' for (a false positive) takes another line's copy.");
    cli_outf("\nOptions:\n");
    cli_help_options();
}

static int change_file(int argc, char **argv, const cli_globals *g, const char *cmd, int del) {
    const char *input = NULL, *output = NULL;
    const cli_opt opts[] = {
        CLI_OPT_INPUT(&input, CLI_HELP_KEYS_FROM),
        OUTPUT_OPT(&output, "write the filter to OUT instead of FILTER ('-': standard output)"),
    };
    int rc = cli_parse_one_operand(cmd, argc, argv, opts, CLI_NOPTS(opts),
                                   del ? help_delete : help_add, "FILTER");
    if (rc >= 0) return rc;
    const char *path = argv[optind];
    fl_gcf *f = NULL;
    rc = load_gcf(path, g->max_bytes, &f);
    if (rc != EXIT_OK) return rc;
    /* the load made --max-bytes the filter's limit; physical memory bounds it too */
    line_op o = {cmd, f, del, 0, cli_create_limit(g)};
    fl_gcf_set_byte_limit(f, o.limit);
    rc = apply_and_save(&o, input, output ? output : path);
    fl_gcf_free(f);
    return rc;
}

int cmd_gcf_add(int argc, char **argv, const cli_globals *g) {
    return change_file(argc, argv, g, "gcf-add", 0);
}

int cmd_gcf_delete(int argc, char **argv, const cli_globals *g) {
    return change_file(argc, argv, g, "gcf-delete", 1);
}

/* ---- gcf-query ---------------------------------------------------------------------------- */

static void help_query(void) {
    cli_outf("Usage: filterlab gcf-query FILTER [--input FILE] [--count]\n\n");
    cli_help_wrap(0, 0,
                  "Print the input lines that may be in a growing cuckoo filter (every line "
                  "added and not deleted is printed; others with the filter's false positive "
                  "rate, 'filterlab gcf-info' estimates it), in input order, through the "
                  "batch lookup kernel.");
    cli_outf("\nOptions:\n");
    cli_help_options();
}

int cmd_gcf_query(int argc, char **argv, const cli_globals *g) {
    static const cli_query_ops ops = {help_query, load_untyped, lookup_batch, free_untyped};
    return cli_query_command("gcf-query", argc, argv, g, &ops);
}

/* ---- gcf-info ----------------------------------------------------------------------------- */

static void help_info(void) {
    cli_outf("Usage: filterlab gcf-info FILTER [--json]\n\n");
    cli_help_wrap(0, 0, "Describe a growing cuckoo filter: its table (columns, stripe bits, "
                  "the doublings done and left), items and load, bits per key, the false "
                  "positive rate estimated from its slots' extension bits, and the slots by "
                  "extension length.");
    cli_outf("\nOptions:\n"
             "  --json      one JSON object: kind (\"growing_cuckoo\"), buckets, columns,\n"
             "              window_bits, bucket_bits, doublings, max_doublings, bytes, seed,\n"
             "              items, slots, capacity, max_capacity, load, bits_per_key, fpr,\n"
             "              items_by_ext (8 counts, 0 to 7 extension bits), kernel\n"
             "  -h, --help  show this help\n");
}

int cmd_gcf_info(int argc, char **argv, const cli_globals *g) {
    static const char *const CMD = "gcf-info";
    int json = 0;
    const cli_opt opts[] = {
        {"json", 0, CLI_ARG_NONE, &json, NULL, NULL, NULL, NULL},
    };
    int rc = cli_parse_one_operand(CMD, argc, argv, opts, CLI_NOPTS(opts), help_info, "FILTER");
    if (rc >= 0) return rc;
    fl_gcf *f = NULL;
    rc = load_gcf(argv[optind], g->max_bytes, &f);
    if (rc != EXIT_OK) return rc;
    fl_gcf_info in;
    fl_gcf_info_get(f, &in);
    if (json) {
        cli_json j;
        cli_json_begin(&j);
        cli_json_str(&j, "kind", "growing_cuckoo");
        cli_json_u64(&j, "buckets", in.buckets);
        cli_json_u64(&j, "columns", in.columns);
        cli_json_u64(&j, "window_bits", in.window_bits);
        cli_json_u64(&j, "bucket_bits", in.bucket_bits);
        cli_json_u64(&j, "doublings", in.doublings);
        cli_json_u64(&j, "max_doublings", FL_GCF_MAX_DOUBLINGS);
        cli_json_u64(&j, "bytes", in.bytes);
        cli_json_u64(&j, "seed", in.seed);
        cli_json_u64(&j, "items", in.items);
        cli_json_u64(&j, "slots", in.slots);
        cli_json_u64(&j, "capacity", in.capacity);
        cli_json_u64(&j, "max_capacity", in.max_capacity);
        cli_json_num(&j, "load", in.load);
        cli_json_num(&j, "bits_per_key", in.bits_per_key);
        cli_json_num(&j, "fpr", in.fpr);
        cli_json_array(&j, "items_by_ext");
        for (uint32_t l = 0; l <= FL_GCF_EXT_BITS; l++) cli_json_u64(&j, NULL, in.items_by_ext[l]);
        cli_json_close(&j);
        cli_json_str(&j, "kernel", fl_gcf_kernel(f));
        cli_json_end(&j);
    } else {
        char hb[32];
        cli_human_bytes(in.bytes, hb, sizeof hb);
        cli_outf("kind: growing cuckoo filter (4 x 16-bit slots per bucket)\n"
                 "buckets: %llu = %u columns x 2^%u stripes (%s), seed %llu\n"
                 "doublings: %u of %u (first table 2^%u stripes)\n"
                 "items: %llu of %llu slots (load %.4f); next doubling after %llu, "
                 "at most %llu\n"
                 "bits per key: %.3f\n"
                 "fpr estimate: %.4g\n"
                 "slots by extension bits (0..7):",
                 (unsigned long long)in.buckets, in.columns, in.bucket_bits, hb,
                 (unsigned long long)in.seed, in.doublings, FL_GCF_MAX_DOUBLINGS,
                 in.window_bits, (unsigned long long)in.items, (unsigned long long)in.slots,
                 in.load, (unsigned long long)in.capacity, (unsigned long long)in.max_capacity,
                 in.bits_per_key, in.fpr);
        for (uint32_t l = 0; l <= FL_GCF_EXT_BITS; l++)
            cli_outf(" %llu", (unsigned long long)in.items_by_ext[l]);
        cli_outf("\nlookup kernel: %s\n", fl_gcf_kernel(f));
    }
    fl_gcf_free(f);
    return cli_out_finish(0);
}
