/*
 * filterlab files: what every file the library writes shares: the file kinds, atomic
 * replacement and abandoning a save on a signal (included by filterlab.h).
 */
#ifndef FILTERLAB_FILES_H
#define FILTERLAB_FILES_H

#include <signal.h> /* sig_atomic_t */
#include <stddef.h>
#include <stdint.h>

#include "filterlab_errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a filterlab file holds, without loading it, so a program can pick the loader: the
 * kind stored in its container (format 1 files are filters). Reads the preamble and the
 * section table only. Errors: those of the loaders for the magic, the version and the table
 * (BAD_MAGIC, BAD_VERSION, TRUNCATED, CHECKSUM, CORRUPT), FL_ERR_IO; a kind this build does
 * not know is returned as it is stored. (Redis HyperLogLog strings are Redis's format, not a
 * filterlab file: fl_hll_import_redis reads them.) */
/* The file kinds, declared once: X(ID, value, what), one row per kind. FL_FILE_<ID> = value
 * is the public enum below; the container's fl_kind (src/format/container.h) is made from the
 * same rows; a program that wants a table per kind (a name, a loader, a command) expands the
 * list with its own X. `what` names the kind in a sentence ("... is a layered Bloom filter").
 * The value is stored in files: append, never renumber or reuse (3, never a kind before,
 * went to the growing cuckoo filter; 10 up are free). The loaders: FILTER fl_load_*, SCALABLE_BLOOM fl_sbf_load_*
 * (filterlab_sbf.h), COUNT_MIN fl_cms_load_* (filterlab_cms.h), BINARY_FUSE fl_fuse_load_*
 * and BLOOMIER fl_bloomier_load_* (filterlab_static.h), LAYERED_BLOOM fl_lbf_load_*
 * (filterlab_layered.h), COMPRESSED_BLOOM fl_cbf_load_* (filterlab_compressed.h),
 * VECTOR_QUOTIENT fl_vqf_load_* (filterlab_vqf.h), GROWING_CUCKOO fl_gcf_load_*
 * (filterlab_gcf.h).
 *
 * A new kind: its row at the end of this list (the only place its number is written), its
 * codec and load calls in its folder (HACKING.md, "Adding a structure"); whatever expands
 * FL_FILE_KINDS picks the row up. */
#define FL_FILE_KINDS(X)                                \
    X(FILTER, 1, "a filter")                            \
    X(SCALABLE_BLOOM, 2, "a scalable Bloom filter")     \
    X(COUNT_MIN, 4, "a Count-Min sketch")               \
    X(BINARY_FUSE, 5, "a binary fuse filter")           \
    X(BLOOMIER, 6, "a Bloomier filter")                 \
    X(LAYERED_BLOOM, 7, "a layered Bloom filter")       \
    X(COMPRESSED_BLOOM, 8, "a compressed Bloom filter")   \
    X(VECTOR_QUOTIENT, 9, "a vector quotient filter")   \
    X(GROWING_CUCKOO, 3, "a growing cuckoo filter")

typedef enum fl_file_kind {
#define FL_FILE_KIND_ENUM_(id, value, what) FL_FILE_##id = value,
    FL_FILE_KINDS(FL_FILE_KIND_ENUM_)
#undef FL_FILE_KIND_ENUM_
} fl_file_kind;
/* The five calls that save and load a structure, the same for every kind: declared for the
 * handle type `type` under `prefix` as <prefix>_serialized_size (the bytes a save writes),
 * _save_mem (FL_ERR_BUFFER_TOO_SMALL below that size; *written may be NULL), _load_mem,
 * _save_file (replaced atomically, as fl_write_file_atomic does) and _load_file. A load
 * validates the whole file before trusting any of it, refuses another kind's file with
 * FL_ERR_WRONG_KIND, and allocates at most max_bytes (0: no cap) of payload, FL_ERR_TOO_LARGE
 * above it. Each structure's header says what its max_bytes counts. */
#define FL_DECLARE_FILE_CALLS(prefix, type)                                                  \
    size_t prefix##_serialized_size(const type *obj);                                       \
    fl_status prefix##_save_mem(const type *obj, void *buf, size_t cap, size_t *written);   \
    fl_status prefix##_load_mem(const void *buf, size_t len, size_t max_bytes, type **out); \
    fl_status prefix##_save_file(const type *obj, const char *path);                        \
    fl_status prefix##_load_file(const char *path, size_t max_bytes, type **out)

fl_status fl_file_kind_mem(const void *buf, size_t len, uint32_t *kind);
fl_status fl_file_kind_file(const char *path, uint32_t *kind);

/* Replaces the file at `path` with `len` bytes of `buf` atomically; fl_save_file writes the
 * same way. The bytes go to a temporary PATH.tmp.XXXXXX in the same directory, which is
 * fsynced, given the mode of the file it replaces (a new file: 0666 less the umask) and
 * renamed over PATH; the directory is then fsynced. Readers see the old file or the whole
 * new one. On every error path the temporary is removed and the old file is untouched
 * (only SIGKILL or a crash can leave a temporary behind; the library installs no signal
 * handlers). A symbolic link is followed to its final target (at most 40 hops), which is
 * replaced the same way, so the link stays a link; a dangling link creates its target. A
 * FIFO or a device (e.g. /dev/stdout) cannot be renamed over: it is written in place, not
 * atomically. A directory is FL_ERR_IO with errno EISDIR.
 * Returns FL_OK, FL_ERR_INVALID_ARG (path NULL or empty, buf NULL with len > 0),
 * FL_ERR_NO_MEMORY, or FL_ERR_IO with errno telling the cause (ENOSPC, EFBIG, EACCES, ...). */
fl_status fl_write_file_atomic(const char *path, const void *buf, size_t len);

/* Abandoning a save on a signal. The library installs no signal handlers; a program whose
 * Ctrl-C should abandon a save (rather than wait for it, or leave a temporary behind) has
 * its own handler set a flag and hands the flag's address here. While it is nonzero, every
 * file replacement (fl_write_file_atomic, fl_save_file and the other *_save_file calls)
 * stops at its next check: between writes of at most 1 MiB, and once more after the fsync,
 * just before the rename. The temporary is then removed, the old file is left as it was,
 * and the call returns FL_ERR_INTERRUPTED (errno EINTR). A signal that lands after that
 * last check finds the new file in place (FL_OK). The library only reads the flag; the
 * caller clears it. NULL (the default) turns the checks off. Process-wide: set it before
 * other threads save. A FIFO or a device written through is abandoned the same way, with
 * what was written so far already delivered. */
fl_status fl_set_interrupt_flag(const volatile sig_atomic_t *flag);

#ifdef __cplusplus
}
#endif
#endif /* FILTERLAB_FILES_H */
