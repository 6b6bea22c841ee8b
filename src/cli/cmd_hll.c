/*
 * filterlab count / hll-merge / hll-info: HyperLogLog sketches kept as Redis strings.
 *
 * The file form of a sketch is exactly the string Redis keeps under a PFADD key (what
 * `redis-cli --no-raw GET key` shows, or `redis-cli GET key > file` writes with a trailing
 * newline stripped), so files move between filterlab and Redis with GET and SET.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define HLL_FILE_CAP ((size_t)1 << 20) /* a Redis HLL string is at most ~32 KiB sparse */

/* Loads a Redis HLL string file; a filterlab file is named with its commands (kinds.c). */
static int load_hll(const char *path, fl_hll **out) {
    unsigned char *buf;
    size_t len;
    int rc = cli_read_file(path, HLL_FILE_CAP, &buf, &len);
    if (rc != EXIT_OK) return rc;
    fl_status s = fl_hll_import_redis(buf, len, out);
    uint32_t kind = s != FL_OK ? cli_mem_kind(buf, len) : 0;
    /* redis-cli prints a value followed by '\n', also with --raw and into a file: a sketch
     * saved with `redis-cli --raw GET key > file` has one byte too many. It is still refused
     * (a string with a byte more is not the one Redis holds), with the way out. */
    int newline = 0;
    if (s != FL_OK && (!kind || kind == CLI_KIND_HLL) && len > 0 && buf[len - 1] == '\n') {
        fl_hll *probe = NULL;
        newline = fl_hll_import_redis(buf, len - 1, &probe) == FL_OK;
        fl_hll_free(probe);
    }
    free(buf);
    if (s == FL_OK) return EXIT_OK;
    if (newline) {
        char q[CLI_QUOTE_BUF];
        cli_quote(path, q, sizeof q);
        return cli_fail(EXIT_DATA,
                        "%s: %s: the file ends with a newline after the sketch (redis-cli "
                        "adds one to what it prints, also with --raw): strip it, e.g. "
                        "head -c -1 %s > fixed.hll",
                        path, fl_strerror(s), q);
    }
    if (kind && kind != CLI_KIND_HLL) return cli_wrong_kind(path, kind, "a HyperLogLog");
    return cli_fail(EXIT_DATA, "%s: %s", path, fl_strerror(s));
}

static int save_hll(const fl_hll *h, const char *path) {
    size_t need;
    fl_status s = fl_hll_export_redis_size(h, &need);
    if (s == FL_ERR_UNSUPPORTED)
        return cli_fail(EXIT_USAGE, "-o: Redis's format holds precision 14 only");
    unsigned char *buf = malloc(need);
    if (!buf) return cli_fail(EXIT_DATA, "out of memory");
    s = fl_hll_export_redis(h, buf, need, &need);
    int rc = s == FL_OK ? cli_write_file(path, buf, need)
                        : cli_fail(EXIT_DATA, "export: %s", fl_strerror(s));
    free(buf);
    return rc;
}

/* A line added as a key (cli_add_operand_lines' callback). */
static fl_status add_line(void *h, const char *key, size_t len) {
    return fl_hll_add_bytes(h, key, len, NULL);
}

/* How count and hll-merge end once their sketch is built (rc EXIT_OK) or has failed: its
 * count (fl_hll_count caches it in the sketch, as PFCOUNT does, so -o saves it cached), the
 * sketch saved with -o, and the count printed unless the sketch itself went to standard
 * output. Frees h; returns the exit status. */
static int print_and_save(fl_hll *h, int rc, const char *output) {
    uint64_t n = 0;
    if (rc == EXIT_OK) fl_hll_count(h, &n);
    if (rc == EXIT_OK && output) rc = save_hll(h, output);
    if (rc == EXIT_OK && !(output && strcmp(output, "-") == 0))
        cli_outf("%llu\n", (unsigned long long)n);
    fl_hll_free(h);
    return rc == EXIT_OK ? cli_out_finish(0) : rc;
}

static void count_help(void) {
    cli_outf("Usage: filterlab count [--precision P] [--from HLL] [-o OUT] [FILE...]\n"
             "\n"
             "Estimate the number of distinct lines with a HyperLogLog sketch, the way Redis's\n"
             "PFADD/PFCOUNT do (same hash, registers and estimator: same number).\n"
             "\n"
             "Options:\n"
             "  --precision P  2^P registers, 4..16 (default 14, Redis's; 11 is 1.5 KiB)\n"
             "  --from HLL     start from a sketch saved as a Redis string (precision 14);\n"
             "                 with no FILE, print its count without reading input\n"
             "  -o, --output OUT  save the sketch as the Redis string ('-': stdout; precision\n"
             "                 14 only); load it into Redis with SET, or with redis-cli -x SET\n"
             "  -h, --help     show this help\n"
             "\n"
             "FILE '-' or no FILE (and no --from): standard input. Lines are keys without\n"
             "their '\\n' or '\\r\\n'.\n");
}

static void merge_help(void) {
    cli_outf("Usage: filterlab hll-merge [-o OUT] HLL...\n"
             "\n"
             "Union of Redis HyperLogLog strings, as PFMERGE FIRST REST... gives it:\n"
             "prints its count and with -o saves it (a dense input makes it dense).\n"
             "\n"
             "Options:\n");
    cli_help_options();
}

static void info_help(void) {
    cli_outf("Usage: filterlab hll-info [--json] HLL\n"
             "\n"
             "Describe a Redis HyperLogLog string: precision, encoding, size, registers set,\n"
             "the cached count and the estimate.\n"
             "\n"
             "Options:\n"
             "  --json      one JSON object: file, kind (\"hyperloglog\"), precision,\n"
             "              registers, std_error (a fraction), encoding (sparse, dense),\n"
             "              bytes, registers_set, max_register, cache_valid, cached_count\n"
             "              (the count in the header, stale unless cache_valid), estimate\n"
             "  -h, --help  show this help\n");
}

/* --precision P: a count in the library's precision range. */
static int parse_precision(const char *cmd, const char *opt, const char *value, void *dest)
{
    uint64_t *p = dest;
    if (cli_parse_count(cmd, opt, value, p) < 0) return -1;
    if (*p < FL_HLL_P_MIN || *p > FL_HLL_P_MAX)
        return cli_usage_error(cmd, "--precision %s: %s", value,
                               fl_strerror(FL_ERR_BAD_PRECISION)), -1;
    return 0;
}

int cmd_count(int argc, char **argv, const cli_globals *g) {
    (void)g;
    static const char *const CMD = "count";
    uint64_t p = FL_HLL_REDIS_P;
    int have_p = 0;
    const char *from = NULL, *output = NULL;
    const cli_opt opts[] = {
        {"precision", 0, CLI_ARG_CUSTOM, &p, &have_p, parse_precision, NULL, NULL},
        {"from", 0, CLI_ARG_STRING, &from, NULL, NULL, NULL, NULL},
        {"output", 'o', CLI_ARG_STRING, &output, NULL, NULL, NULL, NULL},
    };
    int rc = cli_parse_options(CMD, argc, argv, opts, CLI_NOPTS(opts), count_help);
    if (rc >= 0)
        return rc;
    if (from && have_p && p != FL_HLL_REDIS_P)
        return cli_usage_error(CMD, "--from reads Redis strings, which have precision 14");
    if (output && p != FL_HLL_REDIS_P)
        return cli_usage_error(CMD, "-o writes Redis strings, which have precision 14");
    fl_hll *h = NULL;
    rc = EXIT_OK;
    if (from) {
        rc = load_hll(from, &h);
    } else {
        fl_status s = fl_hll_create((uint32_t)p, &h);
        if (s != FL_OK) rc = cli_fail(EXIT_DATA, "%s", fl_strerror(s));
    }
    if (rc != EXIT_OK) return rc;
    cli_progress_start(CMD);
    rc = cli_add_operand_lines(argc, argv, optind, !from, add_line, h);
    cli_progress_stop();
    /* A sketch read --from is not empty however little input follows it. */
    if (rc == EXIT_OK && !from && cli_lines_total() == 0)
        cli_warn_no_keys(optind < argc ? argv[optind] : NULL, argc - optind, "sketch");
    return print_and_save(h, rc, output);
}

int cmd_hll_merge(int argc, char **argv, const cli_globals *g) {
    (void)g;
    static const char *const CMD = "hll-merge";
    const char *output;
    int rc = cli_output_only(CMD, argc, argv, merge_help,
                             "save the union as the Redis string ('-': stdout)", &output);
    if (rc >= 0)
        return rc;
    if (optind == argc) return cli_usage_error(CMD, "give at least one HLL file");
    fl_hll *dst = NULL;
    rc = load_hll(argv[optind], &dst);
    for (int i = optind + 1; i < argc && rc == EXIT_OK; i++) {
        fl_hll *src;
        rc = load_hll(argv[i], &src);
        if (rc != EXIT_OK) break;
        fl_status s = fl_hll_merge(dst, src);
        fl_hll_free(src);
        if (s != FL_OK) rc = cli_fail(EXIT_DATA, "merge: %s", fl_strerror(s));
    }
    return print_and_save(dst, rc, output);
}

int cmd_hll_info(int argc, char **argv, const cli_globals *g) {
    (void)g;
    static const char *const CMD = "hll-info";
    int json;
    int rc = cli_json_only(CMD, argc, argv, info_help, &json);
    if (rc >= 0)
        return rc;
    rc = cli_one_operand(CMD, argc, argv, "HLL");
    if (rc != EXIT_OK) return rc;
    const char *path = argv[optind];
    fl_hll *h;
    rc = load_hll(path, &h);
    if (rc != EXIT_OK) return rc;
    fl_hll_info in;
    uint64_t est = 0;
    fl_hll_info_get(h, &in);
    fl_hll_estimate(h, &est);
    if (json) {
        cli_json j;
        cli_json_begin(&j);
        cli_json_str(&j, "file", path);
        cli_json_str(&j, "kind", "hyperloglog");
        cli_json_u64(&j, "precision", in.precision);
        cli_json_u64(&j, "registers", in.registers);
        cli_json_num(&j, "std_error", in.std_error);
        cli_json_str(&j, "encoding", in.encoding == FL_HLL_SPARSE ? "sparse" : "dense");
        cli_json_u64(&j, "bytes", in.redis_bytes);
        cli_json_u64(&j, "registers_set", in.registers_set);
        cli_json_u64(&j, "max_register", in.max_register);
        cli_json_bool(&j, "cache_valid", in.cache_valid);
        cli_json_u64(&j, "cached_count", in.cached_count & ~(1ull << 63));
        cli_json_u64(&j, "estimate", est);
        cli_json_end(&j);
        fl_hll_free(h);
        return cli_out_finish(0);
    }
    cli_outf("kind: HyperLogLog (Redis string)\n"
             "precision: %u (%u registers, standard error %.2f%%)\n"
             "encoding: %s\n"
             "bytes: %zu\n"
             "registers set: %u (largest value %u)\n"
             "cached count: %s%llu\n"
             "estimate: %llu\n",
             in.precision, in.registers, 100 * in.std_error,
             in.encoding == FL_HLL_SPARSE ? "sparse" : "dense", in.redis_bytes,
             in.registers_set, in.max_register, in.cache_valid ? "" : "stale, was ",
             (unsigned long long)(in.cached_count & ~(1ull << 63)), (unsigned long long)est);
    fl_hll_free(h);
    return cli_out_finish(0);
}
