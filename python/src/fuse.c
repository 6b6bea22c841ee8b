/*
 * filterlab.FuseFilter: a binary fuse filter (include/filterlab_static.h; Graf and Lemire
 * 2022), built once from a whole key set and read-only afterwards: no false negatives,
 * false positives at 2^-fingerprint_bits, about 1.13 (3-wise) or 1.08 (4-wise) times
 * fingerprint_bits bits per key. Keys become 64-bit keys as static_shared.h says.
 */
#include "static_shared.h"

/* handle: the fl_fuse. */
typedef flpy_object FuseObject;

FLPY_DEFINE_STATIC_CLASS(Fuse, fuse, fl_fuse, "FuseFilter")

static PyObject *Fuse_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"keys", "arity", "fingerprint_bits", "seed", "max_tries",
                             "max_bytes", NULL};
    PyObject *keys_obj, *arity = NULL, *bits_obj = NULL, *seed = NULL, *tries = NULL;
    PyObject *max_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OOOOO:FuseFilter", kwlist, &keys_obj,
                                     &arity, &bits_obj, &seed, &tries, &max_obj))
        return NULL;
    flpy_static_args a;
    uint32_t bits = 8;
    if (flpy_static_args_parse(arity, seed, tries, max_obj, &a) < 0 ||
        flpy_static_u32_arg(bits_obj, &bits, "fingerprint_bits") < 0)
        return NULL;
    if (bits != 8 && bits != 16) {
        PyErr_Format(PyExc_ValueError, "fingerprint_bits must be 8 or 16, not %u", bits);
        return NULL;
    }
    flpy_static_input in;
    if (flpy_static_input_get(keys_obj, &in) < 0)
        return NULL;
    fl_fuse_config cfg = {.arity = a.arity, .fingerprint_bits = bits, .seed = a.seed,
                          .max_tries = a.max_tries, .max_bytes = a.max_bytes};
    fl_fuse *f = NULL;
    fl_status s;
    Py_BEGIN_ALLOW_THREADS
    const uint64_t *keys = flpy_static_keys(&in.keys, in.tmp);
    s = fl_fuse_build_u64(&cfg, keys, (size_t)in.keys.n, &f);
    Py_END_ALLOW_THREADS
    flpy_static_input_release(&in);
    if (s != FL_OK)
        return flpy_raise(s, "FuseFilter", NULL);
    return flpy_wrap(type, &fuse_ops, f);
}

/* 1 if key may be in the set, 0 if not, -1 with an exception set (a key of another type). */
static int contains_key(FuseObject *self, PyObject *key)
{
    uint64_t k;
    if (flpy_static_key(key, &k) < 0)
        return -1;
    flpy_read_lock_gil(&self->lock);
    int r = fl_fuse_contains_u64(self->handle, k);
    flpy_unlock(&self->lock);
    return r;
}

static PyObject *Fuse_contains(FuseObject *self, PyObject *key)
{
    int r = contains_key(self, key);
    return r < 0 ? NULL : PyBool_FromLong(r);
}

static int Fuse_sq_contains(FuseObject *self, PyObject *key)
{
    return contains_key(self, key);
}

static PyObject *Fuse_contains_many(FuseObject *self, PyObject *args, PyObject *kw)
{
    flpy_batch b;
    if (flpy_batch_from_args(args, kw, "O|$O:contains_many", NPY_BOOL, 0, &b, NULL) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    const uint64_t *keys = flpy_static_keys(&b.keys, b.tmp);
    flpy_read_lock(&self->lock);
    fl_fuse_contains_u64s(self->handle, keys, (size_t)b.keys.n, b.out.data);
    flpy_unlock(&self->lock);
    Py_END_ALLOW_THREADS
    return flpy_batch_finish(&b, FL_OK, "contains_many");
}

static PyObject *Fuse_repr(FuseObject *self)
{
    fl_static_info in;
    if (flpy_static_read_info(self, fuse_info, &in) < 0)
        return NULL;
    return PyUnicode_FromFormat("<filterlab.FuseFilter %u-wise, %u-bit fingerprints, %llu keys, "
                                "%zu bytes>",
                                in.arity, in.cell_bits, (unsigned long long)in.keys, in.bytes);
}

static PyMethodDef Fuse_methods[] = {
    {"contains", (PyCFunction)Fuse_contains, METH_O,
     "contains(key) -> bool\n--\n\nTrue if key may be in the set (every built key is; another "
     "key with probability 2**-fingerprint_bits); `key in f` is the same."},
    {"contains_many", (PyCFunction)(void (*)(void))Fuse_contains_many,
     METH_VARARGS | METH_KEYWORDS,
     "contains_many(keys, *, out=None) -> numpy.ndarray[bool]\n--\n\nLooks up a batch (a "
     "uint64 array read in place, or a sequence of bytes/str/ints) with the GIL released; "
     "out= is a bool/uint8 array written in place."},
    {"key", (PyCFunction)flpy_static_key_method, METH_O,
     "key(key) -> int\n--\n\nThe 64-bit key the filter stores for key: an int as it is, "
     "bytes/str XXH3-64 (seed 0) of the bytes (UTF-8), as `filterlab build-static` hashes "
     "lines. An array of these gives the same answers as the strings."},
    {"info", (PyCFunction)Fuse_info, METH_NOARGS,
     "info() -> StaticInfo\n--\n\nGeometry, keys, bytes, bits per key, FPR, and the build's "
     "tries, seconds and peak memory (0 after a load)."},
    FLPY_COPY_METHOD("copy()\n--\n\nAn independent copy."),
    FLPY_FILE_METHODS(Fuse,
      "to_bytes() -> bytes\n--\n\nThe filterlab file (kind binary fuse), as save() writes it.",
      "from_bytes(data, max_bytes=0)\n--\n\nA filter from to_bytes() output, validated "
      "(FormatError if bad); max_bytes caps the cell array allocated.",
      "save(path)\n--\n\nWrites the filter file (readable by `filterlab query` and `info`).",
      "load(path, max_bytes=0)\n--\n\nReads a filter file (e.g. from `filterlab build-static "
      "--type fuse`)."),
    FLPY_BIND_KERNEL_METHOD(
      "bind_kernel(name)\n--\n\nRuns this filter's lookups on kernel name; None or 'auto' "
      "unbinds."),
    FLPY_REDUCE_METHOD_AND_END,
};

static PyGetSetDef Fuse_getset[] = {
    {"kernel", (getter)Fuse_get_kernel, NULL, "The kernel this filter's lookups use.", NULL},
    FLPY_BOUND_KERNEL_GETTER("The kernel bound, or None."),
    {NULL, NULL, NULL, NULL, NULL},
};

static PySequenceMethods Fuse_as_sequence = {
    .sq_length = (lenfunc)Fuse_len,
    .sq_contains = (objobjproc)Fuse_sq_contains,
};

static PyTypeObject Fuse_Type = {
    FLPY_TYPE_FIELDS(Fuse, FuseObject, "FuseFilter"),
    .tp_as_sequence = &Fuse_as_sequence,
    .tp_doc = "FuseFilter(keys, *, arity=3, fingerprint_bits=8, seed=0, max_tries=100, "
              "max_bytes=None)\n--\n\n"
              "A binary fuse filter (Graf and Lemire 2022) of a whole key set: a uint64 array "
              "(read in place) or a sequence of bytes/str/ints. Static: no adds afterwards. "
              "No false negatives; FPR 2**-fingerprint_bits (8 or 16) in about 1.13 (arity 3) "
              "or 1.08 (arity 4) x fingerprint_bits bits per key. Duplicate keys are stored "
              "once. Construction runs with the GIL released, from `seed`, trying the next "
              "seed up to max_tries times; BuildError if all fail. len() is the number of "
              "distinct keys.",
    .tp_getset = Fuse_getset,
};

FLPY_DEFINE_ADD(fuse, Fuse)
