/*
 * What every class of the filterlab extension shares: error mapping, the per-object lock,
 * key batches read through the buffer protocol, and NumPy output arrays.
 *
 * Adding a class (a structure): write python/src/<structure>.c with its flpy_ops table and
 * type object (object.h: the base and the methods every class shares) and an
 * `int flpy_add_<structure>(PyObject *module)` that readies and adds it, declare it below
 * and list it in flpy_classes[] (module.c). Nothing else in the extension changes.
 */
#ifndef FLPY_COMMON_H
#define FLPY_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdint.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL flpy_ARRAY_API
#ifndef FLPY_MODULE_C
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include "filterlab.h"

/* ---- exceptions ----------------------------------------------------------------------- */
extern PyObject *flpy_FormatError; /* filterlab.FormatError(ValueError): a bad file/string */
extern PyObject *flpy_FullError;   /* filterlab.FullError(RuntimeError): no room */
/* filterlab.BuildError(RuntimeError): a static structure's construction failed for every
 * seed tried (FL_ERR_BUILD_FAILED). */
extern PyObject *flpy_BuildError;

/* Raises the exception for status s (never FL_OK) with `what: fl_strerror(s)` and the
 * library's status name in the exception's `status` attribute; returns NULL.
 * FL_ERR_IO becomes OSError(errno, message, path) when path is given. */
PyObject *flpy_raise(fl_status s, const char *what, const char *path);

/* ---- the object lock -------------------------------------------------------------------
 * Batch calls run without the GIL, so two Python threads could otherwise run an add and a
 * lookup on one structure at once, which the library allows for lookups only (a chain that
 * grows or an HLL that turns dense reallocates under the reader). Every object holds a
 * readers-writer lock: lookups take it shared, changes exclusive. It is taken after the GIL
 * is released, or by try-lock while holding it for single keys (the cheap path), so a
 * thread waiting for it never holds the GIL that the holder needs. */
typedef struct flpy_lock {
    pthread_rwlock_t rw;
} flpy_lock;

int flpy_lock_init(flpy_lock *l);  /* -1 with MemoryError set */
void flpy_lock_destroy(flpy_lock *l);
/* Called with the GIL held; blocks with the GIL released only when contended. */
void flpy_read_lock_gil(flpy_lock *l);
void flpy_write_lock_gil(flpy_lock *l);
/* Called without the GIL. */
void flpy_read_lock(flpy_lock *l);
void flpy_write_lock(flpy_lock *l);
void flpy_unlock(flpy_lock *l);

/* ---- keys ------------------------------------------------------------------------------
 * A batch argument is one of
 *   - an object with the buffer protocol whose items are 8-byte unsigned integers (a NumPy
 *     uint64 array, array.array('Q'), memoryview): read in place when C-contiguous, copied
 *     once when strided (the one documented copy);
 *   - a sequence (list, tuple, ...) of bytes / str (UTF-8) keys, or of Python ints in
 *     [0, 2^64) (copied into a uint64 array).
 * With as_hashes the uint64 values are 64-bit hashes instead of keys (no sequence of bytes
 * then). */
enum flpy_keys_kind { FLPY_U64, FLPY_STRINGS };

typedef struct flpy_keys {
    enum flpy_keys_kind kind;
    Py_ssize_t n;
    /* FLPY_U64: the values (the buffer's memory or `owned`). */
    const uint64_t *u64;
    uint64_t *owned;
    Py_buffer view;
    int have_view;
    /* FLPY_STRINGS: pointers into the items of `items` (a tuple holding them alive). */
    PyObject *items;
    const void **ptrs;
    size_t *lens;
} flpy_keys;

/* 0 on success, -1 with an exception set (TypeError for wrong dtype/ndim/item type). */
int flpy_keys_get(PyObject *obj, int as_hashes, flpy_keys *k);
void flpy_keys_release(flpy_keys *k);

/* A uint32 batch (Count-Min increments) of exactly n items, in place or copied when strided
 * or not uint32 (then converted: values must fit). */
typedef struct flpy_u32s {
    const uint32_t *v;
    uint32_t *owned;
    Py_buffer view;
    int have_view;
} flpy_u32s;
int flpy_u32s_get(PyObject *obj, Py_ssize_t n, flpy_u32s *out);
void flpy_u32s_release(flpy_u32s *u);

/* One key for a single-key call: an int in [0, 2^64) (*is_int = 1, *u64 set), or bytes-like /
 * str (*data, *len set; the pointer lives as long as obj and the held buffer in *view, which
 * flpy_key_release frees). */
typedef struct flpy_key {
    int is_int;
    uint64_t u64;
    const void *data;
    size_t len;
    Py_buffer view;
    int have_view;
} flpy_key;
int flpy_key_get(PyObject *obj, flpy_key *k);
void flpy_key_release(flpy_key *k);

/* A batch as 64-bit hashes, computed without the GIL: the input itself when it holds hashes
 * (as_hashes), else each key hashed into tmp (n items, allocated by the caller when
 * flpy_keys_need_tmp says so): strings with hash_bytes(bytes_ctx, ...), ints with
 * hash_int(int_ctx, key). */
typedef uint64_t (*flpy_hash_bytes_fn)(const void *obj, const void *key, size_t len);
typedef uint64_t (*flpy_hash_int_fn)(const void *obj, uint64_t key);
static inline int flpy_keys_need_tmp(const flpy_keys *k, int as_hashes)
{
    return !(k->kind == FLPY_U64 && as_hashes);
}
const uint64_t *flpy_hashes(const flpy_keys *k, int as_hashes, flpy_hash_bytes_fn hash_bytes,
                            const void *bytes_ctx, flpy_hash_int_fn hash_int,
                            const void *int_ctx, uint64_t *tmp);
/* hash_int for the structures whose int keys hash as fl_hash_u64(key, seed) (scalable,
 * layered and compressed Bloom): ctx points at the uint64_t seed. */
uint64_t flpy_hash_u64_with_seed(const void *seed, uint64_t key);
/* PyMem_RawMalloc of n uint64 (at least one); NULL with MemoryError set. */
uint64_t *flpy_alloc_u64(Py_ssize_t n);

/* Parses a hash argument (int in [0, 2^64)); -1 with an exception set. */
int flpy_u64_arg(PyObject *obj, uint64_t *out, const char *what);

/* A new 1-D NumPy array of n items of type npy (NPY_BOOL, NPY_UINT32, ...). */
PyObject *flpy_new_array(Py_ssize_t n, int npy);

/* The output of a batch: a new array (out_obj None or NULL), or the caller's `out=`, a
 * writable C-contiguous 1-D buffer of n items of itemsize bytes (bool/uint8 for 1, uint16
 * for 2, uint32 for 4), written in place so repeated calls allocate nothing. *result is the object to
 * return (a new reference), *data where to write; flpy_out_release when done. */
typedef struct flpy_out {
    PyObject *result;
    void *data;
    Py_buffer view;
    int have_view;
} flpy_out;
int flpy_out_get(PyObject *out_obj, Py_ssize_t n, int npy, flpy_out *o);
void flpy_out_release(flpy_out *o);

/* A batch lookup's parts: its keys, its output and, when keys are hashed here, room for
 * the hashes (tmp, n items; NULL when the keys go to the library as they are). */
typedef struct flpy_batch {
    flpy_keys keys;
    flpy_out out;
    uint64_t *tmp;
} flpy_batch;
/* Reads the keys (flpy_keys_get), takes the output (flpy_out_get, an item per key of type
 * npy) and allocates tmp for string keys, and for int keys too when hash_ints (a structure
 * that hashes ints itself rather than taking them as keys). 0, or -1 with an exception set
 * and nothing held. */
int flpy_batch_get(PyObject *keys_obj, int as_hashes, PyObject *out_obj, int npy, int hash_ints,
                   flpy_batch *b);
/* Releases the batch; returns its output (a new reference) when s is FL_OK, else raises
 * `what: ...` for s and returns NULL. */
PyObject *flpy_batch_finish(flpy_batch *b, fl_status s, const char *what);


/* Calls filterlab._info.<cls>(**kwargs) (the dataclasses live in Python). Steals kwargs. */
PyObject *flpy_make_info(const char *cls, PyObject *kwargs);
/* Sets key in dict d to the new reference v (steals v); -1 on error. */
int flpy_set(PyObject *d, const char *key, PyObject *v);

/* hash= argument: None (the variant default), "xxh3" or "xxh64". */
int flpy_parse_hash(PyObject *obj, fl_hash_id *out);

/* Kernel name argument: None or str ("auto" unbinds). Returns 0 and *name (NULL for None). */
int flpy_kernel_name(PyObject *obj, const char **name);

/* ---- the classes ---------------------------------------------------------------------- */
int flpy_add_filter(PyObject *m);
int flpy_add_sbf(PyObject *m);
int flpy_add_cms(PyObject *m);
int flpy_add_hll(PyObject *m);
int flpy_add_fuse(PyObject *m);
int flpy_add_bloomier(PyObject *m);
int flpy_add_layered(PyObject *m);
int flpy_add_compressed(PyObject *m);

/* filterlab.Filter for classes that take or return one (filter.c): its type, and a new
 * Filter owning f (freed on failure). */
PyTypeObject *flpy_filter_type(void);
PyObject *flpy_filter_wrap(fl_filter *f);

#endif
