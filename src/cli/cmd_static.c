/*
 * filterlab build-static: a binary fuse filter or a Bloomier filter from a whole key set,
 * and the static kinds' part of `query` and `info` (which call cli_static_* when the file
 * holds kind FL_FILE_BINARY_FUSE or FL_FILE_BLOOMIER).
 *
 * A line's key is XXH3-64 of its bytes (seed 0): the structures take 64-bit keys, and a
 * query hashes lines the same way. All keys are read into memory before the build (a static
 * structure is built from the whole set at once).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "cli.h"

static const char *const CMD = "build-static";

/* The --type values: one table for the parser, its errors and the help. */
typedef struct static_type {
    const char *name;
    uint32_t arity;
    int bloomier;     /* a key -> value map; else a binary fuse filter */
    const char *help; /* its description in the help */
} static_type;

static const static_type types[] = {
    {"fuse", 3, 0, "binary fuse filter, 3-wise (Graf and Lemire 2022): ~1.13 x bits per key "
                   "at FPR 2^-bits, the smallest filter filterlab has"},
    {"fuse4", 4, 0, "4-wise: ~1.08 x bits per key, slower to build and probe"},
    {"bloomier", 3, 1, "a map from keys to values (lines KEY<TAB>VALUE, VALUE a decimal below "
                       "2^--value-bits); other keys are reported absent with probability "
                       "1 - 2^-(cell bits - value bits)"},
    {"bloomier4", 4, 1, "the same, 4-wise"},
};
#define NTYPES (sizeof types / sizeof types[0])

/* "fuse, fuse4, bloomier, bloomier4" for messages. */
static void type_list(char *buf, size_t cap)
{
    buf[0] = '\0';
    for (size_t i = 0; i < NTYPES; i++)
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", i ? ", " : "", types[i].name);
}

static void help(void)
{
    cli_outf("Usage: filterlab build-static --type TYPE [OPTIONS] -o FILE\n"
             "\n"
             "Build a static structure from every line of the input (the whole set at once; it\n"
             "cannot take keys later) and save it to FILE.\n"
             "\n"
             "Types:\n");
    for (size_t i = 0; i < NTYPES; i++)
        cli_help_option(14, types[i].name, "%s", types[i].help);
    cli_outf(
        "\n"
        "Options:\n"
        "  --bits B          fuse: fingerprint bits, 8 or 16 (default 8: FPR 1/256);\n"
        "                    bloomier: cell bits, 16 or 32 (default: 16 if the values fit\n"
        "                    in 8 bits, else 32)\n"
        "  --value-bits V    bloomier: value width, 1..16 (required)\n"
        "  --seed S          first construction seed (default 0; a failed try takes\n"
        "                    the next)\n"
        "  --input FILE      read lines from FILE ('-' or absent: standard input)\n"
        "  -o, --output FILE\n"
        "                    write the structure here ('-': standard output)\n"
        "  -v, --verbose     print a summary on standard error\n"
        "  -h, --help        show this help\n"
        "\n"
        "Duplicate lines are stored once (a Bloomier key given two different values is an\n"
        "error). Query with 'filterlab query FILE', describe with 'filterlab info FILE'.\n");
}

static uint64_t line_key(const char *key, size_t len)
{
    return XXH3_64bits(key, len);
}

typedef struct keyset {
    uint64_t *keys;
    uint16_t *values;
    size_t n, cap;
} keyset;

static int keyset_push(keyset *s, uint64_t key, uint16_t value, int with_values)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4096;
        uint64_t *k = realloc(s->keys, cap * sizeof *k);
        if (!k)
            return -1;
        s->keys = k;
        if (with_values) {
            uint16_t *v = realloc(s->values, cap * sizeof *v);
            if (!v)
                return -1;
            s->values = v;
        }
        s->cap = cap;
    }
    s->keys[s->n] = key;
    if (with_values)
        s->values[s->n] = value;
    s->n++;
    return 0;
}

/* "KEY<TAB>VALUE": the last tab splits; VALUE decimal, below 2^vbits. */
static int split_value(const char *line, size_t len, uint32_t vbits, size_t *keylen,
                       uint16_t *value)
{
    size_t t = len;
    while (t > 0 && line[t - 1] != '\t')
        t--;
    if (t == 0 || t == len)
        return -1;
    uint32_t v = 0;
    for (size_t i = t; i < len; i++) {
        if (line[i] < '0' || line[i] > '9')
            return -1;
        v = v * 10 + (uint32_t)(line[i] - '0');
        if (v >> vbits)
            return -1;
    }
    *keylen = t - 1;
    *value = (uint16_t)v;
    return 0;
}

static int save_static(const fl_fuse *f, const fl_bloomier *b, const char *path)
{
    size_t n = f ? fl_fuse_serialized_size(f) : fl_bloomier_serialized_size(b);
    void *buf = malloc(n ? n : 1);
    if (!buf)
        return cli_fail(EXIT_DATA, "%s: out of memory for the %zu-byte file", CMD, n);
    fl_status s = f ? fl_fuse_save_mem(f, buf, n, &n) : fl_bloomier_save_mem(b, buf, n, &n);
    int rc = s == FL_OK ? cli_write_file(path, buf, n)
                        : cli_fail(EXIT_DATA, "%s: cannot encode: %s", CMD, fl_strerror(s));
    free(buf);
    return rc;
}

int cmd_build_static(int argc, char **argv, const cli_globals *g)
{
    const char *type = NULL, *input = NULL, *output = NULL;
    uint64_t bits = 0, vbits = 0, seed = 0;
    int verbose = 0;
    const cli_opt opts[] = {
        {"type", 0, CLI_ARG_STRING, &type, NULL, NULL, NULL, NULL},
        {"bits", 0, CLI_ARG_COUNT, &bits, NULL, NULL, NULL, NULL},
        {"value-bits", 0, CLI_ARG_COUNT, &vbits, NULL, NULL, NULL, NULL},
        {"seed", 0, CLI_ARG_SEED, &seed, NULL, NULL, NULL, NULL},
        CLI_OPT_INPUT(&input, NULL),
        {"output", 'o', CLI_ARG_STRING, &output, NULL, NULL, NULL, NULL},
        {"verbose", 'v', CLI_ARG_NONE, &verbose, NULL, NULL, NULL, NULL},
    };
    int rc = cli_parse_options(CMD, argc, argv, opts, CLI_NOPTS(opts), help);
    if (rc >= 0)
        return rc;
    rc = cli_no_operand(CMD, argc, argv);
    if (rc != EXIT_OK)
        return rc;
    char names[64];
    type_list(names, sizeof names);
    if (!type)
        return cli_usage_error(CMD, "--type is required (%s)", names);
    if (!output)
        return cli_usage_error(CMD, "-o FILE is required");
    const static_type *t = NULL;
    for (size_t i = 0; i < NTYPES; i++)
        if (strcmp(type, types[i].name) == 0)
            t = &types[i];
    if (!t) {
        char q[CLI_QUOTE_BUF];
        cli_quote(type, q, sizeof q);
        return cli_usage_error(CMD, "unknown --type %s (%s)", q, names);
    }
    int bloomier = t->bloomier, fuse = !t->bloomier;
    uint32_t arity = t->arity;
    if (fuse && bits && bits != 8 && bits != 16)
        return cli_usage_error(CMD, "--bits must be 8 or 16 for a fuse filter");
    if (fuse && vbits)
        return cli_usage_error(CMD, "--value-bits is for bloomier types only");
    if (bloomier && (vbits < 1 || vbits > 16))
        return cli_usage_error(CMD, "--value-bits between 1 and 16 is required for bloomier");
    if (bloomier && bits && ((bits != 16 && bits != 32) || bits < vbits))
        return cli_usage_error(CMD, "--bits must be 16 or 32 and at least --value-bits");

    cli_lines in;
    cli_progress_start(CMD);
    if ((rc = cli_lines_open(&in, input)) != EXIT_OK) {
        cli_progress_stop();
        return rc;
    }
    keyset set = {0};
    const char *line;
    size_t len;
    int got;
    while ((got = cli_lines_next(&in, &line, &len)) > 0) {
        uint16_t value = 0;
        size_t keylen = len;
        if (bloomier && split_value(line, len, (uint32_t)vbits, &keylen, &value) < 0) {
            rc = cli_fail(EXIT_DATA,
                          "%s: %s line %llu: expected KEY<TAB>VALUE with VALUE a decimal "
                          "below 2^%u",
                          CMD, in.name, (unsigned long long)in.lineno, (unsigned)vbits);
            break;
        }
        if (keyset_push(&set, line_key(line, keylen), value, bloomier) < 0) {
            rc = cli_fail(EXIT_DATA, "%s: out of memory after %zu keys", CMD, set.n);
            break;
        }
    }
    if (got < 0 && rc == EXIT_OK)
        rc = EXIT_DATA;
    /* No keys still builds: an empty structure that reports every key absent. */
    int empty = in.lineno == 0;
    cli_lines_close(&in);
    cli_progress_stop();
    fl_fuse *f = NULL;
    fl_bloomier *b = NULL;
    fl_static_info info;
    if (rc == EXIT_OK) {
        /* The cells, known once the keys are counted (the default Bloomier cell width
         * follows --value-bits, as fl_bloomier_build_u64 picks it). */
        uint32_t cell_bits = (uint32_t)bits;
        if (!cell_bits)
            cell_bits = fuse ? 8 : vbits <= 8 ? 16 : 32;
        size_t cells = 0;
        if (fl_fuse_bytes_for(arity, cell_bits, set.n, &cells) == FL_OK)
            rc = cli_check_create(CMD, fuse ? "a binary fuse filter" : "a Bloomier filter",
                                  cells, g);
    }
    if (rc == EXIT_OK) {
        fl_status s;
        if (fuse) {
            fl_fuse_config cfg = {.arity = arity, .fingerprint_bits = (uint32_t)bits,
                                  .seed = seed};
            s = fl_fuse_build_u64(&cfg, set.keys, set.n, &f);
            if (s == FL_OK)
                fl_fuse_info(f, &info);
        } else {
            fl_bloomier_config cfg = {.arity = arity, .value_bits = (uint32_t)vbits,
                                      .cell_bits = (uint32_t)bits, .seed = seed};
            s = fl_bloomier_build_u64(&cfg, set.keys, set.values, set.n, &b);
            if (s == FL_OK)
                fl_bloomier_info(b, &info);
        }
        if (s != FL_OK)
            rc = cli_fail(s == FL_ERR_DUPLICATE_KEY || s == FL_ERR_BUILD_FAILED ? EXIT_DATA
                                                                                : EXIT_USAGE,
                          "%s: cannot build: %s", CMD, fl_strerror(s));
    }
    if (rc == EXIT_OK)
        rc = save_static(f, b, output);
    if (rc == EXIT_OK && empty)
        cli_warn_no_keys(input, 1, fuse ? "filter" : "map");
    if (rc == EXIT_OK && verbose) {
        char human[32];
        cli_human_bytes(info.bytes, human, sizeof human);
        fprintf(stderr,
                "%s: %s, %llu keys (%llu duplicates dropped), %s, %.2f bits per key, "
                "FPR %.3g, %u tries, %.1f ns per key to build\n",
                CMD, type, (unsigned long long)info.keys, (unsigned long long)info.duplicates,
                human, info.bits_per_key, info.fpr, (unsigned)info.tries,
                info.keys ? info.build_seconds * 1e9 / (double)info.keys : 0.0);
    }
    fl_fuse_free(f);
    fl_bloomier_free(b);
    free(set.keys);
    free(set.values);
    return rc;
}

/* ---- query and info on the static kinds ---- */

static int load_static(const char *path, uint32_t kind, size_t max_bytes, fl_fuse **f,
                       fl_bloomier **b)
{
    errno = 0;
    fl_status s = kind == FL_FILE_BINARY_FUSE ? fl_fuse_load_file(path, max_bytes, f)
                                              : fl_bloomier_load_file(path, max_bytes, b);
    if (s == FL_OK)
        return EXIT_OK;
    if (s == FL_ERR_IO)
        return cli_fail(EXIT_DATA, "cannot load '%s': %s", path, strerror(errno));
    return cli_fail(EXIT_DATA, "cannot load '%s': %s", path, fl_strerror(s));
}

int cli_static_query(const char *path, uint32_t kind, const char *input, int mode,
                     size_t max_bytes)
{
    fl_fuse *f = NULL;
    fl_bloomier *b = NULL;
    int rc = load_static(path, kind, max_bytes, &f, &b);
    if (rc != EXIT_OK)
        return rc;
    cli_lines in;
    if ((rc = cli_lines_open(&in, input)) != EXIT_OK) {
        fl_fuse_free(f);
        fl_bloomier_free(b);
        return rc;
    }
    cli_batch *batch = cli_batch_new();
    static uint16_t values[CLI_BATCH];
    uint64_t positives = 0;
    long got = 0;
    while (batch && (got = cli_batch_fill(batch, &in)) > 0) {
        for (size_t i = 0; i < batch->count; i++)
            batch->hash[i] = line_key(cli_batch_key(batch, i), batch->len[i]);
        positives += f ? fl_fuse_contains_u64s(f, batch->hash, batch->count, batch->hit)
                       : fl_bloomier_get_u64s(b, batch->hash, batch->count, values, batch->hit);
        for (size_t i = 0; i < batch->count && mode != CLI_QUERY_COUNT; i++) {
            int hit = batch->hit[i] != 0;
            if (mode == CLI_QUERY_MARK) {
                if (b && hit)
                    cli_outf("1\t%u\n", (unsigned)values[i]);
                else
                    cli_out(hit ? "1\n" : "0\n", 2);
            } else if ((mode == CLI_QUERY_PRESENT) == hit) {
                if (b && hit) {
                    cli_out(cli_batch_key(batch, i), batch->len[i]);
                    cli_outf("\t%u\n", (unsigned)values[i]);
                } else {
                    cli_out_line(cli_batch_key(batch, i), batch->len[i]);
                }
            }
        }
        if (cli_out_failed())
            break;
    }
    rc = cli_batch_status(batch, got, rc);
    if (rc == EXIT_OK && mode == CLI_QUERY_COUNT)
        cli_outf("%llu\n", (unsigned long long)positives);
    cli_batch_free(batch);
    cli_lines_close(&in);
    fl_fuse_free(f);
    fl_bloomier_free(b);
    return rc;
}

int cli_static_info(const char *path, uint32_t kind, size_t max_bytes, int json)
{
    fl_fuse *f = NULL;
    fl_bloomier *b = NULL;
    int rc = load_static(path, kind, max_bytes, &f, &b);
    if (rc != EXIT_OK)
        return rc;
    fl_static_info in;
    if (f)
        fl_fuse_info(f, &in);
    else
        fl_bloomier_info(b, &in);
    if (json) {
        cli_json j;
        cli_json_begin(&j);
        cli_json_str(&j, "file", path);
        cli_json_str(&j, "kind", f ? "binary_fuse" : "bloomier");
        cli_json_u64(&j, "arity", in.arity);
        cli_json_u64(&j, "cell_bits", in.cell_bits);
        cli_json_u64(&j, "value_bits", in.value_bits);
        cli_json_u64(&j, "keys", in.keys);
        cli_json_u64(&j, "cells", in.cells);
        cli_json_u64(&j, "segment_count", in.segment_count);
        cli_json_u64(&j, "segment_length", in.segment_length);
        cli_json_u64(&j, "seed", in.seed);
        cli_json_u64(&j, "bytes", in.bytes);
        if (in.keys)
            cli_json_num(&j, "bits_per_key", in.bits_per_key);
        else
            cli_json_null(&j, "bits_per_key");
        /* fuse: the FPR; Bloomier: the chance a non-key reads as present */
        cli_json_num(&j, "fpr", in.fpr);
        cli_json_end(&j);
        fl_fuse_free(f);
        fl_bloomier_free(b);
        return EXIT_OK;
    }
    char human[32];
    cli_human_bytes(in.bytes, human, sizeof human);
    cli_outf("file:           %s\n", path);
    if (f)
        cli_outf("kind:           binary fuse filter, %u-wise, %u-bit fingerprints (Graf and "
                 "Lemire 2022)\n", in.arity, in.cell_bits);
    else
        cli_outf("kind:           Bloomier filter, %u-wise, %u-bit values in %u-bit cells\n",
                 in.arity, in.value_bits, in.cell_bits);
    cli_outf("keys:           %llu (line hashes, XXH3-64)\n", (unsigned long long)in.keys);
    cli_outf("cells:          %u in %u segments of %u (+%u)\n", in.cells, in.segment_count,
             in.segment_length, in.arity - 1);
    cli_outf("seed:           %llu (0x%llx)\n", (unsigned long long)in.seed,
             (unsigned long long)in.seed);
    cli_outf("bytes:          %zu (%s)\n", in.bytes, human);
    if (in.keys && f)
        cli_outf("bits per key:   %.2f (the bound log2(1/FPR) is %u)\n", in.bits_per_key,
                 in.cell_bits);
    else if (in.keys)
        cli_outf("bits per key:   %.2f\n", in.bits_per_key);
    else
        cli_outf("bits per key:   - (empty set)\n");
    cli_outf("%s %.3g (2^-%u)\n", f ? "FPR:           " : "absent-miss:   ", in.fpr,
             in.cell_bits - in.value_bits);
    fl_fuse_free(f);
    fl_bloomier_free(b);
    return EXIT_OK;
}
