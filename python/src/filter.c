/*
 * filterlab.Filter: every fl_filter variant (classic, block512, split256, reg64, cuckoo,
 * counting, counting512) behind one class; what a variant can do comes from
 * fl_variant_describe, never from a switch here.
 */
#include "object.h"

/* handle: the fl_filter. */
typedef flpy_seeded_object FilterObject;

static PyTypeObject Filter_Type;

/* ---- the library calls the shared methods use (object.h) ------------------------------ */

FLPY_DEFINE_FORMAT_CALLS(filter, fl, fl_filter)

FLPY_DEFINE_SEED_INIT(filter, fl_info, fl_get_info)

static fl_status filter_parquet_import(const void *buf, size_t len, size_t max_bytes,
                                       void **out)
{
    return fl_parquet_import(buf, len, max_bytes, (fl_filter **)out);
}

static fl_status filter_union(void *dst, const void *src) { return fl_union(dst, src); }

static fl_status filter_clear(void *f)
{
    fl_clear(f);
    return FL_OK;
}

static fl_status filter_bind_kernel(void *f, const char *name)
{
    return fl_filter_bind_kernel(f, name);
}

/* No clone call in the library: copies go through the file format, which is exact. */
static const flpy_ops filter_ops = {
    .class_name = "Filter",
    .type = &Filter_Type,
    FLPY_FORMAT_OPS(filter),
    .init = filter_init,
    .merge = filter_union,
    .clear = filter_clear,
    .bind_kernel = filter_bind_kernel,
};

FLPY_DEFINE_BYTES_AND_FILE_CLASSMETHODS(Filter, filter_ops)

static PyObject *Filter_from_parquet(PyObject *cls, PyObject *args, PyObject *kw)
{
    return flpy_from_buffer_with(&filter_ops, cls, args, kw, "y*|O:from_parquet",
                                 "from_parquet", filter_parquet_import);
}

FLPY_DEFINE_MERGE_OPERATORS(Filter, filter_ops)

static PyObject *Filter_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    fl_config cfg;
    if (flpy_filter_config(args, kw, &cfg) < 0)
        return NULL;
    fl_filter *f = NULL;
    fl_status s;
    Py_BEGIN_ALLOW_THREADS
    s = fl_create(&cfg, &f);
    Py_END_ALLOW_THREADS
    if (s != FL_OK)
        return flpy_raise(s, "Filter", NULL);
    return flpy_wrap(type, &filter_ops, f);
}

/* ---- single keys ---------------------------------------------------------------------- */

static fl_status insert_one(FilterObject *self, const flpy_key *k)
{
    return k->is_int ? fl_insert_u64(self->base.handle, k->u64)
                     : fl_insert_bytes(self->base.handle, k->data, k->len);
}

static fl_status delete_one(FilterObject *self, const flpy_key *k)
{
    return k->is_int ? fl_delete_u64(self->base.handle, k->u64)
                     : fl_delete_bytes(self->base.handle, k->data, k->len);
}

/* add and delete: one key changed under the write lock; `what` names the call in errors. */
static PyObject *change_key(FilterObject *self, PyObject *key,
                            fl_status (*change)(FilterObject *, const flpy_key *),
                            const char *what)
{
    flpy_key k;
    if (flpy_key_get(key, &k) < 0)
        return NULL;
    flpy_write_lock_gil(&self->base.lock);
    fl_status s = change(self, &k);
    flpy_unlock(&self->base.lock);
    flpy_key_release(&k);
    if (s != FL_OK)
        return flpy_raise(s, what, NULL);
    Py_RETURN_NONE;
}

/* add_hash and delete_hash: the same for a precomputed hash. */
static PyObject *change_hash(FilterObject *self, PyObject *arg,
                             fl_status (*change)(fl_filter *, uint64_t), const char *what)
{
    uint64_t h;
    if (flpy_u64_arg(arg, &h, "hash") < 0)
        return NULL;
    flpy_write_lock_gil(&self->base.lock);
    fl_status s = change(self->base.handle, h);
    flpy_unlock(&self->base.lock);
    if (s != FL_OK)
        return flpy_raise(s, what, NULL);
    Py_RETURN_NONE;
}

static PyObject *Filter_add(FilterObject *self, PyObject *key)
{
    return change_key(self, key, insert_one, "add");
}

static PyObject *Filter_add_hash(FilterObject *self, PyObject *arg)
{
    return change_hash(self, arg, fl_insert_hash, "add_hash");
}

static int contains_key(FilterObject *self, PyObject *key)
{
    flpy_key k;
    if (flpy_key_get(key, &k) < 0)
        return -1;
    flpy_read_lock_gil(&self->base.lock);
    int r = k.is_int ? fl_contains_u64(self->base.handle, k.u64)
                     : fl_contains_bytes(self->base.handle, k.data, k.len);
    flpy_unlock(&self->base.lock);
    flpy_key_release(&k);
    return r;
}

static PyObject *Filter_contains(FilterObject *self, PyObject *key)
{
    int r = contains_key(self, key);
    if (r < 0)
        return NULL;
    return PyBool_FromLong(r);
}

static int Filter_sq_contains(FilterObject *self, PyObject *key)
{
    return contains_key(self, key);
}

static PyObject *Filter_contains_hash(FilterObject *self, PyObject *arg)
{
    uint64_t h;
    if (flpy_u64_arg(arg, &h, "hash") < 0)
        return NULL;
    flpy_read_lock_gil(&self->base.lock);
    int r = fl_contains_hash(self->base.handle, h);
    flpy_unlock(&self->base.lock);
    return PyBool_FromLong(r);
}

static PyObject *Filter_delete(FilterObject *self, PyObject *key)
{
    return change_key(self, key, delete_one, "delete");
}

static PyObject *Filter_delete_hash(FilterObject *self, PyObject *arg)
{
    return change_hash(self, arg, fl_delete_hash, "delete_hash");
}

static PyObject *Filter_hash(FilterObject *self, PyObject *key)
{
    flpy_key k;
    if (flpy_key_get(key, &k) < 0)
        return NULL;
    uint64_t h = k.is_int ? fl_hash_u64(k.u64, self->seed)
                          : fl_hash_bytes(self->base.handle, k.data, k.len);
    flpy_key_release(&k);
    return PyLong_FromUnsignedLongLong(h);
}

/* ---- batches -------------------------------------------------------------------------- */

/* Hashes a batch of strings with the filter's hash (GIL released by the caller). */
static void hash_strings(const fl_filter *f, const flpy_keys *k, uint64_t *out)
{
    for (Py_ssize_t i = 0; i < k->n; i++)
        out[i] = fl_hash_bytes(f, k->ptrs[i], k->lens[i]);
}

static PyObject *Filter_add_many(FilterObject *self, PyObject *args, PyObject *kw)
{
    flpy_keys k;
    int as_hashes;
    if (flpy_keys_from_args(args, kw, "O|$p:add_many", &k, &as_hashes) < 0)
        return NULL;
    uint64_t *tmp = NULL;
    if (k.kind == FLPY_STRINGS && (tmp = flpy_alloc_u64(k.n)) == NULL) {
        flpy_keys_release(&k);
        return NULL;
    }
    size_t inserted = 0;
    fl_status s;
    Py_BEGIN_ALLOW_THREADS
    flpy_write_lock(&self->base.lock);
    if (k.kind == FLPY_STRINGS) {
        hash_strings(self->base.handle, &k, tmp);
        s = fl_insert_hashes(self->base.handle, tmp, (size_t)k.n, &inserted);
    } else if (as_hashes) {
        s = fl_insert_hashes(self->base.handle, k.u64, (size_t)k.n, &inserted);
    } else {
        s = fl_insert_u64s(self->base.handle, k.u64, (size_t)k.n, &inserted);
    }
    flpy_unlock(&self->base.lock);
    Py_END_ALLOW_THREADS
    PyMem_RawFree(tmp);
    flpy_keys_release(&k);
    if (s == FL_ERR_FULL) {
        /* Say how far the batch got: the keys before the one that did not fit stay in. */
        PyErr_Format(flpy_FullError,
                     "add_many: %s (%zu keys of the batch were inserted before it)",
                     fl_strerror(s), inserted);
        return NULL;
    }
    if (s != FL_OK)
        return flpy_raise(s, "add_many", NULL);
    Py_RETURN_NONE;
}

static PyObject *Filter_contains_many(FilterObject *self, PyObject *args, PyObject *kw)
{
    flpy_batch b;
    int as_hashes;
    if (flpy_batch_from_args(args, kw, "O|$pO:contains_many", NPY_BOOL, 0, &b, &as_hashes) < 0)
        return NULL;
    const flpy_keys *k = &b.keys;
    uint8_t *res = b.out.data;
    fl_status s;
    Py_BEGIN_ALLOW_THREADS
    flpy_read_lock(&self->base.lock);
    if (k->kind == FLPY_STRINGS) {
        hash_strings(self->base.handle, k, b.tmp);
        s = fl_contains_hashes(self->base.handle, b.tmp, (size_t)k->n, res, NULL);
    } else if (as_hashes) {
        s = fl_contains_hashes(self->base.handle, k->u64, (size_t)k->n, res, NULL);
    } else {
        s = fl_contains_u64s(self->base.handle, k->u64, (size_t)k->n, res, NULL);
    }
    flpy_unlock(&self->base.lock);
    Py_END_ALLOW_THREADS
    return flpy_batch_finish(&b, s, "contains_many");
}

/* The C batch call alone, timed in C on the same keys: what bench-python compares
 * contains_many against (not part of the documented API). Returns seconds. */
static PyObject *Filter_c_contains_seconds(FilterObject *self, PyObject *obj)
{
    flpy_keys k;
    if (flpy_keys_get(obj, 0, &k) < 0)
        return NULL;
    if (k.kind != FLPY_U64) {
        flpy_keys_release(&k);
        PyErr_SetString(PyExc_TypeError, "_c_contains_seconds takes a uint64 array");
        return NULL;
    }
    uint8_t *res = PyMem_RawMalloc(k.n ? (size_t)k.n : 1);
    if (res == NULL) {
        flpy_keys_release(&k);
        return PyErr_NoMemory();
    }
    struct timespec t0, t1;
    Py_BEGIN_ALLOW_THREADS
    flpy_read_lock(&self->base.lock);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    fl_contains_u64s(self->base.handle, k.u64, (size_t)k.n, res, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    flpy_unlock(&self->base.lock);
    Py_END_ALLOW_THREADS
    PyMem_RawFree(res);
    flpy_keys_release(&k);
    return PyFloat_FromDouble((double)(t1.tv_sec - t0.tv_sec) +
                              (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
}

/* ---- whole-filter operations ---------------------------------------------------------- */

static Py_ssize_t Filter_len(FilterObject *self)
{
    uint64_t n = fl_count(self->base.handle);
    return n > PY_SSIZE_T_MAX ? PY_SSIZE_T_MAX : (Py_ssize_t)n;
}

/* ---- files and bytes ------------------------------------------------------------------ */

static PyObject *Filter_to_parquet(FilterObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"header", NULL};
    int header = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|p:to_parquet", kwlist, &header))
        return NULL;
    flpy_read_lock_gil(&self->base.lock);
    size_t size = fl_parquet_export_size(self->base.handle, header);
    if (size == 0) {
        flpy_unlock(&self->base.lock);
        return flpy_raise(FL_ERR_UNSUPPORTED, "to_parquet (split256 filters only)", NULL);
    }
    PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
    fl_status s = FL_OK;
    size_t written = 0;
    if (b != NULL)
        s = fl_parquet_export(self->base.handle, header, PyBytes_AS_STRING(b), size, &written);
    flpy_unlock(&self->base.lock);
    if (b == NULL)
        return NULL;
    if (s != FL_OK) {
        Py_DECREF(b);
        return flpy_raise(s, "to_parquet", NULL);
    }
    if (written != size && _PyBytes_Resize(&b, (Py_ssize_t)written) < 0)
        return NULL;
    return b;
}

/* ---- info and kernels ----------------------------------------------------------------- */

static PyObject *Filter_info(FilterObject *self, PyObject *Py_UNUSED(ignored))
{
    fl_info in;
    flpy_read_lock_gil(&self->base.lock);
    fl_status s = fl_get_info(self->base.handle, &in);
    flpy_unlock(&self->base.lock);
    if (s != FL_OK)
        return flpy_raise(s, "info", NULL);
    PyObject *d = Py_BuildValue("{s:s,s:K,s:K,s:N,s:K,s:K,s:d,s:d,s:d,s:k,s:N,s:K,s:s}",
                                "hash", in.hash == FL_HASH_XXH64 ? "xxh64" : "xxh3",
                                "seed", (unsigned long long)in.seed,
                                "keys", (unsigned long long)in.keys,
                                "keys_estimated", PyBool_FromLong(in.keys_estimated),
                                "bytes", (unsigned long long)in.bytes,
                                "bits_set", (unsigned long long)in.bits_set,
                                "fill", (double)in.fill,
                                "keys_from_fill", (double)in.keys_from_fill,
                                "predicted_fpr", (double)in.predicted_fpr,
                                "stash_used", (unsigned long)in.stash_used,
                                "huge_pages", PyBool_FromLong(in.huge_pages),
                                "saturated", (unsigned long long)in.saturated,
                                "kernel", fl_filter_kernel(self->base.handle));
    return flpy_make_info("FilterInfo", flpy_with_geometry(d, &in.geometry));
}

static PyObject *Filter_get_kernel(FilterObject *self, void *Py_UNUSED(c))
{
    return PyUnicode_FromString(fl_filter_kernel(self->base.handle));
}

static PyObject *Filter_get_variant(FilterObject *self, void *Py_UNUSED(c))
{
    return PyUnicode_FromString(fl_variant_name(fl_get_variant(self->base.handle)));
}

static PyObject *Filter_get_nbytes(FilterObject *self, void *Py_UNUSED(c))
{
    return PyLong_FromSize_t(fl_size_bytes(self->base.handle));
}

static PyObject *Filter_get_seed(FilterObject *self, void *Py_UNUSED(c))
{
    return PyLong_FromUnsignedLongLong(self->seed);
}

static PyObject *Filter_get_can_delete(FilterObject *self, void *Py_UNUSED(c))
{
    fl_variant_info vi;
    fl_variant_describe(fl_get_variant(self->base.handle), &vi);
    return PyBool_FromLong((vi.caps & FL_CAP_DELETE) != 0);
}

static PyObject *Filter_repr(FilterObject *self)
{
    fl_info in;
    fl_get_info(self->base.handle, &in);
    char geom[160];
    fl_geometry_describe(&in.geometry, geom, sizeof geom);
    return PyUnicode_FromFormat("<filterlab.Filter %s: %s, %llu keys>",
                                fl_variant_name(in.geometry.variant), geom,
                                (unsigned long long)in.keys);
}

static PyMethodDef Filter_methods[] = {
    {"add", (PyCFunction)Filter_add, METH_O,
     "add(key)\n--\n\nInserts one key (int in [0, 2**64), bytes or str). Raises FullError when a "
     "cuckoo filter has no room (the filter is then unchanged)."},
    {"add_hash", (PyCFunction)Filter_add_hash, METH_O,
     "add_hash(h)\n--\n\nInserts a precomputed 64-bit hash."},
    {"add_many", (PyCFunction)(void (*)(void))Filter_add_many, METH_VARARGS | METH_KEYWORDS,
     "add_many(keys, *, hashes=False)\n--\n\nInserts a batch: a uint64 array (keys, or 64-bit "
     "hashes with hashes=True) read in place, or a sequence of bytes/str or of ints. The GIL "
     "is released. A cuckoo filter that fills raises FullError; the keys before stay in."},
    {"contains", (PyCFunction)Filter_contains, METH_O,
     "contains(key)\n--\n\nTrue if the key may be present, False if it certainly is absent."},
    {"contains_hash", (PyCFunction)Filter_contains_hash, METH_O,
     "contains_hash(h)\n--\n\ncontains() for a precomputed 64-bit hash."},
    {"contains_many", (PyCFunction)(void (*)(void))Filter_contains_many,
     METH_VARARGS | METH_KEYWORDS,
     "contains_many(keys, *, hashes=False, out=None)\n--\n\nLooks a batch up; returns a NumPy "
     "bool array (True: may be present). keys as for add_many; a uint64 array is read without "
     "copying (a strided one is copied once). out: a bool/uint8 array of len(keys) to write "
     "into and return instead of a new one. The GIL is released."},
    {"_c_contains_seconds", (PyCFunction)Filter_c_contains_seconds, METH_O,
     "_c_contains_seconds(keys)\n--\n\nSeconds one fl_contains_u64s call takes on the uint64 "
     "array, timed in C (the benchmark's reference)."},
    {"delete", (PyCFunction)Filter_delete, METH_O,
     "delete(key)\n--\n\nRemoves one copy of an inserted key (cuckoo, counting, counting512). "
     "KeyError if it cannot have been inserted; ValueError for a variant without delete."},
    {"delete_hash", (PyCFunction)Filter_delete_hash, METH_O,
     "delete_hash(h)\n--\n\ndelete() for a precomputed 64-bit hash."},
    {"hash", (PyCFunction)Filter_hash, METH_O,
     "hash(key)\n--\n\nThe 64-bit hash this filter uses for key (what the *_hash calls take)."},
    FLPY_MERGE_METHOD(
      "merge(other)\n--\n\nself |= other: union with a filter of equal variant, geometry, hash "
      "and seed (ValueError otherwise). Counting filters add counters (saturating). When both "
      "held keys, len() and info().keys become the distinct keys estimated from the fill "
      "(info().keys_estimated is True), so info().predicted_fpr describes the bit array."),
    FLPY_COPY_METHOD("copy()\n--\n\nAn independent copy."),
    FLPY_CLEAR_METHOD("clear()\n--\n\nRemoves every key; the geometry stays."),
    FLPY_FILE_METHODS(Filter,
      "to_bytes()\n--\n\nThe filter in the filterlab file format (what save() writes).",
      "from_bytes(data, max_bytes=0)\n--\n\nA filter from filterlab-format bytes, every field "
      "validated (FormatError if bad). max_bytes caps the payload (0: no cap).",
      "save(path)\n--\n\nWrites the filter to path atomically (OSError on I/O failure).",
      "load(path, max_bytes=0)\n--\n\nReads a filter file (as written by save() or the CLI)."),
    {"to_parquet", (PyCFunction)(void (*)(void))Filter_to_parquet, METH_VARARGS | METH_KEYWORDS,
     "to_parquet(header=True)\n--\n\nA split256 filter as an Apache Parquet split block Bloom "
     "filter bitset, preceded by its Thrift BloomFilterHeader unless header=False."},
    {"from_parquet", (PyCFunction)(void (*)(void))Filter_from_parquet,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "from_parquet(data, max_bytes=0)\n--\n\nA split256 filter (XXH64, seed 0) from a Parquet "
     "bitset with or without its header (FormatError if malformed)."},
    {"info", (PyCFunction)Filter_info, METH_NOARGS,
     "info()\n--\n\nA FilterInfo dataclass: geometry, keys, fill, predicted FPR, ..."},
    FLPY_BIND_KERNEL_METHOD(
      "bind_kernel(name)\n--\n\nRuns this filter's calls on kernel name ('scalar', 'avx2', ...), "
      "whatever the process uses; None or 'auto' unbinds."),
    FLPY_REDUCE_METHOD_AND_END,
};

static PyGetSetDef Filter_getset[] = {
    {"kernel", (getter)Filter_get_kernel, NULL, "The kernel this filter's calls use.", NULL},
    FLPY_BOUND_KERNEL_GETTER("The kernel bound with bind_kernel, or None."),
    {"variant", (getter)Filter_get_variant, NULL, "The variant's name.", NULL},
    {"nbytes", (getter)Filter_get_nbytes, NULL, "Payload bytes.", NULL},
    {"seed", (getter)Filter_get_seed, NULL, "The hash seed.", NULL},
    {"can_delete", (getter)Filter_get_can_delete, NULL,
     "True if the variant supports delete().", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PySequenceMethods Filter_as_sequence = {
    .sq_length = (lenfunc)Filter_len,
    .sq_contains = (objobjproc)Filter_sq_contains,
};

static PyTypeObject Filter_Type = {
    FLPY_TYPE_FIELDS(Filter, FilterObject, "Filter"),
    .tp_as_number = &Filter_as_number,
    .tp_as_sequence = &Filter_as_sequence,
    .tp_doc = "Filter(n=None, fpr=None, variant='block512', *, units=None, k=None, hash=None, "
              "seed=0, huge_pages=True)\n--\n\n"
              "An approximate-membership filter of any variant: classic, block512, split256, "
              "reg64, cuckoo, counting, counting512.\n\n"
              "Sized for n keys at false-positive rate fpr, or given an explicit geometry "
              "(units of the variant and k). len() is the number of inserts (after a union "
              "of two filters that both held keys: the distinct keys estimated from the fill); "
              "`key in f` tests one key; `a | b` is a new union, `a |= b` merges in place.",
    .tp_getset = Filter_getset,
};

FLPY_DEFINE_ADD(filter, Filter)

/* ---- for classes that take or return a Filter (common.h) ------------------------------ */

PyTypeObject *flpy_filter_type(void) { return &Filter_Type; }

PyObject *flpy_filter_wrap(fl_filter *f) { return flpy_wrap(&Filter_Type, &filter_ops, f); }
