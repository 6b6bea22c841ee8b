/*
 * What the two static classes (FuseFilter in fuse.c, Bloomier in bloomier.c) share: how a
 * Python key becomes the 64-bit key the library's static structures take, their build
 * arguments, and the StaticInfo dataclass of an fl_static_info.
 *
 * Keys: include/filterlab_static.h takes 64-bit keys (it hashes them itself with the seed).
 * An int key is that key; a bytes/str key is XXH3-64 (seed 0) of its bytes (str: UTF-8),
 * exactly how `filterlab build-static` and `filterlab query` turn a line into a key, so a
 * structure built from the same strings answers the same in Python and on the command line.
 */
#ifndef FLPY_STATIC_SHARED_H
#define FLPY_STATIC_SHARED_H

#include "object.h"

/* One key: 0 and *out, or -1 with an exception set (TypeError for another type). */
int flpy_static_key(PyObject *obj, uint64_t *out);

/* The 64-bit key of a byte string (XXH3-64, seed 0: the CLI's line key). */
uint64_t flpy_static_bytes_key(const void *data, size_t len);

/* A batch's 64-bit keys, given to the library as they are when the input is uint64 (ints),
 * computed into tmp (the batch's hash room, allocated by flpy_batch_get for strings) when it
 * is a sequence of bytes/str. Called without the GIL. */
const uint64_t *flpy_static_keys(const flpy_keys *k, uint64_t *tmp);

/* A key set to build from, held from parsing (GIL) to building (no GIL). */
typedef struct flpy_static_input {
    flpy_keys keys;
    uint64_t *tmp; /* string keys' 64-bit keys; NULL for a uint64 input (read in place) */
} flpy_static_input;
int flpy_static_input_get(PyObject *obj, flpy_static_input *in);
void flpy_static_input_release(flpy_static_input *in);

/* The build arguments both classes take: arity (3 or 4), seed, max_tries (None/0: the
 * library's default) and max_bytes (None/0: no cap). 0, or -1 with an exception set. */
typedef struct flpy_static_args {
    uint32_t arity;
    uint64_t seed;
    uint32_t max_tries;
    size_t max_bytes;
} flpy_static_args;
int flpy_static_args_parse(PyObject *arity, PyObject *seed, PyObject *max_tries,
                           PyObject *max_bytes, flpy_static_args *out);
/* A small unsigned argument (bits, arity): *out unchanged for None/NULL. */
int flpy_static_u32_arg(PyObject *obj, uint32_t *out, const char *what);

/* The key() method of both classes (METH_O): the 64-bit key a Python key becomes. */
PyObject *flpy_static_key_method(PyObject *self, PyObject *key);

/* A structure's fl_static_info, read under the object's read lock: 0, or -1 with the
 * library's error raised. `info` adapts fl_fuse_info / fl_bloomier_info to a void * handle. */
typedef fl_status (*flpy_static_info_fn)(const void *handle, fl_static_info *out);
int flpy_static_read_info(flpy_object *self, flpy_static_info_fn info, fl_static_info *out);

/* len(): the number of keys built in (clamped to PY_SSIZE_T_MAX), or -1 with the error. */
Py_ssize_t flpy_static_len(flpy_object *self, flpy_static_info_fn info);

/* filterlab._info.StaticInfo for in, with the kernel's name. */
PyObject *flpy_static_info(const fl_static_info *in, const char *kernel);

/* The start of a static class's file: its type object Class_Type (declared), the file-format
 * adapters and prefix_bind_kernel (<lib>_bind_kernel), the table prefix_ops (no merge, no
 * clear: a static structure is built once; copies go through the file format, exact) and
 * the class methods Class_from_bytes and Class_load; then FLPY_DEFINE_STATIC_INFO_CALLS. */
#define FLPY_DEFINE_STATIC_CLASS(Class, prefix, lib, pyname)                              \
    static PyTypeObject Class##_Type;                                                     \
    FLPY_DEFINE_FORMAT_CALLS(prefix, lib, lib)                                            \
    static fl_status prefix##_bind_kernel(void *h, const char *name)                      \
    {                                                                                     \
        return lib##_bind_kernel(h, name);                                                \
    }                                                                                     \
    static const flpy_ops prefix##_ops = {                                                \
        .class_name = pyname,                                                             \
        .type = &Class##_Type,                                                            \
        FLPY_FORMAT_OPS(prefix),                                                          \
        .bind_kernel = prefix##_bind_kernel,                                              \
    };                                                                                    \
    FLPY_DEFINE_BYTES_AND_FILE_CLASSMETHODS(Class, prefix##_ops)                        \
    FLPY_DEFINE_STATIC_INFO_CALLS(Class, prefix, lib)

/* What a static class reads from <lib>_info and <lib>_kernel: prefix_info (the library call
 * on a void * handle), the info() method Class_info, len() Class_len and the kernel getter
 * Class_get_kernel. */
#define FLPY_DEFINE_STATIC_INFO_CALLS(Class, prefix, lib)                                 \
    static fl_status prefix##_info(const void *handle, fl_static_info *out)               \
    {                                                                                     \
        return lib##_info(handle, out);                                                   \
    }                                                                                     \
    static PyObject *Class##_info(flpy_object *self, PyObject *Py_UNUSED(ignored))        \
    {                                                                                     \
        fl_static_info in;                                                                \
        if (flpy_static_read_info(self, prefix##_info, &in) < 0)                          \
            return NULL;                                                                  \
        return flpy_static_info(&in, lib##_kernel(self->handle));                         \
    }                                                                                     \
    static Py_ssize_t Class##_len(flpy_object *self)                                      \
    {                                                                                     \
        return flpy_static_len(self, prefix##_info);                                      \
    }                                                                                     \
    static PyObject *Class##_get_kernel(flpy_object *self, void *Py_UNUSED(c))            \
    {                                                                                     \
        return PyUnicode_FromString(lib##_kernel(self->handle));                          \
    }

#endif
