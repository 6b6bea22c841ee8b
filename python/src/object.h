/*
 * The base every class object of the extension starts with, and the methods that are the
 * same for every structure once its library calls are known: wrapping a library handle,
 * dealloc, bytes and files (to_bytes, from_bytes, save, load, pickling), copy, merge (the
 * method, `|` and `|=`), clear, bind_kernel and bound_kernel. Each structure lists its
 * library calls in one flpy_ops table; its own file keeps only what is specific to it.
 *
 * Adding a class: an object struct whose first member is an flpy_object (or flpy_object
 * itself), an flpy_ops table with the structure's calls (adapters taking void *), and the
 * generic methods below in its method table. Class methods (from_bytes, load) and the
 * number slots (| and |=) get the class's table from a one-line wrapper in its file
 * (FLPY_DEFINE_BYTES_AND_FILE_CLASSMETHODS writes from_bytes and load; the file-format
 * adapters of the table come from FLPY_DEFINE_FORMAT_CALLS).
 */
#ifndef FLPY_OBJECT_H
#define FLPY_OBJECT_H

#include "keys.h"

typedef struct flpy_ops flpy_ops;

typedef struct flpy_object {
    PyObject_HEAD
    void *handle;        /* the library object: fl_filter *, fl_cms *, ... */
    const flpy_ops *ops; /* its structure's calls */
    flpy_lock lock;
    PyObject *bound;     /* the kernel name bound with bind_kernel, or None */
} flpy_object;

/* The object of a class that keeps its structure's hash seed, read once at creation (to
 * hash int keys as the library does, without a lock): Filter, ScalableBloom and
 * CompressedBloom. FLPY_DEFINE_SEED_INIT(prefix, info_type, get_info) writes its flpy_ops
 * init, prefix_init, reading the seed from get_info(handle, &info_type). */
typedef struct flpy_seeded_object {
    flpy_object base;
    uint64_t seed;
} flpy_seeded_object;

#define FLPY_DEFINE_SEED_INIT(prefix, info_type, get_info)                                \
    static void prefix##_init(flpy_object *self)                                          \
    {                                                                                     \
        info_type in;                                                                     \
        get_info(self->handle, &in);                                                      \
        ((flpy_seeded_object *)self)->seed = in.seed;                                     \
    }

/* A library batch call on 64-bit hashes into a bool array (out: n bytes). */
typedef fl_status (*flpy_hashes_call)(void *handle, const uint64_t *hashes, size_t n,
                                      uint8_t *out);
/* A seeded class's batch (ScalableBloom, CompressedBloom): (keys, *, hashes, out) parsed
 * with `format`, the keys hashed as the library hashes them (strings with hash_bytes, ints
 * fl_hash_u64 with the seed), then `call` under the object's lock (exclusive when write),
 * all without the GIL. Returns the bool array, or raises `what` (what_unsupported instead
 * for FL_ERR_UNSUPPORTED when given). */
PyObject *flpy_seeded_batch(flpy_seeded_object *self, PyObject *args, PyObject *kw,
                            const char *format, int write, flpy_hash_bytes_fn hash_bytes,
                            flpy_hashes_call call, const char *what,
                            const char *what_unsupported);

typedef fl_status (*flpy_load_mem_fn)(const void *buf, size_t len, size_t max_bytes,
                                      void **out);

/* A structure's library calls, adapted to void * handles. A NULL entry means the structure
 * has no such call; the generic method that needs it is then not in its method table. */
struct flpy_ops {
    const char *class_name; /* "Filter", for "merge takes a Filter, not ..." */
    PyTypeObject *type;     /* what merge, | and |= accept */
    void (*free)(void *h);
    /* Fills the fields of a new object that follow its flpy_object (NULL: there are none). */
    void (*init)(flpy_object *self);
    size_t (*serialized_size)(const void *h);
    fl_status (*save_mem)(const void *h, void *buf, size_t cap, size_t *written);
    flpy_load_mem_fn load_mem;
    fl_status (*save_file)(const void *h, const char *path);
    fl_status (*load_file)(const char *path, size_t max_bytes, void **out);
    /* A copy that keeps the kernel binding (NULL: copy through save_mem and load_mem, the
     * file format being exact, and bind the copy to the original's kernel). */
    fl_status (*clone)(const void *h, void **out);
    fl_status (*merge)(void *dst, const void *src);
    fl_status (*clear)(void *h);
    fl_status (*bind_kernel)(void *h, const char *name);
    /* Pickling: __reduce__ returns (type.<pickle_ctor>, (pickle_state(self),)). */
    PyObject *(*pickle_state)(flpy_object *self, PyObject *ignored);
    const char *pickle_ctor;
};

/* Wraps a new library handle in an object of `type` (takes ownership; frees it on
 * failure). */
PyObject *flpy_wrap(PyTypeObject *type, const flpy_ops *ops, void *handle);
void flpy_dealloc(flpy_object *self);

/* Readies `type` and adds it to module m under its name (tp_name after "filterlab."). */
int flpy_add_type(PyObject *m, PyTypeObject *type);
/* A class's `int flpy_add_<name>(PyObject *m)` (FLPY_CLASSES, common.h): adds Class_Type. */
#define FLPY_DEFINE_ADD(name, Class)                                                      \
    int flpy_add_##name(PyObject *m) { return flpy_add_type(m, &Class##_Type); }

/* max_bytes argument: None/absent is 0 (no cap); larger than size_t is SIZE_MAX. */
int flpy_parse_max_bytes(PyObject *obj, size_t *out);

/* Instance methods, for the method tables as they stand. */
PyObject *flpy_to_bytes(flpy_object *self, PyObject *ignored);
PyObject *flpy_save(flpy_object *self, PyObject *path_obj);
PyObject *flpy_reduce(flpy_object *self, PyObject *ignored);
PyObject *flpy_copy(flpy_object *self, PyObject *ignored);
PyObject *flpy_merge(flpy_object *self, PyObject *other);
PyObject *flpy_clear(flpy_object *self, PyObject *ignored);
PyObject *flpy_bind_kernel(flpy_object *self, PyObject *arg);
PyObject *flpy_get_bound(flpy_object *self, void *closure);

/* Class methods and number slots: called by the class's wrapper with its table. */
PyObject *flpy_from_bytes(const flpy_ops *ops, PyObject *cls, PyObject *args, PyObject *kw);
/* from_bytes with another reader: `format` is the PyArg format ("y*|O:<name>"). */
PyObject *flpy_from_buffer_with(const flpy_ops *ops, PyObject *cls, PyObject *args,
                                PyObject *kw, const char *format, const char *what,
                                flpy_load_mem_fn load);
PyObject *flpy_load(const flpy_ops *ops, PyObject *cls, PyObject *args, PyObject *kw);
PyObject *flpy_or(const flpy_ops *ops, PyObject *a, PyObject *b);
PyObject *flpy_ior(const flpy_ops *ops, PyObject *a, PyObject *b);

/* The file-format adapters of a structure whose library calls follow the naming of
 * include/filterlab*.h: <lib>_free, <lib>_serialized_size, <lib>_save_mem, <lib>_load_mem,
 * <lib>_save_file and <lib>_load_file on a `handle_type *`. Defines static <prefix>_free,
 * <prefix>_serialized_size, <prefix>_save_mem, <prefix>_load_mem, <prefix>_save_file and
 * <prefix>_load_file for the flpy_ops table. A macro because C cannot form the library's
 * function names otherwise, and casting the library's typed functions to the table's
 * void * signatures would be undefined behaviour. */
#define FLPY_DEFINE_FORMAT_CALLS(prefix, lib, handle_type)                                 \
    static void prefix##_free(void *h) { lib##_free(h); }                                 \
    static size_t prefix##_serialized_size(const void *h)                                 \
    {                                                                                     \
        return lib##_serialized_size(h);                                                  \
    }                                                                                     \
    static fl_status prefix##_save_mem(const void *h, void *buf, size_t cap,              \
                                       size_t *written)                                   \
    {                                                                                     \
        return lib##_save_mem(h, buf, cap, written);                                      \
    }                                                                                     \
    static fl_status prefix##_load_mem(const void *buf, size_t len, size_t max_bytes,     \
                                       void **out)                                        \
    {                                                                                     \
        return lib##_load_mem(buf, len, max_bytes, (handle_type **)out);                  \
    }                                                                                     \
    static fl_status prefix##_save_file(const void *h, const char *path)                  \
    {                                                                                     \
        return lib##_save_file(h, path);                                                  \
    }                                                                                     \
    static fl_status prefix##_load_file(const char *path, size_t max_bytes, void **out)   \
    {                                                                                     \
        return lib##_load_file(path, max_bytes, (handle_type **)out);                     \
    }

/* The ops-table entries of a structure whose adapters FLPY_DEFINE_FORMAT_CALLS wrote, and
 * its pickling through the file format (__reduce__ gives type.from_bytes(to_bytes())). */
#define FLPY_FORMAT_OPS(prefix)                                                           \
    .free = prefix##_free, .serialized_size = prefix##_serialized_size,                   \
    .save_mem = prefix##_save_mem, .load_mem = prefix##_load_mem,                         \
    .save_file = prefix##_save_file, .load_file = prefix##_load_file,                     \
    .pickle_state = flpy_to_bytes, .pickle_ctor = "from_bytes"

/* The class methods from_bytes and load of a class (Class_from_bytes, Class_load), each a
 * call of the generic one with the class's ops table. A macro for the same reason: a
 * METH_CLASS method gets no pointer to the table, so each class needs its own function. */
#define FLPY_DEFINE_BYTES_AND_FILE_CLASSMETHODS(Class, ops)                               \
    static PyObject *Class##_from_bytes(PyObject *cls, PyObject *args, PyObject *kw)      \
    {                                                                                     \
        return flpy_from_bytes(&(ops), cls, args, kw);                                    \
    }                                                                                     \
    static PyObject *Class##_load(PyObject *cls, PyObject *args, PyObject *kw)            \
    {                                                                                     \
        return flpy_load(&(ops), cls, args, kw);                                          \
    }

/* ---- a class's type object and method table -------------------------------------------
 * What every class's type object and method table spell alike, written once here; each
 * class passes only its names and docstrings (which differ per class and stay its own). */

/* The merge operators `|` and `|=` of a class with a merge call: Class_or, Class_ior and
 * the number slots Class_as_number that hold them. */
#define FLPY_DEFINE_MERGE_OPERATORS(Class, ops)                                           \
    static PyObject *Class##_or(PyObject *a, PyObject *b) { return flpy_or(&(ops), a, b); } \
    static PyObject *Class##_ior(PyObject *a, PyObject *b)                                \
    {                                                                                     \
        return flpy_ior(&(ops), a, b);                                                    \
    }                                                                                     \
    static PyNumberMethods Class##_as_number = {                                          \
        .nb_or = Class##_or,                                                              \
        .nb_inplace_or = Class##_ior,                                                     \
    };

/* The type-object fields every class sets alike: "filterlab.<pyname>", an object of
 * Object, the shared dealloc, Class_repr, subclassable, the methods Class_methods and the
 * constructor Class_new. The class adds its tp_doc, slots and getters. */
#define FLPY_TYPE_FIELDS(Class, Object, pyname)                                           \
    PyVarObject_HEAD_INIT(NULL, 0)                                                        \
    .tp_name = "filterlab." pyname,                                                       \
    .tp_basicsize = sizeof(Object),                                                       \
    .tp_dealloc = (destructor)flpy_dealloc,                                               \
    .tp_repr = (reprfunc)Class##_repr,                                                    \
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,                                 \
    .tp_methods = Class##_methods,                                                        \
    .tp_new = Class##_new

/* Method-table rows of the shared methods, each with the class's docstring. */
#define FLPY_MERGE_METHOD(doc) {"merge", (PyCFunction)flpy_merge, METH_O, doc}
#define FLPY_COPY_METHOD(doc) {"copy", (PyCFunction)flpy_copy, METH_NOARGS, doc}
#define FLPY_CLEAR_METHOD(doc) {"clear", (PyCFunction)flpy_clear, METH_NOARGS, doc}
#define FLPY_BIND_KERNEL_METHOD(doc) {"bind_kernel", (PyCFunction)flpy_bind_kernel, METH_O, doc}
/* The getter row of bound_kernel (for the class's PyGetSetDef table). */
#define FLPY_BOUND_KERNEL_GETTER(doc) {"bound_kernel", (getter)flpy_get_bound, NULL, doc, NULL}
/* Pickling, and the end of the table. */
#define FLPY_REDUCE_METHOD_AND_END                                                        \
    {"__reduce__", (PyCFunction)flpy_reduce, METH_NOARGS, NULL}, {NULL, NULL, 0, NULL}
/* to_bytes, from_bytes, save and load, in that order: the file-format methods of a class
 * whose class methods FLPY_DEFINE_BYTES_AND_FILE_CLASSMETHODS(Class, ...) wrote. */
#define FLPY_FILE_METHODS(Class, to_bytes_doc, from_bytes_doc, save_doc, load_doc)        \
    {"to_bytes", (PyCFunction)flpy_to_bytes, METH_NOARGS, to_bytes_doc},                  \
    {"from_bytes", (PyCFunction)(void (*)(void))Class##_from_bytes,                       \
     METH_VARARGS | METH_KEYWORDS | METH_CLASS, from_bytes_doc},                          \
    {"save", (PyCFunction)flpy_save, METH_O, save_doc},                                   \
    {"load", (PyCFunction)(void (*)(void))Class##_load,                                   \
     METH_VARARGS | METH_KEYWORDS | METH_CLASS, load_doc}

#endif
