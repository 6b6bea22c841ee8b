/*
 * The keys a call takes and the array a batch call returns: what every class's add,
 * contains and *_many methods read their arguments with (keys.c).
 */
#ifndef FLPY_KEYS_H
#define FLPY_KEYS_H

#include "common.h"

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
/* The arguments (keys, *, hashes=False) of a batch call, parsed with `format` ("O|$p:<name>")
 * and read by flpy_keys_get into *k; *as_hashes is the hashes flag. 0, or -1 with an
 * exception set and nothing held. Inline, as are flpy_batch_from_args's: a batch call costs
 * what its own argument parsing did. */
static inline int flpy_keys_from_args(PyObject *args, PyObject *kw, const char *format,
                                      flpy_keys *k, int *as_hashes)
{
    static char *kwlist[] = {"keys", "hashes", NULL};
    PyObject *obj;
    *as_hashes = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, format, kwlist, &obj, as_hashes))
        return -1;
    return flpy_keys_get(obj, *as_hashes, k);
}

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
/* flpy_batch_get for the arguments (keys, *, hashes=False, out=None) of a batch lookup,
 * parsed with `format` ("O|$pO:<name>"), *as_hashes set to the hashes flag; or, with
 * as_hashes NULL, for (keys, *, out=None) ("O|$O:<name>": the static classes, whose keys
 * are never hashes). */
static inline int flpy_batch_from_args(PyObject *args, PyObject *kw, const char *format,
                                       int npy, int hash_ints, flpy_batch *b,
                                       int *as_hashes)
{
    static char *kwlist[] = {"keys", "hashes", "out", NULL};
    static char *kwlist_no_hashes[] = {"keys", "out", NULL};
    PyObject *obj, *out_obj = Py_None;
    int hashes = 0;
    if (!(as_hashes != NULL ? PyArg_ParseTupleAndKeywords(args, kw, format, kwlist, &obj,
                                                          &hashes, &out_obj)
                            : PyArg_ParseTupleAndKeywords(args, kw, format, kwlist_no_hashes,
                                                          &obj, &out_obj)))
        return -1;
    if (as_hashes != NULL)
        *as_hashes = hashes;
    return flpy_batch_get(obj, hashes, out_obj, npy, hash_ints, b);
}

#endif
