/*
 * The `filterlab` command: declarations shared by the files of src/cli/.
 *
 * The CLI sees the library only through include/filterlab.h. Every subcommand is a function
 * `int cmd_NAME(int argc, char **argv, const cli_globals *g)` that returns the process exit
 * status; main.c dispatches to it with argv[0] set to the subcommand name.
 */
#ifndef FL_CLI_H
#define FL_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "filterlab.h"

/* Exit statuses: one meaning each, so scripts can tell a typo from a bad file. */
enum {
    EXIT_OK = 0,
    EXIT_USAGE = 1, /* bad option, bad parameter value, unknown kernel */
    EXIT_DATA = 2,  /* bad or unreadable file, full cuckoo filter, I/O error */
};

/* Options given before the subcommand. */
typedef struct cli_globals {
    size_t max_bytes; /* payload cap for fl_load_file (0 = no cap) */
    int max_bytes_set; /* --max-bytes was given (import-parquet then uses it too) */
} cli_globals;

/* A subcommand: one file each (cmd_NAME.c), one row in main.c's CLI_COMMANDS list, which
 * declares the function. It returns the exit status; argv[0] is the subcommand's name. */
typedef int cli_command_fn(int argc, char **argv, const cli_globals *g);

/* ---- the hooks of kinds with an info or a query of their own (cmd_info.c's info_of,
 * cmd_query.c's query_of), in the files of their kinds' commands ---- */
/* `filterlab info PATH` of a file of `kind` (--json: json); returns the exit status. */
typedef int cli_kind_info_fn(const char *path, uint32_t kind, size_t max_bytes, int json);
/* `filterlab query PATH` of a file of `kind`: the lines of `input` (NULL or "-": stdin). */
enum { CLI_QUERY_PRESENT, CLI_QUERY_ABSENT, CLI_QUERY_MARK, CLI_QUERY_COUNT };
typedef int cli_kind_query_fn(const char *path, uint32_t kind, const char *input, int mode,
                              size_t max_bytes);
/* cmd_static.c: the static kinds (binary fuse, Bloomier) */
cli_kind_info_fn cli_static_info;
cli_kind_query_fn cli_static_query;
/* cmd_layered.c: layered Bloom filters (FL_FILE_LAYERED_BLOOM) */
cli_kind_info_fn cli_info_layered;
/* cmd_compress.c: compressed Bloom filters (FL_FILE_COMPRESSED_BLOOM) */
cli_kind_info_fn cli_info_compressed;

/* ---- diag.c: diagnostics ---- */
#if defined(__GNUC__)
#define CLI_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CLI_PRINTF(a, b)
#endif

/* Prints "filterlab: MESSAGE\n" on stderr and returns `code`, so callers can write
 * `return cli_fail(EXIT_DATA, "...")`. */
int cli_fail(int code, const char *fmt, ...) CLI_PRINTF(2, 3);
/* A usage error of subcommand `cmd`: one line ending with a pointer to --help; returns 1. */
int cli_usage_error(const char *cmd, const char *fmt, ...) CLI_PRINTF(2, 3);
/* A user-supplied value for a message: single-quoted, non-printable bytes as \xNN, cut
 * after CLI_QUOTE_MAX bytes with "...". A buffer of CLI_QUOTE_BUF bytes always suffices. */
#define CLI_QUOTE_MAX 40
#define CLI_QUOTE_BUF (4 * CLI_QUOTE_MAX + 8)
void cli_quote(const char *s, char *buf, size_t cap);
/* ---- options.c: option tables and their parser, operand checks, the global options ---- */
/* The options given before the subcommand, as main.c parses them (getopt_long's table);
 * a subcommand that meets one of them says it is global (cli_getopt_error). */
enum { CLI_OPT_KERNEL = 256, CLI_OPT_MAX_BYTES };
extern const struct option cli_global_options[];
/* "NAME" for --kernel, "SIZE" for --max-bytes: their values' placeholder. */
const char *cli_global_metavar(int val);
/* A subcommand's options, declared once as a table of rows: cli_parse_options builds
 * getopt_long's tables from it (adding -h/--help), parses argv and stores each value where
 * its row says, parsed by its kind; a bad value is a usage error naming the option. */
typedef enum cli_arg {
    CLI_ARG_NONE,    /* a switch: *(int *)dest = 1 */
    CLI_ARG_TALLY,   /* a switch counted: (*(int *)dest)++ each time it is given */
    CLI_ARG_STRING,  /* *(const char **)dest = the value as given */
    CLI_ARG_COUNT,   /* uint64_t: cli_parse_count */
    CLI_ARG_SEED,    /* uint64_t: cli_parse_seed */
    CLI_ARG_FPR,     /* double in (0, 1): cli_parse_fpr */
    CLI_ARG_SIZE,    /* size_t with a K/M/G/T suffix: cli_parse_size */
    CLI_ARG_VARIANT, /* fl_variant: cli_parse_variant */
    CLI_ARG_CUSTOM,  /* the row's parse function */
} cli_arg;
/* A CLI_ARG_CUSTOM value's parser: `opt` is the option as errors name it ("--growth");
 * returns -1 after printing a usage error, else 0. */
typedef int (*cli_opt_parse_fn)(const char *cmd, const char *opt, const char *value,
                                void *dest);
typedef struct cli_opt {
    const char *name;       /* the long name without "--"; NULL: a short option only */
    char short_name;        /* 'o' for -o; 0: none */
    cli_arg arg;
    void *dest;             /* where the value goes (its type: the kind's) */
    int *seen;              /* if not NULL, set to 1 when the option is given */
    cli_opt_parse_fn parse; /* CLI_ARG_CUSTOM only */
    /* Its lines in the Options section cli_help_options prints: "--input FILE" and what it
     * does, wrapped to the help width, or, if it holds '\n', in the lines written. NULL: a
     * command whose help prints the line itself, or one covered by another row's line. */
    const char *label, *help;
} cli_opt;
/* --n N and --fpr P, the sizing of several commands: their rows (s: a cli_n_fpr *; the help
 * texts NULL where the command's help prints them), which cli_parse_n_fpr checks after the
 * parse. */
typedef struct cli_n_fpr {
    uint64_t n;
    double fpr;
    int have_n, have_fpr;
} cli_n_fpr;
#define CLI_OPTS_N_FPR(s, n_help, fpr_help)                                                   \
    {"n", 0, CLI_ARG_COUNT, &(s)->n, &(s)->have_n, NULL, (n_help) ? "--n N" : NULL, (n_help)}, \
        {"fpr", 0, CLI_ARG_FPR, &(s)->fpr, &(s)->have_fpr, NULL, (fpr_help) ? "--fpr P" : NULL, \
         (fpr_help)}
/* --input FILE, the keys' input of many commands (dest: a const char **; help: its line,
 * or NULL where the command's help prints it). */
#define CLI_OPT_INPUT(dest, help)                                                             \
    {"input", 0, CLI_ARG_STRING, (dest), NULL, NULL, (help) ? "--input FILE" : NULL, (help)}
/* The help texts of the options many commands share. */
#define CLI_HELP_INPUT "read keys from FILE ('-' or absent: standard input)"
#define CLI_HELP_KEYS_FROM "keys from FILE ('-' or absent: standard input)"
#define CLI_OPTS_MAX 24
#define CLI_NOPTS(table) (sizeof(table) / sizeof((table)[0]))
/* From a help function that cli_parse_options called: the Options lines of the table it is
 * parsing (the rows with a label, in table order, then -h/--help), each description two
 * spaces after the widest label. */
void cli_help_options(void);
/* Parses a subcommand's options with its table: returns -1 to go on (optind is then the
 * first operand), else the exit status (help printed, or a usage error printed). */
int cli_parse_options(const char *cmd, int argc, char **argv, const cli_opt *opts,
                      size_t nopts, void (*help)(void));
/* Turns getopt_long's '?' or ':' return into a usage error line (opterr must be 0); a
 * global option given after the subcommand gets a line showing where it goes. */
int cli_getopt_error(const char *cmd, int c, char **argv);
/* cli_parse_options, then the operands: exactly one, named `what` in the error
 * (cli_one_operand); or none, with --n and --fpr both given and n >= 1 (cli_check_n_fpr).
 * Returns -1 to go on, else the exit status. */
int cli_parse_one_operand(const char *cmd, int argc, char **argv, const cli_opt *opts,
                          size_t nopts, void (*help)(void), const char *what);
int cli_parse_n_fpr(const char *cmd, int argc, char **argv, const cli_opt *opts, size_t nopts,
                    void (*help)(void), const cli_n_fpr *s);
/* Parses a subcommand that takes no option but -h/--help: returns -1 to go on (optind is
 * then the first operand), else the exit status (help printed, or a usage error). */
int cli_help_only(const char *cmd, int argc, char **argv, void (*help)(void));
/* The same for a subcommand whose one other option is --json (*json: given or not), or
 * -o/--output OUT (*output: its value, NULL when not given; output_help: its help line). */
int cli_json_only(const char *cmd, int argc, char **argv, void (*help)(void), int *json);
/* cli_json_only for a command that takes no operand either (a usage error otherwise). */
int cli_json_no_operand(const char *cmd, int argc, char **argv, void (*help)(void), int *json);
int cli_output_only(const char *cmd, int argc, char **argv, void (*help)(void),
                    const char *output_help, const char **output);
/* After getopt: exactly one operand (argv[optind]) named `what` in the error; EXIT_OK or 1. */
int cli_one_operand(const char *cmd, int argc, char **argv, const char *what);
/* After getopt, for a command whose output is -o OUT: exactly one operand named `input`
 * (none if NULL); an extra one is refused with a line that points to -o. EXIT_OK or 1. */
int cli_output_operands(const char *cmd, int argc, char **argv, const char *input);
/* After getopt: no operand at all; EXIT_OK or 1. */
int cli_no_operand(const char *cmd, int argc, char **argv);
/* After getopt, for commands sized by --n and --fpr: no operand, both given, n >= 1. */
int cli_check_n_fpr(const char *cmd, int argc, char **argv, int have_n, int have_fpr,
                    uint64_t n);
/* Resets getopt for a fresh scan of a subcommand's argv. */
void cli_getopt_reset(void);

/* ---- help.c: help texts' generated parts ---- */
/* The variants a command takes, judged by their descriptors (fl_variant_describe). */
typedef enum cli_variant_set {
    CLI_VARIANTS_ALL,
    CLI_VARIANTS_NEVER_FULL, /* no FL_CAP_MAY_FILL: chains and layers, which must take a key */
    CLI_VARIANTS_MAY_FILL,   /* FL_CAP_MAY_FILL: the rest, which may refuse a key */
    CLI_VARIANTS_BIT_ARRAYS, /* plain Bloom bit arrays (no slots, no counters): compressible */
    CLI_VARIANTS_DELETE,     /* FL_CAP_DELETE */
} cli_variant_set;
int cli_variant_in(cli_variant_set set, fl_variant v);
/* "classic, block512, reg64 or counting": the set's names in variant order, `last` (" or ",
 * " and ", ", ") before the final one. 128 bytes hold every list. */
void cli_variant_list(cli_variant_set set, const char *last, char *buf, size_t cap);
/* The chunk coders (fl_coder_name), the same way: "golomb or zstd". */
void cli_coder_list(const char *last, char *buf, size_t cap);
/* Prints `text` word-wrapped to the help width; continuation lines (and the lines after a
 * '\n' in text) start at column `indent`, the first line's text at column `first`. */
void cli_help_wrap(size_t indent, size_t first, const char *text);
/* One option of an Options section: "  NAME", its description (printf format) starting at
 * column `col` and wrapped under it. A NAME too wide starts the description a line below. */
void cli_help_option(size_t col, const char *name, const char *fmt, ...) CLI_PRINTF(3, 4);
/* cli_help_option whose description `fmt` has one %s: the variants of `set` (as
 * cli_variant_list writes them, with `last`). */
void cli_help_variants_option(size_t col, const char *name, cli_variant_set set,
                              const char *last, const char *fmt);

/* ---- numbers.c: option values. Each prints its own usage error, returns -1 on failure. ---- */
/* A count: decimal digits, or a float literal that is an exact integer (1e6, 2.5e3). */
int cli_parse_count(const char *cmd, const char *opt, const char *s, uint64_t *out);
/* A seed: decimal or 0x-prefixed hexadecimal, the full 64-bit range. */
int cli_parse_seed(const char *cmd, const char *opt, const char *s, uint64_t *out);
/* A false positive rate: a finite number in (0, 1). */
int cli_parse_fpr(const char *cmd, const char *opt, const char *s, double *out);
/* A byte size: a count with an optional K/M/G/T (binary, KiB also accepted) suffix. */
int cli_parse_size(const char *cmd, const char *opt, const char *s, size_t *out);
/* A variant name; the error lists the valid ones. */
int cli_parse_variant(const char *cmd, const char *s, fl_variant *out);

/* ---- format.c: formatting ---- */
/* "1.14 MiB": binary units, three significant digits. */
void cli_human_bytes(uint64_t bytes, char *buf, size_t cap);
/* "1198128 words of 64 bits, k = 7" style description of a geometry. */
void cli_describe_geometry(const fl_geometry *g, char *buf, size_t cap);
const char *cli_hash_name(fl_hash_id h);

/* ---- kinds.c: the file kinds, one row each ---- */
/* A Redis HyperLogLog string: not a filterlab container, but a file the CLI reads. */
enum { CLI_KIND_HLL = 31 };
/* What the CLI knows of a kind: one row per public FL_FILE_* kind (and CLI_KIND_HLL). */
typedef struct cli_kind {
    const char *what;         /* "a layered Bloom filter": its name in messages */
    const char *commands;     /* the commands that read it: "'filterlab layered-count' or ..." */
} cli_kind;
/* The row of `kind` (fl_file_kind or CLI_KIND_HLL); NULL for a kind this build does not know. */
const cli_kind *cli_kind_of(uint32_t kind);
/* "a layered Bloom filter": the kind's name in messages. */
const char *cli_kind_name(uint32_t kind);
/* ---- load.c: what a file holds, failed loads (its cli_load_* calls: with files.c's) ---- */
/* The kind (fl_file_kind or CLI_KIND_HLL) of a regular file, or of a buffer; 0 when it is
 * neither (or not a regular file: a pipe is its loader's to read). errno is left alone. */
uint32_t cli_file_kind(const char *path);
uint32_t cli_mem_kind(const void *buf, size_t len);
/* "'PATH' is KIND, not WANT (use 'filterlab CMD' on it)"; returns EXIT_DATA. */
int cli_wrong_kind(const char *path, uint32_t kind, const char *want);
/* One line for a failed load of `path`, which should have held `want` ("a filter"): a file
 * of another kind is named with its commands; err is errno right after the load; max_bytes
 * the limit the load had (0: none). Returns EXIT_DATA. */
int cli_load_error(const char *path, fl_status s, int err, const char *want,
                   size_t max_bytes);
/* The same for a file that should have held `kind` (its name from kinds.c's table). */
int cli_load_kind_error(const char *path, fl_status s, int err, uint32_t kind,
                        size_t max_bytes);

/* ---- files.c: filters and files (the cli_load_* calls: load.c) ---- */
/* cli_check_filter_config (limits.c), then fl_create; on failure prints "CMD: cannot create
 * ..." and returns EXIT_DATA (out of memory) or EXIT_USAGE (the request, or its size). */
int cli_create_filter(const char *cmd, const fl_config *cfg, const cli_globals *g,
                      fl_filter **out);
/* Loads a filter; on failure prints one line and returns EXIT_DATA. */
int cli_load_filter(const char *path, size_t max_bytes, fl_filter **out);
/* Saves a filter ("-" = stdout); on failure prints one line and returns EXIT_DATA. */
int cli_save_filter(const fl_filter *f, const char *path);
/* How to save one kind of object (cli_save_object): its library's serialized_size, save_mem
 * and save_file calls, and its name in messages ("the compressed filter"). */
typedef struct cli_saver {
    const char *what;
    size_t (*serialized_size)(const void *obj);
    fl_status (*save_mem)(const void *obj, void *buf, size_t cap, size_t *written);
    fl_status (*save_file)(const void *obj, const char *path);
} cli_saver;
/* Defines `static const cli_saver NAME` for the calls PREFIX_serialized_size, PREFIX_save_mem
 * and PREFIX_save_file (PREFIX fl_cbf, fl_lbf, ...): the wrappers take const void *. */
#define CLI_SAVER(name, prefix, what_)                                                       \
    static size_t name##_size(const void *o) { return prefix##_serialized_size(o); }         \
    static fl_status name##_mem(const void *o, void *b, size_t cap, size_t *w)                \
    {                                                                                         \
        return prefix##_save_mem(o, b, cap, w);                                               \
    }                                                                                         \
    static fl_status name##_file(const void *o, const char *p)                                \
    {                                                                                         \
        return prefix##_save_file(o, p);                                                      \
    }                                                                                         \
    static const cli_saver name = {(what_), name##_size, name##_mem, name##_file}
/* Saves obj to path ("-" = stdout; a file is replaced atomically, between cli_replace_begin
 * and cli_replace_end); on failure prints one line and returns EXIT_DATA. */
int cli_save_object(const void *obj, const cli_saver *how, const char *path);
/* Scalable Bloom chains, the same way (create, load, save). */
int cli_create_sbf(const char *cmd, const fl_sbf_config *cfg, const cli_globals *g,
                   fl_sbf **out);
int cli_load_sbf(const char *path, size_t max_bytes, fl_sbf **out);
int cli_save_sbf(const fl_sbf *s, const char *path);
/* Loads a filter or a scalable chain, whichever the file holds (the other stays NULL), for
 * commands that take either; on failure prints one line and returns EXIT_DATA. */
int cli_load_any(const char *path, size_t max_bytes, fl_filter **f, fl_sbf **sbf);
/* Reads a whole file (at most `cap` bytes, else an error); "-" is stdin. */
int cli_read_file(const char *path, size_t cap, unsigned char **buf, size_t *len);
/* Writes a buffer to `path` ("-" = stdout) with fl_write_file_atomic: a failure leaves the
 * previous file as it was. On failure prints one line, returns EXIT_DATA. */
int cli_write_file(const char *path, const void *buf, size_t len);

/* ---- limits.c: sizes checked before a structure is created (see the file's comment) ---- */
/* sysconf(_SC_PHYS_PAGES) * page size; 0 if unknown. */
uint64_t cli_phys_mem(void);
/* The most bytes a new structure may take: --max-bytes (0: none) or physical memory,
 * whichever is lower; 0 = no limit. For the library's own caps (a chain's growth). */
uint64_t cli_create_limit(const cli_globals *g);
/* EXIT_OK if creating `what` ("a classic filter") of `bytes` bytes is within --max-bytes
 * and physical memory; else prints one line (the size, the limit, how to allow it) and
 * returns EXIT_USAGE. */
int cli_check_create(const char *cmd, const char *what, uint64_t bytes, const cli_globals *g);
/* The same for the payload fl_create / fl_sbf_create (first sub-filter) would allocate. */
int cli_check_filter_config(const char *cmd, const fl_config *cfg, const cli_globals *g);
int cli_check_sbf_config(const char *cmd, const fl_sbf_config *sc, const cli_globals *g);

/* ---- cleanup.c: signals around file replacement (see the file's comment) ---- */
/* Once at startup: SIGXFSZ ignored, so a file-size limit is an EFBIG write error. */
void cli_signals_init(void);
/* Around every fl_save_file / fl_write_file_atomic of `path`: SIGINT, SIGTERM and SIGHUP
 * abandon the save (the library removes its temporary); cli_replace_end, given the save's
 * status, then prints "filterlab: interrupted; PATH left unchanged" and exits 128 + the
 * signal. Without a signal it returns, and the caller reports the status. */
void cli_replace_begin(const char *path);
void cli_replace_end(fl_status s);

/* ---- output.c: standard output. All stdout output goes through these so the first write
 * error (and its errno) is remembered: EPIPE must end the run quietly, others loudly. ---- */
void cli_out_init(void);
void cli_out(const void *p, size_t n);
/* A key as every command prints it: its bytes, then '\n' (whatever ending it was read with). */
void cli_out_line(const void *p, size_t n);
void cli_outf(const char *fmt, ...) CLI_PRINTF(1, 2);
/* Nonzero once a write to stdout failed: loops stop reading input then. */
int cli_out_failed(void);
/* Flushes stdout. Returns EXIT_OK (also for EPIPE: a closed pipe is the reader's choice) or
 * EXIT_DATA after printing the error, unless `quiet` (an error was already reported). */
int cli_out_finish(int quiet);

/* ---- json.c: the --json output of the describe commands (see the file's comment) ---- */
#define CLI_JSON_DEPTH 8
typedef struct cli_json {
    int depth;                    /* 1 inside the top object */
    uint32_t count[CLI_JSON_DEPTH]; /* items written at each level */
    uint8_t array[CLI_JSON_DEPTH];  /* that level is an array */
} cli_json;
/* "{" ... "}\n". Members take their key; inside an array the key is NULL. */
void cli_json_begin(cli_json *j);
void cli_json_end(cli_json *j);
void cli_json_object(cli_json *j, const char *key);
void cli_json_array(cli_json *j, const char *key);
void cli_json_close(cli_json *j); /* the innermost object or array */
void cli_json_str(cli_json *j, const char *key, const char *s); /* NULL: null */
void cli_json_u64(cli_json *j, const char *key, uint64_t v);
void cli_json_i64(cli_json *j, const char *key, int64_t v);
void cli_json_num(cli_json *j, const char *key, double v); /* not finite: null */
void cli_json_bool(cli_json *j, const char *key, int v);
void cli_json_null(cli_json *j, const char *key);
/* {"variant", "units", "k", "description"} of a geometry. */
void cli_json_geometry(cli_json *j, const char *key, const fl_geometry *g);
/* A JSON string literal of n bytes (escaped; invalid UTF-8 as U+FFFD). */
void cli_json_string(const char *s, size_t n);

/* ---- table.c: a text table with columns padded to their widest cell ---- */
typedef struct cli_table cli_table;
cli_table *cli_table_new(size_t ncols, const char *align /* 'l' or 'r' per column */);
/* Adds a row of ncols cells (copied). An allocation failure is remembered for print. */
void cli_table_row(cli_table *t, const char *const *cells);
/* Adds a row whose first cell is aligned and whose `text` spans the remaining columns. */
void cli_table_span(cli_table *t, const char *first, const char *text);
/* Prints the table and returns EXIT_OK; if any row or cell could not be stored (out of
 * memory) prints nothing, reports it and returns EXIT_DATA. */
int cli_table_print(cli_table *t);
void cli_table_free(cli_table *t);

/* ---- progress.c: progress of long reads on a terminal (see the file's comment) ---- */
/* Once at startup: progress is shown only if stderr is a terminal and not `quiet`, nor
 * FILTERLAB_PROGRESS=0. */
void cli_progress_setup(int quiet);
/* Around a command's reading of its input: readers opened meanwhile report their lines. */
void cli_progress_start(const char *cmd);
void cli_progress_stop(void);
int cli_progress_active(void);
/* lines.c's part: an input opened (its size, if a regular file), a line read. */
void cli_progress_input(FILE *fp);
void cli_progress_line(size_t bytes);
/* Erases the progress line, if shown: before any other output on stderr. */
void cli_progress_clear(void);

/* ---- lines.c: keys are lines ---- */
typedef struct cli_lines {
    FILE *fp;
    const char *name; /* for messages: the path or "standard input" */
    int owned;        /* fp was opened here */
    char *buf;        /* getline buffer */
    size_t cap;
    uint64_t lineno;  /* lines returned so far */
    int progress;     /* lines are reported to progress.c */
} cli_lines;

/* path NULL or "-" reads stdin. On failure prints one line and returns EXIT_DATA. */
int cli_lines_open(cli_lines *r, const char *path);
/* Next key without its "\n" or "\r\n" terminator. Returns 1 with *key and *len set, 0 at end of
 * input, -1 after printing a read error. *key stays valid until the next call. */
int cli_lines_next(cli_lines *r, const char **key, size_t *len);
void cli_lines_close(cli_lines *r);

/* Adds every line of the FILE operands argv[first..argc-1] ("-" = stdin) to a sketch, or of
 * standard input when there is none and `stdin_if_none`. Returns EXIT_OK, or EXIT_DATA after
 * one line: a file that cannot be read, or an `add` that fails ("add: REASON"). */
typedef fl_status (*cli_add_line_fn)(void *sketch, const char *key, size_t len);
int cli_add_operand_lines(int argc, char **argv, int first, int stdin_if_none,
                          cli_add_line_fn add, void *sketch);
/* After a command that builds a structure from lines read none: "filterlab: warning: no keys
 * in INPUT; the WHAT is empty" on stderr (a warning: the exit status stays 0). `input` is
 * a path, NULL or "-" (standard input); `count` is how many inputs were read (several: they
 * are named together). */
void cli_warn_no_keys(const char *input, int count, const char *what);
/* Lines cli_add_operand_lines and cli_lines_next have returned in this run, all readers
 * together (for that warning). */
uint64_t cli_lines_total(void);

/* A batch of keys copied into one arena, with room for their hashes and lookup results: the
 * unit the CLI hands to fl_insert_hashes / fl_contains_hashes. */
#define CLI_BATCH 4096
#define CLI_BATCH_BYTES ((size_t)8 << 20)
typedef struct cli_batch {
    char *arena;
    size_t used, arena_cap;
    size_t off[CLI_BATCH];
    size_t len[CLI_BATCH];
    uint64_t hash[CLI_BATCH];
    uint8_t hit[CLI_BATCH];
    size_t count;
} cli_batch;

cli_batch *cli_batch_new(void);
void cli_batch_free(cli_batch *b);
/* Reads up to CLI_BATCH keys (fewer once CLI_BATCH_BYTES of key bytes are in).
 * Returns the count (0 at end), or -1 after a read error. */
long cli_batch_fill(cli_batch *b, cli_lines *r);
/* The status of a batched read once its loop has ended: `rc` as the loop left it, or
 * EXIT_DATA when the batch could not be allocated (b NULL) or the input not read (got < 0). */
int cli_batch_status(const cli_batch *b, long got, int rc);
/* The end of a batched read of `in`: cli_batch_status, then the batch freed and `in` closed. */
int cli_batch_end(cli_batch *b, long got, int rc, cli_lines *in);
/* Hashes every key of the batch with the filter's hash and seed. */
void cli_batch_hash(cli_batch *b, const fl_filter *f);
/* The same for a scalable chain: its hash (fl_sbf_hash_bytes). */
void cli_batch_hash_chain(cli_batch *b, const fl_sbf *s);
static inline const char *cli_batch_key(const cli_batch *b, size_t i) { return b->arena + b->off[i]; }
/* A batched pass over the lines of `input` (NULL or "-": standard input): step gets each
 * batch in input order and returns EXIT_OK to go on, or the exit code to stop with (having
 * reported it); the pass also stops once output has failed (the reader went away). Returns
 * EXIT_OK, step's code, cli_lines_open's, or EXIT_DATA (cli_batch_status). */
typedef int (*cli_batch_fn)(cli_batch *b, void *ctx);
int cli_batch_each(const char *input, cli_batch_fn step, void *ctx);

/* A structure's query command (vqf-query, gcf-query: `filterlab CMD FILE [--input FILE]
 * [--count]`, help from `help`): FILE loaded by load (an exit code; *obj the structure),
 * every input line through lookup, which sets b->hit[0..count) for a batch (hashing it with
 * the structure's seed) and returns its positives; the lines that hit printed in input
 * order, or with --count their number alone; the structure freed by release. */
typedef size_t (*cli_lookup_fn)(const void *obj, cli_batch *b);
typedef struct cli_query_ops {
    void (*help)(void);
    int (*load)(const char *path, size_t max_bytes, void **obj);
    cli_lookup_fn lookup;
    void (*release)(void *obj);
} cli_query_ops;
int cli_query_command(const char *cmd, int argc, char **argv, const cli_globals *g,
                      const cli_query_ops *ops);

#endif /* FL_CLI_H */
