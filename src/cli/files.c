/*
 * Filters and files: creating, saving (atomically, between cli_replace_begin and
 * cli_replace_end) and whole-file reads and writes, each failure reported in one line.
 * (Loading a file by kind: load.c.)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int cli_create_filter(const char *cmd, const fl_config *cfg, const cli_globals *g,
                      fl_filter **out)
{
    int rc = cli_check_filter_config(cmd, cfg, g);
    if (rc != EXIT_OK)
        return rc;
    fl_status s = fl_create(cfg, out);
    if (s == FL_OK)
        return EXIT_OK;
    /* Out of memory is the machine's limit; anything else is a bad size request. */
    return cli_fail(s == FL_ERR_NO_MEMORY ? EXIT_DATA : EXIT_USAGE,
                    "%s: cannot create the %s filter: %s", cmd, fl_variant_name(cfg->variant),
                    fl_strerror(s));
}

int cli_create_sbf(const char *cmd, const fl_sbf_config *cfg, const cli_globals *g,
                   fl_sbf **out)
{
    int rc = cli_check_sbf_config(cmd, cfg, g);
    if (rc != EXIT_OK)
        return rc;
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
