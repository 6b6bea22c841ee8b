/*
 * Saving and loading a structure of any kind (src/format/container.h's fl_kind), in memory and in
 * files: the parts every kind's public save/load calls share, so a kind's codec only encodes
 * and decodes its sections. Not installed.
 */
#ifndef FL_KIND_IO_H
#define FL_KIND_IO_H

#include "format/container.h"
#include "core/internal.h"

#pragma GCC visibility push(hidden)

/* Streams one structure's whole file (the container and its sections) through a sink. */
typedef fl_status (*fl_kind_write_fn)(const void *obj, fl_sink *sink);
/* Decodes one structure from a container already opened and of the expected kind. */
typedef fl_status (*fl_kind_read_fn)(fl_ct_reader *r, size_t max_bytes, void **out);
/* Decodes a format-1 file (filters only, format 1 had no kinds); NULL for the other kinds,
 * whose loaders then call a format-1 file FL_ERR_WRONG_KIND. */
typedef fl_status (*fl_kind_read_v1_fn)(fl_in *in, size_t max_bytes, void **out);

typedef struct fl_kind_codec {
    fl_kind kind;
    fl_kind_write_fn write;
    fl_kind_read_fn read;
    fl_kind_read_v1_fn read_v1;
} fl_kind_codec;

/* Magic, version and (format 2) the container's preamble and table: *version, and *kind
 * (FL_KIND_FILTER for format 1). The reader r is open on success for a format-2 file. */
fl_status fl_kind_open(fl_in *in, fl_ct_reader *r, uint16_t *version, uint32_t *kind);

/* Writes obj into buf (cap bytes) whose encoding the kind's own size call puts at need
 * bytes: TOO_LARGE if need is 0 (it overflowed size_t), BUFFER_TOO_SMALL if cap is under it;
 * *written (if given) is need on success and left alone otherwise, the public calls having
 * zeroed it. */
fl_status fl_kind_save_mem(const fl_kind_codec *c, const void *obj, size_t need, void *buf,
                           size_t cap, size_t *written);
/* Atomic replace (src/format/atomic_file.c) with the file streamed through a bounce buffer that is
 * both hashed and written, so checksums match the bytes on disk even while atomic inserts
 * on another thread change the structure. */
fl_status fl_kind_save_file(const fl_kind_codec *c, const void *obj, const char *path);
/* Magic, version, container, kind, then the codec's reader; each failure its own status. */
fl_status fl_kind_load_mem(const fl_kind_codec *c, const void *buf, size_t len,
                           size_t max_bytes, void **out);
/* The same from a file: regular files are checked against their size from fstat before a
 * payload is allocated; a pipe is read as a stream and its end checked after. */
fl_status fl_kind_load_file(const fl_kind_codec *c, const char *path, size_t max_bytes,
                            void **out);

#pragma GCC visibility pop

#endif
