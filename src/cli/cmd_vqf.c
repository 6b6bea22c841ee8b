/*
 * filterlab vqf-build, vqf-query, vqf-delete, vqf-info: vector quotient filters of lines
 * (include/filterlab_vqf.h; Pandey et al., SIGMOD 2021). A line is a key: XXH3-64 of its
 * bytes with the filter's seed (fl_vqf_hash_bytes). Files are filterlab files of kind
 * VECTOR_QUOTIENT; a file of another kind is named as such (kinds.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

CLI_SAVER(vqf_saver, fl_vqf, "the vector quotient filter");

static int load_vqf(const char *path, size_t max_bytes, fl_vqf **out) {
    errno = 0;
    fl_status s = fl_vqf_load_file(path, max_bytes, out);
    return s == FL_OK ? EXIT_OK
                      : cli_load_kind_error(path, s, errno, FL_FILE_VECTOR_QUOTIENT, max_bytes);
}

/* A filter and the lines a batched insert or delete has done so far. */
typedef struct vqf_lines {
    fl_vqf *v;
    uint64_t lines;
} vqf_lines;

static void hash_batch(const fl_vqf *v, cli_batch *b) {
    for (size_t i = 0; i < b->count; i++)
        b->hash[i] = fl_vqf_hash_bytes(v, cli_batch_key(b, i), b->len[i]);
}

/* ---- vqf-build ---------------------------------------------------------------------------- */

static void help_build(void) {
    cli_outf("Usage: filterlab vqf-build --n N [--seed S] [--input FILE] -o OUT\n\n");
    cli_help_wrap(0, 0,
                  "Build a vector quotient filter (Pandey et al. 2021) of the input lines, "
                  "sized for N keys: 64-byte blocks of 48 8-bit fingerprints, about 11.4 bits "
                  "per key and 0.44% false positives when full (include/filterlab_vqf.h). "
                  "Every line is one insert (a repeated line is stored again, and deletes "
                  "once per copy). If the filter refuses a line (its two blocks are full: "
                  "more lines than N), nothing is written and the exit status is 2. OUT is "
                  "written atomically.");
    cli_outf("\nOptions:\n");
    cli_help_options();
}

static int insert_batch(cli_batch *b, void *ctx) {
    vqf_lines *a = ctx;
    hash_batch(a->v, b);
    size_t done = 0;
    fl_status s = fl_vqf_insert_hashes(a->v, b->hash, b->count, &done);
    a->lines += done;
    if (s == FL_ERR_FULL)
        return cli_fail(EXIT_DATA, "vqf-build: the filter is full after %llu lines (both "
                        "blocks of the next line hold 48 fingerprints): give a larger --n",
                        (unsigned long long)a->lines);
    if (s != FL_OK) return cli_fail(EXIT_DATA, "vqf-build: insert failed: %s", fl_strerror(s));
    return EXIT_OK;
}

int cmd_vqf_build(int argc, char **argv, const cli_globals *g) {
    static const char *const CMD = "vqf-build";
    uint64_t n = 0, seed = 0;
    int have_n = 0;
    const char *input = NULL, *output = NULL;
    const cli_opt opts[] = {
        {"n", 0, CLI_ARG_COUNT, &n, &have_n, NULL, "--n N", "keys the filter is sized for"},
        {"seed", 0, CLI_ARG_SEED, &seed, NULL, NULL, "--seed S", "hash seed (default 0)"},
        CLI_OPT_INPUT(&input, CLI_HELP_KEYS_FROM),
        {"output", 'o', CLI_ARG_STRING, &output, NULL, NULL, "-o, --output OUT",
         "write the filter here ('-': standard output; required)"},
    };
    int rc = cli_parse_options(CMD, argc, argv, opts, CLI_NOPTS(opts), help_build);
    if (rc >= 0) return rc;
    rc = cli_output_operands(CMD, argc, argv, NULL);
    if (rc != EXIT_OK) return rc;
    if (!output) return cli_usage_error(CMD, "-o OUT is required");
    if (!have_n || n < 1) return cli_usage_error(CMD, "--n (at least 1) is required");
    uint32_t blocks = 0;
    fl_status s = fl_vqf_blocks_for(n, &blocks);
    if (s != FL_OK) return cli_usage_error(CMD, "--n %llu: %s", (unsigned long long)n, fl_strerror(s));
    rc = cli_check_create(CMD, "a vector quotient filter", (uint64_t)blocks * FL_VQF_BLOCK_BYTES, g);
    if (rc != EXIT_OK) return rc;
    fl_vqf *v = NULL;
    s = fl_vqf_create(n, seed, &v);
    if (s != FL_OK)
        return cli_fail(s == FL_ERR_NO_MEMORY ? EXIT_DATA : EXIT_USAGE,
                        "%s: cannot create the filter: %s", CMD, fl_strerror(s));
    vqf_lines a = {v, 0};
    cli_progress_start(CMD);
    rc = cli_batch_each(input, insert_batch, &a);
    cli_progress_stop();
    if (rc == EXIT_OK) rc = cli_save_object(v, &vqf_saver, output);
    if (rc == EXIT_OK && a.lines == 0) cli_warn_no_keys(input, 1, "filter");
    fl_vqf_free(v);
    return rc;
}

/* ---- vqf-query ---------------------------------------------------------------------------- */

static void help_query(void) {
    cli_outf("Usage: filterlab vqf-query FILTER [--input FILE] [--count]\n\n");
    cli_help_wrap(0, 0,
                  "Print the input lines that may be in a vector quotient filter (every line "
                  "inserted and not deleted is printed; others with the filter's false "
                  "positive rate), in input order, through the batch lookup kernel.");
    cli_outf("\nOptions:\n");
    cli_help_options();
}

static size_t lookup_batch(const void *v, cli_batch *b) {
    hash_batch(v, b);
    size_t pos = 0;
    fl_vqf_contains_hashes(v, b->hash, b->count, b->hit, &pos);
    return pos;
}

static int load_any(const char *path, size_t max_bytes, void **obj) {
    fl_vqf *v = NULL;
    int rc = load_vqf(path, max_bytes, &v);
    *obj = v;
    return rc;
}
static void release(void *obj) {
    fl_vqf_free(obj);
}

int cmd_vqf_query(int argc, char **argv, const cli_globals *g) {
    static const cli_query_ops ops = {help_query, load_any, lookup_batch, release};
    return cli_query_command("vqf-query", argc, argv, g, &ops);
}

/* ---- vqf-delete --------------------------------------------------------------------------- */

static void help_delete(void) {
    cli_outf("Usage: filterlab vqf-delete FILTER [--input FILE] [-o OUT]\n\n");
    cli_help_wrap(0, 0,
                  "Delete every input line from a vector quotient filter, one copy per line, "
                  "and write the result back to FILTER (or to OUT), replacing the file "
                  "atomically. All or nothing: if a line's fingerprint is in neither of its "
                  "blocks (a line never inserted), nothing is written and the exit status is "
                  "2. Delete only lines you inserted: a line never inserted that the filter "
                  "answers 'present' for (a false positive) takes another line's copy.");
    cli_outf("\nOptions:\n");
    cli_help_options();
}

static int delete_batch(cli_batch *b, void *ctx) {
    vqf_lines *d = ctx;
    hash_batch(d->v, b);
    size_t done = 0;
    fl_status s = fl_vqf_delete_hashes(d->v, b->hash, b->count, &done);
    d->lines += done;
    if (s == FL_ERR_NOT_FOUND) {
        char q[CLI_QUOTE_BUF], line[256];
        size_t n = b->len[done] < sizeof line - 1 ? b->len[done] : sizeof line - 1;
        memcpy(line, cli_batch_key(b, done), n);
        line[n] = 0;
        cli_quote(line, q, sizeof q);
        return cli_fail(EXIT_DATA, "vqf-delete: line %llu (%s) is not in the filter; "
                        "nothing written", (unsigned long long)d->lines + 1, q);
    }
    if (s != FL_OK) return cli_fail(EXIT_DATA, "vqf-delete: %s", fl_strerror(s));
    return EXIT_OK;
}

int cmd_vqf_delete(int argc, char **argv, const cli_globals *g) {
    static const char *const CMD = "vqf-delete";
    const char *input = NULL, *output = NULL;
    const cli_opt opts[] = {
        CLI_OPT_INPUT(&input, CLI_HELP_KEYS_FROM),
        {"output", 'o', CLI_ARG_STRING, &output, NULL, NULL, "-o, --output OUT",
         "write the filter to OUT instead of FILTER ('-': standard output)"},
    };
    int rc = cli_parse_one_operand(CMD, argc, argv, opts, CLI_NOPTS(opts), help_delete, "FILTER");
    if (rc >= 0) return rc;
    const char *path = argv[optind];
    fl_vqf *v = NULL;
    rc = load_vqf(path, g->max_bytes, &v);
    if (rc != EXIT_OK) return rc;
    vqf_lines d = {v, 0};
    rc = cli_batch_each(input, delete_batch, &d);
    if (rc == EXIT_OK) rc = cli_save_object(v, &vqf_saver, output ? output : path);
    if (rc == EXIT_OK && d.lines == 0) cli_warn_no_keys(input, 1, "filter");
    fl_vqf_free(v);
    return rc;
}

/* ---- vqf-info ----------------------------------------------------------------------------- */

static void help_info(void) {
    cli_outf("Usage: filterlab vqf-info FILTER [--json]\n\n");
    cli_help_wrap(0, 0, "Describe a vector quotient filter: blocks, bytes, items, the load, "
                  "the keys it is sized for, bits per key and the false positive rate "
                  "estimated at its fill.");
    cli_outf("\nOptions:\n"
             "  --json      one JSON object: kind (\"vector_quotient\"), blocks, bytes, seed,\n"
             "              items, slots, capacity, load, bits_per_key, fpr, full_blocks,\n"
             "              kernel\n"
             "  -h, --help  show this help\n");
}

int cmd_vqf_info(int argc, char **argv, const cli_globals *g) {
    static const char *const CMD = "vqf-info";
    int json = 0;
    const cli_opt opts[] = {
        {"json", 0, CLI_ARG_NONE, &json, NULL, NULL, NULL, NULL},
    };
    int rc = cli_parse_one_operand(CMD, argc, argv, opts, CLI_NOPTS(opts), help_info, "FILTER");
    if (rc >= 0) return rc;
    fl_vqf *v = NULL;
    rc = load_vqf(argv[optind], g->max_bytes, &v);
    if (rc != EXIT_OK) return rc;
    fl_vqf_info in;
    fl_vqf_info_get(v, &in);
    if (json) {
        cli_json j;
        cli_json_begin(&j);
        cli_json_str(&j, "kind", "vector_quotient");
        cli_json_u64(&j, "blocks", in.blocks);
        cli_json_u64(&j, "bytes", in.bytes);
        cli_json_u64(&j, "seed", in.seed);
        cli_json_u64(&j, "items", in.items);
        cli_json_u64(&j, "slots", in.slots);
        cli_json_u64(&j, "capacity", in.capacity);
        cli_json_num(&j, "load", in.load);
        cli_json_num(&j, "bits_per_key", in.bits_per_key);
        cli_json_num(&j, "fpr", in.fpr);
        cli_json_u64(&j, "full_blocks", in.full_blocks);
        cli_json_str(&j, "kernel", fl_vqf_kernel(v));
        cli_json_end(&j);
    } else {
        char hb[32];
        cli_human_bytes(in.bytes, hb, sizeof hb);
        cli_outf("kind: vector quotient filter (8-bit fingerprints, 48 per 64-byte block)\n"
                 "blocks: %u (%s), seed %llu\n"
                 "items: %llu of %llu slots (load %.4f), %u blocks full\n"
                 "sized for: %llu keys, %.3f bits per key\n"
                 "fpr at this fill: %.4g\n"
                 "lookup kernel: %s\n",
                 in.blocks, hb, (unsigned long long)in.seed, (unsigned long long)in.items,
                 (unsigned long long)in.slots, in.load, in.full_blocks,
                 (unsigned long long)in.capacity, in.bits_per_key, in.fpr, fl_vqf_kernel(v));
    }
    fl_vqf_free(v);
    return cli_out_finish(0);
}
