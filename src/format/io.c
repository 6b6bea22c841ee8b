/*
 * The filterlab file format: fl_save_* / fl_load_* and the file I/O behind them.
 *
 * Saves write format version 2, the container of src/format/container.c (its byte layout is
 * documented there) holding one structure of kind FL_KIND_FILTER, whose sections
 * src/format/codec_filter.c defines. Loads read version 2 and version 1, the fixed-header format
 * of earlier builds (src/format/codec_filter_v1.c, read-only).
 *
 * Both versions start with the same 8-byte magic and a u16 version; a load checks those
 * here, in this order, before it picks a reader: magic (BAD_MAGIC; a short input that is a
 * prefix of the magic is TRUNCATED), version (BAD_VERSION, TRUNCATED if cut before it).
 * A version-2 file of a kind other than a filter is FL_ERR_WRONG_KIND, once its preamble
 * and table have been validated. Memory buffers and files go through the same readers
 * (fl_in, src/format/container.h), so their statuses agree; a file's size, when it has one, is
 * checked against the header before the payload is allocated or read, and the payload is
 * read straight into the new filter.
 *
 * Any change to a layout or to a probe formula in kernels/probe.h needs a new version.
 */
#include "core/internal.h"
#include "format/codec_filter.h"
#include "format/container.h"
#include "format/kind_io.h"

/* The filter's codec (src/format/codec_filter.c, and format 1 for old files) in the shape every
 * kind's save and load share (src/format/kind_io.c). */
static fl_status write_filter(const void *obj, fl_sink *sink) {
    return fl_codec_filter_write((const fl_filter *)obj, sink);
}
static fl_status read_filter(fl_ct_reader *r, size_t max_bytes, void **out) {
    fl_filter *f = NULL;
    fl_status st = fl_codec_filter_read(r, max_bytes, &f);
    *out = f;
    return st;
}
static fl_status read_filter_v1(fl_in *in, size_t max_bytes, void **out) {
    fl_filter *f = NULL;
    fl_status st = fl_codec_filter_v1_read(in, max_bytes, &f);
    *out = f;
    return st;
}
static const fl_kind_codec filter_codec = {FL_KIND_FILTER, write_filter, read_filter,
                                           read_filter_v1};

/* ---- writing -------------------------------------------------------------------------- */

/* A filter in memory is already consistent; this guards against one that is not (a stash
 * count beyond the format's limit would otherwise be written out of bounds). */
static fl_status check_saveable(const fl_filter *f) {
    if (f->stash_count > f->desc->stash_max) return FL_ERR_INVALID_ARG;
    return FL_OK;
}

size_t fl_serialized_size(const fl_filter *f) {
    if (!f) return 0;
    return fl_codec_filter_size(f);
}

fl_status fl_save_mem(const fl_filter *f, void *buf, size_t cap, size_t *written) {
    if (written) *written = 0;
    if (!f || !buf) return FL_ERR_INVALID_ARG;
    fl_status st = check_saveable(f);
    if (st != FL_OK) return st;
    return fl_kind_save_mem(&filter_codec, f, fl_serialized_size(f), buf, cap, written);
}

/* ---- reading -------------------------------------------------------------------------- */

fl_status fl_load_mem(const void *buf, size_t len, size_t max_bytes, fl_filter **out) {
    if (out) *out = NULL;
    if (!buf || !out) return FL_ERR_INVALID_ARG;
    void *f = NULL;
    fl_status st = fl_kind_load_mem(&filter_codec, buf, len, max_bytes, &f);
    *out = f;
    return st;
}

/* ---- files ---------------------------------------------------------------------------- */

/* Atomic replace (src/format/atomic_file.c): a failure never destroys the previous file, and a
 * symbolic link's target is replaced, not written through. */
fl_status fl_save_file(const fl_filter *f, const char *path) {
    if (!f || !path || !*path) return FL_ERR_INVALID_ARG;
    fl_status st = check_saveable(f);
    if (st != FL_OK) return st;
    if (fl_serialized_size(f) == 0) return FL_ERR_TOO_LARGE;
    return fl_kind_save_file(&filter_codec, f, path);
}

/* A regular file is checked against its size before its payload is read or allocated, and
 * the payload is read straight into the new filter (no second copy in memory). */
fl_status fl_load_file(const char *path, size_t max_bytes, fl_filter **out) {
    if (out) *out = NULL;
    if (!path || !out) return FL_ERR_INVALID_ARG;
    void *f = NULL;
    fl_status st = fl_kind_load_file(&filter_codec, path, max_bytes, &f);
    *out = f;
    return st;
}
