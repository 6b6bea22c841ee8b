/*
 * Atomic file replacement, shared by fl_save_file (src/format/io.c) and fl_write_file_atomic.
 * Not installed.
 */
#ifndef FL_ATOMIC_FILE_H
#define FL_ATOMIC_FILE_H

#include "filterlab.h"

#pragma GCC visibility push(hidden)

/* Writes the whole content to fd. Returns FL_OK, FL_ERR_IO with errno set, or
 * FL_ERR_NO_MEMORY when a buffer of its own could not be allocated. */
typedef fl_status (*fl_content_writer)(int fd, void *ctx);

/* write(2) until done; EINTR and short writes are retried. FL_ERR_IO with errno set, or
 * FL_ERR_INTERRUPTED once the flag of fl_set_interrupt_flag is set. */
fl_status fl_write_all(int fd, const void *buf, size_t n);

/* Replaces `path` with what `write` produces, following the policy documented at
 * fl_write_file_atomic in include/filterlab.h. */
fl_status fl_replace_file(const char *path, fl_content_writer write, void *ctx);

#pragma GCC visibility pop

#endif
